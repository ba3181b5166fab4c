//! Every generated table compiled by a real LaTeX engine (`make test-latex`: installs
//! Debian's texlive packages if missing, then runs this `#[ignore]`d test). The tables are
//! the checked-in `data/claims/*.tex` (kept current by `tables --check` in `make test`)
//! and those of the 2-D test claim `tests/tables/grid-2d.toml`, generated afresh. Each is
//! wrapped in the minimal document its header names (a declared table in
//! `DECLARED_PREAMBLE`, an evidence dump in `DUMP_PREAMBLE`) and run through
//! `pdflatex -interaction=nonstopmode -halt-on-error`; any LaTeX error, any
//! `Overfull \hbox` or `Overfull \vbox` in the log fails. `LATEX_OUT=DIR` keeps the PDFs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use taskassign::report::{DECLARED_PREAMBLE, DUMP_PREAMBLE};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `tex` wrapped in `preamble` as `name` in `dir`; the failures, one line each.
fn compile(dir: &Path, name: &str, preamble: &str, tex: &str) -> Vec<String> {
    let doc = format!("{preamble}{tex}\\end{{document}}\n");
    let file = dir.join(format!("{name}.tex"));
    std::fs::write(&file, doc).expect("write");
    let out = Command::new("pdflatex")
        .current_dir(dir)
        .args(["-interaction=nonstopmode", "-halt-on-error"])
        .arg(&file)
        .output()
        .expect("pdflatex runs (make test-latex installs it)");
    let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
    let mut bad = Vec::new();
    if !out.status.success() {
        let first = log
            .lines()
            .find(|l| l.starts_with('!'))
            .unwrap_or("no '!' line");
        bad.push(format!("{name}: pdflatex failed: {first}"));
    }
    // an overfull \vbox: a page (or a float) too long, e.g. a table that does not break
    for l in log
        .lines()
        .filter(|l| l.contains("Overfull \\hbox") || l.contains("Overfull \\vbox"))
    {
        bad.push(format!("{name}: {l}"));
    }
    if !dir.join(format!("{name}.pdf")).exists() {
        bad.push(format!("{name}: no PDF"));
    }
    bad
}

#[test]
#[ignore = "needs pdflatex: run with make test-latex"]
fn every_generated_table_compiles_without_overfull_boxes() {
    let keep = std::env::var_os("LATEX_OUT").map(PathBuf::from);
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).expect("output folder");
    // the test claim's tables, generated afresh
    let fresh = tempfile::tempdir().expect("tempdir");
    let nofig = tempfile::tempdir().expect("tempdir");
    let out = common::taskassign()
        .current_dir(root())
        .args(["tables", "--claims", "tests/tables/grid-2d.toml", "--out"])
        .arg(fresh.path())
        .arg("--figures")
        .arg(nofig.path())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<PathBuf> = Vec::new();
    for d in [root().join("data/claims"), fresh.path().join("claims")] {
        let mut fs: Vec<PathBuf> = std::fs::read_dir(&d)
            .expect("tables folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "tex"))
            .collect();
        fs.sort();
        files.extend(fs);
    }
    let declared = files
        .iter()
        .filter(|p| p.to_string_lossy().contains(".table-"))
        .count();
    assert!(declared >= 10, "{declared} declared tables");
    let mut failures = Vec::new();
    for f in &files {
        let tex = std::fs::read_to_string(f).expect("read");
        let stem = f.file_stem().map(|s| s.to_string_lossy().replace('.', "_"));
        let name = stem.unwrap_or_default();
        let preamble = if tex.contains("\\begin{table}") {
            DECLARED_PREAMBLE
        } else {
            DUMP_PREAMBLE
        };
        failures.extend(compile(&dir, &name, preamble, &tex));
    }
    eprintln!(
        "compiled {} tables ({declared} declared) in {}",
        files.len(),
        dir.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! What the shipped claim files cite exists: every document a claim file names by a path
//! ending in `.md` (its source, its reading, its notes) is a file of this repository, so a
//! report never prints a source a reader cannot open. The one exception is the list of
//! statements the catalogue covers, `CLAIMS.md` (`../shared/CLAIMS.md`, named by the schema's
//! `row` key in proofs-check/README.md), which lives beside the repository.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every claim file under `dir` (recursively).
fn claim_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("proofs-check/ is readable")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            claim_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// The words of `text` that end in `.md` (letters, digits and `_ . / -` make a word).
fn md_paths(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.ends_with(".md") && w.len() > 3)
        .map(str::to_string)
        .collect()
}

/// The statements' list, kept beside the repository (see the module doc).
const OUTSIDE: &str = "CLAIMS.md";

#[test]
fn every_document_a_claim_cites_ships_with_the_project() {
    let mut files = Vec::new();
    claim_files(&root().join("proofs-check"), &mut files);
    assert!(files.len() >= 15, "the catalogue: {}", files.len());
    let mut cited = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a claim file");
        for p in md_paths(&text) {
            if p == OUTSIDE {
                continue;
            }
            cited += 1;
            assert!(
                root().join(&p).is_file(),
                "{} cites {p}, which is not a file of the repository",
                f.display()
            );
        }
    }
    // ARCHITECTURE.md and data/tags_poisson_error.md are cited today
    assert!(cited >= 2, "{cited} citations found");
}

#[test]
fn the_scanner_finds_md_paths() {
    // hand-written: the words it must find and those it must not
    assert_eq!(
        md_paths("as in data/tags_poisson_error.md; ARCHITECTURE.md. (DESIGN.md: x) a.mdx md"),
        ["data/tags_poisson_error.md", "ARCHITECTURE.md", "DESIGN.md"]
    );
}

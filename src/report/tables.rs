//! `tables`: every claim's table (CSV, Markdown, LaTeX with booktabs); the figures are
//! [`super::figure`]'s. Every file states the command that made it; the output is
//! deterministic (fixed digits, no timestamps), so `tables --check` can regenerate and
//! compare byte for byte.

use super::claims::{claim_csv, verdict_shown};
use crate::claims::run::ClaimResult;
use crate::num::certify::to_sci;
use rug::Float;
use std::path::Path;

/// A generated file: a path relative to the output folder, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    /// Relative path.
    pub path: String,
    /// Content.
    pub text: String,
}

fn latex_escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\textbackslash{}"),
            '_' | '%' | '&' | '#' | '$' | '{' | '}' => {
                o.push('\\');
                o.push(c);
            }
            '^' => o.push_str("\\textasciicircum{}"),
            '~' => o.push_str("\\textasciitilde{}"),
            '±' => o.push_str("$\\pm$"),
            _ => o.push(c),
        }
    }
    o
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The rows of a claim's table: check, point, value, bound, margin, verdict — one per
/// comparison (limits as estimate ± error), then each limit's sequence.
fn claim_rows(r: &ClaimResult) -> Vec<[String; 6]> {
    let mut rows = Vec::new();
    for c in &r.checks {
        for j in &c.judged {
            rows.push([
                c.name.clone(),
                j.label.clone(),
                j.value.clone(),
                j.bound.clone(),
                j.margin.clone(),
                j.verdict.name().to_string(),
            ]);
        }
        for l in &c.limits {
            let at = l
                .outer
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ");
            let var = l.towards.split(' ').next().unwrap_or("");
            for (x, y) in &l.sequence {
                let sep = if at.is_empty() { "" } else { ", " };
                rows.push([
                    c.name.clone(),
                    format!("{at}{sep}{var}={x}"),
                    y.clone(),
                    String::new(),
                    String::new(),
                    "sequence".into(),
                ]);
            }
        }
    }
    rows
}

const HEADERS: [&str; 6] = ["check", "point", "value", "bound", "margin", "verdict"];

/// A claim's Markdown table.
pub fn claim_markdown(r: &ClaimResult, made_by: &str) -> String {
    let c = &r.claim;
    let mut o = format!("<!-- made by: {made_by} -->\n# {}\n\n", c.id);
    o.push_str(&format!(
        "{} ({}): \"{}\"\n\n*Reading*: {}\n\n*Verdict*: **{}**\n\n",
        c.source.paper,
        c.source.seed,
        c.source.words.trim(),
        c.reading,
        verdict_shown(r)
    ));
    o.push_str(&format!(
        "| {} |\n|{}|\n",
        HEADERS.join(" | "),
        "---|".repeat(6)
    ));
    for row in claim_rows(r) {
        let cells: Vec<String> = row.iter().map(|x| md_cell(x)).collect();
        o.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    o
}

/// A claim's LaTeX table (booktabs).
pub fn claim_latex(r: &ClaimResult, made_by: &str) -> String {
    let c = &r.claim;
    let mut o = format!(
        "% made by: {made_by}\n% {}: {} ({})\n% needs \\usepackage{{booktabs}}\n",
        c.id, c.source.paper, c.source.seed
    );
    o.push_str("\\begin{tabular}{llllll}\n\\toprule\n");
    o.push_str(&format!("{} \\\\\n\\midrule\n", HEADERS.join(" & ")));
    for row in claim_rows(r) {
        let cells: Vec<String> = row.iter().map(|x| latex_escape(x)).collect();
        o.push_str(&format!("{} \\\\\n", cells.join(" & ")));
    }
    o.push_str("\\bottomrule\n\\end{tabular}\n");
    o
}

/// The per-claim files.
pub fn claim_files(rs: &[ClaimResult], made_by: &str) -> Vec<OutFile> {
    let mut out = Vec::new();
    for r in rs {
        let id = &r.claim.id;
        out.push(OutFile {
            path: format!("claims/{id}.csv"),
            text: format!("# made by: {made_by}\n{}", claim_csv(r)),
        });
        out.push(OutFile {
            path: format!("claims/{id}.md"),
            text: claim_markdown(r, made_by),
        });
        out.push(OutFile {
            path: format!("claims/{id}.tex"),
            text: claim_latex(r, made_by),
        });
    }
    out
}

/// Writes files under `dir`.
pub fn write_files(dir: &Path, files: &[OutFile]) -> Result<(), String> {
    for f in files {
        let p = dir.join(&f.path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, &f.text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// Compares generated files with those under `dir` (only the generated subfolders
/// `claims/` and `figures/`); returns the differences, one line each.
pub fn compare(dir: &Path, files: &[OutFile]) -> Vec<String> {
    compare_with(dir, files, &[])
}

/// As [`compare`], with the generated binary files (the figures' PDFs) too.
pub fn compare_with(dir: &Path, files: &[OutFile], bins: &[super::figure::BinFile]) -> Vec<String> {
    let mut diffs = super::figure::compare_bins(dir, bins);
    for f in files {
        let p = dir.join(&f.path);
        match std::fs::read_to_string(&p) {
            Ok(t) if t == f.text => {}
            Ok(_) => diffs.push(format!("{} differs", p.display())),
            Err(_) => diffs.push(format!("{} is missing", p.display())),
        }
    }
    for sub in ["claims", "figures"] {
        if let Ok(rd) = std::fs::read_dir(dir.join(sub)) {
            let mut names: Vec<String> = rd
                .filter_map(|e| {
                    e.ok()
                        .map(|e| format!("{sub}/{}", e.file_name().to_string_lossy()))
                })
                .collect();
            names.sort();
            for n in names {
                // figure definitions (*.toml) are inputs, not generated files
                if n.ends_with(".toml") {
                    continue;
                }
                if !files.iter().any(|f| f.path == n) && !bins.iter().any(|f| f.path == n) {
                    diffs.push(format!(
                        "{} is not generated any more",
                        dir.join(&n).display()
                    ));
                }
            }
        }
    }
    diffs
}

/// A short text of the margin for logs.
pub fn margin_text(x: &Float) -> String {
    to_sci(x, 4)
}

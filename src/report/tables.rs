//! `tables`: every claim's table (CSV, Markdown, LaTeX with booktabs); the figures are
//! [`super::figure`]'s. Every file states the command that made it; the output is
//! deterministic (fixed digits, no timestamps), so `tables --check` can regenerate and
//! compare byte for byte.

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

pub use super::table::claim_files;

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

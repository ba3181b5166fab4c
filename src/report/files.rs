//! The files `tables` generates, text and binary: written under the output folder, or
//! compared byte for byte with what is there (`tables --check`).

use std::path::Path;

/// A generated file: a path relative to the output folder, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    /// Relative path.
    pub path: String,
    /// Content.
    pub text: String,
}

/// A generated binary file (a PDF): a path relative to the output folder, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinFile {
    /// Relative path.
    pub path: String,
    /// Content.
    pub bytes: Vec<u8>,
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

/// Compares generated files (text `files` and binary `bins`, the figures' PDFs) with those
/// under `dir`, and lists the extra files in its generated subfolders `claims/` and
/// `figures/`; returns the differences, one line each.
pub fn compare_with(dir: &Path, files: &[OutFile], bins: &[BinFile]) -> Vec<String> {
    let mut diffs = compare_bins(dir, bins);
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

/// Writes binary files under `dir`.
pub fn write_bins(dir: &Path, files: &[BinFile]) -> Result<(), String> {
    for f in files {
        let p = dir.join(&f.path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, &f.bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// Compares generated binary files with those under `dir`, one line per difference.
pub fn compare_bins(dir: &Path, files: &[BinFile]) -> Vec<String> {
    let mut diffs = Vec::new();
    for f in files {
        let p = dir.join(&f.path);
        match std::fs::read(&p) {
            Ok(b) if b == f.bytes => {}
            Ok(_) => diffs.push(format!("{} differs", p.display())),
            Err(_) => diffs.push(format!("{} is missing", p.display())),
        }
    }
    diffs
}

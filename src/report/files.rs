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
        write_file(dir, &f.path, f.text.as_bytes())?;
    }
    Ok(())
}

/// Writes `contents` to `path` under `dir`, creating the folders on the way.
fn write_file(dir: &Path, path: &str, contents: &[u8]) -> Result<(), String> {
    let p = dir.join(path);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&p, contents).map_err(|e| format!("{}: {e}", p.display()))
}

/// Compares generated files (text `files` and binary `bins`, the figures' PDFs) with those
/// under `dir`, and lists the extra files in its generated subfolders `claims/` and
/// `figures/`; returns the differences, one line each.
pub fn compare_with(dir: &Path, files: &[OutFile], bins: &[BinFile]) -> Vec<String> {
    let mut diffs = compare_bins(dir, bins);
    for f in files {
        let p = dir.join(&f.path);
        diffs.extend(difference(&p, std::fs::read_to_string(&p), &f.text));
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
        write_file(dir, &f.path, &f.bytes)?;
    }
    Ok(())
}

/// Compares generated binary files with those under `dir`, one line per difference.
pub fn compare_bins(dir: &Path, files: &[BinFile]) -> Vec<String> {
    let mut diffs = Vec::new();
    for f in files {
        let p = dir.join(&f.path);
        diffs.extend(difference(&p, std::fs::read(&p), &f.bytes));
    }
    diffs
}

/// The line for the file at `p` whose contents were read as `found`: none where they are
/// `want`, else that it differs or that it is missing (could not be read).
fn difference<T: PartialEq>(p: &Path, found: std::io::Result<T>, want: &T) -> Option<String> {
    match found {
        Ok(t) if t == *want => None,
        Ok(_) => Some(format!("{} differs", p.display())),
        Err(_) => Some(format!("{} is missing", p.display())),
    }
}

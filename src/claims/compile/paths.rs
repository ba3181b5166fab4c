//! Reading claim files from files and folders.

use super::claim::Claim;
use super::claim_file::compile;
use crate::claims::ClaimError;
use std::path::{Path, PathBuf};

/// `p` itself when it is a file, else every `*.toml` under it (sorted, recursively).
fn collect(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), ClaimError> {
    let io = |e: std::io::Error| ClaimError::Io {
        path: p.display().to_string(),
        why: e.to_string(),
    };
    let md = std::fs::metadata(p).map_err(io)?;
    if md.is_file() {
        out.push(p.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "toml") {
            out.push(e);
        }
    }
    Ok(())
}

/// Reads every `*.toml` under the given files and folders (sorted, recursively) and
/// validates them. Every malformed file is reported (all together, each with all its
/// unknown and missing keys), and so is a second file with an id already used.
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<Claim>, ClaimError> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    let mut claims: Vec<Claim> = Vec::new();
    let mut errors: Vec<ClaimError> = Vec::new();
    for f in files {
        let path = f.display().to_string();
        let text = match std::fs::read_to_string(&f) {
            Ok(t) => t,
            Err(e) => {
                errors.push(ClaimError::Io {
                    path,
                    why: e.to_string(),
                });
                continue;
            }
        };
        let c = match compile(&path, &text) {
            Ok(c) => c,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if let Some(o) = claims.iter().find(|o| o.id == c.id) {
            errors.push(ClaimError::DuplicateId {
                path,
                id: c.id,
                other: o.path.clone(),
            });
            continue;
        }
        claims.push(c);
    }
    if !errors.is_empty() {
        return Err(ClaimError::all(errors));
    }
    Ok(claims)
}

//! `taskassign tables [--out data] [--check]`: regenerates every table and figure.

use super::claims_run::{run_claims_with_progress, DEFAULT_CLAIMS_DIR, DEFAULT_FIGURES_DIR};
use crate::claims::figure::{compute, load_dir};
use crate::claims::load_paths;
use crate::report::figure::figure_files;
use crate::report::files::{compare_with, write_bins, write_files};
use crate::report::tables::claim_files;
use clap::Args;
use std::path::PathBuf;

/// Default output folder.
pub(crate) const DEFAULT_TABLES_DIR: &str = "data";

#[derive(Args, Debug)]
pub(crate) struct TablesArgs {
    /// Output folder.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_TABLES_DIR)]
    out: PathBuf,
    /// Claim files or folders (default proofs-check/).
    #[arg(long = "claims", value_name = "PATH")]
    claims: Vec<PathBuf>,
    /// Regenerate into a temporary folder and fail (exit 1) on any difference with --out.
    #[arg(long)]
    check: bool,
    /// The folder of figure definitions (*.toml).
    #[arg(long, value_name = "DIR", default_value = DEFAULT_FIGURES_DIR)]
    figures: PathBuf,
}

/// Runs `tables`; returns the report and the exit status.
pub(crate) fn run_tables(a: TablesArgs) -> Result<(String, i32), (i32, String)> {
    let bad = |e: String| (super::EXIT_BAD_INPUT, e);
    let paths = if a.claims.is_empty() {
        vec![PathBuf::from(DEFAULT_CLAIMS_DIR)]
    } else {
        a.claims.clone()
    };
    let claims = load_paths(&paths).map_err(|e| bad(e.to_string()))?;
    let mut made_by = format!("taskassign tables --out {}", a.out.display());
    if !a.claims.is_empty() {
        for c in &a.claims {
            made_by.push_str(&format!(" --claims {}", c.display()));
        }
    }
    let rs = run_claims_with_progress(&claims);
    let mut files = claim_files(&rs, &made_by).map_err(super::fail)?;
    // Every figure declared in --figures, computed through the claims engine; a point that
    // cannot be computed is an error naming the figure, the series and the point.
    let computed = load_dir(&a.figures)
        .map_err(crate::Error::from)
        .and_then(|figs| {
            figs.into_iter()
                .map(|f| compute(&f).map(|s| (f, s)))
                .collect::<Result<Vec<_>, crate::Error>>()
        })
        .map_err(super::fail)?;
    let figs = figure_files(&computed, &rs, &made_by).map_err(super::fail)?;
    files.extend(figs.text);
    let pdfs = figs.pdf;
    if a.check {
        let tmp = tempfile::tempdir().map_err(|e| bad(format!("temporary folder: {e}")))?;
        write_files(tmp.path(), &files).map_err(bad)?;
        write_bins(tmp.path(), &pdfs).map_err(bad)?;
        let diffs = compare_with(&a.out, &files, &pdfs);
        if diffs.is_empty() {
            Ok((
                format!(
                    "tables --check: {} files up to date in {}\n",
                    files.len() + pdfs.len(),
                    a.out.display()
                ),
                0,
            ))
        } else {
            let mut s = format!(
                "tables --check: {} of {} files differ from a fresh regeneration (run `{made_by}`):\n",
                diffs.len(),
                files.len() + pdfs.len()
            );
            for d in diffs {
                s.push_str(&format!("  {d}\n"));
            }
            Ok((s, 1))
        }
    } else {
        write_files(&a.out, &files).map_err(bad)?;
        write_bins(&a.out, &pdfs).map_err(bad)?;
        Ok((
            format!(
                "wrote {} files under {}\n",
                files.len() + pdfs.len(),
                a.out.display()
            ),
            0,
        ))
    }
}

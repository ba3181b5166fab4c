//! `taskassign check [PATH...]`: runs claim files and judges them.

use crate::claims::run::run_all;
use crate::claims::{load_paths, ClaimResult};
use crate::report::claims::{claim_csv, summary, to_json, to_markdown, to_text};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Default folder of claim files.
pub const DEFAULT_CLAIMS_DIR: &str = "proofs-check";

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum CheckFormat {
    Text,
    Json,
    Md,
}

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// Claim files or folders (searched recursively for *.toml); default proofs-check/.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "text")]
    format: CheckFormat,
    /// Also write per-claim CSV files and the report (report.md, report.json) here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Exit 1 when some claim is INCONCLUSIVE, as when one fails (for CI gates that must
    /// not stay green on undecided claims).
    #[arg(long)]
    strict: bool,
    /// Print the quantities a claim file may call (the registry), with their models,
    /// arguments and fields, and exit.
    #[arg(long)]
    quantities: bool,
}

/// The registry as a table: one quantity a line.
fn quantity_list() -> String {
    let reg = crate::claims::registry();
    let mut out = format!(
        "models: {} (in [setup], model = \"...\"; default dispatch)\n\n",
        reg.model_names().join(", ")
    );
    for s in reg.signatures() {
        out.push_str(&format!(
            "{}  [{}]\n    {}\n    fields: {} (default {})\n",
            s.usage(),
            s.model.unwrap_or("any model"),
            s.summary,
            s.fields_shown(),
            s.default_field
        ));
    }
    out.push_str(&format!(
        "\nfunctions: {}\n",
        crate::claims::scope::FUNCTIONS.join(", ")
    ));
    out
}

/// Runs claims with a progress bar on stderr when it is a terminal.
pub(crate) fn run_claims_with_progress(claims: &[crate::claims::Claim]) -> Vec<ClaimResult> {
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(claims.len() as u64);
        if let Ok(st) = ProgressStyle::with_template("{bar:30} {pos}/{len} claims  {msg}") {
            b.set_style(st);
        }
        Some(b)
    } else {
        None
    };
    let tick = |r: &ClaimResult| {
        if let Some(b) = &bar {
            b.set_message(r.claim.id.clone());
            b.inc(1);
        }
    };
    let rs = run_all(claims, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    rs
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> Result<(), (i32, String)> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| (super::EXIT_BAD_INPUT, format!("{}: {e}", p.display())))
}

/// Runs `check`; returns the report and the exit status (0 or 1), or a bad-input error.
pub(crate) fn run_check(a: CheckArgs) -> Result<(String, i32), (i32, String)> {
    if a.quantities {
        return Ok((quantity_list(), 0));
    }
    let paths = if a.paths.is_empty() {
        vec![PathBuf::from(DEFAULT_CLAIMS_DIR)]
    } else {
        a.paths
    };
    let claims = load_paths(&paths).map_err(|e| (super::EXIT_BAD_INPUT, e.to_string()))?;
    if claims.is_empty() {
        return Err((
            super::EXIT_BAD_INPUT,
            format!(
                "no claim files (*.toml) under {}",
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let rs = run_claims_with_progress(&claims);
    let s = summary(&rs);
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| (super::EXIT_BAD_INPUT, format!("{}: {e}", dir.display())))?;
        for r in &rs {
            write(dir, &format!("{}.csv", r.claim.id), &claim_csv(r))?;
        }
        write(dir, "report.md", &to_markdown(&rs))?;
        write(dir, "report.json", &(to_json(&rs) + "\n"))?;
    }
    let out = match a.format {
        CheckFormat::Text => to_text(&rs),
        CheckFormat::Json => to_json(&rs) + "\n",
        CheckFormat::Md => to_markdown(&rs),
    };
    Ok((out, s.exit_status_strict(a.strict)))
}

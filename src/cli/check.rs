//! `taskassign check [PATH...]`: runs claim files and judges them.

use super::claims_run::{
    install_interrupt_handler, interrupted, run_claims_with_progress, DEFAULT_CLAIMS_DIR,
    DEFAULT_FIGURES_DIR, EXIT_INTERRUPTED,
};
use crate::claims::load_paths;
use crate::report::claims::{
    claim_csv, incomplete_note, mark_incomplete_json, summary, to_json, to_markdown, to_text,
};
use crate::report::html::{to_html, HtmlFigure};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum CheckFormat {
    Text,
    Json,
    Md,
    /// A self-contained DIR/index.html (needs --out DIR).
    Html,
}

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// Claim files or folders (searched recursively for *.toml); default proofs-check/.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "text")]
    format: CheckFormat,
    /// Also write per-claim CSV files and the report (report.md, report.json) here; with
    /// --format html, index.html too.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The figures (definitions *.toml and the SVGs `tables` made) the HTML report shows
    /// with their claims.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_FIGURES_DIR)]
    figures: PathBuf,
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

fn write(dir: &std::path::Path, name: &str, text: &str) -> Result<(), (i32, String)> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| (super::EXIT_BAD_INPUT, format!("{}: {e}", p.display())))
}

/// The figures of the claims in the run, for the HTML report: each declared figure
/// (`DIR/*.toml`) whose `claim` is run, with the SVG `tables` wrote beside it. A missing
/// SVG is an input error (run `tables` first); nothing is recomputed.
fn html_figures(
    dir: &std::path::Path,
    claims: &[crate::claims::Claim],
) -> Result<Vec<HtmlFigure>, (i32, String)> {
    let bad = |m: String| (super::EXIT_BAD_INPUT, m);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let figs = crate::claims::figure::load_dir(dir).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    for f in figs {
        let Some(id) = f.claim.clone() else { continue };
        if !claims.iter().any(|c| c.id == id) {
            continue;
        }
        let p = dir.join(format!("{}.svg", f.name));
        let svg = std::fs::read_to_string(&p).map_err(|e| {
            bad(format!(
                "{}: {e} (the figure of claim {id}; `taskassign tables` draws it)",
                p.display()
            ))
        })?;
        out.push(HtmlFigure {
            name: f.name,
            claim: id,
            caption: f.title,
            svg,
        });
    }
    Ok(out)
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
    if a.format == CheckFormat::Html && a.out.is_none() {
        return Err((
            super::EXIT_BAD_INPUT,
            "--format html writes DIR/index.html: it needs --out DIR".into(),
        ));
    }
    let claims = load_paths(&paths).map_err(|e| (super::EXIT_BAD_INPUT, e.to_string()))?;
    let figures = if a.format == CheckFormat::Html {
        html_figures(&a.figures, &claims)?
    } else {
        Vec::new()
    };
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
    install_interrupt_handler();
    let rs = run_claims_with_progress(&claims);
    let interrupted = interrupted();
    let note = |text: String| {
        if interrupted {
            text + &incomplete_note(rs.len(), claims.len())
        } else {
            text
        }
    };
    let json = |text: String| {
        if interrupted {
            mark_incomplete_json(&text, claims.len(), EXIT_INTERRUPTED)
        } else {
            text
        }
    };
    let s = summary(&rs);
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| (super::EXIT_BAD_INPUT, format!("{}: {e}", dir.display())))?;
        for r in &rs {
            write(dir, &format!("{}.csv", r.claim.id), &claim_csv(r))?;
        }
        write(dir, "report.md", &note(to_markdown(&rs)))?;
        write(dir, "report.json", &(json(to_json(&rs)) + "\n"))?;
        if a.format == CheckFormat::Html {
            let n = if interrupted {
                incomplete_note(rs.len(), claims.len())
            } else {
                String::new()
            };
            write(dir, "index.html", &to_html(&rs, &figures, &n))?;
        }
    }
    let out = match a.format {
        CheckFormat::Text => note(to_text(&rs)),
        CheckFormat::Json => json(to_json(&rs)) + "\n",
        CheckFormat::Md => note(to_markdown(&rs)),
        CheckFormat::Html => {
            let dir = a.out.as_deref().unwrap_or(std::path::Path::new("."));
            note(to_text(&rs)) + &format!("\nwrote {}\n", dir.join("index.html").display())
        }
    };
    if interrupted {
        return Ok((out, EXIT_INTERRUPTED));
    }
    Ok((out, s.exit_status_strict(a.strict)))
}

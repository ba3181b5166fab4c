//! `taskassign check [PATH...]`: runs claim files and judges them.

use super::claims_run::{
    install_interrupt_handler, interrupted, run_claims_with_progress, DEFAULT_CLAIMS_DIR,
    DEFAULT_FIGURES_DIR, EXIT_INTERRUPTED,
};
use crate::claims::load_paths;
use crate::report::claims::{
    claim_csv, incomplete_note, mark_incomplete_json, summary, to_json, to_markdown, to_text,
    to_text_verbose,
};
use crate::report::figure::sanitize::sanitize;
use crate::report::html::{to_html, HtmlFigure};
use crate::report::junit::{to_junit, JunitEnv};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum CheckFormat {
    Text,
    Json,
    Md,
    /// A self-contained DIR/index.html (needs --out DIR).
    Html,
    /// JUnit XML for CI (one testcase per check) on stdout, or into FILE with --out FILE.
    Junit,
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
    /// --format html, index.html too. With --format junit, the XML file to write.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The figures the HTML report shows with their claims: the folder `tables --out X`
    /// wrote (X, or X/figures: each figure's definition *.toml beside its SVG) [default:
    /// data/figures]. A folder given here that holds no figure is an error; one whose
    /// figures belong to none of the claims run is a warning (stderr and the page).
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    /// Also write the run as JUnit XML into FILE (one testcase per check: FAIL a failure,
    /// INCONCLUSIVE skipped with its reason, uncomputed an error), beside any --format.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Text: also every check's values (each point's value with the uncertainty its
    /// verdict allowed for, the bound, the margin and the verdict; Markdown always has
    /// them).
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Exit 1 when some claim is INCONCLUSIVE, as when one fails (for CI gates that must
    /// not stay green on undecided claims).
    #[arg(long)]
    strict: bool,
    /// Prove where possible: every number is also computed as an enclosure (an interval
    /// with outward rounding that contains the exact value), and a check whose relation
    /// holds on the whole enclosure at every point is PROVEN rather than PASS (certified:
    /// two precisions agree). Enclosed: eval of sita/tags/random at decimal cutoffs,
    /// opt(sita-e).value, the minimum of opt(sita|tags) and the largest queue of
    /// opt(tags-minmax) (a proven lower bound and the value at the printed cutoffs),
    /// threshold(), mean(), moment(), sup_x_tail(), scv(), jsq_fixed_point() (power-of-d
    /// without a buffer, finite capacities, JSQ's without one), red_exact(fcfs), a setup load
    /// computed by an expression, and the arithmetic between them. Never PROVEN: limits,
    /// simulations, truncated chains, custom densities; the report says why for each
    /// check. A claim file may ask for it with
    /// `rigorous = true`.
    #[arg(long)]
    rigorous: bool,
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

/// The figures of the run's claims for the HTML report, and a warning for the page and
/// stderr when it shows none although figures were looked for.
struct ReportFigures {
    figures: Vec<HtmlFigure>,
    warning: Option<String>,
}

/// The folder of figures `dir` names: itself when it holds definitions (`*.toml`), else its
/// `figures/` subfolder when that exists (`tables --out X` writes X/figures).
fn figures_folder(dir: &std::path::Path) -> PathBuf {
    let has_defs = |d: &std::path::Path| {
        std::fs::read_dir(d).is_ok_and(|mut it| {
            it.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "toml")))
        })
    };
    let sub = dir.join("figures");
    if !has_defs(dir) && sub.is_dir() {
        sub
    } else {
        dir.to_path_buf()
    }
}

/// The figures of the claims in the run, for the HTML report: each declared figure
/// (`DIR/*.toml`) whose `claim` is run, with the SVG `tables` wrote beside it. A missing
/// SVG is an input error (run `tables` first); nothing is recomputed. `given` is the
/// `--figures` folder when the user named one (then a folder without figures is an
/// error); otherwise the default folder, whose absence is only a warning.
fn html_figures(
    given: Option<&std::path::Path>,
    claims: &[crate::claims::Claim],
) -> Result<ReportFigures, (i32, String)> {
    let bad = |m: String| (super::EXIT_BAD_INPUT, m);
    let default = std::path::Path::new(DEFAULT_FIGURES_DIR);
    let dir = figures_folder(given.unwrap_or(default));
    // No figures: an error for a folder the user named, a warning for the default one.
    let no_figures = |why: String| match given {
        Some(_) => Err(bad(why)),
        None => Ok(ReportFigures {
            figures: Vec::new(),
            warning: Some(why),
        }),
    };
    if !dir.is_dir() {
        let why = format!(
            "{}: no such folder, so the report shows no figures (`taskassign tables --out X` writes them to X/figures; pass --figures X)",
            dir.display()
        );
        return no_figures(why);
    }
    let figs = crate::claims::figure::load_dir(&dir).map_err(|e| bad(e.to_string()))?;
    if figs.is_empty() {
        let why = format!(
            "{}: no figure definitions (*.toml), so the report shows no figures (`taskassign tables --out X` writes them with their SVGs to X/figures)",
            dir.display()
        );
        return no_figures(why);
    }
    let mut out = Vec::new();
    let mut others: Vec<String> = Vec::new();
    for f in figs {
        let Some(id) = f.claim.clone() else { continue };
        if !claims.iter().any(|c| c.id == id) {
            if !others.contains(&id) {
                others.push(id);
            }
            continue;
        }
        let p = dir.join(format!("{}.svg", f.name));
        let text = std::fs::read_to_string(&p).map_err(|e| {
            bad(format!(
                "{}: {e} (the figure of claim {id}; `taskassign tables` draws it)",
                p.display()
            ))
        })?;
        // inlined in the page: only the drawing, never a script or an outside reference
        let svg = sanitize(&text).map_err(|e| {
            bad(format!(
                "{}: {} (the figure of claim {id}; `taskassign tables` draws it)",
                p.display(),
                e.0
            ))
        })?;
        out.push(HtmlFigure {
            name: f.name,
            claim: id,
            caption: f.title,
            svg,
        });
    }
    // figures were found, but none is of a claim that ran: say so when asked for them
    let warning = (out.is_empty() && given.is_some()).then(|| {
        format!(
            "{}: no figure belongs to the claims run (its figures are of {})",
            dir.display(),
            if others.is_empty() {
                "no claim".to_string()
            } else {
                others.join(", ")
            }
        )
    });
    Ok(ReportFigures {
        figures: out,
        warning,
    })
}

/// The run's time as the JUnit schema's timestamp (`YYYY-MM-DDTHH:MM:SS`, UTC).
fn utc_timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // days since 1970-01-01 to the proleptic Gregorian date (H. Hinnant's civil_from_days)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The machine's name for the JUnit report (`localhost` when the system gives none).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// Writes `text` to the file `path` (exit 2 naming it when it cannot be written).
fn write_file(path: &std::path::Path, text: &str) -> Result<(), (i32, String)> {
    std::fs::write(path, text).map_err(|e| {
        (
            super::EXIT_BAD_INPUT,
            format!("{}: cannot be written: {e}", path.display()),
        )
    })
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
    let mut claims = load_paths(&paths).map_err(|e| (super::EXIT_BAD_INPUT, e.to_string()))?;
    if a.rigorous {
        claims.iter_mut().for_each(|c| c.rigorous = true);
    }
    let figures = if a.format == CheckFormat::Html {
        html_figures(a.figures.as_deref(), &claims)?
    } else {
        ReportFigures {
            figures: Vec::new(),
            warning: None,
        }
    };
    if let Some(w) = &figures.warning {
        eprintln!("taskassign: warning: {w}");
    }
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
    let junit = || {
        to_junit(
            &rs,
            &JunitEnv {
                timestamp: utc_timestamp(),
                hostname: hostname(),
            },
        )
    };
    if a.format == CheckFormat::Junit {
        if let Some(f) = &a.junit {
            write_file(f, &junit())?;
        }
        let out = match &a.out {
            Some(f) => {
                write_file(f, &junit())?;
                note(to_text(&rs)) + &format!("\nwrote {}\n", f.display())
            }
            None => junit(),
        };
        if interrupted {
            return Ok((out, EXIT_INTERRUPTED));
        }
        return Ok((out, s.exit_status_strict(a.strict)));
    }
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| (super::EXIT_BAD_INPUT, format!("{}: {e}", dir.display())))?;
        for r in &rs {
            write(dir, &format!("{}.csv", r.claim.id), &claim_csv(r))?;
        }
        write(dir, "report.md", &note(to_markdown(&rs)))?;
        write(dir, "report.json", &(json(to_json(&rs)) + "\n"))?;
        if a.format == CheckFormat::Html {
            let mut n = if interrupted {
                incomplete_note(rs.len(), claims.len())
            } else {
                String::new()
            };
            if let Some(w) = &figures.warning {
                n.push_str(&format!("\nWarning: {w}."));
            }
            write(dir, "index.html", &to_html(&rs, &figures.figures, &n))?;
        }
    }
    // after --out's folder exists: --junit may name a file in it
    if let Some(f) = &a.junit {
        write_file(f, &junit())?;
    }
    let out = match a.format {
        CheckFormat::Text if a.verbose => note(to_text_verbose(&rs)),
        CheckFormat::Text => note(to_text(&rs)),
        CheckFormat::Json => json(to_json(&rs)) + "\n",
        CheckFormat::Md => note(to_markdown(&rs)),
        CheckFormat::Html => {
            let dir = a.out.as_deref().unwrap_or(std::path::Path::new("."));
            note(to_text(&rs)) + &format!("\nwrote {}\n", dir.join("index.html").display())
        }
        CheckFormat::Junit => junit(),
    };
    if interrupted {
        return Ok((out, EXIT_INTERRUPTED));
    }
    Ok((out, s.exit_status_strict(a.strict)))
}

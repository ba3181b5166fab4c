//! `tables`: every claim's table (CSV, Markdown, LaTeX with booktabs) and the figures
//! people look at (SVG, drawn with plotters' SVG backend and its built-in font metrics, so
//! no system font is needed). Every file states the command that made it; the output is
//! deterministic (fixed digits, no timestamps), so `tables --check` can regenerate and
//! compare byte for byte.

use super::claims::{claim_csv, verdict_shown};
use crate::claims::run::ClaimResult;
use crate::dist::{DistFactory, DistSpec};
use crate::num::certify::{certify_pair, to_sci};
use crate::num::certify_bits;
use crate::optimize::threshold::tags_threshold;
use crate::optimize::{optimal_cutoffs_pair, OptPolicy};
use crate::policy::lwl::lee_longton;
use crate::policy::{evaluate, LoadSpec, Metric, PolicyKind};
use plotters::prelude::*;
use rayon::prelude::*;
use rug::Float;
use std::path::Path;

/// Significant digits of the figures' data.
pub const FIGURE_DIGITS: u32 = 8;
/// Figure size in pixels.
pub const FIGURE_SIZE: (u32, u32) = (720, 480);

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

/// One plotted series: a name and (x, y, certified y) points.
struct Series {
    name: String,
    pts: Vec<(f64, f64, String)>,
}

fn pair_value(bits: (u32, u32), f: impl Fn(u32) -> Option<Float>) -> Option<(f64, String)> {
    let a = f(bits.0)?;
    let b = f(bits.1)?;
    let c = certify_pair(&a, &b, FIGURE_DIGITS);
    let v = b.to_f64();
    if v.is_finite() {
        Some((v, c.text))
    } else {
        None
    }
}

fn opt_value(spec: &str, hosts: usize, load: &str, policy: OptPolicy) -> Option<(Float, Float)> {
    let d = DistSpec::parse(spec).ok()?;
    let (a, b) = optimal_cutoffs_pair(
        &d,
        &LoadSpec::Total(load.into()),
        hosts,
        policy,
        Metric::Waiting,
        certify_bits(FIGURE_DIGITS),
    )
    .ok()?;
    Some((a.eval.value, b.eval.value))
}

fn series_csv(title: &str, xname: &str, ss: &[Series], made_by: &str) -> String {
    let mut o = format!("# made by: {made_by}\n# {title}\nseries,{xname},value\n");
    for s in ss {
        for (x, _, t) in &s.pts {
            o.push_str(&format!("{},{},{}\n", s.name, fmt_x(*x), t));
        }
    }
    o
}

fn fmt_x(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Vertical margin of a figure, as a fraction of the data's range.
const PLOT_PAD_FRACTION: f64 = 0.05;
/// Smallest vertical margin (a flat series still gets a visible band).
const PLOT_PAD_MIN: f64 = 1e-9;

fn draw(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    ss: &[Series],
    made_by: &str,
) -> Result<String, String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, FIGURE_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for s in ss {
            for (x, y, _) in &s.pts {
                x0 = x0.min(*x);
                x1 = x1.max(*x);
                y0 = y0.min(*y);
                y1 = y1.max(*y);
            }
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        let pad = ((y1 - y0) * PLOT_PAD_FRACTION).max(PLOT_PAD_MIN);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(xlabel)
            .y_desc(ylabel)
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, s) in ss.iter().enumerate() {
            let col = COLORS[i % COLORS.len()];
            chart
                .draw_series(LineSeries::new(
                    s.pts.iter().map(|(x, y, _)| (*x, *y)),
                    col.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], col.stroke_width(2))
                });
            chart
                .draw_series(
                    s.pts
                        .iter()
                        .map(|(x, y, _)| Circle::new((*x, *y), 3, col.filled())),
                )
                .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    // The command that made it, as the SVG's <desc> right after the root element's start
    // (not an XML comment: "--out" would put a forbidden "--" inside one).
    let escaped = made_by
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let note = format!("<desc>made by: {escaped}</desc>\n");
    Ok(match buf.find('>') {
        Some(i) => format!("{}\n{}{}", &buf[..=i], note, &buf[i + 1..]),
        None => note + &buf,
    })
}

fn figure(
    name: &str,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    ss: Vec<Series>,
    made_by: &str,
) -> Result<Vec<OutFile>, String> {
    Ok(vec![
        OutFile {
            path: format!("figures/{name}.svg"),
            text: draw(title, xlabel, ylabel, &ss, made_by)?,
        },
        OutFile {
            path: format!("figures/{name}.csv"),
            text: series_csv(title, xlabel, &ss, made_by),
        },
    ])
}

/// Exponents of p in the TAGS/SITA ratio figure.
const RATIO_LOG10_P: [u32; 9] = [2, 4, 10, 20, 50, 100, 200, 500, 1000];
/// alpha values of the threshold and load-split figures (tenths).
const ALPHA_TENTHS: std::ops::RangeInclusive<u32> = 2..=20;

fn ratio_vs_p() -> Vec<Series> {
    let combos: Vec<(&str, usize)> = vec![
        ("0.5", 2),
        ("1", 2),
        ("1.5", 2),
        ("0.5", 3),
        ("1", 3),
        ("1.5", 3),
    ];
    combos
        .par_iter()
        .map(|(a, h)| {
            let pts = RATIO_LOG10_P
                .iter()
                .filter_map(|e| {
                    let spec = format!("bp:k=1,p=1e{e},alpha={a}");
                    let t = opt_value(&spec, *h, "0.5", OptPolicy::Tags)?;
                    let s = opt_value(&spec, *h, "0.5", OptPolicy::Sita)?;
                    let (v, txt) = pair_value(certify_bits(FIGURE_DIGITS), |b| {
                        Some(if b == certify_bits(FIGURE_DIGITS).0 {
                            Float::with_val(b, &t.0 / &s.0)
                        } else {
                            Float::with_val(b, &t.1 / &s.1)
                        })
                    })?;
                    Some((f64::from(*e), v, txt))
                })
                .collect();
            Series {
                name: format!("alpha={a} h={h}"),
                pts,
            }
        })
        .collect()
}

fn alpha_text(t: u32) -> String {
    format!("{}.{}", t / 10, t % 10)
}

fn threshold_vs_alpha() -> Vec<Series> {
    let hs: Vec<Option<usize>> = vec![Some(2), Some(3), Some(5), None];
    hs.par_iter()
        .map(|h| {
            let pts = ALPHA_TENTHS
                .filter_map(|t| {
                    let spec =
                        DistSpec::parse(&format!("bp:k=1,p=1e10,alpha={}", alpha_text(t))).ok()?;
                    let (v, txt) = pair_value(certify_bits(FIGURE_DIGITS), |b| {
                        let d = spec.build(b).ok()?;
                        Some(tags_threshold(d.as_ref(), *h).ok()?.load)
                    })?;
                    Some((f64::from(t) / 10.0, v, txt))
                })
                .collect();
            Series {
                name: match h {
                    Some(h) => format!("h={h}"),
                    None => "h=inf".into(),
                },
                pts,
            }
        })
        .collect()
}

fn split_vs_alpha() -> Vec<Series> {
    let ps = ["1e4", "1e10", "1e100"];
    ps.par_iter()
        .map(|p| {
            let pts = ALPHA_TENTHS
                .filter_map(|t| {
                    let spec =
                        DistSpec::parse(&format!("bp:k=1,p={p},alpha={}", alpha_text(t))).ok()?;
                    let (a, b) = optimal_cutoffs_pair(
                        &spec,
                        &LoadSpec::Total("0.5".into()),
                        2,
                        OptPolicy::Sita,
                        Metric::Waiting,
                        certify_bits(FIGURE_DIGITS),
                    )
                    .ok()?;
                    let share = |o: &crate::optimize::Optimum| -> Option<Float> {
                        let l1 = o.eval.host_loads.first()?;
                        let tot = Float::with_val(l1.prec(), l1 + o.eval.host_loads.get(1)?);
                        Some(Float::with_val(l1.prec(), l1 / &tot))
                    };
                    let (sa, sb) = (share(&a)?, share(&b)?);
                    let c = certify_pair(&sa, &sb, FIGURE_DIGITS);
                    Some((f64::from(t) / 10.0, sb.to_f64(), c.text))
                })
                .collect();
            Series {
                name: format!("p={p}"),
                pts,
            }
        })
        .collect()
}

fn waiting_vs_load() -> Vec<Series> {
    let spec_text = "bp:k=1,p=1e10,alpha=1";
    let loads: Vec<String> = (1..=19).map(|i| format!("{}.{}", i / 10, i % 10)).collect();
    let kinds = ["sita", "tags", "random", "lwl (Lee-Longton approx.)"];
    kinds
        .par_iter()
        .map(|k| {
            let pts = loads
                .iter()
                .filter_map(|l| {
                    let x: f64 = l.parse().ok()?;
                    let (a, b) = match *k {
                        "sita" => opt_value(spec_text, 2, l, OptPolicy::Sita)?,
                        "tags" => opt_value(spec_text, 2, l, OptPolicy::Tags)?,
                        _ => {
                            let spec = DistSpec::parse(spec_text).ok()?;
                            let one = |bits: u32| -> Option<Float> {
                                let d = spec.build(bits).ok()?;
                                let (lam, rho) =
                                    LoadSpec::Total(l.clone()).resolve(d.as_ref(), 2).ok()?;
                                if k.starts_with("random") {
                                    Some(
                                        evaluate(
                                            PolicyKind::Random,
                                            d.as_ref(),
                                            &lam,
                                            2,
                                            &[],
                                            Metric::Waiting,
                                        )
                                        .ok()?
                                        .value,
                                    )
                                } else {
                                    lee_longton(d.as_ref(), &rho, 2, Metric::Waiting).ok()
                                }
                            };
                            let bits = certify_bits(FIGURE_DIGITS);
                            (one(bits.0)?, one(bits.1)?)
                        }
                    };
                    let c = certify_pair(&a, &b, FIGURE_DIGITS);
                    let v = Float::with_val(b.prec(), b.log10_ref()).to_f64();
                    v.is_finite().then_some((x, v, c.text))
                })
                .collect();
            Series {
                name: (*k).to_string(),
                pts,
            }
        })
        .collect()
}

/// Every figure (SVG and the CSV of its data).
pub fn figure_files(made_by: &str) -> Result<Vec<OutFile>, String> {
    let mut out = Vec::new();
    out.extend(figure(
        "tags-sita-ratio-vs-p",
        "optimal TAGS / optimal SITA, BP(1, p, alpha), load 0.5",
        "log10 p",
        "E[W_TAGS] / E[W_SITA]",
        ratio_vs_p(),
        made_by,
    )?);
    out.extend(figure(
        "threshold-vs-alpha",
        "TAGS stability threshold rho*, BP(1, 1e10, alpha)",
        "alpha",
        "rho*",
        threshold_vs_alpha(),
        made_by,
    )?);
    out.extend(figure(
        "sita-load-split-vs-alpha",
        "optimal SITA, 2 hosts, load 0.5: short-job host's share of the load",
        "alpha",
        "rho_1 / rho",
        split_vs_alpha(),
        made_by,
    )?);
    out.extend(figure(
        "waiting-vs-load",
        "mean waiting, BP(1, 1e10, 1), 2 hosts (LWL: Lee-Longton approximation)",
        "total load rho",
        "log10 E[W]",
        waiting_vs_load(),
        made_by,
    )?);
    Ok(out)
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
    let mut diffs = Vec::new();
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
                if !files.iter().any(|f| f.path == n) {
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

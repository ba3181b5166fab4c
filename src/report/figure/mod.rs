//! Figures: every `data/figures/*.toml` ([`crate::claims::figure`]) computed through the
//! claims engine and drawn for print and screens — SVG (`svg`), PDF (`pdf`) and the
//! CSV of the data. Deterministic (fixed digits, no dates), so `tables --check` can
//! regenerate and compare byte for byte.

pub(crate) mod axes;
pub(crate) mod pdf;
pub(crate) mod sanitize;
pub(crate) mod svg;
pub(crate) mod text;

use super::files::{BinFile, OutFile};
use crate::claims::figure::{AxisScale, Figure, SeriesData, XTransform};
use crate::claims::run::ClaimResult;

/// What `tables` writes for the figures.
#[derive(Debug, Clone, Default)]
pub struct FigureFiles {
    /// SVG and CSV files.
    pub text: Vec<OutFile>,
    /// PDF files.
    pub pdf: Vec<BinFile>,
}

/// The scale of an axis as drawn.
fn scale(s: AxisScale) -> axes::Scale {
    match s {
        AxisScale::Linear => axes::Scale::Linear,
        AxisScale::Log => axes::Scale::Log,
    }
}

/// A limit the claims engine extrapolated, as marked on a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedLimit {
    /// Estimate, as the engine printed it.
    pub estimate: String,
    /// Its error estimate, as printed.
    pub error: String,
    /// The bound the claim compares it with (`<= 2.0000000e0` → 2), if any.
    pub bound: Option<f64>,
}

fn input(fig: &Figure, why: String) -> crate::Error {
    crate::Error::input(format!("{}: {why}", fig.path))
}

/// The limit of `series` in the claim's result: the one limit of check `check` whose
/// variables all take the series' values.
pub fn limit_of(
    fig: &Figure,
    claims: &[ClaimResult],
    check: &str,
    series: &SeriesData,
) -> Result<MarkedLimit, crate::Error> {
    let id = fig.claim.as_deref().unwrap_or_default();
    let r = claims.iter().find(|r| r.claim.id == id).ok_or_else(|| {
        input(
            fig,
            format!(
                "its [limit] is claim {id}'s, which was not run (run `tables` with that claim)"
            ),
        )
    })?;
    let c = r
        .checks
        .iter()
        .find(|c| c.name == check)
        .ok_or_else(|| input(fig, format!("claim {id} has no check '{check}'")))?;
    let var = &fig.x.0;
    let found: Vec<_> = c
        .limits
        .iter()
        .filter(|l| {
            l.towards.split(' ').next() == Some(var.as_str())
                && l.outer
                    .iter()
                    .all(|(k, v)| series.vars.get(k).is_some_and(|s| s.trim() == v.trim()))
        })
        .collect();
    let [l] = found.as_slice() else {
        return Err(input(
            fig,
            format!(
                "series '{}': {} limits of {id}/{check} as {var} -> inf match its variables (one is needed)",
                series.name,
                found.len()
            ),
        ));
    };
    let at = l.at_text();
    let judged = c.judged.iter().find(|j| {
        j.label.contains("(1/ln)")
            && if at.is_empty() {
                !j.label.contains(" at ")
            } else {
                j.label.ends_with(&format!(" at {at}"))
            }
    });
    let Some(j) = judged else {
        return Err(input(
            fig,
            format!("the limit of {id}/{check} at {at} is not extrapolated in 1/ln {var}"),
        ));
    };
    let bound = j
        .bound
        .split_whitespace()
        .nth(1)
        .and_then(|b| b.parse::<f64>().ok())
        .filter(|b| b.is_finite());
    Ok(MarkedLimit {
        estimate: l.estimate.clone(),
        error: l.error.clone(),
        bound,
    })
}

fn coord(s: AxisScale, v: f64) -> f64 {
    match s {
        AxisScale::Linear => v,
        AxisScale::Log => v.log10(),
    }
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Draws one computed figure: its SVG, PDF and CSV.
pub fn render(
    fig: &Figure,
    series: &[SeriesData],
    claims: &[ClaimResult],
    made_by: &str,
) -> Result<(Vec<OutFile>, BinFile), crate::Error> {
    let mut plotted = Vec::new();
    let mut hlines: Vec<svg::HLine> = Vec::new();
    let mut csv = format!(
        "# made by: {made_by}\n# {}\nseries,{},value\n",
        text::plain(&fig.title),
        fig.x.0
    );
    let paper = fig
        .claim
        .as_deref()
        .and_then(|id| claims.iter().find(|r| r.claim.id == id))
        .map(|r| {
            r.claim.source.as_ref().map_or_else(
                || crate::claims::compile::UNPUBLISHED.to_string(),
                |s| s.paper.clone(),
            )
        })
        .unwrap_or_default();
    for s in series {
        if s.points.is_empty() {
            return Err(crate::Error::internal(format!(
                "{}: series '{}' has no points",
                fig.path, s.name
            )));
        }
        let plain_name = text::plain(&s.name);
        for p in &s.points {
            csv.push_str(&format!(
                "{},{},{}\n",
                csv_cell(&plain_name),
                csv_cell(&p.x_text),
                csv_cell(&p.text)
            ));
        }
        let limit = match &fig.limit_check {
            None => None,
            Some(check) => {
                let m = limit_of(fig, claims, check, s)?;
                let (est, err) = match (m.estimate.parse::<f64>(), m.error.parse::<f64>()) {
                    (Ok(a), Ok(b)) if a.is_finite() && b.is_finite() => (a, b),
                    _ => {
                        return Err(crate::Error::numerical(format!(
                            "{}: series '{}': the limit {} ± {} cannot be drawn",
                            fig.path, s.name, m.estimate, m.error
                        )))
                    }
                };
                csv.push_str(&format!(
                    "{},inf,{} ± {}\n",
                    csv_cell(&format!("{plain_name} (extrapolated limit)")),
                    m.estimate,
                    m.error
                ));
                if let Some(b) = m.bound {
                    if !hlines.iter().any(|h| h.y == coord(fig.y_scale, b)) {
                        hlines.push(svg::HLine {
                            y: coord(fig.y_scale, b),
                            label: format!("bound of {paper}: {}", axes_number(b)),
                        });
                    }
                }
                let lo = coord(fig.y_scale, est - err);
                Some(svg::Pt {
                    x: 0.0,
                    y: coord(fig.y_scale, est),
                    bar: Some((
                        if lo.is_finite() {
                            lo
                        } else {
                            coord(fig.y_scale, est)
                        },
                        coord(fig.y_scale, est + err),
                    )),
                })
            }
        };
        plotted.push(svg::PlotSeries {
            name: s.name.clone(),
            pts: s
                .points
                .iter()
                .map(|p| svg::Pt {
                    x: p.x,
                    y: p.y,
                    bar: p.bar,
                })
                .collect(),
            limit,
        });
    }
    let limit_label = fig
        .limit_check
        .as_ref()
        .map(|_| format!("limit as ${} → ∞$ (± error)", fig.x.0));
    let plot = svg::Plot {
        id: fig.name.clone(),
        title: fig.title.clone(),
        x_label: fig.x_label.clone(),
        y_label: fig.y_label.clone(),
        x_scale: match fig.x_transform {
            XTransform::InvLn => axes::Scale::Linear,
            XTransform::None => scale(fig.x_scale),
        },
        y_scale: scale(fig.y_scale),
        series: plotted,
        hlines,
        limit_label,
        made_by: made_by.to_string(),
    };
    let svg_text = svg::draw(&plot);
    let pdf = pdf::to_pdf(&svg_text)
        .map_err(|e| crate::Error::internal(format!("{}: PDF: {e}", fig.path)))?;
    Ok((
        vec![
            OutFile {
                path: format!("figures/{}.svg", fig.name),
                text: svg_text,
            },
            OutFile {
                path: format!("figures/{}.csv", fig.name),
                text: csv,
            },
        ],
        BinFile {
            path: format!("figures/{}.pdf", fig.name),
            bytes: pdf,
        },
    ))
}

/// A bound as shown in a legend: up to 6 significant digits, no trailing zeros.
fn axes_number(b: f64) -> String {
    let s = format!("{b:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The files of every figure with its series as computed by the claims engine
/// ([`crate::claims::figure::compute`]; limits from `claims`, the results of the run):
/// SVG, PDF and CSV, and the definition itself (`figures/<its file name>`, byte for byte),
/// so that the output's `figures/` folder is what `check --format html --figures` reads:
/// each definition beside its drawing.
pub fn figure_files(
    figures: &[(Figure, Vec<SeriesData>)],
    claims: &[ClaimResult],
    made_by: &str,
) -> Result<FigureFiles, crate::Error> {
    let mut out = FigureFiles::default();
    for (f, series) in figures {
        let (files, pdf) = render(f, series, claims, made_by)?;
        let def = std::fs::read_to_string(&f.path)
            .map_err(|e| crate::Error::input(format!("{}: {e}", f.path)))?;
        // under its own file name: written over itself when the definitions' folder is the
        // output's figures/
        let file = std::path::Path::new(&f.path).file_name().map_or_else(
            || format!("{}.toml", f.name),
            |n| n.to_string_lossy().into(),
        );
        out.text.push(OutFile {
            path: format!("figures/{file}"),
            text: def,
        });
        out.text.extend(files);
        out.pdf.push(pdf);
    }
    Ok(out)
}

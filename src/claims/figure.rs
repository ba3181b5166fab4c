//! Figures as data: a figure file (`data/figures/*.toml`) declares its series as
//! expressions of the quantity language over a system, like a claim, and is computed
//! through the same engine (the registry, the two precisions, the cache). A point that
//! cannot be computed is an error naming the figure, the series and the point — never a
//! silently missing point. Drawing is the report layer's ([`crate::report::tables`]).
//!
//! ```toml
//! name = "tags-sita-ratio-vs-p"        # the output files' stem
//! claim = "tags-sita-factor-two"       # the claim it illustrates (the HTML report shows it there)
//! title = "optimal TAGS / optimal SITA, BP(1, p, α), load 0.8"   # <title>, HTML caption
//! x_label = "$1/ln p$"                 # markup: $…$ is math (report::figure::text)
//! y_label = "$E[W_{TAGS}]/E[W_{SITA}]$"
//! x_scale = "linear"                   # or "log": a log axis with 10^k ticks
//! y_scale = "linear"                   # or "log"
//! x_transform = "inv_ln"               # optional: x is plotted as 1/ln x (limits x → ∞)
//!
//! [limit]                              # optional (needs x_transform = "inv_ln"): the
//! check = "limit"                      # claim's extrapolated limit, marked at 0 with its
//!                                      # error bar, and its bound as a dashed line
//!
//! [setup]                              # as in a claim file (model, digits, …)
//! dist = "bp:k=1,p={p},alpha={alpha}"
//! hosts = "h"
//! load = "load"
//! digits = 8
//!
//! [x]                                  # the x axis: a variable and its values
//! var = "p"
//! values = ["1e2", "1e10", "1e100"]
//!
//! [grid]                               # optional: one series per point, per [[series]]
//! h = [2, 3]
//! alpha = ["0.5", "1", "1.5"]
//! load = ["0.8"]
//!
//! [[series]]
//! name = "$α$ = {alpha}, $h$ = {h}"    # a template over the grid variables
//! y = "opt(tags).value / opt(sita).value"
//! ```

use super::cache::Cache;
use super::compile::compile_figure_parts;
use super::expr::Expr;
use super::grid::points;
use super::registry;
use super::schema::{raw_table, FileCtx};
use super::scope::SystemSpec;
use super::scope::{substitute, Scope};
use super::ClaimError;
use crate::error::Classify;
use crate::num::certify::certify_pair;
use rayon::prelude::*;
use rug::Float;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

/// How an axis shows its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisScale {
    /// The value itself.
    Linear,
    /// A log axis: points are placed at log10 of the value (computed in MPFR, so 1e5000
    /// is placed too), ticks labelled 10^k.
    Log,
}

/// How the x values are transformed before they are plotted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XTransform {
    /// As they are.
    None,
    /// 1/ln x: the variable a limit x → ∞ is extrapolated in; the limit sits at 0.
    InvLn,
}

/// The `[limit]` table of a figure file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureLimitSpec {
    /// The check of the figure's claim whose extrapolated limits are marked.
    pub check: Spanned<String>,
}

/// The x axis of a figure file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XSpec {
    /// The variable.
    pub var: Spanned<String>,
    /// Its values, in order.
    pub values: Spanned<Vec<Spanned<toml::Value>>>,
}

/// One `[[series]]` of a figure file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// The legend, a template over the grid variables.
    pub name: Spanned<String>,
    /// The plotted quantity, an expression.
    pub y: Spanned<String>,
}

/// A figure file, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureFile {
    /// The output files' stem.
    pub name: Spanned<String>,
    /// The title.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// The claim the figure illustrates (its id).
    #[serde(default)]
    pub claim: Option<Spanned<String>>,
    /// `linear` (default) or `log`.
    #[serde(default)]
    pub y_scale: Option<Spanned<String>>,
    /// `linear` (default) or `log`.
    #[serde(default)]
    pub x_scale: Option<Spanned<String>>,
    /// `none` (default) or `inv_ln`.
    #[serde(default)]
    pub x_transform: Option<Spanned<String>>,
    /// The claim's limit to mark.
    #[serde(default)]
    pub limit: Option<FigureLimitSpec>,
    /// The system, as in a claim file.
    #[expect(
        dead_code,
        reason = "a known key for serde; the model reads the raw [setup]"
    )]
    pub setup: toml::Table,
    /// The x axis.
    pub x: XSpec,
    /// Series axes.
    #[serde(default)]
    pub grid: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    /// The series.
    pub series: Vec<SeriesSpec>,
}

/// One declared series.
#[derive(Debug, Clone)]
pub struct SeriesDef {
    /// The legend template.
    pub name: String,
    /// The plotted quantity.
    pub y: Expr,
    /// As written.
    pub y_text: String,
}

/// A validated figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The file it came from.
    pub path: String,
    /// The output files' stem.
    pub name: String,
    /// Title.
    pub title: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// The claim it illustrates.
    pub claim: Option<String>,
    /// How y is plotted.
    pub y_scale: AxisScale,
    /// How x is plotted.
    pub x_scale: AxisScale,
    /// How x is transformed.
    pub x_transform: XTransform,
    /// The check of `claim` whose limits are marked.
    pub limit_check: Option<String>,
    /// The x variable and its values.
    pub x: (String, Vec<String>),
    /// Series axes, in file order.
    pub grid: Vec<(String, Vec<String>)>,
    /// The series.
    pub series: Vec<SeriesDef>,
    /// The system.
    pub system: Arc<dyn SystemSpec>,
    /// Certified digits of the values.
    pub digits: u32,
}

/// One computed point: the plotted coordinates, the certified value as text, and a
/// simulated value's 95 % interval.
#[derive(Debug, Clone, PartialEq)]
pub struct FigurePoint {
    /// The x value as written.
    pub x_text: String,
    /// The x coordinate: the value, 1/ln of it, or log10 of it on a log axis.
    pub x: f64,
    /// The y coordinate (the value, or log10 of it on a log axis).
    pub y: f64,
    /// The value's certified digits (a simulated value: its mean, ± half-width).
    pub text: String,
    /// A simulated value's 95 % interval, in y coordinates.
    pub bar: Option<(f64, f64)>,
}

/// One computed series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesData {
    /// The legend.
    pub name: String,
    /// The grid point it was computed at.
    pub vars: BTreeMap<String, String>,
    /// The points, in x order.
    pub points: Vec<FigurePoint>,
}

/// Reads and validates a figure file.
pub fn compile(path: &str, text: &str) -> Result<Figure, ClaimError> {
    let c = FileCtx::new(path, text, registry().words());
    let f: FigureFile = c.parse()?;
    let scale =
        |v: &Option<Spanned<String>>, key: &str| match v.as_ref().map(|s| s.get_ref().trim()) {
            None | Some("linear") => Ok(AxisScale::Linear),
            Some("log") => Ok(AxisScale::Log),
            Some(other) => {
                let sp = v.as_ref().map(|s| s.span()).unwrap_or(0..0);
                c.err(sp, key, format!("'{other}' is not linear or log"))
            }
        };
    let y_scale = scale(&f.y_scale, "y_scale")?;
    let x_scale = scale(&f.x_scale, "x_scale")?;
    let x_transform = match f.x_transform.as_ref().map(|s| s.get_ref().trim()) {
        None | Some("none") => XTransform::None,
        Some("inv_ln") => XTransform::InvLn,
        Some(other) => {
            let sp = f.x_transform.as_ref().map(|s| s.span()).unwrap_or(0..0);
            return c.err(
                sp,
                "x_transform",
                format!("'{other}' is not none or inv_ln"),
            );
        }
    };
    if x_transform == XTransform::InvLn && x_scale == AxisScale::Log {
        return c.err(
            f.name.span(),
            "x_scale",
            "x_transform = \"inv_ln\" plots 1/ln x on a linear axis; x_scale must be linear",
        );
    }
    let claim = f.claim.as_ref().map(|s| s.get_ref().trim().to_string());
    let limit_check = match &f.limit {
        None => None,
        Some(l) => {
            if x_transform != XTransform::InvLn {
                return c.err(
                    l.check.span(),
                    "limit",
                    "a [limit] is marked at 1/ln x = 0: it needs x_transform = \"inv_ln\"",
                );
            }
            if claim.is_none() {
                return c.err(
                    l.check.span(),
                    "limit",
                    "a [limit] is the claim's: the figure needs claim = \"id\"",
                );
            }
            Some(l.check.get_ref().trim().to_string())
        }
    };
    let raw = raw_table(path, text)?;
    let series_y: Vec<&Spanned<String>> = f.series.iter().map(|s| &s.y).collect();
    if series_y.is_empty() {
        return c.err(
            f.name.span(),
            "series",
            "a figure needs at least one [[series]]",
        );
    }
    let parts = compile_figure_parts(&c, &raw, &f.grid, &f.x.var, &f.x.values, &series_y)?;
    let series = f
        .series
        .iter()
        .zip(parts.ys)
        .map(|(s, y)| SeriesDef {
            name: s.name.get_ref().clone(),
            y,
            y_text: s.y.get_ref().clone(),
        })
        .collect();
    Ok(Figure {
        path: path.to_string(),
        name: f.name.get_ref().trim().to_string(),
        title: f.title,
        x_label: f.x_label,
        y_label: f.y_label,
        claim,
        y_scale,
        x_scale,
        x_transform,
        limit_check,
        x: parts.x,
        grid: parts.grid,
        series,
        system: parts.system,
        digits: parts.digits,
    })
}

/// Reads every `*.toml` in `dir` (sorted) as a figure.
pub fn load_dir(dir: &Path) -> Result<Vec<Figure>, ClaimError> {
    let io = |e: std::io::Error| ClaimError::Io {
        path: dir.display().to_string(),
        why: e.to_string(),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let path = p.display().to_string();
            let text = std::fs::read_to_string(p).map_err(|e| ClaimError::Io {
                path: path.clone(),
                why: e.to_string(),
            })?;
            compile(&path, &text)
        })
        .collect()
}

/// Computes every series of `fig` (points in parallel, one cache for the figure). The
/// first point that cannot be computed, or whose value cannot be plotted, is the error.
pub fn compute(fig: &Figure) -> Result<Vec<SeriesData>, crate::Error> {
    let cache = Cache::default();
    let grid: Vec<BTreeMap<String, String>> = points(&fig.grid)
        .into_iter()
        .map(|p| p.into_iter().collect())
        .collect();
    let mut jobs: Vec<(usize, BTreeMap<String, String>)> = Vec::new();
    // A series whose legend does not use a grid variable is one series, not one per
    // grid point (a reference curve beside a grid of series): the first point's is kept.
    let mut names: Vec<(usize, String)> = Vec::new();
    for (si, s) in fig.series.iter().enumerate() {
        for g in &grid {
            if let Ok(name) = substitute(&s.name, g) {
                if names.iter().any(|(i, n)| *i == si && *n == name) {
                    continue;
                }
                names.push((si, name));
            }
            jobs.push((si, g.clone()));
        }
    }
    let (xvar, xs) = &fig.x;
    let results: Vec<Result<SeriesData, crate::Error>> = jobs
        .par_iter()
        .map(|(si, g)| {
            let s = &fig.series[*si];
            let name = substitute(&s.name, g).map_err(|e| point_error(fig, &s.name, "", &e))?;
            let pts: Vec<Result<FigurePoint, crate::Error>> = xs
                .par_iter()
                .map(|xv| {
                    let mut vars = g.clone();
                    vars.insert(xvar.clone(), xv.clone());
                    let at = format!("{xvar}={xv}");
                    let scope =
                        Scope::new(vars, fig.system.as_ref(), registry(), &cache, fig.digits);
                    let v = scope
                        .eval(&s.y)
                        .map_err(|e| point_error(fig, &name, &at, &e))?;
                    let x = x_coordinate(fig, xv)?;
                    let bits = v.hi.prec();
                    let y = match fig.y_scale {
                        AxisScale::Linear => v.hi.to_f64(),
                        AxisScale::Log if v.hi > 0 => {
                            Float::with_val(bits, v.hi.log10_ref()).to_f64()
                        }
                        AxisScale::Log => {
                            return Err(crate::Error::input(format!(
                            "{}: series '{name}' at {at}: {} = {} cannot be drawn on a log axis",
                            fig.path,
                            s.y_text,
                            crate::num::message_number(&v.hi)
                        )))
                        }
                    };
                    if !y.is_finite() || v.lo.is_nan() {
                        return Err(crate::Error::numerical(format!(
                            "{}: series '{name}' at {at}: {} = {} is not a finite number",
                            fig.path,
                            s.y_text,
                            crate::num::message_number(&v.hi)
                        )));
                    }
                    let bar = v.sim.as_ref().and_then(|sim| {
                        let hw = &sim.half_width;
                        let lo = Float::with_val(bits, &v.hi - hw);
                        let hi = Float::with_val(bits, &v.hi + hw);
                        match fig.y_scale {
                            AxisScale::Linear => Some((lo.to_f64(), hi.to_f64())),
                            // a lower end at or below 0 has no place on a log axis: the
                            // bar then starts at the point
                            AxisScale::Log if hi > 0 => Some((
                                if lo > 0 { lo.log10().to_f64() } else { y },
                                hi.log10().to_f64(),
                            )),
                            AxisScale::Log => None,
                        }
                    });
                    let text = match &v.sim {
                        Some(sim) => format!(
                            "{} ± {}",
                            crate::num::certify::to_sci(&v.hi, fig.digits),
                            crate::num::certify::to_sci(&sim.half_width, 2)
                        ),
                        None => certify_pair(&v.lo, &v.hi, fig.digits).text,
                    };
                    Ok(FigurePoint {
                        x_text: xv.clone(),
                        x,
                        y,
                        text,
                        bar,
                    })
                })
                .collect();
            Ok(SeriesData {
                name,
                vars: g.clone(),
                points: pts.into_iter().collect::<Result<_, _>>()?,
            })
        })
        .collect();
    results.into_iter().collect()
}

/// Bits for placing an x value on its axis (f64's range is the output's).
const X_BITS: u32 = 64;

/// The plotted x coordinate of the value `xv`, in MPFR (1e5000 has a place on a 1/ln or
/// log axis though not in f64).
fn x_coordinate(fig: &Figure, xv: &str) -> Result<f64, crate::Error> {
    let bad = |why: &str| crate::Error::input(format!("{}: x value {xv} {why}", fig.path));
    let x = crate::num::parse_decimal(xv.trim(), X_BITS).map_err(|_| bad("is not a number"))?;
    let x = match fig.x_transform {
        XTransform::None => x,
        XTransform::InvLn if x > 1 => Float::with_val(X_BITS, x.ln_ref()).recip(),
        XTransform::InvLn => return Err(bad("is not above 1 (x_transform = \"inv_ln\")")),
    };
    let c = match fig.x_scale {
        AxisScale::Linear => x.to_f64(),
        AxisScale::Log if x > 0 => x.log10().to_f64(),
        AxisScale::Log => return Err(bad("cannot be placed on a log axis")),
    };
    if c.is_finite() {
        Ok(c)
    } else {
        Err(bad("is beyond the range of a plot coordinate"))
    }
}

fn point_error(
    fig: &Figure,
    series: &str,
    at: &str,
    e: &super::error::QuantityError,
) -> crate::Error {
    let message = format!("{}: series '{series}' at {at}: {e}", fig.path);
    match e.kind() {
        crate::ErrorKind::Input => crate::Error::input(message),
        crate::ErrorKind::Numerical => crate::Error::numerical(message),
        crate::ErrorKind::Internal => crate::Error::internal(message),
    }
}

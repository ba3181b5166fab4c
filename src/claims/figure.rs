//! Figures as data: a figure file (`data/figures/*.toml`) declares its series as
//! expressions of the quantity language over a system, like a claim, and is computed
//! through the same engine (the registry, the two precisions, the cache). A point that
//! cannot be computed is an error naming the figure, the series and the point — never a
//! silently missing point. Drawing is the report layer's ([`crate::report::tables`]).
//!
//! ```toml
//! name = "tags-sita-ratio-vs-p"        # the output files' stem
//! title = "optimal TAGS / optimal SITA, BP(1, p, alpha), load 0.5"
//! x_label = "log10 p"
//! y_label = "E[W_TAGS] / E[W_SITA]"
//! y_scale = "linear"                   # or "log10": log10 of the value is plotted
//! x_scale = "linear"                   # or "log10": log10 of the x values is plotted
//!
//! [setup]                              # as in a claim file (model, digits, …)
//! dist = "bp:k=1,p=1e{e},alpha={alpha}"
//! hosts = "h"
//! load = "0.5"
//! digits = 8
//!
//! [x]                                  # the x axis: a variable and its values
//! var = "e"
//! values = [2, 4, 10]
//!
//! [grid]                               # optional: one series per point, per [[series]]
//! h = [2, 3]
//! alpha = ["0.5", "1", "1.5"]
//!
//! [[series]]
//! name = "alpha={alpha} h={h}"         # a template over the grid variables
//! y = "opt(tags).value / opt(sita).value"
//! ```

use super::compile::{compile_figure_parts, FileCtx};
use super::expr::Expr;
use super::registry::Cache;
use super::scope::{substitute, Scope};
use super::system::SystemSpec;
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

/// How the y values are plotted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YScale {
    /// The value itself.
    Linear,
    /// log10 of the value (the data file keeps the value).
    Log10,
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
    /// `linear` (default) or `log10`.
    #[serde(default)]
    pub y_scale: Option<Spanned<String>>,
    /// `linear` (default) or `log10` (log10 of the x values is plotted; the label should
    /// say so).
    #[serde(default)]
    pub x_scale: Option<Spanned<String>>,
    /// The system, as in a claim file.
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
    /// How y is plotted.
    pub y_scale: YScale,
    /// How x is plotted.
    pub x_scale: YScale,
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

/// One computed point: x, the plotted y, and the certified value as text.
#[derive(Debug, Clone, PartialEq)]
pub struct FigurePoint {
    /// x.
    pub x: f64,
    /// The plotted y (the value, or its log10).
    pub y: f64,
    /// The value's certified digits.
    pub text: String,
}

/// One computed series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesData {
    /// The legend.
    pub name: String,
    /// The points, in x order.
    pub points: Vec<FigurePoint>,
}

/// Reads and validates a figure file.
pub fn compile(path: &str, text: &str) -> Result<Figure, ClaimError> {
    let c = FileCtx::new(path, text);
    let f: FigureFile = c.parse()?;
    let scale =
        |v: &Option<Spanned<String>>, key: &str| match v.as_ref().map(|s| s.get_ref().trim()) {
            None | Some("linear") => Ok(YScale::Linear),
            Some("log10") => Ok(YScale::Log10),
            Some(other) => {
                let sp = v.as_ref().map(|s| s.span()).unwrap_or(0..0);
                c.err(sp, key, format!("'{other}' is not linear or log10"))
            }
        };
    let y_scale = scale(&f.y_scale, "y_scale")?;
    let x_scale = scale(&f.x_scale, "x_scale")?;
    let raw: toml::Table = toml::from_str(text).map_err(|e| ClaimError::Schema {
        path: path.into(),
        line: 1,
        key: "(document)".into(),
        why: e.message().to_string(),
    })?;
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
        y_scale,
        x_scale,
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

/// The Cartesian product of the grid, first variable outermost.
fn points(grid: &[(String, Vec<String>)]) -> Vec<BTreeMap<String, String>> {
    let mut out: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
    for (k, vals) in grid {
        let mut next = Vec::with_capacity(out.len() * vals.len());
        for p in &out {
            for v in vals {
                let mut q = p.clone();
                q.insert(k.clone(), v.clone());
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// Computes every series of `fig` (points in parallel, one cache for the figure). The
/// first point that cannot be computed, or whose value cannot be plotted, is the error.
pub fn compute(fig: &Figure) -> Result<Vec<SeriesData>, crate::Error> {
    let cache = Cache::default();
    let grid = points(&fig.grid);
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
                    let scope = Scope::new(vars, fig.system.as_ref(), &cache, fig.digits);
                    let v = scope
                        .eval(&s.y)
                        .map_err(|e| point_error(fig, &name, &at, &e))?;
                    let x: f64 = xv.trim().parse().map_err(|_| {
                        crate::Error::input(format!("{}: x value {xv} is not a number", fig.path))
                    })?;
                    let x = match fig.x_scale {
                        YScale::Linear => x,
                        YScale::Log10 if x > 0.0 => x.log10(),
                        YScale::Log10 => {
                            return Err(crate::Error::input(format!(
                                "{}: x value {xv} cannot be plotted on a log10 axis",
                                fig.path
                            )))
                        }
                    };
                    let y = match fig.y_scale {
                        YScale::Linear => v.hi.to_f64(),
                        YScale::Log10 => Float::with_val(v.hi.prec(), v.hi.log10_ref()).to_f64(),
                    };
                    if !y.is_finite() {
                        return Err(crate::Error::input(format!(
                            "{}: series '{name}' at {at}: {} = {} cannot be plotted",
                            fig.path,
                            s.y_text,
                            crate::num::show(&v.hi)
                        )));
                    }
                    Ok(FigurePoint {
                        x,
                        y,
                        text: certify_pair(&v.lo, &v.hi, fig.digits).text,
                    })
                })
                .collect();
            Ok(SeriesData {
                name,
                points: pts.into_iter().collect::<Result<_, _>>()?,
            })
        })
        .collect();
    results.into_iter().collect()
}

fn point_error(
    fig: &Figure,
    series: &str,
    at: &str,
    e: &super::registry::QuantityError,
) -> crate::Error {
    let message = format!("{}: series '{series}' at {at}: {e}", fig.path);
    match e.kind() {
        crate::ErrorKind::Input => crate::Error::input(message),
        crate::ErrorKind::Numerical => crate::Error::numerical(message),
        crate::ErrorKind::Internal => crate::Error::internal(message),
    }
}

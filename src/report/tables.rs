//! `tables`: every claim's tables (CSV, Markdown, LaTeX: [`super::table`]) and the figures
//! people look at (SVG, drawn with plotters' SVG backend and its built-in font metrics, so
//! no system font is needed). Every file states the command that made it; the output is
//! deterministic (fixed digits, no timestamps), so `tables --check` can regenerate and
//! compare byte for byte.

use crate::num::certify::to_sci;
use plotters::prelude::*;
use rug::Float;
use std::path::Path;

/// Significant digits of the figures' data.
pub const FIGURE_DIGITS: u32 = 8;
/// Figure size in pixels.
pub const FIGURE_SIZE: (u32, u32) = (720, 480);

pub use super::table::claim_files;

/// A generated file: a path relative to the output folder, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    /// Relative path.
    pub path: String,
    /// Content.
    pub text: String,
}

/// One plotted series: a name and (x, y, certified y) points.
struct Series {
    name: String,
    pts: Vec<(f64, f64, String)>,
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

/// Every figure declared in `dir` (`*.toml`, see [`crate::claims::figure`]), computed
/// through the claims engine: its SVG and the CSV of its data. A point that cannot be
/// computed is an error naming the figure, the series and the point.
pub fn figure_files(dir: &Path, made_by: &str) -> Result<Vec<OutFile>, crate::Error> {
    let figs = crate::claims::figure::load_dir(dir)?;
    let mut out = Vec::new();
    for f in &figs {
        let ss: Vec<Series> = crate::claims::figure::compute(f)?
            .into_iter()
            .map(|s| Series {
                name: s.name,
                pts: s.points.into_iter().map(|p| (p.x, p.y, p.text)).collect(),
            })
            .collect();
        out.extend(
            figure(&f.name, &f.title, &f.x_label, &f.y_label, ss, made_by)
                .map_err(|e| crate::Error::internal(format!("drawing {}: {e}", f.path)))?,
        );
    }
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
                // figure definitions (*.toml) are inputs, not generated files
                if n.ends_with(".toml") {
                    continue;
                }
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

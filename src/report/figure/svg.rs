//! Drawing a figure as SVG, sized for one column of a two-column paper: 3.5 in wide, 2.6 in
//! high (more when the legend must go below the plot), lengths in points (the viewBox is
//! in pt, so font sizes are in pt at print size). Okabe–Ito colours with a distinct marker
//! per series (readable in greyscale), and a legend placed in a corner of the plot that no
//! data crosses, or below the plot when no corner is free.

use super::axes::{self, Axis, Scale};
use super::text::{self, num, svg_text, xml_escape, FONT_FAMILY};

/// Width in points (3.5 in).
pub const WIDTH_PT: f64 = 252.0;
/// Height in points with the legend inside the plot (2.6 in).
pub const HEIGHT_PT: f64 = 187.2;
/// Tick labels and legend text, in pt.
pub const SMALL_PT: f64 = 7.0;
/// Axis labels, in pt.
pub const LABEL_PT: f64 = 8.0;
/// Major tick length, pt.
const TICK_PT: f64 = 3.0;
/// Minor tick length, pt.
const MINOR_TICK_PT: f64 = 1.8;
/// Outer margin, pt.
const EDGE_PT: f64 = 3.0;
/// Gap between a tick label and its tick, pt.
const GAP_PT: f64 = 2.0;
/// Marker radius, pt.
const MARKER_PT: f64 = 2.0;
/// Radius of the limit glyph (an open star, which no series uses), pt.
const LIMIT_PT: f64 = MARKER_PT * 1.6;
/// Space between two limit glyphs set side by side, pt.
const LIMIT_GAP_PT: f64 = 0.6;
/// Room left of the leftmost limit glyph inside the frame, pt.
const LIMIT_ROOM_PT: f64 = 1.5;
/// Series line width, pt.
const LINE_PT: f64 = 0.9;
/// Legend: sample line length, padding and line height, pt.
const LEGEND_SAMPLE_PT: f64 = 12.0;
const LEGEND_PAD_PT: f64 = 2.5;
const LEGEND_LINE_PT: f64 = 8.6;
const LEGEND_COL_GAP_PT: f64 = 6.0;
/// Cap half-width of an error bar, pt.
const CAP_PT: f64 = 1.5;
/// Inches per point.
const PT_PER_IN: f64 = 72.0;

/// The Okabe–Ito palette (Okabe & Ito 2008, "Color universal design"), yellow last (it is
/// faint on white).
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

/// Marker shapes: one per series in order (cycled with the palette), and the star that
/// marks extrapolated limits only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// Filled circle.
    Circle,
    /// Filled square.
    Square,
    /// Filled triangle, apex up.
    TriangleUp,
    /// Filled diamond.
    Diamond,
    /// Filled triangle, apex down.
    TriangleDown,
    /// Filled triangle, apex right.
    TriangleRight,
    /// Plus.
    Plus,
    /// Cross.
    Cross,
    /// Five-pointed star, drawn open: an extrapolated limit (never a series' marker).
    Star,
}

/// The markers in series order: all filled or stroked shapes, none open, so that the open
/// star of a limit ([`Marker::Star`]) is like none of them.
pub const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::TriangleRight,
    Marker::Plus,
    Marker::Cross,
];

/// One point in axis coordinates (log10 of the value on a log axis), with an optional
/// vertical interval (a simulation's 95 % half-width, or a limit's error bar).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pt {
    /// x coordinate.
    pub x: f64,
    /// y coordinate.
    pub y: f64,
    /// (low, high) y coordinates of the interval.
    pub bar: Option<(f64, f64)>,
}

/// One series as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotSeries {
    /// Legend (markup).
    pub name: String,
    /// Points.
    pub pts: Vec<Pt>,
    /// The extrapolated limit, drawn as an open star in the series' colour at its x (set
    /// side by side, leftwards, with limits it would overlap).
    pub limit: Option<Pt>,
}

/// A horizontal reference line (dashed), e.g. a paper's bound.
#[derive(Debug, Clone, PartialEq)]
pub struct HLine {
    /// y coordinate.
    pub y: f64,
    /// Legend (markup).
    pub label: String,
}

/// Everything a figure draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// Prefix of the SVG's ids (unique in a page that inlines several figures).
    pub id: String,
    /// Title (in `<title>`; a paper's caption says it, so it is not drawn).
    pub title: String,
    /// x label (markup).
    pub x_label: String,
    /// y label (markup).
    pub y_label: String,
    /// x scale.
    pub x_scale: Scale,
    /// y scale.
    pub y_scale: Scale,
    /// Series.
    pub series: Vec<PlotSeries>,
    /// Reference lines.
    pub hlines: Vec<HLine>,
    /// Legend entry explaining the limit stars, when there are any.
    pub limit_label: Option<String>,
    /// Provenance (`<desc>`).
    pub made_by: String,
}

/// A drawn segment in page coordinates: (x0, y0, x1, y1).
type Segment = (f64, f64, f64, f64);

#[derive(Clone, Copy)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn contains(&self, x: f64, y: f64, r: f64) -> bool {
        x + r >= self.x0 && x - r <= self.x1 && y + r >= self.y0 && y - r <= self.y1
    }
    /// Whether the segment (a, b) meets the rectangle (Liang–Barsky clipping).
    fn meets(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let mut t0: f64 = 0.0;
        let mut t1: f64 = 1.0;
        for (p, q) in [
            (-dx, a.0 - self.x0),
            (dx, self.x1 - a.0),
            (-dy, a.1 - self.y0),
            (dy, self.y1 - a.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// The legend's entries: (sample kind, label).
enum Sample {
    Series(usize),
    Dashed,
    Limit,
}

fn marker_svg(m: Marker, x: f64, y: f64, r: f64, color: &str, open: bool) -> String {
    let fill = if open { "#ffffff" } else { color };
    let st = format!("fill=\"{fill}\" stroke=\"{color}\" stroke-width=\"0.7\"");
    let p = |pts: &[(f64, f64)]| {
        let d: Vec<String> = pts
            .iter()
            .map(|(a, b)| format!("{},{}", num(x + a), num(y + b)))
            .collect();
        format!("<polygon points=\"{}\" {st}/>", d.join(" "))
    };
    match m {
        Marker::Circle => format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {st}/>",
            num(x),
            num(y),
            num(r)
        ),
        Marker::Square => {
            let s = r * 0.9;
            p(&[(-s, -s), (s, -s), (s, s), (-s, s)])
        }
        Marker::TriangleUp => p(&[(0.0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)]),
        Marker::TriangleDown => p(&[(0.0, r * 1.2), (r * 1.1, -r * 0.8), (-r * 1.1, -r * 0.8)]),
        Marker::Diamond => p(&[(0.0, -r * 1.3), (r, 0.0), (0.0, r * 1.3), (-r, 0.0)]),
        Marker::TriangleRight => p(&[(r * 1.2, 0.0), (-r * 0.8, r * 1.1), (-r * 0.8, -r * 1.1)]),
        Marker::Star => {
            // ten vertices, outer radius r and inner 0.45 r, the first one up
            let pts: Vec<(f64, f64)> = (0..10)
                .map(|k| {
                    let a = std::f64::consts::PI * (k as f64) / 5.0;
                    let rr = if k % 2 == 0 { r } else { r * 0.45 };
                    (rr * a.sin(), -rr * a.cos())
                })
                .collect();
            p(&pts)
        }
        Marker::Plus | Marker::Cross => {
            let s = r * 1.2;
            let (a, b) = if m == Marker::Plus {
                ((s, 0.0), (0.0, s))
            } else {
                ((s * 0.8, s * 0.8), (s * 0.8, -s * 0.8))
            };
            format!(
                "<path d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"{color}\" stroke-width=\"0.9\" fill=\"none\"/>",
                num(x - a.0), num(y - a.1), num(x + a.0), num(y + a.1),
                num(x - b.0), num(y - b.1), num(x + b.0), num(y + b.1)
            )
        }
    }
}

fn text_at(x: f64, y: f64, size: f64, anchor: &str, s: &str) -> String {
    svg_text(x, y, size, anchor, s)
}

/// The column of each series' limit glyph (`None` without a limit): taken in order of
/// their page y, each goes to the first column where it overlaps no glyph already there.
/// Columns are drawn leftwards, a glyph width apart, so that limits with (nearly) the same
/// value stand side by side instead of on top of each other.
fn limit_columns(ys: &[Option<f64>]) -> Vec<Option<usize>> {
    let apart = 2.0 * LIMIT_PT + LIMIT_GAP_PT;
    let mut order: Vec<(usize, f64)> = ys
        .iter()
        .enumerate()
        .filter_map(|(i, y)| y.map(|y| (i, y)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut columns: Vec<Vec<f64>> = Vec::new();
    let mut out = vec![None; ys.len()];
    for (i, y) in order {
        let c = columns
            .iter()
            .position(|col| col.iter().all(|&z| (y - z).abs() >= apart))
            .unwrap_or(columns.len());
        if c == columns.len() {
            columns.push(Vec::new());
        }
        columns[c].push(y);
        out[i] = Some(c);
    }
    out
}

/// Draws the plot; returns the SVG document.
pub fn draw(p: &Plot) -> String {
    // Axes over every drawn coordinate (points, their bars, limits, reference lines).
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for s in &p.series {
        for q in s.pts.iter().chain(s.limit.iter()) {
            xs.push(q.x);
            ys.push(q.y);
            if let Some((a, b)) = q.bar {
                ys.push(a);
                ys.push(b);
            }
        }
    }
    ys.extend(p.hlines.iter().map(|h| h.y));
    let ay: Axis = axes::axis(&ys, p.y_scale);

    // Margins from the text they hold.
    let ytick_w = ay
        .ticks
        .iter()
        .map(|t| text::width(&t.label, SMALL_PT))
        .fold(0.0, f64::max);
    let left = EDGE_PT + LABEL_PT * 1.1 + GAP_PT + ytick_w + GAP_PT + TICK_PT;
    let right = WIDTH_PT - EDGE_PT - 4.0;
    let bottom_text = TICK_PT + GAP_PT + SMALL_PT * 1.3 + GAP_PT + LABEL_PT * 1.2 + EDGE_PT;
    let top = EDGE_PT + 4.0;
    let plot_bottom_inside = HEIGHT_PT - bottom_text;

    // Limits that would overlap stand side by side, leftwards: the x axis is widened on the
    // left until the leftmost glyph fits inside the frame.
    let limit_ys: Vec<Option<f64>> = p
        .series
        .iter()
        .map(|s| s.limit.map(|q| ay.map(q.y, plot_bottom_inside, top)))
        .collect();
    let columns = limit_columns(&limit_ys);
    let step = 2.0 * LIMIT_PT + LIMIT_GAP_PT;
    // Set side by side, every limit stands left of the sequences' last points (which crowd
    // at the limit's x), column c at c + 1 steps; alone, a limit stands at its x.
    let side_by_side = columns.iter().flatten().any(|&c| c > 0);
    let shift = |c: usize| {
        if side_by_side {
            (c + 1) as f64 * step
        } else {
            0.0
        }
    };
    let widest = columns
        .iter()
        .flatten()
        .map(|&c| shift(c))
        .fold(0.0, f64::max);
    let lowest_limit_x = p
        .series
        .iter()
        .filter_map(|s| s.limit.map(|q| q.x))
        .fold(f64::INFINITY, f64::min);
    let mut ax: Axis = axes::axis(&xs, p.x_scale);
    if lowest_limit_x.is_finite() {
        let need = widest + LIMIT_PT + LIMIT_ROOM_PT;
        // each pass widens the range, and with it the padding: a few passes suffice
        for _ in 0..4 {
            let pt_per_unit = (right - left) / (ax.hi - ax.lo);
            let room = (lowest_limit_x - ax.lo) * pt_per_unit;
            if room >= need {
                break;
            }
            xs.push(lowest_limit_x - need / pt_per_unit);
            ax = axes::axis(&xs, p.x_scale);
        }
    }
    // a limit's page x offset: its column's
    let limit_dx = |i: usize| -shift(columns[i].unwrap_or(0));

    // The legend's entries and size.
    let mut entries: Vec<(Sample, String)> = p
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (Sample::Series(i), s.name.clone()))
        .collect();
    if let Some(l) = &p.limit_label {
        // the stars stand left of the limit's x: the entry says so
        let l = if side_by_side {
            l.replace("limit as", "limits as")
                .replace(" (± error)", ", side by side")
        } else {
            l.clone()
        };
        entries.push((Sample::Limit, l));
    }
    for h in &p.hlines {
        entries.push((Sample::Dashed, h.label.clone()));
    }
    let entry_w = entries
        .iter()
        .map(|(_, s)| LEGEND_SAMPLE_PT + GAP_PT + text::width(s, SMALL_PT))
        .fold(0.0, f64::max);
    let box_w = entry_w + 2.0 * LEGEND_PAD_PT;
    let box_h = entries.len() as f64 * LEGEND_LINE_PT + 2.0 * LEGEND_PAD_PT;

    // First try: the legend inside, in a corner no data crosses.
    let place = |bottom: f64| -> (Vec<Segment>, Vec<(f64, f64)>) {
        // pixel geometry of the data: segments and points
        let (px0, px1, py0, py1) = (left, right, top, bottom);
        let fx = |v: f64| ax.map(v, px0, px1);
        let fy = |v: f64| ay.map(v, py1, py0);
        let mut segs = Vec::new();
        let mut pts = Vec::new();
        for (i, s) in p.series.iter().enumerate() {
            for w in s.pts.windows(2) {
                segs.push((fx(w[0].x), fy(w[0].y), fx(w[1].x), fy(w[1].y)));
            }
            let limit = s.limit.iter().map(|q| (q, limit_dx(i)));
            for (q, dx) in s.pts.iter().map(|q| (q, 0.0)).chain(limit) {
                pts.push((fx(q.x) + dx, fy(q.y)));
                if let Some((a, b)) = q.bar {
                    segs.push((fx(q.x) + dx, fy(a), fx(q.x) + dx, fy(b)));
                }
            }
        }
        for h in &p.hlines {
            segs.push((px0, fy(h.y), px1, fy(h.y)));
        }
        (segs, pts)
    };
    let (segs, pts) = place(plot_bottom_inside);
    let inset = 2.0;
    let corners = [
        (right - inset - box_w, top + inset),
        (left + inset, top + inset),
        (right - inset - box_w, plot_bottom_inside - inset - box_h),
        (left + inset, plot_bottom_inside - inset - box_h),
    ];
    let fits_inside = box_w < (right - left) * 0.6 && box_h < (plot_bottom_inside - top) * 0.7;
    let corner = corners.iter().copied().find(|&(x, y)| {
        let r = Rect {
            x0: x,
            y0: y,
            x1: x + box_w,
            y1: y + box_h,
        };
        fits_inside
            && !segs.iter().any(|s| r.meets((s.0, s.1), (s.2, s.3)))
            && !pts.iter().any(|q| r.contains(q.0, q.1, MARKER_PT * 1.3))
    });
    // Otherwise below the plot, in as many columns as fit.
    let (height, plot_bottom, legend_at, cols) = match corner {
        Some((x, y)) => (HEIGHT_PT, plot_bottom_inside, (x, y), 1),
        None => {
            let avail = WIDTH_PT - 2.0 * EDGE_PT;
            let cols = (((avail + LEGEND_COL_GAP_PT) / (entry_w + LEGEND_COL_GAP_PT)).floor()
                as usize)
                .clamp(1, entries.len().max(1));
            let rows = entries.len().div_ceil(cols);
            let legend_h = rows as f64 * LEGEND_LINE_PT + 2.0 * LEGEND_PAD_PT;
            let height = HEIGHT_PT + legend_h;
            let used = cols as f64 * entry_w + (cols - 1) as f64 * LEGEND_COL_GAP_PT;
            let x = ((WIDTH_PT - used) / 2.0).max(EDGE_PT) - LEGEND_PAD_PT;
            (
                height,
                plot_bottom_inside,
                (x, HEIGHT_PT - EDGE_PT + 1.0),
                cols,
            )
        }
    };
    let fx = |v: f64| ax.map(v, left, right);
    let fy = |v: f64| ay.map(v, plot_bottom, top);

    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}in\" height=\"{}in\" viewBox=\"0 0 {} {}\" font-family=\"{FONT_FAMILY}\">\n",
        num(WIDTH_PT / PT_PER_IN),
        num(height / PT_PER_IN),
        num(WIDTH_PT),
        num(height)
    );
    o.push_str(&format!(
        "<title>{}</title>\n<desc>made by: {}</desc>\n",
        xml_escape(&text::plain(&p.title)),
        xml_escape(&p.made_by)
    ));
    o.push_str(&format!(
        "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
        num(WIDTH_PT),
        num(height)
    ));
    // grid lines at the labelled ticks, then the frame
    let mut grid = String::new();
    for t in ax.ticks.iter().filter(|t| !t.label.is_empty()) {
        grid.push_str(&format!(
            "M{} {}V{}",
            num(fx(t.at)),
            num(top),
            num(plot_bottom)
        ));
    }
    for t in ay.ticks.iter().filter(|t| !t.label.is_empty()) {
        grid.push_str(&format!("M{} {}H{}", num(left), num(fy(t.at)), num(right)));
    }
    o.push_str(&format!(
        "<path d=\"{grid}\" stroke=\"#dddddd\" stroke-width=\"0.4\" fill=\"none\"/>\n"
    ));
    // ticks and their labels
    let mut tk = String::new();
    let mut labels = String::new();
    for t in &ax.ticks {
        let len = if t.label.is_empty() {
            MINOR_TICK_PT
        } else {
            TICK_PT
        };
        tk.push_str(&format!(
            "M{} {}v{}",
            num(fx(t.at)),
            num(plot_bottom),
            num(len)
        ));
        if !t.label.is_empty() {
            labels.push_str(&text_at(
                fx(t.at),
                plot_bottom + TICK_PT + GAP_PT + SMALL_PT,
                SMALL_PT,
                "middle",
                &t.label,
            ));
            labels.push('\n');
        }
    }
    for t in &ay.ticks {
        let len = if t.label.is_empty() {
            MINOR_TICK_PT
        } else {
            TICK_PT
        };
        tk.push_str(&format!("M{} {}h{}", num(left), num(fy(t.at)), num(-len)));
        if !t.label.is_empty() {
            labels.push_str(&text_at(
                left - TICK_PT - GAP_PT,
                fy(t.at) + SMALL_PT * 0.35,
                SMALL_PT,
                "end",
                &t.label,
            ));
            labels.push('\n');
        }
    }
    o.push_str(&format!(
        "<path d=\"{tk}\" stroke=\"#000000\" stroke-width=\"0.5\" fill=\"none\"/>\n{labels}"
    ));
    o.push_str(&format!(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" stroke-width=\"0.6\"/>\n",
        num(left),
        num(top),
        num(right - left),
        num(plot_bottom - top)
    ));
    // axis labels
    o.push_str(&text_at(
        (left + right) / 2.0,
        plot_bottom + TICK_PT + GAP_PT + SMALL_PT * 1.3 + GAP_PT + LABEL_PT,
        LABEL_PT,
        "middle",
        &p.x_label,
    ));
    o.push('\n');
    let (lx, ly) = (EDGE_PT + LABEL_PT * 0.85, (top + plot_bottom) / 2.0);
    o.push_str(&format!(
        "<g transform=\"rotate(-90 {} {})\">{}</g>\n",
        num(lx),
        num(ly),
        svg_text(lx, ly, LABEL_PT, "middle", &p.y_label)
    ));
    // reference lines
    for h in &p.hlines {
        o.push_str(&format!(
            "<path d=\"M{} {}H{}\" stroke=\"#000000\" stroke-width=\"0.8\" stroke-dasharray=\"3 2\" fill=\"none\"/>\n",
            num(left),
            num(fy(h.y)),
            num(right)
        ));
    }
    // series: line, bars, markers, limit
    for (i, s) in p.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let m = MARKERS[i % MARKERS.len()];
        let d: Vec<String> = s
            .pts
            .iter()
            .map(|q| format!("{},{}", num(fx(q.x)), num(fy(q.y))))
            .collect();
        o.push_str(&format!(
            "<g class=\"series\" id=\"{}-s{i}\">\n<polyline points=\"{}\" stroke=\"{color}\" stroke-width=\"{}\" fill=\"none\"/>\n",
            xml_escape(&p.id),
            d.join(" "),
            num(LINE_PT)
        ));
        let limit = s.limit.iter().map(|q| (q, limit_dx(i)));
        for (q, dx) in s.pts.iter().map(|q| (q, 0.0)).chain(limit) {
            if let Some((a, b)) = q.bar {
                let x = fx(q.x) + dx;
                o.push_str(&format!(
                    "<path d=\"M{x0} {ya}H{x1}M{x} {ya}V{yb}M{x0} {yb}H{x1}\" stroke=\"{color}\" stroke-width=\"0.6\" fill=\"none\"/>\n",
                    x0 = num(x - CAP_PT),
                    x1 = num(x + CAP_PT),
                    x = num(x),
                    ya = num(fy(a)),
                    yb = num(fy(b)),
                ));
            }
        }
        for q in &s.pts {
            o.push_str(&marker_svg(m, fx(q.x), fy(q.y), MARKER_PT, color, false));
            o.push('\n');
        }
        if let Some(q) = &s.limit {
            o.push_str(&marker_svg(
                Marker::Star,
                fx(q.x) + limit_dx(i),
                fy(q.y),
                LIMIT_PT,
                color,
                true,
            ));
            o.push('\n');
        }
        o.push_str("</g>\n");
    }
    // the legend
    let (bx, by) = legend_at;
    let rows = entries.len().div_ceil(cols);
    let (bw, bh) = if corner.is_some() {
        (box_w, box_h)
    } else {
        (
            cols as f64 * entry_w + (cols - 1) as f64 * LEGEND_COL_GAP_PT + 2.0 * LEGEND_PAD_PT,
            rows as f64 * LEGEND_LINE_PT + 2.0 * LEGEND_PAD_PT,
        )
    };
    o.push_str(&format!(
        "<g class=\"legend\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#999999\" stroke-width=\"0.4\"/>\n",
        num(bx),
        num(by),
        num(bw),
        num(bh)
    ));
    for (k, (sample, label)) in entries.iter().enumerate() {
        let (col, row) = (k / rows, k % rows);
        let x = bx + LEGEND_PAD_PT + col as f64 * (entry_w + LEGEND_COL_GAP_PT);
        let yc = by + LEGEND_PAD_PT + (row as f64 + 0.5) * LEGEND_LINE_PT;
        match sample {
            Sample::Series(i) => {
                let color = PALETTE[i % PALETTE.len()];
                o.push_str(&format!(
                    "<path d=\"M{} {}h{}\" stroke=\"{color}\" stroke-width=\"{}\"/>",
                    num(x),
                    num(yc),
                    num(LEGEND_SAMPLE_PT),
                    num(LINE_PT)
                ));
                o.push_str(&marker_svg(
                    MARKERS[i % MARKERS.len()],
                    x + LEGEND_SAMPLE_PT / 2.0,
                    yc,
                    MARKER_PT,
                    color,
                    false,
                ));
            }
            Sample::Dashed => o.push_str(&format!(
                "<path d=\"M{} {}h{}\" stroke=\"#000000\" stroke-width=\"0.8\" stroke-dasharray=\"3 2\"/>",
                num(x),
                num(yc),
                num(LEGEND_SAMPLE_PT)
            )),
            Sample::Limit => o.push_str(&marker_svg(
                Marker::Star,
                x + LEGEND_SAMPLE_PT / 2.0,
                yc,
                LIMIT_PT,
                "#000000",
                true,
            )),
        }
        o.push_str(&text_at(
            x + LEGEND_SAMPLE_PT + GAP_PT,
            yc + SMALL_PT * 0.35,
            SMALL_PT,
            "start",
            label,
        ));
        o.push('\n');
    }
    o.push_str("</g>\n</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coincident_limits_get_columns_of_their_own() {
        // page y of five limits (None: a series without one). Two glyphs overlap when their
        // centres are less than 2 LIMIT_PT + LIMIT_GAP_PT = 7 pt apart: 100 and 100 (the
        // same value), 104 (4 pt from both) take columns 0, 1, 2 in order of y then series;
        // 120 and 130 are clear of everything: column 0.
        let cols = limit_columns(&[
            Some(100.0),
            None,
            Some(100.0),
            Some(104.0),
            Some(120.0),
            Some(130.0),
        ]);
        assert_eq!(cols, [Some(0), None, Some(1), Some(2), Some(0), Some(0)]);
        // 7 pt apart exactly: no overlap, one column
        assert_eq!(limit_columns(&[Some(10.0), Some(17.0)]), [Some(0), Some(0)]);
    }
}

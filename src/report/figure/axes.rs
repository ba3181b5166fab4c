//! Axis ranges and ticks: linear axes on 1-2-5 steps, log axes (coordinates are log10 of
//! the values) labelled 10^k at the decades, or 1-2-5 numbers when the range spans less
//! than two decades.

/// The fraction of the data's range added on each side of an axis.
pub const PAD_FRACTION: f64 = 0.05;
/// Half-width of the band shown around a flat series (relative to its value, or absolute
/// at 0), so that a constant still gets an axis with ticks.
pub const FLAT_BAND: f64 = 0.05;
/// Aim for about this many labelled ticks on a linear axis.
const LINEAR_TICKS: f64 = 5.0;
/// Most labelled decades on a log axis before every second (third, …) one is labelled.
const MAX_DECADE_LABELS: usize = 7;
/// Below this many decades of range, a log axis is labelled 1, 2, 5 × 10^k as numbers.
const FEW_DECADES: f64 = 2.0;
/// Tick labels are plain decimals for magnitudes in [this, [`PLAIN_LABELS_BELOW`]), m×10^k
/// outside.
const PLAIN_LABELS_FROM: f64 = 0.001;
/// See [`PLAIN_LABELS_FROM`].
const PLAIN_LABELS_BELOW: f64 = 100_000.0;
/// Slack when deciding whether a tick lies inside the range (relative to the range).
const TICK_SLACK: f64 = 1e-9;

/// How an axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Coordinates are the values.
    Linear,
    /// Coordinates are log10 of the values.
    Log,
}

/// One tick: its coordinate and its label (markup; empty for a minor tick).
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// Coordinate (log10 of the value on a log axis).
    pub at: f64,
    /// Label in the markup of [`super::text`], empty for an unlabelled minor tick.
    pub label: String,
}

/// An axis: its coordinate range and its ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Lowest coordinate shown.
    pub lo: f64,
    /// Highest coordinate shown.
    pub hi: f64,
    /// Ticks in increasing order.
    pub ticks: Vec<Tick>,
}

impl Axis {
    /// The position of coordinate `v` between `a` (at lo) and `b` (at hi).
    pub fn map(&self, v: f64, a: f64, b: f64) -> f64 {
        a + (v - self.lo) / (self.hi - self.lo) * (b - a)
    }
}

/// The range of `vals` with its margin (never empty; a flat series gets a band).
pub fn range(vals: &[f64], scale: Scale) -> (f64, f64) {
    let mut lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo <= f64::EPSILON * lo.abs().max(hi.abs()) {
        let band = match scale {
            Scale::Log => 0.5,
            Scale::Linear if lo == 0.0 => FLAT_BAND,
            Scale::Linear => FLAT_BAND * lo.abs(),
        };
        return (lo - band, hi + band);
    }
    let pad = (hi - lo) * PAD_FRACTION;
    lo -= pad;
    hi += pad;
    (lo, hi)
}

/// A 1-2-5 step giving about [`LINEAR_TICKS`] ticks over `span`.
fn nice_step(span: f64) -> f64 {
    let raw = span / LINEAR_TICKS;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// A number as a tick label with `decimals` decimals; very large or small ones as
/// m×10^k.
fn number(v: f64, decimals: usize) -> String {
    let a = v.abs();
    if a != 0.0 && !(PLAIN_LABELS_FROM..PLAIN_LABELS_BELOW).contains(&a) {
        let k = a.log10().floor();
        let m = v / 10f64.powf(k);
        let ms = format!("{m:.1}");
        let ms = ms.trim_end_matches('0').trim_end_matches('.');
        return if ms == "1" {
            format!("10$^{{{k}}}$")
        } else if ms == "-1" {
            format!("−10$^{{{k}}}$")
        } else {
            format!("{}×10$^{{{k}}}$", ms.replace('-', "−"))
        };
    }
    format!("{v:.decimals$}").replace('-', "−")
}

/// A linear axis over [lo, hi].
pub fn linear(lo: f64, hi: f64) -> Axis {
    let step = nice_step(hi - lo);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let slack = (hi - lo) * TICK_SLACK;
    let mut ticks = Vec::new();
    let mut k = (lo / step).ceil();
    while k * step <= hi + slack {
        let v = k * step;
        let v = if v.abs() < slack { 0.0 } else { v };
        ticks.push(Tick {
            at: v,
            label: number(v, decimals),
        });
        k += 1.0;
    }
    Axis { lo, hi, ticks }
}

/// A log axis over coordinates [lo, hi] (log10 of the values).
pub fn log(lo: f64, hi: f64) -> Axis {
    let slack = (hi - lo) * TICK_SLACK;
    let inside = |c: f64| c >= lo - slack && c <= hi + slack;
    let mut ticks = Vec::new();
    let (k0, k1) = (lo.floor() as i64, hi.ceil() as i64);
    if hi - lo < FEW_DECADES {
        for k in k0..=k1 {
            for m in 1..10 {
                let v = f64::from(m) * 10f64.powi(k as i32);
                let c = v.log10();
                if !inside(c) {
                    continue;
                }
                let label = if matches!(m, 1 | 2 | 5) {
                    let decimals = (-k).max(0) as usize;
                    number(v, decimals)
                } else {
                    String::new()
                };
                ticks.push(Tick { at: c, label });
            }
        }
    } else {
        let decades = (k0..=k1).filter(|k| inside(*k as f64)).count();
        let every = decades.div_ceil(MAX_DECADE_LABELS).max(1) as i64;
        for k in k0..=k1 {
            let c = k as f64;
            if inside(c) {
                let label = if k.rem_euclid(every) == 0 {
                    format!("10$^{{{k}}}$").replace('-', "−")
                } else {
                    String::new()
                };
                ticks.push(Tick { at: c, label });
            }
            if every == 1 && k1 - k0 <= MAX_DECADE_LABELS as i64 {
                for m in 2..10 {
                    let cm = c + f64::from(m).log10();
                    if inside(cm) {
                        ticks.push(Tick {
                            at: cm,
                            label: String::new(),
                        });
                    }
                }
            }
        }
        ticks.sort_by(|a, b| a.at.total_cmp(&b.at));
    }
    Axis { lo, hi, ticks }
}

/// The axis for coordinates `vals` on `scale`.
pub fn axis(vals: &[f64], scale: Scale) -> Axis {
    let (lo, hi) = range(vals, scale);
    match scale {
        Scale::Linear => linear(lo, hi),
        Scale::Log => log(lo, hi),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(a: &Axis) -> Vec<String> {
        a.ticks
            .iter()
            .filter(|t| !t.label.is_empty())
            .map(|t| t.label.clone())
            .collect()
    }

    /// Decades from 10 to 10^5 (N of the JSQ figures): every decade labelled 10^k.
    #[test]
    fn log_axes_label_decades_as_powers_of_ten() {
        let a = log(1.0, 5.0);
        assert_eq!(
            labels(&a),
            ["10$^{1}$", "10$^{2}$", "10$^{3}$", "10$^{4}$", "10$^{5}$"]
        );
        // minor ticks at 2..9 × 10^k: 8 per decade between the labelled ones
        assert_eq!(a.ticks.len(), 5 + 4 * 8);
        // 10^-1 .. 10^12: 14 decades, every second labelled
        let b = log(-1.0, 12.0);
        assert_eq!(labels(&b)[0], "10$^{0}$");
        assert_eq!(labels(&b).len(), 7);
    }

    /// SCV 1..32 spans 1.5 decades: labelled 1, 2, 5, 10, 20 (log10 coordinates).
    #[test]
    fn short_log_axes_use_one_two_five() {
        let a = log(0.0, 32f64.log10());
        assert_eq!(labels(&a), ["1", "2", "5", "10", "20"]);
    }

    #[test]
    fn linear_axes_use_one_two_five_steps() {
        let a = linear(0.0, 1.0);
        assert_eq!(labels(&a), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        let b = linear(1.2, 2.1);
        assert_eq!(labels(&b), ["1.2", "1.4", "1.6", "1.8", "2.0"]);
        assert_eq!(range(&[2.0, 2.0], Scale::Linear), (1.9, 2.1));
    }
}

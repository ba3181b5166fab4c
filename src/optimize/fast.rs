//! The global search in f64, on logarithms.
//!
//! The grid search of [`super::grid`] only has to find the basin of the global optimum, yet
//! in MPFR each partial moment costs microseconds. Here every quantity is carried as its
//! natural logarithm in f64: the cutoffs as y = ln s and the moments, host terms and
//! objective values as ln M, ln T, ln J (a sum is [`ln_add_exp`]). f64 then covers p = 10^100000
//! (ln p ≈ 2.3e5) with a relative error of J near 1e-16 · |ln J| + 1e-12, ample to rank
//! grid points, and a partial moment costs tens of nanoseconds
//! ([`JobSize::ln_partial_moment_f64`]).
//!
//! Families without an f64 form (and discrete ones) keep the MPFR search; so does any case
//! in which this search finds no stable finite placement, so that the MPFR path reports
//! the error. The result is only a starting point: the cutoffs it returns are refined and
//! polished in MPFR.

use super::chain::ChainKind;
use super::dp::{self, layered_dp, ranked, Combine, Layer, Path, Terms, ZoomSpace, ZOOM_POINTS};
use crate::dist::JobSize;
use crate::num::logf64::ln_add_exp;
use crate::num::real::LnF64;
use crate::num::root::{illinois_f64, BracketF64, F64_ROOT_MAX_EVALS, F64_ROOT_TOL};
use crate::num::NumError;
use crate::policy::host_term::{host, HostInputs, KillPoint, Parts};
use crate::policy::Metric;
use rug::Float;
use std::cell::Cell;
use std::convert::Infallible;

/// The chain objective on logarithms (the terms are [`crate::policy::host_term`]'s).
pub struct LnChain<'a> {
    dist: &'a dyn JobSize,
    ln_lambda: f64,
    kind: ChainKind,
    jw: i32,
    /// ln s_0 (−∞ for a support starting at 0).
    pub y_lo: f64,
    /// ln s_h (+∞ for an unbounded support).
    pub y_top: f64,
}

/// The per-point part of the TAGS host terms at a cutoff y: ln F̄(e^y) and ln G(e^y) =
/// ln E[X^{j_w}; X > e^y] (NaN for a term that reads nothing above its interval: SITA's).
#[derive(Debug, Clone, Copy)]
pub struct Above {
    ln_tail: f64,
    ln_g: f64,
}

impl<'a> LnChain<'a> {
    /// The f64 chain, or `None` if the distribution has no f64 partial moments, has an atom
    /// at its lower end, or λ does not fit in f64 logarithms.
    pub fn new(
        dist: &'a dyn JobSize,
        lambda: &Float,
        kind: ChainKind,
        metric: Metric,
    ) -> Option<Self> {
        let lo = dist.lower();
        let top = dist.upper();
        if lo < 0 {
            return None;
        }
        let y_lo = if lo.is_zero() {
            f64::NEG_INFINITY
        } else {
            Float::with_val(lo.prec(), lo.ln_ref()).to_f64()
        };
        let y_top = if top.is_infinite() {
            f64::INFINITY
        } else {
            Float::with_val(top.prec(), top.ln_ref()).to_f64()
        };
        let ln_lambda = Float::with_val(lambda.prec(), lambda.ln_ref()).to_f64();
        if !ln_lambda.is_finite() || y_lo.is_nan() || y_top.is_nan() || y_lo >= y_top {
            return None;
        }
        let jw = kind.weight_order(metric);
        // Every order the objective reads must have an f64 form.
        for j in [jw, 0, 1, 2] {
            dist.ln_partial_moment_f64(j, y_lo, y_top)?;
        }
        Some(LnChain {
            dist,
            ln_lambda,
            kind,
            jw,
            y_lo,
            y_top,
        })
    }

    /// ln M_j(e^ya, e^yb).
    #[inline]
    pub fn ln_m(&self, j: i32, ya: f64, yb: f64) -> f64 {
        self.dist
            .ln_partial_moment_f64(j, ya, yb)
            .unwrap_or(f64::NAN)
    }

    /// The per-point part of the host terms at y (see [`Above`]).
    pub fn above(&self, y: f64) -> Above {
        if !self.kind.needs_tail() {
            return Above {
                ln_tail: f64::NAN,
                ln_g: f64::NAN,
            };
        }
        let ln_tail = self.ln_m(0, y, self.y_top);
        let ln_g = if self.jw == 0 {
            ln_tail
        } else {
            self.ln_m(self.jw, y, self.y_top)
        };
        Above { ln_tail, ln_g }
    }

    /// ln T(e^ya, e^yb): +∞ for an unstable host (or an infinite moment), −∞ for a zero
    /// term, NaN only if the distribution fails.
    pub fn ln_term(&self, ya: f64, yb: f64) -> f64 {
        self.ln_term_at(ya, yb, &self.above(ya), &self.above(yb))
    }

    /// [`LnChain::ln_term`] given the per-point parts at ya and yb (a grid computes them
    /// once per point: they are half of a TAGS term's moments).
    #[inline]
    pub fn ln_term_at(&self, ya: f64, yb: f64, above_a: &Above, above_b: &Above) -> f64 {
        let inputs = LnInputs {
            ch: self,
            ya,
            yb: LnF64(yb),
            above_a,
            above_b,
            m2: Cell::new(f64::NAN),
            weight: Cell::new(f64::NAN),
        };
        let Ok(h) = host(self.kind, &LnF64(self.ln_lambda), &inputs, Parts::Term);
        h.term().0
    }

    /// ln of the objective at the cutoffs `ys` (h − 1 of them, increasing; entries at
    /// `y_top` are idle hosts), summed or maximised.
    pub fn ln_value(&self, ys: &[f64], minmax: bool) -> f64 {
        let mut acc = f64::NEG_INFINITY;
        let mut a = self.y_lo;
        for &b in ys.iter().chain(std::iter::once(&self.y_top)) {
            if a >= self.y_top {
                break;
            }
            let t = self.ln_term(a, b);
            acc = if minmax {
                acc.max(t)
            } else {
                ln_add_exp(acc, t)
            };
            a = b;
        }
        acc
    }
}

/// The inputs of a host term (e^ya, e^yb] as f64 logarithms: the interval's moments from
/// the family's f64 form, the values above a cutoff from its [`Above`].
struct LnInputs<'c, 'a> {
    ch: &'c LnChain<'a>,
    ya: f64,
    /// ln b, as the scalar b.
    yb: LnF64,
    above_a: &'c Above,
    above_b: &'c Above,
    /// ln M_2 (and SITA's ln M_{j_w}), read with ln M_1: the f64 moments then overlap in
    /// the pipeline, which reading them only for a stable host would serialise behind the
    /// stability test (10% of the search's time).
    m2: Cell<f64>,
    /// See `m2`.
    weight: Cell<f64>,
}

impl HostInputs for LnInputs<'_, '_> {
    type R = LnF64;
    type Error = Infallible;
    #[inline]
    fn m1(&self) -> Result<LnF64, Infallible> {
        let (ya, yb) = (self.ya, self.yb.0);
        let m1 = self.ch.ln_m(1, ya, yb);
        self.m2.set(self.ch.ln_m(2, ya, yb));
        if self.ch.kind.weight_on_interval() {
            self.weight.set(self.ch.ln_m(self.ch.jw, ya, yb));
        }
        Ok(LnF64(m1))
    }
    #[inline]
    fn m2(&self) -> Result<LnF64, Infallible> {
        Ok(LnF64(self.m2.get()))
    }
    #[inline]
    fn interval_weight(&self) -> Result<LnF64, Infallible> {
        Ok(LnF64(self.weight.get()))
    }
    #[inline]
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, LnF64>>, Infallible> {
        Ok((self.yb.0 < self.ch.y_top).then_some(KillPoint {
            b: &self.yb,
            tail: LnF64(self.above_b.ln_tail),
        }))
    }
    #[inline]
    fn weight_above_a(&self) -> Result<LnF64, Infallible> {
        Ok(LnF64(self.above_a.ln_g))
    }
    #[inline]
    fn mass_above_a(&self) -> Result<LnF64, Infallible> {
        Ok(LnF64(self.above_a.ln_tail))
    }
    #[inline]
    fn weight_above_b(&self) -> Result<LnF64, Infallible> {
        Ok(LnF64(self.above_b.ln_g))
    }
}

/// Smallest distance, relative to max(1, |y|), of a grid point from a finite end of the
/// support in the end brackets of [`ln_grid`] (about 5 ulps of y: closer points round onto
/// the end).
const END_GAP: f64 = 1e-15;

/// Largest |ln s| at which [`ln_grid`] looks for the ends of a support that is not bounded
/// away from 0 and ∞ (its count quantiles at the logistic levels e^∓40): s from e^−1e6 to
/// e^1e6, beyond any level the families reach; a level not reached there leaves the
/// grid's end at this bound.
pub const LN_END_BOUND: f64 = 1e6;

/// Where an increasing `f` crosses the level `t` inside the bracket (lo, f(lo)), (hi, f(hi)):
/// the point `pick` takes from [`illinois_f64`]'s final bracket, or the end of the bracket
/// beyond which the level lies (a grid point only has to be near its level; the nearest
/// end is). `None` where f is NaN inside (the point is left out).
fn crossing(
    f: impl Fn(f64) -> f64,
    t: f64,
    lo: (f64, f64),
    hi: (f64, f64),
    tol: f64,
    max_evals: usize,
    pick: fn(&BracketF64) -> f64,
) -> Option<f64> {
    if !(lo.1 - t < 0.0) {
        return Some(lo.0);
    }
    if !(hi.1 - t > 0.0) {
        return Some(hi.0);
    }
    illinois_f64("f64 grid level", f, t, lo, hi, tol, max_evals)
        .ok()
        .map(|r| pick(&r))
}

/// Relative tolerance of the quantile grid points in y: they only need to be near their
/// levels (the SITA-E seeds, which must be stable, are solved to [`F64_ROOT_TOL`]) …
const GRID_TOL: f64 = 1e-5;
/// … and evaluations per quantile point at most (Illinois steps from the bracket of
/// log-spaced points around it, whose values are known; the point is the last
/// interpolation).
const GRID_EVALS: usize = 2;

/// Range of the logistic levels of the quantile points (as in [`super::grid`]).
const T_RANGE: f64 = super::grid::QUANTILE_T_RANGE;

/// The search grid in y = ln s: y_0 = ln s_0 < … < y_N = ln s_h, the union of log-spaced
/// points (over the support, or over its quantiles 1e−17 … 1 − 1e−17 where it is not
/// bounded away from 0 and ∞), quantiles of the job count and of the work at logistic
/// levels, and the SITA-E cutoffs (work quantiles i/h, stable whenever anything is). `n`
/// is the number of points of each family.
pub fn ln_grid(ch: &LnChain, hosts: usize, n: usize) -> Result<Vec<f64>, NumError> {
    let m = n.max(4);
    let (y_lo, y_top) = (ch.y_lo, ch.y_top);
    // Logit of the job count and of the work below e^y (increasing in y).
    let logit = |j: i32, y: f64| ch.ln_m(j, y_lo, y) - ch.ln_m(j, y, y_top);
    // Finite ends for the log-spaced points: the count quantiles at e^∓T_RANGE, to full
    // precision (a NaN is an error: the f64 search then gives way to the MPFR one).
    let end = |t: f64, lo: f64, hi: f64| -> Result<f64, NumError> {
        let f = |y: f64| logit(0, y);
        let (f_lo, f_hi) = (f(lo), f(hi));
        if !(f_lo - t < 0.0) {
            return Ok(lo);
        }
        if !(f_hi - t > 0.0) {
            return Ok(hi);
        }
        let r = illinois_f64(
            "f64 grid end",
            f,
            t,
            (lo, f_lo),
            (hi, f_hi),
            F64_ROOT_TOL,
            F64_ROOT_MAX_EVALS,
        )?;
        Ok(r.midpoint())
    };
    let lo_end = if y_lo.is_finite() {
        y_lo
    } else {
        end(-T_RANGE, -LN_END_BOUND, y_top.min(LN_END_BOUND))?
    };
    let hi_end = if y_top.is_finite() {
        y_top
    } else {
        end(T_RANGE, lo_end, LN_END_BOUND)?
    };
    let mut pts: Vec<f64> = Vec::with_capacity(3 * m + hosts);
    let mut spaced = vec![lo_end];
    if hi_end > lo_end {
        for i in 1..m {
            spaced.push(lo_end + (hi_end - lo_end) * i as f64 / m as f64);
        }
    }
    spaced.push(hi_end);
    pts.extend_from_slice(&spaced[1..spaced.len() - 1]);
    // Each quantile is solved inside the bracket of log-spaced points around it (the
    // logits there are computed once), so a few Illinois steps suffice.
    // In the end brackets the logit runs to ∓∞ at a finite end of the support, like the
    // log of the distance to it: there the root is solved in that log-distance (Illinois
    // then converges as fast as in the interior, where bisection towards the end would
    // need ~50 halvings for a level like e^−40).
    let last = spaced.len() - 1;
    let solve = |j: i32,
                 table: &[f64],
                 t: f64,
                 tol: f64,
                 evals: usize,
                 pick: fn(&BracketF64) -> f64|
     -> Option<f64> {
        let i = table.partition_point(|v| *v < t).clamp(1, last);
        let (lo, hi) = (spaced[i - 1], spaced[i]);
        if lo == y_lo && y_lo.is_finite() && hi > lo {
            let u_hi = (hi - lo).ln();
            let u_lo = (y_lo.abs().max(1.0) * END_GAP).ln();
            if u_lo < u_hi {
                let f = |u: f64| logit(j, y_lo + u.exp());
                let u = crossing(f, t, (u_lo, f(u_lo)), (u_hi, table[i]), tol, evals, pick)?;
                return Some(y_lo + u.exp());
            }
        }
        if hi == y_top && y_top.is_finite() && hi > lo {
            let v_hi = (hi - lo).ln();
            let v_lo = (y_top.abs().max(1.0) * END_GAP).ln();
            if v_lo < v_hi {
                let f = |v: f64| -logit(j, y_top - v.exp());
                let v = crossing(
                    f,
                    -t,
                    (v_lo, f(v_lo)),
                    (v_hi, -table[i - 1]),
                    tol,
                    evals,
                    pick,
                )?;
                return Some(y_top - v.exp());
            }
        }
        crossing(
            |y| logit(j, y),
            t,
            (lo, table[i - 1]),
            (hi, table[i]),
            tol,
            evals,
            pick,
        )
    };
    for j in [0, 1] {
        let table: Vec<f64> = spaced.iter().map(|&y| logit(j, y)).collect();
        for i in 1..m {
            let t = -T_RANGE + 2.0 * T_RANGE * i as f64 / m as f64;
            // A few steps: the point is the next Illinois estimate.
            pts.extend(solve(
                j,
                &table,
                t,
                GRID_TOL,
                GRID_EVALS,
                BracketF64::secant,
            ));
        }
        if j == 1 {
            for i in 1..hosts {
                let t = (i as f64 / (hosts - i) as f64).ln();
                // Solved to full precision; even a bracket not narrowed to the tolerance
                // in F64_ROOT_MAX_EVALS evaluations gives a grid point (its midpoint).
                let seed = solve(
                    1,
                    &table,
                    t,
                    F64_ROOT_TOL,
                    F64_ROOT_MAX_EVALS,
                    BracketF64::midpoint,
                );
                pts.extend(seed);
            }
        }
    }
    pts.retain(|y| y.is_finite() && *y > y_lo && *y < y_top);
    pts.sort_by(f64::total_cmp);
    pts.dedup();
    let mut g = Vec::with_capacity(pts.len() + 2);
    g.push(y_lo);
    g.extend(pts);
    g.push(y_top);
    Ok(g)
}

/// Points of each family of the f64 grid (log-spaced, count quantiles, work quantiles):
/// `FAST_GRID_BASE + FAST_GRID_PER_HOST · h`, at most a third of [`super::grid::GRID_MAX`].
pub const FAST_GRID_BASE: usize = 32;
/// See [`FAST_GRID_BASE`].
pub const FAST_GRID_PER_HOST: usize = 12;

/// The per-family point count of [`ln_grid`] for `hosts` hosts.
pub fn fast_grid_size(hosts: usize) -> usize {
    (FAST_GRID_BASE + FAST_GRID_PER_HOST * hosts).min(super::grid::GRID_MAX / 3)
}

/// A grid placement: the h − 1 cutoffs in y (idle hosts at `y_top`) and ln J there.
#[derive(Debug, Clone)]
pub struct LnPlacement {
    /// The cutoffs, ln s.
    pub ys: Vec<f64>,
    /// ln of the objective.
    pub ln_value: f64,
}

/// Host terms between points, computed when first needed (and kept when `memo` is not
/// empty).
struct LnTerms<'a, 'c> {
    ch: &'c LnChain<'a>,
    g: &'c [f64],
    /// The per-point parts of the terms at each point.
    above: Vec<Above>,
    memo: Vec<f64>,
    /// The term last returned (a reference to it is handed out).
    last: LnF64,
}

impl<'a, 'c> LnTerms<'a, 'c> {
    /// The terms between the points `g`, kept in a table of g.len()² entries if `memo`.
    fn new(ch: &'c LnChain<'a>, g: &'c [f64], memo: bool) -> Self {
        let memo = if memo {
            vec![f64::NAN; g.len() * g.len()]
        } else {
            Vec::new()
        };
        let above = g.iter().map(|&y| ch.above(y)).collect();
        LnTerms {
            ch,
            g,
            above,
            memo,
            last: LnF64(f64::NAN),
        }
    }
}

impl LnTerms<'_, '_> {
    /// T(k, l) computed (and kept in the table at `i` if there is one); out of line, so
    /// that the table lookup of [`Terms::term`] stays small enough to inline into the
    /// programme's inner loop.
    #[inline(never)]
    fn compute(&mut self, k: usize, l: usize, i: usize) -> f64 {
        let v = self
            .ch
            .ln_term_at(self.g[k], self.g[l], &self.above[k], &self.above[l]);
        // A NaN (a failed moment) is never stored as "not computed": it counts as unstable.
        let v = if v.is_nan() { f64::INFINITY } else { v };
        if let Some(m) = self.memo.get_mut(i) {
            *m = v;
        }
        v
    }
}

impl Terms for LnTerms<'_, '_> {
    type Cost = LnF64;
    type Error = Infallible;
    #[inline]
    fn term(&mut self, k: usize, l: usize) -> Result<&LnF64, Infallible> {
        let i = l * self.g.len() + k;
        let v = match self.memo.get(i) {
            Some(&v) if !v.is_nan() => v,
            _ => self.compute(k, l, i),
        };
        self.last = LnF64(v);
        Ok(&self.last)
    }
}

/// Exact optimum over the grid `g` by dynamic programming ([`layered_dp`]; sum, or max for
/// `minmax`), one placement per number of busy hosts (the rest idle at the top), best
/// first; empty if no placement is stable.
pub fn ln_grid_optima(ch: &LnChain, hosts: usize, g: &[f64], minmax: bool) -> Vec<LnPlacement> {
    if hosts < 1 || g.len() < 2 {
        return vec![];
    }
    let n = g.len() - 1;
    // With two hosts every pair is read once (host 1 from s_0, host 2 to the top): no
    // table of g.len()² terms is needed.
    let mut terms = LnTerms::new(ch, g, hosts > 2);
    let mut layers = vec![Layer::Range(0, 1)];
    layers.extend(std::iter::repeat_n(Layer::Range(1, n + 1), hosts - 1));
    layers.push(Layer::Range(n, n + 1));
    let how = if minmax { Combine::Max } else { Combine::Sum };
    let zero = LnF64(f64::NEG_INFINITY);
    let inf = LnF64(f64::INFINITY);
    let Ok(paths) = layered_dp(&layers, n, &zero, &inf, how, &mut terms);
    ranked(paths)
        .into_iter()
        .map(|p| {
            let mut ys: Vec<f64> = p.nodes.iter().map(|&k| g[k]).collect();
            ys.resize(hosts - 1, g[n]);
            LnPlacement {
                ys,
                ln_value: p.value.0,
            }
        })
        .collect()
}

/// Zoom rounds at most.
pub const LN_ZOOM_ROUNDS: usize = 12;
/// The zoom stops at this half-width in y (relative to 1 + |y|): below it f64 values of J
/// no longer rank the points (J − J* ≈ J·Δy² reaches its rounding), and the MPFR Newton
/// refinement takes over.
pub const LN_ZOOM_MIN_WIDTH: f64 = 1e-5;

/// Refines a placement by the zoom of [`dp::zoom`] in f64 logarithms, around each busy
/// host's cutoff. `width` is the first half-width.
pub fn ln_zoom(ch: &LnChain, start: &LnPlacement, width: f64, minmax: bool) -> LnPlacement {
    let hosts = start.ys.len() + 1;
    let cur: Vec<f64> = start.ys.iter().copied().filter(|y| *y < ch.y_top).collect();
    let how = if minmax { Combine::Max } else { Combine::Sum };
    let Ok(z) = dp::zoom(&mut LnZoom { ch }, &cur, width, LN_ZOOM_ROUNDS, how);
    let (mut ys, value) = (z.cutoffs, z.value);
    ys.resize(hosts - 1, ch.y_top);
    LnPlacement {
        ys,
        ln_value: value.map_or(start.ln_value, |v| v.0),
    }
}

/// The zoom's points as logarithms y = ln s.
struct LnZoom<'c, 'a> {
    ch: &'c LnChain<'a>,
}

impl ZoomSpace for LnZoom<'_, '_> {
    type Point = f64;
    type Cost = LnF64;
    type Error = Infallible;
    fn ends(&self) -> (f64, f64) {
        (self.ch.y_lo, self.ch.y_top)
    }
    fn window(&self, y: &f64, w: f64) -> Vec<f64> {
        let (lo, top) = self.ends();
        let mut layer: Vec<f64> = (0..=ZOOM_POINTS)
            .map(|i| y - w + 2.0 * w * i as f64 / ZOOM_POINTS as f64)
            .filter(|p| *p > lo && *p < top)
            .collect();
        layer.push(*y);
        layer
    }
    fn ln_distance(&self, a: &f64, b: &f64) -> f64 {
        (a - b).abs()
    }
    fn cmp(&self, a: &f64, b: &f64) -> std::cmp::Ordering {
        a.total_cmp(b)
    }
    fn min_width(&self) -> f64 {
        LN_ZOOM_MIN_WIDTH
    }
    fn scale(&self, cur: &[f64]) -> f64 {
        1.0 + cur.iter().fold(0.0f64, |m, y| m.max(y.abs()))
    }
    fn best_path(
        &mut self,
        points: &[f64],
        layers: &[Layer],
        how: Combine,
    ) -> Result<Option<Path<LnF64>>, Infallible> {
        let mut terms = LnTerms::new(self.ch, points, false);
        let zero = LnF64(f64::NEG_INFINITY);
        let inf = LnF64(f64::INFINITY);
        let top = points.len() - 1;
        Ok(layered_dp(layers, top, &zero, &inf, how, &mut terms)?.pop())
    }
}

/// Tolerance in y of [`ln_brent`], times √(1 + |ln J|): about the square root of the
/// relative precision of J in the f64 chain (1e-16·|ln J|), below which values of J no
/// longer rank points (J − J* ≈ J''·Δy²/2 reaches J's rounding).
pub const LN_BRENT_TOL: f64 = 3e-8;
/// Evaluations of [`ln_brent`] at most.
pub const LN_BRENT_MAX_EVALS: usize = 100;

/// A placement with exactly one busy cutoff (two busy hosts, e.g. h = 2) refined by Brent's
/// minimisation (golden sections and parabolic steps) of ln J over that cutoff, between its
/// neighbours on the grid `g`, to [`LN_BRENT_TOL`]: about twenty evaluations where the zoom
/// needs a few hundred. `None` for other placements (they are zoomed). The result is never
/// worse than `start`.
pub fn ln_brent(ch: &LnChain, start: &LnPlacement, g: &[f64]) -> Option<LnPlacement> {
    let busy: Vec<usize> = (0..start.ys.len())
        .filter(|&i| start.ys[i] < ch.y_top)
        .collect();
    if busy.len() != 1 || busy[0] != 0 {
        return None;
    }
    let y0 = start.ys[0];
    let k = g.partition_point(|v| *v < y0);
    if k == 0 || k + 1 >= g.len() || g[k] != y0 {
        return None;
    }
    let (mut a, mut b) = (g[k - 1], g[k + 1]);
    let f = |y: f64| -> f64 {
        let mut ys = start.ys.clone();
        ys[0] = y;
        let v = ch.ln_value(&ys, false);
        if v.is_nan() {
            f64::INFINITY
        } else {
            v
        }
    };
    // Brent's method: x the best point so far, w the second best, v the previous w.
    const GOLDEN: f64 = 0.381_966_011_250_105_1;
    let (mut x, mut fx) = (y0, start.ln_value);
    let (mut w, mut fw, mut v, mut fv) = (x, fx, x, fx);
    let (mut d, mut e) = (0.0f64, 0.0f64);
    for _ in 0..LN_BRENT_MAX_EVALS {
        let m = 0.5 * (a + b);
        let tol = LN_BRENT_TOL * (1.0 + fx.abs()).sqrt();
        if (x - m).abs() <= 2.0 * tol - 0.5 * (b - a) {
            break;
        }
        let mut golden = true;
        if e.abs() > tol {
            // Parabola through x, w, v.
            let r = (x - w) * (fx - fv);
            let q0 = (x - v) * (fx - fw);
            let mut p = (x - v) * q0 - (x - w) * r;
            let mut q = 2.0 * (q0 - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            if p.is_finite()
                && q.is_finite()
                && p.abs() < (0.5 * q * e).abs()
                && p > q * (a - x)
                && p < q * (b - x)
            {
                e = d;
                d = p / q;
                let u = x + d;
                if u - a < 2.0 * tol || b - u < 2.0 * tol {
                    d = if x < m { tol } else { -tol };
                }
                golden = false;
            }
        }
        if golden {
            e = if x < m { b - x } else { a - x };
            d = GOLDEN * e;
        }
        let u = if d.abs() >= tol {
            x + d
        } else if d > 0.0 {
            x + tol
        } else {
            x - tol
        };
        let fu = f(u);
        if fu <= fx {
            if u < x {
                b = x;
            } else {
                a = x;
            }
            (v, fv, w, fw, x, fx) = (w, fw, x, fx, u, fu);
        } else {
            if u < x {
                a = u;
            } else {
                b = u;
            }
            if fu <= fw || w == x {
                (v, fv, w, fw) = (w, fw, u, fu);
            } else if fu <= fv || v == x || v == w {
                (v, fv) = (u, fu);
            }
        }
    }
    let mut ys = start.ys.clone();
    ys[0] = x;
    Some(LnPlacement { ys, ln_value: fx })
}

/// The largest gap between consecutive finite grid points (the first zoom half-width).
pub fn max_gap(g: &[f64]) -> f64 {
    g.windows(2)
        .filter(|w| w[0].is_finite() && w[1].is_finite())
        .map(|w| w[1] - w[0])
        .fold(0.0, f64::max)
}

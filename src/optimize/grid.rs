//! Global search of the cutoffs on a grid by dynamic programming.
//!
//! The objective is a chain Σ_i T(s_{i−1}, s_i), so the best placement of h − 1 cutoffs on
//! a grid x_0 = s_0 < x_1 < … < x_N = top is found exactly by dynamic programming in
//! O(h N²) additions: V_i(l) = min_{k<l} V_{i−1}(k) + T(x_k, x_l). Trailing hosts may be
//! left idle (a cutoff at the top), which TAGS at light load can prefer. For minmax the
//! sum becomes a max. Partial moments on the grid come from cumulative sums taken from
//! whichever end loses fewer digits, so the N² table costs O(N) moment evaluations.

use super::chain::ChainKind;
use super::dp::{self, layered_dp, ranked, Combine, Layer, Path, Terms, ZoomSpace, ZOOM_POINTS};
use crate::dist::{DistError, JobSize};
use crate::policy::host_term::{host, HostInputs, KillPoint, Parts};
use crate::policy::{Metric, PolicyError};
use rug::Float;

/// The hint of a grid that found no stable placement: stable cutoffs exist (the TAGS
/// threshold was checked first), but so close to the threshold that none lies on the grid.
pub const HINT_NEAR_THRESHOLD: &str =
    "the load is too close to the TAGS stability threshold for the search grid; a slightly lower --load may be found";

/// Grid points: `GRID_BASE + GRID_PER_HOST · h`, at most `GRID_MAX`.
pub const GRID_BASE: usize = 160;
/// Extra grid points per host.
pub const GRID_PER_HOST: usize = 24;
/// Largest grid.
pub const GRID_MAX: usize = 800;
/// Range of the logistic variable t of the quantile grid u = 1/(1+e^−t) (u from about
/// 4e−18 to 1 − 4e−18) for supports that start at 0 or are unbounded.
pub const QUANTILE_T_RANGE: f64 = 40.0;

/// Number of grid intervals for `hosts` hosts.
pub fn grid_size(hosts: usize) -> usize {
    (GRID_BASE + GRID_PER_HOST * hosts).min(GRID_MAX)
}

/// Why no cutoffs exist for a law whose support is one point.
pub(crate) const SINGLE_POINT: &str =
    "the support is a single point: every cutoff sends all jobs to one host";

/// The grid x_0 = lower < … < x_N = upper: the union of three families of points, so that
/// the optimum's neighbourhood is resolved whether the cutoffs follow the job count, the
/// work or the scale: quantiles of the job count and quantiles of the work
/// (M_1(s_0, x) = u E[X]), both at logistic levels u = 1/(1+e^−t), and, for a support
/// [lo, hi] with 0 < lo and hi finite, log-spaced points.
pub fn make_grid(dist: &dyn JobSize, n: usize) -> Result<Vec<Float>, PolicyError> {
    let bits = dist.prec();
    let lo = dist.lower();
    let hi = dist.upper();
    if lo >= hi {
        return Err(PolicyError::BadCutoffs(SINGLE_POINT.into()));
    }
    let parts = if lo > 0 && hi.is_finite() { 3 } else { 2 };
    let m = (n / parts).max(2);
    let mut pts: Vec<Float> = Vec::with_capacity(n + 2);
    let level = |i: usize| -> Float {
        let t = -QUANTILE_T_RANGE + 2.0 * QUANTILE_T_RANGE * i as f64 / m as f64;
        // u = 1/(1+e^−t) computed in MPFR so that 1 − u keeps its digits.
        let e = Float::with_val(bits, -t).exp();
        Float::with_val(bits, 1u32) / (e + 1u32)
    };
    if parts == 3 {
        let la = Float::with_val(bits, lo.ln_ref());
        let lb = Float::with_val(bits, hi.ln_ref());
        for i in 1..m {
            let t = Float::with_val(bits, &lb - &la) * Float::with_val(bits, i)
                / Float::with_val(bits, m);
            pts.push(Float::with_val(bits, &la + &t).exp());
        }
    }
    for i in 1..m {
        if let Ok(x) = dist.quantile(&level(i)) {
            pts.push(x);
        }
    }
    // Work quantiles, by interpolating ln x against logit(W), W(x) = M_1(s_0, x)/E[X], on
    // the points above: no root finding, and they add points where the work is.
    pts.retain(|x| x.is_finite() && *x > lo && *x < hi && *x > 0);
    pts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    pts.dedup();
    let lo_open = dist.lower_open();
    let mut table: Vec<(f64, Float)> = Vec::with_capacity(pts.len());
    for x in &pts {
        let below = dist.partial_moment(1, &lo_open, x)?;
        let above = dist.partial_moment(1, x, &hi)?;
        if below > 0 && above > 0 {
            // logit W = ln(below/above), computed without 1 − W.
            let lw = Float::with_val(bits, &below / &above).ln().to_f64();
            table.push((lw, Float::with_val(bits, x.ln_ref())));
        }
    }
    if table.len() >= 2 {
        let mut extra = Vec::with_capacity(m);
        for i in 1..m {
            let t = -QUANTILE_T_RANGE + 2.0 * QUANTILE_T_RANGE * i as f64 / m as f64;
            let k = table.partition_point(|(w, _)| *w < t);
            if k == 0 || k >= table.len() {
                continue;
            }
            let (w0, y0) = &table[k - 1];
            let (w1, y1) = &table[k];
            if w1 <= w0 {
                continue;
            }
            let f = (t - w0) / (w1 - w0);
            let y = Float::with_val(bits, y0 * (1.0 - f)) + Float::with_val(bits, y1 * f);
            extra.push(y.exp());
        }
        pts.extend(extra);
    }
    pts.retain(|x| x.is_finite() && *x > lo && *x < hi);
    pts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    pts.dedup();
    let mut g = Vec::with_capacity(pts.len() + 2);
    g.push(lo);
    g.extend(pts);
    g.push(hi);
    Ok(g)
}

/// Cumulative partial moments at the grid points, from both ends (None = infinite).
struct Cumulative {
    /// lo_c[j+1][k] = M_j(s_0⁻, x_k).
    lo_c: Vec<Vec<Option<Float>>>,
    /// up_c[j+1][k] = M_j(x_k, top) (k = 0: over the whole support).
    up_c: Vec<Vec<Option<Float>>>,
    /// F̄(x_k).
    tail: Vec<Float>,
}

fn finite(r: Result<Float, DistError>) -> Result<Option<Float>, PolicyError> {
    match r {
        Ok(x) if x.is_finite() => Ok(Some(x)),
        Ok(_) | Err(DistError::InfiniteMoment { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

impl Cumulative {
    fn new(dist: &dyn JobSize, g: &[Float], orders: &[i32]) -> Result<Self, PolicyError> {
        let lo_open = dist.lower_open();
        let top = dist.upper();
        let mut lo_c: Vec<Vec<Option<Float>>> =
            (0..4).map(|_| Vec::with_capacity(g.len())).collect();
        let mut up_c: Vec<Vec<Option<Float>>> =
            (0..4).map(|_| Vec::with_capacity(g.len())).collect();
        for (k, x) in g.iter().enumerate() {
            let from = if k == 0 { &lo_open } else { x };
            for j in -1..=2i32 {
                // Only the orders the objective uses (the weight's, 1 and 2; 0 for the
                // queue length): the others stay None and are never read.
                if !orders.contains(&j) {
                    lo_c[(j + 1) as usize].push(None);
                    up_c[(j + 1) as usize].push(None);
                    continue;
                }
                lo_c[(j + 1) as usize].push(finite(dist.partial_moment(j, &lo_open, x))?);
                up_c[(j + 1) as usize].push(finite(dist.partial_moment(j, from, &top))?);
            }
        }
        let tail = g.iter().map(|x| dist.tail(x)).collect();
        Ok(Cumulative { lo_c, up_c, tail })
    }

    /// M_j(x_k, x_l) for k < l, None if infinite.
    fn m(&self, j: i32, k: usize, l: usize, bits: u32) -> Option<Float> {
        let jj = (j + 1) as usize;
        let n = self.tail.len() - 1;
        if k == 0 {
            return self.lo_c[jj][l].clone();
        }
        if l == n {
            return self.up_c[jj][k].clone();
        }
        let lo = match (&self.lo_c[jj][l], &self.lo_c[jj][k]) {
            (Some(b), Some(a)) => Some((b, a)),
            _ => None,
        };
        let up = match (&self.up_c[jj][k], &self.up_c[jj][l]) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        let v = match (lo, up) {
            (Some((b, a)), Some((ua, ub))) => {
                if Float::with_val(bits, b.abs_ref()) <= Float::with_val(bits, ua.abs_ref()) {
                    Float::with_val(bits, b - a)
                } else {
                    Float::with_val(bits, ua - ub)
                }
            }
            (Some((b, a)), None) => Float::with_val(bits, b - a),
            (None, Some((ua, ub))) => Float::with_val(bits, ua - ub),
            (None, None) => return None,
        };
        Some(if v < 0 { Float::with_val(bits, 0) } else { v })
    }
}

/// The grid optimum: grid indices of the cutoffs (the last ones may equal N: idle hosts)
/// and the objective value there.
#[derive(Debug, Clone)]
pub struct GridOptimum {
    /// Cutoffs s_1 … s_{h−1} (grid values; may equal the top for idle hosts).
    pub cutoffs: Vec<Float>,
    /// Objective at the grid optimum.
    pub value: Float,
}

/// Host terms T(x_k, x_l) on the grid, computed when first needed (the DP for h = 2 needs
/// only O(N) of the N²/2 pairs) from cumulative moments; +∞ when unstable.
struct GridTerms<'a> {
    dist: &'a dyn JobSize,
    lambda: Float,
    kind: ChainKind,
    metric: Metric,
    g: &'a [Float],
    c: Cumulative,
    memo: Vec<Vec<Option<Float>>>,
}

impl<'a> GridTerms<'a> {
    fn new(
        dist: &'a dyn JobSize,
        lambda: &Float,
        kind: ChainKind,
        metric: Metric,
        g: &'a [Float],
    ) -> Result<Self, PolicyError> {
        // The weight's order (on the interval or above a cutoff), M_1 and M_2.
        let orders = [kind.weight_order(metric), 1, 2];
        let c = Cumulative::new(dist, g, &orders)?;
        let memo = (0..g.len()).map(|l| vec![None; l]).collect();
        Ok(GridTerms {
            dist,
            lambda: lambda.clone(),
            kind,
            metric,
            g,
            c,
            memo,
        })
    }

    fn compute(&self, k: usize, l: usize) -> Result<Float, PolicyError> {
        let inputs = GridInputs { t: self, k, l };
        Ok(host(self.kind, &self.lambda, &inputs, Parts::Term)?.term())
    }
}

impl Terms for GridTerms<'_> {
    type Cost = Float;
    type Error = PolicyError;
    fn term(&mut self, k: usize, l: usize) -> Result<&Float, PolicyError> {
        if self.memo[l][k].is_none() {
            let v = self.compute(k, l)?;
            self.memo[l][k] = Some(v);
        }
        self.memo[l][k]
            .as_ref()
            .ok_or_else(|| PolicyError::BadCutoffs("grid term missing".into()))
    }
}

/// The inputs of the host term (x_k, x_l] from the cumulative moments (an infinite one is
/// an infinite metric).
struct GridInputs<'t, 'a> {
    t: &'t GridTerms<'a>,
    k: usize,
    l: usize,
}

impl GridInputs<'_, '_> {
    /// `m`, or the error naming M_j over (x_k, x_l] (`l` = the top for the tail above).
    fn finite(&self, m: Option<Float>, j: i32, k: usize, l: usize) -> Result<Float, PolicyError> {
        m.ok_or_else(|| infinite(self.t.metric, self.t.dist, j, self.t.g, k, l))
    }

    /// M_j(x_k, x_l).
    fn m(&self, j: i32) -> Result<Float, PolicyError> {
        self.finite(
            self.t.c.m(j, self.k, self.l, self.t.dist.prec()),
            j,
            self.k,
            self.l,
        )
    }

    /// M_j(x_i, top).
    fn above(&self, j: i32, i: usize) -> Result<Float, PolicyError> {
        let top = self.t.g.len() - 1;
        self.finite(self.t.c.up_c[(j + 1) as usize][i].clone(), j, i, top)
    }
}

impl HostInputs for GridInputs<'_, '_> {
    type R = Float;
    type Error = PolicyError;
    fn m1(&self) -> Result<Float, PolicyError> {
        self.m(1)
    }
    fn m2(&self) -> Result<Float, PolicyError> {
        self.m(2)
    }
    fn interval_weight(&self) -> Result<Float, PolicyError> {
        self.m(self.t.kind.weight_order(self.t.metric))
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Float>>, PolicyError> {
        let (g, l) = (self.t.g, self.l);
        Ok((l < g.len() - 1).then(|| KillPoint {
            b: &g[l],
            tail: self.t.c.tail[l].clone(),
        }))
    }
    fn weight_above_a(&self) -> Result<Float, PolicyError> {
        self.above(self.t.kind.weight_order(self.t.metric), self.k)
    }
    fn mass_above_a(&self) -> Result<Float, PolicyError> {
        self.above(0, self.k)
    }
    fn weight_above_b(&self) -> Result<Float, PolicyError> {
        self.above(self.t.kind.weight_order(self.t.metric), self.l)
    }
}

/// The infinite moment M_j over the grid interval (x_k, x_l], named as a host's interval:
/// its lower end is the support's own (a number) at k = 0, else a cutoff; its upper end the
/// end of the support at the top of the grid, else the first cutoff (k = 0) or a cutoff.
/// E[1/X] diverges at the bottom of the support (a density positive at 0), E[X²] at its
/// top (a heavy tail): the interval says which host's term is infinite.
fn infinite(
    metric: Metric,
    dist: &dyn JobSize,
    j: i32,
    g: &[Float],
    k: usize,
    l: usize,
) -> PolicyError {
    let top = g.len() - 1;
    let a = if k == 0 {
        crate::num::message_number(&dist.lower())
    } else {
        "a cutoff".to_string()
    };
    let b = if l >= top {
        "the end of the support".to_string()
    } else if k == 0 {
        "the first cutoff".to_string()
    } else {
        "the next cutoff".to_string()
    };
    PolicyError::InfiniteMetric {
        metric: metric.name(),
        source: DistError::InfiniteMoment {
            family: dist.family(),
            j,
            a,
            b,
        },
    }
}

/// Exact optimum over the grid by dynamic programming ([`layered_dp`]); `minmax` replaces
/// the sum by a max. Returns the best placement for each number u = 1 … h of hosts in use
/// (the others idle at the top), best first: the objective can have a local minimum with
/// all hosts busy and a better one with fewer (TAGS at light load), so the refinement
/// starts from several.
pub fn grid_optima(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    kind: ChainKind,
    metric: Metric,
    g: &[Float],
    minmax: bool,
) -> Result<Vec<GridOptimum>, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = dist.prec();
    let n = g.len() - 1;
    let mut t = GridTerms::new(dist, lambda, kind, metric, g)?;
    // Host i ≤ h − 1 ends at any point after s_0 (at the top: the rest idle); host h at
    // the top.
    let mut layers = vec![Layer::Range(0, 1)];
    layers.extend(std::iter::repeat_n(Layer::Range(1, n + 1), hosts - 1));
    layers.push(Layer::Range(n, n + 1));
    let zero = Float::with_val(bits, 0);
    let inf = Float::with_val(bits, rug::float::Special::Infinity);
    let how = if minmax { Combine::Max } else { Combine::Sum };
    let paths = ranked(layered_dp(&layers, n, &zero, &inf, how, &mut t)?);
    if paths.is_empty() {
        return Err(PolicyError::Solver {
            what: "global cutoff search".into(),
            detail: "no cutoffs on its grid keep every host stable".into(),
            hint: HINT_NEAR_THRESHOLD,
        });
    }
    Ok(paths
        .into_iter()
        .map(|p| {
            let mut cutoffs: Vec<Float> = p.nodes.iter().map(|&k| g[k].clone()).collect();
            cutoffs.resize(hosts - 1, g[n].clone());
            GridOptimum {
                cutoffs,
                value: p.value,
            }
        })
        .collect())
}

/// The largest gap between consecutive positive finite grid points, in ln s (the first
/// zoom half-width).
pub fn max_ln_gap(g: &[Float]) -> f64 {
    g.windows(2)
        .filter(|w| w[0] > 0 && w[1].is_finite())
        .map(|w| Float::with_val(w[0].prec(), &w[1] / &w[0]).ln().to_f64())
        .fold(0.0, f64::max)
}

/// Zoom rounds at most.
pub const ZOOM_ROUNDS: usize = 6;
/// Zooming stops when every window's half-width in ln s is below this.
pub const ZOOM_MIN_WIDTH: f64 = 1e-7;

/// Refines a grid placement of the free cutoffs (u − 1 of them; hosts after u idle) by
/// the zoom of [`dp::zoom`] in MPFR. `width` is the first half-width in ln s.
#[allow(clippy::too_many_arguments)]
pub fn zoom(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    kind: ChainKind,
    metric: Metric,
    start: &[Float],
    width: f64,
    minmax: bool,
) -> Result<GridOptimum, PolicyError> {
    if hosts < 1 || start.len() >= hosts {
        return Err(PolicyError::BadHosts(hosts));
    }
    let mut space = MpfrZoom {
        dist,
        lambda,
        kind,
        metric,
    };
    let how = if minmax { Combine::Max } else { Combine::Sum };
    let z = dp::zoom(&mut space, start, width, ZOOM_ROUNDS, how)?;
    let (mut cutoffs, value) = (z.cutoffs, z.value);
    let bits = dist.prec();
    cutoffs.resize(hosts - 1, dist.upper());
    Ok(GridOptimum {
        cutoffs,
        value: value.unwrap_or_else(|| Float::with_val(bits, rug::float::Special::Infinity)),
    })
}

/// The zoom's points in MPFR: each round's terms from cumulative moments over its points.
struct MpfrZoom<'a> {
    dist: &'a dyn JobSize,
    lambda: &'a Float,
    kind: ChainKind,
    metric: Metric,
}

impl ZoomSpace for MpfrZoom<'_> {
    type Point = Float;
    type Cost = Float;
    type Error = PolicyError;
    fn ends(&self) -> (Float, Float) {
        (self.dist.lower(), self.dist.upper())
    }
    fn window(&self, x: &Float, w: f64) -> Vec<Float> {
        let bits = self.dist.prec();
        let (lo, top) = self.ends();
        let y = Float::with_val(bits, x.ln_ref());
        let mut layer = Vec::with_capacity(ZOOM_POINTS + 2);
        for i in 0..=ZOOM_POINTS {
            let t = -w + 2.0 * w * i as f64 / ZOOM_POINTS as f64;
            let p = Float::with_val(bits, &y + t).exp();
            if p > lo && p < top {
                layer.push(p);
            }
        }
        layer.push(x.clone());
        layer
    }
    fn ln_distance(&self, a: &Float, b: &Float) -> f64 {
        Float::with_val(self.dist.prec(), a / b).ln().abs().to_f64()
    }
    fn cmp(&self, a: &Float, b: &Float) -> std::cmp::Ordering {
        a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
    }
    fn min_width(&self) -> f64 {
        ZOOM_MIN_WIDTH
    }
    fn scale(&self, _cur: &[Float]) -> f64 {
        1.0
    }
    fn best_path(
        &mut self,
        points: &[Float],
        layers: &[Layer],
        how: Combine,
    ) -> Result<Option<Path<Float>>, PolicyError> {
        let bits = self.dist.prec();
        let mut t = GridTerms::new(self.dist, self.lambda, self.kind, self.metric, points)?;
        let zero = Float::with_val(bits, 0);
        let inf = Float::with_val(bits, rug::float::Special::Infinity);
        let top = points.len() - 1;
        Ok(layered_dp(layers, top, &zero, &inf, how, &mut t)?.pop())
    }
}

//! Global search of the cutoffs on a grid by dynamic programming.
//!
//! The objective is a chain Σ_i T(s_{i−1}, s_i), so the best placement of h − 1 cutoffs on
//! a grid x_0 = s_0 < x_1 < … < x_N = top is found exactly by dynamic programming in
//! O(h N²) additions: V_i(l) = min_{k<l} V_{i−1}(k) + T(x_k, x_l). Trailing hosts may be
//! left idle (a cutoff at the top), which TAGS at light load can prefer. For minmax the
//! sum becomes a max. Partial moments on the grid come from cumulative sums taken from
//! whichever end loses fewer digits, so the N² table costs O(N) moment evaluations.

use super::chain::{weight_order, ChainKind};
use crate::dist::{DistError, JobSize};
use crate::policy::host_term::{host, HostInputs, KillPoint, Parts};
use crate::policy::{Metric, PolicyError};
use rug::Float;

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
        return Err(PolicyError::BadCutoffs(
            "the support is a single point: every cutoff sends all jobs to one host".into(),
        ));
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
struct Terms<'a> {
    dist: &'a dyn JobSize,
    lambda: Float,
    kind: ChainKind,
    metric: Metric,
    g: &'a [Float],
    c: Cumulative,
    memo: Vec<Vec<Option<Float>>>,
}

impl<'a> Terms<'a> {
    fn new(
        dist: &'a dyn JobSize,
        lambda: &Float,
        kind: ChainKind,
        metric: Metric,
        g: &'a [Float],
    ) -> Result<Self, PolicyError> {
        let jw = weight_order(metric);
        let orders: Vec<i32> = if kind == ChainKind::TagsQueueLength {
            vec![0, 1, 2]
        } else {
            vec![jw, 1, 2]
        };
        let c = Cumulative::new(dist, g, &orders)?;
        let memo = (0..g.len()).map(|l| vec![None; l]).collect();
        Ok(Terms {
            dist,
            lambda: lambda.clone(),
            kind,
            metric,
            g,
            c,
            memo,
        })
    }

    fn t(&mut self, k: usize, l: usize) -> Result<&Float, PolicyError> {
        if self.memo[l][k].is_none() {
            let v = self.compute(k, l)?;
            self.memo[l][k] = Some(v);
        }
        self.memo[l][k]
            .as_ref()
            .ok_or_else(|| PolicyError::BadCutoffs("grid term missing".into()))
    }

    fn compute(&self, k: usize, l: usize) -> Result<Float, PolicyError> {
        let inputs = GridInputs { t: self, k, l };
        Ok(host(self.kind, &self.lambda, &inputs, Parts::Term)?.term())
    }
}

/// The inputs of the host term (x_k, x_l] from the cumulative moments (an infinite one is
/// an infinite metric).
struct GridInputs<'t, 'a> {
    t: &'t Terms<'a>,
    k: usize,
    l: usize,
}

impl GridInputs<'_, '_> {
    fn finite(&self, m: Option<Float>) -> Result<Float, PolicyError> {
        m.ok_or_else(|| infinite(self.t.metric, self.t.dist))
    }

    /// M_j(x_k, x_l).
    fn m(&self, j: i32) -> Result<Float, PolicyError> {
        self.finite(self.t.c.m(j, self.k, self.l, self.t.dist.prec()))
    }

    /// M_j(x_i, top).
    fn above(&self, j: i32, i: usize) -> Result<Float, PolicyError> {
        self.finite(self.t.c.up_c[(j + 1) as usize][i].clone())
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
        self.m(weight_order(self.t.metric))
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Float>>, PolicyError> {
        let (g, l) = (self.t.g, self.l);
        Ok((l < g.len() - 1).then(|| KillPoint {
            b: &g[l],
            tail: self.t.c.tail[l].clone(),
        }))
    }
    fn weight_above_a(&self) -> Result<Float, PolicyError> {
        self.above(weight_order(self.t.metric), self.k)
    }
    fn mass_above_a(&self) -> Result<Float, PolicyError> {
        self.above(0, self.k)
    }
    fn weight_above_b(&self) -> Result<Float, PolicyError> {
        self.above(weight_order(self.t.metric), self.l)
    }
}

fn infinite(metric: Metric, dist: &dyn JobSize) -> PolicyError {
    PolicyError::InfiniteMetric {
        metric: metric.name(),
        source: DistError::InfiniteMoment {
            family: dist.family(),
            j: if metric == Metric::Slowdown { -1 } else { 2 },
            a: "a cutoff".into(),
            b: "the end of the support".into(),
        },
    }
}

/// Exact optimum over the grid by dynamic programming; `minmax` replaces the sum by a max.
/// Returns the best placement for each number u = 1 … h of hosts in use (the others idle
/// at the top), best first: the objective can have a local minimum with all hosts busy and
/// a better one with fewer (TAGS at light load), so the refinement starts from several.
pub fn grid_optima(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    kind: ChainKind,
    metric: Metric,
    g: &[Float],
    minmax: bool,
) -> Result<Vec<GridOptimum>, PolicyError> {
    let bits = dist.prec();
    let n = g.len() - 1;
    let mut t = Terms::new(dist, lambda, kind, metric, g)?;
    let inf = Float::with_val(bits, rug::float::Special::Infinity);
    // v[l]: best cost of hosts 1..i ending at x_l (no idle host yet); arg[i][l]: the
    // previous index. Reaching the top at layer u means u hosts in use.
    let mut v: Vec<Float> = (0..=n)
        .map(|l| {
            if l == 0 {
                Float::with_val(bits, 0)
            } else {
                inf.clone()
            }
        })
        .collect();
    let mut arg: Vec<Vec<usize>> = Vec::with_capacity(hosts);
    let mut tmp = Float::new(bits);
    let mut found: Vec<GridOptimum> = Vec::new();
    for i in 1..=hosts {
        let mut nv: Vec<Float> = vec![inf.clone(); n + 1];
        let mut na = vec![usize::MAX; n + 1];
        let ls: Vec<usize> = if i == hosts {
            vec![n]
        } else {
            (1..=n).collect()
        };
        for l in ls {
            for (k, vk) in v.iter().enumerate().take(l) {
                if k == n || vk.is_infinite() {
                    continue;
                }
                let tkl = t.t(k, l)?;
                if tkl.is_infinite() {
                    continue;
                }
                if minmax {
                    tmp.assign_max(vk, tkl);
                } else {
                    tmp.assign_sum(vk, tkl);
                }
                if tmp < nv[l] {
                    nv[l].clone_from(&tmp);
                    na[l] = k;
                }
            }
        }
        arg.push(na);
        if nv[n].is_finite() {
            // u = i hosts in use: backtrack, then the rest idle at the top.
            let mut idx = vec![n; i + 1];
            for m in (1..=i).rev() {
                idx[m - 1] = arg[m - 1][idx[m]];
            }
            let mut cutoffs: Vec<Float> = idx[1..i].iter().map(|&k| g[k].clone()).collect();
            cutoffs.resize(hosts - 1, g[n].clone());
            found.push(GridOptimum {
                cutoffs,
                value: nv[n].clone(),
            });
        }
        v = nv;
    }
    if found.is_empty() {
        return Err(PolicyError::BadLoad(
            "no cutoffs on the search grid keep every host stable".into(),
        ));
    }
    found.sort_by(|a, b| {
        a.value
            .partial_cmp(&b.value)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(found)
}

/// The best grid placement (see [`grid_optima`]).
pub fn grid_optimum(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    kind: ChainKind,
    metric: Metric,
    g: &[Float],
    minmax: bool,
) -> Result<GridOptimum, PolicyError> {
    let mut all = grid_optima(dist, lambda, hosts, kind, metric, g, minmax)?;
    Ok(all.swap_remove(0))
}

/// The largest gap between consecutive positive finite grid points, in ln s (the first
/// zoom half-width).
pub fn max_ln_gap(g: &[Float]) -> f64 {
    g.windows(2)
        .filter(|w| w[0] > 0 && w[1].is_finite())
        .map(|w| Float::with_val(w[0].prec(), &w[1] / &w[0]).ln().to_f64())
        .fold(0.0, f64::max)
}

/// Points per zoom window (each cutoff's window in ln s).
pub const ZOOM_POINTS: usize = 24;
/// Zoom rounds at most.
pub const ZOOM_ROUNDS: usize = 6;
/// Zooming stops when every window's half-width in ln s is below this.
pub const ZOOM_MIN_WIDTH: f64 = 1e-7;

/// Refines a grid placement of the free cutoffs (u − 1 of them; hosts after u idle) by
/// dynamic programming over windows around each cutoff, shrinking the windows each round.
/// Each round is exact over its windows, so cutoffs that move the objective only slightly
/// are still placed where the chain's terms put them. `width` is the first half-width in
/// ln s.
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
    let bits = dist.prec();
    let lo = dist.lower();
    let top = dist.upper();
    let u = start.len() + 1;
    let mut cur: Vec<Float> = start.to_vec();
    let mut w = width.max(ZOOM_MIN_WIDTH);
    let mut value = Float::with_val(bits, rug::float::Special::Infinity);
    for _round in 0..ZOOM_ROUNDS {
        // Window points, in ln s around each cutoff.
        let mut pts: Vec<Float> = vec![lo.clone(), top.clone()];
        let mut layer_of: Vec<Vec<Float>> = Vec::with_capacity(u - 1);
        for x in &cur {
            let y = Float::with_val(bits, x.ln_ref());
            let mut layer = Vec::with_capacity(ZOOM_POINTS + 1);
            for i in 0..=ZOOM_POINTS {
                let t = -w + 2.0 * w * i as f64 / ZOOM_POINTS as f64;
                let p = Float::with_val(bits, &y + t).exp();
                if p > lo && p < top {
                    layer.push(p);
                }
            }
            layer.push(x.clone());
            pts.extend(layer.iter().cloned());
            layer_of.push(layer);
        }
        pts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        pts.dedup();
        let n = pts.len() - 1;
        let index = |x: &Float| pts.partition_point(|p| p < x);
        let mut layers: Vec<Vec<usize>> = vec![vec![0]];
        for l in &layer_of {
            let mut v: Vec<usize> = l.iter().map(index).collect();
            v.sort_unstable();
            v.dedup();
            layers.push(v);
        }
        layers.push(vec![n]);
        let mut t = Terms::new(dist, lambda, kind, metric, &pts)?;
        let inf = Float::with_val(bits, rug::float::Special::Infinity);
        let mut v: Vec<Float> = vec![Float::with_val(bits, 0)];
        let mut args: Vec<Vec<usize>> = Vec::with_capacity(layers.len());
        let mut tmp = Float::new(bits);
        for m in 1..layers.len() {
            let mut nv = vec![inf.clone(); layers[m].len()];
            let mut na = vec![usize::MAX; layers[m].len()];
            for (a, &l) in layers[m].iter().enumerate() {
                for (b, &k) in layers[m - 1].iter().enumerate() {
                    if k >= l || v[b].is_infinite() {
                        continue;
                    }
                    let tkl = t.t(k, l)?;
                    if tkl.is_infinite() {
                        continue;
                    }
                    if minmax {
                        tmp.assign_max(&v[b], tkl);
                    } else {
                        tmp.assign_sum(&v[b], tkl);
                    }
                    if tmp < nv[a] {
                        nv[a].clone_from(&tmp);
                        na[a] = b;
                    }
                }
            }
            v = nv;
            args.push(na);
        }
        if v[0].is_infinite() {
            break;
        }
        // Backtrack.
        let last = layers.len() - 1;
        let mut pos = 0usize;
        let mut chosen = vec![0usize; layers.len()];
        chosen[last] = n;
        for m in (1..=last).rev() {
            pos = args[m - 1][pos];
            chosen[m - 1] = layers[m - 1][pos];
        }
        let next: Vec<Float> = chosen[1..layers.len() - 1]
            .iter()
            .map(|&k| pts[k].clone())
            .collect();
        // Shrink the windows unless a cutoff sits at the edge of its window.
        let at_edge = next.iter().zip(&cur).any(|(a, b)| {
            let d = Float::with_val(bits, a / b).ln().abs().to_f64();
            d >= 0.999 * w
        });
        cur = next;
        value = v[0].clone();
        if !at_edge {
            w /= ZOOM_POINTS as f64 / 4.0;
        }
        if w < ZOOM_MIN_WIDTH {
            break;
        }
    }
    let mut cutoffs = cur;
    cutoffs.resize(hosts - 1, top);
    Ok(GridOptimum { cutoffs, value })
}

trait AssignOps {
    fn assign_sum(&mut self, a: &Float, b: &Float);
    fn assign_max(&mut self, a: &Float, b: &Float);
}

impl AssignOps for Float {
    fn assign_sum(&mut self, a: &Float, b: &Float) {
        use rug::Assign;
        self.assign(a + b);
    }
    fn assign_max(&mut self, a: &Float, b: &Float) {
        use rug::Assign;
        if a >= b {
            self.assign(a);
        } else {
            self.assign(b);
        }
    }
}

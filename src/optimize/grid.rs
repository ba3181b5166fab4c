//! Global search of the cutoffs on a grid by dynamic programming.
//!
//! The objective is a chain Σ_i T(s_{i−1}, s_i), so the best placement of h − 1 cutoffs on
//! a grid x_0 = s_0 < x_1 < … < x_N = top is found exactly by dynamic programming in
//! O(h N²) additions: V_i(l) = min_{k<l} V_{i−1}(k) + T(x_k, x_l). Trailing hosts may be
//! left idle (a cutoff at the top), which TAGS at light load can prefer. For minmax the
//! sum becomes a max. Partial moments on the grid come from cumulative sums taken from
//! whichever end loses fewer digits, so the N² table costs O(N) moment evaluations.

use super::chain::{pk, weight_order, ChainKind};
use crate::dist::{DistError, JobSize};
use crate::num::root::{expand_upper, solve_increasing};
use crate::num::NumError;
use crate::policy::{Metric, PolicyError};
use rug::Float;

/// Grid points: `GRID_BASE + GRID_PER_HOST · h`, at most `GRID_MAX`.
pub const GRID_BASE: usize = 200;
/// Extra grid points per host.
pub const GRID_PER_HOST: usize = 16;
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
    let mean = dist.mean()?;
    let lo_open = dist.lower_open();
    for i in 1..m {
        let u = level(i);
        let upper_half = u > 0.5;
        let target = if upper_half {
            Float::with_val(bits, 1u32) - &u
        } else {
            u.clone()
        } * &mean;
        let f = |x: &Float| -> Result<Float, NumError> {
            let r = if upper_half {
                dist.partial_moment(1, x, &hi)
                    .map(|v| Float::with_val(bits, &target - &v))
            } else {
                dist.partial_moment(1, &lo_open, x).map(|v| v - &target)
            };
            r.map_err(|e| NumError::NotFinite(e.to_string()))
        };
        let top = if hi.is_finite() {
            hi.clone()
        } else {
            let from = if lo > 0 {
                Float::with_val(bits, &lo * 2u32)
            } else {
                Float::with_val(bits, 1)
            };
            match expand_upper("work quantile", &from, f) {
                Ok(t) => t,
                Err(_) => continue,
            }
        };
        if let Ok(r) = solve_increasing("work quantile", &lo, &top, f) {
            pts.push(r.x);
        }
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
    fn new(dist: &dyn JobSize, g: &[Float]) -> Result<Self, PolicyError> {
        let lo_open = dist.lower_open();
        let top = dist.upper();
        let mut lo_c = vec![Vec::with_capacity(g.len()); 4];
        let mut up_c = vec![Vec::with_capacity(g.len()); 4];
        for (k, x) in g.iter().enumerate() {
            let from = if k == 0 { &lo_open } else { x };
            for j in -1..=2i32 {
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

/// The table of host terms T(x_k, x_l) for k < l (row-major by l), +∞ when unstable.
fn term_table(
    dist: &dyn JobSize,
    lambda: &Float,
    kind: ChainKind,
    metric: Metric,
    g: &[Float],
) -> Result<Vec<Vec<Float>>, PolicyError> {
    let bits = dist.prec();
    let c = Cumulative::new(dist, g)?;
    let n = g.len() - 1;
    let jw = weight_order(metric);
    let inf = Float::with_val(bits, rug::float::Special::Infinity);
    let mut t = Vec::with_capacity(n + 1);
    for l in 0..=n {
        let mut row = Vec::with_capacity(l);
        for k in 0..l {
            let v = match kind {
                ChainKind::Sita => {
                    match (c.m(jw, k, l, bits), c.m(1, k, l, bits), c.m(2, k, l, bits)) {
                        (Some(w), Some(m1), Some(m2)) => {
                            let q = pk(bits, lambda, &m1, &m2);
                            if w.is_zero() {
                                Float::with_val(bits, 0)
                            } else {
                                Float::with_val(bits, &w * &q)
                            }
                        }
                        (_, Some(m1), _) if Float::with_val(bits, lambda * &m1) >= 1 => inf.clone(),
                        _ => return Err(infinite(metric, dist)),
                    }
                }
                ChainKind::Tags | ChainKind::TagsQueueLength => {
                    let free_b = l < n;
                    let bt = if free_b {
                        Float::with_val(bits, &g[l] * &c.tail[l])
                    } else {
                        Float::with_val(bits, 0)
                    };
                    let (Some(m1), Some(m2)) = (c.m(1, k, l, bits), c.m(2, k, l, bits)) else {
                        return Err(infinite(metric, dist));
                    };
                    let n1 = m1 + &bt;
                    // b² F̄(b) only below the top (∞ · 0 would be NaN for unbounded sizes).
                    let n2 = if free_b {
                        m2 + Float::with_val(bits, &g[l] * &bt)
                    } else {
                        m2
                    };
                    let q = pk(bits, lambda, &n1, &n2);
                    let ga = if kind == ChainKind::TagsQueueLength {
                        c.up_c[1][k]
                            .clone()
                            .map(|x| Float::with_val(bits, lambda * &x))
                    } else {
                        c.up_c[(jw + 1) as usize][k].clone()
                    };
                    let Some(ga) = ga else {
                        return Err(infinite(metric, dist));
                    };
                    let mut v = if ga.is_zero() {
                        Float::with_val(bits, 0)
                    } else {
                        Float::with_val(bits, &ga * &q)
                    };
                    if kind == ChainKind::Tags && free_b {
                        let Some(gb) = c.up_c[(jw + 1) as usize][l].clone() else {
                            return Err(infinite(metric, dist));
                        };
                        v += Float::with_val(bits, &g[l] * &gb);
                    }
                    v
                }
            };
            row.push(v);
        }
        t.push(row);
    }
    Ok(t)
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
pub fn grid_optimum(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    kind: ChainKind,
    metric: Metric,
    g: &[Float],
    minmax: bool,
) -> Result<GridOptimum, PolicyError> {
    let bits = dist.prec();
    let n = g.len() - 1;
    let t = term_table(dist, lambda, kind, metric, g)?;
    let inf = Float::with_val(bits, rug::float::Special::Infinity);
    // v[l]: best cost of hosts 1..i ending at x_l; arg[i][l]: the previous index.
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
    for i in 1..=hosts {
        let mut nv: Vec<Float> = vec![inf.clone(); n + 1];
        let mut na = vec![usize::MAX; n + 1];
        // The last host must end at the top; earlier ones may end anywhere (or stay at the
        // top, idle).
        let ls: Vec<usize> = if i == hosts {
            vec![n]
        } else {
            (1..=n).collect()
        };
        for l in ls {
            for k in 0..l {
                if v[k].is_infinite() || t[l][k].is_infinite() {
                    continue;
                }
                if minmax {
                    tmp.assign_max(&v[k], &t[l][k]);
                } else {
                    tmp.assign_sum(&v[k], &t[l][k]);
                }
                if tmp < nv[l] {
                    nv[l].clone_from(&tmp);
                    na[l] = k;
                }
            }
        }
        // Idle host: stays at the top.
        if i > 1 && v[n] < nv[n] {
            nv[n].clone_from(&v[n]);
            na[n] = n;
        }
        v = nv;
        arg.push(na);
    }
    if v[n].is_infinite() {
        return Err(PolicyError::BadLoad(
            "no cutoffs on the search grid keep every host stable".into(),
        ));
    }
    let mut idx = vec![n; hosts + 1];
    for i in (1..=hosts).rev() {
        idx[i - 1] = arg[i - 1][idx[i]];
    }
    let cutoffs = idx[1..hosts].iter().map(|&k| g[k].clone()).collect();
    Ok(GridOptimum {
        cutoffs,
        value: v[n].clone(),
    })
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

//! Local refinement of the cutoffs at full precision: Levenberg–Marquardt-damped Newton
//! in y = ln s on the analytic gradient of the chain, with the (tridiagonal) Hessian taken
//! by forward differences of that gradient (three gradient evaluations, by colouring the
//! cutoffs mod 3). The fixed point is a root of the analytic gradient, so the cutoffs reach
//! the working precision, not its square root.

use super::chain::{Chain, TermGrad};
use crate::num::NumError;
use crate::policy::PolicyError;
use rug::Float;

/// Newton iterations allowed (each costs four gradient evaluations).
pub const POLISH_MAX_ITER: usize = 400;
/// Converged when every step |Δy_i| = |Δ ln s_i| is below 2^−(bits − this).
pub const POLISH_SLACK_BITS: u32 = 12;
/// Below 2^−(bits · this) a step is judged on the gradient norm, not on J, whose change is
/// then under its rounding error.
pub const POLISH_GRADIENT_PHASE: f64 = 0.3;
/// Initial and minimal Levenberg–Marquardt damping, and its growth factor.
pub const LM_MU_START: f64 = 1e-3;
/// Smallest damping (the step is then pure Newton to working precision).
pub const LM_MU_MIN: f64 = 1e-15;
/// Floor of |H_ii| used to scale the damping when a diagonal entry vanishes.
pub const HESSIAN_SCALE_FLOOR: f64 = 1e-300;
/// Largest damping before giving up.
pub const LM_MU_MAX: f64 = 1e30;
/// Factor by which the damping grows after a rejected step and shrinks after an accepted one.
pub const LM_MU_FACTOR: f64 = 10.0;

/// Objective and gradient in y = ln s for the free cutoffs s_1 … s_n (n ≤ h − 1; the rest of
/// the h − 1 cutoffs sit at the top: idle hosts).
fn value_grad(
    chain: &Chain,
    s: &[Float],
    hosts: usize,
    grad: bool,
) -> Result<(Float, Vec<Float>), PolicyError> {
    let (j, g, _) = value_grad_scaled(chain, s, hosts, grad)?;
    Ok((j, g))
}

/// Full cutoff vector s_0, s_1 … s_n, top … top (h + 1 entries).
fn full_vector(chain: &Chain, s: &[Float], hosts: usize) -> Vec<Float> {
    let mut full = Vec::with_capacity(hosts + 1);
    full.push(chain.lo.clone());
    full.extend(s.iter().cloned());
    while full.len() < hosts + 1 {
        full.push(chain.top.clone());
    }
    full
}

/// As [`value_grad`], plus the scale by which each gradient component is normalised in the
/// acceptance and convergence tests (J itself).
fn value_grad_scaled(
    chain: &Chain,
    s: &[Float],
    hosts: usize,
    grad: bool,
) -> Result<(Float, Vec<Float>, Vec<Float>), PolicyError> {
    let bits = chain.dist.prec();
    let n = s.len();
    let full = full_vector(chain, s, hosts);
    let mut j = Float::with_val(bits, 0);
    let mut terms: Vec<TermGrad> = Vec::with_capacity(hosts);
    for i in 1..=hosts {
        let t = if full[i - 1] >= chain.top {
            TermGrad {
                value: Float::with_val(bits, 0),
                da: Float::with_val(bits, 0),
                db: Float::with_val(bits, 0),
            }
        } else {
            chain.term_grad(&full[i - 1], &full[i], grad)?
        };
        j += &t.value;
        terms.push(t);
    }
    let mut g = Vec::with_capacity(n);
    let mut scale = Vec::with_capacity(n);
    if grad {
        for m in 1..=n {
            let d = Float::with_val(bits, &terms[m - 1].db + &terms[m].da);
            g.push(d * &s[m - 1]);
            scale.push(j.clone());
        }
    }
    Ok((j, g, scale))
}

/// max_m |g_m| / J: the gradient in ln s relative to the objective.
fn merit(g: &[Float], scale: &[Float]) -> Float {
    let bits = g.first().map(|x| x.prec()).unwrap_or(64);
    let mut m = Float::with_val(bits, 0);
    for (x, sc) in g.iter().zip(scale) {
        let r = if sc.is_zero() {
            Float::with_val(bits, x.abs_ref())
        } else {
            Float::with_val(bits, x / sc).abs()
        };
        if r > m {
            m = r;
        }
    }
    m
}

/// Bits of the working precision the gradient is assumed to lose to rounding: the polish
/// stops when max_m |∂J/∂ln s_m| / J ≤ 2^−(bits − NOISE_BITS).
pub const NOISE_BITS: u32 = 16;

/// Drops trailing cutoffs whose host does better idle: while T(s_{n−1}, top) ≤
/// T(s_{n−1}, s_n) + T(s_n, top), the last free cutoff goes to the top. The comparison
/// uses only the terms involved, so it is decided even when those hosts' contribution is
/// far below the rounding error of the total (TAGS with α > 1 and huge p leaves the last
/// hosts nearly empty; their optimal cutoffs run to the top of the support).
pub fn trim_idle(chain: &Chain, start: &[Float]) -> Result<Vec<Float>, PolicyError> {
    let mut s = start.to_vec();
    while let Some(last) = s.last().cloned() {
        let a = if s.len() >= 2 {
            s[s.len() - 2].clone()
        } else {
            chain.lo.clone()
        };
        let with_host = chain.term(&a, &last)? + chain.term(&last, &chain.top)?;
        let without = chain.term(&a, &chain.top)?;
        if without <= with_host {
            s.pop();
        } else {
            break;
        }
    }
    Ok(s)
}

/// Sweeps of coordinate descent before Newton, at most.
pub const COORD_MAX_SWEEPS: usize = 60;
/// Coordinate descent stops when no ln-cutoff moved more than this in a sweep.
pub const COORD_TOL: f64 = 1e-6;
/// Smallest half-width (in ln s) of a cutoff's search window after the first sweep.
pub const COORD_MIN_WINDOW: f64 = 1e-4;
/// A cutoff's next window is this many times its last move (at least the minimum).
pub const COORD_WINDOW_GROWTH: f64 = 4.0;

/// Coordinate descent (nonlinear Gauss–Seidel): each cutoff in turn minimises the two host
/// terms that depend on it, by golden-section search in ln s between its neighbours (the
/// whole gap in the first sweep, then a window a few times its last move). Each
/// one-dimensional problem sees only its own terms, so cutoffs whose effect on the total is
/// far below its rounding error (the first cutoffs when p = 1e1000, or the last ones of a
/// light tail) are still placed. Used at the search precision, before Newton.
pub fn coordinate_descent(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
) -> Result<Vec<Float>, PolicyError> {
    let bits = chain.dist.prec();
    let n = start.len();
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let inf = || Float::with_val(bits, rug::float::Special::Infinity);
    let mut window = vec![f64::INFINITY; n];
    for _sweep in 0..COORD_MAX_SWEEPS {
        let mut moved = 0f64;
        for m in 0..n {
            let full = full_vector(chain, &s, hosts);
            let (a, c) = (full[m].clone(), full[m + 2].clone());
            let local = |y: &Float| -> Float {
                let x = Float::with_val(bits, y.exp_ref());
                if !(x > a && (x < c || c.is_infinite())) {
                    return inf();
                }
                match (chain.term(&a, &x), chain.term(&x, &c)) {
                    (Ok(u), Ok(v)) => u + v,
                    _ => inf(),
                }
            };
            let y0 = Float::with_val(bits, s[m].ln_ref());
            // The gap between the neighbours (or 40 e-folds beyond an end at 0 or ∞).
            let ya = if a > 0 {
                Float::with_val(bits, a.ln_ref())
            } else {
                Float::with_val(bits, &y0 - 40u32)
            };
            let yc = if c.is_finite() {
                Float::with_val(bits, c.ln_ref())
            } else {
                Float::with_val(bits, &y0 + 40u32)
            };
            let (ya, yc) = if window[m].is_finite() {
                (
                    ya.max(&Float::with_val(bits, &y0 - window[m])),
                    yc.min(&Float::with_val(bits, &y0 + window[m])),
                )
            } else {
                (ya, yc)
            };
            let (y, v) = crate::dist::golden_max(bits, ya, yc, |y| -local(y));
            let cur = local(&y0);
            let d = if (-v) < cur {
                s[m] = Float::with_val(bits, y.exp_ref());
                Float::with_val(bits, &y - &y0).abs().to_f64()
            } else {
                0.0
            };
            moved = moved.max(d);
            window[m] = (COORD_WINDOW_GROWTH * d).max(COORD_MIN_WINDOW);
        }
        if moved < COORD_TOL {
            break;
        }
    }
    Ok(s)
}

fn exp_all(y: &[Float]) -> Vec<Float> {
    y.iter()
        .map(|v| Float::with_val(v.prec(), v.exp_ref()))
        .collect()
}

fn feasible(chain: &Chain, s: &[Float]) -> bool {
    s.iter()
        .all(|x| x.is_finite() && *x > chain.lo && *x < chain.top)
        && s.windows(2).all(|w| w[0] < w[1])
}

/// Solves the symmetric tridiagonal system (diag d, off-diagonal e) · x = r; None if a
/// pivot is not positive (matrix not positive definite).
fn solve_tridiag(d: &[Float], e: &[Float], r: &[Float]) -> Option<Vec<Float>> {
    let n = d.len();
    if n == 0 {
        return Some(vec![]);
    }
    let bits = d[0].prec();
    let mut c = vec![Float::with_val(bits, 0); n];
    let mut z = vec![Float::with_val(bits, 0); n];
    let mut piv = d[0].clone();
    if piv <= 0 {
        return None;
    }
    z[0] = Float::with_val(bits, &r[0] / &piv);
    for i in 1..n {
        c[i - 1] = Float::with_val(bits, &e[i - 1] / &piv);
        piv = Float::with_val(bits, &d[i] - Float::with_val(bits, &c[i - 1] * &e[i - 1]));
        if piv <= 0 {
            return None;
        }
        z[i] = Float::with_val(bits, &r[i] - Float::with_val(bits, &e[i - 1] * &z[i - 1])) / &piv;
    }
    for i in (0..n - 1).rev() {
        let t = Float::with_val(bits, &c[i] * &z[i + 1]);
        z[i] -= t;
    }
    Some(z)
}

fn norm_inf(v: &[Float]) -> Float {
    let bits = v.first().map(|x| x.prec()).unwrap_or(64);
    let mut m = Float::with_val(bits, 0);
    for x in v {
        let a = Float::with_val(bits, x.abs_ref());
        if a > m {
            m = a;
        }
    }
    m
}

/// Result of a polish.
#[derive(Debug, Clone)]
pub struct Polished {
    /// The cutoffs (free ones; idle ones are not included).
    pub cutoffs: Vec<Float>,
    /// The objective there.
    pub value: Float,
    /// Newton iterations used.
    pub iterations: usize,
}

/// Refines `start` (free cutoffs, increasing, inside the support) to a stationary point of
/// the chain objective at the chain's precision.
pub fn polish(chain: &Chain, hosts: usize, start: &[Float]) -> Result<Polished, PolicyError> {
    let bits = chain.dist.prec();
    let n = start.len();
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let (mut j, mut g, mut sc) = value_grad_scaled(chain, &s, hosts, true)?;
    if n == 0 {
        return Ok(Polished {
            cutoffs: s,
            value: j,
            iterations: 0,
        });
    }
    if !j.is_finite() {
        return Err(PolicyError::BadLoad(
            "the starting cutoffs of the polish are unstable".into(),
        ));
    }
    let mut y: Vec<Float> = s
        .iter()
        .map(|x| Float::with_val(bits, x.ln_ref()))
        .collect();
    let tol = Float::with_val(bits, 1u32) >> (bits.saturating_sub(POLISH_SLACK_BITS));
    let grad_phase =
        Float::with_val(bits, 1u32) >> ((f64::from(bits) * POLISH_GRADIENT_PHASE) as u32);
    let delta = Float::with_val(bits, 1u32) >> (bits / 2);
    let floor = Float::with_val(bits, 1u32) >> bits.saturating_sub(NOISE_BITS);
    let mut mu = LM_MU_START;
    for it in 1..=POLISH_MAX_ITER {
        // Tridiagonal Hessian by forward differences, columns coloured mod 3.
        let mut d = vec![Float::with_val(bits, 0); n];
        let mut e = vec![Float::with_val(bits, 0); n.saturating_sub(1)];
        let mut e2 = vec![Float::with_val(bits, 0); n.saturating_sub(1)];
        for colour in 0..3 {
            let yp: Vec<Float> = y
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if i % 3 == colour {
                        Float::with_val(bits, v + &delta)
                    } else {
                        v.clone()
                    }
                })
                .collect();
            let sp = exp_all(&yp);
            if !feasible(chain, &sp) {
                continue;
            }
            let (_, gp) = value_grad(chain, &sp, hosts, true)?;
            for i in 0..n {
                let col = Float::with_val(bits, &gp[i] - &g[i]) / &delta;
                if i % 3 == colour {
                    d[i] = col;
                } else if i + 1 < n && (i + 1) % 3 == colour {
                    e[i] = col;
                } else if i >= 1 && (i - 1) % 3 == colour {
                    e2[i - 1] = col;
                }
            }
        }
        for i in 0..e.len() {
            e[i] = Float::with_val(bits, &e[i] + &e2[i]) / 2u32;
        }
        let gnorm = merit(&g, &sc);
        if gnorm <= floor {
            // ∂J/∂ln s_m is below J's own rounding for every m: the value is as precise as
            // this precision allows, and cutoffs that move J by less are not determined
            // further (the two-precision certification shows how many digits they have).
            return Ok(Polished {
                cutoffs: s,
                value: j,
                iterations: it - 1,
            });
        }
        let rhs: Vec<Float> = g.iter().map(|x| -Float::with_val(bits, x)).collect();
        // A trial step: Ok(Some(..)) if feasible and stable there.
        type Trial = (Vec<Float>, Vec<Float>, Float, Vec<Float>, Vec<Float>, Float);
        let try_step = |step: &[Float]| -> Result<Option<Trial>, PolicyError> {
            let yn: Vec<Float> = y
                .iter()
                .zip(step)
                .map(|(a, b)| Float::with_val(bits, a + b))
                .collect();
            let sn = exp_all(&yn);
            if !feasible(chain, &sn) {
                return Ok(None);
            }
            let (jn, gn, scn) = value_grad_scaled(chain, &sn, hosts, true)?;
            if !jn.is_finite() {
                return Ok(None);
            }
            Ok(Some((yn, sn, jn, gn, scn, norm_inf(step))))
        };
        // 1. The plain Newton step, accepted if it lowers the normalised gradient: near
        //    the optimum this converges quadratically even where J cannot resolve it.
        let mut taken: Option<Trial> = None;
        if let Some(step) = solve_tridiag(&d, &e, &rhs) {
            if let Some(t) = try_step(&step)? {
                // J may not rise beyond its rounding: merit alone could lead uphill to a
                // saddle or another stationary point.
                let j_cap = Float::with_val(bits, &j + Float::with_val(bits, j.abs_ref()) * &floor);
                if t.2 <= j_cap && (merit(&t.3, &t.4) < gnorm || t.5 <= tol) {
                    taken = Some(t);
                }
            }
        }
        // 2. Otherwise Levenberg–Marquardt steps, damped until J decreases.
        if taken.is_none() {
            loop {
                // Damping scaled per row by max(|H_ii|, Σ_j |H_ij| off the diagonal): for
                // μ ≥ 2 the damped matrix is diagonally dominant, hence positive definite.
                let dd: Vec<Float> = (0..n)
                    .map(|i| {
                        let mut off = Float::with_val(bits, 0);
                        if i > 0 {
                            off += Float::with_val(bits, e[i - 1].abs_ref());
                        }
                        if i + 1 < n {
                            off += Float::with_val(bits, e[i].abs_ref());
                        }
                        let scale = Float::with_val(bits, d[i].abs_ref())
                            .max(&off)
                            .max(&Float::with_val(bits, HESSIAN_SCALE_FLOOR));
                        Float::with_val(bits, &d[i] + Float::with_val(bits, &scale * mu))
                    })
                    .collect();
                if let Some(step) = solve_tridiag(&dd, &e, &rhs) {
                    let size = norm_inf(&step);
                    if let Some(t) = try_step(&step)? {
                        let j_cap =
                            Float::with_val(bits, &j + Float::with_val(bits, j.abs_ref()) * &floor);
                        if t.2 < j
                            || (size < grad_phase && t.2 <= j_cap && merit(&t.3, &t.4) < gnorm)
                        {
                            mu = (mu / LM_MU_FACTOR).max(LM_MU_MIN);
                            taken = Some(t);
                            break;
                        }
                    }
                    if size <= tol {
                        // Steps at the rounding level no longer improve anything.
                        return Ok(Polished {
                            cutoffs: s,
                            value: j,
                            iterations: it,
                        });
                    }
                }
                mu *= LM_MU_FACTOR;
                if mu > LM_MU_MAX {
                    return Err(no_convergence(it, &s));
                }
            }
        }
        if let Some((yn, sn, jn, gn, scn, size)) = taken {
            y = yn;
            s = sn;
            j = jn;
            g = gn;
            sc = scn;
            if size <= tol {
                return Ok(Polished {
                    cutoffs: s,
                    value: j,
                    iterations: it,
                });
            }
        }
    }
    Err(no_convergence(POLISH_MAX_ITER, &s))
}

fn no_convergence(iterations: usize, s: &[Float]) -> PolicyError {
    let lo = s.first().map(crate::num::show).unwrap_or_default();
    let hi = s.last().map(crate::num::show).unwrap_or_default();
    PolicyError::Num(NumError::NoConvergence {
        what: "cutoff polish (damped Newton)".into(),
        iterations,
        lo,
        hi,
    })
}

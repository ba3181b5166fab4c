//! Local refinement of the cutoffs at full precision: Levenberg–Marquardt-damped Newton
//! in y = ln s on the analytic gradient of the chain, with the (tridiagonal) Hessian taken
//! by forward differences of that gradient (three gradient evaluations, by colouring the
//! cutoffs mod 3). The fixed point is a root of the analytic gradient, so the cutoffs reach
//! the working precision, not its square root.

use super::chain::{Chain, TermGrad};
use crate::dist::Point;
use crate::num::root::solve_increasing;
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
/// How many times a step that crosses a stability boundary is halved before it is given up.
pub const BOUNDARY_HALVINGS: usize = 200;
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
    let (j, g, _, _) = value_grad_scaled(chain, s, hosts, grad)?;
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

/// J, its gradient in ln s, the host terms, and the merit: max_m |∂J/∂ln s_m| / scale_m,
/// with scale_m the larger of |J| and (|∂T_m/∂s_m| + |∂T_{m+1}/∂s_m|)·s_m. The second
/// scale is what the rounding of the two pieces that cancel in ∂J/∂s_m is relative to: at
/// many hosts a component can be pure rounding noise far above J's own rounding, and
/// Newton cannot reduce it further.
type ValueGrad = (Float, Vec<Float>, Vec<Float>, Float);

fn value_grad_scaled(
    chain: &Chain,
    s: &[Float],
    hosts: usize,
    grad: bool,
) -> Result<ValueGrad, PolicyError> {
    let bits = chain.dist.prec();
    let n = s.len();
    let full = full_vector(chain, s, hosts);
    // Each cutoff's shared values once; s_0 only ever starts host 1's interval.
    let points: Vec<Point> = full
        .iter()
        .enumerate()
        .map(|(i, x)| {
            if i == 0 {
                chain.left_point(x)
            } else {
                chain.point(x)
            }
        })
        .collect();
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
            chain.term_grad(&points[i - 1], &points[i], grad)?
        };
        j += &t.value;
        terms.push(t);
    }
    let mut g = Vec::with_capacity(n);
    let mut mrt = Float::with_val(bits, 0);
    if grad {
        let ja = Float::with_val(bits, j.abs_ref());
        for m in 1..=n {
            let d = Float::with_val(bits, &terms[m - 1].db + &terms[m].da);
            let gm = d * &s[m - 1];
            let pieces = Float::with_val(bits, terms[m - 1].db.abs_ref())
                + Float::with_val(bits, terms[m].da.abs_ref());
            let scale = Float::with_val(bits, &pieces * &s[m - 1]).max(&ja);
            let r = if scale.is_zero() {
                Float::with_val(bits, gm.abs_ref())
            } else {
                Float::with_val(bits, &gm / &scale).abs()
            };
            if r > mrt {
                mrt = r;
            }
            g.push(gm);
        }
    }
    Ok((j, g, terms.into_iter().map(|t| t.value).collect(), mrt))
}

/// J(new) − J(old) summed term by term: each host's change is computed to its own
/// relative precision, so a step that moves only small terms is still seen when J itself
/// (dominated by the largest terms) cannot resolve it.
fn delta_j(new: &[Float], old: &[Float]) -> Float {
    let bits = new.first().map(|x| x.prec()).unwrap_or(64);
    let mut d = Float::with_val(bits, 0);
    for (a, b) in new.iter().zip(old) {
        d += Float::with_val(bits, a - b);
    }
    d
}

/// Bits of the working precision the gradient is assumed to lose to rounding: the polish
/// stops when max_m |∂J/∂ln s_m| / J ≤ 2^−(bits − NOISE_BITS).
pub const NOISE_BITS: u32 = 16;

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
    /// Whether the stopping test was met (false only from [`refine`]).
    pub converged: bool,
    /// The last finite-difference Hessian of J in ln s (Newton only): a start for the
    /// polish at a higher precision.
    pub hessian: Option<Hessian>,
    /// Per free cutoff, the relative precision to which the optimum determines it:
    /// 2^−(bits − NOISE_BITS) |J| / |∂²J/∂(ln s_i)²| (the stopping test treats a gradient
    /// below J's rounding as zero, so the root is known only to that over the curvature);
    /// +∞ where the curvature is not positive. Empty if unknown (bracketed roots).
    pub resolution: Vec<f64>,
}

/// A symmetric tridiagonal Hessian of J in y = ln s: diagonal `d`, off-diagonal `e`.
#[derive(Debug, Clone)]
pub struct Hessian {
    /// Diagonal.
    pub d: Vec<Float>,
    /// Off-diagonal (length n − 1).
    pub e: Vec<Float>,
}

/// Refines `start` (free cutoffs, increasing, inside the support) to a stationary point of
/// the chain objective at the chain's precision.
pub fn polish(chain: &Chain, hosts: usize, start: &[Float]) -> Result<Polished, PolicyError> {
    polish_with_limit(chain, hosts, start, POLISH_MAX_ITER)
}

/// Sweeps of [`coordinate_roots`] at most.
pub const ROOT_SWEEPS: usize = 60;

/// The fallback when Newton fails: nonlinear Gauss–Seidel on the gradient. Each cutoff in
/// turn is moved to the root of its own gradient component ∂J/∂s_m (its neighbours fixed),
/// found by the bracketing root finder; an unstable point counts as a positive gradient
/// (J → +∞ there). A bracketed root reaches full precision even when the optimum sits
/// within 1e-25 of a host's stability boundary, where Newton's quadratic model fails.
/// Converged when no cutoff moves by more than 2^−(bits − POLISH_SLACK_BITS) relative.
pub fn coordinate_roots(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
) -> Result<Polished, PolicyError> {
    let bits = chain.dist.prec();
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let n = s.len();
    let tol = Float::with_val(bits, 1u32) >> bits.saturating_sub(POLISH_SLACK_BITS);
    for sweep in 1..=ROOT_SWEEPS {
        let mut moved = Float::with_val(bits, 0);
        for m in 0..n {
            let full = full_vector(chain, &s, hosts);
            let (a, c) = (full[m].clone(), full[m + 2].clone());
            let (pa, pc) = (chain.left_point(&a), chain.point(&c));
            // ∂(T_m + T_{m+1})/∂s_m at x, +1 where a host is unstable.
            let grad = |x: &Float| -> Result<Float, PolicyError> {
                let px = chain.point(x);
                let left = chain.term_grad(&pa, &px, true)?;
                let right = chain.term_grad(&px, &pc, true)?;
                if !left.value.is_finite() || !right.value.is_finite() {
                    return Ok(Float::with_val(bits, 1));
                }
                Ok(Float::with_val(bits, &left.db + &right.da))
            };
            // Bracket: move geometrically from s_m towards the side the gradient points to.
            let g0 = grad(&s[m])?;
            if g0.is_zero() {
                continue;
            }
            let toward_hi = g0 < 0;
            let mut lo = s[m].clone();
            let mut hi = s[m].clone();
            let mut found = false;
            for k in 1..=crate::num::root::EXPAND_LIMIT.min(4 * bits as usize) {
                // Halve the distance to the neighbour each step (or double towards ∞).
                let next = if toward_hi {
                    if c.is_infinite() {
                        Float::with_val(bits, &hi * 2u32)
                    } else {
                        Float::with_val(bits, &hi + &c) / 2u32
                    }
                } else {
                    Float::with_val(bits, &lo + &a) / 2u32
                };
                if next <= a || (c.is_finite() && next >= c) || next == hi || next == lo {
                    break;
                }
                let gn = grad(&next)?;
                if toward_hi {
                    lo = hi.clone();
                    hi = next;
                    if gn >= 0 {
                        found = true;
                        break;
                    }
                } else {
                    hi = lo.clone();
                    lo = next;
                    if gn <= 0 {
                        found = true;
                        break;
                    }
                }
                let _ = k;
            }
            if !found {
                continue;
            }
            let r = solve_increasing(
                &format!("gradient root of cutoff {}", m + 1),
                &lo,
                &hi,
                grad,
            )?;
            let rel = Float::with_val(bits, &r.x - &s[m]).abs() / &s[m];
            if rel > moved {
                moved = rel;
            }
            s[m] = r.x;
        }
        if moved <= tol {
            let (j, _) = value_grad(chain, &s, hosts, false)?;
            return Ok(Polished {
                cutoffs: s,
                value: j,
                iterations: sweep,
                converged: true,
                hessian: None,
                resolution: Vec::new(),
            });
        }
    }
    Err(no_convergence(ROOT_SWEEPS, &s))
}

/// A step shorter than 2^−(bits/2) that leaves the merit above this fraction of its
/// previous value counts as a stall; [`STALL_ITER`] stalls in a row end the polish.
pub const STALL_RATIO: f64 = 0.5;
/// See [`STALL_RATIO`].
pub const STALL_ITER: usize = 3;

/// A Newton step that lowers the merit by less than this factor counts as slow progress,
/// and longer steps along it are tried.
pub const SLOW_RATIO: f64 = 0.1;
/// At most this many doublings of a slow Newton step.
pub const EXTRAPOLATE_MAX: usize = 12;

/// Largest step |Δ ln s| whose secant is used as the Hessian of one cutoff (see
/// `newton_inner`): near the optimum; farther out the difference is taken afresh.
pub const SECANT_MAX_STEP: f64 = 1e-3;

/// Newton iterations of the search-precision refinement, which only needs a good start.
pub const SEARCH_POLISH_ITER: usize = 40;

/// [`polish`] with an iteration limit.
pub fn polish_with_limit(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    max_iter: usize,
) -> Result<Polished, PolicyError> {
    polish_with_hint(chain, hosts, start, max_iter, None)
}

/// [`polish_with_limit`] whose first Newton step uses `hint` (the Hessian of a polish at a
/// lower precision, from the same start) instead of differencing the gradient: from a
/// start accurate to b₀ bits, one step with a Hessian accurate to about b₀/2 bits lands
/// within 2^−1.5b₀, so a polish at 1.25 b₀ bits then only has to confirm convergence. The
/// fixed point is still the root of this precision's gradient.
pub fn polish_with_hint(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    max_iter: usize,
    hint: Option<&Hessian>,
) -> Result<Polished, PolicyError> {
    let p = newton(chain, hosts, start, max_iter, hint)?;
    if p.converged {
        Ok(p)
    } else {
        Err(no_convergence(p.iterations, &p.cutoffs))
    }
}

/// A bounded refinement for the search stage: the point reached after at most `max_iter`
/// iterations, converged or not (only a starting point is needed there).
pub fn refine(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    max_iter: usize,
) -> Result<Polished, PolicyError> {
    newton(chain, hosts, start, max_iter, None)
}

/// The damped Newton iteration; `converged` says whether its stopping test was met. The
/// result carries the last Hessian and the per-cutoff resolution it implies.
fn newton(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    max_iter: usize,
    hint: Option<&Hessian>,
) -> Result<Polished, PolicyError> {
    let mut last: Option<Hessian> = None;
    let mut last_g: Vec<Float> = Vec::new();
    let mut p = newton_inner(chain, hosts, start, max_iter, hint, &mut last, &mut last_g)?;
    let bits = chain.dist.prec();
    if let Some(h) = &last {
        let floor = Float::with_val(bits, p.value.abs_ref()) >> bits.saturating_sub(NOISE_BITS);
        // The distance to the root is about max(rounding floor, |g_i|) / H_ii.
        p.resolution =
            h.d.iter()
                .enumerate()
                .map(|(i, dii)| {
                    let gi = last_g
                        .get(i)
                        .map(|x| Float::with_val(bits, x.abs_ref()))
                        .unwrap_or_else(|| Float::with_val(bits, 0));
                    if *dii > 0 {
                        Float::with_val(bits, floor.clone().max(&gi) / dii).to_f64()
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
    }
    p.hessian = last;
    Ok(p)
}

fn newton_inner(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    max_iter: usize,
    hint: Option<&Hessian>,
    last: &mut Option<Hessian>,
    last_g: &mut Vec<Float>,
) -> Result<Polished, PolicyError> {
    let bits = chain.dist.prec();
    let n = start.len();
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let (mut j, mut g, mut sc, mut mrt) = value_grad_scaled(chain, &s, hosts, true)?;
    if n == 0 {
        return Ok(Polished {
            cutoffs: s,
            value: j,
            iterations: 0,
            converged: true,
            hessian: None,
            resolution: Vec::new(),
        });
    }
    if !j.is_finite() {
        return Err(PolicyError::Solver {
            what: "cutoff polish".into(),
            detail: "its starting cutoffs leave a host unstable at this precision".into(),
            hint: crate::policy::HINT_MORE_DIGITS,
        });
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
    let mut stalls = 0usize;
    let stall_step = Float::with_val(bits, 1u32) >> (bits / 2);
    // (y_1, ∂J/∂y_1) before the last step taken (for the one-cutoff secant).
    let mut prev: Option<(Float, Float)> = None;
    last_g.clone_from(&g);
    for it in 1..=max_iter {
        let gnorm = mrt.clone();
        if gnorm <= floor {
            // ∂J/∂ln s_m is below J's own rounding for every m: the value is as precise as
            // this precision allows, and cutoffs that move J by less are not determined
            // further (the two-precision certification shows how many digits they have).
            return Ok(Polished {
                cutoffs: s,
                value: j,
                iterations: it - 1,
                converged: true,
                hessian: None,
                resolution: Vec::new(),
            });
        }
        // Tridiagonal Hessian by forward differences, columns coloured mod 3 (a colour
        // with no cutoff, n < 3, costs nothing).
        let mut d = vec![Float::with_val(bits, 0); n];
        let mut e = vec![Float::with_val(bits, 0); n.saturating_sub(1)];
        let mut e2 = vec![Float::with_val(bits, 0); n.saturating_sub(1)];
        // With one cutoff, the secant of the last step replaces the difference when that
        // step was short but above the difference step (it is then as accurate, and free):
        // Newton becomes the secant method, of order 1.6, with one gradient per iteration.
        let secant = match &prev {
            Some((yp, gp)) if n == 1 => {
                let dy = Float::with_val(bits, &y[0] - yp);
                let size = Float::with_val(bits, dy.abs_ref());
                let h = Float::with_val(bits, &g[0] - gp) / &dy;
                (size >= delta && size <= SECANT_MAX_STEP && h > 0 && h.is_finite()).then_some(h)
            }
            _ => None,
        };
        let hinted = match (hint, secant) {
            (_, Some(h)) => {
                d[0] = h;
                true
            }
            (Some(h), None) if it == 1 && h.d.len() == n && h.e.len() == e.len() => {
                for (x, v) in d.iter_mut().zip(&h.d) {
                    *x = Float::with_val(bits, v);
                }
                for (x, v) in e2.iter_mut().zip(&h.e) {
                    *x = Float::with_val(bits, v);
                }
                e.clone_from(&e2);
                true
            }
            _ => false,
        };
        for colour in 0..if hinted { 0 } else { 3.min(n) } {
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
        *last = Some(Hessian {
            d: d.clone(),
            e: e.clone(),
        });
        let mut rhs: Vec<Float> = g.iter().map(|x| -Float::with_val(bits, x)).collect();
        // Cutoffs whose gradient is already below J's rounding are frozen for this step:
        // J cannot see them, and their (possibly huge) Newton steps would only force
        // damping on the others.
        let jfloor = Float::with_val(bits, j.abs_ref()) * &floor;
        for i in 0..n {
            if Float::with_val(bits, g[i].abs_ref()) <= jfloor {
                d[i] = Float::with_val(bits, 1);
                rhs[i] = Float::with_val(bits, 0);
                if i > 0 {
                    e[i - 1] = Float::with_val(bits, 0);
                }
                if i < e.len() {
                    e[i] = Float::with_val(bits, 0);
                }
            }
        }
        // A trial step: Ok(Some(..)) if feasible and stable there.
        // (y, s, J, gradient, host terms, step size)
        type Trial = (
            Vec<Float>,
            Vec<Float>,
            Float,
            Vec<Float>,
            Vec<Float>,
            Float,
            Float,
        );
        // A trial step, shortened by halves while it leaves the support or makes a host
        // unstable: optima can sit within 1e-50 of a host's stability boundary (a huge
        // last-host term pushes the cutoff against it), and halving reaches them
        // geometrically. Ok(None) if no shortened step is admissible.
        let try_step = |step: &[Float]| -> Result<Option<Trial>, PolicyError> {
            let mut step: Vec<Float> = step.to_vec();
            for _ in 0..=BOUNDARY_HALVINGS {
                let yn: Vec<Float> = y
                    .iter()
                    .zip(&step)
                    .map(|(a, b)| Float::with_val(bits, a + b))
                    .collect();
                let sn = exp_all(&yn);
                if feasible(chain, &sn) {
                    let (jn, gn, scn, mn) = value_grad_scaled(chain, &sn, hosts, true)?;
                    if jn.is_finite() {
                        let size = norm_inf(&step);
                        return Ok(Some((yn, sn, jn, gn, scn, size, mn)));
                    }
                }
                for x in step.iter_mut() {
                    *x /= 2u32;
                }
            }
            Ok(None)
        };
        // 1. The plain Newton step, accepted if it lowers the normalised gradient: near
        //    the optimum this converges quadratically even where J cannot resolve it.
        let mut taken: Option<Trial> = None;
        if let Some(step) = solve_tridiag(&d, &e, &rhs) {
            if let Some(t) = try_step(&step)? {
                // J may not rise beyond its rounding: merit alone could lead uphill to a
                // saddle or another stationary point.
                let j_cap = Float::with_val(bits, j.abs_ref()) * &floor;
                let dj = delta_j(&t.4, &sc);
                let mt = t.6.clone();
                if dj <= j_cap && (mt < gnorm || t.5 <= tol) {
                    // Slow progress (the merit falls by less than SLOW_RATIO) means a
                    // direction in which J flattens exponentially, where each Newton step
                    // has the same length: try longer steps along it while J does not rise
                    // and the merit keeps falling.
                    let slow = Float::with_val(bits, &gnorm * SLOW_RATIO);
                    let mut best = t;
                    let mut best_merit = mt;
                    if best_merit > slow && best.5 > tol {
                        let mut longer = step.clone();
                        for _ in 0..EXTRAPOLATE_MAX {
                            for x in longer.iter_mut() {
                                *x *= 2u32;
                            }
                            let Some(t2) = try_step(&longer)? else { break };
                            let m2 = t2.6.clone();
                            if delta_j(&t2.4, &best.4) <= j_cap && m2 < best_merit {
                                best = t2;
                                best_merit = m2;
                            } else {
                                break;
                            }
                        }
                    }
                    taken = Some(best);
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
                        let j_cap = Float::with_val(bits, j.abs_ref()) * &floor;
                        let dj = delta_j(&t.4, &sc);
                        if dj < 0 || (size < grad_phase && dj <= j_cap && t.6 < gnorm) {
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
                            converged: true,
                            hessian: None,
                            resolution: Vec::new(),
                        });
                    }
                }
                mu *= LM_MU_FACTOR;
                if mu > LM_MU_MAX {
                    return Ok(Polished {
                        cutoffs: s,
                        value: j,
                        iterations: it,
                        converged: false,
                        hessian: None,
                        resolution: Vec::new(),
                    });
                }
            }
        }
        if let Some((yn, sn, jn, gn, scn, size, mn)) = taken {
            // Stagnation at the gradient's rounding: tiny steps that no longer lower the
            // merit (the gradient's noise is above the floor assumed, e.g. many hosts with
            // terms of very different sizes). The resolution then uses the gradient reached.
            if size < stall_step && mn >= Float::with_val(bits, &mrt * STALL_RATIO) {
                stalls += 1;
            } else {
                stalls = 0;
            }
            prev = Some((y[0].clone(), g[0].clone()));
            y = yn;
            s = sn;
            j = jn;
            g = gn;
            sc = scn;
            mrt = mn;
            last_g.clone_from(&g);
            if size <= tol || stalls >= STALL_ITER {
                return Ok(Polished {
                    cutoffs: s,
                    value: j,
                    iterations: it,
                    converged: true,
                    hessian: None,
                    resolution: Vec::new(),
                });
            }
        }
    }
    Ok(Polished {
        cutoffs: s,
        value: j,
        iterations: max_iter,
        converged: false,
        hessian: None,
        resolution: Vec::new(),
    })
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

//! Local refinement of the cutoffs at full precision: Levenberg–Marquardt-damped Newton
//! in y = ln s on the analytic gradient of the chain, with the (tridiagonal) Hessian taken
//! by forward differences of that gradient (three gradient evaluations, by colouring the
//! cutoffs mod 3). The fixed point is a root of the analytic gradient, so the cutoffs reach
//! the working precision, not its square root.

//!
//! [`newton`] is the iteration, [`coordinate`] the bracketed fallback for optima pinned
//! against a stability boundary, [`tridiag`] the linear solve.

pub mod coordinate;
pub mod edge;
pub mod newton;
pub mod tridiag;

pub use coordinate::{coordinate_roots, coordinate_roots_of, coordinate_roots_within};
pub use edge::{edge_fill, stabilised, Run as EdgeRun};

use super::chain::{Chain, TermGrad};
use crate::dist::Point;
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
    /// How the iteration stopped (not converged only from [`refine`]).
    pub termination: Termination,
    /// The last finite-difference Hessian of J in ln s (Newton only): a start for the
    /// polish at a higher precision.
    pub hessian: Option<Hessian>,
    /// Per free cutoff, the relative precision to which the optimum determines it:
    /// 2^−(bits − NOISE_BITS) |J| / |∂²J/∂(ln s_i)²| (the stopping test treats a gradient
    /// below J's rounding as zero, so the root is known only to that over the curvature);
    /// +∞ where the curvature is not positive. Empty if unknown (bracketed roots).
    pub resolution: Vec<f64>,
}

impl Polished {
    /// Whether the stopping test was met.
    pub fn converged(&self) -> bool {
        self.termination.converged()
    }
}

/// How a polish stopped (argmin's `TerminationReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// No free cutoff: nothing to polish.
    NothingToDo,
    /// Every gradient component is below J's rounding.
    GradientAtRounding,
    /// A step below 2^−(bits − [`POLISH_SLACK_BITS`]) in ln s.
    StepBelowTolerance,
    /// [`STALL_ITER`] tiny steps in a row that no longer lowered the merit (the
    /// gradient's rounding noise is reached).
    Stalled,
    /// Damped steps shrank to the rounding level without improving.
    DampedStepAtRounding,
    /// No cutoff moved by more than the tolerance in a sweep of [`coordinate_roots`].
    CoordinatesSettled,
    /// The iteration limit (not converged).
    MaxIterations,
    /// The damping grew beyond [`LM_MU_MAX`] (not converged).
    DampingExhausted,
}

impl Termination {
    /// Whether the stopping test was met.
    pub fn converged(self) -> bool {
        !matches!(
            self,
            Termination::MaxIterations | Termination::DampingExhausted
        )
    }
}

/// A symmetric tridiagonal Hessian of J in y = ln s: diagonal `d`, off-diagonal `e`.
#[derive(Debug, Clone)]
pub struct Hessian {
    /// Diagonal.
    pub d: Vec<Float>,
    /// Off-diagonal (length n − 1).
    pub e: Vec<Float>,
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
/// [`newton`]): near the optimum; farther out the difference is taken afresh.
pub const SECANT_MAX_STEP: f64 = 1e-3;

/// Newton iterations of the search-precision refinement, which only needs a good start.
pub const SEARCH_POLISH_ITER: usize = 40;

/// Refines `start` (free cutoffs, increasing, inside the support) to a stationary point of
/// the chain objective at the chain's precision, in at most `max_iter` Newton iterations;
/// the first step uses `hint` (the Hessian of a polish at a
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
    if p.converged() {
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

/// The damped Newton iteration ([`newton::newton_inner`]); its `termination` says how it stopped. The
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
    let mut p = newton::newton_inner(chain, hosts, start, max_iter, hint, &mut last, &mut last_g)?;
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

fn no_convergence(iterations: usize, s: &[Float]) -> PolicyError {
    let lo = s
        .first()
        .map(crate::num::message_number)
        .unwrap_or_default();
    let hi = s.last().map(crate::num::message_number).unwrap_or_default();
    PolicyError::Num(NumError::NoConvergence {
        what: "cutoff polish (damped Newton)".into(),
        iterations,
        lo,
        hi,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::{DistFactory, DistSpec};
    use crate::optimize::chain::ChainKind;
    use crate::policy::{LoadSpec, Metric};

    /// How the polish stops. Source of the expected cutoff: SITA with BP(1, 1e10, 1) and
    /// two hosts has its optimum at s* = √(kp) = 1e5 (the closed form of
    /// tests/optimize.rs); tolerance 1e-30 relative at 128 bits.
    #[test]
    fn termination_says_how_the_polish_stopped() {
        let bits = 128;
        let d = DistSpec::parse("bp:k=1,p=1e10,alpha=1")
            .and_then(|s| s.build(bits))
            .unwrap();
        let (lambda, _) = LoadSpec::Total("0.5".into())
            .resolve(d.as_ref(), 2)
            .unwrap();
        let ch = Chain::new(d.as_ref(), lambda, ChainKind::Sita, Metric::Waiting);
        let start = [Float::with_val(bits, 1e3)];
        let one = refine(&ch, 2, &start, 1).unwrap();
        assert_eq!(one.termination, Termination::MaxIterations);
        assert!(!one.converged());
        let p = polish_with_hint(&ch, 2, &start, POLISH_MAX_ITER, None).unwrap();
        assert!(p.converged(), "{:?}", p.termination);
        let rel = Float::with_val(bits, &p.cutoffs[0] / 100_000u32) - 1u32;
        assert!(rel.abs() < 1e-30, "{}", p.cutoffs[0]);
        let none = polish_with_hint(&ch, 1, &[], POLISH_MAX_ITER, None).unwrap();
        assert_eq!(none.termination, Termination::NothingToDo);
    }
}

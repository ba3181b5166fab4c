//! The fallback of the polish: nonlinear Gauss–Seidel on the gradient, each cutoff moved in
//! turn to a bracketed root of its own gradient component.

use super::{full_vector, no_convergence, value_grad, Polished, Termination, POLISH_SLACK_BITS};
use crate::num::root::{bisect_predicate, solve_increasing};
use crate::optimize::chain::Chain;
use crate::policy::PolicyError;
use rug::Float;

/// Sweeps of [`coordinate_roots`] at most.
pub const ROOT_SWEEPS: usize = 60;

/// The fallback when Newton fails: nonlinear Gauss–Seidel on the gradient. Each cutoff in
/// turn is moved to the root of its own gradient component ∂J/∂s_m (its neighbours fixed),
/// found by the bracketing root finder (or by bisection, where the sign change is the step
/// at a host's stability edge); an unstable point counts as a gradient pointing away from
/// it (J → +∞ there: +1 where the host below the cutoff is unstable, −1 where the one
/// above is). A bracketed root reaches full precision even when the optimum sits
/// within 1e-25 of a host's stability boundary, where Newton's quadratic model fails.
/// Converged when no cutoff moves by more than 2^−(bits − POLISH_SLACK_BITS) relative.
pub fn coordinate_roots(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
) -> Result<Polished, PolicyError> {
    coordinate_roots_within(chain, hosts, start, ROOT_SWEEPS)
}

/// [`coordinate_roots`] in at most `sweeps` sweeps (an error where they do not settle).
pub fn coordinate_roots_within(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    sweeps: usize,
) -> Result<Polished, PolicyError> {
    coordinate_roots_of(chain, hosts, start, sweeps, 0..start.len())
}

/// [`coordinate_roots_within`] moving only the cutoffs whose (0-based) indices lie in
/// `free` (the others held where `start` has them: [`super::edge::edge_fill`]).
pub fn coordinate_roots_of(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    sweeps: usize,
    free: std::ops::Range<usize>,
) -> Result<Polished, PolicyError> {
    let bits = chain.dist.prec();
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let free = free.start.min(s.len())..free.end.min(s.len());
    let tol = Float::with_val(bits, 1u32) >> bits.saturating_sub(POLISH_SLACK_BITS);
    for sweep in 1..=sweeps {
        let mut moved = Float::with_val(bits, 0);
        for m in free.clone() {
            let full = full_vector(chain, &s, hosts);
            let (a, c) = (full[m].clone(), full[m + 2].clone());
            let (pa, pc) = (chain.left_point(&a), chain.point(&c));
            // ∂(T_m + T_{m+1})/∂s_m at x, and whether both hosts are stable there. Where
            // host m (ending at x) is unstable J falls as x falls: +1; where host m + 1
            // (starting at x) is, J falls as x rises: −1. (Before 2026-12-06 both were +1,
            // which hid the edge below a cutoff whose upper host is near load 1.)
            let grad_at = |x: &Float| -> Result<(Float, bool), PolicyError> {
                let px = chain.point(x);
                let left = chain.term_grad(&pa, &px, true)?;
                if !left.value.is_finite() {
                    return Ok((Float::with_val(bits, 1), false));
                }
                let right = chain.term_grad(&px, &pc, true)?;
                if !right.value.is_finite() {
                    return Ok((Float::with_val(bits, -1), false));
                }
                Ok((Float::with_val(bits, &left.db + &right.da), true))
            };
            let grad = |x: &Float| -> Result<Float, PolicyError> { Ok(grad_at(x)?.0) };
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
            let x = match solve_increasing(
                &format!("gradient root of cutoff {}", m + 1),
                &lo,
                &hi,
                grad,
            ) {
                Ok(r) => r.x,
                // A sign change at a host's stability edge is a step, on which the secant
                // steps of the root finder stall: bisect to it instead.
                Err(_) => match edge_bisection(&lo, &hi, &grad_at, bits)? {
                    Some(x) => x,
                    None => continue,
                },
            };
            let rel = Float::with_val(bits, &x - &s[m]).abs() / &s[m];
            if rel > moved {
                moved = rel;
            }
            s[m] = x;
        }
        if moved <= tol {
            let (j, _) = value_grad(chain, &s, hosts, false)?;
            return Ok(Polished {
                cutoffs: s,
                value: j,
                iterations: sweep,
                termination: Termination::CoordinatesSettled,
                hessian: None,
                resolution: Vec::new(),
            });
        }
    }
    Err(no_convergence(sweeps, &s))
}

/// A gradient component at a point, and whether both hosts beside the cutoff are stable.
type GradAt<'a> = dyn Fn(&Float) -> Result<(Float, bool), PolicyError> + 'a;

/// Bisection on the sign of a gradient component over [lo, hi] (negative at lo, at least 0
/// at hi), to a relative width of 2^−(bits − POLISH_SLACK_BITS): the sign change may be a
/// step at a host's stability edge (the gradient −1 or +1 on the unstable side), where a
/// secant root finder stalls. Returns the end of the last bracket where both hosts are
/// stable (the lower end where the upper one is unstable), or `None` when neither is.
fn edge_bisection(
    lo: &Float,
    hi: &Float,
    grad_at: &GradAt,
    bits: u32,
) -> Result<Option<Float>, PolicyError> {
    let stop = bits.saturating_sub(POLISH_SLACK_BITS);
    let (a, b) = bisect_predicate(lo, hi, bits, stop, |x| {
        Ok::<bool, PolicyError>(grad_at(x)?.0 < 0)
    })?;
    let (a_stable, b_stable) = (grad_at(&a)?.1, grad_at(&b)?.1);
    Ok(match (a_stable, b_stable) {
        (true, false) => Some(a),
        (false, true) => Some(b),
        (true, true) => Some(Float::with_val(bits, &a + &b) / 2u32),
        (false, false) => None,
    })
}

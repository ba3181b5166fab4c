//! The fallback of the polish: nonlinear Gauss–Seidel on the gradient, each cutoff moved in
//! turn to a bracketed root of its own gradient component.

use super::{full_vector, no_convergence, value_grad, Polished, Termination, POLISH_SLACK_BITS};
use crate::num::root::solve_increasing;
use crate::optimize::chain::Chain;
use crate::policy::PolicyError;
use rug::Float;

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
                termination: Termination::CoordinatesSettled,
                hessian: None,
                resolution: Vec::new(),
            });
        }
    }
    Err(no_convergence(ROOT_SWEEPS, &s))
}

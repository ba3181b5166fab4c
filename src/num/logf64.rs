//! f64 log-domain helpers: the kernels of the f64 forms of the partial moments
//! ([`crate::dist::JobSize::ln_partial_moment_f64`]) and of the optimiser's f64 search, which
//! carry every quantity as its natural logarithm so that values far outside f64's range
//! (p = 10^100000) are handled.
//!
//! Every family's f64 form works with logarithms throughout (ln x, ln M); values are
//! exponentiated only where they are known to fit.
//!
//! Precision. No f64 form subtracts two nearly equal values on a short interval (b close to
//! a), so none loses the log2(b/(b − a)) bits a difference of closed-form antiderivatives
//! would: the width ln(b/a) is formed exactly from the f64 inputs and enters through expm1
//! (power laws, the exponential's incomplete gammas, j = 0 everywhere), and intervals on
//! which the log-integrand varies by less than [`crate::num::gauss::GL6_MAX_VARIATION`] go
//! to a Gauss–Legendre rule (E[1/X] of the exponential, lognormal, Weibull), which needs no
//! difference at all. What remains is the rounding of the inputs themselves (ln a = 230258
//! has an ulp of 3e-11, so t·ln a carries 1e-16 of |ln M|) and a bounded loss where two
//! tails are subtracted on a wide interval (at most a factor 12.5 for the exponential,
//! about √s for a Weibull near its mode); tests/dist_f64_search.rs measures the result
//! against MPFR.

use super::dd::LnPoint;
use super::tol::F64_TINY;
use rug::Float;

/// A Float as f64 if it is finite, and normal or zero (a subnormal or an underflow to 0 of
/// a nonzero value, or an overflow, would make an f64 formula wrong).
#[inline]
pub fn f64_normal(x: &Float) -> Option<f64> {
    let v = x.to_f64();
    if v.is_finite() && (v.is_normal() || x.is_zero()) {
        Some(v)
    } else {
        None
    }
}

/// ln(1 − e^(−x)) for x ≥ 0 (x = 0 gives −∞, x = +∞ gives 0), given also ln x (which may be
/// far below f64's range): for small x it is ln x + ln((1 − e^(−x))/x), so that an x that
/// underflows still gives the right logarithm.
#[inline]
pub fn ln_one_minus_exp_neg(x: f64, ln_x: f64) -> f64 {
    if x < 0.5 {
        let r = if x == 0.0 { 1.0 } else { -(-x).exp_m1() / x };
        ln_x + r.ln()
    } else {
        (-(-x).exp_m1()).ln()
    }
}

/// ln(1 − e^d) for d ≤ 0 (d = 0 gives −∞, d = −∞ gives 0), accurate for every d
/// (Mächler's rule: expm1 near 0, log1p far from it).
#[inline]
pub fn ln_one_minus_exp(d: f64) -> f64 {
    if d > -std::f64::consts::LN_2 {
        (-d.exp_m1()).ln()
    } else {
        (-d.exp()).ln_1p()
    }
}

/// ln(e^x + e^y), with −∞ (a zero term) and +∞ handled.
#[inline]
pub fn ln_add_exp(x: f64, y: f64) -> f64 {
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    if hi == f64::INFINITY || lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// ln((1 − e^(−τ l))/τ) for τ ≥ 0 and l > 0 (l may be +∞): ln l at τ = 0, −ln τ at l = ∞,
/// with ln τ supplied (read only where needed). This is the log of ∫ over a log-interval
/// of width l of e^(−τ s) ds, written so that neither a small τl (no cancellation, no
/// underflow of τl) nor a large one overflows.
#[inline]
fn ln_expm1_ratio_by(tau: f64, l: f64, ln_tau: impl FnOnce() -> f64) -> f64 {
    if l == f64::INFINITY {
        return if tau > 0.0 { -ln_tau() } else { f64::INFINITY };
    }
    let x = tau * l;
    if x < 0.5 {
        // (1 − e^(−x))/τ = l · (1 − e^(−x))/x, the ratio in (0.78, 1].
        let r = if x == 0.0 { 1.0 } else { -(-x).exp_m1() / x };
        l.ln() + r.ln()
    } else {
        (-(-x).exp_m1()).ln() - ln_tau()
    }
}

/// ln(e^c ∫_a^b (x/r)^t dx/x) for a power-law integrand, from s_a = ln(a/r), s_b = ln(b/r)
/// and l = ln(b/a) > 0 given separately (so that a short interval keeps all its digits).
/// a = 0 (s_a = −∞) or b = ∞ (s_b = +∞) are allowed; the value is +∞ when the integral
/// diverges there (t ≤ 0 at 0, t ≥ 0 at ∞).
///
/// With t > 0 the value is c + t s_b + ln((1 − (a/b)^t)/t) (b^t factored out), with t < 0
/// it is c + t s_a + ln((1 − (b/a)^t)/(−t)), with t = 0 it is c + ln l: no overflow for
/// any l, no cancellation for a short interval.
///
/// ```
/// use taskassign::num::ln_power_integral_f64;
/// // ∫_1^2 x dx = 3/2 (t = 2), ∫_1^e dx/x = 1 (t = 0)
/// let v = ln_power_integral_f64(2.0, 0.0, 0.0, 2f64.ln(), 2f64.ln());
/// assert!((v - 1.5f64.ln()).abs() < 1e-15);
/// assert!(ln_power_integral_f64(0.0, 0.0, 0.0, 1.0, 1.0).abs() < 1e-16);
/// ```
#[inline]
pub fn ln_power_integral_f64(t: f64, c: f64, s_a: f64, s_b: f64, l: f64) -> f64 {
    ln_power_integral_f64_by(t, c, s_a, s_b, l, || t.abs().ln())
}

/// [`ln_power_integral_f64`] with ln |t| precomputed (a family whose orders have fixed t).
#[inline]
pub(crate) fn ln_power_integral_f64_lt(
    t: f64,
    ln_abs_t: f64,
    c: f64,
    s_a: f64,
    s_b: f64,
    l: f64,
) -> f64 {
    ln_power_integral_f64_by(t, c, s_a, s_b, l, || ln_abs_t)
}

#[inline]
fn ln_power_integral_f64_by(
    t: f64,
    c: f64,
    s_a: f64,
    s_b: f64,
    l: f64,
    ln_abs_t: impl FnOnce() -> f64,
) -> f64 {
    if t > 0.0 {
        if s_b == f64::INFINITY {
            return f64::INFINITY;
        }
        c + t * s_b + ln_expm1_ratio_by(t, l, ln_abs_t)
    } else if t < 0.0 {
        if s_a == f64::NEG_INFINITY {
            return f64::INFINITY;
        }
        c + t * s_a + ln_expm1_ratio_by(-t, l, ln_abs_t)
    } else {
        c + l.ln()
    }
}

/// ub − ua and ln(ub − ua) for the points of an interval with ln(ub/ua) = l > 0: the
/// logarithm as ln ub + ln(1 − e^−l) (any magnitudes, no cancellation for a short
/// interval), the value as ua·expm1(l) for a short interval and ub − ua otherwise (from the
/// logarithm when the values underflow).
#[inline]
pub fn interval_width(pa: &LnPoint, pb: &LnPoint, l: f64) -> (f64, f64) {
    if pb.x == f64::INFINITY {
        return (f64::INFINITY, pb.ln());
    }
    let ln_w = pb.ln() + ln_one_minus_exp_neg(l, l.ln());
    let w = if pa.x < F64_TINY {
        ln_w.exp()
    } else if l < 1.0 {
        pa.x * l.exp_m1()
    } else {
        pb.x - pa.x
    };
    (w, ln_w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative tolerance of the checks below: a few ulps (each side rounds a handful of
    /// times).
    const ULPS: f64 = 4.0 * f64::EPSILON;

    #[test]
    fn ln_add_exp_matches_direct_sum() {
        // Source: ln(e^a + e^b) computed directly where nothing overflows.
        for (a, b) in [(0.0, 0.0), (1.0, -3.0), (-700.0, -701.5), (5.0, 40.0)] {
            let direct = (f64::exp(a) + f64::exp(b)).ln();
            assert!((ln_add_exp(a, b) - direct).abs() <= ULPS * direct.abs().max(1.0));
        }
        assert_eq!(ln_add_exp(f64::NEG_INFINITY, 2.0), 2.0);
        assert_eq!(ln_add_exp(3.0, f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn ln_one_minus_exp_matches_direct() {
        // Source: ln(1 − e^d) directly, for d where 1 − e^d keeps its digits (|d| ≥ 1e-3
        // loses at most 10 bits to the subtraction: tolerance 2^10 ulps).
        for d in [-1e-3, -0.5, -0.7, -2.0, -30.0] {
            let direct = (1.0 - f64::exp(d)).ln();
            let tol = 1024.0 * f64::EPSILON * direct.abs().max(1.0);
            assert!((ln_one_minus_exp(d) - direct).abs() <= tol, "{d}");
        }
        assert_eq!(ln_one_minus_exp(0.0), f64::NEG_INFINITY);
        assert_eq!(ln_one_minus_exp(f64::NEG_INFINITY), 0.0);
    }
}

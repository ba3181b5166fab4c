//! Double-double helpers: an f64 pair hi + lo carrying about 106 bits, for logarithms of
//! points and parameters that the f64 forms of the partial moments add and subtract
//! (Dekker 1971; Knuth, TAOCP vol. 2, §4.2.2, TwoSum).

use rug::Float;

/// A Float as an unevaluated sum hi + lo of two f64 (a "double-double"), so that a constant
/// such as ln μ keeps about 106 bits: adding it to ln x then rounds only once. `None` if it
/// is not finite in f64.
pub fn f64_pair(x: &Float) -> Option<(f64, f64)> {
    let hi = x.to_f64();
    if !hi.is_finite() {
        return None;
    }
    let lo = Float::with_val(x.prec() + 64, x - hi).to_f64();
    Some((hi, lo))
}

/// Error-free sum: s + e = a + b exactly, s = fl(a + b) (Knuth's TwoSum).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// A point x = e^ℓ given by its logarithm ℓ = hi + lo (a double-double), with its value
/// e^ℓ in f64 (0 or +∞ where it does not fit: the formulas that use it tolerate that).
#[derive(Debug, Clone, Copy)]
pub struct LnPoint {
    /// ln x, leading part (−∞ for x = 0, +∞ for x = ∞).
    pub hi: f64,
    /// ln x, trailing part (0 when hi is infinite).
    pub lo: f64,
    /// x = e^(hi + lo) rounded to f64 (relative error about one ulp).
    pub x: f64,
}

impl LnPoint {
    /// The point with logarithm ln_x + (c_hi + c_lo), the sum kept exact as a double-double
    /// (e.g. ln(μx) from ln x and ln μ).
    #[inline]
    pub fn shifted(ln_x: f64, c_hi: f64, c_lo: f64) -> Self {
        if ln_x.is_infinite() {
            return Self::from_ln(ln_x);
        }
        let (s, e) = two_sum(ln_x, c_hi);
        Self::from_parts(s, e + c_lo)
    }

    /// The point with logarithm `hi + lo` (renormalised).
    #[inline]
    pub fn from_parts(hi: f64, lo: f64) -> Self {
        if hi.is_infinite() {
            return Self::from_ln(hi);
        }
        let (hi, lo) = two_sum(hi, lo);
        // e^(hi+lo) = e^hi (1 + lo + …), |lo| ≤ ulp(hi) so the square is negligible.
        let x = hi.exp() * (1.0 + lo);
        LnPoint { hi, lo, x }
    }

    /// The point with logarithm `l` (an f64, no trailing part).
    #[inline]
    pub fn from_ln(l: f64) -> Self {
        LnPoint {
            hi: l,
            lo: 0.0,
            x: l.exp(),
        }
    }

    /// The point whose logarithm is the mean of the two points' logarithms (the geometric
    /// mean), the logarithm kept as a double-double.
    #[inline]
    pub fn log_midpoint(&self, other: &LnPoint) -> Self {
        if self.hi.is_infinite() || other.hi.is_infinite() {
            return Self::from_ln(0.5 * (self.hi + other.hi));
        }
        let (s, e) = two_sum(self.hi, other.hi);
        Self::from_parts(0.5 * s, 0.5 * (e + self.lo + other.lo))
    }

    /// ln x as one f64.
    #[inline]
    pub fn ln(&self) -> f64 {
        self.hi + self.lo
    }

    /// ln(other) − ln(self) as one f64 (the trailing parts kept: exact for close points).
    #[inline]
    pub fn ln_ratio(&self, other: &LnPoint) -> f64 {
        if self.hi.is_infinite() || other.hi.is_infinite() {
            return other.hi - self.hi;
        }
        (other.hi - self.hi) + (other.lo - self.lo)
    }
}

/// Whether the double-double x = (hi, lo) is below y (both normalised, |lo| ≤ ulp(hi)/2).
#[inline]
fn dd_less(x: (f64, f64), y: (f64, f64)) -> bool {
    x.0 < y.0 || (x.0 == y.0 && x.1 < y.1)
}

/// A log-interval clipped to a support, as [`clip_ln`] returns it.
#[derive(Debug, Clone, Copy)]
pub struct LnInterval {
    /// ln a after clipping (a double-double; −∞ for a = 0).
    pub a: (f64, f64),
    /// ln b after clipping (+∞ for b = ∞).
    pub b: (f64, f64),
    /// ln(b/a) > 0 (+∞ if a = 0 or b = ∞), exact for close ends.
    pub width: f64,
}

impl LnInterval {
    /// ln(a/r) for a reference point r given by its double-double logarithm.
    #[inline]
    pub fn a_rel(&self, r: (f64, f64)) -> f64 {
        dd_diff(self.a, r)
    }
    /// ln(b/r).
    #[inline]
    pub fn b_rel(&self, r: (f64, f64)) -> f64 {
        dd_diff(self.b, r)
    }
}

/// x − y for double-doubles, rounded to f64 (infinities kept).
#[inline]
fn dd_diff(x: (f64, f64), y: (f64, f64)) -> f64 {
    if x.0.is_infinite() || y.0.is_infinite() {
        return x.0 - y.0;
    }
    (x.0 - y.0) + (x.1 - y.1)
}

/// Clips the log-interval (ln a, ln b] to the support [lo, hi] whose ends are given by
/// double-double logarithms (lo = (−∞, 0) for a lower end 0, hi = (+∞, 0) for an unbounded
/// support), as [`crate::dist::clip`] does with the MPFR values; `None` if the result is empty. The ends
/// keep their trailing parts, so that a point one ulp of ln k above k, or an interval
/// ending 10^-9 above ln p, are clipped exactly where the MPFR form clips them.
#[inline]
pub fn clip_ln(ln_a: f64, ln_b: f64, lo: (f64, f64), hi: (f64, f64)) -> Option<LnInterval> {
    let a = if dd_less((ln_a, 0.0), lo) {
        lo
    } else {
        (ln_a, 0.0)
    };
    let b = if dd_less(hi, (ln_b, 0.0)) {
        hi
    } else {
        (ln_b, 0.0)
    };
    if !dd_less(a, b) {
        return None;
    }
    let width = dd_diff(b, a);
    if width > 0.0 {
        Some(LnInterval { a, b, width })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sum_is_error_free() {
        // Source: exact arithmetic (1 + 2^-60 is not representable: the error term holds it).
        let (s, e) = two_sum(1.0, 2f64.powi(-60));
        assert_eq!(s, 1.0);
        assert_eq!(e, 2f64.powi(-60));
    }

    #[test]
    fn clipping_keeps_trailing_parts() {
        // Source: by construction, the support [e^(1 + 1e-20), e^2] clips (0, 3] to
        // (1 + 1e-20, 2]: the width is 1 − 1e-20 (rounded, 1) and the lower end keeps 1e-20.
        let iv = clip_ln(0.0, 3.0, (1.0, 1e-20), (2.0, 0.0)).unwrap();
        assert_eq!(iv.a, (1.0, 1e-20));
        assert_eq!(iv.b, (2.0, 0.0));
        assert_eq!(iv.width, 1.0);
        assert!(clip_ln(2.5, 3.0, (1.0, 0.0), (2.0, 0.0)).is_none());
    }
}

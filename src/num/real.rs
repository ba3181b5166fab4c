//! The scalars the policy formulas are written over: one definition of a formula
//! (a host's load, its Pollaczek–Khinchine waiting, a TAGS host term) runs on MPFR
//! values, on f64 logarithms and on MPFR values with derivatives.
//!
//! - [`Float`]: an MPFR value; every operation is rounded once, to the larger precision of
//!   its operands (precision travels with the value: a lower-precision operand never lowers
//!   a result).
//! - [`LnF64`]: a nonnegative real carried as its natural logarithm in f64, so that values
//!   far outside f64's range (10^±100000) are represented; a product is a sum of
//!   logarithms and a sum is ln-add-exp.
//! - [`Dual2`]: an MPFR value with its partial derivatives in two variables (the two
//!   cutoffs of a host): forward-mode differentiation, so a formula's gradient is never
//!   written by hand.

use super::logf64::{ln_add_exp, ln_one_minus_exp};
use rug::float::Special;
use rug::Float;

/// A nonnegative real scalar with the operations of the policy formulas. Only what the
/// formulas need: no subtraction other than 1 − x (of a load below 1), so that the
/// log-domain scalar can implement every operation without cancellation. The operations
/// that take `self` by value reuse it (an MPFR temporary keeps its allocation), the others
/// borrow their operands.
pub trait Real: Clone {
    /// 0, like `self` (at its precision).
    fn zero(&self) -> Self;
    /// +∞, like `self`.
    fn infinity(&self) -> Self;
    /// Whether the value is 0.
    fn is_zero(&self) -> bool;
    /// Whether the value is at least 1: a host with such a load is unstable. A NaN load is
    /// not at least 1 in MPFR (the NaN propagates to the waiting, and the two-precision
    /// certification prints it as undetermined) and is at least 1 in f64 logarithms (a
    /// failed f64 moment counts as an unstable host, for the search to skip).
    fn at_least_one(&self) -> bool;
    /// self + other.
    fn add(self, other: &Self) -> Self;
    /// self · other.
    fn mul(&self, other: &Self) -> Self;
    /// self / other.
    fn div(self, other: &Self) -> Self;
    /// self / 2 (exact).
    fn half(self) -> Self;
    /// 1 − self, for self < 1.
    fn one_minus(&self) -> Self;
}

fn prec2(a: &Float, b: &Float) -> u32 {
    a.prec().max(b.prec())
}

/// `x` at no less than the precision of `other` (exact: only ever raised).
#[inline]
fn at_least_prec_of(mut x: Float, other: &Float) -> Float {
    if x.prec() < other.prec() {
        x.set_prec(other.prec());
    }
    x
}

impl Real for Float {
    #[inline]
    fn zero(&self) -> Self {
        Float::with_val(self.prec(), 0)
    }
    #[inline]
    fn infinity(&self) -> Self {
        Float::with_val(self.prec(), Special::Infinity)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        Float::is_zero(self)
    }
    #[inline]
    fn at_least_one(&self) -> bool {
        *self >= 1
    }
    #[inline]
    fn add(self, other: &Self) -> Self {
        at_least_prec_of(self, other) + other
    }
    #[inline]
    fn mul(&self, other: &Self) -> Self {
        Float::with_val(prec2(self, other), self * other)
    }
    #[inline]
    fn div(self, other: &Self) -> Self {
        at_least_prec_of(self, other) / other
    }
    #[inline]
    fn half(self) -> Self {
        self / 2u32
    }
    #[inline]
    fn one_minus(&self) -> Self {
        Float::with_val(self.prec(), 1u32) - self
    }
}

/// A nonnegative real x carried as ln x in f64 (−∞ for 0, +∞ for +∞). Relative rounding
/// errors of x become absolute errors of ln x: about 1e-16 · |ln x| per operation.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct LnF64(pub f64);

impl Real for LnF64 {
    #[inline]
    fn zero(&self) -> Self {
        LnF64(f64::NEG_INFINITY)
    }
    #[inline]
    fn infinity(&self) -> Self {
        LnF64(f64::INFINITY)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.0 == f64::NEG_INFINITY
    }
    #[inline]
    fn at_least_one(&self) -> bool {
        !(self.0 < 0.0)
    }
    #[inline]
    fn add(self, other: &Self) -> Self {
        LnF64(ln_add_exp(self.0, other.0))
    }
    #[inline]
    fn mul(&self, other: &Self) -> Self {
        LnF64(self.0 + other.0)
    }
    #[inline]
    fn div(self, other: &Self) -> Self {
        LnF64(self.0 - other.0)
    }
    #[inline]
    fn half(self) -> Self {
        LnF64(self.0 - std::f64::consts::LN_2)
    }
    #[inline]
    fn one_minus(&self) -> Self {
        LnF64(ln_one_minus_exp(self.0))
    }
}

/// An MPFR value v with its partial derivatives (∂v/∂x₀, ∂v/∂x₁) in two variables; a
/// derivative that is exactly zero is `None` (no operation is spent on it, and no 0 · ∞
/// arises). The arithmetic is the chain rule: (uv)' = u'v + uv', (u/v)' = (u' − (u/v) v')/v.
///
/// ```
/// use rug::Float;
/// use taskassign::num::{Dual2, Real};
/// // f(x, y) = x / (1 − x y) at (x, y) = (1/2, 1): f = 1, ∂f/∂x = 4, ∂f/∂y = 1.
/// let b = 64;
/// let x = Dual2::variable(Float::with_val(b, 0.5), 0);
/// let y = Dual2::variable(Float::with_val(b, 1), 1);
/// let f = x.clone().div(&x.mul(&y).one_minus());
/// assert_eq!(f.value, 1);
/// assert_eq!(f.derivative(0), 4);
/// assert_eq!(f.derivative(1), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Dual2 {
    /// The value.
    pub value: Float,
    /// The two partial derivatives (`None`: exactly zero).
    pub d: [Option<Float>; 2],
}

impl Dual2 {
    /// A constant (both derivatives zero).
    pub fn constant(value: Float) -> Self {
        Dual2 {
            value,
            d: [None, None],
        }
    }

    /// The variable x_i itself (∂/∂x_i = 1).
    pub fn variable(value: Float, i: usize) -> Self {
        let mut d = [None, None];
        d[i & 1] = Some(Float::with_val(value.prec(), 1));
        Dual2 { value, d }
    }

    /// A value with the given partial derivatives.
    pub fn new(value: Float, d: [Option<Float>; 2]) -> Self {
        Dual2 { value, d }
    }

    /// ∂/∂x_i (0 where it is exactly zero).
    pub fn derivative(&self, i: usize) -> Float {
        self.d[i & 1]
            .clone()
            .unwrap_or_else(|| Float::with_val(self.value.prec(), 0))
    }
}

/// a + b for optional derivatives (`None` = 0).
fn d_add(a: &Option<Float>, b: &Option<Float>) -> Option<Float> {
    match (a, b) {
        (None, None) => None,
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (Some(x), Some(y)) => Some(Real::add(x.clone(), y)),
    }
}

impl Real for Dual2 {
    fn zero(&self) -> Self {
        Dual2::constant(self.value.zero())
    }
    fn infinity(&self) -> Self {
        Dual2::constant(self.value.infinity())
    }
    fn is_zero(&self) -> bool {
        self.value.is_zero()
    }
    fn at_least_one(&self) -> bool {
        self.value.at_least_one()
    }
    fn add(self, other: &Self) -> Self {
        Dual2 {
            d: [0, 1].map(|i| d_add(&self.d[i], &other.d[i])),
            value: Real::add(self.value, &other.value),
        }
    }
    fn mul(&self, other: &Self) -> Self {
        let term = |i: usize| -> Option<Float> {
            let a = self.d[i].as_ref().map(|da| Real::mul(da, &other.value));
            let b = other.d[i].as_ref().map(|db| Real::mul(&self.value, db));
            d_add(&a, &b)
        };
        Dual2 {
            value: Real::mul(&self.value, &other.value),
            d: [term(0), term(1)],
        }
    }
    fn div(self, other: &Self) -> Self {
        let q = Real::div(self.value.clone(), &other.value);
        let term = |i: usize| -> Option<Float> {
            match (&self.d[i], &other.d[i]) {
                (None, None) => None,
                (Some(du), None) => Some(Real::div(du.clone(), &other.value)),
                (du, Some(dv)) => {
                    let qdv = Real::mul(&q, dv);
                    let num = match du {
                        Some(du) => Float::with_val(prec2(du, &qdv), du - &qdv),
                        None => -qdv,
                    };
                    Some(Real::div(num, &other.value))
                }
            }
        };
        let d = [term(0), term(1)];
        Dual2 { value: q, d }
    }
    fn half(self) -> Self {
        Dual2 {
            value: self.value.half(),
            d: self.d.map(|x| x.map(Real::half)),
        }
    }
    fn one_minus(&self) -> Self {
        Dual2 {
            value: self.value.one_minus(),
            d: [0, 1].map(|i| self.d[i].as_ref().map(|x| -x.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same expression in MPFR and in f64 logarithms: λ m2 / (2 (1 − λ m1)) at
    /// magnitudes f64 cannot hold (m2 = 1e400). Source of the expected value: the MPFR
    /// evaluation at 200 bits; tolerance 8 ulps of |ln x| in the logarithm (each of the few
    /// operations rounds ln x once, an absolute error of about 1e-16 · |ln x|).
    #[test]
    fn float_and_log_domain_agree() {
        fn pk<R: Real>(lambda: &R, m1: &R, m2: &R) -> R {
            let rho = lambda.mul(m1);
            lambda.mul(m2).half().div(&rho.one_minus())
        }
        let b = 200;
        let lambda = Float::with_val(b, 0.25);
        let m1 = Float::with_val(b, 3);
        let m2 = crate::num::parse_decimal("1e400", b).unwrap_or_else(|_| Float::new(b));
        let mp = pk(&lambda, &m1, &m2);
        let ln = |x: &Float| LnF64(Float::with_val(b, x.ln_ref()).to_f64());
        let lg = pk(&ln(&lambda), &ln(&m1), &ln(&m2));
        let want = Float::with_val(b, mp.ln_ref()).to_f64();
        let tol = |w: f64| 8.0 * f64::EPSILON * w.abs().max(1.0);
        assert!((lg.0 - want).abs() <= tol(want), "{} vs {want}", lg.0);
        // Sums: ln(e^a + e^b) against the MPFR sum.
        let s = Real::add(ln(&m1), &ln(&m2));
        let want = Float::with_val(b, Float::with_val(b, &m1 + &m2).ln_ref()).to_f64();
        assert!((s.0 - want).abs() <= tol(want));
        assert!(!LnF64(-1.0).at_least_one() && LnF64(0.0).at_least_one());
        assert!(LnF64(f64::NAN).at_least_one() && !Float::with_val(b, Special::Nan).at_least_one());
    }

    /// Derivatives of a quotient and a product against central differences at 300 bits
    /// with step 1e-40 (truncation 1e-80, rounding 1e-90/1e-40): tolerance 1e-40.
    #[test]
    fn dual_derivatives_match_differences() {
        let b = 300;
        let f = |x: &Dual2, y: &Dual2| -> Dual2 {
            let rho = x.mul(y);
            x.mul(x).half().div(&rho.one_minus()).add(y)
        };
        let (x0, y0) = (Float::with_val(b, 0.3), Float::with_val(b, 1.7));
        let v = f(
            &Dual2::variable(x0.clone(), 0),
            &Dual2::variable(y0.clone(), 1),
        );
        let h = crate::num::parse_decimal("1e-40", b).unwrap_or_else(|_| Float::new(b));
        let at = |x: Float, y: Float| f(&Dual2::constant(x), &Dual2::constant(y)).value;
        let dx = Float::with_val(
            b,
            at(Float::with_val(b, &x0 + &h), y0.clone())
                - at(Float::with_val(b, &x0 - &h), y0.clone()),
        ) / Float::with_val(b, &h * 2u32);
        let dy = Float::with_val(
            b,
            at(x0.clone(), Float::with_val(b, &y0 + &h))
                - at(x0.clone(), Float::with_val(b, &y0 - &h)),
        ) / Float::with_val(b, &h * 2u32);
        assert!(Float::with_val(b, v.derivative(0) - dx).abs() < 1e-40);
        assert!(Float::with_val(b, v.derivative(1) - dy).abs() < 1e-40);
    }
}

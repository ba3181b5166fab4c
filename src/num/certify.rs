//! Certified decimal output: a value computed at two precisions is printed with only the
//! significant digits on which both agree.

use rug::float::Round;
use rug::Float;

use super::range::Flags;
use super::NumError;

/// A decimal string carrying only certified significant digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certified {
    /// Scientific notation (`"1.2345e-3"`), `"0e0"`, or `"inf"`.
    pub text: String,
    /// Significant digits certified (the digits of `text`).
    pub digits: u32,
}

/// Renders `x` in scientific notation with exactly `k ≥ 1` significant digits (trailing
/// zeros kept, since they are significant), rounded to nearest: `d.ddd…eX`. Zero is `"0e0"`, infinities `"inf"`/`"-inf"`, NaN `"nan"`.
///
/// ```
/// use rug::Float;
/// use taskassign::num::to_sci;
/// assert_eq!(to_sci(&Float::with_val(64, 1234.5), 3), "1.23e3");
/// assert_eq!(to_sci(&Float::with_val(64, -0.0125), 2), "-1.3e-2");
/// ```
pub fn to_sci(x: &Float, k: u32) -> String {
    to_sci_round(x, k, Round::Nearest)
}

/// [`to_sci`] rounded in direction `r` (`Round::Down`/`Up` for an enclosure's ends).
pub(crate) fn to_sci_round(x: &Float, k: u32, r: Round) -> String {
    if x.is_zero() {
        return "0e0".to_string();
    }
    if x.is_infinite() {
        return if x.is_sign_negative() { "-inf" } else { "inf" }.to_string();
    }
    if x.is_nan() {
        return "nan".to_string();
    }
    let k = k.max(1) as usize;
    let (neg, digits, exp) = x.to_sign_string_exp_round(10, Some(k), r);
    // value = 0.d1d2d3… × 10^exp = d1.d2d3… × 10^(exp-1)
    let e = i64::from(exp.unwrap_or(0)) - 1;
    // Trailing zeros are kept: they are certified digits too.
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str(&digits[..1]);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(&digits[1..]);
    }
    s.push('e');
    s.push_str(&e.to_string());
    s
}

/// A unit in the last of `want` significant digits of `x`, 10^(⌊log₁₀|x|⌋ + 1 − want), in
/// f64 (for aiming a truncation or a refinement at a share of it; the digits themselves are
/// decided elsewhere, from the enclosure's or the two precisions' ends). NaN for a zero,
/// infinite or NaN `x`.
///
/// ```
/// use taskassign::num::last_digit_unit;
/// assert_eq!(last_digit_unit(5.37, 3), 0.01);
/// assert_eq!(last_digit_unit(-0.012, 2), 0.001);
/// ```
pub fn last_digit_unit(x: f64, want: u32) -> f64 {
    let a = x.abs();
    if !(a > 0.0 && a.is_finite()) {
        return f64::NAN;
    }
    10f64.powi(a.log10().floor() as i32 + 1 - want as i32)
}

/// Compares a value computed at a lower precision (`lo`) with the same value computed at a
/// higher one (`hi`) and keeps the significant digits (at most `wanted`) on which their
/// roundings agree. Returns `digits = 0` and the text [`UNDETERMINED`] when not even the
/// first digit agrees.
///
/// ```
/// use rug::Float;
/// use taskassign::num::certify_pair;
/// let a = Float::with_val(64, 1.0f64 / 3.0);
/// let b = Float::with_val(128, 1) / Float::with_val(128, 3);
/// let c = certify_pair(&a, &b, 30);
/// assert!(c.digits >= 15 && c.digits <= 17);
/// assert!(c.text.starts_with("3.333333333333333"));
/// ```
pub fn certify_pair(lo: &Float, hi: &Float, wanted: u32) -> Certified {
    if lo.is_zero() && hi.is_zero() {
        return Certified {
            text: "0e0".into(),
            digits: wanted,
        };
    }
    if lo.is_infinite() && hi.is_infinite() && lo.is_sign_negative() == hi.is_sign_negative() {
        return Certified {
            text: to_sci(hi, 1),
            digits: wanted,
        };
    }
    if !lo.is_finite() || !hi.is_finite() || lo.is_zero() || hi.is_zero() {
        return Certified {
            text: UNDETERMINED.to_string(),
            digits: 0,
        };
    }
    // First guess from the relative difference, then confirm on the strings.
    let p = hi.prec().max(lo.prec());
    let diff = Float::with_val(p, lo - hi).abs();
    let mut k = wanted.max(1);
    if let (false, Some(ed), Some(eh)) = (diff.is_zero(), diff.get_exp(), hi.get_exp()) {
        // |lo − hi| / |hi| > 2^(ed − 1 − eh): at most (eh − ed + 1)·log10 2 digits agree.
        // An upper bound, so no agreeing digit is lost; the strings below decide.
        let est = (f64::from(eh) - f64::from(ed) + 1.0) * std::f64::consts::LOG10_2;
        let est = est.floor().max(1.0);
        if est < f64::from(k) {
            k = est as u32;
        }
    }
    while k >= 1 {
        let a = to_sci(lo, k);
        let b = to_sci(hi, k);
        if a == b {
            return Certified { text: b, digits: k };
        }
        k -= 1;
    }
    Certified {
        text: UNDETERMINED.to_string(),
        digits: 0,
    }
}

/// A result computed at the two precisions of a certified run. The claims language's
/// number at two precisions, `claims::value::Pair`, is a different thing: a `Float` that
/// carries a simulation's uncertainty through arithmetic and no range flags (a quantity
/// builds its `Pair`s from an `AtBoth` once [`AtBoth::guard_range`] has passed).
#[derive(Debug, Clone, PartialEq)]
pub struct AtBoth<T> {
    /// At the working precision.
    pub lo: T,
    /// At the certifying (higher) precision.
    pub hi: T,
    /// MPFR's overflow/underflow flags raised by either run ([`crate::num::range`]).
    pub range: Flags,
}

impl<T> AtBoth<T> {
    /// Applies `f` to both results.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> AtBoth<U> {
        AtBoth {
            lo: f(&self.lo),
            hi: f(&self.hi),
            range: self.range,
        }
    }

    /// The out-of-range check of a certified result: when a run left MPFR's exponent range
    /// (an overflow or underflow flag) and a value that is nonzero and finite by its nature
    /// (a rate, a load, a mean) came out zero, infinite or undetermined — or one that is
    /// finite by its nature (`finite`: a host's load, a cutoff) came out infinite or
    /// undetermined —, the result is an error, not a number. A flag beside values that
    /// all look right is an intermediate that did not matter (a tail e^(−10^10) beside
    /// terms of order one, a rejected candidate of a search) and is let through.
    pub fn guard_range<'a>(
        &self,
        what: &str,
        nonzero: impl IntoIterator<Item = &'a Certified>,
        finite: impl IntoIterator<Item = &'a Certified>,
    ) -> Result<(), NumError> {
        if !self.range.overflow && !self.range.underflow {
            return Ok(());
        }
        let bad_nonzero =
            |c: &Certified| matches!(c.text.as_str(), "0e0" | "inf" | "-inf" | UNDETERMINED);
        let bad_finite = |c: &Certified| matches!(c.text.as_str(), "inf" | "-inf" | UNDETERMINED);
        if nonzero.into_iter().any(bad_nonzero) || finite.into_iter().any(bad_finite) {
            return Err(crate::num::range::out_of_range(what, self.range));
        }
        Ok(())
    }

    /// Certifies the number `f` picks out of both results.
    pub fn certify(&self, wanted: u32, f: impl Fn(&T) -> &Float) -> Certified {
        certify_pair(f(&self.lo), f(&self.hi), wanted)
    }

    /// Certifies the vectors `f` picks out of both results, element by element (a vector
    /// whose two lengths differ certifies its common prefix).
    pub fn certify_all(&self, wanted: u32, f: impl Fn(&T) -> &[Float]) -> Vec<Certified> {
        f(&self.lo)
            .iter()
            .zip(f(&self.hi))
            .map(|(a, b)| certify_pair(a, b, wanted))
            .collect()
    }
}

/// The one executor of the two-precision pattern: a computation given as a function of its
/// working precision runs at the two precisions of [`crate::num::certify_bits`], and the
/// digits on which the two results agree are the ones a caller may print.
///
/// ```
/// use rug::Float;
/// use taskassign::num::Certify;
/// let c = Certify::digits(30);
/// let both = c.run(|bits| Ok::<_, ()>(Float::with_val(bits, 2).sqrt())).unwrap();
/// let v = both.certify(c.wanted(), |x| x);
/// assert_eq!(v.digits, 30);
/// // √2 = 1.41421356237309504880168872420969…, rounded to 30 significant digits
/// assert_eq!(v.text, "1.41421356237309504880168872421e0");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Certify {
    digits: u32,
    bits: (u32, u32),
}

impl Certify {
    /// A certified run for `digits` significant digits.
    pub fn digits(digits: u32) -> Self {
        Certify {
            digits,
            bits: crate::num::certify_bits(digits),
        }
    }

    /// The digits asked for.
    pub fn wanted(&self) -> u32 {
        self.digits
    }

    /// The two precisions (working, certifying).
    pub fn bits(&self) -> (u32, u32) {
        self.bits
    }

    /// Runs `f` at the working precision, then at the certifying one; the first error
    /// stops the run. The MPFR overflow/underflow flags either run raised are kept in
    /// [`AtBoth::range`] for [`AtBoth::guard_range`].
    pub fn run<T, E>(&self, f: impl Fn(u32) -> Result<T, E>) -> Result<AtBoth<T>, E> {
        let (lo, a) = crate::num::range::watch(|| f(self.bits.0));
        let (hi, b) = crate::num::range::watch(|| f(self.bits.1));
        Ok(AtBoth {
            lo: lo?,
            hi: hi?,
            range: a.or(b),
        })
    }

    /// Runs `first` at the working precision, then `then` at the certifying one from the
    /// first result (a computation that continues the first, such as a polish restarted
    /// from its optimum: each still computes at its own precision, and what the start
    /// leaves undetermined is the caller's to bound). The first error stops the run.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::num::Certify;
    /// // Newton for √2 at the higher precision from the lower one's root.
    /// let c = Certify::digits(30);
    /// let newton = |x: Float| (Float::with_val(x.prec(), 2u32 / &x) + &x) / 2u32;
    /// let both = c
    ///     .run_from(
    ///         |bits| Ok::<_, ()>(Float::with_val(bits, 2).sqrt()),
    ///         |bits, lo| Ok((0..3).fold(Float::with_val(bits, lo), |x, _| newton(x))),
    ///     )
    ///     .unwrap();
    /// assert_eq!(both.certify(c.wanted(), |x| x).digits, 30);
    /// ```
    pub fn run_from<T, E>(
        &self,
        first: impl FnOnce(u32) -> Result<T, E>,
        then: impl FnOnce(u32, &T) -> Result<T, E>,
    ) -> Result<AtBoth<T>, E> {
        let (lo, a) = crate::num::range::watch(|| first(self.bits.0));
        let lo = lo?;
        let (hi, b) = crate::num::range::watch(|| then(self.bits.1, &lo));
        Ok(AtBoth {
            lo,
            hi: hi?,
            range: a.or(b),
        })
    }

    /// A certified run at two given precisions (working, certifying) instead of those of
    /// [`crate::num::certify_bits`] for the digits (for callers that choose them).
    pub fn with_bits(digits: u32, bits: (u32, u32)) -> Self {
        Certify { digits, bits }
    }
}

/// The text printed for a value of which not even the first significant digit is certain
/// (no digit is printed that is not certified).
pub const UNDETERMINED: &str = "undetermined";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sci_formats() {
        let b = 200;
        assert_eq!(to_sci(&Float::with_val(b, 1), 5), "1.0000e0");
        assert_eq!(to_sci(&Float::with_val(b, 0.5), 1), "5e-1");
        assert_eq!(to_sci(&Float::with_val(b, 99.96), 3), "1.00e2");
        assert_eq!(to_sci(&Float::with_val(b, 0), 3), "0e0");
        let huge = crate::num::parse_decimal("2.5e100000", b).unwrap();
        assert_eq!(to_sci(&huge, 4), "2.500e100000");
    }

    #[test]
    fn equal_values_keep_all_digits() {
        let x = Float::with_val(300, 2).sqrt();
        let c = certify_pair(&x, &x, 40);
        assert_eq!(c.digits, 40);
    }

    #[test]
    fn disagreement_reduces_digits() {
        // 1.23456 vs 1.23467: agree to 4 significant digits after rounding (1.235).
        assert_eq!(certified_f64(1.23456, 1.23467, 10), (4, "1.235e0".into()));
    }

    #[test]
    fn boundary_rounding_is_conservative() {
        // 0.49999999 vs 0.50000001: rounded to 7 digits both are 5.000000e-1; at 8 they
        // differ. Digits are cut at the rounding boundary, never reported beyond agreement.
        assert_eq!(
            certified_f64(0.49999999, 0.50000001, 12),
            (7, "5.000000e-1".into())
        );
    }

    /// The digits and text [`certify_pair`] gives two f64 values (read at 64 bits).
    fn certified_f64(a: f64, b: f64, wanted: u32) -> (u32, String) {
        let c = certify_pair(&Float::with_val(64, a), &Float::with_val(64, b), wanted);
        (c.digits, c.text)
    }
}

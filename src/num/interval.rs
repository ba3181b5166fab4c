//! Rigorous enclosures: an [`Interval`] [lo, hi] of MPFR floats, computed with outward
//! rounding, so that the exact real value of a formula lies in it.
//!
//! **What is proven.** MPFR rounds every arithmetic operation and every function used here
//! (exp, expm1, ln, ln1p, sqrt, pow, erfc, Γ, the upper incomplete Γ) correctly in the
//! direction asked. Each operation below computes its lower end rounded toward −∞ and its
//! upper end toward +∞ from the ends of its operands, using the monotonicity of the
//! operation on the operands' box, so its result contains f(x, y) for every x and y in the
//! operands (the *inclusion property*). A formula evaluated operation by operation on
//! intervals therefore contains the formula's exact value at every point of its inputs. A
//! decimal input such as 0.1, which no binary float equals, is enclosed by parsing it
//! rounded down and rounded up ([`Interval::from_decimal`]).
//!
//! **What is not.** Operations evaluate each occurrence of a variable independently (the
//! dependency problem): an enclosure is valid but may be wider than the range of the
//! formula. The formulas of the families are written so that the widening stays near the
//! rounding (expm1 and ln1p forms, sums of positive terms, and monotonicity in a parameter
//! evaluated at the parameter's ends, [`Interval::increasing`]).
//!
//! Infinite ends stand for unbounded sets: [x, +∞] contains every real ≥ x. By the
//! set-based convention (IEEE 1788), a product of an exact 0 and an infinite end is 0.
//! The precision of a result is the larger precision of the operands, as for
//! [`crate::num::real::Real`] on MPFR floats.

use super::certify::{certify_pair, to_sci_round, Certified};
use super::NumError;
use rug::float::{Constant, Round, Special};
use rug::ops::{AssignRound, Pow};
use rug::Float;
use std::cmp::Ordering;

/// The rounding of a lower end: toward −∞.
#[cfg(not(test))]
#[inline]
fn rd() -> Round {
    Round::Down
}
/// The rounding of an upper end: toward +∞.
#[cfg(not(test))]
#[inline]
fn ru() -> Round {
    Round::Up
}

#[cfg(test)]
thread_local! {
    /// A deliberate mutation for the tests: round every lower end up and every upper end
    /// down (the wrong directions), to show that the tests catch it.
    static WRONG_DIRECTIONS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
#[cfg(test)]
fn rd() -> Round {
    if WRONG_DIRECTIONS.with(|c| c.get()) {
        Round::Up
    } else {
        Round::Down
    }
}
#[cfg(test)]
fn ru() -> Round {
    if WRONG_DIRECTIONS.with(|c| c.get()) {
        Round::Down
    } else {
        Round::Up
    }
}
/// Runs `f` with the rounding directions swapped (the tests' mutation).
#[cfg(test)]
pub(crate) fn with_wrong_directions<T>(f: impl FnOnce() -> T) -> T {
    WRONG_DIRECTIONS.with(|c| c.set(true));
    let r = f();
    WRONG_DIRECTIONS.with(|c| c.set(false));
    r
}

/// `v` at `prec` bits rounded toward −∞ (a NaN, from ∞ − ∞, becomes −∞).
#[inline]
fn down<T>(prec: u32, v: T) -> Float
where
    Float: AssignRound<T, Round = Round, Ordering = Ordering>,
{
    let x = Float::with_val_round(prec, v, rd()).0;
    if x.is_nan() {
        special(prec, Special::NegInfinity)
    } else {
        x
    }
}

/// `v` at `prec` bits rounded toward +∞ (a NaN becomes +∞).
#[inline]
fn up<T>(prec: u32, v: T) -> Float
where
    Float: AssignRound<T, Round = Round, Ordering = Ordering>,
{
    let x = Float::with_val_round(prec, v, ru()).0;
    if x.is_nan() {
        special(prec, Special::Infinity)
    } else {
        x
    }
}

/// An infinity at `prec` bits.
fn special(prec: u32, v: Special) -> Float {
    Float::with_val(prec, v)
}

/// A closed interval [lo, hi] of extended reals with MPFR ends, lo ≤ hi, neither a NaN.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    lo: Float,
    hi: Float,
}

/// Guard bits of a proven computation beyond the digits' bits.
pub const RIGOROUS_GUARD_BITS: u32 = 32;
/// A proven computation that proves fewer digits than asked is repeated with the missing
/// bits at most this many times in all.
pub const RIGOROUS_ATTEMPTS: usize = 3;

/// The first precision of a proven computation for `digits` digits: the working
/// precision ([`super::working_bits`]) and [`RIGOROUS_GUARD_BITS`].
pub fn proven_first_bits(digits: u32) -> u32 {
    super::working_bits(digits) + RIGOROUS_GUARD_BITS
}

/// The precision of the next attempt when `proven` of `wanted` digits were proven at
/// `bits`: the missing digits' bits and the guard again.
pub fn proven_next_bits(bits: u32, proven: u32, wanted: u32) -> u32 {
    let missing = f64::from(wanted.saturating_sub(proven)) * std::f64::consts::LOG2_10;
    bits + missing.ceil() as u32 + RIGOROUS_GUARD_BITS
}

/// The fewest digits proven among `xs` (`wanted` when there are none).
pub fn fewest_proven<'a>(xs: impl IntoIterator<Item = &'a Interval>, wanted: u32) -> u32 {
    xs.into_iter()
        .map(|x| x.proven(wanted).digits)
        .min()
        .unwrap_or(wanted)
}

/// A proven answer for `digits` digits: `compute` at [`proven_first_bits`], and again at
/// [`proven_next_bits`] while `proven` (the digits its enclosures prove) counts fewer than
/// asked, at most [`RIGOROUS_ATTEMPTS`] precisions in all; the last answer is returned
/// (its enclosures hold at any precision; only their width changes).
pub fn prove_to_digits<T, E>(
    digits: u32,
    mut compute: impl FnMut(u32) -> Result<T, E>,
    proven: impl Fn(&T) -> u32,
) -> Result<T, E> {
    let mut bits = proven_first_bits(digits);
    let mut attempt = 1;
    loop {
        let t = compute(bits)?;
        let got = proven(&t);
        if got >= digits || attempt >= RIGOROUS_ATTEMPTS {
            return Ok(t);
        }
        bits = proven_next_bits(bits, got, digits);
        attempt += 1;
    }
}

/// The smallest value of Γ on (0, ∞) is Γ(x₀) = 0.88560319441088870027… at
/// x₀ = 1.46163214496836234126… (DLMF 5.4.iii); these are a lower bound of it and a
/// bracket of x₀.
const GAMMA_MIN_LOWER: f64 = 0.8856;
const GAMMA_ARGMIN_BELOW: f64 = 1.4616;
const GAMMA_ARGMIN_ABOVE: f64 = 1.4617;

impl Interval {
    /// [lo, hi] from two ends (swapped if given in the wrong order; a NaN end becomes
    /// the infinite end on its side).
    pub fn new(lo: Float, hi: Float) -> Self {
        let lo = if lo.is_nan() {
            Float::with_val(lo.prec(), Special::NegInfinity)
        } else {
            lo
        };
        let hi = if hi.is_nan() {
            Float::with_val(hi.prec(), Special::Infinity)
        } else {
            hi
        };
        if lo <= hi {
            Interval { lo, hi }
        } else {
            Interval { lo: hi, hi: lo }
        }
    }

    /// The exact value `x` as a one-point interval.
    pub fn point(x: Float) -> Self {
        Interval {
            lo: x.clone(),
            hi: x,
        }
    }

    /// An integer (or any value exact at `bits`) as a one-point interval, rounded outward
    /// if it is not exact.
    pub fn int(bits: u32, n: i64) -> Self {
        Interval {
            lo: down(bits, n),
            hi: up(bits, n),
        }
    }

    /// [0, 0] at `bits`.
    pub fn zero_at(bits: u32) -> Self {
        Self::int(bits, 0)
    }

    /// [+∞, +∞] at `bits`: the value of a mean that is infinite.
    pub fn infinite_at(bits: u32) -> Self {
        Self::point(Float::with_val(bits, Special::Infinity))
    }

    /// Every real: (−∞, +∞).
    pub fn entire(bits: u32) -> Self {
        Interval {
            lo: Float::with_val(bits, Special::NegInfinity),
            hi: Float::with_val(bits, Special::Infinity),
        }
    }

    /// π.
    pub fn pi(bits: u32) -> Self {
        Interval {
            lo: down(bits, Constant::Pi),
            hi: up(bits, Constant::Pi),
        }
    }

    /// A decimal string (`"0.1"`, `"1e1000"`) enclosed at `bits`: parsed once rounded
    /// toward −∞ and once toward +∞ (MPFR's conversion is correctly rounded), so that the
    /// decimal's exact value lies in the result; a point when the decimal is a binary
    /// number of at most `bits` bits. The same strings are accepted as by
    /// [`crate::num::parse_decimal`].
    ///
    /// ```
    /// use taskassign::num::Interval;
    /// let tenth = Interval::from_decimal("0.1", 64).unwrap();
    /// assert!(tenth.lo() < tenth.hi()); // 1/10 is not a binary number
    /// assert!(Interval::from_decimal("0.5", 64).unwrap().is_point());
    /// ```
    pub fn from_decimal(s: &str, bits: u32) -> Result<Self, NumError> {
        // The same validation as parse_decimal (finite, decimal characters only).
        super::parse_decimal(s, bits.max(2))?;
        let t = s.trim();
        let bad = || NumError::BadNumber(s.to_string());
        let lo = Float::with_val_round(bits, Float::parse(t).map_err(|_| bad())?, rd()).0;
        let hi = Float::with_val_round(bits, Float::parse(t).map_err(|_| bad())?, ru()).0;
        if !lo.is_finite() || !hi.is_finite() {
            return Err(bad());
        }
        Ok(Interval { lo, hi })
    }

    /// The lower end.
    pub fn lo(&self) -> &Float {
        &self.lo
    }

    /// The upper end.
    pub fn hi(&self) -> &Float {
        &self.hi
    }

    /// The precision of the ends.
    pub fn prec(&self) -> u32 {
        self.lo.prec().max(self.hi.prec())
    }

    /// Whether lo = hi (an exact value).
    pub fn is_point(&self) -> bool {
        self.lo == self.hi
    }

    /// The lower end as a one-point interval.
    pub fn lo_point(&self) -> Self {
        Self::point(self.lo.clone())
    }

    /// The upper end as a one-point interval.
    pub fn hi_point(&self) -> Self {
        Self::point(self.hi.clone())
    }

    /// The midpoint (rounded to nearest; a finite point inside the interval when both ends
    /// are finite).
    pub fn mid(&self) -> Float {
        let p = self.prec();
        if self.lo.is_infinite() || self.hi.is_infinite() {
            return if self.lo.is_finite() {
                self.lo.clone()
            } else if self.hi.is_finite() {
                self.hi.clone()
            } else {
                Float::with_val(p, 0)
            };
        }
        Float::with_val(p + 1, &self.lo + &self.hi) / 2u32
    }

    /// Whether `x` lies in the interval.
    pub fn contains(&self, x: &Float) -> bool {
        self.lo <= *x && *x <= self.hi
    }

    /// Whether the interval contains 0.
    pub fn contains_zero(&self) -> bool {
        self.lo <= 0 && self.hi >= 0
    }

    /// Whether every point is > 0.
    pub fn is_positive(&self) -> bool {
        self.lo > 0
    }

    /// Whether every point is < 0.
    pub fn is_negative(&self) -> bool {
        self.hi < 0
    }

    /// Whether every point is < x.
    pub fn lt(&self, x: &Float) -> bool {
        self.hi < *x
    }

    /// Whether every point is > x.
    pub fn gt(&self, x: &Float) -> bool {
        self.lo > *x
    }

    /// Whether every point is < every point of `other`.
    pub fn lt_all(&self, other: &Interval) -> bool {
        self.hi < other.lo
    }

    /// The ends at `bits` (rounded outward when narrowing).
    pub fn at_prec(&self, bits: u32) -> Self {
        Interval {
            lo: down(bits, &self.lo),
            hi: up(bits, &self.hi),
        }
    }

    /// The smallest interval holding both.
    pub fn hull(&self, other: &Interval) -> Self {
        Interval {
            lo: self.lo.clone().min(&other.lo),
            hi: self.hi.clone().max(&other.hi),
        }
    }

    /// max(x, y) over the two intervals.
    pub fn max(&self, other: &Interval) -> Self {
        Interval {
            lo: self.lo.clone().max(&other.lo),
            hi: self.hi.clone().max(&other.hi),
        }
    }

    /// min(x, y) over the two intervals.
    pub fn min(&self, other: &Interval) -> Self {
        Interval {
            lo: self.lo.clone().min(&other.lo),
            hi: self.hi.clone().min(&other.hi),
        }
    }

    /// The interval with its lower end raised to at least `x` (x ≤ hi): the part of the
    /// interval at or above x, for a quantity known to be ≥ x.
    pub fn clamp_below(&self, x: &Float) -> Self {
        Interval {
            lo: self.lo.clone().max(x),
            hi: self.hi.clone().max(x),
        }
    }

    /// x + y: [lo + lo', hi + hi'].
    pub fn add(&self, o: &Interval) -> Self {
        let p = self.prec().max(o.prec());
        Interval::new(down(p, &self.lo + &o.lo), up(p, &self.hi + &o.hi))
    }

    /// x − y: [lo − hi', hi − lo'].
    pub fn sub(&self, o: &Interval) -> Self {
        let p = self.prec().max(o.prec());
        Interval::new(down(p, &self.lo - &o.hi), up(p, &self.hi - &o.lo))
    }

    /// −x (exact).
    pub fn neg(&self) -> Self {
        Interval {
            lo: Float::with_val(self.hi.prec(), -&self.hi),
            hi: Float::with_val(self.lo.prec(), -&self.lo),
        }
    }

    /// x · y: the extremes of the four products of ends (0 · ∞ = 0).
    pub fn mul(&self, o: &Interval) -> Self {
        let p = self.prec().max(o.prec());
        if self.lo >= 0 && o.lo >= 0 {
            return Interval::new(
                prod(p, &self.lo, &o.lo, false),
                prod(p, &self.hi, &o.hi, true),
            );
        }
        let ends = [
            (&self.lo, &o.lo),
            (&self.lo, &o.hi),
            (&self.hi, &o.lo),
            (&self.hi, &o.hi),
        ];
        let mut lo = Float::with_val(p, Special::Infinity);
        let mut hi = Float::with_val(p, Special::NegInfinity);
        for (a, b) in ends {
            let l = prod(p, a, b, false);
            let h = prod(p, a, b, true);
            if l < lo {
                lo = l;
            }
            if h > hi {
                hi = h;
            }
        }
        Interval::new(lo, hi)
    }

    /// x · 2^k (exact unless it leaves the exponent range).
    pub fn mul_2exp(&self, k: i32) -> Self {
        let p = self.prec();
        let f = |x: &Float, r: bool| {
            let y = Float::with_val(p, x);
            if r {
                up(p, y << k)
            } else {
                down(p, y << k)
            }
        };
        Interval::new(f(&self.lo, false), f(&self.hi, true))
    }

    /// 1/x: for x not containing 0; [1/hi, +∞] when lo = 0 < hi; every real when 0 is
    /// inside.
    pub fn recip(&self) -> Self {
        let p = self.prec();
        if self.lo > 0 || self.hi < 0 {
            return Interval::new(down(p, 1u32 / &self.hi), up(p, 1u32 / &self.lo));
        }
        if self.lo == 0 && self.hi > 0 {
            return Interval::new(
                down(p, 1u32 / &self.hi),
                Float::with_val(p, Special::Infinity),
            );
        }
        if self.hi == 0 && self.lo < 0 {
            return Interval::new(
                Float::with_val(p, Special::NegInfinity),
                up(p, 1u32 / &self.lo),
            );
        }
        Interval::entire(p)
    }

    /// x / y (one rounding per end where both are positive; through 1/y otherwise).
    pub fn div(&self, o: &Interval) -> Self {
        let p = self.prec().max(o.prec());
        if self.lo >= 0 && o.lo > 0 {
            return Interval::new(
                quot(p, &self.lo, &o.hi, false),
                quot(p, &self.hi, &o.lo, true),
            );
        }
        if self.lo >= 0 && o.lo == 0 && o.hi > 0 {
            // y ∈ (0, hi]: x/y ∈ [lo/hi, +∞] (0 when x = 0 exactly).
            let hi = if self.hi == 0 {
                Float::with_val(p, 0)
            } else {
                Float::with_val(p, Special::Infinity)
            };
            return Interval::new(quot(p, &self.lo, &o.hi, false), hi);
        }
        self.mul(&o.recip())
    }

    /// x / n for a positive integer n.
    pub fn div_u(&self, n: u32) -> Self {
        let p = self.prec();
        Interval::new(down(p, &self.lo / n), up(p, &self.hi / n))
    }

    /// x · n for an integer n ≥ 0.
    pub fn mul_u(&self, n: u32) -> Self {
        let p = self.prec();
        Interval::new(down(p, &self.lo * n), up(p, &self.hi * n))
    }

    /// x².
    pub fn square(&self) -> Self {
        let p = self.prec();
        if self.lo >= 0 {
            Interval::new(down(p, self.lo.square_ref()), up(p, self.hi.square_ref()))
        } else if self.hi <= 0 {
            Interval::new(down(p, self.hi.square_ref()), up(p, self.lo.square_ref()))
        } else {
            let m = up(p, self.lo.square_ref()).max(&up(p, self.hi.square_ref()));
            Interval::new(Float::with_val(p, 0), m)
        }
    }

    /// x^j for an integer j and x ≥ 0 (the part of x below 0 is ignored; 0^j = +∞ for
    /// j < 0).
    pub fn powi(&self, j: i32) -> Self {
        let p = self.prec();
        let x = self.clamp_below(&Float::with_val(p, 0));
        match j.cmp(&0) {
            Ordering::Equal => Interval::int(p, 1),
            Ordering::Greater => Interval::new(down(p, (&x.lo).pow(j)), up(p, (&x.hi).pow(j))),
            Ordering::Less => Interval::new(down(p, (&x.hi).pow(j)), up(p, (&x.lo).pow(j))),
        }
    }

    /// x^y for x > 0 (MPFR's correctly rounded pow at the corners of the box: x^y is
    /// monotone in each of x and y there).
    pub fn pow(&self, y: &Interval) -> Self {
        let p = self.prec().max(y.prec());
        let x = self.clamp_below(&Float::with_val(p, 0));
        let xs: Vec<&Float> = if x.is_point() {
            vec![&x.lo]
        } else {
            vec![&x.lo, &x.hi]
        };
        let ys: Vec<&Float> = if y.is_point() {
            vec![&y.lo]
        } else {
            vec![&y.lo, &y.hi]
        };
        let mut lo = Float::with_val(p, Special::Infinity);
        let mut hi = Float::with_val(p, Special::NegInfinity);
        for a in &xs {
            for b in &ys {
                let l = down(p, (*a).pow(*b));
                let h = up(p, (*a).pow(*b));
                if l < lo {
                    lo = l;
                }
                if h > hi {
                    hi = h;
                }
            }
        }
        Interval::new(lo, hi)
    }

    /// e^x.
    pub fn exp(&self) -> Self {
        let p = self.prec();
        Interval::new(down(p, self.lo.exp_ref()), up(p, self.hi.exp_ref()))
    }

    /// e^x − 1.
    pub fn exp_m1(&self) -> Self {
        let p = self.prec();
        Interval::new(down(p, self.lo.exp_m1_ref()), up(p, self.hi.exp_m1_ref()))
    }

    /// ln x for x ≥ 0 (ln 0 = −∞; the part below 0 is ignored).
    pub fn ln(&self) -> Self {
        let p = self.prec();
        let x = self.clamp_below(&Float::with_val(p, 0));
        Interval::new(down(p, x.lo.ln_ref()), up(p, x.hi.ln_ref()))
    }

    /// ln(1 + x) for x ≥ −1.
    pub fn ln_1p(&self) -> Self {
        let p = self.prec();
        let x = self.clamp_below(&Float::with_val(p, -1));
        Interval::new(down(p, x.lo.ln_1p_ref()), up(p, x.hi.ln_1p_ref()))
    }

    /// √x for x ≥ 0.
    pub fn sqrt(&self) -> Self {
        let p = self.prec();
        let x = self.clamp_below(&Float::with_val(p, 0));
        Interval::new(down(p, x.lo.sqrt_ref()), up(p, x.hi.sqrt_ref()))
    }

    /// x^(1/n) for x ≥ 0 and n ≥ 1 (increasing; MPFR's correctly rounded root); a
    /// negative lower end is raised to 0.
    pub fn root(&self, n: u32) -> Self {
        let p = self.prec();
        let x = self.clamp_below(&Float::with_val(p, 0));
        Interval::new(down(p, x.lo.root_ref(n)), up(p, x.hi.root_ref(n)))
    }

    /// erfc x (decreasing).
    pub fn erfc(&self) -> Self {
        let p = self.prec();
        Interval::new(down(p, self.hi.erfc_ref()), up(p, self.lo.erfc_ref()))
    }

    /// Γ(x) for x > 0 (decreasing below its minimum at x₀ ≈ 1.4616, increasing above;
    /// an interval around x₀ gets a lower end just below Γ(x₀)).
    pub fn gamma(&self) -> Self {
        let p = self.prec();
        if self.hi <= GAMMA_ARGMIN_BELOW {
            Interval::new(down(p, self.hi.gamma_ref()), up(p, self.lo.gamma_ref()))
        } else if self.lo >= GAMMA_ARGMIN_ABOVE {
            Interval::new(down(p, self.lo.gamma_ref()), up(p, self.hi.gamma_ref()))
        } else {
            let h = up(p, self.lo.gamma_ref()).max(&up(p, self.hi.gamma_ref()));
            Interval::new(down(p, GAMMA_MIN_LOWER), h)
        }
    }

    /// The upper incomplete gamma Γ(s, y) = ∫_y^∞ t^(s−1) e^(−t) dt for a point s (not a
    /// negative integer, where MPFR has no value) and y ≥ 0, by MPFR's `gamma_inc`
    /// (decreasing in y). MPFR computes it slowly for large y (seconds at y = 10^4):
    /// [`crate::num::gamma`] takes the asymptotic expansion there.
    pub fn gamma_inc(s: &Float, y: &Interval) -> Self {
        let p = y.prec().max(s.prec());
        Interval::new(
            down(p, s.gamma_inc_ref(&y.hi)),
            up(p, s.gamma_inc_ref(&y.lo)),
        )
    }

    /// f over the interval for an increasing f, from its enclosures at the two ends: the
    /// lower end of f(lo), the upper end of f(hi). This is how a parameter that appears in
    /// a formula more than once (where operation-by-operation evaluation would widen the
    /// result) is enclosed: the formula is evaluated at the parameter's exact ends.
    pub fn increasing(&self, mut f: impl FnMut(&Interval) -> Interval) -> Self {
        if self.is_point() {
            return f(self);
        }
        let a = f(&self.lo_point());
        let b = f(&self.hi_point());
        Interval::new(a.lo, b.hi)
    }

    /// f over the interval for a decreasing f (see [`Interval::increasing`]).
    pub fn decreasing(&self, mut f: impl FnMut(&Interval) -> Interval) -> Self {
        if self.is_point() {
            return f(self);
        }
        let a = f(&self.hi_point());
        let b = f(&self.lo_point());
        Interval::new(a.lo, b.hi)
    }

    /// The significant digits the interval proves: the decimal, with at most `wanted`
    /// significant digits, to which every point of the interval rounds to nearest (so it
    /// is the correctly rounded exact value); `undetermined` with 0 digits when not even
    /// the first digit is common to both ends.
    pub fn proven(&self, wanted: u32) -> Certified {
        certify_pair(&self.lo, &self.hi, wanted)
    }

    /// The lower end as a decimal string of `digits` significant digits rounded toward
    /// −∞ (so it is ≤ the end): `"inf"`/`"-inf"` for infinite ends, `"0e0"` for zero.
    pub fn lo_text(&self, digits: u32) -> String {
        to_sci_round(&self.lo, digits, Round::Down)
    }

    /// The upper end as a decimal string rounded toward +∞ (see [`Interval::lo_text`]).
    pub fn hi_text(&self, digits: u32) -> String {
        to_sci_round(&self.hi, digits, Round::Up)
    }

    /// The width relative to the smaller magnitude of the ends, in f64 (+∞ when an end is
    /// infinite or the interval contains 0 and is not [0, 0]).
    pub fn rel_width(&self) -> f64 {
        if self.lo == self.hi {
            return 0.0;
        }
        if !self.lo.is_finite() || !self.hi.is_finite() || self.contains_zero() {
            return f64::INFINITY;
        }
        let p = self.prec();
        let w = Float::with_val(p, &self.hi - &self.lo);
        let m = Float::with_val(p, self.lo.abs_ref()).min(&Float::with_val(p, self.hi.abs_ref()));
        (w / m).to_f64()
    }
}

/// a · b rounded up (`up`) or down, with 0 · ∞ = 0.
fn prod(p: u32, a: &Float, b: &Float, round_up: bool) -> Float {
    if a.is_zero() || b.is_zero() {
        return Float::with_val(p, 0);
    }
    if round_up {
        up(p, a * b)
    } else {
        down(p, a * b)
    }
}

/// a / b rounded up or down for a ≥ 0, b > 0 (0/∞ = 0, ∞/∞ = ∞ for the upper end, 0
/// for the lower).
fn quot(p: u32, a: &Float, b: &Float, round_up: bool) -> Float {
    if a.is_zero() {
        return Float::with_val(p, 0);
    }
    if a.is_infinite() && b.is_infinite() {
        return if round_up {
            Float::with_val(p, Special::Infinity)
        } else {
            Float::with_val(p, 0)
        };
    }
    if round_up {
        up(p, a / b)
    } else {
        down(p, a / b)
    }
}

/// The rigorous scalar of the policy formulas ([`crate::num::real::Real`]): a nonnegative
/// interval. The trait's "at least one" is a *proven* instability (lo ≥ 1); a load whose
/// interval contains 1 counts as possibly stable, and its 1 − ρ has lower end 0, so the
/// waiting it divides is [w, +∞]: an enclosure of a quantity that is finite for ρ < 1 and
/// infinite (by the model's convention) for ρ ≥ 1. A caller that must know whether a host
/// is stable checks the load's upper end.
impl super::real::Real for Interval {
    #[inline]
    fn zero(&self) -> Self {
        Interval::zero_at(self.prec())
    }
    #[inline]
    fn infinity(&self) -> Self {
        Interval::infinite_at(self.prec())
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.lo.is_zero() && self.hi.is_zero()
    }
    #[inline]
    fn at_least_one(&self) -> bool {
        self.lo >= 1
    }
    #[inline]
    fn add(self, other: &Self) -> Self {
        Interval::add(&self, other)
    }
    #[inline]
    fn mul(&self, other: &Self) -> Self {
        Interval::mul(self, other)
    }
    #[inline]
    fn div(self, other: &Self) -> Self {
        Interval::div(&self, other)
    }
    #[inline]
    fn half(self) -> Self {
        self.mul_2exp(-1)
    }
    #[inline]
    fn one_minus(&self) -> Self {
        let p = self.prec();
        Interval::new(down(p, 1u32 - &self.hi), up(p, 1u32 - &self.lo))
            .clamp_below(&Float::with_val(p, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::real::Real;
    use rug::Rational;

    fn d(s: &str, bits: u32) -> Interval {
        Interval::from_decimal(s, bits).unwrap()
    }

    fn holds(i: &Interval, q: &Rational) -> bool {
        i.lo() <= q && i.hi() >= q
    }

    /// Exact rational arithmetic is the oracle: 1/10 + 2/10 · 3/7 − 1/3, enclosed at 64 bits,
    /// contains the exact value 1/10 + 6/70 − 1/3 (rug's `Rational`).
    #[test]
    fn arithmetic_encloses_exact_rationals() {
        let b = 64;
        let x = d("0.1", b).add(&d("0.2", b).mul(&Interval::int(b, 3).div(&Interval::int(b, 7))));
        let x = x.sub(&Interval::int(b, 1).div(&Interval::int(b, 3)));
        let q = Rational::from((1, 10)) + Rational::from((6, 70)) - Rational::from((1, 3));
        assert!(holds(&x, &q));
        assert!(x.rel_width() < 1e-17);
        // Signed products and reciprocals.
        let y = d("-0.3", b).mul(&d("0.7", b)).div(&d("-1.1", b));
        assert!(holds(&y, &Rational::from((21, 110))));
        assert!(Interval::new(Float::with_val(b, 0), Float::with_val(b, 2))
            .recip()
            .hi()
            .is_infinite());
    }

    /// The mutation: with the rounding directions swapped, the same computation no longer
    /// contains the exact value (1/10 and 1/3 are not binary numbers, so every rounding
    /// moves the ends).
    #[test]
    fn wrong_rounding_directions_are_caught() {
        let b = 64;
        let q = Rational::from((1, 10)) + Rational::from((1, 3));
        let ok = d("0.1", b).add(&Interval::int(b, 1).div(&Interval::int(b, 3)));
        assert!(holds(&ok, &q));
        let bad = with_wrong_directions(|| {
            d("0.1", b).add(&Interval::int(b, 1).div(&Interval::int(b, 3)))
        });
        assert!(!holds(&bad, &q), "{bad:?}");
    }

    /// Functions against MPFR at 4× the precision (a correctly rounded value far inside
    /// the enclosure): e^(1/10), ln(1/10), expm1(1e-30), ln1p(−1/3), erfc(10), Γ(1/10),
    /// Γ(2, 1/3) (= (1 + y) e^(−y), DLMF 8.4.8), (1/10)^(5/2).
    #[test]
    fn functions_contain_high_precision_values() {
        let b = 80;
        let hp = 4 * b;
        let t = |s: &str| crate::num::parse_decimal(s, hp).unwrap();
        let check = |i: Interval, v: Float, what: &str| {
            assert!(i.contains(&v), "{what}: {i:?} vs {v}");
            assert!(i.rel_width() < 1e-21, "{what}: {}", i.rel_width());
        };
        check(d("0.1", b).exp(), t("0.1").exp(), "exp");
        check(d("0.1", b).ln(), t("0.1").ln(), "ln");
        check(d("1e-30", b).exp_m1(), t("1e-30").exp_m1(), "expm1");
        let third = Interval::int(b, -1).div(&Interval::int(b, 3));
        let want = Float::with_val(hp, Float::with_val(hp, -1) / 3u32).ln_1p();
        check(third.ln_1p(), want, "ln1p");
        check(
            Interval::int(b, 10).erfc(),
            Float::with_val(hp, 10).erfc(),
            "erfc",
        );
        check(d("0.1", b).gamma(), t("0.1").gamma(), "gamma");
        let y = Interval::int(b, 1).div(&Interval::int(b, 3));
        let yh = Float::with_val(hp, 1) / 3u32;
        let want = Float::with_val(hp, &yh + 1u32) * Float::with_val(hp, -&yh).exp();
        check(
            Interval::gamma_inc(&Float::with_val(b, 2), &y),
            want,
            "gamma_inc",
        );
        check(
            d("0.1", b).pow(&d("2.5", b)),
            t("0.1").pow(Float::with_val(hp, 2.5)),
            "pow",
        );
    }

    /// The scalar of the policy formulas: a load interval that contains 1 is not proven
    /// unstable, and its waiting is unbounded above.
    #[test]
    fn real_scalar_of_a_load_near_one() {
        let b = 64;
        let rho = Interval::new(Float::with_val(b, 0.75), Float::with_val(b, 1.25));
        assert!(!rho.at_least_one());
        let w = Interval::int(b, 1).div(&rho.one_minus());
        assert!(w.hi().is_infinite() && *w.lo() == 4);
        let zero = rho.zero();
        assert!(Real::is_zero(&zero));
        assert_eq!(*zero.mul(&rho.infinity()).hi(), 0);
    }

    /// Decimal ends: rounded outward, so the printed lower end is ≤ and the upper ≥ the
    /// exact value; a proven digit is the rounding of every point.
    #[test]
    fn decimal_texts_round_outward() {
        let b = 64;
        let x = Interval::int(b, 2).div(&Interval::int(b, 3));
        assert_eq!(x.lo_text(5), "6.6666e-1");
        assert_eq!(x.hi_text(5), "6.6667e-1");
        assert_eq!(x.proven(10).text, "6.666666667e-1");
    }
}

//! Rigorous enclosures of the built-in job-size laws: the tail F̄, the partial moments
//! M_j(a, b) for j ∈ {−1, 0, 1, 2} and sup_x x F̄(x), each as an [`Interval`] that contains
//! the exact value for the decimal parameters the user wrote (which are enclosed too,
//! [`Interval::from_decimal`]).
//!
//! A family implements [`Enclosure`] at exact points (a tail at a float x, a moment between
//! two floats); the provided methods extend them to intervals by monotonicity (F̄ falls with
//! x; M_j(a, b) falls with a and rises with b), so an enclosure over a box of cutoffs costs
//! two point evaluations. Each family's formulas are those of its file in `dist/`, written
//! for intervals without catastrophic widening (expm1/ln1p forms, sums of positive terms,
//! and the incomplete gamma and normal tail enclosures of [`crate::num::gamma`] and
//! [`crate::num::normal`]); a parameter that enters a formula more than once in a way that
//! would widen it is evaluated at its exact ends ([`Interval::increasing`]).
//!
//! A user density ([`super::custom`]) has no enclosure: its moments come from quadrature,
//! whose error is estimated, not bounded ([`super::DistFactory::enclose`] says so).

mod empirical;
mod exponential;
mod gamma_family;
mod lognormal;
mod power_law;
mod uniform;

pub use empirical::{decimal_rational, EmpiricalEnclosure};
pub use exponential::{ExponentialEnclosure, HyperExpEnclosure};
pub use gamma_family::{ErlangEnclosure, WeibullEnclosure};
pub use lognormal::LogNormalEnclosure;
pub use power_law::PowerLawEnclosure;
pub use uniform::{DeterministicEnclosure, UniformEnclosure};

use super::{check_order, DistError};
use crate::num::interval::Interval;
use crate::num::{message_number, NumError};
use rug::float::Special;
use rug::Float;

/// A job-size law enclosed at a precision: every method returns an interval that contains
/// the exact value (for the exact decimal parameters and arguments).
pub trait Enclosure: Send + Sync + std::fmt::Debug {
    /// Family name (`"bp"`, `"exp"`, …).
    fn family(&self) -> &'static str;
    /// Precision (bits) of the intervals returned.
    fn prec(&self) -> u32;
    /// The low end of the support (s_0). The default is [0, 0], the low end of a law on
    /// the half-line [0, ∞); a law whose support starts elsewhere overrides it.
    fn lower(&self) -> Interval {
        Interval::zero_at(self.prec())
    }
    /// The high end of the support (s_h); [+∞, +∞] for unbounded families, the default.
    fn upper(&self) -> Interval {
        Interval::infinite_at(self.prec())
    }
    /// F̄(x) = P(X > x) at an exact x.
    fn tail_at(&self, x: &Float) -> Result<Interval, DistError>;
    /// M_j(a, b) = E[X^j; a < X ≤ b] at exact a < b, j ∈ {−1, 0, 1, 2}; a may lie below
    /// the support (the moment then starts at its low end, an atom there included) and b
    /// may be +∞.
    fn moment_at(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, DistError>;
    /// sup_x x F̄(x) over the support (it decides the TAGS threshold as h → ∞).
    fn sup_x_tail(&self) -> Result<Interval, DistError>;

    /// The density f over every x in the interval, for a law with a bounded density near
    /// it; `None` where the family gives none (atoms, a density unbounded there, or not
    /// written for the family). Where the interval reaches past an end of the support
    /// the enclosure holds 0 too, so it contains the derivative of F (and of every M_j
    /// in its ends) almost everywhere on the interval: what a mean-value bound needs of a
    /// Lipschitz function (`optimize::proven`).
    fn density(&self, _x: &Interval) -> Option<Interval> {
        None
    }

    /// Whether F is absolutely continuous: the law has a density everywhere, perhaps
    /// unbounded near a point where [`Enclosure::density`] gives none (Weibull with shape
    /// below 1 at 0), and no atom. Then every moment M_j and the tail are integrals of
    /// x^j f(x), and a derivative of the objective that is f(s) times a bounded factor
    /// integrates to that factor times a difference of F: what the mean-value form of
    /// `optimize::proven` uses over a cutoff interval where the density is not enclosed.
    /// `false` unless a family says so (a false `false` only loses that form).
    fn continuous(&self) -> bool {
        false
    }

    /// The derivative f' of the density over every x in the interval, for a law whose
    /// density is differentiable on it; `None` where the family gives none (the interval
    /// meets an end of the support where the density jumps, or the family has no
    /// [`Enclosure::density`]). Past the ends of the support it is 0. What the second
    /// derivatives of TAGS's objective in the quantiles need (the cutoff s = Q(u) has
    /// d²s/du² = −f'(s)/f(s)³; `optimize::proven`'s convex basin).
    fn density_slope(&self, _x: &Interval) -> Option<Interval> {
        None
    }

    /// Whether the density is C/x² on a bounded support [k, p] (the bounded Pareto with
    /// α = 1 exactly): then every SITA host's waiting term is a convex function of
    /// ln(b/a) alone, and the objective is convex in the cutoffs' logarithms
    /// (`optimize::proven`'s tangent-plane bound). `false` unless a family says so.
    fn inverse_square_density(&self) -> bool {
        false
    }

    /// The law's atoms where every size is one (the empirical law), sorted and distinct,
    /// each with a representative point ([`Atom`]); `None` for a law with a continuous
    /// part, or atoms the precision does not separate. A discrete law's cutoffs matter only
    /// through the atoms they pass: what `optimize --rigorous` needs to take the global
    /// minimum over them exactly.
    fn atoms(&self) -> Option<Vec<Atom>> {
        None
    }

    /// F̄ over every x in the interval (decreasing in x).
    fn tail(&self, x: &Interval) -> Result<Interval, DistError> {
        if x.is_point() {
            return self.tail_at(x.lo());
        }
        let lo = self.tail_at(x.hi())?;
        let hi = self.tail_at(x.lo())?;
        Ok(Interval::new(lo.lo().clone(), hi.hi().clone()))
    }

    /// M_j(a, b) over every a, b in the intervals (0 where a ≥ b): decreasing in a and
    /// increasing in b.
    fn partial_moment(&self, j: i32, a: &Interval, b: &Interval) -> Result<Interval, DistError> {
        check_order(j)?;
        let bits = self.prec();
        let at = |a: &Float, b: &Float| -> Result<Interval, DistError> {
            if a >= b {
                Ok(Interval::zero_at(bits))
            } else {
                self.moment_at(j, a, b)
            }
        };
        if a.is_point() && b.is_point() {
            return at(a.lo(), b.lo());
        }
        let lo = at(a.hi(), b.lo())?;
        let hi = at(a.lo(), b.hi())?;
        Ok(Interval::new(lo.lo().clone(), hi.hi().clone()))
    }

    /// E[X^j] over the whole support.
    fn moment(&self, j: i32) -> Result<Interval, DistError> {
        let bits = self.prec();
        self.moment_at(
            j,
            &below_support(bits),
            &Float::with_val(bits, Special::Infinity),
        )
    }

    /// E[X].
    fn mean(&self) -> Result<Interval, DistError> {
        self.moment(1)
    }
}

/// An atom x_k of a discrete law ([`Enclosure::atoms`]).
#[derive(Debug, Clone)]
pub struct Atom {
    /// x_k, exactly.
    pub exact: rug::Rational,
    /// x_k enclosed.
    pub value: Interval,
    /// A point r with x_k ≤ r < x_{k+1} (x_k rounded up): a cutoff at r sends exactly the
    /// atoms up to x_k below it, as a cutoff anywhere in [x_k, x_{k+1}) does.
    pub rep: Float,
}

/// The cutoffs `texts` (decimals) enclosed at the precision of `enc`: a decimal that is
/// exactly one of the law's atoms becomes that atom's point [`Atom::rep`] (a cutoff at x_k
/// sends x_k below it, as `rep` does, and a point decides every comparison with the
/// atoms), any other the enclosure of the decimal ([`Interval::from_decimal`]). Enclosed as
/// a decimal, a cutoff at an atom overlaps the atom's own enclosure and every host term
/// takes both sides of it: `eval --rigorous` over 50 000 lognormal sizes at 8 hosts, its
/// cutoffs at atoms, printed 2 digits, [0.112278, 0.112665] for 0.1124728 (2026-12-05).
pub fn enclose_cutoffs<T: AsRef<str>>(
    enc: &dyn Enclosure,
    texts: &[T],
) -> Result<Vec<Interval>, NumError> {
    let atoms = enc.atoms().unwrap_or_default();
    texts
        .iter()
        .map(|t| {
            let t = t.as_ref();
            let at = decimal_rational(t)
                .and_then(|q| atoms.binary_search_by(|a| a.exact.cmp(&q)).ok())
                .map(|i| Interval::point(atoms[i].rep.clone()));
            match at {
                Some(p) => Ok(p),
                None => Interval::from_decimal(t, enc.prec()),
            }
        })
        .collect()
}

/// A point below every support (all are in [0, ∞)): the first host's lower cutoff, so that
/// an atom at the support's low end is counted.
pub fn below_support(bits: u32) -> Float {
    Float::with_val(bits, -1)
}

/// A density (or its slope) of a law on (0, ∞) given by a closed form `f`, enclosed over
/// `x` by interval arithmetic: 0 where `x` lies below 0, `f(x)` where `x` lies inside
/// (0, ∞) and the enclosure is finite, `None` over an interval that meets 0 or reaches +∞
/// (where a natural extension may hold ∞ · 0, and a density may be unbounded or jump).
pub(crate) fn inside_half_line(
    x: &Interval,
    f: impl FnOnce() -> Option<Interval>,
) -> Option<Interval> {
    if *x.hi() < 0 {
        return Some(Interval::zero_at(x.prec()));
    }
    if *x.lo() <= 0 || !x.hi().is_finite() {
        return None;
    }
    f().filter(|v| v.lo().is_finite() && v.hi().is_finite())
}

/// The density of a unimodal law on [0, ∞) with f(0) = 0 (Weibull with k > 1, Erlang with
/// k ≥ 2, lognormal) over an interval `x` that meets 0 and ends at a finite x₁ > 0: f rises
/// on [0, m] (m the mode) and falls after, so over [0, x₁] it lies in [0, f(x₁)] where
/// x₁ < m and in [0, f(m)] otherwise (`f` an enclosure of the density over an interval
/// inside (0, ∞), `mode` an enclosure of m); at and below 0 it is 0. `None` where `x` lies
/// inside (0, ∞) or reaches +∞, or the bound is not finite.
pub(crate) fn from_zero_unimodal(
    x: &Interval,
    mode: &Interval,
    f: impl Fn(&Interval) -> Option<Interval>,
) -> Option<Interval> {
    if *x.lo() > 0 || !x.hi().is_finite() || *mode.lo() <= 0 {
        return None;
    }
    if *x.hi() <= 0 {
        // At and below 0 the density is 0 (f(0) = 0).
        return Some(Interval::zero_at(x.prec()));
    }
    let top = if x.hi() < mode.lo() {
        f(&x.hi_point())?
    } else {
        f(mode)?
    };
    top.hi()
        .is_finite()
        .then(|| Interval::new(Float::with_val(x.prec(), 0), top.hi().clone()))
}

/// [x, x] at `bits`, for an exact float.
pub(crate) fn pt(bits: u32, x: &Float) -> Interval {
    Interval::point(Float::with_val(bits.max(x.prec()), x))
}

/// (a, b] clipped to the support [lo, hi] (intervals): the clipped ends, or `None` when
/// the clipped interval is empty for every point of the supports' ends.
pub(crate) fn clip(
    a: &Float,
    b: &Float,
    lo: &Interval,
    hi: &Interval,
) -> Option<(Interval, Interval)> {
    let bits = lo.prec().max(hi.prec()).max(a.prec()).max(b.prec());
    let a = pt(bits, a).max(lo);
    let b = pt(bits, b).min(hi);
    if a.lo() >= b.hi() {
        None
    } else {
        Some((a, b))
    }
}

/// A moment computed by a formula valid for a < b, where the clipped ends may cross (the
/// moment is then 0): its lower end raised to 0 (moments are ≥ 0), and set to 0 where the
/// ends may cross.
pub(crate) fn nonnegative(m: Interval, a: &Interval, b: &Interval) -> Interval {
    let bits = m.prec();
    let zero = Float::with_val(bits, 0);
    let m = m.clamp_below(&zero);
    if a.hi() >= b.lo() {
        Interval::new(zero, m.hi().clone())
    } else {
        m
    }
}

/// ln(b/a) for 0 < a ≤ b (intervals): ln1p((b − a)/a) where b/a < 2, so that a short
/// interval keeps its digits; ln of the ratio otherwise.
pub(crate) fn ln_ratio(a: &Interval, b: &Interval) -> Interval {
    let q = b.div(a);
    if *q.hi() < 2 && *q.lo() > 0.5 {
        b.sub(a).div(a).ln_1p()
    } else {
        q.ln()
    }
}

/// A parameter interval known (from the validated spec) to be > 0 whose enclosure is not
/// proven > 0 at this precision.
pub(crate) fn require_positive(
    family: &'static str,
    name: &str,
    x: &Interval,
) -> Result<(), DistError> {
    if x.is_positive() {
        Ok(())
    } else {
        Err(DistError::BadParameter {
            family,
            why: format!(
                "{name} must be > 0; its enclosure [{}, {}] is not proven positive",
                message_number(x.lo()),
                message_number(x.hi())
            ),
        })
    }
}

/// An end of a moment's interval in its error message, as the MPFR families write it
/// (`0` for zero, `inf` for +∞).
fn end_text(x: &Float) -> String {
    if x.is_zero() {
        "0".into()
    } else if x.is_infinite() {
        "inf".into()
    } else {
        message_number(x)
    }
}

/// The error of a moment that is infinite (E[1/X] at 0, E[X²] of a heavy tail), over the
/// interval (a, b] clipped to the support.
pub(crate) fn infinite_moment(family: &'static str, j: i32, a: &Float, b: &Float) -> DistError {
    DistError::InfiniteMoment {
        family,
        j,
        a: end_text(a),
        b: end_text(b),
    }
}

/// The error of a moment or threshold whose finiteness the enclosure cannot decide (a
/// parameter's interval straddles the value at which it becomes infinite).
pub(crate) fn undecided(what: String) -> DistError {
    DistError::Num(NumError::NotFinite(format!(
        "{what}: the parameters' enclosures do not decide whether it is finite (more --digits may)"
    )))
}

/// Maps the incomplete gamma's divergence to the family's infinite moment over the clipped
/// interval (a, b].
pub(crate) fn gamma_error(
    family: &'static str,
    j: i32,
    a: &Float,
    b: &Float,
) -> impl Fn(NumError) -> DistError {
    let (a, b) = (end_text(a), end_text(b));
    move |e| match e {
        NumError::Divergent(_) => DistError::InfiniteMoment {
            family,
            j,
            a: a.clone(),
            b: b.clone(),
        },
        other => DistError::Num(other),
    }
}

/// Iterations of [`unimodal_sup`]'s bisection beyond the bits (each halves the bracket).
const SUP_BISECTION_SLACK: u32 = 64;
/// Doublings allowed to find a bracket of [`unimodal_sup`]'s critical point.
const SUP_BRACKET_DOUBLINGS: u32 = 2000;

/// sup over t of g(t) for a g that increases up to one critical point and decreases after
/// it, given the sign of g' at exact points (`rising(t)`: `Some(true)` proven rising,
/// `Some(false)` proven falling, `None` undecided) and a bound of g over a bracket
/// (`bound(t₁, t₂)` encloses max g on [t₁, t₂], used where t₁ rises and t₂ falls): the
/// bracket is found by doubling from `start` (outward, with `step`), then narrowed by
/// bisection until the sign is undecided at the midpoint or the bits are spent. The result
/// is proven: g is at most `bound` on the final bracket, increasing before it and
/// decreasing after it.
pub(crate) fn unimodal_sup(
    bits: u32,
    lo_start: Float,
    hi_start: Float,
    rising: impl Fn(&Float) -> Result<Option<bool>, DistError>,
    bound: impl Fn(&Float, &Float) -> Result<Interval, DistError>,
) -> Result<Interval, DistError> {
    let fail = |what: &str| {
        DistError::Num(NumError::NoConvergence {
            what: format!("the maximiser of x F̄(x): {what}"),
            iterations: SUP_BRACKET_DOUBLINGS as usize,
            lo: "-".into(),
            hi: "-".into(),
        })
    };
    // A lower end where g rises, moving down (toward −∞ for a negative start, toward 0
    // for a positive one) until it is proven.
    let mut lo = lo_start;
    let mut n = 0;
    while rising(&lo)? != Some(true) {
        n += 1;
        if n > SUP_BRACKET_DOUBLINGS {
            return Err(fail("no point where it is proven to rise"));
        }
        lo = if lo > 0 {
            Float::with_val(bits, &lo / 2u32)
        } else if lo == 0 {
            Float::with_val(bits, -1)
        } else {
            Float::with_val(bits, &lo * 2u32)
        };
    }
    let mut hi = hi_start;
    n = 0;
    while rising(&hi)? != Some(false) {
        n += 1;
        if n > SUP_BRACKET_DOUBLINGS {
            return Err(fail("no point where it is proven to fall"));
        }
        hi = if hi < 0 {
            Float::with_val(bits, &hi / 2u32)
        } else if hi == 0 {
            Float::with_val(bits, 1)
        } else {
            Float::with_val(bits, &hi * 2u32)
        };
    }
    for _ in 0..(bits + SUP_BISECTION_SLACK) {
        let mid = Float::with_val(bits + 1, &lo + &hi) / 2u32;
        let mid = Float::with_val(bits, &mid);
        if mid <= lo || mid >= hi {
            break;
        }
        match rising(&mid)? {
            Some(true) => lo = mid,
            Some(false) => hi = mid,
            None => {
                // Narrow each side separately toward the undecided zone.
                lo = bisect(bits, lo.clone(), mid.clone(), |m| {
                    Ok(rising(m)? == Some(true))
                })?
                .0;
                hi = bisect(bits, mid, hi.clone(), |m| Ok(rising(m)? != Some(false)))?.1;
                break;
            }
        }
    }
    bound(&lo, &hi)
}

/// [a, b] narrowed by up to `bits` bisections (until the midpoint at `bits` bits is no
/// longer strictly inside): a moves up to the midpoint m where `up(m)` holds, b down to it
/// where it does not.
fn bisect(
    bits: u32,
    mut a: Float,
    mut b: Float,
    up: impl Fn(&Float) -> Result<bool, DistError>,
) -> Result<(Float, Float), DistError> {
    for _ in 0..bits {
        let m = Float::with_val(bits, Float::with_val(bits + 1, &a + &b) / 2u32);
        if m <= a || m >= b {
            break;
        }
        if up(&m)? {
            a = m;
        } else {
            b = m;
        }
    }
    Ok((a, b))
}

/// The sign of an interval: `Some(true)` if > 0, `Some(false)` if < 0, `None` if it
/// contains 0.
pub(crate) fn sign(x: &Interval) -> Option<bool> {
    if x.is_positive() {
        Some(true)
    } else if x.is_negative() {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;

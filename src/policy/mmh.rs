//! The M/M/h queue (Erlang C): the exact mean waiting of Least-Work-Left (a central FCFS
//! queue) when sizes are exponential, and the base of the labelled approximations for
//! general sizes.

use crate::num::interval::Interval;
use rug::Float;

/// Erlang's C formula: the probability that an arrival waits in M/M/h with offered load
/// a = λE[X] < h, by the stable recursion on Erlang B: B_0 = 1,
/// B_n = a B_{n−1} / (n + a B_{n−1}); C = h B_h / (h − a (1 − B_h)).
///
/// ```
/// use rug::Float;
/// use taskassign::policy::erlang_c;
/// // M/M/1: C = ρ.
/// let c = erlang_c(&Float::with_val(64, 0.5), 1);
/// assert_eq!(c, 0.5);
/// // M/M/2 with a = 1: C = 1/3.
/// let c = erlang_c(&Float::with_val(64, 1), 2);
/// assert!((c - 1.0f64 / 3.0).abs() < 1e-15);
/// ```
pub fn erlang_c(a: &Float, hosts: usize) -> Float {
    let bits = a.prec();
    let mut b = Float::with_val(bits, 1u32);
    for n in 1..=hosts {
        let ab = Float::with_val(bits, a * &b);
        let den = Float::with_val(bits, &ab + Float::with_val(bits, n));
        b = ab / den;
    }
    let h = Float::with_val(bits, hosts);
    let one_b = Float::with_val(bits, 1u32) - &b;
    let den = Float::with_val(bits, &h - Float::with_val(bits, a * &one_b));
    Float::with_val(bits, &h * &b) / den
}

/// [`erlang_c`] on intervals (`a` an enclosure of the offered load, a > 0): each step of
/// the Erlang B recursion written as B_n = 1/(1 + n/(a B_{n−1})), increasing in a and in
/// B_{n−1}, so an enclosure of each B_n follows from those of a and B_{n−1} by outward
/// rounding; then C = h B_h/(h − a (1 − B_h)) on intervals. `None` where a is not proven
/// to lie in (0, h) (the M/M/h queue is stable only there).
pub fn erlang_c_enclosed(a: &Interval, hosts: usize) -> Option<Interval> {
    let bits = a.prec();
    let h = Interval::int(bits, i64::try_from(hosts).ok()?);
    if !a.is_positive() || !h.sub(a).is_positive() {
        return None;
    }
    let one = Interval::int(bits, 1);
    let mut b = one.clone();
    for n in 1..=hosts {
        let n = Interval::int(bits, i64::try_from(n).ok()?);
        b = one.div(&one.add(&n.div(&a.mul(&b))));
    }
    let den = h.sub(&a.mul(&one.sub(&b)));
    den.is_positive().then(|| h.mul(&b).div(&den))
}

/// Mean waiting of the M/M/h FCFS queue with arrival rate λ, mean size m and h servers:
/// C(h, a) m / (h − a) with a = λ m (Kleinrock 1975, §3.5); +∞ when a ≥ h.
///
/// ```
/// use rug::Float;
/// use taskassign::policy::mmh_waiting;
/// // M/M/1 with λ = 0.5, m = 1: W = ρ m / (1 − ρ) = 1.
/// assert_eq!(mmh_waiting(&Float::with_val(64, 0.5), &Float::with_val(64, 1), 1), 1);
/// ```
pub fn mmh_waiting(lambda: &Float, mean: &Float, hosts: usize) -> Float {
    let bits = lambda.prec().max(mean.prec());
    let a = Float::with_val(bits, lambda * mean);
    let h = Float::with_val(bits, hosts);
    if a >= h {
        return Float::with_val(bits, rug::float::Special::Infinity);
    }
    let c = erlang_c(&a, hosts);
    c * mean / (h - a)
}

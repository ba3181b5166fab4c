//! MPFR's exponent range: a computation whose intermediate results leave it (an overflow
//! to infinity, or an underflow to zero, of a quantity that is finite and nonzero) must not
//! print what it computed. MPFR raises a flag, per thread, whenever a result overflowed or
//! underflowed; [`watch`] runs a computation and returns the flags it raised (keeping
//! those raised before it), and [`crate::num::certify::AtBoth::guard_range`] turns a flag beside a result
//! that shows it (a rate or mean that came out 0, ∞ or undetermined) into
//! [`NumError::OutOfRange`] (exit 3).
//!
//! The range is MPFR's default (binary exponents within ±(2^30 − 1), decimal magnitudes
//! within about 10^±323 228 496). `rug` reads exponents as `i32`, so the range cannot be
//! widened by more than a factor of two without breaking `rug`; an out-of-range quantity is
//! an error, never a number.
//!
//! [`crate::num::certify::Certify`] watches both of its runs, so every certified result of
//! the crate carries its flags.

use super::NumError;
use gmp_mpfr_sys::mpfr;

/// The flags a computation raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// A result was too large in magnitude and became ±∞.
    pub overflow: bool,
    /// A result was too small in magnitude and became zero (or lost precision).
    pub underflow: bool,
}

impl Flags {
    /// Either's flags.
    pub fn or(self, o: Flags) -> Flags {
        Flags {
            overflow: self.overflow || o.overflow,
            underflow: self.underflow || o.underflow,
        }
    }
}

/// Clears MPFR's overflow and underflow flags of the current thread.
pub fn clear() {
    // SAFETY: mpfr_clear_underflow/overflow only reset the calling thread's flag word.
    unsafe {
        mpfr::clear_underflow();
        mpfr::clear_overflow();
    }
}

/// Reads MPFR's overflow and underflow flags of the current thread.
pub fn flags() -> Flags {
    // SAFETY: mpfr_overflow_p/underflow_p only read the calling thread's flag word.
    unsafe {
        Flags {
            overflow: mpfr::overflow_p() != 0,
            underflow: mpfr::underflow_p() != 0,
        }
    }
}

/// The error for a computation that left the exponent range.
pub fn out_of_range(what: &str, f: Flags) -> NumError {
    let how = match (f.overflow, f.underflow) {
        (true, true) => "overflowed and underflowed",
        (true, false) => "overflowed",
        _ => "underflowed",
    };
    NumError::OutOfRange {
        what: what.to_string(),
        how: how.to_string(),
    }
}

/// Runs `f` and returns its result with the flags it raised. Watches nest: the flags raised
/// before `f` stay raised after it (with `f`'s own added), so an enclosing watch sees both
/// (before 2026-12-07 a watch cleared them, and `10^(-1000000000) + 0 * tags_stable()`
/// printed 0: the certified run of `tags_stable()` wiped the underflow of the power).
/// (The flags are per thread: work `f` hands to other threads is not seen.)
pub fn watch<T>(f: impl FnOnce() -> T) -> (T, Flags) {
    let before = flags();
    clear();
    let r = f();
    let raised = flags();
    set(before.or(raised));
    (r, raised)
}

/// Sets MPFR's flags of the current thread to `f`.
pub fn set(f: Flags) {
    clear();
    // SAFETY: mpfr_set_underflow/overflow only set the calling thread's flag word.
    unsafe {
        if f.underflow {
            mpfr::set_underflow();
        }
        if f.overflow {
            mpfr::set_overflow();
        }
    }
}

/// Runs `f` and leaves MPFR's flags as they were before it: what `f` raised is not seen by
/// an enclosing [`watch`]. For the enclosures of `check --rigorous`: interval arithmetic with
/// outward rounding stays a bound when a result leaves the range (an underflow rounded down
/// is 0, rounded up the least positive number; an overflow rounded up is +∞, rounded down
/// the largest finite one), so its flags say nothing about the two-precision value the
/// claim's guard ([`crate::claims::Scope::eval_value`]) judges. Every enclosure a claim
/// quantity computes runs under it (`threshold()`, `tags_stable()`, `opt()`, `eval()`, the
/// shared enclosed helper of the dispatch quantities, the load and rate variables,
/// `jsq_fixed_point()`, `red_exact(fcfs)`). Before 2026-12-07 the
/// threshold's enclosure at a hyperexponential law raised the underflow flag beside
/// `tags_stable_search(80) - tags_stable()`, whose value 0 was then refused as an underflow.
pub fn isolated<T>(f: impl FnOnce() -> T) -> T {
    let before = flags();
    let r = f();
    set(before);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::ops::Pow;
    use rug::Float;

    #[test]
    fn overflow_is_seen() {
        // 10^(10^9) exceeds MPFR's default range (10^±323 228 496): the flag must be raised.
        let (x, f) = watch(|| Float::with_val(64, 10).pow(1_000_000_000u32));
        assert!(x.is_infinite());
        assert!(f.overflow);
    }

    #[test]
    fn underflow_is_seen() {
        // e^(−10^10) ≈ 10^(−4.34e9), below the range: rounds to zero with the flag raised.
        let (x, f) = watch(|| Float::with_val(64, -1e10).exp());
        assert!(x.is_zero());
        assert!(f.underflow && !f.overflow);
    }

    #[test]
    fn isolated_work_leaves_the_flags_as_they_were() {
        // An underflow inside is not seen outside; an overflow raised before it still is.
        let (_, f) = watch(|| isolated(|| Float::with_val(64, -1e10).exp()));
        assert_eq!(f, Flags::default());
        let (_, f) = watch(|| {
            let big = Float::with_val(64, 10).pow(1_000_000_000u32);
            let small = isolated(|| Float::with_val(64, -1e10).exp());
            (big, small)
        });
        assert!(f.overflow && !f.underflow, "{f:?}");
    }

    #[test]
    fn watches_nest() {
        // The outer watch sees the underflow raised before an inner watch, and the
        // overflow raised in it; the inner sees only its own.
        let (inner, outer) = watch(|| {
            let _small = Float::with_val(64, -1e10).exp();
            let (_, inner) = watch(|| Float::with_val(64, 10).pow(1_000_000_000u32));
            inner
        });
        assert!(inner.overflow && !inner.underflow, "{inner:?}");
        assert!(outer.overflow && outer.underflow, "{outer:?}");
    }

    #[test]
    fn ordinary_work_raises_nothing() {
        // 2^1000 · 2^(−1000) = 1 and 1/0 = ∞ (a division by zero, not an overflow).
        let (_, f) = watch(|| {
            let a = Float::with_val(64, 2).pow(1000u32);
            let b = Float::with_val(64, 1) / Float::with_val(64, 0);
            (a, b)
        });
        assert_eq!(f, Flags::default());
    }
}

//! Tolerances shared by the f64 kernels of several modules (series, continued fractions,
//! underflow guards). A tolerance used by one module only stays there, next to the code
//! it bounds.

/// Relative size of the last term kept by the f64 series and continued fractions of the
/// f64 forms of the distributions (below f64's unit roundoff, so a sum of order one is complete).
pub const F64_SERIES_EPS: f64 = 1e-17;

/// Smallest positive f64 that the f64 forms treat as a value rather than as 0 (an
/// underflow guard: below it they work from logarithms only).
pub const F64_TINY: f64 = 1e-290;

/// Convergence test |Δ − 1| ≤ LENTZ_EPS of the f64 continued fractions evaluated by the
/// modified Lentz method (two ulps of 1: the factors Δ approach 1 geometrically, so the
/// neglected ones multiply to about this much).
pub const LENTZ_EPS: f64 = 2.0 * f64::EPSILON;

/// Bits below the working precision that the unit tests allow two evaluations of one value
/// to differ by (a few roundings' worth).
#[cfg(test)]
pub(crate) const TEST_SLACK_BITS: u32 = 8;

/// Whether `x` agrees with `y` to all but [`TEST_SLACK_BITS`] of `bits` bits, relative to
/// |y|: the unit tests' comparison of two evaluations at one precision.
#[cfg(test)]
pub(crate) fn close_at_bits(bits: u32, x: &rug::Float, y: &rug::Float) -> bool {
    let d = rug::Float::with_val(bits, x - y).abs();
    d <= rug::Float::with_val(bits, y.abs_ref()) >> (bits - TEST_SLACK_BITS)
}

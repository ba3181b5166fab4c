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

//! Job-size distributions.
//!
//! A distribution is specified once (a [`DistSpec`] parsed from `family:key=value,...`, or
//! a user density through the library API) and *built* at a precision: building at two
//! precisions is how results are certified. A built distribution implements [`JobSize`]:
//! tail, CDF, density, the partial moments M_j(a,b) = E[X^j ; a < X ≤ b] for
//! j ∈ {−1, 0, 1, 2}, mean, quantile, and an `f64` sampler for the simulators.

pub mod aging;
pub mod bounded_pareto;
pub mod custom;
pub mod deterministic;
pub mod empirical;
pub mod erlang;
pub mod exponential;
pub mod hyperexp;
pub mod lognormal;
pub mod pareto;
pub mod point;
pub mod spec;
pub mod uniform;
pub mod weibull;
pub mod ziggurat;

pub use point::Point;
pub use spec::{DistFactory, DistSpec};

use crate::num::{self, show, NumError};
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::Float;
use thiserror::Error;

/// Errors of the distribution layer.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum DistError {
    /// Malformed `family:key=value` string.
    #[error("bad distribution spec '{spec}': {why}")]
    BadSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// A parameter outside its domain (α ≤ 0, p ≤ k, …).
    #[error("{family}: {why}")]
    BadParameter {
        /// Family name.
        family: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A moment that is infinite (E[X^2] of a Pareto with α ≤ 2, E[1/X] near 0, …).
    #[error("{family}: E[X^{j}] over ({a}, {b}] is infinite")]
    InfiniteMoment {
        /// Family name.
        family: &'static str,
        /// Order of the moment.
        j: i32,
        /// Lower end.
        a: String,
        /// Upper end.
        b: String,
    },
    /// A moment order outside {−1, 0, 1, 2}.
    #[error("moment order {0} not supported (only -1, 0, 1, 2)")]
    BadOrder(i32),
    /// A sampler that cannot work in f64 (p = 1e1000 overflows).
    #[error("{family}: parameters out of f64 range for simulation ({why})")]
    NotSimulable {
        /// Family name.
        family: &'static str,
        /// Why.
        why: String,
    },
    /// A file that cannot be read or parsed.
    #[error("{path}:{line}: {why}")]
    File {
        /// The file.
        path: String,
        /// 1-based line (0 for the whole file).
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A numeric failure (root finder, quadrature).
    #[error(transparent)]
    Num(#[from] NumError),
}

impl crate::error::Classify for DistError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            DistError::Num(e) => e.kind(),
            DistError::BadSpec { .. }
            | DistError::BadParameter { .. }
            | DistError::InfiniteMoment { .. }
            | DistError::BadOrder(_)
            | DistError::NotSimulable { .. }
            | DistError::File { .. } => ErrorKind::Input,
        }
    }
}

/// The moment orders the policies need.
pub const MOMENT_ORDERS: [i32; 4] = [-1, 0, 1, 2];

/// An f64 sampler (immutable; randomness comes from the generator passed in).
pub trait Sampler: Send + Sync {
    /// One job size.
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64;
    /// Fills `out` with job sizes (one virtual call for a whole block; the same sequence as
    /// repeated [`Sampler::sample`]).
    fn fill(&self, rng: &mut Xoshiro256PlusPlus, out: &mut [f64]) {
        for x in out {
            *x = self.sample(rng);
        }
    }
}

/// A job-size distribution built at a precision.
///
/// Every method returns values at [`JobSize::prec`] bits. Arguments may carry any precision.
pub trait JobSize: Send + Sync + std::fmt::Debug {
    /// Family name (`"bp"`, `"exp"`, …).
    fn family(&self) -> &'static str;
    /// Precision (bits) of the values this distribution returns.
    fn prec(&self) -> u32;
    /// Low end of the support (s_0): P(X ≤ lower) = 0 except for an atom at it.
    fn lower(&self) -> Float;
    /// High end of the support (s_h); +∞ for unbounded families.
    fn upper(&self) -> Float;
    /// Tail P(X > x).
    fn tail(&self, x: &Float) -> Float;
    /// CDF P(X ≤ x).
    fn cdf(&self, x: &Float) -> Float {
        Float::with_val(self.prec(), 1u32) - self.tail(x)
    }
    /// Density at x, `None` for discrete distributions.
    fn density(&self, x: &Float) -> Option<Float>;
    /// Partial moment M_j(a, b) = E[X^j ; a < X ≤ b] for j ∈ {−1, 0, 1, 2}. The interval
    /// is clipped to the support; a ≥ b gives 0; `b` may be +∞.
    fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError>;
    /// M_j(a, b) for several orders at once, in the order of `js`. Families override it to
    /// share the work the orders have in common (logarithms, powers of a and b); the
    /// default calls [`JobSize::partial_moment`] for each.
    fn partial_moments(&self, js: &[i32], a: &Float, b: &Float) -> Result<Vec<Float>, DistError> {
        js.iter().map(|&j| self.partial_moment(j, a, b)).collect()
    }
    /// ln M_j(a, b) in f64, from ln a and ln b (f64; ln a may be −∞ for a = 0, ln b may be
    /// +∞), for j ∈ {−1, 0, 1, 2}: the global search of the optimiser works on these, so
    /// that p = 10^100000 fits in f64. `None` when the family has no f64 form (the search
    /// then runs in MPFR); `Some(−∞)` for a zero moment (a ≥ b, or outside the support);
    /// `Some(+∞)` for an infinite one. Relative error of the moment about 1e-12 or better
    /// (an absolute error of 1e-12 + 1e-15 |ln M| in the returned logarithm).
    fn ln_partial_moment_f64(&self, _j: i32, _ln_a: f64, _ln_b: f64) -> Option<f64> {
        None
    }
    /// x as a [`Point`] carrying the values that the tail, the density and the partial
    /// moments at x share (the `*_at` methods read them). The default carries none.
    fn point(&self, x: &Float) -> Point {
        Point::plain(x)
    }
    /// F̄ at a point made by [`JobSize::point`] (use [`Point::tail`], which caches it).
    fn tail_at(&self, p: &Point) -> Float {
        self.tail(&p.x)
    }
    /// The density at a point made by [`JobSize::point`] (use [`Point::density`], which
    /// caches it).
    fn density_at(&self, p: &Point) -> Option<Float> {
        self.density(&p.x)
    }
    /// [`JobSize::partial_moments`] between two points made by [`JobSize::point`].
    fn moments_between(&self, js: &[i32], a: &Point, b: &Point) -> Result<Vec<Float>, DistError> {
        self.partial_moments(js, &a.x, &b.x)
    }
    /// One order of [`JobSize::moments_between`].
    fn moment_between(&self, j: i32, a: &Point, b: &Point) -> Result<Float, DistError> {
        Ok(self.moments_between(&[j], a, b)?.swap_remove(0))
    }
    /// E[X].
    fn mean(&self) -> Result<Float, DistError> {
        self.moment(1)
    }
    /// E[X^j] over the whole support (between the points of the support's ends, which
    /// families with per-point values evaluate cheaply).
    fn moment(&self, j: i32) -> Result<Float, DistError> {
        let (a, b) = (self.point(&self.lower_open()), self.point(&self.upper()));
        self.moment_between(j, &a, &b)
    }
    /// A point just below the support, so that (lower_open, upper] holds all the mass
    /// (an atom at `lower` included).
    fn lower_open(&self) -> Float {
        let lo = self.lower();
        if lo.is_zero() {
            Float::with_val(self.prec(), -1)
        } else {
            let mut x = Float::with_val(self.prec(), &lo);
            x.next_down();
            x
        }
    }
    /// Quantile: the smallest x with P(X ≤ x) ≥ u, for 0 < u < 1. The default solves
    /// CDF(x) = u with the bracketing root finder.
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        default_quantile(self, u)
    }
    /// The maximiser x* and the maximum of x F̄(x) over the support (it decides the TAGS
    /// threshold as h → ∞). The default searches numerically (see [`default_sup_x_tail`]).
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        default_sup_x_tail(self)
    }
    /// An f64 sampler for the simulators.
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError>;
    /// True when the law is exponential, the one memoryless continuous law on (0, ∞), so
    /// that Markovian formulas (M/M/h, Erlang C) apply. False unless a family knows better.
    fn is_exponential(&self) -> bool {
        false
    }
}

/// Checks a moment order.
pub fn check_order(j: i32) -> Result<(), DistError> {
    if MOMENT_ORDERS.contains(&j) {
        Ok(())
    } else {
        Err(DistError::BadOrder(j))
    }
}

/// Clips (a, b] to [lo, hi]; returns None if empty.
pub fn clip(a: &Float, b: &Float, lo: &Float, hi: &Float, bits: u32) -> Option<(Float, Float)> {
    let a = if a < lo {
        Float::with_val(bits, lo)
    } else {
        Float::with_val(bits, a)
    };
    let b = if b > hi {
        Float::with_val(bits, hi)
    } else {
        Float::with_val(bits, b)
    };
    if a >= b {
        None
    } else {
        Some((a, b))
    }
}

/// Converts a Float parameter to f64 for a sampler, failing if it is not finite there.
pub fn to_f64_param(family: &'static str, name: &str, x: &Float) -> Result<f64, DistError> {
    let v = x.to_f64();
    if v.is_finite() && (x.is_zero() || v != 0.0) {
        Ok(v)
    } else {
        Err(DistError::NotSimulable {
            family,
            why: format!("{name} = {} does not fit in f64", show(x)),
        })
    }
}

/// Default quantile by root finding on the CDF.
pub fn default_quantile<D: JobSize + ?Sized>(d: &D, u: &Float) -> Result<Float, DistError> {
    let bits = d.prec();
    if !(*u > 0 && *u < 1) {
        return Err(DistError::BadParameter {
            family: d.family(),
            why: format!("quantile level {} not in (0,1)", show(u)),
        });
    }
    let lo = d.lower();
    let mut hi = d.upper();
    let g = |x: &Float| -> Result<Float, NumError> { Ok(d.cdf(x) - Float::with_val(bits, u)) };
    if hi.is_infinite() {
        let start = if lo > 0 {
            Float::with_val(bits, &lo * 2u32)
        } else {
            Float::with_val(bits, 1)
        };
        hi = num::root::expand_upper("quantile", &start, g)?;
    }
    if d.cdf(&lo) >= *u {
        return Ok(lo);
    }
    let r = num::root::solve_increasing("quantile", &lo, &hi, g)?;
    Ok(r.hi)
}

/// Grid points per factor of 10 for the default search of sup x F̄(x).
pub const SUP_GRID_PER_DECADE: usize = 8;
/// Decades scanned below/above the quartiles when the support is unbounded.
pub const SUP_GRID_DECADES: i32 = 30;

/// Default sup x F̄(x): scan a log-spaced grid over the support, then golden-section
/// search around the best grid point at full precision. The maximum value is accurate to
/// the working precision (the function is flat at its maximum); the maximiser only to
/// about half of it.
pub fn default_sup_x_tail<D: JobSize + ?Sized>(d: &D) -> Result<(Float, Float), DistError> {
    let bits = d.prec();
    let g = |x: &Float| Float::with_val(bits, x * &d.tail(x));
    let lo = d.lower();
    let hi = d.upper();
    let q = |u: f64| d.quantile(&Float::with_val(bits, u));
    let a = if lo > 0 {
        lo.clone()
    } else {
        Float::with_val(bits, &q(0.25)? / 10f64.powi(SUP_GRID_DECADES))
    };
    let b = if hi.is_finite() {
        hi.clone()
    } else {
        Float::with_val(bits, &q(0.75)? * 10f64.powi(SUP_GRID_DECADES))
    };
    if a >= b {
        return Ok((a.clone(), g(&a)));
    }
    let la = Float::with_val(bits, a.ln_ref());
    let lb = Float::with_val(bits, b.ln_ref());
    let decades = (Float::with_val(bits, &lb - &la) / std::f64::consts::LN_10).to_f64();
    let n = ((decades * SUP_GRID_PER_DECADE as f64).ceil() as usize).clamp(16, 200_000);
    let point = |i: usize| -> Float {
        let t =
            Float::with_val(bits, &lb - &la) * Float::with_val(bits, i) / Float::with_val(bits, n);
        Float::with_val(bits, &la + &t).exp()
    };
    let mut best_i = 0;
    let mut best = g(&a);
    for i in 1..=n {
        let x = if i == n { b.clone() } else { point(i) };
        let v = g(&x);
        if v > best {
            best = v;
            best_i = i;
        }
    }
    // Golden section in ln x on [i-1, i+1]; the discontinuities of a discrete F̄ sit at
    // the grid points, so the grid's best is kept if the search does not beat it.
    let lo_t = if best_i == 0 {
        la.clone()
    } else {
        Float::with_val(bits, point(best_i - 1).ln_ref())
    };
    let hi_t = if best_i >= n {
        lb.clone()
    } else {
        Float::with_val(bits, point(best_i + 1).ln_ref())
    };
    let (xs, vs) = golden_max(bits, lo_t, hi_t, |t| g(&Float::with_val(bits, t.exp_ref())));
    let best_x = if best_i == n {
        b.clone()
    } else if best_i == 0 {
        a.clone()
    } else {
        point(best_i)
    };
    if vs > best {
        Ok((Float::with_val(bits, xs.exp_ref()), vs))
    } else {
        Ok((best_x, best))
    }
}

/// Golden-section iterations per bit of precision (the maximiser converges to half the
/// bits; the value to all of them).
pub const GOLDEN_ITER_PER_BIT: f64 = 0.75;

/// Golden-section maximisation of a unimodal `f` on [lo, hi]; returns (argmax, max).
pub fn golden_max<F: FnMut(&Float) -> Float>(
    bits: u32,
    mut lo: Float,
    mut hi: Float,
    mut f: F,
) -> (Float, Float) {
    let invphi = (Float::with_val(bits, 5u32).sqrt() - 1u32) / 2u32;
    let iters = (GOLDEN_ITER_PER_BIT * f64::from(bits)).ceil() as usize + 10;
    let mut c = Float::with_val(bits, &hi - Float::with_val(bits, &hi - &lo) * &invphi);
    let mut e = Float::with_val(bits, &lo + Float::with_val(bits, &hi - &lo) * &invphi);
    let mut fc = f(&c);
    let mut fe = f(&e);
    for _ in 0..iters {
        if fc > fe {
            hi = e;
            e = c;
            fe = fc;
            c = Float::with_val(bits, &hi - Float::with_val(bits, &hi - &lo) * &invphi);
            fc = f(&c);
        } else {
            lo = c;
            c = e;
            fc = fe;
            e = Float::with_val(bits, &lo + Float::with_val(bits, &hi - &lo) * &invphi);
            fe = f(&e);
        }
    }
    if fc > fe {
        (c, fc)
    } else {
        (e, fe)
    }
}

/// x^e for x ≥ 0 as exp(e · ln x): about five times cheaper than MPFR's correctly rounded
/// `pow` (which the cutoff search calls millions of times). The relative error is about
/// |e ln x| · 2^−bits, i.e. log2|e ln x| bits (18 bits at x = 1e100000), which the guard
/// bits absorb and the two-precision certification measures.
///
/// ```
/// use rug::Float;
/// let b = 128;
/// let x = taskassign::dist::fast_pow(&Float::with_val(b, 2), &Float::with_val(b, 10));
/// assert!((x - 1024u32).abs() < 1e-30);
/// ```
pub fn fast_pow(x: &Float, e: &Float) -> Float {
    let bits = x.prec().max(e.prec());
    if x.is_zero() {
        return Float::with_val(bits, 0);
    }
    let l = Float::with_val(bits, x.ln_ref());
    Float::with_val(bits, l * e).exp()
}

/// (1/a^t) ∫_a^b x^(t−1) dx for 0 < a < b, written with expm1 so that t → 0 is continuous
/// and t = 0 is exactly ln(b/a): expm1(t ln(b/a)) / t. `b` may be +∞ when t < 0 (then the
/// value is −1/t). This is the kernel of every power-law partial moment.
///
/// ```
/// use rug::Float;
/// use taskassign::dist::rel_power_integral;
/// let b = 128;
/// // t = 1: (b − a)/a; t = 0: ln(b/a).
/// let v = rel_power_integral(b, &Float::with_val(b, 1), &Float::with_val(b, 2), &Float::with_val(b, 5));
/// assert_eq!(v, 1.5);
/// let l = rel_power_integral(b, &Float::with_val(b, 0), &Float::with_val(b, 1), &Float::with_val(b, 1).exp());
/// assert!((l - 1u32).abs() < 1e-35);
/// ```
pub fn rel_power_integral(bits: u32, t: &Float, a: &Float, b: &Float) -> Float {
    if b.is_infinite() {
        return -(Float::with_val(bits, 1u32) / t);
    }
    let l = Float::with_val(bits, b / a).ln();
    if t.is_zero() {
        return l;
    }
    Float::with_val(bits, t * &l).exp_m1() / t
}

// ---------------------------------------------------------------------------------------
// f64 log-domain helpers for `JobSize::ln_partial_moment_f64`.
//
// Every family's f64 form works with logarithms throughout (ln x, ln M), so that points and
// parameters far outside f64's range (p = 10^100000) are handled; values are exponentiated
// only where they are known to fit. The helpers below are the shared kernels.
//
// Precision. No f64 form subtracts two nearly equal values on a short interval (b close to
// a), so none loses the log2(b/(b − a)) bits a difference of closed-form antiderivatives
// would: the width ln(b/a) is formed exactly from the f64 inputs and enters through expm1
// (power laws, the exponential's incomplete gammas, j = 0 everywhere), and intervals on
// which the log-integrand varies by less than GL6_MAX_VARIATION go to a Gauss–Legendre rule
// (E[1/X] of the exponential, lognormal, Weibull), which needs no difference at all. What
// remains is the rounding of the inputs themselves (ln a = 230258 has an ulp of 3e-11, so
// t·ln a carries 1e-16 of |ln M|) and a bounded loss where two tails are subtracted on a
// wide interval (at most a factor 12.5 for the exponential, about √s for a Weibull near its
// mode); tests/dist_f64_search.rs measures the result against MPFR.
// ---------------------------------------------------------------------------------------

/// Relative size of the last term kept by the f64 series and continued fractions of the
/// f64 forms (below f64's unit roundoff, so a sum of order one is complete).
pub const F64_SERIES_EPS: f64 = 1e-17;

/// Smallest positive f64 that the f64 forms treat as a value rather than as 0 (an
/// underflow guard: below it they work from logarithms only).
pub const F64_TINY: f64 = 1e-290;

/// Whether j is a moment order of the f64 form (the MPFR form reports an error instead).
pub fn f64_order_ok(j: i32) -> bool {
    MOMENT_ORDERS.contains(&j)
}

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

/// A Float as f64 if it is finite, and normal or zero (a subnormal or an underflow to 0 of
/// a nonzero value, or an overflow, would make an f64 formula wrong).
pub fn f64_normal(x: &Float) -> Option<f64> {
    let v = x.to_f64();
    if v.is_finite() && (v.is_normal() || x.is_zero()) {
        Some(v)
    } else {
        None
    }
}

/// Error-free sum: s + e = a + b exactly, s = fl(a + b) (Knuth's TwoSum).
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
    pub fn shifted(ln_x: f64, c_hi: f64, c_lo: f64) -> Self {
        if ln_x.is_infinite() {
            return Self::from_ln(ln_x);
        }
        let (s, e) = two_sum(ln_x, c_hi);
        Self::from_parts(s, e + c_lo)
    }

    /// The point with logarithm `hi + lo` (renormalised).
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
    pub fn from_ln(l: f64) -> Self {
        LnPoint {
            hi: l,
            lo: 0.0,
            x: l.exp(),
        }
    }

    /// The point whose logarithm is the mean of the two points' logarithms (the geometric
    /// mean), the logarithm kept as a double-double.
    pub fn log_midpoint(&self, other: &LnPoint) -> Self {
        if self.hi.is_infinite() || other.hi.is_infinite() {
            return Self::from_ln(0.5 * (self.hi + other.hi));
        }
        let (s, e) = two_sum(self.hi, other.hi);
        Self::from_parts(0.5 * s, 0.5 * (e + self.lo + other.lo))
    }

    /// ln x as one f64.
    pub fn ln(&self) -> f64 {
        self.hi + self.lo
    }

    /// ln(other) − ln(self) as one f64 (the trailing parts kept: exact for close points).
    pub fn ln_ratio(&self, other: &LnPoint) -> f64 {
        if self.hi.is_infinite() || other.hi.is_infinite() {
            return other.hi - self.hi;
        }
        (other.hi - self.hi) + (other.lo - self.lo)
    }
}

/// Whether the double-double x = (hi, lo) is below y (both normalised, |lo| ≤ ulp(hi)/2).
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
    pub fn a_rel(&self, r: (f64, f64)) -> f64 {
        dd_diff(self.a, r)
    }
    /// ln(b/r).
    pub fn b_rel(&self, r: (f64, f64)) -> f64 {
        dd_diff(self.b, r)
    }
}

/// x − y for double-doubles, rounded to f64 (infinities kept).
fn dd_diff(x: (f64, f64), y: (f64, f64)) -> f64 {
    if x.0.is_infinite() || y.0.is_infinite() {
        return x.0 - y.0;
    }
    (x.0 - y.0) + (x.1 - y.1)
}

/// Clips the log-interval (ln a, ln b] to the support [lo, hi] whose ends are given by
/// double-double logarithms (lo = (−∞, 0) for a lower end 0, hi = (+∞, 0) for an unbounded
/// support), as [`clip`] does with the MPFR values; `None` if the result is empty. The ends
/// keep their trailing parts, so that a point one ulp of ln k above k, or an interval
/// ending 10^-9 above ln p, are clipped exactly where the MPFR form clips them.
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

/// ln(1 − e^(−x)) for x ≥ 0 (x = 0 gives −∞, x = +∞ gives 0), given also ln x (which may be
/// far below f64's range): for small x it is ln x + ln((1 − e^(−x))/x), so that an x that
/// underflows still gives the right logarithm.
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
pub fn ln_one_minus_exp(d: f64) -> f64 {
    if d > -std::f64::consts::LN_2 {
        (-d.exp_m1()).ln()
    } else {
        (-d.exp()).ln_1p()
    }
}

/// ln(e^x + e^y), with −∞ (a zero term) and +∞ handled.
pub fn ln_add_exp(x: f64, y: f64) -> f64 {
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    if hi == f64::INFINITY || lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// ln((1 − e^(−τ l))/τ) for τ ≥ 0 and l > 0 (l may be +∞): ln l at τ = 0, −ln τ at l = ∞.
/// This is the log of ∫ over a log-interval of width l of e^(−τ s) ds, written so that
/// neither a small τl (no cancellation, no underflow of τl) nor a large one overflows.
pub fn ln_expm1_ratio(tau: f64, l: f64) -> f64 {
    ln_expm1_ratio_by(tau, l, || tau.ln())
}

/// [`ln_expm1_ratio`] with ln τ supplied (read only where needed).
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
/// use taskassign::dist::ln_power_integral_f64;
/// // ∫_1^2 x dx = 3/2 (t = 2), ∫_1^e dx/x = 1 (t = 0)
/// let v = ln_power_integral_f64(2.0, 0.0, 0.0, 2f64.ln(), 2f64.ln());
/// assert!((v - 1.5f64.ln()).abs() < 1e-15);
/// assert!(ln_power_integral_f64(0.0, 0.0, 0.0, 1.0, 1.0).abs() < 1e-16);
/// ```
pub fn ln_power_integral_f64(t: f64, c: f64, s_a: f64, s_b: f64, l: f64) -> f64 {
    ln_power_integral_f64_by(t, c, s_a, s_b, l, || t.abs().ln())
}

/// [`ln_power_integral_f64`] with ln |t| precomputed (a family whose orders have fixed t).
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

/// Gauss–Legendre nodes on [0, 1] (the positive half of the symmetric 6-point rule) …
const GL6_NODES: [f64; 3] = [
    0.238_619_186_083_196_9,
    0.661_209_386_466_264_5,
    0.932_469_514_203_152,
];
/// … and their weights (Abramowitz & Stegun, Table 25.4).
const GL6_WEIGHTS: [f64; 3] = [
    0.467_913_934_572_691,
    0.360_761_573_048_138_6,
    0.171_324_492_379_170_3,
];

/// Largest variation of the log-integrand over an interval for which [`ln_gl6`] is used:
/// the n-point rule's error on [−1, 1] is 2^(2n+1) (n!)^4 / ((2n+1) ((2n)!)^3) · f^(2n)(ξ)
/// (A&S 25.4.30), 1.5·10^-12·c^12·e^|c| for f = e^(c·s) and n = 6: below 10^-19 of the
/// integral for |c| ≤ 0.25, i.e. a variation ≤ 0.5 over the interval.
pub const GL6_MAX_VARIATION: f64 = 0.5;

/// Largest width of a log-interval ln b − ln a for [`ln_gl6`] when the log-integrand has a
/// term in e^τ (τ = ln x: exponential, Weibull): with h ≤ 1/2 its n-th derivative in the
/// scaled variable is at most h^n times the variation, so the bound above applies.
pub const GL6_MAX_LOG_WIDTH: f64 = 1.0;

/// ln ∫_{−h}^{h} e^(ψ(s)) ds by the 6-point Gauss–Legendre rule, for a short interval over
/// which ψ varies by at most [`GL6_MAX_VARIATION`]; `dpsi(s)` = ψ(s) − ψ(0) (computed by
/// the caller without cancellation). The caller adds ψ(0). This is how the exponential's
/// E[1/X], the lognormal and the Weibull treat an interval too short for a difference of
/// two closed-form terms to keep its digits.
pub fn ln_gl6(h: f64, dpsi: impl Fn(f64) -> f64) -> f64 {
    let mut sum = 0.0;
    for i in 0..3 {
        let s = h * GL6_NODES[i];
        sum += GL6_WEIGHTS[i] * (dpsi(s).exp() + dpsi(-s).exp());
    }
    h.ln() + sum.ln()
}

#[cfg(test)]
mod f64_helper_tests {
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

//! Job-size distributions.
//!
//! A distribution is specified once (a [`DistSpec`] parsed from `family:key=value,...`, or
//! a user density through the library API) and *built* at a precision: building at two
//! precisions is how results are certified. A built distribution implements [`JobSize`]:
//! tail, CDF, density, the partial moments M_j(a,b) = E[X^j ; a < X ≤ b] for
//! j ∈ {−1, 0, 1, 2} (the policies' orders) and j ∈ {3, 4} (the simulators' heavy-tail
//! rule, [`JobSize::higher_partial_moment`]), mean, quantile, and an `f64` sampler for the
//! simulators.

/// The items of [`JobSize`] (and of [`enclose::Enclosure`]) that every law writes alike:
/// its family name, its precision (that of one parameter) and, where the support has fixed
/// ends, `lower` and `upper` as clones of two parameters (`lower` only, when one end is
/// given).
macro_rules! family_items {
    ($family:literal, $prec:ident) => {
        fn family(&self) -> &'static str {
            $family
        }
        fn prec(&self) -> u32 {
            self.$prec.prec()
        }
    };
    ($family:literal, $prec:ident, $t:ty: $lo:ident) => {
        family_items!($family, $prec);
        fn lower(&self) -> $t {
            self.$lo.clone()
        }
    };
    ($family:literal, $prec:ident, $t:ty: $lo:ident, $hi:ident) => {
        family_items!($family, $prec, $t: $lo);
        fn upper(&self) -> $t {
            self.$hi.clone()
        }
    };
}

/// [`JobSize::partial_moment`] and [`JobSize::higher_partial_moment`] of a family whose
/// formula holds at every order: each checks its range of orders and hands the order to
/// the family's own `any_order_moment(j, a, b)`.
macro_rules! any_order_moments {
    () => {
        fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
            check_order(j)?;
            self.any_order_moment(j, a, b)
        }
        fn higher_partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
            check_higher_order(j)?;
            self.any_order_moment(j, a, b)
        }
    };
}

/// The point methods of [`JobSize`] of the two Pareto families, which hand them to their
/// `pl` ([`point::PowerLaw`]): points that carry (k/x)^α, so that tails and moments between
/// two points cost no power.
macro_rules! power_law_points {
    () => {
        fn point(&self, x: &Float) -> Point {
            self.pl.point(x)
        }
        fn tail_at(&self, p: &Point) -> Float {
            self.pl.tail_at(self, p)
        }
        fn density_at(&self, p: &Point) -> Option<Float> {
            self.pl.density_at(self, p)
        }
        fn moments_between(
            &self,
            js: &[i32],
            a: &Point,
            b: &Point,
        ) -> Result<Vec<Float>, DistError> {
            self.pl.moments_between(self, js, a, b)
        }
    };
}

pub(crate) mod aging;
pub(crate) mod bounded_pareto;
pub(crate) mod custom;
pub(crate) mod deterministic;
pub(crate) mod empirical;
pub(crate) mod enclose;
pub(crate) mod erlang;
pub(crate) mod exponential;
pub(crate) mod hyperexp;
pub(crate) mod lognormal;
pub(crate) mod pareto;
pub(crate) mod point;
pub(crate) mod spec;
pub(crate) mod uniform;
pub(crate) mod weibull;
pub(crate) mod ziggurat;

pub use aging::{
    on_grid as aging_on_grid, theory as aging_theory, Aging, GRID_BITS as AGING_GRID_BITS,
};
pub use bounded_pareto::BoundedPareto;
pub use custom::{CustomFactory, DensityFn};
pub use deterministic::Deterministic;
pub use empirical::Empirical;
pub use enclose::below_support;
pub use erlang::Erlang;
pub use exponential::Exponential;
pub use hyperexp::HyperExp;
pub use lognormal::LogNormal;
pub use pareto::Pareto;
pub use spec::FAMILIES;
pub use uniform::Uniform;
pub use weibull::Weibull;

pub use enclose::{Atom, Enclosure};
pub use point::Point;
pub use spec::{DistFactory, DistSpec};

use crate::num::golden::golden_max;
use crate::num::{self, message_number, NumError};
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
    /// A moment order outside {−1, 0, 1, 2} (or {3, 4} for the higher moments).
    #[error("moment order {0} not supported (only -1, 0, 1, 2, and 3, 4 as higher moments)")]
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
    /// A law that has no rigorous enclosure (a user density).
    #[error("{dist}: no rigorous enclosure ({why}); the certified evaluation (without --rigorous) still applies")]
    NoEnclosure {
        /// The law.
        dist: String,
        /// Why there is none.
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
            | DistError::NoEnclosure { .. }
            | DistError::File { .. } => ErrorKind::Input,
        }
    }
}

/// The moment orders the policies need.
pub const MOMENT_ORDERS: [i32; 4] = [-1, 0, 1, 2];

/// The higher moment orders of [`JobSize::higher_partial_moment`] (the simulators'
/// heavy-tail rule reads E\[X⁴; X > x\]).
pub const HIGHER_MOMENT_ORDERS: [i32; 2] = [3, 4];

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
    /// Low end of the support (s_0): P(X ≤ lower) = 0 except for an atom at it. The
    /// default is 0, the low end of a law on the half-line [0, ∞); a law whose support
    /// starts elsewhere overrides it.
    fn lower(&self) -> Float {
        Float::with_val(self.prec(), 0)
    }
    /// High end of the support (s_h); +∞ for unbounded families, the default.
    fn upper(&self) -> Float {
        Float::with_val(self.prec(), rug::float::Special::Infinity)
    }
    /// Tail P(X > x).
    fn tail(&self, x: &Float) -> Float;
    /// CDF P(X ≤ x).
    fn cdf(&self, x: &Float) -> Float {
        Float::with_val(self.prec(), 1u32) - self.tail(x)
    }
    /// Density at x, `None` for discrete distributions.
    fn density(&self, x: &Float) -> Option<Float>;
    /// For a law whose every size is an atom (the empirical law): the largest atom at or
    /// below x (`None` below the least, and for every other law). A cutoff anywhere from
    /// that atom up to the next routes every job as a cutoff at the atom does, and a TAGS
    /// host kills the jobs above it sooner at the atom, so the optimiser moves its cutoffs
    /// down to it.
    fn atom_at_or_below(&self, _x: &Float) -> Option<Float> {
        None
    }
    /// Partial moment M_j(a, b) = E[X^j ; a < X ≤ b] for j ∈ {−1, 0, 1, 2}. The interval
    /// is clipped to the support; a ≥ b gives 0; `b` may be +∞.
    fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError>;
    /// M_j(a, b) for several orders at once, in the order of `js`. Families override it to
    /// share the work the orders have in common (logarithms, powers of a and b); the
    /// default calls [`JobSize::partial_moment`] for each.
    fn partial_moments(&self, js: &[i32], a: &Float, b: &Float) -> Result<Vec<Float>, DistError> {
        js.iter().map(|&j| self.partial_moment(j, a, b)).collect()
    }
    /// M_j(a, b) for the higher orders j ∈ [`HIGHER_MOMENT_ORDERS`] = {3, 4}, with the
    /// conventions of [`JobSize::partial_moment`] (clipped to the support, a ≥ b gives 0,
    /// `b` may be +∞, an infinite moment is [`DistError::InfiniteMoment`]). The policies
    /// never need them: the simulators' heavy-tail rule does (E\[X⁴\] drives the variance
    /// of a simulated mean waiting; `sim::stats::HeavyTail`).
    fn higher_partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError>;
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
    /// True when the law is a single point (every size the same), so that a simulator
    /// may use the constant instead of sampling. False unless a family knows better.
    fn is_deterministic(&self) -> bool {
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

/// Checks a quantile level u ∈ (0, 1) of the law `family`.
pub(crate) fn check_level(family: &'static str, u: &Float) -> Result<(), DistError> {
    if *u > 0 && *u < 1 {
        Ok(())
    } else {
        Err(DistError::BadParameter {
            family,
            why: format!("quantile level {} not in (0,1)", message_number(u)),
        })
    }
}

/// Checks a scale or shape parameter `name` = `x` of the law `family`: > 0 and finite.
pub(crate) fn check_positive_finite(
    family: &'static str,
    name: &str,
    x: &Float,
) -> Result<(), DistError> {
    if x.is_nan() || *x <= 0 || x.is_infinite() {
        return Err(DistError::BadParameter {
            family,
            why: format!("{name} must be > 0 and finite, got {}", message_number(x)),
        });
    }
    Ok(())
}

/// Checks a higher moment order ([`HIGHER_MOMENT_ORDERS`]).
pub fn check_higher_order(j: i32) -> Result<(), DistError> {
    if HIGHER_MOMENT_ORDERS.contains(&j) {
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

/// The mean job sizes the f64 simulators accept: beyond them a run's sums of sizes, of
/// their squares or of slowdowns leave f64 (sizes of 1e300 gave infinite half-widths, sizes
/// of 1e-300 zero ones and an infinite stationarity statistic). The time unit is free, so a
/// law outside is rescaled by the user, not simulated wrongly.
pub const SIM_MEAN_RANGE: (f64, f64) = (1e-100, 1e100);

/// Checks that the law's mean lies in [`SIM_MEAN_RANGE`] (a law without a finite mean is
/// let through: the load it gives is refused elsewhere).
pub fn check_simulable_scale(d: &dyn JobSize) -> Result<(), DistError> {
    let Ok(mean) = d.mean() else {
        return Ok(());
    };
    let m = mean.to_f64();
    if !m.is_finite() || (SIM_MEAN_RANGE.0..=SIM_MEAN_RANGE.1).contains(&m) {
        return Ok(());
    }
    Err(DistError::NotSimulable {
        family: d.family(),
        why: format!(
            "the mean size {} is outside [{:e}, {:e}], where the simulator's f64 sums of sizes and their squares stay finite and nonzero: rescale the time unit",
            message_number(&mean),
            SIM_MEAN_RANGE.0,
            SIM_MEAN_RANGE.1
        ),
    })
}

/// Converts a Float parameter to f64 for a sampler, failing if it is not finite there.
pub fn to_f64_param(family: &'static str, name: &str, x: &Float) -> Result<f64, DistError> {
    let v = x.to_f64();
    if v.is_finite() && (x.is_zero() || v != 0.0) {
        Ok(v)
    } else {
        Err(DistError::NotSimulable {
            family,
            why: format!("{name} = {} does not fit in f64", message_number(x)),
        })
    }
}

/// The atoms of a law whose every size is an atom ([`JobSize::atom_at_or_below`]), least
/// first; empty for every other law.
pub fn atoms_of(d: &dyn JobSize) -> Vec<Float> {
    let mut out = Vec::new();
    let mut x = d.upper();
    while let Some(a) = d.atom_at_or_below(&x) {
        x = a.clone();
        x.next_down();
        out.push(a);
    }
    out.reverse();
    out
}

/// Default quantile by root finding on the CDF.
pub fn default_quantile<D: JobSize + ?Sized>(d: &D, u: &Float) -> Result<Float, DistError> {
    let bits = d.prec();
    check_level(d.family(), u)?;
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

/// Whether j is a moment order of the f64 form (the MPFR form reports an error instead).
pub fn f64_order_ok(j: i32) -> bool {
    MOMENT_ORDERS.contains(&j)
}

/// The check every `ln_partial_moment_f64` form starts with: `Some(())` when the f64 form
/// applies (an order of [`MOMENT_ORDERS`] and no NaN end), `None` when it does not.
pub(crate) fn f64_args(j: i32, ln_a: f64, ln_b: f64) -> Option<()> {
    (f64_order_ok(j) && !ln_a.is_nan() && !ln_b.is_nan()).then_some(())
}

//! A job-size density supplied through the library API, integrated by MPFR quadrature.
//!
//! The user gives f on [lower, upper] (upper may be ∞) as a closure that should compute at
//! the precision of its argument. f need not be normalised: every moment is divided by the
//! total mass Z = ∫ f over the support, so M_j(a, b) = (1/Z) ∫_a^b x^j f(x) dx. Each
//! integral is a double-exponential quadrature ([`crate::num::quad`]) at
//! [`CUSTOM_GUARD_BITS`] more bits than the distribution's precision, in t = ln x when the
//! range spans more than [`LOG_SUBSTITUTION_RATIO`]; its error estimate must be below
//! 2^-bits relative to the integral, else the moment is an error (never a number with
//! unverified digits).
//!
//! ```
//! use std::sync::Arc;
//! use rug::Float;
//! use taskassign::dist::{CustomFactory, DensityFn, DistFactory};
//! // f(x) = x e^(−x) on [0, ∞) (a Gamma(2, 1)): E[X] = 2, E[X²] = 6.
//! let f: DensityFn = Arc::new(|x: &Float| Float::with_val(x.prec(), x * &Float::with_val(x.prec(), -x).exp()));
//! let d = CustomFactory::new("gamma2", "0", "inf", f).unwrap().build(128).unwrap();
//! assert!((d.mean().unwrap() - 2u32).abs() < 1e-30);
//! assert!((d.moment(2).unwrap() - 6u32).abs() < 1e-30);
//! ```

use super::{
    check_higher_order, check_order, clip, to_f64_param, DistError, DistFactory, JobSize, Sampler,
};
use crate::num::quad::{integrate_positive, LOG_SUBSTITUTION_RATIO};
use crate::num::{message_number, parse_decimal, NumError};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::float::Special;
use rug::ops::Pow;
use rug::Float;
use std::sync::Arc;

/// A density f(x) ≥ 0 (not necessarily normalised), computed at the precision of x.
pub type DensityFn = Arc<dyn Fn(&Float) -> Float + Send + Sync>;

/// Extra bits of the quadratures behind the moments.
pub const CUSTOM_GUARD_BITS: u32 = 24;
/// Precision of the quadratures that tabulate the CDF for the f64 sampler.
pub const SAMPLER_BITS: u32 = 64;
/// Cells of the sampler's CDF table.
pub const SAMPLER_CELLS: usize = 256;
/// The sampler's table covers |t| ≤ SAMPLER_T_MAX of the double-exponential map
/// (tanh-sinh on a finite range: within e^(−85) of the ends; exp-sinh on [lower, ∞):
/// from lower + s·e^(−43) to lower + s·e^(43), s the distance from lower to the median).
pub const SAMPLER_T_MAX: f64 = 4.0;
/// Largest probability the sampler may drop beyond its table (upper = ∞ only).
pub const SAMPLER_MAX_LOST_MASS: f64 = 1e-9;

/// Builds a [`Custom`] distribution at any precision (see the module documentation).
#[derive(Clone)]
pub struct CustomFactory {
    name: String,
    lower: String,
    upper: String,
    density: DensityFn,
}

impl std::fmt::Debug for CustomFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomFactory")
            .field("name", &self.name)
            .field("lower", &self.lower)
            .field("upper", &self.upper)
            .finish()
    }
}

/// Parses the support ends at `bits`: lower ≥ 0 finite, upper > lower or "inf".
fn parse_support(lower: &str, upper: &str, bits: u32) -> Result<(Float, Float), DistError> {
    let bad = |why: String| DistError::BadParameter {
        family: "custom",
        why,
    };
    let lo = parse_decimal(lower, bits).map_err(|e| bad(format!("lower: {e}")))?;
    if lo < 0 {
        return Err(bad(format!(
            "lower must be ≥ 0 (job sizes are not negative), got {}",
            message_number(&lo)
        )));
    }
    let u = upper.trim();
    let hi = if u.eq_ignore_ascii_case("inf") || u.eq_ignore_ascii_case("infinity") {
        Float::with_val(bits, Special::Infinity)
    } else {
        parse_decimal(u, bits).map_err(|e| bad(format!("upper: {e}")))?
    };
    if hi <= lo {
        return Err(bad(format!(
            "upper must be > lower, got upper = {} ≤ lower = {}",
            message_number(&hi),
            message_number(&lo)
        )));
    }
    Ok((lo, hi))
}

impl CustomFactory {
    /// A user density `density` on [lower, upper] (decimal strings; upper may be "inf"),
    /// named `name` in descriptions. It is built once here, at the default working
    /// precision, so that a density that cannot be normalised is reported now.
    pub fn new(
        name: &str,
        lower: &str,
        upper: &str,
        density: DensityFn,
    ) -> Result<Self, DistError> {
        let f = CustomFactory {
            name: name.to_string(),
            lower: lower.trim().to_string(),
            upper: upper.trim().to_string(),
            density,
        };
        f.build(crate::num::working_bits(crate::num::DEFAULT_DIGITS))?;
        Ok(f)
    }
}

impl DistFactory for CustomFactory {
    fn build(&self, bits: u32) -> Result<Box<dyn JobSize>, DistError> {
        let (lo, hi) = parse_support(&self.lower, &self.upper, bits)?;
        Ok(Box::new(Custom::new(
            &self.name,
            lo,
            hi,
            self.density.clone(),
        )?))
    }
    fn describe(&self) -> String {
        format!("custom:{} on [{}, {}]", self.name, self.lower, self.upper)
    }
}

/// A user density normalised by quadrature.
#[derive(Clone)]
pub struct Custom {
    name: String,
    lower: Float,
    upper: Float,
    density: DensityFn,
    /// Z = ∫ f over the support, at bits + CUSTOM_GUARD_BITS.
    total: Float,
}

impl std::fmt::Debug for Custom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Custom")
            .field("name", &self.name)
            .field("lower", &self.lower)
            .field("upper", &self.upper)
            .field("total", &self.total)
            .finish()
    }
}

impl Custom {
    /// The density on [lower, upper] at the precision of `lower` (upper may be +∞).
    pub fn new(
        name: &str,
        lower: Float,
        upper: Float,
        density: DensityFn,
    ) -> Result<Self, DistError> {
        let bits = lower.prec();
        let upper = Float::with_val(bits, upper);
        let mut d = Custom {
            name: name.to_string(),
            lower,
            upper,
            density,
            total: Float::with_val(bits, 1),
        };
        let total = d.raw_integral(0, &d.lower.clone(), &d.upper.clone(), bits)?;
        if total.is_nan() || total <= 0 || !total.is_finite() {
            return Err(DistError::BadParameter {
                family: "custom",
                why: format!(
                    "{}: total mass {} is not positive and finite",
                    name,
                    message_number(&total)
                ),
            });
        }
        d.total = total;
        Ok(d)
    }

    /// ∫_a^b x^j f(x) dx at `bits` + guard, checked against 2^-bits relative error.
    fn raw_integral(&self, j: i32, a: &Float, b: &Float, bits: u32) -> Result<Float, DistError> {
        let q = bits + CUSTOM_GUARD_BITS;
        let f = &self.density;
        let r = integrate_positive(q, a, b, |x| {
            let fx = f(x);
            match j {
                0 => fx,
                1 => Float::with_val(x.prec(), &fx * x),
                2 => Float::with_val(x.prec(), &fx * x) * x,
                3 | 4 => Float::with_val(x.prec(), x.pow(j)) * &fx,
                _ => Float::with_val(x.prec(), &fx / x),
            }
        })?;
        let limit = Float::with_val(q, r.value.abs_ref()) >> bits;
        if r.error > limit {
            return Err(DistError::Num(NumError::Quadrature {
                estimate: message_number(&r.value),
                error: message_number(&r.error),
            }));
        }
        Ok(r.value)
    }

    /// P(a < X ≤ b) at `bits` (clipped to the support).
    fn mass(&self, a: &Float, b: &Float, bits: u32) -> Result<Float, DistError> {
        let Some((a, b)) = clip(a, b, &self.lower, &self.upper, bits + CUSTOM_GUARD_BITS) else {
            return Ok(Float::with_val(bits, 0));
        };
        let v = self.raw_integral(0, &a, &b, bits)?;
        Ok(Float::with_val(bits, v / &self.total))
    }
}

impl Custom {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.lower, &self.upper, bits + CUSTOM_GUARD_BITS) else {
            return Ok(Float::with_val(bits, 0));
        };
        let v = self.raw_integral(j, &a, &b, bits)?;
        Ok(Float::with_val(bits, v / &self.total))
    }
}

impl JobSize for Custom {
    family_items!("custom", lower, Float: lower, upper);
    /// M_0(x, upper) by quadrature; NaN if the quadrature fails (the root finders and the
    /// policies reject NaN).
    fn tail(&self, x: &Float) -> Float {
        self.mass(x, &self.upper, self.prec())
            .unwrap_or_else(|_| Float::with_val(self.prec(), Special::Nan))
    }
    /// M_0(lower, x) by quadrature (no cancellation against 1 in the left tail); NaN if
    /// the quadrature fails.
    fn cdf(&self, x: &Float) -> Float {
        self.mass(&self.lower, x, self.prec())
            .unwrap_or_else(|_| Float::with_val(self.prec(), Special::Nan))
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let bits = self.prec();
        if *x < self.lower || *x > self.upper {
            return Some(Float::with_val(bits, 0));
        }
        let fx = (self.density)(&Float::with_val(bits + CUSTOM_GUARD_BITS, x));
        Some(Float::with_val(bits, fx / &self.total))
    }
    any_order_moments!();
    /// A table of the CDF over a double-exponential grid in t (tanh-sinh in x, or in ln x
    /// for wide ranges, on a finite support; exp-sinh centred on the median on [lower, ∞)),
    /// [`SAMPLER_CELLS`] cells whose masses come from [`SAMPLER_BITS`]-bit quadrature;
    /// a sample picks a cell by its mass and a point in it linearly in t. Fails with
    /// `NotSimulable` if the support does not fit in f64 or more than
    /// [`SAMPLER_MAX_LOST_MASS`] lies beyond the table.
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let bits = SAMPLER_BITS;
        let d = Custom::new(
            &self.name,
            Float::with_val(bits, &self.lower),
            Float::with_val(bits, &self.upper),
            self.density.clone(),
        )?;
        let lo = to_f64_param("custom", "lower", &d.lower)?;
        let map = if d.upper.is_infinite() {
            let median = d.quantile(&Float::with_val(bits, 0.5))?;
            let s = to_f64_param("custom", "median", &median)? - lo;
            if s.is_nan() || s <= 0.0 {
                return Err(DistError::NotSimulable {
                    family: "custom",
                    why: "median at the lower end".into(),
                });
            }
            SampleMap::Exp { lo, s }
        } else {
            let hi = to_f64_param("custom", "upper", &d.upper)?;
            if lo > 0.0 && hi / lo > LOG_SUBSTITUTION_RATIO {
                let (a, b) = (lo.ln(), hi.ln());
                SampleMap::LogTanh {
                    c: (a + b) / 2.0,
                    d: (b - a) / 2.0,
                }
            } else {
                SampleMap::Tanh {
                    c: (lo + hi) / 2.0,
                    d: (hi - lo) / 2.0,
                }
            }
        };
        let dt = 2.0 * SAMPLER_T_MAX / SAMPLER_CELLS as f64;
        // Cell boundaries in x: the support ends, and the map's points in between.
        let mut xs = Vec::with_capacity(SAMPLER_CELLS + 1);
        xs.push(d.lower.clone());
        for i in 1..SAMPLER_CELLS {
            xs.push(Float::with_val(bits, map.x(-SAMPLER_T_MAX + i as f64 * dt)));
        }
        let last = match map {
            SampleMap::Exp { .. } => Float::with_val(bits, map.x(SAMPLER_T_MAX)),
            _ => d.upper.clone(),
        };
        xs.push(last.clone());
        let mut cum = Vec::with_capacity(SAMPLER_CELLS + 1);
        let mut acc = 0.0f64;
        cum.push(acc);
        for w in xs.windows(2) {
            acc += d.mass(&w[0], &w[1], bits)?.to_f64().max(0.0);
            cum.push(acc);
        }
        if d.upper.is_infinite() {
            // The cells are normalised by the total mass: what they miss lies beyond `last`.
            let lost = 1.0 - acc;
            if lost > SAMPLER_MAX_LOST_MASS {
                return Err(DistError::NotSimulable {
                    family: "custom",
                    why: format!("mass {lost:e} beyond x = {}", message_number(&last)),
                });
            }
        }
        if acc.is_nan() || acc <= 0.0 {
            return Err(DistError::NotSimulable {
                family: "custom",
                why: "no mass in the sampling table".into(),
            });
        }
        Ok(Box::new(CustomSampler { map, dt, cum }))
    }
}

/// The double-exponential maps of the sampler's table, in f64.
#[derive(Clone, Copy)]
enum SampleMap {
    /// x = c + d tanh(π/2 sinh t)
    Tanh { c: f64, d: f64 },
    /// x = exp(c + d tanh(π/2 sinh t))
    LogTanh { c: f64, d: f64 },
    /// x = lo + s exp(π/2 sinh t)
    Exp { lo: f64, s: f64 },
}

impl SampleMap {
    fn x(&self, t: f64) -> f64 {
        let u = std::f64::consts::FRAC_PI_2 * t.sinh();
        match *self {
            SampleMap::Tanh { c, d } => c + d * u.tanh(),
            SampleMap::LogTanh { c, d } => (c + d * u.tanh()).exp(),
            SampleMap::Exp { lo, s } => lo + s * u.exp(),
        }
    }
}

struct CustomSampler {
    map: SampleMap,
    dt: f64,
    /// Cumulative (unnormalised) masses at the cell boundaries.
    cum: Vec<f64>,
}

impl Sampler for CustomSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let total = self.cum[self.cum.len() - 1];
        let u: f64 = rng.random::<f64>() * total;
        // Cell i has cum[i] ≤ u < cum[i+1].
        let i = self
            .cum
            .partition_point(|&c| c <= u)
            .clamp(1, self.cum.len() - 1)
            - 1;
        let m = self.cum[i + 1] - self.cum[i];
        let frac = if m > 0.0 {
            ((u - self.cum[i]) / m).clamp(0.0, 1.0)
        } else {
            0.5
        };
        self.map.x(-SAMPLER_T_MAX + (i as f64 + frac) * self.dt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::tol::close_at_bits as close;
    use rand::SeedableRng;

    /// Kolmogorov–Smirnov critical value at 1%: 1.63/√n (Smirnov's asymptotic law).
    const KS_C_1PCT: f64 = 1.63;
    /// Samples of the KS test.
    const KS_N: usize = 20_000;

    fn gamma2() -> DensityFn {
        Arc::new(|x: &Float| Float::with_val(x.prec(), x * &Float::with_val(x.prec(), -x).exp()))
    }

    #[test]
    fn gamma2_moments_at_two_precisions() {
        // x e^(−x) on [0, ∞) is Gamma(2,1): E[1/X] = 1, E[X] = 2, E[X²] = 6 (Γ(2+j)/Γ(2));
        // M_0(1, 2) = 2/e − 3/e² (antiderivative −(1+x)e^(−x)).
        let f = CustomFactory::new("gamma2", "0", "inf", gamma2()).unwrap();
        for bits in [100u32, 300] {
            let d = f.build(bits).unwrap();
            for (j, e) in [(-1, 1u32), (0, 1), (1, 2), (2, 6)] {
                assert!(
                    close(bits, &d.moment(j).unwrap(), &Float::with_val(bits, e)),
                    "j {j}"
                );
            }
            let e1 = Float::with_val(bits, -1).exp();
            let exact =
                Float::with_val(bits, &e1 * 2u32) - Float::with_val(bits, e1.square_ref()) * 3u32;
            let m = d
                .partial_moment(0, &Float::with_val(bits, 1), &Float::with_val(bits, 2))
                .unwrap();
            assert!(close(bits, &m, &exact));
        }
    }

    #[test]
    fn wide_range_uses_log_substitution() {
        // x^(−2) on [1, 1e12] normalised: BP(1, 1e12, 1); mean = ln(1e12)/(1 − 1e-12).
        let f: DensityFn = Arc::new(|x: &Float| Float::with_val(x.prec(), x.square_ref()).recip());
        let fac = CustomFactory::new("bp1", "1", "1e12", f).unwrap();
        let bits = 200;
        let d = fac.build(bits).unwrap();
        let p = parse_decimal("1e12", bits).unwrap();
        let exact =
            Float::with_val(bits, p.ln_ref()) / (1u32 - Float::with_val(bits, p.recip_ref()));
        assert!(close(bits, &d.mean().unwrap(), &exact));
    }

    #[test]
    fn bad_supports_and_densities() {
        assert!(CustomFactory::new("x", "1", "1", gamma2()).is_err());
        assert!(CustomFactory::new("x", "-1", "2", gamma2()).is_err());
        assert!(CustomFactory::new("x", "0", "abc", gamma2()).is_err());
        // ∫_0^1 dx/x diverges: no normalisation.
        let f: DensityFn = Arc::new(|x: &Float| Float::with_val(x.prec(), x.recip_ref()));
        assert!(CustomFactory::new("1/x", "0", "1", f).is_err());
        let zero: DensityFn = Arc::new(|x: &Float| Float::with_val(x.prec(), 0));
        assert!(CustomFactory::new("0", "0", "1", zero).is_err());
    }

    /// A CDF in f64, the reference of the KS test.
    type Cdf = fn(f64) -> f64;

    #[test]
    fn sampler_passes_kolmogorov_smirnov() {
        // CDF of Gamma(2,1): 1 − (1+x)e^(−x); of x² on [0,1] normalised: x³.
        let cases: Vec<(CustomFactory, Cdf)> = vec![
            (
                CustomFactory::new("gamma2", "0", "inf", gamma2()).unwrap(),
                |x| 1.0 - (1.0 + x) * (-x).exp(),
            ),
            (
                CustomFactory::new(
                    "cube",
                    "0",
                    "1",
                    Arc::new(|x: &Float| Float::with_val(x.prec(), x.square_ref())),
                )
                .unwrap(),
                |x| x.powi(3),
            ),
        ];
        for (fac, cdf) in cases {
            let d = fac.build(64).unwrap();
            let s = d.sampler().unwrap();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
            let mut xs: Vec<f64> = (0..KS_N).map(|_| s.sample(&mut rng)).collect();
            xs.sort_by(f64::total_cmp);
            let n = KS_N as f64;
            let dmax = xs.iter().enumerate().map(|(i, &x)| {
                let f = cdf(x);
                (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
            });
            let dmax = dmax.fold(0.0, f64::max);
            assert!(
                dmax < KS_C_1PCT / n.sqrt(),
                "{}: D = {dmax}",
                fac.describe()
            );
        }
    }
}

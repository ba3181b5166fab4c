//! Pareto (unbounded) with scale k and shape α: F̄(x) = (k/x)^α for x ≥ k.

use super::bounded_pareto::{power_law_moments, PowerLawF64};
use super::point::PowerLaw;
use super::ziggurat::exp1;
use super::{
    check_higher_order, check_level, check_order, clip, fast_pow, rel_power_integral, to_f64_param,
    DistError, JobSize, Point, Sampler,
};
use crate::num::message_number;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;
use std::sync::OnceLock;

/// Pareto distribution on [k, ∞).
#[derive(Debug, Clone)]
pub struct Pareto {
    k: Float,
    alpha: Float,
    /// Constants of [`JobSize::ln_partial_moment_f64`] (`None`: α does not fit in f64),
    /// made when first needed (only the optimiser's search reads them).
    f64c: OnceLock<Option<PowerLawF64>>,
    /// Per-point evaluation ([`JobSize::point`]).
    pl: PowerLaw,
}

impl Pareto {
    /// Pareto(k, α) with k > 0, α > 0; the precision is that of `k`.
    ///
    /// E[X] = α k / (α − 1) for α > 1, infinite (an error) for α ≤ 1:
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{JobSize, Pareto};
    /// let d = Pareto::new(Float::with_val(100, 1), Float::with_val(100, 3)).unwrap();
    /// assert_eq!(d.mean().unwrap(), 1.5);
    /// let heavy = Pareto::new(Float::with_val(100, 1), Float::with_val(100, 1)).unwrap();
    /// assert!(heavy.mean().is_err());
    /// ```
    pub fn new(k: Float, alpha: Float) -> Result<Self, DistError> {
        if !(k > 0) {
            return Err(DistError::BadParameter {
                family: "pareto",
                why: format!("k must be > 0, got {}", message_number(&k)),
            });
        }
        if !(alpha > 0) {
            return Err(DistError::BadParameter {
                family: "pareto",
                why: format!("alpha must be > 0, got {}", message_number(&alpha)),
            });
        }
        let alpha = Float::with_val(k.prec(), alpha);
        let one = Float::with_val(k.prec(), 1u32);
        let inf = Float::with_val(k.prec(), rug::float::Special::Infinity);
        let pl = PowerLaw::new(&k, &inf, &alpha, &one);
        Ok(Pareto {
            k,
            alpha,
            f64c: OnceLock::new(),
            pl,
        })
    }
}

impl Pareto {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.k, &self.upper(), bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        let t = Float::with_val(bits, j) - &self.alpha;
        if b.is_infinite() && t >= 0 {
            return Err(DistError::InfiniteMoment {
                family: "pareto",
                j,
                a: message_number(&a),
                b: "inf".into(),
            });
        }
        let ka = fast_pow(&Float::with_val(bits, &self.k / &a), &self.alpha);
        let aj = Float::with_val(bits, (&a).pow(j));
        Ok(rel_power_integral(bits, &t, &a, &b) * aj * ka * &self.alpha)
    }
}

impl JobSize for Pareto {
    family_items!("pareto", k, Float: k);
    fn tail(&self, x: &Float) -> Float {
        let b = self.prec();
        if *x < self.k {
            return Float::with_val(b, 1);
        }
        if x.is_infinite() {
            return Float::with_val(b, 0);
        }
        fast_pow(&Float::with_val(b, &self.k / x), &self.alpha)
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let b = self.prec();
        if *x < self.k {
            return Some(Float::with_val(b, 0));
        }
        let e = Float::with_val(b, &self.alpha + 1u32);
        Some(fast_pow(&Float::with_val(b, &self.k / x), &e) * &self.alpha / &self.k)
    }
    any_order_moments!();
    fn partial_moments(&self, js: &[i32], a: &Float, b: &Float) -> Result<Vec<Float>, DistError> {
        // The errors of the first failing order, in the order of `js`, as the default
        // (one `partial_moment` per order) reports them.
        let bits = self.prec();
        let clipped = clip(a, b, &self.k, &self.upper(), bits);
        for &j in js {
            check_order(j)?;
            if let Some((a, b)) = &clipped {
                if b.is_infinite() && self.alpha <= j {
                    return Err(DistError::InfiniteMoment {
                        family: "pareto",
                        j,
                        a: message_number(a),
                        b: "inf".into(),
                    });
                }
            }
        }
        Ok(power_law_moments(
            bits,
            js,
            clipped,
            &self.k,
            &self.alpha,
            |m| m * &self.alpha,
        ))
    }
    power_law_points!();
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        let one = Float::with_val(self.prec(), 1u32);
        self.f64c
            .get_or_init(|| PowerLawF64::new(&self.k, None, &self.alpha, &one))
            .as_ref()?
            .ln_moment(j, ln_a, ln_b)
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        check_level("pareto", u)?;
        let base = Float::with_val(b, 1u32) - u;
        let e = -Float::with_val(b, 1u32) / &self.alpha;
        Ok(base.pow(&e) * &self.k)
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // x F̄(x) = k^α x^(1−α): unbounded for α < 1, constant k for α = 1, max k at x = k.
        if self.alpha < 1 {
            return Err(DistError::InfiniteMoment {
                family: "pareto",
                j: 1,
                a: message_number(&self.k),
                b: "inf".into(),
            });
        }
        Ok((self.k.clone(), self.k.clone()))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let k = to_f64_param("pareto", "k", &self.k)?;
        let alpha = to_f64_param("pareto", "alpha", &self.alpha)?;
        Ok(Box::new(ParetoSampler {
            k,
            inv_alpha: 1.0 / alpha,
        }))
    }
}

struct ParetoSampler {
    k: f64,
    inv_alpha: f64,
}

impl Sampler for ParetoSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        // X = k e^(E/α) with E ~ Exp(1) (ziggurat): one `exp` instead of one `powf`.
        self.k * (exp1(rng) * self.inv_alpha).exp()
    }
}

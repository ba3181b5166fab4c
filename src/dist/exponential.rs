//! Exponential with rate μ: F̄(x) = e^(−μx).

use super::{check_order, clip, to_f64_param, DistError, JobSize, Sampler};
use crate::num::show;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::float::Special;
use rug::Float;

/// Exponential distribution on [0, ∞).
#[derive(Debug, Clone)]
pub struct Exponential {
    rate: Float,
}

impl Exponential {
    /// Exp(μ) with μ > 0; the precision is that of `rate`.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{JobSize, exponential::Exponential};
    /// let d = Exponential::new(Float::with_val(100, 2)).unwrap();
    /// assert_eq!(d.mean().unwrap(), 0.5);
    /// assert_eq!(d.moment(2).unwrap(), 0.5); // 2/μ²
    /// ```
    pub fn new(rate: Float) -> Result<Self, DistError> {
        if !(rate > 0) {
            return Err(DistError::BadParameter {
                family: "exp",
                why: format!("rate must be > 0, got {}", show(&rate)),
            });
        }
        Ok(Exponential { rate })
    }

    /// Rate μ.
    pub fn rate(&self) -> &Float {
        &self.rate
    }

    /// ∫_x^∞ t^j μ e^(−μt) dt for j = 0, 1, 2 (x ≥ 0, may be +∞).
    fn upper_moment(&self, j: i32, x: &Float) -> Float {
        let b = self.prec();
        if x.is_infinite() {
            return Float::with_val(b, 0);
        }
        let mx = Float::with_val(b, &self.rate * x);
        let e = Float::with_val(b, (-mx.clone()).exp_ref());
        let inv = Float::with_val(b, 1u32) / &self.rate;
        match j {
            0 => e,
            1 => Float::with_val(b, x + &inv) * e,
            _ => {
                // x² + 2x/μ + 2/μ²
                let p = Float::with_val(b, x * x)
                    + Float::with_val(b, x * &inv) * 2u32
                    + Float::with_val(b, &inv * &inv) * 2u32;
                p * e
            }
        }
    }
}

impl JobSize for Exponential {
    fn family(&self) -> &'static str {
        "exp"
    }
    fn prec(&self) -> u32 {
        self.rate.prec()
    }
    fn lower(&self) -> Float {
        Float::with_val(self.prec(), 0)
    }
    fn upper(&self) -> Float {
        Float::with_val(self.prec(), Special::Infinity)
    }
    fn tail(&self, x: &Float) -> Float {
        let b = self.prec();
        if *x <= 0 {
            return Float::with_val(b, 1);
        }
        (-Float::with_val(b, &self.rate * x)).exp()
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let b = self.prec();
        if *x < 0 {
            return Some(Float::with_val(b, 0));
        }
        Some((-Float::with_val(b, &self.rate * x)).exp() * &self.rate)
    }
    fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_order(j)?;
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.lower(), &self.upper(), bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        match j {
            -1 => {
                // μ (E1(μa) − E1(μb)), E1(x) = −Ei(−x) (MPFR's eint of a negative argument).
                if a.is_zero() {
                    return Err(DistError::InfiniteMoment {
                        family: "exp",
                        j,
                        a: "0".into(),
                        b: show(&b),
                    });
                }
                let e1 = |x: &Float| -> Float {
                    if x.is_infinite() {
                        return Float::with_val(bits, 0);
                    }
                    -Float::with_val(bits, -Float::with_val(bits, &self.rate * x)).eint()
                };
                Ok((e1(&a) - e1(&b)) * &self.rate)
            }
            0 => {
                // e^(−μa) (1 − e^(−μ(b−a))) without cancellation for short intervals.
                let ea = self.tail(&a);
                if b.is_infinite() {
                    return Ok(ea);
                }
                let d = Float::with_val(bits, &b - &a) * &self.rate;
                Ok(ea * -(-d).exp_m1())
            }
            _ => Ok(self.upper_moment(j, &a) - self.upper_moment(j, &b)),
        }
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        if !(*u > 0 && *u < 1) {
            return Err(DistError::BadParameter {
                family: "exp",
                why: format!("quantile level {} not in (0,1)", show(u)),
            });
        }
        Ok(-Float::with_val(b, -u.clone()).ln_1p() / &self.rate)
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // x e^(−μx) is maximal at x = 1/μ, with value 1/(eμ).
        let b = self.prec();
        let x = Float::with_val(b, 1u32) / &self.rate;
        let v = Float::with_val(b, &x * &self.tail(&x));
        Ok((x, v))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        Ok(Box::new(ExpSampler {
            inv_rate: 1.0 / to_f64_param("exp", "rate", &self.rate)?,
        }))
    }
}

pub(crate) struct ExpSampler {
    pub(crate) inv_rate: f64,
}

impl Sampler for ExpSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let u: f64 = rng.random();
        -(-u).ln_1p() * self.inv_rate
    }
}

//! Two-phase hyperexponential: with probability p an Exp(rate1), otherwise an Exp(rate2).

use super::exponential::Exponential;
use super::ziggurat::exp1;
use super::{check_higher_order, check_order, to_f64_param, DistError, JobSize, Sampler};
use crate::num::logf64::{f64_normal, ln_add_exp};
use crate::num::message_number;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::Float;

/// Mixture p·Exp(rate1) + (1−p)·Exp(rate2).
#[derive(Debug, Clone)]
pub struct HyperExp {
    p: Float,
    q: Float,
    e1: Exponential,
    e2: Exponential,
    /// (ln p, ln(1 − p)) for [`JobSize::ln_partial_moment_f64`].
    ln_pq: Option<(f64, f64)>,
}

impl HyperExp {
    /// H2(p, rate1, rate2) with 0 < p < 1 and positive rates.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{HyperExp, JobSize};
    /// let b = 100;
    /// let d = HyperExp::new(Float::with_val(b, 0.5), Float::with_val(b, 1), Float::with_val(b, 2)).unwrap();
    /// assert_eq!(d.mean().unwrap(), 0.75); // 0.5·1 + 0.5·0.5
    /// ```
    pub fn new(p: Float, rate1: Float, rate2: Float) -> Result<Self, DistError> {
        if !(p > 0 && p < 1) {
            return Err(DistError::BadParameter {
                family: "hyperexp",
                why: format!("p must be in (0,1), got {}", message_number(&p)),
            });
        }
        let bits = p.prec();
        let q = Float::with_val(bits, 1u32) - &p;
        let wrap = |e: DistError| match e {
            DistError::BadParameter { why, .. } => DistError::BadParameter {
                family: "hyperexp",
                why,
            },
            other => other,
        };
        let e1 = Exponential::new(Float::with_val(bits, rate1)).map_err(wrap)?;
        let e2 = Exponential::new(Float::with_val(bits, rate2)).map_err(wrap)?;
        let w = bits + 16;
        let ln_pq = f64_normal(&Float::with_val(w, p.ln_ref()))
            .zip(f64_normal(&Float::with_val(w, q.ln_ref())));
        Ok(HyperExp {
            p,
            q,
            e1,
            e2,
            ln_pq,
        })
    }
}

impl JobSize for HyperExp {
    family_items!("hyperexp", p);
    fn tail(&self, x: &Float) -> Float {
        self.e1.tail(x) * &self.p + self.e2.tail(x) * &self.q
    }
    fn density(&self, x: &Float) -> Option<Float> {
        Some(self.e1.density(x)? * &self.p + self.e2.density(x)? * &self.q)
    }
    fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_order(j)?;
        let wrap = |e: DistError| match e {
            DistError::InfiniteMoment { j, a, b, .. } => DistError::InfiniteMoment {
                family: "hyperexp",
                j,
                a,
                b,
            },
            other => other,
        };
        let m1 = self.e1.partial_moment(j, a, b).map_err(wrap)?;
        let m2 = self.e2.partial_moment(j, a, b).map_err(wrap)?;
        Ok(m1 * &self.p + m2 * &self.q)
    }
    fn higher_partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_higher_order(j)?;
        let m1 = self.e1.higher_partial_moment(j, a, b)?;
        let m2 = self.e2.higher_partial_moment(j, a, b)?;
        Ok(m1 * &self.p + m2 * &self.q)
    }
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        // ln(p M1 + q M2) by log-sum-exp of the branches (both positive: no cancellation).
        let (lp, lq) = self.ln_pq?;
        let m1 = self.e1.ln_moment_f64(j, ln_a, ln_b)?;
        let m2 = self.e2.ln_moment_f64(j, ln_a, ln_b)?;
        Some(ln_add_exp(lp + m1, lq + m2))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        Ok(Box::new(H2Sampler {
            p: to_f64_param("hyperexp", "p", &self.p)?,
            inv_rate1: 1.0 / to_f64_param("hyperexp", "rate1", self.e1.rate())?,
            inv_rate2: 1.0 / to_f64_param("hyperexp", "rate2", self.e2.rate())?,
        }))
    }
}

/// The phase by one uniform, then its exponential by the ziggurat ([`exp1`]): inversion
/// (−ln U) cost a `log1p` per draw, a quarter of a redundancy simulation's time with
/// hyperexponential copies.
struct H2Sampler {
    p: f64,
    inv_rate1: f64,
    inv_rate2: f64,
}

impl Sampler for H2Sampler {
    #[inline]
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let u: f64 = rng.random();
        let scale = if u < self.p {
            self.inv_rate1
        } else {
            self.inv_rate2
        };
        exp1(rng) * scale
    }
}

//! Uniform on [a, b] with 0 ≤ a < b.

use super::{
    check_higher_order, check_level, check_order, clip, f64_args, to_f64_param, DistError, JobSize,
    Sampler,
};
use crate::num::dd::{clip_ln, f64_pair};
use crate::num::logf64::{f64_normal, ln_power_integral_f64};
use crate::num::message_number;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;

/// Uniform distribution.
#[derive(Debug, Clone)]
pub struct Uniform {
    a: Float,
    b: Float,
    width: Float,
    /// Constants of [`JobSize::ln_partial_moment_f64`].
    f64c: Option<UniformF64>,
}

/// f64 constants of the uniform's log-domain moments: only logarithms enter, so any
/// bounds (10^-400, 10^100000) fit.
#[derive(Debug, Clone)]
struct UniformF64 {
    /// ln a as a double-double ((−∞, 0) for a = 0).
    ln_lo: (f64, f64),
    /// ln b.
    ln_hi: (f64, f64),
    /// −ln(b − a).
    c: f64,
}

impl UniformF64 {
    fn new(a: &Float, b: &Float, width: &Float) -> Option<Self> {
        let w = a.prec() + 16;
        let ln_lo = if a.is_zero() {
            (f64::NEG_INFINITY, 0.0)
        } else {
            f64_pair(&Float::with_val(w, a.ln_ref()))?
        };
        Some(UniformF64 {
            ln_lo,
            ln_hi: f64_pair(&Float::with_val(w, b.ln_ref()))?,
            c: f64_normal(&-Float::with_val(w, width.ln_ref()))?,
        })
    }
}

impl Uniform {
    /// Uniform(a, b) with 0 ≤ a < b; the precision is that of `a`.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{JobSize, Uniform};
    /// let d = Uniform::new(Float::with_val(64, 0), Float::with_val(64, 1)).unwrap();
    /// assert_eq!(d.moment(2).unwrap(), Float::with_val(64, 1) / 3u32);
    /// ```
    pub fn new(a: Float, b: Float) -> Result<Self, DistError> {
        if !(a >= 0) {
            return Err(DistError::BadParameter {
                family: "uniform",
                why: format!(
                    "a must be ≥ 0 (job sizes are not negative), got {}",
                    message_number(&a)
                ),
            });
        }
        if !(b > a) {
            return Err(DistError::BadParameter {
                family: "uniform",
                why: format!(
                    "b must be > a, got b = {} ≤ a = {}",
                    message_number(&b),
                    message_number(&a)
                ),
            });
        }
        let bits = a.prec();
        let b = Float::with_val(bits, b);
        let width = Float::with_val(bits, &b - &a);
        let f64c = UniformF64::new(&a, &b, &width);
        Ok(Uniform { a, b, width, f64c })
    }
}

impl Uniform {
    /// M_j(a, b) for the orders of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`]: (1/w) ∫_a^b x^j dx.
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.a, &self.b, bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        let v = match j {
            -1 => {
                if a.is_zero() {
                    return Err(DistError::InfiniteMoment {
                        family: "uniform",
                        j,
                        a: "0".into(),
                        b: message_number(&b),
                    });
                }
                Float::with_val(bits, &b / &a).ln()
            }
            0 => Float::with_val(bits, &b - &a),
            // (b² − a²)/2 = (b − a)(b + a)/2, (b³ − a³)/3 = (b − a)(b² + ab + a²)/3
            1 => Float::with_val(bits, &b - &a) * Float::with_val(bits, &b + &a) / 2u32,
            // (b^(j+1) − a^(j+1))/(j+1) = (b − a) Σ_{i=0}^{j} b^i a^(j−i) / (j+1)
            3 | 4 => {
                let mut s = Float::with_val(bits, 0);
                for i in 0..=j {
                    s +=
                        Float::with_val(bits, (&b).pow(i)) * Float::with_val(bits, (&a).pow(j - i));
                }
                Float::with_val(bits, &b - &a) * s / (j as u32 + 1)
            }
            _ => {
                let s = Float::with_val(bits, &b * &b)
                    + Float::with_val(bits, &a * &b)
                    + Float::with_val(bits, &a * &a);
                Float::with_val(bits, &b - &a) * s / 3u32
            }
        };
        Ok(v / &self.width)
    }
}

impl JobSize for Uniform {
    family_items!("uniform", a, Float: a, b);
    fn tail(&self, x: &Float) -> Float {
        let bits = self.prec();
        if *x <= self.a {
            return Float::with_val(bits, 1);
        }
        if *x >= self.b {
            return Float::with_val(bits, 0);
        }
        Float::with_val(bits, &self.b - x) / &self.width
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let bits = self.prec();
        if *x < self.a || *x > self.b {
            return Some(Float::with_val(bits, 0));
        }
        Some(Float::with_val(bits, 1u32) / &self.width)
    }
    any_order_moments!();
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        // M_j = (1/w) ∫_a^b x^j dx: the power-law kernel with t = j + 1 (t = 0 is ln(b/a)),
        // after clipping to the support in log space.
        let f = self.f64c.as_ref()?;
        f64_args(j, ln_a, ln_b)?;
        let Some(iv) = clip_ln(ln_a, ln_b, f.ln_lo, f.ln_hi) else {
            return Some(f64::NEG_INFINITY);
        };
        let (la, lb) = (iv.a_rel((0.0, 0.0)), iv.b_rel((0.0, 0.0)));
        Some(ln_power_integral_f64(
            f64::from(j + 1),
            f.c,
            la,
            lb,
            iv.width,
        ))
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        check_level("uniform", u)?;
        Ok(Float::with_val(self.prec(), u * &self.width) + &self.a)
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // x (b − x)/(b − a) is maximal at b/2, or at a if a > b/2.
        let bits = self.prec();
        let half = Float::with_val(bits, &self.b / 2u32);
        let x = if half > self.a { half } else { self.a.clone() };
        let v = Float::with_val(bits, &x * &self.tail(&x));
        Ok((x, v))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        Ok(Box::new(UniformSampler {
            a: to_f64_param("uniform", "a", &self.a)?,
            w: to_f64_param("uniform", "b-a", &self.width)?,
        }))
    }
}

struct UniformSampler {
    a: f64,
    w: f64,
}

impl Sampler for UniformSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let u: f64 = rng.random();
        self.a + u * self.w
    }
}

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
        if rate.is_nan() || rate <= 0 {
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
}

/// Guard bits of [`Exponential::interval_moment`].
const EXP_GUARD_BITS: u32 = 8;

/// Regularised lower incomplete gamma P(n, y) = 1 − e^(−y) Σ_{m<n} y^m/m! for an integer
/// n ≥ 1 and y ≥ 0 (y = ∞ gives 1), without cancellation: for y < 1 it sums the positive
/// series e^(−y) Σ_{m≥n} y^m/m!; for y ≥ 1, P(n, y) ≥ P(n, 1) and the subtraction loses at
/// most log2(1/P(n, 1)) bits (under 4 for n ≤ 3).
fn lower_gamma_regularised(bits: u32, n: u32, y: &Float) -> Float {
    if y.is_infinite() {
        return Float::with_val(bits, 1);
    }
    if n == 1 {
        return -Float::with_val(bits, -y).exp_m1();
    }
    let e = Float::with_val(bits, -y).exp();
    let mut term = Float::with_val(bits, 1);
    if *y < 1 {
        // y^n/n! · (1 + y/(n+1) + y²/((n+1)(n+2)) + …)
        for m in 1..=n {
            term = term * y / m;
        }
        let mut sum = Float::with_val(bits, 0);
        let eps = Float::with_val(bits, 1u32) >> bits;
        let mut m = n;
        while term > Float::with_val(bits, &sum * &eps) {
            sum += &term;
            m += 1;
            term = term * y / m;
        }
        sum * e
    } else {
        let mut partial = Float::with_val(bits, 0);
        for m in 0..n {
            if m > 0 {
                term = term * y / m;
            }
            partial += &term;
        }
        Float::with_val(bits, 1u32) - partial * e
    }
}

impl Exponential {
    /// M_j(a, b) for j = 1, 2 and 0 ≤ a < b ≤ ∞ as a sum of positive terms (no cancellation
    /// on short intervals): with x = a + s, y = μ(b − a),
    /// ∫_a^b x^j μ e^(−μx) dx = e^(−μa) Σ_{i≤j} C(j,i) a^(j−i) (i!/μ^i) P(i+1, y).
    fn interval_moment(&self, j: i32, a: &Float, b: &Float) -> Float {
        let bits = self.prec();
        let w = bits + EXP_GUARD_BITS;
        let y = if b.is_infinite() {
            Float::with_val(w, b)
        } else {
            Float::with_val(w, b - a) * &self.rate
        };
        let inv = Float::with_val(w, self.rate.recip_ref());
        let ea = self.exp_neg(a, w);
        // (coefficient C(j,i)·i!, power of a, power of 1/μ) for i = 0..=j
        let terms: &[(u32, u32, u32)] = if j == 1 {
            &[(1, 1, 0), (1, 0, 1)]
        } else {
            &[(1, 2, 0), (2, 1, 1), (2, 0, 2)]
        };
        let mut sum = Float::with_val(w, 0);
        for (i, &(c, pa, pi)) in terms.iter().enumerate() {
            let mut t = lower_gamma_regularised(w, i as u32 + 1, &y) * c;
            for _ in 0..pa {
                t *= a;
            }
            for _ in 0..pi {
                t *= &inv;
            }
            sum += t;
        }
        Float::with_val(bits, sum * ea)
    }

    /// μx exactly (the product of two floats fits in the sum of their precisions): for
    /// large μx, e^(−μx) and E1(μx) amplify a rounding of μx by the factor μx.
    fn mu_times(&self, x: &Float) -> Float {
        Float::with_val(self.rate.prec() + x.prec(), &self.rate * x)
    }

    /// e^(−μx) correctly rounded to `bits`.
    fn exp_neg(&self, x: &Float, bits: u32) -> Float {
        Float::with_val(bits, (-self.mu_times(x)).exp_ref())
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
        self.exp_neg(x, b)
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let b = self.prec();
        if *x < 0 {
            return Some(Float::with_val(b, 0));
        }
        Some(Float::with_val(
            b,
            self.exp_neg(x, b + EXP_GUARD_BITS) * &self.rate,
        ))
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
                    -Float::with_val(bits + EXP_GUARD_BITS, (-self.mu_times(x)).eint_ref())
                };
                Ok(Float::with_val(bits, (e1(&a) - e1(&b)) * &self.rate))
            }
            0 => {
                // e^(−μa) (1 − e^(−μ(b−a))) without cancellation for short intervals.
                let w = bits + EXP_GUARD_BITS;
                let ea = self.exp_neg(&a, w);
                if b.is_infinite() {
                    return Ok(Float::with_val(bits, ea));
                }
                let d = Float::with_val(w, &b - &a) * &self.rate;
                Ok(Float::with_val(bits, ea * -(-d).exp_m1()))
            }
            _ => Ok(self.interval_moment(j, &a, &b)),
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

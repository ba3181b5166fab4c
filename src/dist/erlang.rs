//! Erlang with k phases and rate r (the sum of k independent Exp(r)): density
//! r^k x^(k−1) e^(−rx)/(k−1)!, tail F̄(x) = e^(−rx) Σ_{m<k} (rx)^m/m!, mean k/r, squared
//! coefficient of variation 1/k. Its hazard rate increases (IFR) for k ≥ 2, so it is New
//! Better than Used — the redundancy literature's NBU example (`erlang:k=4,rate=4` has
//! mean 1).
//!
//! Partial moments: with y = rx, x^j f(x) dx = r^(−j) y^(k+j−1) e^(−y) dy/(k−1)!, so
//! M_j(a, b) = r^(−j)/Γ(k) · ∫_{ra}^{rb} y^(s−1) e^(−y) dy with s = k + j, the incomplete
//! gamma integral of [`crate::num::gamma::gamma_interval`] (three regimes, no cancellation).
//! E[1/X] diverges for k = 1 (s = 0 at y = 0).

use super::{check_higher_order, check_order, clip, to_f64_param, DistError, JobSize, Sampler};
use crate::dist::ziggurat::exp1;
use crate::num::gamma::gamma_interval;
use crate::num::{message_number, NumError};
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;

/// Most phases: the sampler adds k exponentials, and 1000 phases (SCV 0.001) is far past
/// any use.
pub const MAX_PHASES: u32 = 1000;
/// Guard bits of the formulas.
const ERLANG_GUARD_BITS: u32 = 16;

/// The Erlang distribution.
#[derive(Debug, Clone)]
pub struct Erlang {
    k: u32,
    rate: Float,
}

impl Erlang {
    /// Erlang(k, r) with an integer 1 ≤ k ≤ [`MAX_PHASES`] given as a number, and r > 0;
    /// the precision is that of `rate`.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{Erlang, JobSize};
    /// let d = Erlang::new(&Float::with_val(64, 4), Float::with_val(64, 4)).unwrap();
    /// assert_eq!(d.mean().unwrap(), 1);
    /// assert_eq!(d.moment(2).unwrap(), 1.25); // k(k+1)/r² = 20/16
    /// ```
    pub fn new(k: &Float, rate: Float) -> Result<Self, DistError> {
        if !(k.is_integer() && *k >= 1 && *k <= MAX_PHASES) {
            return Err(DistError::BadParameter {
                family: "erlang",
                why: format!(
                    "k must be an integer in 1..={MAX_PHASES}, got {}",
                    message_number(k)
                ),
            });
        }
        if !(rate > 0) || rate.is_infinite() {
            return Err(DistError::BadParameter {
                family: "erlang",
                why: format!("rate must be finite and > 0, got {}", message_number(&rate)),
            });
        }
        let k = k.to_u32_saturating().unwrap_or(1);
        Ok(Erlang { k, rate })
    }

    /// The rate r of each phase.
    pub fn rate(&self) -> &Float {
        &self.rate
    }
}

impl Erlang {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.lower(), &self.upper(), bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        let w = bits + ERLANG_GUARD_BITS;
        let s = i64::from(self.k) + i64::from(j);
        if a.is_zero() && s <= 0 {
            return Err(DistError::InfiniteMoment {
                family: "erlang",
                j,
                a: "0".into(),
                b: message_number(&b),
            });
        }
        let ya = Float::with_val(w, &a * &self.rate);
        let yb = Float::with_val(w, &b * &self.rate);
        let g = gamma_interval(w, &Float::with_val(w, s), &ya, &yb).map_err(|e| match e {
            NumError::Divergent(_) => DistError::InfiniteMoment {
                family: "erlang",
                j: -1,
                a: "0".into(),
                b: message_number(&yb),
            },
            other => DistError::Num(other),
        })?;
        // r^(−j) / (k−1)!
        let mut fact = Float::with_val(w, 1);
        for m in 2..self.k {
            fact *= m;
        }
        let rj = match j {
            -1 => Float::with_val(w, &self.rate),
            0 => Float::with_val(w, 1),
            1 => Float::with_val(w, self.rate.recip_ref()),
            2 => Float::with_val(w, self.rate.square_ref()).recip(),
            _ => Float::with_val(w, (&self.rate).pow(-j)),
        };
        Ok(Float::with_val(bits, g * rj / fact))
    }
}

impl JobSize for Erlang {
    family_items!("erlang", rate);
    fn tail(&self, x: &Float) -> Float {
        let bits = self.prec();
        if *x <= 0 {
            return Float::with_val(bits, 1);
        }
        if x.is_infinite() {
            return Float::with_val(bits, 0);
        }
        // e^(−y) Σ_{m<k} y^m/m!: positive terms only.
        let w = bits + ERLANG_GUARD_BITS;
        let y = Float::with_val(w, x * &self.rate);
        let mut term = Float::with_val(w, 1);
        let mut sum = Float::with_val(w, 1);
        for m in 1..self.k {
            term *= &y;
            term /= m;
            sum += &term;
        }
        Float::with_val(bits, sum * Float::with_val(w, (-y).exp_ref()))
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let bits = self.prec();
        if *x < 0 || x.is_infinite() {
            return Some(Float::with_val(bits, 0));
        }
        let w = bits + ERLANG_GUARD_BITS;
        let y = Float::with_val(w, x * &self.rate);
        // r y^(k−1) e^(−y)/(k−1)!
        let mut v = Float::with_val(w, (-Float::with_val(w, &y)).exp());
        for m in 1..self.k {
            v *= &y;
            v /= m;
        }
        Some(Float::with_val(bits, v * &self.rate))
    }
    any_order_moments!();
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let r = to_f64_param("erlang", "rate", &self.rate)?;
        Ok(Box::new(ErlangSampler {
            k: self.k,
            inv_rate: 1.0 / r,
        }))
    }
}

/// The sum of k Exp(r) variates (ziggurat).
struct ErlangSampler {
    k: u32,
    inv_rate: f64,
}

impl Sampler for ErlangSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let mut s = 0.0;
        for _ in 0..self.k {
            s += exp1(rng);
        }
        s * self.inv_rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_phase_is_the_exponential() {
        // Erlang(1, r) = Exp(r): tail e^(−rx), E[X²] = 2/r².
        let b = 128;
        let d = Erlang::new(&Float::with_val(b, 1), Float::with_val(b, 2)).unwrap();
        let x = Float::with_val(b, 1.5);
        let e = Float::with_val(b, -3).exp();
        assert!(Float::with_val(b, d.tail(&x) - &e).abs() < Float::with_val(b, &e >> 120));
        assert_eq!(d.moment(2).unwrap(), 0.5);
        assert!(matches!(
            d.moment(-1),
            Err(DistError::InfiniteMoment { .. })
        ));
    }

    #[test]
    fn bad_parameters() {
        let b = 64;
        let f = |k: f64, r: f64| Erlang::new(&Float::with_val(b, k), Float::with_val(b, r));
        assert!(f(0.0, 1.0).is_err());
        assert!(f(2.5, 1.0).is_err());
        assert!(f(2.0, 0.0).is_err());
        assert!(f(1001.0, 1.0).is_err());
        assert!(f(3.0, 1.0).is_ok());
    }
}

//! Bounded Pareto BP(k, p, α): density α k^α x^(−α−1) / (1 − (k/p)^α) on [k, p].

use super::ziggurat::exp1;
use super::{
    check_order, clip, fast_pow, rel_power_integral, to_f64_param, DistError, JobSize, Sampler,
};
use crate::num::show;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;

/// Bounded Pareto distribution.
#[derive(Debug, Clone)]
pub struct BoundedPareto {
    k: Float,
    p: Float,
    alpha: Float,
    /// 1 − (k/p)^α, computed as −expm1(α ln(k/p)) (no cancellation for small α).
    norm: Float,
}

impl BoundedPareto {
    /// BP(k, p, α) with 0 < k < p and α > 0; the precision is that of `k`.
    ///
    /// With α = 1 the mean is k ln(p/k) / (1 − k/p) exactly (the j = α case is a logarithm):
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{JobSize, bounded_pareto::BoundedPareto};
    /// let b = 200;
    /// let d = BoundedPareto::new(Float::with_val(b, 1), Float::with_val(b, 100), Float::with_val(b, 1)).unwrap();
    /// let exact = Float::with_val(b, 100).ln() / (Float::with_val(b, 99) / 100u32);
    /// let err = Float::with_val(b, d.mean().unwrap() - &exact).abs();
    /// assert!(err < 1e-55);
    /// ```
    pub fn new(k: Float, p: Float, alpha: Float) -> Result<Self, DistError> {
        let f = "bp";
        if !(k > 0) {
            return Err(DistError::BadParameter {
                family: f,
                why: format!("k must be > 0, got {}", show(&k)),
            });
        }
        if !(p > k) {
            return Err(DistError::BadParameter {
                family: f,
                why: format!("p must be > k, got p = {} ≤ k = {}", show(&p), show(&k)),
            });
        }
        if !(alpha > 0) {
            return Err(DistError::BadParameter {
                family: f,
                why: format!("alpha must be > 0, got {}", show(&alpha)),
            });
        }
        let bits = k.prec();
        let p = Float::with_val(bits, p);
        let alpha = Float::with_val(bits, alpha);
        let l = Float::with_val(bits, &k / &p).ln();
        let norm = -Float::with_val(bits, &alpha * &l).exp_m1();
        Ok(BoundedPareto { k, p, alpha, norm })
    }

    /// Shape α.
    pub fn alpha(&self) -> &Float {
        &self.alpha
    }
}

impl JobSize for BoundedPareto {
    fn family(&self) -> &'static str {
        "bp"
    }
    fn prec(&self) -> u32 {
        self.k.prec()
    }
    fn lower(&self) -> Float {
        self.k.clone()
    }
    fn upper(&self) -> Float {
        self.p.clone()
    }
    fn tail(&self, x: &Float) -> Float {
        let b = self.prec();
        if *x < self.k {
            return Float::with_val(b, 1);
        }
        if *x >= self.p {
            return Float::with_val(b, 0);
        }
        // (k/x)^α (1 − (x/p)^α) / norm
        let kx = fast_pow(&Float::with_val(b, &self.k / x), &self.alpha);
        let lxp = Float::with_val(b, x / &self.p).ln();
        let one_minus = -Float::with_val(b, &self.alpha * &lxp).exp_m1();
        kx * one_minus / &self.norm
    }
    fn density(&self, x: &Float) -> Option<Float> {
        let b = self.prec();
        if *x < self.k || *x > self.p {
            return Some(Float::with_val(b, 0));
        }
        // α/k · (k/x)^(α+1) / norm
        let e = Float::with_val(b, &self.alpha + 1u32);
        let r = fast_pow(&Float::with_val(b, &self.k / x), &e);
        Some(r * &self.alpha / &self.k / &self.norm)
    }
    fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_order(j)?;
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.k, &self.p, bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        // α k^α / norm · ∫_a^b x^(j−α−1) dx, and k^α a^(j−α) = a^j (k/a)^α.
        let t = Float::with_val(bits, j) - &self.alpha;
        let ka = fast_pow(&Float::with_val(bits, &self.k / &a), &self.alpha);
        let aj = Float::with_val(bits, (&a).pow(j));
        Ok(rel_power_integral(bits, &t, &a, &b) * aj * ka * &self.alpha / &self.norm)
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        if !(*u > 0 && *u < 1) {
            return Err(DistError::BadParameter {
                family: "bp",
                why: format!("quantile level {} not in (0,1)", show(u)),
            });
        }
        // k (1 − u·norm)^(−1/α)
        let base = Float::with_val(b, 1u32) - Float::with_val(b, u * &self.norm);
        let e = -Float::with_val(b, 1u32) / &self.alpha;
        Ok(base.pow(&e) * &self.k)
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        let b = self.prec();
        // d/dx [x F̄(x)] ∝ (1−α) k^α x^−α − (k/p)^α: for α < 1 the maximiser is
        // p (1−α)^(1/α) (if above k), otherwise k.
        let x = if self.alpha < 1 {
            let e = Float::with_val(b, 1u32) / &self.alpha;
            let one_m = Float::with_val(b, 1u32) - &self.alpha;
            let x = one_m.pow(&e) * &self.p;
            if x > self.k {
                x
            } else {
                self.k.clone()
            }
        } else {
            self.k.clone()
        };
        let v = Float::with_val(b, &x * &self.tail(&x));
        Ok((x, v))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let k = to_f64_param("bp", "k", &self.k)?;
        let p = to_f64_param("bp", "p", &self.p)?;
        let alpha = to_f64_param("bp", "alpha", &self.alpha)?;
        let norm = self.norm.to_f64();
        Ok(Box::new(BpSampler {
            k,
            p,
            inv_alpha: 1.0 / alpha,
            norm,
        }))
    }
}

struct BpSampler {
    k: f64,
    p: f64,
    inv_alpha: f64,
    norm: f64,
}

/// Below this probability mass 1 − (k/p)^α the sampler inverts the CDF; above it, it draws
/// a Pareto variate k·e^(E/α) (E ~ Exp(1) by the ziggurat) and rejects it above p, which
/// then succeeds with probability ≥ 1/2 and costs one `exp` instead of one `powf`.
pub const BP_REJECTION_MIN_MASS: f64 = 0.5;

impl Sampler for BpSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        if self.norm >= BP_REJECTION_MIN_MASS {
            // Pareto(k, α) conditioned on X ≤ p is BP(k, p, α).
            loop {
                let x = self.k * (exp1(rng) * self.inv_alpha).exp();
                if x <= self.p {
                    return x;
                }
            }
        }
        let u: f64 = rng.random();
        (self.k * (1.0 - u * self.norm).powf(-self.inv_alpha)).min(self.p)
    }
    fn fill(&self, rng: &mut Xoshiro256PlusPlus, out: &mut [f64]) {
        // The same draws as `sample`, in a loop the compiler sees whole.
        for x in out {
            *x = self.sample(rng);
        }
    }
}

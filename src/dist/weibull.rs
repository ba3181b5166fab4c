//! Weibull with shape k and scale λ: F̄(x) = exp(−(x/λ)^k) for x ≥ 0.
//!
//! With y = (x/λ)^k the partial moments are incomplete gamma integrals:
//! M_j(a, b) = λ^j ∫_{y_a}^{y_b} y^(s−1) e^(−y) dy with s = 1 + j/k
//! (= λ^j [Γ(s, y_a) − Γ(s, y_b)]), evaluated without catastrophic cancellation by
//! [`crate::num::gamma::gamma_interval`] (its regimes are in that module's docs). Where the
//! interval in x is short the computation is repeated at log2(b/(b−a)) more bits, and
//! log2(1/k) more when k < 1.

use super::ziggurat::exp1;
use super::{
    check_higher_order, check_level, check_order, check_positive_finite, clip, f64_args,
    to_f64_param, DistError, JobSize, Sampler,
};
use crate::num::dd::{f64_pair, two_sum, LnPoint};
use crate::num::gamma::{gamma_interval, ln_gamma_interval_f64};
use crate::num::logf64::{f64_normal, interval_width, ln_one_minus_exp_neg};
use crate::num::{message_number, NumError};
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::float::Special;
use rug::ops::Pow;
use rug::Float;

/// Guard bits for the partial moments.
pub const WEIBULL_GUARD_BITS: u32 = 16;

/// Weibull distribution on [0, ∞).
#[derive(Debug, Clone)]
pub struct Weibull {
    shape: Float,
    scale: Float,
    /// Constants of [`JobSize::ln_partial_moment_f64`] (`None` for a shape outside
    /// [`WEIBULL_F64_MIN_SHAPE`, f64's range]).
    f64c: Option<WeibullF64>,
}

/// Smallest shape with an f64 form: the gamma shapes s = 1 + j/k stay within ±1000, where
/// the f64 series and continued fractions of [`ln_gamma_interval_f64`] converge in a few
/// hundred terms.
pub const WEIBULL_F64_MIN_SHAPE: f64 = 2.0 / 999.0;

/// f64 constants of the Weibull's log-domain moments, computed once in MPFR.
#[derive(Debug, Clone)]
struct WeibullF64 {
    /// Shape k as a double-double.
    k: (f64, f64),
    /// ln λ as a double-double.
    ln_scale: (f64, f64),
    /// Gamma shapes s_j = 1 + j/k for j = −1, 0, 1, 2.
    s: [f64; 4],
}

impl WeibullF64 {
    fn new(shape: &Float, scale: &Float) -> Option<Self> {
        let w = shape.prec() + 16;
        let kf = f64_normal(shape)?;
        if kf < WEIBULL_F64_MIN_SHAPE {
            return None;
        }
        let mut s = [0.0; 4];
        for (i, j) in (-1i32..=2).enumerate() {
            s[i] = f64_normal(&(Float::with_val(w, j) / shape + 1u32))?;
        }
        Some(WeibullF64 {
            k: f64_pair(shape)?,
            ln_scale: f64_pair(&Float::with_val(w, scale.ln_ref()))?,
            s,
        })
    }

    /// y = (x/λ)^k from ln x: ln y = k (ln x − ln λ) as a double-double (an FMA for the
    /// product), so that y = 10^5 still has a relative error of about one ulp.
    fn y_point(&self, ln_x: f64) -> LnPoint {
        if ln_x.is_infinite() {
            return LnPoint::from_ln(ln_x);
        }
        let (dh, e) = two_sum(ln_x, -self.ln_scale.0);
        let (dh, dl) = two_sum(dh, e - self.ln_scale.1);
        let p = dh * self.k.0;
        let pe = dh.mul_add(self.k.0, -p);
        LnPoint::from_parts(p, pe + dh * self.k.1 + dl * self.k.0)
    }
}

impl Weibull {
    /// Weibull(k, λ) with k > 0 and λ > 0; the precision is that of `shape`.
    ///
    /// Shape 1 is the exponential with mean λ; shape 2 has mean λ·√π/2:
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{JobSize, Weibull};
    /// let b = 128;
    /// let d = Weibull::new(Float::with_val(b, 2), Float::with_val(b, 1)).unwrap();
    /// let exact = Float::with_val(b, rug::float::Constant::Pi).sqrt() / 2u32;
    /// assert!((d.mean().unwrap() - exact).abs() < 1e-35);
    /// ```
    pub fn new(shape: Float, scale: Float) -> Result<Self, DistError> {
        let f = "weibull";
        check_positive_finite(f, "shape", &shape)?;
        check_positive_finite(f, "scale", &scale)?;
        let scale = Float::with_val(shape.prec(), scale);
        let f64c = WeibullF64::new(&shape, &scale);
        Ok(Weibull { shape, scale, f64c })
    }

    /// (x/λ)^k at `bits`.
    fn y(&self, bits: u32, x: &Float) -> Float {
        if x.is_infinite() {
            return Float::with_val(bits, Special::Infinity);
        }
        let r = Float::with_val(bits, x / &self.scale);
        r.pow(&Float::with_val(bits, &self.shape))
    }
}

impl Weibull {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.lower(), &self.upper(), bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        // Extra bits for a short interval: log2(b/(b−a)), and log2(1/k) more when k < 1
        // (the interval in y is k times shorter, relatively).
        let mut extra = 0u32;
        if b.is_finite() && a > 0 {
            let width = Float::with_val(bits + WEIBULL_GUARD_BITS, &b - &a);
            extra = (b.get_exp().unwrap_or(0) - width.get_exp().unwrap_or(0)).max(0) as u32;
            if self.shape < 1 {
                extra += (1 - self.shape.get_exp().unwrap_or(0)).max(0) as u32;
            }
        }
        let wb = bits + WEIBULL_GUARD_BITS + extra;
        let ya = self.y(wb, &a);
        let yb = self.y(wb, &b);
        if j == 0 {
            // e^(−ya) − e^(−yb) = e^(−ya)·(−expm1(ya − yb))
            let ea = Float::with_val(wb, (-ya.clone()).exp_ref());
            if yb.is_infinite() {
                return Ok(Float::with_val(bits, ea));
            }
            let d = -Float::with_val(wb, &ya - &yb).exp_m1();
            return Ok(Float::with_val(bits, ea * d));
        }
        let s = Float::with_val(wb, j) / &self.shape + 1u32;
        if a.is_zero() && s <= 0 {
            return Err(DistError::InfiniteMoment {
                family: "weibull",
                j,
                a: "0".into(),
                b: message_number(&b),
            });
        }
        let g = if a.is_zero() && b.is_infinite() {
            Float::with_val(wb, s.gamma_ref())
        } else {
            gamma_interval(wb, &s, &ya, &yb).map_err(|e| match e {
                NumError::Divergent(_) => DistError::InfiniteMoment {
                    family: "weibull",
                    j: -1,
                    a: "0".into(),
                    b: message_number(&yb),
                },
                other => DistError::Num(other),
            })?
        };
        let lj = Float::with_val(wb, (&self.scale).pow(j));
        Ok(Float::with_val(bits, g * lj))
    }
}

impl JobSize for Weibull {
    family_items!("weibull", shape);
    fn tail(&self, x: &Float) -> Float {
        let b = self.prec();
        if *x <= 0 {
            return Float::with_val(b, 1);
        }
        Float::with_val(b, (-self.y(b + WEIBULL_GUARD_BITS, x)).exp())
    }
    fn cdf(&self, x: &Float) -> Float {
        // 1 − e^(−y) as −expm1(−y): accurate for small x.
        let b = self.prec();
        if *x <= 0 {
            return Float::with_val(b, 0);
        }
        let v = -(-self.y(b + WEIBULL_GUARD_BITS, x)).exp_m1();
        Float::with_val(b, v)
    }
    fn density(&self, x: &Float) -> Option<Float> {
        // k/λ · (x/λ)^(k−1) · e^(−(x/λ)^k)
        let b = self.prec();
        if *x < 0 || x.is_infinite() {
            return Some(Float::with_val(b, 0));
        }
        let w = b + WEIBULL_GUARD_BITS;
        let r = Float::with_val(w, x / &self.scale);
        let km1 = Float::with_val(w, &self.shape - 1u32);
        let p = Float::with_val(w, (&r).pow(&km1));
        let y = Float::with_val(w, &p * &r);
        let v = p * (-y).exp() * &self.shape / &self.scale;
        Some(Float::with_val(b, v))
    }
    any_order_moments!();
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        // M_j = λ^j ∫_{y_a}^{y_b} y^(s−1) e^−y dy, y = (x/λ)^k, s = 1 + j/k (module doc);
        // j = 0 is e^−ya (1 − e^−(yb−ya)) with yb − ya from ln(yb/ya) = k ln(b/a).
        let f = self.f64c.as_ref()?;
        f64_args(j, ln_a, ln_b)?;
        if ln_a >= ln_b {
            return Some(f64::NEG_INFINITY);
        }
        let pa = f.y_point(ln_a);
        let pb = f.y_point(ln_b);
        if pa.x == f64::INFINITY {
            // ln M ≈ −y_a is below −f64::MAX.
            return Some(f64::NEG_INFINITY);
        }
        if j == 0 {
            let ly = pa.ln_ratio(&pb);
            let (w, ln_w) = interval_width(&pa, &pb, ly);
            return Some(-pa.x + ln_one_minus_exp_neg(w, ln_w));
        }
        let s = f.s[(j + 1) as usize];
        if pa.hi == f64::NEG_INFINITY && s <= 0.0 {
            return Some(f64::INFINITY);
        }
        let lg = ln_gamma_interval_f64(s, &pa, &pb);
        let jf = f64::from(j);
        let v = jf * f.ln_scale.0 + jf * f.ln_scale.1 + lg;
        // A safeguard: the series and fractions converge on every range the shapes allow.
        (!v.is_nan()).then_some(v)
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        check_level("weibull", u)?;
        // λ (−ln(1−u))^(1/k)
        let w = b + WEIBULL_GUARD_BITS;
        let l = -Float::with_val(w, -Float::with_val(w, u)).ln_1p();
        let e = Float::with_val(w, self.shape.recip_ref());
        Ok(Float::with_val(b, l.pow(&e) * &self.scale))
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // d/dx [x e^(−(x/λ)^k)] = 0 at (x/λ)^k = 1/k: x* = λ k^(−1/k), value x*·e^(−1/k).
        let b = self.prec();
        let w = b + WEIBULL_GUARD_BITS;
        let inv = Float::with_val(w, self.shape.recip_ref());
        let x = Float::with_val(w, (&self.shape).pow(&Float::with_val(w, -&inv))) * &self.scale;
        let v = Float::with_val(w, &x * (-inv).exp());
        Ok((Float::with_val(b, x), Float::with_val(b, v)))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let k = to_f64_param("weibull", "shape", &self.shape)?;
        let scale = to_f64_param("weibull", "scale", &self.scale)?;
        Ok(Box::new(WeibullSampler {
            inv_shape: 1.0 / k,
            scale,
        }))
    }
}

struct WeibullSampler {
    inv_shape: f64,
    scale: f64,
}

impl Sampler for WeibullSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        // λ E^(1/k) with E ~ Exp(1) (the ziggurat, which spares inversion's log).
        self.scale * exp1(rng).powf(self.inv_shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::tol::close_at_bits as close;

    #[test]
    fn tiny_shape_partial_moments_add_up_to_the_mean() {
        // k = 0.001: E[X] = Γ(1 + 1/k) (closed form); the lower part (Kummer) plus the upper
        // part (continued fraction / gamma_inc) at several splits.
        let b = 128;
        // The shape is 1/1000 rounded to 128 bits: E[X] = Γ(1 + 1/k) from that very k by
        // MPFR's gamma at 64 more bits (1000! itself differs from it by ~2^-115 relative).
        let k = Float::with_val(b, 1) / 1000u32;
        let d = Weibull::new(k.clone(), Float::with_val(b, 1)).unwrap();
        let s = Float::with_val(b + 64, k.recip_ref()) + 1u32;
        let mean = Float::with_val(b, s.gamma_ref());
        let zero = Float::with_val(b, 0);
        let inf = Float::with_val(b, Special::Infinity);
        // Splits x = y^(1/k) with y = (x/λ)^k on both sides of s = 1001, where the lower
        // part switches from Kummer's series to the upper-gamma evaluations.
        for y in [1u32, 100, 900, 1001, 1500, 3000] {
            let y = Float::with_val(b, y);
            let x = (Float::with_val(b, y.ln_ref()) * 1000u32).exp();
            let below = d.partial_moment(1, &zero, &x).unwrap();
            let above = d.partial_moment(1, &x, &inf).unwrap();
            let sum = Float::with_val(b, &below + &above);
            assert!(
                close(b, &sum, &mean),
                "y {}: {} + {} = {} vs Γ(1 + 1/k) = {}",
                message_number(&y),
                message_number(&below),
                message_number(&above),
                message_number(&sum),
                message_number(&mean)
            );
        }
    }

    #[test]
    fn infinite_reciprocal_moment() {
        let b = 64;
        for k in [0.5f64, 1.0] {
            let d = Weibull::new(Float::with_val(b, k), Float::with_val(b, 1)).unwrap();
            assert!(matches!(
                d.moment(-1),
                Err(DistError::InfiniteMoment { .. })
            ));
        }
        let d = Weibull::new(Float::with_val(b, 2), Float::with_val(b, 1)).unwrap();
        // E[1/X] = Γ(1/2)/λ = √π for k = 2 (s = 1/2).
        let e = Float::with_val(b, rug::float::Constant::Pi).sqrt();
        assert!(close(b, &d.moment(-1).unwrap(), &e));
    }

    #[test]
    fn bad_parameters() {
        let b = 64;
        assert!(Weibull::new(Float::with_val(b, 0), Float::with_val(b, 1)).is_err());
        assert!(Weibull::new(Float::with_val(b, 1), Float::with_val(b, -1)).is_err());
    }
}

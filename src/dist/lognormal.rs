//! Lognormal: ln X ~ N(μ, σ²), F̄(x) = Q((ln x − μ)/σ) with Q(z) = erfc(z/√2)/2.
//!
//! Partial moments (Johnson, Kotz & Balakrishnan, *Continuous Univariate Distributions*
//! vol. 1, 2nd ed., §14.3, the "incomplete moments"):
//! M_j(a, b) = exp(jμ + j²σ²/2) [Φ(z_b) − Φ(z_a)],  z_x = (ln x − μ − jσ²)/σ.
//! The difference of Φ is taken as a difference of upper tails Q when both z > 0 and of
//! lower tails when both z < 0, so no digit is lost to Φ ≈ 1; a short interval gets
//! log2(b/(b−a)) extra bits. MPFR's erfc is correctly rounded for every argument.

use super::ziggurat::normal1;
use super::{
    check_higher_order, check_level, check_order, check_positive_finite, clip, f64_args,
    to_f64_param, DistError, JobSize, Sampler,
};
use crate::num::gauss::{ln_gl6, GL6_MAX_VARIATION};
use crate::num::logf64::{f64_normal, ln_one_minus_exp};
use crate::num::normal::{ln_normal_q, normal_mass, normal_pdf, normal_q, normal_q_f64};
use crate::num::{message_number, root, NumError};
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::float::{Constant, Special};
use rug::Float;

/// Guard bits of the lognormal formulas.
pub const LOGNORMAL_GUARD_BITS: u32 = 16;
/// The f64 sampler needs |μ| + SIM_SIGMAS·σ below ln(f64::MAX), so that samples this many
/// standard deviations out (probability about 10^-15) are still finite.
pub const SIM_SIGMAS: f64 = 8.0;
/// Limit on the doublings that bracket a z-root.
const BRACKET_DOUBLINGS: usize = 64;

/// Lognormal distribution on (0, ∞).
#[derive(Debug, Clone)]
pub struct LogNormal {
    mu: Float,
    sigma: Float,
    /// Constants of [`JobSize::ln_partial_moment_f64`] (`None` if μ or σ do not fit).
    f64c: Option<LogNormalF64>,
}

/// f64 constants of the lognormal's log-domain moments, computed once in MPFR.
#[derive(Debug, Clone)]
struct LogNormalF64 {
    mu: f64,
    sigma: f64,
    /// ln(σ √(2π)).
    ln_norm: f64,
    /// μ + jσ² for j = −1, 0, 1, 2 (the z of order j is (ln x − μ − jσ²)/σ).
    shift: [f64; 4],
    /// jμ + j²σ²/2.
    pref: [f64; 4],
}

impl LogNormalF64 {
    fn new(mu: &Float, sigma: &Float) -> Option<Self> {
        let w = mu.prec() + 16;
        let s2 = Float::with_val(w, sigma.square_ref());
        let two_pi = Float::with_val(w, Constant::Pi) * 2u32;
        let ln_norm = Float::with_val(w, sigma * two_pi.sqrt()).ln();
        let mut shift = [0.0; 4];
        let mut pref = [0.0; 4];
        for (i, j) in (-1i32..=2).enumerate() {
            shift[i] = f64_normal(&(Float::with_val(w, &s2 * j) + mu))?;
            let p = Float::with_val(w, mu * j) + Float::with_val(w, &s2 * (j * j)) / 2u32;
            pref[i] = f64_normal(&p)?;
        }
        Some(LogNormalF64 {
            mu: f64_normal(mu)?,
            sigma: f64_normal(sigma)?,
            ln_norm: f64_normal(&ln_norm)?,
            shift,
            pref,
        })
    }
}

impl LogNormal {
    /// LogNormal(μ, σ) with σ > 0; the precision is that of `mu`.
    ///
    /// E[X] = e^(μ + σ²/2):
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{JobSize, LogNormal};
    /// let b = 128;
    /// let d = LogNormal::new(Float::with_val(b, 0), Float::with_val(b, 2)).unwrap();
    /// let exact = Float::with_val(b, 2).exp();
    /// assert!((d.mean().unwrap() - exact).abs() < 1e-35);
    /// ```
    pub fn new(mu: Float, sigma: Float) -> Result<Self, DistError> {
        let f = "lognormal";
        if !mu.is_finite() {
            return Err(DistError::BadParameter {
                family: f,
                why: format!("mu must be finite, got {}", message_number(&mu)),
            });
        }
        check_positive_finite(f, "sigma", &sigma)?;
        let sigma = Float::with_val(mu.prec(), sigma);
        let f64c = LogNormalF64::new(&mu, &sigma);
        Ok(LogNormal { mu, sigma, f64c })
    }

    /// P(X > x) = Q(z) (`upper`) or P(X ≤ x) = Q(−z), z = (ln x − μ)/σ, at the law's
    /// precision.
    fn tail_or_cdf(&self, x: &Float, upper: bool) -> Float {
        let b = self.prec();
        if *x <= 0 {
            return Float::with_val(b, u32::from(upper));
        }
        let w = b + LOGNORMAL_GUARD_BITS;
        let z = self.z(w, x, &Float::with_val(w, 0));
        Float::with_val(b, normal_q(w, &if upper { z } else { -z }))
    }

    /// (ln x − μ − shift)/σ at `bits` (±∞ at x = 0, ∞).
    fn z(&self, bits: u32, x: &Float, shift: &Float) -> Float {
        if x.is_zero() {
            return Float::with_val(bits, Special::NegInfinity);
        }
        if x.is_infinite() {
            return Float::with_val(bits, Special::Infinity);
        }
        let l = Float::with_val(bits, x.ln_ref()) - &self.mu - shift;
        l / &self.sigma
    }
}

/// Brackets and solves an increasing g(z) = 0, doubling the bracket outwards from [−1, 1].
fn solve_z<G>(what: &str, bits: u32, mut g: G) -> Result<Float, DistError>
where
    G: FnMut(&Float) -> Float,
{
    let mut lo = Float::with_val(bits, -1);
    let mut hi = Float::with_val(bits, 1);
    let mut ok = false;
    for _ in 0..BRACKET_DOUBLINGS {
        let glo = g(&lo);
        let ghi = g(&hi);
        if glo <= 0 && ghi >= 0 {
            ok = true;
            break;
        }
        if glo > 0 {
            lo *= 2u32;
        }
        if ghi < 0 {
            hi *= 2u32;
        }
    }
    if !ok {
        return Err(DistError::Num(NumError::NoBracket {
            what: what.to_string(),
            lo: message_number(&lo),
            hi: message_number(&hi),
        }));
    }
    Ok(root::solve_increasing(what, &lo, &hi, |z| Ok::<_, NumError>(g(z)))?.x)
}

impl LogNormal {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.lower(), &self.upper(), bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        // A short interval loses log2(b/(b−a)) bits in Φ(z_b) − Φ(z_a), plus the bits of
        // |ln b| in ln b − ln a and of σ (the z-interval is σ times shorter).
        let mut extra = 0i32;
        if b.is_finite() && a > 0 {
            let width = Float::with_val(bits + LOGNORMAL_GUARD_BITS, &b - &a);
            extra = (b.get_exp().unwrap_or(0) - width.get_exp().unwrap_or(0)).max(0);
            let lb = Float::with_val(bits, b.ln_ref());
            extra += lb.get_exp().unwrap_or(0).max(0) + self.sigma.get_exp().unwrap_or(0).max(0);
        }
        let w = bits + LOGNORMAL_GUARD_BITS + extra as u32;
        let jf = Float::with_val(w, j);
        let s2 = Float::with_val(w, self.sigma.square_ref());
        let shift = Float::with_val(w, &jf * &s2);
        let za = self.z(w, &a, &shift);
        let zb = self.z(w, &b, &shift);
        let mass = normal_mass(w, &za, &zb);
        // exp(jμ + j²σ²/2)
        let e = Float::with_val(w, &jf * &self.mu) + Float::with_val(w, &jf * &jf) * &s2 / 2u32;
        Ok(Float::with_val(bits, mass * e.exp()))
    }
}

impl JobSize for LogNormal {
    family_items!("lognormal", mu);
    fn tail(&self, x: &Float) -> Float {
        self.tail_or_cdf(x, true)
    }
    fn cdf(&self, x: &Float) -> Float {
        self.tail_or_cdf(x, false)
    }
    fn density(&self, x: &Float) -> Option<Float> {
        // φ((ln x − μ)/σ) / (σ x)
        let b = self.prec();
        if *x <= 0 || x.is_infinite() {
            return Some(Float::with_val(b, 0));
        }
        let w = b + LOGNORMAL_GUARD_BITS;
        let z = self.z(w, x, &Float::with_val(w, 0));
        let v = normal_pdf(w, &z) / &self.sigma / x;
        Some(Float::with_val(b, v))
    }
    any_order_moments!();
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        // ln M = jμ + j²σ²/2 + ln(Φ(z_b) − Φ(z_a)) with z = (ln x − μ − jσ²)/σ, the
        // difference taken between upper tails (both z ≥ 0), lower tails (both ≤ 0) or as
        // 1 − Q(−z_a) − Q(z_b), as in the MPFR form. A short interval (the log-integrand
        // jτ − (τ−μ)²/(2σ²), τ = ln x, varies by at most GL6_MAX_VARIATION over it) is
        // integrated by Gauss–Legendre instead: the tails would cancel. Outside it the tail
        // ratio is at most e^−1/2 or so, and 1 − Q − Q at least Φ(1/2) − Φ(−1/2).
        let f = self.f64c.as_ref()?;
        f64_args(j, ln_a, ln_b)?;
        if ln_a >= ln_b {
            return Some(f64::NEG_INFINITY);
        }
        let i = (j + 1) as usize;
        let (m, s) = (f.shift[i], f.sigma);
        let za = (ln_a - m) / s;
        let zb = (ln_b - m) / s;
        let l = ln_b - ln_a;
        if l.is_finite() && l * za.abs().max(zb.abs()) / s <= GL6_MAX_VARIATION {
            let tm = 0.5 * (ln_a + ln_b);
            let dm = tm - f.mu;
            let jf = f64::from(j);
            let inv2s2 = 0.5 / (s * s);
            let psi_m = jf * tm - dm * dm * inv2s2 - f.ln_norm;
            return Some(psi_m + ln_gl6(0.5 * l, |h| jf * h - h * (2.0 * dm + h) * inv2s2));
        }
        let ln_mass = if za >= 0.0 {
            let qa = ln_normal_q(za);
            qa + ln_one_minus_exp(ln_normal_q(zb) - qa)
        } else if zb <= 0.0 {
            let qb = ln_normal_q(-zb);
            qb + ln_one_minus_exp(ln_normal_q(-za) - qb)
        } else {
            (-(normal_q_f64(-za) + normal_q_f64(zb))).ln_1p()
        };
        Some(f.pref[i] + ln_mass)
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        check_level("lognormal", u)?;
        // z = Φ^-1(u) in z-space (robust for any μ), then x = e^(μ + σz). Above the median
        // solve (1 − u) − Q(z) = 0 so that u near 1 keeps its digits.
        let w = b + LOGNORMAL_GUARD_BITS;
        let z = if *u <= 0.5 {
            let uu = Float::with_val(w, u);
            solve_z("lognormal quantile", w, |z| {
                normal_q(w, &Float::with_val(w, -z)) - &uu
            })?
        } else {
            let v = Float::with_val(w, 1u32) - Float::with_val(w + u.prec(), u);
            solve_z("lognormal quantile", w, |z| {
                Float::with_val(w, &v) - normal_q(w, z)
            })?
        };
        let x = (Float::with_val(w, &z * &self.sigma) + &self.mu).exp();
        Ok(Float::with_val(b, x))
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // With ln x = μ + σz, x F̄(x) = e^(μ+σz) Q(z); d/dz ln(…) = σ − φ(z)/Q(z), and the
        // inverse Mills ratio φ/Q increases from 0 to ∞, so the maximiser is its root.
        let b = self.prec();
        let w = b + LOGNORMAL_GUARD_BITS;
        let sigma = Float::with_val(w, &self.sigma);
        let z = solve_z("lognormal sup x F(x)", w, |z| {
            normal_pdf(w, z) / normal_q(w, z) - &sigma
        })?;
        let x = (Float::with_val(w, &z * &sigma) + &self.mu).exp();
        let v = Float::with_val(w, &x * &normal_q(w, &z));
        Ok((Float::with_val(b, x), Float::with_val(b, v)))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let mu = to_f64_param("lognormal", "mu", &self.mu)?;
        let sigma = to_f64_param("lognormal", "sigma", &self.sigma)?;
        if mu.abs() + SIM_SIGMAS * sigma >= f64::MAX.ln() {
            return Err(DistError::NotSimulable {
                family: "lognormal",
                why: format!(
                    "|mu| + {SIM_SIGMAS} sigma = {} exceeds ln(f64::MAX)",
                    mu.abs() + SIM_SIGMAS * sigma
                ),
            });
        }
        Ok(Box::new(LogNormalSampler { mu, sigma }))
    }
}

struct LogNormalSampler {
    mu: f64,
    sigma: f64,
}

impl Sampler for LogNormalSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        // e^(μ + σZ), Z by the normal ziggurat.
        (self.mu + self.sigma * normal1(rng)).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::tol::close_at_bits as close;

    #[test]
    fn quantile_inverts_cdf() {
        for bits in [64u32, 300] {
            let d = LogNormal::new(Float::with_val(bits, 1.5), Float::with_val(bits, 2)).unwrap();
            for u in [1e-10f64, 0.2, 0.5, 0.9, 1.0 - 1e-12] {
                let uf = Float::with_val(bits, u);
                let x = d.quantile(&uf).unwrap();
                let back = if u <= 0.5 {
                    d.cdf(&x)
                } else {
                    Float::with_val(bits, 1u32) - d.tail(&x)
                };
                assert!(close(bits, &back, &uf), "u {u}: {}", message_number(&back));
            }
        }
    }

    #[test]
    fn sup_is_a_maximum() {
        // The maximiser beats its neighbours (x F̄(x) is smooth there).
        for sigma in [0.5f64, 0.8, 2.0, 10.0] {
            let b = 128;
            let d = LogNormal::new(Float::with_val(b, 0), Float::with_val(b, sigma)).unwrap();
            let (x, v) = d.sup_x_tail().unwrap();
            for f in [0.99f64, 1.01] {
                let y = Float::with_val(b, &x * f);
                let vy = Float::with_val(b, &y * &d.tail(&y));
                assert!(vy < v, "sigma {sigma}");
            }
            assert!(close(b, &v, &Float::with_val(b, &x * &d.tail(&x))));
        }
    }

    #[test]
    fn bad_parameters() {
        let b = 64;
        assert!(LogNormal::new(Float::with_val(b, 0), Float::with_val(b, 0)).is_err());
        assert!(LogNormal::new(Float::with_val(b, Special::Nan), Float::with_val(b, 1)).is_err());
        let far = LogNormal::new(Float::with_val(b, 1000), Float::with_val(b, 1)).unwrap();
        assert!(matches!(far.sampler(), Err(DistError::NotSimulable { .. })));
    }
}

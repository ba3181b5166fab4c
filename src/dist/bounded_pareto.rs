//! Bounded Pareto BP(k, p, α): density α k^α x^(−α−1) / (1 − (k/p)^α) on [k, p].

use super::point::{ln_ratio, PowerLaw, LOG_GUARD_BITS};
use super::ziggurat::exp1;
use super::{
    check_higher_order, check_level, check_order, clip, f64_args, fast_pow, rel_power_integral,
    to_f64_param, DistError, JobSize, Point, Sampler,
};
use crate::num::dd::{clip_ln, f64_pair};
use crate::num::logf64::{f64_normal, ln_power_integral_f64_lt};
use crate::num::message_number;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;
use std::sync::OnceLock;

/// Bounded Pareto distribution.
#[derive(Debug, Clone)]
pub struct BoundedPareto {
    k: Float,
    p: Float,
    alpha: Float,
    /// 1 − (k/p)^α, computed as −expm1(α ln(k/p)) (no cancellation for small α).
    norm: Float,
    /// Constants of [`JobSize::ln_partial_moment_f64`] (`None`: α does not fit in f64),
    /// made when first needed (only the optimiser's search reads them).
    f64c: OnceLock<Option<PowerLawF64>>,
    /// Per-point evaluation ([`JobSize::point`]).
    pl: PowerLaw,
}

/// The f64 constants of a power-law density α k^α x^(−α−1) / norm on [k, p] (p = ∞ for
/// the Pareto, norm = 1) for [`JobSize::ln_partial_moment_f64`], computed once from the
/// MPFR parameters. Only logarithms of k and p enter, so k = 10^-400 or p = 10^100000 are
/// fine; α must be a normal f64.
#[derive(Debug, Clone)]
pub(crate) struct PowerLawF64 {
    /// ln k (a double-double: the support is clipped where MPFR clips it).
    ln_k: (f64, f64),
    /// ln p ((+∞, 0) for the Pareto).
    ln_p: (f64, f64),
    /// t_j = j − α for j = −1, 0, 1, 2 (rounded once from MPFR, so t_j = 0 only if α = j).
    t: [f64; 4],
    /// ln |t_j|.
    ln_abs_t: [f64; 4],
    /// c_j = ln(α/norm) + j ln k, so that ln(α k^α b^t_j / norm) = c_j + t_j ln(b/k).
    c: [f64; 4],
}

impl PowerLawF64 {
    /// The constants, or `None` if one of them does not fit in f64.
    pub(crate) fn new(k: &Float, p: Option<&Float>, alpha: &Float, norm: &Float) -> Option<Self> {
        let w = k.prec().max(alpha.prec()) + 16;
        f64_normal(alpha)?;
        let ln_k = Float::with_val(w, k.ln_ref());
        let ln_p = match p {
            Some(p) => f64_pair(&Float::with_val(w, p.ln_ref()))?,
            None => (f64::INFINITY, 0.0),
        };
        let ln_c = Float::with_val(w, alpha / norm).ln();
        let mut t = [0.0; 4];
        let mut c = [0.0; 4];
        for (i, j) in (-1i32..=2).enumerate() {
            t[i] = f64_normal(&Float::with_val(w, j - alpha))?;
            c[i] = f64_normal(&Float::with_val(w, &ln_c + Float::with_val(w, &ln_k * j)))?;
        }
        Some(PowerLawF64 {
            ln_k: f64_pair(&ln_k)?,
            ln_p,
            t,
            ln_abs_t: t.map(|x| x.abs().ln()),
            c,
        })
    }

    /// ln M_j(a, b) from ln a, ln b: the interval clipped to [k, p] in log space, then
    /// c_j + (the power integral of x^(t_j − 1) in the form of [`ln_power_integral_f64`]),
    /// with the prefactor written relative to k: ln M = c_j + t_j ln(b/k) + ln((1 −
    /// (a/b)^t_j)/t_j) for t_j > 0 and the mirror form for t_j < 0. The logs relative to k
    /// keep α ln k and t_j ln b from cancelling when ln k is large, and ln(b/a) is taken
    /// from the clipped ends directly, so a short interval loses no digits.
    pub(crate) fn ln_moment(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        f64_args(j, ln_a, ln_b)?;
        let Some(iv) = clip_ln(ln_a, ln_b, self.ln_k, self.ln_p) else {
            return Some(f64::NEG_INFINITY);
        };
        let i = (j + 1) as usize;
        Some(ln_power_integral_f64_lt(
            self.t[i],
            self.ln_abs_t[i],
            self.c[i],
            iv.a_rel(self.ln_k),
            iv.b_rel(self.ln_k),
            iv.width,
        ))
    }
}

/// M_j(a, b) = scale · a^j (k/a)^α · expm1(t_j ln(b/a))/t_j (the form of
/// [`rel_power_integral`]) for several orders over the interval (a, b] clipped to the
/// support (`None`: nothing of it in the support, every moment 0), sharing ln(b/a) and
/// (k/a)^α across them.
/// Where |t_j ln(b/a)| ≥ [`EXPM1_SHARE_FROM`], e^(t_j ln(b/a)) is taken from one such
/// order's exponential times (b/a)^(j − j₀), and 1 is subtracted directly: the result is
/// then at least 0.39 away from 0, so the subtraction amplifies the few ulps of the product
/// by at most 2.6. For the usual orders [0, 1, 2] this is 4 transcendental calls instead of
/// 12, and the values agree with the one-order code to a few ulps.
pub(crate) fn power_law_moments(
    bits: u32,
    js: &[i32],
    clipped: Option<(Float, Float)>,
    k: &Float,
    alpha: &Float,
    scale: impl Fn(Float) -> Float,
) -> Vec<Float> {
    let Some((a, b)) = &clipped else {
        return js.iter().map(|_| Float::with_val(bits, 0)).collect();
    };
    let ka = fast_pow(&Float::with_val(bits, k / a), alpha);
    let scaled = |j: i32, r: Float| scale(r * Float::with_val(bits, a.pow(j)) * &ka);
    let ts: Vec<Float> = js
        .iter()
        .map(|&j| Float::with_val(bits, j) - alpha)
        .collect();
    if b.is_infinite() {
        // ∫_a^∞ x^(t−1) dx / a^t = −1/t (t < 0 here: the caller rejected infinite moments).
        return js
            .iter()
            .zip(&ts)
            .map(|(&j, t)| scaled(j, -(Float::with_val(bits, 1u32) / t)))
            .collect();
    }
    let ratio = Float::with_val(bits, b / a);
    let l = Float::with_val(bits, ratio.ln_ref());
    let tls: Vec<Float> = ts.iter().map(|t| Float::with_val(bits, t * &l)).collect();
    let shares =
        |i: usize| !ts[i].is_zero() && Float::with_val(bits, tls[i].abs_ref()) >= EXPM1_SHARE_FROM;
    // The shared exponential e^(t_j₀ l) is that of the sharing order with the smallest |t|:
    // the rounding of l enters it amplified by |t_j₀| l, no more than in any order's own
    // exponential.
    let shared: Option<(i32, Float)> = (0..js.len())
        .filter(|&i| shares(i))
        .min_by(|&x, &y| {
            ts[x]
                .as_abs()
                .partial_cmp(&*ts[y].as_abs())
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|i| (js[i], Float::with_val(bits, tls[i].exp_ref())));
    js.iter()
        .enumerate()
        .map(|(i, &j)| {
            let t = &ts[i];
            let r = match &shared {
                _ if t.is_zero() => l.clone(),
                Some((j0, e0)) if shares(i) => {
                    let d = j - j0;
                    let rp = Float::with_val(bits, (&ratio).pow(d.abs()));
                    let e = if d >= 0 {
                        Float::with_val(bits, e0 * &rp)
                    } else {
                        Float::with_val(bits, e0 / &rp)
                    };
                    (e - 1u32) / t
                }
                _ => Float::with_val(bits, tls[i].exp_m1_ref()) / t,
            };
            scaled(j, r)
        })
        .collect()
}

/// Below this |t ln(b/a)| a batched power-law moment uses expm1 (see
/// [`power_law_moments`]).
const EXPM1_SHARE_FROM: f64 = 0.5;

impl BoundedPareto {
    /// BP(k, p, α) with 0 < k < p and α > 0; the precision is that of `k`.
    ///
    /// With α = 1 the mean is k ln(p/k) / (1 − k/p) exactly (the j = α case is a logarithm):
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{BoundedPareto, JobSize};
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
                why: format!("k must be > 0, got {}", message_number(&k)),
            });
        }
        if !(p > k) {
            return Err(DistError::BadParameter {
                family: f,
                why: format!(
                    "p must be > k, got p = {} ≤ k = {}",
                    message_number(&p),
                    message_number(&k)
                ),
            });
        }
        if !(alpha > 0) {
            return Err(DistError::BadParameter {
                family: f,
                why: format!("alpha must be > 0, got {}", message_number(&alpha)),
            });
        }
        let bits = k.prec();
        let p = Float::with_val(bits, p);
        let alpha = Float::with_val(bits, alpha);
        // ln(k/p) with LOG_GUARD_BITS guard bits, to full relative precision even for p close
        // to k, so that the norm keeps every digit (ln(p/k) is kept for the points).
        let g = bits + LOG_GUARD_BITS;
        let l = ln_ratio(g, &k, &p);
        let norm = Float::with_val(bits, -Float::with_val(g, &alpha * &l).exp_m1());
        let pl = PowerLaw::with_ln_pk(&k, &p, &alpha, &norm, -l);
        Ok(BoundedPareto {
            k,
            p,
            alpha,
            norm,
            f64c: OnceLock::new(),
            pl,
        })
    }

    /// Shape α.
    pub fn alpha(&self) -> &Float {
        &self.alpha
    }
}

impl BoundedPareto {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
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
}

impl JobSize for BoundedPareto {
    family_items!("bp", k, Float: k, p);
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
    any_order_moments!();
    fn partial_moments(&self, js: &[i32], a: &Float, b: &Float) -> Result<Vec<Float>, DistError> {
        for &j in js {
            check_order(j)?;
        }
        let bits = self.prec();
        Ok(power_law_moments(
            bits,
            js,
            clip(a, b, &self.k, &self.p, bits),
            &self.k,
            &self.alpha,
            |m| m * &self.alpha / &self.norm,
        ))
    }
    power_law_points!();
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        self.f64c
            .get_or_init(|| PowerLawF64::new(&self.k, Some(&self.p), &self.alpha, &self.norm))
            .as_ref()?
            .ln_moment(j, ln_a, ln_b)
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        check_level("bp", u)?;
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

//! Exponential with rate μ: F̄(x) = e^(−μx).

use super::{
    check_higher_order, check_level, check_order, clip, f64_args, to_f64_param, DistError, JobSize,
    Sampler,
};
use crate::num::dd::{f64_pair, LnPoint};
use crate::num::gauss::{ln_gl6, GL6_MAX_LOG_WIDTH, GL6_MAX_VARIATION};
use crate::num::logf64::{interval_width, ln_one_minus_exp_neg};
use crate::num::message_number;
use crate::num::tol::{F64_SERIES_EPS, LENTZ_EPS};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::Float;

/// Exponential distribution on [0, ∞).
#[derive(Debug, Clone)]
pub struct Exponential {
    rate: Float,
    /// ln μ as a double-double, for [`JobSize::ln_partial_moment_f64`] (`None` if μ = ∞).
    ln_rate: Option<(f64, f64)>,
}

impl Exponential {
    /// Exp(μ) with μ > 0; the precision is that of `rate`.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{Exponential, JobSize};
    /// let d = Exponential::new(Float::with_val(100, 2)).unwrap();
    /// assert_eq!(d.mean().unwrap(), 0.5);
    /// assert_eq!(d.moment(2).unwrap(), 0.5); // 2/μ²
    /// ```
    pub fn new(rate: Float) -> Result<Self, DistError> {
        if rate.is_nan() || rate <= 0 {
            return Err(DistError::BadParameter {
                family: "exp",
                why: format!("rate must be > 0, got {}", message_number(&rate)),
            });
        }
        let ln_rate = f64_pair(&Float::with_val(rate.prec() + 16, rate.ln_ref()));
        Ok(Exponential { rate, ln_rate })
    }

    /// Rate μ.
    pub fn rate(&self) -> &Float {
        &self.rate
    }
}

/// Guard bits of [`Exponential::interval_moment`].
const EXP_GUARD_BITS: u32 = 8;

/// Below y = 2^(−bits/SERIES_SPLIT) the series of [`lower_gamma_regularised`] converges in
/// at most about SERIES_SPLIT terms and is kept; above, the closed form with more bits is
/// cheaper.
const SERIES_SPLIT: u64 = 16;
/// Guard bits of the closed form of [`lower_gamma_regularised`] beyond its cancellation.
const EXPM1_GUARD_BITS: u32 = 16;

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
    if y.is_zero() {
        return Float::with_val(bits, 0);
    }
    // y ≥ 2^(ey − 1): log2(1/y) ≤ 1 − ey bits.
    let inv_bits = (1 - i64::from(y.get_exp().unwrap_or(1))).max(0) as u64;
    if *y < 1 && inv_bits * SERIES_SPLIT < u64::from(bits) {
        // The series below needs about bits / log2(1/y) terms — thousands at 10 000 digits
        // (`threshold --digits 10000` used to spend most of its time here). Instead
        // e^(−y) (expm1(y) − Σ_{1≤m<n} y^m/m!), whose subtraction loses at most
        // (n − 1)·log2(1/y) + log2(n!) bits, computed with that many more.
        let w = bits + n * inv_bits as u32 + EXPM1_GUARD_BITS;
        let mut t = Float::with_val(w, y.exp_m1_ref());
        let mut term = Float::with_val(w, 1);
        for m in 1..n {
            term = term * y / m;
            t -= &term;
        }
        return Float::with_val(bits, t * Float::with_val(w, -y).exp());
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
    /// M_j(a, b) for j = 1, 2, 3, 4 and 0 ≤ a < b ≤ ∞ as a sum of positive terms (no cancellation
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
        // (coefficient C(j,i)·i! = j!/(j−i)!, power of a, power of 1/μ) for i = 0..=j: for
        // j = 1 (1,1,0), (1,0,1); for j = 2 (1,2,0), (2,1,1), (2,0,2).
        let j = j as u32;
        let terms: Vec<(u32, u32, u32)> = (0..=j)
            .map(|i| (((j - i + 1)..=j).product::<u32>(), j - i, i))
            .collect();
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

/// Term limit of the f64 series and continued fractions (a safeguard: they converge in at
/// most about 90 terms on the ranges where they are used).
const F64_MAX_TERMS: usize = 500;

/// g(1) = e·E1(1) = 0.59634736232319407434…, the Euler–Gompertz constant (E1(1) =
/// 0.21938393439552027368). The continued fraction needs 86 terms at x = 1, so the split
/// of an interval across u = 1 uses this constant.
const E1_SCALED_AT_1: f64 = 0.596_347_362_323_194_1;

/// g(x) = e^x E1(x) for x ≥ 1 (0 at x = ∞), by the continued fraction
/// E1(x) = e^−x/(x + 1 − 1²/(x + 3 − 2²/(x + 5 − …))) (A&S 5.1.22 in the even form of
/// Numerical Recipes, 3rd ed., §6.3), evaluated by the modified Lentz method.
fn e1_scaled(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    let tiny = f64::MIN_POSITIVE;
    let mut b = x + 1.0;
    let mut c = 1.0 / tiny;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..F64_MAX_TERMS {
        let a = -((i * i) as f64);
        b += 2.0;
        d = 1.0 / (a * d + b);
        c = b + a / c;
        let del = c * d;
        h *= del;
        if (del - 1.0).abs() <= LENTZ_EPS {
            return h;
        }
    }
    f64::NAN
}

/// Ein(ub) − Ein(ua) = Σ_{k≥1} (−1)^(k+1) (ub^k − ua^k)/(k·k!) for 0 ≤ ua < ub ≤ 1, where
/// Ein(x) = E1(x) + γ + ln x is entire. The alternating sum loses at most a factor e of
/// precision (Σ|terms| = ∫ (e^u − 1)/u du ≤ e · ∫ (1 − e^−u)/u du for u ≤ 1).
fn ein_diff(ua: f64, ub: f64) -> f64 {
    let (mut pa, mut pb, mut fact, mut sum) = (1.0, 1.0, 1.0, 0.0f64);
    for k in 1..F64_MAX_TERMS {
        let kf = k as f64;
        pa *= ua;
        pb *= ub;
        fact *= kf;
        let term = (pb - pa) / (kf * fact);
        sum += if k % 2 == 1 { term } else { -term };
        if term <= F64_SERIES_EPS * sum.abs() {
            break;
        }
    }
    sum
}

/// T_3(w) = Σ_{m≥0} w^m/(m+3)! for 0 ≤ w < 1 (P(n, w) = w^n e^−w T_n(w) with T_n = 1/n! +
/// w T_{n+1}: the regularised incomplete gamma without the cancellation of 1 − e^−w(…)).
fn t3_series(w: f64) -> f64 {
    let mut term = 1.0 / 6.0;
    let mut sum = term;
    for m in 1..F64_MAX_TERMS {
        term *= w / (m + 3) as f64;
        sum += term;
        if term <= F64_SERIES_EPS * sum {
            break;
        }
    }
    sum
}

impl Exponential {
    /// ln ∫_ua^ub u^j e^−u du for j = 1, 2 (ua = μa, w = ub − ua): the positive sum
    /// e^−ua Σ_{i≤j} C(j,i) i! ua^(j−i) P(i+1, w) of [`Exponential::interval_moment`], with
    /// P(n, w) = 1 − e^−w Σ_{m<n} w^m/m! for w ≥ 1 (at most a factor 1/P(3,1) = 12.5 lost)
    /// and w^n e^−w T_n(w) below; the powers of ua and w are scaled by their maximum.
    fn ln_gamma_int(j: i32, pa: &LnPoint, w: f64, ln_w: f64) -> f64 {
        let c: &[f64] = if j == 1 {
            &[1.0, 1.0]
        } else {
            &[1.0, 2.0, 2.0]
        };
        let ju = j as usize;
        let (ua, lua) = (pa.x, pa.ln());
        if w >= 1.0 {
            let e = (-w).exp();
            let p1 = -(-w).exp_m1();
            let (p2, p3) = if e == 0.0 {
                (1.0, 1.0)
            } else {
                let p2 = p1 - w * e;
                (p2, p2 - 0.5 * w * w * e)
            };
            let p = [p1, p2, p3];
            let mut s = 0.0;
            if ua >= 1.0 {
                // ua^j Σ c_i ua^−i P_{i+1}
                let r = 1.0 / ua;
                let mut ri = 1.0;
                for i in 0..=ju {
                    s += c[i] * ri * p[i];
                    ri *= r;
                }
                -ua + f64::from(j) * lua + s.ln()
            } else {
                for i in 0..=ju {
                    s += c[i] * ua.powi((ju - i) as i32) * p[i];
                }
                -ua + s.ln()
            }
        } else {
            let t3 = t3_series(w);
            let t2 = 0.5 + w * t3;
            let t1 = 1.0 + w * t2;
            let q = [t1, t2, t3];
            // w e^−w Σ c_i ua^(j−i) w^i T_{i+1}, scaled by m = max(ua, w)
            let lm = lua.max(ln_w);
            let ra = (lua - lm).exp();
            let rw = (ln_w - lm).exp();
            let mut s = 0.0;
            for i in 0..=ju {
                s += c[i] * ra.powi((ju - i) as i32) * rw.powi(i as i32) * q[i];
            }
            -ua - w + ln_w + f64::from(j) * lm + s.ln()
        }
    }

    /// ln(E1(ua) − E1(ub)) (ua = 0 gives +∞). A short interval (at most
    /// [`GL6_MAX_LOG_WIDTH`] wide in ln u, where the integrand e^−u varies by at most
    /// [`GL6_MAX_VARIATION`]) goes to Gauss–Legendre; otherwise,
    /// below u = 1 it is ln(ub/ua) − (Ein(ub) − Ein(ua)) (the Ein part is at most 0.63 of
    /// ln(ub/ua), so at most a factor 2.7 is lost), above u = 1 it is
    /// e^−ua (g(ua) − e^−w g(ub)) with g = e^x E1 (the difference is at least a third of
    /// g(ua) when the interval is not short), and an interval across u = 1 is split there.
    fn ln_e1_diff(pa: &LnPoint, pb: &LnPoint, l: f64, w: f64) -> f64 {
        if pa.hi == f64::NEG_INFINITY {
            return f64::INFINITY;
        }
        let (ua, ub) = (pa.x, pb.x);
        if l <= GL6_MAX_LOG_WIDTH && l * ub <= GL6_MAX_VARIATION {
            // ∫ e^(−e^τ) dτ over τ = ln u ∈ [ln ua, ln ub]
            let um = pa.log_midpoint(pb).x;
            return -um + ln_gl6(0.5 * l, |h| -um * h.exp_m1());
        }
        if ub <= 1.0 {
            return (l - ein_diff(ua, ub)).ln();
        }
        if ua >= 1.0 {
            return -ua + (e1_scaled(ua) - (-w).exp() * e1_scaled(ub)).ln();
        }
        let below = -pa.ln() - ein_diff(ua, 1.0);
        let w1 = pb.ln().exp_m1();
        let above = (-1f64).exp() * (E1_SCALED_AT_1 - (-w1).exp() * e1_scaled(ub));
        (below + above).ln()
    }

    /// ln M_j(a, b) in f64 (see [`JobSize::ln_partial_moment_f64`]): with u = μx,
    /// M_j = μ^−j ∫_{μa}^{μb} u^j e^−u du, ln(μa) = ln a + ln μ kept as a double-double so
    /// that μa = 10^5 still has a relative error of about one ulp (ln M ≈ −μa needs it).
    /// Every interval, however short, keeps its digits: the width μ(b − a) is computed from
    /// ln(b/a), the incomplete gammas are sums of positive terms.
    pub(crate) fn ln_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        let (mh, ml) = self.ln_rate?;
        f64_args(j, ln_a, ln_b)?;
        if ln_a >= ln_b {
            return Some(f64::NEG_INFINITY);
        }
        let pa = LnPoint::shifted(ln_a, mh, ml);
        let pb = LnPoint::shifted(ln_b, mh, ml);
        if pa.x == f64::INFINITY {
            // ln M ≈ −μa is below −f64::MAX.
            return Some(f64::NEG_INFINITY);
        }
        let l = pa.ln_ratio(&pb);
        let (w, ln_w) = interval_width(&pa, &pb, l);
        let lg = match j {
            -1 => Self::ln_e1_diff(&pa, &pb, l, w),
            0 => -pa.x + ln_one_minus_exp_neg(w, ln_w),
            _ => Self::ln_gamma_int(j, &pa, w, ln_w),
        };
        let v = lg - f64::from(j) * mh - f64::from(j) * ml;
        // A safeguard: the series and fractions converge on every range they are used on.
        (!v.is_nan()).then_some(v)
    }
}

impl JobSize for Exponential {
    family_items!("exp", rate);
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
                        b: message_number(&b),
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
    fn higher_partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_higher_order(j)?;
        let bits = self.prec();
        let Some((a, b)) = clip(a, b, &self.lower(), &self.upper(), bits) else {
            return Ok(Float::with_val(bits, 0));
        };
        Ok(self.interval_moment(j, &a, &b))
    }
    fn ln_partial_moment_f64(&self, j: i32, ln_a: f64, ln_b: f64) -> Option<f64> {
        self.ln_moment_f64(j, ln_a, ln_b)
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        let b = self.prec();
        check_level("exp", u)?;
        Ok(-Float::with_val(b, -u.clone()).ln_1p() / &self.rate)
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // x e^(−μx) is maximal at x = 1/μ, with value 1/(eμ).
        let b = self.prec();
        let x = Float::with_val(b, 1u32) / &self.rate;
        let v = Float::with_val(b, &x * &self.tail(&x));
        Ok((x, v))
    }
    fn is_exponential(&self) -> bool {
        true
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

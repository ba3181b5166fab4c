//! The standard normal distribution's tail Q(z) = P(Z > z) = erfc(z/√2)/2, its density and
//! the mass between two points, in MPFR ([`normal_q`], [`normal_pdf`], [`normal_mass`]) and
//! in f64 ([`ln_normal_q`], [`normal_q_f64`]). The lognormal's tail and partial moments are
//! built on them.

use super::interval::Interval;
use super::tol::F64_SERIES_EPS;
use rug::float::Constant;
use rug::Float;

/// Above this x the f64 erfc(x) would leave the normal range (erfc(26) ≈ 5.7e-296): the
/// scaled e^(x²) erfc(x) takes over.
const ERFC_SCALED_FROM: f64 = 26.0;

/// ln Q(z), Q(z) = erfc(z/√2)/2 the upper normal tail, in f64 for every z (−∞ at z = ∞).
/// For z/√2 < 26 it is the logarithm of the `libm` erfc (musl's, < 1 ulp); beyond,
/// −z²/2 + ln(√π x e^(x²) erfc(x)) − ln(2√π x) with the asymptotic series
/// √π x e^(x²) erfc(x) = Σ_n (−1)^n (2n−1)!!/(2x²)^n (A&S 7.1.23), whose terms fall below
/// 10^-17 by n = 7 for x ≥ 26. For z < 0 it is ln(1 − Q(−z)).
///
/// ```
/// use taskassign::num::ln_normal_q;
/// assert!((ln_normal_q(0.0) - 0.5f64.ln()).abs() < 1e-16);
/// // Q(40) ≈ 3.655893540915e-350: below f64, its logarithm is not.
/// assert!((ln_normal_q(40.0) - (-804.6084420137538)).abs() < 1e-12);
/// ```
pub fn ln_normal_q(z: f64) -> f64 {
    if z == f64::INFINITY {
        return f64::NEG_INFINITY;
    }
    if z < 0.0 {
        return (-0.5 * libm::erfc(-z * std::f64::consts::FRAC_1_SQRT_2)).ln_1p();
    }
    let x = z * std::f64::consts::FRAC_1_SQRT_2;
    if x < ERFC_SCALED_FROM {
        return (0.5 * libm::erfc(x)).ln();
    }
    let r = 0.5 / (x * x);
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for n in 1..20 {
        term *= -((2 * n - 1) as f64) * r;
        sum += term;
        if term.abs() < F64_SERIES_EPS {
            break;
        }
    }
    // Q(z) = e^(−z²/2) · sum / (2√π x)
    let ln_2_sqrt_pi = (2.0 * std::f64::consts::PI.sqrt()).ln();
    -0.5 * z * z + sum.ln() - ln_2_sqrt_pi - x.ln()
}

/// Q(z) = erfc(z/√2)/2 in f64 (for the middle of the distribution, where it does not
/// underflow).
pub fn normal_q_f64(z: f64) -> f64 {
    0.5 * libm::erfc(z * std::f64::consts::FRAC_1_SQRT_2)
}

/// Upper normal tail Q(z) = erfc(z/√2)/2 at `bits` (Q(−∞) = 1, Q(∞) = 0).
///
/// ```
/// use rug::Float;
/// use taskassign::num::normal_q;
/// assert_eq!(normal_q(64, &Float::with_val(64, 0)), 0.5);
/// // Q(40) ≈ 3.66e-350, far below f64's range but exact in MPFR.
/// assert!(normal_q(64, &Float::with_val(64, 40)).to_f64() == 0.0);
/// assert!(normal_q(64, &Float::with_val(64, 40)) > 0);
/// ```
pub fn normal_q(bits: u32, z: &Float) -> Float {
    let r2 = Float::with_val(bits, 2u32).sqrt();
    let v = Float::with_val(bits, z / &r2).erfc();
    v / 2u32
}

/// Standard normal density φ(z) at `bits`.
pub fn normal_pdf(bits: u32, z: &Float) -> Float {
    let half_sq = Float::with_val(bits, z.square_ref()) / 2u32;
    let two_pi = Float::with_val(bits, Constant::Pi) * 2u32;
    (-half_sq).exp() / two_pi.sqrt()
}

/// Φ(zb) − Φ(za) for za < zb, without cancellation against 1.
pub fn normal_mass(bits: u32, za: &Float, zb: &Float) -> Float {
    if *za >= 0 {
        normal_q(bits, za) - normal_q(bits, zb)
    } else if *zb <= 0 {
        normal_q(bits, &Float::with_val(bits, -zb)) - normal_q(bits, &Float::with_val(bits, -za))
    } else {
        Float::with_val(bits, 1u32)
            - normal_q(bits, &Float::with_val(bits, -za))
            - normal_q(bits, zb)
    }
}

/// An enclosure of Q(z) = erfc(z/√2)/2 over the interval z (decreasing; MPFR's erfc is
/// correctly rounded in the direction asked, so the ends are rounded outward).
pub fn normal_q_enclosure(z: &Interval) -> Interval {
    let r2 = Interval::int(z.prec(), 2).sqrt();
    z.div(&r2).erfc().mul_2exp(-1)
}

/// An enclosure of φ(z) = e^(−z²/2)/√(2π) over the interval z.
pub fn normal_pdf_enclosure(z: &Interval) -> Interval {
    let p = z.prec();
    let two_pi = Interval::pi(p).mul_u(2);
    z.square().mul_2exp(-1).neg().exp().div(&two_pi.sqrt())
}

/// An enclosure of Φ(zb) − Φ(za) over every za, zb in the intervals (0 where za ≥ zb):
/// increasing in zb and decreasing in za, so it is evaluated at the exact ends (za.hi, zb.lo)
/// for its lower end and (za.lo, zb.hi) for its upper end, each as a difference of upper
/// tails (both z ≥ 0), of lower tails (both ≤ 0) or 1 − Q(−za) − Q(zb), so that no digit is
/// lost to Φ ≈ 1.
pub fn normal_mass_enclosure(za: &Interval, zb: &Interval) -> Interval {
    let p = za.prec().max(zb.prec());
    let at = |a: &rug::Float, b: &rug::Float| -> Interval {
        if a >= b {
            return Interval::zero_at(p);
        }
        let (a, b) = (Interval::point(a.clone()), Interval::point(b.clone()));
        let mass = if *a.lo() >= 0 {
            normal_q_enclosure(&a).sub(&normal_q_enclosure(&b))
        } else if *b.hi() <= 0 {
            normal_q_enclosure(&b.neg()).sub(&normal_q_enclosure(&a.neg()))
        } else {
            Interval::int(p, 1)
                .sub(&normal_q_enclosure(&a.neg()))
                .sub(&normal_q_enclosure(&b))
        };
        mass.clamp_below(&rug::Float::with_val(p, 0))
    };
    let lower = at(za.hi(), zb.lo());
    let upper = at(za.lo(), zb.hi());
    Interval::new(lower.lo().clone(), upper.hi().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Q and Φ(zb) − Φ(za) against MPFR's erfc at 4× the precision (an independent,
    /// correctly rounded evaluation), in the middle, far out (Q(40) ≈ 3.7e-350) and across 0.
    #[test]
    fn enclosures_contain_high_precision_values() {
        let b = 128;
        let hp = 4 * b;
        let q = |z: f64| {
            let r2 = Float::with_val(hp, 2).sqrt();
            Float::with_val(hp, Float::with_val(hp, z) / r2).erfc() / 2u32
        };
        // Q's relative width is that of z/√2 (2^−b) amplified by |d ln Q/dz| · |z| ≈ 1 + z²
        // (DLMF 7.12.1), plus a few roundings.
        for z in [-3.0f64, 0.0, 0.5, 40.0] {
            let e = normal_q_enclosure(&Interval::point(Float::with_val(b, z)));
            assert!(e.contains(&q(z)), "Q({z})");
            let tol = (2.0 + z * z) * f64::from(b - 4).exp2().recip();
            assert!(e.rel_width() < tol, "Q({z}): {}", e.rel_width());
        }
        for (a, c) in [(-1.0f64, 2.0f64), (1.0, 1.5), (-2.0, -1.9), (30.0, 31.0)] {
            let e = normal_mass_enclosure(
                &Interval::point(Float::with_val(b, a)),
                &Interval::point(Float::with_val(b, c)),
            );
            let want = Float::with_val(hp, q(a) - q(c));
            assert!(e.contains(&want), "[{a}, {c}]");
            assert!(e.rel_width() < 1e-33, "[{a}, {c}]: {}", e.rel_width());
        }
    }
}

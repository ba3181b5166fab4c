//! The standard normal distribution's tail Q(z) = P(Z > z) = erfc(z/√2)/2, its density and
//! the mass between two points, in MPFR ([`normal_q`], [`normal_pdf`], [`normal_mass`]) and
//! in f64 ([`ln_normal_q`], [`normal_q_f64`]). The lognormal's tail and partial moments are
//! built on them.

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
/// use taskassign::num::normal::ln_normal_q;
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
/// use taskassign::num::normal::normal_q;
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

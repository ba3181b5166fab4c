//! Limits of sequences by polynomial (Richardson) extrapolation in the variable that
//! governs convergence.
//!
//! A quantity q(v) is evaluated along a sequence v_1 < v_2 < … (p → ∞, h → ∞, ρ → 0).
//! With x = t(v) → 0 (for p → ∞ usually x = 1/ln p, since the papers' bounds converge like
//! powers of 1/ln p), q is modelled as a polynomial in x and its value at x = 0 is the
//! limit: Neville's scheme on the last d + 1 points (Richardson extrapolation; exact for
//! a + b x + … + c x^d). The error estimate is the larger of two spreads, both standard:
//! between the order-d and order-(d − 1) estimates on the last points, and between the
//! order-d estimates on the last d + 1 points and on the d + 1 points before the last
//! (Press et al., Numerical Recipes, §3.2 and §4.3). It is a heuristic, not a bound: it
//! reads how far the polynomial model is from settling. The verdicts therefore use the
//! estimate together with this error, never a single finite v.

use rug::Float;

/// Default polynomial degree of the extrapolation.
pub const DEFAULT_DEGREE: usize = 2;

/// The variable in which a limit is extrapolated: x = t(v) → 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// x = 1/ln v (v → ∞; the usual rate in p for BP, k = 1).
    InvLn,
    /// x = 1/v (v → ∞, e.g. h → ∞).
    Inv,
    /// x = 1/√v.
    InvSqrt,
    /// x = v (v → 0, e.g. light traffic ρ → 0).
    Identity,
}

impl Transform {
    /// Parses the schema's names.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim() {
            "1/ln" | "inv_ln" => Transform::InvLn,
            "1/x" | "inv" => Transform::Inv,
            "1/sqrt" | "inv_sqrt" => Transform::InvSqrt,
            "x" | "identity" => Transform::Identity,
            _ => return None,
        })
    }
    /// The schema's name.
    pub fn name(self) -> &'static str {
        match self {
            Transform::InvLn => "1/ln",
            Transform::Inv => "1/x",
            Transform::InvSqrt => "1/sqrt",
            Transform::Identity => "x",
        }
    }
    /// The limit's description: `p -> inf` or `load -> 0`.
    pub fn towards(self) -> &'static str {
        match self {
            Transform::Identity => "0",
            _ => "inf",
        }
    }
    /// x = t(v).
    pub fn apply(self, v: &Float) -> Float {
        let b = v.prec();
        match self {
            Transform::InvLn => Float::with_val(b, 1u32) / Float::with_val(b, v.ln_ref()),
            Transform::Inv => Float::with_val(b, 1u32) / v,
            Transform::InvSqrt => Float::with_val(b, 1u32) / Float::with_val(b, v.sqrt_ref()),
            Transform::Identity => v.clone(),
        }
    }
}

/// An extrapolated limit.
#[derive(Debug, Clone)]
pub struct Extrapolated {
    /// The estimate of the limit.
    pub estimate: Float,
    /// The error estimate (≥ 0).
    pub error: Float,
    /// The degree used (fewer points than degree + 1 lower it).
    pub degree: usize,
}

/// Value at x = 0 of the polynomial through (xs[i], ys[i]) (Neville).
fn neville(xs: &[Float], ys: &[Float]) -> Float {
    let n = ys.len();
    let mut p: Vec<Float> = ys.to_vec();
    for m in 1..n {
        for i in 0..n - m {
            let j = i + m;
            // P_{i..j}(0) = (x_i P_{i+1..j} − x_j P_{i..j−1}) / (x_i − x_j)
            let b = p[i].prec();
            let num = Float::with_val(b, &xs[i] * &p[i + 1]) - Float::with_val(b, &xs[j] * &p[i]);
            let den = Float::with_val(b, &xs[i] - &xs[j]);
            p[i] = num / den;
        }
    }
    p.swap_remove(0)
}

/// Extrapolates ys(xs) to x = 0 with a polynomial of degree ≤ `degree` on the last points
/// (xs should decrease towards 0; the last points are the closest to the limit).
///
/// ```
/// use rug::Float;
/// use taskassign::num::extrapolate;
/// let b = 128;
/// // y = 3 + 2x − x²: recovered exactly by degree 2.
/// let xs: Vec<Float> = [0.5, 0.25, 0.125, 0.0625].iter().map(|&x| Float::with_val(b, x)).collect();
/// let ys: Vec<Float> = xs.iter().map(|x| Float::with_val(b, 3 + Float::with_val(b, 2 * x) - Float::with_val(b, x * x))).collect();
/// let l = extrapolate(&xs, &ys, 2).unwrap();
/// assert!(Float::with_val(b, &l.estimate - 3u32).abs() < 1e-30);
/// ```
pub fn extrapolate(xs: &[Float], ys: &[Float], degree: usize) -> Option<Extrapolated> {
    let n = xs.len().min(ys.len());
    if n == 0 {
        return None;
    }
    let bits = ys[n - 1].prec();
    if n == 1 {
        return Some(Extrapolated {
            estimate: ys[0].clone(),
            error: Float::with_val(bits, rug::float::Special::Infinity),
            degree: 0,
        });
    }
    let d = degree.min(n - 1);
    let last = |m: usize, skip: usize| -> Float {
        // the m points ending `skip` before the last
        let end = n - skip;
        neville(&xs[end - m..end], &ys[end - m..end])
    };
    let est = last(d + 1, 0);
    let mut err = Float::with_val(bits, 0);
    // spread between orders d and d − 1 on the last points
    let lower = last(d, 0);
    err = err.max(&Float::with_val(bits, &est - &lower).abs());
    // spread between the last window and the one before it
    if n > d + 1 {
        let prev = last(d + 1, 1);
        err = err.max(&Float::with_val(bits, &est - &prev).abs());
    }
    Some(Extrapolated {
        estimate: est,
        error: err,
        degree: d,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tolerance for an exact polynomial model (arithmetic at 200 bits).
    const EXACT_TOL: f64 = 1e-40;

    #[test]
    fn exact_for_polynomials() {
        let b = 200;
        let xs: Vec<Float> = (1..=6)
            .map(|i| Float::with_val(b, 1) / Float::with_val(b, i * 10))
            .collect();
        let ys: Vec<Float> = xs
            .iter()
            .map(|x| {
                let x2 = Float::with_val(b, x * x);
                Float::with_val(b, 1.5) + Float::with_val(b, x * 4u32) - x2 * 7u32
            })
            .collect();
        let l = extrapolate(&xs, &ys, 3).unwrap();
        assert!(Float::with_val(b, &l.estimate - 1.5).abs() < EXACT_TOL);
    }

    #[test]
    fn transforms() {
        let b = 100;
        let e = Float::with_val(b, 1).exp();
        assert!(Float::with_val(b, Transform::InvLn.apply(&e) - 1u32).abs() < 1e-25);
        assert_eq!(Transform::parse("1/ln"), Some(Transform::InvLn));
        assert_eq!(Transform::parse("bogus"), None);
    }
}

//! Fixed Gauss–Legendre rules in f64 for short intervals (Abramowitz & Stegun 25.4.29–30),
//! used by the f64 forms of the partial moments where a difference of two closed-form terms
//! would lose its digits.

/// Gauss–Legendre nodes on [0, 1] (the positive half of the symmetric 6-point rule) …
const GL6_NODES: [f64; 3] = [
    0.238_619_186_083_196_9,
    0.661_209_386_466_264_5,
    0.932_469_514_203_152,
];
/// … and their weights (Abramowitz & Stegun, Table 25.4).
const GL6_WEIGHTS: [f64; 3] = [
    0.467_913_934_572_691,
    0.360_761_573_048_138_6,
    0.171_324_492_379_170_3,
];

/// Largest variation of the log-integrand over an interval for which [`ln_gl6`] is used:
/// the n-point rule's error on [−1, 1] is 2^(2n+1) (n!)^4 / ((2n+1) ((2n)!)^3) · f^(2n)(ξ)
/// (A&S 25.4.30), 1.5·10^-12·c^12·e^|c| for f = e^(c·s) and n = 6: below 10^-19 of the
/// integral for |c| ≤ 0.25, i.e. a variation ≤ 0.5 over the interval.
pub const GL6_MAX_VARIATION: f64 = 0.5;

/// Largest width of a log-interval ln b − ln a for [`ln_gl6`] when the log-integrand has a
/// term in e^τ (τ = ln x: exponential, Weibull): with h ≤ 1/2 its n-th derivative in the
/// scaled variable is at most h^n times the variation, so the bound above applies.
pub const GL6_MAX_LOG_WIDTH: f64 = 1.0;

/// ln ∫_{−h}^{h} e^(ψ(s)) ds by the 6-point Gauss–Legendre rule, for a short interval over
/// which ψ varies by at most [`GL6_MAX_VARIATION`]; `dpsi(s)` = ψ(s) − ψ(0) (computed by
/// the caller without cancellation). The caller adds ψ(0). This is how the exponential's
/// E[1/X], the lognormal and the Weibull treat an interval too short for a difference of
/// two closed-form terms to keep its digits.
#[inline]
pub fn ln_gl6(h: f64, dpsi: impl Fn(f64) -> f64) -> f64 {
    let mut sum = 0.0;
    for i in 0..3 {
        let s = h * GL6_NODES[i];
        sum += GL6_WEIGHTS[i] * (dpsi(s).exp() + dpsi(-s).exp());
    }
    h.ln() + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_points_integrate_an_exponential() {
        // Source: ∫_{−h}^{h} e^(c s) ds = 2 sinh(c h)/c (closed form), with c h = 0.5 (the
        // largest variation allowed): the rule's error bound is 1e-19 of the integral, so the
        // logarithms agree to a few ulps (tolerance 8 ulps).
        for (h, c) in [(0.5, 1.0), (1e-3, 500.0), (2.0, 0.25)] {
            let exact = (2.0 * f64::sinh(c * h) / c).ln();
            let got = ln_gl6(h, |s| c * s);
            assert!(
                (got - exact).abs() <= 8.0 * f64::EPSILON * exact.abs().max(1.0),
                "{h} {c}"
            );
        }
    }
}

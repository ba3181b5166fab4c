//! An independent f64 cross-check of the MPFR partial moments: the `quadrature` crate's
//! double-exponential rule (its own implementation, in f64) integrates x^j f(x) written
//! out here from each family's textbook density, in t = ln x. Agreement to
//! [`F64_REL_TOL`] shows the closed forms and MPFR special functions are right to f64
//! accuracy, independently of the crate's own tanh-sinh quadrature.

use rug::Float;
use taskassign::dist::{DistFactory, DistSpec};

/// Relative agreement required: well above the f64 quadrature's own error (~1e-14) and
/// the conversion of the MPFR value to f64.
const F64_REL_TOL: f64 = 1e-10;
/// Absolute target of the f64 quadrature, relative to the magnitude of the integral.
const QUAD_TARGET: f64 = 1e-14;

/// ∫_a^b x^j f(x) dx in f64, by substitution x = e^t (f64 `quadrature` crate).
fn f64_moment(density: &dyn Fn(f64) -> f64, j: i32, a: f64, b: f64, scale: f64) -> f64 {
    let g = |t: f64| {
        let x = t.exp();
        x.powi(j) * density(x) * x
    };
    quadrature::double_exponential::integrate(g, a.ln(), b.ln(), QUAD_TARGET * scale).integral
}

/// A density written from its textbook definition.
type Density = Box<dyn Fn(f64) -> f64>;
/// (spec, density, intervals (a, b]).
type Case = (&'static str, Density, Vec<(f64, f64)>);

#[test]
fn partial_moments_match_an_independent_f64_quadrature() {
    let pi = std::f64::consts::PI;
    // (spec, density written from the textbook definition, intervals)
    let cases: Vec<Case> = vec![
        // BP(k,p,α): α k^α x^(−α−1) / (1 − (k/p)^α)
        (
            "bp:k=1,p=1e6,alpha=1.5",
            Box::new(|x: f64| 1.5 * x.powf(-2.5) / (1.0 - 1e6f64.powf(-1.5))),
            vec![(1.0, 10.0), (10.0, 1e4), (1e3, 1e6)],
        ),
        (
            "bp:k=2,p=1e4,alpha=1",
            Box::new(|x: f64| 2.0 * x.powi(-2) / (1.0 - 2.0 / 1e4)),
            vec![(2.0, 3.0), (3.0, 1e4)],
        ),
        // Weibull(k, λ): (k/λ)(x/λ)^(k−1) e^(−(x/λ)^k)
        (
            "weibull:shape=0.5,scale=2",
            Box::new(|x: f64| 0.25 * (x / 2.0).powf(-0.5) * (-(x / 2.0).sqrt()).exp()),
            vec![(0.01, 1.0), (1.0, 50.0)],
        ),
        (
            "weibull:shape=2,scale=1",
            Box::new(|x: f64| 2.0 * x * (-x * x).exp()),
            vec![(0.1, 0.9), (0.9, 3.0)],
        ),
        // Lognormal(μ, σ): e^(−(ln x − μ)²/(2σ²)) / (x σ √(2π))
        (
            "lognormal:mu=0.5,sigma=1.5",
            Box::new(move |x: f64| {
                (-(x.ln() - 0.5).powi(2) / (2.0 * 2.25)).exp() / (x * 1.5 * (2.0 * pi).sqrt())
            }),
            vec![(0.1, 1.0), (1.0, 30.0)],
        ),
        // Exponential(μ) and the hyperexponential mixture.
        (
            "exp:rate=0.5",
            Box::new(|x: f64| 0.5 * (-0.5 * x).exp()),
            vec![(0.2, 2.0), (2.0, 40.0)],
        ),
        (
            "hyperexp:p=0.25,rate1=0.1,rate2=4",
            Box::new(|x: f64| 0.25 * 0.1 * (-0.1 * x).exp() + 0.75 * 4.0 * (-4.0 * x).exp()),
            vec![(0.05, 1.0), (1.0, 100.0)],
        ),
    ];
    for (spec, density, intervals) in &cases {
        let d = DistSpec::parse(spec).unwrap().build(128).unwrap();
        for &(a, b) in intervals {
            for j in [-1, 0, 1, 2] {
                let got = d
                    .partial_moment(j, &Float::with_val(128, a), &Float::with_val(128, b))
                    .unwrap()
                    .to_f64();
                let want = f64_moment(density.as_ref(), j, a, b, got.abs().max(f64::MIN_POSITIVE));
                let rel = ((got - want) / want).abs();
                assert!(
                    rel < F64_REL_TOL,
                    "{spec} j={j} ({a},{b}]: MPFR {got:e} vs f64 quadrature {want:e} (rel {rel:e})"
                );
            }
        }
    }
}

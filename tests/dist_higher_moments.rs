//! The higher partial moments M_j(a, b) = E[X^j; a < X ≤ b], j ∈ {3, 4}
//! (`JobSize::higher_partial_moment`, read by the simulators' fourth-moment heavy-tail
//! rule) of every built-in family and of a user density, against closed forms computed
//! here in f64 (each test names its source), and the rule's share against the same forms.
//!
//! Tolerance: a relative 1e-11 (the MPFR values are exact to far more; the f64 closed
//! forms round a few dozen times, and a difference of two incomplete gammas over a short
//! interval loses the digits of its cancellation, at most 4 here).

mod common;
use common::{build, empirical_file, EMPIRICAL_SIZES};

use rug::float::Special;
use rug::Float;
use std::sync::Arc;
use taskassign::dist::DistSpec;
use taskassign::dist::{CustomFactory, DensityFn};
use taskassign::dist::{DistError, DistFactory, JobSize};
use taskassign::policy::LoadSpec;
use taskassign::sim::dispatch::{jobs_to_see_fourth_moment, unseen_fourth_moment_share};
use taskassign::sim::dispatch::{prepare, DispatchSimRequest, DEFAULT_RUN};
use taskassign::sim::SimPolicy;

const BITS: u32 = 128;
const REL_TOL: f64 = 1e-11;

fn f(x: f64) -> Float {
    if x.is_infinite() {
        Float::with_val(BITS, Special::Infinity)
    } else {
        Float::with_val(BITS, x)
    }
}

fn m(d: &dyn JobSize, j: i32, a: f64, b: f64) -> f64 {
    d.higher_partial_moment(j, &f(a), &f(b))
        .unwrap_or_else(|e| panic!("{} M_{j}({a}, {b}): {e}", d.family()))
        .to_f64()
}

fn close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= REL_TOL * want.abs(),
        "{what}: {got:e} vs closed form {want:e} (rel {:e})",
        ((got - want) / want).abs()
    );
}

/// Γ(n + 1, y) = n! e^(−y) Σ_{k=0}^{n} y^k / k! for integer n ≥ 0 (DLMF 8.4.8); 0 at y = ∞.
fn upper_gamma_int(n: u32, y: f64) -> f64 {
    if y.is_infinite() {
        return 0.0;
    }
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=n {
        term *= y / f64::from(k);
        sum += term;
    }
    let fact: f64 = (1..=n).map(f64::from).product();
    fact * (-y).exp() * sum
}

#[test]
fn exponential_by_the_incomplete_gamma() {
    // Exp(μ): ∫_a^b x^j μ e^(−μx) dx = μ^(−j) [Γ(j+1, μa) − Γ(j+1, μb)] (DLMF 8.4.8 for the
    // integer incomplete gamma).
    let mu = 2.0;
    let d = build("exp:rate=2", BITS);
    for j in [3, 4] {
        for (a, b) in [
            (0.0, f64::INFINITY),
            (0.5, 3.0),
            (4.0, f64::INFINITY),
            (7.0, 7.01),
        ] {
            let want = (upper_gamma_int(j as u32, mu * a) - upper_gamma_int(j as u32, mu * b))
                / mu.powi(j);
            close(
                &format!("exp M_{j}({a}, {b})"),
                m(d.as_ref(), j, a, b),
                want,
            );
        }
    }
    // E[X^4] = 4!/μ^4.
    close(
        "exp E[X^4]",
        m(d.as_ref(), 4, 0.0, f64::INFINITY),
        24.0 / 16.0,
    );
}

#[test]
fn bounded_pareto_closed_form() {
    // BP(k, p, α), density α k^α x^(−α−1) / (1 − (k/p)^α) on [k, p] (Harchol-Balter,
    // Crovella & Murta 1999): M_j(a, b) = α k^α (b^(j−α) − a^(j−α)) / ((j − α)(1 − (k/p)^α)).
    let (k, p, alpha) = (1.0f64, 1e6f64, 1.1f64);
    let d = build("bp:k=1,p=1e6,alpha=1.1", BITS);
    for j in [3, 4] {
        let t = f64::from(j) - alpha;
        for (a, b) in [(1.0, 1e6), (10.0, 1e3), (2e5, 1e6), (0.5, 2.0)] {
            let (a0, b0) = (f64::max(a, k), f64::min(b, p));
            let want = alpha * k.powf(alpha) * (b0.powf(t) - a0.powf(t))
                / (t * (1.0 - (k / p).powf(alpha)));
            close(&format!("bp M_{j}({a}, {b})"), m(d.as_ref(), j, a, b), want);
        }
    }
}

#[test]
fn uniform_polynomial() {
    // U(1, 3): M_j(a, b) = (b^(j+1) − a^(j+1)) / ((j + 1)·2) on the clipped interval.
    let d = build("uniform:a=1,b=3", BITS);
    for j in [3, 4] {
        for (a, b) in [(1.0, 3.0), (0.0, 2.0), (1.5, 1.6), (2.5, 10.0)] {
            let (a0, b0) = (f64::max(a, 1.0), f64::min(b, 3.0));
            let want = (b0.powi(j + 1) - a0.powi(j + 1)) / (f64::from(j + 1) * 2.0);
            close(
                &format!("uniform M_{j}({a}, {b})"),
                m(d.as_ref(), j, a, b),
                want,
            );
        }
    }
}

#[test]
fn weibull_by_the_incomplete_gamma() {
    // Weibull(k, λ): with y = (x/λ)^k, E[X^j; a < X ≤ b] = λ^j [Γ(1 + j/k, y_a) −
    // Γ(1 + j/k, y_b)]; at k = 1/2 the orders are integers, 1 + j/k = 7 and 9 (DLMF 8.4.8).
    let (k, lam) = (0.5f64, 2.0f64);
    let d = build("weibull:shape=0.5,scale=2", BITS);
    for j in [3, 4] {
        let n = (f64::from(j) / k) as u32; // Γ(n + 1, ·)
        for (a, b) in [(0.0, f64::INFINITY), (1.0, 50.0), (300.0, f64::INFINITY)] {
            let y = |x: f64| (x / lam).powf(k);
            let want = lam.powi(j) * (upper_gamma_int(n, y(a)) - upper_gamma_int(n, y(b)));
            close(
                &format!("weibull M_{j}({a}, {b})"),
                m(d.as_ref(), j, a, b),
                want,
            );
        }
    }
}

#[test]
fn lognormal_by_the_normal_tail() {
    // LN(μ, σ): E[X^j; X > x] = e^(jμ + j²σ²/2) Φ̄((ln x − μ − jσ²)/σ) (the partial
    // expectation of the lognormal: Johnson, Kotz & Balakrishnan, Continuous Univariate
    // Distributions, vol. 1, 2nd ed., §14.3), Φ̄(z) = erfc(z/√2)/2.
    let (mu, s) = (0.5f64, 1.5f64);
    let d = build("lognormal:mu=0.5,sigma=1.5", BITS);
    let upper = |j: i32, x: f64| {
        let jf = f64::from(j);
        let z = (x.ln() - mu - jf * s * s) / s;
        (jf * mu + jf * jf * s * s / 2.0).exp() * 0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
    };
    for j in [3, 4] {
        for x in [0.1, 1.0, 50.0, 2000.0] {
            close(
                &format!("lognormal M_{j}({x}, inf)"),
                m(d.as_ref(), j, x, f64::INFINITY),
                upper(j, x),
            );
        }
    }
}

#[test]
fn erlang_hyperexp_det_pareto() {
    // Erlang(k, r): E[X^j; a < X ≤ b] = [Γ(k+j, ra) − Γ(k+j, rb)] / (r^j (k−1)!) (DLMF 8.4.8).
    let d = build("erlang:k=3,rate=2", BITS);
    for j in [3, 4] {
        for (a, b) in [(0.0, f64::INFINITY), (1.0, 4.0)] {
            let want = (upper_gamma_int(2 + j as u32, 2.0 * a)
                - upper_gamma_int(2 + j as u32, 2.0 * b))
                / (2f64.powi(j) * 2.0);
            close(
                &format!("erlang M_{j}({a}, {b})"),
                m(d.as_ref(), j, a, b),
                want,
            );
        }
    }
    // H2 (p, r1, r2): the mixture of the two exponentials' closed forms.
    let d = build("hyperexp:p=0.3,rate1=0.5,rate2=4", BITS);
    let ex = |mu: f64, j: i32, a: f64| upper_gamma_int(j as u32, mu * a) / mu.powi(j);
    for j in [3, 4] {
        let want = 0.3 * ex(0.5, j, 2.0) + 0.7 * ex(4.0, j, 2.0);
        close(
            &format!("hyperexp M_{j}(2, inf)"),
            m(d.as_ref(), j, 2.0, f64::INFINITY),
            want,
        );
    }
    // A point mass at 2: 2^j inside (a, b], 0 outside.
    let d = build("det:x=2", BITS);
    close("det M_4", m(d.as_ref(), 4, 1.0, 2.0), 16.0);
    assert_eq!(m(d.as_ref(), 4, 2.0, 3.0), 0.0);
    // Pareto(k = 1, α = 5): E[X^4; X > x] = α x^(4−α)/(α − 4) = 5/x; α = 3 has none.
    let d = build("pareto:k=1,alpha=5", BITS);
    close(
        "pareto M_4(2, inf)",
        m(d.as_ref(), 4, 2.0, f64::INFINITY),
        2.5,
    );
    let d = build("pareto:k=1,alpha=3", BITS);
    assert!(matches!(
        d.higher_partial_moment(4, &f(1.0), &f(f64::INFINITY)),
        Err(DistError::InfiniteMoment { j: 4, .. })
    ));
    // Orders outside {3, 4} are refused (the policies' orders have their own method).
    for j in [2, 5] {
        assert!(matches!(
            d.higher_partial_moment(j, &f(1.0), &f(2.0)),
            Err(DistError::BadOrder(_))
        ));
    }
}

#[test]
fn empirical_by_direct_sums() {
    // The empirical law of the test file: (1/n) Σ x_i^j over the sizes in (a, b], in f64.
    let path = empirical_file("higher");
    let d = build(&format!("empirical:file={path}"), BITS);
    let xs: Vec<f64> = EMPIRICAL_SIZES.iter().map(|s| s.parse().unwrap()).collect();
    for j in [3, 4] {
        // (Cut points that are exact in f64 and at the law's precision: 0.3 is not.)
        for (a, b) in [(0.0, 1e6), (0.25, 30.0), (1000.0, 1e6)] {
            let want = xs
                .iter()
                .filter(|&&x| a < x && x <= b)
                .map(|x| x.powi(j))
                .sum::<f64>()
                / xs.len() as f64;
            close(
                &format!("empirical M_{j}({a}, {b})"),
                m(d.as_ref(), j, a, b),
                want,
            );
        }
    }
    let _ = std::fs::remove_file(path);
}

#[test]
fn custom_density_by_quadrature() {
    // The density e^(−x) on [0, ∞) given as a user density: the Exp(1) closed forms.
    let g: DensityFn = Arc::new(|x: &Float| Float::with_val(x.prec(), -x).exp());
    let d = CustomFactory::new("exp1", "0", "inf", g)
        .unwrap()
        .build(BITS)
        .unwrap();
    for j in [3, 4] {
        for (a, b) in [(0.0, f64::INFINITY), (0.5, 3.0), (4.0, f64::INFINITY)] {
            let want = upper_gamma_int(j as u32, a) - upper_gamma_int(j as u32, b);
            close(
                &format!("custom M_{j}({a}, {b})"),
                m(d.as_ref(), j, a, b),
                want,
            );
        }
    }
}

#[test]
fn the_rule_share_and_the_jobs_it_asks_for() {
    // Weibull(0.3, 1): x_n = (ln n)^(1/0.3) and E[X^4; X > x]/E[X^4] = Q(1 + 4/0.3, ln n),
    // the regularised upper incomplete gamma; at n = 10^6 it is 0.52 (the figure of the
    // design; mpmath.gammainc(1 + 4/0.3, log(1e6), inf, regularized=True) = 0.519940).
    let d = build("weibull:shape=0.3,scale=1", BITS);
    let s = unseen_fourth_moment_share(d.as_ref(), 1_000_000).unwrap();
    assert!((s - 0.519_940).abs() < 1e-5, "{s}");
    let n = jobs_to_see_fourth_moment(d.as_ref()).unwrap().unwrap();
    // Half of E[X^4] lies above y = ln n with Q(14.3333, y) = 1/2: y = 14.00141 (mpmath
    // findroot), n = e^y = 1.2043e6, rounded up to two digits: 1.3e6.
    assert_eq!(n, 1_300_000);
    assert!(unseen_fourth_moment_share(d.as_ref(), n).unwrap() <= 0.5);
    // Exp(1) at n = 1000: e^(−x)(x⁴ + 4x³ + 12x² + 24x + 24)/24 at x = ln n (DLMF 8.4.8).
    let e = build("exp:rate=1", BITS);
    let l = 1000f64.ln();
    let want = (l.powi(4) + 4.0 * l.powi(3) + 12.0 * l * l + 24.0 * l + 24.0) / 24.0 / 1000.0;
    close(
        "exp share at 1000",
        unseen_fourth_moment_share(e.as_ref(), 1000).unwrap(),
        want,
    );
    // Pareto(α = 3): E[X^4] infinite, the share is 1 and no length helps.
    let p = build("pareto:k=1,alpha=3", BITS);
    assert_eq!(unseen_fourth_moment_share(p.as_ref(), 1000).unwrap(), 1.0);
    assert_eq!(jobs_to_see_fourth_moment(p.as_ref()).unwrap(), None);
}

#[test]
fn the_rule_lengthens_the_heavy_bounded_pareto_and_not_the_lognormal() {
    // BP(k = 1, p = 10⁶, α = 1.1): E[X^4; X > x] ∝ p^(4−α) − x^(4−α) (the closed form of
    // `bounded_pareto_closed_form`), so half of E[X^4] lies above
    // x½ = ((p^(4−α) + k^(4−α))/2)^(1/(4−α)) = 787402.07, where
    // P(X > x½) = (x½^(−α) − p^(−α))/(1 − (k/p)^α) = 1/13238466.9 (mpmath, 30 digits):
    // 1.3238e7 jobs, rounded up to two digits 1.4e7, 14 times the default 10⁶.
    let (k, p, alpha) = (1.0f64, 1e6f64, 1.1f64);
    let t = 4.0 - alpha;
    let x_half = ((p.powf(t) + k.powf(t)) / 2.0).powf(1.0 / t);
    let tail = (x_half.powf(-alpha) - p.powf(-alpha)) / (1.0 - (k / p).powf(alpha));
    assert!((1.0 / tail - 13_238_466.9).abs() < 1.0, "{}", 1.0 / tail);
    let d = build("bp:k=1,p=1e6,alpha=1.1", BITS);
    assert_eq!(
        jobs_to_see_fourth_moment(d.as_ref()).unwrap(),
        Some(14_000_000)
    );
    // At the command-line defaults (10⁶ measured jobs) the dispatch runner lengthens it to
    // those 1.4e7 jobs, the warm-up following at a tenth: 14 times is within the cap.
    let prepared = |spec: &str| {
        let dist = DistSpec::parse(spec).unwrap();
        prepare(&DispatchSimRequest {
            policy: SimPolicy::Random,
            dist: &dist,
            hosts: 2,
            load: LoadSpec::Total("1".into()),
            cutoffs: Vec::new(),
            interarrival: None,
            run: DEFAULT_RUN,
        })
        .unwrap()
    };
    let bp = prepared("bp:k=1,p=1e6,alpha=1.1");
    assert!(bp.tail.lengthened(), "{}", bp.tail.reason());
    assert_eq!(
        (bp.tail.requested, bp.tail.measured),
        (1_000_000, 14_000_000)
    );
    assert_eq!(bp.tail.warmup, 1_400_000);
    assert!(bp.tail.short_of.is_none());
    assert!(bp.tail.share_run <= 0.5, "{}", bp.tail.share_run);
    // Lognormal(0, 2) asks for about 1.7e15 jobs per replication (README, "Heavy tails"),
    // 1.7e9 times the default: not lengthened, and the record says why.
    let ln = prepared("lognormal:mu=0,sigma=2");
    assert!(!ln.tail.lengthened());
    assert_eq!(ln.tail.measured, 1_000_000);
    assert!(
        ln.tail.needed.is_some_and(|n| n > 1_000_000_000_000),
        "{:?}",
        ln.tail.needed
    );
    let why = ln.tail.short_of.as_deref().unwrap_or("");
    assert!(why.contains("times the jobs asked for"), "{why}");
    assert!(
        ln.tail.reason().contains("not lengthened"),
        "{}",
        ln.tail.reason()
    );
}

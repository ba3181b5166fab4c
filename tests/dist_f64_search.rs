//! The f64 log-domain partial moments `JobSize::ln_partial_moment_f64` (the optimiser's
//! global search runs on them) and the batched `JobSize::partial_moments`.
//!
//! - ln M_j(a, b) in f64 against ln of the MPFR partial moment at 200 bits, for every
//!   family with an f64 form, over many intervals: the support's ends (ln a = −∞ at a
//!   lower end 0, ln b = +∞ at an unbounded upper end), a ≥ b, intervals outside the
//!   support, short intervals (relative widths down to 10^-13), points far outside f64's
//!   range (BP with p = 10^1000 and 10^100000, k = 10^-400);
//! - the conventions: `Some(−∞)` for a zero moment, `Some(+∞)` for an infinite one, `None`
//!   for the discrete families and for parameters without an f64 form;
//! - the batched moments against one `partial_moment` call per order, at 100 and 400 bits.
//!
//! Source of the reference: `JobSize::partial_moment` at 200 bits, which
//! tests/dist_moments.rs checks against MPFR quadrature of x^j f(x). It is evaluated at the
//! points the f64 form sees: a = e^(ln a) computed in MPFR from the very f64 ln a passed
//! to `ln_partial_moment_f64` (and likewise b), so both sides integrate over the same
//! interval and the comparison is exp-free on the f64 side.

mod common;
use common::build;

use rug::float::Special;
use rug::Float;
use taskassign::dist::{DistError, JobSize};
use taskassign::num::message_number;

/// Precision of the MPFR reference (and of the distributions it comes from).
const REF_BITS: u32 = 200;
/// Tolerance |ln M_f64 − ln M_ref| ≤ ABS_TOL + REL_TOL·|ln M_ref|. Source: the accuracy
/// contract in the doc comment of `JobSize::ln_partial_moment_f64` (src/dist/mod.rs): a
/// relative error of the moment of about 1e-12, i.e. 1e-12 + 1e-15·|ln M| in its
/// logarithm; the absolute part is widened tenfold for the test, as the task asked.
const ABS_TOL: f64 = 1e-11;
/// See [`ABS_TOL`].
const REL_TOL: f64 = 1e-15;
/// The batched moments agree with the single ones to 2^-(bits − AGREE_SLACK_BITS) relative,
/// times the conditioning 1 + (2 + α) ln(b/a) of e^(t ln(b/a)), |t| ≤ 2 + α, with respect to
/// the rounding of ln(b/a): both forms round ln(b/a) once, and the batched one may take
/// e^(t_j ln(b/a)) from another order's exponential (source: error analysis in the doc of
/// `power_law_moments`, src/dist/bounded_pareto.rs).
const AGREE_SLACK_BITS: u32 = 8;

/// e^l at the reference precision (0 for l = −∞, +∞ for l = +∞).
fn point(l: f64) -> Float {
    if l == f64::NEG_INFINITY {
        Float::with_val(REF_BITS, 0)
    } else if l == f64::INFINITY {
        Float::with_val(REF_BITS, Special::Infinity)
    } else {
        Float::with_val(REF_BITS, l).exp()
    }
}

/// ln M_j(e^la, e^lb) from the MPFR moments: −∞ for a zero moment, +∞ for an infinite one.
fn reference(d: &dyn JobSize, j: i32, la: f64, lb: f64) -> f64 {
    match d.partial_moment(j, &point(la), &point(lb)) {
        Ok(m) if m.is_zero() => f64::NEG_INFINITY,
        Ok(m) => Float::with_val(REF_BITS, m.ln_ref()).to_f64(),
        Err(DistError::InfiniteMoment { .. }) => f64::INFINITY,
        Err(e) => panic!("{} j={j} ({la}, {lb}]: {e}", d.family()),
    }
}

/// The largest error seen, as a fraction of the tolerance, and where.
#[derive(Default)]
struct Worst {
    ratio: f64,
    abs: f64,
    checked: usize,
    at: String,
}

impl Worst {
    fn report(&self, what: &str) {
        eprintln!(
            "{what}: {} comparisons, max |Δ ln M| / tol = {:.3} (|Δ| = {:.2e}) at {}",
            self.checked, self.ratio, self.abs, self.at
        );
    }
}

/// Compares one (j, ln a, ln b) against the reference.
fn check_one(d: &dyn JobSize, spec: &str, j: i32, la: f64, lb: f64, worst: &mut Worst) {
    let r = reference(d, j, la, lb);
    let g = d
        .ln_partial_moment_f64(j, la, lb)
        .unwrap_or_else(|| panic!("{spec}: no f64 form"));
    let at = format!("{spec} j={j} ln a={la:e} ln b={lb:e}");
    worst.checked += 1;
    if r.is_infinite() || g.is_infinite() {
        assert_eq!(g, r, "{at}: f64 {g:e} vs MPFR {r:e}");
        return;
    }
    let err = (g - r).abs();
    let tol = ABS_TOL + REL_TOL * r.abs();
    assert!(
        err <= tol,
        "{at}: f64 {g:.17e} vs MPFR {r:.17e} (|Δ| = {err:.3e} > tol {tol:.3e})"
    );
    if err / tol > worst.ratio {
        worst.ratio = err / tol;
        worst.abs = err;
        worst.at = at;
    }
}

/// All orders over all ordered pairs of the log-points (a ≥ b included).
fn check_spec(spec: &str, lns: &[f64]) -> Worst {
    let d = build(spec, REF_BITS);
    let mut worst = Worst::default();
    for j in [-1, 0, 1, 2] {
        for &la in lns {
            for &lb in lns {
                check_one(d.as_ref(), spec, j, la, lb, &mut worst);
            }
        }
    }
    worst.report(spec);
    worst
}

/// Points x(1 + 10^-e) next to each x (ln x + 10^-e in log space, at least one ulp apart)
/// so that the pairs include intervals of relative width 10^-e.
fn with_short(lns: &[f64], rel: &[f64]) -> Vec<f64> {
    let mut v = lns.to_vec();
    for &l in lns {
        if l.is_finite() {
            for &r in rel {
                let m = l + r;
                if m != l {
                    v.push(m);
                }
            }
        }
    }
    v
}

const SHORT: [f64; 4] = [1e-3, 1e-7, 1e-10, 1e-13];
const NEG_INF: f64 = f64::NEG_INFINITY;
const INF: f64 = f64::INFINITY;

/// ln of an MPFR parameter, for points at or next to a support end.
fn ln_of(x: &str) -> f64 {
    let v = taskassign::num::parse_decimal(x, REF_BITS).unwrap();
    Float::with_val(REF_BITS, v.ln_ref()).to_f64()
}

#[test]
fn bounded_pareto_f64_moments() {
    for alpha in ["0.5", "1", "1.5", "2", "2.5", "0.999999", "1e-3", "7"] {
        let spec = format!("bp:k=1,p=1e10,alpha={alpha}");
        let lp = ln_of("1e10");
        let lns = with_short(
            &[
                NEG_INF,
                -5.0,
                0.0,
                1e-9,
                0.5,
                3.0,
                10.0,
                lp - 1e-9,
                lp,
                30.0,
                INF,
            ],
            &SHORT,
        );
        check_spec(&spec, &lns);
    }
    for alpha in ["0.5", "1.5", "2", "3"] {
        let spec = format!("bp:k=2.5,p=1e6,alpha={alpha}");
        let (lk, lp) = (ln_of("2.5"), ln_of("1e6"));
        let lns = with_short(
            &[NEG_INF, lk - 1.0, lk, 1.0, 5.0, lp, lp + 1.0, INF],
            &SHORT,
        );
        check_spec(&spec, &lns);
    }
}

#[test]
fn bounded_pareto_f64_moments_huge_p() {
    // p = 10^1000 and 10^100000 do not fit in f64; only their logarithms do.
    for p in ["1e1000", "1e100000"] {
        for alpha in ["0.5", "1", "1.5", "2", "2.00000001"] {
            let spec = format!("bp:k=1,p={p},alpha={alpha}");
            let lp = ln_of(p);
            let lns = with_short(
                &[
                    NEG_INF,
                    0.0,
                    1.0,
                    100.0,
                    1000.0,
                    lp * 0.5,
                    lp - 1.0,
                    lp - 1e-9,
                    lp,
                    lp * 2.0,
                    INF,
                ],
                &SHORT,
            );
            check_spec(&spec, &lns);
        }
    }
    // k below f64's range.
    let spec = "bp:k=1e-400,p=1e-380,alpha=1.3";
    let (lk, lp) = (ln_of("1e-400"), ln_of("1e-380"));
    let lns = with_short(
        &[NEG_INF, lk, lk + 1.0, -900.0, lp - 1.0, lp, 0.0, INF],
        &SHORT,
    );
    check_spec(spec, &lns);
}

#[test]
fn pareto_f64_moments() {
    for alpha in ["0.5", "1", "1.5", "2", "2.5", "3", "1.0000001"] {
        for k in ["1", "2.5", "1e-400"] {
            let spec = format!("pareto:k={k},alpha={alpha}");
            let lk = ln_of(k);
            let lns = with_short(
                &[
                    NEG_INF,
                    lk - 1.0,
                    lk,
                    lk + 1e-6,
                    lk + 2.0,
                    lk + 50.0,
                    lk + 5000.0,
                    INF,
                ],
                &SHORT,
            );
            check_spec(&spec, &lns);
        }
    }
}

#[test]
fn uniform_f64_moments() {
    for (a, b) in [("0", "1"), ("2", "5"), ("0", "3e5"), ("1e-3", "1e100000")] {
        let spec = format!("uniform:a={a},b={b}");
        let la = if a == "0" { NEG_INF } else { ln_of(a) };
        let lb = ln_of(b);
        let mid = if la.is_finite() {
            0.5 * (la + lb)
        } else {
            lb - 1.0
        };
        let lns = with_short(
            &[
                NEG_INF,
                -800.0,
                la,
                la + 1e-8,
                mid,
                lb - 1e-9,
                lb,
                lb + 1.0,
                INF,
            ],
            &SHORT,
        );
        check_spec(&spec, &lns);
    }
}

/// Log-points for the families on [0, ∞) with a scale 1/μ: u = μx from e^-30 to e^17
/// (ln M ≈ −μa ≈ −2.4·10^7 still has MPFR's exponent range to spare).
fn scaled_points(ln_scale: f64) -> Vec<f64> {
    let base = [
        -700.0, -30.0, -5.0, -1.0, -0.2, 0.0, 0.3, 1.0, 2.0, 3.5, 7.0, 11.5, 17.0,
    ];
    let mut v = vec![NEG_INF, INF];
    v.extend(base.iter().map(|u| u - ln_scale));
    with_short(&v, &SHORT)
}

#[test]
fn exponential_f64_moments() {
    for rate in ["1", "3.7", "1e-3", "1e5", "1e-300"] {
        let spec = format!("exp:rate={rate}");
        check_spec(&spec, &scaled_points(ln_of(rate)));
    }
}

#[test]
fn hyperexp_f64_moments() {
    for (p, r1, r2) in [
        ("0.3", "1", "10"),
        ("0.999", "1e-3", "100"),
        ("0.5", "2", "2"),
    ] {
        let spec = format!("hyperexp:p={p},rate1={r1},rate2={r2}");
        check_spec(&spec, &scaled_points(0.5 * (ln_of(r1) + ln_of(r2))));
    }
}

#[test]
fn lognormal_f64_moments() {
    for (mu, sigma) in [
        (0.0, 1.0),
        (5.0, 2.0),
        (-3.0, 0.3),
        (100.0, 10.0),
        (0.0, 0.01),
    ] {
        let spec = format!("lognormal:mu={mu},sigma={sigma}");
        // z = (ln x − μ)/σ from −40 to 40: tails far below f64 (Q(40) ≈ 4e-350).
        let zs = [
            -40.0, -10.0, -3.0, -1.0, -0.3, 0.0, 0.2, 1.0, 2.5, 5.0, 12.0, 38.0,
        ];
        let mut v = vec![NEG_INF, INF];
        v.extend(zs.iter().map(|z| mu + sigma * z));
        check_spec(&spec, &with_short(&v, &SHORT));
    }
}

/// Log-points for a Weibull: y = (x/λ)^k from e^-30 to e^12, and the support's ends.
fn weibull_points(k: f64, scale: &str) -> Vec<f64> {
    let ys = [
        -30.0, -5.0, -1.0, -0.2, 0.0, 0.3, 1.0, 2.0, 3.0, 4.0, 5.5, 7.0, 12.0,
    ];
    let mut v = vec![NEG_INF, INF];
    v.extend(ys.iter().map(|ly| ln_of(scale) + ly / k));
    with_short(&v, &SHORT)
}

fn check_weibull(k: &str, scale: &str) {
    let spec = format!("weibull:shape={k},scale={scale}");
    check_spec(&spec, &weibull_points(k.parse().unwrap(), scale));
}

// One test per shape, so that they run in parallel (the MPFR reference is slow).

#[test]
fn weibull_f64_moments_shape_0_5() {
    check_weibull("0.5", "1");
    check_weibull("0.5", "1e-3");
}

#[test]
fn weibull_f64_moments_shape_1() {
    check_weibull("1", "1e-3");
    check_weibull("1.0001", "1");
}

#[test]
fn weibull_f64_moments_shape_2() {
    check_weibull("2", "1");
    check_weibull("3.7", "1e-3");
}

#[test]
fn weibull_f64_moments_shape_0_1() {
    check_weibull("0.1", "1");
}

#[test]
fn weibull_f64_moments_shape_0_01() {
    check_weibull("0.01", "1e-3");
}

#[test]
fn weibull_f64_moments_extreme_shapes() {
    // Gamma shapes s = 1 + j/k up to 801 and down to −399 (k = 0.0025), and s ≈ 1 (k = 50).
    for k in ["0.0025", "50"] {
        let spec = format!("weibull:shape={k},scale=1");
        let kf: f64 = k.parse().unwrap();
        let ys = [-3.0, 0.0, 5.0, 6.5, 6.7, 9.0];
        let mut v = vec![NEG_INF, INF];
        v.extend(ys.iter().map(|ly| ly / kf));
        check_spec(&spec, &with_short(&v, &[1e-10]));
    }
}

/// Random intervals: ln a uniform on [lo, hi], ln b = ln a + 10^U(−12, 1.5) (so that
/// every regime boundary of the f64 forms — short intervals, series/fraction switches, the
/// cuts of the Weibull's y-axis — is crossed somewhere), plus a few a = lower / b = upper.
fn check_random(spec: &str, lo: f64, hi: f64, n: usize, seed: u64) {
    use rand::{Rng, SeedableRng};
    let d = build(spec, REF_BITS);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut worst = Worst::default();
    for i in 0..n {
        let la = if i % 17 == 0 {
            NEG_INF
        } else {
            lo + (hi - lo) * rng.random::<f64>()
        };
        let lb = if i % 13 == 0 {
            INF
        } else if la.is_finite() {
            la + 10f64.powf(-12.0 + 13.5 * rng.random::<f64>())
        } else {
            lo + (hi - lo) * rng.random::<f64>()
        };
        let j = rng.random_range(-1..=2);
        check_one(d.as_ref(), spec, j, la, lb, &mut worst);
    }
    worst.report(&format!("{spec} (random)"));
}

/// Seed of the random intervals.
const RANDOM_SEED: u64 = 20_250_601;

#[test]
fn random_intervals() {
    let cases: [(&str, f64, f64); 9] = [
        ("bp:k=1,p=1e1000,alpha=1.2", -5.0, 2400.0),
        ("pareto:k=3,alpha=2.2", -1.0, 100.0),
        ("uniform:a=0.5,b=40", -2.0, 5.0),
        ("exp:rate=0.7", -40.0, 12.0),
        ("hyperexp:p=0.2,rate1=0.1,rate2=5", -40.0, 12.0),
        ("lognormal:mu=1,sigma=1.5", -60.0, 60.0),
        ("weibull:shape=0.6,scale=2", -40.0, 30.0),
        ("weibull:shape=2.5,scale=2", -20.0, 5.0),
        ("weibull:shape=0.15,scale=1", -80.0, 80.0),
    ];
    for (i, (spec, lo, hi)) in cases.iter().enumerate() {
        check_random(spec, *lo, *hi, 1500, RANDOM_SEED + i as u64);
    }
}

#[test]
fn zero_infinite_and_absent_conventions() {
    let b = 100;
    let bp = build("bp:k=1,p=1e10,alpha=1.5", b);
    for j in [-1, 0, 1, 2] {
        // a ≥ b, and intervals entirely below or above the support: a zero moment.
        assert_eq!(
            bp.ln_partial_moment_f64(j, 2.0, 2.0),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(
            bp.ln_partial_moment_f64(j, 3.0, 2.0),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(
            bp.ln_partial_moment_f64(j, NEG_INF, -1.0),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(
            bp.ln_partial_moment_f64(j, 30.0, INF),
            Some(f64::NEG_INFINITY)
        );
        // Orders outside {−1, 0, 1, 2} have no f64 form.
        assert_eq!(bp.ln_partial_moment_f64(j + 4, 0.0, 1.0), None);
    }
    // Infinite moments: E[X^j] of a Pareto with α ≤ j, E[1/X] from 0 for densities > 0 at 0.
    let par = build("pareto:k=1,alpha=1.5", b);
    assert_eq!(par.ln_partial_moment_f64(2, 0.0, INF), Some(INF));
    assert_eq!(
        par.ln_partial_moment_f64(1, 5.0, INF).map(f64::is_finite),
        Some(true)
    );
    let par1 = build("pareto:k=1,alpha=1", b);
    assert_eq!(par1.ln_partial_moment_f64(1, 0.0, INF), Some(INF));
    for spec in [
        "exp:rate=2",
        "hyperexp:p=0.5,rate1=1,rate2=3",
        "uniform:a=0,b=2",
    ] {
        let d = build(spec, b);
        assert_eq!(
            d.ln_partial_moment_f64(-1, NEG_INF, 0.0),
            Some(INF),
            "{spec}"
        );
        assert!(
            d.ln_partial_moment_f64(-1, -3.0, 0.0).unwrap().is_finite(),
            "{spec}"
        );
        assert_eq!(
            d.ln_partial_moment_f64(0, NEG_INF, INF),
            Some(0.0),
            "{spec}"
        );
    }
    // Discrete and user-defined families have no f64 form, nor a shape that overflows f64.
    let path = std::env::temp_dir().join(format!("taskassign-dist-f64-{}.txt", std::process::id()));
    std::fs::write(&path, "1\n2.5\n7\n").unwrap();
    let emp = build(&format!("empirical:file={}", path.to_string_lossy()), b);
    let det = build("det:x=1.7", b);
    let huge_alpha = build("bp:k=1,p=10,alpha=1e400", b);
    for j in [-1, 0, 1, 2] {
        assert_eq!(det.ln_partial_moment_f64(j, 0.0, 1.0), None);
        assert_eq!(emp.ln_partial_moment_f64(j, 0.0, 1.0), None);
        assert_eq!(huge_alpha.ln_partial_moment_f64(j, 0.0, 1.0), None);
    }
    std::fs::remove_file(&path).ok();
}

/// The α of a `bp:`/`pareto:` spec (0 for other families).
fn alpha_of(spec: &str) -> f64 {
    spec.split(',')
        .find_map(|kv| kv.strip_prefix("alpha="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// Relative agreement of the batched moments with the single ones.
fn check_batched(spec: &str, intervals: &[(&str, &str)]) {
    let orders: [&[i32]; 4] = [&[-1, 0, 1, 2], &[0, 1, 2], &[2, 0], &[1]];
    for bits in [100u32, 400] {
        let d = build(spec, bits);
        for &(a, b) in intervals {
            let parse = |s: &str| {
                if s == "inf" {
                    Float::with_val(bits, Special::Infinity)
                } else {
                    taskassign::num::parse_decimal(s, bits).unwrap()
                }
            };
            let (af, bf) = (parse(a), parse(b));
            // The conditioning (2 + α) ln(b/a) on the interval clipped to the support.
            let (lo, hi) = (d.lower(), d.upper());
            let ac = if af > lo { af.clone() } else { lo };
            let bc = if bf < hi { bf.clone() } else { hi };
            let cond = if bc.is_finite() && ac > 0 && bc > ac {
                Float::with_val(bits, &bc / &ac).ln() * (2.0 + alpha_of(spec))
            } else {
                Float::with_val(bits, 0)
            };
            for js in orders {
                let batch = d.partial_moments(js, &af, &bf);
                let single: Result<Vec<Float>, DistError> =
                    js.iter().map(|&j| d.partial_moment(j, &af, &bf)).collect();
                let what = format!("{spec} {js:?} ({a}, {b}] at {bits} bits");
                match (batch, single) {
                    (Ok(x), Ok(y)) => {
                        assert_eq!(x.len(), js.len(), "{what}");
                        for (m, s) in x.iter().zip(&y) {
                            let d = Float::with_val(bits, m - s).abs();
                            let tol = (Float::with_val(bits, s.abs_ref())
                                * Float::with_val(bits, 1u32 + cond.clone()))
                                >> (bits - AGREE_SLACK_BITS);
                            assert!(
                                d <= tol,
                                "{what}: {} vs {}",
                                message_number(m),
                                message_number(s)
                            );
                        }
                    }
                    // An infinite order makes both fail, with the same error.
                    (Err(x), Err(y)) => assert_eq!(x, y, "{what}"),
                    (x, y) => panic!("{what}: batched {x:?} vs single {y:?}"),
                }
            }
        }
    }
}

#[test]
fn batched_moments_match_single_ones() {
    let bp_intervals = [
        ("0", "inf"),
        ("1", "1e10"),
        ("2", "3"),
        ("3", "3.000000001"),
        ("0.5", "0.9"),
        ("1e9", "1e12"),
        ("5", "2"),
    ];
    for alpha in ["0.5", "1", "1.5", "2"] {
        check_batched(&format!("bp:k=1,p=1e10,alpha={alpha}"), &bp_intervals);
        check_batched(&format!("pareto:k=1,alpha={alpha}"), &bp_intervals);
    }
    check_batched(
        "bp:k=1,p=1e1000,alpha=1.5",
        &[("0", "inf"), ("1e500", "1e501"), ("10", "1e999")],
    );
    // Errors: the first failing order in the order asked, as one call per order reports.
    for bits in [100u32, 400] {
        let d = build("pareto:k=1,alpha=1.5", bits);
        let (a, b) = (
            Float::with_val(bits, 2),
            Float::with_val(bits, Special::Infinity),
        );
        for js in [&[0, 2, 7][..], &[7, 2], &[1, 2, -1]] {
            let single: Result<Vec<Float>, DistError> =
                js.iter().map(|&j| d.partial_moment(j, &a, &b)).collect();
            assert_eq!(
                d.partial_moments(js, &a, &b).unwrap_err(),
                single.unwrap_err(),
                "{js:?}"
            );
        }
    }
    // The default (one call per order) for the other families.
    for spec in ["exp:rate=2", "uniform:a=1,b=4", "lognormal:mu=0,sigma=1"] {
        check_batched(spec, &[("0", "inf"), ("0.5", "3"), ("2", "2.5")]);
    }
}

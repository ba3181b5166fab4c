//! TAGS stability: exact thresholds from the papers' closed forms, the h → ∞ limit, the
//! greedy decision against exhaustive search, and two-precision agreement.

mod common;
use common::build;

use rug::Float;
use taskassign::dist::{DistSpec, JobSize};
use taskassign::num::parse_decimal;
use taskassign::optimize::threshold_certified;
use taskassign::optimize::{greedy, tags_threshold};
use taskassign::policy::tags_host_load as host_load;

/// Precision of the exact-value tests.
const BITS: u32 = 160;
/// Relative tolerance for exact thresholds: 1e-40 (160 bits ≈ 48 digits, the root finder
/// stops within 2^-(160-2) relative).
const EXACT_TOL: f64 = 1e-40;

fn rel_err(a: &Float, b: &Float) -> f64 {
    (Float::with_val(BITS, a - b) / b).abs().to_f64()
}

#[test]
fn pareto_threshold_closed_form() {
    // [BDS20]: Pareto(k, α), α > 1: ρ*(h) = α/(α−1) (1 − α^(−h)); h = ∞: α/(α−1).
    for alpha in ["1.25", "1.5", "2", "3", "7.5"] {
        let d = build(&format!("pareto:k=1,alpha={alpha}"), BITS);
        let a = parse_decimal(alpha, BITS).unwrap();
        let lead = Float::with_val(BITS, &a / Float::with_val(BITS, &a - 1u32));
        for h in 1..=10i32 {
            let t = tags_threshold(d.as_ref(), Some(h as usize)).unwrap();
            let want = Float::with_val(BITS, 1) - Float::with_val(BITS, (&a).pow_ref_neg(h));
            let want = Float::with_val(BITS, &lead * &want);
            assert!(
                rel_err(&t.load, &want) < EXACT_TOL,
                "α={alpha} h={h}: {} vs {}",
                t.load,
                want
            );
        }
        let inf = tags_threshold(d.as_ref(), None).unwrap();
        assert!(rel_err(&inf.load, &lead) < EXACT_TOL);
    }
}

trait PowNeg {
    fn pow_ref_neg(&self, h: i32) -> Float;
}
impl PowNeg for &Float {
    fn pow_ref_neg(&self, h: i32) -> Float {
        // α^(−h) by repeated division (independent of MPFR's pow).
        let mut x = Float::with_val(BITS, 1);
        for _ in 0..h {
            x /= *self;
        }
        x
    }
}

#[test]
fn uniform_two_hosts_is_four_thirds() {
    // [BDS20]: uniform(0,1), h = 2: ρ* = 4/3, both hosts critical at s = 1/2.
    let d = build("uniform:a=0,b=1", BITS);
    let t = tags_threshold(d.as_ref(), Some(2)).unwrap();
    let want = Float::with_val(BITS, 4) / 3u32;
    assert!(rel_err(&t.load, &want) < EXACT_TOL);
    assert!(rel_err(&t.cutoffs[0], &Float::with_val(BITS, 0.5)) < EXACT_TOL);
}

#[test]
fn exponential_two_hosts_root() {
    // [BDS20]: Exp(1), h = 2: ρ* is the root of (λ−1)(1 + ln(λ/(λ−1))) = 1, found here by
    // plain bisection on [1.1, 2] (the left side rises from 0.34 to 1.69 on it).
    let g = |l: &Float| {
        let lm = Float::with_val(BITS, l - 1u32);
        let r = Float::with_val(BITS, l / &lm).ln() + 1u32;
        lm * r - 1u32
    };
    let (mut lo, mut hi) = (Float::with_val(BITS, 1.1), Float::with_val(BITS, 2));
    for _ in 0..BITS + 10 {
        let mid = Float::with_val(BITS, &lo + &hi) / 2u32;
        if g(&mid) < 0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let d = build("exp:rate=1", BITS);
    let t = tags_threshold(d.as_ref(), Some(2)).unwrap();
    assert!(rel_err(&t.load, &lo) < EXACT_TOL, "{} vs {}", t.load, lo);
}

#[test]
fn infinite_hosts_limit() {
    // h → ∞: ρ* = E[X] / sup_x x F̄(x). Closed forms: Exp(1): 1/(1/e) = e.
    // Uniform(0,1): sup x(1−x) = 1/4 → 2. BP(1,p,1): sup at x = 1 equals 1, so
    // ρ*∞ = E[X] = ln p / (1 − 1/p).
    let e = Float::with_val(BITS, 1).exp();
    let d = build("exp:rate=1", BITS);
    assert!(rel_err(&tags_threshold(d.as_ref(), None).unwrap().load, &e) < EXACT_TOL);
    let d = build("uniform:a=0,b=1", BITS);
    assert!(
        rel_err(
            &tags_threshold(d.as_ref(), None).unwrap().load,
            &Float::with_val(BITS, 2)
        ) < EXACT_TOL
    );
    let d = build("bp:k=1,p=1e6,alpha=1", BITS);
    let p = Float::with_val(BITS, 1_000_000);
    let want = Float::with_val(BITS, p.ln_ref())
        / (Float::with_val(BITS, 1) - Float::with_val(BITS, 1) / &p);
    assert!(rel_err(&tags_threshold(d.as_ref(), None).unwrap().load, &want) < EXACT_TOL);
}

#[test]
fn thresholds_increase_with_h_towards_the_limit() {
    // Monotone in h (more hosts never hurt) and bounded by the h → ∞ value.
    for spec in [
        "exp:rate=1",
        "uniform:a=0,b=1",
        "bp:k=1,p=1e4,alpha=0.5",
        "hyperexp:p=0.1,rate1=0.1,rate2=10",
    ] {
        let d = build(spec, 96);
        let lim = tags_threshold(d.as_ref(), None).unwrap().load;
        let mut prev = Float::with_val(96, 1);
        for h in 2..=12 {
            let t = tags_threshold(d.as_ref(), Some(h)).unwrap().load;
            assert!(
                t > prev && t < lim,
                "{spec} h={h}: {t} prev {prev} lim {lim}"
            );
            prev = t;
        }
    }
}

/// Grid points per cutoff in the exhaustive search.
const GRID: usize = 400;
/// Relative distance from ρ* at which the exhaustive search must agree with the greedy
/// decision (the grid resolves the stable region at this distance).
const DELTA: f64 = 0.03;

/// Whether some cutoffs on a quantile grid make every host's load < 1 (h = 2 or 3).
fn exhaustive_stable(d: &dyn JobSize, lambda: &Float, h: usize) -> bool {
    let bits = d.prec();
    let grid: Vec<Float> = (1..GRID)
        .map(|i| {
            d.quantile(&Float::with_val(bits, i as f64 / GRID as f64))
                .unwrap()
        })
        .collect();
    let lo = d.lower_open();
    let top = d.upper();
    let first: Vec<bool> = grid
        .iter()
        .map(|s| host_load(d, lambda, &lo, s).unwrap() < 1)
        .collect();
    let last: Vec<bool> = grid
        .iter()
        .map(|s| host_load(d, lambda, s, &top).unwrap() < 1)
        .collect();
    match h {
        2 => (0..grid.len()).any(|i| first[i] && last[i]),
        3 => (0..grid.len()).filter(|&i| first[i]).any(|i| {
            (i + 1..grid.len())
                .any(|j| last[j] && host_load(d, lambda, &grid[i], &grid[j]).unwrap() < 1)
        }),
        _ => unreachable!(),
    }
}

#[test]
fn greedy_decision_matches_exhaustive_search() {
    // [BDS19]: stable cutoffs exist iff the greedy construction leaves the last host a load
    // below 1. Checked against brute force just below and just above ρ*.
    for spec in [
        "exp:rate=1",
        "uniform:a=0,b=1",
        "bp:k=1,p=100,alpha=0.5",
        "bp:k=1,p=1e4,alpha=1.5",
        "hyperexp:p=0.2,rate1=0.25,rate2=4",
    ] {
        let d = build(spec, 64);
        let mean = d.mean().unwrap();
        for h in [2usize, 3] {
            let t = tags_threshold(d.as_ref(), Some(h)).unwrap();
            for (factor, expect) in [(1.0 - DELTA, true), (1.0 + DELTA, false)] {
                let lambda = Float::with_val(64, &t.load * factor) / &mean;
                assert_eq!(
                    greedy(d.as_ref(), &lambda, h).unwrap().stable(),
                    expect,
                    "{spec} h={h} greedy"
                );
                assert_eq!(
                    exhaustive_stable(d.as_ref(), &lambda, h),
                    expect,
                    "{spec} h={h} ×{factor} exhaustive"
                );
            }
        }
    }
}

#[test]
fn thirty_and_three_hundred_digits_agree() {
    for spec in [
        "exp:rate=1",
        "bp:k=1,p=1e10,alpha=0.5",
        "bp:k=1,p=1e1000,alpha=1.5",
    ] {
        let d = DistSpec::parse(spec).unwrap();
        for h in [Some(2), Some(5), None] {
            let a = threshold_certified(&d, h, 30).unwrap();
            let b = threshold_certified(&d, h, 300).unwrap();
            assert_eq!(a.digits, 30, "{spec} {h:?}");
            assert_eq!(b.digits, 300, "{spec} {h:?}");
            let x = parse_decimal(&a.load.text, 1100).unwrap();
            let y = parse_decimal(&b.load.text, 1100).unwrap();
            // The 30-digit string is the 300-digit value rounded: within half a unit in the
            // 30th digit.
            let rel = Float::with_val(1100, &x - &y) / &y;
            assert!(
                rel.abs() < 5.01e-30,
                "{spec} {h:?}: {} vs {}",
                a.load.text,
                b.load.text
            );
        }
    }
}

#[test]
fn huge_p_thresholds() {
    for p in ["1e1000", "1e100000"] {
        let d = DistSpec::parse(&format!("bp:k=1,p={p},alpha=0.5")).unwrap();
        let t = threshold_certified(&d, Some(4), 20).unwrap();
        assert_eq!(t.digits, 20);
        assert_eq!(t.cutoffs.len(), 3);
    }
}

#[test]
fn empirical_step_tail_threshold() {
    // Sizes {1, 2, 2, 3, 10, 100, 1000}: E[X] = 1118/7, sup x F̄(x) = 1000 · P(X ≥ 1000) =
    // 1000/7 (a left limit, not attained). At λ = 7/1000 the greedy first cutoff solves
    // (118 + s)/7 = 1000/7, s = 882, and leaves host 2 the load λ·1000/7 = 1 exactly: so
    // ρ*(2) = ρ*(∞) = E[X]/sup = 1.118 (derived by hand here).
    let dir = std::env::temp_dir().join(format!("taskassign-emp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sizes.txt");
    std::fs::write(&path, "1\n2\n2\n3\n10\n100\n1000\n").unwrap();
    let d = build(&format!("empirical:file={}", path.display()), BITS);
    let want = parse_decimal("1.118", BITS).unwrap();
    for h in [Some(2), Some(3), None] {
        let t = tags_threshold(d.as_ref(), h).unwrap();
        assert!(rel_err(&t.load, &want) < EXACT_TOL, "h={h:?}: {}", t.load);
    }
    let t2 = tags_threshold(d.as_ref(), Some(2)).unwrap();
    assert!(rel_err(&t2.cutoffs[0], &Float::with_val(BITS, 882)) < EXACT_TOL);
}

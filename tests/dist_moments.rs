//! Partial moments of every job-size family against independent computations.
//!
//! - M_j(a, b) for j ∈ {−1, 0, 1, 2} over several intervals against MPFR quadrature of
//!   x^j·density (a distribution built at more bits supplies the density; the quadrature
//!   substitutes x = e^t on wide ranges), or against direct sums for det and empirical;
//! - additivity M_j(a, b) + M_j(b, c) = M_j(a, c), total mass 1, tail(x) = M_0(x, upper);
//! - closed forms where they are known, infinite moments as errors;
//! - the same moments at two precisions agree to the lower one's bits.
//!
//! The samplers' Kolmogorov–Smirnov tier is `tests/dist_ks.rs`.

mod common;
use common::{build, empirical_file, EMPIRICAL_SIZES};

use rug::float::{Constant, Special};
use rug::{Float, Integer};
use taskassign::dist::{DistError, DistSpec, JobSize};
use taskassign::num::{integrate_positive, message_number, parse_decimal, QuadResult};

/// The two precisions every family is checked at.
const PRECISIONS: [u32; 2] = [100, 400];
/// A family may be off by 2^REL_SLACK_BITS units in the last place of its precision (its
/// formulas round a few times), on top of the quadrature's own error estimate.
const REL_SLACK_BITS: u32 = 10;
/// The reference density comes from the family built at this many more bits…
const REF_EXTRA_BITS: u32 = 64;
/// …and is integrated at this many more bits than the family's precision.
const QUAD_EXTRA_BITS: u32 = 32;
/// Cut points tried as interval ends (those inside the support are used).
const CUTS: [&str; 10] = [
    "0.1", "0.3", "1", "1.7", "2.5", "7", "30", "1000", "1e5", "3e5",
];

fn inf(bits: u32) -> Float {
    Float::with_val(bits, Special::Infinity)
}

/// |x − y| ≤ abs + 2^-(bits − REL_SLACK_BITS)·|y| ([`common::assert_close`]).
fn assert_close(bits: u32, x: &Float, y: &Float, abs: &Float, what: &str) {
    let tol = Float::with_val(bits + 64, y.abs_ref()) >> (bits - REL_SLACK_BITS);
    common::assert_close(what, x, y, &(tol + abs));
}

/// The interval ends for a distribution: its support ends and the cut points inside.
fn ends(d: &dyn JobSize, bits: u32) -> Vec<Float> {
    let lo = d.lower();
    let hi = d.upper();
    let mut v = vec![lo.clone()];
    for c in CUTS {
        let x = parse_decimal(c, bits).unwrap();
        if x > lo && x < hi {
            v.push(x);
        }
    }
    v.push(hi);
    v
}

/// ∫_a^b x^j f(x) dx with f the density of `r`, by quadrature at `qbits`.
fn quad_moment(r: &dyn JobSize, j: i32, a: &Float, b: &Float, qbits: u32) -> QuadResult {
    integrate_positive(qbits, a, b, |x| {
        let f = r.density(x).unwrap();
        let p = x.prec();
        match j {
            -1 => Float::with_val(p, &f / x),
            0 => Float::with_val(p, f),
            1 => Float::with_val(p, &f * x),
            _ => Float::with_val(p, &f * x) * x,
        }
    })
    .unwrap()
}

/// Whether E[1/X; X ≤ b] diverges for a spec, decided from the family and its parameters
/// (not by asking the implementation): ∫_0 x^-1 f(x) dx diverges when f(0+) > 0 (exp,
/// hyperexp, uniform from 0, Erlang with one phase) or f(x) ~ x^(k−1) with k ≤ 1 (Weibull); the lognormal density
/// vanishes faster than any power at 0, and the other families start above 0.
fn inverse_diverges_at_zero(spec: &str) -> bool {
    let (family, rest) = spec.split_once(':').unwrap();
    let value = |key: &str| {
        rest.split(',')
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            .map(|v| parse_decimal(v, 64).unwrap())
    };
    match family {
        "exp" | "hyperexp" => true,
        "uniform" => value("a").is_some_and(|a| a.is_zero()),
        "weibull" => value("shape").is_some_and(|k| k <= 1),
        // f(x) ~ x^(k−1): E[1/X] near 0 diverges only for k = 1 (the exponential).
        "erlang" => value("k").is_some_and(|k| k == 1),
        _ => false,
    }
}

/// A direct computation of M_j(a, b) at a precision (for the discrete families).
type DirectSum<'a> = &'a dyn Fn(i32, &Float, &Float, u32) -> Float;

/// The exact decimal expansion of a binary float (m·2^e = m·5^(−e)·10^e), so that a spec
/// rebuilt from it at more bits has exactly the same parameters.
fn exact_decimal(x: &Float) -> String {
    if x.is_zero() {
        // to_integer_exp gives zero a huge negative exponent (5^(2^30) would be computed).
        return "0".into();
    }
    let (m, e) = x.to_integer_exp().unwrap();
    if e >= 0 {
        (m << e.unsigned_abs()).to_string()
    } else {
        let f = m * Integer::from(Integer::u_pow_u(5, e.unsigned_abs()));
        format!("{f}e{e}")
    }
}

/// The spec with every number replaced by the exact decimal value it has at `bits`.
/// A reference built from it at more bits has the same parameters as the spec built at
/// `bits`, so the comparison measures the formulas, not the rounding of 0.1 (whose effect
/// on e^(−0.1·x) at x = 10^5 is 2^13 times larger than the rounding itself).
fn exact_spec(spec: &str, bits: u32) -> String {
    let (family, rest) = spec.split_once(':').unwrap();
    if family == "empirical" {
        return spec.to_string();
    }
    let parts: Vec<String> = rest
        .split(',')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            format!("{k}={}", exact_decimal(&parse_decimal(v, bits).unwrap()))
        })
        .collect();
    format!("{family}:{}", parts.join(","))
}

/// The lower end of the first interval: just below an atom at the lower end (det,
/// empirical), so that the atom counts; the end itself otherwise.
fn open_lower(d: &dyn JobSize, a: &Float) -> Float {
    if d.density(a).is_none() && *a == d.lower() {
        d.lower_open()
    } else {
        a.clone()
    }
}

/// M_j over consecutive intervals (ends[i], ends[i+1]] for j = −1, 0, 1, 2, in that order;
/// an infinite moment is +∞.
fn interval_moments(d: &dyn JobSize, ends: &[Float]) -> Vec<Float> {
    let mut out = Vec::new();
    for j in [-1, 0, 1, 2] {
        for w in ends.windows(2) {
            match d.partial_moment(j, &open_lower(d, &w[0]), &w[1]) {
                Ok(m) => out.push(m),
                Err(DistError::InfiniteMoment { .. }) => out.push(inf(d.prec())),
                Err(e) => panic!(
                    "{} j={j} ({}, {}]: {e}",
                    d.family(),
                    message_number(&w[0]),
                    message_number(&w[1])
                ),
            }
        }
    }
    out
}

/// All interval moments of a spec at one precision, checked against quadrature (or a
/// direct sum, `direct`), plus additivity, total mass and tails. Returns the interval
/// ends and the moments (as [`interval_moments`]) for the cross-precision comparison.
fn check_spec_at(spec: &str, bits: u32, direct: Option<DirectSum>) -> (Vec<Float>, Vec<Float>) {
    let d = build(spec, bits);
    let r = build(&exact_spec(spec, bits), bits + REF_EXTRA_BITS);
    let e = ends(d.as_ref(), bits);
    let zero = Float::with_val(bits, 0);
    let inv_inf = inverse_diverges_at_zero(spec);
    let moments = interval_moments(d.as_ref(), &e);
    let mut k = 0;
    for j in [-1, 0, 1, 2] {
        for w in e.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let a_open = open_lower(d.as_ref(), a);
            let m = &moments[k];
            k += 1;
            if j == -1 && a.is_zero() && inv_inf {
                // Source: ∫_0 x^-1 f(x) dx diverges when f(0+) > 0 or f ~ x^(k−1), k ≤ 1.
                let err = d.partial_moment(j, a, b);
                assert!(
                    matches!(err, Err(DistError::InfiniteMoment { .. })),
                    "{spec}: M_-1(0, b) should be infinite, got {err:?}"
                );
                continue;
            }
            assert!(
                m.is_finite(),
                "{spec} j={j} ({}, {}]: infinite",
                message_number(a),
                message_number(b)
            );
            let what = format!(
                "{spec} j={j} ({}, {}] at {bits} bits",
                message_number(a),
                message_number(b)
            );
            match direct {
                // Source: the definition M_j(a,b) = E[X^j; a < X ≤ b] summed over the atoms.
                Some(sum) => assert_close(
                    bits,
                    m,
                    &sum(j, &a_open, b, bits + REF_EXTRA_BITS),
                    &zero,
                    &what,
                ),
                // Source: quadrature of x^j f(x) with its own error estimate.
                None => {
                    let q = quad_moment(r.as_ref(), j, a, b, bits + QUAD_EXTRA_BITS);
                    assert_close(bits, m, &q.value, &q.error, &what);
                }
            }
        }
        // Additivity over consecutive intervals: M(a,b) + M(b,c) = M(a,c).
        for w in e.windows(3) {
            if j == -1 && w[0].is_zero() && inv_inf {
                continue;
            }
            let a = open_lower(d.as_ref(), &w[0]);
            let ab = d.partial_moment(j, &a, &w[1]).unwrap();
            let bc = d.partial_moment(j, &w[1], &w[2]).unwrap();
            let ac = d.partial_moment(j, &a, &w[2]).unwrap();
            let sum = Float::with_val(bits, &ab + &bc);
            assert_close(
                bits,
                &sum,
                &ac,
                &zero,
                &format!("{spec} additivity j={j} at {}", message_number(&w[1])),
            );
        }
    }
    // Total mass 1 (source: a probability distribution).
    assert_close(
        bits,
        &d.moment(0).unwrap(),
        &Float::with_val(bits, 1),
        &zero,
        &format!("{spec} total mass"),
    );
    // tail(x) = M_0(x, upper) (source: the definition F̄(x) = P(X > x)).
    for x in &e[..e.len() - 1] {
        let t = d.tail(x);
        let m = d.partial_moment(0, x, &d.upper()).unwrap();
        assert_close(
            bits,
            &t,
            &m,
            &zero,
            &format!("{spec} tail at {}", message_number(x)),
        );
    }
    (e, moments)
}

/// Checks a spec at both precisions, then compares the lower precision's moments with the
/// same moments (same parameters, same interval ends) at the higher precision.
fn check_spec(spec: &str, direct: Option<DirectSum>) {
    let (ends_lo, lo) = check_spec_at(spec, PRECISIONS[0], direct);
    check_spec_at(spec, PRECISIONS[1], direct);
    let d_hi = build(&exact_spec(spec, PRECISIONS[0]), PRECISIONS[1]);
    // Atoms (det, empirical) are parsed at each precision, and so are their cut points,
    // so that a cut at an atom stays at it; continuous families keep the lower ends.
    let ends_hi = if direct.is_some() {
        ends(d_hi.as_ref(), PRECISIONS[1])
    } else {
        ends_lo
    };
    let hi = interval_moments(d_hi.as_ref(), &ends_hi);
    assert_eq!(lo.len(), hi.len(), "{spec}: interval sets differ");
    let zero = Float::with_val(PRECISIONS[0], 0);
    for (i, (l, h)) in lo.iter().zip(&hi).enumerate() {
        if l.is_infinite() && h.is_infinite() {
            continue;
        }
        // Source: the same quantity at 400 bits, correct to the lower precision's bits.
        assert_close(
            PRECISIONS[0],
            l,
            h,
            &zero,
            &format!("{spec} two precisions, moment #{i}"),
        );
    }
}

/// Bounded Pareto BP(1, p, α) for p = 10, 10^3, 10^6 (one test per α, so they run in
/// parallel).
fn check_bounded_pareto(alpha: &str) {
    for p in ["10", "1000", "1e6"] {
        check_spec(&format!("bp:k=1,p={p},alpha={alpha}"), None);
    }
}

#[test]
fn bounded_pareto_alpha_0_5_against_quadrature() {
    check_bounded_pareto("0.5");
}

#[test]
fn bounded_pareto_alpha_1_against_quadrature() {
    check_bounded_pareto("1");
}

#[test]
fn bounded_pareto_alpha_1_5_against_quadrature() {
    check_bounded_pareto("1.5");
}

#[test]
fn bounded_pareto_alpha_2_against_quadrature() {
    check_bounded_pareto("2");
}

#[test]
fn bounded_pareto_alpha_2_5_against_quadrature() {
    check_bounded_pareto("2.5");
}

#[test]
fn pareto_against_quadrature() {
    for alpha in ["2.5", "3"] {
        check_spec(&format!("pareto:k=1,alpha={alpha}"), None);
    }
}

#[test]
fn exponential_uniform_hyperexp_against_quadrature() {
    for spec in [
        "exp:rate=2",
        "uniform:a=0.5,b=3",
        "uniform:a=0,b=2.5",
        "hyperexp:p=0.1,rate1=0.1,rate2=10",
    ] {
        check_spec(spec, None);
    }
}

#[test]
fn weibull_against_quadrature() {
    for shape in ["0.5", "1", "2"] {
        check_spec(&format!("weibull:shape={shape},scale=1.5"), None);
    }
}

#[test]
fn erlang_against_quadrature() {
    for spec in [
        "erlang:k=1,rate=2",
        "erlang:k=4,rate=4",
        "erlang:k=12,rate=0.5",
    ] {
        check_spec(spec, None);
    }
}

#[test]
fn mean_and_scv_forms_have_their_mean_and_scv() {
    // The forms by mean and squared coefficient of variation (the redundancy literature's
    // parametrisation): E[X] = m and E[X²]/E[X]² − 1 = c² from the built law's own moments
    // (each family's moments are checked against quadrature above), and the balanced
    // means of the hyperexponential: p/rate1 = (1 − p)/rate2 = m/2, i.e. the tail at 0+
    // of each branch carries half the mean — checked through E[X; X > x] symmetry below.
    let bits = 200;
    let zero = Float::with_val(bits, 0);
    let n = |s: &str| parse_decimal(s, bits).unwrap();
    for (spec, m, c2) in [
        ("hyperexp:mean=1,scv=20", "1", "20"),
        ("hyperexp:mean=2.5,scv=1", "2.5", "1"),
        ("lognormal:mean=1,scv=4", "1", "4"),
        ("lognormal:mean=3,scv=0.25", "3", "0.25"),
        ("erlang:k=4,rate=4", "1", "0.25"),
    ] {
        let d = build(spec, bits);
        let mean = d.mean().unwrap();
        assert_close(bits - 24, &mean, &n(m), &zero, &format!("{spec} mean"));
        let scv = Float::with_val(
            bits,
            d.moment(2).unwrap() / Float::with_val(bits, mean.square_ref()),
        ) - 1u32;
        assert_close(bits - 24, &scv, &n(c2), &zero, &format!("{spec} scv"));
    }
    // Weibull by shape and mean: E[X] = m; shape 0.5 has SCV Γ(5)/Γ(3)² − 1 = 24/4 − 1 = 5.
    let d = build("weibull:shape=0.5,mean=1", bits);
    assert_close(
        bits - 24,
        &d.mean().unwrap(),
        &n("1"),
        &zero,
        "weibull mean",
    );
    assert_close(
        bits - 24,
        &d.moment(2).unwrap(),
        &n("6"),
        &zero,
        "weibull E[X^2]",
    );
    // The same law written both ways: weibull:shape=2,mean=√π/2 is weibull:shape=2,scale=1.
    let a = build("weibull:shape=2,scale=1", bits);
    let sqrt_pi_half = Float::with_val(bits, Constant::Pi).sqrt() / 2u32;
    let b = build(
        &format!(
            "weibull:shape=2,mean={}",
            taskassign::num::to_sci(&sqrt_pi_half, 60)
        ),
        bits,
    );
    assert_close(
        bits - 24,
        &b.tail(&n("1.3")),
        &a.tail(&n("1.3")),
        &zero,
        "weibull forms",
    );
    // Bad forms: scv < 1 for the balanced hyperexponential, mixed keys, a missing key.
    for bad in [
        "hyperexp:mean=1,scv=0.5",
        "hyperexp:mean=1,rate1=2",
        "lognormal:mean=1",
        "erlang:k=2.5,rate=1",
        "weibull:shape=0,mean=1",
    ] {
        assert!(DistSpec::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn lognormal_against_quadrature() {
    for spec in ["lognormal:mu=0,sigma=0.5", "lognormal:mu=0.5,sigma=2"] {
        check_spec(spec, None);
    }
}

/// Σ over the atoms `xs` (decimal strings, each of probability 1/n) with a < x ≤ b.
fn atom_sum(xs: &[&str], j: i32, a: &Float, b: &Float, bits: u32) -> Float {
    let mut s = Float::with_val(bits, 0);
    for x in xs {
        let v = parse_decimal(x, bits).unwrap();
        if v > *a && v <= *b {
            s += Float::with_val(bits, v.pow_ref_i32(j));
        }
    }
    s / xs.len() as u32
}

/// x^j for the small integer orders used here.
trait PowI32 {
    fn pow_ref_i32(&self, j: i32) -> Float;
}

impl PowI32 for Float {
    fn pow_ref_i32(&self, j: i32) -> Float {
        let p = self.prec();
        match j {
            -1 => Float::with_val(p, self.recip_ref()),
            0 => Float::with_val(p, 1),
            1 => self.clone(),
            _ => Float::with_val(p, self.square_ref()),
        }
    }
}

#[test]
fn deterministic_against_direct_sums() {
    let xs = ["1.7"];
    check_spec(
        "det:x=1.7",
        Some(&|j, a, b, bits| atom_sum(&xs, j, a, b, bits)),
    );
}

#[test]
fn empirical_against_direct_sums() {
    let path = empirical_file("moments");
    let spec = format!("empirical:file={path}");
    check_spec(
        &spec,
        Some(&|j, a, b, bits| atom_sum(&EMPIRICAL_SIZES, j, a, b, bits)),
    );
    // Quantile: smallest sample with CDF ≥ u (12 samples: u = 3/12 gives the third, 0.3).
    let d = build(&spec, 100);
    assert_eq!(
        d.quantile(&(Float::with_val(100, 3) / 12u32)).unwrap(),
        parse_decimal("0.3", 100).unwrap()
    );
    // sup x F̄(x) = max_i x_(i) P(X ≥ x_(i)): 123456.789 · 1/12 (source: step tail).
    let (_, v) = d.sup_x_tail().unwrap();
    let e = parse_decimal("123456.789", 100).unwrap() / 12u32;
    assert_close(
        100,
        &v,
        &e,
        &Float::with_val(100, 0),
        "empirical sup x F(x)",
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn closed_forms() {
    let bits = 400;
    let zero = Float::with_val(bits, 0);
    let n = |s: &str| parse_decimal(s, bits).unwrap();
    // BP α = 1: E[X] = k ln(p/k)/(1 − k/p) (∫_k^p x · k x^-2/(1 − k/p) dx).
    for p in ["10", "1e6"] {
        let d = build(&format!("bp:k=1,p={p},alpha=1"), bits);
        let pf = n(p);
        let e = Float::with_val(bits, pf.ln_ref()) / (1u32 - Float::with_val(bits, pf.recip_ref()));
        assert_close(bits, &d.mean().unwrap(), &e, &zero, "bp alpha=1 mean");
    }
    // BP α = 2: E[X] = 2k/(1 + k/p), E[X²] = 2k² ln(p/k)/(1 − (k/p)²) (same integrals).
    {
        let d = build("bp:k=1,p=1e6,alpha=2", bits);
        let r = Float::with_val(bits, n("1e6").recip_ref());
        let e1 = Float::with_val(bits, 2) / (Float::with_val(bits, &r + 1u32));
        assert_close(bits, &d.mean().unwrap(), &e1, &zero, "bp alpha=2 mean");
        let e2 = Float::with_val(bits, n("1e6").ln_ref()) * 2u32
            / (1u32 - Float::with_val(bits, r.square_ref()));
        assert_close(
            bits,
            &d.moment(2).unwrap(),
            &e2,
            &zero,
            "bp alpha=2 second moment",
        );
    }
    // Pareto α = 3, k = 1: E[X] = αk/(α−1) = 3/2, E[X²] = αk²/(α−2) = 3.
    {
        let d = build("pareto:k=1,alpha=3", bits);
        assert_close(bits, &d.mean().unwrap(), &n("1.5"), &zero, "pareto mean");
        assert_close(bits, &d.moment(2).unwrap(), &n("3"), &zero, "pareto E[X^2]");
    }
    // Weibull shape 1, scale 2 is Exp(rate 1/2): every partial moment agrees with the
    // exponential's closed forms (eint for j = −1).
    {
        let w = build("weibull:shape=1,scale=2", bits);
        let e = build("exp:rate=0.5", bits);
        let pts = ["0", "0.3", "1", "2.5", "7", "30", "1000"];
        for j in [-1, 0, 1, 2] {
            for k in 0..pts.len() {
                if j == -1 && k == 0 {
                    continue;
                }
                let a = n(pts[k]);
                let b = if k + 1 < pts.len() {
                    n(pts[k + 1])
                } else {
                    inf(bits)
                };
                let x = w.partial_moment(j, &a, &b).unwrap();
                let y = e.partial_moment(j, &a, &b).unwrap();
                assert_close(
                    bits,
                    &x,
                    &y,
                    &zero,
                    &format!("weibull(1) vs exp, j={j} from {}", pts[k]),
                );
            }
        }
    }
    // Weibull: E[X^j] = λ^j Γ(1 + j/k) (e.g. Johnson, Kotz & Balakrishnan, vol. 1, §21.3).
    for (shape, scale) in [("0.5", "1.5"), ("2", "1.5"), ("3.5", "0.01")] {
        let d = build(&format!("weibull:shape={shape},scale={scale}"), bits);
        for j in [1, 2] {
            let s = Float::with_val(bits, j) / n(shape) + 1u32;
            let e = s.gamma() * Float::with_val(bits, n(scale).pow_ref_i32(j));
            assert_close(
                bits,
                &d.moment(j).unwrap(),
                &e,
                &zero,
                &format!("weibull({shape}) E[X^{j}]"),
            );
        }
    }
    // Weibull sup x F̄(x) = λ k^(−1/k) e^(−1/k) (maximiser of x e^(−(x/λ)^k)).
    {
        let d = build("weibull:shape=2,scale=1.5", bits);
        let (_, v) = d.sup_x_tail().unwrap();
        let e = n("1.5") / n("2").sqrt() * Float::with_val(bits, -0.5).exp();
        assert_close(bits, &v, &e, &zero, "weibull sup x F(x)");
    }
    // Lognormal: E[X^j] = e^(jμ + j²σ²/2) (JKB vol. 1, §14.3); the median e^μ has mass 1/2.
    {
        let (mu, sigma) = (n("0.5"), n("2"));
        let d = build("lognormal:mu=0.5,sigma=2", bits);
        for j in [-1i32, 1, 2] {
            let jf = Float::with_val(bits, j);
            let ex = Float::with_val(bits, &jf * &mu)
                + Float::with_val(bits, &jf * &jf) * Float::with_val(bits, sigma.square_ref())
                    / 2u32;
            assert_close(
                bits,
                &d.moment(j).unwrap(),
                &ex.exp(),
                &zero,
                &format!("lognormal E[X^{j}]"),
            );
        }
        let median = Float::with_val(bits, mu.exp_ref());
        assert_close(bits, &d.cdf(&median), &n("0.5"), &zero, "lognormal median");
        assert_close(
            bits,
            &d.quantile(&n("0.5")).unwrap(),
            &median,
            &zero,
            "lognormal quantile(1/2)",
        );
    }
    // Exponential rate μ: E[X] = 1/μ, E[X²] = 2/μ²; uniform(a,b): E[1/X] = ln(b/a)/(b−a);
    // hyperexponential: E[X] = p/μ1 + (1−p)/μ2.
    {
        let d = build("exp:rate=2", bits);
        assert_close(bits, &d.mean().unwrap(), &n("0.5"), &zero, "exp mean");
        assert_close(bits, &d.moment(2).unwrap(), &n("0.5"), &zero, "exp E[X^2]");
        let d = build("uniform:a=0.5,b=3", bits);
        let e = Float::with_val(bits, 6).ln() / n("2.5");
        assert_close(bits, &d.moment(-1).unwrap(), &e, &zero, "uniform E[1/X]");
        let d = build("hyperexp:p=0.1,rate1=0.1,rate2=10", bits);
        assert_close(bits, &d.mean().unwrap(), &n("1.09"), &zero, "hyperexp mean");
    }
}

#[test]
fn infinite_moments_are_errors() {
    let bits = 100;
    let one = Float::with_val(bits, 1);
    let zero = Float::with_val(bits, 0);
    // Pareto α = 1.5: E[X²] = ∫ x² α x^(−α−1) dx diverges at ∞.
    let d = build("pareto:k=1,alpha=1.5", bits);
    assert!(matches!(d.moment(2), Err(DistError::InfiniteMoment { .. })));
    assert!(d.moment(1).is_ok());
    // Exponential: ∫_0 x^-1 μ e^(−μx) dx diverges at 0.
    let d = build("exp:rate=1", bits);
    assert!(matches!(
        d.partial_moment(-1, &zero, &one),
        Err(DistError::InfiniteMoment { .. })
    ));
    // Weibull shape ≤ 1: f(x) ~ x^(k−1) at 0, so E[1/X] diverges; shape 2 it is √π/λ·… finite.
    for shape in ["0.5", "1"] {
        let d = build(&format!("weibull:shape={shape},scale=1"), bits);
        assert!(matches!(
            d.partial_moment(-1, &zero, &one),
            Err(DistError::InfiniteMoment { .. })
        ));
    }
    assert!(build("weibull:shape=2,scale=1", bits).moment(-1).is_ok());
    // Uniform on [0, b]: E[1/X] diverges.
    let d = build("uniform:a=0,b=1", bits);
    assert!(matches!(
        d.moment(-1),
        Err(DistError::InfiniteMoment { .. })
    ));
}

#[test]
fn bounded_pareto_with_huge_p_has_finite_moments() {
    for bits in PRECISIONS {
        for p in ["1e1000", "1e100000"] {
            for alpha in ["0.5", "1", "1.5", "2"] {
                let spec = format!("bp:k=1,p={p},alpha={alpha}");
                let d = build(&spec, bits);
                for j in [-1, 0, 1, 2] {
                    let m = d.moment(j).unwrap();
                    assert!(
                        m.is_finite() && m > 0,
                        "{spec} j={j}: {}",
                        message_number(&m)
                    );
                }
                assert_close(
                    bits,
                    &d.moment(0).unwrap(),
                    &Float::with_val(bits, 1),
                    &Float::with_val(bits, 0),
                    &spec,
                );
            }
            // α = 1: E[X] = ln p/(1 − 1/p) (closed form above), e.g. 100000·ln 10.
            let d = build(&format!("bp:k=1,p={p},alpha=1"), bits);
            let pf = parse_decimal(p, bits).unwrap();
            let e =
                Float::with_val(bits, pf.ln_ref()) / (1u32 - Float::with_val(bits, pf.recip_ref()));
            assert_close(
                bits,
                &d.mean().unwrap(),
                &e,
                &Float::with_val(bits, 0),
                &format!("{p} mean"),
            );
        }
    }
}

#[test]
fn quadrature_against_closed_forms_in_integration_test() {
    // The library's quadrature on a density with known integral: Weibull shape 2 on
    // (0, ∞) has E[X] = λ√π/2, computed here from the density with the ln substitution.
    let bits = 200;
    let d = build("weibull:shape=2,scale=1.5", bits + REF_EXTRA_BITS);
    let q = quad_moment(d.as_ref(), 1, &Float::with_val(bits, 0), &inf(bits), bits);
    let e = Float::with_val(bits, Constant::Pi).sqrt() * parse_decimal("0.75", bits).unwrap();
    let err = Float::with_val(bits, &q.value - &e).abs();
    assert!(
        err <= q.error,
        "{} vs {}",
        message_number(&q.value),
        message_number(&e)
    );
}

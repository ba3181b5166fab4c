//! Policy formulas against independent closed forms, written out here by hand.

mod common;
use rug::Float;
use taskassign::dist::{DistFactory, DistSpec, JobSize};
use taskassign::num::parse_decimal;
use taskassign::policy::{evaluate, LoadSpec, Metric, PolicyKind};

/// Working precision of these tests (about 38 digits).
const BITS: u32 = 128;
/// Relative agreement required between the library and a closed form evaluated here at
/// the same precision: 2^-110 · |want|, leaving 18 bits for rounding in either.
const REL_TOL_BITS: u32 = 110;

fn f(x: &str) -> Float {
    parse_decimal(x, BITS).unwrap()
}

fn build(spec: &str) -> Box<dyn JobSize> {
    DistSpec::parse(spec).unwrap().build(BITS).unwrap()
}

/// |got − want| ≤ 2^-[`REL_TOL_BITS`] · |want| ([`common::assert_close`]).
fn assert_close(what: &str, got: &Float, want: &Float) {
    let tol = Float::with_val(BITS, want.abs_ref()) >> REL_TOL_BITS;
    common::assert_close(what, got, want, &tol);
}

fn eval(
    p: PolicyKind,
    d: &dyn JobSize,
    lambda: &Float,
    h: usize,
    cut: &[Float],
    m: Metric,
) -> taskassign::policy::Evaluation {
    evaluate(p, d, lambda, h, cut, m).unwrap()
}

#[test]
fn one_host_is_mm1_for_exponential_sizes() {
    // M/M/1 with μ = 1: W = ρ/(1−ρ), response 1/(1−ρ), and E[W/X] = ∞ (E[1/X] = ∞).
    let d = build("exp:rate=1");
    for rho in ["0.1", "0.5", "0.9", "0.99"] {
        let r = f(rho);
        let want = Float::with_val(BITS, &r / (Float::with_val(BITS, 1) - &r));
        for p in [PolicyKind::Sita, PolicyKind::Tags, PolicyKind::Random] {
            let e = eval(p, d.as_ref(), &r, 1, &[], Metric::Waiting);
            assert_close(&format!("{p:?} ρ={rho}"), &e.value, &want);
            let resp = eval(p, d.as_ref(), &r, 1, &[], Metric::Response);
            assert_close(
                "response",
                &resp.value,
                &(Float::with_val(BITS, &want + 1u32)),
            );
            assert!(evaluate(p, d.as_ref(), &r, 1, &[], Metric::Slowdown).is_err());
        }
    }
}

#[test]
fn one_host_is_pollaczek_khinchine() {
    // BP(1, p, 1): E[X] = ln p / (1 − 1/p), E[X²] = p (closed form: ∫_1^p x² x^-2 dx / (1 − 1/p)
    // = (p − 1)/(1 − 1/p) = p), E[1/X] = (1 − 1/p²)/2 / (1 − 1/p) = (1 + 1/p)/2.
    for p in ["10", "1e6", "1e30"] {
        let d = build(&format!("bp:k=1,p={p},alpha=1"));
        let pf = f(p);
        let one = Float::with_val(BITS, 1);
        let norm = Float::with_val(BITS, &one - Float::with_val(BITS, &one / &pf));
        let mean = Float::with_val(BITS, pf.ln_ref()) / &norm;
        for rho in ["0.3", "0.8"] {
            let r = f(rho);
            let lambda = Float::with_val(BITS, &r / &mean);
            let w =
                Float::with_val(BITS, &lambda * &pf) / (Float::with_val(BITS, &one - &r) * 2u32);
            let inv = (Float::with_val(BITS, &one / &pf) + 1u32) / 2u32;
            for pol in [PolicyKind::Sita, PolicyKind::Tags] {
                let e = eval(pol, d.as_ref(), &lambda, 1, &[], Metric::Waiting);
                assert_close("P-K waiting", &e.value, &w);
                assert!(e.wasted.is_zero());
                let s = eval(pol, d.as_ref(), &lambda, 1, &[], Metric::Slowdown);
                assert_close("P-K slowdown", &s.value, &Float::with_val(BITS, &w * &inv));
            }
        }
    }
}

#[test]
fn random_is_pk_with_split_stream() {
    // Uniform(0,1): E[X²] = 1/3; h hosts each get λ/h: W = (λ/h)(1/3)/(2(1 − ρ/h)).
    let d = build("uniform:a=0,b=1");
    for h in [1usize, 2, 5] {
        let rho = f("0.7") * Float::with_val(BITS, h);
        let lambda = Float::with_val(BITS, &rho * 2u32);
        let lh = Float::with_val(BITS, &lambda / Float::with_val(BITS, h));
        let want = Float::with_val(BITS, &lh / 3u32)
            / ((Float::with_val(BITS, 1) - Float::with_val(BITS, &lh / 2u32)) * 2u32);
        let e = eval(
            PolicyKind::Random,
            d.as_ref(),
            &lambda,
            h,
            &[],
            Metric::Waiting,
        );
        assert_close("random", &e.value, &want);
    }
}

#[test]
fn sita_two_hosts_exponential_by_hand() {
    // Exp(1), cutoff s: M0 = 1 − e^-s, M1 = 1 − (1+s)e^-s, M2 = 2 − (s²+2s+2)e^-s on (0,s],
    // and the complements on (s,∞); W = Σ M0_i λ M2_i / (2(1 − λ M1_i)).
    let d = build("exp:rate=1");
    // λ = 0.9 keeps both hosts stable for every s below (largest load 0.9·1.5e^-0.5 ≈ 0.82).
    let lambda = f("0.9");
    for s in ["0.5", "1", "2.5"] {
        let s = f(s);
        let e = Float::with_val(BITS, (-s.clone()).exp_ref());
        let m0a = Float::with_val(BITS, 1) - &e;
        let m1a = Float::with_val(BITS, 1) - Float::with_val(BITS, &s + 1u32) * &e;
        let q = Float::with_val(BITS, &s * &s) + Float::with_val(BITS, &s * 2u32) + 2u32;
        let m2a = Float::with_val(BITS, 2) - Float::with_val(BITS, &q * &e);
        let (m0b, m1b, m2b) = (
            e.clone(),
            Float::with_val(BITS, &s + 1u32) * &e,
            Float::with_val(BITS, &q * &e),
        );
        let w = |m0: &Float, m1: &Float, m2: &Float| {
            let rho = Float::with_val(BITS, &lambda * m1);
            Float::with_val(BITS, m0 * &lambda) * m2 / ((Float::with_val(BITS, 1) - rho) * 2u32)
        };
        let want = w(&m0a, &m1a, &m2a) + w(&m0b, &m1b, &m2b);
        let got = eval(
            PolicyKind::Sita,
            d.as_ref(),
            &lambda,
            2,
            std::slice::from_ref(&s),
            Metric::Waiting,
        );
        assert_close("sita exp", &got.value, &want);
        assert_close(
            "host load 1",
            &got.host_loads[0],
            &Float::with_val(BITS, &lambda * &m1a),
        );
    }
}

#[test]
fn tags_two_hosts_uniform_by_hand() {
    // Uniform(0,1), cutoff s. Host 1 serves min(X,s): E = s − s²/2, E[min²] = s³/3 + s²(1−s).
    // Host 2 sees X > s and serves X: λ E[X; X>s] = λ(1−s²)/2, λ E[X²; X>s] = λ(1−s³)/3.
    // E[W] = Q1 + (1−s) Q2 + s(1−s) (queueing + wasted s·F̄(s)).
    let d = build("uniform:a=0,b=1");
    let lambda = f("1.5");
    for s in ["0.3", "0.5", "0.8"] {
        let s = f(s);
        let one = Float::with_val(BITS, 1);
        let s2 = Float::with_val(BITS, &s * &s);
        let s3 = Float::with_val(BITS, &s2 * &s);
        let tail = Float::with_val(BITS, &one - &s);
        let r1 = Float::with_val(
            BITS,
            &lambda * Float::with_val(BITS, &s - Float::with_val(BITS, &s2 / 2u32)),
        );
        let m21 = Float::with_val(BITS, &s3 / 3u32) + Float::with_val(BITS, &s2 * &tail);
        let q1 = Float::with_val(BITS, &lambda * &m21) / (Float::with_val(BITS, &one - &r1) * 2u32);
        let r2 = Float::with_val(BITS, &lambda * Float::with_val(BITS, &one - &s2)) / 2u32;
        let m22 = Float::with_val(BITS, &one - &s3) / 3u32;
        let q2 = Float::with_val(BITS, &lambda * &m22) / (Float::with_val(BITS, &one - &r2) * 2u32);
        let wasted = Float::with_val(BITS, &s * &tail);
        let queueing = Float::with_val(BITS, &q1 + Float::with_val(BITS, &tail * &q2));
        let got = eval(
            PolicyKind::Tags,
            d.as_ref(),
            &lambda,
            2,
            std::slice::from_ref(&s),
            Metric::Waiting,
        );
        assert_close("tags rho1", &got.host_loads[0], &r1);
        assert_close("tags rho2", &got.host_loads[1], &r2);
        assert_close("tags queueing", &got.queueing, &queueing);
        assert_close("tags wasted", &got.wasted, &wasted);
        assert_close(
            "tags total",
            &got.value,
            &Float::with_val(BITS, &queueing + &wasted),
        );
    }
}

#[test]
fn tags_slowdown_by_size_class() {
    // E[W/X] = Σ_j E[1/X; class j] (Σ_{i≤j} Q_i + Σ_{i<j} s_i): summed per class here, by
    // quadrature-free closed forms of the uniform(1,2) law (E[1/X; a<X≤b] = ln(b/a)).
    let d = build("uniform:a=1,b=2");
    let lambda = f("0.5");
    let cut = [f("1.2"), f("1.5")];
    let e = eval(
        PolicyKind::Tags,
        d.as_ref(),
        &lambda,
        3,
        &cut,
        Metric::Slowdown,
    );
    let w = eval(
        PolicyKind::Tags,
        d.as_ref(),
        &lambda,
        3,
        &cut,
        Metric::Waiting,
    );
    let q = &w.host_waiting;
    let bounds = [f("1"), cut[0].clone(), cut[1].clone(), f("2")];
    let mut want = Float::with_val(BITS, 0);
    for j in 0..3 {
        let inv = Float::with_val(BITS, &bounds[j + 1] / &bounds[j]).ln();
        let mut wj = Float::with_val(BITS, 0);
        for qi in q.iter().take(j + 1) {
            wj += qi;
        }
        for si in cut.iter().take(j) {
            wj += si;
        }
        want += inv * wj;
    }
    assert_close("tags slowdown", &e.value, &want);
}

#[test]
fn unstable_cutoffs_give_infinite_mean_not_nan() {
    let d = build("exp:rate=1");
    let e = eval(
        PolicyKind::Tags,
        d.as_ref(),
        &f("1.4"),
        2,
        &[f("0.1")],
        Metric::Waiting,
    );
    assert!(!e.stable);
    assert!(e.value.is_infinite() && !e.value.is_nan());
}

#[test]
fn loads_resolve_with_the_tags_convention() {
    // ρ = λ E[X]; --load-per-host u means ρ = u h.
    let d = build("uniform:a=0,b=2");
    let (l, r) = LoadSpec::Total("1.5".into())
        .resolve(d.as_ref(), 2)
        .unwrap();
    assert_eq!((l.clone(), r), (f("1.5"), f("1.5")));
    let (l2, r2) = LoadSpec::PerHost("0.75".into())
        .resolve(d.as_ref(), 2)
        .unwrap();
    assert_eq!((l2, r2), (l, f("1.5")));
    assert!(LoadSpec::Lambda("0".into()).resolve(d.as_ref(), 2).is_err());
    assert!(LoadSpec::Total("2".into()).resolve(d.as_ref(), 2).is_err());
}

#[test]
fn huge_p_evaluates_without_overflow() {
    for p in ["1e1000", "1e100000"] {
        let d = build(&format!("bp:k=1,p={p},alpha=1"));
        let (lambda, _) = LoadSpec::Total("0.5".into())
            .resolve(d.as_ref(), 2)
            .unwrap();
        let half = Float::with_val(BITS, f(p).sqrt_ref());
        for pol in [PolicyKind::Sita, PolicyKind::Tags] {
            let e = eval(
                pol,
                d.as_ref(),
                &lambda,
                2,
                std::slice::from_ref(&half),
                Metric::Waiting,
            );
            assert!(
                e.stable && e.value.is_finite() && e.value > 0,
                "{pol:?} {p}"
            );
        }
        // SITA with BP α=1 cutoff √p: ρ_1 = ρ_2 (each interval carries half of ln p).
        let e = eval(
            PolicyKind::Sita,
            d.as_ref(),
            &lambda,
            2,
            &[half],
            Metric::Waiting,
        );
        assert_close("equal split", &e.host_loads[0], &e.host_loads[1]);
    }
}

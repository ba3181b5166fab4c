//! Fixed points: closed forms against the generic root finder, d = 1 against M/M/1 and
//! Poisson / Erlang, and two precisions against each other.

use rug::ops::Pow;
use rug::Float;
use taskassign::lb::Limit;
use taskassign::lb::{
    certified_fixed_point as certified, fixed_point, fixed_point_by_root as by_root,
    fixed_point_closed_form as closed_form, FixedPointMethod as Method,
};
use taskassign::lb::{Model, ModelKind};

/// |a − b| ≤ 2^-(bits − slack) · max(|b|, tiny): agreement to the working precision less
/// `slack` bits.
fn agree(a: &Float, b: &Float, bits: u32, slack: u32) -> bool {
    let diff = Float::with_val(bits, a - b).abs();
    let scale = Float::with_val(bits, b.abs_ref()).max(&(Float::with_val(bits, 1) >> 100_000));
    diff <= scale >> (bits - slack)
}

#[test]
fn queues_closed_form_matches_the_root() {
    // s_i = λ^{(d^i − 1)/(d − 1)} (closed form) against the bracketed root of the
    // top-down recursion (for queues the truncated recursion is the closed form's). Both
    // carry the rounding of λ amplified by the exponent e_i = (d^i − 1)/(d − 1) (a
    // relative error of 2^-p in λ is e_i 2^-p in λ^{e_i}), so level i is compared to
    // 2^-(p − 8 − log2 e_i).
    let bits = 200;
    for (lambda, d) in [
        ("0.9", 2u32),
        ("0.5", 3),
        ("0.99", 2),
        ("0.3", 1),
        ("0.95", 1),
    ] {
        let m = Model::new(ModelKind::Queues, lambda, None).unwrap();
        let cf = closed_form(&m, Limit::PowerOfD(d), bits).unwrap().unwrap();
        let root = by_root(&m, d, bits).unwrap();
        assert!(matches!(root.method, Method::Root { .. }));
        let l = Float::with_val(bits, Float::parse(lambda).unwrap());
        for (i, (a, b)) in cf
            .occupancy
            .iter()
            .zip(&root.occupancy)
            .enumerate()
            .take(30)
        {
            let e = if d == 1 {
                (i + 1) as u64
            } else {
                (u64::from(d).pow(i as u32 + 1) - 1) / (u64::from(d) - 1)
            };
            let slack = 8 + 64 - e.leading_zeros();
            assert!(
                agree(b, a, bits, slack),
                "λ {lambda} d {d} level {}: {a} vs {b}",
                i + 1
            );
            // And against the exponent form directly.
            if e < 5000 {
                let direct = Float::with_val(bits, l.clone().pow(e as u32));
                assert!(
                    agree(a, &direct, bits, slack),
                    "λ {lambda} d {d} level {}",
                    i + 1
                );
            }
        }
        assert!(
            agree(&root.mean_tasks, &cf.mean_tasks, bits, 8),
            "λ {lambda} d {d}"
        );
    }
}

#[test]
fn mm1_mean_and_sojourn() {
    // d = 1 is N independent M/M/1 queues: s_i = λ^i, mean λ/(1 − λ), sojourn 1/(1 − λ).
    let m = Model::new(ModelKind::Queues, "0.8", None).unwrap();
    let fp = fixed_point(&m, Limit::PowerOfD(1), 128).unwrap();
    assert!((fp.mean_tasks.to_f64() - 4.0).abs() < 1e-30);
    assert!((fp.mean_sojourn.to_f64() - 5.0).abs() < 1e-30);
    // The root route adds up the truncated tail: 4 to within the truncation 2^-256.
    let r = by_root(&m, 1, 128).unwrap();
    assert!((r.mean_tasks.to_f64() - 4.0).abs() < 1e-15);
}

/// P(Poisson(λ) ≥ i) and Erlang-loss tails in MPFR, from the pmf (independent of the
/// fixed-point recursion).
fn poisson_tails(lambda: &Float, cap: Option<usize>, levels: usize, bits: u32) -> Vec<Float> {
    let top = cap.unwrap_or(levels + 200);
    let mut pmf = Vec::with_capacity(top + 1);
    let mut p = Float::with_val(bits, 1);
    for k in 0..=top {
        pmf.push(p.clone());
        p = Float::with_val(bits, &p * lambda) / (k as u32 + 1);
    }
    let norm: Float = pmf.iter().fold(Float::with_val(bits, 0), |a, b| a + b);
    let mut tails = Vec::new();
    let mut above = Float::with_val(bits, 0);
    let mut rev = vec![Float::with_val(bits, 0); top + 2];
    for k in (0..=top).rev() {
        above += &pmf[k];
        rev[k] = Float::with_val(bits, &above / &norm);
    }
    tails.extend(rev.iter().skip(1).take(levels.min(top)).cloned());
    tails
}

#[test]
fn pools_random_routing_is_poisson_and_erlang() {
    // d = 1: each pool is M/M/∞ (q_i = P(Poisson(λ) ≥ i)), or M/M/B/B with a capacity
    // (truncated Poisson; blocking = Erlang B(λ, B) = π_B).
    let bits = 160;
    for (lambda, cap) in [
        ("2.5", None),
        ("0.7", None),
        ("3", Some(5u32)),
        ("10", Some(8)),
    ] {
        let m = Model::new(ModelKind::Pools, lambda, cap).unwrap();
        let fp = fixed_point(&m, Limit::PowerOfD(1), bits).unwrap();
        let l = m.lambda_at(bits).unwrap();
        let want = poisson_tails(&l, cap.map(|b| b as usize), 20, bits);
        for (i, w) in want.iter().enumerate() {
            if *w < 1e-40 {
                break;
            }
            assert!(
                agree(&fp.occupancy[i], w, bits, 40),
                "λ {lambda} B {cap:?} level {}: {} vs {w}",
                i + 1,
                fp.occupancy[i]
            );
        }
        if let Some(b) = cap {
            // Erlang B: (λ^B/B!) / Σ_{k ≤ B} λ^k/k! = the top tail q_B.
            let eb = &want[b as usize - 1];
            assert!(agree(&fp.blocking, eb, bits, 40), "λ {lambda} B {b}");
        } else {
            assert!(fp.blocking.is_zero());
        }
        // Pools never queue: Little's law gives a sojourn of exactly 1.
        let one = Float::with_val(bits, 1);
        assert!(
            agree(&fp.mean_sojourn, &one, bits, 40),
            "λ {lambda}: {}",
            fp.mean_sojourn
        );
    }
}

#[test]
fn queues_with_buffer_d1_is_mm1b() {
    // Queues, d = 1, buffer b: M/M/1/b, π_k ∝ λ^k (k ≤ b), q_i = Σ_{k ≥ i} π_k,
    // blocking π_b (the d = 1 sampled server is full).
    let bits = 128;
    let (lambda, b) = (1.3f64, 6u32);
    let m = Model::new(ModelKind::Queues, "1.3", Some(b)).unwrap();
    let fp = fixed_point(&m, Limit::PowerOfD(1), bits).unwrap();
    let norm: f64 = (0..=b).map(|k| lambda.powi(k as i32)).sum();
    for i in 1..=b as usize {
        let want: f64 = (i..=b as usize).map(|k| lambda.powi(k as i32)).sum::<f64>() / norm;
        assert!(
            (fp.occupancy[i - 1].to_f64() - want).abs() < 1e-14,
            "level {i}"
        );
    }
    let pb = lambda.powi(b as i32) / norm;
    assert!((fp.blocking.to_f64() - pb).abs() < 1e-14);
}

#[test]
fn buffered_queues_fixed_point_satisfies_the_equations() {
    // d = 2, b = 4, λ = 0.95: the root must satisfy the un-summed equations
    // λ(q_{i−1}^2 − q_i^2) = q_i − q_{i+1} to the working precision.
    let bits = 256;
    let m = Model::new(ModelKind::Queues, "0.95", Some(4)).unwrap();
    let fp = fixed_point(&m, Limit::PowerOfD(2), bits).unwrap();
    let l = m.lambda_at(bits).unwrap();
    let q = |i: usize| -> Float {
        if i == 0 {
            Float::with_val(bits, 1)
        } else {
            fp.occupancy
                .get(i - 1)
                .cloned()
                .unwrap_or(Float::with_val(bits, 0))
        }
    };
    for i in 1..=4 {
        let lhs = Float::with_val(bits, q(i - 1).square() - q(i).square()) * &l;
        let rhs = Float::with_val(bits, q(i) - q(i + 1));
        assert!(agree(&lhs, &rhs, bits, 12), "level {i}: {lhs} vs {rhs}");
    }
    // Blocking q_b^d and throughput: λ(1 − q_4^2) = q_1 (departures = accepted arrivals).
    let acc = Float::with_val(bits, 1u32 - Float::with_val(bits, q(4).square())) * &l;
    assert!(agree(&acc, &q(1), bits, 12));
}

#[test]
fn jsq_closed_forms() {
    // d → ∞: queues (λ, 0, …); pools min{1, max{0, λ − i + 1}}; capacities discard
    // 1 − 1/λ (queues) and 1 − B/λ (pools) when overloaded.
    let m = Model::new(ModelKind::Queues, "0.9", None).unwrap();
    let fp = fixed_point(&m, Limit::Jsq, 64).unwrap();
    assert_eq!(fp.occupancy.len(), 1);
    assert_eq!(fp.occupancy[0].to_f64(), 0.9);
    assert!((fp.mean_sojourn.to_f64() - 1.0).abs() < 1e-18);
    let m = Model::new(ModelKind::Queues, "2", Some(3)).unwrap();
    let fp = fixed_point(&m, Limit::Jsq, 64).unwrap();
    assert_eq!(fp.blocking.to_f64(), 0.5);
    assert_eq!(fp.mean_tasks.to_f64(), 3.0);
    assert!(fixed_point(
        &Model::new(ModelKind::Queues, "1", Some(3)).unwrap(),
        Limit::Jsq,
        64
    )
    .is_err());
    let m = Model::new(ModelKind::Pools, "4.5", Some(4)).unwrap();
    let fp = fixed_point(&m, Limit::Jsq, 64).unwrap();
    assert_eq!(
        fp.occupancy.iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        vec![1.0; 4]
    );
    assert!((fp.blocking.to_f64() - (1.0 - 4.0 / 4.5)).abs() < 1e-15);
    // Large d approaches the JSQ fixed point (pools, λ = 2.5: (1, 1, 0.5)).
    let m = Model::new(ModelKind::Pools, "2.5", None).unwrap();
    let fp = fixed_point(&m, Limit::PowerOfD(200), 128).unwrap();
    let q: Vec<f64> = fp.occupancy.iter().take(4).map(|x| x.to_f64()).collect();
    assert!(
        (q[0] - 1.0).abs() < 1e-3 && (q[1] - 1.0).abs() < 1e-2,
        "{q:?}"
    );
    assert!((q[2] - 0.5).abs() < 0.05 && q[3] < 0.05, "{q:?}");
}

#[test]
fn two_precisions_agree() {
    // Certified at 40 digits: every printed level and mean has its 40 digits.
    for (kind, lambda, cap, limit) in [
        (ModelKind::Pools, "3.7", None, Limit::PowerOfD(2)),
        (ModelKind::Pools, "1.5", Some(3u32), Limit::PowerOfD(3)),
        (ModelKind::Queues, "0.97", Some(10), Limit::PowerOfD(2)),
        (ModelKind::Queues, "0.9", None, Limit::PowerOfD(2)),
    ] {
        let m = Model::new(kind, lambda, cap).unwrap();
        let c = certified(&m, limit, 40).unwrap();
        assert!(!c.occupancy.is_empty());
        for (i, q) in c.occupancy.iter().enumerate() {
            assert_eq!(
                q.digits,
                40,
                "{kind:?} {lambda} level {}: {}",
                i + 1,
                q.text
            );
        }
        assert_eq!(c.mean_tasks.digits, 40, "{kind:?} {lambda}");
        assert!(c.blocking.digits >= 1);
    }
    // Occupancy listed until below 10^-digits: queues d = 2, λ = 0.5 has s_i = 2^-(2^i − 1),
    // 2^-31 ≈ 4.7e-10 ≥ 1e-10 > 2^-63: five levels at 10 digits.
    let m = Model::new(ModelKind::Queues, "0.5", None).unwrap();
    let c = certified(&m, Limit::PowerOfD(2), 10).unwrap();
    assert_eq!(c.occupancy.len(), 5);
    assert_eq!(c.occupancy[4].text, "4.656612873e-10");
}

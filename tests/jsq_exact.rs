//! Finite-N exact values against closed forms and an independent chain.

use taskassign::lb::exact::{exact, ExactOptions, Truncation};
use taskassign::lb::model::{DSpec, Model, ModelKind, Sampling, System};
use taskassign::num::markov::{explore, stationary, Ctmc, SolveOptions, Solver};

fn system(kind: ModelKind, lambda: &str, b: Option<u32>, n: u64, d: u64, s: Sampling) -> System {
    System::new(Model::new(kind, lambda, b).unwrap(), n, &DSpec::Fixed(d), s).unwrap()
}

#[test]
fn random_routing_is_independent_mm1b() {
    // d = 1 splits the Poisson stream: N independent M/M/1/b queues, π_k ∝ λ^k (k ≤ b),
    // q_i = Σ_{k ≥ i} π_k, blocking π_b. No truncation is involved (finite buffer).
    let (lambda, b) = (0.8f64, 4u32);
    for s in [Sampling::Without, Sampling::With] {
        let r = exact(
            &system(ModelKind::Queues, "0.8", Some(b), 3, 1, s),
            &ExactOptions::default(),
        )
        .unwrap();
        let norm: f64 = (0..=b).map(|k| lambda.powi(k as i32)).sum();
        for i in 1..=b as usize {
            let want: f64 = (i..=b as usize).map(|k| lambda.powi(k as i32)).sum::<f64>() / norm;
            assert!((r.occupancy[i - 1] - want).abs() < 1e-12, "level {i}");
        }
        assert!((r.blocking - lambda.powi(b as i32) / norm).abs() < 1e-12);
        // The sorted vectors of 3 values in 0..=4: C(4 + 3, 3) = 35 states.
        assert_eq!(r.states, 35);
        assert_eq!(r.truncation, None);
    }
}

#[test]
fn random_routing_infinite_buffer_is_geometric() {
    // d = 1, b = ∞: M/M/1 tails λ^i and mean λ/(1 − λ), through the min/spread truncation
    // chosen by growing it (d = 1 does not keep queues together, so this is its hard case).
    let lambda: f64 = 0.5;
    let r = exact(
        &system(ModelKind::Queues, "0.5", None, 2, 1, Sampling::Without),
        &ExactOptions::default(),
    )
    .unwrap();
    assert!(r.truncation_change.unwrap() <= 1e-10);
    for i in 1..=10 {
        assert!(
            (r.occupancy[i - 1] - lambda.powi(i as i32)).abs() < 1e-9,
            "level {i}"
        );
    }
    assert!((r.mean_tasks - 1.0).abs() < 1e-9, "{}", r.mean_tasks);
}

#[test]
fn jsq_two_servers_buffer_one_is_erlang_loss() {
    // N = 2, b = 1, d = 2 without replacement (JSQ): an arrival finds an idle server if
    // there is one, so the number busy is the M/M/2/2 Erlang loss system with offered load
    // a = 2λ: π_k ∝ a^k/k!, blocking B = (a²/2)/(1 + a + a²/2), q_1 = a(1 − B)/2.
    let lambda = 0.7;
    let a = 2.0 * lambda;
    let norm = 1.0 + a + a * a / 2.0;
    let bl = a * a / 2.0 / norm;
    let r = exact(
        &system(ModelKind::Queues, "0.7", Some(1), 2, 2, Sampling::Without),
        &ExactOptions::default(),
    )
    .unwrap();
    assert!((r.blocking - bl).abs() < 1e-14);
    assert!((r.occupancy[0] - a * (1.0 - bl) / 2.0).abs() < 1e-14);
    // With replacement, both draws hit the busy server with probability 1/4: the birth
    // rates are 2λ (0 → 1) and 2λ·3/4 (1 → 2), deaths 1 and 2, so π_1 = 2λπ_0,
    // π_2 = (3λ/4)π_1, and blocking = π_1/4 + π_2.
    let r = exact(
        &system(ModelKind::Queues, "0.7", Some(1), 2, 2, Sampling::With),
        &ExactOptions::default(),
    )
    .unwrap();
    let (p0, p1) = (1.0, 2.0 * lambda);
    let p2 = 0.75 * lambda * p1;
    let z = p0 + p1 + p2;
    assert!((r.blocking - (p1 / 4.0 + p2) / z).abs() < 1e-14);
    // The same system as pools with B = 1 is the same chain (a pool with one task
    // completes at rate 1).
    let p = exact(
        &system(ModelKind::Pools, "0.7", Some(1), 2, 2, Sampling::Without),
        &ExactOptions::default(),
    )
    .unwrap();
    assert!((p.blocking - bl).abs() < 1e-14);
}

/// The unsorted per-server chain of JSQ (d = N) with every server truncated at K: an
/// independent state space (labelled servers, ties split evenly) for N = 2.
struct Labelled {
    lambda_n: f64,
    k: u32,
    pools: bool,
}

impl Ctmc for Labelled {
    type State = (u32, u32);
    fn transitions(&self, s: &(u32, u32), out: &mut Vec<((u32, u32), f64)>) {
        let (a, b) = *s;
        let join_a = |st: (u32, u32)| (st.0 + 1, st.1);
        let join_b = |st: (u32, u32)| (st.0, st.1 + 1);
        if a < b && a < self.k {
            out.push((join_a(*s), self.lambda_n));
        } else if b < a && b < self.k {
            out.push((join_b(*s), self.lambda_n));
        } else if a == b && a < self.k {
            out.push((join_a(*s), self.lambda_n / 2.0));
            out.push((join_b(*s), self.lambda_n / 2.0));
        }
        let rate = |x: u32| {
            if self.pools {
                f64::from(x)
            } else {
                f64::from(x.min(1))
            }
        };
        if a > 0 {
            out.push(((a - 1, b), rate(a)));
        }
        if b > 0 {
            out.push(((a, b - 1), rate(b)));
        }
    }
}

fn labelled(lambda: f64, k: u32, pools: bool) -> (Vec<f64>, f64) {
    let c = Labelled {
        lambda_n: 2.0 * lambda,
        k,
        pools,
    };
    let chain = explore(&c, (0, 0), 100_000).unwrap();
    let st = stationary(&chain, &SolveOptions::default()).unwrap();
    let mut occ = vec![0.0; k as usize];
    let mut mean = 0.0;
    for (&(a, b), &p) in chain.states.iter().zip(&st.pi) {
        mean += p * f64::from(a + b) / 2.0;
        for i in 1..=k {
            occ[i as usize - 1] +=
                p * (f64::from(u32::from(a >= i)) + f64::from(u32::from(b >= i))) / 2.0;
        }
    }
    (occ, mean)
}

#[test]
fn jsq_two_servers_against_the_labelled_chain() {
    // JSQ at N = 2 without a buffer, from the sorted chain with the min/spread truncation,
    // against the labelled chain with a per-server truncation at K = 60 (whose truncation
    // error at λ = 0.6 is of the order λ^(2K) ≈ 1e-27, well below the tolerance).
    for (kind, lambda, text) in [
        (ModelKind::Queues, 0.6, "0.6"),
        (ModelKind::Pools, 1.5, "1.5"),
    ] {
        let r = exact(
            &system(kind, text, None, 2, 2, Sampling::Without),
            &ExactOptions::default(),
        )
        .unwrap();
        let (occ, mean) = labelled(lambda, 60, kind == ModelKind::Pools);
        assert!(
            (r.mean_tasks - mean).abs() < 1e-9,
            "{kind:?}: {} vs {mean}",
            r.mean_tasks
        );
        for (i, want) in occ.iter().enumerate().take(8) {
            let got = r.occupancy.get(i).copied().unwrap_or(0.0);
            assert!(
                (got - want).abs() < 1e-9,
                "{kind:?} level {}: {got} vs {want}",
                i + 1
            );
        }
    }
}

#[test]
fn pools_random_routing_is_erlang_b_per_pool() {
    // d = 1: independent M/M/B/B pools; π_k ∝ λ^k/k!, blocking = Erlang B(λ, B) = π_B.
    let (lambda, b) = (2.0f64, 3u32);
    let r = exact(
        &system(ModelKind::Pools, "2", Some(b), 3, 1, Sampling::Without),
        &ExactOptions::default(),
    )
    .unwrap();
    let w: Vec<f64> = (0..=b)
        .scan(1.0, |acc, k| {
            let v = *acc;
            *acc *= lambda / f64::from(k + 1);
            Some(v)
        })
        .collect();
    let z: f64 = w.iter().sum();
    assert!((r.blocking - w[b as usize] / z).abs() < 1e-13);
    for i in 1..=b as usize {
        let want: f64 = w[i..].iter().sum::<f64>() / z;
        assert!((r.occupancy[i - 1] - want).abs() < 1e-13, "level {i}");
    }
    // Mean tasks = λ(1 − B) (each accepted task stays a unit mean time).
    assert!((r.mean_tasks - lambda * (1.0 - r.blocking)).abs() < 1e-13);
}

#[test]
fn dense_and_iterative_solves_agree() {
    // N = 3, d = 2, b = 10: C(13, 3) = 286 states, solved both ways.
    let s = system(ModelKind::Queues, "0.9", Some(10), 3, 2, Sampling::Without);
    let mut o = ExactOptions::default();
    o.solve.solver = Solver::Dense;
    let a = exact(&s, &o).unwrap();
    o.solve.solver = Solver::GaussSeidel;
    let b = exact(&s, &o).unwrap();
    assert_eq!(a.states, 286);
    for (x, y) in a.occupancy.iter().zip(&b.occupancy) {
        assert!((x - y).abs() < 1e-10, "{x} vs {y}");
    }
    assert!((a.blocking - b.blocking).abs() < 1e-12);
}

#[test]
fn truncation_growth_converges_for_power_of_d() {
    // N = 3, d = 2, λ = 0.7: the min/spread truncation, grown until the outputs move by
    // less than 1e-10; a fixed larger truncation agrees with the chosen one within that.
    let s = system(ModelKind::Queues, "0.7", None, 3, 2, Sampling::Without);
    let r = exact(&s, &ExactOptions::default()).unwrap();
    let t = r.truncation.unwrap();
    assert!(r.truncation_change.unwrap() <= 1e-10);
    let bigger = exact(
        &s,
        &ExactOptions {
            truncation: Some(Truncation {
                min_level: t.min_level + 10,
                spread: t.spread + 2,
            }),
            ..Default::default()
        },
    )
    .unwrap();
    assert!((bigger.mean_tasks - r.mean_tasks).abs() < 1e-9);
    // Sampling with replacement is a different (worse) policy at N = 3: more tasks.
    let w = exact(
        &system(ModelKind::Queues, "0.7", None, 3, 2, Sampling::With),
        &ExactOptions::default(),
    )
    .unwrap();
    assert!(
        w.mean_tasks > r.mean_tasks + 1e-3,
        "{} vs {}",
        w.mean_tasks,
        r.mean_tasks
    );
}

#[test]
#[ignore = "a larger truncation study (several minutes)"]
fn truncation_study_n5() {
    // N = 4, λ = 0.8 and the N = 5, λ = 0.9, with d = 2 and JSQ.
    for (n, lambda, d) in [(4u64, "0.8", 2u64), (5, "0.9", 2), (5, "0.9", 5)] {
        let s = system(ModelKind::Queues, lambda, None, n, d, Sampling::Without);
        // N = 5 at λ = 0.9 needs about 1.3·10^6 states for 1e-9 (the spread must reach 24).
        let opts = ExactOptions {
            tolerance: 1e-9,
            max_states: 4_000_000,
            ..Default::default()
        };
        let r = exact(&s, &opts).unwrap();
        eprintln!(
            "N {n} λ {lambda} d {d}: mean {} states {} {:?} change {:?}",
            r.mean_tasks, r.states, r.truncation, r.truncation_change
        );
        assert!(r.truncation_change.unwrap() <= 1e-9);
    }
}

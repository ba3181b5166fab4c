//! Finite-N exact values against closed forms and an independent chain.

use taskassign::lb::{exact, ExactMethod, ExactOptions, Truncation};
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::num::{explore, stationary, Ctmc, SolveOptions, Solver};

fn system(kind: ModelKind, lambda: &str, b: Option<u32>, n: u64, d: u64, s: Sampling) -> JsqSystem {
    JsqSystem::new(Model::new(kind, lambda, b).unwrap(), n, &DSpec::Fixed(d), s).unwrap()
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
            assert!((r.occupancy[i - 1].value - want).abs() < 1e-12, "level {i}");
        }
        assert!((r.blocking.value - lambda.powi(b as i32) / norm).abs() < 1e-12);
        // d = 1 is recognised and summed in closed form (one server's b + 1 states).
        assert_eq!(r.method, ExactMethod::ClosedForm);
        assert_eq!(r.truncation, None);
    }
}

#[test]
fn random_routing_infinite_buffer_is_geometric() {
    // d = 1, b = ∞: M/M/1 tails λ^i and mean λ/(1 − λ) = 1 at λ = 1/2 (the closed form,
    // printed with the 12 digits asked).
    let lambda: f64 = 0.5;
    let r = exact(
        &system(ModelKind::Queues, "0.5", None, 2, 1, Sampling::Without),
        &ExactOptions::default(),
    )
    .unwrap();
    assert_eq!(r.method, ExactMethod::ClosedForm);
    for i in 1..=10 {
        assert!(
            (r.occupancy[i - 1].value - lambda.powi(i as i32)).abs() < 1e-15,
            "level {i}"
        );
    }
    assert_eq!(r.mean_tasks.text, "1.00000000000e0");
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
    assert!((r.blocking.value - bl).abs() < 1e-14);
    assert!((r.occupancy[0].value - a * (1.0 - bl) / 2.0).abs() < 1e-14);
    assert!(r.blocking.lo <= bl && bl <= r.blocking.hi);
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
    assert!((r.blocking.value - (p1 / 4.0 + p2) / z).abs() < 1e-14);
    // The same system as pools with B = 1 is the same chain (a pool with one task
    // completes at rate 1).
    let p = exact(
        &system(ModelKind::Pools, "0.7", Some(1), 2, 2, Sampling::Without),
        &ExactOptions::default(),
    )
    .unwrap();
    assert!((p.blocking.value - bl).abs() < 1e-14);
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
    let st = stationary(
        &chain,
        &SolveOptions {
            residual: 1e-15,
            max_sweeps: 2_000_000,
            ..Default::default()
        },
    )
    .unwrap();
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
            (r.mean_tasks.value - mean).abs() < 1e-9,
            "{kind:?}: {} vs {mean}",
            r.mean_tasks.value
        );
        // The labelled chain's own truncation error is far below the enclosure's width;
        // its Gauss–Seidel solve (residual 1e-15) is good to about 1e-12.
        assert!(
            r.mean_tasks.lo - 1e-12 <= mean && mean <= r.mean_tasks.hi + 1e-12,
            "{kind:?}: {mean} not in [{}, {}]",
            r.mean_tasks.lo,
            r.mean_tasks.hi
        );
        for (i, want) in occ.iter().enumerate().take(8) {
            let got = r.occupancy.get(i).map_or(0.0, |v| v.value);
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
    assert!((r.blocking.value - w[b as usize] / z).abs() < 1e-13);
    for i in 1..=b as usize {
        let want: f64 = w[i..].iter().sum::<f64>() / z;
        assert!((r.occupancy[i - 1].value - want).abs() < 1e-13, "level {i}");
    }
    // Mean tasks = λ(1 − B) (each accepted task stays a unit mean time).
    assert!((r.mean_tasks.value - lambda * (1.0 - r.blocking.value)).abs() < 1e-13);
}

/// The sorted-occupancy chain with a buffer, written again for `num::markov`'s dense LU:
/// an independent solve of the same finite chain.
struct Sorted {
    n: usize,
    lambda_n: f64,
    b: u16,
    tail: Vec<f64>,
}

impl Ctmc for Sorted {
    type State = Vec<u16>;
    fn transitions(&self, x: &Vec<u16>, out: &mut Vec<(Vec<u16>, f64)>) {
        // Join the shortest of d sampled: the last server of the shortest sampled length.
        for v in 0..=self.b {
            let at_least = |u: u16| x.iter().filter(|&&y| y >= u).count();
            let p = self.tail[at_least(v)] - self.tail[at_least(v + 1)];
            if p > 0.0 && v < self.b && x.contains(&v) {
                let k = x.iter().rposition(|&y| y == v).unwrap();
                let mut y = x.clone();
                y[k] += 1;
                out.push((y, self.lambda_n * p));
            }
        }
        for (k, &v) in x.iter().enumerate() {
            if v > 0 && (k == 0 || x[k - 1] != v) {
                let c = x.iter().filter(|&&y| y == v).count() as f64;
                let mut y = x.clone();
                y[k] -= 1;
                out.push((y, c));
            }
        }
        let _ = self.n;
    }
}

#[test]
fn level_solver_matches_a_dense_lu_within_its_enclosure() {
    // N = 3, d = 2, b = 10: C(13, 3) = 286 states, solved by the level solver (an
    // enclosure from its residual) and by dense LU (nalgebra) on the same chain written
    // again; the LU value must lie in the enclosure widened by the LU's own rounding
    // (1e-13, a few hundred ulps of a 286-state elimination).
    let s = system(ModelKind::Queues, "0.9", Some(10), 3, 2, Sampling::Without);
    let a = exact(&s, &ExactOptions::default()).unwrap();
    assert_eq!(a.states, 286);
    assert_eq!(a.method, ExactMethod::Chain);
    let chain = Sorted {
        n: 3,
        lambda_n: 2.7,
        b: 10,
        tail: taskassign::lb::tail_table(3, 2, Sampling::Without),
    };
    let c = explore(&chain, vec![0u16; 3], 10_000).unwrap();
    assert_eq!(c.len(), 286);
    let st = stationary(
        &c,
        &SolveOptions {
            solver: Solver::Dense,
            ..Default::default()
        },
    )
    .unwrap();
    let mean: f64 = c
        .states
        .iter()
        .zip(&st.pi)
        .map(|(x, p)| p * x.iter().map(|&v| f64::from(v)).sum::<f64>() / 3.0)
        .sum();
    assert!(
        a.mean_tasks.lo - 1e-13 <= mean && mean <= a.mean_tasks.hi + 1e-13,
        "{mean} not in [{}, {}]",
        a.mean_tasks.lo,
        a.mean_tasks.hi
    );
    assert!(a.mean_tasks.digits >= 12, "{}", a.mean_tasks.text);
}

#[test]
fn the_truncation_bound_holds_against_a_much_larger_truncation() {
    // Power-of-d and JSQ at N = 3 and N = 2, queues and pools: the value of a truncation
    // chosen for 8 digits, against a fixed truncation several times larger; their
    // difference must be below the first's enclosure (truncation bound + solve error).
    for (kind, lambda, n, d, bigger) in [
        (
            ModelKind::Queues,
            "0.7",
            3u64,
            2u64,
            Truncation {
                min_level: 120,
                spread: 40,
            },
        ),
        (
            ModelKind::Queues,
            "0.8",
            2,
            2,
            Truncation {
                min_level: 200,
                spread: 40,
            },
        ),
        (
            ModelKind::Pools,
            "1.5",
            3,
            3,
            Truncation {
                min_level: 90,
                spread: 0,
            },
        ),
    ] {
        let s = system(kind, lambda, None, n, d, Sampling::Without);
        let r = exact(
            &s,
            &ExactOptions {
                digits: 8,
                ..Default::default()
            },
        )
        .unwrap();
        let t = r.truncation.unwrap();
        assert!(r.truncation_bound.is_finite() && r.truncation_bound > 0.0);
        let big = exact(
            &s,
            &ExactOptions {
                truncation: Some(bigger),
                digits: 14,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(big.truncation_bound < r.truncation_bound, "{t:?}");
        let diff = (big.mean_tasks.value - r.mean_tasks.value).abs();
        let half = (r.mean_tasks.hi - r.mean_tasks.lo).max(0.0);
        assert!(
            diff <= half,
            "{kind:?} N={n}: |{} - {}| = {diff:e} above the enclosure's width {half:e}",
            big.mean_tasks.value,
            r.mean_tasks.value
        );
        assert!(big.mean_tasks.lo <= r.mean_tasks.hi && r.mean_tasks.lo <= big.mean_tasks.hi);
    }
}

#[test]
fn sampling_with_replacement_is_worse_at_n3() {
    // Sampling with replacement is a different (worse) policy at N = 3: more tasks.
    let opts = ExactOptions {
        digits: 6,
        ..Default::default()
    };
    let r = exact(
        &system(ModelKind::Queues, "0.7", None, 3, 2, Sampling::Without),
        &opts,
    )
    .unwrap();
    let w = exact(
        &system(ModelKind::Queues, "0.7", None, 3, 2, Sampling::With),
        &opts,
    )
    .unwrap();
    assert!(
        w.mean_tasks.lo > r.mean_tasks.hi + 1e-3,
        "{} vs {}",
        w.mean_tasks.text,
        r.mean_tasks.text
    );
}

#[test]
#[ignore = "a larger truncation study (minutes)"]
fn truncation_study_n5() {
    // N = 4, λ = 0.8 and N = 5, λ = 0.9, with d = 2 and JSQ, to 10 digits.
    for (n, lambda, d) in [(4u64, "0.8", 2u64), (5, "0.9", 2), (5, "0.9", 5)] {
        let s = system(ModelKind::Queues, lambda, None, n, d, Sampling::Without);
        let opts = ExactOptions {
            digits: 10,
            ..Default::default()
        };
        let r = exact(&s, &opts).unwrap();
        eprintln!(
            "N {n} λ {lambda} d {d}: mean {} states {} {:?} bound {:e}",
            r.mean_tasks.text, r.states, r.truncation, r.truncation_bound
        );
        assert!(r.digits >= 10);
    }
}

#[test]
fn twelve_digits_asked_are_printed_next_to_a_rounding_boundary() {
    // N = 3, d = 2, λ = 0.9: mean tasks per server 3.8466783365848 by the SciPy peer
    // (benches/peer/exact_scipy.py, box (135, 36), 95 608 states; the box (108, 29) gives
    // 3.8466783365871, so the peer's own truncation error is a few 1e-12), about 2e-13
    // below the 12th digit's rounding boundary 3.846678336585: a truncation whose bound
    // just meets its target (1.9e-12) leaves an enclosure across that boundary and 11
    // digits, so the chain must try the tighter truncation and print the 12 asked.
    let s = system(ModelKind::Queues, "0.9", None, 3, 2, Sampling::Without);
    let r = exact(
        &s,
        &ExactOptions {
            digits: 12,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.digits >= 12, "{} digits: {:?}", r.digits, r.mean_tasks);
    let peer = 3.8466783365848;
    let half = 0.5 * (r.mean_tasks.hi - r.mean_tasks.lo);
    assert!(
        (r.mean_tasks.value - peer).abs() <= half + 3e-12,
        "{:?} against the peer's {peer}",
        r.mean_tasks
    );
}

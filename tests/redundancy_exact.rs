//! Exact values of redundancy systems with exponential i.i.d. copies, each computed two
//! ways (ARCHITECTURE.md, "Tests"):
//! * the ordered product form (Gardner et al. 2016) against the global balance equations
//!   of the ordered FCFS chain, in MPFR;
//! * the Bonald–Comte Φ recursion against the sum of the ordered weights over the orders;
//! * the closed-form phase sum against the truncated Φ sum with its proven tail bound;
//! * the phase sum on redundancy-d systems against the union-size recursion;
//! * limits: M/M/1, independent M/M/1 queues, the W-model's fully redundant class
//!   (exponential response at rate μ1 + μ2 − Σλ, Gardner et al. 2016);
//! * the stability region against brute force over all class sets;
//! * the compact Markov chain against the labelled chain at equal truncations, the
//!   labelled FCFS chain against the product form, and the chains' own limits.

use rug::Float;
use std::collections::HashMap;
use taskassign::num::parse_decimal;
use taskassign::num::Certify;

use taskassign::redundancy::fcfs_region;
use taskassign::redundancy::redundancy_d;
use taskassign::redundancy::Policy;
use taskassign::redundancy::RedundancyError;
use taskassign::redundancy::{
    class_chain_values, labelled_chain_values, solve_chain as solve, solve_chain_with,
    solve_options,
};
use taskassign::redundancy::{fcfs_means, for_each_state, ordered_weight, truncated_sums};
use taskassign::redundancy::{ClassSystem, ServerSet};

/// Precision of the MPFR comparisons.
const BITS: u32 = 200;
/// Relative slack of an MPFR identity: a few hundred roundings.
const SLACK_BITS: u32 = 16;

fn sys(rates: &[&str], classes: &[(&str, &str)]) -> ClassSystem {
    let k = rates.len();
    ClassSystem::new(
        rates.iter().map(|r| r.to_string()).collect(),
        classes
            .iter()
            .map(|(s, r)| (ServerSet::parse(s, k).unwrap(), r.to_string()))
            .collect(),
    )
    .unwrap()
}

fn w_model() -> ClassSystem {
    sys(&["1", "1"], &[("1", "0.3"), ("2", "0.3"), ("1+2", "0.6")])
}

fn w_model_unequal() -> ClassSystem {
    sys(&["1", "2"], &[("1", "0.5"), ("2", "0.7"), ("1+2", "1.2")])
}

fn n_model() -> ClassSystem {
    sys(&["1", "1"], &[("1", "0.4"), ("1+2", "0.9")])
}

/// A non-nested 3-server system ({1,2} and {2,3} overlap).
fn non_nested() -> ClassSystem {
    sys(
        &["1", "1.5", "0.5"],
        &[
            ("1+2", "0.5"),
            ("2+3", "0.4"),
            ("3", "0.2"),
            ("1+2+3", "0.3"),
        ],
    )
}

fn rel_close(x: &Float, y: &Float, bits_agree: u32) -> bool {
    let d = Float::with_val(BITS + 64, x - y).abs();
    d <= Float::with_val(BITS + 64, y.abs_ref()) >> bits_agree
}

fn n(s: &str) -> Float {
    parse_decimal(s, BITS).unwrap()
}

/// All orders (class sequences) of length `len`.
fn orders(classes: usize, len: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for _ in 0..len {
        out = out
            .into_iter()
            .flat_map(|o| {
                (0..classes).map(move |c| {
                    let mut v = o.clone();
                    v.push(c);
                    v
                })
            })
            .collect();
    }
    out
}

/// Departure rate of the job at position i of an ordered FCFS state: μ(S_{c_i} \ U_{i−1}).
fn departure_rate(s: &ClassSystem, order: &[usize], i: usize, bits: u32) -> Float {
    let ahead = order[..i]
        .iter()
        .fold(ServerSet::EMPTY, |a, &c| a.union(s.classes()[c].set));
    let own = s.classes()[order[i]].set;
    let free = ServerSet::from_mask(own.mask() & !ahead.mask());
    s.capacity(free, bits)
}

#[test]
fn ordered_product_form_satisfies_global_balance() {
    // Source: Gardner et al. (2016), Theorem 1; checked here against the balance
    // equations of the ordered FCFS chain (every server serves the oldest job in its
    // queue), in MPFR. For every state c with |c| ≤ 4:
    // π(c)(Λ + Σ_i μ(S_ci \ U_{i−1})) = π(c⁻)λ_{c_n} + Σ_{c', pos} π(c with c' inserted)·rate.
    for s in [w_model(), w_model_unequal(), n_model(), non_nested()] {
        let nc = s.classes().len();
        let lambda = s.lambda(BITS);
        let mut big_lambda = Float::with_val(BITS, 0);
        for l in &lambda {
            big_lambda += l;
        }
        for len in 0..=4 {
            for c in orders(nc, len) {
                let pi = ordered_weight(&s, &c, BITS);
                let mut out_rate = Float::with_val(BITS, &big_lambda);
                for i in 0..c.len() {
                    out_rate += departure_rate(&s, &c, i, BITS);
                }
                let outflow = Float::with_val(BITS, &pi * &out_rate);
                let mut inflow = Float::with_val(BITS, 0);
                if let Some((&last, head)) = c.split_last() {
                    inflow += ordered_weight(&s, head, BITS) * &lambda[last];
                }
                for pos in 0..=c.len() {
                    for extra in 0..nc {
                        let mut d = c.clone();
                        d.insert(pos, extra);
                        let r = departure_rate(&s, &d, pos, BITS);
                        inflow += ordered_weight(&s, &d, BITS) * r;
                    }
                }
                assert!(
                    rel_close(&inflow, &outflow, BITS - SLACK_BITS),
                    "{c:?}: in {} out {}",
                    inflow.to_f64(),
                    outflow.to_f64()
                );
            }
        }
    }
}

#[test]
fn phi_recursion_is_the_sum_over_orders() {
    // Source: Bonald & Comte (2017): Φ(x)λ^x = Σ over the orders of x of Gardner's
    // ordered weights. Both sides computed independently for every |x| ≤ 5.
    for s in [w_model_unequal(), non_nested()] {
        let nc = s.classes().len();
        let mut by_counts: HashMap<Vec<u16>, Float> = HashMap::new();
        for len in 0..=5 {
            for o in orders(nc, len) {
                let mut x = vec![0u16; nc];
                for &c in &o {
                    x[c] += 1;
                }
                let w = ordered_weight(&s, &o, BITS);
                *by_counts
                    .entry(x)
                    .or_insert_with(|| Float::with_val(BITS, 0)) += w;
            }
        }
        let mut seen = 0;
        for_each_state(&s, BITS, 5, |x, psi| {
            let e = &by_counts[x];
            assert!(rel_close(psi, e, BITS - SLACK_BITS), "{x:?}");
            seen += 1;
        })
        .unwrap();
        assert_eq!(seen, by_counts.len());
    }
}

#[test]
fn closed_phase_sum_lies_within_the_truncated_sums_bounds() {
    // Two computations of E[N_c]: the closed-form phase sum, and the Φ sum over |x| ≤ N
    // with the Chernoff tail bound W_n ≤ G(z) z^−n. The exact value must lie in the
    // bounds, and the bounds must be tight (width below 1e-9 relative at these N).
    for (s, nmax) in [(w_model(), 80usize), (n_model(), 100), (non_nested(), 50)] {
        let m = fcfs_means(&s, BITS).unwrap();
        let t = truncated_sums(&s, BITS, nmax).unwrap();
        for c in 0..s.classes().len() {
            let (lo, hi) = t.number_bounds(c);
            assert!(
                lo <= m.number[c] && m.number[c] <= hi,
                "class {c}: {} not in [{}, {}]",
                m.number[c].to_f64(),
                lo.to_f64(),
                hi.to_f64()
            );
            let width = Float::with_val(BITS, &hi - &lo) / &m.number[c];
            assert!(
                width < 1e-9,
                "N = {nmax}, class {c}: bound width {}",
                width.to_f64()
            );
        }
    }
}

#[test]
fn fcfs_values_are_certified_at_two_precisions() {
    let c = Certify::digits(40);
    let both = c.run(|bits| fcfs_means(&non_nested(), bits)).unwrap();
    for v in both.certify_all(40, |m| &m.response) {
        assert_eq!(v.digits, 40, "{}", v.text);
    }
}

#[test]
fn w_model_fully_redundant_class_has_rate_mu1_plus_mu2_minus_lambda() {
    // Source: Gardner et al. (2016): in the W-model under FCFS the class {1,2} response
    // time is Exp(μ1 + μ2 − λ1 − λ2 − λ12); its mean 1/(μ1 + μ2 − Σλ).
    for (s, e) in [
        (w_model(), n("1.25")),
        (w_model_unequal(), Float::with_val(BITS, 1) / n("0.6")),
    ] {
        let m = fcfs_means(&s, BITS).unwrap();
        assert!(
            rel_close(&m.response[2], &e, BITS - SLACK_BITS),
            "{}",
            m.response[2].to_f64()
        );
    }
}

#[test]
fn disjoint_classes_are_independent_mm1_queues() {
    // Source: M/M/1 at rate μ(S_c): E[T_c] = 1/(μ(S_c) − λ_c); no set meets another.
    let s = sys(&["1", "2", "0.5"], &[("1+2", "2.1"), ("3", "0.2")]);
    let m = fcfs_means(&s, BITS).unwrap();
    let e0 = Float::with_val(BITS, 1) / (n("3") - n("2.1"));
    let e1 = Float::with_val(BITS, 1) / (n("0.5") - n("0.2"));
    assert!(rel_close(&m.response[0], &e0, BITS - SLACK_BITS));
    assert!(rel_close(&m.response[1], &e1, BITS - SLACK_BITS));
}

#[test]
fn phase_sum_matches_the_redundancy_d_recursion() {
    // Two routes to redundancy-d: the general phase sum over unions of the C(k,d) sets
    // and the one-dimensional union-size recursion. Plus the limits d = 1 (k M/M/1 at
    // λ/k: E[T] = 1/(1 − λ/k)) and d = k (M/M/1 at rate k: E[T] = 1/(k − λ)).
    for (k, d, l) in [
        (3u32, 2u32, "2.1"),
        (4, 2, "3"),
        (4, 3, "1.7"),
        (5, 2, "4.2"),
        (5, 1, "2"),
        (4, 4, "3.5"),
    ] {
        let s =
            ClassSystem::preset(&format!("redundancy-d:k={k},d={d}"), &[l.to_string()]).unwrap();
        let m = fcfs_means(&s, BITS).unwrap();
        let r = redundancy_d(k, d, &n(l), &Float::with_val(BITS, 1), BITS).unwrap();
        // The preset writes λ/C(k,d) with 40 digits: agreement to ~1e-38.
        let tol = Float::with_val(BITS, &r.response) * 1e-36;
        assert!(
            Float::with_val(BITS, &m.total_response - &r.response).abs() < tol,
            "k={k} d={d}: {} vs {}",
            m.total_response.to_f64(),
            r.response.to_f64()
        );
        let lim = if d == 1 {
            Some(Float::with_val(BITS, 1) / (Float::with_val(BITS, 1) - n(l) / k))
        } else if d == k {
            Some(Float::with_val(BITS, 1) / (Float::with_val(BITS, k) - n(l)))
        } else {
            None
        };
        if let Some(e) = lim {
            assert!(rel_close(&r.response, &e, BITS - SLACK_BITS), "k={k} d={d}");
        }
    }
}

#[test]
fn stability_region_matches_brute_force_over_class_sets() {
    // Source: the condition Σ_{c∈A} λ_c < μ(∪_{c∈A} S_c) for every non-empty A, by brute
    // force over all 2^C − 1 class sets; s* = min_A μ(∪A)/λ(A).
    for s in [
        w_model(),
        w_model_unequal(),
        n_model(),
        non_nested(),
        ClassSystem::preset("nested-4", &["0.1".into(), "0.3".into(), "0.5".into()]).unwrap(),
    ] {
        let nc = s.classes().len();
        let lambda = s.lambda(BITS);
        let mut best: Option<Float> = None;
        for a in 1u32..(1 << nc) {
            let mut l = Float::with_val(BITS, 0);
            let mut u = ServerSet::EMPTY;
            for (c, (lc, cl)) in lambda.iter().zip(s.classes()).enumerate() {
                if (a >> c) & 1 == 1 {
                    l += lc;
                    u = u.union(cl.set);
                }
            }
            let r = Float::with_val(BITS, s.capacity(u, BITS) / &l);
            if best.as_ref().is_none_or(|b| r < *b) {
                best = Some(r);
            }
        }
        let region = fcfs_region(&s, BITS).unwrap();
        assert_eq!(region.scale_limit, best.unwrap());
        // At 0.999 s* the exact values exist; at 1.001 s* they are an error.
        let below = s
            .scaled(&Float::with_val(BITS, &region.scale_limit * 0.999))
            .unwrap();
        assert!(fcfs_means(&below, 128).is_ok());
        let above = s
            .scaled(&Float::with_val(BITS, &region.scale_limit * 1.001))
            .unwrap();
        assert!(matches!(
            fcfs_means(&above, 128),
            Err(RedundancyError::Unstable { .. })
        ));
    }
}

/// The non-FCFS policies the compact chain solves, each without and with preemption
/// (preemption only with a class priority).
fn chain_policies() -> Vec<Policy> {
    let mut v = Vec::new();
    for name in ["ros", "lrf-fcfs", "mrf-fcfs", "lrf-ros", "mrf-ros"] {
        v.push(Policy::parse(name, false).unwrap());
        if name != "ros" {
            v.push(Policy::parse(name, true).unwrap());
        }
    }
    v
}

#[test]
fn compact_chain_equals_the_labelled_chain_at_equal_truncations() {
    // Two chains of one truncated system: jobs with identities and the policy applied
    // literally, against class counts with server groups. Lumpability makes their class
    // counts equal in law; both solved densely, they agree to rounding (1e-12).
    let nested3 = sys(
        &["1", "1.5", "0.7"],
        &[
            ("1", "0.3"),
            ("2", "0.2"),
            ("1+2", "0.4"),
            ("3", "0.2"),
            ("1+2+3", "0.5"),
        ],
    );
    for (s, cap) in [(w_model_unequal(), 6usize), (n_model(), 7), (nested3, 4)] {
        for p in chain_policies() {
            let a = class_chain_values(&s, p, cap, &solve_options()).unwrap();
            let b = labelled_chain_values(&s, p, cap, &solve_options()).unwrap();
            assert!(
                b.states > a.states,
                "{}: {} vs {} states",
                p.name(),
                b.states,
                a.states
            );
            for c in 0..s.classes().len() {
                assert!(
                    (a.number[c] - b.number[c]).abs() <= 1e-12 * b.number[c].max(1e-3),
                    "{} {} class {c}: {} vs {}",
                    p.name(),
                    p.preemption(),
                    a.number[c],
                    b.number[c]
                );
            }
        }
    }
}

#[test]
fn labelled_fcfs_chain_is_the_truncated_product_form() {
    // Two computations of one truncated system: the ordered FCFS chain (labelled, no class
    // priority) with arrivals blocked at N jobs, solved numerically, against the product
    // form restricted to |x| ≤ N (the truncation keeps it: the ordered product form
    // balances arrivals against departures state by state). Agreement to the solver's
    // accuracy, 1e-11.
    for s in [w_model_unequal(), non_nested()] {
        let nc = s.classes().len();
        for cap in [3usize, 5, 6] {
            let v = labelled_chain_values(
                &s,
                Policy::parse("fcfs", false).unwrap(),
                cap,
                &solve_options(),
            )
            .unwrap();
            let mut mass = Float::with_val(BITS, 0);
            let mut first = vec![Float::with_val(BITS, 0); nc];
            for_each_state(&s, BITS, cap, |x, psi| {
                mass += psi;
                for (f, &xc) in first.iter_mut().zip(x) {
                    *f += Float::with_val(BITS, psi * u32::from(xc));
                }
            })
            .unwrap();
            for (c, f) in first.iter().enumerate() {
                let e = Float::with_val(BITS, f / &mass).to_f64();
                assert!(
                    (v.number[c] - e).abs() < 1e-11 * e,
                    "cap {cap} class {c}: {} vs {e}",
                    v.number[c]
                );
            }
        }
    }
}

#[test]
fn chain_limits_hold() {
    // Sources (closed forms, derived from the policies):
    // * preemptive LRF in the W-model: server 1 always serves class {1} when present, and
    //   class {1} has no other server, so it is an M/M/1(λ1, μ1): E[T1] = 1/(μ1 − λ1);
    // * preemptive MRF in the N-model: both servers serve class {1,2} whenever present,
    //   all on its oldest job (FCFS), so it is an M/M/1(λ12, μ1 + μ2);
    // * one fully redundant class under LRF-FCFS: every server on the oldest job, an
    //   M/M/1 at Σμ.
    let w = sys(&["1", "2"], &[("1", "0.4"), ("2", "0.6"), ("1+2", "0.8")]);
    let r = solve(&w, Policy::parse("lrf-fcfs", true).unwrap(), 8, None).unwrap();
    assert!(r.digits >= 8);
    let e = 1.0 / (1.0 - 0.4);
    assert!(
        (r.response[0].value - e).abs() < 1e-7 * e,
        "{}",
        r.response[0].value
    );
    let e2 = 1.0 / (2.0 - 0.6);
    assert!(
        (r.response[1].value - e2).abs() < 1e-7 * e2,
        "{}",
        r.response[1].value
    );

    let nm = sys(&["1", "1"], &[("1", "0.2"), ("1+2", "0.8")]);
    let r = solve(&nm, Policy::parse("mrf-fcfs", true).unwrap(), 8, None).unwrap();
    let e = 1.0 / (2.0 - 0.8);
    assert!(
        (r.response[1].value - e).abs() < 1e-7 * e,
        "{}",
        r.response[1].value
    );

    let full = sys(&["1", "2", "0.5"], &[("1+2+3", "2.5")]);
    let r = solve(&full, Policy::parse("lrf-fcfs", false).unwrap(), 8, None).unwrap();
    let e = 1.0 / (3.5 - 2.5);
    assert!(
        (r.response[0].value - e).abs() < 1e-7 * e,
        "{}",
        r.response[0].value
    );
}

#[test]
fn chain_doubling_certifies_its_digits() {
    // The printed digits are those on which N and 2N agree; the values at 2N must then
    // agree with a solve at 4N to those digits.
    let w = sys(&["1", "1"], &[("1", "0.3"), ("1+2", "0.7")]);
    let p = Policy::parse("mrf-ros", false).unwrap();
    let r = solve(&w, p, 6, None).unwrap();
    assert!(r.digits >= 6);
    let finer = class_chain_values(&w, p, (2 * r.truncation).min(255), &solve_options()).unwrap();
    for c in 0..2 {
        let a = r.number[c].value;
        let rel = (a - finer.number[c]).abs() / finer.number[c];
        assert!(rel < 1e-6, "class {c}: {a} vs {}", finer.number[c]);
    }
}

#[test]
fn one_class_on_one_server_is_mm1_through_the_untruncated_solve() {
    // Closed form: one class on one server is an M/M/1 queue under every policy,
    // E[N] = ρ/(1 − ρ) (ρ = 0.8: 4) and E[T] = 1/(μ − λ) = 5. The solve certifies 12
    // digits, so the values must agree with the closed form to within a unit of the 12th
    // digit (relative 1e-11).
    let s = sys(&["1"], &[("1", "0.8")]);
    for p in ["ros", "lrf-fcfs", "mrf-ros"] {
        let r = solve(&s, Policy::parse(p, false).unwrap(), 12, None).unwrap();
        assert!(r.digits >= 12, "{p}: {} digits", r.digits);
        let n = r.number[0].value;
        let t = r.response[0].value;
        assert!((n - 4.0).abs() < 1e-11 * 4.0, "{p}: E[N] {n}");
        assert!((t - 5.0).abs() < 1e-11 * 5.0, "{p}: E[T] {t}");
    }
}

#[test]
fn twelve_and_thirteen_digit_runs_agree_on_their_shared_digits() {
    // Two independent runs (different truncations are chosen for 12 and 13 digits, the
    // most a chain prints): their certified values must agree to within a unit of the
    // 12th digit of the shorter (relative 1e-11).
    let nm = n_model();
    for p in ["lrf-fcfs", "mrf-ros"] {
        let pol = Policy::parse(p, false).unwrap();
        let a = solve(&nm, pol, 12, None).unwrap();
        let b = solve(&nm, pol, 14, None).unwrap();
        assert!(
            a.digits >= 12 && b.digits >= 12,
            "{p}: {} / {}",
            a.digits,
            b.digits
        );
        for (x, y) in a.number.iter().zip(&b.number) {
            assert!(
                (x.value - y.value).abs() <= 1e-11 * y.value.abs(),
                "{p}: {} vs {}",
                x.text,
                y.text
            );
        }
    }
}

#[test]
fn symmetry_reduced_chain_gives_the_full_chains_means_to_the_digits_printed() {
    // Two independent solves of the W-model at λ = (0.3, 0.3, 0.6) (μ = 1, 1): the full
    // chain, and the chain lumped onto the orbits of the swap of servers 1, 2 with classes
    // {1}, {2}. Each certifies its digits by two truncations; the exchanged classes' means
    // must print alike, and their sum must match the full chain's E[N_1] + E[N_2] to within
    // a unit of the last digit both print (relative 10^(1 − digits)). The full chain's two
    // singleton classes agree with each other likewise (the system is symmetric).
    let w = w_model();
    for p in chain_policies() {
        let full = solve_chain_with(&w, p, 8, None, false).unwrap();
        let red = solve_chain_with(&w, p, 8, None, true).unwrap();
        let what = format!("{} {}", p.name(), p.preemption());
        assert_eq!(full.exchanged, None, "{what}");
        assert_eq!(red.exchanged, Some(vec![vec![0, 1]]), "{what}");
        assert_eq!(red.number[0].text, red.number[1].text, "{what}");
        assert_eq!(red.response[0].text, red.response[1].text, "{what}");
        let digits = full.digits.min(red.digits);
        assert!(
            digits >= 8,
            "{what}: {} / {} digits",
            full.digits,
            red.digits
        );
        let tol = 10f64.powi(1 - digits as i32);
        let sum_full = full.number[0].value + full.number[1].value;
        let sum_red = red.number[0].value + red.number[1].value;
        assert!(
            (sum_full - sum_red).abs() <= tol * sum_full,
            "{what}: {sum_full} vs {sum_red}"
        );
        for (a, b) in [
            (&full.number[0], &full.number[1]),
            (&full.number[2], &red.number[2]),
            (&full.total_number, &red.total_number),
        ] {
            assert!(
                (a.value - b.value).abs() <= tol * b.value,
                "{what}: {} vs {}",
                a.text,
                b.text
            );
        }
        assert!(
            red.fine.states < full.fine.states,
            "{what}: {} vs {} states",
            red.fine.states,
            full.fine.states
        );
    }
}

#[test]
fn symmetry_reduced_chain_meets_the_closed_form_of_preemptive_lrf() {
    // Closed form: under preemptive LRF in the W-model, server s always serves class {s}
    // when present and class {s} has no other server, so each singleton class is an
    // M/M/1(λ, 1): E[T] = 1/(1 − λ) = 2 at λ = 0.5 (the chain certifies 10 digits here:
    // relative 1e-9).
    let w = sys(&["1", "1"], &[("1", "0.5"), ("2", "0.5"), ("1+2", "0.4")]);
    let r = solve(&w, Policy::parse("lrf-fcfs", true).unwrap(), 10, None).unwrap();
    assert_eq!(r.exchanged, Some(vec![vec![0, 1]]));
    assert!(r.digits >= 10, "{} digits", r.digits);
    for c in 0..2 {
        let t = r.response[c].value;
        assert!((t - 2.0).abs() < 1e-9 * 2.0, "class {c}: {t}");
    }
}

#[test]
fn exact_uses_the_certificate_where_one_is_found_and_the_product_form_for_fcfs() {
    // `redundancy exact`'s methods (issue 26): the N-model at λ = (0.1, 1.7) under LRF-FCFS
    // has a Foster–Lyapunov certificate (lyapunov.rs; ctmc.rs module docs), so its values
    // come from the certified chain with a bound at least every printed half-width, and
    // they agree with the two-truncation estimate (solve_chain, independent truncations)
    // to within that estimate's last digit (relative 1e-9 at 10 digits) where both print;
    // FCFS keeps its product form, which has no truncation bound.
    let nm = sys(&["1", "1"], &[("1", "0.1"), ("1+2", "1.7")]);
    let lrf = Policy::parse("lrf-fcfs", false).unwrap();
    let r = taskassign::redundancy::exact(&nm, lrf, 10).unwrap();
    assert_eq!(
        r.solved_by,
        taskassign::redundancy::ExactMethod::CertifiedChain
    );
    assert!(r.digits >= 10, "{}", r.digits);
    assert!(r.truncation.starts_with("proven: "), "{}", r.truncation);
    let bound = r.truncation_bound.expect("a proven bound");
    let e = r.enclosures.as_ref().expect("enclosures");
    for iv in e.number.iter().chain(&e.response) {
        let half = (Float::with_val(BITS, iv.hi() - iv.lo()) / 2u32).to_f64();
        assert!(half <= bound, "{half} > {bound}");
    }
    let est = solve(&nm, lrf, 10, None).unwrap();
    for (a, b) in r.number_f64.iter().zip(&est.number) {
        assert!((a - b.value).abs() <= 1e-9 * b.value, "{a} vs {}", b.value);
    }
    let f = taskassign::redundancy::exact(&nm, Policy::parse("fcfs", false).unwrap(), 10).unwrap();
    assert_eq!(
        f.solved_by,
        taskassign::redundancy::ExactMethod::ProductForm
    );
    assert!(f.truncation_bound.is_none() && f.enclosures.is_none());
}

//! The simulators against exact formulas, reproducibility across thread counts, and a
//! fixed-seed snapshot.
//!
//! Every comparison asks the simulated mean to lie within [`TOL_HALF_WIDTHS`] 95 %
//! half-widths of an exact value. Seeds are fixed, so the outcomes are deterministic; the
//! job counts keep the whole file to a few seconds in release and well under a minute in
//! debug. Light-tailed sizes keep the intervals honest (no heavy-tail warning expected).

use taskassign::dist::{DistFactory, DistSpec};
use taskassign::num::parse_decimal;
use taskassign::policy::{evaluate, LoadSpec, Metric, PolicyKind};
use taskassign::sim::dispatch::{prepare, DispatchSimRequest, Prepared};
use taskassign::sim::Estimate;
use taskassign::sim::{Length, RunOptions, SimPolicy, SimResult};

/// Allowed distance between a simulated mean and its exact value, in 95 % half-widths.
const TOL_HALF_WIDTHS: f64 = 4.0;
/// Measured jobs per replication in the formula checks.
const JOBS: u64 = 50_000;
/// Warm-up jobs per replication.
const WARMUP: u64 = 2_000;
/// Replications in the formula checks.
const REPS: usize = 10;
/// Base seed of every test.
const SEED: u64 = 20_240_601;
/// Precision (bits) of the exact values computed with the analytic core.
const BITS: u32 = 128;
/// Fixed-point iterations for the GI/M/1 root σ (the map is a contraction; 10^4
/// iterations are far beyond f64 convergence for the loads used).
const GIM1_ITERATIONS: usize = 10_000;
/// Significant digits of the snapshot's numbers.
const SNAPSHOT_DIGITS: usize = 10;

struct Run {
    prep: Prepared,
    res: SimResult,
}

#[allow(clippy::too_many_arguments)]
fn run_with(
    policy: SimPolicy,
    spec: &str,
    hosts: usize,
    load: &str,
    cutoffs: &[&str],
    interarrival: Option<&str>,
    jobs: u64,
    reps: usize,
    seed: u64,
) -> Run {
    let dist = DistSpec::parse(spec).unwrap();
    let gaps = interarrival.map(|s| DistSpec::parse(s).unwrap());
    let req = DispatchSimRequest {
        policy,
        dist: &dist,
        hosts,
        load: LoadSpec::Total(load.into()),
        cutoffs: cutoffs.iter().map(|s| s.to_string()).collect(),
        interarrival: gaps.as_ref().map(|g| g as &dyn DistFactory),
        run: RunOptions {
            length: Length::Jobs {
                measured: jobs,
                warmup: WARMUP,
            },
            replications: reps,
            seed,
            point: 0,
            ..RunOptions::new(Length::jobs(1))
        },
    };
    let prep = prepare(&req).unwrap();
    let res = prep.run(None, None).unwrap();
    Run { prep, res }
}

fn run(policy: SimPolicy, spec: &str, hosts: usize, load: &str, cutoffs: &[&str]) -> Run {
    run_with(policy, spec, hosts, load, cutoffs, None, JOBS, REPS, SEED)
}

fn assert_within(what: &str, e: &Estimate, exact: f64) {
    assert!(
        e.half_width.is_finite() && e.half_width > 0.0,
        "{what}: half-width {}",
        e.half_width
    );
    let z = (e.mean - exact) / e.half_width;
    assert!(
        z.abs() <= TOL_HALF_WIDTHS,
        "{what}: simulated {} ± {} vs exact {exact} (z = {z:.2} half-widths)",
        e.mean,
        e.half_width
    );
}

/// The exact evaluation by the analytic core (policy::evaluate, ARCHITECTURE.md formulas).
fn exact(
    kind: PolicyKind,
    spec: &str,
    hosts: usize,
    load: &str,
    cutoffs: &[&str],
) -> (f64, Vec<f64>, f64) {
    let d = DistSpec::parse(spec).unwrap().build(BITS).unwrap();
    let (lambda, _) = LoadSpec::Total(load.into())
        .resolve(d.as_ref(), hosts)
        .unwrap();
    let cut: Vec<_> = cutoffs
        .iter()
        .map(|c| parse_decimal(c, BITS).unwrap())
        .collect();
    let e = evaluate(kind, d.as_ref(), &lambda, hosts, &cut, Metric::Waiting).unwrap();
    (
        e.value.to_f64(),
        e.host_waiting.iter().map(|x| x.to_f64()).collect(),
        e.wasted.to_f64(),
    )
}

#[test]
fn sita_matches_its_exact_formula_at_several_loads() {
    // Source: SITA formula of ARCHITECTURE.md (Pollaczek–Khinchine per host on a thinned Poisson
    // stream: exact), evaluated by policy::evaluate.
    let cases: [(&str, &[&str]); 2] = [
        ("exp:rate=1", &["1"]),
        ("bp:k=1,p=100,alpha=1.5", &["3", "12"]),
    ];
    for (spec, cut) in cases {
        let hosts = cut.len() + 1;
        for load in ["0.3", "0.6", "0.9"] {
            let r = run(SimPolicy::Sita, spec, hosts, load, cut);
            let (w, hw, _) = exact(PolicyKind::Sita, spec, hosts, load, cut);
            assert_within(&format!("SITA {spec} ρ={load} waiting"), &r.res.waiting, w);
            for (i, (e, x)) in r.res.host_waiting.iter().zip(&hw).enumerate() {
                assert_within(&format!("SITA {spec} ρ={load} host {}", i + 1), e, *x);
            }
            // Exponential sizes must not raise the heavy-tail warning (its empirical rules
            // have false-alarm rates of about 0.1 %, so only the light tail is asserted).
            if spec.starts_with("exp") {
                assert!(
                    !r.res.heavy_tail.warned(),
                    "{spec} ρ={load}: {:?}",
                    r.res.heavy_tail
                );
            }
        }
    }
}

#[test]
fn random_matches_its_exact_formula_at_several_loads() {
    // Source: Random formula of ARCHITECTURE.md, E[W] = (λ/h) E[X²] / (2 (1 − ρ/h)) (M/G/1 per
    // host on a thinned Poisson stream: exact), evaluated by policy::evaluate.
    let spec = "hyperexp:p=0.2,rate1=0.5,rate2=4";
    for load in ["0.5", "1.2", "2.1"] {
        let r = run(SimPolicy::Random, spec, 3, load, &[]);
        let (w, _, _) = exact(PolicyKind::Random, spec, 3, load, &[]);
        assert_within(&format!("Random ρ={load}"), &r.res.waiting, w);
    }
}

#[test]
fn tags_host_one_and_wasted_work_match_their_exact_formulas() {
    // Source: TAGS formula of ARCHITECTURE.md. Host 1 sees the whole Poisson stream and serves
    // min(X, s_1): its Q_1 is exact. The wasted service Σ_{i<h} s_i F̄(s_i) does not
    // involve queueing at all, so it is exact too. Hosts ≥ 2 are the Poisson
    // approximation and are not asserted here (see data/tags_poisson_error.*).
    let spec = "exp:rate=1";
    let cut = ["0.8", "2.5"];
    for load in ["0.3", "0.6", "0.9"] {
        let r = run(SimPolicy::Tags, spec, 3, load, &cut);
        let (_, hw, wasted) = exact(PolicyKind::Tags, spec, 3, load, &cut);
        assert_within(
            &format!("TAGS ρ={load} host 1"),
            &r.res.host_waiting[0],
            hw[0],
        );
        assert_within(&format!("TAGS ρ={load} wasted"), &r.res.wasted, wasted);
        // The decomposition: waiting = queueing + wasted, replication by replication.
        let sum = r.res.queueing.mean + r.res.wasted.mean;
        assert!((sum - r.res.waiting.mean).abs() <= 1e-9 * r.res.waiting.mean);
    }
}

/// Mean waiting of M/M/h from the closed form of Erlang's C formula (Kleinrock 1975,
/// Queueing Systems I, eq. 3.40 and 3.42), with offered load a = λ/μ and μ = 1:
/// C = (a^h/h!)(h/(h−a)) / (Σ_{k<h} a^k/k! + (a^h/h!)(h/(h−a))), W = C/(h − a).
fn erlang_c_closed_form(a: f64, h: u32) -> f64 {
    let fact = |n: u32| (1..=n).map(f64::from).product::<f64>();
    let top = a.powi(h as i32) / fact(h) * f64::from(h) / (f64::from(h) - a);
    let sum: f64 = (0..h).map(|k| a.powi(k as i32) / fact(k)).sum();
    top / (sum + top) / (f64::from(h) - a)
}

#[test]
fn lwl_is_mmh_for_exponential_sizes() {
    // Least-Work-Left = the M/G/h central FCFS queue; with exponential sizes it is M/M/h,
    // whose mean waiting is Erlang C (closed form above).
    for (h, load) in [(2u32, "0.6"), (2, "1.4"), (4, "3.2")] {
        let r = run(SimPolicy::Lwl, "exp:rate=1", h as usize, load, &[]);
        let a: f64 = load.parse().unwrap();
        assert_within(
            &format!("LWL h={h} ρ={load}"),
            &r.res.waiting,
            erlang_c_closed_form(a, h),
        );
    }
}

/// Mean waiting of GI/M/1 with service rate μ = 1: W = σ/(1 − σ), where σ ∈ (0, 1) solves
/// σ = A*(1 − σ) and A* is the Laplace–Stieltjes transform of the inter-arrival time
/// (Kleinrock 1975, §6.4, eq. 6.21 and 6.30). Found by fixed-point iteration from 0.
fn gim1_waiting(lst: impl Fn(f64) -> f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..GIM1_ITERATIONS {
        s = lst(1.0 - s);
    }
    s / (1.0 - s)
}

#[test]
fn round_robin_hosts_are_erlang_m_1_queues() {
    // Round-Robin with h hosts and Poisson(λ) arrivals: each host sees Erlang(h, λ) gaps,
    // A*(s) = (λ/(λ + s))^h, and exponential sizes make it E_h/M/1 (GI/M/1 above).
    for (h, load) in [(2usize, "1.0"), (3, "2.4")] {
        let r = run(SimPolicy::RoundRobin, "exp:rate=1", h, load, &[]);
        let lambda: f64 = load.parse().unwrap();
        let w = gim1_waiting(|s| (lambda / (lambda + s)).powi(h as i32));
        assert_within(&format!("RR h={h} ρ={load}"), &r.res.waiting, w);
    }
}

#[test]
fn renewal_arrivals_give_d_m_1() {
    // Deterministic gaps rescaled to 1/λ and exponential sizes: D/M/1, A*(s) = e^(−s/λ)
    // (GI/M/1 above).
    for load in ["0.5", "0.8"] {
        let r = run_with(
            SimPolicy::Random,
            "exp:rate=1",
            1,
            load,
            &[],
            Some("det:x=1"),
            JOBS,
            REPS,
            SEED,
        );
        assert!(
            r.prep.notes.iter().any(|n| n.contains("no analytic value")),
            "no formula for renewal arrivals: {:?}",
            r.prep.notes
        );
        let lambda: f64 = load.parse().unwrap();
        let w = gim1_waiting(|s| (-s / lambda).exp());
        assert_within(&format!("D/M/1 ρ={load}"), &r.res.waiting, w);
    }
}

#[test]
fn one_host_policies_are_mg1_and_jsq_beats_random() {
    // With one host every policy is the M/G/1 queue (Pollaczek–Khinchine, via the Random
    // formula with h = 1).
    let spec = "uniform:a=0,b=2";
    let (w, _, _) = exact(PolicyKind::Random, spec, 1, "0.7", &[]);
    for p in [SimPolicy::Jsq, SimPolicy::RoundRobin, SimPolicy::Lwl] {
        let r = run(p, spec, 1, "0.7", &[]);
        assert_within(&format!("{} h=1", p.name()), &r.res.waiting, w);
    }
    // Winston (1977): with exponential sizes JSQ minimises the number in system among the
    // policies that do not see sizes, Random among them; the gap is large at ρ/h = 0.8.
    let jsq = run(SimPolicy::Jsq, "exp:rate=1", 2, "1.6", &[]);
    let rnd = run(SimPolicy::Random, "exp:rate=1", 2, "1.6", &[]);
    assert!(jsq.res.waiting.interval().1 < rnd.res.waiting.interval().0);
    // The M/M/h central queue (LWL) serves at the largest possible rate min(n, h)μ in
    // every state n, so a coupling gives N_LWL ≤_st N_JSQ and, by Little's law, its mean
    // waiting (Erlang C) is at most JSQ's.
    assert!(erlang_c_closed_form(1.6, 2) <= jsq.res.waiting.interval().1);
}

#[test]
fn same_seed_same_numbers_with_one_and_two_threads() {
    for (p, cut) in [
        (SimPolicy::Tags, vec!["0.8"]),
        (SimPolicy::Jsq, vec![]),
        (SimPolicy::Random, vec![]),
    ] {
        let dist = DistSpec::parse("exp:rate=1").unwrap();
        let req = DispatchSimRequest {
            policy: p,
            dist: &dist,
            hosts: 2,
            load: LoadSpec::Total("1.2".into()),
            cutoffs: cut.iter().map(|s| s.to_string()).collect(),
            interarrival: None,
            run: RunOptions {
                length: Length::Jobs {
                    measured: 5_000,
                    warmup: 500,
                },
                replications: 5,
                seed: SEED,
                point: 3,
                ..RunOptions::new(Length::jobs(1))
            },
        };
        let prep = prepare(&req).unwrap();
        let one = prep.run(Some(1), None).unwrap();
        let two = prep.run(Some(2), None).unwrap();
        assert_eq!(one, two, "{}", p.name());
        // Another seed gives other numbers.
        let other = DispatchSimRequest {
            run: RunOptions {
                seed: SEED + 1,
                ..req.run
            },
            ..req
        };
        let prep2 = prepare(&other).unwrap();
        let three = prep2.run(Some(2), None).unwrap();
        assert_ne!(one.waiting.mean, three.waiting.mean);
    }
}

fn sig(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{:.*e}", SNAPSHOT_DIGITS - 1, x)
    }
}

#[test]
fn fixed_seed_snapshot() {
    // The key numbers of small fixed-seed runs, as decimal strings with 10 significant
    // digits: any change in the generator, the seeding, the order of the draws or a
    // simulator shows up here.
    let mut out = String::from("policy | waiting | half_width | slowdown | host_waiting\n");
    for (p, spec, h, load, cut) in [
        (
            SimPolicy::Sita,
            "bp:k=1,p=100,alpha=1.5",
            2,
            "0.8",
            vec!["5"],
        ),
        (
            SimPolicy::Tags,
            "bp:k=1,p=100,alpha=1.5",
            2,
            "0.8",
            vec!["5"],
        ),
        (SimPolicy::Random, "exp:rate=1", 2, "1", vec![]),
        (SimPolicy::RoundRobin, "exp:rate=1", 2, "1", vec![]),
        (SimPolicy::Lwl, "exp:rate=1", 3, "2", vec![]),
        (SimPolicy::Jsq, "exp:rate=1", 3, "2", vec![]),
    ] {
        let r = run_with(p, spec, h, load, &cut, None, 2_000, 3, 7);
        let hosts: Vec<String> = r.res.host_waiting.iter().map(|e| sig(e.mean)).collect();
        out.push_str(&format!(
            "{} {spec} h={h} ρ={load} | {} | {} | {} | {}\n",
            p.name(),
            sig(r.res.waiting.mean),
            sig(r.res.waiting.half_width),
            sig(r.res.slowdown.mean),
            hosts.join(", ")
        ));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn bad_configurations_are_errors() {
    let huge = DistSpec::parse("bp:k=1,p=1e1000,alpha=1").unwrap();
    assert!(
        prepare(&req_of(&huge)).is_err(),
        "p = 1e1000 is not simulable in f64"
    );
    let exp = DistSpec::parse("exp:rate=1").unwrap();
    assert!(prepare(&req_of(&exp)).is_ok());
    let base = req_of(&exp).run;
    assert!(prepare(&DispatchSimRequest {
        run: RunOptions {
            length: Length::Jobs {
                measured: 0,
                warmup: 0,
            },
            ..base.clone()
        },
        ..req_of(&exp)
    })
    .is_err());
    assert!(prepare(&DispatchSimRequest {
        run: RunOptions {
            replications: 1,
            ..base
        },
        ..req_of(&exp)
    })
    .is_err());
    // SITA at ρ = 1.5 with a cutoff that leaves host 2 overloaded.
    assert!(prepare(&DispatchSimRequest {
        policy: SimPolicy::Sita,
        load: LoadSpec::Total("1.5".into()),
        cutoffs: vec!["0.1".into()],
        ..req_of(&exp)
    })
    .is_err());
    // Random takes no cutoffs; SITA needs h − 1 of them.
    assert!(prepare(&DispatchSimRequest {
        policy: SimPolicy::Random,
        cutoffs: vec!["1".into()],
        ..req_of(&exp)
    })
    .is_err());
    assert!(prepare(&DispatchSimRequest {
        policy: SimPolicy::Sita,
        ..req_of(&exp)
    })
    .is_err());
}

/// A small valid LWL request on `d`.
fn req_of(d: &DistSpec) -> DispatchSimRequest<'_> {
    DispatchSimRequest {
        policy: SimPolicy::Lwl,
        dist: d,
        hosts: 2,
        load: LoadSpec::Total("0.5".into()),
        cutoffs: vec![],
        interarrival: None,
        run: RunOptions {
            length: Length::Jobs {
                measured: 10,
                warmup: 0,
            },
            replications: 2,
            seed: 1,
            point: 0,
            ..RunOptions::new(Length::jobs(1))
        },
    }
}

#[test]
fn mean_of_exponential_sizes_is_recovered() {
    // Response − waiting is the mean size: E[X] = 1/rate for Exp(rate) (a check of the
    // bookkeeping, not of the sampler, whose KS test lives in tests/dist_ks.rs).
    let r = run(SimPolicy::Random, "exp:rate=2", 1, "0.5", &[]);
    let d = DistSpec::parse("exp:rate=2").unwrap().build(BITS).unwrap();
    let mean = d.mean().unwrap().to_f64();
    let size = r.res.response.mean - r.res.waiting.mean;
    assert!((size - mean).abs() < 0.02 * mean, "{size} vs {mean}");
}

//! The occupancy simulator against the exact chain, the per-server simulator and the
//! fluid limit; determinism across thread counts.

use taskassign::lb::{exact, ExactOptions, ExactResult};
use taskassign::lb::{fluid_trajectory as trajectory, FluidOptions, Limit};
use taskassign::lb::{summarize, JsqSummary, OccupancySim, PerServerSim, Plan};
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::sim::Estimate;
use taskassign::sim::{Replicator, Simulator};

/// Half-widths allowed between a simulated mean and its exact value.
const HALF_WIDTHS: f64 = 4.0;

fn system(kind: ModelKind, lambda: &str, b: Option<u32>, n: u64, d: u64, s: Sampling) -> JsqSystem {
    JsqSystem::new(Model::new(kind, lambda, b).unwrap(), n, &DSpec::Fixed(d), s).unwrap()
}

fn within(e: &Estimate, want: f64, what: &str) {
    assert!(
        e.half_width.is_finite() && (e.mean - want).abs() <= HALF_WIDTHS * e.half_width + 1e-12,
        "{what}: simulated {} ± {} vs exact {want} ({:.1} half-widths)",
        e.mean,
        e.half_width,
        (e.mean - want).abs() / e.half_width
    );
}

fn compare_with_exact(s: &JsqSummary, x: &ExactResult, what: &str) {
    within(
        &s.mean_tasks,
        x.mean_tasks.value,
        &format!("{what} mean tasks"),
    );
    for (i, q) in x.occupancy.iter().map(|v| v.value).enumerate() {
        if q < 1e-4 {
            break;
        }
        let e = s.occupancy.get(i).copied().unwrap_or(Estimate {
            mean: 0.0,
            half_width: 0.0,
            replications: 0,
            count: 0,
        });
        within(&e, q, &format!("{what} q_{}", i + 1));
    }
    if x.blocking.value > 0.0 {
        within(&s.blocking, x.blocking.value, &format!("{what} blocking"));
    }
}

fn cases() -> Vec<(JsqSystem, &'static str)> {
    use ModelKind::{Pools, Queues};
    use Sampling::{With, Without};
    vec![
        (
            system(Queues, "0.8", None, 2, 2, Without),
            "queues N2 d2 b=inf",
        ),
        (
            system(Queues, "0.7", None, 3, 2, Without),
            "queues N3 d2 b=inf",
        ),
        (
            system(Queues, "0.7", None, 3, 2, With),
            "queues N3 d2 with b=inf",
        ),
        (
            system(Queues, "0.9", Some(3), 3, 3, Without),
            "queues N3 JSQ b3",
        ),
        (
            system(Queues, "1.2", Some(4), 4, 2, Without),
            "queues N4 d2 b4 overloaded",
        ),
        (
            system(Queues, "0.85", Some(4), 5, 2, With),
            "queues N5 d2 with b4",
        ),
        (
            system(Queues, "0.85", Some(4), 5, 3, Without),
            "queues N5 d3 b4",
        ),
        (
            system(Pools, "1.5", None, 2, 2, Without),
            "pools N2 JSQ B=inf",
        ),
        (
            system(Pools, "2.2", Some(3), 3, 2, Without),
            "pools N3 d2 B3",
        ),
        (
            system(Pools, "2.2", Some(3), 3, 2, With),
            "pools N3 d2 with B3",
        ),
        (system(Pools, "3", Some(3), 4, 1, Without), "pools N4 d1 B3"),
    ]
}

fn plan(system: &JsqSystem) -> Plan {
    // About 2·10^5 events per replication: the rate is about (λ + q_1)N for queues.
    let n = system.servers() as f64;
    let rate = n * (system.model().lambda() + 1.0).min(6.0);
    Plan::new(50.0, 2.0e5 / rate)
}

#[test]
fn occupancy_simulator_matches_the_exact_chain() {
    let runner = Replicator::new(11, 0, 10).unwrap();
    for (sys, what) in cases() {
        let x = exact(&sys, &ExactOptions::default()).unwrap();
        let sim = OccupancySim::new(&sys, &plan(&sys)).unwrap();
        let reps = runner.run(&sim, None).unwrap();
        let s = summarize(&sys, &reps).unwrap();
        compare_with_exact(&s, &x, what);
        assert_eq!(s.samples_per_arrival, sys.d().d as f64);
    }
}

#[test]
fn per_server_simulator_matches_the_exact_chain() {
    let runner = Replicator::new(12, 0, 10).unwrap();
    for (sys, what) in cases() {
        let x = exact(&sys, &ExactOptions::default()).unwrap();
        let sim = PerServerSim::new(&sys, &plan(&sys)).unwrap();
        let reps = runner.run(&sim, None).unwrap();
        let s = summarize(&sys, &reps).unwrap();
        compare_with_exact(&s, &x, &format!("per-server {what}"));
        // The per-server simulator counts its draws: d per arrival.
        let arrivals: u64 = reps.tallies.iter().map(|o| o.samples_drawn).sum();
        assert!(arrivals > 0 && arrivals % sys.d().d == 0);
    }
}

#[test]
fn occupancy_and_per_server_agree_at_moderate_n() {
    // N = 50, d = 3 and d = 50 (beyond the exact chain): the two simulators, independent
    // implementations on independent streams, within 4 combined half-widths.
    for (kind, lambda, b, d) in [
        (ModelKind::Queues, "0.95", None, 3u64),
        (ModelKind::Queues, "0.95", Some(3), 50),
        (ModelKind::Pools, "2.5", None, 3),
    ] {
        let sys = system(kind, lambda, b, 50, d, Sampling::Without);
        let plan = Plan::new(100.0, 2000.0);
        let a = summarize(
            &sys,
            &Replicator::new(1, 0, 8)
                .unwrap()
                .run(&OccupancySim::new(&sys, &plan).unwrap(), None)
                .unwrap(),
        )
        .unwrap();
        let p = summarize(
            &sys,
            &Replicator::new(2, 0, 8)
                .unwrap()
                .run(&PerServerSim::new(&sys, &plan).unwrap(), None)
                .unwrap(),
        )
        .unwrap();
        for (i, (x, y)) in a.occupancy.iter().zip(&p.occupancy).enumerate().take(5) {
            let hw = (x.half_width.powi(2) + y.half_width.powi(2)).sqrt();
            assert!(
                (x.mean - y.mean).abs() <= HALF_WIDTHS * hw + 1e-12,
                "{kind:?} d {d} q_{}: {} ± {} vs {} ± {}",
                i + 1,
                x.mean,
                x.half_width,
                y.mean,
                y.half_width
            );
        }
    }
}

#[test]
fn identical_for_any_thread_count() {
    let sys = system(ModelKind::Queues, "0.9", None, 1000, 2, Sampling::Without);
    let mut plan = Plan::new(10.0, 20.0);
    plan.sample_times = vec![1.0, 5.0, 29.0];
    let sim = OccupancySim::new(&sys, &plan).unwrap();
    let runner = Replicator::new(5, 3, 6).unwrap();
    let one = runner.threads(1).run(&sim, None).unwrap();
    let two = runner.threads(2).run(&sim, None).unwrap();
    assert_eq!(one, two);
    assert_eq!(summarize(&sys, &one), summarize(&sys, &two));
    // Different replications are different; a replication is a function of its streams.
    assert_ne!(one.tallies[0], one.tallies[1]);
    assert_eq!(sim.replicate(&runner.streams(4)), one.tallies[4]);
}

#[test]
fn trajectories_follow_the_fluid_limit() {
    // N = 20000 from empty: the mean sampled occupancy against the ODE. The mean-field
    // error is O(1/N) (Kurtz's theorem gives O(1/√N) fluctuations, whose mean is O(1/N));
    // allowed: 4 half-widths + 20/N.
    let n = 20_000u64;
    let times = [0.5, 1.0, 2.0, 4.0];
    for (kind, lambda, d, limit) in [
        (ModelKind::Queues, "0.9", 2u64, Limit::PowerOfD(2)),
        (ModelKind::Pools, "2.5", n, Limit::Jsq),
    ] {
        let model = Model::new(kind, lambda, None).unwrap();
        let sys = JsqSystem::new(model.clone(), n, &DSpec::Fixed(d), Sampling::Without).unwrap();
        let mut plan = Plan::new(0.0, 4.5);
        plan.sample_times = times.to_vec();
        let s = summarize(
            &sys,
            &Replicator::new(3, 0, 8)
                .unwrap()
                .run(&OccupancySim::new(&sys, &plan).unwrap(), None)
                .unwrap(),
        )
        .unwrap();
        let tr = trajectory(&model, limit, &[], &times, &FluidOptions::default()).unwrap();
        for (k, t) in times.iter().enumerate() {
            for i in 0..3 {
                let want = tr.occupancy[k].get(i).copied().unwrap_or(0.0);
                let e = s.trajectory[k].get(i).copied().unwrap_or(Estimate {
                    mean: 0.0,
                    half_width: 0.0,
                    replications: 8,
                    count: 8,
                });
                assert!(
                    (e.mean - want).abs() <= HALF_WIDTHS * e.half_width + 20.0 / n as f64,
                    "{kind:?} t {t} q_{}: {} ± {} vs fluid {want}",
                    i + 1,
                    e.mean,
                    e.half_width
                );
            }
        }
    }
}

#[test]
fn bad_plans_are_rejected() {
    let sys = system(ModelKind::Queues, "0.5", Some(2), 3, 2, Sampling::Without);
    assert!(OccupancySim::new(&sys, &Plan::new(-1.0, 1.0)).is_err());
    assert!(OccupancySim::new(&sys, &Plan::new(0.0, 0.0)).is_err());
    let mut p = Plan::new(0.0, 1.0);
    p.start = vec![3, 3, 1];
    assert!(OccupancySim::new(&sys, &p).is_err());
    p.start = vec![2, 3];
    assert!(OccupancySim::new(&sys, &p).is_err());
    assert!(Replicator::new(0, 0, 1).is_err());
    let mut p = Plan::new(0.0, 1.0);
    p.reference = vec![0.5, 1.5];
    assert!(OccupancySim::new(&sys, &p).is_err());
}

#[test]
fn the_comparison_can_fail() {
    // The check has power: the simulated JSQ(2) without replacement at N = 3 is more than
    // 4 half-widths from the exact values of the with-replacement chain (mean tasks 1.48
    // against 1.52 at λ = 0.7: the two policies differ visibly at small N).
    let sim_sys = system(ModelKind::Queues, "0.7", None, 3, 2, Sampling::Without);
    let other = system(ModelKind::Queues, "0.7", None, 3, 2, Sampling::With);
    let x = exact(&other, &ExactOptions::default()).unwrap();
    let s = summarize(
        &sim_sys,
        &Replicator::new(11, 0, 10)
            .unwrap()
            .run(&OccupancySim::new(&sim_sys, &plan(&sim_sys)).unwrap(), None)
            .unwrap(),
    )
    .unwrap();
    let z = (s.mean_tasks.mean - x.mean_tasks.value).abs() / s.mean_tasks.half_width;
    assert!(z > HALF_WIDTHS, "only {z:.1} half-widths apart");
}

#[test]
fn distance_to_a_reference_is_measured_two_ways() {
    // Identities, per replication and exact up to rounding: with the reference r = 0 the
    // ℓ1 distance Σ_i Q_i/N is the tasks per server; with r = (1, …, 1) on the b levels of
    // a buffer b it is b minus the tasks per server.
    let sys = system(ModelKind::Queues, "0.9", Some(4), 30, 2, Sampling::Without);
    let runner = Replicator::new(21, 0, 4).unwrap();
    for (reference, offset, sign) in [(vec![0.0], 0.0, 1.0), (vec![1.0; 4], 4.0, -1.0)] {
        let mut p = Plan::new(5.0, 50.0);
        p.reference = reference.clone();
        // The second reference accumulates the same integral when it is the same point.
        p.own_reference = reference;
        let s = summarize(
            &sys,
            &runner
                .run(&OccupancySim::new(&sys, &p).unwrap(), None)
                .unwrap(),
        )
        .unwrap();
        let d = s.distance.unwrap();
        assert_eq!(s.distance_own.unwrap().mean, d.mean);
        assert!(
            (d.mean - (offset + sign * s.mean_tasks.mean)).abs() < 1e-9,
            "{} vs {}",
            d.mean,
            s.mean_tasks.mean
        );
    }
    // Against JSQ's fluid fixed point (0.9, 0, …), N = 50, d = 3: the two simulators
    // (independent implementations, independent streams) within 4 combined half-widths,
    // and so are the spreads of the idle servers (N − Q_1)/√N.
    let sys = system(ModelKind::Queues, "0.9", None, 50, 3, Sampling::Without);
    let mut p = Plan::new(50.0, 1000.0);
    p.reference = vec![0.9];
    // Power-of-3's own fixed point q_i = λ^((3^i − 1)/2) (Vvedenskaya et al. 1996): the
    // second reference, measured by both simulators alike.
    p.own_reference = (1..=6)
        .map(|i| 0.9f64.powi((3i32.pow(i) - 1) / 2))
        .collect();
    let a = summarize(
        &sys,
        &Replicator::new(1, 0, 8)
            .unwrap()
            .run(&OccupancySim::new(&sys, &p).unwrap(), None)
            .unwrap(),
    )
    .unwrap();
    let b = summarize(
        &sys,
        &Replicator::new(2, 0, 8)
            .unwrap()
            .run(&PerServerSim::new(&sys, &p).unwrap(), None)
            .unwrap(),
    )
    .unwrap();
    for (x, y, what) in [
        (a.distance.unwrap(), b.distance.unwrap(), "distance"),
        (
            a.distance_own.unwrap(),
            b.distance_own.unwrap(),
            "distance to the own fixed point",
        ),
        (a.scaled_idle_sd, b.scaled_idle_sd, "sd of idle"),
        (
            a.scaled_occupancy_sq[0],
            b.scaled_occupancy_sq[0],
            "E[((N - Q1)/sqrt N)^2]",
        ),
    ] {
        let hw = (x.half_width.powi(2) + y.half_width.powi(2)).sqrt();
        assert!(
            (x.mean - y.mean).abs() <= HALF_WIDTHS * hw,
            "{what}: {} ± {} vs {} ± {}",
            x.mean,
            x.half_width,
            y.mean,
            y.half_width
        );
    }
    // The spread is the square root of the second moment less the squared mean (per
    // replication first, so only approximately for the averages: within 5 %).
    let m1 = a.scaled_occupancy[0].mean;
    let m2 = a.scaled_occupancy_sq[0].mean;
    assert!(((m2 - m1 * m1).sqrt() / a.scaled_idle_sd.mean - 1.0).abs() < 0.05);
}

/// The relaxation time the length rule reads from a run, against two closed forms: the
/// integrated autocorrelation time of the number in an M/M/1 queue (N = 1) is
/// (1 + ρ)/(1 − ρ)², the asymptotic variance 2ρ(1 + ρ)/(1 − ρ)⁴ of its time average
/// (Whitt 1989, "Planning queueing simulations", *Management Science* 35(11)) over twice
/// its variance ρ/(1 − ρ)²: 6 at ρ = 0.5; the tasks of pools without capacity are an
/// M/M/∞ queue whatever the routing, whose autocorrelation is e^−t (τ = 1), and for it the
/// estimator's batches of width w (the run's 1000th) are accounted for exactly: batch means
/// of an e^−t/τ correlation have the variance Var · 2(τ/w)²(w/τ − 1 + e^−w/τ), and the
/// estimator reads the asymptotic variance 2τ Var over twice that (1.113 at w = 0.33).
/// 100 replications of time 300 hold 5000 τ of the M/M/1 queue, so Sokal's estimator has
/// a standard error of about √(2(2M + 1)/n) = 7 % (M = 5τ; 3 % for the pools): the
/// tolerances are about 3 of them.
#[test]
fn relaxation_time_matches_closed_forms() {
    use taskassign::lb::{simulate as run, Measure, DEFAULT_RUN};
    use taskassign::sim::{Length, LengthRule, RunOptions};
    let long = RunOptions {
        length: Length::time(300.0),
        length_rule: LengthRule::Given,
        replications: 100,
        threads: Some(1),
        ..DEFAULT_RUN
    };
    let mm1 = system(ModelKind::Queues, "0.5", None, 1, 1, Sampling::Without);
    let r = run(&mm1, &long, Measure::Stationary, None).unwrap();
    let tau = r.length_choice.relaxation.unwrap();
    assert!(
        tau.resolved && (tau.tau / 6.0 - 1.0).abs() < 0.2,
        "M/M/1 at 0.5: {tau:?}"
    );
    let pools = system(ModelKind::Pools, "5", None, 100, 2, Sampling::Without);
    let r = run(&pools, &long, Measure::Stationary, None).unwrap();
    let tau = r.length_choice.relaxation.unwrap();
    let w: f64 = 330.0 / 1000.0;
    let want = 1.0 / (2.0 / (w * w) * (w - 1.0 + (-w).exp()));
    assert!(
        tau.resolved && (tau.tau / want - 1.0).abs() < 0.1,
        "M/M/inf: {tau:?} vs {want}"
    );
}

/// The length rule: a run that already holds 200 relaxation times (pools, τ = 1, from time
/// 1000) is run once, as it is; the 3-server JSQ(2) chain at λ = 0.8 (τ about 15–20, the
/// case whose intervals covered 89 % at the old default of time 100) is run again longer,
/// at least 200 τ̂, and the record's reason says which time ran and why.
#[test]
fn the_default_length_follows_the_relaxation_time() {
    use taskassign::lb::{
        simulate as run, Measure, DEFAULT_RUN, DEFAULT_TIME, RELAXATION_MULTIPLE,
    };
    use taskassign::sim::{Length, RunOptions};
    let o = RunOptions {
        threads: Some(1),
        ..DEFAULT_RUN
    };
    let pools = system(ModelKind::Pools, "5", None, 100, 2, Sampling::Without);
    let from_1000 = RunOptions {
        length: Length::time(1000.0),
        ..o.clone()
    };
    let r = run(&pools, &from_1000, Measure::Stationary, None).unwrap();
    assert_eq!(r.length_choice.tried, vec![1000.0]);
    assert_eq!(r.length, Length::time(1000.0));
    assert!(r.length_choice.reason(1000.0).contains("was long enough"));
    assert_eq!(DEFAULT_RUN.length, Length::time(DEFAULT_TIME));
    let q3 = system(ModelKind::Queues, "0.8", None, 3, 2, Sampling::Without);
    let r = run(&q3, &o, Measure::Stationary, None).unwrap();
    let Length::Time { measured, warmup } = r.length else {
        panic!("a time")
    };
    let tau = r.length_choice.relaxation.unwrap();
    assert!(r.length_choice.tried.len() >= 2, "{:?}", r.length_choice);
    assert!(
        measured >= RELAXATION_MULTIPLE * tau.tau && tau.resolved,
        "{measured} {tau:?}"
    );
    assert_eq!(warmup, measured / 10.0);
    let why = r.length_choice.reason(measured);
    assert!(why.contains("found too short"), "{why}");
    // A time given is run as given, and the record says it is short.
    let given = RunOptions {
        length: Length::time(100.0),
        length_rule: taskassign::sim::LengthRule::Given,
        ..o
    };
    let r = run(&q3, &given, Measure::Stationary, None).unwrap();
    assert_eq!(r.length_choice.tried, vec![100.0]);
    assert!(r.length_choice.reason(100.0).contains("fewer than"));
}

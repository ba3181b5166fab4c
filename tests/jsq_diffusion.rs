//! The Halfin–Whitt diffusion: the scheme's conservation identity and step convergence,
//! and the finite-N occupancy simulator against it.

use taskassign::lb::halfin_whitt_lambda;
use taskassign::lb::simulate_diffusion as simulate;
use taskassign::lb::{summarize, OccupancySim, Plan};
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::sim::Replicator;

/// Largest change of the diffusion estimates accepted when the step is halved from 0.02.
const STEP_TOLERANCE: f64 = 0.02;

#[test]
fn diffusion_identity_and_step_convergence() {
    // In stationarity E[−Q̄_1] = β exactly (lb::diffusion's docs), for the scheme too:
    // within 4 half-widths. The step h = 0.02 moves the means by less than 0.02 against
    // h = 0.01 on the same paths (the bridge-reflected scheme; the plain projection moved
    // E[Q̄_2] by about 0.16 there).
    for beta in [0.5, 1.0] {
        let e = simulate(beta, 0.02, 50.0, 2000.0, 8, 1).unwrap();
        assert!(
            (e.scaled_idle.mean - beta).abs() <= 4.0 * e.scaled_idle.half_width,
            "β {beta}: {} ± {}",
            e.scaled_idle.mean,
            e.scaled_idle.half_width
        );
        assert!(
            e.step_change < STEP_TOLERANCE,
            "β {beta}: {}",
            e.step_change
        );
        assert!(e.scaled_q2.mean > 0.0 && e.scaled_idle_sq.mean > beta * beta);
    }
    assert!(simulate(0.0, 0.01, 1.0, 1.0, 2, 0).is_err());
    assert!(simulate(0.5, 0.5, 1.0, 1.0, 2, 0).is_err());
}

#[test]
fn finite_n_scaled_idle_is_beta() {
    // λ(N) = N − β√N: E[Q_1] = λ(N) (busy servers carry the load), so
    // E[(N − Q_1)/√N] = β for every policy; JSQ and JSQ(2) at N = 400.
    let (n, beta) = (400u64, 0.5);
    let model = Model::from_f64(ModelKind::Queues, halfin_whitt_lambda(n, beta), None).unwrap();
    for d in ["N", "2"] {
        let sys = JsqSystem::new(
            model.clone(),
            n,
            &DSpec::parse(d).unwrap(),
            Sampling::Without,
        )
        .unwrap();
        let s = summarize(
            &sys,
            &Replicator::new(4, 0, 8)
                .unwrap()
                .run(
                    &OccupancySim::new(&sys, &Plan::new(500.0, 2000.0)).unwrap(),
                    None,
                )
                .unwrap(),
        )
        .unwrap();
        let e = s.scaled_occupancy[0];
        assert!(
            (e.mean - beta).abs() <= 4.0 * e.half_width,
            "d {d}: {} ± {}",
            e.mean,
            e.half_width
        );
    }
}

#[test]
#[ignore = "long: N = 10^4 for 4000 time units (about a minute)"]
fn finite_n_approaches_the_diffusion() {
    // JSQ at N = 10^4, β = 0.5, against the diffusion limit on E[Q̄_2] and E[Q̄_1²], within
    // 4 combined half-widths (the finite-N error is not bounded here; at N = 10^4 it was
    // below the noise).
    let (n, beta) = (10_000u64, 0.5);
    let model = Model::from_f64(ModelKind::Queues, halfin_whitt_lambda(n, beta), None).unwrap();
    let sys = JsqSystem::new(model, n, &DSpec::Infinite, Sampling::Without).unwrap();
    let s = summarize(
        &sys,
        &Replicator::new(4, 0, 8)
            .unwrap()
            .run(
                &OccupancySim::new(&sys, &Plan::new(200.0, 4000.0)).unwrap(),
                None,
            )
            .unwrap(),
    )
    .unwrap();
    let e = simulate(beta, 0.01, 50.0, 4000.0, 8, 2).unwrap();
    for (sim, lim, what) in [
        (s.scaled_occupancy[1], e.scaled_q2, "Q2/sqrt N"),
        (
            s.scaled_occupancy_sq[0],
            e.scaled_idle_sq,
            "((N-Q1)/sqrt N)^2",
        ),
    ] {
        let hw = (sim.half_width.powi(2) + lim.half_width.powi(2)).sqrt();
        eprintln!(
            "{what}: N = 10^4 {} ± {}, diffusion {} ± {}",
            sim.mean, sim.half_width, lim.mean, lim.half_width
        );
        assert!((sim.mean - lim.mean).abs() <= 4.0 * hw, "{what}");
    }
}

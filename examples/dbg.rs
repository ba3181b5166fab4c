use taskassign::lb::diffusion::simulate;
use taskassign::lb::model::{DSpec, Model, ModelKind, Sampling, System};
use taskassign::lb::sim::{halfin_whitt_lambda, run, summarize, OccupancySim, Plan, Streams};
fn main() {
    let beta = 0.5;
    for h in [0.02, 0.005] {
        let t = std::time::Instant::now();
        let e = simulate(beta, h, 50.0, 2000.0, 8, 1).unwrap();
        println!(
            "h {h}: idle {:.4}±{:.4} idle2 {:.4}±{:.4} q2 {:.4}±{:.4} change {:.4} {:?}",
            e.scaled_idle.mean,
            e.scaled_idle.half_width,
            e.scaled_idle_sq.mean,
            e.scaled_idle_sq.half_width,
            e.scaled_q2.mean,
            e.scaled_q2.half_width,
            e.step_change,
            t.elapsed()
        );
    }
    for n in [1_00u64, 10_000, 1_000_000] {
        for d in ["N", "2"] {
            let lam = halfin_whitt_lambda(n, beta);
            let sys = System::new(
                Model::from_f64(ModelKind::Queues, lam, None).unwrap(),
                n,
                &DSpec::parse(d).unwrap(),
                Sampling::Without,
            )
            .unwrap();
            let t = std::time::Instant::now();
            let horizon = 2e8 / (2.0 * n as f64);
            let s = summarize(
                &sys,
                &run(
                    &OccupancySim::new(&sys, &Plan::new(horizon / 10.0, horizon.min(5000.0)))
                        .unwrap(),
                    &Streams { seed: 1, point: 0 },
                    8,
                    0,
                )
                .unwrap(),
            );
            println!(
                "N {n} d {d}: idle {:.4}±{:.4} idle2 {:.4} q2 {:.4}±{:.4} q3 {:.4} {:?}",
                s.scaled_occupancy[0].mean,
                s.scaled_occupancy[0].half_width,
                s.scaled_occupancy_sq[0].mean,
                s.scaled_occupancy[1].mean,
                s.scaled_occupancy[1].half_width,
                s.scaled_occupancy.get(2).map_or(0.0, |e| e.mean),
                t.elapsed()
            );
        }
    }
}

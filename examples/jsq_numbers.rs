//! Prints exact vs simulated values for a few small systems (used for the report).
use taskassign::lb::{exact, ExactOptions};
use taskassign::lb::{summarize, OccupancySim, PerServerSim, Plan};
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::sim::Replicator;
fn main() {
    for (kind, l, b, n, d, s) in [
        (
            ModelKind::Queues,
            "0.7",
            None,
            3u64,
            2u64,
            Sampling::Without,
        ),
        (ModelKind::Queues, "0.7", None, 3, 2, Sampling::With),
        (
            ModelKind::Queues,
            "0.85",
            Some(4u32),
            5,
            3,
            Sampling::Without,
        ),
        (ModelKind::Pools, "2.2", Some(3), 3, 2, Sampling::Without),
    ] {
        let sys = JsqSystem::new(Model::new(kind, l, b).unwrap(), n, &DSpec::Fixed(d), s).unwrap();
        let x = exact(&sys, &ExactOptions::default()).unwrap();
        let rate = n as f64 * (sys.model().lambda() + 1.0).min(6.0);
        let plan = Plan::new(50.0, 2.0e5 / rate);
        let o = summarize(
            &sys,
            &Replicator::new(11, 0, 10)
                .unwrap()
                .run(&OccupancySim::new(&sys, &plan).unwrap(), None)
                .unwrap(),
        )
        .unwrap();
        let p = summarize(
            &sys,
            &Replicator::new(12, 0, 10)
                .unwrap()
                .run(&PerServerSim::new(&sys, &plan).unwrap(), None)
                .unwrap(),
        )
        .unwrap();
        println!(
            "{kind:?} λ {l} b {b:?} N {n} d {d} {s:?}: states {} trunc {:?}",
            x.states, x.truncation
        );
        println!(
            "  mean  exact {:.6}  occ {:.6} ± {:.6}  per-server {:.6} ± {:.6}",
            x.mean_tasks.value,
            o.mean_tasks.mean,
            o.mean_tasks.half_width,
            p.mean_tasks.mean,
            p.mean_tasks.half_width
        );
        for i in 0..3 {
            println!(
                "  q_{}   exact {:.6}  occ {:.6} ± {:.6}  per-server {:.6} ± {:.6}",
                i + 1,
                x.occupancy[i].value,
                o.occupancy[i].mean,
                o.occupancy[i].half_width,
                p.occupancy[i].mean,
                p.occupancy[i].half_width
            );
        }
        if x.blocking.value > 0.0 {
            println!(
                "  block exact {:.6}  occ {:.6} ± {:.6}  per-server {:.6} ± {:.6}",
                x.blocking.value,
                o.blocking.mean,
                o.blocking.half_width,
                p.blocking.mean,
                p.blocking.half_width
            );
        }
    }
}

//! Events per second of the occupancy simulator (one replication, one thread), for the
//! table of issue 11: `cargo run --release --example jsq_speed [model] [lambda] [with|without] [N]`.
use std::io::Write;
use std::time::Instant;
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::lb::{OccupancySim, Plan};
use taskassign::sim::{Simulator, Streams};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args
        .get(1)
        .map_or("queues", |s| s.as_str())
        .parse()
        .unwrap_or(ModelKind::Queues);
    let lambda = args.get(2).map_or("0.9", |s| s.as_str());
    let sampling = if args.get(3).map(String::as_str) == Some("with") {
        Sampling::With
    } else {
        Sampling::Without
    };
    let only: Option<u64> = args.get(4).and_then(|s| s.parse().ok());
    let events_target = 2.0e7;
    for n in [1_000u64, 10_000, 1_000_000] {
        if only.is_some_and(|m| m != n) {
            continue;
        }
        for d in ["2", "log(N)", "sqrt(N)", "N"] {
            let spec = DSpec::parse(d).unwrap();
            let sys = JsqSystem::new(Model::new(kind, lambda, None).unwrap(), n, &spec, sampling)
                .unwrap();
            // Events per unit time ≈ (λ + q_1)N for queues, 2λN for pools.
            let rate = n as f64 * (sys.model().lambda() + sys.model().lambda().min(1.0));
            let warm = 20.0;
            let plan = Plan::new(warm, events_target / rate);
            let sim = OccupancySim::new(&sys, &plan).unwrap();
            let t = Instant::now();
            let o = sim.replicate(&Streams {
                seed: 1,
                point: 0,
                replication: 0,
            });
            let secs = t.elapsed().as_secs_f64();
            let q1 = o.level_time[0] / (n as f64 * o.measured_time);
            let shown = writeln!(
                std::io::stdout(),
                "{:>8} {:>8} d={:>7} events {:>10} {:>7.2} M events/s  (q1 {:.4})",
                kind.name(),
                n,
                sys.d().d,
                o.events,
                o.events as f64 / secs / 1e6,
                q1
            );
            if shown.is_err() {
                return;
            }
        }
    }
}

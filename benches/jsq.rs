//! Occupancy-simulator throughput: events (arrivals and departures) per second on one
//! core, for the speed table of issue 11.
//!
//! Each benchmark runs one replication (`sim::Simulator::replicate` of `lb::sim::OccupancySim`, no rayon) of
//! queues at λ = 0.9 per server, JSQ(d) without replacement, started at the mean-field
//! fixed point (Q_i = round(N q_i), so the timing is the steady state's) and run for
//! [`EVENTS`] / ((λ + q_1)N) time units: criterion's "elem/s" is events per second, up to
//! the few-per-mille randomness of the event count.
//!
//! Run with `cargo bench --bench jsq`; the peer figure to compare with is the
//! occupancy-count C++ simulator of ngast/meanFieldAccuracy (d = 2, N = 1000), about
//! 26 M events/s on this machine kind.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use taskassign::lb::fixed_point::fixed_point;
use taskassign::lb::fluid::Limit;
use taskassign::lb::model::{DSpec, Model, ModelKind, Sampling, System};
use taskassign::lb::sim::{OccupancySim, Plan};
use taskassign::sim::{Simulator, Streams};

/// Events per timed replication (expected).
const EVENTS: u64 = 1 << 22;
/// Criterion samples per benchmark.
const SAMPLES: usize = 10;
/// λ per server.
const LAMBDA: &str = "0.9";

fn start(model: &Model, d: u64, n: u64) -> Vec<u32> {
    let limit = if d >= n {
        Limit::Jsq
    } else {
        Limit::PowerOfD(d as u32)
    };
    let fp = fixed_point(model, limit, 64).expect("fixed point");
    fp.occupancy
        .iter()
        .map(|q| (q.to_f64() * n as f64).round() as u32)
        .take_while(|&x| x > 0)
        .collect()
}

fn bench_jsq(c: &mut Criterion) {
    let model = Model::new(ModelKind::Queues, LAMBDA, None).expect("model");
    let mut group = c.benchmark_group("jsq");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(SAMPLES);
    for n in [1_000u64, 10_000, 1_000_000] {
        for d in ["2", "log(N)", "sqrt(N)", "N"] {
            let sys = System::new(
                model.clone(),
                n,
                &DSpec::parse(d).expect("d"),
                Sampling::Without,
            )
            .expect("system");
            let mut plan = Plan::new(0.0, EVENTS as f64 / (1.8 * n as f64));
            plan.start = start(&model, sys.d().d, n);
            let sim = OccupancySim::new(&sys, &plan).expect("simulator");
            let streams = Streams {
                seed: 1,
                point: 0,
                replication: 0,
            };
            group.bench_function(format!("queues/N{n}/d={d}"), |b| {
                b.iter(|| black_box(sim.replicate(&streams)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_jsq);
criterion_main!(benches);

//! Occupancy-simulator throughput: events (arrivals and departures) per second on one
//! core, for the speed table of issue 11.
//!
//! Each benchmark runs one replication (`sim::Simulator::replicate` of `lb::sim::OccupancySim`, no rayon) of
//! queues at λ = 0.9 per server, JSQ(d) without replacement, started at the mean-field
//! fixed point (Q_i = round(N q_i), so the timing is the steady state's) and run for
//! [`EVENTS`] / ((λ + q_1)N) time units: criterion's "elem/s" is events per second, up to
//! the few-per-mille randomness of the event count.
//!
//! Run with `cargo bench --bench jsq`.
//!
//! Two more groups measure ratios side by side in the same run:
//!
//! - `jsq-per-server`: the occupancy simulator against the plain per-server one
//!   (`lb::sim::PerServerSim`, d draws per arrival) on the same system, N = 1000 and
//!   N = 10^4, d = 2 and d = N; criterion's "elem/s" is events per second for both.
//! - `jsq-peer`, only when `JSQ_PEER_TWO_CHOICE` names a build of the occupancy-count C++
//!   simulator of ngast/meanFieldAccuracy (`jsq2_simulate/two_choice_simulate.cc`, built
//!   outside the repository with `g++ -O3`; `../shared/peers/README.md`): its experiment
//!   `N1000 r0.9 e1` (JSQ(2) with replacement, 10^7 uniformised events of warm-up from
//!   empty and 2·10^6 measured, i.e. 6315.8 time units at rate (1 + λ)N) as a process,
//!   beside the same system for the same simulated time in taskassign: in process (one
//!   replication, `Simulator::replicate`) and as `taskassign jsq simulate` (a process, two
//!   replications of half the time each, one thread). The ratio of the times is the ratio
//!   of simulated time per second; no throughput is set (the two count events
//!   differently: the peer counts uniformised events, null departures included).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use taskassign::lb::fixed_point;
use taskassign::lb::Limit;
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::lb::{OccupancySim, PerServerSim, Plan};
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
            let sys = JsqSystem::new(
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

/// Events per timed replication in `jsq-per-server` (the per-server simulator at d = N
/// costs N draws per arrival).
const PER_SERVER_EVENTS: u64 = 1 << 17;

fn bench_per_server(c: &mut Criterion) {
    let model = Model::new(ModelKind::Queues, LAMBDA, None).expect("model");
    let mut group = c.benchmark_group("jsq-per-server");
    group.throughput(Throughput::Elements(PER_SERVER_EVENTS));
    group.sample_size(SAMPLES);
    for n in [1_000u64, 10_000] {
        for d in ["2", "N"] {
            let sys = JsqSystem::new(
                model.clone(),
                n,
                &DSpec::parse(d).expect("d"),
                Sampling::Without,
            )
            .expect("system");
            let mut plan = Plan::new(0.0, PER_SERVER_EVENTS as f64 / (1.8 * n as f64));
            plan.start = start(&model, sys.d().d, n);
            let streams = Streams {
                seed: 1,
                point: 0,
                replication: 0,
            };
            let occ = OccupancySim::new(&sys, &plan).expect("simulator");
            group.bench_function(format!("occupancy/N{n}/d={d}"), |b| {
                b.iter(|| black_box(occ.replicate(&streams)))
            });
            let per = PerServerSim::new(&sys, &plan).expect("simulator");
            group.bench_function(format!("per-server/N{n}/d={d}"), |b| {
                b.iter(|| black_box(per.replicate(&streams)))
            });
        }
    }
    group.finish();
}

/// The peer's experiment `N1000 r0.9 e1`: 10^7 + 20000·100 uniformised events at rate
/// (1 + 0.9)·1000, i.e. this many time units of warm-up and of measurement.
const PEER_WARMUP: f64 = 1.0e7 / 1900.0;
/// See [`PEER_WARMUP`].
const PEER_HORIZON: f64 = 2.0e6 / 1900.0;

fn bench_peer(c: &mut Criterion) {
    let Some(peer) = std::env::var_os("JSQ_PEER_TWO_CHOICE") else {
        eprintln!("jsq-peer skipped: set JSQ_PEER_TWO_CHOICE to a build of two_choice_simulate.cc");
        return;
    };
    let model = Model::new(ModelKind::Queues, LAMBDA, None).expect("model");
    let sys = JsqSystem::new(model, 1000, &DSpec::Fixed(2), Sampling::With).expect("system");
    let sim = OccupancySim::new(&sys, &Plan::new(PEER_WARMUP, PEER_HORIZON)).expect("simulator");
    let mut group = c.benchmark_group("jsq-peer");
    group.sample_size(SAMPLES);
    group.measurement_time(std::time::Duration::from_secs(30));
    group.bench_function(
        "meanFieldAccuracy-two_choice/N1000 r0.9 e1 (process)",
        |b| {
            b.iter(|| {
                let out = std::process::Command::new(&peer)
                    .args(["N1000", "r0.9", "e1"])
                    .output()
                    .expect("peer runs");
                assert!(out.status.success(), "peer failed");
                black_box(out.stdout)
            })
        },
    );
    let streams = Streams {
        seed: 1,
        point: 0,
        replication: 0,
    };
    group.bench_function("taskassign-occupancy/N1000 d=2 with (in process)", |b| {
        b.iter(|| black_box(sim.replicate(&streams)))
    });
    let half = |x: f64| format!("{}", x / 2.0);
    group.bench_function("taskassign-jsq-simulate/N1000 d=2 with (process)", |b| {
        b.iter(|| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_taskassign"))
                .args(["jsq", "simulate", "--model", "queues", "--servers", "1000"])
                .args(["--lambda", LAMBDA, "--d", "2", "--sampling", "with"])
                .args([
                    "--warmup",
                    &half(PEER_WARMUP),
                    "--time",
                    &half(PEER_HORIZON),
                ])
                .args(["--replications", "2", "--threads", "1", "--format", "json"])
                .output()
                .expect("taskassign runs");
            assert!(out.status.success(), "taskassign failed");
            black_box(out.stdout)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_jsq, bench_per_server, bench_peer);
criterion_main!(benches);

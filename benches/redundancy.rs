//! Redundancy simulator throughput: jobs per second on one core, for the speed table of
//! issue 12.
//!
//! Each benchmark runs one replication (`RedundancySim::replicate`, no rayon) of
//! [`JOBS`] measured jobs after [`JOBS`]/10 warm-up on the W-model at λ = (0.4, 0.4, 0.8)
//! and on the 4-server nested system (singletons 0.1, pairs 0.4, all four 1.2), for every
//! policy and two laws (exponential; hyperexponential with balanced means, SCV 10), i.i.d.
//! copies: criterion's "elem/s" is jobs per second (warm-up included). FCFS runs by the
//! recursion in arrival order (`Engine::Auto`); the group `redundancy-fcfs-engines` times it
//! beside the event loop (`Engine::Clocks`) on the same jobs, the fast simulator against the
//! plain one.
//!
//! Run with `cargo bench --bench redundancy`. The peer comparison (the independent C
//! simulator `../shared/peers/redundancy_sim.c`, side by side in one run) is
//! `benches/peer/redundancy_peer.sh`.

use criterion::measurement::WallTime;
use criterion::{
    black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput,
};
use taskassign::dist::{DistFactory, DistSpec};
use taskassign::redundancy::ClassSystem;
use taskassign::redundancy::{Copies, Policy, POLICY_NAMES};
use taskassign::redundancy::{Engine, RedundancySim};
use taskassign::sim::{Simulator, Streams};

/// Measured jobs per timed replication.
const JOBS: u64 = 200_000;
/// Criterion samples per benchmark.
const SAMPLES: usize = 10;
/// Precision the laws are built at (their samplers run in f64).
const BITS: u32 = 128;

/// Times one replication of `sim` per iteration, a fresh replication each time.
fn bench_replications(group: &mut BenchmarkGroup<'_, WallTime>, id: String, sim: &RedundancySim) {
    let mut rep = 0u64;
    group.bench_function(id, |b| {
        b.iter(|| {
            rep += 1;
            black_box(sim.replicate(&Streams {
                seed: 1,
                point: 0,
                replication: rep,
            }))
        })
    });
}

fn bench_redundancy(c: &mut Criterion) {
    let systems = [
        (
            "w-model",
            ClassSystem::preset("w-model", &["0.4".into(), "0.4".into(), "0.8".into()]),
        ),
        (
            "nested-4",
            ClassSystem::preset("nested-4", &["0.1".into(), "0.4".into(), "1.2".into()]),
        ),
    ];
    let laws = ["exp:rate=1", "hyperexp:mean=1,scv=10"];
    let mut group = c.benchmark_group("redundancy");
    group.throughput(Throughput::Elements(JOBS + JOBS / 10));
    group.sample_size(SAMPLES);
    for (name, sys) in &systems {
        let sys = sys.as_ref().expect("preset");
        for law in laws {
            let d = DistSpec::parse(law)
                .expect("spec")
                .build(BITS)
                .expect("law");
            for p in POLICY_NAMES {
                let policy = Policy::parse(p, false).expect("policy");
                let sim = RedundancySim::new(sys, policy, Copies::Iid, d.as_ref(), JOBS, JOBS / 10)
                    .expect("simulator");
                bench_replications(&mut group, format!("{name}/{p}/{law}"), &sim);
            }
        }
    }
    group.finish();
    let mut group = c.benchmark_group("redundancy-fcfs-engines");
    group.throughput(Throughput::Elements(JOBS + JOBS / 10));
    group.sample_size(SAMPLES);
    let fcfs = Policy::parse("fcfs", false).expect("policy");
    for (name, sys) in &systems {
        let sys = sys.as_ref().expect("preset");
        let d = DistSpec::parse("exp:rate=1")
            .expect("spec")
            .build(BITS)
            .expect("law");
        for (engine, label) in [(Engine::Auto, "recursion"), (Engine::Clocks, "event-loop")] {
            let sim = RedundancySim::new(sys, fcfs, Copies::Iid, d.as_ref(), JOBS, JOBS / 10)
                .expect("simulator")
                .with_engine(engine);
            bench_replications(&mut group, format!("{name}/{label}"), &sim);
        }
    }
    group.finish();
}

criterion_group!(benches, bench_redundancy);
criterion_main!(benches);

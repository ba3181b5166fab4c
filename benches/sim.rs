//! Simulator throughput: jobs per second on one core.
//!
//! Each benchmark runs one replication of [`JOBS`] jobs on the calling thread
//! (`sim::dispatch::kernels::replicate`, no rayon), so criterion's "elem/s" is jobs per second per
//! core. Sizes are BP(k = 1, p = 1e6, α = 1.1), Poisson arrivals at total load ρ = 0.5:
//! * `sim/sita/h2`: SITA, cutoff 100 (close to SITA-E: for α = 1.1 the equal-load cutoff
//!   solves 1 − s^(−0.1) = (1 − p^(−0.1))/2, s ≈ 109);
//! * `sim/tags/h2`: TAGS, cutoff 100 (host loads ≈ 0.30 and 0.24, stable);
//! * `sim/lwl/h2`, `sim/lwl/h16`: Least-Work-Left (Kiefer–Wolfowitz heap) with 2 and 16
//!   hosts;
//! * `sim/event/mm1-fcfs`, `sim/event/mm1-ros`, `sim/event/mm4-ros`: the M/G/c queue on the
//!   event calendar (`sim::event::mgc`), exponential sizes at ρ/c = 0.5, one and four
//!   servers (elem/s is jobs per second; each job is two events).
//!
//! Run with `cargo bench --bench sim`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use taskassign::dist::{DistFactory, DistSpec};
use taskassign::policy::LoadSpec;
use taskassign::sim::dispatch::replicate;
use taskassign::sim::dispatch::{prepare, DispatchSimRequest};
use taskassign::sim::event::{Discipline, Mgc};
use taskassign::sim::SimPolicy;
use taskassign::sim::{Length, RunOptions, Simulator, Streams};

/// Job sizes of every benchmark.
const SPEC: &str = "bp:k=1,p=1e6,alpha=1.1";
/// Total offered load ρ = λ E[X].
const LOAD: &str = "0.5";
/// The SITA and TAGS cutoff (two hosts).
const CUTOFF: &str = "100";
/// Jobs per timed replication.
const JOBS: u64 = 1 << 20;
/// Job sizes of the event-engine benchmarks (mean 1).
const EVENT_SPEC: &str = "exp:rate=1";
/// Load per server of the event-engine benchmarks.
const EVENT_LOAD_PER_SERVER: f64 = 0.5;
/// Criterion samples per benchmark (each sample runs a replication of [`JOBS`] jobs).
const SAMPLES: usize = 20;

fn bench_sim(c: &mut Criterion) {
    let spec = DistSpec::parse(SPEC).expect("valid spec");
    let mut group = c.benchmark_group("sim");
    group.throughput(Throughput::Elements(JOBS));
    group.sample_size(SAMPLES);
    let cases: [(SimPolicy, usize, &str); 4] = [
        (SimPolicy::Sita, 2, "sita/h2"),
        (SimPolicy::Tags, 2, "tags/h2"),
        (SimPolicy::Lwl, 2, "lwl/h2"),
        (SimPolicy::Lwl, 16, "lwl/h16"),
    ];
    for (policy, hosts, name) in cases {
        let req = DispatchSimRequest {
            policy,
            dist: &spec as &dyn DistFactory,
            hosts,
            load: LoadSpec::Total(LOAD.into()),
            cutoffs: if policy.uses_cutoffs() {
                vec![CUTOFF.into()]
            } else {
                vec![]
            },
            interarrival: None,
            run: RunOptions {
                length: Length::Jobs {
                    measured: JOBS,
                    warmup: 0,
                },
                replications: 2,
                seed: 1,
                point: 0,
                ..RunOptions::new(Length::jobs(1))
            },
        };
        let prep = prepare(&req).expect("stable configuration");
        let mut rep = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                rep += 1;
                black_box(replicate(&prep.config, rep).sum_w)
            })
        });
    }
    let exp = DistSpec::parse(EVENT_SPEC).expect("valid spec");
    for (servers, discipline, name) in [
        (1usize, Discipline::Fcfs, "event/mm1-fcfs"),
        (1, Discipline::Ros, "event/mm1-ros"),
        (4, Discipline::Ros, "event/mm4-ros"),
    ] {
        let sizes = exp
            .build(64)
            .and_then(|d| d.sampler())
            .expect("exponential sampler");
        let lambda = EVENT_LOAD_PER_SERVER * servers as f64;
        let sim = Mgc::new(servers, lambda, sizes, discipline, JOBS, 0).expect("valid queue");
        let mut rep = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                rep += 1;
                let streams = Streams {
                    seed: 1,
                    point: 0,
                    replication: rep,
                };
                black_box(sim.replicate(&streams).sum_w)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_sim);
criterion_main!(benches);

//! Simulator throughput: jobs per second on one core.
//!
//! Each benchmark runs one replication of [`JOBS`] jobs on the calling thread
//! (`sim::dispatch::kernels::replicate`, no rayon), so criterion's "elem/s" is jobs per second per
//! core. Sizes are BP(k = 1, p = 1e6, α = 1.1), Poisson arrivals at total load ρ = 0.5:
//! * `sim/sita/h2`: SITA, cutoff 100 (close to SITA-E: for α = 1.1 the equal-load cutoff
//!   solves 1 − s^(−0.1) = (1 − p^(−0.1))/2, s ≈ 109);
//! * `sim/tags/h2`: TAGS, cutoff 100 (host loads ≈ 0.30 and 0.24, stable);
//! * `sim/lwl/h2`, `sim/lwl/h16`: Least-Work-Left (Kiefer–Wolfowitz heap) with 2 and 16
//!   hosts.
//!
//! Run with `cargo bench --bench sim`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use taskassign::dist::{DistFactory, DistSpec};
use taskassign::policy::LoadSpec;
use taskassign::sim::dispatch::kernels::replicate;
use taskassign::sim::setup::{prepare, SimRequest};
use taskassign::sim::SimPolicy;

/// Job sizes of every benchmark.
const SPEC: &str = "bp:k=1,p=1e6,alpha=1.1";
/// Total offered load ρ = λ E[X].
const LOAD: &str = "0.5";
/// The SITA and TAGS cutoff (two hosts).
const CUTOFF: &str = "100";
/// Jobs per timed replication.
const JOBS: u64 = 1 << 20;
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
        let req = SimRequest {
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
            jobs: JOBS,
            warmup: 0,
            replications: 2,
            seed: 1,
            point: 0,
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
    group.finish();
}

criterion_group!(benches, bench_sim);
criterion_main!(benches);

//! Exact chains: wall time of one `exact` call per chain family (issue 26), on one core.
//!
//! * `jsq-exact`: the sorted-occupancy JSQ(d) chain on its weighted-simplex truncation
//!   (pilot, then levels grown by the proven bound) to 12 certified digits, N = 3 and 4 at
//!   λ = 0.9, d = 2 (`lb::exact::exact`);
//! * `redundancy-exact`: the class-count chain of a non-FCFS policy (LRF-FCFS, ROS) on the
//!   N-model at λ = (0.5, 0.6), 10 digits (`redundancy::exact::exact`), and the product
//!   form of FCFS beside it.
//!
//! Run with `cargo bench --bench exact`. The side-by-side with SciPy's sparse direct solve
//! of the same chains is `benches/peer/exact_scipy.py`; the table of the reference cases
//! through the binary is `benches/peer/exact_cases.sh`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use taskassign::lb::{exact, ExactOptions};
use taskassign::lb::{DSpec, JsqSystem, Model, ModelKind, Sampling};
use taskassign::redundancy::exact as red_exact;
use taskassign::redundancy::{ClassSystem, Policy};

fn bench_jsq(c: &mut Criterion) {
    let mut g = c.benchmark_group("jsq-exact");
    g.sample_size(10);
    for n in [3u64, 4] {
        let m = Model::new(ModelKind::Queues, "0.9", None).unwrap();
        let sys = JsqSystem::new(m, n, &DSpec::Fixed(2), Sampling::Without).unwrap();
        let opts = ExactOptions {
            digits: 12,
            ..Default::default()
        };
        g.bench_function(format!("N={n} d=2 lambda=0.9 12 digits"), |b| {
            b.iter(|| black_box(exact(&sys, &opts).unwrap().mean_tasks.value))
        });
    }
    g.finish();
}

fn bench_redundancy(c: &mut Criterion) {
    let mut g = c.benchmark_group("redundancy-exact");
    g.sample_size(10);
    let sys = ClassSystem::preset("n-model", &["0.5".into(), "0.6".into()]).unwrap();
    for p in ["fcfs", "lrf-fcfs", "ros"] {
        let policy = Policy::parse(p, false).unwrap();
        g.bench_function(format!("N-model (0.5,0.6) {p} 10 digits"), |b| {
            b.iter(|| black_box(red_exact(&sys, policy, 10).unwrap().total_response_f64))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_jsq, bench_redundancy);
criterion_main!(benches);

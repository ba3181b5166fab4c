//! Cost of one certified optimisation (`taskassign optimize`): global grid search, then the
//! polish at the two certifying precisions. Run with
//! `cargo bench --bench optimize -- --warm-up-time 1 --measurement-time 5`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use taskassign::dist::DistSpec;
use taskassign::num::certify_bits;
use taskassign::optimize::{optimal_cutoffs_pair, OptPolicy};
use taskassign::policy::{LoadSpec, Metric};

fn bench_optimize(c: &mut Criterion) {
    let mut group = c.benchmark_group("optimize");
    group.sample_size(10);
    for (pname, pol) in [("sita", OptPolicy::Sita), ("tags", OptPolicy::Tags)] {
        for p in ["1e10", "1e1000"] {
            let d = DistSpec::parse(&format!("bp:k=1,p={p},alpha=1.5")).expect("valid spec");
            for h in [2usize, 4, 16] {
                for digits in [30u32, 100] {
                    let id =
                        BenchmarkId::new(format!("{pname}/p{p}/h{h}"), format!("{digits}digits"));
                    let load = LoadSpec::Total("0.5".into());
                    group.bench_function(id, |b| {
                        b.iter(|| {
                            optimal_cutoffs_pair(
                                &d,
                                &load,
                                h,
                                pol,
                                Metric::Waiting,
                                certify_bits(digits),
                            )
                            .expect("optimum")
                        })
                    });
                    black_box(());
                }
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench_optimize);
criterion_main!(benches);

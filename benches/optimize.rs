//! Cost of one certified optimisation (`taskassign optimize`): global grid search, then the
//! polish at the two certifying precisions. Run with
//! `cargo bench --bench optimize -- --warm-up-time 1 --measurement-time 5`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use taskassign::dist::DistSpec;
use taskassign::num::certify_bits;
use taskassign::optimize::optimize_proven;
use taskassign::optimize::{optimal_cutoffs_pair, OptPolicy};
use taskassign::optimize::{optimize_certified, OptimizeRequest};
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

/// The proven global optimum (`optimize --rigorous`) beside the certified one, both whole
/// answers at the same digits: SITA, bounded Pareto α = 1, p = 10^1000, h = 2 at 50 digits
/// (the target: within 20×) and h = 3 at 20 digits; TAGS at three unbounded laws.
fn bench_proven(c: &mut Criterion) {
    let mut group = c.benchmark_group("optimize_proven");
    group.sample_size(10);
    let d = DistSpec::parse("bp:k=1,p=1e1000,alpha=1").expect("valid spec");
    for (h, digits) in [(2usize, 50u32), (3, 20)] {
        let req = OptimizeRequest {
            policy: OptPolicy::Sita,
            dist: &d,
            hosts: h,
            load: LoadSpec::PerHost("0.5".into()),
            metric: Metric::Waiting,
            digits,
        };
        let id = format!("h{h}/{digits}digits");
        group.bench_function(BenchmarkId::new("certified", &id), |b| {
            b.iter(|| black_box(optimize_certified(&req).expect("certified optimum")))
        });
        group.bench_function(BenchmarkId::new("proven", &id), |b| {
            b.iter(|| black_box(optimize_proven(&req).expect("proven optimum")))
        });
    }
    // TAGS's waiting at unbounded laws, 3 hosts, 20 digits: an optimum on one host (Exp(1),
    // total load 0.2, its value also approached as s_1 → 0, s_2 → +∞: the split ranking of
    // intervals reaching 0 or +∞) and the laws whose densities are enclosed by their closed
    // forms (Weibull, lognormal), beside the certified optimum.
    for (name, spec, load) in [
        ("tags_exp_one_host", "exp:rate=1", "0.2"),
        ("tags_weibull", "weibull:shape=0.5,scale=1", "0.5"),
        ("tags_lognormal", "lognormal:mu=0,sigma=1", "1"),
    ] {
        let d = DistSpec::parse(spec).expect("valid spec");
        let req = OptimizeRequest {
            policy: OptPolicy::Tags,
            dist: &d,
            hosts: 3,
            load: LoadSpec::Total(load.into()),
            metric: Metric::Waiting,
            digits: 20,
        };
        group.bench_function(BenchmarkId::new("certified", name), |b| {
            b.iter(|| black_box(optimize_certified(&req).expect("certified optimum")))
        });
        group.bench_function(BenchmarkId::new("proven", name), |b| {
            b.iter(|| black_box(optimize_proven(&req).expect("proven optimum")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_optimize, bench_proven);
criterion_main!(benches);

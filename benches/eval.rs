//! Benchmarks of the analytic core through the library API.
//!
//! * `eval/{sita,tags}/h{2,16}/bits{64,256,1024}`: one evaluation of the mean waiting time
//!   for BP(k = 1, p = 1e10, α = 1) at total load ρ = 0.5 with geometric cutoffs
//!   s_i = k (p/k)^(i/h). The distribution, λ and the cutoffs are built once, outside the
//!   timed loop. TAGS is stable there: for α = 1 every geometric interval carries
//!   E[X; s_{i−1} < X ≤ s_i] = E[X]/h and s_i F̄(s_i) < 1, so
//!   ρ_i < ρ/h + λ = 0.5/h + 0.5/E[X] ≈ 0.5/h + 0.022 < 1 (checked below before timing).
//! * `threshold/tags/h{2,10}/bits128`: the TAGS stability threshold ρ*(F, h) for the same
//!   distribution (the distribution is built once).
//! * `answer/{certified,rigorous}/{law}/{sita,tags,random}/d{30,50}`: the whole `eval`
//!   answer as the command computes it, certified (two precisions) beside proven
//!   (`--rigorous`: enclosures) at the same digits, from the spec strings, for 4 hosts at
//!   total load 2 with cutoffs at the law's quartiles (written as decimals), for the
//!   bounded Pareto of p = 10^1000 and for a Weibull (the incomplete gamma's enclosures).
//!   The target: the proven answer within 3× of the certified one.
//! * `answer/threshold/{law}/h2/d30`: the whole certified `threshold` answer (the command's
//!   and `taskassign.threshold`'s library call) for Exp(1) and BP(1, 1e10, 1) on two hosts
//!   at 30 digits: the Rust side of the Python call's overhead
//!   (`python/examples/overhead.py` times the same calls from Python beside it).
//! * `call/{eval,threshold}/…`: what one `taskassign eval|threshold --format json` and one
//!   `taskassign.eval|threshold(...)` call do in Rust, the spec parsed inside the timed loop
//!   (a fresh DistSpec builds its laws again; the `answer/` benchmarks reuse one) and the
//!   JSON record written: the work a Python call wraps, for its overhead.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use rug::ops::Pow;
use rug::Float;
use taskassign::dist::{DistFactory, DistSpec, JobSize};
use taskassign::optimize::eval_rigorous;
use taskassign::optimize::tags_threshold;
use taskassign::optimize::{eval_certified, threshold_certified, EvalRequest};
use taskassign::policy::{evaluate, LoadSpec, Metric, PolicyKind};

/// The job-size distribution of every benchmark.
const SPEC: &str = "bp:k=1,p=1e10,alpha=1";
/// Total offered load ρ = λ E[X] of the evaluations.
const LOAD: &str = "0.5";
/// Host counts of the evaluations.
const EVAL_HOSTS: [usize; 2] = [2, 16];
/// Working precisions (bits) of the evaluations.
const EVAL_BITS: [u32; 3] = [64, 256, 1024];
/// Host counts of the threshold benchmarks.
const THRESHOLD_HOSTS: [usize; 2] = [2, 10];
/// Working precision (bits) of the threshold benchmarks.
const THRESHOLD_BITS: u32 = 128;
/// Samples per threshold benchmark (criterion's minimum; each run takes milliseconds).
const THRESHOLD_SAMPLES: usize = 10;

/// The h − 1 interior geometric cutoffs k (p/k)^(i/h), i = 1 … h − 1.
fn geometric_cutoffs(d: &dyn JobSize, hosts: usize) -> Vec<Float> {
    let bits = d.prec();
    let k = d.lower();
    let ratio = Float::with_val(bits, d.upper() / &k);
    (1..hosts)
        .map(|i| {
            let e = Float::with_val(bits, i) / Float::with_val(bits, hosts);
            Float::with_val(bits, (&ratio).pow(&e)) * &k
        })
        .collect()
}

fn bench_eval(c: &mut Criterion) {
    let spec = DistSpec::parse(SPEC).expect("valid spec");
    let mut group = c.benchmark_group("eval");
    for policy in [PolicyKind::Sita, PolicyKind::Tags] {
        for hosts in EVAL_HOSTS {
            for bits in EVAL_BITS {
                let d = spec.build(bits).expect("distribution builds");
                let (lambda, _rho) = LoadSpec::Total(LOAD.into())
                    .resolve(d.as_ref(), hosts)
                    .expect("load is valid");
                let cutoffs = geometric_cutoffs(d.as_ref(), hosts);
                let first = evaluate(
                    policy,
                    d.as_ref(),
                    &lambda,
                    hosts,
                    &cutoffs,
                    Metric::Waiting,
                )
                .expect("evaluation succeeds");
                assert!(
                    first.stable && first.value.is_finite(),
                    "{} h={hosts} bits={bits} must be stable",
                    policy.name()
                );
                let id =
                    BenchmarkId::from_parameter(format!("{}/h{hosts}/bits{bits}", policy.name()));
                group.bench_function(id, |b| {
                    b.iter(|| {
                        evaluate(
                            policy,
                            black_box(d.as_ref()),
                            black_box(&lambda),
                            hosts,
                            black_box(&cutoffs),
                            Metric::Waiting,
                        )
                        .expect("evaluation succeeds")
                    })
                });
            }
        }
    }
    group.finish();
}

fn bench_threshold(c: &mut Criterion) {
    let spec = DistSpec::parse(SPEC).expect("valid spec");
    let d = spec.build(THRESHOLD_BITS).expect("distribution builds");
    let mut group = c.benchmark_group("threshold");
    group.sample_size(THRESHOLD_SAMPLES);
    for hosts in THRESHOLD_HOSTS {
        let id = BenchmarkId::from_parameter(format!("tags/h{hosts}/bits{THRESHOLD_BITS}"));
        group.bench_function(id, |b| {
            b.iter(|| tags_threshold(black_box(d.as_ref()), Some(hosts)).expect("threshold"))
        });
    }
    group.finish();
}

/// The laws of the answer benchmarks and their three cutoffs (near the quartiles).
const ANSWER_LAWS: [(&str, &str, &str); 2] = [
    ("bp", "bp:k=1,p=1e1000,alpha=1", "1e250,1e500,1e750"),
    ("weibull", "weibull:shape=0.5,scale=1", "0.08,0.5,1.9"),
];
/// Digits of the answer benchmarks.
const ANSWER_DIGITS: [u32; 2] = [30, 50];
/// Hosts of the answer benchmarks.
const ANSWER_HOSTS: usize = 4;
/// Total load of the answer benchmarks.
const ANSWER_LOAD: &str = "2";

fn bench_answer(c: &mut Criterion) {
    let mut group = c.benchmark_group("answer");
    for (name, spec, cuts) in ANSWER_LAWS {
        let dist = DistSpec::parse(spec).expect("valid spec");
        for policy in [PolicyKind::Sita, PolicyKind::Tags, PolicyKind::Random] {
            let cutoffs: Vec<String> = if policy == PolicyKind::Random {
                vec![]
            } else {
                cuts.split(',').map(String::from).collect()
            };
            for digits in ANSWER_DIGITS {
                let req = EvalRequest {
                    policy,
                    dist: &dist,
                    hosts: ANSWER_HOSTS,
                    load: LoadSpec::Total(ANSWER_LOAD.into()),
                    cutoffs: cutoffs.clone(),
                    metric: Metric::Waiting,
                    digits,
                };
                let p = policy.name();
                eval_certified(&req).expect("certified answer");
                let id = BenchmarkId::from_parameter(format!("certified/{name}/{p}/d{digits}"));
                group.bench_function(id, |b| {
                    b.iter(|| eval_certified(black_box(&req)).expect("certified answer"))
                });
                let proven = || eval_rigorous(black_box(&req)).expect("proven answer");
                assert!(
                    proven().proven_digits >= digits,
                    "{name} {p}: all digits proven"
                );
                let id = BenchmarkId::from_parameter(format!("rigorous/{name}/{p}/d{digits}"));
                group.bench_function(id, |b| b.iter(|| black_box(proven())));
            }
        }
    }
    for (name, spec) in THRESHOLD_LAWS {
        let dist = DistSpec::parse(spec).expect("valid spec");
        let id = BenchmarkId::from_parameter(format!("threshold/{name}/h2/d30"));
        group.bench_function(id, |b| {
            b.iter(|| threshold_certified(black_box(&dist), Some(2), 30).expect("threshold"))
        });
    }
    group.finish();
}

/// The laws of the threshold answer benchmarks (two hosts, 30 digits).
const THRESHOLD_LAWS: [(&str, &str); 2] = [("exp", "exp:rate=1"), ("bp", "bp:k=1,p=1e10,alpha=1")];

/// One call as the command line and the Python extension make it: the spec parsed, the
/// certified answer, its JSON record.
fn bench_call(c: &mut Criterion) {
    let mut group = c.benchmark_group("call");
    let evals = [
        (
            "sita",
            PolicyKind::Sita,
            "bp",
            "bp:k=1,p=1e1000,alpha=1",
            "1e250,1e500,1e750",
        ),
        (
            "tags",
            PolicyKind::Tags,
            "weibull",
            "weibull:shape=0.5,scale=1",
            "0.08,0.5,1.9",
        ),
    ];
    for (p, policy, name, spec, cuts) in evals {
        let id = BenchmarkId::from_parameter(format!("eval/{name}/{p}/d30"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let dist = DistSpec::parse(black_box(spec)).expect("valid spec");
                let req = EvalRequest {
                    policy,
                    dist: &dist,
                    hosts: ANSWER_HOSTS,
                    load: LoadSpec::Total(ANSWER_LOAD.into()),
                    cutoffs: cuts.split(',').map(String::from).collect(),
                    metric: Metric::Waiting,
                    digits: 30,
                };
                let rep = eval_certified(&req).expect("certified answer");
                taskassign::report::eval_record(&req, &rep).to_json()
            })
        });
    }
    for (name, spec) in THRESHOLD_LAWS {
        let id = BenchmarkId::from_parameter(format!("threshold/{name}/h2/d30"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let dist = DistSpec::parse(black_box(spec)).expect("valid spec");
                let rep = threshold_certified(&dist, Some(2), 30).expect("threshold");
                taskassign::report::threshold_record(&dist, Some(2), 30, &rep).to_json()
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_eval,
    bench_threshold,
    bench_answer,
    bench_call
);
criterion_main!(benches);

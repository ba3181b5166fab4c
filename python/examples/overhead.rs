//! The Rust side of the Python call's overhead (issue 23): the work `taskassign.eval(...)`
//! does, timed in Rust — the same library calls (eval_certified, the record, its JSON) —
//! median of 2000 runs after 200 of warm-up. Compare with
//! `python -m timeit -s 'import taskassign' 'taskassign.eval(...)'` on the same arguments:
//! `cargo run --release --example overhead` in python/.

use std::time::Instant;
use taskassign::dist::DistSpec;
use taskassign::optimize::{eval_certified, EvalRequest};
use taskassign::policy::{LoadSpec, Metric, PolicyKind};

fn main() {
    let mut times = Vec::new();
    for i in 0..2200 {
        let t = Instant::now();
        // As the extension does per call: parse the spec, evaluate, build and print the record.
        let dist = DistSpec::parse("exp:rate=1").expect("spec");
        let req = EvalRequest {
            policy: PolicyKind::Sita,
            dist: &dist,
            hosts: 2,
            load: LoadSpec::Total("0.5".into()),
            cutoffs: vec!["1".into()],
            metric: Metric::Waiting,
            digits: 12,
        };
        let rep = eval_certified(&req).expect("eval");
        let json = taskassign::report::eval_record(&req, &rep).to_json();
        std::hint::black_box(json);
        if i >= 200 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "eval sita exp:rate=1 hosts=2 load=0.5 cutoffs=1 digits=12: median {:.2} us, min {:.2} us (Rust, {} runs)",
        times[times.len() / 2] * 1e6,
        times[0] * 1e6,
        times.len()
    );
}

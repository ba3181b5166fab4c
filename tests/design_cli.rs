//! `taskassign design`: the fewest hosts meeting a target, checked against the optimiser
//! called directly (h − 1 hosts miss the target, h hosts meet it).

mod common;
use common::{expect_bad, run_json};
use taskassign::dist::DistSpec;
use taskassign::optimize::{optimal_cutoffs, OptPolicy};
use taskassign::policy::{LoadSpec, Metric};

/// The README example: BP(1, 1e10, 1), load 0.5, target mean waiting 100.
const SPEC: &str = "bp:k=1,p=1e10,alpha=1";
const LOAD: &str = "0.5";
const TARGET: f64 = 100.0;
/// Digits of the independent optimisations.
const DIGITS: u32 = 15;

fn waiting(policy: OptPolicy, hosts: usize) -> f64 {
    let d = DistSpec::parse(SPEC).expect("spec");
    optimal_cutoffs(
        &d,
        &LoadSpec::Total(LOAD.into()),
        hosts,
        policy,
        Metric::Waiting,
        DIGITS,
    )
    .expect("optimum")
    .eval
    .value
    .to_f64()
}

#[test]
fn design_finds_the_fewest_hosts() {
    let v = run_json(&[
        "design",
        "--dist",
        SPEC,
        "--load",
        LOAD,
        "--target-waiting",
        "100",
        "--format",
        "json",
    ]);
    for d in v["designs"].as_array().expect("designs") {
        let policy: OptPolicy = d["policy"]
            .as_str()
            .expect("policy")
            .parse()
            .expect("a name");
        let h = d["hosts"].as_u64().expect("met") as usize;
        assert!(waiting(policy, h) <= TARGET);
        assert!(waiting(policy, h - 1) > TARGET);
        assert_eq!(d["cutoffs"].as_array().map(|c| c.len()), Some(h - 1));
    }
}

#[test]
fn design_reports_an_unmet_target() {
    expect_bad(
        &[
            "design",
            "--dist",
            SPEC,
            "--load",
            LOAD,
            "--target-waiting",
            "1e-9",
            "--max-hosts",
            "3",
        ],
        &["not met", "3 hosts"],
    );
}

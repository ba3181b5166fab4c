//! The [MBLW] claims (proofs-check/mblw/) can fail: tightening a bound of each claim past
//! the computed value turns its check to FAIL, and a check written for d(N) -> infinity
//! does not pass when run for a fixed d (the contrast comes out the other way). Each test
//! compiles the shipped file with one edit and runs only the edited check (the full
//! claims run in tests/claims_catalogue.rs).

use std::path::PathBuf;
use taskassign::claims::compile;
use taskassign::claims::Cache;
use taskassign::claims::Verdict;
use taskassign::claims::{run_check, CheckResult};

fn shipped(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("proofs-check/mblw")
        .join(name);
    std::fs::read_to_string(p).expect("shipped claim")
}

/// `text` with `old` replaced once (the edit must apply).
fn edited(text: &str, old: &str, new: &str) -> String {
    assert!(text.contains(old), "the text to edit is in the file: {old}");
    text.replacen(old, new, 1)
}

/// Runs the check called `check` of the claim in `text`.
fn run_one(text: &str, check: &str) -> CheckResult {
    let c = compile("mblw-test.toml", text).expect("the edited claim compiles");
    let k = c
        .checks
        .iter()
        .find(|k| k.name == check)
        .unwrap_or_else(|| panic!("check {check}"));
    run_check(&c, k, &Cache::default())
}

#[test]
fn fluid_limit_tightened_fails() {
    // jsq-d-fluid-limit/fixed-d-stays-away-queues: the simulated distance of JSQ(2) is
    // 1.00 ± 0.05 times the power-of-2 fixed point's D(2) at N = 10^3 (the shipped check
    // asks >= 0.75). Asking >= 1.5 must FAIL.
    let text = edited(
        &shipped("jsq-d-fluid-limit.toml"),
        "quantity = \"jsq_sim(time=20, warmup=10, replications=5).distance / jsq_fixed_point().distance\"\nrelation = \">=\"\nbound = \"0.75\"\n[check.grid]\ndd = [\"2\"]",
        "quantity = \"jsq_sim(time=20, warmup=10, replications=5).distance / jsq_fixed_point().distance\"\nrelation = \">=\"\nbound = \"1.5\"\n[check.grid]\ndd = [\"2\"]\nn = [1000]",
    );
    let r = run_one(&text, "fixed-d-stays-away-queues");
    assert_eq!(r.verdict, Verdict::Fail, "{} {}", r.margin, r.worst_point);
}

#[test]
fn fluid_limit_check_does_not_pass_for_fixed_d() {
    // The contrast the other way: "the distance shrinks from N to 10 N", which passes for
    // d(N) = log N ... N, does not pass for d = 2 (1.45 ± 0.07 at N = 10^3 and
    // 1.45 ± 0.03 at 10^4: the distance stays at D(2)).
    let text = edited(
        &shipped("jsq-d-fluid-limit.toml"),
        "meaning = \"queues: the simulated distance to JSQ's fluid fixed point falls from N to 10 N beyond the half-widths, for d(N) = log N, sqrt N, N^0.75, N\"\nquantity = \"jsq_sim(time=20, warmup=10, replications=5).distance\"\nrelation = \"decreasing\"\nalong = \"n\"",
        "quantity = \"jsq_sim(time=20, warmup=10, replications=5).distance\"\nrelation = \"decreasing\"\nalong = \"n\"\n[check.grid]\ndd = [\"2\"]\nn = [1000, 10000]",
    );
    let r = run_one(&text, "simulated-distance-shrinks-queues");
    assert_ne!(r.verdict, Verdict::Pass, "{} {}", r.margin, r.worst_point);
}

#[test]
fn diffusion_limit_tightened_fails() {
    // jsq-d-diffusion-limit/above-threshold-matches-jsq-pools: at N = 10^5 the paired
    // excess of JSQ(sqrt(N) (log N)^2) over JSQ is 2.4e-3 ± 8.3e-4 (d = 41916 < N: not
    // JSQ itself). Asking |excess| <= 5e-4 instead of 0.05 must FAIL.
    let text = edited(
        &shipped("jsq-d-diffusion-limit.toml"),
        "relation = \"<=\"\nbound = \"0.05\"\n[check.grid]\nkind = [\"pools\"]\ndd = [\"sqrt(N)*log(N)^2\"]\nn = [10000, 100000]",
        "relation = \"<=\"\nbound = \"0.0005\"\n[check.grid]\nkind = [\"pools\"]\ndd = [\"sqrt(N)*log(N)^2\"]\nn = [100000]",
    );
    let r = run_one(&text, "above-threshold-matches-jsq-pools");
    assert_eq!(r.verdict, Verdict::Fail, "{} {}", r.margin, r.worst_point);
}

#[test]
fn overhead_tightened_fails() {
    // jsq-d-overhead/fixed-d-loses-fluid-optimality: the paired excess distance of JSQ(2)
    // over JSQ is 0.98 ± 0.05 (queues) and 0.944 ± 0.009 (pools, λ = 0.9) times D(2) at
    // N = 10^3. Asking >= 1.5 must FAIL.
    let text = edited(
        &shipped("jsq-d-overhead.toml"),
        "relation = \">=\"\nbound = \"0.75\"\n[check.grid]\nkind = [\"queues\", \"pools\"]\nlam = [\"0.9\"]\ndd = [\"2\"]",
        "relation = \">=\"\nbound = \"1.5\"\n[check.grid]\nkind = [\"queues\", \"pools\"]\nlam = [\"0.9\"]\ndd = [\"2\"]\nn = [1000]",
    );
    let r = run_one(&text, "fixed-d-loses-fluid-optimality");
    assert_eq!(r.verdict, Verdict::Fail, "{} {}", r.margin, r.worst_point);
}

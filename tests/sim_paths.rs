//! The command line and the claims run the same simulation runner with the same defaults:
//! the same parameters and seed give the same numbers on both paths (issue 22, "CLI and
//! claims give the same numbers for the same parameters and seed"; issue 25, item 2).
//!
//! Source of the expected values: the other path, run here. Tolerance: the claim's JSON
//! prints the margin (value − 0) to 4 significant digits and the command to 6, so the two
//! agree to 5e-4 relative; the half-widths are both printed to 3 digits and must be equal
//! strings. A different seed moves the value by far more than that (checked, so the
//! comparison can fail).

mod common;

use common::{run, run_json};
use serde_json::Value;
use std::path::Path;

/// A one-check claim file in `dir` whose quantity is `q` (relation `> 0`, so the margin is
/// the value) over the `[setup]` lines `setup`.
fn claim(dir: &Path, setup: &str, q: &str) -> String {
    let p = dir.join("c.toml");
    let text = format!(
        "id = \"same-runner\"\nstatement = \"s\"\nreading = \"r\"\n\n[source]\npaper = \"test\"\nseed = \"none\"\nwords = \"w\"\n\n[setup]\n{setup}\n\n[[check]]\nname = \"v\"\nmeaning = \"m\"\nquantity = \"{q}\"\nrelation = \">\"\nbound = \"0\"\n"
    );
    std::fs::write(&p, text).expect("write claim");
    p.to_string_lossy().into_owned()
}

/// The claim's value (its margin over 0) and half-width.
fn claim_value(file: &str) -> (f64, String) {
    let r = run(["check", file, "--format", "json"]);
    assert_eq!(r.code, 0, "check {file}: {}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("check prints JSON");
    let c = &v["claims"][0]["checks"][0]["comparisons"][0];
    let margin = c["margin"]
        .as_str()
        .expect("margin")
        .parse::<f64>()
        .expect("number");
    let hw = c["uncertainty"].as_str().expect("uncertainty").to_string();
    (margin, hw)
}

fn num(m: &serde_json::Map<String, Value>, k: &str) -> f64 {
    m[k].as_str().expect(k).parse::<f64>().expect(k)
}

fn assert_same(what: &str, cli: f64, cli_hw: &str, claim: (f64, String)) {
    assert!(
        ((cli - claim.0) / cli).abs() <= 5e-4,
        "{what}: command {cli} vs claim {}",
        claim.0
    );
    assert_eq!(cli_hw, claim.1, "{what}: half-widths");
}

/// Runs `cmd --seed SEED --format json` and the one-check claim (`setup`, quantity `q`, which
/// names the same seed), compares the command's `key` and its half-width with the claim's
/// value, and checks that `other_seed` moves the command's value beyond the tolerance.
fn same_on_both_paths(cmd: &[&str], seed: &str, other_seed: &str, key: &str, setup: &str, q: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let with_seed = |s: &str| {
        let mut a: Vec<&str> = cmd.to_vec();
        a.extend(["--seed", s, "--format", "json"]);
        run_json(&a)
    };
    let cli = with_seed(seed);
    let v = num(&cli, key);
    let hw = cli[format!("{key}_half_width").as_str()]
        .as_str()
        .expect("half-width")
        .to_string();
    assert_same(key, v, &hw, claim_value(&claim(dir.path(), setup, q)));
    let other = num(&with_seed(other_seed), key);
    assert!(
        ((other - v) / v).abs() > 5e-3,
        "seed {other_seed} gives {other}, seed {seed} {v}: the comparison could not fail"
    );
}

#[test]
fn jsq_simulate_and_jsq_sim_give_the_same_numbers() {
    same_on_both_paths(
        &[
            "jsq", "simulate", "--model", "queues", "--servers", "10", "--lambda", "0.7", "--d",
            "2", "--time", "200", "--replications", "3",
        ],
        "3",
        "4",
        "mean_tasks",
        "model = \"jsq\"\nkind = \"queues\"\nlambda = \"0.7\"\nservers = 10\nd = \"2\"\ndigits = 20",
        "jsq_sim(time=200, replications=3, seed=3).mean_tasks",
    );
}

#[test]
fn redundancy_simulate_and_red_sim_give_the_same_numbers() {
    same_on_both_paths(
        &[
            "redundancy", "simulate", "--servers", "2", "--class", "1:0.4", "--class", "2:0.4",
            "--class", "1+2:0.8", "--policy", "lrf-fcfs", "--jobs", "20000", "--replications",
            "3",
        ],
        "5",
        "6",
        "mean_response",
        "model = \"redundancy\"\nclasses = \"1:0.4 2:0.4 1+2:0.8\"\ndist = \"exp:rate=1\"\ncopies = \"iid\"\ndigits = 8",
        "red_sim(lrf-fcfs, jobs=20000, replications=3, seed=5)",
    );
}

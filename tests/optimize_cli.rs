//! `taskassign optimize` from the binary: bad input exits 2 with one line; the JSON carries
//! the keys of the command-line contract; values match an independent mpmath implementation.

use assert_cmd::Command;
use serde_json::Value;

/// Exit status for bad input (ARCHITECTURE.md, "Errors and exit statuses").
const EXIT_BAD_INPUT: i32 = 2;

fn run(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("taskassign")
        .expect("binary")
        .args(args)
        .output()
        .expect("runs")
}

fn expect_bad(args: &[&str], needle: &str) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(EXIT_BAD_INPUT), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(
        lines[0].to_lowercase().contains(needle),
        "{args:?}: '{}' lacks '{needle}'",
        lines[0]
    );
}

const BP: &str = "bp:k=1,p=1e10,alpha=1";

#[test]
fn bad_input_exits_two() {
    expect_bad(
        &[
            "optimize", "--policy", "sita", "--dist", BP, "--hosts", "0", "--load", "0.5",
        ],
        "hosts",
    );
    expect_bad(
        &[
            "optimize", "--policy", "lwl", "--dist", BP, "--hosts", "2", "--load", "0.5",
        ],
        "lwl",
    );
    expect_bad(
        &[
            "optimize", "--policy", "sita", "--dist", BP, "--hosts", "2", "--load", "0.5",
            "--digits", "0",
        ],
        "digits",
    );
    expect_bad(
        &[
            "optimize", "--policy", "sita", "--dist", BP, "--hosts", "2", "--load", "0.5",
            "--digits", "10001",
        ],
        "digits",
    );
    expect_bad(
        &[
            "optimize", "--policy", "sita", "--dist", BP, "--hosts", "2", "--load", "2",
        ],
        "load",
    );
    // Exp(1), h = 2: ρ* = 1.4659… ([BDS20]); 1.6 has no stable TAGS cutoffs.
    expect_bad(
        &[
            "optimize",
            "--policy",
            "tags",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1.6",
        ],
        "threshold",
    );
    expect_bad(
        &[
            "optimize",
            "--policy",
            "tags-minmax",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1.6",
        ],
        "threshold",
    );
    expect_bad(
        &[
            "optimize",
            "--policy",
            "sita",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "0.5",
            "--metric",
            "slowdown",
        ],
        "infinite",
    );
}

#[test]
fn json_has_design_keys() {
    let out = run(&[
        "optimize", "--policy", "tags", "--dist", BP, "--hosts", "3", "--load", "0.5", "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    for k in [
        "policy",
        "dist",
        "hosts",
        "lambda",
        "load",
        "metric",
        "cutoffs",
        "host_loads",
        "value",
        "queueing",
        "wasted",
        "stable",
        "digits",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["cutoffs"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["digits"].as_u64(), Some(30));
}

/// Optimal mean waiting, h = 2, from the independent mpmath implementation in
/// benches/peer/optimize_peer.py (golden-section search on the same formulas written
/// afresh in Python, mp.dps = 40; command: `python3 benches/peer/optimize_peer.py
/// --values`, whose output "1.2250306823209212856e+1" is written here in taskassign's
/// exponent style). Tolerance: all 20 significant digits must match.
const MPMATH_VALUES: &[(&str, &str, &str, &str, &str)] = &[
    ("sita", "1", "1e10", "1.5", "1.2250306823209212856e1"),
    ("tags", "1", "1e10", "1.5", "1.5533381581512075375e1"),
    ("sita", "1", "1e10", "0.5", "7.9272421959267075565e5"),
    ("tags", "1", "1e1000", "1", "4.0951604817144142816e496"),
];

#[test]
fn two_hosts_match_mpmath() {
    for (pol, k, p, a, want) in MPMATH_VALUES {
        let load = if *a == "0.5" { "0.7" } else { "0.5" };
        let d = format!("bp:k={k},p={p},alpha={a}");
        let out = run(&[
            "optimize", "--policy", pol, "--dist", &d, "--hosts", "2", "--load", load, "--digits",
            "20", "--format", "json",
        ]);
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["value"].as_str(), Some(*want), "{pol} {d}");
    }
}

#[test]
fn repeat_reports_the_time_per_run_and_rejects_bad_counts() {
    for bad in ["0", "-3", "10001"] {
        expect_bad(
            &[
                "optimize", "--policy", "sita", "--dist", BP, "--hosts", "2", "--load", "0.5",
                "--repeat", bad,
            ],
            "--repeat",
        );
    }
    let args = [
        "optimize", "--policy", "tags", "--dist", BP, "--hosts", "2", "--load", "0.5", "--digits",
        "20", "--format", "json",
    ];
    let once: Value = serde_json::from_slice(&run(&args).stdout).unwrap();
    let mut more = args.to_vec();
    more.extend(["--repeat", "5"]);
    let out = run(&more);
    assert!(out.status.success());
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The repeated runs print the same certified result, plus the timing keys.
    assert_eq!(rep["value"], once["value"]);
    assert_eq!(rep["cutoffs"], once["cutoffs"]);
    assert_eq!(rep["runs"], 5);
    let t: f64 = rep["seconds_per_run"].as_str().unwrap().parse().unwrap();
    assert!(t > 0.0 && t < 60.0, "{t}");
    assert!(once.get("seconds_per_run").is_none());
}

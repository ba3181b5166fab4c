//! `taskassign optimize` from the binary: bad input exits 2 with one line; the JSON carries
//! the keys of the command-line contract; values match an independent mpmath implementation.

mod common;
use common::run_json;

/// The bad-input contract ([`common::expect_bad`]) with one word the line must name.
fn expect_bad(args: &[&str], needle: &str) {
    common::expect_bad(args, &[needle]);
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
    let v = run_json(&[
        "optimize", "--policy", "tags", "--dist", BP, "--hosts", "3", "--load", "0.5", "--format",
        "json",
    ]);
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
        let v = run_json(&[
            "optimize", "--policy", pol, "--dist", &d, "--hosts", "2", "--load", load, "--digits",
            "20", "--format", "json",
        ]);
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
    let once = run_json(&args);
    let mut more = args.to_vec();
    more.extend(["--repeat", "5"]);
    let rep = run_json(&more);
    // The repeated runs print the same certified result, plus the timing keys.
    assert_eq!(rep["value"], once["value"]);
    assert_eq!(rep["cutoffs"], once["cutoffs"]);
    assert_eq!(rep["runs"], 5);
    let t: f64 = rep["seconds_per_run"].as_str().unwrap().parse().unwrap();
    assert!(t > 0.0 && t < 60.0, "{t}");
    assert!(once.get("seconds_per_run").is_none());
}

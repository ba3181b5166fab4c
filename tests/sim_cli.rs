//! The `simulate` command's contract (ARCHITECTURE.md, "The command line"; issue 5, item 4):
//! JSON keys, numbers as decimal strings in scientific notation, one-line errors with exit
//! status 2, and output that does not depend on `--threads`.

mod common;
use common::{expect_bad, is_simulated_number as is_sci, run, run_json};

use serde_json::{Map, Value};

/// The keys issue 5 requires, in this order, plus those added where a formula exists.
const KEYS: &[&str] = &[
    "policy",
    "dist",
    "hosts",
    "load",
    "jobs",
    "replications",
    "seed",
    "waiting",
    "waiting_half_width",
    "response",
    "response_half_width",
    "slowdown",
    "slowdown_half_width",
    "host_waiting",
];

/// `taskassign simulate ARGS --format json`, run and parsed ([`common::run_json`]).
fn json(args: &[&str]) -> Map<String, Value> {
    run_json(&[&["simulate"][..], args, &["--format", "json"]].concat())
}

fn num(m: &Map<String, Value>, k: &str) -> f64 {
    let s = m[k]
        .as_str()
        .unwrap_or_else(|| panic!("{k} is not a string"));
    assert!(is_sci(s), "{k} = {s}");
    s.parse().unwrap()
}

#[test]
fn json_has_the_issue_keys_and_decimal_strings() {
    let m = json(&[
        "--policy",
        "sita",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "2",
        "--load",
        "1",
        "--cutoffs",
        "0.7",
        "--jobs",
        "20000",
        "--replications",
        "4",
        "--seed",
        "5",
    ]);
    for k in KEYS {
        assert!(m.contains_key(*k), "missing key {k}");
    }
    for k in [
        "waiting",
        "waiting_half_width",
        "response",
        "slowdown",
        "analytic_waiting",
        "z",
        "load",
    ] {
        num(&m, k);
    }
    let hosts = m["host_waiting"].as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    assert!(hosts.iter().all(|v| is_sci(v.as_str().unwrap())));
    assert_eq!(m["jobs"], 20000);
    assert_eq!(m["replications"], 4);
    assert_eq!(m["seed"], 5);
    // z is the difference in half-widths.
    let z = (num(&m, "waiting") - num(&m, "analytic_waiting")) / num(&m, "waiting_half_width");
    assert!((z - num(&m, "z")).abs() < 1e-3 * z.abs().max(1.0));
}

#[test]
fn tags_notes_the_poisson_approximation_and_lwl_has_no_formula() {
    let m = json(&[
        "--policy",
        "tags",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "2",
        "--load",
        "0.5",
        "--cutoffs",
        "1",
        "--jobs",
        "5000",
        "--replications",
        "2",
    ]);
    let notes = m["notes"].to_string();
    assert!(notes.contains("Poisson approximation"), "{notes}");
    assert!(m.contains_key("analytic_waiting") && m.contains_key("wasted"));
    // BP(1, 1e3, 1.2) at 5000 jobs given: 74 % of E[X^4] lies above the 1 − 1/5000
    // quantile, so the fourth-moment rule's warning is on stderr (and in the record); the
    // jobs were given, so the run keeps its length.
    let r = common::run([
        "simulate",
        "--policy",
        "jsq",
        "--dist",
        "bp:k=1,p=1e3,alpha=1.2",
        "--hosts",
        "3",
        "--load-per-host",
        "0.5",
        "--jobs",
        "5000",
        "--replications",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("of E[X^4]"), "{}", r.stderr);
    let m: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&r.stdout).expect("one JSON object");
    assert!(!m.contains_key("analytic_waiting") && !m.contains_key("z"));
    assert_eq!(m["jobs"], 5000);
    assert_eq!(m["length_rule"], "given");
}

#[test]
fn threads_do_not_change_the_output() {
    let base = [
        "simulate",
        "--policy",
        "lwl",
        "--dist",
        "hyperexp:p=0.1,rate1=0.1,rate2=10",
        "--hosts",
        "3",
        "--load",
        "2",
        "--jobs",
        "10000",
        "--replications",
        "5",
    ];
    let one = run([&base[..], &["--threads", "1"]].concat());
    let two = run([&base[..], &["--threads", "2"]].concat());
    assert_eq!(one.code, 0);
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[&[&str]] = &[
        // p = 1e1000 does not fit in f64.
        &[
            "--policy",
            "lwl",
            "--dist",
            "bp:k=1,p=1e1000,alpha=1",
            "--hosts",
            "2",
            "--load",
            "1",
        ],
        &[
            "--policy",
            "lwl",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
            "--jobs",
            "0",
        ],
        &[
            "--policy",
            "lwl",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
            "--replications",
            "1",
        ],
        &[
            "--policy",
            "lwl",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "2",
        ],
        &[
            "--policy",
            "sita",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1.5",
            "--cutoffs",
            "0.1",
        ],
        &[
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
            "--cutoffs",
            "1",
        ],
        &[
            "--policy",
            "lwl",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "0",
            "--load",
            "0.5",
        ],
        &[
            "--policy",
            "lwl",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
            "--jobs",
            "abc",
        ],
        &[
            "--policy",
            "fifo",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
        ],
    ];
    for args in cases {
        expect_bad(&[&["simulate"][..], args].concat(), &[]);
    }
}

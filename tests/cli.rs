//! Integration tests of the `taskassign` binary: the command-line contract of ARCHITECTURE.md
//! ("The command line").
//!
//! * Bad input: exit status 2, nothing on stdout, exactly one non-empty line on stderr that
//!   names the offending thing.
//! * JSON output: one object with the DESIGN keys, every real number a decimal string in
//!   scientific notation.
//! * End-to-end values checked against independent closed forms (sources in comments).

mod common;
use common::{expect_bad, is_sci, run_json, run_ok};

use serde_json::Value;
use std::path::PathBuf;

/// Relative tolerance when a printed value is compared with an `f64` closed form.
const F64_REL_TOL: f64 = 1e-12;

/// Significant digits of the TAGS threshold that the error message must show.
const THRESHOLD_DIGITS_SHOWN: usize = 5;

/// Bisection steps for the f64 root in [`exp_two_host_threshold`] (2^-100 ≪ f64 epsilon).
const BISECTION_STEPS: usize = 100;

/// Asserts that `obj[key]` is a string in scientific notation and returns it.
fn sci_field<'a>(obj: &'a serde_json::Map<String, Value>, key: &str) -> &'a str {
    let v = obj.get(key).unwrap_or_else(|| panic!("missing key {key}"));
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("{key} must be a string, got {v}"));
    assert!(is_sci(s), "{key} = {s:?} is not in scientific notation");
    s
}

/// Asserts that `obj[key]` is an array of strings in scientific notation and returns them.
fn sci_array(obj: &serde_json::Map<String, Value>, key: &str) -> Vec<String> {
    let v = obj.get(key).unwrap_or_else(|| panic!("missing key {key}"));
    let a = v
        .as_array()
        .unwrap_or_else(|| panic!("{key} must be an array, got {v}"));
    a.iter()
        .map(|x| {
            let s = x
                .as_str()
                .unwrap_or_else(|| panic!("{key}: element {x} is not a string"));
            assert!(is_sci(s), "{key}: {s:?} is not in scientific notation");
            s.to_string()
        })
        .collect()
}

/// Splits `m.mmm…eX` into (m as f64, X).
fn mantissa_exponent(s: &str) -> (f64, i64) {
    let (m, e) = s.split_once('e').expect("scientific notation");
    (
        m.parse().expect("mantissa is a number"),
        e.parse().expect("exponent is an integer"),
    )
}

fn assert_keys(obj: &serde_json::Map<String, Value>, keys: &[&str]) {
    for k in keys {
        assert!(obj.contains_key(*k), "JSON output lacks key {k}: {obj:?}");
    }
}

/// A file in cargo's per-target temporary directory, unique to this test process.
fn temp_file(name: &str, contents: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).expect("temp file written");
    path
}

/// TAGS stability threshold of Exp(1) on two hosts, computed independently in f64.
///
/// Source: derivation from the TAGS host loads of ARCHITECTURE.md ("The model") and the greedy
/// characterisation of stability (BDS20): at the threshold host 1 is critical,
/// λ(1 − e^{−s}) = 1, and host 2 (all jobs with X > s) too, λ E[X; X > s] = λ(1 + s)e^{−s} = 1.
/// Eliminating e^{−s} = 1 − 1/λ gives g(λ) = (λ − 1)(1 + ln(λ/(λ − 1))) − 1 = 0, with
/// g(1+) = −1 and g(2) = ln 2 > 0; for Exp(1), ρ* = λ* E[X] = λ*.
fn exp_two_host_threshold() -> f64 {
    let g = |l: f64| (l - 1.0) * (1.0 + (l / (l - 1.0)).ln()) - 1.0;
    let (mut lo, mut hi) = (1.0 + f64::EPSILON, 2.0);
    for _ in 0..BISECTION_STEPS {
        let mid = 0.5 * (lo + hi);
        if g(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

// ---------------------------------------------------------------------------------------
// Bad input: exit status 2, empty stdout, one line on stderr naming the problem.
// ---------------------------------------------------------------------------------------

/// `eval --policy sita --hosts 2 --load 0.5 --cutoffs 5 --dist SPEC`.
fn sita_with_dist(spec: &str) -> Vec<String> {
    [
        "eval",
        "--policy",
        "sita",
        "--hosts",
        "2",
        "--load",
        "0.5",
        "--cutoffs",
        "5",
        "--dist",
        spec,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn unknown_family() {
    expect_bad(
        &sita_with_dist("gamma:shape=2"),
        &["unknown family", "gamma"],
    );
}

#[test]
fn unknown_key() {
    expect_bad(
        &sita_with_dist("bp:k=1,p=10,beta=1"),
        &["unknown key", "beta"],
    );
}

#[test]
fn missing_key() {
    expect_bad(&sita_with_dist("bp:k=1,p=10"), &["missing", "alpha"]);
}

#[test]
fn alpha_zero() {
    expect_bad(&sita_with_dist("bp:k=1,p=10,alpha=0"), &["alpha"]);
}

#[test]
fn alpha_negative() {
    expect_bad(&sita_with_dist("bp:k=1,p=10,alpha=-1"), &["alpha"]);
}

#[test]
fn p_equal_to_k() {
    expect_bad(&sita_with_dist("bp:k=10,p=10,alpha=1"), &["p must be"]);
}

#[test]
fn p_below_k() {
    expect_bad(&sita_with_dist("bp:k=10,p=5,alpha=1"), &["p must be"]);
}

#[test]
fn non_numeric_parameter() {
    expect_bad(&sita_with_dist("bp:k=1,p=abc,alpha=1"), &["p", "abc"]);
}

#[test]
fn cutoffs_out_of_order() {
    expect_bad(
        &[
            "eval",
            "--policy",
            "sita",
            "--hosts",
            "3",
            "--load",
            "0.5",
            "--dist",
            "bp:k=1,p=100,alpha=1",
            "--cutoffs",
            "50,5",
        ],
        &["cutoff"],
    );
    // Equal cutoffs are not increasing either.
    expect_bad(
        &[
            "eval",
            "--policy",
            "tags",
            "--hosts",
            "3",
            "--load",
            "0.5",
            "--dist",
            "bp:k=1,p=100,alpha=1",
            "--cutoffs",
            "5,5",
        ],
        &["cutoff"],
    );
}

#[test]
fn cutoff_below_support() {
    for policy in ["sita", "tags"] {
        expect_bad(
            &[
                "eval",
                "--policy",
                policy,
                "--hosts",
                "2",
                "--load",
                "0.5",
                "--dist",
                "bp:k=1,p=100,alpha=1",
                "--cutoffs",
                "0.5",
            ],
            &["cutoff"],
        );
    }
}

#[test]
fn cutoff_above_support() {
    for policy in ["sita", "tags"] {
        expect_bad(
            &[
                "eval",
                "--policy",
                policy,
                "--hosts",
                "2",
                "--load",
                "0.5",
                "--dist",
                "bp:k=1,p=100,alpha=1",
                "--cutoffs",
                "500",
            ],
            &["cutoff"],
        );
    }
}

#[test]
fn wrong_number_of_cutoffs() {
    // Too many, then none at all (2 hosts need exactly 1).
    for cutoffs in [&["--cutoffs", "5,6"][..], &[][..]] {
        let mut args = vec![
            "eval",
            "--policy",
            "sita",
            "--hosts",
            "2",
            "--load",
            "0.5",
            "--dist",
            "bp:k=1,p=100,alpha=1",
        ];
        args.extend_from_slice(cutoffs);
        expect_bad(&args, &["cutoff"]);
    }
}

#[test]
fn cutoffs_given_to_random() {
    expect_bad(
        &[
            "eval",
            "--policy",
            "random",
            "--hosts",
            "2",
            "--load",
            "0.5",
            "--dist",
            "bp:k=1,p=100,alpha=1",
            "--cutoffs",
            "5",
        ],
        &["cutoff", "random"],
    );
}

#[test]
fn tags_load_above_stability_threshold() {
    let line = expect_bad(
        &[
            "eval",
            "--policy",
            "tags",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1.6",
            "--cutoffs",
            "1",
        ],
        &["threshold"],
    );
    // Expected value: exp_two_host_threshold() (closed-form derivation, BDS20), 1.4659…
    let t = exp_two_host_threshold();
    let shown = format!("{t:.10}");
    let prefix = &shown[..THRESHOLD_DIGITS_SHOWN + 1]; // digits plus the decimal point
    assert_eq!(prefix, "1.4659", "f64 threshold {t}");
    assert!(
        line.contains(prefix),
        "the message must name the threshold {prefix}…: {line}"
    );
}

#[test]
fn load_at_or_above_hosts() {
    // ARCHITECTURE.md: 0 < ρ < h.
    for (policy, load) in [
        ("sita", "2"),
        ("sita", "2.5"),
        ("random", "2"),
        ("random", "2.5"),
    ] {
        let mut args = vec![
            "eval",
            "--policy",
            policy,
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            load,
        ];
        if policy == "sita" {
            args.extend_from_slice(&["--cutoffs", "1"]);
        }
        expect_bad(&args, &["load"]);
    }
    // The per-host convention: u = 1 means ρ = h.
    expect_bad(
        &[
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load-per-host",
            "1",
        ],
        &["load"],
    );
}

#[test]
fn non_positive_load() {
    for load in ["0", "-0.5"] {
        for policy in ["random", "sita", "tags"] {
            let mut args = vec![
                "eval",
                "--policy",
                policy,
                "--dist",
                "exp:rate=1",
                "--hosts",
                "2",
                "--load",
                load,
            ];
            if policy != "random" {
                args.extend_from_slice(&["--cutoffs", "1"]);
            }
            expect_bad(&args, &["load"]);
        }
    }
    expect_bad(
        &[
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--lambda",
            "-1",
        ],
        &["load"],
    );
}

#[test]
fn digits_out_of_range() {
    for d in ["0", "10001"] {
        expect_bad(
            &[
                "eval",
                "--policy",
                "random",
                "--dist",
                "exp:rate=1",
                "--hosts",
                "2",
                "--load",
                "0.5",
                "--digits",
                d,
            ],
            &["digits"],
        );
        expect_bad(
            &[
                "threshold",
                "--dist",
                "exp:rate=1",
                "--hosts",
                "2",
                "--digits",
                d,
            ],
            &["digits"],
        );
    }
}

#[test]
fn hosts_zero_or_negative() {
    for h in ["0", "-1"] {
        expect_bad(
            &[
                "eval",
                "--policy",
                "random",
                "--dist",
                "exp:rate=1",
                "--hosts",
                h,
                "--load",
                "0.5",
            ],
            &["hosts"],
        );
        expect_bad(
            &["threshold", "--dist", "exp:rate=1", "--hosts", h],
            &["hosts"],
        );
    }
}

#[test]
fn threshold_hosts_not_a_number() {
    expect_bad(
        &["threshold", "--dist", "exp:rate=1", "--hosts", "abc"],
        &["hosts", "abc"],
    );
}

#[test]
fn eval_hosts_not_a_number() {
    expect_bad(
        &[
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "abc",
            "--load",
            "0.5",
        ],
        &["hosts", "abc"],
    );
}

#[test]
fn missing_required_option() {
    // Each case drops one required option; the line must name it.
    expect_bad(
        &[
            "eval",
            "--policy",
            "random",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
        ],
        &["--load"],
    );
    expect_bad(
        &[
            "eval",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "0.5",
        ],
        &["--policy"],
    );
    expect_bad(
        &[
            "eval", "--policy", "random", "--hosts", "2", "--load", "0.5",
        ],
        &["--dist"],
    );
    expect_bad(&["threshold", "--dist", "exp:rate=1"], &["--hosts"]);
}

#[test]
fn malformed_empirical_file() {
    let path = temp_file("bad-sample.txt", "1.5\n2\nabc\n4\n");
    let spec = format!("empirical:file={}", path.display());
    let line = expect_bad(
        &[
            "eval", "--policy", "random", "--dist", &spec, "--hosts", "2", "--load", "0.5",
        ],
        &["bad-sample.txt"],
    );
    // The non-number is on line 3 of the file written above.
    assert!(
        line.contains(":3:") || line.to_lowercase().contains("line 3"),
        "the message must name line 3: {line}"
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn empirical_file_with_invalid_utf8_names_its_line() {
    // Line 3 starts with the byte 0xff, which is no UTF-8 ("1.5\n2\n" before it: the
    // bad byte is at offset 6 of the file, counted from 0).
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-{}-latin1-sample.txt", std::process::id()));
    std::fs::write(&path, b"1.5\n2\n\xff3\n4\n").expect("temp file written");
    let spec = format!("empirical:file={}", path.display());
    let line = expect_bad(
        &[
            "eval", "--policy", "random", "--dist", &spec, "--hosts", "2", "--load", "0.5",
        ],
        &["latin1-sample.txt", "utf-8"],
    );
    assert!(line.contains(":3:"), "the message must name line 3: {line}");
    assert!(!line.contains(":0:"), "not line 0: {line}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_zero_parameter_is_named_as_zero() {
    // erlang:k=0 said "got 0e0": an exact zero in a message is 0.
    let line = expect_bad(&sita_with_dist("erlang:k=0,rate=1"), &["k must"]);
    assert!(line.ends_with("got 0"), "{line}");
    let line = expect_bad(&sita_with_dist("exp:rate=0"), &["rate"]);
    assert!(!line.contains("0e0"), "{line}");
}

#[test]
fn slowdown_divergence_names_the_first_host_interval() {
    // E[1/X] over (0, s] is infinite for a density positive at 0 (Exp(1): the integral of
    // e^(-x)/x diverges at 0), so the first host's interval is the one at fault, never
    // (a cutoff, the end of the support] whose E[1/X] is finite.
    for args in [
        &[
            "optimize",
            "--policy",
            "sita",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
            "--metric",
            "slowdown",
        ][..],
        &[
            "eval",
            "--policy",
            "sita",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            "1",
            "--cutoffs",
            "1",
            "--metric",
            "slowdown",
        ],
    ] {
        let line = expect_bad(args, &["e[x^-1]", "infinite"]);
        assert!(line.contains("(0, "), "{args:?}: {line}");
        assert!(!line.contains("end of the support"), "{args:?}: {line}");
    }
}

#[test]
fn nonexistent_empirical_file() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-sample-file.txt");
    let spec = format!("empirical:file={}", path.display());
    expect_bad(
        &["threshold", "--dist", &spec, "--hosts", "2"],
        &["no-such-sample-file.txt"],
    );
}

// ---------------------------------------------------------------------------------------
// Good input.
// ---------------------------------------------------------------------------------------

#[test]
fn help_exits_zero() {
    for args in [
        &["--help"][..],
        &["eval", "--help"],
        &["threshold", "--help"],
    ] {
        let out = run_ok(args);
        assert!(out.contains("Usage"), "args {args:?}: {out}");
    }
}

#[test]
fn eval_json_has_design_keys_in_scientific_notation() {
    let obj = run_json(&[
        "eval",
        "--policy",
        "tags",
        "--dist",
        "bp:k=1,p=1e10,alpha=1",
        "--hosts",
        "2",
        "--load",
        "0.5",
        "--cutoffs",
        "1000",
        "--digits",
        "30",
        "--format",
        "json",
    ]);
    // ARCHITECTURE.md, "The command line": keys for eval/optimize (extra keys allowed).
    assert_keys(
        &obj,
        &[
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
        ],
    );
    assert_eq!(obj["policy"], "tags");
    assert_eq!(obj["dist"], "bp:k=1,p=1e10,alpha=1");
    assert_eq!(obj["metric"], "waiting");
    assert_eq!(obj["hosts"].as_u64(), Some(2));
    assert_eq!(obj["stable"], Value::Bool(true));
    assert!(obj["digits"]
        .as_u64()
        .is_some_and(|d| (1..=30).contains(&d)));
    for k in ["lambda", "load", "value", "queueing", "wasted"] {
        sci_field(&obj, k);
    }
    assert_eq!(sci_array(&obj, "cutoffs").len(), 1);
    let loads = sci_array(&obj, "host_loads");
    assert_eq!(loads.len(), 2);
    // Expected value, closed form for BP(k, p, α = 1) (density ∝ x^-2, so
    // E[X; a < X ≤ b] = C ln(b/a)): host 2 of TAGS serves every job with X > s in full,
    // ρ_2 = λ C ln(p/s) and ρ = λ C ln(p/k), so ρ_2 = 0.5 · ln(1e7)/ln(1e10) = 0.35 exactly.
    assert_eq!(loads[1], "3.50000000000000000000000000000e-1");
    // Input echoed at 30 digits: ρ = 0.5.
    assert_eq!(obj["load"], "5.00000000000000000000000000000e-1");
}

#[test]
fn threshold_json_has_design_keys_and_uniform_value() {
    let obj = run_json(&[
        "threshold",
        "--dist",
        "uniform:a=0,b=1",
        "--hosts",
        "2",
        "--digits",
        "30",
        "--format",
        "json",
    ]);
    // ARCHITECTURE.md, "The command line": keys for threshold.
    assert_keys(
        &obj,
        &["dist", "hosts", "threshold_load", "cutoffs", "digits"],
    );
    assert_eq!(obj["dist"], "uniform:a=0,b=1");
    assert_eq!(obj["hosts"].as_u64(), Some(2));
    assert_eq!(obj["digits"].as_u64(), Some(30));
    // Expected value (source: BDS20; derivation: at the threshold both hosts are critical
    // at s = 1/2: host 1 λ(s²/2 + s(1 − s)) = 3λ/8 = 1 and host 2 λ(1 − s²)/2 = 3λ/8 = 1,
    // so λ* = 8/3 and ρ* = λ* E[X] = 4/3).
    assert_eq!(
        sci_field(&obj, "threshold_load"),
        "1.33333333333333333333333333333e0"
    );
    // Same derivation: the greedy cutoff is s = 1/2.
    assert_eq!(
        sci_array(&obj, "cutoffs"),
        vec!["5.00000000000000000000000000000e-1".to_string()]
    );
}

#[test]
fn threshold_json_exp_matches_closed_form() {
    let obj = run_json(&[
        "threshold",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "2",
        "--format",
        "json",
    ]);
    // Expected value: exp_two_host_threshold() (closed-form derivation, BDS20).
    let (m, e) = mantissa_exponent(sci_field(&obj, "threshold_load"));
    let got = m * 10f64.powi(i32::try_from(e).expect("small exponent"));
    let want = exp_two_host_threshold();
    assert!(
        ((got - want) / want).abs() < F64_REL_TOL,
        "threshold {got} vs closed form {want}"
    );
}

#[test]
fn mm1_mean_waiting_is_one() {
    // M/M/1 with ρ = 0.5: E[W] = ρ/(μ(1 − ρ)) = 1 exactly (Pollaczek–Khinchine with
    // E[X²] = 2/μ²; every policy is the same single M/M/1 queue when h = 1).
    for policy in ["sita", "tags", "random"] {
        let obj = run_json(&[
            "eval",
            "--policy",
            policy,
            "--dist",
            "exp:rate=1",
            "--hosts",
            "1",
            "--load",
            "0.5",
            "--digits",
            "30",
            "--format",
            "json",
        ]);
        // "1." followed by 29 zeros: 30 significant digits.
        assert_eq!(
            sci_field(&obj, "value"),
            "1.00000000000000000000000000000e0",
            "policy {policy}"
        );
        assert_eq!(obj["digits"].as_u64(), Some(30), "policy {policy}");
    }
    // The text format prints the same number.
    let text = run_ok(&[
        "eval",
        "--policy",
        "random",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "1",
        "--load",
        "0.5",
        "--digits",
        "30",
    ]);
    let value_line = text
        .lines()
        .find(|l| l.starts_with("value"))
        .expect("a value line");
    assert_eq!(
        value_line.split_whitespace().nth(1),
        Some("1.00000000000000000000000000000e0")
    );
}

#[test]
fn huge_p_at_50_digits_is_finite() {
    const DIGITS: &str = "50";
    for policy in ["sita", "tags"] {
        let obj = run_json(&[
            "eval",
            "--policy",
            policy,
            "--dist",
            "bp:k=1,p=1e100000,alpha=1",
            "--hosts",
            "2",
            "--load",
            "0.5",
            "--cutoffs",
            "1e50000",
            "--digits",
            DIGITS,
            "--format",
            "json",
        ]);
        for k in ["lambda", "load", "value", "queueing"] {
            sci_field(&obj, k);
        }
        sci_array(&obj, "host_loads");
        assert_eq!(obj["stable"], Value::Bool(true), "policy {policy}");
        assert!(obj["digits"].as_u64().is_some_and(|d| d >= 1));
        if policy == "sita" {
            // Closed form for BP(1, p, 1) (E[X; a < X ≤ b] = C ln(b/a)) with s = √p: each
            // host carries half the load, ρ_i = 0.25 exactly.
            let loads = sci_array(&obj, "host_loads");
            let quarter = format!("2.{}e-1", "5".to_string() + &"0".repeat(48));
            assert_eq!(loads, vec![quarter.clone(), quarter]);
            // Closed form: with C = 1/(1 − 1/p), λ = ρ/(C ln p), P_1 M2_1 = C²(1 − 1/s)(s − 1),
            // P_2 M2_2 = C²(1/s − 1/p)(p − s), E[W] = λ/(2 · 0.75) Σ P_i M2_i
            // = (2/3) s / ln p · (1 + O(1/s)) = 2/(3 ln 10) · 10^-5 · 10^50000.
            let (m, e) = mantissa_exponent(sci_field(&obj, "value"));
            let want = 2.0 / (3.0 * std::f64::consts::LN_10) * 10.0;
            assert_eq!(e, 49994);
            assert!(((m - want) / want).abs() < F64_REL_TOL, "{m} vs {want}");
        }
    }
}

/// Inputs a robustness sweep of the binary found (stop 60, about 1 300 invocations of edge
/// values): each now gets the class of exit the contract names. Source: ARCHITECTURE.md's
/// command-line contract (bad input: exit 2 and one line; a computation that could not get
/// through: exit 3 and one line), not the code under test.
#[test]
fn edge_inputs_found_by_the_sweep_exit_with_their_class() {
    // Command lines written as one string (no argument here holds a space).
    let args = |s: &str| -> Vec<String> { s.split_whitespace().map(String::from).collect() };
    // A short two-replication simulation of `dist` under `policy`.
    let sim = |threads: &str, policy: &str, dist: &str| {
        args(&format!(
            "simulate --threads {threads} --replications 2 --jobs 2000 --policy {policy} --dist {dist} --hosts 2 --load 1"
        ))
    };
    // Exit 3, nothing on stdout, one line on stderr that contains `needle`.
    let numerical = |a: &[String], needle: &str| {
        let r = common::run(a);
        assert_eq!(r.code, 3, "{a:?}: stdout {} stderr {}", r.stdout, r.stderr);
        assert!(r.stdout.is_empty(), "{a:?}: stdout {:?}", r.stdout);
        assert_eq!(r.stderr.lines().count(), 1, "{a:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{a:?}: {}", r.stderr);
    };
    // Bad input, exit 2: SITA-E on a one-point law (no cutoffs exist; `--policy sita`
    // already said so, SITA-E called it a numerical failure), a thread count no run can
    // use (10 000 threads hung a 1 000-job run; 0 threads), and a moment order the
    // quantity does not have (its message listed 3 among the supported ones).
    expect_bad(
        &args("optimize --policy sita-e --dist det:x=1 --hosts 2 --load 1 --digits 6"),
        &["single point"],
    );
    for t in ["10000", "0", "-3"] {
        expect_bad(&sim(t, "random", "exp:rate=1"), &["threads", t]);
    }
    let quantity = |q: &str| {
        args(&format!(
            "quantity --digits 6 --dist exp:rate=1 {q} --hosts 2 --load 1"
        ))
    };
    expect_bad(&quantity("moment(3)"), &["moment(j)", "got 3"]);
    // Laws given by their mean whose parameters cannot be formed: the message names the
    // key given and why (they named p and scale, keys the user never wrote).
    let eval = |d: &str| {
        args(&format!(
            "eval --policy random --dist {d} --hosts 2 --load 0.5"
        ))
    };
    expect_bad(&eval("hyperexp:mean=1,scv=1e300"), &["scv", "1 - p"]);
    expect_bad(&eval("weibull:shape=1e-300,mean=1"), &["shape", "gamma"]);
    // The simulators work in f64: a mean size of 1e300 or 1e-300 is refused (infinite and
    // zero half-widths were printed), exit 2 with the way out (rescale the time unit).
    expect_bad(&sim("1", "random", "exp:rate=1e-300"), &["rescale"]);
    expect_bad(
        &args("redundancy simulate --jobs 2000 --replications 2 --threads 1 --policy fcfs --servers 2 --class 1:0.3 --dist exp:rate=1e300"),
        &["rescale"],
    );
    // A simulated slowdown beyond f64 (sizes near 1e-300 in a hyperexponential of mean
    // 0.5) is a numerical failure, not an infinite half-width.
    numerical(
        &sim("1", "random", "hyperexp:p=0.5,rate1=1,rate2=1e300"),
        "slowdown left f64",
    );
    // The exact chain at λ = 1e-300 (its stationary solve's norms underflow; it printed
    // "undetermined" with exit 0), and pools at 1e300.
    for (model, lambda) in [("queues", "1e-300"), ("pools", "1e300")] {
        numerical(
            &args(&format!("jsq exact --digits 6 --model {model} --lambda {lambda} --servers 2 --d 2 --buffer 3")),
            "did not get through",
        );
    }
    // A value that left MPFR's exponent range is refused (README: "never printed as inf
    // or 0"): e^(1e10) and 2^(2^40) overflow, 10^-1e9 underflows, and ∞ − ∞ is not a
    // number; an expression whose underflowed part does not reach the value is printed.
    for q in [
        "exp(1e10)",
        "0-exp(1e10)",
        "2^(2^40)",
        "10^-1000000000",
        "exp(1e10)-exp(1e10)",
        // The underflow comes before a certified quantity's own run: before 2026-12-07
        // that run cleared MPFR's flags and 0e0 was printed with exit 0.
        "10^-1000000000+0*tags_stable()",
        "10^-1000000000+0*opt(sita).value",
    ] {
        numerical(&quantity(q), "exponent range");
    }
    assert!(run_ok(&quantity("exp(-1e10)*0+1")).contains("1.00000e0"));
    // The fixed point at λ = 1e300 with a buffer of 3: 1 − blocking cancels to 0, and
    // Little's law printed an infinite sojourn (exit 0; with --rigorous [−∞, ∞]).
    let fixed = "jsq fixed-point --digits 6 --model queues --lambda 1e300 --buffer 3 --d 2";
    numerical(&args(fixed), "(1 − blocking)");
    numerical(&args(&format!("{fixed} --rigorous")), "(1 − blocking)");
    // An infinite analytic waiting (Pareto α = 1.5: E[X²] = ∞, Pollaczek–Khinchine) is
    // `null` with a note in JSON, not the string "inf". (Its heavy-tail warning goes to
    // stderr, so the JSON is read from stdout here.)
    let mut a = sim("1", "random", "pareto:k=1,alpha=1.5");
    a.extend(args("--format json"));
    let r = common::run(&a);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let m: serde_json::Map<String, Value> = serde_json::from_str(&r.stdout).expect("one object");
    assert_eq!(m.get("analytic_waiting"), Some(&Value::Null));
    assert!(m.contains_key("analytic_waiting_note"));
    // The same exact chain at a moderate rate still solves (exit 0).
    run_ok(&args(
        "jsq exact --digits 6 --model queues --lambda 0.5 --servers 2 --d 2 --buffer 3",
    ));
}

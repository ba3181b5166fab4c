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

/// Significant digits of a certified decimal as printed (`1.2345e6`: 5), `None` for a
/// text that is not a number in scientific notation (`undetermined`, `inf`).
fn printed_digits(s: &str) -> Option<u64> {
    if !common::is_sci(s) {
        return None;
    }
    let mant = s.trim_start_matches('-').split('e').next()?;
    Some(mant.chars().filter(char::is_ascii_digit).count() as u64)
}

/// Issue 24, item 6: one cutoff certified to fewer digits than the others sets `digits`
/// although the value is certain to every digit asked; `field_digits` gives each number's
/// digits and `digits_limited_by` names the cutoff. Each count is checked a second way,
/// against the digits the number is printed with (every printed digit is certified). The
/// case: TAGS's waiting at BP(1, 10^1000, 1), 6 hosts, total load 3, 12 digits: the value
/// certified to 12, cutoff 3 to 10 (the others to 11 and 12; 2026-12-06). Before, SITA's
/// slowdown at BP(1, 10^1000, 1.2), 6 hosts, load 3, whose first two cutoffs were
/// undetermined until the bottom edge fill certified all of them; TAGS's slowdown at
/// BP(1, 10^1000, 1), 5 and 8 hosts, until the top edge fill; and SITA at BP(1, 10^100,
/// 0.5), 2 hosts, load 1.5, until the polish reached its edge.
#[test]
fn digits_are_given_per_field_and_the_limiting_one_is_named() {
    let args = [
        "optimize",
        "--policy",
        "tags",
        "--metric",
        "waiting",
        "--dist",
        "bp:k=1,p=1e1000,alpha=1",
        "--hosts",
        "6",
        "--load",
        "3",
        "--digits",
        "12",
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let v = run_json(&json_args);
    let f = v["field_digits"].as_object().expect("field_digits");
    for k in ["lambda", "load", "value", "queueing", "wasted"] {
        let d = f[k].as_u64().unwrap_or_else(|| panic!("{k}: {f:?}"));
        let printed = v[k].as_str().and_then(printed_digits);
        assert_eq!(Some(d), printed, "{k}: {}", v[k]);
    }
    assert_eq!(f["value"].as_u64(), Some(12), "{f:?}");
    let cut = f["cutoffs"].as_array().expect("cutoffs");
    assert_eq!(cut.len(), 5);
    for (i, d) in cut.iter().enumerate() {
        let printed = v["cutoffs"][i].as_str().and_then(printed_digits);
        assert_eq!(d.as_u64(), printed, "cutoffs[{i}]");
    }
    for (i, d) in f["host_loads"]
        .as_array()
        .expect("host_loads")
        .iter()
        .enumerate()
    {
        let printed = v["host_loads"][i].as_str().and_then(printed_digits);
        assert_eq!(d.as_u64(), printed, "host_loads[{i}]");
    }
    // `digits` is the least field's, and that field is named.
    let least = cut.iter().filter_map(|d| d.as_u64()).min().unwrap();
    assert!(least < 12, "{f:?}");
    assert_eq!(v["digits"].as_u64(), Some(least), "{v:?}");
    let limiting: Vec<String> = cut
        .iter()
        .enumerate()
        .filter(|(_, d)| d.as_u64() == Some(least))
        .map(|(i, _)| format!("cutoffs[{}]", i + 1))
        .collect();
    assert_eq!(v["digits_limited_by"], serde_json::json!(limiting));
    let notes = v["notes"].to_string();
    assert!(
        notes.contains(&format!("the fewest are in {}", limiting.join(", "))),
        "{notes}"
    );
    // the text record says the same
    let text = common::run_ok(&args);
    assert!(
        text.lines().any(|l| l.starts_with("digits_limited_by")
            && l.ends_with(&format!("  {}", limiting.join(", ")))),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("field_digits")
            && l.split_whitespace()
                .find_map(|w| w.strip_prefix("cutoffs="))
                .is_some_and(|c| c
                    .split(',')
                    .map(|x| x.parse::<u64>().ok())
                    .eq(cut.iter().map(|d| d.as_u64())))),
        "{text}"
    );
    // all digits certain: nothing limits
    let v = run_json(&[
        "optimize", "--policy", "sita", "--dist", BP, "--hosts", "2", "--load", "0.5", "--format",
        "json",
    ]);
    assert_eq!(v["digits_limited_by"], serde_json::json!([]));
    assert_eq!(v["field_digits"]["value"].as_u64(), v["digits"].as_u64());
}

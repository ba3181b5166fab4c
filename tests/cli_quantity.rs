//! `taskassign quantity "EXPR" --dist … --hosts … --load …`: any expression of the claim
//! language evaluated once, certified, through the claims engine (the numbers `check`
//! judges), in text and JSON; a bad expression is bad input (exit 2, one line).

mod common;
use common::{expect_bad, run_json, run_ok};
use rug::Float;

/// The decimal string of `key` in `m`, parsed at 200 bits.
fn big(m: &serde_json::Map<String, serde_json::Value>, key: &str) -> Float {
    let s = m[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is a string"));
    taskassign::num::parse_decimal(s, 200).unwrap_or_else(|e| panic!("{key} = {s}: {e}"))
}

#[test]
fn a_closed_form_through_the_claims_engine() {
    // Random routing: E[W] = (λ/h)E[X²]/(2(1 − ρ/h)) (ARCHITECTURE.md, "The model"); for
    // Exp(1), h = 2, ρ = λ = 1: (1/2)·2/(2·(1 − 1/2)) = 1 exactly. 30 digits asked: the
    // value must be 1 to within 1e-29.
    let m = run_json(&[
        "quantity",
        "eval(random).value",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "2",
        "--load",
        "1",
        "--format",
        "json",
    ]);
    let v = big(&m, "value");
    assert!(Float::with_val(200, &v - 1u32).abs() < 1e-29, "{v}");
    assert_eq!(m["digits"], 30);
    assert_eq!(m["quantity"], "eval(random).value");
    assert_eq!(m["dist"], "exp:rate=1");
}

#[test]
fn sita_opt_cutoff_is_the_geometric_mean() {
    // SITA-opt for the Bounded Pareto with α = 1 on two hosts: the optimal cutoff is
    // √(kp) (README, `optimize`), here √(1·10^10) = 10^5, at any load; 20 digits.
    let m = run_json(&[
        "quantity",
        "opt(sita).cutoff[1]",
        "--dist",
        "bp:k=1,p=1e10,alpha=1",
        "--hosts",
        "2",
        "--load",
        "0.5",
        "--digits",
        "20",
        "--format",
        "json",
    ]);
    let v = big(&m, "value");
    let rel = Float::with_val(200, &v / 100_000u32) - 1u32;
    assert!(rel.abs() < 1e-18, "{v}");
}

#[test]
fn a_ratio_keeps_its_certification() {
    // TAGS-opt over SITA-opt, the number a user got by dividing two optimize runs by hand:
    // the quantity equals the ratio of the two commands' values to the digits both print
    // (relative 1e-18: each value carries 20 certified digits).
    let dist = "bp:k=1,p=1e6,alpha=1.5";
    let opt = |p: &str| {
        run_json(&[
            "optimize", "--policy", p, "--dist", dist, "--hosts", "2", "--load", "0.6", "--digits",
            "20", "--format", "json",
        ])
    };
    let (tags, sita) = (big(&opt("tags"), "value"), big(&opt("sita"), "value"));
    let want = Float::with_val(200, &tags / &sita);
    let m = run_json(&[
        "quantity",
        "opt(tags).value / opt(sita).value",
        "--dist",
        dist,
        "--hosts",
        "2",
        "--load",
        "0.6",
        "--digits",
        "20",
        "--format",
        "json",
    ]);
    let got = big(&m, "value");
    let rel = Float::with_val(200, &got / &want) - 1u32;
    assert!(rel.abs() < 1e-18, "{got} vs {want}");
    // Text output: the same value on its own line.
    let text = run_ok(&[
        "quantity",
        "opt(tags).value / opt(sita).value",
        "--dist",
        dist,
        "--hosts",
        "2",
        "--load",
        "0.6",
        "--digits",
        "20",
    ]);
    let line = text
        .lines()
        .find(|l| l.starts_with("value"))
        .expect("a value line");
    assert!(
        line.ends_with(m["value"].as_str().expect("value")),
        "{line}"
    );
}

#[test]
fn a_threshold_needs_no_load() {
    // ρ*(F, ∞) = E[X] / sup_x xF̄(x) (ARCHITECTURE.md, "TAGS stability"); for Exp(1),
    // sup x e^(−x) = 1/e at x = 1, so ρ* = e (30 digits).
    let m = run_json(&[
        "quantity",
        "threshold()",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "inf",
        "--format",
        "json",
    ]);
    let e = Float::with_val(200, 1u32).exp();
    let v = big(&m, "value");
    assert!(Float::with_val(200, &v - &e).abs() < 1e-28, "{v}");
}

#[test]
fn bad_expressions_are_bad_input() {
    let base = ["--dist", "exp:rate=1", "--hosts", "2", "--load", "1"];
    for (expr, needle) in [
        ("opt(sitaa)", "sitaa"),
        ("1 +", "expr"),
        ("nosuch()", "nosuch"),
        ("eval(random).nofield", "nofield"),
        ("", "empty"),
    ] {
        let args: Vec<&str> = ["quantity", expr].iter().chain(&base).copied().collect();
        let line = expect_bad(&args, &[needle]);
        // The message names the option or the expression, not a line of a file the
        // user never wrote.
        assert!(!line.contains("quantity:"), "{line}");
    }
    // A bad setup value is bad input too.
    expect_bad(
        &[
            "quantity",
            "eval(random)",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--metric",
            "waiting",
            "--load",
            "lod",
        ],
        &["lod"],
    );
}

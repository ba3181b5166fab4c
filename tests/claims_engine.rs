//! The claims engine: extrapolation on synthetic sequences, every relation kind of the
//! shipped catalogue can fail, malformed claim files are rejected with file, line and key.

mod common;
use common::taskassign;

use rug::Float;
use std::path::{Path, PathBuf};
use taskassign::claims::compile;
use taskassign::claims::run_claim;
use taskassign::claims::Claim;
use taskassign::claims::Relation;
use taskassign::claims::Verdict;
use taskassign::claims::{parse_expr as parse, Expr};
use taskassign::num::{extrapolate, Transform};

/// Exit status for bad input (ARCHITECTURE.md, "The command line").
const EXIT_BAD_INPUT: i32 = 2;
/// Exit status when a claim fails (ARCHITECTURE.md, "Errors and exit statuses").
const EXIT_FAIL: i32 = 1;
/// Working precision of the synthetic sequences (bits).
const BITS: u32 = 200;

/// An expression of the quantity language, read with the registry's words.
fn expr(s: &str) -> Expr {
    parse(s, &taskassign::claims::registry().words()).expect("expr")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shipped(rel: &str) -> Claim {
    let p = root().join("proofs-check").join(rel);
    let text = std::fs::read_to_string(&p).expect("shipped claim file");
    compile(&p.display().to_string(), &text).expect("shipped claim compiles")
}

fn f(x: f64) -> Float {
    Float::with_val(BITS, x)
}

/// a + b/L + c/L² (+ e/L³) at p = 10^k, L = ln p, exactly in MPFR.
fn synthetic(a: f64, b: f64, c: f64, e: f64, ks: &[u32]) -> (Vec<Float>, Vec<Float>) {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for k in ks {
        let p = Float::with_val(BITS, Float::parse(format!("1e{k}")).expect("decimal"));
        let x = Transform::InvLn.apply(&p);
        let x2 = Float::with_val(BITS, &x * &x);
        let x3 = Float::with_val(BITS, &x2 * &x);
        let y = f(a) + Float::with_val(BITS, &x * b) + Float::with_val(BITS, &x2 * c) + x3 * e;
        xs.push(x);
        ys.push(y);
    }
    (xs, ys)
}

/// Exact model, degree 2: the limit is recovered to the arithmetic's precision.
const EXACT_TOL: f64 = 1e-40;

#[test]
fn extrapolation_recovers_synthetic_limits() {
    // Source of the expected value: the sequence is built from it (a = √2's double).
    let a = std::f64::consts::SQRT_2;
    let (xs, ys) = synthetic(a, 3.0, -5.0, 0.0, &[10, 20, 50, 100, 200, 500, 1000]);
    let l = extrapolate(&xs, &ys, 2).expect("limit");
    assert!(Float::with_val(BITS, &l.estimate - a).abs() < EXACT_TOL);
    // The error estimate is the spread against degree 1, which misses c x²: it is not
    // zero, and it covers the degree-1 estimate's true error.
    let l1 = extrapolate(&xs, &ys, 1).expect("limit");
    let true_err1 = Float::with_val(BITS, &l1.estimate - a).abs();
    assert!(
        l1.error >= true_err1,
        "degree-1 error estimate {} must cover {}",
        l1.error,
        true_err1
    );
    assert!(l1.error > 0);
}

/// How much larger than the true error an error estimate may be and still be "sensible".
const ERROR_OVERESTIMATE_MAX: f64 = 1e4;

#[test]
fn extrapolation_error_is_sensible_when_the_model_is_short() {
    // a + b/L + c/L² + e/L³ fitted with degree 2: the estimate is off by about e x³, and
    // the error estimate must cover it without being absurdly large.
    let a = 2.0;
    let (xs, ys) = synthetic(a, 1.0, 4.0, 30.0, &[20, 50, 100, 200, 500, 1000, 2000]);
    let l = extrapolate(&xs, &ys, 2).expect("limit");
    let true_err = Float::with_val(BITS, &l.estimate - a).abs();
    assert!(
        true_err > 0,
        "the model is short, so the estimate is not exact"
    );
    assert!(
        l.error >= true_err,
        "error estimate {} < true error {}",
        l.error,
        true_err
    );
    assert!(
        Float::with_val(BITS, &l.error / &true_err) < ERROR_OVERESTIMATE_MAX,
        "error estimate {} too pessimistic against {}",
        l.error,
        true_err
    );
}

fn verdict_with(
    mut c: Claim,
    check: &str,
    edit: impl Fn(&mut taskassign::claims::Check),
) -> Verdict {
    c.checks.retain(|k| k.name == check);
    assert_eq!(c.checks.len(), 1, "check {check} exists");
    edit(&mut c.checks[0]);
    c.checks[0].expect = Verdict::Pass;
    run_claim(&c).verdict
}

fn set_grid(k: &mut taskassign::claims::Check, var: &str, vals: &[&str]) {
    if let Some(g) = k.grid.iter_mut().find(|(n, _)| n == var) {
        g.1 = vals.iter().map(|s| s.to_string()).collect();
    }
}

#[test]
fn every_shipped_relation_kind_can_fail() {
    // `<=` on a limit: tags-sita-factor-two's limit is √2 for alpha = 1, h = 2 (the
    // snapshot); a bound of 1.41 is past it.
    let c = shipped("bds20/tags-sita-factor-two.toml");
    assert_eq!(
        verdict_with(c.clone(), "limit", |k| {
            set_grid(k, "alpha", &["1"]);
            set_grid(k, "h", &["2"]);
            set_grid(k, "load", &["0.3"]);
            assert_eq!(k.relation, Relation::Le);
            k.bound = Some(expr("1.41"));
        }),
        Verdict::Fail
    );
    // `>=`: the SITA unbalancing gain is 1 at alpha = 1; demand 1.5.
    let c = shipped("hbv10/sita-unbalance-gain.toml");
    assert_eq!(
        verdict_with(c, "no-gain-at-alpha-1", |k| {
            set_grid(k, "p", &["1e4"]);
            set_grid(k, "load", &["0.5"]);
            k.relation = Relation::Ge;
            k.bound = Some(expr("1.5"));
        }),
        Verdict::Fail
    );
    // `>` on a limit: the growth exponent is 1/2; demand more than 0.6.
    let c = shipped("bd21/tags-sita-unbounded-two-hosts.toml");
    assert_eq!(
        verdict_with(c, "growth-exponent", |k| {
            set_grid(k, "c", &["0.5"]);
            k.bound = Some(expr("0.6"));
        }),
        Verdict::Fail
    );
    // `==` with a closed form: shift Pareto's closed form by 1e-10 (tolerance 1e-15).
    let c = shipped("bds20/tags-threshold-families.toml");
    assert_eq!(
        verdict_with(c.clone(), "pareto-closed-form", |k| {
            set_grid(k, "alpha", &["2"]);
            set_grid(k, "h", &["3"]);
            k.bound = Some(expr("alpha / (alpha - 1) * (1 - alpha^(-hosts)) + 1e-10"));
        }),
        Verdict::Fail
    );
    // expected values: 4/3 for the uniform, changed to 1.3334.
    assert_eq!(
        verdict_with(c, "exact-h2", |k| {
            for ev in &mut k.expected_values {
                if ev.at.get("d").is_some_and(|d| d.starts_with("uniform")) {
                    ev.value = "1.3334".into();
                }
            }
        }),
        Verdict::Fail
    );
    // `sign_as`: the direction of imbalance reversed.
    let c = shipped("hbv10/sita-unbalance-direction.toml");
    assert_eq!(
        verdict_with(c, "direction-at-finite-p", |k| {
            set_grid(k, "alpha", &["0.5", "1.5"]);
            set_grid(k, "load", &["0.5"]);
            set_grid(k, "p", &["1e10"]);
            k.bound = Some(expr("1 - alpha"));
        }),
        Verdict::Fail
    );
    // `decreasing` turned into `increasing`.
    let c = shipped("bd21/decentralized-qos-design.toml");
    assert_eq!(
        verdict_with(c, "sita-waiting-falls-with-h", |k| {
            set_grid(k, "alpha", &["1"]);
            set_grid(k, "load", &["0.5"]);
            k.relation = Relation::Increasing;
        }),
        Verdict::Fail
    );
    // `argmax` at the wrong place.
    let c = shipped("bds20/alpha-1-near-worst.toml");
    assert_eq!(
        verdict_with(c, "worst-on-grid-sita", |k| {
            set_grid(k, "p", &["1e10"]);
            k.at = Some("bp:k=1,p={p},alpha=0.5".into());
        }),
        Verdict::Fail
    );
}

fn write_tmp(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp claim");
    p
}

#[test]
fn a_tightened_claim_exits_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(
        root().join("proofs-check/bd21/tags-sita-unbounded-two-hosts.toml"),
    )
    .expect("file");
    // the growth exponent is 1/2 (limit); require more than 0.6
    let text = text.replacen(
        "relation = \">\"\nbound = \"0\"",
        "relation = \">\"\nbound = \"0.6\"",
        1,
    );
    let p = write_tmp(dir.path(), "t.toml", &text);
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(EXIT_FAIL),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("FAIL"), "{s}");
}

const MINIMAL: &str = r#"id = "mini"
statement = "s"
reading = "r"

[source]
paper = "P"
seed = "none"
words = "w"

[setup]
dist = "exp:rate=1"
hosts = 2

[grid]
h = [2, 3]

[[check]]
quantity = "threshold()"
relation = ">="
bound = "1"
"#;

fn bad_file(text: &str, expect_line: usize, expect_key: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write_tmp(dir.path(), "bad.toml", text);
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(EXIT_BAD_INPUT));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    let want = format!("bad.toml:{expect_line}: {expect_key}");
    assert!(err.contains(&want), "'{want}' in: {err}");
}

#[test]
fn the_minimal_file_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write_tmp(dir.path(), "ok.toml", MINIMAL);
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_claim_files_exit_2_naming_file_line_and_key() {
    // unknown key
    bad_file(
        &MINIMAL.replace("reading = \"r\"", "reading = \"r\"\nbogus = 1"),
        4,
        "bogus",
    );
    // wrong type
    bad_file(
        &MINIMAL.replace("hosts = 2", "hosts = true"),
        12,
        "setup.hosts",
    );
    // a TOML float (would pass through f64)
    bad_file(&MINIMAL.replace("h = [2, 3]", "h = [2, 3.5]"), 15, "grid.h");
    // a [source] without the paper's words ([source] itself is optional: a claim of
    // one's own is unpublished, tests/claims_reports.rs)
    bad_file(&MINIMAL.replace("words = \"w\"\n", ""), 5, "source.words");
    // empty grid
    bad_file(&MINIMAL.replace("h = [2, 3]", "h = []"), 15, "grid.h");
    // bad expression
    bad_file(
        &MINIMAL.replace("quantity = \"threshold()\"", "quantity = \"threshold( +\""),
        18,
        "quantity",
    );
    // unknown quantity
    bad_file(
        &MINIMAL.replace("quantity = \"threshold()\"", "quantity = \"thresh()\""),
        18,
        "quantity",
    );
    // an expected failure without its evidence
    bad_file(
        &MINIMAL.replace("bound = \"1\"", "bound = \"1\"\nexpect = \"fail\""),
        21,
        "finding",
    );
}

/// Calls are validated against the quantity registry when the file is read (not at
/// run time, point by point): unknown fields, indices on numbers, vectors without an
/// index, unknown named arguments, positional words, models.
#[test]
fn calls_are_checked_against_the_registry_at_compile_time() {
    let q = |quantity: &str| {
        MINIMAL.replace(
            "quantity = \"threshold()\"",
            &format!("quantity = \"{quantity}\""),
        )
    };
    for bad in [
        "threshold().bogus",
        "threshold().load[1]",
        "threshold().cutoff",
        "threshold(bogus=1)",
        "threshold(tags)",
        "opt(nope)",
        "opt(tags, tags)",
        "moment()",
        "eval(tags, cutoffs=nope)",
        "ln(2).value",
    ] {
        bad_file(&q(bad), 18, "quantity");
    }
    // a grid variable and a setup key may be overridden; a field of a vector indexed
    for good in [
        "threshold(h=3)",
        "threshold(hosts=inf).argmax",
        "threshold().cutoff[1]",
        "opt(tags, load=0.5).cutoff[-1]",
        "moment(-1)",
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = write_tmp(dir.path(), "ok.toml", &q(good));
        let out = taskassign().arg("check").arg(&p).output().expect("runs");
        assert_ne!(
            out.status.code(),
            Some(EXIT_BAD_INPUT),
            "{good}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    bad_file(
        &MINIMAL.replace("[setup]\n", "[setup]\nmodel = \"nope\"\n"),
        11,
        "setup.model",
    );
}

/// A claim none of whose points could be computed is not a pass: `check` exits 3 (the
/// claim could not be computed), and says so in the summary.
#[test]
fn a_claim_that_computes_nothing_exits_3() {
    // ρ = 5 on 2 hosts: no policy is stable, every point is an error.
    let text = MINIMAL.replace(
        "quantity = \"threshold()\"",
        "quantity = \"opt(tags, load=5)\"",
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write_tmp(dir.path(), "none.toml", &text);
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("1 claim(s) could not be computed"), "{s}");
}

#[test]
fn the_readme_worked_example_runs() {
    // proofs-check/README.md, "Adding a claim without writing Rust".
    let readme = std::fs::read_to_string(root().join("proofs-check/README.md")).expect("readme");
    let start = readme
        .find("id = \"tags-exp-ratio\"")
        .expect("example present");
    let end = start + readme[start..].find("```").expect("end of block");
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write_tmp(dir.path(), "tags-exp-ratio.toml", &readme[start..end]);
    let out = taskassign()
        .arg("check")
        .arg(&p)
        .arg("--format")
        .arg("json")
        .output()
        .expect("runs");
    assert!(out.status.code() == Some(0) || out.status.code() == Some(EXIT_FAIL));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["claims"][0]["id"], "tags-exp-ratio");
}

/// `scv()` (Var X / E[X]^2) against closed forms: 1 for the exponential, 1/3 for the
/// uniform on (0, 1) (E[X^2]/E[X]^2 - 1 = (1/3)/(1/4) - 1), 0 for a constant size;
/// tolerance 1e-15, far above the 20-digit computation's rounding.
#[test]
fn scv_matches_closed_forms() {
    let text = MINIMAL
        .replace("dist = \"exp:rate=1\"", "dist = \"{d}\"")
        .replace(
            "h = [2, 3]",
            "d = [\"exp:rate=2\", \"uniform:a=0,b=1\", \"det:x=3\"]",
        )
        .replace(
            "quantity = \"threshold()\"\nrelation = \">=\"\nbound = \"1\"",
            "quantity = \"scv()\"\nrelation = \"==\"\nbound = \"0\"\ntolerance = \"1e-15\"",
        );
    let with = |bound: &str, d: &str| {
        text.replace("bound = \"0\"", &format!("bound = \"{bound}\""))
            .replace(
                "d = [\"exp:rate=2\", \"uniform:a=0,b=1\", \"det:x=3\"]",
                &format!("d = [\"{d}\"]"),
            )
    };
    for (d, bound, wrong) in [
        ("exp:rate=2", "1", "1.001"),
        ("uniform:a=0,b=1", "1/3", "0.3334"),
        ("det:x=3", "0", "1e-3"),
    ] {
        let c = compile("scv.toml", &with(bound, d)).expect("compiles");
        assert_eq!(run_claim(&c).verdict, Verdict::Pass, "{d}");
        let c = compile("scv.toml", &with(wrong, d)).expect("compiles");
        assert_eq!(run_claim(&c).verdict, Verdict::Fail, "{d} against {wrong}");
    }
}

/// A claim with a point that cannot be computed (ρ = 5 on 2 hosts) and one that can is
/// INCONCLUSIVE: `check` exits 0 and counts it, `check --strict` exits 1, and the JSON
/// gives the failed comparison's relative margin as null with the reason (never "-inf").
#[test]
fn inconclusive_claims_are_counted_and_fail_under_strict() {
    let text = MINIMAL
        .replace("h = [2, 3]", "r = [\"0.5\", \"5\"]")
        .replace(
            "quantity = \"threshold()\"",
            "quantity = \"opt(tags, load=r)\"",
        )
        .replace("bound = \"1\"", "bound = \"0\"");
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write_tmp(dir.path(), "half.toml", &text);
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{s}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(s.contains("1 INCONCLUSIVE"), "{s}");
    let out = taskassign()
        .args(["check", "--strict"])
        .arg(&p)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(EXIT_FAIL));
    let out = taskassign()
        .args(["check", "--format", "json"])
        .arg(&p)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("inf\""), "no infinity in JSON: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cmp = &v["claims"][0]["checks"][0]["comparisons"];
    let failed = cmp
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["verdict"] == "INCONCLUSIVE")
        .expect("the failed point");
    assert!(failed["rel_margin"].is_null(), "{failed}");
    assert!(failed["rel_margin_note"].is_string(), "{failed}");
}

/// A misspelt policy in a quantity (`opt(sitaa)`) is named as a policy, with the list of
/// policies, not as an unknown variable among the grid's.
#[test]
fn an_unknown_policy_is_named_as_one() {
    let text = MINIMAL.replace(
        "quantity = \"threshold()\"",
        "quantity = \"opt(sitaa).value\"",
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write_tmp(dir.path(), "bad.toml", &text);
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(EXIT_BAD_INPUT));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:18: quantity")
            && err.contains("'sitaa' is not a policy")
            && err.contains("sita, ")
            && err.contains("tags")
            && !err.contains("grid variables"),
        "{err}"
    );
}

//! What `check` tells a newcomer (issue 24, items 1, 2, 3 and 12): why each comparison
//! was not decided, in every format; mistakes of a claim file caught when it is read
//! (`[setup]` names, indices past h), all of them in one run; every point's value with its
//! uncertainty and bound; a margin per check; claims without `[source]` or `seed`.

mod common;
use common::{run, EXIT_BAD_INPUT, EXIT_NUMERICAL};

use serde_json::Value;
use std::path::{Path, PathBuf};

/// A claim that computes in a second: ρ*(exp, h) of TAGS at least 1.
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

/// ρ*(exp, 2): the root of (x − 1)(1 + ln(x/(x − 1))) = 1, by bisection in Python's
/// decimal at 40 digits (proofs-check/README.md's schema example; the catalogue's
/// tags-threshold-families locks it too). Here to its first 20 significant digits.
const RHO_STAR_EXP_2: &str = "1.4659412723849928855";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write the claim file");
    p
}

/// `check` on one claim file written from `text` (as `c.toml`), with `args` after it.
fn check(text: &str, args: &[&str]) -> common::Ran {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(dir.path(), "c.toml", text);
    let mut a: Vec<String> = vec!["check".into(), p.display().to_string()];
    a.extend(args.iter().map(|s| s.to_string()));
    run(a)
}

/// The JSON report of `text`.
fn json(text: &str) -> Value {
    let r = check(text, &["--format", "json"]);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {} {}", r.stdout, r.stderr))
}

/// `s` escaped as the HTML report escapes text (& < > " ').
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

// ---------------------------------------------------------------------------------------
// Item 1: mistakes caught when the file is read, and reasons in every format.

#[test]
fn an_unknown_name_in_setup_is_an_error_of_the_file() {
    // `load = "lod"` for the grid variable `load` (line 13 of the file).
    let text = MINIMAL
        .replace("hosts = 2\n", "hosts = 2\nload = \"lod\"\n")
        .replace("h = [2, 3]", "load = [\"0.5\"]")
        .replace("threshold()", "opt(sita)")
        .replace("bound = \"1\"", "bound = \"0\"");
    let r = check(&text, &[]);
    assert_eq!(r.code, EXIT_BAD_INPUT, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("c.toml:13: setup.load: unknown name 'lod'")
            && r.stderr.contains("grid variables: load"),
        "{}",
        r.stderr
    );
    // an unknown quantity inside a setup expression is named too
    let text2 = text.replace("load = \"lod\"", "load = \"0.9 * thresh()\"");
    let r = check(&text2, &[]);
    assert_eq!(r.code, EXIT_BAD_INPUT, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("c.toml:13: setup.load: unknown function 'thresh'"),
        "{}",
        r.stderr
    );
    // the names a setup may use still compile: a grid variable, a quantity of the model
    let good = text.replace("load = \"lod\"", "load = \"load * threshold()\"");
    let r = check(&good, &["--format", "json"]);
    assert_ne!(r.code, EXIT_BAD_INPUT, "{}", r.stderr);
}

#[test]
fn an_index_past_the_hosts_is_an_error_of_the_file() {
    let q = |quantity: &str, hosts: &str, grid: &str| {
        MINIMAL
            .replace("hosts = 2", &format!("hosts = {hosts}"))
            .replace("h = [2, 3]", grid)
            .replace("threshold()", quantity)
            .replace("bound = \"1\"", "bound = \"0\"")
    };
    // opt() has h − 1 cutoffs and h host loads (ARCHITECTURE.md, "The model": cutoffs
    // s_1 … s_{h−1} between the ends of the support; one load a host)
    for (quantity, hosts, grid, at) in [
        ("opt(sita, load=0.5).cutoff[3]", "2", "h = [2, 3]", "h = 2"),
        ("opt(sita, load=0.5).cutoff[2]", "2", "h = [2, 3]", "h = 2"),
        ("opt(sita, load=0.5).cutoff[-2]", "2", "h = [2, 3]", "h = 2"),
        (
            "opt(sita, load=0.5).host_load[3]",
            "2",
            "h = [2, 3]",
            "h = 2",
        ),
        // hosts from the grid: the smallest value is past the end
        (
            "opt(sita, load=0.5).cutoff[2]",
            "\"h\"",
            "h = [2, 3]",
            "h = 2",
        ),
        // a call's own override
        (
            "opt(sita, load=0.5, hosts=3).cutoff[3]",
            "2",
            "h = [2]",
            "h = 3",
        ),
    ] {
        let r = check(&q(quantity, hosts, grid), &[]);
        assert_eq!(
            r.code, EXIT_BAD_INPUT,
            "{quantity}: {}{}",
            r.stdout, r.stderr
        );
        assert!(
            r.stderr.contains("c.toml:18: quantity:")
                && r.stderr.contains(&format!("does not exist at {at}")),
            "{quantity}: {}",
            r.stderr
        );
    }
    // index 0 never exists
    let r = check(&q("opt(sita, load=0.5).cutoff[0]", "2", "h = [2]"), &[]);
    assert_eq!(r.code, EXIT_BAD_INPUT, "{}", r.stderr);
    assert!(r.stderr.contains("indices start at 1"), "{}", r.stderr);
    // within the ends: computed (h = 2: one cutoff, two host loads)
    for quantity in [
        "opt(sita, load=0.5).cutoff[1]",
        "opt(sita, load=0.5).cutoff[-1]",
        "opt(sita, load=0.5).host_load[2]",
        "opt(sita, load=0.5, hosts=3).cutoff[2]",
    ] {
        let r = check(&q(quantity, "2", "h = [2]"), &[]);
        assert_eq!(r.code, 0, "{quantity}: {}{}", r.stdout, r.stderr);
    }
}

/// A claim with a point that cannot be computed (ρ = 5 on 2 hosts, beyond every policy's
/// stability) and one that can.
fn half_computed() -> String {
    MINIMAL
        .replace("h = [2, 3]", "r = [\"0.5\", \"5\"]")
        .replace(
            "quantity = \"threshold()\"",
            "quantity = \"opt(tags, load=r)\"",
        )
        .replace("bound = \"1\"", "bound = \"0\"")
}

#[test]
fn every_format_says_why_a_point_was_not_computed() {
    let text = half_computed();
    // the reason as JSON carried it before (the comparison's value: "error: …")
    let v = json(&text);
    let cmp = v["claims"][0]["checks"][0]["comparisons"]
        .as_array()
        .expect("comparisons")
        .clone();
    let failed = cmp
        .iter()
        .find(|c| c["point"] == "r=5")
        .expect("the point r=5");
    let error = failed["value"]
        .as_str()
        .and_then(|s| s.strip_prefix("error: "))
        .expect("an error")
        .to_string();
    assert_eq!(failed["verdict"], "INCONCLUSIVE");
    assert_eq!(
        failed["reason"].as_str(),
        Some(format!("not computed: {error}").as_str())
    );
    let want = format!("at r=5: not computed: {error}");
    let r = check(&text, &[]);
    assert!(
        r.stdout.contains("not decided") && r.stdout.contains(&format!("mini/check1 {want}")),
        "text: {}",
        r.stdout
    );
    let r = check(&text, &["--format", "md"]);
    assert!(
        r.stdout.contains("*Not decided*") && r.stdout.contains(&format!("`check1` {want}")),
        "md: {}",
        r.stdout
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("report");
    let r = check(
        &text,
        &["--format", "html", "--out", &out.display().to_string()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(out.join("index.html")).expect("index.html");
    let html_want = format!("<b>check1</b> at r=5: not computed: {}", xml(&error));
    assert!(
        html.contains("Not decided") && html.contains(&html_want),
        "html lacks '{html_want}'"
    );
    // report.md of --out has it too
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(md.contains(&format!("`check1` {want}")), "{md}");
}

#[test]
fn a_margin_within_its_uncertainty_says_so() {
    // 1/3 against 1/3: the margin is 0 at each precision, and the two precisions' values
    // of 1/3 differ, so the relation can neither be confirmed nor refuted.
    let text = MINIMAL
        .replace("[grid]\nh = [2, 3]\n", "")
        .replace("quantity = \"threshold()\"", "quantity = \"1/3\"")
        .replace("bound = \"1\"", "bound = \"1/3\"");
    let r = check(&text, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("INCONCLUSIVE")
            && r.stdout
                .contains("mini/check1 at (single point): the margin 0")
            && r.stdout.contains("lies within its uncertainty")
            && r.stdout
                .contains("the difference between the two precisions"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_uncomputed_claim_still_exits_3_and_says_why() {
    let text = MINIMAL.replace(
        "quantity = \"threshold()\"",
        "quantity = \"opt(tags, load=5)\"",
    );
    let r = check(&text, &[]);
    assert_eq!(r.code, EXIT_NUMERICAL, "{}", r.stdout);
    assert_eq!(
        r.stdout.matches("not computed:").count(),
        2,
        "one reason a point (h = 2, 3): {}",
        r.stdout
    );
}

// ---------------------------------------------------------------------------------------
// Item 2: every point's value, with its uncertainty and bound.

#[test]
fn markdown_and_verbose_text_show_every_points_value() {
    let v = json(MINIMAL);
    let cmp = v["claims"][0]["checks"][0]["comparisons"]
        .as_array()
        .expect("comparisons")
        .clone();
    assert_eq!(cmp.len(), 2);
    // the independent value at h = 2, to 20 digits
    let at2 = cmp.iter().find(|c| c["point"] == "h=2").expect("h=2");
    assert!(
        at2["value"]
            .as_str()
            .is_some_and(|s| s.starts_with(RHO_STAR_EXP_2)),
        "{at2}"
    );
    let md = check(MINIMAL, &["--format", "md"]).stdout;
    let text = check(MINIMAL, &[]).stdout;
    let verbose = check(MINIMAL, &["--verbose"]).stdout;
    for c in &cmp {
        let s = |k: &str| c[k].as_str().expect(k).to_string();
        let row = format!(
            "| {} | {} | {} | {} | {} | {} |",
            s("point"),
            s("value"),
            s("uncertainty"),
            s("bound"),
            s("margin"),
            s("verdict")
        );
        assert!(md.contains(&row), "md lacks {row}:\n{md}");
        // text: only with --verbose, on one line in that order
        assert!(!text.contains(&s("value")), "{text}");
        assert!(
            verbose.lines().any(|l| {
                let cells: Vec<&str> = l
                    .split("  ")
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .collect();
                cells
                    == [
                        s("point").as_str(),
                        &s("value"),
                        &s("uncertainty"),
                        &s("bound"),
                        &s("margin"),
                        &s("verdict"),
                    ]
            }),
            "verbose lacks {c}:\n{verbose}"
        );
    }
    assert!(md.contains(RHO_STAR_EXP_2), "{md}");
}

// ---------------------------------------------------------------------------------------
// Item 3: a margin per check, and the claim's names its check.

#[test]
fn each_check_has_its_margin_and_the_claim_names_the_deciding_one() {
    // At h = 2: ρ* ≥ 1 holds with margin ρ* − 1 = 0.46594… (RHO_STAR_EXP_2), and ρ* equals
    // the independent value within 1e-18 with margin 1e-18 − |ρ* − value| = 1.000e-18 to
    // 4 digits (the difference is below 1e-25). Relative to their bounds (1 and 1.47) the
    // second is the tighter, so it decides the claim's margin.
    let text = MINIMAL.replace("h = [2, 3]", "h = [2]").replace(
        "bound = \"1\"\n",
        "bound = \"1\"\nname = \"loose\"\n\n[[check]]\nname = \"tight\"\nquantity = \"threshold()\"\nrelation = \"==\"\nbound = \"1.465941272384992885502953682\"\ntolerance = \"1e-18\"\n",
    );
    let r = check(&text, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let claim_line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("mini "))
        .expect("the claim's line");
    assert!(claim_line.contains("1.000e-18 (tight)"), "{claim_line}");
    let sub = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {name} ")))
            .unwrap_or_else(|| panic!("a line for check {name}: {}", r.stdout))
            .to_string()
    };
    assert!(
        sub("loose").contains("PASS") && sub("loose").contains("4.659e-1"),
        "{}",
        sub("loose")
    );
    assert!(
        sub("tight").contains("PASS") && sub("tight").contains("1.000e-18"),
        "{}",
        sub("tight")
    );
    let v = json(&text);
    assert_eq!(v["claims"][0]["margin_check"], "tight");
    assert_eq!(v["claims"][0]["checks"][0]["margin"], "4.659e-1");
    let md = check(&text, &["--format", "md"]).stdout;
    assert!(
        md.contains("| mini | P (none) | PASS | 1.000e-18 (tight) |")
            && md.contains("that of check `tight`"),
        "{md}"
    );
    // one check: the margin as before, without a name
    let r = check(&MINIMAL.replace("h = [2, 3]", "h = [2]"), &[]);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("mini "))
        .expect("line");
    assert!(
        line.contains("4.659e-1") && !line.contains("(check1)"),
        "{line}"
    );
    assert!(!r.stdout.contains("  - check1"), "{}", r.stdout);
}

// ---------------------------------------------------------------------------------------
// Item 12: a claim of one's own, and every mistake in one run.

#[test]
fn a_claim_without_source_is_unpublished_and_seed_is_optional() {
    let no_source = MINIMAL.replace(
        "[source]\npaper = \"P\"\nseed = \"none\"\nwords = \"w\"\n",
        "",
    );
    let r = check(&no_source, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("mini "))
        .expect("line");
    assert!(line.contains("unpublished"), "{line}");
    let v = json(&no_source);
    assert_eq!(v["claims"][0]["source"], "unpublished");
    assert!(v["claims"][0]["paper"].is_null() && v["claims"][0]["seed"].is_null());
    let md = check(&no_source, &["--format", "md"]).stdout;
    assert!(md.contains("*Source*: unpublished"), "{md}");
    // without a seed: the paper alone
    let no_seed = MINIMAL.replace("seed = \"none\"\n", "");
    let r = check(&no_seed, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("mini "))
        .expect("line");
    assert!(line.contains(" P ") && !line.contains("none"), "{line}");
    let v = json(&no_seed);
    assert!(v["claims"][0]["seed"].is_null() && v["claims"][0]["paper"] == "P");
    // with [source], its paper and words are required: both named at once
    let r = check(
        &MINIMAL
            .replace("paper = \"P\"\n", "")
            .replace("words = \"w\"\n", ""),
        &[],
    );
    assert_eq!(r.code, EXIT_BAD_INPUT);
    assert!(
        r.stderr.contains("c.toml:5: source.paper: missing key")
            && r.stderr.contains("c.toml:5: source.words: missing key"),
        "{}",
        r.stderr
    );
}

/// `[source]` and `seed` are optional for a user's claim, not for the catalogue: every
/// shipped claim cites its paper, the paper's words and the seed file of CLAIMS.md.
#[test]
fn every_shipped_claim_has_its_source_and_seed() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proofs-check");
    let claims = taskassign::claims::load_paths(&[root]).expect("the catalogue compiles");
    assert!(claims.len() >= 15);
    for c in &claims {
        let s = c
            .source
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no [source]", c.id));
        assert!(s.seed.is_some(), "{}: no seed", c.id);
    }
}

#[test]
fn every_missing_and_unknown_key_is_reported_in_one_run() {
    // line 4: an unknown key; line 10: one in [source]; line 15: one in [setup]; the
    // [[check]] (header at line 20) lacks its relation.
    let text = MINIMAL
        .replace("reading = \"r\"\n", "reading = \"r\"\nbogus = 1\n")
        .replace("words = \"w\"\n", "words = \"w\"\npages = \"3\"\n")
        .replace("hosts = 2\n", "hosts = 2\nlod = \"0.5\"\n")
        .replace("relation = \">=\"\n", "");
    let r = check(&text, &[]);
    assert_eq!(r.code, EXIT_BAD_INPUT, "{}", r.stdout);
    assert!(r.stdout.is_empty());
    assert_eq!(
        r.stderr.trim_end().lines().count(),
        1,
        "one line: {}",
        r.stderr
    );
    for want in [
        "4 mistakes: ",
        "c.toml:4: bogus: unknown key `bogus`",
        "c.toml:10: source.pages: unknown key `pages`",
        "c.toml:15: setup.lod: unknown key `lod`",
        "c.toml:20: check.relation: missing key `relation`",
    ] {
        assert!(r.stderr.contains(want), "'{want}' in {}", r.stderr);
    }
    // every malformed file of a folder, in one run
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "a.toml",
        &MINIMAL.replace("statement = \"s\"\n", ""),
    );
    write(
        dir.path(),
        "b.toml",
        &MINIMAL.replace("id = \"mini\"", "id = \"other\"\nbogus = 2"),
    );
    let r = run(["check".to_string(), dir.path().display().to_string()]);
    assert_eq!(r.code, EXIT_BAD_INPUT, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("a.toml:1: statement: missing key `statement`")
            && r.stderr.contains("b.toml:2: bogus: unknown key `bogus`"),
        "{}",
        r.stderr
    );
}

//! `check --format junit` and `check --junit FILE`: one testcase per check, valid against
//! the Apache Ant JUnit schema (Windy Road's JUnit.xsd, tests/junit/), checked with
//! xmllint (libxml2-utils, which `make test`'s deps install).

use std::path::Path;
use std::process::{Command, Output};
use usvg::roxmltree::{Document, Node};

const EXE: &str = env!("CARGO_BIN_EXE_taskassign");
const EXIT_FAIL: i32 = 1;
const EXIT_BAD_INPUT: i32 = 2;

/// Three checks of one claim on exp(1) with 2 hosts. threshold() is the TAGS stability
/// threshold, 1.4659… for 2 hosts (README `threshold`): >= 1 passes, <= 1 fails with
/// margin 1 - 1.4659 = -0.4659, >= 2 fails as the file expects (a finding).
const CLAIM_A: &str = r#"id = "junit-a"
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
name = "holds"
quantity = "threshold()"
relation = ">="
bound = "1"

[[check]]
name = "fails"
quantity = "threshold()"
relation = "<="
bound = "1"

[[check]]
name = "finding"
quantity = "threshold()"
relation = ">="
bound = "2"
expect = "fail"
finding = "the threshold stays below 2"
"#;

/// Optimal TAGS at total load r on 2 hosts: r = 5 exceeds the host count (no policy is
/// stable), so "undecided" is INCONCLUSIVE at r = 5; "nothing" (loads 5 and 50) computes
/// no point at all.
const CLAIM_B: &str = r#"id = "junit-b"
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
r = ["0.5", "5"]

[[check]]
name = "undecided"
quantity = "opt(tags, load=r)"
relation = ">="
bound = "0"

[[check]]
name = "nothing"
quantity = "opt(tags, load=r*10)"
relation = ">="
bound = "0"
"#;

fn run(args: &[&str]) -> Output {
    Command::new(EXE)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn claims(dir: &Path) -> (String, String) {
    let a = dir.join("a.toml");
    let b = dir.join("b.toml");
    std::fs::write(&a, CLAIM_A).expect("write");
    std::fs::write(&b, CLAIM_B).expect("write");
    (a.display().to_string(), b.display().to_string())
}

/// Validates `xml` against the schema with xmllint.
fn validate(xml: &Path) {
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/junit/JUnit.xsd");
    let o = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&xsd)
        .arg(xml)
        .output()
        .expect("xmllint runs (Debian's libxml2-utils; `make deps` installs it)");
    assert!(
        o.status.success(),
        "{} is not valid JUnit XML: {}",
        xml.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn case<'a>(doc: &'a Document, name: &str) -> Node<'a, 'a> {
    doc.descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
        .unwrap_or_else(|| panic!("testcase {name}"))
}

fn child<'a>(n: Node<'a, 'a>) -> Option<Node<'a, 'a>> {
    n.children().find(|c| c.is_element())
}

#[test]
fn one_testcase_per_check_valid_against_the_junit_schema() {
    let t = tempfile::tempdir().expect("tempdir");
    let (a, b) = claims(t.path());
    let o = run(&["check", &a, &b, "--format", "junit"]);
    // the same exit status as the other formats: a FAIL the file does not expect
    assert_eq!(o.status.code(), Some(EXIT_FAIL));
    let xml = String::from_utf8(o.stdout).expect("utf-8");
    let f = t.path().join("stdout.xml");
    std::fs::write(&f, &xml).expect("write");
    validate(&f);
    let doc = Document::parse(&xml).expect("XML");
    let suites: Vec<Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2);
    let attrs = |n: &Node, k: &[&str]| -> Vec<String> {
        k.iter()
            .map(|k| n.attribute(*k).unwrap_or("").to_string())
            .collect()
    };
    let counts = ["name", "tests", "failures", "errors", "skipped"];
    assert_eq!(attrs(&suites[0], &counts), ["junit-a", "3", "1", "0", "0"]);
    assert_eq!(attrs(&suites[1], &counts), ["junit-b", "2", "0", "1", "1"]);
    // PASS: a passed case
    assert!(child(case(&doc, "holds")).is_none());
    // FAIL: a failure with the margin and the worst point
    let f = child(case(&doc, "fails")).expect("a failure");
    assert!(f.has_tag_name("failure"));
    assert_eq!(f.attribute("type"), Some("FAIL"));
    let m = f.attribute("message").expect("message");
    assert!(m.contains("margin -4.659e-1") && m.contains("h="), "{m}");
    // an expected FAIL: passed, its finding in the suite's output
    assert!(child(case(&doc, "finding")).is_none());
    let out = suites[0]
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap_or("");
    assert!(
        out.contains("finding: FAIL as expected") && out.contains("the threshold stays below 2"),
        "{out}"
    );
    // INCONCLUSIVE: skipped, with the reason
    let s = child(case(&doc, "undecided")).expect("skipped");
    assert!(s.has_tag_name("skipped"));
    let m = s.attribute("message").expect("message");
    assert!(
        m.starts_with("INCONCLUSIVE: r=5: not computed") && m.contains("no policy is stable"),
        "{m}"
    );
    // no point computed: an error
    let e = child(case(&doc, "nothing")).expect("error");
    assert!(e.has_tag_name("error"));
    assert_eq!(e.attribute("type"), Some("uncomputed"));
    // every case carries its time and its claim
    for c in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let secs: f64 = c.attribute("time").expect("time").parse().expect("seconds");
        assert!(secs >= 0.0);
        assert!(c
            .attribute("classname")
            .is_some_and(|k| k.starts_with("junit-")));
    }
}

#[test]
fn junit_file_beside_other_formats_and_into_out() {
    let t = tempfile::tempdir().expect("tempdir");
    let (a, b) = claims(t.path());
    // --junit FILE beside --format json: stdout stays the JSON report
    let j = t.path().join("report.xml");
    let o = run(&[
        "check",
        &a,
        &b,
        "--format",
        "json",
        "--junit",
        j.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(EXIT_FAIL));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(v["summary"]["checks"], 5);
    validate(&j);
    let xml = std::fs::read_to_string(&j).expect("the file");
    assert_eq!(xml.matches("<testcase ").count(), 5);
    // --format junit --out FILE: the file, and the text report on stdout
    let k = t.path().join("k.xml");
    let o = run(&[
        "check",
        &a,
        "--format",
        "junit",
        "--out",
        k.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(EXIT_FAIL));
    validate(&k);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("junit-a") && text.contains(&format!("wrote {}", k.display())),
        "{text}"
    );
    // a file that cannot be written is bad input naming it
    let bad = t.path().join("no/such/dir/r.xml");
    let o = run(&["check", &a, "--junit", bad.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no/such/dir/r.xml") && err.contains("cannot be written"),
        "{err}"
    );
}

#[test]
fn the_ci_example_s_one_run_writes_every_report() {
    // examples/ci/claims.yml runs `check CLAIMS --format html --out DIR --junit
    // DIR/junit.xml` once, with DIR not yet there, and uploads DIR/junit.xml and
    // DIR/index.html and writes DIR/report.md into the step summary
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wf = std::fs::read_to_string(root.join("examples/ci/claims.yml")).expect("workflow");
    for w in [
        "--format html --out claims-report",
        "--junit claims-report/junit.xml",
        "cat claims-report/report.md >> \"$GITHUB_STEP_SUMMARY\"",
        "path: claims-report/junit.xml",
        "claims-report/index.html",
    ] {
        assert!(wf.contains(w), "the workflow has {w}");
    }
    let t = tempfile::tempdir().expect("tempdir");
    let (a, _) = claims(t.path());
    let d = t.path().join("claims-report");
    let ds = d.to_str().expect("path");
    let j = format!("{ds}/junit.xml");
    let o = run(&["check", &a, "--format", "html", "--out", ds, "--junit", &j]);
    assert_eq!(
        o.status.code(),
        Some(EXIT_FAIL),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    validate(Path::new(&j));
    assert!(d.join("index.html").is_file());
    let md = std::fs::read_to_string(d.join("report.md")).expect("report.md");
    assert!(md.contains("junit-a"), "{md}");
}

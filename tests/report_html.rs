//! `check --format html --out DIR`: a self-contained page (no network reference, the one
//! inline script, the bundled font inline), the claim's figures inline, text escaped,
//! findings set apart from failures, and the exit statuses of the other formats.

use assert_cmd::Command;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn html_needs_out() {
    let out = Command::cargo_bin("taskassign")
        .expect("binary")
        .current_dir(root())
        .args(["check", "--format", "html"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--out"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn the_report_is_self_contained_escaped_and_shows_the_claims_figure() {
    // tags-threshold-families (its figure threshold-vs-alpha names it) with a statement
    // that must be escaped
    let claims = tempfile::tempdir().expect("tempdir");
    let text =
        std::fs::read_to_string(root().join("proofs-check/bds20/tags-threshold-families.toml"))
            .expect("claim");
    let line = text
        .lines()
        .find(|l| l.starts_with("statement = "))
        .expect("statement line");
    let text = text.replace(
        line,
        "statement = \"rho* < 1 & <script>alert('x')</script> \\\"q\\\"\"",
    );
    std::fs::write(claims.path().join("t.toml"), text).expect("write");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = Command::cargo_bin("taskassign")
        .expect("binary")
        .current_dir(root())
        .arg("check")
        .arg(claims.path())
        .args(["--format", "html", "--out"])
        .arg(out_dir.path())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("index.html"), "{stdout}");
    let page = std::fs::read_to_string(out_dir.path().join("index.html")).expect("index.html");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        page.contains(
            "rho* &lt; 1 &amp; &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &quot;q&quot;"
        ),
        "escaped statement"
    );
    assert_eq!(
        page.matches("<script").count(),
        1,
        "only the page's own inline script"
    );
    for bad in ["src=\"http", "href=\"http", "url(http", "src=\"//", "<link"] {
        assert!(!page.contains(bad), "external reference {bad}");
    }
    assert!(
        page.contains("src: url(data:font/ttf;base64,"),
        "font inline"
    );
    assert!(page.contains("<figure class=\"plot\" data-figure=\"threshold-vs-alpha\">"));
    assert!(
        page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "inline SVG"
    );
    assert!(page.contains("id=\"claim-tags-threshold-families\""));
    assert_eq!(
        page.matches("<figure class=\"plot\"").count(),
        1,
        "only its own figure"
    );
}

/// An expected FAIL (a documented finding) is classed `finding`, never `fail`; its
/// finding text is set apart in an aside.
#[test]
fn findings_are_set_apart_from_failures() {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = Command::cargo_bin("taskassign")
        .expect("binary")
        .current_dir(root())
        .args(["check", "proofs-check/bds20/tags-most-stable-alpha-1.toml"])
        .args(["--format", "html", "--out"])
        .arg(out_dir.path())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(out_dir.path().join("index.html")).expect("index.html");
    assert!(
        page.contains("<section class=\"claim finding\""),
        "the claim is a finding"
    );
    assert!(
        page.contains("<aside class=\"finding\">"),
        "its finding set apart"
    );
    assert!(
        !page.contains("<tr class=\"fail\">"),
        "no row marked as a failure"
    );
}

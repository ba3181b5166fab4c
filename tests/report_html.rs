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

/// The claim and the figure of the figure tests: tags-threshold-families and its
/// threshold-vs-alpha.
const FIGURE_CLAIM: &str = "proofs-check/bds20/tags-threshold-families.toml";
const FIGURE: &str = "threshold-vs-alpha";

/// Runs `taskassign ARGS` in the repository.
fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::cargo_bin("taskassign")
        .expect("binary")
        .current_dir(root())
        .args(args)
        .output()
        .expect("runs")
}

/// `tables --out X` with only the figure's definition: X/figures holds what it wrote.
fn tables_with_the_figure() -> tempfile::TempDir {
    let defs = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        root().join(format!("data/figures/{FIGURE}.toml")),
        defs.path().join(format!("{FIGURE}.toml")),
    )
    .expect("copy the definition");
    let x = tempfile::tempdir().expect("tempdir");
    let o = run(&[
        "tables".as_ref(),
        "--claims".as_ref(),
        FIGURE_CLAIM.as_ref(),
        "--figures".as_ref(),
        defs.path().as_os_str(),
        "--out".as_ref(),
        x.path().as_os_str(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    x
}

#[test]
fn the_report_finds_the_figures_tables_wrote() {
    // `tables --out X` writes each figure's SVG and its definition to X/figures; the report
    // reads X (or X/figures) and shows the figure with its claim
    let x = tables_with_the_figure();
    for dir in [x.path().to_path_buf(), x.path().join("figures")] {
        let out = tempfile::tempdir().expect("tempdir");
        let o = run(&[
            "check".as_ref(),
            FIGURE_CLAIM.as_ref(),
            "--format".as_ref(),
            "html".as_ref(),
            "--out".as_ref(),
            out.path().as_os_str(),
            "--figures".as_ref(),
            dir.as_os_str(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(!err.contains("warning"), "{err}");
        let page = std::fs::read_to_string(out.path().join("index.html")).expect("index.html");
        assert!(
            page.contains(&format!("<figure class=\"plot\" data-figure=\"{FIGURE}\">")),
            "{}: the figure is in the page",
            dir.display()
        );
    }
}

#[test]
fn a_report_asked_for_figures_that_finds_none_says_so() {
    // a --figures folder without any figure: exit 2, one line naming the folder
    let empty = tempfile::tempdir().expect("tempdir");
    let out = tempfile::tempdir().expect("tempdir");
    let o = run(&[
        "check".as_ref(),
        FIGURE_CLAIM.as_ref(),
        "--format".as_ref(),
        "html".as_ref(),
        "--out".as_ref(),
        out.path().as_os_str(),
        "--figures".as_ref(),
        empty.path().as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains(&empty.path().display().to_string()) && err.contains("no figure"),
        "{err}"
    );
    // figures that belong to none of the claims run: a warning on stderr and in the page
    let x = tables_with_the_figure();
    let o = run(&[
        "check".as_ref(),
        "tests/tables/grid-2d.toml".as_ref(),
        "--format".as_ref(),
        "html".as_ref(),
        "--out".as_ref(),
        out.path().as_os_str(),
        "--figures".as_ref(),
        x.path().as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{err}");
    assert!(
        err.contains("warning") && err.contains("tags-threshold-families"),
        "{err}"
    );
    let page = std::fs::read_to_string(out.path().join("index.html")).expect("index.html");
    assert!(
        page.contains("Warning:") && page.contains("no figure belongs to the claims run"),
        "the page says it"
    );
}

/// A figures folder with the figure's definition and `svg` as its drawing.
fn figures_with_svg(svg: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        root().join(format!("data/figures/{FIGURE}.toml")),
        dir.path().join(format!("{FIGURE}.toml")),
    )
    .expect("copy the definition");
    std::fs::write(dir.path().join(format!("{FIGURE}.svg")), svg).expect("write");
    dir
}

fn html_with_figures(figs: &Path) -> (std::process::Output, tempfile::TempDir) {
    let out = tempfile::tempdir().expect("tempdir");
    let o = run(&[
        "check".as_ref(),
        FIGURE_CLAIM.as_ref(),
        "--format".as_ref(),
        "html".as_ref(),
        "--out".as_ref(),
        out.path().as_os_str(),
        "--figures".as_ref(),
        figs.as_os_str(),
    ]);
    (o, out)
}

#[test]
fn a_hostile_figure_is_inlined_without_its_script() {
    // an SVG with a script, an event handler, an outside reference and a text that closes
    // the page's elements: the page keeps only its own script and the drawing
    let hostile = r#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg')"><g class="series"><circle cx="1" cy="1" r="1" fill="url(http://evil.example/x)"/></g><script>alert('x')</script><text>x</text></svg></section></body><script>alert('y')</script></text></svg>"#;
    // not well-formed XML as written (the closing tags do not match): an error naming the file
    let figs = figures_with_svg(hostile);
    let (o, _) = html_with_figures(figs.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("{FIGURE}.svg")), "{err}");
    // well-formed, with the closing tags as text: inlined, escaped, without script
    let hostile = r#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg')"><g class="series"><circle cx="1" cy="1" r="1" fill="url(http://evil.example/x)"/></g><script>alert('x')</script><text>&lt;/svg&gt;&lt;/section&gt;&lt;/body&gt;&lt;script&gt;alert('y')&lt;/script&gt;</text></svg>"#;
    let figs = figures_with_svg(hostile);
    let (o, out) = html_with_figures(figs.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let page = std::fs::read_to_string(out.path().join("index.html")).expect("index.html");
    assert_eq!(page.matches("<script").count(), 1, "only the page's own");
    // the script element and the handler are gone; the text's markup is shown as text
    for bad in [
        "alert('x')",
        "alert('svg')",
        "onload",
        "evil.example",
        "<script>alert",
    ] {
        assert!(!page.contains(bad), "{bad} in the page");
    }
    assert!(page.contains(
        "&lt;/svg&gt;&lt;/section&gt;&lt;/body&gt;&lt;script&gt;alert(&#39;y&#39;)&lt;/script&gt;"
    ));
    assert!(page.contains(&format!("<figure class=\"plot\" data-figure=\"{FIGURE}\">")));
    assert!(
        page.contains("<circle cx=\"1\" cy=\"1\" r=\"1\"/>"),
        "the drawing stays"
    );
    // a text file named .svg: an error naming the file
    let figs = figures_with_svg("these are not the figures you are looking for\n");
    let (o, _) = html_with_figures(figs.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{FIGURE}.svg")) && err.contains("not an XML document"),
        "{err}"
    );
}

/// Every element, attribute and text of an XML document, in document order.
fn outline(text: &str) -> Vec<String> {
    let doc = usvg::roxmltree::Document::parse(text).expect("XML");
    doc.descendants()
        .filter_map(|n| {
            if n.is_element() {
                let attrs: Vec<String> = n
                    .attributes()
                    .map(|a| format!("{}={}", a.name(), a.value()))
                    .collect();
                Some(format!("<{} {}>", n.tag_name().name(), attrs.join(" ")))
            } else {
                n.text().map(str::to_string)
            }
        })
        .collect()
}

#[test]
fn the_shipped_figures_pass_the_sanitiser_unchanged() {
    // every figure `tables` drew keeps its elements, attributes and texts in the page
    let mut n = 0;
    for e in std::fs::read_dir(root().join("data/figures")).expect("data/figures") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "svg") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("svg");
        let clean = taskassign::report::sanitize_svg(&text).expect("an SVG");
        assert_eq!(outline(&clean), outline(&text), "{}", p.display());
        n += 1;
    }
    assert!(n >= 10, "{n} figures");
}

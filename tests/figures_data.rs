//! Figures declared as data (`data/figures/*.toml`) and computed through the claims
//! engine: values against a closed form, and a point that cannot be computed is an error
//! of `tables` naming the figure, the series and the point (never a missing point).

use assert_cmd::Command;
use taskassign::claims::{compile_figure as compile, compute_figure as compute};

const PARETO: &str = r#"
name = "pareto-threshold"
title = "t"
x_label = "alpha"
y_label = "rho*"

[setup]
dist = "pareto:k=1,alpha={a}"
hosts = "h"
digits = 8

[x]
var = "a"
values = ["1.5", "2", "3"]

[grid]
h = [2, 3]

[[series]]
name = "h={h}"
y = "threshold()"
"#;

/// ρ*(Pareto(1, α), h) = α/(α − 1) · (1 − α^(−h)) ([BDS20]; the closed form the claim
/// tags-threshold-families locks). The figure prints 8 certified digits: they must be
/// the closed form's, rounded.
#[test]
fn a_declared_figure_computes_the_closed_form() {
    let fig = compile("pareto.toml", PARETO).expect("compiles");
    let series = compute(&fig).expect("computes");
    assert_eq!(
        series.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["h=2", "h=3"]
    );
    for (s, h) in series.iter().zip([2i32, 3]) {
        for (p, a) in s.points.iter().zip([1.5f64, 2.0, 3.0]) {
            let exact = a / (a - 1.0) * (1.0 - a.powi(-h));
            let shown: f64 = p.text.parse().expect("a number");
            assert!(
                (shown - exact).abs() <= 5e-8 * exact,
                "h={h} alpha={a}: {} vs {exact}",
                p.text
            );
            assert_eq!(p.x, a);
            assert!((p.y - exact).abs() <= 1e-12 * exact);
        }
    }
}

#[test]
fn a_point_that_cannot_be_computed_is_an_error_naming_it() {
    // Above the TAGS threshold (about 1.9 for BP(1, 1e10, 1), h = 2) no cutoffs are stable.
    let text = r#"
name = "too-loaded"
title = "t"
x_label = "rho"
y_label = "W"

[setup]
dist = "bp:k=1,p=1e10,alpha=1"
hosts = 2
load = "r"
digits = 8

[x]
var = "r"
values = ["0.5", "1.99"]

[[series]]
name = "tags"
y = "opt(tags).value"
"#;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("f.toml"), text).expect("write");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let claims = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        claims.path().join("none.toml"),
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("proofs-check/bds20/tags-threshold-families.toml"),
        )
        .expect("claim"),
    )
    .expect("write");
    let out = Command::cargo_bin("taskassign")
        .expect("binary")
        .args(["tables", "--out"])
        .arg(out_dir.path())
        .arg("--figures")
        .arg(dir.path())
        .arg("--claims")
        .arg(claims.path())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("series 'tags' at r=1.99") && err.contains("threshold"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn figure_files_are_validated_when_read() {
    for (bad, why) in [
        (
            PARETO.replace("y = \"threshold()\"", "y = \"threshold().bogus\""),
            "bogus",
        ),
        (PARETO.replace("var = \"a\"", "var = \"rho\""), "reserved"),
        (PARETO.replace("name = \"h={h}\"\n", ""), "name"),
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\ny_scale = \"ln\""),
            "y_scale",
        ),
        // the old "log10" workaround is gone: a log axis is "log"
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\nx_scale = \"log10\""),
            "x_scale",
        ),
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\ncolour = \"red\""),
            "colour",
        ),
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\nx_transform = \"ln\""),
            "x_transform",
        ),
        // a [limit] needs the 1/ln axis and a claim
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\nclaim = \"c\"")
                + "[limit]\ncheck = \"l\"\n",
            "inv_ln",
        ),
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\nx_transform = \"inv_ln\"")
                + "[limit]\ncheck = \"l\"\n",
            "claim",
        ),
        (
            PARETO.replace(
                "title = \"t\"",
                "title = \"t\"\nclaim = \"c\"\nx_transform = \"inv_ln\"",
            ) + "[limit]\ncheck = \"l\"\nbound = 2\n",
            "bound",
        ),
    ] {
        let e = compile("bad.toml", &bad).expect_err("rejected");
        assert!(e.to_string().contains("bad.toml:"), "{e}");
        assert!(e.to_string().contains(why), "{why}: {e}");
    }
}

/// An unknown key is an input error of `tables` (exit 2), one line naming the file and
/// the key; a value that overflows is a numerical failure (exit 3) naming the point.
#[test]
fn tables_reports_bad_figure_files_and_uncomputable_points() {
    let claims = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        claims.path().join("c.toml"),
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("proofs-check/bds20/tags-threshold-families.toml"),
        )
        .expect("claim"),
    )
    .expect("write");
    for (text, code, want) in [
        (
            PARETO.replace("title = \"t\"", "title = \"t\"\nlegend_corner = \"nw\""),
            2,
            "legend_corner",
        ),
        // exp(a·1e30) leaves f64's range: not a finite number to draw
        (
            PARETO.replace("y = \"threshold()\"", "y = \"exp(a * 1e30)\""),
            3,
            "series 'h=2' at a=1.5",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("bad.toml"), &text).expect("write");
        let out_dir = tempfile::tempdir().expect("tempdir");
        let out = Command::cargo_bin("taskassign")
            .expect("binary")
            .args(["tables", "--out"])
            .arg(out_dir.path())
            .arg("--figures")
            .arg(dir.path())
            .arg("--claims")
            .arg(claims.path())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{err}");
        assert!(
            err.contains("bad.toml") && err.contains(want),
            "{want}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

//! Declared tables (`[[table]]`): the layout of a 2-D grid against closed forms, the
//! validation of a declaration (exit 2, one line naming file, line and key), and the three
//! renderings (Markdown, CSV, LaTeX) agreeing cell by cell.

mod common;

use common::taskassign;
use std::path::{Path, PathBuf};
use taskassign::report::tex_to_html;

const CLAIM: &str = "tests/tables/grid-2d.toml";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tables` on one claim file (no figures) into a fresh folder.
fn tables_of(claim: &Path) -> (tempfile::TempDir, std::process::Output) {
    let out = tempfile::tempdir().expect("tempdir");
    let figs = tempfile::tempdir().expect("tempdir");
    let o = taskassign()
        .current_dir(root())
        .arg("tables")
        .arg("--claims")
        .arg(claim)
        .arg("--out")
        .arg(out.path())
        .arg("--figures")
        .arg(figs.path())
        .output()
        .expect("runs");
    (out, o)
}

fn generated() -> &'static Path {
    use std::sync::OnceLock;
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let (d, o) = tables_of(&root().join(CLAIM));
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        d
    })
    .path()
}

fn read(label: &str, ext: &str) -> String {
    let p = generated().join(format!("claims/table-grid-2d.table-{label}.{ext}"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The Markdown table's lines as cells (the header first).
fn md_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The CSV's lines as cells (after the `#` lines; no cell here is quoted).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// The LaTeX body's rows (between \midrule and \bottomrule) as cells, read back to the
/// Markdown's text: `\num{x}` → x, `a +- b` → `a ± b`, `{\textsc{pass}}` → PASS, `{---}` → —.
fn tex_rows(text: &str) -> Vec<Vec<String>> {
    let body = text
        .split("\\midrule\n")
        .nth(1)
        .and_then(|b| b.split("\\bottomrule").next())
        .expect("a booktabs body");
    body.lines()
        .map(|l| {
            l.trim_end_matches(" \\\\")
                .split(" & ")
                .map(|c| {
                    let c = c.trim();
                    if let Some(x) = c.strip_prefix("\\num{").and_then(|x| x.strip_suffix('}')) {
                        return x.to_string();
                    }
                    if let Some(w) = c
                        .strip_prefix("{\\textsc{")
                        .and_then(|x| x.strip_suffix("}}"))
                    {
                        return w.to_uppercase();
                    }
                    if c == "{---}" {
                        return "—".into();
                    }
                    match c.split_once(" e") {
                        Some((m, x)) if m.contains(" +- ") => {
                            format!("({})e{x}", m.replace(" +- ", " ± "))
                        }
                        Some((m, x)) => format!("{m}e{x}"),
                        None => c.replace(" +- ", " ± "),
                    }
                })
                .collect()
        })
        .collect()
}

/// ρ*(Pareto(1, α), h) = α/(α−1)(1 − α^−h) [BDS20], in f64 (exact to ~1e-15, far below the
/// 6 digits compared).
fn pareto_threshold(alpha: f64, h: i32) -> f64 {
    alpha / (alpha - 1.0) * (1.0 - alpha.powi(-h))
}

const ALPHAS: [(&str, f64); 3] = [("1.5", 1.5), ("2", 2.0), ("4", 4.0)];
const HS: [i32; 3] = [2, 3, 5];

#[test]
fn a_2d_table_has_the_closed_forms_in_grid_order() {
    let md = md_rows(&read("values", "md"));
    assert_eq!(md[0], ["alpha", "h=2", "h=3", "h=5"]);
    for (i, (a, av)) in ALPHAS.iter().enumerate() {
        assert_eq!(md[i + 1][0], *a);
        for (j, h) in HS.iter().enumerate() {
            // every threshold here lies in [1, 10): 6 significant digits = 5 decimals,
            // rounded by Rust's float formatting (independent of the table code)
            let want = format!("{:.5}", pareto_threshold(*av, *h));
            assert_eq!(md[i + 1][j + 1], want, "alpha={a}, h={h}");
        }
    }
    // transposed: rows h, columns alpha, the same numbers
    let tr = md_rows(&read("transposed", "md"));
    assert_eq!(tr[0], ["h", "alpha=1.5", "alpha=2", "alpha=4"]);
    for (j, h) in HS.iter().enumerate() {
        assert_eq!(tr[j + 1][0], h.to_string());
        for (i, _) in ALPHAS.iter().enumerate() {
            assert_eq!(tr[j + 1][i + 1], md[i + 1][j + 1]);
        }
    }
    // the bounds are the closed form itself, 8 digits (within half a unit of the 8th)
    let b = md_rows(&read("bounds", "md"));
    for (i, (_, av)) in ALPHAS.iter().enumerate() {
        for (j, h) in HS.iter().enumerate() {
            let got: f64 = b[i + 1][j + 1].parse().expect("a number");
            assert!((got - pareto_threshold(*av, *h)).abs() <= 0.5e-7, "{got}");
        }
    }
    // the closed form holds: every verdict PASS, every margin the tolerance 1e-15 minus a
    // difference below 1e-19 (20 certified digits), i.e. 1.000e-15 to 4 digits
    for row in &md_rows(&read("verdicts", "md"))[1..] {
        assert_eq!(&row[1..], ["PASS", "PASS", "PASS"]);
    }
    for row in &md_rows(&read("margins", "md"))[1..] {
        assert_eq!(&row[1..], ["1.000e-15", "1.000e-15", "1.000e-15"]);
    }
}

/// The caption's sentences about the digits (`report::table::layout::Remark`), written here
/// independently of the code.
const LIMITS_CERTAIN: &str = "Limits shown without an error are certain to every digit shown";
const ZERO_AT_COLUMN: &str = "A 0 is zero to the last place its column shows";

#[test]
fn limit_cells_show_an_error_only_when_their_digits_can() {
    // E[BP(1, p, α)] → α/(α−1) as p → ∞: 3 for α = 1.5, 2 for α = 2 (closed form). At 8
    // digits a unit of the last digit is 1e-7: an error printed must be at least half of it
    // (5e-8) and contain the limit; a cell without one (α = 2: its error estimate, 2.2e-8,
    // is below 5e-8) must be the limit rounded to its digits, and the caption must say
    // that every digit shown is certain.
    let text = read("limits", "md");
    let md = md_rows(&text);
    assert_eq!(md[0], ["alpha", "limit"]);
    let mut without = 0;
    for (row, want) in md[1..].iter().zip([3.0, 2.0]) {
        match row[1].split_once(" ± ") {
            Some((v, e)) => {
                let (v, e): (f64, f64) = (v.parse().expect("number"), e.parse().expect("number"));
                assert!((5e-8..=1e-6).contains(&e), "{}", row[1]);
                assert!((v - want).abs() <= e, "{} vs {want}", row[1]);
            }
            None => {
                without += 1;
                let v: f64 = row[1].parse().expect("number");
                let places = row[1].split_once('.').map_or(0, |(_, f)| f.len());
                assert_eq!(places, 7, "8 significant digits: {}", row[1]);
                assert!((v - want).abs() <= 0.5e-7, "{} vs {want}", row[1]);
            }
        }
    }
    assert_eq!(without, 1, "{text}");
    assert!(text.contains(LIMITS_CERTAIN), "{text}");
    assert!(read("limits", "tex").contains(LIMITS_CERTAIN));
    assert!(read("limits", "csv").contains(&format!("# {LIMITS_CERTAIN}")));
    // the sequence: rows p, columns alpha; E[BP(1,p,α)] = α/(α−1) (1 − p^(1−α))/(1 − p^(−α))
    let seq = md_rows(&read("sequence", "md"));
    assert_eq!(seq[0], ["p", "alpha=1.5", "alpha=2"]);
    for row in &seq[1..] {
        let p: f64 = row[0].parse().expect("p");
        for (c, a) in row[1..].iter().zip([1.5f64, 2.0]) {
            let want = a / (a - 1.0) * (1.0 - p.powf(1.0 - a)) / (1.0 - p.powf(-a));
            let got: f64 = c.parse().expect("number");
            // 10 significant digits: within half a unit of the 10th (plus f64's error)
            assert!(
                (got - want).abs() <= 0.5e-9 * want + 1e-14,
                "p={p}: {c} vs {want}"
            );
        }
    }
}

/// The declared tables of tests/tables/grid-2d.toml.
const GRID_2D_TABLES: [&str; 10] = [
    "values",
    "transposed",
    "verdicts",
    "margins",
    "bounds",
    "limits",
    "sequence",
    "decades",
    "zeros",
    "zero-limit",
];

#[test]
fn a_value_known_only_to_be_tiny_is_zero_to_its_column_places() {
    // (x^(1/3))^3 - 2 at x = 2 is 0 (exactly, by algebra); at 20 digits the two precisions
    // round it to different tiny numbers, so no significant digit is certified, but both are
    // far below half a unit of the column's last place (1e-6: 0.500000 at x = 2.5, exact).
    // It is 0, not "not computed", and the caption says why.
    let text = read("zeros", "md");
    let md = md_rows(&text);
    assert_eq!(md[1], ["2", "0"], "{text}");
    assert_eq!(md[2], ["2.5", "0.500000"], "{text}");
    assert!(!text.contains("not computed"), "{text}");
    assert!(text.contains(ZERO_AT_COLUMN), "{text}");
    // E[BP(1, p, 2)] - 2 -> 0 (closed form): the estimate is not resolved by its error
    // (2e-16 ± 2e-8) but both are below half a unit of the column's 1e-7 (the α = 1.5 limit
    // 1.0000000 ± 0.0000003): 0, where (0 ± 3)e-8 used to stand
    let text = read("zero-limit", "md");
    let md = md_rows(&text);
    assert_eq!(md[2], ["2", "0"], "{text}");
    assert!(md[1][1].starts_with("1.0000000 ± "), "{text}");
    assert!(text.contains(ZERO_AT_COLUMN), "{text}");
}

#[test]
fn markdown_csv_and_latex_agree_cell_by_cell() {
    for label in GRID_2D_TABLES {
        let md = md_rows(&read(label, "md"));
        let csv = csv_rows(&read(label, "csv"));
        let tex = tex_rows(&read(label, "tex"));
        assert_eq!(md, csv, "{label}: Markdown vs CSV");
        assert_eq!(&md[1..], tex.as_slice(), "{label}: Markdown vs LaTeX body");
    }
    let tex = read("limits", "tex");
    for want in [
        "\\usepackage{booktabs,siunitx}",
        "\\toprule",
        "\\caption{",
        "\\label{tab:table-grid-2d-limits}",
        "S[table-format=1.7(1)]",
        " +- ",
    ] {
        assert!(tex.contains(want), "{want} in\n{tex}");
    }
}

/// `v` to 4 significant digits as Rust's float formatting writes it (independent of the
/// table code): `0.5000`, `1.500` in [0.1, 10); `8.272e-25` otherwise.
fn four_digits(v: f64) -> String {
    match v {
        v if (0.1..1.0).contains(&v) => format!("{v:.4}"),
        v if (1.0..10.0).contains(&v) => format!("{v:.3}"),
        v => format!("{v:.3e}"),
    }
}

#[test]
fn a_column_spanning_decades_is_set_in_exponent_form_with_labels() {
    // x^k for x = 1/2, 3/2, 3 and k = 1, 80 (closed form, f64: 0.5^80 is exact, 1.5^80 and
    // 3^80 within 1e-15 relative, far below the 4 digits compared). The k = 80 column spans
    // 8.3e-25 .. 1.5e38 (63 decades > 3): every cell in exponent form; the k = 1 column
    // (0.5 .. 3) stays plain. Rows and columns carry the [table.labels] names.
    let md = md_rows(&read("decades", "md"));
    assert_eq!(md[0], ["x", "$x$", "$x^{80}$"]);
    for (row, (name, x)) in md[1..]
        .iter()
        .zip([("$1/2$", 0.5f64), ("$3/2$", 1.5), ("3", 3.0)])
    {
        assert_eq!(row[0], name);
        assert_eq!(row[1], four_digits(x), "x={x}");
        assert_eq!(row[2], four_digits(x.powi(80)), "x={x}, k=80");
        assert!(row[2].contains('e'), "{}", row[2]);
    }
    // the LaTeX columns: plain 1.4 (0.5000) and exponent 1.3e-2 (mantissas d.ddd, exponents
    // -25 .. 38: a sign and two digits)
    let tex = read("decades", "tex");
    for want in [
        "S[table-format=1.4]S[table-format=1.3e-2]",
        "{$x$} & {$x^{80}$}",
        "$1/2$ & 0.5000 & 8.272 e-25",
    ] {
        assert!(tex.contains(want), "{want} in\n{tex}");
    }
}

/// The test claim with `from` replaced by `to`; `check` on it must exit 2 with one line
/// naming the file, the line and the key.
fn bad(from: &str, to: &str, line: usize, key: &str, why: &str) {
    let text = std::fs::read_to_string(root().join(CLAIM)).expect("claim");
    assert!(text.contains(from), "{from}");
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("bad.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    let out = taskassign().arg("check").arg(&p).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    let at = format!("bad.toml:{line}: {key}:");
    assert!(
        err.contains(&at) && err.contains(why),
        "want '{at}' and '{why}': {err}"
    );
}

/// The 1-based line of the test claim holding `s`.
fn line_of(s: &str) -> usize {
    let text = std::fs::read_to_string(root().join(CLAIM)).expect("claim");
    text.lines()
        .position(|l| l.contains(s))
        .expect("in the claim")
        + 1
}

#[test]
fn bad_table_declarations_exit_2_naming_file_line_and_key() {
    // lines of tests/tables/grid-2d.toml: the first [[table]] starts at line 42
    bad(
        "rows = \"alpha\"\ncolumns = \"h\"\ncell = \"value\"\ndigits = 6",
        "rows = \"beta\"\ncolumns = \"h\"\ncell = \"value\"\ndigits = 6",
        46,
        "table.rows",
        "'beta' is not a grid variable of check 'closed-form'",
    );
    bad(
        "check = \"closed-form\"",
        "check = \"closed\"",
        45,
        "table.check",
        "no check named 'closed'",
    );
    bad(
        "cell = \"value\"",
        "cell = \"mean\"",
        48,
        "table.cell",
        "unknown cell 'mean'",
    );
    bad(
        "digits = 6",
        "digits = 6\ncolour = \"red\"",
        50,
        "table.colour",
        "unknown key",
    );
    bad(
        "columns = \"h\"\ncell = \"value\"",
        "cell = \"value\"",
        46,
        "table.at",
        "'h' takes 3 values",
    );
    bad(
        "columns = \"h\"\ncell = \"value\"",
        "columns = \"h\"\ncell = \"limit\"",
        48,
        "table.cell",
        "takes no limit",
    );
    bad(
        "\"80\" = \"$x^{80}$\"",
        "\"81\" = \"$x^{81}$\"",
        line_of("\"80\" = "),
        "table.labels.\"81\"",
        "'81' is not a value of this table's rows, columns or at",
    );
    bad(
        "\"1.5\" = \"$3/2$\"",
        "\"1.5\" = \" \"",
        line_of("\"1.5\" = "),
        "table.labels.\"1.5\"",
        "must not be empty",
    );
    bad(
        "rows = \"alpha\"\ncell = \"limit\"",
        "rows = \"p\"\ncell = \"limit\"",
        90,
        "table.rows",
        "the limit variable",
    );
}

/// Plain text as the HTML report escapes it.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[test]
fn the_html_report_shows_every_declared_table_as_the_markdown_does() {
    // `check --format html` renders the same laid-out tables as `tables`: its cells,
    // header first, must equal the Markdown file's, table by table. (The test claim has no
    // figure in data/figures, the default folder.)
    let out = tempfile::tempdir().expect("tempdir");
    let o = taskassign()
        .current_dir(root())
        .args(["check", "--format", "html", "--out"])
        .arg(out.path())
        .arg(CLAIM)
        .output()
        .expect("runs");
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = std::fs::read_to_string(out.path().join("index.html")).expect("index.html");
    for label in GRID_2D_TABLES {
        let tag = format!("<table class=\"declared\" data-table=\"table-grid-2d-{label}\">");
        let start = html
            .find(&tag)
            .unwrap_or_else(|| panic!("{label}: no table in the page"));
        let body = &html[start..];
        let body = &body[..body.find("</table>").expect("closed")];
        // Each cell's inner HTML: headers and row values go through tex_to_html (their
        // LaTeX as HTML, unit-tested in report::html), numbers are escaped text.
        let rows: Vec<Vec<String>> = body
            .split("<tr>")
            .skip(1)
            .map(|r| {
                let mut cells = Vec::new();
                let mut rest = r;
                while let Some(i) = rest.find(['<']) {
                    let after = &rest[i + 1..];
                    let is_cell = after.starts_with("td") || after.starts_with("th");
                    let Some(gt) = after.find('>') else { break };
                    if !is_cell {
                        rest = &after[gt + 1..];
                        continue;
                    }
                    let close = if after.starts_with("td") {
                        "</td>"
                    } else {
                        "</th>"
                    };
                    let inner = &after[gt + 1..];
                    let end = inner.find(close).expect("cell closed");
                    cells.push(inner[..end].to_string());
                    rest = &inner[end + close.len()..];
                }
                cells
            })
            .collect();
        // A Markdown cell with LaTeX in it (a header's math, a `[table.labels]` name) is
        // expected as tex_to_html makes it; any other (numbers, plain values) as escaped text.
        let expected: Vec<Vec<String>> = md_rows(&read(label, "md"))
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| {
                        if c.contains(['$', '\\']) {
                            tex_to_html(c)
                        } else {
                            escape(c)
                        }
                    })
                    .collect()
            })
            .collect();
        let got = rows;
        assert_eq!(got, expected, "{label}");
    }
}

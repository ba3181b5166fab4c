//! The checked-in figures (`data/figures/`, made by `taskassign tables`): every SVG parses
//! (usvg, as the PDF conversion reads it) and draws every series of its CSV with points;
//! every PDF is a one-page PDF with the bundled font embedded, 3.5 in wide, and is exactly
//! what converting the checked-in SVG again gives (svg2pdf is deterministic: no date, no
//! random id — the checked-in file was written by another process).

use std::path::{Path, PathBuf};
use std::time::Instant;
use taskassign::report::{parse_svg, svg_to_pdf};

fn figures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/figures")
}

fn stems() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(figures_dir())
        .expect("data/figures")
        .filter_map(|e| {
            let p = e.ok()?.path();
            if p.extension()? != "toml" {
                return None;
            }
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .collect();
    v.sort();
    v
}

/// The series names of a figure's CSV (`series,x,value`), the limit rows left out.
fn csv_series(csv: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in csv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let name = if let Some(rest) = line.strip_prefix('"') {
            rest.split('"').next().unwrap_or("").to_string()
        } else {
            line.split(',').next().unwrap_or("").to_string()
        };
        if !name.ends_with("(extrapolated limit)") && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[test]
fn every_figure_svg_parses_and_draws_every_series() {
    let stems = stems();
    assert_eq!(stems.len(), 11, "the 11 declared figures: {stems:?}");
    for s in &stems {
        let svg = std::fs::read_to_string(figures_dir().join(format!("{s}.svg"))).expect(s);
        let tree = parse_svg(&svg).unwrap_or_else(|e| panic!("{s}.svg: {e}"));
        // one column of a two-column paper: 3.5 in = 336 CSS px
        assert!((tree.size().width() - 336.0).abs() < 0.5, "{s}: width");
        let csv = std::fs::read_to_string(figures_dir().join(format!("{s}.csv"))).expect(s);
        let names = csv_series(&csv);
        let groups: Vec<&str> = svg.split("<g class=\"series\"").skip(1).collect();
        assert_eq!(
            groups.len(),
            names.len(),
            "{s}: one drawn series per CSV series"
        );
        for (g, n) in groups.iter().zip(&names) {
            let pts = g
                .split("points=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or("");
            assert!(!pts.trim().is_empty(), "{s}: series {n} has no points");
        }
        // no bare "log10" axis workaround left; log axes label decades as 10 with a raised k
        assert!(!svg.contains("log10 "), "{s}: a log10 label");
    }
}

#[test]
fn every_figure_pdf_is_one_page_with_the_font_embedded_and_reproduces() {
    for s in stems() {
        let svg = std::fs::read_to_string(figures_dir().join(format!("{s}.svg"))).expect(&s);
        let stored = std::fs::read(figures_dir().join(format!("{s}.pdf"))).expect(&s);
        assert!(stored.starts_with(b"%PDF-"), "{s}.pdf header");
        let text = String::from_utf8_lossy(&stored);
        let pages = text.matches("/Type /Page\n").count() + text.matches("/Type /Page ").count();
        assert_eq!(pages, 1, "{s}.pdf: one page");
        assert!(
            text.contains("/Count 1"),
            "{s}.pdf: a page tree of one page"
        );
        assert!(
            text.contains("/FontFile2"),
            "{s}.pdf: an embedded TrueType font"
        );
        assert!(text.contains("DejaVuSans"), "{s}.pdf: the bundled font");
        assert_eq!(
            text.matches("/FontFile2").count(),
            1,
            "{s}.pdf: one embedded font"
        );
        // the page is the SVG's size: 3.5 in = 252 pt wide
        assert!(text.contains("/MediaBox [0 0 252 "), "{s}.pdf: 252 pt wide");
        assert!(text.trim_end().ends_with("%%EOF"), "{s}.pdf trailer");
        let t = Instant::now();
        let again = svg_to_pdf(&svg).expect("converts");
        let dt = t.elapsed();
        assert!(
            again == stored,
            "{s}.pdf: converting the SVG again gives other bytes"
        );
        // and again in this process (svg2pdf's maps are seeded per instance)
        for _ in 0..3 {
            assert!(
                svg_to_pdf(&svg).expect("converts") == stored,
                "{s}.pdf: not deterministic"
            );
        }
        eprintln!(
            "{s}: PDF {} bytes in {:.1} ms",
            again.len(),
            dt.as_secs_f64() * 1e3
        );
    }
}

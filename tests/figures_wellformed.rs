//! The checked-in SVG figures are well-formed XML where strict parsers are picky: no "--"
//! inside a comment (XML 1.0 §2.5; librsvg refused such files), one root <svg> element,
//! and the provenance line in <desc>.

#[test]
fn svg_figures_have_no_double_hyphen_in_comments() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/figures");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("svg") {
            continue;
        }
        seen += 1;
        let s = std::fs::read_to_string(&p).unwrap();
        assert!(s.trim_start().starts_with("<svg"), "{}", p.display());
        assert!(
            s.contains("<desc>made by: taskassign tables"),
            "{}",
            p.display()
        );
        let mut rest = s.as_str();
        while let Some(i) = rest.find("<!--") {
            let after = &rest[i + 4..];
            let j = after
                .find("-->")
                .unwrap_or_else(|| panic!("{}: unterminated comment", p.display()));
            assert!(
                !after[..j].contains("--"),
                "{}: '--' inside a comment",
                p.display()
            );
            rest = &after[j + 3..];
        }
    }
    assert!(
        seen >= 4,
        "expected the four figures of `taskassign tables`, found {seen}"
    );
}

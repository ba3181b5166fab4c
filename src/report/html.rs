//! `check --format html --out DIR`: one self-contained `DIR/index.html` — no network, no
//! external script, style sheet or font (the bundled DejaVu Sans is inlined as a data:
//! URI, the figures as inline SVG, sanitised by [`super::figure::sanitize`]). It shows the verdict table, then every claim with its
//! statement, source, reading, checks, findings (set apart from failures), limits,
//! evidence table and figures. It renders the results of the run; nothing is recomputed.
//!
//! A small inline script counts the figures that rendered (an SVG with a non-empty
//! bounding box and at least one drawn series) into `<body data-figures-ok=…>`; the
//! browser test (`tests/browser/run.sh`) reads it.

use super::claims::{check_class_text, claim_margin, summary, verdict_shown};
use super::figure::text::{self, xml_escape, FONT_REGULAR};
use crate::claims::run::{CheckResult, ClaimResult};
use crate::claims::Verdict;

/// A figure to show with its claim: its stem, claim id, caption and SVG document.
#[derive(Debug, Clone)]
pub struct HtmlFigure {
    /// The output files' stem.
    pub name: String,
    /// The claim it illustrates.
    pub claim: String,
    /// Caption (the figure's title).
    pub caption: String,
    /// The SVG document, as written by `tables` and then made safe to inline
    /// ([`super::figure::sanitize::sanitize`]: no script, handler or outside reference).
    pub svg: String,
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648 §4, with padding).
pub fn base64(data: &[u8]) -> String {
    let mut o = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].iter().enumerate() {
            if i <= c.len() {
                o.push(char::from(B64[((n >> shift) & 63) as usize]));
            } else {
                o.push('=');
            }
        }
    }
    o
}

/// The class that sets a claim's verdict apart: `fail` (makes the run fail), `finding`
/// (an expected FAIL, a documented finding), `uncomputed`, `inconclusive`, `pass`.
pub fn verdict_class(r: &ClaimResult) -> &'static str {
    class_of(r.fails_run(), r.uncomputed(), r.verdict)
}

/// [`verdict_class`] of one check.
fn check_class(c: &CheckResult) -> &'static str {
    class_of(c.fails_run(), c.uncomputed(), c.verdict)
}

/// The class of a claim's or a check's verdict ([`verdict_class`]): whether it fails the
/// run, whether it was computed, then the verdict.
fn class_of(fails_run: bool, uncomputed: bool, verdict: Verdict) -> &'static str {
    if fails_run {
        "fail"
    } else if uncomputed {
        "uncomputed"
    } else if verdict == Verdict::Fail {
        "finding"
    } else if verdict == Verdict::Inconclusive {
        "inconclusive"
    } else {
        "pass"
    }
}

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #111; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { font-family: "DejaVu Sans Mono", monospace; white-space: nowrap; }
table.declared caption { caption-side: top; text-align: left; padding-bottom: 0.3em; }
.badge { display: inline-block; padding: 0 0.5em; border-radius: 0.3em; font-weight: bold; }
.pass .badge, .badge.pass { background: #d9efe3; color: #005a32; }
.fail .badge, .badge.fail { background: #d55e00; color: #fff; }
.finding .badge, .badge.finding { background: #fff0c2; color: #6b4e00; border: 1px dashed #b38600; }
.inconclusive .badge, .badge.inconclusive { background: #e6e6e6; color: #333; }
.uncomputed .badge, .badge.uncomputed { background: #7a0177; color: #fff; }
tr.pass .badge { background: #d9efe3; color: #005a32; border: none; }
tr.fail .badge { background: #d55e00; color: #fff; border: none; }
tr.finding .badge { background: #fff0c2; color: #6b4e00; border: 1px dashed #b38600; }
tr.inconclusive .badge { background: #e6e6e6; color: #333; border: none; }
tr.uncomputed .badge { background: #7a0177; color: #fff; border: none; }
tr.fail td { background: #fde5d8; }
aside.finding { border-left: 4px solid #e69f00; background: #fff8e1; padding: 0.4em 0.8em; margin: 0.6em 0; }
aside.finding strong { color: #6b4e00; }
div.undecided { border-left: 4px solid #999; background: #f3f3f3; padding: 0.2em 0.8em; margin: 0.6em 0; }
figure.plot { display: inline-block; margin: 0.5em 1em 0.5em 0; vertical-align: top; max-width: 34em; }
figure.plot svg { width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #333; }
details { margin: 0.5em 0; } summary { cursor: pointer; }
.words { font-style: italic; }
"#;

/// The inline script: counts the figures that rendered.
const SCRIPT: &str = r#"
window.addEventListener('load', function () {
  var figs = document.querySelectorAll('figure.plot');
  var ok = 0;
  figs.forEach(function (f) {
    var svg = f.querySelector('svg');
    if (!svg) { return; }
    var b = svg.getBBox();
    var drawn = svg.querySelectorAll('g.series polyline, g.series circle, g.series polygon').length;
    if (b.width > 0 && b.height > 0 && drawn > 0) { ok += 1; f.setAttribute('data-rendered', 'yes'); }
    else { f.setAttribute('data-rendered', 'no'); }
  });
  document.body.setAttribute('data-figures-total', String(figs.length));
  document.body.setAttribute('data-figures-ok', String(ok));
  document.body.setAttribute('data-fonts-ok', String(document.fonts.check('7px "DejaVu Sans"')));
});
"#;

fn e(s: &str) -> String {
    xml_escape(s)
}

/// Greek letters and symbols of the claims' LaTeX captions, as Unicode.
const TEX_SYMBOLS: [(&str, &str); 22] = [
    ("alpha", "α"),
    ("beta", "β"),
    ("gamma", "γ"),
    ("delta", "δ"),
    ("epsilon", "ε"),
    ("lambda", "λ"),
    ("mu", "μ"),
    ("rho", "ρ"),
    ("sigma", "σ"),
    ("theta", "θ"),
    ("infty", "∞"),
    ("to", "→"),
    ("le", "≤"),
    ("leq", "≤"),
    ("ge", "≥"),
    ("geq", "≥"),
    ("pm", "±"),
    ("times", "×"),
    ("cdot", "·"),
    ("ln", "ln"),
    ("log", "log"),
    ("quad", " "),
];

/// The braced group (or single character) at the start of `s`, and the rest.
fn tex_group(s: &str) -> (&str, &str) {
    let t = s.trim_start();
    if let Some(rest) = t.strip_prefix('{') {
        let mut depth = 1;
        for (i, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (&rest[..i], &rest[i + 1..]);
                    }
                }
                _ => {}
            }
        }
        (rest, "")
    } else {
        let n = t.chars().next().map_or(0, char::len_utf8);
        (&t[..n], &t[n..])
    }
}

/// A caption's LaTeX (the subset the claims use: math shifts, Greek letters and symbols,
/// `\mathrm`, `\frac`, sub- and superscripts) as escaped HTML.
pub fn tex_to_html(s: &str) -> String {
    let mut o = String::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        match c {
            '$' | '{' | '}' => rest = after,
            '_' | '^' => {
                let (g, r) = tex_group(after);
                let tag = if c == '_' { "sub" } else { "sup" };
                o.push_str(&format!("<{tag}>{}</{tag}>", tex_to_html(g)));
                rest = r;
            }
            '\\' => {
                let name: String = after
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .collect();
                let r = &after[name.len()..];
                match name.as_str() {
                    "mathrm" | "text" | "mathit" | "operatorname" => {
                        let (g, r) = tex_group(r);
                        o.push_str(&tex_to_html(g));
                        rest = r;
                    }
                    "frac" => {
                        let (a, r) = tex_group(r);
                        let (b, r) = tex_group(r);
                        o.push_str(&format!("({})/({})", tex_to_html(a), tex_to_html(b)));
                        rest = r;
                    }
                    "" => {
                        // An escaped character (`\%`, `\_`) or a spacing command (`\,`).
                        let n = r.chars().next().map_or(0, char::len_utf8);
                        let ch = &r[..n];
                        if ch != "," && ch != ";" && ch != "!" {
                            o.push_str(&e(ch));
                        }
                        rest = &r[n..];
                    }
                    other => {
                        match TEX_SYMBOLS.iter().find(|(k, _)| *k == other) {
                            Some((_, u)) => o.push_str(u),
                            None => o.push_str(&e(other)),
                        }
                        rest = r;
                    }
                }
            }
            _ => {
                o.push_str(&e(&c.to_string()));
                rest = after;
            }
        }
    }
    o
}

/// The claim's declared tables (`[[table]]` blocks), laid out as for the paper's files.
fn declared_tables(r: &ClaimResult) -> String {
    use super::table::{layout, text as ttext};
    let tables = match layout::tables(r) {
        Ok(t) => t,
        Err(err) => {
            return format!(
                "<p class=\"fail\">Its tables could not be laid out: {}</p>\n",
                e(&err.to_string())
            )
        }
    };
    let mut o = String::new();
    for t in &tables {
        o.push_str(&format!(
            "<table class=\"declared\" data-table=\"{}\">\n<caption><b>Table {}.</b> {}{}{}</caption>\n<tr>",
            e(&format!("{}-{}", t.id, t.label)),
            e(&t.label),
            tex_to_html(&t.caption),
            if t.at.is_empty() {
                String::new()
            } else {
                format!(" At {}.", e(&ttext::at_text(t)))
            },
            t.remarks
                .iter()
                .map(|r| format!(" {}", e(r)))
                .collect::<String>()
        ));
        // Headers and row values may hold LaTeX (math of variables, `[table.labels]`).
        for h in ttext::header(t) {
            o.push_str(&format!("<th>{}</th>", tex_to_html(&h)));
        }
        o.push_str("</tr>\n");
        let nrow = t.row_vars.len();
        for line in ttext::body(t) {
            o.push_str("<tr>");
            for (i, c) in line.iter().enumerate() {
                if i < nrow {
                    o.push_str(&format!("<td>{}</td>", tex_to_html(c)));
                } else {
                    o.push_str(&format!("<td class=\"num\">{}</td>", e(c)));
                }
            }
            o.push_str("</tr>\n");
        }
        o.push_str("</table>\n");
        for n in &t.notes {
            o.push_str(&format!("<p class=\"note\">Not computed: {}</p>\n", e(n)));
        }
    }
    o
}

/// An SVG document as inline markup: without the XML declaration, if any.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

fn claim_section(r: &ClaimResult, figs: &[&HtmlFigure]) -> String {
    let c = &r.claim;
    let cls = verdict_class(r);
    let mut o = format!(
        "<section class=\"claim {cls}\" id=\"claim-{id}\">\n<h2>{id} <span class=\"badge\">{v}</span></h2>\n",
        id = e(&c.id),
        v = e(&verdict_shown(r))
    );
    let source = match &c.source {
        Some(s) => {
            let within: Vec<String> = s
                .seed
                .iter()
                .chain(s.location.iter())
                .map(|x| e(x))
                .collect();
            format!(
                "{}{}: <span class=\"words\">“{}”</span>",
                e(&s.paper),
                if within.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", within.join(", "))
                },
                e(s.words.trim())
            )
        }
        None => e(&c.source_long()),
    };
    o.push_str(&format!(
        "<p><b>Statement.</b> {}</p>\n<p><b>Source.</b> {source}</p>\n<p><b>Reading.</b> {}</p>\n",
        e(&c.statement),
        e(&c.reading)
    ));
    if let Some(n) = &c.notes {
        o.push_str(&format!("<p><b>Notes.</b> {}</p>\n", e(n)));
    }
    o.push_str(&format!(
        "<p class=\"file\">File: <code>{}</code></p>\n",
        e(&c.path)
    ));
    o.push_str("<table class=\"checks\">\n<tr><th>check</th><th>quantity</th><th>relation</th><th>verdict</th><th>margin</th><th>worst point</th></tr>\n");
    for k in &r.checks {
        let expect = if k.expect != Verdict::Pass {
            format!(" (expected {})", k.expect.name())
        } else {
            String::new()
        };
        o.push_str(&format!(
            "<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td><td><span class=\"badge\">{}{}</span></td><td class=\"num\">{}</td><td>{}</td></tr>\n",
            check_class(k),
            e(&k.name),
            e(&k.quantity),
            e(&k.relation),
            e(&check_class_text(k)),
            e(&expect),
            e(&k.margin),
            e(&k.worst_point)
        ));
    }
    o.push_str("</table>\n");
    if let (true, Some(w)) = (r.checks.len() > 1, r.worst()) {
        o.push_str(&format!(
            "<p class=\"margin-check\">The claim's margin is that of check <b>{}</b> (the deciding check); each check's margin is in its own quantity's unit.</p>\n",
            e(&w.name)
        ));
    }
    let undecided: Vec<String> = r
        .checks
        .iter()
        .flat_map(|k| {
            k.undecided().into_iter().map(move |(at, why)| {
                format!("<li><b>{}</b> at {}: {}</li>", e(&k.name), e(&at), e(&why))
            })
        })
        .collect();
    if !undecided.is_empty() {
        o.push_str(&format!(
            "<div class=\"undecided\"><p><b>Not decided</b> (each INCONCLUSIVE comparison and uncomputed point, and why):</p>\n<ul>\n{}\n</ul></div>\n",
            undecided.join("\n")
        ));
    }
    for k in &r.checks {
        if let Some(f) = &k.finding {
            o.push_str(&format!(
                "<aside class=\"finding\"><strong>Finding ({}, expected {}, got {}).</strong> {}</aside>\n",
                e(&k.name),
                k.expect.name(),
                k.verdict.name(),
                e(f.trim())
            ));
        }
    }
    let limits: Vec<String> = r
        .checks
        .iter()
        .flat_map(|k| {
            k.limits.iter().map(move |l| {
                let at = l.at_text();
                format!(
                    "<li><code>{}</code> as {}{}: <span class=\"num\">{} ± {}</span></li>",
                    e(&k.quantity),
                    e(&l.towards),
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", e(&at))
                    },
                    e(&l.estimate),
                    e(&l.error)
                )
            })
        })
        .collect();
    if !limits.is_empty() {
        o.push_str(&format!(
            "<p><b>Limits</b> (extrapolated estimate ± error):</p>\n<ul>\n{}\n</ul>\n",
            limits.join("\n")
        ));
    }
    o.push_str(&declared_tables(r));
    for f in figs {
        o.push_str(&format!(
            "<figure class=\"plot\" data-figure=\"{}\">\n{}<figcaption>{} <code>({}.svg, .pdf)</code></figcaption>\n</figure>\n",
            e(&f.name),
            inline_svg(&f.svg),
            e(&text::plain(&f.caption)),
            e(&f.name)
        ));
    }
    let n: usize = r.checks.iter().map(|k| k.judged.len()).sum();
    o.push_str(&format!(
        "<details><summary>Evidence: {n} comparisons</summary>\n<table class=\"evidence\">\n<tr><th>check</th><th>point</th><th>value</th><th>uncertainty</th><th>bound</th><th>margin</th><th>verdict</th></tr>\n"
    ));
    for k in &r.checks {
        for j in &k.judged {
            o.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                e(&k.name),
                e(&j.label),
                e(&j.value),
                e(&j.uncertainty),
                e(&j.bound),
                e(&j.margin),
                j.class()
            ));
        }
    }
    o.push_str("</table>\n</details>\n</section>\n");
    o
}

/// The report page.
pub fn to_html(rs: &[ClaimResult], figures: &[HtmlFigure], note: &str) -> String {
    let s = summary(rs);
    let mut o = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>taskassign check</title>\n<style>\n");
    o.push_str(&format!(
        "@font-face {{ font-family: \"DejaVu Sans\"; src: url(data:font/ttf;base64,{}) format(\"truetype\"); }}\n",
        base64(FONT_REGULAR)
    ));
    o.push_str(STYLE);
    o.push_str("</style>\n<script>");
    o.push_str(SCRIPT);
    o.push_str("</script>\n</head>\n<body>\n<h1>taskassign check</h1>\n");
    o.push_str(&format!(
        "<p class=\"summary\">{} claims ({} checks): <span class=\"badge pass\">{} PASS</span> <span class=\"badge {}\">{} FAIL</span> of which <span class=\"badge finding\">{} expected</span> (documented findings), <span class=\"badge inconclusive\">{} INCONCLUSIVE</span>; {} fail the run, {} could not be computed.</p>\n",
        s.claims,
        s.checks,
        s.pass,
        if s.failing_run > 0 { "fail" } else { "inconclusive" },
        s.fail,
        s.expected_fail,
        s.inconclusive,
        s.failing_run,
        s.uncomputed
    ));
    if s.rigorous {
        o.push_str(&format!(
            "<p class=\"summary\">--rigorous: <span class=\"badge pass\">{} PROVEN</span> claims (not counted as PASS above), {} of {} checks PROVEN (decided by enclosures at every point; PASS is certified by two precisions).</p>\n",
            s.proven, s.proven_checks, s.checks
        ));
    }
    if !note.is_empty() {
        o.push_str(&format!(
            "<p class=\"note\"><b>{}</b></p>\n",
            e(note.trim())
        ));
    }
    o.push_str("<table class=\"verdicts\">\n<tr><th>id</th><th>source</th><th>verdict</th><th>margin</th><th>worst point</th><th>figures</th></tr>\n");
    for r in rs {
        let w = r.worst();
        let nf = figures.iter().filter(|f| f.claim == r.claim.id).count();
        o.push_str(&format!(
            "<tr class=\"{}\"><td><a href=\"#claim-{id}\">{id}</a></td><td>{}</td><td><span class=\"badge\">{}</span></td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
            verdict_class(r),
            e(&r.claim.source_short()),
            e(&verdict_shown(r)),
            e(&claim_margin(r)),
            e(&w.map(|w| format!("{}: {}", w.name, w.worst_point)).unwrap_or_default()),
            if nf == 0 { String::new() } else { nf.to_string() },
            id = e(&r.claim.id),
        ));
    }
    o.push_str("</table>\n");
    for r in rs {
        let figs: Vec<&HtmlFigure> = figures.iter().filter(|f| f.claim == r.claim.id).collect();
        o.push_str(&claim_section(r, &figs));
    }
    o.push_str("</body>\n</html>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4648 §10 test vectors.
    #[test]
    fn captions_latex_becomes_html() {
        // Hand-written expectations for the constructs the shipped captions use.
        assert_eq!(
            tex_to_html("$\\rho^*(F, h)$ of TAGS"),
            "ρ<sup>*</sup>(F, h) of TAGS"
        );
        assert_eq!(
            tex_to_html("$E[W_{\\mathrm{TAGS}}]/E[W_{\\mathrm{SITA}}]$"),
            "E[W<sub>TAGS</sub>]/E[W<sub>SITA</sub>]"
        );
        assert_eq!(
            tex_to_html("$p\\to\\infty$, $p=10^{100}$"),
            "p→∞, p=10<sup>100</sup>"
        );
        assert_eq!(tex_to_html("$\\frac{\\alpha}{\\alpha-1}$"), "(α)/(α-1)");
        assert_eq!(tex_to_html("a < b & \\%"), "a &lt; b &amp; %");
    }

    #[test]
    fn base64_matches_rfc_4648() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }
}

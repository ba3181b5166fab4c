//! Figure text: a small math markup for labels and legends, measured with the bundled
//! DejaVu Sans (so a legend box fits its text without any system font), and written as SVG
//! `<tspan>`s that both browsers and usvg (the PDF path) render.
//!
//! Markup: text between `$…$` is math. There a single letter (Latin or Greek) is italic, a
//! run of two or more letters is upright (words and function names: `ln`, `TAGS`), so is a
//! capital Greek letter (`Σ`), `_x` and
//! `^x` make the next character a sub- or superscript and `_{…}`, `^{…}` a group. Outside
//! `$…$` the text is shown as written.

use std::sync::OnceLock;

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE`).
pub const FONT_REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
/// The family name both fonts declare, used in the SVG.
pub const FONT_FAMILY: &str = "DejaVu Sans";

/// Size of a sub- or superscript, relative to the text around it.
pub const SCRIPT_SCALE: f64 = 0.7;
/// Superscript raise, in ems of the surrounding text.
pub const SUP_RAISE: f64 = 0.38;
/// Subscript drop, in ems of the surrounding text.
pub const SUB_DROP: f64 = 0.2;
/// Advance assumed for a character the font has no glyph for, in ems.
const MISSING_ADVANCE: f64 = 0.6;

/// Vertical placement of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    /// On the baseline.
    Base,
    /// Superscript.
    Sup,
    /// Subscript.
    Sub,
}

/// A piece of text with one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The characters.
    pub text: String,
    /// Italic (oblique).
    pub italic: bool,
    /// Placement.
    pub shift: Shift,
}

fn push(runs: &mut Vec<Run>, text: &str, italic: bool, shift: Shift) {
    if text.is_empty() {
        return;
    }
    if let Some(last) = runs.last_mut() {
        if last.italic == italic && last.shift == shift {
            last.text.push_str(text);
            return;
        }
    }
    runs.push(Run {
        text: text.to_string(),
        italic,
        shift,
    });
}

/// Math text: letters italic when alone, upright in words.
fn math(runs: &mut Vec<Run>, s: &str, shift: Shift) {
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if (c == '_' || c == '^') && i + 1 < cs.len() {
            let sh = if c == '_' { Shift::Sub } else { Shift::Sup };
            let (group, next) = if cs[i + 1] == '{' {
                let end = cs[i + 2..]
                    .iter()
                    .position(|&x| x == '}')
                    .map_or(cs.len(), |p| i + 2 + p);
                (cs[i + 2..end].iter().collect::<String>(), end + 1)
            } else {
                (cs[i + 1].to_string(), i + 2)
            };
            math(runs, &group, sh);
            i = next;
            continue;
        }
        if c.is_alphabetic() {
            let start = i;
            while i < cs.len() && cs[i].is_alphabetic() {
                i += 1;
            }
            let word: String = cs[start..i].iter().collect();
            // capital Greek stays upright, as in TeX (Σ, Δ)
            let upright_greek = ('\u{391}'..='\u{3A9}').contains(&cs[start]);
            push(runs, &word, i - start == 1 && !upright_greek, shift);
            continue;
        }
        push(runs, &c.to_string(), false, shift);
        i += 1;
    }
}

/// Parses the markup into runs.
pub fn parse(s: &str) -> Vec<Run> {
    let mut runs = Vec::new();
    for (k, part) in s.split('$').enumerate() {
        if k % 2 == 1 {
            math(&mut runs, part, Shift::Base);
        } else {
            push(&mut runs, part, false, Shift::Base);
        }
    }
    runs
}

/// The text without markup (for `<title>`, CSV headers and HTML).
pub fn plain(s: &str) -> String {
    parse(s)
        .into_iter()
        .map(|r| match r.shift {
            Shift::Base => r.text,
            Shift::Sup => format!("^{}", r.text),
            Shift::Sub => format!("_{}", r.text),
        })
        .collect()
}

struct Metrics {
    regular: Option<ttf_parser::Face<'static>>,
}

fn metrics() -> &'static Metrics {
    static M: OnceLock<Metrics> = OnceLock::new();
    M.get_or_init(|| Metrics {
        regular: ttf_parser::Face::parse(FONT_REGULAR, 0).ok(),
    })
}

/// The advance width of `s` at `size` (no kerning: DejaVu's kerning changes a label's
/// width by well under a per cent). Italic is the upright face slanted: same advances.
pub fn plain_width(s: &str, size: f64, _italic: bool) -> f64 {
    let Some(face) = &metrics().regular else {
        return s.chars().count() as f64 * MISSING_ADVANCE * size;
    };
    let em = f64::from(face.units_per_em());
    s.chars()
        .map(|c| {
            face.glyph_index(c)
                .and_then(|g| face.glyph_hor_advance(g))
                .map_or(MISSING_ADVANCE * size, |a| f64::from(a) / em * size)
        })
        .sum()
}

fn run_size(r: &Run, size: f64) -> f64 {
    match r.shift {
        Shift::Base => size,
        _ => size * SCRIPT_SCALE,
    }
}

/// The width of marked-up text at `size`.
pub fn width(s: &str, size: f64) -> f64 {
    parse(s)
        .iter()
        .map(|r| plain_width(&r.text, run_size(r, size), r.italic))
        .sum()
}

/// Escapes text for XML content and attribute values.
pub fn xml_escape(s: &str) -> String {
    xml_escape_with(s, |o, c| match c {
        '\'' => o.push_str("&#39;"),
        _ => o.push(c),
    })
}

/// Escapes the markup characters `&`, `<`, `>` and `"` of `s`, and hands every other
/// character to `other`, which writes it (or its escape) to the output: the SVG writer
/// ([`xml_escape`]) and the JUnit report differ only there.
pub(crate) fn xml_escape_with(s: &str, other: impl Fn(&mut String, char)) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => other(&mut o, c),
        }
    }
    o
}

/// Formats a coordinate for SVG (two decimals, no trailing zeros).
pub fn num(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Slant of italic runs, degrees (DejaVu Sans Oblique is the upright face slanted by
/// about this much; slanting the one bundled face keeps the PDF to one embedded font).
pub const ITALIC_SKEW_DEG: f64 = 11.0;

/// Marked-up text at `size` as SVG: one `<text>` per run, placed from the bundled font's
/// advances (so `anchor` — `start`, `middle` or `end` — is applied here), scripts raised or
/// lowered, italic runs slanted about their baseline point.
pub fn svg_text(x: f64, y: f64, size: f64, anchor: &str, s: &str) -> String {
    let runs = parse(s);
    let total: f64 = runs
        .iter()
        .map(|r| plain_width(&r.text, run_size(r, size), false))
        .sum();
    let mut at = match anchor {
        "middle" => x - total / 2.0,
        "end" => x - total,
        _ => x,
    };
    let mut o = String::new();
    for r in &runs {
        let fs = run_size(r, size);
        let base = match r.shift {
            Shift::Base => y,
            Shift::Sup => y - SUP_RAISE * size,
            Shift::Sub => y + SUB_DROP * size,
        };
        let skew = if r.italic {
            format!(
                " transform=\"translate({} {}) skewX(-{}) translate({} {})\"",
                num(at),
                num(base),
                num(ITALIC_SKEW_DEG),
                num(-at),
                num(-base)
            )
        } else {
            String::new()
        };
        o.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\"{skew} xml:space=\"preserve\">{}</text>",
            num(at),
            num(base),
            num(fs),
            xml_escape(&r.text)
        ));
        at += plain_width(&r.text, fs, false);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_letters_are_italic_words_upright_scripts_shifted() {
        let r = parse("time $t$ and $E[W_{TAGS}]/ln p^2$");
        let t = |s: &str, i: bool, sh: Shift| Run {
            text: s.into(),
            italic: i,
            shift: sh,
        };
        assert_eq!(
            r,
            vec![
                t("time ", false, Shift::Base),
                t("t", true, Shift::Base),
                t(" and ", false, Shift::Base),
                t("E", true, Shift::Base),
                t("[", false, Shift::Base),
                t("W", true, Shift::Base),
                t("TAGS", false, Shift::Sub),
                t("]/ln ", false, Shift::Base),
                t("p", true, Shift::Base),
                t("2", false, Shift::Sup),
            ]
        );
        assert_eq!(plain("$ρ^*$ of $N$"), "ρ^* of N");
    }

    /// DejaVu Sans advances, from its hmtx table (units per em 2048): '0' is 1303 units
    /// wide, so "00" at 10 pt is 2·1303/2048·10 = 12.725 pt (tolerance: rounding only).
    #[test]
    fn widths_come_from_the_bundled_font() {
        let want = 2.0 * 1303.0 / 2048.0 * 10.0;
        assert!((plain_width("00", 10.0, false) - want).abs() < 1e-9 * want);
        assert!(width("$x^2$", 10.0) < width("x2", 10.0));
    }

    /// "a<b x^k" at 10 pt: "a<b " upright from x = 0, then x slanted, then k raised by
    /// 0.38 em = 3.8 pt at 7 pt (the constants above).
    #[test]
    fn svg_text_places_runs_and_escapes() {
        let s = svg_text(0.0, 10.0, 10.0, "start", "a<b $x^k$");
        assert!(s.contains(">a&lt;b </text>"), "{s}");
        assert!(s.contains("skewX(-11)"), "{s}");
        assert!(s.contains("y=\"6.2\" font-size=\"7\""), "{s}");
        let w = width("a<b $x^k$", 10.0);
        let e = svg_text(w, 10.0, 10.0, "end", "a<b $x^k$");
        assert!(e.starts_with("<text x=\"0\""), "{e}");
    }
}

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
/// DejaVu Sans Oblique (same licence).
pub const FONT_OBLIQUE: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Oblique.ttf");
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
    oblique: Option<ttf_parser::Face<'static>>,
}

fn metrics() -> &'static Metrics {
    static M: OnceLock<Metrics> = OnceLock::new();
    M.get_or_init(|| Metrics {
        regular: ttf_parser::Face::parse(FONT_REGULAR, 0).ok(),
        oblique: ttf_parser::Face::parse(FONT_OBLIQUE, 0).ok(),
    })
}

/// The advance width of `s` at `size` (no kerning: DejaVu's kerning changes a label's
/// width by well under a per cent).
pub fn plain_width(s: &str, size: f64, italic: bool) -> f64 {
    let m = metrics();
    let face = if italic { &m.oblique } else { &m.regular };
    let Some(face) = face else {
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
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
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

/// The `<tspan>`s of marked-up text at `size`: scripts shifted with `dy` (which usvg and
/// every browser honour) and shifted back after.
pub fn tspans(s: &str, size: f64) -> String {
    let mut o = String::new();
    let mut offset = 0.0;
    for r in parse(s) {
        let target = match r.shift {
            Shift::Base => 0.0,
            Shift::Sup => -SUP_RAISE * size,
            Shift::Sub => SUB_DROP * size,
        };
        let dy = target - offset;
        offset = target;
        let mut attrs = String::new();
        if dy != 0.0 {
            attrs.push_str(&format!(" dy=\"{}\"", num(dy)));
        }
        if r.shift != Shift::Base {
            attrs.push_str(&format!(" font-size=\"{}\"", num(run_size(&r, size))));
        }
        if r.italic {
            attrs.push_str(" font-style=\"italic\"");
        }
        o.push_str(&format!("<tspan{attrs}>{}</tspan>", xml_escape(&r.text)));
    }
    if offset != 0.0 {
        // return to the baseline so that nothing after the text is shifted
        o.push_str(&format!("<tspan dy=\"{}\"></tspan>", num(-offset)));
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
        assert!((plain_width("00", 10.0, false) - 2.0 * 1303.0 / 2048.0 * 10.0).abs() < 1e-9);
        assert!(width("$x^2$", 10.0) < width("x2", 10.0));
    }

    #[test]
    fn tspans_return_to_the_baseline_and_escape() {
        let s = tspans("a<b $x^k$", 10.0);
        assert!(s.contains("a&lt;b"), "{s}");
        assert!(s.ends_with("<tspan dy=\"3.8\"></tspan>"), "{s}");
    }
}

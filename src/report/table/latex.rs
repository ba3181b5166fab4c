//! LaTeX: declared tables as `table` floats (booktabs, siunitx `S` columns aligned on the
//! decimal marker, limits as `\num{1.5874011 +- 0.0000002}`, math headers), and the
//! evidence dump as a `longtable` (it breaks across pages, its header repeated) with
//! numbers through `\num`. `make test-latex` compiles every generated file inside
//! [`DECLARED_PREAMBLE`] or [`DUMP_PREAMBLE`] with pdflatex.

use super::number::Dec;
use super::text::{claim_rows, HEADERS};
use super::{Cell, Table};
use crate::claims::compile::CellKind;
use crate::claims::run::ClaimResult;

/// What a declared table's `.tex` needs: `\usepackage{booktabs,siunitx}` (the minimal
/// document the LaTeX test wraps it in; `\end{document}` closes it).
pub const DECLARED_PREAMBLE: &str =
    "\\documentclass{article}\n\\usepackage{booktabs,siunitx}\n\\begin{document}\n";
/// What an evidence dump's `.tex` needs: booktabs, siunitx, longtable (it breaks across
/// pages; Debian's texlive-latex-base has it, where xltabular and ltablex would need
/// texlive-latex-extra) and array, on a landscape page (its six columns of certified
/// digits and error texts do not fit a portrait column).
pub const DUMP_PREAMBLE: &str = "\\documentclass{article}\n\\usepackage[a4paper,landscape,margin=1.5cm]{geometry}\n\\usepackage{booktabs,siunitx,longtable,array}\n\\begin{document}\n";

/// siunitx options of every generated table (local to its group): `10^{100}` without a
/// unit mantissa. Errors are printed in siunitx's compact form, `1.5874011(1)` for the
/// input `1.5874011 +- 0.0000001`: its separate form (`±`) sits flush against the value in
/// an aligned `S` column (siunitx 3.2).
const SISETUP: &str = "\\sisetup{print-unity-mantissa=false}";

/// Significant digits up to which the evidence dump sets a number through `\\num` (an
/// unbreakable box); longer ones are set as digits that may break every half of it.
const LONG_NUMBER_DIGITS: usize = 20;

const GREEK: [&str; 17] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "kappa", "lambda", "mu",
    "nu", "xi", "rho", "sigma", "tau", "phi",
];

/// Text escaped for LaTeX's text mode (ASCII specials, the Unicode the engine writes,
/// anything else as its code point).
pub fn escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\textbackslash{}"),
            '_' | '%' | '&' | '#' | '$' | '{' | '}' => {
                o.push('\\');
                o.push(c);
            }
            '^' => o.push_str("\\textasciicircum{}"),
            '~' => o.push_str("\\textasciitilde{}"),
            '<' => o.push_str("$<$"),
            '>' => o.push_str("$>$"),
            '|' => o.push_str("$|$"),
            '±' => o.push_str("$\\pm$"),
            '≤' => o.push_str("$\\le$"),
            '≥' => o.push_str("$\\ge$"),
            '→' => o.push_str("$\\to$"),
            '×' => o.push_str("$\\times$"),
            '·' => o.push_str("$\\cdot$"),
            '∞' => o.push_str("$\\infty$"),
            '≈' => o.push_str("$\\approx$"),
            '—' => o.push_str("---"),
            '–' => o.push_str("--"),
            'ρ' => o.push_str("$\\rho$"),
            'λ' => o.push_str("$\\lambda$"),
            'α' => o.push_str("$\\alpha$"),
            'μ' => o.push_str("$\\mu$"),
            c if c.is_ascii() => o.push(c),
            c => o.push_str(&format!("[U+{:04X}]", c as u32)),
        }
    }
    o
}

/// A decimal number for `\num`: plain where its exponent is small, else `m e x`.
fn num_input(d: &Dec) -> String {
    if d.is_zero() || super::number::PLAIN_EXPONENTS.contains(&d.exp) {
        d.fixed(0)
    } else {
        format!("{}e{}", d.fixed(d.exp), d.exp)
    }
}

/// Free text with its numbers through `\num`, `<=`/`>=`/`->` as math, and break points
/// after commas (the evidence dump's cells).
pub fn texify(s: &str) -> String {
    let mut o = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    let mut plain = String::new();
    let flush = |plain: &mut String, o: &mut String| {
        let t = plain
            .replace("<=", "≤")
            .replace(">=", "≥")
            .replace("->", "→");
        o.push_str(&escape(&t).replace(',', ",\\allowbreak{}"));
        plain.clear();
    };
    while i < b.len() {
        let start_ok = b[i].is_ascii_digit()
            || (b[i] == b'-'
                && i + 1 < b.len()
                && b[i + 1].is_ascii_digit()
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric()));
        let prev_word = i > 0 && (b[i - 1].is_ascii_alphabetic() || b[i - 1] == b'_');
        if start_ok && !prev_word {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                let mut k = j + 1;
                if k < b.len() && (b[k] == b'-' || b[k] == b'+') {
                    k += 1;
                }
                if k < b.len() && b[k].is_ascii_digit() {
                    while k < b.len() && b[k].is_ascii_digit() {
                        k += 1;
                    }
                    j = k;
                }
            }
            let tok = &s[i..j];
            let next_word = j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'_');
            match Dec::parse(tok) {
                // more digits than a column holds unbroken: plain digits that may break
                Some(d) if !next_word && d.digits.len() > LONG_NUMBER_DIGITS => {
                    flush(&mut plain, &mut o);
                    let cs: Vec<char> = tok.chars().collect();
                    let parts: Vec<String> = cs
                        .chunks(LONG_NUMBER_DIGITS / 2)
                        .map(|c| c.iter().collect())
                        .collect();
                    o.push_str(&parts.join("\\allowbreak{}"));
                }
                Some(d) if !next_word => {
                    flush(&mut plain, &mut o);
                    o.push_str(&format!("\\num{{{}}}", num_input(&d)));
                }
                _ => plain.push_str(tok),
            }
            i = j;
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            plain.push(ch);
            i += ch.len_utf8();
        }
    }
    flush(&mut plain, &mut o);
    o
}

/// A variable's math (`\alpha`, `h`, `\mathit{load}`), without the dollars.
fn var_math(name: &str, t: Option<&Table>) -> String {
    if let Some(m) = t.and_then(|t| t.math.get(name)) {
        return m.clone();
    }
    if GREEK.contains(&name) {
        format!("\\{name}")
    } else if name.chars().count() == 1 {
        name.to_string()
    } else {
        format!("\\mathit{{{}}}", name.replace('_', "\\_"))
    }
}

fn family_name(f: &str) -> &str {
    match f {
        "bp" => "BP",
        "exp" => "Exp",
        "pareto" => "Pareto",
        "uniform" => "U",
        "hyperexp" => "H$_2$",
        "weibull" => "Weibull",
        "lognormal" => "LN",
        "det" => "Det",
        "erlang" => "Erlang",
        "empirical" => "Empirical",
        _ => f,
    }
}

/// A distribution parameter's math (the symbol the literature writes for it), for every
/// key of [`crate::dist::spec::FAMILIES`]; an unknown key falls back to [`var_math`].
fn param_math(family: &str, key: &str) -> String {
    let m = match (family, key) {
        (_, "alpha") => "\\alpha",
        (_, "rate") => "\\lambda",
        (_, "rate1") => "\\lambda_1",
        (_, "rate2") => "\\lambda_2",
        (_, "mean") => "m",
        (_, "scv") => "C^2",
        ("weibull", "shape") => "k",
        ("weibull", "scale") => "\\lambda",
        (_, "mu") => "\\mu",
        (_, "sigma") => "\\sigma",
        (_, k @ ("k" | "p" | "a" | "b" | "x")) => k,
        (_, k) => return var_math(k, None),
    };
    m.to_string()
}

/// A grid value in text mode, or the label the table gives it (as written); see
/// [`value_tex`].
pub fn value_tex_in(v: &str, t: &Table) -> String {
    match t.labels.get(v) {
        Some(l) => l.clone(),
        None => value_tex(v),
    }
}

/// A grid value in text mode: a number through `\num`; `inf` as `$\infty$`; a
/// distribution spec `bp:k=1,p=1e10,alpha=1` as `BP($k=1$, $p=10^{10}$, $\alpha=1$)`, each
/// family's parameters by their usual symbols (`hyperexp:mean=1,scv=16` as
/// `H$_2$($m=1$, $C^2=16$)`, `weibull:shape=0.5,mean=1` as `Weibull($k=0.5$, $m=1$)`); any
/// other word as typewriter text.
pub fn value_tex(v: &str) -> String {
    if v == "inf" {
        return "$\\infty$".into();
    }
    // a number as the claim wrote it (`1e100` is set as 10^100)
    if Dec::parse(v).is_some() {
        return format!("\\num{{{}}}", v.trim());
    }
    if let Some((fam, params)) = v.split_once(':') {
        let ok = fam.bytes().all(|b| b.is_ascii_lowercase())
            && params
                .split(',')
                .all(|p| p.contains('=') && !p.contains(' '));
        if ok {
            let ps: Vec<String> = params
                .split(',')
                .filter_map(|p| p.split_once('='))
                .map(|(k, x)| {
                    if k == "file" {
                        // an empirical law's sample file: its name only
                        return format!("\\texttt{{{}}}", escape(x));
                    }
                    let x = match Dec::parse(x) {
                        Some(_) => format!("\\num{{{x}}}"),
                        None => var_math(x.trim_matches(['{', '}']), None),
                    };
                    format!("${}={x}$", param_math(fam, k))
                })
                .collect();
            return format!("{}({})", family_name(fam), ps.join(", "));
        }
    }
    format!("\\texttt{{{}}}", escape(v))
}

/// The `table-format` of an `S` column holding these cells; `None` when none is a number.
fn table_format(cells: &[&Cell]) -> Option<String> {
    let (mut neg, mut int, mut frac, mut unc, mut eneg, mut edig) = (false, 1, 0, 0, false, 0);
    let mut any = false;
    for c in cells {
        let Cell::Num(s) = c else { continue };
        any = true;
        neg |= s.value.starts_with('-');
        let v = s.value.trim_start_matches('-');
        let (i, f) = v.split_once('.').unwrap_or((v, ""));
        int = int.max(i.len());
        frac = frac.max(f.len());
        if let Some(e) = &s.err {
            let digits = e.replace('.', "");
            unc = unc.max(digits.trim_start_matches('0').len().max(1));
        }
        if s.exp != 0 {
            eneg |= s.exp < 0;
            edig = edig.max(s.exp.unsigned_abs().to_string().len());
        }
    }
    if !any {
        return None;
    }
    let mut f = format!("{}{int}", if neg { "-" } else { "" });
    if frac > 0 {
        f.push_str(&format!(".{frac}"));
    }
    if unc > 0 {
        f.push_str(&format!("({unc})"));
    }
    if edig > 0 {
        f.push_str(&format!("e{}{edig}", if eneg { "-" } else { "" }));
    }
    Some(f)
}

/// A cell in an `S` column (numbers as siunitx input; anything else braced).
fn cell_tex(c: &Cell) -> String {
    match c {
        Cell::Num(s) => {
            let mut o = s.value.clone();
            if let Some(e) = &s.err {
                o.push_str(&format!(" +- {e}"));
            }
            if s.exp != 0 {
                o.push_str(&format!(" e{}", s.exp));
            }
            o
        }
        Cell::Word(w) => format!("{{\\textsc{{{}}}}}", escape(&w.to_lowercase())),
        Cell::Missing => "{---}".into(),
    }
}

/// `$k$ = value` in a header or caption, or the value's label alone.
fn assign_tex(t: &Table, k: &str, v: &str) -> String {
    match t.labels.get(v) {
        Some(l) => l.clone(),
        None => format!("${}$ = {}", var_math(k, Some(t)), value_tex(v)),
    }
}

/// A column's header in the second header line.
fn col_header(t: &Table, j: usize) -> String {
    match t.col_vars.as_slice() {
        [] => match t.cell {
            CellKind::Limit => "{limit}".into(),
            k => format!("{{{}}}", k.name()),
        },
        [_] => format!("{{{}}}", value_tex_in(&t.cols[j][0], t)),
        _ => format!(
            "{{{}}}",
            t.col_vars
                .iter()
                .zip(&t.cols[j])
                .map(|(k, v)| assign_tex(t, k, v))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A declared table as a `table` float.
pub fn table_latex(t: &Table, made_by: &str) -> String {
    let nr = t.row_vars.len();
    let nc = t.cols.len();
    let mut spec = "l".repeat(nr);
    for j in 0..nc {
        let col: Vec<&Cell> = t.cells.iter().map(|r| &r[j]).collect();
        match table_format(&col) {
            Some(f) if t.cell != CellKind::Verdict => {
                spec.push_str(&format!("S[table-format={f}]"))
            }
            _ => spec.push('c'),
        }
    }
    let mut caption = t.caption.clone();
    if !t.at.is_empty() {
        let at: Vec<String> = t.at.iter().map(|(k, v)| assign_tex(t, k, v)).collect();
        caption.push_str(&format!(" At {}.", at.join(", ")));
    }
    for r in &t.remarks {
        caption.push_str(&format!(" {}", escape(r)));
    }
    if !t.notes.is_empty() {
        caption.push_str(" ---: not computed (see the claim's evidence table).");
    }
    let mut o = format!(
        "% made by: {made_by}\n% {}, check {}, cells: {}\n% needs \\usepackage{{booktabs,siunitx}}\n",
        t.id,
        t.check,
        t.cell.name()
    );
    o.push_str("\\begin{table}\n\\centering\n");
    o.push_str(&format!(
        "{SISETUP}\n\\begin{{tabular}}{{{spec}}}\n\\toprule\n"
    ));
    let row_heads: Vec<String> = t
        .row_vars
        .iter()
        .map(|v| format!("${}$", var_math(v, Some(t))))
        .collect();
    if let [cv] = t.col_vars.as_slice() {
        o.push_str(&format!(
            "{}& \\multicolumn{{{nc}}}{{c}}{{${}$}} \\\\\n\\cmidrule(lr){{{}-{}}}\n",
            "& ".repeat(nr.saturating_sub(1)),
            var_math(cv, Some(t)),
            nr + 1,
            nr + nc
        ));
    }
    let mut head = row_heads;
    head.extend((0..nc).map(|j| col_header(t, j)));
    o.push_str(&format!("{} \\\\\n\\midrule\n", head.join(" & ")));
    for (rk, cs) in t.rows.iter().zip(&t.cells) {
        let mut line: Vec<String> = rk.iter().map(|v| value_tex_in(v, t)).collect();
        line.extend(cs.iter().map(cell_tex));
        o.push_str(&format!("{} \\\\\n", line.join(" & ")));
    }
    o.push_str("\\bottomrule\n\\end{tabular}\n");
    o.push_str(&format!(
        "\\caption{{{caption}}}\n\\label{{{}}}\n\\end{{table}}\n",
        t.tex_label()
    ));
    o
}

/// Widths of the evidence dump's columns (check, point, value, bound, margin, verdict), as
/// fractions of the line: the six add up to 1, each less its two `\tabcolsep`s.
const DUMP_WIDTHS: [&str; 6] = ["0.14", "0.22", "0.26", "0.16", "0.11", "0.11"];

/// A claim's evidence table (booktabs, `\num` numbers, wrapping columns) as a
/// `longtable`, which breaks across pages and repeats its header on each; for
/// [`DUMP_PREAMBLE`].
pub fn claim_latex(r: &ClaimResult, made_by: &str) -> String {
    let c = &r.claim;
    let mut o = format!(
        "% made by: {made_by}\n% {}: {}\n% needs \\usepackage{{booktabs,siunitx,longtable,array}} and a landscape page\n",
        c.id,
        c.source_short()
    );
    let spec: String = DUMP_WIDTHS
        .iter()
        .map(|w| {
            format!(">{{\\raggedright\\arraybackslash}}p{{\\dimexpr {w}\\linewidth-2\\tabcolsep\\relax}}")
        })
        .collect();
    let head = format!("{} \\\\\n", HEADERS.join(" & "));
    o.push_str(&format!(
        "{{\\footnotesize{SISETUP}%\n\\setlength{{\\LTleft}}{{0pt}}\\setlength{{\\LTright}}{{0pt}}%\n\\begin{{longtable}}{{@{{}}{spec}@{{}}}}\n"
    ));
    // the first page's header, then the one repeated on every following page
    o.push_str(&format!("\\toprule\n{head}\\midrule\n\\endfirsthead\n"));
    o.push_str(&format!(
        "\\toprule\n{head}\\midrule\n\\endhead\n\\bottomrule\n\\endfoot\n\\bottomrule\n\\endlastfoot\n"
    ));
    for row in claim_rows(r) {
        let cells: Vec<String> = row.iter().map(|x| texify(x)).collect();
        o.push_str(&format!("{} \\\\\n", cells.join(" & ")));
    }
    o.push_str("\\end{longtable}\n}\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texify_numbers_and_words() {
        // hand-written: numbers through \num, words untouched, <= as math
        assert_eq!(texify("x <= 2.0e0"), "x $\\le$ \\num{2.0}");
        assert_eq!(texify("check1"), "check1");
        assert_eq!(texify("p=1e100"), "p=\\num{1e100}");
        assert_eq!(texify("a,b"), "a,\\allowbreak{}b");
        assert_eq!(value_tex("inf"), "$\\infty$");
        assert_eq!(
            value_tex("bp:k=1,p=1e10,alpha=1"),
            "BP($k=\\num{1}$, $p=\\num{1e10}$, $\\alpha=\\num{1}$)"
        );
    }

    #[test]
    fn every_family_gets_math_parameters() {
        // every family and parametrisation the parser accepts: no parameter falls back to
        // \mathit{name} and none is printed as raw typewriter text
        for (fam, keys) in crate::dist::spec::FAMILIES {
            let spec = keys
                .iter()
                .map(|k| match *k {
                    "file" => format!("{k}=sizes.csv"),
                    _ => format!("{k}=2"),
                })
                .collect::<Vec<_>>()
                .join(",");
            let t = value_tex(&format!("{fam}:{spec}"));
            assert!(!t.contains("\\mathit"), "{fam}: {t}");
            assert!(t.contains('('), "{fam}: {t}");
            if *fam != "empirical" {
                assert!(!t.contains("\\texttt"), "{fam}: {t}");
            }
        }
        // hand-written: the usual symbols
        assert_eq!(
            value_tex("hyperexp:mean=1,scv=16"),
            "H$_2$($m=\\num{1}$, $C^2=\\num{16}$)"
        );
        assert_eq!(
            value_tex("erlang:k=4,rate=4"),
            "Erlang($k=\\num{4}$, $\\lambda=\\num{4}$)"
        );
        assert_eq!(
            value_tex("weibull:shape=0.5,mean=1"),
            "Weibull($k=\\num{0.5}$, $m=\\num{1}$)"
        );
        assert_eq!(
            value_tex("lognormal:mean=1,scv=4"),
            "LN($m=\\num{1}$, $C^2=\\num{4}$)"
        );
        assert_eq!(value_tex("det:x=1"), "Det($x=\\num{1}$)");
        assert_eq!(value_tex("exp:rate=1"), "Exp($\\lambda=\\num{1}$)");
        // a template keeps its variable: hyperexp:mean=1,scv={scv}
        assert_eq!(
            value_tex("hyperexp:mean=1,scv={scv}"),
            "H$_2$($m=\\num{1}$, $C^2=\\mathit{scv}$)"
        );
        // not a spec: typewriter
        assert_eq!(value_tex("1:0.3 1+2:0.5"), "\\texttt{1:0.3 1+2:0.5}");
    }

    fn column(texts: &[&str], digits: usize) -> Vec<Cell> {
        texts
            .iter()
            .map(|t| Cell::Num(super::super::number::shown(t, digits).unwrap()))
            .collect()
    }

    #[test]
    fn a_column_spanning_decades_gets_an_exponent_table_format() {
        // two columns: 1e-5 .. 1e37 (exponent form) and 0.5 .. 3 (plain), 4 digits
        let wide = column(
            &["-1.0459869e-5", "0.12119951", "3.2457852e4", "1.4132214e37"],
            4,
        );
        let narrow = column(&["0.5", "1.25", "3", "2.875"], 4);
        let mut cells: Vec<Vec<Cell>> = wide
            .into_iter()
            .zip(narrow)
            .map(|(a, b)| vec![a, b])
            .collect();
        super::super::layout::exponent_columns(&mut cells);
        let col = |j: usize| cells.iter().map(|r| &r[j]).collect::<Vec<_>>();
        // mantissas -1.046, 1.212, 3.246, 1.413 (sign, 1 integer and 3 decimal places) times
        // exponents -5 .. 37 (a sign and 2 digits): siunitx's -1.3e-2
        assert_eq!(table_format(&col(0)).as_deref(), Some("-1.3e-2"));
        let shown: Vec<String> = col(0).iter().map(|c| super::super::cell_text(c)).collect();
        assert_eq!(shown, ["-1.046e-5", "1.212e-1", "3.246e4", "1.413e37"]);
        // the plain column: 1 integer place, 3 decimals, no exponent
        assert_eq!(table_format(&col(1)).as_deref(), Some("1.3"));
        let shown: Vec<String> = col(1).iter().map(|c| super::super::cell_text(c)).collect();
        assert_eq!(shown, ["0.5", "1.25", "3", "2.875"]);
        // in an S column: mantissa and exponent as siunitx input
        assert_eq!(cell_tex(&cells[3][0]), "1.413 e37");
    }
}

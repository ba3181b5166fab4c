//! The claim-file schema (TOML), as documented in `proofs-check/README.md`, and its
//! reading with errors that name the file, the line and the key.

use super::expr::{self, Expr};
use super::ClaimError;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

/// Where a statement comes from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Paper key, e.g. `BDS20`.
    pub paper: String,
    /// Seed file in `../shared/seeds/`, e.g. `000_cd45625dab727f36.txt` (the catalogue's;
    /// a claim of one's own has none).
    #[serde(default)]
    pub seed: Option<String>,
    /// The paper's words.
    pub words: String,
    /// Where in the paper (abstract, theorem, …).
    #[serde(default)]
    pub location: Option<String>,
}

/// A limit: the check applies to the extrapolated limit of the quantity along `var`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSpec {
    /// The variable that grows (or shrinks).
    pub var: Spanned<String>,
    /// Its values, in order (the last is closest to the limit).
    pub values: Spanned<Vec<Spanned<toml::Value>>>,
    /// x = t(var) → 0: `"1/ln"`, `"1/x"`, `"1/sqrt"`, or `"x"` (var → 0).
    pub transform: Spanned<String>,
    /// Polynomial degree of the extrapolation (default 2).
    #[serde(default)]
    pub degree: Option<Spanned<i64>>,
}

/// A value known from an independent source at one grid point.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedValue {
    /// The grid point (a value for each grid variable that is fixed).
    pub at: BTreeMap<String, Spanned<toml::Value>>,
    /// The value, a decimal string.
    pub value: Spanned<String>,
    /// Absolute tolerance, a decimal string.
    pub tolerance: Spanned<String>,
    /// Where the value comes from (closed form, paper, independent computation).
    pub source: String,
}

/// One check of a claim: a quantity, a relation, and optionally a grid of its own and a
/// limit.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// Short name (default `check1`, `check2`, …).
    #[serde(default)]
    pub name: Option<String>,
    /// What this check means in words.
    #[serde(default)]
    pub meaning: Option<String>,
    /// The quantity (an expression).
    pub quantity: Spanned<String>,
    /// `<=`, `<`, `>=`, `>`, `==`, `increasing`, `decreasing`, `argmax`, `argmin`,
    /// `sign_as`, `consistent`.
    pub relation: Spanned<String>,
    /// The bound (an expression; for `sign_as`, the expression whose sign is expected).
    #[serde(default)]
    pub bound: Option<Spanned<String>>,
    /// Absolute tolerance (an expression, default 0).
    #[serde(default)]
    pub tolerance: Option<Spanned<String>>,
    /// Relative tolerance (a decimal, default 0): adds rel · |bound|.
    #[serde(default)]
    pub rel_tolerance: Option<Spanned<String>>,
    /// For `increasing`/`decreasing`/`argmax`/`argmin`: the grid variable.
    #[serde(default)]
    pub along: Option<Spanned<String>>,
    /// For `argmax`/`argmin`: where the extreme is claimed to be.
    #[serde(default)]
    pub at: Option<Spanned<toml::Value>>,
    /// Grid variables of this check only (added to, or replacing, the claim's grid).
    #[serde(default)]
    pub grid: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    /// The limit taken before the relation is applied.
    #[serde(default)]
    pub limit: Option<LimitSpec>,
    /// The verdict the catalogue expects: pass (default), fail, inconclusive.
    #[serde(default)]
    pub expect: Option<Spanned<String>>,
    /// Why a verdict other than pass is expected (the evidence, in words).
    #[serde(default)]
    pub finding: Option<String>,
    /// Values from independent sources that the quantity must match.
    #[serde(default)]
    pub expected_values: Vec<ExpectedValue>,
}

/// A paper-ready table of one check's results (`[[table]]`; see
/// [`super::compile::table`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Names the files (`<id>.table-<label>.*`) and the LaTeX `\label{tab:<id>-<label>}`.
    pub label: Spanned<String>,
    /// The caption (LaTeX; `$…$` math is kept as written in Markdown).
    pub caption: Spanned<String>,
    /// The check whose results fill the cells.
    pub check: Spanned<String>,
    /// The grid variable (or list of them) whose values make the rows.
    pub rows: Spanned<toml::Value>,
    /// The grid variable (or list of them) whose values make the columns.
    #[serde(default)]
    pub columns: Option<Spanned<toml::Value>>,
    /// What a cell shows: `value`, `limit`, `verdict`, `margin`, `bound`.
    pub cell: Spanned<String>,
    /// Significant digits of the numbers (at most those certified).
    #[serde(default)]
    pub digits: Option<Spanned<i64>>,
    /// Fixed values of the grid variables that are neither rows nor columns.
    #[serde(default)]
    pub at: BTreeMap<String, Spanned<toml::Value>>,
    /// LaTeX math for a variable's header (`load = "\\rho"`), default from its name.
    #[serde(default)]
    pub math: BTreeMap<String, Spanned<String>>,
    /// Short names of row, column or fixed values (`"hyperexp:mean=1,scv=16" = "$C^2=16$"`):
    /// LaTeX, shown as written in every rendering instead of `var=value`.
    #[serde(default)]
    pub labels: BTreeMap<String, Spanned<String>>,
}

/// A claim file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimFile {
    /// Unique id (the CLAIMS.md row, plus a suffix when a row has several files).
    pub id: Spanned<String>,
    /// The CLAIMS.md row this file checks (default: the id).
    #[serde(default)]
    pub row: Option<String>,
    /// The statement as a reader would say it.
    pub statement: String,
    /// The project's interpretation where the source leaves a choice open, and why.
    pub reading: String,
    /// Where it comes from (none: an unpublished claim of the user's own).
    #[serde(default)]
    pub source: Option<Source>,
    /// Any other remark (approximations used, points left out and why).
    #[serde(default)]
    pub notes: Option<String>,
    /// Run as `check --rigorous` does: enclosures, and PROVEN where they decide.
    #[serde(default)]
    pub rigorous: Option<bool>,
    /// The system: a table whose keys belong to its model (`model = "dispatch"`, the
    /// default; see [`super::system`]), read by the model.
    #[expect(
        dead_code,
        reason = "a known key for serde; the model reads the raw [setup]"
    )]
    pub setup: toml::Table,
    /// Grid variables: each a non-empty list; the grid is their Cartesian product.
    #[serde(default)]
    pub grid: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    /// The checks (at least one).
    #[serde(rename = "check")]
    pub checks: Vec<CheckSpec>,
    /// Declared tables (none: the evidence table only).
    #[serde(default, rename = "table")]
    pub tables: Vec<TableSpec>,
}

/// 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A TOML value as a grid value (or any value written as a decimal string): a string
/// (trimmed, not empty) or an integer; a TOML float is refused, since f64 would round it.
pub fn value_text(v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        toml::Value::String(_) => Err("empty string".into()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Err(format!(
            "{f} is a TOML float: write numbers as strings (\"{f}\") so that they are read exactly, not through f64"
        )),
        other => Err(format!(
            "expected a string or an integer, got {}",
            other.type_str()
        )),
    }
}

/// The key (or table header) written on a line, for error messages.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let l = text.lines().nth(line.checked_sub(1)?)?.trim();
    if let Some(h) = l.strip_prefix('[') {
        let h = h.trim_start_matches('[');
        return Some(h.split(']').next()?.trim().to_string());
    }
    let (k, _) = l.split_once('=')?;
    let k = k.trim();
    if k.is_empty() || k.contains(' ') {
        None
    } else {
        Some(k.to_string())
    }
}

/// Builds a schema error at a byte range.
pub fn err_at(path: &str, text: &str, span: Range<usize>, key: &str, why: &str) -> ClaimError {
    ClaimError::Schema {
        path: path.to_string(),
        line: line_of(text, span.start),
        key: key.to_string(),
        why: why.to_string(),
    }
}

/// A claim or figure file's text as a raw TOML table, which keeps the keys of its grids in
/// file order (the schema types sort them); an error is the document's, at line 1.
pub fn raw_table(path: &str, text: &str) -> Result<toml::Table, ClaimError> {
    toml::from_str(text).map_err(|e| ClaimError::Schema {
        path: path.into(),
        line: 1,
        key: "(document)".into(),
        why: crate::error::toml_reason(&e, text),
    })
}

/// Parses a claim file's text.
pub fn parse_file(path: &str, text: &str) -> Result<ClaimFile, ClaimError> {
    parse_as(path, text)
}

/// Reads a claim file's text as `T`, with errors that name the line and the key.
pub fn parse_as<T: serde::de::DeserializeOwned>(path: &str, text: &str) -> Result<T, ClaimError> {
    toml::from_str::<T>(text).map_err(|e| {
        let msg = crate::error::toml_reason(&e, text);
        let (line, key) = match e.span() {
            Some(sp) => {
                let line = line_of(text, sp.start);
                // serde names the key for unknown and missing fields; else read it from the line.
                let named = msg.split('`').nth(1).filter(|_| {
                    msg.starts_with("unknown field") || msg.starts_with("missing field")
                });
                let key = named
                    .map(str::to_string)
                    .or_else(|| key_on_line(text, line))
                    .unwrap_or_else(|| "(document)".into());
                (line, key)
            }
            None => (1, "(document)".into()),
        };
        ClaimError::Schema {
            path: path.to_string(),
            line,
            key,
            why: msg,
        }
    })
}

/// A file read for its `[setup]` table only ([`FileCtx::setup`]).
#[derive(Debug, Deserialize)]
struct SetupTable<T> {
    setup: T,
}

/// A claim file being compiled: its path and text, for errors that name the file, the
/// line and the key; and the language's words, for its expressions.
pub struct FileCtx<'a> {
    path: &'a str,
    text: &'a str,
    words: Vec<&'static str>,
    /// The `[setup]` expressions a model read ([`FileCtx::setup_expr`]), with their span
    /// and key: the compiler checks their names once the system is known.
    setup_exprs: std::cell::RefCell<Vec<(Range<usize>, String, Expr)>>,
}

impl<'a> FileCtx<'a> {
    /// A file being compiled; `words` are the language's bare words
    /// ([`crate::claims::Registry::words`]).
    pub fn new(path: &'a str, text: &'a str, words: Vec<&'static str>) -> Self {
        FileCtx {
            path,
            text,
            words,
            setup_exprs: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// An error at the byte range `span`, on `key`.
    pub fn err<T>(
        &self,
        span: Range<usize>,
        key: &str,
        why: impl Into<String>,
    ) -> Result<T, ClaimError> {
        Err(err_at(self.path, self.text, span, key, &why.into()))
    }
    /// An expression of the quantity language, or an error naming `key`.
    pub fn expr(&self, s: &Spanned<String>, key: &str) -> Result<Expr, ClaimError> {
        self.parse_expr(s.get_ref())
            .or_else(|e| self.err(s.span(), key, format!("'{}': {e}", s.get_ref())))
    }
    /// An expression of a `[setup]` key (`setup.load`): parsed as [`FileCtx::expr`], and
    /// kept so that the compiler checks its names (grid variables, the model's
    /// variables, quantities) once the model's system is built.
    pub fn setup_expr(&self, s: &Spanned<String>, key: &str) -> Result<Expr, ClaimError> {
        let e = self.expr(s, key)?;
        self.note_setup_expr(s.span(), key, &e);
        Ok(e)
    }
    /// At most one of the alternative `[setup]` expression keys `keys` (such as `load`,
    /// `load_per_host`, `lambda`): the key given with its expression
    /// ([`FileCtx::setup_expr`]), `None` where none is, an error at the second one given.
    pub fn setup_one_of(
        &self,
        keys: &[(&str, &Option<Spanned<String>>)],
    ) -> Result<Option<(String, Expr)>, ClaimError> {
        let mut found = None;
        for &(k, v) in keys {
            if let Some(v) = v {
                let key = format!("setup.{k}");
                if found.is_some() {
                    let names: Vec<&str> = keys.iter().map(|&(k, _)| k).collect();
                    let why = format!("give only one of {}", names.join(", "));
                    return self.err(v.span(), &key, why);
                }
                found = Some((k.to_string(), self.setup_expr(v, &key)?));
            }
        }
        Ok(found)
    }
    /// A `[setup]` count (`setup.hosts`): an integer ≥ 1, `"inf"` (`None`) where `inf_ok`,
    /// or an expression string (kept as [`FileCtx::setup_expr`] keeps it); `wrong` is the
    /// error of any other value.
    pub fn setup_count(
        &self,
        v: &Spanned<toml::Value>,
        key: &str,
        inf_ok: bool,
        wrong: &str,
    ) -> Result<Option<Expr>, ClaimError> {
        match v.get_ref() {
            toml::Value::Integer(i) if *i >= 1 => Ok(Some(Expr::Num(i.to_string()))),
            toml::Value::String(t) if inf_ok && t.trim() == "inf" => Ok(None),
            toml::Value::String(t) => {
                let e = self.parse_expr(t).or_else(|e| self.err(v.span(), key, e))?;
                self.note_setup_expr(v.span(), key, &e);
                Ok(Some(e))
            }
            _ => self.err(v.span(), key, wrong),
        }
    }
    /// Keeps an expression a model parsed from its `[setup]` (at `span`, under `key`) for
    /// the compiler's check of its names ([`FileCtx::setup_expr`]).
    pub fn note_setup_expr(&self, span: Range<usize>, key: &str, e: &Expr) {
        self.setup_exprs
            .borrow_mut()
            .push((span, key.to_string(), e.clone()));
    }
    /// The `[setup]` expressions kept so far ([`FileCtx::setup_expr`]).
    pub(crate) fn setup_exprs(&self) -> Vec<(Range<usize>, String, Expr)> {
        self.setup_exprs.borrow().clone()
    }
    /// An expression of the quantity language, or the parser's message.
    pub fn parse_expr(&self, s: &str) -> Result<Expr, String> {
        expr::parse(s, &self.words)
    }
    /// The whole file read as `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ClaimError> {
        parse_as(self.path, self.text)
    }
    /// The file's `[setup]` table read as `T` (a model reads its keys this way, with
    /// spans; the rest of the file is left to the compiler).
    pub fn setup<T: DeserializeOwned>(&self) -> Result<T, ClaimError> {
        Ok(self.parse::<SetupTable<T>>()?.setup)
    }
    /// Every `{name}` of the template `t` (the value of `key`) is one of `vars`, the grid
    /// and limit variables.
    pub fn check_template(
        &self,
        t: &Spanned<String>,
        key: &str,
        vars: &[String],
    ) -> Result<(), ClaimError> {
        let mut rest = t.get_ref().as_str();
        while let Some(i) = rest.find('{') {
            let after = &rest[i + 1..];
            let Some(j) = after.find('}') else {
                return self.err(t.span(), key, "unclosed '{'");
            };
            let name = after[..j].trim();
            if !vars.iter().any(|v| v == name) {
                return self.err(
                    t.span(),
                    key,
                    format!("{{{name}}} is not a grid or limit variable"),
                );
            }
            rest = &after[j + 1..];
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `[setup]` with one template, as a model reads it.
    #[derive(Debug, Deserialize)]
    struct OneTemplate {
        dist: Spanned<String>,
    }

    /// The schema error for the template `dist` of a file whose grid variables are `p`
    /// and `alpha`, or `None` when the template is accepted.
    fn template_error(dist: &str) -> Option<(usize, String, String)> {
        let text = format!("[setup]\ndist = \"{dist}\"\n");
        let c = FileCtx::new("t.toml", &text, vec![]);
        let s: OneTemplate = match c.setup() {
            Ok(s) => s,
            Err(e) => return Some((0, String::new(), e.to_string())),
        };
        let vars = ["p".to_string(), "alpha".to_string()];
        match c.check_template(&s.dist, "setup.dist", &vars) {
            Ok(()) => None,
            Err(ClaimError::Schema { line, key, why, .. }) => Some((line, key, why)),
            Err(e) => Some((0, String::new(), e.to_string())),
        }
    }

    #[test]
    fn templates_name_only_grid_and_limit_variables() {
        // The rule of a `{name}` template: every name between braces is a variable of
        // the grid or the limit, and every '{' is closed; the error is on the template's
        // line (line 2 of the file above) and names its key.
        assert_eq!(template_error("bp:k=1,p={p},alpha={ alpha }"), None);
        assert_eq!(template_error("exp:rate=1"), None);
        assert_eq!(
            template_error("bp:k=1,p={q}"),
            Some((
                2,
                "setup.dist".into(),
                "{q} is not a grid or limit variable".into()
            ))
        );
        assert_eq!(
            template_error("bp:k=1,p={p"),
            Some((2, "setup.dist".into(), "unclosed '{'".into()))
        );
    }
}

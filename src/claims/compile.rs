//! From claim files to validated claims: every expression parsed, every name resolved,
//! every grid non-empty; errors name the file, the line and the key.

use super::expr::{self, Arg, Expr};
use super::registry::{registry, Positional, Signature};
use super::schema::{err_at, parse_as, parse_file, CheckSpec, ClaimFile, Source};
use super::scope::FUNCTIONS;
use super::system::SystemSpec;
use super::systems::dispatch::MODEL as DEFAULT_MODEL;
use super::verdict::{Relation, Verdict};
use super::ClaimError;
use crate::num::extrapolate::{Transform, DEFAULT_DEGREE};
use crate::num::{check_digits, parse_decimal};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

/// Default significant digits of a claim's computations (two-precision certified).
pub const DEFAULT_CLAIM_DIGITS: u32 = 20;
/// Fewest digits a claim may ask for.
pub const MIN_CLAIM_DIGITS: i64 = 5;
/// Most digits a claim may ask for (claims are meant to run in seconds).
pub const MAX_CLAIM_DIGITS: i64 = 1000;
/// Highest extrapolation degree accepted.
pub const MAX_DEGREE: i64 = 8;

/// A limit along a sequence.
#[derive(Debug, Clone)]
pub struct LimitDef {
    /// The variable.
    pub var: String,
    /// Its values (decimal strings), in order.
    pub values: Vec<String>,
    /// x = t(var) → 0.
    pub transform: Transform,
    /// Extrapolation degree.
    pub degree: usize,
}

/// An independent value the quantity must match.
#[derive(Debug, Clone)]
pub struct ExpectedDef {
    /// The point.
    pub at: BTreeMap<String, String>,
    /// The value.
    pub value: String,
    /// Absolute tolerance.
    pub tolerance: String,
    /// Where it comes from.
    pub source: String,
}

/// A validated check.
#[derive(Debug, Clone)]
pub struct Check {
    /// Name.
    pub name: String,
    /// Meaning in words.
    pub meaning: Option<String>,
    /// The quantity.
    pub quantity: Expr,
    /// As written.
    pub quantity_text: String,
    /// The relation.
    pub relation: Relation,
    /// The bound.
    pub bound: Option<Expr>,
    /// As written.
    pub bound_text: Option<String>,
    /// Absolute tolerance.
    pub tolerance: Expr,
    /// As written.
    pub tolerance_text: String,
    /// Relative tolerance (decimal).
    pub rel_tolerance: String,
    /// The variable of along-relations.
    pub along: Option<String>,
    /// Where the extreme is claimed (argmax/argmin).
    pub at: Option<String>,
    /// The grid (claim grid merged with the check's), in file order.
    pub grid: Vec<(String, Vec<String>)>,
    /// The limit.
    pub limit: Option<LimitDef>,
    /// The verdict the catalogue expects.
    pub expect: Verdict,
    /// Why a non-PASS verdict is expected.
    pub finding: Option<String>,
    /// Independent values.
    pub expected_values: Vec<ExpectedDef>,
}

/// A validated claim.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The file it came from.
    pub path: String,
    /// Id.
    pub id: String,
    /// The CLAIMS.md row.
    pub row: String,
    /// Statement.
    pub statement: String,
    /// Reading.
    pub reading: String,
    /// Source.
    pub source: Source,
    /// Notes.
    pub notes: Option<String>,
    /// The system (`[setup]`), compiled by its model.
    pub system: Arc<dyn SystemSpec>,
    /// Significant digits of the certified computation.
    pub digits: u32,
    /// The checks.
    pub checks: Vec<Check>,
    /// Declared tables (`[[table]]`).
    pub tables: Vec<table::TableDef>,
}

impl Claim {
    /// `BDS20 (seed 000_….txt)`.
    pub fn source_short(&self) -> String {
        format!("{} ({})", self.source.paper, self.source.seed)
    }
}

/// A claim file being compiled: its path and text, for errors that name the file, the
/// line and the key.
pub struct FileCtx<'a> {
    path: &'a str,
    text: &'a str,
}

impl<'a> FileCtx<'a> {
    /// A file being compiled.
    pub fn new(path: &'a str, text: &'a str) -> Self {
        FileCtx { path, text }
    }

    /// An error at the byte range `span`, on `key`.
    pub fn err<T>(
        &self,
        span: std::ops::Range<usize>,
        key: &str,
        why: impl Into<String>,
    ) -> Result<T, ClaimError> {
        Err(err_at(self.path, self.text, span, key, &why.into()))
    }
    /// An expression of the quantity language, or an error naming `key`.
    pub fn expr(&self, s: &Spanned<String>, key: &str) -> Result<Expr, ClaimError> {
        expr::parse(s.get_ref())
            .or_else(|e| self.err(s.span(), key, format!("'{}': {e}", s.get_ref())))
    }
    /// The whole file read as `T` (a model reads its `[setup]` this way, with spans).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ClaimError> {
        parse_as(self.path, self.text)
    }
}

/// The keys every `[setup]` may give, whatever its model.
#[derive(Debug, Deserialize)]
struct CommonSetup {
    #[serde(default)]
    model: Option<Spanned<String>>,
    #[serde(default)]
    digits: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
struct CommonOf {
    setup: CommonSetup,
}

fn value_text(v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => {
            if s.trim().is_empty() {
                Err("empty string".into())
            } else {
                Ok(s.trim().to_string())
            }
        }
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Err(format!(
            "{f} is a TOML float: write numbers as strings (\"{f}\") so that they are read exactly, not through f64"
        )),
        other => Err(format!("expected a string or an integer, got {}", other.type_str())),
    }
}

/// What a name in an expression may be: the names a compiled claim knows.
struct Names<'a> {
    /// Grid and limit variables of the check.
    vars: &'a [String],
    /// Every variable a call may override (the grid and limit variables of the claim and
    /// all its checks).
    overridable: &'a [String],
    /// The claim's system.
    system: &'a dyn SystemSpec,
}

fn check_names(
    c: &FileCtx,
    e: &Expr,
    span: std::ops::Range<usize>,
    key: &str,
    n: &Names,
) -> Result<(), ClaimError> {
    let mut used = Vec::new();
    expr::variables(e, &mut used);
    let words = registry().words();
    for v in used {
        if !n.vars.contains(&v)
            && !n.system.variables().contains(&v.as_str())
            && !words.contains(&v.as_str())
        {
            return c.err(
                span,
                key,
                format!(
                    "unknown name '{v}' (grid variables: {}; also {})",
                    if n.vars.is_empty() {
                        "none".to_string()
                    } else {
                        n.vars.join(", ")
                    },
                    n.system.variables().join(", ")
                ),
            );
        }
    }
    check_calls(c, e, span, key, n)
}

/// The quantity's declaration against a call as written.
fn check_call(
    sig: &Signature,
    args: &[Arg],
    field: Option<&expr::Field>,
    n: &Names,
) -> Result<(), String> {
    let name = sig.name;
    if let Some(m) = sig.model {
        if m != n.system.model() {
            return Err(format!(
                "{name}() is a quantity of the '{m}' model; this claim's [setup] is model = \"{}\"",
                n.system.model()
            ));
        }
    }
    let pos: Vec<&Arg> = args
        .iter()
        .filter(|a| !matches!(a, Arg::Named(..)))
        .collect();
    match sig.positional {
        Positional::None => {
            if !pos.is_empty() {
                return Err(format!(
                    "{name}() takes no positional argument, got '{}'",
                    pos[0]
                ));
            }
        }
        Positional::Word { what, choices } => {
            let word = match pos.as_slice() {
                [Arg::Pos(Expr::Var(w))] | [Arg::Str(w)] => w,
                _ => {
                    return Err(format!(
                        "{name}() takes one {what} ({})",
                        choices.join(", ")
                    ))
                }
            };
            if !choices.contains(&word.as_str()) {
                return Err(format!(
                    "unknown {what} '{word}' for {name} ({})",
                    choices.join(", ")
                ));
            }
        }
        Positional::Number { what } => {
            if !matches!(pos.as_slice(), [Arg::Pos(_)]) {
                return Err(format!("{name}({what}) takes one number, {what}"));
            }
        }
    }
    for a in args {
        if let Arg::Named(k, v) = a {
            if matches!(v.as_ref(), Arg::Named(..)) {
                return Err(format!("nested '=' in {name}()"));
            }
            let own = sig.named.iter().find(|x| x.name == k.as_str());
            if let Some(own) = own {
                if let Arg::Pos(Expr::Var(w)) = v.as_ref() {
                    if !own.words.is_empty()
                        && !own.words.contains(&w.as_str())
                        && !n.vars.contains(w)
                    {
                        return Err(format!(
                            "{name}({k}={w}): {k}= takes {} or a string",
                            own.words.join(", ")
                        ));
                    }
                }
                continue;
            }
            if !n.system.keys().contains(&k.as_str()) && !n.overridable.contains(k) {
                let own: Vec<&str> = sig.named.iter().map(|x| x.name).collect();
                return Err(format!(
                    "{name}() has no argument '{k}' (its own: {}; setup keys: {}; or a grid variable)",
                    if own.is_empty() { "none".to_string() } else { own.join(", ") },
                    n.system.keys().join(", ")
                ));
            }
        }
    }
    if let Some(f) = field {
        let Some(spec) = sig.field(&f.name) else {
            return Err(format!(
                "{name}() has no field '{}' ({})",
                f.name,
                sig.fields_shown()
            ));
        };
        match (spec.indexed, f.index) {
            (true, None) => {
                return Err(format!(
                    "{name}().{0} needs an index: {0}[1] is the first, {0}[-1] the last",
                    f.name
                ))
            }
            (false, Some(_)) => {
                return Err(format!(
                    "{name}().{} is a number: it takes no index",
                    f.name
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_calls(
    c: &FileCtx,
    e: &Expr,
    span: std::ops::Range<usize>,
    key: &str,
    n: &Names,
) -> Result<(), ClaimError> {
    match e {
        Expr::Call { name, args, field } => {
            if FUNCTIONS.contains(&name.as_str()) {
                if field.is_some() {
                    return c.err(span, key, format!("{name}() has no fields"));
                }
            } else {
                let reg = registry();
                let Some(q) = reg.get(name) else {
                    return c.err(
                        span,
                        key,
                        format!(
                            "unknown function '{name}' (quantities: {}; functions: {})",
                            reg.names().join(", "),
                            FUNCTIONS.join(", ")
                        ),
                    );
                };
                check_call(q.signature(), args, field.as_ref(), n)
                    .or_else(|why| c.err(span.clone(), key, why))?;
            }
            for a in args {
                let inner = match a {
                    expr::Arg::Named(_, v) => v.as_ref(),
                    other => other,
                };
                if let expr::Arg::Pos(x) = inner {
                    check_calls(c, x, span.clone(), key, n)?;
                }
            }
            Ok(())
        }
        Expr::Neg(a) => check_calls(c, a, span, key, n),
        Expr::Bin(_, a, b) => {
            check_calls(c, a, span.clone(), key, n)?;
            check_calls(c, b, span, key, n)
        }
        _ => Ok(()),
    }
}

/// Ordered keys of `[grid]` tables as written (the schema types sort them).
fn grid_order(raw: &toml::Table, check: Option<usize>) -> Vec<String> {
    let t = match check {
        None => raw.get("grid"),
        Some(i) => raw
            .get("check")
            .and_then(|c| c.as_array())
            .and_then(|a| a.get(i))
            .and_then(|c| c.get("grid")),
    };
    t.and_then(|g| g.as_table())
        .map(|g| g.keys().cloned().collect())
        .unwrap_or_default()
}

/// Whether a grid variable may not take the name `k`: a word of the language or a name
/// some model gives a value at every point (`rho`, `lambda`, `hosts`).
fn reserved_name(k: &str) -> bool {
    let r = registry();
    r.words().contains(&k) || r.model_variables().contains(&k)
}

type GridSpec = BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>;

fn compile_grid(
    c: &FileCtx,
    g: &GridSpec,
    order: &[String],
) -> Result<Vec<(String, Vec<String>)>, ClaimError> {
    let mut out = Vec::new();
    let mut keys: Vec<&String> = order.iter().filter(|k| g.contains_key(*k)).collect();
    for k in g.keys() {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for k in keys {
        let vals = &g[k];
        if vals.get_ref().is_empty() {
            return c.err(
                vals.span(),
                &format!("grid.{k}"),
                "empty grid: give at least one value",
            );
        }
        if reserved_name(k) {
            return c.err(
                vals.span(),
                &format!("grid.{k}"),
                format!("'{k}' is a reserved name; choose another variable name"),
            );
        }
        let mut vs = Vec::new();
        for v in vals.get_ref() {
            let t =
                value_text(v.get_ref()).or_else(|e| c.err(v.span(), &format!("grid.{k}"), e))?;
            if vs.contains(&t) {
                return c.err(
                    v.span(),
                    &format!("grid.{k}"),
                    format!("value {t} appears twice"),
                );
            }
            vs.push(t);
        }
        out.push((k.clone(), vs));
    }
    Ok(out)
}

fn compile_check(
    c: &FileCtx,
    cs: &CheckSpec,
    idx: usize,
    claim_grid: &[(String, Vec<String>)],
    raw: &toml::Table,
    system: &dyn SystemSpec,
    overridable: &[String],
) -> Result<Check, ClaimError> {
    let own = compile_grid(c, &cs.grid, &grid_order(raw, Some(idx)))?;
    let mut grid: Vec<(String, Vec<String>)> = claim_grid.to_vec();
    for (k, v) in own {
        if let Some(slot) = grid.iter_mut().find(|(n, _)| *n == k) {
            slot.1 = v;
        } else {
            grid.push((k, v));
        }
    }
    let limit = match &cs.limit {
        None => None,
        Some(l) => {
            let var = l.var.get_ref().trim().to_string();
            if grid.iter().any(|(k, _)| *k == var) {
                return c.err(l.var.span(), "limit.var", format!("'{var}' is also a grid variable: the limit variable takes the values of limit.values only"));
            }
            if l.values.get_ref().len() < 2 {
                return c.err(
                    l.values.span(),
                    "limit.values",
                    "a limit needs at least two values (the sequence to extrapolate)",
                );
            }
            let mut values = Vec::new();
            for v in l.values.get_ref() {
                let t = value_text(v.get_ref()).or_else(|e| c.err(v.span(), "limit.values", e))?;
                parse_decimal(&t, 64)
                    .or_else(|e| c.err(v.span(), "limit.values", e.to_string()))?;
                values.push(t);
            }
            let transform = Transform::parse(l.transform.get_ref()).map_or_else(
                || {
                    c.err(
                        l.transform.span(),
                        "limit.transform",
                        format!(
                            "unknown transform '{}' (1/ln, 1/x, 1/sqrt, x)",
                            l.transform.get_ref()
                        ),
                    )
                },
                Ok,
            )?;
            let degree = match &l.degree {
                None => DEFAULT_DEGREE,
                Some(d) => {
                    if !(0..=MAX_DEGREE).contains(d.get_ref()) {
                        return c.err(
                            d.span(),
                            "limit.degree",
                            format!("degree must be between 0 and {MAX_DEGREE}"),
                        );
                    }
                    *d.get_ref() as usize
                }
            };
            Some(LimitDef {
                var,
                values,
                transform,
                degree,
            })
        }
    };
    let mut vars: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    if let Some(l) = &limit {
        vars.push(l.var.clone());
    }
    let names = Names {
        vars: &vars,
        overridable,
        system,
    };
    let quantity = c.expr(&cs.quantity, "quantity")?;
    check_names(c, &quantity, cs.quantity.span(), "quantity", &names)?;
    let relation = Relation::parse(cs.relation.get_ref()).map_or_else(
        || c.err(cs.relation.span(), "relation", format!("unknown relation '{}' (<=, <, >=, >, ==, sign_as, consistent, increasing, decreasing, argmax, argmin)", cs.relation.get_ref())),
        Ok,
    )?;
    let bound = match &cs.bound {
        Some(b) => {
            let e = c.expr(b, "bound")?;
            check_names(c, &e, b.span(), "bound", &names)?;
            Some(e)
        }
        None => None,
    };
    if bound.is_none() && !relation.is_along() {
        return c.err(
            cs.relation.span(),
            "bound",
            format!("relation '{}' needs a bound", relation.name()),
        );
    }
    let (tolerance, tolerance_text) = match &cs.tolerance {
        Some(t) => {
            let e = c.expr(t, "tolerance")?;
            check_names(c, &e, t.span(), "tolerance", &names)?;
            (e, t.get_ref().clone())
        }
        None => (Expr::Num("0".into()), "0".into()),
    };
    if relation == Relation::Consistent && cs.tolerance.is_none() && cs.rel_tolerance.is_none() {
        return c.err(
            cs.relation.span(),
            "tolerance",
            "relation 'consistent' needs `tolerance`: the widest half-width that counts as resolving a difference (a wider interval is INCONCLUSIVE)",
        );
    }
    let rel_tolerance = match &cs.rel_tolerance {
        Some(t) => {
            parse_decimal(t.get_ref(), 64)
                .or_else(|e| c.err(t.span(), "rel_tolerance", e.to_string()))?;
            t.get_ref().trim().to_string()
        }
        None => "0".into(),
    };
    let along = match (&cs.along, relation.is_along()) {
        (Some(a), true) => {
            let a_name = a.get_ref().trim().to_string();
            if !grid.iter().any(|(k, _)| *k == a_name) {
                return c.err(
                    a.span(),
                    "along",
                    format!("'{a_name}' is not a grid variable"),
                );
            }
            Some(a_name)
        }
        (None, true) => {
            return c.err(
                cs.relation.span(),
                "along",
                format!("relation '{}' needs `along = \"VAR\"`", relation.name()),
            )
        }
        (Some(a), false) => {
            return c.err(
                a.span(),
                "along",
                format!("relation '{}' takes no `along`", relation.name()),
            )
        }
        (None, false) => None,
    };
    let at = match (&cs.at, relation) {
        (Some(v), Relation::Argmax | Relation::Argmin) => {
            let t = value_text(v.get_ref()).or_else(|e| c.err(v.span(), "at", e))?;
            let along_vals = along
                .as_ref()
                .and_then(|a| grid.iter().find(|(k, _)| k == a))
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            if !along_vals.contains(&t) {
                return c.err(
                    v.span(),
                    "at",
                    format!(
                        "{t} is not one of the values of the along variable ({})",
                        along_vals.join(", ")
                    ),
                );
            }
            Some(t)
        }
        (None, Relation::Argmax | Relation::Argmin) => {
            return c.err(
                cs.relation.span(),
                "at",
                "argmax/argmin need `at` (where the extreme is claimed)",
            )
        }
        (Some(v), _) => return c.err(v.span(), "at", "only argmax/argmin take `at`"),
        (None, _) => None,
    };
    let expect = match &cs.expect {
        None => Verdict::Pass,
        Some(e) => match e.get_ref().trim().to_ascii_lowercase().as_str() {
            "pass" => Verdict::Pass,
            "fail" => Verdict::Fail,
            "inconclusive" => Verdict::Inconclusive,
            other => {
                return c.err(
                    e.span(),
                    "expect",
                    format!("'{other}' is not pass, fail or inconclusive"),
                )
            }
        },
    };
    if expect != Verdict::Pass && cs.finding.as_deref().is_none_or(|f| f.trim().is_empty()) {
        let sp = cs.expect.as_ref().map(|e| e.span()).unwrap_or(0..0);
        return c.err(
            sp,
            "finding",
            "a check expected not to pass must say why in `finding` (the evidence)",
        );
    }
    let mut expected_values = Vec::new();
    for ev in &cs.expected_values {
        if limit.is_some() {
            return c.err(
                ev.value.span(),
                "expected_values",
                "expected_values are not available in limit checks",
            );
        }
        let mut at = BTreeMap::new();
        for (k, v) in &ev.at {
            if !vars.contains(k) {
                return c.err(
                    v.span(),
                    "expected_values.at",
                    format!("'{k}' is not a grid variable"),
                );
            }
            at.insert(
                k.clone(),
                value_text(v.get_ref()).or_else(|e| c.err(v.span(), "expected_values.at", e))?,
            );
        }
        for v in &vars {
            if !at.contains_key(v) {
                return c.err(
                    ev.value.span(),
                    "expected_values.at",
                    format!("the point must give every grid variable; '{v}' is missing"),
                );
            }
        }
        parse_decimal(ev.value.get_ref(), 64)
            .or_else(|e| c.err(ev.value.span(), "expected_values.value", e.to_string()))?;
        parse_decimal(ev.tolerance.get_ref(), 64).or_else(|e| {
            c.err(
                ev.tolerance.span(),
                "expected_values.tolerance",
                e.to_string(),
            )
        })?;
        expected_values.push(ExpectedDef {
            at,
            value: ev.value.get_ref().trim().to_string(),
            tolerance: ev.tolerance.get_ref().trim().to_string(),
            source: ev.source.clone(),
        });
    }
    Ok(Check {
        name: cs
            .name
            .clone()
            .unwrap_or_else(|| format!("check{}", idx + 1)),
        meaning: cs.meaning.clone(),
        quantity_text: cs.quantity.get_ref().clone(),
        quantity,
        relation,
        bound_text: cs.bound.as_ref().map(|b| b.get_ref().clone()),
        bound,
        tolerance,
        tolerance_text,
        rel_tolerance,
        along,
        at,
        grid,
        limit,
        expect,
        finding: cs.finding.clone(),
        expected_values,
    })
}

/// The `[setup]` of a claim or figure file: its model's spec and the digits. `vars` are
/// the names its templates may use.
fn compile_system(c: &FileCtx, vars: &[String]) -> Result<(Arc<dyn SystemSpec>, u32), ClaimError> {
    let common = c.parse::<CommonOf>()?.setup;
    let model_name = common
        .model
        .as_ref()
        .map_or(DEFAULT_MODEL.to_string(), |m| {
            m.get_ref().trim().to_string()
        });
    let reg = registry();
    let Some(model) = reg.get_model(&model_name) else {
        let sp = common.model.as_ref().map(|m| m.span()).unwrap_or(0..0);
        return c.err(
            sp,
            "setup.model",
            format!(
                "unknown model '{model_name}' ({})",
                reg.model_names().join(", ")
            ),
        );
    };
    let system: Arc<dyn SystemSpec> = Arc::from(model.compile(c, vars)?);
    let digits = match &common.digits {
        None => DEFAULT_CLAIM_DIGITS,
        Some(d) => {
            if !(MIN_CLAIM_DIGITS..=MAX_CLAIM_DIGITS).contains(d.get_ref()) {
                return c.err(
                    d.span(),
                    "setup.digits",
                    format!("digits must be between {MIN_CLAIM_DIGITS} and {MAX_CLAIM_DIGITS}"),
                );
            }
            check_digits(*d.get_ref())
                .or_else(|e| c.err(d.span(), "setup.digits", e.to_string()))?
        }
    };
    Ok((system, digits))
}

/// Validates a parsed claim file.
pub fn compile(path: &str, text: &str) -> Result<Claim, ClaimError> {
    let f: ClaimFile = parse_file(path, text)?;
    let raw: toml::Table = toml::from_str(text).map_err(|e| ClaimError::Schema {
        path: path.into(),
        line: 1,
        key: "(document)".into(),
        why: e.message().to_string(),
    })?;
    let c = FileCtx { path, text };
    let id = f.id.get_ref().trim().to_string();
    if id.is_empty()
        || !id
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-' || ch == '_')
    {
        return c.err(
            f.id.span(),
            "id",
            "the id must be non-empty lowercase letters, digits, '-' or '_'",
        );
    }
    for (k, v) in [
        ("source.paper", &f.source.paper),
        ("source.seed", &f.source.seed),
        ("source.words", &f.source.words),
        ("statement", &f.statement),
        ("reading", &f.reading),
    ] {
        if v.trim().is_empty() {
            return c.err(f.id.span(), k, "must not be empty");
        }
    }
    let grid = compile_grid(&c, &f.grid, &grid_order(&raw, None))?;
    // The names a template or an override may use: the grid and limit variables of the
    // claim and of every check.
    let mut vars: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    for ch in &f.checks {
        for k in ch.grid.keys() {
            if !vars.contains(k) {
                vars.push(k.clone());
            }
        }
        if let Some(l) = &ch.limit {
            let v = l.var.get_ref().trim().to_string();
            if !vars.contains(&v) {
                vars.push(v);
            }
        }
    }
    let (system, digits) = compile_system(&c, &vars)?;
    if f.checks.is_empty() {
        return c.err(f.id.span(), "check", "a claim needs at least one [[check]]");
    }
    let mut checks = Vec::new();
    for (i, cs) in f.checks.iter().enumerate() {
        checks.push(compile_check(
            &c,
            cs,
            i,
            &grid,
            &raw,
            system.as_ref(),
            &vars,
        )?);
    }
    let mut names: Vec<&str> = Vec::new();
    for ch in &checks {
        if names.contains(&ch.name.as_str()) {
            return c.err(
                f.id.span(),
                "check.name",
                format!("two checks are named '{}'", ch.name),
            );
        }
        names.push(&ch.name);
    }
    let tables = table::compile_tables(&c, &f.tables, &checks)?;
    Ok(Claim {
        path: path.to_string(),
        row: f.row.clone().unwrap_or_else(|| id.clone()),
        id,
        statement: f.statement.trim().to_string(),
        reading: f.reading.trim().to_string(),
        source: f.source.clone(),
        notes: f.notes.as_ref().map(|n| n.trim().to_string()),
        system,
        digits,
        checks,
        tables,
    })
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), ClaimError> {
    let io = |e: std::io::Error| ClaimError::Io {
        path: p.display().to_string(),
        why: e.to_string(),
    };
    let md = std::fs::metadata(p).map_err(io)?;
    if md.is_file() {
        out.push(p.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "toml") {
            out.push(e);
        }
    }
    Ok(())
}

/// Reads every `*.toml` under the given files and folders (sorted, recursively) and
/// validates them. The first malformed file is the error.
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<Claim>, ClaimError> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    let mut claims: Vec<Claim> = Vec::new();
    for f in files {
        let path = f.display().to_string();
        let text = std::fs::read_to_string(&f).map_err(|e| ClaimError::Io {
            path: path.clone(),
            why: e.to_string(),
        })?;
        let c = compile(&path, &text)?;
        if let Some(o) = claims.iter().find(|o| o.id == c.id) {
            return Err(ClaimError::DuplicateId {
                path,
                id: c.id,
                other: o.path.clone(),
            });
        }
        claims.push(c);
    }
    Ok(claims)
}

mod figure;
mod sweep_quantity;
pub mod table;

pub(crate) use figure::compile_figure_parts;
pub use sweep_quantity::compile_quantity;

//! From claim files to validated claims: every expression parsed, every name resolved,
//! every grid non-empty; errors name the file, the line and the key.

use super::compute::{parse_metric, SetupDef, FUNCTIONS, QUANTITIES};
use super::expr::{self, Expr};
use super::extrapolate::{Transform, DEFAULT_DEGREE};
use super::run::Verdict;
use super::schema::{err_at, parse_file, CheckSpec, ClaimFile, Source};
use super::ClaimError;
use crate::num::{check_digits, parse_decimal};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Default significant digits of a claim's computations (two-precision certified).
pub const DEFAULT_CLAIM_DIGITS: u32 = 20;
/// Fewest digits a claim may ask for.
pub const MIN_CLAIM_DIGITS: i64 = 5;
/// Most digits a claim may ask for (claims are meant to run in seconds).
pub const MAX_CLAIM_DIGITS: i64 = 1000;
/// Highest extrapolation degree accepted.
pub const MAX_DEGREE: i64 = 8;

/// The relation a check asserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// quantity ≤ bound (+ tolerance).
    Le,
    /// quantity < bound.
    Lt,
    /// quantity ≥ bound (− tolerance).
    Ge,
    /// quantity > bound.
    Gt,
    /// |quantity − bound| ≤ tolerance.
    Eq,
    /// sign(quantity) = sign(bound), with |quantity| ≤ tolerance counting as zero.
    SignAs,
    /// The quantity's interval (value ± its uncertainty: a simulation's 95 % half-width)
    /// contains the bound, and is at most `tolerance` wide on each side.
    Consistent,
    /// Non-decreasing along a grid variable (steps ≥ −tolerance).
    Increasing,
    /// Non-increasing along a grid variable.
    Decreasing,
    /// The largest value along a variable is at `at`.
    Argmax,
    /// The smallest value along a variable is at `at`.
    Argmin,
}

impl Relation {
    fn parse(s: &str) -> Option<Self> {
        Some(match s.trim() {
            "<=" => Relation::Le,
            "<" => Relation::Lt,
            ">=" => Relation::Ge,
            ">" => Relation::Gt,
            "==" | "=" => Relation::Eq,
            "sign_as" => Relation::SignAs,
            "consistent" => Relation::Consistent,
            "increasing" => Relation::Increasing,
            "decreasing" => Relation::Decreasing,
            "argmax" => Relation::Argmax,
            "argmin" => Relation::Argmin,
            _ => return None,
        })
    }
    /// The schema's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Relation::Le => "<=",
            Relation::Lt => "<",
            Relation::Ge => ">=",
            Relation::Gt => ">",
            Relation::Eq => "==",
            Relation::SignAs => "sign_as",
            Relation::Consistent => "consistent",
            Relation::Increasing => "increasing",
            Relation::Decreasing => "decreasing",
            Relation::Argmax => "argmax",
            Relation::Argmin => "argmin",
        }
    }
    /// Whether the relation compares values along a variable.
    pub fn is_along(self) -> bool {
        matches!(
            self,
            Relation::Increasing | Relation::Decreasing | Relation::Argmax | Relation::Argmin
        )
    }
}

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
    /// The system.
    pub setup: SetupDef,
    /// The checks.
    pub checks: Vec<Check>,
}

impl Claim {
    /// `BDS20 (seed 000_….txt)`.
    pub fn source_short(&self) -> String {
        format!("{} ({})", self.source.paper, self.source.seed)
    }
}

struct Ctx<'a> {
    path: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err<T>(
        &self,
        span: std::ops::Range<usize>,
        key: &str,
        why: impl Into<String>,
    ) -> Result<T, ClaimError> {
        Err(err_at(self.path, self.text, span, key, &why.into()))
    }
    fn expr(&self, s: &Spanned<String>, key: &str) -> Result<Expr, ClaimError> {
        expr::parse(s.get_ref())
            .or_else(|e| self.err(s.span(), key, format!("'{}': {e}", s.get_ref())))
    }
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

/// Names an expression may use besides grid variables.
const BUILTIN_NAMES: &[&str] = &[
    "hosts",
    "rho",
    "lambda",
    "inf",
    "sita",
    "sita-e",
    "tags",
    "tags-minmax",
    "random",
    "balanced",
    "waiting",
    "response",
    "slowdown",
];

fn check_names(
    c: &Ctx,
    e: &Expr,
    span: std::ops::Range<usize>,
    key: &str,
    vars: &[String],
) -> Result<(), ClaimError> {
    let mut used = Vec::new();
    expr::variables(e, &mut used);
    for v in used {
        if !vars.contains(&v) && !BUILTIN_NAMES.contains(&v.as_str()) {
            return c.err(
                span,
                key,
                format!(
                    "unknown name '{v}' (grid variables: {}; also hosts, rho, lambda)",
                    if vars.is_empty() {
                        "none".to_string()
                    } else {
                        vars.join(", ")
                    }
                ),
            );
        }
    }
    check_calls(c, e, span, key)
}

fn check_calls(
    c: &Ctx,
    e: &Expr,
    span: std::ops::Range<usize>,
    key: &str,
) -> Result<(), ClaimError> {
    match e {
        Expr::Call { name, args, .. } => {
            if !QUANTITIES.contains(&name.as_str()) && !FUNCTIONS.contains(&name.as_str()) {
                return c.err(
                    span,
                    key,
                    format!(
                        "unknown function '{name}' (quantities: {}; functions: {})",
                        QUANTITIES.join(", "),
                        FUNCTIONS.join(", ")
                    ),
                );
            }
            for a in args {
                let inner = match a {
                    expr::Arg::Named(_, v) => v.as_ref(),
                    other => other,
                };
                if let expr::Arg::Pos(x) = inner {
                    check_calls(c, x, span.clone(), key)?;
                }
            }
            Ok(())
        }
        Expr::Neg(a) => check_calls(c, a, span, key),
        Expr::Bin(_, a, b) => {
            check_calls(c, a, span.clone(), key)?;
            check_calls(c, b, span, key)
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

type GridSpec = BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>;

fn compile_grid(
    c: &Ctx,
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
        if BUILTIN_NAMES.contains(&k.as_str()) && k != "hosts" {
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
    c: &Ctx,
    cs: &CheckSpec,
    idx: usize,
    claim_grid: &[(String, Vec<String>)],
    raw: &toml::Table,
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
    let quantity = c.expr(&cs.quantity, "quantity")?;
    check_names(c, &quantity, cs.quantity.span(), "quantity", &vars)?;
    let relation = Relation::parse(cs.relation.get_ref()).map_or_else(
        || c.err(cs.relation.span(), "relation", format!("unknown relation '{}' (<=, <, >=, >, ==, sign_as, consistent, increasing, decreasing, argmax, argmin)", cs.relation.get_ref())),
        Ok,
    )?;
    let bound = match &cs.bound {
        Some(b) => {
            let e = c.expr(b, "bound")?;
            check_names(c, &e, b.span(), "bound", &vars)?;
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
            check_names(c, &e, t.span(), "tolerance", &vars)?;
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

/// Validates a parsed claim file.
pub fn compile(path: &str, text: &str) -> Result<Claim, ClaimError> {
    let f: ClaimFile = parse_file(path, text)?;
    let raw: toml::Table = toml::from_str(text).map_err(|e| ClaimError::Schema {
        path: path.into(),
        line: 1,
        key: "(document)".into(),
        why: e.message().to_string(),
    })?;
    let c = Ctx { path, text };
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
    let vars: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    let s = &f.setup;
    // dist template names
    {
        let t = s.dist.get_ref();
        let mut rest = t.as_str();
        while let Some(i) = rest.find('{') {
            let after = &rest[i + 1..];
            let Some(j) = after.find('}') else {
                return c.err(s.dist.span(), "setup.dist", "unclosed '{'");
            };
            let name = after[..j].trim();
            let in_checks = f.checks.iter().any(|ch| {
                ch.grid.contains_key(name)
                    || ch.limit.as_ref().is_some_and(|l| l.var.get_ref() == name)
            });
            if !vars.iter().any(|v| v == name) && !in_checks {
                return c.err(
                    s.dist.span(),
                    "setup.dist",
                    format!("{{{name}}} is not a grid or limit variable"),
                );
            }
            rest = &after[j + 1..];
        }
    }
    let hosts =
        match &s.hosts {
            None => None,
            Some(h) => match h.get_ref() {
                toml::Value::Integer(i) if *i >= 1 => Some(Expr::Num(i.to_string())),
                toml::Value::String(t) if t.trim() == "inf" => None,
                toml::Value::String(t) => {
                    let e = expr::parse(t).or_else(|e| c.err(h.span(), "setup.hosts", e))?;
                    Some(e)
                }
                _ => return c.err(
                    h.span(),
                    "setup.hosts",
                    "hosts must be an integer ≥ 1, \"inf\", or an expression string such as \"h\"",
                ),
            },
        };
    let mut load = None;
    for (k, v) in [
        ("load", &s.load),
        ("load_per_host", &s.load_per_host),
        ("lambda", &s.lambda),
    ] {
        if let Some(v) = v {
            if load.is_some() {
                return c.err(
                    v.span(),
                    &format!("setup.{k}"),
                    "give only one of load, load_per_host, lambda",
                );
            }
            load = Some((k.to_string(), c.expr(v, &format!("setup.{k}"))?));
        }
    }
    let metric = match &s.metric {
        None => crate::policy::Metric::Waiting,
        Some(m) => parse_metric(m.get_ref()).or_else(|e| c.err(m.span(), "setup.metric", e))?,
    };
    let digits = match &s.digits {
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
    if f.checks.is_empty() {
        return c.err(f.id.span(), "check", "a claim needs at least one [[check]]");
    }
    let mut checks = Vec::new();
    for (i, cs) in f.checks.iter().enumerate() {
        checks.push(compile_check(&c, cs, i, &grid, &raw)?);
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
    Ok(Claim {
        path: path.to_string(),
        row: f.row.clone().unwrap_or_else(|| id.clone()),
        id,
        statement: f.statement.trim().to_string(),
        reading: f.reading.trim().to_string(),
        source: f.source.clone(),
        notes: f.notes.as_ref().map(|n| n.trim().to_string()),
        setup: SetupDef {
            dist: s.dist.get_ref().clone(),
            hosts,
            load,
            metric,
            digits,
        },
        checks,
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

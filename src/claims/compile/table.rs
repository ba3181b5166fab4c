//! `[[table]]` blocks: a paper-ready table of one check's results, validated against the
//! check (its name, its grid and limit variables, the cell kinds its relation supports);
//! errors name the file, the line and the key. The layout and rendering are
//! `report::table`'s.

use super::{value_text, Check, FileCtx};
use crate::claims::schema::TableSpec;
use crate::claims::verdict::Relation;
use crate::claims::ClaimError;
use std::collections::BTreeMap;
use toml::Spanned;

/// Default significant digits of a table's numbers.
pub const DEFAULT_TABLE_DIGITS: u32 = 8;
/// Fewest digits a table may ask for.
pub const MIN_TABLE_DIGITS: i64 = 1;

/// What a cell shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// The certified value at the point (a simulated value with its 95 % half-width).
    Value,
    /// The extrapolated limit with its error estimate.
    Limit,
    /// The verdict of the comparison at the point.
    Verdict,
    /// The margin of the comparison at the point (positive when the relation holds).
    Margin,
    /// The bound the quantity is compared with at the point.
    Bound,
}

impl CellKind {
    /// The kinds, as written in a claim file.
    pub const NAMES: [&'static str; 5] = ["value", "limit", "verdict", "margin", "bound"];

    /// As written in a claim file.
    pub fn name(self) -> &'static str {
        match self {
            CellKind::Value => "value",
            CellKind::Limit => "limit",
            CellKind::Verdict => "verdict",
            CellKind::Margin => "margin",
            CellKind::Bound => "bound",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "value" => CellKind::Value,
            "limit" => CellKind::Limit,
            "verdict" => CellKind::Verdict,
            "margin" => CellKind::Margin,
            "bound" => CellKind::Bound,
            _ => return None,
        })
    }
}

/// A validated table declaration.
#[derive(Debug, Clone)]
pub struct TableDef {
    /// Names the files and the LaTeX label.
    pub label: String,
    /// The caption (LaTeX).
    pub caption: String,
    /// The check's name.
    pub check: String,
    /// The row variables and their values, in grid order.
    pub rows: Vec<(String, Vec<String>)>,
    /// The column variables and their values (none: one column).
    pub columns: Vec<(String, Vec<String>)>,
    /// Fixed values of the other variables (those with one value included).
    pub at: Vec<(String, String)>,
    /// What a cell shows.
    pub cell: CellKind,
    /// Significant digits.
    pub digits: u32,
    /// LaTeX math of variables' headers.
    pub math: BTreeMap<String, String>,
    /// Short names (LaTeX) of row, column or fixed values, by value.
    pub labels: BTreeMap<String, String>,
}

/// A list of variable names: one string or an array of strings.
fn names(
    c: &FileCtx,
    v: &Spanned<toml::Value>,
    key: &str,
) -> Result<Vec<(String, std::ops::Range<usize>)>, ClaimError> {
    let sp = v.span();
    let one = |x: &toml::Value| match x {
        toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        _ => Err(()),
    };
    let out: Vec<String> = match v.get_ref() {
        toml::Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(one)
            .collect::<Result<_, _>>()
            .or_else(|_| c.err(sp.clone(), key, "give variable names as strings"))?,
        x => vec![one(x).or_else(|_| {
            c.err(
                sp.clone(),
                key,
                "give a grid variable (\"alpha\") or a non-empty list of them",
            )
        })?],
    };
    Ok(out.into_iter().map(|n| (n, sp.clone())).collect())
}

/// The variables a table of `check` may lay out for `cell`, with their values.
fn variables(check: &Check, cell: CellKind) -> Vec<(String, Vec<String>)> {
    let mut vars = check.grid.clone();
    if cell == CellKind::Value {
        if let Some(l) = &check.limit {
            vars.push((l.var.clone(), l.values.clone()));
        }
    }
    vars
}

fn one_table(c: &FileCtx, t: &TableSpec, checks: &[Check]) -> Result<TableDef, ClaimError> {
    let label = t.label.get_ref().trim().to_string();
    if label.is_empty()
        || !label
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
    {
        return c.err(
            t.label.span(),
            "table.label",
            "a table label must be non-empty lowercase letters, digits or '-'",
        );
    }
    if t.caption.get_ref().trim().is_empty() {
        return c.err(t.caption.span(), "table.caption", "must not be empty");
    }
    let name = t.check.get_ref().trim();
    let Some(check) = checks.iter().find(|k| k.name == name) else {
        let all: Vec<&str> = checks.iter().map(|k| k.name.as_str()).collect();
        return c.err(
            t.check.span(),
            "table.check",
            format!("no check named '{name}' (checks: {})", all.join(", ")),
        );
    };
    let cell_name = t.cell.get_ref().trim();
    let Some(cell) = CellKind::parse(cell_name) else {
        return c.err(
            t.cell.span(),
            "table.cell",
            format!(
                "unknown cell '{cell_name}' ({})",
                CellKind::NAMES.join(", ")
            ),
        );
    };
    let why_not = match cell {
        CellKind::Limit if check.limit.is_none() => {
            Some(format!("check '{name}' takes no limit: use cell = \"value\""))
        }
        CellKind::Verdict | CellKind::Margin | CellKind::Bound if check.relation.is_along() => {
            Some(format!(
                "check '{name}' compares points along '{}', not at one point: its cells can only be values",
                check.along.as_deref().unwrap_or("")
            ))
        }
        CellKind::Bound
            if matches!(check.relation, Relation::SignAs | Relation::Consistent) =>
        {
            Some(format!(
                "check '{name}' ({}) compares with no numeric bound",
                check.relation.name()
            ))
        }
        _ => None,
    };
    if let Some(why) = why_not {
        return c.err(t.cell.span(), "table.cell", why);
    }
    let vars = variables(check, cell);
    let known = |n: &str| vars.iter().find(|(k, _)| k == n);
    let list = |n: &str| {
        vars.iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| *k != n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut used: Vec<String> = Vec::new();
    let axis = |spec: &Spanned<toml::Value>,
                key: &str,
                used: &mut Vec<String>|
     -> Result<Vec<(String, Vec<String>)>, ClaimError> {
        let mut out = Vec::new();
        for (n, sp) in names(c, spec, key)? {
            let Some((_, vals)) = known(&n) else {
                let limit_note = match &check.limit {
                    Some(l) if l.var == n => {
                        " (the limit variable: only cell = \"value\" lays out its sequence)"
                    }
                    _ => "",
                };
                return c.err(
                    sp,
                    key,
                    format!(
                        "'{n}' is not a grid variable of check '{name}'{limit_note} (its variables: {})",
                        list("")
                    ),
                );
            };
            if used.contains(&n) {
                return c.err(sp, key, format!("'{n}' is laid out twice"));
            }
            used.push(n.clone());
            out.push((n, vals.clone()));
        }
        Ok(out)
    };
    let rows = axis(&t.rows, "table.rows", &mut used)?;
    let columns = match &t.columns {
        Some(cs) => axis(cs, "table.columns", &mut used)?,
        None => vec![],
    };
    let mut at = Vec::new();
    for (k, v) in &t.at {
        let Some((_, vals)) = known(k) else {
            return c.err(
                v.span(),
                "table.at",
                format!("'{k}' is not a grid variable of check '{name}'"),
            );
        };
        if used.contains(k) {
            return c.err(
                v.span(),
                "table.at",
                format!("'{k}' is laid out as rows or columns"),
            );
        }
        let t = value_text(v.get_ref()).or_else(|e| c.err(v.span(), "table.at", e))?;
        if !vals.contains(&t) {
            return c.err(
                v.span(),
                "table.at",
                format!("{k} = {t} is not one of its values ({})", vals.join(", ")),
            );
        }
        used.push(k.clone());
        at.push((k.clone(), t));
    }
    for (k, vals) in &vars {
        if used.contains(k) {
            continue;
        }
        match vals.as_slice() {
            [one] => at.push((k.clone(), one.clone())),
            _ => {
                return c.err(
                    t.rows.span(),
                    "table.at",
                    format!(
                        "'{k}' takes {} values in check '{name}': lay it out in rows or columns, or fix it with at = {{ {k} = \"…\" }}",
                        vals.len()
                    ),
                )
            }
        }
    }
    let digits = match &t.digits {
        None => DEFAULT_TABLE_DIGITS,
        Some(d) => {
            let most = super::MAX_CLAIM_DIGITS;
            if !(MIN_TABLE_DIGITS..=most).contains(d.get_ref()) {
                return c.err(
                    d.span(),
                    "table.digits",
                    format!("digits must be between {MIN_TABLE_DIGITS} and {most}"),
                );
            }
            // in range: between 1 and MAX_CLAIM_DIGITS, which fits a u32
            u32::try_from(*d.get_ref()).unwrap_or(DEFAULT_TABLE_DIGITS)
        }
    };
    let mut math = BTreeMap::new();
    for (k, v) in &t.math {
        if !used.contains(k) && !at.iter().any(|(a, _)| a == k) {
            return c.err(
                v.span(),
                "table.math",
                format!("'{k}' is not a variable of this table"),
            );
        }
        math.insert(k.clone(), v.get_ref().trim().to_string());
    }
    let mut labels = BTreeMap::new();
    for (k, v) in &t.labels {
        let shown: Vec<&String> = rows
            .iter()
            .chain(&columns)
            .flat_map(|(_, vals)| vals)
            .chain(at.iter().map(|(_, x)| x))
            .collect();
        if !shown.contains(&k) {
            let all: Vec<&str> = shown.iter().map(|x| x.as_str()).collect();
            return c.err(
                v.span(),
                &format!("table.labels.\"{k}\""),
                format!(
                    "'{k}' is not a value of this table's rows, columns or at (its values: {})",
                    all.join(", ")
                ),
            );
        }
        if v.get_ref().trim().is_empty() {
            return c.err(
                v.span(),
                &format!("table.labels.\"{k}\""),
                "a label must not be empty",
            );
        }
        labels.insert(k.clone(), v.get_ref().trim().to_string());
    }
    Ok(TableDef {
        label,
        caption: t.caption.get_ref().trim().to_string(),
        check: name.to_string(),
        rows,
        columns,
        at,
        cell,
        digits,
        math,
        labels,
    })
}

/// Validates a claim's `[[table]]` blocks against its compiled checks.
pub fn compile_tables(
    c: &FileCtx,
    specs: &[TableSpec],
    checks: &[Check],
) -> Result<Vec<TableDef>, ClaimError> {
    let mut out: Vec<TableDef> = Vec::new();
    for t in specs {
        let d = one_table(c, t, checks)?;
        if out.iter().any(|o| o.label == d.label) {
            return c.err(
                t.label.span(),
                "table.label",
                format!("two tables are labelled '{}'", d.label),
            );
        }
        out.push(d);
    }
    Ok(out)
}

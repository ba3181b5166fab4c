//! `[[table]]` blocks: a paper-ready table of one check's results, validated against the
//! check (its name, its grid and limit variables, the cell kinds its relation supports);
//! errors name the file, the line and the key. The layout and rendering are
//! `report::table`'s.

use super::claim::{CellKind, Check, TableDef};
use super::setup::MAX_CLAIM_DIGITS;
use crate::claims::schema::{value_text, FileCtx, TableSpec};
use crate::claims::verdict::Relation;
use crate::claims::ClaimError;
use std::collections::BTreeMap;
use toml::Spanned;

/// Default significant digits of a table's numbers.
pub const DEFAULT_TABLE_DIGITS: u32 = 8;
/// Fewest digits a table may ask for.
pub const MIN_TABLE_DIGITS: i64 = 1;

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

/// One `[[table]]` block, validated against the claim's checks.
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
    let cell = cell_kind(c, t, check)?;
    // The variables are laid out once each: as rows, as columns, or fixed by `at` (or by
    // having one value).
    let lay = Layout {
        c,
        check,
        vars: variables(check, cell),
    };
    let mut used: Vec<String> = Vec::new();
    let rows = lay.axis(&t.rows, "table.rows", &mut used)?;
    let columns = match &t.columns {
        Some(cs) => lay.axis(cs, "table.columns", &mut used)?,
        None => vec![],
    };
    let at = lay.fixed(t, &mut used)?;
    Ok(TableDef {
        label,
        caption: t.caption.get_ref().trim().to_string(),
        check: name.to_string(),
        digits: table_digits(c, t)?,
        math: table_math(c, t, &used, &at)?,
        labels: table_labels(c, t, &rows, &columns, &at)?,
        rows,
        columns,
        at,
        cell,
    })
}

/// What a cell shows, if the check has it: a limit only after a limit, a verdict, margin
/// or bound only at a point, a bound only for a numeric one.
fn cell_kind(c: &FileCtx, t: &TableSpec, check: &Check) -> Result<CellKind, ClaimError> {
    let name = &check.name;
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
    match why_not {
        Some(why) => c.err(t.cell.span(), "table.cell", why),
        None => Ok(cell),
    }
}

/// The variables a table of one check may lay out, with their values.
struct Layout<'a> {
    c: &'a FileCtx<'a>,
    check: &'a Check,
    vars: Vec<(String, Vec<String>)>,
}

impl Layout<'_> {
    fn known(&self, n: &str) -> Option<&Vec<String>> {
        self.vars.iter().find(|(k, _)| k == n).map(|(_, v)| v)
    }

    /// The rows' or the columns' variables (`key`), each a variable not laid out yet.
    fn axis(
        &self,
        spec: &Spanned<toml::Value>,
        key: &str,
        used: &mut Vec<String>,
    ) -> Result<Vec<(String, Vec<String>)>, ClaimError> {
        let (c, name) = (self.c, &self.check.name);
        let mut out = Vec::new();
        for (n, sp) in names(c, spec, key)? {
            let Some(vals) = self.known(&n) else {
                let limit_note = match &self.check.limit {
                    Some(l) if l.var == n => {
                        " (the limit variable: only cell = \"value\" lays out its sequence)"
                    }
                    _ => "",
                };
                let all: Vec<&str> = self.vars.iter().map(|(k, _)| k.as_str()).collect();
                return c.err(
                    sp,
                    key,
                    format!(
                        "'{n}' is not a grid variable of check '{name}'{limit_note} (its variables: {})",
                        all.join(", ")
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
    }

    /// The fixed values: those `at` gives, then every other variable with one value; a
    /// variable with several values that is laid out nowhere is an error.
    fn fixed(
        &self,
        t: &TableSpec,
        used: &mut Vec<String>,
    ) -> Result<Vec<(String, String)>, ClaimError> {
        let (c, name) = (self.c, &self.check.name);
        let mut at = Vec::new();
        for (k, v) in &t.at {
            let Some(vals) = self.known(k) else {
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
        for (k, vals) in &self.vars {
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
        Ok(at)
    }
}

/// The table's significant digits (default [`DEFAULT_TABLE_DIGITS`]).
fn table_digits(c: &FileCtx, t: &TableSpec) -> Result<u32, ClaimError> {
    let Some(d) = &t.digits else {
        return Ok(DEFAULT_TABLE_DIGITS);
    };
    let most = MAX_CLAIM_DIGITS;
    if !(MIN_TABLE_DIGITS..=most).contains(d.get_ref()) {
        return c.err(
            d.span(),
            "table.digits",
            format!("digits must be between {MIN_TABLE_DIGITS} and {most}"),
        );
    }
    // in range: between 1 and MAX_CLAIM_DIGITS, which fits a u32
    Ok(u32::try_from(*d.get_ref()).unwrap_or(DEFAULT_TABLE_DIGITS))
}

/// The headers' LaTeX math, for variables of the table: laid out (`used`) or fixed
/// (`at`).
fn table_math(
    c: &FileCtx,
    t: &TableSpec,
    used: &[String],
    at: &[(String, String)],
) -> Result<BTreeMap<String, String>, ClaimError> {
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
    Ok(math)
}

/// The short names of values the table shows (rows, columns, fixed values).
fn table_labels(
    c: &FileCtx,
    t: &TableSpec,
    rows: &[(String, Vec<String>)],
    columns: &[(String, Vec<String>)],
    at: &[(String, String)],
) -> Result<BTreeMap<String, String>, ClaimError> {
    let shown: Vec<&String> = rows
        .iter()
        .chain(columns)
        .flat_map(|(_, vals)| vals)
        .chain(at.iter().map(|(_, x)| x))
        .collect();
    let mut labels = BTreeMap::new();
    for (k, v) in &t.labels {
        let key = format!("table.labels.\"{k}\"");
        if !shown.contains(&k) {
            let all: Vec<&str> = shown.iter().map(|x| x.as_str()).collect();
            return c.err(
                v.span(),
                &key,
                format!(
                    "'{k}' is not a value of this table's rows, columns or at (its values: {})",
                    all.join(", ")
                ),
            );
        }
        if v.get_ref().trim().is_empty() {
            return c.err(v.span(), &key, "a label must not be empty");
        }
        labels.insert(k.clone(), v.get_ref().trim().to_string());
    }
    Ok(labels)
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

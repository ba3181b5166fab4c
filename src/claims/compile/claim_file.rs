//! A claim file, compiled: its header (id, source, statement, reading), its grid, its
//! `[setup]`, its checks and its tables.

use super::check::{compile_check, CheckCtx};
use super::claim::{Check, Claim};
use super::grid::{compile_grid, grid_order};
use super::keys::key_errors;
use super::setup::compile_system;
use super::table::compile_tables;
use crate::claims::registry;
use crate::claims::schema::{parse_file, raw_table, ClaimFile, FileCtx};
use crate::claims::ClaimError;

/// Validates a claim file's text (`path` names it in errors).
pub fn compile(path: &str, text: &str) -> Result<Claim, ClaimError> {
    // every unknown and missing key at once (serde would stop at the first)
    let missing = key_errors(path, text);
    if !missing.is_empty() {
        return Err(ClaimError::all(missing));
    }
    let f: ClaimFile = parse_file(path, text)?;
    // The raw table keeps the grids' keys in file order (the schema types sort them).
    let raw = raw_table(path, text)?;
    let c = FileCtx::new(path, text, registry().words());
    let id = check_header(&c, &f)?;
    let grid = compile_grid(&c, &f.grid, &grid_order(&raw, None))?;
    let vars = template_names(&grid, &f);
    let (system, digits) = compile_system(&c, &vars)?;
    if f.checks.is_empty() {
        return c.err(f.id.span(), "check", "a claim needs at least one [[check]]");
    }
    let x = CheckCtx {
        file: &c,
        raw: &raw,
        claim_grid: &grid,
        system: system.as_ref(),
        overridable: &vars,
    };
    let checks = f
        .checks
        .iter()
        .enumerate()
        .map(|(i, cs)| compile_check(&x, cs, i))
        .collect::<Result<Vec<Check>, ClaimError>>()?;
    if let Some(twice) = checks
        .iter()
        .enumerate()
        .find(|(i, ch)| checks[..*i].iter().any(|o| o.name == ch.name))
    {
        return c.err(
            f.id.span(),
            "check.name",
            format!("two checks are named '{}'", twice.1.name),
        );
    }
    let tables = compile_tables(&c, &f.tables, &checks)?;
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
        rigorous: f.rigorous.unwrap_or(false),
        checks,
        tables,
    })
}

/// The id (lowercase letters, digits, `-`, `_`) and the texts every claim must give (all
/// the empty ones reported at once).
fn check_header(c: &FileCtx, f: &ClaimFile) -> Result<String, ClaimError> {
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
    let mut texts: Vec<(&str, &str)> = vec![
        ("statement", f.statement.as_str()),
        ("reading", f.reading.as_str()),
    ];
    if let Some(s) = &f.source {
        texts.push(("source.paper", s.paper.as_str()));
        texts.push(("source.words", s.words.as_str()));
        if let Some(seed) = &s.seed {
            texts.push(("source.seed", seed.as_str()));
        }
    }
    let empty: Vec<ClaimError> = texts
        .into_iter()
        .filter(|(_, v)| v.trim().is_empty())
        .filter_map(|(k, _)| c.err::<()>(f.id.span(), k, "must not be empty").err())
        .collect();
    if !empty.is_empty() {
        return Err(ClaimError::all(empty));
    }
    Ok(id)
}

/// The names a template or an override may use: the grid and limit variables of the
/// claim and of every check, each once.
fn template_names(grid: &[(String, Vec<String>)], f: &ClaimFile) -> Vec<String> {
    let mut vars: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    let mut add = |v: String| {
        if !vars.contains(&v) {
            vars.push(v);
        }
    };
    for ch in &f.checks {
        ch.grid.keys().for_each(|k| add(k.clone()));
        if let Some(l) = &ch.limit {
            add(l.var.get_ref().trim().to_string());
        }
    }
    vars
}

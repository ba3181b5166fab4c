//! `[grid]` tables (a claim's, a check's, a figure's): each variable a non-empty list of
//! distinct values written as strings or integers, in the order the file writes them.

use crate::claims::registry;
use crate::claims::schema::{value_text, FileCtx};
use crate::claims::ClaimError;
use std::collections::BTreeMap;
use toml::Spanned;

/// A `[grid]` table as the schema reads it (sorted by name: [`grid_order`] gives the
/// file's order).
pub(crate) type GridSpec = BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>;

/// A compiled grid: each variable and its values, in file order.
pub(crate) type Grid = Vec<(String, Vec<String>)>;

/// Ordered keys of `[grid]` tables as written (the schema types sort them): the file's
/// top-level grid, or the grid of its check number `check`.
pub(crate) fn grid_order(raw: &toml::Table, check: Option<usize>) -> Vec<String> {
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
pub(crate) fn reserved_name(k: &str) -> bool {
    let r = registry();
    r.words().contains(&k) || r.model_variables().contains(&k)
}

/// Validates a grid: `order` is the file's order of its keys (keys it misses follow in
/// name order).
pub(crate) fn compile_grid(
    c: &FileCtx,
    g: &GridSpec,
    order: &[String],
) -> Result<Grid, ClaimError> {
    let mut out = Vec::new();
    let mut keys: Vec<&String> = order.iter().filter(|k| g.contains_key(*k)).collect();
    for k in g.keys() {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for k in keys {
        let vals = &g[k];
        let key = format!("grid.{k}");
        if vals.get_ref().is_empty() {
            return c.err(vals.span(), &key, "empty grid: give at least one value");
        }
        if reserved_name(k) {
            return c.err(
                vals.span(),
                &key,
                format!("'{k}' is a reserved name; choose another variable name"),
            );
        }
        let mut vs = Vec::new();
        for v in vals.get_ref() {
            let t = value_text(v.get_ref()).or_else(|e| c.err(v.span(), &key, e))?;
            if vs.contains(&t) {
                return c.err(v.span(), &key, format!("value {t} appears twice"));
            }
            vs.push(t);
        }
        out.push((k.clone(), vs));
    }
    Ok(out)
}

/// A check's grid: the claim's, with the check's own variables replacing those of the
/// same name (in place) or added after them.
pub(crate) fn merge_grids(claim: &[(String, Vec<String>)], own: Grid) -> Grid {
    let mut grid: Grid = claim.to_vec();
    for (k, v) in own {
        if let Some(slot) = grid.iter_mut().find(|(n, _)| *n == k) {
            slot.1 = v;
        } else {
            grid.push((k, v));
        }
    }
    grid
}

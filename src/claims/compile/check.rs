//! One `[[check]]`, compiled section by section: its grid (merged with the claim's), its
//! limit, its quantity, its relation, what the catalogue expects of it.

use super::claim::Check;
use super::expected::{compile_expect, compile_expected_values};
use super::grid::{compile_grid, grid_order, merge_grids, Grid};
use super::limit::compile_limit;
use super::names::{check_names, Names};
use super::relation::compile_relation;
use crate::claims::schema::{CheckSpec, FileCtx};
use crate::claims::scope::SystemSpec;
use crate::claims::ClaimError;

/// What a check is compiled against: the file, its raw TOML (for the grids' key order),
/// the claim's grid and system, and the names any call may override.
pub(crate) struct CheckCtx<'a> {
    /// The file.
    pub file: &'a FileCtx<'a>,
    /// Its raw TOML.
    pub raw: &'a toml::Table,
    /// The claim's grid.
    pub claim_grid: &'a Grid,
    /// The claim's system.
    pub system: &'a dyn SystemSpec,
    /// The grid and limit variables of the claim and of every check.
    pub overridable: &'a [String],
}

/// Validates check number `idx` of the file.
pub(crate) fn compile_check(x: &CheckCtx, cs: &CheckSpec, idx: usize) -> Result<Check, ClaimError> {
    let c = x.file;
    let own = compile_grid(c, &cs.grid, &grid_order(x.raw, Some(idx)))?;
    let grid = merge_grids(x.claim_grid, own);
    let limit = match &cs.limit {
        Some(l) => Some(compile_limit(c, l, &grid)?),
        None => None,
    };
    // The check's variables: its grid's, then the limit variable.
    let mut vars: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    if let Some(l) = &limit {
        vars.push(l.var.clone());
    }
    let names = Names {
        vars: &vars,
        overridable: x.overridable,
        system: x.system,
        grid: &grid,
    };
    let quantity = c.expr(&cs.quantity, "quantity")?;
    check_names(c, &quantity, cs.quantity.span(), "quantity", &names)?;
    let rel = compile_relation(c, cs, &grid, &names)?;
    let expect = compile_expect(c, cs)?;
    let expected_values = compile_expected_values(c, cs, &vars, limit.is_some())?;
    let (bound, bound_text) = rel.bound.unzip();
    let (tolerance, tolerance_text) = rel.tolerance;
    Ok(Check {
        name: cs
            .name
            .clone()
            .unwrap_or_else(|| format!("check{}", idx + 1)),
        meaning: cs.meaning.clone(),
        quantity_text: cs.quantity.get_ref().clone(),
        quantity,
        relation: rel.relation,
        bound,
        bound_text,
        tolerance,
        tolerance_text,
        rel_tolerance: rel.rel_tolerance,
        along: rel.along,
        at: rel.at,
        grid,
        limit,
        expect,
        finding: cs.finding.clone(),
        expected_values,
    })
}

//! A figure file's parts that the claim compiler validates (grid, x axis, `[setup]`, series
//! expressions), with the same rules and errors as a claim's; the figure's own keys are
//! `claims::figure`'s.

use super::grid::{compile_grid, grid_order, reserved_name, GridSpec};
use super::names::{check_names, Names};
use super::setup::compile_system;
use crate::claims::expr::Expr;
use crate::claims::schema::{value_text, FileCtx};
use crate::claims::scope::SystemSpec;
use crate::claims::ClaimError;
use std::collections::BTreeMap;
use std::sync::Arc;
use toml::Spanned;

/// The parts of a figure file the claim compiler validates: its grid, x axis, system and
/// series expressions (see [`super::figure`]).
pub(crate) struct FigureParts {
    /// Series axes.
    pub grid: Vec<(String, Vec<String>)>,
    /// The x variable and its values.
    pub x: (String, Vec<String>),
    /// The system.
    pub system: Arc<dyn SystemSpec>,
    /// Digits.
    pub digits: u32,
    /// The series' y expressions.
    pub ys: Vec<Expr>,
}

/// Validates a figure file's grid, x axis, `[setup]` and y expressions.
pub(crate) fn compile_figure_parts(
    c: &FileCtx,
    raw: &toml::Table,
    grid: &GridSpec,
    x_var: &Spanned<String>,
    x_values: &Spanned<Vec<Spanned<toml::Value>>>,
    ys: &[&Spanned<String>],
) -> Result<FigureParts, ClaimError> {
    let grid = compile_grid(c, grid, &grid_order(raw, None))?;
    let xv = x_var.get_ref().trim().to_string();
    if grid.iter().any(|(k, _)| *k == xv) || reserved_name(&xv) {
        return c.err(
            x_var.span(),
            "x.var",
            format!("'{xv}' is a grid variable or a reserved name"),
        );
    }
    let mut xgrid = BTreeMap::new();
    xgrid.insert(xv.clone(), x_values.clone());
    let x = compile_grid(c, &xgrid, std::slice::from_ref(&xv))?
        .pop()
        .map(|(_, v)| v)
        .unwrap_or_default();
    for v in x_values.get_ref() {
        if let Ok(t) = value_text(v.get_ref()) {
            // a decimal (parsed as MPFR does: 1e5000 is a value on a 1/ln p axis)
            if crate::num::parse_decimal(t.trim(), 64).map_or(true, |f| !f.is_finite()) {
                return c.err(v.span(), "x.values", format!("{t} is not a finite number"));
            }
        }
    }
    let mut vars: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    vars.push(xv.clone());
    let (system, digits) = compile_system(c, &vars)?;
    let mut values = grid.clone();
    values.push((xv.clone(), x.clone()));
    let names = Names {
        vars: &vars,
        overridable: &vars,
        system: system.as_ref(),
        grid: &values,
    };
    let mut out = Vec::new();
    for y in ys {
        let e = c.expr(y, "series.y")?;
        check_names(c, &e, y.span(), "series.y", &names)?;
        out.push(e);
    }
    Ok(FigureParts {
        grid,
        x: (xv, x),
        system,
        digits,
        ys: out,
    })
}

//! A sweep's claim quantity, compiled as a claim's check is.

use super::grid::reserved_name;
use super::names::{check_names, Names};
use super::setup::compile_system;
use crate::claims::expr::Expr;
use crate::claims::registry;
use crate::claims::schema::FileCtx;
use crate::claims::scope::SystemSpec;
use crate::claims::ClaimError;
use std::sync::Arc;
use toml::Spanned;

/// A sweep's claim quantity (`taskassign sweep` over a grid file with `quantity = "…"`):
/// the grid file's `[setup]` compiled by its model, and the expression `quantity` checked
/// against the registry with `vars` (the grid's variables) as its grid variables, exactly
/// as a claim's check is. Errors name the file, the line and the key.
pub fn compile_quantity(
    path: &str,
    text: &str,
    quantity: &Spanned<String>,
    vars: &[String],
) -> Result<(Arc<dyn SystemSpec>, u32, Expr), ClaimError> {
    let c = FileCtx::new(path, text, registry().words());
    if let Some(v) = vars.iter().find(|v| reserved_name(v)) {
        return c.err(
            quantity.span(),
            &format!("grid.{v}"),
            format!(
                "'{v}' is a reserved name of the quantity language; choose another variable name"
            ),
        );
    }
    let (system, digits) = compile_system(&c, vars)?;
    let e = c.expr(quantity, "quantity")?;
    let names = Names {
        vars,
        overridable: vars,
        system: system.as_ref(),
        grid: &[],
    };
    check_names(&c, &e, quantity.span(), "quantity", &names)?;
    Ok((system, digits, e))
}

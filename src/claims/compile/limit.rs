//! A check's `[check.limit]`: the variable, its values (a sequence of at least two
//! decimals), the transform that sends it to 0 and the extrapolation degree.

use super::claim::LimitDef;
use super::grid::Grid;
use crate::claims::schema::{value_text, FileCtx, LimitSpec};
use crate::claims::ClaimError;
use crate::num::extrapolate::{Transform, DEFAULT_DEGREE};
use crate::num::parse_decimal;

/// Highest extrapolation degree accepted.
pub const MAX_DEGREE: i64 = 8;

/// Bits at which a limit value is parsed to validate it (any precision tells a decimal
/// from a non-decimal; the run parses it again at its own).
const VALIDATION_BITS: u32 = 64;

/// Validates a limit against the check's grid (its variable must not be a grid variable).
pub(crate) fn compile_limit(
    c: &FileCtx,
    l: &LimitSpec,
    grid: &Grid,
) -> Result<LimitDef, ClaimError> {
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
        parse_decimal(&t, VALIDATION_BITS)
            .or_else(|e| c.err(v.span(), "limit.values", e.to_string()))?;
        values.push(t);
    }
    let Some(transform) = Transform::parse(l.transform.get_ref()) else {
        return c.err(
            l.transform.span(),
            "limit.transform",
            format!(
                "unknown transform '{}' (1/ln, 1/x, 1/sqrt, x)",
                l.transform.get_ref()
            ),
        );
    };
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
    Ok(LimitDef {
        var,
        values,
        transform,
        degree,
    })
}

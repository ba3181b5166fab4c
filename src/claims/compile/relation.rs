//! What a check asserts of its quantity: the relation, its bound, the tolerances, and for
//! the along-relations the variable (and, for argmax/argmin, where the extreme is).

use super::grid::Grid;
use super::names::{check_names, Names};
use crate::claims::expr::Expr;
use crate::claims::schema::{value_text, CheckSpec, FileCtx};
use crate::claims::verdict::Relation;
use crate::claims::ClaimError;
use crate::num::parse_decimal;

/// Bits at which a relative tolerance is parsed to validate it (the run parses it again
/// at its own precision).
const VALIDATION_BITS: u32 = 64;

/// A check's relation, compiled.
pub(crate) struct RelationDef {
    /// The relation.
    pub relation: Relation,
    /// The bound, and as written (none for the along-relations).
    pub bound: Option<(Expr, String)>,
    /// The absolute tolerance, and as written (default 0).
    pub tolerance: (Expr, String),
    /// The relative tolerance, a decimal (default 0).
    pub rel_tolerance: String,
    /// The along variable.
    pub along: Option<String>,
    /// Where argmax/argmin claim the extreme.
    pub at: Option<String>,
}

/// Validates the relation keys of a check (`relation`, `bound`, `tolerance`,
/// `rel_tolerance`, `along`, `at`) against its grid and names.
pub(crate) fn compile_relation(
    c: &FileCtx,
    cs: &CheckSpec,
    grid: &Grid,
    names: &Names,
) -> Result<RelationDef, ClaimError> {
    let relation = Relation::parse(cs.relation.get_ref()).map_or_else(
        || c.err(cs.relation.span(), "relation", format!("unknown relation '{}' (<=, <, >=, >, ==, sign_as, consistent, increasing, decreasing, argmax, argmin)", cs.relation.get_ref())),
        Ok,
    )?;
    let bound = match &cs.bound {
        Some(b) => {
            let e = c.expr(b, "bound")?;
            check_names(c, &e, b.span(), "bound", names)?;
            Some((e, b.get_ref().clone()))
        }
        None if !relation.is_along() => {
            return c.err(
                cs.relation.span(),
                "bound",
                format!("relation '{}' needs a bound", relation.name()),
            )
        }
        None => None,
    };
    let tolerance = match &cs.tolerance {
        Some(t) => {
            let e = c.expr(t, "tolerance")?;
            check_names(c, &e, t.span(), "tolerance", names)?;
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
            parse_decimal(t.get_ref(), VALIDATION_BITS)
                .or_else(|e| c.err(t.span(), "rel_tolerance", e.to_string()))?;
            t.get_ref().trim().to_string()
        }
        None => "0".into(),
    };
    let along = compile_along(c, cs, relation, grid)?;
    let at = compile_at(c, cs, relation, along.as_deref(), grid)?;
    Ok(RelationDef {
        relation,
        bound,
        tolerance,
        rel_tolerance,
        along,
        at,
    })
}

/// `along`: a grid variable, given exactly when the relation is an along-relation.
fn compile_along(
    c: &FileCtx,
    cs: &CheckSpec,
    relation: Relation,
    grid: &Grid,
) -> Result<Option<String>, ClaimError> {
    match (&cs.along, relation.is_along()) {
        (Some(a), true) => {
            let a_name = a.get_ref().trim().to_string();
            if !grid.iter().any(|(k, _)| *k == a_name) {
                return c.err(
                    a.span(),
                    "along",
                    format!("'{a_name}' is not a grid variable"),
                );
            }
            Ok(Some(a_name))
        }
        (None, true) => c.err(
            cs.relation.span(),
            "along",
            format!("relation '{}' needs `along = \"VAR\"`", relation.name()),
        ),
        (Some(a), false) => c.err(
            a.span(),
            "along",
            format!("relation '{}' takes no `along`", relation.name()),
        ),
        (None, false) => Ok(None),
    }
}

/// `at`: one of the along variable's values, given exactly for argmax/argmin.
fn compile_at(
    c: &FileCtx,
    cs: &CheckSpec,
    relation: Relation,
    along: Option<&str>,
    grid: &Grid,
) -> Result<Option<String>, ClaimError> {
    match (&cs.at, relation) {
        (Some(v), Relation::Argmax | Relation::Argmin) => {
            let t = value_text(v.get_ref()).or_else(|e| c.err(v.span(), "at", e))?;
            let along_vals = along
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
            Ok(Some(t))
        }
        (None, Relation::Argmax | Relation::Argmin) => c.err(
            cs.relation.span(),
            "at",
            "argmax/argmin need `at` (where the extreme is claimed)",
        ),
        (Some(v), _) => c.err(v.span(), "at", "only argmax/argmin take `at`"),
        (None, _) => Ok(None),
    }
}

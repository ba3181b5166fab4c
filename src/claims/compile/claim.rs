//! A validated claim and its checks: what the compiler produces and the runner reads.

use super::table::TableDef;
use crate::claims::expr::Expr;
use crate::claims::schema::Source;
use crate::claims::system::SystemSpec;
use crate::claims::verdict::{Relation, Verdict};
use crate::num::extrapolate::Transform;
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// The system (`[setup]`), compiled by its model.
    pub system: Arc<dyn SystemSpec>,
    /// Significant digits of the certified computation.
    pub digits: u32,
    /// The checks.
    pub checks: Vec<Check>,
    /// Declared tables (`[[table]]`).
    pub tables: Vec<TableDef>,
}

impl Claim {
    /// `BDS20 (seed 000_….txt)`.
    pub fn source_short(&self) -> String {
        format!("{} ({})", self.source.paper, self.source.seed)
    }
}

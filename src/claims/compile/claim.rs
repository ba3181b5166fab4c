//! A validated claim and its checks: what the compiler produces and the runner reads.

use crate::claims::expr::Expr;
use crate::claims::schema::Source;
use crate::claims::scope::SystemSpec;
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
    /// Source (none: unpublished, a claim of the user's own).
    pub source: Option<Source>,
    /// Notes.
    pub notes: Option<String>,
    /// The system (`[setup]`), compiled by its model.
    pub system: Arc<dyn SystemSpec>,
    /// Significant digits of the certified computation.
    pub digits: u32,
    /// `check --rigorous` (or `rigorous = true` in the file): every number also enclosed,
    /// and a check decided by enclosures at every point is PROVEN.
    pub rigorous: bool,
    /// The checks.
    pub checks: Vec<Check>,
    /// Declared tables (`[[table]]`).
    pub tables: Vec<TableDef>,
}

/// How a report names the source of a claim without `[source]`.
pub const UNPUBLISHED: &str = "unpublished";

impl Claim {
    /// `BDS20 (000_….txt)`, the paper alone when there is no seed file, or
    /// [`UNPUBLISHED`].
    pub fn source_short(&self) -> String {
        match &self.source {
            None => UNPUBLISHED.to_string(),
            Some(s) => match &s.seed {
                Some(seed) => format!("{} ({seed})", s.paper),
                None => s.paper.clone(),
            },
        }
    }
    /// `BDS20 (000_….txt): "the paper's words"` (no location), the paper alone before the
    /// words when there is no seed file, or [`UNPUBLISHED`].
    pub fn source_quoted(&self) -> String {
        match &self.source {
            None => UNPUBLISHED.to_string(),
            Some(s) => format!("{}: \"{}\"", self.source_short(), s.words.trim()),
        }
    }
    /// The source in full: `BDS20 (000_….txt, abstract): "the paper's words"`, or
    /// [`UNPUBLISHED`] with what that means.
    pub fn source_long(&self) -> String {
        match &self.source {
            None => {
                format!("{UNPUBLISHED} (the file gives no [source]: a claim of its author's own)")
            }
            Some(s) => {
                let mut within: Vec<&str> = Vec::new();
                if let Some(seed) = &s.seed {
                    within.push(seed);
                }
                if let Some(l) = &s.location {
                    within.push(l);
                }
                format!(
                    "{}{}: \"{}\"",
                    s.paper,
                    if within.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", within.join(", "))
                    },
                    s.words.trim()
                )
            }
        }
    }
}

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

    pub(crate) fn parse(s: &str) -> Option<Self> {
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

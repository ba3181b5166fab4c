//! Claims: published statements as TOML files, computed at two precisions and judged.
//!
//! A claim file (schema in `proofs-check/README.md`, types in `schema`) names its source,
//! the statement, the project's reading of it, the system (`[setup]`, read by its model:
//! `system`, `systems`), a grid of parameters and one or more checks: a quantity (an
//! expression of `expr` over the computed quantities of the `registry`, defined in
//! `quantities`), a relation and a tolerance, optionally after a limit along a sequence
//! ([`crate::num::extrapolate`]). `compile` validates a file against the registry;
//! `run` evaluates it (`scope`, `value`) and gives each check a verdict
//! (`verdict`): PASS, FAIL or INCONCLUSIVE, with the margin and the grid point that came
//! closest to violating the relation.
//!
//! The uncertainty a verdict uses is the difference between the two precisions (and, for
//! a limit, the extrapolation's error estimate; for a simulated quantity, the simulation's
//! 95 % half-width carried through the expression): a relation that holds or fails only
//! within it is INCONCLUSIVE, and so is one whose simulation raised the heavy-tail warning.

/// The [`Quantity`](registry::Quantity) methods that read a quantity's declaration, written
/// inside its `impl Quantity`: `declared!(SIG)` (its static [`Signature`](signature::Signature),
/// the default `unproven`) or `declared!(SIG, unproven: WHY)` (why `check --rigorous` does
/// not prove its fields).
macro_rules! declared {
    ($sig:ident) => {
        fn signature(&self) -> &'static $crate::claims::signature::Signature {
            &$sig
        }
    };
    ($sig:ident, unproven: $why:expr) => {
        declared!($sig);
        fn unproven(&self) -> &'static str {
            $why
        }
    };
}

pub(crate) mod cache;
pub(crate) mod compile;
pub(crate) mod error;
pub(crate) mod expr;
pub(crate) mod figure;
pub(crate) mod grid;
pub(crate) mod proof;
pub(crate) mod quantities;
pub(crate) mod registry;
pub(crate) mod run;
pub(crate) mod schema;
pub(crate) mod scope;
pub(crate) mod signature;
pub(crate) mod system;
pub(crate) mod systems;
pub(crate) mod value;
pub(crate) mod verdict;

pub use cache::{Cache, CacheKey};
pub use compile::{compile, load_paths, CellKind, Check, Claim, ExpectedDef, LimitDef, TableDef};
pub use error::{ClaimError, QuantityError};
pub use expr::{parse as parse_expr, Arg, Expr, Field, Op};
pub use figure::{
    compile as compile_figure, compute as compute_figure, AxisScale, Figure, FigurePoint,
    SeriesData, SeriesDef, XTransform,
};
pub use grid::{
    label as point_label, points as grid_points, positions as grid_positions, Positions,
};
pub use proof::Proof;
pub use registry::{Quantity, Registry};
pub use run::{run_all, run_check, run_claim, CheckResult, ClaimResult, Judged, LimitRow, Row};
pub use schema::{FileCtx, Source};
pub use scope::{AsAny, Call, OverVal, Quantities, Scope, SystemSpec};
pub use signature::{FieldSpec, ModelSignature, NamedArg, Positional, Signature};
pub use system::Model as SystemModel;
pub use value::{FieldValue, Pair, SimUnc, Value};
pub use verdict::{Relation, Verdict};

// The TAGS table's generator, for `tests/sim_tags_table.rs` (which regenerates
// `data/tags_poisson_error.*`); not a stable interface.
#[doc(hidden)]
pub use quantities::sim::{tags_poisson_error, TagsHostErrorRow};

use std::sync::LazyLock;

/// The standard registry: every quantity of [`quantities`] and every model of
/// [`systems`]. It is built here, above both, so that the registry and the evaluator
/// know neither: the plug-ins depend on them, not the other way round.
pub fn registry() -> &'static Registry {
    static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
        let mut r = Registry::default();
        systems::register(&mut r);
        quantities::register(&mut r);
        r
    });
    &REGISTRY
}

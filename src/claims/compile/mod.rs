//! From claim files to validated claims: every expression parsed, every name resolved,
//! every grid non-empty; errors name the file, the line and the key.
//!
//! One file per part of a claim file: the header and the order of the parts
//! ([`claim_file`]), the grids ([`grid`]), the `[setup]` and its model ([`setup`]), each
//! `[[check]]` ([`check`]) with its limit ([`limit`]), relation ([`relation`]) and what is
//! expected of it ([`expected`]), the names in its expressions ([`names`]), and the
//! `[[table]]` blocks ([`table`]); every unknown and missing key is found first, all at
//! once ([`keys`]); the validated types are in [`claim`]. Figure files and
//! sweeps' quantities reuse the same parts ([`figure`], [`sweep_quantity`]); [`paths`]
//! reads the files of a folder.

mod check;
mod claim;
mod claim_file;
mod expected;
mod figure;
mod grid;
pub mod keys;
mod limit;
mod names;
mod paths;
mod relation;
mod setup;
mod sweep_quantity;
pub mod table;

pub use claim::{CellKind, Check, Claim, ExpectedDef, LimitDef, TableDef, UNPUBLISHED};
pub use claim_file::compile;
pub(crate) use figure::compile_figure_parts;
pub use paths::load_paths;
pub use sweep_quantity::compile_quantity;

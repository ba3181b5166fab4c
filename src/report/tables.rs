//! `tables`: every claim's table (CSV, Markdown, LaTeX with booktabs); the figures are
//! [`super::figure`]'s, the writing and comparing of files [`super::files`]'s. Every file
//! states the command that made it; the output is deterministic (fixed digits, no
//! timestamps), so `tables --check` can regenerate and compare byte for byte.

use crate::num::certify::to_sci;
use rug::Float;

pub use super::table::claim_files;

/// A short text of the margin for logs.
pub fn margin_text(x: &Float) -> String {
    to_sci(x, 4)
}

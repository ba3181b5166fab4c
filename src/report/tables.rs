//! `tables`: every claim's table (CSV, Markdown, LaTeX with booktabs); the figures are
//! [`super::figure`]'s, the writing and comparing of files [`super::files`]'s. Every file
//! states the command that made it; the output is deterministic (fixed digits, no
//! timestamps), so `tables --check` can regenerate and compare byte for byte.

pub use super::table::claim_files;

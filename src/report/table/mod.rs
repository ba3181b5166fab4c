//! Claim tables: the evidence dump every claim gets (check, point, value, bound, margin,
//! verdict) and the paper-ready tables a claim declares (`[[table]]`, validated by
//! [`crate::claims::compile::table`]). One layout ([`Table`], built by `layout`) feeds
//! the three renderings, so Markdown, CSV and LaTeX agree cell by cell.
//!
//! Files: `claims/<id>.{csv,md,tex}` (the dump) and `claims/<id>.table-<label>.{csv,md,tex}`
//! (a declared table). A declared table's `.tex` is a `table` float (booktabs rules,
//! siunitx `S` columns with a computed `table-format`, `\caption`, `\label{tab:<id>-<label>}`)
//! that needs `\usepackage{booktabs,siunitx}`; the dump's `.tex` is a `longtable` set for a
//! landscape page (`latex::DUMP_PREAMBLE`).

pub(crate) mod latex;
pub(crate) mod layout;
pub(crate) mod number;
pub(crate) mod text;

use crate::claims::compile::CellKind;
use crate::claims::run::ClaimResult;
use number::Shown;
use std::collections::BTreeMap;

pub use super::files::OutFile;

/// One cell of a declared table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// A number (with its error for limits and simulated values).
    Num(Shown),
    /// A word (a verdict).
    Word(String),
    /// Not computed (the reason is in the table's notes).
    Missing,
}

/// A declared table, laid out: headers and cells, before rendering.
#[derive(Debug, Clone)]
pub struct Table {
    /// The claim's id.
    pub id: String,
    /// The table's label.
    pub label: String,
    /// The caption (LaTeX).
    pub caption: String,
    /// The check whose results fill it.
    pub check: String,
    /// What the cells show.
    pub cell: CellKind,
    /// Row variables.
    pub row_vars: Vec<String>,
    /// Column variables.
    pub col_vars: Vec<String>,
    /// Each row's values of the row variables.
    pub rows: Vec<Vec<String>>,
    /// Each column's values of the column variables (one empty key: a single column).
    pub cols: Vec<Vec<String>>,
    /// The fixed variables.
    pub at: Vec<(String, String)>,
    /// Cells, `[row][column]`.
    pub cells: Vec<Vec<Cell>>,
    /// LaTeX math of variables.
    pub math: BTreeMap<String, String>,
    /// Short names of values (LaTeX, shown as written in every rendering).
    pub labels: BTreeMap<String, String>,
    /// Why cells are missing (one line each).
    pub notes: Vec<String>,
    /// Sentences the caption adds about the digits shown (plain text): why a limit or a
    /// simulated value has no uncertainty, why a 0 is 0.
    pub remarks: Vec<String>,
}

impl Table {
    /// The file stem: `claims/<id>.table-<label>`.
    pub fn stem(&self) -> String {
        format!("claims/{}.table-{}", self.id, self.label)
    }
    /// The LaTeX label.
    pub fn tex_label(&self) -> String {
        format!("tab:{}-{}", self.id, self.label)
    }
    /// A column's header text (`h=2, load=0.3`; a labelled value as its label), or the
    /// cell kind for a single column.
    pub fn col_text(&self, j: usize) -> String {
        if self.col_vars.is_empty() {
            return self.cell.name().to_string();
        }
        self.col_vars
            .iter()
            .zip(&self.cols[j])
            .map(|(k, v)| self.assign_text(k, v))
            .collect::<Vec<_>>()
            .join(", ")
    }
    /// `k=v` as text, or the value's label.
    pub fn assign_text(&self, k: &str, v: &str) -> String {
        match self.labels.get(v) {
            Some(l) => l.clone(),
            None => format!("{k}={v}"),
        }
    }
    /// A row value as text: the value, or its label.
    pub fn value_text<'a>(&'a self, v: &'a str) -> &'a str {
        self.labels.get(v).map_or(v, String::as_str)
    }
}

/// A cell's text in Markdown and CSV: `1.5874011 ± 0.0000002`, `(3.46 ± 0.01)e12`,
/// `3.46e12`, a word, or `—`.
pub fn cell_text(c: &Cell) -> String {
    match c {
        Cell::Num(s) => {
            let core = match &s.err {
                Some(e) => format!("{} ± {e}", s.value),
                None => s.value.clone(),
            };
            match (s.exp, &s.err) {
                (0, _) => core,
                (x, Some(_)) => format!("({core})e{x}"),
                (x, None) => format!("{core}e{x}"),
            }
        }
        Cell::Word(w) => w.clone(),
        Cell::Missing => "—".into(),
    }
}

/// The per-claim files: the evidence dump, then each declared table. A declared table
/// whose check did not run is an internal error.
pub fn claim_files(rs: &[ClaimResult], made_by: &str) -> Result<Vec<OutFile>, crate::Error> {
    let mut out = Vec::new();
    for r in rs {
        let id = &r.claim.id;
        out.push(OutFile {
            path: format!("claims/{id}.csv"),
            text: format!("# made by: {made_by}\n{}", super::claims::claim_csv(r)),
        });
        out.push(OutFile {
            path: format!("claims/{id}.md"),
            text: text::claim_markdown(r, made_by),
        });
        out.push(OutFile {
            path: format!("claims/{id}.tex"),
            text: latex::claim_latex(r, made_by),
        });
        for t in layout::tables(r)? {
            let stem = t.stem();
            out.push(OutFile {
                path: format!("{stem}.csv"),
                text: text::table_csv(&t, made_by),
            });
            out.push(OutFile {
                path: format!("{stem}.md"),
                text: text::table_markdown(&t, made_by),
            });
            out.push(OutFile {
                path: format!("{stem}.tex"),
                text: latex::table_latex(&t, made_by),
            });
        }
    }
    Ok(out)
}

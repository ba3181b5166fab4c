//! Markdown and CSV: the evidence dump and the declared tables (the same cells as the
//! LaTeX, as text: `1.5874011 ± 0.0000002`).

use super::{cell_text, Table};
use crate::claims::run::ClaimResult;
use crate::report::claims::{csv_cell, verdict_shown};

pub(super) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The rows of a claim's evidence table: check, point, value, bound, margin, verdict — one
/// per comparison (limits as estimate ± error), then each limit's sequence.
pub(super) fn claim_rows(r: &ClaimResult) -> Vec<[String; 6]> {
    let mut rows = Vec::new();
    for c in &r.checks {
        for j in &c.judged {
            rows.push([
                c.name.clone(),
                j.label.clone(),
                j.value.clone(),
                j.bound.clone(),
                j.margin.clone(),
                j.class().to_string(),
            ]);
        }
        for l in &c.limits {
            let at = l.at_text();
            let var = l.towards.split(' ').next().unwrap_or("");
            for (x, y) in &l.sequence {
                let sep = if at.is_empty() { "" } else { ", " };
                rows.push([
                    c.name.clone(),
                    format!("{at}{sep}{var}={x}"),
                    y.clone(),
                    String::new(),
                    String::new(),
                    "sequence".into(),
                ]);
            }
        }
    }
    rows
}

/// The evidence table's headers.
pub(super) const HEADERS: [&str; 6] = ["check", "point", "value", "bound", "margin", "verdict"];

/// A claim's Markdown evidence table.
pub fn claim_markdown(r: &ClaimResult, made_by: &str) -> String {
    let c = &r.claim;
    let mut o = format!("<!-- made by: {made_by} -->\n# {}\n\n", c.id);
    o.push_str(&format!(
        "{}\n\n*Reading*: {}\n\n*Verdict*: **{}**\n\n",
        c.source_quoted(),
        c.reading,
        verdict_shown(r)
    ));
    o.push_str(&format!(
        "| {} |\n|{}\n",
        HEADERS.join(" | "),
        "---|".repeat(6)
    ));
    for row in claim_rows(r) {
        let cells: Vec<String> = row.iter().map(|x| md_cell(x)).collect();
        o.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    o
}

/// The fixed variables as text: `at load=0.5, p=1e10` (a labelled value as its label).
pub fn at_text(t: &Table) -> String {
    t.at.iter()
        .map(|(k, v)| t.assign_text(k, v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The header line of a declared table: the row variables, then each column.
pub fn header(t: &Table) -> Vec<String> {
    let mut h: Vec<String> = t.row_vars.clone();
    h.extend((0..t.cols.len()).map(|j| t.col_text(j)));
    h
}

/// The body of a declared table: each row's values, then its cells.
pub fn body(t: &Table) -> Vec<Vec<String>> {
    t.rows
        .iter()
        .zip(&t.cells)
        .map(|(rk, cs)| {
            let mut line: Vec<String> = rk.iter().map(|v| t.value_text(v).to_string()).collect();
            line.extend(cs.iter().map(cell_text));
            line
        })
        .collect()
}

/// A declared table in Markdown.
pub fn table_markdown(t: &Table, made_by: &str) -> String {
    let mut o = format!(
        "<!-- made by: {made_by} -->\n**Table {}** ({}, check `{}`, {}). {}",
        t.label,
        t.id,
        t.check,
        t.cell.name(),
        md_cell(&t.caption)
    );
    if !t.at.is_empty() {
        o.push_str(&format!(" At {}.", at_text(t)));
    }
    for r in &t.remarks {
        o.push_str(&format!(" {}", md_cell(r)));
    }
    o.push_str("\n\n");
    let h = header(t);
    o.push_str(&format!(
        "| {} |\n|{}\n",
        h.iter().map(|x| md_cell(x)).collect::<Vec<_>>().join(" | "),
        "---|".repeat(h.len())
    ));
    for line in body(t) {
        let cells: Vec<String> = line.iter().map(|x| md_cell(x)).collect();
        o.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if !t.notes.is_empty() {
        o.push_str("\n— not computed:\n");
        for n in &t.notes {
            o.push_str(&format!("- {}\n", md_cell(n)));
        }
    }
    o
}

/// A declared table in CSV (after `#` lines: the command, the table, and the caption's
/// remarks on the digits shown, if any).
pub fn table_csv(t: &Table, made_by: &str) -> String {
    let mut o = format!("# made by: {made_by}\n# {} {}", t.id, t.label);
    if !t.at.is_empty() {
        o.push_str(&format!(" at {}", at_text(t)));
    }
    o.push('\n');
    for r in &t.remarks {
        o.push_str(&format!("# {r}\n"));
    }
    let line = |v: Vec<String>| -> String {
        v.iter().map(|x| csv_cell(x)).collect::<Vec<_>>().join(",") + "\n"
    };
    o.push_str(&line(header(t)));
    for l in body(t) {
        o.push_str(&line(l));
    }
    o
}

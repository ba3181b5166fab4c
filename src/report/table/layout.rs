//! From a claim's results to its declared tables: each cell is the check's result at the
//! grid point its row, its column and the table's fixed values make.

use super::number::{exponent_column, in_exponent_form, shown, with_error, Dec};
use super::{Cell, Table};
use crate::claims::compile::{CellKind, TableDef};
use crate::claims::grid::{label, points, Point};
use crate::claims::run::{CheckResult, ClaimResult};
use crate::num::parse_decimal;

/// Bits used to read a simulated mean and half-width back for rounding (the texts carry at
/// most a few digits).
const SIM_READ_BITS: u32 = 128;

/// Whether `point` assigns exactly the values of `want` (in any order).
fn same_point(point: &[(String, String)], want: &[(String, String)]) -> bool {
    point.len() == want.len() && want.iter().all(|w| point.contains(w))
}

/// A certified or simulated value's text (`1.41e0`, `2.5e0 ± 1.2e-2`) as a cell.
fn value_cell(text: &str, digits: usize) -> Option<Cell> {
    if let Some((m, hw)) = text.split_once(" ± ") {
        let m = parse_decimal(m.trim(), SIM_READ_BITS).ok()?;
        let hw = parse_decimal(hw.trim(), SIM_READ_BITS).ok()?;
        return with_error(&m, &hw, digits as u32).map(Cell::Num);
    }
    shown(text, digits).map(Cell::Num)
}

fn cell(k: &CheckResult, def: &TableDef, want: &[(String, String)]) -> Result<Cell, String> {
    let n = def.digits as usize;
    let missing = |why: &str| Err(format!("{}: {why}", label(want)));
    match def.cell {
        CellKind::Value => {
            let Some(row) = k.rows.iter().find(|r| same_point(&r.point, want)) else {
                return missing("no such point");
            };
            match &row.value {
                Ok(t) if row.digits == 0 => missing(&format!("no certified digit ({t})")),
                Ok(t) => value_cell(t, n.min(row.digits.max(1) as usize))
                    .map_or_else(|| missing(&format!("'{t}' is not a number")), Ok),
                Err(e) => missing(e),
            }
        }
        CellKind::Limit => {
            let Some(l) = k.limits.iter().find(|l| same_point(&l.outer, want)) else {
                // no limit row: its sequence or extrapolation failed (the judged error says why)
                let why = k
                    .judged
                    .iter()
                    .find(|j| same_point(&j.point, want))
                    .map_or("not computed".to_string(), |j| j.value.clone());
                return missing(&why);
            };
            with_error(&l.estimate_value, &l.error_value, def.digits)
                .map(Cell::Num)
                .map_or_else(|| missing("the limit is not a finite number"), Ok)
        }
        CellKind::Verdict | CellKind::Margin | CellKind::Bound => {
            let Some(j) = k.judged.iter().find(|j| same_point(&j.point, want)) else {
                return missing("no comparison at this point");
            };
            if j.margin == "-" {
                return missing(&j.value);
            }
            let text = match def.cell {
                CellKind::Verdict => return Ok(Cell::Word(j.verdict.name().to_string())),
                CellKind::Margin => j.margin.clone(),
                _ => j.bound_value.clone().unwrap_or_default(),
            };
            match Dec::parse(&text) {
                Some(_) => Ok(shown(&text, n).map_or(Cell::Missing, Cell::Num)),
                None => missing(&format!("'{text}' is not a number")),
            }
        }
    }
}

/// Sets each column that spans many decades in exponent form (the rule is
/// [`super::number::SCI_SPAN_DECADES`]'s), in place: the Markdown, CSV and LaTeX all show
/// the rescaled cells.
pub fn exponent_columns(cells: &mut [Vec<Cell>]) {
    let ncol = cells.first().map_or(0, Vec::len);
    for j in 0..ncol {
        let nums = cells.iter().filter_map(|r| match r.get(j) {
            Some(Cell::Num(s)) => Some(s),
            _ => None,
        });
        if !exponent_column(nums) {
            continue;
        }
        for row in cells.iter_mut() {
            if let Some(Cell::Num(s)) = row.get_mut(j) {
                *s = in_exponent_form(s);
            }
        }
    }
}

/// The values of points, without their variables' names.
fn values_of(points: Vec<Point>) -> Vec<Vec<String>> {
    points
        .into_iter()
        .map(|p| p.into_iter().map(|(_, v)| v).collect())
        .collect()
}

/// Lays out one declared table.
pub fn layout(r: &ClaimResult, def: &TableDef) -> Result<Table, crate::Error> {
    let Some(k) = r.checks.iter().find(|k| k.name == def.check) else {
        return Err(crate::Error::internal(format!(
            "{}: table '{}' names check '{}', which did not run",
            r.claim.id, def.label, def.check
        )));
    };
    let rows = points(&def.rows);
    let cols = points(&def.columns);
    let mut notes = Vec::new();
    let mut cells = Vec::new();
    for rk in &rows {
        let mut line = Vec::new();
        for ck in &cols {
            // the check's point this cell shows: its row's, its column's and the fixed values
            let mut want: Vec<(String, String)> = rk.clone();
            want.extend(ck.iter().cloned());
            want.extend(def.at.iter().cloned());
            match cell(k, def, &want) {
                Ok(c) => line.push(c),
                Err(why) => {
                    notes.push(why);
                    line.push(Cell::Missing);
                }
            }
        }
        cells.push(line);
    }
    exponent_columns(&mut cells);
    Ok(Table {
        id: r.claim.id.clone(),
        label: def.label.clone(),
        caption: def.caption.clone(),
        check: def.check.clone(),
        cell: def.cell,
        row_vars: def.rows.iter().map(|(n, _)| n.clone()).collect(),
        col_vars: def.columns.iter().map(|(n, _)| n.clone()).collect(),
        rows: values_of(rows),
        cols: values_of(cols),
        at: def.at.clone(),
        cells,
        math: def.math.clone(),
        labels: def.labels.clone(),
        notes,
    })
}

/// Every declared table of a claim, laid out.
pub fn tables(r: &ClaimResult) -> Result<Vec<Table>, crate::Error> {
    r.claim.tables.iter().map(|d| layout(r, d)).collect()
}

//! From a claim's results to its declared tables: each cell is the check's result at the
//! grid point its row, its column and the table's fixed values make.

use super::number::{
    exponent_column, in_exponent_form, last_place, lead_exp, shown, with_error, Dec, Shown,
};
use super::{Cell, Table};
use crate::claims::compile::{CellKind, TableDef};
use crate::claims::grid::{label, points, Point};
use crate::claims::run::{CheckResult, ClaimResult};
use crate::num::parse_decimal;
use rug::ops::Pow;
use rug::Float;

/// Bits used to read a simulated mean and half-width back for rounding (the texts carry at
/// most a few digits).
const SIM_READ_BITS: u32 = 128;

/// Whether `point` assigns exactly the values of `want` (in any order).
fn same_point(point: &[(String, String)], want: &[(String, String)]) -> bool {
    point.len() == want.len() && want.iter().all(|w| point.contains(w))
}

/// Why a table prints a value without an uncertainty or as 0 (a sentence of its caption).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Remark {
    /// A limit whose error estimate is below half a unit of its last digit.
    LimitCertain,
    /// A simulated value whose half-width is below half a unit of its last digit.
    SimCertain,
    /// A value bounded below half a unit of its column's last place, without a certified
    /// significant digit.
    ZeroAtColumn,
}

impl Remark {
    /// The caption's sentence (plain text: no LaTeX specials).
    pub fn sentence(self) -> &'static str {
        match self {
            Remark::LimitCertain => {
                "Limits shown without an error are certain to every digit shown: every value within the error estimate rounds to those digits."
            }
            Remark::SimCertain => {
                "Simulated values shown without a half-width hold to every digit shown at 95 % confidence: their whole confidence interval rounds to those digits."
            }
            Remark::ZeroAtColumn => {
                "A 0 is zero to the last place its column shows: the value is known to be below half a unit of that place, though none of its significant digits is."
            }
        }
    }
}

/// A cell before its column is known: a number known only to be small (no significant
/// digit, `|value| <= bound`) is 0 if its column shows no place fine enough to see it.
enum Draft {
    /// Laid out.
    Cell(Cell, Option<Remark>),
    /// |value| ≤ `bound`; `otherwise` if the column cannot show it as 0.
    Small {
        bound: Float,
        otherwise: Result<Cell, String>,
    },
    /// Not computed, and why.
    Missing(String),
}

/// A number with an error as a cell, and the remark its caption needs when the error is
/// not printed ([`with_error`]: below half a unit of the last digit).
fn error_cell(est: &Float, err: &Float, digits: u32, sim: bool) -> Option<Draft> {
    let s = with_error(est, err, digits)?;
    // an error of exactly 0 (a simulated difference of identical runs) needs no remark
    let remark = match (&s.err, sim) {
        (Some(_), _) => None,
        _ if err.is_zero() => None,
        (None, false) => Some(Remark::LimitCertain),
        (None, true) => Some(Remark::SimCertain),
    };
    // an estimate its error does not resolve (`(0 ± 1)e-30`): small
    if Dec::parse(&s.value).is_some_and(|d| d.is_zero()) && s.err.is_some() {
        let p = est.prec().max(err.prec());
        let bound = Float::with_val(p, est.abs_ref()) + Float::with_val(p, err.abs_ref());
        return Some(Draft::Small {
            bound,
            otherwise: Ok(Cell::Num(s)),
        });
    }
    Some(Draft::Cell(Cell::Num(s), remark))
}

/// A certified or simulated value's text (`1.41e0`, `2.5e0 ± 1.2e-2`) as a cell.
fn value_cell(text: &str, digits: usize) -> Option<Draft> {
    if let Some((m, hw)) = text.split_once(" ± ") {
        let m = parse_decimal(m.trim(), SIM_READ_BITS).ok()?;
        let hw = parse_decimal(hw.trim(), SIM_READ_BITS).ok()?;
        return error_cell(&m, &hw, digits as u32, true);
    }
    shown(text, digits).map(|s| Draft::Cell(Cell::Num(s), None))
}

fn cell(k: &CheckResult, def: &TableDef, want: &[(String, String)]) -> Result<Draft, String> {
    let n = def.digits as usize;
    let at = |why: &str| format!("{}: {why}", label(want));
    let missing = |why: &str| Err(at(why));
    match def.cell {
        CellKind::Value => {
            let Some(row) = k.rows.iter().find(|r| same_point(&r.point, want)) else {
                return missing("no such point");
            };
            match &row.value {
                Ok(t) if row.digits == 0 => {
                    let why = format!("no certified digit ({t})");
                    match &row.magnitude {
                        Some(b) => Ok(Draft::Small {
                            bound: b.clone(),
                            otherwise: Err(at(&format!("{why}; |value| <= {}", upper_text(b)))),
                        }),
                        None => missing(&why),
                    }
                }
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
            error_cell(&l.estimate_value, &l.error_value, def.digits, false)
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
                CellKind::Verdict => {
                    return Ok(Draft::Cell(Cell::Word(j.class().to_string()), None))
                }
                CellKind::Margin => j.margin.clone(),
                _ => j.bound_value.clone().unwrap_or_default(),
            };
            match Dec::parse(&text) {
                Some(_) => Ok(Draft::Cell(
                    shown(&text, n).map_or(Cell::Missing, Cell::Num),
                    None,
                )),
                None => missing(&format!("'{text}' is not a number")),
            }
        }
    }
}

/// A positive bound in two significant digits, rounded up (`3.1e-25`).
fn upper_text(b: &Float) -> String {
    let (_, d, e) = b.to_sign_string_exp_round(10, Some(2), rug::float::Round::Up);
    let e = i64::from(e.unwrap_or(0)) - 1;
    match d.split_at_checked(1) {
        Some((a, r)) if !r.is_empty() => format!("{a}.{r}e{e}"),
        _ => format!("{d}e{e}"),
    }
}

/// The finest decimal place a column's nonzero numbers show (`None` without any).
fn finest_place(drafts: &[Vec<Draft>], j: usize) -> Option<i64> {
    drafts
        .iter()
        .filter_map(|r| match r.get(j) {
            Some(Draft::Cell(Cell::Num(s), _)) if lead_exp(s).is_some() => Some(last_place(s)),
            _ => None,
        })
        .min()
}

/// Settles the small values of each column: 0 where the bound is below half a unit of the
/// finest place the column shows (a value below it would print as 0 there too), else
/// their fallback. Returns the cells, the notes of missing ones and the caption's remarks.
fn settle(drafts: Vec<Vec<Draft>>) -> (Vec<Vec<Cell>>, Vec<String>, Vec<Remark>) {
    let ncol = drafts.first().map_or(0, Vec::len);
    let places: Vec<Option<i64>> = (0..ncol).map(|j| finest_place(&drafts, j)).collect();
    let (mut notes, mut remarks) = (Vec::new(), Vec::new());
    let cells = drafts
        .into_iter()
        .map(|row| {
            row.into_iter()
                .enumerate()
                .map(|(j, d)| {
                    let (c, remark) = match d {
                        Draft::Cell(c, r) => (Ok(c), r),
                        Draft::Missing(why) => (Err(why), None),
                        Draft::Small { bound, otherwise } => {
                            let zero = places[j].is_some_and(|place| {
                                let p = bound.prec().max(64) + 64;
                                let half =
                                    Float::with_val(p, Float::with_val(p, 10).pow(place)) / 2u32;
                                bound < half
                            });
                            if zero {
                                (
                                    Ok(Cell::Num(Shown {
                                        value: "0".into(),
                                        err: None,
                                        exp: 0,
                                    })),
                                    Some(Remark::ZeroAtColumn),
                                )
                            } else {
                                (otherwise, None)
                            }
                        }
                    };
                    remarks.extend(remark);
                    c.unwrap_or_else(|why| {
                        notes.push(why);
                        Cell::Missing
                    })
                })
                .collect()
        })
        .collect();
    remarks.sort();
    remarks.dedup();
    (cells, notes, remarks)
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
    let mut drafts = Vec::new();
    for rk in &rows {
        let mut line = Vec::new();
        for ck in &cols {
            // the check's point this cell shows: its row's, its column's and the fixed values
            let mut want: Vec<(String, String)> = rk.clone();
            want.extend(ck.iter().cloned());
            want.extend(def.at.iter().cloned());
            line.push(match cell(k, def, &want) {
                Ok(d) => d,
                Err(why) => Draft::Missing(why),
            });
        }
        drafts.push(line);
    }
    let (mut cells, notes, remarks) = settle(drafts);
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
        remarks: remarks.iter().map(|r| r.sentence().to_string()).collect(),
    })
}

/// Every declared table of a claim, laid out.
pub fn tables(r: &ClaimResult) -> Result<Vec<Table>, crate::Error> {
    r.claim.tables.iter().map(|d| layout(r, d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str, digits: usize) -> Draft {
        Draft::Cell(Cell::Num(shown(text, digits).unwrap()), None)
    }

    fn small(bound: &str) -> Draft {
        Draft::Small {
            bound: parse_decimal(bound, 128).unwrap(),
            otherwise: Err(format!("x: |value| <= {bound}")),
        }
    }

    #[test]
    fn a_small_value_is_zero_only_below_half_its_columns_finest_place() {
        // column 0 shows 0.449680 (last place 1e-6, half a unit 5e-7): a value bounded by
        // 3e-25 or 4.9e-7 is 0 there; one bounded by 6e-7 is not (it could print as
        // 0.000001), nor is any small value in a column without another number (column 1)
        let drafts = vec![
            vec![num("4.4968030e-1", 6), small("1")],
            vec![small("3e-25"), small("1e-30")],
            vec![small("4.9e-7"), Draft::Missing("y: failed".into())],
            vec![small("6e-7"), small("1e-30")],
        ];
        let (cells, notes, remarks) = settle(drafts);
        let text: Vec<Vec<String>> = cells
            .iter()
            .map(|r| r.iter().map(super::super::cell_text).collect())
            .collect();
        assert_eq!(
            text,
            [["0.449680", "—"], ["0", "—"], ["0", "—"], ["—", "—"],]
        );
        assert_eq!(remarks, [Remark::ZeroAtColumn]);
        // the notes of the missing cells, in row order
        assert_eq!(
            notes,
            [
                "x: |value| <= 1",
                "x: |value| <= 1e-30",
                "y: failed",
                "x: |value| <= 6e-7",
                "x: |value| <= 1e-30"
            ]
        );
    }

    #[test]
    fn bounds_in_notes_are_rounded_up() {
        // 3.101e-25 to two digits, upwards: 3.2e-25; 1e-30 stays 1.0e-30
        assert_eq!(
            upper_text(&parse_decimal("3.101e-25", 128).unwrap()),
            "3.2e-25"
        );
        assert_eq!(upper_text(&parse_decimal("1e-30", 128).unwrap()), "1.0e-30");
    }
}

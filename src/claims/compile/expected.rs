//! What the catalogue expects of a check: its verdict (`expect`, with the `finding` that
//! explains one other than PASS) and values from independent sources
//! (`[[check.expected_values]]`) at given grid points.

use super::claim::ExpectedDef;
use crate::claims::schema::{value_text, CheckSpec, FileCtx};
use crate::claims::verdict::Verdict;
use crate::claims::ClaimError;
use crate::num::parse_decimal;
use std::collections::BTreeMap;

/// Bits at which an expected value and its tolerance are parsed to validate them (the
/// run parses them again at its own precision).
const VALIDATION_BITS: u32 = 64;

/// `expect` (default PASS), and the `finding` any other verdict needs.
pub(crate) fn compile_expect(c: &FileCtx, cs: &CheckSpec) -> Result<Verdict, ClaimError> {
    let expect = match &cs.expect {
        None => Verdict::Pass,
        Some(e) => match e.get_ref().trim().to_ascii_lowercase().as_str() {
            "pass" => Verdict::Pass,
            "fail" => Verdict::Fail,
            "inconclusive" => Verdict::Inconclusive,
            other => {
                return c.err(
                    e.span(),
                    "expect",
                    format!("'{other}' is not pass, fail or inconclusive"),
                )
            }
        },
    };
    if expect != Verdict::Pass && cs.finding.as_deref().is_none_or(|f| f.trim().is_empty()) {
        let sp = cs.expect.as_ref().map(|e| e.span()).unwrap_or(0..0);
        return c.err(
            sp,
            "finding",
            "a check expected not to pass must say why in `finding` (the evidence)",
        );
    }
    Ok(expect)
}

/// The expected values of a check whose variables are `vars`: each at a point that
/// gives every variable a value, with a decimal value and tolerance. A check with a
/// limit takes none.
pub(crate) fn compile_expected_values(
    c: &FileCtx,
    cs: &CheckSpec,
    vars: &[String],
    has_limit: bool,
) -> Result<Vec<ExpectedDef>, ClaimError> {
    let mut out = Vec::new();
    for ev in &cs.expected_values {
        if has_limit {
            return c.err(
                ev.value.span(),
                "expected_values",
                "expected_values are not available in limit checks",
            );
        }
        let mut at = BTreeMap::new();
        for (k, v) in &ev.at {
            if !vars.contains(k) {
                return c.err(
                    v.span(),
                    "expected_values.at",
                    format!("'{k}' is not a grid variable"),
                );
            }
            at.insert(
                k.clone(),
                value_text(v.get_ref()).or_else(|e| c.err(v.span(), "expected_values.at", e))?,
            );
        }
        if let Some(v) = vars.iter().find(|v| !at.contains_key(*v)) {
            return c.err(
                ev.value.span(),
                "expected_values.at",
                format!("the point must give every grid variable; '{v}' is missing"),
            );
        }
        parse_decimal(ev.value.get_ref(), VALIDATION_BITS)
            .or_else(|e| c.err(ev.value.span(), "expected_values.value", e.to_string()))?;
        parse_decimal(ev.tolerance.get_ref(), VALIDATION_BITS).or_else(|e| {
            c.err(
                ev.tolerance.span(),
                "expected_values.tolerance",
                e.to_string(),
            )
        })?;
        out.push(ExpectedDef {
            at,
            value: ev.value.get_ref().trim().to_string(),
            tolerance: ev.tolerance.get_ref().trim().to_string(),
            source: ev.source.clone(),
        });
    }
    Ok(out)
}

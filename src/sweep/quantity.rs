//! Sweeps over a claim quantity: `quantity = "opt(tags).value / opt(sita).value"` with a
//! `[setup]` as in a claim file, evaluated at every point through the claims engine
//! ([`crate::claims::scope::Scope`]) at its two precisions, and recorded as
//! `{"quantity", "value", "digits"}` (plus `half_width` and `warnings` when the value
//! rests on a simulation).
//!
//! A simulated quantity (`lwl_sim(seed=…)`) draws its streams from its own `seed=` at the
//! claims engine's fixed point coordinate, as `check` does: every point uses common random
//! numbers, and the numbers still depend on nothing but the point.

use super::{Outcome, SweepError};
use crate::claims::cache::Cache;
use crate::claims::expr::Expr;
use crate::claims::registry;
use crate::claims::schema::line_of;
use crate::claims::scope::Scope;
use crate::claims::scope::SystemSpec;
use crate::error::Classify;
use crate::num::certify::{certify_pair, to_sci};
use std::collections::BTreeMap;
use std::sync::Arc;
use toml::Spanned;

/// Significant digits of a simulated value's half-width.
const HALF_WIDTH_DIGITS: u32 = 3;

/// A compiled quantity target.
#[derive(Debug)]
pub struct QuantityDef {
    /// The expression as written.
    pub text: String,
    /// 1-based line of `quantity`.
    pub line: usize,
    expr: Expr,
    system: Arc<dyn SystemSpec>,
    digits: u32,
    setup_canonical: String,
}

/// A TOML value written one way only: tables sorted by key, strings JSON-quoted.
fn canonical_toml(v: &toml::Value, out: &mut String) {
    match v {
        toml::Value::String(s) => {
            out.push_str(&serde_json::Value::String(s.clone()).to_string());
        }
        toml::Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_toml(x, out);
            }
            out.push(']');
        }
        toml::Value::Table(t) => {
            let mut keys: Vec<&String> = t.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(k);
                out.push('=');
                canonical_toml(&t[k], out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

impl QuantityDef {
    /// Compiles `quantity` and the `[setup]` of the grid file (`text`) for the grid
    /// variables `vars`.
    pub fn compile(
        path: &str,
        text: &str,
        quantity: &Spanned<String>,
        setup: Option<&toml::Table>,
        vars: &[String],
    ) -> Result<QuantityDef, SweepError> {
        let (system, digits, expr) =
            crate::claims::compile::compile_quantity(path, text, quantity, vars)?;
        let mut setup_canonical = String::new();
        if let Some(t) = setup {
            canonical_toml(&toml::Value::Table(t.clone()), &mut setup_canonical);
        }
        Ok(QuantityDef {
            text: quantity.get_ref().trim().to_string(),
            line: line_of(text, quantity.span().start),
            expr,
            system,
            digits,
            setup_canonical,
        })
    }

    /// Appends the canonical lines of a point: `quantity EXPR`, `setup {…}` and one
    /// `var NAME=VALUE` per variable (sorted by name).
    pub fn canonical(&self, s: &mut String, vars: &[String], vals: &[&str]) {
        s.push_str("quantity ");
        s.push_str(&self.text);
        s.push_str("\nsetup ");
        s.push_str(&self.setup_canonical);
        s.push('\n');
        for (n, v) in vars.iter().zip(vals) {
            s.push_str("var ");
            s.push_str(n);
            s.push('=');
            s.push_str(v);
            s.push('\n');
        }
    }

    /// The quantity at the point whose variables are `vars` (a cache of its own, so a
    /// point's value depends on nothing computed before it).
    pub fn evaluate(&self, vars: BTreeMap<String, String>) -> Outcome {
        let cache = Cache::default();
        let scope = Scope::new(vars, self.system.as_ref(), registry(), &cache, self.digits);
        match scope.eval_value(&self.expr) {
            Ok(v) => {
                let c = certify_pair(&v.lo, &v.hi, self.digits);
                let mut m = serde_json::Map::new();
                m.insert("quantity".into(), self.text.clone().into());
                m.insert("value".into(), c.text.into());
                m.insert("digits".into(), u64::from(c.digits).into());
                if let Some(sim) = &v.sim {
                    m.insert(
                        "half_width".into(),
                        to_sci(&sim.half_width, HALF_WIDTH_DIGITS).into(),
                    );
                    m.insert(
                        "warnings".into(),
                        serde_json::Value::Array(
                            sim.warnings.iter().map(|w| w.clone().into()).collect(),
                        ),
                    );
                }
                Outcome::Record(serde_json::Value::Object(m))
            }
            Err(e) => Outcome::Failed {
                kind: e.kind(),
                message: e.to_string(),
            },
        }
    }
}

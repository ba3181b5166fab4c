//! Quantities of the job-size distribution alone.
//!
//! | call | value |
//! |---|---|
//! | `mean()` | E[X] |
//! | `moment(j)` | E[X^j], j ∈ {−1, 0, 1, 2} |
//! | `sup_x_tail()` | sup_x x F̄(x) |
//! | `scv()` | Var X / E[X]² |

use super::shared::{enclosed, per_precision};
use crate::claims::error::QuantityError;
use crate::claims::expr::{Arg, Expr};
use crate::claims::registry::Quantity;
use crate::claims::scope::Call;
use crate::claims::signature::{Positional, Signature, VALUE_ONLY};
use crate::claims::value::Value;
use crate::num::interval::Interval;

/// `mean()`: E[X].
pub struct Mean;

static MEAN: Signature = Signature::value_only("mean", Some("dispatch"), "E[X]");

impl Quantity for Mean {
    declared!(MEAN);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "mean", String::new(), false, |d, _| {
            Ok(d.moment(1)?)
        })?;
        let proof = enclosed(&call.scope, "mean", String::new(), false, |e, _, _| {
            e.mean().map_err(|e| e.to_string())
        });
        Ok(Value::scalar("mean", p.with_proof(proof)))
    }
}

/// `moment(j)`: E[X^j] for j ∈ {−1, 0, 1, 2}.
pub struct Moment;

static MOMENT: Signature = Signature {
    name: "moment",
    model: Some("dispatch"),
    positional: Positional::Number { what: "j" },
    named: &[],
    fields: VALUE_ONLY,
    default_field: "value",
    summary: "E[X^j], j = -1, 0, 1, 2",
};

impl Quantity for Moment {
    declared!(MOMENT);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let bad = || QuantityError::Usage("moment(j): j must be -1, 0, 1 or 2".into());
        let j: i32 = match call.pos.first() {
            Some(Arg::Pos(Expr::Num(s))) => s.parse::<i32>().map_err(|_| {
                QuantityError::Usage(format!("moment(j): j must be -1, 0, 1 or 2, got {s}"))
            })?,
            Some(Arg::Pos(Expr::Neg(b))) => match b.as_ref() {
                Expr::Num(s) if s == "1" => -1,
                _ => return Err(bad()),
            },
            _ => return Err(QuantityError::Usage("moment(j) needs the order j".into())),
        };
        if !(-1..=2).contains(&j) {
            return Err(QuantityError::Usage(format!(
                "moment(j): j must be -1, 0, 1 or 2, got {j}"
            )));
        }
        let p = per_precision(&call.scope, "moment", j.to_string(), false, move |d, _| {
            Ok(d.moment(j)?)
        })?;
        let proof = enclosed(&call.scope, "moment", j.to_string(), false, |e, _, _| {
            e.moment(j).map_err(|e| e.to_string())
        });
        Ok(Value::scalar("moment", p.with_proof(proof)))
    }
}

/// `sup_x_tail()`: sup_x x F̄(x) (the h → ∞ TAGS threshold is E[X] divided by it).
pub struct SupXTail;

static SUP_X_TAIL: Signature =
    Signature::value_only("sup_x_tail", Some("dispatch"), "sup_x x F̄(x)");

impl Quantity for SupXTail {
    declared!(SUP_X_TAIL);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "sup_x_tail", String::new(), false, |d, _| {
            Ok(d.sup_x_tail().map(|(_, v)| v)?)
        })?;
        let proof = enclosed(
            &call.scope,
            "sup_x_tail",
            String::new(),
            false,
            |e, _, _| e.sup_x_tail().map_err(|e| e.to_string()),
        );
        Ok(Value::scalar("sup_x_tail", p.with_proof(proof)))
    }
}

/// `scv()`: the squared coefficient of variation C² = Var X / E[X]² = E[X²]/E[X]² − 1
/// (1 for the exponential; the redundancy literature's measure of variability).
pub struct Scv;

static SCV: Signature = Signature::value_only(
    "scv",
    Some("dispatch"),
    "squared coefficient of variation Var X / E[X]^2",
);

impl Quantity for Scv {
    declared!(SCV);
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "scv", String::new(), false, |d, _| {
            let m1 = d.moment(1)?;
            let m2 = d.moment(2)?;
            let r = rug::Float::with_val(d.prec(), &m2 / &m1) / &m1;
            Ok(r - 1u32)
        })?;
        let proof = enclosed(&call.scope, "scv", String::new(), false, |e, _, bits| {
            let m1 = e.moment(1).map_err(|e| e.to_string())?;
            let m2 = e.moment(2).map_err(|e| e.to_string())?;
            Ok(m2.div(&m1).div(&m1).sub(&Interval::int(bits, 1)))
        });
        Ok(Value::scalar("scv", p.with_proof(proof)))
    }
}

//! `lwl()`: Least-Work-Left (the M/G/h central FCFS queue) by the Lee–Longton
//! approximation — labelled an approximation in every report.

use super::shared::per_precision;
use crate::claims::error::QuantityError;
use crate::claims::registry::Quantity;
use crate::claims::scope::Call;
use crate::claims::signature::Signature;
use crate::claims::value::Value;
use crate::policy::lwl::lee_longton;

/// `lwl()`.
pub struct Lwl;

static LWL: Signature = Signature::value_only(
    "lwl",
    Some("dispatch"),
    "Least-Work-Left by the Lee-Longton approximation (labelled)",
);

impl Quantity for Lwl {
    declared!(LWL, unproven: "is the Lee-Longton approximation, evaluated in MPFR and not enclosed");
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "lwl", String::new(), true, |d, s| {
            let hosts = s.need_hosts("lwl")?;
            let load = s.need_load("lwl")?;
            let (_, rho) = load.resolve(d, hosts)?;
            Ok(lee_longton(d, &rho, hosts, s.metric)?)
        })?;
        Ok(Value::scalar("lwl", p))
    }
}

//! `lwl()`: Least-Work-Left (the M/G/h central FCFS queue) by the Lee–Longton
//! approximation — labelled an approximation in every report.

use super::shared::per_precision;
use crate::claims::error::QuantityError;
use crate::claims::proof::Proof;
use crate::claims::registry::Quantity;
use crate::claims::scope::Call;
use crate::claims::scope::Scope;
use crate::claims::signature::Signature;
use crate::claims::systems::dispatch::DispatchSpec;
use crate::claims::value::Value;
use crate::num::interval::Interval;
use crate::policy::lwl::{lee_longton, lee_longton_enclosed};

/// `lwl()`.
pub struct Lwl;

static LWL: Signature = Signature::value_only(
    "lwl",
    Some("dispatch"),
    "Least-Work-Left by the Lee-Longton approximation (labelled)",
);

impl Quantity for Lwl {
    declared!(LWL, unproven: "is the Lee-Longton approximation, not enclosed here");
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "lwl", String::new(), true, |d, s| {
            let hosts = s.need_hosts("lwl")?;
            let load = s.need_load("lwl")?;
            let (_, rho) = load.resolve(d, hosts)?;
            Ok(lee_longton(d, &rho, hosts, s.metric)?)
        })?;
        let v = Value::scalar("lwl", p);
        if !call.scope.rigorous {
            return Ok(v);
        }
        // The approximation's formula on the law's enclosed moments (an enclosure of the
        // Lee-Longton value, which is what lwl() means, not of the M/G/h queue).
        Ok(
            match crate::num::range::isolated(|| lwl_enclosed(&call.scope)) {
                Ok(e) => v.prove("value", Proof::enclosed(e)),
                Err(why) => v.unproven_rest(&format!("lwl(): {why}")),
            },
        )
    }
}

/// [`lee_longton_enclosed`] at the point: the law enclosed, its load enclosed, or why not.
fn lwl_enclosed(scope: &Scope) -> Result<Interval, String> {
    let s = DispatchSpec::resolve(scope, true).map_err(|e| e.to_string())?;
    let hosts = s.hosts.ok_or("lwl() needs a finite number of hosts")?;
    let enc = s.enclosure(scope.enclosure_bits())?;
    let (_, rho) = s.enclosed_load(scope, enc.as_ref(), hosts)?;
    lee_longton_enclosed(enc.as_ref(), &rho, hosts, s.metric).map_err(|e| e.to_string())
}

//! `lwl()`: Least-Work-Left (the M/G/h central FCFS queue) by the Lee–Longton
//! approximation — labelled an approximation in every report.

use super::per_precision;
use crate::claims::registry::{Call, Positional, Quantity, QuantityError, Signature, VALUE_ONLY};
use crate::claims::value::Value;
use crate::dist::JobSize;
use crate::policy::mmh::erlang_c;
use crate::policy::Metric;
use rug::Float;

/// `lwl()`.
pub struct Lwl;

static LWL: Signature = Signature {
    name: "lwl",
    model: Some("dispatch"),
    positional: Positional::None,
    named: &[],
    fields: VALUE_ONLY,
    default_field: "value",
    summary: "Least-Work-Left by the Lee-Longton approximation (labelled)",
};

impl Quantity for Lwl {
    fn signature(&self) -> &'static Signature {
        &LWL
    }
    fn eval(&self, call: &Call) -> Result<Value, QuantityError> {
        let p = per_precision(&call.scope, "lwl", String::new(), true, |d, s| {
            let hosts = s.need_hosts("lwl")?;
            let load = s.need_load("lwl")?;
            let (_, rho) = load.resolve(d, hosts)?;
            lee_longton(d, &rho, hosts, s.metric)
        })?;
        Ok(Value::scalar("lwl", p))
    }
}

/// Least-Work-Left (the M/G/h FCFS queue) by the Lee–Longton approximation — an
/// **approximation**, not an exact value (Lee & Longton 1959; see Whitt, "Approximations
/// for the GI/G/m queue", 1993): E[W] ≈ (1 + C²)/2 · E[W_{M/M/h}] with
/// E[W_{M/M/h}] = C(h, ρ) E[X] / (h − ρ), C² = Var X / E[X]², i.e.
/// E[W] ≈ C(h, ρ) E[X²] / (2 E[X] (h − ρ)). Exact for h = 1 (Pollaczek–Khinchine).
/// Waiting in FCFS does not depend on the job's own size, so E[W/X] = E[W] E[1/X].
pub fn lee_longton(
    d: &dyn JobSize,
    rho: &Float,
    hosts: usize,
    metric: Metric,
) -> Result<Float, QuantityError> {
    let bits = d.prec();
    let m1 = d.mean()?;
    let m2 = d.moment(2)?;
    let c = erlang_c(rho, hosts);
    let h = Float::with_val(bits, hosts);
    let den = Float::with_val(bits, &h - rho) * Float::with_val(bits, &m1 * 2u32);
    let w = Float::with_val(bits, &c * &m2) / den;
    Ok(match metric {
        Metric::Waiting => w,
        Metric::Response => w + m1,
        Metric::Slowdown => {
            let inv = d.moment(-1)?;
            w * inv
        }
    })
}

//! The quantities a claim may call, one file per domain, all registered in [`register`].
//!
//! | file | domain |
//! |---|---|
//! | [`dispatch`] | size-based routing: optimal cutoffs, a policy at given cutoffs, TAGS thresholds and stability |
//! | [`dist`] | the job-size distribution alone (moments and the like) |
//! | [`jsq`] | JSQ(d(N)) load balancing: fixed points, fluid trajectories, exact finite-N values, the occupancy simulator, the diffusion limit |
//! | [`lwl`] | Least-Work-Left by a labelled approximation |
//! | [`redundancy`] | redundancy scheduling: exact values, simulations, paired differences, stability limits |
//! | [`sim`] | simulated quantities, with 95 % half-widths |
//!
//! Each file's documentation lists its quantities; the registry is the complete list
//! (`taskassign check --quantities` prints it from [`super::registry::Registry::signatures`]).
//!
//! Adding a quantity: a type implementing [`Quantity`](super::registry::Quantity) in its
//! domain's file, and one line below.

pub mod dispatch;
pub mod dist;
pub mod jsq;
pub mod lwl;
pub mod redundancy;
pub mod run;
pub mod sim;

use super::registry::{CacheKey, QuantityError, Registry};
use super::scope::Scope;
use super::systems::dispatch::{DispatchSpec, DispatchSystem};
use super::value::{FieldValue, Pair};
use crate::dist::{DistFactory, JobSize};
use crate::num::certify::Certify;
use rug::Float;

/// Registers every quantity.
pub fn register(r: &mut Registry) {
    r.quantity(dispatch::Opt);
    r.quantity(dispatch::Eval);
    r.quantity(dispatch::ThresholdQ);
    r.quantity(lwl::Lwl);
    r.quantity(sim::LwlSim);
    r.quantity(sim::TagsHostError);
    r.quantity(dispatch::TagsStable);
    r.quantity(dispatch::TagsStableSearch);
    r.quantity(dist::Mean);
    r.quantity(dist::Moment);
    r.quantity(dist::SupXTail);
    r.quantity(dist::Scv);
    r.quantity(jsq::JsqFixedPoint);
    r.quantity(jsq::JsqFluid);
    r.quantity(jsq::JsqExact);
    r.quantity(jsq::JsqSim);
    r.quantity(jsq::JsqDiffusion);
    r.quantity(jsq::JsqExcess);
    r.quantity(redundancy::RedExact);
    r.quantity(redundancy::RedSim);
    r.quantity(redundancy::RedSimDiff);
    r.quantity(redundancy::RedStability);
}

/// A vector field from the two precisions' vectors (missing when their lengths differ).
pub(crate) fn pairs(lo: &[Float], hi: &[Float], what: &str) -> FieldValue {
    if lo.len() != hi.len() {
        return FieldValue::Missing(format!(
            "the two precisions disagree on the number of {what}"
        ));
    }
    FieldValue::Vector(
        lo.iter()
            .zip(hi)
            .map(|(a, b)| Pair::new(a.clone(), b.clone()))
            .collect(),
    )
}

/// A number computed from the distribution (and the system) at each precision, cached
/// under `what` with the canonical system and `extra`. The load is resolved only when
/// `with_load`.
pub(crate) fn per_precision<F>(
    scope: &Scope,
    what: &'static str,
    extra: String,
    with_load: bool,
    f: F,
) -> Result<Pair, QuantityError>
where
    F: Fn(&dyn JobSize, &DispatchSystem) -> Result<Float, QuantityError>,
{
    let s = DispatchSpec::resolve(scope, with_load)?;
    let key = CacheKey::new(what, format!("{extra}|{}", s.key()));
    let r = scope.cache.get_or(key, || {
        let spec = s.spec()?;
        let both = Certify::digits(scope.digits).run(|b| {
            let d = spec.build(b)?;
            f(d.as_ref(), &s)
        })?;
        // A quantity computed while a run left MPFR's exponent range, and that came out
        // 0, ∞ or NaN, is out of range, not a number (issue 14, item 1).
        both.guard_range(
            what,
            [&crate::num::certify::certify_pair(&both.lo, &both.hi, 1)],
            [],
        )?;
        Ok(Pair::new(both.lo, both.hi))
    })?;
    Ok(r.as_ref().clone())
}

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

mod shared;

use super::registry::Registry;

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

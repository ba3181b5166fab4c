//! JSQ(d(N)) load balancing in many-server systems: the models of Mukherjee, Borst,
//! van Leeuwaarden & Whiting (pools: arXiv 1612.00722; queues: arXiv 1612.00723), their
//! fluid and mean-field limits, certified fixed points, finite-N exact values, the
//! occupancy simulator and the paper's coupling (ARCHITECTURE.md, "Load balancing").
//!
//! * [`model`]: the two models, the sampling rule, d as a number or a formula in N, and
//!   the validated constructors ([`model::LbError`]).
//! * [`fluid`]: the fixed-d mean-field ODEs and JSQ's discontinuous fluid limit, integrated
//!   with error control and exact sliding.
//! * [`fixed_point`]: the fixed points in MPFR (closed forms, and a bracketed root of the
//!   fixed-point equations otherwise), certified at two precisions.
//! * [`exact`]: the finite-N Markov chain's stationary distribution (`num::markov`).
//! * [`sim`]: the occupancy simulator (O(occupied levels) per event, any d and N) and the
//!   plain per-server simulator that cross-checks it.
//! * [`diffusion`]: the Halfin–Whitt diffusion limit and its reflected-Euler simulation.
//! * [`coupling`]: JSQ, JSQ(d) and a CJSQ(n) scheme on one uniformised clock, with the
//!   paper's pathwise inequalities checked at every event.

pub mod coupling;
pub mod diffusion;
pub mod exact;
pub mod fixed_point;
pub mod fluid;
pub mod formula;
pub mod model;
pub mod sim;

//! JSQ(d(N)) load balancing in many-server systems: the models of Mukherjee, Borst,
//! van Leeuwaarden & Whiting (pools: arXiv 1612.00722; queues: arXiv 1612.00723), their
//! fluid and mean-field limits, certified fixed points, finite-N exact values, the
//! occupancy simulator and the paper's coupling (ARCHITECTURE.md, "Load balancing").
//!
//! * `model`: the two models, the sampling rule, d as a number or a formula in N, and
//!   the validated constructors (`model::LbError`).
//! * `fluid`: the fixed-d mean-field ODEs and JSQ's discontinuous fluid limit, integrated
//!   with error control and exact sliding.
//! * `fixed_point`: the fixed points in MPFR (closed forms, and a bracketed root of the
//!   fixed-point equations otherwise), certified at two precisions.
//! * `exact`: the finite-N Markov chain's stationary distribution (`num::markov`).
//! * `sim`: the occupancy simulator (O(occupied levels) per event, any d and N) and the
//!   plain per-server simulator that cross-checks it.
//! * `diffusion`: the Halfin–Whitt diffusion limit and its reflected-Euler simulation.
//! * `coupling`: JSQ, JSQ(d) and a CJSQ(n) scheme on one uniformised clock, with the
//!   paper's pathwise inequalities checked at every event.

pub(crate) mod coupling;
pub(crate) mod diffusion;
pub(crate) mod enclosed;
pub(crate) mod exact;
pub(crate) mod fixed_point;
pub(crate) mod fluid;
pub(crate) mod formula;
pub(crate) mod model;
pub(crate) mod sim;

pub use coupling::{run_coupled, run_coupled_with, CouplingReport, Fault, PoolDepartures};
pub use diffusion::{halfin_whitt_lambda, simulate as simulate_diffusion, DiffusionEstimate};
pub use enclosed::{
    fixed_point_enclosed, fixed_point_proven, jsq_fixed_point_enclosed,
    power_of_d_capacity_enclosed, queues_power_of_d_enclosed, EnclosedFixedPoint,
    MAX_ENCLOSED_LEVELS,
};
pub use exact::{
    exact, state_bound, ExactMethod, ExactOptions, ExactResult, Region, Simplex, Stopped,
    Truncation, Value as ExactValue, DEFAULT_MAX_STATES,
};
pub use fixed_point::{
    by_root as fixed_point_by_root, certified as certified_fixed_point,
    closed_form as fixed_point_closed_form, fixed_point, jsq_reference, l1_distance,
    CertifiedFixedPoint, FixedPoint, Method as FixedPointMethod,
};
pub use fluid::{trajectory as fluid_trajectory, FluidOptions, Limit, Switch, Trajectory};
pub use formula::Formula;
pub use model::{
    tail_probability, tail_table, DSpec, DUsed, JsqSystem, LbError, Model, ModelKind, Sampling,
};
pub use sim::{
    run as simulate, summarize, JsqSummary, LengthChoice, Measure, Obs, OccupancySim, PerServerSim,
    Plan, SimRun, DEFAULT_RUN, DEFAULT_TIME, RELAXATION_MULTIPLE,
};

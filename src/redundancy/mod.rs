//! Redundancy scheduling with cancel-on-complete: nested systems, the class-based policies
//! LRF/MRF × FCFS/ROS, exact product forms and Markov chains, and stability regions
//! (Anton, Righter & Verloop, "Efficient scheduling in redundancy systems with general
//! service times", arXiv 2206.10164, 2022 — [ARV22]).
//!
//! **The model.** K servers with rates μ_s; job classes c with a redundancy set
//! S_c ⊆ {1, …, K} and Poisson arrivals at rate λ_c. A class-c job sends a copy to every
//! server of S_c; a server works on one copy at a time; the first copy to complete ends
//! the job and its other copies are removed at once (cancel-on-complete). A copy of
//! requirement x takes x/μ_s at server s. Copies are **i.i.d.** (each copy's requirement
//! drawn on its own) or **identical** (one requirement per job). The paper's theorems are
//! for **nested** systems: any two sets are disjoint or one contains the other
//! (`classes::ClassSystem::nestedness` checks it and every output says so).
//!
//! **Scheduling** (`policy`): a server that becomes free picks, among the jobs whose set
//! contains it (those in service elsewhere included), one of the highest class priority
//! (Π1: LRF serves the smallest |S_c| first, MRF the largest, `none` ignores classes) and,
//! among those, the oldest (Π2 = FCFS) or a uniformly random one (Π2 = ROS). The reading
//! of [ARV22]'s abstract is **non-preemptive**: a server keeps the copy it serves until it
//! completes or is cancelled. Preemptive-resume class priority is an option: an arriving
//! job of a strictly higher class priority takes over a server, whose copy keeps its
//! remaining work and waits in that server's queue.
//!
//! **Methods.**
//! * `product_form`: FCFS with exponential i.i.d. copies has the product form of
//!   Gardner et al. (2016), aggregated by Bonald & Comte (2017):
//!   π(x) = π(0) Φ(x) Π λ_c^{x_c}; its normalising sum is summed here in closed form over
//!   the phases of the union of busy sets (no truncation), in MPFR at two precisions, and
//!   cross-checked against the truncated Φ recursion with a proven tail bound.
//! * `redundancy_d`: the redundancy-d model (k equal servers, every job on d of them
//!   chosen uniformly) aggregated by the size of that union: a one-dimensional recursion,
//!   a second exact model and a cross-check of the first.
//! * `ctmc`: the other policies (ROS, LRF-/MRF-FCFS, LRF-/MRF-ROS, preemptive or not)
//!   with exponential i.i.d. copies: the stationary distribution of a truncated Markov
//!   chain whose state holds the class counts, the class each server serves and which
//!   servers share a job, lumped onto the orbits of the system's symmetries (exchangeable
//!   classes and servers); a weighted simplex of the class counts is grown until two
//!   truncations agree on the printed digits.
//! * `stability`: the exact FCFS region Σ_{c∈A} λ_c < μ(∪_{c∈A} S_c) for every class
//!   set A, and (with the simulator) a simulated estimate for the other policies and identical
//!   copies.

pub(crate) mod classes;
pub(crate) mod ctmc;
pub(crate) mod exact;
pub(crate) mod policy;
pub(crate) mod product_form;
pub(crate) mod redundancy_d;
pub(crate) mod run;
pub(crate) mod sim;
pub(crate) mod stability;

pub use classes::{Class, ClassSystem, Nestedness, ServerSet, MAX_SERVERS, PRESET_NAMES};
pub use ctmc::lyapunov::{lyapunov_search, LyapunovCertificate, LyapunovVerdict};
/// The chain solve with the symmetry reduction switched off or on: the reduced chain's
/// reference in the tests.
#[doc(hidden)]
pub use ctmc::solve_with as solve_chain_with;
pub use ctmc::{
    certificate_level, certified_chain_means, solve_certified as solve_chain_certified,
    CertifiedMeans, CertifiedResult, ProvenValue, MAX_CHAIN_STATES,
};
pub use ctmc::{
    class_chain_values, labelled_chain_values, solve as solve_chain, solve_options, CertifiedValue,
    ChainResult, ChainValues, SimplexTruncation,
};
pub use exact::{
    exact, exact_limited, exact_methods_apply, exact_rigorous, Enclosures, ExactReport,
    Method as ExactMethod,
};
pub use policy::{Copies, Order, Policy, Priority, POLICY_NAMES};
pub use product_form::{
    fcfs_means, fcfs_means_enclosed, for_each_state, normaliser, ordered_weight, truncated_sums,
    EnclosedMeans, MeanValues, Truncated,
};
pub use redundancy_d::{redundancy_d, RedundancyD};
pub use run::{simulate, RedundancySimRequest, SimReport, DEFAULT_RUN};
pub use sim::{Engine, RedundancySim, RedundancyTally, METHOD_EVENTS, METHOD_FCFS_RECURSION};
pub use stability::{fcfs_region, FcfsRegion};

use crate::dist::DistError;
use crate::num::markov::MarkovError;
use crate::num::NumError;
use thiserror::Error;

/// Errors of the redundancy room.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum RedundancyError {
    /// A system that cannot be built as given (a server out of range, an empty set, a
    /// negative rate, two classes with one set, …).
    #[error("{0}")]
    BadSystem(String),
    /// An unknown or malformed policy, copy model or option.
    #[error("{0}")]
    BadPolicy(String),
    /// An unstable system where a stable one is needed (the exact values): the class set A
    /// with Σ_{c∈A} λ_c ≥ μ(∪_{c∈A} S_c).
    #[error(
        "unstable: classes {classes} bring {load} to servers {servers} of capacity {capacity}"
    )]
    Unstable {
        /// The violated class set, e.g. `{1}, {1+2}`.
        classes: String,
        /// The union of their sets, e.g. `1+2`.
        servers: String,
        /// Σ λ_c over the set.
        load: String,
        /// μ of the union.
        capacity: String,
    },
    /// A request the methods here do not cover (an exact value for a policy without a
    /// chain, a chain too large for its state limit).
    #[error("{0}")]
    Unsupported(String),
    /// A computation that could not be finished (a chain whose truncation did not settle
    /// within the state limit, a solver that did not converge).
    #[error("{0}")]
    Numerical(String),
    /// A broken invariant (a bug).
    #[error("internal error: {0}")]
    Internal(String),
    /// The Markov-chain layer.
    #[error(transparent)]
    Markov(#[from] MarkovError),
    /// Distributions.
    #[error(transparent)]
    Dist(#[from] DistError),
    /// Numbers.
    #[error(transparent)]
    Num(#[from] NumError),
    /// The simulator layer (replications, threads).
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
}

impl crate::error::Classify for RedundancyError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            RedundancyError::BadSystem(_)
            | RedundancyError::BadPolicy(_)
            | RedundancyError::Unstable { .. }
            | RedundancyError::Unsupported(_) => ErrorKind::Input,
            RedundancyError::Numerical(_) => ErrorKind::Numerical,
            RedundancyError::Internal(_) => ErrorKind::Internal,
            RedundancyError::Markov(e) => e.kind(),
            RedundancyError::Dist(e) => e.kind(),
            RedundancyError::Num(e) => e.kind(),
            RedundancyError::Sim(e) => e.kind(),
        }
    }
}

//! Searches over the policy formulas: optimal cutoffs (SITA-opt, SITA-E, TAGS-opt,
//! TAGS-minmax) and TAGS stability thresholds.
//!
//! Optimal cutoffs are found in three stages. (1) A global search: the objective is a chain
//! of per-host terms, so dynamic programming finds the exact optimum over a grid of
//! cutoffs (log-spaced, or at quantiles) for any h (`grid`). (2) A damped Newton
//! refinement at a low precision from the grid optimum, and (3) the same at the working
//! precision, on the analytic gradient (`polish`): the cutoffs are a root of the gradient
//! and so reach full precision. Each certified result is stage (3) at two precisions.

//!
//! The rooms: `pipeline` runs the stages (and the two-precision certified run),
//! `dp` is the one dynamic programme of the grid searches (`grid` in MPFR, `fast` in
//! f64 logarithms), `polish` the Newton refinement on `chain`'s terms, `equalize` the
//! cutoffs defined by equal host quantities (SITA-E, TAGS-minmax), `threshold` TAGS
//! stability and `design` the fewest hosts meeting a target.

pub(crate) mod budget;
pub(crate) mod certified;
pub(crate) mod chain;
pub(crate) mod design;
pub(crate) mod dp;
pub(crate) mod equalize;
pub(crate) mod fast;
pub(crate) mod grid;
pub(crate) mod pipeline;
pub(crate) mod polish;
pub(crate) mod proven;
pub(crate) mod rigorous;
pub(crate) mod slack;
pub(crate) mod threshold;

pub use certified::{
    eval_certified, optimize_certified, threshold_certified, DispatchNumbers, EvalReport,
    EvalRequest, OptimizeReport, OptimizeRequest, ThresholdReport,
};
pub use design::{design, Attempt, Design, DesignError, Target as DesignTarget};
pub use equalize::{
    balanced_cutoffs, sita_e_cutoffs, tags_equal_load_cutoffs, tags_minmax_cutoffs,
};
pub use pipeline::{
    optimal_cutoffs, optimal_cutoffs_certified, optimal_cutoffs_pair, optimum_at, optimum_from,
    search_start, search_starts, search_starts_with, PolishStart, Search,
};
pub use polish::Hessian;
pub use proven::{
    box_limit, optimize_proven, optimize_proven_with, FaceBound, PairStats, PairsNotRun,
    ProvenOptimum, ProvenStop, WholeBound, MAX_BOXES,
};
pub use rigorous::{
    eval_rigorous, threshold_rigorous, RigorousEval, RigorousThreshold, RIGOROUS_GUARD_BITS,
};
pub use threshold::{
    check_tags_stable, exhaustive_stable, greedy, tags_threshold, Greedy, Threshold,
};

// The search's stages one by one, for `tests/optimize.rs` and `tests/optimize_errors.rs`
// (each stage against another and against brute force); not a stable interface.
#[doc(hidden)]
pub use fast::{
    fast_grid_size, ln_brent, ln_grid, ln_grid_optima, Above, LnChain, LnPlacement, LN_BRENT_TOL,
};
#[doc(hidden)]
pub use grid::{grid_optima, make_grid, GridOptimum};

use crate::policy::{Evaluation, PolicyKind};
use chain::ChainKind;
use rug::Float;

/// Host counts whose grid optimum is within this factor of the best are all refined.
pub const CANDIDATE_RATIO: f64 = 1.25;
/// At most this many host counts are zoomed and refined.
pub const MAX_CANDIDATES: usize = 4;

/// Precision of the global search and the first refinement.
pub const SEARCH_BITS: u32 = 64;

crate::vocab::vocabulary! {
    "policy",
    /// What is optimised.
    pub enum OptPolicy {
        /// SITA with the cutoffs that minimise the metric.
        Sita,
        /// SITA with equal host loads (ρ_i = ρ/h).
        SitaE,
        /// TAGS with the cutoffs that minimise the metric.
        Tags,
        /// TAGS with the cutoffs that minimise the largest mean queue length λ_i Q_i
        /// (jobs waiting, not in service, at host i; λ_i = λ P(X > s_{i−1})).
        TagsMinmax,
    }
}

impl OptPolicy {
    /// The name used on the command line and in claim files.
    pub fn name(self) -> &'static str {
        self.into()
    }
    /// The routing policy whose cutoffs these are.
    pub fn routing(self) -> PolicyKind {
        match self {
            OptPolicy::Sita | OptPolicy::SitaE => PolicyKind::Sita,
            OptPolicy::Tags | OptPolicy::TagsMinmax => PolicyKind::Tags,
        }
    }

    /// The chain of host terms the policy's objective is.
    pub fn chain_kind(self) -> ChainKind {
        match self {
            OptPolicy::Sita | OptPolicy::SitaE => ChainKind::Sita,
            OptPolicy::Tags => ChainKind::Tags,
            OptPolicy::TagsMinmax => ChainKind::TagsQueueLength,
        }
    }

    /// Whether the cutoffs minimise the metric (an argmin the search pipeline finds and
    /// `design` can use), rather than solve equations between the hosts (SITA-E's equal
    /// loads, TAGS-minmax's equal queue lengths: chains of one-dimensional roots, which
    /// ignore the search's starts).
    pub fn minimises_metric(self) -> bool {
        match self {
            OptPolicy::Sita | OptPolicy::Tags => true,
            OptPolicy::SitaE | OptPolicy::TagsMinmax => false,
        }
    }

    /// Whether the objective is the largest host term rather than their sum (TAGS-minmax:
    /// the grid searches combine the terms by `max`).
    pub fn minimises_largest(self) -> bool {
        match self {
            OptPolicy::TagsMinmax => true,
            OptPolicy::Sita | OptPolicy::SitaE | OptPolicy::Tags => false,
        }
    }
}

/// An optimum at one precision.
#[derive(Debug, Clone)]
pub struct Optimum {
    /// The h − 1 cutoffs; idle trailing hosts have their cutoff at the top of the support.
    pub cutoffs: Vec<Float>,
    /// Hosts left idle (their cutoffs are the top).
    pub idle_hosts: usize,
    /// The two precisions of a certified run disagree on how many hosts are idle (each
    /// searched on its own): the idle count, and the cutoffs of the hosts in question, are
    /// not certified. Always false outside a certified run.
    pub idle_undetermined: bool,
    /// The policy evaluated at the cutoffs (metric value, loads, queueing, wasted).
    pub eval: Evaluation,
    /// For TAGS-minmax: the minimised largest mean queue length.
    pub max_queue: Option<Float>,
    /// Newton iterations of the final polish.
    pub iterations: usize,
    /// Per cutoff (idle ones included), the relative precision to which the optimum
    /// determines it at this precision (see [`polish::Polished::resolution`]); 0 where
    /// the cutoff is exact (idle hosts, SITA-E and minmax roots), empty if unknown.
    pub resolution: Vec<f64>,
    /// The polish's last Hessian (a start for a polish at a higher precision).
    pub hessian: Option<polish::Hessian>,
    /// The arrival rate λ the load resolved to at this precision.
    pub lambda: Float,
    /// The total load ρ = λ E[X] at this precision.
    pub load: Float,
    /// On a law whose every size is an atom (SITA, TAGS): what the atom programme the
    /// search started from proved; `None` for other laws and policies.
    pub atoms: Option<AtomBound>,
}

/// What the atom programme of a discrete law proved while it gave the certified search its
/// start ([`Optimum::atoms`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AtomBound {
    /// Whether it closed on the minimum over every cutoff vector (its point is then that
    /// minimum) or stopped at its budget (its point is the best it met).
    pub closed: bool,
    /// Its lower bound of that minimum, proven (every host term enclosed with outward
    /// rounding): `optimize --rigorous` takes it where it closes the gap at the digits
    /// asked instead of running the programme again.
    pub value_lo: Float,
    /// The host terms it enclosed.
    pub terms: usize,
}

/// Relative difference below which two refined candidates tie at the search precision:
/// both go on to the working precision, which decides.
pub const TIE_BITS: u32 = SEARCH_BITS - 16;

impl Optimum {
    /// The cutoffs below the top (the non-idle ones).
    pub fn cutoffs_free(&self) -> Vec<Float> {
        self.cutoffs[..self.cutoffs.len() - self.idle_hosts].to_vec()
    }
}

//! Searches over the policy formulas: TAGS stability thresholds (and, later, optimal
//! cutoffs).

pub mod threshold;

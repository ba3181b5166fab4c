//! What a check asserts and what it concluded: [`Relation`] and [`Verdict`], shared by the
//! compiler ([`super::compile`]) and the runner ([`super::run`]).

/// The relation a check asserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// quantity ≤ bound (+ tolerance).
    Le,
    /// quantity < bound.
    Lt,
    /// quantity ≥ bound (− tolerance).
    Ge,
    /// quantity > bound.
    Gt,
    /// |quantity − bound| ≤ tolerance.
    Eq,
    /// sign(quantity) = sign(bound), with |quantity| ≤ tolerance counting as zero.
    SignAs,
    /// The quantity's interval (value ± its uncertainty: a simulation's 95 % half-width)
    /// contains the bound, and is at most `tolerance` wide on each side.
    Consistent,
    /// Non-decreasing along a grid variable (steps ≥ −tolerance).
    Increasing,
    /// Non-increasing along a grid variable.
    Decreasing,
    /// The largest value along a variable is at `at`.
    Argmax,
    /// The smallest value along a variable is at `at`.
    Argmin,
}

impl Relation {
    /// Reads the schema's spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim() {
            "<=" => Relation::Le,
            "<" => Relation::Lt,
            ">=" => Relation::Ge,
            ">" => Relation::Gt,
            "==" | "=" => Relation::Eq,
            "sign_as" => Relation::SignAs,
            "consistent" => Relation::Consistent,
            "increasing" => Relation::Increasing,
            "decreasing" => Relation::Decreasing,
            "argmax" => Relation::Argmax,
            "argmin" => Relation::Argmin,
            _ => return None,
        })
    }
    /// The schema's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Relation::Le => "<=",
            Relation::Lt => "<",
            Relation::Ge => ">=",
            Relation::Gt => ">",
            Relation::Eq => "==",
            Relation::SignAs => "sign_as",
            Relation::Consistent => "consistent",
            Relation::Increasing => "increasing",
            Relation::Decreasing => "decreasing",
            Relation::Argmax => "argmax",
            Relation::Argmin => "argmin",
        }
    }
    /// Whether the relation compares values along a variable.
    pub fn is_along(self) -> bool {
        matches!(
            self,
            Relation::Increasing | Relation::Decreasing | Relation::Argmax | Relation::Argmin
        )
    }
}

/// A verdict. The order is severity: PASS < INCONCLUSIVE < FAIL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The relation holds at every point, beyond the numerical uncertainty.
    Pass,
    /// Some point is within the uncertainty of the bound, or could not be computed.
    Inconclusive,
    /// The relation fails at some point beyond the uncertainty.
    Fail,
}

impl Verdict {
    /// `PASS`, `FAIL`, `INCONCLUSIVE`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
        }
    }
}

//! The two many-server models of JSQ(d(N)) load balancing, with one vocabulary.
//!
//! * **queues** (Mukherjee, Borst, van Leeuwaarden & Whiting, "Universality of power-of-d
//!   load balancing in many-server systems", arXiv 1612.00723): N single-server FCFS
//!   queues, unit-rate exponential service, a buffer of b tasks per server (the one in
//!   service included; default ∞); a task sent to a full server is discarded.
//! * **pools** (the same authors, "Asymptotic optimality of power-of-d load balancing in
//!   large-scale systems", arXiv 1612.00722): N server pools without queueing; a pool with
//!   i tasks completes one at rate i (unit-mean exponential executions that do not depend
//!   on how many tasks share the pool); capacity B per pool (default ∞).
//!
//! Arrivals are Poisson at rate λN (λ is per server and may exceed 1 for pools). The
//! dispatcher samples d servers uniformly, **without replacement** (the papers' model) or
//! **with replacement** ([`Sampling`]), and sends the task to one with the fewest tasks
//! (ties uniformly at random); d = N without replacement is JSQ, d = 1 random routing.
//! The state is the occupancy Q_i = number of servers with at least i tasks, q_i = Q_i/N.
//!
//! d is a number or a formula in N ([`DSpec`]): `2`, `log(N)` (natural logarithm),
//! `sqrt(N)`, `sqrt(N)*log(N)`, `N^0.75`, `N`, `inf`. One rule for numbers and formulas:
//! the value is rounded up and capped at N ([`DSpec::resolve`] says whether it was), so
//! `10`, `1e1` and `2*5` are the same d, and `log(N)` at N = 2 (0.69) is d = 1; a value
//! that is not positive is bad input. `inf` is JSQ at finite N and the d(N) → ∞ limit in
//! the fluid equations.

use crate::num::NumError;
use thiserror::Error;

/// The largest capacity (buffer b or pool capacity B) accepted: the per-level arrays of
/// every method are indexed by level, and 10^6 levels are far beyond any occupancy a
/// stable system reaches.
pub const MAX_CAPACITY: u32 = 1_000_000;

/// The largest number of servers accepted (occupancy counts are `u32`).
pub const MAX_SERVERS: u64 = 1 << 31;

/// Errors of the load-balancing room.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum LbError {
    /// λ not finite and positive.
    #[error("the arrival rate per server must be finite and positive, got {0}")]
    BadLambda(String),
    /// Queues without buffer need λ < 1.
    #[error("queues without a buffer are unstable for lambda >= 1 (got {0}); give --buffer")]
    Unstable(String),
    /// A capacity below 1 or above [`MAX_CAPACITY`].
    #[error("the buffer (capacity) must be between 1 and {MAX_CAPACITY}, got {0}")]
    BadBuffer(i64),
    /// N below 1 or above [`MAX_SERVERS`].
    #[error("the number of servers must be between 1 and {MAX_SERVERS}, got {0}")]
    BadServers(i64),
    /// d not positive (a number, or a formula's value at N): nothing to round up to 1.
    #[error("d must be positive (it is rounded up to a whole number of servers), got {0}")]
    DTooSmall(String),
    /// A d formula that cannot be read.
    #[error("cannot read the d formula '{text}': {reason}")]
    BadFormula {
        /// The text.
        text: String,
        /// Why.
        reason: String,
    },
    /// Bad input of another kind (an initial occupancy that is not a tail, times that
    /// decrease, a fixed point asked where it is not unique, …).
    #[error("{0}")]
    BadInput(String),
    /// A numerical failure (ODE step size underflow, a root finder, a stationary solve
    /// that did not converge).
    #[error("{0}")]
    Numerical(String),
    /// A failure of the numeric layer.
    #[error(transparent)]
    Num(#[from] NumError),
    /// A failure of the replication runner (`crate::sim`).
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    /// A broken invariant: a bug.
    #[error("internal: {0}")]
    Internal(String),
}

impl crate::error::Classify for LbError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            LbError::BadLambda(_)
            | LbError::Unstable(_)
            | LbError::BadBuffer(_)
            | LbError::BadServers(_)
            | LbError::DTooSmall(_)
            | LbError::BadFormula { .. }
            | LbError::BadInput(_) => ErrorKind::Input,
            LbError::Numerical(_) => ErrorKind::Numerical,
            LbError::Num(e) => e.kind(),
            LbError::Sim(e) => e.kind(),
            LbError::Internal(_) => ErrorKind::Internal,
        }
    }
}

crate::vocab::vocabulary! {
    "model",
    /// Which of the two models.
    #[derive(Hash)]
    pub enum ModelKind {
        /// Single-server FCFS queues (unit-rate service; a server with i ≥ 1 tasks completes at
        /// rate 1).
        #[strum(message = "N single-server FCFS queues, unit-rate service")]
        Queues,
        /// Server pools without queueing (a pool with i tasks completes at rate i).
        #[strum(message = "N server pools, no queueing (a pool with i tasks completes at rate i)")]
        Pools,
    }
}

impl ModelKind {
    /// The name used on the command line (`queues`, `pools`).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The completion rate μ_i of a server holding exactly i tasks: 1 for a busy queue, i
    /// for a pool, 0 for an idle server.
    ///
    /// ```
    /// use taskassign::lb::ModelKind;
    /// assert_eq!(ModelKind::Queues.service_rate(3), 1.0);
    /// assert_eq!(ModelKind::Pools.service_rate(3), 3.0);
    /// assert_eq!(ModelKind::Queues.service_rate(0), 0.0);
    /// ```
    #[inline]
    pub fn service_rate(self, i: usize) -> f64 {
        match (self, i) {
            (_, 0) => 0.0,
            (ModelKind::Queues, _) => 1.0,
            (ModelKind::Pools, i) => i as f64,
        }
    }
}

crate::vocab::vocabulary! {
    "sampling",
    /// How the d servers are sampled.
    #[derive(Hash, Default)]
    pub enum Sampling {
        /// d distinct servers (the papers' model): P(min ≥ i) = C(Q_i, d)/C(N, d).
        #[default]
        #[strum(message = "d distinct servers (the papers' model)")]
        Without,
        /// d independent uniform draws: P(min ≥ i) = (Q_i/N)^d.
        #[strum(message = "d independent draws")]
        With,
    }
}

impl Sampling {
    /// The name used on the command line (`without`, `with`).
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// One model: which kind, the arrival rate per server and the capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    kind: ModelKind,
    /// λ as the user wrote it (parsed again at each MPFR precision).
    lambda_text: String,
    lambda: f64,
    buffer: Option<u32>,
}

impl Model {
    /// A validated model. `lambda` is a decimal string (kept, so that the MPFR methods parse
    /// it at their own precision), `buffer` the capacity b or B (`None` = ∞).
    ///
    /// Errors: λ not a finite positive decimal, λ ≥ 1 for queues without a buffer, a
    /// capacity outside 1..=[`MAX_CAPACITY`].
    ///
    /// ```
    /// use taskassign::lb::{Model, ModelKind};
    /// assert!(Model::new(ModelKind::Queues, "0.9", None).is_ok());
    /// assert!(Model::new(ModelKind::Queues, "1.2", None).is_err());
    /// assert!(Model::new(ModelKind::Queues, "1.2", Some(5)).is_ok());
    /// assert!(Model::new(ModelKind::Pools, "3.5", None).is_ok());
    /// assert!(Model::new(ModelKind::Pools, "3.5", Some(0)).is_err());
    /// ```
    pub fn new(kind: ModelKind, lambda: &str, buffer: Option<u32>) -> Result<Self, LbError> {
        let l = crate::num::parse_decimal(lambda, 64)
            .map_err(|_| LbError::BadLambda(lambda.to_string()))?;
        if !(l > 0) {
            return Err(LbError::BadLambda(lambda.to_string()));
        }
        let lf = l.to_f64();
        if !(lf.is_finite() && lf > 0.0) {
            return Err(LbError::BadLambda(lambda.to_string()));
        }
        if let Some(b) = buffer {
            if !(1..=MAX_CAPACITY).contains(&b) {
                return Err(LbError::BadBuffer(i64::from(b)));
            }
        }
        if kind == ModelKind::Queues && buffer.is_none() && l >= 1 {
            return Err(LbError::Unstable(lambda.to_string()));
        }
        Ok(Model {
            kind,
            lambda_text: lambda.trim().to_string(),
            lambda: lf,
            buffer,
        })
    }

    /// A model from an f64 rate (for simulations and the Halfin–Whitt regime, where λ is
    /// computed): the decimal text is the shortest one that round-trips.
    pub fn from_f64(kind: ModelKind, lambda: f64, buffer: Option<u32>) -> Result<Self, LbError> {
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(LbError::BadLambda(format!("{lambda}")));
        }
        Model::new(kind, &format!("{lambda:e}"), buffer)
    }

    /// Which model.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// λ per server, in f64.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// λ as given.
    pub fn lambda_text(&self) -> &str {
        &self.lambda_text
    }

    /// λ at `bits` of precision, parsed from its decimal text (never through f64).
    pub fn lambda_at(&self, bits: u32) -> Result<rug::Float, LbError> {
        Ok(crate::num::parse_decimal(&self.lambda_text, bits)?)
    }

    /// The capacity b (queues) or B (pools); `None` is ∞.
    pub fn buffer(&self) -> Option<u32> {
        self.buffer
    }
}

pub use super::formula::Formula;

/// d as the user gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum DSpec {
    /// A plain integer.
    Fixed(u64),
    /// A formula in N (with the text it was read from).
    Formula(Formula, String),
    /// `inf`: JSQ at finite N, the d(N) → ∞ limit in the fluid equations.
    Infinite,
}

/// d at a given N, with how it was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DUsed {
    /// The d used, 1 ≤ d ≤ N.
    pub d: u64,
    /// True when the value exceeded N (or d = inf) and was capped at N.
    pub capped: bool,
}

impl DSpec {
    /// Parses `2`, `inf`, or a formula such as `sqrt(N)*log(N)`.
    ///
    /// ```
    /// use taskassign::lb::DSpec;
    /// assert_eq!(DSpec::parse("2").unwrap(), DSpec::Fixed(2));
    /// assert_eq!(DSpec::parse("inf").unwrap(), DSpec::Infinite);
    /// assert!(matches!(DSpec::parse("N^0.75").unwrap(), DSpec::Formula(..)));
    /// assert!(DSpec::parse("0").is_err());
    /// assert!(DSpec::parse("sqrt(N").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<DSpec, LbError> {
        let t = text.trim();
        if t == "inf" || t == "infinity" {
            return Ok(DSpec::Infinite);
        }
        if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
            let d: u64 = t.parse().map_err(|_| LbError::BadFormula {
                text: t.to_string(),
                reason: "too large".into(),
            })?;
            if d < 1 {
                return Err(LbError::DTooSmall(t.to_string()));
            }
            return Ok(DSpec::Fixed(d));
        }
        let f = Formula::parse(t)?;
        if f.is_constant() {
            let v = f.eval(1.0);
            if !(v.is_finite() && v > 0.0) {
                return Err(LbError::DTooSmall(t.to_string()));
            }
        }
        Ok(DSpec::Formula(f, t.to_string()))
    }

    /// The d used with N servers: a number or a formula's value is rounded up and capped
    /// at N; `inf` is N (JSQ). Errors when the value is not positive.
    ///
    /// ```
    /// use taskassign::lb::{DSpec, DUsed};
    /// let d = DSpec::parse("sqrt(N)*log(N)").unwrap();
    /// // √1000 · ln 1000 = 218.43…, rounded up.
    /// assert_eq!(d.resolve(1000).unwrap(), DUsed { d: 219, capped: false });
    /// // √10 · ln 10 = 7.28…
    /// assert_eq!(d.resolve(10).unwrap(), DUsed { d: 8, capped: false });
    /// let twice = DSpec::parse("2*N").unwrap();
    /// assert_eq!(twice.resolve(10).unwrap(), DUsed { d: 10, capped: true });
    /// // A number above N is capped like a formula.
    /// assert_eq!(DSpec::parse("5").unwrap().resolve(3).unwrap(), DUsed { d: 3, capped: true });
    /// // ln 2 = 0.69…, rounded up to 1.
    /// assert_eq!(DSpec::parse("log(N)").unwrap().resolve(2).unwrap(), DUsed { d: 1, capped: false });
    /// ```
    pub fn resolve(&self, n: u64) -> Result<DUsed, LbError> {
        if n < 1 {
            return Err(LbError::BadServers(n as i64));
        }
        match self {
            DSpec::Fixed(d) => Ok(DUsed {
                d: (*d).min(n),
                capped: *d > n,
            }),
            DSpec::Infinite => Ok(DUsed { d: n, capped: true }),
            DSpec::Formula(f, text) => {
                let v = f.eval(n as f64);
                if v.is_nan() || v <= 0.0 {
                    return Err(LbError::DTooSmall(format!("{text} = {v} at N = {n}")));
                }
                // Round up; a value within a few ulps above an integer is that integer
                // (N^0.5 at N = 10^6 is 1000 up to rounding).
                let r = v.round();
                let up = if (v - r).abs() <= 4.0 * f64::EPSILON * v {
                    r
                } else {
                    v.ceil()
                };
                if up >= n as f64 {
                    Ok(DUsed {
                        d: n,
                        capped: up > n as f64,
                    })
                } else {
                    Ok(DUsed {
                        d: up as u64,
                        capped: false,
                    })
                }
            }
        }
    }

    /// The text form (`2`, `inf`, or the formula as given).
    pub fn text(&self) -> String {
        match self {
            DSpec::Fixed(d) => d.to_string(),
            DSpec::Formula(_, t) => t.clone(),
            DSpec::Infinite => "inf".into(),
        }
    }
}

/// A finite system: a model, N servers, d and the sampling rule.
#[derive(Debug, Clone, PartialEq)]
pub struct JsqSystem {
    model: Model,
    n: u64,
    d: DUsed,
    sampling: Sampling,
}

impl JsqSystem {
    /// A validated system with N servers and d resolved at N ([`DSpec::resolve`]).
    pub fn new(model: Model, n: u64, d: &DSpec, sampling: Sampling) -> Result<Self, LbError> {
        if !(1..=MAX_SERVERS).contains(&n) {
            return Err(LbError::BadServers(n as i64));
        }
        let d = d.resolve(n)?;
        Ok(JsqSystem {
            model,
            n,
            d,
            sampling,
        })
    }

    /// The model: queues or pools, with the arrival rate per server and the buffer.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// N, the number of servers (queues or pools, unit-rate service), the N of JSQ(d(N)).
    pub fn servers(&self) -> u64 {
        self.n
    }

    /// The d used.
    pub fn d(&self) -> DUsed {
        self.d
    }

    /// The sampling rule.
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// P(min of the d sampled ≥ i) as a function of k = Q_i: C(k, d)/C(N, d) without
    /// replacement, (k/N)^d with. See [`tail_probability`].
    pub fn tail_probability(&self, k: u64) -> f64 {
        tail_probability(k, self.n, self.d.d, self.sampling)
    }
}

/// The probability that all d sampled servers lie in a set of k of the N servers:
/// C(k, d)/C(N, d) = Π_{j<d} (k − j)/(N − j) without replacement, (k/N)^d with.
///
/// ```
/// use taskassign::lb::tail_probability;
/// use taskassign::lb::Sampling;
/// // C(3,2)/C(5,2) = 3/10; (3/5)^2 = 9/25.
/// assert!((tail_probability(3, 5, 2, Sampling::Without) - 0.3).abs() < 1e-15);
/// assert!((tail_probability(3, 5, 2, Sampling::With) - 0.36).abs() < 1e-15);
/// assert_eq!(tail_probability(4, 5, 5, Sampling::Without), 0.0);
/// ```
pub fn tail_probability(k: u64, n: u64, d: u64, sampling: Sampling) -> f64 {
    if k >= n {
        return 1.0;
    }
    match sampling {
        Sampling::With => (k as f64 / n as f64).powf(d as f64),
        Sampling::Without => {
            if k < d {
                return 0.0;
            }
            // Π_{j<d} (k − j)/(N − j), stopping once it underflows.
            let mut p = 1.0;
            for j in 0..d {
                p *= (k - j) as f64 / (n - j) as f64;
                if p == 0.0 {
                    break;
                }
            }
            p
        }
    }
}

/// The table p(k) = P(min of the d sampled ≥ i | Q_i = k) for k = 0..=N, built in O(N)
/// from the top: p(N) = 1 and p(k − 1) = p(k)(k − d)/k without replacement (C(k−1, d) =
/// C(k, d)(k − d)/k), so it is exact for k < d (zero) and loses at most N ulps of relative
/// accuracy at the bottom (≈ 2·10⁻¹⁰ at N = 10⁶, far below any simulation's noise);
/// (k/N)^d by `powf` with replacement.
pub fn tail_table(n: u64, d: u64, sampling: Sampling) -> Vec<f64> {
    let len = n as usize + 1;
    let mut p = vec![0.0; len];
    match sampling {
        Sampling::With => {
            let nf = n as f64;
            for (k, pk) in p.iter_mut().enumerate() {
                *pk = (k as f64 / nf).powf(d as f64);
            }
            p[n as usize] = 1.0;
        }
        Sampling::Without => {
            p[n as usize] = 1.0;
            let mut k = n;
            while k > d {
                let next = p[k as usize] * (k - d) as f64 / k as f64;
                p[k as usize - 1] = next;
                if next == 0.0 {
                    break;
                }
                k -= 1;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Classify, ErrorKind};

    #[test]
    fn d_resolution_rounds_up_and_caps() {
        let d = DSpec::parse("log(N)").unwrap();
        // ln 1000 = 6.907…
        assert_eq!(d.resolve(1000).unwrap().d, 7);
        // N^0.5 at N = 10^6 is exactly 1000 up to rounding: not rounded up to 1001.
        assert_eq!(
            DSpec::parse("N^0.5").unwrap().resolve(1_000_000).unwrap().d,
            1000
        );
        assert_eq!(
            DSpec::parse("N").unwrap().resolve(7).unwrap(),
            DUsed {
                d: 7,
                capped: false
            }
        );
        assert_eq!(
            DSpec::Infinite.resolve(7).unwrap(),
            DUsed { d: 7, capped: true }
        );
        // log(N) at N = 1 is 0: nothing to round up.
        assert!(matches!(d.resolve(1), Err(LbError::DTooSmall(_))));
        // log(N) at N = 2 is 0.693…: rounded up to 1.
        assert_eq!(
            d.resolve(2).unwrap(),
            DUsed {
                d: 1,
                capped: false
            }
        );
        // A number above N is capped as a formula is: 3 and 3e0 at N = 2 are both d = 2.
        for t in ["3", "3e0", "1+2"] {
            assert_eq!(
                DSpec::parse(t).unwrap().resolve(2).unwrap(),
                DUsed { d: 2, capped: true },
                "{t}"
            );
        }
        // 0.5 rounds up to 1; 0 and negative values are refused.
        assert_eq!(DSpec::parse("0.5").unwrap().resolve(4).unwrap().d, 1);
        for t in ["0", "0.0", "-1", "1-1"] {
            assert!(matches!(DSpec::parse(t), Err(LbError::DTooSmall(_))), "{t}");
        }
    }

    #[test]
    fn bad_input_is_classified_as_input() {
        let errors = [
            Model::new(ModelKind::Queues, "1", None).unwrap_err(),
            Model::new(ModelKind::Queues, "-1", Some(3)).unwrap_err(),
            Model::new(ModelKind::Pools, "abc", None).unwrap_err(),
            Model::new(ModelKind::Pools, "2", Some(0)).unwrap_err(),
            DSpec::parse("sqrt(").unwrap_err(),
            DSpec::parse("0").unwrap_err(),
            JsqSystem::new(
                Model::new(ModelKind::Pools, "2", None).unwrap(),
                0,
                &DSpec::Fixed(1),
                Sampling::Without,
            )
            .unwrap_err(),
        ];
        for e in errors {
            assert_eq!(e.kind(), ErrorKind::Input, "{e}");
        }
    }

    #[test]
    fn tail_table_matches_direct_products() {
        // The O(N) recursion from the top against the direct product, both ways.
        for (n, d) in [(10u64, 3u64), (50, 1), (50, 50), (1000, 7)] {
            for s in [Sampling::Without, Sampling::With] {
                let t = tail_table(n, d, s);
                for k in 0..=n {
                    let direct = tail_probability(k, n, d, s);
                    assert!(
                        (t[k as usize] - direct).abs() <= 1e-13 * direct.max(1e-300),
                        "n {n} d {d} k {k}: {} vs {direct}",
                        t[k as usize]
                    );
                }
            }
        }
        // d = N = 10^6 without replacement: only k = N has probability 1.
        let t = tail_table(1_000_000, 1_000_000, Sampling::Without);
        assert_eq!(t[1_000_000], 1.0);
        assert_eq!(t[999_999], 0.0);
    }
}

//! Ageing classes of a job-size law: New Better / Worse than Used, increasing / decreasing
//! failure rate.
//!
//! * **NBU**: F̄(x + y) ≤ F̄(x) F̄(y) for all x, y ≥ 0 (a used item lasts less, in law, than
//!   a new one); **NWU** the reverse. The exponential is both (memorylessness).
//! * **IFR** / **DFR**: the hazard f/F̄ increases / decreases; IFR implies NBU and DFR
//!   implies NWU (Barlow & Proschan, *Statistical Theory of Reliability and Life
//!   Testing*, 1975, ch. 4).
//!
//! [ARV22]'s statements are conditioned on these classes (NWU: MRF-FCFS beats LRF-FCFS as
//! variability grows; NBU: ROS beats FCFS within a class priority), so every redundancy
//! output names the class of its law. Two sources, compared:
//! * **theory** ([`theory`]) for the families whose class is known: exponential (both),
//!   Erlang k ≥ 2 and Weibull shape > 1 (IFR), Weibull shape < 1 and hyperexponentials
//!   with two rates (DFR; a mixture of exponentials is DFR, Barlow & Proschan ch. 4 §4),
//!   uniform and deterministic (IFR), and neither NBU nor NWU: the lognormal (hazard up,
//!   then down), the Pareto and the bounded Pareto on [k, …) with k > 0 (hazard 0 below
//!   k, falling above it: F̄(2k) = 2^−α < 1 = F̄(k)² refutes NWU, and the heavy tail
//!   refutes NBU);
//! * **the definition on a grid** ([`on_grid`]): F̄(x + y) against F̄(x)F̄(y) over every
//!   pair of [`GRID_QUANTILES`] quantiles, and the hazard along them, in MPFR. A finite grid
//!   can only refute a class; the tests require it to agree with the theory for every
//!   family.

use super::{DistError, DistFactory, DistSpec, JobSize};
use rug::Float;

/// Quantile levels of the grid.
pub const GRID_QUANTILES: [f64; 21] = [
    1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999,
    0.9999, 0.99999, 0.999999, 0.9999999,
];
/// Points 2^j times the last quantile added to the grid, j = 1…this.
pub const TAIL_DOUBLINGS: u32 = 4;
/// Precision of the grid check.
pub const GRID_BITS: u32 = 160;
/// Relative tolerance (in bits below the compared values) under which F̄(x+y) and
/// F̄(x)F̄(y) count as equal: the tails are accurate to a few ulps at [`GRID_BITS`].
const EQUAL_SLACK_BITS: u32 = 24;

/// What is known or found about a law's ageing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aging {
    /// NBU.
    pub nbu: bool,
    /// NWU.
    pub nwu: bool,
    /// IFR (`None`: not decided, e.g. no density).
    pub ifr: Option<bool>,
    /// DFR.
    pub dfr: Option<bool>,
}

impl Aging {
    /// A one-word-or-so label: `exponential (NBU and NWU)`, `NBU (IFR)`, `NWU (DFR)`,
    /// `NBU`, `NWU`, `neither NBU nor NWU`.
    pub fn label(&self) -> &'static str {
        match (self.nbu, self.nwu, self.ifr, self.dfr) {
            (true, true, _, _) => "exponential (NBU and NWU)",
            (true, false, Some(true), _) => "NBU (IFR)",
            (true, false, _, _) => "NBU",
            (false, true, _, Some(true)) => "NWU (DFR)",
            (false, true, _, _) => "NWU",
            (false, false, _, _) => "neither NBU nor NWU",
        }
    }
}

const EXPONENTIAL: Aging = Aging {
    nbu: true,
    nwu: true,
    ifr: Some(true),
    dfr: Some(true),
};
const IFR: Aging = Aging {
    nbu: true,
    nwu: false,
    ifr: Some(true),
    dfr: Some(false),
};
const DFR: Aging = Aging {
    nbu: false,
    nwu: true,
    ifr: Some(false),
    dfr: Some(true),
};
const NEITHER: Aging = Aging {
    nbu: false,
    nwu: false,
    ifr: Some(false),
    dfr: Some(false),
};

/// The class the theory gives a spec's law (module documentation); `None` for the
/// empirical law and anything else without a known class.
///
/// ```
/// use taskassign::dist::{aging_theory as theory, DistSpec};
/// let t = |s: &str| theory(&DistSpec::parse(s).unwrap()).map(|a| a.label());
/// assert_eq!(t("erlang:k=4,rate=4"), Some("NBU (IFR)"));
/// assert_eq!(t("hyperexp:mean=1,scv=20"), Some("NWU (DFR)"));
/// assert_eq!(t("weibull:shape=1,mean=1"), Some("exponential (NBU and NWU)"));
/// ```
pub fn theory(spec: &DistSpec) -> Option<Aging> {
    let bits = 128;
    let num = |k: &str| {
        spec.value(k)
            .and_then(|v| crate::num::parse_decimal(v, bits).ok())
    };
    match spec.family() {
        "exp" => Some(EXPONENTIAL),
        "erlang" => num("k").map(|k| if k == 1 { EXPONENTIAL } else { IFR }),
        "hyperexp" => match (num("rate1"), num("rate2"), num("scv")) {
            (Some(a), Some(b), _) => Some(if a == b { EXPONENTIAL } else { DFR }),
            (_, _, Some(c)) => Some(if c == 1 { EXPONENTIAL } else { DFR }),
            _ => None,
        },
        "weibull" => num("shape").map(|k| {
            if k == 1 {
                EXPONENTIAL
            } else if k > 1 {
                IFR
            } else {
                DFR
            }
        }),
        "uniform" | "det" => Some(IFR),
        "lognormal" | "bp" | "pareto" => Some(NEITHER),
        _ => None,
    }
}

/// The classes as found on the grid of [`GRID_QUANTILES`] (IFR/DFR only for laws with a
/// density).
pub fn on_grid(d: &dyn JobSize) -> Result<Aging, DistError> {
    let bits = d.prec();
    let mut xs = Vec::with_capacity(GRID_QUANTILES.len() + 1);
    // A law whose support starts at a > 0 has hazard 0 on (0, a): a point there shows it
    // (a used item of age a/2 is as good as new, one of age a is not).
    let lower = d.lower();
    if lower > 0 {
        xs.push(Float::with_val(bits, &lower / 2u32));
    }
    for u in GRID_QUANTILES {
        let x = d.quantile(&Float::with_val(bits, u))?;
        if xs.last().is_none_or(|l: &Float| *l != x) {
            xs.push(x);
        }
    }
    // Beyond the quantiles, far into the tail (where a lognormal's tail, heavier than any
    // exponential's squared, refutes NBU only past its 1 − 10^−11 quantile for σ = 1/4).
    if let Some(last) = xs.last().cloned() {
        for j in 1..=TAIL_DOUBLINGS {
            let x = Float::with_val(bits, &last * (1u32 << j));
            if x < d.upper() {
                xs.push(x);
            }
        }
    }
    let tails: Vec<Float> = xs.iter().map(|x| d.tail(x)).collect();
    let (mut nbu, mut nwu) = (true, true);
    for (x, fx) in xs.iter().zip(&tails) {
        for (y, fy) in xs.iter().zip(&tails) {
            let lhs = d.tail(&Float::with_val(bits, x + y));
            let rhs = Float::with_val(bits, fx * fy);
            let scale = if lhs > rhs { lhs.clone() } else { rhs.clone() };
            let tol = scale >> (bits.saturating_sub(EQUAL_SLACK_BITS));
            let diff = Float::with_val(bits, &lhs - &rhs);
            if diff > tol {
                nbu = false;
            }
            if diff < -Float::with_val(bits, &tol) {
                nwu = false;
            }
        }
    }
    // Hazard along the grid (points with F̄ > 0 only).
    let mut hazards = Vec::new();
    for (x, fx) in xs.iter().zip(&tails) {
        if *fx > 0 {
            match d.density(x) {
                Some(f) => hazards.push(Float::with_val(bits, f / fx)),
                None => {
                    return Ok(Aging {
                        nbu,
                        nwu,
                        ifr: None,
                        dfr: None,
                    })
                }
            }
        }
    }
    let (mut ifr, mut dfr) = (true, true);
    for w in hazards.windows(2) {
        let tol = Float::with_val(bits, w[0].abs_ref()) >> (bits.saturating_sub(EQUAL_SLACK_BITS));
        let diff = Float::with_val(bits, &w[1] - &w[0]);
        if diff < -Float::with_val(bits, &tol) {
            ifr = false;
        }
        if diff > tol {
            dfr = false;
        }
    }
    Ok(Aging {
        nbu,
        nwu,
        ifr: Some(ifr),
        dfr: Some(dfr),
    })
}

/// The class of a spec's law: the theory where known, else the grid; with the method in
/// words.
pub fn classify(spec: &DistSpec) -> Result<(Aging, &'static str), DistError> {
    if let Some(a) = theory(spec) {
        return Ok((a, "known for the family"));
    }
    let d = spec.build(GRID_BITS)?;
    Ok((on_grid(d.as_ref())?, "checked on a grid of quantile pairs"))
}

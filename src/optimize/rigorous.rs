//! Proven answers of size-based dispatch: `eval --rigorous` (one policy at given cutoffs)
//! and `threshold --rigorous` (the TAGS stability threshold ρ*(F, h) and its greedy
//! cutoffs), every number an [`Interval`] computed with outward rounding that contains the
//! exact value for the decimal inputs ([`crate::num::interval`] says what is proven).
//!
//! A proven answer is computed at the digits' bits plus [`RIGOROUS_GUARD_BITS`]; where an
//! enclosure proves fewer digits than asked (the formulas' conditioning ate the guard
//! bits), it is computed again with the bits missing, at most [`RIGOROUS_ATTEMPTS`] times,
//! and the answer says how many digits it proves.
//!
//! The threshold is isolated by proven sign changes: ρ*(F, h) = λ* E[X], where the greedy
//! construction ([`super::threshold`]) leaves stable cutoffs for λ < λ* and none above.
//! The construction is run on intervals: each greedy cutoff s_i (host i exactly critical,
//! λ(M_1(s_{i−1}, s_i) + s_i F̄(s_i)) = 1, increasing in s_i) is enclosed by two points at
//! which the load's enclosure is proven below and above 1; the MPFR construction supplies
//! where to look. λ* is enclosed by an arrival rate at which the interval construction
//! proves stability and one at which it proves instability (or 1/sup x F̄(x), above which
//! no h is stable).

use super::certified::EvalRequest;
use super::threshold::{check_stable, tags_threshold};
use crate::dist::enclose::below_support;
use crate::dist::{DistFactory, Enclosure, JobSize};
use crate::num::interval::Interval;
use crate::num::root::{expand_upper, solve_increasing};
use crate::num::{message_number, parse_decimal, working_bits, NumError};
use crate::policy::rigorous::evaluate_enclosed;
use crate::policy::{
    budget, full_cutoffs, tags::host_load, LoadSpec, PolicyError, PolicyKind, HINT_MORE_DIGITS,
};
use rug::float::Special;
use rug::Float;

pub use crate::num::interval::{fewest_proven, RIGOROUS_ATTEMPTS, RIGOROUS_GUARD_BITS};
use crate::num::interval::{proven_first_bits as first_bits, proven_next_bits as next_bits};

/// A proven evaluation (`eval --rigorous`).
#[derive(Debug, Clone)]
pub struct RigorousEval {
    /// Arrival rate λ.
    pub lambda: Interval,
    /// Total load ρ.
    pub load: Interval,
    /// The cutoffs as enclosed from their decimals.
    pub cutoffs: Vec<Interval>,
    /// Per-host loads.
    pub host_loads: Vec<Interval>,
    /// Per-host mean waiting in queue.
    pub host_waiting: Vec<Interval>,
    /// The metric's value.
    pub value: Interval,
    /// Queueing part.
    pub queueing: Interval,
    /// Wasted-service part.
    pub wasted: Interval,
    /// All hosts proven stable.
    pub stable: bool,
    /// The fewest digits the enclosures prove (at most the digits asked).
    pub proven_digits: u32,
    /// The precision (bits) of the last attempt.
    pub bits: u32,
}

impl RigorousEval {
    /// Every number of the answer.
    pub fn all(&self) -> impl Iterator<Item = &Interval> {
        [
            &self.lambda,
            &self.load,
            &self.value,
            &self.queueing,
            &self.wasted,
        ]
        .into_iter()
        .chain(self.cutoffs.iter())
        .chain(self.host_loads.iter())
        .chain(self.host_waiting.iter())
    }
}

/// The checks of an evaluation on a law built at `bits` — the load's range, the cutoffs'
/// count, order and place in the support, a TAGS load no cutoffs can stabilise — with the
/// errors of the certified evaluation.
fn validate_eval(
    policy: PolicyKind,
    dist: &dyn DistFactory,
    hosts: usize,
    load: &LoadSpec,
    cutoffs: &[String],
    bits: u32,
) -> Result<(), PolicyError> {
    let d = dist.build(bits)?;
    budget::check_eval_hosts(hosts, bits)?;
    let (lambda, rho) = load.resolve(d.as_ref(), hosts)?;
    let cuts = cutoffs
        .iter()
        .map(|c| parse_decimal(c, bits).map_err(|e| PolicyError::BadCutoffs(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    if policy.chain_kind().is_none() && !cuts.is_empty() {
        return Err(PolicyError::BadCutoffs(format!(
            "{} routing takes no cutoffs",
            policy.name()
        )));
    }
    check_stable(policy, d.as_ref(), &lambda, &rho, hosts)?;
    if policy.chain_kind().is_some() {
        full_cutoffs(d.as_ref(), hosts, &cuts)?;
    }
    Ok(())
}

/// `eval --rigorous`: the request's policy, law, hosts, load, cutoffs (decimals) and metric,
/// proven to its digits where the enclosures allow.
pub fn eval_rigorous(req: &EvalRequest) -> Result<RigorousEval, PolicyError> {
    let EvalRequest {
        policy,
        dist,
        hosts,
        ref load,
        ref cutoffs,
        metric,
        digits,
    } = *req;
    validate_eval(policy, dist, hosts, load, cutoffs, working_bits(digits))?;
    let mut bits = first_bits(digits);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let last = attempt >= RIGOROUS_ATTEMPTS;
        let enc = dist.enclose(bits)?;
        let (lambda, rho) = load.resolve_enclosed(enc.as_ref(), hosts)?;
        let cuts = crate::dist::enclose::enclose_cutoffs(enc.as_ref(), cutoffs)
            .map_err(|e| PolicyError::BadCutoffs(e.to_string()))?;
        let e = match evaluate_enclosed(policy, enc.as_ref(), &lambda, hosts, &cuts, metric) {
            Ok(e) => e,
            Err(PolicyError::Solver { .. }) if !last => {
                // A load's enclosure straddles 1: twice the bits.
                bits *= 2;
                continue;
            }
            Err(e) => return Err(e),
        };
        let mut r = RigorousEval {
            lambda,
            load: rho,
            cutoffs: cuts,
            host_loads: e.host_loads,
            host_waiting: e.host_waiting,
            value: e.value,
            queueing: e.queueing,
            wasted: e.wasted,
            stable: e.stable,
            proven_digits: 0,
            bits,
        };
        r.proven_digits = fewest_proven(r.all(), digits);
        if r.proven_digits >= digits || last {
            return Ok(r);
        }
        bits = next_bits(bits, r.proven_digits, digits);
    }
}

/// A proven TAGS threshold (`threshold --rigorous`).
#[derive(Debug, Clone)]
pub struct RigorousThreshold {
    /// ρ*(F, h).
    pub load: Interval,
    /// λ* = ρ*/E[X].
    pub lambda: Interval,
    /// The greedy cutoffs at ρ* (empty for h = 1 and h = ∞, and where they could not be
    /// enclosed: see `cutoffs_enclosed`).
    pub cutoffs: Vec<Interval>,
    /// False where h ≥ 2 cutoffs exist but could not be enclosed at this precision.
    pub cutoffs_enclosed: bool,
    /// The fewest digits the enclosures prove.
    pub proven_digits: u32,
    /// The precision (bits) of the last attempt.
    pub bits: u32,
}

impl RigorousThreshold {
    /// Every number of the answer.
    pub fn all(&self) -> impl Iterator<Item = &Interval> {
        [&self.load, &self.lambda]
            .into_iter()
            .chain(self.cutoffs.iter())
    }
}

/// `threshold --rigorous`: ρ*(F, h) for `hosts` TAGS hosts (`None`: h → ∞, where
/// ρ* = E[X]/sup x F̄(x)) and the greedy cutoffs there, proven to `digits` digits where the
/// enclosures allow.
pub fn threshold_rigorous(
    dist: &dyn DistFactory,
    hosts: Option<usize>,
    digits: u32,
) -> Result<RigorousThreshold, PolicyError> {
    let mut bits = first_bits(digits);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let last = attempt >= RIGOROUS_ATTEMPTS;
        let r = match threshold_at(dist, hosts, bits, digits) {
            Ok(r) => r,
            Err(PolicyError::Solver { .. }) if !last => {
                bits *= 2;
                continue;
            }
            Err(e) => return Err(e),
        };
        if r.proven_digits >= digits || last {
            return Ok(r);
        }
        bits = next_bits(bits, r.proven_digits, digits);
    }
}

/// One attempt of [`threshold_rigorous`] at `bits`.
fn threshold_at(
    dist: &dyn DistFactory,
    hosts: Option<usize>,
    bits: u32,
    digits: u32,
) -> Result<RigorousThreshold, PolicyError> {
    let enc = dist.enclose(bits)?;
    let d = dist.build(bits)?;
    let mean = enc.mean()?;
    let sup = enc.sup_x_tail()?;
    if !sup.is_positive() {
        return Err(PolicyError::Num(NumError::NotFinite(format!(
            "sup x F̄(x) = [{}, {}]",
            message_number(sup.lo()),
            message_number(sup.hi())
        ))));
    }
    let inv_sup = sup.recip();
    let done = |load: Interval, lambda: Interval, cutoffs: Vec<Interval>| {
        let mut r = RigorousThreshold {
            load,
            lambda,
            cutoffs,
            cutoffs_enclosed: true,
            proven_digits: 0,
            bits,
        };
        r.proven_digits = fewest_proven(r.all(), digits);
        Ok(r)
    };
    let Some(h) = hosts else {
        return done(mean.div(&sup), inv_sup, vec![]);
    };
    if h < 1 {
        return Err(PolicyError::BadHosts(h));
    }
    let inv_mean = mean.recip();
    // The MPFR threshold: where to look, and the checks and errors of `threshold`.
    let t = tags_threshold(d.as_ref(), Some(h))?;
    if h == 1 {
        return done(Interval::int(bits, 1), inv_mean, vec![]);
    }
    if t.load == 1 && t.cutoffs.is_empty() {
        // sup x F̄(x) = E[X] (a point mass): every kill wastes, ρ* = 1.
        if inv_sup.hi() <= inv_mean.lo() {
            return done(Interval::int(bits, 1), inv_mean, vec![]);
        }
        return Err(undecided("whether sup x F̄(x) = E[X]".into()));
    }
    let guesses = t.cutoffs.clone();
    let g = &t.lambda;
    let step = |k: u32| -> Float {
        // Relative offsets 0.7 · 2^(24 − bits) · 16^k: not powers of 2, so that a law whose
        // greedy construction doubles its distance to a degenerate point each host (the
        // Pareto with α = 2: 1/s_i = 2/s_(i−1) − 1/λ) does not land on it exactly.
        let e = 24 + 4 * k as i32 - bits as i32;
        Float::with_val(bits, OFFSET_MANTISSA) << e
    };
    // The first λ*(1 ∓ step(k)), k < OFFSET_TRIES, below (above) λ* at which the interval
    // construction proves `want`; above, 1/sup x F̄(x) ends the search (no h is stable
    // above it).
    let offset = |above: bool, want: Verdict, what: &str| -> Result<Float, PolicyError> {
        for k in 0..OFFSET_TRIES {
            let f = if above {
                Float::with_val(bits, 1u32 + step(k))
            } else {
                Float::with_val(bits, 1u32 - step(k))
            };
            let l = Float::with_val(bits, g * &f);
            if above && l >= *inv_sup.lo() {
                return Ok(inv_sup.hi().clone());
            }
            let gr = greedy_enclosed(enc.as_ref(), d.as_ref(), &pt(&l), h, &guesses, false)?;
            if gr.verdict == want {
                return Ok(l);
            }
        }
        let side = if above { "above" } else { "below" };
        Err(undecided(format!(
            "{what} of {h} TAGS hosts just {side} λ* = {}",
            message_number(g)
        )))
    };
    // An arrival rate at which the interval construction proves stability, and one at
    // which it proves instability.
    let lambda_lo = offset(false, Verdict::Stable, "stability")?;
    let lambda_hi = offset(true, Verdict::Unstable, "instability")?;
    let lambda = Interval::new(lambda_lo, lambda_hi);
    // The greedy cutoffs over every λ of the enclosure. Where ρ* is within the enclosure's
    // width of ρ*(F, ∞) (the Pareto at large h: 1 − α^(−h) is 1 to more digits than
    // asked), the construction degenerates at 1/sup x F̄(x) (the first host is critical at
    // its start) and the cutoffs are left out, with a note; ρ* itself is still proven.
    let cutoffs = match greedy_enclosed(enc.as_ref(), d.as_ref(), &lambda, h, &guesses, true) {
        Ok(g) => Some(g.cutoffs),
        Err(PolicyError::Solver { .. }) => None,
        Err(e) => return Err(e),
    };
    let enclosed = cutoffs.is_some();
    let mut r = done(lambda.mul(&mean), lambda, cutoffs.unwrap_or_default())?;
    r.cutoffs_enclosed = enclosed;
    Ok(r)
}

/// Offsets tried on each side of the MPFR λ* (each 16 times the last).
const OFFSET_TRIES: u32 = 24;
/// The mantissa of those offsets (see `threshold_at`).
const OFFSET_MANTISSA: f64 = 0.7;
/// Offsets tried on each side of a greedy cutoff (each twice the last).
const ROOT_OFFSET_TRIES: u32 = 256;

/// An exact float as an interval.
fn pt(x: &Float) -> Interval {
    Interval::point(x.clone())
}

/// A proof the enclosures could not give at this precision.
fn undecided(what: String) -> PolicyError {
    PolicyError::Solver {
        what,
        detail: "the enclosures do not decide it at this precision".into(),
        hint: HINT_MORE_DIGITS,
    }
}

/// What the interval greedy construction proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Stable cutoffs exist (the last host's load is below 1, or a host serves the rest).
    Stable,
    /// None exist (the last host's load is at least 1, or a host is critical at its start).
    Unstable,
    /// A comparison the enclosures do not decide.
    Undecided,
}

/// The greedy construction on intervals.
struct GreedyEnclosed {
    cutoffs: Vec<Interval>,
    verdict: Verdict,
}

/// The TAGS load λ(M_1(a, s) + s F̄(s)) of the host (a, s] (s below the top; at the top
/// λ M_1(a, ∞)).
fn load_enclosed(
    enc: &dyn Enclosure,
    lambda: &Interval,
    a: &Interval,
    s: &Interval,
    top: bool,
) -> Result<Interval, PolicyError> {
    let bits = enc.prec();
    if top {
        let inf = pt(&Float::with_val(bits, Special::Infinity));
        return Ok(lambda.mul(&enc.partial_moment(1, a, &inf)?));
    }
    let m1 = enc.partial_moment(1, a, s)?;
    Ok(lambda.mul(&m1.add(&s.mul(&enc.tail(s)?))))
}

/// The greedy construction for `hosts` hosts at the arrival rates `lambda`, with the MPFR
/// cutoffs `guesses` as where to look. With `all_cutoffs` it encloses the h − 1 critical
/// cutoffs without deciding stability (at the threshold, where the last load is 1).
fn greedy_enclosed(
    enc: &dyn Enclosure,
    d: &dyn JobSize,
    lambda: &Interval,
    hosts: usize,
    guesses: &[Float],
    all_cutoffs: bool,
) -> Result<GreedyEnclosed, PolicyError> {
    let bits = enc.prec();
    let mut cutoffs: Vec<Interval> = Vec::with_capacity(hosts.saturating_sub(1));
    let outcome = |cutoffs: Vec<Interval>, verdict| Ok(GreedyEnclosed { cutoffs, verdict });
    for i in 1..=hosts {
        let a = if i == 1 {
            pt(&below_support(bits))
        } else {
            cutoffs[i - 2].clone()
        };
        if all_cutoffs && i == hosts {
            return outcome(cutoffs, Verdict::Undecided);
        }
        let full = load_enclosed(enc, lambda, &a, &a, true)?;
        if i == hosts || *full.hi() < 1 {
            let verdict = if *full.hi() < 1 {
                Verdict::Stable
            } else if *full.lo() >= 1 {
                Verdict::Unstable
            } else {
                Verdict::Undecided
            };
            return outcome(cutoffs, verdict);
        }
        if !all_cutoffs && *full.lo() < 1 {
            return outcome(cutoffs, Verdict::Undecided);
        }
        let start = if i == 1 { enc.lower() } else { a.clone() };
        let at_start = load_enclosed(enc, lambda, &a, &start, false)?;
        if !all_cutoffs {
            if *at_start.lo() >= 1 {
                return outcome(cutoffs, Verdict::Unstable);
            }
            if *at_start.hi() >= 1 {
                return outcome(cutoffs, Verdict::Undecided);
            }
        }
        let guess = match guesses.get(i - 1) {
            Some(g) => g.clone(),
            None => float_critical_cutoff(d, &lambda.mid(), &a.mid(), &start.mid(), i)?,
        };
        let Some(lo) = root_side(enc, lambda, &a, &guess, start.hi(), false)? else {
            return match all_cutoffs {
                true => Err(undecided(format!(
                    "TAGS host {i}'s critical cutoff (below)"
                ))),
                false => outcome(cutoffs, Verdict::Undecided),
            };
        };
        let Some(hi) = root_side(enc, lambda, &a, &guess, start.hi(), true)? else {
            return match all_cutoffs {
                true => Err(undecided(format!(
                    "TAGS host {i}'s critical cutoff (above)"
                ))),
                false => outcome(cutoffs, Verdict::Undecided),
            };
        };
        cutoffs.push(Interval::new(lo, hi));
    }
    outcome(cutoffs, Verdict::Undecided)
}

/// Newton steps that refine the MPFR cutoff toward the root at one end of the intervals
/// (the guess is the root at the midpoints, a few ulps from it).
const NEWTON_STEPS: usize = 2;

/// One end of the enclosure of the critical cutoffs {s : λ(M_1(a, s) + s F̄(s)) = 1} over
/// a ∈ `a` and λ ∈ `lambda`: the root rises with a and falls with λ, so the lower end is
/// below the root at (a.lo, λ.hi) and the upper end above the root at (a.hi, λ.lo). That
/// root is approached by Newton steps from `guess` (the load's slope in s is λ F̄(s)), and
/// the end is a point near it at which the load's enclosure is proven below 1 (lower) or
/// above 1 (upper). Bracketing each end's own root keeps the enclosure as wide as the
/// roots' spread plus the rounding, so widths add up along the chain of hosts instead of
/// multiplying.
fn root_side(
    enc: &dyn Enclosure,
    lambda: &Interval,
    a: &Interval,
    guess: &Float,
    floor: &Float,
    above: bool,
) -> Result<Option<Float>, PolicyError> {
    let bits = enc.prec();
    let (a_end, l_end) = if above {
        (pt(a.hi()), pt(lambda.lo()))
    } else {
        (pt(a.lo()), pt(lambda.hi()))
    };
    let f = |s: &Float| load_enclosed(enc, &l_end, &a_end, &pt(s), false);
    let mut s = guess.clone();
    for _ in 0..NEWTON_STEPS {
        let v = f(&s)?.mid();
        let slope = l_end.mul(&enc.tail(&pt(&s))?).mid();
        if !(slope > 0) {
            break;
        }
        let next = Float::with_val(bits, &s - Float::with_val(bits, v - 1u32) / slope);
        if !(next.is_finite() && next > *floor) {
            break;
        }
        s = next;
    }
    proven_side(bits, &s, floor, above, &f)
}

/// A point on one side of the root of f = 1 (f increasing) near `guess`: below it
/// (`above` false) a point where f's enclosure is below 1, above it one where it is above
/// 1, at relative offsets 2^(4 − bits)·2^k from the guess; `None` if none is proven.
fn proven_side(
    bits: u32,
    guess: &Float,
    floor: &Float,
    above: bool,
    f: &impl Fn(&Float) -> Result<Interval, PolicyError>,
) -> Result<Option<Float>, PolicyError> {
    for k in 0..ROOT_OFFSET_TRIES {
        let e = 4 + k as i32 - bits as i32;
        if e > -1 {
            break;
        }
        let off = Float::with_val(bits, 1u32) << e;
        let factor = if above {
            Float::with_val(bits, 1u32 + off)
        } else {
            Float::with_val(bits, 1u32 - off)
        };
        let s = Float::with_val(bits, guess * &factor);
        if !above && s <= *floor {
            break;
        }
        let v = f(&s)?;
        if (!above && *v.hi() < 1) || (above && *v.lo() > 1) {
            return Ok(Some(s));
        }
    }
    Ok(None)
}

/// SITA-E's cutoffs enclosed: s_i is the root of M_1(s_0, s) = (i/h) E[X] (equal loads),
/// increasing in s, so it lies between a point where the enclosure of
/// M_1(s_0, s) − (i/h) E[X] is proven negative and one where it is proven positive; those
/// points are searched near the MPFR cutoffs `guesses` (relative offsets 2^(4 − bits)·2^k,
/// as the greedy cutoffs'). An error when a side is not proven (a law whose M_1 is flat or
/// jumps at the root: an atom, a gap in the support).
pub fn sita_e_enclosed(
    enc: &dyn Enclosure,
    hosts: usize,
    guesses: &[Float],
) -> Result<Vec<Interval>, PolicyError> {
    let bits = enc.prec();
    let mean = enc.mean()?;
    let floor = below_support(bits);
    let start = pt(&floor);
    let mut out = Vec::with_capacity(guesses.len());
    for (k, g) in guesses.iter().enumerate() {
        let i = k + 1;
        let target = mean
            .mul(&Interval::int(bits, i64::try_from(i).unwrap_or(i64::MAX)))
            .div(&Interval::int(
                bits,
                i64::try_from(hosts).unwrap_or(i64::MAX),
            ));
        // f(s) = 1 + M_1(s_0, s) − target, increasing: its root is where f = 1.
        let f = |s: &Float| -> Result<Interval, PolicyError> {
            let m = enc.partial_moment(1, &start, &pt(s))?;
            Ok(m.sub(&target).add(&Interval::int(bits, 1)))
        };
        let g = Float::with_val(bits, g);
        let lo = proven_side(bits, &g, &floor, false, &f)?;
        let hi = proven_side(bits, &g, &floor, true, &f)?;
        match (lo, hi) {
            (Some(a), Some(b)) => out.push(Interval::new(a, b)),
            _ => {
                return Err(undecided(format!(
                    "SITA-E cutoff {i} near {}",
                    message_number(&g)
                )))
            }
        }
    }
    Ok(out)
}

/// Host i's critical cutoff in MPFR (λ(M_1(a, s) + s F̄(s)) = 1 from s = start), where the
/// MPFR construction gave none to start from.
fn float_critical_cutoff(
    d: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    start: &Float,
    i: usize,
) -> Result<Float, PolicyError> {
    let bits = d.prec();
    let f = |s: &Float| -> Result<Float, PolicyError> { Ok(host_load(d, lambda, a, s)? - 1u32) };
    let top = d.upper();
    let hi = if top.is_infinite() {
        let from = if *start > 0 {
            Float::with_val(bits, start * 2u32)
        } else {
            Float::with_val(bits, 1)
        };
        expand_upper("TAGS critical cutoff", &from, f)?
    } else {
        top
    };
    Ok(solve_increasing(&format!("TAGS host {i} critical cutoff"), start, &hi, f)?.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::DistSpec;
    use rug::ops::Pow;

    /// Threshold enclosures against closed forms: Pareto(1, α) ρ*(h) = α/(α−1)(1 − α^(−h))
    /// (Bachmat, Doncel & Sarfati 2020, as in `threshold::tags_threshold`'s doc test); the
    /// uniform law on (0, 1) with h = 2 has ρ* = 4/3 (its greedy: λ = 8/3); the exponential
    /// with h = 2 has λ* the root of (λ − 1)(1 + ln(λ/(λ − 1))) = 1 (the first host is
    /// critical at s with λ(1 − e^(−s)) = 1, the second serves the rest: λ e^(−s)(s + 1) = 1).
    #[test]
    fn thresholds_contain_closed_forms() {
        let digits = 40;
        let hp = 1200;
        for (alpha, h) in [(2u32, 3usize), (3, 10), (2, 1000)] {
            let s = DistSpec::parse(&format!("pareto:k=1,alpha={alpha}")).unwrap();
            let t = threshold_rigorous(&s, Some(h), digits).unwrap();
            let a = Float::with_val(hp, alpha);
            let exact = Float::with_val(hp, &a / Float::with_val(hp, &a - 1u32))
                * (1u32 - Float::with_val(hp, Float::with_val(hp, &a).pow(-(h as i32))));
            assert!(
                t.load.contains(&exact),
                "pareto {alpha} h {h}: {:?}",
                t.load
            );
            assert!(t.proven_digits >= digits);
        }
        let u = DistSpec::parse("uniform:a=0,b=1").unwrap();
        let t = threshold_rigorous(&u, Some(2), digits).unwrap();
        let four_thirds = Float::with_val(hp, 4) / 3u32;
        assert!(t.load.contains(&four_thirds));
        // (λ − 1)(1 + ln(λ/(λ − 1))) − 1 changes sign across the enclosure of λ*.
        let e = DistSpec::parse("exp:rate=1").unwrap();
        let t = threshold_rigorous(&e, Some(2), digits).unwrap();
        let g = |l: &Float| {
            let l1 = Float::with_val(hp, l - 1u32);
            let r = Float::with_val(hp, l / &l1).ln();
            Float::with_val(hp, l1 * (r + 1u32)) - 1u32
        };
        let (lo, hi) = (
            Float::with_val(hp, t.lambda.lo()),
            Float::with_val(hp, t.lambda.hi()),
        );
        assert!(g(&lo) < 0 && g(&hi) > 0, "{:?}", t.lambda);
        // h = ∞: E[X]/sup x F̄(x) = e for the exponential (sup = 1/e at x = 1).
        let t = threshold_rigorous(&e, None, digits).unwrap();
        assert!(t.load.contains(&Float::with_val(hp, 1).exp()));
    }
}

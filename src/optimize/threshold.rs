//! TAGS stability: the greedy construction that decides whether stable cutoffs exist, and
//! the threshold load ρ*(F, h) (Bachmat, Doncel & Sarfati 2019, 2020).
//!
//! Host i's load ρ_i = λ E[min(X, s_i); X > s_{i−1}] falls as s_{i−1} grows and rises with
//! s_i. Making each host in turn exactly critical (ρ_i = 1) therefore pushes every cutoff as
//! far right as it can go; stable cutoffs exist iff what is left for the last host has load
//! below 1. The threshold ρ*(F, h) is the total load at which that leftover load is exactly
//! 1; as h → ∞ it tends to E[X] / sup_x x F̄(x).

use crate::dist::JobSize;
use crate::num::root::{expand_upper, solve_increasing};
use crate::num::{message_number, NumError};
use crate::policy::{tags::host_load, PolicyError, PolicyKind};
use rug::Float;

/// Rejects a load at which no cutoffs of `policy` are stable with `hosts` hosts: TAGS's
/// threshold ([`check_tags_stable`]); SITA on a law whose every size is an atom, when its
/// atoms cannot be cut into `hosts` ranges of load below 1 ([`check_sita_stable`]). SITA on
/// any other law, and Random, are stable at every load below h, which
/// [`crate::policy::LoadSpec::resolve`] already requires.
pub fn check_stable(
    policy: PolicyKind,
    dist: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
    hosts: usize,
) -> Result<(), PolicyError> {
    match policy {
        PolicyKind::Tags => check_tags_stable(dist, lambda, rho, hosts),
        PolicyKind::Sita => check_sita_stable(dist, lambda, rho, hosts),
        PolicyKind::Random => Ok(()),
    }
}

/// Rejects a SITA load that no cutoffs keep stable on a law whose every size is an atom (the
/// empirical law; [`JobSize::atom_at_or_below`]). A cutoff cannot split an atom, so SITA's
/// hosts take contiguous ranges of atoms, and stable cutoffs exist iff the atoms can be cut
/// into at most `hosts` ranges whose loads λ·E[X; range] are each below 1. Filling each host
/// in turn from the largest atom down, as far as its load stays below 1, uses the fewest
/// ranges (any range of a cover can be stretched to the greedy one's end without passing
/// load 1, so the greedy's k-th range ends no later than any cover's k-th). A law with a
/// density needs nothing: any load below h is stable.
pub fn check_sita_stable(
    dist: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
    hosts: usize,
) -> Result<(), PolicyError> {
    let bits = dist.prec();
    let atoms = crate::dist::atoms_of(dist);
    let Some(top) = atoms.last() else {
        return Ok(());
    };
    let load = |a: &Float, b: &Float| -> Result<Float, PolicyError> {
        Ok(Float::with_val(
            bits,
            lambda * dist.partial_moment(1, a, b)?,
        ))
    };
    let bottom = dist.lower_open();
    let mut used = 1usize;
    // The current host takes the atoms in (next, hi], from the largest down; the atom
    // below the least is `bottom`, below the support.
    let mut hi = top;
    for (k, x) in atoms.iter().enumerate().rev() {
        let next = if k == 0 { &bottom } else { &atoms[k - 1] };
        let alone = load(next, x)?;
        if alone >= 1 {
            return Err(PolicyError::BadLoad(format!(
                "total load ρ = {} has no stable SITA cutoffs: the law is discrete and its atom at {} alone brings load {} ≥ 1 to its host (a cutoff cannot split an atom)",
                message_number(rho),
                message_number(x),
                message_number(&alone)
            )));
        }
        if load(next, hi)? >= 1 {
            used += 1;
            hi = x;
        }
    }
    if used > hosts {
        return Err(PolicyError::BadLoad(format!(
            "total load ρ = {} has no stable SITA cutoffs at {hosts} hosts: the law is discrete, a cutoff cannot split an atom, and its atoms need at least {used} hosts of load below 1",
            message_number(rho)
        )));
    }
    Ok(())
}

/// Rejects a load at which no TAGS cutoffs are stable, naming the threshold.
pub fn check_tags_stable(
    dist: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
    hosts: usize,
) -> Result<(), PolicyError> {
    if hosts < 2 {
        return Ok(());
    }
    check_below_limit(dist, lambda, rho)?;
    if !greedy(dist, lambda, hosts)?.stable() {
        let t = tags_threshold(dist, Some(hosts))?;
        return Err(PolicyError::BadLoad(format!(
            "total load ρ = {} is at or above the TAGS stability threshold ρ*(F, {hosts}) = {}: no cutoffs are stable",
            message_number(rho),
            message_number(&t.load)
        )));
    }
    Ok(())
}

/// Refuses a TAGS load at or above ρ*(F, ∞) = E[X] / sup_x x F̄(x): since ρ*(F, h) < ρ*(F, ∞)
/// for every h, no cutoffs are stable for any host count, and the refusal needs neither the
/// greedy construction nor ρ*(F, h) (seconds at h = 300, minutes at h = 10^6).
pub fn check_below_limit(
    dist: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
) -> Result<(), PolicyError> {
    let (_, sup) = dist.sup_x_tail()?;
    if sup > 0 && Float::with_val(dist.prec(), lambda * &sup) >= 1 {
        let limit = Float::with_val(dist.prec(), dist.mean()? / &sup);
        return Err(PolicyError::BadLoad(format!(
            "total load ρ = {} is at or above ρ*(F, ∞) = E[X] / sup_x x F̄(x) = {}, above the TAGS stability threshold of every host count: no cutoffs are stable",
            message_number(rho),
            message_number(&limit)
        )));
    }
    Ok(())
}

/// Outcome of the greedy construction at one arrival rate.
#[derive(Debug, Clone)]
pub struct Greedy {
    /// The interior cutoffs placed (each making its host exactly critical).
    pub cutoffs: Vec<Float>,
    /// The host (1-based) at which the construction ended.
    pub end_host: usize,
    /// The load of that host if it serves every job left (λ E[X; X > s_{end−1}]).
    pub last_load: Float,
    /// The construction could not place a cutoff: host `end_host` is critical already at
    /// s = s_{end−1} (λ s F̄(s) ≥ 1).
    pub stuck: bool,
}

impl Greedy {
    /// Whether stable cutoffs exist: nothing got stuck and the last host's load is below 1.
    pub fn stable(&self) -> bool {
        !self.stuck && self.last_load < 1
    }
}

/// The greedy construction for `hosts` TAGS hosts at arrival rate `lambda`.
///
/// ```
/// use taskassign::dist::{DistSpec, DistFactory};
/// use taskassign::num::parse_decimal;
/// use taskassign::optimize::greedy;
/// // Uniform(0,1), two hosts: stable iff ρ < 4/3 (λ < 8/3).
/// let d = DistSpec::parse("uniform:a=0,b=1").unwrap().build(128).unwrap();
/// assert!(greedy(d.as_ref(), &parse_decimal("2.6", 128).unwrap(), 2).unwrap().stable());
/// assert!(!greedy(d.as_ref(), &parse_decimal("2.7", 128).unwrap(), 2).unwrap().stable());
/// ```
pub fn greedy(dist: &dyn JobSize, lambda: &Float, hosts: usize) -> Result<Greedy, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = dist.prec();
    crate::policy::budget::check_hosts(
        "the greedy TAGS construction",
        hosts,
        "one cutoff per host",
        |h| (h as u64).saturating_mul(crate::policy::budget::float_bytes(bits)),
    )?;
    let top = dist.upper();
    let lo_open = dist.lower_open();
    let mut cutoffs: Vec<Float> = Vec::with_capacity(hosts - 1);
    for i in 1..=hosts {
        if i % GREEDY_PROGRESS_EVERY == 0 {
            crate::progress::report("greedy host", i as u64, Some(hosts as u64), "");
        }
        let a = if i == 1 {
            lo_open.clone()
        } else {
            cutoffs[i - 2].clone()
        };
        // The same formula as the root function below (at b = top nothing is killed), so
        // that "full ≥ 1" and a sign change at the top agree to the last bit.
        let full = host_load(dist, lambda, &a, &top)?;
        if i == hosts || full < 1 {
            return Ok(Greedy {
                cutoffs,
                end_host: i,
                last_load: full,
                stuck: false,
            });
        }
        let start = if i == 1 { dist.lower() } else { a.clone() };
        let f = |s: &Float| -> Result<Float, PolicyError> {
            Ok(host_load(dist, lambda, &a, s)? - 1u32)
        };
        if f(&start)? >= 0 {
            return Ok(Greedy {
                cutoffs,
                end_host: i,
                last_load: full,
                stuck: true,
            });
        }
        let hi = if top.is_infinite() {
            let from = if start > 0 {
                Float::with_val(bits, &start * 2u32)
            } else {
                Float::with_val(bits, 1)
            };
            expand_upper("TAGS critical cutoff", &from, f)?
        } else {
            top.clone()
        };
        let r = solve_increasing(&format!("TAGS host {i} critical cutoff"), &start, &hi, f)?;
        cutoffs.push(r.x);
    }
    // The loop always returns at i == hosts.
    Err(PolicyError::BadHosts(hosts))
}

/// A TAGS stability threshold.
#[derive(Debug, Clone)]
pub struct Threshold {
    /// ρ* = λ* E[X]: stable cutoffs exist iff the total load is below it.
    pub load: Float,
    /// λ* = ρ* / E[X].
    pub lambda: Float,
    /// The greedy cutoffs at the threshold (fewer than h − 1 if fewer hosts suffice;
    /// empty for h = 1 and h = ∞).
    pub cutoffs: Vec<Float>,
    /// For h = ∞: the maximiser x* of x F̄(x).
    pub argmax: Option<Float>,
}

/// The greedy construction reports its progress every this many hosts.
const GREEDY_PROGRESS_EVERY: usize = 256;

/// ρ*(F, h): the largest total load for which TAGS with `hosts` hosts has stable cutoffs;
/// `None` hosts means h → ∞, where ρ* = E[X] / sup_x x F̄(x).
///
/// Pareto(1, α) with α > 1 has ρ*(h) = α/(α−1) (1 − α^(−h)) ([BDS20]):
/// ```
/// use rug::Float;
/// use taskassign::dist::{DistSpec, DistFactory};
/// use taskassign::optimize::tags_threshold;
/// let d = DistSpec::parse("pareto:k=1,alpha=2").unwrap().build(128).unwrap();
/// let t = tags_threshold(d.as_ref(), Some(3)).unwrap();
/// let exact = Float::with_val(128, 2) * (Float::with_val(128, 1) - Float::with_val(128, 0.125)); // 1.75
/// assert!(Float::with_val(128, &t.load - &exact).abs() < 1e-30);
/// ```
pub fn tags_threshold(dist: &dyn JobSize, hosts: Option<usize>) -> Result<Threshold, PolicyError> {
    let bits = dist.prec();
    let mean = dist.mean()?;
    let lambda_lo = Float::with_val(bits, 1u32) / &mean;
    let (argmax, sup) = dist.sup_x_tail()?;
    if !(sup > 0) {
        return Err(PolicyError::Num(NumError::NotFinite(format!(
            "sup x F̄(x) = {}",
            message_number(&sup)
        ))));
    }
    let lambda_hi = Float::with_val(bits, 1u32) / &sup;
    let Some(h) = hosts else {
        let load = Float::with_val(bits, &mean / &sup);
        return Ok(Threshold {
            load,
            lambda: lambda_hi,
            cutoffs: vec![],
            argmax: Some(argmax),
        });
    };
    if h < 1 {
        return Err(PolicyError::BadHosts(h));
    }
    if h == 1 || lambda_hi <= lambda_lo {
        // One host: ρ < 1. sup x F̄(x) = E[X] only for a point mass, where every kill wastes.
        return Ok(Threshold {
            load: Float::with_val(bits, 1),
            lambda: lambda_lo,
            cutoffs: vec![],
            argmax: None,
        });
    }
    // Φ(λ) = (leftover load − 1) − (hosts not reached): continuous and increasing in λ,
    // zero exactly when the h-th host is left with load 1.
    let evaluations = std::cell::Cell::new(0u64);
    let phi = |lambda: &Float| -> Result<Float, PolicyError> {
        evaluations.set(evaluations.get() + 1);
        if crate::progress::enabled() {
            let note = format!(
                "λ = {} at {bits} bits",
                message_number(&Float::with_val(24, lambda))
            );
            crate::progress::report("threshold root, evaluation", evaluations.get(), None, &note);
        }
        let g = greedy(dist, lambda, h)?;
        if g.stuck {
            return Ok(Float::with_val(bits, 1));
        }
        let unused = Float::with_val(bits, h - g.end_host);
        Ok(g.last_load - 1u32 - unused)
    };
    // With a step tail (empirical, atoms) the supremum of x F̄(x) is a left limit that is
    // not attained: h hosts may then be stable right up to λ = 1/sup, and since no h can
    // do better, ρ*(F, h) = ρ*(F, ∞) there.
    let lambda = if phi(&lambda_hi)? <= 0 {
        lambda_hi
    } else {
        solve_increasing(
            &format!("TAGS threshold with {h} hosts"),
            &lambda_lo,
            &lambda_hi,
            phi,
        )?
        .x
    };
    let g = greedy(dist, &lambda, h)?;
    let load = Float::with_val(bits, &lambda * &mean);
    Ok(Threshold {
        load,
        lambda,
        cutoffs: g.cutoffs,
        argmax: None,
    })
}

/// Whether any TAGS cutoffs on an n-point grid (the optimiser's grid of job-count and work
/// quantiles and log-spaced points, [`crate::optimize::grid::make_grid`], independent of the
/// greedy construction) make every host's load below 1: an exhaustive search of all
/// increasing (h − 1)-tuples, organised as a reachability table over the chain of hosts
/// (host i's load depends only on (s_{i−1}, s_i)), which visits every pair of consecutive
/// cutoffs. An independent check of [`greedy`]'s verdict.
///
/// ```
/// use taskassign::dist::{DistSpec, DistFactory};
/// use taskassign::num::parse_decimal;
/// use taskassign::optimize::exhaustive_stable;
/// // Uniform(0,1), two hosts: stable cutoffs exist iff ρ < 4/3 (λ < 8/3).
/// let d = DistSpec::parse("uniform:a=0,b=1").unwrap().build(128).unwrap();
/// assert!(exhaustive_stable(d.as_ref(), &parse_decimal("2.5", 128).unwrap(), 2, 200).unwrap());
/// assert!(!exhaustive_stable(d.as_ref(), &parse_decimal("2.7", 128).unwrap(), 2, 200).unwrap());
/// ```
pub fn exhaustive_stable(
    d: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    n: usize,
) -> Result<bool, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let top = d.upper();
    let lo_open = d.lower_open();
    if hosts == 1 {
        let full = Float::with_val(d.prec(), lambda * &d.mean()?);
        return Ok(full < 1);
    }
    let grid = crate::optimize::grid::make_grid(d, n)?;
    let pts: Vec<Float> = grid
        .into_iter()
        .filter(|x| *x > d.lower() && *x < top)
        .collect();
    let stable =
        |a: &Float, b: &Float| -> Result<bool, PolicyError> { Ok(host_load(d, lambda, a, b)? < 1) };
    // reach[j]: some stable assignment of hosts 1..i ends with s_i = pts[j].
    let mut reach: Vec<bool> = pts
        .iter()
        .map(|x| stable(&lo_open, x))
        .collect::<Result<_, _>>()?;
    for _ in 2..hosts {
        let mut next = vec![false; pts.len()];
        for j in 0..pts.len() {
            for m in 0..j {
                if reach[m] && stable(&pts[m], &pts[j])? {
                    next[j] = true;
                    break;
                }
            }
        }
        reach = next;
    }
    for (m, x) in pts.iter().enumerate() {
        if reach[m] && stable(x, &top)? {
            return Ok(true);
        }
    }
    Ok(false)
}

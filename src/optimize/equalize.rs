//! Cutoffs defined by equal host quantities: SITA-E (equal loads, each cutoff a root of
//! M_1(s_0, s_i) = (i/h) E[X]), its TAGS analogue ([`balanced_cutoffs`]: every ρ_i equal,
//! by bisection on the common load) and the TAGS cutoffs at the smallest feasible common level
//! of a per-host quantity (the mean queue lengths for TAGS-minmax, the loads for the seeds
//! near the stability threshold), by the greedy construction of `equalize`.

use super::chain::{Chain, ChainKind};
use super::grid::SINGLE_POINT;
use crate::dist::JobSize;
use crate::num::message_number;
use crate::num::root::{expand_upper, solve_increasing};
use crate::policy::{tags, Metric, PolicyError};
use rug::Float;

/// Bisection steps of the cutoff and load searches in [`balanced_cutoffs`] (2^-100 of the
/// bracket is below f64 resolution, which is all the table needs).
const BALANCE_STEPS: usize = 100;
/// The common load of [`balanced_cutoffs`] is bracketed to this width.
const BALANCE_LOAD_TOL: f64 = 1e-13;

/// SITA-E: the cutoffs with M_1(s_0, s_i) = (i/h) E[X] (equal loads), each found as a root
/// (from the side of the support that keeps more digits). A law whose every size is an atom
/// (the empirical law) has its own rule ([`sita_e_atoms`]).
pub fn sita_e_cutoffs(dist: &dyn JobSize, hosts: usize) -> Result<Vec<Float>, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = dist.prec();
    let mean = dist.mean()?;
    let lo_open = dist.lower_open();
    let lo = dist.lower();
    let top = dist.upper();
    if hosts > 1 && lo >= top {
        return Err(PolicyError::BadCutoffs(SINGLE_POINT.into()));
    }
    if dist.atom_at_or_below(&top).is_some() {
        return sita_e_atoms(dist, hosts, &mean);
    }
    let mut out: Vec<Float> = Vec::with_capacity(hosts - 1);
    for i in 1..hosts {
        let below =
            Float::with_val(bits, &mean * Float::with_val(bits, i)) / Float::with_val(bits, hosts);
        let above = Float::with_val(bits, &mean * Float::with_val(bits, hosts - i))
            / Float::with_val(bits, hosts);
        let use_below = 2 * i <= hosts;
        let f = |s: &Float| -> Result<Float, PolicyError> {
            Ok(if use_below {
                dist.partial_moment(1, &lo_open, s)? - &below
            } else {
                Float::with_val(bits, &above - &dist.partial_moment(1, s, &top)?)
            })
        };
        let from = out.last().cloned().unwrap_or_else(|| lo.clone());
        let hi = if top.is_infinite() {
            let start = if from > 0 {
                Float::with_val(bits, &from * 2u32)
            } else {
                Float::with_val(bits, 1)
            };
            expand_upper("SITA-E cutoff", &start, f)?
        } else {
            top.clone()
        };
        let r = solve_increasing(&format!("SITA-E cutoff {i}"), &from, &hi, f)?;
        out.push(r.x);
    }
    Ok(out)
}

/// SITA-E on a law whose every size is an atom: a cutoff cannot split an atom, so loads
/// are equal only where the atoms allow. Cutoff i is the least atom at which the load below,
/// M_1(s_0, x], reaches i/h of E[X] (within a few units of the last bit, so that a share met
/// exactly is not lost to rounding). A law with an atom carrying more than a host's share
/// makes two cutoffs meet, or one reach the largest size: it is refused, since no h busy
/// hosts share it near equally.
fn sita_e_atoms(dist: &dyn JobSize, hosts: usize, mean: &Float) -> Result<Vec<Float>, PolicyError> {
    let bits = dist.prec();
    let lo_open = dist.lower_open();
    // The atoms, least first, each with the load below it (M_1 up to and including it).
    let atoms: Vec<(Float, Float)> = crate::dist::atoms_of(dist)
        .into_iter()
        .map(|a| -> Result<(Float, Float), PolicyError> {
            let below = dist.partial_moment(1, &lo_open, &a)?;
            Ok((a, below))
        })
        .collect::<Result<_, _>>()?;
    let slack = Float::with_val(bits, 1) >> bits.saturating_sub(8);
    let keep = Float::with_val(bits, 1u32 - slack);
    let mut out: Vec<Float> = Vec::with_capacity(hosts - 1);
    for i in 1..hosts {
        let share = Float::with_val(bits, mean * Float::with_val(bits, i)) / hosts as u32;
        let target = Float::with_val(bits, &share * &keep);
        let k = atoms.partition_point(|(_, below)| *below < target);
        let top = k + 1 >= atoms.len();
        let met = k < atoms.len() && out.last().is_some_and(|p: &Float| atoms[k].0 <= *p);
        if top || met {
            let heavy = &atoms[k.min(atoms.len() - 1)].0;
            return Err(PolicyError::BadCutoffs(format!(
                "SITA-E: the law is discrete and its atom at {} carries more than a host's share (1/{hosts}) of the load, so no cutoffs give {hosts} hosts near-equal loads (a cutoff cannot split an atom): use --policy sita, or fewer hosts",
                message_number(heavy)
            )));
        }
        out.push(atoms[k].0.clone());
    }
    Ok(out)
}

/// The TAGS cutoffs s_1 < … < s_{h−1} that give every host the same load L (L found by
/// bisection: a larger common load pushes every cutoff up and leaves less for the last
/// host). Errors when the common load would be ≥ 1 (no balanced stable cutoffs).
pub fn balanced_cutoffs(
    d: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
) -> Result<(Vec<Float>, f64), PolicyError> {
    let bits = d.prec();
    let lo_open = d.lower_open();
    let top = d.upper();
    if !top.is_finite() {
        return Err(PolicyError::BadCutoffs(
            "balanced TAGS cutoffs are only searched for bounded supports".into(),
        ));
    }
    // Greedy chain for the common load `l`: each cutoff makes its host's load exactly l;
    // returns the cutoffs and the last host's load (None if an earlier host could take
    // every remaining job, i.e. l is too large).
    let chain = |l: f64| -> Result<Option<(Vec<Float>, f64)>, PolicyError> {
        let target = Float::with_val(bits, l);
        let mut cut = Vec::with_capacity(hosts - 1);
        let mut a = lo_open.clone();
        for _ in 1..hosts {
            if tags::host_load(d, lambda, &a, &top)? <= target {
                return Ok(None);
            }
            let mut lo = if a < d.lower() { d.lower() } else { a.clone() };
            let mut hi = top.clone();
            for _ in 0..BALANCE_STEPS {
                let mid = if lo > 0 {
                    Float::with_val(bits, &lo * &hi).sqrt()
                } else {
                    Float::with_val(bits, &lo + &hi) / 2u32
                };
                if tags::host_load(d, lambda, &a, &mid)? < target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            cut.push(hi.clone());
            a = hi;
        }
        let last = tags::host_load(d, lambda, &a, &top)?.to_f64();
        Ok(Some((cut, last)))
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut best: Option<(Vec<Float>, f64)> = None;
    for _ in 0..BALANCE_STEPS {
        let mid = 0.5 * (lo + hi);
        match chain(mid)? {
            Some((c, last)) if last > mid => {
                lo = mid;
                best = Some((c, mid));
            }
            _ => hi = mid,
        }
        if hi - lo < BALANCE_LOAD_TOL {
            break;
        }
    }
    match best {
        Some((c, l)) if hi < 1.0 && c.windows(2).all(|w| w[0] < w[1]) => Ok((c, l)),
        _ => Err(PolicyError::BadLoad(format!(
            "no TAGS cutoffs balance {hosts} hosts below load 1 (λ = {})",
            message_number(lambda)
        ))),
    }
}

/// TAGS-minmax: the cutoffs that equalise the hosts' mean queue lengths L_i = λ_i Q_i at
/// the smallest feasible level c (see `equalize`). Returns (free cutoffs, c).
pub fn tags_minmax_cutoffs(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    start: &[Float],
) -> Result<(Vec<Float>, Float), PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = dist.prec();
    let ch = Chain::new(
        dist,
        lambda.clone(),
        ChainKind::TagsQueueLength,
        Metric::Waiting,
    );
    let lo = dist.lower();
    let top = dist.upper();
    // Bracket: the level of the starting cutoffs (feasible).
    let mut hi = Float::with_val(bits, 0);
    let mut a = lo.clone();
    for (i, b) in start.iter().chain(std::iter::once(&top)).enumerate() {
        let v = ch.term(&a, &Float::with_val(bits, b))?;
        if v > hi {
            hi = v;
        }
        a = Float::with_val(bits, b);
        if i + 1 >= hosts {
            break;
        }
    }
    if !hi.is_finite() || hi.is_zero() {
        hi = Float::with_val(bits, 1);
    }
    // The start may be the minmax cutoffs themselves (from a lower precision), whose level
    // rounds to either side of the root at this precision: widen the bracket.
    hi *= 2u32;
    equalize(dist, hosts, &|a, b| ch.term(a, b), hi, true, "TAGS-minmax")
}

/// TAGS cutoffs that equalise the host loads ρ_i at the smallest feasible level: stable
/// whenever any stable cutoffs exist (the level is then below 1), so they seed the search
/// near the stability threshold, where stable cutoffs are rare on a grid.
pub fn tags_equal_load_cutoffs(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
) -> Result<(Vec<Float>, Float), PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let one = Float::with_val(dist.prec(), 1);
    equalize(
        dist,
        hosts,
        &|a, b| tags::host_load(dist, lambda, a, b),
        one,
        false,
        "TAGS equal-load",
    )
}

/// How many times [`equalize`] lowers its lower level bracket by 2^(4·bits) looking for an
/// infeasible level.
const LEVEL_SHRINKS: usize = 16;

/// A per-host quantity L(s_{i−1}, s_i) that rises with s_i and falls with s_{i−1}.
type HostTerm<'a> = dyn Fn(&Float, &Float) -> Result<Float, PolicyError> + 'a;

/// Equalises `term` over the hosts at the smallest feasible level c: for a level c the
/// greedy choice (each host in turn at exactly c) is feasible iff the host that ends at the
/// top has L ≤ c, so the optimal c is the root of c − L_last(c). `hi` is a level to start
/// the bracket from (doubled until feasible when `expand`). Returns (free cutoffs, c).
fn equalize(
    dist: &dyn JobSize,
    hosts: usize,
    term: &HostTerm,
    hi: Float,
    expand: bool,
    what: &str,
) -> Result<(Vec<Float>, Float), PolicyError> {
    let bits = dist.prec();
    let lo = dist.lower();
    let top = dist.upper();
    // Greedy at level c: (cutoffs, L of the host that ends at the top, stuck).
    let greedy = |c: &Float| -> Result<(Vec<Float>, Float, bool), PolicyError> {
        let mut cut: Vec<Float> = Vec::with_capacity(hosts - 1);
        let mut a = lo.clone();
        for i in 1..=hosts {
            let full = term(&a, &top)?;
            if i == hosts || full <= *c {
                return Ok((cut, full, false));
            }
            let f = |b: &Float| -> Result<Float, PolicyError> {
                let v = term(&a, b)?;
                Ok(if v.is_infinite() {
                    Float::with_val(bits, 1u32)
                } else {
                    v - c
                })
            };
            if f(&a)? >= 0 {
                return Ok((cut, full, true));
            }
            let hi = if top.is_infinite() {
                let from = if a > 0 {
                    Float::with_val(bits, &a * 2u32)
                } else {
                    Float::with_val(bits, 1)
                };
                expand_upper(&format!("{what} cutoff"), &from, f)?
            } else {
                top.clone()
            };
            let r = solve_increasing(&format!("{what} cutoff {i}"), &a, &hi, f)?;
            a = r.x.clone();
            cut.push(r.x);
        }
        Ok((
            cut,
            Float::with_val(bits, rug::float::Special::Infinity),
            true,
        ))
    };
    let psi = |c: &Float| -> Result<Float, PolicyError> {
        let (_, last, stuck) = greedy(c)?;
        if stuck || last.is_infinite() {
            return Ok(Float::with_val(bits, -1));
        }
        Ok(Float::with_val(bits, c - &last))
    };
    let mut hi = hi;
    let mut tries = 0;
    while psi(&hi)? < 0 {
        if !expand {
            // The greedy construction decides feasibility: no level up to the cap means
            // no cutoffs at all (for host loads: the load is beyond the TAGS threshold).
            return Err(PolicyError::BadLoad(format!(
                "{what}: no cutoffs reach a level at most {}",
                message_number(&hi)
            )));
        }
        hi *= 2u32;
        tries += 1;
        if tries > crate::num::root::EXPAND_LIMIT {
            return Err(PolicyError::Solver {
                what: format!("{what} level"),
                detail: format!(
                    "no feasible level after {} doublings of the bracket",
                    crate::num::root::EXPAND_LIMIT
                ),
                hint: crate::policy::HINT_MORE_DIGITS,
            });
        }
    }
    // A positive lower end, far below, lets the root finder bisect geometrically (levels
    // can span thousands of decades at p = 1e100000); 0 if even that level is feasible.
    let mut lo_c = Float::with_val(bits, &hi >> (4 * bits));
    for _ in 0..LEVEL_SHRINKS {
        if lo_c.is_zero() || psi(&lo_c)? < 0 {
            break;
        }
        lo_c >>= 4 * bits;
    }
    if lo_c.is_zero() || psi(&lo_c)? >= 0 {
        lo_c = Float::with_val(bits, 0);
    }
    let r = solve_increasing(&format!("{what} level"), &lo_c, &hi, psi)?;
    // The root finder keeps a bracket; use its feasible (upper) end.
    let (cut, _, _) = greedy(&r.hi)?;
    Ok((cut, r.hi))
}

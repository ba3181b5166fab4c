//! Searches over the policy formulas: optimal cutoffs (SITA-opt, SITA-E, TAGS-opt,
//! TAGS-minmax) and TAGS stability thresholds.
//!
//! Optimal cutoffs are found in three stages. (1) A global search: the objective is a chain
//! of per-host terms, so dynamic programming finds the exact optimum over a grid of
//! cutoffs (log-spaced, or at quantiles) for any h ([`grid`]). (2) A damped Newton
//! refinement at a low precision from the grid optimum, and (3) the same at the working
//! precision, on the analytic gradient ([`polish`]): the cutoffs are a root of the gradient
//! and so reach full precision. Each certified result is stage (3) at two precisions.

pub mod chain;
pub mod dp;
pub mod fast;
pub mod grid;
pub mod polish;
pub mod threshold;

use crate::dist::{DistFactory, JobSize};
use crate::num::root::{expand_upper, solve_increasing};
use crate::num::show;
use crate::policy::{evaluate, tags, Evaluation, LoadSpec, Metric, PolicyError, PolicyKind};
use chain::{Chain, ChainKind};
use rug::Float;

/// Host counts whose grid optimum is within this factor of the best are all refined.
pub const CANDIDATE_RATIO: f64 = 1.25;
/// At most this many host counts are zoomed and refined.
pub const MAX_CANDIDATES: usize = 4;

/// Precision of the global search and the first refinement.
pub const SEARCH_BITS: u32 = 64;

/// What is optimised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl OptPolicy {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            OptPolicy::Sita => "sita",
            OptPolicy::SitaE => "sita-e",
            OptPolicy::Tags => "tags",
            OptPolicy::TagsMinmax => "tags-minmax",
        }
    }
    /// The routing policy whose cutoffs these are.
    pub fn routing(self) -> PolicyKind {
        match self {
            OptPolicy::Sita | OptPolicy::SitaE => PolicyKind::Sita,
            OptPolicy::Tags | OptPolicy::TagsMinmax => PolicyKind::Tags,
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
}

fn chain_kind(p: OptPolicy) -> ChainKind {
    match p {
        OptPolicy::Sita | OptPolicy::SitaE => ChainKind::Sita,
        OptPolicy::Tags => ChainKind::Tags,
        OptPolicy::TagsMinmax => ChainKind::TagsQueueLength,
    }
}

/// Rejects a load at which no TAGS cutoffs are stable, naming the threshold.
pub fn check_tags_stable(
    dist: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
    hosts: usize,
) -> Result<(), PolicyError> {
    if hosts > 1 && !threshold::greedy(dist, lambda, hosts)?.stable() {
        let t = threshold::tags_threshold(dist, Some(hosts))?;
        return Err(PolicyError::BadLoad(format!(
            "total load ρ = {} is at or above the TAGS stability threshold ρ*(F, {hosts}) = {}: no cutoffs are stable",
            show(rho),
            show(&t.load)
        )));
    }
    Ok(())
}

/// Stage (1) and (2): global grid search and a low-precision refinement. Returns the free
/// cutoffs (those below the top) to start the final polish from.
pub fn search_start(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
) -> Result<Vec<Float>, PolicyError> {
    Ok(search_starts(dist, load, hosts, policy, metric)?.swap_remove(0))
}

/// Relative difference below which two refined candidates tie at the search precision:
/// both go on to the working precision, which decides.
pub const TIE_BITS: u32 = SEARCH_BITS - 16;

/// As [`search_start`], but every candidate that ties with the best at the search
/// precision (best first).
pub fn search_starts(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
) -> Result<Vec<Vec<Float>>, PolicyError> {
    search_starts_with(dist, load, hosts, policy, metric, Search::Auto)
}

/// Which global search [`search_starts_with`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// The f64 search on logarithms ([`fast`]) where the distribution has f64 partial
    /// moments and it finds a stable placement; the MPFR search otherwise.
    Auto,
    /// The MPFR grid search ([`grid`]) always (the reference the f64 search is tested
    /// against).
    Mpfr,
}

/// [`search_starts`] with a choice of global search.
pub fn search_starts_with(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    search: Search,
) -> Result<Vec<Vec<Float>>, PolicyError> {
    Ok(hinted_starts(dist, load, hosts, policy, metric, search)?
        .into_iter()
        .map(|s| s.cutoffs)
        .collect())
}

/// A start for the polish at the working precision: the free cutoffs, and the Hessian of
/// the search-precision refinement there (the polish's first Newton step uses it instead
/// of differencing the gradient).
#[derive(Debug, Clone)]
pub struct Start {
    /// The free cutoffs.
    pub cutoffs: Vec<Float>,
    /// The refinement's last Hessian, if it had one.
    pub hessian: Option<polish::Hessian>,
}

impl Start {
    fn bare(cutoffs: Vec<Float>) -> Self {
        Start {
            cutoffs,
            hessian: None,
        }
    }
}

/// [`search_starts_with`], each start with the refinement's Hessian.
fn hinted_starts(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    search: Search,
) -> Result<Vec<Start>, PolicyError> {
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
    let d = dist.build(SEARCH_BITS)?;
    let (lambda, rho) = load.resolve(d.as_ref(), hosts)?;
    if policy.routing() == PolicyKind::Tags {
        check_tags_stable(d.as_ref(), &lambda, &rho, hosts)?;
    }
    if hosts == 1 {
        return Ok(vec![Start::bare(vec![])]);
    }
    if search == Search::Auto && has_density(d.as_ref()) {
        if let Some(lc) = fast::LnChain::new(d.as_ref(), &lambda, chain_kind(policy), metric) {
            if let Some(starts) = fast_starts(&lc, d.as_ref(), &lambda, hosts, policy, metric)? {
                return Ok(starts);
            }
        }
    }
    let mut g = grid::make_grid(d.as_ref(), grid::grid_size(hosts))?;
    // Seeds that are stable whenever anything is: equal SITA loads (ρ/h < 1) and, for
    // TAGS, the equal-load cutoffs. Near the TAGS threshold (or with load > 1 and huge p)
    // the stable region can fall between grid points; with these on the grid the DP
    // always has a stable path to start from.
    let mut seeds: Vec<Float> = sita_e_cutoffs(d.as_ref(), hosts).unwrap_or_default();
    if policy.routing() == PolicyKind::Tags {
        if let Ok((c, _)) = tags_equal_load_cutoffs(d.as_ref(), &lambda, hosts) {
            seeds.extend(c);
        }
    }
    let (glo, gtop) = (d.lower(), d.upper());
    g.extend(seeds.into_iter().filter(|x| *x > glo && *x < gtop));
    g.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    g.dedup();
    let kind = chain_kind(policy);
    let top = d.upper();
    let candidates = grid::grid_optima(
        d.as_ref(),
        &lambda,
        hosts,
        kind,
        metric,
        &g,
        policy == OptPolicy::TagsMinmax,
    )?;
    let free_of = |c: &grid::GridOptimum| -> Vec<Float> {
        c.cutoffs.iter().filter(|x| **x < top).cloned().collect()
    };
    if !has_density(d.as_ref()) || policy == OptPolicy::TagsMinmax {
        return Ok(vec![Start::bare(free_of(&candidates[0]))]);
    }
    let ch = Chain::new(d.as_ref(), lambda, kind, metric);
    // Zoom and refine every host count whose grid value is within CANDIDATE_RATIO of the
    // best, and keep the lowest refined value. Only a starting point is needed: the
    // working precision finishes the polish (and reports an error if it cannot).
    let best_grid = candidates[0].value.clone();
    let width = grid::max_ln_gap(&g);
    let mut zoomed: Vec<Vec<Float>> = Vec::new();
    for c in candidates.iter().take(MAX_CANDIDATES) {
        if Float::with_val(SEARCH_BITS, &c.value / &best_grid) > CANDIDATE_RATIO {
            continue;
        }
        let z = grid::zoom(
            d.as_ref(),
            &ch.lambda,
            hosts,
            kind,
            metric,
            &free_of(c),
            width,
            false,
        )?;
        zoomed.push(free_of(&z));
    }
    let refined = refine_candidates(&ch, hosts, &zoomed)?;
    if refined.is_empty() {
        return Ok(vec![Start::bare(free_of(&candidates[0]))]);
    }
    Ok(refined)
}

/// Refines each start at the search precision (a bounded Newton run) and returns those
/// that tie with the best refined value at [`TIE_BITS`], best first. Starts whose
/// refinement fails are dropped.
fn refine_candidates(
    ch: &Chain,
    hosts: usize,
    starts: &[Vec<Float>],
) -> Result<Vec<Start>, PolicyError> {
    let mut refined: Vec<(Float, Start)> = Vec::new();
    let mut last_err = None;
    for st in starts {
        match polish::refine(ch, hosts, st, polish::SEARCH_POLISH_ITER) {
            Ok(p) => refined.push((
                p.value,
                Start {
                    cutoffs: p.cutoffs,
                    hessian: p.hessian,
                },
            )),
            Err(e) => last_err = Some(e),
        }
    }
    if refined.is_empty() {
        return match last_err {
            Some(e) if starts.len() == 1 => Err(e),
            _ => Ok(vec![]),
        };
    }
    refined.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    let first = refined[0].0.clone();
    let tie = Float::with_val(SEARCH_BITS, first.abs_ref()) >> TIE_BITS;
    Ok(refined
        .into_iter()
        .filter(|(v, _)| Float::with_val(SEARCH_BITS, v - &first) <= tie)
        .map(|(_, c)| c)
        .collect())
}

/// The global search in f64 ([`fast`]): the grid DP and the zoom on logarithms, then the
/// same MPFR refinement as the MPFR search. `None` when it finds no stable placement (the
/// MPFR search then decides, and reports the error if there is one).
fn fast_starts(
    lc: &fast::LnChain,
    d: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
) -> Result<Option<Vec<Start>>, PolicyError> {
    let minmax = policy == OptPolicy::TagsMinmax;
    // A grid the f64 logits cannot build (a NaN) leaves the decision to the MPFR search.
    let Ok(mut g) = fast::ln_grid(lc, hosts, fast::fast_grid_size(hosts)) else {
        return Ok(None);
    };
    let mut cands = fast::ln_grid_optima(lc, hosts, &g, minmax);
    if cands.is_empty() && policy.routing() == PolicyKind::Tags {
        // Near the TAGS threshold the stable cutoffs can fall between grid points: the
        // equal-load cutoffs are stable whenever anything is.
        if let Ok((c, _)) = tags_equal_load_cutoffs(d, lambda, hosts) {
            g.extend(
                c.iter()
                    .map(|x| Float::with_val(SEARCH_BITS, x.ln_ref()).to_f64()),
            );
            g.retain(|y| !y.is_nan());
            g.sort_by(f64::total_cmp);
            g.dedup();
            cands = fast::ln_grid_optima(lc, hosts, &g, minmax);
        }
    }
    if cands.is_empty() {
        return Ok(None);
    }
    let to_floats = |ys: &[f64]| -> Vec<Float> {
        ys.iter()
            .filter(|y| **y < lc.y_top)
            .map(|y| Float::with_val(SEARCH_BITS, *y).exp())
            .collect()
    };
    if minmax {
        return Ok(Some(vec![Start::bare(to_floats(&cands[0].ys))]));
    }
    let best = cands[0].ln_value;
    let width = fast::max_gap(&g);
    let zoomed: Vec<Vec<Float>> = cands
        .iter()
        .take(MAX_CANDIDATES)
        .filter(|c| c.ln_value - best <= CANDIDATE_RATIO.ln())
        .map(|c| {
            let z = fast::ln_brent(lc, c, &g).unwrap_or_else(|| fast::ln_zoom(lc, c, width, false));
            to_floats(&z.ys)
        })
        .collect();
    let ch = Chain::new(d, lambda.clone(), chain_kind(policy), metric);
    let refined = refine_candidates(&ch, hosts, &zoomed)?;
    Ok(if refined.is_empty() {
        None
    } else {
        Some(refined)
    })
}

/// Whether the family has a density (discrete families answer `None` everywhere).
fn has_density(d: &dyn JobSize) -> bool {
    d.density(&d.lower()).is_some()
}

/// Stage (3) at the distribution's precision: the optimum for `policy`, starting from the
/// free cutoffs `start` of [`search_start`] (ignored by SITA-E and TAGS-minmax, which are
/// solved as chains of one-dimensional roots).
pub fn optimum_at(
    dist: &dyn JobSize,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    start: &[Float],
) -> Result<Optimum, PolicyError> {
    optimum_at_hint(dist, load, hosts, policy, metric, start, None)
}

/// [`optimum_at`] whose Newton polish takes its first step with `hint` (see
/// [`polish::polish_with_hint`]).
fn optimum_at_hint(
    dist: &dyn JobSize,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    start: &[Float],
    hint: Option<&polish::Hessian>,
) -> Result<Optimum, PolicyError> {
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
    let (lambda, rho) = load.resolve(dist, hosts)?;
    let r = optimum_at_resolved(dist, &lambda, &rho, hosts, policy, metric, start, hint);
    if r.is_err() && policy.routing() == PolicyKind::Tags {
        // A load no TAGS cutoffs can stabilise is reported by its threshold (it is checked
        // here, after the fact, because a stable optimum proves stability by itself).
        check_tags_stable(dist, &lambda, &rho, hosts)?;
    }
    r
}

/// [`optimum_at_hint`] for the resolved load (λ, ρ).
#[allow(clippy::too_many_arguments)]
fn optimum_at_resolved(
    dist: &dyn JobSize,
    lambda: &Float,
    rho: &Float,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    start: &[Float],
    hint: Option<&polish::Hessian>,
) -> Result<Optimum, PolicyError> {
    let bits = dist.prec();
    let (free, max_queue, iterations, mut resolution, hessian) = match policy {
        _ if hosts == 1 => (vec![], None, 0, vec![], None),
        OptPolicy::SitaE => {
            let c = sita_e_cutoffs(dist, hosts)?;
            let r = vec![0.0; c.len()];
            (c, None, 0, r, None)
        }
        OptPolicy::TagsMinmax => {
            let (c, level) = tags_minmax_cutoffs(dist, lambda, hosts, start)?;
            let r = vec![0.0; c.len()];
            (c, Some(level), 0, r, None)
        }
        OptPolicy::Sita | OptPolicy::Tags => {
            if has_density(dist) {
                let ch = Chain::new(dist, lambda.clone(), chain_kind(policy), metric);
                // Newton first; where it fails (optima pinned against a host's stability
                // boundary) the bracketed coordinate roots of the gradient.
                let p = match polish::polish_with_hint(
                    &ch,
                    hosts,
                    start,
                    polish::POLISH_MAX_ITER,
                    hint,
                ) {
                    Ok(p) => p,
                    Err(newton_err) => {
                        polish::coordinate_roots(&ch, hosts, start).map_err(|_| newton_err)?
                    }
                };
                (p.cutoffs, None, p.iterations, p.resolution, p.hessian)
            } else {
                let c: Vec<Float> = start.iter().map(|c| Float::with_val(bits, c)).collect();
                let r = vec![0.0; c.len()];
                (c, None, 0, r, None)
            }
        }
    };
    let used = free.len() + 1;
    let mut eval = evaluate(policy.routing(), dist, lambda, used, &free, metric)?;
    let idle_hosts = hosts - used;
    let top = dist.upper();
    let mut cutoffs = free;
    if !resolution.is_empty() {
        resolution.resize(hosts - 1, 0.0);
    }
    for _ in 0..idle_hosts {
        cutoffs.push(top.clone());
        eval.host_loads.push(Float::with_val(bits, 0));
        eval.host_waiting.push(Float::with_val(bits, 0));
    }
    Ok(Optimum {
        cutoffs,
        idle_hosts,
        eval,
        max_queue,
        iterations,
        resolution,
        hessian,
        lambda: lambda.clone(),
        load: rho.clone(),
    })
}

/// [`optimum_at`] from each of `starts` (see [`search_starts`]), keeping the lowest value.
pub fn optimum_from(
    dist: &dyn JobSize,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    starts: &[Vec<Float>],
) -> Result<Optimum, PolicyError> {
    let starts: Vec<Start> = starts.iter().cloned().map(Start::bare).collect();
    Ok(best_of(dist, load, hosts, policy, metric, &starts)?.0)
}

/// As [`optimum_from`], also returning the index of the start that won.
fn best_of(
    dist: &dyn JobSize,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    starts: &[Start],
) -> Result<(Optimum, usize), PolicyError> {
    let mut best: Option<(Optimum, usize)> = None;
    let mut last_err = None;
    for (i, st) in starts.iter().enumerate() {
        let hint = st.hessian.as_ref();
        match optimum_at_hint(dist, load, hosts, policy, metric, &st.cutoffs, hint) {
            Ok(o) => {
                if best
                    .as_ref()
                    .is_none_or(|(b, _)| o.eval.value < b.eval.value)
                {
                    best = Some((o, i));
                }
            }
            Err(e) => last_err = Some(e),
        }
        if matches!(policy, OptPolicy::SitaE | OptPolicy::TagsMinmax) {
            break;
        }
    }
    match (best, last_err) {
        (Some(b), _) => Ok(b),
        (None, Some(e)) => Err(e),
        (None, None) => Ok((optimum_at(dist, load, hosts, policy, metric, &[])?, 0)),
    }
}

/// SITA-E: the cutoffs with M_1(s_0, s_i) = (i/h) E[X] (equal loads), each found as a root
/// (from the side of the support that keeps more digits).
pub fn sita_e_cutoffs(dist: &dyn JobSize, hosts: usize) -> Result<Vec<Float>, PolicyError> {
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
    let bits = dist.prec();
    let mean = dist.mean()?;
    let lo_open = dist.lower_open();
    let lo = dist.lower();
    let top = dist.upper();
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

/// TAGS-minmax: the cutoffs that equalise the hosts' mean queue lengths L_i = λ_i Q_i at
/// the smallest feasible level c (see [`equalize`]). Returns (free cutoffs, c).
pub fn tags_minmax_cutoffs(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    start: &[Float],
) -> Result<(Vec<Float>, Float), PolicyError> {
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
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
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
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
                show(&hi)
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

/// Optimum at the two certifying precisions (b1 < b2) from one shared search: both runs
/// start from the same candidates, so that their agreement means something.
pub fn optimal_cutoffs_pair(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    bits: (u32, u32),
) -> Result<(Optimum, Optimum), PolicyError> {
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
    let starts = starts_for(dist, load, hosts, policy, metric)?;
    // The lower precision decides between candidates that tied at the search precision;
    // the higher one starts from its optimum, and from its Hessian, so that it only has to
    // confirm convergence at its own precision. (Its cutoffs are still the root of its
    // own gradient; what the lower precision leaves undetermined is bounded by the
    // resolution each run reports, which the certification applies.)
    let (a, _won) = best_of(
        dist.build(bits.0)?.as_ref(),
        load,
        hosts,
        policy,
        metric,
        &starts,
    )?;
    let b = optimum_at_hint(
        dist.build(bits.1)?.as_ref(),
        load,
        hosts,
        policy,
        metric,
        &a.cutoffs_free(),
        a.hessian.as_ref(),
    )?;
    Ok((a, b))
}

fn starts_for(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
) -> Result<Vec<Start>, PolicyError> {
    match policy {
        OptPolicy::SitaE => Ok(vec![Start::bare(vec![])]),
        _ => hinted_starts(dist, load, hosts, policy, metric, Search::Auto),
    }
}

impl Optimum {
    /// The cutoffs below the top (the non-idle ones).
    pub fn cutoffs_free(&self) -> Vec<Float> {
        self.cutoffs[..self.cutoffs.len() - self.idle_hosts].to_vec()
    }
}

/// The optimum at the working precision for `digits` digits (uncertified; the report
/// layer certifies by [`optimal_cutoffs_pair`]). The library entry point for sweeps.
pub fn optimal_cutoffs(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    digits: u32,
) -> Result<Optimum, PolicyError> {
    if hosts < 1 {
        return Err(PolicyError::BadHosts(hosts));
    }
    let starts = starts_for(dist, load, hosts, policy, metric)?;
    Ok(best_of(
        dist.build(crate::num::working_bits(digits))?.as_ref(),
        load,
        hosts,
        policy,
        metric,
        &starts,
    )?
    .0)
}

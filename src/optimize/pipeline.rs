//! The search pipeline: (1) a global search on a grid (the f64 search on logarithms where
//! the family has f64 partial moments, the MPFR grid otherwise), zoomed; (2) a bounded
//! Newton refinement of each candidate at the search precision; (3) the polish at the
//! working precision from the candidates that tie, keeping the best. A certified run is
//! stage (3) at the two precisions of [`Certify`], the higher one continuing from the
//! lower one's optimum.

use super::chain::Chain;
use super::equalize::{sita_e_cutoffs, tags_equal_load_cutoffs, tags_minmax_cutoffs};
use super::slack::near_edge;
use super::threshold::check_stable;
use super::{
    fast, grid, polish, OptPolicy, Optimum, CANDIDATE_RATIO, MAX_CANDIDATES, SEARCH_BITS, TIE_BITS,
};
use crate::dist::{DistFactory, JobSize};
use crate::num::certify::{certify_pair, AtBoth, Certify};
use crate::policy::{evaluate, LoadSpec, Metric, PolicyError, PolicyKind};
use rug::Float;

/// A host loaded within this of 1 lies at a stability edge: at Newton's point it sends the
/// polish on to the coordinate roots, which reach the edge Newton stops short of, and beside
/// an undetermined cutoff the optimum's note says the minimum may lie at that edge
/// (`report::optimize`).
pub(crate) const EDGE_LOAD: f64 = 1e-3;

/// Sweeps the coordinate roots get from Newton's point ([`EDGE_LOAD`]). SITA's slowdown at
/// BP(1, 10^1000, 1), 4 hosts, total load 2, settles in between 20 and 40 (measured
/// 2026-12-06; 0.3 s); TAGS's at 8 hosts, total load 4, whose hosts 6 to 8 share one
/// coupled edge, does not settle in 60 (2 s for no point kept; 1.3 s at 40).
const EDGE_SWEEPS: usize = 40;

/// Sweeps the coordinate roots get below a run of top hosts loaded to their edge
/// ([`polish::edge`]). TAGS's slowdown at BP(1, 10^1000, 1), 8 hosts, total load 4, settles
/// within 400 (40 do not: the five free cutoffs converge linearly), 2 s of its 4.8 s.
const EDGE_FILL_SWEEPS: usize = 400;
/// Rounds of the edge fill at most.
const EDGE_FILL_ROUNDS: usize = 4;

thread_local! {
    /// Whether the edge fill runs ([`without_edge_fill`]).
    static EDGE_FILL: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Runs `f` with the edge fill off (the optimiser runs on one thread).
fn without_edge_fill<T>(f: impl FnOnce() -> T) -> T {
    let before = EDGE_FILL.with(|c| c.replace(false));
    let r = f();
    EDGE_FILL.with(|c| c.set(before));
    r
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

/// A TAGS load no host count can stabilise is refused before anything else (before the
/// memory bound, which would otherwise answer a request no cutoffs can meet).
fn tags_limit_first(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
) -> Result<(), PolicyError> {
    match policy.routing() {
        PolicyKind::Tags if hosts >= 2 => {
            let d = dist.build(SEARCH_BITS)?;
            let (lambda, rho) = load.resolve(d.as_ref(), hosts)?;
            super::threshold::check_below_limit(d.as_ref(), &lambda, &rho)
        }
        // One host, or a policy stable at every load below h.
        PolicyKind::Tags | PolicyKind::Sita | PolicyKind::Random => Ok(()),
    }
}

/// A start for the polish at the working precision: the free cutoffs, and the Hessian of
/// the search-precision refinement there (the polish's first Newton step uses it instead
/// of differencing the gradient).
#[derive(Debug, Clone)]
pub struct PolishStart {
    /// The free cutoffs.
    pub cutoffs: Vec<Float>,
    /// The refinement's last Hessian, if it had one.
    pub hessian: Option<polish::Hessian>,
}

impl PolishStart {
    fn bare(cutoffs: Vec<Float>) -> Self {
        PolishStart {
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
) -> Result<Vec<PolishStart>, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    tags_limit_first(dist, load, hosts, policy)?;
    super::budget::check_optimize_hosts(hosts, SEARCH_BITS)?;
    let d = dist.build(SEARCH_BITS)?;
    let (lambda, rho) = load.resolve(d.as_ref(), hosts)?;
    check_stable(policy.routing(), d.as_ref(), &lambda, &rho, hosts)?;
    if hosts == 1 {
        return Ok(vec![PolishStart::bare(vec![])]);
    }
    if search == Search::Auto && has_density(d.as_ref()) {
        if let Some(lc) = fast::LnChain::new(d.as_ref(), &lambda, policy.chain_kind(), metric) {
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
    match policy.routing() {
        PolicyKind::Tags => {
            if let Ok((c, _)) = tags_equal_load_cutoffs(d.as_ref(), &lambda, hosts) {
                seeds.extend(c);
            }
        }
        PolicyKind::Sita | PolicyKind::Random => {}
    }
    let (glo, gtop) = (d.lower(), d.upper());
    g.extend(seeds.into_iter().filter(|x| *x > glo && *x < gtop));
    g.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    g.dedup();
    let kind = policy.chain_kind();
    let top = d.upper();
    let candidates = grid::grid_optima(
        d.as_ref(),
        &lambda,
        hosts,
        kind,
        metric,
        &g,
        policy.minimises_largest(),
    )?;
    let free_of = |c: &grid::GridOptimum| -> Vec<Float> {
        c.cutoffs.iter().filter(|x| **x < top).cloned().collect()
    };
    if !has_density(d.as_ref()) || policy.minimises_largest() {
        return Ok(vec![PolishStart::bare(free_of(&candidates[0]))]);
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
    let refined = refine_candidates(&ch, hosts, &zoomed, policy.routing())?;
    if refined.is_empty() {
        return Ok(vec![PolishStart::bare(free_of(&candidates[0]))]);
    }
    Ok(refined)
}

/// A start with a host at or past load 1 at the chain's precision, moved to stable
/// cutoffs ([`polish::stabilised`]); `None` where it is stable already, cannot be moved, or
/// the evaluation refuses it (a cutoff outside the support: left to the polish, which
/// drops it as before).
fn stable_start(ch: &Chain, start: &[Float], loads: &polish::edge::Loads) -> Option<Vec<Float>> {
    let unstable = loads(start).is_ok_and(|l| l.iter().any(|x| *x >= 1));
    if start.is_empty() || !unstable {
        return None;
    }
    polish::stabilised(ch, start.len() + 1, start, loads)
        .ok()
        .flatten()
}

/// Refines each start at the search precision (a bounded Newton run) and returns those
/// that tie with the best refined value at [`TIE_BITS`], best first. Starts whose
/// refinement fails are dropped.
fn refine_candidates(
    ch: &Chain,
    hosts: usize,
    starts: &[Vec<Float>],
    routing: PolicyKind,
) -> Result<Vec<PolishStart>, PolicyError> {
    let mut refined: Vec<(Float, PolishStart)> = Vec::new();
    let loads = |c: &[Float]| -> Result<Vec<Float>, PolicyError> {
        Ok(evaluate(routing, ch.dist, &ch.lambda, c.len() + 1, c, ch.metric)?.host_loads)
    };
    for st in starts {
        // A start the f64 search or the grid put past an edge this precision resolves is
        // moved to stable cutoffs first (its refinement would stop at once).
        let moved = stable_start(ch, st, &loads);
        let st = moved.as_ref().unwrap_or(st);
        if let Ok(p) = polish::refine(ch, hosts, st, polish::SEARCH_POLISH_ITER) {
            refined.push((
                p.value,
                PolishStart {
                    cutoffs: p.cutoffs,
                    hessian: p.hessian,
                },
            ));
        }
    }
    if refined.is_empty() {
        return Ok(vec![]);
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
) -> Result<Option<Vec<PolishStart>>, PolicyError> {
    let minmax = policy.minimises_largest();
    // A grid the f64 logits cannot build (a NaN) leaves the decision to the MPFR search.
    let Ok(mut g) = fast::ln_grid(lc, hosts, fast::fast_grid_size(hosts)) else {
        return Ok(None);
    };
    let mut cands = fast::ln_grid_optima(lc, hosts, &g, minmax);
    let tags = match policy.routing() {
        PolicyKind::Tags => true,
        PolicyKind::Sita | PolicyKind::Random => false,
    };
    if cands.is_empty() && tags {
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
        return Ok(Some(vec![PolishStart::bare(to_floats(&cands[0].ys))]));
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
    let ch = Chain::new(d, lambda.clone(), policy.chain_kind(), metric);
    let refined = refine_candidates(&ch, hosts, &zoomed, policy.routing())?;
    Ok(if refined.is_empty() {
        None
    } else {
        Some(refined)
    })
}

/// A discrete law's cutoffs moved down to their atoms at the law's precision: each cutoff
/// `c` (found at `from_bits`, so an atom may be rounded just below its value here) is
/// nudged up by 2^−(from_bits − 4) relative and replaced by the largest atom at or below
/// it (the least atom too: a cutoff there gives host 1 that atom alone). A cutoff in
/// [x_k, x_{k+1}) routes as one at x_k, and a TAGS host kills the jobs above it sooner there,
/// so no objective grows. Measured (2026-12-05, `optimize --rigorous` against the atom
/// programme of the proven optimum): without it TAGS on the empirical law 1, 2, 2, 5, 10, 40
/// at 2 hosts, load 0.5, printed the cutoff 10.51 with waiting 4.784, where 10 gives 4.633,
/// and on 0.1, 0.3, 0.3, 0.7, 1.3, 2.9, 6.1 SITA and TAGS printed atoms whose values were
/// those of the cutoff just below them (up to 46 % above the minimum).
fn snap_to_atoms(d: &dyn JobSize, cut: &[Float], from_bits: u32) -> Vec<Float> {
    let bits = d.prec();
    let nudge = (Float::with_val(bits, 1) >> from_bits.saturating_sub(4)) + 1u32;
    cut.iter()
        .map(|c| {
            let up = Float::with_val(bits, c) * &nudge;
            d.atom_at_or_below(&up)
                .unwrap_or_else(|| Float::with_val(bits, c))
        })
        .collect()
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
    PolicyError::at_least_one_host(hosts)?;
    let (lambda, rho) = load.resolve(dist, hosts)?;
    let r = optimum_at_resolved(dist, &lambda, &rho, hosts, policy, metric, start, hint);
    if r.is_err() {
        // A load no TAGS cutoffs can stabilise is reported by its threshold (it is checked
        // here, after the fact, because a stable optimum proves stability by itself).
        check_stable(policy.routing(), dist, &lambda, &rho, hosts)?;
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
    // TAGS-minmax's cutoffs moved to a discrete law's atoms: its level is read from the
    // evaluation there.
    let mut snapped = false;
    // The evaluation at the free cutoffs, where the arm already made it.
    let (free, mut max_queue, iterations, mut resolution, hessian, evaluated) = match policy {
        _ if hosts == 1 => (vec![], None, 0, vec![], None, None),
        OptPolicy::SitaE => {
            let c = sita_e_cutoffs(dist, hosts)?;
            let r = vec![0.0; c.len()];
            (c, None, 0, r, None, None)
        }
        OptPolicy::TagsMinmax => {
            let (mut c, level) = tags_minmax_cutoffs(dist, lambda, hosts, start)?;
            if !has_density(dist) {
                // A discrete law: the equaliser raises each cutoff until its host's queue
                // meets the common level, but a cutoff anywhere in [x_k, x_{k+1}) routes
                // as one at the atom x_k, where its host kills the longer jobs sooner (its
                // queue is lower, the next host's the same). The largest queue is the same
                // or lower there and every metric lower: sizes 1 and 4 at 2 hosts, load 1,
                // printed the cutoff 2.856 (both queues 1.6) where 1 gives 1.6 and 0.133.
                c = snap_to_atoms(dist, &c, bits);
                // Two cutoffs at one atom: the host between them would only run the longer
                // jobs to that atom and kill them; without it they reach the next host as
                // they did (the hosts after it stay as they were, one idle at the top).
                c.dedup();
                snapped = true;
            }
            let r = vec![0.0; c.len()];
            (c, Some(level), 0, r, None, None)
        }
        OptPolicy::Sita | OptPolicy::Tags => {
            if has_density(dist) {
                let ch = Chain::new(dist, lambda.clone(), policy.chain_kind(), metric);
                let eval_at =
                    |c: &[Float]| evaluate(policy.routing(), dist, lambda, c.len() + 1, c, metric);
                let loads =
                    |c: &[Float]| -> Result<Vec<Float>, PolicyError> { Ok(eval_at(c)?.host_loads) };
                // Newton first; where it fails (optima pinned against a host's stability
                // boundary) the bracketed coordinate roots of the gradient; where those do
                // not settle either, the edge fill from the start (a start already at an
                // edge, as the certifying run's is when the working run filled a run of
                // hosts: SITA's slowdown at BP(1, 10^1000, 1.2), 6 hosts, total load 3).
                // A start with a host at or past load 1 here (found at a lower precision,
                // at an edge it does not resolve) is moved to stable cutoffs first.
                let moved = stable_start(&ch, start, &loads);
                let start = moved.as_deref().unwrap_or(start);
                let p = match polish::polish_with_hint(
                    &ch,
                    hosts,
                    start,
                    polish::POLISH_MAX_ITER,
                    hint,
                ) {
                    Ok(p) => p,
                    Err(newton_err) => match polish::coordinate_roots(&ch, hosts, start) {
                        Ok(p) => p,
                        Err(_) if !EDGE_FILL.with(|c| c.get()) => return Err(newton_err),
                        Err(_) => match polish::edge_fill(
                            &ch,
                            hosts,
                            start,
                            EDGE_FILL_SWEEPS,
                            &loads,
                            polish::EdgeRun::Filled,
                        ) {
                            Ok(Some(p)) => p,
                            _ => return Err(newton_err),
                        },
                    },
                };
                // An optimum pressed against a host's stability edge: Newton stops short of
                // it where the hosts beyond weigh nothing until far closer to load 1 than
                // its steps go (TAGS's slowdown at BP(1, 10^1000, 1), 8 hosts, total load
                // 4: hosts 6 and 8 at a slack of 1e−5, and a point 1.3e−4 lower within
                // reach). Where a host is within EDGE_LOAD of 1, the coordinate roots
                // (which bisect to an edge) go on from Newton's point, kept if lower.
                let e = eval_at(&p.cutoffs)?;
                let near_edge = e
                    .host_loads
                    .iter()
                    .any(|l| *l > 1.0 - EDGE_LOAD && *l < 1.0);
                let (p, e) = match near_edge
                    .then(|| polish::coordinate_roots_within(&ch, hosts, &p.cutoffs, EDGE_SWEEPS))
                {
                    Some(Ok(q)) if q.value < p.value => {
                        let eq = eval_at(&q.cutoffs)?;
                        (q, eq)
                    }
                    _ => (p, e),
                };
                // Top or bottom hosts whose terms weigh nothing, loaded to their edge
                // together ([`polish::edge`]); kept if lower. The fill aims each host's slack
                // from the objective and the transfer rate at its start: where it lowers the
                // objective by decades (a bottom run taking load off a host that dominates),
                // the run is found again at the new point ([`polish::EdgeRun::Filled`]) and
                // aimed again, while the objective falls.
                let (mut p, mut e) = (p, e);
                if near_edge && EDGE_FILL.with(|c| c.get()) {
                    for round in 0..EDGE_FILL_ROUNDS {
                        let run = if round == 0 {
                            polish::EdgeRun::Negligible
                        } else {
                            polish::EdgeRun::Filled
                        };
                        match polish::edge_fill(
                            &ch,
                            hosts,
                            &p.cutoffs,
                            EDGE_FILL_SWEEPS,
                            &loads,
                            run,
                        ) {
                            Ok(Some(q)) if q.value < p.value => {
                                e = eval_at(&q.cutoffs)?;
                                p = q;
                            }
                            // The filled run is looked for even where no negligible one is.
                            _ if round == 0 => {}
                            _ => break,
                        }
                    }
                }
                (
                    p.cutoffs,
                    None,
                    p.iterations,
                    p.resolution,
                    p.hessian,
                    Some(e),
                )
            } else {
                let c = snap_to_atoms(dist, start, SEARCH_BITS);
                let r = vec![0.0; c.len()];
                (c, None, 0, r, None, None)
            }
        }
    };
    let used = free.len() + 1;
    let mut eval = match evaluated {
        Some(e) => e,
        None => evaluate(policy.routing(), dist, lambda, used, &free, metric)?,
    };
    if !eval.stable || !eval.value.is_finite() {
        // A polish that ended on a point with a host at or past load 1 at this precision
        // (a coordinate root bisected onto an edge the precision cannot resolve) has no
        // value to print: an infinite mean is a failure of the search, not an optimum.
        return Err(PolicyError::Solver {
            what: "cutoff polish".into(),
            detail: "it ended with a host at its stability edge at this precision".into(),
            hint: crate::policy::HINT_MORE_DIGITS,
        });
    }
    if snapped {
        // The largest mean queue length λ_i W_i, λ_i = λ P(X > s_{i−1}) (Little's law), from
        // the evaluation: the minmax chain's own term (`Chain::term`) reads a cutoff at
        // the least atom as s_0, giving host 2 that atom too (sizes 1 and 4 at 2 hosts:
        // +∞ for 1.6).
        let mut level = Float::with_val(bits, 0);
        for (i, w) in eval.host_waiting.iter().enumerate() {
            let seen = if i == 0 {
                Float::with_val(bits, 1)
            } else {
                dist.tail(&free[i - 1])
            };
            level.max_mut(&Float::with_val(bits, lambda * seen * w));
        }
        max_queue = Some(level);
    }
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
        idle_undetermined: false,
        eval,
        max_queue,
        iterations,
        resolution,
        hessian,
        lambda: lambda.clone(),
        load: rho.clone(),
        atoms: None,
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
    let starts: Vec<PolishStart> = starts.iter().cloned().map(PolishStart::bare).collect();
    Ok(best_of(dist, load, hosts, policy, metric, &starts)?.0)
}

/// As [`optimum_from`], also returning the index of the start that won.
fn best_of(
    dist: &dyn JobSize,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    starts: &[PolishStart],
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
        if !policy.minimises_metric() {
            // Roots of equations: the start does not matter.
            break;
        }
    }
    match (best, last_err) {
        (Some(b), _) => Ok(b),
        (None, Some(e)) => Err(e),
        (None, None) => Ok((optimum_at(dist, load, hosts, policy, metric, &[])?, 0)),
    }
}

/// Optimum at the two certifying precisions (b1 < b2) from one shared search (see
/// [`optimal_cutoffs_certified`]).
pub fn optimal_cutoffs_pair(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    bits: (u32, u32),
) -> Result<(Optimum, Optimum), PolicyError> {
    let c = Certify::with_bits(0, bits);
    let both = optimal_cutoffs_certified(dist, load, hosts, policy, metric, &c)?;
    let value = certify_pair(&both.lo.eval.value, &both.hi.eval.value, 1);
    both.guard_range("optimum", [&value], [])?;
    Ok((both.lo, both.hi))
}

/// The optimum at the two precisions of a certified run, from one shared search: both
/// runs start from the same candidates, so that their agreement means something. The lower
/// precision decides between candidates that tied at the search precision; the higher one
/// starts from its optimum, and from its Hessian, so that it only has to confirm
/// convergence at its own precision. (Its cutoffs are still the root of its own gradient;
/// what the lower precision leaves undetermined is bounded by the resolution each run
/// reports, which the certification applies.)
///
/// Where the optimum presses a host against its stability edge closer than the precision
/// the digits ask resolves, the precisions are raised ([`super::slack::raised_for_slack`]).
pub fn optimal_cutoffs_certified(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    certify: &Certify,
) -> Result<AtBoth<Optimum>, PolicyError> {
    let first = certified_pair(dist, load, hosts, policy, metric, certify);
    if !policy.minimises_metric() {
        return first;
    }
    super::slack::raised_for_slack(first, certify, |c| {
        certified_pair(dist, load, hosts, policy, metric, c)
    })
}

/// [`optimal_cutoffs_certified`] at the precisions `certify` gives.
fn certified_pair(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    certify: &Certify,
) -> Result<AtBoth<Optimum>, PolicyError> {
    let both = certified_search(dist, load, hosts, policy, metric, certify)?;
    // Where the two runs' values share no digit, the edge fill took them to points the
    // two precisions place differently (a host left at an edge whose slack is the
    // precision's rounding: SITA's waiting at BP(1, 10^1000, 1.5), 4 hosts, total load 2,
    // 2.06e87 at 72 bits and 5.18e66 at 104, 2026-12-06). The search without the fill
    // then gives its pair instead where that certifies a digit of the value: a certified
    // value at a point (an upper bound of the minimum, 2.68497868410e119 there, the note
    // saying "best point found") rather than none.
    let value = |b: &AtBoth<Optimum>| certify_pair(&b.lo.eval.value, &b.hi.eval.value, 1).digits;
    // The fill runs only beside a host within EDGE_LOAD of 1; elsewhere the search without it
    // would be the same search.
    if value(&both) == 0
        && policy.minimises_metric()
        && (near_edge(&both.lo) || near_edge(&both.hi))
    {
        if let Ok(plain) =
            without_edge_fill(|| certified_search(dist, load, hosts, policy, metric, certify))
        {
            if value(&plain) > 0 {
                return Ok(plain);
            }
        }
    }
    Ok(both)
}

/// [`optimal_cutoffs_certified`]'s search (with the edge fill unless it is turned off).
fn certified_search(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    certify: &Certify,
) -> Result<AtBoth<Optimum>, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    tags_limit_first(dist, load, hosts, policy)?;
    super::budget::check_optimize_hosts(hosts, certify.bits().1)?;
    let (starts, atoms) = starts_for(dist, load, hosts, policy, metric)?;
    let mut both = certify.run_from(
        |bits| {
            let d = dist.build(bits)?;
            Ok(best_of(d.as_ref(), load, hosts, policy, metric, &starts)?.0)
        },
        |bits, a| {
            let d = dist.build(bits)?;
            let free = a.cutoffs_free();
            optimum_at_hint(
                d.as_ref(),
                load,
                hosts,
                policy,
                metric,
                &free,
                a.hessian.as_ref(),
            )
            .or_else(|e| {
                // The working run's point may not polish at this precision: a cutoff its
                // coordinate roots bisected to a host's edge leaves that host within the
                // working precision's rounding of load 1, unstable here (SITA's slowdown
                // at BP(1, 10^1000, 1.2), 6 hosts, total load 5: slack 2e−22 at 72 bits,
                // 2026-12-06). The certifying run then searches on its own, from every
                // start; the two runs' agreement still decides every digit printed.
                if !policy.minimises_metric() {
                    return Err(e);
                }
                best_of(d.as_ref(), load, hosts, policy, metric, &starts)
                    .map(|(o, _)| o)
                    .map_err(|_| e)
            })
        },
    )?;
    certify_idle(
        dist, load, hosts, policy, metric, certify, &starts, &mut both,
    )?;
    both.lo.atoms = atoms.clone();
    both.hi.atoms = atoms;
    Ok(both)
}

/// Certifies the idle hosts of an optimum. The certifying run starts
/// from the working run's optimum, so it inherits its idle count; whether a host is idle is
/// part of the argmin and may be an artefact of the working precision (a host whose load
/// is 1e-33 improves the mean by less than the working precision resolves). When the
/// working run leaves hosts idle, the certifying precision searches again from every start
/// on its own: if it uses a different number of hosts, that optimum becomes the certifying
/// run (so every number the two disagree on loses its digits) and the idle count is
/// `undetermined`; "idle" is printed only when both precisions, each searching, agree.
#[allow(clippy::too_many_arguments)]
fn certify_idle(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    certify: &Certify,
    starts: &[PolishStart],
    both: &mut AtBoth<Optimum>,
) -> Result<(), PolicyError> {
    if both.lo.idle_hosts == 0 && both.hi.idle_hosts == 0 {
        return Ok(());
    }
    if !policy.minimises_metric() {
        // Their cutoffs are roots of equations, not an argmin: the idle count is theirs.
        return Ok(());
    }
    let hi_bits = certify.bits().1;
    let (fresh, _) = Certify::with_bits(0, (hi_bits, hi_bits))
        .run(|bits| {
            let d = dist.build(bits)?;
            best_of(d.as_ref(), load, hosts, policy, metric, starts)
        })?
        .hi;
    if fresh.idle_hosts != both.lo.idle_hosts || both.hi.idle_hosts != both.lo.idle_hosts {
        both.hi = fresh;
        both.lo.idle_undetermined = true;
        both.hi.idle_undetermined = true;
        return Ok(());
    }
    // Both searches agree; still, one more busy host (its cutoff anywhere above the last
    // busy one, the others kept) may lower the mean by less than the working precision
    // resolves. Scanned at both precisions: a visible gain at either makes the count
    // undetermined.
    // The scan runs far above both precisions, at the certifying run's cutoffs: whether a
    // further host lowers the mean at fixed cutoffs does not depend on the cutoffs' last
    // digits, and a gain below both runs' resolution is still seen (a Pareto case had a
    // host idle at 18 digits and a gain from it at 36).
    let scan_bits = hi_bits.saturating_mul(EXTRA_HOST_SCAN_PRECISION);
    let d = dist.build(scan_bits)?;
    let gains = extra_host_gains(d.as_ref(), policy, metric, &both.hi)?;
    both.lo.idle_undetermined = gains;
    both.hi.idle_undetermined = gains;
    Ok(())
}

/// The idle scan's precision, as a multiple of the certifying one.
pub const EXTRA_HOST_SCAN_PRECISION: u32 = 4;
/// Most cutoffs [`extra_host_gains`] tries for the extra host.
pub const EXTRA_HOST_SCAN_POINTS: usize = 400;
/// Bits below the working precision's resolution of the mean at which the scan stops: the
/// jobs above s carry λ M_2(s, top) < J·2^−(bits + this), which no host term can resolve.
pub const EXTRA_HOST_STOP_BITS: i32 = 16;

/// Whether one more busy host, with its cutoff s on a geometric scan above the last busy
/// cutoff of `o` (the other cutoffs kept), gives a computed mean below that of `o`'s busy
/// cutoffs, both evaluated at `d`'s precision, by any amount: "idle" is printed only when no such placement lowers the mean
/// (a lower value that is rounding makes the count undetermined, never a wrong "idle").
/// The scan doubles s (or takes [`EXTRA_HOST_SCAN_POINTS`] geometric steps to a finite
/// top) and stops where λ M_2(s, top), which bounds what moving the jobs above s can save,
/// is below the resolution ([`EXTRA_HOST_STOP_BITS`]).
fn extra_host_gains(
    d: &dyn JobSize,
    policy: OptPolicy,
    metric: Metric,
    o: &Optimum,
) -> Result<bool, PolicyError> {
    if o.idle_hosts == 0 {
        return Ok(false);
    }
    let bits = d.prec();
    let busy: Vec<Float> = o
        .cutoffs_free()
        .iter()
        .map(|c| Float::with_val(bits, c))
        .collect();
    let used = busy.len() + 1;
    let lambda = Float::with_val(bits, &o.lambda);
    let here = evaluate(policy.routing(), d, &lambda, used, &busy, metric)?;
    let j = &here.value;
    if !here.stable || !j.is_finite() || *j <= 0 {
        return Ok(false);
    }
    // Below j·2^−(bits + EXTRA_HOST_STOP_BITS) the extra host cannot move the computed mean.
    let tiny = Float::with_val(bits, j) >> (bits as i32 + EXTRA_HOST_STOP_BITS);
    let top = d.upper();
    let start = busy.last().cloned().unwrap_or_else(|| d.lower());
    let start = if start > 0 {
        start
    } else {
        Float::with_val(bits, 1)
    };
    let ratio = if top.is_finite() {
        let r = Float::with_val(bits, &top / &start);
        let step = r.ln().to_f64() / EXTRA_HOST_SCAN_POINTS as f64;
        Float::with_val(bits, step.max(std::f64::consts::LN_2)).exp()
    } else {
        Float::with_val(bits, 2)
    };
    let mut s = Float::with_val(bits, &start * &ratio);
    for _ in 0..EXTRA_HOST_SCAN_POINTS * 10 {
        if s >= top || !s.is_finite() {
            break;
        }
        let m2 = d.partial_moment(2, &s, &top)?;
        if Float::with_val(bits, &m2 * &lambda) < tiny {
            break;
        }
        let mut cuts = busy.clone();
        cuts.push(s.clone());
        if let Ok(e) = evaluate(policy.routing(), d, &lambda, used + 1, &cuts, metric) {
            if e.stable && e.value.is_finite() && e.value < *j {
                return Ok(true);
            }
        }
        s *= &ratio;
    }
    Ok(false)
}

/// The search's starts, and on a discrete law what the atom programme that gave one of them
/// proved ([`super::Optimum::atoms`]).
fn starts_for(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
) -> Result<(Vec<PolishStart>, Option<super::AtomBound>), PolicyError> {
    match policy {
        // Equal loads need no start.
        OptPolicy::SitaE => Ok((vec![PolishStart::bare(vec![])], None)),
        OptPolicy::TagsMinmax => Ok((
            hinted_starts(dist, load, hosts, policy, metric, Search::Auto)?,
            None,
        )),
        OptPolicy::Sita | OptPolicy::Tags => {
            let mut starts = hinted_starts(dist, load, hosts, policy, metric, Search::Auto)?;
            // A discrete law: the atom programme's best point (the minimum where it closes)
            // is one more start (the grid's starts can miss it among many atoms).
            let discrete = dist
                .build(SEARCH_BITS)
                .is_ok_and(|d| d.atom_at_or_below(&d.upper()).is_some());
            let mut proved = None;
            if discrete {
                let first = starts.first().map(|s| s.cutoffs.as_slice());
                if let Some((c, bound)) = super::proven::atom_minimiser(
                    dist,
                    load,
                    hosts,
                    policy,
                    metric,
                    ATOM_DIGITS,
                    first,
                ) {
                    starts.insert(0, PolishStart::bare(c));
                    proved = Some(bound);
                }
            }
            Ok((starts, proved))
        }
    }
}

/// The digits to which [`starts_for`] closes the atom programme's minimum of a discrete
/// law: its path is exact (atoms), so the digits only decide when the programme may stop.
const ATOM_DIGITS: u32 = 20;

/// The optimum at the working precision for `digits` digits (uncertified; the report
/// layer certifies by [`optimal_cutoffs_certified`]). The library entry point for sweeps.
pub fn optimal_cutoffs(
    dist: &dyn DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    digits: u32,
) -> Result<Optimum, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    tags_limit_first(dist, load, hosts, policy)?;
    super::budget::check_optimize_hosts(hosts, crate::num::working_bits(digits))?;
    let (starts, atoms) = starts_for(dist, load, hosts, policy, metric)?;
    let mut o = best_of(
        dist.build(crate::num::working_bits(digits))?.as_ref(),
        load,
        hosts,
        policy,
        metric,
        &starts,
    )?
    .0;
    o.atoms = atoms;
    Ok(o)
}

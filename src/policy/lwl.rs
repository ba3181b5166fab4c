//! Least-Work-Left: the M/G/h central FCFS queue, which has no closed form; its known
//! approximations, labelled as such (ARCHITECTURE.md, "The model"). The exact M/M/h case
//! is [`super::mmh`].

use super::mmh::erlang_c;
use super::{Metric, PolicyError};
use crate::dist::JobSize;
use rug::Float;

/// Least-Work-Left (the M/G/h FCFS queue) by the Lee–Longton approximation — an
/// **approximation**, not an exact value (Lee & Longton 1959; see Whitt, "Approximations
/// for the GI/G/m queue", 1993): E[W] ≈ (1 + C²)/2 · E[W_{M/M/h}] with
/// E[W_{M/M/h}] = C(h, ρ) E[X] / (h − ρ), C² = Var X / E[X]², i.e.
/// E[W] ≈ C(h, ρ) E[X²] / (2 E[X] (h − ρ)) at total load ρ = λ E[X]. Exact for h = 1
/// (Pollaczek–Khinchine). Waiting in FCFS does not depend on the job's own size, so
/// E[W/X] = E[W] E[1/X].
///
/// ```
/// use rug::Float;
/// use taskassign::dist::{DistFactory, DistSpec};
/// use taskassign::policy::{lee_longton, Metric};
/// // h = 1 is M/G/1: exp(1) at ρ = 1/2 waits ρ/(1 − ρ) = 1 (Pollaczek–Khinchine).
/// let d = DistSpec::parse("exp:rate=1").unwrap().build(64).unwrap();
/// let w = lee_longton(d.as_ref(), &Float::with_val(64, 0.5), 1, Metric::Waiting).unwrap();
/// assert!((w - 1u32).abs() < 1e-15);
/// ```
pub fn lee_longton(
    d: &dyn JobSize,
    rho: &Float,
    hosts: usize,
    metric: Metric,
) -> Result<Float, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = d.prec();
    let m1 = d.mean()?;
    let m2 = d.moment(2)?;
    let c = erlang_c(rho, hosts);
    let h = Float::with_val(bits, hosts);
    let den = Float::with_val(bits, &h - rho) * Float::with_val(bits, &m1 * 2u32);
    let w = Float::with_val(bits, &c * &m2) / den;
    Ok(match metric {
        Metric::Waiting => w,
        Metric::Response => w + m1,
        Metric::Slowdown => w * d.moment(-1)?,
    })
}

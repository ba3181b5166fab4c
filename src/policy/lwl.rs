//! Least-Work-Left: the M/G/h central FCFS queue, which has no closed form; its known
//! approximations, labelled as such (ARCHITECTURE.md, "The model"). The exact M/M/h case
//! is [`super::mmh`].

use super::mmh::{erlang_c, erlang_c_enclosed};
use super::{Metric, PolicyError};
use crate::dist::Enclosure;
use crate::dist::JobSize;
use crate::num::interval::Interval;
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

/// [`lee_longton`] proven: the same formula on the law's enclosed moments and an enclosure
/// `rho` of the total load, with outward rounding ([`erlang_c_enclosed`]). It encloses the
/// **approximation**, not the M/G/h queue's waiting (which has no closed form). An error
/// where ρ is not proven to lie in (0, h) or a moment is infinite.
pub fn lee_longton_enclosed(
    enc: &dyn Enclosure,
    rho: &Interval,
    hosts: usize,
    metric: Metric,
) -> Result<Interval, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = rho.prec();
    let moment = |j: i32| {
        enc.moment(j)
            .map_err(|e| PolicyError::Dist(e).for_metric(metric))
    };
    let m1 = moment(1)?;
    let m2 = moment(2)?;
    let c = erlang_c_enclosed(rho, hosts).ok_or_else(|| {
        PolicyError::BadLoad(format!(
            "Lee-Longton: the load's enclosure [{}, {}] is not proven inside (0, {hosts})",
            crate::num::message_number(rho.lo()),
            crate::num::message_number(rho.hi())
        ))
    })?;
    let h = Interval::int(bits, i64::try_from(hosts).unwrap_or(i64::MAX));
    let w = c.mul(&m2).div(&h.sub(rho).mul(&m1.mul_2exp(1)));
    Ok(match metric {
        Metric::Waiting => w,
        Metric::Response => w.add(&m1),
        Metric::Slowdown => w.mul(&moment(-1)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::{DistFactory, DistSpec};

    /// The enclosed Lee-Longton value against closed forms by hand, where it is exact:
    /// Exp(1) on one host at ρ = 1/2 is M/M/1, waiting ρ/(1 − ρ) = 1; on two hosts at
    /// ρ = 1 it is M/M/2 with C(2, 1) = 1/3, waiting C/(h − ρ) = 1/3, response 4/3; and
    /// BP(1, 10^6, 1) on four hosts at ρ = 2 contains [`lee_longton`] at 400 bits (the
    /// certified route, Floats). Each enclosure is at most 2^−180 wide relative at 200
    /// bits; a load not proven below h is an error, not a number.
    #[test]
    fn the_enclosed_approximation_contains_its_closed_forms() {
        let bits = 200;
        let hp = 600;
        let exp = DistSpec::parse("exp:rate=1").unwrap();
        let enc = exp.enclose(bits).unwrap();
        let iv = |x: &str| Interval::from_decimal(x, bits).unwrap();
        let third = Float::with_val(hp, 1) / 3u32;
        for (hosts, rho, metric, want) in [
            (1, "0.5", Metric::Waiting, Float::with_val(hp, 1)),
            (2, "1", Metric::Waiting, third.clone()),
            (2, "1", Metric::Response, Float::with_val(hp, &third + 1u32)),
        ] {
            let w = lee_longton_enclosed(enc.as_ref(), &iv(rho), hosts, metric).unwrap();
            assert!(w.contains(&want), "h {hosts} rho {rho} {metric:?}: {w:?}");
            assert!(w.rel_width() < 2f64.powi(-180), "{w:?}");
        }
        assert_eq!(
            erlang_c_enclosed(&iv("1"), 2).map(|c| c.contains(&third)),
            Some(true)
        );
        let bp = DistSpec::parse("bp:k=1,p=1e6,alpha=1").unwrap();
        let law = bp.build(400).unwrap();
        let want =
            lee_longton(law.as_ref(), &Float::with_val(400, 2), 4, Metric::Slowdown).unwrap();
        let e = lee_longton_enclosed(
            bp.enclose(bits).unwrap().as_ref(),
            &iv("2"),
            4,
            Metric::Slowdown,
        )
        .unwrap();
        assert!(e.contains(&want), "{e:?} against the certified {want}");
        assert!(e.rel_width() < 2f64.powi(-180), "{e:?}");
        assert!(lee_longton_enclosed(enc.as_ref(), &iv("2"), 2, Metric::Waiting).is_err());
    }
}

//! What the quantity files share: a vector field from the two precisions, and a number
//! computed from the dispatch system's distribution at each precision.

use crate::claims::cache::CacheKey;
use crate::claims::error::QuantityError;
use crate::claims::proof::Proof;
use crate::claims::scope::Scope;
use crate::claims::systems::dispatch::{DispatchSpec, DispatchSystem};
use crate::claims::value::{FieldValue, Pair};
use crate::dist::{DistFactory, Enclosure, JobSize};
use crate::num::certify::Certify;
use crate::num::interval::Interval;
use rug::Float;

/// A vector field from the two precisions' vectors (missing when their lengths differ).
pub(crate) fn pairs(lo: &[Float], hi: &[Float], what: &str) -> FieldValue {
    if lo.len() != hi.len() {
        return FieldValue::Missing(format!(
            "the two precisions disagree on the number of {what}"
        ));
    }
    FieldValue::Vector(
        lo.iter()
            .zip(hi)
            .map(|(a, b)| Pair::new(a.clone(), b.clone()))
            .collect(),
    )
}

/// A number computed from the distribution (and the system) at each precision, cached
/// under `what` with the canonical system and `extra`. The load is resolved only when
/// `with_load`.
pub(crate) fn per_precision<F>(
    scope: &Scope,
    what: &'static str,
    extra: String,
    with_load: bool,
    f: F,
) -> Result<Pair, QuantityError>
where
    F: Fn(&dyn JobSize, &DispatchSystem) -> Result<Float, QuantityError>,
{
    let s = DispatchSpec::resolve(scope, with_load)?;
    let key = CacheKey::new(what, format!("{extra}|{}", s.key()));
    let r = scope.cache.get_or(key, || {
        let spec = s.spec()?;
        let both = Certify::digits(scope.digits).run(|b| {
            let d = spec.build(b)?;
            f(d.as_ref(), &s)
        })?;
        // A quantity computed while a run left MPFR's exponent range, and that came out
        // 0, ∞ or NaN, is out of range, not a number.
        both.guard_range(
            what,
            [&crate::num::certify::certify_pair(&both.lo, &both.hi, 1)],
            [],
        )?;
        Ok(Pair::new(both.lo, both.hi))
    })?;
    Ok(r.as_ref().clone())
}

/// Under `check --rigorous`, a number enclosed from the system's law at the enclosure
/// precision (cached under `what` like the certified value), or why there is none (a law
/// without an enclosure, a computed load, a comparison the enclosures do not decide);
/// [`Proof::Off`] otherwise. The load is resolved only when `with_load`.
pub(crate) fn enclosed<F>(
    scope: &Scope,
    what: &'static str,
    extra: String,
    with_load: bool,
    f: F,
) -> Proof
where
    F: FnOnce(&dyn Enclosure, &DispatchSystem, u32) -> Result<Interval, String>,
{
    if !scope.rigorous {
        return Proof::Off;
    }
    let s = match DispatchSpec::resolve(scope, with_load) {
        Ok(s) => s,
        Err(e) => return Proof::unproven(e.to_string()),
    };
    if with_load {
        if let Some(e) = &s.computed_load {
            return Proof::unproven(format!(
                "the load {e} is computed and passed as a rounded decimal"
            ));
        }
    }
    let bits = scope.enclosure_bits();
    let key = CacheKey::new(what, format!("enclosed|{extra}|{}", s.key()));
    let r = scope.cache.get_or(key, || {
        // An enclosure that leaves MPFR's range is still a bound: its flags are not the
        // value's ([`crate::num::range::isolated`]).
        let r = crate::num::range::isolated(|| {
            s.spec()
                .map_err(|e| e.to_string())
                .and_then(|spec| spec.enclose(bits).map_err(|e| e.to_string()))
                .and_then(|enc| f(enc.as_ref(), &s, bits))
        });
        Ok(match r {
            Ok(i) => Proof::enclosed(i),
            Err(why) => Proof::unproven(why),
        })
    });
    match r {
        Ok(p) => p.as_ref().clone(),
        Err(e) => Proof::unproven(e.to_string()),
    }
}

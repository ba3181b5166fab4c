//! What the quantity files share: a vector field from the two precisions, and a number
//! computed from the dispatch system's distribution at each precision.

use crate::claims::cache::CacheKey;
use crate::claims::error::QuantityError;
use crate::claims::scope::Scope;
use crate::claims::systems::dispatch::{DispatchSpec, DispatchSystem};
use crate::claims::value::{FieldValue, Pair};
use crate::dist::{DistFactory, JobSize};
use crate::num::certify::Certify;
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

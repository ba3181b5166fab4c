//! Stability regions.
//!
//! **Exact, FCFS with exponential i.i.d. copies** (Gardner et al. 2016; Bonald & Comte
//! 2017): stable iff Σ_{c∈A} λ_c < μ(∪_{c∈A} S_c) for every set A of classes. It suffices
//! to check the unions U of class sets reachable from ∅ with A(U) = {c: S_c ⊆ U} (every A
//! has a union U, and A(U) ⊇ A carries at least as much). Along the ray s·λ the system is
//! stable iff s < s* = min_U μ(U)/λ(U); the minimising U gives the binding classes.
//!
//! The condition is also necessary under every policy with exponential i.i.d. copies
//! (the class-A jobs leave at rate at most μ(∪_{c∈A} S_c)), so s* bounds every policy's
//! limit from above; other policies and identical copies are estimated by simulation.

use super::classes::{ServerSet, System};
use super::product_form::reachable_unions;
use super::RedundancyError;
use rug::Float;

/// The exact FCFS stability limit along the ray of the arrival-rate vector.
#[derive(Debug, Clone, PartialEq)]
pub struct FcfsRegion {
    /// s* = min_U μ(U)/λ(U): stable iff every λ_c is multiplied by less than this.
    pub scale_limit: Float,
    /// The binding union U (the smallest among ties).
    pub binding_union: ServerSet,
    /// The binding classes A(U) = {c: S_c ⊆ U}, 0-based.
    pub binding_classes: Vec<usize>,
}

impl FcfsRegion {
    /// True when the system as given (s = 1) is stable.
    pub fn stable(&self) -> bool {
        self.scale_limit > 1
    }
}

/// The exact FCFS region at `bits`.
///
/// ```
/// use taskassign::redundancy::{classes::System, stability::fcfs_region};
/// // N-model, λ = (0.6, 0.6): {1} alone allows 1/0.6, {1} with {1+2} allows 2/1.2 = 5/3.
/// let n = System::preset("n-model", &["0.6".into(), "0.6".into()]).unwrap();
/// let r = fcfs_region(&n, 64).unwrap();
/// assert!((r.scale_limit.to_f64() - 5.0 / 3.0).abs() < 1e-15);
/// assert_eq!(r.binding_classes, [0]); // {1}: 1/0.6 = 5/3 as well, and it is smaller
/// ```
pub fn fcfs_region(sys: &System, bits: u32) -> Result<FcfsRegion, RedundancyError> {
    let lambda = sys.lambda(bits);
    let mut best: Option<(Float, ServerSet)> = None;
    for u in reachable_unions(sys)? {
        if u.is_empty() {
            continue;
        }
        let mut l = Float::with_val(bits, 0);
        for (c, x) in sys.classes().iter().zip(&lambda) {
            if c.set.is_subset_of(u) {
                l += x;
            }
        }
        if l.is_zero() {
            continue;
        }
        let r = Float::with_val(bits, sys.capacity(u, bits) / &l);
        // Unions come by size: a later (larger) union replaces only a strictly smaller ratio.
        if best.as_ref().is_none_or(|(b, _)| r < *b) {
            best = Some((r, u));
        }
    }
    let (scale_limit, binding_union) =
        best.ok_or_else(|| RedundancyError::Internal("a system without classes".into()))?;
    let binding_classes = (0..sys.classes().len())
        .filter(|&c| sys.classes()[c].set.is_subset_of(binding_union))
        .collect();
    Ok(FcfsRegion {
        scale_limit,
        binding_union,
        binding_classes,
    })
}

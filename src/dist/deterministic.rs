//! Deterministic: every job has size x.

use super::{check_higher_order, check_order, to_f64_param, DistError, JobSize, Sampler};
use crate::num::message_number;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;

/// Point mass at x > 0.
#[derive(Debug, Clone)]
pub struct Deterministic {
    x: Float,
}

impl Deterministic {
    /// det(x) with x > 0.
    ///
    /// ```
    /// use rug::Float;
    /// use taskassign::dist::{Deterministic, JobSize};
    /// let d = Deterministic::new(Float::with_val(64, 3)).unwrap();
    /// assert_eq!(d.moment(2).unwrap(), 9);
    /// ```
    pub fn new(x: Float) -> Result<Self, DistError> {
        if !(x > 0) {
            return Err(DistError::BadParameter {
                family: "det",
                why: format!("x must be > 0, got {}", message_number(&x)),
            });
        }
        Ok(Deterministic { x })
    }
}

impl Deterministic {
    /// M_j(a, b) for any order j of [`JobSize::partial_moment`] and
    /// [`JobSize::higher_partial_moment`] (the formula does not depend on the order).
    fn any_order_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        let bits = self.prec();
        if *a < self.x && self.x <= *b {
            Ok(Float::with_val(bits, (&self.x).pow(j)))
        } else {
            Ok(Float::with_val(bits, 0))
        }
    }
}

impl JobSize for Deterministic {
    family_items!("det", x, Float: x, x);
    fn is_deterministic(&self) -> bool {
        true
    }
    fn tail(&self, x: &Float) -> Float {
        Float::with_val(self.prec(), if *x < self.x { 1 } else { 0 })
    }
    fn density(&self, _x: &Float) -> Option<Float> {
        None
    }
    any_order_moments!();
    fn quantile(&self, _u: &Float) -> Result<Float, DistError> {
        Ok(self.x.clone())
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // x F̄(x) = x for x < x0 and 0 after: the supremum x0 is approached, not attained.
        Ok((self.x.clone(), self.x.clone()))
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        Ok(Box::new(DetSampler(to_f64_param("det", "x", &self.x)?)))
    }
}

struct DetSampler(f64);

impl Sampler for DetSampler {
    fn sample(&self, _rng: &mut Xoshiro256PlusPlus) -> f64 {
        self.0
    }
}

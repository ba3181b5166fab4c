//! Weibull (placeholder until implemented).
use super::{DistError, JobSize};
use rug::Float;
/// Weibull.
#[derive(Debug, Clone)]
pub struct Weibull;
impl Weibull {
    /// Weibull(shape, scale).
    pub fn new(_shape: Float, _scale: Float) -> Result<Self, DistError> {
        Err(DistError::BadParameter {
            family: "weibull",
            why: "not implemented yet".into(),
        })
    }
}
impl JobSize for Weibull {
    fn family(&self) -> &'static str {
        "weibull"
    }
    fn prec(&self) -> u32 {
        0
    }
    fn lower(&self) -> Float {
        unimplemented!()
    }
    fn upper(&self) -> Float {
        unimplemented!()
    }
    fn tail(&self, _x: &Float) -> Float {
        unimplemented!()
    }
    fn density(&self, _x: &Float) -> Option<Float> {
        None
    }
    fn partial_moment(&self, _j: i32, _a: &Float, _b: &Float) -> Result<Float, DistError> {
        unimplemented!()
    }
    fn sampler(&self) -> Result<Box<dyn super::Sampler>, DistError> {
        unimplemented!()
    }
}

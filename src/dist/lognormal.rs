//! LogNormal (placeholder until implemented).
use super::{DistError, JobSize};
use rug::Float;
/// LogNormal.
#[derive(Debug, Clone)]
pub struct LogNormal;
impl LogNormal {
    /// LogNormal(mu, sigma).
    pub fn new(_mu: Float, _sigma: Float) -> Result<Self, DistError> {
        Err(DistError::BadParameter {
            family: "lognormal",
            why: "not implemented yet".into(),
        })
    }
}
impl JobSize for LogNormal {
    fn family(&self) -> &'static str {
        "lognormal"
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

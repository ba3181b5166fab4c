//! Empirical (placeholder until implemented).
use super::{DistError, JobSize};
use rug::Float;
/// Reads a file of sizes, one a line.
pub fn read_file(path: &str) -> Result<Vec<String>, DistError> {
    Err(DistError::File {
        path: path.into(),
        line: 0,
        why: "not implemented yet".into(),
    })
}
/// Empirical.
#[derive(Debug, Clone)]
pub struct Empirical;
impl Empirical {
    /// Builds from samples.
    pub fn new(_bits: u32, _path: &str, _samples: &[String]) -> Result<Self, DistError> {
        Err(DistError::File {
            path: _path.into(),
            line: 0,
            why: "not implemented yet".into(),
        })
    }
}
impl JobSize for Empirical {
    fn family(&self) -> &'static str {
        "empirical"
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

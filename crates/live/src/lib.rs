//! The real machine: NVML readings, the GEMM probe, recordings, validation against a build.
//! No egui here.
#[cfg(feature = "cuda")]
pub(crate) mod cuda_util;
pub mod fields;
pub mod fleet;
pub mod grading;
pub mod links;
pub mod nvml;
pub mod panics;
pub mod probe;
pub mod prometheus;
pub mod reasons;
pub mod record;
pub mod report;
pub mod sampler;
pub mod smi;

pub mod validate;
/// The PCIe/NVLink topology lives under [`nvml`], which reads it; re-exported at its old path.
pub use nvml::topology;

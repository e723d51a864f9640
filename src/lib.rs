//! Kraftwerk: plan, check and validate multi-GPU machines for large language models.
//!
//! Crate map (data flows one way: files → domain types → pure functions → report → UI/CLI):
//! - [`catalog`]: part types, the embedded RON catalog and the user's parts directory.
//! - [`build`]: the build model and its `*.rig.ron` file format.
//! - [`check`]: compatibility rules as lints, and the report.
//! - [`estimate`]: power, thermal, LLM fit and cost estimates.
//! - [`live`]: the installed GPUs through NVML, the GEMM probe, recordings (no egui).
//! - [`report`]: text rendering of a check report and a power estimate (CLI and GUI).
//! - [`model_file`]: GGUF and Hugging Face model files read into the LLM estimate's model shape.
//! - [`cli`]: the command-line face.
//! - `ui`: the desktop app (feature `gui`).

pub mod build;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod compare;
pub mod estimate;
pub mod live;
pub mod report;
pub mod model_file;
#[cfg(feature = "gui")]
pub mod ui;

//! Kraftwerk: plan, check and validate multi-GPU machines for large language models.
//!
//! Crate map (data flows one way: files → domain types → pure functions → report → UI/CLI):
//! - [`catalog`]: part types, the embedded RON catalog and the user's parts directory.
//! - [`build`]: the build model and its `*.rig.ron` file format.
//! - [`check`]: compatibility rules as lints, and the report.
//! - [`estimate`]: power, thermal, LLM fit and cost estimates.
//! - [`live`]: the installed GPUs through NVML, the GEMM probe, recordings (no egui).
//! - [`cli`]: the command-line face.
//! - `ui`: the desktop app (feature `gui`).

pub mod build;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod estimate;
pub mod live;
pub mod plan;
/// The Plan tab (`ui/plan_tab.rs`), declared here until the app wires it into [`ui`].
#[cfg(feature = "gui")]
#[path = "ui/plan_tab.rs"]
pub mod plan_tab;
#[cfg(feature = "gui")]
pub mod ui;

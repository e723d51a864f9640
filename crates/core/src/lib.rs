//! Kraftwerk's core: the rig model and its file, the estimates, the checks, the planner, the
//! comparison and every text renderer. Pure functions over [`kraftwerk_catalog`] data: no
//! window, no NVML, no CUDA, no command-line parsing (the workspace's layer script holds that).
//!
//! - [`fmt`]: plurals and other small text helpers (the bottom of the module order).
//! - [`workload`]: the workload vocabulary (precision, mode, runtime, parallelism,
//!   interconnect), the bottom of the core: the build stores it, the estimator reads it.
//! - [`rig`]: the build model and its `*.rig.ron` file format.
//! - [`estimate`]: power, thermal, LLM fit and cost estimates (and [`estimate::model_file`],
//!   the GGUF and Hugging Face model-file readers).
//! - [`check`]: compatibility rules as lints, and the report.
//! - [`report`]: text rendering of a check report and a power estimate (CLI and GUI).
//! - [`compare`]: several builds side by side.
//! - [`plan`]: the planner ("what should I buy for this goal?").

pub mod check;
pub mod compare;
pub mod estimate;
pub mod fmt;
pub mod plan;
pub mod report;
pub mod rig;
pub mod workload;

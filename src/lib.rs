//! Kraftwerk: plan, check and validate multi-GPU machines for large language models.
//!
//! The workspace's crates are the layers (ARCHITECTURE.md draws the graph); data flows one way:
//! files → domain types → pure functions → report → UI/CLI.
//! - [`catalog`] (`kraftwerk-catalog`): part types, the embedded RON catalog and the user's parts
//!   directory.
//! - `kraftwerk-core`: [`rig`] (the build model and its `*.rig.ron` file format), [`estimate`]
//!   (power, thermal, LLM fit and cost), [`check`] (rules as lints), [`report`] (text renderers),
//!   [`compare`] and [`plan`].
//! - [`live`] (`kraftwerk-live`): the installed GPUs through NVML, the GEMM probe, recordings,
//!   validation, fleets, Prometheus (no egui; the only crate with `unsafe`).
//! - `ui` (`kraftwerk-app`, feature `gui`): the desktop app.
//! - [`cli`]: the command-line face (this crate, with the `kraftwerk` binary).
//!
//! This crate re-exports the layers under their module names, so `kraftwerk::check::run` names
//! the same function as `kraftwerk_core::check::run`.

#[cfg(feature = "gui")]
pub use kraftwerk_app as ui;
pub use kraftwerk_catalog as catalog;
/// Model-file readers live with the estimate that uses them ([`estimate::model_file`]).
pub use kraftwerk_core::estimate::model_file;
pub use kraftwerk_core::{check, compare, estimate, fmt, plan, report, rig};
pub use kraftwerk_live as live;

pub mod cli;

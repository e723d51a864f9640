//! The core's integration tests, one binary: each file is a module for one area, calling the
//! public API of `kraftwerk-core` and `kraftwerk-catalog` only (no CLI, no window), so
//! `cargo test -p kraftwerk-core` runs them without building the app. Helpers shared by several
//! modules live in [`support`]. Tests run in parallel threads, so none changes process-wide
//! state (environment variables, the working directory).

mod support;

mod build_file;
mod catalog;
mod catalog_boards;
mod catalog_cpus;
mod catalog_fit;
mod check_wiring;
mod model_file;
mod one_truth;
mod rules;
mod scenarios;
mod slot_direction;

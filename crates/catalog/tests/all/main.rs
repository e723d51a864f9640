//! The catalog's integration tests, one binary: each file is a module for one area, calling the
//! public API of `kraftwerk-catalog` only, so `cargo test -p kraftwerk-catalog` runs them
//! without building the estimators or the app. Helpers shared by the modules live in
//! [`support`].

mod support;

mod board_wiring;
mod catalog_audit;
mod catalog_honesty;

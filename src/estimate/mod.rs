//! Estimates: pure functions over a build, no egui, no I/O.
//!
//! - [`power`]: sustained and transient load, PSU efficiency and wall draw, circuits, heat,
//!   electricity cost, power-limit advice.

pub mod power;

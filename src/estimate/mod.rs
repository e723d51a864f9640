//! Estimates: pure functions over a build, no egui, no I/O.
//!
//! - [`power`]: sustained and transient load, PSU efficiency and wall draw, circuits, heat,
//!   electricity cost, power-limit advice.
//! - [`llm`]: does a model fit a set of GPUs (memory per GPU, broken down), decode and prefill
//!   speed, fine-tune time.
//! - [`cost`]: hardware, power and cloud cost; $ per hour and per million tokens.

pub mod cost;
pub mod fit;
pub mod llm;
pub mod power;

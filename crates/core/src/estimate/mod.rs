//! Estimates: pure functions over a build, no egui, no I/O.
//!
//! - [`power`]: sustained and transient load, PSU efficiency and wall draw, circuits, heat,
//!   electricity cost, power-limit advice.
//! - [`llm`]: does a model fit a set of GPUs (memory per GPU, broken down), decode and prefill
//!   speed, fine-tune time.
//! - [`cost`]: hardware, power and cloud cost; $ per hour and per million tokens.
//! - [`model_file`]: GGUF headers and Hugging Face folders read into [`llm`]'s model shape with
//!   exact weight bytes (the only module here that reads files; headers only). Order inside:
//!   `llm` <- `model_file` <- `fit`.
//! - [`fit`]: the LLM estimate for a build's GPUs, links, memory and power.
//! - [`calibrate`]: the user's measurement (llama-bench, `vllm bench serve`) against a build's
//!   estimate, and the one scaling of its other estimates that `fit` and `plan` share (uses
//!   `fit`).

pub mod calibrate;
pub mod cost;
pub mod fit;
pub mod llm;
pub mod model_file;
pub mod power;
pub mod speed_summary;

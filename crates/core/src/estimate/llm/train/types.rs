//! The output types of a training estimate, apart from the code that computes them so that
//! the report types ([`super::super::report`]) can hold them without an import cycle.

use super::super::inputs::{Optimizer, Trainer};
pub use crate::workload::TrainPlan;
use crate::workload::TrainingRuntime;
use serde::Serialize;

/// The time of one training step and what it is made of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainSpeed {
    /// Tokens per second over all GPUs.
    pub tokens_per_s: f64,
    /// Seconds per optimizer step (all micro-batches of the accumulation).
    pub step_s: f64,
    /// Of which computing (all micro-batches), s.
    pub compute_s: f64,
    /// Of which NF4 dequantization (QLoRA), s.
    pub dequant_s: f64,
    /// Communication per step, s (all of it, hidden or not).
    pub comm_s: f64,
    /// Communication left exposed after overlapping it with compute, s.
    pub comm_exposed_s: f64,
    /// Bytes each GPU sends per step, GB.
    pub comm_gb_per_gpu: f64,
    /// The link the collectives run over (the slowest of the group), and its rate.
    pub link: Option<String>,
    /// FLOPs per token.
    pub flops_per_token: f64,
    /// MFU applied and the class it is calibrated for.
    pub mfu: f64,
    /// The class of the MFU.
    pub gpu_class: String,
    /// Dense BF16 peak of the slowest GPU, TFLOP/s.
    pub peak_tflops: f64,
}

/// One way to spread a multi-GPU run, judged on the build ([`TrainingReport::options`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShardingOption {
    /// The `--runtime` that selects it (serialized as its name: `hf-peft`,
    /// `deepspeed-zero3-offload`, `fsdp`).
    pub runtime: TrainingRuntime,
    /// The setup in words.
    pub setup: String,
    /// The fullest GPU's total, GiB.
    pub peak_gib: f64,
    /// Whether every GPU holds it with the training headroom.
    pub fits: bool,
    /// Tokens per second over all GPUs; `None` where unknown.
    pub tokens_per_s: Option<f64>,
}

/// The training estimate beside the memory per GPU: framework, speed and advice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingReport {
    /// The framework.
    pub runtime: Trainer,
    /// The framework and its sharding in words.
    pub setup: String,
    /// The optimizer (serialized as its `--optimizer` name: `adamw`, `paged-adamw-8bit`).
    #[serde(serialize_with = "crate::fmt::serialize_display")]
    pub optimizer: Optimizer,
    /// Trained parameters (adapters for LoRA/QLoRA), millions.
    pub trained_params_m: f64,
    /// The fullest GPU's peak as `torch.cuda.max_memory_allocated` reports it (the total less
    /// the CUDA context, paged optimizer states excluded), GiB.
    pub peak_allocated_gib: f64,
    /// Paged optimizer states per GPU (CUDA unified memory, paged to host RAM), GiB.
    pub paged_optimizer_gib: f64,
    /// Host RAM the offloaded states take per node, GiB (0 without offload).
    pub host_offload_gib: f64,
    /// Step time and tokens/s; `None` when a GPU's class has no calibrated MFU.
    pub speed: Option<TrainSpeed>,
    /// Largest micro-batch per GPU that fits at this sequence length.
    pub max_micro_batch: Option<u32>,
    /// Longest sequence that fits at this micro-batch, tokens.
    pub max_seq_tokens: Option<u32>,
    /// Gradient accumulation steps for the target global batch ([`TrainPlan::global_batch`]).
    pub accumulation_steps: Option<u32>,
    /// Hours for [`TrainPlan::dataset_tokens`] × epochs.
    pub hours: Option<f64>,
    /// Training tokens the hours are for.
    pub training_tokens: Option<f64>,
    /// Multi-GPU alternatives (DDP, ZeRO-2/3, FSDP, with offload) on the same GPUs.
    pub options: Vec<ShardingOption>,
    /// What to do, in a line each.
    pub advice: Vec<String>,
    /// What the figures rest on.
    pub basis: TrainingBasis,
}

/// The basis of a training estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingBasis {
    /// Published runs the memory figures of this framework are held to.
    pub memory_calibrated_to: Vec<String>,
    /// The band they are held within, percent.
    pub memory_band_pct: Option<f64>,
    /// Published runs the speed figures are held to.
    pub speed_calibrated_to: Vec<String>,
    /// The band, percent; `None` where no published run of this framework holds the speed.
    pub speed_band_pct: Option<f64>,
    /// The commands that measure peak memory for this run on the user's machine.
    pub measure_memory: String,
    /// The command that measures tokens/s.
    pub measure_speed: String,
}

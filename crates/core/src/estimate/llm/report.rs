//! Outputs of the LLM estimate: per-GPU memory and verdict, speed, the report, fine-tune time,
//! and errors.

use super::inputs::{Interconnect, Mode, Parallelism, Precision, Runtime};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether a GPU's share fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitVerdict {
    /// Fits with the headroom kept free.
    Fits,
    /// Fits only by eating into the headroom.
    Tight,
    /// Does not fit.
    DoesNotFit,
}

impl fmt::Display for FitVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FitVerdict::Fits => "fits",
            FitVerdict::Tight => "tight",
            FitVerdict::DoesNotFit => "does not fit",
        })
    }
}

/// Memory one GPU needs, GiB, by component.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct MemoryBreakdown {
    /// Weights held on this GPU (base weights and, for `LoRA`, adapters).
    pub weights_gib: f64,
    /// KV cache for `batch` sequences of `context_tokens`.
    pub kv_cache_gib: f64,
    /// Activations: inference working buffer for one prompt chunk plus logits; training:
    /// Korthikanti et al. 2022 per-layer activations and the logits.
    pub activations_gib: f64,
    /// Gradients (training).
    pub gradients_gib: f64,
    /// Optimizer states (training).
    pub optimizer_gib: f64,
    /// CUDA context ([`CUDA_CONTEXT_GIB`]) and runtime buffers (CUDA graphs, compute buffers).
    pub runtime_gib: f64,
    /// Sum of the above.
    pub total_gib: f64,
    /// Memory kept free ([`HEADROOM_FRACTION`], [`VLLM_RESERVED_FRACTION`],
    /// [`TRAINING_HEADROOM_FRACTION`] of capacity).
    pub headroom_gib: f64,
    /// `total_gib` + `headroom_gib`.
    pub required_gib: f64,
}

/// One GPU's share and verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuFit {
    /// Position in the slice given to [`estimate`].
    pub index: usize,
    /// Catalog id of the card.
    pub gpu_id: String,
    /// Memory of the card, GiB.
    pub capacity_gib: f64,
    /// Transformer layers whose weights this GPU holds (all of them for tensor parallel, where
    /// it holds 1/TP of each).
    pub layers: u32,
    /// Memory needed, by component.
    pub memory: MemoryBreakdown,
    /// `capacity_gib` - `required_gib` (negative when short).
    pub free_gib: f64,
    /// Fits / tight / does not fit, with every weight the estimate places on this GPU there
    /// (JSON `all_on_gpu_verdict`: for a MoE model that runs with its experts in system RAM
    /// it is the every-expert-on-the-GPU figure, not the build's verdict, which is the fit
    /// JSON's top-level `verdict`).
    #[serde(rename = "all_on_gpu_verdict")]
    pub verdict: FitVerdict,
}

impl GpuFit {
    /// How much of the headroom a tight GPU leaves (`only 2.3 of 2.4 GiB headroom left`), the
    /// one wording of `kraftwerk fit` and the planner's tight line; `None` unless the verdict
    /// is [`FitVerdict::Tight`].
    pub fn headroom_left_phrase(&self) -> Option<String> {
        (self.verdict == FitVerdict::Tight).then(|| {
            format!(
                "only {:.1} of {:.1} GiB headroom left",
                self.capacity_gib - self.memory.total_gib,
                self.memory.headroom_gib
            )
        })
    }
}

/// Which resource limits a decode step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Memory bandwidth (reading weights and KV cache).
    Memory,
    /// Tensor throughput.
    Compute,
}

/// Inference speed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedEstimate {
    /// Decode rate of one sequence alone, tokens/s.
    pub decode_batch1_tokens_per_s: f64,
    /// Aggregate decode rate with `batch` sequences, tokens/s (all replicas for data parallel).
    pub decode_batch_tokens_per_s: f64,
    /// Decode rate each of the `batch` sequences sees, tokens/s.
    pub decode_per_sequence_tokens_per_s: f64,
    /// What limits the batched decode step.
    pub decode_bound: Bound,
    /// Bytes read from GPU memory per decode step at batch 1 (all GPUs), GB.
    pub bytes_per_token_gb: f64,
    /// Tensor-parallel all-reduce time per decode step, ms (0 without TP).
    pub all_reduce_ms_per_token: f64,
    /// Prompt processing rate for one prompt of `context_tokens`, tokens/s; `None` when the
    /// tensor rate a GPU needs for the precision is not in the catalog (unknown).
    pub prefill_tokens_per_s: Option<f64>,
    /// Time to process that prompt, s.
    pub time_to_first_token_s: Option<f64>,
    /// Dense tensor peak used for compute, per GPU, TFLOP/s (the slowest GPU of the group; for
    /// a build whose GPUs have a power limit below their default, the peak at that limit).
    pub compute_peak_tflops: Option<f64>,
    /// Which peak that is (`bf16`, `fp16 (fp16 accumulate)`, `int8`, ...).
    pub compute_peak_kind: String,
    /// Link the group's collective traffic crosses, if more than one GPU works together.
    pub link: Option<String>,
    /// Pipeline stages of a tensor × pipeline plan (1 otherwise).
    pub pipeline_stages: u32,
    /// Time of the slowest pipeline stage for one decode step of the whole batch (micro-batches
    /// included), ms; what bounds pipelined throughput. `None` without pipeline stages.
    pub slowest_stage_ms: Option<f64>,
    /// Activation handoffs between stages per decode step at batch 1, ms (hop latency and
    /// transfer over the intra- or inter-node link; 0 without pipeline stages).
    pub stage_handoff_ms_per_token: f64,
    /// Prefill rate of many prompts served together, tokens/s: the stages work on different
    /// prompts at once, bounded by the slowest stage. Equals `prefill_tokens_per_s` without
    /// pipeline stages.
    pub prefill_pipelined_tokens_per_s: Option<f64>,
    /// Prefill rate of the `batch` prompts served together, packed into the runtime's prompt
    /// chunk (continuous and in-flight batching put several short prompts in one forward pass,
    /// which streams the weights once for all of them), tokens/s. Equals the unpacked rate when
    /// one prompt fills a chunk or the batch is 1.
    pub prefill_packed_tokens_per_s: Option<f64>,
    /// The link between nodes when the plan spans several (kind, GB/s per direction).
    pub inter_node_link: Option<String>,
}

/// The estimate for one workload on one set of GPUs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReport {
    /// Model id.
    pub model_id: String,
    /// Mode.
    pub mode: Mode,
    /// Weight precision.
    pub weight_precision: Precision,
    /// KV-cache precision.
    pub kv_precision: Precision,
    /// Runtime the inference constants are for; a training estimate reads none of them and
    /// names its framework in [`FitReport::runtime_label`] (what the JSON's `runtime` is).
    #[serde(skip)]
    pub runtime: Runtime,
    /// The runtime as the faces name it: the inference runtime, or the training framework.
    #[serde(rename = "runtime")]
    pub runtime_label: RuntimeLabel,
    /// Parallelism.
    pub parallelism: Parallelism,
    /// Identical nodes the plan spans (1 = the build alone).
    pub nodes: u32,
    /// GPUs per node (the slice given to the estimate).
    pub gpus_per_node: u32,
    /// The link between nodes (`None` with one node).
    pub interconnect: Option<Interconnect>,
    /// Context, tokens.
    pub context_tokens: u32,
    /// Batch.
    pub batch: u32,
    /// Size of all weights at this precision, GiB (for GGUF: about the file size).
    pub weights_total_gib: f64,
    /// KV cache of all sequences over all GPUs, GiB.
    pub kv_cache_total_gib: f64,
    /// How the model keeps its context: KV bytes per token and the layers that keep a KV cache,
    /// and for a hybrid linear-attention model its fixed per-sequence state.
    pub kv_layout: super::shape::KvLayout,
    /// Weights kept in host RAM (llama.cpp token embedding), GiB.
    pub host_weights_gib: f64,
    /// Per-GPU shares, in slice order (only the GPUs used).
    pub gpus: Vec<GpuFit>,
    /// The worst verdict of all GPUs used; does not fit as well when the runtime does not run
    /// on one of them ([`FitReport::runtime_support`]). JSON `all_on_gpu_verdict`: the GPUs'
    /// own verdict with every weight the estimate places on them; the build's one verdict
    /// (with experts in system RAM where that split is the fit, as the headline and the exit
    /// code say it) is `kraftwerk fit`'s top-level `verdict`
    /// ([`crate::estimate::fit::BuildVerdict`]). Exception: with llama.cpp placement flags
    /// (`kraftwerk fit --n-cpu-moe`, `-ot`, `-ngl`, ...) it is the placement's as given (llama.cpp's
    /// own margin; does not fit when that placement does not run), since the flags are what is
    /// estimated.
    #[serde(rename = "all_on_gpu_verdict")]
    pub verdict: FitVerdict,
    /// Longest context per sequence that fits at this batch (inference), tokens, capped at the
    /// model's maximum; `None` when not even the weights fit.
    pub max_context_tokens: Option<u32>,
    /// vLLM's KV pool on the fullest GPU, as vLLM sizes it ([`super::vllm_memory`]); `None`
    /// for other runtimes and for training.
    pub vllm: Option<super::vllm_memory::VllmKvPool>,
    /// Whether the runtime runs on each GPU model used, by its own requirements
    /// ([`super::support`]); empty for training. A [`super::support::Support::DoesNotRun`]
    /// makes the verdict [`FitVerdict::DoesNotFit`] whatever the memory says.
    pub runtime_support: Vec<super::support::GpuSupport>,
    /// llama.cpp's per-device table (`llama_memory_breakdown_print`) and the `-ngl` /
    /// `--n-cpu-moe` / `-ts` that give it ([`super::runtime_memory`]); `None` for other runtimes.
    pub llama_cpp: Option<super::runtime_memory::LlamaCppFit>,
    /// What the memory figures rest on (held measurements, ± band) and the command that
    /// measures them on the user's machine.
    pub memory_basis: super::runtime_memory::MemoryBasis,
    /// What the speed figures rest on (held measurements, ± band) and the command that measures
    /// them on the user's machine.
    pub speed_basis: super::basis::SpeedBasis,
    /// Speed (inference only).
    pub speed: Option<SpeedEstimate>,
    /// Training: framework, step time, tokens/s and advice ([`super::train`]); `None` for
    /// inference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training: Option<super::train::types::TrainingReport>,
    /// Warnings and explanations for the user.
    pub notes: Vec<String>,
    /// The constants used, with their sources, in one line each.
    pub assumptions: Vec<String>,
}

/// The runtime a report names: an inference [`Runtime`] or a training [`Trainer`]. Serialized
/// as the runtime's own name (`vllm`, `llama_cpp`, `hf-peft`, `deepspeed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RuntimeLabel {
    /// Inference.
    Inference(Runtime),
    /// Training.
    Training(super::inputs::Trainer),
}

impl std::fmt::Display for RuntimeLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuntimeLabel::Inference(r) => r.fmt(f),
            RuntimeLabel::Training(t) => t.fmt(f),
        }
    }
}

/// Why an inference fit is not a pass although it loads ([`FitReport::short_of_headroom`]):
/// the verdict is [`FitVerdict::Tight`] and the context asked is longer than the longest one
/// that keeps every GPU's headroom free, so the verdict agrees with the longest context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShortOfHeadroom {
    /// The context asked, tokens.
    pub asked_tokens: u32,
    /// The longest context that keeps the headroom at this batch, tokens; `None` when not even
    /// one token does (the weights and the runtime alone eat into it).
    pub longest_tokens: Option<u32>,
}

impl fmt::Display for ShortOfHeadroom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.longest_tokens {
            Some(c) => write!(
                f,
                "tight: the longest context that keeps the headroom is {c} tokens, below the {} asked (--context {c} fits)",
                self.asked_tokens
            ),
            None => f.write_str("tight: no context keeps the headroom (the weights and the runtime alone eat into it)"),
        }
    }
}

impl FitReport {
    /// `Some` when the fit is tight in inference and the longest context that keeps the
    /// headroom ([`FitReport::max_context_tokens`]) is shorter than the context asked, or
    /// unknown because not one token keeps it: not a pass (`kraftwerk fit` exits 3). `None` for
    /// a fit, a fit that does not fit (exit 1), training (no context search) and a tight vLLM
    /// fit whose pool holds the context but fewer sequences than the batch (vLLM queues them).
    pub fn short_of_headroom(&self) -> Option<ShortOfHeadroom> {
        if self.verdict != FitVerdict::Tight || self.mode.is_training() {
            return None;
        }
        match self.max_context_tokens {
            Some(c) if c >= self.context_tokens => None,
            longest => Some(ShortOfHeadroom { asked_tokens: self.context_tokens, longest_tokens: longest }),
        }
    }
}

/// Fine-tune duration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FineTuneEstimate {
    /// Training tokens (dataset tokens × epochs).
    pub tokens: f64,
    /// FLOPs per token: 6 × active params for a full fine-tune (Kaplan et al. 2020; EleutherAI
    /// "Transformer Math 101"), 4 × for `LoRA`/`QLoRA` (no weight gradients of the frozen
    /// base), + 2 × with gradient checkpointing (the forward is run again).
    pub flops_per_token: f64,
    /// Total FLOPs.
    pub total_flops: f64,
    /// Model FLOPs utilisation assumed.
    pub mfu: f64,
    /// Sum of the dense BF16 (FP32-accumulate) peaks of the GPUs used, TFLOP/s.
    pub peak_tflops: f64,
    /// `peak_tflops` × `mfu`.
    pub achievable_tflops: f64,
    /// Wall-clock hours.
    pub hours: f64,
}

/// Input that cannot be estimated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// The GPU slice is empty.
    #[error("no GPUs given")]
    NoGpus,
    /// The parallelism asks for more GPUs than given.
    #[error("{parallelism} needs {wanted} GPUs, {given} given")]
    NotEnoughGpus {
        /// The parallelism asked for.
        parallelism: Parallelism,
        /// GPUs it needs.
        wanted: u32,
        /// GPUs given.
        given: usize,
    },
    /// A model field is out of range.
    #[error("model `{id}`: {reason}")]
    InvalidModel {
        /// Model id.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// A workload field is out of range.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A combination no runtime offers.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

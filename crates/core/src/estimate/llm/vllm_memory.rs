//! vLLM's memory as vLLM allocates it: the reservation, the weights, the profiling run's peak,
//! the memory outside PyTorch, and what is left for the KV cache; the two start-up lines vLLM
//! prints about it ("GPU KV cache size: N tokens", "Maximum concurrency for C tokens per
//! request: X").
//!
//! vLLM V1 (`vllm/v1/worker/gpu_worker.py`, `determine_available_memory`) measures, on each GPU:
//! `requested = gpu_memory_utilization × total_memory`; loads the weights; runs one forward of
//! `max_num_batched_tokens` dummy tokens and one dummy sampler step over `max_num_seqs`
//! sequences (`profile_run`) and takes the peak; adds the memory allocated outside PyTorch
//! (CUDA context, NCCL); the KV cache gets `requested - weights - peak activations - non-torch`
//! (log line "Available KV cache memory: X GiB"). `vllm/v1/core/kv_cache_utils.py` then prints
//! the KV capacity in tokens and `tokens / max_model_len` as the maximum concurrency (vLLM PR
//! 13596, <https://github.com/vllm-project/vllm/pull/13596>), and refuses to start when one
//! sequence of `max_model_len` does not fit ("The model's max seq len (N) is larger than the
//! maximum number of tokens that can be stored in KV cache").
//!
//! CUDA graphs: vLLM up to 0.11 captures them after the KV cache is allocated, from the memory
//! outside the reservation (the 1 - `gpu_memory_utilization` margin); logged as "Graph capturing
//! finished in N secs, took X GiB" (0.72 GiB for granite-4.0-micro, 1.3 GiB for an 8B model).
//! Later versions estimate them before sizing the pool ("Actual usage is ... for peak
//! activation, and 0.09 GiB for CUDAGraph memory", club-3090 issue 1087). Here they are kept
//! outside the pool, as vLLM 0.10-0.11 did, and checked against the margin.
//!
//! Held to published vLLM logs within ±10 % (the table in `tests/all/llm_vllm_memory.rs`).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, MXFP4) read better unquoted"
)]

use super::calibration::{GIB, VLLM_CUDA_GRAPHS_GIB};
use super::inputs::{FitInput, GpuSlot, Parallelism};
use super::shape::{GroupFormats, group_formats, kv_cache_bytes, param_groups};
use crate::fmt::thousands;
use kraftwerk_catalog::{Gpu, LlmModel, TensorFormat};
use serde::Serialize;

/// vLLM's default `--gpu-memory-utilization` (vLLM engine arguments, docs.vllm.ai
/// `serving/engine_args`).
pub(crate) const VLLM_DEFAULT_GPU_MEMORY_UTILIZATION: f64 = 0.9;

/// Fraction of a GPU's nominal memory that CUDA reports as total (what vLLM multiplies by
/// `gpu_memory_utilization`): vLLM logs "total_gpu_memory=23.58GiB" on an RTX 3090 (24 GiB;
/// vLLM issue 10517) and 79.19 GiB on an H100 80GB (vLLM issue 10517, "Memory profiling
/// results" lines); 0.9825 and 0.9899, mean 0.986.
pub(crate) const CUDA_VISIBLE_FRACTION: f64 = 0.986;

/// Memory outside PyTorch on one GPU without tensor parallel, GiB: "non_torch_memory=0.35GiB"
/// (vLLM issue 10517, RTX 3090, Llama-3.1-8B).
pub(crate) const VLLM_NON_TORCH_GIB: f64 = 0.35;
/// Extra memory outside PyTorch per GPU under tensor parallel (NCCL and custom all-reduce
/// buffers), GiB: judgement, not held to a log.
pub(crate) const VLLM_NON_TORCH_TP_EXTRA_GIB: f64 = 0.5;

/// Bytes per token and FFN unit alive at the peak of the profiling forward (gate/up output,
/// 2 × ffn, and the activated product, 1 × ffn, 16-bit: 3 × 2 bytes), with
/// [`VLLM_PROFILE_HIDDEN_BYTES`]. Fitted on vLLM issue 10517 (RTX 3090, Llama-3.1-8B, profile
/// of 20,000 and 29,000 tokens: peak_torch - weights = 2.07 and 2.99 GiB, 111 KB per token;
/// 3 × 2 × 14336 + 6 × 4096 = 110.6 KB).
pub(crate) const VLLM_PROFILE_FFN_BYTES: f64 = 6.0;
/// Bytes per token and hidden unit alive at the profiling peak (residual, normed input and
/// attention output, 16-bit), see [`VLLM_PROFILE_FFN_BYTES`].
pub(crate) const VLLM_PROFILE_HIDDEN_BYTES: f64 = 6.0;

/// FP32 copies of the `[max_num_seqs, vocab]` logits alive at the peak of V1's dummy sampler
/// run (logits, softmax, sort values and int64 indices of top-k/top-p, log-probs). Fitted on
/// vLLM issue 27508 (H100 80GB, gpt-oss-120b, `--gpu-memory-utilization 0.95
/// --max-num-batched-tokens 1024`, 1024 sequences × 201,088 vocab: "Available KV cache
/// memory: 1.71 GiB"); one log, so the constant rests on one row and is checked against vLLM
/// issue 23278 (same model and GPU at the defaults, -2.14 GiB).
pub(crate) const VLLM_SAMPLER_LOGIT_COPIES: f64 = 9.0;

/// Profile tokens (`max_num_batched_tokens`) and sequences (`max_num_seqs`) vLLM uses by
/// default for `vllm serve` on `gpu`: 8192 and 1024 on GPUs of at least 70 GiB that are not an
/// A100, else 2048 and 256 (`vllm/engine/arg_utils.py`, `EngineArgs.get_batch_defaults`, "For
/// GPUs like H100 and MI300x, use larger default values"; vLLM PR 17885 for the A100
/// exception).
pub(crate) fn default_batch_limits(gpu: &Gpu) -> (u32, u32) {
    let a100 = gpu.id.to_ascii_lowercase().contains("a100") || gpu.name.to_ascii_lowercase().contains("a100");
    if gpu.memory_gib * CUDA_VISIBLE_FRACTION >= 70.0 && !a100 { (8192, 1024) } else { (2048, 256) }
}

/// vLLM engine settings that size the KV pool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VllmEngine {
    /// `--gpu-memory-utilization` (0-1].
    pub gpu_memory_utilization: f64,
    /// `--max-num-batched-tokens`: the tokens of the profiling forward.
    pub max_num_batched_tokens: u32,
    /// `--max-num-seqs`: the sequences of the profiling sampler step.
    pub max_num_seqs: u32,
    /// `--max-model-len`: the context the concurrency is stated for, tokens.
    pub max_model_len: u32,
    /// The V1 engine profiles a sampler step over `max_num_seqs` sequences; the V0 engine
    /// (vLLM up to 0.10) showed no such peak (issue 10517). Always true for current vLLM.
    pub sampler_profiled: bool,
}

/// The KV pool of one GPU and the start-up lines vLLM prints about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VllmKvPool {
    /// The engine settings used (defaults filled in).
    pub engine: VllmEngine,
    /// Memory CUDA reports on the fullest GPU, GiB ([`CUDA_VISIBLE_FRACTION`] of nominal).
    pub total_gib: f64,
    /// `gpu_memory_utilization × total_gib`.
    pub reservation_gib: f64,
    /// Weights as vLLM loads them on that GPU ("Model loading took X GiB"), GiB.
    pub weights_gib: f64,
    /// Peak of the profiling run beyond the weights (forward of `max_num_batched_tokens` and
    /// the sampler step), GiB.
    pub profile_activations_gib: f64,
    /// Memory outside PyTorch (CUDA context, NCCL), GiB.
    pub non_torch_gib: f64,
    /// CUDA graphs, captured after the pool from the margin outside the reservation, GiB.
    pub cuda_graphs_gib: f64,
    /// What is left for the KV cache ("Available KV cache memory: X GiB"); negative when the
    /// rest does not even fit.
    pub kv_pool_gib: f64,
    /// KV bytes one sequence of `max_model_len` needs on that GPU.
    pub kv_bytes_per_sequence: f64,
    /// "GPU KV cache size: N tokens" (0 when the pool is empty).
    pub kv_tokens: u64,
    /// "Maximum concurrency for `max_model_len` tokens per request: X".
    pub max_concurrency: f64,
    /// Whether one sequence of `max_model_len` fits (vLLM refuses to start otherwise).
    pub holds_one_sequence: bool,
    /// The two log lines as vLLM prints them.
    pub log_lines: Vec<String>,
    /// When vLLM refuses to start ([`VllmKvPool::holds_one_sequence`] false): each engine
    /// setting that alone makes the pool hold one sequence of `max_model_len`, at the value
    /// closest to the one used, by this same model. Empty when it starts, or when no single
    /// setting does it.
    pub start_levers: Vec<VllmLever>,
}

/// One engine setting that would let vLLM start, and the pool it gives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "flag")]
pub enum VllmLever {
    /// `--max-num-seqs N`: the profiling sampler step's `[N, vocab]` FP32 copies shrink.
    MaxNumSeqs {
        /// The largest `--max-num-seqs` that starts.
        value: u32,
        /// The pool it gives, GiB.
        kv_pool_gib: f64,
    },
    /// `--max-num-batched-tokens N` (no lower than `--max-num-seqs`, which vLLM requires):
    /// the profiling forward's activations shrink.
    MaxNumBatchedTokens {
        /// The largest `--max-num-batched-tokens` that starts.
        value: u32,
        /// The pool it gives, GiB.
        kv_pool_gib: f64,
    },
    /// `--gpu-memory-utilization U`: a larger reservation, while the CUDA graphs
    /// ([`VllmKvPool::cuda_graphs_gib`]) still fit in what is left outside it.
    GpuMemoryUtilization {
        /// The smallest utilization (two decimals) that starts.
        value: f64,
        /// The pool it gives, GiB.
        kv_pool_gib: f64,
    },
}

impl std::fmt::Display for VllmLever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            VllmLever::MaxNumSeqs { value, kv_pool_gib } => {
                write!(f, "--max-num-seqs {value} (KV pool {kv_pool_gib:.2} GiB)")
            }
            VllmLever::MaxNumBatchedTokens { value, kv_pool_gib } => {
                write!(f, "--max-num-batched-tokens {value} (KV pool {kv_pool_gib:.2} GiB)")
            }
            VllmLever::GpuMemoryUtilization { value, kv_pool_gib } => {
                write!(f, "--gpu-memory-utilization {value:.2} (KV pool {kv_pool_gib:.2} GiB)")
            }
        }
    }
}

/// The vLLM engine flags `input` sets beyond the defaults, as `vllm serve` takes them: the
/// parallelism the estimate is for (` --tensor-parallel-size N`, ` --pipeline-parallel-size N`
/// for tensor × pipeline plans and for a layer split, vLLM's pipeline parallel, and
/// ` --data-parallel-size N` for replicas; vLLM's engine arguments,
/// <https://docs.vllm.ai/en/latest/configuration/engine_args.html>), then
/// ` --max-num-batched-tokens N --max-num-seqs N`, each only where set; empty for one GPU at
/// vLLM's defaults. For the commands that measure a fit: a build planned at a lower
/// `--max-num-seqs` ([`crate::rig::Workload::max_num_seqs`]) or over three GPUs in pipeline is
/// measured as it was estimated.
pub(crate) fn engine_flags(input: &FitInput) -> String {
    use std::fmt::Write as _;
    let mut out = super::basis::serving_flags(input.parallelism, super::basis::VLLM_PARALLEL_FLAGS);
    if let Some(t) = input.max_num_batched_tokens {
        let _ = write!(out, " --max-num-batched-tokens {t}");
    }
    if let Some(n) = input.max_num_seqs {
        let _ = write!(out, " --max-num-seqs {n}");
    }
    out
}

/// The largest `v` in `1..=hi` for which `ok(v)` holds, where `ok` is monotone (true up to
/// some value, false above it); `None` when `ok(1)` is false.
fn largest_passing(hi: u32, ok: impl Fn(u32) -> bool) -> Option<u32> {
    if hi == 0 || !ok(1) {
        return None;
    }
    let (mut lo, mut hi) = (1u32, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) { lo = mid } else { hi = mid - 1 }
    }
    Some(lo)
}

/// The settings that alone would let vLLM start where `engine` does not (see
/// [`VllmKvPool::start_levers`]).
fn start_levers(
    m: &LlmModel,
    engine: &VllmEngine,
    memory_gib: f64,
    weights_bytes: f64,
    tp: u32,
    kv_bytes_per_sequence: f64,
) -> Vec<VllmLever> {
    let pool = |e: &VllmEngine| {
        let p = pool_parts(m, e, memory_gib, weights_bytes, tp, kv_bytes_per_sequence);
        (p.kv_pool_gib, p.holds_one_sequence)
    };
    let mut levers = Vec::new();
    let seqs =
        largest_passing(engine.max_num_seqs.saturating_sub(1), |n| pool(&VllmEngine { max_num_seqs: n, ..*engine }).1);
    if let Some(n) = seqs {
        let kv_pool_gib = pool(&VllmEngine { max_num_seqs: n, ..*engine }).0;
        levers.push(VllmLever::MaxNumSeqs { value: n, kv_pool_gib });
    }
    let tokens = largest_passing(engine.max_num_batched_tokens.saturating_sub(1), |t| {
        pool(&VllmEngine { max_num_batched_tokens: t, ..*engine }).1
    });
    // vLLM refuses `max_num_batched_tokens < max_num_seqs` (vllm/config/scheduler.py,
    // `SchedulerConfig._verify_args`: "must be greater than or equal to max_num_seqs"), so
    // the tokens go no lower than the sequences.
    if let Some(t) = tokens.filter(|&t| t >= engine.max_num_seqs) {
        let kv_pool_gib = pool(&VllmEngine { max_num_batched_tokens: t, ..*engine }).0;
        levers.push(VllmLever::MaxNumBatchedTokens { value: t, kv_pool_gib });
    }
    // Utilization in hundredths, above the one used, leaving room for the CUDA graphs.
    let total_gib = memory_gib * CUDA_VISIBLE_FRACTION;
    let used = (engine.gpu_memory_utilization * 100.0).round() as u32;
    let util = (used + 1..=99).find(|&u| {
        let v = f64::from(u) / 100.0;
        (1.0 - v) * total_gib >= VLLM_CUDA_GRAPHS_GIB && pool(&VllmEngine { gpu_memory_utilization: v, ..*engine }).1
    });
    if let Some(u) = util {
        let value = f64::from(u) / 100.0;
        let kv_pool_gib = pool(&VllmEngine { gpu_memory_utilization: value, ..*engine }).0;
        levers.push(VllmLever::GpuMemoryUtilization { value, kv_pool_gib });
    }
    levers
}

/// Weight bytes vLLM holds for `model` at the workload's precision on `gpu`: MXFP4 experts on a
/// GPU without FP4 tensor cores run through vLLM's Marlin MoE, which pads the expert
/// intermediate size to a multiple of 128 and the hidden size to a multiple of 256
/// (`vllm/model_executor/layers/quantization/mxfp4.py`, `create_weights`): gpt-oss-120b
/// loads at 65.97 GiB on an H100 (vLLM issue 23278, "Model loading took 65.9651 GiB") against
/// 60.8 GiB of checkpoint.
fn vllm_weight_bytes(input: &FitInput, gpu: &Gpu, per_gpu_bytes: f64) -> f64 {
    let m = &input.model;
    let blackwell = gpu.architecture.to_ascii_lowercase().contains("blackwell");
    match (group_formats(m, input.weight_precision), &m.experts) {
        (Some(GroupFormats { experts: TensorFormat::Mxfp4, .. }), Some(e)) if !blackwell => {
            let round = |x: f64, k: f64| (x / k).ceil() * k;
            let inter = f64::from(e.intermediate);
            let hidden = f64::from(m.hidden);
            let pad = round(inter, 128.0) * round(hidden, 256.0) / (inter * hidden);
            let g = param_groups(m);
            let experts = g.experts * TensorFormat::Mxfp4.bytes_per_weight();
            let share = per_gpu_bytes / super::shape::weight_bytes(m, input.weight_precision).max(1.0);
            per_gpu_bytes + experts * (pad - 1.0) * share
        }
        _ => per_gpu_bytes,
    }
}

/// Peak bytes of the profiling forward over `tokens` tokens on one of `tp` ranks.
fn profile_forward_bytes(m: &LlmModel, tokens: u32, tp: u32) -> f64 {
    let hidden = f64::from(m.hidden);
    let ffn_units = match &m.experts {
        // Fused MoE: per token `top_k` experts, each a gate/up (2 × inter) and an activated
        // product (inter), 3 units × 2 bytes, plus the experts' 16-bit outputs (top_k × hidden
        // × 2 bytes = 6 bytes × hidden / 3) before the sum.
        Some(e) => f64::from(e.per_token) * (f64::from(e.intermediate) + hidden / 3.0),
        None => m.intermediate.map_or(4.0 * hidden, f64::from),
    };
    f64::from(tokens) * (VLLM_PROFILE_FFN_BYTES * ffn_units / f64::from(tp.max(1)) + VLLM_PROFILE_HIDDEN_BYTES * hidden)
}

/// Peak bytes of V1's dummy sampler step over `seqs` sequences.
fn sampler_bytes(m: &LlmModel, seqs: u32) -> f64 {
    VLLM_SAMPLER_LOGIT_COPIES * f64::from(seqs) * f64::from(m.vocab) * 4.0
}

/// The KV pool of the fullest GPU of a vLLM plan: `weights_per_gpu` are the bytes the
/// estimate places on each GPU (its TP/PP share), `gpus` those GPUs. `None` for training.
pub(crate) fn kv_pool(input: &FitInput, gpus: &[GpuSlot], weights_per_gpu: &[f64]) -> Option<VllmKvPool> {
    if input.mode.is_training() || gpus.is_empty() {
        return None;
    }
    let m = &input.model;
    let tp = input.parallelism.tp_degree().max(1);
    let stages = match input.parallelism {
        Parallelism::LayerSplit(n) => n.max(1),
        Parallelism::TensorPipeline { pp, .. } => pp.max(1),
        _ => 1,
    };
    let util = input.gpu_memory_utilization.unwrap_or(VLLM_DEFAULT_GPU_MEMORY_UTILIZATION);
    // vLLM takes the minimum over workers; the smallest GPU decides the defaults too.
    let smallest = gpus.iter().min_by(|a, b| a.gpu.memory_gib.total_cmp(&b.gpu.memory_gib))?;
    let (def_tokens, def_seqs) = default_batch_limits(&smallest.gpu);
    let engine = VllmEngine {
        gpu_memory_utilization: util,
        max_num_batched_tokens: input.max_num_batched_tokens.unwrap_or(def_tokens),
        max_num_seqs: input.max_num_seqs.unwrap_or(def_seqs),
        max_model_len: input.context_tokens,
        sampler_profiled: true,
    };
    let per_seq = kv_cache_bytes(m, input.kv_precision, input.context_tokens, 1, tp) / f64::from(stages);
    gpus.iter()
        .zip(weights_per_gpu)
        .map(|(slot, &w)| {
            let weights = vllm_weight_bytes(input, &slot.gpu, w);
            pool_from_parts(m, &engine, slot.gpu.memory_gib, weights, tp, per_seq)
        })
        .min_by(|a, b| a.kv_pool_gib.total_cmp(&b.kv_pool_gib))
}

/// The pool of one GPU of `memory_gib` nominal memory holding `weights_bytes`, at TP degree
/// `tp`, where one sequence of `engine.max_model_len` needs `kv_bytes_per_sequence` on it.
pub fn pool_from_parts(
    m: &LlmModel,
    engine: &VllmEngine,
    memory_gib: f64,
    weights_bytes: f64,
    tp: u32,
    kv_bytes_per_sequence: f64,
) -> VllmKvPool {
    let PoolParts { reservation_gib, profile_activations_gib, non_torch_gib, kv_pool_gib, holds_one_sequence } =
        pool_parts(m, engine, memory_gib, weights_bytes, tp, kv_bytes_per_sequence);
    let total_gib = memory_gib * CUDA_VISIBLE_FRACTION;
    let weights_gib = weights_bytes / GIB;
    let per_seq = kv_bytes_per_sequence.max(1.0);
    let max_concurrency = (kv_pool_gib * GIB / per_seq).max(0.0);
    let max_model_len = engine.max_model_len.max(1);
    // vLLM: num_tokens = max_concurrency × max_model_len (kv_cache_utils.py).
    let kv_tokens = (max_concurrency * f64::from(max_model_len)).floor() as u64;
    let start_levers = if holds_one_sequence {
        Vec::new()
    } else {
        start_levers(m, engine, memory_gib, weights_bytes, tp, kv_bytes_per_sequence)
    };
    let log_lines = vec![
        format!("GPU KV cache size: {} tokens", thousands(kv_tokens)),
        format!(
            "Maximum concurrency for {} tokens per request: {:.2}x",
            thousands(u64::from(max_model_len)),
            max_concurrency
        ),
    ];
    VllmKvPool {
        engine: *engine,
        total_gib,
        reservation_gib,
        weights_gib,
        profile_activations_gib,
        non_torch_gib,
        cuda_graphs_gib: VLLM_CUDA_GRAPHS_GIB,
        kv_pool_gib,
        kv_bytes_per_sequence: per_seq,
        kv_tokens,
        max_concurrency,
        holds_one_sequence,
        log_lines,
        start_levers,
    }
}

/// The parts of [`pool_from_parts`]' pool, GiB, and whether it holds one sequence of
/// `engine.max_model_len` (the one computation the pool and its start levers share).
struct PoolParts {
    reservation_gib: f64,
    profile_activations_gib: f64,
    non_torch_gib: f64,
    kv_pool_gib: f64,
    holds_one_sequence: bool,
}

/// See [`PoolParts`].
fn pool_parts(
    m: &LlmModel,
    engine: &VllmEngine,
    memory_gib: f64,
    weights_bytes: f64,
    tp: u32,
    kv_bytes_per_sequence: f64,
) -> PoolParts {
    let reservation_gib = engine.gpu_memory_utilization * memory_gib * CUDA_VISIBLE_FRACTION;
    let forward = profile_forward_bytes(m, engine.max_num_batched_tokens, tp);
    let sampler = if engine.sampler_profiled {
        sampler_bytes(m, engine.max_num_seqs.min(engine.max_num_batched_tokens))
    } else {
        0.0
    };
    let profile_activations_gib = forward.max(sampler) / GIB;
    let non_torch_gib = VLLM_NON_TORCH_GIB + if tp > 1 { VLLM_NON_TORCH_TP_EXTRA_GIB } else { 0.0 };
    let kv_pool_gib = reservation_gib - weights_bytes / GIB - profile_activations_gib - non_torch_gib;
    PoolParts {
        reservation_gib,
        profile_activations_gib,
        non_torch_gib,
        kv_pool_gib,
        holds_one_sequence: kv_pool_gib * GIB / kv_bytes_per_sequence.max(1.0) >= 1.0,
    }
}

/// Longest `max_model_len` one sequence of which the pool holds, tokens (≤ the model's
/// maximum); `None` when the pool is empty. The pool does not depend on `max_model_len` in V1.
pub(crate) fn longest_context(input: &FitInput, pool: &VllmKvPool) -> Option<u32> {
    if pool.kv_pool_gib <= 0.0 {
        return None;
    }
    let tp = input.parallelism.tp_degree().max(1);
    let stages = match input.parallelism {
        Parallelism::LayerSplit(n) => n.max(1),
        Parallelism::TensorPipeline { pp, .. } => pp.max(1),
        _ => 1,
    };
    let bytes = |t: u32| kv_cache_bytes(&input.model, input.kv_precision, t, 1, tp) / f64::from(stages);
    let budget = pool.kv_pool_gib * GIB;
    let cap = input.model.max_context.max(1);
    if bytes(cap) <= budget {
        return Some(cap);
    }
    if bytes(1) > budget {
        return None;
    }
    let (mut lo, mut hi) = (1u32, cap);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if bytes(mid) <= budget { lo = mid } else { hi = mid }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn token_counts_print_as_vllm_prints_them() {
        assert_eq!(thousands(2_042_016), "2,042,016");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(0), "0");
    }
}

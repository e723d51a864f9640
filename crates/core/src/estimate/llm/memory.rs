//! Memory per GPU: weights, KV cache, activations, gradients, optimizer states, runtime and
//! headroom; the fit verdict; the longest context that fits.

use super::calibration::{ACT_BYTES, CUDA_CONTEXT_GIB, GIB, TRAINING_BUFFERS_GIB, TRAINING_HEADROOM_FRACTION};
use super::inputs::{FitInput, GpuSlot, Runtime};
use super::report::{FitVerdict, MemoryBreakdown};
use super::shape::{Share, ffn_dim, input_weight_parts, kv_cache_bytes_layers};

/// FP32 logits of the last position of each sequence during inference, bytes per entry.
pub(crate) const INFERENCE_LOGIT_BYTES: f64 = 4.0;

/// Inference activation bytes on a GPU holding share `sh` at `tokens` of context.
fn activation_bytes(input: &FitInput, runtime: Runtime, sh: &Share, tokens: u32) -> f64 {
    let m = &input.model;
    let hidden = f64::from(m.hidden);
    let vocab = f64::from(m.vocab);
    // One prompt chunk through a layer: residual, norm, q/k/v, attention out (~4h)
    // and the gate/up FFN pair (2 × ffn), 16-bit; logits of the batch in FP32.
    let chunk = f64::from(runtime.chunk_tokens().min(tokens.max(1)));
    let work = chunk * (4.0 * hidden + 2.0 * ffn_dim(m)) * ACT_BYTES * sh.width;
    let logits = if sh.has_head { f64::from(sh.batch) * vocab * INFERENCE_LOGIT_BYTES } else { 0.0 };
    work + logits
}

/// Memory of every GPU used at `tokens` of context.
pub(super) fn memory(
    input: &FitInput,
    gpus: &[GpuSlot],
    shares: &[Share],
    runtime: Runtime,
    tokens: u32,
) -> Vec<MemoryBreakdown> {
    // Training allocates as its framework does ([`super::train::memory`]).
    if input.mode.is_training() {
        let setup = super::train::setup(input);
        return super::train::memory::memory(input, setup, gpus, shares, tokens);
    }
    let m = &input.model;
    let layers = f64::from(m.layers);
    let tp = input.parallelism.tp_degree();
    let (embed_b, head_b, body_b) = input_weight_parts(input, input.resolved_runtime(), false);
    shares
        .iter()
        .zip(gpus)
        .map(|(sh, slot)| {
            let layer_frac = f64::from(sh.layers.end - sh.layers.start) / layers;
            let embed_here = sh.has_embedding && !runtime.embedding_on_host();
            let weights = sh.width
                * (body_b * layer_frac
                    + if embed_here { embed_b } else { 0.0 }
                    + if sh.has_head { head_b } else { 0.0 });
            let kv = kv_cache_bytes_layers(m, input.kv_precision, sh.layers.clone(), tokens, sh.batch, tp);
            let activations = activation_bytes(input, runtime, sh, tokens);
            breakdown(input, runtime, slot, [weights, kv, activations, 0.0, 0.0])
        })
        .collect()
}

/// The breakdown of one GPU from its byte counts `[weights, kv, activations, gradients,
/// optimizer]`, adding the runtime's buffers and headroom.
fn breakdown(input: &FitInput, runtime: Runtime, slot: &GpuSlot, bytes: [f64; 5]) -> MemoryBreakdown {
    let training = input.mode.is_training();
    let [weights, kv, activations, gradients, optimizer] = bytes.map(|b| b / GIB);
    let runtime_gib = CUDA_CONTEXT_GIB + if training { TRAINING_BUFFERS_GIB } else { runtime.buffers_gib() };
    let headroom_frac = match input.gpu_memory_utilization {
        _ if training => TRAINING_HEADROOM_FRACTION,
        Some(u) if runtime == Runtime::Vllm => 1.0 - u,
        _ => runtime.headroom_fraction(),
    };
    let total_gib = weights + kv + activations + gradients + optimizer + runtime_gib;
    let headroom_gib = headroom_frac * slot.gpu.memory_gib;
    MemoryBreakdown {
        weights_gib: weights,
        kv_cache_gib: kv,
        activations_gib: activations,
        gradients_gib: gradients,
        optimizer_gib: optimizer,
        runtime_gib,
        total_gib,
        headroom_gib,
        required_gib: total_gib + headroom_gib,
    }
}

pub(super) fn verdict(mem: &MemoryBreakdown, capacity_gib: f64) -> FitVerdict {
    if mem.required_gib <= capacity_gib {
        FitVerdict::Fits
    } else if mem.total_gib <= capacity_gib {
        FitVerdict::Tight
    } else {
        FitVerdict::DoesNotFit
    }
}

/// Longest context (tokens, ≤ the model's maximum) at which every GPU still fits with its
/// headroom; `None` when even one token does not.
pub(super) fn max_context(input: &FitInput, gpus: &[GpuSlot], sh: &[Share], runtime: Runtime) -> Option<u32> {
    let fits = |tokens: u32| {
        memory(input, gpus, sh, runtime, tokens)
            .iter()
            .zip(gpus)
            .all(|(mem, slot)| mem.required_gib <= slot.gpu.memory_gib)
    };
    let cap = input.model.max_context.max(1);
    if !fits(1) {
        return None;
    }
    if fits(cap) {
        return Some(cap);
    }
    let (mut lo, mut hi) = (1u32, cap);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

//! Memory per GPU: weights, KV cache, activations, gradients, optimizer states, runtime and
//! headroom; the fit verdict; the longest context that fits.

use super::calibration::{
    ACT_BYTES, CUDA_CONTEXT_GIB, GIB, NF4_BITS, TRAINING_BUFFERS_GIB, TRAINING_HEADROOM_FRACTION,
};
use super::inputs::{FitInput, GpuSlot, Mode, Optimizer, Parallelism, Precision, Runtime};
use super::report::{FitVerdict, MemoryBreakdown};
use super::shape::{
    Share, ffn_dim, input_weight_parts, kv_cache_bytes_layers, lora_params, table_params, weight_parts_bytes,
};

/// Bytes of activations a transformer layer stores per token and hidden unit for backward
/// with 16-bit activations, beside the attention scores: Korthikanti et al. 2022, "Reducing
/// Activation Recomputation in Large Transformer Models" (arXiv:2205.05198), equation 1:
/// `s·b·h·(34 + 5·a·s/h)` bytes per layer.
pub const ACTIVATION_BYTES_PER_TOKEN_HIDDEN: f64 = 34.0;
/// Factor of the attention-score term in the same equation (`5·a·s/h`): softmax input and
/// output, dropout mask; zero under `FlashAttention`, which never materializes the scores.
pub const ATTENTION_SCORE_FACTOR: f64 = 5.0;
/// Bytes per token and hidden unit a checkpointed layer keeps: its 16-bit input (Korthikanti
/// et al. 2022, section 4: full recomputation stores `2·s·b·h` per layer).
pub const CHECKPOINT_BYTES_PER_TOKEN_HIDDEN: f64 = 2.0;
/// FP32 logits and their gradient during training, bytes per vocabulary entry and token.
pub const TRAINING_LOGIT_BYTES: f64 = 8.0;
/// FP32 logits of the last position of each sequence during inference, bytes per entry.
pub const INFERENCE_LOGIT_BYTES: f64 = 4.0;
/// FP32 master copy of a trained 16-bit weight, bytes (EleutherAI, "Transformer Math 101",
/// mixed-precision `AdamW`: 4 bytes master + 4 momentum + 4 variance).
pub const FP32_MASTER_BYTES: f64 = 4.0;
/// `AdamW` momentum and variance in FP32, bytes per trained parameter (Transformer Math 101).
pub const ADAMW_STATE_BYTES: f64 = 8.0;
/// 8-bit `AdamW` momentum and variance (bitsandbytes block-wise 8-bit states, Dettmers et al.
/// 2022, "8-bit Optimizers via Block-wise Quantization"), bytes per trained parameter.
pub const ADAMW_8BIT_STATE_BYTES: f64 = 2.0;
/// Bytes of a `LoRA` adapter weight and of its gradient (BF16/FP16).
pub const ADAPTER_BYTES: f64 = 2.0;

/// Trained parameters and bytes per trained parameter for (weights, gradients, optimizer).
fn trained_bytes(input: &FitInput) -> (f64, f64, f64, f64) {
    let states = match input.optimizer {
        Optimizer::AdamW => ADAMW_STATE_BYTES,
        Optimizer::AdamW8bit => ADAMW_8BIT_STATE_BYTES,
    };
    match input.mode {
        Mode::Inference => (0.0, 0.0, 0.0, 0.0),
        Mode::FullFineTune => {
            let w = input.weight_precision.bytes_per_element();
            let master = if w >= FP32_MASTER_BYTES { 0.0 } else { FP32_MASTER_BYTES };
            (input.model.params_b * 1e9, w, w, master + states)
        }
        Mode::Lora | Mode::Qlora => {
            (lora_params(&input.model, input.lora_rank), ADAPTER_BYTES, ADAPTER_BYTES, FP32_MASTER_BYTES + states)
        }
    }
}

/// Base weight bytes by part (embedding, head, body): `QLoRA` holds the body in NF4 and, as
/// bitsandbytes does, the embeddings and LM head in 16 bits.
fn base_weight_parts(input: &FitInput) -> (f64, f64, f64) {
    let m = &input.model;
    if input.mode == Mode::Qlora {
        let (e, hd, _) = weight_parts_bytes(m, Precision::Bf16);
        let (_, _, b) = weight_parts_bytes(m, Precision::Bpw(NF4_BITS));
        (e, hd, b)
    } else {
        input_weight_parts(input, input.resolved_runtime(), false)
    }
}

/// Activation bytes on GPU `i` of `n` holding share `sh` at `tokens` of context.
fn activation_bytes(input: &FitInput, runtime: Runtime, sh: &Share, i: usize, n: usize, tokens: u32) -> f64 {
    let m = &input.model;
    let hidden = f64::from(m.hidden);
    let vocab = f64::from(m.vocab);
    let seq = f64::from(tokens);
    if input.mode.is_training() {
        let tp = input.parallelism.tp_degree();
        let b = f64::from(input.batch);
        let sbh = seq * b * hidden;
        let heads = f64::from(m.heads);
        let scores = if input.flash_attention { 0.0 } else { ATTENTION_SCORE_FACTOR * heads * seq / hidden };
        let full_layer = sbh * (ACTIVATION_BYTES_PER_TOKEN_HIDDEN + scores);
        let here = f64::from(sh.layers.end - sh.layers.start);
        let per_microbatch = if input.gradient_checkpointing {
            CHECKPOINT_BYTES_PER_TOKEN_HIDDEN * sbh * here + if here > 0.0 { full_layer } else { 0.0 }
        } else {
            full_layer * here
        };
        // 1F1B pipeline: stage i holds up to n - i micro-batches in flight.
        let in_flight = match input.parallelism {
            Parallelism::LayerSplit(_) => ((n - i) as f64).min(f64::from(input.gradient_accumulation.max(1))),
            Parallelism::TensorPipeline { tp, pp } => {
                let left = (pp as usize).saturating_sub(i / tp.max(1) as usize).max(1);
                (left as f64).min(f64::from(input.gradient_accumulation.max(1)))
            }
            _ => 1.0,
        };
        let logits = if sh.has_head { seq * b * vocab * TRAINING_LOGIT_BYTES } else { 0.0 };
        (per_microbatch * in_flight + logits) / f64::from(tp)
    } else {
        // One prompt chunk through a layer: residual, norm, q/k/v, attention out (~4h)
        // and the gate/up FFN pair (2 × ffn), 16-bit; logits of the batch in FP32.
        let chunk = f64::from(runtime.chunk_tokens().min(tokens.max(1)));
        let work = chunk * (4.0 * hidden + 2.0 * ffn_dim(m)) * ACT_BYTES * sh.width;
        let logits = if sh.has_head { f64::from(sh.batch) * vocab * INFERENCE_LOGIT_BYTES } else { 0.0 };
        work + logits
    }
}

/// Memory of every GPU used at `tokens` of context.
pub(super) fn memory(
    input: &FitInput,
    gpus: &[GpuSlot],
    shares: &[Share],
    runtime: Runtime,
    tokens: u32,
) -> Vec<MemoryBreakdown> {
    let m = &input.model;
    let training = input.mode.is_training();
    let layers = f64::from(m.layers);
    let tp = input.parallelism.tp_degree();
    let dp = match input.parallelism {
        Parallelism::DataParallel(d) if training => d,
        _ => 1,
    };
    let (embed_b, head_b, body_b) = base_weight_parts(input);
    let total_params = m.params_b * 1e9;
    let (trained, w_bytes, g_bytes, o_bytes) = trained_bytes(input);
    let zero = if dp > 1 { input.zero_stage } else { 0 };
    let dpf = f64::from(dp);
    let shard = |stage: u8| if zero >= stage { dpf } else { 1.0 };
    let n = shares.len();

    shares
        .iter()
        .zip(gpus)
        .enumerate()
        .map(|(i, (sh, slot))| {
            let layer_frac = f64::from(sh.layers.end - sh.layers.start) / layers;
            // Fraction of the whole model's parameters on this GPU (for trained states).
            let param_frac = match input.parallelism {
                Parallelism::TensorPipeline { .. } => {
                    let table = table_params(m).min(total_params / 4.0);
                    let body = total_params - 2.0 * table;
                    sh.width
                        * (body * layer_frac
                            + if sh.has_embedding { table } else { 0.0 }
                            + if sh.has_head { table } else { 0.0 })
                        / total_params
                }
                Parallelism::LayerSplit(_) => {
                    let table = table_params(m).min(total_params / 4.0);
                    let body = total_params - 2.0 * table;
                    (body * layer_frac
                        + if sh.has_embedding { table } else { 0.0 }
                        + if sh.has_head { table } else { 0.0 })
                        / total_params
                }
                _ => sh.width,
            };

            // Weights.
            let embed_here = sh.has_embedding && (training || !runtime.embedding_on_host());
            let base = sh.width
                * (body_b * layer_frac
                    + if embed_here { embed_b } else { 0.0 }
                    + if sh.has_head { head_b } else { 0.0 });
            let base = match input.mode {
                // Full fine-tune: the base is the trained weights, counted below.
                Mode::FullFineTune => 0.0,
                _ => base / shard(3),
            };
            let trained_here = trained * param_frac;
            let weights = base + trained_here * w_bytes / shard(3);
            let gradients = trained_here * g_bytes / shard(2);
            let optimizer = trained_here * o_bytes / shard(1);
            let kv = if training {
                0.0
            } else {
                kv_cache_bytes_layers(m, input.kv_precision, sh.layers.clone(), tokens, sh.batch, tp)
            };
            let activations = activation_bytes(input, runtime, sh, i, n, tokens);
            breakdown(input, runtime, slot, [weights, kv, activations, gradients, optimizer])
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

//! What a training framework allocates on each GPU: the frozen base, the trained weights, their
//! gradients and optimizer states (by optimizer and precision), sharded or offloaded as the
//! framework does, the activations kept for backward (with and without gradient
//! checkpointing), the logits of the loss, and the framework's own buffers.
//!
//! Figures and their sources:
//! - Activations per layer and token: Korthikanti et al. 2022, "Reducing Activation
//!   Recomputation in Large Transformer Models" (arXiv:2205.05198), equation 1, `sbh(34 +
//!   5as/h)` bytes for a GPT layer: attention `11sbh` (+ `5as²b` of scores, none under
//!   FlashAttention), MLP `19sbh`, two layer norms `4sbh`. A gated MLP (SwiGLU, every model of
//!   the catalog) keeps its input (`2sbh`) and the inputs of gate, up and down projections'
//!   backward (`3 × 2·s·b·f`) instead: [`layer_activation_bytes_per_token`]. Full
//!   recomputation keeps each layer's `2sbh` input (section 4) plus one layer recomputed.
//! - Model states under DeepSpeed ZeRO: DeepSpeed's own estimators,
//!   `estimate_zero2_model_states_mem_needs` (`deepspeed/runtime/zero/stage_1_and_2.py`: GPU
//!   `4·P + 16·P/n`, with CPU offload `2·P`) and `estimate_zero3_model_states_mem_needs`
//!   (`deepspeed/runtime/zero/stage3.py`: GPU `4·largest_layer + 18·P/n`, with CPU offload of
//!   parameters and optimizer `4·largest_layer`).
//! - Optimizer states: `torch.optim.AdamW` keeps `exp_avg` and `exp_avg_sq` in the parameter's
//!   dtype (2 states × its bytes); bitsandbytes 8-bit AdamW 2 × 1 byte (Dettmers et al. 2022);
//!   SGD with momentum 1 state; Adafactor a row and a column vector per matrix.
//! - PEFT adapters in FP32 (`get_peft_model(..., autocast_adapter_dtype=True)`, PEFT's default
//!   since 0.12); `prepare_model_for_kbit_training` casts the non-quantized modules
//!   (embeddings, LM head) of a 4-bit model to FP32 (PEFT `peft/utils/other.py`).
//! - torchtune: the model, its LoRA adapters and the optimizer states in BF16 (`dtype: bf16` of
//!   every recipe config); `8B_full_single_device` steps the optimizer inside backward
//!   (`optimizer_in_bwd: True`), so no full gradient is held.

use super::super::calibration::{CUDA_CONTEXT_GIB, GIB, NF4_BITS, TRAINING_BUFFERS_GIB, TRAINING_HEADROOM_FRACTION};
use super::super::inputs::{FitInput, GpuSlot, LoraTargets, Mode, Optimizer, Precision, Trainer};
use super::super::report::MemoryBreakdown;
use super::super::shape::{Share, ffn_dim, q_dim, table_params};
use super::{Setup, Sharding};

/// Bytes of one HF-style loss per vocabulary entry and token: the logits (BF16 2, or FP32 4
/// from an FP32 LM head), their FP32 upcast (4), the log-softmax `cross_entropy` saves for
/// backward (4), the FP32 gradient (4) and its cast back (2): 16 (Transformers
/// `LlamaForCausalLM.forward` upcasts `logits.float()` before the loss).
pub(crate) const HF_LOGIT_BYTES: f64 = 16.0;
/// torchtune's chunked cross-entropy (`CEWithChunkedOutputLoss`, 8 chunks, under
/// `torch.compile` as its README's table runs): the BF16 logits of every chunk kept for
/// backward (2) and one chunk's FP32 log-softmax at a time (4 / 8): 2.5 bytes per vocabulary
/// entry and token. First set to 7 (an FP32 upcast kept for every chunk); the held torchtune
/// rows (8B on one RTX 4090: 16.2 / 7.4 / 18.9 GiB) came out 27-48 % high with it, so those
/// rows are not wholly independent of this constant (said in `held.rs`).
pub(crate) const TORCHTUNE_LOGIT_BYTES: f64 = 2.5;
/// Unsloth's GPU working set per token and hidden unit beyond one layer's activations, bytes:
/// its gradient-checkpoint tensors go to host RAM and its fused cross-entropy never holds the
/// full logits, leaving the residual stream, norm and loss buffers. Fitted on one row, the
/// Unsloth README's Llama 3.1 8B QLoRA at 342,733 tokens on 80 GB (`tests/all/llm_train.rs`);
/// the README's other seven rows are held out.
pub(crate) const UNSLOTH_BYTES_PER_TOKEN_HIDDEN: f64 = 17.5;
/// Bytes of the layer input a checkpointed layer keeps per token and hidden unit (Korthikanti
/// et al. 2022, section 4).
pub(crate) const CHECKPOINT_BYTES: f64 = 2.0;
/// Layers whose full weights FSDP / ZeRO-3 hold at once on each rank: the one computing and
/// the one prefetched (FSDP `forward_prefetch`/`backward_prefetch` default `BACKWARD_PRE`).
pub(crate) const LAYERS_IN_FLIGHT: f64 = 2.0;

/// Activation bytes one layer keeps per token for backward, 16-bit activations: attention
/// `11h` and two norms `4h` (Korthikanti et al. 2022, eq. 1), the gated MLP's input `2h` and
/// its three projections' inputs `6f`; plus the attention scores `5·heads·seq` without
/// FlashAttention.
pub(crate) fn layer_activation_bytes_per_token(input: &FitInput) -> f64 {
    let m = &input.model;
    let h = f64::from(m.hidden);
    let scores = if input.flash_attention { 0.0 } else { 5.0 * f64::from(m.heads) * f64::from(input.context_tokens) };
    17.0 * h + 6.0 * ffn_dim(m) + scores
}

/// Adapter parameters of `LoRA` at `rank` on `targets` of every layer: `rank × (in + out)` per
/// adapted matrix, from the model's shape (q: `h → heads·head_dim`, k and v: `h → kv_heads·
/// head_dim`, o: back to `h`, gate and up: `h → f`, down: `f → h`).
pub(crate) fn adapter_params(input: &FitInput) -> f64 {
    let m = &input.model;
    let h = f64::from(m.hidden);
    let q = q_dim(m);
    let kvd = f64::from(m.kv_heads) * f64::from(m.head_dim);
    let f = ffn_dim(m);
    let per_layer = match input.lora_targets {
        LoraTargets::AllLinear => (h + q) + 2.0 * (h + kvd) + (q + h) + 2.0 * (h + f) + (f + h),
        LoraTargets::Attention => (h + q) + 2.0 * (h + kvd) + (q + h),
        LoraTargets::QueryValue => (h + q) + (h + kvd),
    };
    f64::from(input.lora_rank) * per_layer * f64::from(m.layers)
}

/// Parameters trained: every weight (full fine-tune) or the adapters.
pub(crate) fn trained_params(input: &FitInput) -> f64 {
    match input.mode {
        Mode::FullFineTune => input.model.params_b * 1e9,
        Mode::Lora | Mode::Qlora => adapter_params(input),
        Mode::Inference => 0.0,
    }
}

/// Bytes of a trained weight (and of its gradient): full fine-tune at the weight precision;
/// adapters in FP32 under PEFT, BF16 under torchtune.
pub(crate) fn trained_weight_bytes(input: &FitInput, trainer: Trainer) -> f64 {
    match input.mode {
        Mode::FullFineTune => input.weight_precision.bytes_per_element(),
        _ if trainer == Trainer::Torchtune => 2.0,
        _ => 4.0,
    }
}

/// Optimizer-state bytes per trained parameter whose weight is `w` bytes (see the module's
/// sources); Adafactor's two vectors per `h × h`-sized matrix are `2·4/h` per parameter.
pub(crate) fn optimizer_state_bytes(optimizer: Optimizer, w: f64, hidden: u32) -> f64 {
    match optimizer {
        Optimizer::AdamW => 2.0 * w,
        Optimizer::AdamW8bit | Optimizer::PagedAdamW8bit => 2.0,
        Optimizer::Sgd => w,
        Optimizer::Adafactor => 8.0 / f64::from(hidden.max(1)),
    }
}

/// Parameter groups of the model: (one embedding table, transformer body, tables counted).
fn groups(input: &FitInput) -> (f64, f64, f64) {
    let m = &input.model;
    let total = m.params_b * 1e9;
    let table = table_params(m).min(total / 4.0);
    let tables = if m.tied_embeddings { 1.0 } else { 2.0 };
    (table, total - tables * table, tables)
}

/// Bytes of the frozen base (LoRA, QLoRA) as the framework stores it: (body, tables).
fn frozen_bytes(input: &FitInput, setup: Setup) -> (f64, f64) {
    let (table, body, tables) = groups(input);
    match input.mode {
        Mode::Qlora => {
            // bitsandbytes NF4 body; the tables stay unquantized: FP32 after PEFT's
            // prepare_model_for_kbit_training (Transformers + PEFT, Axolotl, DeepSpeed), BF16
            // under Unsloth, torchtune and FSDP-QLoRA (`bnb_4bit_quant_storage=bfloat16`).
            let table_bytes = match setup.trainer {
                Trainer::HfPeft | Trainer::Axolotl | Trainer::DeepSpeed => 4.0,
                Trainer::Unsloth | Trainer::Torchtune | Trainer::Fsdp => 2.0,
            };
            (body * NF4_BITS / 8.0, table * tables * table_bytes)
        }
        Mode::Lora => {
            let b = input.weight_precision.bytes_per_element();
            (body * b, table * tables * b)
        }
        _ => (0.0, 0.0),
    }
}

/// The whole model's weights as the framework stores them for training, GiB: the NF4 body and
/// 16/32-bit tables of QLoRA, the base at its precision for LoRA and full fine-tunes (adapters
/// not counted).
pub(crate) fn base_weights_gib(input: &FitInput) -> f64 {
    let setup = super::setup(input);
    if input.mode == Mode::FullFineTune {
        input.model.params_b * 1e9 * input.weight_precision.bytes_per_element() / GIB
    } else {
        let (body, tables) = frozen_bytes(input, setup);
        (body + tables) / GIB
    }
}

/// One GPU's training memory, by component, bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::estimate::llm) struct GpuBytes {
    pub weights: f64,
    pub activations: f64,
    pub gradients: f64,
    pub optimizer: f64,
    /// Framework buffers beyond the CUDA context (DDP gradient buckets, the layers FSDP /
    /// ZeRO-3 gather).
    pub buffers: f64,
    /// Paged optimizer states (CUDA unified memory): not in `max_memory_allocated`, paged to
    /// host RAM when the GPU is full; counted here, not in the GPU's total.
    pub paged: f64,
}

/// Memory of GPU `i` holding share `sh` at micro-batch `batch` and sequence `seq`.
#[allow(clippy::many_single_char_names, reason = "the formulas' own symbols: n ranks, t trained, w, o bytes")]
pub(in crate::estimate::llm) fn gpu_bytes(
    input: &FitInput,
    setup: Setup,
    sh: &Share,
    batch: u32,
    seq: u32,
) -> GpuBytes {
    let m = &input.model;
    let n = f64::from(setup.dp.max(1));
    let layers = f64::from(m.layers.max(1));
    let here = f64::from(sh.layers.end - sh.layers.start);
    let (table, body, _) = groups(input);
    let layer_frac = here / layers;
    let (frozen_body, frozen_tables) = frozen_bytes(input, setup);
    let tables_here = f64::from(u8::from(sh.has_embedding)) + f64::from(u8::from(sh.has_head && !m.tied_embeddings));
    let tables_total = if m.tied_embeddings { 1.0 } else { 2.0 };
    let frozen = frozen_body * layer_frac + frozen_tables * tables_here / tables_total;
    let t_all = trained_params(input);
    // The trained share on this GPU: the layers it holds (a layer split), all of it otherwise.
    let t = match input.mode {
        Mode::FullFineTune => body * layer_frac + table * tables_here,
        _ => t_all * layer_frac,
    };
    let w = trained_weight_bytes(input, setup.trainer);
    let o = optimizer_state_bytes(input.optimizer, w, m.hidden);
    let paged = input.optimizer == Optimizer::PagedAdamW8bit;
    let layer_params = body / layers;
    let mut g = GpuBytes::default();
    match setup.sharding {
        Sharding::Replicated => {
            g.weights = frozen + t * w;
            // torchtune's single-device full fine-tune steps the optimizer in backward: one
            // parameter's gradient at a time (the largest, the embedding table).
            g.gradients = if setup.trainer == Trainer::Torchtune && input.mode == Mode::FullFineTune && n <= 1.0 {
                table * w
            } else {
                t * w
            };
            g.optimizer = t * o;
            // DDP copies gradients into its all-reduce buckets (`gradient_as_bucket_view=False`).
            if n > 1.0 {
                g.buffers = t * w;
            }
        }
        Sharding::Zero(stage) => {
            let full = input.mode == Mode::FullFineTune;
            let largest = table.max(layer_params / 7.0);
            if full {
                // DeepSpeed's estimators (module docs), split into their parts. They assume
                // mixed-precision Adam (FP32 master, momentum, variance): `--optimizer` does not
                // change a ZeRO full fine-tune here.
                match (stage, setup.offload) {
                    (3, false) => {
                        g.weights = 2.0 * t / n;
                        g.gradients = 4.0 * t / n;
                        g.optimizer = 12.0 * t / n;
                        g.buffers = 4.0 * largest;
                    }
                    (3, true) => g.buffers = 4.0 * largest,
                    (_, false) => {
                        g.weights = 2.0 * t;
                        g.gradients = 2.0 * t + 4.0 * t / n;
                        g.optimizer = 12.0 * t / n;
                    }
                    (_, true) => g.weights = 2.0 * t,
                }
            } else {
                let shard = |s: u8| if stage >= s { n } else { 1.0 };
                let off = |s: u8| if setup.offload && stage >= s { 0.0 } else { 1.0 };
                g.weights = (frozen + t * w) / shard(3) * off(3);
                g.gradients = t * w / shard(2);
                g.optimizer = t * o / shard(1) * off(1);
                if stage == 3 {
                    g.buffers = LAYERS_IN_FLIGHT * frozen_body / layers;
                }
            }
        }
        Sharding::Fsdp => {
            let off = if setup.offload { 0.0 } else { 1.0 };
            g.weights = (frozen + t * w) / n * off;
            g.gradients = t * w / n * off;
            g.optimizer = t * o / n * off;
            // The layers gathered for compute (and, for a full fine-tune, their gradients
            // before the reduce-scatter).
            let layer_bytes = frozen_body / layers + t_all.min(body) / layers * w;
            g.buffers = LAYERS_IN_FLIGHT * layer_bytes * if input.mode == Mode::FullFineTune { 2.0 } else { 1.0 };
        }
    }
    if paged {
        g.paged = g.optimizer;
        g.optimizer = 0.0;
    }
    g.activations = activation_bytes(input, setup, sh, batch, seq);
    g
}

/// Activation bytes of one micro-batch on a GPU holding share `sh`.
fn activation_bytes(input: &FitInput, setup: Setup, sh: &Share, batch: u32, seq: u32) -> f64 {
    let m = &input.model;
    let h = f64::from(m.hidden);
    let tokens = f64::from(batch) * f64::from(seq);
    let here = f64::from(sh.layers.end - sh.layers.start);
    let mut at_seq = input.clone();
    at_seq.context_tokens = seq;
    let layer = layer_activation_bytes_per_token(&at_seq) * tokens;
    let body = match (input.gradient_checkpointing, setup.trainer) {
        (false, _) => layer * here,
        // Unsloth's checkpoints live in host RAM; on the GPU one layer and its working set.
        (true, Trainer::Unsloth) => layer + UNSLOTH_BYTES_PER_TOKEN_HIDDEN * h * tokens,
        (true, _) => CHECKPOINT_BYTES * h * tokens * here + if here > 0.0 { layer } else { 0.0 },
    };
    let logit_bytes = match setup.trainer {
        Trainer::Torchtune => TORCHTUNE_LOGIT_BYTES,
        // Unsloth's fused loss: inside its fitted per-token working set.
        Trainer::Unsloth if input.gradient_checkpointing => 0.0,
        Trainer::HfPeft | Trainer::Axolotl | Trainer::DeepSpeed | Trainer::Fsdp | Trainer::Unsloth => HF_LOGIT_BYTES,
    };
    let logits = if sh.has_head { tokens * f64::from(m.vocab) * logit_bytes } else { 0.0 };
    body + logits
}

/// The breakdown of every GPU used: [`gpu_bytes`] in GiB, the CUDA context and training
/// buffers, and the training headroom.
pub(in crate::estimate::llm) fn memory(
    input: &FitInput,
    setup: Setup,
    gpus: &[GpuSlot],
    shares: &[Share],
    seq: u32,
) -> Vec<MemoryBreakdown> {
    shares
        .iter()
        .zip(gpus)
        .map(|(sh, slot)| {
            let g = gpu_bytes(input, setup, sh, input.batch, seq);
            let runtime_gib = CUDA_CONTEXT_GIB + TRAINING_BUFFERS_GIB + g.buffers / GIB;
            let [weights, activations, gradients, optimizer] =
                [g.weights, g.activations, g.gradients, g.optimizer].map(|b| b / GIB);
            let total_gib = weights + activations + gradients + optimizer + runtime_gib;
            let headroom_gib = TRAINING_HEADROOM_FRACTION * slot.gpu.memory_gib;
            MemoryBreakdown {
                weights_gib: weights,
                kv_cache_gib: 0.0,
                activations_gib: activations,
                gradients_gib: gradients,
                optimizer_gib: optimizer,
                runtime_gib,
                total_gib,
                headroom_gib,
                required_gib: total_gib + headroom_gib,
            }
        })
        .collect()
}

/// Whether the precision can be a LoRA base in 16 bits (not a GGUF file).
pub(in crate::estimate::llm) fn lora_base_ok(p: Precision) -> bool {
    !p.is_gguf()
}

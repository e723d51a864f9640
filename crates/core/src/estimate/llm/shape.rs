//! Model arithmetic: weight bytes by part, KV bytes per token and layer, attended tokens under
//! sliding windows, LoRA parameters, tensor peaks, and each GPU's share of the model.

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use super::calibration::GIB;
use super::inputs::{FitInput, GpuSlot, Parallelism, Precision, Runtime};
use kraftwerk_catalog::{Attention, Gpu, LlmModel, TensorFormat, TensorRate};

/// Embedding-table parameters (vocab × hidden), one table.
pub(super) fn table_params(model: &LlmModel) -> f64 {
    f64::from(model.vocab) * f64::from(model.hidden)
}

/// Weight bytes split into (token embedding, LM head, transformer layers).
///
/// A tied model (`tied_embeddings`) stores one table: its LM head is 0 here and its layers are
/// the total less one table (untied: less two). Formats that
/// keep embeddings 16-bit ([`Precision::keeps_embeddings_16bit`]) store both tables at 2 bytes.
pub(super) fn weight_parts_bytes(model: &LlmModel, precision: Precision) -> (f64, f64, f64) {
    if let Some(formats) = group_formats(model, precision) {
        let g = param_groups(model);
        let head = if model.tied_embeddings { 0.0 } else { g.table * formats.embeddings.bytes_per_weight() };
        let body = g.experts * formats.experts.bytes_per_weight() + g.layers * formats.layers.bytes_per_weight();
        return (g.table * formats.embeddings.bytes_per_weight(), head, body);
    }
    let g = param_groups(model);
    // A GGUF label on a model released with MXFP4 experts (gpt-oss): the label's types for
    // everything but the routed experts, which stay MXFP4 ([`gguf_mxfp4_expert_bytes`]).
    if let Some(experts) = gguf_mxfp4_expert_bytes(model, precision) {
        let (embed, head, rest) = super::gguf_mix::parts_bytes(model, precision, (g.table, 0.0, g.layers))
            .unwrap_or_else(|| {
                let b = precision.bytes_per_element();
                (g.table * b, if model.tied_embeddings { 0.0 } else { g.table * b }, g.layers * b)
            });
        return (embed, head, rest + experts);
    }
    if let Some(parts) = super::gguf_mix::parts_bytes(model, precision, (g.table, g.experts, g.layers)) {
        return parts;
    }
    let total = model.params_b * 1e9;
    let table = table_params(model).min(total / 4.0);
    let tables = if model.tied_embeddings { 1.0 } else { 2.0 };
    let body = total - tables * table;
    let table_bytes = if precision.keeps_embeddings_16bit() { 2.0 } else { precision.bytes_per_element() };
    let head = if model.tied_embeddings { 0.0 } else { table * table_bytes };
    (table * table_bytes, head, body * precision.bytes_per_element())
}

/// Bytes of `model`'s routed experts in a GGUF file of label `precision` ([`Precision::is_gguf`])
/// when the model was released with its routed experts in MXFP4 (its checkpoint's `experts`
/// format: gpt-oss), `None` otherwise: such GGUF files keep the experts in MXFP4 (4.25 bits)
/// whatever their label, and only the other tensors take the label's types. The GGUF
/// converter writes gpt-oss's `*_blocks`/`*_scales` expert tensors as ggml's MXFP4 type
/// (https://github.com/ggml-org/llama.cpp/pull/15091, 2025-08-05) and the quantizers keep them:
/// unsloth's gpt-oss-120b `Q4_K_M` is 62.8 GB (49.6 + 13.1 GB,
/// https://huggingface.co/unsloth/gpt-oss-120b-GGUF/tree/main/Q4_K_M) beside 65.25 GB for the
/// MXFP4 + BF16 checkpoint, and its gpt-oss-20b files are 11.5 GB (`Q2_K`, `Q3_K_M`, `Q4_0`),
/// 11.6 GB (`Q4_K_M`) and 11.7 GB (`Q5_K_M`)
/// (https://huggingface.co/unsloth/gpt-oss-20b-GGUF/tree/main); bartowski's gpt-oss-20b quants
/// "keep the feed forward networks at mxfp4", Q6_K 12.04 GB beside MXFP4's 12.1 GB
/// (https://huggingface.co/bartowski/openai_gpt-oss-20b-GGUF).
pub(crate) fn gguf_mxfp4_expert_bytes(model: &LlmModel, precision: Precision) -> Option<f64> {
    let mxfp4 = model.checkpoint.as_ref().is_some_and(|c| c.experts == TensorFormat::Mxfp4);
    let routed = model.experts.as_ref().is_some_and(|e| e.routed > 0);
    (precision.is_gguf() && mxfp4 && routed)
        .then(|| param_groups(model).experts * TensorFormat::Mxfp4.bytes_per_weight())
}

/// Formats of the three tensor groups under a per-group precision ([`Precision::is_per_group`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupFormats {
    /// Routed MoE experts.
    pub experts: TensorFormat,
    /// The rest of the transformer layers (attention, dense FFN, shared experts, router).
    pub layers: TensorFormat,
    /// Token embedding and LM head.
    pub embeddings: TensorFormat,
}

/// The group formats `precision` gives `model`: `None` for a uniform precision, and for
/// [`Precision::Native`] on a model without a published [`kraftwerk_catalog::Checkpoint`].
/// `mxfp4` is gpt-oss's layout (experts MXFP4, the rest BF16; all layer weights of a dense
/// model); `nvfp4` and `fp8-block` quantize every layer weight; embeddings stay BF16.
pub fn group_formats(model: &LlmModel, precision: Precision) -> Option<GroupFormats> {
    use TensorFormat::{Bf16, Fp8Block, Mxfp4, Nvfp4};
    let moe = model.experts.is_some();
    let uniform = |f| GroupFormats { experts: f, layers: f, embeddings: Bf16 };
    match precision {
        Precision::Native => model.checkpoint.as_ref().map(|c| GroupFormats {
            experts: c.experts,
            layers: c.layers,
            embeddings: c.embeddings,
        }),
        Precision::Mxfp4 if moe => Some(GroupFormats { experts: Mxfp4, layers: Bf16, embeddings: Bf16 }),
        Precision::Mxfp4 => Some(uniform(Mxfp4)),
        Precision::Nvfp4 => Some(uniform(Nvfp4)),
        Precision::Fp8Block => Some(uniform(Fp8Block)),
        _ => None,
    }
}

/// Whether `precision` stores `model`'s weights in more bytes than its published checkpoint
/// (e.g. FP8 for gpt-oss, whose checkpoint is MXFP4 experts with BF16 layers): nobody upcasts a
/// published quantized checkpoint to serve it, so such a precision is never a default for a
/// model other than the one it was chosen for. `false` for a model without a checkpoint.
pub fn upcasts_checkpoint(model: &LlmModel, precision: Precision) -> bool {
    if model.checkpoint.is_none() || precision == Precision::Native {
        return false;
    }
    let (e, h, b) = weight_parts_bytes(model, precision);
    let (ne, nh, nb) = weight_parts_bytes(model, Precision::Native);
    e + h + b > ne + nh + nb
}

/// Parameters of a preset by tensor group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamGroups {
    /// One embedding table, `vocab × hidden` (the LM head is another unless tied).
    pub table: f64,
    /// Routed experts ([`LlmModel::expert_params_b`]).
    pub experts: f64,
    /// Everything else: `params_b` less the tables and the routed experts.
    pub layers: f64,
}

/// Splits `params_b` into embedding table, routed experts and the rest.
pub fn param_groups(model: &LlmModel) -> ParamGroups {
    let total = model.params_b * 1e9;
    let tables = if model.tied_embeddings { 1.0 } else { 2.0 };
    let table = table_params(model).min(total / 4.0);
    let experts = (model.expert_params_b() * 1e9).clamp(0.0, (total - tables * table).max(0.0));
    ParamGroups { table, experts, layers: (total - tables * table - experts).max(0.0) }
}

/// Bytes of the checkpoint as published: every group in its [`kraftwerk_catalog::Checkpoint`]
/// format, plus the tensors the files hold beyond the model (DeepSeek's multi-token
/// prediction layer). This is what the safetensors index's `metadata.total_size` counts;
/// `None` for a model without a checkpoint.
pub fn checkpoint_bytes(model: &LlmModel) -> Option<f64> {
    let c = model.checkpoint.as_ref()?;
    let (e, h, b) = weight_parts_bytes(model, Precision::Native);
    let extra_experts = c.extra_expert_params_b.max(0.0) * 1e9;
    let extra_rest = (c.extra_params_b * 1e9 - extra_experts).max(0.0);
    Some(e + h + b + extra_experts * c.experts.bytes_per_weight() + extra_rest * c.layers.bytes_per_weight())
}

/// Weight bytes of the workload's model split into (token embedding, LM head, layers): the
/// file's exact bytes when [`FitInput::file_weights`] is given, else [`weight_parts_bytes`].
///
/// A tied LM head (no tensor of its own) counts the embedding again where the runtime keeps a
/// GPU copy for the logits while the embedding stays in host RAM (llama.cpp duplicates
/// `token_embd` as the output tensor), and once otherwise; `for_reading` gives the bytes a
/// decode step reads (the tied table is read for the logits either way).
pub(super) fn input_weight_parts(input: &FitInput, runtime: Runtime, for_reading: bool) -> (f64, f64, f64) {
    let (embed, head, body, tied) = input.file_weights.map_or_else(
        || {
            let (e, h, b) = weight_parts_bytes(&input.model, input.weight_precision);
            (e, h, b, input.model.tied_embeddings)
        },
        |w| (w.embedding as f64, w.head as f64, w.body() as f64, w.tied_embeddings),
    );
    let head = if !tied {
        head
    } else if for_reading || (runtime.embedding_on_host() && !input.mode.is_training()) {
        embed
    } else {
        0.0
    };
    (embed, head, body)
}

/// Bytes of all weights of `model` at `precision` (for GGUF about the file size: Llama-3.1-8B
/// `Q4_K_M` 4.58 GiB, `Q8_0` 7.95 GiB, F16 14.96 GiB).
pub fn weight_bytes(model: &LlmModel, precision: Precision) -> f64 {
    let (embed, head, body) = weight_parts_bytes(model, precision);
    embed + head + body
}

/// [`weight_bytes`] in GiB.
pub fn weight_gib(model: &LlmModel, precision: Precision) -> f64 {
    weight_bytes(model, precision) / GIB
}

/// KV heads each tensor-parallel rank holds: `ceil(kv_heads / tp)`, at least 1 (vLLM
/// replicates KV heads when TP exceeds them).
pub fn kv_heads_per_rank(model: &LlmModel, tp: u32) -> u32 {
    model.kv_heads.div_ceil(tp.max(1)).max(1)
}

/// KV-cache bytes per token and layer on one TP rank: `2 × kv_heads/rank × head_dim × bytes`,
/// or for MLA one latent of `(kv_lora_rank + rope_head_dim) × bytes` (replicated per rank).
pub(super) fn kv_bytes_per_token_layer(model: &LlmModel, kv: Precision, tp: u32) -> f64 {
    let b = kv.bytes_per_element();
    match model.attention {
        Attention::Mla { kv_lora_rank, rope_head_dim } => f64::from(kv_lora_rank + rope_head_dim) * b,
        Attention::Full
        | Attention::SlidingWindow { .. }
        | Attention::Alternating { .. }
        | Attention::Interleaved { .. }
        | Attention::LinearHybrid { .. } => {
            2.0 * f64::from(kv_heads_per_rank(model, tp)) * f64::from(model.head_dim) * b
        }
    }
}

/// Bytes per element of a linear-attention layer's fixed state: BF16, the model's dtype, which
/// vLLM keeps both the convolution and the recurrent state in by default
/// (`mamba_cache_dtype` "auto"; `MambaStateDtypeCalculator.gated_delta_net_state_dtype`,
/// vllm/model_executor/layers/mamba/mamba_utils.py). llama.cpp keeps its recurrent states in
/// F32 (twice this); the state is under 1 % of Qwen3-Next's KV cache from 4K tokens on.
pub const LINEAR_STATE_BYTES_PER_ELEMENT: f64 = 2.0;

/// Fixed-state bytes of the linear-attention layers among `layers` for one sequence on one TP
/// rank (vLLM shards the linear heads over the ranks): 0 unless [`Attention::LinearHybrid`].
/// Qwen3-Next-80B-A3B: (32 × 128 × 128 + 3 × 8192) × 2 bytes = 1.05 MiB per layer, 37.7 MiB
/// over its 36 linear layers.
pub fn linear_state_bytes(model: &LlmModel, layers: std::ops::Range<u32>, tp: u32) -> f64 {
    let per_layer = model.attention.linear_state_elements() * LINEAR_STATE_BYTES_PER_ELEMENT / f64::from(tp.max(1));
    if per_layer == 0.0 {
        return 0.0;
    }
    let linear = layers.filter(|&i| model.attention.is_linear_layer(i)).count();
    per_layer * linear as f64
}

/// Window of layer `index`, tokens (`None` = attends over the whole context). Gemma 2
/// alternates: even layers are local (sliding), odd layers global.
pub(super) fn layer_window(model: &LlmModel, index: u32) -> Option<u32> {
    match model.attention {
        Attention::SlidingWindow { window } => Some(window),
        Attention::Alternating { window } if index.is_multiple_of(2) => Some(window),
        Attention::Interleaved { window, global_every } if !(index + 1).is_multiple_of(global_every.max(1)) => {
            Some(window)
        }
        Attention::Alternating { .. }
        | Attention::Interleaved { .. }
        | Attention::Full
        | Attention::Mla { .. }
        | Attention::LinearHybrid { .. } => None,
    }
}

/// Sums over the layers in `layers` of: tokens kept in the KV cache at context `s`, tokens
/// attended by the token at position `s` (decode), and tokens attended on average by the tokens
/// of an `s`-token prompt (prefill, causal). A linear-attention layer keeps and attends no
/// tokens: its fixed state is [`linear_state_bytes`].
pub(super) fn attended(model: &LlmModel, layers: std::ops::Range<u32>, s: f64) -> (f64, f64, f64) {
    let mut kept = 0.0;
    let mut decode = 0.0;
    let mut prefill = 0.0;
    for i in layers {
        if model.attention.is_linear_layer(i) {
            continue;
        }
        match layer_window(model, i).map(f64::from) {
            Some(w) if s > w => {
                kept += w;
                decode += w;
                prefill += w - w * w / (2.0 * s);
            }
            _ => {
                kept += s;
                decode += s;
                prefill += s / 2.0;
            }
        }
    }
    (kept, decode, prefill)
}

/// KV-cache bytes for `batch` sequences of `tokens` on one GPU holding `layers` at TP degree
/// `tp` (all layers and `tp = 1` for the whole model). Llama 3.1 8B at 128K tokens, FP16:
/// 2·32·8·128·131072·2 = 16 GiB. A hybrid linear-attention model adds each sequence's fixed
/// state ([`linear_state_bytes`]), which does not grow with `tokens`.
pub fn kv_cache_bytes(model: &LlmModel, kv: Precision, tokens: u32, batch: u32, tp: u32) -> f64 {
    kv_cache_bytes_layers(model, kv, 0..model.layers, tokens, batch, tp)
}

/// How a model keeps its context, for the whole model on one GPU (TP 1).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct KvLayout {
    /// KV-cache bytes one more token of context adds while no window is full (every layer
    /// that keeps a KV cache), bytes.
    pub bytes_per_token: f64,
    /// Layers that keep a KV cache.
    pub kv_layers: u32,
    /// Linear-attention layers that keep a fixed state instead.
    pub state_layers: u32,
    /// Their fixed state for one sequence, bytes.
    pub state_bytes_per_sequence: f64,
}

/// The [`KvLayout`] of `model` at KV precision `kv`. Qwen3-Next-80B-A3B at FP16: 12 full
/// layers × 2 × 2 KV heads × 256 × 2 bytes = 24 KiB per token; 36 linear layers × 1.05 MiB.
pub fn kv_layout(model: &LlmModel, kv: Precision) -> KvLayout {
    let state_layers = (0..model.layers).filter(|&i| model.attention.is_linear_layer(i)).count() as u32;
    let kv_layers = model.layers - state_layers;
    KvLayout {
        bytes_per_token: f64::from(kv_layers) * kv_bytes_per_token_layer(model, kv, 1),
        kv_layers,
        state_layers,
        state_bytes_per_sequence: linear_state_bytes(model, 0..model.layers, 1),
    }
}

pub(super) fn kv_cache_bytes_layers(
    model: &LlmModel,
    kv: Precision,
    layers: std::ops::Range<u32>,
    tokens: u32,
    batch: u32,
    tp: u32,
) -> f64 {
    let (kept, _, _) = attended(model, layers.clone(), f64::from(tokens));
    f64::from(batch) * (kept * kv_bytes_per_token_layer(model, kv, tp) + linear_state_bytes(model, layers, tp))
}

/// Width of the attention output (heads × head dim).
pub(super) fn q_dim(model: &LlmModel) -> f64 {
    f64::from(model.heads) * f64::from(model.head_dim)
}

/// FFN width: `intermediate`, else 4 × hidden.
pub(super) fn ffn_dim(model: &LlmModel) -> f64 {
    model.intermediate.map_or(4.0 * f64::from(model.hidden), f64::from)
}

/// Trainable `LoRA` parameters: rank × (in + out) for q, k, v, o, gate, up and down of every
/// layer (`QLoRA` paper's "all linear layers"; MoE models counted with one dense FFN).
pub fn lora_params(model: &LlmModel, rank: u32) -> f64 {
    let h = f64::from(model.hidden);
    let q = q_dim(model);
    let kvd = f64::from(model.kv_heads) * f64::from(model.head_dim);
    let ffn = ffn_dim(model);
    let per_layer = (h + q) + 2.0 * (h + kvd) + (q + h) + 2.0 * (h + ffn) + (ffn + h);
    f64::from(rank) * per_layer * f64::from(model.layers)
}

/// Peak dense tensor rate a precision runs at on a GPU, TFLOP/s, and its name.
///
/// BF16 → `bf16`; FP16 → `fp16` (FP32 accumulate), or `fp16_acc16` under llama.cpp and
/// `ExLlamaV2` on GeForce; FP8 → `fp8` where the GPU has FP8 tensor cores, FP16 (weight-only
/// FP8) where the catalog says it has none ([`kraftwerk_catalog::NoTensor::fp8`]), and `None` where
/// the FP8 rate is unknown (a chip with FP8 tensor cores would run FP8 at a rate nobody entered,
/// so no rate is given rather than the FP16 one); INT8 → `int8_tops`, else FP16; INT4, GGUF and
/// bpw formats → the FP16 rate (dequantized); FP32 → `fp32`. Training always uses the
/// FP32-accumulate BF16/FP16 rate.
pub fn compute_peak_tflops(
    gpu: &Gpu,
    precision: Precision,
    runtime: Runtime,
    training: bool,
) -> Option<(f64, &'static str)> {
    let p = &gpu.peak;
    let fp16 = || -> Option<(f64, &'static str)> {
        if !training
            && runtime.fp16_accumulate()
            && let Some(v) = p.fp16_acc16
        {
            return Some((v, "fp16 (fp16 accumulate)"));
        }
        p.fp16.map(|v| (v, "fp16")).or_else(|| p.bf16.map(|v| (v, "bf16")))
    };
    match precision {
        Precision::Fp32 => p.fp32.map(|v| (v, "fp32")),
        Precision::Bf16 => p.bf16.map(|v| (v, "bf16")).or_else(fp16),
        Precision::Fp8 if !training => match p.fp8_rate() {
            TensorRate::Known(v) => Some((v, "fp8")),
            TensorRate::Absent => fp16(),
            TensorRate::Unknown => None,
        },
        Precision::Int8 if !training => p.int8_tops.map(|v| (v, "int8")).or_else(fp16),
        _ if training => p.bf16.map(|v| (v, "bf16")).or_else(fp16),
        _ => fp16(),
    }
}

/// One GPU's share of the model.
#[derive(Debug, Clone)]
pub(super) struct Share {
    pub(super) layers: std::ops::Range<u32>,
    /// Fraction of each layer's weights held (1/TP, else 1).
    pub(super) width: f64,
    pub(super) has_embedding: bool,
    pub(super) has_head: bool,
    /// Sequences this GPU serves (data-parallel replicas split the batch).
    pub(super) batch: u32,
}

/// Splits `layers` over GPUs in proportion to their memory (llama.cpp's default `--tensor-split`
/// is proportional to free memory), largest remainder first.
pub(super) fn split_layers(layers: u32, capacities: &[f64]) -> Vec<u32> {
    let sum: f64 = capacities.iter().sum();
    let n = capacities.len();
    if n == 0 {
        return Vec::new();
    }
    let quotas: Vec<f64> = capacities
        .iter()
        .map(|c| if sum > 0.0 { f64::from(layers) * c / sum } else { f64::from(layers) / n as f64 })
        .collect();
    let mut counts: Vec<u32> = quotas.iter().map(|q| q.floor() as u32).collect();
    let mut left = layers.saturating_sub(counts.iter().sum::<u32>());
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        counts[i] += 1;
        left -= 1;
    }
    counts
}

pub(super) fn shares(input: &FitInput, gpus: &[GpuSlot]) -> Vec<Share> {
    let layers = input.model.layers;
    let n = gpus.len();
    match input.parallelism {
        Parallelism::Single => {
            vec![Share { layers: 0..layers, width: 1.0, has_embedding: true, has_head: true, batch: input.batch }]
        }
        Parallelism::TensorParallel(t) => (0..n)
            .map(|_| Share {
                layers: 0..layers,
                width: 1.0 / f64::from(t),
                has_embedding: true,
                has_head: true,
                batch: input.batch,
            })
            .collect(),
        Parallelism::DataParallel(d) => {
            let per = input.batch.div_ceil(d).max(1);
            (0..n)
                .map(|_| Share {
                    layers: 0..layers,
                    width: 1.0,
                    has_embedding: true,
                    has_head: true,
                    batch: if input.mode.is_training() { input.batch } else { per },
                })
                .collect()
        }
        Parallelism::TensorPipeline { tp, pp } => {
            // Layers over the stages in proportion to each stage's smallest GPU (vLLM splits
            // evenly; identical nodes give the same), heads over the stage's ranks.
            let tp_n = tp.max(1) as usize;
            let caps: Vec<f64> = (0..pp as usize)
                .map(|j| gpus.iter().skip(j * tp_n).take(tp_n).map(|g| g.gpu.memory_gib).fold(f64::INFINITY, f64::min))
                .map(|c| if c.is_finite() { c } else { 0.0 })
                .collect();
            let counts = split_layers(layers, &caps);
            let mut start = 0;
            let mut out = Vec::with_capacity(n);
            for (j, &c) in counts.iter().enumerate() {
                for _ in 0..tp_n {
                    out.push(Share {
                        layers: start..start + c,
                        width: 1.0 / f64::from(tp.max(1)),
                        has_embedding: j == 0,
                        has_head: j + 1 == counts.len(),
                        batch: input.batch,
                    });
                }
                start += c;
            }
            out.truncate(n);
            out
        }
        Parallelism::LayerSplit(_) => {
            let caps: Vec<f64> = gpus.iter().map(|g| g.gpu.memory_gib).collect();
            let counts = split_layers(layers, &caps);
            let mut start = 0;
            counts
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let s = Share {
                        layers: start..start + c,
                        width: 1.0,
                        has_embedding: i == 0,
                        has_head: i + 1 == n,
                        batch: input.batch,
                    };
                    start += c;
                    s
                })
                .collect()
        }
    }
}

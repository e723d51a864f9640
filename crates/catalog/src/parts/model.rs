//! LLM model presets.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- LLM models

/// Attention layout, which decides the KV cache size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Attention {
    /// Every layer attends over the whole context (MHA or GQA by `kv_heads`).
    Full,
    /// Every layer attends over at most `window` tokens (Mistral 7B v0.1).
    SlidingWindow {
        /// Window, tokens.
        window: u32,
    },
    /// Alternating layers: every other layer is sliding-window (Gemma 2).
    Alternating {
        /// Window of the local layers, tokens.
        window: u32,
    },
    /// Sliding-window layers with a global layer every `global_every` layers (Gemma 3: five
    /// local layers of 1024 tokens, then one global, `sliding_window_pattern` 6; layer `i` is
    /// global when `(i + 1) % global_every == 0`).
    Interleaved {
        /// Window of the local layers, tokens.
        window: u32,
        /// One global layer in this many.
        global_every: u32,
    },
    /// Multi-head latent attention (DeepSeek-V2/V3): one compressed latent per token per layer.
    Mla {
        /// Latent rank of the compressed KV (`kv_lora_rank`).
        kv_lora_rank: u32,
        /// Decoupled rotary key dimension (`qk_rope_head_dim`).
        rope_head_dim: u32,
    },
    /// Hybrid linear attention (Qwen3-Next): one full-attention layer every `full_every` layers
    /// (config.json `full_attention_interval`; layer `i` is full when `(i + 1) % full_every ==
    /// 0`, as its `layer_types` list spells out), the others Gated DeltaNet linear-attention
    /// layers. Only the full-attention layers keep a KV cache that grows with the context (GQA
    /// by `kv_heads` × `head_dim`); each linear layer keeps a fixed-size state per sequence: a
    /// recurrent state of `value_heads × key_head_dim × value_head_dim` and a convolution state
    /// of `(conv_kernel - 1) × (2 × key_heads × key_head_dim + value_heads × value_head_dim)`
    /// elements (transformers `Qwen3NextGatedDeltaNet`: `conv_dim = key_dim * 2 + value_dim`).
    LinearHybrid {
        /// One full-attention layer in this many (`full_attention_interval`).
        full_every: u32,
        /// Key heads of the linear layers (`linear_num_key_heads`).
        key_heads: u32,
        /// Value heads of the linear layers (`linear_num_value_heads`).
        value_heads: u32,
        /// Key head dimension of the linear layers (`linear_key_head_dim`).
        key_head_dim: u32,
        /// Value head dimension of the linear layers (`linear_value_head_dim`).
        value_head_dim: u32,
        /// Width of the short causal convolution, tokens (`linear_conv_kernel_dim`).
        conv_kernel: u32,
    },
}

impl Attention {
    /// Whether layer `index` is a linear-attention layer that keeps a fixed state instead of a
    /// KV cache (only under [`Attention::LinearHybrid`]).
    pub fn is_linear_layer(&self, index: u32) -> bool {
        match *self {
            Attention::LinearHybrid { full_every, .. } => !(index + 1).is_multiple_of(full_every.max(1)),
            _ => false,
        }
    }

    /// Elements of one linear-attention layer's fixed state for one sequence (recurrent plus
    /// convolution state); 0 for a layout without linear layers.
    pub fn linear_state_elements(&self) -> f64 {
        match *self {
            Attention::LinearHybrid { key_heads, value_heads, key_head_dim, value_head_dim, conv_kernel, .. } => {
                let recurrent = f64::from(value_heads) * f64::from(key_head_dim) * f64::from(value_head_dim);
                let conv_dim = 2.0 * f64::from(key_heads) * f64::from(key_head_dim)
                    + f64::from(value_heads) * f64::from(value_head_dim);
                recurrent + f64::from(conv_kernel.saturating_sub(1)) * conv_dim
            }
            _ => 0.0,
        }
    }
}

/// An LLM preset: the shape that decides memory and speed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmModel {
    /// Stable id (`llama-3.1-70b`).
    pub id: String,
    /// Publisher (`Meta`).
    pub vendor: String,
    /// Name (`Llama 3.1 70B`).
    pub name: String,
    /// Total parameters, billions (memory).
    pub params_b: f64,
    /// Parameters active per token, billions (MoE); `None` = dense (all active).
    #[serde(default)]
    pub active_params_b: Option<f64>,
    /// Transformer layers.
    pub layers: u32,
    /// Hidden size.
    pub hidden: u32,
    /// Attention heads.
    pub heads: u32,
    /// Key/value heads (GQA); equal to `heads` for MHA.
    pub kv_heads: u32,
    /// Head dimension.
    pub head_dim: u32,
    /// FFN intermediate size, if published.
    #[serde(default)]
    pub intermediate: Option<u32>,
    /// Vocabulary size.
    pub vocab: u32,
    /// Longest supported context, tokens.
    pub max_context: u32,
    /// Attention layout.
    pub attention: Attention,
    /// Whether the LM head reuses the token-embedding table (`tie_word_embeddings`; Qwen3 up to
    /// 4B, Gemma). Default false (untied).
    #[serde(default)]
    pub tied_embeddings: bool,
    /// Routed-expert shape of an MoE model (`None` = dense).
    #[serde(default)]
    pub experts: Option<Experts>,
    /// The checkpoint as published: tensor format per group and the index's total bytes.
    #[serde(default)]
    pub checkpoint: Option<Checkpoint>,
    /// Source URL (config.json or paper).
    pub source: String,
    /// Not used for models; kept for a uniform schema.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Not used for models.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl LlmModel {
    /// Parameters read per decoded token, billions (active for MoE, all for dense).
    pub fn active_b(&self) -> f64 {
        self.active_params_b.unwrap_or(self.params_b)
    }

    /// Parameters of the routed experts, billions (0 for a dense model).
    pub fn expert_params_b(&self) -> f64 {
        self.experts.as_ref().map_or(0.0, |e| e.params_b_with(self.hidden))
    }
}

/// Routed-expert shape of an MoE model, from config.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experts {
    /// Routed experts per MoE layer (`num_local_experts`, `num_experts`, `n_routed_experts`).
    pub routed: u32,
    /// Experts each token is routed to (`num_experts_per_tok`, `experts_per_token`).
    pub per_token: u32,
    /// FFN width of one routed expert (`moe_intermediate_size`, or `intermediate_size` where
    /// the experts are the only FFN).
    pub intermediate: u32,
    /// Layers that hold routed experts (all layers less `first_k_dense_replace`; Llama 4
    /// Maverick every other layer).
    pub layers: u32,
    /// Shared (always-active) experts per MoE layer: config.json `n_shared_experts`
    /// (DeepSeek-V2/V3, Kimi K2, GLM-4.5: GGUF tensors `blk.N.ffn_*_shexp`); 0 where the MoE
    /// block has only a router and routed experts (Mixtral, Qwen3-MoE, gpt-oss: no
    /// shared-expert field in their config.json or their transformers `*SparseMoeBlock` /
    /// `GptOssMLP`); `None` when not entered. Decides whether a broad `-ot blk\.N\.ffn.*=CPU`
    /// rule moves a shared expert (a cost the placement does not model) or only the router,
    /// the norm and the routed experts.
    #[serde(default)]
    pub shared: Option<u32>,
}

impl Experts {
    /// Routed-expert parameters, billions, for a model of hidden size `hidden`:
    /// `routed × layers × 3 × hidden × intermediate` (gate, up and down projections; expert
    /// biases, as gpt-oss has, are under 0.1 % and left out).
    pub(crate) fn params_b_with(&self, hidden: u32) -> f64 {
        f64::from(self.routed) * f64::from(self.layers) * 3.0 * f64::from(hidden) * f64::from(self.intermediate) / 1e9
    }
}

/// How one group of a checkpoint's tensors is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TensorFormat {
    /// bfloat16 (or FP16): 2 bytes.
    Bf16,
    /// FP8 E4M3 with one FP32 scale per tensor or channel: 1 byte (the scales are under 0.1 %).
    Fp8,
    /// FP8 E4M3 with one FP32 `weight_scale_inv` per 128×128 block (DeepSeek-V3
    /// README_WEIGHTS.md, Qwen3 FP8 `weight_block_size` [128, 128]): 1 + 4/16384 bytes.
    Fp8Block,
    /// OCP MXFP4: 4-bit E2M1 values with one E8M0 scale byte per 32 (gpt-oss `*_blocks` and
    /// `*_scales` tensors): 0.5 + 1/32 bytes.
    Mxfp4,
    /// NVIDIA NVFP4: 4-bit E2M1 values with one FP8 E4M3 scale per 16 plus an FP32 scale per
    /// tensor (TensorRT Model Optimizer checkpoints): 0.5 + 1/16 bytes.
    Nvfp4,
    /// INT4 with one BF16 scale per 32 weights (compressed-tensors `pack-quantized`,
    /// `group_size` 32, as Kimi K2 Thinking and K2.5 publish their routed experts): 0.5 + 2/32
    /// bytes.
    Int4Group32,
    /// GGUF `Q4_0`: blocks of 32 4-bit weights with one FP16 scale, 18 bytes per 32 (ggml
    /// `block_q4_0`), as Google publishes the Gemma 3 QAT GGUF files: 0.5 + 2/32 bytes.
    Q4_0,
}

impl TensorFormat {
    /// Bytes per weight, scale tensors included.
    pub fn bytes_per_weight(self) -> f64 {
        match self {
            TensorFormat::Bf16 => 2.0,
            TensorFormat::Fp8 => 1.0,
            TensorFormat::Fp8Block => 1.0 + 4.0 / (128.0 * 128.0),
            TensorFormat::Mxfp4 => 0.5 + 1.0 / 32.0,
            // NVFP4: one 1-byte scale per 16; INT4 group 32: one 2-byte scale per 32.
            // Q4_0: one 2-byte scale per 32.
            TensorFormat::Nvfp4 | TensorFormat::Int4Group32 | TensorFormat::Q4_0 => 0.5 + 1.0 / 16.0,
        }
    }
}

/// The published checkpoint of a preset: the format of each tensor group and the bytes its
/// safetensors index (or GGUF file) reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// Routed MoE experts (ignored for a dense model).
    pub experts: TensorFormat,
    /// The rest of the transformer layers: attention, dense FFN, shared experts, router, norms.
    pub layers: TensorFormat,
    /// Token embedding and LM head.
    pub embeddings: TensorFormat,
    /// Parameters in the files beyond `params_b`, billions (DeepSeek-V3's multi-token
    /// prediction module: 685B in the files, 671B in the model), stored as `layers` except for
    /// the routed experts given in `extra_expert_params_b`.
    #[serde(default)]
    pub extra_params_b: f64,
    /// Of `extra_params_b`, the routed-expert parameters, billions.
    #[serde(default)]
    pub extra_expert_params_b: f64,
    /// `metadata.total_size` of the safetensors index, bytes (`None` = not found published).
    #[serde(default)]
    pub total_bytes: Option<u64>,
    /// Where `total_bytes` was read (the index's URL, and the copy it was verified against).
    #[serde(default)]
    pub total_source: Option<String>,
}

/// The weight bytes of one concrete model file, read from its header (GGUF tensor infos or
/// safetensors headers): exact to the byte, where the catalog's presets estimate them from a
/// parameter count and bits per weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WeightBytes {
    /// All tensors of the file, bytes.
    pub total: u64,
    /// The token-embedding table (`token_embd.weight`, `model.embed_tokens.weight`), bytes.
    pub embedding: u64,
    /// The LM head (`output.weight`, `lm_head.weight`), bytes; 0 when tied to the embedding.
    pub head: u64,
    /// Routed MoE expert tensors (`*_exps`, `mlp.experts.*`), bytes; 0 for a dense model.
    pub experts: u64,
    /// Whether the LM head reuses the embedding table (no tensor of its own).
    pub tied_embeddings: bool,
}

impl WeightBytes {
    /// Bytes of the transformer layers: total less embedding and head.
    pub fn body(&self) -> u64 {
        self.total.saturating_sub(self.embedding).saturating_sub(self.head)
    }
}

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

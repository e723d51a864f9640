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

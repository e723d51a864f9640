//! From GGUF metadata to the model shape, by architecture.
//!
//! Keys as llama.cpp writes them (`src/llama-arch.cpp`, `LLM_KV_*`): `{arch}.block_count`,
//! `{arch}.embedding_length`, `{arch}.feed_forward_length`, `{arch}.attention.head_count`,
//! `{arch}.attention.head_count_kv`, `{arch}.attention.key_length`, `{arch}.context_length`,
//! `{arch}.attention.sliding_window`, `{arch}.expert_count`, `{arch}.expert_used_count`,
//! `{arch}.attention.kv_lora_rank`, `{arch}.rope.dimension_count`. Sliding-window layouts
//! follow llama.cpp's `set_swa_pattern`: gemma2 and gpt-oss alternate (even layers local),
//! gemma3 has one global layer in six.

use super::gguf::{Header, Value, ggml_type_size};
use super::{ModelFile, ModelFileError, ModelFormat, id_from_path};
use crate::estimate::llm::{Precision, Runtime};
use kraftwerk_catalog::{Attention, LlmModel, Origin, WeightBytes};
use std::collections::BTreeMap;
use std::path::Path;

/// GGUF architectures read, as `general.architecture` spells them. Mistral and Mixtral files
/// from llama.cpp's converter say `llama` (Mixtral with `llama.expert_count`).
pub(crate) const GGUF_ARCHITECTURES: [&str; 10] =
    ["llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3moe", "gemma2", "gemma3", "deepseek2", "gpt-oss"];

/// Gemma 3's local:global layout: one global layer in six (llama.cpp `set_swa_pattern(6)`;
/// Gemma 3 config.json `sliding_window_pattern` 6).
pub(crate) const GEMMA3_GLOBAL_EVERY: u32 = 6;

/// The sliding-window layout of an architecture given its window, if it has one.
pub(super) fn attention_for(
    arch: &str,
    window: Option<u32>,
    mla: Option<(u32, u32)>,
    global_every: Option<u32>,
) -> Attention {
    if let Some((kv_lora_rank, rope_head_dim)) = mla {
        return Attention::Mla { kv_lora_rank, rope_head_dim };
    }
    let Some(window) = window.filter(|w| *w > 0) else { return Attention::Full };
    match arch {
        "gemma2" | "gpt-oss" | "gpt_oss" => Attention::Alternating { window },
        "gemma3" | "gemma3_text" => {
            Attention::Interleaved { window, global_every: global_every.unwrap_or(GEMMA3_GLOBAL_EVERY) }
        }
        _ => Attention::SlidingWindow { window },
    }
}

/// The GGUF `general.file_type` (`llama_ftype`) as a Kraftwerk precision, where it names one.
fn precision_of_file_type(file_type: Option<u64>) -> Option<Precision> {
    Some(match file_type? {
        0 => Precision::Fp32,
        1 => Precision::Fp16,
        2 => Precision::Q4_0,
        7 => Precision::Q8_0,
        15 => Precision::Q4_K_M,
        17 => Precision::Q5_K_M,
        18 => Precision::Q6_K,
        32 => Precision::Bf16,
        _ => return None,
    })
}

/// Whether a tensor name is a routed MoE expert tensor (llama.cpp `ffn_{gate,up,down}_exps`,
/// Hugging Face `experts.N.` / `experts.gate_up_proj`).
pub(super) fn is_expert_tensor(name: &str) -> bool {
    name.contains("_exps") || name.contains(".experts.")
}

struct Keys<'a> {
    arch: &'a str,
    md: &'a BTreeMap<String, Value>,
}

impl Keys<'_> {
    fn opt(&self, suffix: &str) -> Option<u32> {
        self.md.get(&format!("{}.{suffix}", self.arch)).and_then(Value::as_u64).and_then(|v| u32::try_from(v).ok())
    }

    fn need(&self, suffix: &str) -> Result<u32, ModelFileError> {
        self.opt(suffix).ok_or_else(|| ModelFileError::MissingKey {
            architecture: self.arch.to_owned(),
            key: format!("{}.{suffix}", self.arch),
        })
    }
}

/// The shape and exact bytes of a GGUF file from its header.
pub(super) fn from_gguf(path: &Path, h: &Header) -> Result<ModelFile, ModelFileError> {
    let arch = h.metadata.get("general.architecture").and_then(Value::as_str).ok_or_else(|| {
        ModelFileError::MissingKey { architecture: "unknown".into(), key: "general.architecture".into() }
    })?;
    if !GGUF_ARCHITECTURES.contains(&arch) {
        return Err(ModelFileError::UnknownArchitecture(arch.to_owned()));
    }
    let k = Keys { arch, md: &h.metadata };
    let layers = k.need("block_count")?;
    let hidden = k.need("embedding_length")?;
    let heads = k.need("attention.head_count")?;
    let kv_heads = k.opt("attention.head_count_kv").unwrap_or(heads);
    if heads == 0 || layers == 0 || hidden == 0 || kv_heads == 0 {
        return Err(ModelFileError::Invalid(format!("{arch}: layers, hidden size and heads must be positive")));
    }
    let mla = if arch == "deepseek2" {
        Some((k.need("attention.kv_lora_rank")?, k.need("rope.dimension_count")?))
    } else {
        None
    };
    // MLA files written for absorbed attention keep the per-head query width in `key_length_mla`.
    let head_dim =
        k.opt("attention.key_length_mla").or_else(|| k.opt("attention.key_length")).unwrap_or(hidden / heads);
    let embd = h.tensors.iter().find(|t| t.name == "token_embd.weight");
    let vocab = k
        .opt("vocab_size")
        .or_else(|| match h.metadata.get("tokenizer.ggml.tokens") {
            Some(Value::Array { len, .. }) => u32::try_from(*len).ok(),
            _ => None,
        })
        .or_else(|| embd.and_then(|t| t.dims.get(1)).and_then(|d| u32::try_from(*d).ok()))
        .ok_or_else(|| ModelFileError::MissingKey {
            architecture: arch.to_owned(),
            key: format!("{arch}.vocab_size"),
        })?;
    let experts = k.opt("expert_count").filter(|n| *n > 1);
    let used = match experts {
        Some(_) => Some(k.need("expert_used_count")?),
        None => None,
    };
    let intermediate =
        k.opt("expert_feed_forward_length").filter(|_| experts.is_some()).or(k.opt("feed_forward_length"));
    let window = k.opt("attention.sliding_window");

    let mut weights = WeightBytes::default();
    let (mut elements, mut expert_elements) = (0u64, 0u64);
    let mut by_type: BTreeMap<&'static str, u64> = BTreeMap::new();
    for t in &h.tensors {
        weights.total += t.bytes;
        elements += t.elements();
        let type_name = ggml_type_size(t.ggml_type).map_or("?", |x| x.2);
        *by_type.entry(type_name).or_default() += t.bytes;
        match t.name.as_str() {
            "token_embd.weight" => weights.embedding = t.bytes,
            "output.weight" => weights.head = t.bytes,
            n if is_expert_tensor(n) => {
                weights.experts += t.bytes;
                expert_elements += t.elements();
            }
            _ => {}
        }
    }
    weights.tied_embeddings = !h.tensors.iter().any(|t| t.name == "output.weight");
    let params = elements as f64;
    let active = match (experts, used) {
        (Some(n), Some(u)) => Some(params - expert_elements as f64 * (1.0 - f64::from(u) / f64::from(n))),
        _ => None,
    };
    let name = h.metadata.get("general.name").and_then(Value::as_str).map_or_else(|| id_from_path(path), str::to_owned);
    let model = LlmModel {
        id: id_from_path(path),
        vendor: h.metadata.get("general.organization").and_then(Value::as_str).unwrap_or("model file").to_owned(),
        name,
        params_b: params / 1e9,
        active_params_b: active.map(|a| a / 1e9),
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim,
        intermediate,
        vocab,
        max_context: k.opt("context_length").unwrap_or(4096),
        attention: attention_for(arch, window, mla, None),
        tied_embeddings: false,
        experts: None,
        checkpoint: None,
        source: path.display().to_string(),
        price_usd: None,
        price_date: None,
        notes: Some(format!("read from the GGUF header of {}", path.display())),
        origin: Origin::default(),
    };
    let precision = precision_of_file_type(h.metadata.get("general.file_type").and_then(Value::as_u64))
        .unwrap_or_else(|| Precision::Bpw(if params > 0.0 { weights.total as f64 * 8.0 / params } else { 16.0 }));
    let mut bytes_by_type: Vec<(String, u64)> = by_type.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    bytes_by_type.sort_by_key(|b| std::cmp::Reverse(b.1));
    Ok(ModelFile {
        path: path.to_path_buf(),
        format: ModelFormat::Gguf { version: h.version },
        architecture: arch.to_owned(),
        model,
        weights,
        bytes_by_type,
        tensor_count: h.tensors.len(),
        precision,
        runtime: Runtime::LlamaCpp,
    })
}

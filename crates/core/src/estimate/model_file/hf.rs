//! Hugging Face model folders: `config.json` for the shape, the `*.safetensors` headers for the
//! exact bytes of every tensor (parsed and validated by the `safetensors` crate's
//! [`Metadata`]; the tensor data is never read), or `model.safetensors.index.json`'s
//! `total_size` when only the index is there.
//!
//! config.json fields as `transformers` names them (`num_hidden_layers`, `hidden_size`,
//! `num_attention_heads`, `num_key_value_heads`, `head_dim`, `intermediate_size`,
//! `moe_intermediate_size`, `vocab_size`, `max_position_embeddings`, `sliding_window`,
//! `num_local_experts` / `num_experts` / `n_routed_experts`, `num_experts_per_tok`,
//! `kv_lora_rank`, `qk_rope_head_dim`, `qk_nope_head_dim`, `tie_word_embeddings`); multimodal
//! configs (Gemma 3, Llama 4) keep the language model's in `text_config`.

use super::arch::{attention_for, is_expert_tensor};
use super::{ModelFile, ModelFileError, ModelFormat, id_from_path};
use crate::estimate::llm::{Precision, Runtime};
use kraftwerk_catalog::{Attention, LlmModel, Origin, WeightBytes};
use safetensors::tensor::{Dtype, Metadata};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// `model_type` values read, and the architecture each is reported as.
pub(crate) const HF_MODEL_TYPES: [(&str, &str); 13] = [
    ("llama", "llama"),
    ("mistral", "mistral"),
    ("mixtral", "mixtral"),
    ("qwen2", "qwen2"),
    ("qwen3", "qwen3"),
    ("qwen3_moe", "qwen3moe"),
    ("qwen3_next", "qwen3next"),
    ("gemma2", "gemma2"),
    ("gemma3", "gemma3"),
    ("gemma3_text", "gemma3"),
    ("deepseek_v2", "deepseek2"),
    ("deepseek_v3", "deepseek2"),
    ("gpt_oss", "gpt-oss"),
];

/// Largest safetensors header read, bytes (the format's own limit, `MAX_HEADER_SIZE` 100 MB).
const MAX_HEADER_BYTES: u64 = 100_000_000;

/// Bytes and element counts summed over the safetensors headers.
#[derive(Default)]
struct Tensors {
    weights: WeightBytes,
    elements: f64,
    expert_elements: f64,
    count: usize,
    by_dtype: BTreeMap<String, u64>,
    head_seen: bool,
}

/// Reads the folder `dir`: `config.json` and every `*.safetensors` file in it.
pub(crate) fn read_folder(dir: &Path) -> Result<ModelFile, ModelFileError> {
    let config_path = dir.join("config.json");
    let text = std::fs::read_to_string(&config_path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ModelFileError::NotAModel(format!("{} has no config.json", dir.display()))
        } else {
            ModelFileError::Io(format!("{}: {e}", config_path.display()))
        }
    })?;
    let config: Value = serde_json::from_str(&text)
        .map_err(|e| ModelFileError::Invalid(format!("{}:{}:{}: {e}", config_path.display(), e.line(), e.column())))?;
    architecture(&config)?;
    let mut shards: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| ModelFileError::Io(format!("{}: {e}", dir.display())))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
        .collect();
    shards.sort();
    let mut t = Tensors::default();
    for shard in &shards {
        read_shard(shard, &mut t)?;
    }
    if shards.is_empty() {
        read_index(dir, &config, &mut t)?;
    }
    from_config(dir, &config, t, shards.len())
}

/// Adds the tensors of one safetensors file to `t`.
fn read_shard(path: &Path, t: &mut Tensors) -> Result<(), ModelFileError> {
    let io = |e: std::io::Error| ModelFileError::Io(format!("{}: {e}", path.display()));
    let len = std::fs::metadata(path).map_err(io)?.len();
    let mut f = std::fs::File::open(path).map_err(io)?;
    let truncated = |what: String| ModelFileError::Truncated(format!("{}: {what}", path.display()));
    let mut n = [0u8; 8];
    f.read_exact(&mut n).map_err(|_| truncated(format!("{len} bytes, shorter than the 8-byte header length")))?;
    let n = u64::from_le_bytes(n);
    if n > MAX_HEADER_BYTES {
        return Err(ModelFileError::Invalid(format!("{}: header of {n} bytes (at most 100 MB)", path.display())));
    }
    if 8 + n > len {
        return Err(truncated(format!("the header needs {} bytes, the file has {len}", 8 + n)));
    }
    let mut header = vec![0u8; n as usize];
    f.read_exact(&mut header).map_err(io)?;
    let meta: Metadata = serde_json::from_slice(&header)
        .map_err(|e| ModelFileError::Invalid(format!("{}: safetensors header: {e}", path.display())))?;
    let end = 8 + n + meta.data_len() as u64;
    if end > len {
        return Err(truncated(format!("the tensor data ends at byte {end}, the file has {len} bytes")));
    }
    for (name, info) in meta.tensors() {
        let bytes = (info.data_offsets.1 - info.data_offsets.0) as u64;
        let elements = info.shape.iter().map(|&d| d as f64).product::<f64>();
        // MXFP4 (gpt-oss): `*_blocks` pack two 4-bit values per U8, `*_scales` are not weights.
        let params = if name.ends_with("_scales") {
            0.0
        } else if name.ends_with("_blocks") && info.dtype == Dtype::U8 {
            2.0 * elements
        } else {
            elements
        };
        t.weights.total += bytes;
        t.elements += params;
        t.count += 1;
        *t.by_dtype.entry(format!("{:?}", info.dtype)).or_default() += bytes;
        if name.ends_with("embed_tokens.weight") {
            t.weights.embedding += bytes;
        } else if name.ends_with("lm_head.weight") {
            t.weights.head += bytes;
            t.head_seen = true;
        } else if is_expert_tensor(&name) {
            t.weights.experts += bytes;
            t.expert_elements += params;
        }
    }
    Ok(())
}

/// Without shards: `model.safetensors.index.json`'s `metadata.total_size`, parameters from it
/// and `torch_dtype`.
fn read_index(dir: &Path, config: &Value, t: &mut Tensors) -> Result<(), ModelFileError> {
    let path = dir.join("model.safetensors.index.json");
    let text = std::fs::read_to_string(&path).map_err(|_| {
        ModelFileError::NotAModel(format!(
            "{} has neither *.safetensors files nor model.safetensors.index.json",
            dir.display()
        ))
    })?;
    let index: Value = serde_json::from_str(&text)
        .map_err(|e| ModelFileError::Invalid(format!("{}:{}:{}: {e}", path.display(), e.line(), e.column())))?;
    let total = index.pointer("/metadata/total_size").and_then(Value::as_u64).ok_or_else(|| {
        ModelFileError::MissingKey { architecture: "safetensors index".into(), key: "metadata.total_size".into() }
    })?;
    let dtype = text_config(config).get("torch_dtype").or_else(|| config.get("torch_dtype")).and_then(Value::as_str);
    let bytes_per = match dtype {
        Some("float32") => 4.0,
        _ => 2.0,
    };
    t.weights.total = total;
    t.elements = total as f64 / bytes_per;
    t.count = index.get("weight_map").and_then(Value::as_object).map_or(0, serde_json::Map::len);
    t.head_seen = index.pointer("/weight_map/lm_head.weight").is_some();
    t.by_dtype.insert(dtype.unwrap_or("bfloat16").to_owned(), total);
    Ok(())
}

/// The language model's part of a config (`text_config` for multimodal models).
fn text_config(config: &Value) -> &Value {
    config.get("text_config").filter(|v| v.is_object()).unwrap_or(config)
}

/// The config's `model_type` (of `text_config` where there is one) and the architecture it is
/// read as.
fn architecture(config: &Value) -> Result<(&str, &'static str), ModelFileError> {
    let outer_type = config.get("model_type").and_then(Value::as_str).unwrap_or("");
    let model_type = text_config(config).get("model_type").and_then(Value::as_str).unwrap_or(outer_type);
    HF_MODEL_TYPES
        .iter()
        .find(|(mt, _)| *mt == model_type || *mt == outer_type)
        .map(|(_, a)| (model_type, *a))
        .ok_or_else(|| {
            ModelFileError::UnknownArchitecture(if model_type.is_empty() {
                "(no model_type)".into()
            } else {
                model_type.into()
            })
        })
}

/// Qwen3-Next's hybrid layout from its config: `full_attention_interval` (else the period of
/// `layer_types`, whose `full_attention` entries must fall every that many layers) and the Gated
/// DeltaNet shape (`linear_num_key_heads`, `linear_num_value_heads`, `linear_key_head_dim`,
/// `linear_value_head_dim`, `linear_conv_kernel_dim`).
fn linear_hybrid(
    c: &Value,
    layers: u32,
    need: &dyn Fn(&str) -> Result<u32, ModelFileError>,
) -> Result<Attention, ModelFileError> {
    let types: Option<Vec<&str>> =
        c.get("layer_types").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect());
    let full_every = match (need("full_attention_interval"), &types) {
        (Ok(n), _) => n,
        (Err(e), None) => return Err(e),
        (Err(e), Some(t)) => t.iter().position(|x| *x == "full_attention").map_or(Err(e), |i| Ok(i as u32 + 1))?,
    };
    if full_every == 0 {
        return Err(ModelFileError::Invalid("qwen3_next: full_attention_interval must be positive".into()));
    }
    if let Some(t) = &types {
        let periodic = t.len() == layers as usize
            && t.iter().enumerate().all(|(i, x)| (*x == "full_attention") == (i as u32 + 1).is_multiple_of(full_every));
        if !periodic {
            return Err(ModelFileError::Invalid(format!(
                "qwen3_next: layer_types is not one full_attention layer in {full_every} over {layers} layers"
            )));
        }
    }
    Ok(Attention::LinearHybrid {
        full_every,
        key_heads: need("linear_num_key_heads")?,
        value_heads: need("linear_num_value_heads")?,
        key_head_dim: need("linear_key_head_dim")?,
        value_head_dim: need("linear_value_head_dim")?,
        conv_kernel: need("linear_conv_kernel_dim")?,
    })
}

fn from_config(dir: &Path, config: &Value, t: Tensors, shards: usize) -> Result<ModelFile, ModelFileError> {
    let (model_type, arch) = architecture(config)?;
    let c = text_config(config);
    let get = |key: &str| c.get(key).and_then(Value::as_u64).and_then(|v| u32::try_from(v).ok());
    let need = |key: &str| {
        get(key).ok_or_else(|| ModelFileError::MissingKey { architecture: model_type.to_owned(), key: key.to_owned() })
    };
    let layers = need("num_hidden_layers")?;
    let hidden = need("hidden_size")?;
    let heads = need("num_attention_heads")?;
    let kv_heads = get("num_key_value_heads").unwrap_or(heads);
    if heads == 0 || layers == 0 || hidden == 0 || kv_heads == 0 {
        return Err(ModelFileError::Invalid(format!("{model_type}: layers, hidden size and heads must be positive")));
    }
    let mla = if arch == "deepseek2" { Some((need("kv_lora_rank")?, need("qk_rope_head_dim")?)) } else { None };
    let head_dim = match mla {
        Some((_, rope)) => get("qk_nope_head_dim").map_or(hidden / heads, |n| n + rope),
        None => get("head_dim").unwrap_or(hidden / heads),
    };
    let experts =
        get("num_local_experts").or_else(|| get("num_experts")).or_else(|| get("n_routed_experts")).filter(|n| *n > 1);
    let used = match experts {
        Some(_) => Some(need("num_experts_per_tok")?),
        None => None,
    };
    let intermediate = get("moe_intermediate_size").filter(|_| experts.is_some()).or_else(|| get("intermediate_size"));
    // Qwen2/Qwen3 configs carry `sliding_window` but use it only with `use_sliding_window`.
    let sliding_on = c.get("use_sliding_window").and_then(Value::as_bool).unwrap_or(true);
    let window = get("sliding_window").filter(|_| sliding_on);
    let global_every = get("sliding_window_pattern");
    let linear = if arch == "qwen3next" { Some(linear_hybrid(c, layers, &need)?) } else { None };
    let active = match (experts, used) {
        (Some(n), Some(u)) if t.expert_elements > 0.0 => {
            Some(t.elements - t.expert_elements * (1.0 - f64::from(u) / f64::from(n)))
        }
        _ => None,
    };
    let tied = c.get("tie_word_embeddings").and_then(Value::as_bool).unwrap_or(!t.head_seen);
    let mut weights = t.weights;
    weights.tied_embeddings = tied && !t.head_seen;
    let mut bytes_by_type: Vec<(String, u64)> = t.by_dtype.into_iter().collect();
    bytes_by_type.sort_by_key(|b| std::cmp::Reverse(b.1));
    let precision = match bytes_by_type.first().map(|x| x.0.as_str()) {
        Some("BF16" | "bfloat16") => Precision::Bf16,
        Some("F16" | "float16") => Precision::Fp16,
        Some("F32" | "float32") => Precision::Fp32,
        Some("F8_E4M3" | "F8_E5M2") => Precision::Fp8,
        _ if t.elements > 0.0 => Precision::Bpw(weights.total as f64 * 8.0 / t.elements),
        _ => Precision::Bf16,
    };
    let model = LlmModel {
        id: id_from_path(dir),
        vendor: "model file".into(),
        name: dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned()),
        params_b: t.elements / 1e9,
        active_params_b: active.map(|a| a / 1e9),
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim,
        intermediate,
        vocab: need("vocab_size")?,
        max_context: get("max_position_embeddings").unwrap_or(4096),
        attention: linear.unwrap_or_else(|| attention_for(arch, window, mla, global_every)),
        tied_embeddings: false,
        experts: None,
        checkpoint: None,
        source: dir.join("config.json").display().to_string(),
        price_usd: None,
        price_date: None,
        notes: Some(format!("read from {} and its safetensors headers", dir.join("config.json").display())),
        origin: Origin::default(),
    };
    Ok(ModelFile {
        path: dir.to_path_buf(),
        format: ModelFormat::Safetensors { shards },
        architecture: arch.to_owned(),
        model,
        weights,
        bytes_by_type,
        tensor_count: t.count,
        precision,
        runtime: Runtime::Vllm,
    })
}

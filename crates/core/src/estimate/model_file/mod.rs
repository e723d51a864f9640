//! Model files people already have, read into the [`LlmModel`] shape and the exact
//! [`WeightBytes`] the LLM estimate uses: pure functions over files, no egui.
//!
//! - GGUF (llama.cpp): the header only ([`gguf`]): metadata gives the shape, tensor infos give
//!   every tensor's bytes by its ggml type, so the weights are exact to the byte for that file
//!   (a `Q4_K_M` file mixes `Q4_K` and `Q6_K` tensors; the file knows).
//! - Hugging Face folders ([`hf`]): `config.json` plus the headers of the `*.safetensors` files
//!   (read with the `safetensors` crate's header parser, without reading the tensor data), or
//!   `model.safetensors.index.json` when the shards are not there.
//!
//! Architectures: llama, mistral, mixtral, qwen2, qwen3, qwen3moe, gemma2, gemma3, deepseek2
//! (MLA; DeepSeek-V2/V3/R1), gpt-oss, and from a Hugging Face folder qwen3_next (Qwen3-Next's
//! hybrid linear attention, [`kraftwerk_catalog::Attention::LinearHybrid`]). Anything else is [`ModelFileError::UnknownArchitecture`];
//! a missing key is [`ModelFileError::MissingKey`] naming it; a truncated or non-model file is
//! an error, never a panic.
//!
//! [`read_model_file`] is the one entry point (CLI `fit --model-file`, the GUI's drag-and-drop).

#![allow(
    clippy::doc_markdown,
    reason = "format and architecture names (GGUF, Q4_K_M, safetensors) read better unquoted"
)]

mod arch;
pub mod gguf;
pub mod hf;

use crate::estimate::llm::{Precision, Runtime};
use kraftwerk_catalog::{LlmModel, WeightBytes};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Why a model file could not be read. Every variant names what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelFileError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(String),
    /// Not a GGUF file, safetensors file, config.json or model folder.
    #[error("not a model file: {0}")]
    NotAModel(String),
    /// The file ends before what its header describes.
    #[error("truncated file: {0}")]
    Truncated(String),
    /// The header holds something this reader cannot mean (unknown type, bad sizes).
    #[error("invalid model file: {0}")]
    Invalid(String),
    /// The architecture is none that Kraftwerk reads.
    #[error(
        "unknown architecture `{0}` (read: llama, mistral, mixtral, qwen2, qwen3, qwen3moe, gemma2, gemma3, deepseek2, gpt-oss; qwen3_next from a Hugging Face folder)"
    )]
    UnknownArchitecture(String),
    /// A key the architecture needs is absent.
    #[error("missing key `{key}` for architecture `{architecture}`")]
    MissingKey {
        /// The architecture.
        architecture: String,
        /// The metadata or config.json key.
        key: String,
    },
}

/// Which kind of file was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelFormat {
    /// A GGUF file of this version.
    Gguf {
        /// GGUF version (2 or 3).
        version: u32,
    },
    /// A Hugging Face folder: `config.json` with safetensors headers (`shards` files read) or
    /// only its index (`shards` 0: sizes from the index's `total_size`).
    Safetensors {
        /// Safetensors files whose headers were read.
        shards: usize,
    },
}

/// A model read from its files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelFile {
    /// What was read (the file, or the folder).
    pub path: PathBuf,
    /// GGUF or safetensors.
    pub format: ModelFormat,
    /// Architecture as the file names it (`qwen3moe`, `deepseek2`, `llama`).
    pub architecture: String,
    /// The shape, as a catalog model (id from the file name, source = the path).
    pub model: LlmModel,
    /// Exact bytes of the weights, by part.
    pub weights: WeightBytes,
    /// Bytes by tensor type (`Q4_K`, `Q6_K`, `BF16`, ...), largest first.
    pub bytes_by_type: Vec<(String, u64)>,
    /// Tensors counted.
    pub tensor_count: usize,
    /// The weight precision to estimate with: the file type where it names one Kraftwerk knows
    /// (`Q4_K_M`, `BF16`, ...), else the file's average bits per weight.
    pub precision: Precision,
    /// The runtime that serves this format (llama.cpp for GGUF, vLLM for safetensors).
    pub runtime: Runtime,
}

impl ModelFile {
    /// Average bits per weight over the whole file.
    pub fn bits_per_weight(&self) -> f64 {
        let params = self.model.params_b * 1e9;
        if params > 0.0 { self.weights.total as f64 * 8.0 / params } else { 0.0 }
    }

    /// One line for people: `Qwen3-30B-A3B-Q4_K_M.gguf: qwen3moe, 30.5B (3.3B active), 48 layers, 17.3 GiB`.
    pub fn summary(&self) -> String {
        let active = self.model.active_params_b.map(|a| format!(" ({a:.1}B active)")).unwrap_or_default();
        format!(
            "{}: {}, {:.2}B{active}, {} layers, {} heads / {} KV heads, {:.2} GiB ({:.2} bits per weight, {})",
            self.path.file_name().map_or_else(|| self.path.display().to_string(), |n| n.to_string_lossy().into_owned()),
            self.architecture,
            self.model.params_b,
            self.model.layers,
            self.model.heads,
            self.model.kv_heads,
            self.weights.total as f64 / crate::estimate::llm::GIB,
            self.bits_per_weight(),
            self.precision,
        )
    }
}

/// Reads a model from `path`: a `.gguf` file, a `.safetensors` file or `config.json` (its
/// folder is read), `model.safetensors.index.json`, or a folder holding `config.json`.
///
/// Reads headers only, never tensor data: a 40 GB GGUF costs a few MB of reading.
pub fn read_model_file(path: &Path) -> Result<ModelFile, ModelFileError> {
    let io = |e: std::io::Error| ModelFileError::Io(format!("{}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return hf::read_folder(path);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if name == "config.json" || name.ends_with(".safetensors") || name.ends_with(".safetensors.index.json") {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        return hf::read_folder(dir);
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let header = gguf::read_header(std::io::BufReader::new(file), meta.len()).map_err(|e| match e {
        ModelFileError::NotAModel(_) => ModelFileError::NotAModel(format!(
            "{} is neither GGUF (no magic number) nor a safetensors file, config.json or model folder",
            path.display()
        )),
        other => other,
    })?;
    arch::from_gguf(path, &header)
}

/// Model id from a file or folder name: lower case, spaces as dashes, extension dropped.
fn id_from_path(path: &Path) -> String {
    let stem = if path.is_dir() { path.file_name() } else { path.file_stem() };
    let stem = stem.map_or_else(|| "model-file".to_owned(), |s| s.to_string_lossy().into_owned());
    stem.trim().to_ascii_lowercase().replace(' ', "-")
}

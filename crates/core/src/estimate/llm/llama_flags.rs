//! The user's llama.cpp placement flags (`-ngl`, `--n-cpu-moe`, `-ot`, `--split-mode`,
//! `--tensor-split`, `-ub`, and how the weights are loaded: `--no-mmap`, `--load-mode`,
//! `--no-host`), parsed once into [`LlamaCppFlags`] for [`super::placement`].

#![allow(clippy::doc_markdown, reason = "hardware and format names (PCIe, EPYC, Q4_K_M) read better unquoted")]

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An `-ot` / `--override-tensor` rule, `REGEX=BUFFER` (llama.cpp `common/arg.cpp`): tensors
/// whose name the regular expression finds (C++ `std::regex_search`, here the `regex` crate's
/// `is_match`, the same for the patterns people write) go to that buffer. Only `CPU` (system
/// RAM) on routed-expert tensors (`blk.N.ffn_{gate,up,down}_exps.weight`) is modelled, with the
/// router and FFN norm of a MoE layer that a broad `ffn.*` rule moves along with them
/// (`placement`); a rule that reaches other tensors is refused.
#[derive(Debug, Clone)]
pub struct TensorOverride {
    pub(super) source: String,
    pub(super) pattern: regex::Regex,
}

impl PartialEq for TensorOverride {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Serialize for TensorOverride {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl fmt::Display for TensorOverride {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=CPU", self.source)
    }
}

impl FromStr for TensorOverride {
    type Err = String;

    /// `REGEX=CPU`; errors for a missing `=`, an invalid expression, or a buffer other than
    /// `CPU` (a GPU buffer such as `CUDA1` is not modelled).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (re, buffer) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("-ot `{s}`: give REGEX=CPU (e.g. `blk\\.(1[0-9])\\.ffn_.*_exps=CPU`)"))?;
        if !buffer.trim().eq_ignore_ascii_case("cpu") {
            return Err(format!(
                "-ot `{s}`: buffer `{buffer}` is not modelled; only =CPU (system RAM) on expert tensors is"
            ));
        }
        let pattern = regex::Regex::new(re).map_err(|e| format!("-ot `{s}`: not a regular expression: {e}"))?;
        Ok(TensorOverride { source: re.to_owned(), pattern })
    }
}

/// The names llama.cpp gives one layer's routed-expert tensors (GGUF `LLM_TENSOR_FFN_*_EXPS`).
pub(super) fn expert_tensors(l: u32) -> [String; 3] {
    [
        format!("blk.{l}.ffn_gate_exps.weight"),
        format!("blk.{l}.ffn_up_exps.weight"),
        format!("blk.{l}.ffn_down_exps.weight"),
    ]
}

/// Tensors that are not routed experts; an `-ot` rule that moves one of them is refused (its
/// cost is not modelled).
pub(super) fn other_tensors(l: u32) -> Vec<String> {
    let mut v: Vec<String> = [
        "attn_q",
        "attn_k",
        "attn_v",
        "attn_output",
        "attn_norm",
        "attn_q_a",
        "attn_kv_a_mqa",
        "ffn_gate_inp",
        "ffn_gate_shexp",
        "ffn_up_shexp",
        "ffn_down_shexp",
        "ffn_gate",
        "ffn_up",
        "ffn_down",
        "ffn_norm",
    ]
    .iter()
    .map(|t| format!("blk.{l}.{t}.weight"))
    .collect();
    v.extend(["token_embd.weight".to_owned(), "output.weight".to_owned(), "output_norm.weight".to_owned()]);
    v
}

/// llama.cpp's `--split-mode` over several GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitMode {
    /// `layer` (default): consecutive layers per GPU, run one after another.
    #[default]
    Layer,
    /// `row`: every weight matrix split by rows over the GPUs; KV cache and intermediate
    /// results on the main GPU (`-mg`, llama-server README).
    Row,
}

impl FromStr for SplitMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "layer" => Ok(SplitMode::Layer),
            "row" => Ok(SplitMode::Row),
            other => Err(format!("split mode `{other}`: give layer or row")),
        }
    }
}

impl fmt::Display for SplitMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SplitMode::Layer => "layer",
            SplitMode::Row => "row",
        })
    }
}

/// llama.cpp's `--tensor-split a,b,...`: the proportion of the model per GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorSplit(pub Vec<f64>);

impl FromStr for TensorSplit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Result<Vec<f64>, _> = s
            .split([',', '/'])
            .map(|p| p.trim().parse::<f64>().map_err(|_| format!("--tensor-split `{s}`: `{p}` is not a number")))
            .collect();
        let parts = parts?;
        if parts.is_empty() || parts.iter().any(|p| !p.is_finite() || *p < 0.0) || parts.iter().sum::<f64>() <= 0.0 {
            return Err(format!("--tensor-split `{s}`: give non-negative proportions, at least one above 0"));
        }
        Ok(TensorSplit(parts))
    }
}

/// Which host memory holds the weights llama.cpp leaves in system RAM, and so how its
/// per-micro-batch copy of them to the GPU runs (prompt processing with `--n-cpu-moe` /
/// `-ot exps=CPU`, [`super::placement`]).
///
/// From llama.cpp's loader (`src/llama-model-loader.cpp`, `create_tensor`, ggml-org/llama.cpp
/// commit 00347649deb8; the same rule in `src/llama-model.cpp` `load_tensors` of earlier builds):
/// a weight placed on the CPU prefers the first GPU's host buffer type
/// (`make_cpu_buft_list`: "storing the tensors in a host buffer is useful when the processing of
/// large batches is offloaded to a GPU device"), which for CUDA is `CUDA_Host`, allocated with
/// `cudaMallocHost` (`ggml_cuda_host_malloc`, `ggml/src/ggml-cuda/ggml-cuda.cu`): pinned. But
/// "avoid using a host buffer when using mmap": with mmap on, the loader demotes it to the plain
/// CPU buffer type and the weights stay in the file mapping (`CPU_Mapped`,
/// `ggml/src/ggml-backend.cpp`): pageable. A copy from pageable memory is staged by the CUDA
/// driver through its own pinned buffer (CUDA Runtime API, "API synchronization behavior": "the
/// function will return once the pageable buffer has been copied to the staging memory for DMA
/// transfer"), so it runs below the pinned rate. `--no-host` drops the host buffer type from the
/// list, so the weights are pageable with or without mmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostWeightMemory {
    /// The file mapping (`CPU_Mapped`): llama.cpp's default (mmap on; llama-bench `-mmp 1`,
    /// `--load-mode mmap`, `mmap+mlock`, `auto` on a discrete GPU), or any load with `--no-host`.
    #[default]
    Pageable,
    /// A pinned host buffer (`CUDA_Host`): `--no-mmap`, llama-bench `-mmp 0`, `--load-mode
    /// none`, `mlock` or `dio`.
    Pinned,
}

impl HostWeightMemory {
    /// What the flags say: `--no-mmap` (or a load mode without a mapping) pins the weights
    /// unless `--no-host` keeps them in plain memory; `None` when no load flag was given.
    pub fn of_flags(no_mmap: Option<bool>, no_host: bool) -> Option<HostWeightMemory> {
        match (no_mmap, no_host) {
            (Some(true), false) => Some(HostWeightMemory::Pinned),
            (_, true) | (Some(false), false) => Some(HostWeightMemory::Pageable),
            (None, false) => None,
        }
    }

    /// In words, for the prefill line: where the copy reads from and the flag that sets it.
    pub fn copy_words(self) -> &'static str {
        match self {
            HostWeightMemory::Pageable => {
                "from pageable memory (mmap on, llama.cpp's default; --no-mmap would pin them)"
            }
            HostWeightMemory::Pinned => "from pinned memory (--no-mmap)",
        }
    }
}

/// llama.cpp's `--load-mode` (`llama_load_mode_from_str`, `src/llama.cpp`: `none`, `mmap`,
/// `mlock`, `mmap+mlock`, `dio`; `auto` in builds after ggml-org/llama.cpp PR 26081), reduced
/// to whether the weights are mapped: `Ok(true)` for a load without a mapping (`none`, `mlock`,
/// `dio`), `Ok(false)` for a mapped one.
///
/// # Errors
/// A mode llama.cpp does not name.
pub fn load_mode_is_unmapped(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "none" | "mlock" | "dio" => Ok(true),
        "mmap" | "mmap+mlock" | "auto" => Ok(false),
        other => Err(format!("--load-mode `{other}`: give none, mmap, mlock, mmap+mlock, dio or auto")),
    }
}

/// The user's llama.cpp placement flags, parsed once.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LlamaCppFlags {
    /// `-ngl`: layers on the GPUs; `None` = all.
    pub n_gpu_layers: Option<u32>,
    /// `--n-cpu-moe N`: the routed experts of layers `0..N` in system RAM.
    pub n_cpu_moe: Option<u32>,
    /// `-ot REGEX=CPU` rules, applied after `--n-cpu-moe`.
    pub overrides: Vec<TensorOverride>,
    /// `--split-mode`.
    pub split_mode: SplitMode,
    /// `--tensor-split`; `None` = in proportion to free memory.
    pub tensor_split: Option<TensorSplit>,
    /// `-ub` / `--ubatch-size`: tokens per micro-batch; `None` = llama.cpp's 512. Each
    /// micro-batch copies the host-held weights to the GPU once, so a larger one amortises it.
    pub ubatch: Option<u32>,
    /// Where the weights left in system RAM live ([`HostWeightMemory::of_flags`] of
    /// `--no-mmap` / `--load-mode` / `--no-host`); `None` = not given, the input's
    /// [`super::inputs::FitInput::llama_cpp_host_weights`] (llama.cpp's default: pageable).
    pub host_weights: Option<HostWeightMemory>,
}

impl LlamaCppFlags {
    /// Whether any placement flag was given (a load flag, [`LlamaCppFlags::host_weights`],
    /// alone is not one: it changes the copy rate of whatever placement is estimated).
    pub fn any(&self) -> bool {
        self.n_gpu_layers.is_some()
            || self.n_cpu_moe.is_some()
            || !self.overrides.is_empty()
            || self.split_mode != SplitMode::Layer
            || self.tensor_split.is_some()
            || self.ubatch.is_some()
    }
}

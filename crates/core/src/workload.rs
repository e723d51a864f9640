//! The workload vocabulary: what a build's `workload` names and the estimator reads — the
//! training or serving [`Mode`], the weight [`Precision`], the inference [`Runtime`], the
//! [`Parallelism`] and the [`Interconnect`] between nodes. The bottom of the core: it imports
//! nothing of the crate, so the build file ([`crate::rig::Workload`]) stores these types and
//! the estimator (`crate::estimate::llm`, which re-exports them and adds their figures:
//! bits per weight, runtime efficiencies) reads them without parsing strings again.
//!
//! Each type's [`FromStr`] accepts its names case-insensitively with a few aliases, and its
//! [`fmt::Display`] writes the canonical name, which [`FromStr`] reads back (the names the
//! build files use: `bf16`, `q4_k_m`, `inference`, `tp:8`, `ib-ndr`). [`text`] and
//! [`text_opt`] are the serde adapters that store them in files as those strings.

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

mod backend;
mod parallel;
mod runtime;
mod training;

pub use backend::LlamaCppBackend;
pub use parallel::{IB_LATENCY_S, Interconnect, Parallelism, ROCE_LATENCY_S, TCP_LATENCY_S};
pub use runtime::Runtime;
pub use training::{LoraTargets, RuntimeChoice, TrainPlan, Trainer, TrainingRuntime, parse_training_runtime};

/// What the GPUs do with the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Serving: weights, KV cache, a working buffer.
    #[default]
    Inference,
    /// Full fine-tune with mixed-precision `AdamW`: every weight trained.
    FullFineTune,
    /// `LoRA`: frozen base weights plus trainable low-rank adapters.
    Lora,
    /// `QLoRA`: `LoRA` over a 4-bit NF4 base.
    Qlora,
}

impl Mode {
    /// The name build files store (`inference`, `full-fine-tune`, `lora`, `qlora`): the one
    /// the window has always written, which [`FromStr`] reads back. [`fmt::Display`] gives the
    /// shorter command-line name (`full`).
    pub fn file_name(self) -> &'static str {
        match self {
            Mode::Inference => "inference",
            Mode::FullFineTune => "full-fine-tune",
            Mode::Lora => "lora",
            Mode::Qlora => "qlora",
        }
    }

    /// Whether the mode trains (needs gradients, optimizer states, activations for backward).
    pub fn is_training(self) -> bool {
        !matches!(self, Mode::Inference)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Inference => "inference",
            Mode::FullFineTune => "full",
            Mode::Lora => "lora",
            Mode::Qlora => "qlora",
        })
    }
}

impl FromStr for Mode {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "inference" | "infer" | "serve" => Ok(Mode::Inference),
            "full" | "full_fine_tune" | "full-fine-tune" | "finetune" | "fine-tune" => Ok(Mode::FullFineTune),
            "lora" => Ok(Mode::Lora),
            "qlora" => Ok(Mode::Qlora),
            _ => Err(ParseError(format!("unknown mode `{s}` (inference, full, lora, qlora)"))),
        }
    }
}

/// Number format of weights (and, for the estimator's KV-cache precision, of the KV cache).
///
/// GGUF types are counted by their bits per weight measured over a whole file (llama.cpp
/// quantize README, Llama-3.1-8B), so the mixed precisions of a GGUF file are included.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(non_camel_case_types, reason = "GGUF types spelled as llama.cpp spells them")]
pub enum Precision {
    /// 32-bit float.
    #[serde(rename = "fp32")]
    Fp32,
    /// bfloat16.
    #[serde(rename = "bf16")]
    Bf16,
    /// IEEE half.
    #[serde(rename = "fp16")]
    Fp16,
    /// FP8 (E4M3) weights; embeddings and LM head stay 16-bit.
    #[serde(rename = "fp8")]
    Fp8,
    /// INT8 weights (W8A8 or weight-only); embeddings and LM head stay 16-bit.
    #[serde(rename = "int8")]
    Int8,
    /// 4-bit AWQ/GPTQ, group 128 ([`INT4_BITS`](crate::estimate::llm::INT4_BITS)); embeddings and LM head stay 16-bit.
    #[serde(rename = "int4")]
    Int4,
    /// GGUF `Q4_0`, 4.5 bits per weight.
    #[serde(rename = "q4_0")]
    Q4_0,
    /// GGUF `Q4_K_M`, 4.894 bits per weight.
    #[serde(rename = "q4_k_m")]
    Q4_K_M,
    /// GGUF `Q5_K_M`, 5.704 bits per weight.
    #[serde(rename = "q5_k_m")]
    Q5_K_M,
    /// GGUF `Q6_K`, 6.563 bits per weight.
    #[serde(rename = "q6_k")]
    Q6_K,
    /// GGUF `Q8_0`, 8.501 bits per weight.
    #[serde(rename = "q8_0")]
    Q8_0,
    /// GGUF `Q2_K` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "q2_k")]
    Q2_K,
    /// GGUF `Q2_K_S` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "q2_k_s")]
    Q2_K_S,
    /// GGUF `Q3_K_S` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "q3_k_s")]
    Q3_K_S,
    /// GGUF `Q3_K_M` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "q3_k_m")]
    Q3_K_M,
    /// GGUF `Q3_K_L` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "q3_k_l")]
    Q3_K_L,
    /// GGUF `IQ1_S` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq1_s")]
    IQ1_S,
    /// GGUF `IQ1_M` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq1_m")]
    IQ1_M,
    /// GGUF `IQ2_XXS` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq2_xxs")]
    IQ2_XXS,
    /// GGUF `IQ2_XS` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq2_xs")]
    IQ2_XS,
    /// GGUF `IQ2_S` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq2_s")]
    IQ2_S,
    /// GGUF `IQ2_M` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq2_m")]
    IQ2_M,
    /// GGUF `IQ3_XXS` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq3_xxs")]
    IQ3_XXS,
    /// GGUF `IQ3_XS` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq3_xs")]
    IQ3_XS,
    /// GGUF `IQ3_S` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq3_s")]
    IQ3_S,
    /// GGUF `IQ3_M` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq3_m")]
    IQ3_M,
    /// GGUF `IQ4_XS` mix: each tensor at the type llama.cpp's `llama-quantize` gives it
    /// ([`crate::estimate::llm::gguf_mix`]).
    #[serde(rename = "iq4_xs")]
    IQ4_XS,
    /// Any other quantization given by its average bits per weight over the whole model
    /// (EXL2 4.5 bpw, HQQ, ...), dequantized to FP16 for matrix multiplies.
    #[serde(rename = "bpw")]
    Bpw(f64),
    /// OCP MXFP4 as gpt-oss publishes it: the routed MoE experts in MXFP4 (4.25 bits with
    /// their E8M0 scales), attention, router, embeddings and LM head in BF16. A dense model
    /// gets MXFP4 for all its layer weights.
    #[serde(rename = "mxfp4")]
    Mxfp4,
    /// NVIDIA NVFP4 (TensorRT Model Optimizer checkpoints): every layer's linear weights at
    /// 4.5 bits with their FP8 scales, embeddings and LM head in BF16.
    #[serde(rename = "nvfp4")]
    Nvfp4,
    /// Block-scaled FP8 (DeepSeek-V3/R1, Qwen3 FP8): layer weights in FP8 E4M3 with one FP32
    /// scale per 128×128 block, embeddings and LM head in BF16.
    #[serde(rename = "fp8-block")]
    Fp8Block,
    /// The checkpoint as published: each tensor group in the preset's own format
    /// ([`kraftwerk_catalog::Checkpoint`]); refused for a model without one.
    #[serde(rename = "native")]
    Native,
}

impl Precision {
    /// Every named precision (not [`Precision::Bpw`]), in menu order.
    pub const NAMED: [Precision; 30] = [
        Precision::Fp32,
        Precision::Bf16,
        Precision::Fp16,
        Precision::Fp8,
        Precision::Int8,
        Precision::Int4,
        Precision::Q4_0,
        Precision::Q4_K_M,
        Precision::Q5_K_M,
        Precision::Q6_K,
        Precision::Q8_0,
        Precision::Mxfp4,
        Precision::Nvfp4,
        Precision::Fp8Block,
        Precision::Q2_K,
        Precision::Q2_K_S,
        Precision::Q3_K_S,
        Precision::Q3_K_M,
        Precision::Q3_K_L,
        Precision::IQ1_S,
        Precision::IQ1_M,
        Precision::IQ2_XXS,
        Precision::IQ2_XS,
        Precision::IQ2_S,
        Precision::IQ2_M,
        Precision::IQ3_XXS,
        Precision::IQ3_XS,
        Precision::IQ3_S,
        Precision::IQ3_M,
        Precision::IQ4_XS,
    ];

    /// The sub-4-bit GGUF file types, whose bytes are counted per tensor as llama.cpp
    /// quantizes them ([`crate::estimate::llm::gguf_mix`]).
    pub(crate) const GGUF_MIXES: [Precision; 16] = [
        Precision::Q2_K,
        Precision::Q2_K_S,
        Precision::Q3_K_S,
        Precision::Q3_K_M,
        Precision::Q3_K_L,
        Precision::IQ1_S,
        Precision::IQ1_M,
        Precision::IQ2_XXS,
        Precision::IQ2_XS,
        Precision::IQ2_S,
        Precision::IQ2_M,
        Precision::IQ3_XXS,
        Precision::IQ3_XS,
        Precision::IQ3_S,
        Precision::IQ3_M,
        Precision::IQ4_XS,
    ];

    /// Whether the precision stores tensor groups in different formats (the per-tensor
    /// formats: [`Precision::Mxfp4`], [`Precision::Nvfp4`], [`Precision::Fp8Block`],
    /// [`Precision::Native`]); their bytes are counted per group, not by one bits-per-weight.
    pub(crate) fn is_per_group(self) -> bool {
        matches!(self, Precision::Mxfp4 | Precision::Nvfp4 | Precision::Fp8Block | Precision::Native)
    }

    /// Whether this is a GGUF (llama.cpp) type.
    pub fn is_gguf(self) -> bool {
        matches!(self, Precision::Q4_0 | Precision::Q4_K_M | Precision::Q5_K_M | Precision::Q6_K | Precision::Q8_0)
            || Precision::GGUF_MIXES.contains(&self)
    }

    /// Whether the format keeps the token embedding and LM head in 16 bits while quantizing the
    /// transformer layers (vLLM FP8, AWQ/GPTQ and INT8 checkpoints do; GGUF bits are whole-file
    /// averages and already include them).
    pub(crate) fn keeps_embeddings_16bit(self) -> bool {
        matches!(
            self,
            Precision::Fp8
                | Precision::Int8
                | Precision::Int4
                | Precision::Mxfp4
                | Precision::Nvfp4
                | Precision::Fp8Block
                | Precision::Native
        )
    }

    /// Whether weights are dequantized to FP16 before each matrix multiply (so the FP16 tensor
    /// rate applies).
    pub fn dequantizes_to_fp16(self) -> bool {
        self.is_gguf() || matches!(self, Precision::Int4 | Precision::Bpw(_) | Precision::Mxfp4 | Precision::Nvfp4)
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Precision::Fp32 => f.write_str("fp32"),
            Precision::Bf16 => f.write_str("bf16"),
            Precision::Fp16 => f.write_str("fp16"),
            Precision::Fp8 => f.write_str("fp8"),
            Precision::Int8 => f.write_str("int8"),
            Precision::Int4 => f.write_str("int4"),
            Precision::Q4_0 => f.write_str("q4_0"),
            Precision::Q4_K_M => f.write_str("q4_k_m"),
            Precision::Q5_K_M => f.write_str("q5_k_m"),
            Precision::Q6_K => f.write_str("q6_k"),
            Precision::Q8_0 => f.write_str("q8_0"),
            Precision::Q2_K => f.write_str("q2_k"),
            Precision::Q2_K_S => f.write_str("q2_k_s"),
            Precision::Q3_K_S => f.write_str("q3_k_s"),
            Precision::Q3_K_M => f.write_str("q3_k_m"),
            Precision::Q3_K_L => f.write_str("q3_k_l"),
            Precision::IQ1_S => f.write_str("iq1_s"),
            Precision::IQ1_M => f.write_str("iq1_m"),
            Precision::IQ2_XXS => f.write_str("iq2_xxs"),
            Precision::IQ2_XS => f.write_str("iq2_xs"),
            Precision::IQ2_S => f.write_str("iq2_s"),
            Precision::IQ2_M => f.write_str("iq2_m"),
            Precision::IQ3_XXS => f.write_str("iq3_xxs"),
            Precision::IQ3_XS => f.write_str("iq3_xs"),
            Precision::IQ3_S => f.write_str("iq3_s"),
            Precision::IQ3_M => f.write_str("iq3_m"),
            Precision::IQ4_XS => f.write_str("iq4_xs"),
            Precision::Bpw(bits) => write!(f, "{bits}bpw"),
            Precision::Mxfp4 => f.write_str("mxfp4"),
            Precision::Nvfp4 => f.write_str("nvfp4"),
            Precision::Fp8Block => f.write_str("fp8-block"),
            Precision::Native => f.write_str("native"),
        }
    }
}

impl FromStr for Precision {
    type Err = ParseError;
    /// Accepts the names of [`fmt::Display`] (case-insensitive), `f32`/`f16` aliases, and
    /// `4.5bpw` or `bpw:4.5` for [`Precision::Bpw`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let named = match lower.as_str() {
            "fp32" | "f32" | "float32" => Some(Precision::Fp32),
            "bf16" | "bfloat16" => Some(Precision::Bf16),
            "fp16" | "f16" | "float16" | "half" => Some(Precision::Fp16),
            "fp8" | "f8" | "e4m3" => Some(Precision::Fp8),
            "int8" | "w8a8" => Some(Precision::Int8),
            "int4" | "awq" | "gptq" | "w4a16" => Some(Precision::Int4),
            "q4_0" => Some(Precision::Q4_0),
            "q4_k_m" => Some(Precision::Q4_K_M),
            "q5_k_m" => Some(Precision::Q5_K_M),
            "q6_k" => Some(Precision::Q6_K),
            "q8_0" => Some(Precision::Q8_0),
            "q2_k" => Some(Precision::Q2_K),
            "q2_k_s" => Some(Precision::Q2_K_S),
            "q3_k_s" => Some(Precision::Q3_K_S),
            "q3_k_m" => Some(Precision::Q3_K_M),
            "q3_k_l" => Some(Precision::Q3_K_L),
            "iq1_s" => Some(Precision::IQ1_S),
            "iq1_m" => Some(Precision::IQ1_M),
            "iq2_xxs" => Some(Precision::IQ2_XXS),
            "iq2_xs" => Some(Precision::IQ2_XS),
            "iq2_s" => Some(Precision::IQ2_S),
            "iq2_m" => Some(Precision::IQ2_M),
            "iq3_xxs" => Some(Precision::IQ3_XXS),
            "iq3_xs" => Some(Precision::IQ3_XS),
            "iq3_s" => Some(Precision::IQ3_S),
            "iq3_m" => Some(Precision::IQ3_M),
            "iq4_xs" => Some(Precision::IQ4_XS),
            "mxfp4" => Some(Precision::Mxfp4),
            "nvfp4" => Some(Precision::Nvfp4),
            "fp8-block" | "fp8_block" | "fp8block" => Some(Precision::Fp8Block),
            "native" | "published" => Some(Precision::Native),
            _ => None,
        };
        if let Some(p) = named {
            return Ok(p);
        }
        if lower.starts_with("ud-") || lower.starts_with("ud_") {
            return Err(ParseError(format!(
                "`{s}` is one of Unsloth's dynamic quants: Unsloth picks each tensor's type per model, \
                 so its bytes are not known from the name; give the file (its GGUF header has every \
                 tensor's type) or its published size as bits per weight with the runtime (e.g. --precision 2.7bpw --runtime llama.cpp)"
            )));
        }
        let number = lower.strip_suffix("bpw").or_else(|| lower.strip_prefix("bpw:"));
        if let Some(bits) = number.and_then(|n| n.trim().parse::<f64>().ok())
            && bits.is_finite()
            && bits > 0.0
            && bits <= 32.0
        {
            return Ok(Precision::Bpw(bits));
        }
        Err(ParseError(format!(
            "unknown precision `{s}` (fp32, bf16, fp16, fp8, int8, int4, q4_0, q4_k_m, q5_k_m, \
             q6_k, q8_0, mxfp4, nvfp4, fp8-block, native, the GGUF mixes q2_k, q2_k_s, q3_k_s, \
             q3_k_m, q3_k_l, iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq2_m, iq3_xxs, iq3_xs, iq3_s, \
             iq3_m, iq4_xs, or e.g. 4.5bpw)"
        )))
    }
}

/// A string that does not name a mode, precision, runtime or parallelism.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

/// Serde adapter for a workload field stored as its name (`#[serde(with = "crate::workload::text")]`):
/// written with [`fmt::Display`], read with [`FromStr`]. A name the type does not know is a
/// deserialization error carrying the type's message (the accepted names), which the build
/// file's loader locates at the field's key.
pub mod text {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    /// Writes `value` as its name.
    ///
    /// # Errors
    /// Only the serializer's own.
    pub(crate) fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    /// Reads a name and parses it.
    ///
    /// # Errors
    /// Not a string, or a string [`FromStr`] refuses (its message).
    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Serde adapter for [`Mode`] in a build file: written as [`Mode::file_name`], read with
/// [`FromStr`] (an unknown mode is an error listing the accepted names).
pub mod mode_text {
    use super::Mode;
    use serde::{Deserializer, Serializer};

    /// Writes the mode's file name.
    ///
    /// # Errors
    /// Only the serializer's own.
    #[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's `with` passes a reference")]
    pub(crate) fn serialize<S: Serializer>(mode: &Mode, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(mode.file_name())
    }

    /// Reads a mode name.
    ///
    /// # Errors
    /// Not a string, or not a mode's name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Mode, D::Error> {
        super::text::deserialize(d)
    }
}

/// [`text`] for an optional field (`None` is written as RON's `None`, a name as the name).
pub mod text_opt {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    /// Writes `Some(value)` as its name, `None` as none.
    ///
    /// # Errors
    /// Only the serializer's own.
    #[allow(clippy::ref_option, reason = "serde's `with` passes `&Option<T>`")]
    pub(crate) fn serialize<T: Display, S: Serializer>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.serialize_some(&v.to_string()),
            None => s.serialize_none(),
        }
    }

    /// Reads an optional name and parses it.
    ///
    /// # Errors
    /// Not a string, or a string [`FromStr`] refuses (its message).
    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        match Option::<String>::deserialize(d)? {
            Some(name) => name.parse().map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }
}

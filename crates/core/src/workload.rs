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
    pub const GGUF_MIXES: [Precision; 16] = [
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
    pub fn is_per_group(self) -> bool {
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
    pub fn keeps_embeddings_16bit(self) -> bool {
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
                 tensor's type) or its published size as bits per weight (e.g. 2.7bpw)"
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

/// The inference runtime, which decides efficiencies, buffers and how a split behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Runtime {
    /// llama.cpp and what wraps it (ollama, LM Studio): GGUF.
    LlamaCpp,
    /// `ExLlamaV2` / tabbyAPI: EXL2.
    ExLlamaV2,
    /// vLLM (and similar `PyTorch` servers): BF16, FP8, AWQ/GPTQ.
    Vllm,
    /// SGLang: a `PyTorch` server like vLLM (CUDA graphs, paged KV, chunked prefill of 8192
    /// tokens on 35-160 GB GPUs). Memory: vLLM's model (its `mem_fraction_static` plays the
    /// part of `gpu_memory_utilization`).
    Sglang,
    /// TensorRT-LLM (PyTorch backend since v0.19, `trtllm-bench` / `trtllm-serve`): CUDA
    /// graphs, in-flight batching, `max_num_tokens` 8192. Memory: vLLM's model (its
    /// `kv_cache_free_gpu_mem_fraction` 0.90 plays the part of `gpu_memory_utilization`).
    TensorRtLlm,
    /// ik_llama.cpp (ikawrakow's llama.cpp fork: GGUF, its own quant types, `-sm graph`
    /// tensor split, MLA and fused MoE kernels for CPU+GPU hybrid). Memory: llama.cpp's model.
    IkLlamaCpp,
    /// ktransformers (kvcache-ai): MoE experts on the CPU (AMX/AVX-512 kernels), attention,
    /// shared experts and KV on one GPU. Memory: llama.cpp's model for the GPU side (the
    /// experts live in system RAM, see [`crate::estimate::llm::search::llama_cpp_moe_offload`]).
    KTransformers,
}

impl Runtime {
    /// Every runtime, in the order `--runtime` lists them.
    pub const ALL: [Runtime; 7] = [
        Runtime::LlamaCpp,
        Runtime::IkLlamaCpp,
        Runtime::ExLlamaV2,
        Runtime::Vllm,
        Runtime::Sglang,
        Runtime::TensorRtLlm,
        Runtime::KTransformers,
    ];

    /// Whether the runtime is llama.cpp or a fork of it (GGUF, `-ngl`, `--n-cpu-moe`).
    pub fn is_llama_cpp_family(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::IkLlamaCpp)
    }

    /// Whether the runtime loads weights stored at `precision`, by its documentation:
    ///
    /// - llama.cpp, ik_llama.cpp: GGUF files only ("llama.cpp requires the model to be stored in
    ///   the GGUF file format", <https://github.com/ggml-org/llama.cpp/blob/master/README.md>):
    ///   the GGUF quants, F32/F16/BF16 and MXFP4 GGUF files; not AWQ/GPTQ `int4`, FP8, INT8,
    ///   NVFP4, block FP8 or EXL2 bits per weight.
    /// - ExLlamaV2: EXL2 and 4-bit GPTQ, besides FP16/BF16 weights ("ExLlamaV2 supports the same
    ///   4-bit GPTQ models as V1, but also a new \"EXL2\" format",
    ///   <https://github.com/turboderp-org/exllamav2/blob/master/README.md>); not GGUF, FP8,
    ///   INT8 or the FP4 formats.
    /// - vLLM, SGLang: AWQ, GPTQ, INT8/FP8 W8A8, GGUF, ... (vLLM's quantization list,
    ///   <https://docs.vllm.ai/en/v0.14.0/features/quantization/>); not EXL2
    ///   (<https://github.com/vllm-project/vllm/issues/3203>).
    /// - TensorRT-LLM: FP8, FP4 (NVFP4, MXFP4), INT8, W4A16/W4A8 AWQ and GPTQ
    ///   (<https://nvidia.github.io/TensorRT-LLM/features/quantization.html>); not GGUF or EXL2.
    /// - ktransformers: GGUF and safetensors checkpoints; not EXL2.
    ///
    /// [`Precision::Native`] (the checkpoint as published) is not judged here.
    ///
    /// # Errors
    /// Names the runtime, the precision and the formats the runtime documents, with the source.
    pub fn loads(self, precision: Precision) -> Result<(), String> {
        use Precision as P;
        let p = precision;
        let refused = match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp => {
                matches!(p, P::Int4 | P::Int8 | P::Fp8 | P::Fp8Block | P::Nvfp4 | P::Bpw(_))
            }
            Runtime::ExLlamaV2 => p.is_gguf() || matches!(p, P::Fp8 | P::Fp8Block | P::Int8 | P::Mxfp4 | P::Nvfp4),
            Runtime::Vllm | Runtime::Sglang | Runtime::KTransformers => matches!(p, P::Bpw(_)),
            Runtime::TensorRtLlm => p.is_gguf() || matches!(p, P::Bpw(_)),
        };
        if !refused {
            return Ok(());
        }
        let what = if p.is_gguf() {
            "a GGUF quant"
        } else {
            match p {
                P::Int4 => "AWQ/GPTQ 4-bit weights",
                P::Bpw(_) => "EXL2 bits per weight",
                P::Fp8 | P::Fp8Block => "FP8 weights",
                P::Int8 => "INT8 W8A8 weights",
                P::Nvfp4 | P::Mxfp4 => "FP4 weights",
                _ => "that format",
            }
        };
        let (formats, source, instead) = match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp => (
                "GGUF files only (q4_0, q4_k_m, q5_k_m, q6_k, q8_0, bf16/fp16, mxfp4)",
                "https://github.com/ggml-org/llama.cpp/blob/master/README.md",
                "a GGUF quant such as q4_k_m",
            ),
            Runtime::ExLlamaV2 => (
                "EXL2 (e.g. 4.5bpw), 4-bit GPTQ (int4) and FP16/BF16 weights",
                "https://github.com/turboderp-org/exllamav2/blob/master/README.md",
                "an EXL2 precision such as 4.5bpw, or --runtime llama.cpp for GGUF",
            ),
            Runtime::TensorRtLlm => (
                "BF16/FP16, FP8, FP4 (nvfp4, mxfp4), INT8 and AWQ/GPTQ int4",
                "https://nvidia.github.io/TensorRT-LLM/features/quantization.html",
                "int4, fp8 or nvfp4, or --runtime llama.cpp for GGUF",
            ),
            Runtime::Vllm | Runtime::Sglang | Runtime::KTransformers => (
                "BF16/FP16, FP8, INT8, AWQ/GPTQ int4 and GGUF, not EXL2",
                "https://docs.vllm.ai/en/v0.14.0/features/quantization/",
                "int4 (AWQ/GPTQ), or --runtime exllamav2 for EXL2",
            ),
        };
        Err(format!("{self} cannot load {p} ({what}): {self} loads {formats} ({source}); use {instead}"))
    }

    /// The runtime that usually serves a precision: GGUF → llama.cpp, [`Precision::Bpw`] →
    /// `ExLlamaV2`, everything else → vLLM.
    pub fn default_for(precision: Precision) -> Runtime {
        if precision.is_gguf() {
            Runtime::LlamaCpp
        } else if matches!(precision, Precision::Bpw(_)) {
            Runtime::ExLlamaV2
        } else {
            Runtime::Vllm
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Runtime::LlamaCpp => "llama.cpp",
            Runtime::ExLlamaV2 => "exllamav2",
            Runtime::Vllm => "vllm",
            Runtime::Sglang => "sglang",
            Runtime::TensorRtLlm => "tensorrt-llm",
            Runtime::IkLlamaCpp => "ik_llama.cpp",
            Runtime::KTransformers => "ktransformers",
        })
    }
}

impl FromStr for Runtime {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "llama.cpp" | "llamacpp" | "llama_cpp" | "ollama" | "gguf" => Ok(Runtime::LlamaCpp),
            "exllamav2" | "exllama" | "exl2" | "tabby" | "tabbyapi" => Ok(Runtime::ExLlamaV2),
            "vllm" | "pytorch" => Ok(Runtime::Vllm),
            "sglang" => Ok(Runtime::Sglang),
            "tensorrt-llm" | "tensorrt_llm" | "trt-llm" | "trtllm" => Ok(Runtime::TensorRtLlm),
            "ik_llama.cpp" | "ik-llama.cpp" | "ik_llama" | "ik-llama" | "ikllama" => Ok(Runtime::IkLlamaCpp),
            "ktransformers" | "kt" => Ok(Runtime::KTransformers),
            _ => Err(ParseError(format!(
                "unknown runtime `{s}` (accepted: {})",
                Runtime::ALL.map(|r| r.to_string()).join(", ")
            ))),
        }
    }
}

/// The training framework a fine-tune runs under (`--runtime` in a training mode): what it
/// allocates on each GPU and the command that measures it are in
/// `crate::estimate::llm::train`. A training mode never runs under an inference [`Runtime`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Trainer {
    /// Hugging Face Transformers `Trainer` + PEFT adapters (bitsandbytes NF4 base for QLoRA,
    /// `prepare_model_for_kbit_training`), one GPU or DDP through `accelerate`/`torchrun`.
    #[serde(rename = "hf-peft")]
    HfPeft,
    /// Unsloth (`FastLanguageModel`): fused kernels, chunked cross-entropy, gradient-checkpoint
    /// tensors offloaded to host RAM (`use_gradient_checkpointing="unsloth"`).
    #[serde(rename = "unsloth")]
    Unsloth,
    /// Axolotl (a YAML front end to the Transformers `Trainer` + PEFT, with DeepSpeed or FSDP
    /// configs): allocates as [`Trainer::HfPeft`].
    #[serde(rename = "axolotl")]
    Axolotl,
    /// torchtune (PyTorch-native recipes): the whole model, adapters and optimizer states in
    /// BF16, chunked cross-entropy, FSDP2 on several GPUs.
    #[serde(rename = "torchtune")]
    Torchtune,
    /// DeepSpeed ZeRO stage 1-3 under the Transformers `Trainer` (the stage is
    /// `FitInput::zero_stage`; CPU offload of optimizer states and, at stage 3, parameters).
    #[serde(rename = "deepspeed")]
    DeepSpeed,
    /// PyTorch FSDP (full shard) under `accelerate`: parameters, gradients and optimizer states
    /// sharded over the data-parallel ranks, optionally offloaded to host RAM.
    #[serde(rename = "fsdp")]
    Fsdp,
}

impl Trainer {
    /// Every training framework, in the order `--runtime` lists them.
    pub const ALL: [Trainer; 6] =
        [Trainer::HfPeft, Trainer::Unsloth, Trainer::Axolotl, Trainer::Torchtune, Trainer::DeepSpeed, Trainer::Fsdp];
}

impl fmt::Display for Trainer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Trainer::HfPeft => "hf-peft",
            Trainer::Unsloth => "unsloth",
            Trainer::Axolotl => "axolotl",
            Trainer::Torchtune => "torchtune",
            Trainer::DeepSpeed => "deepspeed",
            Trainer::Fsdp => "fsdp",
        })
    }
}

impl FromStr for Trainer {
    type Err = ParseError;
    /// The names of [`fmt::Display`], case-insensitive, and aliases (`hf`, `transformers`,
    /// `peft`, `trl`, `ds`, `zero`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "hf-peft" | "hf" | "transformers" | "peft" | "trl" | "huggingface" => Ok(Trainer::HfPeft),
            "unsloth" => Ok(Trainer::Unsloth),
            "axolotl" => Ok(Trainer::Axolotl),
            "torchtune" | "tune" => Ok(Trainer::Torchtune),
            "deepspeed" | "ds" | "zero" => Ok(Trainer::DeepSpeed),
            "fsdp" | "fsdp2" => Ok(Trainer::Fsdp),
            _ => Err(ParseError(format!(
                "unknown training runtime `{s}` (accepted: {}; deepspeed-zero1/2/3[-offload], fsdp-offload)",
                Trainer::ALL.map(|r| r.to_string()).join(", ")
            ))),
        }
    }
}

/// A training runtime as `--runtime` names it: the framework, the ZeRO stage where the name
/// gives one (`deepspeed-zero2`, `zero3`), and whether it offloads to host RAM (`-offload`).
///
/// # Errors
/// A name that is no training runtime, or a ZeRO stage above 3.
pub fn parse_training_runtime(s: &str) -> Result<(Trainer, Option<u8>, bool), ParseError> {
    let lower = s.trim().to_ascii_lowercase().replace('_', "-");
    let (base, offload) = match lower.strip_suffix("-offload") {
        Some(b) => (b.to_owned(), true),
        None => (lower.clone(), false),
    };
    let zero = |rest: &str| -> Result<u8, ParseError> {
        match rest.trim_start_matches('-') {
            "1" => Ok(1),
            "2" => Ok(2),
            "3" => Ok(3),
            _ => Err(ParseError(format!("unknown ZeRO stage in `{s}` (zero1, zero2, zero3)"))),
        }
    };
    if let Some(rest) = base.strip_prefix("deepspeed-zero").or_else(|| base.strip_prefix("ds-zero")) {
        return Ok((Trainer::DeepSpeed, Some(zero(rest)?), offload));
    }
    if let Some(rest) = base.strip_prefix("zero")
        && !rest.is_empty()
    {
        return Ok((Trainer::DeepSpeed, Some(zero(rest)?), offload));
    }
    Ok((base.parse()?, None, offload))
}

/// What a training run is for beyond one step: the dataset and the global batch (the advice's
/// hours and accumulation steps).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TrainPlan {
    /// Tokens in the dataset.
    pub dataset_tokens: Option<f64>,
    /// Passes over it (`None` = 1).
    pub epochs: Option<f64>,
    /// Sequences per optimizer step over all GPUs.
    pub global_batch: Option<u32>,
}

/// Which linear layers of every transformer layer carry `LoRA` adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LoraTargets {
    /// q, k, v, o, gate, up and down (the QLoRA paper's "all linear layers"; Unsloth's and
    /// Axolotl's `lora_target_linear`).
    #[default]
    #[serde(rename = "all")]
    AllLinear,
    /// q, k, v and o.
    #[serde(rename = "attention")]
    Attention,
    /// q and v only (PEFT's default for Llama: `target_modules=["q_proj", "v_proj"]`).
    #[serde(rename = "qv")]
    QueryValue,
}

impl fmt::Display for LoraTargets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LoraTargets::AllLinear => "all",
            LoraTargets::Attention => "attention",
            LoraTargets::QueryValue => "qv",
        })
    }
}

impl FromStr for LoraTargets {
    type Err = ParseError;
    /// `all` (or `all-linear`), `attention` (or `qkvo`), `qv`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "all" | "all-linear" | "linear" => Ok(LoraTargets::AllLinear),
            "attention" | "attn" | "qkvo" => Ok(LoraTargets::Attention),
            "qv" | "q,v" => Ok(LoraTargets::QueryValue),
            _ => Err(ParseError(format!("unknown LoRA targets `{s}` (all, attention, qv)"))),
        }
    }
}

/// How the model is spread over the GPUs. The degree counts GPUs from the start of the slice
/// given to the estimate (`crate::estimate::llm::estimate`); further GPUs stay idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parallelism {
    /// One GPU (the first).
    #[default]
    Single,
    /// Tensor parallel over n GPUs: each holds 1/n of every weight; two all-reduces per layer.
    TensorParallel(u32),
    /// Layers split over n GPUs (llama.cpp `--split-mode layer`, pipeline parallel): each holds
    /// its layers; they run one after another.
    LayerSplit(u32),
    /// n replicas (inference) or n data-parallel ranks (training, sharded by the ZeRO stage).
    DataParallel(u32),
    /// Tensor × pipeline parallel (vLLM `--tensor-parallel-size tp --pipeline-parallel-size
    /// pp`): `tp × pp` GPUs per replica, ranks numbered tensor-fastest (stage `j` holds GPUs
    /// `j·tp .. (j+1)·tp`). The layers are split over the `pp` stages, each layer's heads and
    /// FFN columns over the `tp` ranks of its stage; one activation handoff per stage boundary.
    TensorPipeline {
        /// Tensor-parallel ranks per stage.
        tp: u32,
        /// Pipeline stages.
        pp: u32,
    },
}

impl Parallelism {
    /// GPUs used.
    pub fn degree(self) -> u32 {
        match self {
            Parallelism::Single => 1,
            Parallelism::TensorParallel(n) | Parallelism::LayerSplit(n) | Parallelism::DataParallel(n) => n,
            Parallelism::TensorPipeline { tp, pp } => tp.saturating_mul(pp),
        }
    }

    /// Tensor-parallel ranks each layer is split over (1 unless tensor parallel).
    pub fn tp_degree(self) -> u32 {
        match self {
            Parallelism::TensorParallel(t) | Parallelism::TensorPipeline { tp: t, .. } => t.max(1),
            Parallelism::Single | Parallelism::LayerSplit(_) | Parallelism::DataParallel(_) => 1,
        }
    }

    /// Pipeline stages of [`Parallelism::TensorPipeline`] (1 otherwise; a
    /// [`Parallelism::LayerSplit`] is llama.cpp's sequential split, not counted here).
    pub fn pp_degree(self) -> u32 {
        match self {
            Parallelism::TensorPipeline { pp, .. } => pp.max(1),
            Parallelism::Single
            | Parallelism::TensorParallel(_)
            | Parallelism::LayerSplit(_)
            | Parallelism::DataParallel(_) => 1,
        }
    }
}

impl fmt::Display for Parallelism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Parallelism::Single => f.write_str("single"),
            Parallelism::TensorParallel(n) => write!(f, "tp:{n}"),
            Parallelism::LayerSplit(n) => write!(f, "split:{n}"),
            Parallelism::DataParallel(n) => write!(f, "dp:{n}"),
            Parallelism::TensorPipeline { tp, pp } => write!(f, "tp:{tp},pp:{pp}"),
        }
    }
}

impl FromStr for Parallelism {
    type Err = ParseError;
    /// `single`, `tp:N`, `split:N` (or `layer:N`, `pp:N`), `dp:N`, and tensor × pipeline
    /// `tp:N,pp:M` (either order; `pp:M` alone stays the layer split it always was).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "single" || lower == "1" {
            return Ok(Parallelism::Single);
        }
        let bad = || ParseError(format!("unknown parallelism `{s}` (single, tp:N, split:N, dp:N, tp:N,pp:M)"));
        if let Some((a, b)) = lower.split_once(',') {
            let (mut tp, mut pp) = (None, None);
            for part in [a, b] {
                match part.trim().parse::<Parallelism>().map_err(|_| bad())? {
                    Parallelism::TensorParallel(t) if tp.is_none() => tp = Some(t),
                    Parallelism::LayerSplit(p) if pp.is_none() => pp = Some(p),
                    _ => return Err(bad()),
                }
            }
            return match (tp, pp) {
                (Some(tp), Some(pp)) => Ok(Parallelism::TensorPipeline { tp, pp }),
                _ => Err(bad()),
            };
        }
        let (kind, n) = lower.split_once([':', '=']).ok_or_else(bad)?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        match kind.trim() {
            "tp" | "tensor" | "tensor_parallel" => Ok(Parallelism::TensorParallel(n)),
            "split" | "layer" | "layers" | "pp" | "layer_split" => Ok(Parallelism::LayerSplit(n)),
            "dp" | "data" | "data_parallel" => Ok(Parallelism::DataParallel(n)),
            _ => Err(bad()),
        }
    }
}

/// A string that does not name a mode, precision, runtime or parallelism.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

/// The network between nodes, one port (NIC) per node assumed.
///
/// Rates are the signalling rate of one port: InfiniBand HDR 200 Gb/s and NDR 400 Gb/s per 4x
/// port (InfiniBand Trade Association roadmap); Ethernet
/// and RoCE (RDMA over Converged Ethernet, IBTA RoCEv2 annex) at 10/25/100/200/400 Gb/s (IEEE
/// 802.3ae 10G, 802.3by 25G, 802.3ba 100G, 802.3bs 200/400G). Per direction in GB/s = Gb/s ÷ 8 (full duplex).
///
/// Latencies are judgement, not a published figure: the order of a small NCCL message between
/// two nodes (a few µs with RDMA through one switch; tens of µs through the kernel's TCP stack
/// without RDMA). vLLM issue 6610 (two GH200 nodes, 4 × 200 Gb/s Ethernet) shows what does
/// not change with them: doubling the bandwidth left pipeline-parallel decode unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Interconnect {
    /// InfiniBand NDR, 400 Gb/s per port.
    #[serde(rename = "ib-ndr")]
    IbNdr,
    /// InfiniBand HDR, 200 Gb/s per port.
    #[serde(rename = "ib-hdr")]
    IbHdr,
    /// RoCE v2 over 400 Gb/s Ethernet.
    #[serde(rename = "roce-400")]
    Roce400,
    /// RoCE v2 over 200 Gb/s Ethernet.
    #[serde(rename = "roce-200")]
    Roce200,
    /// RoCE v2 over 100 Gb/s Ethernet.
    #[serde(rename = "roce-100")]
    Roce100,
    /// 400 Gb/s Ethernet without RDMA (NCCL over TCP sockets).
    #[serde(rename = "eth-400")]
    Eth400,
    /// 200 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-200")]
    Eth200,
    /// 100 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-100")]
    Eth100,
    /// 25 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-25")]
    Eth25,
    /// 10 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-10")]
    Eth10,
}

/// Small-message latency with RDMA (InfiniBand), s (judgement, see [`Interconnect`]).
pub const IB_LATENCY_S: f64 = 5e-6;
/// Small-message latency with RoCE, s (judgement: RDMA through an Ethernet switch).
pub const ROCE_LATENCY_S: f64 = 8e-6;
/// Small-message latency over TCP sockets, s (judgement: kernel network stack both ends).
pub const TCP_LATENCY_S: f64 = 30e-6;

impl Interconnect {
    /// Every kind, in menu order.
    pub const ALL: [Interconnect; 10] = [
        Interconnect::IbNdr,
        Interconnect::IbHdr,
        Interconnect::Roce400,
        Interconnect::Roce200,
        Interconnect::Roce100,
        Interconnect::Eth400,
        Interconnect::Eth200,
        Interconnect::Eth100,
        Interconnect::Eth25,
        Interconnect::Eth10,
    ];

    /// Port rate, Gb/s (see the type's sources).
    pub fn rate_gbit_s(self) -> f64 {
        match self {
            Interconnect::IbNdr | Interconnect::Roce400 | Interconnect::Eth400 => 400.0,
            Interconnect::IbHdr | Interconnect::Roce200 | Interconnect::Eth200 => 200.0,
            Interconnect::Roce100 | Interconnect::Eth100 => 100.0,
            Interconnect::Eth25 => 25.0,
            Interconnect::Eth10 => 10.0,
        }
    }

    /// Bandwidth per direction, GB/s (rate ÷ 8: NDR 50, HDR 25, 100 GbE 12.5).
    pub fn per_direction_gb_s(self) -> f64 {
        self.rate_gbit_s() / 8.0
    }

    /// Typical small-message latency, s ([`IB_LATENCY_S`], [`ROCE_LATENCY_S`], [`TCP_LATENCY_S`]).
    pub fn latency_s(self) -> f64 {
        match self {
            Interconnect::IbNdr | Interconnect::IbHdr => IB_LATENCY_S,
            Interconnect::Roce400 | Interconnect::Roce200 | Interconnect::Roce100 => ROCE_LATENCY_S,
            Interconnect::Eth400
            | Interconnect::Eth200
            | Interconnect::Eth100
            | Interconnect::Eth25
            | Interconnect::Eth10 => TCP_LATENCY_S,
        }
    }

    /// Whether it moves data by RDMA (InfiniBand, RoCE).
    pub fn rdma(self) -> bool {
        self.latency_s() < TCP_LATENCY_S
    }
}

impl fmt::Display for Interconnect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interconnect::IbNdr => "ib-ndr",
            Interconnect::IbHdr => "ib-hdr",
            Interconnect::Roce400 => "roce-400",
            Interconnect::Roce200 => "roce-200",
            Interconnect::Roce100 => "roce-100",
            Interconnect::Eth400 => "eth-400",
            Interconnect::Eth200 => "eth-200",
            Interconnect::Eth100 => "eth-100",
            Interconnect::Eth25 => "eth-25",
            Interconnect::Eth10 => "eth-10",
        })
    }
}

impl FromStr for Interconnect {
    type Err = ParseError;
    /// The names of [`fmt::Display`], case-insensitive; `ndr`, `hdr` and `_` for `-` accepted.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase().replace('_', "-");
        let alias = match lower.as_str() {
            "ndr" | "infiniband-ndr" => "ib-ndr",
            "hdr" | "infiniband-hdr" => "ib-hdr",
            other => other,
        };
        Interconnect::ALL.into_iter().find(|i| i.to_string() == alias).ok_or_else(|| {
            let names: Vec<String> = Interconnect::ALL.iter().map(ToString::to_string).collect();
            ParseError(format!("unknown interconnect `{s}` ({})", names.join(", ")))
        })
    }
}

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
    pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
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
    pub fn serialize<S: Serializer>(mode: &Mode, s: S) -> Result<S::Ok, S::Error> {
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
    pub fn serialize<T: Display, S: Serializer>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
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

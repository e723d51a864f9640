//! Inputs of the LLM estimate: mode, weight and KV precision, runtime, parallelism, optimizer,
//! links, GPUs and the workload ([`FitInput`]).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use super::calibration::{
    EXLLAMA_BUFFERS_GIB, EXLLAMA_CHUNK_TOKENS, EXLLAMA_LAYER_OVERHEAD_S, EXLLAMA_PREFILL_EFFICIENCY, HEADROOM_FRACTION,
    IK_LLAMA_CPP_LAYER_OVERHEAD_S, INT4_BITS, LLAMA_CPP_BUFFERS_GIB, LLAMA_CPP_CHUNK_TOKENS,
    LLAMA_CPP_LAYER_OVERHEAD_S, LLAMA_CPP_PREFILL_EFFICIENCY, SGLANG_CHUNK_TOKENS, TRTLLM_CHUNK_TOKENS,
    VLLM_CHUNK_TOKENS, VLLM_CUDA_GRAPHS_GIB, VLLM_LAYER_OVERHEAD_S, VLLM_PREFILL_EFFICIENCY, VLLM_RESERVED_FRACTION,
};
use kraftwerk_catalog::{Gpu, LlmModel, NvLink, WeightBytes};
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

/// Number format of weights (and, for [`FitInput::kv_precision`], of the KV cache).
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
    /// 4-bit AWQ/GPTQ, group 128 ([`INT4_BITS`]); embeddings and LM head stay 16-bit.
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
    pub const NAMED: [Precision; 14] = [
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
    ];

    /// Storage bits per weight. GGUF: whole-file averages measured on Llama-3.1-8B (llama.cpp
    /// quantize README, github.com/ggml-org/llama.cpp tools/quantize): `Q4_0` 4.5, `Q4_K_M` 4.894, `Q5_K_M` 5.704, `Q6_K` 6.563,
    /// `Q8_0` 8.501. Int4: [`INT4_BITS`]. MXFP4 4.25 and NVFP4 4.5 (scales included), block
    /// FP8 8.002: the quantized groups only (embeddings stay BF16). [`Precision::Native`] has
    /// no single figure: 16 here (the BF16 most checkpoints are published in); its bytes come
    /// from the preset's checkpoint groups.
    pub fn bits_per_weight(self) -> f64 {
        match self {
            Precision::Fp32 => 32.0,
            Precision::Bf16 | Precision::Fp16 | Precision::Native => 16.0,
            Precision::Fp8 | Precision::Int8 => 8.0,
            Precision::Int4 => INT4_BITS,
            Precision::Q4_0 | Precision::Nvfp4 => 4.5,
            Precision::Q4_K_M => 4.894,
            Precision::Q5_K_M => 5.704,
            Precision::Q6_K => 6.563,
            Precision::Q8_0 => 8.501,
            Precision::Bpw(bits) => bits,
            Precision::Mxfp4 => 4.25,
            Precision::Fp8Block => 8.0 + 32.0 / (128.0 * 128.0),
        }
    }

    /// Whether the precision stores tensor groups in different formats (the per-tensor
    /// formats: [`Precision::Mxfp4`], [`Precision::Nvfp4`], [`Precision::Fp8Block`],
    /// [`Precision::Native`]); their bytes are counted per group, not by one bits-per-weight.
    pub fn is_per_group(self) -> bool {
        matches!(self, Precision::Mxfp4 | Precision::Nvfp4 | Precision::Fp8Block | Precision::Native)
    }

    /// Bytes per element (bits / 8), as used for KV-cache entries.
    pub fn bytes_per_element(self) -> f64 {
        self.bits_per_weight() / 8.0
    }

    /// Whether this is a GGUF (llama.cpp) type.
    pub fn is_gguf(self) -> bool {
        matches!(self, Precision::Q4_0 | Precision::Q4_K_M | Precision::Q5_K_M | Precision::Q6_K | Precision::Q8_0)
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
            "mxfp4" => Some(Precision::Mxfp4),
            "nvfp4" => Some(Precision::Nvfp4),
            "fp8-block" | "fp8_block" | "fp8block" => Some(Precision::Fp8Block),
            "native" | "published" => Some(Precision::Native),
            _ => None,
        };
        if let Some(p) = named {
            return Ok(p);
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
             q6_k, q8_0, mxfp4, nvfp4, fp8-block, native, or e.g. 4.5bpw)"
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

    /// Fixed decode cost per layer and step, s ([`LLAMA_CPP_LAYER_OVERHEAD_S`] and siblings).
    pub fn layer_overhead_s(self) -> f64 {
        match self {
            Runtime::LlamaCpp => LLAMA_CPP_LAYER_OVERHEAD_S,
            Runtime::IkLlamaCpp => IK_LLAMA_CPP_LAYER_OVERHEAD_S,
            Runtime::ExLlamaV2 => EXLLAMA_LAYER_OVERHEAD_S,
            // ktransformers replays its GPU part as CUDA graphs, as vLLM does (judgement).
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm | Runtime::KTransformers => VLLM_LAYER_OVERHEAD_S,
        }
    }

    /// Fraction of the chosen tensor peak reached in prefill ([`LLAMA_CPP_PREFILL_EFFICIENCY`]
    /// and siblings); also used for the compute side of batched decode.
    pub fn prefill_efficiency(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => LLAMA_CPP_PREFILL_EFFICIENCY,
            Runtime::ExLlamaV2 => EXLLAMA_PREFILL_EFFICIENCY,
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm => VLLM_PREFILL_EFFICIENCY,
        }
    }

    /// Prompt chunk, tokens ([`LLAMA_CPP_CHUNK_TOKENS`] and siblings).
    pub fn chunk_tokens(self) -> u32 {
        match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => LLAMA_CPP_CHUNK_TOKENS,
            Runtime::ExLlamaV2 => EXLLAMA_CHUNK_TOKENS,
            Runtime::Vllm => VLLM_CHUNK_TOKENS,
            Runtime::Sglang => SGLANG_CHUNK_TOKENS,
            Runtime::TensorRtLlm => TRTLLM_CHUNK_TOKENS,
        }
    }

    /// Whether a layer split overlaps the GPUs on successive prompt chunks: llama.cpp does
    /// (pipeline parallelism, PR 6017, March 2024); `ExLlamaV2` does in effect (asynchronous
    /// launches; exllamav2 issue 734's 1046 tok/s needs both GPUs busy); vLLM's pipeline
    /// parallelism overlaps requests, not the chunks of one prompt.
    pub fn pipelines_prompt(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::ExLlamaV2 | Runtime::IkLlamaCpp)
    }

    /// Whether matrix multiplies on dequantized weights use FP16 accumulation (twice the
    /// FP32-accumulate rate on GeForce): llama.cpp (cuBLAS `CUBLAS_COMPUTE_16F`) and
    /// `ExLlamaV2` (`cublasHgemm`) do; vLLM/`PyTorch` accumulate in FP32.
    pub fn fp16_accumulate(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::ExLlamaV2 | Runtime::IkLlamaCpp)
    }

    /// Whether tensor-parallel traffic always goes through pinned host memory: `ExLlamaV2`'s
    /// TP does (exllamav2 `tensor_p.py`; issue 603: it does not use NVLink).
    pub fn host_staged_tp(self) -> bool {
        matches!(self, Runtime::ExLlamaV2)
    }

    /// Whether the token-embedding table stays in host RAM: llama.cpp keeps `token_embd` on
    /// the CPU (its load log's `CPU_Mapped` buffer with every layer offloaded).
    pub fn embedding_on_host(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::IkLlamaCpp)
    }

    /// Runtime buffers per GPU beyond the CUDA context, GiB.
    pub fn buffers_gib(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => LLAMA_CPP_BUFFERS_GIB,
            Runtime::ExLlamaV2 => EXLLAMA_BUFFERS_GIB,
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm => VLLM_CUDA_GRAPHS_GIB,
        }
    }

    /// Fraction of each GPU's memory kept free.
    pub fn headroom_fraction(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::ExLlamaV2 | Runtime::IkLlamaCpp | Runtime::KTransformers => HEADROOM_FRACTION,
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm => VLLM_RESERVED_FRACTION,
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

/// How the model is spread over the GPUs. The degree counts GPUs from the start of the slice
/// given to [`estimate`]; further GPUs stay idle.
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

/// Optimizer whose states training keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    /// `AdamW` in mixed precision: FP32 master weights, momentum and variance, 12 bytes per
    /// trained parameter (EleutherAI "Transformer Math 101"; 8 without a master copy when the
    /// weights are FP32 already).
    #[default]
    AdamW,
    /// 8-bit `AdamW` (bitsandbytes): FP32 master + 8-bit momentum and variance, 6 bytes per
    /// trained parameter (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
    AdamW8bit,
}

/// The link from a GPU to the others of its group.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// PCIe as negotiated (the lower of the card's and the slot's generation and lanes).
    Pcie {
        /// PCIe generation (3, 4, 5).
        generation: u8,
        /// Electrical lanes.
        lanes: u8,
    },
    /// NVLink (bridge or SXM): total bidirectional bandwidth per GPU, GB/s, as the catalog's
    /// [`NvLink`] figures (3090 bridge 112.5, A100 PCIe bridge 600, H200 SXM 900).
    NvLink {
        /// Total bidirectional bandwidth, GB/s.
        bandwidth_gb_s: f64,
    },
}

/// PCIe bandwidth per lane and direction, GB/s: Gen1 0.25, Gen2 0.5, Gen3 0.985, Gen4 1.969,
/// Gen5 3.938, Gen6 7.877 (PCI-SIG; x16 gives ~15.75, 31.5, 63 GB/s for Gen3, 4, 5).
pub fn pcie_lane_gb_s(generation: u8) -> f64 {
    crate::rig::links::lane_gb_s(generation.max(1))
}

impl Link {
    /// The PCIe link a card gets in a slot: the lower generation and the fewer lanes of the two.
    pub fn pcie_in_slot(gpu: &Gpu, slot_gen: u8, slot_lanes: u8) -> Link {
        Link::Pcie { generation: gpu.pcie_gen.min(slot_gen), lanes: gpu.pcie_lanes.min(slot_lanes) }
    }

    /// The card's own host link at full width (gen and lanes from the catalog).
    pub fn pcie_native(gpu: &Gpu) -> Link {
        Link::Pcie { generation: gpu.pcie_gen, lanes: gpu.pcie_lanes }
    }

    /// The card's NVLink, if it has one (bridge or SXM).
    pub fn nvlink_of(gpu: &Gpu) -> Option<Link> {
        match gpu.nvlink {
            NvLink::Bridge { bandwidth_gb_s, .. } | NvLink::Sxm { bandwidth_gb_s } => {
                Some(Link::NvLink { bandwidth_gb_s })
            }
            NvLink::None | NvLink::InfinityFabric { .. } => None,
        }
    }

    /// Bandwidth per direction, GB/s (PCIe: per-lane rate × lanes; NVLink: half the total).
    pub fn per_direction_gb_s(&self) -> f64 {
        match *self {
            Link::Pcie { generation, lanes } => pcie_lane_gb_s(generation) * f64::from(lanes),
            Link::NvLink { bandwidth_gb_s } => bandwidth_gb_s / 2.0,
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Pcie { generation, lanes } => write!(f, "PCIe {generation}.0 x{lanes}"),
            Link::NvLink { bandwidth_gb_s } => write!(f, "NVLink {bandwidth_gb_s} GB/s"),
        }
    }
}

/// A GPU and its link to the rest of its group. Independent of the build file: the caller
/// resolves slots into links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuSlot {
    /// The card.
    pub gpu: Gpu,
    /// Its link to the others. For a two-card NVLink bridge give `NvLink` on both; where a ring
    /// crosses PCIe (four cards in bridged pairs) give the PCIe link.
    pub link: Link,
}

impl GpuSlot {
    /// A GPU on its own full-width PCIe link.
    pub fn new(gpu: Gpu) -> GpuSlot {
        let link = Link::pcie_native(&gpu);
        GpuSlot { gpu, link }
    }

    /// A GPU with the given link.
    pub fn with_link(gpu: Gpu, link: Link) -> GpuSlot {
        GpuSlot { gpu, link }
    }
}

/// The workload whose fit and speed are estimated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitInput {
    /// The model shape.
    pub model: LlmModel,
    /// Inference or a kind of fine-tune.
    pub mode: Mode,
    /// Weight format. Full fine-tune needs FP32, BF16 or FP16; `QLoRA` ignores it (NF4).
    pub weight_precision: Precision,
    /// KV-cache format (FP16/BF16 16 bits, FP8 8, `Q8_0` 8.5, `Q4_0` 4.5, ...).
    pub kv_precision: Precision,
    /// Context per sequence, tokens: the KV cache is sized for it, prefill processes it as one
    /// prompt, and decode rates are at that position (the slowest point of a full context).
    /// Training: the sequence length.
    pub context_tokens: u32,
    /// Concurrent sequences (inference) or micro-batch per GPU (training).
    pub batch: u32,
    /// How the model is spread over the GPUs.
    pub parallelism: Parallelism,
    /// Inference runtime; `None` = [`Runtime::default_for`] the weight precision.
    pub runtime: Option<Runtime>,
    /// `DeepSpeed` ZeRO stage 0-3 (training with [`Parallelism::DataParallel`]): 1 shards
    /// optimizer states, 2 also gradients, 3 also weights.
    pub zero_stage: u8,
    /// Training: keep only each layer's input and recompute the rest in backward.
    pub gradient_checkpointing: bool,
    /// Training: micro-batches per optimizer step (time, and pipeline in-flight count).
    pub gradient_accumulation: u32,
    /// `LoRA`/`QLoRA` rank (adapters on q, k, v, o, gate, up, down of every layer).
    pub lora_rank: u32,
    /// Training optimizer.
    pub optimizer: Optimizer,
    /// Attention without materialized scores (`FlashAttention`/SDPA); default on.
    pub flash_attention: bool,
    /// Exact weight bytes of the model file being served ([`crate::estimate::model_file`]); `None`
    /// estimates them from `params_b` and the precision's bits per weight. Used for the weight
    /// precision only (`QLoRA` re-quantizes the base and ignores it).
    #[serde(default)]
    pub file_weights: Option<WeightBytes>,
    /// vLLM `--gpu-memory-utilization` (0-1]: the fraction of each GPU's memory vLLM may use;
    /// `None` = its default 0.9 ([`super::calibration::VLLM_RESERVED_FRACTION`]). Other
    /// runtimes ignore it.
    #[serde(default)]
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM `--max-num-batched-tokens`: the tokens of its profiling forward; `None` = vLLM's
    /// default for the GPU ([`super::vllm_memory::default_batch_limits`]).
    #[serde(default)]
    pub max_num_batched_tokens: Option<u32>,
    /// vLLM `--max-num-seqs`: the sequences of its profiling sampler step; `None` = vLLM's
    /// default for the GPU.
    #[serde(default)]
    pub max_num_seqs: Option<u32>,
    /// Whether the verdict also fails where vLLM's own KV pool
    /// ([`super::vllm_memory::kv_pool`]) cannot hold one sequence (default true). The planner
    /// sets it false for now: it still plans with the headroom verdict alone (see the README).
    #[serde(default = "yes")]
    pub vllm_pool_verdict: bool,
    /// Identical nodes the plan spans (each is the GPU slice given to [`super::estimate`]);
    /// 1 = the build alone.
    #[serde(default = "one_node")]
    pub nodes: u32,
    /// The link between nodes; needed when `nodes > 1` (`None` = unknown: refused).
    #[serde(default)]
    pub interconnect: Option<Interconnect>,
}

fn yes() -> bool {
    true
}

fn one_node() -> u32 {
    1
}

impl FitInput {
    /// Inference of `model` at `weight_precision`: FP16 KV cache, 8192 tokens of context (or
    /// the model's maximum if smaller), batch 1, one GPU, the precision's usual runtime.
    pub fn new(model: LlmModel, weight_precision: Precision) -> FitInput {
        let context_tokens = model.max_context.clamp(1, 8192);
        FitInput {
            model,
            mode: Mode::Inference,
            weight_precision,
            kv_precision: Precision::Fp16,
            context_tokens,
            batch: 1,
            parallelism: Parallelism::Single,
            runtime: None,
            zero_stage: 0,
            gradient_checkpointing: false,
            gradient_accumulation: 1,
            lora_rank: 16,
            optimizer: Optimizer::AdamW,
            flash_attention: true,
            file_weights: None,
            gpu_memory_utilization: None,
            max_num_batched_tokens: None,
            max_num_seqs: None,
            vllm_pool_verdict: true,
            nodes: 1,
            interconnect: None,
        }
    }

    /// The runtime in effect.
    pub fn resolved_runtime(&self) -> Runtime {
        self.runtime.unwrap_or_else(|| Runtime::default_for(self.weight_precision))
    }
}

/// A string that does not name a mode, precision, runtime or parallelism.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

// ---------------------------------------------------------------- interconnect
// (here with the rest of the workload vocabulary; `cluster` places GPUs over it)

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

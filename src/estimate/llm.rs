//! LLM fit, speed and fine-tune time on a set of GPUs: pure functions, no egui, no I/O.
//!
//! Given a model shape ([`LlmModel`]), a workload ([`FitInput`]) and the GPUs with their links
//! ([`GpuSlot`]), [`estimate`] returns, for every GPU, the memory it needs broken down (weights,
//! KV cache, activations, gradients, optimizer states, CUDA context and runtime buffers,
//! headroom) with a verdict, and for inference the decode and prefill rates. [`fine_tune_time`]
//! gives the hours a fine-tune takes.
//!
//! Rules the model keeps:
//! - VRAM is never pooled. Each GPU holds its own share: a layer split gives each GPU its
//!   layers (in proportion to its memory), tensor parallel gives each GPU 1/TP of every weight.
//! - MoE: memory counts every parameter, speed reads only the active ones.
//! - KV cache: GQA `kv_heads`, divided over tensor-parallel ranks (at least one head per rank),
//!   sliding windows cap the tokens a layer keeps, Gemma-2 style alternation windows half the
//!   layers, MLA keeps one latent per token and layer (replicated on every TP rank).
//! - Decode is bandwidth-bound at batch 1 (efficiency × bandwidth / bytes read per token); at
//!   larger batches the step time is the roofline maximum of the memory and the compute time.
//!   A layer split runs its GPUs one after another, so it adds capacity, not decode speed.
//!   Tensor parallel divides the bytes per GPU but pays two all-reduces per layer over the
//!   real link (PCIe generation × lanes, or NVLink).
//!
//! Calibration (every constant below says which measurement it rests on; the tests in
//! `tests/llm_fit.rs` hold the estimates to the published figures of
//! `shared/reference/llm.md` within ±25 %):
//!
//! | measurement | measured | what it calibrates |
//! |---|---|---|
//! | llama.cpp PR 4766, RTX 3090, LLaMA-7B Q4_0 / F16 decode | 121.8 / 48.5 tok/s | decode bandwidth efficiency and per-layer overhead |
//! | same, pp512 | 3408 tok/s | llama.cpp prefill efficiency |
//! | XiongjieDai GPU-Benchmarks-on-LLM-Inference (4090, A100, 2x and 8x 4090) | 149.4, 25.7, 19.2, 130.6 / 118.1 tok/s | decode efficiency, layer-split hop |
//! | llama.cpp quantize README / ollama PR 6279 file sizes | 4.58 / 7.95 / 14.96 / 37.22 GiB | GGUF bits per weight |
//! | vLLM, A100 40GB, Llama-3.1-8B BF16 | 75 tok/s, 6.6x at 8 requests | vLLM overhead, batch roofline |
//! | exllamav2 issue 734, 2x RTX 3090, 70B 4.5 bpw prefill | 1046 tok/s (379 with TP) | `ExLlamaV2` prefill efficiency |
//! | club-3090 issue 698, NVLink vs PCIe TP=2 decode | +2-4 % | all-reduce latencies |

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use crate::catalog::{Attention, Gpu, LlmModel, NvLink};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Bytes in a GiB.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

// ------------------------------------------------------------------------------- constants

/// Fraction of peak memory bandwidth that decode reaches while streaming weights and KV cache.
/// Fitted (together with the per-layer overheads) on the eight decode measurements of llm.md
/// (llama.cpp PR 4766 on an RTX 3090; XiongjieDai's RTX 4090, A100 80GB, 2x and 8x RTX 4090;
/// vLLM on an A100 40GB): with 0.80 every one lands within about ±20 %.
pub const DECODE_BANDWIDTH_EFFICIENCY: f64 = 0.80;

/// llama.cpp fixed cost per layer and decode step (kernel launches, synchronisation), s.
/// Fitted on llama.cpp PR 4766 (RTX 3090, LLaMA-7B Q4_0 121.8 tok/s and F16 48.5 tok/s: the
/// two differ by 9.7 GB of weights and 12.4 ms, which leaves about 3 ms per token of fixed cost
/// for 32 layers).
pub const LLAMA_CPP_LAYER_OVERHEAD_S: f64 = 90e-6;

/// `ExLlamaV2` fixed cost per layer and decode step, s. No measurement in llm.md; the llama.cpp
/// figure is used (judgement).
pub const EXLLAMA_LAYER_OVERHEAD_S: f64 = 90e-6;

/// vLLM fixed cost per layer and decode step, s. vLLM replays decode steps as CUDA graphs, so
/// launch latency disappears and about 15 kernels of ~2 µs each remain (judgement), which puts
/// the vLLM A100 40GB measurement of llm.md (75 tok/s, Llama-3.1-8B BF16) within 5 %.
pub const VLLM_LAYER_OVERHEAD_S: f64 = 30e-6;

/// Cost of each GPU-to-GPU hop of a layer split per decoded token, s (hand-over of the hidden
/// state and a synchronisation). From XiongjieDai's benchmark: Llama-3-8B Q4_K_M decodes at
/// 130.6 tok/s on one RTX 4090 and 118.1 tok/s split over eight, 0.81 ms over 7 hops ≈ 116 µs;
/// 100 µs is used.
pub const LAYER_SPLIT_HOP_S: f64 = 100e-6;

/// llama.cpp prefill efficiency: fraction of the dense FP16 tensor peak (FP16 accumulate on
/// GeForce, since llama.cpp multiplies dequantized weights with cuBLAS in FP16 compute) reached
/// over a prompt. Fitted on llama.cpp PR 4766: RTX 3090, LLaMA-7B Q4_0, pp512 3408 tok/s.
pub const LLAMA_CPP_PREFILL_EFFICIENCY: f64 = 0.33;

/// `ExLlamaV2` prefill efficiency (fraction of the FP16 peak, FP16 accumulate on GeForce:
/// `ExLlamaV2` reconstructs FP16 weights and calls `cublasHgemm`). Fitted on exllamav2 issue
/// 734: 2x RTX 3090, Llama-3.3-70B 4.5 bpw, 16K prompt in 2048-token chunks, 1046 tok/s
/// without tensor parallel (the two GPUs pipeline successive chunks).
pub const EXLLAMA_PREFILL_EFFICIENCY: f64 = 0.60;

/// vLLM prefill efficiency (fraction of the dense BF16/FP16 FP32-accumulate peak). Not
/// calibrated here: the middle of llm.md's 0.5-0.7 range for compute-bound prefill.
pub const VLLM_PREFILL_EFFICIENCY: f64 = 0.60;

/// Prompt chunk of llama.cpp (`n_ubatch` default 512), tokens.
pub const LLAMA_CPP_CHUNK_TOKENS: u32 = 512;
/// Prompt chunk of `ExLlamaV2` (`chunk_size` default 2048, tabbyAPI config), tokens.
pub const EXLLAMA_CHUNK_TOKENS: u32 = 2048;
/// Prompt chunk of vLLM chunked prefill (`max_num_batched_tokens`, 2048 in the V0 scheduler
/// defaults), tokens.
pub const VLLM_CHUNK_TOKENS: u32 = 2048;

/// Achievable fraction of a link's per-direction bandwidth for collective traffic (NCCL bus
/// bandwidth on PCIe Gen4 x16 is typically 20-25 GB/s of 31.5; judgement 0.8).
pub const LINK_EFFICIENCY: f64 = 0.8;

/// Latency of one small all-reduce over NVLink, s (vLLM custom all-reduce / NCCL LL protocol,
/// 2 GPUs: ~5 µs; judgement). With [`PCIE_HOST_ALL_REDUCE_LATENCY_S`] it reproduces club-3090
/// issue 698: NVLink adds 2-4 % to TP=2 decode on 2x RTX 3090.
pub const NVLINK_ALL_REDUCE_LATENCY_S: f64 = 5e-6;
/// Latency of one small all-reduce over PCIe with peer-to-peer, s (NCCL P2P transport,
/// judgement 8 µs).
pub const PCIE_P2P_ALL_REDUCE_LATENCY_S: f64 = 8e-6;
/// Latency of one small all-reduce over PCIe staged through host memory, s (GeForce cards have
/// no PCIe P2P on stock drivers; NCCL falls back to its shared-memory transport; judgement
/// 10 µs, see [`NVLINK_ALL_REDUCE_LATENCY_S`]).
pub const PCIE_HOST_ALL_REDUCE_LATENCY_S: f64 = 10e-6;

/// CUDA context per GPU, GiB: the lower end of llm.md's 0.5-2.5 GB for context plus runtime
/// buffers (CUDA 12 context with cuBLAS workspace, 300-600 MiB).
pub const CUDA_CONTEXT_GIB: f64 = 0.5;
/// llama.cpp / ollama runtime buffers beyond the activation working set, GiB (judgement;
/// llm.md quotes an ollama compute buffer of ~2.4 GB in total at long contexts, which the
/// activation line and the CUDA context make up here).
pub const LLAMA_CPP_BUFFERS_GIB: f64 = 0.5;
/// `ExLlamaV2` runtime buffers, GiB (judgement, as llama.cpp).
pub const EXLLAMA_BUFFERS_GIB: f64 = 0.5;
/// vLLM CUDA graphs, GiB (llm.md: "vLLM CUDA graphs ~1.3 GB").
pub const VLLM_CUDA_GRAPHS_GIB: f64 = 1.3;
/// Training framework buffers (NCCL, cuBLAS workspaces, allocator), GiB (judgement).
pub const TRAINING_BUFFERS_GIB: f64 = 0.5;

/// Headroom kept free under llama.cpp and `ExLlamaV2`, fraction of the GPU's memory (allocator
/// slack, a desktop on the card; judgement).
pub const HEADROOM_FRACTION: f64 = 0.05;
/// Memory vLLM leaves untouched: 1 - `gpu_memory_utilization` (default 0.9, llm.md).
pub const VLLM_RESERVED_FRACTION: f64 = 0.10;
/// Headroom for training, fraction of the GPU's memory (`PyTorch` caching-allocator
/// fragmentation; judgement).
pub const TRAINING_HEADROOM_FRACTION: f64 = 0.10;

/// Bits per weight of AWQ/GPTQ 4-bit weights: 4 bits plus an FP16 scale and a 4-bit zero point
/// per group of 128 (the default group size) = 4 + 20/128.
pub const INT4_BITS: f64 = 4.156;
/// Bits per weight of QLoRA's NF4 base weights with double quantization (Dettmers et al. 2023,
/// "QLoRA", section 3: 4 bits + 0.127 bits of constants).
pub const NF4_BITS: f64 = 4.127;

/// Default model FLOPs utilisation for fine-tune time. Meta, "The Llama 3 Herd of Models"
/// (2024), Table 4: 38-43 % BF16 MFU; 0.40 is used.
pub const DEFAULT_MFU: f64 = 0.40;

/// Bytes per element of activations (16-bit).
const ACT_BYTES: f64 = 2.0;

// ---------------------------------------------------------------------------------- inputs

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
}

impl Precision {
    /// Every named precision (not [`Precision::Bpw`]), in menu order.
    pub const NAMED: [Precision; 11] = [
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
    ];

    /// Storage bits per weight. GGUF: whole-file averages measured on Llama-3.1-8B (llama.cpp
    /// quantize README, via llm.md): `Q4_0` 4.5, `Q4_K_M` 4.894, `Q5_K_M` 5.704, `Q6_K` 6.563,
    /// `Q8_0` 8.501. Int4: [`INT4_BITS`].
    pub fn bits_per_weight(self) -> f64 {
        match self {
            Precision::Fp32 => 32.0,
            Precision::Bf16 | Precision::Fp16 => 16.0,
            Precision::Fp8 | Precision::Int8 => 8.0,
            Precision::Int4 => INT4_BITS,
            Precision::Q4_0 => 4.5,
            Precision::Q4_K_M => 4.894,
            Precision::Q5_K_M => 5.704,
            Precision::Q6_K => 6.563,
            Precision::Q8_0 => 8.501,
            Precision::Bpw(bits) => bits,
        }
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
        matches!(self, Precision::Fp8 | Precision::Int8 | Precision::Int4)
    }

    /// Whether weights are dequantized to FP16 before each matrix multiply (so the FP16 tensor
    /// rate applies).
    pub fn dequantizes_to_fp16(self) -> bool {
        self.is_gguf() || matches!(self, Precision::Int4 | Precision::Bpw(_))
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
             q6_k, q8_0, or e.g. 4.5bpw)"
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
}

impl Runtime {
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
            Runtime::ExLlamaV2 => EXLLAMA_LAYER_OVERHEAD_S,
            Runtime::Vllm => VLLM_LAYER_OVERHEAD_S,
        }
    }

    /// Fraction of the chosen tensor peak reached in prefill ([`LLAMA_CPP_PREFILL_EFFICIENCY`]
    /// and siblings); also used for the compute side of batched decode.
    pub fn prefill_efficiency(self) -> f64 {
        match self {
            Runtime::LlamaCpp => LLAMA_CPP_PREFILL_EFFICIENCY,
            Runtime::ExLlamaV2 => EXLLAMA_PREFILL_EFFICIENCY,
            Runtime::Vllm => VLLM_PREFILL_EFFICIENCY,
        }
    }

    /// Prompt chunk, tokens ([`LLAMA_CPP_CHUNK_TOKENS`] and siblings).
    pub fn chunk_tokens(self) -> u32 {
        match self {
            Runtime::LlamaCpp => LLAMA_CPP_CHUNK_TOKENS,
            Runtime::ExLlamaV2 => EXLLAMA_CHUNK_TOKENS,
            Runtime::Vllm => VLLM_CHUNK_TOKENS,
        }
    }

    /// Whether a layer split overlaps the GPUs on successive prompt chunks: llama.cpp does
    /// (pipeline parallelism, PR 6017, March 2024); `ExLlamaV2` does in effect (asynchronous
    /// launches; exllamav2 issue 734's 1046 tok/s needs both GPUs busy); vLLM's pipeline
    /// parallelism overlaps requests, not the chunks of one prompt.
    pub fn pipelines_prompt(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::ExLlamaV2)
    }

    /// Whether matrix multiplies on dequantized weights use FP16 accumulation (twice the
    /// FP32-accumulate rate on GeForce): llama.cpp (cuBLAS `CUBLAS_COMPUTE_16F`) and
    /// `ExLlamaV2` (`cublasHgemm`) do; vLLM/`PyTorch` accumulate in FP32.
    pub fn fp16_accumulate(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::ExLlamaV2)
    }

    /// Whether tensor-parallel traffic always goes through pinned host memory: `ExLlamaV2`'s
    /// TP does (exllamav2 `tensor_p.py`; issue 603: it does not use NVLink).
    pub fn host_staged_tp(self) -> bool {
        matches!(self, Runtime::ExLlamaV2)
    }

    /// Whether the token-embedding table stays in host RAM: llama.cpp keeps `token_embd` on
    /// the CPU (its load log's `CPU_Mapped` buffer with every layer offloaded).
    pub fn embedding_on_host(self) -> bool {
        matches!(self, Runtime::LlamaCpp)
    }

    /// Runtime buffers per GPU beyond the CUDA context, GiB.
    pub fn buffers_gib(self) -> f64 {
        match self {
            Runtime::LlamaCpp => LLAMA_CPP_BUFFERS_GIB,
            Runtime::ExLlamaV2 => EXLLAMA_BUFFERS_GIB,
            Runtime::Vllm => VLLM_CUDA_GRAPHS_GIB,
        }
    }

    /// Fraction of each GPU's memory kept free.
    pub fn headroom_fraction(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::ExLlamaV2 => HEADROOM_FRACTION,
            Runtime::Vllm => VLLM_RESERVED_FRACTION,
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Runtime::LlamaCpp => "llama.cpp",
            Runtime::ExLlamaV2 => "exllamav2",
            Runtime::Vllm => "vllm",
        })
    }
}

impl FromStr for Runtime {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "llama.cpp" | "llamacpp" | "llama_cpp" | "ollama" | "gguf" => Ok(Runtime::LlamaCpp),
            "exllamav2" | "exllama" | "exl2" | "tabby" | "tabbyapi" => Ok(Runtime::ExLlamaV2),
            "vllm" | "sglang" | "pytorch" => Ok(Runtime::Vllm),
            _ => Err(ParseError(format!("unknown runtime `{s}` (llama.cpp, exllamav2, vllm)"))),
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
}

impl Parallelism {
    /// GPUs used.
    pub fn degree(self) -> u32 {
        match self {
            Parallelism::Single => 1,
            Parallelism::TensorParallel(n) | Parallelism::LayerSplit(n) | Parallelism::DataParallel(n) => n,
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
        }
    }
}

impl FromStr for Parallelism {
    type Err = ParseError;
    /// `single`, `tp:N`, `split:N` (or `layer:N`, `pp:N`), `dp:N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "single" || lower == "1" {
            return Ok(Parallelism::Single);
        }
        let bad = || ParseError(format!("unknown parallelism `{s}` (single, tp:N, split:N, dp:N)"));
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
    /// trained parameter (llm.md).
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
    crate::build::links::lane_gb_s(generation.max(1))
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
        }
    }

    /// The runtime in effect.
    pub fn resolved_runtime(&self) -> Runtime {
        self.runtime.unwrap_or_else(|| Runtime::default_for(self.weight_precision))
    }
}

// --------------------------------------------------------------------------------- outputs

/// Whether a GPU's share fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Fits with the headroom kept free.
    Fits,
    /// Fits only by eating into the headroom.
    Tight,
    /// Does not fit.
    DoesNotFit,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Fits => "fits",
            Verdict::Tight => "tight",
            Verdict::DoesNotFit => "does not fit",
        })
    }
}

/// Memory one GPU needs, GiB, by component.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct MemoryBreakdown {
    /// Weights held on this GPU (base weights and, for `LoRA`, adapters).
    pub weights_gib: f64,
    /// KV cache for `batch` sequences of `context_tokens`.
    pub kv_cache_gib: f64,
    /// Activations: inference working buffer for one prompt chunk plus logits; training:
    /// Korthikanti et al. 2022 per-layer activations and the logits.
    pub activations_gib: f64,
    /// Gradients (training).
    pub gradients_gib: f64,
    /// Optimizer states (training).
    pub optimizer_gib: f64,
    /// CUDA context ([`CUDA_CONTEXT_GIB`]) and runtime buffers (CUDA graphs, compute buffers).
    pub runtime_gib: f64,
    /// Sum of the above.
    pub total_gib: f64,
    /// Memory kept free ([`HEADROOM_FRACTION`], [`VLLM_RESERVED_FRACTION`],
    /// [`TRAINING_HEADROOM_FRACTION`] of capacity).
    pub headroom_gib: f64,
    /// `total_gib` + `headroom_gib`.
    pub required_gib: f64,
}

/// One GPU's share and verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuFit {
    /// Position in the slice given to [`estimate`].
    pub index: usize,
    /// Catalog id of the card.
    pub gpu_id: String,
    /// Memory of the card, GiB.
    pub capacity_gib: f64,
    /// Transformer layers whose weights this GPU holds (all of them for tensor parallel, where
    /// it holds 1/TP of each).
    pub layers: u32,
    /// Memory needed, by component.
    pub memory: MemoryBreakdown,
    /// `capacity_gib` - `required_gib` (negative when short).
    pub free_gib: f64,
    /// Fits / tight / does not fit.
    pub verdict: Verdict,
}

/// Which resource limits a decode step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Memory bandwidth (reading weights and KV cache).
    Memory,
    /// Tensor throughput.
    Compute,
}

/// Inference speed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedEstimate {
    /// Decode rate of one sequence alone, tokens/s.
    pub decode_batch1_tokens_per_s: f64,
    /// Aggregate decode rate with `batch` sequences, tokens/s (all replicas for data parallel).
    pub decode_batch_tokens_per_s: f64,
    /// Decode rate each of the `batch` sequences sees, tokens/s.
    pub decode_per_sequence_tokens_per_s: f64,
    /// What limits the batched decode step.
    pub decode_bound: Bound,
    /// Bytes read from GPU memory per decode step at batch 1 (all GPUs), GB.
    pub bytes_per_token_gb: f64,
    /// Tensor-parallel all-reduce time per decode step, ms (0 without TP).
    pub all_reduce_ms_per_token: f64,
    /// Prompt processing rate for one prompt of `context_tokens`, tokens/s; `None` when a GPU
    /// publishes no tensor rate for the precision.
    pub prefill_tokens_per_s: Option<f64>,
    /// Time to process that prompt, s.
    pub time_to_first_token_s: Option<f64>,
    /// Dense tensor peak used for compute, per GPU, TFLOP/s (the slowest GPU of the group).
    pub compute_peak_tflops: Option<f64>,
    /// Which peak that is (`bf16`, `fp16 (fp16 accumulate)`, `int8`, ...).
    pub compute_peak_kind: String,
    /// Link the group's collective traffic crosses, if more than one GPU works together.
    pub link: Option<String>,
}

/// The estimate for one workload on one set of GPUs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReport {
    /// Model id.
    pub model_id: String,
    /// Mode.
    pub mode: Mode,
    /// Weight precision.
    pub weight_precision: Precision,
    /// KV-cache precision.
    pub kv_precision: Precision,
    /// Runtime the constants are for (inference).
    pub runtime: Runtime,
    /// Parallelism.
    pub parallelism: Parallelism,
    /// Context, tokens.
    pub context_tokens: u32,
    /// Batch.
    pub batch: u32,
    /// Size of all weights at this precision, GiB (for GGUF: about the file size).
    pub weights_total_gib: f64,
    /// KV cache of all sequences over all GPUs, GiB.
    pub kv_cache_total_gib: f64,
    /// Weights kept in host RAM (llama.cpp token embedding), GiB.
    pub host_weights_gib: f64,
    /// Per-GPU shares, in slice order (only the GPUs used).
    pub gpus: Vec<GpuFit>,
    /// The worst verdict of all GPUs used.
    pub verdict: Verdict,
    /// Longest context per sequence that fits at this batch (inference), tokens, capped at the
    /// model's maximum; `None` when not even the weights fit.
    pub max_context_tokens: Option<u32>,
    /// Speed (inference only).
    pub speed: Option<SpeedEstimate>,
    /// Warnings and explanations for the user.
    pub notes: Vec<String>,
    /// The constants used, with their sources, in one line each.
    pub assumptions: Vec<String>,
}

/// Fine-tune duration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FineTuneEstimate {
    /// Training tokens (dataset tokens × epochs).
    pub tokens: f64,
    /// FLOPs per token: 6 × active params for a full fine-tune (Kaplan et al. 2020; EleutherAI
    /// "Transformer Math 101"), 4 × for `LoRA`/`QLoRA` (no weight gradients of the frozen
    /// base), + 2 × with gradient checkpointing (the forward is run again).
    pub flops_per_token: f64,
    /// Total FLOPs.
    pub total_flops: f64,
    /// Model FLOPs utilisation assumed.
    pub mfu: f64,
    /// Sum of the dense BF16 (FP32-accumulate) peaks of the GPUs used, TFLOP/s.
    pub peak_tflops: f64,
    /// `peak_tflops` × `mfu`.
    pub achievable_tflops: f64,
    /// Wall-clock hours.
    pub hours: f64,
}

/// Input that cannot be estimated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// The GPU slice is empty.
    #[error("no GPUs given")]
    NoGpus,
    /// The parallelism asks for more GPUs than given.
    #[error("{parallelism} needs {wanted} GPUs, {given} given")]
    NotEnoughGpus {
        /// The parallelism asked for.
        parallelism: Parallelism,
        /// GPUs it needs.
        wanted: u32,
        /// GPUs given.
        given: usize,
    },
    /// A model field is out of range.
    #[error("model `{id}`: {reason}")]
    InvalidModel {
        /// Model id.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// A workload field is out of range.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A combination no runtime offers.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// A string that does not name a mode, precision, runtime or parallelism.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

// ------------------------------------------------------------------------- model arithmetic

/// Embedding-table parameters (vocab × hidden), one table.
fn table_params(model: &LlmModel) -> f64 {
    f64::from(model.vocab) * f64::from(model.hidden)
}

/// Weight bytes split into (token embedding, LM head, transformer layers).
///
/// Assumes untied input and output embeddings (true for every preset but Gemma 2). Formats that
/// keep embeddings 16-bit ([`Precision::keeps_embeddings_16bit`]) store both tables at 2 bytes.
fn weight_parts_bytes(model: &LlmModel, precision: Precision) -> (f64, f64, f64) {
    let total = model.params_b * 1e9;
    let table = table_params(model).min(total / 4.0);
    let body = total - 2.0 * table;
    let table_bytes = if precision.keeps_embeddings_16bit() { 2.0 } else { precision.bytes_per_element() };
    (table * table_bytes, table * table_bytes, body * precision.bytes_per_element())
}

/// Bytes of all weights of `model` at `precision` (for GGUF about the file size: Llama-3.1-8B
/// `Q4_K_M` 4.58 GiB, `Q8_0` 7.95 GiB, F16 14.96 GiB).
pub fn weight_bytes(model: &LlmModel, precision: Precision) -> f64 {
    let (embed, head, body) = weight_parts_bytes(model, precision);
    embed + head + body
}

/// [`weight_bytes`] in GiB.
pub fn weight_gib(model: &LlmModel, precision: Precision) -> f64 {
    weight_bytes(model, precision) / GIB
}

/// KV heads each tensor-parallel rank holds: `ceil(kv_heads / tp)`, at least 1 (llm.md; vLLM
/// replicates KV heads when TP exceeds them).
pub fn kv_heads_per_rank(model: &LlmModel, tp: u32) -> u32 {
    model.kv_heads.div_ceil(tp.max(1)).max(1)
}

/// KV-cache bytes per token and layer on one TP rank: `2 × kv_heads/rank × head_dim × bytes`,
/// or for MLA one latent of `(kv_lora_rank + rope_head_dim) × bytes` (replicated per rank).
fn kv_bytes_per_token_layer(model: &LlmModel, kv: Precision, tp: u32) -> f64 {
    let b = kv.bytes_per_element();
    match model.attention {
        Attention::Mla { kv_lora_rank, rope_head_dim } => f64::from(kv_lora_rank + rope_head_dim) * b,
        Attention::Full | Attention::SlidingWindow { .. } | Attention::Alternating { .. } => {
            2.0 * f64::from(kv_heads_per_rank(model, tp)) * f64::from(model.head_dim) * b
        }
    }
}

/// Window of layer `index`, tokens (`None` = attends over the whole context). Gemma 2
/// alternates: even layers are local (sliding), odd layers global.
fn layer_window(model: &LlmModel, index: u32) -> Option<u32> {
    match model.attention {
        Attention::SlidingWindow { window } => Some(window),
        Attention::Alternating { window } if index.is_multiple_of(2) => Some(window),
        Attention::Alternating { .. } | Attention::Full | Attention::Mla { .. } => None,
    }
}

/// Sums over the layers in `layers` of: tokens kept in the KV cache at context `s`, tokens
/// attended by the token at position `s` (decode), and tokens attended on average by the tokens
/// of an `s`-token prompt (prefill, causal).
fn attended(model: &LlmModel, layers: std::ops::Range<u32>, s: f64) -> (f64, f64, f64) {
    let mut kept = 0.0;
    let mut decode = 0.0;
    let mut prefill = 0.0;
    for i in layers {
        match layer_window(model, i).map(f64::from) {
            Some(w) if s > w => {
                kept += w;
                decode += w;
                prefill += w - w * w / (2.0 * s);
            }
            _ => {
                kept += s;
                decode += s;
                prefill += s / 2.0;
            }
        }
    }
    (kept, decode, prefill)
}

/// KV-cache bytes for `batch` sequences of `tokens` on one GPU holding `layers` at TP degree
/// `tp` (all layers and `tp = 1` for the whole model). Llama 3.1 8B at 128K tokens, FP16:
/// 2·32·8·128·131072·2 = 16 GiB.
pub fn kv_cache_bytes(model: &LlmModel, kv: Precision, tokens: u32, batch: u32, tp: u32) -> f64 {
    kv_cache_bytes_layers(model, kv, 0..model.layers, tokens, batch, tp)
}

fn kv_cache_bytes_layers(
    model: &LlmModel,
    kv: Precision,
    layers: std::ops::Range<u32>,
    tokens: u32,
    batch: u32,
    tp: u32,
) -> f64 {
    let (kept, _, _) = attended(model, layers, f64::from(tokens));
    kept * f64::from(batch) * kv_bytes_per_token_layer(model, kv, tp)
}

/// Width of the attention output (heads × head dim).
fn q_dim(model: &LlmModel) -> f64 {
    f64::from(model.heads) * f64::from(model.head_dim)
}

/// FFN width: `intermediate`, else 4 × hidden.
fn ffn_dim(model: &LlmModel) -> f64 {
    model.intermediate.map_or(4.0 * f64::from(model.hidden), f64::from)
}

/// Trainable `LoRA` parameters: rank × (in + out) for q, k, v, o, gate, up and down of every
/// layer (`QLoRA` paper's "all linear layers"; MoE models counted with one dense FFN).
pub fn lora_params(model: &LlmModel, rank: u32) -> f64 {
    let h = f64::from(model.hidden);
    let q = q_dim(model);
    let kvd = f64::from(model.kv_heads) * f64::from(model.head_dim);
    let ffn = ffn_dim(model);
    let per_layer = (h + q) + 2.0 * (h + kvd) + (q + h) + 2.0 * (h + ffn) + (ffn + h);
    f64::from(rank) * per_layer * f64::from(model.layers)
}

/// Peak dense tensor rate a precision runs at on a GPU, TFLOP/s, and its name.
///
/// BF16 → `bf16`; FP16 → `fp16` (FP32 accumulate), or `fp16_acc16` under llama.cpp and
/// `ExLlamaV2` on GeForce; FP8 → `fp8` where the GPU has FP8 tensor cores, else FP16
/// (weight-only FP8); INT8 → `int8_tops`, else FP16; INT4, GGUF and bpw formats → the FP16 rate
/// (dequantized); FP32 → `fp32`. Training always uses the FP32-accumulate BF16/FP16 rate.
pub fn compute_peak_tflops(
    gpu: &Gpu,
    precision: Precision,
    runtime: Runtime,
    training: bool,
) -> Option<(f64, &'static str)> {
    let p = &gpu.peak;
    let fp16 = || -> Option<(f64, &'static str)> {
        if !training
            && runtime.fp16_accumulate()
            && let Some(v) = p.fp16_acc16
        {
            return Some((v, "fp16 (fp16 accumulate)"));
        }
        p.fp16.map(|v| (v, "fp16")).or_else(|| p.bf16.map(|v| (v, "bf16")))
    };
    match precision {
        Precision::Fp32 => p.fp32.map(|v| (v, "fp32")),
        Precision::Bf16 => p.bf16.map(|v| (v, "bf16")).or_else(fp16),
        Precision::Fp8 if !training => p.fp8.map(|v| (v, "fp8")).or_else(fp16),
        Precision::Int8 if !training => p.int8_tops.map(|v| (v, "int8")).or_else(fp16),
        _ if training => p.bf16.map(|v| (v, "bf16")).or_else(fp16),
        _ => fp16(),
    }
}

// ----------------------------------------------------------------------------- the estimate

/// One GPU's share of the model.
#[derive(Debug, Clone)]
struct Share {
    layers: std::ops::Range<u32>,
    /// Fraction of each layer's weights held (1/TP, else 1).
    width: f64,
    has_embedding: bool,
    has_head: bool,
    /// Sequences this GPU serves (data-parallel replicas split the batch).
    batch: u32,
}

/// Splits `layers` over GPUs in proportion to their memory (llama.cpp's default `--tensor-split`
/// is proportional to free memory), largest remainder first.
fn split_layers(layers: u32, capacities: &[f64]) -> Vec<u32> {
    let sum: f64 = capacities.iter().sum();
    let n = capacities.len();
    if n == 0 {
        return Vec::new();
    }
    let quotas: Vec<f64> = capacities
        .iter()
        .map(|c| if sum > 0.0 { f64::from(layers) * c / sum } else { f64::from(layers) / n as f64 })
        .collect();
    let mut counts: Vec<u32> = quotas.iter().map(|q| q.floor() as u32).collect();
    let mut left = layers.saturating_sub(counts.iter().sum::<u32>());
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        counts[i] += 1;
        left -= 1;
    }
    counts
}

fn shares(input: &FitInput, gpus: &[GpuSlot]) -> Vec<Share> {
    let layers = input.model.layers;
    let n = gpus.len();
    match input.parallelism {
        Parallelism::Single => {
            vec![Share { layers: 0..layers, width: 1.0, has_embedding: true, has_head: true, batch: input.batch }]
        }
        Parallelism::TensorParallel(t) => (0..n)
            .map(|_| Share {
                layers: 0..layers,
                width: 1.0 / f64::from(t),
                has_embedding: true,
                has_head: true,
                batch: input.batch,
            })
            .collect(),
        Parallelism::DataParallel(d) => {
            let per = input.batch.div_ceil(d).max(1);
            (0..n)
                .map(|_| Share {
                    layers: 0..layers,
                    width: 1.0,
                    has_embedding: true,
                    has_head: true,
                    batch: if input.mode.is_training() { input.batch } else { per },
                })
                .collect()
        }
        Parallelism::LayerSplit(_) => {
            let caps: Vec<f64> = gpus.iter().map(|g| g.gpu.memory_gib).collect();
            let counts = split_layers(layers, &caps);
            let mut start = 0;
            counts
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let s = Share {
                        layers: start..start + c,
                        width: 1.0,
                        has_embedding: i == 0,
                        has_head: i + 1 == n,
                        batch: input.batch,
                    };
                    start += c;
                    s
                })
                .collect()
        }
    }
}

fn validate(input: &FitInput, gpus: &[GpuSlot]) -> Result<(), FitError> {
    let m = &input.model;
    let bad_model = |reason: &str| FitError::InvalidModel { id: m.id.clone(), reason: reason.to_owned() };
    if !(m.params_b.is_finite() && m.params_b > 0.0) {
        return Err(bad_model("params_b must be positive"));
    }
    if let Some(a) = m.active_params_b
        && !(a.is_finite() && a > 0.0 && a <= m.params_b)
    {
        return Err(bad_model("active_params_b must be positive and at most params_b"));
    }
    if m.layers == 0 || m.hidden == 0 || m.heads == 0 || m.kv_heads == 0 || m.head_dim == 0 {
        return Err(bad_model("layers, hidden, heads, kv_heads and head_dim must be positive"));
    }
    if gpus.is_empty() {
        return Err(FitError::NoGpus);
    }
    let wanted = input.parallelism.degree();
    if wanted == 0 {
        return Err(FitError::InvalidInput(format!("{} has degree 0", input.parallelism)));
    }
    if wanted as usize > gpus.len() {
        return Err(FitError::NotEnoughGpus { parallelism: input.parallelism, wanted, given: gpus.len() });
    }
    if input.context_tokens == 0 || input.batch == 0 {
        return Err(FitError::InvalidInput("context_tokens and batch must be at least 1".into()));
    }
    if input.zero_stage > 3 {
        return Err(FitError::InvalidInput(format!("ZeRO stage {} (0-3)", input.zero_stage)));
    }
    for p in [input.weight_precision, input.kv_precision] {
        if let Precision::Bpw(b) = p
            && !(b.is_finite() && b > 0.0 && b <= 32.0)
        {
            return Err(FitError::InvalidInput(format!("{b} bits per weight")));
        }
    }
    for s in gpus {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !positive(s.gpu.memory_gib) || !positive(s.gpu.memory_bandwidth_gb_s) {
            return Err(FitError::InvalidInput(format!("GPU `{}` needs positive memory and bandwidth", s.gpu.id)));
        }
    }
    if input.mode == Mode::FullFineTune
        && !matches!(input.weight_precision, Precision::Fp32 | Precision::Bf16 | Precision::Fp16)
    {
        return Err(FitError::Unsupported(format!(
            "full fine-tune in {} (use fp32, bf16 or fp16; LoRA/QLoRA train over quantized bases)",
            input.weight_precision
        )));
    }
    if input.mode == Mode::Lora && input.weight_precision.is_gguf() {
        return Err(FitError::Unsupported(format!("LoRA training over a GGUF {} base", input.weight_precision)));
    }
    Ok(())
}

/// Group link: what collective traffic of the GPUs used crosses.
#[derive(Debug, Clone, Copy)]
struct GroupLink {
    per_direction_gb_s: f64,
    latency_s: f64,
    host_staged: bool,
    nvlink: bool,
}

fn group_link(gpus: &[GpuSlot], runtime: Runtime) -> GroupLink {
    let all_nvlink = gpus.iter().all(|s| matches!(s.link, Link::NvLink { .. }));
    let slowest = gpus.iter().map(|s| s.link.per_direction_gb_s()).fold(f64::INFINITY, f64::min);
    let slowest = if slowest.is_finite() { slowest } else { 0.0 };
    let geforce = gpus.iter().any(|s| s.gpu.is_geforce());
    if runtime.host_staged_tp() {
        // ExLlamaV2 copies through pinned host memory whatever the link: PCIe bound.
        let pcie = gpus
            .iter()
            .map(|s| match s.link {
                Link::Pcie { .. } => s.link.per_direction_gb_s(),
                Link::NvLink { .. } => pcie_lane_gb_s(s.gpu.pcie_gen) * f64::from(s.gpu.pcie_lanes),
            })
            .fold(f64::INFINITY, f64::min);
        let pcie = if pcie.is_finite() { pcie } else { 0.0 };
        return GroupLink {
            per_direction_gb_s: pcie,
            latency_s: PCIE_HOST_ALL_REDUCE_LATENCY_S,
            host_staged: true,
            nvlink: false,
        };
    }
    if all_nvlink {
        GroupLink {
            per_direction_gb_s: slowest,
            latency_s: NVLINK_ALL_REDUCE_LATENCY_S,
            host_staged: false,
            nvlink: true,
        }
    } else if geforce {
        GroupLink {
            per_direction_gb_s: slowest,
            latency_s: PCIE_HOST_ALL_REDUCE_LATENCY_S,
            host_staged: true,
            nvlink: false,
        }
    } else {
        GroupLink {
            per_direction_gb_s: slowest,
            latency_s: PCIE_P2P_ALL_REDUCE_LATENCY_S,
            host_staged: false,
            nvlink: false,
        }
    }
}

impl GroupLink {
    /// Effective bandwidth for collectives, GB/s: [`LINK_EFFICIENCY`] × per direction, halved
    /// when staged through host memory (every byte crosses PCIe twice).
    fn effective_gb_s(self) -> f64 {
        let staged = if self.host_staged { 0.5 } else { 1.0 };
        LINK_EFFICIENCY * self.per_direction_gb_s * staged
    }

    /// Ring all-reduce of `bytes` over `t` ranks, s: latency + 2(t-1)/t × bytes / bandwidth.
    fn all_reduce_s(self, bytes: f64, t: u32) -> f64 {
        let tf = f64::from(t);
        let bw = self.effective_gb_s() * 1e9;
        let transfer = if bw > 0.0 { 2.0 * (tf - 1.0) / tf * bytes / bw } else { f64::INFINITY };
        self.latency_s + transfer
    }

    fn describe(self) -> String {
        let kind = if self.nvlink {
            "NVLink"
        } else if self.host_staged {
            "PCIe through host memory (no P2P)"
        } else {
            "PCIe peer-to-peer"
        };
        format!("{kind}, {:.1} GB/s per direction", self.per_direction_gb_s)
    }
}

/// Memory of every GPU used at `tokens` of context.
fn memory(input: &FitInput, gpus: &[GpuSlot], shares: &[Share], runtime: Runtime, tokens: u32) -> Vec<MemoryBreakdown> {
    let m = &input.model;
    let training = input.mode.is_training();
    let layers = f64::from(m.layers);
    let tp = match input.parallelism {
        Parallelism::TensorParallel(t) => t,
        _ => 1,
    };
    let dp = match input.parallelism {
        Parallelism::DataParallel(d) if training => d,
        _ => 1,
    };
    let hidden = f64::from(m.hidden);
    let vocab = f64::from(m.vocab);
    let seq = f64::from(tokens);

    // Weight bytes of the base (frozen or trained), by part.
    let base_precision = match input.mode {
        Mode::Qlora => Precision::Bpw(NF4_BITS),
        _ => input.weight_precision,
    };
    let (embed_b, head_b, body_b) = if input.mode == Mode::Qlora {
        // bitsandbytes leaves embeddings and LM head in 16 bits.
        let (e, hd, _) = weight_parts_bytes(m, Precision::Bf16);
        let (_, _, b) = weight_parts_bytes(m, base_precision);
        (e, hd, b)
    } else {
        weight_parts_bytes(m, base_precision)
    };
    let total_params = m.params_b * 1e9;
    // Trained parameters and bytes per trained parameter for weights / grads / optimizer.
    let (trained, w_bytes, g_bytes, o_bytes) = match input.mode {
        Mode::Inference => (0.0, 0.0, 0.0, 0.0),
        Mode::FullFineTune => {
            let w = input.weight_precision.bytes_per_element();
            let master = if w >= 4.0 { 0.0 } else { 4.0 };
            let states = match input.optimizer {
                Optimizer::AdamW => 8.0,
                Optimizer::AdamW8bit => 2.0,
            };
            (total_params, w, w, master + states)
        }
        Mode::Lora | Mode::Qlora => {
            let states = match input.optimizer {
                Optimizer::AdamW => 12.0,
                Optimizer::AdamW8bit => 6.0,
            };
            (lora_params(m, input.lora_rank), 2.0, 2.0, states)
        }
    };
    let zero = if dp > 1 { input.zero_stage } else { 0 };
    let dpf = f64::from(dp);
    let shard = |stage: u8| if zero >= stage { dpf } else { 1.0 };
    let n = shares.len();

    shares
        .iter()
        .zip(gpus)
        .enumerate()
        .map(|(i, (sh, slot))| {
            let layer_frac = f64::from(sh.layers.end - sh.layers.start) / layers;
            // Fraction of the whole model's parameters on this GPU (for trained states).
            let param_frac = match input.parallelism {
                Parallelism::LayerSplit(_) => {
                    let table = table_params(m).min(total_params / 4.0);
                    let body = total_params - 2.0 * table;
                    (body * layer_frac
                        + if sh.has_embedding { table } else { 0.0 }
                        + if sh.has_head { table } else { 0.0 })
                        / total_params
                }
                _ => sh.width,
            };

            // Weights.
            let embed_here = sh.has_embedding && (training || !runtime.embedding_on_host());
            let base = sh.width
                * (body_b * layer_frac
                    + if embed_here { embed_b } else { 0.0 }
                    + if sh.has_head { head_b } else { 0.0 });
            let base = match input.mode {
                // Full fine-tune: the base is the trained weights, counted below.
                Mode::FullFineTune => 0.0,
                _ => base / shard(3),
            };
            let trained_here = trained * param_frac;
            let weights = base + trained_here * w_bytes / shard(3);
            let gradients = trained_here * g_bytes / shard(2);
            let optimizer = trained_here * o_bytes / shard(1);

            // KV cache.
            let kv = if training {
                0.0
            } else {
                kv_cache_bytes_layers(m, input.kv_precision, sh.layers.clone(), tokens, sh.batch, tp)
            };

            // Activations.
            let activations = if training {
                let b = f64::from(input.batch);
                let sbh = seq * b * hidden;
                let heads = f64::from(m.heads);
                let scores = if input.flash_attention { 0.0 } else { 5.0 * heads * seq / hidden };
                let full_layer = sbh * (34.0 + scores);
                let here = f64::from(sh.layers.end - sh.layers.start);
                let per_microbatch = if input.gradient_checkpointing {
                    2.0 * sbh * here + if here > 0.0 { full_layer } else { 0.0 }
                } else {
                    full_layer * here
                };
                // 1F1B pipeline: stage i holds up to n - i micro-batches in flight.
                let in_flight = match input.parallelism {
                    Parallelism::LayerSplit(_) => ((n - i) as f64).min(f64::from(input.gradient_accumulation.max(1))),
                    _ => 1.0,
                };
                // Logits in FP32 and their gradient: 8 bytes per vocabulary entry.
                let logits = if sh.has_head { seq * b * vocab * 8.0 } else { 0.0 };
                (per_microbatch * in_flight + logits) / f64::from(tp)
            } else {
                // One prompt chunk through a layer: residual, norm, q/k/v, attention out (~4h)
                // and the gate/up FFN pair (2 × ffn), 16-bit; logits of the batch in FP32.
                let chunk = f64::from(runtime.chunk_tokens().min(tokens.max(1)));
                let work = chunk * (4.0 * hidden + 2.0 * ffn_dim(m)) * ACT_BYTES * sh.width;
                let logits = if sh.has_head { f64::from(sh.batch) * vocab * 4.0 } else { 0.0 };
                work + logits
            };

            let runtime_gib = CUDA_CONTEXT_GIB + if training { TRAINING_BUFFERS_GIB } else { runtime.buffers_gib() };
            let headroom_frac = if training { TRAINING_HEADROOM_FRACTION } else { runtime.headroom_fraction() };
            let weights_gib = weights / GIB;
            let kv_cache_gib = kv / GIB;
            let activations_gib = activations / GIB;
            let gradients_gib = gradients / GIB;
            let optimizer_gib = optimizer / GIB;
            let total_gib = weights_gib + kv_cache_gib + activations_gib + gradients_gib + optimizer_gib + runtime_gib;
            let headroom_gib = headroom_frac * slot.gpu.memory_gib;
            MemoryBreakdown {
                weights_gib,
                kv_cache_gib,
                activations_gib,
                gradients_gib,
                optimizer_gib,
                runtime_gib,
                total_gib,
                headroom_gib,
                required_gib: total_gib + headroom_gib,
            }
        })
        .collect()
}

fn verdict(mem: &MemoryBreakdown, capacity_gib: f64) -> Verdict {
    if mem.required_gib <= capacity_gib {
        Verdict::Fits
    } else if mem.total_gib <= capacity_gib {
        Verdict::Tight
    } else {
        Verdict::DoesNotFit
    }
}

/// Estimates memory per GPU, verdicts and (for inference) speed for `input` on the first
/// `input.parallelism.degree()` GPUs of `gpus`.
pub fn estimate(input: &FitInput, gpus: &[GpuSlot]) -> Result<FitReport, FitError> {
    validate(input, gpus)?;
    let runtime = input.resolved_runtime();
    let used = &gpus[..input.parallelism.degree() as usize];
    let m = &input.model;
    let sh = shares(input, used);
    let mems = memory(input, used, &sh, runtime, input.context_tokens);

    let gpu_fits: Vec<GpuFit> = mems
        .iter()
        .zip(used)
        .zip(&sh)
        .enumerate()
        .map(|(index, ((mem, slot), share))| GpuFit {
            index,
            gpu_id: slot.gpu.id.clone(),
            capacity_gib: slot.gpu.memory_gib,
            layers: share.layers.end - share.layers.start,
            memory: *mem,
            free_gib: slot.gpu.memory_gib - mem.required_gib,
            verdict: verdict(mem, slot.gpu.memory_gib),
        })
        .collect();
    let overall = gpu_fits.iter().map(|g| g.verdict).max().unwrap_or(Verdict::DoesNotFit);

    let max_context_tokens = if input.mode.is_training() { None } else { max_context(input, used, &sh, runtime) };

    let mut notes = notes(input, gpus, used, runtime);
    let speed = if input.mode.is_training() { None } else { Some(speed(input, used, &sh, runtime, &mut notes)) };

    let (embed_b, _, _) = weight_parts_bytes(m, input.weight_precision);
    let host_weights_gib = if runtime.embedding_on_host() && !input.mode.is_training() { embed_b / GIB } else { 0.0 };
    let kv_total = if input.mode.is_training() {
        0.0
    } else {
        let tp = match input.parallelism {
            Parallelism::TensorParallel(t) => t,
            _ => 1,
        };
        // Per-rank KV × ranks (replicated heads and MLA latents count on every rank).
        kv_cache_bytes(m, input.kv_precision, input.context_tokens, input.batch, tp) * f64::from(tp)
    };

    Ok(FitReport {
        model_id: m.id.clone(),
        mode: input.mode,
        weight_precision: input.weight_precision,
        kv_precision: input.kv_precision,
        runtime,
        parallelism: input.parallelism,
        context_tokens: input.context_tokens,
        batch: input.batch,
        weights_total_gib: weight_gib(m, input.weight_precision),
        kv_cache_total_gib: kv_total / GIB,
        host_weights_gib,
        gpus: gpu_fits,
        verdict: overall,
        max_context_tokens,
        speed,
        notes,
        assumptions: assumptions(input, runtime),
    })
}

/// Longest context (tokens, ≤ the model's maximum) at which every GPU still fits with its
/// headroom; `None` when even one token does not.
fn max_context(input: &FitInput, gpus: &[GpuSlot], sh: &[Share], runtime: Runtime) -> Option<u32> {
    let fits = |tokens: u32| {
        memory(input, gpus, sh, runtime, tokens)
            .iter()
            .zip(gpus)
            .all(|(mem, slot)| mem.required_gib <= slot.gpu.memory_gib)
    };
    let cap = input.model.max_context.max(1);
    if !fits(1) {
        return None;
    }
    if fits(cap) {
        return Some(cap);
    }
    let (mut lo, mut hi) = (1u32, cap);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

fn notes(input: &FitInput, all: &[GpuSlot], used: &[GpuSlot], runtime: Runtime) -> Vec<String> {
    let m = &input.model;
    let mut notes = Vec::new();
    if all.len() > used.len() {
        notes.push(format!("{} of {} GPUs used ({}); the others stay idle", used.len(), all.len(), input.parallelism));
    }
    if input.context_tokens > m.max_context {
        notes.push(format!("context {} exceeds the model's maximum of {} tokens", input.context_tokens, m.max_context));
    }
    if let Some(active) = m.active_params_b
        && active < m.params_b
    {
        notes.push(format!(
            "MoE: memory holds all {:.1}B parameters, each token reads only the {active:.1}B active",
            m.params_b
        ));
    }
    match input.parallelism {
        Parallelism::TensorParallel(t) => {
            if !m.heads.is_multiple_of(t) || !(m.kv_heads.is_multiple_of(t) || t.is_multiple_of(m.kv_heads)) {
                notes.push(format!(
                    "tensor parallel {t} does not divide {} attention heads / {} KV heads evenly; \
                     vLLM refuses such a split",
                    m.heads, m.kv_heads
                ));
            }
            if t > m.kv_heads && !matches!(m.attention, Attention::Mla { .. }) {
                notes.push(format!("TP {t} exceeds {} KV heads: each rank keeps a replicated KV head", m.kv_heads));
            }
        }
        Parallelism::LayerSplit(n) if n > 1 && !input.mode.is_training() => {
            notes.push("layer split: the GPUs run one after another, so it adds memory, not decode speed".into());
        }
        _ => {}
    }
    if input.mode.is_training() && input.zero_stage > 0 && !matches!(input.parallelism, Parallelism::DataParallel(_)) {
        notes.push("ZeRO shards over data-parallel ranks only; it has no effect here".into());
    }
    if input.mode.is_training() && matches!(input.weight_precision, Precision::Fp8) {
        notes.push("FP8 LoRA base: counted at 1 byte per weight".into());
    }
    if !input.mode.is_training() {
        for s in used {
            if matches!(input.weight_precision, Precision::Fp8) && s.gpu.peak.fp8.is_none() {
                notes.push(format!("{}: no FP8 tensor cores; FP8 weights run weight-only at the FP16 rate", s.gpu.id));
            }
        }
        if runtime == Runtime::LlamaCpp && !input.weight_precision.is_gguf() {
            notes.push(format!("llama.cpp runtime with {} weights", input.weight_precision));
        }
    }
    notes
}

fn assumptions(input: &FitInput, runtime: Runtime) -> Vec<String> {
    let mut a = vec![
        format!(
            "weights: {} at {:.3} bits per weight{}",
            input.weight_precision,
            input.weight_precision.bits_per_weight(),
            if input.weight_precision.keeps_embeddings_16bit() { " (embeddings and LM head 16-bit)" } else { "" }
        ),
        format!("CUDA context {CUDA_CONTEXT_GIB} GiB per GPU plus runtime buffers (llm.md: 0.5-2.5 GB)"),
    ];
    if input.mode.is_training() {
        a.push(format!(
            "training: mixed-precision AdamW 16 bytes per trained parameter (Transformer Math 101), \
             activations per Korthikanti et al. 2022, headroom {TRAINING_HEADROOM_FRACTION} of memory"
        ));
    } else {
        a.push(format!(
            "runtime {runtime}: decode at {DECODE_BANDWIDTH_EFFICIENCY} of memory bandwidth plus \
             {:.0} µs per layer (fitted on llama.cpp PR 4766, XiongjieDai, vLLM A100); prefill at \
             {} of the tensor peak; headroom {} of memory",
            runtime.layer_overhead_s() * 1e6,
            runtime.prefill_efficiency(),
            runtime.headroom_fraction()
        ));
        a.push(format!(
            "tensor parallel: 2 all-reduces per layer; links at {LINK_EFFICIENCY} of per-direction \
             bandwidth; latency {:.0}/{:.0}/{:.0} µs NVLink/PCIe P2P/PCIe via host",
            NVLINK_ALL_REDUCE_LATENCY_S * 1e6,
            PCIE_P2P_ALL_REDUCE_LATENCY_S * 1e6,
            PCIE_HOST_ALL_REDUCE_LATENCY_S * 1e6
        ));
    }
    a
}

/// Per-GPU decode and compute figures.
struct GpuSpeed {
    bandwidth_gb_s: f64,
    peak_tflops: Option<f64>,
}

fn speed(input: &FitInput, used: &[GpuSlot], sh: &[Share], runtime: Runtime, notes: &mut Vec<String>) -> SpeedEstimate {
    let m = &input.model;
    let s = f64::from(input.context_tokens);
    let h = f64::from(m.hidden);
    let layers = f64::from(m.layers);
    let (_, head_b, body_b) = weight_parts_bytes(m, input.weight_precision);
    let total_params = m.params_b * 1e9;
    let table = table_params(m).min(total_params / 4.0);
    let body_params = total_params - 2.0 * table;
    let active_body = (m.active_b() * 1e9 - 2.0 * table).clamp(body_params * 0.01, body_params);
    let active_frac = active_body / body_params;
    let tp = match input.parallelism {
        Parallelism::TensorParallel(t) => t,
        _ => 1,
    };
    let e_bw = DECODE_BANDWIDTH_EFFICIENCY;
    let e_c = runtime.prefill_efficiency();

    let per_gpu: Vec<GpuSpeed> = used
        .iter()
        .map(|slot| GpuSpeed {
            bandwidth_gb_s: slot.gpu.memory_bandwidth_gb_s,
            peak_tflops: compute_peak_tflops(&slot.gpu, input.weight_precision, runtime, false).map(|(v, _)| v),
        })
        .collect();
    let peak_kind = used
        .first()
        .and_then(|s| compute_peak_tflops(&s.gpu, input.weight_precision, runtime, false))
        .map_or_else(|| "none published".to_owned(), |(_, k)| k.to_owned());
    let min_peak = per_gpu.iter().map(|g| g.peak_tflops).try_fold(f64::INFINITY, |acc, p| p.map(|v| acc.min(v)));
    if min_peak.is_none() {
        notes.push("a GPU publishes no tensor rate for this precision: no prefill estimate".into());
    }

    // Time of one decode step with `b` sequences on GPU i: (memory s, compute s).
    let step_gpu = |i: usize, b: u32| -> (f64, f64) {
        let share = &sh[i];
        let g = &per_gpu[i];
        let lf = f64::from(share.layers.end - share.layers.start) / layers;
        let bf = f64::from(b);
        // Expected fraction of layer weights touched by b tokens (MoE: experts overlap).
        let read_frac = 1.0 - (1.0 - active_frac).powf(bf);
        let weights = share.width * (body_b * lf * read_frac + if share.has_head { head_b } else { 0.0 });
        let (_, decode_tokens, _) = attended(m, share.layers.clone(), s);
        let kv = decode_tokens * bf * kv_bytes_per_token_layer(m, input.kv_precision, tp);
        let t_mem = (weights + kv) / (e_bw * g.bandwidth_gb_s * 1e9);
        let flops = bf
            * share.width
            * (2.0 * active_body * lf
                + if share.has_head { 2.0 * table } else { 0.0 }
                + 4.0 * decode_tokens * q_dim(m));
        let t_comp = g.peak_tflops.map_or(0.0, |p| flops / (e_c * p * 1e12));
        (t_mem, t_comp)
    };

    let link = group_link(used, runtime);
    let overhead = layers * runtime.layer_overhead_s();
    // Decode step time and bound for `b` sequences (per replica for data parallel).
    let step = |b: u32| -> (f64, Bound, f64, f64) {
        let parts: Vec<(f64, f64)> = (0..used.len()).map(|i| step_gpu(i, b)).collect();
        // GB read: t_mem × achieved bandwidth.
        let gb: f64 = parts.iter().zip(&per_gpu).map(|((tm, _), g)| tm * e_bw * g.bandwidth_gb_s).sum();
        match input.parallelism {
            Parallelism::LayerSplit(n) => {
                let work: f64 = parts.iter().map(|(tm, tc)| tm.max(*tc)).sum();
                let mem: f64 = parts.iter().map(|p| p.0).sum();
                let comp: f64 = parts.iter().map(|p| p.1).sum();
                let bound = if comp > mem { Bound::Compute } else { Bound::Memory };
                (work + overhead + f64::from(n - 1) * LAYER_SPLIT_HOP_S, bound, 0.0, gb)
            }
            Parallelism::TensorParallel(t) => {
                let mem = parts.iter().map(|p| p.0).fold(0.0, f64::max);
                let comp = parts.iter().map(|p| p.1).fold(0.0, f64::max);
                let msg = f64::from(b) * h * ACT_BYTES;
                let ar = 2.0 * layers * link.all_reduce_s(msg, t);
                let bound = if comp > mem { Bound::Compute } else { Bound::Memory };
                (mem.max(comp) + overhead + ar, bound, ar, gb)
            }
            Parallelism::Single | Parallelism::DataParallel(_) => {
                let (mem, comp) = parts.first().copied().unwrap_or((f64::INFINITY, 0.0));
                let bound = if comp > mem { Bound::Compute } else { Bound::Memory };
                let one = used.len().max(1) as f64;
                (mem.max(comp) + overhead, bound, 0.0, gb / one)
            }
        }
    };

    let (t1, _, ar1, gb1) = step(1);
    let batch = input.batch;
    // Data-parallel replicas share the batch; each runs its part concurrently.
    let per_replica = match input.parallelism {
        Parallelism::DataParallel(d) => batch.div_ceil(d).max(1),
        _ => batch,
    };
    let (tb, bound, _, _) = step(per_replica);
    let (decode_batch, per_seq) = (f64::from(batch) / tb, 1.0 / tb);

    // Prefill of one prompt of `s` tokens.
    let prefill = min_peak.map(|_| {
        let chunk = f64::from(runtime.chunk_tokens()).min(s).max(1.0);
        let chunks = (s / chunk).ceil().max(1.0);
        // Per-token time on GPU i (compute, or weight streaming per chunk if that is slower).
        let t_gpu: Vec<f64> = sh
            .iter()
            .zip(&per_gpu)
            .map(|(share, g)| {
                let lf = f64::from(share.layers.end - share.layers.start) / layers;
                let (_, _, avg_attended) = attended(m, share.layers.clone(), s);
                let flops = share.width * (2.0 * active_body * lf + 4.0 * avg_attended * q_dim(m));
                let peak = g.peak_tflops.unwrap_or(0.0);
                let t_c = if peak > 0.0 { flops / (e_c * peak * 1e12) } else { f64::INFINITY };
                let weights = share.width * body_b * lf;
                let t_m = weights / (e_bw * g.bandwidth_gb_s * 1e9) / chunk;
                t_c.max(t_m)
            })
            .collect();
        let sum: f64 = t_gpu.iter().sum();
        let max = t_gpu.iter().copied().fold(0.0, f64::max);
        let per_token = match input.parallelism {
            Parallelism::LayerSplit(_) if runtime.pipelines_prompt() => (sum + (chunks - 1.0) * max) / chunks,
            Parallelism::LayerSplit(_) => sum,
            Parallelism::TensorParallel(t) => {
                let per_chunk_msg = chunk * h * ACT_BYTES;
                max + 2.0 * layers * link.all_reduce_s(per_chunk_msg, t) / chunk
            }
            Parallelism::Single | Parallelism::DataParallel(_) => t_gpu.first().copied().unwrap_or(f64::INFINITY),
        };
        1.0 / per_token
    });

    SpeedEstimate {
        decode_batch1_tokens_per_s: 1.0 / t1,
        decode_batch_tokens_per_s: decode_batch,
        decode_per_sequence_tokens_per_s: per_seq,
        decode_bound: bound,
        bytes_per_token_gb: gb1,
        all_reduce_ms_per_token: ar1 * 1e3,
        prefill_tokens_per_s: prefill,
        time_to_first_token_s: prefill.map(|r| s / r),
        compute_peak_tflops: min_peak,
        compute_peak_kind: peak_kind,
        link: (used.len() > 1 && matches!(input.parallelism, Parallelism::TensorParallel(_))).then(|| link.describe()),
    }
}

/// Fine-tune time for `training_tokens` (dataset tokens × epochs) on the GPUs `input` uses:
/// FLOPs (see [`FineTuneEstimate::flops_per_token`]) over the GPUs' dense BF16 peaks × `mfu`
/// (default [`DEFAULT_MFU`]).
pub fn fine_tune_time(
    input: &FitInput,
    gpus: &[GpuSlot],
    training_tokens: f64,
    mfu: Option<f64>,
) -> Result<FineTuneEstimate, FitError> {
    validate(input, gpus)?;
    if !input.mode.is_training() {
        return Err(FitError::InvalidInput("fine-tune time needs a training mode".into()));
    }
    if !(training_tokens.is_finite() && training_tokens > 0.0) {
        return Err(FitError::InvalidInput("training tokens must be positive".into()));
    }
    let mfu = mfu.unwrap_or(DEFAULT_MFU);
    if !(mfu.is_finite() && mfu > 0.0 && mfu <= 1.0) {
        return Err(FitError::InvalidInput(format!("MFU {mfu} (0-1]")));
    }
    let used = &gpus[..input.parallelism.degree() as usize];
    let runtime = input.resolved_runtime();
    let mut peak = 0.0;
    for s in used {
        let (p, _) = compute_peak_tflops(&s.gpu, input.weight_precision, runtime, true)
            .ok_or_else(|| FitError::Unsupported(format!("GPU `{}` publishes no BF16/FP16 tensor rate", s.gpu.id)))?;
        peak += p;
    }
    let active = input.model.active_b() * 1e9;
    let passes = match input.mode {
        Mode::FullFineTune => 6.0,
        _ => 4.0,
    } + if input.gradient_checkpointing { 2.0 } else { 0.0 };
    let flops_per_token = passes * active;
    let total_flops = flops_per_token * training_tokens;
    let achievable = peak * mfu;
    Ok(FineTuneEstimate {
        tokens: training_tokens,
        flops_per_token,
        total_flops,
        mfu,
        peak_tflops: peak,
        achievable_tflops: achievable,
        hours: total_flops / (achievable * 1e12) / 3600.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_round_trips_through_strings() {
        for p in Precision::NAMED {
            assert_eq!(p.to_string().parse::<Precision>(), Ok(p));
        }
        assert_eq!("4.5bpw".parse::<Precision>(), Ok(Precision::Bpw(4.5)));
        assert!("q3_k_s".parse::<Precision>().is_err());
        assert_eq!("tp:2".parse::<Parallelism>(), Ok(Parallelism::TensorParallel(2)));
        assert_eq!("split:4".parse::<Parallelism>(), Ok(Parallelism::LayerSplit(4)));
        assert_eq!("qlora".parse::<Mode>(), Ok(Mode::Qlora));
        assert_eq!("llama.cpp".parse::<Runtime>(), Ok(Runtime::LlamaCpp));
    }

    #[test]
    fn layers_split_in_proportion_to_memory() {
        assert_eq!(split_layers(80, &[24.0, 24.0]), vec![40, 40]);
        assert_eq!(split_layers(32, &[24.0, 48.0]), vec![11, 21]);
        assert_eq!(split_layers(3, &[24.0, 24.0, 24.0, 24.0]).iter().sum::<u32>(), 3);
    }

    #[test]
    fn pcie_rates() {
        let x16 = |generation| Link::Pcie { generation, lanes: 16 }.per_direction_gb_s();
        assert!((x16(3) - 15.75).abs() < 0.1);
        assert!((x16(4) - 31.5).abs() < 0.1);
        assert!((x16(5) - 63.0).abs() < 0.1);
        assert!((Link::Pcie { generation: 4, lanes: 8 }.per_direction_gb_s() - 15.75).abs() < 0.1);
    }
}

//! The inference runtime ([`Runtime`]): llama.cpp, vLLM, SGLang and the others, with what
//! each one decides for the estimate (efficiencies, buffers, how a split behaves).

use super::{ParseError, Precision};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

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

    /// Whether the runtime's split of the layers over GPUs is pipeline parallel with several
    /// sequences in flight (vLLM `--pipeline-parallel-size`, SGLang `--pp-size`, TensorRT-LLM's
    /// pipeline parallel), not the one-after-another split of llama.cpp or ExLlamaV2: a layer
    /// split is estimated for these as tensor × pipeline with one rank per stage.
    pub fn pipelines_layer_split(self) -> bool {
        matches!(self, Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm)
    }

    /// Whether the runtime loads weights stored at `precision`, by its documentation:
    ///
    /// - llama.cpp, ik_llama.cpp: GGUF files only ("llama.cpp requires the model to be stored in
    ///   the GGUF file format", <https://github.com/ggml-org/llama.cpp/blob/master/README.md>):
    ///   the GGUF quants, F32/F16/BF16 and MXFP4 GGUF files, and a GGUF mix given by its
    ///   average bits per weight (1.5625 to 32: an Unsloth dynamic quant's published size); not
    ///   AWQ/GPTQ `int4`, FP8, INT8, NVFP4 or block FP8.
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
        // A bits-per-weight figure: under llama.cpp a GGUF mix given by its published average
        // size (an Unsloth dynamic quant, which the precision parser asks for so), from IQ1_S's
        // 1.5625 bits (the fewest of any GGUF type, ggml's type table) to F32's 32; under
        // ExLlamaV2 an EXL2 average, "any average bitrate between 2 and 8 bits per weight"
        // (the ExLlamaV2 README).
        if let P::Bpw(b) = p {
            let range = match self {
                Runtime::LlamaCpp | Runtime::IkLlamaCpp => Some((
                    1.5625,
                    32.0,
                    "a GGUF file's average (IQ1_S's 1.5625 is the fewest of any GGUF type, F32's 32 the most)",
                )),
                Runtime::ExLlamaV2 => Some((
                    2.0,
                    8.0,
                    "EXL2's range: 'any average bitrate between 2 and 8 bits per weight' (https://github.com/turboderp-org/exllamav2/blob/master/README.md)",
                )),
                _ => None,
            };
            if let Some((lo, hi, why)) = range
                && !(lo..=hi).contains(&b)
            {
                return Err(format!("{self} cannot load {b} bits per weight: {lo} to {hi}, {why}"));
            }
        }
        let refused = match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp => {
                matches!(p, P::Int4 | P::Int8 | P::Fp8 | P::Fp8Block | P::Nvfp4)
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
                "GGUF files only (q2_k to q8_0, iq1_s to iq4_xs, bf16/fp16, mxfp4)",
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
    pub(crate) fn default_for(precision: Precision) -> Runtime {
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

//! llama.cpp's back end ([`LlamaCppBackend`]): CUDA, HIP, Vulkan, SYCL or the CPU build. The
//! type lives with the workload vocabulary so the build file stores it; the estimator adds its
//! figures (`crate::estimate::llm`'s decode and prefill factors: HIP on RDNA 3/4, Vulkan on
//! Intel Arc A- and B-series, Vulkan prefill on RDNA 4).

use super::ParseError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The llama.cpp back end a run uses (`GGML_CUDA`, `GGML_HIP`, `GGML_VULKAN`, `GGML_SYCL`, or
/// the CPU build): the same model and card decode at different rates on different back ends
/// (llama.cpp issue 20934: an RX 7900 XTX decodes Llama 7B Q4_0 at ~172 tok/s on Vulkan and
/// ~136.5 on ROCm/HIP). `None` on the fit input's `llama_cpp_backend` is the one the GPU's vendor
/// implies ([`LlamaCppBackend::for_vendor`]). Parsed from `cuda`, `hip` (or `rocm`), `vulkan`,
/// `sycl`, `cpu`. Other runtimes ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlamaCppBackend {
    /// NVIDIA CUDA (`GGML_CUDA`): the back end the decode constants were fitted on.
    Cuda,
    /// AMD ROCm/HIP (`GGML_HIP`).
    Hip,
    /// Vulkan (`GGML_VULKAN`), any vendor.
    Vulkan,
    /// Intel oneAPI SYCL (`GGML_SYCL`).
    Sycl,
    /// No GPU back end: the CPU build.
    Cpu,
}

impl LlamaCppBackend {
    /// Every back end, in the order above.
    pub const ALL: [LlamaCppBackend; 5] = [
        LlamaCppBackend::Cuda,
        LlamaCppBackend::Hip,
        LlamaCppBackend::Vulkan,
        LlamaCppBackend::Sycl,
        LlamaCppBackend::Cpu,
    ];

    /// The back end a GPU's vendor implies when none is given: CUDA on NVIDIA; HIP on AMD (the
    /// GPU back end AMD documents and ships for llama.cpp, through ROCm, and the one
    /// llama.cpp's own build guide gives for AMD cards; Vulkan must be asked for); SYCL on Intel
    /// (the back end Intel maintains in llama.cpp, `docs/backend/SYCL.md`); Vulkan on any other
    /// maker (the only cross-vendor GPU back end). `None` (no GPU) is the CPU build.
    pub fn for_vendor(vendor: Option<&str>) -> LlamaCppBackend {
        match vendor.map(str::to_ascii_lowercase).as_deref() {
            None => LlamaCppBackend::Cpu,
            Some("nvidia") => LlamaCppBackend::Cuda,
            Some("amd") => LlamaCppBackend::Hip,
            Some("intel") => LlamaCppBackend::Sycl,
            Some(_) => LlamaCppBackend::Vulkan,
        }
    }
}

impl fmt::Display for LlamaCppBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LlamaCppBackend::Cuda => "CUDA",
            LlamaCppBackend::Hip => "ROCm/HIP",
            LlamaCppBackend::Vulkan => "Vulkan",
            LlamaCppBackend::Sycl => "SYCL",
            LlamaCppBackend::Cpu => "CPU",
        })
    }
}

impl std::str::FromStr for LlamaCppBackend {
    type Err = ParseError;

    /// `cuda`, `hip` (or `rocm`), `vulkan`, `sycl`, `cpu`, case-insensitive.
    fn from_str(s: &str) -> Result<LlamaCppBackend, ParseError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cuda" => Ok(LlamaCppBackend::Cuda),
            "hip" | "rocm" | "rocm/hip" => Ok(LlamaCppBackend::Hip),
            "vulkan" => Ok(LlamaCppBackend::Vulkan),
            "sycl" => Ok(LlamaCppBackend::Sycl),
            "cpu" => Ok(LlamaCppBackend::Cpu),
            other => Err(ParseError(format!(
                "unknown llama.cpp back end `{other}`: give cuda, hip (rocm), vulkan, sycl or cpu"
            ))),
        }
    }
}

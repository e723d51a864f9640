//! The routed-expert matmuls of llama.cpp's MoE prefill: the MMQ kernel family and column
//! tile a card runs (`MmqTiles`), and the per-token cost of one micro-batch's `MUL_MAT_ID`
//! (`routed_expert_gemm`), with the seconds the GPU spends on them
//! (`llama_cpp_expert_gemm_s_per_token`).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use super::LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS;
use crate::estimate::llm::calibration::{
    FP8_TENSOR_EFFICIENCY, LLAMA_CPP_MOE_TILE_FIXED_TOKENS, LLAMA_CPP_MOE_TILE_PAD_FRACTION,
};
use crate::estimate::llm::inputs::{FitInput, GpuSlot, LlamaCppBackend, Runtime};
use crate::estimate::llm::shape::{compute_peak_tflops, param_groups};
use crate::estimate::llm::support;
use kraftwerk_catalog::Gpu;

/// The MMQ kernel family llama.cpp's CUDA/HIP back end runs on a card, as far as it sets the
/// column tile width `mmq_x` (ggml-org/llama.cpp `ggml/src/ggml-cuda/mmq.cuh` at commit
/// 00cd208554e3, `get_mmq_x_max_host` and `mmq_get_granularity_host`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MmqTiles {
    /// NVIDIA Turing and newer (`turing_mma_available`): `mmq_x` up to 128, in steps of 8
    /// below 48 and of 16 from 48.
    NvidiaMma,
    /// AMD CDNA (MFMA) and RDNA 3/4 (WMMA) matrix cores: up to 128, in steps of 16 below 128
    /// and of 32 at 128. (Versions differ above 64 tokens: the 00cd208554e3 copy's
    /// `get_mmq_x_max_host` lists only Turing MMA and WMMA for 128, leaving CDNA at 64, and
    /// gives RDNA 3.5 48, where other stored versions list `amd_mfma_available` too; the build
    /// is not typed, 128 is used. No held row runs CDNA above 32 tokens.)
    AmdMatrix,
    /// dp4a without matrix cores (NVIDIA Volta and Pascal: `MMQ_DP4A_MAX_BATCH_SIZE`; AMD GCN
    /// such as gfx906 and RDNA 1/2: 64): up to 64, in steps of 8.
    Dp4a,
}

impl MmqTiles {
    /// The column tile `mmq_x` that `mul_mat_q_case` (mmq.cuh at 00cd208554e3) picks for
    /// `ncols_max` columns: the narrowest width, among the multiples of 8 up to the family's
    /// maximum that its granularity allows, with the fewest column tiles. For `MUL_MAT_ID`,
    /// `ggml_cuda_mul_mat_q` (`mmq.cu` at 027ef8769913) passes the micro-batch's token count
    /// `ne12` as `ncols_max`, and every expert with tokens runs `ceil(tokens / mmq_x)` tiles of
    /// that width. (The shared-memory limit of the loop is not modelled: the tiles up to 128 fit
    /// on the cards of the catalog.)
    pub(crate) fn mmq_x(self, ncols_max: u32) -> u32 {
        let max = match self {
            MmqTiles::NvidiaMma | MmqTiles::AmdMatrix => 128,
            MmqTiles::Dp4a => 64,
        };
        let (mut best, mut best_tiles) = (max, u32::MAX);
        let mut x = 8;
        while x <= max && best_tiles > 1 {
            let granularity = match self {
                MmqTiles::AmdMatrix if x >= 128 => 32,
                MmqTiles::AmdMatrix => 16,
                MmqTiles::NvidiaMma if x >= 48 => 16,
                MmqTiles::NvidiaMma | MmqTiles::Dp4a => 8,
            };
            let tiles = ncols_max.max(1).div_ceil(x);
            if x % granularity == 0 && tiles < best_tiles {
                (best, best_tiles) = (x, tiles);
            }
            x += 8;
        }
        best
    }
}

/// The MMQ tile family of `gpu` under llama.cpp's `backend`, from the catalog's architecture
/// name: CUDA on NVIDIA Turing and newer [`MmqTiles::NvidiaMma`], on Volta and older
/// [`MmqTiles::Dp4a`]; HIP on AMD CDNA and RDNA 3/4 [`MmqTiles::AmdMatrix`], on GCN and RDNA
/// 1/2 [`MmqTiles::Dp4a`]. `None` for the other back ends (Vulkan, SYCL, CPU: their MoE
/// kernels are not this code) and for chips the name does not place; those keep the 128-wide
/// tile the term was first fitted with.
pub(crate) fn llama_cpp_mmq_tiles(backend: LlamaCppBackend, gpu: &Gpu) -> Option<MmqTiles> {
    let a = gpu.architecture.trim();
    match (backend, support::chip_maker(gpu)) {
        (LlamaCppBackend::Cuda, Some("NVIDIA")) => {
            if ["Turing", "Ampere", "Ada", "Hopper", "Blackwell"].iter().any(|f| a.starts_with(f)) {
                Some(MmqTiles::NvidiaMma)
            } else if ["Volta", "Pascal", "Maxwell", "Kepler"].iter().any(|f| a.starts_with(f)) {
                Some(MmqTiles::Dp4a)
            } else {
                None
            }
        }
        (LlamaCppBackend::Hip, Some("AMD")) => {
            if ["CDNA", "RDNA 3", "RDNA 4"].iter().any(|f| a.starts_with(f)) {
                Some(MmqTiles::AmdMatrix)
            } else if ["GCN", "RDNA 1", "RDNA 2"].iter().any(|f| a.starts_with(f)) {
                Some(MmqTiles::Dp4a)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Seconds per prompt token that the GPU of `slot` spends on the routed-expert matmuls of
/// every MoE layer in a llama.cpp-family micro-batch of `chunk` tokens: the all-GPU prefill's
/// MoE term `2 · active · cost` ([`routed_expert_gemm`]) at the prefill GEMM rate (the
/// runtime's prefill efficiency × the card's peak for the weights' format). The part of an
/// all-GPU prefill that the routed experts take, which a runtime computing them on the CPU does
/// not spend on the GPU ([`super::placement`]). `None` for a dense model, another runtime, the
/// vector kernel's micro-batches (up to [`LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS`] tokens: bound by
/// reading the weights, not by the matmuls), or a card whose compute peak is unknown.
pub(crate) fn llama_cpp_expert_gemm_s_per_token(input: &FitInput, slot: &GpuSlot, chunk: f64) -> Option<f64> {
    let runtime = input.resolved_runtime();
    if !runtime.is_llama_cpp_family() {
        return None;
    }
    let used = std::slice::from_ref(slot);
    let (peak, kind) = compute_peak_tflops(&slot.gpu, input.weight_precision, runtime, false)?;
    let fp8 = if kind == "fp8" { FP8_TENSOR_EFFICIENCY } else { 1.0 };
    let rate = input.prefill_efficiency(runtime, used) * fp8 * peak * 1e12;
    let tiles = llama_cpp_mmq_tiles(input.llama_cpp_backend_on(used), &slot.gpu);
    let moe = routed_expert_gemm(input, runtime, chunk, f64::INFINITY, tiles);
    (moe.active > 0.0 && !moe.vector && rate > 0.0).then(|| 2.0 * moe.active * moe.cost / rate)
}

/// The routed-expert matmuls (`MUL_MAT_ID`) of one llama.cpp micro-batch, per token.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MoeGemm {
    /// Routed-expert parameters one token multiplies (`k/E` of the routed experts, at most the
    /// active body); 0 for a dense model and for other runtimes.
    pub active: f64,
    /// Cost of those matmuls per token as a multiple of the dense GEMM's at the prefill
    /// efficiency: 1 in the vector kernel (`chunk` ≤ [`LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS`]: it
    /// reads the experts and is bound by the bandwidth term), else
    /// `1 + (LLAMA_CPP_MOE_TILE_FIXED_TOKENS + LLAMA_CPP_MOE_TILE_PAD_FRACTION × mmq_x) ×
    /// touched / (chunk × k / E)`.
    pub cost: f64,
    /// Fraction of the routed experts the chunk's tokens touch, `1 - (1 - k/E)^chunk` (uniform
    /// routing, as the decode step counts them); 1 for a dense model and other runtimes.
    pub touched: f64,
    /// Whether the micro-batch runs the vector kernel (MMVQ): it then costs like a batched
    /// decode step, the touched weights at the decode efficiency plus the runtime's fixed cost
    /// per layer and step.
    pub vector: bool,
}

/// MoE prefill under the llama.cpp family, one micro-batch of `chunk` tokens on a card of MMQ
/// family `tiles` ([`llama_cpp_mmq_tiles`]; `None`: a 128-wide tile). Up to
/// [`LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS`] tokens the vector kernel multiplies each token by its
/// experts with no padding (cost 1) and the chunk reads the experts its tokens touch (the
/// prefill's bandwidth term, at the decode efficiency). Above it MMQ runs, per expert with
/// tokens, column tiles of the width the code picks for `chunk` columns
/// ([`MmqTiles::mmq_x`]), and pays [`LLAMA_CPP_MOE_TILE_FIXED_TOKENS`] plus
/// [`LLAMA_CPP_MOE_TILE_PAD_FRACTION`] of the tile's width on top of its tokens. (active 0, cost 1, touched 1) for a dense model and for other runtimes
/// (their MoE prefill kernels are not held to a measurement here).
pub(crate) fn routed_expert_gemm(
    input: &FitInput,
    runtime: Runtime,
    chunk: f64,
    active_body: f64,
    tiles: Option<MmqTiles>,
) -> MoeGemm {
    let m = &input.model;
    match m.experts.as_ref().filter(|e| e.routed > 0) {
        Some(e) if runtime.is_llama_cpp_family() => {
            let k = f64::from(e.per_token.min(e.routed));
            let routed = f64::from(e.routed);
            let active = (param_groups(m).experts * k / routed).clamp(0.0, active_body.max(0.0));
            let tokens = chunk.max(1.0);
            let touched = 1.0 - (1.0 - k / routed).powf(tokens);
            if tokens <= LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS {
                return MoeGemm { active, cost: 1.0, touched, vector: true };
            }
            let per_expert = (tokens * k / routed).max(f64::MIN_POSITIVE);
            // `chunk` is a whole token count (a micro-batch or a prompt's remainder).
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a token count, at least 1")]
            let tile = tiles.map_or(128.0, |t| f64::from(t.mmq_x(tokens.round().min(f64::from(u32::MAX)) as u32)));
            let pad = LLAMA_CPP_MOE_TILE_FIXED_TOKENS + LLAMA_CPP_MOE_TILE_PAD_FRACTION * tile;
            MoeGemm { active, cost: 1.0 + pad * touched / per_expert, touched, vector: false }
        }
        _ => MoeGemm { active: 0.0, cost: 1.0, touched: 1.0, vector: false },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mul_mat_q_case`'s tile choice (mmq.cuh at 00cd208554e3): the narrowest allowed
    /// multiple of 8 with the fewest column tiles for the micro-batch's token count. NVIDIA
    /// matrix cores: steps of 8 below 48 and of 16 from 48 (100 tokens → 112), at most 128;
    /// AMD matrix cores: steps of 16 (8 tokens → 16), 32 at 128; dp4a (gfx906): at most 64.
    #[test]
    fn mmq_tile_follows_the_column_count() {
        let cases = [
            (
                MmqTiles::NvidiaMma,
                [(8, 8), (16, 16), (40, 40), (64, 64), (100, 112), (128, 128), (256, 128), (512, 128)],
            ),
            (
                MmqTiles::AmdMatrix,
                [(8, 16), (16, 16), (40, 48), (64, 64), (100, 112), (128, 128), (256, 128), (512, 128)],
            ),
            (MmqTiles::Dp4a, [(8, 8), (16, 16), (40, 40), (64, 64), (100, 56), (128, 64), (256, 64), (512, 64)]),
        ];
        for (family, pairs) in cases {
            for (cols, want) in pairs {
                assert_eq!(family.mmq_x(cols), want, "{family:?} at {cols} columns");
            }
        }
    }
}

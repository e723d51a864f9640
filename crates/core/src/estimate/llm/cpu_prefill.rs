//! Who computes the routed experts held in system RAM during a prompt, and how fast the CPU
//! does it.
//!
//! llama.cpp and ik_llama.cpp run a prompt micro-batch (`-ub`) through `ggml_backend_sched`:
//! an op whose weights sit in a CPU buffer runs on the CPU unless a GPU back end both supports
//! it (`supports_op`) and asks for it (`offload_op`); then the weights are copied to the GPU for
//! that micro-batch (what [`super::placement`] costs over the host link). For the routed
//! experts (`MUL_MAT_ID`, and ik_llama.cpp's fused `MOE_FUSED_UP_GATE`) the two runtimes ask
//! differently ([`ram_experts_path`]); where the experts stay on the CPU, the micro-batch costs
//! the GPU's part plus the RAM-held experts' FLOPs at the CPU's matrix rate
//! ([`HostCpu::expert_gemm_flop_s`]), one after the other (the scheduler runs its splits in
//! order).

#![allow(clippy::doc_markdown, reason = "hardware and format names (EPYC, AVX-512, Q4_K) read better unquoted")]

use crate::workload::Runtime;
use kraftwerk_catalog::Cpu;
use serde::{Deserialize, Serialize};

/// ggml's CUDA back end offloads an op whose weights sit in system RAM from this many tokens on
/// (`min_batch_size = 32` in `ggml_backend_cuda_offload_op`, ikawrakow/ik_llama.cpp
/// `ggml/src/ggml-cuda.cu` at f2fb15de7 (build 3596) and later as `GGML_CUDA_MIN_BATCH_OFFLOAD`,
/// settable since ik_llama.cpp PR 910 (2025-11-07), default still 32; ggml-org/llama.cpp
/// `ggml_backend_cuda_device_offload_op`: `get_op_batch_size(op) >= min_batch_size`, 32, where
/// the batch of a `MUL_MAT_ID` is its `ne[2]`, the micro-batch's tokens).
pub const GGML_CUDA_MIN_BATCH_OFFLOAD: u32 = 32;

/// The first ik_llama.cpp build (its `version: N`, the commit count) that offloads the routed
/// experts only when each expert gets [`GGML_CUDA_MIN_BATCH_OFFLOAD`] tokens on average: PR 520
/// ("Better strategy for GPU offload", commit dc663fe63, 2025-06-12; `git rev-list --count
/// dc663fe63` = 3745 in ikawrakow/ik_llama.cpp). From then `ggml_backend_cuda_offload_op`
/// returns, for `MUL_MAT_ID` and `MOE_FUSED_UP_GATE`, `batch_size >= 32 && batch_size ×
/// n_experts_active >= 32 × n_experts_tot` (unchanged at 8337e4cd, 2026-08-15; PR 1813 of
/// 2026-05-19 adds a per-byte threshold, off by default: `offload_batch_size_per_byte = -1`).
/// Before it (f2fb15de7), `MUL_MAT_ID` was offloaded at `ne[2] >= 32` tokens, as mainline does.
pub const IK_LLAMA_ACTIVE_EXPERT_OFFLOAD_BUILD: u32 = 3745;

/// Where the routed experts held in system RAM are computed during a prompt micro-batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RamExpertsPath {
    /// Copied to the GPU for the micro-batch and computed there (llama.cpp's op offload).
    CopiedToGpu,
    /// Computed by the CPU back end where they sit.
    ComputedOnCpu,
}

/// Where `runtime` computes the routed experts it holds in system RAM for a prompt micro-batch
/// of `tokens` tokens, on a model routing each token to `experts_per_token` of `experts`:
/// - llama.cpp (ggml-org): copied to the GPU from [`GGML_CUDA_MIN_BATCH_OFFLOAD`] tokens on
///   (`ggml_backend_cuda_device_offload_op`), else on the CPU;
/// - ik_llama.cpp with `-rtr` (`run_time_repack`): on the CPU at every micro-batch. `-rtr`
///   turns mmap off and repacks every tensor in a host buffer to its row-interleaved type
///   (`src/llama.cpp`: `if (!ml.use_mmap && ml.repack_tensors) ... iqk_repack_tensor`; Q2_K..Q6_K
///   to Q*_K_R4, Q8_0 to Q8_0_R8, IQ4_XS to IQ4_XS_R8, `ggml/src/iqk/iqk_quantize.cpp`), and
///   the scheduler offloads an op only where the GPU `supports_op` it
///   (`ggml/src/ggml-backend.cpp`: `ggml_backend_supports_op(...) && ggml_backend_offload_op(...)`),
///   which `ggml_backend_cuda_supports_op` does not for those types (at f2fb15de7 no `_R4`/`_R8`
///   type; from 5236c98b4, PR 557 of 2025-06-26, only ik_llama.cpp's own IQ*_K_R4, IQ1_S_R4 and
///   IQ1_M_R4; likewise at 8337e4cd). The precisions the inputs carry (the K-quants, Q8_0, the
///   Unsloth and bartowski K-quant mixes) repack to unsupported types;
/// - ik_llama.cpp without `-rtr`: from build [`IK_LLAMA_ACTIVE_EXPERT_OFFLOAD_BUILD`] copied
///   only when `tokens >= 32` and `tokens × experts_per_token >= 32 × experts`, before it from
///   32 tokens on; with the build unknown (`None`) the path is known only where both rules agree.
///
/// `None`: not a llama.cpp-family runtime, or an ik_llama.cpp build of unknown date where the
/// two rules differ. A dense model (`experts` 0) has no routed experts: its RAM-held weights
/// follow the token rule.
pub fn ram_experts_path(
    runtime: Runtime,
    build: Option<u32>,
    run_time_repack: bool,
    tokens: u32,
    experts_per_token: u32,
    experts: u32,
) -> Option<RamExpertsPath> {
    let path = |copy: bool| if copy { RamExpertsPath::CopiedToGpu } else { RamExpertsPath::ComputedOnCpu };
    let by_tokens = tokens >= GGML_CUDA_MIN_BATCH_OFFLOAD;
    let by_active = by_tokens
        && u64::from(tokens) * u64::from(experts_per_token)
            >= u64::from(GGML_CUDA_MIN_BATCH_OFFLOAD) * u64::from(experts);
    match runtime {
        Runtime::LlamaCpp => Some(path(by_tokens)),
        Runtime::IkLlamaCpp if run_time_repack => Some(RamExpertsPath::ComputedOnCpu),
        Runtime::IkLlamaCpp => match build {
            Some(b) if b >= IK_LLAMA_ACTIVE_EXPERT_OFFLOAD_BUILD => Some(path(by_active)),
            Some(_) => Some(path(by_tokens)),
            None => (by_tokens == by_active).then(|| path(by_tokens)),
        },
        _ => None,
    }
}

/// Weight-GEMM FLOPs a CPU core with AVX-512 retires per cycle of its base clock in
/// ik_llama.cpp's prompt processing (2 × the weights' parameters per token, over cores × base
/// clock). Fitted on one CPU-only row, not on any held row: ikawrakow/ik_llama.cpp PR 518 ("IQ3_S:
/// much faster CPU prompt processing", https://github.com/ikawrakow/ik_llama.cpp/pull/518,
/// 2025-06-11), llama-sweep-bench of LLaMA-3.1-8B IQ3_S on a Ryzen-7950X (16 Zen 4 cores,
/// AVX-512, base clock 4.5 GHz, AMD's product page), row `| 512 | 128 | 0 | 1.733 | 295.36 |`:
/// 295.36 tok/s × 2 × 7.50 × 10⁹ weight parameters per token (Llama 3.1 8B's 8.03 B less its
/// 0.525 B input embedding, which is a lookup) = 4.43 TFLOPS over 16 × 4.5 GHz = 61.5. The
/// attention's score FLOPs (under 1 % at 512 tokens) are left in the fit. Cross-check, not
/// fitted: PR 128 (2024-12-08) gives the same model in IQ4_XS_R4 254 tok/s on the same CPU
/// (52.9 by the same count), PR 144 IQ4_K_R4 251 tok/s. The rate per type differs (IQ3_S,
/// IQ4_XS, the K-quants, Q8_0 each have their own kernels), which this one figure does not
/// type; nor the CPU's clock under an all-core AVX-512 load (it boosts above base by a margin
/// that differs between desktop and server parts).
pub const CPU_AVX512_GEMM_FLOP_PER_CORE_CYCLE: f64 = 295.36 * 2.0 * 7.50e9 / (16.0 * 4.5e9);

/// The CPU that computes RAM-held experts: the figures its prompt rate is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HostCpu {
    /// Physical cores over all sockets.
    pub cores: u32,
    /// Base clock, GHz ([`Cpu::base_clock_ghz`]).
    pub base_clock_ghz: f64,
    /// Whether the cores execute AVX-512 ([`Cpu::avx512`]).
    pub avx512: bool,
}

impl HostCpu {
    /// The catalog CPU's figures on `sockets` sockets; `None` where its base clock or its
    /// instruction set is not entered (then the CPU's prompt rate is unknown).
    pub fn of_catalog(cpu: &Cpu, sockets: u32) -> Option<HostCpu> {
        Some(HostCpu {
            cores: u32::from(cpu.cores) * sockets.max(1),
            base_clock_ghz: cpu.base_clock_ghz?,
            avx512: cpu.avx512?,
        })
    }

    /// The rate at which ik_llama.cpp / llama.cpp compute weight GEMMs on this CPU, FLOP/s:
    /// cores × base clock × [`CPU_AVX512_GEMM_FLOP_PER_CORE_CYCLE`]. `None` without AVX-512
    /// (the AVX2 kernels are not fitted).
    pub fn expert_gemm_flop_s(&self) -> Option<f64> {
        self.avx512.then(|| f64::from(self.cores) * self.base_clock_ghz * 1e9 * CPU_AVX512_GEMM_FLOP_PER_CORE_CYCLE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RamExpertsPath::{ComputedOnCpu, CopiedToGpu};

    /// DeepSeek-V3 (256 routed experts, top 8) at llama-bench's -ub 512: mainline copies the
    /// RAM-held experts (512 >= 32 tokens); ik_llama.cpp build 3596 (f2fb15de7, before PR 520)
    /// copies them too; build 3762 (1843ed22, the build of IK-06p) computes them on the CPU
    /// (512 × 8 = 4,096 < 32 × 256 = 8,192), and from -ub 1024 copies them (8,192 >= 8,192).
    #[test]
    fn offload_rule_by_runtime_and_build() {
        assert_eq!(ram_experts_path(Runtime::LlamaCpp, None, false, 512, 8, 256), Some(CopiedToGpu));
        assert_eq!(ram_experts_path(Runtime::LlamaCpp, None, false, 31, 8, 256), Some(ComputedOnCpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3596), false, 512, 8, 256), Some(CopiedToGpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3744), false, 512, 8, 256), Some(CopiedToGpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3745), false, 512, 8, 256), Some(ComputedOnCpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3762), false, 512, 8, 256), Some(ComputedOnCpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3762), false, 1023, 8, 256), Some(ComputedOnCpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3762), false, 1024, 8, 256), Some(CopiedToGpu));
        // gpt-oss-120b (128 experts, top 4) at a 310-token prompt under build 3928: CPU.
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3928), false, 310, 4, 128), Some(ComputedOnCpu));
        // Build unknown: known only where both rules agree.
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, None, false, 512, 8, 256), None);
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, None, false, 4096, 8, 256), Some(CopiedToGpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, None, false, 16, 8, 256), Some(ComputedOnCpu));
        // Not a llama.cpp-family runtime.
        assert_eq!(ram_experts_path(Runtime::Vllm, None, false, 512, 8, 256), None);
    }

    /// `-rtr` keeps the RAM-held experts on the CPU at every micro-batch and build (IK-08p:
    /// -ub 4096, build 3772; IK-04p: -ub 512, build 3596, which would copy without -rtr).
    #[test]
    fn run_time_repack_keeps_the_experts_on_the_cpu() {
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3772), true, 4096, 8, 256), Some(ComputedOnCpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, Some(3596), true, 512, 8, 256), Some(ComputedOnCpu));
        assert_eq!(ram_experts_path(Runtime::IkLlamaCpp, None, true, 512, 8, 128), Some(ComputedOnCpu));
    }

    /// The fitted rate gives PR 518's row back: 16 cores × 4.5 GHz × the constant over 2 × 7.50
    /// B FLOPs per token = 295.36 tok/s; a CPU without AVX-512 or without a base clock has none.
    #[test]
    fn cpu_rate_gives_its_fit_row_back() {
        let r7950x = HostCpu { cores: 16, base_clock_ghz: 4.5, avx512: true };
        let tok_s = r7950x.expert_gemm_flop_s().unwrap_or(0.0) / (2.0 * 7.50e9);
        assert!((tok_s - 295.36).abs() < 0.01, "{tok_s}");
        assert_eq!(HostCpu { avx512: false, ..r7950x }.expert_gemm_flop_s(), None);
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let tr = cat.cpus.iter().find(|c| c.id == "amd-threadripper-pro-7965wx").expect("7965WX");
        assert_eq!(HostCpu::of_catalog(tr, 1), Some(HostCpu { cores: 24, base_clock_ghz: 4.2, avx512: true }));
        let unknown = cat.cpus.iter().find(|c| c.id == "amd-ryzen-9-9950x").expect("9950X");
        assert_eq!(HostCpu::of_catalog(unknown, 1), None);
    }
}

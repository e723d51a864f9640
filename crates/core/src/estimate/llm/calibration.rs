//! Calibration constants of the LLM estimate, each with the measurement it rests on (the table
//! of measurements is in the module documentation of [`super`]).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

/// Bytes in a GiB.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Fraction of peak memory bandwidth that decode reaches while streaming weights and KV cache:
/// every runtime but llama.cpp on its current builds, and llama.cpp builds of 2023-24
/// ([`super::LlamaCppEra::Builds2023To2024`]).
/// Fitted (together with the per-layer overheads) on the eight decode measurements of the table in [`super`]
/// (llama.cpp PR 4766 on an RTX 3090; XiongjieDai's RTX 4090, A100 80GB, 2x and 8x RTX 4090;
/// vLLM on an A100 40GB): with 0.80 every one lands within about ±20 %.
pub(crate) const DECODE_BANDWIDTH_EFFICIENCY: f64 = 0.80;

/// llama.cpp builds of 2023-24 ([`super::LlamaCppEra::Builds2023To2024`]): fixed cost per
/// layer and decode step (kernel launches, synchronisation), s.
/// Fitted on llama.cpp PR 4766 (RTX 3090, LLaMA-7B Q4_0 121.8 tok/s and F16 48.5 tok/s: the
/// two differ by 9.7 GB of weights and 12.4 ms, which leaves about 3 ms per token of fixed cost
/// for 32 layers).
pub(crate) const LLAMA_CPP_LAYER_OVERHEAD_S: f64 = 90e-6;

/// llama.cpp builds of 2025-26 ([`super::LlamaCppEra::Builds2025To2026`], the default):
/// fraction of peak memory bandwidth that batch-1 decode reaches. Fitted together with
/// [`LLAMA_CPP_2025_LAYER_OVERHEAD_S`] by least squares on the relative error of the step time
/// (`t = bytes / (e × bandwidth) + layers × overhead` is linear in `1/e` and the overhead) over
/// five published rows of 2025-26 builds (`tests/all/llm_fit/decode_2025.rs`, where the
/// fit is re-run): llama.cpp PRs 15131 (RTX 4090, Llama-3-8B BF16), 15802 (RTX 3090,
/// Llama-3-8B Q4_0), 17891 (RTX 5090, Llama-3-8B Q4_0 at 32K), 24216 (RTX 5090, Llama-3.2-1B
/// BF16) and b7340 on Vulkan (RTX 4090, TinyLlama Q4_K_M). The fit gives 0.9067 and 27.54 µs;
/// residuals -7 % to +16 %; three rows held out of the fit (PR 17505 RTX 4090 at 32K +3 %, PR
/// 17891 RTX 3090 Llama-2-7B at 32K -2 %, Qwen3-8B on an RTX 5090 through Docker Model Runner
/// +16 %) land inside the ±25 % band. Prompt rows at micro-batch 1 read no LM head (no logits).
/// Current builds capture decode as CUDA graphs and fuse kernels (llama.cpp PR 6766, 2024,
/// and later), which is why the fixed cost is a third of the 2023 figure.
pub const LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY: f64 = 0.907;

/// llama.cpp's ROCm/HIP back end on AMD RDNA 3 and RDNA 4 cards
/// ([`super::LlamaCppBackend::Hip`]): multiplier on [`LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY`]
/// (fitted on CUDA rows) for batch-1 decode. Fitted on one pair: llama.cpp issue 20934
/// (https://github.com/ggml-org/llama.cpp/issues/20934, 2026-03-24), the same RX 7900 XTX and
/// Llama 7B Q4_0 (32 layers), llama-bench tg128, -ngl 999 -fa 1, measured with both back ends:
/// Vulkan (RADV) ~172.0 tok/s (row AM-07), ROCm/HIP ~136.5 tok/s (row AM-08; the mid-points of
/// the ranges the issue gives). The Vulkan run lands in band at the CUDA efficiency, so the two
/// step times differ only in the weight-streaming part: with the fixed cost of 32 layers ×
/// [`LLAMA_CPP_2025_LAYER_OVERHEAD_S`] = 0.880 ms taken off each,
/// (1/172.0 − 0.000880) / (1/136.5 − 0.000880) = (5.814 − 0.880) / (7.326 − 0.880) ms
/// = 4.934 / 6.446 = 0.765. Held rows on other cards and models (AM-04, AM-05, AM-06, AM-22,
/// AM-10) test it (`tests/all/llm_fit/moe_2026.rs`).
pub const LLAMA_CPP_HIP_RDNA_DECODE_FACTOR: f64 = 0.765;

/// llama.cpp's ROCm/HIP back end on AMD GCN 5.1 cards (Vega 20, gfx906: Instinct MI50/MI60,
/// Radeon VII) ([`super::LlamaCppBackend::Hip`]): multiplier on
/// [`LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY`] for batch-1 decode. Fitted on one dense row:
/// kyuz0/mi50-gfx906-toolboxes, README.md 'Llama.cpp (MI50 vs R9700)' (table committed
/// 2026-05-02, commit e709eac; https://github.com/kyuz0/mi50-gfx906-toolboxes), one Instinct
/// MI50 32 GB (1,024 GB/s HBM2), llama.cpp built for ROCm 6.4.4, `-ngl 99 -fa 1`, llama-2-7b
/// Q4_0 (3.56 GiB, 32 layers) tg128 96.78 tok/s (row KM-00; the ROCm 7.2.1 column gives 95.62).
/// With the fixed cost of 32 layers × [`LLAMA_CPP_2025_LAYER_OVERHEAD_S`] = 0.881 ms taken off,
/// the weight-streaming part of the step is 10.33 − 0.88 = 9.45 ms where the CUDA-fitted
/// efficiency gives 4.07 ms: 4.07 / 9.45 = 0.431 (the card reaches about 39 % of its peak
/// bandwidth in llama.cpp's quantized vector kernels). Held rows test it: gpt-oss-20b MXFP4 on
/// the same card and table at tg128 and at depth 32,768 (KM-01, KM-02 and their d32k rows:
/// estimate/measured 0.81-0.83, where they were 1.74-1.79 before the factor;
/// `tests/all/llm_fit/moe_2026.rs`). One row cannot tell this form from a fixed cost per layer:
/// 168 µs more per layer (the same 5.38 ms over 32 layers) would put those rows at 0.93-1.03;
/// the bandwidth form is kept as [`LLAMA_CPP_HIP_RDNA_DECODE_FACTOR`]'s, whose R9700 columns in
/// the same table land at the same 0.77-0.85. GCN 5.1 (Vega 20) only; Vega 10 (gfx900), Vulkan
/// on gfx906 and CDNA cards (MI100, MI210, MI300X) are not typed (no row).
pub const LLAMA_CPP_HIP_GFX906_DECODE_FACTOR: f64 = 0.431;

/// llama.cpp's Vulkan back end on Intel Arc A-series cards (Alchemist, Xe-HPG, DG2)
/// ([`super::LlamaCppBackend::Vulkan`]): multiplier on
/// [`LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY`] (fitted on CUDA rows) for batch-1 decode.
/// Fitted by least squares on the relative error of the step time (`t = S / f + F`, `S` the
/// weight and KV streaming, `F` the fixed per-layer cost and layer-split hops;
/// `tests/all/llm_fit/vulkan_fit.rs` re-runs it) over three published llama-bench rows on
/// Windows, none of them a held row:
/// - llama.cpp PR 14001 (https://github.com/ggml-org/llama.cpp/pull/14001, 2025-06-04), build
///   b5589, i9-12900K + Arc A770, Windows 11 24H2, Intel driver 32.0.101.6795, gemma-2-2b-it
///   Q4_K_M, tg128 96.83 tok/s (row's own factor 0.36);
/// - llama.cpp issue 17628 (https://github.com/ggml-org/llama.cpp/issues/17628, 2025-11-30),
///   build b7189, Arc A770, Windows, driver 8250, Meta-Llama-3.1-8B-Instruct Q4_K_M,
///   llama-bench token generation 53 tok/s (42 at b7209, the regression the issue reports;
///   own factor 0.55);
/// - llama.cpp issue 20893 (https://github.com/ggml-org/llama.cpp/issues/20893, 2026-03-23),
///   build b7548, 2x Arc A770 (layer split), Windows 11, driver 8626,
///   Qwen3-30B-A3B-Instruct-2507 Q4_K_M, tg128 65.40 tok/s (own factor 0.29).
///
/// The fit gives 0.435; the rows spread from 0.29 to 0.55 (residuals −20 % to +44 %):
/// the A-series mat-vec shaders are tuned per build and per quantization (PR 15355 retuned
/// them; issue 17628 is a 20 % regression between two builds a week apart). The same PR 14001
/// run on Ubuntu 24.04.2 with Mesa 24.2.8 decodes 39.00 tok/s (own factor 0.14, 2.5x below the
/// Windows driver on the same build): Linux with the Mesa of 2024 is not in the fit and is
/// slower than this factor says.
pub const LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR: f64 = 0.435;

/// llama.cpp's Vulkan back end on Intel Arc B-series cards (Battlemage, Xe2-HPG, BMG: Arc B580,
/// Arc Pro B60) ([`super::LlamaCppBackend::Vulkan`]): multiplier on
/// [`LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY`] for batch-1 decode. Fitted as
/// [`LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR`] (`tests/all/llm_fit/vulkan_fit.rs`) on
/// three published llama-bench rows, none of them a held row:
/// - llama.cpp PR 14001 (https://github.com/ggml-org/llama.cpp/pull/14001, 2025-06-04),
///   i5-13400 + Arc B580, Windows 11 24H2, Intel driver 32.0.101.6795, gemma-2-2b-it Q4_K_M,
///   tg128 126.69 tok/s at b5589 and 129.95 at b5583 (two builds; own factors 0.54, 0.56);
/// - llama.cpp PR 25051 (https://github.com/ggml-org/llama.cpp/pull/25051, comment of
///   2026-06-27), 2x Arc Pro B60 (BMG G21, layer split), Linux, Mesa 26.1.3 (ANV,
///   KHR_coopmat), PR head a448deb85, `llama-bench -fa 1 -p 512 -n 128`, Llama-3.2-1B Q8_0
///   tg128 187.42 tok/s (own factor 0.67).
///
/// The fit gives 0.592 (residuals −10 % to +9 %). PR 14001's Ubuntu 24.04.2 run (Mesa
/// 24.2.8) of the B580 decodes 41.80 tok/s (own factor 0.17): not in the fit, as for the
/// A-series; the one Mesa 2026 row (PR 25051) lands with the Windows rows.
pub const LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR: f64 = 0.592;

/// llama.cpp's Vulkan back end on AMD RDNA 4 cards ([`super::LlamaCppBackend::Vulkan`]):
/// multiplier on [`LLAMA_CPP_PREFILL_EFFICIENCY`] (fitted on CUDA rows, applied to the
/// catalog's WMMA FP16 rate on RDNA 4) for prefill. Fitted as
/// [`LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR`] (`tests/all/llm_fit/vulkan_fit.rs`, `S` the
/// prompt's GEMMs) on three rows of one published table, none of them a held row:
/// VulkanForge's benchmark page (https://github.com/maeddesg/vulkanforge/wiki/Benchmarks,
/// edited 2026-06-10), RX 9070 XT, Linux, RADV Mesa 26.1.2, llama.cpp b9174 (0253fb21f)
/// Vulkan build with KHR_coopmat, `-fa 1 -ngl 99`, ctx 4096, prompt of 512 tokens:
/// Qwen3-8B Q4_K_M 4472, Llama-3.1-8B-Instruct Q4_K_M 4802, Mistral-7B-v0.3 Q4_K_M 4826 tok/s
/// (own factors 0.98, 1.05, 1.06). The fit gives 1.032: under RADV the Vulkan back end's
/// coopmat GEMMs reach the rate the HIP rows reach (AM-22p). It does not explain the held
/// AM-21p (the same card, Windows 11 with AMD's own driver, b10298: Qwen3-8B pp512 2866
/// Vulkan against 4199 HIP; the same post's Qwen3-4B gives 5223 against 6671): that gap is the
/// Windows driver's, which the back end does not type. RDNA 3 under Vulkan is not typed (no
/// such 2025-26 row on a catalog model was found; factor 1).
pub const LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR: f64 = 1.032;

/// llama.cpp builds of 2025-26: fixed cost per layer and decode step, s. Fitted with
/// [`LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY`] (see there).
pub const LLAMA_CPP_2025_LAYER_OVERHEAD_S: f64 = 27.5e-6;

/// ik_llama.cpp fixed cost per layer and decode step, s. Fitted on ik_llama.cpp PR 1106
/// (https://github.com/ikawrakow/ik_llama.cpp/pull/1106, January 2026): Qwen3-14B Q4_0 on
/// 2x RTX 3090, split mode "layer", 95.54 tok/s at an empty cache, 10.5 ms per token, about what
/// streaming the weights alone takes at [`DECODE_BANDWIDTH_EFFICIENCY`]; llama.cpp's 2023 figure
/// ([`LLAMA_CPP_LAYER_OVERHEAD_S`]) puts it at 70 tok/s. 10 µs is used (one row: fitted, not
/// checked).
pub const IK_LLAMA_CPP_LAYER_OVERHEAD_S: f64 = 10e-6;

/// `ExLlamaV2` fixed cost per layer and decode step, s. No published measurement found; the llama.cpp
/// figure is used (judgement).
pub(crate) const EXLLAMA_LAYER_OVERHEAD_S: f64 = 90e-6;

/// vLLM fixed cost per layer and decode step, s. vLLM replays decode steps as CUDA graphs, so
/// launch latency disappears and about 15 kernels of ~2 µs each remain (judgement), which puts
/// the vLLM A100 40GB measurement (johnmusgrave.com vLLM throughput sweep: 75 tok/s, Llama-3.1-8B BF16) within 5 %.
pub(crate) const VLLM_LAYER_OVERHEAD_S: f64 = 30e-6;

/// vLLM / SGLang fused-MoE decode: fixed time of one MoE layer's expert kernel per decode step,
/// s (router top-k, the token-to-expert sort `moe_align_block_size`, the two grouped GEMMs'
/// launches and their first tile wave), added to [`VLLM_LAYER_OVERHEAD_S`] for each layer that
/// holds routed experts. Fitted, together with [`FUSED_MOE_EXPERT_BANDWIDTH_EFFICIENCY`], by
/// least squares on the relative error of the ten kernel times of vLLM PR 19049
/// (https://github.com/vllm-project/vllm/pull/19049, 2025-06-03, `benchmark_moe.py` on an
/// A100 PCIe 40GB, Qwen3-30B-A3B BF16, E=128, N=768, default Triton config): batch 1, 2, 4,
/// 8, 16, 24, 32, 48, 64, 96 → 109.21, 159.81, 268.89, 403.13, 611.19, 730.19, 808.53,
/// 885.97, 917.45, 943.14 µs, against `t = t0 + bytes / (e × 1555 GB/s)` where `bytes` are
/// the distinct experts the batch touches (`E·(1 − (1 − k/E)^b)` × 9.44 MB). The fit gives
/// 55.6 µs and 0.890; residuals −5.5 % to +1.7 % (`tests/all/llm_fit/moe_vllm_fit.rs`
/// re-runs it). The fixed part is latency, not bandwidth, and is taken as the same on other
/// GPUs (not measured there).
pub const FUSED_MOE_LAYER_OVERHEAD_S: f64 = 55.6e-6;

/// vLLM / SGLang fused-MoE decode: fraction of peak memory bandwidth at which the grouped
/// expert GEMMs read the experts a decode step touches. Fitted with
/// [`FUSED_MOE_LAYER_OVERHEAD_S`] (see there): 0.89, above [`DECODE_BANDWIDTH_EFFICIENCY`]
/// because the kernel streams whole expert matrices with nothing else in between.
pub const FUSED_MOE_EXPERT_BANDWIDTH_EFFICIENCY: f64 = 0.89;

/// vLLM / SGLang decode with one sequence: fraction of peak memory bandwidth at which the
/// decode-attention kernel reads that sequence's KV cache (paged attention at batch 1 runs a
/// few thread blocks per KV head and leaves most of the GPU's memory system idle; with `b`
/// sequences it reads `b` times as much at once, `speed::kv_read_efficiency` scales it
/// by `b` up to the weight-streaming [`DECODE_BANDWIDTH_EFFICIENCY`]).
///
/// Fitted on one published vLLM sweep, not on a held row: tenstorrent/tt-inference-server
/// issue 340 ("Qwen3 Family: GPU Benchmarks",
/// https://github.com/tenstorrent/tt-inference-server/issues/340, comment by gtobarTT of
/// 2025-07-18, "Performance Benchmark Sweeps for Qwen3-30B-A3B on A100"; the report's
/// metadata gives `model_impl: gpu`, the vLLM serving benchmark of tt-inference-server, and
/// `vllm_commit: n/a`, so the vLLM version is not stated). Qwen3-30B-A3B BF16, concurrency 1,
/// 128 output tokens: ISL 128 → TPOT 9.6 ms, ISL 8192 → TPOT 10.6 ms. The two runs differ
/// only in the KV cache each decode step reads: mean position 128 + 64 = 192 against
/// 8192 + 64 = 8256, 8064 tokens × (48 layers × 2 (K and V) × 4 KV heads × 128 × 2 bytes =
/// 98,304 B) = 0.7927 GB in 1.0 ms = 792.7 GB/s = 0.389 of the A100 80GB SXM4's 2,040 GB/s.
/// The card is an 80 GB A100 (the 61.1 GB BF16 checkpoint does not fit 40 GB); its form
/// factor is not stated: on the 80 GB PCIe card's 1,935 GB/s the same arithmetic gives 0.41.
/// The TPOTs are printed to 0.1 ms, so the 1.0 ms difference carries about ±10 %.
pub const VLLM_SINGLE_SEQUENCE_ATTENTION_BANDWIDTH_EFFICIENCY: f64 = 0.389;

/// Cost of each GPU-to-GPU hop of a layer split per decoded token, s (hand-over of the hidden
/// state and a synchronisation). From XiongjieDai's benchmark: Llama-3-8B Q4_K_M decodes at
/// 130.6 tok/s on one RTX 4090 and 118.1 tok/s split over eight, 0.81 ms over 7 hops ≈ 116 µs;
/// 100 µs is used.
pub const LAYER_SPLIT_HOP_S: f64 = 100e-6;

/// llama.cpp prefill efficiency: fraction of the dense FP16 tensor peak (FP16 accumulate on
/// GeForce, since llama.cpp multiplies dequantized weights with cuBLAS in FP16 compute) reached
/// over a prompt. Fitted on llama.cpp PR 4766: RTX 3090, LLaMA-7B Q4_0, pp512 3408 tok/s.
pub(crate) const LLAMA_CPP_PREFILL_EFFICIENCY: f64 = 0.33;

/// llama.cpp family, MoE prefill in MMQ (micro-batches above
/// `speed::LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS`): each routed expert that gets tokens costs as if it
/// had `LLAMA_CPP_MOE_TILE_FIXED_TOKENS + LLAMA_CPP_MOE_TILE_PAD_FRACTION × mmq_x` more tokens
/// than it has, tokens, where `mmq_x` is the column tile llama.cpp picks for the micro-batch's
/// token count (`speed::moe_gemm::MmqTiles::mmq_x`: `mul_mat_q_case` in ggml-org/llama.cpp
/// `ggml/src/ggml-cuda/mmq.cuh` at 00cd208554e3, fed `ncols_max = ne12`, the micro-batch's
/// tokens, by `ggml_cuda_mul_mat_q`'s `MUL_MAT_ID` path in `mmq.cu` at 027ef8769913). The
/// expert matmuls run one tile grid per expert over its expert-sorted tokens; a tile costs a
/// part that does not depend on its width (loading and unpacking the expert's weight tile:
/// this constant) and a part that grows with its width (the padded columns: the fraction,
/// [`LLAMA_CPP_MOE_TILE_PAD_FRACTION`]). Their cost per token is
/// `1 + (this + fraction × mmq_x) × touched / (tokens per expert)` times the dense GEMM's at
/// [`LLAMA_CPP_PREFILL_EFFICIENCY`] (`touched`: the fraction of experts that get a token).
///
/// Fitted with the fraction by least squares on the relative error of six rows of one
/// published micro-batch sweep that is not a held row (ggml-org/llama.cpp PR 20586, "CUDA:
/// limit number of FA stream-k CUDA blocks", https://github.com/ggml-org/llama.cpp/pull/20586,
/// 2026-03, JohannesGaessler's llama-bench table, master column: RTX 3090 (Ampere: tiles up to
/// 128), gpt-oss 20B MXFP4 MoE, pp512 at `-ub` 16, 32, 64, 128, 256, 512 → 808.75, 1228.01,
/// 1671.74, 2036.35, 3086.19, 4739.20 tok/s; 32 experts, top 4; tiles 16, 32, 64, 128, 128,
/// 128): 18.7 and 0.34, residuals −4.2 % (`-ub` 32) to +6.2 % (`-ub` 256). Row by row the
/// sweep asks for 25, 28, 39, 60, 68 and 65 tokens of padding per expert at those tiles, so
/// the padding follows the tile: 18.7 + 0.34 × mmq_x. It replaces the single
/// `LLAMA_CPP_MOE_GEMM_PAD_TOKENS = 63.75` fitted on `-ub` 128-512 alone (the 128-wide tile
/// here: 18.7 + 0.34 × 128 = 62.2), which put `-ub` 64 at 0.65x. The same sweep's `-ub` 1 to
/// 8 rows run the vector kernel (see `speed::routed_expert_gemm`) and are not fitted.
pub const LLAMA_CPP_MOE_TILE_FIXED_TOKENS: f64 = 18.7;

/// llama.cpp family, MoE prefill in MMQ: the fraction of the column tile's width `mmq_x` each
/// routed expert with tokens pays on top of its tokens, dimensionless. Fitted with
/// [`LLAMA_CPP_MOE_TILE_FIXED_TOKENS`] (see there, same rows of PR 20586): 0.34.
pub const LLAMA_CPP_MOE_TILE_PAD_FRACTION: f64 = 0.34;

/// llama.cpp KV-cache padding with FlashAttention, cells: the cache size and the cells a
/// micro-batch attends to (`n_kv`) are rounded up to this. `llama_kv_cache::get_padding` in
/// ggml-org/llama.cpp `src/llama-kv-cache.cpp` (2025 builds): `cparams.flash_attn ? 256u : 32u`
/// ("the FA kernels require padding to avoid extra runtime boundary checks"). A count, not a fit.
pub const LLAMA_CPP_FA_KV_PAD_CELLS: f64 = 256.0;

/// llama.cpp KV-cache padding without FlashAttention, cells (same source as
/// [`LLAMA_CPP_FA_KV_PAD_CELLS`]: 32).
pub const LLAMA_CPP_KV_PAD_CELLS: f64 = 32.0;

/// llama.cpp prefill without FlashAttention: bytes each attention score element (one query
/// token × one KV cell × one query head) moves through memory, counted from the ggml graph of
/// `build_attn_mha` (ggml-org/llama.cpp `src/llama-graph.cpp`, 2025 builds) and the CUDA ops it
/// runs, F32 scores: `kq = mul_mat(k, q)` with `GGML_PREC_F32` writes the scores (4 B);
/// `soft_max_ext` (scale, mask, attention sinks) reads them and writes the probabilities (4 + 4
/// B); `kqv = mul_mat(v, kq)` on cuBLAS (`ggml_cuda_mul_mat_batched_cublas`, F16 V) first
/// converts the F32 probabilities to F16 (read 4 B, write 2 B) and the GEMM reads them (2 B):
/// 20 B. The KQ mask (F32 without FlashAttention, one per token × KV cell, shared by the heads)
/// adds [`LLAMA_CPP_KQ_MASK_BYTES`] per token × cell. A count, not a fit. Checked, not fitted,
/// on the non-FlashAttention depth sweep of llama.cpp PR 15631 (held rows PF-06..PF-09).
pub const LLAMA_CPP_SCORE_BYTES_PER_HEAD: f64 = 20.0;

/// llama.cpp prefill without FlashAttention: bytes of the F32 KQ mask read per query token ×
/// KV cell (once: the heads share it). See [`LLAMA_CPP_SCORE_BYTES_PER_HEAD`].
pub const LLAMA_CPP_KQ_MASK_BYTES: f64 = 4.0;

/// `ExLlamaV2` prefill efficiency (fraction of the FP16 peak, FP16 accumulate on GeForce:
/// `ExLlamaV2` reconstructs FP16 weights and calls `cublasHgemm`). Fitted on exllamav2 issue
/// 734: 2x RTX 3090, Llama-3.3-70B 4.5 bpw, 16K prompt in 2048-token chunks, 1046 tok/s
/// without tensor parallel (the two GPUs pipeline successive chunks).
pub(crate) const EXLLAMA_PREFILL_EFFICIENCY: f64 = 0.60;

/// vLLM prefill efficiency (fraction of the dense BF16/FP16 FP32-accumulate peak). Not
/// calibrated here: the middle of the 0.5-0.7 range of compute-bound prefill (judgement).
pub(crate) const VLLM_PREFILL_EFFICIENCY: f64 = 0.60;

/// Fraction of the prefill efficiency that multiplies at the FP8 tensor rate reach (FP8 GEMMs
/// with per-tensor or block scales, and the BF16 attention and norms around them, fall further
/// short of the FP8 peak than BF16 work of the BF16 peak). Fitted on the compute-bound rows of
/// TensorRT-LLM's performance overview (`docs/source/performance/perf-overview.md` at
/// 00f37686): Llama 3.1 8B FP8 on one H100 SXM, 128/128 tokens, 28,312 output tok/s is about
/// 45 % of the FP8 peak over prompt and output tokens; 0.75 × 0.60 = 0.45.
pub(crate) const FP8_TENSOR_EFFICIENCY: f64 = 0.75;

/// Prompt chunk of llama.cpp (`n_ubatch` default 512), tokens.
pub(crate) const LLAMA_CPP_CHUNK_TOKENS: u32 = 512;
/// Prompt chunk of `ExLlamaV2` (`chunk_size` default 2048, tabbyAPI config), tokens.
pub(crate) const EXLLAMA_CHUNK_TOKENS: u32 = 2048;
/// Prompt chunk of SGLang (`chunked_prefill_size`, 8192 on GPUs of 35-160 GB: sgl-project/sglang
/// `python/sglang/srt/server_args.py`, `_handle_chunked_prefill_size`), tokens.
pub(crate) const SGLANG_CHUNK_TOKENS: u32 = 8192;
/// Prompt chunk of TensorRT-LLM (`max_num_tokens` default 8192, `tensorrt_llm/llmapi/llm_args.py`),
/// tokens.
pub(crate) const TRTLLM_CHUNK_TOKENS: u32 = 8192;
/// Prompt chunk of vLLM chunked prefill (`max_num_batched_tokens`, 2048 in the V0 scheduler
/// defaults), tokens.
pub(crate) const VLLM_CHUNK_TOKENS: u32 = 2048;

/// Achievable fraction of a link's per-direction bandwidth for collective traffic (NCCL bus
/// bandwidth on PCIe Gen4 x16 is typically 20-25 GB/s of 31.5; judgement 0.8).
pub(crate) const LINK_EFFICIENCY: f64 = 0.8;

/// Latency of one small all-reduce over NVLink, s (vLLM custom all-reduce / NCCL LL protocol,
/// 2 GPUs: ~5 µs; judgement). With [`PCIE_HOST_ALL_REDUCE_LATENCY_S`] it reproduces club-3090
/// issue 698: NVLink adds 2-4 % to TP=2 decode on 2x RTX 3090.
pub(crate) const NVLINK_ALL_REDUCE_LATENCY_S: f64 = 5e-6;
/// Latency of one small all-reduce over PCIe with peer-to-peer, s (NCCL P2P transport,
/// judgement 8 µs).
pub(crate) const PCIE_P2P_ALL_REDUCE_LATENCY_S: f64 = 8e-6;
/// Latency of one small all-reduce over PCIe staged through host memory, s (GeForce cards have
/// no PCIe P2P on stock drivers; NCCL falls back to its shared-memory transport; judgement
/// 10 µs, see [`NVLINK_ALL_REDUCE_LATENCY_S`]).
pub const PCIE_HOST_ALL_REDUCE_LATENCY_S: f64 = 10e-6;

/// CUDA context per GPU, GiB: the lower end of the 0.5-2.5 GB that llama.cpp and vLLM start-up logs show for context plus runtime
/// buffers (CUDA 12 context with cuBLAS workspace, 300-600 MiB).
pub(crate) const CUDA_CONTEXT_GIB: f64 = 0.5;
/// llama.cpp / ollama runtime buffers beyond the activation working set, GiB (judgement;
/// an ollama load log shows a compute buffer of ~2.4 GB in total at long contexts, which the
/// activation line and the CUDA context make up here).
pub(crate) const LLAMA_CPP_BUFFERS_GIB: f64 = 0.5;
/// `ExLlamaV2` runtime buffers, GiB (judgement, as llama.cpp).
pub(crate) const EXLLAMA_BUFFERS_GIB: f64 = 0.5;
/// vLLM CUDA graphs, GiB (vLLM start-up log, "Graph capturing finished ... took 1.3 GiB" for an 8B model; judgement for others).
pub(crate) const VLLM_CUDA_GRAPHS_GIB: f64 = 1.3;
/// Training framework buffers (NCCL, cuBLAS workspaces, allocator), GiB (judgement).
pub(crate) const TRAINING_BUFFERS_GIB: f64 = 0.5;

/// Headroom kept free under llama.cpp and `ExLlamaV2`, fraction of the GPU's memory (allocator
/// slack, a desktop on the card; judgement).
pub(crate) const HEADROOM_FRACTION: f64 = 0.05;
/// Memory vLLM leaves untouched: 1 - `gpu_memory_utilization` (default 0.9, vLLM engine arguments, docs.vllm.ai).
pub(crate) const VLLM_RESERVED_FRACTION: f64 = 0.10;
/// Headroom for training, fraction of the GPU's memory (`PyTorch` caching-allocator
/// fragmentation; judgement).
pub(crate) const TRAINING_HEADROOM_FRACTION: f64 = 0.10;

/// Bits per weight of AWQ/GPTQ 4-bit weights: 4 bits plus an FP16 scale and a 4-bit zero point
/// per group of 128 (the default group size) = 4 + 20/128.
pub(crate) const INT4_BITS: f64 = 4.156;
/// Bits per weight of QLoRA's NF4 base weights with double quantization (Dettmers et al. 2023,
/// "QLoRA", section 3: 4 bits + 0.127 bits of constants).
pub(crate) const NF4_BITS: f64 = 4.127;

/// Default model FLOPs utilisation for fine-tune time. Meta, "The Llama 3 Herd of Models"
/// (2024), Table 4: 38-43 % BF16 MFU; 0.40 is used.
pub(crate) const DEFAULT_MFU: f64 = 0.40;

/// Bytes per element of activations (16-bit).
pub(super) const ACT_BYTES: f64 = 2.0;

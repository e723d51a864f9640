//! llama.cpp's Vulkan back end by GPU family: the fits of
//! [`LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR`] (Arc A-series decode),
//! [`LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR`] (Arc B-series decode) and
//! [`LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR`] (RDNA 3/4 prefill), re-run on the published rows
//! they rest on. None of these rows is a row of the held table (`moe_2026.rs`).
//!
//! Each factor multiplies one CUDA-fitted efficiency (the decode bandwidth efficiency, or the
//! prefill efficiency), so a row's step time is `t = S / f + F`: `S` the part the factor
//! divides (weight and KV streaming, or the prompt's GEMMs), `F` the rest (fixed per-layer
//! cost, layer-split hops). The test reads `S` and `F` off two estimates of the same row (with
//! the factor, on the Vulkan back end, and without it, on a back end whose factor is 1) and
//! fits `x = 1 / f` by least squares on the relative error of the step time,
//! `Σ (m·(S·x + F) − 1)²` over the rows (`m` the measured tokens/s), as the 2025-26 decode fit
//! does (`decode_2025.rs`). The fit must give the constant the code uses (within 0.005).
//! Part of the `llm_fit` test target (helpers from its root).

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::*;
use kraftwerk::estimate::llm::{
    LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR, LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR,
    LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR, LlamaCppBackend,
};

/// What a row times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
    /// llama-bench `tg128` at depth 0 (mean position 64).
    Decode,
    /// llama-bench `pp512` (default micro-batch 512).
    Prefill,
}

/// One published llama-bench row on the Vulkan back end.
struct VkRow {
    label: &'static str,
    /// Catalog GPU id and how many (more than one: llama.cpp's default layer split).
    gpu: &'static str,
    n: usize,
    /// Catalog model id and weight format.
    model: &'static str,
    precision: Precision,
    metric: Metric,
    /// Published tokens/s.
    measured: f64,
    /// Whether the row is in the fit (`false`: printed beside it, with the reason in `source`).
    in_fit: bool,
    /// URL, date, build, OS and driver, hardware, command.
    source: &'static str,
}

const PR_14001: &str = "https://github.com/ggml-org/llama.cpp/pull/14001 (rillomas, 2025-06-04, 'vulkan: Enable VK_KHR_cooperative_matrix extension for Intel Xe2 GPUs'), llama-bench defaults (pp512 / tg128), gemma-2-2b-it Q4_K_M, Windows 11 24H2, Intel graphics driver 32.0.101.6795; columns b5589 (the PR) and b5583 (master)";
const PR_14001_LINUX: &str = "https://github.com/ggml-org/llama.cpp/pull/14001 (2025-06-04): the same table's Ubuntu 24.04.2 (Mesa 24.2.8) rows; not in the fit: the same cards and build decode 2.5x (A770) and 3.0x (B580) slower under that Mesa than under the Windows driver, a driver gap the back end's factor cannot type";
const ISSUE_17628: &str = "https://github.com/ggml-org/llama.cpp/issues/17628 (savvadesogle, 2025-11-30): llama-bench -ngl 100 -fa 0,1, Arc A770, Windows, driver 8250, 2x Xeon E5-2699 v3, Meta-Llama-3.1-8B-Instruct Q4_K_M (lmstudio-community): '53 -> 42 t/s' token generation between b7189 and b7209 (the regression the issue reports); the b7189 figure";
const ISSUE_20893: &str = "https://github.com/ggml-org/llama.cpp/issues/20893 (savvadesogle, 2026-03-23): llama-bench -ngl 100, 2x Arc A770 16 GB, Windows 11, driver 8626, Qwen3-30B-A3B-Instruct-2507 Q4_K_M (unsloth): b7548 (7ac890213) pp512 297.53, tg128 65.40; b7549 tg128 65.63";
const PR_25051: &str = "https://github.com/ggml-org/llama.cpp/pull/25051 (comment by maxious, 2026-06-27): llama-bench -fa 1 -ngl -1 -p 512 -n 128 -r 3, 2x Arc Pro B60 (BMG G21), Linux, Mesa 26.1.3 (ANV, KHR_coopmat), PR head a448deb85, split mode layer: llama 1B Q8_0 tg128 187.42";
const VULKANFORGE: &str = "https://github.com/maeddesg/vulkanforge/wiki/Benchmarks (page edited 2026-06-10): RX 9070 XT (gfx1201), Linux, RADV Mesa 26.1.2, llama.cpp b9174 (0253fb21f) Vulkan build (KHR_coopmat, not HIP), -fa 1 -ngl 99, ctx 4096, warm, median of 3-5 runs: 'llama p≈512' column (exact 512 for the dense models)";

fn rows() -> Vec<VkRow> {
    use Metric::{Decode, Prefill};
    let r = |label, gpu, n, model, precision, metric, measured, in_fit, source| VkRow {
        label,
        gpu,
        n,
        model,
        precision,
        metric,
        measured,
        in_fit,
        source,
    };
    vec![
        // Arc A-series (Xe-HPG): LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR.
        r(
            "A770 gemma-2-2b b5589 (Windows)",
            "intel-arc-a770-16gb",
            1,
            "gemma-2-2b",
            Precision::Q4_K_M,
            Decode,
            96.83,
            true,
            PR_14001,
        ),
        r(
            "A770 Llama-3.1-8B b7189 (Windows)",
            "intel-arc-a770-16gb",
            1,
            "llama-3.1-8b",
            Precision::Q4_K_M,
            Decode,
            53.0,
            true,
            ISSUE_17628,
        ),
        r(
            "2x A770 Qwen3-30B-A3B b7548 (Windows)",
            "intel-arc-a770-16gb",
            2,
            "qwen3-30b-a3b-instruct-2507",
            Precision::Q4_K_M,
            Decode,
            65.40,
            true,
            ISSUE_20893,
        ),
        r(
            "A770 gemma-2-2b b5589 (Linux, Mesa 24.2.8)",
            "intel-arc-a770-16gb",
            1,
            "gemma-2-2b",
            Precision::Q4_K_M,
            Decode,
            39.00,
            false,
            PR_14001_LINUX,
        ),
        // Arc B-series (Xe2-HPG): LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR.
        r(
            "B580 gemma-2-2b b5589 (Windows)",
            "intel-arc-b580",
            1,
            "gemma-2-2b",
            Precision::Q4_K_M,
            Decode,
            126.69,
            true,
            PR_14001,
        ),
        r(
            "B580 gemma-2-2b b5583 (Windows)",
            "intel-arc-b580",
            1,
            "gemma-2-2b",
            Precision::Q4_K_M,
            Decode,
            129.95,
            true,
            PR_14001,
        ),
        r(
            "2x Pro B60 Llama-3.2-1B Q8_0 (Linux, Mesa 26.1.3)",
            "intel-arc-pro-b60",
            2,
            "llama-3.2-1b",
            Precision::Q8_0,
            Decode,
            187.42,
            true,
            PR_25051,
        ),
        r(
            "B580 gemma-2-2b b5589 (Linux, Mesa 24.2.8)",
            "intel-arc-b580",
            1,
            "gemma-2-2b",
            Precision::Q4_K_M,
            Decode,
            41.80,
            false,
            PR_14001_LINUX,
        ),
        // RDNA 4 prefill: LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR.
        r(
            "RX 9070 XT Qwen3-8B pp512",
            "amd-radeon-rx-9070-xt",
            1,
            "qwen3-8b",
            Precision::Q4_K_M,
            Prefill,
            4472.0,
            true,
            VULKANFORGE,
        ),
        r(
            "RX 9070 XT Llama-3.1-8B pp512",
            "amd-radeon-rx-9070-xt",
            1,
            "llama-3.1-8b",
            Precision::Q4_K_M,
            Prefill,
            4802.0,
            true,
            VULKANFORGE,
        ),
        r(
            "RX 9070 XT Mistral-7B-v0.3 pp512",
            "amd-radeon-rx-9070-xt",
            1,
            "mistral-7b-v0.3",
            Precision::Q4_K_M,
            Prefill,
            4826.0,
            true,
            VULKANFORGE,
        ),
    ]
}

/// The row's estimate, tokens/s, on back end `backend`.
fn estimate(r: &VkRow, backend: LlamaCppBackend, cat: &catalog::Catalog) -> f64 {
    let model = cat.model(r.model).unwrap_or_else(|| panic!("{} in the catalog", r.model)).clone();
    let card = cat.gpu(r.gpu).unwrap_or_else(|| panic!("{} in the catalog", r.gpu)).clone();
    let ctx = match r.metric {
        Metric::Decode => 64,
        Metric::Prefill => 512,
    };
    let mut i = infer(model, r.precision, ctx, Runtime::LlamaCpp);
    i.llama_cpp_backend = Some(backend);
    if r.n > 1 {
        i.parallelism = Parallelism::LayerSplit(r.n as u32);
    }
    let speed = llm::estimate(&i, &slots(&card, r.n)).expect("estimate").speed.expect("speed");
    match r.metric {
        Metric::Decode => speed.decode_batch1_tokens_per_s,
        Metric::Prefill => speed.prefill_tokens_per_s.expect("prefill estimate"),
    }
}

/// The split `(S, F)` of a row's step time `S / f + F`, s, from its estimate at factor `f`
/// (Vulkan) and at 1 (`neutral`, a back end without a factor on that card).
fn split(r: &VkRow, f: f64, neutral: LlamaCppBackend, cat: &catalog::Catalog) -> (f64, f64) {
    let t_f = 1.0 / estimate(r, LlamaCppBackend::Vulkan, cat);
    let t_1 = 1.0 / estimate(r, neutral, cat);
    let s = (t_f - t_1) / (1.0 / f - 1.0);
    (s, t_1 - s)
}

/// Fits the factor of the rows whose label starts with one of `prefixes` (and `in_fit`),
/// printing every matching row; returns the fitted factor.
fn fit(name: &str, prefixes: &[&str], f: f64, neutral: LlamaCppBackend, cat: &catalog::Catalog) -> f64 {
    let all = rows();
    let mine: Vec<&VkRow> = all.iter().filter(|r| prefixes.iter().any(|p| r.label.starts_with(p))).collect();
    let (mut num, mut den) = (0.0, 0.0);
    for r in mine.iter().filter(|r| r.in_fit) {
        let (s, fixed) = split(r, f, neutral, cat);
        let m = r.measured;
        num += s * m * (1.0 - fixed * m);
        den += (s * m) * (s * m);
    }
    let fitted = den / num;
    println!("\n{name}: fitted {fitted:.4} (code {f}) on {} rows", mine.iter().filter(|r| r.in_fit).count());
    println!("| row | in fit | at 1 | at the factor | measured | own factor | residual | source |");
    for r in &mine {
        let (s, fixed) = split(r, f, neutral, cat);
        let own = s / (1.0 / r.measured - fixed);
        let at = 1.0 / (s / f + fixed);
        println!(
            "| {} | {} | {:.1} | {at:.1} | {} | {own:.3} | {:+.1} % | {} |",
            r.label,
            if r.in_fit { "yes" } else { "no" },
            1.0 / (s + fixed),
            r.measured,
            (at / r.measured - 1.0) * 100.0,
            r.source
        );
    }
    fitted
}

/// The three Vulkan factors are the least-squares fits of their published rows (within 0.005).
#[test]
fn vulkan_factors_are_the_fits_of_their_published_rows() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let xe_hpg = fit(
        "LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR",
        &["A770", "2x A770"],
        LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR,
        LlamaCppBackend::Sycl,
        &cat,
    );
    let xe2 = fit(
        "LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR",
        &["B580", "2x Pro B60"],
        LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR,
        LlamaCppBackend::Sycl,
        &cat,
    );
    let rdna = fit(
        "LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR",
        &["RX 9070 XT"],
        LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR,
        LlamaCppBackend::Cuda,
        &cat,
    );
    for (name, fitted, code) in [
        ("XE_HPG", xe_hpg, LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR),
        ("XE2", xe2, LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR),
        ("RDNA prefill", rdna, LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR),
    ] {
        assert!((fitted - code).abs() <= 0.005, "{name}: fit {fitted:.4} vs code {code}");
    }
}

/// The factors are typed by back end and GPU family: Vulkan on an Arc A770 decodes at its
/// factor of the SYCL estimate's streaming time (SYCL, the Intel default, carries none), the
/// B580 at the B-series factor; NVIDIA and RDNA 3 under Vulkan are unchanged (decode and
/// prefill), and the RDNA 4 prefill factor touches prefill only (RX 9070 XT decode under
/// Vulkan equals CUDA's).
#[test]
fn vulkan_factors_are_typed_by_gpu_family() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let row = |gpu, metric| VkRow {
        label: "typing",
        gpu,
        n: 1,
        model: "llama-3.1-8b",
        precision: Precision::Q4_K_M,
        metric,
        measured: 1.0,
        in_fit: false,
        source: "",
    };
    for (gpu, f) in [
        ("intel-arc-a770-16gb", LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR),
        ("intel-arc-b580", LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR),
    ] {
        let r = row(gpu, Metric::Decode);
        let (s, fixed) = split(&r, f, LlamaCppBackend::Sycl, &cat);
        assert!(s > 0.0 && fixed > 0.0, "{gpu}: streaming {s} s, fixed {fixed} s");
        let vulkan = estimate(&r, LlamaCppBackend::Vulkan, &cat);
        let sycl = estimate(&r, LlamaCppBackend::Sycl, &cat);
        assert!(vulkan < sycl, "{gpu}: Vulkan {vulkan:.1} below SYCL {sycl:.1}");
    }
    for (gpu, metric) in [
        ("nvidia-geforce-rtx-3090", Metric::Decode),
        ("nvidia-geforce-rtx-3090", Metric::Prefill),
        ("amd-radeon-rx-7900-xtx", Metric::Decode),
        ("amd-radeon-rx-7900-xtx", Metric::Prefill),
        ("amd-radeon-rx-9070-xt", Metric::Decode),
    ] {
        let r = row(gpu, metric);
        let (vulkan, cuda) = (estimate(&r, LlamaCppBackend::Vulkan, &cat), estimate(&r, LlamaCppBackend::Cuda, &cat));
        assert!((vulkan / cuda - 1.0).abs() < 1e-12, "{gpu} {metric:?}: Vulkan {vulkan} vs CUDA {cuda}");
    }
    let r = row("amd-radeon-rx-9070-xt", Metric::Prefill);
    let (vulkan, cuda) = (estimate(&r, LlamaCppBackend::Vulkan, &cat), estimate(&r, LlamaCppBackend::Cuda, &cat));
    assert!(vulkan > cuda, "RX 9070 XT prefill: Vulkan {vulkan:.0} above CUDA-typed {cuda:.0} (factor 1.032)");
}

//! Batch-1 decode held to 2025-26 llama.cpp publications (issue 28, item 3): llama-bench rows
//! posted with the build they ran, on GPUs and models of the catalog. Each row is one
//! published figure; the estimate is the llama.cpp decode at batch 1 over the context the test
//! averages (`tg128` at depth `d` decodes at `d + 64` on average; a `pp512` run with
//! micro-batch 1, as the llama.cpp CUDA pull requests print it, is 512 single-token steps, so
//! it averages `d + 256`).
//! Part of the `llm_fit` test target (helpers from its root).

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::*;

/// One published decode row.
pub struct DecodeRow {
    /// Label as the table prints it.
    pub label: &'static str,
    /// Where the figure is printed (public URL) and its date.
    pub source: &'static str,
    /// Runtime and version (llama.cpp build number / commit as printed).
    pub runtime: &'static str,
    /// Catalog GPU id.
    pub gpu: &'static str,
    /// Catalog model id.
    pub model: &'static str,
    /// Weight format.
    pub precision: Precision,
    /// Average context over the measured tokens, tokens.
    pub context_tokens: u32,
    /// Published decode, tokens/s (per sequence).
    pub published_tok_s: f64,
    /// Runtime of the estimate.
    pub engine: Runtime,
    /// Sequences decoded together.
    pub batch: u32,
}

/// InferenceBench's concurrency-sweep recipe (yobitelcomm.github.io/bench, run 2026-05-16):
/// one H100-80GB-HBM3 (the SXM part), vLLM 0.21.0, Llama-3.1-8B-Instruct in FP16, workload
/// `llm.inference.chatbot-short`; `tpot_p50_ms` at concurrency 1, 4, 16 and 64 is
/// 6.48, 6.59, 10.94 and 46.91 ms, held here as per-sequence decode (1000 / TPOT). The
/// workload's prompt and output lengths are not printed on the page: 1024 tokens of context
/// are used; the weights (16 GB a step) dominate so far that the c1 and c4 estimates move by
/// under 2 % between 256 and 2048 tokens.
pub const INFERENCEBENCH: &str = "https://yobitelcomm.github.io/bench/recipes/concurrency-sweep/ (2026-05-16)";

/// The rows (every one from a 2025-26 runtime build).
pub fn decode_rows() -> Vec<DecodeRow> {
    vec![
        DecodeRow {
            label: "RTX 4090 Llama-3 8B BF16 ubatch 1 pp512",
            source: "https://github.com/ggml-org/llama.cpp/pull/15131 (2025-08, table 'master' column)",
            runtime: "llama.cpp master of 2025-08 (CUDA)",
            gpu: "nvidia-geforce-rtx-4090",
            model: "llama-3.1-8b",
            precision: Precision::Bf16,
            context_tokens: 256,
            published_tok_s: 65.21,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "RTX 3090 Llama-3 8B Q4_0 ubatch 1 pp512",
            source: "https://github.com/ggml-org/llama.cpp/pull/15802 (2025-09, 'master' column)",
            runtime: "llama.cpp master of 2025-09 (CUDA)",
            gpu: "nvidia-geforce-rtx-3090",
            model: "llama-3.1-8b",
            precision: Precision::Q4_0,
            context_tokens: 256,
            published_tok_s: 155.02,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "RTX 4090 Llama-3 8B Q4_0 ubatch 1 pp512@d32768",
            source: "https://github.com/ggml-org/llama.cpp/pull/17505 (2025-11, 'master' column)",
            runtime: "llama.cpp master of 2025-11 (CUDA, FlashAttention)",
            gpu: "nvidia-geforce-rtx-4090",
            model: "llama-3.1-8b",
            precision: Precision::Q4_0,
            context_tokens: 32_768 + 256,
            published_tok_s: 98.14,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "RTX 5090 Llama-3 8B Q4_0 ubatch 1 pp512@d32768",
            source: "https://github.com/ggml-org/llama.cpp/pull/17891 (2025-12, 'master' column)",
            runtime: "llama.cpp master of 2025-12 (CUDA, FlashAttention)",
            gpu: "nvidia-geforce-rtx-5090",
            model: "llama-3.1-8b",
            precision: Precision::Q4_0,
            context_tokens: 32_768 + 256,
            published_tok_s: 165.94,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "RTX 5090 Llama-3.2 1B BF16 ubatch 1 pp512",
            source: "https://github.com/ggml-org/llama.cpp/pull/24216 (2026, 'master' column)",
            runtime: "llama.cpp master of 2026 (CUDA)",
            gpu: "nvidia-geforce-rtx-5090",
            model: "llama-3.2-1b",
            precision: Precision::Bf16,
            context_tokens: 256,
            published_tok_s: 652.28,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "RTX 4090 TinyLlama 1.1B Q4_K_M tg128 (Vulkan)",
            source: "https://github.com/geerlingguy/ai-benchmarks/issues/43 (2025-12-09)",
            runtime: "llama.cpp b7340 (086a63e3a), Vulkan backend",
            gpu: "nvidia-geforce-rtx-4090",
            model: "tinyllama-1.1b",
            precision: Precision::Q4_K_M,
            context_tokens: 64,
            published_tok_s: 762.37,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "RTX 5090 Qwen3-8B Q4_K_M generation",
            source: "https://github.com/CambrianTech/continuum/pull/1627 (2026-06-15)",
            runtime: "llama.cpp (Docker Model Runner llama.cpp-cuda; build not printed)",
            gpu: "nvidia-geforce-rtx-5090",
            model: "qwen3-8b",
            precision: Precision::Q4_K_M,
            context_tokens: 512,
            published_tok_s: 221.7,
            engine: Runtime::LlamaCpp,
            batch: 1,
        },
        DecodeRow {
            label: "vLLM H100 Llama-3.1-8B FP16 c1 TPOT",
            source: INFERENCEBENCH,
            runtime: "vLLM 0.21.0",
            gpu: "nvidia-h100-sxm5-80gb",
            model: "llama-3.1-8b",
            precision: Precision::Fp16,
            context_tokens: 1024,
            published_tok_s: 1000.0 / 6.48,
            engine: Runtime::Vllm,
            batch: 1,
        },
        DecodeRow {
            label: "vLLM H100 Llama-3.1-8B FP16 c4 TPOT",
            source: INFERENCEBENCH,
            runtime: "vLLM 0.21.0",
            gpu: "nvidia-h100-sxm5-80gb",
            model: "llama-3.1-8b",
            precision: Precision::Fp16,
            context_tokens: 1024,
            published_tok_s: 1000.0 / 6.59,
            engine: Runtime::Vllm,
            batch: 4,
        },
        DecodeRow {
            label: "vLLM H100 Llama-3.1-8B FP16 c16 TPOT",
            source: INFERENCEBENCH,
            runtime: "vLLM 0.21.0",
            gpu: "nvidia-h100-sxm5-80gb",
            model: "llama-3.1-8b",
            precision: Precision::Fp16,
            context_tokens: 1024,
            published_tok_s: 1000.0 / 10.94,
            engine: Runtime::Vllm,
            batch: 16,
        },
        DecodeRow {
            label: "vLLM H100 Llama-3.1-8B FP16 c64 TPOT",
            source: INFERENCEBENCH,
            runtime: "vLLM 0.21.0",
            gpu: "nvidia-h100-sxm5-80gb",
            model: "llama-3.1-8b",
            precision: Precision::Fp16,
            context_tokens: 1024,
            published_tok_s: 1000.0 / 46.91,
            engine: Runtime::Vllm,
            batch: 64,
        },
    ]
}

/// Rows listed, not held: the estimate falls outside the llama.cpp band (±25 %) of them; the
/// test checks every one really is outside. All four are estimates BELOW the published figure
/// (ratios 0.47-0.71): the llama.cpp speed model carries the 2023 build's fixed cost of
/// 90 µs per layer and step (`LLAMA_CPP_LAYER_OVERHEAD_S`, fitted on PR 4766) and a decode
/// bandwidth efficiency of 0.80, while the 2025-26 builds (CUDA graphs, fused kernels) spend
/// far less per layer and stream weights at close to the bandwidth peak (the RTX 4090 BF16 row
/// is 65.2 tok/s against about 67 at 100 % of 1008 GB/s for the 15 GB of non-embedding
/// weights). Re-calibrating the shared constants to them breaks the 2023 rows the model is
/// held to (PR 4766's Q4_0 row would come out about 50 % high at 10 µs per layer), and the
/// estimate has no runtime-version input to tell the two apart: not re-calibrated here.
/// - RTX 4090 Llama-3 8B BF16 (0.71), RTX 5090 Llama-3.2 1B BF16 (0.55): small or
///   bandwidth-heavy models where the per-layer cost weighs most.
/// - RTX 4090 TinyLlama tg128 on the Vulkan backend (0.47): 22 layers × 90 µs is 2 ms of the
///   1.3 ms per token the build measured.
/// - RTX 5090 Qwen3-8B Q4_K_M (0.69): through Docker Model Runner, build not printed.
/// - RTX 5090 Llama-3 8B Q4_0 at 32K (0.68): the same shortfall; the RTX 3090 and 4090 rows
///   of the same kind sit just inside the band (0.75, 0.76).
///
/// And two vLLM rows, estimates ABOVE the published figure: InferenceBench's TPOT at
/// concurrency 16 (1.49) and 64 (4.82). Under continuous batching a sequence's time per
/// output token includes the prefill chunks of the requests that join the running batch (and
/// at 64 in flight, the TTFT p99 of 465 ms shows the queue); the estimate is the pure decode
/// step at that batch. Concurrency 1 and 4 are held (0.98 both).
pub const DECODE_NOT_HELD: [&str; 7] = [
    "RTX 5090 Llama-3 8B Q4_0 ubatch 1 pp512@d32768",
    "vLLM H100 Llama-3.1-8B FP16 c16 TPOT",
    "vLLM H100 Llama-3.1-8B FP16 c64 TPOT",
    "RTX 4090 Llama-3 8B BF16 ubatch 1 pp512",
    "RTX 5090 Llama-3.2 1B BF16 ubatch 1 pp512",
    "RTX 4090 TinyLlama 1.1B Q4_K_M tg128 (Vulkan)",
    "RTX 5090 Qwen3-8B Q4_K_M generation",
];

/// The decode estimate of one row (one GPU, the row's runtime, batch and context), per
/// sequence.
pub fn decode_estimate(row: &DecodeRow) -> f64 {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let gpu = cat.gpus.iter().find(|g| g.id == row.gpu).unwrap_or_else(|| panic!("GPU {}", row.gpu)).clone();
    let model = cat.model(row.model).unwrap_or_else(|| panic!("model {}", row.model)).clone();
    let mut i = infer(model, row.precision, row.context_tokens, row.engine);
    if row.batch == 1 {
        return decode1(&i, &slots(&gpu, 1));
    }
    i.batch = row.batch;
    let r = llm::estimate(&i, &slots(&gpu, 1)).expect("estimate");
    r.speed.expect("inference has speed").decode_batch_tokens_per_s / f64::from(row.batch)
}

/// Every row not in [`DECODE_NOT_HELD`] within ±25 % (the band `basis.rs` states for
/// llama.cpp and vLLM); every listed row really outside.
#[test]
fn calibration_llamacpp_decode_2025() {
    let mut outside = Vec::new();
    let mut listed_but_inside = Vec::new();
    let mut held = 0;
    println!(
        "| row | runtime | estimate tok/s | published tok/s | ratio | held | source |\n|---|---|---|---|---|---|---|"
    );
    for row in decode_rows() {
        let est = decode_estimate(&row);
        let ratio = est / row.published_tok_s;
        let listed = DECODE_NOT_HELD.contains(&row.label);
        println!(
            "| {} | {} | {est:.1} | {:.1} | {ratio:.2} | {} | {} |",
            row.label,
            row.runtime,
            row.published_tok_s,
            if listed { "no" } else { "yes" },
            row.source
        );
        match (listed, (ratio - 1.0).abs() <= 0.25) {
            (false, true) => held += 1,
            (false, false) => {
                outside.push(format!("{}: {est:.1} vs {:.1} ({ratio:.2})", row.label, row.published_tok_s));
            }
            (true, true) => listed_but_inside.push(row.label),
            (true, false) => {}
        }
    }
    assert!(outside.is_empty(), "held rows outside ±25 %: {outside:#?}");
    assert!(listed_but_inside.is_empty(), "rows listed as not held that the estimate holds: {listed_but_inside:#?}");
    assert_eq!(held, 4, "{held} rows held");
}

/// One published serving row: a wave of `concurrency` requests served together.
pub struct ServingRow {
    /// Label as the table prints it.
    pub label: &'static str,
    /// Where the figure is printed (public URL) and its date.
    pub source: &'static str,
    /// Runtime of the estimate.
    pub runtime: Runtime,
    /// Runtime and version as published.
    pub version: &'static str,
    /// Catalog GPU id.
    pub gpu: &'static str,
    /// Catalog model id.
    pub model: &'static str,
    /// Weight format.
    pub precision: Precision,
    /// Requests in flight.
    pub concurrency: u32,
    /// Prompt tokens per request (the mean where the source gives a range).
    pub input_tokens: u32,
    /// Generated tokens per request.
    pub output_tokens: u32,
    /// Published output tokens/s of the whole wave.
    pub published_tok_s: f64,
}

/// Tim Wang, "LLM Inference Engines Performance Comparison: vLLM vs sglang" (2025):
/// `evalscope perf` with `--parallel N --number N` (one wave of N requests at a time),
/// Llama-3.1-8B-Instruct BF16 on one "H100 80GB" (the form factor is not printed: SXM is
/// assumed, the one the catalog pairs with "80GB" in serving tables), prompts of 5000-10000
/// tokens (the mean, 7500, is used), exactly 2000 output tokens; "Gen. toks/s" per level.
pub const TIM_WANG: &str =
    "https://tim-wang-tecg-blog.pages.dev/llm/llm-benchmark-en (2025; vLLM v0.9.0, SGLang v0.4.9)";

/// One engine's published points: (label, runtime, version, [(concurrency, output tok/s)]).
type Sweep = (&'static str, Runtime, &'static str, [(u32, f64); 3]);

/// The serving rows (every one from a 2025-26 runtime).
pub fn serving_rows() -> Vec<ServingRow> {
    let h100 = "nvidia-h100-sxm5-80gb";
    let mut rows = Vec::new();
    // (label, runtime, version, [(concurrency, figure)]).
    let wang: [Sweep; 3] = [
        ("vLLM V0", Runtime::Vllm, "vLLM v0.9.0, V0 engine", [(5, 588.62), (50, 2742.96), (100, 2744.10)]),
        ("vLLM V1", Runtime::Vllm, "vLLM v0.9.0, V1 engine", [(5, 634.87), (50, 3141.16), (100, 3036.62)]),
        ("SGLang", Runtime::Sglang, "SGLang v0.4.9", [(5, 666.54), (50, 3077.68), (100, 3088.08)]),
    ];
    for (name, runtime, version, points) in wang {
        for (c, f) in points {
            rows.push(ServingRow {
                label: Box::leak(format!("{name} H100 Llama-3.1-8B BF16 c{c} 7500/2000").into_boxed_str()),
                source: TIM_WANG,
                runtime,
                version,
                gpu: h100,
                model: "llama-3.1-8b",
                precision: Precision::Bf16,
                concurrency: c,
                input_tokens: 7500,
                output_tokens: 2000,
                published_tok_s: f,
            });
        }
    }
    // Spheron, "vLLM vs TensorRT-LLM vs SGLang: H100 Benchmarks (2026)", 2026-03-23: one H100
    // SXM5 80GB, Llama-3.3-70B-Instruct FP8, 200 prompts of 512 input and 256 output tokens on
    // average, output tok/s at each concurrency.
    let spheron: [Sweep; 3] = [
        ("vLLM", Runtime::Vllm, "vLLM v0.18.0", [(1, 120.0), (10, 650.0), (50, 1850.0)]),
        ("TRT-LLM", Runtime::TensorRtLlm, "TensorRT-LLM v1.2.0", [(1, 130.0), (10, 710.0), (50, 2100.0)]),
        ("SGLang", Runtime::Sglang, "SGLang v0.5.9", [(1, 125.0), (10, 680.0), (50, 1920.0)]),
    ];
    for (name, runtime, version, points) in spheron {
        for (c, f) in points {
            rows.push(ServingRow {
                label: Box::leak(format!("{name} H100 Llama-3.3-70B FP8 c{c} 512/256").into_boxed_str()),
                source: SPHERON,
                runtime,
                version,
                gpu: h100,
                model: "llama-3.3-70b",
                precision: Precision::Fp8,
                concurrency: c,
                input_tokens: 512,
                output_tokens: 256,
                published_tok_s: f,
            });
        }
    }
    rows
}

/// Spheron's three-engine comparison on one H100 SXM5 (vLLM v0.18.0, TensorRT-LLM v1.2.0,
/// SGLang v0.5.9; driver 590.48.01).
pub const SPHERON: &str = "https://www.spheron.network/blog/vllm-vs-tensorrt-llm-vs-sglang-benchmarks (2026-03-23)";

/// Serving rows listed, not held; the test checks every one really is outside ±25 %. Every
/// one is an estimate below the published figure, and the inputs were checked first:
/// - Tim Wang's concurrency 50 and 100 rows (ratios 0.49-0.63, all three engines): at the
///   stated 5000-10000-token prompts, 50 sequences hold about 56 GB of BF16 KV cache (128 KiB
///   per token for Llama-3.1-8B) that every decode step reads; the published ~3,000 tok/s
///   needs a step of about 16 ms, i.e. reading it at about 4.5 TB/s, above the H100 SXM's
///   3.35 TB/s. The prompts evalscope sent were evidently shorter than the filter bounds
///   suggest (or "Gen. toks/s" sums per-request rates); the inputs are not known well enough
///   to hold them.
/// - Spheron's Llama-3.3-70B FP8 rows (ratios 0.26-0.56, all three engines): at concurrency
///   1 the 70 GB of FP8 weights streamed per token allow at most about 47 tok/s at the
///   H100's full 3.35 TB/s; the published 120-130 tok/s is 2.5× that bound, which only
///   speculative decoding (not stated) could give. The rows at 10 and 50 inherit the doubt.
pub const SERVING_NOT_HELD: [&str; 15] = [
    "vLLM V0 H100 Llama-3.1-8B BF16 c50 7500/2000",
    "vLLM V0 H100 Llama-3.1-8B BF16 c100 7500/2000",
    "vLLM V1 H100 Llama-3.1-8B BF16 c50 7500/2000",
    "vLLM V1 H100 Llama-3.1-8B BF16 c100 7500/2000",
    "SGLang H100 Llama-3.1-8B BF16 c50 7500/2000",
    "SGLang H100 Llama-3.1-8B BF16 c100 7500/2000",
    "vLLM H100 Llama-3.3-70B FP8 c1 512/256",
    "vLLM H100 Llama-3.3-70B FP8 c10 512/256",
    "vLLM H100 Llama-3.3-70B FP8 c50 512/256",
    "TRT-LLM H100 Llama-3.3-70B FP8 c1 512/256",
    "TRT-LLM H100 Llama-3.3-70B FP8 c10 512/256",
    "TRT-LLM H100 Llama-3.3-70B FP8 c50 512/256",
    "SGLang H100 Llama-3.3-70B FP8 c1 512/256",
    "SGLang H100 Llama-3.3-70B FP8 c10 512/256",
    "SGLang H100 Llama-3.3-70B FP8 c50 512/256",
];

/// Estimate of one serving row: the wave as one batch ([`llm::throughput::batch_throughput`]).
pub fn serving_estimate(row: &ServingRow) -> f64 {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let gpu = cat.gpus.iter().find(|g| g.id == row.gpu).unwrap_or_else(|| panic!("GPU {}", row.gpu)).clone();
    let model = cat.model(row.model).unwrap_or_else(|| panic!("model {}", row.model)).clone();
    let mut i = infer(model, row.precision, row.input_tokens + row.output_tokens, row.runtime);
    i.batch = row.concurrency;
    let t = llm::throughput::batch_throughput(&i, &slots(&gpu, 1), row.input_tokens, row.output_tokens)
        .expect("throughput");
    t.output_tokens_per_s
}

/// Every serving row not in [`SERVING_NOT_HELD`] within ±25 %; every listed row outside.
#[test]
fn calibration_vllm_sglang_serving_2025() {
    let mut outside = Vec::new();
    let mut listed_but_inside = Vec::new();
    let mut held = 0;
    println!(
        "| row | runtime | estimate tok/s | published tok/s | ratio | held | source |\n|---|---|---|---|---|---|---|"
    );
    for row in serving_rows() {
        let est = serving_estimate(&row);
        let ratio = est / row.published_tok_s;
        let listed = SERVING_NOT_HELD.contains(&row.label);
        println!(
            "| {} | {} | {est:.0} | {:.0} | {ratio:.2} | {} | {} |",
            row.label,
            row.version,
            row.published_tok_s,
            if listed { "no" } else { "yes" },
            row.source
        );
        match (listed, (ratio - 1.0).abs() <= 0.25) {
            (false, true) => held += 1,
            (false, false) => {
                outside.push(format!("{}: {est:.0} vs {:.0} ({ratio:.2})", row.label, row.published_tok_s));
            }
            (true, true) => listed_but_inside.push(row.label),
            (true, false) => {}
        }
    }
    assert!(outside.is_empty(), "held rows outside ±25 %: {outside:#?}");
    assert!(listed_but_inside.is_empty(), "rows listed as not held that the estimate holds: {listed_but_inside:#?}");
    assert_eq!(held, 3, "{held} rows held");
}

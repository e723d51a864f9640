//! What each speed figure of a fit rests on: the published measurements the
//! runtime's speed model is held to in the test tables (`tests/all/llm_fit*`), the band those
//! tests allow, and the command that measures the same figure on the user's machine. The
//! memory counterpart is [`super::runtime_memory::MemoryBasis`].

use serde::Serialize;

use super::inputs::{FitInput, LlamaCppEra, Runtime};

/// The basis of the decode and prefill figures for one runtime.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedBasis {
    /// The published measurements the speed model of this runtime is held to (`source:
    /// setting, figure`), as the test tables cite them.
    pub calibrated_to: Vec<String>,
    /// Largest deviation the held tests allow, percent; `None` when no published measurement
    /// of this runtime holds it (its constants are judgement or one fitted row).
    pub band_pct: Option<f64>,
    /// The runtime builds the decode constants are calibrated to, where the estimate tells
    /// builds apart (llama.cpp: [`LlamaCppEra`], e.g. "llama.cpp builds of 2025-26"); `None`
    /// for the other runtimes.
    #[serde(serialize_with = "crate::fmt::serialize_display_opt")]
    pub era: Option<LlamaCppEra>,
    /// The command that measures decode and prefill for this fit on the user's machine, and
    /// what to read from it (its output can be given back with `kraftwerk fit --measured`).
    pub measure: String,
    /// The fit's GPUs whose speed the held rows do not validate for this runtime family
    /// ([`not_measured_on`]), one line each: no held row of the family on the GPU's
    /// architecture (the efficiencies measured on other GPUs applied to its bandwidth and rates,
    /// unvalidated), or held rows there that land outside ±25 % (their measured-over-estimate
    /// range and rows). Empty for an NVIDIA GPU of [`HELD_NVIDIA_COMPUTE_CAPABILITIES`] and for
    /// an architecture whose held rows of the family all land in band.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_measured_on: Vec<String>,
    /// With weights in system RAM (a llama.cpp-family hybrid placement): the host terms the
    /// decode and prefill rest on beside the all-GPU rows of `calibrated_to`, each with the
    /// row it was fitted on, and where the hybrid runs that hold them are listed (not a band:
    /// those rows are not all within ±25 %). Empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placement_terms: Vec<String>,
}

/// The CUDA compute capabilities of the NVIDIA GPUs the speed models were built and held on
/// across runtimes (the dense tables `decode_2025.rs`, `pcie.rs`, `parallel.rs`, `serving.rs`,
/// `current.rs` and the NVIDIA rows of `moe_2026.rs`): Turing 7.5 (GeForce RTX 2080), Ampere 8.0
/// (A100) and 8.6 (RTX 3090, RTX A6000), Ada 8.9 (RTX 4090, RTX 4070, L40S, RTX 5000/6000 Ada),
/// Hopper 9.0 (H100, H200, GH200) and Blackwell 12.0 (RTX 5090, RTX PRO 6000). A fit on one of
/// these gets no line from [`not_measured_on`]. The other NVIDIA architectures with held rows
/// (Pascal 6.0: Tesla P100; Volta 7.0: V100) are in [`HELD_SPEED_COVERAGE`] with how those rows
/// land, and the rest (6.1: Tesla P40; 10.0: B200; ...) have none. The test
/// `llm_fit::architectures::held_architectures` holds this list and the NVIDIA cells of
/// [`HELD_SPEED_COVERAGE`] equal to the compute capabilities of the NVIDIA chips those tables
/// name (issue 36, item 5: validation by runtime and GPU vendor/architecture).
pub const HELD_NVIDIA_COMPUTE_CAPABILITIES: [&str; 6] = ["7.5", "8.0", "8.6", "8.9", "9.0", "12.0"];

/// What the held rows of one GPU architecture, runtime family and metric say of the estimate:
/// one cell of [`HELD_SPEED_COVERAGE`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldCoverage {
    /// The architecture as [`architecture_key`] spells it (`"compute capability 6.0"`,
    /// `"gfx1201"`, `"Xe-HPG"`).
    pub architecture: &'static str,
    /// The runtime family as [`runtime_family`] spells it (`"llama.cpp HIP"`, `"vLLM/SGLang"`).
    pub family: &'static str,
    /// `"decode"` or `"prefill"`.
    pub metric: &'static str,
    /// Held rows with an estimate (every weight on the GPUs).
    pub rows: u32,
    /// Of those, the rows whose estimate is within ±25 % of the measurement.
    pub in_band: u32,
    /// Measured over estimate, lowest and highest, over the rows outside ±25 % (`[0.0, 0.0]`
    /// when none is outside), rounded to two decimals.
    pub outside_measured_over_estimate: [f64; 2],
    /// The rows outside ±25 % and their sources in a few words (`"KP-01, KP-01d32k:
    /// kyuz0/nvidia-p100-ai-toolboxes"`); empty when none is outside.
    pub outside: &'static str,
}

/// The held speed rows of `tests/all/llm_fit/moe_2026.rs` on the GPU architectures outside
/// [`HELD_NVIDIA_COMPUTE_CAPABILITIES`] (AMD, Intel, and NVIDIA Pascal / Volta), by
/// architecture, runtime family and metric: the held rows with every weight on the GPUs (the
/// rows with experts in system RAM rest on the host terms, which
/// [`SpeedBasis::placement_terms`] states). The test
/// `llm_fit::moe_2026::held_speed_coverage_by_architecture` computes this table from the rows
/// and their estimates and holds it equal to this one: when a row or an estimate moves, this
/// table and the lines of [`not_measured_on`] move with it.
pub const HELD_SPEED_COVERAGE: &[HeldCoverage] = &[
    HeldCoverage {
        architecture: "Xe-HPG",
        family: "llama.cpp Vulkan",
        metric: "decode",
        rows: 1,
        in_band: 1,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "compute capability 6.0",
        family: "llama.cpp CUDA",
        metric: "decode",
        rows: 2,
        in_band: 0,
        outside_measured_over_estimate: [0.43, 0.45],
        outside: "KP-01, KP-01d32k: kyuz0/nvidia-p100-ai-toolboxes",
    },
    HeldCoverage {
        architecture: "compute capability 6.0",
        family: "llama.cpp CUDA",
        metric: "prefill",
        rows: 1,
        in_band: 1,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "compute capability 7.0",
        family: "llama.cpp CUDA",
        metric: "decode",
        rows: 2,
        in_band: 2,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "compute capability 7.0",
        family: "llama.cpp CUDA",
        metric: "prefill",
        rows: 1,
        in_band: 0,
        outside_measured_over_estimate: [0.55, 0.55],
        outside: "KV-01p: kyuz0/nvidia-v100-ai-toolboxes",
    },
    HeldCoverage {
        architecture: "gfx1100",
        family: "llama.cpp HIP",
        metric: "decode",
        rows: 2,
        in_band: 2,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "gfx1100",
        family: "llama.cpp HIP",
        metric: "prefill",
        rows: 4,
        in_band: 4,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "gfx1100",
        family: "llama.cpp Vulkan",
        metric: "decode",
        rows: 2,
        in_band: 1,
        outside_measured_over_estimate: [0.67, 0.67],
        outside: "AM-01: AlexsJones/llmfit/pull/808",
    },
    HeldCoverage {
        architecture: "gfx1201",
        family: "llama.cpp HIP",
        metric: "decode",
        rows: 17,
        in_band: 14,
        outside_measured_over_estimate: [0.55, 0.78],
        outside: "KZ-03, KZ-03d16k, KZ-03d32k: kyuz0/amd-r9700-ai-toolboxes",
    },
    HeldCoverage {
        architecture: "gfx1201",
        family: "llama.cpp HIP",
        metric: "prefill",
        rows: 7,
        in_band: 3,
        outside_measured_over_estimate: [0.42, 0.8],
        outside: "KZ-01p, KZ-03p, KZ-04p: kyuz0/amd-r9700-ai-toolboxes; KM-03p: kyuz0/mi50-gfx906-toolboxes",
    },
    HeldCoverage {
        architecture: "gfx1201",
        family: "llama.cpp Vulkan",
        metric: "decode",
        rows: 3,
        in_band: 3,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "gfx1201",
        family: "llama.cpp Vulkan",
        metric: "prefill",
        rows: 1,
        in_band: 0,
        outside_measured_over_estimate: [0.61, 0.61],
        outside: "AM-21p: ggml-org/llama.cpp/issues/26663",
    },
    HeldCoverage {
        architecture: "gfx906",
        family: "llama.cpp HIP",
        metric: "decode",
        rows: 4,
        in_band: 4,
        outside_measured_over_estimate: [0.0, 0.0],
        outside: "",
    },
    HeldCoverage {
        architecture: "gfx906",
        family: "llama.cpp HIP",
        metric: "prefill",
        rows: 8,
        in_band: 6,
        outside_measured_over_estimate: [0.75, 1.55],
        outside: "MG-13, MG-14: ggml-org/llama.cpp/pull/25441",
    },
    HeldCoverage {
        architecture: "gfx908",
        family: "llama.cpp HIP",
        metric: "prefill",
        rows: 2,
        in_band: 0,
        outside_measured_over_estimate: [0.52, 0.54],
        outside: "MG-18, MG-19: ggml-org/llama.cpp/pull/25441",
    },
    HeldCoverage {
        architecture: "gfx942",
        family: "vLLM/SGLang",
        metric: "decode",
        rows: 4,
        in_band: 0,
        outside_measured_over_estimate: [0.34, 0.5],
        outside: "IX-12, IX-13, IX-14, IX-15: SemiAnalysisAI/InferenceX/pull/1053",
    },
];

/// The GPU's architecture as the held-row coverage types it: NVIDIA by CUDA compute capability
/// (`"compute capability 6.0"`), AMD by LLVM `gfx` target (the catalog's `architecture` names
/// it, or names the die, mapped by [`super::support::AMD_DIE_GFX_TARGETS`]), Intel by the architecture the
/// catalog names (`"Xe-HPG"`, the text before its parenthesis). `None` when the catalog entry
/// names none of these.
pub fn architecture_key(gpu: &kraftwerk_catalog::Gpu) -> Option<String> {
    match super::support::chip_maker(gpu) {
        Some("NVIDIA") => gpu.compute_capability.as_deref().map(|cc| format!("compute capability {}", cc.trim())),
        Some("AMD") => super::support::gfx_target(gpu),
        Some("Intel") => {
            let a = gpu.architecture.split('(').next().unwrap_or("").trim();
            (!a.is_empty()).then(|| a.to_owned())
        }
        _ => None,
    }
}

/// The runtime family the held-row coverage types a fit by: llama.cpp by its back end
/// (`"llama.cpp CUDA"`, `"llama.cpp HIP"`, `"llama.cpp Vulkan"`, `"llama.cpp SYCL"`,
/// `"llama.cpp CPU"`), vLLM and SGLang together (`"vLLM/SGLang"`: SGLang's decode shares vLLM's
/// model), each other runtime by its name.
pub fn runtime_family(runtime: Runtime, backend: super::LlamaCppBackend) -> String {
    match runtime {
        Runtime::LlamaCpp => match backend {
            super::LlamaCppBackend::Cuda => "llama.cpp CUDA",
            super::LlamaCppBackend::Hip => "llama.cpp HIP",
            super::LlamaCppBackend::Vulkan => "llama.cpp Vulkan",
            super::LlamaCppBackend::Sycl => "llama.cpp SYCL",
            super::LlamaCppBackend::Cpu => "llama.cpp CPU",
        }
        .to_owned(),
        Runtime::Vllm | Runtime::Sglang => "vLLM/SGLang".to_owned(),
        Runtime::IkLlamaCpp => "ik_llama.cpp".to_owned(),
        Runtime::ExLlamaV2 => "ExLlamaV2".to_owned(),
        Runtime::TensorRtLlm => "TensorRT-LLM".to_owned(),
        Runtime::KTransformers => "ktransformers".to_owned(),
    }
}

/// One metric's words for a line of [`not_measured_on`], and whether every held row of it is
/// within ±25 %.
fn metric_words(metric: &str, c: &HeldCoverage) -> (String, bool) {
    let [lo, hi] = c.outside_measured_over_estimate;
    let range = if format!("{lo:.2}") == format!("{hi:.2}") { format!("{lo:.2}") } else { format!("{lo:.2}-{hi:.2}") };
    let way = if hi < 1.0 {
        "high"
    } else if lo > 1.0 {
        "low"
    } else {
        "off both ways"
    };
    let (row, measure) = if c.rows == 1 { ("row", "measures") } else { ("rows", "measure") };
    if c.in_band == c.rows {
        let is = if c.rows == 1 { "is" } else { "are all" };
        (format!("the {} held {metric} {row} {is} within ±25 %", c.rows), true)
    } else if c.in_band == 0 {
        (
            format!(
                "the held {metric} {row} ({}) {measure} {range} of this estimate: the {metric} figure is {way} there",
                c.outside
            ),
            false,
        )
    } else {
        (
            format!(
                "{} of the {} held {metric} rows are within ±25 %, the others ({}) measure {range} of this estimate",
                c.in_band, c.rows, c.outside
            ),
            false,
        )
    }
}

/// The runtime family ([`runtime_family`]) of `runtime` on `gpu` with llama.cpp on the back end
/// the card's maker implies (CUDA, HIP, SYCL): how the planner types a card it has not built a
/// machine for yet.
pub fn family_on_default_backend(gpu: &kraftwerk_catalog::Gpu, runtime: Runtime) -> String {
    let maker = super::support::chip_maker(gpu).unwrap_or("other");
    runtime_family(runtime, super::LlamaCppBackend::for_vendor(Some(maker)))
}

/// The most the held decode rows measure over this estimate on `gpu`'s architecture under
/// `family` ([`runtime_family`]), where every such row lands outside ±25 % with the estimate
/// high ([`HELD_SPEED_COVERAGE`]: `in_band` 0, the highest measured-over-estimate below 1), with
/// the rows in words: the held evidence says the decode there is at most that share of the
/// estimate (the Tesla P100's llama.cpp CUDA rows measure 0.43-0.45 of it). `None` where a held
/// row lands in band, where none is held, or where the rows are low or off both ways.
pub fn held_decode_at_most(gpu: &kraftwerk_catalog::Gpu, family: &str) -> Option<(f64, String)> {
    let arch = architecture_key(gpu)?;
    let c =
        HELD_SPEED_COVERAGE.iter().find(|c| c.architecture == arch && c.family == family && c.metric == "decode")?;
    let [lo, hi] = c.outside_measured_over_estimate;
    (c.rows > 0 && c.in_band == 0 && hi > 0.0 && hi < 1.0).then(|| {
        (
            hi,
            format!(
                "the held decode rows on {arch} under {family} ({}) measure {lo:.2}-{hi:.2} of this estimate",
                c.outside
            ),
        )
    })
}

/// The GPUs in `gpus` whose speed under `family` ([`runtime_family`]) is not validated by the
/// held rows, one line each, for [`SpeedBasis::not_measured_on`]:
/// - an NVIDIA GPU of [`HELD_NVIDIA_COMPUTE_CAPABILITIES`]: no line;
/// - an architecture with held rows of this family ([`HELD_SPEED_COVERAGE`]): no line when they
///   all land within ±25 % (decode and prefill); otherwise the metrics whose rows land outside,
///   with their measured-over-estimate range and their rows and sources, and a metric with no
///   held row named as unvalidated, then in brackets a metric whose rows all land within it
///   (`(the 4 held decode rows are all within ±25 %: held)`);
/// - no held row of this family on the architecture (or the architecture unknown): the
///   efficiencies measured on other GPUs are applied to its bandwidth and rates, unvalidated
///   (the families that do hold rows there named).
pub fn not_measured_on(gpus: &[super::inputs::GpuSlot], family: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in gpus.iter().map(|s| &s.gpu) {
        let maker = super::support::chip_maker(g);
        let cc = g.compute_capability.as_deref().map(str::trim);
        if maker == Some("NVIDIA") && cc.is_some_and(|cc| HELD_NVIDIA_COMPUTE_CAPABILITIES.contains(&cc)) {
            continue;
        }
        let key = architecture_key(g);
        let what = match (maker, &key) {
            (Some(m), Some(k)) => format!("{m}, {k}"),
            (Some("NVIDIA"), None) => "NVIDIA, compute capability unknown".to_owned(),
            (Some(m), None) => format!("{m}, architecture unknown"),
            (None, _) => "unknown maker".to_owned(),
        };
        let cells: Vec<&HeldCoverage> = HELD_SPEED_COVERAGE
            .iter()
            .filter(|c| key.as_deref() == Some(c.architecture) && c.family == family)
            .collect();
        let line = if cells.is_empty() {
            let mut others: Vec<&str> = HELD_SPEED_COVERAGE
                .iter()
                .filter(|c| key.as_deref() == Some(c.architecture))
                .map(|c| c.family)
                .collect();
            others.dedup();
            let held_there = if others.is_empty() {
                String::new()
            } else {
                format!(" (held rows there are of {})", others.join(", "))
            };
            format!(
                "{} ({what}): no held {family} speed row was measured on a GPU of this architecture{held_there}; \
                 the efficiencies measured on other GPUs are applied to its bandwidth and rates, so this figure is \
                 unvalidated there (measure it, then give the result back with --measured)",
                g.name
            )
        } else {
            // The metrics not validated first (the line sits under "not validated:"), then, in
            // brackets, a metric whose held rows all land within ±25 %.
            let mut parts: Vec<String> = Vec::new();
            let mut held: Vec<String> = Vec::new();
            for metric in ["decode", "prefill"] {
                if let Some(c) = cells.iter().find(|c| c.metric == metric) {
                    let (words, in_band) = metric_words(metric, c);
                    if in_band { held.push(words) } else { parts.push(words) }
                } else {
                    parts.push(format!("no held {metric} row: the {metric} figure is unvalidated there"));
                }
            }
            if parts.is_empty() {
                continue;
            }
            let held = if held.is_empty() { String::new() } else { format!(" ({}: held)", held.join("; ")) };
            format!("{} ({what}), {family}: {}{held}", g.name, parts.join("; "))
        };
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// The `llama-bench` command that measures decode (tg128) and prefill (pp512) of model `id`
/// at depth `ctx` (tokens), with `placement`: llama-bench's own spelling of the placement's
/// flags ([`super::placement::llama_bench_args`], e.g. `-ngl 99 -ncmoe 48 -mmp 0`), empty for
/// llama-bench's defaults (every layer on the GPUs).
pub fn llama_bench_command(id: &str, ctx: u32, placement: &str) -> String {
    let placement = if placement.is_empty() { String::new() } else { format!(" {placement}") };
    format!(
        "llama-bench -m <{id}.gguf>{placement} -p 512 -n 128 -d {ctx} -o json > bench.json (tg128 is decode, pp512 \
         prefill; kraftwerk fit --measured bench.json compares and corrects)"
    )
}

/// Output tokens per request of the `vllm bench serve` command a fit names (vLLM's default
/// `--random-output-len`, <https://docs.vllm.ai/en/latest/cli/bench/serve/>): the prompt is
/// the context less these, so that prompt and answer fit the server's `--max-model-len`.
const BENCH_OUTPUT_TOKENS: u32 = 128;

/// The speed basis for `runtime` and the fit `input` (model id, context and batch go into the
/// command). Every band is the ±25 % the speed tests hold their rows to.
pub fn speed_basis(runtime: Runtime, input: &FitInput) -> SpeedBasis {
    let id = &input.model.id;
    let ctx = input.context_tokens;
    let batch = input.batch.max(1);
    let llama_bench = llama_bench_command(id, ctx, "");
    // The prompt leaves room for the answer inside the server's context (`--max-model-len` /
    // `--context-length` is the fit's context): a prompt of the whole context plus vllm bench's
    // default 128 output tokens would be refused by the server.
    // A context of 256 tokens or less: half of it for the answer.
    let output = if ctx > 2 * BENCH_OUTPUT_TOKENS { BENCH_OUTPUT_TOKENS } else { (ctx / 2).max(1) };
    let prompt = ctx.saturating_sub(output).max(1);
    let vllm_bench = |server: &str| {
        format!(
            "{server}, then vllm bench serve --model <{id}> --random-input-len {prompt} --random-output-len {output} --max-concurrency {batch} \
             --save-result --metadata gpu=<nvidia-smi GPU name> (mean_tpot_ms is decode per sequence; \
             kraftwerk fit --measured <result.json> compares and corrects)"
        )
    };
    let (calibrated_to, band_pct, measure): (Vec<&str>, Option<f64>, String) = match runtime {
        Runtime::LlamaCpp => match input.llama_cpp_era {
            LlamaCppEra::Builds2025To2026 => (
                vec![
                    "decode fitted on five llama-bench rows of 2025-26 builds (tests/all/llm_fit/decode_2025.rs): llama.cpp PR 15131 (RTX 4090, Llama-3-8B BF16) 65.2, PR 15802 (RTX 3090, Llama-3-8B Q4_0) 155.0, PR 17891 (RTX 5090, Llama-3-8B Q4_0 at 32K) 165.9, PR 24216 (RTX 5090, Llama-3.2-1B BF16) 652.3, b7340 Vulkan (RTX 4090, TinyLlama Q4_K_M) 762.4 tok/s: fit 0.907 of the bandwidth and 27.5 µs per layer, residuals -7 to +16 %",
                    "held out of the fit: PR 17505 (RTX 4090, Llama-3-8B Q4_0 at 32K) 98.1, PR 17891 (RTX 3090, Llama-2-7B Q4_0 at 32K) 40.1, Docker Model Runner (RTX 5090, Qwen3-8B Q4_K_M) 221.7 tok/s: +3, -2 and +16 %",
                    "prefill: llama.cpp PR 4766 (RTX 3090, LLaMA-7B Q4_0): pp512 3408 tok/s (a 2024 build); layer-split hop: XiongjieDai (2024 builds)",
                    "ktransformers DeepseekR1_V3_tutorial (2x Xeon 6454S, DeepSeek V3 Q4_K_M, CPU only): 4.51 tok/s",
                ],
                Some(25.0),
                llama_bench,
            ),
            LlamaCppEra::Builds2023To2024 => (
                vec![
                    "llama.cpp PR 4766 (RTX 3090, LLaMA-7B Q4_0 / F16): tg128 121.8 / 48.5, pp512 3408 tok/s",
                    "XiongjieDai GPU-Benchmarks-on-LLM-Inference (RTX 4090, A100 80GB; Llama 3 8B/70B over 2-8 GPUs, layer split)",
                    "current builds decode 25-50 % faster than these constants say (tests/all/llm_fit/decode_2025.rs): the default era is 2025-26",
                ],
                Some(25.0),
                llama_bench,
            ),
        },
        Runtime::IkLlamaCpp => (
            vec!["ik_llama.cpp PR 1106 (2x RTX 3090, Qwen3-14B Q4_0, -sm layer): 95.54 tok/s (one row, fitted)"],
            Some(25.0),
            llama_bench.replace("llama-bench", "ik_llama.cpp's llama-bench"),
        ),
        Runtime::ExLlamaV2 => (
            vec![
                "exllamav2 issue 734 (2x RTX 3090, Llama-3.3-70B 4.5 bpw, 16K prompt): prefill 1046 tok/s (decode: judgement)",
            ],
            None,
            format!(
                "python test_inference.py -m <{id}-exl2> -s -l {ctx} (exllamav2's speed test: prompt and \
                 generation tokens/s)"
            ),
        ),
        Runtime::Vllm => (
            vec![
                "johnmusgrave.com vLLM throughput sweep (A100 40GB, Llama-3.1-8B BF16): 75 tok/s at batch 1",
                "club-3090 issue 698 (vLLM 0.25, 2x RTX 3090 TP2, NVLink vs PCIe)",
                "vLLM TP2 on 4x RTX 3090 Ti, Llama-3.3-70B AWQ (tests/all/llm_fit/pcie.rs)",
                "nerdalert/vllm-bench-automation (4x L40S, Llama-3.2-3B, 10 req/s): 73.6 tok/s per sequence",
                "tim-wang-tecg-blog vLLM v0.9.0 V0/V1 (H100, Llama-3.1-8B BF16, 7500/2000 tokens): concurrency 5 held; 50 and 100 listed (tests/all/llm_fit/decode_2025.rs)",
                "InferenceBench concurrency sweep (H100 SXM, vLLM 0.21.0, Llama-3.1-8B FP16): TPOT at concurrency 1 and 4 held (-2 %); 16 and 64 listed (prefill chunks inside TPOT)",
                "MoE decode: fused-MoE kernel fitted on vLLM PR 19049 (A100 PCIe 40GB, Qwen3-30B-A3B BF16, batch 1-96): 55.6 µs per MoE layer plus the distinct experts touched at 0.89 of the bandwidth (tests/all/llm_fit/moe_vllm_fit.rs); vLLM PR 23151 (H100, Qwen3-30B-A3B, 10 concurrent) held; millstoneai gpt-oss rows at 1-6 requests on H100 and RTX PRO 6000 within ±25 % (moe_2026.rs); 128K context, H200 at 10 requests and 2x A100 TP 2 (vLLM issue 22331: slower than one GPU) outside",
            ],
            Some(25.0),
            vllm_bench(&format!("vllm serve <{id}> --max-model-len {ctx}{}", super::vllm_memory::engine_flags(input))),
        ),
        Runtime::Sglang => (
            vec![
                "SGLang prefill on H100 at 8K (tests/all/llm_fit/pcie.rs: listed, not held); decode shares vLLM's model",
                "tim-wang-tecg-blog SGLang v0.4.9 (H100, Llama-3.1-8B BF16, 7500/2000 tokens, concurrency 5): 667 tok/s, held at -18 % (one row: no band)",
                "listed, not held: that blog's concurrency 50/100 rows and Spheron's SGLang v0.5.9 Llama-3.3-70B FP8 rows (tests/all/llm_fit/decode_2025.rs)",
                "MoE decode: vLLM's fused-MoE kernel terms (vLLM PR 19049 fit); achatbot PR 183 (H100, gpt-oss-20b, 32 requests): 1.74x the run's output rate, 1.19x its decode rate once queueing (mean TTFT 3.7 s of 11.8 s) is taken out",
            ],
            None,
            vllm_bench(&format!(
                "python -m sglang.launch_server --model-path <{id}> --context-length {ctx}{}",
                serving_flags(input.parallelism, SGLANG_PARALLEL_FLAGS)
            ))
            .replace("vllm bench serve --model", "vllm bench serve --backend sglang --model"),
        ),
        Runtime::TensorRtLlm => (
            vec![
                "TensorRT-LLM performance overview v1.0 (docs/source/performance/perf-overview.md @00f37686): 67 of 97 H100/H200 rows held",
                "TensorRT-LLM v0.6.1 performance tables (A100, H100; GPT-J 6B, LLaMA 7B/70B): batch throughput (history)",
            ],
            Some(25.0),
            {
                let bench = serving_flags(input.parallelism, TRTLLM_BENCH_FLAGS);
                let serve = serving_flags(input.parallelism, TRTLLM_SERVE_FLAGS);
                format!(
                    "trtllm-bench --model <{id}> throughput{bench} --dataset <ISL {ctx} requests> (Total Output Throughput), \
                     or trtllm-serve <{id}>{serve} with vllm bench serve --backend openai --max-concurrency {batch} --save-result"
                )
            },
        ),
        Runtime::KTransformers => (
            vec![
                "ktransformers DeepseekR1_V3_tutorial V0.2 (Xeon 6454S, 8x DDR5-4800, RTX 4090D, DeepSeek V3 Q4_K_M): 8.73 tok/s on 1 socket, 12.21 on 2",
                "ktransformers issue 314 (EPYC 9654, 12x DDR5-4800, RTX 4090): 14 tok/s (a check, not fitted)",
            ],
            Some(25.0),
            format!(
                "python -m ktransformers.local_chat --model_path <{id}> --gguf_path <{id}-gguf> --max_new_tokens 128 \
                 and read its \"eval rate\" (decode tokens/s) and \"prompt eval rate\""
            ),
        ),
    };
    let era = (runtime == Runtime::LlamaCpp).then_some(input.llama_cpp_era);
    SpeedBasis {
        calibrated_to: calibrated_to.into_iter().map(str::to_owned).collect(),
        band_pct,
        era,
        measure,
        not_measured_on: Vec::new(),
        placement_terms: Vec::new(),
    }
}

/// A serving runtime's launch flags for `parallelism`: each degree above 1 of
/// [`crate::workload::Parallelism::serving_degrees`] (tensor, pipeline, data) under its flag
/// name in `names` (`None`: the runtime has no flag for it); empty for one GPU. vLLM's engine
/// arguments (`--tensor-parallel-size`, `--pipeline-parallel-size`, `--data-parallel-size`,
/// <https://docs.vllm.ai/en/latest/configuration/engine_args.html>), SGLang's server arguments
/// (`--tp-size`, `--pp-size`, `--dp-size`, <https://docs.sglang.io/advanced_features/server_arguments.html>),
/// TensorRT-LLM's `trtllm-bench throughput --tp/--pp` (tensorrt_llm/bench/benchmark/throughput.py)
/// and `trtllm-serve --tp_size/--pp_size` (<https://nvidia.github.io/TensorRT-LLM/commands/trtllm-serve.html>;
/// neither has a data-parallel flag).
pub(crate) fn serving_flags(parallelism: crate::workload::Parallelism, names: [Option<&str>; 3]) -> String {
    use std::fmt::Write as _;
    let (tp, pp, dp) = parallelism.serving_degrees();
    [tp, pp, dp].into_iter().zip(names).filter(|(n, _)| *n > 1).fold(String::new(), |mut out, (n, flag)| {
        if let Some(flag) = flag {
            let _ = write!(out, " {flag} {n}");
        }
        out
    })
}

/// SGLang's server flags ([`serving_flags`]).
pub(crate) const SGLANG_PARALLEL_FLAGS: [Option<&str>; 3] = [Some("--tp-size"), Some("--pp-size"), Some("--dp-size")];
/// vLLM's engine flags ([`serving_flags`]).
pub(crate) const VLLM_PARALLEL_FLAGS: [Option<&str>; 3] =
    [Some("--tensor-parallel-size"), Some("--pipeline-parallel-size"), Some("--data-parallel-size")];
/// `trtllm-bench throughput`'s flags ([`serving_flags`]).
const TRTLLM_BENCH_FLAGS: [Option<&str>; 3] = [Some("--tp"), Some("--pp"), None];
/// `trtllm-serve`'s flags ([`serving_flags`]).
const TRTLLM_SERVE_FLAGS: [Option<&str>; 3] = [Some("--tp_size"), Some("--pp_size"), None];

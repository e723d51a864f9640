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
    /// The fit's GPUs of a maker or architecture no held row was measured on (every speed row
    /// of every runtime above is an NVIDIA GPU of compute capability
    /// [`HELD_NVIDIA_COMPUTE_CAPABILITIES`]), one line each: there the efficiencies measured on
    /// those GPUs are applied to the GPU's own bandwidth and rates, unvalidated. Empty for an
    /// NVIDIA GPU of a held architecture.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_measured_on: Vec<String>,
    /// With weights in system RAM (a llama.cpp-family hybrid placement): the host terms the
    /// decode and prefill rest on beside the all-GPU rows of `calibrated_to`, each with the
    /// row it was fitted on, and where the hybrid runs that hold them are listed (not a band:
    /// those rows are not all within ±25 %). Empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placement_terms: Vec<String>,
}

/// The CUDA compute capabilities of the GPUs the held speed rows of the test tables
/// (`tests/all/llm_fit/`) were measured on: Turing 7.5 (GeForce RTX 2080), Ampere 8.0 (A100)
/// and 8.6 (RTX 3090, RTX A6000), Ada 8.9 (RTX 4090, L40S, RTX 5000/6000 Ada), Hopper 9.0
/// (H100, H200, GH200) and Blackwell 12.0 (RTX 5090, RTX PRO 6000). No row was measured on
/// Pascal (6.x: Tesla P40, P100), Volta (7.0: V100) or datacenter Blackwell (10.0: B200).
/// The test `llm_fit::architectures::held_architectures` holds this list equal to the compute capabilities of
/// the NVIDIA chips those tables name (issue 36, item 5: validation by runtime and GPU
/// vendor/architecture).
pub const HELD_NVIDIA_COMPUTE_CAPABILITIES: [&str; 6] = ["7.5", "8.0", "8.6", "8.9", "9.0", "12.0"];

/// The GPUs in `gpus` whose maker, or (for NVIDIA) whose architecture, no speed row of the
/// test tables was measured on ([`HELD_NVIDIA_COMPUTE_CAPABILITIES`]): one line each, for
/// [`SpeedBasis::not_measured_on`]. An NVIDIA chip without a compute capability is unvalidated
/// too (its architecture is unknown).
pub fn not_measured_on(gpus: &[super::inputs::GpuSlot]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in gpus.iter().map(|s| &s.gpu) {
        let maker = super::support::chip_maker(g);
        let line = if maker == Some("NVIDIA") {
            let cc = g.compute_capability.as_deref().map(str::trim);
            if cc.is_some_and(|cc| HELD_NVIDIA_COMPUTE_CAPABILITIES.contains(&cc)) {
                continue;
            }
            format!(
                "{} (NVIDIA, compute capability {}): no held speed row was measured on a GPU of this architecture; \
                 the efficiencies measured on NVIDIA GPUs of compute capability {} are applied to its bandwidth and \
                 rates, so this figure is unvalidated there (measure it, then give the result back with --measured)",
                g.name,
                cc.unwrap_or("unknown"),
                HELD_NVIDIA_COMPUTE_CAPABILITIES.join(", ")
            )
        } else {
            let maker = maker.unwrap_or("unknown maker's");
            format!(
                "{} ({}): no held speed row was measured on an {} GPU; the efficiencies measured on NVIDIA GPUs are \
                 applied to its bandwidth and rates, so this figure is unvalidated there (measure it, then give the \
                 result back with --measured)",
                g.name, maker, maker
            )
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

/// The speed basis for `runtime` and the fit `input` (model id, context and batch go into the
/// command). Every band is the ±25 % the speed tests hold their rows to.
pub fn speed_basis(runtime: Runtime, input: &FitInput) -> SpeedBasis {
    let id = &input.model.id;
    let ctx = input.context_tokens;
    let batch = input.batch.max(1);
    let llama_bench = llama_bench_command(id, ctx, "");
    let vllm_bench = |server: &str| {
        format!(
            "{server}, then vllm bench serve --model <{id}> --random-input-len {ctx} --max-concurrency {batch} \
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
            vllm_bench(&format!("python -m sglang.launch_server --model-path <{id}> --context-length {ctx}"))
                .replace("vllm bench serve --model", "vllm bench serve --backend sglang --model"),
        ),
        Runtime::TensorRtLlm => (
            vec![
                "TensorRT-LLM performance overview v1.0 (docs/source/performance/perf-overview.md @00f37686): 67 of 97 H100/H200 rows held",
                "TensorRT-LLM v0.6.1 performance tables (A100, H100; GPT-J 6B, LLaMA 7B/70B): batch throughput (history)",
            ],
            Some(25.0),
            format!(
                "trtllm-bench --model <{id}> throughput --dataset <ISL {ctx} requests> (Total Output Throughput), \
                 or trtllm-serve <{id}> with vllm bench serve --backend openai --max-concurrency {batch} --save-result"
            ),
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

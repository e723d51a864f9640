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
//! - Tensor × pipeline parallel over `nodes` identical nodes ([`cluster`]): stages split the
//!   layers, ranks the heads; a stage boundary hands `hidden × 2 bytes × tokens` over, across
//!   the [`Interconnect`] where it crosses nodes; a tensor group wider than a node all-reduces
//!   over the interconnect. One sequence runs the stages in turn; a batch fills them with
//!   micro-batches (up to `pp ×`, bounded by the slowest stage).
//!
//! Calibration (every constant below says which measurement it rests on; the tests in
//! `tests/llm_fit.rs` hold the estimates to the published figures of
//! the published measurements below within ±25 %; each test names its source):
//!
//! | measurement | measured | what it calibrates |
//! |---|---|---|
//! | llama.cpp PR 4766, RTX 3090, LLaMA-7B Q4_0 / F16 decode | 121.8 / 48.5 tok/s | decode bandwidth efficiency and per-layer overhead (llama.cpp builds of 2023-24) |
//! | llama-bench rows of 2025-26 llama.cpp builds (PRs 15131, 15802, 17891, 24216, b7340 Vulkan; 3 more held out) | 65.2-762.4 tok/s | llama.cpp 2025-26 decode efficiency and per-layer overhead ([`LlamaCppEra`], `tests/llm_fit/decode_2025.rs`) |
//! | same, pp512 | 3408 tok/s | llama.cpp prefill efficiency |
//! | llama-bench rows on llama.cpp's Vulkan back end (PR 14001, issues 17628 and 20893: Arc A770 / B580 on Windows; PR 25051: 2x Arc Pro B60; VulkanForge's table: RX 9070 XT under RADV) | 53-187.4 tok/s decode, 4472-4826 tok/s pp512 | Vulkan factors by GPU family: Arc A-series and B-series decode, RDNA 4 prefill (`tests/llm_fit/vulkan_fit.rs`) |
//! | XiongjieDai GPU-Benchmarks-on-LLM-Inference (4090, A100, 2x and 8x 4090) | 149.4, 25.7, 19.2, 130.6 / 118.1 tok/s | decode efficiency (2023-24 builds), layer-split hop |
//! | llama.cpp quantize README / ollama PR 6279 file sizes | 4.58 / 7.95 / 14.96 / 37.22 GiB | GGUF bits per weight |
//! | vLLM, A100 40GB, Llama-3.1-8B BF16 | 75 tok/s, 6.6x at 8 requests | vLLM overhead, batch roofline |
//! | exllamav2 issue 734, 2x RTX 3090, 70B 4.5 bpw prefill | 1046 tok/s (379 with TP) | `ExLlamaV2` prefill efficiency |
//! | club-3090 issue 698, NVLink vs PCIe TP=2 decode | +2-4 % | all-reduce latencies |
//! | NVIDIA blog (TensorRT Model Optimizer), 8x H200 TP8, Llama 3.1 405B FP8 2048/128 | 463.1 tok/s | multi-GPU throughput |
//! | TensorRT-LLM v0.6.1, H100 FP8 TP4, Falcon 180B 128/128 and 2048/128 | 987 / 112 tok/s/GPU | multi-GPU throughput |
//! | vLLM issue 6610, pipeline over two GH200 nodes, 2x link bandwidth | unchanged | stage handoff size |
//! | TensorRT-LLM perf overview (perf-overview.md@00f37686), H100/H200 FP8, 97 rows | 67 held | FP8 tensor efficiency, prompt packing (`tests/llm_fit/current.rs`) |
//! | ktransformers DeepSeek-V3 tutorial (Xeon 6454S, 1 and 2 sockets; llama.cpp on 2) | 8.73 / 12.21 / 4.51 tok/s | [`host`] efficiencies and second-socket factors |
//! | ktransformers issue 314, EPYC 9654, 12x DDR5-4800 | 14 tok/s | held, no constant of its own |
//! | XiongjieDai 4/6/8-GPU layer split (25 rows) | -14 to +3 % | layer-split hop over 4-8 PCIe GPUs |
//! | vLLM issue 6955, 4x 3090 Ti TP2 / TP4 70B AWQ | 30 / 46 tok/s | PCIe all-reduce cost (TP4 not held) |
//! | r/LocalLLaMA 1mieqcb (EPYC 9B14, 12x DDR5-4800, llama.cpp CPU), Qwen3-30B-A3B Q4_K_M tg128 | 59.78 tok/s | [`host::LLAMA_CPP_HOST_LAYER_OVERHEAD_S`] (CPU back end's cost per layer) |
//! | gpt-oss-120b, one RTX 3090, `--n-cpu-moe 26 -ub 512`, pp4096 (llama-bench defaults: mmap on) | 380.27 tok/s | [`placement::HOST_TO_GPU_COPY_EFFICIENCY`] (copy of RAM-held experts per micro-batch, from pageable memory) |
//! | NVIDIA cuda-oxide `pinned_overlap` (RTX 4090, PCIe 4.0 x16, 256 MiB host-to-device) | 23.62 / 12.36 GB/s | [`placement::PINNED_OVER_PAGEABLE_COPY`] (the copy from pinned memory, `--no-mmap`; taken, not fitted) |
//! | tenstorrent/tt-inference-server issue 340, vLLM, A100 80GB, Qwen3-30B-A3B BF16, concurrency 1, TPOT at 128 / 8192 prompt tokens | 9.6 / 10.6 ms | [`VLLM_SINGLE_SEQUENCE_ATTENTION_BANDWIDTH_EFFICIENCY`] (vLLM/SGLang KV reads of one sequence) |
//! | 33 decode / 7 prefill rows held out (`tests/all/llm_fit/moe_2026.rs`: experts in RAM, ktransformers, AMD, vLLM/SGLang at 4-32 requests, ik_llama.cpp) | 14 / 1 within ±25 % | nothing (held) |
//! | llama.cpp quantize README (Llama-3.1-8B, 15 sub-4-bit types), llama.cpp PR 15952 (Qwen3-30B-A3B Q3_K_M 13.70 GiB) | 1.87-13.70 GiB | nothing: the sub-4-bit bytes come from ggml block sizes and llama-quant.cpp rules ([`gguf_mix`]) |
//!
//! Layout: [`calibration`] (constants and their sources), [`inputs`] (workload and GPUs),
//! `shape` (model arithmetic), `memory`, `speed`, [`host`] (MoE experts in system RAM, NUMA),
//! `finetune`, [`report`] (output types).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

pub mod basis;
pub mod calibration;
pub mod cluster;
pub mod cpu_prefill;
mod finetune;
pub mod gguf_mix;
pub mod host;
pub mod inputs;
pub mod llama_flags;
pub mod measured;
mod memory;
mod pipeline;
pub mod placement;
pub mod report;
pub mod runtime_memory;
pub mod search;
mod shape;
mod speed;
pub mod support;
pub mod throughput;
pub mod train;
pub mod vllm_memory;

pub use calibration::*;
pub use cluster::plan_gpus;
pub use finetune::fine_tune_time;
pub use inputs::{
    FitInput, GpuSlot, Interconnect, Link, LlamaCppBackend, LlamaCppEra, LoraTargets, Mode, Optimizer, Parallelism,
    ParseError, Precision, Runtime, Trainer, parse_training_runtime, pcie_lane_gb_s,
};
pub use report::{
    Bound, FineTuneEstimate, FitError, FitReport, FitVerdict, GpuFit, MemoryBreakdown, RuntimeLabel, ShortOfHeadroom,
    SpeedEstimate,
};
pub use shape::{
    GroupFormats, KvLayout, LINEAR_STATE_BYTES_PER_ELEMENT, ParamGroups, checkpoint_bytes, compute_peak_tflops,
    group_formats, kv_cache_bytes, kv_heads_per_rank, kv_layout, linear_state_bytes, lora_params, param_groups,
    upcasts_checkpoint, weight_bytes, weight_gib,
};

use kraftwerk_catalog::{Attention, TensorRate};
use memory::{max_context, memory, verdict};
use shape::{input_weight_parts, shares};
use speed::speed;

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
    if let Attention::LinearHybrid { full_every, key_heads, value_heads, key_head_dim, value_head_dim, .. } =
        m.attention
        && (full_every == 0 || key_heads == 0 || value_heads == 0 || key_head_dim == 0 || value_head_dim == 0)
    {
        return Err(bad_model("linear-attention full_every, heads and head dims must be positive"));
    }
    if input.weight_precision == Precision::Native && m.checkpoint.is_none() && input.file_weights.is_none() {
        return Err(bad_model(
            "has no published checkpoint format in the catalog: give a precision (bf16, fp8, fp8-block, mxfp4, nvfp4, int4, q4_k_m, ...)",
        ));
    }
    if gpus.is_empty() {
        return Err(FitError::NoGpus);
    }
    let wanted = input.parallelism.degree();
    if wanted == 0 || input.parallelism.tp_degree() == 0 {
        return Err(FitError::InvalidInput(format!("{} has degree 0", input.parallelism)));
    }
    if input.nodes == 0 || input.nodes > MAX_NODES {
        return Err(FitError::InvalidInput(format!("{} nodes: give 1 to {MAX_NODES}", input.nodes)));
    }
    if input.nodes > 1 && input.interconnect.is_none() {
        return Err(FitError::InvalidInput(format!(
            "{} nodes without an interconnect: name the link between them (ib-ndr, ib-hdr, roce-400, eth-100, ...)",
            input.nodes
        )));
    }
    let given = gpus.len() * input.nodes as usize;
    if wanted as usize > given {
        return Err(FitError::NotEnoughGpus { parallelism: input.parallelism, wanted, given });
    }
    if let Parallelism::TensorPipeline { pp, .. } = input.parallelism
        && (pp == 0 || pp > input.model.layers)
    {
        return Err(FitError::InvalidInput(format!(
            "{pp} pipeline stages for {} layers (give 1 to the layer count)",
            input.model.layers
        )));
    }
    if input.context_tokens == 0 {
        return Err(FitError::InvalidInput("context 0 tokens: give at least 1 token of context".into()));
    }
    if input.batch == 0 || input.batch > search::MAX_BATCH {
        return Err(FitError::InvalidInput(format!(
            "batch {}: give 1 to {} concurrent sequences",
            input.batch,
            search::MAX_BATCH
        )));
    }
    if let Some(u) = input.gpu_memory_utilization
        && !(u.is_finite() && u > 0.0 && u <= 1.0)
    {
        return Err(FitError::InvalidInput(format!("gpu_memory_utilization {u} (give 0-1, vLLM default 0.9)")));
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
    if input.mode.is_training() {
        train::validate(input)?;
    }
    Ok(())
}

/// Most nodes a plan may span.
pub(crate) const MAX_NODES: u32 = 1024;

/// Estimates memory per GPU, verdicts and (for inference) speed for `input` on the first
/// `input.parallelism.degree()` GPUs of `input.nodes` copies of `gpus` (one node's GPUs; rank
/// `r` sits on node `r / gpus.len()`).
///
/// # Errors
/// [`FitError`] for an invalid model or workload, too few GPUs over all nodes, or several
/// nodes without an [`Interconnect`].
pub fn estimate(input: &FitInput, gpus: &[GpuSlot]) -> Result<FitReport, FitError> {
    validate(input, gpus)?;
    let runtime = input.resolved_runtime();
    let per_node = gpus.len();
    let all = plan_gpus(gpus, input.nodes);
    let gpus = &all[..];
    let used = &gpus[..input.parallelism.degree() as usize];
    let m = &input.model;
    let sh = shares(input, used);
    let mems = memory(input, used, &sh, runtime, input.context_tokens);

    let mut gpu_fits: Vec<GpuFit> = mems
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
    let mut overall = gpu_fits.iter().map(|g| g.verdict).max().unwrap_or(FitVerdict::DoesNotFit);

    let mut max_context_tokens = if input.mode.is_training() { None } else { max_context(input, used, &sh, runtime) };

    // vLLM sizes its KV pool itself: the verdict fails when the pool cannot hold one sequence
    // of the requested length (vLLM refuses to start), and the longest context is the pool's.
    let vllm = if runtime == Runtime::Vllm {
        let weights: Vec<f64> = mems.iter().map(|m| m.weights_gib * GIB).collect();
        vllm_memory::kv_pool(input, used, &weights)
    } else {
        None
    };
    if let Some(pool) = &vllm {
        // vLLM refuses to start when the pool cannot hold one sequence; a pool that holds fewer
        // than `batch` sequences is tight (vLLM queues the rest). The pool only adds refusals
        // to the per-GPU verdicts (whose headroom is the same 1 - utilization margin).
        let pool_verdict = if !pool.holds_one_sequence {
            FitVerdict::DoesNotFit
        } else if pool.max_concurrency < f64::from(input.batch) {
            FitVerdict::Tight
        } else {
            FitVerdict::Fits
        };
        overall = overall.max(pool_verdict);
        for g in &mut gpu_fits {
            g.verdict = g.verdict.max(pool_verdict);
        }
        max_context_tokens = vllm_memory::longest_context(input, pool);
    }

    // The runtime must run on every GPU used ([`support`]): a refusal fails the verdict.
    let runtime_support =
        if input.mode.is_training() { Vec::new() } else { support::for_gpus(runtime, used.iter().map(|s| &s.gpu)) };
    if support::refusal(&runtime_support).is_some() || refuses_context(input, runtime) {
        overall = FitVerdict::DoesNotFit;
    }

    let mut notes = notes(input, gpus, used, runtime);
    if input.mode.is_training() {
        for s in used {
            if let Err(why) = train::supports(&s.gpu)
                && !notes.contains(&why)
            {
                notes.push(why);
            }
        }
    }
    cluster_notes(input, per_node, &mut notes);
    let speed =
        if input.mode.is_training() { None } else { Some(speed(input, used, per_node, &sh, runtime, &mut notes)) };

    let (embed_b, _, _) = input_weight_parts(input, runtime, false);
    let host_weights_gib = if runtime.embedding_on_host() && !input.mode.is_training() { embed_b / GIB } else { 0.0 };
    let kv_total = if input.mode.is_training() {
        0.0
    } else {
        let tp = input.parallelism.tp_degree();
        // Per-rank KV × ranks (replicated heads and MLA latents count on every rank); the
        // stages of a pipeline each hold their layers' part of it.
        kv_cache_bytes(m, input.kv_precision, input.context_tokens, input.batch, tp) * f64::from(tp)
    };

    let training = input.mode.is_training().then(|| train::report(input, used, &mems));
    Ok(FitReport {
        model_id: m.id.clone(),
        mode: input.mode,
        weight_precision: input.weight_precision,
        kv_precision: input.kv_precision,
        runtime,
        parallelism: input.parallelism,
        nodes: input.nodes,
        gpus_per_node: u32::try_from(per_node).unwrap_or(u32::MAX),
        interconnect: if input.nodes > 1 { input.interconnect } else { None },
        context_tokens: input.context_tokens,
        batch: input.batch,
        weights_total_gib: if input.mode.is_training() {
            train::memory::base_weights_gib(input)
        } else {
            input.file_weights.map_or_else(|| weight_gib(m, input.weight_precision), |w| w.total as f64 / GIB)
        },
        kv_cache_total_gib: kv_total / GIB,
        kv_layout: shape::kv_layout(m, input.kv_precision),
        host_weights_gib,
        gpus: gpu_fits,
        verdict: overall,
        max_context_tokens,
        vllm,
        runtime_support,
        llama_cpp: runtime_memory::llama_cpp_table(input, used),
        memory_basis: match &training {
            Some(t) => runtime_memory::MemoryBasis {
                calibrated_to: t.basis.memory_calibrated_to.clone(),
                band_pct: t.basis.memory_band_pct,
                measure: t.basis.measure_memory.clone(),
            },
            None => runtime_memory::memory_basis(runtime, input),
        },
        speed_basis: match &training {
            Some(t) => basis::SpeedBasis {
                calibrated_to: t.basis.speed_calibrated_to.clone(),
                band_pct: t.basis.speed_band_pct,
                era: None,
                measure: t.basis.measure_speed.clone(),
                // No held row times training: every GPU outside the held NVIDIA architectures
                // gets the unvalidated line, with the training runtime named.
                not_measured_on: basis::not_measured_on(used, &t.runtime.to_string()),
                placement_terms: Vec::new(),
            },
            None => basis::SpeedBasis {
                not_measured_on: basis::not_measured_on(
                    used,
                    &basis::runtime_family(runtime, input.llama_cpp_backend_on(used)),
                ),
                ..basis::speed_basis(runtime, input)
            },
        },
        runtime_label: match &training {
            Some(t) => RuntimeLabel::Training(t.runtime),
            None => RuntimeLabel::Inference(runtime),
        },
        training,
        speed,
        notes,
        assumptions: assumptions(input, gpus, runtime),
    })
}

/// Whether `runtime` refuses to start at the workload's context: vLLM and SGLang check the
/// context asked (`--max-model-len`, `--context-length`) against the model's own maximum and
/// raise unless an override is set in the environment (vLLM's `_get_and_verify_max_len`,
/// `vllm/config`, env `VLLM_ALLOW_LONG_MAX_MODEL_LEN`; SGLang's `ModelConfig`, env
/// `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`). A trial's `--context 500000` for Llama-3.1-8B
/// (131,072) was "fits", exit 0, beside a `vllm serve --max-model-len 500000` that does not
/// start. Inference only; llama.cpp runs such a context (with a warning). Not for a model read
/// from a file (`file_weights` given): a file that states no maximum is read as 4,096, not a
/// figure to refuse on. A model that documents rope-scaling extension (YaRN) runs past its
/// maximum under vLLM with `--hf-overrides` / `--rope-scaling`: the note names it. The
/// planner's screen asks the same predicate ([`crate::plan::screen::Screen::context_refused`]).
pub(crate) fn refuses_context(input: &FitInput, runtime: Runtime) -> bool {
    !input.mode.is_training()
        && input.file_weights.is_none()
        && runtime_refuses_context(runtime, input.context_tokens, input.model.max_context)
}

/// Whether `runtime` refuses a context of `context` tokens for a model whose maximum is
/// `max_context` (vLLM and SGLang, see [`refuses_context`]); the planner's goal check too.
pub(crate) fn runtime_refuses_context(runtime: Runtime, context: u32, max_context: u32) -> bool {
    matches!(runtime, Runtime::Vllm | Runtime::Sglang) && context > max_context
}

fn notes(input: &FitInput, all: &[GpuSlot], used: &[GpuSlot], runtime: Runtime) -> Vec<String> {
    let m = &input.model;
    let mut notes = Vec::new();
    if all.len() > used.len() {
        notes.push(format!("{} of {} GPUs used ({}); the others stay idle", used.len(), all.len(), input.parallelism));
    }
    if refuses_context(input, runtime) {
        notes.push(format!(
            "context {} exceeds the model's maximum of {} tokens: {runtime} refuses a context above the model's own and does not start (vLLM: 'User-specified max_model_len ... is greater than the derived max_model_len' unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; SGLang: unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1; a model that documents rope-scaling (YaRN) extension runs past it with vLLM's --hf-overrides / --rope-scaling, not estimated here)",
            input.context_tokens, m.max_context
        ));
    } else if input.context_tokens > m.max_context {
        // Only llama.cpp's start is documented here (its `n_ctx_per_seq > n_ctx_train`
        // warning); a model file's maximum may be the 4,096 read where the file states none.
        let whose = if input.file_weights.is_some() {
            "the model file's maximum as read from it (a file that states none reads as 4096)"
        } else {
            "the model's maximum (its config's max_position_embeddings)"
        };
        let starts = if runtime.is_llama_cpp_family() {
            format!("{runtime} starts with a warning (n_ctx_per_seq > n_ctx_train), but ")
        } else {
            String::new()
        };
        notes.push(format!(
            "context {} exceeds {whose} of {} tokens: {starts}the model was not trained on such a context unless its card documents rope scaling (YaRN) to it",
            input.context_tokens, m.max_context
        ));
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
        Parallelism::TensorParallel(t) | Parallelism::TensorPipeline { tp: t, .. } => {
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
            if matches!(input.weight_precision, Precision::Fp8) {
                match s.gpu.peak.fp8_rate() {
                    TensorRate::Known(_) => {}
                    TensorRate::Absent => notes.push(format!(
                        "{}: no FP8 tensor cores; FP8 weights run weight-only at the FP16 rate",
                        s.gpu.id
                    )),
                    TensorRate::Unknown => notes.push(format!(
                        "{}: FP8 tensor rate unknown; no prefill estimate: the FP8 tensor rate of this chip is not in \
                         the catalog",
                        s.gpu.id
                    )),
                }
            }
        }
        if runtime.is_llama_cpp_family() && !input.weight_precision.is_gguf() {
            notes.push(format!("{runtime} runtime with {} weights", input.weight_precision));
        }
    }
    notes
}

/// Notes on a plan over several nodes or with pipeline stages.
fn cluster_notes(input: &FitInput, per_node: usize, notes: &mut Vec<String>) {
    let tp = input.parallelism.tp_degree() as usize;
    let link = input.interconnect.filter(|_| input.nodes > 1);
    if let Some(ic) = link
        && tp > per_node
    {
        notes.push(format!(
            "tensor parallel {tp} spans nodes of {per_node} GPU{}: its all-reduces (two per layer) run over {ic} \
             ({:.1} GB/s per direction), far slower than NVLink or PCIe inside a node; prefer \
             tp:{per_node} with pipeline stages across nodes",
            if per_node == 1 { "" } else { "s" },
            ic.per_direction_gb_s()
        ));
    }
    if input.nodes > 1 && (input.parallelism.degree() as usize) <= per_node {
        notes.push(format!(
            "{} runs inside one node; the other {} nodes are idle (add pipeline stages or replicas)",
            input.parallelism,
            input.nodes - 1
        ));
    }
    if let Parallelism::TensorPipeline { pp, .. } = input.parallelism
        && pp > 1
        && !input.mode.is_training()
    {
        notes.push(format!(
            "pipeline of {pp} stages: one sequence runs the stages one after another (no speedup at \
             batch 1, plus a handoff per boundary); a batch fills the stages with micro-batches, up to \
             {pp}x the throughput, bounded by the slowest stage"
        ));
    }
}

fn assumptions(input: &FitInput, gpus: &[GpuSlot], runtime: Runtime) -> Vec<String> {
    let mut a = vec![
        format!(
            "weights: {} at {}{}",
            input.weight_precision,
            match group_formats(&input.model, input.weight_precision) {
                Some(g) => format!("{:?} experts, {:?} layers, {:?} embeddings", g.experts, g.layers, g.embeddings),
                None => format!("{:.3} bits per weight", input.weight_precision.bits_per_weight()),
            },
            if input.weight_precision.keeps_embeddings_16bit() && !input.weight_precision.is_per_group() {
                " (embeddings and LM head 16-bit)"
            } else {
                ""
            }
        ),
        format!(
            "CUDA context {CUDA_CONTEXT_GIB} GiB per GPU plus runtime buffers (judgement; 0.5-2.5 GB seen in llama.cpp and vLLM start-up logs)"
        ),
    ];
    if input.mode.is_training() {
        a.push(format!(
            "training: mixed-precision AdamW 16 bytes per trained parameter (Transformer Math 101), \
             activations per Korthikanti et al. 2022, headroom {TRAINING_HEADROOM_FRACTION} of memory"
        ));
    } else {
        a.push(format!(
            "runtime {runtime}: decode at {} of memory bandwidth plus {:.1} µs per layer ({}); \
             prefill at {} of the tensor peak; headroom {} of memory",
            input.decode_bandwidth_efficiency(runtime, gpus),
            input.layer_overhead_s(runtime) * 1e6,
            match runtime {
                Runtime::LlamaCpp => match input.llama_cpp_era {
                    LlamaCppEra::Builds2025To2026 => {
                        "calibrated to llama.cpp builds of 2025-26: fitted on five llama-bench rows of 2025-26 \
                         builds"
                    }
                    LlamaCppEra::Builds2023To2024 => {
                        "calibrated to llama.cpp builds of 2023-24: fitted on llama.cpp PR 4766 and XiongjieDai"
                    }
                },
                _ => "fitted on llama.cpp PR 4766, XiongjieDai, vLLM A100",
            },
            runtime.prefill_efficiency(),
            runtime.headroom_fraction()
        ));
        if runtime == Runtime::LlamaCpp {
            let backend = input.llama_cpp_backend_on(gpus);
            let gpu = gpus.first().map(|s| &s.gpu);
            let factor = backend.decode_factor(gpu);
            if (factor - 1.0).abs() > 1e-12 {
                let basis = match backend {
                    LlamaCppBackend::Hip if gpu.is_some_and(inputs::is_gfx906) => {
                        "on AMD GCN 5.1, gfx906 (LLAMA_CPP_HIP_GFX906_DECODE_FACTOR, fitted on kyuz0/mi50-gfx906-toolboxes: one MI50, \
                         llama-2-7b Q4_0 tg128)"
                    }
                    LlamaCppBackend::Hip => {
                        "on AMD RDNA 3/4 (LLAMA_CPP_HIP_RDNA_DECODE_FACTOR, fitted on llama.cpp issue 20934: RX 7900 XTX, \
                         Vulkan vs ROCm)"
                    }
                    _ => {
                        "on Intel Arc (LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR / _XE2_DECODE_FACTOR, fitted on \
                         published llama-bench rows of 2025-26 builds, mostly on Intel's Windows driver; Linux \
                         with Mesa 24.2 measured 2.5-3x slower; tests/all/llm_fit/vulkan_fit.rs)"
                    }
                };
                a.push(format!(
                    "llama.cpp {backend} back end {basis}: decode at {factor} of the CUDA-fitted efficiency"
                ));
            }
            let prefill = backend.prefill_factor(gpu);
            if (prefill - 1.0).abs() > 1e-12 {
                a.push(format!(
                    "llama.cpp {backend} back end on AMD RDNA 4: prefill at {prefill} of the CUDA-fitted efficiency \
                     (LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR, tests/all/llm_fit/vulkan_fit.rs)"
                ));
            }
        }
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

#[cfg(test)]
mod tests {
    use super::shape::split_layers;
    use super::*;

    #[test]
    fn precision_round_trips_through_strings() {
        for p in Precision::NAMED {
            assert_eq!(p.to_string().parse::<Precision>(), Ok(p));
        }
        assert_eq!("4.5bpw".parse::<Precision>(), Ok(Precision::Bpw(4.5)));
        assert_eq!("native".parse::<Precision>(), Ok(Precision::Native));
        assert_eq!(Precision::Native.to_string().parse::<Precision>(), Ok(Precision::Native));
        assert_eq!("q3_k_s".parse::<Precision>(), Ok(Precision::Q3_K_S));
        assert!("q3_k_xl".parse::<Precision>().is_err());
        assert!("ud-q2_k_xl".parse::<Precision>().is_err());
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

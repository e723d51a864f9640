//! Screening: what the fit code says of `n` identical cards at full-width native links, before
//! any machine is assembled ([`Screen`]), whether the runtime runs on the card at all
//! ([`runtime_refusal`]), and how much of a mixture-of-experts model a CPU+GPU split would keep
//! in system RAM ([`hybrid_host_gib`]). The fit input is built as `kraftwerk fit` builds it for
//! a saved build, so the screen and the final estimate agree.

use super::Constraint;
use super::goal::Goal;
use super::model::{Model, runtime_for};
use super::views::CardView;
use crate::estimate::llm::{self, FitInput, GpuSlot, Parallelism, Precision, Runtime};
use kraftwerk_catalog::{Catalog, TensorFormat};

/// What the fit code says about `n` identical cards at full-width native PCIe links.
#[derive(Debug, Clone, PartialEq)]
pub struct Screen {
    /// The weights, KV cache and buffers fit (possibly tight).
    pub fits: bool,
    /// Memory needed on the fullest GPU, GiB, and its capacity.
    pub required_gib: f64,
    /// Capacity of one card, GiB.
    pub capacity_gib: f64,
    /// Decode rate each user sees, tokens/s (inference only).
    pub decode_per_user: Option<f64>,
    /// Prefill rate of one prompt of the context, tokens/s; `None` when unknown.
    pub prefill: Option<f64>,
    /// Parallelism the fit code chose.
    pub parallelism: Parallelism,
    /// Why vLLM would refuse to start, when the runtime judged with ([`runtime_for`]) is vLLM
    /// and its KV pool cannot hold one sequence of the context (`vLLM's KV pool holds 1,234 tokens, less than one
    /// sequence of 131,072`); `None` otherwise.
    pub kv_pool_short: Option<String>,
    /// Training: tokens per second over the cards ([`llm::train`]); `None` for inference or
    /// where unknown.
    pub train_tokens_per_s: Option<f64>,
    /// vLLM `--max-num-seqs` the cards fit with: where vLLM would refuse to start at its
    /// default, the value `kraftwerk fit` names for it ([`llm::vllm_memory::VllmLever::MaxNumSeqs`],
    /// "vLLM starts, by this estimate, with any one of: --max-num-seqs N"), when it still runs
    /// the goal's users at once; the screen's figures are then the estimate at that value, by
    /// the same verdict. `None` at vLLM's default (or another runtime).
    pub max_num_seqs: Option<u32>,
    /// Why the runtime judged with refuses the goal's context whatever the memory
    /// (`llm::refuses_context`, as `kraftwerk fit` judges it: vLLM and SGLang do not start
    /// above the model's own maximum), in words (`vllm refuses a context of 500000 tokens,
    /// above gpt-oss-120b's maximum of 131072`); `None` when it does not.
    pub context_refused: Option<String>,
}

/// The fit code's default parallelism for `n` GPUs of one node (as [`fit::input_for`] picks
/// it for a build whose workload names no parallelism).
fn default_parallelism(n: u32, precision: Precision, runtime: Runtime) -> Parallelism {
    if n == 1 {
        Parallelism::Single
    } else if precision.is_gguf() || runtime.is_llama_cpp_family() || !n.is_power_of_two() {
        // A serving runtime's layer split is its pipeline parallel (as `fit` takes it).
        if runtime.pipelines_layer_split() {
            Parallelism::TensorPipeline { tp: 1, pp: n }
        } else {
            Parallelism::LayerSplit(n)
        }
    } else {
        Parallelism::TensorParallel(n)
    }
}

/// The fit input for `n` of the goal's GPUs at `precision`, as `kraftwerk fit` builds it for
/// the saved build: the goal's mode, context and users, the runtime judged with
/// ([`runtime_for`]) and its default parallelism; for training the goal's framework (ZeRO stage,
/// offload) and optimizer, with gradient checkpointing on as every framework's recipes run.
fn fit_input(model: &Model, goal: &Goal, precision: Precision, n: u32) -> FitInput {
    let mut input = FitInput::new(model.inner.clone(), precision);
    input.mode = goal.mode;
    input.context_tokens = goal.context_tokens(model.llm()).max(1);
    input.batch = goal.users.max(1);
    // The runtime's own verdict, as `kraftwerk fit` gives it on the saved build (vLLM's: its
    // KV pool must hold one sequence of the context).
    let runtime = runtime_for(model, goal, precision);
    input.runtime = Some(runtime);
    input.parallelism = default_parallelism(n, precision, runtime);
    if let Some(f) = model.file.as_ref().filter(|f| f.precision == precision) {
        // As `fit::input_for` does for `kraftwerk fit --model-file`.
        input.file_weights = Some(f.weights);
    }
    if input.mode.is_training() {
        input.runtime = None;
        input.trainer = goal.trainer.map(|t| t.trainer);
        input.zero_stage = goal.trainer.and_then(|t| t.zero_stage).unwrap_or(0);
        input.cpu_offload = goal.trainer.is_some_and(|t| t.offload);
        input.optimizer = goal.optimizer.unwrap_or_default();
        input.gradient_checkpointing = true;
        input.train_plan.dataset_tokens = goal.train_tokens;
    }
    input
}

/// Screens `n` copies of the card through [`llm::estimate`] (native links; the real slots are
/// judged later by [`super::estimate::evaluate`]).
///
/// # Errors
/// The estimator's refusal (e.g. a precision the runtime does not offer on that GPU).
pub fn screen(
    catalog: &Catalog,
    model: &Model,
    goal: &Goal,
    card: &CardView,
    n: u32,
    precision: Precision,
) -> Result<Screen, String> {
    let (gpu, mut input, slots) = card_input(catalog, model, goal, card, n, precision)?;
    let mut r = llm::estimate(&input, &slots).map_err(|e| e.to_string())?;
    // vLLM refuses to start at its default `--max-num-seqs` (the profiling sampler step's
    // `[max_num_seqs, vocab]` logits leave too small a KV pool: gpt-oss-120b on one H100 at
    // 100K tokens): `fit` names the largest value that starts; the cards are judged at it, by
    // the same verdict, where it still admits the goal's users at once (a lower one would queue
    // them, and the speed would not be this estimate's).
    let mut max_num_seqs = None;
    if let Some(seqs) = r.vllm.as_ref().filter(|p| !p.holds_one_sequence).and_then(|p| {
        p.start_levers.iter().find_map(|l| match *l {
            llm::vllm_memory::VllmLever::MaxNumSeqs { value, .. } => Some(value),
            _ => None,
        })
    }) && seqs >= input.batch
    {
        input.max_num_seqs = Some(seqs);
        r = llm::estimate(&input, &slots).map_err(|e| e.to_string())?;
        max_num_seqs = Some(seqs);
    }
    let worst = r.gpus.iter().map(|g| g.memory.required_gib).fold(0.0, f64::max);
    let context_refused = llm::refuses_context(&input, r.runtime).then(|| {
        format!(
            "{} refuses a context of {} tokens, above {}'s maximum of {}",
            r.runtime, input.context_tokens, r.model_id, input.model.max_context
        )
    });
    let train_tokens_per_s = r.training.as_ref().and_then(|t| t.speed.as_ref()).map(|s| s.tokens_per_s);
    Ok(Screen {
        // A tight fit below the goal's context is no answer: `kraftwerk fit` calls it not a
        // pass, so the planner does not propose it either.
        fits: r.verdict != llm::FitVerdict::DoesNotFit && r.short_of_headroom().is_none(),
        required_gib: worst,
        capacity_gib: gpu.memory_gib,
        decode_per_user: r.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s),
        prefill: r.speed.as_ref().and_then(|s| s.prefill_tokens_per_s),
        parallelism: r.parallelism,
        kv_pool_short: r.vllm.as_ref().filter(|p| !p.holds_one_sequence).map(|p| {
            format!(
                "vLLM's KV pool ({:.1} GiB) holds {} tokens, less than one sequence of {} ({:.1} GiB)",
                p.kv_pool_gib.max(0.0),
                p.kv_tokens,
                input.context_tokens,
                p.kv_bytes_per_sequence / (1u64 << 30) as f64
            )
        }),
        train_tokens_per_s,
        max_num_seqs,
        context_refused,
    })
}

/// Why the runtime the planner judges `precision` with ([`runtime_for`]) cannot be proposed on
/// the card, by the runtime's own requirements ([`llm::support`]): it does not run there
/// ([`Constraint::Runtime`]), or the catalog lacks the figure the requirement is stated in
/// ([`Constraint::Unknown`]: an AMD chip without its `gfx` target under vLLM). `None` when it
/// runs, when the runtime publishes no requirement (said with the result), and for training
/// (the inference runtimes do not train).
pub(crate) fn runtime_refusal(
    catalog: &Catalog,
    model: &Model,
    goal: &Goal,
    card: &CardView,
    precision: Precision,
) -> Option<(Constraint, String)> {
    if goal.is_training() {
        // Training: the frameworks' own requirement (BF16, FlashAttention-2: NVIDIA Ampere on).
        let gpu = catalog.gpu_or_card(&card.id)?;
        return llm::train::supports(gpu).err().map(|why| (Constraint::Runtime, why));
    }
    let gpu = catalog.gpu_or_card(&card.id)?;
    let runtime = runtime_for(model, goal, precision);
    match llm::support::support(runtime, gpu) {
        llm::support::Support::DoesNotRun(why) => Some((Constraint::Runtime, why)),
        llm::support::Support::NotChecked(why) => Some((Constraint::Unknown, why)),
        llm::support::Support::Runs | llm::support::Support::Unpublished(_) => None,
    }
}

/// System RAM a hybrid CPU+GPU split of the model on `n` copies of the card takes, GiB: the
/// whole of llama.cpp's Host row, the routed experts of the `--n-cpu-moe` layers the split puts
/// in RAM and the rest it keeps there ([`llm::search::llama_cpp_moe_offload`]'s
/// `host_ram_needed_gib`, the same placement `kraftwerk fit` suggests as
/// `fits_with_experts_in_ram` and asks [`llm::search::HostRam::holds`] of, after
/// [`llm::search::HOST_RAM_RESERVE_GIB`]). The expert layers the split keeps on the GPUs
/// are not in RAM, so a card with more memory needs less RAM (ubergarm's Qwen3-235B-A22B card:
/// 106.8 GiB of mix-IQ3_K on "24GB VRAM + 96GB RAM",
/// https://huggingface.co/ubergarm/Qwen3-235B-A22B-GGUF). The caller adds the reserve.
/// `None` for a dense model, when the GPUs hold it all, or when not even its non-expert part
/// fits them.
pub(crate) fn hybrid_host_gib(
    catalog: &Catalog,
    model: &Model,
    goal: &Goal,
    card: &CardView,
    n: u32,
    precision: Precision,
) -> Option<f64> {
    let (_, input, slots) = card_input(catalog, model, goal, card, n, precision).ok()?;
    Some(llm::search::llama_cpp_moe_offload(&input, &slots, None)?.host_ram_needed_gib)
}

/// The card's chip, the fit input for the goal and `n` slots holding it: what [`screen`] and
/// [`hybrid_host_gib`] estimate from.
fn card_input<'c>(
    catalog: &'c Catalog,
    model: &Model,
    goal: &Goal,
    card: &CardView,
    n: u32,
    precision: Precision,
) -> Result<(&'c kraftwerk_catalog::Gpu, FitInput, Vec<GpuSlot>), String> {
    let gpu = catalog.gpu_or_card(&card.id).ok_or_else(|| format!("card `{}` is not in the catalog", card.id))?;
    let mut input = fit_input(model, goal, precision, n);
    let slots = vec![GpuSlot::new(gpu.clone()); n as usize];
    // Training: DDP, else FSDP, else FSDP with offload, as `kraftwerk fit` picks it.
    if input.mode.is_training() && goal.trainer.is_none() {
        llm::train::choose_parallelism(&mut input, &slots);
    } else if input.mode.is_training() {
        input.parallelism = if n > 1 { Parallelism::DataParallel(n) } else { Parallelism::Single };
    }
    Ok((gpu, input, slots))
}

/// The precisions, best first, a hybrid CPU+GPU split (experts in system RAM) of `precision`
/// runs at: llama.cpp's (`--n-cpu-moe`; or the goal's llama.cpp fork), at a GGUF quant, since
/// llama.cpp loads GGUF files only. A GGUF precision stays; AWQ/GPTQ `int4` becomes the 4-bit
/// GGUF quants `Q4_K_M` (4.89 bits per weight), then `Q4_0` (4.5, nearer int4's 4.25 and
/// smaller); `fp8`/`int8` become `Q8_0`; `mxfp4` stays `mxfp4` for a model whose checkpoint
/// stores its routed experts in MXFP4 (gpt-oss) when the goal names llama.cpp: llama.cpp loads
/// such a GGUF at ggml's own MXFP4 type ("gpt-oss model support in native MXFP4 format ... New
/// MXFP4 data type in ggml", https://github.com/ggml-org/llama.cpp/pull/15091, 2025-08-05) and
/// keeps the experts of the first N layers in system RAM with `--n-cpu-moe N`
/// (https://github.com/ggml-org/llama.cpp/pull/15077, 2025-08-04). Without a named runtime
/// MXFP4 is judged under vLLM ([`super::model::runtime_for`]), whose saved build `fit` would not
/// split, so no MXFP4 split is offered in that search; the planner searches again with llama.cpp
/// named ([`super::search_runtimes`]), where it is. Other precisions have no split. Empty also when the
/// goal names a runtime that does not keep experts in RAM (vLLM, SGLang, TensorRT-LLM,
/// ExLlamaV2) or ktransformers (its own decode, not planned yet).
pub(crate) fn hybrid_precisions(goal: &Goal, model: &Model, precision: Precision) -> Vec<Precision> {
    if goal.runtime.is_some_and(|rt| !rt.is_llama_cpp_family()) {
        return Vec::new();
    }
    let mxfp4_experts = model.llm().checkpoint.as_ref().is_some_and(|c| c.experts == TensorFormat::Mxfp4);
    match precision {
        p if p.is_gguf() => vec![p],
        Precision::Int4 => vec![Precision::Q4_K_M, Precision::Q4_0],
        Precision::Fp8 | Precision::Int8 => vec![Precision::Q8_0],
        Precision::Mxfp4 if mxfp4_experts && goal.runtime == Some(Runtime::LlamaCpp) => vec![Precision::Mxfp4],
        _ => Vec::new(),
    }
}

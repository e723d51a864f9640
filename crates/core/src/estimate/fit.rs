//! LLM fit, speed and cost for a build: turns a [`Build`]'s GPUs, their slots and bridges into
//! the inputs of [`llm::estimate`] and its parts and power into [`cost::estimate`]. The CLI's
//! `kraftwerk fit` and the GUI's LLM-fit tab both call [`for_build`].

use super::cost::{self, CloudPrice, CostInput, CostReport, PricedPart};
use super::llm::search::{self, Alternatives};
use super::llm::{
    self, FitInput, FitReport, FitVerdict, GpuSlot, Interconnect, Link, LlamaCppEra, LoraTargets, Mode, Optimizer,
    Parallelism, Precision, Runtime,
};
use super::power::{self, LoadState};
use crate::estimate::model_file::ModelFile;
use crate::rig::links::gpu_links;
use crate::rig::{Build, Resolved};
use kraftwerk_catalog::{Catalog, GpuFormFactor, LlmModel, NvLink};
use serde::Serialize;

pub use crate::workload::{RuntimeChoice, TrainingRuntime};

mod applicable;
mod host_ram;
mod placement;
mod power_limits;
mod precision;
pub use host_ram::{RamSpeed, host_bandwidth_gb_s, host_ram_gib, ram_speed, ram_speed_of, stated_speed};
pub(crate) use host_ram::{experts_in_ram, host_memory};
use placement::{apply_placement, placement_of, smallest_n_cpu_moe};
pub use power_limits::power_limit_caveat;
use power_limits::{at_power_limit, power_limit_commands, power_limit_note};

/// What to estimate; each `None` falls back to the build's `workload`, then to a default
/// (bf16, the model's context up to 8192 tokens, batch 1, inference).
///
/// Every name is typed where it is read, once: the command line parses it through clap with
/// the type's [`std::str::FromStr`] (`kraftwerk fit --precision q4_k_m`), the window and the
/// planner pass their typed values, and the build's `workload` was typed when the file was
/// loaded ([`crate::rig::Workload`]). Only the model stays an id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FitOptions {
    /// Model id (`catalog/models.ron`).
    pub model: Option<String>,
    /// Weight precision (`bf16`, `fp8`, `int4`, `q4_k_m`, `4.5bpw`, ...).
    pub precision: Option<Precision>,
    /// KV-cache precision; default fp16.
    pub kv_precision: Option<Precision>,
    /// Context per sequence, tokens.
    pub context: Option<u32>,
    /// Concurrent sequences.
    pub batch: Option<u32>,
    /// `inference`, `full`, `lora`, `qlora`.
    pub mode: Option<Mode>,
    /// `single`, `tp:N`, `split:N`, `dp:N`, `tp:N,pp:M`; default: the build's workload
    /// setting, else all GPUs of one node, layer split for GGUF, tensor parallel otherwise
    /// (when the GPU count is a power of two); over several nodes `tp:<GPUs per node>,pp:<nodes>`.
    /// Under a serving runtime ([`Runtime::pipelines_layer_split`]) a layer split, given or
    /// chosen, is estimated as its pipeline parallel, `tp:1,pp:N`.
    pub parallelism: Option<Parallelism>,
    /// Cloud price to compare with, USD per hour (default an A100 80 GB at $1.60/h).
    pub cloud_usd_per_hour: Option<f64>,
    /// A model read from its file ([`crate::estimate::model_file::read_model_file`]): replaces `model`,
    /// gives the default precision and runtime, and its exact weight bytes.
    pub model_file: Option<ModelFile>,
    /// Runtime: an inference runtime (`llama.cpp`, `exllamav2`, `vllm`, ...) for inference, a
    /// training framework (`hf-peft`, `deepspeed-zero3`, ...) for a training mode; the other
    /// kind is refused ([`FitBuildError::Parse`]). Default: the build's workload runtime, else
    /// the model file's, else the precision's usual one ([`Runtime::default_for`]); in training
    /// the default framework (`llm::train::default_trainer`).
    pub runtime: Option<RuntimeChoice>,
    /// Training: gradient checkpointing; default the build's workload setting, else off.
    pub gradient_checkpointing: Option<bool>,
    /// vLLM `--gpu-memory-utilization` (0-1]; default 0.9.
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM `--max-num-batched-tokens` (the tokens of its profiling run); default vLLM's for
    /// the GPU (8192 on GPUs of 70 GiB or more but the A100, else 2048).
    pub max_num_batched_tokens: Option<u32>,
    /// vLLM `--max-num-seqs` (the sequences of its profiling sampler step); default vLLM's for
    /// the GPU (1024 or 256).
    pub max_num_seqs: Option<u32>,
    /// Identical nodes the plan spans (the build is one); default the build's workload
    /// setting, else 1.
    pub nodes: Option<u32>,
    /// The link between nodes (`ib-ndr`, `ib-hdr`, `roce-400`, `eth-100`, ...; see
    /// [`llm::Interconnect`]); default the build's workload setting.
    pub interconnect: Option<Interconnect>,
    /// The llama.cpp builds the decode is calibrated to (`2025-26`, the default, or
    /// `2023-24`; [`llm::LlamaCppEra`]).
    pub llama_cpp_era: Option<LlamaCppEra>,
    /// llama.cpp's back end (`cuda`, `hip`, `vulkan`, `sycl`, `cpu`; [`llm::LlamaCppBackend`]);
    /// default the build's workload setting, else the one the first GPU's vendor implies.
    pub backend: Option<llm::LlamaCppBackend>,
    /// Training: optimizer (`adamw`, `adamw-8bit`, `paged-adamw-8bit`, `sgd`, `adafactor`).
    pub optimizer: Option<Optimizer>,
    /// Training: LoRA rank (default 16).
    pub lora_rank: Option<u32>,
    /// Training: LoRA targets (`all`, `attention`, `qv`).
    pub lora_targets: Option<LoraTargets>,
    /// Training: DeepSpeed ZeRO stage 1-3 (with `--runtime deepspeed` or a DDP framework).
    pub zero_stage: Option<u8>,
    /// Training: offload to host RAM (DeepSpeed ZeRO-Offload, FSDP `cpu_offload`).
    pub cpu_offload: bool,
    /// Training: gradient accumulation steps (default 1, or what `global_batch` needs).
    pub gradient_accumulation: Option<u32>,
    /// Training: what the run is for (dataset tokens, epochs, global batch).
    pub train_plan: llm::train::TrainPlan,
    /// The user's llama.cpp placement flags (`-ngl`, `--n-cpu-moe`, `-ot REGEX=CPU`,
    /// `--split-mode`, `--tensor-split`), parsed; empty: the placement `llama-fit-params` would
    /// pick ([`llm::placement::searched`]).
    pub llama_cpp: llm::placement::LlamaCppFlags,
}

/// Why a fit could not be estimated (bad input, not "does not fit").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitBuildError {
    /// No model given and the build names none.
    #[error("no model: give --model ID or set the build's `workload`")]
    NoModel,
    /// The model id is not in the catalog.
    #[error("unknown model `{0}`{1} (see `kraftwerk catalog models`)")]
    UnknownModel(String, String),
    /// The build has no known GPU.
    #[error("the build has no GPU to fit the model on")]
    NoGpu,
    /// The options do not go together: a runtime of the wrong kind for the mode, a runtime
    /// that cannot load the precision, llama.cpp flags under another runtime, tensor parallel
    /// under llama.cpp. (Names are typed before they reach [`FitOptions`].)
    #[error("{0}")]
    Parse(String),
    /// The estimator refused the input.
    #[error("{0}")]
    Estimate(String),
}

/// Fit, speed and cost of a workload on a build.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildFit {
    /// Memory per GPU, verdict, speed.
    pub fit: FitReport,
    /// Hardware, power and cloud comparison; `None` when it could not be computed.
    pub cost: Option<CostReport>,
    /// Why the cost is missing, if it is.
    pub cost_error: Option<String>,
    /// What would fit instead, when it does not fit.
    pub alternatives: Option<Alternatives>,
    /// Theoretical system-RAM bandwidth of the build (channels in use × MT/s × 8 bytes), GB/s;
    /// `None` without a CPU or memory kit.
    pub host_bandwidth_gb_s: Option<f64>,
    /// The speed the build's RAM runs at and why ([`ram_speed`]); `None` without a CPU or
    /// memory kit.
    pub host_ram_speed: Option<RamSpeed>,
    /// Memory of the fullest GPU against context at this batch ([`search::memory_vs_context`]).
    pub memory_vs_context: Vec<search::ContextPoint>,
    /// GPUs (build indices) whose PCIe link is unknown (not placed, or the board's wiring is not
    /// in the catalog: [`crate::rig::links::LINK_UNKNOWN`]). The speed estimate then takes each
    /// such card's own link as an upper bound; faces must say so when this is not empty and the
    /// GPUs talk over PCIe (more than one GPU).
    pub links_unknown: Vec<usize>,
    /// Decode of an MoE model with every routed expert in the build's RAM under ktransformers,
    /// llama.cpp or ik_llama.cpp (`-ot exps=CPU`), on the build's channels, speed and sockets
    /// ([`llm::placement::host_expert_decode`]); `None` for a dense model, another runtime, or a
    /// build without CPU or memory.
    pub experts_in_ram: Option<llm::host::HostExpertDecode>,
    /// The fit of a MoE model the GPUs alone do not hold, run as llama.cpp's expert offload
    /// (`--n-cpu-moe`): `Some` when the runtime is llama.cpp or ik_llama.cpp, the workload is
    /// inference, and the offload of `alternatives` ([`search::llama_cpp_moe_offload`], bounded
    /// by the build's RAM) fits the build's RAM (with its decode at batch 1, unknown above). The planner's
    /// hybrid answers are this same offload, so `kraftwerk fit` on a saved hybrid plan gives the
    /// plan's decode. `fit.verdict` stays [`FitVerdict::DoesNotFit`] (the GPUs alone); the faces
    /// say "fits with experts in system RAM" and `cost` is the build's at this decode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fits_with_experts_in_ram: Option<search::MoeOffload>,
    /// The llama.cpp-family placement estimated (the user's flags, else the one
    /// `llama-fit-params` picks): memory per device, decode and prefill of exactly that
    /// placement ([`llm::placement::place`]). Where it puts experts or layers in system RAM,
    /// `fit.speed`'s decode and prefill are this placement's. `None` for other runtimes
    /// (ktransformers: see `experts_in_ram`) and for training.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<llm::placement::PlacementEstimate>,
    /// Where the user's own placement (`placement`, given by flags) does not run: the smallest
    /// `--n-cpu-moe` that does, with the user's other flags (`-ngl`, `-ts`, `-sm`, `-ub`) kept
    /// and their `-ot` rules dropped, judged as the user's placement is (every device's `self`
    /// within its free memory, the host part within the build's RAM); `None` otherwise, or when
    /// no `--n-cpu-moe` runs (a dense model, RAM too small).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement_that_fits: Option<search::MoeOffload>,
    /// Where the user's own placement runs with more routed experts in system RAM than the GPUs
    /// need: the smallest `--n-cpu-moe` that keeps llama.cpp's margin, with its figures
    /// (`placement::fewer_in_ram`); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement_with_fewer_in_ram: Option<search::MoeOffload>,
}

/// The one answer `kraftwerk fit` gives for a build: its headline, its exit code and its JSON's
/// top-level `verdict` ([`BuildFit::verdict`]). `fit.all_on_gpu_verdict` in the JSON is the
/// GPUs' own memory verdict with every weight the estimate places on them, which is
/// `does_not_fit` for a MoE model that runs with its experts in system RAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildVerdict {
    /// Fits the GPUs with the headroom kept free (exit 0).
    Fits,
    /// Fits the GPUs by eating into the headroom at a context that keeps it elsewhere, or in
    /// training (exit 0).
    Tight,
    /// Tight, and the context asked is longer than the longest that keeps the headroom
    /// ([`FitReport::short_of_headroom`]; exit 3).
    TightBelowContext,
    /// The GPUs alone do not hold it; it runs with its routed experts in system RAM
    /// ([`BuildFit::fits_with_experts_in_ram`]; exit 0).
    FitsWithExpertsInRam,
    /// Does not fit (exit 1).
    DoesNotFit,
}

impl BuildFit {
    /// Whether the workload runs on the build: it fits the GPUs, or it fits with its experts in
    /// system RAM ([`BuildFit::fits_with_experts_in_ram`]).
    pub fn runs(&self) -> bool {
        self.verdict() != BuildVerdict::DoesNotFit
    }

    /// The fit as `kraftwerk fit --format json` prints it: where the workload does not run
    /// ([`BuildFit::runs`]), `fit.speed` is `None`, as the text's "speed: decode unknown" and
    /// `speed_summary` say. The estimate keeps the decode of a placement that does not load
    /// (every weight on GPUs too small for them, or the user's own placement that overflows)
    /// for the calibration's comparisons, but it is no speed of this build (a trial's vLLM
    /// fit that does not fit printed `decode_batch1_tokens_per_s: 137.2` in its JSON).
    #[must_use]
    pub fn as_printed(&self) -> BuildFit {
        let mut shown = self.clone();
        if !self.runs() {
            shown.fit.speed = None;
        }
        shown
    }

    /// The build's one verdict, as the headline says it: with experts in system RAM when the
    /// split is the fit, else the GPUs' verdict, tight below the context asked when the longest
    /// context that keeps the headroom is shorter.
    pub fn verdict(&self) -> BuildVerdict {
        if self.fits_with_experts_in_ram.is_some() {
            return BuildVerdict::FitsWithExpertsInRam;
        }
        match self.fit.verdict {
            FitVerdict::DoesNotFit => BuildVerdict::DoesNotFit,
            FitVerdict::Tight if self.fit.short_of_headroom().is_some() => BuildVerdict::TightBelowContext,
            FitVerdict::Tight => BuildVerdict::Tight,
            FitVerdict::Fits => BuildVerdict::Fits,
        }
    }
}

/// `x` (every routed expert in RAM) marked as the fit where the fit `hybrid` puts the same
/// experts in RAM ([`llm::host::HostExpertDecode::is_the_fit`]): ktransformers' placement, or a
/// llama.cpp split of every routed expert (their GiB agree to rounding; one more or fewer
/// layer's experts differs by hundreds of MiB).
fn the_fit_or_not(
    mut x: llm::host::HostExpertDecode,
    hybrid: Option<&search::MoeOffload>,
) -> llm::host::HostExpertDecode {
    /// GiB within which two placements hold the same experts in RAM.
    const SAME_EXPERTS_GIB: f64 = 0.01;
    x.is_the_fit = hybrid.is_some_and(|o| (o.host_experts_gib - x.host_experts_gib).abs() < SAME_EXPERTS_GIB);
    x
}

/// The expert offload of `alt` when it is the fit ([`BuildFit::fits_with_experts_in_ram`]).
fn expert_offload_fit(input: &FitInput, alt: &Alternatives) -> Option<search::MoeOffload> {
    let rt = input.resolved_runtime();
    if !rt.is_llama_cpp_family() || input.mode.is_training() {
        return None;
    }
    let o = alt.moe_offload.clone().filter(|o| o.fits_in_host_ram == Some(true))?;
    if input.batch == 1 {
        return o.decode_tokens_per_s.is_some().then_some(o);
    }
    // Several sequences: the split's memory is the batch's (its KV cache and buffers), so it
    // runs, but its decode and prefill are of one sequence, not of this workload: unknown, not
    // "does not fit" (a trial's 4x RTX 6000 Ada example at batch 4 read "does not fit" beside
    // the same split offered as running).
    Some(search::MoeOffload { decode_tokens_per_s: None, prefill_tokens_per_s: None, ..o })
}

/// Build indices of the GPUs whose PCIe link is unknown: add-in cards of the resolved build `r`
/// with no entry in [`gpu_links`] (SXM modules and bridged pairs have their own links).
pub(crate) fn links_unknown(r: &Resolved<'_>) -> Vec<usize> {
    let links = gpu_links(r);
    r.gpus
        .iter()
        .enumerate()
        .filter(|(i, g)| g.is_some_and(|g| g.form_factor != GpuFormFactor::Sxm) && !links.iter().any(|l| l.gpu == *i))
        .map(|(i, _)| i)
        .collect()
}

/// Points of [`BuildFit::memory_vs_context`].
pub(crate) const CONTEXT_CURVE_POINTS: usize = 24;

/// The link each GPU of the build uses to talk to the others: NVLink for an SXM module or a
/// bridged pair (when the group is that pair), else its effective PCIe link from the slot. A card
/// whose link is unknown ([`links_unknown`]) gets its own link as an upper bound, never shown as
/// the build's link. `r` is the build resolved against its catalog.
pub(crate) fn gpu_slots(r: &Resolved<'_>) -> Vec<GpuSlot> {
    let build = r.build;
    let links = gpu_links(r);
    let n = r.gpus.iter().flatten().count();
    let mut out = Vec::new();
    for (i, g) in r.gpus.iter().enumerate() {
        let Some(g) = g else { continue };
        let bridged = build.nvlink.iter().any(|b| b.gpus.0 == i || b.gpus.1 == i);
        let link = match (&g.nvlink, g.form_factor) {
            (NvLink::Sxm { bandwidth_gb_s }, GpuFormFactor::Sxm) => Link::NvLink { bandwidth_gb_s: *bandwidth_gb_s },
            (NvLink::Bridge { bandwidth_gb_s, .. }, _) if bridged && n == 2 => {
                Link::NvLink { bandwidth_gb_s: *bandwidth_gb_s }
            }
            _ => links
                .iter()
                .find(|l| l.gpu == i)
                .map_or_else(|| Link::pcie_native(g), |l| Link::Pcie { generation: l.pcie_gen, lanes: l.lanes }),
        };
        let mut gpu = (*g).clone();
        if let Some(limit_w) = build.gpus.get(i).and_then(|p| p.power_limit_w) {
            at_power_limit(&mut gpu, power::gpu_limit_w(g, Some(limit_w)));
        }
        out.push(GpuSlot::with_link(gpu, link));
    }
    out
}

/// The estimator's input for the workload (from `opts`, else the build's `workload`) on the
/// build's GPUs, parallelism included ([`input_on`] over one resolution of the build).
///
/// # Errors
/// [`FitBuildError`] for a missing or unknown model, no GPU, or options that do not go together.
pub fn input_for(build: &Build, catalog: &Catalog, opts: &FitOptions) -> Result<FitInput, FitBuildError> {
    let r = build.resolve(catalog);
    input_on(&r, catalog, &gpu_slots(&r), opts)
}

/// [`input_for`] over a build resolved once (`r`) and its GPU slots ([`gpu_slots`]); `catalog`
/// is the one `r` was resolved against (the model is looked up in the build's own models, then
/// in it).
///
/// # Errors
/// As [`input_for`].
pub(crate) fn input_on(
    r: &Resolved<'_>,
    catalog: &Catalog,
    slots: &[GpuSlot],
    opts: &FitOptions,
) -> Result<FitInput, FitBuildError> {
    let build = r.build;
    let w = build.workload.as_ref();
    let model: LlmModel = if let Some(f) = &opts.model_file {
        f.model.clone()
    } else {
        let model_id = opts.model.clone().or_else(|| w.map(|w| w.model.clone())).ok_or(FitBuildError::NoModel)?;
        build
            .parts
            .models
            .iter()
            .find(|m| m.id == model_id)
            .or_else(|| catalog.model(&model_id))
            .ok_or_else(|| {
                let ids: Vec<&str> = catalog.models.iter().map(|m| m.id.as_str()).collect();
                FitBuildError::UnknownModel(model_id.clone(), kraftwerk_catalog::search::did_you_mean(&ids, &model_id))
            })?
            .clone()
    };
    if slots.is_empty() {
        return Err(FitBuildError::NoGpu);
    }
    let mode = opts.mode.or_else(|| w.map(|w| w.mode)).unwrap_or_default();
    let precision = precision::workload_precision(opts, w, &model, mode);
    let mut input = FitInput::new(model, precision);
    if let Some(f) = opts.model_file.as_ref().filter(|f| f.precision == precision) {
        input.file_weights = Some(f.weights);
        input.runtime = Some(f.runtime);
    }
    input.gpu_memory_utilization = opts.gpu_memory_utilization;
    input.max_num_batched_tokens = opts.max_num_batched_tokens;
    // `--max-num-seqs`, else the one the build runs with (a plan's saved vLLM setting).
    input.max_num_seqs = opts.max_num_seqs.or_else(|| w.and_then(|w| w.max_num_seqs));
    input.mode = mode;
    // `--runtime`, else the runtime the build is planned for, else the model file's. A training
    // mode names a training framework, never an inference runtime, and inference the reverse.
    if input.mode.is_training() {
        input.runtime = None;
        match opts.runtime {
            Some(RuntimeChoice::Training(t)) => {
                input.trainer = Some(t.trainer);
                if let Some(z) = t.zero_stage {
                    input.zero_stage = z;
                }
                input.cpu_offload = t.offload;
            }
            Some(RuntimeChoice::Inference(rt)) => {
                return Err(FitBuildError::Parse(format!(
                    "{rt} is an inference runtime; {} trains under a training runtime: {}, \
                     deepspeed-zero1/2/3[-offload], fsdp-offload",
                    input.mode,
                    llm::Trainer::ALL.map(|t| t.to_string()).join(", ")
                )));
            }
            None => {}
        }
        if let Some(z) = opts.zero_stage {
            input.zero_stage = z;
        }
        input.cpu_offload |= opts.cpu_offload;
        if let Some(o) = opts.optimizer {
            input.optimizer = o;
        }
        if let Some(r) = opts.lora_rank {
            input.lora_rank = r;
        }
        if let Some(t) = opts.lora_targets {
            input.lora_targets = t;
        }
        input.train_plan = opts.train_plan;
    } else {
        match opts.runtime {
            Some(RuntimeChoice::Inference(rt)) => input.runtime = Some(rt),
            Some(RuntimeChoice::Training(t)) => {
                return Err(FitBuildError::Parse(format!(
                    "{t} is a training runtime; inference runs under an inference runtime: {} \
                     (or give --mode lora, qlora or full to train)",
                    Runtime::ALL.map(|r| r.to_string()).join(", ")
                )));
            }
            None => {
                if let Some(rt) = w.and_then(|w| w.runtime) {
                    input.runtime = Some(rt);
                } else if w.is_some_and(|w| w.precision.is_gguf())
                    && !precision.is_gguf()
                    && opts.precision.is_none()
                    && Runtime::LlamaCpp.loads(precision).is_ok()
                {
                    // A llama.cpp build (GGUF workload) asked about another model whose
                    // checkpoint is the default (gpt-oss's MXFP4, which llama.cpp loads as
                    // published) stays under llama.cpp.
                    input.runtime = Some(Runtime::LlamaCpp);
                }
            }
        }
    }
    // llama.cpp placement flags without `--runtime` ask for llama.cpp: they override the build's
    // workload runtime and the precision's usual one ([`implied_llama_cpp`] says so). With
    // `--runtime` named they stay refused under another runtime (`placement_of`).
    if !input.mode.is_training()
        && opts.runtime.is_none()
        && opts.llama_cpp.any()
        && !input.resolved_runtime().is_llama_cpp_family()
    {
        input.runtime = Some(Runtime::LlamaCpp);
    }
    // `--no-mmap` / `--load-mode` / `--no-host`: the memory the RAM-held weights sit in, for
    // every placement estimated (given, searched or the experts-in-RAM split).
    if let Some(m) = opts.llama_cpp.host_weights {
        input.llama_cpp_host_weights = m;
    }
    // ik_llama.cpp `-rtr`: the RAM-held experts stay on the CPU for the prompt; the build's CPU
    // (its cores, base clock and AVX-512, where entered) sets their rate there.
    input.run_time_repack |= opts.llama_cpp.run_time_repack;
    let sockets = u32::from(r.board.map_or(1, |b| b.cpu_sockets.max(1)));
    input.host_cpu = r.cpu.and_then(|c| llm::cpu_prefill::HostCpu::of_catalog(c, sockets));
    // `-ub`: the micro-batch of every placement estimated, given or searched (llama.cpp's own
    // search reserves its compute buffers at it), and of the prefill.
    if let Some(ub) = opts.llama_cpp.ubatch {
        input.prompt_ubatch_tokens = Some(ub);
    }
    input.gradient_checkpointing =
        opts.gradient_checkpointing.unwrap_or_else(|| w.is_some_and(|w| w.gradient_checkpointing));
    if let Some(kv) = opts.kv_precision {
        input.kv_precision = kv;
    }
    if let Some(ctx) = opts.context.or_else(|| w.map(|w| w.context)) {
        input.context_tokens = ctx;
    }
    if let Some(b) = opts.batch.or_else(|| w.map(|w| w.batch)) {
        input.batch = b;
    }
    let n = u32::try_from(slots.len()).unwrap_or(u32::MAX);
    input.nodes = opts.nodes.or_else(|| w.and_then(|w| w.nodes)).unwrap_or(1);
    input.interconnect = opts.interconnect.or_else(|| w.and_then(|w| w.interconnect));
    if let Some(era) = opts.llama_cpp_era {
        input.llama_cpp_era = era;
    }
    input.llama_cpp_backend = opts.backend.or_else(|| w.and_then(|w| w.backend));
    // llama.cpp has no tensor parallel: it splits layers (`-sm layer`, the default) or rows
    // (`-sm row`) over its GPUs, whatever the weights' format. Its forks default to the layer
    // split too (as the planner's `default_parallelism` does); ik_llama.cpp's `-sm graph` is a
    // tensor split, so `tp:N` stays allowed there.
    let runtime = input.runtime.unwrap_or_else(|| Runtime::default_for(precision));
    // A runtime named (by `--runtime`, the build's workload or the model file) must load the
    // weights' format: q4_k_m under ExLlamaV2 is refused, not estimated.
    if !input.mode.is_training() {
        runtime.loads(precision).map_err(FitBuildError::Parse)?;
    }
    let llama_cpp = runtime == Runtime::LlamaCpp;
    let parallel = opts.parallelism.or_else(|| w.and_then(|w| w.parallel));
    if let Some(a) = opts.gradient_accumulation {
        input.gradient_accumulation = a.max(1);
    }
    if input.mode.is_training() {
        // Training: one GPU, else data parallel over all (DDP, or FSDP where DDP does not fit),
        // never tensor parallel unless asked (and then refused by the estimate).
        match parallel {
            Some(p) => input.parallelism = p,
            None => llm::train::choose_parallelism(&mut input, slots),
        }
        if opts.gradient_accumulation.is_none()
            && let Some(a) = llm::train::accumulation_for(&input)
        {
            input.gradient_accumulation = a;
        }
        return Ok(input);
    }
    input.parallelism = match parallel {
        Some(p) => p,
        None if input.nodes > 1 && !precision.is_gguf() && !runtime.is_llama_cpp_family() => {
            Parallelism::TensorPipeline { tp: n, pp: input.nodes }
        }
        None if n == 1 => Parallelism::Single,
        None if precision.is_gguf() || runtime.is_llama_cpp_family() || !n.is_power_of_two() => {
            Parallelism::LayerSplit(n)
        }
        None => Parallelism::TensorParallel(n),
    };
    // A serving runtime's layer split is its pipeline parallel (`--pipeline-parallel-size`):
    // the stages work on different sequences at once.
    if let Parallelism::LayerSplit(n) = input.parallelism
        && runtime.pipelines_layer_split()
    {
        input.parallelism = Parallelism::TensorPipeline { tp: 1, pp: n };
    }
    if llama_cpp && matches!(input.parallelism, Parallelism::TensorParallel(_) | Parallelism::TensorPipeline { .. }) {
        return Err(FitBuildError::Parse(format!(
            "llama.cpp has no tensor parallel ({}): it splits layers over the GPUs (split:N, -sm layer) or rows \
             (-sm row); use --parallel split:{n}, or a runtime with tensor parallel (ik_llama.cpp -sm graph, vllm, \
             sglang, tensorrt-llm)",
            input.parallelism
        )));
    }
    Ok(input)
}

/// Estimates fit, speed and cost of the workload (from `opts`, else the build's `workload`) on
/// the build's GPUs. When it does not fit, no speed is given: `alternatives` says what would
/// fit instead, and the cost is given only for a MoE model that fits with its experts in system
/// RAM ([`BuildFit::fits_with_experts_in_ram`]), at that split's decode.
///
/// # Errors
/// [`FitBuildError`] for a missing or unknown model, no GPU, or unparsable options (a context
/// of 0 tokens, a batch of 0 or above [`search::MAX_BATCH`]). A model that does not fit is not
/// an error: see `fit.verdict`.
pub fn for_build(build: &Build, catalog: &Catalog, opts: &FitOptions) -> Result<BuildFit, FitBuildError> {
    // The build resolved once; its slots and unknown links read from it. (The cost resolves it
    // again against the build's pricing catalog: used and owned parts priced as bought.)
    let r = build.resolve(catalog);
    let slots = gpu_slots(&r);
    let input = input_on(&r, catalog, &slots, opts)?;
    applicable::refuse_inapplicable(opts, &input)?;
    let links_unknown = links_unknown(&r);
    let mut fit = llm::estimate(&input, &slots).map_err(|e| FitBuildError::Estimate(e.to_string()))?;
    fit.notes.extend(power_limit_note(&r));
    // The speeds are at the build's limits: a measurement to compare with them is taken there.
    if let Some(set) = power_limit_commands(&r) {
        fit.speed_basis.measure =
            format!("{set} (the build's power limits, which the speeds are at), then {}", fit.speed_basis.measure);
    }
    let host_bw = host_bandwidth_gb_s(&r);
    let host = host_memory(&r);
    let ram = host_ram_gib(&r).map(search::HostRam::of);
    let all = llm::plan_gpus(&slots, input.nodes);
    let used = &all[..(input.parallelism.degree() as usize).min(all.len())];
    let curve = search::memory_vs_context(&input, used, CONTEXT_CURVE_POINTS);
    let placement = placement_of(&input, used, host, ram, &opts.llama_cpp)?;
    if let Some(p) = &placement {
        apply_placement(&mut fit, p, opts.llama_cpp.places());
    }
    if let Some(was) = implied_llama_cpp(&r, catalog, &slots, opts) {
        fit.notes.push(format!(
            "llama.cpp flags given without --runtime: estimated under llama.cpp, not {was} (the runtime this build would use otherwise); give --runtime to choose another llama.cpp-family runtime"
        ));
    }
    // The user's own placement decides the verdict: it runs or it does not. So does
    // ktransformers' (every routed expert in system RAM, the rest on the GPU): its GPU holds
    // what ktransformers puts there, not every expert.
    // A placement given (not `-ub` alone, which llama.cpp's own search honours too).
    let given = opts.llama_cpp.places();
    let kt = input.resolved_runtime() == Runtime::KTransformers;
    let user_hybrid = placement.as_ref().filter(|p| (given || kt) && p.is_hybrid());
    // The user's own all-GPU placement (`-ngl 99`): llama.cpp's table decides, per device:
    // fits, tight below llama-fit-params' 1024 MiB margin, does not fit above the free memory.
    if let Some(p) = placement.as_ref().filter(|p| given && !p.is_hybrid()) {
        for (g, v) in fit.gpus.iter_mut().zip(p.table.rows.iter().filter_map(llm::runtime_memory::DeviceRow::verdict)) {
            g.verdict = v;
        }
        fit.verdict = fit.gpus.iter().map(|g| g.verdict).max().unwrap_or(FitVerdict::DoesNotFit);
    }
    if fit.verdict == FitVerdict::DoesNotFit || user_hybrid.is_some() {
        let mut alternatives = search::alternatives(&input, &slots, host);
        search::bound_by_ram(&mut alternatives, ram);
        let hybrid = match user_hybrid {
            Some(p) => p
                .runs()
                .then(|| {
                    let mut o = search::MoeOffload::of(p);
                    if kt {
                        "ktransformers: every routed expert in system RAM, the rest on the GPU".clone_into(&mut o.args);
                    }
                    o
                })
                // The user's own placement that runs is the fit, its decode unknown where the
                // build names no memory; ktransformers' needs its decode to be the fit.
                .filter(|o| given || o.decode_tokens_per_s.is_some()),
            // The user's own placement is the one estimated: llama.cpp's automatic offload is
            // not put in its place (its speed is not the placement's).
            None if given => None,
            None => expert_offload_fit(&input, &alternatives),
        };
        let placement_that_fits = placement
            .as_ref()
            .filter(|p| given && !p.runs())
            .and_then(|_| smallest_n_cpu_moe(&input, used, host, ram, &opts.llama_cpp));
        let placement_with_fewer_in_ram = placement
            .as_ref()
            .filter(|_| given)
            .and_then(|p| placement::fewer_in_ram(&input, used, host, ram, &opts.llama_cpp, p));
        if user_hybrid.is_some_and(|p| !p.runs()) {
            fit.verdict = FitVerdict::DoesNotFit;
        }
        let (cost, cost_error) = match (hybrid.as_ref(), hybrid.as_ref().and_then(|o| o.decode_tokens_per_s)) {
            (_, Some(decode)) => cost_of(build, catalog, &input, Some(decode), opts),
            // A placement that runs (the verdict says so) with its decode unknown: the cost per
            // token is unknown, not "does not fit".
            (Some(_), None) => (None, Some("not estimated: the placement's decode is unknown (the build names no CPU or memory kit, the split mode's speed is not modelled, or several sequences share the split: its decode is modelled for one)".into())),
            (None, None) => (None, Some("not estimated: the workload does not fit".into())),
        };
        return Ok(BuildFit {
            fit,
            cost,
            cost_error,
            alternatives: Some(alternatives),
            host_bandwidth_gb_s: host_bw,
            host_ram_speed: ram_speed(&r),
            memory_vs_context: curve,
            links_unknown,
            experts_in_ram: experts_in_ram(&input, &slots, &r).map(|x| the_fit_or_not(x, hybrid.as_ref())),
            fits_with_experts_in_ram: hybrid,
            placement,
            placement_that_fits,
            placement_with_fewer_in_ram,
        });
    }

    // Training: the cost per million trained tokens.
    let rate = fit
        .speed
        .as_ref()
        .map(|s| s.decode_batch_tokens_per_s)
        .or_else(|| fit.training.as_ref().and_then(|t| t.speed.as_ref()).map(|s| s.tokens_per_s));
    let (cost, cost_error) = cost_of(build, catalog, &input, rate, opts);
    Ok(BuildFit {
        fit,
        cost,
        cost_error,
        alternatives: None,
        host_bandwidth_gb_s: host_bw,
        host_ram_speed: ram_speed(&r),
        memory_vs_context: curve,
        links_unknown,
        experts_in_ram: experts_in_ram(&input, &slots, &r),
        fits_with_experts_in_ram: None,
        placement,
        placement_that_fits: None,
        placement_with_fewer_in_ram: None,
    })
}

/// The runtime the workload would have run under, where llama.cpp placement flags given without
/// `--runtime` made it llama.cpp instead ([`input_on`]); `None` where they did not change it.
fn implied_llama_cpp(r: &Resolved<'_>, catalog: &Catalog, slots: &[GpuSlot], opts: &FitOptions) -> Option<Runtime> {
    if opts.runtime.is_some() || !opts.llama_cpp.any() {
        return None;
    }
    let without = FitOptions { llama_cpp: llm::placement::LlamaCppFlags::default(), ..opts.clone() };
    let was = input_on(r, catalog, slots, &without).ok()?;
    (!was.mode.is_training() && !was.resolved_runtime().is_llama_cpp_family()).then(|| was.resolved_runtime())
}

/// Cost of a build running `input` at `tokens_per_s` (all users together; `None` = unknown):
/// its parts at catalog prices, wall power at the workload's load state, and the cloud
/// reference. [`for_build`] calls it for a workload that fits; the planner calls it for a
/// hybrid CPU+GPU split ([`search::MoeOffload`]), whose speed the fit's alternatives give.
/// Returns the report, or why there is none.
pub(crate) fn cost_of(
    build: &Build,
    catalog: &Catalog,
    input: &FitInput,
    tokens_per_s: Option<f64>,
    opts: &FitOptions,
) -> (Option<CostReport>, Option<String>) {
    // The parts: the build's parts list, the one list `prices`, `compare` and the Parts tab
    // total (owned units cut out at $0, used ones at their used price), bridges and risers
    // included: priced when their line is, else named among the missing prices ("at least").
    let list = crate::rig::parts_list::PartsList::of(build, catalog);
    // The build's used and owned parts priced as bought.
    let priced = build.pricing_catalog(catalog);
    let catalog: &Catalog = &priced;
    let r = build.resolve(catalog);
    let rows = list.rows;
    let bought: Vec<Option<crate::rig::parts_list::Bought>> = rows.iter().map(|r| r.line.bought).collect();
    let parts: Vec<PricedPart> = rows
        .into_iter()
        .map(|r| PricedPart::new(r.line.id, r.line.name, r.line.quantity, r.line.unit_price_usd))
        .collect();
    let state = if input.mode.is_training() { LoadState::Training } else { LoadState::Inference };
    // The electricity needs the wall draw: through a PSU of unknown efficiency (no 80 PLUS
    // rating, no published curve), or with no PSU chosen, it is unknown, and so is the cost.
    let (Some(load_w), Some(idle_w)) =
        (power::estimate(&r, state).total_wall_w, power::estimate(&r, LoadState::Idle).total_wall_w)
    else {
        // The hardware sum is still known (a lower bound over unpriced lines): say it.
        let priced: f64 = parts.iter().filter_map(|p| p.unit_price_usd.map(|u| u * f64::from(p.quantity))).sum();
        let unpriced = parts.iter().filter(|p| p.unit_price_usd.is_none()).count();
        let hardware = if unpriced == 0 {
            format!("the hardware is {}", crate::fmt::usd(priced))
        } else if unpriced == parts.len() {
            "no hardware line has a price".to_owned()
        } else {
            format!(
                "the hardware is at least {} ({} without a price)",
                crate::fmt::usd(priced),
                crate::fmt::count(unpriced, "line")
            )
        };
        return (
            None,
            Some(if build.psus.is_empty() {
                format!(
                    "no cost per token: no PSU chosen, so the wall draw and the electricity cost are unknown; {hardware}"
                )
            } else {
                format!(
                    "no cost per token: a PSU's efficiency is unknown (no 80 PLUS rating known, no published curve), so the wall draw and the electricity cost are unknown; {hardware}"
                )
            }),
        );
    };
    let mut ci = CostInput::new(parts, load_w, build.site.price_per_kwh);
    ci.idle_power_w = idle_w;
    ci.utilization = build.site.duty_cycle.clamp(0.01, 1.0);
    ci.tokens_per_s = tokens_per_s;
    let mut cloud = CloudPrice::default();
    if let Some(p) = opts.cloud_usd_per_hour {
        cloud.usd_per_hour = p;
    }
    // The cloud GPU's throughput on the same workload, when it fits on one A100 80 GB.
    if let Some(a100) = catalog.gpu("nvidia-a100-80gb-pcie") {
        let mut one = input.clone();
        one.parallelism = Parallelism::Single;
        let on_a100 = llm::estimate(&one, &[GpuSlot::new(a100.clone())]).ok();
        // The default offer (one A100) that cannot hold the workload replaces nothing: no
        // break-even against it. A price the user gives is taken as an offer that runs it.
        if opts.cloud_usd_per_hour.is_none() {
            cloud.runs_workload = on_a100.as_ref().map(|f| f.verdict != FitVerdict::DoesNotFit);
        }
        if let Some(f) = on_a100
            && f.verdict != FitVerdict::DoesNotFit
        {
            cloud.tokens_per_s = f
                .speed
                .map(|s| s.decode_batch_tokens_per_s)
                .or_else(|| f.training.as_ref().and_then(|t| t.speed.as_ref()).map(|s| s.tokens_per_s));
        }
    }
    ci.cloud = cloud;
    match cost::estimate(&ci) {
        Ok(mut c) => {
            for (p, how) in c.parts.iter_mut().zip(&bought) {
                p.used_price = kraftwerk_catalog::cited::used_price_beside(catalog, &p.id).cloned();
                p.bought = if how.is_some_and(|b| b.owned) {
                    Some(kraftwerk_catalog::cited::OWNED_SOURCE.to_owned())
                } else if how.is_some_and(|b| b.used) {
                    Some(if p.unit_price_usd.is_some() {
                        "used".to_owned()
                    } else {
                        kraftwerk_catalog::cited::USED_UNPRICED_SOURCE.to_owned()
                    })
                } else {
                    None
                };
            }
            (Some(c), None)
        }
        Err(e) => (None, Some(e.to_string())),
    }
}

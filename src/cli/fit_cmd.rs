//! `kraftwerk fit BUILD [--model ID | --model-file PATH] [--precision P] [--context N] [--batch N]
//! [--mode M] [--search]`.

use super::check_cmd::load_build;
use super::error::{CliError, bad};
use super::{Format, print_json};
use crate::estimate::fit::{self, BuildFit, BuildVerdict, FitOptions, RuntimeChoice};
use crate::estimate::llm::{
    Interconnect, LlamaCppBackend, LlamaCppEra, LoraTargets, Mode, Optimizer, Parallelism, Precision,
};
use crate::estimate::speed_summary::SpeedSummary;
use crate::model_file::read_model_file;
use crate::report::fit::{self as report, Measured};
use std::path::PathBuf;

/// Arguments of `kraftwerk fit`. Every name is parsed here, once, by its type's `FromStr` (clap's
/// value parser): a bad one is refused before the build is read, with the type's message (the
/// accepted names) and exit code 2.
#[derive(Debug, clap::Args)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent command-line switches, each its own flag as llama.cpp or the trainer spells it"
)]
pub struct FitArgs {
    /// The build file.
    pub build: PathBuf,
    /// Model id (`kraftwerk catalog models`); default: the build's workload.
    #[arg(long, conflicts_with = "model_file")]
    pub model: Option<String>,
    /// A model file: a `.gguf` file, or a Hugging Face folder (config.json and safetensors
    /// headers); only headers are read.
    #[arg(long)]
    pub model_file: Option<PathBuf>,
    /// Runtime: llama.cpp, ik_llama.cpp, exllamav2, vllm, sglang, tensorrt-llm or ktransformers
    /// (default: the precision's usual one). Training modes take a training runtime instead:
    /// hf-peft (default), unsloth, axolotl, torchtune, deepspeed-zero1/2/3[-offload], fsdp,
    /// fsdp-offload.
    #[arg(long)]
    pub runtime: Option<RuntimeChoice>,
    /// Training: optimizer (adamw, adamw-8bit, paged-adamw-8bit, sgd, adafactor; default adamw).
    #[arg(long)]
    pub optimizer: Option<Optimizer>,
    /// Training: LoRA rank (default 16).
    #[arg(long)]
    pub lora_rank: Option<u32>,
    /// Training: LoRA target modules: all (q, k, v, o, gate, up, down; default), attention, qv.
    #[arg(long)]
    pub lora_targets: Option<LoraTargets>,
    /// Training: DeepSpeed ZeRO stage 1-3 over the data-parallel ranks (--parallel dp:N).
    #[arg(long)]
    pub zero_stage: Option<u8>,
    /// Training: offload optimizer states (and, at ZeRO-3/FSDP, parameters) to host RAM.
    #[arg(long)]
    pub cpu_offload: bool,
    /// Training: gradient accumulation steps (default 1, or what --global-batch needs).
    #[arg(long)]
    pub gradient_accumulation: Option<u32>,
    /// Training: sequences per optimizer step over all GPUs; prints the accumulation steps.
    #[arg(long)]
    pub global_batch: Option<u32>,
    /// Training: tokens in the dataset; prints the hours the run takes.
    #[arg(long)]
    pub dataset_tokens: Option<f64>,
    /// Training: passes over the dataset (default 1).
    #[arg(long)]
    pub epochs: Option<f64>,
    /// The llama.cpp builds the decode estimate is calibrated to: 2025-26 (default, current
    /// builds) or 2023-24 (older builds, e.g. one bundled by an old front end).
    #[arg(long)]
    pub llama_cpp_era: Option<LlamaCppEra>,
    /// llama.cpp's back end: cuda, hip (rocm), vulkan, sycl or cpu (default the build's
    /// workload `backend`, else the one the first GPU's vendor implies: CUDA on NVIDIA, HIP on
    /// AMD, SYCL on Intel). HIP on AMD RDNA 3/4 decodes at 0.765 of the CUDA efficiency, on
    /// GCN 5.1 (gfx906: MI50, MI60, Radeon VII) at 0.431.
    #[arg(long)]
    pub backend: Option<LlamaCppBackend>,
    /// vLLM `--gpu-memory-utilization`, 0-1 (default 0.9): the memory vLLM may use per GPU.
    #[arg(long)]
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM `--max-num-batched-tokens`: the tokens of vLLM's profiling run, which sizes its KV
    /// pool (default vLLM's: 8192 on GPUs of 70 GiB or more but the A100, else 2048).
    #[arg(long)]
    pub max_num_batched_tokens: Option<u32>,
    /// vLLM `--max-num-seqs`: the sequences of vLLM's profiling sampler step (default vLLM's:
    /// 1024 or 256).
    #[arg(long)]
    pub max_num_seqs: Option<u32>,
    /// Training: gradient checkpointing (recompute activations in backward).
    #[arg(long)]
    pub gradient_checkpointing: bool,
    /// Print the "what fits" table: every precision of the runtime family with its longest
    /// context, largest batch, decode and prefill.
    #[arg(long)]
    pub search: bool,
    /// Weight precision: fp32, bf16, fp16, fp8, int8, int4, q4_0, q4_k_m, q5_k_m, q6_k, q8_0,
    /// mxfp4, nvfp4, fp8-block, native (the checkpoint as published), or NNbpw.
    #[arg(long)]
    pub precision: Option<Precision>,
    /// KV-cache precision (default fp16).
    #[arg(long)]
    pub kv_precision: Option<Precision>,
    /// Context per sequence, tokens.
    #[arg(long)]
    pub context: Option<u32>,
    /// Concurrent sequences (inference) or micro-batch per GPU (training).
    #[arg(long)]
    pub batch: Option<u32>,
    /// inference, full, lora or qlora.
    #[arg(long)]
    pub mode: Option<Mode>,
    /// single, tp:N, split:N, dp:N or tp:N,pp:M (tensor x pipeline; default: all GPUs; layer
    /// split for GGUF, else tensor parallel; over several nodes tp:<GPUs per node>,pp:<nodes>;
    /// under vLLM, SGLang and TensorRT-LLM a layer split is their pipeline parallel, tp:1,pp:N).
    #[arg(long)]
    pub parallel: Option<Parallelism>,
    /// Identical nodes of this build the plan spans (default 1, or the build's workload).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Link between nodes: ib-ndr, ib-hdr, roce-400, roce-200, roce-100, eth-400, eth-200,
    /// eth-100, eth-25, eth-10.
    #[arg(long)]
    pub interconnect: Option<Interconnect>,
    /// A llama-bench result file (`-o json`, `-o jsonl` or `-o csv`) or a `vllm bench serve
    /// --save-result` JSON measured on this build's GPUs: prints estimate vs measured and this
    /// machine's corrected decode and prefill (also with --format json); refused when it names
    /// other GPUs or another model. A file that names no GPU (a `vllm bench serve` run without
    /// `--metadata gpu=...`) is compared but corrects nothing unless --measured-gpu says
    /// which GPU it was measured on.
    #[arg(long)]
    pub measured: Option<PathBuf>,
    /// The GPU the --measured file was measured on (a catalog GPU or card id, e.g.
    /// `nvidia-l40s`): needed for a file that names none; checked against the build's GPUs and
    /// the file's own names.
    #[arg(long, requires = "measured", value_name = "GPU_ID")]
    pub measured_gpu: Option<String>,
    /// llama.cpp `-ngl` / `--n-gpu-layers`: layers on the GPUs (default all, or the placement
    /// llama-fit-params would pick when no placement flag is given).
    #[arg(long = "n-gpu-layers", visible_alias = "ngl")]
    pub n_gpu_layers: Option<u32>,
    /// llama.cpp `--n-cpu-moe N`: keep the routed experts of layers 0..N in system RAM;
    /// memory per device, decode and prefill are estimated for exactly that placement.
    #[arg(long = "n-cpu-moe", visible_alias = "ncmoe")]
    pub n_cpu_moe: Option<u32>,
    /// llama.cpp `-ot` / `--override-tensor REGEX=CPU` on routed-expert tensors
    /// (`blk.N.ffn_{gate,up,down}_exps.weight`), e.g. `exps=CPU`,
    /// `blk\.(2[0-9])\.ffn_.*_exps=CPU` or `blk\.2[0-9]\.ffn.*=CPU` (the router and FFN norm of a
    /// MoE layer move with its experts; a rule that reaches attention, a dense FFN or a shared
    /// expert is refused); repeat for several rules, or separate them with commas as llama.cpp
    /// does (`common/arg.cpp` splits the value on ',').
    #[arg(long = "override-tensor", visible_alias = "ot", value_delimiter = ',')]
    pub override_tensor: Vec<crate::estimate::llm::placement::TensorOverride>,
    /// llama.cpp `--cpu-moe` / `-cmoe`: every routed expert in system RAM, the rule llama.cpp
    /// adds for it (`LLM_FFN_EXPS_REGEX`, `\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU`), the
    /// same as `--n-cpu-moe` at the layer count.
    #[arg(long = "cpu-moe", visible_alias = "cmoe")]
    pub cpu_moe: bool,
    /// llama.cpp `--split-mode`: layer (default) or row.
    #[arg(long = "split-mode", visible_alias = "sm")]
    pub split_mode: Option<crate::estimate::llm::placement::SplitMode>,
    /// llama.cpp `--tensor-split a,b,...`: the proportion of the model per GPU.
    #[arg(long = "tensor-split", visible_alias = "ts")]
    pub tensor_split: Option<crate::estimate::llm::placement::TensorSplit>,
    /// llama.cpp `-ub` / `--ubatch-size`: tokens per micro-batch (default 512); with experts in
    /// system RAM each micro-batch copies them to the GPU once, so it sets the prefill.
    #[arg(long = "ubatch-size", visible_alias = "ub")]
    pub ubatch_size: Option<u32>,
    /// llama.cpp `--no-mmap`: load the weights into memory instead of mapping the file, so those
    /// left in system RAM sit in pinned (CUDA_Host) buffers and their copy to the GPU per prompt
    /// micro-batch runs at the pinned rate; by default (mmap on) they stay pageable and copy
    /// slower. Sets the prefill only.
    #[arg(long = "no-mmap", conflicts_with_all = ["mmap", "load_mode"])]
    pub no_mmap: bool,
    /// llama-bench `-mmp` / `--mmap <0|1>` (1, llama.cpp's default: weights mapped, pageable;
    /// 0: as --no-mmap). A bare `--mmap` (llama-server's spelling) means 1.
    #[arg(long = "mmap", value_name = "0|1", num_args = 0..=1, default_missing_value = "1",
          value_parser = clap::value_parser!(u8).range(0..=1), conflicts_with = "load_mode")]
    pub mmap: Option<u8>,
    /// llama.cpp `--load-mode`: none, mlock or dio load without a mapping (as --no-mmap); mmap,
    /// mmap+mlock or auto map the file (the default).
    #[arg(long = "load-mode", value_name = "MODE")]
    pub load_mode: Option<String>,
    /// llama.cpp `--no-host`: no host buffer type, so the weights in system RAM stay in plain
    /// pageable memory even with --no-mmap.
    #[arg(long = "no-host")]
    pub no_host: bool,
    /// ik_llama.cpp `-rtr` / `--run-time-repack`: the tensors in system RAM are repacked to
    /// CPU-only types, so a prompt's RAM-held experts are computed on the CPU at every
    /// micro-batch (at the build CPU's rate: its cores, base clock and AVX-512, where the catalog
    /// has them; else the prefill is unknown). Sets the prefill only.
    #[arg(long = "run-time-repack", visible_alias = "rtr")]
    pub run_time_repack: bool,
    /// Cloud price to compare with, USD per hour (default A100 80 GB at 1.60). The break-even
    /// is printed only where owning pays back within the 3-year write-off; else the text says
    /// the cloud is cheaper (at this many hours a day, or at any), or why there is none (the
    /// default A100 that does not hold the workload). A price given is taken as an offer that
    /// runs it, at the A100's speed on the workload where one holds it: the break-even then
    /// holds the build against renting the same tokens (it pays back exactly where its $ per
    /// million tokens is at most the cloud's), else against renting the same hours.
    #[arg(long)]
    pub cloud_usd_per_hour: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `kraftwerk fit`: exit 0 when it fits (on the GPUs, or with a MoE model's experts in
/// system RAM under llama.cpp), 1 when it does not, 3 when it is tight below the context asked
/// ([`crate::estimate::llm::FitReport::short_of_headroom`]), 2 on bad input.
pub fn run(a: &FitArgs) -> Result<(), CliError> {
    let (catalog, build) = load_build(&a.build)?;
    // --no-mmap / -mmp / --load-mode / --no-host: where the RAM-held weights sit.
    let unmapped = match (a.no_mmap, a.mmap, &a.load_mode) {
        (true, _, _) => Some(true),
        (false, Some(v), _) => Some(v == 0),
        (false, None, Some(m)) => Some(crate::estimate::llm::llama_flags::load_mode_is_unmapped(m).map_err(bad)?),
        (false, None, None) => None,
    };
    let host_weights = crate::estimate::llm::llama_flags::HostWeightMemory::of_flags(unmapped, a.no_host);
    let model_file = match &a.model_file {
        Some(p) => match read_model_file(p) {
            Ok(f) => Some(f),
            Err(e) => {
                return Err(bad(format!("{}: {e}", p.display())));
            }
        },
        None => None,
    };
    let opts = FitOptions {
        model: a.model.clone(),
        precision: a.precision,
        kv_precision: a.kv_precision,
        context: a.context,
        batch: a.batch,
        mode: a.mode,
        parallelism: a.parallel,
        cloud_usd_per_hour: a.cloud_usd_per_hour,
        model_file: model_file.clone(),
        runtime: a.runtime,
        gradient_checkpointing: a.gradient_checkpointing.then_some(true),
        gpu_memory_utilization: a.gpu_memory_utilization,
        max_num_batched_tokens: a.max_num_batched_tokens,
        max_num_seqs: a.max_num_seqs,
        nodes: a.nodes,
        interconnect: a.interconnect,
        llama_cpp_era: a.llama_cpp_era,
        backend: a.backend,
        optimizer: a.optimizer,
        lora_rank: a.lora_rank,
        lora_targets: a.lora_targets,
        zero_stage: a.zero_stage,
        cpu_offload: a.cpu_offload,
        gradient_accumulation: a.gradient_accumulation,
        train_plan: crate::estimate::llm::train::TrainPlan {
            dataset_tokens: a.dataset_tokens,
            epochs: a.epochs,
            global_batch: a.global_batch,
        },
        llama_cpp: crate::estimate::llm::placement::LlamaCppFlags {
            n_gpu_layers: a.n_gpu_layers,
            n_cpu_moe: a.n_cpu_moe,
            overrides: {
                let mut o = a.override_tensor.clone();
                if a.cpu_moe {
                    o.push(cpu_moe_rule()?);
                }
                o
            },
            split_mode: a.split_mode.unwrap_or_default(),
            tensor_split: a.tensor_split.clone(),
            ubatch: a.ubatch_size,
            host_weights,
            run_time_repack: a.run_time_repack,
        },
    };
    if let Some(t) = a.dataset_tokens.filter(|t| !(t.is_finite() && *t > 0.0)) {
        return Err(bad(format!("--dataset-tokens {t}: give a positive number of tokens")));
    }
    if let Some(e) = a.epochs.filter(|e| !(e.is_finite() && *e > 0.0)) {
        return Err(bad(format!("--epochs {e}: give a positive number of passes")));
    }
    let result = fit::for_build(&build, &catalog, &opts).map_err(|e| bad(e.to_string()))?;
    // A MoE model that fits with its experts in system RAM (llama.cpp `--n-cpu-moe`) runs.
    // A tight fit whose longest context that keeps the headroom is below the one asked is not
    // a pass (exit 3): the verdict and the exit code agree with the longest context.
    // One verdict for the headline, the exit code and the JSON's `verdict`.
    let verdict = result.verdict();
    let code = match verdict {
        BuildVerdict::DoesNotFit => Err(CliError::Failed(None)),
        BuildVerdict::TightBelowContext => Err(CliError::NotAPass),
        BuildVerdict::Fits | BuildVerdict::Tight | BuildVerdict::FitsWithExpertsInRam => Ok(()),
    };
    // The speed as `plan` and the GUI's Fit and Plan tabs spell it (text and JSON).
    let speed = SpeedSummary::of_build(&result, &build, &catalog);
    // No speed for a workload that does not run, as the text's "unknown" says
    // (`BuildFit::as_printed`): the JSON's `fit.speed` and the corrected figures of --measured.
    let shown = result.as_printed();
    if a.format == Format::Json {
        let printed = match &a.measured {
            Some(path) => match Measured::of(path, a.measured_gpu.as_ref(), &build, &catalog, &opts, &shown) {
                Ok(measured) => {
                    print_json(&FitWithMeasured { verdict, result: &shown, speed_summary: &speed, measured })
                }
                Err(e) => return Err(bad(e)),
            },
            None => print_json(&FitJson { verdict, result: &shown, speed_summary: &speed }),
        };
        printed?;
        return code;
    }
    let summary = model_file.as_ref().map(crate::estimate::model_file::ModelFile::summary);
    out!("{}", report::text(&result, &build.name, &build.pricing_catalog(&catalog), summary.as_deref(), &speed));
    if a.search {
        let mut s = String::new();
        report::what_fits_table(&mut s, &build, &catalog, &opts, &result);
        out!("{s}");
    }
    if let Some(path) = &a.measured {
        let m = Measured::of(path, a.measured_gpu.as_ref(), &build, &catalog, &opts, &shown).map_err(bad)?;
        let mut s = String::new();
        report::measured(&mut s, &m, &result);
        out!("{s}");
    }
    code
}

/// llama.cpp's `--cpu-moe` rule ([`crate::estimate::llm::llama_flags::CPU_MOE_RULE`]), as the
/// Fit tab's pasted flags read it.
fn cpu_moe_rule() -> Result<crate::estimate::llm::placement::TensorOverride, CliError> {
    crate::estimate::llm::llama_flags::CPU_MOE_RULE.parse().map_err(bad)
}

/// `fit --format json --measured FILE`: the fit, its speed summary and the measured report
/// together.
#[derive(serde::Serialize)]
struct FitWithMeasured<'a> {
    /// The build's one verdict, as the headline and the exit code say it.
    verdict: BuildVerdict,
    #[serde(flatten)]
    result: &'a BuildFit,
    speed_summary: &'a SpeedSummary,
    measured: Measured,
}

/// `fit --format json`: the build's one verdict (`verdict`: [`BuildVerdict`], the headline's
/// and the exit code's), the fit and its speed as every view spells it (`speed_summary`:
/// decode per user, prefill, `--n-cpu-moe`, caveats).
#[derive(serde::Serialize)]
struct FitJson<'a> {
    /// The build's one verdict, as the headline and the exit code say it.
    verdict: BuildVerdict,
    #[serde(flatten)]
    result: &'a BuildFit,
    speed_summary: &'a SpeedSummary,
}

/// llama.cpp spells its flags with one dash and several letters (`-ngl`, `-ot`, `-sm`, `-ts`,
/// `-ncmoe`, `-mmp`), which clap reads as bundles of short flags. After `fit` those spellings become the
/// long flags they stand for, so a llama.cpp command line can be pasted as it is.
pub fn llama_cpp_spellings(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let is_fit = args.iter().skip(1).find(|a| !a.to_string_lossy().starts_with('-')).is_some_and(|a| a == "fit");
    if !is_fit {
        return args;
    }
    args.into_iter()
        .map(|a| {
            let long = match a.to_str() {
                Some("-ngl") => "--n-gpu-layers",
                Some("-ot") => "--override-tensor",
                Some("-sm") => "--split-mode",
                Some("-ts") => "--tensor-split",
                Some("-ncmoe") => "--n-cpu-moe",
                Some("-ub") => "--ubatch-size",
                Some("-cmoe") => "--cpu-moe",
                Some("-mmp") => "--mmap",
                _ => return a,
            };
            std::ffi::OsString::from(long)
        })
        .collect()
}

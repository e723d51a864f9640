//! `kraftwerk plan`: the builds that meet a goal, cheapest first.
//!
//! Exit 0 when at least one build meets the goal, 1 when none does (the binding constraint and
//! what relaxing it would buy are printed), 2 on bad input.

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::estimate::calibrate::MeasuredFile;
use crate::estimate::llm::{Mode, Optimizer};
use crate::plan::goal::{Form, Goal, GoalPrecision, RuntimeChoice};
use crate::plan::model::model_ref;
use crate::plan::owned::{must_have_parts, owned_parts};
use crate::plan::{PlanError, plan_blocking};
use std::path::PathBuf;

/// Form argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormArg {
    /// Desktop tower.
    Tower,
    /// Open frame with risers.
    OpenFrame,
    /// Rack chassis.
    Rack,
}

/// Arguments of `kraftwerk plan`.
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Model preset id (`kraftwerk catalog models`).
    #[arg(long, required_unless_present = "model_file", conflicts_with = "model_file")]
    pub model: Option<String>,
    /// A model file, read as `kraftwerk fit --model-file` reads it (a `.gguf` file, a
    /// safetensors file or folder, `config.json`): the plan runs at the file's precision with
    /// its exact weight bytes unless `--precision` names another. A `.ron` file is a Kraftwerk
    /// parts file holding one entry under `models`.
    #[arg(long)]
    pub model_file: Option<PathBuf>,
    /// Weight precision (int4, q4_k_m, fp8, bf16, ...) or `best` (the best that meets the goal).
    #[arg(long, default_value = "best", value_parser = clap::value_parser!(GoalPrecision))]
    pub precision: GoalPrecision,
    /// Inference runtime: vllm, sglang, tensorrt-llm, llama.cpp, ik_llama.cpp, ktransformers or
    /// exllamav2 (default: the precision's usual runtime, and llama.cpp too for a model released
    /// with MXFP4 experts such as gpt-oss; with `best`, the runtime's precisions).
    /// Training modes take a training runtime: hf-peft, unsloth, axolotl, torchtune,
    /// deepspeed-zero1/2/3[-offload], fsdp, fsdp-offload (default: DDP, else FSDP).
    #[arg(long, value_parser = clap::value_parser!(RuntimeChoice))]
    pub runtime: Option<RuntimeChoice>,
    /// Context per user, tokens (default: the model's native context up to 8192).
    #[arg(long)]
    pub context: Option<u32>,
    /// Concurrent users.
    #[arg(long, default_value_t = 1)]
    pub users: u32,
    /// Decode rate each user must see, tokens/s.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub tok_s: f64,
    /// Prefill rate of one prompt of the context, tokens/s.
    #[arg(long, allow_negative_numbers = true)]
    pub prefill_tok_s: Option<f64>,
    /// inference, lora, qlora or full.
    #[arg(long, default_value = "inference", value_parser = clap::value_parser!(Mode))]
    pub mode: Mode,
    /// Training: optimizer (adamw, adamw-8bit, paged-adamw-8bit, sgd, adafactor; default adamw).
    #[arg(long, value_parser = clap::value_parser!(Optimizer))]
    pub optimizer: Option<Optimizer>,
    /// Training: tokens in the dataset (with --hours: the run must finish in time).
    #[arg(long)]
    pub dataset_tokens: Option<f64>,
    /// Training: passes over the dataset (default 1).
    #[arg(long)]
    pub epochs: Option<f64>,
    /// Training: most hours the run may take over --dataset-tokens x --epochs.
    #[arg(long)]
    pub hours: Option<f64>,
    /// Most the parts may cost, USD.
    #[arg(long, allow_negative_numbers = true)]
    pub budget_usd: Option<f64>,
    /// Mains voltage, V.
    #[arg(long, default_value_t = 120.0, allow_negative_numbers = true)]
    pub mains_v: f64,
    /// Breaker of each circuit, A.
    #[arg(long, default_value_t = 15.0, allow_negative_numbers = true)]
    pub breaker_a: f64,
    /// Independent circuits.
    #[arg(long, default_value_t = 1)]
    pub circuits: usize,
    /// Continuous limit of one outlet, A (default: the power code's figure for the mains).
    #[arg(long, allow_negative_numbers = true)]
    pub outlet_a: Option<f64>,
    /// Machine form (default: any).
    #[arg(long, value_enum)]
    pub form: Option<FormArg>,
    /// Allow used-market cards (P40, V100, RTX 3090 class).
    #[arg(long)]
    pub used: bool,
    /// A part the build must use (repeatable): a board, case, card, CPU, PSU. It is bought
    /// (costs its price); for a part you already have, use --own. A GPU may carry a count,
    /// `--must-have 2x amd-radeon-rx-7900-xtx` (or `2xID`): the machine holds exactly that many
    /// (without one, the fewest that meet the goal, up to --max-gpus).
    #[arg(long = "must-have", value_name = "[Nx] ID", num_args = 1..=2)]
    pub must_have: Vec<String>,
    /// A part you already own, with how many (repeatable; counts of one id add up):
    /// `--own 1x nvidia-geforce-rtx-3090` (a plain `--own ID` is one unit): a GPU chip or
    /// partner card id, board, case, CPU, PSU. The build must use it (unless you own two
    /// different parts of one kind: then either), that many units cost $0 toward the budget and
    /// the total, and more of the same may be bought (new, or used with --used); results mark
    /// the owned units "owned" and `--out` writes them into the build's `owned` list (`"1x id"`).
    #[arg(long = "own", value_name = "[Nx] ID", num_args = 1..=2)]
    pub own: Vec<String>,
    /// Your own measurement of the GPUs you own, read as `kraftwerk fit --measured` reads it
    /// (llama-bench `-o json|jsonl|csv`, `vllm bench serve --save-result` JSON): the builds on
    /// the measured chip, count, runtime and quantization get their decode and prefill scaled
    /// by measured/estimate; the others say "estimate (not your measurement)". Refused when it
    /// names another GPU than a --must-have or --own card.
    #[arg(long, value_name = "FILE")]
    pub measured: Option<PathBuf>,
    /// The GPU the --measured file was measured on, `[Nx]<GPU or card id>` (`nvidia-l40s`,
    /// `4xnvidia-l40s`): required for a file that names no GPU (a `vllm bench serve` run
    /// without `--metadata gpu=...`).
    #[arg(long, requires = "measured", value_name = "GPU_ID")]
    pub measured_gpu: Option<String>,
    /// Most GPUs in one machine.
    #[arg(long, default_value_t = 8)]
    pub max_gpus: u32,
    /// Most results shown.
    #[arg(long, default_value_t = 5)]
    pub max_results: usize,
    /// Save each result as `plan-N.rig.ron` in this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// The goal the arguments describe.
///
/// # Errors
/// An `--own` list [`owned_parts`] or a `--must-have` list [`must_have_parts`] refuses (a
/// count of 0, a count without an id, counts on two parts); a `--runtime` of the wrong kind for `--mode` ([`RuntimeChoice::for_mode`]).
pub fn goal(a: &PlanArgs) -> Result<Goal, PlanError> {
    let (runtime, trainer) = match a.runtime {
        Some(choice) => choice.for_mode(a.mode).map_err(|e| PlanError::BadGoal(e.0))?,
        None => (None, None),
    };
    let (must_have, must_have_count) = must_have_parts(&a.must_have)?;
    Ok(Goal {
        model: model_ref(a.model.as_deref(), a.model_file.as_deref()).unwrap_or(Goal::default().model),
        precision: a.precision,
        runtime,
        trainer,
        context: a.context,
        users: a.users,
        tok_s: a.tok_s,
        prefill_tok_s: a.prefill_tok_s,
        mode: a.mode,
        optimizer: a.optimizer,
        train_tokens: a.dataset_tokens.map(|t| t * a.epochs.unwrap_or(1.0)),
        train_hours: a.hours,
        mains_v: a.mains_v,
        breaker_a: a.breaker_a,
        circuits: a.circuits,
        outlet_a: a.outlet_a,
        budget_usd: a.budget_usd,
        form: a.form.map(|f| match f {
            FormArg::Tower => Form::Tower,
            FormArg::OpenFrame => Form::OpenFrame,
            FormArg::Rack => Form::Rack,
        }),
        used: a.used,
        must_have,
        must_have_count,
        owned: owned_parts(&a.own)?,
        max_gpus: a.max_gpus,
        max_results: a.max_results,
    })
}

/// Runs `kraftwerk plan`.
pub fn run(a: &PlanArgs) -> Result<(), CliError> {
    let catalog = load_catalog()?;
    let goal = goal(a).map_err(|e| bad(e.to_string()).within("plan"))?;
    let measured = match &a.measured {
        Some(path) => {
            let m = MeasuredFile::read(path, a.measured_gpu.clone()).map_err(|e| bad(e).within("plan"))?;
            crate::plan::measured::check(&catalog, &goal, &m).map_err(|e| bad(e.to_string()).within("plan"))?;
            Some(m)
        }
        None => None,
    };
    let mut out = plan_blocking(&catalog, &goal).map_err(|e| bad(e.to_string()).within("plan"))?;
    if let Some(m) = &measured {
        crate::plan::measured::apply(&mut out, &catalog, &goal, m).map_err(|e| bad(e.to_string()).within("plan"))?;
    }
    let mut saved = Vec::new();
    if let Some(dir) = &a.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Err(bad(format!("cannot create {}: {e}", dir.display())).within("plan"));
        }
        for r in &out.results {
            let path = dir.join(format!("plan-{}.rig.ron", r.rank));
            if let Err(e) = crate::rig::save(&path, &r.build) {
                return Err(bad(e.to_string()).within("plan"));
            }
            saved.push(path.display().to_string());
        }
    }
    match a.format {
        Format::Json => print_json(&out)?,
        Format::Text => out!("{}", crate::report::plan::text(&out, &saved)),
    }
    if out.results.is_empty() { Err(CliError::Failed(None)) } else { Ok(()) }
}

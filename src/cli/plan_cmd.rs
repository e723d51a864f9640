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
use crate::plan::owned::owned_parts;
use crate::plan::{PlanError, PlanOutcome, PlanResult, plan_blocking};
use std::fmt::Write as _;
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
    /// exllamav2 (default: the precision's usual runtime; with `best`, the runtime's precisions).
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
    /// (costs its price); for a part you already have, use --own.
    #[arg(long = "must-have", value_name = "ID")]
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
/// An `--own` list [`owned_parts`] refuses (a count of 0, a count without an id); a
/// `--runtime` of the wrong kind for `--mode` ([`RuntimeChoice::for_mode`]).
pub fn goal(a: &PlanArgs) -> Result<Goal, PlanError> {
    let (runtime, trainer) = match a.runtime {
        Some(choice) => choice.for_mode(a.mode).map_err(|e| PlanError::BadGoal(e.0))?,
        None => (None, None),
    };
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
        must_have: a.must_have.clone(),
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
        Format::Text => out!("{}", render_text(&out, &saved)),
    }
    if out.results.is_empty() { Err(CliError::Failed(None)) } else { Ok(()) }
}

fn usd(p: Option<f64>) -> String {
    p.map_or_else(|| "unknown".into(), crate::fmt::usd)
}

/// A part line's price: `used, $800 (GPUDojo, …, 2025-12)` for a used-market price, else the
/// price with its date and, past 12 months, its age (`$1499 (2020-09-24, 74 months old)`).
fn part_price(p: &crate::rig::parts_list::PricedLine, today: (i32, u32, u32)) -> String {
    let Some(x) = p.unit_price_usd else { return format!("{:>9}", "unknown") };
    let date = p.price_date.as_deref().map(|d| crate::catalog::prices::date_note(d, today));
    if p.owned() {
        return "owned, $0".to_owned();
    }
    if p.used() {
        let source = p.price_source.as_deref().unwrap_or_default();
        let source = source.strip_prefix(crate::catalog::cited::USED_PREFIX).unwrap_or(source);
        let source = source.split(" <").next().unwrap_or(source);
        return match date {
            Some(d) => format!("used, {} ({source}, {d})", usd(Some(x))),
            None => format!("used, {} ({source})", usd(Some(x))),
        };
    }
    match date {
        Some(d) => format!("{:>9} ({d})", usd(Some(x))),
        None => format!("{:>9}", usd(Some(x))),
    }
}

fn result_text(s: &mut String, r: &PlanResult) {
    let e = &r.eval;
    let price = if r.price_complete {
        usd(Some(r.price_usd))
    } else {
        format!("at least {} (prices unknown: {})", usd(Some(r.price_usd)), e.unpriced.join(", "))
    };
    let _ = writeln!(s, "\n{}. {} at {}: {price}", r.rank, r.title, r.precision);
    let today = crate::catalog::dates::today_utc();
    for p in &e.parts {
        let _ = writeln!(s, "     {:>2} x {:<52} {}", p.quantity, p.name, part_price(p, today));
    }
    let circuits: Vec<String> =
        e.circuits.iter().enumerate().map(|(i, (a, c))| format!("circuit {}: {a:.1} of {c:.1} A", i + 1)).collect();
    let _ = writeln!(
        s,
        "   power: {:.0} W at the wall at full load ({:.0} W serving); {}; heat {:.0} W",
        e.wall_w,
        e.inference_wall_w,
        circuits.join(", "),
        e.heat_w
    );
    // Each PSU's headroom at full load, against the margin the planner prefers.
    let margin = crate::estimate::power::PSU_RECOMMENDED_HEADROOM_W;
    for (i, (dc, rated)) in e.psu_loads.iter().enumerate() {
        let kept = if rated - dc >= margin { "keeps" } else { "below" };
        let _ = writeln!(
            s,
            "   PSU {}: {dc:.0} W of {rated:.0} W at full load ({:.0} %), {:.0} W headroom: {kept} the {margin:.0} W a PSU vendor recommends (Corsair)",
            i + 1,
            dc / rated.max(1.0) * 100.0,
            rated - dc
        );
    }
    if let Some(cap) = &e.power_cap {
        let _ = writeln!(s, "   power limit: {}", cap.describe());
    }
    let num = |x: Option<f64>, unit: &str| x.map_or_else(|| "unknown".into(), |v| format!("{v:.1} {unit}"));
    // The runtime the result was judged with and is saved for (`workload.runtime`).
    let runtime =
        r.build.workload.as_ref().and_then(|w| w.runtime).map_or_else(|| "runtime unknown".into(), |rt| rt.to_string());
    if let Some(setup) = &e.train_setup {
        let _ = writeln!(
            s,
            "   training ({setup}): {}{}",
            num(e.train_tokens_per_s, "tokens/s"),
            e.train_hours.map_or_else(String::new, |h| format!(", {h:.1} h for the goal's tokens"))
        );
    } else {
        let _ = writeln!(
            s,
            "   speed ({runtime}, {}): decode {} per user ({} in all), prefill {}",
            r.precision,
            num(e.decode_per_user, "tok/s"),
            num(e.decode_total, "tok/s"),
            num(e.prefill, "tok/s")
        );
        for c in &e.speed_caveats {
            let _ = writeln!(s, "   speed caveat: {c}");
        }
    }
    if let Some(m) = &r.measured {
        let _ = writeln!(s, "   speed basis: {}", m.basis);
        if let Some(b) = &m.below_target {
            let _ = writeln!(s, "   warning: {b}");
        }
    }
    if let Some(h) = &e.hybrid {
        let _ = writeln!(
            s,
            "   hybrid CPU+GPU ({} --n-cpu-moe {}): the routed experts of {} layers in system RAM ({:.0} GiB of {:.0} GiB installed), read at {:.0} GB/s ({} channels of {} MT/s)",
            h.runtime,
            h.n_cpu_moe,
            h.cpu_moe_layers,
            h.host_experts_gib,
            h.host_ram_gib,
            h.host_bandwidth_gb_s,
            h.channels,
            h.speed_mt_s
        );
        if let Some(n) = &h.precision_note {
            let _ = writeln!(s, "   precision: {n}");
        }
    }
    let bound = if r.price_complete { "" } else { "at least " };
    let be = e.break_even_months.map_or_else(|| "never".into(), |m| format!("{bound}{m:.1} months"));
    let mtok = e.usd_per_mtok.map_or_else(|| "unknown".into(), |c| format!("{bound}${c:.2}"));
    let _ = writeln!(s, "   cost: {mtok} per million tokens; break-even against {} after {be}", e.cloud);
    if let Some(v) = e.verdict {
        let _ = writeln!(s, "   checker: {v}");
    }
    for w in &e.warnings {
        let _ = writeln!(s, "   warning: {w}");
    }
    for w in &e.not_checked_other {
        let _ = writeln!(s, "   not checked: {w}");
    }
    for w in &e.geometry_unchecked {
        let _ = writeln!(s, "   not checked (geometry): {w}");
    }
    if let Some(v) = &e.verify_with {
        // UNVERIFIED only where the checker says so: one card on a board without positions
        // has nothing to block or gap, so its verdict stands and the line only says what
        // would let the geometry rules run too.
        if e.verdict == Some(crate::check::Verdict::Unverified) {
            let _ = writeln!(s, "   unverified on geometry; what would verify it: {v}");
        } else {
            let _ =
                writeln!(s, "   geometry rules not run (one card: nothing to block or gap); what would run them: {v}");
        }
    }
}

/// The outcome as text.
pub fn render_text(out: &PlanOutcome, saved: &[String]) -> String {
    let mut s = format!("Goal: {}\n", out.goal);
    if out.results.is_empty() {
        s.push_str("\nNothing in the catalog meets this goal.\n");
    } else {
        let _ = writeln!(
            s,
            "{} build{} meet{} the goal (fully priced builds first, then those with every GPU on CPU lanes, then those whose every placement check ran, then builds with priced GPUs; cheapest first within each; \"at least\" leaves out unpriced parts):",
            out.results.len(),
            if out.results.len() == 1 { "" } else { "s" },
            if out.results.len() == 1 { "s" } else { "" }
        );
    }
    for r in &out.results {
        result_text(&mut s, r);
    }
    if !out.rejected.is_empty() {
        s.push_str("\nAlternatives that lost:\n");
        for r in &out.rejected {
            let _ = writeln!(s, "  [{}] {}", r.constraint, r.reason);
        }
    }
    if !out.relaxations.is_empty() {
        let binding: Vec<String> = out.binding.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            s,
            "\nBinding constraint{}: {}",
            if binding.len() == 1 { "" } else { "s" },
            if binding.is_empty() {
                "none alone (relaxing any one constraint finds nothing)".into()
            } else {
                binding.join(", ")
            }
        );
        for r in &out.relaxations {
            let _ = writeln!(s, "  with {}: {}", r.change, r.buys.as_deref().unwrap_or("still nothing"));
        }
    }
    for p in saved {
        let _ = writeln!(s, "saved {p}");
    }
    let _ = writeln!(
        s,
        "\n{} chips, {} fit estimates, {} machines checked, {} passed.",
        out.stats.chips, out.stats.screened, out.stats.checked, out.stats.passing
    );
    if out.cancelled {
        s.push_str("(cancelled: partial answer)\n");
    }
    s
}

//! The planner's only door into `build`, `check` and `estimate` (power, fit, llm, cost): every
//! call into them is in this file (the catalog's part figures are read in [`super::views`]),
//! so that when those APIs change only these files change.
//!
//! The search ([`super::search`]) works on plain views of the parts ([`Parts`]) and hands
//! candidate machines back here as a [`Spec`]; [`make_build`] turns a spec into a real
//! [`Build`], [`judge`] checks it with [`check::run`] and [`estimate`] estimates it with
//! [`fit::for_build`], exactly as `kraftwerk check` and `kraftwerk fit` would ([`evaluate`]
//! does both).
//!
//! Unknown figures: the checker reports a rule it could not fully run as a finding of kind
//! [`FindingKind::NotChecked`] (and in [`check::Coverage`]). [`judge`] sorts them by the parts
//! the rule declares it needs ([`check::Rule::needs`]): a rule that needs the GPUs or the PSUs
//! guards what the goal rests on (the cards fit their slots and case, get their power, the
//! machine stays within the site), so its not-checked findings go to `not_checked` and the
//! search does not propose the machine ([`goal_depends_on`]); the others (CPU cooler, system
//! memory limits) go to `not_checked_other`, shown with the result. A part the build lacks is
//! in `not_checked` too. The estimators add the `None` figures the goal itself depends on
//! (prices when there is a budget, the tensor rate when there is a prefill target).

use super::{Constraint, Goal, ModelRef};
use crate::check::{self, FindingKind, Need, PartKind as CheckedPart, Severity};
use crate::estimate::fit::{self, FitOptions};
use crate::estimate::llm::{self, FitInput, GpuSlot, Mode, Parallelism, Runtime};
use crate::estimate::model_file::{ModelFile, read_model_file};
use crate::estimate::power::{self, LoadState};
use crate::rig::{self, Build, GpuPlacement, MemoryUse, PsuUse, Riser, Site, Workload};
use kraftwerk_catalog::prices::PriceOrigin;
use kraftwerk_catalog::{Catalog, HasId, LlmModel, PartsFile};
use std::path::Path;

pub use super::views::{
    BoardView, CardView, CaseView, CoolerView, CpuView, FormFactor, KitView, MemoryType, Parts, PsuView, SlotView,
    card_class, part_kind, parts, used_market,
};
pub use crate::check::PartRef;
pub use crate::estimate::llm::Precision;
pub use crate::rig::BuildError;

/// Sustained PSU load guideline the checker sizes PSUs by (fraction of rating).
pub const PSU_GUIDELINE: f64 = power::PSU_SUSTAINED_GUIDELINE;

// ------------------------------------------------------------------------------ the model

/// The model to plan for: a catalog preset, or one read from a model file (then written
/// inline into every planned build so that the build file stands alone).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    inner: LlmModel,
    /// The file it was read from by [`read_model_file`] (GGUF, safetensors folder): its exact
    /// weight bytes, precision and runtime go to the fit code as `kraftwerk fit --model-file`
    /// passes them.
    file: Option<Box<ModelFile>>,
    /// Read from a Kraftwerk parts file (RON) rather than a catalog preset.
    from_parts_file: bool,
}

impl Model {
    /// Model id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }
    /// Vendor and name.
    pub fn name(&self) -> String {
        self.inner.display_name()
    }
    /// The model's shape as the estimators read it.
    pub fn llm(&self) -> &LlmModel {
        &self.inner
    }
    /// Native context, tokens.
    pub fn max_context(&self) -> u32 {
        self.inner.max_context
    }
    /// The precision of the model file's weights (`Q4_K_M` for such a GGUF), if read from one.
    pub fn file_precision(&self) -> Option<Precision> {
        self.file.as_ref().map(|f| f.precision)
    }
    /// Whether it is a mixture of experts (fewer active than total parameters).
    pub fn is_moe(&self) -> bool {
        self.inner.active_params_b.is_some_and(|a| a < self.inner.params_b)
    }
    /// Whether the model goes inline into planned builds (it is not a catalog preset).
    fn inline(&self) -> bool {
        self.file.is_some() || self.from_parts_file
    }
}

/// Looks the goal's model up: a preset id in the catalog, or a file.
///
/// A model file is read by [`read_model_file`] (a `.gguf` file, a safetensors file or folder,
/// `config.json`, `model.safetensors.index.json`), the reader `kraftwerk fit --model-file` uses.
/// A `.ron` file is a Kraftwerk parts file holding exactly one entry under `models` (the schema
/// of `catalog/models.ron`), for a model typed in by hand.
///
/// # Errors
/// A message naming the id or the file and what is wrong.
pub fn resolve_model(catalog: &Catalog, model: &ModelRef) -> Result<Model, String> {
    match model {
        ModelRef::Preset(id) => catalog
            .model(id)
            .cloned()
            .map(|m| Model { inner: m, file: None, from_parts_file: false })
            .ok_or_else(|| format!("unknown model `{id}` (see `kraftwerk catalog models`)")),
        ModelRef::File(path) if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron")) => {
            let shown = path.display().to_string();
            let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
            if meta.len() > rig::file::MAX_FILE_BYTES {
                return Err(format!("{shown}: larger than {} bytes", rig::file::MAX_FILE_BYTES));
            }
            let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
            let file = kraftwerk_catalog::parse_parts_file(&shown, &text).map_err(|e| e.to_string())?;
            match file.models.len() {
                1 => Ok(Model {
                    inner: file.models.into_iter().next().ok_or("no model")?,
                    file: None,
                    from_parts_file: true,
                }),
                n => Err(format!("{shown}: a model file holds exactly one entry under `models`, found {n}")),
            }
        }
        ModelRef::File(path) => {
            let f = read_model_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(Model { inner: f.model.clone(), file: Some(Box::new(f)), from_parts_file: false })
        }
    }
}

/// Parses a precision name (`int4`, `q4_k_m`, `fp8`, `4.5bpw`, ...).
///
/// # Errors
/// The fit code's message listing the accepted names.
pub fn parse_precision(s: &str) -> Result<Precision, String> {
    s.parse::<Precision>().map_err(|e| e.0)
}

/// Parses a runtime name (`vllm`, `sglang`, `tensorrt-llm`, `llama.cpp`, ...).
///
/// # Errors
/// The fit code's message listing the accepted names.
pub fn parse_runtime(s: &str) -> Result<Runtime, String> {
    s.parse::<Runtime>().map_err(|e| e.0)
}

/// Parses a mode name (`inference`, `lora`, `qlora`, `full`).
///
/// # Errors
/// The fit code's message listing the accepted names.
pub fn check_mode(s: &str) -> Result<(), String> {
    s.parse::<Mode>().map(|_| ()).map_err(|e| e.0)
}

/// Precisions "best that fits" tries, best quality first (16-bit, 8-bit, then GGUF K-quants
/// down to 4 bits).
pub fn best_precisions() -> Vec<Precision> {
    vec![
        Precision::Bf16,
        Precision::Fp8,
        Precision::Q8_0,
        Precision::Q6_K,
        Precision::Q5_K_M,
        Precision::Q4_K_M,
        Precision::Int4,
    ]
}

/// Weights alone at `precision`, GiB ([`llm::weight_gib`]): a lower bound on the memory any
/// set of GPUs needs.
pub fn weights_gib(model: &Model, precision: Precision) -> f64 {
    match &model.file {
        Some(f) if f.precision == precision => f.weights.total as f64 / llm::GIB,
        _ => llm::weight_gib(&model.inner, precision),
    }
}

/// The weights a goal's run holds in all, GiB, for the search's lower bound: [`weights_gib`],
/// except QLoRA's NF4 base ([`llm::NF4_BITS`] per weight: less than the precision named).
pub fn goal_weights_gib(model: &Model, goal: &Goal, precision: Precision) -> f64 {
    if goal.mode.parse::<Mode>().is_ok_and(|m| m == Mode::Qlora) {
        llm::weight_gib(&model.inner, Precision::Bpw(llm::NF4_BITS))
    } else {
        weights_gib(model, precision)
    }
}

// ------------------------------------------------------------------------------ screening

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
    pub parallelism: String,
    /// Why vLLM would refuse to start, when the runtime judged with ([`runtime_for`]) is vLLM
    /// and its KV pool cannot hold one sequence of the context (`vLLM's KV pool holds 1,234 tokens, less than one
    /// sequence of 131,072`); `None` otherwise.
    pub kv_pool_short: Option<String>,
    /// Training: tokens per second over the cards ([`llm::train`]); `None` for inference or
    /// where unknown.
    pub train_tokens_per_s: Option<f64>,
}

/// The fit code's default parallelism for `n` GPUs of one node (as [`fit::input_for`] picks
/// it for a build whose workload names no parallelism).
fn default_parallelism(n: u32, precision: Precision, runtime: Runtime) -> Parallelism {
    if n == 1 {
        Parallelism::Single
    } else if precision.is_gguf() || runtime.is_llama_cpp_family() || !n.is_power_of_two() {
        Parallelism::LayerSplit(n)
    } else {
        Parallelism::TensorParallel(n)
    }
}

/// The runtime the planner judges a candidate at `precision` with, and writes into its build
/// ([`make_build`]): the goal's `--runtime`, else the model file's (when the file holds the
/// weights at this precision, as `kraftwerk fit --model-file` takes it), else the precision's
/// usual one ([`Runtime::default_for`]: vLLM for int4/AWQ, FP8 and 16-bit weights, llama.cpp
/// for GGUF, ExLlamaV2 for bits per weight). `kraftwerk fit` on the saved build resolves the
/// same runtime, so the planner and `fit` give one verdict.
///
/// # Errors
/// The goal's runtime name does not parse.
pub fn runtime_for(model: &Model, goal: &Goal, precision: Precision) -> Result<Runtime, String> {
    // A training goal's runtime is a training framework ([`train_settings`]); no inference
    // runtime judges it, and none is written into its build.
    if goal.is_training() {
        return Ok(Runtime::default_for(precision));
    }
    if let Some(rt) = goal.runtime.as_deref() {
        return parse_runtime(rt);
    }
    Ok(model
        .file
        .as_ref()
        .filter(|f| f.precision == precision)
        .map_or_else(|| Runtime::default_for(precision), |f| f.runtime))
}

fn fit_input(model: &Model, goal: &Goal, precision: Precision, n: u32) -> Result<FitInput, String> {
    let mut input = FitInput::new(model.inner.clone(), precision);
    input.mode = goal.mode.parse::<Mode>().map_err(|e| e.0)?;
    input.context_tokens = goal.context_tokens(model).max(1);
    input.batch = goal.users.max(1);
    // The runtime's own verdict, as `kraftwerk fit` gives it on the saved build (vLLM's: its
    // KV pool must hold one sequence of the context).
    let runtime = runtime_for(model, goal, precision)?;
    input.runtime = Some(runtime);
    input.parallelism = default_parallelism(n, precision, runtime);
    if let Some(f) = model.file.as_ref().filter(|f| f.precision == precision) {
        // As `fit::input_for` does for `kraftwerk fit --model-file`.
        input.file_weights = Some(f.weights);
    }
    if input.mode.is_training() {
        input.runtime = None;
        let t = train_settings(goal)?;
        input.trainer = t.trainer;
        input.zero_stage = t.zero_stage;
        input.cpu_offload = t.cpu_offload;
        input.optimizer = t.optimizer;
        input.gradient_checkpointing = true;
        input.train_plan.dataset_tokens = goal.train_tokens;
    }
    Ok(input)
}

/// A training goal's framework, ZeRO stage, offload and optimizer, as `kraftwerk fit` takes
/// them from `--runtime` and `--optimizer`.
pub struct TrainSettings {
    /// The framework (`None`: the default, Transformers + PEFT or FSDP where DDP does not fit).
    pub trainer: Option<llm::Trainer>,
    /// ZeRO stage.
    pub zero_stage: u8,
    /// CPU offload.
    pub cpu_offload: bool,
    /// Optimizer.
    pub optimizer: llm::Optimizer,
}

/// The training settings of `goal` ([`TrainSettings`]).
///
/// # Errors
/// A runtime or optimizer name that does not parse.
pub fn train_settings(goal: &Goal) -> Result<TrainSettings, String> {
    let (trainer, zero_stage, cpu_offload) = match goal.runtime.as_deref() {
        Some(rt) => {
            let (t, z, o) = llm::parse_training_runtime(rt).map_err(|e| e.0)?;
            (Some(t), z.unwrap_or(0), o)
        }
        None => (None, 0, false),
    };
    let optimizer = match goal.optimizer.as_deref() {
        Some(o) => o.parse::<llm::Optimizer>().map_err(|e| e.0)?,
        None => llm::Optimizer::AdamW,
    };
    Ok(TrainSettings { trainer, zero_stage, cpu_offload, optimizer })
}

/// Screens `n` copies of the card through [`llm::estimate`] (native links; the real slots are
/// judged later by [`evaluate`]).
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
    let (gpu, input, slots) = card_input(catalog, model, goal, card, n, precision)?;
    let r = llm::estimate(&input, &slots).map_err(|e| e.to_string())?;
    let worst = r.gpus.iter().map(|g| g.memory.required_gib).fold(0.0, f64::max);
    let train_tokens_per_s = r.training.as_ref().and_then(|t| t.speed.as_ref()).map(|s| s.tokens_per_s);
    Ok(Screen {
        // A tight fit below the goal's context is no answer: `kraftwerk fit` calls it not a
        // pass (issue 39), so the planner does too.
        fits: r.verdict != llm::FitVerdict::DoesNotFit && r.short_of_headroom().is_none(),
        required_gib: worst,
        capacity_gib: gpu.memory_gib,
        decode_per_user: r.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s),
        prefill: r.speed.as_ref().and_then(|s| s.prefill_tokens_per_s),
        parallelism: r.parallelism.to_string(),
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
    })
}

/// Why the runtime the planner judges `precision` with ([`runtime_for`]) cannot be proposed on
/// the card, by the runtime's own requirements ([`llm::support`]): it does not run there
/// ([`Constraint::Runtime`]), or the catalog lacks the figure the requirement is stated in
/// ([`Constraint::Unknown`]: an AMD chip without its `gfx` target under vLLM). `None` when it
/// runs, when the runtime publishes no requirement (said with the result), and for training
/// (the inference runtimes do not train).
pub fn runtime_refusal(
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
    let runtime = runtime_for(model, goal, precision).ok()?;
    match llm::support::support(runtime, gpu) {
        llm::support::Support::DoesNotRun(why) => Some((Constraint::Runtime, why)),
        llm::support::Support::NotChecked(why) => Some((Constraint::Unknown, why)),
        llm::support::Support::Runs | llm::support::Support::Unpublished(_) => None,
    }
}

/// Expert weights a hybrid CPU+GPU split of the model on `n` copies of the card puts in system
/// RAM, GiB ([`llm::search::llama_cpp_moe_offload`]); `None` for a dense model, when the GPUs
/// hold it all, or when not even its non-expert part fits them.
pub fn hybrid_host_gib(
    catalog: &Catalog,
    model: &Model,
    goal: &Goal,
    card: &CardView,
    n: u32,
    precision: Precision,
) -> Option<f64> {
    let (_, input, slots) = card_input(catalog, model, goal, card, n, precision).ok()?;
    llm::search::llama_cpp_moe_offload(&input, &slots, None).map(|o| o.host_experts_gib)
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
    let mut input = fit_input(model, goal, precision, n)?;
    let slots = vec![GpuSlot::new(gpu.clone()); n as usize];
    // Training: DDP, else FSDP, else FSDP with offload, as `kraftwerk fit` picks it.
    if input.mode.is_training() && goal.runtime.is_none() {
        llm::train::choose_parallelism(&mut input, &slots);
    } else if input.mode.is_training() {
        input.parallelism = if n > 1 { llm::Parallelism::DataParallel(n) } else { llm::Parallelism::Single };
    }
    Ok((gpu, input, slots))
}

/// Full-load DC power of `n` cards alone, W ([`power::estimate`] on a build holding only
/// them), and what the site's circuits carry continuously, W. Any build with these cards draws
/// at least this much at the wall.
pub fn gpus_alone_w(catalog: &Catalog, goal: &Goal, card: &CardView, n: u32) -> (f64, f64) {
    let mut b = Build { site: site_of(goal), ..Build::default() };
    b.gpus = (0..n).map(|_| placement(card, None, None, 0)).collect();
    let r = b.resolve(catalog);
    let est = power::estimate(&r, LoadState::Training);
    let gpu_w: f64 =
        est.components.iter().filter(|c| matches!(c.component, power::Component::Gpu(_))).map(|c| c.power_w).sum();
    let circuits = goal.circuits.max(1) as f64;
    (gpu_w, power::continuous_a(&b) * b.site.mains_v * circuits)
}

/// Full-load DC power of a build (the PSUs it names, if any, are not counted), W, for sizing
/// its PSUs.
pub fn dc_load_w(build: &Build, catalog: &Catalog) -> f64 {
    power::estimate(&build.resolve(catalog), LoadState::Training).total_dc_w
}

/// The parts a search has proposed so far, copied from the catalog: a small catalog that
/// resolves a candidate's ids exactly as the whole one does (same parts, same figures), so the
/// checker and the estimators look parts up among dozens rather than thousands. It holds
/// every GPU chip (the fit code compares with a cloud A100) and every model preset.
#[derive(Debug, Clone)]
pub struct Working(Catalog);

fn put_sorted<T: HasId + Clone>(list: &mut Vec<T>, from: Option<&T>) {
    if let Some(p) = from
        && let Err(i) = list.binary_search_by(|x| x.id().cmp(p.id()))
    {
        list.insert(i, p.clone());
    }
}

impl Working {
    /// The chips and models of `catalog`, no other part yet.
    pub fn new(catalog: &Catalog) -> Self {
        Working(Catalog { gpus: catalog.gpus.clone(), models: catalog.models.clone(), ..Catalog::default() })
    }

    /// The small catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.0
    }

    /// Adds the GPU card `id` (a partner card; chips are all there).
    pub fn add_card(&mut self, catalog: &Catalog, id: &str) {
        if self.0.gpu(id).is_none() {
            let i = catalog.card_gpus.binary_search_by(|g| g.id.as_str().cmp(id)).ok();
            put_sorted(&mut self.0.card_gpus, i.and_then(|i| catalog.card_gpus.get(i)));
        }
    }

    /// Adds every part `spec` names (catalog indices).
    pub fn add_spec(&mut self, catalog: &Catalog, spec: &Spec) {
        self.add_card(catalog, &spec.gpu);
        put_sorted(&mut self.0.motherboards, catalog.motherboards.get(spec.board));
        put_sorted(&mut self.0.cpus, catalog.cpus.get(spec.cpu));
        put_sorted(&mut self.0.coolers, catalog.coolers.get(spec.cooler));
        put_sorted(&mut self.0.cases, catalog.cases.get(spec.case));
        put_sorted(&mut self.0.memory, catalog.memory.get(spec.kit.0));
        for &(p, _) in &spec.psus {
            put_sorted(&mut self.0.psus, catalog.psus.get(p));
        }
    }
}

// ------------------------------------------------------------------------------ builds

/// A candidate machine, as indices into [`Parts`] lists (catalog order).
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The card (`Parts::cards` index).
    pub card: usize,
    /// Its id (a chip's reference design or a partner card).
    pub gpu: String,
    /// Card placements: slot key ([`crate::plan::views::SlotView::position`]: the position,
    /// or on a board without positions the slot's place in its list, placed by name), riser
    /// generation (open frame), PSU index.
    pub placements: Vec<(u8, Option<u8>, usize)>,
    /// Board, CPU, cooler, case, memory kit (catalog indices) and kit count.
    pub board: usize,
    /// CPU.
    pub cpu: usize,
    /// Cooler.
    pub cooler: usize,
    /// Case.
    pub case: usize,
    /// Memory kit and count.
    pub kit: (usize, u8),
    /// PSUs and the circuit each is plugged into.
    pub psus: Vec<(usize, usize)>,
    /// Precision the workload runs at.
    pub precision: Precision,
}

fn site_of(goal: &Goal) -> Site {
    Site {
        mains_v: goal.mains_v,
        circuit_a: goal.breaker_a,
        circuits: goal.circuits.max(1),
        outlet_continuous_a: goal.outlet_a,
        ..Site::default()
    }
}

fn placement(card: &CardView, slot: Option<u8>, riser: Option<u8>, psu: usize) -> GpuPlacement {
    GpuPlacement {
        gpu: card.id.clone(),
        slot,
        slot_name: None,
        power_limit_w: None,
        riser: riser.map(|g| Riser { pcie_gen: g, length_mm: None }),
        psu,
        cable: None,
    }
}

/// The slot a placement's key names on `board`: by position where the board's positions are
/// known, else by place in its slot list (from 1).
pub fn slot_by_key(board: Option<&kraftwerk_catalog::Motherboard>, key: u8) -> Option<&kraftwerk_catalog::PcieSlot> {
    let b = board?;
    if b.slot_positions_known() { b.slot_at(key) } else { b.pcie_slots.get(usize::from(key).checked_sub(1)?) }
}

/// The [`Build`] a spec describes, with the goal's site and workload.
pub fn make_build(catalog: &Catalog, goal: &Goal, model: &Model, spec: &Spec, name: &str) -> Build {
    let board = catalog.motherboards.get(spec.board);
    let gpus = catalog.gpu_or_card(&spec.gpu).map_or_else(Vec::new, |g| {
        spec.placements
            .iter()
            .map(|&(slot, riser, psu)| GpuPlacement {
                gpu: g.id.clone(),
                slot: board.is_none_or(kraftwerk_catalog::Motherboard::slot_positions_known).then_some(slot),
                slot_name: slot_by_key(board, slot)
                    .filter(|_| board.is_some_and(|b| !b.slot_positions_known()))
                    .map(|s| s.name.clone()),
                power_limit_w: None,
                riser: riser.map(|g| Riser { pcie_gen: g, length_mm: None }),
                psu,
                cable: None,
            })
            .collect()
    });
    let mut parts = PartsFile::default();
    if model.inline() {
        parts.models.push(model.inner.clone());
    }
    let mut build = Build {
        name: name.to_owned(),
        cpu: catalog.cpus.get(spec.cpu).map(|c| c.id.clone()),
        motherboard: catalog.motherboards.get(spec.board).map(|b| b.id.clone()),
        cooler: catalog.coolers.get(spec.cooler).map(|c| c.id.clone()),
        case: catalog.cases.get(spec.case).map(|c| c.id.clone()),
        memory: catalog.memory.get(spec.kit.0).map(|k| MemoryUse { kit: k.id.clone(), kits: spec.kit.1 }),
        gpus,
        psus: spec
            .psus
            .iter()
            .enumerate()
            .filter_map(|(i, &(p, circuit))| {
                catalog.psus.get(p).map(|p| PsuUse {
                    psu: p.id.clone(),
                    feeds_system: (i == 0).then_some(true),
                    circuit,
                })
            })
            .collect(),
        site: site_of(goal),
        workload: Some(Workload {
            model: model.inner.id.clone(),
            precision: spec.precision,
            context: goal.context_tokens(model),
            batch: goal.users.max(1),
            // The search refused a goal whose mode does not parse before any build was made.
            mode: goal.mode.parse().unwrap_or_default(),
            // Training is planned with gradient checkpointing on, as every framework's recipes run.
            gradient_checkpointing: goal.is_training(),
            parallel: None,
            nodes: None,
            interconnect: None,
            // The runtime every candidate was judged with, so that `kraftwerk fit` on the saved
            // build judges it the same way (the search refused an unparsable runtime first).
            runtime: runtime_for(model, goal, spec.precision).ok().filter(|_| !goal.is_training()),
        }),
        parts,
        notes: Some(format!("Planned by `kraftwerk plan` for: {}", goal.describe(model))),
        ..Build::default()
    };
    // The units the user owns of the parts it uses, by count: the fit's cost prices them at $0
    // and the others of the same id at their price (`Build::owned_count`).
    let uses = |id: &str| {
        build.gpus.iter().any(|g| g.gpu == id)
            || build.psus.iter().any(|p| p.psu == id)
            || [&build.cpu, &build.motherboard, &build.cooler, &build.case].iter().any(|x| x.as_deref() == Some(id))
            || build.memory.as_ref().is_some_and(|m| m.kit == id)
    };
    build.owned = goal.owned.iter().filter(|o| uses(&o.id)).map(|o| format!("{}x {}", o.count, o.id)).collect();
    build
}

/// One priced line of a result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PartLine {
    /// Catalog id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// Unit price, USD; `None` = unknown.
    pub unit_price_usd: Option<f64>,
    /// Date of the price (`YYYY-MM[-DD]`), when priced and dated.
    pub price_date: Option<String>,
    /// Where the price comes from (`price_source`: the street import's label, `launch MSRP: …`,
    /// `used: …`, `user price file`); `None` for a curated price (the part's own source).
    pub price_source: Option<String>,
    /// The price is a used-market price (`plan --used`).
    pub used: bool,
    /// The user owns the part (`plan --own`): it costs $0.
    pub owned: bool,
}

/// A hybrid CPU+GPU split of a MoE model ([`Evaluation::hybrid`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hybrid {
    /// `--n-cpu-moe N`: the routed experts of layers `0..N` stay in system RAM.
    pub n_cpu_moe: u32,
    /// Layers whose routed experts stay in system RAM (`N` less the dense layers below it).
    pub cpu_moe_layers: u32,
    /// Prefill of the split, tokens/s ([`crate::estimate::llm::search::MoeOffload::prefill_tokens_per_s`]);
    /// `None` when unknown.
    pub prefill_tokens_per_s: Option<f64>,
    /// Expert weights in system RAM, GiB.
    pub host_experts_gib: f64,
    /// System RAM installed, GiB.
    pub host_ram_gib: f64,
    /// Memory channels the CPU reads them over, and the kit's data rate, MT/s.
    pub channels: u32,
    /// Data rate the memory runs at, MT/s: the kit's rating capped by the CPU's rated speed
    /// ([`fit::ram_speed`]).
    pub speed_mt_s: u32,
    /// Theoretical system-RAM bandwidth, GB/s (channels × MT/s × 8 bytes).
    pub host_bandwidth_gb_s: f64,
    /// Decode at batch 1, tokens/s.
    pub decode_tokens_per_s: f64,
    /// The runtime that runs the split (llama.cpp or a fork: `--n-cpu-moe`), as saved in the
    /// build's workload.
    pub runtime: Runtime,
    /// Why the split runs at another precision than the goal asked for
    /// ([`hybrid_precisions`]: a GGUF quant for llama.cpp); `None` when it is the one asked for.
    pub precision_note: Option<String>,
}

/// What [`evaluate`] found out about a build.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Evaluation {
    /// The checker's verdict on the build (`check::run`); `None` before it is judged.
    pub verdict: Option<check::Verdict>,
    /// Error findings of `check::run`, one line each (`rule: message`).
    pub errors: Vec<String>,
    /// Warning findings.
    pub warnings: Vec<String>,
    /// Figures the goal depends on that are unknown, in words ([`goal_depends_on`]).
    pub not_checked: Vec<String>,
    /// Other rules the checker could not fully run (a figure unknown), in words.
    pub not_checked_other: Vec<String>,
    /// On a board wired without slot positions: the geometry rules ([`GEOMETRY_RULES`]) that
    /// said not checked, in words. Such a build's verdict is UNVERIFIED (issue 27's rule); the
    /// planner keeps it as an answer, ranked after a build whose placement checks all ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub geometry_unchecked: Vec<String>,
    /// The figure that would verify a build in `geometry_unchecked`: `slot positions of
    /// <board>: enter them in the Build tab's slot editor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_with: Option<String>,
    /// Parts with prices.
    pub parts: Vec<PartLine>,
    /// Sum of the known prices, USD.
    pub known_price_usd: f64,
    /// Ids of parts without a price (plus risers, which the catalog does not list).
    pub unpriced: Vec<String>,
    /// Full-load wall power, W (what the checker sizes PSUs and circuits by).
    pub wall_w: f64,
    /// Wall power while serving, W.
    pub inference_wall_w: f64,
    /// Heat into the room at full load, W.
    pub heat_w: f64,
    /// Per circuit: amps at full load and the continuous limit.
    pub circuits: Vec<(f64, f64)>,
    /// Per PSU: DC load at full load and its rating, W (the headroom is their difference;
    /// [`power::PSU_RECOMMENDED_HEADROOM_W`] is the margin the planner prefers).
    pub psu_loads: Vec<(f64, f64)>,
    /// Decode rate per user, tokens/s (from the fit on the real slots).
    pub decode_per_user: Option<f64>,
    /// Aggregate decode rate, tokens/s.
    pub decode_total: Option<f64>,
    /// Prefill rate, tokens/s.
    pub prefill: Option<f64>,
    /// Training: the framework and its sharding ("fsdp (FSDP full shard over 2 GPUs, CPU
    /// offload)"); `None` for inference.
    pub train_setup: Option<String>,
    /// Training: tokens per second over all GPUs; `None` for inference or where unknown.
    pub train_tokens_per_s: Option<f64>,
    /// Training: hours for the goal's tokens; `None` without them.
    pub train_hours: Option<f64>,
    /// Why the speed figures are unvalidated on this build's GPUs (a maker no held speed row was
    /// measured on: [`llm::basis::not_measured_on`]); printed wherever the speed is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speed_caveats: Vec<String>,
    /// The memory fit verdict says it fits.
    pub fits: bool,
    /// USD per million tokens (hardware over 3 years and electricity).
    pub usd_per_mtok: Option<f64>,
    /// Months after which owning beats renting the cloud reference.
    pub break_even_months: Option<f64>,
    /// The cloud reference (`A100 80 GB at $1.60/h`).
    pub cloud: String,
    /// The power advice's common GPU limit, W, when the build is over its PSU or circuit.
    pub advised_limit_w: Option<f64>,
    /// The power limit the plan sets on every GPU ([`power_cap`]): full load at the cards'
    /// default limits was over a PSU, a PSU's 1 ms peak or the circuit; `None` when the cards run
    /// at their default limits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cap: Option<PowerCap>,
    /// A MoE model too large for the GPUs, run as a hybrid CPU+GPU split (llama.cpp
    /// `--n-cpu-moe`): its routed experts in system RAM, as `kraftwerk fit` estimates it
    /// ([`fit::BuildFit::fits_with_experts_in_ram`], bounded by the build's RAM). `fits` stays
    /// `false` (the GPUs alone do not hold it); speed and cost are those of the split.
    pub hybrid: Option<Hybrid>,
    /// Parts the error findings concern (the search moves on from the part to blame).
    #[serde(skip)]
    pub error_parts: Vec<PartRef>,
    /// Parts the not-checked findings concern (whose figure is unknown).
    #[serde(skip)]
    pub unknown_parts: Vec<PartRef>,
}

/// A power limit planned on every GPU ([`Evaluation::power_cap`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PowerCap {
    /// The limit on each GPU, W (a multiple of [`power::LIMIT_STEP_W`], within every card's
    /// settable range: [`power::power_limit_to_fit`]).
    pub limit_w: f64,
    /// Fraction of throughput kept at it, the lowest over the GPUs ([`power::throughput_kept`],
    /// fitted to Puget Systems' quad RTX 3090 measurement); the plan's decode and prefill are
    /// multiplied by it.
    pub throughput_kept: f64,
    /// How to set it: `sudo nvidia-smi -pl 280` where every GPU is an NVIDIA chip (NVIDIA System
    /// Management Interface, `-pl, --power-limit`; without `-i` it applies to every GPU), else
    /// words naming the vendor's tool.
    pub command: String,
    /// What full load at the default limits was over, in words.
    pub why: String,
}

impl PowerCap {
    /// The cap in one line, as the plan text and the Plan tab say it: `cap each GPU at 280 W
    /// (sudo nvidia-smi -pl 280): -4 % decode and prefill (power-limit curve); at the default
    /// limits: <why>`.
    pub fn describe(&self) -> String {
        format!(
            "cap each GPU at {:.0} W ({}): -{:.0} % decode and prefill (power-limit curve); at the default limits: {}",
            self.limit_w,
            self.command,
            (1.0 - self.throughput_kept) * 100.0,
            self.why
        )
    }
}

/// Whether PSU `psu` (catalog index) of `rated_w` rides through the 1 ms and longer peaks of
/// `cards` GPUs of `gpu_w` power limit each beside `other_w` of sustained load, as the
/// `psu-transient` rule judges a unit ([`power::GPU_TRANSIENT_FACTOR`] over the limit; the ATX
/// 3.x excursion table [`power::excursion_limits`] where the unit has one, else its rating at
/// 1 ms): the planner sizes PSU sets by it so that it proposes none the rule would flag.
pub fn psu_rides_peaks(catalog: &Catalog, psu: usize, rated_w: f64, other_w: f64, gpu_w: f64, cards: usize) -> bool {
    let Some(p) = catalog.psus.get(psu) else { return true };
    if cards == 0 {
        return true;
    }
    let peak = |k: usize| other_w + gpu_w * cards as f64 * power::GPU_TRANSIENT_FACTOR[k];
    match power::excursion_limits(p) {
        Some(lim) => (power::TRANSIENT_1MS..lim.len()).all(|k| peak(k) <= lim[k] * rated_w + 1e-9),
        None => peak(power::TRANSIENT_1MS) <= rated_w + 1e-9,
    }
}

/// Whether every PSU rides through its GPUs' peaks as the `psu-transient` rule judges them
/// (an error or warning there is a machine the planner does not propose): a unit with the ATX
/// 3.x excursion table within its limit at 1 ms and longer; a unit without one (ATX 2.x,
/// server) with its 1 ms peak within its rating.
pub fn transients_within(e: &power::PowerEstimate) -> bool {
    e.psus.iter().all(|p| {
        let table = p.transients.iter().any(|t| t.limit_w.is_some());
        p.transients.iter().enumerate().all(|(k, t)| match t.limit_w {
            Some(l) => k < power::TRANSIENT_1MS || t.peak_w <= l + 1e-9,
            None => table || k != power::TRANSIENT_1MS || t.peak_w <= p.rated_w + 1e-9,
        })
    })
}

/// The highest common GPU power limit, W ([`power::power_limit_to_fit`], the search `check`'s
/// advice uses), at which `build` keeps every PSU within its sustained guideline, every circuit
/// within its continuous limit ([`power::within_limits`]) and every PSU through its 1 ms peak
/// ([`transients_within`]); `None` when the build has no GPUs, none fits within the cards'
/// ranges, or the cards fit at their default limits already.
pub fn cap_limit_w(build: &Build, catalog: &Catalog) -> Option<f64> {
    let r = build.resolve(catalog);
    let fit = power::power_limit_to_fit(&r, |e| power::within_limits(e) && transients_within(e))?;
    let below = r.gpus.iter().flatten().any(|g| fit.limit_w < g.board_power_w);
    below.then_some(fit.limit_w)
}

/// What full load at the cards' default limits is over, in words: a PSU over its sustained
/// guideline, a PSU's 1 ms (or longer) peak over its excursion limit or, without one, its
/// rating, or a circuit over its continuous limit; `None` when nothing is.
fn over_at_default(e: &power::PowerEstimate) -> Option<String> {
    for p in &e.psus {
        if p.load_fraction > power::PSU_SUSTAINED_GUIDELINE + 1e-9 {
            return Some(format!(
                "PSU {} carries {:.0} W, {:.0} % of its {:.0} W rating (guideline {:.0} %)",
                p.index + 1,
                p.dc_w,
                p.load_fraction * 100.0,
                p.rated_w,
                power::PSU_SUSTAINED_GUIDELINE * 100.0
            ));
        }
        let table = p.transients.iter().any(|t| t.limit_w.is_some());
        for (k, t) in p.transients.iter().enumerate().skip(power::TRANSIENT_1MS) {
            let (limit, what) = match t.limit_w {
                Some(l) => (l, "ATX 3.x excursion limit"),
                None if !table && k == power::TRANSIENT_1MS => {
                    (p.rated_w, "rating (no ATX 3.x excursion specification)")
                }
                None => continue,
            };
            if t.peak_w > limit + 1e-9 {
                return Some(format!(
                    "PSU {}'s peak of about {:.0} W for {:.0} ms is over its {limit:.0} W {what}",
                    p.index + 1,
                    t.peak_w,
                    t.duration_s * 1e3
                ));
            }
        }
    }
    e.circuits.iter().find(|c| c.amps > c.continuous_a + 1e-9).map(|c| {
        format!("circuit {} draws {:.1} A, over its {:.1} A continuous limit", c.index + 1, c.amps, c.continuous_a)
    })
}

/// The power limit a build sets on its GPUs, read as a plan's cap: every GPU at the same
/// `power_limit_w` below some card's default board power; with its throughput cost
/// ([`power::throughput_kept`]), its command and what the build at default limits is over.
/// `None` for a build whose GPUs run at their default limits.
pub fn planned_cap(build: &Build, catalog: &Catalog) -> Option<PowerCap> {
    let limit = build.gpus.first()?.power_limit_w?;
    if build.gpus.iter().any(|g| g.power_limit_w != Some(limit)) {
        return None;
    }
    let r = build.resolve(catalog);
    let gpus: Vec<&kraftwerk_catalog::Gpu> = r.gpus.iter().flatten().copied().collect();
    if gpus.is_empty() || gpus.iter().all(|g| limit >= g.board_power_w) {
        return None;
    }
    let kept = gpus.iter().map(|g| power::throughput_kept(g, limit.min(g.board_power_w))).fold(1.0_f64, f64::min);
    let nvidia = gpus.iter().all(|g| g.compute_capability.is_some() || g.vendor.eq_ignore_ascii_case("nvidia"));
    let command = if nvidia {
        format!("sudo nvidia-smi -pl {limit:.0}")
    } else {
        format!("each GPU's power limit set to {limit:.0} W with its vendor's tool")
    };
    let mut open = build.clone();
    for g in &mut open.gpus {
        g.power_limit_w = None;
    }
    let full = power::estimate(&open.resolve(catalog), LoadState::Training);
    let why = over_at_default(&full).unwrap_or_else(|| "nothing (the cap is the build's own)".to_owned());
    Some(PowerCap { limit_w: limit, throughput_kept: kept, command, why })
}

/// Judges a build with [`check::run`] ([`judge`]) and, when it has no error, estimates it with
/// [`fit::for_build`] ([`estimate`]).
pub fn evaluate(build: &Build, catalog: &Catalog, goal: &Goal, model: &Model) -> Evaluation {
    let mut ev = judge(build, catalog);
    if ev.errors.is_empty() {
        estimate(build, catalog, goal, model, &mut ev);
    }
    ev
}

/// GPUs the checker finds on chipset lanes (`pcie-lane-budget: GPU n on chipset lanes`):
/// each shares the chipset's uplink to the CPU, which a board with enough CPU-wired slots
/// avoids.
pub fn gpus_on_chipset(ev: &Evaluation) -> usize {
    ev.warnings.iter().filter(|w| w.starts_with("pcie-lane-budget:") && w.contains("on chipset lanes")).count()
}

/// GPUs the checker finds on chipset lanes ([`gpus_on_chipset`]) or on an x1 link
/// (`pcie-link: GPU n links at PCIe g x1`): what a CPU-lane arrangement of the same cards beats.
pub fn poor_links(ev: &Evaluation) -> usize {
    gpus_on_chipset(ev)
        + ev.warnings
            .iter()
            .filter(|w| w.starts_with("pcie-link:") && (w.contains(" x1 ") || w.contains(" x1 (")))
            .count()
}

/// Whether a plan's goal depends on what rule `rule` checks: the rule needs the GPUs or the
/// PSUs ([`check::Rule::needs`]), so it guards the cards' slots, case fit, power delivery or
/// the site's circuits. An unknown rule id counts as depended on.
pub fn goal_depends_on(rule: &str) -> bool {
    check::rule(rule)
        .is_none_or(|r| r.needs.iter().any(|n| matches!(n, Need::Part(CheckedPart::Gpu | CheckedPart::Psu))))
}

/// The placement rules that need the slots' positions (card thickness over the next slot, air
/// gaps between open-air cards, the stack in the case's openings): on a board wired without
/// positions they say not checked while the electrical rules (`gpu-slot`, `pcie-link`,
/// `pcie-lane-budget`, the M.2 sharing rules) run.
pub const GEOMETRY_RULES: [&str; 3] = ["gpu-slot-blocked", "open-air-gap", "case-gpu-fit"];

/// What the checker says of a build: its error and warning findings, its not-checked findings
/// and missing parts (every one counts, see the module docs), and the power figures of its
/// report. No fit or cost yet ([`estimate`]).
pub fn judge(build: &Build, catalog: &Catalog) -> Evaluation {
    let report = check::run(build, catalog);
    let r = build.resolve(catalog);
    let unpositioned = r.board.filter(|b| b.slot_layout_known() && !b.slot_positions_known());
    let mut ev = from_report(&report, unpositioned.is_some());
    if let Some(b) = unpositioned.filter(|_| !ev.geometry_unchecked.is_empty()) {
        ev.verify_with = Some(format!(
            "slot positions of {}: enter them in the window's Build tab (slot editor), or as `position` of each of its `pcie_slots` in a user board file",
            b.display_name()
        ));
    }
    ev.inference_wall_w = power::estimate(&r, LoadState::Inference).total_wall_w;
    ev.power_cap = planned_cap(build, catalog);
    // The report's power follows the workload's mode (`check::power_state`); the plan shows
    // full load.
    if report.power.state != LoadState::Training {
        let full = power::estimate(&r, LoadState::Training);
        ev.wall_w = full.total_wall_w;
        ev.heat_w = full.heat_w;
        ev.circuits = full.circuits.iter().map(|c| (c.amps, c.continuous_a)).collect();
        ev.psu_loads = full.psus.iter().map(|p| (p.dc_w, p.rated_w)).collect();
    }
    ev
}

/// [`judge`]'s reading of a check report (no inference power yet).
fn from_report(report: &check::Report, unpositioned: bool) -> Evaluation {
    let mut ev = Evaluation { verdict: Some(report.verdict), ..Evaluation::default() };
    for f in &report.findings {
        let line = format!("{}: {}", f.rule, f.message);
        match (f.kind, f.severity) {
            // Only the findings that lack the slots' positions (the coverage's wording for
            // `Figure::BoardSlotPositions`, which names `pcie_slots.position`); a geometry rule
            // that lacks another figure (a card's length) stays a figure the goal depends on.
            (FindingKind::NotChecked, _)
                if unpositioned && GEOMETRY_RULES.contains(&f.rule) && f.message.contains("pcie_slots.position") =>
            {
                ev.geometry_unchecked.push(line);
            }
            (FindingKind::NotChecked, _) if goal_depends_on(f.rule) => {
                ev.not_checked.push(line);
                ev.unknown_parts.extend(f.parts.iter().copied());
            }
            (FindingKind::NotChecked, _) => ev.not_checked_other.push(line),
            (FindingKind::Problem, Severity::Error) => {
                ev.errors.push(line);
                ev.error_parts.extend(f.parts.iter().copied());
            }
            (FindingKind::Problem, Severity::Warning) => ev.warnings.push(line),
            (FindingKind::Problem, Severity::Info) => {}
        }
    }
    for k in &report.coverage.missing_parts {
        ev.not_checked.push(format!("missing part: no {} chosen", k.name()));
    }
    ev.wall_w = report.power.total_wall_w;
    ev.heat_w = report.power.heat_w;
    ev.circuits = report.power.circuits.iter().map(|c| (c.amps, c.continuous_a)).collect();
    ev.psu_loads = report.power.psus.iter().map(|p| (p.dc_w, p.rated_w)).collect();
    ev.advised_limit_w = report.advice.as_ref().and_then(|a| a.common_limit_w);
    ev
}

/// The fit options the planner estimates a planned build with: the build's workload at its
/// precision, the model file's exact weights when the goal's model came from one, vLLM's
/// verdict on headroom only (the planner sizes the pool itself).
pub fn fit_options(build: &Build, model: &Model, goal: &Goal) -> FitOptions {
    let training = goal.is_training();
    FitOptions {
        precision: build.workload.as_ref().map(|w| w.precision),
        model_file: model.file.as_deref().cloned(),
        // A training goal's framework and optimizer (the build file keeps neither).
        // (`Goal` names them as text; a bad name fails the goal's check or every screen first.)
        runtime: goal.runtime.as_deref().filter(|_| training).and_then(|r| r.parse().ok()),
        optimizer: goal.optimizer.as_deref().filter(|_| training).and_then(|o| o.parse().ok()),
        train_plan: llm::train::TrainPlan {
            dataset_tokens: goal.train_tokens.filter(|_| training),
            ..Default::default()
        },
        ..FitOptions::default()
    }
}

/// Fit, speed and cost of a judged build ([`fit::for_build`], with the model file's exact
/// weights when the goal's model came from one), and the figures the goal depends on that are
/// unknown: a price under a budget, the tensor rate under a prefill target.
pub fn estimate(build: &Build, catalog: &Catalog, goal: &Goal, model: &Model, ev: &mut Evaluation) {
    let opts = fit_options(build, model, goal);
    match fit::for_build(build, catalog, &opts) {
        Ok(f) => {
            // Whether the runtime runs on the cards, as `fit` says it: a requirement the catalog
            // cannot check is a figure the goal depends on; one the runtime never published is
            // said with the result.
            for s in &f.fit.runtime_support {
                match &s.support {
                    llm::support::Support::NotChecked(why) => ev.not_checked.push(format!("runtime: {why}")),
                    llm::support::Support::Unpublished(why) => ev.not_checked_other.push(format!("runtime: {why}")),
                    llm::support::Support::Runs | llm::support::Support::DoesNotRun(_) => {}
                }
            }
            ev.fits = f.fit.verdict != llm::FitVerdict::DoesNotFit && f.fit.short_of_headroom().is_none();
            ev.decode_per_user = f.fit.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s);
            ev.decode_total = f.fit.speed.as_ref().map(|s| s.decode_batch_tokens_per_s);
            ev.prefill = f.fit.speed.as_ref().and_then(|s| s.prefill_tokens_per_s);
            if let Some(t) = &f.fit.training {
                ev.train_setup = Some(format!("{} ({})", t.runtime, t.setup));
                ev.train_tokens_per_s = t.speed.as_ref().map(|s| s.tokens_per_s);
                ev.train_hours = t.hours;
            }
            ev.speed_caveats.clone_from(&f.fit.speed_basis.not_measured_on);
            if !ev.fits && goal.users == 1 && !goal.is_training() {
                hybrid(build, catalog, goal, &f, ev);
            }
            if let Some(c) = f.cost {
                ev.parts = c
                    .parts
                    .iter()
                    .map(|p| {
                        let info = p.unit_price_usd.and_then(|_| catalog.price_of(&p.id));
                        // Owned units are the cost's own split (`cost.parts[].bought`).
                        let owned = p.bought.as_deref() == Some(kraftwerk_catalog::cited::OWNED_SOURCE)
                            || info.is_some_and(|i| i.origin() == PriceOrigin::Owned);
                        PartLine {
                            id: p.id.clone(),
                            name: p.name.clone(),
                            quantity: p.quantity,
                            unit_price_usd: p.unit_price_usd,
                            price_date: info.filter(|_| !owned).and_then(|i| i.date.map(str::to_owned)),
                            price_source: if owned {
                                Some(kraftwerk_catalog::cited::OWNED_SOURCE.to_owned())
                            } else {
                                info.and_then(|i| i.source.map(str::to_owned))
                            },
                            used: !owned && info.is_some_and(|i| i.origin() == PriceOrigin::Used),
                            owned,
                        }
                    })
                    .collect();
                ev.known_price_usd = c.hardware_usd;
                ev.unpriced.clone_from(&c.missing_prices);
                ev.usd_per_mtok = c.usd_per_million_tokens;
                ev.break_even_months = c.cloud.break_even_months;
                ev.cloud = format!("{} at ${:.2}/h", c.cloud.name, c.cloud.usd_per_hour);
            } else if let Some(e) = f.cost_error {
                ev.errors.push(format!("cost: {e}"));
            }
        }
        Err(e) => ev.errors.push(format!("fit: {e}")),
    }
    let risers = build.gpus.iter().filter(|g| g.riser.is_some()).count();
    if risers > 0 {
        ev.parts.push(PartLine {
            id: "pcie-riser".into(),
            name: "PCIe riser cable".into(),
            quantity: u32::try_from(risers).unwrap_or(u32::MAX),
            unit_price_usd: None,
            price_date: None,
            price_source: None,
            used: false,
            owned: false,
        });
        ev.unpriced.push("pcie-riser".into());
    }
    // A capped plan runs slower: the power-limit curve's throughput cost on its speed.
    if let Some(k) = ev.power_cap.as_ref().map(|c| c.throughput_kept) {
        for v in [&mut ev.decode_per_user, &mut ev.decode_total, &mut ev.prefill].into_iter().flatten() {
            *v *= k;
        }
        if let Some(h) = ev.hybrid.as_mut() {
            h.decode_tokens_per_s *= k;
        }
    }
    if goal.budget_usd.is_some() && !ev.unpriced.is_empty() {
        ev.not_checked.push(format!("budget: price unknown for {}", ev.unpriced.join(", ")));
    }
    if goal.prefill_tok_s.is_some() && ev.prefill.is_none() && !goal.is_training() {
        ev.not_checked.push("prefill: the GPU's tensor rate for this precision is unknown (not in the catalog)".into());
    }
}

/// A MoE model the GPUs alone do not hold: the fit's own verdict on the expert offload
/// ([`fit::BuildFit::fits_with_experts_in_ram`], what `kraftwerk fit` says of the saved build)
/// becomes the build's [`Hybrid`] split, with the cost `fit` gives it at that speed (batch 1).
/// Leaves `ev` as it was otherwise (a runtime that does not keep experts in RAM, RAM too small).
fn hybrid(build: &Build, catalog: &Catalog, goal: &Goal, f: &fit::BuildFit, ev: &mut Evaluation) {
    let Some(o) = f.fits_with_experts_in_ram.as_ref() else { return };
    let (Some(decode), Some(bw)) = (o.decode_tokens_per_s, f.host_bandwidth_gb_s) else { return };
    let r = build.resolve(catalog);
    let Some((kit, kits)) = r.memory else { return };
    // The speed the RAM runs at (the kit's rating capped by the CPU's), as the fit used it.
    let speed_mt_s = f.host_ram_speed.as_ref().map_or(kit.speed_mt_s, |s| s.mt_s);
    let channels = (bw * 1000.0 / 8.0 / f64::from(speed_mt_s.max(1))).round() as u32;
    let precision = build.workload.as_ref().map_or(f.fit.weight_precision, |w| w.precision);
    let asked = goal.precision.as_deref().and_then(|p| p.parse::<Precision>().ok());
    ev.hybrid = Some(Hybrid {
        n_cpu_moe: o.n_cpu_moe,
        cpu_moe_layers: o.cpu_moe_layers,
        prefill_tokens_per_s: o.prefill_tokens_per_s,
        host_experts_gib: o.host_experts_gib,
        host_ram_gib: fit::host_ram_gib(&r)
            .unwrap_or(f64::from(kit.module_gb) * f64::from(kit.modules) * f64::from(kits)),
        channels,
        speed_mt_s,
        host_bandwidth_gb_s: bw,
        decode_tokens_per_s: decode,
        runtime: f.fit.runtime,
        precision_note: asked.filter(|a| *a != precision).map(|a| hybrid_precision_note(a, precision)),
    });
    ev.decode_per_user = Some(decode);
    ev.decode_total = Some(decode);
    ev.prefill = o.prefill_tokens_per_s;
}

/// Why a hybrid split runs at `used` where the goal asked for `asked`: llama.cpp, the runtime
/// that keeps experts in system RAM, loads GGUF files only.
fn hybrid_precision_note(asked: Precision, used: Precision) -> String {
    format!(
        "{used} instead of {asked}: the experts-in-RAM split is llama.cpp's (--n-cpu-moe), which loads GGUF files, \
         not {asked}; {used} is a GGUF quant of about the same bits"
    )
}

/// The precisions, best first, a hybrid CPU+GPU split (experts in system RAM) of `precision`
/// runs at: llama.cpp's (`--n-cpu-moe`; or the goal's llama.cpp fork), at a GGUF quant, since
/// llama.cpp loads GGUF files only. A GGUF precision stays; AWQ/GPTQ `int4` becomes the 4-bit
/// GGUF quants `Q4_K_M` (4.89 bits per weight), then `Q4_0` (4.5, nearer int4's 4.25 and
/// smaller); `fp8`/`int8` become `Q8_0`; other precisions have no split. Empty also when the
/// goal names a runtime that does not keep experts in RAM (vLLM, SGLang, TensorRT-LLM,
/// ExLlamaV2) or ktransformers (its own decode, not planned yet).
pub fn hybrid_precisions(goal: &Goal, precision: Precision) -> Vec<Precision> {
    if let Some(rt) = goal.runtime.as_deref()
        && !parse_runtime(rt).is_ok_and(Runtime::is_llama_cpp_family)
    {
        return Vec::new();
    }
    match precision {
        p if p.is_gguf() => vec![p],
        Precision::Int4 => vec![Precision::Q4_K_M, Precision::Q4_0],
        Precision::Fp8 | Precision::Int8 => vec![Precision::Q8_0],
        _ => Vec::new(),
    }
}

/// The build as `*.rig.ron` text (the format `kraftwerk check` and the window open).
///
/// # Errors
/// Only for a non-finite number in the build.
pub fn to_ron(build: &Build) -> Result<String, String> {
    rig::to_ron_string(build).map_err(|e| e.to_string())
}

/// Saves a build file atomically.
///
/// # Errors
/// The build-file code's error (folder not writable, disk full).
pub fn save(path: &Path, build: &Build) -> Result<(), BuildError> {
    rig::save(path, build)
}

/// Parses build-file text as the window does (ids checked against `catalog`).
///
/// # Errors
/// A located error.
pub fn load_str(name: &str, text: &str, catalog: &Catalog) -> Result<Build, BuildError> {
    rig::load_str(name, text, Some(catalog))
}

#[cfg(test)]
#[path = "adapter_tests.rs"]
mod tests;

//! The planner's only door into the rest of Kraftwerk: every call into `catalog`, `build`,
//! `check` and `estimate` (power, fit, llm, cost) is in this file, so that when those APIs change
//! only this file changes.
//!
//! The search ([`super::search`]) works on plain views of the parts ([`Parts`]) and hands
//! candidate machines back here as a [`Spec`]; [`make_build`] turns a spec into a real
//! [`Build`], [`evaluate`] judges it with [`check::run`] and estimates it with
//! [`fit::for_build`], exactly as `kraftwerk check` and `kraftwerk fit` would.
//!
//! Unknown figures: today an unknown catalog figure is `Option::None` and the checker does not
//! report "not checked". [`evaluate`] therefore lists, as not checked, the `None` figures the
//! goal itself depends on (prices when there is a budget, the tensor rate when there is a
//! prefill target) and every finding whose message says a figure is unknown.

use super::{Form, Goal, ModelRef};
use crate::build::{self, Build, GpuPlacement, MemoryUse, PsuUse, Riser, Site, Workload};
use crate::catalog::{Airflow, Catalog, GpuFormFactor, HasId, LlmModel, PartsFile};
use crate::check::{self, Severity};
use crate::estimate::fit::{self, FitOptions};
use crate::estimate::llm::{self, FitInput, GpuSlot, Mode, Parallelism};
use crate::estimate::power::{self, LoadState};
use std::path::Path;

pub use crate::build::BuildError;
pub use crate::catalog::{FormFactor, MemoryType};
pub use crate::estimate::llm::Precision;

/// Sustained PSU load guideline the checker sizes PSUs by (fraction of rating).
pub const PSU_GUIDELINE: f64 = power::PSU_SUSTAINED_GUIDELINE;

// ------------------------------------------------------------------------------ the model

/// The model to plan for: a catalog preset, or one read from a file (then written inline into
/// every planned build so that the build file stands alone).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    inner: LlmModel,
    from_file: bool,
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
    /// Native context, tokens.
    pub fn max_context(&self) -> u32 {
        self.inner.max_context
    }
}

/// Looks the goal's model up: a preset id in the catalog, or a file.
///
/// Today the fit code accepts models as catalog entries only, so a model file is a Kraftwerk
/// parts file (RON, the schema of `catalog/models.ron`) holding exactly one model; after the
/// model-file readers (GGUF, safetensors) land this is where they are called.
///
/// # Errors
/// A message naming the id or the file and what is wrong.
pub fn resolve_model(catalog: &Catalog, model: &ModelRef) -> Result<Model, String> {
    match model {
        ModelRef::Preset(id) => catalog
            .model(id)
            .cloned()
            .map(|m| Model { inner: m, from_file: false })
            .ok_or_else(|| format!("unknown model `{id}` (see `kraftwerk catalog models`)")),
        ModelRef::File(path) => {
            let shown = path.display().to_string();
            let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
            if meta.len() > build::file::MAX_FILE_BYTES {
                return Err(format!("{shown}: larger than {} bytes", build::file::MAX_FILE_BYTES));
            }
            let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
            let file = crate::catalog::parse_parts_file(&shown, &text).map_err(|e| e.to_string())?;
            match file.models.len() {
                1 => Ok(Model { inner: file.models.into_iter().next().ok_or("no model")?, from_file: true }),
                n => Err(format!("{shown}: a model file holds exactly one entry under `models`, found {n}")),
            }
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
    llm::weight_gib(&model.inner, precision)
}

// ------------------------------------------------------------------------------ part views

/// A GPU card as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CardView {
    /// Index in `Catalog::gpus`.
    pub idx: usize,
    /// Card id.
    pub id: String,
    /// Short name for messages (`RTX 4090`).
    pub short: String,
    /// Cards with the same key have the same chip, memory and rates (so the same fit).
    pub chip_key: String,
    /// Memory, GiB.
    pub memory_gib: f64,
    /// Slots its bracket and cooler cover.
    pub width_slots: u8,
    /// PCIe generation of the card.
    pub pcie_gen: u8,
    /// Default board power, W.
    pub board_power_w: f64,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// Sold only used today (see [`used_market`]).
    pub used_market: bool,
    /// An SXM module (needs a baseboard, not a slot).
    pub sxm: bool,
}

/// One expansion slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotView {
    /// Position from the CPU (1 = top).
    pub position: u8,
    /// Physical size, lanes.
    pub physical_lanes: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
}

/// A motherboard as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardView {
    /// Index in `Catalog::motherboards`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Vendor and name.
    pub name: String,
    /// CPU socket.
    pub socket: String,
    /// CPU sockets on the board.
    pub cpu_sockets: u8,
    /// Memory type.
    pub memory_type: MemoryType,
    /// DIMM slots.
    pub memory_slots: u8,
    /// Memory channels.
    pub memory_channels: u8,
    /// Form factor.
    pub form_factor: FormFactor,
    /// Expansion slots, by position.
    pub slots: Vec<SlotView>,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// A CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuView {
    /// Index in `Catalog::cpus`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Socket.
    pub socket: String,
    /// Memory types it drives.
    pub memory_types: Vec<MemoryType>,
    /// PCIe lanes for slots and M.2.
    pub lanes: u16,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// A memory kit.
#[derive(Debug, Clone, PartialEq)]
pub struct KitView {
    /// Index in `Catalog::memory`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Type.
    pub memory_type: MemoryType,
    /// Modules per kit.
    pub modules: u8,
    /// GB per kit.
    pub total_gb: u32,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// A CPU cooler.
#[derive(Debug, Clone, PartialEq)]
pub struct CoolerView {
    /// Index in `Catalog::coolers`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Sockets it mounts on.
    pub sockets: Vec<String>,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// A case, rack chassis or open frame.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseView {
    /// Index in `Catalog::cases`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Tower, open frame or rack.
    pub form: Form,
    /// Board form factors it takes.
    pub form_factors: Vec<FormFactor>,
    /// Expansion-slot openings.
    pub expansion_slots: u8,
    /// PSU bays.
    pub psu_bays: u8,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// A PSU.
#[derive(Debug, Clone, PartialEq)]
pub struct PsuView {
    /// Index in `Catalog::psus`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Rated output at the goal's mains voltage, W.
    pub rated_w: f64,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// Views of every part the search may pick, each list in catalog (id) order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parts {
    /// GPU cards (SXM modules included, flagged).
    pub cards: Vec<CardView>,
    /// Boards.
    pub boards: Vec<BoardView>,
    /// CPUs.
    pub cpus: Vec<CpuView>,
    /// Memory kits.
    pub kits: Vec<KitView>,
    /// Coolers.
    pub coolers: Vec<CoolerView>,
    /// Cases.
    pub cases: Vec<CaseView>,
    /// PSUs.
    pub psus: Vec<PsuView>,
}

/// Whether a GPU is bought used today. The catalog records no market status yet, so this is
/// the architecture: NVIDIA no longer makes Pascal, Volta and Turing parts nor the GeForce
/// RTX 30 series (Ampere), which are bought used (the "P40, V100, 3090 class").
pub fn used_market(gpu: &crate::catalog::Gpu) -> bool {
    let arch = gpu.architecture.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    matches!(arch.as_str(), "pascal" | "volta" | "turing") || (arch == "ampere" && gpu.is_geforce())
}

fn short_name(name: &str) -> String {
    name.trim_start_matches("GeForce ").to_owned()
}

/// The views of every part in `catalog`, PSU ratings at `mains_v`.
pub fn parts(catalog: &Catalog, mains_v: f64) -> Parts {
    let cards = catalog
        .gpus
        .iter()
        .enumerate()
        .map(|(idx, g)| CardView {
            idx,
            id: g.id.clone(),
            short: short_name(&g.name),
            chip_key: format!(
                "{}|{}|{}|{}|{:?}|{}x{}",
                g.vendor, g.architecture, g.memory_gib, g.memory_bandwidth_gb_s, g.peak, g.pcie_gen, g.pcie_lanes
            ),
            memory_gib: g.memory_gib,
            width_slots: g.width_slots,
            pcie_gen: g.pcie_gen,
            board_power_w: g.board_power_w,
            price_usd: g.price_usd,
            used_market: used_market(g),
            sxm: g.form_factor == GpuFormFactor::Sxm,
        })
        .collect();
    let boards = catalog
        .motherboards
        .iter()
        .enumerate()
        .map(|(idx, b)| BoardView {
            idx,
            id: b.id.clone(),
            name: b.display_name(),
            socket: b.socket.clone(),
            cpu_sockets: b.cpu_sockets.max(1),
            memory_type: b.memory_type,
            memory_slots: b.memory_slots,
            memory_channels: b.memory_channels,
            form_factor: b.form_factor,
            slots: b
                .pcie_slots
                .iter()
                .map(|s| SlotView { position: s.position, physical_lanes: s.physical_lanes, pcie_gen: s.pcie_gen })
                .collect(),
            price_usd: b.price_usd,
        })
        .collect();
    let cpus = catalog
        .cpus
        .iter()
        .enumerate()
        .map(|(idx, c)| CpuView {
            idx,
            id: c.id.clone(),
            socket: c.socket.clone(),
            memory_types: c.memory_types.clone(),
            lanes: c.pcie_lanes.total(),
            price_usd: c.price_usd,
        })
        .collect();
    let kits = catalog
        .memory
        .iter()
        .enumerate()
        .map(|(idx, k)| KitView {
            idx,
            id: k.id.clone(),
            memory_type: k.memory_type,
            modules: k.modules,
            total_gb: k.total_gb(),
            price_usd: k.price_usd,
        })
        .collect();
    let coolers = catalog
        .coolers
        .iter()
        .enumerate()
        .map(|(idx, c)| CoolerView { idx, id: c.id.clone(), sockets: c.sockets.clone(), price_usd: c.price_usd })
        .collect();
    let cases = catalog
        .cases
        .iter()
        .enumerate()
        .map(|(idx, c)| CaseView {
            idx,
            id: c.id.clone(),
            form: match c.airflow {
                Airflow::Desktop => Form::Tower,
                Airflow::OpenFrame => Form::OpenFrame,
                Airflow::Server => Form::Rack,
            },
            form_factors: c.form_factors.clone(),
            expansion_slots: c.expansion_slots,
            psu_bays: c.psu_bays,
            price_usd: c.price_usd,
        })
        .collect();
    let psus = catalog
        .psus
        .iter()
        .enumerate()
        .map(|(idx, p)| PsuView { idx, id: p.id.clone(), rated_w: p.rated_w_at(mains_v), price_usd: p.price_usd })
        .collect();
    Parts { cards, boards, cpus, kits, coolers, cases, psus }
}

/// The part ids of each kind, to resolve a goal's must-have parts: `(kind, id)`.
pub fn part_kind(catalog: &Catalog, id: &str) -> Option<&'static str> {
    if catalog.gpu(id).is_some() {
        Some("gpu")
    } else if catalog.motherboard(id).is_some() {
        Some("motherboard")
    } else if catalog.cpu(id).is_some() {
        Some("cpu")
    } else if catalog.case(id).is_some() {
        Some("case")
    } else if catalog.psu(id).is_some() {
        Some("psu")
    } else if catalog.cooler(id).is_some() {
        Some("cooler")
    } else if catalog.memory_kit(id).is_some() {
        Some("memory")
    } else {
        None
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
}

/// The fit code's default parallelism for `n` GPUs (as [`fit::for_build`] picks it).
fn default_parallelism(n: u32, precision: Precision) -> Parallelism {
    if n == 1 {
        Parallelism::Single
    } else if precision.is_gguf() || !n.is_power_of_two() {
        Parallelism::LayerSplit(n)
    } else {
        Parallelism::TensorParallel(n)
    }
}

fn fit_input(model: &Model, goal: &Goal, precision: Precision, n: u32) -> Result<FitInput, String> {
    let mut input = FitInput::new(model.inner.clone(), precision);
    input.mode = goal.mode.parse::<Mode>().map_err(|e| e.0)?;
    input.context_tokens = goal.context_tokens(model).max(1);
    input.batch = goal.users.max(1);
    input.parallelism = default_parallelism(n, precision);
    Ok(input)
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
    let gpu = catalog.gpus.get(card.idx).ok_or("card index out of range")?;
    let input = fit_input(model, goal, precision, n)?;
    let slots = vec![GpuSlot::new(gpu.clone()); n as usize];
    let r = llm::estimate(&input, &slots).map_err(|e| e.to_string())?;
    let worst = r.gpus.iter().map(|g| g.memory.required_gib).fold(0.0, f64::max);
    Ok(Screen {
        fits: r.verdict != llm::FitVerdict::DoesNotFit,
        required_gib: worst,
        capacity_gib: gpu.memory_gib,
        decode_per_user: r.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s),
        prefill: r.speed.as_ref().and_then(|s| s.prefill_tokens_per_s),
        parallelism: r.parallelism.to_string(),
    })
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

/// Full-load DC power of a spec without its PSUs, W, for sizing them.
pub fn dc_load_w(catalog: &Catalog, goal: &Goal, model: &Model, spec: &Spec) -> f64 {
    let b = make_build(catalog, goal, model, spec, "sizing");
    power::estimate(&b.resolve(catalog), LoadState::Training).total_dc_w
}

// ------------------------------------------------------------------------------ builds

/// A candidate machine, as indices into [`Parts`] lists (catalog order).
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The card (`Parts::cards` index = `Catalog::gpus` index).
    pub card: usize,
    /// Card placements: slot position, riser generation (open frame), PSU index.
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
        power_limit_w: None,
        riser: riser.map(|g| Riser { pcie_gen: g, length_mm: None }),
        psu,
        cable: None,
    }
}

/// The [`Build`] a spec describes, with the goal's site and workload.
pub fn make_build(catalog: &Catalog, goal: &Goal, model: &Model, spec: &Spec, name: &str) -> Build {
    let card = catalog.gpus.get(spec.card);
    let gpus = card.map_or_else(Vec::new, |g| {
        spec.placements
            .iter()
            .map(|&(slot, riser, psu)| GpuPlacement {
                gpu: g.id.clone(),
                slot: Some(slot),
                power_limit_w: None,
                riser: riser.map(|g| Riser { pcie_gen: g, length_mm: None }),
                psu,
                cable: None,
            })
            .collect()
    });
    let mut parts = PartsFile::default();
    if model.from_file {
        parts.models.push(model.inner.clone());
    }
    Build {
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
            precision: spec.precision.to_string(),
            context: goal.context_tokens(model),
            batch: goal.users.max(1),
            mode: goal.mode.clone(),
            gradient_checkpointing: false,
            parallel: None,
            nodes: None,
            interconnect: None,
        }),
        parts,
        notes: Some(format!("Planned by `kraftwerk plan` for: {}", goal.describe(model))),
        ..Build::default()
    }
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
}

/// What [`evaluate`] found out about a build.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Evaluation {
    /// Error findings of `check::run`, one line each (`rule: message`).
    pub errors: Vec<String>,
    /// Warning findings.
    pub warnings: Vec<String>,
    /// Figures the goal depends on that are unknown, in words.
    pub not_checked: Vec<String>,
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
    /// Decode rate per user, tokens/s (from the fit on the real slots).
    pub decode_per_user: Option<f64>,
    /// Aggregate decode rate, tokens/s.
    pub decode_total: Option<f64>,
    /// Prefill rate, tokens/s.
    pub prefill: Option<f64>,
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
}

/// Judges a build with [`check::run`] and estimates it with [`fit::for_build`].
pub fn evaluate(build: &Build, catalog: &Catalog, goal: &Goal) -> Evaluation {
    let report = check::run(build, catalog);
    let mut ev = Evaluation::default();
    for f in &report.findings {
        let line = format!("{}: {}", f.rule, f.message);
        let unknown = f.message.contains("unknown") || f.message.contains("not checked");
        match f.severity {
            Severity::Error => ev.errors.push(line),
            Severity::Warning if unknown => ev.not_checked.push(line),
            Severity::Warning => ev.warnings.push(line),
            Severity::Info => {}
        }
    }
    ev.wall_w = report.power.total_wall_w;
    ev.heat_w = report.power.heat_w;
    ev.circuits = report.power.circuits.iter().map(|c| (c.amps, c.continuous_a)).collect();
    ev.advised_limit_w = report.advice.as_ref().and_then(|a| a.common_limit_w);
    let r = build.resolve(catalog);
    ev.inference_wall_w = power::estimate(&r, LoadState::Inference).total_wall_w;
    let risers = build.gpus.iter().filter(|g| g.riser.is_some()).count();
    if !ev.errors.is_empty() {
        return ev;
    }
    match fit::for_build(build, catalog, &FitOptions::default()) {
        Ok(f) => {
            ev.fits = f.fit.verdict != llm::FitVerdict::DoesNotFit;
            ev.decode_per_user = f.fit.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s);
            ev.decode_total = f.fit.speed.as_ref().map(|s| s.decode_batch_tokens_per_s);
            ev.prefill = f.fit.speed.as_ref().and_then(|s| s.prefill_tokens_per_s);
            if let Some(c) = f.cost {
                ev.parts = c
                    .parts
                    .iter()
                    .map(|p| PartLine {
                        id: p.id.clone(),
                        name: p.name.clone(),
                        quantity: p.quantity,
                        unit_price_usd: p.unit_price_usd,
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
    if risers > 0 {
        ev.parts.push(PartLine {
            id: "pcie-riser".into(),
            name: "PCIe riser cable".into(),
            quantity: risers as u32,
            unit_price_usd: None,
        });
        ev.unpriced.push("pcie-riser".into());
    }
    if goal.budget_usd.is_some() && !ev.unpriced.is_empty() {
        ev.not_checked.push(format!("budget: price unknown for {}", ev.unpriced.join(", ")));
    }
    if goal.prefill_tok_s.is_some() && ev.prefill.is_none() && !goal.is_training() {
        ev.not_checked.push("prefill: the GPU publishes no tensor rate for this precision".into());
    }
    ev
}

/// The build as `*.rig.ron` text (the format `kraftwerk check` and the window open).
///
/// # Errors
/// Only for a non-finite number in the build.
pub fn to_ron(build: &Build) -> Result<String, String> {
    build::to_ron_string(build).map_err(|e| e.to_string())
}

/// Saves a build file atomically.
///
/// # Errors
/// The build-file code's error (folder not writable, disk full).
pub fn save(path: &Path, build: &Build) -> Result<(), BuildError> {
    build::save(path, build)
}

/// Parses build-file text as the window does (ids checked against `catalog`).
///
/// # Errors
/// A located error.
pub fn load_str(name: &str, text: &str, catalog: &Catalog) -> Result<Build, BuildError> {
    build::load_str(name, text, Some(catalog))
}

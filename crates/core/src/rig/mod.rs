//! A build: the parts of one machine, where its GPUs sit, which PSU feeds what, the site's
//! mains, and the workload. Stored as `*.rig.ron` ([`file`]).
//!
//! Parts are named by catalog id or defined inline in the file (`parts`, same schema as the
//! catalog). [`Build::resolve`] turns ids into parts against a [`Catalog`].

pub mod edit;
pub mod file;
pub mod import_list;
pub mod links;
pub mod parts_list;
pub mod pricing;

pub use file::{BuildError, load, load_str, save, to_ron_string};

use crate::workload::{Interconnect, Mode, Parallelism, Precision, Runtime};
use kraftwerk_catalog::{Case, Catalog, Cooler, Cpu, Gpu, LlmModel, MemoryKit, Motherboard, PartsFile, Psu, Storage};
use serde::{Deserialize, Serialize};

/// The build-file format version this Kraftwerk writes and reads. Files with a higher version
/// are refused with a located error (they may hold fields this version would drop).
pub const FORMAT_VERSION: u32 = 1;

/// A planned machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    /// File format version ([`FORMAT_VERSION`]).
    pub format: u32,
    /// Name shown in the window title and reports.
    pub name: String,
    /// Where this configuration comes from (a published build, a vendor system), if any.
    #[serde(default)]
    pub reference: Option<String>,
    /// CPU id.
    #[serde(default)]
    pub cpu: Option<String>,
    /// Motherboard id.
    #[serde(default)]
    pub motherboard: Option<String>,
    /// CPU cooler id.
    #[serde(default)]
    pub cooler: Option<String>,
    /// Case id.
    #[serde(default)]
    pub case: Option<String>,
    /// Memory: kit id and how many kits.
    #[serde(default)]
    pub memory: Option<MemoryUse>,
    /// NVMe drives.
    #[serde(default)]
    pub storage: Vec<StorageUse>,
    /// GPUs with their placement.
    #[serde(default)]
    pub gpus: Vec<GpuPlacement>,
    /// Power supplies. The first feeds the motherboard and CPU unless another says
    /// `feeds_system: true`.
    #[serde(default)]
    pub psus: Vec<PsuUse>,
    /// NVLink bridges between pairs of GPUs.
    #[serde(default)]
    pub nvlink: Vec<NvlinkBridge>,
    /// The site: mains, circuit, ambient, electricity price.
    #[serde(default)]
    pub site: Site,
    /// What the machine will run.
    #[serde(default)]
    pub workload: Option<Workload>,
    /// Parts defined in this file (same schema as catalog files); they override catalog parts
    /// of the same id.
    #[serde(default, skip_serializing_if = "is_empty_parts")]
    pub parts: PartsFile,
    /// Ids of the parts bought used (any kind: GPU chip or partner card, CPU, board, PSU, ...):
    /// priced at their cited used-market price (`catalog/prices/used.json`; a chip's used price
    /// also prices its partner cards), never their new price; one no source prices used is
    /// unpriced ([`Build::pricing_catalog`]). Every part of the build with the id counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used: Vec<String>,
    /// Ids of the parts the owner already has: they cost $0 toward totals and budgets
    /// ([`Build::pricing_catalog`]). Every part of the build with the id counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owned: Vec<String>,
    /// Free-form notes.
    #[serde(default)]
    pub notes: Option<String>,
}

fn is_empty_parts(p: &PartsFile) -> bool {
    *p == PartsFile::default()
}

impl Default for Build {
    fn default() -> Self {
        Build {
            format: FORMAT_VERSION,
            name: "Untitled build".into(),
            reference: None,
            cpu: None,
            motherboard: None,
            cooler: None,
            case: None,
            memory: None,
            storage: Vec::new(),
            gpus: Vec::new(),
            psus: Vec::new(),
            nvlink: Vec::new(),
            site: Site::default(),
            workload: None,
            parts: PartsFile::default(),
            used: Vec::new(),
            owned: Vec::new(),
            notes: None,
        }
    }
}

/// Memory kits installed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryUse {
    /// Kit id.
    pub kit: String,
    /// Number of kits.
    #[serde(default = "one_u8")]
    pub kits: u8,
    /// The data rate the memory is set to run at, MT/s, where the build states it: an XMP or
    /// EXPO profile, a manual BIOS setting, or the BIOS's "Auto" (Linux `dmidecode -t memory`
    /// reports it as "Configured Memory Speed"). `None`: the kit's rating capped by the CPU's
    /// rated memory speed ([`crate::estimate::fit::ram_speed`]). A stated speed is used as it
    /// is, above the CPU's rating too (then said so in the fit's RAM-speed basis).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_mt_s: Option<u32>,
}

fn one_u8() -> u8 {
    1
}

/// An NVMe drive and the M.2 socket it sits in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageUse {
    /// Drive id.
    pub drive: String,
    /// M.2 socket name on the motherboard (`M.2_1`); `None` = not in an M.2 socket of the board
    /// (PCIe adapter, U.2 backplane).
    #[serde(default)]
    pub m2_slot: Option<String>,
}

/// How a GPU is powered, when not the default (the PSU's native 12V-2x6 cable for 16-pin cards,
/// else its PCIe or EPS 8-pin cables).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum GpuCable {
    /// A native 12V-2x6 / 12VHPWR cable whose sense pins signal `class_w` (600, 450, 300, 150).
    Native12V2x6 {
        /// Power class signalled by the sense pins, W.
        class_w: u16,
    },
    /// The card's 16-pin adapter fed from PCIe 8-pin plugs (150 W each), of which
    /// `pcie_8pin_connected` are plugged in.
    Adapter {
        /// 8-pin plugs connected.
        pcie_8pin_connected: u8,
    },
}

/// A PCIe riser or extension cable between the slot and the card.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Riser {
    /// PCIe generation the riser is rated for (3, 4, 5).
    pub pcie_gen: u8,
    /// Cable length, mm, if known.
    #[serde(default)]
    pub length_mm: Option<f64>,
}

/// One GPU and where it sits.
///
/// In files `slot` is a position (`slot: 3`) or a slot's silkscreen name (`slot:
/// "PCIEX16_2"`), the latter for boards whose wiring is known but not the slots' positions; in
/// memory they are `slot` and `slot_name`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "GpuPlacementFile", into = "GpuPlacementFile")]
pub struct GpuPlacement {
    /// GPU id.
    pub gpu: String,
    /// Expansion-slot position on the motherboard (`PcieSlot::position`); `None` for SXM
    /// modules, when not yet placed, or when placed by `slot_name`.
    pub slot: Option<u8>,
    /// The slot by silkscreen name (`PcieSlot::name`); when set it decides the slot, and `slot`
    /// is ignored. Written `slot: "PCIEX16_2"` in files.
    pub slot_name: Option<String>,
    /// Power limit set with `nvidia-smi -pl`, W; `None` = the card's default board power.
    pub power_limit_w: Option<f64>,
    /// Riser between slot and card; a card on a riser covers no slots of the board.
    pub riser: Option<Riser>,
    /// Index into `Build::psus` of the PSU that feeds this card's power cables.
    pub psu: usize,
    /// Power cable, when not the default.
    pub cable: Option<GpuCable>,
}

/// A slot as a build file names it: a position or a silkscreen name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum SlotRef {
    /// Expansion-slot position (`slot: 3`).
    Position(u8),
    /// Silkscreen name (`slot: "PCIEX16_2"`).
    Name(String),
}

impl<'de> Deserialize<'de> for SlotRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// Takes a number as a position and a string as a name; anything else is an error that
        /// says what a slot is.
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = SlotRef;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a slot position (1, 2, ...) or a slot name (\"PCIEX16_1\")")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<SlotRef, E> {
                u8::try_from(v)
                    .map(SlotRef::Position)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<SlotRef, E> {
                u64::try_from(v)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SlotRef, E> {
                Ok(SlotRef::Name(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// [`GpuPlacement`] as written in files (`slot` a position or a name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GpuPlacementFile {
    /// GPU id.
    pub gpu: String,
    /// The slot, by position or name.
    #[serde(default)]
    pub slot: Option<SlotRef>,
    /// Power limit, W.
    #[serde(default)]
    pub power_limit_w: Option<f64>,
    /// Riser.
    #[serde(default)]
    pub riser: Option<Riser>,
    /// PSU index.
    #[serde(default)]
    pub psu: usize,
    /// Power cable.
    #[serde(default)]
    pub cable: Option<GpuCable>,
}

impl From<GpuPlacementFile> for GpuPlacement {
    fn from(f: GpuPlacementFile) -> Self {
        let (slot, slot_name) = match f.slot {
            None => (None, None),
            Some(SlotRef::Position(p)) => (Some(p), None),
            Some(SlotRef::Name(n)) => (None, Some(n)),
        };
        GpuPlacement {
            gpu: f.gpu,
            slot,
            slot_name,
            power_limit_w: f.power_limit_w,
            riser: f.riser,
            psu: f.psu,
            cable: f.cable,
        }
    }
}

impl From<GpuPlacement> for GpuPlacementFile {
    fn from(p: GpuPlacement) -> Self {
        let slot = match (p.slot_name, p.slot) {
            (Some(n), _) => Some(SlotRef::Name(n)),
            (None, Some(pos)) => Some(SlotRef::Position(pos)),
            (None, None) => None,
        };
        GpuPlacementFile {
            gpu: p.gpu,
            slot,
            power_limit_w: p.power_limit_w,
            riser: p.riser,
            psu: p.psu,
            cable: p.cable,
        }
    }
}

impl GpuPlacement {
    /// The board slot this GPU sits in: by `slot_name` when set, else by position.
    pub fn slot_in<'b>(&self, board: &'b kraftwerk_catalog::Motherboard) -> Option<&'b kraftwerk_catalog::PcieSlot> {
        match &self.slot_name {
            Some(n) => board.slot_named(n),
            None => self.slot.and_then(|p| board.slot_at(p)),
        }
    }

    /// The expansion-slot position this GPU sits at, if known: the named slot's position when
    /// placed by name (`None` if the board does not give it), else `slot`.
    pub fn position_on(&self, board: Option<&kraftwerk_catalog::Motherboard>) -> Option<u8> {
        match &self.slot_name {
            Some(n) => board.and_then(|b| b.slot_named(n)).and_then(|s| s.position),
            None => self.slot,
        }
    }

    /// Whether the GPU is placed in a slot (by position or name).
    pub fn is_placed(&self) -> bool {
        self.slot.is_some() || self.slot_name.is_some()
    }

    /// The slot in words: `PCIEX16_2`, `slot position 3`, or `not in a slot`.
    pub fn slot_text(&self) -> String {
        match (&self.slot_name, self.slot) {
            (Some(n), _) => format!("slot {n}"),
            (None, Some(p)) => format!("slot position {p}"),
            (None, None) => "not in a slot".to_owned(),
        }
    }
}

/// A PSU in the build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsuUse {
    /// PSU id.
    pub psu: String,
    /// Whether this PSU feeds the motherboard, CPU, drives and fans (exactly one should).
    #[serde(default)]
    pub feeds_system: Option<bool>,
    /// Which wall circuit it is plugged into (0-based index; circuits are independent
    /// breakers of the site).
    #[serde(default)]
    pub circuit: usize,
}

/// An NVLink bridge between two GPUs (indices into `Build::gpus`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NvlinkBridge {
    /// The two GPUs, by index into `Build::gpus`.
    pub gpus: (usize, usize),
    /// Bridge size as slot spacing (2 = adjacent slots, 3, 4).
    pub spacing_slots: u8,
}

/// Where the machine runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Site {
    /// Mains voltage, V (120 US, 230 EU).
    pub mains_v: f64,
    /// Breaker rating of each circuit, A (15, 20 US; 16 EU).
    pub circuit_a: f64,
    /// Number of independent circuits the PSUs may use.
    pub circuits: usize,
    /// Ambient (room) temperature, °C.
    pub ambient_c: f64,
    /// Electricity price, USD per kWh.
    pub price_per_kwh: f64,
    /// Fraction of the time the machine runs its workload (0..=1), for cost.
    pub duty_cycle: f64,
    /// Continuous current one wall outlet may carry, A, for PSUs not plugged into one of
    /// `outlets`; `None` = 80 % of the circuit below 180 V, a Schuko socket's 10 A planning
    /// figure at 230 V.
    pub outlet_continuous_a: Option<f64>,
    /// Wall outlets and the PSUs plugged into each (several PSUs on one power strip share its
    /// outlet). A PSU in no outlet has an outlet of its own rated `outlet_continuous_a`. Older
    /// files have none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outlets: Vec<Outlet>,
}

/// A kind of wall outlet (receptacle), with its rating and the current it may carry
/// continuously (3 h or more, as an LLM training run does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OutletKind {
    /// NEMA 5-15 (US 120 V, 15 A): 12 A continuous.
    Nema515,
    /// NEMA 5-20 (US 120 V, 20 A): 16 A continuous.
    Nema520,
    /// NEMA 6-15 (US 240 V, 15 A): 12 A continuous.
    Nema615,
    /// NEMA 6-20 (US 240 V, 20 A): 16 A continuous.
    Nema620,
    /// Schuko CEE 7/3 (230 V, 16 A): 10 A planning figure for continuous load.
    Schuko,
    /// IEC 60309 blue 16 A (230 V): rated for its current continuously.
    Iec60309x16,
    /// IEC 60309 blue 32 A (230 V): rated for its current continuously.
    Iec60309x32,
}

impl OutletKind {
    /// Name for people (`NEMA 5-15`).
    pub fn name(self) -> &'static str {
        match self {
            OutletKind::Nema515 => "NEMA 5-15",
            OutletKind::Nema520 => "NEMA 5-20",
            OutletKind::Nema615 => "NEMA 6-15",
            OutletKind::Nema620 => "NEMA 6-20",
            OutletKind::Schuko => "Schuko",
            OutletKind::Iec60309x16 => "IEC 60309 16 A",
            OutletKind::Iec60309x32 => "IEC 60309 32 A",
        }
    }

    /// `(rated, continuous)` current, A. NEMA: a cord-and-plug load on a 15 A receptacle is at
    /// most 12 A and on a 20 A one 16 A (US NEC 210.21(B)(2), 80 % for continuous loads,
    /// 210.19(A)); Schuko: rated 16 A, 10 A for continuous load (elektrofachkraft.de, "Der
    /// Schukostecker und seine Besonderheiten"); IEC 60309 industrial connectors carry their
    /// rated current (IEC 60309-1). Sources collected in `docs/sources.md`.
    pub(crate) fn ratings_a(self) -> (f64, f64) {
        match self {
            OutletKind::Nema515 | OutletKind::Nema615 => (15.0, 12.0),
            OutletKind::Nema520 | OutletKind::Nema620 => (20.0, 16.0),
            OutletKind::Schuko => (16.0, 10.0),
            OutletKind::Iec60309x16 => (16.0, 16.0),
            OutletKind::Iec60309x32 => (32.0, 32.0),
        }
    }
}

/// One wall outlet and what is plugged into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outlet {
    /// Its kind.
    pub kind: OutletKind,
    /// The PSUs plugged into it, by index into `Build::psus` (0-based; several = a power
    /// strip). They must be on the same circuit.
    #[serde(default)]
    pub psus: Vec<usize>,
    /// Continuous rating, A, when not the kind's.
    #[serde(default)]
    pub continuous_a: Option<f64>,
}

impl Outlet {
    /// Continuous current it may carry, A.
    pub fn continuous_a(&self) -> f64 {
        self.continuous_a.unwrap_or(self.kind.ratings_a().1)
    }

    /// Rated (absolute) current, A: the kind's, or the override where that is higher.
    pub(crate) fn rated_a(&self) -> f64 {
        self.kind.ratings_a().0.max(self.continuous_a.unwrap_or(0.0))
    }
}

impl Default for Site {
    /// A US 15 A / 120 V circuit at 25 °C and $0.17/kWh (US residential average 2024, EIA
    /// Electric Power Monthly table 5.6.A), 50 % duty.
    fn default() -> Self {
        Site {
            mains_v: 120.0,
            circuit_a: 15.0,
            circuits: 1,
            ambient_c: 25.0,
            price_per_kwh: 0.17,
            duty_cycle: 0.5,
            outlet_continuous_a: None,
            outlets: Vec::new(),
        }
    }
}

/// What the build will run, for the LLM-fit estimate.
///
/// The vocabulary fields are typed ([`crate::workload`]) and stored in the file as their
/// names (`precision: "q4_k_m"`, `mode: "inference"`, `parallel: "tp:8"`, `interconnect:
/// "ib-ndr"`, `runtime: "vllm"`): a name the type does not know is refused when the file is read, located at its
/// key, with the accepted names listed. A file spelling an alias (`"Q4_K_M"`, `"awq"`,
/// `"pp:2"`) reads as that value and is saved under its canonical name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Model preset id (`catalog/models.ron`).
    pub model: String,
    /// Weight precision (`bf16`, `fp8`, `int4`, `q4_k_m`, ...).
    #[serde(with = "crate::workload::text")]
    pub precision: Precision,
    /// Context length, tokens.
    pub context: u32,
    /// Concurrent sequences.
    #[serde(default = "one_u32")]
    pub batch: u32,
    /// `inference`, `full-fine-tune`, `lora` or `qlora` ([`Mode::file_name`]); default
    /// inference.
    #[serde(default, with = "crate::workload::mode_text")]
    pub mode: Mode,
    /// Training: recompute activations in backward, keeping only each layer's input.
    #[serde(default)]
    pub gradient_checkpointing: bool,
    /// How the model is spread (`tp:8`, `tp:8,pp:2`, `split:4`, ...); `None` = the default
    /// for the GPUs and precision.
    #[serde(default, with = "crate::workload::text_opt")]
    pub parallel: Option<Parallelism>,
    /// Identical nodes of this build the plan spans; `None` = 1.
    #[serde(default)]
    pub nodes: Option<u32>,
    /// Link between nodes (`ib-ndr`, `ib-hdr`, `roce-400`, `eth-100`, ...).
    #[serde(default, with = "crate::workload::text_opt")]
    pub interconnect: Option<Interconnect>,
    /// The runtime the workload is planned for (`vllm`, `llama.cpp`, `exllamav2`, ...; the
    /// names of [`Runtime`]'s `Display`); `None` = the precision's usual one
    /// ([`Runtime::default_for`]). `kraftwerk fit`, `compare` and the window's Fit tab estimate
    /// with it; `fit --runtime` overrides it. `kraftwerk plan` writes the runtime it judged
    /// every result with, so the saved build fits as the planner said. Files without it
    /// (every file before it existed) read as `None`; `None` is not written.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::workload::text_opt")]
    pub runtime: Option<Runtime>,
    /// llama.cpp's back end (`cuda`, `hip`, `vulkan`, `sycl`, `cpu`;
    /// [`crate::workload::LlamaCppBackend`]); `None` = the one the first GPU's vendor
    /// implies (CUDA on NVIDIA, HIP on AMD, SYCL on Intel). Other runtimes ignore it; `fit
    /// --backend` overrides it. Files without it read as `None`; `None` is not written.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::workload::text_opt")]
    pub backend: Option<crate::workload::LlamaCppBackend>,
    /// vLLM `--max-num-seqs` the build runs with; `None` = vLLM's default for the GPU (1024 on
    /// GPUs of 70 GiB or more but the A100, else 256). The sequences of vLLM's profiling
    /// sampler step, so a lower value leaves a larger KV pool: `kraftwerk plan` writes the
    /// value `fit` names ("vLLM starts, by this estimate, with any one of: --max-num-seqs N")
    /// when the build fits only with it (gpt-oss-120b on one H100 at 100K tokens), so the
    /// saved build fits as the planner said. `kraftwerk fit`, `compare` and the window's Fit tab
    /// estimate with it; `fit --max-num-seqs` overrides it. Other runtimes ignore it. Files
    /// without it read as `None`; `None` is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_num_seqs: Option<u32>,
}

fn one_u32() -> u32 {
    1
}

/// A build with its ids looked up. Missing ids are reported by [`Build::unknown_ids`]; here they
/// are simply `None`.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    /// The build.
    pub build: &'a Build,
    /// CPU.
    pub cpu: Option<&'a Cpu>,
    /// Motherboard.
    pub board: Option<&'a Motherboard>,
    /// CPU cooler.
    pub cooler: Option<&'a Cooler>,
    /// Case.
    pub case: Option<&'a Case>,
    /// Memory kit and count.
    pub memory: Option<(&'a MemoryKit, u8)>,
    /// Drives, in build order (unknown ids skipped).
    pub storage: Vec<(&'a Storage, &'a StorageUse)>,
    /// GPUs in build order: `None` where the id is unknown.
    pub gpus: Vec<Option<&'a Gpu>>,
    /// PSUs in build order: `None` where the id is unknown.
    pub psus: Vec<Option<&'a Psu>>,
    /// Workload model.
    pub model: Option<&'a LlmModel>,
    /// Per GPU, in build order: `true` where the GPU is an owned unit named by its chip only
    /// (`owned: ["1x nvidia-geforce-rtx-3090"]` on a `gpu: "nvidia-geforce-rtx-3090"`
    /// placement) while the catalog lists partner cards of that chip, so which card the owner
    /// has, and its length, thickness and power sockets, are not known: the chip entry's are
    /// its reference board's (the RTX 3090 Founders Edition's 313 mm), not every card's (a chip
    /// whose partner cards all match it, [`card_differs`], names its card; SXM modules have no
    /// partner boards). The
    /// first `owned_count` such placements of a chip are the owned ones (a GPU named by a
    /// partner card id, defined inline, or bought is named).
    pub unnamed_cards: Vec<bool>,
    /// Per GPU, whether it is a partner card whose entry publishes no slot width
    /// (`GpuCard::width_slots` is `None`): its resolved `width_slots` is then the chip's
    /// reference board's (`GpuCard::resolve`), not a figure of this card (a water-blocked card
    /// is far thinner), so a rule that must not err on it leaves it out.
    pub width_unknown: Vec<bool>,
}

/// Whether partner card `card` may differ from its chip entry `chip` in what the placement
/// rules read: length, width, cooler or power sockets (a figure the card does not publish may
/// differ). A chip whose every partner card matches it (NVIDIA's RTX 6000 Ada and PNY's board
/// of it) names its card.
pub(crate) fn card_differs(card: &kraftwerk_catalog::GpuCard, chip: &Gpu) -> bool {
    card.length_mm.is_none_or(|l| chip.length_mm.is_none_or(|c| (l - c).abs() > 0.5))
        || card.width_slots.is_none_or(|w| w != chip.width_slots)
        || card.cooler.is_none_or(|k| k != chip.cooler)
        || card.power_inputs.is_none_or(|p| chip.power_inputs != Some(p))
}

impl Resolved<'_> {
    /// Whether GPU `i` is an owned unit named only by its chip ([`Resolved::unnamed_cards`]).
    pub fn card_unnamed(&self, i: usize) -> bool {
        self.unnamed_cards.get(i).copied().unwrap_or(false)
    }
}

/// Looks an id up in the build's inline parts first, then in the catalog.
fn find<'a, T: kraftwerk_catalog::HasId>(inline: &'a [T], catalog: &'a [T], id: &str) -> Option<&'a T> {
    inline.iter().find(|p| p.id() == id).or_else(|| catalog.iter().find(|p| p.id() == id))
}

impl Build {
    /// Looks up every part id (inline parts first, then `catalog`).
    pub fn resolve<'a>(&'a self, catalog: &'a Catalog) -> Resolved<'a> {
        let p = &self.parts;
        Resolved {
            build: self,
            cpu: self.cpu.as_deref().and_then(|id| find(&p.cpus, &catalog.cpus, id)),
            board: self.motherboard.as_deref().and_then(|id| find(&p.motherboards, &catalog.motherboards, id)),
            cooler: self.cooler.as_deref().and_then(|id| find(&p.coolers, &catalog.coolers, id)),
            case: self.case.as_deref().and_then(|id| find(&p.cases, &catalog.cases, id)),
            memory: self.memory.as_ref().and_then(|m| find(&p.memory, &catalog.memory, &m.kit).map(|k| (k, m.kits))),
            storage: self
                .storage
                .iter()
                .filter_map(|s| find(&p.storage, &catalog.storage, &s.drive).map(|d| (d, s)))
                .collect(),
            gpus: self
                .gpus
                .iter()
                .map(|g| p.gpus.iter().find(|x| x.id == g.gpu).or_else(|| catalog.gpu_or_card(&g.gpu)))
                .collect(),
            psus: self.psus.iter().map(|u| find(&p.psus, &catalog.psus, &u.psu)).collect(),
            model: self.workload.as_ref().and_then(|w| find(&p.models, &catalog.models, &w.model)),
            unnamed_cards: self.unnamed_cards(catalog),
            width_unknown: self
                .gpus
                .iter()
                .map(|g| {
                    let inline = self.parts.gpus.iter().any(|p| p.id == g.gpu);
                    !inline && catalog.gpu_card(&g.gpu).is_some_and(|c| c.width_slots.is_none())
                })
                .collect(),
        }
    }

    /// [`Resolved::unnamed_cards`]: per GPU, whether it is an owned unit named by a chip that
    /// has partner cards in `catalog`.
    fn unnamed_cards(&self, catalog: &Catalog) -> Vec<bool> {
        let mut left: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
        self.gpus
            .iter()
            .map(|g| {
                let id = g.gpu.as_str();
                let n = left.entry(id).or_insert_with(|| self.owned_count(id).unwrap_or(0));
                if *n == 0 {
                    return false;
                }
                let ambiguous = !self.parts.gpus.iter().any(|x| x.id == id)
                    && catalog.gpu(id).is_some_and(|chip| {
                        chip.form_factor != kraftwerk_catalog::GpuFormFactor::Sxm
                            && catalog.gpu_cards.iter().any(|c| c.chip == id && card_differs(c, chip))
                    });
                if !ambiguous {
                    return false;
                }
                *n -= 1;
                true
            })
            .collect()
    }

    /// Every part id the build names that neither its inline parts nor `catalog` define, as
    /// `(field, id)` pairs (`("gpus[2].gpu", "nvidia-rtx-9090")`).
    pub fn unknown_ids(&self, catalog: &Catalog) -> Vec<(String, String)> {
        let r = self.resolve(catalog);
        let mut out = Vec::new();
        let mut check = |field: &str, id: Option<&String>, found: bool| {
            if let Some(id) = id
                && !found
            {
                out.push((field.to_owned(), id.clone()));
            }
        };
        check("cpu", self.cpu.as_ref(), r.cpu.is_some());
        check("motherboard", self.motherboard.as_ref(), r.board.is_some());
        check("cooler", self.cooler.as_ref(), r.cooler.is_some());
        check("case", self.case.as_ref(), r.case.is_some());
        check("memory.kit", self.memory.as_ref().map(|m| &m.kit), r.memory.is_some());
        check("workload.model", self.workload.as_ref().map(|w| &w.model), r.model.is_some());
        for (i, s) in self.storage.iter().enumerate() {
            let found = find(&self.parts.storage, &catalog.storage, &s.drive).is_some();
            check(&format!("storage[{i}].drive"), Some(&s.drive), found);
        }
        for (i, (g, found)) in self.gpus.iter().zip(&r.gpus).enumerate() {
            check(&format!("gpus[{i}].gpu"), Some(&g.gpu), found.is_some());
        }
        for (i, (u, found)) in self.psus.iter().zip(&r.psus).enumerate() {
            check(&format!("psus[{i}].psu"), Some(&u.psu), found.is_some());
        }
        out
    }

    /// The part kinds a field of [`Build::unknown_ids`] takes ids of (`"gpus[2].gpu"`: GPU
    /// chips and cards); empty for a field it does not name.
    pub(crate) fn field_kinds(field: &str) -> &'static [kraftwerk_catalog::PartKind] {
        use kraftwerk_catalog::PartKind;
        let head = field.split(['[', '.']).next().unwrap_or(field);
        match head {
            "cpu" => &[PartKind::Cpu],
            "motherboard" => &[PartKind::Motherboard],
            "cooler" => &[PartKind::Cooler],
            "case" => &[PartKind::Case],
            "memory" => &[PartKind::Memory],
            "workload" => &[PartKind::Model],
            "storage" => &[PartKind::Storage],
            "gpus" => &[PartKind::Gpu, PartKind::GpuCard],
            "psus" => &[PartKind::Psu],
            _ => &[],
        }
    }

    /// Index of the PSU that feeds the motherboard and CPU: the one marked `feeds_system`,
    /// else the first. `None` when the build has no PSU.
    pub fn system_psu(&self) -> Option<usize> {
        if self.psus.is_empty() {
            return None;
        }
        Some(self.psus.iter().position(|p| p.feeds_system == Some(true)).unwrap_or(0))
    }
}

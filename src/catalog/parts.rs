//! Part types. Field names carry their units (`_w`, `_mm`, `_gb_s`, `_gib`, `_tflops`).
//!
//! Conventions shared by every part:
//! - `id`: stable kebab-case slug, unique within its kind (`nvidia-geforce-rtx-4090`).
//! - `source`: URL of the vendor datasheet or spec page the figures come from (first choice),
//!   else the review or whitepaper that quotes them. `notes` says which figure came from where
//!   when there is more than one source, and what is derived.
//! - `price_usd` with `price_date` (`YYYY-MM` or `YYYY-MM-DD`): launch MSRP or a dated street
//!   price, `None` when unpublished.
//! - `Option` figures are `None` when no source publishes them; never guessed.

use super::Origin;
use serde::{Deserialize, Serialize};

/// Access to the fields every part has, for generic catalog code.
pub trait HasId {
    /// The part's id.
    fn id(&self) -> &str;
    /// Display name (vendor + model).
    fn display_name(&self) -> String;
    /// Source URL.
    fn source(&self) -> &str;
    /// Where the part was loaded from.
    fn origin(&self) -> &Origin;
    /// Sets where the part was loaded from.
    fn set_origin(&mut self, origin: Origin);
}

macro_rules! has_id {
    ($($ty:ty),*) => {$(
        impl HasId for $ty {
            fn id(&self) -> &str { &self.id }
            fn display_name(&self) -> String { format!("{} {}", self.vendor, self.name) }
            fn source(&self) -> &str { &self.source }
            fn origin(&self) -> &Origin { &self.origin }
            fn set_origin(&mut self, origin: Origin) { self.origin = origin; }
        }
    )*};
}
has_id!(Gpu, Cpu, Motherboard, Psu, Cooler, Case, MemoryKit, Storage, LlmModel);

/// One RON parts file: any mix of kinds, each list optional.
///
/// Built-in files hold one kind each (`catalog/gpus.ron` is `(gpus: [ ... ])`); a user's file
/// may hold several. Unknown keys are errors.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PartsFile {
    /// GPUs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<Gpu>,
    /// CPUs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<Cpu>,
    /// Motherboards.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub motherboards: Vec<Motherboard>,
    /// PSUs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub psus: Vec<Psu>,
    /// CPU coolers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub coolers: Vec<Cooler>,
    /// Cases.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<Case>,
    /// Memory kits.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<MemoryKit>,
    /// NVMe drives.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<Storage>,
    /// LLM model presets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<LlmModel>,
}

// ---------------------------------------------------------------- GPU

/// How a GPU is cooled, which decides where it can live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GpuCooler {
    /// Axial fans blowing onto the board; exhausts into the case. Needs a gap above it.
    OpenAir,
    /// Radial fan exhausting through the bracket; made to stack card against card.
    Blower,
    /// No fan: needs ducted server airflow (datacenter cards).
    Passive,
    /// Liquid block or AIO.
    Liquid,
    /// SXM/OAM module: cooled by the system it is built into.
    System,
}

/// Physical form of a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GpuFormFactor {
    /// Add-in card in a PCIe slot.
    Pcie,
    /// SXM module on an HGX baseboard (no slot, no cables).
    Sxm,
}

/// Power inputs on a GPU board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpuPowerInputs {
    /// 16-pin 12VHPWR / 12V-2x6 sockets (each up to 600 W, PCIe CEM 5.0).
    pub hpwr_16pin: u8,
    /// PCIe 8-pin sockets (150 W each, PCIe CEM).
    pub pcie_8pin: u8,
    /// CPU/EPS-12V 8-pin sockets (datacenter and some workstation cards).
    pub eps_8pin: u8,
    /// PCIe 6-pin sockets (75 W each).
    pub pcie_6pin: u8,
}

/// Peer-to-peer link a GPU supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum NvLink {
    /// No GPU-to-GPU link besides PCIe.
    None,
    /// NVLink bridge over the top edge of two (or four) cards.
    Bridge {
        /// Total bidirectional bandwidth of the bridged pair, GB/s.
        bandwidth_gb_s: f64,
        /// Bridge sizes sold, as slot spacing from card to card (2 = adjacent slots, 3 = one
        /// empty slot between, ...).
        bridge_slot_spacings: Vec<u8>,
        /// Most cards one bridge set joins.
        max_gpus: u8,
    },
    /// NVLink through NVSwitch on an HGX baseboard.
    Sxm {
        /// Per-GPU total NVLink bandwidth, GB/s.
        bandwidth_gb_s: f64,
    },
    /// AMD Infinity Fabric bridge.
    InfinityFabric {
        /// Bandwidth per bridged card, GB/s, if published.
        bandwidth_gb_s: Option<f64>,
    },
}

/// Dense peak tensor/vector rates in TFLOP/s (INT8 in TOPS), without 2:4 sparsity.
///
/// `fp16`, `bf16` and `fp8` are with FP32 accumulate, the mode frameworks use for training and
/// most inference. GeForce cards run FP16/FP8 twice as fast with FP16 accumulate: those rates are
/// in `fp16_acc16`/`fp8_acc16`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeakTflops {
    /// Plain FP32 (non-tensor).
    pub fp32: Option<f64>,
    /// TF32 tensor.
    pub tf32: Option<f64>,
    /// FP16 tensor, FP32 accumulate.
    pub fp16: Option<f64>,
    /// BF16 tensor, FP32 accumulate.
    pub bf16: Option<f64>,
    /// FP8 tensor, FP32 accumulate.
    pub fp8: Option<f64>,
    /// INT8 tensor, TOPS.
    pub int8_tops: Option<f64>,
    /// FP16 tensor with FP16 accumulate, where it differs (GeForce).
    pub fp16_acc16: Option<f64>,
    /// FP8 tensor with FP16 accumulate, where it differs (GeForce).
    pub fp8_acc16: Option<f64>,
}

/// A graphics or accelerator card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// Stable id.
    pub id: String,
    /// Maker (`NVIDIA`, `AMD`).
    pub vendor: String,
    /// Model name (`GeForce RTX 4090`).
    pub name: String,
    /// Architecture and chip (`Ada Lovelace (AD102)`).
    pub architecture: String,
    /// CUDA compute capability (`8.9`), `None` for non-NVIDIA cards.
    #[serde(default)]
    pub compute_capability: Option<String>,
    /// Memory capacity in GiB as the driver reports it (vendors print GB; GDDR "24 GB" is 24 GiB).
    pub memory_gib: f64,
    /// Memory type (`GDDR6X`, `HBM3e`).
    pub memory_type: String,
    /// Peak memory bandwidth, GB/s (decimal).
    pub memory_bandwidth_gb_s: f64,
    /// Whether the memory has ECC; `None` if unpublished.
    #[serde(default)]
    pub ecc: Option<bool>,
    /// Default board power (TGP/TBP/TDP), W.
    pub board_power_w: f64,
    /// Highest power limit the board allows, W, if published (defaults to `board_power_w`).
    #[serde(default)]
    pub max_power_limit_w: Option<f64>,
    /// Lowest settable power limit, W, if published.
    #[serde(default)]
    pub min_power_limit_w: Option<f64>,
    /// Idle power, W, if published.
    #[serde(default)]
    pub idle_power_w: Option<f64>,
    /// Dense peak rates.
    pub peak: PeakTflops,
    /// Host link PCIe generation (3, 4, 5).
    pub pcie_gen: u8,
    /// Host link PCIe lanes (16).
    pub pcie_lanes: u8,
    /// Add-in card or SXM module.
    pub form_factor: GpuFormFactor,
    /// Expansion slots the card covers (rounded up: a 2.5-slot card is 3). 0 for SXM.
    pub width_slots: u8,
    /// Card length, mm, if published.
    #[serde(default)]
    pub length_mm: Option<f64>,
    /// Cooler type.
    pub cooler: GpuCooler,
    /// Power sockets on the card.
    pub power_inputs: GpuPowerInputs,
    /// GPU-to-GPU link.
    pub nvlink: NvLink,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Which figure comes from where; what is derived.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl Gpu {
    /// Highest settable power limit, W (`max_power_limit_w`, else `board_power_w`).
    pub fn max_limit_w(&self) -> f64 {
        self.max_power_limit_w.unwrap_or(self.board_power_w)
    }

    /// Whether the card is a GeForce consumer card (half-rate FP32-accumulate tensor math, no
    /// P2P on stock drivers).
    pub fn is_geforce(&self) -> bool {
        self.name.contains("GeForce")
    }
}

// ---------------------------------------------------------------- memory type

/// DRAM generation and module type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MemoryType {
    /// DDR4 unbuffered DIMM.
    Ddr4Udimm,
    /// DDR4 registered DIMM (incl. LRDIMM).
    Ddr4Rdimm,
    /// DDR5 unbuffered DIMM (incl. CUDIMM).
    Ddr5Udimm,
    /// DDR5 registered DIMM.
    Ddr5Rdimm,
}

impl std::fmt::Display for MemoryType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MemoryType::Ddr4Udimm => "DDR4 UDIMM",
            MemoryType::Ddr4Rdimm => "DDR4 RDIMM",
            MemoryType::Ddr5Udimm => "DDR5 UDIMM",
            MemoryType::Ddr5Rdimm => "DDR5 RDIMM",
        })
    }
}

// ---------------------------------------------------------------- CPU

/// PCIe lanes per generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PcieLanes {
    /// PCIe 5.0 lanes.
    pub gen5: u16,
    /// PCIe 4.0 lanes.
    pub gen4: u16,
    /// PCIe 3.0 lanes.
    pub gen3: u16,
}

impl PcieLanes {
    /// All lanes regardless of generation.
    pub fn total(&self) -> u16 {
        self.gen5 + self.gen4 + self.gen3
    }
}

/// A processor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    /// Stable id.
    pub id: String,
    /// `AMD` or `Intel`.
    pub vendor: String,
    /// Model (`Ryzen Threadripper 7980X`).
    pub name: String,
    /// Socket (`sTR5`, `SP5`, `SP3`, `AM5`, `LGA1700`, `LGA1851`, `LGA4677`).
    pub socket: String,
    /// Cores.
    pub cores: u16,
    /// Threads.
    pub threads: u16,
    /// TDP (AMD) or Processor Base Power (Intel), W.
    pub tdp_w: f64,
    /// Package power limit: AMD PPT or Intel PL2 (Maximum Turbo Power), W, if published.
    #[serde(default)]
    pub package_power_w: Option<f64>,
    /// CPU PCIe lanes usable for slots and M.2 (chipset link excluded).
    pub pcie_lanes: PcieLanes,
    /// Memory types the CPU supports.
    pub memory_types: Vec<MemoryType>,
    /// Memory channels.
    pub memory_channels: u8,
    /// Maximum memory, GB, if published.
    #[serde(default)]
    pub max_memory_gb: Option<u32>,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

// ---------------------------------------------------------------- motherboard

/// Board and case form factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FormFactor {
    /// Mini-ITX, 170 x 170 mm.
    MiniItx,
    /// Micro-ATX, 244 x 244 mm.
    MicroAtx,
    /// ATX, 305 x 244 mm.
    Atx,
    /// Extended ATX (vendor-defined, up to about 305 x 277 mm).
    EAtx,
    /// SSI CEB, 305 x 267 mm.
    Ceb,
    /// SSI EEB, 305 x 330 mm.
    Eeb,
    /// Server board in a proprietary size (HGX systems).
    Proprietary,
}

impl std::fmt::Display for FormFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FormFactor::MiniItx => "Mini-ITX",
            FormFactor::MicroAtx => "Micro-ATX",
            FormFactor::Atx => "ATX",
            FormFactor::EAtx => "E-ATX",
            FormFactor::Ceb => "SSI-CEB",
            FormFactor::Eeb => "SSI-EEB",
            FormFactor::Proprietary => "proprietary",
        })
    }
}

/// Where a slot's lanes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneSource {
    /// CPU root port.
    Cpu,
    /// Chipset (shares the chipset's uplink to the CPU).
    Chipset,
}

/// A lane-sharing rule: when the named slot or M.2 socket is populated, this one runs at
/// `lanes` (0 = disabled). From the board manual's expansion-slot table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneShare {
    /// Name of the other slot or M.2 socket (as in `PcieSlot::name` / `M2Slot::name`).
    pub when_used: String,
    /// Electrical lanes left to this slot then.
    pub lanes: u8,
}

/// A PCIe expansion slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcieSlot {
    /// Silkscreen name (`PCIEX16_1`).
    pub name: String,
    /// Expansion-slot position, 1 = the one nearest the CPU (top in a tower). A card of width
    /// `w` in position `p` covers positions `p .. p + w - 1`.
    pub position: u8,
    /// Physical connector size in lanes (16, 8, 4, 1).
    pub physical_lanes: u8,
    /// Electrical lanes with nothing shared.
    pub electrical_lanes: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
    /// CPU or chipset lanes.
    pub lane_source: LaneSource,
    /// Sharing rules.
    #[serde(default)]
    pub shares: Vec<LaneShare>,
}

/// An M.2 socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct M2Slot {
    /// Silkscreen name (`M.2_1`).
    pub name: String,
    /// Electrical lanes.
    pub lanes: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
    /// CPU or chipset lanes.
    pub lane_source: LaneSource,
    /// Sharing rules.
    #[serde(default)]
    pub shares: Vec<LaneShare>,
}

/// A motherboard with its slot-by-slot PCIe layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motherboard {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model.
    pub name: String,
    /// CPU socket.
    pub socket: String,
    /// Chipset (`WRX90`, `X870E`; `SoC` for EPYC boards).
    pub chipset: String,
    /// CPU sockets (2 on dual-socket servers; the build's CPU is fitted in each).
    #[serde(default = "one")]
    pub cpu_sockets: u8,
    /// Form factor.
    pub form_factor: FormFactor,
    /// Memory type supported.
    pub memory_type: MemoryType,
    /// DIMM slots.
    pub memory_slots: u8,
    /// Memory channels wired.
    pub memory_channels: u8,
    /// Maximum memory, GB, if published.
    #[serde(default)]
    pub max_memory_gb: Option<u32>,
    /// PCIe expansion slots, by position.
    pub pcie_slots: Vec<PcieSlot>,
    /// M.2 sockets.
    #[serde(default)]
    pub m2_slots: Vec<M2Slot>,
    /// EPS-12V 8-pin CPU power inputs.
    pub eps_8pin: u8,
    /// Extra PCIe/6-pin power inputs for the slots, if any.
    #[serde(default)]
    pub aux_pcie_power: u8,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes (which rules come from the manual, which are unconfirmed).
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl Motherboard {
    /// The slot at expansion position `position`, if any.
    pub fn slot_at(&self, position: u8) -> Option<&PcieSlot> {
        self.pcie_slots.iter().find(|s| s.position == position)
    }

    /// Highest expansion-slot position on the board (0 when there are none).
    pub fn last_position(&self) -> u8 {
        self.pcie_slots.iter().map(|s| s.position).max().unwrap_or(0)
    }
}

// ---------------------------------------------------------------- PSU

/// ATX PSU design-guide generation; 3.x adds the power-excursion table and 12VHPWR/12V-2x6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtxVersion {
    /// ATX 2.x (no excursion specification).
    Atx2,
    /// ATX 3.0.
    Atx30,
    /// ATX 3.1.
    Atx31,
    /// Server / CRPS unit (no ATX excursion table).
    Server,
}

/// 80 PLUS certification level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EightyPlus {
    /// No certification.
    None,
    /// 80 PLUS (white).
    Standard,
    /// Bronze.
    Bronze,
    /// Silver.
    Silver,
    /// Gold.
    Gold,
    /// Platinum.
    Platinum,
    /// Titanium.
    Titanium,
}

/// AC inlet on the PSU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Inlet {
    /// IEC C14: 10 A (15 A in North America).
    C14,
    /// IEC C20: 16 A (20 A in North America).
    C20,
}

/// One measured or certified point of a PSU's efficiency curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EfficiencyPoint {
    /// Load as a percentage of rated output.
    pub load_pct: f64,
    /// Efficiency in percent (DC out / AC in).
    pub efficiency_pct: f64,
}

/// Modular cables and sockets a PSU offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PsuConnectors {
    /// 12V-2x6 / 12VHPWR cables.
    pub hpwr_16pin: u8,
    /// Power class of those cables as signalled by their sense pins, W (600, 450, 300, 150).
    pub hpwr_class_w: u16,
    /// PCIe 8-pin (6+2) connectors.
    pub pcie_8pin: u8,
    /// EPS-12V 8-pin (4+4) connectors.
    pub eps_8pin: u8,
}

/// A power supply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Psu {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model.
    pub name: String,
    /// Rated continuous DC output at high-line (230 V) input, W.
    pub rated_w: f64,
    /// Rated output at 100-120 V input where the unit is derated there, W.
    #[serde(default)]
    pub rated_w_low_line: Option<f64>,
    /// ATX generation.
    pub atx_version: AtxVersion,
    /// 80 PLUS level.
    pub eighty_plus: EightyPlus,
    /// Published efficiency points (115 V internal unless `notes` says otherwise); empty when
    /// only the level is known (then the level's minimums are used).
    #[serde(default)]
    pub efficiency: Vec<EfficiencyPoint>,
    /// Cables and sockets.
    pub connectors: PsuConnectors,
    /// AC inlet.
    pub inlet: Inlet,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl Psu {
    /// Rated output at `mains_v`: the low-line rating below 180 V where one is published.
    pub fn rated_w_at(&self, mains_v: f64) -> f64 {
        if mains_v < 180.0 { self.rated_w_low_line.unwrap_or(self.rated_w) } else { self.rated_w }
    }
}

// ---------------------------------------------------------------- cooler

/// CPU cooler type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CoolerType {
    /// Tower or top-down air cooler.
    Air,
    /// All-in-one liquid cooler with a radiator.
    Aio,
}

/// A CPU cooler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cooler {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model.
    pub name: String,
    /// Air or AIO.
    pub cooler_type: CoolerType,
    /// Heat the vendor rates it for, W, if published.
    #[serde(default)]
    pub rated_tdp_w: Option<f64>,
    /// Sockets it mounts on.
    pub sockets: Vec<String>,
    /// Height above the board (air coolers), mm.
    #[serde(default)]
    pub height_mm: Option<f64>,
    /// Radiator length (AIO), mm: 240, 280, 360, 420.
    #[serde(default)]
    pub radiator_mm: Option<u16>,
    /// Fan and pump power, W, if published.
    #[serde(default)]
    pub power_w: Option<f64>,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

// ---------------------------------------------------------------- case

/// What kind of airflow a case gives its GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Airflow {
    /// Desktop tower with standard case fans.
    Desktop,
    /// Open frame: no enclosure; cards breathe room air.
    OpenFrame,
    /// Server chassis with ducted high-static-pressure fans through the cards.
    Server,
}

/// A case, rack chassis or open frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model.
    pub name: String,
    /// Board form factors it takes.
    pub form_factors: Vec<FormFactor>,
    /// Expansion-slot openings.
    pub expansion_slots: u8,
    /// Longest GPU it fits, mm, if published.
    #[serde(default)]
    pub max_gpu_length_mm: Option<f64>,
    /// Tallest air cooler it fits, mm, if published.
    #[serde(default)]
    pub max_cooler_height_mm: Option<f64>,
    /// Largest radiator it mounts, mm, if published.
    #[serde(default)]
    pub max_radiator_mm: Option<u16>,
    /// Airflow class.
    pub airflow: Airflow,
    /// Heat the case can move out at a sane internal temperature, W, if known (vendor figure or
    /// the airflow class's planning figure, see `notes`).
    #[serde(default)]
    pub max_heat_w: Option<f64>,
    /// Number of PSUs it holds.
    #[serde(default = "one")]
    pub psu_bays: u8,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

fn one() -> u8 {
    1
}

// ---------------------------------------------------------------- memory, storage

/// A memory kit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryKit {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model / part number.
    pub name: String,
    /// DRAM type.
    pub memory_type: MemoryType,
    /// Modules in the kit.
    pub modules: u8,
    /// Capacity per module, GB.
    pub module_gb: u32,
    /// Data rate, MT/s.
    pub speed_mt_s: u32,
    /// ECC.
    pub ecc: bool,
    /// Power per module under load, W, if published.
    #[serde(default)]
    pub power_w_per_module: Option<f64>,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl MemoryKit {
    /// Total capacity of the kit, GB.
    pub fn total_gb(&self) -> u32 {
        u32::from(self.modules) * self.module_gb
    }
}

/// An NVMe drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model.
    pub name: String,
    /// Capacity, GB (decimal).
    pub capacity_gb: u32,
    /// PCIe generation of its interface.
    pub pcie_gen: u8,
    /// PCIe lanes.
    pub pcie_lanes: u8,
    /// Form factor (`M.2 2280`, `U.2`).
    pub form_factor: String,
    /// Sequential read, MB/s, if published.
    #[serde(default)]
    pub seq_read_mb_s: Option<u32>,
    /// Average active power, W, if published.
    #[serde(default)]
    pub power_w: Option<f64>,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

// ---------------------------------------------------------------- LLM models

/// Attention layout, which decides the KV cache size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Attention {
    /// Every layer attends over the whole context (MHA or GQA by `kv_heads`).
    Full,
    /// Every layer attends over at most `window` tokens (Mistral 7B v0.1).
    SlidingWindow {
        /// Window, tokens.
        window: u32,
    },
    /// Alternating layers: every other layer is sliding-window (Gemma 2).
    Alternating {
        /// Window of the local layers, tokens.
        window: u32,
    },
    /// Multi-head latent attention (DeepSeek-V2/V3): one compressed latent per token per layer.
    Mla {
        /// Latent rank of the compressed KV (`kv_lora_rank`).
        kv_lora_rank: u32,
        /// Decoupled rotary key dimension (`qk_rope_head_dim`).
        rope_head_dim: u32,
    },
}

/// An LLM preset: the shape that decides memory and speed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmModel {
    /// Stable id (`llama-3.1-70b`).
    pub id: String,
    /// Publisher (`Meta`).
    pub vendor: String,
    /// Name (`Llama 3.1 70B`).
    pub name: String,
    /// Total parameters, billions (memory).
    pub params_b: f64,
    /// Parameters active per token, billions (MoE); `None` = dense (all active).
    #[serde(default)]
    pub active_params_b: Option<f64>,
    /// Transformer layers.
    pub layers: u32,
    /// Hidden size.
    pub hidden: u32,
    /// Attention heads.
    pub heads: u32,
    /// Key/value heads (GQA); equal to `heads` for MHA.
    pub kv_heads: u32,
    /// Head dimension.
    pub head_dim: u32,
    /// FFN intermediate size, if published.
    #[serde(default)]
    pub intermediate: Option<u32>,
    /// Vocabulary size.
    pub vocab: u32,
    /// Longest supported context, tokens.
    pub max_context: u32,
    /// Attention layout.
    pub attention: Attention,
    /// Source URL (config.json or paper).
    pub source: String,
    /// Not used for models; kept for a uniform schema.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Not used for models.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl LlmModel {
    /// Parameters read per decoded token, billions (active for MoE, all for dense).
    pub fn active_b(&self) -> f64 {
        self.active_params_b.unwrap_or(self.params_b)
    }
}

//! GPU parts and memory types.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

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

/// Power inputs on a GPU board, by connector type, and the vendor's own rating of them where
/// it states one.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
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
    /// Power the card's vendor rates these inputs for, slot included, W, where it states a
    /// rating above the connector standards' sum (NVIDIA's "Power Guidelines for Workstation
    /// Products", DA-07261-001: workstation cards of up to 250 W run from one PCIe 8-pin);
    /// `None`: the PCIe CEM ratings per connector apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rated_w: Option<f64>,
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
        /// empty slot between, ...); `None` where the vendor names no bridge size (the
        /// `nvlink-spacing` rule then reports the size check as not checked).
        bridge_slot_spacings: Option<Vec<u8>>,
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
    /// Tensor formats the chip has no hardware for, as its vendor documents: a rate that is
    /// `None` and marked here is absent (the chip cannot run that format as tensor math), one
    /// that is `None` and not marked is unknown (nobody entered it).
    #[serde(skip_serializing_if = "NoTensor::is_empty")]
    pub absent: NoTensor,
}

/// Tensor formats a chip lacks ([`PeakTflops::absent`]). In files: `absent: (fp8: true)`.
///
/// Each flag must cite the vendor's statement in the chip's notes (e.g. NVIDIA's Hopper
/// whitepaper introduces FP8 Tensor Cores with H100, so Ampere, Turing, Volta and Pascal chips
/// have none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(clippy::struct_excessive_bools, reason = "one independent yes/no per tensor format, read from RON")]
pub struct NoTensor {
    /// No TF32 tensor format.
    pub tf32: bool,
    /// No BF16 tensor format.
    pub bf16: bool,
    /// No FP8 tensor format.
    pub fp8: bool,
    /// No INT8 tensor format.
    pub int8: bool,
}

impl NoTensor {
    /// Whether no format is marked absent.
    pub fn is_empty(&self) -> bool {
        *self == NoTensor::default()
    }
}

/// What the catalog says about one tensor rate of a chip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TensorRate {
    /// The dense rate, TFLOP/s (TOPS for INT8).
    Known(f64),
    /// The chip has no tensor hardware for the format (the vendor says so).
    Absent,
    /// Nobody entered the rate: it is not in the catalog.
    Unknown,
}

impl PeakTflops {
    /// The FP8 tensor rate as known, absent or unknown.
    pub fn fp8_rate(&self) -> TensorRate {
        match (self.fp8, self.absent.fp8) {
            (Some(v), _) => TensorRate::Known(v),
            (None, true) => TensorRate::Absent,
            (None, false) => TensorRate::Unknown,
        }
    }
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
    /// Power sockets on the card; `None` when nobody published them (the `gpu-power-cable`
    /// rule then reports the card not checked). `()` is a card powered by its slot alone.
    #[serde(default)]
    pub power_inputs: Option<GpuPowerInputs>,
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
    /// Where the price comes from when it is not the part's own `source`: the street-price
    /// import (`docyx/pc-part-dataset@<commit>, PCPartPicker-derived, MIT`, with "median of N
    /// listings" where several were combined) or `user price file`; `None`: the part's `source`
    /// and `notes` (a curated launch MSRP or dated street price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Which figure comes from where; what is derived.
    #[serde(default)]
    pub notes: Option<String>,
    /// Per-figure provenance (curated chips: all from `source`, see `notes`).
    #[serde(default, skip_serializing_if = "Sources::is_default")]
    pub provenance: std::sync::Arc<Sources>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl Gpu {
    /// Highest settable power limit, W (`max_power_limit_w`, else `board_power_w`).
    pub fn max_limit_w(&self) -> f64 {
        self.max_power_limit_w.unwrap_or(self.board_power_w)
    }

    /// Why `limit_w` (a power limit set with `nvidia-smi -pl`, W) is outside the card's
    /// published range, in words naming the range (`"above its published maximum of 350 W
    /// (published range 200-350 W)"`); `None` when it is inside, or when the bound it would
    /// cross is unknown (`max_power_limit_w` / `min_power_limit_w` is `None`: the limit cannot
    /// be checked, see [`Gpu::limit_range_unknown`]).
    pub fn limit_outside_range(&self, limit_w: f64) -> Option<String> {
        let range = match (self.min_power_limit_w, self.max_power_limit_w) {
            (Some(lo), Some(hi)) => format!(" (published range {lo:.0}-{hi:.0} W)"),
            (None, Some(_)) => " (its minimum is unknown)".to_owned(),
            (Some(_), None) => " (its maximum is unknown)".to_owned(),
            (None, None) => String::new(),
        };
        if let Some(hi) = self.max_power_limit_w
            && limit_w > hi + 1e-9
        {
            return Some(format!("above its published maximum of {hi:.0} W{range}"));
        }
        if let Some(lo) = self.min_power_limit_w
            && limit_w < lo - 1e-9
        {
            return Some(format!("below its published minimum of {lo:.0} W{range}"));
        }
        None
    }

    /// Whether `limit_w` cannot be checked against the card's range: it is above the default
    /// board power and the highest settable limit is unknown, or below it and the lowest is
    /// unknown. Such a limit is used as set (never clamped to a guessed bound).
    pub fn limit_range_unknown(&self, limit_w: f64) -> bool {
        (limit_w > self.board_power_w + 1e-9 && self.max_power_limit_w.is_none())
            || (limit_w < self.board_power_w - 1e-9 && self.min_power_limit_w.is_none())
    }

    /// The card's power inputs, none where unknown (for counting cables and sockets; the
    /// `gpu-power-cable` rule reads [`Gpu::power_inputs`] itself and does not judge an unknown).
    pub fn inputs(&self) -> GpuPowerInputs {
        self.power_inputs.unwrap_or_default()
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

//! Memory kits and NVMe drives.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- memory, storage

/// A memory kit: curated (`catalog/memory.ron`) or imported from BuildCores OpenDB
/// (`catalog/opendb/memory.json`, DDR4/DDR5 DIMMs whose record states the buffering).
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
    /// Data rate, MT/s (the `DDR5-6000` rating).
    pub speed_mt_s: u32,
    /// ECC.
    pub ecc: bool,
    /// CAS latency at `speed_mt_s`, clock cycles (CL30), if published.
    #[serde(default)]
    pub cas_latency_cycles: Option<u32>,
    /// Module voltage at `speed_mt_s`, V (1.35 for most DDR5-6000 XMP/EXPO kits), if published.
    #[serde(default)]
    pub voltage_v: Option<f64>,
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
    /// Where the price comes from when it is not the part's own `source`: the street-price
    /// import (`docyx/pc-part-dataset@<commit>, PCPartPicker-derived, MIT`, with "median of N
    /// listings" where several were combined) or `user price file`; `None`: the part's `source`
    /// and `notes` (a curated launch MSRP or dated street price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Per-figure provenance (curated parts: all from `source`).
    #[serde(default, skip_serializing_if = "Sources::is_default")]
    pub provenance: std::sync::Arc<Sources>,
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
    /// Where the price comes from when it is not the part's own `source`: the street-price
    /// import (`docyx/pc-part-dataset@<commit>, PCPartPicker-derived, MIT`, with "median of N
    /// listings" where several were combined) or `user price file`; `None`: the part's `source`
    /// and `notes` (a curated launch MSRP or dated street price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

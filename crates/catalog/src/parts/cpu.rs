//! CPUs and their PCIe lanes.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

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

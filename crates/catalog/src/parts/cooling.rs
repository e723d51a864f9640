//! CPU coolers and cases.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- cooler

/// CPU cooler type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CoolerType {
    /// Tower or top-down air cooler.
    Air,
    /// All-in-one liquid cooler with a radiator.
    Aio,
}

/// A cooler maker's published verdict on one cooler–CPU pair, for makers that rate pairs
/// instead of publishing a TDP figure. Noctua publishes no TDP rating; it gives, per CPU, a
/// compatibility class saying how much turbo or overclocking headroom to expect
/// (<https://noctua.at/en/noctua-standardised-performance-rating>: "detailed CPU-specific
/// compatibility classifications that allow users to determine how much turbo or overclocking
/// headroom they can expect with a particular model on a specific CPU"). An entry copies the
/// maker's class for the pair, never one derived from a score (an NSPR value is not turned into
/// watts). The variants follow that page's headroom scale; the exact labels of Noctua's
/// compatibility centre were not read when this type was written (2026-12-06), so an entry's
/// `source` must quote the label it maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CoolerVerdictClass {
    /// Suitable, with high turbo/overclocking headroom.
    HighHeadroom,
    /// Suitable, with medium turbo/overclocking headroom.
    MediumHeadroom,
    /// Suitable, with low turbo/overclocking headroom.
    LowHeadroom,
    /// The maker does not recommend the cooler for this CPU.
    NotRecommended,
}

/// One published verdict: the maker's class for the cooler on one catalog CPU, and where it
/// is published (URL and the date it was read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoolerCpuVerdict {
    /// Catalog id of the CPU the verdict is for.
    pub cpu: String,
    /// The maker's class.
    pub verdict: CoolerVerdictClass,
    /// Where the maker publishes it (URL, date read).
    pub source: String,
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
    /// The maker's published per-CPU verdicts (empty: none entered). The `cooler-tdp` rule
    /// reads the verdict for the build's CPU when `rated_tdp_w` is unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_verdicts: Vec<CoolerCpuVerdict>,
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

impl Cooler {
    /// The maker's published verdict for the CPU of id `cpu_id`, if one is entered.
    pub fn verdict_for(&self, cpu_id: &str) -> Option<&CoolerCpuVerdict> {
        self.cpu_verdicts.iter().find(|v| v.cpu == cpu_id)
    }
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

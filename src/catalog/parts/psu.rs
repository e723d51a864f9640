//! Power supplies.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

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
    /// Not published in the source (imported units): treated like ATX 2.x, no excursion
    /// allowance assumed.
    Unknown,
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

/// Modular cables and sockets a PSU offers. A count nobody published is `None` (unknown), never
/// 0: the `psu-connectors` rule then reports "not checked" for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PsuConnectors {
    /// 12V-2x6 / 12VHPWR cables; `None` = unknown.
    #[serde(default)]
    pub hpwr_16pin: Option<u8>,
    /// Power class of those cables as signalled by their sense pins, W (600, 450, 300 or 150,
    /// PCIe CEM 5.0 / ATX 3.0 sideband table); `None` = unknown, and the `gpu-power-cable` rule
    /// then reports "not checked" for a 16-pin card on a native cable. Files of earlier versions
    /// wrote 0 for unknown: a 0 reads as `None`.
    #[serde(default, deserialize_with = "class_w_zero_is_unknown")]
    pub hpwr_class_w: Option<u16>,
    /// PCIe 8-pin (6+2) connectors; `None` = unknown.
    #[serde(default)]
    pub pcie_8pin: Option<u8>,
    /// EPS-12V 8-pin (4+4) connectors; `None` = unknown.
    #[serde(default)]
    pub eps_8pin: Option<u8>,
}

/// Reads `hpwr_class_w`: a number, `Some(..)`, `None`, or the 0 that earlier versions wrote
/// for "unknown" (which becomes `None`; no 12V-2x6 cable signals a 0 W class).
fn class_w_zero_is_unknown<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    Ok(Option::<u16>::deserialize(d)?.filter(|w| *w != 0))
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
    /// Unit length (depth), mm, if published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length_mm: Option<f64>,
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

/// Lowest mains voltage taken as high line (200-240 V mains), V; below it the site is low line
/// (100-127 V), where PSUs may be derated and 80 PLUS uses its 115 V table.
pub const HIGH_LINE_MIN_V: f64 = 180.0;

impl Psu {
    /// Rated output at `mains_v`: the low-line rating below [`HIGH_LINE_MIN_V`] where one is
    /// published.
    pub fn rated_w_at(&self, mains_v: f64) -> f64 {
        if mains_v < HIGH_LINE_MIN_V { self.rated_w_low_line.unwrap_or(self.rated_w) } else { self.rated_w }
    }
}

#[cfg(test)]
mod tests {
    use super::PsuConnectors;

    fn read(text: &str) -> PsuConnectors {
        crate::catalog::load::ron_options().from_str(text).expect("parses")
    }

    #[test]
    fn the_cable_class_is_unknown_when_absent_none_or_the_zero_of_earlier_versions() {
        assert_eq!(read("(hpwr_16pin: 1)").hpwr_class_w, None);
        assert_eq!(read("(hpwr_16pin: 1, hpwr_class_w: None)").hpwr_class_w, None);
        assert_eq!(read("(hpwr_16pin: 1, hpwr_class_w: 0)").hpwr_class_w, None);
        assert_eq!(read("(hpwr_16pin: 1, hpwr_class_w: 450)").hpwr_class_w, Some(450));
        assert_eq!(read("(hpwr_16pin: 1, hpwr_class_w: Some(600))").hpwr_class_w, Some(600));
        let json: PsuConnectors = serde_json::from_str(r#"{"hpwr_16pin": 2, "hpwr_class_w": null}"#).expect("parses");
        assert_eq!(json.hpwr_class_w, None);
    }
}

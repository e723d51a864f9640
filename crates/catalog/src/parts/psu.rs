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

impl EightyPlus {
    /// The level for people: `80+ Gold`; `80+ unknown` for [`EightyPlus::None`], which the
    /// import also gives a unit whose listing names no rating (so "None" would read as a fact).
    pub fn label(self) -> String {
        match self {
            EightyPlus::None => "80+ unknown".to_owned(),
            level => format!("80+ {level:?}"),
        }
    }
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
    /// Rated output at 100-120 V input where the unit is derated there, W (`None`: not
    /// derated, or, with `low_line_rating_unknown`, not published).
    #[serde(default)]
    pub rated_w_low_line: Option<f64>,
    /// The unit's rating at 100-120 V input is not published while it may be derated there (a
    /// unit sold for 230 V whose vendor page was not found): on a low-line site its capacity
    /// is unknown, and the rules that compare a load with its rating are not checked for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub low_line_rating_unknown: bool,
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

/// Provenance text of an ATX version read from a product name ([`atx_version_from_name`]).
pub(crate) const ATX_FROM_NAME: &str = "from the product name";

/// The ATX version a product name states: `ATX 3.0`, `ATX3.0`, `ATX 3.1`, `ATX3.1` (any case,
/// an optional `v`, as in `ATX v3.1`), the highest where a name states two. `None` when the
/// name states none, or only `ATX 3` without the minor version (Seasonic's `ATX 3 (2024)`),
/// which does not say which of the two.
///
/// Used at load for imported PSUs whose `atx_version` is unknown (BuildCores OpenDB has no
/// ATX-version field, but some listings name it: 71 of the 3,082 imported PSUs).
pub(crate) fn atx_version_from_name(name: &str) -> Option<AtxVersion> {
    let b = name.as_bytes();
    let mut found = None;
    let mut i = 0;
    while i + 3 <= b.len() {
        if b[i..i + 3].eq_ignore_ascii_case(b"ATX") {
            let mut j = i + 3;
            if b.get(j) == Some(&b' ') {
                j += 1;
            }
            if matches!(b.get(j), Some(b'v' | b'V')) {
                j += 1;
            }
            if b.get(j) == Some(&b'3') && b.get(j + 1) == Some(&b'.') && !b.get(j + 3).is_some_and(u8::is_ascii_digit) {
                let v = match b.get(j + 2) {
                    Some(b'0') => Some(AtxVersion::Atx30),
                    Some(b'1') => Some(AtxVersion::Atx31),
                    _ => None,
                };
                if v == Some(AtxVersion::Atx31) || found.is_none() {
                    found = v.or(found);
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found
}

/// Gives every PSU whose `atx_version` is unknown the version its product name states
/// ([`atx_version_from_name`]), with provenance `Derived("from the product name")`. The parts
/// that shared one [`Sources`] share one derived copy. Returns how many PSUs gained a version.
pub(crate) fn derive_atx_versions_from_names(psus: &mut [Psu]) -> usize {
    let mut derived: Vec<(std::sync::Arc<Sources>, std::sync::Arc<Sources>)> = Vec::new();
    let mut n = 0;
    for p in psus.iter_mut().filter(|p| p.atx_version == AtxVersion::Unknown) {
        let Some(v) = atx_version_from_name(&p.name) else { continue };
        p.atx_version = v;
        n += 1;
        let shared =
            derived.iter().find(|(from, _)| std::sync::Arc::ptr_eq(from, &p.provenance)).map(|(_, to)| to.clone());
        p.provenance = shared.unwrap_or_else(|| {
            let mut s = (*p.provenance).clone();
            s.figures.insert("atx_version".into(), Provenance::Derived(ATX_FROM_NAME.into()));
            let to = std::sync::Arc::new(s);
            derived.push((p.provenance.clone(), to.clone()));
            to
        });
    }
    n
}

/// The most DC power a unit can deliver from one 120 V / 15 A outlet (NEMA 5-15, 1,800 W of
/// input) at the best efficiency 80 PLUS certifies at 115 V (Titanium, 94 % at 50 % load;
/// CLEAResult's 80 PLUS program requirements), W: 1,800 × 0.94. A unit rated above it cannot
/// give its rating from such an outlet, so its makers derate it at 100-127 V.
pub const LOW_LINE_OUTLET_DC_MAX_W: f64 = 1800.0 * 0.94;

/// Imported units whose rating at 100-127 V mains is not known, marked
/// [`Psu::low_line_rating_unknown`] unless a low-line rating is given: a listing whose name
/// says `230V` (the maker's 230 V-input model) and a unit rated above
/// [`LOW_LINE_OUTLET_DC_MAX_W`]. OpenDB has no field for the low-line rating. Returns how many
/// were marked.
pub(crate) fn derive_low_line_unknown_for_imports(psus: &mut [Psu]) -> usize {
    let mut n = 0;
    for p in psus.iter_mut().filter(|p| p.rated_w_low_line.is_none() && !p.low_line_rating_unknown) {
        let named_230v = p.name.to_ascii_lowercase().replace(' ', "").contains("230v");
        if named_230v || p.rated_w > LOW_LINE_OUTLET_DC_MAX_W {
            p.low_line_rating_unknown = true;
            n += 1;
        }
    }
    n
}

/// Lowest mains voltage taken as high line (200-240 V mains), V; below it the site is low line
/// (100-127 V), where PSUs may be derated and 80 PLUS uses its 115 V table.
pub const HIGH_LINE_MIN_V: f64 = 180.0;

impl Psu {
    /// Whether the rating at `mains_v` is unknown: a low-line site and
    /// [`Psu::low_line_rating_unknown`] without a published `rated_w_low_line`.
    pub fn rating_unknown_at(&self, mains_v: f64) -> bool {
        mains_v < HIGH_LINE_MIN_V && self.low_line_rating_unknown && self.rated_w_low_line.is_none()
    }

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
        crate::load::ron_options().from_str(text).expect("parses")
    }

    #[test]
    fn a_stated_atx_version_is_read_from_the_name() {
        use super::{AtxVersion::*, atx_version_from_name as v};
        assert_eq!(v("NGDP ATX 3.0 1000W Fully Modular 80+ Platinum Certified"), Some(Atx30));
        assert_eq!(v("NE1000G M ATX3.0 Black 1000W"), Some(Atx30));
        assert_eq!(v("GSK Black ATX3.1 750W Fully Modular ATX 80+ Gold Certified"), Some(Atx31));
        assert_eq!(v("Dark Power 13 Fully Modular ATX Power Supply - 1000 Watts ATX 3.1 - Black"), Some(Atx31));
        assert_eq!(v("Example atx v3.1 & PCIe 5.1 850W"), Some(Atx31));
        assert_eq!(v("Both ATX 3.0 and ATX 3.1 compliant"), Some(Atx31));
        // Not stated, or not which minor version.
        assert_eq!(v("Polaris 3.0 ATX 1050W Fully Modular"), None);
        assert_eq!(v("CORE GX ATX 3 (2024) 750W Fully Modular"), None);
        assert_eq!(v("XPG KYBER Black ATX 650W Non-Modular"), None);
        assert_eq!(v("Toughpower ATX 12V/EPS 12V"), None);
        assert_eq!(v("ATX 3.10 is not a version"), None);
        assert_eq!(v(""), None);
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

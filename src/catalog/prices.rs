//! The user's price file: dated USD prices by part id that override the catalog's, so every
//! cost figure uses the prices the user actually pays.
//!
//! `<config dir>/kraftwerk/prices.ron` (on Linux `~/.config/kraftwerk/prices.ron`;
//! `KRAFTWERK_PRICES` overrides the path):
//!
//! ```ron
//! (prices: {
//!     "nvidia-geforce-rtx-3090": (usd: 750.0, date: "2026-11-01"),
//! })
//! ```
//!
//! Parts without a price stay unpriced (`price_usd: None`); the cost estimate lists them.

use super::{Catalog, CatalogError, load::ron_options};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One dated price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserPrice {
    /// Price, USD.
    pub usd: f64,
    /// When it was paid or seen (`YYYY-MM-DD`).
    pub date: String,
}

/// The price file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PriceFile {
    /// Part id -> price.
    pub prices: BTreeMap<String, UserPrice>,
}

/// Path of the user's price file; `None` without a home directory.
pub fn user_prices_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KRAFTWERK_PRICES") {
        return Some(PathBuf::from(p));
    }
    directories::ProjectDirs::from("", "", "kraftwerk").map(|d| d.config_dir().join("prices.ron"))
}

/// Reads a price file; a missing file is an empty one.
///
/// # Errors
/// A located [`CatalogError`] for bad RON, a negative or non-finite price, or an I/O error.
pub fn load_prices(path: &Path) -> Result<PriceFile, CatalogError> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(PriceFile::default()),
        Err(e) => return Err(CatalogError::unlocated(&shown, e.to_string())),
    };
    let file: PriceFile = ron_options().from_str(&text).map_err(|e| CatalogError::from_ron(&shown, &e))?;
    if let Some((id, p)) = file.prices.iter().find(|(_, p)| !(p.usd.is_finite() && p.usd >= 0.0)) {
        return Err(CatalogError::unlocated(
            &shown,
            format!("price of `{id}` must be a non-negative number, got {}", p.usd),
        ));
    }
    Ok(file)
}

/// Writes a price file atomically (temporary file, then rename), so a failed save never leaves
/// a half-written file.
///
/// # Errors
/// I/O errors.
pub fn save_prices(path: &Path, file: &PriceFile) -> std::io::Result<()> {
    let text = ron::ser::to_string_pretty(file, ron::ser::PrettyConfig::default()).map_err(std::io::Error::other)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("ron.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

macro_rules! apply {
    ($self:ident, $file:ident, $unknown:ident, $($field:ident),*) => {
        $(
            for p in &mut $self.$field {
                if let Some(u) = $file.prices.get(&p.id) {
                    p.price_usd = Some(u.usd);
                    p.price_date = Some(u.date.clone());
                    $unknown.retain(|id| *id != p.id);
                }
            }
        )*
    };
}

impl Catalog {
    /// Sets every part's price that `file` lists (the user's price wins over the catalog's).
    /// Returns the ids of `file` that name no part.
    pub fn apply_prices(&mut self, file: &PriceFile) -> Vec<String> {
        let mut unknown: Vec<String> = file.prices.keys().cloned().collect();
        apply!(self, file, unknown, gpus, gpu_cards, cpus, motherboards, psus, coolers, cases, memory, storage);
        self.refresh_derived();
        unknown
    }
}

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

use super::{Catalog, CatalogError, HasId, PartKind, ron_options};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `price_source` of a price from the user's price file.
pub const USER_PRICE_SOURCE: &str = "user price file";

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
                    p.price_source = Some(USER_PRICE_SOURCE.to_owned());
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

/// One part's price as the catalog holds it, with its date and where it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceInfo<'a> {
    /// USD.
    pub usd: f64,
    /// `YYYY-MM` or `YYYY-MM-DD`, when given.
    pub date: Option<&'a str>,
    /// `price_source`: the street-price import's label or [`USER_PRICE_SOURCE`]; `None`: the
    /// part's own `source` and `notes` (curated).
    pub source: Option<&'a str>,
}

/// Where a price came from, by its `price_source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceOrigin {
    /// The part's own source (a curated launch MSRP or dated street price, see its notes).
    Catalog,
    /// The street-price import (`catalog/prices/street.json`).
    Street,
    /// The user's price file.
    User,
}

impl PriceInfo<'_> {
    /// Where the price came from.
    pub fn origin(&self) -> PriceOrigin {
        match self.source {
            None => PriceOrigin::Catalog,
            Some(USER_PRICE_SOURCE) => PriceOrigin::User,
            Some(_) => PriceOrigin::Street,
        }
    }
}

/// The parts that carry a price.
pub trait Priced: HasId {
    /// The part's price, `None` when it has none.
    fn price(&self) -> Option<PriceInfo<'_>>;
}

macro_rules! priced {
    ($($ty:ty),*) => {
        $(
            impl Priced for $ty {
                fn price(&self) -> Option<PriceInfo<'_>> {
                    self.price_usd.map(|usd| PriceInfo {
                        usd,
                        date: self.price_date.as_deref(),
                        source: self.price_source.as_deref(),
                    })
                }
            }
        )*
    };
}

priced!(
    super::Gpu,
    super::GpuCard,
    super::Cpu,
    super::Motherboard,
    super::Psu,
    super::Cooler,
    super::Case,
    super::MemoryKit,
    super::Storage
);

/// How many parts of one kind have a price, and from where.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PricedShare {
    /// The kind.
    pub kind: PartKind,
    /// Parts of the kind.
    pub parts: usize,
    /// Parts with a price.
    pub priced: usize,
    /// `priced` / `parts`, percent (one decimal; 0 for an empty kind).
    pub priced_pct: f64,
    /// Of `priced`: from the part's own source (curated).
    pub catalog: usize,
    /// Of `priced`: from the street-price import.
    pub street: usize,
    /// Of `priced`: from the user's price file.
    pub user: usize,
}

fn share<T: Priced>(kind: PartKind, parts: &[T]) -> PricedShare {
    let mut s = PricedShare { kind, parts: parts.len(), priced: 0, priced_pct: 0.0, catalog: 0, street: 0, user: 0 };
    for p in parts.iter().filter_map(Priced::price) {
        s.priced += 1;
        match p.origin() {
            PriceOrigin::Catalog => s.catalog += 1,
            PriceOrigin::Street => s.street += 1,
            PriceOrigin::User => s.user += 1,
        }
    }
    if s.parts > 0 {
        s.priced_pct = (1000.0 * s.priced as f64 / s.parts as f64).round() / 10.0;
    }
    s
}

impl Catalog {
    /// The priced share of every kind that carries a price, in [`PartKind::ALL`] order.
    pub fn priced_shares(&self) -> Vec<PricedShare> {
        vec![
            share(PartKind::Gpu, &self.gpus),
            share(PartKind::GpuCard, &self.gpu_cards),
            share(PartKind::Cpu, &self.cpus),
            share(PartKind::Motherboard, &self.motherboards),
            share(PartKind::Psu, &self.psus),
            share(PartKind::Cooler, &self.coolers),
            share(PartKind::Case, &self.cases),
            share(PartKind::Memory, &self.memory),
            share(PartKind::Storage, &self.storage),
        ]
    }
}

/// A price older than this many months is shown with its age ("14 months old").
pub const STALE_AFTER_MONTHS: u32 = 12;

/// Today's date in UTC, `(year, month, day)`, from the system clock (Howard Hinnant's
/// `civil_from_days`, proleptic Gregorian).
pub fn today_utc() -> (i32, u32, u32) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (i32::try_from(y).unwrap_or(i32::MAX), m as u32, d as u32)
}

/// Whole months from a price `date` (`YYYY-MM` or `YYYY-MM-DD`; a month alone counts from its
/// first day) to `today`; `None` when the date does not parse. A date after `today` is 0.
pub fn age_months(date: &str, today: (i32, u32, u32)) -> Option<u32> {
    let mut it = date.splitn(3, '-');
    let y: i32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok().filter(|m| (1..=12).contains(m))?;
    let d: u32 = match it.next() {
        Some(d) => d.parse().ok().filter(|d| (1..=31).contains(d))?,
        None => 1,
    };
    let (ty, tm, td) = today;
    let mut months = (i64::from(ty) - i64::from(y)) * 12 + i64::from(tm) - i64::from(m);
    if td < d {
        months -= 1;
    }
    Some(u32::try_from(months.max(0)).unwrap_or(u32::MAX))
}

/// "14 months old" for a price older than [`STALE_AFTER_MONTHS`], else `None`.
pub fn stale_text(months: u32) -> Option<String> {
    (months > STALE_AFTER_MONTHS).then(|| format!("{months} months old"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_in_whole_months() {
        assert_eq!(age_months("2025-07-23", (2026, 12, 1)), Some(16));
        assert_eq!(age_months("2025-07-23", (2026, 7, 22)), Some(11));
        assert_eq!(age_months("2025-07-23", (2026, 7, 23)), Some(12));
        assert_eq!(age_months("2023-02", (2024, 4, 1)), Some(14));
        assert_eq!(age_months("2027-01-01", (2026, 12, 1)), Some(0));
        assert_eq!(age_months("July 2025", (2026, 12, 1)), None);
        assert_eq!(age_months("2025-13-01", (2026, 12, 1)), None);
        assert_eq!(stale_text(14).as_deref(), Some("14 months old"));
        assert_eq!(stale_text(12), None);
    }
}

//! The user's price file: dated USD prices by part id that override the catalog's, so every
//! cost figure uses the prices the user actually pays.
//!
//! `<config dir>/kraftwerk/prices.ron` (on Linux `~/.config/kraftwerk/prices.ron`;
//! `KRAFTWERK_PRICES` overrides the path):
//!
//! ```ron
//! (prices: {
//!     "nvidia-geforce-rtx-3090": (usd: 750.0, date: "2026-11-01"),
//!     "corsair-rm1000x": (usd: 189.99, date: "2026-12-05", source: "your list: build.md, Amazon"),
//! })
//! ```
//!
//! Parts without a price stay unpriced (`price_usd: None`); the cost estimate lists them.

use super::{Catalog, CatalogError, HasId, PartKind, ron_options};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The price-source labels and price dates, in a leaf module that the cited price files also use.
pub use crate::price_labels::{
    LIST_PRICE_PREFIX, LISTING_PREFIX, MSRP_PREFIX, USED_PREFIX, USER_PRICE_SOURCE, age_months, is_cited_new_price,
};

/// One dated price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserPrice {
    /// Price, USD.
    pub usd: f64,
    /// When it was paid or seen (`YYYY-MM-DD`).
    pub date: String,
    /// Where it comes from, when known (`your list: build.md, Amazon`, written by `prices --learn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
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
/// The first problem [`read_prices`] finds (a located [`CatalogError`]: bad RON, a negative or
/// non-finite price, an I/O error). [`read_prices`] keeps the good entries instead.
pub fn load_prices(path: &Path) -> Result<PriceFile, CatalogError> {
    let read = read_prices(path);
    match read.errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(read.file),
    }
}

/// A price file read entry by entry: the entries that parsed, the problems of the others, and
/// where each entry starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceRead {
    /// The good entries.
    pub file: PriceFile,
    /// One located error per entry that did not parse or was refused (negative or non-finite
    /// price), or one for the whole file when its frame (`(prices: { ... })`) is broken or it
    /// cannot be read.
    pub errors: Vec<CatalogError>,
    /// Part id -> (line, column) of its entry, 1-based.
    pub positions: BTreeMap<String, (usize, usize)>,
}

/// Line and column (1-based) of byte `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The entries of the `prices: { ... }` map as `(byte offset, text)`, split at top-level
/// commas; a line that starts with `"...":` always starts a new entry, so one entry with an
/// unbalanced bracket does not swallow the entries after it. `None` when the map's opening
/// brace is not found.
fn split_entries(text: &str) -> Option<Vec<(usize, &str)>> {
    let key = text.find("prices")?;
    let open = key + text[key..].find('{')?;
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, open + 1);
    let (mut in_str, mut escaped, mut line_start) = (false, false, false);
    let bytes = text.as_bytes();
    let mut i = open + 1;
    while i < bytes.len() {
        let c = bytes[i];
        if line_start && !c.is_ascii_whitespace() {
            line_start = false;
            let rest = &text[i..];
            let starts_entry = rest.starts_with('"') && rest.lines().next().is_some_and(|l| l.contains("\":"));
            if starts_entry && !text[start..i].trim().trim_end_matches(',').trim().is_empty() {
                out.push((start, &text[start..i]));
                start = i;
                depth = 0;
            }
        }
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    // A comment runs to the end of its line.
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'(' | b'[' | b'{' => depth += 1,
                b'}' if depth == 0 => {
                    out.push((start, &text[start..i]));
                    return Some(out);
                }
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 => {
                    out.push((start, &text[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
        if c == b'\n' {
            line_start = true;
        }
        i += 1;
    }
    out.push((start, &text[start..]));
    Some(out)
}

/// Reads a price file entry by entry (a missing file is an empty one): a malformed entry is a
/// located error (file:line:column) and the other entries still apply; a negative or
/// non-finite price is refused with the reason. The whole file is one error only when it
/// cannot be read or its `(prices: { ... })` frame is not found.
pub fn read_prices(path: &Path) -> PriceRead {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(t) => read_prices_str(&shown, &t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => PriceRead::default(),
        Err(e) => PriceRead { errors: vec![CatalogError::unlocated(&shown, e.to_string())], ..PriceRead::default() },
    }
}

/// [`read_prices`] of a file's text; `shown` names the file in errors.
pub fn read_prices_str(shown: &str, text: &str) -> PriceRead {
    let mut out = PriceRead::default();
    // A well-formed file parses whole (and keeps RON's own errors for an unknown top-level key).
    let whole: Result<PriceFile, _> = ron_options().from_str(text);
    let entries = match (&whole, split_entries(text)) {
        (_, Some(entries)) => entries,
        (Ok(_), None) => Vec::new(),
        (Err(e), None) => {
            out.errors.push(CatalogError::from_ron(shown, e));
            return out;
        }
    };
    for (at, chunk) in entries {
        let body = chunk.trim().trim_end_matches(',').trim_end();
        if body.is_empty() || body.trim_start().starts_with("//") && !body.contains('\n') {
            continue;
        }
        let lead = chunk.len() - chunk.trim_start().len();
        let (line, col) = line_col(text, at + lead);
        let parsed: Result<BTreeMap<String, UserPrice>, _> =
            ron_options().from_str(&format!("{{{}}}", body.trim_start()));
        match parsed {
            Err(e) => {
                // Map the position inside `{entry}` back to the file.
                let (el, ec) = (e.span.start.line, e.span.start.col);
                let (l, c) = if el <= 1 { (line, col + ec.saturating_sub(2)) } else { (line + el - 1, ec) };
                out.errors.push(CatalogError { file: shown.into(), line: l, column: c, message: e.code.to_string() });
            }
            Ok(map) => {
                for (id, p) in map {
                    if !(p.usd.is_finite() && p.usd >= 0.0) {
                        out.errors.push(CatalogError {
                            file: shown.into(),
                            line,
                            column: col,
                            message: format!(
                                "price of `{id}` refused: it must be a non-negative number of USD, got {}",
                                p.usd
                            ),
                        });
                        continue;
                    }
                    out.positions.insert(id.clone(), (line, col));
                    out.file.prices.insert(id, p);
                }
            }
        }
    }
    if out.errors.is_empty()
        && let Err(e) = &whole
    {
        // Every entry parsed but the file as a whole did not: report RON's error.
        out.errors.push(CatalogError::from_ron(shown, e));
    }
    out
}

/// Writes a price file atomically and durably ([`crate::files::write_atomic`]: a unique
/// temporary file, fsync, rename, fsync of the folder), creating its folder first, so a failed
/// save never leaves a half-written file.
///
/// # Errors
/// I/O errors (the old file is then untouched).
pub fn save_prices(path: &Path, file: &PriceFile) -> std::io::Result<()> {
    let text = ron::ser::to_string_pretty(file, ron::ser::PrettyConfig::default()).map_err(std::io::Error::other)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    crate::files::write_atomic(path, text.as_bytes())
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

/// A user price above this many times the median price of its part's kind is refused as
/// absurd (a typo such as an extra zero or cents typed as dollars).
pub(crate) const ABSURD_FACTOR: f64 = 100.0;

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some(f64::midpoint(v[n / 2 - 1], v[n / 2])),
    }
}

macro_rules! medians {
    ($self:ident, $out:ident, $($kind:ident $field:ident),*) => {
        $(
            let prices: Vec<f64> = $self
                .$field
                .iter()
                .filter(|p| p.price_source.as_deref() != Some(USER_PRICE_SOURCE))
                .filter_map(|p| p.price_usd)
                .collect();
            if let Some(m) = median(prices) {
                $out.insert(PartKind::$kind, m);
            }
        )*
    };
}

impl Catalog {
    /// Sets every part's price that `file` lists (the user's price wins over the catalog's),
    /// except the prices [`Catalog::refused_prices`] refuses. Returns the ids of `file` that
    /// name no part.
    pub fn apply_prices(&mut self, file: &PriceFile) -> Vec<String> {
        let refused = self.refused_prices(file);
        let mut kept = file.clone();
        kept.prices.retain(|id, _| !refused.iter().any(|(r, _)| r == id));
        let file = &kept;
        let mut unknown: Vec<String> = file.prices.keys().cloned().collect();
        apply!(self, file, unknown, gpus, gpu_cards, cpus, motherboards, psus, coolers, cases, memory, storage);
        self.refresh_derived();
        unknown
    }

    /// The median price (USD) of each kind's priced parts, not counting prices from the
    /// user's price file; a kind without prices is absent.
    pub fn median_prices(&self) -> BTreeMap<PartKind, f64> {
        let mut out = BTreeMap::new();
        medians!(self, out, Gpu gpus, GpuCard gpu_cards, Cpu cpus, Motherboard motherboards, Psu psus,
            Cooler coolers, Case cases, Memory memory, Storage storage);
        out
    }

    /// The prices of `file` refused as absurd, with the reason: above [`ABSURD_FACTOR`] times
    /// the median price of the part's kind. Parts of a kind without prices are not judged.
    pub fn refused_prices(&self, file: &PriceFile) -> Vec<(String, String)> {
        let medians = self.median_prices();
        let mut out = Vec::new();
        for (id, p) in &file.prices {
            let Some(kind) = PartKind::ALL.into_iter().find(|k| self.part(*k, id).is_some()) else { continue };
            let Some(m) = medians.get(&kind) else { continue };
            if p.usd > ABSURD_FACTOR * m {
                out.push((
                    id.clone(),
                    format!(
                        "price of `{id}` refused: ${:.2} is above {ABSURD_FACTOR:.0}x the median price of {} (${m:.2})",
                        p.usd,
                        kind.plural()
                    ),
                ));
            }
        }
        out
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
    /// A cited new price from `catalog/prices/msrp.json` ([`super::cited`]): a launch MSRP, a
    /// list price or a retail listing (its `price_source` prefix says which).
    Msrp,
    /// A used-market price from `catalog/prices/used.json`, laid on for `plan --used`
    /// ([`super::cited`]).
    Used,
    /// A part the build's owner already has, at $0 ([`super::cited::OWNED_SOURCE`]).
    Owned,
}

impl PriceInfo<'_> {
    /// Where the price came from.
    pub fn origin(&self) -> PriceOrigin {
        match self.source {
            None => PriceOrigin::Catalog,
            Some(USER_PRICE_SOURCE) => PriceOrigin::User,
            Some(super::cited::OWNED_SOURCE) => PriceOrigin::Owned,
            Some(s) if is_cited_new_price(s) => PriceOrigin::Msrp,
            Some(s) if s.starts_with(USED_PREFIX) => PriceOrigin::Used,
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

impl Catalog {
    /// The price of the part with this id, whatever its kind (a GPU card's is its own), or
    /// `None` when it has none or no part has the id.
    pub fn price_of(&self, id: &str) -> Option<PriceInfo<'_>> {
        // `gpu_or_card`: chips and cards resolved against their chips (a planner's working
        // catalog holds only those).
        self.gpu_or_card(id)
            .and_then(Priced::price)
            .or_else(|| self.gpu_card(id).and_then(Priced::price))
            .or_else(|| self.cpu(id).and_then(Priced::price))
            .or_else(|| self.motherboard(id).and_then(Priced::price))
            .or_else(|| self.psu(id).and_then(Priced::price))
            .or_else(|| self.cooler(id).and_then(Priced::price))
            .or_else(|| self.case(id).and_then(Priced::price))
            .or_else(|| self.memory_kit(id).and_then(Priced::price))
            .or_else(|| self.storage_drive(id).and_then(Priced::price))
    }
}

/// The date of a price for people, with its age when older than [`STALE_AFTER_MONTHS`] on
/// `today`: `2020-09-24, 74 months old`, or `2025-12` for a recent one. The one formatter every
/// face that prints a price's date uses (`prices`, `plan`).
pub fn date_note(date: &str, today: (i32, u32, u32)) -> String {
    match age_months(date, today).and_then(stale_text) {
        Some(age) => format!("{date}, {age}"),
        None => date.to_owned(),
    }
}

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
    /// Of `priced`: a launch MSRP from `catalog/prices/msrp.json`.
    pub msrp: usize,
    /// Parts of the kind with a cited used-market price (`catalog/prices/used.json`), kept
    /// apart from `priced` (the planner uses it with `--used`).
    pub used_priced: usize,
    /// Parts with a price or a used-market price.
    pub priced_new_or_used: usize,
    /// `priced_new_or_used` / `parts`, percent (one decimal).
    pub priced_new_or_used_pct: f64,
}

fn share<T: Priced>(kind: PartKind, parts: &[T]) -> PricedShare {
    let mut s = PricedShare {
        kind,
        parts: parts.len(),
        priced: 0,
        priced_pct: 0.0,
        catalog: 0,
        street: 0,
        user: 0,
        msrp: 0,
        used_priced: 0,
        priced_new_or_used: 0,
        priced_new_or_used_pct: 0.0,
    };
    for part in parts {
        let used = super::cited::used_price(part.id()).is_some();
        s.used_priced += usize::from(used);
        let Some(p) = part.price() else {
            s.priced_new_or_used += usize::from(used);
            continue;
        };
        s.priced += 1;
        s.priced_new_or_used += 1;
        match p.origin() {
            PriceOrigin::Catalog => s.catalog += 1,
            PriceOrigin::Street => s.street += 1,
            PriceOrigin::User => s.user += 1,
            PriceOrigin::Msrp => s.msrp += 1,
            // A catalog with used prices laid on (the planner's copy) counts them as priced.
            PriceOrigin::Used | PriceOrigin::Owned => {}
        }
    }
    let pct = |n: usize| if s.parts > 0 { (1000.0 * n as f64 / s.parts as f64).round() / 10.0 } else { 0.0 };
    s.priced_pct = pct(s.priced);
    s.priced_new_or_used_pct = pct(s.priced_new_or_used);
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

//! Dated street prices imported at a pinned commit of **docyx/pc-part-dataset** (MIT,
//! <https://github.com/docyx/pc-part-dataset>), a scrape of US PCPartPicker listings.
//!
//! `catalog/prices/street.json` is written by `xtask prices` (see `xtask/src/prices.rs`): the
//! dataset's priced rows matched to catalog ids with [`Catalog::find_by_name`], one price per id
//! (the median of its listings in the newest data commit that had a priced listing of it), GPU
//! chips the median of the listings of their matched cards. Each price carries that data
//! commit and its date. The header records the pinned commit, the data commits read (the
//! pin's ancestors that changed `data/json`, each with its date), the licence and, per kind,
//! how many rows were read, priced, matched.
//!
//! At load ([`crate::builtin_with_report`]) each price is laid on its part with its
//! date and source ([`Catalog::apply_street_prices`]); the user's price file still overrides
//! it ([`Catalog::apply_prices`]).

use super::Catalog;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The generated street-price file, embedded: `(file name, JSON text)`.
pub const STREET_FILE: (&str, &str) =
    ("catalog/prices/street.json", include_str!("../../../catalog/prices/street.json"));

/// How the rows of one dataset category matched catalog ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindMatch {
    /// Dataset file read (`data/json/cpu.json`); for GPU chips the card file they come from.
    pub file: String,
    /// Rows in the file.
    pub rows: usize,
    /// Rows with a price (a positive number).
    pub priced_rows: usize,
    /// Rows without a price, skipped (never written as a number).
    pub unpriced_rows: usize,
    /// Priced rows matched to a catalog id.
    pub matched_rows: usize,
    /// `matched_rows` / `priced_rows`, percent, one decimal.
    pub match_rate_pct: f64,
    /// Catalog parts of the kind that got a price.
    pub parts_priced: usize,
    /// Catalog parts of the kind when the file was made.
    pub catalog_parts: usize,
}

/// What `street.json` says about its import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreetMeta {
    /// `docyx/pc-part-dataset`.
    pub dataset: String,
    /// Repository URL.
    pub repository: String,
    /// The pinned commit (40 hex digits): its history is read.
    pub commit: String,
    /// Date of the newest data at the pinned commit (`YYYY-MM-DD`): the newest date any price
    /// can have. Each price carries its own date ([`StreetPrice::date`]).
    pub date: String,
    /// The data commits read, newest first: every ancestor of the pin (itself included) that
    /// changed `data/json`, with its date.
    pub data_commits: Vec<DataCommit>,
    /// Licence of the data.
    pub licence: String,
    /// Source label every price carries (`docyx/pc-part-dataset@c52a04c, PCPartPicker-derived, MIT`).
    pub source: String,
    /// How prices were made from listings, and what is left out.
    pub method: String,
    /// Match counts per catalog kind (file key: `cpus`, `gpu_cards`, `gpus`, ...), over the
    /// rows of every data commit read.
    pub kinds: BTreeMap<String, KindMatch>,
}

/// One data commit of the dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataCommit {
    /// Commit id (40 hex digits).
    pub commit: String,
    /// Its committer date (`YYYY-MM-DD`): the date of its scrape.
    pub date: String,
}

/// One part's street price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreetPrice {
    /// USD: the median of the part's priced listings in [`Self::commit`].
    pub usd: f64,
    /// Listings behind it.
    pub listings: u32,
    /// Date of the price (`YYYY-MM-DD`): the date of [`Self::commit`].
    pub date: String,
    /// The newest data commit in which the part had a priced listing (40 hex digits).
    pub commit: String,
}

/// Prices per kind, by part id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StreetPrices {
    /// GPU chips: median of their matched cards' listings.
    pub gpus: BTreeMap<String, StreetPrice>,
    /// GPU cards.
    pub gpu_cards: BTreeMap<String, StreetPrice>,
    /// CPUs.
    pub cpus: BTreeMap<String, StreetPrice>,
    /// Motherboards.
    pub motherboards: BTreeMap<String, StreetPrice>,
    /// PSUs.
    pub psus: BTreeMap<String, StreetPrice>,
    /// CPU coolers.
    pub coolers: BTreeMap<String, StreetPrice>,
    /// Cases.
    pub cases: BTreeMap<String, StreetPrice>,
    /// Memory kits.
    pub memory: BTreeMap<String, StreetPrice>,
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreetFile {
    /// About the import.
    pub import: StreetMeta,
    /// The prices.
    pub prices: StreetPrices,
}

/// Parses a street-price file. `file` names it in errors.
///
/// # Errors
/// A located [`super::CatalogError`] for malformed JSON or a schema violation.
pub fn parse_street_file(file: &str, text: &str) -> Result<StreetFile, super::CatalogError> {
    serde_json::from_str::<StreetFile>(text).map_err(|e| super::CatalogError {
        file: file.into(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// What is wrong with a street-price file: a price that is not a positive number, a price of
/// no listings, a date that is not `YYYY-MM-DD`. Empty for a good file (the embedded one is
/// held to that by `tests/catalog_prices.rs`).
pub fn problems(file: &StreetFile) -> Vec<String> {
    let mut out = Vec::new();
    let date_ok = |d: &str| {
        d.len() == 10 && d.char_indices().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() })
    };
    let d = &file.import.date;
    if !date_ok(d) {
        out.push(format!("date `{d}` is not YYYY-MM-DD"));
    }
    for c in &file.import.data_commits {
        if !date_ok(&c.date) {
            out.push(format!("data commit {}: date `{}` is not YYYY-MM-DD", c.commit, c.date));
        }
    }
    let p = &file.prices;
    for (kind, table) in [
        ("gpus", &p.gpus),
        ("gpu_cards", &p.gpu_cards),
        ("cpus", &p.cpus),
        ("motherboards", &p.motherboards),
        ("psus", &p.psus),
        ("coolers", &p.coolers),
        ("cases", &p.cases),
        ("memory", &p.memory),
    ] {
        for (id, price) in table {
            if !(price.usd.is_finite() && price.usd > 0.0) {
                out.push(format!("{kind} `{id}`: price {} is not a positive number", price.usd));
            }
            if price.listings == 0 {
                out.push(format!("{kind} `{id}`: a price of no listings"));
            }
            match file.import.data_commits.iter().find(|c| c.commit == price.commit) {
                None => out.push(format!("{kind} `{id}`: commit {} is not a data commit read", price.commit)),
                Some(c) if c.date != price.date => {
                    out.push(format!("{kind} `{id}`: date {} is not its commit's ({})", price.date, c.date));
                }
                Some(_) => {}
            }
        }
    }
    out
}

/// The source label of one price: the file's label, the data commit the price comes from
/// where it is not the pin's newest data (`data of 2024-05-14, f810caf`), plus "median of N
/// listings" where several listings were combined (always for a GPU chip, whose price comes
/// from its cards).
pub fn source_label(meta: &StreetMeta, price: &StreetPrice, chip: bool) -> String {
    use std::fmt::Write as _;
    let mut s = meta.source.clone();
    if price.date != meta.date || meta.data_commits.first().is_some_and(|c| c.commit != price.commit) {
        let _ = write!(s, "; data of {}, {}", price.date, price.commit.get(..7).unwrap_or(&price.commit));
    }
    if chip {
        let _ = write!(s, "; median of {} card listing{}", price.listings, if price.listings == 1 { "" } else { "s" });
    } else if price.listings > 1 {
        let _ = write!(s, "; median of {} listings", price.listings);
    }
    s
}

macro_rules! lay {
    ($self:ident, $file:ident, $set:ident, $($field:ident),*) => {
        $(
            for (id, p) in &$file.prices.$field {
                if !(p.usd.is_finite() && p.usd > 0.0) {
                    continue;
                }
                let Ok(i) = $self.$field.binary_search_by(|x| x.id.as_str().cmp(id)) else { continue };
                let part = &mut $self.$field[i];
                // A curated price stays (curated figures override imported ones).
                if part.price_usd.is_some() {
                    continue;
                }
                part.price_usd = Some(p.usd);
                part.price_date = Some(p.date.clone());
                part.price_source = Some(source_label(&$file.import, p, stringify!($field) == "gpus"));
                $set += 1;
            }
        )*
    };
}

impl Catalog {
    /// Lays `file`'s street prices on the parts they name, each with its own date (its data
    /// commit's) and source.
    /// A part that already has a price keeps it: curated figures override imported ones, and
    /// the curated prices are a launch MSRP or a listing chosen by hand, dated, which `prices`
    /// shows with their age. A price that is not a positive number and an id the catalog
    /// lacks are ignored. Returns how many parts were priced.
    ///
    /// Each kind must be sorted by id, as [`Catalog::merge`] keeps it: parts are found by
    /// binary search. Call [`Catalog::refresh_derived`] afterwards (cards resolved against
    /// chips copy the card's price).
    pub fn apply_street_prices(&mut self, file: &StreetFile) -> usize {
        let mut set = 0;
        lay!(self, file, set, gpus, gpu_cards, cpus, motherboards, psus, coolers, cases, memory);
        set
    }
}

//! The prices of a build and of the catalog: what `kraftwerk prices [BUILD]` prints (text and
//! JSON) and the priced-per-kind table `kraftwerk catalog --stats` shows as well. Money is
//! [`crate::fmt::usd`]; ages and staleness come from [`kraftwerk_catalog::prices`].

use crate::fmt::usd;
use crate::rig::Build;
use crate::rig::parts_list::{PartsList, PartsRow};
use kraftwerk_catalog::Catalog;
use kraftwerk_catalog::prices::{self, PricedShare};
use kraftwerk_catalog::street::StreetMeta;
use serde::Serialize;
use std::fmt::Write as _;

/// One part line of `prices BUILD`.
#[derive(Debug, Serialize)]
pub struct PriceLine {
    /// Role in the build (`GPU`, `CPU`, ...).
    pub role: String,
    /// Catalog id (empty for bridges and risers).
    pub id: String,
    /// Vendor and model.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// Unit price, USD; `null`: unpriced.
    pub unit_price_usd: Option<f64>,
    /// Date of the price.
    pub price_date: Option<String>,
    /// Where the price comes from: the street-price import's label, `user price file`, or
    /// the part's own source URL (a curated price; see the part's notes).
    pub price_source: Option<String>,
    /// Whole months from the price's date to today; `null` without a dated price.
    pub age_months: Option<u32>,
    /// Older than 12 months.
    pub stale: bool,
    /// The part's cited used-market price, USD (`catalog/prices/used.json`; a GPU card's is
    /// its chip's where the card has none), kept apart from `unit_price_usd`; `plan --used`
    /// uses it.
    pub used_price_usd: Option<f64>,
    /// Date of the used price.
    pub used_price_date: Option<String>,
    /// Source of the used price: the article and its URL.
    pub used_price_source: Option<String>,
    /// New prices the price method withheld for this part (a launch price too old to be
    /// today's, a leftover or outlier listing), each with its figure, date and reason; the
    /// part is new-unpriced unless a newer price passed.
    pub withheld: Vec<kraftwerk_catalog::price_labels::WithheldPrice>,
}

/// `prices BUILD` (the JSON of `prices BUILD --format json`).
#[derive(Debug, Serialize)]
pub struct BuildPrices {
    pub build: String,
    /// Today (UTC), the date ages are counted to.
    pub today: String,
    pub rows: Vec<PriceLine>,
    pub total_usd: f64,
    pub priced_lines: usize,
    pub unpriced_lines: usize,
    /// The total as [`PartsList::total_text`] words it (`$8,500`, or "at least" with unpriced
    /// lines); not in the JSON, which has the figures.
    #[serde(skip)]
    pub total_text: String,
}

/// `prices` without a build (the JSON of `prices --format json`): the priced share per kind
/// and the street-price import.
#[derive(Debug, Serialize)]
pub struct CatalogPrices {
    pub today: String,
    pub priced: Vec<PricedShare>,
    pub street_prices: Option<StreetMeta>,
    pub street_parts_priced: usize,
}

/// One part line of [`BuildPrices`] from a parts-list row, its age counted to `today`
/// (`(year, month, day)`, UTC) and the price method's withheld prices for the part.
fn line(r: &PartsRow, today: (i32, u32, u32), catalog: &Catalog) -> PriceLine {
    let age = r.line.price_date.as_deref().and_then(|d| prices::age_months(d, today));
    let used = r.used_price.as_ref();
    PriceLine {
        role: r.role.clone(),
        id: r.line.id.clone(),
        name: r.line.name.clone(),
        quantity: r.line.quantity,
        unit_price_usd: r.line.unit_price_usd,
        price_date: r.line.price_date.clone(),
        // An unpriced line keeps the reason a used part has none (`used: no cited used price`).
        price_source: match r.line.unit_price_usd {
            Some(_) => r.line.price_source.clone().or_else(|| r.source.clone()),
            None => r.line.price_source.clone(),
        },
        age_months: age,
        stale: age.is_some_and(|m| m > prices::STALE_AFTER_MONTHS),
        used_price_usd: used.map(|u| u.usd),
        used_price_date: used.map(|u| u.date.clone()),
        used_price_source: used.map(|u| format!("{} <{}>", u.source, u.url)),
        // An owned unit is not bought: no new price is asked of it.
        withheld: if r.line.owned() {
            Vec::new()
        } else {
            catalog.withheld_price(&r.line.id).into_iter().cloned().collect()
        },
    }
}

/// The prices of `build`'s parts: each line with its price, date, source and age to `today`
/// (`(year, month, day)`, UTC), the used price apart, and the withheld prices with reasons.
pub fn build_prices(build: &Build, catalog: &Catalog, today: (i32, u32, u32)) -> BuildPrices {
    let list = PartsList::of(build, catalog);
    BuildPrices {
        build: list.build.clone(),
        today: kraftwerk_catalog::dates::ymd_text(today),
        rows: list.rows.iter().map(|r| line(r, today, catalog)).collect(),
        total_usd: list.total_usd,
        priced_lines: list.priced_lines,
        unpriced_lines: list.unpriced_lines,
        total_text: list.total_text(),
    }
}

/// The text of `prices BUILD`: per line the part, then its price (or why it has none), used
/// price and withheld prices; the total last.
pub fn build_prices_text(out: &BuildPrices, today: (i32, u32, u32)) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} (prices as of {}, ages to today)", out.build, out.today);
    for r in &out.rows {
        let what = if r.id.is_empty() { r.name.clone() } else { format!("{} ({})", r.name, r.id) };
        let _ = writeln!(s, "  {:<13} {:>2} x {what}", r.role, r.quantity);
        match r.unit_price_usd {
            None => match r.price_source.as_deref() {
                Some(why) => {
                    let _ = writeln!(s, "  {:<13}      unpriced ({why})", "");
                }
                None => {
                    let _ = writeln!(s, "  {:<13}      unpriced", "");
                }
            },
            Some(_) if r.price_source.as_deref() == Some(kraftwerk_catalog::cited::OWNED_SOURCE) => {
                let _ = writeln!(s, "  {:<13}      owned, $0", "");
            }
            Some(p) => {
                let date = r.price_date.as_deref().unwrap_or("undated");
                let age = match r.age_months {
                    Some(m) => prices::stale_text(m).unwrap_or_else(|| format!("{m} months")),
                    None => "age unknown".to_owned(),
                };
                let _ = writeln!(s, "  {:<13}      {} each, {date}, {age}", "", usd(p));
                let _ = writeln!(s, "  {:<13}      source: {}", "", r.price_source.as_deref().unwrap_or("unknown"));
            }
        }
        if let (Some(u), Some(d)) = (r.used_price_usd, r.used_price_date.as_deref()) {
            let source = r.used_price_source.as_deref().unwrap_or_default();
            let _ = writeln!(s, "  {:<13}      used: {} each, {} ({source})", "", usd(u), prices::date_note(d, today));
        }
        for w in &r.withheld {
            // The reason names the date and age where the age is why (`older than 36 months
            // (2021-03-02, 69 months old)`): said once.
            let date = match w.date.as_deref() {
                Some(d) if w.reason.contains(d) => String::new(),
                Some(d) => format!(" ({})", prices::date_note(d, today)),
                None => " (undated)".to_owned(),
            };
            let _ = writeln!(s, "  {:<13}      not today's new price: {}{date}: {}", "", usd(w.usd), w.reason);
        }
    }
    let _ = writeln!(s, "total: {}", out.total_text);
    s
}

/// The priced share of each part kind, one line per kind: priced of all, the share, the count
/// by source (catalog / street import / cited MSRP, list price or listing / user file), then used-priced parts and
/// the share priced new or used. Printed by `prices` and `catalog --stats`.
pub fn priced_per_kind_text(priced: &[PricedShare]) -> String {
    let mut s = String::new();
    for p in priced {
        let _ = writeln!(
            s,
            "  {:<13} {:>5} of {:<5} {:>5.1} %  ({} / {} / {} / {}); used {}, new or used {:.1} %",
            p.kind.plural(),
            p.priced,
            p.parts,
            p.priced_pct,
            p.catalog,
            p.street,
            p.msrp,
            p.user,
            p.used_priced,
            p.priced_new_or_used_pct
        );
    }
    s
}

/// The text of `prices` without a build: the priced share per kind, then the street-price
/// import (source, date and age to `today`, match rates per kind).
pub fn catalog_prices_text(out: &CatalogPrices, today: (i32, u32, u32)) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "priced parts per kind (today {}; catalog / street import / cited MSRP, list price or listing / user file; used-market prices apart)",
        out.today
    );
    s.push_str(&priced_per_kind_text(&out.priced));
    if let Some(m) = &out.street_prices {
        let age = prices::age_months(&m.date, today)
            .map(|a| prices::stale_text(a).unwrap_or_else(|| format!("{a} months")))
            .unwrap_or_default();
        let _ =
            writeln!(s, "street prices: {} ({}, {age}), {} parts priced", m.source, m.date, out.street_parts_priced);
        let _ = writeln!(s, "  {}", m.repository);
        for (kind, k) in &m.kinds {
            let _ = writeln!(
                s,
                "  {kind:<13} {:>5} of {:<5} priced listings matched ({:.1} %), {} parts priced; {} listings without a price skipped",
                k.matched_rows, k.priced_rows, k.match_rate_pct, k.parts_priced, k.unpriced_rows
            );
        }
    }
    s
}

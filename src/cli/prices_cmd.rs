//! `kraftwerk prices [BUILD] [--format text|json]`: a build's parts with price, date, source and
//! age; without a build, the catalog's priced share per kind and the street-price import.

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::catalog::prices::{self, PricedShare};
use crate::catalog::street::StreetMeta;
use crate::rig::parts_list::{PartsList, PartsRow, usd};
use serde::Serialize;
use std::path::Path;

/// One part line of `prices BUILD`.
#[derive(Debug, Serialize)]
struct PriceLine {
    /// Role in the build (`GPU`, `CPU`, ...).
    role: String,
    /// Catalog id (empty for bridges and risers).
    id: String,
    /// Vendor and model.
    name: String,
    /// How many.
    quantity: u32,
    /// Unit price, USD; `null`: unpriced.
    unit_price_usd: Option<f64>,
    /// Date of the price.
    price_date: Option<String>,
    /// Where the price comes from: the street-price import's label, `user price file`, or
    /// the part's own source URL (a curated price; see the part's notes).
    price_source: Option<String>,
    /// Whole months from the price's date to today; `null` without a dated price.
    age_months: Option<u32>,
    /// Older than 12 months.
    stale: bool,
    /// The part's cited used-market price, USD (`catalog/prices/used.json`; a GPU card's is
    /// its chip's where the card has none), kept apart from `unit_price_usd`; `plan --used`
    /// uses it.
    used_price_usd: Option<f64>,
    /// Date of the used price.
    used_price_date: Option<String>,
    /// Source of the used price: the article and its URL.
    used_price_source: Option<String>,
    /// New prices the price method withheld for this part (a launch price too old to be
    /// today's, a leftover or outlier listing), each with its figure, date and reason; the
    /// part is new-unpriced unless a newer price passed.
    withheld: Vec<crate::catalog::price_labels::WithheldPrice>,
}

/// `prices BUILD` as JSON.
#[derive(Debug, Serialize)]
struct BuildPrices {
    build: String,
    /// Today (UTC), the date ages are counted to.
    today: String,
    rows: Vec<PriceLine>,
    total_usd: f64,
    priced_lines: usize,
    unpriced_lines: usize,
}

/// `prices` without a build, as JSON.
#[derive(Debug, Serialize)]
struct CatalogPrices {
    today: String,
    priced: Vec<PricedShare>,
    street_prices: Option<StreetMeta>,
    street_parts_priced: usize,
}

fn line(r: &PartsRow, today: (i32, u32, u32), catalog: &crate::catalog::Catalog) -> PriceLine {
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
        withheld: catalog.withheld_price(&r.line.id).into_iter().cloned().collect(),
    }
}

/// `prices BUILD`.
fn build_prices(path: &Path, format: Format) -> Result<(), CliError> {
    let (catalog, build) = super::check_cmd::load_build(path)?;
    let list = PartsList::of(&build, &catalog);
    let today = crate::catalog::dates::today_utc();
    let out = BuildPrices {
        build: list.build.clone(),
        today: crate::catalog::dates::ymd_text(today),
        rows: list.rows.iter().map(|r| line(r, today, &catalog)).collect(),
        total_usd: list.total_usd,
        priced_lines: list.priced_lines,
        unpriced_lines: list.unpriced_lines,
    };
    if format == Format::Json {
        return print_json(&out);
    }
    outln!("{} (prices as of {}, ages to today)", out.build, out.today);
    for r in &out.rows {
        let what = if r.id.is_empty() { r.name.clone() } else { format!("{} ({})", r.name, r.id) };
        outln!("  {:<13} {:>2} x {what}", r.role, r.quantity);
        match r.unit_price_usd {
            None => match r.price_source.as_deref() {
                Some(why) => outln!("  {:<13}      unpriced ({why})", ""),
                None => outln!("  {:<13}      unpriced", ""),
            },
            Some(_) if r.price_source.as_deref() == Some(crate::catalog::cited::OWNED_SOURCE) => {
                outln!("  {:<13}      owned, $0", "");
            }
            Some(p) => {
                let date = r.price_date.as_deref().unwrap_or("undated");
                let age = match r.age_months {
                    Some(m) => prices::stale_text(m).unwrap_or_else(|| format!("{m} months")),
                    None => "age unknown".to_owned(),
                };
                outln!("  {:<13}      {} each, {date}, {age}", "", usd(p));
                outln!("  {:<13}      source: {}", "", r.price_source.as_deref().unwrap_or("unknown"));
            }
        }
        if let (Some(u), Some(d)) = (r.used_price_usd, r.used_price_date.as_deref()) {
            let source = r.used_price_source.as_deref().unwrap_or_default();
            outln!("  {:<13}      used: {} each, {} ({source})", "", usd(u), prices::date_note(d, today));
        }
        for w in &r.withheld {
            let date = w.date.as_deref().map_or_else(|| "undated".to_owned(), |d| prices::date_note(d, today));
            outln!("  {:<13}      not today's new price: {} ({date}): {}", "", usd(w.usd), w.reason);
        }
    }
    outln!("total: {}", list.total_text());
    Ok(())
}

/// `prices` without a build.
fn catalog_prices(format: Format) -> Result<(), CliError> {
    let catalog = load_catalog()?;
    let report = match crate::catalog::builtin_with_report() {
        Ok((_, r)) => r,
        Err(e) => {
            return Err(bad(e.to_string()));
        }
    };
    let today = crate::catalog::dates::today_utc();
    let (street_prices, street_parts_priced) = report.street.map_or((None, 0), |(m, n)| (Some(m), n));
    let out = CatalogPrices {
        today: crate::catalog::dates::ymd_text(today),
        priced: catalog.priced_shares(),
        street_prices,
        street_parts_priced,
    };
    if format == Format::Json {
        return print_json(&out);
    }
    outln!(
        "priced parts per kind (today {}; catalog / street import / launch MSRP / user file; used-market prices apart)",
        out.today
    );
    for p in &out.priced {
        outln!(
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
    if let Some(m) = &out.street_prices {
        let age = prices::age_months(&m.date, today)
            .map(|a| prices::stale_text(a).unwrap_or_else(|| format!("{a} months")))
            .unwrap_or_default();
        outln!("street prices: {} ({}, {age}), {} parts priced", m.source, m.date, out.street_parts_priced);
        outln!("  {}", m.repository);
        for (kind, k) in &m.kinds {
            outln!(
                "  {kind:<13} {:>5} of {:<5} priced listings matched ({:.1} %), {} parts priced; {} listings without a price skipped",
                k.matched_rows,
                k.priced_rows,
                k.match_rate_pct,
                k.parts_priced,
                k.unpriced_rows
            );
        }
    }
    Ok(())
}

/// Runs the subcommand.
pub fn run(build: Option<&Path>, format: Format) -> Result<(), CliError> {
    match build {
        Some(path) => build_prices(path, format),
        None => catalog_prices(format),
    }
}

/// What `prices --learn` did, as JSON.
#[derive(Debug, Serialize)]
struct Learned {
    /// The price file written.
    price_file: String,
    /// The date every learned price carries (today, UTC).
    date: String,
    /// The prices added or replaced.
    prices: Vec<crate::rig::import_list::LearnedPrice>,
    /// Priced lines not learned: (line, reason).
    skipped: Vec<(usize, String)>,
}

/// `prices --learn FILE`: the list's prices into the user's price file, dated today, source
/// `your list: FILE, STORE`. Refuses (exit 2, nothing written) when the price file exists but
/// could not be read cleanly (an unreadable file or a malformed entry would be lost by a save),
/// or when no price path is known.
pub fn learn(list_path: &Path, format: Format) -> Result<(), CliError> {
    use crate::catalog::prices::{UserPrice, read_prices, save_prices, user_prices_path};
    let (shown, text) =
        super::list_cmd::read_input(&list_path.display().to_string()).map_err(|e| bad(e.to_string()))?;
    let catalog = load_catalog()?;
    let list = crate::rig::import_list::import_list(&shown, &text, &catalog).map_err(|e| bad(e.to_string()))?;
    let (learned, skipped) = crate::rig::import_list::learned_prices(&list);
    let path =
        user_prices_path().ok_or_else(|| bad("no price file path: no home directory and KRAFTWERK_PRICES unset"))?;
    let read = read_prices(&path);
    if !read.errors.is_empty() {
        let first = read.errors.first().map(ToString::to_string).unwrap_or_default();
        return Err(bad(format!(
            "{}: not overwritten: it could not be read cleanly ({} problem{}; first: {first}); fix it and learn again",
            path.display(),
            read.errors.len(),
            if read.errors.len() == 1 { "" } else { "s" }
        )));
    }
    let mut file = read.file;
    let today = crate::catalog::dates::ymd_text(crate::catalog::dates::today_utc());
    for l in &learned {
        let source = match &l.store {
            Some(store) => format!("your list: {shown}, {store}"),
            None => format!("your list: {shown}"),
        };
        file.prices.insert(l.id.clone(), UserPrice { usd: l.usd, date: today.clone(), source: Some(source) });
    }
    if !learned.is_empty() {
        save_prices(&path, &file).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    }
    let out = Learned { price_file: path.display().to_string(), date: today, prices: learned, skipped };
    if format == Format::Json {
        return print_json(&out);
    }
    outln!(
        "learned {} price{} from {shown} into {} (dated {})",
        out.prices.len(),
        if out.prices.len() == 1 { "" } else { "s" },
        out.price_file,
        out.date
    );
    for l in &out.prices {
        outln!(
            "  line {}: {} {}{}",
            l.line,
            l.id,
            usd(l.usd),
            l.store.as_deref().map_or_else(String::new, |s| format!(" @ {s}"))
        );
    }
    for (line, why) in &out.skipped {
        outln!("  line {line}: not learned: {why}");
    }
    Ok(())
}

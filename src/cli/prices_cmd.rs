//! `kraftwerk prices [BUILD] [--format text|json]`: a build's parts with price, date, source and
//! age; without a build, the catalog's priced share per kind and the street-price import.

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::fmt::usd;
use crate::report::prices::{self as report, CatalogPrices};
use serde::Serialize;
use std::path::Path;

/// `prices BUILD`.
fn build_prices(path: &Path, format: Format) -> Result<(), CliError> {
    let (catalog, build) = super::check_cmd::load_build(path)?;
    let today = crate::catalog::dates::today_utc();
    let out = report::build_prices(&build, &catalog, today);
    if format == Format::Json {
        return print_json(&out);
    }
    out!("{}", report::build_prices_text(&out, today));
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
    out!("{}", report::catalog_prices_text(&out, today));
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

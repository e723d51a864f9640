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
//! the pinned commit and at each of its ancestors that changed `data/json` (the dataset's data
//! updates, 2023-07 to 2025-07 at `c52a04c`), through `git`, and matches each priced row to a
//! catalog id with the catalog's own name resolution, [`Catalog::find_by_name`] (the one the
//! real-builds test uses), on the built-in catalog. `find_by_name` proposes; the row's figures
//! confirm:
//! - every word of the proposed part's name (colours, memory sizes and GDDR types aside) must
//!   occur in the row's name, so "Ryzen 9 7950X" never prices the 7950X3D and "RM1000x" never
//!   the RM1000x SHIFT;
//! - a GPU card must be of the chip the row's `chipset` and `memory` name, and list that memory.
//!
//! Memory kits are matched on their figures instead (the dataset names a kit by vendor and
//! series only, `Corsair Vengeance RGB 32 GB`): vendor, DDR generation, speed, module count and
//! size, series words, CAS latency and colour must all agree ([`match_memory`]).
//!
//! A row without a price (`null`, not a positive number) is skipped and counted, never written
//! as a number. Each id's price is the median of its listings in the newest data commit in which
//! it had a priced listing, with that commit and its date; a GPU chip's is the median of every
//! priced listing whose `chipset` and memory resolve to it, in its newest such commit. Same
//! commit in, byte-identical file out (sorted maps, no timestamps; the history is the pin's).

use kraftwerk::catalog::street::{DataCommit, KindMatch, StreetFile, StreetMeta, StreetPrice, StreetPrices};
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

/// Words of a kit's name that are colour or finish (`Matte Black`, `Metallic Silver`): the
/// listing has its colour in `color`.
const FINISH: &[&str] = &["matte", "metallic", "/"];

/// A kit's series words and colour words: its name without the capacity (`32GB`, `(2 x 16
/// GB)`, `2x16GB`), the DDR generation and speed (`DDR5`, `DDR5-6000`, `6000`), the CAS
/// latency (`CL30`), a bracketed part number, colours and finishes. `HT200 32GB (2 x 16 GB) DDR5 6000 CL30 Black` is
/// (`[ht200]`, `[black]`).
fn kit_series(name: &str) -> (Vec<String>, Vec<String>) {
    let (mut series, mut colours) = (Vec::new(), Vec::new());
    // A bracketed part number (`(CMK64GX5M2B5600C40)`) is not a series word: the dataset's
    // names do not carry it.
    let bare: Vec<&str> = name.split_whitespace().filter(|w| !(w.len() > 2 && w.starts_with('(') && w.ends_with(')'))).collect();
    let ws = words(&bare.join(" "));
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i].as_str();
        // `2 x 16 GB` (brackets already stripped).
        if ws.get(i + 1).is_some_and(|x| x == "x") && ws.get(i + 3).is_some_and(|g| g == "gb") {
            i += 4;
            continue;
        }
        let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
        let skip = w == "gb"
            || w.strip_suffix("gb").is_some_and(|n| digits(n) || n.split_once('x').is_some_and(|(a, b)| digits(a) && digits(b)))
            || (w.starts_with("ddr") && w.len() >= 4 && w[3..].split('-').all(digits))
            || (w.len() == 4 && digits(w))
            || w.strip_prefix("cl").is_some_and(digits);
        if skip {
        } else if COLOURS.contains(&w) || w == "clear" {
            colours.push(w.to_owned());
        } else if !FINISH.contains(&w) {
            series.push(w.to_owned());
        }
        i += 1;
    }
    (series, colours)
}

/// Memory kits by (vendor lower-cased, DDR generation digit, speed MT/s, modules, module GB),
/// and the vendors, longest first (a listing's name starts with its vendor).
struct KitIndex {
    kits: BTreeMap<(String, char, u64, u64, u64), Vec<(String, Vec<String>, Vec<String>, Option<u64>)>>,
    vendors: Vec<String>,
}

fn kit_index(c: &Catalog) -> KitIndex {
    let mut kits: BTreeMap<_, Vec<_>> = BTreeMap::new();
    let mut vendors: Vec<String> = Vec::new();
    for k in &c.memory {
        let Some(ddr) = format!("{:?}", k.memory_type).chars().nth(3) else { continue };
        let v = k.vendor.to_lowercase();
        let (series, colours) = kit_series(&k.name);
        kits.entry((v.clone(), ddr, u64::from(k.speed_mt_s), u64::from(k.modules), u64::from(k.module_gb)))
            .or_default()
            .push((k.id.clone(), series, colours, k.cas_latency_cycles.map(u64::from)));
        vendors.push(v);
    }
    vendors.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    vendors.dedup();
    KitIndex { kits, vendors }
}

/// The memory kits a row names: the row's vendor (its name's first words), DDR generation,
/// speed, module count and module size; the kit's series words (its name without capacity,
/// speed, CAS latency and colour) the same as the row's name without vendor and capacity
/// (`Corsair Vengeance RGB 32 GB` is series `vengeance rgb`); the kit's CAS latency, where
/// known, the row's; and a colour the kit's name gives among the row's `color`. Where several
/// kits agree on all of that (the catalog lists one product under several part numbers or
/// colour spellings), each gets the listing, those whose colour words equal the row's first.
fn match_memory(ix: &KitIndex, row: &Row) -> Vec<String> {
    let pair = |key: &str| -> Option<(u64, u64)> {
        let a = row.raw.get(key)?.as_array()?;
        Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?))
    };
    let (Some((ddr, speed)), Some((modules, module_gb))) = (pair("speed"), pair("modules")) else { return Vec::new() };
    let Some(ddr) = char::from_digit(u32::try_from(ddr).unwrap_or(99), 10) else { return Vec::new() };
    let cas = row.raw.get("cas_latency").and_then(Value::as_u64);
    let lower = row.name.to_lowercase();
    let Some(vendor) = ix.vendors.iter().find(|v| lower.starts_with(&format!("{v} "))) else { return Vec::new() };
    let mut rest = words(&row.name[vendor.len()..]);
    // The listing's name ends in the kit's capacity (`... 32 GB`).
    if rest.len() >= 2 && rest[rest.len() - 1] == "gb" && rest[rest.len() - 2].chars().all(|c| c.is_ascii_digit()) {
        rest.truncate(rest.len() - 2);
    }
    let series: Vec<String> = rest.into_iter().filter(|w| !FINISH.contains(&w.as_str())).collect();
    let row_colours = words(&row.color.clone().unwrap_or_default().replace('/', " "));
    let Some(cands) = ix.kits.get(&(vendor.clone(), ddr, speed, modules, module_gb)) else { return Vec::new() };
    let same = |a: &[String], b: &[String]| {
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        a.sort();
        b.sort();
        a == b
    };
    let ok: Vec<&(String, Vec<String>, Vec<String>, Option<u64>)> = cands
        .iter()
        .filter(|(_, s, cols, cl)| {
            same(s, &series)
                && cl.is_none_or(|cl| cas == Some(cl))
                && (cols.is_empty() || row_colours.is_empty() || cols.iter().all(|c| row_colours.contains(c)))
        })
        .collect();
    let exact: Vec<String> =
        ok.iter().filter(|(_, _, cols, _)| !cols.is_empty() && same(cols, &row_colours)).map(|k| k.0.clone()).collect();
    if exact.is_empty() { ok.iter().map(|k| k.0.clone()).collect() } else { exact }
}

/// Median, rounded to cents.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let m = if n % 2 == 1 { v[n / 2] } else { f64::midpoint(v[n / 2 - 1], v[n / 2]) };
    (m * 100.0).round() / 100.0
}

/// Listings per part id, from the newest data commit that had a priced listing of it:
/// `(index of that commit in the newest-first list, prices)`.
type Listings = BTreeMap<String, (usize, Vec<f64>)>;

/// Adds a listing of `id` seen in commit `at` (commits are read newest first, so a part's
/// first commit is its newest; an older commit's listings of it are not mixed in).
fn add(listings: &mut Listings, id: &str, at: usize, price: f64) {
    let e = listings.entry(id.to_owned()).or_insert((at, Vec::new()));
    if e.0 == at {
        e.1.push(price);
    }
}

fn prices_of(listings: Listings, commits: &[DataCommit]) -> BTreeMap<String, StreetPrice> {
    listings
        .into_iter()
        .map(|(id, (at, v))| {
            let c = &commits[at];
            (
                id,
                StreetPrice {
                    listings: u32::try_from(v.len()).unwrap_or(u32::MAX),
                    usd: median(v),
                    date: c.date.clone(),
                    commit: c.commit.clone(),
                },
            )
        })
        .collect()
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { (1000.0 * a as f64 / b as f64).round() / 10.0 }
}

/// A listing's identity across data commits: its fields without the price (`price`,
/// `price_per_gb`), as JSON text with sorted keys.
fn identity(row: &Row) -> String {
    let mut v = row.raw.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("price");
        o.remove("price_per_gb");
        o.sort_keys();
    }
    v.to_string()
}

/// Distinct listings of one dataset file across the data commits read.
#[derive(Default)]
struct Seen {
    /// Every listing seen, and whether it had a price in some commit and matched.
    rows: BTreeMap<String, (bool, bool)>,
}

impl Seen {
    fn note(&mut self, row: &Row, matched: bool) {
        let e = self.rows.entry(identity(row)).or_insert((false, false));
        e.0 |= row.price.is_some();
        e.1 |= row.price.is_some() && matched;
    }

    fn kind_match(&self, file: &str, parts: usize, catalog_parts: usize) -> KindMatch {
        let priced = self.rows.values().filter(|r| r.0).count();
        let matched = self.rows.values().filter(|r| r.1).count();
        KindMatch {
            file: file.to_owned(),
            rows: self.rows.len(),
            priced_rows: priced,
            unpriced_rows: self.rows.len() - priced,
            matched_rows: matched,
            match_rate_pct: pct(matched, priced),
            parts_priced: parts,
            catalog_parts,
        }
    }
}

/// The data commits at `commit`: itself and its ancestors that changed `data/json`, newest
/// first, each with its committer date (`YYYY-MM-DD`).
fn data_commits(git_dir: &str, commit: &str) -> Result<Vec<DataCommit>, String> {
    let log = git(git_dir, &["log", "--format=%H %cI", commit, "--", "data/json"])?;
    let list: Vec<DataCommit> = String::from_utf8_lossy(&log)
        .lines()
        .filter_map(|l| {
            let (h, d) = l.split_once(' ')?;
            Some(DataCommit { commit: h.to_owned(), date: d.get(..10)?.to_owned() })
        })
        .collect();
    if list.is_empty() { Err("no commit changed data/json at that commit".into()) } else { Ok(list) }
}

/// The rows of `file` at `commit`, or none where the commit has no such file.
fn rows_at(git_dir: &str, commit: &str, file: &str) -> Result<Vec<Row>, String> {
    if git(git_dir, &["cat-file", "-e", &format!("{commit}:{file}")]).is_err() {
        return Ok(Vec::new());
    }
    rows(git_dir, commit, file)
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
    let commits = data_commits(&git_dir, &commit)?;
    let date = commits[0].date.clone();
    let c = catalog::builtin().map_err(|e| e.to_string())?;
    let source = format!("{DATASET}@{}, PCPartPicker-derived, MIT", &commit[..7]);
    let count = |kind: PartKind| c.counts().get(&kind).copied().unwrap_or(0);

    let mut prices = StreetPrices::default();
    let mut kinds = BTreeMap::new();
    let plain: [(&str, PartKind); 5] = [
        ("cpu", PartKind::Cpu),
        ("motherboard", PartKind::Motherboard),
        ("power-supply", PartKind::Psu),
        ("case", PartKind::Case),
        ("cpu-cooler", PartKind::Cooler),
    ];
    // Every distinct priced listing with what it matched and its newest price (for review).
    let mut log: BTreeMap<(String, String), Value> = BTreeMap::new();
    let mut note = |kind: &str, r: &Row, date: &str, extra: Value| {
        let key = (kind.to_owned(), identity(r));
        log.entry(key).or_insert_with(|| {
            let mut v = serde_json::json!({"kind": kind, "name": r.name, "color": r.color, "usd": r.price, "date": date});
            if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
                o.extend(e);
            }
            v
        });
    };
    for (name, kind) in plain {
        let file = format!("data/json/{name}.json");
        let mut listings = Listings::new();
        let mut seen = Seen::default();
        let mut cache: BTreeMap<String, Option<String>> = BTreeMap::new();
        for (at, dc) in commits.iter().enumerate() {
            for r in &rows_at(&git_dir, &dc.commit, &file)? {
                let key = identity(r);
                let id = match cache.get(&key) {
                    Some(id) => id.clone(),
                    None => {
                        let id = r.price.and_then(|_| match_plain(&c, kind, r));
                        if r.price.is_some() {
                            cache.insert(key, id.clone());
                        }
                        id
                    }
                };
                seen.note(r, id.is_some());
                let Some(p) = r.price else { continue };
                note(kind.plural(), r, &dc.date, serde_json::json!({"id": id}));
                if let Some(id) = id {
                    add(&mut listings, &id, at, p);
                }
            }
        }
        let table = prices_of(listings, &commits);
        kinds.insert(kind.plural().to_owned(), seen.kind_match(&file, table.len(), count(kind)));
        match kind {
            PartKind::Cpu => prices.cpus = table,
            PartKind::Motherboard => prices.motherboards = table,
            PartKind::Psu => prices.psus = table,
            PartKind::Case => prices.cases = table,
            _ => prices.coolers = table,
        }
    }

    let file = "data/json/memory.json";
    let ix = kit_index(&c);
    let mut listings = Listings::new();
    let mut seen = Seen::default();
    for (at, dc) in commits.iter().enumerate() {
        for r in &rows_at(&git_dir, &dc.commit, file)? {
            let ids = if r.price.is_some() { match_memory(&ix, r) } else { Vec::new() };
            seen.note(r, !ids.is_empty());
            let Some(p) = r.price else { continue };
            note("memory", r, &dc.date, serde_json::json!({"ids": ids}));
            for id in &ids {
                add(&mut listings, id, at, p);
            }
        }
    }
    prices.memory = prices_of(listings, &commits);
    kinds.insert("memory".into(), seen.kind_match(file, prices.memory.len(), count(PartKind::Memory)));

    let file = "data/json/video-card.json";
    let (mut cards, mut chips) = (Listings::new(), Listings::new());
    let (mut card_seen, mut chip_seen) = (Seen::default(), Seen::default());
    let mut cache: BTreeMap<String, (Option<String>, Option<String>)> = BTreeMap::new();
    for (at, dc) in commits.iter().enumerate() {
        for r in &rows_at(&git_dir, &dc.commit, file)? {
            let key = identity(r);
            let (chip, card) = match cache.get(&key) {
                Some(x) => x.clone(),
                None => {
                    let chip = r.price.and_then(|_| chip_of(&c, r));
                    let card = chip.as_deref().and_then(|chip| match_card(&c, r, chip));
                    if r.price.is_some() {
                        cache.insert(key, (chip.clone(), card.clone()));
                    }
                    (chip, card)
                }
            };
            chip_seen.note(r, chip.is_some());
            card_seen.note(r, card.is_some());
            let Some(p) = r.price else { continue };
            note("gpu_cards", r, &dc.date, serde_json::json!({"chipset": r.raw.get("chipset"), "id": card, "chip": chip}));
            if let Some(chip) = chip {
                add(&mut chips, &chip, at, p);
            }
            if let Some(card) = card {
                add(&mut cards, &card, at, p);
            }
        }
    }
    prices.gpu_cards = prices_of(cards, &commits);
    prices.gpus = prices_of(chips, &commits);
    kinds.insert("gpu_cards".into(), card_seen.kind_match(file, prices.gpu_cards.len(), count(PartKind::GpuCard)));
    kinds.insert("gpus".into(), chip_seen.kind_match(file, prices.gpus.len(), count(PartKind::Gpu)));

    let doc = StreetFile {
        import: StreetMeta {
            dataset: DATASET.into(),
            repository: REPO.into(),
            commit: commit.clone(),
            date,
            data_commits: commits.clone(),
            licence: "MIT (Copyright (c) 2021-2025 Doc Oliver; the dataset's LICENSE)".into(),
            source,
            method: "US PCPartPicker listings scraped into the dataset, read at every commit that changed data/json \
                     up to the pinned one (data_commits), matched to catalog ids by name (Catalog::find_by_name, \
                     confirmed by the part's name words, a card's chip and memory; a memory kit by vendor, series \
                     words, DDR generation, speed, modules, module size, CAS latency and colour). Each part's price is \
                     the median of its listings in the newest data commit in which it had a priced listing, dated by \
                     that commit's date; a GPU chip's is the median of every priced listing whose chipset and memory \
                     resolve to it in its newest such commit. Listings without a price are skipped. The match counts \
                     are of distinct listings (fields other than the price) across the data commits. New-retail \
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
    let mut audit = String::new();
    for l in log.values() {
        audit.push_str(&serde_json::to_string(l).map_err(|e| e.to_string())?);
        audit.push('\n');
    }
    write(&format!("{out}/street-matches.jsonl"), &audit)?;
    for (k, m) in &doc.import.kinds {
        eprintln!(
            "{k:<13} {:>5} of {:>5} distinct priced listings matched ({:>5.1} %), {:>5} never priced, {:>4} of {:>5} parts priced",
            m.matched_rows, m.priced_rows, m.match_rate_pct, m.unpriced_rows, m.parts_priced, m.catalog_parts
        );
    }
    Ok(())
}

fn write(dest: &str, text: &str) -> Result<(), String> {
    kraftwerk::catalog::files::write_atomic(std::path::Path::new(dest), text.as_bytes()).map_err(|e| format!("{dest}: {e}"))
}

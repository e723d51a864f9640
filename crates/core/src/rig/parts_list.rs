//! The parts list (bill of materials) of a build: every part with its quantity, its catalog
//! price with the price's date and source, or "unpriced", the provenance of its key figures, and
//! the total. Pure (no egui, no I/O): the GUI's Parts tab, its exports and any CLI render the
//! same [`PartsList`] as Markdown ([`PartsList::markdown`]), CSV ([`PartsList::csv`]) or JSON
//! ([`PartsList::json`]).
//!
//! Prices are the catalog's `price_usd` with `price_date` (launch MSRP or a dated street price,
//! see [`kraftwerk_catalog`]); a part without one is listed as unpriced and the total says it only
//! covers the priced lines. Parts the catalog has no entry for (`NVLink` bridges, risers, ids
//! the catalog does not know) are listed too, unpriced.

use super::Build;
use crate::fmt::usd;
use kraftwerk_catalog::cited::{self, CitedPrice};
use kraftwerk_catalog::{Catalog, HasId, PartKind};
use serde::Serialize;
use std::fmt::Write as _;

/// One key figure of a part as the catalog states it; `value` is `None` when no source
/// publishes it ("unknown").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyFigure {
    /// Field name with its unit (`board_power_w`).
    pub field: &'static str,
    /// Value with its unit for people (`450 W`), `None` when unknown.
    pub value: Option<String>,
}

/// One priced line: a part, how many, and its unit price with the price's date and source. A
/// parts list's row ([`PartsRow::line`]) and a planned build's priced parts (the planner's
/// `Evaluation::parts`) are this one type; a planned build's lines also say how each part is
/// bought ([`Bought`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PricedLine {
    /// Catalog id (empty for parts the catalog has no entry for, such as bridges and risers).
    pub id: String,
    /// Display name (vendor and model), or the id with "(not in the catalog)".
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// Unit price, USD; `None`: unknown (unpriced).
    pub unit_price_usd: Option<f64>,
    /// Date of the price (`YYYY-MM` or `YYYY-MM-DD`), when priced and dated.
    pub price_date: Option<String>,
    /// Where the price comes from when not from the part's own `source`: the street-price
    /// import's label (`docyx/pc-part-dataset@…, PCPartPicker-derived, MIT`), `launch MSRP: …`,
    /// `used: …`, `user price file`, or the owned marker ([`cited::OWNED_SOURCE`]).
    pub price_source: Option<String>,
    /// How the part is bought (written flat: `used`, `owned`): a planned build's lines, and a
    /// parts list's lines of the parts the build marks used or owned; `None` for a part
    /// bought new.
    #[serde(flatten)]
    pub bought: Option<Bought>,
}

impl PricedLine {
    /// Whether a planned build buys it at a used-market price.
    pub fn used(&self) -> bool {
        self.bought.is_some_and(|b| b.used)
    }

    /// Whether the user owns it (a planned build's owned units cost $0).
    pub fn owned(&self) -> bool {
        self.bought.is_some_and(|b| b.owned)
    }
}

/// How a planned build buys a part ([`PricedLine::bought`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bought {
    /// The price is a used-market price (`plan --used`).
    pub used: bool,
    /// The user owns the part (`plan --own`): it costs $0.
    pub owned: bool,
}

/// One line of the parts list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartsRow {
    /// What the part is in the build (`GPU`, `CPU`, `PSU`, `NVLink bridge`, ...).
    pub role: String,
    /// Catalog kind of the part (`None` for bridges and risers, which have no catalog entry).
    pub kind: Option<PartKind>,
    /// The part, how many, and its price (written flat: `id`, `name`, `quantity`,
    /// `unit_price_usd`, `price_date`, `price_source`).
    #[serde(flatten)]
    pub line: PricedLine,
    /// `quantity × unit_price_usd`, USD.
    pub line_usd: Option<f64>,
    /// URL the part's figures and price come from (the catalog entry's `source`), if any.
    pub source: Option<String>,
    /// Where the entry was defined (`built-in catalog/gpus.ron`, `user file …`, `inline in …`).
    pub origin: String,
    /// The figures the checker and estimates lean on most for this kind of part.
    pub key_figures: Vec<KeyFigure>,
    /// The part's cited used-market price (`catalog/prices/used.json`; a partner card's is its
    /// chip's where the card has none), shown beside `unit_price_usd`, never counted in the
    /// total: only `plan --used` plans with it. `None` when no source gives one, or when
    /// `unit_price_usd` already is that used price.
    pub used_price: Option<CitedPrice>,
}

/// The parts list of a build with its total.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartsList {
    /// Build name.
    pub build: String,
    /// Lines in build order: GPUs, CPU, board, cooler, case, memory, drives, PSUs, bridges,
    /// risers.
    pub rows: Vec<PartsRow>,
    /// Sum of the priced lines, USD.
    pub total_usd: f64,
    /// Lines with a price.
    pub priced_lines: usize,
    /// Lines without one (their cost is not in `total_usd`).
    pub unpriced_lines: usize,
}

fn fig(field: &'static str, v: Option<f64>, unit: &str) -> KeyFigure {
    KeyFigure { field, value: v.map(|v| format!("{v:.0} {unit}")) }
}

fn row<T: HasId>(
    kind: PartKind,
    role: &str,
    part: Option<&T>,
    id: &str,
    quantity: u32,
    price: Option<(Option<f64>, Option<String>, Option<String>)>,
) -> PartsRow {
    let (unit_price_usd, price_date, price_source) = price.unwrap_or((None, None, None));
    PartsRow {
        role: role.to_owned(),
        kind: Some(kind),
        line: PricedLine {
            id: id.to_owned(),
            name: part.map_or_else(|| format!("{id} (not in the catalog)"), HasId::display_name),
            quantity,
            unit_price_usd,
            price_date: unit_price_usd.and(price_date),
            // Unpriced lines keep only the reason a used part has no price.
            price_source: if unit_price_usd.is_some() {
                price_source
            } else {
                price_source.filter(|s| s == cited::USED_UNPRICED_SOURCE)
            },
            bought: None,
        },
        line_usd: unit_price_usd.map(|p| p * f64::from(quantity)),
        source: part.map(|p| p.source().to_owned()).filter(|s| !s.is_empty()),
        origin: part.map_or_else(|| "not in the catalog".to_owned(), |p| p.origin().to_string()),
        key_figures: Vec::new(),
        used_price: None,
    }
}

fn extra(role: &str, name: String, quantity: u32) -> PartsRow {
    PartsRow {
        role: role.to_owned(),
        kind: None,
        line: PricedLine {
            id: String::new(),
            name,
            quantity,
            unit_price_usd: None,
            price_date: None,
            price_source: None,
            bought: None,
        },
        line_usd: None,
        source: None,
        origin: "the build file (no catalog entry)".to_owned(),
        key_figures: Vec::new(),
        used_price: None,
    }
}

/// The rows with the build's owned units cut out ([`Build::owned_units`], the one split): a
/// row of `q` units of which the build owns `k` becomes a row of the `k` owned units at $0
/// (`price_source` [`cited::OWNED_SOURCE`], no date) and, when `k < q`, one of the other
/// `q - k` at the row's price (new, or used as [`Build::pricing_catalog`] priced it). Each
/// catalog row says how the build buys it ([`PricedLine::bought`]) when it is owned or used.
fn split_owned(build: &Build, rows: Vec<PartsRow>) -> Vec<PartsRow> {
    let owned = build.owned_units(rows.iter().map(|r| (r.line.id.as_str(), r.line.quantity)));
    let mut out = Vec::with_capacity(rows.len() + 1);
    for (mut r, k) in rows.into_iter().zip(owned) {
        let used = !r.line.id.is_empty() && build.is_used(&r.line.id);
        if k > 0 {
            let mut o = r.clone();
            o.line.quantity = k;
            o.line.unit_price_usd = Some(0.0);
            o.line.price_date = None;
            o.line.price_source = Some(cited::OWNED_SOURCE.to_owned());
            o.line.bought = Some(Bought { used: false, owned: true });
            o.line_usd = Some(0.0);
            out.push(o);
            if k == r.line.quantity {
                continue;
            }
            r.line.quantity -= k;
            r.line_usd = r.line.unit_price_usd.map(|p| p * f64::from(r.line.quantity));
        }
        if used {
            r.line.bought = Some(Bought { used: true, owned: false });
        }
        out.push(r);
    }
    out
}

/// Counts equal keys, keeping first-seen order.
fn grouped<K: PartialEq + Clone>(items: impl IntoIterator<Item = K>) -> Vec<(K, u32)> {
    let mut out: Vec<(K, u32)> = Vec::new();
    for k in items {
        match out.iter_mut().find(|(x, _)| *x == k) {
            Some((_, n)) => *n += 1,
            None => out.push((k, 1)),
        }
    }
    out
}

impl PartsList {
    /// The parts list of `build`, parts looked up in its inline parts, then `catalog`.
    ///
    /// Quantities: GPUs, drives and PSUs are grouped by id; the CPU and its cooler count once per
    /// CPU socket of the board; memory counts kits; `NVLink` bridges are grouped by slot
    /// spacing and risers by generation and length.
    ///
    /// Prices are the build's: used and owned parts as [`Build::pricing_catalog`] prices them,
    /// and a line the build owns some units of cut into its owned units at $0 and the rest
    /// (`owned: ["1x id"]` over two cards: two lines of one card each). Every cost of a build
    /// sums this list (`fit`'s [`crate::estimate::fit`] cost and the planner's total too).
    pub fn of(build: &Build, catalog: &Catalog) -> PartsList {
        let priced = build.pricing_catalog(catalog);
        let catalog: &Catalog = &priced;
        let r = build.resolve(catalog);
        let mut rows = Vec::new();
        for ((id, g), n) in grouped(build.gpus.iter().zip(&r.gpus).map(|(p, g)| (p.gpu.clone(), *g))) {
            let mut x = row(
                PartKind::Gpu,
                "GPU",
                g,
                &id,
                n,
                g.map(|g| (g.price_usd, g.price_date.clone(), g.price_source.clone())),
            );
            if let Some(g) = g {
                x.key_figures = vec![
                    KeyFigure { field: "memory_gib", value: Some(format!("{} GiB", g.memory_gib)) },
                    fig("board_power_w", Some(g.board_power_w), "W"),
                    fig("memory_bandwidth_gb_s", Some(g.memory_bandwidth_gb_s), "GB/s"),
                    fig("length_mm", g.length_mm, "mm"),
                ];
            }
            rows.push(x);
        }
        let sockets = u32::from(r.board.map_or(1, |b| b.cpu_sockets.max(1)));
        if let Some(id) = &build.cpu {
            let mut x = row(
                PartKind::Cpu,
                "CPU",
                r.cpu,
                id,
                sockets,
                r.cpu.map(|c| (c.price_usd, c.price_date.clone(), c.price_source.clone())),
            );
            if let Some(c) = r.cpu {
                x.key_figures = vec![fig("tdp_w", Some(c.tdp_w), "W"), fig("package_power_w", c.package_power_w, "W")];
            }
            rows.push(x);
        }
        if let Some(id) = &build.motherboard {
            let mut x = row(
                PartKind::Motherboard,
                "Motherboard",
                r.board,
                id,
                1,
                r.board.map(|b| (b.price_usd, b.price_date.clone(), b.price_source.clone())),
            );
            if let Some(b) = r.board {
                x.key_figures = vec![
                    KeyFigure { field: "socket", value: Some(b.socket.clone()) },
                    KeyFigure { field: "pcie_slots", value: Some(b.pcie_slots.len().to_string()) },
                ];
            }
            rows.push(x);
        }
        if let Some(id) = &build.cooler {
            let mut x = row(
                PartKind::Cooler,
                "CPU cooler",
                r.cooler,
                id,
                sockets,
                r.cooler.map(|c| (c.price_usd, c.price_date.clone(), c.price_source.clone())),
            );
            if let Some(c) = r.cooler {
                x.key_figures = vec![fig("rated_tdp_w", c.rated_tdp_w, "W"), fig("height_mm", c.height_mm, "mm")];
            }
            rows.push(x);
        }
        if let Some(id) = &build.case {
            let mut x = row(
                PartKind::Case,
                "Case",
                r.case,
                id,
                1,
                r.case.map(|c| (c.price_usd, c.price_date.clone(), c.price_source.clone())),
            );
            if let Some(c) = r.case {
                x.key_figures = vec![
                    fig("max_gpu_length_mm", c.max_gpu_length_mm, "mm"),
                    KeyFigure { field: "expansion_slots", value: Some(c.expansion_slots.to_string()) },
                ];
            }
            rows.push(x);
        }
        if let Some(m) = &build.memory {
            let kit = r.memory.map(|(k, _)| k);
            let mut x = row(
                PartKind::Memory,
                "Memory",
                kit,
                &m.kit,
                u32::from(m.kits),
                kit.map(|k| (k.price_usd, k.price_date.clone(), k.price_source.clone())),
            );
            if let Some(k) = kit {
                x.key_figures = vec![
                    KeyFigure { field: "kit_gb", value: Some(format!("{} GB", k.total_gb())) },
                    KeyFigure { field: "speed_mt_s", value: Some(format!("{} MT/s", k.speed_mt_s)) },
                ];
            }
            rows.push(x);
        }
        let drive = |id: &str| r.storage.iter().map(|(d, _)| *d).find(|d| d.id == id);
        for (id, n) in grouped(build.storage.iter().map(|s| s.drive.clone())) {
            let d = drive(&id);
            let mut x = row(
                PartKind::Storage,
                "Drive",
                d,
                &id,
                n,
                d.map(|d| (d.price_usd, d.price_date.clone(), d.price_source.clone())),
            );
            if let Some(d) = d {
                x.key_figures = vec![
                    KeyFigure { field: "capacity_gb", value: Some(format!("{} GB", d.capacity_gb)) },
                    fig("power_w", d.power_w, "W"),
                ];
            }
            rows.push(x);
        }
        for ((id, p), n) in grouped(build.psus.iter().zip(&r.psus).map(|(u, p)| (u.psu.clone(), *p))) {
            let mut x = row(
                PartKind::Psu,
                "PSU",
                p,
                &id,
                n,
                p.map(|p| (p.price_usd, p.price_date.clone(), p.price_source.clone())),
            );
            if let Some(p) = p {
                x.key_figures =
                    vec![fig("rated_w", Some(p.rated_w), "W"), fig("rated_w_low_line", p.rated_w_low_line, "W")];
            }
            rows.push(x);
        }
        for (spacing, n) in grouped(build.nvlink.iter().map(|b| b.spacing_slots)) {
            rows.push(extra("NVLink bridge", format!("NVLink bridge, {spacing}-slot spacing"), n));
        }
        for ((g, len), n) in
            grouped(build.gpus.iter().filter_map(|p| p.riser).map(|r| (r.pcie_gen, r.length_mm.map(f64::round))))
        {
            let len = len.map_or_else(|| "length unknown".to_owned(), |l| format!("{l:.0} mm"));
            rows.push(extra("Riser", format!("PCIe {g}.0 riser, {len}"), n));
        }
        let mut rows = split_owned(build, rows);
        let total_usd = rows.iter().filter_map(|r| r.line_usd).sum();
        for r in rows.iter_mut().filter(|r| r.kind.is_some() && !r.line.id.is_empty()) {
            r.used_price = cited::used_price_beside(catalog, &r.line.id).cloned();
        }
        let priced_lines = rows.iter().filter(|r| r.line_usd.is_some()).count();
        let unpriced_lines = rows.len() - priced_lines;
        PartsList { build: build.name.clone(), rows, total_usd, priced_lines, unpriced_lines }
    }

    /// The total for people: `$12,345` when every line is priced, else
    /// `at least $12,345 (2 of 9 lines unpriced)`; `no priced parts` when none is.
    pub fn total_text(&self) -> String {
        if self.priced_lines == 0 {
            return "no priced parts".to_owned();
        }
        let t = usd(self.total_usd);
        if self.unpriced_lines == 0 {
            t
        } else {
            format!("at least {t} ({} of {} lines unpriced)", self.unpriced_lines, self.rows.len())
        }
    }

    /// A Markdown table with a total line: part, quantity, unit price, line, price date,
    /// source, origin.
    pub fn markdown(&self) -> String {
        let mut s = String::from("| Part | Name | Qty | Unit price | Line | Price date | Source | Origin |\n");
        s.push_str("|---|---|---:|---:|---:|---|---|---|\n");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                md_cell(&r.role),
                md_cell(&r.line.name),
                r.line.quantity,
                r.line.unit_price_usd.map_or_else(|| "unpriced".to_owned(), usd),
                r.line_usd.map_or_else(|| "—".to_owned(), usd),
                r.line.price_date.as_deref().unwrap_or("—"),
                r.source.as_deref().map_or_else(|| "—".to_owned(), md_cell),
                md_cell(&r.origin),
            );
        }
        let _ = writeln!(s, "| **Total** | | | | **{}** | | | |", md_cell(&self.total_text()));
        s
    }

    /// CSV (RFC 4180, comma-separated, header row, `\r\n` line ends): one row per line, then a
    /// `Total` row. Prices are plain numbers in USD; unpriced cells are empty.
    pub fn csv(&self) -> String {
        let mut s =
            String::from("role,id,name,quantity,unit_price_usd,line_usd,price_date,source,origin,key_figures\r\n");
        for r in &self.rows {
            let figures: Vec<String> = r
                .key_figures
                .iter()
                .map(|f| format!("{}={}", f.field, f.value.as_deref().unwrap_or("unknown")))
                .collect();
            let cells = [
                r.role.clone(),
                r.line.id.clone(),
                r.line.name.clone(),
                r.line.quantity.to_string(),
                r.line.unit_price_usd.map_or_else(String::new, |p| format!("{p:.2}")),
                r.line_usd.map_or_else(String::new, |p| format!("{p:.2}")),
                r.line.price_date.clone().unwrap_or_default(),
                r.source.clone().unwrap_or_default(),
                r.origin.clone(),
                figures.join("; "),
            ];
            let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
            s.push_str(&line.join(","));
            s.push_str("\r\n");
        }
        let _ = write!(s, "Total,,,,,{:.2},,,,{}\r\n", self.total_usd, csv_cell(&self.total_text()));
        s
    }

    /// Pretty JSON of the whole list (the [`PartsList`] fields; unknown values are `null`).
    ///
    /// # Errors
    /// Only if serialization fails, which plain data does not.
    pub fn json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
}

impl PartsList {
    /// The list in PCPartPicker's Markdown layout (`Type|Item|Price`, one row per unit, as
    /// PCPartPicker lists two identical cards on two rows, and a `**Total**` footer), so
    /// `kraftwerk import` and other tools read it back. Prices are the catalog's unit prices
    /// with their date (`(used, …)` or `(owned)` for the parts the build marks so), or
    /// `unknown`; a cited used price follows the new one in the same cell
    /// (`$2,000 (catalog, 2025-07-23); used $1,400 (2026-07, GPUPoet, … <https://…>)`).
    pub fn pcpartpicker_markdown(&self) -> String {
        let mut s =
            format!("# {} (Kraftwerk parts list)\n\nType|Item|Price\n:----|:----|:----\n", md_cell(&self.build));
        for r in &self.rows {
            let ty = match r.kind {
                Some(PartKind::Gpu | PartKind::GpuCard) => "Video Card",
                Some(PartKind::Cpu) => "CPU",
                Some(PartKind::Cooler) => "CPU Cooler",
                Some(PartKind::Motherboard) => "Motherboard",
                Some(PartKind::Memory) => "Memory",
                Some(PartKind::Storage) => "Storage",
                Some(PartKind::Case) => "Case",
                Some(PartKind::Psu) => "Power Supply",
                _ => "Custom",
            };
            // Where the price comes from: the catalog, a used price the build asks for, owned.
            let how = match r.line.price_source.as_deref() {
                Some(cited::OWNED_SOURCE) => "owned",
                Some(s) if s.starts_with(cited::USED_PREFIX) => "used",
                _ => "catalog",
            };
            let price = match (r.line.unit_price_usd, &r.line.price_date) {
                (Some(p), Some(d)) => format!("{} ({how}, {d})", usd(p)),
                (Some(p), None) => format!("{} ({how})", usd(p)),
                (None, _) => match r.line.price_source.as_deref() {
                    Some(why) => format!("unknown ({why})"),
                    None => "unknown".to_owned(),
                },
            };
            let price = match &r.used_price {
                Some(u) => format!("{price}; used {} ({}, {} <{}>)", usd(u.usd), u.date, u.source, u.url),
                None => price,
            };
            for _ in 0..r.line.quantity.max(1) {
                let _ = writeln!(s, "**{ty}** | {} | {}", md_cell(&r.line.name), md_cell(&price));
            }
        }
        let _ = writeln!(s, " | **Total** | **{}**", md_cell(&self.total_text()));
        s
    }
}

/// An export format of the parts list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PartsFormat {
    /// A Markdown table ([`PartsList::markdown`]).
    Markdown,
    /// CSV ([`PartsList::csv`]).
    Csv,
    /// JSON ([`PartsList::json`]).
    Json,
}

impl PartsFormat {
    /// Every format, in menu order.
    pub const ALL: [PartsFormat; 3] = [PartsFormat::Markdown, PartsFormat::Csv, PartsFormat::Json];

    /// Name for people (`Markdown`, `CSV`, `JSON`).
    pub fn name(self) -> &'static str {
        match self {
            PartsFormat::Markdown => "Markdown",
            PartsFormat::Csv => "CSV",
            PartsFormat::Json => "JSON",
        }
    }

    /// File extension without the dot (`md`, `csv`, `json`).
    pub fn extension(self) -> &'static str {
        match self {
            PartsFormat::Markdown => "md",
            PartsFormat::Csv => "csv",
            PartsFormat::Json => "json",
        }
    }

    /// `list` in this format (JSON that cannot be serialized, which plain data never is, is
    /// written as a JSON string holding the error).
    pub fn render(self, list: &PartsList) -> String {
        match self {
            PartsFormat::Markdown => format!("# Parts: {}\n\n{}", list.build, list.markdown()),
            PartsFormat::Csv => list.csv(),
            PartsFormat::Json => list.json().unwrap_or_else(|e| format!("{:?}", e.to_string())),
        }
    }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{GpuPlacement, MemoryUse, NvlinkBridge, PsuUse, Riser};

    fn two_3090s() -> (Build, Catalog) {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let gpu = |slot| GpuPlacement {
            gpu: "nvidia-geforce-rtx-3090".into(),
            slot: Some(slot),
            slot_name: None,
            power_limit_w: None,
            riser: None,
            psu: 0,
            cable: None,
        };
        let mut b = Build {
            name: "Two 3090s".into(),
            cpu: Some("amd-threadripper-pro-7985wx".into()),
            motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
            memory: Some(MemoryUse {
                kit: "kingston-server-premier-ksm48r40bd4tmm-64hmr".into(),
                kits: 8,
                speed_mt_s: None,
            }),
            psus: vec![PsuUse { psu: "seasonic-prime-tx-1600-atx31".into(), feeds_system: None, circuit: 0 }],
            gpus: vec![gpu(1), gpu(4)],
            nvlink: vec![NvlinkBridge { gpus: (0, 1), spacing_slots: 3 }],
            ..Build::default()
        };
        b.gpus[1].riser = Some(Riser { pcie_gen: 4, length_mm: Some(200.0) });
        (b, cat)
    }

    #[test]
    fn lists_every_part_with_quantities_and_a_total_of_the_priced_lines() {
        let (b, cat) = two_3090s();
        let l = PartsList::of(&b, &cat);
        let roles: Vec<&str> = l.rows.iter().map(|r| r.role.as_str()).collect();
        assert_eq!(roles, ["GPU", "CPU", "Motherboard", "Memory", "PSU", "NVLink bridge", "Riser"]);
        assert_eq!(l.rows[0].line.quantity, 2, "two identical GPUs are one line");
        assert_eq!(l.rows[3].line.quantity, 8);
        let expected: f64 =
            l.rows.iter().filter_map(|r| r.line.unit_price_usd.map(|p| p * f64::from(r.line.quantity))).sum();
        assert!((l.total_usd - expected).abs() < 1e-6);
        assert_eq!(l.priced_lines + l.unpriced_lines, l.rows.len());
        let bridge = &l.rows[5];
        assert!(bridge.line.unit_price_usd.is_none() && bridge.line.name.contains("3-slot"));
        let gpu = &cat.gpu("nvidia-geforce-rtx-3090").expect("3090");
        assert_eq!(l.rows[0].line.unit_price_usd, gpu.price_usd);
        assert_eq!(l.rows[0].source.as_deref(), Some(gpu.source.as_str()));
        assert!(l.rows[0].origin.contains("gpus.ron"), "{}", l.rows[0].origin);
    }

    /// Issue 36: one RTX 3090 owned of two (`owned: ["1x id"]`) costs one card, not two and
    /// not none, and the list says which unit is owned.
    #[test]
    fn a_counted_owned_card_is_free_once() {
        let (mut b, cat) = two_3090s();
        // The 3090's new price is withheld (a launch price over 36 months old): bought used.
        b.used = vec!["nvidia-geforce-rtx-3090".into()];
        let new = PartsList::of(&b, &cat);
        let unit = new.rows[0].line.unit_price_usd.expect("the 3090 is priced used");
        b.owned = vec!["1x nvidia-geforce-rtx-3090".into()];
        let l = PartsList::of(&b, &cat);
        assert!((new.total_usd - l.total_usd - unit).abs() < 1e-6, "{} vs {}", new.total_usd, l.total_usd);
        let cards: Vec<&PartsRow> = l.rows.iter().filter(|r| r.line.id == "nvidia-geforce-rtx-3090").collect();
        assert_eq!(cards.len(), 2, "an owned line and a bought line: {cards:?}");
        assert!(cards[0].line.owned() && cards[0].line.quantity == 1 && cards[0].line_usd == Some(0.0));
        assert!(cards[1].line.used() && cards[1].line.quantity == 1 && cards[1].line_usd == Some(unit));
    }

    #[test]
    fn unknown_ids_and_figures_stay_unknown() {
        let (mut b, cat) = two_3090s();
        b.case = Some("no-such-case".into());
        let l = PartsList::of(&b, &cat);
        let case = l.rows.iter().find(|r| r.role == "Case").expect("case row");
        assert!(case.line.name.contains("not in the catalog") && case.line.unit_price_usd.is_none());
        assert!(l.markdown().contains("unpriced"));
        assert!(l.total_text().contains("unpriced"));
    }

    #[test]
    fn exports_have_every_line_and_the_total() {
        let (b, cat) = two_3090s();
        let l = PartsList::of(&b, &cat);
        let md = l.markdown();
        assert!(md.contains("NVLink bridge") && md.contains("**Total**"));
        let csv = l.csv();
        assert_eq!(csv.lines().count(), l.rows.len() + 2, "header, rows, total");
        assert!(csv.lines().all(|x| !x.is_empty()));
        let v: serde_json::Value = serde_json::from_str(&l.json().expect("json")).expect("valid json");
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(l.rows.len()));
        assert!((v["total_usd"].as_f64().expect("total") - l.total_usd).abs() < 1e-9);
    }

    #[test]
    fn csv_quotes_commas_and_quotes() {
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(usd(1_234_567.4), "$1,234,567");
        assert_eq!(usd(12.5), "$12.50");
    }
}

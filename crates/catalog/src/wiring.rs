//! Curated slot wiring laid over boards already in the catalog: `catalog/board-wiring/*.ron`,
//! one file per platform family (format in `ARCHITECTURE.md`, "Board wiring files").
//!
//! Each entry names a board by catalog id and gives its PCIe slots (lanes, generation, CPU or
//! chipset, sharing, optional positions, per-CPU lanes, bifurcation) and M.2 sockets from a
//! cited source. [`apply_wiring`] replaces the board's `pcie_slots` and `m2_slots` with them,
//! marks both figures' provenance `Vendor`, `Review` or `Firmware`, and appends the entry's notes and
//! source to the board's notes. It runs after the import and the curated files
//! ([`super::load::builtin_with_report`]).
//!
//! Errors are located (`file:line:column`): an id not in the catalog, a board wired twice, a
//! sharing rule naming a slot or socket the entry does not list, two slots of one position or
//! name, more electrical than physical lanes, a generation outside 1..=6.

use super::{Catalog, CatalogError, M2Slot, PcieSlot, Provenance};
use serde::Deserialize;
use std::collections::HashMap;

/// The wiring files, embedded at compile time: `(file name, RON text)`.
pub const WIRING_FILES: &[(&str, &str)] = &[
    ("catalog/board-wiring/am5.ron", include_str!("../../../catalog/board-wiring/am5.ron")),
    ("catalog/board-wiring/am4.ron", include_str!("../../../catalog/board-wiring/am4.ron")),
    ("catalog/board-wiring/lga1700.ron", include_str!("../../../catalog/board-wiring/lga1700.ron")),
    ("catalog/board-wiring/lga1851.ron", include_str!("../../../catalog/board-wiring/lga1851.ron")),
    ("catalog/board-wiring/hedt.ron", include_str!("../../../catalog/board-wiring/hedt.ron")),
    ("catalog/board-wiring/server.ron", include_str!("../../../catalog/board-wiring/server.ron")),
    ("catalog/board-wiring/lga1151.ron", include_str!("../../../catalog/board-wiring/lga1151.ron")),
    ("catalog/board-wiring/lga1200.ron", include_str!("../../../catalog/board-wiring/lga1200.ron")),
];

/// What kind of source an entry's wiring comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum WiringSourceKind {
    /// The vendor's manual or spec page.
    #[default]
    Vendor,
    /// A review or a field report (cited in the notes).
    Review,
    /// Probed on a running machine by `kraftwerk board probe` (SMBIOS slot table and PCIe
    /// tree; the source names the machine's board and the date). Laid over the board as a field
    /// report ([`Provenance::Review`]).
    Probed,
    /// The board's firmware slot table (SMBIOS type 9) read from `dmidecode` dumps of real
    /// machines (linuxhw/DMI), cited in `source` and `notes`: what the firmware declares (names,
    /// widths, generations, root ports), not a vendor document or a review.
    Firmware,
}

/// One entry of a wiring file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardWiring {
    /// Catalog id of the board, exactly.
    pub board: String,
    /// The original source of the slot table (manual URL and page, or spec page URL).
    pub source: String,
    /// Vendor (default), Review, Firmware or Probed.
    #[serde(default)]
    pub source_kind: WiringSourceKind,
    /// The PCIe slots, replacing the board's.
    pub pcie_slots: Vec<PcieSlot>,
    /// The M.2 sockets, replacing the board's.
    #[serde(default)]
    pub m2_slots: Vec<M2Slot>,
    /// What is from where and what is not known.
    #[serde(default)]
    pub notes: Option<String>,
}

/// 1-based `(line, column)` of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.chars().count(), |nl| before[nl + 1..].chars().count()) + 1;
    (line, col)
}

/// Byte offsets where each entry's `board:` key starts, in file order (the entries' anchors for
/// located errors: serde gives no spans once an entry has parsed).
fn entry_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("board:") {
        let at = from + i;
        // Skip the key inside a `//` comment on the same line.
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if !text[line_start..at].contains("//") {
            out.push(at);
        }
        from = at + "board:".len();
    }
    out
}

/// The first offset of `needle` in `text` within `[from, to)`, else `from`.
fn find_in(text: &str, from: usize, to: usize, needle: &str) -> usize {
    text.get(from..to.min(text.len())).and_then(|s| s.find(needle)).map_or(from, |i| from + i)
}

/// Parses one wiring file. `file` names it in errors.
///
/// # Errors
/// A located [`CatalogError`] for RON syntax errors, wrong types and unknown fields.
pub fn parse_wiring_file(file: &str, text: &str) -> Result<Vec<BoardWiring>, CatalogError> {
    crate::ron_options().from_str::<Vec<BoardWiring>>(text).map_err(|e| CatalogError::from_ron(file, &e))
}

/// Checks of one entry that need no catalog: slot names unique, positions unique, electrical
/// lanes within the connector, generations 1..=6, every sharing rule naming a slot or socket of
/// the entry. `locate(needle)` gives the error's line and column.
fn check_entry(file: &str, text: &str, span: (usize, usize), w: &BoardWiring) -> Vec<CatalogError> {
    let mut errs = Vec::new();
    let err = |needle: &str, message: String| {
        let (line, column) = line_col(text, find_in(text, span.0, span.1, needle));
        CatalogError { file: file.to_owned(), line, column, message }
    };
    let mut names: Vec<&str> = Vec::new();
    let mut positions: Vec<u8> = Vec::new();
    for s in &w.pcie_slots {
        let at = format!("\"{}\"", s.name);
        if names.contains(&s.name.as_str()) {
            errs.push(err(&at, format!("board `{}`: slot {} is listed twice", w.board, s.name)));
        }
        names.push(&s.name);
        if let Some(p) = s.position {
            if positions.contains(&p) {
                errs.push(err(
                    &at,
                    format!("board `{}`: slot {} overlaps another slot at position {p}", w.board, s.name),
                ));
            }
            positions.push(p);
        }
        if s.electrical_lanes > s.physical_lanes {
            errs.push(err(
                &at,
                format!(
                    "board `{}`: slot {} has x{} electrical lanes in an x{} connector",
                    w.board, s.name, s.electrical_lanes, s.physical_lanes
                ),
            ));
        }
        if let Some(l) = s.lanes_by_cpu.iter().find(|l| l.lanes > s.physical_lanes) {
            errs.push(err(
                &at,
                format!(
                    "board `{}`: slot {} has x{} lanes with {} in an x{} connector",
                    w.board,
                    s.name,
                    l.lanes,
                    l.cpus.join("/"),
                    s.physical_lanes
                ),
            ));
        }
        if !(1..=6).contains(&s.pcie_gen) {
            errs.push(err(&at, format!("board `{}`: slot {}: PCIe generation {}", w.board, s.name, s.pcie_gen)));
        }
    }
    for m in &w.m2_slots {
        if names.contains(&m.name.as_str()) {
            errs.push(err(&format!("\"{}\"", m.name), format!("board `{}`: {} is listed twice", w.board, m.name)));
        }
        names.push(&m.name);
        if !(1..=6).contains(&m.pcie_gen) {
            errs.push(err(
                &format!("\"{}\"", m.name),
                format!("board `{}`: {}: PCIe generation {}", w.board, m.name, m.pcie_gen),
            ));
        }
    }
    let shares = w
        .pcie_slots
        .iter()
        .map(|s| (s.name.as_str(), &s.shares))
        .chain(w.m2_slots.iter().map(|m| (m.name.as_str(), &m.shares)));
    for (owner, rules) in shares {
        for r in rules {
            if !names.contains(&r.when_used.as_str()) {
                errs.push(err(
                    &format!("when_used: \"{}\"", r.when_used),
                    format!(
                        "board `{}`: {owner} shares lanes with `{}`, which this entry does not list (slots and M.2 sockets: {})",
                        w.board,
                        r.when_used,
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    errs
}

/// Validates the wiring files against `catalog` without changing it: every located error of
/// every file (empty when all apply cleanly). `files` are `(name, text)`.
pub fn check_wiring(catalog: &Catalog, files: &[(&str, &str)]) -> Vec<CatalogError> {
    let mut c = Catalog { motherboards: catalog.motherboards.clone(), ..Catalog::default() };
    match apply_wiring(&mut c, files) {
        Ok(_) => Vec::new(),
        Err(errs) => errs,
    }
}

/// Applies the wiring files `files` (`(name, text)`) to `catalog`'s boards: each entry replaces
/// its board's `pcie_slots` and `m2_slots`, sets their provenance, and appends its notes and
/// source to the board's notes. Returns the number of boards wired per file.
///
/// # Errors
/// Every located error found (nothing is applied from a file with an error; other files still
/// are, so one broken family does not hide the others' errors).
pub fn apply_wiring(catalog: &mut Catalog, files: &[(&str, &str)]) -> Result<Vec<(String, usize)>, Vec<CatalogError>> {
    let index: HashMap<String, usize> =
        catalog.motherboards.iter().enumerate().map(|(i, b)| (b.id.clone(), i)).collect();
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut errs = Vec::new();
    let mut counts = Vec::new();
    for &(file, text) in files {
        let entries = match parse_wiring_file(file, text) {
            Ok(e) => e,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        let starts = entry_starts(text);
        let mut file_errs = Vec::new();
        let mut todo = Vec::new();
        for (k, w) in entries.into_iter().enumerate() {
            let from = starts.get(k).copied().unwrap_or(0);
            let to = starts.get(k + 1).copied().unwrap_or(text.len());
            let (line, column) = line_col(text, from);
            let at = |message: String| CatalogError { file: file.to_owned(), line, column, message };
            let Some(&bi) = index.get(&w.board) else {
                file_errs.push(at(format!(
                    "board `{}` is not in the catalog (use the id exactly as in catalog/opendb/motherboards.json or catalog/motherboards.ron)",
                    w.board
                )));
                continue;
            };
            if let Some(first) = seen.get(&w.board) {
                file_errs.push(at(format!("board `{}` is wired twice (first at {first})", w.board)));
                continue;
            }
            seen.insert(w.board.clone(), format!("{file}:{line}:{column}"));
            let entry_errs = check_entry(file, text, (from, to), &w);
            if entry_errs.is_empty() {
                todo.push((bi, w));
            }
            file_errs.extend(entry_errs);
        }
        if file_errs.is_empty() {
            counts.push((file.to_owned(), todo.len()));
            for (bi, w) in todo {
                if let Some(b) = catalog.motherboards.get_mut(bi) {
                    apply_one(b, w);
                }
            }
        }
        errs.extend(file_errs);
    }
    if errs.is_empty() { Ok(counts) } else { Err(errs) }
}

/// Lays one entry over its board.
fn apply_one(b: &mut super::Motherboard, w: BoardWiring) {
    b.pcie_slots = w.pcie_slots;
    let kind = match w.source_kind {
        WiringSourceKind::Vendor => Provenance::Vendor,
        // A probed entry is a field report from a running machine.
        WiringSourceKind::Review | WiringSourceKind::Probed => Provenance::Review,
        WiringSourceKind::Firmware => Provenance::Firmware,
    };
    let sources = std::sync::Arc::make_mut(&mut b.provenance);
    sources.figures.insert("pcie_slots".to_owned(), kind.clone());
    // An entry without M.2 sockets says nothing about them (most sources read for slot wiring
    // do not name the sockets): the board keeps what it had, and its sockets stay unknown
    // rather than becoming "no M.2 socket".
    if !w.m2_slots.is_empty() {
        b.m2_slots = w.m2_slots;
        sources.figures.insert("m2_slots".to_owned(), kind);
    }
    let unplaced = if b.pcie_slots.iter().any(|s| s.position.is_none()) { " Slot positions not given." } else { "" };
    let added = format!(
        "Slot wiring ({}): {}{unplaced} Source: {}",
        match w.source_kind {
            WiringSourceKind::Vendor => "vendor manual/spec",
            WiringSourceKind::Review => "review/field report",
            WiringSourceKind::Probed => "probed on a running machine",
            WiringSourceKind::Firmware => "firmware slot table",
        },
        w.notes.as_deref().unwrap_or("").trim(),
        w.source
    );
    b.notes = Some(match b.notes.take() {
        Some(n) if !n.trim().is_empty() => format!("{n}\n{added}"),
        _ => added,
    });
}

/// Expansion-slot positions a board of `form_factor` has room for, and where that comes from:
/// Mini-ITX 1; Micro-ATX 4 and ATX 7 ("provision for up to four expansion slots as opposed to
/// the seven that ATX allows", PC Tech Guide,
/// <https://www.pctechguide.com/motherboards/micro-atx-motherboard-form-factor/amp>; Mini-ITX's one
/// slot: the Wikipedia Mini-ITX article as mirrored at <http://piglix.com/piglix/Mini_ITX>). E-ATX,
/// SSI-CEB and SSI-EEB keep ATX's 12 in (305 mm) edge along which the seven positions run (305 x
/// 277, 305 x 267 and 305 x 330 mm against ATX's 305 x 244 mm: the extra size is depth), so 7
/// (derived). `None` for proprietary server boards.
pub(crate) fn form_factor_positions(form_factor: super::FormFactor) -> Option<(u8, &'static str)> {
    use super::FormFactor as F;
    Some(match form_factor {
        F::MiniItx => (
            1,
            "Mini-ITX has provision for one expansion slot (Wikipedia's Mini-ITX article, http://piglix.com/piglix/Mini_ITX)",
        ),
        F::MicroAtx => (
            4,
            "Micro-ATX has provision for up to four expansion slots (https://www.pctechguide.com/motherboards/micro-atx-motherboard-form-factor/amp)",
        ),
        F::Atx => (
            7,
            "ATX allows seven expansion slots (https://www.pctechguide.com/motherboards/micro-atx-motherboard-form-factor/amp)",
        ),
        F::EAtx | F::Ceb | F::Eeb => (
            7,
            "E-ATX, SSI-CEB and SSI-EEB keep ATX's 305 mm edge with its seven expansion-slot positions (ATX allows seven, https://www.pctechguide.com/motherboards/micro-atx-motherboard-form-factor/amp; the larger boards are deeper, not longer on that edge)",
        ),
        F::Proprietary => return None,
    })
}

/// The derived-position rule in words ([`derive_positions`]).
pub(crate) const DERIVED_POSITIONS: &str = "positions from the form factor: as many slots as the form factor has expansion positions, so every position holds one slot at single pitch; the slots are wired alike (connector, lanes, generation, CPU or chipset), so which end the numbering starts from changes no slot's link, and they are numbered in the order listed (1 = first listed) counted from one end of the slot edge; WHICH end (whether position 1 is nearest the CPU) no source gives, so the geometry rules judge the build both ways and give a verdict only where both agree (slot_order: EitherEnd)";

/// Gives positions to boards whose positions no source gives but their form factor forces: a
/// board with as many PCIe slots as its form factor has expansion positions
/// ([`form_factor_positions`]: 7 on ATX, E-ATX, SSI-CEB, SSI-EEB; 4 on Micro-ATX; 1 on
/// Mini-ITX), none of them placed, and all of them wired alike (same connector, electrical
/// lanes, generation and lane source: then the direction of the numbering, which the sources
/// rarely give, changes no link), gets positions `1..=n` in the order its slots are listed,
/// counted from an end the sources do not name: its `slot_order` becomes
/// [`SlotOrder::EitherEnd`](super::SlotOrder::EitherEnd), so the geometry rules judge both
/// directions ([`super::Motherboard::reversed_positions`]). Its `pcie_slots.position` figure is
/// marked [`Provenance::Derived`] with the rule and the form factor's source, and its notes say
/// so. Sharing rules stay with the slot names. A board with
/// some positions given, fewer or more slots than positions, slots wired differently (an x8
/// slot among x16 ones: which position it has depends on the direction), or a proprietary form
/// factor is left alone. Returns the ids of the boards given positions.
pub(crate) fn derive_positions(boards: &mut [super::Motherboard]) -> Vec<String> {
    let mut out = Vec::new();
    for b in boards.iter_mut() {
        let Some((n, why)) = form_factor_positions(b.form_factor) else { continue };
        let Some(first) = b.pcie_slots.first() else { continue };
        let alike = b.pcie_slots.iter().all(|s| {
            (s.physical_lanes, s.electrical_lanes, s.pcie_gen, s.lane_source)
                == (first.physical_lanes, first.electrical_lanes, first.pcie_gen, first.lane_source)
        });
        if b.pcie_slots.len() != usize::from(n) || !alike || b.pcie_slots.iter().any(|s| s.position.is_some()) {
            continue;
        }
        for (k, s) in (1u8..).zip(b.pcie_slots.iter_mut()) {
            s.position = Some(k);
        }
        b.slot_order = super::SlotOrder::EitherEnd;
        let rule = format!("{DERIVED_POSITIONS}; {why}");
        let sources = std::sync::Arc::make_mut(&mut b.provenance);
        sources.figures.insert("pcie_slots.position".to_owned(), Provenance::Derived(rule.clone()));
        let added = format!("Slot positions DERIVED ({n} slots on a {} board): {rule}.", b.form_factor);
        b.notes = Some(match b.notes.take() {
            Some(t) if !t.trim().is_empty() => format!("{t}\n{added}"),
            _ => added,
        });
        out.push(b.id.clone());
    }
    out
}

/// Problems of a slot layout entered for `board` (the window's slot-layout editor): the wiring
/// file's entry checks (duplicate names, overlapping positions, electrical lanes beyond the
/// connector, generations, sharing rules naming a slot or M.2 socket the board does not have),
/// and lanes the CPU does not have: a CPU slot wider than `cpu_lanes`, or CPU slots that share
/// nothing (so run together at full width) needing more than `cpu_lanes`. Empty: it can be saved.
pub fn layout_problems(board: &super::Motherboard, slots: &[PcieSlot], cpu_lanes: Option<u16>) -> Vec<String> {
    let w = BoardWiring {
        board: board.id.clone(),
        source: String::new(),
        source_kind: WiringSourceKind::Vendor,
        pcie_slots: slots.to_vec(),
        m2_slots: board.m2_slots.clone(),
        notes: None,
    };
    let mut out: Vec<String> = check_entry("", "", (0, 0), &w).into_iter().map(|e| e.message).collect();
    if slots.is_empty() {
        out.push("no slots entered".to_owned());
    }
    for s in slots.iter().filter(|s| s.name.trim().is_empty()) {
        out.push(format!("a slot (x{} connector) has no name", s.physical_lanes));
    }
    if let Some(have) = cpu_lanes {
        let cpu: Vec<&PcieSlot> = slots.iter().filter(|s| s.lane_source == super::LaneSource::Cpu).collect();
        for s in cpu.iter().filter(|s| u16::from(s.electrical_lanes) > have) {
            out.push(format!("slot {} has x{} CPU lanes; the CPU has {have}", s.name, s.electrical_lanes));
        }
        let together: u16 = cpu.iter().filter(|s| s.shares.is_empty()).map(|s| u16::from(s.electrical_lanes)).sum();
        if together > have {
            out.push(format!(
                "the CPU slots that share no lanes need {together} CPU lanes together; the CPU has {have} (enter the sharing rules from the manual)"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn entry_anchors_skip_comments() {
        let t = "// board: \"x\"\n[(board: \"a\"), (board: \"b\")]";
        assert_eq!(entry_starts(t).len(), 2);
    }
}

//! The board wiring files (`catalog/board-wiring/*.ron`): they load over the catalog, and each
//! kind of bad entry is a located error (file:line:column).
//!
//! Boards in the fixtures below are real catalog ids; the wiring texts are made up for the error
//! cases (the real entries and their sources are in `catalog/board-wiring/am4.ron`).

use kraftwerk_catalog::{self as catalog, Provenance, wiring};

fn boards_only() -> catalog::Catalog {
    let full = catalog::builtin().expect("catalog");
    catalog::Catalog { motherboards: full.motherboards, ..catalog::Catalog::default() }
}

/// One valid entry for `board`, its slots' text given.
fn entry(board: &str, slots: &str, m2: &str) -> String {
    format!(
        "(\n    board: \"{board}\",\n    source: \"test\",\n    pcie_slots: [\n{slots}\n    ],\n    m2_slots: [{m2}],\n)"
    )
}

const X16: &str = "        (name: \"A\", position: 1, physical_lanes: 16, electrical_lanes: 16, pcie_gen: 4, lane_source: Cpu, shares: []),";

#[test]
fn every_wiring_file_applies_to_the_catalog() {
    let (c, report) = catalog::builtin_with_report().expect("the built-in catalog with its wiring files loads");
    let wired: usize = report.wiring.iter().map(|(_, n)| n).sum();
    assert!(wired >= 3, "wiring report: {:?}", report.wiring);
    assert_eq!(report.wiring.len(), wiring::WIRING_FILES.len(), "{:?}", report.wiring);
    // MSI MEG X570 UNIFY, manual p. 19 (https://www.easymanua.ls/msi/meg-x570-unify/manual?p=31).
    let b = c.motherboards.iter().find(|b| b.id == "msi-x570-meg-unify-ddr4-atx").expect("board");
    assert!(b.slot_layout_known(), "wired");
    assert!(!b.slot_positions_known(), "the page read gives no positions");
    assert_eq!(b.pcie_slots.len(), 5);
    assert_eq!(b.provenance.of("pcie_slots"), Provenance::Vendor);
    assert!(b.notes.as_deref().unwrap_or("").contains("easymanua.ls/msi/meg-x570-unify"), "{:?}", b.notes);
    let e3 = b.slot_named("PCI_E3").expect("PCI_E3");
    assert_eq!((e3.electrical_lanes, e3.lane_source), (8, catalog::LaneSource::Cpu));
    assert_eq!(e3.lanes_with_cpu(Some("AMD Ryzen 5 3400G")), 0, "unavailable with a Picasso APU");
    assert_eq!(e3.lanes_with_cpu(Some("Ryzen 9 5950X")), 8);
    assert!(b.slots_text().contains("positions unknown"), "{}", b.slots_text());
    // `catalog --stats`: wired boards, boards with positions, boards per wiring file.
    let s = catalog::audit::stats(&c, &report);
    assert!(s.motherboards_with_wiring >= s.motherboards_with_positions + 3, "{s:?}");
    assert!(s.wiring_files.get("catalog/board-wiring/am4.ron").is_some_and(|n| *n >= 3), "{:?}", s.wiring_files);
    // Every wired board comes from one wiring file or from a curated layout.
    let from_files: usize = s.wiring_files.values().sum();
    assert!(from_files <= s.motherboards_with_wiring, "{s:?}");
    assert!(s.memory_kits_by_type.contains_key("DDR4 UDIMM"), "{:?}", s.memory_kits_by_type);
}

#[test]
fn positions_parse_bare_wrapped_or_omitted() {
    let c = boards_only();
    let text = format!(
        "[{}]",
        entry(
            "msi-pro-b550-p-gen3",
            "        (name: \"A\", position: 1, physical_lanes: 16, electrical_lanes: 16, pcie_gen: 3, lane_source: Cpu),\n        (name: \"B\", position: Some(3), physical_lanes: 16, electrical_lanes: 4, pcie_gen: 3, lane_source: Chipset),\n        (name: \"C\", physical_lanes: 1, electrical_lanes: 1, pcie_gen: 2, lane_source: Chipset),",
            ""
        )
    );
    let parsed = wiring::parse_wiring_file("t.ron", &text).expect("parses");
    let pos: Vec<Option<u8>> = parsed[0].pcie_slots.iter().map(|s| s.position).collect();
    assert_eq!(pos, vec![Some(1), Some(3), None]);
    assert!(wiring::check_wiring(&c, &[("t.ron", &text)]).is_empty());
}

/// The errors of `text` as `file:line:column: message` lines.
fn errors(text: &str) -> Vec<String> {
    wiring::check_wiring(&boards_only(), &[("bad.ron", text)]).iter().map(ToString::to_string).collect()
}

#[test]
fn an_unknown_board_id_is_a_located_error() {
    let text = format!("[\n{}\n]", entry("no-such-board-anywhere", X16, ""));
    let e = errors(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("bad.ron:3:5: board `no-such-board-anywhere` is not in the catalog"), "{e:?}");
}

#[test]
fn a_board_wired_twice_is_a_located_error() {
    let one = entry("msi-pro-b550-p-gen3", X16, "");
    let text = format!("[\n{one},\n{one}\n]");
    let e = errors(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("bad.ron:11:5: board `msi-pro-b550-p-gen3` is wired twice (first at bad.ron:3:5)"),
        "{e:?}"
    );
    // Across files too: the board of the built-in am4.ron wired again elsewhere.
    let again = format!("[\n{}\n]", entry("msi-x570-meg-unify-ddr4-atx", X16, ""));
    let files = [wiring::WIRING_FILES[1], ("extra.ron", again.as_str())];
    let full = catalog::builtin().expect("catalog");
    let mut c = catalog::Catalog { motherboards: full.motherboards, ..catalog::Catalog::default() };
    // The built-in catalog is already wired; apply to a fresh copy of the import order instead:
    // wiring the same file twice must report the duplicate.
    let e = wiring::apply_wiring(&mut c, &files).expect_err("duplicate across files");
    assert!(e.iter().any(|x| x.file == "extra.ron" && x.message.contains("wired twice")), "{e:?}");
}

#[test]
fn a_share_naming_an_unknown_slot_or_socket_is_a_located_error() {
    let slots = "        (name: \"A\", physical_lanes: 16, electrical_lanes: 16, pcie_gen: 4, lane_source: Cpu, shares: [(when_used: \"M.2_9\", lanes: 8)]),";
    let m2 =
        "(name: \"M.2_1\", lanes: 4, pcie_gen: 4, lane_source: Cpu, shares: [(when_used: \"PCIEX16_7\", lanes: 0)])";
    let text = format!("[\n{}\n]", entry("msi-pro-b550-p-gen3", slots, m2));
    let e = errors(&text);
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].starts_with("bad.ron:6:104: board `msi-pro-b550-p-gen3`: A shares lanes with `M.2_9`"), "{e:?}");
    assert!(e[1].contains("M.2_1 shares lanes with `PCIEX16_7`, which this entry does not list"), "{e:?}");
    assert!(e[1].starts_with("bad.ron:8:"), "{e:?}");
}

#[test]
fn overlapping_positions_are_a_located_error() {
    let slots = format!(
        "{X16}\n        (name: \"B\", position: 1, physical_lanes: 16, electrical_lanes: 4, pcie_gen: 4, lane_source: Chipset),"
    );
    let text = format!("[\n{}\n]", entry("msi-pro-b550-p-gen3", &slots, ""));
    let e = errors(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("bad.ron:7:16: board `msi-pro-b550-p-gen3`: slot B overlaps another slot at position 1"),
        "{e:?}"
    );
}

#[test]
fn more_electrical_than_physical_lanes_is_a_located_error() {
    let slots = "        (name: \"A\", physical_lanes: 4, electrical_lanes: 16, pcie_gen: 4, lane_source: Cpu),";
    let text = format!("[\n{}\n]", entry("msi-pro-b550-p-gen3", slots, ""));
    let e = errors(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with(
            "bad.ron:6:16: board `msi-pro-b550-p-gen3`: slot A has x16 electrical lanes in an x4 connector"
        ),
        "{e:?}"
    );
}

#[test]
fn a_syntax_error_or_unknown_field_is_located_by_ron() {
    let text = "[\n(\n    board: \"msi-pro-b550-p-gen3\",\n    colour: \"red\",\n)\n]";
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("bad.ron:4:"), "{e:?}");
}

/// The window's slot-layout editor refuses a layout with overlapping positions, more CPU lanes
/// than the CPU has, or a slot sharing with a socket the board does not have (issue 25, "Bad
/// input"), each said in words.
#[test]
fn an_entered_layout_with_bad_input_is_refused_with_reasons() {
    use kraftwerk_catalog::{LaneShare, LaneSource, PcieSlot};
    let c = boards_only();
    let b = c.motherboards.iter().find(|b| b.id == "asus-proart-b650-creator").expect("board");
    let slot = |name: &str, position: Option<u8>, lanes: u8, shares: Vec<LaneShare>| PcieSlot {
        name: name.into(),
        position,
        physical_lanes: 16,
        electrical_lanes: lanes,
        pcie_gen: 4,
        lane_source: LaneSource::Cpu,
        shares,
        lanes_by_cpu: Vec::new(),
        bifurcation: Vec::new(),
    };
    let good = vec![
        slot("PCIEX16_1", Some(1), 16, vec![LaneShare { when_used: "PCIEX16_2".into(), lanes: 8 }]),
        slot("PCIEX16_2", None, 8, vec![]),
    ];
    assert!(wiring::layout_problems(b, &good, Some(24)).is_empty());
    let bad = vec![
        slot("A", Some(1), 16, vec![]),
        slot("B", Some(1), 16, vec![]),
        slot("C", None, 4, vec![LaneShare { when_used: "U.2_1".into(), lanes: 0 }]),
    ];
    let p = wiring::layout_problems(b, &bad, Some(24));
    assert!(p.iter().any(|m| m.contains("slot B overlaps another slot at position 1")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("share no lanes need 32 CPU lanes together; the CPU has 24")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("C shares lanes with `U.2_1`, which this entry does not list")), "{p:?}");
}

/// A wiring entry that names no M.2 socket says nothing about the board's sockets: they stay
/// unknown (the Build tab said "0 M.2" for the MSI PRO B550-P GEN3, which has M.2 sockets, before
/// this); an entry that names them makes them known.
#[test]
fn a_wiring_entry_without_m2_sockets_leaves_them_unknown() {
    let c = catalog::builtin().expect("catalog");
    let b550p = c.motherboards.iter().find(|b| b.id == "msi-pro-b550-p-gen3").expect("board");
    assert!(b550p.slot_layout_known(), "its slots are wired");
    assert!(!b550p.m2_sockets_known(), "its M.2 sockets are not in its wiring entry: {:?}", b550p.m2_slots);
    assert!(b550p.m2_text().starts_with("M.2 sockets unknown"), "the Build tab's header: {}", b550p.m2_text());
    let unify = c.motherboards.iter().find(|b| b.id == "msi-meg-b550-unify").expect("board");
    assert!(unify.m2_sockets_known() && unify.m2_slots.len() == 4, "{:?}", unify.m2_slots);
    assert_eq!(unify.m2_text(), "4 M.2");
}

//! The probe on recorded trees (`tests/fixtures/board-probe/*`, each with a SOURCE.md naming
//! where its files come from): golden output, slot-by-slot assertions, loading through the
//! wiring loader, agreement with the curated wiring, and planted faults that must change the
//! deduced origin.
//!
//! Regenerate the golden files (after checking the change is right) with
//! `KRAFTWERK_UPDATE_GOLDEN=1 cargo test -p kraftwerk-catalog --lib board_probe`.

use super::pci::{Link, PciFunction};
use super::*;
use crate::wiring::{check_wiring, parse_wiring_file};
use std::path::PathBuf;

const DATE: &str = "2026-12-05";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/board-probe").join(name)
}

/// The probe of fixture `name`, the catalog board it matches (if any) and the wiring file.
fn probed(name: &str) -> (BoardProbe, Option<Motherboard>, String) {
    let cat = crate::builtin().expect("built-in catalog");
    let p = probe_board(&fixture(name));
    let found = match_boards(
        &cat.motherboards,
        p.smbios.board_vendor.as_deref().unwrap_or(""),
        p.smbios.board_product.as_deref().unwrap_or(""),
    );
    let board = found.first().map(|b| (*b).clone());
    let id = board.as_ref().map_or_else(|| "NO CATALOG BOARD".to_owned(), |b| b.id.clone());
    let text = p.wiring_ron(&id, DATE, &format!("recorded tree {name}"), board.as_ref());
    (p, board, text)
}

fn slot<'a>(p: &'a BoardProbe, name: &str) -> &'a ProbedSlot {
    p.slots.iter().find(|s| s.smbios.designation == name).unwrap_or_else(|| panic!("slot {name}"))
}

fn figures(s: &ProbedSlot) -> (Option<u8>, Option<u8>, Option<u8>, &'static str) {
    let origin = match s.origin {
        LaneOrigin::Cpu(_) => "cpu",
        LaneOrigin::Chipset(_) => "chipset",
        LaneOrigin::Unknown(_) => "unknown",
    };
    (s.electrical_lanes, s.physical_lanes, s.pcie_gen, origin)
}

fn golden(name: &str, text: &str) {
    let path = fixture(name).join("expected.ron");
    if std::env::var_os("KRAFTWERK_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, text).expect("write golden");
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text, want, "probe output of {name} differs from {}", path.display());
}

fn loads(text: &str) {
    let cat = crate::builtin().expect("built-in catalog");
    parse_wiring_file("probed", text).expect("parses as a wiring file");
    let errs = check_wiring(&cat, &[("probed", text)]);
    assert!(errs.is_empty(), "does not load: {errs:?}");
}

#[test]
fn amd_x670e_hero() {
    let (p, board, text) = probed("amd-x670e-hero");
    assert_eq!(board.map(|b| b.id).as_deref(), Some("asus-x670e-rog-crosshair-hero-am5-ddr5-atx"));
    // The firmware names the root ports; the x8 port of PCIEX16_1 is split with PCIEX16_2.
    assert_eq!(figures(slot(&p, "PCIEX16_1")), (Some(16), Some(16), Some(5), "cpu"));
    assert_eq!(figures(slot(&p, "PCIEX16_2")), (Some(8), Some(16), Some(5), "cpu"));
    assert_eq!(slot(&p, "PCIEX16_1").port_link.width, Some(8));
    assert!(slot(&p, "PCIEX16_1").notes.iter().any(|n| n.contains("lanes split")));
    // The GPU in PCIEX16_1 negotiated Gen 4 x8.
    let dev = slot(&p, "PCIEX16_1").device.as_ref().expect("GPU");
    assert_eq!((dev.1, dev.2, dev.3.text()), (0x10de, 0x2204, "PCIe 4.0 x8".to_owned()));
    // 00:1f.7 is a placeholder: the x1 slot is left out, and the entry says so.
    assert_eq!(figures(slot(&p, "PCIEX1")).3, "unknown");
    // The chipset: a Promontory 21 upstream port below root port 00:02.1, linked PCIe 4.0 x4.
    let c = p.chipset.as_ref().expect("chipset");
    assert!(c.what.contains("0000:04:00.0 [1022:43f4]") && c.what.contains("0000:00:02.1"), "{}", c.what);
    assert_eq!(c.uplink.map(|(neg, _)| neg.text()).as_deref(), Some("PCIe 4.0 x4"));
    // The M.2 Wi-Fi socket is behind the chipset (two chips deep).
    assert_eq!(figures(slot(&p, "M.2(WIFI)")).3, "chipset");
    assert!(text.contains("INCOMPLETE: 1 of 3 card slots are not entered: PCIEX1"), "{text}");
    assert!(text.contains("PCIEX16_1: agrees (x16, Gen 5, Cpu)"), "{text}");
    loads(&text);
    golden("amd-x670e-hero", &text);
}

#[test]
fn intel_z790_p() {
    let (p, board, text) = probed("intel-z790-p");
    // PRIME Z790-P WIFI, not its D4 twin.
    assert_eq!(board.map(|b| b.id).as_deref(), Some("asus-prime-z790-p-wifi-lga1700-ddr5-atx"));
    assert_eq!(figures(slot(&p, "PCIEx16(G5)")), (Some(16), Some(16), Some(5), "cpu"));
    assert_eq!(figures(slot(&p, "PCIEX1(G3)")), (Some(1), Some(1), Some(3), "chipset"));
    assert_eq!(figures(slot(&p, "PCIEX16(G4)_3")), (Some(4), Some(16), Some(4), "chipset"));
    assert_eq!(figures(slot(&p, "M.2_1")).3, "cpu");
    assert_eq!(figures(slot(&p, "M.2_2")).3, "chipset");
    // Slots the firmware gives no address for are not guessed.
    assert_eq!(figures(slot(&p, "PCIEX16(G4)_1")).3, "unknown");
    assert!(p.chipset.as_ref().is_some_and(|c| c.uplink.is_none() && c.what.contains("Intel PCH")));
    assert!(text.contains("uplink: DMI, not a PCIe link in this tree"), "{text}");
    loads(&text);
    golden("intel-z790-p", &text);
}

#[test]
fn server_romed8_2t() {
    let (p, board, text) = probed("server-romed8-2t");
    assert_eq!(board.map(|b| b.id).as_deref(), Some("asrock-rack-romed8-2t"));
    for name in ["PCIE1", "PCIE3", "PCIE4", "PCIE5", "PCIE6"] {
        assert_eq!(figures(slot(&p, name)), (Some(16), Some(16), Some(4), "cpu"), "{name}");
        assert!(text.contains(&format!("{name}: agrees (x16, Gen 4, Cpu)")), "{name}: {text}");
    }
    // Four root complexes, no chipset.
    assert!(p.chipset.is_none());
    // The table's ff:1f.7 placeholders (PCIE2, PCIE7) are not guessed.
    assert_eq!(figures(slot(&p, "PCIE2")).3, "unknown");
    assert_eq!(figures(slot(&p, "PCIE7")).3, "unknown");
    // Five GPUs, each negotiated x16 (at 2.5 GT/s idle).
    assert_eq!(p.devices.iter().filter(|(d, _)| d.starts_with("GPU")).count(), 5);
    loads(&text);
    golden("server-romed8-2t", &text);
}

#[test]
fn a_machine_without_a_slot_table_writes_no_entry_and_says_why() {
    let (p, board, text) = probed("sandbox-vm");
    assert!(board.is_none());
    assert!(p.smbios_source.as_ref().is_err_and(|e| e.starts_with(NO_SLOT_TABLE)), "{:?}", p.smbios_source);
    assert_eq!(p.tree.functions.len(), 6, "the PCIe tree is still read");
    assert!(text.contains("slot table not readable: run as root"), "{text}");
    assert!(text.trim_end().ends_with("[]"), "{text}");
    loads(&text);
    golden("sandbox-vm", &text);
}

#[test]
fn a_missing_root_reads_nothing_and_does_not_panic() {
    let p = probe_board(&fixture("no-such-dir"));
    assert!(p.smbios_source.is_err());
    assert!(p.tree.functions.is_empty() && p.slots.is_empty());
}

/// Planted fault: the HERO's PCIEX16_1 root port hung below the chipset's downstream port
/// 05:00.0 must become a chipset slot (and the comparison with the catalog must say so).
#[test]
fn a_slot_moved_under_the_chipset_bridge_changes_its_origin() {
    let (p, board, _) = probed("amd-x670e-hero");
    let port = smbios::PciAddr::parse("00:01.1").expect("addr");
    let mut tree = p.tree.clone();
    tree.functions.get_mut(&port).expect("port").parent = smbios::PciAddr::parse("05:00.0");
    let moved = deduce(p.smbios.clone(), p.smbios_source.clone(), tree, p.tree_source.clone());
    let s = slot(&moved, "PCIEX16_1");
    assert!(matches!(&s.origin, LaneOrigin::Chipset(w) if w.contains("1022:43f4")), "{:?}", s.origin);
    let board = board.expect("catalog board");
    let text = moved.wiring_ron(&board.id, DATE, "planted", Some(&board));
    assert!(
        text.contains(
            "(name: \"PCIEX16_1\", physical_lanes: 16, electrical_lanes: 16, pcie_gen: 5, lane_source: Chipset"
        ),
        "{text}"
    );
    assert!(text.contains("PCIEX16_1: differs: Chipset probed, Cpu in the catalog"), "{text}");
    // The unplanted tree says CPU.
    assert_eq!(figures(slot(&p, "PCIEX16_1")).3, "cpu");
}

/// Planted fault, Intel: the Z790-P's CPU x16 port renumbered as a PCH device (1Ch) turns
/// chipset; a PCH port renumbered as device 01h turns CPU.
#[test]
fn an_intel_port_at_a_pch_device_number_is_the_chipsets() {
    let (p, _, _) = probed("intel-z790-p");
    let mut tree = p.tree.clone();
    let cpu = smbios::PciAddr::parse("00:01.0").expect("addr");
    let mut f = tree.functions.remove(&cpu).expect("port");
    f.addr.device = 0x1c;
    f.addr.function = 5;
    let moved_addr = f.addr;
    tree.functions.insert(moved_addr, f);
    for g in tree.functions.values_mut() {
        if g.parent == Some(cpu) {
            g.parent = Some(moved_addr);
        }
    }
    assert!(matches!(port_origin(&tree, moved_addr), LaneOrigin::Chipset(_)));
    assert!(matches!(port_origin(&p.tree, cpu), LaneOrigin::Cpu(_)));
}

#[test]
fn a_port_of_an_unknown_vendor_or_behind_an_unknown_switch_is_not_determined() {
    let a = |s: &str| smbios::PciAddr::parse(s).expect("addr");
    let f = |addr: &str, vendor: u16, parent: Option<&str>| PciFunction {
        addr: a(addr),
        vendor,
        device: 0x1234,
        class: 0x0006_0400,
        parent: parent.map(a),
        max_link: Link { speed_gts: Some(16.0), width: Some(16) },
        current_link: Link::default(),
        name: None,
    };
    let mut tree = pci::PciTree::default();
    for g in [
        f("00:01.0", 0x1b36, None),
        f("00:02.0", 0x1022, None),
        f("01:00.0", 0x10b5, Some("00:02.0")),
        f("02:08.0", 0x10b5, Some("01:00.0")),
    ] {
        tree.functions.insert(g.addr, g);
    }
    assert!(matches!(port_origin(&tree, a("00:01.0")), LaneOrigin::Unknown(_)), "a QEMU root port");
    assert!(matches!(port_origin(&tree, a("02:08.0")), LaneOrigin::Unknown(w) if w.contains("switch")), "a PLX switch");
    assert!(matches!(port_origin(&tree, a("00:02.0")), LaneOrigin::Cpu(_)));
}

#[test]
fn sysfs_nesting_gives_the_hierarchy() {
    let root = std::env::temp_dir().join(format!("kraftwerk-probe-sysfs-{}", std::process::id()));
    let port = root.join("sys/devices/pci0000:00/0000:00:01.1");
    let gpu = port.join("0000:01:00.0");
    std::fs::create_dir_all(&gpu).expect("mkdir");
    for (dir, files) in [
        (
            &port,
            [
                ("vendor", "0x1022"),
                ("device", "0x14db"),
                ("class", "0x060400"),
                ("max_link_speed", "32.0 GT/s PCIe"),
                ("max_link_width", "16"),
                ("current_link_speed", "16.0 GT/s PCIe"),
                ("current_link_width", "16"),
            ],
        ),
        (
            &gpu,
            [
                ("vendor", "0x10de"),
                ("device", "0x2684"),
                ("class", "0x030000"),
                ("max_link_speed", "16.0 GT/s PCIe"),
                ("max_link_width", "16"),
                ("current_link_speed", "16.0 GT/s PCIe"),
                ("current_link_width", "16"),
            ],
        ),
    ] {
        for (n, v) in files {
            std::fs::write(dir.join(n), format!("{v}\n")).expect("write");
        }
    }
    let t = pci::read_sysfs(&root);
    let g = &t.functions[&smbios::PciAddr::parse("01:00.0").expect("addr")];
    assert_eq!(g.parent, smbios::PciAddr::parse("00:01.1"));
    assert!(g.is_gpu());
    assert_eq!(t.functions[&smbios::PciAddr::parse("00:01.1").expect("addr")].max_link.text(), "PCIe 5.0 x16");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn boards_match_by_vendor_and_every_product_word() {
    let cat = crate::builtin().expect("built-in catalog");
    let ids = |v: &str, p: &str| match_boards(&cat.motherboards, v, p).iter().map(|b| b.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids("ASUSTeK COMPUTER INC.", "PRIME Z790-P WIFI").first().map(String::as_str),
        Some("asus-prime-z790-p-wifi-lga1700-ddr5-atx")
    );
    assert!(!ids("ASUSTeK COMPUTER INC.", "PRIME Z790-P WIFI").iter().any(|i| i.contains("d4")));
    assert_eq!(ids("ASRockRack", "ROMED8-2T"), vec!["asrock-rack-romed8-2t".to_owned()]);
    assert!(ids("Gigabyte Technology Co., Ltd.", "PRIME Z790-P WIFI").is_empty(), "vendor must match");
    assert!(ids("", "").is_empty());
}

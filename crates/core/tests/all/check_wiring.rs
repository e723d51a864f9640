//! The multi-GPU checks on boards whose slot wiring is known from a wiring file
//! (`catalog/board-wiring/*.ron`) but not their slot positions, and on boards whose wiring is
//! unknown. Each test names the board's source.

use crate::support;
use kraftwerk_catalog::Catalog;
use kraftwerk_core::check::{self, FindingKind, Report, Severity};

/// Checks a build file's text (GPUs given as `(gpu, slot)` lines).
fn run(c: &Catalog, cpu: &str, board: &str, gpus: &[(&str, &str)], storage: &str) -> Report {
    let gpus: Vec<String> = gpus.iter().map(|(g, s)| format!("        (gpu: \"{g}\", slot: {s}),")).collect();
    let text = format!(
        "#![enable(implicit_some)]\n(\n    format: 1,\n    name: \"t\",\n    cpu: \"{cpu}\",\n    motherboard: \"{board}\",\n    storage: [{storage}],\n    gpus: [\n{}\n    ],\n    psus: [(psu: \"seasonic-prime-tx-1600-atx31\")],\n)",
        gpus.join("\n")
    );
    let b = kraftwerk_core::rig::load_str("t.rig.ron", &text, Some(c)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    check::run(&b, c)
}

fn of<'a>(r: &'a Report, rule: &str, sev: Severity) -> Vec<&'a check::Finding> {
    r.findings.iter().filter(|f| f.rule == rule && f.severity == sev && f.kind == FindingKind::Problem).collect()
}

fn not_checked(r: &Report, rule: &str) -> bool {
    r.findings.iter().any(|f| f.rule == rule && f.kind == FindingKind::NotChecked)
}

const RTX_3090: &str = "nvidia-geforce-rtx-3090";

/// MSI PRO B550-P GEN3: PCI_E1 is CPU PCIe 3.0 x16, the second x16-size slot PCI_E4 is B550
/// chipset PCIe 3.0 x4 (user manual p. 27,
/// https://manualslib.fr/manual/784828/Msi-Pro-B550-P-Gen3.html?page=29). The B550 chipset's
/// uplink is PCIe 3.0 x4 (https://www.thefpsreview.com/2019/09/24/here-is-how-amds-b550-chipset-differs-from-x570/).
#[test]
fn a_second_gpu_in_a_chipset_x4_slot_is_a_warning_naming_the_slot_and_its_lanes() {
    let c = support::catalog();
    let r =
        run(&c, "amd-ryzen-9-5950x", "msi-pro-b550-p-gen3", &[(RTX_3090, "\"PCI_E1\""), (RTX_3090, "\"PCI_E4\"")], "");
    let w = of(&r, "pcie-lane-budget", Severity::Warning);
    assert_eq!(w.len(), 1, "{:#?}", r.findings);
    let m = &w[0].message;
    assert!(m.starts_with("GPU 2 on chipset lanes"), "{m}");
    assert!(m.contains("slot PCI_E4 at PCIe 3.0 x4"), "{m}");
    assert!(m.contains("the B550 chipset's PCIe 3.0 x4 uplink (3.9 GB/s per direction)"), "{m}");
    assert!(r.links.iter().any(|l| l.gpu == 1 && l.lanes == 4 && l.via_chipset), "{:?}", r.links);
    assert!(of(&r, "pcie-lane-budget", Severity::Error).is_empty());
}

/// MSI MEG X570 UNIFY: PCI_E1 and PCI_E3 split the CPU's x16 into x8/x8 (user manual p. 19,
/// https://www.easymanua.ls/msi/meg-x570-unify/manual?p=31). Two cards there pass the lane
/// budget with x8 CPU links each; the board's source gives no slot positions, so the wiring
/// rules run and the geometry rules say "not checked".
#[test]
fn two_gpus_in_the_x8_x8_cpu_slots_pass_with_x8_links_and_geometry_is_not_checked() {
    let c = support::catalog();
    let r = run(
        &c,
        "amd-ryzen-9-5950x",
        "msi-x570-meg-unify-ddr4-atx",
        &[(RTX_3090, "\"PCI_E1\""), (RTX_3090, "\"PCI_E3\"")],
        "",
    );
    let lanes: Vec<(usize, u8, bool)> = r.links.iter().map(|l| (l.gpu, l.lanes, l.via_chipset)).collect();
    assert_eq!(lanes, vec![(0, 8, false), (1, 8, false)]);
    for sev in [Severity::Warning, Severity::Error] {
        assert!(of(&r, "pcie-lane-budget", sev).is_empty(), "{:#?}", r.findings);
        assert!(of(&r, "gpu-slot", sev).is_empty(), "{:#?}", r.findings);
    }
    // The wiring rules ran: pcie-link reports the x8 links, none of them is "not checked".
    assert_eq!(of(&r, "pcie-link", Severity::Warning).len(), 2, "{:#?}", r.findings);
    for rule in ["gpu-slot", "pcie-lane-budget", "pcie-link"] {
        assert!(!not_checked(&r, rule), "{rule} ran: {:#?}", r.findings);
    }
    // Geometry: not checked, naming the missing positions; two cards keep it from PASS.
    for rule in ["gpu-slot-blocked", "open-air-gap", "case-gpu-fit"] {
        assert!(not_checked(&r, rule), "{rule}: {:#?}", r.findings);
    }
    let nc =
        r.findings.iter().find(|f| f.rule == "gpu-slot-blocked" && f.kind == FindingKind::NotChecked).expect("finding");
    assert!(nc.message.contains("not where the slots sit"), "{}", nc.message);
    assert!(r.coverage.unverified.contains(&"gpu-slot-blocked"), "{:?}", r.coverage.unverified);
}

/// ASUS ProArt X870E-CREATOR WIFI (curated, https://www.asus.com/motherboards-components/motherboards/proart/proart-x870e-creator-wifi/techspec/):
/// a drive in M.2_2 takes lanes of PCIEX16(G5)_1's group, so the GPU there drops to x8: a
/// warning whose fix names the socket.
#[test]
fn an_m2_drive_sharing_the_gpu_slot_is_a_warning() {
    let c = support::catalog();
    let r = run(
        &c,
        "amd-ryzen-9-9950x",
        "asus-proart-x870e-creator-wifi",
        &[("nvidia-geforce-rtx-5090", "\"PCIEX16(G5)_1\"")],
        "(drive: \"samsung-990-pro-2tb\", m2_slot: \"M.2_2\")",
    );
    let w = of(&r, "pcie-link", Severity::Warning);
    assert_eq!(w.len(), 1, "{:#?}", r.findings);
    assert!(w[0].message.contains("x8"), "{}", w[0].message);
    assert!(w[0].fix.starts_with("Free M.2_2"), "{}", w[0].fix);
}

/// Three GPUs on AM5 with a board whose wiring is not in the catalog (ASUS ProArt B650-CREATOR,
/// imported from OpenDB with slot counts only): the bound says where the second and third
/// card's lanes can come from, names the B650 chipset's PCIe 4.0 x4 uplink (TechPowerUp, AMD
/// Zen 4 and socket AM5 explained) and what would resolve it.
#[test]
fn three_gpus_on_a_desktop_cpu_say_where_the_third_cards_lanes_come_from() {
    let c = support::catalog();
    let r = run(
        &c,
        "amd-ryzen-9-9950x",
        "asus-proart-b650-creator",
        &[(RTX_3090, "1"), (RTX_3090, "2"), (RTX_3090, "3")],
        "",
    );
    let w = of(&r, "pcie-lane-budget", Severity::Warning);
    assert_eq!(w.len(), 1, "{:#?}", r.findings);
    let m = &w[0].message;
    assert!(m.contains("GPU 2 get x8 each only if the board splits them x8/x8"), "{m}");
    assert!(m.contains("GPU 3 can only be on chipset lanes: at most x4"), "{m}");
    assert!(m.contains("the B650 chipset's PCIe 4.0 x4 uplink (7.9 GB/s per direction)"), "{m}");
    assert!(w[0].fix.contains("Enter the board's slot wiring"), "{}", w[0].fix);
    // Each GPU's link is unknown, never the card's own.
    assert!(r.links.is_empty(), "{:?}", r.links);
}

/// Three GPUs on the MEG X570 UNIFY, all its x16-size slots: the third sits in PCI_E5, chipset
/// PCIe 4.0 x4 behind the X570's PCIe 4.0 x4 uplink (manual p. 19; uplink: AMD X570 specs as
/// tabled by The FPS Review, see `catalog::uplink`).
#[test]
fn three_gpus_on_a_wired_desktop_board_name_the_third_slot_and_the_uplink() {
    let c = support::catalog();
    let r = run(
        &c,
        "amd-ryzen-9-5950x",
        "msi-x570-meg-unify-ddr4-atx",
        &[(RTX_3090, "\"PCI_E1\""), (RTX_3090, "\"PCI_E3\""), (RTX_3090, "\"PCI_E5\"")],
        "",
    );
    let w = of(&r, "pcie-lane-budget", Severity::Warning);
    assert_eq!(w.len(), 1, "{:#?}", r.findings);
    assert!(w[0].message.contains("GPU 3 on chipset lanes"), "{}", w[0].message);
    assert!(w[0].message.contains("slot PCI_E5 at PCIe 4.0 x4"), "{}", w[0].message);
    assert!(w[0].message.contains("X570 chipset's PCIe 4.0 x4 uplink"), "{}", w[0].message);
}

/// A slot named in a build file that the board does not have is refused at load (issue 37),
/// located at the name, listing the board's slot names; the `gpu-slot` rule still reports one
/// in a build made in memory (the window), with the same list in its fix.
#[test]
fn an_unknown_slot_name_is_an_error_listing_the_slots() {
    let c = support::catalog();
    let text = "#![enable(implicit_some)]\n(\n    format: 1,\n    name: \"t\",\n    motherboard: \"msi-pro-b550-p-gen3\",\n    gpus: [(gpu: \"nvidia-geforce-rtx-3090\", slot: \"PCIEX16_9\")],\n)";
    let e = kraftwerk_core::rig::load_str("t.rig.ron", text, Some(&c)).expect_err("a slot the board does not have");
    let shown = e.to_string();
    assert!(shown.starts_with("t.rig.ron:6:"), "{shown}");
    assert!(shown.contains("no slot of that name") && shown.contains("PCI_E1, PCI_E2"), "{shown}");
    let mut b =
        kraftwerk_core::rig::load_str("t.rig.ron", &text.replace("PCIEX16_9", "PCI_E1"), Some(&c)).expect("loads");
    b.gpus[0].slot_name = Some("PCIEX16_9".into());
    let r = check::run(&b, &c);
    let e = of(&r, "gpu-slot", Severity::Error);
    assert_eq!(e.len(), 1, "{:#?}", r.findings);
    assert!(e[0].message.contains("no slot of that name"), "{}", e[0].message);
    assert!(e[0].fix.contains("PCI_E1, PCI_E2"), "{}", e[0].fix);
}

/// A GPU placed by slot name saves as `slot: "PCI_E3"` and loads back the same; a position
/// stays a number (old files unchanged).
#[test]
fn placing_by_slot_name_round_trips_through_the_build_file() {
    let c = support::catalog();
    let text = "#![enable(implicit_some)]\n(\n    format: 1,\n    name: \"t\",\n    motherboard: \"msi-x570-meg-unify-ddr4-atx\",\n    gpus: [(gpu: \"nvidia-geforce-rtx-3090\", slot: \"PCI_E3\"), (gpu: \"nvidia-geforce-rtx-3090\", slot: 2), (gpu: \"nvidia-geforce-rtx-3090\", slot: Some(4))],\n)";
    let b = kraftwerk_core::rig::load_str("t.rig.ron", text, Some(&c)).expect("loads");
    assert_eq!(b.gpus[0].slot_name.as_deref(), Some("PCI_E3"));
    assert_eq!((b.gpus[1].slot, b.gpus[2].slot), (Some(2), Some(4)));
    let saved = kraftwerk_core::rig::file::to_ron_string(&b).expect("saves");
    assert!(saved.contains("slot: \"PCI_E3\""), "{saved}");
    let again = kraftwerk_core::rig::load_str("t.rig.ron", &saved, Some(&c)).expect("reloads");
    assert_eq!(again.gpus, b.gpus);
}

/// Two open-air RTX 3090 on a board wired without slot positions (MSI PRO B550-P GEN3, manual
/// p. 27, cited above): the gap between them is not known, so their thermal risk is unknown,
/// never "low: room to breathe" (a new user's finding); one card alone still has room.
#[test]
fn open_air_cards_on_unpositioned_slots_have_an_unknown_thermal_risk() {
    use kraftwerk_core::estimate::power::ThermalRisk;
    let c = support::catalog();
    let two =
        run(&c, "amd-ryzen-9-5950x", "msi-pro-b550-p-gen3", &[(RTX_3090, "\"PCI_E1\""), (RTX_3090, "\"PCI_E4\"")], "");
    let risks: Vec<(ThermalRisk, &str)> = two.power.gpu_thermal.iter().map(|t| (t.risk, t.reason.as_str())).collect();
    assert!(risks.iter().all(|(r, _)| *r == ThermalRisk::Unknown), "{risks:?}");
    assert!(risks[0].1.contains("not known"), "{risks:?}");
    let one = run(&c, "amd-ryzen-9-5950x", "msi-pro-b550-p-gen3", &[(RTX_3090, "\"PCI_E1\"")], "");
    assert_eq!(one.power.gpu_thermal[0].risk, ThermalRisk::Low, "{:?}", one.power.gpu_thermal);
}

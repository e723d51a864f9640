//! Four physical fit cases (card length, cooler height, radiator, slot spacing), each with parts imported from BuildCores OpenDB
//! (catalog/opendb/*.json), and the corrected H13SSL-N slot spacing.

use crate::support;
use kraftwerk_catalog::{self as catalog, HasId, Origin};
use kraftwerk_core::check::{self, Report, Severity};
use kraftwerk_core::rig::{Build, GpuPlacement};

fn gpu(id: &str, slot: Option<u8>) -> GpuPlacement {
    GpuPlacement { gpu: id.into(), slot_name: None, slot, power_limit_w: None, riser: None, psu: 0, cable: None }
}

fn errors<'a>(r: &'a Report, rule: &str) -> Vec<&'a str> {
    r.findings.iter().filter(|f| f.rule == rule && f.severity == Severity::Error).map(|f| f.message.as_str()).collect()
}

fn imported<'a, T: HasId>(part: Option<&'a T>, file: &str) -> &'a T {
    let p = part.expect("imported part present");
    assert_eq!(p.origin(), &Origin::Builtin(format!("catalog/opendb/{file}")), "{} is an imported part", p.id());
    p
}

/// Gigabyte AORUS MASTER RTX 4080 (357 mm per OpenDB) in an Antec 1100 Illusion (330 mm).
#[test]
fn a_357_mm_card_in_a_330_mm_case_is_an_error() {
    let c = support::catalog();
    let card = imported(c.gpu_card("gigabyte-aorus-master-geforce-rtx-4080-16gb-gddr6x"), "gpu_cards.json");
    let case = imported(c.case("antec-1100-illusion-atx-full-tower-black-acrylic-side-panel"), "cases.json");
    assert_eq!((card.length_mm, case.max_gpu_length_mm), (Some(357.0), Some(330.0)));
    let mut b = Build { case: Some(case.id.clone()), ..Build::default() };
    b.gpus.push(gpu(&card.id, None));
    let r = check::run(&b, &c);
    let e = errors(&r, "case-gpu-fit");
    assert_eq!(e.len(), 1, "{:#?}", r.findings);
    assert!(e[0].contains("357 mm") && e[0].contains("330 mm"), "{}", e[0]);
    // The same card in a case that takes 380 mm passes that rule.
    b.case = Some("asus-a21-micro-atx-mini-tower-black-tempered-glass-side-panel".into());
    assert!(errors(&check::run(&b, &c), "case-gpu-fit").is_empty());
}

/// Thermalright True Spirit 140 Power (170 mm) in an ASUS A21 (165 mm).
#[test]
fn a_170_mm_cooler_in_a_165_mm_case_is_an_error() {
    let c = support::catalog();
    let cooler = imported(c.cooler("thermalright-true-spirit-140-power-air-170mm-73-6-cfm"), "coolers.json");
    let case = imported(c.case("asus-a21-micro-atx-mini-tower-black-tempered-glass-side-panel"), "cases.json");
    assert_eq!((cooler.height_mm, case.max_cooler_height_mm), (Some(170.0), Some(165.0)));
    let b = Build { cooler: Some(cooler.id.clone()), case: Some(case.id.clone()), ..Build::default() };
    let r = check::run(&b, &c);
    let e = errors(&r, "cooler-clearance");
    assert_eq!(e.len(), 1, "{:#?}", r.findings);
    assert!(e[0].contains("170 mm") && e[0].contains("165 mm"), "{}", e[0]);
}

/// A 3-slot ASUS ROG Strix RTX 3090 (imported width 3) in position 1 of a single-pitch WRX80
/// board covers positions 2 and 3: a card in position 2 is caught, one in position 4 is not.
#[test]
fn a_three_slot_card_covers_the_next_slot_opening() {
    let c = support::catalog();
    let strix = imported(c.gpu_card("asus-rog-strix-geforce-rtx-3090-24gb-gddr6x"), "gpu_cards.json");
    assert_eq!(strix.width_slots, Some(3));
    assert_eq!(c.gpu_or_card(&strix.id).map(|g| g.width_slots), Some(3), "the resolved GPU has the card's width");
    let mut b = Build { motherboard: Some("asus-pro-ws-wrx80e-sage-se-wifi".into()), ..Build::default() };
    b.gpus = vec![gpu(&strix.id, Some(1)), gpu(&strix.id, Some(2))];
    let r = check::run(&b, &c);
    assert_eq!(errors(&r, "gpu-slot-blocked").len(), 1, "{:#?}", r.findings);
    b.gpus[1].slot = Some(4);
    assert!(errors(&check::run(&b, &c), "gpu-slot-blocked").is_empty());
}

/// Two dual-slot ASUS Turbo RTX 3090s (imported width 2; its blower cooler curated over the
/// import's "1 Fan", issue 37) on back-to-back slots: error; one slot apart: no overlap.
#[test]
fn two_dual_slot_cards_on_back_to_back_slots_are_an_error() {
    use kraftwerk_catalog::{GpuCooler, Part, Provenance};
    let c = support::catalog();
    let turbo = c.gpu_card("asus-turbo-geforce-rtx-3090-24gb-gddr6x-black").expect("the ASUS Turbo RTX 3090");
    assert_eq!(turbo.width_slots, Some(2));
    assert_eq!(turbo.provenance_of("width_slots"), Provenance::Community("BuildCores OpenDB".into()));
    assert_eq!(turbo.cooler, Some(GpuCooler::Blower), "a blower card, not open air");
    assert_eq!(turbo.provenance_of("cooler"), Provenance::Review);
    let mut b = Build { motherboard: Some("asus-pro-ws-wrx80e-sage-se-wifi".into()), ..Build::default() };
    b.gpus = vec![gpu(&turbo.id, Some(3)), gpu(&turbo.id, Some(4))];
    let r = check::run(&b, &c);
    assert_eq!(errors(&r, "gpu-slot-blocked").len(), 1, "{:#?}", r.findings);
    b.gpus[1].slot = Some(5);
    assert!(errors(&check::run(&b, &c), "gpu-slot-blocked").is_empty());
}

/// The H13SSL-N's five slots sit back to back in the lower five positions (board photographs),
/// but no source says which name sits where, so its slots have no positions (issue 27): three
/// dual-slot cards by name are wired, and their spacing is "not checked" (UNVERIFIED), never
/// passed or refused.
#[test]
fn h13ssl_cards_by_name_leave_the_spacing_unverified() {
    let c = support::catalog();
    let board = c.motherboard("supermicro-h13ssl-n").expect("board");
    assert!(board.pcie_slots.iter().all(|s| s.position.is_none()), "positions not published");
    let turbo = "asus-turbo-geforce-rtx-3090-24gb-gddr6x-black";
    let named = |n: &str| GpuPlacement { slot_name: Some(n.into()), ..gpu(turbo, None) };
    let b = Build {
        motherboard: Some(board.id.clone()),
        gpus: vec![named("SLOT1"), named("SLOT2"), named("SLOT5")],
        ..Build::default()
    };
    let r = check::run(&b, &c);
    assert!(errors(&r, "gpu-slot").is_empty() && errors(&r, "gpu-slot-blocked").is_empty(), "{:#?}", r.findings);
    assert!(r.coverage.unverified.contains(&"gpu-slot-blocked"), "{:?}", r.coverage.unverified);
    assert_ne!(r.verdict, check::Verdict::Pass);
    assert_ne!(r.verdict, check::Verdict::Warnings);
}

/// Imported parts carry per-figure provenance: OpenDB by default, derived figures named, and
/// unknown figures `Unknown` (never 0).
#[test]
fn imported_figures_say_where_they_come_from() {
    use kraftwerk_catalog::{Part, Provenance};
    let c = support::catalog();
    let case = c.case("antec-1100-illusion-atx-full-tower-black-acrylic-side-panel").expect("case");
    assert_eq!(case.provenance_of("max_gpu_length_mm"), Provenance::Community("BuildCores OpenDB".into()));
    assert!(matches!(case.provenance_of("psu_bays"), Provenance::Derived(_)));
    assert_eq!(case.max_cooler_height_mm, None);
    assert_eq!(case.provenance_of("max_cooler_height_mm"), Provenance::Unknown);
    // No imported PSU claims 0 PCIe 8-pin plugs: OpenDB's zeros are unknown.
    assert!(c.psus.iter().all(|p| p.connectors.pcie_8pin != Some(0)));
    // Curated figures win over imported ones and say so.
    let psu = c.psu("seasonic-prime-tx-1600").expect("curated PSU");
    assert_eq!(psu.connectors.hpwr_class_w, Some(450));
    assert_eq!(psu.provenance_of("connectors"), Provenance::Vendor);
}

/// An imported card whose listed board power is far from its chip's (OpenDB entry errors: an
/// RTX 3090 Ti card at 850 W, an RTX 4090 card at 300 W) is checked at the chip's reference
/// figure, never at the implausible one: 300 W would under-size the PSU for a 450 W card.
/// A factory-overclocked card's own figure within the band is kept.
#[test]
fn implausible_imported_card_board_power_falls_back_to_the_chip() {
    let c = catalog::builtin().expect("catalog");
    for (card, chip_w) in [
        ("gigabyte-aorus-geforce-rtx-4090-xtreme-waterforce-24g-rev-1-0", 450.0),
        (
            "gigabyte-gaming-geforce-rtx-3090-ti-24gb-gddr6x-pci-express-4-0-atx-video-card-gv-n309tgaming-oc-24gd",
            450.0,
        ),
    ] {
        let raw = c.gpu_card(card).and_then(|k| k.board_power_w).expect("listed board power");
        assert!(!catalog::board_power_plausible(raw, chip_w), "{card}: {raw} W is the entry error");
        let g = c.gpu_or_card(card).expect("resolves");
        assert!((g.board_power_w - chip_w).abs() < 1e-9, "{card}: checked at {} W", g.board_power_w);
        assert!(g.notes.as_deref().is_some_and(|n| n.contains("entry error")), "{card}: notes say why");
    }
    let kept = c
        .gpu_cards
        .iter()
        .filter(|k| k.chip == "nvidia-geforce-rtx-4090")
        .find(|k| k.board_power_w.is_some_and(|w| w > 450.0 && w <= 675.0))
        .expect("a factory-overclocked RTX 4090 card");
    let w = kept.board_power_w.expect("listed");
    assert!((c.gpu_or_card(&kept.id).expect("resolves").board_power_w - w).abs() < 1e-9, "{}: own {w} W kept", kept.id);
}

//! Tests over the whole built-in catalog ([`crate::load::builtin`]) that belong to other
//! modules (wiring files, cited prices): kept here so those modules do not import `load`, which
//! imports them (`scripts/import_cycles.py`).

use crate::wiring::WIRING_FILES;

/// Every embedded wiring file applies to the built-in catalog (ids exist, no board wired
/// twice, sharing rules name real slots), and each file wires at least one board. Cheap to
/// run alone: `cargo test -p kraftwerk-catalog wiring`.
#[test]
fn every_wiring_file_applies_to_the_builtin_catalog() {
    let (_, report) = match crate::load::builtin_with_report() {
        Ok(r) => r,
        Err(e) => panic!("the built-in catalog does not load: {e}"),
    };
    assert_eq!(report.wiring.len(), WIRING_FILES.len(), "{:?}", report.wiring);
    for (file, n) in &report.wiring {
        assert!(*n > 0, "{file} wires no board");
    }
}

/// A wired Mini-ITX board with one PCIe slot has it in position 1: the form factor has one
/// expansion position and the slot fills it (the derivation the entries' notes cite). Seen
/// failing on the ten AM4, LGA1151 and LGA1200 entries that had no position.
#[test]
fn a_wired_mini_itx_board_with_one_slot_has_it_in_position_1() {
    let c = match crate::load::builtin() {
        Ok(c) => c,
        Err(e) => panic!("the built-in catalog does not load: {e}"),
    };
    let one_slot: Vec<&crate::Motherboard> = c
        .motherboards
        .iter()
        .filter(|b| b.form_factor == crate::FormFactor::MiniItx && b.pcie_slots.len() == 1)
        .collect();
    assert!(one_slot.len() >= 17, "wired one-slot Mini-ITX boards: {}", one_slot.len());
    let without: Vec<&str> =
        one_slot.iter().filter(|b| b.pcie_slots[0].position != Some(1)).map(|b| b.id.as_str()).collect();
    assert!(without.is_empty(), "Mini-ITX boards whose one slot is not in position 1: {without:?}");
}

/// The DDR5 PRIME Z790-P has its PCIe 5.0 CPU x16 slot (OpenDB lists four x16 Gen4 slots;
/// its firmware slot table, wired in lga1700.ron, has one Gen5 CPU slot and three chipset
/// x4). Seen failing before the board was wired.
#[test]
fn the_ddr5_prime_z790_p_has_its_pcie_5_cpu_slot() {
    let c = match crate::load::builtin() {
        Ok(c) => c,
        Err(e) => panic!("the built-in catalog does not load: {e}"),
    };
    let Some(b) = c.motherboards.iter().find(|b| b.id == "asus-z790-prime-p-ddr5-atx") else {
        panic!("asus-z790-prime-p-ddr5-atx is not in the catalog")
    };
    let gen5: Vec<&str> = b
        .pcie_slots
        .iter()
        .filter(|s| s.pcie_gen == 5 && s.electrical_lanes == 16 && s.lane_source == crate::LaneSource::Cpu)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(gen5, ["PCIEx16(G5)"], "{:?}", b.pcie_slots);
    assert_eq!(b.pcie_slots.len(), 5);
}

/// The chip vendor's own card takes its chip's list price; a partner card of a priced chip
/// does not. Seen failing before first-party cards were priced: the planner offered "2x RTX
/// PRO 6000 Blackwell Workstation Edition ... prices unknown" beside the chip's $8,565.
#[test]
fn a_first_party_card_takes_its_chips_list_price_and_a_partner_card_does_not() {
    let c = match crate::load::builtin() {
        Ok(c) => c,
        Err(e) => panic!("catalog: {e}"),
    };
    let card = |id: &str| c.gpu_cards.iter().find(|g| g.id == id).unwrap_or_else(|| panic!("{id}"));
    let chip = |id: &str| c.gpus.iter().find(|g| g.id == id).unwrap_or_else(|| panic!("{id}"));
    let first_party = card("nvidia-rtx-pro-6000-blackwell-workstation-edition-96gb-gddr7");
    assert_eq!(first_party.price_usd, chip(&first_party.chip).price_usd);
    assert!(first_party.price_usd.is_some());
    assert!(first_party.price_source.as_deref().is_some_and(|s| s.contains("the chip vendor's own card")));
    // Every card priced this way is its chip vendor's own.
    for g in c.gpu_cards.iter().filter(|g| g.price_source.as_deref().is_some_and(|s| s.contains("own card"))) {
        assert!(g.vendor.eq_ignore_ascii_case(&chip(&g.chip).vendor), "{}", g.id);
    }
}

/// Issue 37 item 2: a board with as many slots as its form factor has expansion positions, all
/// wired alike, gets positions 1..n marked Derived with the rule; a board whose slots differ
/// (an x8 slot among x16 ones) does not, since which position the odd slot has depends on the
/// numbering direction. The ROMED8-2T (seven x16 Gen4 CPU slots, ATX) is the case; seen
/// failing before the rule existed (its slots had no positions).
#[test]
fn positions_are_derived_where_the_form_factor_forces_them() {
    let (c, report) = match crate::load::builtin_with_report() {
        Ok(r) => r,
        Err(e) => panic!("the built-in catalog does not load: {e}"),
    };
    println!("positions derived from the form factor: {:?}", report.derived_positions);
    let romed = c.motherboard("asrock-rack-romed8-2t").expect("ROMED8-2T");
    let pos: Vec<Option<u8>> = romed.pcie_slots.iter().map(|s| s.position).collect();
    assert_eq!(pos, (1..=7).map(Some).collect::<Vec<_>>());
    assert!(romed.slot_positions_known());
    // Forced by the count, so up to direction: no source says whether PCIE1 or PCIE7 is nearest
    // the CPU, and the reversed layout is as likely as the listed one.
    assert_eq!(romed.slot_order, crate::SlotOrder::EitherEnd);
    assert!(!romed.slot_direction_known());
    let rev = romed.reversed_positions().expect("reversible");
    let rpos: Vec<Option<u8>> = rev.pcie_slots.iter().map(|s| s.position).collect();
    assert_eq!(rpos, (1..=7).rev().map(Some).collect::<Vec<_>>());
    assert_eq!(rev.slot_order, crate::SlotOrder::Stated, "the reversed layout is judged as one fixed layout");
    // A board whose positions a source states has one direction: nothing to reverse.
    let stated = c.motherboards.iter().find(|b| b.slot_direction_known()).expect("a board placed by a source");
    assert!(stated.reversed_positions().is_none(), "{}", stated.id);
    assert!(
        matches!(romed.provenance.of("pcie_slots.position"), crate::Provenance::Derived(ref why) if why.contains("form factor")),
        "{:?}",
        romed.provenance.of("pcie_slots.position")
    );
    // The H12SSL-i has x8 slots among x16 ones: not derived.
    let h12 = c.motherboard("supermicro-h12ssl-i").expect("H12SSL-i");
    assert!(h12.pcie_slots.iter().all(|s| s.position.is_none()));
    for id in &report.derived_positions {
        let b = c.motherboard(id).expect("derived board");
        let n = crate::wiring::form_factor_positions(b.form_factor).map(|(n, _)| usize::from(n));
        assert_eq!(Some(b.pcie_slots.len()), n, "{id}");
    }
}

/// The ROG Zenith II Extreme Alpha (TRX40), named in a published build, is wired from its
/// firmware slot table (hedt.ron): four x16-size PCIe 4.0 CPU slots, x16/x8/x16/x8 (a GPU at x8
/// behind a processor root port, and no chipset port wider than x4, in the same machine's
/// linuxhw/LsPCI tree); positions stay unknown (four slots on a seven-position E-ATX board force
/// none). Seen failing before the entry (no slots).
#[test]
fn the_zenith_ii_extreme_alpha_is_wired_from_its_firmware_table() {
    let c = match crate::load::builtin() {
        Ok(c) => c,
        Err(e) => panic!("the built-in catalog does not load: {e}"),
    };
    let id = "asus-trx40-rog-zenith-ii-extreme-alpha-ddr4-eatx";
    let Some(b) = c.motherboard(id) else { panic!("{id} is not in the catalog") };
    let slots: Vec<(&str, u8, u8, u8, crate::LaneSource)> = b
        .pcie_slots
        .iter()
        .map(|s| (s.name.as_str(), s.physical_lanes, s.electrical_lanes, s.pcie_gen, s.lane_source))
        .collect();
    let cpu = crate::LaneSource::Cpu;
    assert_eq!(
        slots,
        [
            ("PCIEX16_1", 16, 16, 4, cpu),
            ("PCIEX16_2", 16, 8, 4, cpu),
            ("PCIEX16_3", 16, 16, 4, cpu),
            ("PCIEX16_4", 16, 8, 4, cpu)
        ]
    );
    assert!(b.slot_layout_known() && !b.slot_positions_known());
    assert_eq!(b.provenance.of("pcie_slots"), crate::Provenance::Firmware);
}

/// Imported PSUs whose rating at 100-127 V is not known are marked so: a listing naming its
/// 230 V model (FSP's CANNON PRO (230V) 2000 W, Cooler Master's X Mighty 2000 230V) and a unit
/// rated above what one 120 V / 15 A outlet feeds at 94 % (1,692 W: Seasonic's PRIME PX-2200,
/// SilverStone's imported HELA 2050R); a 1,600 W unit and a 650 W one are not.
#[test]
fn imported_230_v_models_and_units_over_a_120_v_outlet_have_no_low_line_rating() {
    let c = match crate::load::builtin() {
        Ok(c) => c,
        Err(e) => panic!("the built-in catalog does not load: {e}"),
    };
    let unknown = |id: &str| c.psu(id).unwrap_or_else(|| panic!("{id} is not in the catalog")).rating_unknown_at(120.0);
    for id in [
        "fsp-group-cannon-pro-230v-atx-2000w-fully-modular-80-gold-certified",
        "cooler-master-x-mighty-2000-230v-atx-2000w-fully-modular-80-platinum-certified",
        "seasonic-prime-px-2200-atx-3-2024-atx-2200w-fully-modular-80-platinum-certified",
        "silverstone-hela-2050r-2050w-fully-modular-80-platinum",
        "deepcool-pf650-black-230v-atx-650w-non-modular-80-certified",
    ] {
        assert!(unknown(id), "{id}: its 120 V rating is not published");
        assert!(!c.psu(id).is_some_and(|p| p.rating_unknown_at(230.0)), "{id} at 230 V is rated");
    }
    assert!(!unknown("seasonic-prime-tx-1600-atx31"), "a 1,600 W unit is rated at 120 V");
    assert!(!unknown("evga-650bp-black-atx-650w-non-modular-80-bronze-certified"), "a 650 W unit");
}

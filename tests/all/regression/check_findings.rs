//! What a new user's try-out found in the checker and the importer: the wall circuit of a
//! build without a PSU, registered memory on import and on a board, unknown 80 PLUS ratings,
//! the PSU transient finding, the PCIe link fix on a Gen3 board, LGA1700 memory types, and
//! speed marked not validated where no measured rows are held.

use crate::support::kw;
use kraftwerk::catalog::{self, EightyPlus, Part};
use kraftwerk::check::{self, FindingKind, Severity, Verdict};
use kraftwerk::rig::import_list::import_list;

/// Four RTX 4090 on a ROMED8-2T, no PSU chosen: about 2.4 kW at the wall on one 15 A circuit.
/// The cards sit on risers, as in the open frame named (issue 37 gave the ROMED8-2T its
/// positions, and four 3-slot cards plugged straight into PCIE1/3/5/7 are then caught covering
/// each other: errors this test is not about).
const NO_PSU: &str = r#"#![enable(implicit_some)]
(
    format: 1,
    name: "4x RTX 4090, PSU not chosen yet",
    cpu: "amd-epyc-7543",
    motherboard: "asrock-rack-romed8-2t",
    cooler: "noctua-nh-u14s-tr4-sp3",
    case: "generic-open-air-gpu-frame",
    memory: (kit: "kingston-server-premier-ksm32rd8-32hdr", kits: 8),
    gpus: [
        (gpu: "nvidia-geforce-rtx-4090", slot: "PCIE1", riser: (pcie_gen: 4, length_mm: 300.0)),
        (gpu: "nvidia-geforce-rtx-4090", slot: "PCIE3", riser: (pcie_gen: 4, length_mm: 300.0)),
        (gpu: "nvidia-geforce-rtx-4090", slot: "PCIE5", riser: (pcie_gen: 4, length_mm: 300.0)),
        (gpu: "nvidia-geforce-rtx-4090", slot: "PCIE7", riser: (pcie_gen: 4, length_mm: 300.0)),
    ],
    site: (mains_v: 120.0, circuit_a: 15.0, circuits: 1, ambient_c: 25.0),
)"#;

#[test]
fn a_build_without_a_psu_lists_the_wall_circuit_as_not_checked_and_reports_no_error_from_it() {
    let c = catalog::builtin().expect("catalog");
    let b = kraftwerk::rig::load_str("no-psu.rig.ron", NO_PSU, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    let wall: Vec<_> = r.findings.iter().filter(|f| f.rule == "wall-circuit").collect();
    for f in &wall {
        println!("{:?} {:?}: {}", f.severity, f.kind, f.message);
    }
    assert!(
        wall.iter().all(|f| f.kind != FindingKind::Problem),
        "wall-circuit judged without a PSU (at an assumed efficiency): {:?}",
        wall.iter().map(|f| &f.message).collect::<Vec<_>>()
    );
    let nc = r.coverage.not_checked.iter().find(|n| n.rule == "wall-circuit").expect("wall-circuit not checked");
    assert!(format!("{nc:?}").contains("Psu"), "the missing part is the PSU: {nc:?}");
    assert_eq!(r.verdict, Verdict::Incomplete, "a build without its PSU is INCOMPLETE, not FAIL");
    assert_eq!(r.errors, 0);
}

#[test]
fn a_registered_memory_line_is_never_imported_as_an_unbuffered_kit() {
    let c = catalog::builtin().expect("catalog");
    // The model code is Corsair's unbuffered DDR5 kit; the line says ECC Registered.
    let line = "Memory: Corsair Vengeance CMK64GX5M2B5600C40 64 GB (2 x 32 GB) ECC Registered DDR5-5600 Memory\n";
    let got = import_list("list.txt", line, &c).expect("import");
    println!("matched: {:?}", got.matched.iter().map(|m| &m.id).collect::<Vec<_>>());
    assert!(got.build.memory.is_none(), "registered line became kit {:?}", got.build.memory.map(|m| m.kit));
    assert_eq!(got.unmatched.len(), 1, "the line is named as not imported");
    // The same kit without the contradiction still imports.
    let plain = "Memory: Corsair Vengeance CMK64GX5M2B5600C40 64 GB (2 x 32 GB) DDR5-5600 Memory\n";
    let got = import_list("list.txt", plain, &c).expect("import");
    assert_eq!(got.build.memory.map(|m| m.kit).as_deref(), Some("corsair-vengeance-ddr5-cmk64gx5m2b5600c40"));
}

#[test]
fn a_registered_only_board_with_an_unbuffered_kit_is_an_error() {
    let c = catalog::builtin().expect("catalog");
    let text = NO_PSU.replace(
        "kingston-server-premier-ksm32rd8-32hdr\", kits: 8",
        "corsair-vengeance-led-black-blue-ddr4-3200-cl16-64gb-4x16gb\", kits: 2",
    );
    let b = kraftwerk::rig::load_str("udimm.rig.ron", &text, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    let f = r.findings.iter().find(|f| f.rule == "memory-type").expect("memory-type finding");
    println!("{}", f.message);
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("DDR4 UDIMM") && f.message.contains("DDR4 RDIMM"), "{}", f.message);
}

#[test]
fn an_unknown_80_plus_rating_prints_as_unknown() {
    let c = catalog::builtin().expect("catalog");
    let p = c.psus.iter().find(|p| p.eighty_plus == EightyPlus::None).expect("a PSU without a rating");
    let s = p.summary();
    println!("{}: {s}", p.id);
    assert!(s.contains("80+ unknown"), "{s}");
    assert!(!s.contains("80+ None") && !s.contains("unknownx"), "{s}");
    let out = kw(&["catalog", "psus"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("80+ None"), "catalog psus prints 80+ None");
}

#[test]
fn the_psu_transient_finding_names_the_system_peak() {
    let c = catalog::builtin().expect("catalog");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/psu-transient/fail-warning-atx2-unit-no-excursion-spec.rig.ron");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let b = kraftwerk::rig::load_str("atx2.rig.ron", &text, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    let f = r.findings.iter().find(|f| f.rule == "psu-transient").expect("psu-transient finding");
    println!("{}", f.message);
    assert!(!f.message.contains("GPU peaks"), "{}", f.message);
    assert!(f.message.contains("system peak"), "{}", f.message);
}

#[test]
fn the_pcie_link_fix_on_a_gen3_cpu_slot_board_speaks_of_its_generation_not_a_lane_split() {
    let c = catalog::builtin().expect("catalog");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/pcie-lane-budget/fail-warning-second-gpu-in-chipset-x4-slot.rig.ron");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let b = kraftwerk::rig::load_str("b550.rig.ron", &text, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "pcie-link" && f.message.starts_with("GPU 1"))
        .expect("pcie-link on GPU 1");
    println!("{}\n  fix: {}", f.message, f.fix);
    assert!(!f.fix.contains("split"), "GPU 1 has all 16 CPU lanes; nothing is split: {}", f.fix);
    assert!(f.fix.contains("PCIe 3.0"), "{}", f.fix);
}

/// A new user's try-out (round 3, session 3): a 12th-14th gen Core on a DDR4 LGA1700 board was
/// refused its DDR4 kit ("Core i5 13600K does not support DDR4 UDIMM"), so no DDR4 Z690/Z790/
/// B760 board could take memory. Intel ARK lists both for every one of them (Core i5-13600K: "Up
/// to DDR5 5600 MT/s, Up to DDR4 3200 MT/s").
#[test]
fn lga1700_cores_take_ddr4_and_ddr5() {
    let c = catalog::builtin().expect("catalog");
    let mut n = 0;
    for cpu in c.cpus.iter().filter(|p| p.socket == "LGA1700") {
        assert!(cpu.memory_types.contains(&catalog::MemoryType::Ddr4Udimm), "{}", cpu.id);
        assert!(cpu.memory_types.contains(&catalog::MemoryType::Ddr5Udimm), "{}", cpu.id);
        n += 1;
    }
    assert!(n >= 50, "{n} LGA1700 CPUs");
    let text = r#"(format: 1, name: "ddr4 z790",
        cpu: Some("intel-core-i5-13600k"),
        motherboard: Some("asus-prime-z790-p-d4"),
        memory: Some((kit: "corsair-vengeance-lpx-ddr4-3200-cl16-32gb-2x16gb", kits: 1)),
        gpus: [])"#;
    let b = kraftwerk::rig::load_str("ddr4-z790.rig.ron", text, Some(&c)).expect("build");
    let report = check::run(&b, &c);
    let memory_type: Vec<_> = report.findings.iter().filter(|f| f.rule == "memory-type").collect();
    assert!(memory_type.iter().all(|f| f.severity != Severity::Error), "{memory_type:?}");
}

/// A speed figure on a GPU architecture no held row of the runtime was measured on says so (a
/// new user saw 4x Arc A770 at 34.6 tok/s with a basis listing only NVIDIA rows): the text names
/// the GPU, its architecture and the runtime family, and that efficiencies measured on other
/// GPUs are applied unvalidated; an NVIDIA build has no such line. (The Arc A770's one held row,
/// IN-01, is llama.cpp Vulkan decode; the default back end on Intel is SYCL. The RX 7900 XTX
/// this test used before is validated under HIP since its held HIP rows land in band.)
#[test]
fn speed_on_a_gpu_maker_without_held_rows_is_marked_not_validated() {
    let dir = std::env::temp_dir().join(format!("kw-not-validated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let nvidia = crate::support::builds("2x-rtx-4090-x870e.rig.ron");
    let text = std::fs::read_to_string(&nvidia).expect("reference build");
    let arc = dir.join("2x-arc-a770.rig.ron");
    std::fs::write(&arc, text.replace("nvidia-geforce-rtx-4090", "intel-arc-a770-16gb")).expect("write");
    let args = |b: &str| {
        vec![
            "fit".to_owned(),
            b.to_owned(),
            "--model".into(),
            "llama-3.1-8b".into(),
            "--precision".into(),
            "q4_k_m".into(),
        ]
    };
    let run = |b: &str| {
        let a = args(b);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = crate::support::kw(&refs);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let on_arc = run(arc.to_str().expect("utf-8 path"));
    assert!(
        on_arc.contains(
            "not validated: Arc A770 16 GB (Intel, Xe-HPG): no held llama.cpp SYCL speed row was measured on a GPU of \
             this architecture (held rows there are of llama.cpp Vulkan)"
        ),
        "{on_arc}"
    );
    // llama.cpp's breakdown names an Intel device as its SYCL build does (SYCL0), not CUDA0.
    assert!(on_arc.contains("SYCL0 (intel-arc-a770-16gb)") && !on_arc.contains("CUDA0"), "{on_arc}");
    let on_nvidia = run(&nvidia);
    assert!(!on_nvidia.contains("not validated"), "{on_nvidia}");
    let _ = std::fs::remove_dir_all(&dir);
}

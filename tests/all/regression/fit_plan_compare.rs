//! Five findings from a new user's try-out where an answer was not honest: the RAM speed of CPU offload, PSU headroom in
//! the planner, full-load overloads of a build checked at inference load, the chipset-slot fix,
//! and `compare`'s "(best)".

use crate::support::kw;
use kraftwerk::catalog;
use kraftwerk::check::{self, FindingKind, Severity};
use kraftwerk::compare::Comparison;
use kraftwerk::estimate::power::{self, LoadState};
use std::path::{Path, PathBuf};

/// The fixtures folder of this module.
fn fixture(name: &str) -> PathBuf {
    crate::support::fixture("honest").join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("fixture")
}

/// Writes `text` to a file of its own under the temp folder (per test and process) and returns it.
fn temp_build(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kraftwerk-honest-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join("build.rig.ron");
    std::fs::write(&p, text).expect("write build");
    p
}

/// An X299 machine with a DDR4-4800 kit: the i9-7920X is rated DDR4-2666 (Intel ARK,
/// https://ark.intel.com/content/www/us/en/ark/products/126240/intel-core-i97920x-xseries-processor-16-5m-cache-up-to-4-30-ghz.html,
/// "Memory Types DDR4-2666"); two kits of two modules fill its four channels once.
fn x299(cpu: &str, board: &str, kits: u8) -> String {
    format!(
        r#"#![enable(implicit_some)]
(
    format: 1,
    name: "X299 offload box",
    cpu: "{cpu}",
    motherboard: "{board}",
    memory: (kit: "corsair-vengeance-lpx-black-yellow-ddr4-4800-cl18-16gb-2x8gb", kits: {kits}),
    gpus: [(gpu: "nvidia-geforce-rtx-3090")],
)"#
    )
}

#[test]
fn offload_ram_speed_is_capped_by_the_cpus_rated_speed_and_says_its_basis() {
    let cat = catalog::builtin().expect("catalog");
    let text = x299("intel-core-i9-7920x", "asus-x299-prime-x299-a-lga2066-ddr4-atx", 2);
    let build = kraftwerk::rig::load_str("x299.rig.ron", &text, Some(&cat)).expect("build");
    let bw = kraftwerk::estimate::fit::host_bandwidth_gb_s(&build.resolve(&cat)).expect("bandwidth");
    // 4 channels x 2666 MT/s x 8 bytes, not the kit's 4800 (153.6 GB/s).
    assert!((bw - 4.0 * 2666.0 * 8.0 / 1000.0).abs() < 0.01, "host bandwidth {bw:.1} GB/s");

    let file = temp_build("x299", &text);
    let path = file.to_string_lossy();
    let run = kw(&["fit", &path, "--model", "qwen3-30b-a3b", "--runtime", "ktransformers"]);
    let out = String::from_utf8_lossy(&run.stdout);
    println!("{out}");
    let line = out.lines().find(|l| l.contains("system RAM read at")).expect("the RAM speed line");
    assert!(line.contains("2666 MT/s") && line.contains("4800"), "{line}");

    // Four kits: two DIMMs per channel, which ARK does not rate: the one figure is an upper bound.
    let speed = ram_speed_json(&x299("intel-core-i9-7920x", "asus-x299-prime-x299-a-lga2066-ddr4-atx", 4), "x299-2dpc");
    assert_eq!((speed["mt_s"].as_u64(), speed["dimms_per_channel"].as_u64()), (Some(2666), Some(2)), "{speed}");
    assert!(speed["basis"].as_str().is_some_and(|basis| basis.contains("upper bound")), "{speed}");

    // An AM4 CPU rated by amd.com (catalog/cpu-memory-speeds.ron): its DDR4-3200, an upper
    // bound at two DIMMs per channel.
    let speed = ram_speed_json(&x299("amd-ryzen-9-5950x", "asus-proart-b550-creator", 2), "am4");
    assert_eq!((speed["mt_s"].as_u64(), speed["cpu_rated_mt_s"].as_u64()), (Some(3200), Some(3200)), "{speed}");

    // A CPU whose rating the catalog lacks (the 5700X3D is not in the scrape the ratings come
    // from): the kit's speed, said to be the kit's rating and unverified.
    let speed = ram_speed_json(&x299("amd-ryzen-7-5700x3d", "asus-proart-b550-creator", 2), "am4-x3d");
    assert_eq!(speed["mt_s"].as_u64(), Some(4800), "{speed}");
    assert!(
        speed["basis"].as_str().is_some_and(|basis| basis.starts_with("the kit's rating, unverified:")
            && basis.contains("Ryzen 7 5700X3D's rated memory speed is not in the catalog")),
        "{speed}"
    );
}

/// `fit --format json`'s `host_ram_speed` for a build text.
fn ram_speed_json(text: &str, tag: &str) -> serde_json::Value {
    let p = temp_build(tag, text);
    let o = kw(&[
        "fit",
        &p.to_string_lossy(),
        "--model",
        "qwen3-30b-a3b",
        "--runtime",
        "ktransformers",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fit JSON");
    v["host_ram_speed"].clone()
}

#[test]
fn the_planner_prefers_psu_sets_that_keep_the_vendor_headroom() {
    // Before: an RTX A5000 machine got a 530 W unit at 400 W full load (130 W headroom) while
    // larger units were in the catalog.
    let dir = std::env::temp_dir().join(format!("kraftwerk-honest-{}-plan", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_string_lossy().to_string();
    let o = kw(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--precision",
        "int4",
        "--must-have",
        "pny-rtx-a-series-rtx-a5000-24gb-gddr6-black",
        "--max-results",
        "1",
        "--out",
        &out,
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    println!("{text}");
    assert_eq!(o.status.code(), Some(0), "{text}");
    let c = catalog::builtin().expect("catalog");
    let b = kraftwerk::rig::load(&dir.join("plan-1.rig.ron"), Some(&c)).expect("planned build");
    let full = power::estimate(&b.resolve(&c), LoadState::Training);
    for p in &full.psus {
        assert!(
            // power::PSU_RECOMMENDED_HEADROOM_W (Corsair's 150 W).
            p.rated_w - p.dc_w >= 150.0,
            "PSU {} carries {:.0} W of {:.0} W at full load",
            p.name,
            p.dc_w,
            p.rated_w
        );
    }
    assert!(text.contains("W headroom: keeps the 150 W"), "the margin is said: {text}");
}

/// Issue 42: a PSU's over-power protection acts in milliseconds, so a PSU over its rating at
/// full load is an error in inference mode too (a model load, a prefill burst or a second job
/// reaches full load); the breaker's trip curve tolerates a burst, so the circuit over its
/// breaker at full load stays a warning that says how long the breaker holds it.
#[test]
fn inference_mode_build_overloaded_at_full_load_psu_error_circuit_warning() {
    let c = catalog::builtin().expect("catalog");
    // Two RX 7900 XTX (355 W each) in inference mode: about 570 W DC serving, 890 W at full load.
    // An 850 W unit and an 8 A breaker hold the serving load but not full load.
    let text = read("proart-2x-7900xtx.rig.ron")
        .replace(
            "rosewill-smg1200-black-atx-1200w-fully-modular-80-gold-certified",
            "adata-xpg-core-reactor-850-black-850w-fully-modular-80-gold",
        )
        .replace("circuit_a: 15.0", "circuit_a: 8.0");
    let b = kraftwerk::rig::load_str("xtx.rig.ron", &text, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    assert_eq!(r.power.state, LoadState::Inference, "checked at the workload's inference load");
    for f in &r.findings {
        println!("{:?} {:?} {}: {}", f.severity, f.kind, f.rule, f.message);
    }
    let find = |rule: &str, sev: Severity| {
        r.findings
            .iter()
            .find(|f| f.rule == rule && f.kind == FindingKind::Problem && f.severity == sev)
            .unwrap_or_else(|| panic!("no {rule} {sev}"))
    };
    let psu = find("psu-capacity", Severity::Error);
    assert!(psu.message.contains("full load") && psu.message.contains("850 W rating"), "{}", psu.message);
    assert!(psu.message.contains("at inference load it carries"), "{}", psu.message);
    // AMD cards: the fix states the limit in words, never an nvidia-smi command.
    assert!(psu.fix.contains("Cap every GPU at") && !psu.fix.contains("nvidia-smi"), "{}", psu.fix);
    let wall = find("wall-circuit", Severity::Warning);
    assert!(wall.message.contains("full load") && wall.message.contains("8 A breaker"), "{}", wall.message);
    assert!(wall.message.contains("UL 489"), "the breaker's trip points are stated: {}", wall.message);
    assert!(
        !r.findings.iter().any(|f| f.rule == "wall-circuit" && f.severity == Severity::Error),
        "a burst over the breaker is a warning at inference load"
    );

    // Within its rating at full load but over the headroom guideline: a warning with the figure.
    let big = text.replace(
        "adata-xpg-core-reactor-850-black-850w-fully-modular-80-gold",
        "rosewill-smg1200-black-atx-1200w-fully-modular-80-gold-certified",
    );
    let b = kraftwerk::rig::load_str("xtx.rig.ron", &big, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    assert!(
        !r.findings.iter().any(|f| f.rule == "psu-capacity" && f.severity == Severity::Error),
        "{:?}",
        r.findings.iter().map(|f| &f.message).collect::<Vec<_>>()
    );
}

#[test]
fn a_gpu_on_chipset_lanes_is_told_the_free_cpu_slot_by_name_or_that_there_is_none() {
    let c = catalog::builtin().expect("catalog");
    let board = c.motherboard("asus-proart-b550-creator").expect("board");
    let cpu_slot_2 = board.slot_at(5).expect("second CPU slot").name.clone();
    // GPU 2 in the chipset slot (position 7), the second CPU slot (position 5) free.
    let text = read("proart-2x-7900xtx.rig.ron").replacen("slot: 5,", "slot: 7,", 1);
    let b = kraftwerk::rig::load_str("chipset.rig.ron", &text, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    let on_chipset: Vec<_> = r
        .findings
        .iter()
        .filter(|f| (f.rule == "pcie-link" || f.rule == "pcie-lane-budget") && f.message.starts_with("GPU 2"))
        .collect();
    assert!(on_chipset.len() >= 2, "{:?}", r.findings.iter().map(|f| &f.message).collect::<Vec<_>>());
    for f in &on_chipset {
        println!("{}: {} / fix: {}", f.rule, f.message, f.fix);
        assert!(f.fix.contains(&cpu_slot_2), "{}: the fix names {cpu_slot_2}: {}", f.rule, f.fix);
        assert!(f.fix.contains("x8"), "{}: the link there after sharing: {}", f.rule, f.fix);
        assert!(f.fix.contains("GPU 1 goes from x16 to x8"), "{}: what the move costs GPU 1: {}", f.rule, f.fix);
    }
    // Both CPU slots taken: the fix says no CPU slot is free.
    let three = text.replacen(
        "gpus: [",
        "gpus: [\n        (gpu: \"asrock-phantom-gaming-oc-radeon-rx-7900-xtx-24gb-gddr6\", slot: 5, psu: 0),",
        1,
    );
    let b = kraftwerk::rig::load_str("chipset3.rig.ron", &three, Some(&c)).expect("build");
    let r = check::run(&b, &c);
    let budget: Vec<_> =
        r.findings.iter().filter(|f| f.rule == "pcie-lane-budget" && f.message.contains("on chipset lanes")).collect();
    assert!(!budget.is_empty(), "{:?}", r.findings.iter().map(|f| &f.message).collect::<Vec<_>>());
    for f in budget {
        println!("{}: {} / fix: {}", f.rule, f.message, f.fix);
        assert!(f.fix.contains("no free CPU-wired slot"), "{}", f.fix);
    }
}

#[test]
fn compare_marks_every_tied_build_best_and_never_an_unverified_one_on_what_its_unrun_checks_decide() {
    let c = catalog::builtin().expect("catalog");
    let load = |p: &Path| kraftwerk::rig::load(p, Some(&c)).expect("build");
    let xtx = fixture("proart-2x-7900xtx.rig.ron");
    let r9700 = fixture("proart-2x-r9700.rig.ron");
    // Two identical R9700 builds tie on wall power (lower than the 7900 XTX build's).
    let cmp =
        Comparison::of(&[(load(&r9700), None), (load(&r9700), None), (load(&xtx), None)], &c, Some("llama-3.1-70b"));
    let text = cmp.text();
    println!("{text}");
    let wall = text.lines().find(|l| l.contains("Wall power at full load")).expect("wall power row");
    assert_eq!(wall.matches("(best)").count(), 2, "both tied builds are best: {wall}");

    // An UNVERIFIED build (its slot blocking, case fit and PSU connectors not checked) with
    // fewer warnings is not "best" on warnings, and the output says why.
    let unverified = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/2x-rtx-4090-x870e.rig.ron");
    let cmp = Comparison::of(&[(load(&xtx), None), (load(&unverified), None)], &c, Some("llama-3.1-70b"));
    let text = cmp.text();
    println!("{text}");
    let warnings = text.lines().find(|l| l.trim_start_matches(['*', ' ']).starts_with("Warnings")).expect("row");
    assert!(!warnings.contains("(best)"), "{warnings}");
    assert!(
        text.lines().any(|l| l.contains("not marked (best) on") && l.contains("UNVERIFIED") && l.contains("Warnings")),
        "the output says why: {text}"
    );

    // An INCOMPLETE build (the H200 test machine names no CPU, board or PSU) is never best: it
    // was on warnings, wall power, heat and decode.
    let incomplete = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron");
    let cmp = Comparison::of(&[(load(&incomplete), None), (load(&r9700), None)], &c, Some("llama-3.1-70b"));
    let text = cmp.text();
    println!("{text}");
    for row in &cmp.rows {
        assert!(!row.best.contains(&0), "{}: {:?}", row.name, row.values);
    }
    assert!(text.lines().any(|l| l.contains("not marked (best) on") && l.contains("INCOMPLETE")), "{text}");
    // No priced part: $0.00, not the "$-0.00" of an empty f64 sum.
    assert!(!text.contains("$-0"), "{text}");
}

//! The `*.rig.ron` format: located errors for bad input, atomic saves, round trips.

use crate::support;
use kraftwerk_catalog as catalog;
use kraftwerk_core::rig::{self, Build, BuildError, FORMAT_VERSION};
use proptest::prelude::*;
use std::path::PathBuf;

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kraftwerk-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

const GOOD: &str = r#"(
    format: 1,
    name: "two 4090s",
    gpus: [
        (gpu: "nvidia-geforce-rtx-4090", slot: 1),
        (gpu: "nvidia-geforce-rtx-4090", slot: 4, power_limit_w: 350.0),
    ],
)"#;

fn err(text: &str) -> BuildError {
    let c = catalog::builtin().expect("catalog");
    rig::load_str("t.rig.ron", text, Some(&c)).expect_err("must fail")
}

#[test]
fn good_file_loads() {
    let c = catalog::builtin().expect("catalog");
    let b = rig::load_str("t.rig.ron", GOOD, Some(&c)).expect("loads");
    assert_eq!(b.gpus.len(), 2);
    assert_eq!(b.gpus[1].power_limit_w, Some(350.0));
}

#[test]
fn empty_file_is_located() {
    let e = err("");
    assert_eq!((e.line, e.column), (1, 1));
    assert!(e.message.contains("empty"), "{e}");
    let e = err("   \n  ");
    assert!(e.message.contains("empty"), "{e}");
}

#[test]
fn truncated_file_is_located() {
    let e = err(&GOOD[..GOOD.len() / 2]);
    assert!(e.line >= 1, "{e}");
    assert!(e.to_string().starts_with("t.rig.ron:"), "{e}");
}

#[test]
fn wrong_type_is_located() {
    // A string is a slot name now (`slot: "PCIEX16_2"`); a boolean is no slot.
    let text = GOOD.replace("slot: 4", "slot: true");
    let e = err(&text);
    assert_eq!(e.line, 6, "{e}");
    assert!(e.column > 1, "{e}");
    assert!(e.message.contains("a slot position (1, 2, ...) or a slot name"), "{e}");
}

#[test]
fn unknown_field_is_located() {
    let text = GOOD.replace("name: \"two 4090s\",", "name: \"two 4090s\",\n    colour: \"red\",");
    let e = err(&text);
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("colour"), "{e}");
}

#[test]
fn unknown_part_id_is_located() {
    let text = GOOD.replace("(gpu: \"nvidia-geforce-rtx-4090\", slot: 4", "(gpu: \"nvidia-geforce-rtx-9090\", slot: 4");
    let e = err(&text);
    assert_eq!((e.line, e.column), (6, 15), "{e}");
    assert!(e.message.contains("nvidia-geforce-rtx-9090"), "{e}");
}

#[test]
fn future_format_is_refused_with_its_reason() {
    let text = GOOD.replace("format: 1", "format: 7").replace("name:", "hologram: true,\n    name:");
    let e = err(&text);
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("newer"), "{e}");
}

#[test]
fn missing_format_is_refused() {
    let e = err("(name: \"x\")");
    assert!(e.message.contains("format"), "{e}");
}

#[test]
fn garbage_and_binary_files_give_located_errors() {
    let dir = tmp_dir("garbage");
    // 10 MB of printable garbage.
    let mut garbage = String::with_capacity(10 * 1024 * 1024);
    let mut x: u32 = 12345;
    while garbage.len() < 10 * 1024 * 1024 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        garbage.push(char::from(b' ' + (x >> 16) as u8 % 94));
        if x.is_multiple_of(97) {
            garbage.push('\n');
        }
    }
    let p = dir.join("garbage.rig.ron");
    std::fs::write(&p, &garbage).expect("write");
    let e = rig::load(&p, None).expect_err("garbage");
    assert!(e.line >= 1, "{e}");
    // Binary data.
    let p = dir.join("binary.rig.ron");
    let bin: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 256) as u8).collect();
    std::fs::write(&p, bin).expect("write");
    let e = rig::load(&p, None).expect_err("binary");
    assert!(e.line >= 1 && e.message.contains("UTF-8"), "{e}");
    // A missing file.
    let e = rig::load(&dir.join("nope.rig.ron"), None).expect_err("missing");
    assert_eq!(e.line, 0);
}

#[test]
fn save_is_atomic_and_round_trips() {
    let c = catalog::builtin().expect("catalog");
    let dir = tmp_dir("save");
    let p = dir.join("b.rig.ron");
    let b = rig::load_str("t", GOOD, Some(&c)).expect("loads");
    rig::save(&p, &b).expect("save");
    let back = rig::load(&p, Some(&c)).expect("reload");
    assert_eq!(b, back);
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // Saving into a folder that does not exist fails cleanly and writes nothing.
    let bad = dir.join("no/such/dir/b.rig.ron");
    assert!(rig::save(&bad, &b).is_err());
}

#[test]
fn every_reference_build_round_trips() {
    let c = catalog::builtin().expect("catalog");
    let out = tmp_dir("refs");
    let paths = support::reference_build_paths();
    let n = paths.len();
    for path in paths {
        let b = rig::load(&path, Some(&c)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.format, FORMAT_VERSION);
        let p = out.join(path.file_name().expect("name"));
        rig::save(&p, &b).expect("save");
        let back = rig::load(&p, Some(&c)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b, back, "{}", path.display());
    }
    assert!(n >= 6, "at least 6 reference builds, found {n}");
}

#[test]
fn default_build_serializes() {
    let text = rig::to_ron_string(&Build::default()).expect("ser");
    let back = rig::load_str("t", &text, None).expect("parse");
    assert_eq!(back, Build::default());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any mutation of a valid file either loads or fails with a located error; never panics.
    #[test]
    fn mutated_files_never_panic(pos in 0usize..GOOD.len(), del in 0usize..8, insert in "[ -~\n]{0,6}") {
        let mut text = GOOD.to_owned();
        let pos = (0..=pos).rev().find(|p| text.is_char_boundary(*p)).unwrap_or(0);
        let end = (pos + del).min(text.len());
        let end = (end..=text.len()).find(|p| text.is_char_boundary(*p)).unwrap_or(text.len());
        text.replace_range(pos..end, &insert);
        match rig::load_str("m.rig.ron", &text, None) {
            Ok(b) => prop_assert!(b.format >= 1),
            Err(e) => prop_assert!(e.line >= 1 && e.column >= 1, "unlocated: {}", e),
        }
    }

    /// Arbitrary bytes never panic the loader.
    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = rig::load_str("r.rig.ron", &text, None);
    }
}

// ---------------------------------------------------------------------------------------------
// Parts lists in (`kraftwerk import`, Edit > Paste parts list) and out (`export --list`).

use kraftwerk_core::rig::import_list::{ImportedList, ListFormat, import_list};

fn parts_list(name: &str) -> String {
    let p = support::fixture("parts-lists").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn show(name: &str, l: &ImportedList) {
    println!("{name}: {:?}, date {:?}, total {:?}", l.format, l.date, l.total);
    for m in &l.matched {
        println!(
            "  line {} x{} `{}` -> {} ({} %, query `{}`)",
            m.line.line, m.line.quantity, m.line.name, m.id, m.confidence_pct, m.query
        );
    }
    for u in &l.unmatched {
        println!("  line {} NOT: `{}` ({})", u.line.line, u.line.text, u.reason);
    }
}

/// One real list: file, layout, GPUs with an id fragment, ids that must be in the build, and
/// lines (1-based) that must be named as not imported.
struct RealList {
    file: &'static str,
    format: ListFormat,
    gpus: usize,
    gpu_id: &'static str,
    ids: &'static [&'static str],
    not_imported: &'static [usize],
    part_lines: usize,
}

const REAL_LISTS: &[RealList] = &[
    RealList {
        file: "jan-2x4090.md",
        format: ListFormat::Markdown,
        gpus: 2,
        gpu_id: "rtx-4090",
        ids: &["amd-threadripper-pro-5965wx", "asus-pro-ws-wrx80e-sage-se-wifi", "samsung-990-pro-2tb"],
        // Line 10 is the Veddha open frame, which the catalog does not have.
        not_imported: &[10],
        part_lines: 8,
    },
    RealList {
        file: "samsyeung-4x3090.md",
        format: ListFormat::Markdown,
        gpus: 4,
        gpu_id: "rtx-3090",
        ids: &["asrock-rack-romed8-2t", "amd-epyc-7532"],
        // Risers, the rack and the fans are not parts a build holds.
        not_imported: &[8, 10, 13],
        part_lines: 11,
    },
    RealList {
        file: "gblake55-4x3090-5090.md",
        format: ListFormat::Markdown,
        gpus: 5,
        gpu_id: "nvidia-geforce-rtx-",
        ids: &["asrock-rack-romed8-2t", "amd-epyc-7443p", "nvidia-geforce-rtx-5090"],
        // "2× 1600W 80+ Platinum/Titanium" names a PSU class, not a model; risers, monitor,
        // keyboard are not build parts.
        not_imported: &[10, 11, 13, 14],
        part_lines: 12,
    },
    RealList {
        file: "surfer12-a6000.txt",
        format: ListFormat::Text,
        gpus: 1,
        gpu_id: "a6000",
        ids: &["amd-threadripper-3990x", "noctua-nh-u14s-tr4-sp3"],
        // The second CPU cooler, the DDR4 kit the catalog lacks (its Trident Z5 kits are DDR5),
        // the network adapter, monitor, keyboard, mouse and speakers.
        not_imported: &[5, 12, 13, 14, 15, 16],
        part_lines: 14,
    },
    RealList {
        file: "surfer12-a6000.md",
        format: ListFormat::Markdown,
        gpus: 1,
        gpu_id: "a6000",
        ids: &["amd-threadripper-3990x", "noctua-nh-u14s-tr4-sp3"],
        not_imported: &[7, 14, 15, 16, 17, 18],
        part_lines: 14,
    },
    RealList {
        file: "samsyeung-4x3090.bbcode",
        format: ListFormat::BbCode,
        gpus: 4,
        gpu_id: "rtx-3090",
        ids: &["asrock-rack-romed8-2t", "amd-epyc-7532"],
        not_imported: &[21],
        part_lines: 21,
    },
];

#[test]
fn real_parts_lists_import_to_builds_that_check_reads() {
    let c = catalog::builtin().expect("catalog");
    for case in REAL_LISTS {
        let name = case.file;
        let text = parts_list(name);
        let l = import_list(name, &text, &c).unwrap_or_else(|e| panic!("{e}"));
        show(name, &l);
        assert_eq!(l.format, case.format, "{name}");
        let b = &l.build;
        assert_eq!(b.gpus.len(), case.gpus, "{name}: GPU count");
        assert!(b.gpus.iter().all(|g| g.gpu.contains(case.gpu_id)), "{name}: {:?}", b.gpus);
        let ron = rig::to_ron_string(b).expect("encodes");
        for id in case.ids {
            assert!(ron.contains(&format!("\"{id}\"")), "{name}: {id} missing in\n{ron}");
        }
        // `check` reads it: it loads with every id known, resolves, and the checker runs.
        let loaded = kraftwerk_core::rig::load_str(name, &ron, Some(&c)).unwrap_or_else(|e| panic!("{e}\n{ron}"));
        assert_eq!(&loaded, b, "{name}: the file reads back to the same build");
        assert!(loaded.unknown_ids(&c).is_empty());
        let r = loaded.resolve(&c);
        assert!(r.gpus.iter().all(Option::is_some) && r.cpu.is_some() && r.board.is_some(), "{name}");
        let report = kraftwerk_core::check::run(&loaded, &c);
        assert_ne!(report.verdict, kraftwerk_core::check::Verdict::Empty, "{name}");
        // Nothing dropped silently: every line is matched or named, in the notes too.
        let notes = b.notes.as_deref().unwrap_or("");
        assert_eq!(l.matched.len() + l.unmatched.len(), case.part_lines, "{name}: every part line is matched or named");
        for u in &l.unmatched {
            assert!(
                notes.contains(&format!("- line {}: ", u.line.line)),
                "{name}: line {} not in the notes",
                u.line.line
            );
        }
        for n in case.not_imported {
            assert!(l.unmatched.iter().any(|u| u.line.line == *n), "{name}: line {n} should be named as not imported");
        }
        for m in &l.matched {
            assert!(m.confidence_pct > 0, "{name}: {m:?}");
            assert!(notes.contains(&format!("`{}` ({} %)", m.id, m.confidence_pct)), "{name}: match not in notes");
        }
    }
}

#[test]
fn list_prices_and_date_are_kept_in_the_notes() {
    let c = catalog::builtin().expect("catalog");
    let l = import_list("jan-2x4090.md", &parts_list("jan-2x4090.md"), &c).expect("imports");
    let notes = l.build.notes.clone().unwrap_or_default();
    assert!(notes.contains("List date: undated"), "{notes}");
    assert!(notes.contains("2 x Asus Strix RTX 4090 24GB OC: $4,345"), "{notes}");
    assert!(notes.contains("- list total: $8,334"), "{notes}");
    assert!(notes.contains("a build file has no price field"), "{notes}");
    let md = "[PCPartPicker Part List](https://pcpartpicker.com/list/abc123)\n\nType|Item|Price\n:----|:----|:----\n**CPU** | [AMD EPYC 7302 3 GHz 16-Core Processor](https://pcpartpicker.com/product/x/y) | $978.00 @ Amazon\n**Video Card** | [NVIDIA GeForce RTX 3090 24 GB Video Card](https://pcpartpicker.com/product/x/z) | Purchased For $1499.00\n**Video Card** | [NVIDIA GeForce RTX 3090 24 GB Video Card](https://pcpartpicker.com/product/x/z) | Purchased For $1499.00\n | *Prices include shipping, taxes, rebates, and discounts* |\n | **Total** | **$3976.00**\n | Generated by [PCPartPicker](https://pcpartpicker.com) 2023-01-12 10:11 EST-0500 |\n";
    let l = import_list("list.md", md, &c).expect("imports");
    assert_eq!(l.build.gpus.len(), 2, "two rows are two GPUs");
    assert_eq!(l.build.cpu.as_deref(), Some("amd-epyc-7302"));
    assert_eq!(l.build.reference.as_deref(), Some("https://pcpartpicker.com/list/abc123"));
    assert!(l.unmatched.is_empty(), "{:?}", l.unmatched);
    let notes = l.build.notes.clone().unwrap_or_default();
    assert!(notes.contains("List date: 2023-01-12 10:11 EST-0500"), "{notes}");
    assert!(notes.contains("Purchased For $1499.00") && notes.contains("$978.00 @ Amazon"), "{notes}");
    assert!(notes.contains("- list total: $3976.00"), "{notes}");
}

#[test]
fn a_hit_that_names_no_model_or_the_wrong_memory_is_refused() {
    let c = catalog::builtin().expect("catalog");
    // The shared matcher alone finds a part for these (planted faults: a PSU class, and a DDR3
    // kit of a series the catalog holds only as DDR4, out of the OpenDB import) ...
    assert!(c.find_by_name(catalog::PartKind::Psu, "1600W 80+ Platinum/Titanium").is_some());
    let other_gen = c.find_by_name(catalog::PartKind::Memory, "G.Skill Trident Z RGB").map(|p| p.id().to_owned());
    assert!(other_gen.is_some());
    // ... and the import refuses both, while the same kit at its own generation (DDR4, imported
    // from OpenDB) is matched.
    let text = "PSU: 2× 1600W 80+ Platinum/Titanium\nMemory: G.Skill Trident Z RGB 256 GB (8 x 32 GB) DDR3-1600 CL9 Memory\nVideo Card: 2x RTX 3090\n";
    let l = import_list("t.txt", text, &c).expect("imports");
    assert_eq!(l.unmatched.iter().map(|u| u.line.line).collect::<Vec<_>>(), [1, 2], "{:?}", l.matched);
    assert!(l.build.psus.is_empty() && l.build.memory.is_none());
    assert_eq!(l.build.gpus.len(), 2);
    let ddr4 = "Memory: G.Skill Trident Z RGB 256 GB (8 x 32 GB) DDR4-3200 CL16 Memory\n";
    let l = import_list("t.txt", ddr4, &c).expect("imports");
    let kit = l.build.memory.as_ref().map(|m| m.kit.clone()).unwrap_or_default();
    assert!(kit.contains("ddr4"), "{kit}: {:?}", l.unmatched);
}

#[test]
fn a_plain_list_one_part_a_line() {
    let c = catalog::builtin().expect("catalog");
    let text =
        "4x RTX 3090\nEPYC 7302\nSupermicro H12SSL-i\nSuper Flower Leadex Titanium 1600W x 2\nsomething nobody sells\n";
    let l = import_list("plain.txt", text, &c).expect("imports");
    show("plain.txt", &l);
    assert_eq!(l.format, ListFormat::Plain);
    assert_eq!(l.build.gpus.len(), 4);
    assert_eq!(l.build.cpu.as_deref(), Some("amd-epyc-7302"));
    assert_eq!(l.build.motherboard.as_deref(), Some("supermicro-h12ssl-i"));
    assert_eq!(l.build.psus.len(), 2, "x 2 is two PSUs");
    assert_eq!(l.unmatched.len(), 1);
    assert_eq!(l.unmatched[0].line.line, 5);
}

// ---------------------------------------------------------------------------------------------
// The workload vocabulary, typed in the build (`kraftwerk_core::rig::Workload`, `crate::workload`).

use kraftwerk_core::estimate::llm::{Interconnect, Mode, Parallelism, Precision};

/// `GOOD` with a workload whose fields are `fields` (RON, after `model` and `context`).
fn with_workload(fields: &str) -> String {
    GOOD.replacen(
        "\n)",
        &format!(
            "\n    workload: (\n        model: \"llama-3.1-8b\",\n        context: 8192,\n        {fields}\n    ),\n)"
        ),
        1,
    )
}

#[test]
fn workload_vocabulary_is_stored_typed() {
    let c = catalog::builtin().expect("catalog");
    let text = with_workload(
        r#"precision: "q4_k_m", mode: "full-fine-tune", parallel: "tp:2,pp:2", nodes: 2, interconnect: "ib-ndr","#,
    );
    let b = rig::load_str("t.rig.ron", &text, Some(&c)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let w = b.workload.as_ref().expect("workload");
    assert_eq!(w.precision, Precision::Q4_K_M);
    assert_eq!(w.mode, Mode::FullFineTune);
    assert_eq!(w.parallel, Some(Parallelism::TensorPipeline { tp: 2, pp: 2 }));
    assert_eq!(w.interconnect, Some(Interconnect::IbNdr));
    // Saved as the same strings the file spelled, and read back equal.
    let saved = rig::to_ron_string(&b).expect("ser");
    for s in
        [r#"precision: "q4_k_m""#, r#"mode: "full-fine-tune""#, r#"parallel: "tp:2,pp:2""#, r#"interconnect: "ib-ndr""#]
    {
        assert!(saved.contains(s), "`{s}` not in:\n{saved}");
    }
    assert_eq!(rig::load_str("t.rig.ron", &saved, Some(&c)).expect("reload"), b);
    // Saving what was loaded from the saved text gives the same bytes.
    assert_eq!(rig::to_ron_string(&rig::load_str("t", &saved, Some(&c)).expect("reload")).expect("ser"), saved);
}

#[test]
fn every_reference_workload_saves_its_own_strings() {
    let c = catalog::builtin().expect("catalog");
    let mut seen = 0;
    for path in support::reference_build_paths() {
        let text = std::fs::read_to_string(&path).expect("read");
        let b = rig::load(&path, Some(&c)).unwrap_or_else(|e| panic!("{e}"));
        let Some(w) = &b.workload else { continue };
        seen += 1;
        let saved = rig::to_ron_string(&b).expect("ser");
        let precision = format!("precision: \"{}\"", w.precision);
        assert!(text.contains(&precision) && saved.contains(&precision), "{}: {precision}", path.display());
        let mode = format!("mode: \"{}\"", w.mode.file_name());
        assert!(saved.contains(&mode), "{}: {mode}", path.display());
        assert!(!text.contains("mode:") || text.contains(&mode), "{}: {mode}", path.display());
    }
    assert!(seen >= 5, "reference builds with a workload: {seen}");
}

#[test]
fn a_misspelt_workload_name_is_located_at_its_key_with_the_accepted_names() {
    for (fields, key, says) in [
        (r#"precision: "q4km","#, "precision", ["workload.precision: unknown precision `q4km`", "q4_k_m", "4.5bpw"]),
        (
            r#"precision: "bf16", mode: "pretrain","#,
            "mode",
            ["workload.mode: unknown mode `pretrain`", "inference", "qlora"],
        ),
        (
            r#"precision: "bf16", parallel: "tp8","#,
            "parallel",
            ["workload.parallel: unknown parallelism `tp8`", "tp:N", "split:N"],
        ),
        (
            r#"precision: "bf16", nodes: 2, interconnect: "ib-xdr","#,
            "interconnect",
            ["workload.interconnect: unknown interconnect `ib-xdr`", "ib-ndr", "eth-100"],
        ),
        (
            r#"precision: "int4", runtime: "vllmm","#,
            "runtime",
            ["workload.runtime: unknown runtime `vllmm`", "vllm", "llama.cpp"],
        ),
    ] {
        let text = with_workload(fields);
        let e = err(&text);
        for s in says {
            assert!(e.message.contains(s), "`{s}` not in: {e}");
        }
        let at = text.find(&format!("{key}:")).expect("key");
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
        assert_eq!((e.line, e.column), (line, column), "{key}: {e}");
    }
}

/// The runtime a build is planned for is part of its workload: read by name (an alias saves as
/// the canonical name), written only when given, so a file without it saves without it.
#[test]
fn the_workload_runtime_round_trips_and_is_optional() {
    let c = catalog::builtin().expect("catalog");
    let text = with_workload(r#"precision: "int4", runtime: "VLLM","#);
    let b = rig::load_str("t.rig.ron", &text, Some(&c)).unwrap_or_else(|e| panic!("{e}"));
    let w = b.workload.as_ref().expect("workload");
    assert_eq!(w.runtime, Some(kraftwerk_core::estimate::llm::Runtime::Vllm));
    let saved = rig::to_ron_string(&b).expect("ser");
    assert!(saved.contains(r#"runtime: "vllm""#), "{saved}");
    assert_eq!(rig::load_str("t.rig.ron", &saved, Some(&c)).expect("reload"), b);
    let plain = rig::load_str("t.rig.ron", &with_workload(r#"precision: "int4","#), Some(&c)).expect("load");
    assert_eq!(plain.workload.as_ref().expect("workload").runtime, None);
    assert!(!rig::to_ron_string(&plain).expect("ser").contains("runtime"));
}

/// The documented example build (`docs/build-files.md`, linked from the README) loads and
/// checks without an error. It did not: a `/*` inside its block comment (`catalog/*.ron`) opened a nested RON
/// comment, so the file "ended early", and its GPUs sat at positions 1 and 4 of a board whose
/// positions no source gives (two `gpu-slot` errors).
#[test]
fn the_readme_example_build_checks_without_an_error() {
    let readme = include_str!("../../../../docs/build-files.md");
    let fence = "```ron build file=my.rig.ron\n";
    let start = readme.find(fence).expect("the documented example") + fence.len();
    let end = start + readme[start..].find("```").expect("the end of the example");
    let c = catalog::builtin().expect("catalog");
    let b = rig::load_str("docs/build-files.md", &readme[start..end], Some(&c)).expect("the README's example loads");
    let r = kraftwerk_core::check::run(&b, &c);
    let errors: Vec<String> = r
        .findings
        .iter()
        .filter(|f| f.severity == kraftwerk_core::check::Severity::Error)
        .map(|f| format!("[{}] {}", f.rule, f.message))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    println!("README example: {} ({})", r.verdict, r.coverage.summary());
}

//! The `*.rig.ron` format: located errors for bad input, atomic saves, round trips.

mod common;
use kraftwerk::build::{self, Build, BuildError, FORMAT_VERSION};
use kraftwerk::catalog;
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
    build::load_str("t.rig.ron", text, Some(&c)).expect_err("must fail")
}

#[test]
fn good_file_loads() {
    let c = catalog::builtin().expect("catalog");
    let b = build::load_str("t.rig.ron", GOOD, Some(&c)).expect("loads");
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
    let text = GOOD.replace("slot: 4", "slot: \"four\"");
    let e = err(&text);
    assert_eq!(e.line, 6, "{e}");
    assert!(e.column > 1, "{e}");
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
    let e = build::load(&p, None).expect_err("garbage");
    assert!(e.line >= 1, "{e}");
    // Binary data.
    let p = dir.join("binary.rig.ron");
    let bin: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 256) as u8).collect();
    std::fs::write(&p, bin).expect("write");
    let e = build::load(&p, None).expect_err("binary");
    assert!(e.line >= 1 && e.message.contains("UTF-8"), "{e}");
    // A missing file.
    let e = build::load(&dir.join("nope.rig.ron"), None).expect_err("missing");
    assert_eq!(e.line, 0);
}

#[test]
fn save_is_atomic_and_round_trips() {
    let c = catalog::builtin().expect("catalog");
    let dir = tmp_dir("save");
    let p = dir.join("b.rig.ron");
    let b = build::load_str("t", GOOD, Some(&c)).expect("loads");
    build::save(&p, &b).expect("save");
    let back = build::load(&p, Some(&c)).expect("reload");
    assert_eq!(b, back);
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // Saving into a folder that does not exist fails cleanly and writes nothing.
    let bad = dir.join("no/such/dir/b.rig.ron");
    assert!(build::save(&bad, &b).is_err());
}

#[test]
fn every_reference_build_round_trips() {
    let c = catalog::builtin().expect("catalog");
    let out = tmp_dir("refs");
    let paths = common::reference_build_paths();
    let n = paths.len();
    for path in paths {
        let b = build::load(&path, Some(&c)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.format, FORMAT_VERSION);
        let p = out.join(path.file_name().expect("name"));
        build::save(&p, &b).expect("save");
        let back = build::load(&p, Some(&c)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b, back, "{}", path.display());
    }
    assert!(n >= 6, "at least 6 reference builds, found {n}");
}

#[test]
fn default_build_serializes() {
    let text = build::to_ron_string(&Build::default()).expect("ser");
    let back = build::load_str("t", &text, None).expect("parse");
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
        match build::load_str("m.rig.ron", &text, None) {
            Ok(b) => prop_assert!(b.format >= 1),
            Err(e) => prop_assert!(e.line >= 1 && e.column >= 1, "unlocated: {}", e),
        }
    }

    /// Arbitrary bytes never panic the loader.
    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = build::load_str("r.rig.ron", &text, None);
    }
}

// ---------------------------------------------------------------------------------------------
// Parts lists in (`kraftwerk import`, Edit > Paste parts list) and out (`export --list`).

use kraftwerk::build::import_list::{ImportedList, ListFormat, import_list};

fn parts_list(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parts-lists").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn show(name: &str, l: &ImportedList) {
    println!("{name}: {:?}, date {:?}, total {:?}", l.format, l.date, l.total);
    for m in &l.matched {
        println!("  line {} x{} `{}` -> {} ({} %, query `{}`)", m.line.line, m.line.quantity, m.line.name, m.id, m.confidence_pct, m.query);
    }
    for u in &l.unmatched {
        println!("  line {} NOT: `{}` ({})", u.line.line, u.line.text, u.reason);
    }
}

#[test]
fn real_parts_lists_print() {
    let c = catalog::builtin().expect("catalog");
    for name in ["jan-2x4090.md", "samsyeung-4x3090.md", "gblake55-4x3090-5090.md", "surfer12-a6000.txt", "surfer12-a6000.md", "samsyeung-4x3090.bbcode"] {
        let l = import_list(name, &parts_list(name), &c).expect(name);
        show(name, &l);
        let _ = ListFormat::Plain;
    }
}

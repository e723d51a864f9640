//! Builder's daily flows in the window (egui_kittest, no display): the parts list with its
//! total and exports; two builds compared; a figure nobody published entered in the part form
//! and the check run again.
#![cfg(feature = "gui")]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::build::parts_list::PartsList;
use kraftwerk::build::{self, Build};
use kraftwerk::catalog::{self, Catalog};
use kraftwerk::ui::{Action, KraftwerkApp, Tab};
use std::path::{Path, PathBuf};

fn catalog() -> Catalog {
    catalog::builtin().expect("built-in catalog loads")
}

fn temp_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("kraftwerk-flows-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds").join(name)
}

fn harness(app: KraftwerkApp) -> Harness<'static, KraftwerkApp> {
    Harness::builder().with_size([1440.0, 900.0]).build_ui_state(|ui, app: &mut KraftwerkApp| app.update_ui(ui), app)
}

fn has(h: &Harness<'_, KraftwerkApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

/// Types `path` into the open path field and presses OK.
fn answer_path_field(h: &mut Harness<'_, KraftwerkApp>, path: &Path) {
    assert!(h.state().view.path_prompt.is_some(), "the path field is shown");
    h.get_by_label("OK").scroll_to_me();
    if let Some(p) = h.state_mut().view.path_prompt.as_mut() {
        p.text = path.display().to_string();
    }
    h.run();
    h.get_by_label("OK").click();
    h.run();
    assert!(h.state().view.path_prompt.is_none(), "OK closes the path field");
}

#[test]
fn build_then_parts_list_with_total_then_export() {
    let cat = catalog();
    let dir = temp_dir("parts");
    let path = reference("2x-rtx-a6000-nvlink.rig.ron");
    let b = build::load(&path, Some(&cat)).expect("reference build");
    assert!(!b.nvlink.is_empty(), "the reference build has an NVLink bridge");
    let mut h = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
    h.state_mut().send(Action::Open(path));
    h.run();
    // One click away: the Parts tab.
    h.get_by_label("Parts").click();
    h.run();
    assert_eq!(h.state().view.tab, Tab::Parts);
    let list = PartsList::of(&b, &cat);
    assert!(list.total_usd > 0.0, "the reference parts have catalog prices");
    assert!(has(&h, &format!("Total: {}", list.total_text())), "the total is shown: {}", list.total_text());
    assert!(has(&h, "NVLink bridge"), "the bridge is a line of the list");
    for f in ["Markdown", "CSV", "JSON"] {
        h.get_by_label(&format!("Export {f}…")).click();
        h.run();
        let ext = match f {
            "Markdown" => "md",
            "CSV" => "csv",
            _ => "json",
        };
        let out = dir.join(format!("parts.{ext}"));
        answer_path_field(&mut h, &out);
        let text = std::fs::read_to_string(&out).expect("exported");
        match ext {
            "md" => assert!(text.contains("NVLink bridge") && text.contains("**Total**") && text.contains('$')),
            "csv" => assert_eq!(text.lines().count(), list.rows.len() + 2),
            _ => {
                let v: serde_json::Value = serde_json::from_str(&text).expect("json");
                assert!((v["total_usd"].as_f64().expect("total") - list.total_usd).abs() < 1e-6);
            }
        }
        assert!(has(&h, "exported to"), "a message says where it went");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn open_two_builds_and_compare() {
    let cat = catalog();
    let a = reference("2x-rtx-4090-x870e.rig.ron");
    let b = reference("8x-l40s-4u-server.rig.ron");
    let mut h = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
    h.state_mut().send(Action::Open(a.clone()));
    h.run();
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("Add a build file…").click();
    h.run();
    answer_path_field(&mut h, &b);
    assert_eq!(h.state().view.compare.others.len(), 1);
    let ba = build::load(&a, Some(&cat)).expect("a");
    let bb = build::load(&b, Some(&cat)).expect("b");
    assert!(has(&h, &ba.name) && has(&h, &bb.name), "both builds are columns");
    assert!(has(&h, "* Wall power at full load"), "the power difference is marked");
    let ra = kraftwerk::check::run(&ba, &cat);
    assert!(has(&h, &format!("{:.0} W", ra.power.total_wall_w)), "the open build's figure is the checker's");
    h.get_by_label("Remove").click();
    h.run();
    assert!(h.state().view.compare.others.is_empty());
}

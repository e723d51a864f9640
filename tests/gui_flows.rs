//! Builder's daily flows in the window (egui_kittest, no display): the parts list with its
//! total and exports; two builds compared; a figure nobody published entered in the part form
//! and the check run again.
#![cfg(feature = "gui")]

use eframe::egui;
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

#[test]
fn a_figure_nobody_published_is_entered_in_the_part_form_and_the_check_runs_again() {
    use kraftwerk::build::{GpuPlacement, PsuUse};
    use kraftwerk::catalog::{GpuFormFactor, PartKind};
    use kraftwerk::ui::part_form::FormTarget;
    let cat = catalog();
    let dir = temp_dir("user-parts");
    // A PCIe card whose length no source publishes, in a case whose GPU clearance is known.
    let gpu =
        cat.gpus.iter().find(|g| g.length_mm.is_none() && g.form_factor != GpuFormFactor::Sxm).expect("such a GPU");
    // The built-in cases publish no clearance yet: a custom case (inline in the build) does.
    let mut case = cat.cases[0].clone();
    case.id = "test-case-300mm".into();
    case.max_gpu_length_mm = Some(300.0);
    let max: f64 = 300.0;
    let mut b = Build {
        name: "Unknown length".into(),
        cpu: Some("amd-threadripper-pro-7985wx".into()),
        motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
        case: Some(case.id.clone()),
        psus: vec![PsuUse { psu: "seasonic-prime-tx-1600-atx31".into(), feeds_system: None, circuit: 0 }],
        gpus: vec![GpuPlacement {
            gpu: gpu.id.clone(),
            slot: Some(1),
            power_limit_w: None,
            riser: None,
            psu: 0,
            cable: None,
        }],
        ..Build::default()
    };
    b.parts.cases.push(case);
    let too_long = |r: &kraftwerk::check::Report| {
        r.findings.iter().any(|f| f.rule == "case-gpu-fit" && f.message.contains("mm long"))
    };
    let mut app = KraftwerkApp::new_for_test(cat.clone(), b);
    app.user_parts_dir = Some(dir.clone());
    let mut h = harness(app);
    h.run();
    assert!(!too_long(&h.state().state().report), "with the length unknown the clearance cannot fail");
    let rev = h.state().state().rev;

    // What "Enter this figure" sends for a not-checked finding: the part and the field.
    let target = FormTarget { kind: PartKind::Gpu, id: Some(gpu.id.clone()), field: Some("length_mm".into()) };
    h.state_mut().send(Action::OpenPartForm(target));
    h.run();
    h.run();
    let field = h.get_by_role_and_label(egui::accesskit::Role::TextInput, "length_mm");
    assert!(field.is_focused(), "the form opens at the figure");
    field.type_text("lots");
    h.run();
    assert!(has(&h, "expected f64"), "a bad figure is refused as it is typed");
    assert!(h.state().view.part_form.as_ref().is_some_and(|f| !f.problems.is_empty()));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_role_and_label(egui::accesskit::Role::TextInput, "length_mm").type_text(&format!("{:.0}", max + 50.0));
    h.run();
    assert!(h.state().view.part_form.as_ref().is_some_and(|f| f.problems.is_empty()), "valid again");
    h.get_by_label("Save user part").click();
    h.run();

    assert!(h.state().view.part_form.is_none(), "saving closes the form");
    let saved = dir.join(format!("{}.ron", gpu.id));
    let text = std::fs::read_to_string(&saved).expect("saved in the user parts directory");
    assert!(catalog::parse_parts_file("saved", &text).is_ok(), "the loader reads it");
    let doc = h.state().state();
    assert!(doc.rev > rev, "the state was recomputed");
    assert_eq!(doc.catalog.gpu(&gpu.id).and_then(|g| g.length_mm), Some((max + 50.0).round()));
    assert!(too_long(&doc.report), "the check ran again with the figure: {:?}", doc.report.findings);
    assert_eq!(doc.report, kraftwerk::check::run(&doc.build, &doc.catalog));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tabs_panels_and_docs_are_reachable_from_the_keyboard() {
    let mut h = harness(KraftwerkApp::new_for_test(catalog(), Build::default()));
    h.run();
    for (i, key) in [
        egui::Key::Num1,
        egui::Key::Num2,
        egui::Key::Num3,
        egui::Key::Num4,
        egui::Key::Num5,
        egui::Key::Num6,
        egui::Key::Num7,
        egui::Key::Num8,
    ]
    .into_iter()
    .enumerate()
    {
        h.key_press_modifiers(egui::Modifiers::COMMAND, key);
        h.run();
        assert_eq!(h.state().view.tab, Tab::ALL[i], "Ctrl+{} shows the {} tab", i + 1, Tab::ALL[i].title());
    }
    h.key_press(egui::Key::F1);
    h.run();
    assert!(h.state().view.show_rule_docs, "F1 opens the rule docs");
    let shown = h.state().settings.show_build_panel;
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
    h.run();
    assert_ne!(h.state().settings.show_build_panel, shown, "Ctrl+B toggles the build panel");
    // Ctrl+E asks for the report's path; with no native dialog that is the labelled path field.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run();
    assert!(h.state().view.path_prompt.is_some());
    assert!(has(&h, "Path of the file to write:"));
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(h.state().view.path_prompt.is_none(), "Escape closes it");
}

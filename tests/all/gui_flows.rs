//! Builder's daily flows in the window (egui_kittest, no display): the parts list with its
//! total and exports; two builds compared; a figure nobody published entered in the part form
//! and the check run again (from the Checks tab's "Enter this figure…", for a part of the build
//! file and for a catalog part); a goal planned in the Plan tab and a result opened.
#![cfg(feature = "gui")]

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::catalog::{self, Catalog};
use kraftwerk::rig::parts_list::PartsList;
use kraftwerk::rig::{self, Build};
use kraftwerk::ui::{Action, FileAction, KraftwerkApp, Tab, ViewAction};
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
    let b = rig::load(&path, Some(&cat)).expect("reference build");
    assert!(!b.nvlink.is_empty(), "the reference build has an NVLink bridge");
    let mut h = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
    h.state_mut().send(Action::File(FileAction::Open(path)));
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
    h.state_mut().send(Action::File(FileAction::Open(a.clone())));
    h.run();
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("Add a build file…").click();
    h.run();
    answer_path_field(&mut h, &b);
    assert_eq!(h.state().view.compare.others.len(), 1);
    let ba = rig::load(&a, Some(&cat)).expect("a");
    let bb = rig::load(&b, Some(&cat)).expect("b");
    assert!(has(&h, &ba.name) && has(&h, &bb.name), "both builds are columns");
    assert!(has(&h, "* Wall power at full load"), "the power difference is marked");
    // Full load: the training estimate (the checker's own estimate follows the workload's mode,
    // inference for this build).
    let full = kraftwerk::estimate::power::estimate(&ba.resolve(&cat), kraftwerk::estimate::power::LoadState::Training);
    assert!(
        has(&h, &format!("{:.0} W", full.total_wall_w.expect("known"))),
        "the open build's figure is its full-load estimate"
    );
    h.get_by_label("Remove").click();
    h.run();
    assert!(h.state().view.compare.others.is_empty());
}

#[test]
fn a_figure_nobody_published_is_entered_in_the_part_form_and_the_check_runs_again() {
    use kraftwerk::catalog::{GpuFormFactor, PartKind};
    use kraftwerk::rig::{GpuPlacement, PsuUse};
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
            slot_name: None,
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
    h.state_mut().send(Action::View(ViewAction::OpenPartForm(target)));
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

fn rule_fixture(rule: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules").join(rule).join(file)
}

/// Whether `rule` is among the checks the report could not run in full.
fn not_checked(r: &kraftwerk::check::Report, rule: &str) -> bool {
    r.coverage.not_checked.iter().any(|c| c.rule == rule)
}

/// Index among the Checks tab's "Enter this figure…" buttons (drawn errors, then warnings,
/// then notes, each in report order) of the button of `rule`'s not-checked finding.
fn enter_button_index(h: &Harness<'_, KraftwerkApp>, rule: &str) -> usize {
    use kraftwerk::check::Severity;
    use kraftwerk::ui::part_form::figure_to_enter;
    let doc = h.state().state();
    let mut shown = Vec::new();
    for sev in [Severity::Error, Severity::Warning, Severity::Info] {
        for f in doc.report.findings.iter().filter(|f| f.severity == sev) {
            if figure_to_enter(doc, f).is_some() {
                shown.push(f.rule);
            }
        }
    }
    shown.iter().position(|r| *r == rule).unwrap_or_else(|| panic!("no button for {rule}: {shown:?}"))
}

/// Opens `fixture` on the Checks tab, clicks "Enter this figure…" of `rule`'s not-checked
/// finding, checks that the form opens at `field`, types `value` and saves with `save`.
/// Returns the harness after the save and the report before it.
fn enter_figure_from_checks_tab(
    fixture: &Path,
    rule: &str,
    field: &str,
    value: &str,
    save: &str,
    user_dir: &Path,
) -> (Harness<'static, KraftwerkApp>, kraftwerk::check::Report) {
    let mut app = KraftwerkApp::new_for_test(catalog(), Build::default());
    app.user_parts_dir = Some(user_dir.to_path_buf());
    let mut h = harness(app);
    h.state_mut().send(Action::File(FileAction::Open(fixture.to_path_buf())));
    h.run();
    let before = h.state().state().report.clone();
    assert!(not_checked(&before, rule), "{rule} is not checked before: {}", before.coverage.summary());
    h.get_by_label_contains("Checks (").click();
    h.run();
    assert_eq!(h.state().view.tab, Tab::Checks);
    assert!(has(&h, &before.coverage.summary()), "the tab shows the coverage: {}", before.coverage.summary());
    let k = enter_button_index(&h, rule);
    let button = h.query_all_by_label("Enter this figure…").nth(k).expect("the finding's button");
    button.scroll_to_me();
    h.run();
    h.query_all_by_label("Enter this figure…").nth(k).expect("the finding's button").click();
    h.run();
    h.run();
    let form = h.state().view.part_form.as_ref().expect("the part form opened");
    assert!(form.problems.is_empty(), "the part as it is is valid: {:?}", form.problems);
    let input = h.get_by_role_and_label(egui::accesskit::Role::TextInput, field);
    assert!(input.is_focused(), "the form opens at `{field}`");
    input.type_text(value);
    h.run();
    assert!(h.state().view.part_form.as_ref().is_some_and(|f| f.problems.is_empty()), "{value} is a valid {field}");
    h.get_by_label(save).click();
    h.run();
    assert!(h.state().view.part_form.is_none(), "saving closes the form");
    (h, before)
}

#[test]
fn checks_tab_enter_this_figure_for_a_part_of_the_build_file_and_the_check_runs_with_it() {
    let dir = temp_dir("enter-inline");
    let fixture = rule_fixture("case-gpu-fit", "not-checked-case-length-unknown.rig.ron");
    let case_id = "fixture-case-gpu-length-unknown";
    // The case is defined inline in the build, so it overrides any user part of its id: the
    // form updates the build's own copy (a user part file would be shadowed and change nothing).
    let (h, before) = enter_figure_from_checks_tab(
        &fixture,
        "case-gpu-fit",
        "max_gpu_length_mm",
        "250",
        "Save into this build",
        &dir,
    );
    let doc = h.state().state();
    assert_eq!(
        doc.build.parts.cases.iter().find(|c| c.id == case_id).and_then(|c| c.max_gpu_length_mm),
        Some(250.0),
        "the build's case has the figure"
    );
    assert!(doc.dirty, "the build changed (File > Save keeps the figure in the file)");
    assert_eq!(std::fs::read_dir(&dir).map_or(0, Iterator::count), 0, "nothing written to the user parts");
    // The check ran again with the figure: the 304 mm RTX 4090 no longer fits a 250 mm case.
    let after = &doc.report;
    assert_eq!(*after, kraftwerk::check::run(&doc.build, &doc.catalog), "the report is the checker's");
    assert!(!not_checked(after, "case-gpu-fit"), "case-gpu-fit ran: {}", after.coverage.summary());
    assert_eq!(after.coverage.ran, before.coverage.ran + 1, "one more rule ran in full");
    assert_eq!(after.coverage.not_checked.len() + 1, before.coverage.not_checked.len());
    let fit = after
        .findings
        .iter()
        .find(|f| f.rule == "case-gpu-fit" && f.kind == kraftwerk::check::FindingKind::Problem)
        .expect("the fit check fails");
    assert!(fit.message.contains("250"), "and names the number: {}", fit.message);
    assert!(has(&h, &after.coverage.summary()), "the Checks tab shows the new coverage");
    assert!(has(&h, "Updated `fixture-case-gpu-length-unknown`"), "a message says where it went");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn checks_tab_enter_this_figure_for_a_catalog_part_saves_a_user_part_and_the_check_runs_with_it() {
    let dir = temp_dir("enter-catalog");
    let fixture = rule_fixture("cooler-tdp", "not-checked-cooler-rating-unknown.rig.ron");
    let b = rig::load(&fixture, Some(&catalog())).expect("fixture");
    let cooler = b.cooler.clone().expect("a cooler");
    assert!(b.parts.coolers.is_empty(), "the cooler is a catalog part");
    // A rating far below the 9950X's 170 W TDP: the check must now fail and say so.
    let (h, before) =
        enter_figure_from_checks_tab(&fixture, "cooler-tdp", "rated_tdp_w", "100", "Save user part", &dir);
    let saved = dir.join(format!("{cooler}.ron"));
    let text = std::fs::read_to_string(&saved).expect("saved in the user parts directory");
    assert!(catalog::parse_parts_file("saved", &text).is_ok(), "the loader reads it");
    let doc = h.state().state();
    assert_eq!(doc.catalog.cooler(&cooler).and_then(|c| c.rated_tdp_w), Some(100.0));
    let after = &doc.report;
    assert_eq!(*after, kraftwerk::check::run(&doc.build, &doc.catalog));
    assert!(!not_checked(after, "cooler-tdp"), "cooler-tdp ran: {}", after.coverage.summary());
    assert_eq!(after.coverage.ran, before.coverage.ran + 1);
    let f = after
        .findings
        .iter()
        .find(|f| f.rule == "cooler-tdp" && f.kind == kraftwerk::check::FindingKind::Problem)
        .expect("the cooler rating check fires");
    assert!(f.message.contains("100"), "with the number: {}", f.message);
    assert!(has(&h, &after.coverage.summary()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_tab_goal_form_then_results_then_open_this_build_in_the_build_tab() {
    use egui::accesskit::Role;
    use egui_kittest::kittest::NodeT;
    let cat = catalog();
    let model = cat.model("qwen3-0.6b").expect("the smallest model preset").clone();
    let mut h = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num7);
    h.run();
    assert_eq!(h.state().view.tab, Tab::Plan, "Ctrl+7 shows the Plan tab");
    // The goal, through the form's labelled widgets: the smallest model, one user at 10 tok/s.
    h.get_by_role_and_label(Role::ComboBox, "Model").click();
    h.run();
    h.get_by_label(&format!("{} {}", model.vendor, model.name)).click_accesskit();
    h.run();
    h.get_by_role_and_label(Role::SpinButton, "Users").set_value_accesskit(1.0);
    h.get_by_role_and_label(Role::SpinButton, "Decode tok/s per user").set_value_accesskit(10.0);
    h.run();
    let form = &h.state().view.plan.form;
    assert_eq!(form.model, model.id, "the model was chosen in the form");
    assert!((form.tok_s - 10.0).abs() < 1e-9 && form.users == 1, "the figures were typed in the form");
    // The Plan button (the tab strip's button of the same name comes first).
    let plan = h.query_all_by_label("Plan").rfind(|n| n.accesskit_node().role() == Role::Button);
    plan.expect("the Plan button").click();
    h.run();
    // The search runs on its own thread: step the window until its answer arrives.
    let mut steps = 0;
    while h.state().view.plan.outcome.is_none() {
        assert!(steps < 12_000, "the plan answered within {steps} steps");
        std::thread::sleep(std::time::Duration::from_millis(25));
        h.step();
        steps += 1;
    }
    h.run();
    let out = match h.state().view.plan.outcome.as_ref().expect("an answer") {
        Ok(o) => o.clone(),
        Err(e) => panic!("the plan failed: {e}"),
    };
    println!("plan answered after {steps} steps: {} results", out.results.len());
    assert!(!out.results.is_empty(), "at least one build meets the goal: {:?}", out.relaxations);
    assert!(has(&h, "Decode/user") && has(&h, "$/Mtok"), "the results table is drawn");
    let first = out.results[0].build.clone();
    let open = h.query_all_by_label("Open this build").next().expect("a row's button");
    // The results table is wider than the window: the button is reached by scrolling.
    open.scroll_to_me();
    h.run();
    h.query_all_by_label("Open this build").next().expect("a row's button").click();
    h.run();
    h.run();
    assert_eq!(h.state().view.tab, Tab::Build, "the Build tab shows the planned build");
    let doc = h.state().state();
    assert_eq!(doc.build, first, "the window holds the first result's build");
    assert!(doc.dirty, "unsaved: it came from the planner");
    assert_eq!(doc.report, kraftwerk::check::run(&first, &cat), "and the checker ran on it");
    let board = first.motherboard.as_deref().and_then(|id| cat.motherboard(id)).expect("the plan names a board");
    assert!(has(&h, &format!("{} {}", board.vendor, board.name)), "the Build tab draws its board");
}

/// Issue 24: the window's open uses the same loader as `check`: a build whose workload
/// precision is misspelt does not open; the located error is shown and the current build stays.
#[test]
fn opening_a_build_with_a_misspelt_precision_shows_the_located_error() {
    let cat = catalog();
    let text = std::fs::read_to_string(reference("2x-rtx-4090-x870e.rig.ron")).expect("reference build");
    let dir = temp_dir("typo");
    let bad = dir.join("typo.rig.ron");
    std::fs::write(&bad, text.replace("precision: \"q4_k_m\"", "precision: \"q4_k_mm\"")).expect("write");
    let line = text.lines().position(|l| l.contains("precision: \"q4_k_m\"")).expect("line") + 1;
    let mut h = harness(KraftwerkApp::new_for_test(cat, Build::default()));
    h.state_mut().send(Action::File(FileAction::Open(bad)));
    h.run();
    assert!(h.state().state.path.is_none(), "the misspelt build was not opened");
    assert!(has(&h, &format!("typo.rig.ron:{line}:")), "the error names file and line");
    assert!(has(&h, "workload.precision"), "and the field");
}

#[test]
fn edit_paste_parts_list_opens_the_imported_build_unsaved_and_names_what_it_left_out() {
    let mut h = harness(KraftwerkApp::new_for_test(catalog(), Build::default()));
    h.run();
    h.get_by_label("Edit").click();
    h.run();
    h.get_by_label("Paste parts list…").click();
    h.run();
    assert!(h.state().view.paste_list.is_some(), "the window is open");
    let list = "Video Card: NVIDIA GeForce RTX 3090\nVideo Card: NVIDIA GeForce RTX 3090\nCPU: EPYC 7302\nMonitor: Dell U2720Q 27.0\" Monitor  ($500.00 @ Amazon)\n";
    // The user pastes into the text box.
    if let Some(p) = &mut h.state_mut().view.paste_list {
        p.text = list.to_owned();
    }
    h.run();
    h.get_by_label("Import").click();
    h.run();
    let s = h.state();
    assert_eq!(s.state.build.gpus.len(), 2, "two GPU rows are two GPUs");
    assert_eq!(s.state.build.cpu.as_deref(), Some("amd-epyc-7302"));
    assert!(s.state.dirty, "opened unsaved");
    assert!(s.state.path.is_none());
    let notes = s.state.build.notes.clone().unwrap_or_default();
    assert!(notes.contains("Monitor") && notes.contains("$500.00"), "{notes}");
    assert!(has(&h, "NOT IMPORTED: Monitor"), "the window names the line it left out");
}

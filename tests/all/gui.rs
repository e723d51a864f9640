//! The desktop app driven with no display (egui_kittest): open a reference build, read its
//! verdict, add GPUs until the PSU finding appears, save, reopen, compare. Also: a broken file
//! keeps the current build and shows its located error; the unsaved-changes prompt; the
//! compatible-first picker; every tab draws an 8-GPU build, with frame times printed.
#![cfg(feature = "gui")]

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::catalog::{self, Catalog};
use kraftwerk::check;
use kraftwerk::rig::{self, Build, GpuPlacement, MemoryUse, PsuUse};
use kraftwerk::ui::widgets::{PickCache, PickFilter, PickTarget, pick_items};
use kraftwerk::ui::{Action, AppState, FileAction, KraftwerkApp, Tab, ViewAction};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn catalog() -> Catalog {
    catalog::builtin().expect("built-in catalog loads")
}

/// A fresh folder under the system temp dir, removed by the caller.
fn temp_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("kraftwerk-gui-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A 4x RTX 4090 Threadripper PRO build made in code (used when a reference build is missing).
fn own_build(gpus: usize) -> Build {
    let mut b = Build {
        name: "Test: RTX 4090 on WRX90".into(),
        cpu: Some("amd-threadripper-pro-7985wx".into()),
        motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
        cooler: Some("noctua-nh-u14s-tr5-sp6".into()),
        memory: Some(MemoryUse {
            kit: "kingston-server-premier-ksm48r40bd4tmm-64hmr".into(),
            kits: 8,
            speed_mt_s: None,
        }),
        psus: vec![PsuUse { psu: "seasonic-prime-tx-1600-atx31".into(), feeds_system: Some(true), circuit: 0 }],
        ..Build::default()
    };
    for i in 0..gpus {
        b.gpus.push(GpuPlacement {
            gpu: "nvidia-geforce-rtx-4090".into(),
            slot: Some(u8::try_from(1 + 2 * i).expect("small")),
            slot_name: None,
            power_limit_w: Some(300.0),
            riser: None,
            psu: 0,
            cable: None,
        });
    }
    b
}

/// The reference build file to open: `catalog/builds/<name>` if the repository has it, else a
/// copy of [`own_build`] written to `dir`.
fn reference(name: &str, dir: &Path, fallback_gpus: usize) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds").join(name);
    if p.exists() {
        return p;
    }
    let own = dir.join(format!("own-{fallback_gpus}.rig.ron"));
    rig::save(&own, &own_build(fallback_gpus)).expect("save own build");
    own
}

fn harness(app: KraftwerkApp) -> Harness<'static, KraftwerkApp> {
    Harness::builder().with_size([1440.0, 900.0]).build_ui_state(|ui, app: &mut KraftwerkApp| app.update_ui(ui), app)
}

fn has_label_containing(h: &Harness<'_, KraftwerkApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

fn doc<'a>(h: &'a Harness<'_, KraftwerkApp>) -> &'a AppState {
    h.state().state()
}

/// A reference build with GPUs and a PSU but no `psu-capacity` finding yet: the 2x RTX 4090
/// build first, else any in `catalog/builds/` (sorted), else [`own_build`].
fn reference_without_psu_finding(cat: &Catalog, dir: &Path) -> PathBuf {
    let builds = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds");
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(&builds)
        .map(|rd| {
            rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with(".rig.ron")).collect()
        })
        .unwrap_or_default();
    candidates.sort();
    candidates.sort_by_key(|p| !p.ends_with("2x-rtx-4090-x870e.rig.ron"));
    for p in candidates {
        let Ok(b) = rig::load(&p, Some(cat)) else { continue };
        let fires = check::run(&b, cat).findings.iter().any(|f| f.rule == "psu-capacity");
        if !b.gpus.is_empty() && !b.psus.is_empty() && !fires {
            return p;
        }
    }
    reference("none", dir, 1)
}

#[test]
fn open_reference_add_gpus_until_psu_finding_save_reopen() {
    let dir = temp_dir("flow");
    let cat = catalog();
    let path = reference_without_psu_finding(&cat, &dir);
    println!("reference build: {}", path.display());
    let expected = rig::load(&path, Some(&cat)).expect("reference build loads");

    // Open it as File → Open would, read the verdict from the status bar.
    let mut h = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
    h.state_mut().send(Action::File(FileAction::Open(path.clone())));
    h.run();
    assert_eq!(doc(&h).build, expected, "the window holds the file's build");
    let cli_verdict = check::run(&expected, &cat).verdict.to_string();
    assert!(
        h.query_all_by_label(&cli_verdict).next().is_some(),
        "status bar shows the same verdict as `kraftwerk check`: {cli_verdict}"
    );

    // Checks tab, then add GPUs until the PSU finding shows.
    h.get_by_label_contains("Checks (").click();
    h.run();
    let mut added = 0;
    while !has_label_containing(&h, "[psu-capacity]") {
        assert!(added < 12, "no psu-capacity finding after adding {added} GPUs");
        let before = doc(&h).build.gpus.len();
        h.get_by_label("Add GPU").click();
        h.run();
        assert_eq!(doc(&h).build.gpus.len(), before + 1, "Add GPU adds one GPU");
        added += 1;
    }
    assert!(added > 0, "the reference build had no PSU finding before");
    assert!(doc(&h).report.findings.iter().any(|f| f.rule == "psu-capacity"));
    assert!(doc(&h).dirty, "adding GPUs marks the build unsaved");
    // The window's report is the checker's, finding for finding.
    assert_eq!(doc(&h).report, check::run(&doc(&h).build, &cat));

    // Save As to a temp file, then Ctrl+S to the same file.
    let saved = dir.join("saved.rig.ron");
    h.state_mut().send(Action::File(FileAction::SaveAs(saved.clone())));
    h.run();
    assert!(saved.exists(), "saved");
    assert!(!doc(&h).dirty, "saving clears the unsaved mark");
    assert_eq!(doc(&h).path.as_deref(), Some(saved.as_path()));
    h.get_by_label("Add GPU").click();
    h.run();
    assert!(doc(&h).dirty);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run();
    assert!(!doc(&h).dirty, "Ctrl+S saves to the current file");
    let edited = doc(&h).build.clone();
    let report = doc(&h).report.clone();

    // Reopen in a fresh window and compare.
    let mut h2 = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
    h2.state_mut().send(Action::File(FileAction::Open(saved.clone())));
    h2.run();
    assert_eq!(doc(&h2).build, edited, "the reopened build equals the saved one");
    assert_eq!(doc(&h2).report, report, "and checks the same");
    assert!(h2.query_all_by_label(&report.verdict.to_string()).next().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_file_shows_its_located_error_and_keeps_the_build() {
    let dir = temp_dir("broken");
    let cat = catalog();
    let mut h = harness(KraftwerkApp::new_for_test(cat, own_build(2)));
    h.run();
    let before = doc(&h).build.clone();
    let broken = dir.join("broken.rig.ron");
    std::fs::write(&broken, "(\n    format: 1,\n    name: \"broken\",\n    gpus: [(gpu: 42)],\n)\n").expect("write");
    h.state_mut().send(Action::File(FileAction::Open(broken.clone())));
    h.run();
    assert_eq!(doc(&h).build, before, "nothing is lost");
    let shown = format!("{}:4:", broken.display());
    assert!(has_label_containing(&h, &shown), "the window shows the error at file:line:column ({shown})");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unsaved_changes_prompt_before_new() {
    let mut h = harness(KraftwerkApp::new_for_test(catalog(), own_build(1)));
    h.run();
    h.get_by_label("Add GPU").click();
    h.run();
    assert!(doc(&h).dirty);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N);
    h.run();
    assert!(h.state().pending().is_some(), "Ctrl+N asks first");
    h.get_by_label("Cancel").click();
    h.run();
    assert_eq!(doc(&h).build.gpus.len(), 2, "Cancel keeps the build");
    h.state_mut().send(Action::File(FileAction::New));
    h.run();
    h.get_by_label("Don't save").click();
    h.run();
    assert_eq!(doc(&h).build, Build::default(), "Don't save starts a new build");
}

#[test]
fn picker_lists_parts_of_the_cpus_socket_first() {
    let app = KraftwerkApp::new_for_test(catalog(), own_build(2));
    let items = pick_items(app.state(), PickTarget::Motherboard);
    let first_conflict = items.iter().position(|i| i.problem.is_some()).unwrap_or(items.len());
    assert!(first_conflict > 0, "some board fits an sTR5 CPU");
    assert!(items[..first_conflict].iter().any(|i| i.id == "asus-pro-ws-wrx90e-sage-se"));
    assert!(items[first_conflict..].iter().all(|i| i.problem.is_some()), "conflicting boards come last");
    let am5 = items.iter().find(|i| i.id == "asus-proart-x870e-creator-wifi").expect("AM5 board in catalog");
    assert!(am5.problem.is_some(), "an AM5 board conflicts with a Threadripper");
}

#[test]
fn every_tab_draws_an_8_gpu_build() {
    let dir = temp_dir("tabs");
    let cat = catalog();
    let path = reference("8x-l40s-4u-server.rig.ron", &dir, 8);
    let b = rig::load(&path, Some(&cat)).expect("loads");
    assert!(b.gpus.len() >= 8 || path.starts_with(&dir), "an 8-GPU build");
    let mut h = harness(KraftwerkApp::new_for_test(cat, b));
    for tab in Tab::ALL {
        h.state_mut().send(Action::View(ViewAction::SelectTab(tab)));
        h.run();
        assert_eq!(h.state().view.tab, tab);
        // Time frames of this tab (headless: layout, drawing and the accessibility tree).
        let n = 30;
        let t0 = Instant::now();
        for _ in 0..n {
            h.step();
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3 / f64::from(n);
        println!("headless frame, 8-GPU build, {} tab: {ms:.2} ms", tab.title());
        assert!(ms < 250.0, "{} tab takes {ms:.1} ms a frame", tab.title());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_custom_part_defined_in_the_catalog_tab_is_stored_inline() {
    let mut h = harness(KraftwerkApp::new_for_test(catalog(), own_build(1)));
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Catalog)));
    h.run();
    h.get_by_label("Define a custom part…").click();
    h.run();
    h.get_by_label("Add to build").click();
    h.run();
    let parts = &doc(&h).build.parts;
    assert_eq!(parts.gpus.len(), 1, "one custom GPU stored inline");
    assert!(parts.gpus[0].id.starts_with("custom-"), "{}", parts.gpus[0].id);
    assert!(has_label_containing(&h, &parts.gpus[0].name), "the table lists it");
}

#[test]
fn opening_and_viewing_a_build_changes_nothing() {
    let cat = catalog();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with(".rig.ron")).collect()
        })
        .unwrap_or_default();
    paths.sort();
    for path in paths {
        let Ok(expected) = rig::load(&path, Some(&cat)) else { continue };
        let mut h = harness(KraftwerkApp::new_for_test(cat.clone(), Build::default()));
        h.state_mut().send(Action::File(FileAction::Open(path.clone())));
        h.run();
        for tab in Tab::ALL {
            h.state_mut().send(Action::View(ViewAction::SelectTab(tab)));
            h.run();
            assert_eq!(doc(&h).build, expected, "{} changed on the {} tab", path.display(), tab.title());
            assert!(!doc(&h).dirty, "{} marked unsaved on the {} tab", path.display(), tab.title());
        }
    }
}

/// Opens the picker named `label` and clicks the entry whose text contains `item`.
fn pick(h: &mut Harness<'_, KraftwerkApp>, label: &str, item: &str) {
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, label).scroll_to_me();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, label).click();
    h.run();
    // Type into the picker's search box (focused on open): with thousands of imported parts
    // the wanted one is not in the first screenful.
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, label).type_text(item.trim());
    h.run();
    h.run();
    // Chips and partner cards both match a model name: the best-ranked (first) entry is the
    // chip's reference design.
    h.query_all_by_label_contains(item).next().expect("a matching entry").click();
    h.run();
}

#[test]
fn plan_a_4x_rtx_4090_rig_from_scratch_with_the_pickers() {
    let mut h = harness(KraftwerkApp::new_for_test(catalog(), Build::default()));
    h.run();
    pick(&mut h, "CPU", "Threadripper PRO 7985WX");
    pick(&mut h, "Motherboard", "WRX90E-SAGE SE");
    pick(&mut h, "Add GPU", "GeForce RTX 4090 ");
    for _ in 0..3 {
        h.get_by_label("Add GPU").click();
        h.run();
    }
    pick(&mut h, "Add PSU", "PRIME TX-1600 ATX 3.1");
    let b = &doc(&h).build;
    assert_eq!(b.cpu.as_deref(), Some("amd-threadripper-pro-7985wx"));
    assert_eq!(b.motherboard.as_deref(), Some("asus-pro-ws-wrx90e-sage-se"));
    assert_eq!(b.gpus.len(), 4);
    assert!(b.gpus.iter().all(|g| g.gpu == "nvidia-geforce-rtx-4090"));
    assert_eq!(b.psus.len(), 1);
    // Four 450 W cards on one 1600 W PSU: the checker says so, and the window shows it.
    assert!(doc(&h).report.findings.iter().any(|f| f.rule == "psu-capacity"));
    h.get_by_label_contains("Checks (").click();
    h.run();
    assert!(has_label_containing(&h, "[psu-capacity]"));
}

/// Typing a query into the PSU picker over the real catalog (thousands of imported PSUs) puts
/// the asked-for part first, both through the cache the picker uses and in the window.
#[test]
fn psu_picker_search_over_the_real_catalog_ranks_the_asked_part_first() {
    let cat = catalog();
    assert!(cat.psus.len() > 1000, "the imported PSUs are in the catalog ({})", cat.psus.len());
    let app = KraftwerkApp::new_for_test(cat, own_build(2));
    let mut cache = PickCache::default();
    let t0 = Instant::now();
    let all = cache.ranked(app.state(), PickTarget::NewPsu, "", &PickFilter::default());
    let open_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let hits = cache.ranked(app.state(), PickTarget::NewPsu, "prime tx-1600 atx 3.1", &PickFilter::default());
    let query_ms = t1.elapsed().as_secs_f64() * 1e3;
    println!("PSU picker over {} PSUs: open {open_ms:.1} ms, query {query_ms:.1} ms", all.len());
    let first = &cache.list(app.state(), PickTarget::NewPsu).items[hits[0]];
    assert_eq!(first.name, "Seasonic PRIME TX-1600 ATX 3.1 (SSR-1600TR2)");
    // A wattage filter hides what is below it, and never shows a PSU of unknown output.
    let strong = PickFilter { min_power_w: Some(1600.0), ..PickFilter::default() };
    let big = cache.ranked(app.state(), PickTarget::NewPsu, "", &strong);
    assert!(!big.is_empty() && big.len() < all.len());
    let list = cache.list(app.state(), PickTarget::NewPsu);
    assert!(big.iter().all(|&i| list.facets[i].power_w.is_some_and(|w| w >= 1600.0)));

    let psus_before = app.state().build.psus.len();
    let mut h = harness(app);
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Add PSU").scroll_to_me();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Add PSU").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Add PSU").type_text("prime tx-1600 atx 3.1");
    h.run();
    h.run();
    h.get_by_label_contains("PRIME TX-1600 ATX 3.1").click();
    h.run();
    let psus = &doc(&h).build.psus;
    assert_eq!(psus.len(), psus_before + 1, "one PSU added");
    assert_eq!(psus.last().map(|p| p.psu.as_str()), Some("seasonic-prime-tx-1600-atx31"));
}

/// The GPU picker lists partner cards as well as chips.
#[test]
fn gpu_picker_lists_cards_and_chips_and_filters_by_length() {
    let cat = catalog();
    let app = KraftwerkApp::new_for_test(cat, own_build(1));
    let mut cache = PickCache::default();
    let all = cache.ranked(app.state(), PickTarget::NewGpu, "", &PickFilter::default());
    let list = cache.list(app.state(), PickTarget::NewGpu);
    assert!(list.items.iter().any(|i| i.id == "nvidia-geforce-rtx-4090"), "a chip");
    let n_chips = app.state().catalog.gpus.len();
    assert!(all.len() > n_chips + 100, "cards are listed too ({} rows, {n_chips} chips)", all.len());
    let short = PickFilter { max_length_mm: Some(300.0), max_width_slots: Some(2), ..PickFilter::default() };
    let hits = cache.ranked(app.state(), PickTarget::NewGpu, "4090", &short);
    let list = cache.list(app.state(), PickTarget::NewGpu);
    assert!(
        hits.iter().all(|&i| list.facets[i].length_mm.is_some_and(|l| l <= 300.0)
            && list.facets[i].width_slots.is_some_and(|w| w <= 2)),
        "the filters hold"
    );
}

/// Issue 28, item 7: the Fit tab says what its memory and speed figures rest on (the held
/// measurements, the ± band) and the command that measures them, at 1280 px.
#[test]
fn the_fit_tab_shows_the_basis_of_its_figures() {
    let dir = temp_dir("basis");
    let cat = catalog();
    let path = reference("h200-sxm-1gpu.rig.ron", &dir, 1);
    let b = rig::load(&path, Some(&cat)).expect("loads");
    let mut h = Harness::builder()
        .with_size([1280.0, 900.0])
        .build_ui_state(|ui, app: &mut KraftwerkApp| app.update_ui(ui), KraftwerkApp::new_for_test(cat, b));
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Fit)));
    h.run();
    assert!(has_label_containing(&h, "Basis: what these figures rest on"));
    assert!(has_label_containing(&h, "Memory ("));
    assert!(has_label_containing(&h, "Speed ("));
    assert!(has_label_containing(&h, "within ±25 %"));
    assert!(has_label_containing(&h, "Measure it: "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 42: a published power cut (a 490 W unit carrying about 695 W at full load, inference
/// workload) reads FAIL in the status bar and shows the same psu-capacity error on the Power
/// tab as `kraftwerk check`, with the power limit and its command.
#[test]
fn the_power_tab_and_status_bar_show_checks_power_error() {
    let cat = catalog();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/power-reports/cut-p510-490w-3070ti-3060-ollama.rig.ron");
    let b = rig::load(&path, Some(&cat)).expect("loads");
    let report = check::run(&b, &cat);
    let cli = check::power_findings(&report);
    assert!(cli.iter().any(|f| f.rule == "psu-capacity" && f.severity == check::Severity::Error));
    let mut h = harness(KraftwerkApp::new_for_test(cat, b));
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Power)));
    h.run();
    assert_eq!(doc(&h).report.verdict, check::Verdict::Fail);
    assert!(has_label_containing(&h, "FAIL"), "the status bar's verdict");
    assert!(has_label_containing(&h, "Power verdict"));
    for f in &cli {
        assert!(has_label_containing(&h, &f.message), "the Power tab shows `{}`", f.message);
        assert!(has_label_containing(&h, &format!("fix: {}", f.fix)));
    }
    assert!(has_label_containing(&h, "`sudo nvidia-smi -pl 125`"));
}

/// The Fit tab's "what would fit" lines are `kraftwerk fit`'s own ([`report::fit::alternatives`]):
/// Llama 3.1 70B at FP16 on two 24 GB cards does not fit, and every alternative the CLI names
/// (with its llama.cpp arguments and decode) is on the tab word for word.
#[test]
fn the_fit_tab_names_the_same_alternatives_as_the_cli() {
    let cat = catalog();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/2x-rtx-3090-64gib.rig.ron");
    let mut b = rig::load(&path, Some(&cat)).expect("loads");
    if let Some(w) = b.workload.as_mut() {
        w.precision = "fp16".parse().expect("a precision");
    }
    let fit =
        kraftwerk::estimate::fit::for_build(&b, &cat, &kraftwerk::estimate::fit::FitOptions::default()).expect("a fit");
    let alt = fit.alternatives.as_ref().expect("70B at FP16 does not fit 48 GB: alternatives");
    let mut cli = String::new();
    kraftwerk::report::fit::alternatives(&mut cli, alt, &fit.fit, fit.placement.as_ref());
    let lines: Vec<&str> = cli.lines().skip(1).map(|l| l.trim_start().trim_start_matches("- ")).collect();
    assert!(lines.len() >= 2, "the CLI names alternatives: {cli}");
    let mut h = harness(KraftwerkApp::new_for_test(cat, b));
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Fit)));
    h.run();
    assert!(has_label_containing(&h, "Does not fit. What would:"));
    for l in lines {
        assert!(has_label_containing(&h, &format!("• {l}")), "the Fit tab shows `{l}`");
    }
}

/// Issues 35 and 39: the Fit tab says of a build that runs its MoE model only with the experts
/// in system RAM what `kraftwerk fit` says: the verdict, each GPU's memory under the split
/// ([`kraftwerk::report::fit::gpu_lines`], the all-on-GPU figure labelled as such), and the
/// split's own lines, never "Does not fit. What would:".
#[test]
fn the_fit_tab_says_what_fit_says_of_an_experts_in_ram_build() {
    let cat = catalog();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron");
    let b = rig::load(&path, Some(&cat)).expect("loads");
    let fit =
        kraftwerk::estimate::fit::for_build(&b, &cat, &kraftwerk::estimate::fit::FitOptions::default()).expect("a fit");
    let split = fit.fits_with_experts_in_ram.as_ref().expect("runs with its experts in RAM");
    let lines = kraftwerk::report::fit::gpu_lines(&fit.fit, Some(split));
    assert!(lines.len() >= 2, "{lines:?}");
    let mut h = harness(KraftwerkApp::new_for_test(cat, b));
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Fit)));
    h.run();
    assert!(has_label_containing(&h, "fits with experts in system RAM"));
    assert!(!has_label_containing(&h, "Does not fit. What would:"));
    for l in &lines {
        assert!(has_label_containing(&h, l), "the Fit tab shows `{l}`");
    }
}

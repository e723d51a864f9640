//! The Live tab driven with no display (egui_kittest), on a machine without an NVIDIA driver
//! (the NVML state is given, so the test is the same on a GPU machine): the tab says so, shows
//! the bundled demo recording clearly labelled as not this machine, with a card per GPU; the
//! demo links report shows the P2P matrix and the all-reduce table; validation against the open
//! build draws its table; an opened recording (a real H200 session, and planted faults from
//! `tests/fixtures/faults/`) is validated against the open build with its grades and reasons;
//! a probe (CPU backend here) starts and is cancelled within a second.
#![cfg(feature = "gui")]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::catalog::{self, Catalog};
use kraftwerk::live::nvml::NvmlState;
use kraftwerk::rig::{self, Build};
use kraftwerk::ui::{Action, KraftwerkApp, Tab, ViewAction};
use std::path::Path;
use std::time::{Duration, Instant};

fn catalog() -> Catalog {
    catalog::builtin().expect("built-in catalog loads")
}

/// The H200 reference build (an empty build if the repository lacks it).
fn h200_build(cat: &Catalog) -> Build {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron");
    rig::load(&p, Some(cat)).unwrap_or_default()
}

/// The app on the Live tab, with NVML answering "no driver".
fn live_app() -> Harness<'static, KraftwerkApp> {
    let cat = catalog();
    let b = h200_build(&cat);
    let mut app = KraftwerkApp::new_for_test(cat, b);
    app.live.start(NvmlState::NoDriver("libnvidia-ml.so.1: cannot open shared object file (test)".into()), None);
    app.send(Action::View(ViewAction::SelectTab(Tab::Live)));
    let mut h = Harness::builder()
        .with_size([1440.0, 900.0])
        .build_ui_state(|ui, app: &mut KraftwerkApp| app.update_ui(ui), app);
    h.run_steps(3);
    h
}

fn has(h: &Harness<'_, KraftwerkApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

#[test]
fn no_driver_shows_the_demo_recording_labelled() {
    let h = live_app();
    assert_eq!(h.state().view.tab, Tab::Live);
    assert!(has(&h, "no NVIDIA driver found"), "the no-driver state is said");
    assert!(has(&h, "Open recording…"), "a recording can be opened");
    assert!(
        has(&h, "Recording: demo-h200-2gpu.kwrec.json, recorded 2026-11-29"),
        "the demo recording is named with its date"
    );
    assert!(has(&h, "not this machine"), "and labelled as not this machine");
    assert!(has(&h, "NVIDIA H200"), "a GPU card of the H200");
    assert!(has(&h, "GPU 0 · NVIDIA H200") && has(&h, "GPU 1 · NVIDIA H200"), "one card per GPU");
    assert!(has(&h, "Time series"), "the plots section");
    assert!(has(&h, "NV18"), "the topology matrix shows the NVLink pair");
    assert!(h.state().live.history.len(0) > 10, "the recording's samples are in the history");
}

#[test]
fn demo_links_report_and_validation_draw() {
    let mut h = live_app();
    h.get_by_label("Show demo links report (2× H200)").click_accesskit();
    h.run_steps(3);
    assert!(has(&h, "P2P one-way (GB/s)"), "P2P matrix");
    assert!(has(&h, "All-reduce (NCCL, busbw)"), "all-reduce table");
    assert!(has(&h, "busbw GB/s"));
    assert!(has(&h, "links report demo-links-2xh200.json"), "the report is labelled as a file");

    // The demo recording is shown: validation grades it (not this machine) against the build.
    h.get_by_label("Validate against this build").click_accesskit();
    h.run_steps(3);
    let v = h.state().live.validation.as_ref().expect("validation ran");
    assert!(!v.checks.is_empty());
    assert_eq!(v.source, "recording demo-h200-2gpu.kwrec.json");
    assert!(has(&h, "Validation against"), "validation table drawn");
}

#[test]
fn probe_starts_and_cancels_quickly() {
    let mut h = live_app();
    h.get_by_label("Run probe").click_accesskit();
    h.run_steps(2);
    assert!(h.state().live.probe.is_some(), "the probe thread runs");
    h.get_by_label("Cancel").click_accesskit();
    let cancelled = Instant::now();
    h.step();
    while h.state().live.probe.is_some() && cancelled.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    let waited = cancelled.elapsed();
    let r = h.state().live.probe_report.as_ref().expect("a report after cancel");
    assert!(r.cancelled || waited < Duration::from_secs(1), "cancelled, or it had already finished");
    assert!(waited < Duration::from_secs(2), "cancel took {waited:?}");
    h.run_steps(2);
    assert!(has(&h, "backend"), "results header drawn");
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// Opens the recording at `path` through "Open recording…" and the in-app path field.
fn open_recording(h: &mut Harness<'_, KraftwerkApp>, path: &Path) {
    h.query_all_by_label("Open recording…").next().expect("Open recording…").click_accesskit();
    h.run_steps(2);
    assert!(h.state().view.path_prompt.is_some(), "the path field is shown (no native dialog in tests)");
    if let Some(p) = h.state_mut().view.path_prompt.as_mut() {
        p.text = path.display().to_string();
    }
    h.run();
    h.get_by_label("OK").click_accesskit();
    h.run_steps(3);
}

/// Opens `recording` and presses "Validate against this build"; returns the validation.
fn validate_recording(h: &mut Harness<'_, KraftwerkApp>, recording: &Path) -> kraftwerk::live::validate::Validation {
    let name = recording.file_name().and_then(|n| n.to_str()).expect("name").to_owned();
    open_recording(h, recording);
    assert!(has(h, &format!("Recording: {name}")), "the recording is shown and named");
    assert!(h.state().live.validation.is_none(), "no stale validation of what was shown before");
    h.get_by_label("Validate against this build").click_accesskit();
    h.run_steps(3);
    let v = h.state().live.validation.clone().expect("validation ran");
    assert_eq!(v.source, format!("recording {name}"), "the recording was validated, not the live GPUs");
    // The same function as `kraftwerk validate BUILD --from FILE`.
    let rec = kraftwerk::live::record::Recording::load(recording).expect("recording");
    let obs = kraftwerk::live::validate::Observed::from_recording(&rec, &name).expect("sections");
    let doc = h.state().state();
    assert_eq!(v, kraftwerk::live::validate::validate_observed(&doc.build, &doc.catalog, &obs));
    assert!(has(h, &format!("Validation against {}", doc.build.name)), "the table is drawn");
    v
}

#[test]
fn a_recording_is_validated_against_the_open_build_and_passes() {
    use kraftwerk::live::grading::Grade;
    let mut h = live_app();
    assert!(!h.state().state().build.gpus.is_empty(), "the H200 build is open");
    let v = validate_recording(&mut h, &fixture("h200-validate-record.kwrec.json"));
    assert_eq!(v.overall, Grade::Pass, "{:#?}", v.checks);
    assert!(v.checks.iter().all(|c| matches!(c.grade, Grade::Pass | Grade::Info)), "{:#?}", v.checks);
    for check in ["gpu-count", "gpu-model", "pcie-link-live", "power-limit"] {
        let c = v.checks.iter().find(|c| c.check == check).unwrap_or_else(|| panic!("no {check}: {:#?}", v.checks));
        assert_eq!(c.grade, Grade::Pass, "{check}: {}", c.reason);
        assert!(has(&h, &kraftwerk::ui::tabs::live::plain(&c.reason)), "{check}'s reason is shown: {}", c.reason);
    }
    assert!(v.checks.iter().any(|c| c.check.starts_with("gemm-")), "the recorded probe was graded too");
    let passes = h.query_all_by_label("pass").count();
    let graded = v.checks.iter().filter(|c| c.grade == Grade::Pass).count();
    assert!(passes > graded, "a pass badge per passing check and the overall one: {passes} for {graded}");
    assert_eq!(h.query_all_by_label("fail").count(), 0, "no fail shown");
}

#[test]
fn a_planted_fault_recording_shows_its_fail_with_the_reason() {
    use kraftwerk::live::grading::Grade;
    let mut h = live_app();
    let v = validate_recording(&mut h, &fixture("faults/pcie-gen2-under-load.kwrec.json"));
    assert_eq!(v.overall, Grade::Fail);
    let c = v.checks.iter().find(|c| c.check == "pcie-link-live").expect("the link check");
    assert_eq!(c.grade, Grade::Fail, "{}", c.reason);
    assert!(c.reason.contains("Gen2 x16") || c.measured.contains("Gen2 x16"), "names the link: {c:?}");
    assert!(has(&h, &kraftwerk::ui::tabs::live::plain(&c.reason)), "the reason is shown: {}", c.reason);
    assert!(h.query_all_by_label("fail").count() >= 2, "the check's fail badge and the overall one");
}

#[test]
fn a_truncated_recording_is_a_clear_error_in_the_tab() {
    let mut h = live_app();
    open_recording(&mut h, &fixture("faults/truncated.kwrec.json"));
    let errors = h.state().live.errors.join("\n");
    assert!(errors.contains("truncated.kwrec.json"), "the error names the file: {errors}");
    assert!(has(&h, "Could not open recording"), "and is shown: {errors}");
}

//! The Live tab driven with no display (egui_kittest), on a machine without an NVIDIA driver
//! (the NVML state is given, so the test is the same on a GPU machine): the tab says so, shows
//! the bundled demo recording clearly labelled as not this machine, with a card per GPU; the
//! demo links report shows the P2P matrix and the all-reduce table; validation against the open
//! build draws its table; a probe (CPU backend here) starts and is cancelled within a second.
#![cfg(feature = "gui")]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::build::{self, Build};
use kraftwerk::catalog::{self, Catalog};
use kraftwerk::live::nvml::NvmlState;
use kraftwerk::ui::{Action, KraftwerkApp, Tab};
use std::path::Path;
use std::time::{Duration, Instant};

fn catalog() -> Catalog {
    catalog::builtin().expect("built-in catalog loads")
}

/// The H200 reference build (an empty build if the repository lacks it).
fn h200_build(cat: &Catalog) -> Build {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron");
    build::load(&p, Some(cat)).unwrap_or_default()
}

/// The app on the Live tab, with NVML answering "no driver".
fn live_app() -> Harness<'static, KraftwerkApp> {
    let cat = catalog();
    let b = h200_build(&cat);
    let mut app = KraftwerkApp::new_for_test(cat, b);
    app.live.start(NvmlState::NoDriver("libnvidia-ml.so.1: cannot open shared object file (test)".into()), None);
    app.send(Action::SelectTab(Tab::Live));
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

    h.get_by_label("Validate against the open build").click_accesskit();
    h.run_steps(3);
    let v = h.state().live.validation.as_ref().expect("validation ran");
    assert!(!v.checks.is_empty());
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

//! The window at a 1280x800 screen (issue 39, item 4): every tab's content stays inside the
//! window (a panel that grows past its space is recorded by `kraftwerk::ui::overflow`), and the
//! finding counts agree between the status bar, the Checks tab's title and its sections.
#![cfg(feature = "gui")]

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use kraftwerk::catalog;
use kraftwerk::check::{self, FindingKind, Severity};
use kraftwerk::rig::{self, Build};
use kraftwerk::ui::{Action, KraftwerkApp, Tab, ViewAction};
use std::path::Path;

/// A reference build a user opens: four blower RTX 3090s on a WRX80 board, one 1600 W PSU.
fn puget() -> (catalog::Catalog, Build) {
    let cat = catalog::builtin().expect("built-in catalog loads");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron");
    let b = rig::load(&path, Some(&cat)).expect("reference build loads");
    (cat, b)
}

/// The common dual-4090 desktop: two Founders Edition cards on an X870E board; its checks
/// give a note (system RAM under twice the VRAM) besides warnings.
fn x870e() -> (catalog::Catalog, Build) {
    let cat = catalog::builtin().expect("built-in catalog loads");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/2x-rtx-4090-x870e.rig.ron");
    let b = rig::load(&path, Some(&cat)).expect("reference build loads");
    (cat, b)
}

fn harness_at(app: KraftwerkApp, w: f32, h: f32) -> Harness<'static, KraftwerkApp> {
    Harness::builder().with_size([w, h]).build_ui_state(|ui, app: &mut KraftwerkApp| app.update_ui(ui), app)
}

/// The overflows of every tab, `(tab, overflow)`.
fn overflows_of_every_tab(h: &mut Harness<'_, KraftwerkApp>) -> Vec<(Tab, kraftwerk::ui::overflow::Overflow)> {
    let mut found = Vec::new();
    for tab in Tab::ALL {
        h.state_mut().send(Action::View(ViewAction::SelectTab(tab)));
        h.run();
        // A few more frames: tables measure their columns on the frame before.
        h.run_steps(3);
        found.extend(kraftwerk::ui::overflow::found(&h.ctx).into_iter().map(|o| (tab, o)));
    }
    found
}

#[test]
fn every_tab_fits_a_1280x800_window() {
    let (cat, b) = puget();
    for (w, h_) in [(1280.0, 800.0), (1920.0, 1080.0)] {
        let mut h = harness_at(KraftwerkApp::new_for_test(cat.clone(), b.clone()), w, h_);
        let found = overflows_of_every_tab(&mut h);
        assert!(found.is_empty(), "content past the window at {w}x{h_}: {found:#?}");
    }
}

/// The numbers in "`N` errors · `N` warnings · `N` notes" in a label of the window.
fn counts_in(h: &Harness<'_, KraftwerkApp>) -> Vec<(usize, usize, usize)> {
    let mut v = Vec::new();
    for node in h.query_all_by_label_contains(" warning") {
        let Some(text) = text_of(&node) else { continue };
        let nums: Vec<usize> =
            text.split(" · ").filter_map(|part| part.split_whitespace().next().and_then(|n| n.parse().ok())).collect();
        if nums.len() == 3 && text.contains("error") && text.contains("note") {
            v.push((nums[0], nums[1], nums[2]));
        }
    }
    v
}

/// A node's text (AccessKit keeps a label's text in its value).
fn text_of(n: &egui_kittest::Node<'_>) -> Option<String> {
    let a = n.accesskit_node();
    a.value().or_else(|| a.label())
}

/// The number in `Title (N)` of the first label that starts with `Title (`.
fn count_of(h: &Harness<'_, KraftwerkApp>, title: &str) -> Option<usize> {
    let prefix = format!("{title} (");
    h.query_all_by_label_contains(&prefix).find_map(|n| {
        let t = text_of(&n)?;
        let rest = t.strip_prefix(&prefix)?;
        rest.split(')').next()?.parse().ok()
    })
}

#[test]
fn the_status_bar_the_tab_title_and_the_checks_sections_agree() {
    for (cat, build) in [puget(), x870e()] {
        status_bar_and_checks_agree(cat, build);
    }
}

/// The status bar's counts, the Checks tab's title and its sections' counts are `check`'s.
fn status_bar_and_checks_agree(cat: catalog::Catalog, build: Build) {
    let report = check::run(&build, &cat);
    let problems =
        |s: Severity| report.findings.iter().filter(|f| f.kind == FindingKind::Problem && f.severity == s).count();
    let not_checked = report.findings.iter().filter(|f| f.kind == FindingKind::NotChecked).count();
    assert!(not_checked > 0, "the reference build has not-checked notes (the case that disagreed)");
    let mut h = harness_at(KraftwerkApp::new_for_test(cat, build), 1280.0, 800.0);
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Checks)));
    h.run();
    let (errors, warnings, notes) = (problems(Severity::Error), problems(Severity::Warning), problems(Severity::Info));
    // The status bar and the Checks tab's header both say it, with the same numbers.
    let shown = counts_in(&h);
    assert_eq!(shown.len(), 2, "the status bar and the Checks tab's header: {shown:?}");
    assert!(shown.iter().all(|c| *c == (errors, warnings, notes)), "{shown:?} vs {:?}", (errors, warnings, notes));
    // The tab's title counts the same problems.
    assert_eq!(count_of(&h, "Checks"), Some(errors + warnings + notes));
    // Each section lists what the counts say; the not-checked notes are a section of their own.
    for (title, want) in [("Errors", errors), ("Warnings", warnings), ("Notes", notes), ("Not checked", not_checked)] {
        assert_eq!(count_of(&h, title).unwrap_or(0), want, "the {title} section of {}", h.state().state().build.name);
    }
}

/// The Parts tab at 1280x800 and 1920x1080 (issue 39): every column, the last (source and
/// origin) included, ends inside the window, so nothing is behind a horizontal scroll bar; long
/// names wrap and long origins are cut with the whole text on hover.
#[test]
fn the_parts_table_fits_the_window_without_scrolling_sideways() {
    for (cat, build) in [puget(), x870e()] {
        for (w, h_) in [(1280.0, 800.0), (1920.0, 1080.0)] {
            let mut h = harness_at(KraftwerkApp::new_for_test(cat.clone(), build.clone()), w, h_);
            h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Parts)));
            h.run();
            h.run_steps(3);
            // The central panel's inner margin: the table's right edge, less its scroll bar.
            let right = w - 8.0;
            let header = h.get_by_label("Source · origin").rect();
            assert!(header.max.x <= right, "the last column's header ends at {} of {w}", header.max.x);
            let cells: Vec<egui::Rect> = h
                .query_all_by_label("source")
                .chain(h.query_all_by_label_contains("catalog/"))
                .chain(h.query_all_by_label_contains("at least $"))
                .map(|n| n.rect())
                .collect();
            assert!(cells.len() >= 8, "source links and origins drawn: {}", cells.len());
            for r in cells {
                assert!(r.max.x <= right + 0.5, "a cell ends at {} past {right} at {w}x{h_}", r.max.x);
            }
        }
    }
}

/// The status bar's circuit figure is the load `check` judged for the workload (inference), and
/// is red only when a wall-circuit error names the circuit: the Puget build's circuit is within
/// its continuous limit at inference load, and its only wall-circuit finding is the full-load
/// warning (over the continuous limit at full load, as `kraftwerk power`'s advice says).
#[test]
fn the_status_bar_circuit_is_the_checked_load() {
    let (cat, b) = puget();
    let report = check::run(&b, &cat);
    let wall: Vec<_> = report.findings.iter().filter(|f| f.rule == "wall-circuit").collect();
    assert!(
        !wall.is_empty() && wall.iter().all(|f| f.severity == Severity::Warning && f.message.contains("at full load")),
        "only the full-load warning: {:?}",
        wall.iter().map(|f| &f.message).collect::<Vec<_>>()
    );
    let c = &report.power.circuits[0];
    let mut h = harness_at(KraftwerkApp::new_for_test(cat, b), 1280.0, 800.0);
    h.run();
    let want = format!("circuit 1: {:.1} A inference", c.amps.expect("known"));
    assert!(h.query_all_by_label(&want).next().is_some(), "the status bar shows `{want}`");
}

/// The tick labels of a plot's y axis (`20 GiB`, `1000 W`, `90 %`, `$4k`) in the frame last
/// drawn: `(text, painted rect, clip rect)`.
fn axis_labels(h: &Harness<'_, KraftwerkApp>) -> Vec<(String, egui::Rect, egui::Rect)> {
    fn is_tick(t: &str) -> bool {
        let num = t
            .strip_suffix(" GiB")
            .or_else(|| t.strip_suffix(" W"))
            .or_else(|| t.strip_suffix(" %"))
            .or_else(|| t.strip_prefix('$').and_then(|r| r.strip_suffix('k')));
        num.is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '-'))
    }
    fn walk(shape: &egui::Shape, clip: egui::Rect, out: &mut Vec<(String, egui::Rect, egui::Rect)>) {
        match shape {
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, clip, out)),
            egui::Shape::Text(t) if is_tick(t.galley.text()) => {
                out.push((t.galley.text().to_owned(), t.galley.rect.translate(t.pos.to_vec2()), clip));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for c in &h.output().shapes {
        walk(&c.shape, c.clip_rect, &mut out);
    }
    out
}

/// A chart's y-axis labels are whole on the first frame it is drawn (issue 39: the 1920x1080
/// Fit screenshot showed "GiB" without its number on both memory charts: egui_plot sized the
/// axis from the frame before, and nothing repainted the window after the tab opened).
#[test]
fn chart_axis_labels_are_whole_on_the_first_frame() {
    let (cat, b) = puget();
    for (w, h_) in [(1280.0, 800.0), (1920.0, 1080.0)] {
        for tab in [Tab::Power, Tab::Fit] {
            let mut h = harness_at(KraftwerkApp::new_for_test(cat.clone(), b.clone()), w, h_);
            h.run();
            h.state_mut().send(Action::View(ViewAction::SelectTab(tab)));
            // The first frame that draws the tab's charts.
            let mut labels = Vec::new();
            for _ in 0..3 {
                h.step();
                labels = axis_labels(&h);
                if !labels.is_empty() {
                    break;
                }
            }
            assert!(!labels.is_empty(), "{tab:?} at {w}x{h_}: no chart axis drawn");
            let cut: Vec<_> = labels.iter().filter(|(_, r, clip)| r.min.x < clip.min.x - 0.5).collect();
            assert!(cut.is_empty(), "{tab:?} at {w}x{h_}: axis labels cut on the left: {cut:?}");
        }
    }
}

/// The owning-vs-renting chart of a build with unpriced parts (the two RTX 4090s of the X870E
/// desktop have no current new price): its owning line, marker and legend are lower bounds and
/// say "at least" (a new user read the line as the full cost).
#[test]
fn the_break_even_chart_says_at_least_over_unpriced_parts() {
    let (cat, b) = x870e();
    let mut h = harness_at(KraftwerkApp::new_for_test(cat, b), 1280.0, 800.0);
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Fit)));
    h.run();
    assert!(
        h.query_all_by_label_contains("own: hardware + electricity, at least (without").next().is_some(),
        "the owning line's legend says it is a lower bound"
    );
    assert!(h.query_all_by_label_contains("break-even after at least").next().is_some(), "the break-even");
}

/// The Power tab of a build whose PSU has no known 80 PLUS rating (the hybrid RTX 3090 plan's
/// Raidmax RX-730SS): the verdict lists the power rules that did not run instead of a bare "No
/// power finding", and no "Within limits" is claimed for a circuit whose draw is unknown (the
/// tab said both, in green, over an unknown wall draw).
#[test]
fn the_power_tab_never_says_within_limits_over_an_unknown_wall_draw() {
    let cat = catalog::builtin().expect("built-in catalog loads");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron");
    let b = rig::load(&path, Some(&cat)).expect("fixture loads");
    let mut h = harness_at(KraftwerkApp::new_for_test(cat, b), 1280.0, 800.0);
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Power)));
    h.run();
    assert!(h.query_all_by_label_contains("No power finding in what was checked").next().is_some());
    assert!(h.query_all_by_label_contains("not checked for PSU 1").next().is_some());
    assert!(h.query_all_by_label_contains("Within limits").next().is_none());
    assert!(h.query_all_by_label_contains("no circuit is shown to be within").next().is_some());
}

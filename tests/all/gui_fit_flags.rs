//! Issue 35, last criterion, for what the Fit tab did not show: the user's own llama.cpp
//! placement (flags typed, or a `llama-server` line pasted, into the tab) and vLLM's refusal
//! with the settings that start it. The tab must show the lines `kraftwerk fit` prints for the
//! same build and flags, word for word.
#![cfg(feature = "gui")]

use crate::support::kw;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::rig::{self, Build};
use kraftwerk::ui::{Action, KraftwerkApp, Tab, ViewAction};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// `kraftwerk fit BUILD ARGS...`'s lines, trimmed, without the list dash.
fn fit_lines(build: &Path, args: &[&str]) -> Vec<String> {
    let b = build.display().to_string();
    let mut all = vec!["fit", b.as_str()];
    all.extend_from_slice(args);
    let o = kw(&all);
    String::from_utf8_lossy(&o.stdout).lines().map(|l| l.trim_start().trim_start_matches("- ").to_owned()).collect()
}

fn line(lines: &[String], start: &str) -> String {
    lines.iter().find(|l| l.starts_with(start)).cloned().unwrap_or_else(|| panic!("no `{start}` in {lines:#?}"))
}

/// The Fit tab of `build` with `flags` typed into its llama.cpp field.
fn fit_tab(build: Build, flags: &str) -> Harness<'static, KraftwerkApp> {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut KraftwerkApp| app.update_ui(ui), KraftwerkApp::new_for_test(cat, build));
    flags.clone_into(&mut h.state_mut().view.fit.settings.llama_flags);
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Fit)));
    h.run();
    h
}

/// Qwen3-235B on two RTX 3090s with 128 GiB: `--n-cpu-moe 20` does not fit the GPUs. The tab,
/// given the same flag inside a pasted server line, shows the placement's GPU line, what
/// overflows, the smallest `--n-cpu-moe` that fits with the other flags and the speed line, as
/// `fit --n-cpu-moe 20` prints them, and names the pasted flags it leaves out.
#[test]
fn the_fit_tab_judges_a_pasted_llama_cpp_placement_as_fit_does() {
    let path = fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron");
    let cli = fit_lines(&path, &["--n-cpu-moe", "20"]);
    let want = [
        line(&cli, "GPU 1 "),
        line(&cli, "the placement as given"),
        line(&cli, "llama.cpp with --n-cpu-moe 48, the smallest that keeps"),
        line(&cli, "speed: none: the placement as given does not fit"),
    ];
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let build = rig::load(&path, Some(&cat)).expect("fixture loads");
    let h = fit_tab(build, "llama-server -m Qwen3-235B-A22B-Q4_K_M.gguf --n-cpu-moe 20 -fa on --port 8080");
    for w in &want {
        let w = w.trim_start_matches("speed: ");
        assert!(h.query_all_by_label_contains(w).next().is_some(), "the Fit tab shows `{w}`");
    }
    assert!(
        h.query_all_by_label_contains("Not modelled, left out: -fa on, --port 8080").next().is_some()
            && h.query_all_by_label_contains("Set by the form above instead: -m Qwen3-235B-A22B-Q4_K_M.gguf")
                .next()
                .is_some(),
        "the tab names the flags it leaves out, and those the form sets"
    );
}

/// A flag the tab cannot read is refused with its reason, not dropped: no fit is shown.
#[test]
fn the_fit_tab_refuses_a_malformed_flag() {
    let path = fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron");
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let build = rig::load(&path, Some(&cat)).expect("fixture loads");
    let h = fit_tab(build, "--n-cpu-moe twenty");
    assert!(
        h.query_all_by_label_contains("llama.cpp flags: --n-cpu-moe `twenty`: give a whole number").next().is_some()
    );
    assert!(h.query_all_by_label_contains("the routed experts of").next().is_none(), "no placement shown");
}

/// gpt-oss-120b on one H100 at 100,000 tokens under vLLM's defaults: vLLM refuses to start.
/// The tab shows the refusal and the settings that start it, as `fit` prints them.
#[test]
fn the_fit_tab_names_the_vllm_settings_that_start_it() {
    let path = fixture("h100-sxm-1gpu.rig.ron");
    let cli = fit_lines(&path, &["--model", "gpt-oss-120b", "--context", "100000", "--precision", "native"]);
    let want = [line(&cli, "vLLM refuses to start"), line(&cli, "vLLM starts, by this estimate, with any one of: ")];
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let mut build = rig::load(&path, Some(&cat)).expect("fixture loads");
    let w = build.workload.as_mut().expect("the fixture names a workload");
    w.model = "gpt-oss-120b".into();
    w.context = 100_000;
    w.precision = kraftwerk::estimate::llm::Precision::Native;
    let h = fit_tab(build, "");
    for w in &want {
        assert!(h.query_all_by_label_contains(w).next().is_some(), "the Fit tab shows `{w}`");
    }
}

/// The Plan tab starts from what the open build is for: its workload's model, context and
/// mode, not the default model (a new-user trial planned Llama-3.1-70B on a Qwen3-235B build).
/// A form the user edited is left as it is.
#[test]
fn the_plan_tab_starts_from_the_builds_workload() {
    let path = fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron");
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let build = rig::load(&path, Some(&cat)).expect("fixture loads");
    let w = build.workload.clone().expect("the fixture names a workload");
    let mut h = fit_tab(build.clone(), "");
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Plan)));
    h.run();
    let form = &h.state().view.plan.form;
    assert_eq!((form.model.as_str(), form.context, form.mode), (w.model.as_str(), w.context, w.mode));

    let mut h = fit_tab(build, "");
    h.state_mut().view.plan.form.users = 4;
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Plan)));
    h.run();
    assert_ne!(h.state().view.plan.form.model, w.model, "an edited form is not reseeded");
}

/// A script pasted into the field as written, its lines joined by `\` continuations (the form
/// carteakey's run scripts publish): the field keeps the line breaks, so the placement flag on
/// the second line is read and judged, not filed under "not modelled" (a single-line field
/// turned the breaks into spaces and `\ ` escaped them, review of 2026-12-07).
#[test]
fn a_pasted_multi_line_script_keeps_its_placement() {
    let path = fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron");
    let cli = fit_lines(&path, &["--n-cpu-moe", "20"]);
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let build = rig::load(&path, Some(&cat)).expect("fixture loads");
    let mut h = fit_tab(build, "");
    h.get_by_role_and_label(egui::accesskit::Role::MultilineTextInput, "llama.cpp flags").focus();
    h.run();
    h.event(egui::Event::Paste("llama-server -m Qwen3-235B.gguf \\\n--n-cpu-moe 20 \\\n-fa on".into()));
    h.run();
    assert!(h.state().view.fit.settings.llama_flags.contains('\n'), "{:?}", h.state().view.fit.settings.llama_flags);
    let overflow = line(&cli, "the placement as given");
    assert!(h.query_all_by_label_contains(&overflow).next().is_some(), "the Fit tab shows `{overflow}`");
    assert!(h.query_all_by_label_contains("Set by the form above instead: -m Qwen3-235B.gguf").next().is_some());
    assert!(h.query_all_by_label_contains("Not modelled, left out: -fa on").next().is_some());
}

/// The Plan tab opened before a build file: opening the build later seeds the untouched form
/// with its workload (review of 2026-12-07: the form kept the default model).
#[test]
fn the_plan_tab_follows_a_build_opened_after_it() {
    let path = fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron");
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let w = rig::load(&path, Some(&cat)).expect("fixture loads").workload.expect("workload");
    let mut h = fit_tab(Build::default(), "");
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Plan)));
    h.run();
    h.state_mut().send(Action::File(kraftwerk::ui::FileAction::Open(path)));
    h.run();
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Plan)));
    h.run();
    assert_eq!(h.state().view.plan.form.model, w.model);
}

/// The user's own placement (`--n-cpu-moe 60 -ub 1024 --no-mmap`) on two RTX 3090s: the tab's
/// memory chart is that placement's memory per GPU (titled with its words and arguments, each
/// bar llama.cpp's model / context / compute), not every weight on the GPUs; and "Measure it"
/// is llama-bench with the placement's own flags, the command `fit` prints for it.
#[test]
fn the_fit_tab_charts_and_measures_the_placement_given() {
    let path = fixture("2x-rtx-3090-128gib-qwen3-235b.rig.ron");
    let cli = fit_lines(&path, &["--n-cpu-moe", "60", "-ub", "1024", "--no-mmap"]);
    let measure = line(&cli, "measure the speed: ");
    let measure = measure.trim_start_matches("measure the speed: ");
    assert!(measure.starts_with("llama-bench ") && measure.contains(" -ncmoe 60 -ub 1024 -mmp 0 "), "{measure}");
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let build = rig::load(&path, Some(&cat)).expect("fixture loads");
    let h = fit_tab(build, "--n-cpu-moe 60 -ub 1024 --no-mmap");
    assert!(
        h.query_all_by_label_contains("Memory per GPU with -c 16384 -ngl 94 --n-cpu-moe 60 -ub 1024 --no-mmap")
            .next()
            .is_some(),
        "the chart is the placement's"
    );
    assert!(
        h.query_all_by_label_contains("Memory per GPU with every expert on the GPU").next().is_none(),
        "not every weight on the GPUs"
    );
    assert!(
        h.query_all_by_label_contains("Memory vs context with every weight on the GPUs").next().is_some()
            && h.query_all_by_label_contains("Memory vs context (fullest GPU").next().is_none(),
        "the context curve says it is not the placement's"
    );
    let prefill_terms = line(&cli, "experts in RAM, prefill: ");
    assert!(
        h.query_all_by_label_contains(&format!("• {prefill_terms}")).next().is_some(),
        "the basis names the host terms as fit does"
    );
    assert!(
        h.query_all_by_label_contains(&format!("Measure it: {measure}")).next().is_some(),
        "the tab measures `{measure}`"
    );
}

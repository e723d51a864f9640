//! Issue 35, last criterion: `kraftwerk fit`, `kraftwerk plan`, the Fit tab and the Plan tab
//! print the same figures and caveats for one build. Two builds: gpt-oss-120b at q4_0 on one
//! RTX 3090 with the routed experts of most layers in system RAM (the planner's own answer,
//! `tests/fixtures/hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron`), and the same machine with a
//! Radeon RX 7900 XTX in place of the 3090, whose speed carries a caveat. For each, the decode
//! (one decimal), the prefill (no decimal), the `--n-cpu-moe` placement and every caveat are read
//! from `fit --format json` and from the plan's JSON of the build, and must be the same; the
//! same words must then be in `fit`'s text, `plan`'s text, the Fit tab and the Plan tab.
#![cfg(feature = "gui")]

use crate::support::kw;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kraftwerk::catalog::Catalog;
use kraftwerk::plan::evaluation::Evaluation;
use kraftwerk::plan::goal::{Form, Goal, GoalPrecision, ModelRef};
use kraftwerk::plan::{PlanOutcome, PlanResult, Stats};
use kraftwerk::rig::{self, Build};
use kraftwerk::ui::{Action, KraftwerkApp, Tab, ViewAction};
use serde_json::Value;
use std::path::Path;

fn hybrid_3090(cat: &Catalog) -> Build {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron");
    rig::load(&path, Some(cat)).expect("the hybrid fixture loads")
}

/// The same machine with an RX 7900 XTX (24 GB, as the 3090) in its one slot: llama.cpp on AMD.
fn hybrid_7900xtx(cat: &Catalog) -> Build {
    let mut b = hybrid_3090(cat);
    b.name = "1x RX 7900 XTX + experts in RAM".into();
    b.owned.clear();
    // A CPU whose rated memory speed is not in the catalog (the Ryzen 5 4500 of the 3090 build
    // is rated DDR4-3200 by amd.com): the split's decode is read at the kit's rating, a caveat.
    b.cpu = Some("amd-ryzen-7-5700x3d".into());
    for g in &mut b.gpus {
        g.gpu = "amd-radeon-rx-7900-xtx".into();
    }
    b
}

/// The plan's result for `build`, estimated as the planner estimates its candidates
/// ([`kraftwerk::plan::estimate::estimate`], the goal of the build's own workload, one user),
/// in a [`PlanOutcome`] as `kraftwerk plan` prints it and the Plan tab draws it.
fn plan_of(build: &Build, cat: &Catalog) -> PlanOutcome {
    let w = build.workload.as_ref().expect("workload");
    let goal = Goal {
        model: ModelRef::Preset(w.model.clone()),
        precision: GoalPrecision::Exact(w.precision),
        runtime: w.runtime,
        users: 1,
        ..Goal::default()
    };
    let model = kraftwerk::plan::model::resolve_model(cat, &goal.model).expect("model");
    let mut eval = Evaluation::default();
    kraftwerk::plan::estimate::estimate(build, cat, &goal, &model, &mut eval);
    PlanOutcome {
        goal: goal.describe(model.llm()),
        results: vec![PlanResult {
            rank: 1,
            title: build.name.clone(),
            gpus: "1 GPU".into(),
            precision: w.precision,
            form: Form::Tower,
            build: build.clone(),
            price_complete: false,
            price_usd: 0.0,
            gpus_on_chipset: 0,
            eval,
            measured: None,
        }],
        rejected: vec![],
        relaxations: vec![],
        binding: vec![],
        stats: Stats { chips: 1, screened: 1, checked: 1, passing: 1, shown: 1, ..Stats::default() },
        cheaper_not_shown: None,
        cancelled: false,
    }
}

/// The figures one view gives: decode as printed (one decimal), prefill as printed (no
/// decimal), `--n-cpu-moe`, the caveats.
#[derive(Debug, PartialEq)]
struct Figures {
    decode: String,
    prefill: String,
    n_cpu_moe: Option<u64>,
    caveats: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

fn decimals(v: &Value, d: usize) -> String {
    v.as_f64().map_or_else(|| "unknown".to_owned(), |x| format!("{x:.d$} tok/s"))
}

/// Checks one build in the four views; returns the figures (for the caller's own claims).
fn same_in_all_four(cat: &Catalog, build: &Build, tag: &str) -> Figures {
    let dir = std::env::temp_dir().join(format!("kw-agree-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("build.rig.ron");
    std::fs::write(&path, rig::to_ron_string(build).expect("ron")).expect("write");
    let file = path.to_str().expect("utf-8 path");

    // `kraftwerk fit --format json`.
    let fit_out = kw(&["fit", file, "--format", "json"]);
    let fit: Value = serde_json::from_slice(&fit_out.stdout).expect("fit json");
    let summary = &fit["speed_summary"];
    let from_fit = Figures {
        decode: decimals(&summary["decode_tokens_per_s"], 1),
        prefill: decimals(&summary["prefill_tokens_per_s"], 0),
        n_cpu_moe: summary["n_cpu_moe"].as_u64(),
        caveats: strings(&summary["caveats"]),
    };
    // The same split as the fit's own figures (not only its summary).
    let split = &fit["fits_with_experts_in_ram"];
    assert_eq!(decimals(&split["decode_tokens_per_s"], 1), from_fit.decode, "{tag}: {split}");
    assert_eq!(split["n_cpu_moe"].as_u64(), from_fit.n_cpu_moe, "{tag}");

    // `kraftwerk plan --format json` of the same build (the outcome serialized as it prints it).
    let outcome = plan_of(build, cat);
    let plan: Value = serde_json::to_value(&outcome).expect("plan json");
    let e = &plan["results"][0]["eval"];
    let from_plan = Figures {
        decode: decimals(&e["decode_per_user"], 1),
        prefill: decimals(&e["prefill"], 0),
        n_cpu_moe: e["hybrid"]["n_cpu_moe"].as_u64(),
        // The caveats that rank (`speed_caveats`) and those that do not (`speed_notes`: a RAM
        // kit's unverified rating), in that order, as the plan's speed summary prints them.
        caveats: strings(&e["speed_caveats"]).into_iter().chain(strings(&e["speed_notes"])).collect(),
    };
    assert_eq!(from_fit, from_plan, "{tag}: fit's JSON and plan's JSON");
    assert!(from_fit.n_cpu_moe.is_some(), "{tag}: a hybrid split");
    assert_ne!(from_fit.decode, "unknown", "{tag}");

    // The words every view must show.
    let layers = from_fit.n_cpu_moe.unwrap_or_default();
    let mut words = vec![
        format!("decode {} per user", from_fit.decode),
        format!("prefill {}", from_fit.prefill),
        format!("--n-cpu-moe {layers}: the routed experts of"),
    ];
    words.extend(from_fit.caveats.iter().map(|c| format!("speed caveat: {c}")));

    let fit_text = String::from_utf8_lossy(&kw(&["fit", file]).stdout).into_owned();
    let plan_text = kraftwerk::report::plan::text(&outcome, &[]);
    for w in &words {
        assert!(fit_text.contains(w.as_str()), "{tag}: `fit` prints `{w}`:\n{fit_text}");
        assert!(plan_text.contains(w.as_str()), "{tag}: `plan` prints `{w}`:\n{plan_text}");
    }

    // The Fit tab.
    let mut h = Harness::builder().with_size([1280.0, 800.0]).build_ui_state(
        |ui, app: &mut KraftwerkApp| app.update_ui(ui),
        KraftwerkApp::new_for_test(cat.clone(), build.clone()),
    );
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Fit)));
    h.run();
    for w in &words {
        assert!(h.query_all_by_label_contains(w).next().is_some(), "{tag}: the Fit tab shows `{w}`");
    }
    // The Plan tab, holding the same outcome.
    h.state_mut().view.plan.outcome = Some(Ok(outcome));
    h.state_mut().send(Action::View(ViewAction::SelectTab(Tab::Plan)));
    h.run();
    for w in &words {
        assert!(h.query_all_by_label_contains(w).next().is_some(), "{tag}: the Plan tab shows `{w}`");
    }
    std::fs::remove_dir_all(&dir).ok();
    from_fit
}

/// gpt-oss-120b on one RTX 3090 with experts in RAM: one decode, prefill and `--n-cpu-moe` in
/// the four views.
#[test]
fn fit_plan_and_both_tabs_agree_on_a_hybrid_3090_build() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let f = same_in_all_four(&cat, &hybrid_3090(&cat), "3090");
    println!("RTX 3090: {f:?}");
}

/// The same on a Radeon RX 7900 XTX with a Ryzen 7 5700X3D: its speed carries a caveat (the
/// RAM kit's rating, unverified for that CPU; the 7900 XTX's own llama.cpp HIP rows land in
/// band, so the GPU adds none), printed in the four views.
#[test]
fn fit_plan_and_both_tabs_agree_on_an_amd_build_and_its_caveat() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let f = same_in_all_four(&cat, &hybrid_7900xtx(&cat), "7900xtx");
    println!("RX 7900 XTX: {f:?}");
    assert!(!f.caveats.is_empty(), "an AMD speed carries a caveat: {f:?}");
}

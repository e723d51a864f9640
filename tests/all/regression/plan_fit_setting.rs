//! Two planner faults a trial found, held at the command line:
//!
//! 1. gpt-oss-120b at 100,000 tokens under vLLM on one H100: `kraftwerk fit` said vLLM does not
//!    start at its default `--max-num-seqs` (1024 on an 80 GB card) and starts with
//!    `--max-num-seqs 194`, and fits there; the planner judged the card at the default only and
//!    proposed a second H100. The planner now judges the card at the value `fit` names, by the
//!    same verdict, says the setting in its output and saves it in the build
//!    (`workload.max_num_seqs`), so `fit` on the saved plan prints the same figures.
//! 2. An owned part other than a GPU (CPU, board, case, memory kit, PSU) without a catalog price
//!    was filtered out under a budget, though owned units cost $0 (an owned GPU without a price
//!    was already kept).

use crate::support::kw_no_user_files;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kraftwerk-plan-fit-setting-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs kraftwerk without the user's parts and prices: (exit code, stdout).
fn run(args: &[&str]) -> (Option<i32>, String) {
    let (code, out, err) = kw_no_user_files(args);
    println!("$ kraftwerk {}\n{out}{err}", args.join(" "));
    (Some(code), out)
}

/// The `decode … tok/s per user, prefill … tok/s` of the first line holding `speed` and
/// `decode ` (plan: `speed (vllm, mxfp4): decode …`; fit: `speed: decode …`).
fn speed_figures(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("speed") && l.contains(": decode "))
        .unwrap_or_else(|| panic!("no speed line in\n{text}"));
    let from = line.find("decode ").expect("decode");
    let rest = &line[from..];
    rest.split(';').next().expect("figures").trim().to_owned()
}

/// gpt-oss-120b, 100,000 tokens, vLLM, one H100 PCIe (80 GB): plan and fit agree on one card
/// at `--max-num-seqs 194`, decode 91.9 tok/s, prefill 19959 tok/s; KV pool 3.44 GiB (100,011
/// tokens). Before the fix the plan was `2x H100 PCIe` (decode 131.7 tok/s, prefill 17169).
#[test]
fn plan_takes_the_one_h100_build_fit_names_for_gpt_oss_120b_at_100k() {
    let dir = tmp("oss");
    let out = dir.to_string_lossy().to_string();
    let (code, plan) = run(&[
        "plan",
        "--model",
        "gpt-oss-120b",
        "--context",
        "100000",
        "--runtime",
        "vllm",
        "--must-have",
        "nvidia-h100-pcie",
        "--max-results",
        "1",
        "--out",
        &out,
    ]);
    assert_eq!(code, Some(0), "{plan}");
    let first = plan.lines().find(|l| l.starts_with("1. ")).expect("a result");
    assert!(first.starts_with("1. 1x H100 PCIe"), "one H100, not two: {first}");
    assert!(
        plan.contains("vLLM setting: --max-num-seqs 194 (vLLM's default 1024 does not start"),
        "the plan says the vLLM setting it relies on:\n{plan}"
    );
    assert!(plan.contains("KV pool 3.44 GiB, 100,011 tokens at it"), "{plan}");
    assert!(plan.contains("run vllm serve ... --max-num-seqs 194"), "{plan}");
    let plan_speed = speed_figures(&plan);
    assert_eq!(plan_speed, "decode 91.9 tok/s per user, prefill 19959 tok/s", "{plan}");

    // The saved build carries the setting; `fit` on it fits with the same figures.
    let build = dir.join("plan-1.rig.ron");
    let saved = std::fs::read_to_string(&build).expect("saved plan");
    assert!(saved.contains("max_num_seqs: 194"), "{saved}");
    let path = build.to_string_lossy().to_string();
    let (code, fit) = run(&["fit", &path]);
    assert_eq!(code, Some(0), "{fit}");
    assert!(fit.contains(": fits (inference mxfp4, single, context 100000, batch 1, vllm)"), "{fit}");
    assert!(fit.contains("profile peak 1.31 (8192 tokens, 194 seqs)"), "{fit}");
    assert!(fit.contains("= KV pool 3.44 GiB"), "{fit}");
    assert!(fit.contains("GPU KV cache size: 100,011 tokens"), "{fit}");
    assert_eq!(speed_figures(&fit), plan_speed, "fit and plan print the same speed");

    // At vLLM's default the same build does not start, and fit names exactly the plan's value.
    let (code, default) = run(&["fit", &path, "--max-num-seqs", "1024"]);
    assert_eq!(code, Some(1), "{default}");
    assert!(default.contains("vLLM refuses to start"), "{default}");
    assert!(
        default.contains("vLLM starts, by this estimate, with any one of: --max-num-seqs 194 (KV pool 3.44 GiB)"),
        "{default}"
    );
}

/// Plans llama-3.1-8b at Q4_K_M under a $3,000 budget owning one part without a catalog price:
/// the plan uses the owned part at $0 and is fully priced ($NNN, not "at least").
fn plan_owning(id: &str, name: &str) {
    let (code, plan) = run(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--precision",
        "q4_k_m",
        "--own",
        id,
        "--budget-usd",
        "3000",
        "--max-results",
        "1",
    ]);
    assert_eq!(code, Some(0), "owning {id} (no catalog price) under a budget:\n{plan}");
    let first = plan.lines().find(|l| l.starts_with("1. ")).expect("a result");
    assert!(!first.contains("at least"), "fully priced: {first}");
    // The part's line in the result's parts list (`     1 x NAME   owned, $0`).
    let owned = plan
        .lines()
        .find(|l| l.trim_start().starts_with("1 x ") && l.contains(name))
        .unwrap_or_else(|| panic!("{name} in\n{plan}"));
    assert!(owned.trim_end().ends_with("owned, $0"), "{owned}");
}

/// An owned CPU, board, case and memory kit without a catalog price do not block a budget
/// (each was "Nothing in the catalog meets this goal" before), while the same CPU bought
/// (`--must-have`) still does: its price is unknown, so the budget cannot be checked.
#[test]
fn owned_parts_without_a_price_do_not_block_a_budget() {
    plan_owning("amd-ryzen-5-3600-f34f9bc1", "AMD Ryzen 5 3600");
    plan_owning("gigabyte-b450-aorus-pro-ddr4-atx", "B450 AORUS PRO");
    plan_owning(
        "abkoncore-c750-atx-mid-tower-black-with-tempered-glass-side-panel-and-usb-3-2-gen-1-type-a-usb-2-0-type-a",
        "C750",
    );
    plan_owning("acer-predator-vesta-rgb-silver-ddr4-3200-cl14-32gb-2x16gb", "Predator Vesta");
    let (code, bought) = run(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--precision",
        "q4_k_m",
        "--must-have",
        "amd-ryzen-5-3600-f34f9bc1",
        "--budget-usd",
        "3000",
        "--max-results",
        "1",
    ]);
    assert_eq!(code, Some(1), "a bought part without a price still cannot be judged under a budget:\n{bought}");
}

/// An owned PSU without a price (the catalog's curated PSUs all have one, so the test takes the
/// one the plan picks and removes its price): the plan keeps it under a budget at $0.
#[test]
fn an_owned_psu_without_a_price_does_not_block_a_budget() {
    use kraftwerk::plan::goal::{Goal, ModelRef};
    use kraftwerk::plan::owned::owned_parts;
    let mut c = kraftwerk::catalog::builtin().expect("catalog");
    let goal = Goal {
        model: ModelRef::Preset("llama-3.1-8b".into()),
        precision: "q4_k_m".parse().expect("precision"),
        budget_usd: Some(3000.0),
        max_results: 1,
        ..Goal::default()
    };
    let first = kraftwerk::plan::plan_blocking(&c, &goal).expect("plan");
    let psu = first.results[0].build.psus[0].psu.clone();
    c.psus.iter_mut().filter(|p| p.id == psu).for_each(|p| p.price_usd = None);
    let unowned =
        kraftwerk::plan::plan_blocking(&c, &Goal { must_have: vec![psu.clone()], ..goal.clone() }).expect("plan");
    assert!(unowned.results.is_empty(), "{psu} bought without a price: the budget cannot be checked");
    let owned = Goal { owned: owned_parts(&[psu.as_str()]).expect("owned"), ..goal };
    let out = kraftwerk::plan::plan_blocking(&c, &owned).expect("plan");
    let r = out.results.first().unwrap_or_else(|| panic!("owning {psu} (no price): {:#?}", out.rejected));
    assert_eq!(r.build.psus[0].psu, psu);
    assert!(r.price_complete, "{:?}", r.eval.unpriced);
    assert!(r.eval.parts.iter().any(|p| p.id == psu && p.owned() && p.unit_price_usd == Some(0.0)));
}

/// A new user's finding: the vLLM answer "2x RTX PRO 4000 Blackwell at `--max-num-seqs 158`"
/// for Llama-3.1-70B int4 at 15 tok/s holds 8,209 tokens for the 8,192 asked, and `fit` on the
/// saved build says "tight" (21.7 of 24.0 GiB, only 2.3 of 2.4 GiB headroom left), while the
/// plan line showed the pool but not the word. The plan now says it, with fit's figures, and a
/// result that keeps its headroom says nothing of the kind.
#[test]
fn a_tight_plan_says_tight_as_fit_does() {
    let dir = tmp("tight");
    let out = dir.to_string_lossy().to_string();
    let (code, plan) = run(&[
        "plan",
        "--model",
        "llama-3.1-70b",
        "--precision",
        "int4",
        "--tok-s",
        "15",
        "--must-have",
        "nvidia-rtx-pro-4000-blackwell",
        "--max-results",
        "1",
        "--out",
        &out,
    ]);
    assert_eq!(code, Some(0), "{plan}");
    let line = plan.lines().find(|l| l.trim_start().starts_with("memory: tight")).unwrap_or_else(|| {
        panic!("the tight result says so:\n{plan}");
    });
    assert!(line.contains("only 2.3 of 2.4 GiB headroom left"), "{line}");
    assert!(line.contains("the longest context that fits at this batch is 8,209 tokens (8,192 asked)"), "{line}");
    let path = dir.join("plan-1.rig.ron").to_string_lossy().to_string();
    let (_, fit) = run(&["fit", &path]);
    assert!(fit.contains("(tight, only 2.3 of 2.4 GiB headroom left)"), "fit agrees:\n{fit}");
    assert!(fit.contains("longest context that fits at this batch: 8209 tokens"), "{fit}");

    // One RTX PRO 5000 (48 GB) keeps its headroom: no such line.
    let (code, roomy) = run(&[
        "plan",
        "--model",
        "llama-3.1-70b",
        "--precision",
        "int4",
        "--tok-s",
        "15",
        "--must-have",
        "nvidia-rtx-pro-5000-blackwell",
        "--max-results",
        "1",
    ]);
    assert_eq!(code, Some(0), "{roomy}");
    assert!(!roomy.contains("memory: tight"), "{roomy}");
    let _ = std::fs::remove_dir_all(&dir);
}

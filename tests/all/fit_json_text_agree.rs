//! A new user's trial of gpt-oss-120b on the 2x RTX 4090 example build, where `fit`'s text and
//! JSON told two stories, and a `plan` rejection that contradicted itself:
//! - under vLLM (does not fit) the JSON offered `alternatives.moe_offload` (`--n-cpu-moe 11`,
//!   its arguments, decode and prefill) while the text's line named neither the runtime that
//!   runs it nor its arguments and prefill; the text now names `--runtime llama.cpp` and prints
//!   the JSON's figures;
//! - the same JSON gave `fit.speed.decode_batch1_tokens_per_s = 137.2` (every weight on GPUs
//!   that cannot hold them) where the text says "decode unknown": now `fit.speed` is null;
//! - under llama.cpp the JSON's `experts_in_ram` (every routed expert in RAM, 56.7 GiB,
//!   `fits_in_host_ram: false`) sat beside `verdict: fits_with_experts_in_ram` (the
//!   `--n-cpu-moe 11` split) without saying it is another placement: it now names its
//!   placement and whether it is the fit, and ik_llama.cpp's text line says it is not the split;
//! - `plan --context 500000` read "even 8 cards do not hold it (21.2 GiB needed per 96 GiB
//!   card)": vLLM refuses a context above the model's 131,072 tokens, which is now the reason.

use crate::support::{builds, catalog, kw};
use kraftwerk::plan::goal::{Goal, ModelRef};
use kraftwerk::plan::{Constraint, plan_blocking};

const GPT_OSS: [&str; 4] = ["--model", "gpt-oss-120b", "--precision", "mxfp4"];

/// `fit` of the 2x RTX 4090 build with `extra`: (exit code, stdout as text).
fn fit(extra: &[&str]) -> (Option<i32>, String) {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let mut args = vec!["fit", b.as_str()];
    args.extend(GPT_OSS);
    args.extend_from_slice(extra);
    let o = kw(&args);
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
}

fn json(extra: &[&str]) -> serde_json::Value {
    let mut a = extra.to_vec();
    a.extend(["--format", "json"]);
    let (_, out) = fit(&a);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Seen failing before: the text's line was "- llama.cpp MoE expert offload: --n-cpu-moe 11
/// (17.3 GiB of experts, 18.4 GiB of system RAM in all), about 51.4 tok/s decode" (no runtime
/// switch, no arguments, no prefill), and the JSON's `fit.speed` held 137.2 tok/s.
#[test]
fn a_vllm_misfit_gives_the_same_alternatives_and_no_speed_in_text_and_json() {
    let (code, text) = fit(&[]);
    assert_eq!(code, Some(1), "{text}");
    let v = json(&[]);
    assert_eq!(v["verdict"], "does_not_fit", "{v}");
    assert_eq!(v["fit"]["runtime"], "vllm", "{v}");

    // The MoE offload the JSON offers is the text's, under llama.cpp, with the same figures;
    // the JSON names that runtime too (a review found it only in the text).
    assert_eq!(v["alternatives"]["offload_runtime"], "llama_cpp", "{}", v["alternatives"]);
    let o = &v["alternatives"]["moe_offload"];
    let n = o["n_cpu_moe"].as_u64().expect("a MoE offload");
    let args = o["args"].as_str().expect("its arguments");
    let decode = o["decode_tokens_per_s"].as_f64().expect("its decode");
    let prefill = o["prefill_tokens_per_s"].as_f64().expect("its prefill");
    let line = text
        .lines()
        .find(|l| l.contains("MoE expert offload"))
        .unwrap_or_else(|| panic!("the JSON's moe_offload in the text: {text}"));
    assert_eq!(
        line.trim_start(),
        format!(
            "- under llama.cpp (--runtime llama.cpp): MoE expert offload --n-cpu-moe {n} ({args}): {:.1} GiB of experts, {:.1} GiB of system RAM in all; about {decode:.1} tok/s decode, {prefill:.0} tok/s prefill",
            o["host_experts_gib"].as_f64().expect("experts"),
            o["host_ram_needed_gib"].as_f64().expect("RAM")
        ),
        "{text}"
    );
    // The layer offload too names the runtime that runs it.
    let layers = v["alternatives"]["offload"]["gpu_layers"].as_u64().expect("a layer offload");
    assert!(
        text.contains(&format!(
            "- under llama.cpp (--runtime llama.cpp): {layers} of 36 layers on the GPUs (-ngl {layers})"
        )),
        "{text}"
    );

    // No speed for a build that does not run: the text's "unknown" is the JSON's null.
    assert!(text.contains("  speed: decode unknown per user, prefill unknown"), "{text}");
    assert!(v["fit"]["speed"].is_null(), "a speed for a placement that does not load: {}", v["fit"]["speed"]);
    assert!(v["speed_summary"]["decode_tokens_per_s"].is_null(), "{v}");
    assert_eq!(v["cost"], serde_json::Value::Null);
}

/// Seen failing before: `experts_in_ram` had neither `placement` nor `is_the_fit`, and the
/// ik_llama.cpp text printed "fits with experts in system RAM" above "experts in system RAM
/// (ik_llama.cpp): does not fit: 56.7 GiB of routed experts".
#[test]
fn the_all_experts_block_says_it_is_not_the_split_that_fits() {
    let (code, _) = fit(&["--runtime", "llama.cpp"]);
    assert_eq!(code, Some(0));
    let v = json(&["--runtime", "llama.cpp"]);
    assert_eq!(v["verdict"], "fits_with_experts_in_ram", "{v}");
    let split = &v["fits_with_experts_in_ram"];
    assert_eq!(split["fits_in_host_ram"], true, "{split}");
    let all = &v["experts_in_ram"];
    assert_eq!(all["placement"], "every_routed_expert_in_ram", "{all}");
    assert_eq!(all["is_the_fit"], false, "{all}");
    // The figures stay those of every expert in RAM: more than the split keeps there (57.8 GiB
    // of RAM in all, which the 64 GiB build holds after the 6 GB kept for the OS).
    assert_eq!(all["fits_in_host_ram"], true, "{all}");
    assert!(
        all["host_experts_gib"].as_f64().expect("all") > split["host_experts_gib"].as_f64().expect("split") + 1.0,
        "{all} vs {split}"
    );
    // The speed of the build is the split's, in `fit.speed` and `speed_summary` alike.
    let decode = split["decode_tokens_per_s"].as_f64().expect("split decode");
    assert_eq!(v["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64(), Some(decode), "{v}");
    assert_eq!(v["speed_summary"]["decode_tokens_per_s"].as_f64(), Some(decode), "{v}");

    // ik_llama.cpp (no llama.cpp table, so the all-experts line is printed): named as the
    // other placement, beside a headline that fits.
    let (code, text) = fit(&["--runtime", "ik_llama.cpp"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().next().is_some_and(|l| l.contains(": fits with experts in system RAM (")), "{text}");
    assert!(
        text.contains(
            "  experts in system RAM (ik_llama.cpp, every routed expert in RAM, not the split above; llama.cpp: -ot exps=CPU): 56.7 GiB of routed experts in RAM"
        ),
        "{text}"
    );
    assert!(!text.contains("experts in system RAM (ik_llama.cpp): does not fit"), "{text}");
}

/// ktransformers' own placement is every routed expert in RAM: there the block is the fit.
#[test]
fn the_all_experts_block_is_the_fit_under_ktransformers() {
    let b = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let args = ["fit", &b, "--model", "qwen3-235b-a22b", "--precision", "q4_k_m", "--runtime", "ktransformers"];
    let o = kw(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "fits_with_experts_in_ram", "{v}");
    assert_eq!(v["experts_in_ram"]["placement"], "every_routed_expert_in_ram", "{v}");
    assert_eq!(v["experts_in_ram"]["is_the_fit"], true, "{v}");
    let text = String::from_utf8_lossy(&kw(&args).stdout).into_owned();
    assert!(text.contains("experts in system RAM (ktransformers, every routed expert in RAM; llama.cpp"), "{text}");
    assert!(!text.contains("not the split above"), "{text}");
}

/// The figures of "(X GiB needed per Y GiB card)" in a rejection, if it has them.
fn needed_per_card(reason: &str) -> Option<(f64, f64)> {
    let (_, rest) = reason.split_once("do not hold it (")?;
    let (need, rest) = rest.split_once(" GiB needed per ")?;
    let (cap, _) = rest.split_once(" GiB card")?;
    Some((need.parse().ok()?, cap.parse().ok()?))
}

/// Seen failing before: "[memory] RTX PRO 6000 Blackwell Max-Q Workstation Edition: even 8
/// cards do not hold it (21.2 GiB needed per 96 GiB card)".
#[test]
fn a_context_above_the_models_maximum_is_the_rejections_reason_not_memory() {
    let goal = Goal { model: ModelRef::Preset("gpt-oss-120b".into()), context: Some(500_000), ..Goal::default() };
    let out = plan_blocking(&catalog(), &goal).expect("plan");
    for r in &out.rejected {
        if let Some((need, cap)) = needed_per_card(&r.reason) {
            assert!(need >= cap, "a memory reason whose need fits the card: {}", r.reason);
        }
    }
    let pro = out
        .rejected
        .iter()
        .find(|r| r.reason.starts_with("RTX PRO 6000 Blackwell Max-Q"))
        .unwrap_or_else(|| panic!("{:#?}", out.rejected));
    assert_eq!(pro.constraint, Constraint::Runtime, "{}", pro.reason);
    assert!(
        pro.reason.contains("vllm refuses a context of 500000 tokens, above gpt-oss-120b's maximum of 131072"),
        "{}",
        pro.reason
    );
    assert!(pro.reason.contains("8 cards would hold its memory ("), "{}", pro.reason);
}

/// Several sequences with the routed experts in system RAM: the split holds the batch's memory,
/// so the build runs ("fits with experts in system RAM", exit 0), with its decode unknown (the
/// split's speeds are modelled for one sequence), never "does not fit" beside the same split
/// offered as running (a trial's 4x RTX 6000 Ada example at its batch of 4).
#[test]
fn experts_in_ram_at_several_sequences_fit_with_their_speed_unknown() {
    let b = builds("4x-rtx-6000-ada-workstation.rig.ron");
    let args = ["fit", &b, "--model", "deepseek-r1", "--precision", "2.7bpw", "--runtime", "llama.cpp"];
    let o = kw(&args);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.lines().next().is_some_and(|l| l.contains(": fits with experts in system RAM (")), "{text}");
    assert!(text.contains("batch 4"), "{text}");
    assert!(text.contains("  speed: decode unknown per user, prefill unknown"), "{text}");
    assert!(text.contains("tok/s prefill for one sequence (not the -np above)"), "{text}");
    let o = kw(&[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "fits_with_experts_in_ram", "{v}");
    assert!(v["fits_with_experts_in_ram"]["decode_tokens_per_s"].is_null(), "{}", v["fits_with_experts_in_ram"]);
    // At one sequence the split's decode is the fit's.
    let o = kw(&[&args[..], &["--batch", "1", "--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["fits_with_experts_in_ram"]["decode_tokens_per_s"].as_f64().is_some_and(|d| d > 0.0), "{v}");
}

//! MoE decode with the routed experts in system RAM on one and two sockets, held to published
//! ktransformers and llama.cpp runs. Part of the `llm_fit` test target.

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::*;
use kraftwerk::estimate::llm::host::HostMemory;
use kraftwerk::estimate::llm::placement::host_expert_decode;

/// ktransformers' DeepSeek-V3/R1 tutorial, "V0.2" table:
/// kvcache-ai/ktransformers doc/en/DeepseekR1_V3_tutorial.md@95009ea6856c0799e517e93cb12be5e8494bc7ce
/// (DeepSeek V3 Q4_K_M, Xeon Gold 6454S with 8 × DDR5-4800 per socket, RTX 4090D, 500-token
/// prompt, 8 experts).
const KT_TUTORIAL: &str =
    "kvcache-ai/ktransformers doc/en/DeepseekR1_V3_tutorial.md@95009ea6856c0799e517e93cb12be5e8494bc7ce";

/// (label, source, runtime, channels per socket, MT/s, sockets, GPU id or none, context, measured tok/s).
type HostRow = (&'static str, &'static str, Runtime, u32, u32, u32, Option<&'static str>, u32, f64);

fn host_rows() -> Vec<HostRow> {
    let g = Some("nvidia-geforce-rtx-4090");
    vec![
        (
            "ktransformers V0.2, 1x Xeon 6454S 8xDDR5-4800, 4090D",
            KT_TUTORIAL,
            Runtime::KTransformers,
            8,
            4800,
            1,
            g,
            800,
            8.73,
        ),
        (
            "ktransformers V0.2, 2x Xeon 6454S 8xDDR5-4800, 4090D",
            KT_TUTORIAL,
            Runtime::KTransformers,
            8,
            4800,
            2,
            g,
            800,
            12.208,
        ),
        ("llama.cpp, 2x Xeon 6454S 8xDDR5-4800, CPU only", KT_TUTORIAL, Runtime::LlamaCpp, 8, 4800, 2, None, 800, 4.51),
        (
            "ktransformers, 1x EPYC 9654 12xDDR5-4800, 4090, 1K context",
            "https://github.com/kvcache-ai/ktransformers/issues/314",
            Runtime::KTransformers,
            12,
            4800,
            1,
            g,
            1000,
            14.0,
        ),
    ]
}

/// DeepSeek V3 Q4_K_M decode with every routed expert in system RAM: ktransformers on one and
/// two sockets and llama.cpp on two, within ±25 %. The first three rows fit the three
/// constants of `host` (one socket's efficiency, ktransformers' second-socket gain, llama.cpp's
/// two-socket factor); the EPYC 9654 row is held without a constant of its own.
#[test]
fn calibration_moe_experts_in_system_ram() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let m = cat.model("deepseek-v3").expect("deepseek-v3 preset").clone();
    println!("| row | estimate | published | error | source |\n|---|---|---|---|---|");
    let mut outside = Vec::new();
    let mut held = 0;
    for (label, source, rt, ch, mts, sockets, gpu, ctx, measured) in host_rows() {
        let i = infer(m.clone(), Precision::Q4_K_M, ctx, rt);
        let slot = gpu.map(|id| GpuSlot::new(cat.gpus.iter().find(|g| g.id == id).expect("gpu").clone()));
        let host = HostMemory { channels_per_socket: ch, speed_mt_s: mts, sockets };
        let d = host_expert_decode(&i, slot.as_ref(), host).expect("MoE");
        let est = d.decode_tokens_per_s.expect("no RAM bound given: a rate");
        let err = est / measured - 1.0;
        println!("| {label} | {est:.2} | {measured} | {:+.0} % | {source} |", err * 100.0);
        held += 1;
        if err.abs() > 0.25 {
            outside.push(format!("{label}: {est:.2} vs {measured} ({:+.1} %)", err * 100.0));
        }
    }
    assert!(outside.is_empty(), "{outside:#?}");
    assert_eq!(held, 4);
}

/// A second socket is not twice the first: ktransformers gains about half a socket, llama.cpp
/// without per-node placement loses; a dense model has no experts to put in RAM.
#[test]
fn a_second_socket_is_not_twice_the_first() {
    let one = HostMemory { channels_per_socket: 12, speed_mt_s: 4800, sockets: 1 };
    let two = HostMemory { sockets: 2, ..one };
    let kt = two.decode_gb_s(Runtime::KTransformers) / one.decode_gb_s(Runtime::KTransformers);
    assert!(kt > 1.2 && kt < 1.8, "{kt}");
    assert!(two.decode_gb_s(Runtime::LlamaCpp) < one.decode_gb_s(Runtime::LlamaCpp));
    let dense = infer(llama31_70b(), Precision::Q4_K_M, 4096, Runtime::KTransformers);
    assert!(host_expert_decode(&dense, None, one).is_none());
}

/// A new user's try-out (issue 28 follow-up): DeepSeek-R1 at Q4_K_M under ktransformers on a
/// build with 64 GiB of RAM printed "about N tok/s decode" for some 370 GiB of routed experts.
/// The experts must fit the build's RAM (after the 8 GiB reserve); where they do not, text and
/// JSON say so and give no decode speed. A build with enough RAM keeps its rate.
#[test]
fn experts_that_do_not_fit_the_builds_ram_have_no_decode_speed() {
    let small = crate::support::builds("2x-rtx-4090-x870e.rig.ron");
    let args = ["fit", &small, "--model", "deepseek-r1", "--precision", "q4_k_m", "--runtime", "ktransformers"];
    let o = crate::support::kw(&args);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = text.lines().find(|l| l.contains("experts in system RAM")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("does not fit") && line.contains("64 GiB"), "{line}");
    assert!(!line.contains("tok/s decode"), "{line}");
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&crate::support::kw(&json).stdout).expect("json");
    assert_eq!(v["experts_in_ram"]["fits_in_host_ram"], false, "{v}");
    assert!(v["experts_in_ram"]["decode_tokens_per_s"].is_null(), "{v}");
    let big = crate::support::builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let o = crate::support::kw(&[
        "fit",
        &big,
        "--model",
        "qwen3-235b-a22b",
        "--precision",
        "q4_k_m",
        "--runtime",
        "ktransformers",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["experts_in_ram"]["fits_in_host_ram"], true, "{v}");
    assert!(v["experts_in_ram"]["decode_tokens_per_s"].as_f64().is_some(), "{v}");
}

/// Issue 35: on one build and runtime the plan `fit` prints is the placement it estimates:
/// text and JSON name the same `--n-cpu-moe`, the JSON speed of a hybrid plan is that
/// placement's (its prefill bounded by the host link, not the all-GPU figure), and the user's
/// own `--n-cpu-moe` / `-ot` flags are estimated as given. Every expert in RAM is never faster
/// than the plan that keeps some on the GPUs.
#[test]
fn fit_names_the_placement_it_estimates() {
    // One RTX 3090 of the four (256 GiB of DDR4-3200 in eight channels).
    let build = crate::support::builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let base = [
        "fit",
        &build,
        "--model",
        "gpt-oss-120b",
        "--precision",
        "mxfp4",
        "--runtime",
        "llama.cpp",
        "--parallel",
        "single",
    ];
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        a.extend(["--format", "json"]);
        serde_json::from_slice(&crate::support::kw(&a).stdout).expect("json")
    };
    let v = json(&[]);
    let n = v["fits_with_experts_in_ram"]["n_cpu_moe"].as_u64().expect("a hybrid plan");
    assert_eq!(v["placement"]["table"]["n_cpu_moe"].as_u64(), Some(n), "{v}");
    let text = String::from_utf8_lossy(&crate::support::kw(&base).stdout).into_owned();
    assert!(text.contains(&format!("--n-cpu-moe {n}")), "{text}");
    assert!(!text.contains("not for this table"), "{text}");
    let decode = v["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64().expect("decode");
    let prefill = v["fit"]["speed"]["prefill_tokens_per_s"].as_f64().expect("prefill");
    assert_eq!(v["placement"]["decode_tokens_per_s"].as_f64(), Some(decode));
    assert_eq!(v["fits_with_experts_in_ram"]["prefill_tokens_per_s"].as_f64(), Some(prefill));
    assert_eq!(v["placement"]["prefill_bound"], "host_link", "{v}");
    // All experts in RAM (-ot exps=CPU) is slower than the plan, and the user's --n-cpu-moe
    // is estimated as given (here one more layer than the plan: a little slower).
    let all = json(&["-ot", "exps=CPU"]);
    let all_decode = all["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64().expect("decode");
    assert!(all_decode < decode, "all experts in RAM {all_decode} vs plan {decode}");
    let experts_in_ram = v["experts_in_ram"]["decode_tokens_per_s"].as_f64().expect("experts_in_ram");
    assert!((experts_in_ram - all_decode).abs() < 1e-6, "{experts_in_ram} vs {all_decode}");
    let more = (n + 1).to_string();
    let u = json(&["--n-cpu-moe", &more]);
    assert_eq!(u["placement"]["table"]["n_cpu_moe"].as_u64(), Some(n + 1), "{u}");
    let u_decode = u["fit"]["speed"]["decode_batch1_tokens_per_s"].as_f64().expect("decode");
    assert!(u_decode <= decode && u_decode > all_decode, "{u_decode}");
}

/// Issue 35 boundary cases with llama.cpp's own flags, where the published run states them:
/// - llmfit PR 808 (https://github.com/AlexsJones/llmfit/pull/808, 2026-07-28): Qwen3-32B
///   Q4_K_M fully on one RX 7900 XT 20 GB at ctx 4096 (`-ngl 99`, llama.cpp Vulkan) runs: the
///   user's placement is judged by llama.cpp's own table (no 1 GiB margin of ours): it runs.
/// - A placement that cannot hold its weights (`-ngl 99` of gpt-oss-120b on one 24 GB card) does
///   not, exit 1.
#[test]
fn user_placements_are_judged_by_llama_cpps_table() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let qwen = infer(cat.model("qwen3-32b").expect("qwen3-32b").clone(), Precision::Q4_K_M, 4096, Runtime::LlamaCpp);
    let card = [GpuSlot::new(cat.gpu("amd-radeon-rx-7900-xt").cloned().expect("7900 XT"))];
    let flags = llm::placement::LlamaCppFlags { n_gpu_layers: Some(99), ..Default::default() };
    let p = llm::placement::place_as_given(&qwen, &card, None, None, &flags).expect("placement");
    assert!(p.fits_gpus && !p.is_hybrid(), "{:?}", p.table);
    let oss = infer(cat.model("gpt-oss-120b").expect("gpt-oss").clone(), Precision::Mxfp4, 4096, Runtime::LlamaCpp);
    let one = [GpuSlot::new(cat.gpu("nvidia-geforce-rtx-3090").cloned().expect("3090"))];
    let q = llm::placement::place_as_given(&oss, &one, None, None, &flags).expect("placement");
    assert!(!q.fits_gpus, "{:?}", q.table);
    // The published hybrid run of the same card class: --n-cpu-moe 27 runs on one RTX 3090
    // (hardware-corner.net, 2025-11-10, "just under the 24 GB limit"; context not stated, 4096
    // here).
    let ncmoe = llm::placement::LlamaCppFlags { n_gpu_layers: Some(99), n_cpu_moe: Some(27), ..Default::default() };
    let h = llm::placement::place_as_given(&oss, &one, None, None, &ncmoe).expect("placement");
    assert!(h.fits_gpus && h.is_hybrid(), "{:?}", h.table);
}

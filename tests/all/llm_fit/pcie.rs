//! Decode split over 4-8 PCIe GPUs: llama.cpp layer split held to
//! XiongjieDai's multi-GPU table, vLLM tensor parallel over PCIe on four GeForce cards listed
//! against vLLM issue 6955. Part of the `llm_fit` test target.

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::*;

/// XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md@aa72e0ec86c356c41f8281c9733e9a13c3675800,
/// first table (llama.cpp `llama-bench`, text generation of 1024 tokens, layer split over every
/// GPU, Llama-3-8B / 70B at Q4_K_M and F16).
const XD: &str = "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md@aa72e0ec86c356c41f8281c9733e9a13c3675800";

fn cat_gpu(id: &str) -> Gpu {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    cat.gpus.iter().find(|g| g.id == id).unwrap_or_else(|| panic!("GPU {id}")).clone()
}

/// (GPU id, count, 70B?, precision, measured tok/s).
fn layer_split_rows() -> Vec<(&'static str, u32, bool, Precision, f64)> {
    let (q4, f16) = (Precision::Q4_K_M, Precision::Fp16);
    let (g3, g4) = ("nvidia-geforce-rtx-3090", "nvidia-geforce-rtx-4090");
    let (a5, a6, ad6) = ("nvidia-rtx-5000-ada", "nvidia-rtx-a6000", "nvidia-rtx-6000-ada");
    vec![
        (g3, 4, false, q4, 104.94),
        (g3, 4, false, f16, 46.40),
        (g3, 4, true, q4, 16.89),
        (g4, 4, false, q4, 117.61),
        (g4, 4, false, f16, 52.69),
        (g4, 4, true, q4, 18.83),
        (a5, 4, false, q4, 82.73),
        (a5, 4, false, f16, 31.94),
        (a5, 4, true, q4, 11.45),
        (g3, 6, false, q4, 101.07),
        (g3, 6, false, f16, 45.55),
        (g3, 6, true, q4, 16.93),
        (g3, 6, true, f16, 5.82),
        (g4, 8, false, q4, 116.13),
        (g4, 8, false, f16, 52.12),
        (g4, 8, true, q4, 18.76),
        (g4, 8, true, f16, 6.45),
        (a6, 4, false, q4, 93.73),
        (a6, 4, false, f16, 38.87),
        (a6, 4, true, q4, 14.32),
        (a6, 4, true, f16, 4.74),
        (ad6, 4, false, q4, 118.99),
        (ad6, 4, false, f16, 50.25),
        (ad6, 4, true, q4, 17.96),
        (ad6, 4, true, f16, 6.06),
    ]
}

/// llama.cpp layer split over 4, 6 and 8 PCIe GPUs (GeForce and workstation cards): every row
/// of XiongjieDai's table for those counts within ±25 % (the hop cost per GPU boundary is
/// [`llm::LAYER_SPLIT_HOP_S`]).
#[test]
fn calibration_layer_split_over_4_to_8_pcie_gpus() {
    println!("source: {XD}\n| row | estimate | published | error |\n|---|---|---|---|");
    let mut outside = Vec::new();
    for (id, n, big, p, measured) in layer_split_rows() {
        let m = if big { llama31_70b() } else { llama31_8b() };
        // XiongjieDai's table measured 2024 builds: the history era.
        let mut i = builds_2023_24(infer(m, p, 512, Runtime::LlamaCpp));
        i.parallelism = Parallelism::LayerSplit(n);
        let est = decode1(&i, &slots(&cat_gpu(id), n as usize));
        let err = est / measured - 1.0;
        let label = format!("llama.cpp {n}x {id} {} {p} layer split", if big { "70B" } else { "8B" });
        println!("| {label} | {est:.1} | {measured} | {:+.0} % |", err * 100.0);
        if err.abs() > 0.25 {
            outside.push(format!("{label}: {est:.1} vs {measured} ({:+.1} %)", err * 100.0));
        }
    }
    assert!(outside.is_empty(), "{outside:#?}");
}

/// vLLM issue 6955 (https://github.com/vllm-project/vllm/issues/6955, vLLM v0.5.3.post1):
/// 4x RTX 3090 Ti on PCIe 4.0 x16, Llama 3.1 70B AWQ INT4, one client: 30 tok/s at TP2,
/// 46 tok/s at TP4. TP2 is held within ±25 %; TP4 is listed, not held: the estimate is 35 %
/// above. Both rows imply the same synchronisation cost, about 45 µs per all-reduce (two per
/// layer, 160 per token: 5.5 ms per token beyond the estimate's weights, overhead and 10 µs
/// all-reduces), where the model uses [`llm::PCIE_HOST_ALL_REDUCE_LATENCY_S`] = 10 µs, which
/// club-3090 issue 698 (vLLM 0.25, 2026) holds. We suspect vLLM 0.5's NCCL path without P2P
/// (no custom all-reduce) on that machine; a per-version latency is not modelled.
#[test]
fn vllm_tensor_parallel_over_pcie_geforce() {
    let g = cat_gpu("nvidia-geforce-rtx-3090-ti");
    for (tp, measured) in [(2u32, 30.0), (4, 46.0)] {
        let mut i = infer(llama31_70b(), Precision::Int4, 1024, Runtime::Vllm);
        i.parallelism = Parallelism::TensorParallel(tp);
        let r = llm::estimate(&i, &slots(&g, tp as usize)).expect("estimate");
        let s = r.speed.expect("speed");
        let est = s.decode_batch1_tokens_per_s;
        let gap_us = (1.0 / measured - 1.0 / est) * 1e6 / (2.0 * 80.0);
        println!(
            "vLLM TP{tp} 3090 Ti 70B AWQ: estimate {est:.1} tok/s (all-reduce {:.2} ms/token), published {measured} \
             ({:+.0} %): {gap_us:.0} µs more per all-reduce",
            s.all_reduce_ms_per_token,
            (est / measured - 1.0) * 100.0
        );
        // Both rows put the missing cost at 25-45 µs per all-reduce.
        assert!((25.0..45.0).contains(&gap_us), "TP{tp}: {gap_us:.0} µs");
        if tp == 2 {
            assert_within("vLLM TP2 4x3090 Ti 70B AWQ", est, measured, 0.25);
        } else {
            assert!(est > measured, "TP4 is listed as over-estimated");
        }
    }
}

/// ik_llama.cpp PR 1106 (https://github.com/ikawrakow/ik_llama.cpp/pull/1106, January 2026):
/// Qwen3-14B Q4_0 on 2x RTX 3090, split mode "layer", `sweep-bench` TG of 128 tokens at an empty
/// cache: 95.54 tok/s. ik_llama.cpp's calibration row: its per-layer overhead
/// ([`llm::IK_LLAMA_CPP_LAYER_OVERHEAD_S`]) is fitted on it (with llama.cpp's 2023 overhead the
/// estimate is 70 tok/s, -27 %).
#[test]
fn calibration_ik_llama_cpp_layer_split_2x3090() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let m = cat.model("qwen3-14b").expect("qwen3-14b preset").clone();
    let mut i = infer(m, Precision::Q4_0, 128, Runtime::IkLlamaCpp);
    i.parallelism = Parallelism::LayerSplit(2);
    let est = decode1(&i, &slots(&cat_gpu("nvidia-geforce-rtx-3090"), 2));
    assert_within("ik_llama.cpp 2x3090 Qwen3-14B Q4_0 layer split", est, 95.54, 0.25);
}

/// SGLang PR 1060 (https://github.com/sgl-project/sglang/pull/1060, August 2024): one H100,
/// Llama 3.1 8B Instruct BF16, `bench_serving` with 1000 random prompts of 8192 tokens and 8
/// output tokens at an infinite rate: 27,670 input tok/s (prefill-bound). Listed, not held: the
/// estimate (SGLang's 8192-token chunk at the vLLM-family prefill efficiency 0.60 of the BF16
/// peak) is 33 % above; the run disabled FlashInfer (Triton attention) and used torch.compile,
/// and it implies 0.45 of the peak. Asserted to stay above by 25-40 % so a change that moves it
/// is seen.
#[test]
fn sglang_prefill_h100_8k_listed() {
    let i = infer(llama31_8b(), Precision::Bf16, 8192, Runtime::Sglang);
    let r = llm::estimate(&i, &slots(&cat_gpu("nvidia-h100-sxm5-80gb"), 1)).expect("estimate");
    let est = r.speed.expect("speed").prefill_tokens_per_s.expect("prefill");
    let err = est / 27_670.0 - 1.0;
    println!("SGLang H100 Llama 3.1 8B BF16 prefill 8192: estimate {est:.0}, published 27670 ({:+.0} %)", err * 100.0);
    assert!((0.25..0.40).contains(&err), "{err}");
}

/// A new user's try-out (issue 28 follow-up): gpt-oss-120b under llama.cpp on 2x RTX 3090
/// printed `tp:2` beside `-ts`. llama.cpp has no tensor parallel (it splits layers, `-sm
/// layer`, or rows, `-sm row`): its default over several GPUs is the layer split whatever the
/// format, and an explicit `tp:N` with llama.cpp is refused, naming what to use.
#[test]
fn llama_cpp_is_never_tensor_parallel() {
    let build = "tests/fixtures/2x-rtx-3090-64gib.rig.ron";
    let o = crate::support::kw(&[
        "fit",
        build,
        "--model",
        "gpt-oss-120b",
        "--runtime",
        "llama.cpp",
        "--precision",
        "native",
    ]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    println!("{out}");
    assert!(!out.contains("tp:2"), "{out}");
    assert!(out.contains("split:2"), "{out}");
    // One plan: the table's arguments, given once as the advice, no second or third split
    // beside them, and no all-experts-in-RAM line.
    let args = out.lines().find_map(|l| l.split("llama.cpp arguments: ").nth(1)).unwrap_or_else(|| panic!("{out}"));
    let plans: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("- ") && (l.contains("-ngl") || l.contains("--n-cpu-moe")))
        .collect();
    assert_eq!(plans.len(), 1, "{plans:#?}");
    assert!(plans[0].contains(args), "{} vs {args}", plans[0]);
    // (The verdict may say "fits with experts in system RAM": the expert offload is the fit.)
    assert!(!out.contains("every routed expert in RAM"), "{out}");
    // The split uses both cards (the old table left the second at 2.4 of 24 GiB).
    let busy: Vec<f64> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("CUDA"))
        .map(|l| {
            let f: Vec<f64> = l.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            f[1] / f[0]
        })
        .collect();
    assert_eq!(busy.len(), 2, "{out}");
    assert!(busy.iter().all(|b| *b > 0.6), "{busy:?}\n{out}");
    let o =
        crate::support::kw(&["fit", build, "--model", "gpt-oss-120b", "--runtime", "llama.cpp", "--parallel", "tp:2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("llama.cpp has no tensor parallel") && err.contains("split:2"), "{err}");
    // ik_llama.cpp's graph split is a tensor split: tp stays allowed there.
    let o = crate::support::kw(&[
        "fit",
        build,
        "--model",
        "gpt-oss-120b",
        "--runtime",
        "ik_llama.cpp",
        "--parallel",
        "tp:2",
    ]);
    assert_ne!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

//! Batch throughput held to the current TensorRT-LLM performance overview (PyTorch backend,
//! `trtllm-bench throughput`, 2025-26): H100 SXM and H200 SXM in FP8 (and B200 in NVFP4).
//! Part of the `llm_fit` test target (helpers from its root).

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::*;
use kraftwerk::plan::goal::{Goal, ModelRef};
use kraftwerk::plan::plan_blocking;

/// Where the rows come from: NVIDIA/TensorRT-LLM `docs/source/performance/perf-overview.md`
/// at commit 00f37686aa854010d68bcbd0f4ab000221541ca6 (the "v1.0" overview: H100 SXM 80GB in a
/// DGX H100, H200 SXM 141GB in a DGX H200, B200 180GB in a DGX B200; ModelOpt FP8 / FP4
/// checkpoints; synthetic requests of fixed ISL/OSL fed at an infinite rate; the figure is
/// "Total Output Throughput (tokens/sec)" of the whole group).
pub const TRT_OVERVIEW: &str =
    "NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md@00f37686aa854010d68bcbd0f4ab000221541ca6";

fn catalog_gpu(id: &str) -> Gpu {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    cat.gpus.iter().find(|g| g.id == id).unwrap_or_else(|| panic!("GPU {id}")).clone()
}

fn catalog_model(id: &str) -> LlmModel {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    cat.model(id).unwrap_or_else(|| panic!("model {id}")).clone()
}

/// (model id, GPU id, precision, TP, ISL, OSL, measured total output tok/s).
pub type OverviewRow = (&'static str, &'static str, Precision, u32, u32, u32, f64);

/// The rows of the overview's tables (every figure printed for H100 and H200; empty cells left
/// out).
pub fn overview_rows() -> Vec<OverviewRow> {
    let (h1, h2) = ("nvidia-h100-sxm5-80gb", "nvidia-h200-sxm");
    let fp8 = Precision::Fp8;
    let lengths = [
        (128, 128),
        (128, 2048),
        (128, 4096),
        (500, 2000),
        (1000, 1000),
        (1000, 2000),
        (2048, 128),
        (2048, 2048),
        (5000, 500),
        (20000, 2000),
    ];
    // Columns as printed: (model, GPU, TP, ten figures in the order of `lengths`, 0 = empty).
    let tables: [(&str, &str, u32, [f64; 10]); 10] = [
        (
            "llama-3.1-8b",
            h2,
            1,
            [27_911.0, 26_221.0, 18_027.0, 20_770.0, 17_744.0, 16_828.0, 3_538.0, 12_194.0, 3_902.0, 1_804.0],
        ),
        (
            "llama-3.1-8b",
            h1,
            1,
            [28_312.0, 22_714.0, 14_325.0, 17_660.0, 15_220.0, 13_899.0, 3_450.0, 9_305.0, 3_459.0, 1_351.0],
        ),
        ("llama-3.3-70b", h2, 1, [3_803.0, 4_336.0, 2_872.0, 3_666.0, 2_909.0, 2_994.0, 442.0, 2_003.0, 566.0, 283.0]),
        ("llama-3.3-70b", h1, 2, [6_378.0, 6_651.0, 4_199.0, 5_222.0, 4_205.0, 4_146.0, 762.0, 3_082.0, 898.0, 437.0]),
        ("llama-3.1-405b", h2, 8, [3_814.0, 5_348.0, 4_741.0, 4_724.0, 3_330.0, 3_722.0, 456.0, 2_948.0, 650.0, 505.0]),
        ("llama-3.1-405b", h1, 8, [3_627.0, 4_340.0, 3_116.0, 3_994.0, 2_919.0, 2_895.0, 453.0, 2_296.0, 610.0, 345.0]),
        (
            "qwen3-235b-a22b",
            h2,
            8,
            [30_429.0, 42_821.0, 26_852.0, 28_026.0, 23_789.0, 22_061.0, 3_331.0, 16_672.0, 3_623.0, 1_876.0],
        ),
        ("qwen3-235b-a22b", h1, 8, [0.0, 19_658.0, 12_447.0, 18_351.0, 14_898.0, 15_136.0, 0.0, 9_924.0, 3_225.0, 0.0]),
        (
            "llama-4-maverick",
            h2,
            8,
            [63_994.0, 40_572.0, 24_616.0, 37_835.0, 31_782.0, 34_734.0, 7_307.0, 20_957.0, 8_456.0, 4_106.0],
        ),
        (
            "llama-4-scout",
            h2,
            4,
            [30_354.0, 34_316.0, 21_332.0, 24_630.0, 21_636.0, 18_499.0, 3_699.0, 14_949.0, 4_605.0, 2_105.0],
        ),
    ];
    let mut rows = Vec::new();
    for (m, g, tp, figures) in tables {
        for ((isl, osl), f) in lengths.iter().zip(figures) {
            if f > 0.0 {
                rows.push((m, g, fp8, tp, *isl, *osl, f));
            }
        }
    }
    rows
}

/// Estimate of one overview row: TensorRT-LLM, FP8 weights and KV, tensor parallel over the
/// SXM NVLink; the batch in flight is the largest the KV pool holds at ISL + OSL tokens, up to
/// TensorRT-LLM's `max_batch_size` default of 2048 (`tensorrt_llm/llmapi/llm_args.py`).
/// Returns (estimate total tok/s, batch).
pub fn overview_estimate(row: &OverviewRow) -> (f64, u32) {
    let &(model_id, gpu_id, precision, tp, isl, osl, _) = row;
    let gpu = catalog_gpu(gpu_id);
    let mut i = infer(catalog_model(model_id), precision, isl + osl, Runtime::TensorRtLlm);
    i.kv_precision = Precision::Fp8;
    i.parallelism = if tp > 1 { Parallelism::TensorParallel(tp) } else { Parallelism::Single };
    let group: Vec<GpuSlot> = (0..tp)
        .map(|_| match Link::nvlink_of(&gpu) {
            Some(link) => GpuSlot::with_link(gpu.clone(), link),
            None => GpuSlot::new(gpu.clone()),
        })
        .collect();
    let batch = llm::search::largest_batch(&i, &group).unwrap_or(1).min(2048);
    i.batch = batch;
    let t = llm::throughput::batch_throughput(&i, &group, isl, osl).expect("throughput");
    (t.output_tokens_per_s, batch)
}

/// Label of a row as the tables print it.
fn label(row: &OverviewRow) -> String {
    let &(m, g, _, tp, isl, osl, _) = row;
    let g = if g.contains("h100") { "H100" } else { "H200" };
    format!("{m} {g} TP{tp} {isl}/{osl}")
}

/// Rows listed, not held (30 of 97): the estimate falls outside ±25 % of them.
/// - Long outputs at large batch (OSL 1000-4096 with the batch in the hundreds or thousands:
///   the H200 8B and 70B, the H100 405B, Qwen3-235B, Maverick and Scout groups): 25-92 %
///   above. The estimate fills the KV pool (the largest batch that fits, up to 2048); the
///   overview's runs evidently decode fewer sequences at a time (`trtllm-bench` picks
///   `max_batch_size` and `max_num_tokens` by a tuning heuristic the overview does not print),
///   or decode attention at those batches runs below the bandwidth roofline. Not modelled; the
///   short-output and long-prompt rows of the same groups are held.
/// - Llama 4 Scout at TP4 is the worst (48-92 % above on its seven long-output rows): it
///   routes one of 16 experts per token, and we do not know what TensorRT-LLM runs
///   differently for it (attention data parallel over few experts per rank is a suspicion).
/// - Qwen3-235B 5000/500 and 20000/2000 (+28 to +42 %) and Maverick 128/128 (-28 %).
pub const OVERVIEW_NOT_HELD: [&str; 30] = [
    "llama-3.1-8b H200 TP1 128/2048",
    "llama-3.1-8b H200 TP1 500/2000",
    "llama-3.1-8b H200 TP1 1000/1000",
    "llama-3.1-8b H200 TP1 1000/2000",
    "llama-3.3-70b H200 TP1 128/2048",
    "llama-3.1-405b H100 TP8 128/2048",
    "llama-3.1-405b H100 TP8 128/4096",
    "llama-3.1-405b H100 TP8 1000/2000",
    "qwen3-235b-a22b H200 TP8 500/2000",
    "qwen3-235b-a22b H200 TP8 1000/2000",
    "qwen3-235b-a22b H200 TP8 5000/500",
    "qwen3-235b-a22b H200 TP8 20000/2000",
    "qwen3-235b-a22b H100 TP8 128/2048",
    "qwen3-235b-a22b H100 TP8 128/4096",
    "qwen3-235b-a22b H100 TP8 1000/1000",
    "qwen3-235b-a22b H100 TP8 5000/500",
    "llama-4-maverick H200 TP8 128/128",
    "llama-4-maverick H200 TP8 128/2048",
    "llama-4-maverick H200 TP8 128/4096",
    "llama-4-maverick H200 TP8 500/2000",
    "llama-4-maverick H200 TP8 1000/2000",
    "llama-4-maverick H200 TP8 2048/2048",
    "llama-4-maverick H200 TP8 20000/2000",
    "llama-4-scout H200 TP4 128/2048",
    "llama-4-scout H200 TP4 128/4096",
    "llama-4-scout H200 TP4 500/2000",
    "llama-4-scout H200 TP4 1000/1000",
    "llama-4-scout H200 TP4 1000/2000",
    "llama-4-scout H200 TP4 2048/2048",
    "llama-4-scout H200 TP4 20000/2000",
];

/// Batch throughput against the current TensorRT-LLM performance overview (source at
/// [`TRT_OVERVIEW`]): every row not in [`OVERVIEW_NOT_HELD`] within ±25 %, at least 40 of
/// them; every listed row really outside (the list hides nothing the estimate holds).
#[test]
fn calibration_trtllm_overview_2025() {
    let mut held = Vec::new();
    let mut outside = Vec::new();
    let mut listed_but_inside = Vec::new();
    println!("source: {TRT_OVERVIEW}");
    println!("| row (total output tok/s) | batch | estimate | published | error | held |\n|---|---|---|---|---|---|");
    for row in overview_rows() {
        let (est, b) = overview_estimate(&row);
        let measured = row.6;
        let err = est / measured - 1.0;
        let l = label(&row);
        let listed = OVERVIEW_NOT_HELD.contains(&l.as_str());
        println!(
            "| TRT-LLM {l} FP8 | {b} | {est:.0} | {measured:.0} | {:+.0} % | {} |",
            err * 100.0,
            if listed { "no" } else { "yes" }
        );
        match (listed, err.abs() <= 0.25) {
            (false, true) => held.push(l),
            (false, false) => outside.push(format!("{l}: {est:.0} vs {measured:.0} ({:+.1} %)", err * 100.0)),
            (true, true) => listed_but_inside.push(l),
            (true, false) => {}
        }
    }
    assert!(outside.is_empty(), "held rows outside ±25 %: {outside:#?}");
    assert!(listed_but_inside.is_empty(), "rows listed as not held that the estimate holds: {listed_but_inside:#?}");
    assert!(held.len() >= 40, "{} rows held", held.len());
}

/// Issue 28, item 4: `--runtime` takes SGLang, TensorRT-LLM, ik_llama.cpp and ktransformers (each
/// name round-trips), an unknown name is refused with every accepted one, and the planner plans
/// for a runtime: with "best" precision it tries that runtime's own precisions.
#[test]
fn new_runtimes_parse_and_the_planner_plans_for_them() {
    for (name, rt) in [
        ("sglang", Runtime::Sglang),
        ("tensorrt-llm", Runtime::TensorRtLlm),
        ("trtllm", Runtime::TensorRtLlm),
        ("ik_llama.cpp", Runtime::IkLlamaCpp),
        ("ktransformers", Runtime::KTransformers),
    ] {
        assert_eq!(name.parse::<Runtime>(), Ok(rt), "{name}");
        assert_eq!(rt.to_string().parse::<Runtime>(), Ok(rt), "{rt}");
    }
    let e = "mlc-llm".parse::<Runtime>().expect_err("unknown runtime").0;
    for rt in Runtime::ALL {
        assert!(e.contains(&rt.to_string()), "{e} lacks {rt}");
    }

    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let goal = |rt: Runtime| Goal {
        model: ModelRef::Preset("llama-3.1-8b".into()),
        runtime: Some(rt),
        max_results: 1,
        ..Goal::default()
    };
    // `plan --runtime` parses through the same names and says which ones it takes.
    let bad = "mlc-llm".parse::<kraftwerk::plan::goal::RuntimeChoice>().expect_err("unknown runtime").0;
    assert!(bad.contains("tensorrt-llm") && bad.contains("ktransformers"), "{bad}");
    for (rt, family) in [(Runtime::Sglang, ["bf16", "fp8", "int4"]), (Runtime::IkLlamaCpp, ["q8_0", "q6_k", "q5_k_m"])]
    {
        let out = plan_blocking(&cat, &goal(rt)).expect("plan");
        let r = out.results.first().unwrap_or_else(|| panic!("{rt}: no plan"));
        assert!(family.contains(&r.precision.to_string().as_str()), "{rt}: planned at {}", r.precision);
    }
}

//! Tensor × pipeline parallel and several nodes: memory split by stages and ranks, pipelined
//! decode, the interconnect, and published multi-GPU / multi-node measurements.

use super::*;
use kraftwerk::estimate::llm::Interconnect;

/// A100 SXM4 40GB: 1555 GB/s, dense FP16/BF16 312 TFLOP/s, NVLink 600 GB/s (NVIDIA A100
/// datasheet).
fn a100_40_sxm() -> Gpu {
    let mut g = gpu(
        "nvidia-a100-40gb-sxm",
        "A100 SXM 40GB",
        40.0,
        1555.0,
        312.0,
        None,
        None,
        NvLink::Sxm { bandwidth_gb_s: 600.0 },
    );
    g.form_factor = GpuFormFactor::Sxm;
    g
}
/// H200 SXM: 141 GB, 4800 GB/s, dense FP16 989.4 and FP8 1978.9 TFLOP/s, NVLink 900 GB/s
/// (NVIDIA H200 datasheet).
fn h200_sxm() -> Gpu {
    let mut g = gpu(
        "nvidia-h200-sxm",
        "H200 SXM",
        141.0,
        4800.0,
        989.4,
        None,
        Some(1978.9),
        NvLink::Sxm { bandwidth_gb_s: 900.0 },
    );
    g.form_factor = GpuFormFactor::Sxm;
    g
}
/// Llama 3.1 405B (config.json: 126 layers, 16384, 128 heads, 8 KV heads, 53248, vocab 128256).
fn llama31_405b() -> LlmModel {
    model("llama-3.1-405b", 405.85, None, 126, 16384, 128, 8, 128, 53248, 128_256, 131_072, Attention::Full)
}

fn node(g: &Gpu, n: usize) -> Vec<GpuSlot> {
    (0..n)
        .map(|_| match Link::nvlink_of(g) {
            Some(link) => GpuSlot::with_link(g.clone(), link),
            None => GpuSlot::new(g.clone()),
        })
        .collect()
}

/// GH200 (one H100 96 GB per node, 4000 GB/s HBM3, NVLink-C2C to its CPU).
fn gh200() -> Gpu {
    let mut g = gpu("nvidia-gh200", "GH200 (H100 96GB)", 96.0, 4000.0, 989.4, None, Some(1978.9), NvLink::None);
    g.form_factor = GpuFormFactor::Sxm;
    g
}

fn tp_pp(m: LlmModel, p: Precision, context: u32, batch: u32, tp: u32, pp: u32) -> FitInput {
    let mut i = infer(m, p, context, Runtime::Vllm);
    i.batch = batch;
    i.parallelism = Parallelism::TensorPipeline { tp, pp };
    i
}

#[test]
fn parallelism_strings_keep_old_forms_and_take_tp_by_pp() {
    assert_eq!("tp:8,pp:2".parse::<Parallelism>(), Ok(Parallelism::TensorPipeline { tp: 8, pp: 2 }));
    assert_eq!("pp:2, tp:4".parse::<Parallelism>(), Ok(Parallelism::TensorPipeline { tp: 4, pp: 2 }));
    assert_eq!("pp:4".parse::<Parallelism>(), Ok(Parallelism::LayerSplit(4)));
    assert_eq!("tp:2".parse::<Parallelism>(), Ok(Parallelism::TensorParallel(2)));
    assert!("tp:2,tp:4".parse::<Parallelism>().is_err());
    let p = Parallelism::TensorPipeline { tp: 8, pp: 2 };
    assert_eq!(p.to_string().parse::<Parallelism>(), Ok(p));
    assert_eq!((p.degree(), p.tp_degree(), p.pp_degree()), (16, 8, 2));
    assert_eq!("ib-ndr".parse::<Interconnect>(), Ok(Interconnect::IbNdr));
}

/// Weights and KV split by layers over the stages and by heads over the ranks: every GPU of
/// tp:4,pp:2 holds about 1/8 of the weights and of the KV cache.
#[test]
fn memory_splits_by_stages_and_ranks() {
    let mut i = tp_pp(llama31_70b(), Precision::Bf16, 8192, 8, 4, 2);
    i.nodes = 2;
    i.interconnect = Some(Interconnect::IbNdr);
    let r = llm::estimate(&i, &node(&h200_sxm(), 4)).expect("estimate");
    assert_eq!(r.gpus.len(), 8);
    assert_eq!((r.nodes, r.gpus_per_node, r.interconnect), (2, 4, Some(Interconnect::IbNdr)));
    for g in &r.gpus {
        assert_eq!(g.layers, 40, "GPU {} holds {} layers", g.index, g.layers);
        let w_share = g.memory.weights_gib / r.weights_total_gib;
        assert!((w_share - 0.125).abs() < 0.02, "GPU {} weights share {w_share:.3}", g.index);
        let kv_share = g.memory.kv_cache_gib / r.kv_cache_total_gib;
        assert!((kv_share - 0.125).abs() < 1e-6, "GPU {} KV share {kv_share:.4}", g.index);
    }
    // The first stage holds the embedding, the last the LM head: they differ by a table.
    assert!(r.speed.expect("speed").pipeline_stages == 2);
}

/// Decode at batch 1 runs the stages one after another: no faster than the same GPUs' work
/// done in one stage, plus a handoff; at a batch the micro-batches fill the stages (up to pp x
/// the batch-1 rate, bounded by the slowest stage).
#[test]
fn pipeline_decode_is_sequential_at_batch_one_and_fills_at_batch() {
    let g = node(&h200_sxm(), 8);
    let one = llm::estimate(&tp_pp(llama31_70b(), Precision::Bf16, 2048, 1, 2, 1), &g).expect("pp1");
    let four = llm::estimate(&tp_pp(llama31_70b(), Precision::Bf16, 2048, 1, 2, 4), &g).expect("pp4");
    let (s1, s4) = (one.speed.expect("s"), four.speed.expect("s"));
    assert!(s4.decode_batch1_tokens_per_s <= s1.decode_batch1_tokens_per_s * 1.02, "{s4:?}");
    assert!(s4.stage_handoff_ms_per_token > 0.0);
    let b4 = llm::estimate(&tp_pp(llama31_70b(), Precision::Bf16, 2048, 4, 2, 4), &g).expect("pp4 b4");
    let gain = b4.speed.expect("s").decode_batch_tokens_per_s / s4.decode_batch1_tokens_per_s;
    assert!(gain > 3.0 && gain <= 4.0 + 1e-9, "batch-4 gain over batch 1 with 4 stages: {gain:.2}");
    assert!(b4.notes.iter().any(|n| n.contains("pipeline of 4 stages")), "{:?}", b4.notes);
}

/// TP wider than a node runs its all-reduces over the interconnect: allowed, slower, and said.
/// Several nodes without a named interconnect are refused (unknown is not a number).
#[test]
fn tensor_parallel_across_nodes_is_slow_and_warned() {
    let g = node(&h200_sxm(), 8);
    let mut within = tp_pp(llama31_405b(), Precision::Fp8, 4096, 1, 8, 2);
    within.nodes = 2;
    within.interconnect = Some(Interconnect::IbNdr);
    let mut across = within.clone();
    across.parallelism = Parallelism::TensorParallel(16);
    let a = llm::estimate(&within, &g).expect("tp8 pp2");
    let b = llm::estimate(&across, &g).expect("tp16");
    let (sa, sb) = (a.speed.expect("s"), b.speed.expect("s"));
    // At batch 1 the messages are small and latency rules: TP16 may still decode faster, but it
    // pays far more all-reduce time; prefill (large messages) is several times slower.
    assert!(sb.all_reduce_ms_per_token > 2.0 * sa.all_reduce_ms_per_token, "{sb:?} vs {sa:?}");
    let (pa, pb) = (sa.prefill_tokens_per_s.unwrap_or(0.0), sb.prefill_tokens_per_s.unwrap_or(f64::INFINITY));
    assert!(pb * 2.0 < pa, "prefill tp16 across nodes {pb:.0} vs tp8 pp2 {pa:.0} tok/s");
    assert!(b.notes.iter().any(|n| n.contains("spans nodes")), "{:?}", b.notes);
    assert!(sb.link.as_deref().is_some_and(|l| l.contains("ib-ndr")), "{:?}", sb.link);
    let mut unknown = within.clone();
    unknown.interconnect = None;
    assert!(matches!(llm::estimate(&unknown, &g), Err(llm::FitError::InvalidInput(_))));
    let mut too_many = within;
    too_many.parallelism = Parallelism::TensorPipeline { tp: 8, pp: 3 };
    assert!(matches!(llm::estimate(&too_many, &g), Err(llm::FitError::NotEnoughGpus { wanted: 24, given: 16, .. })));
}

/// vLLM issue 6610 (github.com/vllm-project/vllm/issues/6610): Llama-3-70B, pipeline parallel
/// over two GH200 nodes; doubling the link between them (400 to 800 Gb/s) left tokens/s
/// unchanged (measured ratio 1.0). The estimate's per-boundary handoff (hidden × 2 bytes per
/// token) is as small: going from 200 to 400 Gb/s moves decode by under 1 % at batch 1 and 32.
#[test]
fn calibration_vllm_6610_pipeline_across_nodes_insensitive_to_link_bandwidth() {
    for batch in [1, 32] {
        let rate = |ic| {
            let mut i = tp_pp(llama31_70b(), Precision::Fp8, 2048, batch, 1, 2);
            i.nodes = 2;
            i.interconnect = Some(ic);
            llm::estimate(&i, &node(&gh200(), 1)).expect("estimate").speed.expect("speed").decode_batch_tokens_per_s
        };
        let ratio = rate(Interconnect::Roce400) / rate(Interconnect::Roce200);
        assert_within(&format!("vLLM 6610 decode 2x link, batch {batch} (ratio)"), ratio, 1.0, 0.25);
        assert!((ratio - 1.0).abs() < 0.01, "batch {batch}: {ratio}");
    }
}

/// NVIDIA Technical Blog (August 2024) on Llama 3.1 405B with the TensorRT Model Optimizer FP8
/// recipe, Table 1 (as reproduced at
/// blockchain.news/news/nvidia-enhances-llama-3-1-405b-performance-with-tensorrt-model-optimizer):
/// 8x H200 SXM (141 GB, NVLink Switch 900 GB/s), Llama 3.1 405B FP8 with FP8 KV, input 2048 /
/// output 128, maximum throughput 463.1 output tok/s. The batch is not published; prefill
/// dominates at these lengths, and the estimate holds over batch 64-128.
#[test]
fn calibration_nvidia_blog_405b_fp8_tp8_h200() {
    for batch in [64, 128] {
        let mut i = infer(llama31_405b(), Precision::Fp8, 2048, Runtime::Vllm);
        i.kv_precision = Precision::Fp8;
        i.batch = batch;
        i.parallelism = Parallelism::TensorParallel(8);
        let t = llm::throughput::batch_throughput(&i, &node(&h200_sxm(), 8), 2048, 128).expect("throughput");
        assert_within(
            &format!("405B FP8 TP8 8x H200 2048/128 batch {batch} (out tok/s)"),
            t.output_tokens_per_s,
            463.1,
            0.25,
        );
    }
}

/// TensorRT-LLM v0.6.1 performance.md (NVIDIA/TensorRT-LLM docs/source/performance.md, commit
/// 138f96d), H100 FP8 "Peak Throughput": Falcon 180B TP4, batch 1024, 128/128: 987 out
/// tok/s/GPU; batch 64, 2048/128: 112. (Falcon-180B config.json: 80 layers, hidden 14848,
/// 232 heads, 8 KV heads, head_dim 64, vocab 65024; 179.5B.) The long-output rows of the same
/// table (724 and 264) are not held, for the reason given at the TensorRT-LLM table in
/// `serving.rs` (GQA decode attention of v0.6).
#[test]
fn calibration_trtllm_falcon_180b_tp4_h100() {
    let falcon = model("falcon-180b", 179.5, None, 80, 14848, 232, 8, 64, 59392, 65024, 2048, Attention::Full);
    for (batch, isl, osl, measured) in [(1024u32, 128u32, 128u32, 987.0), (64, 2048, 128, 112.0)] {
        let mut i = infer(falcon.clone(), Precision::Fp8, isl, Runtime::Vllm);
        i.kv_precision = Precision::Fp8;
        i.batch = batch;
        i.parallelism = Parallelism::TensorParallel(4);
        let t = llm::throughput::batch_throughput(&i, &node(&super::serving_h100(), 4), isl, osl).expect("throughput");
        assert_within(
            &format!("Falcon 180B FP8 TP4 H100 {batch}x{isl}/{osl} (tok/s/GPU)"),
            t.output_tokens_per_s_per_gpu,
            measured,
            0.25,
        );
    }
}

/// Not held, listed: vLLM's nightly serving benchmark on Azure (two ND96asr_v4 nodes, 8x A100
/// 40GB SXM each, InfiniBand HDR), Llama-3.3-70B BF16 tp4 pp2, ShareGPT at 1 request/s: mean
/// TPOT 43.7 ms (22.9 tok/s per sequence at about 9 in flight; published by a user as gist
/// surajssd/c8bbcb244b210a3607ad952a7bdda759). The estimate says 31.5 tok/s (+38 %); the same
/// overestimate appears for tp4 on one node, so we read it as serving overhead (prefills
/// arriving between decode steps at 1 request/s), not the pipeline; the number is printed.
#[test]
fn listed_vllm_nightly_azure_tp4_pp2_two_nodes() {
    let mut i = tp_pp(llama31_70b(), Precision::Bf16, 330, 9, 4, 2);
    i.nodes = 2;
    i.interconnect = Some(Interconnect::IbHdr);
    let r = llm::estimate(&i, &node(&a100_40_sxm(), 8)).expect("estimate");
    let est = r.speed.expect("speed").decode_per_sequence_tokens_per_s;
    println!("vLLM nightly Azure tp4 pp2, 2 nodes: estimate {est:.1} tok/s per sequence, measured 22.9 (not held)");
    assert!(est > 22.9, "the estimate is an upper bound of the served rate: {est:.1}");
}

/// Both faces: `kraftwerk fit --parallel tp:N,pp:M --nodes K --interconnect ...` prints the plan
/// in text and JSON, and a build file's workload may carry the same settings (older files
/// without them still load, as every file in `catalog/builds/` does).
#[test]
fn cli_fit_over_nodes_text_json_and_build_file() {
    let exe = env!("CARGO_BIN_EXE_kraftwerk");
    let build = concat!(env!("CARGO_MANIFEST_DIR"), "/catalog/builds/h200-sxm-1gpu.rig.ron");
    let args = ["fit", build, "--model", "llama-3.1-405b", "--precision", "fp8", "--parallel", "tp:1,pp:16"];
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(exe).args(args).args(extra).output().expect("run kraftwerk");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, text, err) = run(&["--nodes", "16", "--interconnect", "ib-ndr"]);
    assert_eq!(code, Some(0), "{text}{err}");
    assert!(text.contains("16 nodes of 1 GPU, linked by ib-ndr"), "{text}");
    assert!(text.contains("pipeline: 16 stages"), "{text}");
    let (_, json, _) = run(&["--nodes", "16", "--interconnect", "ib-ndr", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["fit"]["nodes"], 16);
    assert_eq!(v["fit"]["interconnect"], "ib-ndr");
    assert_eq!(v["fit"]["parallelism"]["tensor_pipeline"]["pp"], 16);
    let (code, _, err) = run(&["--nodes", "16"]);
    assert_eq!(code, Some(2), "several nodes without an interconnect: {err}");

    let text = std::fs::read_to_string(build).expect("read build");
    let with = text.replacen(
        "mode: \"inference\")",
        "mode: \"inference\", parallel: Some(\"tp:1,pp:2\"), nodes: Some(2), interconnect: Some(\"roce-400\"))",
        1,
    );
    assert_ne!(with, text, "the workload line moved");
    let dir = std::env::temp_dir().join(format!("kraftwerk-par-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let path = dir.join("two-nodes.rig.ron");
    std::fs::write(&path, with).expect("write");
    let out = std::process::Command::new(exe).arg("fit").arg(&path).output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("2 nodes of 1 GPU, linked by roce-400") && stdout.contains("tp:1,pp:2"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

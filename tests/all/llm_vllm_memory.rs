//! vLLM's KV pool as vLLM sizes it ([`kraftwerk::estimate::llm::vllm_memory`]), held to
//! published vLLM start-up logs. Each row names the log it comes from; the band is ±10 %.
//!
//! | row | GPU | model | max_model_len | util | published | source |
//! |---|---|---|---|---|---|---|
//! | 1 | RTX 3090 | Llama-3.1-8B BF16 | 20,000 | 0.90 | 1,952 blocks × 16 = 31,232 tokens, 1.56x | vLLM #10517 (V0) |
//! | 2 | RTX 3090 | Llama-3.1-8B BF16 | 29,000 | 0.90 | 1,478 × 16 = 23,648 tokens, 0.82x (refused) | vLLM #10517 (V0) |
//! | 3 | (pool given) | Qwen3-14B BF16 | 32,768 | - | 6.51 GiB → 42,656 tokens, 1.30x | LMCache #1739 |
//! | 4 | H100 80GB | gpt-oss-120b MXFP4 | 131,072 | 0.90 | weights 65.97 GiB, pool -2.14 GiB (refused) | vLLM #23278 (predicted: -2.16) |
//! | 5 | H100 80GB | gpt-oss-120b MXFP4 | 131,072 | 0.95, 1024 batched | pool 1.71 GiB (refused at 131,072) | vLLM #27508 (fitted row) |

use kraftwerk::catalog::{Catalog, Gpu, LlmModel};
use kraftwerk::estimate::llm::runtime_memory;
use kraftwerk::estimate::llm::vllm_memory::{self, VllmEngine};
use kraftwerk::estimate::llm::{self, FitInput, FitVerdict, GIB, GpuSlot, Precision, Runtime};

fn catalog() -> Catalog {
    kraftwerk::catalog::builtin().expect("built-in catalog")
}

fn model(c: &Catalog, id: &str) -> LlmModel {
    c.models.iter().find(|m| m.id == id).cloned().unwrap_or_else(|| panic!("model {id}"))
}

fn gpu(c: &Catalog, id: &str) -> Gpu {
    c.gpus.iter().find(|g| g.id == id).cloned().unwrap_or_else(|| panic!("gpu {id}"))
}

fn within(estimate: f64, published: f64, band: f64) -> bool {
    ((estimate - published) / published).abs() <= band
}

/// vLLM issue 10517, comment by kaspersiminski (2024-12-02), RTX 3090, Llama-3.1-8B-Instruct,
/// `gpu_memory_utilization=0.90`, V0 engine (profiles `max_model_len` tokens, no chunked
/// prefill below 32K): "GPU blocks: 1952" at 20,000 and 1478 at 29,000 (block 16 tokens).
/// https://github.com/vllm-project/vllm/issues/10517
#[test]
fn llama_8b_on_rtx_3090_matches_vllm_issue_10517() {
    let c = catalog();
    let m = model(&c, "llama-3.1-8b");
    let g = gpu(&c, "nvidia-geforce-rtx-3090");
    for (len, published_tokens, published_x) in [(20_000u32, 31_232.0, 1.56), (29_000, 23_648.0, 0.82)] {
        let engine = VllmEngine {
            gpu_memory_utilization: 0.90,
            max_num_batched_tokens: len,
            max_num_seqs: 256,
            max_model_len: len,
            sampler_profiled: false,
        };
        let per_seq = llm::kv_cache_bytes(&m, Precision::Fp16, len, 1, 1);
        let pool =
            vllm_memory::pool_from_parts(&m, &engine, g.memory_gib, llm::weight_bytes(&m, Precision::Bf16), 1, per_seq);
        let tokens = pool.kv_tokens as f64;
        assert!(
            within(tokens, published_tokens, 0.10),
            "{len}: estimate {tokens} tokens vs published {published_tokens} ({pool:?})"
        );
        assert!(
            within(pool.max_concurrency, published_x, 0.10),
            "{len}: {:.2}x vs {published_x}x",
            pool.max_concurrency
        );
        assert_eq!(pool.holds_one_sequence, published_x >= 1.0, "{len}: same side as vLLM's refusal");
    }
}

/// LMCache issue 1739 (jaeyoun98, 2025-10-03), Qwen3-14B on one GPU, vLLM V1:
/// "Available KV cache memory: 6.51 GiB", "GPU KV cache size: 42,656 tokens", "Maximum
/// concurrency for 32,768 tokens per request: 1.30x". Holds the pool → tokens conversion.
/// https://github.com/LMCache/LMCache/issues/1739
#[test]
fn qwen3_14b_pool_to_tokens_matches_lmcache_issue_1739() {
    let c = catalog();
    let m = model(&c, "qwen3-14b");
    let per_token = llm::kv_cache_bytes(&m, Precision::Fp16, 32_768, 1, 1) / 32_768.0;
    let tokens = 6.51 * GIB / per_token;
    assert!(within(tokens, 42_656.0, 0.10), "estimate {tokens:.0} tokens vs 42,656");
    assert!(within(tokens / 32_768.0, 1.30, 0.10));
}

fn gpt_oss_on_h100(util: Option<f64>, batched: Option<u32>) -> llm::FitReport {
    let c = catalog();
    let mut input = FitInput::new(model(&c, "gpt-oss-120b"), Precision::Native);
    input.runtime = Some(Runtime::Vllm);
    input.context_tokens = 131_072;
    input.gpu_memory_utilization = util;
    input.max_num_batched_tokens = batched;
    llm::estimate(&input, &[GpuSlot::new(gpu(&c, "nvidia-h100-sxm5-80gb"))]).expect("estimate")
}

/// vLLM issue 23278 (QichangZheng, 2025-08-20): `vllm serve openai/gpt-oss-120b` on one H100,
/// defaults (0.9, 8192 batched tokens, 131,072 context): "Model loading took 65.9651 GiB",
/// "Available KV cache memory: -2.14 GiB", engine failed to start.
/// https://github.com/vllm-project/vllm/issues/23278
///
/// Done-when of issue 28: the longest context that fits gpt-oss-120b on one 80 GB GPU under
/// vLLM defaults is on the same side as vLLM's own limit: none (it does not start).
#[test]
fn gpt_oss_120b_on_one_h100_at_defaults_does_not_start_as_in_vllm_issue_23278() {
    let r = gpt_oss_on_h100(None, None);
    let pool = r.vllm.as_ref().expect("vLLM pool");
    assert!(within(pool.weights_gib, 65.9651, 0.10), "weights {:.2} GiB vs 65.97", pool.weights_gib);
    assert!(pool.kv_pool_gib < 0.0, "pool {:.2} GiB: vLLM logged -2.14 GiB", pool.kv_pool_gib);
    assert_eq!(r.verdict, FitVerdict::DoesNotFit);
    assert_eq!(r.max_context_tokens, None, "vLLM does not start at any context");
}

/// vLLM issue 27508 (matheusfvesco, 2025-10-31): `vllm serve openai/gpt-oss-120b
/// --gpu-memory-utilization 0.95 --max-num-batched-tokens 1024` on one H100: "Available KV cache
/// memory: 1.71 GiB", then the error asking to decrease the context (131,072 does not fit).
/// The sampler constant is fitted on this row. https://github.com/vllm-project/vllm/issues/27508
#[test]
fn gpt_oss_120b_at_095_matches_vllm_issue_27508() {
    let r = gpt_oss_on_h100(Some(0.95), Some(1024));
    let pool = r.vllm.as_ref().expect("vLLM pool");
    assert!(within(pool.kv_pool_gib, 1.71, 0.10), "pool {:.2} GiB vs 1.71", pool.kv_pool_gib);
    assert!(!pool.holds_one_sequence);
    assert_eq!(r.verdict, FitVerdict::DoesNotFit);
    let longest = r.max_context_tokens.expect("some context fits");
    assert!(longest < 131_072, "longest {longest}");
    assert!(pool.log_lines[0].starts_with("GPU KV cache size: "), "{:?}", pool.log_lines);
    assert!(pool.log_lines[1].starts_with("Maximum concurrency for 131,072 tokens per request: "));
}

/// The held table, printed (`cargo test llm_vllm_memory -- --nocapture`): row, estimate,
/// published, deviation. Asserts every row is inside its band.
#[test]
#[allow(clippy::many_single_char_names, reason = "short names for the rows' catalog parts")]
fn held_table() {
    let c = catalog();
    let m = model(&c, "llama-3.1-8b");
    let g = gpu(&c, "nvidia-geforce-rtx-3090");
    let mut rows: Vec<(String, f64, f64)> = Vec::new();
    for (len, published) in [(20_000u32, 31_232.0), (29_000, 23_648.0)] {
        let engine = VllmEngine {
            gpu_memory_utilization: 0.90,
            max_num_batched_tokens: len,
            max_num_seqs: 256,
            max_model_len: len,
            sampler_profiled: false,
        };
        let per_seq = llm::kv_cache_bytes(&m, Precision::Fp16, len, 1, 1);
        let pool =
            vllm_memory::pool_from_parts(&m, &engine, g.memory_gib, llm::weight_bytes(&m, Precision::Bf16), 1, per_seq);
        rows.push((format!("vLLM #10517 RTX 3090 Llama-3.1-8B {len}: KV tokens"), pool.kv_tokens as f64, published));
    }
    let q = model(&c, "qwen3-14b");
    let per_token = llm::kv_cache_bytes(&q, Precision::Fp16, 32_768, 1, 1) / 32_768.0;
    rows.push(("LMCache #1739 Qwen3-14B 6.51 GiB: KV tokens".into(), 6.51 * GIB / per_token, 42_656.0));
    let d = gpt_oss_on_h100(None, None);
    let dp = d.vllm.as_ref().expect("pool");
    rows.push(("vLLM #23278 H100 gpt-oss-120b: weights GiB".into(), dp.weights_gib, 65.9651));
    let f = gpt_oss_on_h100(Some(0.95), Some(1024));
    let fp = f.vllm.as_ref().expect("pool");
    rows.push(("vLLM #27508 H100 gpt-oss-120b 0.95/1024: pool GiB (fitted)".into(), fp.kv_pool_gib, 1.71));
    rows.push(("vLLM #23278 H100 gpt-oss-120b defaults: pool GiB (predicted)".into(), dp.kv_pool_gib, -2.14));
    let mut q30 = FitInput::new(model(&c, "qwen3-30b-a3b"), Precision::Fp16);
    q30.runtime = Some(Runtime::LlamaCpp);
    q30.context_tokens = 4096;
    let slots = [GpuSlot::new(gpu(&c, "nvidia-geforce-rtx-4090"))];
    let t = runtime_memory::llama_cpp_rows(&q30, &slots, 48, 34).expect("table");
    rows.push((
        "llama.cpp fit-params README, RTX 4090, Qwen3-30B-A3B F16: CUDA0 model MiB".into(),
        t.rows[0].model_mib,
        17_904.0,
    ));
    rows.push(("same: CUDA0 context MiB".into(), t.rows[0].context_mib, 384.0));
    let small = llama_cpp("qwen3-1.7b", Precision::Q4_K_M, "nvidia-geforce-rtx-4090", 40_960);
    let st = small.llama_cpp.as_ref().expect("table");
    rows.push(("study-docs, Qwen3-1.7B Q4_K_M -c 40960: CUDA0 model MiB".into(), st.rows[0].model_mib, 1050.0));
    rows.push(("same: CUDA0 context MiB".into(), st.rows[0].context_mib, 4480.0));
    rows.push(("same: CUDA0 compute MiB".into(), st.rows[0].compute_mib, 300.0));
    eprintln!(
        "(not held) llama.cpp README compute: estimate {:.0} MiB vs 898 ({:+.0} %)",
        t.rows[0].compute_mib,
        (t.rows[0].compute_mib - 898.0) / 898.0 * 100.0
    );
    eprintln!("| row | estimate | published | deviation |");
    for (name, est, publ) in &rows {
        eprintln!("| {name} | {est:.2} | {publ:.2} | {:+.1} % |", (est - publ) / publ * 100.0);
    }
    for (name, est, publ) in &rows {
        assert!(within(*est, *publ, 0.10), "{name}: {est} vs {publ}");
    }
}

// ------------------------------------------------------------------ llama.cpp per-device table

fn llama_cpp(model_id: &str, precision: Precision, gpu_id: &str, context: u32) -> llm::FitReport {
    let c = catalog();
    let mut input = FitInput::new(model(&c, model_id), precision);
    input.runtime = Some(Runtime::LlamaCpp);
    input.context_tokens = context;
    llm::estimate(&input, &[GpuSlot::new(gpu(&c, gpu_id))]).expect("estimate")
}

/// llama.cpp's own `tools/fit-params/README.md` (build 6895): `llama-fit-params --model
/// qwen_3-30b3a-f16.gguf` on one RTX 4090 (24,077 MiB free) reduces the context to 4096 and
/// keeps 48 layers on the GPU with the experts of 34 of them in system RAM; at exit
/// `llama_memory_breakdown_print: | - CUDA0 (RTX 4090) | 24077 = 945 + (19187 = 17904 + 384 +
/// 898) + 3945 |`. https://github.com/ggml-org/llama.cpp/blob/master/tools/fit-params/README.md
///
/// Held at llama.cpp's placement (48 layers, experts of 34 on host): model and context within
/// 10 %. Not held: the compute buffer (898 MiB; the estimate counts the logits and one copied
/// expert tensor, 681 MiB, -24 %), and the placement the estimate chooses itself keeps three
/// more layers' experts on the GPU than llama-fit-params (which sizes the surplus with a larger
/// compute buffer); asserted within 3 layers.
#[test]
fn qwen3_30b_a3b_f16_on_rtx_4090_matches_llama_cpp_fit_params_readme() {
    let c = catalog();
    let mut input = FitInput::new(model(&c, "qwen3-30b-a3b"), Precision::Fp16);
    input.runtime = Some(Runtime::LlamaCpp);
    input.context_tokens = 4096;
    let slots = [GpuSlot::new(gpu(&c, "nvidia-geforce-rtx-4090"))];
    let at = runtime_memory::llama_cpp_rows(&input, &slots, 48, 34).expect("table");
    let row = &at.rows[0];
    assert!(within(row.model_mib, 17_904.0, 0.10), "model {:.0} MiB vs 17,904 ({at:?})", row.model_mib);
    assert!(within(row.context_mib, 384.0, 0.10), "context {:.0} MiB vs 384", row.context_mib);
    assert!(at.fits, "llama.cpp's placement keeps the margin");
    let r = llm::estimate(&input, &slots).expect("estimate");
    let t = r.llama_cpp.as_ref().expect("llama.cpp table");
    assert_eq!(t.n_gpu_layers, 48);
    assert!(t.n_cpu_moe.abs_diff(34) <= 3, "experts of {} layers on host vs 34", t.n_cpu_moe);
    assert!(t.fits);
    assert!(t.args.contains("-ngl 48") && t.args.contains("--n-cpu-moe"), "{}", t.args);
}

/// Qwen3-1.7B Q4_K_M, `llama-cli -ngl 999` on an RTX 4080 Laptop GPU at the default context
/// (40,960, the model's): `| - CUDA0 (RTX 4080 Laptop GPU) | 12281 = 5181 + (5831 = 1050 +
/// 4480 + 300) + 1269 |` (killergiegie/study-docs, "AI大模型框架/Llama_cpp/Llama.cpp-部署.md",
/// <https://github.com/killergiegie/study-docs>). The 12 GiB laptop part is not in the
/// catalog; the table does not depend on the card while everything fits, so an RTX 4090 stands
/// in.
#[test]
fn qwen3_1_7b_q4_k_m_table_matches_a_published_breakdown() {
    let r = llama_cpp("qwen3-1.7b", Precision::Q4_K_M, "nvidia-geforce-rtx-4090", 40_960);
    let t = r.llama_cpp.as_ref().expect("llama.cpp table");
    let gpu = &t.rows[0];
    assert!(within(gpu.context_mib, 4480.0, 0.10), "context {:.0} MiB vs 4,480", gpu.context_mib);
    assert!(within(gpu.compute_mib, 300.0, 0.10), "compute {:.0} MiB vs 300", gpu.compute_mib);
    assert!(within(gpu.model_mib, 1050.0, 0.10), "model {:.0} MiB vs 1,050", gpu.model_mib);
    assert_eq!(t.n_gpu_layers, 28);
    assert_eq!(t.n_cpu_moe, 0);
}

/// Item 7 of issue 28: every memory figure says its basis and how to measure it.
#[test]
fn memory_figures_say_their_basis_and_the_command_that_measures_them() {
    let v = gpt_oss_on_h100(None, None);
    assert_eq!(v.memory_basis.band_pct, Some(10.0));
    assert!(v.memory_basis.measure.starts_with("vllm serve"), "{}", v.memory_basis.measure);
    assert!(v.memory_basis.calibrated_to.iter().any(|s| s.contains("#23278")));
    let l = llama_cpp("qwen3-1.7b", Precision::Q4_K_M, "nvidia-geforce-rtx-4090", 4096);
    assert!(l.memory_basis.measure.contains("llama-fit-params"), "{}", l.memory_basis.measure);
    assert!(l.vllm.is_none() && v.llama_cpp.is_none());
}

/// An unknown `--runtime` is refused with the accepted names (issue 28, bad input).
#[test]
fn unknown_runtime_lists_the_names() {
    let build = crate::support::builds("h200-sxm-1gpu.rig.ron");
    let o = crate::support::kw(&["fit", &build, "--model", "llama-3.1-8b", "--runtime", "foo"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown runtime `foo`") && err.contains("vllm") && err.contains("llama.cpp"), "{err}");
}

/// Item 7 of issue 28: the speed figures say their basis too (the held measurements, the ±25 %
/// band of the speed tables, the command that measures them), in the report, the JSON and the
/// text; a runtime no published measurement holds says its band is unknown.
#[test]
fn speed_figures_say_their_basis_and_the_command_that_measures_them() {
    let l = llama_cpp("qwen3-1.7b", Precision::Q4_K_M, "nvidia-geforce-rtx-4090", 4096);
    assert_eq!(l.speed_basis.band_pct, Some(25.0));
    assert!(l.speed_basis.measure.starts_with("llama-bench -m <qwen3-1.7b.gguf>"), "{}", l.speed_basis.measure);
    assert!(l.speed_basis.calibrated_to.iter().any(|s| s.contains("PR 4766")));
    let v = gpt_oss_on_h100(None, None);
    assert!(v.speed_basis.measure.contains("vllm bench serve"), "{}", v.speed_basis.measure);
    let build = crate::support::builds("h200-sxm-1gpu.rig.ron");
    let o = crate::support::kw(&[
        "fit",
        &build,
        "--model",
        "llama-3.1-8b",
        "--runtime",
        "exllamav2",
        "--precision",
        "4.5bpw",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("speed basis (exllamav2): not held to a published measurement (band unknown)"), "{out}");
    let o = crate::support::kw(&["fit", &build, "--model", "llama-3.1-8b", "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["fit"]["speed_basis"]["band_pct"].as_f64(), Some(25.0), "{j}");
    let o = crate::support::kw(&["fit", &build, "--model", "llama-3.1-8b"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("speed basis (") && out.contains("within ±25 %"), "{out}");
}

/// When vLLM would refuse to start, `fit` names the engine settings that alone make it start,
/// each checked by the same model: gpt-oss-120b on one H100 at 100,000 tokens and vLLM's
/// defaults has a pool of -2.16 GiB (vLLM issue 23278 logged -2.14 at 131,072), so a shorter
/// `--max-model-len` cannot help; the profiling sampler step over 1024 sequences
/// (`VLLM_SAMPLER_LOGIT_COPIES`, fitted on vLLM issue 27508) is what a smaller `--max-num-seqs`
/// removes. The lever found is the boundary: at it the fit starts, one above it does not.
/// `--max-num-batched-tokens` is never offered below `--max-num-seqs` (vLLM refuses that:
/// vllm/config/scheduler.py, `SchedulerConfig._verify_args`).
#[test]
fn a_refused_vllm_start_names_the_settings_that_start_it() {
    use kraftwerk::estimate::llm::vllm_memory::VllmLever;
    let c = catalog();
    let fit = |seqs: Option<u32>| {
        let mut input = FitInput::new(model(&c, "gpt-oss-120b"), Precision::Native);
        input.runtime = Some(Runtime::Vllm);
        input.context_tokens = 100_000;
        input.max_num_seqs = seqs;
        llm::estimate(&input, &[GpuSlot::new(gpu(&c, "nvidia-h100-sxm5-80gb"))]).expect("estimate")
    };
    let r = fit(None);
    let pool = r.vllm.as_ref().expect("vLLM pool");
    assert!(!pool.holds_one_sequence && pool.kv_pool_gib < 0.0);
    let seqs = pool
        .start_levers
        .iter()
        .find_map(|l| match *l {
            VllmLever::MaxNumSeqs { value, .. } => Some(value),
            _ => None,
        })
        .expect("a --max-num-seqs lever");
    assert!((1..1024).contains(&seqs), "{seqs}");
    for l in &pool.start_levers {
        if let VllmLever::MaxNumBatchedTokens { value, .. } = *l {
            assert!(value >= pool.engine.max_num_seqs, "{l}");
        }
    }
    assert_ne!(fit(Some(seqs)).verdict, FitVerdict::DoesNotFit, "--max-num-seqs {seqs} starts");
    assert_eq!(fit(Some(seqs + 1)).verdict, FitVerdict::DoesNotFit, "--max-num-seqs {} does not", seqs + 1);

    let b = format!("{}/tests/fixtures/h100-sxm-1gpu.rig.ron", env!("CARGO_MANIFEST_DIR"));
    let o = crate::support::kw(&["fit", &b, "--model", "gpt-oss-120b", "--context", "100000"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let want = format!("vLLM starts, by this estimate, with any one of: --max-num-seqs {seqs} (KV pool");
    assert!(out.contains(&want) && !out.contains("lower --max-model-len"), "{out}");
}

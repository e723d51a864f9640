//! The memory, verdict, training and parallelism rules of the LLM estimator, on the fixtures of
//! `llm_fit.rs` (model shapes from config.json files, GPUs from datasheets): what never fits,
//! KV-cache sizes, VRAM never pooled, MoE memory vs active parameters, fit/tight verdicts,
//! training memory, tensor-parallel link cost, batch decode, bad input. Part of the `llm_fit`
//! test target.

use super::*;

// ------------------------------------------------------------------------ the rules

/// DeepSeek-V3 (671B) never fits 8x 48 GB at FP8, however it is spread.
#[test]
fn deepseek_v3_never_fits_8x48gb_fp8() {
    for card in [rtx_a6000(), rtx_6000_ada()] {
        for par in [Parallelism::TensorParallel(8), Parallelism::LayerSplit(8), Parallelism::Single] {
            let mut i = infer(deepseek_v3(), Precision::Fp8, 4096, Runtime::Vllm);
            i.parallelism = par;
            let r = llm::estimate(&i, &slots(&card, 8)).expect("estimate");
            assert_eq!(r.verdict, FitVerdict::DoesNotFit, "{} {par}", card.id);
            assert!(r.weights_total_gib > 600.0, "671B at 1 byte is ~625 GiB, got {}", r.weights_total_gib);
            assert_eq!(r.max_context_tokens, None);
        }
    }
}

/// KV cache of Llama 3.1 8B at 128K with GQA: 2·32·8·128·131072·2 bytes = 16 GiB.
#[test]
fn kv_cache_llama31_8b_128k_is_16_gib() {
    let bytes = llm::kv_cache_bytes(&llama31_8b(), Precision::Fp16, 131_072, 1, 1);
    assert!((bytes - 2.0 * 32.0 * 8.0 * 128.0 * 131_072.0 * 2.0).abs() < 1.0);
    assert!((bytes / GIB - 16.0).abs() < 1e-9);
    // Per TP rank: 8 KV heads over TP 2 = 4 each; over TP 16 at least 1 each.
    let tp2 = llm::kv_cache_bytes(&llama31_8b(), Precision::Fp16, 131_072, 1, 2);
    assert!((tp2 / GIB - 8.0).abs() < 1e-9);
    let tp16 = llm::kv_cache_bytes(&llama31_8b(), Precision::Fp16, 131_072, 1, 16);
    assert!((tp16 / GIB - 2.0).abs() < 1e-9);
}

#[test]
fn sliding_window_alternation_and_mla_shrink_the_kv_cache() {
    // Mistral 7B v0.1: every layer keeps at most 4096 tokens.
    let m = mistral_7b();
    let at_8k = llm::kv_cache_bytes(&m, Precision::Fp16, 8192, 1, 1);
    let at_4k = llm::kv_cache_bytes(&m, Precision::Fp16, 4096, 1, 1);
    assert!((at_8k - at_4k).abs() < 1.0);
    // Gemma 2 27B: half the layers windowed at 4096; at 8K the cache is 3/4 of full.
    let g = gemma2_27b();
    let full = 2.0 * 46.0 * 16.0 * 128.0 * 8192.0 * 2.0;
    let gemma = llm::kv_cache_bytes(&g, Precision::Fp16, 8192, 1, 1);
    assert!((gemma / full - 0.75).abs() < 1e-9);
    // DeepSeek-V3 MLA: 61 layers × (512 + 64) × 2 bytes per token, not 2·128·128.
    let d = llm::kv_cache_bytes(&deepseek_v3(), Precision::Fp16, 1, 1, 1);
    assert!((d - 61.0 * 576.0 * 2.0).abs() < 1e-6);
}

#[test]
fn vram_is_never_pooled() {
    // 70B Q4_K_M (~40 GiB) on 2x 24 GB: fits split, does not fit on one, and each GPU holds
    // about half.
    let mut i = infer(llama31_70b(), Precision::Q4_K_M, 4096, Runtime::LlamaCpp);
    i.parallelism = Parallelism::LayerSplit(2);
    let r = llm::estimate(&i, &slots(&rtx_4090(), 2)).expect("estimate");
    for g in &r.gpus {
        assert!(g.memory.weights_gib < 24.0 && g.memory.weights_gib > 18.0, "{g:#?}");
    }
    // Tensor parallel: each holds 1/2 of every weight.
    i.parallelism = Parallelism::TensorParallel(2);
    let r = llm::estimate(&i, &slots(&rtx_4090(), 2)).expect("estimate");
    let half = llm::weight_gib(&llama31_70b(), Precision::Q4_K_M) / 2.0;
    for g in &r.gpus {
        assert!(g.memory.weights_gib <= half + 1e-9, "{g:#?}");
    }
    // A 3x 24 GB layer split of 405B Q4_K_M (~231 GiB) still does not fit.
    let mut big = infer(
        model("llama-3.1-405b", 405.85, None, 126, 16384, 128, 8, 128, 53248, 128_256, 131_072, Attention::Full),
        Precision::Q4_K_M,
        4096,
        Runtime::LlamaCpp,
    );
    big.parallelism = Parallelism::LayerSplit(3);
    assert_eq!(llm::estimate(&big, &slots(&rtx_4090(), 3)).expect("estimate").verdict, FitVerdict::DoesNotFit);
}

#[test]
fn moe_memory_counts_all_params_speed_only_active() {
    let i = infer(mixtral(), Precision::Q4_K_M, 4096, Runtime::LlamaCpp);
    let mut dense_same_size = mixtral();
    dense_same_size.active_params_b = None;
    let d = infer(dense_same_size, Precision::Q4_K_M, 4096, Runtime::LlamaCpp);
    let mut big = a100_80();
    big.memory_gib = 80.0;
    let (rm, rd) =
        (llm::estimate(&i, &slots(&big, 1)).expect("moe"), llm::estimate(&d, &slots(&big, 1)).expect("dense"));
    assert!((rm.gpus[0].memory.weights_gib - rd.gpus[0].memory.weights_gib).abs() < 1e-9);
    let (sm, sd) = (rm.speed.expect("speed"), rd.speed.expect("speed"));
    assert!(sm.decode_batch1_tokens_per_s > 2.5 * sd.decode_batch1_tokens_per_s);
    assert!(rm.notes.iter().any(|n| n.contains("MoE")));
}

#[test]
fn verdicts_fit_tight_and_max_context() {
    // Llama 3.1 8B Q4_K_M on a 24 GB card, two sequences: fits at 8K; 2 x 128K of FP16 KV
    // (32 GiB) does not. One sequence of 128K (16 GiB KV + 4.3 GiB weights) does fit.
    let mut i = infer(llama31_8b(), Precision::Q4_K_M, 8192, Runtime::LlamaCpp);
    i.batch = 2;
    let r = llm::estimate(&i, &slots(&rtx_4090(), 1)).expect("estimate");
    assert_eq!(r.verdict, FitVerdict::Fits);
    let max = r.max_context_tokens.expect("weights fit");
    assert!((50_000..100_000).contains(&max), "max context {max}");
    let mut long = i.clone();
    long.context_tokens = 131_072;
    assert_eq!(llm::estimate(&long, &slots(&rtx_4090(), 1)).expect("estimate").verdict, FitVerdict::DoesNotFit);
    long.batch = 1;
    assert_eq!(llm::estimate(&long, &slots(&rtx_4090(), 1)).expect("estimate").verdict, FitVerdict::Fits);
    long.batch = 2;
    // Just past the max context it eats into the 5 % headroom (1.2 GiB = ~4,900 tokens of two
    // sequences): tight.
    long.context_tokens = max + 2048;
    assert_eq!(llm::estimate(&long, &slots(&rtx_4090(), 1)).expect("estimate").verdict, FitVerdict::Tight);
}

#[test]
fn training_memory_full_zero_lora_qlora() {
    let m = llama31_8b();
    let mut full = FitInput::new(m.clone(), Precision::Bf16);
    full.mode = Mode::FullFineTune;
    full.context_tokens = 2048;
    full.gradient_checkpointing = true;
    let big = {
        let mut g = a100_80();
        g.memory_gib = 1000.0;
        g
    };
    let r = llm::estimate(&full, &slots(&big, 1)).expect("estimate");
    let mem = r.gpus[0].memory;
    // Transformers + PEFT, BF16 weights: torch's AdamW keeps its two states in the weights'
    // dtype: 2 + 2 + 4 = 8 bytes per parameter (no FP32 master copy).
    let per_param = (mem.weights_gib + mem.gradients_gib + mem.optimizer_gib) * GIB / 8.03e9;
    assert!((per_param - 8.0).abs() < 1e-6, "{per_param}");
    assert!(r.speed.is_none());
    assert!(r.training.is_some());

    // DeepSpeed ZeRO-3 over 8 GPUs: its estimator's 18 P / 8 per GPU (mixed precision: BF16
    // weights and gradients, FP32 master, momentum and variance).
    let mut z3 = full.clone();
    z3.parallelism = Parallelism::DataParallel(8);
    z3.trainer = Some(llm::Trainer::DeepSpeed);
    z3.zero_stage = 3;
    let r3 = llm::estimate(&z3, &slots(&big, 8)).expect("estimate");
    let m3 = r3.gpus[0].memory;
    let per_param3 = (m3.weights_gib + m3.gradients_gib + m3.optimizer_gib) * GIB / 8.03e9;
    assert!((per_param3 - 18.0 / 8.0).abs() < 1e-6, "{per_param3}");
    // ZeRO-2: its estimator's 4 P + 16 P / N.
    z3.zero_stage = 2;
    let m2 = llm::estimate(&z3, &slots(&big, 8)).expect("estimate").gpus[0].memory;
    let per_param2 = (m2.weights_gib + m2.gradients_gib + m2.optimizer_gib) * GIB / 8.03e9;
    assert!((per_param2 - (4.0 + 16.0 / 8.0)).abs() < 1e-6, "{per_param2}");

    // Full fine-tune of 8B does not fit a 24 GB card; QLoRA of 8B does.
    assert_eq!(llm::estimate(&full, &slots(&rtx_4090(), 1)).expect("estimate").verdict, FitVerdict::DoesNotFit);
    let mut q = full.clone();
    q.mode = Mode::Qlora;
    let rq = llm::estimate(&q, &slots(&rtx_4090(), 1)).expect("estimate");
    assert_eq!(rq.verdict, FitVerdict::Fits, "{:#?}", rq.gpus);
    // LoRA keeps a 16-bit base: more than QLoRA, less than full.
    let mut l = full.clone();
    l.mode = Mode::Lora;
    let rl = llm::estimate(&l, &slots(&big, 1)).expect("estimate");
    let rq_big = llm::estimate(&q, &slots(&big, 1)).expect("estimate");
    assert!(rq_big.gpus[0].memory.total_gib < rl.gpus[0].memory.total_gib);
    assert!(rl.gpus[0].memory.total_gib < mem.total_gib);
    // QLoRA of 70B on one 48 GB card: Unsloth fits 12,106 tokens (its README, Dec 2024), while
    // Transformers + PEFT runs out of memory there (the same table's "OOM").
    let mut q70 = FitInput::new(llama31_70b(), Precision::Bf16);
    q70.mode = Mode::Qlora;
    q70.context_tokens = 4096;
    q70.gradient_checkpointing = true;
    q70.trainer = Some(llm::Trainer::Unsloth);
    let r70 = llm::estimate(&q70, &slots(&rtx_a6000(), 1)).expect("estimate");
    assert_ne!(r70.verdict, FitVerdict::DoesNotFit, "{:#?}", r70.gpus);
    q70.trainer = Some(llm::Trainer::HfPeft);
    let hf70 = llm::estimate(&q70, &slots(&rtx_a6000(), 1)).expect("estimate");
    assert_eq!(hf70.verdict, FitVerdict::DoesNotFit, "{:#?}", hf70.gpus);
    // Gradient checkpointing shrinks activations.
    let mut no_ckpt = full.clone();
    no_ckpt.gradient_checkpointing = false;
    let act = |i: &FitInput| llm::estimate(i, &slots(&big, 1)).expect("estimate").gpus[0].memory.activations_gib;
    assert!(act(&full) < act(&no_ckpt));
    // Full fine-tune in Q4_K_M is refused.
    let mut bad = full.clone();
    bad.weight_precision = Precision::Q4_K_M;
    assert!(llm::estimate(&bad, &slots(&big, 1)).is_err());
}

#[test]
fn tensor_parallel_pays_for_its_link() {
    let mut i = infer(llama31_70b(), Precision::Fp8, 4096, Runtime::Vllm);
    i.parallelism = Parallelism::TensorParallel(2);
    let ada = rtx_6000_ada();
    let x16: Vec<GpuSlot> = (0..2).map(|_| GpuSlot::new(ada.clone())).collect();
    let x4: Vec<GpuSlot> =
        (0..2).map(|_| GpuSlot::with_link(ada.clone(), Link::Pcie { generation: 4, lanes: 4 })).collect();
    let fast = llm::estimate(&i, &x16).expect("estimate").speed.expect("speed");
    let slow = llm::estimate(&i, &x4).expect("estimate").speed.expect("speed");
    assert!(fast.all_reduce_ms_per_token > 0.0);
    assert!(slow.prefill_tokens_per_s < fast.prefill_tokens_per_s);
    assert!(slow.decode_batch1_tokens_per_s <= fast.decode_batch1_tokens_per_s);
    // TP=2 decodes faster than one card would (bytes per GPU halve).
    let mut single = i.clone();
    single.parallelism = Parallelism::Single;
    let mut big = ada.clone();
    big.memory_gib = 96.0;
    assert!(fast.decode_batch1_tokens_per_s > 1.5 * decode1(&single, &slots(&big, 1)));
}

#[test]
fn batch_decode_turns_compute_bound() {
    let mut i = infer(llama31_8b(), Precision::Bf16, 1024, Runtime::Vllm);
    let card = slots(&a100_80(), 1);
    let one = llm::estimate(&i, &card).expect("estimate").speed.expect("speed");
    assert_eq!(one.decode_bound, llm::Bound::Memory);
    i.batch = 512;
    i.context_tokens = 256;
    let many = llm::estimate(&i, &card).expect("estimate").speed.expect("speed");
    assert_eq!(many.decode_bound, llm::Bound::Compute);
    assert!(many.decode_batch_tokens_per_s > 20.0 * one.decode_batch1_tokens_per_s);
    assert!(many.decode_per_sequence_tokens_per_s < one.decode_batch1_tokens_per_s);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let i = FitInput::new(llama31_8b(), Precision::Q4_K_M);
    assert!(matches!(llm::estimate(&i, &[]), Err(llm::FitError::NoGpus)));
    let mut tp = i.clone();
    tp.parallelism = Parallelism::TensorParallel(4);
    assert!(matches!(llm::estimate(&tp, &slots(&rtx_4090(), 2)), Err(llm::FitError::NotEnoughGpus { .. })));
    let mut zero = i.clone();
    zero.batch = 0;
    assert!(llm::estimate(&zero, &slots(&rtx_4090(), 1)).is_err());
    let mut m = llama31_8b();
    m.layers = 0;
    assert!(llm::estimate(&FitInput::new(m, Precision::Q4_K_M), &slots(&rtx_4090(), 1)).is_err());
}

#[test]
fn fine_tune_time_is_6_p_t_over_mfu_peak() {
    let mut i = FitInput::new(llama31_8b(), Precision::Bf16);
    i.mode = Mode::FullFineTune;
    i.parallelism = Parallelism::DataParallel(8);
    i.zero_stage = 3;
    let gpus = slots(&a100_80(), 8);
    let tokens = 1e9;
    let est = llm::fine_tune_time(&i, &gpus, tokens, Some(0.4)).expect("estimate");
    let expected_h = 6.0 * 8.03e9 * tokens / (8.0 * 312e12 * 0.4) / 3600.0;
    assert!((est.hours - expected_h).abs() < 1e-9, "{} vs {expected_h}", est.hours);
    // LoRA skips the weight gradients of the base: 4 P per token.
    i.mode = Mode::Lora;
    let lora = llm::fine_tune_time(&i, &gpus, tokens, None).expect("estimate");
    assert!((lora.flops_per_token - 4.0 * 8.03e9).abs() < 1.0);
    assert!(llm::fine_tune_time(&FitInput::new(llama31_8b(), Precision::Bf16), &gpus, tokens, None).is_err());
}

#[test]
fn reports_serialize_to_json() {
    let mut i = infer(llama31_70b(), Precision::Q4_K_M, 8192, Runtime::LlamaCpp);
    i.parallelism = Parallelism::LayerSplit(2);
    let r = llm::estimate(&i, &slots(&rtx_4090(), 2)).expect("estimate");
    let json = serde_json::to_value(&r).expect("serializes");
    assert_eq!(json["weight_precision"], "q4_k_m");
    assert_eq!(json["parallelism"]["layer_split"], 2);
    assert!(json["gpus"][0]["memory"]["kv_cache_gib"].as_f64().expect("number") > 0.0);
    assert!(!r.assumptions.is_empty());
}

//! Tests of [`super`]: llama.cpp placements, flags and the host-RAM split.
use super::*;
use crate::estimate::llm::{FitInput, GpuSlot, Precision};
use proptest::prelude::*;

fn cat() -> &'static kraftwerk_catalog::Catalog {
    static CATALOG: std::sync::OnceLock<kraftwerk_catalog::Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| kraftwerk_catalog::builtin().expect("catalog"))
}

fn slot(id: &str) -> GpuSlot {
    GpuSlot::new(cat().gpu(id).cloned().expect("gpu in catalog"))
}

fn input(model: &str, p: Precision, ctx: u32) -> FitInput {
    let mut i = FitInput::new(cat().model(model).cloned().expect("model in catalog"), p);
    i.runtime = Some(Runtime::LlamaCpp);
    i.context_tokens = ctx;
    i
}

const QUAD_DDR4: HostMemory = HostMemory { channels_per_socket: 4, speed_mt_s: 3200, sockets: 1 };

fn ncmoe(n: u32) -> LlamaCppFlags {
    LlamaCppFlags { n_cpu_moe: Some(n), ..LlamaCppFlags::default() }
}

#[test]
fn flags_parse_once_into_types() {
    let o: TensorOverride = "blk\\.(1[0-9])\\.ffn_.*_exps=CPU".parse().expect("parses");
    assert_eq!(o.to_string(), "blk\\.(1[0-9])\\.ffn_.*_exps=CPU");
    assert!("exps=CUDA1".parse::<TensorOverride>().is_err());
    assert!("exps".parse::<TensorOverride>().is_err());
    assert!("blk\\.(=CPU".parse::<TensorOverride>().is_err());
    assert_eq!("row".parse::<SplitMode>(), Ok(SplitMode::Row));
    assert!("graph".parse::<SplitMode>().is_err());
    assert_eq!("3,1".parse::<TensorSplit>(), Ok(TensorSplit(vec![3.0, 1.0])));
    assert!("0,0".parse::<TensorSplit>().is_err());
    assert!("a,1".parse::<TensorSplit>().is_err());
}

/// `--n-cpu-moe N` and `-ot "blk\.(0|...|N-1)\.ffn_.*_exps=CPU"` are the same placement
/// (llama.cpp builds the former from the latter), with the same memory and speeds.
#[test]
fn n_cpu_moe_is_the_ot_pattern_it_stands_for() {
    let i = input("qwen3-30b-a3b", Precision::Q4_K_M, 4096);
    let g = [slot("nvidia-geforce-rtx-3090")];
    let a = place(&i, &g, Some(QUAD_DDR4), None, &ncmoe(20)).expect("placement");
    let ot = LlamaCppFlags {
        overrides: vec!["blk\\.([0-9]|1[0-9])\\.ffn_(up|down|gate)_exps=CPU".parse().expect("regex")],
        ..LlamaCppFlags::default()
    };
    let b = place(&i, &g, Some(QUAD_DDR4), None, &ot).expect("placement");
    assert_eq!(a.cpu_moe_layers, 20);
    assert_eq!(b.cpu_moe_layers, 20);
    assert!((a.host_experts_gib - b.host_experts_gib).abs() < 1e-9);
    assert_eq!(a.decode_tokens_per_s, b.decode_tokens_per_s);
    assert!((a.table.rows[0].model_mib - b.table.rows[0].model_mib).abs() < 1e-9);
    // Only the down projections: a third of each layer's experts.
    let down =
        LlamaCppFlags { overrides: vec!["ffn_down_exps=CPU".parse().expect("regex")], ..LlamaCppFlags::default() };
    let c = place(&i, &g, Some(QUAD_DDR4), None, &down).expect("placement");
    let all = all_experts_in_ram(&i, &g, Some(QUAD_DDR4), None).expect("moe");
    assert!(
        (c.host_experts_gib * 3.0 - all.host_experts_gib).abs() < 1e-6,
        "{} {}",
        c.host_experts_gib,
        all.host_experts_gib
    );
    // An -ot rule on attention tensors is refused, not estimated.
    let attn = LlamaCppFlags { overrides: vec!["attn=CPU".parse().expect("regex")], ..LlamaCppFlags::default() };
    assert!(place(&i, &g, Some(QUAD_DDR4), None, &attn).is_err());
}

/// A broad `blk\.N\.ffn.*=CPU` rule (ubergarm's Qwen3-235B runs, ik_llama.cpp PR 370) moves a
/// MoE layer's router and FFN norm with its experts: the same placement as the `_exps` rule,
/// while a rule that reaches a dense layer's FFN or a shared expert stays refused.
#[test]
fn ffn_rules_move_router_and_norm_with_the_experts() {
    let i = input("qwen3-30b-a3b", Precision::Q4_K_M, 4096);
    let g = [slot("nvidia-geforce-rtx-3090")];
    let ot = |s: &str| LlamaCppFlags { overrides: vec![s.parse().expect("regex")], ..LlamaCppFlags::default() };
    let broad = place(&i, &g, Some(QUAD_DDR4), None, &ot("blk\\.1[0-9]\\.ffn.*=CPU")).expect("placement");
    let exps = place(&i, &g, Some(QUAD_DDR4), None, &ot("blk\\.1[0-9]\\.ffn_.*_exps=CPU")).expect("placement");
    assert_eq!(broad.cpu_moe_layers, 10);
    assert!((broad.host_experts_gib - exps.host_experts_gib).abs() < 1e-9);
    assert!((broad.table.rows[0].model_mib - exps.table.rows[0].model_mib).abs() < 1e-9);
    // DeepSeek's layers 0-2 are dense (ffn_up, not ffn_up_exps): refused; so is a shared expert.
    let ds = input("deepseek-v3", Precision::Q4_K_M, 4096);
    assert!(place(&ds, &g, None, None, &ot("blk\\.[0-9]\\.ffn.*=CPU")).is_err());
    assert!(place(&ds, &g, None, None, &ot("blk\\.1[0-9]\\.ffn.*=CPU")).is_err(), "shexp moved");
}

/// DeepSeek's first three layers are dense: `--n-cpu-moe 3` moves nothing, 4 moves one
/// layer's experts (llama.cpp's pattern is by layer index).
#[test]
fn n_cpu_moe_counts_layer_indices() {
    let i = input("deepseek-v3", Precision::Q4_K_M, 4096);
    let g = [slot("nvidia-geforce-rtx-3090")];
    assert_eq!(place(&i, &g, None, None, &ncmoe(3)).expect("p").cpu_moe_layers, 0);
    assert_eq!(place(&i, &g, None, None, &ncmoe(4)).expect("p").cpu_moe_layers, 1);
}

/// The searched placement names the N it estimates: its table, its `--n-cpu-moe`, its
/// decode and prefill are one placement; its prefill is the hybrid one (below the all-GPU
/// figure, bounded by the host link).
#[test]
fn the_searched_placement_is_the_one_estimated() {
    let i = input("gpt-oss-120b", Precision::Mxfp4, 8192);
    let g = [slot("nvidia-geforce-rtx-3090")];
    let p = searched(&i, &g, Some(QUAD_DDR4), None).expect("placement");
    assert!(p.fits_gpus && p.cpu_moe_layers > 0, "{p:?}");
    assert!(p.table.args.contains(&format!("--n-cpu-moe {}", p.table.n_cpu_moe)), "{}", p.table.args);
    let again = place(&i, &g, Some(QUAD_DDR4), None, &ncmoe(p.table.n_cpu_moe)).expect("p");
    assert_eq!(again.decode_tokens_per_s, p.decode_tokens_per_s);
    let all_gpu = crate::estimate::llm::estimate(&i, &g).expect("e").speed.and_then(|s| s.prefill_tokens_per_s);
    let (hybrid, gpu) = (p.prefill_tokens_per_s.expect("prefill"), all_gpu.expect("gpu prefill"));
    assert!(hybrid < gpu / 2.0, "hybrid prefill {hybrid} vs all-GPU {gpu}");
    assert_eq!(p.prefill_bound, PrefillBound::HostLink);
    // One layer fewer in RAM does not keep the margin.
    let fewer = place(&i, &g, Some(QUAD_DDR4), None, &ncmoe(p.table.n_cpu_moe - 1)).expect("p");
    assert!(!fewer.fits_gpus);
}

/// All-GPU MoE prefill under llama.cpp, micro-batch by micro-batch (`speed::routed_expert_gemm`):
/// above 8 tokens MMQ runs each expert with tokens in a column tile of the width llama.cpp
/// picks for the micro-batch (16, 32, 64, then 128 on an RTX 3090), paying
/// `18.7 + 0.34 × mmq_x` tokens on top of its own (`LLAMA_CPP_MOE_TILE_FIXED_TOKENS`,
/// `LLAMA_CPP_MOE_TILE_PAD_FRACTION`). Held to the sweep the constants were fitted on (llama.cpp
/// PR 20586: RTX 3090, gpt-oss-20b MXFP4, pp512 at `-ub` 16 / 32 / 64 / 128 / 256 / 512 →
/// 808.75 / 1228.01 / 1671.74 / 2036.35 / 3086.19 / 4739.20 tok/s, each within 7 %). Up to 8
/// tokens the vector kernel reads the experts the tokens touch, as a batched decode step: not
/// fitted; on the same sweep's `-ub` 1 / 2 / 4 / 8 rows (238.89 / 283.62 / 339.24 / 507.06)
/// the model is 1.1-1.7x high (the multi-column vector kernel does not reach the decode
/// efficiency), which the test pins so that a change shows. A dense model's prefill does not
/// depend on `-ub` where compute bounds it (Llama-3.1-8B Q4_K_M, 512 vs 128).
#[test]
fn moe_prefill_gemm_cost_falls_with_tokens_per_expert() {
    let rate = |model: &str, p: Precision, ub: u32| {
        let mut i = input(model, p, 512);
        i.prompt_ubatch_tokens = Some(ub);
        crate::estimate::llm::estimate(&i, &[slot("nvidia-geforce-rtx-3090")])
            .expect("estimate")
            .speed
            .and_then(|s| s.prefill_tokens_per_s)
            .expect("prefill")
    };
    for (ub, measured) in [(16, 808.75), (32, 1228.01), (64, 1671.74), (128, 2036.35), (256, 3086.19), (512, 4739.20)] {
        let e = rate("gpt-oss-20b", Precision::Mxfp4, ub);
        assert!((e / measured - 1.0).abs() < 0.07, "-ub {ub}: {e:.0} vs {measured}");
    }
    let mut last = 0.0;
    for (ub, measured) in [(1, 238.89), (2, 283.62), (4, 339.24), (8, 507.06)] {
        let e = rate("gpt-oss-20b", Precision::Mxfp4, ub);
        assert!(e > last && (1.0..1.7).contains(&(e / measured)), "vector kernel -ub {ub}: {e:.0} vs {measured}");
        last = e;
    }
    let (dense_128, dense_512) =
        (rate("llama-3.1-8b", Precision::Q4_K_M, 128), rate("llama-3.1-8b", Precision::Q4_K_M, 512));
    assert!((dense_128 / dense_512 - 1.0).abs() < 1e-9, "{dense_128} vs {dense_512}");
    // vLLM ignores `-ub` (its chunk is its own) and keeps the dense GEMM cost.
    let mut v = input("gpt-oss-20b", Precision::Mxfp4, 512);
    v.runtime = Some(Runtime::Vllm);
    let base = crate::estimate::llm::estimate(&v, &[slot("nvidia-geforce-rtx-3090")]).expect("e").speed;
    v.prompt_ubatch_tokens = Some(128);
    let with_ub = crate::estimate::llm::estimate(&v, &[slot("nvidia-geforce-rtx-3090")]).expect("e").speed;
    assert_eq!(base.and_then(|s| s.prefill_tokens_per_s), with_ub.and_then(|s| s.prefill_tokens_per_s));
}

/// llama.cpp prefill attention, counted cell by cell (`speed::llama_cpp_attention_scores`),
/// gpt-oss-20b (12 full and 12 window-128 layers), pp4096: with FlashAttention the causal
/// half of the square for every layer at `-ub 4096` (24 × 4096·4097/2, the window layers'
/// cache of 4096 cells still in order), the window layers' ring of 1280 cells per token from
/// the second micro-batch on at `-ub 1024`; without it the whole `ub × n_kv` (24 × 4096²).
#[test]
fn llama_cpp_attention_scores_follow_the_micro_batch() {
    let m = input("gpt-oss-20b", Precision::Mxfp4, 4096).model;
    let fa_4096 = crate::estimate::llm::speed::llama_cpp_attention_scores(&m, 0..24, 4096.0, 4096.0, true);
    assert!((fa_4096 - 24.0 * 4096.0 * 4097.0 / 2.0).abs() < 1.0, "{fa_4096}");
    let no_fa_4096 = crate::estimate::llm::speed::llama_cpp_attention_scores(&m, 0..24, 4096.0, 4096.0, false);
    assert!((no_fa_4096 - 24.0 * 4096.0 * 4096.0).abs() < 1.0, "{no_fa_4096}");
    // -ub 1024 with FA: full layers causal (12 × 4096·4097/2); window layers: cache
    // pad256(128 + 1024) = 1280 cells, first micro-batch causal, then 3 × 1024 × 1280.
    let fa_1024 = crate::estimate::llm::speed::llama_cpp_attention_scores(&m, 0..24, 4096.0, 1024.0, true);
    let want = 12.0 * 4096.0 * 4097.0 / 2.0 + 12.0 * (1024.0 * 1025.0 / 2.0 + 3.0 * 1024.0 * 1280.0);
    assert!((fa_1024 - want).abs() < 1.0, "{fa_1024} vs {want}");
    // Without FA at -ub 1024: full layers see 1024, 2048, 3072, 4096 cells; window layers
    // 1024 then pad32(128 + 1024) = 1152.
    let no_fa_1024 = crate::estimate::llm::speed::llama_cpp_attention_scores(&m, 0..24, 4096.0, 1024.0, false);
    let want = 12.0 * 1024.0 * (1024.0 + 2048.0 + 3072.0 + 4096.0) + 12.0 * 1024.0 * (1024.0 + 3.0 * 1152.0);
    assert!((no_fa_1024 - want).abs() < 1.0, "{no_fa_1024} vs {want}");
}

/// FlashAttention prefill at the GEMMs' efficiency, checked (not fitted) on llama.cpp PR 17505
/// (https://github.com/ggml-org/llama.cpp/pull/17505, "CUDA: generalized (mma) FA, add Volta
/// support", JohannesGaessler, 2025-11, master column): RTX 3090, llama 8B Q4_0, `-ub 512`,
/// pp512 @ d32768 → 1470.93 tok/s. The model: the 512-token prompt's rate from an empty cache
/// plus the FA FLOPs of the 32768 cells already there (4 · 128 · 32 heads · 32 layers per
/// token and cell) at `LLAMA_CPP_PREFILL_EFFICIENCY` of the card's FP16 peak; within 10 %.
#[test]
fn fa_prefill_at_depth_matches_pr_17505() {
    let mut i = input("llama-3.1-8b", Precision::Q4_0, 512);
    i.prompt_ubatch_tokens = Some(512);
    let g = [slot("nvidia-geforce-rtx-3090")];
    let e = crate::estimate::llm::estimate(&i, &g).expect("estimate");
    let s = e.speed.expect("speed");
    let d0 = s.prefill_tokens_per_s.expect("prefill");
    let peak = s.compute_peak_tflops.expect("peak") * 1e12;
    let m = &i.model;
    let depth_flops = 4.0 * f64::from(m.head_dim) * f64::from(m.heads) * f64::from(m.layers) * 32768.0;
    let rate = crate::estimate::llm::calibration::LLAMA_CPP_PREFILL_EFFICIENCY * peak;
    let at_depth = 1.0 / (1.0 / d0 + depth_flops / rate);
    println!("PR 17505 check: model {at_depth:.1} tok/s at d32768 (d0 {d0:.1}) vs 1470.93 measured");
    assert!((at_depth / 1470.93 - 1.0).abs() < 0.10, "{at_depth:.0} vs 1470.93 (d0 {d0:.0})");
}

/// Hybrid prefill with experts in RAM: the GPU computes each `-ub` micro-batch at the
/// all-GPU rate of that micro-batch, and the host-held experts cross the link once per
/// micro-batch, so a larger `-ub` is faster on both counts (gpt-oss-120b, one RTX 3090,
/// `--n-cpu-moe 26`: `-ub 512` vs `-ub 4096`, the shape of the OSS_3090 rows LC-15 / LC-16),
/// and a slower host link (the same card in a PCIe 3.0 x8 slot) is slower.
#[test]
fn hybrid_prefill_takes_the_micro_batch_and_the_slot_link() {
    let i = input("gpt-oss-120b", Precision::Mxfp4, 4096);
    let g = [slot("nvidia-geforce-rtx-3090")];
    let ub = |n: u32| LlamaCppFlags { n_cpu_moe: Some(26), ubatch: Some(n), ..LlamaCppFlags::default() };
    let small = place(&i, &g, None, None, &ub(512)).expect("p").prefill_tokens_per_s.expect("prefill");
    let large = place(&i, &g, None, None, &ub(4096)).expect("p").prefill_tokens_per_s.expect("prefill");
    assert!(large > 3.0 * small, "-ub 4096 {large:.0} vs -ub 512 {small:.0}");
    let mut narrow = g[0].clone();
    narrow.link = Link::Pcie { generation: 3, lanes: 8 };
    let slow = place(&i, &[narrow], None, None, &ub(512)).expect("p").prefill_tokens_per_s.expect("prefill");
    assert!(slow < small * 0.5, "PCIe 3.0 x8 {slow:.0} vs 4.0 x16 {small:.0}");
}

/// With two GPUs the RAM-held experts cross the first GPU's link only (ggml's scheduler offloads
/// a host-weight op to the first back end that wants it): a second card in a PCIe 3.0 x4 slot
/// leaves the copy, and so the hybrid prefill, where it is, and the printed link is the first's;
/// the first card in that slot slows it.
#[test]
fn hybrid_prefill_copies_over_the_first_gpus_link() {
    let i = input("qwen3-235b-a22b-instruct-2507", Precision::Q4_K_M, 4096);
    let flags = LlamaCppFlags { n_cpu_moe: Some(70), ubatch: Some(512), ..LlamaCppFlags::default() };
    let wide = slot("nvidia-geforce-rtx-3090");
    let mut narrow = wide.clone();
    narrow.link = Link::Pcie { generation: 3, lanes: 4 };
    let run = |g: &[GpuSlot]| place(&i, g, None, None, &flags).expect("placement");
    let both_wide = run(&[wide.clone(), wide.clone()]);
    let second_narrow = run(&[wide.clone(), narrow.clone()]);
    let first_narrow = run(&[narrow, wide]);
    let p = |e: &PlacementEstimate| e.prefill_tokens_per_s.expect("prefill");
    assert!((p(&second_narrow) / p(&both_wide) - 1.0).abs() < 0.05, "{} vs {}", p(&second_narrow), p(&both_wide));
    assert!(p(&first_narrow) < 0.5 * p(&both_wide), "{} vs {}", p(&first_narrow), p(&both_wide));
    let link = second_narrow.host_link.expect("a host link");
    assert!(link.starts_with("the first GPU's PCIe 4.0 x16, 31.5 GB/s"), "{link}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// More experts on the GPU is never slower: for any MoE preset, precision, context and
    /// host memory with an achieved bandwidth below the GPU's, decode with the experts of
    /// `n` layers in RAM is at least that with `n + k`.
    #[test]
    fn more_experts_on_the_gpu_is_never_slower(
        model in prop::sample::select(vec!["qwen3-30b-a3b", "gpt-oss-120b", "deepseek-v3", "glm-4.5-air", "mixtral-8x7b", "qwen3-235b-a22b"]),
        prec in prop::sample::select(vec![Precision::Q4_K_M, Precision::Q8_0, Precision::Q4_0]),
        ctx in 512u32..65536,
        n in 0u32..94,
        k in 1u32..40,
        channels in 1u32..13,
        mts in prop::sample::select(vec![2666u32, 3200, 4800, 5600, 6400]),
        sockets in 1u32..3,
        gpu in prop::sample::select(vec!["nvidia-geforce-rtx-3090", "nvidia-geforce-rtx-5090", "nvidia-h100-pcie"]),
    ) {
        let i = input(model, prec, ctx);
        let g = [slot(gpu)];
        let host = HostMemory { channels_per_socket: channels, speed_mt_s: mts, sockets };
        let fewer = place(&i, &g, Some(host), None, &ncmoe(n)).expect("placement");
        let more = place(&i, &g, Some(host), None, &ncmoe(n + k)).expect("placement");
        let (a, b) = (fewer.decode_tokens_per_s.expect("decode"), more.decode_tokens_per_s.expect("decode"));
        prop_assert!(a >= b * (1.0 - 1e-12), "{model} {prec}: --n-cpu-moe {n} {a} < --n-cpu-moe {} {b}", n + k);
        prop_assert!(fewer.host_experts_gib <= more.host_experts_gib + 1e-9);
    }
}

/// llama.cpp's load flags reduce to the host memory of the RAM-held weights: `--no-mmap` (or a
/// load mode without a mapping) pins them unless `--no-host`; nothing given leaves the input's.
#[test]
fn load_flags_say_where_the_ram_held_weights_sit() {
    use crate::estimate::llm::llama_flags::load_mode_is_unmapped;
    assert_eq!(HostWeightMemory::of_flags(None, false), None);
    assert_eq!(HostWeightMemory::of_flags(Some(true), false), Some(HostWeightMemory::Pinned));
    assert_eq!(HostWeightMemory::of_flags(Some(false), false), Some(HostWeightMemory::Pageable));
    assert_eq!(HostWeightMemory::of_flags(Some(true), true), Some(HostWeightMemory::UnmappedNoHost));
    assert_eq!(HostWeightMemory::of_flags(None, true), Some(HostWeightMemory::PageableNoHost));
    assert_eq!(HostWeightMemory::UnmappedNoHost.args(), " --no-mmap --no-host");
    assert!(HostWeightMemory::UnmappedNoHost.copy_words().contains("--no-host"));
    for m in ["none", "mlock", "dio", "DIO"] {
        assert_eq!(load_mode_is_unmapped(m), Ok(true), "{m}");
    }
    for m in ["mmap", "mmap+mlock", "auto"] {
        assert_eq!(load_mode_is_unmapped(m), Ok(false), "{m}");
    }
    assert!(load_mode_is_unmapped("direct").is_err());
    assert_eq!(HostWeightMemory::default(), HostWeightMemory::Pageable);
}

/// The per-micro-batch copy of RAM-held experts runs at the pageable rate fitted on LC-15
/// (mmap on, llama.cpp's default) and `PINNED_OVER_PAGEABLE_COPY` = 23.62 / 12.36 faster from
/// pinned memory (`--no-mmap`; NVIDIA cuda-oxide's RTX 4090 PCIe 4.0 measurement at 256 MiB).
/// gpt-oss-120b with `-ot` experts of layers 5.. in RAM beside one RTX 4070 (carteakey's
/// LC-31p placement): the copy takes 1.12 s of the pageable micro-batch and 1.12 / 1.911 s of
/// the pinned one; the GPU part (0.49 s) is the same. The flag given with the placement
/// overrides the input, and the arguments say `--no-mmap`; decode does not change.
#[test]
fn pinned_weights_copy_faster_by_the_measured_ratio() {
    assert!((PINNED_OVER_PAGEABLE_COPY - 1.911).abs() < 1e-3);
    assert!(
        (host_to_gpu_copy_efficiency(HostWeightMemory::Pinned)
            / host_to_gpu_copy_efficiency(HostWeightMemory::Pageable)
            - 23.62 / 12.36)
            .abs()
            < 1e-12
    );
    let i = input("gpt-oss-120b", Precision::Mxfp4, 512);
    let g = [slot("nvidia-geforce-rtx-4070")];
    let host = Some(HostMemory { channels_per_socket: 2, speed_mt_s: 5867, sockets: 1 });
    let ot = r"blk\.(5|[6-9]|[0-9][0-9]|[0-9][0-9][0-9])\.ffn_(up|down|gate)_(ch|)exps=CPU";
    let flags = |m: Option<HostWeightMemory>| LlamaCppFlags {
        n_gpu_layers: Some(37),
        overrides: vec![ot.parse().expect("regex")],
        host_weights: m,
        ..LlamaCppFlags::default()
    };
    let pageable = place(&i, &g, host, None, &flags(None)).expect("placement");
    let pinned = place(&i, &g, host, None, &flags(Some(HostWeightMemory::Pinned))).expect("placement");
    assert_eq!(pageable.host_weights, HostWeightMemory::Pageable);
    assert_eq!(pinned.host_weights, HostWeightMemory::Pinned);
    assert!(pinned.table.args.ends_with(" --no-mmap") && !pageable.table.args.contains("mmap"));
    assert_eq!(pinned.decode_tokens_per_s, pageable.decode_tokens_per_s);
    let (a, b) = (pageable.prefill_tokens_per_s.expect("prefill"), pinned.prefill_tokens_per_s.expect("prefill"));
    // Per micro-batch: compute + copy, the copy divided by the ratio.
    let (ta, tb) = (512.0 / a, 512.0 / b);
    let copy = (ta - tb) / (1.0 - 1.0 / PINNED_OVER_PAGEABLE_COPY);
    assert!((copy - 1.12).abs() < 0.01, "copy {copy:.3} s of {ta:.3}");
    // 318.24 / 476.56 before the MoE tile term followed the tile (branch r11a: the 128-wide
    // tile of the GPU part pays 62.2 tokens per expert, not 63.75).
    assert!((a - 320.05).abs() < 0.01 && (b - 480.64).abs() < 0.01, "{a:.2} / {b:.2}");
    // The same memory kind set on the input instead of the flags gives the same figure.
    let mut pinned_input = i.clone();
    pinned_input.llama_cpp_host_weights = HostWeightMemory::Pinned;
    let via_input = place(&pinned_input, &g, host, None, &flags(None)).expect("placement");
    assert_eq!(via_input.prefill_tokens_per_s, pinned.prefill_tokens_per_s);
}

/// llama-bench spells a placement its own way: `-ncmoe`, one `-ot` joined with `;`, `-ts` with
/// `/`, `-mmp 0` for `--no-mmap`, `--no-host 1`; the server's `-c` / `-np` are dropped.
#[test]
fn llama_bench_spells_the_placement_its_own_way() {
    let server = r#"-c 32768 -np 2 -ngl 37 --n-cpu-moe 5 -ot "blk\.(5|6)\.ffn_up_exps=CPU" -ot "blk\.7\.ffn_down_exps=CPU" -sm row -ub 2048 --no-mmap --no-host -ts 20,17"#;
    assert_eq!(
        llama_bench_args(server),
        r#"-ngl 37 -ncmoe 5 -sm row -ub 2048 -mmp 0 --no-host 1 -ts 20/17 -ot "blk\.(5|6)\.ffn_up_exps=CPU;blk\.7\.ffn_down_exps=CPU""#
    );
    assert_eq!(llama_bench_args("-c 4096 -ngl 99"), "-ngl 99");
    // A comma-separated `-ot` value is several rules: joined with ';' (a comma starts a test).
    assert_eq!(llama_bench_args(r#"-ngl 99 -ot "a=CPU,b=CPU""#), r#"-ngl 99 -ot "a=CPU;b=CPU""#);
}

/// DeepSeek-V3 (256 experts, top 8) at 4.578 bits per weight beside one RTX 4090 on an EPYC 9355
/// (32 cores, 3.55 GHz, AVX-512; sousekd's server of IK-06p), 12 x DDR5-6400, a 4096-token
/// prompt: ik_llama.cpp build 3762 at `-ub 512` computes the RAM-held experts on the CPU
/// (512 x 8 < 32 x 256), mainline copies them; `-rtr` keeps them on the CPU at `-ub 4096` too,
/// where build 3762 without it copies them (4096 x 8 >= 32 x 256). Without a known CPU the CPU
/// path is unknown, not a guess; and more experts on the GPU are never slower.
#[test]
fn ram_held_experts_on_the_cpu_by_runtime_build_and_rtr() {
    let epyc = super::super::cpu_prefill::HostCpu { cores: 32, base_clock_ghz: 3.55, avx512: true };
    let host = Some(HostMemory { channels_per_socket: 12, speed_mt_s: 6400, sockets: 1 });
    let gpus = [slot("nvidia-geforce-rtx-4090")];
    let mut ik = input("deepseek-v3", Precision::Bpw(4.578), 4096);
    ik.runtime = Some(Runtime::IkLlamaCpp);
    ik.llama_cpp_build = Some(3762);
    ik.host_cpu = Some(epyc);
    let ub = |u: u32, n: u32, rtr: bool| LlamaCppFlags { ubatch: Some(u), run_time_repack: rtr, ..ncmoe(n) };
    let p = place(&ik, &gpus, host, None, &ub(512, 61, false)).expect("places");
    assert_eq!(p.prefill_bound, PrefillBound::CpuExperts);
    let cpu_512 = p.prefill_tokens_per_s.expect("CPU path estimated");
    // The CPU's share alone: 512 tokens x 40.87 GFLOP at 32 x 3.55 GHz x the fitted rate.
    let flops = 2.0 * 8.0 * 3.0 * 7168.0 * 2048.0 * 58.0;
    let cpu_only = epyc.expert_gemm_flop_s().expect("AVX-512") / flops;
    assert!(cpu_512 < cpu_only && cpu_512 > 0.85 * cpu_only, "{cpu_512} vs the CPU alone {cpu_only}");
    let mut main = ik.clone();
    main.runtime = Some(Runtime::LlamaCpp);
    let copied = place(&main, &gpus, host, None, &ub(512, 61, false)).expect("places");
    assert_eq!(copied.prefill_bound, PrefillBound::HostLink);
    // -ub 4096: build 3762 copies, -rtr computes on the CPU.
    let big = place(&ik, &gpus, host, None, &ub(4096, 61, false)).expect("places");
    assert_eq!(big.prefill_bound, PrefillBound::HostLink);
    let rtr = place(&ik, &gpus, host, None, &ub(4096, 61, true)).expect("places");
    assert_eq!(rtr.prefill_bound, PrefillBound::CpuExperts);
    // No CPU figures: unknown, said why.
    let mut blind = ik.clone();
    blind.host_cpu = None;
    let b = place(&blind, &gpus, host, None, &ub(512, 61, false)).expect("places");
    assert_eq!(b.prefill_tokens_per_s, None);
    assert!(b.unknown_because.as_deref().is_some_and(|w| w.contains("base clock")), "{:?}", b.unknown_because);
    // Build unknown: the two rules differ at -ub 512, so unknown.
    let mut undated = ik.clone();
    undated.llama_cpp_build = None;
    assert_eq!(place(&undated, &gpus, host, None, &ub(512, 61, false)).expect("places").prefill_tokens_per_s, None);
    // Monotone: fewer layers' experts in RAM is never slower on the CPU path.
    let mut last = 0.0;
    for n in (40..=61).rev() {
        let r = place(&ik, &gpus, host, None, &ub(512, n, true)).expect("places").prefill_tokens_per_s.expect("est");
        assert!(r >= last, "--n-cpu-moe {n}: {r} below {last}");
        last = r;
    }
}

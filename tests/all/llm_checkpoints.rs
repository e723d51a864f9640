//! The presets' checkpoints as published: weight bytes counted per tensor
//! group (routed experts, the rest of the layers, embeddings) in each group's own format, scale
//! tensors included, held within 2 % of the bytes each checkpoint's safetensors index reports
//! (`metadata.total_size`, cited per preset in `catalog/models.ron` as `total_source`).

#![allow(clippy::doc_markdown, reason = "format names (MXFP4, NVFP4) read better unquoted")]

use kraftwerk::catalog::{self, Catalog, LlmModel, TensorFormat};
use kraftwerk::estimate::llm::{self, FitError, FitInput, GIB, GpuSlot, Precision, checkpoint_bytes, weight_bytes};

fn cat() -> Catalog {
    catalog::builtin().expect("catalog")
}

fn preset(c: &Catalog, id: &str) -> LlmModel {
    c.model(id).unwrap_or_else(|| panic!("preset {id}")).clone()
}

/// Presets whose published total is held, at least: the ratchet keeps a later edit from
/// dropping one silently.
const CHECKED_AT_LEAST: usize = 57;

#[test]
fn every_published_checkpoint_total_is_met_within_2_percent() {
    let c = cat();
    let mut rows = Vec::new();
    let mut unchecked = Vec::new();
    for m in &c.models {
        let Some(ck) = &m.checkpoint else {
            unchecked.push(m.id.clone());
            continue;
        };
        let Some(published) = ck.total_bytes else {
            unchecked.push(m.id.clone());
            continue;
        };
        assert!(
            ck.total_source.as_deref().is_some_and(|s| s.starts_with("https://")),
            "{}: a published total needs its URL",
            m.id
        );
        let computed = checkpoint_bytes(m).expect("checkpoint bytes");
        let published = published as f64;
        rows.push((m.id.clone(), computed / 1e9, published / 1e9, 100.0 * (computed / published - 1.0)));
    }
    println!("{:<22} {:>12} {:>12} {:>8}", "preset", "computed GB", "published GB", "diff");
    for (id, got, want, pct) in &rows {
        println!("{id:<22} {got:>12.2} {want:>12.2} {pct:>+7.2}%");
    }
    println!("no published total found ({}): {}", unchecked.len(), unchecked.join(", "));
    let off: Vec<_> = rows.iter().filter(|r| r.3.abs() > 2.0).collect();
    assert!(off.is_empty(), "outside 2 %: {off:?}");
    assert!(rows.len() >= CHECKED_AT_LEAST, "{} presets checked, want at least {CHECKED_AT_LEAST}", rows.len());
}

/// The check above fails on the fault it exists for: a uniform 4.25 bits per weight for
/// gpt-oss (the figure issue 28 reports as "about 58 GiB" for the 120b) is far below the
/// published checkpoint, whose attention, router and embeddings are BF16.
/// Published: https://huggingface.co/openai/gpt-oss-20b/blob/main/model.safetensors.index.json
/// `metadata.total_size` 13,761,264,768.
#[test]
fn a_uniform_bits_per_weight_misses_gpt_oss_by_more_than_2_percent() {
    let m = preset(&cat(), "gpt-oss-20b");
    let published = m.checkpoint.as_ref().and_then(|c| c.total_bytes).expect("published") as f64;
    let uniform = weight_bytes(&m, Precision::Bpw(4.25));
    assert!((uniform / published - 1.0).abs() > 0.02, "uniform {uniform} vs {published}");
    let native = weight_bytes(&m, Precision::Native);
    assert!((native / published - 1.0).abs() < 0.02, "native {native} vs {published}");
    // DeepSeek-V3 at BF16 (the old default for a checkpoint without a format) is twice the file.
    let ds = preset(&cat(), "deepseek-v3");
    let published = ds.checkpoint.as_ref().and_then(|c| c.total_bytes).expect("published") as f64;
    assert!(weight_bytes(&ds, Precision::Bf16) / published > 1.9);
}

/// gpt-oss-120b as published: the model card gives the checkpoint as 60.8 GiB (gpt-oss-120b &
/// gpt-oss-20b Model Card, https://arxiv.org/abs/2508.10925 , Table 1: 60.8 GiB and 12.8 GiB).
/// `mxfp4` and `native` both give gpt-oss's layout: MXFP4 experts, the rest BF16.
#[test]
fn gpt_oss_120b_native_is_the_model_cards_60_8_gib() {
    let c = cat();
    let m = preset(&c, "gpt-oss-120b");
    for p in [Precision::Native, Precision::Mxfp4] {
        let gib = weight_bytes(&m, p) / GIB;
        assert!((gib / 60.8 - 1.0).abs() < 0.02, "{p}: {gib:.2} GiB");
    }
    let small = weight_bytes(&preset(&c, "gpt-oss-20b"), Precision::Native) / GIB;
    assert!((small / 12.8 - 1.0).abs() < 0.02, "{small:.2} GiB");
    // The uniform 4.25 bits of the issue: about 58 GiB, 4 % short.
    let uniform = weight_bytes(&m, Precision::Bpw(4.25)) / GIB;
    assert!(uniform < 60.8 * 0.97, "{uniform:.2} GiB");
}

/// Block FP8 and NVFP4 keep the embeddings in BF16 and count their scales: DeepSeek-V3 at
/// `fp8-block` is its native layout; NVFP4 is 4.5 bits for every layer weight.
#[test]
fn block_fp8_and_nvfp4_count_scales_and_keep_embeddings_bf16() {
    let c = cat();
    let ds = preset(&c, "deepseek-v3");
    assert!((weight_bytes(&ds, Precision::Fp8Block) - weight_bytes(&ds, Precision::Native)).abs() < 1.0);
    let g = llm::param_groups(&ds);
    let tables = 2.0 * g.table * 2.0;
    let layers = (g.experts + g.layers) * TensorFormat::Fp8Block.bytes_per_weight();
    assert!((weight_bytes(&ds, Precision::Fp8Block) - tables - layers).abs() < 1.0);
    assert!(TensorFormat::Fp8Block.bytes_per_weight() > 1.0);
    let l = preset(&c, "llama-3.1-70b");
    let g = llm::param_groups(&l);
    let nv = weight_bytes(&l, Precision::Nvfp4);
    assert!((nv - (2.0 * g.table * 2.0 + g.layers * 0.5625)).abs() < 1.0, "{nv}");
}

/// Every preset says how it is published, so `--precision native` works on each.
#[test]
fn every_preset_has_a_published_format() {
    let c = cat();
    let missing: Vec<_> = c.models.iter().filter(|m| m.checkpoint.is_none()).map(|m| m.id.as_str()).collect();
    assert!(missing.is_empty(), "no checkpoint format: {missing:?}");
    for m in c.models.iter().filter(|m| m.experts.is_some()) {
        let e = llm::param_groups(m).experts / 1e9;
        assert!(e > 0.5 * m.params_b && e < m.params_b, "{}: experts {e:.1}B of {}B", m.id, m.params_b);
    }
}

#[test]
fn native_names_parse_and_an_unknown_precision_lists_them() {
    for (s, p) in [
        ("mxfp4", Precision::Mxfp4),
        ("nvfp4", Precision::Nvfp4),
        ("fp8-block", Precision::Fp8Block),
        ("native", Precision::Native),
    ] {
        assert_eq!(s.parse::<Precision>(), Ok(p));
        assert_eq!(p.to_string(), s);
    }
    let e = "mxfp6".parse::<Precision>().expect_err("unknown").to_string();
    for name in ["mxfp4", "nvfp4", "fp8-block", "native", "bf16", "q4_k_m"] {
        assert!(e.contains(name), "{e}");
    }
}

/// `native` on a model the catalog has no published format for is refused with the model's id,
/// not estimated at a guessed format.
#[test]
fn native_without_a_checkpoint_is_refused() {
    let c = cat();
    let mut m = preset(&c, "llama-3.1-8b");
    m.checkpoint = None;
    let gpu = c.gpu_or_card("nvidia-h100-sxm5-80gb").expect("H100").clone();
    let err = llm::estimate(&FitInput::new(m, Precision::Native), &[GpuSlot::new(gpu)]).expect_err("refused");
    assert!(matches!(&err, FitError::InvalidModel { id, .. } if id == "llama-3.1-8b"), "{err}");
    assert!(err.to_string().contains("no published checkpoint"), "{err}");
}

/// The fit uses the native bytes: gpt-oss-120b's weights on one H100 are the 60.8 GiB.
#[test]
fn the_fit_carries_native_weight_bytes() {
    let c = cat();
    let gpu = c.gpu_or_card("nvidia-h100-sxm5-80gb").expect("H100").clone();
    let r = llm::estimate(&FitInput::new(preset(&c, "gpt-oss-120b"), Precision::Native), &[GpuSlot::new(gpu)])
        .expect("estimate");
    let w = r.gpus[0].memory.weights_gib;
    assert!((w / 60.8 - 1.0).abs() < 0.02, "{w:.2} GiB");
}

/// Decode reads each group at its own format: gpt-oss-120b at `native` reads all of its BF16
/// attention, router and LM head plus 4 of 128 MXFP4 experts per layer at batch 1, about
/// 2.0 + 1.2 + 1.9 GB (by the group bytes above), not the whole body scaled by the active
/// parameter fraction (2.2 GB), which would overstate decode speed.
#[test]
fn moe_decode_reads_dense_groups_whole_and_experts_by_routing() {
    let c = cat();
    let gpu = c.gpu_or_card("nvidia-h100-sxm5-80gb").expect("H100").clone();
    let m = preset(&c, "gpt-oss-120b");
    let g = llm::param_groups(&m);
    let dense = g.layers * 2.0;
    let head = g.table * 2.0;
    let experts = g.experts * TensorFormat::Mxfp4.bytes_per_weight() * 4.0 / 128.0;
    let want_gb = (dense + head + experts) / 1e9;
    let mut input = FitInput::new(m, Precision::Native);
    input.context_tokens = 1;
    let r = llm::estimate(&input, &[GpuSlot::new(gpu)]).expect("estimate");
    let got = r.speed.expect("speed").bytes_per_token_gb;
    assert!((got / want_gb - 1.0).abs() < 0.05, "{got:.2} GB per token, want {want_gb:.2}");
}

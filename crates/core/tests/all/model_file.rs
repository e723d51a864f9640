//! Model files read into the LLM estimate: fixtures written by the official Python writers
//! (`gguf` GGUFWriter, `safetensors`), made by `scripts/make_model_fixtures.py`, whose
//! `expected.json` holds what the official readers (`gguf.GGUFReader`, `safetensors.safe_open`)
//! say about each: the sum of tensor bytes, the tensor count, layers, heads and KV heads.

use kraftwerk_catalog::{Attention, WeightBytes};
use kraftwerk_core::estimate::llm::{self, FitInput, GIB, GpuSlot, Precision, Runtime};
use kraftwerk_core::estimate::model_file::{ModelFileError, ModelFormat, gguf, read_model_file};
use proptest::prelude::*;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    crate::support::fixture("model-files").join(name)
}

fn expected() -> serde_json::Value {
    let text = std::fs::read_to_string(fixture("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("json")
}

#[test]
fn weights_equal_the_sum_of_tensor_bytes_and_shapes_equal_metadata() {
    let exp = expected();
    let entries = exp.as_object().expect("object");
    assert!(entries.len() >= 6, "fixtures: {entries:?}");
    for (name, e) in entries {
        let f = read_model_file(&fixture(name)).unwrap_or_else(|err| panic!("{name}: {err}"));
        let n = |k: &str| e[k].as_u64().expect("number");
        assert_eq!(f.weights.total, n("tensor_bytes"), "{name}: weight bytes");
        assert_eq!(f.tensor_count as u64, n("tensors"), "{name}: tensors");
        assert_eq!(u64::from(f.model.layers), n("layers"), "{name}: layers");
        assert_eq!(u64::from(f.model.heads), n("heads"), "{name}: heads");
        assert_eq!(u64::from(f.model.kv_heads), n("kv_heads"), "{name}: kv heads");
        let by_type: u64 = f.bytes_by_type.iter().map(|x| x.1).sum();
        assert_eq!(by_type, f.weights.total, "{name}: bytes by type add up");
        println!("{}", f.summary());
    }
}

#[test]
fn gguf_q4_k_m_mixes_types_and_names_its_precision() {
    let f = read_model_file(&fixture("tiny-llama-q4_k_m.gguf")).expect("read");
    assert_eq!(f.format, ModelFormat::Gguf { version: 3 });
    assert_eq!(f.architecture, "llama");
    assert_eq!(f.precision, Precision::Q4_K_M);
    assert_eq!(f.runtime, Runtime::LlamaCpp);
    let types: Vec<&str> = f.bytes_by_type.iter().map(|x| x.0.as_str()).collect();
    for t in ["Q4_K", "Q6_K", "F32"] {
        assert!(types.contains(&t), "{types:?}");
    }
    assert!(!f.weights.tied_embeddings);
    // token_embd 256 x 256 in Q4_K: 65536 / 256 blocks x 144 bytes; output in Q6_K x 210.
    assert_eq!(f.weights.embedding, 256 * 144);
    assert_eq!(f.weights.head, 256 * 210);
    assert_eq!(f.model.attention, Attention::Full);
    assert_eq!(f.model.max_context, 131_072);
    assert_eq!(f.model.vocab, 256);
    assert_eq!(f.model.head_dim, 64);
}

#[test]
fn gguf_moe_counts_every_expert_for_memory_and_the_used_ones_as_active() {
    let f = read_model_file(&fixture("tiny-qwen3moe-q8_0.gguf")).expect("read");
    assert_eq!(f.architecture, "qwen3moe");
    assert_eq!(f.precision, Precision::Q8_0);
    assert!(f.weights.experts > f.weights.total / 2, "{:?}", f.weights);
    let active = f.model.active_params_b.expect("MoE has active params");
    // 8 experts, 2 used: active = total - 6/8 of the expert parameters.
    let expert_params = 2.0 * 3.0 * 8.0 * 32.0 * 64.0 / 1e9;
    assert!((f.model.params_b - active - expert_params * 0.75).abs() < 1e-12, "{} {active}", f.model.params_b);
    assert_eq!(f.model.intermediate, Some(32), "expert FFN width");
    assert_eq!(f.model.head_dim, 32);
}

#[test]
fn gguf_deepseek2_is_mla_and_gpt_oss_alternates_with_mxfp4_experts() {
    let d = read_model_file(&fixture("tiny-deepseek2-q4_k.gguf")).expect("read");
    assert_eq!(d.model.attention, Attention::Mla { kv_lora_rank: 512, rope_head_dim: 64 });
    assert_eq!(d.model.head_dim, 192);
    assert!(matches!(d.precision, Precision::Bpw(b) if b > 4.0 && b < 6.0), "{:?}", d.precision);
    let g = read_model_file(&fixture("tiny-gpt-oss-mxfp4.gguf")).expect("read");
    assert_eq!(g.architecture, "gpt-oss");
    assert_eq!(g.model.attention, Attention::Alternating { window: 128 });
    let mx = g.bytes_by_type.iter().find(|x| x.0 == "MXFP4").expect("MXFP4 tensors").1;
    // 2 layers x 3 expert tensors x 4 experts x 64 x 64 elements, 17 bytes per 32.
    assert_eq!(mx, 2 * 3 * 4 * 64 * 64 / 32 * 17);
    assert_eq!(g.weights.experts, mx);
}

#[test]
fn gguf_gemma3_interleaves_windows_and_ties_its_head() {
    let f = read_model_file(&fixture("tiny-gemma3-bf16.gguf")).expect("read");
    assert_eq!(f.precision, Precision::Bf16);
    assert_eq!(f.model.attention, Attention::Interleaved { window: 1024, global_every: 6 });
    assert!(f.weights.tied_embeddings);
    assert_eq!(f.weights.head, 0);
    assert_eq!(f.weights.embedding, 128 * 64 * 2);
}

#[test]
fn hugging_face_folder_reads_config_and_safetensors_headers() {
    let dir = fixture("tiny-qwen3-hf");
    let f = read_model_file(&dir).expect("read");
    assert_eq!(f.format, ModelFormat::Safetensors { shards: 2 });
    assert_eq!(f.architecture, "qwen3");
    assert_eq!(f.precision, Precision::Fp16);
    assert_eq!(f.runtime, Runtime::Vllm);
    assert_eq!(f.model.head_dim, 16);
    assert_eq!(f.model.attention, Attention::Full, "use_sliding_window false");
    assert_eq!(f.weights.embedding, 128 * 64 * 2);
    assert_eq!(f.weights.head, 128 * 64 * 2);
    // The same folder through config.json or one shard.
    assert_eq!(read_model_file(&dir.join("config.json")).expect("config").weights, f.weights);
    let shard = dir.join("model-00001-of-00002.safetensors");
    assert_eq!(read_model_file(&shard).expect("shard").weights, f.weights);
}

#[test]
fn index_only_folder_uses_the_published_total_size() {
    let f = read_model_file(&fixture("mixtral-index-only")).expect("read");
    assert_eq!(f.format, ModelFormat::Safetensors { shards: 0 });
    assert_eq!(f.architecture, "mixtral");
    assert_eq!(f.weights.total, 93_405_585_408);
    assert!((f.model.params_b - 46.70).abs() < 0.01, "{}", f.model.params_b);
    assert_eq!((f.model.layers, f.model.heads, f.model.kv_heads), (32, 32, 8));
}

#[test]
fn non_model_files_and_unknown_architectures_are_named_errors() {
    let e = read_model_file(&fixture("not-a-model.gguf")).expect_err("zip is no model");
    assert!(matches!(e, ModelFileError::NotAModel(_)), "{e}");
    let e = read_model_file(&fixture("does-not-exist.gguf")).expect_err("missing");
    assert!(matches!(e, ModelFileError::Io(_)), "{e}");
    let e = read_model_file(&fixture("expected.json")).expect_err("json is no model");
    assert!(matches!(e, ModelFileError::NotAModel(_)), "{e}");

    let dir = std::env::temp_dir().join(format!("kraftwerk-model-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let bert = dir.join("bert.gguf");
    std::fs::write(&bert, tiny_gguf(&[("general.architecture", "bert")], &[])).expect("write");
    let e = read_model_file(&bert).expect_err("bert");
    assert_eq!(e, ModelFileError::UnknownArchitecture("bert".into()));
    assert!(e.to_string().contains("`bert`"), "{e}");
    let llama = dir.join("llama-no-layers.gguf");
    std::fs::write(&llama, tiny_gguf(&[("general.architecture", "llama")], &[("llama.embedding_length", 64)]))
        .expect("write");
    let e = read_model_file(&llama).expect_err("no block_count");
    assert!(e.to_string().contains("llama.block_count"), "{e}");
    let hf = dir.join("hf-phi");
    std::fs::create_dir_all(&hf).expect("dir");
    std::fs::write(hf.join("config.json"), r#"{"model_type": "phi3", "num_hidden_layers": 32}"#).expect("write");
    let e = read_model_file(&hf).expect_err("phi3");
    assert_eq!(e, ModelFileError::UnknownArchitecture("phi3".into()));
    std::fs::write(hf.join("config.json"), r#"{"model_type": "qwen3", "num_hidden_layers": 2}"#).expect("write");
    std::fs::write(hf.join("model.safetensors.index.json"), r#"{"metadata": {"total_size": 10}, "weight_map": {}}"#)
        .expect("write");
    let e = read_model_file(&hf).expect_err("no hidden_size");
    assert!(e.to_string().contains("`hidden_size`") && e.to_string().contains("qwen3"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn truncated_safetensors_shard_is_an_error() {
    let src = fixture("tiny-qwen3-hf");
    let dir = std::env::temp_dir().join(format!("kraftwerk-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    std::fs::copy(src.join("config.json"), dir.join("config.json")).expect("copy");
    let bytes = std::fs::read(src.join("model-00001-of-00002.safetensors")).expect("read");
    for cut in [0, 5, 8, 100, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(dir.join("model.safetensors"), &bytes[..cut]).expect("write");
        let e = read_model_file(&dir).expect_err("truncated");
        assert!(matches!(e, ModelFileError::Truncated(_) | ModelFileError::Invalid(_)), "cut {cut}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any prefix of a real GGUF file is an error, never a panic.
    #[test]
    fn truncated_gguf_is_an_error_never_a_panic(which in 0usize..5, frac in 0.0f64..1.0) {
        let names = ["tiny-llama-q4_k_m.gguf", "tiny-qwen3moe-q8_0.gguf", "tiny-deepseek2-q4_k.gguf",
            "tiny-gpt-oss-mxfp4.gguf", "tiny-gemma3-bf16.gguf"];
        let bytes = std::fs::read(fixture(names[which])).expect("fixture");
        // Cut before the end of the last tensor (the writer pads after it).
        let h = gguf::read_header(&bytes[..], bytes.len() as u64).expect("whole file");
        let end = h.data_offset + h.tensors.iter().map(|t| t.offset + t.bytes).max().unwrap_or(0);
        let cut = ((end as f64) * frac) as usize;
        let r = gguf::read_header(&bytes[..cut], cut as u64);
        prop_assert!(r.is_err(), "a {cut}-byte prefix of {} parsed", names[which]);
    }

    /// Random bytes after a valid magic are an error or a header, never a panic.
    #[test]
    fn garbage_after_the_magic_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = b"GGUF\x03\x00\x00\x00".to_vec();
        bytes.extend(tail);
        let _ = gguf::read_header(&bytes[..], bytes.len() as u64);
    }
}

#[test]
fn whole_fixture_parses_and_the_estimate_uses_its_exact_bytes() {
    let f = read_model_file(&fixture("tiny-llama-q4_k_m.gguf")).expect("read");
    let bytes = std::fs::read(fixture("tiny-llama-q4_k_m.gguf")).expect("fixture");
    assert!(gguf::read_header(&bytes[..], bytes.len() as u64).is_ok());
    let mut input = FitInput::new(f.model.clone(), f.precision);
    input.runtime = Some(f.runtime);
    input.file_weights = Some(f.weights);
    let gpu = kraftwerk_catalog::builtin().expect("catalog").gpus.into_iter().next().expect("a GPU");
    let r = llm::estimate(&input, &[GpuSlot::new(gpu)]).expect("estimate");
    assert!((r.weights_total_gib * GIB - f.weights.total as f64).abs() < 1.0, "{}", r.weights_total_gib);
    // llama.cpp keeps token_embd in host RAM: exactly the file's embedding bytes.
    assert!((r.host_weights_gib * GIB - f.weights.embedding as f64).abs() < 1.0);
    let on_gpu = r.gpus[0].memory.weights_gib * GIB;
    let want = (f.weights.total - f.weights.embedding) as f64;
    assert!((on_gpu - want).abs() < 1.0, "{on_gpu} vs {want}");
    let _ = WeightBytes::default();
}

/// A GGUF v3 file with string and u32 metadata and no tensors.
fn tiny_gguf(strings: &[(&str, &str)], u32s: &[(&str, u32)]) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend(((strings.len() + u32s.len()) as u64).to_le_bytes());
    let s = |b: &mut Vec<u8>, x: &str| {
        b.extend((x.len() as u64).to_le_bytes());
        b.extend(x.as_bytes());
    };
    for (k, v) in strings {
        s(&mut b, k);
        b.extend(8u32.to_le_bytes());
        s(&mut b, v);
    }
    for (k, v) in u32s {
        s(&mut b, k);
        b.extend(4u32.to_le_bytes());
        b.extend(v.to_le_bytes());
    }
    b
}

//! The sub-4-bit GGUF quants are precisions the CLI accepts, their bytes
//! counted per tensor as `llama-quantize` writes them (`estimate::llm::gguf_mix`), held to
//! published file sizes. Part of the `llm_fit` test target.

use kraftwerk::estimate::llm::{Precision, weight_gib};

/// Published file sizes of sub-4-bit GGUF files of MoE and dense presets, GiB, with their
/// sources (llama-bench prints the file's tensor bytes in GiB; the quantize README's table
/// is the same figure).
const PUBLISHED: [(&str, Precision, f64, &str); 4] = [
    (
        "qwen3-30b-a3b",
        Precision::Q3_K_M,
        13.70,
        "https://github.com/ggml-org/llama.cpp/pull/15952, 2025-09-12: llama-bench \"qwen3moe 30B.A3B Q3_K - Medium | 13.70 GiB | 30.53 B\"",
    ),
    (
        "llama-3.1-8b",
        Precision::IQ2_XXS,
        2.23,
        "llama.cpp tools/quantize/README.md, Llama-3.1-8B table: IQ2_XXS 2.3824 bits/weight, 2.23 GiB",
    ),
    (
        "llama-3.1-8b",
        Precision::IQ1_S,
        1.87,
        "llama.cpp tools/quantize/README.md, Llama-3.1-8B table: IQ1_S 2.0042 bits/weight, 1.87 GiB",
    ),
    (
        "llama-3.1-8b",
        Precision::Q2_K,
        2.95,
        "llama.cpp tools/quantize/README.md, Llama-3.1-8B table: Q2_K 3.1593 bits/weight, 2.95 GiB",
    ),
];

/// Every published size within 2 % (the core's unit test holds all 15 sub-4-bit rows of the
/// README's table within 1.5 %).
#[test]
fn sub_4_bit_gguf_file_sizes_held_to_published_files() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    for (id, p, published, source) in PUBLISHED {
        let m = cat.model(id).expect("preset");
        let est = weight_gib(m, p);
        println!("{id} {p}: {est:.3} GiB vs {published} GiB ({source})");
        assert!((est / published - 1.0).abs() <= 0.02, "{id} {p}: {est:.3} vs {published} ({source})");
    }
}

/// `fit --precision iq2_xxs` (and the other mixes) works end to end: the text names the
/// precision, the JSON carries it and the weight total the core computes; Unsloth's dynamic
/// quants are refused with a reason, not guessed.
#[test]
fn fit_accepts_the_sub_4_bit_quants_text_and_json() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let build = crate::support::builds("2x-rtx-4090-x870e.rig.ron");
    for name in ["iq2_xxs", "IQ1_S", "q3_k_m", "q2_k", "iq3_xxs"] {
        let p: Precision = name.parse().expect("parses");
        let args = ["fit", &build, "--model", "qwen3-30b-a3b", "--precision", name, "--runtime", "llama.cpp"];
        let o = crate::support::kw(&args);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(&p.to_string()), "{name}: {text}");
        let mut json_args = args.to_vec();
        json_args.extend(["--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&crate::support::kw(&json_args).stdout).expect("json");
        assert_eq!(v["fit"]["weight_precision"], p.to_string(), "{name}");
        let w = v["fit"]["weights_total_gib"].as_f64().expect("weights");
        let core = weight_gib(cat.model("qwen3-30b-a3b").expect("preset"), p);
        assert!((w - core).abs() < 1e-6, "{name}: JSON {w} vs core {core}");
    }
    let o = crate::support::kw(&["fit", &build, "--model", "qwen3-30b-a3b", "--precision", "UD-Q2_K_XL"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("Unsloth"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Published GGUF files of gpt-oss, whose experts stay MXFP4 whatever the label: (preset,
/// label, file size in GB of 10^9 bytes as the Hugging Face file listing prints it, source).
const GPT_OSS_GGUF_FILES: [(&str, Precision, f64, &str); 6] = [
    (
        "gpt-oss-120b",
        Precision::Q4_K_M,
        62.8,
        "https://huggingface.co/unsloth/gpt-oss-120b-GGUF/tree/main/Q4_K_M: 62.8 GB (49.6 + 13.1 GB)",
    ),
    (
        "gpt-oss-20b",
        Precision::Q2_K,
        11.5,
        "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/tree/main: gpt-oss-20b-Q2_K.gguf 11.5 GB",
    ),
    (
        "gpt-oss-20b",
        Precision::Q3_K_M,
        11.5,
        "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/tree/main: gpt-oss-20b-Q3_K_M.gguf 11.5 GB",
    ),
    (
        "gpt-oss-20b",
        Precision::Q4_0,
        11.5,
        "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/tree/main: gpt-oss-20b-Q4_0.gguf 11.5 GB",
    ),
    (
        "gpt-oss-20b",
        Precision::Q4_K_M,
        11.6,
        "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/tree/main: gpt-oss-20b-Q4_K_M.gguf 11.6 GB",
    ),
    (
        "gpt-oss-20b",
        Precision::Q5_K_M,
        11.7,
        "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/tree/main: gpt-oss-20b-Q5_K_M.gguf 11.7 GB",
    ),
];

/// A GGUF label on gpt-oss keeps its routed experts in MXFP4 (the files of every label are
/// within 0.2 GB of each other, and none is smaller than 97 % of the MXFP4 experts plus the
/// rest at the label): each published file within 4 %. The estimate is under each file by
/// 1-3 %: Unsloth keeps the attention and embeddings above the label's bits (62.8 - 60.9 GB
/// of MXFP4 experts leaves 1.9 GB for 2.17 B other weights, 7 bits each), which the label's
/// nominal bits do not see. Before, each label was sized at its nominal bits for every
/// weight: 66.6 GiB (71.5 GB) for the 120b's Q4_K_M, 11.9 GiB (12.8 GB) for the 20b's.
#[test]
fn gpt_oss_gguf_labels_keep_the_experts_in_mxfp4() {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    for (id, p, published_gb, source) in GPT_OSS_GGUF_FILES {
        let est_gb = weight_gib(cat.model(id).expect("preset"), p) * f64::from(1u32 << 30) / 1e9;
        println!("{id} {p}: {est_gb:.2} GB vs {published_gb} GB ({source})");
        assert!((est_gb / published_gb - 1.0).abs() <= 0.04, "{id} {p}: {est_gb:.2} GB vs {published_gb} ({source})");
    }
    // `fit --search` sizes the labels so, and lists the MXFP4 file beside them.
    let build = crate::support::builds("2x-rtx-4090-x870e.rig.ron");
    let o = crate::support::kw(&["fit", &build, "--model", "gpt-oss-120b", "--search"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let weights = |p: &str| -> f64 {
        let row = text
            .lines()
            .map(str::trim_start)
            .find(|l| l.split_whitespace().next() == Some(p))
            .unwrap_or_else(|| panic!("no {p} row:\n{text}"));
        let w: Vec<&str> = row.split_whitespace().collect();
        let at = w.iter().position(|t| *t == "GiB").unwrap_or_else(|| panic!("{row}"));
        w[at - 1].parse().unwrap_or_else(|_| panic!("{row}"))
    };
    let mxfp4 = weights("mxfp4");
    assert!((mxfp4 - 60.8).abs() < 0.05, "mxfp4 {mxfp4}:\n{text}");
    for p in ["q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "q3_k_m", "q2_k"] {
        let w = weights(p);
        assert!(w > 57.0 && w < 60.0, "{p}: {w} GiB:\n{text}");
    }
    assert!((weights("q4_k_m") - 62.8e9 / f64::from(1u32 << 30)).abs() < 1.0, "{text}");
}

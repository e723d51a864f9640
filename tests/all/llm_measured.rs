//! `kraftwerk fit BUILD --measured FILE` (issue 28, item 8): llama-bench output as llama-bench
//! writes it, held against the estimate for the same tests. The fixtures are the JSON and CSV
//! examples of llama.cpp's llama-bench README, a real run on one RTX 4080
//! (https://github.com/ggml-org/llama.cpp/blob/master/tools/llama-bench/README.md ; see
//! tests/fixtures/llama-bench/SOURCE.md).

use kraftwerk::estimate::llm::measured::{Comparison, check_gpus, correction_factors, parse_llama_bench};
use std::path::Path;
use std::process::Command;

const DIR: &str = "tests/fixtures/llama-bench";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(DIR).join(name)).expect("fixture")
}

#[test]
fn llama_bench_json_and_csv_read_as_written() {
    let json = parse_llama_bench(&fixture("rtx4080-qwen2.5-7b-q4_k_m.json")).expect("json");
    assert_eq!(json.len(), 2);
    assert_eq!((json[0].test_name(), json[1].test_name()), ("pp512".to_owned(), "tg128".to_owned()));
    assert!((json[0].avg_ts - 7_100.002_165).abs() < 1e-6 && (json[1].avg_ts - 118.881_588).abs() < 1e-6);
    assert_eq!(json[1].model_n_params, Some(7_615_616_512));
    assert_eq!((json[0].line, json[1].line), (2, 48));
    let csv = parse_llama_bench(&fixture("rtx4080-qwen2.5-7b-q4_k_m.csv")).expect("csv");
    assert_eq!(csv.len(), 2);
    assert!((csv[0].avg_ts - 7_285.676_949).abs() < 1e-6 && (csv[1].avg_ts - 119.915_244).abs() < 1e-6);
    assert!(csv[1].is_generation() && !csv[0].is_generation());
    assert_eq!(csv[0].gpus(), vec!["NVIDIA GeForce RTX 4080".to_owned()]);
    // JSONL: the same objects one per line.
    let values: Vec<serde_json::Value> =
        serde_json::from_str(&fixture("rtx4080-qwen2.5-7b-q4_k_m.json")).expect("value");
    let jsonl = values.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    assert_eq!(parse_llama_bench(&jsonl).expect("jsonl").len(), 2);
}

#[test]
fn truncated_or_foreign_files_are_located_errors() {
    let full = fixture("rtx4080-qwen2.5-7b-q4_k_m.json");
    let cut = &full[..full.len() / 2];
    let e = parse_llama_bench(cut).expect_err("truncated");
    assert!(e.to_string().contains("ends early") && e.line > 1, "{e}");
    let e = parse_llama_bench("[\n  {\"foo\": 1}\n]\n").expect_err("foreign");
    assert!(e.line == 2 && e.to_string().contains("missing field `gpu_info`"), "{e}");
    let e = parse_llama_bench("{\"gpu_info\": \"x\",}").expect_err("bad json");
    assert!(e.line == 1 && e.column > 1, "{e}");
    let csv = fixture("rtx4080-qwen2.5-7b-q4_k_m.csv");
    let cut = &csv[..csv.len() - 40];
    let e = parse_llama_bench(cut).expect_err("truncated csv");
    assert!(e.line == 3 && e.to_string().contains("truncated"), "{e}");
    let e = parse_llama_bench("model,size,t/s\nx,1,2\n").expect_err("foreign csv");
    assert!(e.line == 1 && e.to_string().contains("gpu_info"), "{e}");
    assert!(parse_llama_bench("   \n").is_err());
}

#[test]
fn another_machines_gpus_are_refused_with_the_names() {
    let rows = parse_llama_bench(&fixture("rtx4080-qwen2.5-7b-q4_k_m.json")).expect("json");
    assert!(check_gpus(&rows, &["NVIDIA GeForce RTX 4080".to_owned()]).is_ok());
    for other in ["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4080 SUPER"] {
        let e = check_gpus(&rows, &[other.to_owned()]).expect_err("other machine");
        assert!(e.contains("NVIDIA GeForce RTX 4080 but") && e.contains(other), "{e}");
    }
}

#[test]
fn the_correction_is_the_geometric_mean_of_measured_over_estimate() {
    let c = |generation, m, e| Comparison { test: String::new(), generation, measured_tok_s: m, estimated_tok_s: e };
    let (decode, prefill) =
        correction_factors(&[c(true, 120.0, Some(100.0)), c(true, 90.0, Some(100.0)), c(false, 1.0, None)]);
    assert!((decode.expect("decode") - (1.2f64 * 0.9).sqrt()).abs() < 1e-9);
    assert_eq!(prefill, None, "an unknown estimate gives no correction");
}

fn kraftwerk(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_kraftwerk")).args(args).output().expect("run kraftwerk");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The "done when": `fit --measured` on a file llama-bench wrote prints estimate vs
/// measured and the corrected figures.
#[test]
fn fit_measured_prints_estimate_vs_measured_and_corrected_figures() {
    let build = format!("{DIR}/rtx4080.rig.ron");
    for file in ["rtx4080-qwen2.5-7b-q4_k_m.json", "rtx4080-qwen2.5-7b-q4_k_m.csv"] {
        let measured = format!("{DIR}/{file}");
        let (code, out, err) = kraftwerk(&["fit", &build, "--measured", &measured]);
        println!("{out}");
        assert_eq!(code, 0, "{err}\n{out}");
        assert!(out.contains("pp512") && out.contains("tg128"), "{out}");
        assert!(out.contains("118.9") || out.contains("119.9"), "{out}");
        assert!(out.contains("corrected decode at context 8192"), "{out}");
        assert!(out.contains("corrected prefill"), "{out}");
    }
}

#[test]
fn fit_measured_refuses_another_machine_or_model() {
    let measured = format!("{DIR}/rtx4080-qwen2.5-7b-q4_k_m.json");
    let (code, _, err) =
        kraftwerk(&["fit", "tests/fixtures/h100-sxm-1gpu.rig.ron", "--model", "qwen2.5-7b", "--measured", &measured]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("NVIDIA GeForce RTX 4080") && err.contains("H100"), "{err}");
    let build = format!("{DIR}/rtx4080.rig.ron");
    let (code, _, err) = kraftwerk(&["fit", &build, "--model", "llama-3.1-8b", "--measured", &measured]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("7.62 B") && err.contains("llama-3.1-8b"), "{err}");
}

//! `kraftwerk fit BUILD --measured FILE`: llama-bench output as llama-bench
//! writes it, held against the estimate for the same tests. The fixtures are the JSON and CSV
//! examples of llama.cpp's llama-bench README, a real run on one RTX 4080
//! (https://github.com/ggml-org/llama.cpp/blob/master/tools/llama-bench/README.md ; see
//! tests/fixtures/llama-bench/SOURCE.md).

use kraftwerk::estimate::llm::measured::{Comparison, check_gpus, correction_factors, parse_llama_bench};
use std::path::Path;
use std::process::Command;

use crate::support;

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

/// The issue's "done when": `fit --measured` on a file llama-bench wrote prints estimate vs
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

// ------------------------------------------------------------------ vllm bench serve

/// `vllm bench serve --save-result` JSON (tests/fixtures/vllm-bench/README.md gives the source:
/// nerdalert/vllm-bench-automation's published run, Llama-3.2-3B on four L40S replicas at 10
/// requests/s): read, compared with the estimate at the run's sequences in flight, in text and
/// JSON.
#[test]
fn vllm_bench_serve_result_is_read_and_compared() {
    use kraftwerk::estimate::llm::measured::{is_vllm_bench, names_model, parse_vllm_bench};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vllm-bench/llama-3.2-3b-4xl40s-10qps.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    assert!(is_vllm_bench(&text));
    let b = parse_vllm_bench(&text).expect("parses");
    assert_eq!(b.completed, 300);
    assert!((b.decode_per_sequence_tok_s() - 73.65).abs() < 0.1, "{}", b.decode_per_sequence_tok_s());
    // Little's law: 8.33 req/s × (54.6 ms + 13.58 ms × 269.2) = 30.9 in flight.
    assert!((b.mean_concurrency() - 30.9).abs() < 0.2, "{}", b.mean_concurrency());
    assert!(names_model(&b.model_id, "llama-3.2-3b", "Llama 3.2 3B"));
    assert!(!names_model(&b.model_id, "llama-3.1-8b", "Llama 3.1 8B"));

    let build = support::builds("8x-l40s-4u-server.rig.ron");
    let file = path.display().to_string();
    let args =
        ["fit", &build, "--model", "llama-3.2-3b", "--precision", "bf16", "--parallel", "dp:4", "--measured", &file];
    let o = support::kw(&args);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("vllm bench serve on 4xNVIDIA_L40S: meta-llama/Llama-3.2-3B-Instruct"), "{out}");
    assert!(out.contains("decode/seq @31 seqs"), "{out}");
    assert!(out.contains("corrected decode"), "{out}");
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let o = support::kw(&json_args);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["measured"]["source"], "vllm bench serve");
    let ratio = v["measured"]["decode_factor"].as_f64().expect("a decode factor");
    assert!((0.75..=1.25).contains(&ratio), "measured/estimate {ratio} outside ±25 %");
    assert!(v["fit"]["vllm"]["log_lines"][0].as_str().is_some_and(|l| l.starts_with("GPU KV cache size: ")), "{v}");
}

/// Bad vLLM result files: truncated (located), foreign JSON (the missing key named), another
/// model's (both named).
#[test]
fn bad_vllm_bench_files_are_refused_with_where_and_why() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vllm-bench/llama-3.2-3b-4xl40s-10qps.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let dir = std::env::temp_dir().join(format!("kraftwerk-vllm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let truncated = dir.join("truncated.json");
    std::fs::write(&truncated, &text[..300]).expect("write");
    let foreign = dir.join("foreign.json");
    std::fs::write(&foreign, r#"{"mean_tpot_ms": 3.0, "output_throughput": 2.0, "model_id": "x"}"#).expect("write");
    let build = support::builds("8x-l40s-4u-server.rig.ron");
    let run = |file: &Path, model: &str| {
        let o = support::kw(&["fit", &build, "--model", model, "--measured", &file.display().to_string()]);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (code, err) = run(&truncated, "llama-3.2-3b");
    assert_eq!(code, Some(2));
    assert!(err.contains("line 1, column 300: the JSON ends early"), "{err}");
    let (code, err) = run(&foreign, "llama-3.2-3b");
    assert_eq!(code, Some(2));
    assert!(err.contains("key `completed` missing"), "{err}");
    let (code, err) = run(&path, "llama-3.1-8b");
    assert_eq!(code, Some(2));
    assert!(err.contains("meta-llama/Llama-3.2-3B-Instruct") && err.contains("llama-3.1-8b"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `vllm bench serve` result names no GPU unless the run added one (`--metadata gpu=...`,
/// as the committed fixture's `"gpu": "4xNVIDIA_L40S"`). A file without one is not trusted
/// silently: text and JSON say its GPUs could not be matched with the build's, and nothing is
/// corrected until `--measured-gpu` names the GPU (a new user's finding: another machine's
/// file "corrected" this one). A file that names other GPUs is refused with both names, as
/// llama-bench files are.
#[test]
fn vllm_bench_without_a_gpu_says_so_and_one_naming_other_gpus_is_refused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vllm-bench/llama-3.2-3b-4xl40s-10qps.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    assert!(text.contains(r#""gpu": "4xNVIDIA_L40S""#), "the fixture names its GPUs");
    let dir = std::env::temp_dir().join(format!("kraftwerk-vllm-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let no_gpu = dir.join("no-gpu.json");
    std::fs::write(&no_gpu, text.replace(r#""gpu": "4xNVIDIA_L40S", "#, "")).expect("write");
    let other = dir.join("h100.json");
    std::fs::write(&other, text.replace("4xNVIDIA_L40S", "8xNVIDIA_H100_80GB_HBM3")).expect("write");
    let build = support::builds("8x-l40s-4u-server.rig.ron");
    let run = |file: &Path, json: bool| {
        let f = file.display().to_string();
        let mut args = vec!["fit", &build, "--model", "llama-3.2-3b", "--precision", "bf16", "--parallel", "dp:4"];
        args.extend(["--measured", &f]);
        if json {
            args.extend(["--format", "json"]);
        }
        let o = support::kw(&args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // Names the build's GPUs: accepted, and the text says where it was measured.
    let (code, out, err) = run(&path, false);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("4xNVIDIA_L40S"), "{out}");
    assert!(!out.contains("names no GPU"), "{out}");
    // Names none: compared, but nothing corrected (a file from another machine would correct
    // this one wrongly), said in text and JSON.
    let (code, out, err) = run(&no_gpu, false);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("the file names no GPU") && out.contains("could not be checked"), "{out}");
    assert!(out.contains("decode/seq @31 seqs"), "the comparison is still shown: {out}");
    assert!(out.contains("not corrected") && !out.contains("corrected decode at context"), "{out}");
    let (_, out, _) = run(&no_gpu, true);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["measured"]["gpus_unchecked"].as_str().is_some_and(|s| s.contains("names no GPU")), "{v}");
    assert!(v["measured"]["decode_factor"].is_null(), "{v}");
    assert!(v["measured"]["corrected_decode_batch1_tok_s"].is_null(), "{v}");
    // The user confirms the GPU (--measured-gpu): corrected; another GPU than the build's:
    // refused with both names.
    let confirm = |gpu: &str| {
        let f = no_gpu.display().to_string();
        let args = [
            "fit",
            &build,
            "--model",
            "llama-3.2-3b",
            "--precision",
            "bf16",
            "--parallel",
            "dp:4",
            "--measured",
            &f,
            "--measured-gpu",
            gpu,
            "--format",
            "json",
        ];
        let o = support::kw(&args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = confirm("nvidia-l40s");
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["measured"]["decode_factor"].as_f64().is_some(), "{v}");
    assert!(v["measured"]["gpus_unchecked"].is_null(), "{v}");
    assert_eq!(v["measured"]["confirmed_gpu"], "nvidia-l40s");
    let (code, _, err) = confirm("nvidia-geforce-rtx-4090");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("NVIDIA GeForce RTX 4090") && err.contains("L40S"), "{err}");
    let (_, out, _) = run(&path, true);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["measured"]["gpus_unchecked"].is_null(), "{v}");
    // Names other GPUs: refused with both names.
    let (code, _, err) = run(&other, false);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("NVIDIA H100 80GB HBM3") && err.contains("L40S"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! `kraftwerk fit` in a training mode: it names a training framework, prints that
//! framework's basis rows (training measurements only) and the command that measures them,
//! gives tokens/s, hours and advice, and says the same in JSON. The estimate itself is held to
//! published fine-tuning runs in the core's `estimate::llm::train::held` test, which prints the
//! table (`cargo test -p kraftwerk-core --lib held_training_table -- --nocapture`).

use crate::support::{builds, kw};

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The case: 70B QLoRA with gradient checkpointing on a build of 48 GB cards used to
/// print "(qlora bf16, ..., vllm)", vLLM log lines as its memory basis and `vllm serve` as the
/// command. Now: a training framework, training rows, a training command; no vLLM anywhere.
#[test]
#[allow(clippy::many_single_char_names, reason = "a test's short names")]
fn qlora_fit_names_a_training_runtime_and_its_basis() {
    let b = builds("2x-rtx-a6000-nvlink.rig.ron");
    let o = kw(&[
        "fit",
        &b,
        "--model",
        "llama-3.1-70b",
        "--mode",
        "qlora",
        "--gradient-checkpointing",
        "--context",
        "2048",
        "--dataset-tokens",
        "10000000",
        "--global-batch",
        "16",
    ]);
    let s = out(&o);
    assert_eq!(o.status.code(), Some(0), "{s}");
    assert!(!s.to_lowercase().contains("vllm"), "{s}");
    assert!(s.contains("(qlora nf4, dp:2"), "{s}");
    assert!(s.contains(", fsdp)"), "DDP does not fit 2x48 GB for 70B QLoRA: FSDP is chosen\n{s}");
    assert!(s.contains("measure it: accelerate launch --use_fsdp"), "{s}");
    assert!(s.contains("torch.cuda.max_memory_allocated"), "{s}");
    assert!(s.contains("torchtune README: Llama 3.1 70B LoRA, 8x A100, FSDP"), "{s}");
    assert!(s.contains("tokens/s over 2 GPUs"), "{s}");
    assert!(s.contains("global batch 16 sequences = micro-batch 1 x 2 GPUs x 8 accumulation steps"), "{s}");
    assert!(s.contains("h for 0.010 B training tokens"), "{s}");

    // The same in JSON: the runtime is the framework, the training section has the figures.
    let j =
        kw(&["fit", &b, "--model", "llama-3.1-70b", "--mode", "qlora", "--gradient-checkpointing", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).expect("json");
    let fit = &v["fit"];
    assert_eq!(fit["runtime"], "fsdp", "{fit:#}");
    assert_eq!(fit["training"]["runtime"], "fsdp");
    assert!(fit["training"]["speed"]["tokens_per_s"].as_f64().is_some_and(|t| t > 0.0));
    // Typed fields keep the names `--runtime` and `--optimizer` read back.
    let names: Vec<&str> =
        fit["training"]["options"].as_array().expect("options").iter().filter_map(|o| o["runtime"].as_str()).collect();
    assert_eq!(
        names,
        ["hf-peft", "deepspeed-zero2", "deepspeed-zero3", "fsdp", "deepspeed-zero3-offload", "fsdp-offload"],
        "{fit:#}"
    );
    assert!(
        fit["training"]["optimizer"].as_str().is_some_and(|o| o.parse::<kraftwerk::estimate::llm::Optimizer>().is_ok())
    );
    let basis = fit["memory_basis"]["calibrated_to"].as_array().expect("rows");
    assert!(basis.iter().all(|r| !r.as_str().unwrap_or("").to_lowercase().contains("vllm")));
}

/// A single 24 GB card and an 8B QLoRA: Transformers + PEFT by default, its rows are the
/// "Hugging Face + FA2" column; `--runtime unsloth` switches framework, rows and command.
#[test]
fn frameworks_have_their_own_rows_and_commands() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let args = [
        "fit",
        &b,
        "--model",
        "llama-3.1-8b",
        "--mode",
        "qlora",
        "--gradient-checkpointing",
        "--parallel",
        "single",
        "--context",
        "4096",
    ];
    let s = out(&kw(&args));
    assert!(s.contains(", hf-peft)"), "{s}");
    assert!(s.contains("Unsloth README, Hugging Face + FA2"), "{s}");
    assert!(s.contains("accelerate estimate-memory llama-3.1-8b"), "{s}");
    let mut u = args.to_vec();
    u.extend(["--runtime", "unsloth"]);
    let s = out(&kw(&u));
    assert!(s.contains(", unsloth)"), "{s}");
    assert!(s.contains("FastLanguageModel.from_pretrained"), "{s}");
    assert!(s.contains("Unsloth README: Llama 3.1 8B QLoRA fills 24 GB"), "{s}");
}

/// A training mode refuses an inference runtime, and tensor parallel.
#[test]
fn training_refuses_inference_runtimes_and_tensor_parallel() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let o = kw(&["fit", &b, "--model", "llama-3.1-8b", "--mode", "lora", "--runtime", "vllm"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("vllm is an inference runtime"));
    let o = kw(&["fit", &b, "--model", "llama-3.1-8b", "--mode", "lora", "--parallel", "tp:2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("tensor and pipeline parallel training"));
}

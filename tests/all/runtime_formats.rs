//! A runtime is never paired with weights it cannot load: `kraftwerk fit --runtime exllamav2`
//! on a `q4_k_m` build (a GGUF quant) was "fits, 14.8 tok/s" on main; now it is refused, naming
//! both and the formats ExLlamaV2 documents. The planner refuses such a goal too.

use crate::support::{builds, kw};
use kraftwerk::estimate::llm::{Precision, Runtime};
use kraftwerk::plan::goal::{Goal, GoalPrecision, ModelRef};
use kraftwerk::plan::plan_blocking;

fn p(s: &str) -> Precision {
    s.parse().expect("precision")
}

/// The table of [`Runtime::loads`]: GGUF only on the llama.cpp family (and vLLM's GGUF
/// loader), EXL2 only on ExLlamaV2, AWQ/GPTQ int4 not on llama.cpp; bits per weight within
/// the format's range.
#[test]
fn runtimes_load_only_their_formats() {
    for (rt, prec, ok) in [
        (Runtime::ExLlamaV2, "q4_k_m", false),
        (Runtime::ExLlamaV2, "4.5bpw", true),
        (Runtime::ExLlamaV2, "int4", true),
        (Runtime::ExLlamaV2, "fp8", false),
        (Runtime::LlamaCpp, "q4_k_m", true),
        (Runtime::LlamaCpp, "int4", false),
        // A GGUF mix given by its average bits (an Unsloth dynamic quant's published size),
        // from IQ1_S's 1.5625 to F16's 16; EXL2 from 2 to 8 (its README).
        (Runtime::LlamaCpp, "2.7bpw", true),
        (Runtime::LlamaCpp, "1.2bpw", false),
        (Runtime::IkLlamaCpp, "1.58bpw", true),
        (Runtime::ExLlamaV2, "1.5bpw", false),
        (Runtime::ExLlamaV2, "8.5bpw", false),
        (Runtime::IkLlamaCpp, "fp8", false),
        (Runtime::Vllm, "int4", true),
        (Runtime::Vllm, "4.5bpw", false),
        (Runtime::TensorRtLlm, "q4_k_m", false),
        (Runtime::TensorRtLlm, "nvfp4", true),
        (Runtime::Sglang, "fp8", true),
    ] {
        assert_eq!(rt.loads(p(prec)).is_ok(), ok, "{rt} {prec}: {:?}", rt.loads(p(prec)));
    }
    let e = Runtime::LlamaCpp.loads(Precision::Int4).expect_err("refused");
    assert!(e.contains("llama.cpp cannot load int4 (AWQ/GPTQ 4-bit weights)"), "{e}");
    assert!(e.contains("https://github.com/ggml-org/llama.cpp/blob/master/README.md"), "{e}");
}

/// The try-out's case: `fit --runtime exllamav2` on a q4_k_m build exits 2 with the reason;
/// the same build under llama.cpp still fits (exit 0).
#[test]
fn fit_refuses_a_gguf_quant_under_exllamav2() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let o = kw(&["fit", &b, "--runtime", "exllamav2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}{err}", String::from_utf8_lossy(&o.stdout));
    assert!(err.contains("exllamav2 cannot load q4_k_m (a GGUF quant)"), "{err}");
    assert!(err.contains("EXL2 (e.g. 4.5bpw), 4-bit GPTQ (int4)"), "{err}");
    assert!(err.contains("https://github.com/turboderp-org/exllamav2/blob/master/README.md"), "{err}");
    let o = kw(&["fit", &b, "--runtime", "llama.cpp"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
}

/// A goal naming a runtime and a precision it cannot load is refused by the planner.
#[test]
fn the_planner_refuses_a_runtime_format_mismatch() {
    let c = kraftwerk::catalog::builtin().expect("catalog");
    let g = Goal {
        model: ModelRef::Preset("llama-3.1-8b".into()),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Q4_K_M),
        runtime: Some(kraftwerk::estimate::llm::Runtime::ExLlamaV2),
        ..Goal::default()
    };
    let e = plan_blocking(&c, &g).expect_err("refused");
    assert!(e.to_string().contains("exllamav2 cannot load q4_k_m"), "{e}");
}

/// Another model named under a runtime outside the llama.cpp family takes its published
/// checkpoint, not the build's GGUF quant made for the build's own model: a trial's `fit
/// BUILD --runtime vllm --model gpt-oss-120b` on the Q4_K_M Llama build estimated gpt-oss as a
/// Q4_K_M GGUF split by pipeline; it is gpt-oss's MXFP4 checkpoint (60.8 GiB) at tensor
/// parallel 2. Under llama.cpp the build's GGUF quant carries over as before (unsloth's
/// gpt-oss-120b Q4_K_M keeps its experts in MXFP4, so it is a published form).
#[test]
fn another_model_under_vllm_takes_its_checkpoint_not_the_builds_gguf() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let o = kw(&["fit", &b, "--runtime", "vllm", "--model", "gpt-oss-120b", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["fit"]["weight_precision"], "native", "{}", v["fit"]["weight_precision"]);
    assert_eq!(v["fit"]["parallelism"], serde_json::json!({"tensor_parallel": 2}), "{}", v["fit"]["parallelism"]);
    let w = v["fit"]["weights_total_gib"].as_f64().expect("weights");
    assert!((w - 60.8).abs() < 0.1, "{w}");
    let o = kw(&["fit", &b, "--runtime", "llama.cpp", "--model", "gpt-oss-120b", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["fit"]["weight_precision"], "q4_k_m");
}

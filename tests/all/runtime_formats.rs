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
/// loader), EXL2 only on ExLlamaV2, AWQ/GPTQ int4 not on llama.cpp.
#[test]
fn runtimes_load_only_their_formats() {
    for (rt, prec, ok) in [
        (Runtime::ExLlamaV2, "q4_k_m", false),
        (Runtime::ExLlamaV2, "4.5bpw", true),
        (Runtime::ExLlamaV2, "int4", true),
        (Runtime::ExLlamaV2, "fp8", false),
        (Runtime::LlamaCpp, "q4_k_m", true),
        (Runtime::LlamaCpp, "int4", false),
        (Runtime::LlamaCpp, "4.5bpw", false),
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

//! The precision a fit estimates at when `--precision` is not given: the model file's, the
//! build's workload's (carried to another model unless it would upcast that model's checkpoint),
//! BF16 for training and for a build without a workload; and never a GGUF quant carried to
//! another model under a runtime named on the command line that is not of the llama.cpp family.

use super::FitOptions;
use crate::estimate::llm::{self, Mode, Precision, Runtime};
use crate::rig::Workload;
use kraftwerk_catalog::{LlmModel, TensorFormat};

/// The precision of the fit (`opts.precision` when given): see the module doc. A GGUF quant
/// carried from the build's workload (made for llama.cpp, for its own model) to another model
/// under `--runtime vllm`, `sglang`, `tensorrt-llm` or `exllamav2` becomes that model's
/// checkpoint as published ([`Precision::Native`]): those runtimes serve the published
/// checkpoint unless a quant is named (the workload's own model keeps its quant, so a runtime
/// that cannot load it says so) (a trial's `fit BUILD --runtime vllm --model gpt-oss-120b` on a Q4_K_M Llama build
/// estimated gpt-oss as a Q4_K_M GGUF under vLLM, split by pipeline, instead of its MXFP4).
pub(super) fn workload_precision(opts: &FitOptions, w: Option<&Workload>, model: &LlmModel, mode: Mode) -> Precision {
    let p = match (opts.precision, &opts.model_file) {
        (Some(p), _) => p,
        // Training without a precision named trains in BF16 (every framework's default), not
        // at the build's inference quant.
        (None, _) if mode.is_training() => w
            .map(|w| w.precision)
            .filter(|p| matches!(p, Precision::Bf16 | Precision::Fp16 | Precision::Fp32))
            .unwrap_or(Precision::Bf16),
        (None, Some(f)) => f.precision,
        (None, None) => match w {
            Some(w) if w.model != model.id => precision_for_another_model(model, w.precision),
            Some(w) => w.precision,
            None => Precision::Bf16,
        },
    };
    let named_other_runtime = matches!(
        opts.runtime,
        Some(super::RuntimeChoice::Inference(rt)) if !rt.is_llama_cpp_family() && rt != Runtime::KTransformers
    );
    let another_model = w.is_some_and(|w| w.model != model.id);
    if opts.precision.is_none()
        && opts.model_file.is_none()
        && !mode.is_training()
        && another_model
        && named_other_runtime
        && p.is_gguf()
    {
        return if model.checkpoint.is_some() { Precision::Native } else { Precision::Bf16 };
    }
    p
}

/// The default precision of `model` on a build whose workload names another model at
/// `workload`: the workload's choice was made for its own model, and it carries over unless it
/// would upcast the model's published checkpoint ([`llm::upcasts_checkpoint`]: the H200 build's
/// FP8, or a GGUF Q4_K_M, for gpt-oss, published with MXFP4 experts), which nobody serves. Then
/// the checkpoint as published ([`Precision::Native`]) is the default, and under a GGUF
/// workload (a llama.cpp build) the GGUF form llama.cpp loads: `mxfp4` for an MXFP4-expert
/// checkpoint; a checkpoint llama.cpp does not load as published (DeepSeek's block FP8) keeps
/// the workload's GGUF quant, the form such models are published in for llama.cpp.
pub(super) fn precision_for_another_model(model: &LlmModel, workload: Precision) -> Precision {
    if !llm::upcasts_checkpoint(model, workload) {
        return workload;
    }
    let Some(c) = model.checkpoint.as_ref() else { return workload };
    if !workload.is_gguf() {
        return Precision::Native;
    }
    match (c.experts, c.layers) {
        (TensorFormat::Mxfp4, _) if model.experts.is_some() => Precision::Mxfp4,
        (TensorFormat::Bf16, TensorFormat::Bf16) => Precision::Native,
        _ => workload,
    }
}

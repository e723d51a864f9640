//! Options `fit` refuses because they do not apply to the fit asked, before anything is
//! estimated: a flag that would change nothing is a user's mistake to be told, not a silent
//! no-op (a trial's `--n-cpu-moe 10` on a dense 70B was echoed into the llama.cpp arguments and
//! estimated as if absent; `--lora-rank 64` with inference and `--kv-precision q4_0` under vLLM
//! were accepted without a word).
//!
//! Each refusal names the option, why it does not apply and what to give instead.

use super::{FitBuildError, FitOptions};
use crate::estimate::llm::FitInput;
use crate::workload::{Mode, Precision, Runtime};

/// Refuses the options of `opts` that do not apply to `input` (its mode, runtime and model):
///
/// - training options (`--optimizer`, `--lora-rank`, `--lora-targets`, `--zero-stage`,
///   `--cpu-offload`, `--gradient-accumulation`, `--gradient-checkpointing`, `--global-batch`,
///   `--dataset-tokens`, `--epochs`) when the mode is inference, and the LoRA options for a
///   full fine-tune;
/// - llama.cpp's routed-expert placement (`--n-cpu-moe`, `--cpu-moe`, `-ot`: every rule `fit`
///   takes names routed-expert tensors) for a dense model, which has none: llama.cpp accepts
///   the flag and places nothing;
/// - llama.cpp's load flags (`--no-mmap`, `--mmap`, `--load-mode`, `--no-host`, `-rtr`) under
///   a runtime outside the llama.cpp family (the placement flags are refused where the
///   placement is read, `placement::placement_of`);
/// - a KV-cache precision the runtime's cache does not store ([`kv_cache_refusal`]).
///
/// # Errors
/// [`FitBuildError::Parse`] naming the option and what applies instead.
pub(super) fn refuse_inapplicable(opts: &FitOptions, input: &FitInput) -> Result<(), FitBuildError> {
    let refuse = |m: String| Err(FitBuildError::Parse(m));
    if !input.mode.is_training() {
        let given = training_options_given(opts);
        if !given.is_empty() {
            return refuse(format!(
                "{} {} training option{}; the mode is inference (give --mode full, lora or qlora to estimate a fine-tune)",
                given.join(", "),
                if given.len() == 1 { "is a" } else { "are" },
                if given.len() == 1 { "" } else { "s" }
            ));
        }
    }
    if input.mode == Mode::FullFineTune && (opts.lora_rank.is_some() || opts.lora_targets.is_some()) {
        return refuse(
            "--lora-rank and --lora-targets set the LoRA adapters; the mode is a full fine-tune, which trains every weight (give --mode lora or qlora)"
                .into(),
        );
    }
    let flags = &opts.llama_cpp;
    if input.model.experts.is_none() && (flags.n_cpu_moe.is_some() || !flags.overrides.is_empty()) {
        return refuse(format!(
            "--n-cpu-moe, --cpu-moe and -ot place routed experts in system RAM; {} is a dense model with none, so llama.cpp would place nothing (give -ngl N to keep whole layers on the GPUs and the rest in RAM)",
            input.model.id
        ));
    }
    let rt = input.resolved_runtime();
    if (flags.host_weights.is_some() || flags.run_time_repack) && !rt.is_llama_cpp_family() {
        return refuse(format!(
            "--no-mmap, --mmap, --load-mode, --no-host and -rtr are llama.cpp load flags; the runtime is {rt} (give --runtime llama.cpp or ik_llama.cpp)"
        ));
    }
    if !input.mode.is_training()
        && let Some(why) = kv_cache_refusal(rt, input.kv_precision)
    {
        return refuse(why);
    }
    Ok(())
}

/// The training options `opts` sets, as the CLI spells them (a `--gradient-checkpointing` left
/// off is not one: the window always passes the workload's value).
fn training_options_given(opts: &FitOptions) -> Vec<&'static str> {
    let plan = &opts.train_plan;
    [
        (opts.optimizer.is_some(), "--optimizer"),
        (opts.lora_rank.is_some(), "--lora-rank"),
        (opts.lora_targets.is_some(), "--lora-targets"),
        (opts.zero_stage.is_some(), "--zero-stage"),
        (opts.cpu_offload, "--cpu-offload"),
        (opts.gradient_accumulation.is_some(), "--gradient-accumulation"),
        (opts.gradient_checkpointing == Some(true), "--gradient-checkpointing"),
        (plan.global_batch.is_some(), "--global-batch"),
        (plan.dataset_tokens.is_some(), "--dataset-tokens"),
        (plan.epochs.is_some(), "--epochs"),
    ]
    .into_iter()
    .filter_map(|(given, name)| given.then_some(name))
    .collect()
}

/// Why `runtime`'s KV cache cannot be stored at `kv`; `None` where it can (or where the
/// runtime's cache types are not typed here: ExLlamaV2, ktransformers).
///
/// - llama.cpp and ik_llama.cpp: `-ctk`/`-ctv` take f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl,
///   q5_0 and q5_1 (`kv_cache_types` in ggml-org/llama.cpp `common/arg.cpp`); of `fit`'s
///   precisions that is fp32, fp16, bf16, q8_0 and q4_0.
/// - vLLM and SGLang: `--kv-cache-dtype` takes auto (the model's dtype) or an FP8 type
///   (vLLM engine arguments, <https://docs.vllm.ai/en/latest/configuration/engine_args.html>;
///   SGLang server arguments, <https://docs.sglang.ai/advanced_features/server_arguments.html>):
///   no GGUF, integer or bits-per-weight cache.
/// - TensorRT-LLM: FP8, INT8 and FP4 caches among others
///   (<https://nvidia.github.io/TensorRT-LLM/features/quantization.html>), no GGUF cache.
pub(crate) fn kv_cache_refusal(runtime: Runtime, kv: Precision) -> Option<String> {
    use Precision as P;
    let (refused, takes) = match runtime {
        Runtime::LlamaCpp | Runtime::IkLlamaCpp => (
            !matches!(kv, P::Fp32 | P::Fp16 | P::Bf16 | P::Q8_0 | P::Q4_0),
            "f32, f16, bf16, q8_0, q4_0 (and q4_1, iq4_nl, q5_0, q5_1; common/arg.cpp)",
        ),
        Runtime::Vllm | Runtime::Sglang => (
            kv.is_gguf() || matches!(kv, P::Int4 | P::Int8 | P::Mxfp4 | P::Nvfp4 | P::Bpw(_)),
            "auto (the model's dtype: fp16 or bf16) or fp8 (--kv-cache-dtype)",
        ),
        Runtime::TensorRtLlm => (kv.is_gguf() || matches!(kv, P::Bpw(_)), "fp16, bf16, fp8, int8 or fp4"),
        Runtime::ExLlamaV2 | Runtime::KTransformers => (false, ""),
    };
    refused.then(|| format!("{runtime} cannot keep its KV cache at {kv}: its cache takes {takes}"))
}

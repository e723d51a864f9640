//! The model a goal names: a catalog preset, a model file (GGUF, safetensors) or a Kraftwerk
//! parts file holding one model; the precisions "best that fits" tries, the weights' size that
//! bounds the memory search from below, and the runtime each candidate is judged with.

use super::goal::{Goal, ModelRef};
use crate::estimate::llm::{self, Mode, Precision, Runtime};
use crate::estimate::model_file::{ModelFile, read_model_file};
use crate::rig;
use kraftwerk_catalog::{Catalog, HasId, LlmModel};

/// The model to plan for: a catalog preset, or one read from a model file (then written
/// inline into every planned build so that the build file stands alone).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub(super) inner: LlmModel,
    /// The file it was read from by [`read_model_file`] (GGUF, safetensors folder): its exact
    /// weight bytes, precision and runtime go to the fit code as `kraftwerk fit --model-file`
    /// passes them.
    pub(super) file: Option<Box<ModelFile>>,
    /// Read from a Kraftwerk parts file (RON) rather than a catalog preset.
    from_parts_file: bool,
}

impl Model {
    /// Model id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }
    /// Vendor and name.
    pub fn name(&self) -> String {
        self.inner.display_name()
    }
    /// The model's shape as the estimators read it.
    pub fn llm(&self) -> &LlmModel {
        &self.inner
    }
    /// Native context, tokens.
    pub fn max_context(&self) -> u32 {
        self.inner.max_context
    }
    /// The precision of the model file's weights (`Q4_K_M` for such a GGUF), if read from one.
    pub(crate) fn file_precision(&self) -> Option<Precision> {
        self.file.as_ref().map(|f| f.precision)
    }
    /// Whether it is a mixture of experts (fewer active than total parameters).
    pub(crate) fn is_moe(&self) -> bool {
        self.inner.active_params_b.is_some_and(|a| a < self.inner.params_b)
    }
    /// Whether the model goes inline into planned builds (it is not a catalog preset).
    pub(super) fn inline(&self) -> bool {
        self.file.is_some() || self.from_parts_file
    }
}

/// Looks the goal's model up: a preset id in the catalog, or a file.
///
/// A model file is read by [`read_model_file`] (a `.gguf` file, a safetensors file or folder,
/// `config.json`, `model.safetensors.index.json`), the reader `kraftwerk fit --model-file` uses.
/// A `.ron` file is a Kraftwerk parts file holding exactly one entry under `models` (the schema
/// of `catalog/models.ron`), for a model typed in by hand.
///
/// # Errors
/// A message naming the id or the file and what is wrong.
pub fn resolve_model(catalog: &Catalog, model: &ModelRef) -> Result<Model, String> {
    match model {
        ModelRef::Preset(id) => catalog
            .model(id)
            .cloned()
            .map(|m| Model { inner: m, file: None, from_parts_file: false })
            .ok_or_else(|| format!("unknown model `{id}` (see `kraftwerk catalog models`)")),
        ModelRef::File(path) if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron")) => {
            let shown = path.display().to_string();
            let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
            if meta.len() > rig::file::MAX_FILE_BYTES {
                return Err(format!("{shown}: larger than {} bytes", rig::file::MAX_FILE_BYTES));
            }
            let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
            let file = kraftwerk_catalog::parse_parts_file(&shown, &text).map_err(|e| e.to_string())?;
            match file.models.len() {
                1 => Ok(Model {
                    inner: file.models.into_iter().next().ok_or("no model")?,
                    file: None,
                    from_parts_file: true,
                }),
                n => Err(format!("{shown}: a model file holds exactly one entry under `models`, found {n}")),
            }
        }
        ModelRef::File(path) => {
            let f = read_model_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(Model { inner: f.model.clone(), file: Some(Box::new(f)), from_parts_file: false })
        }
    }
}

/// Precisions "best that fits" tries, best quality first (16-bit, 8-bit, then GGUF K-quants
/// down to 4 bits).
pub(crate) fn best_precisions() -> Vec<Precision> {
    vec![
        Precision::Bf16,
        Precision::Fp8,
        Precision::Q8_0,
        Precision::Q6_K,
        Precision::Q5_K_M,
        Precision::Q4_K_M,
        Precision::Int4,
    ]
}

/// Weights alone at `precision`, GiB ([`llm::weight_gib`]): a lower bound on the memory any
/// set of GPUs needs.
pub fn weights_gib(model: &Model, precision: Precision) -> f64 {
    match &model.file {
        Some(f) if f.precision == precision => f.weights.total as f64 / llm::GIB,
        _ => llm::weight_gib(&model.inner, precision),
    }
}

/// The weights a goal's run holds in all, GiB, for the search's lower bound: [`weights_gib`],
/// except QLoRA's NF4 base ([`llm::NF4_BITS`] per weight: less than the precision named).
pub(crate) fn goal_weights_gib(model: &Model, goal: &Goal, precision: Precision) -> f64 {
    if goal.mode == Mode::Qlora {
        llm::weight_gib(&model.inner, Precision::Bpw(llm::NF4_BITS))
    } else {
        weights_gib(model, precision)
    }
}

/// The runtime the planner judges a candidate at `precision` with, and writes into its build
/// ([`super::machine::make_build`]): the goal's runtime, else the model file's (when the file
/// holds the weights at this precision, as `kraftwerk fit --model-file` takes it), else the
/// precision's usual one ([`Runtime::default_for`]: vLLM for int4/AWQ, FP8 and 16-bit weights,
/// llama.cpp for GGUF, ExLlamaV2 for bits per weight). `kraftwerk fit` on the saved build
/// resolves the same runtime, so the planner and `fit` give one verdict. A training goal's
/// framework is no inference runtime: it gets the precision's usual one, and its build none.
pub(crate) fn runtime_for(model: &Model, goal: &Goal, precision: Precision) -> Runtime {
    match goal.runtime.filter(|_| !goal.is_training()) {
        Some(rt) => rt,
        None if goal.is_training() => Runtime::default_for(precision),
        None => model
            .file
            .as_ref()
            .filter(|f| f.precision == precision)
            .map_or_else(|| Runtime::default_for(precision), |f| f.runtime),
    }
}

/// The runtime a card was judged with for `precisions` ([`runtime_for`]) and why that one, in
/// words, for a line that says what the runtime refused (`vllm, the usual runtime of mxfp4
/// weights (the goal names no runtime)`): the runtime the goal names; one the planner tries
/// beside the usual one (`planned_too`: why, from [`other_runtimes`], whose search names the
/// runtime in its goal); the model file's; else the precisions' usual runtime.
pub(crate) fn runtime_basis(
    model: &Model,
    goal: &Goal,
    planned_too: Option<&str>,
    runtime: Runtime,
    precisions: &[Precision],
) -> String {
    match (goal.runtime, planned_too) {
        (Some(_), Some(why)) => format!("{runtime}, planned beside the usual runtime because {why}"),
        (Some(_), None) => format!("{runtime}, the runtime the goal names"),
        (None, _) if model.file.as_ref().is_some_and(|f| precisions.contains(&f.precision)) => {
            format!("{runtime}, the model file's runtime")
        }
        (None, _) => {
            let named: Vec<String> = precisions.iter().map(ToString::to_string).collect();
            format!("{runtime}, the usual runtime of {} weights (the goal names no runtime)", named.join(", "))
        }
    }
}

/// The runtimes besides the usual one ([`runtime_for`]) that a goal naming no runtime is also
/// planned with, at the one precision it names: llama.cpp for MXFP4 weights of a model whose
/// checkpoint stores its routed experts in MXFP4 (gpt-oss). llama.cpp loads such a model at
/// ggml's own MXFP4 type ("gpt-oss model support in native MXFP4 format ... New MXFP4 data type
/// in ggml", https://github.com/ggml-org/llama.cpp/pull/15091, 2025-08-05) and keeps the experts
/// of the first N layers in system RAM with `--n-cpu-moe N`
/// (https://github.com/ggml-org/llama.cpp/pull/15077, 2025-08-04), so a small card plus RAM
/// runs what vLLM (the usual runtime of `mxfp4`) needs the whole model in GPU memory for.
/// The best precision of such a model is MXFP4 too ([`mxfp4_experts`]). Empty for a goal that
/// names a runtime, a training goal, a model file (it runs in its own runtime) and every other
/// precision. Each runtime comes with why it is planned too, in words, for the lines that
/// name the runtime a card was judged with ([`runtime_basis`]).
pub(crate) fn other_runtimes(model: &Model, goal: &Goal) -> Vec<(Runtime, &'static str)> {
    if goal.runtime.is_some() || goal.is_training() || model.file.is_some() {
        return Vec::new();
    }
    // "best" plans such a model at MXFP4 alone ([`mxfp4_experts`]), so it gets llama.cpp too.
    let precision = match goal.precision {
        super::goal::GoalPrecision::Best if mxfp4_experts(model) => Some(Precision::Mxfp4),
        _ => goal.precision.exact(),
    };
    match precision {
        Some(p @ Precision::Mxfp4) if mxfp4_experts(model) && Runtime::default_for(p) != Runtime::LlamaCpp => {
            vec![(
                Runtime::LlamaCpp,
                "the model ships its routed experts in MXFP4, which llama.cpp loads as they are and can keep in system RAM",
            )]
        }
        _ => Vec::new(),
    }
}

/// Whether the model was released with its routed experts in MXFP4 (its checkpoint's
/// `experts` format, from its published weights: gpt-oss's
/// https://huggingface.co/openai/gpt-oss-120b/blob/main/model.safetensors.index.json). No
/// GGUF of such a model is smaller than its MXFP4 weights: the GGUF files keep the experts in
/// MXFP4 whatever their label (llama-bench prints 59.02 GiB for ggml-org's MXFP4 gpt-oss-120b
/// and 60.87 GiB for unsloth's "F16" one, which "both claim to be MXFP4 quants",
/// https://community.frame.work/t/will-the-ai-max-395-128gb-be-able-to-run-gpt-oss-120b/73280/26,
/// 2025-08), and llama-quantize refuses to requantize MXFP4 tensors
/// (https://github.com/ikawrakow/ik_llama.cpp/issues/2359). So the planner's "best" gives such
/// a model MXFP4, not a `q4_0` or `q5_k_m` sized at bits per weight it does not have.
pub(crate) fn mxfp4_experts(model: &Model) -> bool {
    model.llm().checkpoint.as_ref().is_some_and(|c| c.experts == kraftwerk_catalog::TensorFormat::Mxfp4)
}

/// The model reference a CLI or form string names: a path when it exists or looks like a
/// file, else a preset id.
pub fn model_ref(id: Option<&str>, file: Option<&std::path::Path>) -> Option<ModelRef> {
    file.map(|f| ModelRef::File(f.to_path_buf())).or_else(|| id.map(|i| ModelRef::Preset(i.to_owned())))
}

//! Fine-tuning vocabulary: the training framework ([`Trainer`]) a training mode runs under,
//! read from `--runtime` with [`parse_training_runtime`], and the LoRA plan ([`TrainPlan`],
//! [`LoraTargets`]).

use super::{Mode, ParseError, Runtime};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The training framework a fine-tune runs under (`--runtime` in a training mode): what it
/// allocates on each GPU and the command that measures it are in
/// `crate::estimate::llm::train`. A training mode never runs under an inference [`Runtime`](super::Runtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Trainer {
    /// Hugging Face Transformers `Trainer` + PEFT adapters (bitsandbytes NF4 base for QLoRA,
    /// `prepare_model_for_kbit_training`), one GPU or DDP through `accelerate`/`torchrun`.
    #[serde(rename = "hf-peft")]
    HfPeft,
    /// Unsloth (`FastLanguageModel`): fused kernels, chunked cross-entropy, gradient-checkpoint
    /// tensors offloaded to host RAM (`use_gradient_checkpointing="unsloth"`).
    #[serde(rename = "unsloth")]
    Unsloth,
    /// Axolotl (a YAML front end to the Transformers `Trainer` + PEFT, with DeepSpeed or FSDP
    /// configs): allocates as [`Trainer::HfPeft`].
    #[serde(rename = "axolotl")]
    Axolotl,
    /// torchtune (PyTorch-native recipes): the whole model, adapters and optimizer states in
    /// BF16, chunked cross-entropy, FSDP2 on several GPUs.
    #[serde(rename = "torchtune")]
    Torchtune,
    /// DeepSpeed ZeRO stage 1-3 under the Transformers `Trainer` (the stage is
    /// `FitInput::zero_stage`; CPU offload of optimizer states and, at stage 3, parameters).
    #[serde(rename = "deepspeed")]
    DeepSpeed,
    /// PyTorch FSDP (full shard) under `accelerate`: parameters, gradients and optimizer states
    /// sharded over the data-parallel ranks, optionally offloaded to host RAM.
    #[serde(rename = "fsdp")]
    Fsdp,
}

impl Trainer {
    /// Every training framework, in the order `--runtime` lists them.
    pub const ALL: [Trainer; 6] =
        [Trainer::HfPeft, Trainer::Unsloth, Trainer::Axolotl, Trainer::Torchtune, Trainer::DeepSpeed, Trainer::Fsdp];
}

impl fmt::Display for Trainer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Trainer::HfPeft => "hf-peft",
            Trainer::Unsloth => "unsloth",
            Trainer::Axolotl => "axolotl",
            Trainer::Torchtune => "torchtune",
            Trainer::DeepSpeed => "deepspeed",
            Trainer::Fsdp => "fsdp",
        })
    }
}

impl FromStr for Trainer {
    type Err = ParseError;
    /// The names of [`fmt::Display`], case-insensitive, and aliases (`hf`, `transformers`,
    /// `peft`, `trl`, `ds`, `zero`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "hf-peft" | "hf" | "transformers" | "peft" | "trl" | "huggingface" => Ok(Trainer::HfPeft),
            "unsloth" => Ok(Trainer::Unsloth),
            "axolotl" => Ok(Trainer::Axolotl),
            "torchtune" | "tune" => Ok(Trainer::Torchtune),
            "deepspeed" | "ds" | "zero" => Ok(Trainer::DeepSpeed),
            "fsdp" | "fsdp2" => Ok(Trainer::Fsdp),
            _ => Err(ParseError(format!(
                "unknown training runtime `{s}` (accepted: {}; deepspeed-zero1/2/3[-offload], fsdp-offload)",
                Trainer::ALL.map(|r| r.to_string()).join(", ")
            ))),
        }
    }
}

/// A training runtime as `--runtime` names it: the framework, the ZeRO stage where the name
/// gives one (`deepspeed-zero2`, `zero3`), and whether it offloads to host RAM (`-offload`).
/// [`FromStr`] reads the names of [`Trainer`] with `-zero1/2/3` and `-offload`; [`fmt::Display`]
/// writes the canonical name (`deepspeed-zero3-offload`, `fsdp-offload`), which it reads back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TrainingRuntime {
    /// The framework.
    pub trainer: Trainer,
    /// The DeepSpeed ZeRO stage the name gives (1-3); `None` where it gives none.
    pub zero_stage: Option<u8>,
    /// Whether the name asks for offload to host RAM (`-offload`).
    pub offload: bool,
}

impl fmt::Display for TrainingRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.trainer)?;
        if let Some(z) = self.zero_stage {
            write!(f, "-zero{z}")?;
        }
        if self.offload {
            f.write_str("-offload")?;
        }
        Ok(())
    }
}

impl FromStr for TrainingRuntime {
    type Err = ParseError;
    /// A [`Trainer`] name, `deepspeed-zero1/2/3` (or `ds-zero3`, `zero3`), each optionally
    /// followed by `-offload`; case-insensitive, `_` for `-`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase().replace('_', "-");
        let (base, offload) = match lower.strip_suffix("-offload") {
            Some(b) => (b.to_owned(), true),
            None => (lower.clone(), false),
        };
        let zero = |rest: &str| -> Result<u8, ParseError> {
            match rest.trim_start_matches('-') {
                "1" => Ok(1),
                "2" => Ok(2),
                "3" => Ok(3),
                _ => Err(ParseError(format!("unknown ZeRO stage in `{s}` (zero1, zero2, zero3)"))),
            }
        };
        let deepspeed = |rest: &str| -> Result<Self, ParseError> {
            Ok(TrainingRuntime { trainer: Trainer::DeepSpeed, zero_stage: Some(zero(rest)?), offload })
        };
        if let Some(rest) = base.strip_prefix("deepspeed-zero").or_else(|| base.strip_prefix("ds-zero")) {
            return deepspeed(rest);
        }
        if let Some(rest) = base.strip_prefix("zero")
            && !rest.is_empty()
        {
            return deepspeed(rest);
        }
        Ok(TrainingRuntime { trainer: base.parse()?, zero_stage: None, offload })
    }
}

/// A training runtime as `--runtime` names it ([`TrainingRuntime`]) as a tuple: the framework,
/// the ZeRO stage where the name gives one, and whether it offloads to host RAM.
///
/// # Errors
/// A name that is no training runtime, or a ZeRO stage above 3.
pub fn parse_training_runtime(s: &str) -> Result<(Trainer, Option<u8>, bool), ParseError> {
    let t: TrainingRuntime = s.parse()?;
    Ok((t.trainer, t.zero_stage, t.offload))
}

/// What `--runtime` names, typed once where it is read (the command line, the window, the
/// planner): an inference [`Runtime`] or a training framework ([`TrainingRuntime`]); the two
/// vocabularies share no name. Which one a workload takes depends on its [`Mode`], which may
/// come from the build file, so the estimate (`crate::estimate::fit::input_for`) refuses the
/// other kind with a message naming the accepted ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeChoice {
    /// An inference runtime (`vllm`, `llama.cpp`, ...).
    Inference(Runtime),
    /// A training framework (`hf-peft`, `deepspeed-zero3-offload`, ...).
    Training(TrainingRuntime),
}

impl From<Runtime> for RuntimeChoice {
    fn from(r: Runtime) -> Self {
        RuntimeChoice::Inference(r)
    }
}

impl fmt::Display for RuntimeChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeChoice::Inference(r) => r.fmt(f),
            RuntimeChoice::Training(t) => t.fmt(f),
        }
    }
}

impl FromStr for RuntimeChoice {
    type Err = ParseError;
    /// An inference runtime's name ([`Runtime`]'s [`FromStr`]), else a training runtime's
    /// ([`TrainingRuntime`]). A name that is neither is refused with both lists; a DeepSpeed
    /// name with a bad ZeRO stage (`zero5`) with the stages.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Ok(r) = s.parse::<Runtime>() {
            return Ok(RuntimeChoice::Inference(r));
        }
        match s.parse::<TrainingRuntime>() {
            Ok(t) => Ok(RuntimeChoice::Training(t)),
            Err(e) if s.to_ascii_lowercase().contains("zero") => Err(e),
            Err(_) => Err(ParseError(format!(
                "unknown runtime `{s}` (inference: {}; training: {}, deepspeed-zero1/2/3[-offload], fsdp-offload)",
                Runtime::ALL.map(|r| r.to_string()).join(", "),
                Trainer::ALL.map(|t| t.to_string()).join(", ")
            ))),
        }
    }
}

impl RuntimeChoice {
    /// The planner goal's `runtime` and `trainer` for `mode`.
    ///
    /// # Errors
    /// A training framework for inference, or an inference runtime for a training mode.
    pub fn for_mode(self, mode: Mode) -> Result<(Option<Runtime>, Option<TrainingRuntime>), ParseError> {
        match (self, mode.is_training()) {
            (RuntimeChoice::Inference(r), false) => Ok((Some(r), None)),
            (RuntimeChoice::Training(t), true) => Ok((None, Some(t))),
            (RuntimeChoice::Inference(r), true) => Err(ParseError(format!(
                "{r} is an inference runtime; {mode} trains under a training runtime: {}, deepspeed-zero1/2/3[-offload], fsdp-offload",
                Trainer::ALL.map(|t| t.to_string()).join(", ")
            ))),
            (RuntimeChoice::Training(t), false) => Err(ParseError(format!(
                "{t} is a training runtime; inference runs under {}",
                Runtime::ALL.map(|r| r.to_string()).join(", ")
            ))),
        }
    }
}

impl Serialize for TrainingRuntime {
    /// As its canonical name (`deepspeed-zero3-offload`), the one [`FromStr`] reads back.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What a training run is for beyond one step: the dataset and the global batch (the advice's
/// hours and accumulation steps).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TrainPlan {
    /// Tokens in the dataset.
    pub dataset_tokens: Option<f64>,
    /// Passes over it (`None` = 1).
    pub epochs: Option<f64>,
    /// Sequences per optimizer step over all GPUs.
    pub global_batch: Option<u32>,
}

/// Which linear layers of every transformer layer carry `LoRA` adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LoraTargets {
    /// q, k, v, o, gate, up and down (the QLoRA paper's "all linear layers"; Unsloth's and
    /// Axolotl's `lora_target_linear`).
    #[default]
    #[serde(rename = "all")]
    AllLinear,
    /// q, k, v and o.
    #[serde(rename = "attention")]
    Attention,
    /// q and v only (PEFT's default for Llama: `target_modules=["q_proj", "v_proj"]`).
    #[serde(rename = "qv")]
    QueryValue,
}

impl fmt::Display for LoraTargets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LoraTargets::AllLinear => "all",
            LoraTargets::Attention => "attention",
            LoraTargets::QueryValue => "qv",
        })
    }
}

impl FromStr for LoraTargets {
    type Err = ParseError;
    /// `all` (or `all-linear`), `attention` (or `qkvo`), `qv`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "all" | "all-linear" | "linear" => Ok(LoraTargets::AllLinear),
            "attention" | "attn" | "qkvo" => Ok(LoraTargets::Attention),
            "qv" | "q,v" => Ok(LoraTargets::QueryValue),
            _ => Err(ParseError(format!("unknown LoRA targets `{s}` (all, attention, qv)"))),
        }
    }
}

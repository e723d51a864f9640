//! What the user asks the planner for ([`Goal`]): the model, the precision (the best that fits,
//! or one named), the runtime or training framework, context, users and speed targets, the
//! site's circuits, budget, form and the parts the build must use or the user owns. Every
//! vocabulary field is typed, parsed once where the user typed it (the CLI's arguments, the
//! Plan tab's choices) by the types' own `FromStr`; [`validate`] refuses a goal out of
//! range before the search.

use super::PlanError;
use super::owned::OwnedPart;
use crate::estimate::llm::{Mode, Optimizer, Precision, Runtime};
use crate::workload::ParseError;
use kraftwerk_catalog::LlmModel;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;

/// The weight precision a goal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalPrecision {
    /// The best that meets the goal ([`super::model::best_precisions`], best first; with a
    /// runtime, the runtime's own precisions; with a model file, the file's).
    #[default]
    Best,
    /// Exactly this one.
    Exact(Precision),
}

impl GoalPrecision {
    /// The precision named; `None` for the best.
    pub fn exact(self) -> Option<Precision> {
        match self {
            GoalPrecision::Exact(p) => Some(p),
            GoalPrecision::Best => None,
        }
    }
}

impl FromStr for GoalPrecision {
    type Err = ParseError;
    /// `best` (any case), else a precision name ([`Precision`]'s `FromStr`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("best") {
            Ok(GoalPrecision::Best)
        } else {
            s.parse().map(GoalPrecision::Exact)
        }
    }
}

impl std::fmt::Display for GoalPrecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GoalPrecision::Best => f.write_str("best"),
            GoalPrecision::Exact(p) => p.fmt(f),
        }
    }
}

pub use crate::workload::{RuntimeChoice, TrainingRuntime};

/// Which model the goal names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelRef {
    /// A preset id of `catalog/models.ron`.
    Preset(String),
    /// A model file (see [`super::model::resolve_model`] for what it may be today).
    File(PathBuf),
}

/// Machine form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// A desktop tower case.
    Tower,
    /// An open mining-style frame with risers.
    OpenFrame,
    /// A rack chassis.
    Rack,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Form::Tower => "tower",
            Form::OpenFrame => "open frame",
            Form::Rack => "rack",
        })
    }
}

/// What the user wants. Figures carry their units; `None` means "no constraint".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Goal {
    /// The model.
    pub model: ModelRef,
    /// Weight precision: the best that meets the goal, or one named.
    pub precision: GoalPrecision,
    /// Inference runtime; `None` = the precision's usual runtime. With the best precision the
    /// runtime's own precisions are tried. `None` in a training mode.
    pub runtime: Option<Runtime>,
    /// Training: the framework (`hf-peft`, `unsloth`, `torchtune`, `deepspeed-zero3`, `fsdp`,
    /// ...); `None` = DDP, else FSDP where DDP does not fit. `None` for inference.
    pub trainer: Option<TrainingRuntime>,
    /// Context per user, tokens; `None` = the model's native context up to 8192.
    pub context: Option<u32>,
    /// Concurrent users (the batch).
    pub users: u32,
    /// Decode rate each user must see, tokens/s (0 = no target). Inference only.
    pub tok_s: f64,
    /// Prefill rate of one prompt of the context, tokens/s, if there is a target.
    pub prefill_tok_s: Option<f64>,
    /// Serving or training (LoRA, QLoRA, full fine-tune).
    pub mode: Mode,
    /// Training: the optimizer; `None` = AdamW.
    pub optimizer: Option<Optimizer>,
    /// Training: tokens to train on (dataset × epochs), for [`Goal::train_hours`].
    pub train_tokens: Option<f64>,
    /// Training: most wall-clock hours the run may take over [`Goal::train_tokens`].
    pub train_hours: Option<f64>,
    /// Mains voltage, V.
    pub mains_v: f64,
    /// Breaker of each circuit, A.
    pub breaker_a: f64,
    /// Independent circuits the PSUs may use.
    pub circuits: usize,
    /// Continuous limit of one outlet, A; `None` = the power code's default for the mains.
    pub outlet_a: Option<f64>,
    /// Most the parts may cost, USD.
    pub budget_usd: Option<f64>,
    /// Form; `None` = any.
    pub form: Option<Form>,
    /// Whether used-market cards (P40, V100, RTX 3090 class) may be proposed.
    pub used: bool,
    /// Part ids the build must use (a board or case the user owns, a card).
    pub must_have: Vec<String>,
    /// A must-have GPU named with a count (`plan --must-have 2x amd-radeon-rx-7900-xtx`, read
    /// by [`super::owned::must_have_parts`]): the machine holds exactly that many GPUs (all of
    /// them that chip or card, bought unless owned). `None`: 1 to `max_gpus`, the fewest that
    /// meet the goal. The count replaces `max_gpus` (a CPU+GPU split of a MoE model uses 1 or 2
    /// cards, so a count of 3 or more plans GPU-only machines). The search refuses it when the
    /// id is not a GPU or not among `must_have`.
    pub must_have_count: Option<super::owned::OwnedPart>,
    /// Parts the user already owns, with how many (`plan --own [Nx]ID`, the Plan tab's owned
    /// list; both read by [`super::owned::owned_parts`]): the build must use an owned part (the search adds
    /// it to `must_have`) unless the user owns two different parts of one kind (then the build
    /// uses either, and the one it uses is free); that many units cost $0 toward the budget
    /// and the total, and more of the same may be bought (new, or used with `used`). Results
    /// mark the owned units `owned` and their builds list them in `Build::owned` as `"Nx id"`.
    pub owned: Vec<OwnedPart>,
    /// Most GPUs in one machine.
    pub max_gpus: u32,
    /// Most results returned.
    pub max_results: usize,
}

impl Goal {
    /// The GPU counts the search tries: exactly the must-have count when one is given
    /// ([`Goal::must_have_count`]), else 1 to `max_gpus`.
    pub fn gpu_counts(&self) -> std::ops::RangeInclusive<u32> {
        match &self.must_have_count {
            Some(c) => c.count..=c.count,
            None => 1..=self.max_gpus,
        }
    }

    /// Units of part `id` the user owns (0 when none).
    pub fn owned_count(&self, id: &str) -> u32 {
        self.owned.iter().filter(|o| o.id == id).map(|o| o.count).sum()
    }
}

impl Goal {
    /// Context per user, tokens: the goal's, else the model's native context up to 8192.
    pub fn context_tokens(&self, model: &LlmModel) -> u32 {
        self.context.unwrap_or_else(|| model.max_context.clamp(1, 8192))
    }

    /// Whether the mode trains (no decode or prefill targets apply).
    pub fn is_training(&self) -> bool {
        self.mode.is_training()
    }

    /// The goal in one line; a context above the model's maximum says so and what runs it.
    pub fn describe(&self, model: &LlmModel) -> String {
        let mut s = format!(
            "{} at {}, {} tokens of context, {} user{}",
            model.id,
            match self.precision {
                // A CPU+GPU split is planned at the fewest-bit GGUF quant whose experts the RAM
                // holds (the fastest, on the least RAM), not the best: said where one can be.
                GoalPrecision::Best
                    if model.active_params_b.is_some_and(|a| a < model.params_b)
                        && !self.is_training()
                        && self.users == 1 =>
                {
                    "the best precision that fits (a CPU+GPU split: the smallest GGUF quant whose experts the RAM holds)"
                        .to_owned()
                }
                GoalPrecision::Best => "the best precision that fits".to_owned(),
                GoalPrecision::Exact(p) => p.to_string(),
            },
            self.context_tokens(model),
            self.users,
            if self.users == 1 { "" } else { "s" }
        );
        // Past the model's maximum only llama.cpp-family runtimes start (vLLM and SGLang refuse,
        // and the search refuses such a goal under them): said in the goal every face prints,
        // not left to a note (a trial's `--context 500000` for gpt-oss-120b read "5 builds meet
        // the goal").
        let ctx = self.context_tokens(model);
        // (Not for a model file: its maximum may be the 4,096 read where the file states none.)
        if !self.is_training() && ctx > model.max_context && matches!(self.model, ModelRef::Preset(_)) {
            let _ = write!(
                s,
                " (above {}'s maximum of {} tokens, its config's max_position_embeddings: llama.cpp starts with a warning, but the model was not trained on such a context unless its card documents rope scaling (YaRN) to it; vLLM and SGLang refuse it)",
                model.id, model.max_context
            );
        }
        if self.is_training() {
            let _ = write!(s, ", {}", self.mode);
            if let (Some(t), Some(h)) = (self.train_tokens, self.train_hours) {
                let _ = write!(s, ", {:.3} B tokens in at most {h} h", t / 1e9);
            }
        } else if self.tok_s > 0.0 {
            let _ = write!(s, ", at least {} tok/s each", self.tok_s);
        }
        if let Some(p) = self.prefill_tok_s {
            let _ = write!(s, ", prefill at least {p} tok/s");
        }
        let _ = write!(
            s,
            "; {} circuit{} of {} A at {} V",
            self.circuits,
            if self.circuits == 1 { "" } else { "s" },
            self.breaker_a,
            self.mains_v
        );
        if let Some(b) = self.budget_usd {
            let _ = write!(s, "; budget {}", crate::fmt::usd(b));
        }
        if let Some(f) = self.form {
            let _ = write!(s, "; {f}");
        }
        s.push_str(if self.used { "; used cards allowed" } else { "; new cards only" });
        s
    }
}

impl Default for Goal {
    /// Llama 3.1 70B, best precision, one user, no speed target, one US 15 A / 120 V circuit.
    fn default() -> Self {
        Goal {
            model: ModelRef::Preset("llama-3.1-70b".into()),
            precision: GoalPrecision::Best,
            runtime: None,
            trainer: None,
            context: None,
            users: 1,
            tok_s: 0.0,
            prefill_tok_s: None,
            mode: Mode::Inference,
            optimizer: None,
            train_tokens: None,
            train_hours: None,
            mains_v: 120.0,
            breaker_a: 15.0,
            circuits: 1,
            outlet_a: None,
            budget_usd: None,
            form: None,
            used: false,
            must_have: Vec::new(),
            must_have_count: None,
            owned: Vec::new(),
            max_gpus: 8,
            max_results: 5,
        }
    }
}

/// Refuses a goal out of range (mains, breaker, circuits, users, rates, budget, context,
/// outlet, GPU count) or with a runtime of the wrong kind for its mode.
///
/// # Errors
/// [`PlanError::BadGoal`] naming the field and its range.
pub fn validate(goal: &Goal) -> Result<(), PlanError> {
    let bad = |m: String| Err(PlanError::BadGoal(m));
    if !(90.0..=260.0).contains(&goal.mains_v) {
        return bad(format!("mains voltage {} V is outside 90-260 V", goal.mains_v));
    }
    if !(goal.breaker_a.is_finite() && goal.breaker_a > 0.0) {
        return bad(format!("breaker {} A must be positive", goal.breaker_a));
    }
    if goal.circuits == 0 || goal.circuits > 16 {
        return bad(format!("circuits {} must be 1 to 16", goal.circuits));
    }
    if goal.users == 0 || goal.users > 4096 {
        return bad(format!("users {} must be 1 to 4096", goal.users));
    }
    if !(goal.tok_s.is_finite() && goal.tok_s >= 0.0) {
        return bad(format!("tok/s {} must be zero or more", goal.tok_s));
    }
    if goal.prefill_tok_s.is_some_and(|p| !(p.is_finite() && p > 0.0)) {
        return bad("prefill tok/s must be positive".into());
    }
    if goal.budget_usd.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
        return bad("budget must be positive".into());
    }
    if goal.context == Some(0) {
        return bad("context must be at least 1 token".into());
    }
    if goal.outlet_a.is_some_and(|a| !(a.is_finite() && a > 0.0)) {
        return bad("outlet limit must be positive".into());
    }
    if goal.max_gpus == 0 || goal.max_gpus > 16 {
        return bad(format!("max GPUs {} must be 1 to 16", goal.max_gpus));
    }
    if let Some(c) = &goal.must_have_count {
        if c.count == 0 || c.count > 16 {
            return bad(format!("must-have count {}x of `{}` must be 1 to 16 GPUs", c.count, c.id));
        }
        if !goal.must_have.iter().any(|m| m == &c.id) {
            return bad(format!("must-have count names `{}`, which is not a must-have part", c.id));
        }
    }
    match (goal.runtime, goal.trainer) {
        (Some(r), _) if goal.is_training() => RuntimeChoice::Inference(r).for_mode(goal.mode).map(|_| ()),
        (_, Some(t)) if !goal.is_training() => RuntimeChoice::Training(t).for_mode(goal.mode).map(|_| ()),
        _ => Ok(()),
    }
    .map_err(|e| PlanError::BadGoal(e.0))
}

//! The planner: from a goal ("this model, this fast, for this many users, on the power my room
//! has, for this much money") to the builds that meet it, cheapest first.
//!
//! The planner has no rules of its own. It proposes machines from the catalog and every one is
//! judged by [`crate::check::run`] (no error findings, no unknown figure the goal depends on)
//! and estimated by the same power and fit code as `kraftwerk check` and `kraftwerk fit`. All
//! of those calls live in [`adapter`]. The search ([`plan`]) prunes early: memory
//! first (a lower bound from the weights, then the fit code per GPU chip and count), then power
//! (the cards alone against the site's circuits), then slots (a board and case that hold the
//! cards, or risers in an open frame), and only then assembles and checks whole machines, a
//! bounded number per chip. Its order is deterministic: the same catalog and goal give the same
//! answer.

pub mod adapter;
pub mod measured;
mod relax;
pub mod search;
pub mod views;

pub use search::Control;

use crate::rig::Build;
use kraftwerk_catalog::Catalog;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Which model the goal names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelRef {
    /// A preset id of `catalog/models.ron`.
    Preset(String),
    /// A model file (see [`adapter::resolve_model`] for what it may be today).
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
    /// Weight precision (`int4`, `q4_k_m`, `fp8`, ...); `None` = the best that meets the goal
    /// ([`adapter::best_precisions`], best first).
    pub precision: Option<String>,
    /// Inference runtime (`vllm`, `sglang`, `tensorrt-llm`, `llama.cpp`, `ik_llama.cpp`,
    /// `ktransformers`, `exllamav2`); `None` = the precision's usual runtime. With "best"
    /// precision the runtime's own precisions are tried.
    pub runtime: Option<String>,
    /// Context per user, tokens; `None` = the model's native context up to 8192.
    pub context: Option<u32>,
    /// Concurrent users (the batch).
    pub users: u32,
    /// Decode rate each user must see, tokens/s (0 = no target). Inference only.
    pub tok_s: f64,
    /// Prefill rate of one prompt of the context, tokens/s, if there is a target.
    pub prefill_tok_s: Option<f64>,
    /// `inference`, `lora`, `qlora` or `full`.
    pub mode: String,
    /// Training: the optimizer (`adamw`, `adamw-8bit`, `paged-adamw-8bit`, `sgd`,
    /// `adafactor`); `None` = AdamW. In a training mode `runtime` names the training framework
    /// (`hf-peft`, `unsloth`, `torchtune`, `deepspeed-zero3`, `fsdp`, ...).
    pub optimizer: Option<String>,
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
    /// Parts the user already owns, with how many (`plan --own [Nx]ID`, the Plan tab's owned
    /// list; both read by [`owned_parts`]): the build must use an owned part (the search adds
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

/// A part the user owns, and how many units of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OwnedPart {
    /// Catalog id (a GPU chip or partner card, a board, case, CPU, PSU, memory kit).
    pub id: String,
    /// Units owned (at least 1).
    pub count: u32,
}

/// The owned parts a list of words names, as `plan --own` and the Plan tab's owned list give
/// them: each entry is `ID` (one unit), `Nx ID` in one word with a space or as two words
/// (`--own 1x nvidia-geforce-rtx-3090`); words may also be separated by commas. The same id
/// named again adds to its count (`--own 1x A --own A` owns two). The one function the CLI and
/// the window read ownership with, so that they plan the same goal.
///
/// # Errors
/// [`PlanError::BadGoal`] for a count of 0, a count without an id after it, or a count over
/// 64 (no machine holds more of one part).
pub fn owned_parts<S: AsRef<str>>(entries: &[S]) -> Result<Vec<OwnedPart>, PlanError> {
    fn count_of(w: &str) -> Option<&str> {
        w.strip_suffix(['x', 'X']).filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }
    let words: Vec<&str> = entries
        .iter()
        .flat_map(|e| e.as_ref().split(|c: char| c == ',' || c.is_whitespace()))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<OwnedPart> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (count, id) = if let Some(n) = count_of(words[i]) {
            let id = words.get(i + 1).copied().filter(|w| count_of(w).is_none()).ok_or_else(|| {
                PlanError::BadGoal(format!("owned part count `{}` names no part id after it", words[i]))
            })?;
            let n: u32 =
                n.parse().map_err(|_| PlanError::BadGoal(format!("owned count `{}` is too large", words[i])))?;
            i += 2;
            (n, id)
        } else {
            i += 1;
            (1, words[i - 1])
        };
        if count == 0 || count > 64 {
            return Err(PlanError::BadGoal(format!("owned count {count}x of `{id}` must be 1 to 64")));
        }
        match out.iter_mut().find(|o| o.id == id) {
            Some(o) => o.count = o.count.saturating_add(count).min(64),
            None => out.push(OwnedPart { id: id.to_owned(), count }),
        }
    }
    Ok(out)
}

impl Goal {
    /// Units of part `id` the user owns (0 when none).
    pub fn owned_count(&self, id: &str) -> u32 {
        self.owned.iter().filter(|o| o.id == id).map(|o| o.count).sum()
    }
}

impl Default for Goal {
    /// Llama 3.1 70B, best precision, one user, no speed target, one US 15 A / 120 V circuit.
    fn default() -> Self {
        Goal {
            model: ModelRef::Preset("llama-3.1-70b".into()),
            precision: None,
            runtime: None,
            context: None,
            users: 1,
            tok_s: 0.0,
            prefill_tok_s: None,
            mode: "inference".into(),
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
            owned: Vec::new(),
            max_gpus: 8,
            max_results: 5,
        }
    }
}

impl Goal {
    /// Context per user, tokens: the goal's, else the model's native context up to 8192.
    pub fn context_tokens(&self, model: &adapter::Model) -> u32 {
        self.context.unwrap_or_else(|| model.max_context().clamp(1, 8192))
    }

    /// Whether the mode trains (no decode or prefill targets apply).
    pub fn is_training(&self) -> bool {
        !matches!(self.mode.to_ascii_lowercase().as_str(), "inference" | "infer" | "serve")
    }

    /// The goal in one line.
    pub fn describe(&self, model: &adapter::Model) -> String {
        let mut s = format!(
            "{} at {}, {} tokens of context, {} user{}",
            model.id(),
            self.precision.as_deref().unwrap_or("the best precision that fits"),
            self.context_tokens(model),
            self.users,
            if self.users == 1 { "" } else { "s" }
        );
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

/// Which constraint rejected an alternative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Constraint {
    /// The model does not fit in the GPUs' memory (up to `max_gpus`).
    Memory,
    /// Decode or prefill slower than the target.
    Speed,
    /// More power than the site's circuits carry.
    Power,
    /// No board and case hold the cards in the wanted form.
    Slots,
    /// The checker found errors in every machine assembled.
    Checks,
    /// A figure the goal depends on is unknown.
    Unknown,
    /// Over the budget.
    Budget,
    /// A used-market card and used cards are not allowed.
    Used,
    /// Not an option the planner can assemble (SXM modules) or excluded by a must-have part.
    Excluded,
    /// The runtime does not run on the card, by the runtime's own requirements
    /// ([`crate::estimate::llm::support`]: vLLM on a compute capability 6.1 Tesla P40).
    Runtime,
}

impl std::fmt::Display for Constraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Constraint::Memory => "memory",
            Constraint::Speed => "speed",
            Constraint::Power => "power",
            Constraint::Slots => "slots",
            Constraint::Checks => "checks",
            Constraint::Unknown => "unknown figure",
            Constraint::Budget => "budget",
            Constraint::Used => "used cards",
            Constraint::Excluded => "excluded",
            Constraint::Runtime => "runtime",
        })
    }
}

/// One build that meets the goal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanResult {
    /// 1-based rank by price.
    pub rank: usize,
    /// Short title (`2x RTX 3090 on ASUS Pro WS WRX80E, open frame`).
    pub title: String,
    /// The GPUs (`2x RTX 3090`).
    pub gpus: String,
    /// Weight precision it runs at.
    pub precision: String,
    /// Form of its case.
    pub form: Form,
    /// The build (saves as `*.rig.ron`).
    pub build: Build,
    /// Whether every part has a price (else `price_usd` is a lower bound).
    pub price_complete: bool,
    /// Sum of the known prices, USD.
    pub price_usd: f64,
    /// GPUs the checker finds on chipset lanes ([`adapter::gpus_on_chipset`]): ranks right
    /// after `price_complete` (a build whose cards all sit on CPU lanes first).
    pub gpus_on_chipset: usize,
    /// What the checker and the estimators say.
    pub eval: adapter::Evaluation,
    /// With the user's measurement (`plan --measured`, [`measured::apply`]): whether the speed
    /// figures of `eval` are calibrated to it, and why not; `None` without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<measured::MeasuredSpeed>,
}

/// An alternative that lost, with its reason in one line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rejected {
    /// What (`4x RTX 4090`).
    pub what: String,
    /// The constraint it failed.
    pub constraint: Constraint,
    /// Why, with the numbers.
    pub reason: String,
}

/// What relaxing one constraint would buy, when nothing meets the goal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relaxation {
    /// The constraint relaxed.
    pub constraint: Constraint,
    /// The change (`a second 15 A circuit`).
    pub change: String,
    /// The cheapest build it gives, in words; `None` when it gives none.
    pub buys: Option<String>,
}

/// Search effort, for the benchmark and the closing line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Stats {
    /// GPU chips (groups of identical cards) considered.
    pub chips: usize,
    /// Fit estimates run while screening (chip × count × precision).
    pub screened: usize,
    /// Whole machines assembled and run through `check::run`.
    pub checked: usize,
    /// Machines that met the goal (before truncating to `max_results`).
    pub passing: usize,
}

/// The planner's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanOutcome {
    /// The goal in words.
    pub goal: String,
    /// Builds that meet the goal, cheapest first.
    pub results: Vec<PlanResult>,
    /// Alternatives that lost, one line each.
    pub rejected: Vec<Rejected>,
    /// When nothing meets the goal: what relaxing each constraint would buy.
    pub relaxations: Vec<Relaxation>,
    /// The binding constraints (those whose relaxation buys a build).
    pub binding: Vec<Constraint>,
    /// Effort.
    pub stats: Stats,
    /// The search was cancelled; the answer is partial.
    pub cancelled: bool,
}

/// A goal the planner cannot work with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A field out of range or unparsable, or an unknown model or part.
    #[error("{0}")]
    BadGoal(String),
}

/// Plans builds for `goal` over `catalog`: the search, then, when it finds nothing, each
/// constraint relaxed on its own ([`relax`]), so the search never calls back into the planner.
/// Priced by [`search::pricing_catalog`] (used-market prices only with `goal.used`).
///
/// # Errors
/// [`PlanError::BadGoal`] for a goal out of range, an unknown model or must-have part.
pub fn plan(catalog: &Catalog, goal: &Goal, ctl: &mut Control<'_>) -> Result<PlanOutcome, PlanError> {
    search::validate(goal)?;
    let priced = search::pricing_catalog(catalog, goal);
    let catalog = priced.as_ref();
    // The part views are built once and shared by the relaxed searches (same mains voltage).
    let parts = adapter::parts(catalog, goal.mains_v);
    let mut out = search::search(catalog, &parts, goal, ctl)?;
    if out.results.is_empty() && !out.cancelled {
        relax::relax(catalog, &parts, goal, ctl, &mut out);
    }
    for r in &mut out.results {
        mark_bought(&mut r.build, &r.eval);
    }
    Ok(out)
}

/// Writes into `build` how its parts were priced in `eval`: the ids priced used go to
/// `Build::used`, the owned ones to `Build::owned`, so the saved build costs in `fit`,
/// `prices`, `compare` and `export` what the plan said ([`Build::pricing_catalog`]).
pub fn mark_bought(build: &mut Build, eval: &adapter::Evaluation) {
    let mut used: Vec<String> = eval.parts.iter().filter(|p| p.used).map(|p| p.id.clone()).collect();
    used.dedup();
    build.used = used;
    // Owned units by count (`"1x id"`): a build with one owned and one bought card of an id
    // costs the bought one in `fit`, `prices` and `compare` too.
    let mut owned: Vec<(String, u32)> = Vec::new();
    for p in eval.parts.iter().filter(|p| p.owned) {
        match owned.iter_mut().find(|(id, _)| id == &p.id) {
            Some((_, n)) => *n += p.quantity,
            None => owned.push((p.id.clone(), p.quantity)),
        }
    }
    build.owned = owned.into_iter().map(|(id, n)| format!("{n}x {id}")).collect();
}

/// Plans with no progress display and no cancellation (CLI, tests, benchmarks).
///
/// # Errors
/// As [`plan`].
pub fn plan_blocking(catalog: &Catalog, goal: &Goal) -> Result<PlanOutcome, PlanError> {
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let mut progress = |_: usize, _: usize| {};
    plan(catalog, goal, &mut Control { cancel: &cancel, progress: &mut progress })
}

//! The planner: from a goal ("this model, this fast, for this many users, on the power my room
//! has, for this much money") to the builds that meet it, cheapest first.
//!
//! The planner has no rules of its own. It proposes machines from the catalog and every one is
//! judged by [`crate::check::run`] ([`judge`]: no error findings, no unknown figure the goal
//! depends on) and estimated by the same power and fit code as `kraftwerk check` and `kraftwerk
//! fit` ([`estimate`], [`power`]). The search ([`search`]) prunes early: memory first (a lower
//! bound from the weights of the [`model`], then the fit code per GPU chip and count:
//! [`screen`]), then power (the cards alone against the site's circuits), then slots (a board
//! and case that hold the cards, or risers in an open frame), and only then assembles whole
//! machines ([`machine`]) from the part [`views`] and checks them, a bounded number per chip.
//! Power is a lever in two ways ([`power`]): where no single PSU carries the cards at their
//! default limits, a case or frame that holds more PSUs is tried (the answer then says what joins
//! them: [`evaluation::Evaluation::multi_psu`]); a common GPU power limit
//! ([`power::PowerCap`], `nvidia-smi -pl`) is planned only where no uncapped arrangement of the
//! same cards meets the goal, since a cap costs the user speed.
//! Its order is deterministic: the same catalog and goal give the same answer. When nothing
//! meets the goal, each constraint is relaxed on its own and what that buys is reported.

pub mod drive;
pub mod estimate;
pub mod evaluation;
pub mod goal;
pub mod judge;
pub mod machine;
pub mod measured;
pub mod model;
pub mod owned;
pub mod parts;
pub mod power;
mod relax;
pub mod screen;
pub mod search;
pub mod views;

pub use search::Control;

use crate::estimate::llm;
use crate::rig::Build;
use crate::workload::Precision;
use evaluation::Evaluation;
use goal::{Form, Goal};
use kraftwerk_catalog::Catalog;
use serde::Serialize;
use std::fmt::Write as _;

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
    /// Weight precision it runs at (written as its name, `int4`).
    #[serde(with = "crate::workload::text")]
    pub precision: Precision,
    /// Form of its case.
    pub form: Form,
    /// The build (saves as `*.rig.ron`).
    pub build: Build,
    /// Whether every part has a price (else `price_usd` is a lower bound).
    pub price_complete: bool,
    /// Sum of the known prices, USD.
    pub price_usd: f64,
    /// GPUs the checker finds on chipset lanes ([`judge::gpus_on_chipset`]): ranks right
    /// after `price_complete` (a build whose cards all sit on CPU lanes first).
    pub gpus_on_chipset: usize,
    /// What the checker and the estimators say.
    pub eval: Evaluation,
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
    /// Machines found that met the goal (before truncating to `max_results`): each is shown
    /// ([`Stats::shown`]), set aside ([`Stats::set_aside`]) or past `max_results`
    /// ([`Stats::beyond_max`]). The search is bounded (a few cards per chip, a few machines per
    /// card), so this counts the builds it found, not every build the catalog could give.
    pub passing: usize,
    /// Of those, the builds shown ([`PlanOutcome::results`]): the "N builds shown of the M
    /// found that meet the goal" of `kraftwerk plan`'s text.
    pub shown: usize,
    /// Machines that met the goal and are not listed because an arrangement of the same cards
    /// met it too with every card on CPU lanes, or at the cards' default power limits
    /// ([`search::rank`]).
    pub set_aside: usize,
    /// Machines that met the goal and are not listed because `max_results` were listed.
    pub beyond_max: usize,
}

impl Stats {
    /// The closing line of `kraftwerk plan` and the Plan tab: chips, fit estimates, machines
    /// checked and those that met the goal, and, when fewer are shown than met it, how many are
    /// shown and why the others are not (`9 met the goal (8 shown: 1 set aside, ...)`).
    pub fn summary(&self) -> String {
        let mut why = Vec::new();
        if self.set_aside > 0 {
            why.push(format!(
                "{} set aside: the same GPUs met the goal on CPU lanes or at their default power limits",
                self.set_aside
            ));
        }
        if self.beyond_max > 0 {
            why.push(format!("{} past the number of results asked for (--max-results)", self.beyond_max));
        }
        let shown = if why.is_empty() { String::new() } else { format!(" ({} shown: {})", self.shown, why.join("; ")) };
        format!(
            "{} chips, {} fit estimates, {} machines checked, {} met the goal{shown}.",
            self.chips, self.screened, self.checked, self.passing
        )
    }
}

/// The builds that met the goal, are not shown (past `max_results`) and cost less than the
/// cheapest fully priced build shown ([`PlanOutcome::cheaper_not_shown`]): the ranking puts a
/// build whose speed is unvalidated, with a card on chipset lanes, or whose placement checks
/// did not all run (UNVERIFIED) after every build without that mark, whatever it costs, and a
/// builder must still learn that a much cheaper build met the goal, and with what caveat
/// (new-user trial: a $5,067 4x RTX 3090 UNVERIFIED on slot positions ranked 13th, below a
/// $35,470 H200 NVL, and was not shown). Counted over fully priced builds, one per GPU set as
/// the list shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheaperNotShown {
    /// How many such builds.
    pub count: usize,
    /// What ranks them after the builds shown, one phrase per mark found among them, in the
    /// ranking's order (`not every placement check ran (UNVERIFIED)`).
    pub ranked_after_for: Vec<String>,
    /// The cheapest of them, its title (`4x RTX 3090 on ..., tower`).
    pub cheapest_title: String,
    /// The precision it runs at (written as its name, `int4`).
    #[serde(with = "crate::workload::text")]
    pub cheapest_precision: Precision,
    /// Its price, USD (fully priced).
    pub cheapest_usd: f64,
    /// Its checker verdict.
    pub cheapest_verdict: Option<crate::check::Verdict>,
    /// The checks that did not run on it and why, one phrase per reason (`case-gpu-fit,
    /// gpu-slot-blocked, open-air-gap: not checked for ...: its slot wiring is known but not
    /// where the slots sit ...`); empty where every check ran.
    pub cheapest_unchecked: Vec<String>,
    /// The `--max-results` that shows every one of them (the place of the last of them in the
    /// ranking).
    pub max_results_to_show: usize,
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
    /// Builds not shown that met the goal for less than the cheapest fully priced build shown
    /// ([`CheaperNotShown`]); `None` when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cheaper_not_shown: Option<CheaperNotShown>,
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
    goal::validate(goal)?;
    let priced = search::pricing_catalog(catalog, goal);
    let catalog = priced.as_ref();
    // The part views are built once and shared by the relaxed searches (same mains voltage).
    let parts = parts::read(catalog, goal.mains_v);
    let mut out = search_runtimes(catalog, &parts, goal, ctl)?;
    if out.results.is_empty() && !out.cancelled {
        relax::relax(catalog, &parts, goal, ctl, &mut out);
    }
    for r in &mut out.results {
        mark_bought(&mut r.build, &r.eval);
    }
    Ok(out)
}

/// [`search::search`] with the goal's runtime, and, when the goal names none, again with each
/// other runtime that runs its precision ([`model::other_runtimes`]: llama.cpp for gpt-oss's
/// MXFP4), the machines of all merged into one ranking ([`search::rank`], each search keeping
/// every machine it found so that the merged ranking and its counts are those of one list) and
/// the alternatives that lost into one list. Each result's build carries the runtime it was
/// judged with, so `kraftwerk fit` on it gives the same verdict. A card one runtime refuses
/// ([`Constraint::Runtime`]) while another is planned too says so, so that a line quoting vLLM's
/// requirements is not read as the verdict of the llama.cpp builds beside it (new-user trial:
/// the RX 6800 refused by vLLM's list in a plan whose builds ran llama.cpp).
///
/// # Errors
/// As [`search::search`] for the goal itself; a goal the other runtime refuses adds nothing.
pub(crate) fn search_runtimes(
    catalog: &Catalog,
    parts: &views::Parts,
    goal: &Goal,
    ctl: &mut Control<'_>,
) -> Result<PlanOutcome, PlanError> {
    let others =
        model::resolve_model(catalog, &goal.model).map(|m| model::other_runtimes(&m, goal)).unwrap_or_default();
    if others.is_empty() {
        return search::search(catalog, parts, goal, None, ctl);
    }
    // Every machine each search found, ranked once below.
    let all = Goal { max_results: usize::MAX, ..goal.clone() };
    let mut out = search::search(catalog, parts, &all, None, ctl)?;
    let mut results = std::mem::take(&mut out.results);
    // The other runtimes' refusals ([`Constraint::Runtime`]), by runtime.
    let mut refused_too: Vec<(llm::Runtime, Rejected)> = Vec::new();
    let mut tried: Vec<(llm::Runtime, &'static str)> = Vec::new();
    for (rt, why) in others {
        if out.cancelled {
            break;
        }
        let g = Goal { runtime: Some(rt), ..all.clone() };
        let Ok(o) = search::search(catalog, parts, &g, Some(why), ctl) else { continue };
        tried.push((rt, why));
        results.extend(o.results);
        refused_too.extend(o.rejected.iter().filter(|r| r.constraint == Constraint::Runtime).map(|r| (rt, r.clone())));
        out.rejected.extend(o.rejected);
        out.stats.screened += o.stats.screened;
        out.stats.checked += o.stats.checked;
        out.stats.passing += o.stats.passing;
        out.stats.set_aside += o.stats.set_aside;
        out.stats.beyond_max += o.stats.beyond_max;
        out.cancelled |= o.cancelled;
    }
    // The goal's own search's refusals name the runtime they judged (`screen::runtime_refusal`);
    // each says too which other runtime was planned beside it and does not refuse the card.
    for r in out.rejected.iter_mut().filter(|r| r.constraint == Constraint::Runtime) {
        if refused_too.iter().any(|(_, o)| o == r) {
            continue;
        }
        for (rt, why) in &tried {
            if !refused_too.iter().any(|(t, o)| t == rt && o.what == r.what) {
                let _ = write!(r.reason, "; {rt}, planned too ({why}), does not refuse it and is judged on its own");
            }
        }
    }
    let ranked = search::rank(results, goal.max_results, &mut out.stats);
    out.results = ranked.results;
    out.cheaper_not_shown = ranked.cheaper_not_shown;
    out.rejected.sort_by(|a, b| a.constraint.cmp(&b.constraint).then(a.what.cmp(&b.what)));
    // Two runtimes' refusals of one card are two lines, each naming its runtime.
    out.rejected.dedup_by(|a, b| {
        a.what == b.what
            && a.constraint == b.constraint
            && (a.constraint != Constraint::Runtime || a.reason == b.reason)
    });
    Ok(out)
}

/// Writes into `build` how its parts were priced in `eval`: the ids priced used go to
/// `Build::used`, the owned ones to `Build::owned`, so the saved build costs in `fit`,
/// `prices`, `compare` and `export` what the plan said ([`Build::pricing_catalog`]).
pub(crate) fn mark_bought(build: &mut Build, eval: &Evaluation) {
    let mut used: Vec<String> = eval.parts.iter().filter(|p| p.used()).map(|p| p.id.clone()).collect();
    used.dedup();
    build.used = used;
    // Owned units by count (`"1x id"`): a build with one owned and one bought card of an id
    // costs the bought one in `fit`, `prices` and `compare` too.
    let mut owned: Vec<(String, u32)> = Vec::new();
    for p in eval.parts.iter().filter(|p| p.owned()) {
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

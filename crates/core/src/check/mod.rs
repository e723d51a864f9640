//! The compatibility checker: rules as lints.
//!
//! Each [`Rule`] is one self-documenting unit (stable id, default severity, what it checks, why
//! it matters with the source of its numbers, how to fix), listed in [`RULES`]. [`run`] applies
//! every rule to a build and returns a [`Report`] with the findings, the power estimate the
//! power rules used, and an overall verdict. The GUI and the CLI both call [`run`], so they can
//! never disagree.

mod cooling;
pub mod coverage;
mod direction;
mod nvlink;
mod pcie;
mod platform;
pub use platform::{cpu_fills_sockets, cpu_runs_on_board, system_ram_wanted_gb};
mod power;
pub use power::adapter_plugs;

pub use crate::rig::links::{GpuLink, gpu_links, lane_gb_s, slot_lanes};
use coverage::chosen;
pub use coverage::{Coverage, Figure, Need, RuleCoverage, ToSupply, UnknownFigure};

use crate::estimate::power::{LoadState, PowerAdvice, PowerEstimate, advise, estimate};
use crate::rig::{Build, Resolved};
use kraftwerk_catalog::Catalog;
use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; nothing to fix.
    Info,
    /// Works, but with a cost (speed, noise, margin) or a risk.
    Warning,
    /// Will not work, or risks damage (burnt connector, tripped breaker).
    Error,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A rule's documentation, in three parts as for a clippy lint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuleDoc {
    /// Stable id (`psu-transient`).
    pub id: &'static str,
    /// Family (`power`, `pcie`, ...).
    pub family: &'static str,
    /// Highest severity the rule reports.
    pub severity: Severity,
    /// One-line title.
    pub title: &'static str,
    /// What it checks.
    pub checks: &'static str,
    /// Why it matters, with the source of its numbers.
    pub why: &'static str,
    /// How to fix.
    pub fix: &'static str,
}

/// Something a finding concerns, so the GUI can highlight it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case", tag = "part", content = "index")]
pub enum PartRef {
    /// GPU by build index.
    Gpu(usize),
    /// The CPU.
    Cpu,
    /// The motherboard.
    Motherboard,
    /// PSU by build index.
    Psu(usize),
    /// The case.
    Case,
    /// The CPU cooler.
    Cooler,
    /// The memory.
    Memory,
    /// Drive by build index.
    Storage(usize),
    /// Expansion slot by position.
    Slot(u8),
    /// Wall circuit by index.
    Circuit(usize),
    /// NVLink bridge by build index.
    Bridge(usize),
}

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Something the rule found in the build.
    #[default]
    Problem,
    /// The rule could not check a part: a figure it needs is unknown (severity info; see
    /// [`Coverage`]).
    NotChecked,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Rule id.
    pub rule: &'static str,
    /// Severity of this finding.
    pub severity: Severity,
    /// A problem, or a `not_checked` note.
    pub kind: FindingKind,
    /// What is wrong, with the numbers.
    pub message: String,
    /// Parts concerned.
    pub parts: Vec<PartRef>,
    /// How to fix this instance.
    pub fix: String,
}

/// Overall verdict of a report. How much was checked is in [`Report::coverage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing chosen: nothing to check.
    Empty,
    /// No errors, but parts the rules need are not chosen (no PSU, case, memory, ...): those
    /// rules did not run, so this is not a pass.
    Incomplete,
    /// No errors and every required part chosen, but a rule that could report an error for
    /// this build did not run: a figure it needs is unknown (a board's slot layout, a case's
    /// GPU length, a PSU's connectors). Not a pass; [`Coverage::to_supply`] says what to enter,
    /// the figure that decides the most first. `kraftwerk check` exits 3 as for INCOMPLETE.
    Unverified,
    /// No errors, no warnings, every required part chosen.
    Pass,
    /// Warnings but no errors, every required part chosen.
    Warnings,
    /// At least one error.
    Fail,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Empty => "EMPTY",
            Verdict::Incomplete => "INCOMPLETE",
            Verdict::Unverified => "UNVERIFIED",
            Verdict::Pass => "PASS",
            Verdict::Warnings => "PASS WITH WARNINGS",
            Verdict::Fail => "FAIL",
        })
    }
}

/// The load state `check` estimates power in: the workload's mode decides (`inference` →
/// [`LoadState::Inference`]; `full`, `lora`, `qlora` → [`LoadState::Training`]); a build
/// without a workload is checked at full load.
pub fn power_state(build: &Build) -> LoadState {
    match build.workload.as_ref().map(|w| w.mode) {
        Some(m) if !m.is_training() => LoadState::Inference,
        _ => LoadState::Training,
    }
}

/// Whether the build's workload holds its estimated load for hours, so that a wall circuit is
/// judged against its continuous limit as an error (US NEC 210.19(A)/210.20(A): 80 % of the
/// breaker for a load of 3 h or more): no workload (checked at full load), a training mode, or
/// batch serving (an inference workload with more than one concurrent sequence, `batch > 1`:
/// judgement, a server kept busy by several streams). Single-stream inference (`batch: 1`)
/// loads the circuit in bursts: over the continuous limit is a warning.
pub(crate) fn sustains_load(build: &Build) -> bool {
    build.workload.as_ref().is_none_or(|w| w.mode.is_training() || w.batch > 1)
}

/// Why the report's power is in its state, in words (`check`'s text and JSON `power_basis`).
fn power_basis(build: &Build, state: LoadState) -> String {
    match (state, build.workload.as_ref()) {
        (LoadState::Inference, Some(w)) => format!(
            "the workload's mode is `{}`: GPUs at inference load; each PSU, and each circuit against its continuous limit, is also judged at full load (every GPU at its power limit), which `kraftwerk power BUILD --state training` shows",
            w.mode.file_name()
        ),
        (_, Some(w)) => format!("the workload's mode is `{}`: GPUs at full (training) load", w.mode.file_name()),
        (_, None) => "no workload given: GPUs at full (training) load".to_owned(),
    }
}

/// Everything the rules can look at.
pub struct Ctx<'a> {
    /// The build with its parts.
    pub r: Resolved<'a>,
    /// Power estimate at the workload's state ([`power_state`]).
    pub power: PowerEstimate,
    /// Power estimate at full load (every GPU at its power limit: the state a prefill burst
    /// or a second job reaches) when `power` is at a lighter state (inference mode); `None`
    /// when `power` is already at full load.
    pub full_power: Option<PowerEstimate>,
    /// Effective PCIe link of each GPU.
    pub links: Vec<GpuLink>,
    /// Part ids the build names that neither its parts nor the catalog define, as
    /// `(field, id)` ([`Build::unknown_ids`]).
    pub unknown_ids: Vec<(String, String)>,
}

impl Ctx<'_> {
    /// The build.
    pub fn build(&self) -> &Build {
        self.r.build
    }
}

/// A rule: its documentation, what it needs, and its check.
pub struct Rule {
    /// Documentation.
    pub doc: RuleDoc,
    /// Parts and figures it needs; missing or unknown ones make it "not checked"
    /// ([`coverage`]).
    pub needs: &'static [Need],
    /// The figures its docs quote, rendered from the constants the check uses (so `check
    /// --explain` never goes stale); `None` when the docs quote none.
    pub figures: Option<fn() -> String>,
    /// Adds findings for the build.
    pub check: fn(&Ctx<'_>, &mut Vec<Finding>),
}

/// Every rule, by family.
pub static RULES: &[&Rule] = &[
    &platform::MISSING_PARTS,
    &platform::CPU_SOCKET,
    &platform::MEMORY_TYPE,
    &platform::MEMORY_POPULATION,
    &platform::MEMORY_CAPACITY,
    &platform::CASE_FORM_FACTOR,
    &platform::COOLER_SOCKET,
    &platform::COOLER_CLEARANCE,
    &platform::COOLER_TDP,
    &platform::MIXED_GPUS,
    &platform::SYSTEM_RAM,
    &pcie::GPU_SLOT,
    &pcie::GPU_SLOT_BLOCKED,
    &pcie::CASE_GPU_FIT,
    &pcie::PCIE_LANE_BUDGET,
    &pcie::PCIE_LINK,
    &pcie::PCIE_RISER,
    &power::PSU_CAPACITY,
    &power::PSU_TRANSIENT,
    &power::WALL_CIRCUIT,
    &power::PSU_INLET,
    &power::MULTI_PSU,
    &power::GPU_POWER_CABLE,
    &power::PSU_CONNECTORS,
    &nvlink::NVLINK_BRIDGE,
    &nvlink::NVLINK_SPACING,
    &cooling::PASSIVE_AIRFLOW,
    &cooling::OPEN_AIR_GAP,
    &cooling::CASE_HEAT,
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.doc.id == id)
}

/// The result of checking a build.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Build name.
    pub build: String,
    /// Overall verdict.
    pub verdict: Verdict,
    /// Count of findings by severity: errors, warnings, infos.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub infos: usize,
    /// Findings, errors first, then by rule id.
    pub findings: Vec<Finding>,
    /// Power estimate the power rules used, at the workload's state ([`power_state`]:
    /// inference for an inference workload, else training).
    pub power: PowerEstimate,
    /// Why `power` is in its state, in words.
    pub power_basis: String,
    /// Power-limit advice when the build exceeds its PSU or circuit.
    pub advice: Option<PowerAdvice>,
    /// Effective PCIe link per GPU.
    pub links: Vec<GpuLink>,
    /// How much was checked: rules that ran, rules not checked and why, parts missing.
    pub coverage: Coverage,
}

/// Whether the build chooses nothing at all.
fn is_empty(b: &Build) -> bool {
    b.cpu.is_none()
        && b.motherboard.is_none()
        && b.cooler.is_none()
        && b.case.is_none()
        && b.memory.is_none()
        && b.storage.is_empty()
        && b.gpus.is_empty()
        && b.psus.is_empty()
}

/// Checks a build against the catalog.
pub fn run(build: &Build, catalog: &Catalog) -> Report {
    let r = build.resolve(catalog);
    let state = power_state(build);
    let power = estimate(&r, state);
    let links = gpu_links(&r);
    let unknown_ids = build.unknown_ids(catalog);
    let full_power = (state != LoadState::Training).then(|| estimate(&r, LoadState::Training));
    // A board whose positions are forced by its slot count but not their direction: the
    // geometry rules are also judged on the reversed layout ([`direction`]).
    let reversed = direction::reversed(&r);
    let ctx = Ctx { r, power, full_power, links, unknown_ids };
    let reversed_ctx = reversed.as_ref().map(|rev| {
        let r = direction::resolve_reversed(&ctx.r, rev);
        Ctx {
            power: estimate(&r, state),
            full_power: (state != LoadState::Training).then(|| estimate(&r, LoadState::Training)),
            r,
            links: ctx.links.clone(),
            unknown_ids: ctx.unknown_ids.clone(),
        }
    });
    let mut findings = Vec::new();
    let mut undecided: Vec<&'static Rule> = Vec::new();
    let mut either_way: Vec<&'static str> = Vec::new();
    for rule in RULES {
        // A rule whose part is not chosen is "not checked" (coverage says which part is missing);
        // it must not also report a problem from defaults (the wall circuit without a PSU was
        // judged at an assumed 90 % efficiency and failed the build).
        let part_missing = rule.needs.iter().any(|n| matches!(n, Need::Part(k) if !chosen(*k, &ctx)));
        if part_missing {
            continue;
        }
        match (&reversed_ctx, &reversed) {
            (Some(rc), Some(rev)) if direction::GEOMETRY_RULES.contains(&rule.doc.id) => {
                let (mut listed, mut other) = (Vec::new(), Vec::new());
                (rule.check)(&ctx, &mut listed);
                (rule.check)(rc, &mut other);
                let board = ctx.r.board.unwrap_or(&rev.board);
                if direction::reconcile(rule, board, listed, &other, &mut findings) {
                    undecided.push(rule);
                } else if rule.doc.id != "nvlink-spacing" || !build.nvlink.is_empty() {
                    // (A build without bridges gives the spacing rule nothing to judge.)
                    either_way.push(rule.doc.id);
                }
            }
            _ => (rule.check)(&ctx, &mut findings),
        }
    }
    let (mut coverage, not_checked) = coverage::assess(RULES, &ctx);
    findings.extend(not_checked);
    if let Some(board) = ctx.r.board {
        for rule in &undecided {
            direction::mark_undecided(&mut coverage, rule, board);
        }
        let order = |id: &str| RULES.iter().position(|r| r.doc.id == id);
        coverage.not_checked.sort_by_key(|rc| order(rc.rule));
        coverage.unverified.sort_by_key(|id| order(id));
    }
    // Rules judged both ways that held (a rule not checked for another reason did not "hold").
    either_way.retain(|id| !coverage.not_checked.iter().any(|rc| rc.rule == *id));
    coverage.either_direction = either_way;
    findings.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.kind.cmp(&b.kind)).then(a.rule.cmp(b.rule)));
    let problems = || findings.iter().filter(|f| f.kind == FindingKind::Problem);
    let errors = problems().filter(|f| f.severity == Severity::Error).count();
    let warnings = problems().filter(|f| f.severity == Severity::Warning).count();
    let infos = problems().count() - errors - warnings;
    let verdict = if errors > 0 {
        Verdict::Fail
    } else if is_empty(build) {
        Verdict::Empty
    } else if coverage.incomplete() {
        Verdict::Incomplete
    } else if coverage.unverified() {
        Verdict::Unverified
    } else if warnings > 0 {
        Verdict::Warnings
    } else {
        Verdict::Pass
    };
    let advice = advise(&ctx.r);
    Report {
        build: build.name.clone(),
        verdict,
        errors,
        warnings,
        infos,
        findings,
        power: ctx.power,
        power_basis: power_basis(build, state),
        advice,
        links: ctx.links,
        coverage,
    }
}

/// The power family's problems in a report (`psu-capacity`, `psu-transient`, `wall-circuit`,
/// `psu-inlet`, `multi-psu`, `gpu-power-cable`, `psu-connectors`; not the "not checked" notes),
/// in the report's order (errors first). `kraftwerk power`, the window's Power tab and the
/// status bar show these, so their severity is `check`'s by construction.
pub fn power_findings(report: &Report) -> Vec<&Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Problem && rule(f.rule).is_some_and(|r| r.doc.family == "power"))
        .collect()
}

/// The "not checked" findings of the power rules (a PSU of unknown efficiency leaves its wall
/// draw, inlet and circuit unchecked): what a view prints beside [`power_findings`] so that "no
/// power finding" never reads as a pass over a rule that did not run.
pub fn power_not_checked(report: &Report) -> Vec<&Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::NotChecked && rule(f.rule).is_some_and(|r| r.doc.family == "power"))
        .collect()
}

/// The worst severity of [`power_findings`], `None` when the power rules found nothing.
pub fn power_severity(report: &Report) -> Option<Severity> {
    power_findings(report).iter().map(|f| f.severity).max()
}

/// Shorthand for rule files.
pub(crate) fn finding(
    rule: &'static Rule,
    severity: Severity,
    message: String,
    parts: Vec<PartRef>,
    fix: impl Into<String>,
) -> Finding {
    Finding { rule: rule.doc.id, severity, kind: FindingKind::Problem, message, parts, fix: fix.into() }
}

pub(crate) use crate::fmt::plural;

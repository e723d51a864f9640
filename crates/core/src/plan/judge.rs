//! Judging a machine with the checker exactly as `kraftwerk check` would ([`judge`]), read into
//! the planner's [`Evaluation`] (the estimators fill in the rest: [`super::estimate`]).
//!
//! Unknown figures: the checker reports a rule it could not fully run as a finding of kind
//! [`FindingKind::NotChecked`] (and in [`check::Coverage`]). [`judge`] sorts them by the parts
//! the rule declares it needs ([`check::Rule::needs`]): a rule that needs the GPUs or the PSUs
//! guards what the goal rests on (the cards fit their slots and case, get their power, the
//! machine stays within the site), so its not-checked findings go to `not_checked` and the
//! search does not propose the machine ([`goal_depends_on`]); the others (CPU cooler, system
//! memory limits) go to `not_checked_other`, shown with the result. A part the build lacks is
//! in `not_checked` too. The estimators add the `None` figures the goal itself depends on
//! (prices when there is a budget, the tensor rate when there is a prefill target).

use super::evaluation::Evaluation;
use super::power::planned_cap;
use crate::check::{self, FindingKind, Need, Severity};
use crate::estimate::power::{self, LoadState};
use crate::rig::Build;
use kraftwerk_catalog::PartKind;
use kraftwerk_catalog::{Catalog, HasId};

/// GPUs the checker finds on chipset lanes (`pcie-lane-budget: GPU n on chipset lanes`):
/// each shares the chipset's uplink to the CPU, which a board with enough CPU-wired slots
/// avoids.
pub fn gpus_on_chipset(ev: &Evaluation) -> usize {
    ev.warnings.iter().filter(|w| w.starts_with("pcie-lane-budget:") && w.contains("on chipset lanes")).count()
}

/// GPUs the checker finds on chipset lanes ([`gpus_on_chipset`]) or on an x1 link
/// (`pcie-link: GPU n links at PCIe g x1`): what a CPU-lane arrangement of the same cards beats.
pub fn poor_links(ev: &Evaluation) -> usize {
    gpus_on_chipset(ev)
        + ev.warnings
            .iter()
            .filter(|w| w.starts_with("pcie-link:") && (w.contains(" x1 ") || w.contains(" x1 (")))
            .count()
}

/// Whether a plan's goal depends on what rule `rule` checks: the rule needs the GPUs or the
/// PSUs ([`check::Rule::needs`]), so it guards the cards' slots, case fit, power delivery or
/// the site's circuits. An unknown rule id counts as depended on.
pub(crate) fn goal_depends_on(rule: &str) -> bool {
    check::rule(rule).is_none_or(|r| r.needs.iter().any(|n| matches!(n, Need::Part(PartKind::Gpu | PartKind::Psu))))
}

/// The placement rules that need the slots' positions (card thickness over the next slot, air
/// gaps between open-air cards, the stack in the case's openings): on a board wired without
/// positions they say not checked while the electrical rules (`gpu-slot`, `pcie-link`,
/// `pcie-lane-budget`, the M.2 sharing rules) run.
pub const GEOMETRY_RULES: [&str; 3] = ["gpu-slot-blocked", "open-air-gap", "case-gpu-fit"];

/// What the checker says of a build: its error and warning findings, its not-checked findings
/// and missing parts (every one counts, see the module docs), and the power figures of its
/// report. No fit or cost yet ([`super::estimate::estimate`]).
pub fn judge(build: &Build, catalog: &Catalog) -> Evaluation {
    let report = check::run(build, catalog);
    let r = build.resolve(catalog);
    let unpositioned = r.board.filter(|b| b.slot_layout_known() && !b.slot_positions_known());
    let mut ev = from_report(&report, unpositioned.is_some());
    let mut chips: Vec<&str> = Vec::new();
    for (i, g) in build.gpus.iter().enumerate() {
        if r.card_unnamed(i) && !chips.contains(&g.gpu.as_str()) {
            chips.push(g.gpu.as_str());
        }
    }
    let mut verify: Vec<String> = Vec::new();
    // One card has nothing to block or gap: the slot positions would not verify it.
    let one_card = build.gpus.len() == 1;
    if let Some(b) = unpositioned.filter(|_| !ev.geometry_unchecked.is_empty() && (!one_card || chips.is_empty())) {
        verify.push(format!(
            "slot positions of {}: enter them in the window's Build tab (slot editor), or as `position` of each of its `pcie_slots` in a user board file",
            b.display_name()
        ));
    }
    for chip in chips {
        let n = build.gpus.iter().enumerate().filter(|&(i, g)| g.gpu == chip && r.card_unnamed(i)).count();
        verify.push(format!(
            "the card{} you own of `{chip}`: plan with `--own {n}x CARD_ID` (its partner card id; `kraftwerk catalog gpu_cards` lists them), or give {} length, width and power sockets in the build file's own `parts: (gpus: [...])`",
            if n == 1 { "" } else { "s" },
            if n == 1 { "its" } else { "their" }
        ));
    }
    ev.verify_with = (!verify.is_empty()).then(|| verify.join("; and "));
    ev.inference_wall_w = power::estimate(&r, LoadState::Inference).total_wall_w;
    ev.power_cap = planned_cap(build, catalog);
    ev.multi_psu = super::power::multi_psu_note(build, catalog);
    // The report's power follows the workload's mode (`check::power_state`); the plan shows
    // full load.
    if report.power.state != LoadState::Training {
        let full = power::estimate(&r, LoadState::Training);
        ev.wall_w = full.total_wall_w;
        ev.heat_w = full.heat_w;
        ev.circuits = full.circuits.iter().map(|c| (c.amps, c.continuous_a)).collect();
        ev.psu_loads = full.psus.iter().map(|p| (p.dc_w, p.rated_w)).collect();
    }
    ev
}

/// [`judge`]'s reading of a check report (no inference power yet).
fn from_report(report: &check::Report, unpositioned: bool) -> Evaluation {
    let mut ev = Evaluation { verdict: Some(report.verdict), ..Evaluation::default() };
    for f in &report.findings {
        let line = format!("{}: {}", f.rule, f.message);
        match (f.kind, f.severity) {
            // Only the findings that lack the slots' positions (the coverage's wording for
            // `Figure::BoardSlotPositions`, which names `pcie_slots.position`); a geometry rule
            // that lacks another figure (a card's length) stays a figure the goal depends on.
            (FindingKind::NotChecked, _)
                if unpositioned && GEOMETRY_RULES.contains(&f.rule) && f.message.contains("pcie_slots.position") =>
            {
                ev.geometry_unchecked.push(line);
            }
            // An owned GPU named by its chip (the coverage's wording for
            // `Figure::GpuCardUnnamed`): no other part of the search names the card.
            (FindingKind::NotChecked, _) if f.message.contains(check::coverage::OWNED_BY_CHIP) => {
                ev.owned_card_unchecked.push(line);
            }
            (FindingKind::NotChecked, _) if goal_depends_on(f.rule) => {
                ev.not_checked.push(line);
                ev.unknown_parts.extend(f.parts.iter().copied());
            }
            (FindingKind::NotChecked, _) => ev.not_checked_other.push(line),
            (FindingKind::Problem, Severity::Error) => {
                ev.errors.push(line);
                ev.error_parts.extend(f.parts.iter().copied());
            }
            (FindingKind::Problem, Severity::Warning) => ev.warnings.push(line),
            (FindingKind::Problem, Severity::Info) => {}
        }
    }
    for k in &report.coverage.missing_parts {
        ev.not_checked.push(format!("missing part: no {} chosen", k.name()));
    }
    ev.wall_w = report.power.total_wall_w;
    ev.heat_w = report.power.heat_w;
    ev.circuits = report.power.circuits.iter().map(|c| (c.amps, c.continuous_a)).collect();
    ev.psu_loads = report.power.psus.iter().map(|p| (p.dc_w, p.rated_w)).collect();
    ev.advised_limit_w = report.advice.as_ref().and_then(|a| a.common_limit_w);
    ev
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;

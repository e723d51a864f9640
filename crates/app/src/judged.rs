//! The colour of a figure the window shows (a circuit's amps, a PSU's load, the heat in the
//! case), taken from the findings `kraftwerk check` made of the build for its workload, never
//! from a threshold of the window's own: a figure is red or orange only when a finding of that
//! severity names it, so every coloured figure has the finding that explains it (issue 39).
//! Also the finding counts ([`Counts`]) the status bar, the tab strip and the Checks tab show.

use super::theme;
use eframe::egui::Color32;
use kraftwerk_core::check::{self, Finding, FindingKind, PartRef, Report, Severity};

/// How a figure was judged: the worst severity of the findings of `rules` that name it, whether
/// those rules ran, and the findings' messages (for the hover text).
#[derive(Debug, Clone, PartialEq)]
pub struct Judged<'a> {
    /// Worst severity of the matching problems; `None` when there are none.
    pub severity: Option<Severity>,
    /// Whether every rule in `rules` ran for this build (none of them is in the report's
    /// "not checked" list). A figure no rule ran on is neither red nor green.
    pub ran: bool,
    /// The matching problems, in the report's order (errors first).
    pub findings: Vec<&'a Finding>,
}

impl Judged<'_> {
    /// The figure's colour: the worst finding's severity colour; [`theme::OK`] when the rules
    /// ran and found nothing; [`theme::UNJUDGED`] when they did not run.
    pub fn color(&self) -> Color32 {
        match (self.severity, self.ran) {
            (Some(s), _) => theme::severity(s),
            (None, true) => theme::OK,
            (None, false) => theme::UNJUDGED,
        }
    }

    /// One line per finding (`error [wall-circuit] …`), or what was (not) found.
    pub fn explanation(&self) -> String {
        if self.findings.is_empty() {
            return if self.ran {
                "No finding: `kraftwerk check` judges this within its limits for the build's workload.".to_owned()
            } else {
                "Not checked: the rule that judges this did not run (see the Checks tab).".to_owned()
            };
        }
        self.findings
            .iter()
            .map(|f| format!("{} [{}] {}", f.severity, f.rule, f.message))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The problems of `rules` in `report` that name `part`: what colours a figure of that part.
pub fn judge<'a>(report: &'a Report, part: PartRef, rules: &[&str]) -> Judged<'a> {
    let findings: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Problem && rules.contains(&f.rule) && f.parts.contains(&part))
        .collect();
    let ran = rules.iter().all(|r| !report.coverage.not_checked.iter().any(|c| c.rule == *r))
        && rules.iter().all(|r| check::rule(r).is_some());
    Judged { severity: findings.iter().map(|f| f.severity).max(), ran, findings }
}

/// The rules that judge a wall circuit's draw.
pub const CIRCUIT_RULES: &[&str] = &["wall-circuit"];
/// The rules that judge a PSU's sustained load.
pub const PSU_LOAD_RULES: &[&str] = &["psu-capacity"];
/// The rules that judge the current through a PSU's inlet.
pub const PSU_INLET_RULES: &[&str] = &["psu-inlet"];
/// The rules that judge the heat inside the case.
pub const CASE_HEAT_RULES: &[&str] = &["case-heat"];

/// A wall circuit's judgement (findings naming `PartRef::Circuit(index)`).
pub fn circuit(report: &Report, index: usize) -> Judged<'_> {
    judge(report, PartRef::Circuit(index), CIRCUIT_RULES)
}

/// The finding counts shown in the status bar, on the Checks tab's title and in its sections;
/// one function makes them, so they always agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Error problems.
    pub errors: usize,
    /// Warning problems.
    pub warnings: usize,
    /// Info problems (notes).
    pub notes: usize,
    /// "Not checked" findings: a rule that could not run for a part (a figure unknown).
    pub not_checked: usize,
}

impl Counts {
    /// The counts of `report` (its `errors`, `warnings`, `infos`; the rest of its findings are
    /// "not checked" ones).
    pub fn of(report: &Report) -> Self {
        let not_checked = report.findings.iter().filter(|f| f.kind == FindingKind::NotChecked).count();
        Counts { errors: report.errors, warnings: report.warnings, notes: report.infos, not_checked }
    }

    /// Problems found: errors, warnings and notes (what `kraftwerk check`'s headline counts, and
    /// the Checks tab's title).
    pub fn problems(&self) -> usize {
        self.errors + self.warnings + self.notes
    }

    /// `0 errors · 2 warnings · 0 notes`, as `kraftwerk check`'s headline counts them.
    pub fn problems_text(&self) -> String {
        format!(
            "{} · {} · {}",
            kraftwerk_core::fmt::count(self.errors, "error"),
            kraftwerk_core::fmt::count(self.warnings, "warning"),
            kraftwerk_core::fmt::count(self.notes, "note")
        )
    }

    /// The Checks tab's title: `Checks (2)`, the problems found.
    pub fn tab_title(&self) -> String {
        format!("Checks ({})", self.problems())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraftwerk_core::rig::{Build, PsuUse};

    /// One 1600 W PSU at full load on a 120 V / 15 A circuit: with an inference workload the
    /// circuit is within its continuous limit at inference load but over it at full load, which
    /// `wall-circuit` reports as a warning (the figure `kraftwerk power`'s advice names), so the
    /// circuit is orange with the finding that says so; on a 20 A circuit no finding names it
    /// and it is green.
    #[test]
    fn a_circuit_is_coloured_by_its_findings_only() {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron");
        let b = kraftwerk_core::rig::load(std::path::Path::new(path), Some(&cat)).expect("loads");
        let report = check::run(&b, &cat);
        let full = kraftwerk_core::estimate::power::estimate(
            &b.resolve(&cat),
            kraftwerk_core::estimate::power::LoadState::Training,
        );
        assert!(
            full.circuits[0].amps.expect("known") > full.circuits[0].continuous_a,
            "over the continuous limit at full load"
        );
        let j = circuit(&report, 0);
        assert_eq!(j.severity, Some(Severity::Warning), "{:?}", j.findings);
        assert!(j.ran);
        assert_eq!(j.color(), theme::WARNING);
        assert!(j.explanation().contains("at full load"), "{}", j.explanation());

        // On a 20 A circuit (16 A continuous) full load is within: no finding, green.
        let mut wide = b.clone();
        wide.site.circuit_a = 20.0;
        let report = check::run(&wide, &cat);
        let j = circuit(&report, 0);
        assert_eq!(j.severity, None, "{:?}", j.findings);
        assert!(j.ran);
        assert_eq!(j.color(), theme::OK);

        // The same build held for hours (no workload): the checker reports the circuit, and the
        // figure takes the finding's colour.
        let mut held = b.clone();
        held.workload = None;
        let report = check::run(&held, &cat);
        let j = circuit(&report, 0);
        let sev = report
            .findings
            .iter()
            .filter(|f| f.rule == "wall-circuit" && f.parts.contains(&PartRef::Circuit(0)))
            .map(|f| f.severity)
            .max();
        assert_eq!(j.severity, sev);
        assert_eq!(sev, Some(Severity::Error), "a training load over the continuous limit is an error");
        assert_eq!(j.color(), theme::ERROR);
        assert!(j.explanation().contains("[wall-circuit]"));

        // No PSU: the rule does not run, and the figure is neither red nor green.
        let none = Build { psus: Vec::<PsuUse>::new(), ..b };
        let report = check::run(&none, &cat);
        let j = circuit(&report, 0);
        assert!(!j.ran);
        assert_eq!(j.color(), theme::UNJUDGED);
    }

    #[test]
    fn the_counts_add_up_to_the_findings() {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron");
        let b = kraftwerk_core::rig::load(std::path::Path::new(path), Some(&cat)).expect("loads");
        let report = check::run(&b, &cat);
        let c = Counts::of(&report);
        assert_eq!(c.problems() + c.not_checked, report.findings.len());
        assert_eq!(c.tab_title(), format!("Checks ({})", report.errors + report.warnings + report.infos));
    }
}

//! The planner's reading of a check report: not-checked findings come from the checker's
//! structured data (`FindingKind::NotChecked` and the rule's `needs`), never from the wording
//! of a message.

use super::*;
use crate::check::{Finding, PartRef};
use crate::rig;

fn catalog() -> Catalog {
    kraftwerk_catalog::builtin().expect("built-in catalog")
}

/// The shipped dual-4090 desktop build, with its cards swapped for `gpu`.
fn desktop_with(c: &Catalog, gpu: &str) -> Build {
    let text = include_str!("../../../../catalog/builds/2x-rtx-4090-x870e.rig.ron");
    let mut b = rig::load_str("2x-rtx-4090-x870e.rig.ron", text, Some(c)).expect("shipped build loads");
    for g in &mut b.gpus {
        g.gpu = gpu.into();
    }
    b
}

/// The RTX PRO 6000 Max-Q has no published length: the case-fit rule reports it "not
/// checked" as an info-severity finding whose kind is `NotChecked`. The old reading (warnings
/// whose message says "unknown") let it through as a clean pass.
#[test]
fn an_info_not_checked_finding_on_a_gpu_rule_is_not_checked() {
    let c = catalog();
    let b = desktop_with(&c, "nvidia-rtx-pro-6000-blackwell-max-q");
    let report = check::run(&b, &c);
    let f: Vec<&Finding> = report.findings.iter().filter(|f| f.kind == FindingKind::NotChecked).collect();
    assert!(f.iter().any(|f| f.rule == "case-gpu-fit" && f.severity == Severity::Info), "{f:?}");
    let ev = judge(&b, &c);
    assert!(ev.not_checked.iter().any(|l| l.starts_with("case-gpu-fit:")), "{:?}", ev.not_checked);
    assert!(ev.unknown_parts.iter().any(|p| matches!(p, PartRef::Gpu(_))), "{:?}", ev.unknown_parts);
    assert!(ev.warnings.iter().all(|w| !w.starts_with("case-gpu-fit:")));
}

/// A warning problem whose text happens to say "unknown" is a warning, not a not-checked
/// figure; the old reading moved it to `not_checked` by its wording.
#[test]
fn a_warning_that_says_unknown_is_a_warning() {
    let c = catalog();
    let b = desktop_with(&c, "nvidia-geforce-rtx-4090");
    let mut report = check::run(&b, &c);
    report.findings.push(Finding {
        rule: "psu-transient",
        severity: Severity::Warning,
        kind: FindingKind::Problem,
        message: "excursion behaviour unknown for this PSU".into(),
        parts: vec![PartRef::Psu(0)],
        fix: String::new(),
    });
    let ev = from_report(&report, false);
    assert!(ev.warnings.iter().any(|w| w.contains("excursion behaviour unknown")), "{:?}", ev.warnings);
    assert!(ev.not_checked.iter().all(|w| !w.contains("excursion behaviour unknown")), "{:?}", ev.not_checked);
}

/// Rules that need the GPUs or PSUs bear on a plan's goal; the CPU cooler's do not.
#[test]
fn the_goal_depends_on_gpu_and_psu_rules() {
    for id in ["case-gpu-fit", "gpu-slot", "psu-connectors", "wall-circuit", "gpu-power-cable"] {
        assert!(goal_depends_on(id), "{id}");
    }
    for id in ["cooler-tdp", "cooler-clearance", "memory-capacity"] {
        assert!(!goal_depends_on(id), "{id}");
    }
}

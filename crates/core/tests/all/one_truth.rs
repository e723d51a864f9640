//! One figure per fact across the faces (issue 39, item 3): every reference build's electricity
//! per month is the same in `check`/`power` (the report's power estimate, which the Power tab
//! shows) and in the fit's cost, and its hardware total is the parts list's (`prices`,
//! `compare`, the Parts tab), its unpriced parts (bridges and risers included) the list's.

use crate::support;
use kraftwerk_core::check;
use kraftwerk_core::estimate::fit::{self, FitOptions};
use kraftwerk_core::rig::parts_list::PartsList;

#[test]
fn electricity_and_hardware_are_one_figure_in_check_fit_and_prices() {
    let c = support::catalog();
    let mut compared = 0;
    let mut extras = 0;
    for path in support::reference_build_paths() {
        let b = kraftwerk_core::rig::load(&path, Some(&c)).expect("reference build loads");
        let Ok(f) = fit::for_build(&b, &c, &FitOptions::default()) else { continue };
        let Some(cost) = f.cost else { continue };
        let report = check::run(&b, &c);
        let month = report.power.cost.as_ref().expect("a fit cost has a known wall draw").per_month_usd;
        assert!(
            (month - cost.energy_usd_per_month).abs() < 0.01,
            "{}: check/power say ${month:.2}/month, the fit's cost ${:.2}",
            path.display(),
            cost.energy_usd_per_month
        );
        let list = PartsList::of(&b, &c);
        assert!(
            (list.total_usd - cost.hardware_usd).abs() < 0.01,
            "{}: prices ${:.2}, fit ${:.2}",
            path.display(),
            list.total_usd,
            cost.hardware_usd
        );
        // The unpriced parts too: the fit names each unpriced line of the list, bridges and
        // risers (no catalog entry, so no id: their name) included, and says "at least" (not
        // complete) exactly when the list does.
        let mut unpriced: Vec<String> = list
            .rows
            .iter()
            .filter(|r| r.line_usd.is_none())
            .map(|r| if r.line.id.is_empty() { r.line.name.clone() } else { r.line.id.clone() })
            .collect();
        unpriced.sort();
        unpriced.dedup();
        let mut missing = cost.missing_prices.clone();
        missing.sort();
        assert_eq!(missing, unpriced, "{}: the fit's unpriced parts against the list's", path.display());
        assert_eq!(cost.hardware_complete, list.unpriced_lines == 0, "{}", path.display());
        if list.rows.iter().any(|r| r.kind.is_none()) {
            extras += 1;
        }
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} reference builds have a cost");
    assert!(extras >= 1, "a reference build with an NVLink bridge or riser has a cost");
}

/// A circuit that the power-limit advice (`kraftwerk power`, `check`'s advice block) names over
/// its continuous limit at full load is a `wall-circuit` finding of `check` too, on every
/// reference build and in every workload mode: the Puget build drew 13.9 A at full load on a
/// 15 A circuit (12 A continuous), named by `power`, while `check` judged only its 8.4 A at
/// inference load and said nothing (a new-user trial).
#[test]
fn a_circuit_the_advice_names_is_a_check_finding() {
    use kraftwerk_core::check::{FindingKind, PartRef, Severity};
    use kraftwerk_core::estimate::power::{self, LoadState};
    let c = support::catalog();
    let mut named = 0;
    for path in support::reference_build_paths() {
        let b = kraftwerk_core::rig::load(&path, Some(&c)).expect("reference build loads");
        let report = check::run(&b, &c);
        let full = power::estimate(&b.resolve(&c), LoadState::Training);
        for ci in &full.circuits {
            let Some(amps) = ci.amps else { continue };
            if amps <= ci.continuous_a {
                continue;
            }
            named += 1;
            let advice = report.advice.as_ref().expect("the advice names a circuit over its continuous limit");
            assert!(advice.problem.contains(&format!("circuit {}", ci.index + 1)), "{}", advice.problem);
            let f = report
                .findings
                .iter()
                .find(|f| {
                    f.rule == "wall-circuit"
                        && f.kind == FindingKind::Problem
                        && f.severity >= Severity::Warning
                        && f.parts.contains(&PartRef::Circuit(ci.index))
                })
                .unwrap_or_else(|| {
                    let (name, n, cont) = (path.display(), ci.index + 1, ci.continuous_a);
                    panic!("{name}: circuit {n} at {amps:.1} A of {cont:.1} A continuous at full load, no finding")
                });
            // The finding says which load its figure is.
            assert!(
                f.message.contains(&format!("at {} load", report.power.state.name()))
                    || f.message.contains("at full load"),
                "{}",
                f.message
            );
        }
    }
    assert!(named >= 1, "a reference build over its circuit's continuous limit at full load (the Puget build)");
}

/// `check`'s psu-capacity fix leads with the power-limit advice's figures (the same common cap,
/// the same PSU size, both at the 80 % headroom guideline, said so), and names the within-rating
/// cap and size as the highest that clear the error: on 2x RTX 3090 on 1000 W the fix said
/// "340 W ... at least 1050 W" and the advice "240 W ... at least 1300 W" (a new-user trial).
#[test]
fn the_psu_fix_and_the_advice_name_the_same_cap_and_size() {
    use kraftwerk_core::check::Severity;
    let cat = support::catalog();
    let path = support::fixture("rules/psu-capacity/fail-error-2x3090-on-1000w-fix-as-advice.rig.ron");
    let b = kraftwerk_core::rig::load(&path, Some(&cat)).expect("fixture loads");
    let report = check::run(&b, &cat);
    let f = report
        .findings
        .iter()
        .find(|f| f.rule == "psu-capacity" && f.severity == Severity::Error)
        .expect("a psu-capacity error");
    let advice = report.advice.as_ref().expect("advice");
    let cap = advice.common_limit_w.expect("a common cap");
    assert!(f.fix.starts_with(&format!("Cap every GPU at {cap:.0} W")), "advice {cap} W; fix: {}", f.fix);
    assert!(f.fix.contains("within the 80 % headroom guideline"), "{}", f.fix);
    assert!(f.fix.contains("the highest cap that clears this error is "), "{}", f.fix);
    assert!(f.fix.contains("at 100 % of its rating, no headroom"), "{}", f.fix);
    // The PSU size: the advice's figure, with the same basis.
    let size = advice
        .alternatives
        .iter()
        .find_map(|s| s.strip_prefix("PSU 1: at least "))
        .and_then(|s| s.split(' ').next())
        .expect("the advice's PSU size");
    assert!(f.fix.contains(&format!("a PSU of at least {size} W")), "advice {size} W; fix: {}", f.fix);
    assert!(
        advice.alternatives.iter().any(|s| s.contains("within the 80 % headroom guideline")),
        "{:?}",
        advice.alternatives
    );
    // Every reference build: a PSU finding's size is the advice's.
    for path in support::reference_build_paths() {
        let b = kraftwerk_core::rig::load(&path, Some(&cat)).expect("reference build loads");
        let report = check::run(&b, &cat);
        for f in report.findings.iter().filter(|f| f.rule == "psu-capacity" && f.severity >= Severity::Warning) {
            let advice = report.advice.as_ref().expect("a PSU over its guideline has advice");
            let Some(kraftwerk_core::check::PartRef::Psu(i)) = f.parts.first() else {
                panic!("a psu-capacity finding names its PSU: {:?}", f.parts)
            };
            let prefix = format!("PSU {}: at least ", i + 1);
            let size = advice
                .alternatives
                .iter()
                .find_map(|s| s.strip_prefix(prefix.as_str()))
                .and_then(|s| s.split(' ').next())
                .expect("the advice's PSU size");
            assert!(f.fix.contains(&format!("a PSU of at least {size} W")), "{}: {}", path.display(), f.fix);
        }
    }
}

/// The advice's capped figures are full load, set beside the build's own full-load figures,
/// never beside the inference-load total the report prints above them: on the 4x RTX 4090 open
/// frame "cap every GPU at 405 W ... then: 2082 W DC, 2250 W at the wall" read as more than the
/// 1501 W at the wall above (inference load), as if capping raised the draw (a new-user trial).
#[test]
fn the_advice_compares_full_load_with_full_load() {
    use kraftwerk_core::estimate::power::{self, LoadState};
    let c = support::catalog();
    let path = support::reference_build("4x-rtx-4090-threadripper-open-frame.rig.ron");
    let b = kraftwerk_core::rig::load(&path, Some(&c)).expect("reference build loads");
    let report = check::run(&b, &c);
    assert_eq!(report.power.state, LoadState::Inference);
    let a = report.advice.as_ref().expect("advice");
    let full = power::estimate(&b.resolve(&c), LoadState::Training);
    assert!((a.full_load_dc_w - full.total_dc_w).abs() < 1e-9);
    let (Some(wall_w), Some(full_wall_w)) = (a.full_load_wall_w, full.total_wall_w) else {
        panic!("the wall draw is known: {:?} / {:?}", a.full_load_wall_w, full.total_wall_w)
    };
    assert!((wall_w - full_wall_w).abs() < 1e-9);
    let at = a.at_limit.as_ref().expect("an estimate at the cap");
    assert!(at.total_dc_w < a.full_load_dc_w, "the cap lowers full load");
    let text = kraftwerk_core::report::report_text(&report);
    let line = kraftwerk_core::report::capped_full_load(a, at);
    assert!(line.starts_with("full load then: "), "{line}");
    assert!(line.contains(&format!("(now {:.0} W DC", full.total_dc_w)), "{line}");
    assert!(text.contains(&line), "{text}");
    assert!(text.contains("Power-limit advice, at full load (every GPU at its power limit): "), "{text}");
    assert!(!text.contains("\n  then: "), "{text}");
}

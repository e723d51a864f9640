//! Every rule has docs and at least one passing and one failing fixture build under
//! `tests/fixtures/rules/<rule-id>/`:
//! - `pass*.rig.ron`: the build has no finding of that rule at warning or error severity;
//! - `fail-<severity>*.rig.ron` (`fail-error`, `fail-warning`, `fail-info`): the build has a
//!   finding of that rule at exactly that severity;
//! - `not-checked*.rig.ron`: the build has a `not_checked` finding of that rule (a figure the
//!   rule needs is unknown for one of its parts). Every rule that declares a figure need
//!   (`Need::Figure`) must have one.
//!
//! If the build's `notes` contain `expect: TEXT`, the finding's message must contain TEXT; with
//! `expect-fix: TEXT` on a line of its own, its fix must contain TEXT as well (for `fail-*` and
//! `not-checked*` fixtures).
//! Every folder under `tests/fixtures/rules/` must be a rule id, and every rule needs a folder.

use kraftwerk_catalog as catalog;
use kraftwerk_core::check::{self, FindingKind, Need, RULES, Severity};
use kraftwerk_core::rig;

fn fixtures_dir() -> std::path::PathBuf {
    crate::support::fixture("rules")
}

#[test]
fn every_rule_is_documented() {
    let mut ids = std::collections::BTreeSet::new();
    for r in RULES {
        let d = &r.doc;
        assert!(ids.insert(d.id), "duplicate rule id {}", d.id);
        assert!(d.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", d.id);
        for (what, text) in [("title", d.title), ("checks", d.checks), ("why", d.why), ("fix", d.fix)] {
            assert!(text.len() >= 10, "rule {} lacks `{what}` docs", d.id);
        }
    }
}

#[test]
fn every_rule_has_passing_and_failing_fixtures() {
    let catalog = catalog::builtin().expect("catalog");
    let mut failures = Vec::new();
    for r in RULES {
        let id = r.doc.id;
        let dir = fixtures_dir().join(id);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            failures.push(format!("{id}: no fixture folder {}", dir.display()));
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        files.sort();
        let (mut pass, mut fail, mut not_checked) = (0, 0, 0);
        for path in files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if !name.ends_with(".rig.ron") {
                continue;
            }
            let b = match rig::load(&path, Some(&catalog)) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{id}/{name}: does not load: {e}"));
                    continue;
                }
            };
            let report = check::run(&b, &catalog);
            let mine: Vec<_> = report.findings.iter().filter(|f| f.rule == id).collect();
            let expect = b
                .notes
                .as_deref()
                .and_then(|n| n.split("expect: ").nth(1))
                .map(|s| s.lines().next().unwrap_or("").trim().to_owned());
            let expect_fix = b
                .notes
                .as_deref()
                .and_then(|n| n.split("expect-fix: ").nth(1))
                .map(|s| s.lines().next().unwrap_or("").trim().to_owned());
            if name.starts_with("not-checked") {
                not_checked += 1;
                let hit = mine.iter().any(|f| {
                    f.kind == FindingKind::NotChecked
                        && expect.as_ref().is_none_or(|t| f.message.contains(t.as_str()))
                        && expect_fix.as_ref().is_none_or(|t| f.fix.contains(t.as_str()))
                });
                let listed = report.coverage.not_checked.iter().any(|r| r.rule == id);
                if !hit || !listed {
                    failures.push(format!(
                        "{id}/{name}: expected a not-checked finding{} and the rule in coverage.not_checked; got {:?}",
                        expect.map(|t| format!(" containing `{t}`")).unwrap_or_default(),
                        mine.iter().map(|f| format!("{:?} {}: {}", f.kind, f.severity, f.message)).collect::<Vec<_>>()
                    ));
                }
            } else if name.starts_with("pass") {
                pass += 1;
                let bad: Vec<_> =
                    mine.iter().filter(|f| f.kind == FindingKind::Problem && f.severity >= Severity::Warning).collect();
                if !bad.is_empty() {
                    failures.push(format!(
                        "{id}/{name}: expected no {id} warning/error, got {:?}",
                        bad.iter().map(|f| &f.message).collect::<Vec<_>>()
                    ));
                }
            } else if let Some(rest) = name.strip_prefix("fail-") {
                fail += 1;
                let sev = if rest.starts_with("error") {
                    Severity::Error
                } else if rest.starts_with("warning") {
                    Severity::Warning
                } else {
                    Severity::Info
                };
                let hit = mine.iter().any(|f| {
                    f.kind == FindingKind::Problem
                        && f.severity == sev
                        && expect.as_ref().is_none_or(|t| f.message.contains(t.as_str()))
                        && expect_fix.as_ref().is_none_or(|t| f.fix.contains(t.as_str()))
                });
                if !hit {
                    failures.push(format!(
                        "{id}/{name}: expected a {id} {sev} finding{}; got {:?}",
                        expect.map(|t| format!(" containing `{t}`")).unwrap_or_default(),
                        mine.iter().map(|f| format!("{}: {}", f.severity, f.message)).collect::<Vec<_>>()
                    ));
                }
            }
        }
        if pass == 0 || fail == 0 {
            failures.push(format!("{id}: needs at least one pass and one fail fixture (has {pass} pass, {fail} fail)"));
        }
        if not_checked == 0 && r.needs.iter().any(|n| matches!(n, Need::Figure(_))) {
            failures.push(format!("{id}: needs a figure that can be unknown, so it needs a not-checked fixture"));
        }
    }
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_fixture_folder_is_a_rule_and_every_rule_has_a_folder() {
    let mut folders = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(fixtures_dir()).expect("fixtures dir").filter_map(Result::ok) {
        if e.path().is_dir() {
            folders.insert(e.file_name().to_string_lossy().into_owned());
        }
    }
    let rules: std::collections::BTreeSet<String> = RULES.iter().map(|r| r.doc.id.to_owned()).collect();
    let orphans: Vec<_> = folders.difference(&rules).collect();
    let bare: Vec<_> = rules.difference(&folders).collect();
    assert!(orphans.is_empty(), "fixture folders that are no rule: {orphans:?}");
    assert!(bare.is_empty(), "rules without a fixture folder: {bare:?}");
}

#[test]
fn coverage_counts_every_rule_once() {
    let catalog = catalog::builtin().expect("catalog");
    for name in ["2x-rtx-4090-x870e.rig.ron", "h200-sxm-1gpu.rig.ron"] {
        let path = crate::support::reference_build(name);
        let b = rig::load(&path, Some(&catalog)).expect("loads");
        let r = check::run(&b, &catalog);
        let c = &r.coverage;
        assert_eq!(c.total, RULES.len());
        assert_eq!(c.ran + c.not_checked.len(), c.total, "{name}");
    }
}

#[test]
fn an_empty_build_is_empty_and_a_build_without_psu_is_incomplete() {
    let catalog = catalog::builtin().expect("catalog");
    let empty = rig::Build::default();
    let r = check::run(&empty, &catalog);
    assert_eq!(r.verdict, check::Verdict::Empty);
    assert_eq!(r.coverage.ran + r.coverage.not_checked.len(), RULES.len());
    let path = fixtures_dir().join("missing-parts/fail-info-no-case-no-psu.rig.ron");
    let b = rig::load(&path, Some(&catalog)).expect("loads");
    let r = check::run(&b, &catalog);
    assert_eq!(r.verdict, check::Verdict::Incomplete, "{:?}", r.findings);
    assert!(r.coverage.missing_parts.contains(&kraftwerk_catalog::PartKind::Psu));
    assert!(r.coverage.not_checked.iter().any(|c| c.rule == "psu-capacity"));
}

/// The slot rules on an imported board (slot counts, no positions) report "not checked" and
/// assume no layout: none of them raises a problem there, though the same placements on a
/// board with a layout would (two 3-slot cards at positions 1 and 2, for example).
#[test]
fn slot_rules_assume_no_layout_on_imported_boards() {
    let catalog = catalog::builtin().expect("catalog");
    let mut seen = 0;
    for r in RULES {
        let path = fixtures_dir().join(r.doc.id).join("not-checked-imported-board-no-layout.rig.ron");
        if !path.exists() {
            continue;
        }
        seen += 1;
        let b = rig::load(&path, Some(&catalog)).expect("fixture loads");
        let board = catalog.motherboard(b.motherboard.as_deref().expect("board")).expect("imported board in catalog");
        assert!(!board.slot_layout_known(), "{}: board {} has a layout", r.doc.id, board.id);
        let report = check::run(&b, &catalog);
        let problems: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.rule == r.doc.id && f.kind == FindingKind::Problem)
            // The platform's bound on an unknown layout assumes none: it says what the CPU's
            // lanes allow at best (unknown_wiring_on_a_desktop_platform_is_bounded_by_its_cpu_lanes).
            .filter(|f| !f.message.contains("slot wiring is not in the catalog"))
            .map(|f| f.message.clone())
            .collect();
        assert!(problems.is_empty(), "{}: assumed a layout: {problems:?}", r.doc.id);
    }
    assert!(seen >= 7, "expected the slot rules' imported-board fixtures, found {seen}");
}

/// Issue 27: a verdict is never PASS while a rule that could report an error for this build
/// did not run. Two cards on the reference ProArt X870E build (curated slot layout) get a
/// verdict from every slot rule; the same board with its layout taken away (as OpenDB imports
/// it: a slot summary, no positions) is UNVERIFIED, names `pcie_slots` first among the figures
/// to supply, and the CLI exits 3. One card on a board whose summary lists an x16-size slot
/// is not held up by the unknown layout (nothing an error could come from).
#[test]
fn two_gpus_on_a_board_with_unknown_slots_are_unverified_and_say_what_to_supply() {
    use kraftwerk_catalog::{Motherboard, SlotCount};
    use kraftwerk_core::check::Verdict;
    let catalog = catalog::builtin().expect("catalog");
    let path = crate::support::reference_build("2x-rtx-4090-x870e.rig.ron");
    let b = rig::load(&path, Some(&catalog)).expect("loads");
    let known = check::run(&b, &catalog);
    // Its curated wiring has no slot positions (no source gives them; they were assumed until
    // issue 27): the wiring rules run, the geometry rules wait, and the verdict says so.
    for id in ["gpu-slot", "pcie-lane-budget"] {
        assert!(!known.coverage.unverified.contains(&id), "{id}: {:?}", known.coverage.unverified);
    }
    for id in ["gpu-slot-blocked", "case-gpu-fit"] {
        assert!(known.coverage.unverified.contains(&id), "{id}: {:?}", known.coverage.unverified);
    }
    assert_eq!(known.verdict, Verdict::Unverified);
    let first = &known.coverage.to_supply()[0];
    assert_eq!((first.figure, first.part_id.as_str()), ("pcie_slots.position", "asus-proart-x870e-creator-wifi"));
    // With the positions supplied (a user's copy of the board, as the slot-layout editor saves
    // it) no slot rule waits: the build can pass once its other figures are known.
    let mut supplied = b.clone();
    let mut positioned = catalog.motherboard("asus-proart-x870e-creator-wifi").expect("board").clone();
    for (s, p) in positioned.pcie_slots.iter_mut().zip([1, 4, 7]) {
        s.position = Some(p);
    }
    supplied.parts.motherboards = vec![positioned];
    let with = check::run(&supplied, &catalog);
    for id in ["gpu-slot", "gpu-slot-blocked", "case-gpu-fit", "pcie-lane-budget"] {
        assert!(!with.coverage.unverified.contains(&id), "{id}: {:?}", with.coverage.unverified);
    }

    // The same board as an import would have it: slot counts, no slot list.
    let board_id = b.motherboard.clone().expect("board");
    let mut board: Motherboard = catalog.motherboard(&board_id).expect("board").clone();
    board.slot_summary = vec![SlotCount { quantity: 2, lanes: 16, pcie_gen: Some(5) }];
    board.pcie_slots.clear();
    let mut unknown = b.clone();
    unknown.parts.motherboards = vec![board];
    let r = check::run(&unknown, &catalog);
    let text = kraftwerk_core::report::report_text(&r);
    assert_eq!(r.verdict, Verdict::Unverified, "{text}");
    assert_eq!(r.errors, 0, "{text}");
    for id in ["gpu-slot", "gpu-slot-blocked"] {
        assert!(r.coverage.unverified.contains(&id), "{id} blocks PASS: {:?}", r.coverage.unverified);
    }
    assert!(!r.coverage.unverified.contains(&"pcie-link"), "a warning-only rule never blocks PASS");
    let supply = r.coverage.to_supply();
    assert_eq!(supply[0].figure, "pcie_slots", "{supply:?}");
    assert_eq!(supply[0].part_id, board_id);
    assert!(supply[0].rules.len() >= 2, "{supply:?}");
    assert!(text.contains(": UNVERIFIED"), "{text}");
    assert!(text.contains("Not a pass:") && text.contains("`pcie_slots` of"), "{text}");

    // One card on that board: the card goes in an x16-size slot; no error-capable rule waits.
    let mut one = unknown.clone();
    one.gpus.truncate(1);
    one.nvlink.clear();
    let r1 = check::run(&one, &catalog);
    for id in ["gpu-slot", "gpu-slot-blocked", "case-gpu-fit", "pcie-lane-budget"] {
        assert!(!r1.coverage.unverified.contains(&id), "{id}: {}", kraftwerk_core::report::report_text(&r1));
    }
    assert!(r1.coverage.not_checked.iter().any(|c| c.rule == "gpu-slot"), "still reported as not checked");
}

/// Issue 25: where a board's wiring is unknown the platform bounds what N GPUs get: on AM5
/// (the reference ProArt X870E build with its layout taken away) the CPU gives the graphics
/// slots 16 lanes, so two GPUs get x8 each only if the board splits them, and a third can only
/// be on chipset lanes behind the PCIe 4.0 x4 uplink. A warning says so, with what resolves it.
#[test]
fn unknown_wiring_on_a_desktop_platform_is_bounded_by_its_cpu_lanes() {
    use kraftwerk_catalog::{Motherboard, SlotCount};
    let catalog = catalog::builtin().expect("catalog");
    let path = crate::support::reference_build("2x-rtx-4090-x870e.rig.ron");
    let mut b = rig::load(&path, Some(&catalog)).expect("loads");
    let known = check::run(&b, &catalog);
    let bound = |r: &check::Report| -> Vec<String> {
        r.findings
            .iter()
            .filter(|f| f.rule == "pcie-lane-budget" && f.message.contains("slot wiring is not in the catalog"))
            .map(|f| f.message.clone())
            .collect()
    };
    assert!(bound(&known).is_empty(), "a known layout needs no bound");
    let board_id = b.motherboard.clone().expect("board");
    let mut board: Motherboard = catalog.motherboard(&board_id).expect("board").clone();
    board.slot_summary = vec![SlotCount { quantity: 3, lanes: 16, pcie_gen: Some(5) }];
    board.pcie_slots.clear();
    b.parts.motherboards = vec![board];
    let two = bound(&check::run(&b, &catalog));
    assert_eq!(two.len(), 1, "{two:?}");
    assert!(two[0].contains("AM5") && two[0].contains("16 lanes") && two[0].contains("x8/x8"), "{}", two[0]);
    assert!(!two[0].contains("chipset's"), "two GPUs: no third-card clause: {}", two[0]);
    let third = b.gpus[1].clone();
    b.gpus.push(third);
    let r = check::run(&b, &catalog);
    let three = bound(&r);
    assert_eq!(three.len(), 1, "{three:?}");
    assert!(three[0].contains("GPU 3 can only be on chipset lanes"), "{}", three[0]);
    assert!(three[0].contains("PCIe 4.0 x4 uplink"), "{}", three[0]);
    let f = r.findings.iter().find(|f| f.message == three[0]).expect("finding");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.fix.contains("pcie_slots"), "{}", f.fix);
}

/// A cooler without a TDP figure whose maker publishes a verdict for the build's CPU (as
/// Noctua does instead of a TDP) is checked by `cooler-tdp`: the verdict decides, and the rule
/// is not listed as not checked. The same cooler without the verdict leaves the rule not
/// checked. (Issue 37; the fixtures are `tests/fixtures/rules/cooler-tdp/*maker*`.)
#[test]
fn a_makers_per_cpu_verdict_stands_in_for_a_missing_cooler_tdp() {
    let catalog = catalog::builtin().expect("catalog");
    let dir = fixtures_dir().join("cooler-tdp");
    let ran = |b: &rig::Build| {
        let r = check::run(b, &catalog);
        let skipped = r.coverage.not_checked.iter().any(|n| n.rule == "cooler-tdp");
        let warned = r
            .findings
            .iter()
            .any(|f| f.rule == "cooler-tdp" && f.kind == FindingKind::Problem && f.severity == Severity::Warning);
        (skipped, warned)
    };
    let bad =
        rig::load(&dir.join("fail-warning-maker-does-not-recommend-9950x.rig.ron"), Some(&catalog)).expect("loads");
    assert_eq!(ran(&bad), (false, true), "a 'not recommended' verdict is a warning, and the rule ran");
    let good = rig::load(&dir.join("pass-maker-rates-9950x-high-headroom.rig.ron"), Some(&catalog)).expect("loads");
    assert_eq!(ran(&good), (false, false), "a suitable verdict passes, and the rule ran");
    // Without the verdict the rule has nothing to decide with.
    let mut bare = good.clone();
    for c in &mut bare.parts.coolers {
        c.cpu_verdicts.clear();
    }
    let r = check::run(&bare, &catalog);
    assert!(r.coverage.not_checked.iter().any(|n| n.rule == "cooler-tdp"), "no verdict, no TDP: not checked");
}

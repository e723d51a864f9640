//! Geometry on a board whose slot positions are known only up to direction.
//!
//! A board with as many slots as its form factor has expansion positions has every position
//! filled, so its slots' spacing is forced by the count; which end position 1 is (nearest the
//! CPU or farthest from it) is not, unless a source says so
//! ([`SlotOrder::EitherEnd`](kraftwerk_catalog::SlotOrder::EitherEnd)). The geometry rules read
//! one direction: a card covers the positions below it (away from the CPU), the lowest card
//! needs case openings below the board, an open-air card breathes towards the next card below.
//! With cards of different thickness in neighbouring slots, which card blocks which slot can
//! depend on the direction. So [`super::run`] runs each of [`GEOMETRY_RULES`] on the listed
//! layout and on the reversed one ([`Motherboard::reversed_positions`]) and keeps a verdict
//! only where both agree ([`reconcile`]). Links and lanes do not depend on where a slot sits.

use super::{Finding, FindingKind, PartRef, Rule, Severity};
use crate::rig::{Build, Resolved};
use kraftwerk_catalog::Motherboard;

/// The rules that read slot positions, judged under both directions: card thickness against
/// the slots below, case openings, the open-air gap and the NVLink bridge spacing.
pub(crate) const GEOMETRY_RULES: [&str; 4] = ["gpu-slot-blocked", "case-gpu-fit", "open-air-gap", "nvlink-spacing"];

/// The field that settles the direction: positions a source states are `Stated`.
pub(crate) const DIRECTION_FIGURE: &str = "slot_order";

/// The build's board with its numbering reversed, and the build with every GPU placed by
/// position moved to the same slot's reversed position (a GPU placed by slot name follows the
/// name). `None` unless the board's positions are known up to direction only.
pub(crate) struct Reversed {
    /// The board, positions `p` → `n + 1 - p`.
    pub board: Motherboard,
    /// The build, placements by position mirrored likewise.
    pub build: Build,
}

/// [`Reversed`] for the resolved build `r`, if its board's direction is unknown.
pub(crate) fn reversed(r: &Resolved<'_>) -> Option<Reversed> {
    let board = r.board?.reversed_positions()?;
    let n = board.pcie_slots.iter().filter_map(|s| s.position).max()?;
    let mut build = r.build.clone();
    for g in &mut build.gpus {
        if g.slot_name.is_none() {
            // A position off the board stays as written (`gpu-slot` reports it either way).
            g.slot = g.slot.map(|p| if p >= 1 && p <= n { n - p + 1 } else { p });
        }
    }
    Some(Reversed { board, build })
}

/// The resolved build for the reversed layout: `r` with `rev`'s build and board.
pub(crate) fn resolve_reversed<'a>(r: &Resolved<'a>, rev: &'a Reversed) -> Resolved<'a> {
    Resolved { build: &rev.build, board: Some(&rev.board), ..r.clone() }
}

/// What identifies "the same problem" in both directions: severity, the parts concerned with
/// slots left out, and the message with its numbers left out (the same slot has a different
/// position in each direction; a case-openings error and a length error of one card differ in
/// words).
fn key(f: &Finding) -> (Severity, Vec<PartRef>, String) {
    let mut parts: Vec<PartRef> = f.parts.iter().copied().filter(|p| !matches!(p, PartRef::Slot(_))).collect();
    parts.sort_unstable();
    parts.dedup();
    (f.severity, parts, f.message.chars().filter(|c| !c.is_ascii_digit()).collect())
}

/// Joins `rule`'s findings on the listed layout (`listed`) and on the reversed one
/// (`reversed`) into `out`, and returns whether the rule is undecided (the two disagree).
///
/// - A problem found both ways (same severity, same cards) is kept, in the listed layout's
///   words, with a note that it holds either way.
/// - Both directions clean: nothing to report (the caller records that the rule held either
///   way).
/// - Both directions find problems of the same worst severity (an error, or a warning) but
///   about different cards: the rule's verdict holds either way, so one finding of that
///   severity says what each direction finds.
/// - Otherwise the verdict depends on the direction: a `not_checked` finding names the unknown
///   (which end position 1 is), what each direction finds, and what settles it; returns `true`.
pub(crate) fn reconcile(
    rule: &'static Rule,
    board: &Motherboard,
    listed: Vec<Finding>,
    reversed: &[Finding],
    out: &mut Vec<Finding>,
) -> bool {
    let both = " (this holds whichever end of the slot edge the positions are counted from)";
    // Each reversed finding matches at most one listed finding.
    let mut unmatched: Vec<Option<&Finding>> = reversed.iter().map(Some).collect();
    let mut only_listed = Vec::new();
    for mut f in listed {
        let k = key(&f);
        if let Some(slot) = unmatched.iter_mut().find(|r| r.is_some_and(|r| key(r) == k)) {
            *slot = None;
            f.message.push_str(both);
            out.push(f);
        } else {
            only_listed.push(f);
        }
    }
    let only_reversed: Vec<&Finding> = unmatched.into_iter().flatten().collect();
    if only_listed.is_empty() && only_reversed.is_empty() {
        return false;
    }
    let words = |fs: &[&Finding]| -> String {
        if fs.is_empty() {
            "no problem".to_owned()
        } else {
            fs.iter().map(|f| format!("{} ({})", f.message, f.severity)).collect::<Vec<_>>().join("; ")
        }
    };
    let only_listed: Vec<&Finding> = only_listed.iter().collect();
    let listed_words = words(&only_listed);
    let reversed_words = words(&only_reversed);
    let first = board.pcie_slots.iter().find(|s| s.position == Some(1)).map_or("position 1", |s| s.name.as_str());
    // The rule's verdict is its worst finding: the same worst severity both ways (an error, or
    // a warning, about different cards) is a verdict both directions agree on.
    let worst = |fs: &[&Finding]| fs.iter().map(|f| f.severity).max();
    let either_way = worst(&only_listed).filter(|s| *s > Severity::Info && Some(*s) == worst(&only_reversed));
    if let Some(severity) = either_way {
        let mut parts: Vec<PartRef> = only_listed.iter().chain(&only_reversed).flat_map(|f| key(f).1).collect();
        parts.sort_unstable();
        parts.dedup();
        let (verb, fix) = if severity == Severity::Error {
            (
                "fails",
                "Space the cards so that neither direction of the slot numbering puts one card over another's slot or past the case's openings (or use risers), or enter the positions from the board manual's layout figure.",
            )
        } else {
            (
                "warns",
                "Leave a free slot below each open-air card in both directions of the slot numbering (or use blower cards or risers), or enter the positions from the board manual's layout figure.",
            )
        };
        out.push(super::finding(
            rule,
            severity,
            format!(
                "{} numbers its slots from an end no source names, and this {verb} either way: with {first} nearest the CPU, {listed_words}; with {first} farthest from the CPU (positions reversed), {reversed_words}",
                board.name
            ),
            parts,
            fix,
        ));
        return false;
    }
    out.push(Finding {
        rule: rule.doc.id,
        severity: Severity::Info,
        kind: FindingKind::NotChecked,
        message: format!(
            "not checked: the verdict depends on which end of {}'s slot edge {first} is, and no source says (its positions are forced by its slot count, `slot_order: EitherEnd`): with {first} nearest the CPU, {listed_words}; with {first} farthest from the CPU, {reversed_words}",
            board.name
        ),
        // The unknown figure is the board's (as for every not-checked finding, the part named
        // is the one whose figure is missing): the cards and the case are not in doubt, and the
        // planner takes the parts named here as parts not to try again.
        parts: vec![PartRef::Motherboard],
        fix: format!(
            "Settle the slot numbering direction: the board manual's layout figure (or a photo of the board) shows whether {first} is the slot nearest the CPU socket. Then copy part `{}` into the build's `parts: (motherboards: [...])`, give each slot its `position` counted from the CPU (1 = nearest) and drop `slot_order: EitherEnd`; or place the cards so that both directions agree.",
            board.id
        ),
    });
    true
}

/// Records in the coverage that `rule` was undecided for the board `board` (the direction is
/// the unknown figure): the rule is "not checked" and, if it can report an error, keeps the
/// build from PASS.
pub(crate) fn mark_undecided(cov: &mut super::Coverage, rule: &'static Rule, board: &Motherboard) {
    let u = super::UnknownFigure {
        part: PartRef::Motherboard,
        part_name: board.name.clone(),
        part_id: board.id.clone(),
        figure: DIRECTION_FIGURE,
    };
    if let Some(rc) = cov.not_checked.iter_mut().find(|rc| rc.rule == rule.doc.id) {
        rc.unknown.push(u);
    } else {
        cov.ran = cov.ran.saturating_sub(1);
        cov.not_checked.push(super::RuleCoverage { rule: rule.doc.id, missing_parts: Vec::new(), unknown: vec![u] });
    }
    if rule.doc.severity == Severity::Error && !cov.unverified.contains(&rule.doc.id) {
        cov.unverified.push(rule.doc.id);
    }
}

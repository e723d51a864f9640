//! The `case-gpu-fit` rule: each card's length against the case, the lowest card's thickness
//! against the case's openings, and the in-case cards' thickness together against them.

use super::slot_positions_unknown;
use crate::check::coverage::{Figure, Need};
use crate::check::{Ctx, Finding, PartRef, Rule, RuleDoc, Severity, finding};
use kraftwerk_catalog::{GpuFormFactor, PartKind};

/// Rule: GPUs fit the case (id and docs in `doc`).
pub(crate) static CASE_GPU_FIT: Rule = Rule {
    doc: RuleDoc {
        id: "case-gpu-fit",
        family: "pcie",
        severity: Severity::Error,
        title: "GPUs fit the case",
        checks: "That each card's length is within the case's maximum GPU length; that the lowest card's thickness stays within the case's expansion-slot openings; and, wherever the cards sit (also on a board whose slot positions are unknown), that the cards in the case (not on risers, not in an open frame) are not thicker together than the case's openings.",
        why: "A card longer than the case hits the drive cage or front fans; a 3-slot card in the board's last slot needs case openings below the board, and four 3-slot cards need at least 12 openings however they are placed (case spec pages).",
        fix: "Choose a larger case, a shorter or thinner card, move the lowest card up, or put the cards on risers in an open frame.",
    },
    needs: &[
        Need::Part(PartKind::Case),
        Need::Part(PartKind::Gpu),
        Need::Figure(Figure::GpuLength),
        Need::Figure(Figure::CaseMaxGpuLength),
        Need::Figure(Figure::BoardSlotLayout),
        Need::Figure(Figure::BoardSlotPositions),
        Need::Figure(Figure::GpuCardUnnamed),
    ],
    figures: None,
    check: |c, out| {
        let Some(case) = c.r.case else { return };
        let mut past_openings = false;
        for (i, (p, g)) in c.build().gpus.iter().zip(&c.r.gpus).enumerate() {
            let Some(g) = g else { continue };
            // An owned card named by its chip: its length and thickness are its card's, not
            // the reference board's (not checked, see `needs`).
            if g.form_factor == GpuFormFactor::Sxm || c.r.card_unnamed(i) {
                continue;
            }
            if let (Some(len), Some(max)) = (g.length_mm, case.max_gpu_length_mm)
                && len > max
            {
                out.push(finding(
                    &CASE_GPU_FIT,
                    Severity::Error,
                    format!("GPU {} ({}) is {len:.0} mm long; {} fits {max:.0} mm", i + 1, g.name, case.name),
                    vec![PartRef::Gpu(i), PartRef::Case],
                    "Choose a case with more GPU clearance.",
                ));
            }
            // Positions mean nothing without the board's layout (not checked, see `needs`).
            if p.riser.is_some() || slot_positions_unknown(c) {
                continue;
            }
            if let Some(pos) = p.position_on(c.r.board) {
                let last = u16::from(pos) + u16::from(g.width_slots.max(1)) - 1;
                if last > u16::from(case.expansion_slots) {
                    out.push(finding(
                        &CASE_GPU_FIT,
                        Severity::Error,
                        format!(
                            "GPU {} ({}) in position {pos} needs openings down to {last}; {} has {} expansion slots",
                            i + 1,
                            g.name,
                            case.name,
                            case.expansion_slots
                        ),
                        vec![PartRef::Gpu(i), PartRef::Case],
                        format!(
                            "Move the card to position {} or nearer the CPU, or choose a case with at least {last} expansion slots.",
                            (i64::from(case.expansion_slots) - i64::from(g.width_slots.max(1)) + 1).max(1)
                        ),
                    ));
                    past_openings = true;
                }
            }
        }
        if !past_openings {
            stack_over_openings(c, case, out);
        }
    },
};

/// The cards that sit in the case's expansion-slot openings (neither on a riser nor SXM
/// modules, named as cards, and of a published thickness) take at least the sum of their
/// thicknesses in openings, wherever their slots are: more than the case has is an error even
/// where the board's slot positions are unknown (a lower bound: gaps between cards only add
/// openings, and a card of unknown thickness left out only lowers the sum). Shapes: thickness
/// in slots (`Gpu::width_slots`, from the card's spec page), openings from the case's spec
/// page (`Case::expansion_slots`). Not for an open frame, whose `expansion_slots` counts the
/// frame's card positions on risers, not openings below the board.
fn stack_over_openings(c: &Ctx<'_>, case: &kraftwerk_catalog::Case, out: &mut Vec<Finding>) {
    if case.airflow == kraftwerk_catalog::Airflow::OpenFrame {
        return;
    }
    let mut openings: u16 = 0;
    let mut cards: Vec<usize> = Vec::new();
    for (i, (p, g)) in c.build().gpus.iter().zip(&c.r.gpus).enumerate() {
        let Some(g) = g else { continue };
        let width_unknown = c.r.width_unknown.get(i).copied().unwrap_or(false);
        if p.riser.is_some() || g.form_factor == GpuFormFactor::Sxm || c.r.card_unnamed(i) || width_unknown {
            continue;
        }
        openings += u16::from(g.width_slots.max(1));
        cards.push(i);
    }
    if cards.len() < 2 || openings <= u16::from(case.expansion_slots) {
        return;
    }
    let mut refs: Vec<PartRef> = cards.iter().map(|&i| PartRef::Gpu(i)).collect();
    refs.push(PartRef::Case);
    out.push(finding(
        &CASE_GPU_FIT,
        Severity::Error,
        format!(
            "the {} cards in the case are {openings} slots thick together; {} has {} expansion slots",
            cards.len(),
            case.name,
            case.expansion_slots
        ),
        refs,
        format!(
            "Choose a case with at least {openings} expansion slots, thinner (blower) cards, or risers in an open frame."
        ),
    ));
}

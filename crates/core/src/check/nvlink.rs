//! NVLink rules: bridges only between capable, identical cards, at a spacing a bridge exists
//! for and that matches the cards' positions.

use super::coverage::{Figure, Need};
use super::{PartRef, Rule, RuleDoc, Severity, finding};
use kraftwerk_catalog::{GpuCooler, NvLink};

/// Fix text for a bridge at least `want` slots wide: the smallest bridge sold for the card that
/// is that wide and for which the board has a slot that far below `upper` (the upper card's
/// position); else why none fits.
fn bridge_advice(c: &super::Ctx<'_>, g: &kraftwerk_catalog::Gpu, upper: Option<u8>, want: u8) -> String {
    let NvLink::Bridge { bridge_slot_spacings, .. } = &g.nvlink else {
        return "Remove the bridge.".to_owned();
    };
    let Some(bridge_slot_spacings) = bridge_slot_spacings else {
        return format!(
            "The bridge sizes sold for {} are not in the catalog: use a bridge at least {want} slots wide if the vendor sells one, or run without NVLink.",
            g.name
        );
    };
    let mut sizes: Vec<u8> = bridge_slot_spacings.iter().copied().filter(|&s| s >= want).collect();
    sizes.sort_unstable();
    if sizes.is_empty() {
        return format!(
            "No bridge of {want} slots or more is sold for {} (bridges: {} slot): use blower cards that fit the bridge, or run without NVLink.",
            g.name,
            bridge_slot_spacings.iter().map(ToString::to_string).collect::<Vec<_>>().join("/")
        );
    }
    match (c.r.board, upper) {
        (Some(board), Some(up)) => {
            for s in &sizes {
                let target = u16::from(up) + u16::from(*s);
                if let Ok(t) = u8::try_from(target)
                    && board.slot_at(t).is_some()
                {
                    return format!("Use a {s}-slot bridge with the second card in position {t}.");
                }
            }
            format!(
                "{} has no slot {} positions below position {up}, so no sold bridge ({} slot) fits with an air gap: use blower cards, or run without NVLink.",
                board.name,
                sizes.iter().map(ToString::to_string).collect::<Vec<_>>().join("/"),
                sizes.iter().map(ToString::to_string).collect::<Vec<_>>().join("/")
            )
        }
        _ => format!("Use a {}-slot bridge and leave a slot empty.", sizes[0]),
    }
}

/// Rule: NVLink bridge between capable, identical cards (id and docs in `doc`).
pub(crate) static NVLINK_BRIDGE: Rule = Rule {
    doc: RuleDoc {
        id: "nvlink-bridge",
        family: "nvlink",
        severity: Severity::Error,
        title: "NVLink bridge between capable, identical cards",
        checks: "That each bridge joins two existing GPUs of the same model that have an NVLink bridge connector.",
        why: "Only some cards have the connector: RTX 3090, RTX A6000, A100/H100 PCIe; none on GeForce 40/50 series, RTX 6000 Ada, L40S or L4 (Puget NVLink 2021 compatibility chart; NVIDIA datasheets). Bridges join identical cards only.",
        fix: "Remove the bridge, or use two identical NVLink-capable cards.",
    },
    needs: &[],
    figures: None,
    check: |c, out| {
        let b = c.build();
        // A bridge connector joins a card to at most `max_gpus - 1` partners.
        for (i, g) in c.r.gpus.iter().enumerate() {
            let Some(g) = g else { continue };
            let NvLink::Bridge { max_gpus, .. } = g.nvlink else { continue };
            let mut partners: Vec<usize> = b
                .nvlink
                .iter()
                .filter_map(|br| match br.gpus {
                    (x, y) if x == i && y != i => Some(y),
                    (x, y) if y == i && x != i => Some(x),
                    _ => None,
                })
                .collect();
            partners.sort_unstable();
            partners.dedup();
            if partners.len() + 1 > usize::from(max_gpus.max(2)) {
                out.push(finding(
                    &NVLINK_BRIDGE,
                    Severity::Error,
                    format!(
                        "GPU {} ({}) is bridged to {} cards; its NVLink bridge joins at most {max_gpus} cards",
                        i + 1,
                        g.name,
                        partners.len()
                    ),
                    vec![PartRef::Gpu(i)],
                    "Bridge the cards in pairs.",
                ));
            }
        }
        for (bi, br) in b.nvlink.iter().enumerate() {
            let (x, y) = br.gpus;
            let (Some(Some(gx)), Some(Some(gy))) = (c.r.gpus.get(x), c.r.gpus.get(y)) else {
                out.push(finding(
                    &NVLINK_BRIDGE,
                    Severity::Error,
                    format!("bridge {} joins GPUs {} and {}, which the build does not have", bi + 1, x + 1, y + 1),
                    vec![PartRef::Bridge(bi)],
                    "Point the bridge at two GPUs of the build.",
                ));
                continue;
            };
            if x == y {
                out.push(finding(
                    &NVLINK_BRIDGE,
                    Severity::Error,
                    format!("bridge {} joins GPU {} to itself", bi + 1, x + 1),
                    vec![PartRef::Bridge(bi)],
                    "Join two different GPUs.",
                ));
                continue;
            }
            for (i, g) in [(x, gx), (y, gy)] {
                if !matches!(g.nvlink, NvLink::Bridge { .. }) {
                    out.push(finding(
                        &NVLINK_BRIDGE,
                        Severity::Error,
                        format!("GPU {} ({}) has no NVLink bridge connector", i + 1, g.name),
                        vec![PartRef::Gpu(i), PartRef::Bridge(bi)],
                        "Remove the bridge; the cards talk over PCIe.",
                    ));
                }
            }
            if gx.id != gy.id {
                out.push(finding(
                    &NVLINK_BRIDGE,
                    Severity::Error,
                    format!("bridge {} joins different models: {} and {}", bi + 1, gx.name, gy.name),
                    vec![PartRef::Gpu(x), PartRef::Gpu(y), PartRef::Bridge(bi)],
                    "Bridge identical cards only.",
                ));
            }
        }
    },
};

/// Rule: NVLink bridge size against card positions (id and docs in `doc`).
pub(crate) static NVLINK_SPACING: Rule = Rule {
    doc: RuleDoc {
        id: "nvlink-spacing",
        family: "nvlink",
        severity: Severity::Error,
        title: "NVLink bridge size against card positions",
        checks: "That the bridge's slot spacing equals the distance between the two cards' slots, that a bridge of that size exists for the card, and that it leaves an air gap for open-air cards.",
        why: "Bridges are rigid: a 3-slot bridge only joins cards three slot positions apart. A 3-slot-thick RTX 3090 cannot use a 2-slot bridge; with a 3-slot bridge the cards touch with no air gap; a 4-slot bridge leaves one empty slot (Zotac SLI/NVLink spacing recommendations; Puget NVLink chart).",
        fix: "Use the bridge size that matches the card spacing, leaving one empty slot between open-air cards (4-slot bridge for 3-slot cards).",
    },
    needs: &[
        Need::Figure(Figure::BoardSlotLayoutBridged),
        Need::Figure(Figure::BoardSlotPositionsBridged),
        Need::Figure(Figure::GpuBridgeSizes),
        Need::Figure(Figure::GpuCardUnnamedBridged),
    ],
    figures: None,
    check: |c, out| {
        let b = c.build();
        for (bi, br) in b.nvlink.iter().enumerate() {
            let (x, y) = br.gpus;
            // An owned card named by its chip: its thickness is its card's (not checked).
            if c.r.card_unnamed(x) || c.r.card_unnamed(y) {
                continue;
            }
            let (Some(Some(gx)), Some(px), Some(py)) = (c.r.gpus.get(x), b.gpus.get(x), b.gpus.get(y)) else {
                continue;
            };
            let NvLink::Bridge { bridge_slot_spacings, .. } = &gx.nvlink else { continue };
            let parts = vec![PartRef::Gpu(x), PartRef::Gpu(y), PartRef::Bridge(bi)];
            let s = br.spacing_slots;
            // Unknown bridge sizes: this check is reported not checked (see `needs`).
            if let Some(bridge_slot_spacings) = bridge_slot_spacings
                && !bridge_slot_spacings.contains(&s)
            {
                out.push(finding(
                    &NVLINK_SPACING,
                    Severity::Error,
                    format!(
                        "no {s}-slot NVLink bridge exists for {} (bridges: {} slot)",
                        gx.name,
                        bridge_slot_spacings.iter().map(ToString::to_string).collect::<Vec<_>>().join("/")
                    ),
                    parts.clone(),
                    "Use a bridge size sold for the card.",
                ));
            }
            if s < gx.width_slots {
                out.push(finding(
                    &NVLINK_SPACING,
                    Severity::Error,
                    format!(
                        "a {s}-slot bridge cannot join {}-slot-thick {} cards: the cards would overlap",
                        gx.width_slots, gx.name
                    ),
                    parts.clone(),
                    bridge_advice(
                        c,
                        gx,
                        px.position_on(c.r.board).min(py.position_on(c.r.board)),
                        gx.width_slots.saturating_add(1),
                    ),
                ));
                continue;
            }
            // Positions mean nothing without the board's layout (not checked, see `needs`).
            if let (Some(sx), Some(sy), false) =
                (px.position_on(c.r.board), py.position_on(c.r.board), super::pcie::slot_positions_unknown(c))
            {
                let d = sx.abs_diff(sy);
                if d != s {
                    out.push(finding(
                        &NVLINK_SPACING,
                        Severity::Error,
                        format!("the cards sit {d} slot positions apart ({sx} and {sy}) but the bridge spans {s}"),
                        parts.clone(),
                        format!("Use a {d}-slot bridge or move the cards {s} positions apart."),
                    ));
                    continue;
                }
            }
            if s == gx.width_slots && gx.cooler == GpuCooler::OpenAir {
                out.push(finding(
                    &NVLINK_SPACING,
                    Severity::Warning,
                    format!(
                        "a {s}-slot bridge on {s}-slot {} cards leaves no air gap: the upper card starves",
                        gx.name
                    ),
                    parts,
                    bridge_advice(c, gx, px.position_on(c.r.board).min(py.position_on(c.r.board)), s.saturating_add(1)),
                ));
            }
        }
    },
};

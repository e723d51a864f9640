//! PCIe rules: each GPU in a slot it fits, thickness against neighbouring slots, the case's
//! slots and length, the CPU lane budget with the board's sharing rules, the effective link,
//! risers.

use super::coverage::{Figure, Need};
use super::{Ctx, Finding, FindingKind, PartRef, Rule, RuleDoc, Severity, finding};
use crate::rig::links::GpuLink;
use crate::rig::links::{lane_gb_s, lanes_of, slot_lanes};
use kraftwerk_catalog::PartKind;
use kraftwerk_catalog::{GpuFormFactor, LaneSource};

mod case_fit;
pub(crate) use case_fit::CASE_GPU_FIT;

/// Whether the build's board is known but its slot-by-slot layout is not (an imported board
/// that lists slot counts only): the slot rules then report "not checked" through the coverage
/// ([`Figure::BoardSlotLayout`]) instead of assuming a layout.
pub(super) fn slot_layout_unknown(c: &super::Ctx<'_>) -> bool {
    c.r.board.is_some_and(|b| !b.slot_layout_known())
}

/// Whether the build's board is known but where its slots sit is not (no layout, or a wiring
/// file without positions): the geometry rules then report "not checked" through the coverage
/// ([`Figure::BoardSlotLayout`], [`Figure::BoardSlotPositions`]).
pub(super) fn slot_positions_unknown(c: &super::Ctx<'_>) -> bool {
    c.r.board.is_some_and(|b| !b.slot_positions_known())
}

/// A desktop platform's CPU lanes for the graphics (x16) slots and the chipset's uplink: what
/// bounds N GPUs on a board of that socket whose slot wiring is not in the catalog.
pub(crate) struct DesktopPlatform {
    /// Socket as the catalog writes it.
    pub socket: &'static str,
    /// CPU lanes for the graphics slots at most: 16 on these platforms (x16, or x8/x8 where the
    /// board splits them); APUs have fewer (x8 or x4), so the bound is an upper bound.
    pub graphics_lanes: u8,
    /// The chipset's link to the CPU, in words.
    pub uplink: &'static str,
    /// Where the figures come from.
    pub source: &'static str,
}

/// Desktop platforms by socket (vendor platform pages and the CPUs' specification pages).
pub(crate) const DESKTOP_PLATFORMS: &[DesktopPlatform] = &[
    DesktopPlatform {
        socket: "AM4",
        graphics_lanes: 16,
        uplink: "PCIe x4 (Gen4 on X570, Gen3 on B550 and older)",
        source: "AMD Ryzen 3000/5000 specifications (24 CPU lanes: x16 graphics, x4 NVMe, x4 chipset link) and the X570/B550 chipset specifications (amd.com)",
    },
    DesktopPlatform {
        socket: "AM5",
        graphics_lanes: 16,
        uplink: "PCIe 4.0 x4",
        source: "AMD Zen 4 and socket AM5 explained (https://www.techpowerup.com/295394/amd-zen-4-socket-am5-explained-pcie-lanes-chipsets-connectivity): 28 CPU lanes, 4 for the chipset link (run at PCIe 4.0 x4), 24 usable = x16 graphics (1x16 or 2x8 by chipset) + two x4",
    },
    DesktopPlatform {
        socket: "LGA1700",
        graphics_lanes: 16,
        uplink: "DMI 4.0 (x8 on Z690/Z790/H670/H770, x4 on B660/B760/H610)",
        source: "Intel ARK, 12th-14th gen Core (PCI Express Configurations: up to 1x16+4, 2x8+4); Z690/Z790 chipsets on DMI 4.0 x8",
    },
    DesktopPlatform {
        socket: "LGA1851",
        graphics_lanes: 16,
        uplink: "DMI 4.0 (x8 on Z890, x4 on B860/H810)",
        source: "Intel ARK, Core Ultra 200S: 20 PCIe 5.0 lanes (x16 graphics, 1x16 or 2x8, + x4) and 4 PCIe 4.0; Z890 on DMI 4.0 x8",
    },
    DesktopPlatform {
        socket: "LGA1200",
        graphics_lanes: 16,
        uplink: "DMI 3.0 (x8 with an 11th-gen CPU on Z590/H570/W580, else x4)",
        source: "Intel ARK, 10th/11th gen Core: 16 CPU lanes for graphics (1x16, 2x8 or 1x8+2x4)",
    },
];

/// The desktop platform of `socket`, if it is one.
pub(crate) fn desktop_platform(socket: &str) -> Option<&'static DesktopPlatform> {
    DESKTOP_PLATFORMS.iter().find(|p| p.socket.eq_ignore_ascii_case(socket))
}

/// On a board whose slot wiring is unknown, the bound the platform sets on two or more add-in
/// GPUs (issue: a second or third GPU in a chipset x4 slot is the most common multi-GPU
/// mistake): a warning that says what each GPU can get at best and what would resolve it.
fn desktop_bound(c: &super::Ctx<'_>, cpu: &kraftwerk_catalog::Cpu, out: &mut Vec<Finding>) {
    let Some(p) = desktop_platform(&cpu.socket) else { return };
    let add_in: Vec<usize> =
        c.r.gpus
            .iter()
            .enumerate()
            .filter(|(_, g)| g.is_some_and(|g| g.form_factor != kraftwerk_catalog::GpuFormFactor::Sxm))
            .map(|(i, _)| i)
            .collect();
    if add_in.len() < 2 {
        return;
    }
    let half = p.graphics_lanes / 2;
    // The board's chipset's uplink where a source gives it, else the platform's in words.
    let uplink =
        c.r.board
            .filter(|b| kraftwerk_catalog::uplink::chipset_uplink(&b.chipset).is_some())
            .map_or_else(|| format!("the chipset's {} uplink", p.uplink), |b| uplink_words(&b.chipset));
    let mut msg = format!(
        "the board's slot wiring is not in the catalog; on {} the CPU gives the graphics slots at most {} lanes, so GPU {} and GPU {} get x{half} each only if the board splits them x{half}/x{half} (otherwise GPU {} is on chipset lanes or a narrower CPU link)",
        p.socket,
        p.graphics_lanes,
        add_in[0] + 1,
        add_in[1] + 1,
        add_in[1] + 1
    );
    if add_in.len() > 2 {
        let rest: Vec<String> = add_in[2..].iter().map(|i| (i + 1).to_string()).collect();
        let _ = std::fmt::Write::write_fmt(
            &mut msg,
            format_args!(
                ", and on most boards GPU {} can only be on chipset lanes: at most x4 each, all sharing {uplink} to the CPU",
                rest.join(", "),
            ),
        );
    }
    out.push(finding(
        &PCIE_LANE_BUDGET,
        Severity::Warning,
        msg,
        std::iter::once(PartRef::Motherboard).chain(add_in[1..].iter().map(|&i| PartRef::Gpu(i))).collect(),
        format!(
            "Enter the board's slot wiring (`pcie_slots`: lanes, CPU or chipset, sharing) from its manual so the slots are checked, or choose a board whose manual lists x{half}/x{half} CPU slots; more than two GPUs at x8 or better need more CPU lanes (Threadripper, Xeon W, EPYC). Platform: {}.",
            p.source
        ),
    ));
}

/// Rule: each GPU sits in a slot it fits (id and docs in `doc`).
pub(crate) static GPU_SLOT: Rule = Rule {
    doc: RuleDoc {
        id: "gpu-slot",
        family: "pcie",
        severity: Severity::Error,
        title: "Each GPU sits in a slot it fits",
        checks: "That every add-in GPU is placed in an existing slot of the board, that the slot's connector is as long as the card's edge (x16), and that no two cards share a slot.",
        why: "An x16 card does not fit a closed x8 or x4 connector (PCIe CEM specification); an unplaced card cannot be checked for lanes, spacing or airflow.",
        fix: "Place each card in a free x16 slot (see the board's slot list), or on a riser.",
    },
    needs: &[Need::Part(PartKind::Motherboard), Need::Part(PartKind::Gpu), Need::Figure(Figure::BoardSlotLayout)],
    figures: None,
    check: |c, out| {
        let Some(board) = c.r.board else { return };
        if !board.slot_layout_known() {
            return;
        }
        let mut seen: Vec<&str> = Vec::new();
        for (i, (p, g)) in c.build().gpus.iter().zip(&c.r.gpus).enumerate() {
            let Some(g) = g else { continue };
            if g.form_factor == GpuFormFactor::Sxm {
                continue;
            }
            if !p.is_placed() {
                out.push(finding(
                    &GPU_SLOT,
                    Severity::Warning,
                    format!("GPU {} ({}) is not placed in a slot", i + 1, g.name),
                    vec![PartRef::Gpu(i)],
                    "Give it a slot: a position (`slot: 3`) or a slot name (`slot: \"PCIEX16_2\"`).",
                ));
                continue;
            }
            let Some(s) = p.slot_in(board) else {
                let (what, listed) = match (&p.slot_name, p.slot) {
                    (Some(n), _) => (
                        format!("in slot {n}, but {} has no slot of that name", board.name),
                        format!(
                            "Use one of slots {}.",
                            board.pcie_slots.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    ),
                    (None, pos) => (
                        format!(
                            "at position {}, but {} has no PCIe slot there",
                            pos.map_or_else(String::new, |p| p.to_string()),
                            board.name
                        ),
                        if board.slot_positions_known() {
                            format!(
                                "Use one of positions {}.",
                                board
                                    .pcie_slots
                                    .iter()
                                    .filter_map(|s| s.position)
                                    .map(|p| p.to_string())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        } else {
                            format!(
                                "The board's slot positions are not known: place it by slot name, one of {}.",
                                board
                                    .pcie_slots
                                    .iter()
                                    .map(|s| format!("`slot: \"{}\"`", s.name))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        },
                    ),
                };
                out.push(finding(
                    &GPU_SLOT,
                    Severity::Error,
                    format!("GPU {} ({}) is placed {what}", i + 1, g.name),
                    vec![PartRef::Gpu(i), PartRef::Motherboard],
                    listed,
                ));
                continue;
            };
            let slot_ref = s.position.map_or(PartRef::Motherboard, PartRef::Slot);
            if seen.contains(&s.name.as_str()) {
                out.push(finding(
                    &GPU_SLOT,
                    Severity::Error,
                    format!(
                        "GPU {} ({}) is placed in slot {}, which already holds another GPU",
                        i + 1,
                        g.name,
                        s.position.map_or_else(|| s.name.clone(), |p| format!("position {p}"))
                    ),
                    vec![PartRef::Gpu(i), slot_ref],
                    "Move it to a free slot.",
                ));
                continue;
            }
            seen.push(s.name.as_str());
            if s.physical_lanes < g.pcie_lanes && p.riser.is_none() {
                out.push(finding(
                    &GPU_SLOT,
                    Severity::Error,
                    format!(
                        "GPU {} ({}) has an x{} edge; slot {} is a physical x{} connector",
                        i + 1,
                        g.name,
                        g.pcie_lanes,
                        s.name,
                        s.physical_lanes
                    ),
                    vec![PartRef::Gpu(i), slot_ref],
                    "Use a physical x16 slot.",
                ));
            }
        }
    },
};

/// Rule: card thickness against the slots below it (id and docs in `doc`).
pub(crate) static GPU_SLOT_BLOCKED: Rule = Rule {
    doc: RuleDoc {
        id: "gpu-slot-blocked",
        family: "pcie",
        severity: Severity::Error,
        title: "Card thickness against the slots below it",
        checks: "That no card sits in a slot covered by a thicker card above it: a card of width w in position p covers positions p..p+w-1 (a 3-slot card in slot 1 blocks slots 2 and 3).",
        why: "Two cards cannot occupy the same space. Four 3-slot RTX 4090s do not fit a 7-slot board at single-slot spacing (arithmetic: 4 cards x 3 slots = 12 slot positions on a 7-slot board).",
        fix: "Space the cards by their width, use 2-slot (blower or workstation) cards, or move cards to risers.",
    },
    needs: &[
        Need::Part(PartKind::Gpu),
        Need::Figure(Figure::BoardSlotLayout),
        Need::Figure(Figure::BoardSlotPositions),
        Need::Figure(Figure::GpuCardUnnamed),
    ],
    figures: None,
    check: |c, out| {
        if slot_positions_unknown(c) {
            return;
        }
        // An owned card named by its chip sits in its slot, but how many it covers is its
        // card's (unknown) width: it is checked as covered, never as covering.
        let placed: Vec<(usize, u8, Option<u8>, &str)> = c
            .build()
            .gpus
            .iter()
            .zip(&c.r.gpus)
            .enumerate()
            .filter_map(|(i, (p, g))| {
                let g = (*g)?;
                if p.riser.is_some() || g.form_factor == GpuFormFactor::Sxm {
                    return None;
                }
                let width = (!c.r.card_unnamed(i)).then(|| g.width_slots.max(1));
                Some((i, p.position_on(c.r.board)?, width, g.name.as_str()))
            })
            .collect();
        for &(i, pos, width, name) in &placed {
            let Some(width) = width else { continue };
            for &(j, other, _, other_name) in &placed {
                if i != j && other > pos && u16::from(other) < u16::from(pos) + u16::from(width) {
                    out.push(finding(
                        &GPU_SLOT_BLOCKED,
                        Severity::Error,
                        format!(
                            "GPU {} ({name}, {width} slots) in position {pos} covers positions {pos}..{}; GPU {} ({other_name}) is in position {other}",
                            i + 1,
                            u16::from(pos) + u16::from(width) - 1,
                            j + 1
                        ),
                        vec![PartRef::Gpu(i), PartRef::Gpu(j), PartRef::Slot(other)],
                        format!("Move GPU {} to position {} or lower, or use a riser.", j + 1, u16::from(pos) + u16::from(width)),
                    ));
                }
            }
        }
    },
};

/// Rule: CPU and chipset lane budget (id and docs in `doc`).
pub(crate) static PCIE_LANE_BUDGET: Rule = Rule {
    doc: RuleDoc {
        id: "pcie-lane-budget",
        family: "pcie",
        severity: Severity::Error,
        title: "CPU and chipset lane budget",
        checks: "The CPU lanes the used slots and M.2 sockets take (after the board's sharing rules) against the CPU's usable lanes; GPUs on chipset lanes, which share the chipset's uplink.",
        why: "A board built for a 128-lane CPU loses slots with a 48-lane one; consumer boards split 16 CPU lanes x16 / x8+x8 as slots and M.2 fill (board manuals' lane-sharing tables, e.g. ASUS ProArt X870E-CREATOR WIFI; see docs/sources.md).",
        fix: "Choose a CPU with more lanes (Threadripper PRO, EPYC, Xeon W), free the M.2 socket that shares the slot, or move the GPU to a CPU slot.",
    },
    needs: &[
        Need::Part(PartKind::Motherboard),
        Need::Part(PartKind::Cpu),
        Need::Part(PartKind::Gpu),
        Need::Figure(Figure::BoardSlotLayout),
    ],
    figures: None,
    check: |c, out| {
        let (Some(board), Some(cpu)) = (c.r.board, c.r.cpu) else { return };
        if !board.slot_layout_known() {
            desktop_bound(c, cpu, out);
            return;
        }
        let lanes = slot_lanes(&c.r, board);
        let mut used_cpu: u16 = 0;
        let mut counted: Vec<&str> = Vec::new();
        for p in &c.build().gpus {
            let Some(s) = p.slot_in(board) else { continue };
            if counted.contains(&s.name.as_str()) {
                continue;
            }
            counted.push(s.name.as_str());
            if s.lane_source == LaneSource::Cpu {
                used_cpu += u16::from(lanes_of(board, &lanes, &s.name).unwrap_or(0));
            }
        }
        for s in &c.build().storage {
            if let Some(m) = s.m2_slot.as_ref().and_then(|n| board.m2_slots.iter().find(|m| &m.name == n))
                && m.lane_source == LaneSource::Cpu
            {
                used_cpu += u16::from(m.lanes);
            }
        }
        let have = cpu.pcie_lanes.total() * u16::from(board.cpu_sockets.max(1));
        if used_cpu > have {
            out.push(finding(
                &PCIE_LANE_BUDGET,
                Severity::Error,
                format!("the used slots and M.2 sockets take {used_cpu} CPU lanes; {} has {have} usable", cpu.name),
                vec![PartRef::Cpu, PartRef::Motherboard],
                "Choose a CPU with more lanes or use fewer slots.",
            ));
        }
        chipset_gpus(c, board, out);
        for (i, p) in c.build().gpus.iter().enumerate() {
            let Some(s) = p.slot_in(board) else { continue };
            if lanes_of(board, &lanes, &s.name) == Some(0) {
                out.push(finding(
                    &PCIE_LANE_BUDGET,
                    Severity::Error,
                    format!(
                        "slot {} (GPU {}) is disabled by the board's lane sharing (a shared slot or M.2 is in use)",
                        s.name,
                        i + 1
                    ),
                    vec![s.position.map_or(PartRef::Gpu(i), PartRef::Slot)],
                    "Free the slot or M.2 socket it shares lanes with, or move the GPU.",
                ));
            }
        }
    },
};

/// The chipset's uplink in words for findings: `the X870E chipset's PCIe 4.0 x4 uplink (7.9
/// GB/s per direction)`, or that it is unknown.
fn uplink_words(chipset: &str) -> String {
    match kraftwerk_catalog::uplink::chipset_uplink(chipset) {
        Some(u) => format!(
            "the {chipset} chipset's {} uplink ({:.1} GB/s per direction)",
            u.name,
            lane_gb_s(u.pcie_gen) * f64::from(u.lanes)
        ),
        None => format!("the {chipset} chipset's uplink (its width is not in the catalog)"),
    }
}

/// For a GPU on chipset lanes: the board's free CPU-wired slot that takes the card (not
/// holding or covered by another card, physically as wide as the card's link), with the link
/// the card would get there after the board's sharing rules (the build with the card moved,
/// through [`crate::rig::links::gpu_links`]), as a fix: "Move it to PCIEX16_2 ...". `None`
/// when the board has no such slot.
fn free_cpu_slot_fix(c: &Ctx<'_>, l: &GpuLink) -> Option<String> {
    let board = c.r.board?;
    let build = c.build();
    let placement = build.gpus.get(l.gpu)?;
    let (held, taken) = occupied_by_others(c, board, l.gpu);
    let mine = placement.slot_in(board).map(|s| s.name.as_str());
    for s in &board.pcie_slots {
        let covered = s.position.is_some_and(|p| taken.contains(&p));
        if s.lane_source != LaneSource::Cpu
            || mine == Some(s.name.as_str())
            || held.contains(&s.name.as_str())
            || covered
            || s.physical_lanes < l.gpu_lanes.min(16)
        {
            continue;
        }
        let mut moved = build.clone();
        if let Some(g) = moved.gpus.get_mut(l.gpu) {
            g.slot = s.position;
            g.slot_name = Some(s.name.clone());
        }
        let r = crate::rig::Resolved { build: &moved, ..c.r.clone() };
        let after = crate::rig::links::gpu_links(&r);
        let there = after.iter().find(|x| x.gpu == l.gpu)?;
        if there.via_chipset || there.lanes == 0 {
            continue;
        }
        // What the move costs the other cards (a CPU slot that splits the x16 with theirs).
        let narrowed: Vec<String> = after
            .iter()
            .filter(|a| a.gpu != l.gpu)
            .filter_map(|a| {
                let before = c.links.iter().find(|b| b.gpu == a.gpu)?;
                (a.lanes < before.lanes)
                    .then(|| format!("GPU {} goes from x{} to x{}", a.gpu + 1, before.lanes, a.lanes))
            })
            .collect();
        let cost = if narrowed.is_empty() { String::new() } else { format!(" ({})", narrowed.join(", ")) };
        let at = s.position.map_or_else(String::new, |p| format!(" at position {p}"));
        return Some(format!(
            "Move it to the free CPU-wired slot {}{at}: PCIe {}.0 x{} ({:.1} GB/s per direction, after the board's lane sharing) from the CPU, instead of x{} behind the chipset's uplink{cost}.",
            s.name, there.pcie_gen, there.lanes, there.bandwidth_gb_s, l.lanes
        ));
    }
    None
}

/// `pcie-lane-budget` on a wired board: a warning for each GPU on chipset lanes, naming its
/// slot, the slot's lanes and the uplink every chipset device shares.
fn chipset_gpus(c: &Ctx<'_>, board: &kraftwerk_catalog::Motherboard, out: &mut Vec<Finding>) {
    let on_chipset: Vec<&GpuLink> = c.links.iter().filter(|l| l.via_chipset).collect();
    for l in &on_chipset {
        let others: Vec<String> =
            on_chipset.iter().filter(|o| o.gpu != l.gpu).map(|o| format!("GPU {}", o.gpu + 1)).collect();
        let with = if others.is_empty() {
            "USB, network and M.2".to_owned()
        } else {
            format!("{} and USB, network and M.2", others.join(", "))
        };
        out.push(finding(
            &PCIE_LANE_BUDGET,
            Severity::Warning,
            format!(
                "GPU {} on chipset lanes: shares the chipset's uplink to the CPU: it sits in slot {} at PCIe {}.0 x{} ({:.1} GB/s per direction), behind {}, shared with {with}",
                l.gpu + 1,
                l.slot_name.as_deref().unwrap_or("?"),
                l.pcie_gen,
                l.lanes,
                l.bandwidth_gb_s,
                uplink_words(&board.chipset),
            ),
            vec![PartRef::Gpu(l.gpu)],
            free_cpu_slot_fix(c, l).unwrap_or_else(|| {
                "This board has no free CPU-wired slot that takes it: use fewer GPUs on this platform, a board that splits the CPU's x16 into x8/x8, or a platform with more CPU lanes.".to_owned()
            }),
        ));
    }
}

/// Rule: effective PCIe link of each GPU (id and docs in `doc`).
pub(crate) static PCIE_LINK: Rule = Rule {
    doc: RuleDoc {
        id: "pcie-link",
        family: "pcie",
        severity: Severity::Warning,
        title: "Effective PCIe link of each GPU",
        checks: "Each GPU's negotiated link (the lower generation and width of card, slot after sharing, and riser) against the card's own.",
        why: "Loading weights, tensor parallel all-reduces and CPU offload run over this link: per direction Gen3 x16 15.75, Gen4 x16 31.5, Gen5 x16 63 GB/s (PCI-SIG); x8 halves it.",
        fix: "Use a free slot wired x16 at the card's generation, free the M.2 socket that shares its lanes, or use a riser rated for the card's generation; where the board has no such slot: fewer GPUs, a board that splits the CPU's x16 into x8/x8 instead of a chipset slot, or a platform with more CPU lanes.",
    },
    needs: &[Need::Part(PartKind::Motherboard), Need::Part(PartKind::Gpu), Need::Figure(Figure::BoardSlotLayout)],
    figures: None,
    check: |c, out| {
        // Without the layout the link model assumes the card's own link: not checked.
        if slot_layout_unknown(c) {
            return;
        }
        // A GPU in a second CPU slot with an APU-class CPU whose lanes the wiring does not
        // state: its link is unknown (`rig::links::lanes_unknown_with_cpu`), not checked.
        if let Some(board) = c.r.board {
            for (i, p) in c.build().gpus.iter().enumerate() {
                let Some(s) = p.slot_in(board) else { continue };
                if crate::rig::links::lanes_unknown_with_cpu(board, s, c.r.cpu) {
                    let cpu = c.r.cpu.map_or("the CPU", |x| x.name.as_str());
                    out.push(Finding {
                        rule: PCIE_LINK.doc.id,
                        severity: Severity::Info,
                        kind: FindingKind::NotChecked,
                        message: format!(
                            "not checked for GPU {}: slot {} is a second CPU-wired slot and the board's wiring states no lanes for the {cpu} (APU silicon; `pcie_slots.lanes_by_cpu`): its link is unknown",
                            i + 1,
                            s.name
                        ),
                        parts: vec![PartRef::Cpu],
                        fix: format!(
                            "Enter the slot's lanes with the {cpu} from the board manual (`lanes_by_cpu`), or use a CPU whose lanes the wiring states (a non-APU part of this socket)."
                        ),
                    });
                }
            }
        }
        for l in &c.links {
            if l.lanes == 0 {
                continue;
            }
            if l.pcie_gen < l.gpu_gen || l.lanes < l.gpu_lanes {
                out.push(finding(
                    &PCIE_LINK,
                    Severity::Warning,
                    format!(
                        "GPU {} links at PCIe {}.0 x{} ({:.1} GB/s per direction) instead of its own {}.0 x{} ({:.1} GB/s)",
                        l.gpu + 1,
                        l.pcie_gen,
                        l.lanes,
                        l.bandwidth_gb_s,
                        l.gpu_gen,
                        l.gpu_lanes,
                        lane_gb_s(l.gpu_gen) * f64::from(l.gpu_lanes)
                    ),
                    vec![PartRef::Gpu(l.gpu)],
                    link_fix(c, l),
                ));
            }
        }
    },
};

/// What would give the GPU of `l` its own link, for `pcie-link`'s fix: a faster riser when the
/// riser is what limits it, freeing the M.2 socket that takes the slot's lanes, a free slot that
/// gives it its link (not covered by another card) by name, else what would help when this
/// board has none: a board that splits the CPU's x16 into x8/x8 (for a card on chipset lanes),
/// fewer GPUs or a platform with more CPU lanes.
fn link_fix(c: &Ctx<'_>, l: &GpuLink) -> String {
    let build = c.build();
    let Some(placement) = build.gpus.get(l.gpu) else { return String::new() };
    let board = c.r.board;
    let slot = board.and_then(|bd| placement.slot_in(bd));
    let slot_gen = slot.map_or(l.gpu_gen, |s| s.pcie_gen);
    if let Some(r) = placement.riser
        && r.pcie_gen < l.gpu_gen.min(slot_gen)
        && l.lanes >= l.gpu_lanes
    {
        return format!(
            "The riser limits it: use one rated for PCIe {}.0 (this one is rated {}.0), or accept Gen{}.",
            l.gpu_gen.min(slot_gen),
            r.pcie_gen,
            r.pcie_gen
        );
    }
    let Some(board) = board else { return "Put it in a slot wired x16 at its generation.".to_owned() };
    let drives: Vec<&str> = build.storage.iter().filter_map(|d| d.m2_slot.as_deref()).collect();
    if let Some(s) = slot
        && let Some(rule) = s.shares.iter().find(|r| {
            r.lanes < l.gpu_lanes
                && drives.contains(&r.when_used.as_str())
                && board.m2_slots.iter().any(|m| m.name == r.when_used)
        })
    {
        return format!(
            "Free {}: a drive there takes this slot down to x{}; move the drive to an M.2 socket that shares nothing with the GPU slots.",
            rule.when_used, rule.lanes
        );
    }
    let lanes_now = slot_lanes(&c.r, board);
    let (held, taken) = occupied_by_others(c, board, l.gpu);
    let want_gen = l.gpu_gen.min(placement.riser.map_or(u8::MAX, |r| r.pcie_gen));
    for (idx, s) in board.pcie_slots.iter().enumerate() {
        let covered = s.position.is_some_and(|p| taken.contains(&p));
        if slot.is_some_and(|mine| mine.name == s.name)
            || held.contains(&s.name.as_str())
            || covered
            || s.physical_lanes < l.gpu_lanes
        {
            continue;
        }
        let lanes = lanes_now.get(idx).copied().unwrap_or(s.electrical_lanes);
        if lanes >= l.gpu_lanes && s.pcie_gen >= want_gen {
            let (link_gen, link_lanes) = (s.pcie_gen.min(l.gpu_gen), lanes.min(l.gpu_lanes));
            return match s.position {
                Some(p) => {
                    format!("Move it to the free slot at position {p} ({}: PCIe {link_gen}.0 x{link_lanes}).", s.name)
                }
                None => format!(
                    "Move it to the free slot {} (PCIe {link_gen}.0 x{link_lanes}; its position is not in the catalog, so check the card's thickness against its neighbours).",
                    s.name
                ),
            };
        }
    }
    let gpu_count = build.gpus.len();
    let more_lanes = "a platform with more CPU lanes (Threadripper PRO, Xeon W or EPYC: 64-128 lanes, x16 per slot)";
    if l.via_chipset {
        if let Some(fix) = free_cpu_slot_fix(c, l) {
            return fix;
        }
        format!(
            "This board has no free slot that gives it PCIe {}.0 x{} and no free CPU-wired slot that takes it; this one hangs off the chipset: a board that splits the CPU's x16 into x8/x8 gives each of two GPUs x8 from the CPU; or fewer GPUs, or {more_lanes}.",
            l.gpu_gen, l.gpu_lanes
        )
    } else if l.lanes >= l.gpu_lanes {
        // Full width, slower generation: the board's wiring sets the generation, not a split.
        format!(
            "This board has no free slot that gives it PCIe {}.0 x{}: its CPU slot runs at most PCIe {}.0 (the board's wiring; the link is already x{}). What helps: a board whose CPU slot runs PCIe {}.0; PCIe {}.0 x{} costs little where the model stays in GPU memory (loading and inter-GPU traffic are slower).",
            l.gpu_gen, l.gpu_lanes, l.pcie_gen, l.lanes, l.gpu_gen, l.pcie_gen, l.lanes
        )
    } else {
        format!(
            "This board has no free slot that gives it PCIe {}.0 x{}: with {gpu_count} GPU{} the CPU's lanes are split between the slots. What helps: fewer GPUs on this board, or {more_lanes}; x8 costs little where the GPUs rarely talk to each other (a model split by layers).",
            l.gpu_gen,
            l.gpu_lanes,
            if gpu_count == 1 { "" } else { "s" }
        )
    }
}

/// Rule: PCIe risers (id and docs in `doc`).
pub(crate) static PCIE_RISER: Rule = Rule {
    doc: RuleDoc {
        id: "pcie-riser",
        family: "pcie",
        severity: Severity::Warning,
        title: "PCIe risers",
        checks: "Risers at PCIe 4.0 or faster.",
        why: "Gen4 and faster risers often cause link errors (AER, replays, drops to a lower speed); rigs must often be forced to Gen3 (https://www.mov-axbx.com/wopr/wopr_risers.html).",
        fix: "Use short certified risers, or set the slot to Gen3 in the BIOS and accept the lower link.",
    },
    needs: &[Need::Part(PartKind::Gpu)],
    figures: None,
    check: |c, out| {
        for (i, p) in c.build().gpus.iter().enumerate() {
            if let Some(r) = p.riser
                && r.pcie_gen >= 4
            {
                out.push(finding(
                    &PCIE_RISER,
                    Severity::Warning,
                    format!(
                        "GPU {} is on a PCIe {}.0 riser{}: link errors are likely; it may need Gen3",
                        i + 1,
                        r.pcie_gen,
                        r.length_mm.map_or_else(String::new, |l| format!(" ({l:.0} mm)"))
                    ),
                    vec![PartRef::Gpu(i)],
                    "Watch the PCIe replay counter (`kraftwerk gpus`); force Gen3 if it climbs.",
                ));
            }
        }
    },
};

/// What the build's other GPUs (all but GPU `gpu`) occupy on `board`: the names of the slots
/// they hold, and the positions their cards cover (a card `w` slots thick at `p` covers
/// p..p+w-1; a card on a riser covers none).
fn occupied_by_others<'a>(
    c: &Ctx<'a>,
    board: &'a kraftwerk_catalog::Motherboard,
    gpu: usize,
) -> (Vec<&'a str>, Vec<u8>) {
    let build = c.build();
    let others = build.gpus.iter().zip(&c.r.gpus).enumerate().filter(|(i, _)| *i != gpu);
    let held = others.clone().filter_map(|(_, (g, _))| g.slot_in(board)).map(|s| s.name.as_str()).collect();
    let taken = others
        .filter(|(_, (g, _))| g.riser.is_none())
        .filter_map(|(_, (g, chip))| {
            g.position_on(Some(board)).map(|pos| (pos, chip.map_or(1, |x| x.width_slots.max(1))))
        })
        .flat_map(|(pos, w)| pos..pos.saturating_add(w))
        .collect();
    (held, taken)
}

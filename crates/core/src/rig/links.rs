//! The PCIe link model: lane rate per generation and each GPU's effective link from its slot,
//! the board's lane-sharing rules, risers and SXM modules. A fact about hardware and about the
//! build, used by the checker's rules, the LLM estimate and Live validation (which therefore
//! need no rule code).

use super::Resolved;
use kraftwerk_catalog::{GpuFormFactor, LaneSource, Motherboard};
use serde::Serialize;
/// Per-direction PCIe bandwidth of one lane, GB/s, by generation (after 8b/10b or 128b/130b
/// encoding): Gen1 0.25, Gen2 0.5, Gen3 0.985, Gen4 1.969, Gen5 3.938, Gen6 7.877 (PCI-SIG;
/// x16: 15.75 / 31.5 / 63 GB/s for Gen3/4/5). The one table the checker, the LLM estimate and
/// the probe's grading share.
pub fn lane_gb_s(pcie_gen: u8) -> f64 {
    match pcie_gen {
        0 => 0.0,
        1 => 0.25,
        2 => 0.5,
        3 => 0.985,
        4 => 1.969,
        5 => 3.938,
        _ => 7.877,
    }
}

/// The effective PCIe link of one GPU: only for a GPU whose link is known (an SXM module, or an
/// add-in card in a slot of a board whose wiring is in the catalog). [`gpu_links`] lists no
/// link for other cards: their link is unknown, and faces print it so.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuLink {
    /// GPU build index.
    pub gpu: usize,
    /// Slot position, if placed in a slot whose position is known.
    pub slot: Option<u8>,
    /// Silkscreen name of the slot, if placed in one of a wired board.
    pub slot_name: Option<String>,
    /// Negotiated generation: min of slot, card and riser.
    pub pcie_gen: u8,
    /// Negotiated lanes: min of the slot's lanes after sharing and the card's.
    pub lanes: u8,
    /// The card's own link.
    pub gpu_gen: u8,
    /// The card's own lanes.
    pub gpu_lanes: u8,
    /// Whether the slot's lanes come from the chipset.
    pub via_chipset: bool,
    /// Per-direction bandwidth of the link, GB/s.
    pub bandwidth_gb_s: f64,
}

impl GpuLink {
    /// The card's own link (generation and lanes) as an upper bound, for a card whose slot is
    /// unknown: what validation can compare a measured link against when the board's wiring is
    /// not in the catalog. Never shown as the build's link.
    pub fn card_only(gpu: usize, g: &kraftwerk_catalog::Gpu) -> Self {
        GpuLink {
            gpu,
            slot: None,
            slot_name: None,
            pcie_gen: g.pcie_gen,
            lanes: g.pcie_lanes,
            gpu_gen: g.pcie_gen,
            gpu_lanes: g.pcie_lanes,
            via_chipset: false,
            bandwidth_gb_s: lane_gb_s(g.pcie_gen) * f64::from(g.pcie_lanes),
        }
    }
}

/// Words for a GPU whose link [`gpu_links`] does not list.
pub const LINK_UNKNOWN: &str = "unknown (board wiring not in the catalog)";

/// Names of the slots and M.2 sockets in use: slots holding a GPU, sockets holding a drive.
fn used_names(r: &Resolved<'_>, board: &Motherboard) -> Vec<String> {
    let mut used: Vec<String> = r.build.gpus.iter().filter_map(|p| p.slot_in(board).map(|s| s.name.clone())).collect();
    used.extend(r.build.storage.iter().filter_map(|s| s.m2_slot.clone()));
    used
}

/// Electrical lanes of each slot of `board` (in the order of `board.pcie_slots`) with the
/// build's CPU ([`kraftwerk_catalog::PcieSlot::lanes_with_cpu`]) after the board's sharing rules,
/// given what is in use.
pub fn slot_lanes(r: &Resolved<'_>, board: &Motherboard) -> Vec<u8> {
    let used = used_names(r, board);
    let cpu = r.cpu.map(|c| c.name.as_str());
    board
        .pcie_slots
        .iter()
        .map(|s| {
            s.shares
                .iter()
                .filter(|rule| used.contains(&rule.when_used))
                .map(|rule| rule.lanes)
                .fold(s.lanes_with_cpu(cpu), u8::min)
        })
        .collect()
}

/// Whether the lanes of `slot` with `cpu` are unknown: an APU-class CPU
/// ([`kraftwerk_catalog::Cpu::apu_silicon`]) in a CPU-wired slot other than the board's primary
/// one (the CPU slot with the most lanes, first in the board's order), on a board whose wiring
/// states no lanes for that CPU (`lanes_by_cpu`). Vendors' spec text often limits the second
/// CPU slot to "Ryzen 5000/3000 Series processors only" (no x8/x8 split with an APU), so its
/// lanes with an APU are not the ones the wiring gives for other CPUs.
pub(crate) fn lanes_unknown_with_cpu(
    board: &Motherboard,
    slot: &kraftwerk_catalog::PcieSlot,
    cpu: Option<&kraftwerk_catalog::Cpu>,
) -> bool {
    let Some(cpu) = cpu.filter(|c| c.apu_silicon()) else { return false };
    if slot.lane_source != LaneSource::Cpu {
        return false;
    }
    let primary = board
        .pcie_slots
        .iter()
        .filter(|s| s.lane_source == LaneSource::Cpu)
        .reduce(|a, b| if b.electrical_lanes > a.electrical_lanes { b } else { a });
    if primary.is_some_and(|p| p.name == slot.name) {
        return false;
    }
    let name = cpu.name.to_ascii_lowercase();
    !slot.lanes_by_cpu.iter().any(|l| l.cpus.iter().any(|f| !f.is_empty() && name.contains(&f.to_ascii_lowercase())))
}

/// Lanes of the slot named `name` from [`slot_lanes`]'s answer, if the board has it.
pub(crate) fn lanes_of(board: &Motherboard, lanes: &[u8], name: &str) -> Option<u8> {
    board.pcie_slots.iter().position(|s| s.name == name).and_then(|i| lanes.get(i).copied())
}

/// The effective link of every GPU placed in a slot of the board, and of every SXM module (its
/// own link to the host).
///
/// An add-in card that is not placed, or placed on a board whose slot layout is unknown
/// ([`Motherboard::slot_layout_known`]), has no entry: its link is unknown (the board wiring is
/// not in the catalog), and is never taken as the card's own Gen/width.
pub fn gpu_links(r: &Resolved<'_>) -> Vec<GpuLink> {
    // Slots only count on a board whose wiring is known: an imported board's slot summary
    // gives no slot a GPU could be found in.
    let board = r.board.filter(|b| b.slot_layout_known());
    let lanes = board.map(|b| slot_lanes(r, b)).unwrap_or_default();
    r.build
        .gpus
        .iter()
        .zip(&r.gpus)
        .enumerate()
        .filter_map(|(i, (p, g))| {
            let g = (*g)?;
            let slot = board.and_then(|b| p.slot_in(b));
            let (mut link_gen, mut n, chipset) = match slot {
                // A second CPU slot with an APU-class CPU the wiring states no lanes for: unknown.
                Some(s) if board.is_some_and(|b| lanes_unknown_with_cpu(b, s, r.cpu)) => return None,
                Some(s) => {
                    let l = board.and_then(|b| lanes_of(b, &lanes, &s.name)).unwrap_or(s.electrical_lanes);
                    // CPU lanes run at most at the CPU's own generation (a PCIe 3.0 Ryzen 5 4500
                    // in a PCIe 4.0 slot links at 3.0).
                    let cpu_gen = match s.lane_source {
                        LaneSource::Cpu => r.cpu.and_then(kraftwerk_catalog::Cpu::max_pcie_gen).unwrap_or(u8::MAX),
                        LaneSource::Chipset => u8::MAX,
                    };
                    (s.pcie_gen.min(g.pcie_gen).min(cpu_gen), l.min(g.pcie_lanes), s.lane_source == LaneSource::Chipset)
                }
                None if g.form_factor == GpuFormFactor::Sxm => (g.pcie_gen, g.pcie_lanes, false),
                // An add-in card in no known slot (not placed, no board, or a board whose slot
                // wiring is not in the catalog): its link is unknown, never the card's own.
                None => return None,
            };
            if let Some(riser) = p.riser {
                link_gen = link_gen.min(riser.pcie_gen);
            }
            if g.form_factor == GpuFormFactor::Sxm {
                link_gen = g.pcie_gen;
                n = g.pcie_lanes;
            }
            Some(GpuLink {
                gpu: i,
                slot: slot.and_then(|s| s.position),
                slot_name: slot.map(|s| s.name.clone()),
                pcie_gen: link_gen,
                lanes: n,
                gpu_gen: g.pcie_gen,
                gpu_lanes: g.pcie_lanes,
                via_chipset: chipset,
                bandwidth_gb_s: lane_gb_s(link_gen) * f64::from(n),
            })
        })
        .collect()
}

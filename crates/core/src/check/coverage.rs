//! What a check covered: the parts and figures each rule needs, which of them the build lacks,
//! and the `not-checked` findings that say so.
//!
//! Each [`Rule`](super::Rule) declares its [`Need`]s. A part the build has not chosen makes
//! every rule that needs it "not checked"; a figure that is `None` (nobody published it) for a
//! part in the build makes the rule "not checked" for that part, with a finding that names the
//! check, the part, the figure and how to supply it. The rule still runs on what is known.

use super::{Ctx, Finding, FindingKind, PartRef, Rule, Severity};
use kraftwerk_catalog::{CoolerType, GpuFormFactor, NvLink, PartKind};
use serde::Serialize;
use std::fmt::Write as _;

/// The parts a build is made of, in the order the report lists them missing: a rule may need
/// each to be chosen ([`Need::Part`]).
pub(crate) const BUILD_PARTS: [PartKind; 7] = [
    PartKind::Cpu,
    PartKind::Motherboard,
    PartKind::Memory,
    PartKind::Case,
    PartKind::Psu,
    PartKind::Gpu,
    PartKind::Cooler,
];

/// Whether a build without a part of this kind is INCOMPLETE. The CPU cooler is not required:
/// server chassis and cloud machines cool the CPU with the chassis (its rules are then only
/// "not checked"); storage and the model preset are not parts a machine needs.
pub fn required(kind: PartKind) -> bool {
    !matches!(kind, PartKind::Cooler | PartKind::Storage | PartKind::Model)
}

/// Whether the build names a part of this kind (an unknown id counts as named:
/// `missing-parts` reports it as an error); a GPU card is a GPU, the model is the workload's.
pub fn chosen(kind: PartKind, c: &Ctx<'_>) -> bool {
    let b = c.build();
    match kind {
        PartKind::Cpu => b.cpu.is_some(),
        PartKind::Motherboard => b.motherboard.is_some(),
        PartKind::Memory => b.memory.is_some(),
        PartKind::Case => b.case.is_some(),
        PartKind::Psu => !b.psus.is_empty(),
        PartKind::Gpu | PartKind::GpuCard => !b.gpus.is_empty(),
        PartKind::Cooler => b.cooler.is_some(),
        PartKind::Storage => !b.storage.is_empty(),
        PartKind::Model => b.workload.is_some(),
    }
}

/// A published figure of a part that may be unknown (`None` in the catalog).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Motherboard `max_memory_gb`.
    BoardMaxMemory,
    /// CPU `max_memory_gb`.
    CpuMaxMemory,
    /// CPU `max_sockets` (or its model number's), needed on a board with more than one CPU
    /// socket ([`kraftwerk_catalog::Cpu::max_sockets_known`]).
    CpuMaxSockets,
    /// CPU `package_power_w` (AMD PPT / Intel PL2), needed where a cooler's rating is at or
    /// above the TDP.
    CpuPackagePower,
    /// Air cooler `height_mm`.
    CoolerHeight,
    /// Case `max_cooler_height_mm` (for an air cooler).
    CaseMaxCoolerHeight,
    /// AIO `radiator_mm`.
    CoolerRadiator,
    /// Case `max_radiator_mm` (for an AIO).
    CaseMaxRadiator,
    /// Cooler `rated_tdp_w`.
    CoolerRatedTdp,
    /// Add-in GPU `length_mm`.
    GpuLength,
    /// Case `max_gpu_length_mm`.
    CaseMaxGpuLength,
    /// PSU `connectors.hpwr_16pin` (for a PSU feeding 16-pin cards).
    PsuHpwr16pin,
    /// PSU `connectors.pcie_8pin` (for a PSU feeding add-in cards).
    PsuPcie8pin,
    /// PSU `connectors.eps_8pin` (for the system PSU or one feeding EPS-powered cards).
    PsuEps8pin,
    /// PSU `connectors.hpwr_class_w` (`None` = not published), for a 16-pin card on the PSU's
    /// native cable with no `cable` given in the build.
    PsuHpwrClass,
    /// Add-in GPU `power_inputs` (its power connectors), unknown for a card nobody published
    /// them for.
    GpuPowerInputs,
    /// GPU `max_power_limit_w`, for a GPU whose build sets a power limit above its default
    /// board power: without it the limit cannot be checked against the card's range.
    GpuMaxPowerLimit,
    /// GPU `min_power_limit_w`, for a GPU whose build sets a power limit below its default
    /// board power.
    GpuMinPowerLimit,
    /// Motherboard `pcie_slots` (the slot-by-slot layout), for a build with add-in GPUs on a
    /// board that lists only slot counts (imported from OpenDB:
    /// [`Motherboard::slot_layout_known`](kraftwerk_catalog::Motherboard::slot_layout_known)).
    BoardSlotLayout,
    /// Motherboard `pcie_slots`, for a build with NVLink bridges (the bridge spacing is checked
    /// against slot positions) on such a board.
    BoardSlotLayoutBridged,
    /// GPU `nvlink.bridge_slot_spacings` (the bridge sizes sold), for a bridged GPU whose vendor
    /// names no bridge size.
    GpuBridgeSizes,
    /// Motherboard `pcie_slots.position`, for a build with add-in GPUs on a board whose slot
    /// wiring is known but not where the slots sit (a wiring file without positions:
    /// [`Motherboard::slot_positions_known`](kraftwerk_catalog::Motherboard::slot_positions_known)).
    /// The geometry rules (thickness, air gap, case openings) need it; wiring rules do not.
    BoardSlotPositions,
    /// Motherboard `pcie_slots.position`, for a build with NVLink bridges on such a board.
    BoardSlotPositionsBridged,
    /// PSU `efficiency` (its published curve), for a PSU with no 80 PLUS level known
    /// (`eighty_plus: None`, which the import gives a listing that names none): its wall draw,
    /// and the current of its circuit and outlet, are unknown.
    PsuEfficiency,
    /// Which card an owned GPU is, for a GPU the build names by its chip only while the catalog
    /// lists partner cards of that chip ([`crate::rig::Resolved::unnamed_cards`]): its length,
    /// thickness and power sockets are the card's, not the chip entry's reference board's.
    GpuCardUnnamed,
    /// [`Figure::GpuCardUnnamed`] for a GPU an NVLink bridge joins (the bridge's spacing is
    /// checked against the card's thickness).
    GpuCardUnnamedBridged,
    /// PSU `rated_w_low_line`, for a unit whose 100-120 V rating is not published
    /// (`low_line_rating_unknown`) on a low-line site: its capacity there is unknown.
    PsuLowLineRating,
}

impl Figure {
    /// The field name as written in part files (`length_mm`, `connectors.pcie_8pin`).
    pub fn field(self) -> &'static str {
        match self {
            Figure::BoardMaxMemory | Figure::CpuMaxMemory => "max_memory_gb",
            Figure::CpuPackagePower => "package_power_w",
            Figure::CpuMaxSockets => "max_sockets",
            Figure::CoolerHeight => "height_mm",
            Figure::CaseMaxCoolerHeight => "max_cooler_height_mm",
            Figure::CoolerRadiator => "radiator_mm",
            Figure::CaseMaxRadiator => "max_radiator_mm",
            Figure::CoolerRatedTdp => "rated_tdp_w",
            Figure::GpuLength => "length_mm",
            Figure::CaseMaxGpuLength => "max_gpu_length_mm",
            Figure::PsuHpwr16pin => "connectors.hpwr_16pin",
            Figure::PsuPcie8pin => "connectors.pcie_8pin",
            Figure::PsuEps8pin => "connectors.eps_8pin",
            Figure::PsuHpwrClass => "connectors.hpwr_class_w",
            Figure::GpuPowerInputs => "power_inputs",
            Figure::GpuMaxPowerLimit => "max_power_limit_w",
            Figure::GpuMinPowerLimit => "min_power_limit_w",
            Figure::BoardSlotLayout | Figure::BoardSlotLayoutBridged => "pcie_slots",
            Figure::GpuBridgeSizes => "nvlink.bridge_slot_spacings",
            Figure::BoardSlotPositions | Figure::BoardSlotPositionsBridged => "pcie_slots.position",
            Figure::PsuEfficiency => "efficiency",
            Figure::GpuCardUnnamed | Figure::GpuCardUnnamedBridged => "card id",
            Figure::PsuLowLineRating => "rated_w_low_line",
        }
    }

    /// The `parts` list of a build file the part goes in (`gpus`, `psus`).
    fn parts_list(self) -> &'static str {
        match self {
            Figure::BoardMaxMemory
            | Figure::BoardSlotLayout
            | Figure::BoardSlotLayoutBridged
            | Figure::BoardSlotPositions
            | Figure::BoardSlotPositionsBridged => "motherboards",
            Figure::CpuMaxMemory | Figure::CpuPackagePower | Figure::CpuMaxSockets => "cpus",
            Figure::CoolerHeight | Figure::CoolerRadiator | Figure::CoolerRatedTdp => "coolers",
            Figure::CaseMaxCoolerHeight | Figure::CaseMaxRadiator | Figure::CaseMaxGpuLength => "cases",
            Figure::GpuLength
            | Figure::GpuPowerInputs
            | Figure::GpuMaxPowerLimit
            | Figure::GpuMinPowerLimit
            | Figure::GpuBridgeSizes
            | Figure::GpuCardUnnamed
            | Figure::GpuCardUnnamedBridged => "gpus",
            Figure::PsuHpwr16pin
            | Figure::PsuPcie8pin
            | Figure::PsuEps8pin
            | Figure::PsuHpwrClass
            | Figure::PsuEfficiency
            | Figure::PsuLowLineRating => "psus",
        }
    }

    /// The parts of the build for which this figure matters and is unknown, as
    /// `(part, display name, id)`.
    pub(crate) fn unknown_in(self, c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
        match self {
            Figure::BoardMaxMemory
            | Figure::CpuMaxMemory
            | Figure::CpuPackagePower
            | Figure::CpuMaxSockets
            | Figure::CoolerHeight
            | Figure::CaseMaxCoolerHeight
            | Figure::CoolerRadiator
            | Figure::CaseMaxRadiator
            | Figure::CoolerRatedTdp => self.unknown_platform(c),
            Figure::GpuLength | Figure::CaseMaxGpuLength => self.unknown_gpu_fit(c),
            Figure::PsuHpwrClass => unknown_hpwr_class(c),
            Figure::GpuMaxPowerLimit | Figure::GpuMinPowerLimit => self.unknown_limit_range(c),
            Figure::GpuPowerInputs => {
                c.r.gpus
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| {
                        let g = (*g)?;
                        (g.form_factor != GpuFormFactor::Sxm && g.power_inputs.is_none())
                            .then(|| (PartRef::Gpu(i), g.name.clone(), g.id.clone()))
                    })
                    .collect()
            }
            Figure::PsuHpwr16pin | Figure::PsuPcie8pin | Figure::PsuEps8pin => self.unknown_psu_counts(c),
            Figure::BoardSlotLayout
            | Figure::BoardSlotLayoutBridged
            | Figure::BoardSlotPositions
            | Figure::BoardSlotPositionsBridged => self.unknown_slot_layout(c),
            Figure::GpuBridgeSizes => unknown_bridge_sizes(c),
            Figure::GpuCardUnnamed | Figure::GpuCardUnnamedBridged => {
                let bridged = |i: usize| c.build().nvlink.iter().any(|b| b.gpus.0 == i || b.gpus.1 == i);
                c.r.gpus
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| {
                        let g = (*g)?;
                        let here = self == Figure::GpuCardUnnamed || bridged(i);
                        (here && g.form_factor != GpuFormFactor::Sxm && c.r.card_unnamed(i))
                            .then(|| (PartRef::Gpu(i), g.name.clone(), g.id.clone()))
                    })
                    .collect()
            }
            Figure::PsuEfficiency => {
                let v = c.build().site.mains_v.max(1.0);
                c.r.psus
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| {
                        let p = (*p)?;
                        crate::estimate::power::efficiency_curve(p, v)
                            .is_none()
                            .then(|| (PartRef::Psu(i), format!("{} {}", p.vendor, p.name), p.id.clone()))
                    })
                    .collect()
            }
            Figure::PsuLowLineRating => {
                let v = c.build().site.mains_v;
                c.r.psus
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| {
                        let p = (*p)?;
                        p.rating_unknown_at(v)
                            .then(|| (PartRef::Psu(i), format!("{} {}", p.vendor, p.name), p.id.clone()))
                    })
                    .collect()
            }
        }
    }

    /// [`Self::unknown_in`] for the CPU, board, memory, cooler and case figures.
    fn unknown_platform(self, c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
        let r = &c.r;
        match self {
            Figure::BoardMaxMemory => match (r.board, r.memory) {
                (Some(bd), Some(_)) => one(bd.max_memory_gb.is_none(), PartRef::Motherboard, &bd.name, &bd.id),
                _ => Vec::new(),
            },
            Figure::CpuMaxMemory => match (r.cpu, r.memory) {
                (Some(cpu), Some(_)) => one(cpu.max_memory_gb.is_none(), PartRef::Cpu, &cpu.name, &cpu.id),
                _ => Vec::new(),
            },
            Figure::CpuMaxSockets => match (r.cpu, r.board) {
                (Some(cpu), Some(bd)) if bd.cpu_sockets > 1 && cpu.socket == bd.socket => {
                    one(cpu.max_sockets_known().is_none(), PartRef::Cpu, &cpu.name, &cpu.id)
                }
                _ => Vec::new(),
            },
            Figure::CpuPackagePower => match (r.cpu, r.cooler) {
                (Some(cpu), Some(cool)) => one(
                    cpu.package_power_w.is_none() && cool.rated_tdp_w.is_some_and(|t| t >= cpu.tdp_w),
                    PartRef::Cpu,
                    &cpu.name,
                    &cpu.id,
                ),
                _ => Vec::new(),
            },
            Figure::CoolerHeight | Figure::CaseMaxCoolerHeight => match (r.cooler, r.case) {
                (Some(cool), Some(case)) if cool.cooler_type == CoolerType::Air => {
                    if self == Figure::CoolerHeight {
                        one(cool.height_mm.is_none(), PartRef::Cooler, &cool.name, &cool.id)
                    } else {
                        one(case.max_cooler_height_mm.is_none(), PartRef::Case, &case.name, &case.id)
                    }
                }
                _ => Vec::new(),
            },
            Figure::CoolerRadiator | Figure::CaseMaxRadiator => match (r.cooler, r.case) {
                (Some(cool), Some(case)) if cool.cooler_type == CoolerType::Aio => {
                    if self == Figure::CoolerRadiator {
                        one(cool.radiator_mm.is_none(), PartRef::Cooler, &cool.name, &cool.id)
                    } else {
                        one(case.max_radiator_mm.is_none(), PartRef::Case, &case.name, &case.id)
                    }
                }
                _ => Vec::new(),
            },
            // A maker's published verdict for this CPU stands in for the TDP figure.
            Figure::CoolerRatedTdp => match (r.cooler, r.cpu) {
                (Some(cool), Some(cpu)) => one(
                    cool.rated_tdp_w.is_none() && cool.verdict_for(&cpu.id).is_none(),
                    PartRef::Cooler,
                    &cool.name,
                    &cool.id,
                ),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// [`Self::unknown_in`] for the GPU length and the case's maximum GPU length.
    fn unknown_gpu_fit(self, c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
        let r = &c.r;
        let Some(case) = r.case else { return Vec::new() };
        if self == Figure::CaseMaxGpuLength {
            let add_in = r.gpus.iter().flatten().any(|g| g.form_factor != GpuFormFactor::Sxm);
            return one(add_in && case.max_gpu_length_mm.is_none(), PartRef::Case, &case.name, &case.id);
        }
        if case.max_gpu_length_mm.is_none() {
            return Vec::new();
        }
        r.gpus
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let g = (*g)?;
                (g.form_factor != GpuFormFactor::Sxm && g.length_mm.is_none())
                    .then(|| (PartRef::Gpu(i), g.name.clone(), g.id.clone()))
            })
            .collect()
    }

    /// [`Self::unknown_in`] for the PSU connector counts.
    fn unknown_psu_counts(self, c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
        let r = &c.r;
        let b = c.build();
        let sys = b.system_psu();
        r.psus
            .iter()
            .enumerate()
            .filter_map(|(pi, psu)| {
                let psu = (*psu)?;
                let fed: Vec<_> = b
                    .gpus
                    .iter()
                    .zip(&r.gpus)
                    .filter(|(p, _)| p.psu == pi)
                    .filter_map(|(_, g)| *g)
                    .filter(|g| g.form_factor != GpuFormFactor::Sxm)
                    .collect();
                let k = psu.connectors;
                let (needed, known) = match self {
                    Figure::PsuHpwr16pin => (fed.iter().any(|g| g.inputs().hpwr_16pin > 0), k.hpwr_16pin.is_some()),
                    Figure::PsuPcie8pin => (!fed.is_empty(), k.pcie_8pin.is_some()),
                    _ => (sys == Some(pi) || fed.iter().any(|g| g.inputs().eps_8pin > 0), k.eps_8pin.is_some()),
                };
                (needed && !known).then(|| (PartRef::Psu(pi), format!("{} {}", psu.vendor, psu.name), psu.id.clone()))
            })
            .collect()
    }

    /// [`Self::unknown_in`] for the GPU power-limit bounds: GPUs whose build sets a limit
    /// beyond their default board power on the side whose bound nobody published.
    fn unknown_limit_range(self, c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
        c.build()
            .gpus
            .iter()
            .zip(&c.r.gpus)
            .enumerate()
            .filter_map(|(i, (p, g))| {
                let g = (*g)?;
                let w = p.power_limit_w?;
                let hit = if self == Figure::GpuMaxPowerLimit {
                    w > g.board_power_w + 1e-9 && g.max_power_limit_w.is_none()
                } else {
                    w < g.board_power_w - 1e-9 && g.min_power_limit_w.is_none()
                };
                hit.then(|| (PartRef::Gpu(i), g.name.clone(), g.id.clone()))
            })
            .collect()
    }

    /// [`Self::unknown_in`] for a board without a slot-by-slot layout: it matters when the
    /// build has an add-in GPU (or, for the bridged variant, an NVLink bridge).
    fn unknown_slot_layout(self, c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
        let Some(bd) = c.r.board else { return Vec::new() };
        let relevant = if matches!(self, Figure::BoardSlotLayoutBridged | Figure::BoardSlotPositionsBridged) {
            !c.build().nvlink.is_empty()
        } else {
            c.r.gpus.iter().flatten().any(|g| g.form_factor != GpuFormFactor::Sxm)
        };
        // Positions count as their own unknown only where the wiring is known: a board with
        // neither reports the layout once (`pcie_slots`).
        let unknown = match self {
            Figure::BoardSlotPositions | Figure::BoardSlotPositionsBridged => {
                bd.slot_layout_known() && !bd.slot_positions_known()
            }
            _ => !bd.slot_layout_known(),
        };
        one(relevant && unknown, PartRef::Motherboard, &bd.name, &bd.id)
    }
}

/// [`Figure::unknown_in`] for the bridge sizes: the first GPU of each bridge whose card has an
/// NVLink bridge connector but no published bridge sizes, listed once per GPU.
fn unknown_bridge_sizes(c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
    let mut out: Vec<(PartRef, String, String)> = Vec::new();
    for br in &c.build().nvlink {
        let x = br.gpus.0;
        let Some(Some(g)) = c.r.gpus.get(x) else { continue };
        if matches!(g.nvlink, NvLink::Bridge { bridge_slot_spacings: None, .. })
            && !out.iter().any(|(p, _, _)| *p == PartRef::Gpu(x))
        {
            out.push((PartRef::Gpu(x), g.name.clone(), g.id.clone()));
        }
    }
    out
}

/// `[(part, name, id)]` when `hit`, else empty.
fn one(hit: bool, part: PartRef, name: &str, id: &str) -> Vec<(PartRef, String, String)> {
    if hit { vec![(part, name.to_owned(), id.to_owned())] } else { Vec::new() }
}

/// [`Figure::unknown_in`] for the PSU's 16-pin power class: PSUs that feed a 16-pin card on
/// their native cable with no `cable` given in the build, listed once each.
fn unknown_hpwr_class(c: &Ctx<'_>) -> Vec<(PartRef, String, String)> {
    let r = &c.r;
    c.build()
        .gpus
        .iter()
        .zip(&r.gpus)
        .filter_map(|(p, g)| {
            let g = (*g)?;
            let psu = r.psus.get(p.psu).copied().flatten()?;
            let native = p.cable.is_none()
                && g.form_factor != GpuFormFactor::Sxm
                && g.inputs().hpwr_16pin > 0
                && psu.connectors.hpwr_16pin.unwrap_or(0) > 0;
            (native && psu.connectors.hpwr_class_w.is_none())
                .then(|| (PartRef::Psu(p.psu), format!("{} {}", psu.vendor, psu.name), psu.id.clone()))
        })
        .fold(Vec::new(), |mut v, x| {
            if !v.contains(&x) {
                v.push(x);
            }
            v
        })
}

/// Something a rule needs to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "what")]
pub enum Need {
    /// A part that must be chosen.
    Part(PartKind),
    /// A published figure that must be known for each part it concerns.
    Figure(Figure),
}

/// One figure a rule could not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownFigure {
    /// The part (JSON indices are 0-based).
    pub part: PartRef,
    /// Its display name.
    pub part_name: String,
    /// Its id.
    pub part_id: String,
    /// The field (`length_mm`).
    pub figure: &'static str,
}

/// Why one rule was not (fully) checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleCoverage {
    /// Rule id.
    pub rule: &'static str,
    /// Parts it needs that the build has not chosen (it did not run).
    pub missing_parts: Vec<PartKind>,
    /// Figures unknown for parts of the build (it ran for the other parts).
    pub unknown: Vec<UnknownFigure>,
}

/// How much of the build the checker covered; a plain data field of
/// [`Report`](super::Report) that the CLI, the JSON output and the GUI show.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Coverage {
    /// Number of rules.
    pub total: usize,
    /// Rules that ran with every part and figure they need.
    pub ran: usize,
    /// Rules that did not run, or ran only in part, and why.
    pub not_checked: Vec<RuleCoverage>,
    /// Parts no rule could look at because the build has not chosen them, in
    /// [`BUILD_PARTS`] order.
    pub missing_parts: Vec<PartKind>,
    /// Rules that could have reported an error for this build but did not fully run (a figure
    /// they need is unknown): while any is listed, the verdict is
    /// [`Verdict::Unverified`](super::Verdict::Unverified), never PASS ([`blocks_pass`]).
    pub unverified: Vec<&'static str>,
    /// Geometry rules judged on both directions of a board whose slot positions are forced by
    /// its slot count but whose numbering direction no source gives
    /// ([`SlotOrder::EitherEnd`](kraftwerk_catalog::SlotOrder::EitherEnd)), whose verdict held
    /// either way; rules whose verdict differed are in `not_checked` with the figure
    /// `slot_order`. Empty (and left out of JSON) for other boards.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub either_direction: Vec<&'static str>,
}

/// One unknown figure that stands between a build and its verdict: supplying it lets the
/// listed error-capable rules run ([`Coverage::to_supply`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToSupply {
    /// The part (JSON indices are 0-based).
    pub part: PartRef,
    /// Its display name.
    pub part_name: String,
    /// Its id.
    pub part_id: String,
    /// The field (`pcie_slots`, `max_gpu_length_mm`).
    pub figure: &'static str,
    /// The error-capable rules it unblocks, in registry order.
    pub rules: Vec<&'static str>,
}

impl Coverage {
    /// Whether a required part ([`required`]) is missing: the build is INCOMPLETE.
    pub fn incomplete(&self) -> bool {
        self.missing_parts.iter().any(|&k| required(k))
    }

    /// Whether an error-capable rule did not run for this build: the verdict cannot be PASS.
    pub fn unverified(&self) -> bool {
        !self.unverified.is_empty()
    }

    /// The unknown figures behind [`Self::unverified`], the figure that unblocks the most
    /// error-capable rules first (ties: the order the rules list them). Empty when the build is
    /// not unverified.
    pub fn to_supply(&self) -> Vec<ToSupply> {
        let mut out: Vec<ToSupply> = Vec::new();
        for rc in self.not_checked.iter().filter(|rc| self.unverified.contains(&rc.rule)) {
            for u in &rc.unknown {
                // One line per part id and figure: four GPUs of one card need its figure once.
                if let Some(t) = out.iter_mut().find(|t| t.part_id == u.part_id && t.figure == u.figure) {
                    if !t.rules.contains(&rc.rule) {
                        t.rules.push(rc.rule);
                    }
                } else {
                    out.push(ToSupply {
                        part: u.part,
                        part_name: u.part_name.clone(),
                        part_id: u.part_id.clone(),
                        figure: u.figure,
                        rules: vec![rc.rule],
                    });
                }
            }
        }
        // Stable: equal counts keep their first-seen order.
        out.sort_by_key(|t| std::cmp::Reverse(t.rules.len()));
        out
    }

    /// One line for people: `27 of 29 checks ran; 2 not checked: case-gpu-fit, psu-connectors`.
    pub fn summary(&self) -> String {
        let mut s = format!("{} of {} checks ran", self.ran, self.total);
        if !self.not_checked.is_empty() {
            let ids: Vec<&str> = self.not_checked.iter().map(|r| r.rule).collect();
            let _ = write!(s, "; {} not checked: {}", ids.len(), ids.join(", "));
        }
        s
    }
}

/// The coverage of `rules` on the build in `c`, and the `not-checked` findings for unknown
/// figures (one per rule, part and figure).
pub(crate) fn assess(rules: &[&Rule], c: &Ctx<'_>) -> (Coverage, Vec<Finding>) {
    let mut cov = Coverage { total: rules.len(), ..Coverage::default() };
    let mut findings = Vec::new();
    let mut missing_any = Vec::new();
    for rule in rules {
        let mut rc = RuleCoverage { rule: rule.doc.id, missing_parts: Vec::new(), unknown: Vec::new() };
        for need in rule.needs {
            match *need {
                Need::Part(k) if !chosen(k, c) => {
                    if !rc.missing_parts.contains(&k) {
                        rc.missing_parts.push(k);
                    }
                    if !missing_any.contains(&k) {
                        missing_any.push(k);
                    }
                }
                Need::Part(_) => {}
                Need::Figure(f) => {
                    for (part, name, id) in f.unknown_in(c) {
                        findings.push(not_checked_finding(rule, f, part, &name, &id));
                        rc.unknown.push(UnknownFigure { part, part_name: name, part_id: id, figure: f.field() });
                    }
                }
            }
        }
        if rc.missing_parts.is_empty() && rc.unknown.is_empty() {
            cov.ran += 1;
        } else {
            if blocks_pass(rule, &rc, c) {
                cov.unverified.push(rule.doc.id);
            }
            cov.not_checked.push(rc);
        }
    }
    cov.missing_parts = BUILD_PARTS.into_iter().filter(|k| missing_any.contains(k)).collect();
    (cov, findings)
}

/// Whether rule `rule`, not (fully) checked as `rc` says, keeps the build from PASS: it can
/// report an error ([`RuleDoc::severity`](super::RuleDoc::severity) is `Error`) and a figure it
/// needs for this build is unknown. A rule that can only warn never blocks, and a rule that did
/// not run for a missing part is covered by INCOMPLETE (or, for the optional CPU cooler, has
/// nothing to judge).
///
/// One unknown is judged per build: the slot layout of a board that takes a single add-in GPU,
/// whose imported slot summary lists an x16-size slot, in a case with at least the card's width
/// in expansion-slot openings. The card goes in that slot; spacing, blocking and lane sharing
/// between cards need a second card, and the one card's link width can only warn
/// (`pcie-link`). With two add-in GPUs or more, no x16-size slot listed, or a card wider than
/// the case's openings, the unknown layout blocks PASS: the geometry and slot rules could have
/// found an error.
pub(crate) fn blocks_pass(rule: &Rule, rc: &RuleCoverage, c: &Ctx<'_>) -> bool {
    if rule.doc.severity != Severity::Error || rc.unknown.is_empty() {
        return false;
    }
    let cards: Vec<_> = c.r.gpus.iter().flatten().filter(|g| g.form_factor != GpuFormFactor::Sxm).collect();
    let x16_listed = c.r.board.is_some_and(|bd| {
        bd.slot_summary.iter().any(|s| s.lanes >= 16 && s.quantity > 0)
            || bd.pcie_slots.iter().any(|s| s.physical_lanes >= 16)
    });
    // The one card sits at position 1 or lower, so it needs at least its own width in case
    // openings: a card wider than the case's openings can fail whatever the layout.
    let fits_openings = cards.iter().all(|g| c.r.case.is_none_or(|case| g.width_slots <= case.expansion_slots));
    let single_card_ok = cards.len() == 1 && x16_listed && fits_openings;
    let slot_figure = |f: &str| f == Figure::BoardSlotLayout.field() || f == Figure::BoardSlotPositions.field();
    let decides = |u: &UnknownFigure| !(slot_figure(u.figure) && single_card_ok);
    rc.unknown.iter().any(decides)
}

/// The words of the not-checked finding for an owned GPU named by its chip
/// ([`Figure::GpuCardUnnamed`]), which the planner reads to keep such a build as an answer.
pub(crate) const OWNED_BY_CHIP: &str = "it is owned and named by its chip";

/// The `not-checked` finding for one unknown figure of one part.
fn not_checked_finding(rule: &Rule, f: Figure, part: PartRef, name: &str, id: &str) -> Finding {
    let who = match part {
        PartRef::Gpu(i) => format!("GPU {} ({name})", i + 1),
        PartRef::Psu(i) => format!("PSU {} ({name})", i + 1),
        _ => name.to_owned(),
    };
    let not_checked = |message: String, fix: String| Finding {
        rule: rule.doc.id,
        severity: Severity::Info,
        kind: FindingKind::NotChecked,
        message,
        parts: vec![part],
        fix,
    };
    if matches!(f, Figure::BoardSlotPositions | Figure::BoardSlotPositionsBridged) {
        return not_checked(
            format!(
                "not checked for {who}: its slot wiring is known but not where the slots sit (`pcie_slots.position`: no source gives the positions), so card thickness over the next slot, air gaps and where each card meets the case's openings cannot be checked"
            ),
            format!(
                "Enter the slot positions from the board manual's layout diagram: copy part `{id}` into the build's `parts: (motherboards: [...])` and give each slot of `pcie_slots` its `position` (1 = nearest the CPU)."
            ),
        );
    }
    if matches!(f, Figure::BoardSlotLayout | Figure::BoardSlotLayoutBridged) {
        return not_checked(
            format!(
                "not checked for {who}: its slot layout (`pcie_slots`) is unknown (the imported board lists slot counts, not positions)"
            ),
            format!(
                "Enter the board's slot layout as a user part: copy part `{id}` into the build's `parts: (motherboards: [...])` with `pcie_slots` (position, physical and electrical lanes, generation, CPU or chipset lanes, sharing) from the board's manual."
            ),
        );
    }
    if f == Figure::PsuLowLineRating {
        return not_checked(
            format!(
                "not checked for {who}: its rating at 100-120 V is not published (a unit sold for 230 V may be derated there), so its capacity on this low-line site is unknown"
            ),
            format!(
                "Supply the figure: copy part `{id}` into the build's `parts: (psus: [...])` with `rated_w_low_line` from the unit's label or datasheet, or run it from a 200-240 V circuit."
            ),
        );
    }
    if f == Figure::PsuEfficiency {
        return not_checked(
            format!(
                "not checked for {who}: its efficiency is unknown (no 80 PLUS rating known and no published efficiency points), so its wall draw, and the current through its inlet, outlet and circuit, are unknown"
            ),
            format!(
                "Supply the efficiency: copy part `{id}` into the build's `parts: (psus: [...])` with `eighty_plus` set to its certified level (the 80 PLUS listing at CLEAResult) or `efficiency` points (load %, efficiency %) from its datasheet or a review."
            ),
        );
    }
    if matches!(f, Figure::GpuCardUnnamed | Figure::GpuCardUnnamedBridged) {
        return not_checked(
            format!(
                "not checked for {who}: {OWNED_BY_CHIP} (`{id}`), so which card it is is not known, nor its length, thickness and power sockets (the chip entry's figures are its reference board's; partner cards of this chip differ)"
            ),
            format!(
                "Name the card you own: its partner card id in the build's `gpus` and `owned` (`kraftwerk catalog gpu_cards` lists the partner cards; in the window, pick it in the GPU's Model list; in the planner, `--own 1x CARD_ID`), or copy `{id}` into the build's `parts: (gpus: [...])` with your card's `length_mm`, `width_slots` and `power_inputs`."
            ),
        );
    }
    if matches!(f, Figure::GpuMaxPowerLimit | Figure::GpuMinPowerLimit) {
        let side = if f == Figure::GpuMaxPowerLimit { "above" } else { "below" };
        return not_checked(
            format!(
                "not checked for {who}: its power limit is set {side} its default board power and its `{}` is unknown, so the limit cannot be checked against the card's range; the estimates use it as set",
                f.field()
            ),
            format!(
                "Read the range with `nvidia-smi -q -d POWER` (Min/Max Power Limit) and enter it: copy part `{id}` into the build's `parts: (gpus: [...])` with `{}` set.",
                f.field()
            ),
        );
    }
    not_checked(
        format!("not checked for {who}: its `{}` is unknown (no published figure in the catalog)", f.field()),
        format!(
            "Supply the figure: copy part `{id}` into the build's `parts: ({}: [...])` (a part there overrides the catalog's of the same id) with `{}` set from its datasheet.",
            f.parts_list(),
            f.field()
        ),
    )
}

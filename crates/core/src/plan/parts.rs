//! Reading the catalog into the search's part views ([`read`]): every chip's reference design
//! and every partner card resolved against its chip, with the partner cards that the checker
//! and the estimators cannot tell apart (same chip, length to the next 10 mm, slot width, power
//! sockets, cooler, board power and price) folded into one option ([`card_class`]): the catalog
//! lists hundreds of such near-twins, and trying each would multiply the search without changing
//! its answer. Also which cards are bought used today ([`used_market`]) and the kind of a part a
//! goal names by id ([`part_kind`]).

use super::goal::Form;
use super::views::{BoardView, CardPlugs, CardView, CaseView, CoolerView, CpuView, KitView, Parts, PsuView, SlotView};
use kraftwerk_catalog::{Airflow, Catalog, CoolerType, GpuFormFactor, HasId, PartKind};

impl Parts {
    /// A copy with a view of GPU card `id` added when the list lacks it (a partner card folded
    /// into a twin of its class, which a must-have or owned card must not be); the copy as it
    /// was when the catalog has no such card.
    #[must_use]
    pub(crate) fn with_card(&self, catalog: &Catalog, id: &str) -> Parts {
        let mut p = self.clone();
        let card = catalog.gpu_or_card(id);
        let chip = catalog.gpu_card(id).and_then(|c| catalog.gpu(&c.chip)).or(catalog.gpu(id));
        if let (Some(g), Some(chip)) = (card, chip)
            && !p.cards.iter().any(|c| c.id == id)
        {
            let idx = p.cards.len();
            p.cards.push(card_view(idx, g, chip));
        }
        p
    }
}

/// Whether a GPU is bought used today. The catalog records no market status yet, so this is
/// the architecture: NVIDIA no longer makes Pascal, Volta and Turing parts nor the GeForce
/// RTX 30 series (Ampere), which are bought used (the "P40, V100, 3090 class").
pub(crate) fn used_market(gpu: &kraftwerk_catalog::Gpu) -> bool {
    let arch = gpu.architecture.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    matches!(arch.as_str(), "pascal" | "volta" | "turing") || (arch == "ampere" && gpu.is_geforce())
}

fn short_name(name: &str) -> String {
    name.trim_start_matches("GeForce ").to_owned()
}

/// The equivalence class of a GPU (chip or partner card) for the planner: chip, length
/// rounded up to 10 mm, slot width, power sockets, cooler, board power (W) and price (whole
/// USD). Two cards of one class give the same checks, power and fit to within 10 mm of length.
pub(crate) fn card_class(chip_id: &str, g: &kraftwerk_catalog::Gpu) -> String {
    let p = g.inputs();
    format!(
        "{chip_id}|{:?}|{}|{}-{}-{}-{}-{:?}-{}|{:?}|{:.0}|{:?}",
        g.length_mm.map(|l| (l / 10.0).ceil() as i64),
        g.width_slots,
        p.hpwr_16pin,
        p.pcie_8pin,
        p.eps_8pin,
        p.pcie_6pin,
        p.rated_w,
        g.power_inputs.is_some(),
        g.cooler,
        g.board_power_w,
        g.price_usd.map(|x| x.round() as i64)
    )
}

fn card_view(idx: usize, g: &kraftwerk_catalog::Gpu, chip: &kraftwerk_catalog::Gpu) -> CardView {
    CardView {
        idx,
        id: g.id.clone(),
        short: short_name(&chip.name),
        name: g.display_name(),
        chip_key: format!(
            "{}|{}|{}|{}|{:?}|{}x{}",
            chip.vendor, chip.architecture, g.memory_gib, g.memory_bandwidth_gb_s, g.peak, g.pcie_gen, g.pcie_lanes
        ),
        memory_gib: g.memory_gib,
        width_slots: g.width_slots,
        length_mm: g.length_mm,
        pcie_gen: g.pcie_gen,
        board_power_w: g.board_power_w,
        price_usd: g.price_usd,
        used_market: used_market(g),
        sxm: g.form_factor == GpuFormFactor::Sxm,
        passive: g.cooler == kraftwerk_catalog::GpuCooler::Passive,
        unvalidated: {
            // The hybrid splits this flag orders are llama.cpp placements on the card's
            // default back end (CUDA, HIP, SYCL by maker).
            let slot = [crate::estimate::llm::GpuSlot::new(g.clone())];
            let family =
                crate::estimate::llm::basis::family_on_default_backend(g, crate::estimate::llm::Runtime::LlamaCpp);
            !crate::estimate::llm::basis::not_measured_on(&slot, &family).is_empty()
        },
        plugs: g.power_inputs.map_or_else(CardPlugs::default, |i| CardPlugs {
            hpwr_16pin: i.hpwr_16pin,
            pcie: i.pcie_8pin.saturating_add(i.pcie_6pin),
            adapter_plugs: if i.hpwr_16pin > 0 { crate::check::adapter_plugs(g) } else { 0 },
            eps: if i.hpwr_16pin > 0 { 0 } else { i.eps_8pin },
        }),
    }
}

/// The card views: every chip's reference design, then the partner cards, one per class.
fn cards(catalog: &Catalog) -> (Vec<CardView>, usize) {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for g in &catalog.gpus {
        seen.insert(card_class(&g.id, g));
        out.push(card_view(out.len(), g, g));
    }
    let mut twins = 0;
    for g in &catalog.card_gpus {
        let Some(chip) = catalog.gpu_card(&g.id).and_then(|c| catalog.gpu(&c.chip)) else { continue };
        if seen.insert(card_class(&chip.id, g)) {
            out.push(card_view(out.len(), g, chip));
        } else {
            twins += 1;
        }
    }
    (out, twins)
}

fn case_view(idx: usize, c: &kraftwerk_catalog::Case) -> CaseView {
    CaseView {
        idx,
        id: c.id.clone(),
        form: match c.airflow {
            Airflow::Desktop => Form::Tower,
            Airflow::OpenFrame => Form::OpenFrame,
            Airflow::Server => Form::Rack,
        },
        form_factors: c.form_factors.clone(),
        expansion_slots: c.expansion_slots,
        max_gpu_length_mm: c.max_gpu_length_mm,
        max_cooler_height_mm: c.max_cooler_height_mm,
        max_radiator_mm: c.max_radiator_mm,
        psu_bays: c.psu_bays,
        price_usd: c.price_usd,
        figures_known: c.max_gpu_length_mm.is_some() && c.max_cooler_height_mm.is_some(),
    }
}

fn board_view(idx: usize, b: &kraftwerk_catalog::Motherboard) -> BoardView {
    let positions_known = b.slot_positions_known();
    let slots: Vec<SlotView> = b
        .pcie_slots
        .iter()
        .enumerate()
        .filter(|_| positions_known || b.slot_layout_known())
        .filter_map(|(i, s)| {
            Some(SlotView {
                position: if positions_known { s.position? } else { u8::try_from(i + 1).ok()? },
                physical_lanes: s.physical_lanes,
                pcie_gen: s.pcie_gen,
                cpu_lanes: s.lane_source == kraftwerk_catalog::LaneSource::Cpu,
            })
        })
        .collect();
    BoardView {
        idx,
        id: b.id.clone(),
        name: b.display_name(),
        socket: b.socket.clone(),
        chipset: b.chipset.clone(),
        cpu_sockets: b.cpu_sockets.max(1),
        memory_type: b.memory_type,
        memory_slots: b.memory_slots,
        memory_channels: b.memory_channels,
        max_memory_gb: b.max_memory_gb,
        form_factor: b.form_factor,
        wide_slots: slots.iter().filter(|s| s.physical_lanes >= 8).count(),
        cpu_wide_slots: slots.iter().filter(|s| s.physical_lanes >= 8 && s.cpu_lanes).count(),
        slots,
        positions_known,
        direction_known: b.slot_direction_known(),
        price_usd: b.price_usd,
        figures_known: b.max_memory_gb.is_some(),
        eps_8pin: b.eps_8pin,
    }
}

/// The views of every part in `catalog`, PSU ratings at `mains_v`.
pub fn read(catalog: &Catalog, mains_v: f64) -> Parts {
    let (cards, twin_cards) = cards(catalog);
    let boards = catalog.motherboards.iter().enumerate().map(|(idx, b)| board_view(idx, b)).collect();
    let cpus = catalog
        .cpus
        .iter()
        .enumerate()
        .map(|(idx, c)| CpuView {
            idx,
            id: c.id.clone(),
            name: c.name.clone(),
            socket: c.socket.clone(),
            max_sockets: c.max_sockets_known(),
            memory_types: c.memory_types.clone(),
            lanes: c.pcie_lanes.total(),
            price_usd: c.price_usd,
            figures_known: c.max_memory_gb.is_some() && c.package_power_w.is_some(),
        })
        .collect();
    let kits = catalog
        .memory
        .iter()
        .enumerate()
        .map(|(idx, k)| KitView {
            idx,
            id: k.id.clone(),
            memory_type: k.memory_type,
            modules: k.modules,
            total_gb: k.total_gb(),
            speed_mt_s: k.speed_mt_s,
            price_usd: k.price_usd,
        })
        .collect();
    let coolers = catalog
        .coolers
        .iter()
        .enumerate()
        .map(|(idx, c)| CoolerView {
            idx,
            id: c.id.clone(),
            sockets: c.sockets.clone(),
            price_usd: c.price_usd,
            figures_known: c.rated_tdp_w.is_some()
                && match c.cooler_type {
                    CoolerType::Air => c.height_mm.is_some(),
                    CoolerType::Aio => c.radiator_mm.is_some(),
                },
            height_mm: match c.cooler_type {
                CoolerType::Air => c.height_mm,
                CoolerType::Aio => None,
            },
            radiator_mm: match c.cooler_type {
                CoolerType::Air => None,
                CoolerType::Aio => c.radiator_mm,
            },
        })
        .collect();
    let cases = catalog.cases.iter().enumerate().map(|(idx, c)| case_view(idx, c)).collect();
    let psus = catalog
        .psus
        .iter()
        .enumerate()
        .map(|(idx, p)| PsuView {
            idx,
            id: p.id.clone(),
            rated_w: p.rated_w_at(mains_v),
            price_usd: p.price_usd,
            // A unit of unknown efficiency (no 80 PLUS rating known, no published curve) leaves the
            // wall draw unknown and the circuit not checked, and a 230 V unit whose low-line
            // rating is not published leaves its capacity on a low-line site unknown: they come
            // after the known ones.
            figures_known: p.connectors.hpwr_16pin.is_some()
                && p.connectors.pcie_8pin.is_some()
                && p.connectors.eps_8pin.is_some()
                && crate::estimate::power::efficiency_curve(p, mains_v).is_some()
                && !p.rating_unknown_at(mains_v),
            hpwr_16pin: p.connectors.hpwr_16pin,
            pcie_8pin: p.connectors.pcie_8pin,
            eps_8pin: p.connectors.eps_8pin,
        })
        .collect();
    Parts { cards, boards, cpus, kits, coolers, cases, psus, twin_cards }
}

/// `; did you mean: a, b?` for a part id the goal names (`--own`, `--must-have`) that is not in
/// the catalog: up to three ids of the kinds the planner builds with, nearest first, as a build
/// file's unknown id gets them ([`kraftwerk_catalog::search::suggest_ids`]); empty when none is
/// near (`rtx-3090` finds `nvidia-geforce-rtx-3090`).
pub(crate) fn did_you_mean(catalog: &Catalog, id: &str) -> String {
    let kinds = [
        PartKind::Gpu,
        PartKind::GpuCard,
        PartKind::Motherboard,
        PartKind::Cpu,
        PartKind::Case,
        PartKind::Psu,
        PartKind::Cooler,
        PartKind::Memory,
    ];
    let near = kraftwerk_catalog::search::suggest_ids(catalog, &kinds, id, 3);
    if near.is_empty() { String::new() } else { format!("; did you mean: {}?", near.join(", ")) }
}

/// The kind of the part with this id (a GPU chip or partner card is [`PartKind::Gpu`]), to
/// resolve a goal's must-have and owned parts; `None` for an id the catalog lacks.
pub(crate) fn part_kind(catalog: &Catalog, id: &str) -> Option<PartKind> {
    if catalog.gpu_or_card(id).is_some() {
        Some(PartKind::Gpu)
    } else if catalog.motherboard(id).is_some() {
        Some(PartKind::Motherboard)
    } else if catalog.cpu(id).is_some() {
        Some(PartKind::Cpu)
    } else if catalog.case(id).is_some() {
        Some(PartKind::Case)
    } else if catalog.psu(id).is_some() {
        Some(PartKind::Psu)
    } else if catalog.cooler(id).is_some() {
        Some(PartKind::Cooler)
    } else if catalog.memory_kit(id).is_some() {
        Some(PartKind::Memory)
    } else {
        None
    }
}

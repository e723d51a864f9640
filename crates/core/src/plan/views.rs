//! Plain views of the parts the search may pick ([`Parts`]), built once per plan from the
//! catalog: the few figures the search's cheap filters read (memory, slots, power, form,
//! price), and whether the figures the checker's rules need are published, so that the search
//! tries first the parts the checker can fully judge. The checker still judges every machine.
//!
//! GPU cards: every chip's reference design (`Catalog::gpus`) and every partner card resolved
//! against its chip (`Catalog::card_gpus`). Partner cards that the checker and the estimators
//! cannot tell apart (same chip, length to the next 10 mm, slot width, power sockets, cooler,
//! board power and price) are one option ([`card_class`]): the catalog lists hundreds of such
//! near-twins, and trying each would multiply the search without changing its answer.

use super::Form;
use kraftwerk_catalog::{Airflow, Catalog, CoolerType, GpuFormFactor, HasId};

pub use kraftwerk_catalog::{FormFactor, MemoryType};

/// A GPU card as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CardView {
    /// Index in [`Parts::cards`].
    pub idx: usize,
    /// Card id as a build names it (a chip id for a reference design, else a card id).
    pub id: String,
    /// Short name of the chip for messages (`RTX 4090`).
    pub short: String,
    /// Display name of the card.
    pub name: String,
    /// Cards with the same key have the same chip, memory and rates (so the same fit).
    pub chip_key: String,
    /// Memory, GiB.
    pub memory_gib: f64,
    /// Slots its bracket and cooler cover.
    pub width_slots: u8,
    /// Length, mm; `None` when unpublished (the case-fit rule then reports "not checked").
    pub length_mm: Option<f64>,
    /// PCIe generation of the card.
    pub pcie_gen: u8,
    /// Default board power, W.
    pub board_power_w: f64,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// Sold only used today (see [`used_market`]).
    pub used_market: bool,
    /// An SXM module (needs a baseboard, not a slot).
    pub sxm: bool,
    /// A passive (fanless) card: only a case with server airflow cools it (`passive-airflow`).
    pub passive: bool,
    /// Its power sockets as `psu-connectors` counts them: native 16-pin (12V-2x6) sockets,
    /// PCIe 8-pin and 6-pin sockets, and the PCIe 8-pin plugs its 16-pin adapter takes
    /// ([`crate::check::adapter_plugs`]); all 0 when the card's inputs are unpublished.
    pub plugs: CardPlugs,
}

/// A card's power sockets, as the `psu-connectors` rule counts them (see [`CardView::plugs`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardPlugs {
    /// Native 16-pin sockets.
    pub hpwr_16pin: u8,
    /// PCIe 8-pin plus 6-pin sockets (each takes one PCIe cable).
    pub pcie: u8,
    /// PCIe 8-pin plugs the card's 16-pin adapter takes when the PSU has no native 16-pin.
    pub adapter_plugs: u8,
}

impl CardPlugs {
    /// PCIe 8-pin cables a PSU with `psu_hpwr` native 16-pin cables (unknown: none) must have
    /// to feed `m` of these cards, as `psu-connectors` counts them: their PCIe sockets, and an
    /// adapter's plugs for each 16-pin socket the PSU cannot feed natively.
    pub fn pcie_needed(self, m: u32, psu_hpwr: Option<u8>) -> u32 {
        let hpwr = m * u32::from(self.hpwr_16pin);
        let short = hpwr.saturating_sub(u32::from(psu_hpwr.unwrap_or(0)));
        m * u32::from(self.pcie) + short * u32::from(self.adapter_plugs)
    }
}

/// One expansion slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotView {
    /// Position from the CPU (1 = top) on a board whose slot positions are known
    /// ([`BoardView::positions_known`]); else the slot's place in the board's slot list, from 1
    /// (a key, not a position: the planner then places cards by the slot's name).
    pub position: u8,
    /// Physical size, lanes.
    pub physical_lanes: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
    /// Wired to the CPU's lanes (else behind the chipset).
    pub cpu_lanes: bool,
}

/// A motherboard as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardView {
    /// Index in `Catalog::motherboards`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Vendor and name.
    pub name: String,
    /// CPU socket.
    pub socket: String,
    /// Chipset (decides the CPU family on a shared socket).
    pub chipset: String,
    /// CPU sockets on the board.
    pub cpu_sockets: u8,
    /// Memory type.
    pub memory_type: MemoryType,
    /// DIMM slots.
    pub memory_slots: u8,
    /// Memory channels.
    pub memory_channels: u8,
    /// Most memory the board takes, GB (`Motherboard::max_memory_gb`), if published.
    pub max_memory_gb: Option<u32>,
    /// Form factor.
    pub form_factor: FormFactor,
    /// Expansion slots (empty when the layout is unknown). With positions known, keyed by
    /// position; on a board wired without positions, by place in the board's slot list (the
    /// search then places cards by slot name, and the geometry rules say not checked).
    pub slots: Vec<SlotView>,
    /// Whether every slot's position is known (`Motherboard::slot_positions_known`).
    pub positions_known: bool,
    /// Slots with at least 8 physical lanes (where the search places a GPU).
    pub wide_slots: usize,
    /// Of those, the slots wired to the CPU (the search tries boards that put every card on
    /// CPU lanes first).
    pub cpu_wide_slots: usize,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// The figures the rules read are published (`max_memory_gb`).
    pub figures_known: bool,
}

/// A CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuView {
    /// Index in `Catalog::cpus`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Model name (tells the family on a shared socket).
    pub name: String,
    /// Socket.
    pub socket: String,
    /// Memory types it drives.
    pub memory_types: Vec<MemoryType>,
    /// PCIe lanes for slots and M.2.
    pub lanes: u16,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// The figures the rules read are published (`max_memory_gb`, `package_power_w`).
    pub figures_known: bool,
}

/// A memory kit.
#[derive(Debug, Clone, PartialEq)]
pub struct KitView {
    /// Index in `Catalog::memory`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Type.
    pub memory_type: MemoryType,
    /// Modules per kit.
    pub modules: u8,
    /// GB per kit.
    pub total_gb: u32,
    /// Data rate, MT/s.
    pub speed_mt_s: u32,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
}

/// A CPU cooler.
#[derive(Debug, Clone, PartialEq)]
pub struct CoolerView {
    /// Index in `Catalog::coolers`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Sockets it mounts on.
    pub sockets: Vec<String>,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// The figures the rules read are published (rating; height or radiator).
    pub figures_known: bool,
}

/// A case, rack chassis or open frame.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseView {
    /// Index in `Catalog::cases`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Tower, open frame or rack.
    pub form: Form,
    /// Board form factors it takes.
    pub form_factors: Vec<FormFactor>,
    /// Expansion-slot openings.
    pub expansion_slots: u8,
    /// Longest GPU it takes, mm, if published.
    pub max_gpu_length_mm: Option<f64>,
    /// PSU bays.
    pub psu_bays: u8,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// The figures the rules read are published (GPU length, cooler height).
    pub figures_known: bool,
}

/// A PSU.
#[derive(Debug, Clone, PartialEq)]
pub struct PsuView {
    /// Index in `Catalog::psus`.
    pub idx: usize,
    /// Id.
    pub id: String,
    /// Rated output at the goal's mains voltage, W.
    pub rated_w: f64,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// Its connector counts are published.
    pub figures_known: bool,
    /// Native 16-pin (12V-2x6) cables, if published.
    pub hpwr_16pin: Option<u8>,
    /// PCIe 8-pin cables, if published.
    pub pcie_8pin: Option<u8>,
}

/// Views of every part the search may pick, each list in catalog (id) order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parts {
    /// GPU cards (SXM modules included, flagged): reference designs, then partner cards, one
    /// per [`card_class`].
    pub cards: Vec<CardView>,
    /// Boards.
    pub boards: Vec<BoardView>,
    /// CPUs.
    pub cpus: Vec<CpuView>,
    /// Memory kits.
    pub kits: Vec<KitView>,
    /// Coolers.
    pub coolers: Vec<CoolerView>,
    /// Cases.
    pub cases: Vec<CaseView>,
    /// PSUs.
    pub psus: Vec<PsuView>,
    /// Partner cards left out as twins of a card kept ([`card_class`]).
    pub twin_cards: usize,
}

impl Parts {
    /// A copy with a view of GPU card `id` added when the list lacks it (a partner card folded
    /// into a twin of its class, which a must-have or owned card must not be); the copy as it
    /// was when the catalog has no such card.
    #[must_use]
    pub fn with_card(&self, catalog: &Catalog, id: &str) -> Parts {
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
pub fn used_market(gpu: &kraftwerk_catalog::Gpu) -> bool {
    let arch = gpu.architecture.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    matches!(arch.as_str(), "pascal" | "volta" | "turing") || (arch == "ampere" && gpu.is_geforce())
}

fn short_name(name: &str) -> String {
    name.trim_start_matches("GeForce ").to_owned()
}

/// The equivalence class of a GPU (chip or partner card) for the planner: chip, length
/// rounded up to 10 mm, slot width, power sockets, cooler, board power (W) and price (whole
/// USD). Two cards of one class give the same checks, power and fit to within 10 mm of length.
pub fn card_class(chip_id: &str, g: &kraftwerk_catalog::Gpu) -> String {
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
        plugs: g.power_inputs.map_or_else(CardPlugs::default, |i| CardPlugs {
            hpwr_16pin: i.hpwr_16pin,
            pcie: i.pcie_8pin.saturating_add(i.pcie_6pin),
            adapter_plugs: if i.hpwr_16pin > 0 { crate::check::adapter_plugs(g) } else { 0 },
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
        price_usd: b.price_usd,
        figures_known: b.max_memory_gb.is_some(),
    }
}

/// The views of every part in `catalog`, PSU ratings at `mains_v`.
pub fn parts(catalog: &Catalog, mains_v: f64) -> Parts {
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
            figures_known: p.connectors.hpwr_16pin.is_some()
                && p.connectors.pcie_8pin.is_some()
                && p.connectors.eps_8pin.is_some(),
            hpwr_16pin: p.connectors.hpwr_16pin,
            pcie_8pin: p.connectors.pcie_8pin,
        })
        .collect();
    Parts { cards, boards, cpus, kits, coolers, cases, psus, twin_cards }
}

/// The kind of the part with this id, to resolve a goal's must-have parts.
pub fn part_kind(catalog: &Catalog, id: &str) -> Option<&'static str> {
    if catalog.gpu_or_card(id).is_some() {
        Some("gpu")
    } else if catalog.motherboard(id).is_some() {
        Some("motherboard")
    } else if catalog.cpu(id).is_some() {
        Some("cpu")
    } else if catalog.case(id).is_some() {
        Some("case")
    } else if catalog.psu(id).is_some() {
        Some("psu")
    } else if catalog.cooler(id).is_some() {
        Some("cooler")
    } else if catalog.memory_kit(id).is_some() {
        Some("memory")
    } else {
        None
    }
}

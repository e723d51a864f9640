//! Plain views of the parts the search may pick ([`Parts`], read from the catalog once per plan
//! by [`super::parts::read`]): the few figures the search's cheap filters read (memory, slots,
//! power, form, price), and whether the figures the checker's rules need are published, so that
//! the search tries first the parts the checker can fully judge. The checker still judges every
//! machine.

use super::goal::Form;
use kraftwerk_catalog::{FormFactor, MemoryType};

/// A GPU card as the search sees it.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::struct_excessive_bools, reason = "four independent facts about a card, none a state of another")]
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
    /// Sold only used today (see [`super::parts::used_market`]).
    pub used_market: bool,
    /// An SXM module (needs a baseboard, not a slot).
    pub sxm: bool,
    /// A passive (fanless) card: only a case with server airflow cools it (`passive-airflow`).
    pub passive: bool,
    /// The held speed rows do not validate llama.cpp (the card's default back end) on the
    /// card's architecture ([`crate::estimate::llm::basis::not_measured_on`]: none there, or
    /// some outside ±25 %): its hybrid splits are tried after the validated cards'.
    pub unvalidated: bool,
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
    /// EPS (CPU) 8-pin sockets (Tesla P40, V100 PCIe and other datacenter cards take one; NVIDIA
    /// product briefs); 0 on a card with a 16-pin socket, as `psu-connectors` counts them.
    pub eps: u8,
}

impl CardPlugs {
    /// PCIe 8-pin cables a PSU with `psu_hpwr` native 16-pin cables (unknown: none) must have
    /// to feed `m` of these cards, as `psu-connectors` counts them: their PCIe sockets, and an
    /// adapter's plugs for each 16-pin socket the PSU cannot feed natively.
    pub(crate) fn pcie_needed(self, m: u32, psu_hpwr: Option<u8>) -> u32 {
        let hpwr = m * u32::from(self.hpwr_16pin);
        let short = hpwr.saturating_sub(u32::from(psu_hpwr.unwrap_or(0)));
        m * u32::from(self.pcie) + short * u32::from(self.adapter_plugs)
    }

    /// Whether a PSU with `psu_pcie` PCIe 8-pin and `psu_eps` EPS 8-pin cables (each `None` when
    /// unpublished) and `psu_hpwr` native 16-pin cables feeds the EPS 8-pin inputs of `m` of these
    /// cards plus `board_eps` of the board's (on the system PSU), as `psu-connectors` counts
    /// them: an unknown EPS count is not compared (the rule reports it not checked); a shortfall
    /// in the cards' EPS inputs may be met from spare PCIe 8-pins, two for each (the card's
    /// 2x PCIe-to-EPS adapter); the board's EPS inputs never are.
    pub(crate) fn eps_fits(
        self,
        m: u32,
        board_eps: u32,
        psu_hpwr: Option<u8>,
        psu_pcie: Option<u8>,
        psu_eps: Option<u8>,
    ) -> bool {
        let Some(have) = psu_eps else { return true };
        let gpu_eps = m * u32::from(self.eps);
        let short = (gpu_eps + board_eps).saturating_sub(u32::from(have));
        let spare = psu_pcie.map_or(0, |h| u32::from(h).saturating_sub(self.pcie_needed(m, psu_hpwr)));
        short == 0 || (short * 2 <= spare && short <= gpu_eps)
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
    /// Whether the positions' direction is known too (`Motherboard::slot_direction_known`):
    /// `false` where the positions are forced by the slot count only (`slot_order: EitherEnd`),
    /// so the checker judges the geometry both ways and the search places cards where both
    /// directions fit the case's openings.
    pub direction_known: bool,
    /// Slots with at least 8 physical lanes (where the search places a GPU).
    pub wide_slots: usize,
    /// Of those, the slots wired to the CPU (the search tries boards that put every card on
    /// CPU lanes first).
    pub cpu_wide_slots: usize,
    /// Price, USD, if known.
    pub price_usd: Option<f64>,
    /// The figures the rules read are published (`max_memory_gb`).
    pub figures_known: bool,
    /// EPS (CPU) 8-pin power inputs (`Motherboard::eps_8pin`, e.g. two on the ASUS ProArt
    /// X870E-CREATOR WIFI), if published; `psu-connectors` counts an unknown count as one.
    pub eps_8pin: Option<u8>,
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
    /// The most sockets of one board it runs in (`Cpu::max_sockets_known`), if known.
    pub max_sockets: Option<u8>,
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
    /// An air cooler's height, mm, if published (`None` for an AIO).
    pub height_mm: Option<f64>,
    /// An AIO's radiator length, mm, if published (`None` for an air cooler).
    pub radiator_mm: Option<u16>,
}

impl CoolerView {
    /// False only where published figures show the cooler does not fit `case` (an air cooler
    /// taller than its clearance, a radiator longer than its largest mount): the
    /// `cooler-clearance` rule's error. An unknown figure is not a conflict here; the rule
    /// reports it "not checked" on the build.
    pub fn fits(&self, case: &CaseView) -> bool {
        let tall = matches!((self.height_mm, case.max_cooler_height_mm), (Some(h), Some(max)) if h > max);
        let long = matches!((self.radiator_mm, case.max_radiator_mm), (Some(r), Some(max)) if r > max);
        !tall && !long
    }
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
    /// Tallest air cooler it takes, mm, if published.
    pub max_cooler_height_mm: Option<f64>,
    /// Longest radiator it mounts, mm, if published.
    pub max_radiator_mm: Option<u16>,
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
    /// Its connector counts and its efficiency (a published curve or an 80 PLUS level) are
    /// published.
    pub figures_known: bool,
    /// Native 16-pin (12V-2x6) cables, if published.
    pub hpwr_16pin: Option<u8>,
    /// PCIe 8-pin cables, if published.
    pub pcie_8pin: Option<u8>,
    /// EPS (CPU) 8-pin cables, if published.
    pub eps_8pin: Option<u8>,
}

/// Views of every part the search may pick, each list in catalog (id) order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parts {
    /// GPU cards (SXM modules included, flagged): reference designs, then partner cards, one
    /// per [`super::parts::card_class`].
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
    /// Partner cards left out as twins of a card kept ([`super::parts::card_class`]).
    pub twin_cards: usize,
}

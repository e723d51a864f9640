//! Motherboards, slot by slot.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- motherboard

/// Board and case form factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FormFactor {
    /// Mini-ITX, 170 x 170 mm.
    MiniItx,
    /// Micro-ATX, 244 x 244 mm.
    MicroAtx,
    /// ATX, 305 x 244 mm.
    Atx,
    /// Extended ATX (vendor-defined, up to about 305 x 277 mm).
    EAtx,
    /// SSI CEB, 305 x 267 mm.
    Ceb,
    /// SSI EEB, 305 x 330 mm.
    Eeb,
    /// Server board in a proprietary size (HGX systems).
    Proprietary,
}

impl std::fmt::Display for FormFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FormFactor::MiniItx => "Mini-ITX",
            FormFactor::MicroAtx => "Micro-ATX",
            FormFactor::Atx => "ATX",
            FormFactor::EAtx => "E-ATX",
            FormFactor::Ceb => "SSI-CEB",
            FormFactor::Eeb => "SSI-EEB",
            FormFactor::Proprietary => "proprietary",
        })
    }
}

/// Where a slot's lanes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneSource {
    /// CPU root port.
    Cpu,
    /// Chipset (shares the chipset's uplink to the CPU).
    Chipset,
}

/// A lane-sharing rule: when the named slot or M.2 socket is populated, this one runs at
/// `lanes` (0 = disabled). From the board manual's expansion-slot table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneShare {
    /// Name of the other slot or M.2 socket (as in `PcieSlot::name` / `M2Slot::name`).
    pub when_used: String,
    /// Electrical lanes left to this slot then.
    pub lanes: u8,
}

/// A PCIe expansion slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcieSlot {
    /// Silkscreen name (`PCIEX16_1`).
    pub name: String,
    /// Expansion-slot position, 1 = the one nearest the CPU (top in a tower), one per slot
    /// pitch (20.32 mm). A card of width `w` in position `p` covers positions `p .. p + w - 1`.
    /// `None`: the slot is known electrically but no source gives where it sits (the geometry
    /// rules then report "not checked"). Files write `position: 3` or `position: Some(3)`.
    #[serde(default)]
    pub position: Option<u8>,
    /// Physical connector size in lanes (16, 8, 4, 1).
    pub physical_lanes: u8,
    /// Electrical lanes with nothing shared.
    pub electrical_lanes: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
    /// CPU or chipset lanes.
    pub lane_source: LaneSource,
    /// Sharing rules.
    #[serde(default)]
    pub shares: Vec<LaneShare>,
    /// Electrical lanes with named CPUs where they differ from `electrical_lanes` (APUs often
    /// halve them), from the board manual's CPU-support footnotes. The first entry with a
    /// fragment found in the build's CPU name (case-insensitive) applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lanes_by_cpu: Vec<CpuLanes>,
    /// Bifurcation modes the manual or BIOS documents for this slot (`x16`, `x8/x8`,
    /// `x4/x4/x4/x4`); empty = not documented.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bifurcation: Vec<String>,
}

/// A slot's electrical lanes with some CPUs: `lanes` when the build's CPU name contains one of
/// `cpus` (case-insensitive name fragments such as `8700G`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuLanes {
    /// CPU name fragments, matched case-insensitively against the CPU's name.
    pub cpus: Vec<String>,
    /// Electrical lanes of the slot with such a CPU (before sharing).
    pub lanes: u8,
}

impl PcieSlot {
    /// Electrical lanes with the CPU named `cpu_name` (before sharing rules): the first
    /// [`CpuLanes`] entry that names a fragment of it, else `electrical_lanes`.
    pub fn lanes_with_cpu(&self, cpu_name: Option<&str>) -> u8 {
        let Some(name) = cpu_name.map(str::to_ascii_lowercase) else { return self.electrical_lanes };
        if let Some(l) = self
            .lanes_by_cpu
            .iter()
            .find(|l| l.cpus.iter().any(|f| !f.is_empty() && name.contains(&f.to_ascii_lowercase())))
        {
            return l.lanes;
        }
        // A CPU slot with an AM5 Phoenix APU gives the graphics slot fewer lanes than the board's
        // wiring for Raphael and Granite Ridge, whatever the board ([`super::cpu::apu_graphics_lanes`]).
        match (self.lane_source, super::cpu::apu_graphics_lanes(&name)) {
            (LaneSource::Cpu, Some(cap)) => self.electrical_lanes.min(cap),
            _ => self.electrical_lanes,
        }
    }

    /// The position in words: `position 3`, or `position unknown`.
    pub fn position_text(&self) -> String {
        self.position.map_or_else(|| "position unknown".to_owned(), |p| format!("position {p}"))
    }
}

/// An M.2 socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct M2Slot {
    /// Silkscreen name (`M.2_1`).
    pub name: String,
    /// Electrical lanes.
    pub lanes: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
    /// CPU or chipset lanes.
    pub lane_source: LaneSource,
    /// Sharing rules.
    #[serde(default)]
    pub shares: Vec<LaneShare>,
}

/// A group of identical PCIe slots without positions: `quantity` slots of `lanes` lanes at
/// `pcie_gen` (BuildCores OpenDB's `pcie_slots` summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotCount {
    /// Number of such slots.
    pub quantity: u8,
    /// Lanes (physical size as listed).
    pub lanes: u8,
    /// PCIe generation, if listed.
    #[serde(default)]
    pub pcie_gen: Option<u8>,
}

/// Which way a board's slot positions run: what the geometry rules may take as "position 1".
///
/// A source that places the slots (a manual's layout figure) gives both where the slots sit and
/// which end is nearest the CPU: [`SlotOrder::Stated`]. Positions forced by the slot count alone
/// (as many slots as the form factor has expansion positions: every position holds one slot,
/// [`crate::wiring`]'s derivation) fix the spacing but not the direction: slot `k` of the list
/// is at position `k` counted from one end, and no source says from which. That is
/// [`SlotOrder::EitherEnd`]: position `p` may be position `n + 1 - p` counted from the CPU
/// ([`Motherboard::reversed_positions`]), and the checker judges the geometry both ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SlotOrder {
    /// Positions as a source gives them: 1 = the slot nearest the CPU.
    #[default]
    Stated,
    /// Positions forced by the slot count, direction unknown: position 1 is the first listed
    /// slot counted from one end of the board's slot edge, which end no source says.
    EitherEnd,
}

impl SlotOrder {
    /// Whether this is the default ([`SlotOrder::Stated`]): files leave it out.
    pub fn is_stated(&self) -> bool {
        *self == SlotOrder::Stated
    }
}

/// A motherboard with its slot-by-slot PCIe layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motherboard {
    /// Stable id.
    pub id: String,
    /// Maker.
    pub vendor: String,
    /// Model.
    pub name: String,
    /// CPU socket.
    pub socket: String,
    /// Chipset (`WRX90`, `X870E`; `SoC` for EPYC boards).
    pub chipset: String,
    /// CPU sockets (2 on dual-socket servers; the build's CPU is fitted in each).
    #[serde(default = "one")]
    pub cpu_sockets: u8,
    /// Form factor.
    pub form_factor: FormFactor,
    /// Memory type supported.
    pub memory_type: MemoryType,
    /// DIMM slots.
    pub memory_slots: u8,
    /// Memory channels wired.
    pub memory_channels: u8,
    /// Maximum memory, GB, if published.
    #[serde(default)]
    pub max_memory_gb: Option<u32>,
    /// PCIe expansion slots, by position. Empty with a non-empty `slot_summary` means the
    /// slot layout is unknown (imported boards): slot rules report "not checked".
    #[serde(default)]
    pub pcie_slots: Vec<PcieSlot>,
    /// Slot counts without positions, as a database lists them (imported boards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slot_summary: Vec<SlotCount>,
    /// Which way `pcie_slots.position` runs ([`SlotOrder`]): `Stated` (the default, left out of
    /// files) where a source places the slots, `EitherEnd` where the positions are forced by the
    /// slot count and the numbering direction is unknown.
    #[serde(default, skip_serializing_if = "SlotOrder::is_stated")]
    pub slot_order: SlotOrder,
    /// M.2 sockets.
    #[serde(default)]
    pub m2_slots: Vec<M2Slot>,
    /// M.2 sockets as a database lists them (`PCIe 4.0 x4`), without names or lane sources
    /// (imported boards; `m2_slots` then stays empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub m2_interfaces: Vec<String>,
    /// EPS-12V 8-pin CPU power inputs; `None` = unknown.
    #[serde(default)]
    pub eps_8pin: Option<u8>,
    /// Extra PCIe/6-pin power inputs for the slots, if any.
    #[serde(default)]
    pub aux_pcie_power: u8,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Where the price comes from when it is not the part's own `source`: the street-price
    /// import (`docyx/pc-part-dataset@<commit>, PCPartPicker-derived, MIT`, with "median of N
    /// listings" where several were combined) or `user price file`; `None`: the part's `source`
    /// and `notes` (a curated launch MSRP or dated street price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Provenance notes (which rules come from the manual, which are unconfirmed).
    #[serde(default)]
    pub notes: Option<String>,
    /// Per-figure provenance (curated parts: all from `source`).
    #[serde(default, skip_serializing_if = "Sources::is_default")]
    pub provenance: std::sync::Arc<Sources>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

impl Motherboard {
    /// The slot at expansion position `position`, if any (slots of unknown position are never
    /// found by position; see [`Self::slot_named`]).
    pub fn slot_at(&self, position: u8) -> Option<&PcieSlot> {
        self.pcie_slots.iter().find(|s| s.position == Some(position))
    }

    /// The slot whose silkscreen name is `name` (exact, else ASCII case-insensitive), if any.
    pub fn slot_named(&self, name: &str) -> Option<&PcieSlot> {
        self.pcie_slots
            .iter()
            .find(|s| s.name == name)
            .or_else(|| self.pcie_slots.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
    }

    /// Whether every slot's position is known (and the layout is): what the geometry rules
    /// (card thickness, air gaps, case openings, NVLink spacing) need. A wired board whose
    /// source gives no positions has its wiring known and its positions not.
    pub fn slot_positions_known(&self) -> bool {
        self.slot_layout_known() && self.pcie_slots.iter().all(|s| s.position.is_some())
    }

    /// Whether the slot positions are known including which end is nearest the CPU: known
    /// positions ([`Self::slot_positions_known`]) whose order a source states
    /// ([`SlotOrder::Stated`]). `false` for positions forced by the slot count only.
    pub fn slot_direction_known(&self) -> bool {
        self.slot_positions_known() && self.slot_order == SlotOrder::Stated
    }

    /// The board as it would be if its slot numbering ran from the other end: each slot's
    /// position `p` becomes `n + 1 - p`, `n` being the highest position (on a board whose
    /// positions are forced by the count, the form factor's number of expansion positions), and
    /// the result is marked [`SlotOrder::Stated`] so it is judged as one fixed layout. `None`
    /// unless the positions are known and their direction is not ([`SlotOrder::EitherEnd`]):
    /// only then is the reversed layout as likely as the listed one.
    pub fn reversed_positions(&self) -> Option<Motherboard> {
        if self.slot_order != SlotOrder::EitherEnd || !self.slot_positions_known() {
            return None;
        }
        let n = self.pcie_slots.iter().filter_map(|s| s.position).max()?;
        let mut out = self.clone();
        for s in &mut out.pcie_slots {
            s.position = s.position.map(|p| n - p + 1);
        }
        out.slot_order = SlotOrder::Stated;
        Some(out)
    }

    /// Whether the board's M.2 sockets are known: some are listed by name, or a curated, user or
    /// inline source says it has none. `false` for imported boards (OpenDB lists socket types in
    /// `m2_interfaces`, not names or lane sources) and for boards wired from a source that did
    /// not name the sockets.
    pub fn m2_sockets_known(&self) -> bool {
        if !self.m2_slots.is_empty() {
            return true;
        }
        self.m2_interfaces.is_empty()
            && matches!(
                self.provenance.of("m2_slots"),
                Provenance::Vendor | Provenance::Review | Provenance::Firmware | Provenance::Derived(_)
            )
    }

    /// Whether the slot-by-slot layout is known (curated boards); `false` for imported boards
    /// that only list slot counts, and for imported boards whose record lists no slots at all
    /// (the database said nothing, which is not "this board has no slots"). A curated, user or
    /// inline board with no slots and no summary is taken at its word: no slots.
    pub fn slot_layout_known(&self) -> bool {
        if !self.pcie_slots.is_empty() {
            return true;
        }
        let from_a_source = matches!(
            self.provenance.of("pcie_slots"),
            Provenance::Vendor | Provenance::Review | Provenance::Firmware | Provenance::Derived(_)
        );
        self.slot_summary.is_empty() && from_a_source
    }

    /// The board's PCIe slots in words for people: `7 PCIe slots` when the layout is known,
    /// else what the import lists (`slot layout unknown (listed: 3 x x16-size, 1 x x1)`), so
    /// no face shows "0 PCIe slots" for a board whose slots are merely not in the catalog.
    pub fn slots_text(&self) -> String {
        if self.slot_layout_known() {
            let n = self.pcie_slots.len();
            let unplaced = if n > 0 && !self.slot_positions_known() { ", positions unknown" } else { "" };
            return format!("{n} PCIe slot{}{unplaced}", if n == 1 { "" } else { "s" });
        }
        if self.slot_summary.is_empty() {
            return "slot layout unknown".to_owned();
        }
        let listed: Vec<String> =
            self.slot_summary.iter().map(|s| format!("{} x x{}-size", s.quantity, s.lanes)).collect();
        format!("slot layout unknown (listed: {})", listed.join(", "))
    }

    /// The board's M.2 sockets in words for people: `4 M.2` when they are known
    /// ([`Self::m2_sockets_known`]), else `M.2 sockets unknown`, with what an import lists
    /// (`M.2 sockets unknown (listed: PCIe 4.0 x4, ...)`), so no face prints "0 M.2" for a board
    /// whose sockets are merely not in the catalog.
    pub fn m2_text(&self) -> String {
        if self.m2_sockets_known() {
            format!("{} M.2", self.m2_slots.len())
        } else if self.m2_interfaces.is_empty() {
            "M.2 sockets unknown".to_owned()
        } else {
            format!("M.2 sockets unknown (listed: {})", self.m2_interfaces.join(", "))
        }
    }

    /// Highest expansion-slot position on the board (0 when there are none).
    pub fn last_position(&self) -> u8 {
        self.pcie_slots.iter().filter_map(|s| s.position).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(source: LaneSource, by_cpu: Vec<CpuLanes>) -> PcieSlot {
        PcieSlot {
            name: "PCIEX16_1".into(),
            position: None,
            physical_lanes: 16,
            electrical_lanes: 16,
            pcie_gen: 4,
            lane_source: source,
            shares: Vec::new(),
            lanes_by_cpu: by_cpu,
            bifurcation: Vec::new(),
        }
    }

    /// An AM5 Phoenix APU gives the CPU's graphics slot x8 (Phoenix) or x4 (Phoenix 2) where
    /// the board's wiring states nothing for it; the board's own entry wins; chipset slots and
    /// other CPUs keep the wiring's lanes.
    #[test]
    fn phoenix_apus_narrow_the_graphics_slot_unless_the_board_says_otherwise() {
        let cpu_slot = slot(LaneSource::Cpu, Vec::new());
        assert_eq!(cpu_slot.lanes_with_cpu(Some("Ryzen 5 8400F")), 8);
        assert_eq!(cpu_slot.lanes_with_cpu(Some("Ryzen 7 8700G")), 8);
        assert_eq!(cpu_slot.lanes_with_cpu(Some("Ryzen 5 8500G")), 4);
        assert_eq!(cpu_slot.lanes_with_cpu(Some("Ryzen 7 7700X")), 16);
        assert_eq!(cpu_slot.lanes_with_cpu(Some("Ryzen 5 4500")), 16, "Renoir: x16 at PCIe 3.0");
        assert_eq!(cpu_slot.lanes_with_cpu(None), 16);
        let stated = slot(LaneSource::Cpu, vec![CpuLanes { cpus: vec!["8400F".into()], lanes: 4 }]);
        assert_eq!(stated.lanes_with_cpu(Some("Ryzen 5 8400F")), 4);
        let chipset = slot(LaneSource::Chipset, Vec::new());
        assert_eq!(chipset.lanes_with_cpu(Some("Ryzen 5 8400F")), 16);
    }
}

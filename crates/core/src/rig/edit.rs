//! Domain edits of a [`Build`] that need no window: adding and removing GPUs, PSUs, drives and
//! bridges with their indices kept consistent, placing cards in free slots, merging inline parts.
//! The GUI's commands call these; so may any other face (the planner, scripts).
//!
//! Every function takes the catalog the build is resolved against (inline parts first, see
//! [`merged`]) and never fails: an index out of range or an unknown id leaves the build as it
//! was (or, for slot placement, leaves the card unplaced).

use super::{Build, GpuPlacement, NvlinkBridge, PsuUse, SlotRef, StorageUse};
use kraftwerk_catalog::{self as catalog, Catalog, GpuFormFactor, HasId, PartsFile};

/// Most GPUs [`Build::set_gpu_count`] adds (a guard against a runaway spinner, not a hardware
/// limit).
pub(crate) const MAX_GPUS: usize = 64;

/// Parts of one kind as the build sees them: inline parts first, then catalog parts whose id
/// no inline part overrides.
pub fn merged<'a, T: HasId>(inline: &'a [T], catalog: &'a [T]) -> Vec<&'a T> {
    let mut v: Vec<&T> = inline.iter().collect();
    v.extend(catalog.iter().filter(|c| !inline.iter().any(|i| i.id() == c.id())));
    v
}

/// Slot width, edge lanes and whether it is an SXM module, of GPU model `id` as the build sees
/// it (1 slot, x16, not SXM when the id is unknown).
pub(crate) fn gpu_shape(build: &Build, catalog: &Catalog, id: &str) -> (u8, u8, bool) {
    build
        .parts
        .gpus
        .iter()
        .find(|g| g.id == id)
        .or_else(|| catalog.gpu_or_card(id))
        .map_or((1, 16, false), |g| (g.width_slots.max(1), g.pcie_lanes, g.form_factor == GpuFormFactor::Sxm))
}

/// The first slot position where a card `width` slots thick with an x`lanes` edge fits without
/// touching the cards already placed (ignoring GPU `skip`); CPU-wired slots before chipset ones.
/// `None` without a known motherboard, when no slot is free, or on a board whose slot positions
/// are unknown (see [`free_slot_ref`]). A card on a riser takes one slot.
pub fn free_slot(build: &Build, catalog: &Catalog, width: u8, lanes: u8, skip: Option<usize>) -> Option<u8> {
    match free_slot_ref(build, catalog, width, lanes, skip)? {
        SlotRef::Position(p) => Some(p),
        SlotRef::Name(_) => None,
    }
}

/// [`free_slot`], also for a board whose wiring is known but not its slot positions: there the
/// first slot (CPU-wired first, in the board's order) no other GPU is placed in, by name.
pub(crate) fn free_slot_ref(
    build: &Build,
    catalog: &Catalog,
    width: u8,
    lanes: u8,
    skip: Option<usize>,
) -> Option<SlotRef> {
    let r = build.resolve(catalog);
    let board = r.board?;
    let mut slots: Vec<&catalog::PcieSlot> =
        board.pcie_slots.iter().filter(|s| s.physical_lanes >= lanes && s.electrical_lanes > 0).collect();
    slots.sort_by_key(|s| (s.lane_source == catalog::LaneSource::Chipset, s.position));
    let others = build.gpus.iter().enumerate().filter(|(j, _)| Some(*j) != skip).map(|(_, p)| p);
    if !board.slot_positions_known() {
        let used: Vec<&str> = others.filter_map(|p| p.slot_in(board)).map(|s| s.name.as_str()).collect();
        return slots.into_iter().find(|s| !used.contains(&s.name.as_str())).map(|s| SlotRef::Name(s.name.clone()));
    }
    let taken: Vec<(u8, u8)> = build
        .gpus
        .iter()
        .zip(&r.gpus)
        .enumerate()
        .filter(|(j, _)| Some(*j) != skip)
        .filter_map(|(_, (p, g))| {
            let pos = p.position_on(Some(board))?;
            let w = if p.riser.is_some() { 1 } else { g.map_or(1, |g| g.width_slots.max(1)) };
            Some((pos, pos.saturating_add(w - 1)))
        })
        .collect();
    let fits = |pos: u8| {
        let end = pos.saturating_add(width.max(1) - 1);
        taken.iter().all(|&(a, b)| end < a || pos > b)
    };
    slots.into_iter().filter_map(|s| s.position).find(|&p| fits(p)).map(SlotRef::Position)
}

/// A slot [`choose_slots`] may give a card: position (1 = nearest the CPU), physical lanes,
/// and whether it is wired to the CPU (else to the chipset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotOption {
    /// Expansion-slot position.
    pub position: u8,
    /// Physical connector size, lanes.
    pub physical_lanes: u8,
    /// Wired to the CPU's lanes (not behind the chipset's uplink).
    pub cpu_lanes: bool,
}

/// The slot positions for cards of `(width in slots, edge lanes)`, in card order, that clear
/// every avoidable placement finding: fewest cards on chipset lanes (the `pcie-lane-budget`
/// rule), then fewest cards with no empty slot below them (the `open-air-gap` rule: a 3-slot
/// card in slot 1 and the next in slot 5 rather than 4 where the board has slot 5), then the
/// lowest positions. Cards never overlap, each takes a slot at least as wide as its edge, and
/// the last covered position stays within `openings` (the case's expansion-slot openings) when
/// given. `None` when the cards do not fit. The planner ([`crate::plan`]) and Auto-place
/// ([`Build::auto_place_gpus`]) both place cards with it. Exhaustive over the slots (a board
/// has at most a dozen), so the choice is the best, not the first.
pub fn choose_slots(slots: &[SlotOption], cards: &[(u8, u8)], openings: Option<u8>) -> Option<Vec<u8>> {
    /// The best placement so far: (cards on chipset lanes, cards with no gap, sum of
    /// positions) and the positions.
    type Best = Option<((usize, usize, u32), Vec<u8>)>;
    fn walk(
        slots: &[SlotOption],
        cards: &[(u8, u8)],
        openings: Option<u8>,
        from: usize,
        next_free: u8,
        chosen: &mut Vec<usize>,
        best: &mut Best,
    ) {
        let i = chosen.len();
        if i == cards.len() {
            let positions: Vec<u8> = chosen.iter().map(|&j| slots[j].position).collect();
            let chipset = chosen.iter().filter(|&&j| !slots[j].cpu_lanes).count();
            let no_gap =
                positions.windows(2).zip(cards).filter(|(w, c)| w[1] == w[0].saturating_add(c.0.max(1))).count();
            let sum = positions.iter().map(|&p| u32::from(p)).sum();
            let key = (chipset, no_gap, sum);
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                *best = Some((key, positions));
            }
            return;
        }
        let (width, lanes) = cards[i];
        for j in from..slots.len() {
            let s = slots[j];
            let last = s.position.saturating_add(width.max(1) - 1);
            if s.position < next_free || s.physical_lanes < lanes || openings.is_some_and(|o| last > o) {
                continue;
            }
            chosen.push(j);
            walk(slots, cards, openings, j + 1, last.saturating_add(1), chosen, best);
            chosen.pop();
        }
    }
    let mut sorted = slots.to_vec();
    sorted.sort_by_key(|s| s.position);
    sorted.dedup_by_key(|s| s.position);
    let mut best = None;
    walk(&sorted, cards, openings, 0, 0, &mut Vec::new(), &mut best);
    best.map(|(_, p)| p)
}

/// `(slot, slot_name)` of a [`GpuPlacement`] for a free slot found by [`free_slot_ref`].
fn placement_fields(r: Option<SlotRef>) -> (Option<u8>, Option<String>) {
    match r {
        Some(SlotRef::Position(p)) => (Some(p), None),
        Some(SlotRef::Name(n)) => (None, Some(n)),
        None => (None, None),
    }
}

impl Build {
    /// Adds a drive, placed in the first M.2 socket of the board no other drive uses (none when
    /// all are taken or the board is unknown).
    pub fn add_storage(&mut self, catalog: &Catalog, drive: String) {
        let r = self.resolve(catalog);
        let used: Vec<&str> = self.storage.iter().filter_map(|s| s.m2_slot.as_deref()).collect();
        let m2_slot = r
            .board
            .and_then(|bd| bd.m2_slots.iter().find(|m| !used.contains(&m.name.as_str())).map(|m| m.name.clone()));
        self.storage.push(StorageUse { drive, m2_slot });
    }

    /// Adds a GPU of model `id` in the first free slot that fits it (SXM modules take no slot),
    /// copying the power limit and PSU of the last GPU when it is the same model.
    pub fn add_gpu(&mut self, catalog: &Catalog, id: String) {
        let (w, lanes, sxm) = gpu_shape(self, catalog, &id);
        let last = self.gpus.last().filter(|g| g.gpu == id);
        let power_limit_w = last.and_then(|g| g.power_limit_w);
        let psu = last.map_or(0, |g| g.psu);
        let (slot, slot_name) =
            if sxm { (None, None) } else { placement_fields(free_slot_ref(self, catalog, w, lanes, None)) };
        self.gpus.push(GpuPlacement { gpu: id, slot_name, slot, power_limit_w, riser: None, psu, cable: None });
    }

    /// Removes GPU `i`: bridges to it go, bridge indices of later GPUs shift down.
    pub fn remove_gpu(&mut self, i: usize) {
        if i >= self.gpus.len() {
            return;
        }
        self.gpus.remove(i);
        self.nvlink.retain(|br| br.gpus.0 != i && br.gpus.1 != i);
        for br in &mut self.nvlink {
            if br.gpus.0 > i {
                br.gpus.0 -= 1;
            }
            if br.gpus.1 > i {
                br.gpus.1 -= 1;
            }
        }
    }

    /// Adds or removes GPUs at the end until there are `n` (at most [`MAX_GPUS`]); new ones are
    /// of model `id`.
    pub fn set_gpu_count(&mut self, catalog: &Catalog, n: usize, id: &str) {
        let n = n.min(MAX_GPUS);
        while self.gpus.len() > n {
            self.remove_gpu(self.gpus.len() - 1);
        }
        while self.gpus.len() < n {
            self.add_gpu(catalog, id.to_owned());
        }
    }

    /// Changes the model of GPU `which` (`None`: every GPU); its power limit returns to the
    /// card's default. An owned unit named by its chip that becomes one of that chip's partner
    /// cards in `catalog` stays owned, now as that card: the owner has named the card they have
    /// (`owned: ["1x nvidia-geforce-rtx-3090"]` becomes `["1x asus-rog-strix-..."]`), so the
    /// rules that need its length, thickness and sockets run ([`super::Resolved::unnamed_cards`]).
    pub fn set_gpu_model(&mut self, catalog: &Catalog, which: Option<usize>, id: &str) {
        let owned = self.owned_units(self.gpus.iter().map(|g| (g.gpu.as_str(), 1)));
        let mut named: Vec<String> = Vec::new();
        for (i, g) in self.gpus.iter_mut().enumerate() {
            if which.is_none_or(|w| w == i) {
                let names_the_card = owned.get(i).copied().unwrap_or(0) > 0
                    && catalog.gpu_cards.iter().any(|c| c.id == id && c.chip == g.gpu);
                if names_the_card {
                    named.push(std::mem::replace(&mut g.gpu, id.to_owned()));
                } else {
                    id.clone_into(&mut g.gpu);
                }
                g.power_limit_w = None;
            }
        }
        for chip in named {
            self.move_owned_unit(&chip, id);
        }
    }

    /// Moves one owned unit of `from` to `to` in `owned`: `"2x from"` becomes `"1x from"` and
    /// `"1x to"` (added to a counted `to` entry if there is one); a plain `from` (every unit
    /// owned) stays and gains a plain `to`.
    fn move_owned_unit(&mut self, from: &str, to: &str) {
        use super::pricing::parse_owned;
        let Some(k) = self.owned.iter().position(|o| parse_owned(o).0 == from) else { return };
        let Some(n) = parse_owned(&self.owned[k]).1 else {
            if !self.owned.iter().any(|o| o == to) {
                self.owned.push(to.to_owned());
            }
            return;
        };
        if n > 1 {
            self.owned[k] = format!("{}x {from}", n - 1);
        } else {
            self.owned.remove(k);
        }
        match self.owned.iter().position(|o| matches!(parse_owned(o), (id, Some(_)) if id == to)) {
            Some(j) => {
                let m = parse_owned(&self.owned[j]).1.unwrap_or(0);
                self.owned[j] = format!("{}x {to}", m.saturating_add(1));
            }
            None if self.owned.iter().any(|o| o == to) => {}
            None => self.owned.push(format!("1x {to}")),
        }
    }

    /// Places every GPU again, in order, in the first free slots that fit them.
    pub fn auto_place_gpus(&mut self, catalog: &Catalog) {
        for g in &mut self.gpus {
            g.slot = None;
            g.slot_name = None;
        }
        if self.place_best(catalog) {
            return;
        }
        for i in 0..self.gpus.len() {
            let (w, lanes, sxm) = gpu_shape(self, catalog, &self.gpus[i].gpu);
            if sxm {
                continue;
            }
            let w = if self.gpus[i].riser.is_some() { 1 } else { w };
            let (slot, slot_name) = placement_fields(free_slot_ref(self, catalog, w, lanes, Some(i)));
            self.gpus[i].slot = slot;
            self.gpus[i].slot_name = slot_name;
        }
    }

    /// Places every card at once with [`choose_slots`] on a board whose slot positions are
    /// known (cards on risers take one slot, SXM modules none); `false`, leaving the build as
    /// it was, when the board or its positions are unknown or the cards do not fit together.
    fn place_best(&mut self, catalog: &Catalog) -> bool {
        let r = self.resolve(catalog);
        let Some(board) = r.board.filter(|b| b.slot_positions_known()) else { return false };
        let slots: Vec<SlotOption> = board
            .pcie_slots
            .iter()
            .filter(|s| s.electrical_lanes > 0)
            .filter_map(|s| {
                Some(SlotOption {
                    position: s.position?,
                    physical_lanes: s.physical_lanes,
                    cpu_lanes: s.lane_source == catalog::LaneSource::Cpu,
                })
            })
            .collect();
        let openings = r.case.map(|c| c.expansion_slots).filter(|&o| o > 0);
        let mut which = Vec::new();
        let mut cards = Vec::new();
        for (i, g) in self.gpus.iter().enumerate() {
            let (w, lanes, sxm) = gpu_shape(self, catalog, &g.gpu);
            if sxm {
                continue;
            }
            which.push(i);
            cards.push((if g.riser.is_some() { 1 } else { w }, lanes));
        }
        let Some(positions) = choose_slots(&slots, &cards, openings) else { return false };
        for (i, p) in which.into_iter().zip(positions) {
            self.gpus[i].slot = Some(p);
        }
        true
    }

    /// Adds a PSU on circuit 1; the first one feeds the system.
    pub fn add_psu(&mut self, id: String) {
        let feeds_system = if self.psus.is_empty() { None } else { Some(false) };
        self.psus.push(PsuUse { psu: id, feeds_system, circuit: 0 });
    }

    /// Removes PSU `i`: its GPUs move to PSU 1, later indices shift, and when the system PSU
    /// went the first one feeds the system.
    pub fn remove_psu(&mut self, i: usize) {
        if i >= self.psus.len() {
            return;
        }
        self.psus.remove(i);
        for g in &mut self.gpus {
            if g.psu == i {
                g.psu = 0;
            } else if g.psu > i {
                g.psu -= 1;
            }
        }
        if !self.psus.is_empty() && !self.psus.iter().any(|p| p.feeds_system == Some(true)) {
            for (k, p) in self.psus.iter_mut().enumerate() {
                p.feeds_system = if k == 0 { None } else { Some(false) };
            }
        }
    }

    /// Puts PSU `i` on circuit `c` (0-based), adding circuits to the site when needed.
    pub fn set_psu_circuit(&mut self, i: usize, c: usize) {
        if let Some(p) = self.psus.get_mut(i) {
            p.circuit = c;
            if c + 1 > self.site.circuits {
                self.site.circuits = c + 1;
            }
        }
    }

    /// Makes PSU `i` the one that feeds the board and CPU.
    pub fn set_system_psu(&mut self, i: usize) {
        if i < self.psus.len() {
            for (k, p) in self.psus.iter_mut().enumerate() {
                p.feeds_system = Some(k == i);
            }
        }
    }

    /// Adds an `NVLink` bridge between GPUs `x` and `y` with this slot spacing.
    pub fn add_bridge(&mut self, x: usize, y: usize, spacing_slots: u8) {
        self.nvlink.push(NvlinkBridge { gpus: (x, y), spacing_slots });
    }

    /// Adds parts defined in the build file (custom parts); a part with the id of an earlier
    /// inline part of its kind replaces it.
    pub fn add_inline_parts(&mut self, file: PartsFile) {
        let old = std::mem::take(&mut self.parts);
        let mut cat = Catalog::from(old);
        cat.merge(file, &catalog::Origin::Unknown);
        self.parts = cat.into_parts_file();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat() -> Catalog {
        catalog::builtin().expect("built-in catalog")
    }

    /// A WRX90E board with its CPU and one PSU, no GPUs.
    fn board_build() -> Build {
        Build {
            cpu: Some("amd-threadripper-pro-7985wx".into()),
            motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
            psus: vec![PsuUse { psu: "seasonic-prime-tx-1600-atx31".into(), feeds_system: None, circuit: 0 }],
            ..Build::default()
        }
    }

    #[test]
    fn sxm_modules_take_no_slot_and_risers_take_one() {
        let c = cat();
        let mut b = board_build();
        b.add_gpu(&c, "nvidia-geforce-rtx-4090".into());
        b.gpus[0].riser = Some(super::super::Riser { pcie_gen: 4, length_mm: Some(200.0) });
        b.auto_place_gpus(&c);
        b.add_gpu(&c, "nvidia-geforce-rtx-4090".into());
        assert_eq!(b.gpus[0].slot, Some(1));
        assert_eq!(b.gpus[1].slot, Some(2), "a card on a riser takes one slot position");
    }

    #[test]
    fn free_slot_needs_a_board() {
        let c = cat();
        assert_eq!(free_slot(&Build::default(), &c, 2, 16, None), None);
    }

    /// Picking a partner card of an owned chip names the owned unit (it stays owned, as the
    /// card, and is no longer an unnamed card); picking another GPU does not carry ownership.
    #[test]
    fn naming_an_owned_chip_by_its_card_keeps_it_owned() {
        let c = cat();
        let strix = "asus-rog-strix-geforce-rtx-3090-24gb-gddr6x";
        let mut b = board_build();
        b.set_gpu_count(&c, 2, "nvidia-geforce-rtx-3090");
        b.owned = vec!["1x nvidia-geforce-rtx-3090".into()];
        assert_eq!(b.resolve(&c).unnamed_cards, [true, false], "the first unit is the owned one");
        b.set_gpu_model(&c, Some(0), strix);
        assert_eq!(b.owned, [format!("1x {strix}")]);
        assert_eq!(b.resolve(&c).unnamed_cards, [false, false]);
        // The bought 3090 becoming a 4090 leaves the owned list alone.
        b.set_gpu_model(&c, Some(1), "nvidia-geforce-rtx-4090");
        assert_eq!(b.owned, [format!("1x {strix}")]);
        // Every unit owned (a plain id): the card is owned too.
        let mut b = board_build();
        b.set_gpu_count(&c, 1, "nvidia-geforce-rtx-3090");
        b.owned = vec!["nvidia-geforce-rtx-3090".into()];
        b.set_gpu_model(&c, None, strix);
        assert_eq!(b.owned, ["nvidia-geforce-rtx-3090".to_owned(), strix.to_owned()]);
        assert_eq!(b.resolve(&c).unnamed_cards, [false]);
    }

    /// A chip whose every partner card matches it in length, width, cooler and sockets names
    /// its card; one partner card that differs (or does not publish a figure) makes an owned
    /// unit named by the chip an unknown card. SXM modules have no partner boards.
    #[test]
    fn an_owned_chip_is_unnamed_only_where_a_partner_card_differs() {
        let mut c = cat();
        let chip = c.gpu("nvidia-geforce-rtx-3090").cloned().expect("3090");
        let mut b = board_build();
        b.set_gpu_count(&c, 1, "nvidia-geforce-rtx-3090");
        b.owned = vec!["1x nvidia-geforce-rtx-3090".into()];
        assert_eq!(b.resolve(&c).unnamed_cards, [true]);
        let mut same = c.gpu_cards.iter().find(|k| k.chip == chip.id).cloned().expect("a 3090 card");
        same.length_mm = chip.length_mm;
        same.width_slots = Some(chip.width_slots);
        same.cooler = Some(chip.cooler);
        same.power_inputs = chip.power_inputs;
        c.gpu_cards.retain(|k| k.chip != chip.id);
        c.gpu_cards.push(same.clone());
        assert_eq!(b.resolve(&c).unnamed_cards, [false], "the one partner card matches the chip");
        same.length_mm = Some(chip.length_mm.unwrap_or(0.0) + 20.0);
        c.gpu_cards.retain(|k| k.chip != chip.id);
        c.gpu_cards.push(same);
        assert_eq!(b.resolve(&c).unnamed_cards, [true], "a longer partner card");
        // An inline part of the chip's id names the card (the build says what it is).
        b.parts.gpus.push(chip);
        assert_eq!(b.resolve(&c).unnamed_cards, [false]);
    }

    #[test]
    fn set_gpu_count_is_bounded_and_shrinks() {
        let c = cat();
        let mut b = board_build();
        b.set_gpu_count(&c, 1000, "nvidia-geforce-rtx-3090");
        assert_eq!(b.gpus.len(), MAX_GPUS);
        b.set_gpu_count(&c, 2, "nvidia-geforce-rtx-3090");
        assert_eq!(b.gpus.len(), 2);
    }

    #[test]
    fn merged_puts_inline_overrides_first() {
        let c = cat();
        let mut g = c.gpus[0].clone();
        g.name = "overridden".into();
        let inline = vec![g];
        let m = merged(&inline, &c.gpus);
        assert_eq!(m.len(), c.gpus.len());
        assert_eq!(m[0].name, "overridden");
        assert_eq!(m.iter().filter(|x| x.id == c.gpus[0].id).count(), 1);
    }
}

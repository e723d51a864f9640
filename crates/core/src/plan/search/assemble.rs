//! Whole machines for one chip configuration: board and case (slots), CPU, memory, cooler and
//! PSUs, each machine checked by the checker and estimated by the fit code.
//!
//! Cheap filters choose the parts before the checker runs: boards with enough wide slots, the
//! cheapest case of each form that holds the cards (openings, and the card's length where both
//! are published), PSU sets that carry the load under the sustained guideline (those that also
//! keep a PSU vendor's recommended headroom first). When a machine
//! fails, the parts its error findings name say what to change next ([`Retry`]): another PSU
//! set, another CPU, or another case or board; a part a not-checked finding names is not tried
//! again in this search.

use super::{
    BOARDS_PER_CARD, CASES_PER_BOARD, CPUS_PER_BOARD, ChipConfig, MAX_PSUS, PSU_OPTIONS, RESULTS_PER_CARD, State,
    Unknown, cmp_price, stage,
};
use crate::estimate::power;
use crate::plan::adapter::{self, BoardView, CardView, CaseView, Evaluation, PartRef, Spec};
use crate::plan::views::{CardPlugs, SlotView};
use crate::plan::{Constraint, Form, PlanResult};
use crate::rig::edit::{SlotOption, choose_slots};
use std::collections::BTreeMap;

/// Platforms (board and case, every CPU and PSU set tried) over the goal's circuits after
/// which a card is given up: the cards draw most of the power, the cheapest platforms were
/// tried first, and the others differ only in the CPU, board and PSUs.
pub const POWER_FAILURES_PER_CARD: usize = 2;

/// Card slots: (slot position, riser generation for an open frame).
type Placement = Vec<(u8, Option<u8>)>;

/// A PSU option: figures known, whether every unit keeps the recommended headroom at full
/// load ([`power::PSU_RECOMMENDED_HEADROOM_W`]), total price, id, the PSUs, the PSU feeding
/// each card.
type PsuSet<'a> = (bool, bool, Option<f64>, &'a str, Vec<usize>, Vec<usize>);

/// PSU sets for a machine: the PSUs (catalog indices) and the PSU feeding each card.
pub(super) type PsuChoice = Vec<(Vec<usize>, Vec<usize>)>;

/// What to change after a machine failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retry {
    /// Another PSU set (the findings name a PSU or a circuit).
    Psu,
    /// Another CPU (they name the CPU).
    Cpu,
    /// Another case (they name the case, a GPU, a slot, the cooler or memory).
    Case,
    /// Another board (the slots the board gives are too slow).
    Board,
}

/// A failed machine: the constraint, the reason in one line, what to change.
type Failure = (Constraint, String, Retry);

/// Spreads `n` cards of `gpu_w` over `k` PSUs of `per_w` sustained each, the system load on
/// the first: each card to the least loaded PSU. `None` when one would be over `per_w`.
fn pack(system_w: f64, gpu_w: f64, n: u32, k: usize, per_w: f64) -> Option<Vec<usize>> {
    let mut load = vec![0.0; k];
    load[0] = system_w;
    let mut feeds = Vec::new();
    for _ in 0..n {
        let (j, _) = load.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1))?;
        load[j] += gpu_w;
        feeds.push(j);
    }
    load.iter().all(|&l| l <= per_w).then_some(feeds)
}

/// What full load is over, in words, when power is what rejects the machine: a PSU over its
/// rating (`psu-capacity`), a PSU whose GPUs' peaks exceed its excursion limit or, without
/// one, its rating at 1 ms (`psu-transient`), a circuit over its breaker (`wall-circuit`) or
/// over its continuous limit at full load (the goal names the circuits); `None` otherwise.
fn power_problem(ev: &Evaluation, goal: &crate::plan::Goal) -> Option<String> {
    let power = |l: &&String| {
        l.starts_with("psu-capacity:") || l.starts_with("wall-circuit:") || l.starts_with("psu-transient:")
    };
    if let Some(l) =
        ev.errors.iter().find(power).or_else(|| ev.warnings.iter().find(|w| w.starts_with("psu-transient:")))
    {
        return Some(l.clone());
    }
    ev.circuits.iter().enumerate().find(|(_, (a, l))| a > l).map(|(i, (a, l))| {
        format!(
            "circuit {} of {} A at {} V draws {a:.1} A at full load, over its {l:.1} A continuous limit",
            i + 1,
            goal.breaker_a,
            goal.mains_v
        )
    })
}

/// What to change, from the parts the error findings name.
fn retry_for(parts: &[PartRef]) -> Retry {
    if parts.iter().any(|p| matches!(p, PartRef::Psu(_) | PartRef::Circuit(_))) {
        Retry::Psu
    } else if parts.contains(&PartRef::Cpu) {
        Retry::Cpu
    } else {
        Retry::Case
    }
}

impl<'a> State<'a> {
    /// Slots: where the cards go on a board in a case of this form; `None` if they do not fit.
    fn place(board: &BoardView, case: &CaseView, card: &CardView, n: u32) -> Option<Placement> {
        let mut slots: Vec<_> = board.slots.iter().filter(|s| s.physical_lanes >= 8).collect();
        slots.sort_by_key(|s| s.position);
        let n = n as usize;
        if !board.positions_known {
            // Wired without positions: by slot name, CPU lanes first, then the widest, in the
            // board's order; nothing about thickness or openings is known (the geometry rules
            // then say not checked and the result is unverified on them).
            let min = if case.form == Form::OpenFrame { 8 } else { 16 };
            let mut best: Vec<_> = slots.iter().filter(|s| s.physical_lanes >= min).collect();
            best.sort_by_key(|s| (!s.cpu_lanes, std::cmp::Reverse(s.physical_lanes), s.position));
            let riser = |s: &SlotView| (case.form == Form::OpenFrame).then(|| s.pcie_gen.min(card.pcie_gen).min(4));
            let chosen: Vec<_> = best.into_iter().take(n).map(|s| (s.position, riser(s))).collect();
            return (chosen.len() == n).then_some(chosen);
        }
        if case.form == Form::OpenFrame {
            // Risers: any slot, the card covers nothing; rated for the lower generation (Gen4 at most).
            let mut best: Vec<_> = slots.clone();
            best.sort_by_key(|s| (!s.cpu_lanes, std::cmp::Reverse(s.physical_lanes), s.position));
            let mut chosen: Vec<_> = best.into_iter().take(n).collect();
            chosen.sort_by_key(|s| s.position);
            return (chosen.len() == n)
                .then(|| chosen.iter().map(|s| (s.position, Some(s.pcie_gen.min(card.pcie_gen).min(4)))).collect());
        }
        // In a case: the shared placement (fewest cards on chipset lanes, then gaps for
        // open-air cards), on x16 connectors, within the case's openings.
        let options: Vec<SlotOption> = slots
            .iter()
            .filter(|s| s.physical_lanes >= 16)
            .map(|s| SlotOption { position: s.position, physical_lanes: s.physical_lanes, cpu_lanes: s.cpu_lanes })
            .collect();
        let cards = vec![(card.width_slots.max(1), 16); n];
        choose_slots(&options, &cards, Some(case.expansion_slots))
            .map(|p| p.into_iter().map(|pos| (pos, None)).collect())
    }

    pub(super) fn forms(&self) -> Vec<Form> {
        self.goal.form.map_or_else(|| vec![Form::Tower, Form::Rack, Form::OpenFrame], |f| vec![f])
    }

    /// The cheapest case of each form that takes the board and the cards, with the placement;
    /// placements memoized by (form, openings). A case shorter than a card whose length is
    /// published is passed over (the case-fit rule would refuse it).
    fn cases_for(&self, board: &BoardView, card: &CardView, n: u32) -> Vec<(&'a CaseView, Placement)> {
        // PSU bays the cards alone need with the largest PSU the search may pick.
        let largest = self.psus.iter().map(|p| p.rated_w).fold(0.0, f64::max) * adapter::PSU_GUIDELINE;
        let bays = if largest > 0.0 { (card.board_power_w * f64::from(n) / largest).ceil() } else { 1.0 };
        let mut memo: BTreeMap<(Form, u8), Option<Placement>> = BTreeMap::new();
        let mut out: Vec<(&'a CaseView, Placement)> = Vec::new();
        for f in self.forms() {
            let mut hits = self
                .cases
                .get(&(f, board.form_factor))
                .into_iter()
                .flatten()
                .filter(|k| !self.unknown.contains(&Unknown::Case(k.idx)) && f64::from(k.psu_bays.max(1)) >= bays)
                // A passive card needs server airflow: a desktop case or an open frame would
                // fail `passive-airflow`, so it is not offered (the H100 PCIe was put in the
                // cheapest tower and the whole goal rejected).
                .filter(|k| !card.passive || k.form == Form::Rack)
                .filter(|k| match (k.max_gpu_length_mm, card.length_mm) {
                    (Some(room), Some(len)) => k.form == Form::OpenFrame || room >= len,
                    _ => true,
                })
                .filter_map(|k| {
                    memo.entry((k.form, k.expansion_slots))
                        .or_insert_with(|| Self::place(board, k, card, n))
                        .clone()
                        .map(|p| (*k, p))
                });
            // The cheapest case of the form, and the cheapest with more PSU bays (a frame with
            // two PSUs, when one unit cannot carry the cards' sustained load and 1 ms peaks).
            if let Some(first) = hits.next() {
                let bays_first = first.0.psu_bays;
                let more = hits.find(|(k, _)| k.psu_bays > bays_first);
                out.push(first);
                out.extend(more);
            }
        }
        out.sort_by(|a, b| cmp_price(a.0.price_usd, b.0.price_usd).then(a.0.id.cmp(&b.0.id)));
        out
    }

    /// Assembles and checks machines for one chip configuration.
    pub(super) fn assemble(&mut self, c: &ChipConfig, results: &mut Vec<PlanResult>) {
        let parts = self.parts;
        let rep = &parts.cards[c.cards[0]];
        let what = format!("{}x {}", c.n, rep.short);
        let mut first_failure: Option<(Constraint, String)> = None;
        let mut found_any = false;
        let mut placed_any = false;
        for &ci in &c.cards {
            // Cards of a chip come cheapest first: once one gives machines, a dearer twin adds
            // nothing to a cheapest-first answer.
            if found_any || self.unknown.contains(&Unknown::Card(ci)) {
                continue;
            }
            let card = &parts.cards[ci];
            let mut kept = 0;
            let mut boards_tried = 0;
            let mut over_power = 0;
            // Boards that put every card on CPU lanes first (in part order within each group).
            // A hybrid split reads experts from system RAM: boards with the most memory
            // channels first.
            let mut boards = self.boards.clone();
            boards.sort_by_key(|b| b.cpu_wide_slots < c.n as usize);
            if c.hybrid_gib.is_some() {
                boards.sort_by_key(|b| std::cmp::Reverse(u32::from(b.memory_channels) * u32::from(b.cpu_sockets)));
            }
            for &board in boards.iter().filter(|b| b.wide_slots >= c.n as usize) {
                if kept >= RESULTS_PER_CARD || boards_tried >= BOARDS_PER_CARD {
                    break;
                }
                if self.unknown.contains(&Unknown::Board(board.idx)) || self.unknown.contains(&Unknown::Card(ci)) {
                    continue;
                }
                let cases = self.cases_for(board, card, c.n);
                if cases.is_empty() {
                    continue;
                }
                placed_any = true;
                boards_tried += 1;
                if over_power >= POWER_FAILURES_PER_CARD {
                    break;
                }
                for (case, placement) in cases.into_iter().take(CASES_PER_BOARD * 2) {
                    match self.try_platform(c, ci, board, case, &placement) {
                        Ok(r) => {
                            results.push(r);
                            kept += 1;
                            found_any = true;
                            break;
                        }
                        Err((constraint, reason, retry)) => {
                            over_power += usize::from(constraint == Constraint::Power);
                            if first_failure.as_ref().is_none_or(|old| stage(constraint) > stage(old.0)) {
                                first_failure = Some((constraint, reason));
                            }
                            if retry == Retry::Board
                                || over_power >= POWER_FAILURES_PER_CARD
                                || self.unknown.contains(&Unknown::Board(board.idx))
                                || self.unknown.contains(&Unknown::Card(ci))
                            {
                                break;
                            }
                        }
                    }
                }
            }
        }
        if found_any {
            return;
        }
        let (constraint, reason) = if placed_any {
            first_failure.unwrap_or((
                Constraint::Checks,
                "no CPU, memory, cooler or PSU set for the boards that hold them".into(),
            ))
        } else {
            let forms: Vec<String> = self.forms().iter().map(ToString::to_string).collect();
            let priced = if self.goal.budget_usd.is_some() { " with known prices" } else { "" };
            let constraint = if self.goal.budget_usd.is_some() { Constraint::Unknown } else { Constraint::Slots };
            (
                constraint,
                format!(
                    "no board and {} case{priced} in the catalog hold {what} ({} slots each)",
                    forms.join("/"),
                    rep.width_slots
                ),
            )
        };
        let reason = if reason.starts_with(&what) { reason } else { format!("{what}: {reason}") };
        self.reject(what, constraint, reason);
    }

    /// CPU, memory, cooler and PSUs for a board and case; checks the machine.
    fn try_platform(
        &mut self,
        c: &ChipConfig,
        ci: usize,
        board: &BoardView,
        case: &CaseView,
        placement: &[(u8, Option<u8>)],
    ) -> Result<PlanResult, Failure> {
        let parts = self.parts;
        let card = &parts.cards[ci];
        let mut cpus: Vec<_> = parts
            .cpus
            .iter()
            .filter(|p| {
                crate::check::cpu_runs_on_board(&p.socket, &p.name, &board.socket, &board.chipset)
                    && p.memory_types.contains(&board.memory_type)
            })
            .filter(|p| self.musts.get("cpu").is_none_or(|id| &p.id == id) && self.priced(p.price_usd))
            .collect();
        // Lanes the GPUs get with each CPU: the board wiring's lanes for that CPU in the
        // placed slots (`lanes_by_cpu`: Phoenix APUs such as the Ryzen 5 8400F give the first
        // x16 slot only x8 or x4, and none to a second CPU slot), capped by the CPU's own lanes.
        // A CPU that narrows the GPU links ranks after one that does not, whatever its price.
        let mb = self.catalog.motherboards.get(board.idx);
        let gpu_lanes = |cpu: &crate::plan::views::CpuView| -> u32 {
            let placed: u32 = placement
                .iter()
                .map(|&(pos, _)| {
                    adapter::slot_by_key(mb, pos).map_or(0, |s| u32::from(s.lanes_with_cpu(Some(&cpu.name))))
                })
                .sum();
            placed.min(u32::from(cpu.lanes))
        };
        cpus.sort_by(|a, b| {
            gpu_lanes(b)
                .cmp(&gpu_lanes(a))
                .then(b.figures_known.cmp(&a.figures_known))
                .then(cmp_price(a.price_usd, b.price_usd))
                .then(b.lanes.cmp(&a.lanes))
                .then(a.id.cmp(&b.id))
        });
        let cooler = parts
            .coolers
            .iter()
            .filter(|k| {
                k.sockets.contains(&board.socket)
                    && self.musts.get("cooler").is_none_or(|id| &k.id == id)
                    && self.priced(k.price_usd)
                    && !self.unknown.contains(&Unknown::Cooler(k.idx))
            })
            .min_by(|a, b| {
                b.figures_known.cmp(&a.figures_known).then(cmp_price(a.price_usd, b.price_usd)).then(a.id.cmp(&b.id))
            })
            .ok_or((
                Constraint::Checks,
                format!("no cooler in the catalog mounts on {}", board.socket),
                Retry::Board,
            ))?;
        let mut last = (
            Constraint::Slots,
            format!(
                "no CPU in the catalog for {} ({} chipset) with {}",
                board.socket, board.chipset, board.memory_type
            ),
            Retry::Board,
        );
        let cpus: Vec<_> = cpus.into_iter().filter(|p| !self.unknown.contains(&Unknown::Cpu(p.idx))).collect();
        for cpu in cpus.into_iter().take(CPUS_PER_BOARD) {
            let mut cpu_blamed = true;
            let kit = self.memory_for(board, cpu, card, c.n, c.hybrid_gib)?;
            let mut spec = Spec {
                card: ci,
                gpu: card.id.clone(),
                placements: placement.iter().map(|&(s, r)| (s, r, 0)).collect(),
                board: board.idx,
                cpu: cpu.idx,
                cooler: cooler.idx,
                case: case.idx,
                kit,
                psus: Vec::new(),
                precision: c.precision,
            };
            let sizing = adapter::make_build(self.catalog, self.goal, self.model, &spec, "sizing");
            self.work.add_spec(self.catalog, &spec);
            let dc = adapter::dc_load_w(&sizing, self.work.catalog());
            let gpu_w = card.board_power_w;
            let system_w = (dc - gpu_w * f64::from(c.n)).max(0.0);
            let mut sets = self.psu_sets(system_w, gpu_w, card.plugs, c.n, case.psu_bays);
            // No PSU set carries the cards at their default limit: size for them capped (the
            // lowest cap, in the power-limit search's steps, that some set carries; `judge`
            // then sets the highest cap the chosen set allows).
            let floor = self
                .catalog
                .gpu_or_card(&card.id)
                .map_or(gpu_w * 0.5, |g| g.min_power_limit_w.unwrap_or(g.board_power_w * 0.5));
            let mut capped = gpu_w - power::LIMIT_STEP_W;
            while sets.is_empty() && capped >= floor {
                sets = self.psu_sets(system_w, capped, card.plugs, c.n, case.psu_bays);
                capped -= power::LIMIT_STEP_W * 4.0;
            }
            if sets.is_empty() && stage(Constraint::Power) >= stage(last.0) {
                last = (
                    Constraint::Power,
                    format!(
                        "no set of up to {} PSUs in the catalog carries {:.0} W within their sustained rating",
                        case.psu_bays.clamp(1, MAX_PSUS),
                        dc
                    ),
                    Retry::Case,
                );
            }
            for (psus, feeds) in sets {
                spec.psus = psus.iter().enumerate().map(|(j, &p)| (p, j % self.goal.circuits.max(1))).collect();
                for (pl, &f) in spec.placements.iter_mut().zip(&feeds) {
                    pl.2 = f;
                }
                match self.judge(&spec, case.form, c.n) {
                    Ok(r) => return Ok(r),
                    Err(e) => {
                        let retry = e.2;
                        cpu_blamed = retry != Retry::Psu || e.0 == Constraint::Power;
                        if stage(e.0) >= stage(last.0) {
                            last = e;
                        }
                        match retry {
                            Retry::Psu => {}
                            Retry::Cpu => break,
                            Retry::Case | Retry::Board => return Err(last),
                        }
                    }
                }
            }
            // Every PSU set failed on a finding that names the PSUs and not the CPU (a cable
            // the card needs): another CPU changes nothing. Over the circuits, a CPU that draws
            // less may still bring it under.
            if !cpu_blamed {
                return Err(last);
            }
        }
        Err(last)
    }

    /// A memory kit filling the board's channels, raised towards the VRAM total; for a hybrid
    /// split (`hybrid_gib`: experts in RAM) enough RAM for the experts and the fit code's
    /// reserve, fastest first at the speed the kit runs at beside `cpu` (the experts are read
    /// at the RAM's bandwidth; [`crate::estimate::fit::ram_speed_of`] caps the kit's rating at
    /// the CPU's, as the fit does), then the cheapest. Kit counts keep the module count a
    /// multiple of the board's channels (the memory-population rule warns otherwise), or
    /// fill every slot.
    fn memory_for(
        &self,
        board: &BoardView,
        cpu: &crate::plan::views::CpuView,
        card: &CardView,
        n: u32,
        hybrid_gib: Option<f64>,
    ) -> Result<(usize, u8), Failure> {
        let channels = (u32::from(board.memory_channels) * u32::from(board.cpu_sockets.max(1))).max(1);
        let slots = u32::from(board.memory_slots);
        let vram_gb = match hybrid_gib {
            // Kit capacities are binary GB (a "32 GB" DIMM holds 32 GiB), as the fit code counts.
            Some(gib) => gib + crate::estimate::llm::search::HOST_RAM_RESERVE_GIB,
            // As much as `check`'s system-ram rule asks for (twice the VRAM), by its own
            // function: a plan that `check` then tells to "install at least 128 GB" was short.
            None => crate::check::system_ram_wanted_gb(card.memory_gib * f64::from(n)),
        };
        let catalog_cpu = self.catalog.cpus.get(cpu.idx);
        // The data rate a kit set runs at beside the CPU (the fit's capped speed); the kit's
        // rating when the CPU is not in the catalog.
        let speed = |k: &adapter::KitView, kits: u32| -> u32 {
            match (catalog_cpu, self.catalog.memory.get(k.idx)) {
                (Some(c), Some(m)) => {
                    crate::estimate::fit::ram_speed_of(
                        c,
                        m,
                        u8::try_from(kits).unwrap_or(u8::MAX),
                        u32::from(board.cpu_sockets),
                    )
                    .mt_s
                }
                _ => k.speed_mt_s,
            }
        };
        self.parts
            .kits
            .iter()
            .filter(|k| k.memory_type == board.memory_type && k.modules > 0)
            .filter(|k| self.musts.get("memory").is_none_or(|id| &k.id == id) && self.priced(k.price_usd))
            .filter_map(|k| {
                let per = u32::from(k.modules);
                // Within the board's published maximum (the memory-capacity rule fails above it).
                let fits_board = |kits: u32| board.max_memory_gb.is_none_or(|max| kits * k.total_gb <= max);
                // Module counts that fill the channels evenly, or every slot.
                let even = |kits: u32| (kits * per).is_multiple_of(channels) || kits * per == slots;
                let counts: Vec<u32> = (1..=slots / per).filter(|&kits| even(kits) && fits_board(kits)).collect();
                let kits = counts
                    .iter()
                    .copied()
                    .find(|&kits| kits * per >= channels.min(slots) && f64::from(kits * k.total_gb) >= vram_gb)
                    .or_else(|| counts.last().copied())?;
                let reached = f64::from(kits * k.total_gb) >= vram_gb;
                let enough = hybrid_gib.is_none() || reached;
                enough.then_some((k, kits, reached))
            })
            .min_by(|a, b| {
                let rate = |(k, kits, _): &(&adapter::KitView, u32, bool)| {
                    if hybrid_gib.is_some() { speed(k, *kits) } else { 0 }
                };
                // A kit set that reaches the VRAM total first (the system-ram rule warns below
                // it: weights pass through host memory when loading); where none does (192 GB
                // of VRAM on a 128 GB board), the largest, not the cheapest (it was 16 GB); then
                // the fastest at the speed the build runs it for a hybrid split, then the
                // cheapest.
                let total = |(k, kits, _): &(&adapter::KitView, u32, bool)| kits * k.total_gb;
                let short = |x: &(&adapter::KitView, u32, bool)| if x.2 { 0 } else { total(x) };
                b.2.cmp(&a.2)
                    .then(short(b).cmp(&short(a)))
                    .then(rate(b).cmp(&rate(a)))
                    .then(cmp_price(
                        a.0.price_usd.map(|p| p * f64::from(a.1)),
                        b.0.price_usd.map(|p| p * f64::from(b.1)),
                    ))
                    .then(a.0.id.cmp(&b.0.id))
            })
            .map(|(k, kits, _)| (k.idx, u8::try_from(kits).unwrap_or(u8::MAX)))
            .ok_or((Constraint::Checks, format!("no {} kit in the catalog", board.memory_type), Retry::Board))
    }

    /// PSU sets: k identical units that carry the system (on the first) and the cards, each
    /// under the sustained guideline; units with published connector counts first, then
    /// cheapest first; with the PSU feeding each card.
    fn psu_sets(&mut self, system_w: f64, gpu_w: f64, plugs: CardPlugs, n: u32, bays: u8) -> PsuChoice {
        let key = (system_w.to_bits(), gpu_w.to_bits(), plugs, n, bays);
        if let Some(hit) = self.psu_memo.get(&key) {
            return hit.clone();
        }
        let sets = self.psu_sets_uncached(system_w, gpu_w, plugs, n, bays);
        self.psu_memo.insert(key, sets.clone());
        sets
    }

    fn psu_sets_uncached(&self, system_w: f64, gpu_w: f64, plugs: CardPlugs, n: u32, bays: u8) -> PsuChoice {
        // PSUs are sorted once per search (known figures, then unit price); a set of k costs at
        // least one unit, so the scan of a group stops once a unit costs more than the dearest
        // of the sets kept that keep the recommended headroom (a set without it ranks after
        // every set with it, so a dearer unit may still come first).
        let mut sets: Vec<PsuSet<'_>> = Vec::new();
        for p in &self.psus {
            let keeping: Vec<Option<f64>> = sets.iter().filter(|s| s.1).map(|s| s.2).collect();
            if keeping.len() >= PSU_OPTIONS {
                let worst = keeping.iter().copied().max_by(|a, b| cmp_price(*a, *b)).flatten();
                let dearer = p.price_usd.is_none() || p.price_usd.zip(worst).is_some_and(|(u, w)| u > w);
                if dearer || !p.figures_known {
                    break;
                }
            }
            if self.unknown.contains(&Unknown::Psu(p.idx)) {
                continue;
            }
            let per = p.rated_w * adapter::PSU_GUIDELINE;
            let found = (1..=bays.clamp(1, MAX_PSUS)).find_map(|k| {
                let feeds = pack(system_w, gpu_w, n, usize::from(k), per)?;
                // Enough PCIe cables for the cards each unit feeds (where the PSU's count is
                // published), as `psu-connectors` counts them: a set that rule would fail is
                // not offered (the search tried only the cheapest few sets, all short of cables
                // for a card with three 8-pin sockets, and gave up).
                let cabled = (0..usize::from(k)).all(|j| {
                    let m = feeds.iter().filter(|&&f| f == j).count() as u32;
                    p.pcie_8pin.is_none_or(|have| plugs.pcie_needed(m, p.hpwr_16pin) <= u32::from(have))
                });
                if !cabled {
                    return None;
                }
                // Each unit through its GPUs' 1 ms and longer peaks (`psu-transient`): a set the
                // rule would flag is not offered; more units of it may be.
                let peaks = (0..usize::from(k)).all(|j| {
                    let m = feeds.iter().filter(|&&f| f == j).count();
                    adapter::psu_rides_peaks(
                        self.catalog,
                        p.idx,
                        p.rated_w,
                        if j == 0 { system_w } else { 0.0 },
                        gpu_w,
                        m,
                    )
                });
                if !peaks {
                    return None;
                }
                // Each unit's full-load DC: the system on the first, the cards it feeds.
                let margin = (0..usize::from(k)).all(|j| {
                    let load =
                        if j == 0 { system_w } else { 0.0 } + gpu_w * feeds.iter().filter(|&&f| f == j).count() as f64;
                    load + power::PSU_RECOMMENDED_HEADROOM_W <= p.rated_w
                });
                Some((
                    p.figures_known,
                    margin,
                    p.price_usd.map(|x| x * f64::from(k)),
                    p.id.as_str(),
                    vec![p.idx; usize::from(k)],
                    feeds,
                ))
            });
            sets.extend(found);
        }
        // Known figures first, then sets that keep the recommended headroom, then the cheapest.
        sets.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(cmp_price(a.2, b.2)).then(a.3.cmp(b.3)));
        sets.into_iter().take(PSU_OPTIONS).map(|s| (s.4, s.5)).collect()
    }

    /// Remembers the parts a not-checked finding named, so they are not tried again.
    fn note_unknown(&mut self, spec: &Spec, ev: &Evaluation) {
        for p in &ev.unknown_parts {
            let u = match *p {
                PartRef::Gpu(_) => Unknown::Card(spec.card),
                PartRef::Motherboard | PartRef::Slot(_) => Unknown::Board(spec.board),
                PartRef::Cpu => Unknown::Cpu(spec.cpu),
                PartRef::Cooler => Unknown::Cooler(spec.cooler),
                PartRef::Case => Unknown::Case(spec.case),
                PartRef::Psu(i) => match spec.psus.get(i) {
                    Some(&(psu, _)) => Unknown::Psu(psu),
                    None => continue,
                },
                _ => continue,
            };
            if matches!(u, Unknown::Psu(_)) {
                self.psu_memo.clear(); // the PSU sets change
            }
            self.unknown.insert(u);
        }
    }

    /// Builds the machine, checks it, then estimates it, and holds it to the goal.
    fn judge(&mut self, spec: &Spec, form: Form, n: u32) -> Result<PlanResult, Failure> {
        let card = &self.parts.cards[spec.card];
        let gpus = format!("{n}x {}", card.short);
        let board = &self.parts.boards[spec.board];
        let title = format!("{gpus} on {}, {form}", board.name);
        let mut build = adapter::make_build(self.catalog, self.goal, self.model, spec, &title);
        self.stats.checked += 1;
        self.work.add_spec(self.catalog, spec);
        let mut ev = adapter::judge(&build, self.work.catalog());
        // Full load over a PSU, a PSU's 1 ms peak or the circuit: a power limit on every GPU
        // is a lever (`check`'s own advice); the capped machine is judged again by the checker.
        // A cap the checker cannot verify (a card without a published minimum limit: the
        // `gpu-power-cable` rule says not checked) is not proposed: the machine is judged
        // uncapped, and another PSU set is tried.
        if power_problem(&ev, self.goal).is_some()
            && let Some(limit) = adapter::cap_limit_w(&build, self.work.catalog())
        {
            let mut capped = build.clone();
            for g in &mut capped.gpus {
                let top = self.work.catalog().gpu_or_card(&g.gpu).map_or(limit, kraftwerk_catalog::Gpu::max_limit_w);
                g.power_limit_w = Some(limit.min(top));
            }
            self.stats.checked += 1;
            // `judge` reads the cap back from the build (`Evaluation::power_cap`).
            let mut capped_ev = adapter::judge(&capped, self.work.catalog());
            if capped_ev.not_checked.is_empty() {
                build = capped;
                ev = capped_ev;
            } else {
                // A PSU or case figure the capped machine needs is unknown: not tried again
                // (a card's unknown minimum limit only rules out the cap, not the card).
                capped_ev.unknown_parts.retain(|p| !matches!(p, PartRef::Gpu(_)));
                self.note_unknown(spec, &capped_ev);
            }
        }
        if let Some(e) = ev.errors.first() {
            let power = e.starts_with("wall-circuit") || e.starts_with("psu-capacity");
            let constraint = if power { Constraint::Power } else { Constraint::Checks };
            let hint = match ev.advised_limit_w {
                Some(w) if power => format!(" (a common power limit of {w:.0} W per card would fit)"),
                _ => String::new(),
            };
            let wall = if power { format!("{:.2} kW at the wall; ", ev.wall_w / 1000.0) } else { String::new() };
            return Err((constraint, format!("{gpus}, {form}: {wall}{e}{hint}"), retry_for(&ev.error_parts)));
        }
        // The goal names the circuits: the power code's draw must stay within their continuous
        // limit (the checker's wall-circuit rule only warns between it and the breaker).
        if let Some((i, (amps, limit))) = ev.circuits.iter().enumerate().find(|(_, (a, l))| a > l) {
            let g = self.goal;
            return Err((
                Constraint::Power,
                format!(
                    "{gpus} on {} x {} A circuit{} at {} V: {:.2} kW at the wall, circuit {} draws {amps:.1} A, over its {limit:.1} A continuous limit{}",
                    g.circuits,
                    g.breaker_a,
                    if g.circuits == 1 { "" } else { "s" },
                    g.mains_v,
                    ev.wall_w / 1000.0,
                    i + 1,
                    ev.advised_limit_w
                        .map_or_else(String::new, |w| format!(" (capped at {w:.0} W per card it would fit)"))
                ),
                Retry::Psu,
            ));
        }
        if let Some(w) = ev.warnings.iter().find(|w| w.starts_with("psu-transient:")) {
            // The checker warns; an expert does not sign a PSU its GPUs' peaks can trip.
            return Err((Constraint::Power, format!("{gpus}, {form}: {w}"), Retry::Psu));
        }
        if let Some(u) = ev.not_checked.first() {
            let reason = format!("{gpus}: not checked: {u}");
            self.note_unknown(spec, &ev);
            return Err((Constraint::Unknown, reason, Retry::Case));
        }
        adapter::estimate(&build, self.work.catalog(), self.goal, self.model, &mut ev);
        self.hold_to_goal(ev, build, spec, title, gpus, form)
    }

    /// The estimated machine against the goal's memory, speed and budget.
    fn hold_to_goal(
        &mut self,
        ev: Evaluation,
        build: crate::rig::Build,
        spec: &Spec,
        title: String,
        gpus: String,
        form: Form,
    ) -> Result<PlanResult, Failure> {
        let board = &self.parts.boards[spec.board];
        if let Some(e) = ev.errors.first() {
            return Err((Constraint::Checks, format!("{gpus}, {form}: {e}"), Retry::Board));
        }
        if let Some(u) = ev.not_checked.first() {
            return Err((Constraint::Unknown, format!("{gpus}: not checked: {u}"), Retry::Case));
        }
        if !ev.fits && ev.hybrid.is_none() {
            let why = if self.parts.cards[spec.card].memory_gib > 0.0 && self.model.is_moe() {
                "does not fit on the real slots, and its experts do not fit the RAM for a CPU+GPU split"
            } else {
                "does not fit on the real slots"
            };
            return Err((Constraint::Memory, format!("{gpus}: {why}"), Retry::Board));
        }
        if !self.goal.is_training() {
            let d = ev.decode_per_user.unwrap_or(0.0);
            if d < self.goal.tok_s {
                let on = match &ev.hybrid {
                    Some(h) => format!(
                        "with {:.0} GiB of experts in RAM read at {:.0} GB/s ({} channels of {} MT/s)",
                        h.host_experts_gib, h.host_bandwidth_gb_s, h.channels, h.speed_mt_s
                    ),
                    None => "on its slots".into(),
                };
                return Err((
                    Constraint::Speed,
                    format!("{gpus} on {}: {d:.1} tok/s per user {on} (target {})", board.name, self.goal.tok_s),
                    Retry::Board,
                ));
            }
            if let Some(t) = self.goal.prefill_tok_s
                && ev.prefill.is_none_or(|p| p < t)
            {
                return Err((
                    Constraint::Speed,
                    format!("{gpus}: prefill {:.0} tok/s (target {t})", ev.prefill.unwrap_or(0.0)),
                    Retry::Board,
                ));
            }
        }
        if let Some(b) = self.goal.budget_usd
            && ev.known_price_usd > b
        {
            return Err((
                Constraint::Budget,
                format!("{gpus}: {}, over the {} budget", crate::fmt::usd(ev.known_price_usd), crate::fmt::usd(b)),
                Retry::Case,
            ));
        }
        let (title, gpus) = match &ev.hybrid {
            Some(_) => {
                (format!("{gpus} + experts in RAM on {}, {form}", board.name), format!("{gpus} + experts in RAM"))
            }
            None => (title, gpus),
        };
        let mut build = build;
        build.name.clone_from(&title);
        self.stats.passing += 1;
        Ok(PlanResult {
            rank: 0,
            title,
            gpus,
            precision: spec.precision.to_string(),
            form,
            price_complete: ev.unpriced.is_empty(),
            price_usd: ev.known_price_usd,
            gpus_on_chipset: adapter::gpus_on_chipset(&ev),
            build,
            eval: ev,
            measured: None,
        })
    }
}

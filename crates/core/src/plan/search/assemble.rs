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
    BOARDS_PER_CARD, CASES_PER_BOARD, CPUS_PER_BOARD, ChipConfig, MAX_PSUS, PsuChoice, PsuOption, RESULTS_PER_CARD,
    State, Unknown, cmp_price, stage,
};
use crate::estimate::power;
use crate::plan::machine::{Spec, make_build, slot_by_key};
use crate::plan::power::dc_load_w;
use crate::plan::views::{BoardView, CardView, CaseView, CpuView};
use crate::plan::{Constraint, PlanResult};
use kraftwerk_catalog::{MemoryType, PartKind};
use std::collections::{BTreeMap, BTreeSet};

/// Platforms (board and case, every CPU and PSU set tried) over the goal's circuits after
/// which a card is given up: the cards draw most of the power, the cheapest platforms were
/// tried first, and the others differ only in the CPU, board and PSUs.
pub(crate) const POWER_FAILURES_PER_CARD: usize = 2;

/// What to change after a machine failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Retry {
    /// Another PSU set (the findings name a PSU or a circuit).
    Psu,
    /// Another CPU (they name the CPU).
    Cpu,
    /// Another case (they name the case, a GPU, a slot, the cooler or memory).
    Case,
    /// Another board (the slots the board gives are too slow).
    Board,
    /// A case of this board that holds more PSUs (the machine met the goal but for the speed
    /// its power cap costs: more PSUs may carry the cards at a higher limit, or none).
    MorePsus,
}

/// A failed machine: the constraint, the reason in one line, what to change.
pub(super) type Failure = (Constraint, String, Retry);

/// A board's memory class for a hybrid split: the channels the routed experts in RAM are read
/// over (channels per socket times sockets) and the DIMM generation (DDR4 or DDR5, which sets
/// the rate of each channel).
fn channel_class(b: &BoardView) -> (u32, bool) {
    let ddr5 = matches!(b.memory_type, MemoryType::Ddr5Udimm | MemoryType::Ddr5Rdimm);
    (u32::from(b.memory_channels) * u32::from(b.cpu_sockets.max(1)), ddr5)
}

/// `boards` (in the search's order) taken one of each memory class ([`channel_class`]) in turn,
/// the most channels first (DDR5 before DDR4 at equal channels): `[12ch DDR5 a, 8ch DDR4 a, 4ch
/// DDR4 a, 2ch DDR5 a, 2ch DDR4 a, 12ch DDR5 b, ...]`. A CPU+GPU split's decode is bound by the
/// RAM's bandwidth, but a two-channel desktop of fast DDR5 meets many goals for less than a
/// server platform (u/Wrong-Historian's gpt-oss-120b on an i9-14900K with 64-96 GB of DDR5,
/// 25 tok/s, llama.cpp PR 15157; ubergarm's Qwen3-235B-A22B on a Ryzen 9 9950X with 2 x 48 GB
/// DDR5-6400, 10 tok/s), and the most-channels-first order alone never reached a desktop
/// within [`BOARDS_PER_CARD`]; the cheapest desktops in part order are DDR4 boards, so DDR5
/// is a class of its own.
fn by_channel_class(boards: Vec<&BoardView>) -> Vec<&BoardView> {
    let mut classes: BTreeMap<std::cmp::Reverse<(u32, bool)>, std::collections::VecDeque<&BoardView>> = BTreeMap::new();
    for b in boards {
        classes.entry(std::cmp::Reverse(channel_class(b))).or_default().push_back(b);
    }
    let mut out = Vec::new();
    while classes.values().any(|q| !q.is_empty()) {
        for q in classes.values_mut() {
            out.extend(q.pop_front());
        }
    }
    out
}

/// `n` slots in words (`1 slot`, `3 slots`).
fn slots(n: u8) -> String {
    if n == 1 { "1 slot".to_owned() } else { format!("{n} slots") }
}

/// The thickness of the cards of a chip a slots rejection tried, naming them, since the chip's
/// cards differ (the cheapest card under one run's prices is not another's: a trial read "(3
/// slots each)" for the Radeon RX 6800 in one plan and "(2 slots each)" in another, the
/// thickness of whichever card came first): `3 slots each: the XFX ..., the card of the chip
/// tried`; `3 slots each, every card of the chip tried: A; B; C`; `2 to 3 slots each over the
/// cards of the chip tried: A, 2 slots; B, 3 slots`.
fn thickness(cards: &[&CardView]) -> String {
    let (Some(thin), Some(thick)) =
        (cards.iter().map(|c| c.width_slots).min(), cards.iter().map(|c| c.width_slots).max())
    else {
        return "no card of the chip tried".to_owned();
    };
    match cards {
        [one] => format!("{} each: the {}, the card of the chip tried", slots(one.width_slots), one.name),
        _ if thin == thick => format!(
            "{} each, every card of the chip tried: {}",
            slots(thin),
            cards.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join("; ")
        ),
        _ => format!(
            "{thin} to {} each over the cards of the chip tried: {}",
            slots(thick),
            cards.iter().map(|c| format!("{}, {}", c.name, slots(c.width_slots))).collect::<Vec<_>>().join("; ")
        ),
    }
}

impl State<'_> {
    /// Assembles and checks machines for one chip configuration.
    pub(super) fn assemble(&mut self, c: &ChipConfig, results: &mut Vec<PlanResult>) {
        let parts = self.parts;
        let rep = &parts.cards[c.cards[0]];
        let what = format!("{}x {}", c.n, rep.short);
        let mut first_failure: Option<(Constraint, String)> = None;
        let mut found_any = false;
        let mut placed_any = false;
        // The cards of the chip tried, for the thickness a slots rejection names.
        let mut tried: Vec<usize> = Vec::new();
        for &ci in &c.cards {
            // Cards of a chip come cheapest first: once one gives machines, a dearer twin adds
            // nothing to a cheapest-first answer.
            if found_any || self.unknown.contains(&Unknown::Card(ci)) {
                continue;
            }
            tried.push(ci);
            let card = &parts.cards[ci];
            let mut kept = 0;
            let mut boards_tried = 0;
            let mut over_power = 0;
            // Boards that put every card on CPU lanes first (in part order within each group).
            // A hybrid split reads experts from system RAM: one board of each memory-channel
            // class in turn, the most channels first ([`by_channel_class`]), so a two-channel
            // desktop is assembled beside the server boards (experts split gpt-oss-120b and
            // Qwen3-235B on 2 x 48 GB DDR5 desktops: issue 36, goals 4 and 5), and each class
            // keeps at most one machine per card.
            let mut boards = self.boards.clone();
            boards.sort_by_key(|b| b.cpu_wide_slots < c.n as usize);
            let hybrid = c.hybrid_gib.is_some();
            let boards: Vec<&BoardView> = if hybrid {
                by_channel_class(boards.into_iter().filter(|b| b.wide_slots >= c.n as usize).collect())
            } else {
                boards.into_iter().filter(|b| b.wide_slots >= c.n as usize).collect()
            };
            let classes =
                if hybrid { boards.iter().map(|b| channel_class(b)).collect::<BTreeSet<_>>().len() } else { 0 };
            let (results_cap, boards_cap) = (RESULTS_PER_CARD.max(classes), BOARDS_PER_CARD.max(classes));
            let mut classes_kept: BTreeSet<(u32, bool)> = BTreeSet::new();
            for &board in &boards {
                if kept >= results_cap || boards_tried >= boards_cap {
                    break;
                }
                if self.unknown.contains(&Unknown::Board(board.idx))
                    || self.unknown.contains(&Unknown::Card(ci))
                    || (hybrid && classes_kept.contains(&channel_class(board)))
                {
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
                // The PSU bays of the case whose machine needed a power cap: a cap costs the
                // user speed, so the cases of this board that hold more PSUs are tried for the
                // same cards at their default limits (an open frame with two PSUs where no
                // single unit carries them: issue 36); `finish` keeps the capped machine only
                // where no uncapped one of the same cards met the goal. A capped machine too
                // slow for the goal only for its cap ([`Retry::MorePsus`]: 4x RTX 3090 on one
                // 1600 W unit at 120 V, capped at 210 W by the unit's 1 ms peak) sends the
                // search the same way: two PSUs may carry the cards at the circuit's limit.
                let mut capped_at: Option<u8> = None;
                for (case, placement) in cases.into_iter().take(CASES_PER_BOARD * 2) {
                    if capped_at.is_some_and(|bays| case.psu_bays <= bays) {
                        continue;
                    }
                    match self.try_platform(c, ci, board, case, &placement) {
                        Ok(r) => {
                            let r = self.priced_twin(r, c, ci, board, case, &placement);
                            let capped = r.eval.power_cap.is_some();
                            results.push(r);
                            kept += usize::from(capped_at.is_none());
                            classes_kept.insert(channel_class(board));
                            found_any = true;
                            if capped && capped_at.is_none() {
                                capped_at = Some(case.psu_bays);
                                continue;
                            }
                            break;
                        }
                        Err((constraint, reason, retry)) => {
                            over_power += usize::from(constraint == Constraint::Power);
                            if first_failure.as_ref().is_none_or(|old| stage(constraint) > stage(old.0)) {
                                first_failure = Some((constraint, reason));
                            }
                            if retry == Retry::MorePsus {
                                capped_at = capped_at.max(Some(case.psu_bays));
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
            // A passive card is offered rack chassis with server airflow only (`cases_for`).
            let forms: Vec<String> = if rep.passive {
                vec!["rack (server airflow: the cards are passive)".into()]
            } else {
                self.forms().iter().map(ToString::to_string).collect()
            };
            let priced = if self.goal.budget_usd.is_some() { " with known prices" } else { "" };
            let constraint = if self.goal.budget_usd.is_some() { Constraint::Unknown } else { Constraint::Slots };
            let ids = if tried.is_empty() { &c.cards } else { &tried };
            let tried: Vec<&CardView> = ids.iter().map(|&i| &parts.cards[i]).collect();
            (
                constraint,
                format!(
                    "no board and {} case{priced} in the catalog hold {what} ({})",
                    forms.join("/"),
                    thickness(&tried)
                ),
            )
        };
        let reason = if reason.starts_with(&what) { reason } else { format!("{what}: {reason}") };
        self.reject(what, constraint, reason);
    }

    /// A machine that met the goal with a part of unknown price (possible only without a
    /// budget: [`State::priced`]) is tried again on the same board and case with priced CPUs,
    /// coolers, memory kits and PSUs only; the fully priced machine, when it meets the goal too,
    /// replaces it (and the first no longer counts as passed), so the cheapest fully priced
    /// machine on each platform is found with no budget as with one. Without it a hybrid
    /// split on a desktop board chose the faster unpriced DDR4-4600 kit, "at least $292",
    /// and the $531 machine a `--budget-usd 100000` run listed first on the same board was never
    /// assembled. The machine as it was when the board, the case or a GPU bought is unpriced
    /// (no priced retry can complete it) or when the priced retry fails.
    fn priced_twin(
        &mut self,
        r: PlanResult,
        c: &ChipConfig,
        ci: usize,
        board: &BoardView,
        case: &CaseView,
        placement: &[(u8, Option<u8>)],
    ) -> PlanResult {
        let card = &self.parts.cards[ci];
        let gpus_priced = card.price_usd.is_some() || c.n <= self.goal.owned_count(&card.id);
        // An owned board or case costs $0: its unknown price does not leave the machine unpriced.
        let owned = |id: &str| self.goal.owned_count(id) > 0;
        let board_priced = board.price_usd.is_some() || owned(&board.id);
        let case_priced = case.price_usd.is_some() || owned(&case.id);
        if r.price_complete || !board_priced || !case_priced || !gpus_priced {
            return r;
        }
        self.priced_only = true;
        let twin = self.try_platform(c, ci, board, case, placement);
        self.priced_only = false;
        match twin {
            Ok(t) if t.price_complete => {
                self.stats.passing -= 1;
                t
            }
            Ok(_) => {
                self.stats.passing -= 1;
                r
            }
            Err(_) => r,
        }
    }

    /// CPU, memory, cooler and PSUs for a board and case; checks the machine.
    pub(super) fn try_platform(
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
                    && crate::check::cpu_fills_sockets(p.max_sockets, board.cpu_sockets)
                    && p.memory_types.contains(&board.memory_type)
            })
            .filter(|p| {
                self.musts.get(&PartKind::Cpu).is_none_or(|id| &p.id == id)
                    && self.priced_or_owned(&p.id, p.price_usd, u32::from(board.cpu_sockets.max(1)))
            })
            .collect();
        // Lanes the GPUs get with each CPU: the board wiring's lanes for that CPU in the
        // placed slots (`lanes_by_cpu`: Phoenix APUs such as the Ryzen 5 8400F give the first
        // x16 slot only x8 or x4, and none to a second CPU slot), capped by the CPU's own lanes.
        // A CPU that narrows the GPU links ranks after one that does not, whatever its price.
        let mb = self.catalog.motherboards.get(board.idx);
        let gpu_lanes = |cpu: &CpuView| -> u32 {
            let placed: u32 = placement
                .iter()
                .map(|&(pos, _)| slot_by_key(mb, pos).map_or(0, |s| u32::from(s.lanes_with_cpu(Some(&cpu.name)))))
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
                    && k.fits(case)
                    && self.musts.get(&PartKind::Cooler).is_none_or(|id| &k.id == id)
                    && self.priced_or_owned(&k.id, k.price_usd, u32::from(board.cpu_sockets.max(1)))
                    && !self.unknown.contains(&Unknown::Cooler(k.idx))
            })
            .min_by(|a, b| {
                b.figures_known.cmp(&a.figures_known).then(cmp_price(a.price_usd, b.price_usd)).then(a.id.cmp(&b.id))
            })
            .ok_or((
                Constraint::Checks,
                format!("no cooler in the catalog mounts on {} and fits {}", board.socket, case.id),
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
                max_num_seqs: c.max_num_seqs,
            };
            let sizing = make_build(self.catalog, self.goal, self.model, &spec, "sizing");
            self.work.add_spec(self.catalog, &spec);
            let dc = dc_load_w(&sizing, self.work.catalog());
            let gpu_w = card.board_power_w;
            let system_w = (dc - gpu_w * f64::from(c.n)).max(0.0);
            // The board's EPS 8-pin inputs on the system PSU; unknown counts as one, as
            // `psu-connectors` counts it.
            let board_eps = board.eps_8pin.unwrap_or(1);
            let mut sets = self.psu_sets(system_w, gpu_w, card.plugs, c.n, case.psu_bays, board_eps);
            // No PSU set the checker can verify carries the cards at their default limit (none
            // at all, or only units with an unknown figure: a 230 V unit whose 100-127 V rating
            // is not published, on a low-line site, carried 4x RTX 3090 uncapped and was judged
            // "not checked"): size for them capped, the highest cap, in steps of four of the
            // power-limit search's, that a checkable set carries; `judge` then sets the highest
            // cap the chosen set allows and the checker judges the capped machine. Where no
            // checkable set carries even the cards' minimum limit, the first sets found are
            // kept (their not-checked finding is the reason given).
            let floor = self
                .catalog
                .gpu_or_card(&card.id)
                .map_or(gpu_w * power::CURVE_FLOOR_FRACTION, power::lowest_planned_limit_w);
            let checkable = |sets: &PsuChoice| sets.iter().any(|s| s.checkable);
            let mut capped = gpu_w - power::LIMIT_STEP_W;
            while !checkable(&sets) && capped >= floor {
                let at = self.psu_sets(system_w, capped, card.plugs, c.n, case.psu_bays, board_eps);
                if sets.is_empty() || checkable(&at) {
                    sets = at;
                }
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
            for PsuOption { psus, feeds, .. } in sets {
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
                            Retry::Case | Retry::Board | Retry::MorePsus => return Err(last),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CPU+GPU split tries one board of each memory class before a second of any: the first
    /// boards cover every class (a two-channel DDR5 desktop among them, so it is reached within
    /// the search's board cap), the most channels first, and each class keeps the search's order.
    #[test]
    fn split_boards_come_one_of_each_memory_class() {
        let catalog = kraftwerk_catalog::builtin().expect("catalog");
        let parts = crate::plan::parts::read(&catalog, 120.0);
        let boards: Vec<&BoardView> = parts.boards.iter().collect();
        let classes: BTreeSet<(u32, bool)> = boards.iter().map(|b| channel_class(b)).collect();
        assert!(classes.contains(&(2, true)) && classes.contains(&(8, false)), "{classes:?}");
        let order = by_channel_class(boards.clone());
        assert_eq!(order.len(), boards.len());
        let first: Vec<(u32, bool)> = order.iter().take(classes.len()).map(|b| channel_class(b)).collect();
        let mut want: Vec<(u32, bool)> = classes.iter().copied().collect();
        want.reverse();
        assert_eq!(first, want, "one board of each class, the most channels (then DDR5) first");
        for class in &classes {
            let kept: Vec<usize> = order.iter().filter(|b| channel_class(b) == *class).map(|b| b.idx).collect();
            let given: Vec<usize> = boards.iter().filter(|b| channel_class(b) == *class).map(|b| b.idx).collect();
            assert_eq!(kept, given, "class {class:?} keeps the search's order");
        }
    }
}

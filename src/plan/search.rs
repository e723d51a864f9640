//! The search over the catalog. See the module docs of [`super`] for the pruning order.
//!
//! Bounds, so the work stays proportional to the number of GPU chips rather than to the product
//! of every part list: at most [`CARDS_PER_CHIP`] cards per chip, [`BOARDS_PER_CARD`] boards,
//! [`CASES_PER_BOARD`] cases, [`CPUS_PER_BOARD`] CPUs and [`PSU_OPTIONS`] PSU sets are
//! assembled, and a card stops after [`RESULTS_PER_CARD`] machines that pass.

use super::adapter::{self, BoardView, CardView, CaseView, Model, Parts, Precision, Spec};
use super::{Constraint, Form, Goal, ModelRef, PlanError, PlanOutcome, PlanResult, Rejected, Stats};
use crate::catalog::Catalog;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cards tried per GPU chip (cheapest known price first).
pub const CARDS_PER_CHIP: usize = 3;
/// Boards tried per card.
pub const BOARDS_PER_CARD: usize = 4;
/// Cases tried per board (the cheapest of each form).
pub const CASES_PER_BOARD: usize = 3;
/// CPUs tried per board.
pub const CPUS_PER_BOARD: usize = 2;
/// PSU sets tried per machine.
pub const PSU_OPTIONS: usize = 3;
/// Identical PSUs in one machine at most.
pub const MAX_PSUS: u8 = 4;
/// Passing machines kept per card.
pub const RESULTS_PER_CARD: usize = 2;

/// Progress and cancellation of a search.
pub struct Control<'a> {
    /// Set to stop early; the outcome then says `cancelled`.
    pub cancel: &'a AtomicBool,
    /// Called with (steps done, steps in all) as the search goes.
    pub progress: &'a mut dyn FnMut(usize, usize),
}

/// Card slots: (slot position, riser generation for an open frame).
type Placement = Vec<(u8, Option<u8>)>;

/// A PSU option: total price, id, the PSUs, the PSU feeding each card.
type PsuSet<'a> = (Option<f64>, &'a str, Vec<usize>, Vec<usize>);

/// One chip at the count and precision that meet memory and speed.
struct ChipConfig {
    cards: Vec<usize>,
    n: u32,
    precision: Precision,
}

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

/// How far a machine got before it failed: the reason of the furthest is the one reported.
fn stage(c: Constraint) -> u8 {
    match c {
        Constraint::Slots | Constraint::Excluded | Constraint::Used => 0,
        Constraint::Checks => 1,
        Constraint::Power => 2,
        Constraint::Unknown => 3,
        Constraint::Memory | Constraint::Speed => 4,
        Constraint::Budget => 5,
    }
}

fn price_key(p: Option<f64>) -> (bool, f64) {
    (p.is_none(), p.unwrap_or(0.0))
}

fn cmp_price(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    let (ua, pa) = price_key(a);
    let (ub, pb) = price_key(b);
    ua.cmp(&ub).then(pa.total_cmp(&pb))
}

fn validate(goal: &Goal) -> Result<(), PlanError> {
    let bad = |m: String| Err(PlanError::BadGoal(m));
    if !(90.0..=260.0).contains(&goal.mains_v) {
        return bad(format!("mains voltage {} V is outside 90-260 V", goal.mains_v));
    }
    if !(goal.breaker_a.is_finite() && goal.breaker_a > 0.0) {
        return bad(format!("breaker {} A must be positive", goal.breaker_a));
    }
    if goal.circuits == 0 || goal.circuits > 16 {
        return bad(format!("circuits {} must be 1 to 16", goal.circuits));
    }
    if goal.users == 0 || goal.users > 4096 {
        return bad(format!("users {} must be 1 to 4096", goal.users));
    }
    if !(goal.tok_s.is_finite() && goal.tok_s >= 0.0) {
        return bad(format!("tok/s {} must be zero or more", goal.tok_s));
    }
    if goal.prefill_tok_s.is_some_and(|p| !(p.is_finite() && p > 0.0)) {
        return bad("prefill tok/s must be positive".into());
    }
    if goal.budget_usd.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
        return bad("budget must be positive".into());
    }
    if goal.context == Some(0) {
        return bad("context must be at least 1 token".into());
    }
    if goal.outlet_a.is_some_and(|a| !(a.is_finite() && a > 0.0)) {
        return bad("outlet limit must be positive".into());
    }
    if goal.max_gpus == 0 || goal.max_gpus > 16 {
        return bad(format!("max GPUs {} must be 1 to 16", goal.max_gpus));
    }
    adapter::check_mode(&goal.mode).map_err(PlanError::BadGoal)
}

/// Must-have part ids by kind.
fn must_have(catalog: &Catalog, goal: &Goal) -> Result<BTreeMap<&'static str, String>, PlanError> {
    let mut out = BTreeMap::new();
    for id in &goal.must_have {
        let kind = adapter::part_kind(catalog, id)
            .ok_or_else(|| PlanError::BadGoal(format!("must-have part `{id}` is not in the catalog")))?;
        if let Some(old) = out.insert(kind, id.clone()) {
            return Err(PlanError::BadGoal(format!("two must-have parts of kind {kind}: `{old}` and `{id}`")));
        }
    }
    Ok(out)
}

/// Plans builds for `goal` over `catalog`.
///
/// # Errors
/// [`PlanError::BadGoal`] for a goal out of range, an unknown model or must-have part.
pub fn plan(catalog: &Catalog, goal: &Goal, ctl: &mut Control<'_>) -> Result<PlanOutcome, PlanError> {
    let mut out = search(catalog, goal, ctl)?;
    if out.results.is_empty() && !out.cancelled {
        super::relax::relax(catalog, goal, ctl, &mut out);
    }
    Ok(out)
}

pub(super) fn search(catalog: &Catalog, goal: &Goal, ctl: &mut Control<'_>) -> Result<PlanOutcome, PlanError> {
    validate(goal)?;
    let model = adapter::resolve_model(catalog, &goal.model).map_err(PlanError::BadGoal)?;
    let precisions = match &goal.precision {
        Some(p) if p != "best" => vec![adapter::parse_precision(p).map_err(PlanError::BadGoal)?],
        _ => adapter::best_precisions(),
    };
    let musts = must_have(catalog, goal)?;
    let parts = adapter::parts(catalog, goal.mains_v);
    let priced = |p: Option<f64>| goal.budget_usd.is_none() || p.is_some();
    let mut boards: Vec<&BoardView> = parts
        .boards
        .iter()
        .filter(|b| musts.get("motherboard").is_none_or(|id| &b.id == id) && priced(b.price_usd))
        .collect();
    boards.sort_by(|a, b| cmp_price(a.price_usd, b.price_usd).then(a.id.cmp(&b.id)));
    let mut cases: Vec<&CaseView> =
        parts.cases.iter().filter(|k| musts.get("case").is_none_or(|id| &k.id == id) && priced(k.price_usd)).collect();
    cases.sort_by(|a, b| cmp_price(a.price_usd, b.price_usd).then(a.id.cmp(&b.id)));
    // Per (form, board form factor): the cheapest case of each (openings, PSU bays), so a board
    // looks at a handful of cases however many the catalog lists.
    let mut case_index: BTreeMap<(Form, adapter::FormFactor), Vec<&CaseView>> = BTreeMap::new();
    for k in cases {
        for &ff in &k.form_factors {
            let list = case_index.entry((k.form, ff)).or_default();
            if !list.iter().any(|o| o.expansion_slots == k.expansion_slots && o.psu_bays == k.psu_bays) {
                list.push(k);
            }
        }
    }
    let mut psus: Vec<&adapter::PsuView> =
        parts.psus.iter().filter(|p| musts.get("psu").is_none_or(|id| &p.id == id) && priced(p.price_usd)).collect();
    psus.sort_by(|a, b| cmp_price(a.price_usd, b.price_usd).then(a.id.cmp(&b.id)));
    let mut st = State {
        catalog,
        goal,
        model: &model,
        parts: &parts,
        musts: &musts,
        boards,
        cases: case_index,
        psus,
        stats: Stats::default(),
        rejected: Vec::new(),
    };

    // Group identical chips, cheapest card first.
    let mut chips: BTreeMap<&str, Vec<&CardView>> = BTreeMap::new();
    for c in &parts.cards {
        chips.entry(c.chip_key.as_str()).or_default().push(c);
    }
    let mut groups: Vec<Vec<&CardView>> = chips.into_values().collect();
    for g in &mut groups {
        g.sort_by(|a, b| {
            cmp_price(a.price_usd, b.price_usd).then(a.width_slots.cmp(&b.width_slots)).then(a.id.cmp(&b.id))
        });
    }
    groups.sort_by(|a, b| a[0].id.cmp(&b[0].id));
    st.stats.chips = groups.len();
    let total = groups.len() * 2;
    let mut step = 0;

    let mut configs = Vec::new();
    for g in &groups {
        if ctl.cancel.load(Ordering::Relaxed) {
            return Ok(st.finish(Vec::new(), true));
        }
        if let Some(c) = st.screen_chip(g, &precisions) {
            configs.push(c);
        }
        step += 1;
        (ctl.progress)(step, total);
    }
    // Cheapest GPU set first (unknown prices last) so that results come in price order.
    configs.sort_by(|a, b| {
        let pa = parts.cards[a.cards[0]].price_usd.map(|p| p * f64::from(a.n));
        let pb = parts.cards[b.cards[0]].price_usd.map(|p| p * f64::from(b.n));
        cmp_price(pa, pb).then(parts.cards[a.cards[0]].id.cmp(&parts.cards[b.cards[0]].id))
    });
    let mut results = Vec::new();
    for c in &configs {
        if ctl.cancel.load(Ordering::Relaxed) {
            return Ok(st.finish(results, true));
        }
        st.assemble(c, &mut results);
        step += 1;
        (ctl.progress)(step.min(total), total);
    }
    (ctl.progress)(total, total);
    Ok(st.finish(results, false))
}

struct State<'a> {
    catalog: &'a Catalog,
    goal: &'a Goal,
    model: &'a Model,
    parts: &'a Parts,
    musts: &'a BTreeMap<&'static str, String>,
    /// Boards and cases the goal allows, cheapest first (sorted once per search).
    boards: Vec<&'a BoardView>,
    cases: BTreeMap<(Form, adapter::FormFactor), Vec<&'a CaseView>>,
    psus: Vec<&'a adapter::PsuView>,
    stats: Stats,
    rejected: Vec<Rejected>,
}

impl State<'_> {
    fn reject(&mut self, what: String, constraint: Constraint, reason: String) {
        self.rejected.push(Rejected { what, constraint, reason });
    }

    /// Memory first, then speed, then power: the smallest count of this chip that meets the
    /// goal, at the best precision that does.
    fn screen_chip(&mut self, cards: &[&CardView], precisions: &[Precision]) -> Option<ChipConfig> {
        let goal = self.goal;
        let rep = cards[0];
        let name = &rep.short;
        let cards: Vec<usize> = match self.musts.get("gpu") {
            Some(id) => cards.iter().filter(|c| &c.id == id).map(|c| c.idx).collect(),
            None => cards.iter().take(CARDS_PER_CHIP).map(|c| c.idx).collect(),
        };
        if cards.is_empty() {
            return None; // another chip is the must-have card
        }
        if rep.sxm {
            self.reject(
                name.clone(),
                Constraint::Excluded,
                format!("{name}: an SXM module needs an HGX baseboard system, which the catalog does not list"),
            );
            return None;
        }
        if !self.priced(rep.price_usd) {
            self.reject(
                name.clone(),
                Constraint::Unknown,
                format!("{name}: price unknown, so the budget cannot be checked"),
            );
            return None;
        }
        if rep.used_market && !goal.used {
            self.reject(
                name.clone(),
                Constraint::Used,
                format!("{name}: sold used only (allow used cards with --used)"),
            );
            return None;
        }
        let weights_floor =
            precisions.iter().map(|&p| adapter::weights_gib(self.model, p)).fold(f64::INFINITY, f64::min);
        let mut best_speed: Option<(u32, f64, Precision)> = None;
        let mut need: Option<(f64, f64)> = None;
        for n in 1..=goal.max_gpus {
            if f64::from(n) * rep.memory_gib < weights_floor {
                continue; // the weights alone do not fit: no need to ask the fit code
            }
            for &p in precisions {
                if f64::from(n) * rep.memory_gib < adapter::weights_gib(self.model, p) {
                    continue;
                }
                self.stats.screened += 1;
                let Ok(s) = adapter::screen(self.catalog, self.model, goal, rep, n, p) else { continue };
                if !s.fits {
                    need = Some((s.required_gib, s.capacity_gib));
                    continue;
                }
                if goal.is_training() {
                    return self.power_gate(cards, n, p);
                }
                let decode = s.decode_per_user.unwrap_or(0.0);
                if best_speed.is_none_or(|(_, d, _)| decode > d) {
                    best_speed = Some((n, decode, p));
                }
                let prefill_ok = match (goal.prefill_tok_s, s.prefill) {
                    (None, _) => true,
                    (Some(t), Some(x)) => x >= t,
                    (Some(_), None) => false,
                };
                if decode >= goal.tok_s && prefill_ok {
                    return self.power_gate(cards, n, p);
                }
            }
        }
        match (best_speed, need) {
            (Some((n, d, p)), _) => {
                let what = format!("{n}x {name}");
                self.reject(
                    what.clone(),
                    Constraint::Speed,
                    format!(
                        "{what} at {p}: {d:.1} tok/s per user at best (target {}{})",
                        goal.tok_s,
                        self.prefill_text()
                    ),
                );
            }
            (None, Some((req, cap))) => {
                let what = format!("{}x {name}", goal.max_gpus);
                self.reject(
                    what.clone(),
                    Constraint::Memory,
                    format!(
                        "{name}: even {} cards do not hold it ({req:.1} GiB needed per {cap:.0} GiB card)",
                        goal.max_gpus
                    ),
                );
            }
            (None, None) => {
                let what = format!("{}x {name}", goal.max_gpus);
                let total = f64::from(goal.max_gpus) * rep.memory_gib;
                self.reject(
                    what.clone(),
                    Constraint::Memory,
                    format!("{what}: {total:.0} GiB in all, the weights alone are {weights_floor:.0} GiB"),
                );
            }
        }
        None
    }

    /// With a budget a part without a price cannot be judged: it is not proposed.
    fn priced(&self, price: Option<f64>) -> bool {
        self.goal.budget_usd.is_none() || price.is_some()
    }

    fn prefill_text(&self) -> String {
        self.goal.prefill_tok_s.map_or_else(String::new, |p| format!(", prefill {p}"))
    }

    /// Power: the cards alone against what the circuits carry.
    fn power_gate(&mut self, cards: Vec<usize>, n: u32, precision: Precision) -> Option<ChipConfig> {
        let rep = &self.parts.cards[cards[0]];
        let (gpu_w, site_w) = adapter::gpus_alone_w(self.catalog, self.goal, rep, n);
        if gpu_w > site_w {
            let what = format!("{n}x {}", rep.short);
            let g = self.goal;
            self.reject(what.clone(), Constraint::Power, format!(
                "{what} on {} x {} A circuit{} at {} V: the cards alone draw {:.2} kW at full load, the circuits carry {:.2} kW",
                g.circuits, g.breaker_a, if g.circuits == 1 { "" } else { "s" }, g.mains_v, gpu_w / 1000.0, site_w / 1000.0));
            return None;
        }
        if let (Some(budget), Some(price)) = (self.goal.budget_usd, rep.price_usd)
            && price * f64::from(n) > budget
        {
            let what = format!("{n}x {}", rep.short);
            self.reject(
                what.clone(),
                Constraint::Budget,
                format!("{what}: the cards alone cost ${:.0}, over the ${budget:.0} budget", price * f64::from(n)),
            );
            return None;
        }
        Some(ChipConfig { cards, n, precision })
    }

    /// Slots: where the cards go on a board in a case of this form; `None` if they do not fit.
    fn place(board: &BoardView, case: &CaseView, card: &CardView, n: u32) -> Option<Placement> {
        let mut slots: Vec<_> = board.slots.iter().filter(|s| s.physical_lanes >= 8).collect();
        slots.sort_by_key(|s| s.position);
        let n = n as usize;
        if case.form == Form::OpenFrame {
            // Risers: any slot, the card covers nothing; rated for the lower generation (Gen4 at most).
            let mut best: Vec<_> = slots.clone();
            best.sort_by_key(|s| (std::cmp::Reverse(s.physical_lanes), s.position));
            let mut chosen: Vec<_> = best.into_iter().take(n).collect();
            chosen.sort_by_key(|s| s.position);
            return (chosen.len() == n)
                .then(|| chosen.iter().map(|s| (s.position, Some(s.pcie_gen.min(card.pcie_gen).min(4)))).collect());
        }
        let width = card.width_slots.max(1);
        let mut next_free = 0u8;
        let mut out = Vec::new();
        for s in slots {
            if out.len() == n {
                break;
            }
            let last = s.position.saturating_add(width - 1);
            if s.physical_lanes >= 16 && s.position >= next_free && last <= case.expansion_slots {
                out.push((s.position, None));
                next_free = s.position.saturating_add(width);
            }
        }
        (out.len() == n).then_some(out)
    }

    fn forms(&self) -> Vec<Form> {
        self.goal.form.map_or_else(|| vec![Form::Tower, Form::Rack, Form::OpenFrame], |f| vec![f])
    }

    /// Assembles and checks machines for one chip configuration.
    fn assemble(&mut self, c: &ChipConfig, results: &mut Vec<PlanResult>) {
        let parts = self.parts;
        let rep = &parts.cards[c.cards[0]];
        let what = format!("{}x {}", c.n, rep.short);
        let mut first_failure: Option<(Constraint, String)> = None;
        let mut found_any = false;
        let mut placed_any = false;
        for &ci in &c.cards {
            let card = &parts.cards[ci];
            let mut kept = 0;
            let mut boards_tried = 0;
            let boards = self.boards.clone();
            for &board in
                boards.iter().filter(|b| b.slots.iter().filter(|s| s.physical_lanes >= 8).count() >= c.n as usize)
            {
                if kept >= RESULTS_PER_CARD || boards_tried >= BOARDS_PER_CARD {
                    break;
                }
                // The cheapest case of each form that takes the board and the cards (a passive
                // card may pass only in a rack); placements memoized by (form, openings).
                let mut memo: BTreeMap<(Form, u8), Option<Placement>> = BTreeMap::new();
                let mut cases: Vec<(&CaseView, Placement)> = Vec::new();
                for f in self.forms() {
                    let hit = self.cases.get(&(f, board.form_factor)).into_iter().flatten().find_map(|k| {
                        memo.entry((k.form, k.expansion_slots))
                            .or_insert_with(|| Self::place(board, k, card, c.n))
                            .clone()
                            .map(|p| (*k, p))
                    });
                    cases.extend(hit);
                }
                cases.sort_by(|a, b| cmp_price(a.0.price_usd, b.0.price_usd).then(a.0.id.cmp(&b.0.id)));
                if cases.is_empty() {
                    continue;
                }
                placed_any = true;
                boards_tried += 1;
                for (case, placement) in cases.into_iter().take(CASES_PER_BOARD) {
                    match self.try_platform(c, ci, board, case, &placement) {
                        Ok(r) => {
                            results.push(r);
                            kept += 1;
                            found_any = true;
                            break;
                        }
                        Err(f) => {
                            if first_failure.as_ref().is_none_or(|old| stage(f.0) > stage(old.0)) {
                                first_failure = Some(f);
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
    ) -> Result<PlanResult, (Constraint, String)> {
        let parts = self.parts;
        let card = &parts.cards[ci];
        let mut cpus: Vec<_> = parts
            .cpus
            .iter()
            .filter(|p| p.socket == board.socket && p.memory_types.contains(&board.memory_type))
            .filter(|p| self.musts.get("cpu").is_none_or(|id| &p.id == id) && self.priced(p.price_usd))
            .collect();
        cpus.sort_by(|a, b| cmp_price(a.price_usd, b.price_usd).then(b.lanes.cmp(&a.lanes)).then(a.id.cmp(&b.id)));
        let cooler = parts
            .coolers
            .iter()
            .filter(|k| {
                k.sockets.contains(&board.socket)
                    && self.musts.get("cooler").is_none_or(|id| &k.id == id)
                    && self.priced(k.price_usd)
            })
            .min_by(|a, b| cmp_price(a.price_usd, b.price_usd).then(a.id.cmp(&b.id)))
            .ok_or((Constraint::Checks, format!("no cooler in the catalog mounts on {}", board.socket)))?;
        let kit = self.memory_for(board, card, c.n)?;
        let mut last =
            (Constraint::Slots, format!("no CPU in the catalog for {} with {}", board.socket, board.memory_type));
        for cpu in cpus.into_iter().take(CPUS_PER_BOARD) {
            let mut spec = Spec {
                card: ci,
                placements: placement.iter().map(|&(s, r)| (s, r, 0)).collect(),
                board: board.idx,
                cpu: cpu.idx,
                cooler: cooler.idx,
                case: case.idx,
                kit,
                psus: Vec::new(),
                precision: c.precision,
            };
            let dc = adapter::dc_load_w(self.catalog, self.goal, self.model, &spec);
            let gpu_w = card.board_power_w;
            let system_w = (dc - gpu_w * f64::from(c.n)).max(0.0);
            for (psus, feeds) in self.psu_sets(system_w, gpu_w, c.n, case.psu_bays) {
                spec.psus = psus.iter().enumerate().map(|(j, &p)| (p, j % self.goal.circuits.max(1))).collect();
                for (pl, &f) in spec.placements.iter_mut().zip(&feeds) {
                    pl.2 = f;
                }
                match self.judge(&spec, case.form, c.n) {
                    Ok(r) => return Ok(r),
                    Err(e) if stage(e.0) >= stage(last.0) => last = e,
                    Err(_) => {}
                }
            }
        }
        Err(last)
    }

    /// A memory kit filling the board's channels, raised towards the VRAM total.
    fn memory_for(&self, board: &BoardView, card: &CardView, n: u32) -> Result<(usize, u8), (Constraint, String)> {
        let want_modules = u32::from(board.memory_channels) * u32::from(board.cpu_sockets);
        let vram_gb = card.memory_gib * f64::from(n) * 1.073_741_824;
        self.parts
            .kits
            .iter()
            .filter(|k| k.memory_type == board.memory_type && k.modules > 0)
            .filter(|k| self.musts.get("memory").is_none_or(|id| &k.id == id) && self.priced(k.price_usd))
            .filter_map(|k| {
                let per = u32::from(k.modules);
                let mut kits = want_modules.div_ceil(per).max(1);
                while f64::from(kits * k.total_gb) < vram_gb && (kits + 1) * per <= u32::from(board.memory_slots) {
                    kits += 1;
                }
                (kits * per <= u32::from(board.memory_slots).max(per))
                    .then(|| (k, u8::try_from(kits).unwrap_or(u8::MAX)))
            })
            .min_by(|a, b| {
                cmp_price(a.0.price_usd.map(|p| p * f64::from(a.1)), b.0.price_usd.map(|p| p * f64::from(b.1)))
                    .then(a.0.id.cmp(&b.0.id))
            })
            .map(|(k, n)| (k.idx, n))
            .ok_or((Constraint::Checks, format!("no {} kit in the catalog", board.memory_type)))
    }

    /// PSU sets: k identical units that carry the system (on the first) and the cards, each
    /// under the sustained guideline, cheapest first; with the PSU feeding each card.
    fn psu_sets(&self, system_w: f64, gpu_w: f64, n: u32, bays: u8) -> Vec<(Vec<usize>, Vec<usize>)> {
        // PSUs are sorted by unit price once per search; a set of k costs at least one unit,
        // so the scan stops once a unit costs more than the dearest of the sets kept.
        let mut sets: Vec<PsuSet<'_>> = Vec::new();
        for p in &self.psus {
            let worst = sets.iter().map(|s| s.0).max_by(|a, b| cmp_price(*a, *b)).flatten();
            if sets.len() >= PSU_OPTIONS
                && (p.price_usd.is_none() || p.price_usd.zip(worst).is_some_and(|(u, w)| u > w))
            {
                break;
            }
            let per = p.rated_w * adapter::PSU_GUIDELINE;
            let found = (1..=bays.clamp(1, MAX_PSUS)).find_map(|k| {
                let feeds = pack(system_w, gpu_w, n, usize::from(k), per)?;
                Some((p.price_usd.map(|x| x * f64::from(k)), p.id.as_str(), vec![p.idx; usize::from(k)], feeds))
            });
            sets.extend(found);
        }
        sets.sort_by(|a, b| cmp_price(a.0, b.0).then(a.1.cmp(b.1)));
        sets.into_iter().take(PSU_OPTIONS).map(|s| (s.2, s.3)).collect()
    }

    /// Builds the machine, checks and estimates it, and holds it to the goal.
    fn judge(&mut self, spec: &Spec, form: Form, n: u32) -> Result<PlanResult, (Constraint, String)> {
        let card = &self.parts.cards[spec.card];
        let gpus = format!("{n}x {}", card.short);
        let board = &self.parts.boards[spec.board];
        let title = format!("{gpus} on {}, {form}", board.name);
        let build = adapter::make_build(self.catalog, self.goal, self.model, spec, &title);
        self.stats.checked += 1;
        let ev = adapter::evaluate(&build, self.catalog, self.goal);
        if let Some(e) = ev.errors.first() {
            let constraint = if e.starts_with("wall-circuit") || e.starts_with("psu-capacity") {
                Constraint::Power
            } else {
                Constraint::Checks
            };
            let hint = match ev.advised_limit_w {
                Some(w) if constraint == Constraint::Power => {
                    format!(" (a common power limit of {w:.0} W per card would fit)")
                }
                _ => String::new(),
            };
            let wall = if constraint == Constraint::Power {
                format!("{:.2} kW at the wall; ", ev.wall_w / 1000.0)
            } else {
                String::new()
            };
            return Err((constraint, format!("{gpus}, {form}: {wall}{e}{hint}")));
        }
        // The goal names the circuits: the power code's draw must stay within their continuous
        // limit (the checker's wall-circuit rule only warns between it and the breaker).
        if let Some((i, (amps, limit))) = ev.circuits.iter().enumerate().find(|(_, (a, l))| a > l) {
            return Err((
                Constraint::Power,
                format!(
                    "{gpus} on {} x {} A circuit{} at {} V: {:.2} kW at the wall, circuit {} draws {amps:.1} A, over its {limit:.1} A continuous limit{}",
                    self.goal.circuits,
                    self.goal.breaker_a,
                    if self.goal.circuits == 1 { "" } else { "s" },
                    self.goal.mains_v,
                    ev.wall_w / 1000.0,
                    i + 1,
                    ev.advised_limit_w
                        .map_or_else(String::new, |w| format!(" (capped at {w:.0} W per card it would fit)"))
                ),
            ));
        }
        if let Some(u) = ev.not_checked.first() {
            return Err((Constraint::Unknown, format!("{gpus}: not checked: {u}")));
        }
        if !ev.fits {
            return Err((Constraint::Memory, format!("{gpus}: does not fit on the real slots")));
        }
        if !self.goal.is_training() {
            let d = ev.decode_per_user.unwrap_or(0.0);
            if d < self.goal.tok_s {
                return Err((
                    Constraint::Speed,
                    format!(
                        "{gpus} on {}: {d:.1} tok/s per user on its slots (target {})",
                        board.name, self.goal.tok_s
                    ),
                ));
            }
            if let Some(t) = self.goal.prefill_tok_s
                && ev.prefill.is_none_or(|p| p < t)
            {
                return Err((
                    Constraint::Speed,
                    format!("{gpus}: prefill {:.0} tok/s (target {t})", ev.prefill.unwrap_or(0.0)),
                ));
            }
        }
        if let Some(b) = self.goal.budget_usd
            && ev.known_price_usd > b
        {
            return Err((Constraint::Budget, format!("{gpus}: ${:.0}, over the ${b:.0} budget", ev.known_price_usd)));
        }
        self.stats.passing += 1;
        Ok(PlanResult {
            rank: 0,
            title,
            gpus,
            precision: spec.precision.to_string(),
            form,
            price_complete: ev.unpriced.is_empty(),
            price_usd: ev.known_price_usd,
            build,
            eval: ev,
        })
    }

    fn finish(mut self, mut results: Vec<PlanResult>, cancelled: bool) -> PlanOutcome {
        // Complete prices first; then builds whose GPUs (the bulk of the cost) are priced; each
        // group by its known total. The first build of each GPU set comes before the others,
        // so the top of the list shows distinct machines.
        let gpus_priced = |r: &PlanResult| r.build.gpus.first().is_some_and(|g| !r.eval.unpriced.contains(&g.gpu));
        results.sort_by(|a, b| {
            b.price_complete
                .cmp(&a.price_complete)
                .then(gpus_priced(b).cmp(&gpus_priced(a)))
                .then(a.price_usd.total_cmp(&b.price_usd))
                .then(a.title.cmp(&b.title))
        });
        let mut seen = std::collections::BTreeSet::new();
        let (mut results, rest): (Vec<_>, Vec<_>) = results.into_iter().partition(|r| seen.insert(r.gpus.clone()));
        results.extend(rest);
        results.truncate(self.goal.max_results.max(1));
        for (i, r) in results.iter_mut().enumerate() {
            r.rank = i + 1;
            r.build.name = format!("Plan {}: {}", i + 1, r.title);
        }
        self.rejected.sort_by(|a, b| a.constraint.cmp(&b.constraint).then(a.what.cmp(&b.what)));
        self.rejected.dedup_by(|a, b| a.what == b.what && a.constraint == b.constraint);
        PlanOutcome {
            goal: self.goal.describe(self.model),
            results,
            rejected: self.rejected,
            relaxations: Vec::new(),
            binding: Vec::new(),
            stats: self.stats,
            cancelled,
        }
    }
}

/// Plans with no progress display and no cancellation (CLI, tests, benchmarks).
///
/// # Errors
/// As [`plan`].
pub fn plan_blocking(catalog: &Catalog, goal: &Goal) -> Result<PlanOutcome, PlanError> {
    let cancel = AtomicBool::new(false);
    let mut progress = |_: usize, _: usize| {};
    plan(catalog, goal, &mut Control { cancel: &cancel, progress: &mut progress })
}

/// The model reference a CLI or form string names: a path when it exists or looks like a
/// file, else a preset id.
pub fn model_ref(id: Option<&str>, file: Option<&std::path::Path>) -> Option<ModelRef> {
    file.map(|f| ModelRef::File(f.to_path_buf())).or_else(|| id.map(|i| ModelRef::Preset(i.to_owned())))
}

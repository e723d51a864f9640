//! The search over the catalog. See the module docs of [`super`] for the pruning order.
//!
//! Bounds, so the work stays proportional to the number of GPU chips rather than to the product
//! of every part list: at most [`CARDS_PER_CHIP`] cards per chip, [`BOARDS_PER_CARD`] boards,
//! [`CASES_PER_BOARD`] cases, [`CPUS_PER_BOARD`] CPUs and [`PSU_OPTIONS`] PSU sets are
//! assembled, and a card stops after [`RESULTS_PER_CARD`] machines that pass.

use super::goal::{Form, Goal};
use super::machine::Working;
use super::model::{Model, best_precisions, resolve_model};
use super::parts::part_kind;
use super::views::{BoardView, CardPlugs, CardView, CaseView, Parts, PsuView};
use super::{CheaperNotShown, Constraint, PlanError, PlanOutcome, PlanResult, Rejected, Stats, judge};
use crate::estimate::llm::{Precision, search::candidate_precisions};
use kraftwerk_catalog::{Catalog, FormFactor, PartKind};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};

mod assemble;
mod chip;
mod hold;
mod place;
mod supply;

/// Cards tried per GPU chip (cheapest known price first).
pub(crate) const CARDS_PER_CHIP: usize = 3;
/// Boards tried per card.
pub(crate) const BOARDS_PER_CARD: usize = 4;
/// Cases tried per board (the cheapest of each form).
pub(crate) const CASES_PER_BOARD: usize = 3;
/// CPUs tried per board.
pub(crate) const CPUS_PER_BOARD: usize = 2;
/// PSU sets tried per machine.
pub(crate) const PSU_OPTIONS: usize = 3;
/// Identical PSUs in one machine at most.
pub(crate) const MAX_PSUS: u8 = 4;
/// Passing machines kept per card.
pub(crate) const RESULTS_PER_CARD: usize = 2;

/// Progress and cancellation of a search.
pub struct Control<'a> {
    /// Set to stop early; the outcome then says `cancelled`.
    pub cancel: &'a AtomicBool,
    /// Called with (steps done, steps in all) as the search goes.
    pub progress: &'a mut dyn FnMut(usize, usize),
}

/// One chip at the count and precision that meet memory and speed.
struct ChipConfig {
    cards: Vec<usize>,
    n: u32,
    precision: Precision,
    /// A hybrid CPU+GPU split: what system RAM must hold (llama.cpp's Host row: experts and
    /// the rest it keeps there), GiB.
    hybrid_gib: Option<f64>,
    /// vLLM `--max-num-seqs` the cards fit with ([`super::screen::Screen::max_num_seqs`]);
    /// `None` at vLLM's default.
    max_num_seqs: Option<u32>,
}

/// Hybrid CPU+GPU configurations (a MoE model too large for the GPUs) assembled per search,
/// cheapest cards first: each needs a many-channel platform, and the cheapest cards that hold
/// the non-expert part answer the question.
pub(crate) const HYBRID_CONFIGS: usize = 6;

/// How far a machine got before it failed: the reason of the furthest is the one reported.
fn stage(c: Constraint) -> u8 {
    match c {
        Constraint::Slots | Constraint::Excluded | Constraint::Used | Constraint::Runtime => 0,
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

/// Must-have part ids by kind.
fn must_have(catalog: &Catalog, goal: &Goal) -> Result<BTreeMap<PartKind, String>, PlanError> {
    let mut out = BTreeMap::new();
    for id in &goal.must_have {
        let kind = part_kind(catalog, id).ok_or_else(|| {
            PlanError::BadGoal(format!(
                "must-have part `{id}` is not in the catalog{}",
                super::parts::did_you_mean(catalog, id)
            ))
        })?;
        if let Some(old) = out.insert(kind, id.clone()) {
            return Err(PlanError::BadGoal(format!("two must-have parts of kind {}: `{old}` and `{id}`", kind.name())));
        }
    }
    if let Some(c) = &goal.must_have_count
        && part_kind(catalog, &c.id) != Some(PartKind::Gpu)
    {
        return Err(PlanError::BadGoal(format!(
            "must-have count {}x names `{}`, which is not a GPU: a count applies to a GPU only (a machine has one board, case and CPU)",
            c.count, c.id
        )));
    }
    // An owned part is a must-have unless the user owns two different parts of its kind (two
    // GPU models, two PSUs): then the build may use either, and the one it uses is free.
    let mut owned: BTreeMap<PartKind, Vec<&str>> = BTreeMap::new();
    for o in &goal.owned {
        let kind = part_kind(catalog, &o.id).ok_or_else(|| {
            PlanError::BadGoal(format!(
                "owned part `{}` is not in the catalog{}",
                o.id,
                super::parts::did_you_mean(catalog, &o.id)
            ))
        })?;
        owned.entry(kind).or_default().push(&o.id);
    }
    for (kind, ids) in owned {
        if let [id] = ids[..] {
            out.entry(kind).or_insert_with(|| id.to_owned());
        }
    }
    Ok(out)
}

/// The catalog as the planner prices it for `goal`: with used parts allowed (`goal.used`),
/// the cited used-market prices replace the new/street ones (never the user's own prices,
/// [`Catalog::with_used_prices`]); otherwise the catalog itself, whose used prices stay apart.
///
/// The parts the user owns (`goal.owned`) keep their price here: each planned build lists its
/// owned units (`Build::owned`, `"Nx id"`, [`super::machine::make_build`]) and the fit's cost prices
/// those units at $0 and the others of the same id at this price.
pub fn pricing_catalog<'a>(catalog: &'a Catalog, goal: &Goal) -> std::borrow::Cow<'a, Catalog> {
    if goal.used { std::borrow::Cow::Owned(catalog.with_used_prices()) } else { std::borrow::Cow::Borrowed(catalog) }
}

/// Order of a part list: parts whose rule figures are all published first (a part with an
/// unknown figure gives a machine the checker reports "not checked", which the planner does
/// not propose), then cheapest first, then by id.
fn part_order(a: (bool, Option<f64>, &str), b: (bool, Option<f64>, &str)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(cmp_price(a.1, b.1)).then(a.2.cmp(b.2))
}

/// Cases per (form, board form factor), in [`part_order`], without the cases another case of
/// the list dominates (one listed earlier with the same openings, PSU bays and known figures,
/// and room for a GPU at least as long): a board looks at a handful of cases however many the
/// catalog lists.
fn case_index(cases: Vec<&CaseView>) -> BTreeMap<(Form, FormFactor), Vec<&CaseView>> {
    let mut index: BTreeMap<(Form, FormFactor), Vec<&CaseView>> = BTreeMap::new();
    let room = |k: &CaseView| k.max_gpu_length_mm.unwrap_or(0.0);
    for k in cases {
        for &ff in &k.form_factors {
            let list = index.entry((k.form, ff)).or_default();
            if !list.iter().any(|o| {
                o.expansion_slots == k.expansion_slots
                    && o.psu_bays == k.psu_bays
                    && o.figures_known == k.figures_known
                    && room(o) >= room(k)
            }) {
                list.push(k);
            }
        }
    }
    index
}

/// Searches the catalog for the machines that meet `goal` (see the module docs).
/// `planned_too`: why the goal's runtime was set by the planner beside the usual one
/// ([`super::model::other_runtimes`]), for the lines that name the runtime a card was judged
/// with; `None` for the goal as given.
pub(super) fn search(
    catalog: &Catalog,
    parts: &Parts,
    goal: &Goal,
    planned_too: Option<&'static str>,
    ctl: &mut Control<'_>,
) -> Result<PlanOutcome, PlanError> {
    super::goal::validate(goal)?;
    let model = resolve_model(catalog, &goal.model).map_err(PlanError::BadGoal)?;
    // A context above the model's own maximum under vLLM or SGLang, which refuse to start at it
    // (`llm::refuses_context`, as `fit` judges it; a trial's `--context 500000` for
    // Llama-3.1-8B). Other runtimes run it (llama.cpp with a warning, or with rope scaling), and
    // a model file's maximum may be a default, so those are planned.
    let max_context = model.llm().max_context;
    let refuses = |c: u32| {
        goal.runtime.is_some_and(|rt| crate::estimate::llm::runtime_refuses_context(rt, c, max_context))
            && !goal.is_training()
            && model.file.is_none()
    };
    if let Some(ctx) = goal.context.filter(|&c| refuses(c)) {
        return Err(PlanError::BadGoal(format!(
            "context {ctx} is above {}'s maximum of {max_context} tokens, where {} refuses to start (unless an override is set in the environment); plan at {max_context} or less",
            model.llm().id,
            goal.runtime.map_or_else(String::new, |r| r.to_string())
        )));
    }
    // A training goal names a training framework, never an inference runtime (`validate`).
    let runtime = goal.runtime.filter(|_| !goal.is_training());
    // The precision named; else a model file's: it holds its weights at one precision, the one
    // it runs at (training takes BF16 instead).
    let fixed = goal.precision.exact().or_else(|| model.file_precision().filter(|_| !goal.is_training()));
    let precisions = match fixed {
        Some(p) => vec![p],
        // Training runs its base in BF16 (QLoRA re-quantizes it to NF4 itself).
        None if goal.is_training() => vec![Precision::Bf16],
        None if super::model::mxfp4_experts(&model) && runtime.is_none_or(|rt| rt.loads(Precision::Mxfp4).is_ok()) => {
            // A model released with MXFP4 experts (gpt-oss) has no smaller real file: every GGUF
            // of it keeps the experts in MXFP4, whatever its label ([`super::model::mxfp4_experts`]),
            // so "best" plans the published MXFP4 weights, not a `q4_0` that is not a real size.
            vec![Precision::Mxfp4]
        }
        None => runtime.map_or_else(best_precisions, candidate_precisions),
    };
    // A goal naming both a runtime and a precision it cannot load is refused (the planner
    // never pairs them; the runtime's own precisions are tried otherwise).
    if let (Some(rt), [p]) = (runtime, &precisions[..]) {
        rt.loads(*p).map_err(PlanError::BadGoal)?;
    }
    let musts = must_have(catalog, goal)?;
    // A must-have partner card the part views fold into a twin of the same class
    // ([`super::views::card_class`]) gets its own view, so the build uses that very card.
    let with_card;
    let parts = match musts.get(&PartKind::Gpu) {
        Some(id) if !parts.cards.iter().any(|c| &c.id == id) => {
            with_card = parts.with_card(catalog, id);
            &with_card
        }
        _ => parts,
    };
    // A part the user owns costs $0 whatever its catalog price (the fit's cost prices its owned
    // units at $0, `parts_list::split_owned`), so an unknown price does not block a budget: as
    // for an owned GPU ([`State::screen_chip`]), an owned board, case or PSU is kept.
    let priced = |id: &str, p: Option<f64>| goal.budget_usd.is_none() || p.is_some() || goal.owned_count(id) > 0;
    let mut boards: Vec<&BoardView> = parts
        .boards
        .iter()
        .filter(|b| musts.get(&PartKind::Motherboard).is_none_or(|id| &b.id == id) && priced(&b.id, b.price_usd))
        .filter(|b| b.wide_slots > 0)
        .collect();
    boards.sort_by(|a, b| part_order((a.figures_known, a.price_usd, &a.id), (b.figures_known, b.price_usd, &b.id)));
    let mut cases: Vec<&CaseView> = parts
        .cases
        .iter()
        .filter(|k| musts.get(&PartKind::Case).is_none_or(|id| &k.id == id) && priced(&k.id, k.price_usd))
        .collect();
    cases.sort_by(|a, b| part_order((a.figures_known, a.price_usd, &a.id), (b.figures_known, b.price_usd, &b.id)));
    let mut psus: Vec<&PsuView> = parts
        .psus
        .iter()
        .filter(|p| musts.get(&PartKind::Psu).is_none_or(|id| &p.id == id) && priced(&p.id, p.price_usd))
        .collect();
    psus.sort_by(|a, b| part_order((a.figures_known, a.price_usd, &a.id), (b.figures_known, b.price_usd, &b.id)));
    let mut st = State {
        catalog,
        goal,
        model: &model,
        parts,
        musts: &musts,
        boards,
        cases: case_index(cases),
        psus,
        stats: Stats::default(),
        rejected: Vec::new(),
        unknown: BTreeSet::new(),
        work: Working::new(catalog),
        psu_memo: std::collections::HashMap::new(),
        priced_only: false,
        planned_too,
    };
    // ktransformers keeps every routed expert in system RAM by its own rule, which the planner
    // does not plan yet (`screen::hybrid_precisions`): said once, so that a goal naming it is
    // not answered "nothing fits" without the reason (a trial's DeepSeek-R1 under ktransformers).
    if goal.runtime == Some(crate::estimate::llm::Runtime::KTransformers) && model.is_moe() {
        st.reject(
            "ktransformers CPU+GPU split".into(),
            Constraint::Runtime,
            "the planner plans CPU+GPU splits (routed experts in system RAM) under llama.cpp only: plan with --runtime llama.cpp, or estimate a ktransformers split on a build with `kraftwerk fit BUILD --runtime ktransformers`; only GPU-only machines are judged here".into(),
        );
    }

    // Group identical chips, cheapest card first.
    let mut chips: BTreeMap<&str, Vec<&CardView>> = BTreeMap::new();
    for c in &parts.cards {
        chips.entry(c.chip_key.as_str()).or_default().push(c);
    }
    let mut groups: Vec<Vec<&CardView>> = chips.into_values().collect();
    for g in &mut groups {
        g.sort_by(|a, b| {
            cmp_price(a.price_usd, b.price_usd)
                .then(a.length_mm.is_none().cmp(&b.length_mm.is_none()))
                .then(a.width_slots.cmp(&b.width_slots))
                .then(a.id.cmp(&b.id))
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
        configs.extend(st.screen_chip(g, &precisions));
        step += 1;
        (ctl.progress)(step, total);
    }
    // Cheapest GPU set first (unknown prices last) so that results come in price order. The
    // owned units cost $0 whatever the card's price: a set owned in every unit costs $0.
    let bought = |c: &ChipConfig| {
        let card = &parts.cards[c.cards[0]];
        let units = c.n.saturating_sub(goal.owned_count(&card.id));
        if units == 0 { Some(0.0) } else { card.price_usd.map(|p| p * f64::from(units)) }
    };
    configs.sort_by(|a, b| {
        let (pa, pb) = (bought(a), bought(b));
        cmp_price(pa, pb).then(parts.cards[a.cards[0]].id.cmp(&parts.cards[b.cards[0]].id))
    });
    // Hybrid splits after the GPU-only machines, at most HYBRID_CONFIGS of them: cards whose
    // llama.cpp speed the held rows validate (architecture and back end) first, each group cheapest first, as the
    // ranking puts validated splits before unvalidated ones (issue 36, item 5; otherwise six
    // cheap cards of unheld architectures, Tesla P40, V100, Arc, leave no validated split
    // tried); and first one of each card count and memory size, since the card's memory is the
    // split's lever: a 24 GB card keeps more expert layers on the GPU, so the experts left in
    // RAM fit a two-DIMM desktop where a 12 GB card's do not (ubergarm's Qwen3-235B card: "24GB
    // VRAM + 96GB RAM"), so the cheapest six would all be 8-16 GB cards.
    let mut hybrid_order: Vec<usize> = (0..configs.len()).filter(|&i| configs[i].hybrid_gib.is_some()).collect();
    hybrid_order.sort_by_key(|&i| parts.cards[configs[i].cards[0]].unvalidated);
    let mut kept: BTreeSet<usize> = BTreeSet::new();
    let mut sizes: BTreeSet<(bool, u32, u64)> = BTreeSet::new();
    for &i in &hybrid_order {
        let card = &parts.cards[configs[i].cards[0]];
        if kept.len() < HYBRID_CONFIGS && sizes.insert((card.unvalidated, configs[i].n, card.memory_gib.to_bits())) {
            kept.insert(i);
        }
    }
    for &i in &hybrid_order {
        if kept.len() < HYBRID_CONFIGS {
            kept.insert(i);
        }
    }
    let mut i = 0;
    configs.retain(|c| {
        i += 1;
        c.hybrid_gib.is_none() || kept.contains(&(i - 1))
    });
    let mut results = Vec::new();
    for hybrid in [false, true] {
        // A hybrid CPU+GPU split costs at least its GPUs: it is tried unless a fully priced
        // GPU-only machine already costs no more than those GPUs (a GPU-only answer at an
        // "at least" price, or three datacenter cards at $100,000, does not stop a cheaper
        // split from being tried).
        let cheapest_complete =
            results.iter().filter(|r: &&PlanResult| r.price_complete).map(|r| r.price_usd).min_by(f64::total_cmp);
        for c in configs.iter().filter(|c| c.hybrid_gib.is_some() == hybrid) {
            if ctl.cancel.load(Ordering::Relaxed) {
                return Ok(st.finish(results, true));
            }
            if hybrid && cheapest_complete.is_some_and(|best| bought(c).is_none_or(|gpus| best <= gpus)) {
                continue;
            }
            // A split at another precision than the goal names (int4 run as a GGUF quant, since
            // llama.cpp loads GGUF only: `screen::hybrid_precisions`) is a substitution: made only
            // when no fully priced machine at the goal's own precision meets it.
            if hybrid && cheapest_complete.is_some() && goal.precision.exact().is_some_and(|p| p != c.precision) {
                continue;
            }
            st.assemble(c, &mut results);
            step += 1;
            (ctl.progress)(step.min(total), total);
        }
    }
    (ctl.progress)(total, total);
    Ok(st.finish(results, false))
}

/// One PSU set for a machine ([`State::psu_sets`]).
#[derive(Debug, Clone)]
struct PsuOption {
    /// The PSUs, catalog indices.
    psus: Vec<usize>,
    /// The PSU (index into `psus`) feeding each card.
    feeds: Vec<usize>,
    /// Whether the figures the checker needs of the unit are known
    /// ([`super::views::PsuView::figures_known`]): a set without them is judged "not checked"
    /// and is never an answer.
    checkable: bool,
}

/// PSU sets for a machine, checkable ones first ([`State::psu_sets`]).
type PsuChoice = Vec<PsuOption>;

/// The key of [`State::psu_memo`]: the system's and one GPU's watts as bit patterns, the cards'
/// plugs, the card count, the case's PSU bays, the board's EPS 8-pin inputs, and whether only
/// priced PSUs are offered ([`State::priced_only`]).
type PsuKey = (u64, u64, CardPlugs, u32, u8, u8, bool);

struct State<'a> {
    catalog: &'a Catalog,
    goal: &'a Goal,
    model: &'a Model,
    parts: &'a Parts,
    musts: &'a BTreeMap<PartKind, String>,
    /// Boards and cases the goal allows, in [`part_order`] (sorted once per search).
    boards: Vec<&'a BoardView>,
    cases: BTreeMap<(Form, FormFactor), Vec<&'a CaseView>>,
    psus: Vec<&'a PsuView>,
    stats: Stats,
    rejected: Vec<Rejected>,
    /// Parts a not-checked finding named (a figure the checker needs is unknown): not tried
    /// again in this search.
    unknown: BTreeSet<Unknown>,
    /// The parts proposed so far, as a small catalog the checker resolves them in.
    work: Working,
    /// PSU sets by (system W, GPU W, cards, bays, priced only), as bit patterns.
    psu_memo: std::collections::HashMap<PsuKey, PsuChoice>,
    /// Parts without a price are not proposed even without a budget: set while a platform whose
    /// machine met the goal with an unpriced CPU, cooler, memory kit or PSU is tried again with
    /// priced ones ([`State::assemble`]), so a fully priced machine on that platform is found
    /// (without a budget the unpriced parts come in, and a faster unpriced kit hid the priced
    /// machine a budget run found on the same board).
    priced_only: bool,
    /// Why the goal's runtime was set by the planner beside the usual one (see [`search`]).
    planned_too: Option<&'static str>,
}

/// A part whose unknown figure made a machine "not checked", by kind and catalog index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unknown {
    Card(usize),
    Board(usize),
    Cpu(usize),
    Cooler(usize),
    Case(usize),
    Psu(usize),
}

impl State<'_> {
    fn reject(&mut self, what: String, constraint: Constraint, reason: String) {
        self.rejected.push(Rejected { what, constraint, reason });
    }

    /// Whether must-have GPU `id` is a chip (a `gpus.ron` entry, not a partner card) that the
    /// goal names in `must_have` and the user does not own: any card of the chip then meets
    /// it. An owned chip stays that very entry (the user's own cards, `--own`).
    fn chip_bought(&self, id: &str) -> bool {
        self.catalog.gpu(id).is_some() && self.goal.must_have.iter().any(|m| m == id) && self.goal.owned_count(id) == 0
    }

    /// With a budget a part without a price cannot be judged: it is not proposed. Nor is it
    /// while [`State::priced_only`] is set (the priced retry of a platform, [`State::assemble`]).
    fn priced(&self, price: Option<f64>) -> bool {
        (self.goal.budget_usd.is_none() && !self.priced_only) || price.is_some()
    }

    /// [`Self::priced`] for `units` of part `id`, or all of them owned: the user's own units
    /// cost $0 whatever the catalog price (the fit's cost prices them so,
    /// `parts_list::split_owned`), so an owned board, case, CPU, cooler, memory kit or PSU
    /// without a price does not block a budget, as an owned GPU does not
    /// ([`Self::screen_chip`]); units bought beyond those owned need a price.
    fn priced_or_owned(&self, id: &str, price: Option<f64>, units: u32) -> bool {
        self.priced(price) || self.goal.owned_count(id) >= units.max(1)
    }

    fn finish(mut self, results: Vec<PlanResult>, cancelled: bool) -> PlanOutcome {
        let ranked = rank(results, self.goal.max_results, &mut self.stats);
        self.rejected.sort_by(|a, b| a.constraint.cmp(&b.constraint).then(a.what.cmp(&b.what)));
        self.rejected.dedup_by(|a, b| a.what == b.what && a.constraint == b.constraint);
        PlanOutcome {
            goal: self.goal.describe(self.model.llm()),
            results: ranked.results,
            rejected: self.rejected,
            relaxations: Vec::new(),
            binding: Vec::new(),
            stats: self.stats,
            cheaper_not_shown: ranked.cheaper_not_shown,
            cancelled,
        }
    }
}

/// Orders the machines that met a goal and keeps `max_results` of them (at least one), ranked
/// from 1 and named `Plan N: title`: the order and the one-machine-per-GPU-set rule below. Used
/// by one search and to merge the searches of several runtimes ([`super::search_runtimes`]).
/// Adds to `stats` the machines it leaves out: those set aside for an arrangement of the same
/// cards on CPU lanes or at default power limits ([`Stats::set_aside`]), and those past
/// `max_results` ([`Stats::beyond_max`]), so that what passed is what is shown
/// ([`Stats::shown`]) plus these; and names the builds past `max_results` that cost less than
/// the cheapest fully priced build shown ([`cheaper_not_shown`]).
pub(super) fn rank(mut results: Vec<PlanResult>, max_results: usize, stats: &mut Stats) -> Ranked {
    let given = results.len();
    // Complete prices first (a build with an unpriced part is never ranked by its "at
    // least" figure above a fully priced one); within each, builds whose speed rests on held
    // rows before those whose speed is unvalidated (`eval.speed_caveats`: no held speed row of
    // the runtime on the GPUs' architecture, or held rows there outside ±25 %, issue 36: no
    // first answer rests on an unvalidated speed while a validated one meets the goal); then builds with every card
    // on CPU lanes first (fewest on chipset lanes); then builds the checker verified before those
    // it calls UNVERIFIED (e.g. two or more cards on a board wired without slot positions); then
    // builds whose GPUs (the bulk of the cost) are priced; then by the known total.
    let gpus_priced = |r: &PlanResult| r.build.gpus.first().is_some_and(|g| !r.eval.unpriced.contains(&g.gpu));
    // Verified is the checker's verdict: not UNVERIFIED (a rule that could have found an
    // error did not run). One card on a board without positions has no spacing to check, and
    // the checker does not hold it up; two on such a board are UNVERIFIED on geometry.
    let verified = |r: &PlanResult| r.eval.verdict != Some(crate::check::Verdict::Unverified);
    let validated = |r: &PlanResult| r.eval.speed_caveats.is_empty();
    let key = |a: &PlanResult, b: &PlanResult| {
        b.price_complete
            .cmp(&a.price_complete)
            .then(validated(b).cmp(&validated(a)))
            .then(a.gpus_on_chipset.cmp(&b.gpus_on_chipset))
            .then(verified(b).cmp(&verified(a)))
            .then(gpus_priced(b).cmp(&gpus_priced(a)))
            .then(a.price_usd.total_cmp(&b.price_usd))
            .then(a.title.cmp(&b.title))
    };
    // Never a card on chipset lanes or an x1 link when an arrangement of the same cards on
    // CPU lanes met the goal (within the budget, as every result is).
    let clean: BTreeSet<String> =
        results.iter().filter(|r| judge::poor_links(&r.eval) == 0).map(|r| r.gpus.clone()).collect();
    results.retain(|r| judge::poor_links(&r.eval) == 0 || !clean.contains(&r.gpus));
    // Never a power cap when an arrangement of the same cards at their default limits met the
    // goal (within the budget and the circuits, as every result is): a cap costs the user
    // speed, and builders cap only when the PSUs or the circuit cannot carry the cards
    // (issue 36: "when full-load power is what rejects a candidate"). An uncapped machine whose price is incomplete (an open frame's risers have no price)
    // does not show that it is within the budget: it displaces only capped machines whose
    // price is incomplete too.
    let mut uncapped: BTreeMap<String, bool> = BTreeMap::new();
    for r in results.iter().filter(|r| r.eval.power_cap.is_none()) {
        *uncapped.entry(r.gpus.clone()).or_default() |= r.price_complete;
    }
    results.retain(|r| {
        r.eval.power_cap.is_none() || !uncapped.get(&r.gpus).is_some_and(|&complete| complete || !r.price_complete)
    });
    results.sort_by(key);
    stats.set_aside += given - results.len();
    // One machine per GPU set, so the list shows distinct machines; only when there are
    // fewer distinct sets than results asked for do the others come in, and then the whole
    // list is in the order above (never a dearer build above a cheaper one of its class).
    let want = max_results.max(1);
    let mut seen = std::collections::BTreeSet::new();
    let (mut results, rest): (Vec<_>, Vec<_>) = results.into_iter().partition(|r| seen.insert(r.gpus.clone()));
    if results.len() < want {
        results.extend(rest);
        results.sort_by(key);
    } else {
        // Machines on a GPU set already listed, left out: counted, so "N passed" adds up.
        stats.beyond_max += rest.len();
    }
    // Named before the list is cut: `--max-results N` gives this very list's first N.
    let cheaper_not_shown = cheaper_not_shown(&results, want);
    stats.beyond_max += results.len().saturating_sub(want);
    results.truncate(want);
    stats.shown = results.len();
    for (i, r) in results.iter_mut().enumerate() {
        r.rank = i + 1;
        r.build.name = format!("Plan {}: {}", i + 1, r.title);
    }
    Ranked { results, cheaper_not_shown }
}

/// What [`rank`] gives: the builds shown and the cheaper ones it leaves out.
pub(super) struct Ranked {
    /// The builds shown, ranked from 1.
    pub(super) results: Vec<PlanResult>,
    /// The builds past `max_results` cheaper than the cheapest fully priced one shown.
    pub(super) cheaper_not_shown: Option<CheaperNotShown>,
}

/// The marks that rank a build after those without them, whatever it costs ([`rank`]'s order
/// after `price_complete`), each as the phrase that ends "N cheaper builds ...".
const RANK_MARKS: [&str; 3] = [
    "whose speed no held measurement validates",
    "with a GPU on chipset lanes",
    "whose checks did not all run (UNVERIFIED)",
];

/// The fully priced builds of `list` (ranked, one per GPU set as it is shown) past its first
/// `want` that cost less than the cheapest fully priced build among those `want`, with what
/// ranks them after ([`RANK_MARKS`]), the cheapest of them and the checks that did not run on it,
/// and the `--max-results` that shows them all; `None` when there are none.
fn cheaper_not_shown(list: &[PlanResult], want: usize) -> Option<CheaperNotShown> {
    let visible = list.get(..want).unwrap_or(list);
    let floor = visible.iter().filter(|r| r.price_complete).map(|r| r.price_usd).min_by(f64::total_cmp)?;
    let hidden: Vec<(usize, &PlanResult)> =
        list.iter().enumerate().skip(want).filter(|(_, r)| r.price_complete && r.price_usd < floor).collect();
    let &(final_index, _) = hidden.last()?;
    let cheapest = hidden.iter().map(|&(_, r)| r).min_by(|a, b| a.price_usd.total_cmp(&b.price_usd))?;
    let marks = |r: &PlanResult| {
        [
            !r.eval.speed_caveats.is_empty(),
            r.gpus_on_chipset > 0,
            r.eval.verdict == Some(crate::check::Verdict::Unverified),
        ]
    };
    let mut cheapest_unchecked = super::evaluation::fold_rules(&cheapest.eval.geometry_unchecked);
    cheapest_unchecked.extend(super::evaluation::fold_rules(&cheapest.eval.owned_card_unchecked));
    Some(CheaperNotShown {
        count: hidden.len(),
        ranked_after_for: (0..RANK_MARKS.len())
            .filter(|&i| hidden.iter().any(|&(_, r)| marks(r)[i]))
            .map(|i| RANK_MARKS[i].to_owned())
            .collect(),
        cheapest_title: cheapest.title.clone(),
        cheapest_precision: cheapest.precision,
        cheapest_usd: cheapest.price_usd,
        cheapest_verdict: cheapest.eval.verdict,
        cheapest_unchecked,
        max_results_to_show: final_index + 1,
    })
}

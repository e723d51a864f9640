//! Machines from the search's candidates: a [`Spec`] (indices into the part lists) becomes a
//! real [`Build`] with the goal's site and workload ([`make_build`]), and the parts proposed so
//! far are kept in a small [`Working`] catalog the checker and the estimators resolve them in.

use super::goal::Goal;
use super::model::{Model, runtime_for};
use super::views::CardView;
use crate::estimate::llm::Precision;
use crate::rig::{Build, GpuPlacement, MemoryUse, PsuUse, Riser, Site, Workload};
use kraftwerk_catalog::{Catalog, HasId, PartsFile};

/// The parts a search has proposed so far, copied from the catalog: a small catalog that
/// resolves a candidate's ids exactly as the whole one does (same parts, same figures), so the
/// checker and the estimators look parts up among dozens rather than thousands. It holds
/// every GPU chip (the fit code compares with a cloud A100) and every model preset.
#[derive(Debug, Clone)]
pub(crate) struct Working(Catalog);

fn put_sorted<T: HasId + Clone>(list: &mut Vec<T>, from: Option<&T>) {
    if let Some(p) = from
        && let Err(i) = list.binary_search_by(|x| x.id().cmp(p.id()))
    {
        list.insert(i, p.clone());
    }
}

impl Working {
    /// The chips and models of `catalog`, and one partner card of each chip that has one
    /// differing from it (the checker asks: an owned GPU named by such a chip is not a known
    /// card, [`crate::rig::Resolved::unnamed_cards`]), and the drives (a machine buys one,
    /// [`super::drive::drive_for`]: they are few); no other part yet.
    pub fn new(catalog: &Catalog) -> Self {
        // One partner card per chip that differs from it (`rig::card_differs`), the fact the
        // checker reads.
        let mut gpu_cards: Vec<kraftwerk_catalog::GpuCard> = Vec::new();
        for card in &catalog.gpu_cards {
            let differs = catalog.gpu(&card.chip).is_some_and(|chip| crate::rig::card_differs(card, chip));
            if differs && !gpu_cards.iter().any(|c| c.chip == card.chip) {
                gpu_cards.push(card.clone());
            }
        }
        Working(Catalog {
            gpus: catalog.gpus.clone(),
            models: catalog.models.clone(),
            gpu_cards,
            storage: catalog.storage.clone(),
            ..Catalog::default()
        })
    }

    /// The small catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.0
    }

    /// Adds the GPU card `id` (a partner card; chips are all there).
    pub(crate) fn add_card(&mut self, catalog: &Catalog, id: &str) {
        if self.0.gpu(id).is_none() {
            let i = catalog.card_gpus.binary_search_by(|g| g.id.as_str().cmp(id)).ok();
            put_sorted(&mut self.0.card_gpus, i.and_then(|i| catalog.card_gpus.get(i)));
        }
    }

    /// Adds every part `spec` names (catalog indices).
    pub(crate) fn add_spec(&mut self, catalog: &Catalog, spec: &Spec) {
        self.add_card(catalog, &spec.gpu);
        put_sorted(&mut self.0.motherboards, catalog.motherboards.get(spec.board));
        put_sorted(&mut self.0.cpus, catalog.cpus.get(spec.cpu));
        put_sorted(&mut self.0.coolers, catalog.coolers.get(spec.cooler));
        put_sorted(&mut self.0.cases, catalog.cases.get(spec.case));
        put_sorted(&mut self.0.memory, catalog.memory.get(spec.kit.0));
        for &(p, _) in &spec.psus {
            put_sorted(&mut self.0.psus, catalog.psus.get(p));
        }
    }
}

/// A candidate machine, as indices into [`super::views::Parts`] lists (catalog order).
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The card ([`super::views::Parts::cards`] index).
    pub card: usize,
    /// Its id (a chip's reference design or a partner card).
    pub gpu: String,
    /// Card placements: slot key ([`crate::plan::views::SlotView::position`]: the position,
    /// or on a board without positions the slot's place in its list, placed by name), riser
    /// generation (open frame), PSU index.
    pub placements: Vec<(u8, Option<u8>, usize)>,
    /// Board, CPU, cooler, case, memory kit (catalog indices) and kit count.
    pub board: usize,
    /// CPU.
    pub cpu: usize,
    /// Cooler.
    pub cooler: usize,
    /// Case.
    pub case: usize,
    /// Memory kit and count.
    pub kit: (usize, u8),
    /// PSUs and the circuit each is plugged into.
    pub psus: Vec<(usize, usize)>,
    /// Precision the workload runs at.
    pub precision: Precision,
    /// vLLM `--max-num-seqs` the workload runs with ([`Workload::max_num_seqs`]); `None` at
    /// vLLM's default.
    pub max_num_seqs: Option<u32>,
}

pub(super) fn site_of(goal: &Goal) -> Site {
    Site {
        mains_v: goal.mains_v,
        circuit_a: goal.breaker_a,
        circuits: goal.circuits.max(1),
        outlet_continuous_a: goal.outlet_a,
        ..Site::default()
    }
}

pub(super) fn placement(card: &CardView, slot: Option<u8>, riser: Option<u8>, psu: usize) -> GpuPlacement {
    GpuPlacement {
        gpu: card.id.clone(),
        slot,
        slot_name: None,
        power_limit_w: None,
        riser: riser.map(|g| Riser { pcie_gen: g, length_mm: None }),
        psu,
        cable: None,
    }
}

/// The slot a placement's key names on `board`: by position where the board's positions are
/// known, else by place in its slot list (from 1).
pub(crate) fn slot_by_key(
    board: Option<&kraftwerk_catalog::Motherboard>,
    key: u8,
) -> Option<&kraftwerk_catalog::PcieSlot> {
    let b = board?;
    if b.slot_positions_known() { b.slot_at(key) } else { b.pcie_slots.get(usize::from(key).checked_sub(1)?) }
}

/// The [`Build`] a spec describes, with the goal's site and workload.
pub(crate) fn make_build(catalog: &Catalog, goal: &Goal, model: &Model, spec: &Spec, name: &str) -> Build {
    let board = catalog.motherboards.get(spec.board);
    let gpus = catalog.gpu_or_card(&spec.gpu).map_or_else(Vec::new, |g| {
        spec.placements
            .iter()
            .map(|&(slot, riser, psu)| GpuPlacement {
                gpu: g.id.clone(),
                slot: board.is_none_or(kraftwerk_catalog::Motherboard::slot_positions_known).then_some(slot),
                slot_name: slot_by_key(board, slot)
                    .filter(|_| board.is_some_and(|b| !b.slot_positions_known()))
                    .map(|s| s.name.clone()),
                power_limit_w: None,
                riser: riser.map(|g| Riser { pcie_gen: g, length_mm: None }),
                psu,
                cable: None,
            })
            .collect()
    });
    let mut parts = PartsFile::default();
    if model.inline() {
        parts.models.push(model.inner.clone());
    }
    let mut build = Build {
        name: name.to_owned(),
        cpu: catalog.cpus.get(spec.cpu).map(|c| c.id.clone()),
        motherboard: catalog.motherboards.get(spec.board).map(|b| b.id.clone()),
        cooler: catalog.coolers.get(spec.cooler).map(|c| c.id.clone()),
        case: catalog.cases.get(spec.case).map(|c| c.id.clone()),
        memory: catalog.memory.get(spec.kit.0).map(|k| MemoryUse {
            kit: k.id.clone(),
            kits: spec.kit.1,
            speed_mt_s: None,
        }),
        gpus,
        psus: spec
            .psus
            .iter()
            .enumerate()
            .filter_map(|(i, &(p, circuit))| {
                catalog.psus.get(p).map(|p| PsuUse {
                    psu: p.id.clone(),
                    feeds_system: (i == 0).then_some(true),
                    circuit,
                })
            })
            .collect(),
        site: site_of(goal),
        workload: Some(Workload {
            model: model.inner.id.clone(),
            precision: spec.precision,
            context: goal.context_tokens(model.llm()),
            batch: goal.users.max(1),
            mode: goal.mode,
            // Training is planned with gradient checkpointing on, as every framework's recipes run.
            gradient_checkpointing: goal.is_training(),
            parallel: None,
            nodes: None,
            interconnect: None,
            // The runtime every candidate was judged with, so that `kraftwerk fit` on the saved
            // build judges it the same way; a training build names none.
            runtime: (!goal.is_training()).then(|| runtime_for(model, goal, spec.precision)),
            // The back end the first GPU's vendor implies, as the planner judged it.
            backend: None,
            // The vLLM setting the cards were judged fitting at (the one `fit` names), so
            // that `kraftwerk fit` on the saved build gives the same verdict and figures.
            max_num_seqs: spec.max_num_seqs,
        }),
        parts,
        notes: Some(format!("Planned by `kraftwerk plan` for: {}", goal.describe(model.llm()))),
        ..Build::default()
    };
    // A drive for the model files, so that the total is the machine's (none was bought before).
    let weights = super::model::weights_gib(model, spec.precision);
    build.storage = super::drive::drive_for(catalog, weights, board, &build.gpus).into_iter().collect();
    // The units the user owns of the parts it uses, by count: the fit's cost prices them at $0
    // and the others of the same id at their price (`Build::owned_count`).
    let uses = |id: &str| {
        build.gpus.iter().any(|g| g.gpu == id)
            || build.psus.iter().any(|p| p.psu == id)
            || [&build.cpu, &build.motherboard, &build.cooler, &build.case].iter().any(|x| x.as_deref() == Some(id))
            || build.memory.as_ref().is_some_and(|m| m.kit == id)
    };
    build.owned = goal.owned.iter().filter(|o| uses(&o.id)).map(|o| format!("{}x {}", o.count, o.id)).collect();
    build
}

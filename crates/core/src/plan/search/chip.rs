//! Screening one GPU chip: memory first, then speed, then the cards' power against the site
//! and the budget, giving the smallest count of the chip that meets the goal at the best
//! precision that does ([`ChipConfig`]), or a hybrid CPU+GPU split of a mixture-of-experts model
//! too large for the GPUs; every chip that fails is rejected with its reason.

use super::{CARDS_PER_CHIP, ChipConfig, State};
use crate::estimate::llm::Precision;
use crate::estimate::llm::Runtime;
use crate::plan::model::{goal_weights_gib, runtime_basis, runtime_for};
use crate::plan::views::CardView;
use crate::plan::{Constraint, power, screen};
use kraftwerk_catalog::PartKind;

impl State<'_> {
    /// Memory first, then speed, then power: the smallest count of this chip that meets the
    /// goal, at the best precision that does; and for a mixture-of-experts model served to one
    /// user, a hybrid CPU+GPU split of one or two cards as well, unless the chip's GPU-only
    /// machines are too slow (a split, its experts read from system RAM, is slower still). The
    /// split is offered beside a GPU-only count that meets the goal because that count may cost
    /// more than the budget or draw more than the circuit, as an expert's answer for a big MoE
    /// (one card, the experts in RAM) often shows; the search tries splits after the GPU-only
    /// machines and only where none fully priced costs less ([`super::search`]).
    pub(super) fn screen_chip(&mut self, cards: &[&CardView], precisions: &[Precision]) -> Vec<ChipConfig> {
        let goal = self.goal;
        let rep = cards[0];
        let name = &rep.short;
        let cards: Vec<usize> = match self.musts.get(&PartKind::Gpu) {
            // A GPU chip the user asks for and buys (`--must-have nvidia-geforce-rtx-3090`,
            // not an owned unit): any card of that chip is that GPU, as for a chip not asked
            // for, so a thinner partner card (a two-slot blower) may hold four where the
            // reference design's three slots cannot.
            // The cards of it the user owns first (`--own 1x <partner card> --must-have 2x
            // <chip>`: the owned card is one of the two).
            Some(id) if self.chip_bought(id) && cards.iter().any(|c| &c.id == id) => owned_first(goal, cards),
            Some(id) => cards.iter().filter(|c| &c.id == id).map(|c| c.idx).collect(),
            // No GPU must-have (nothing asked, or two different GPUs owned: either may be
            // used): the cards of this chip the user owns are tried first, then the others up
            // to the per-chip count, so that an owned chip or card is never left out for a
            // bought one of the same chip.
            None => owned_first(goal, cards),
        };
        if cards.is_empty() {
            return Vec::new(); // another chip is the must-have card
        }
        if rep.sxm {
            self.reject(
                name.clone(),
                Constraint::Excluded,
                format!("{name}: an SXM module needs an HGX baseboard system, which the catalog does not list"),
            );
            return Vec::new();
        }
        // A card the user owns is not bought, so it needs no used market, and its owned units
        // cost $0 whatever its catalog price: a card without a price is screened when the user
        // owns some of it, and [`Self::power_gate`] asks a price only of the units bought.
        let owned = cards.iter().any(|&i| goal.owned_count(&self.parts.cards[i].id) > 0);
        if !owned && !self.priced(self.parts.cards[cards[0]].price_usd) {
            self.reject(
                name.clone(),
                Constraint::Unknown,
                format!("{name}: price unknown, so the budget cannot be checked"),
            );
            return Vec::new();
        }
        if rep.used_market && !goal.used && !owned {
            self.reject(
                name.clone(),
                Constraint::Used,
                format!("{name}: sold used only (allow used cards with --used)"),
            );
            return Vec::new();
        }
        // The runtime must run on the card (vLLM needs compute capability 7.0, TensorRT-LLM an
        // NVIDIA GPU, ...): precisions whose runtime does not are not screened, and a card no
        // precision's runtime runs on is rejected with the runtime's own requirement, naming
        // the runtime it judged and why that one ([`runtime_basis`]: a trial read vLLM's list
        // in a plan whose builds ran llama.cpp).
        let mut refusals: Vec<(Constraint, Option<Runtime>, Vec<Precision>, String)> = Vec::new();
        let precisions: Vec<Precision> = precisions
            .iter()
            .copied()
            .filter(|&p| match screen::runtime_refusal(self.catalog, self.model, goal, rep, p) {
                Some((constraint, why)) => {
                    let rt = (!goal.is_training()).then(|| runtime_for(self.model, goal, p));
                    match refusals.iter_mut().find(|r| r.1 == rt && r.3 == why) {
                        Some(r) => r.2.push(p),
                        None => refusals.push((constraint, rt, vec![p], why)),
                    }
                    false
                }
                None => true,
            })
            .collect();
        if precisions.is_empty() {
            let constraint = refusals.first().map_or(Constraint::Runtime, |r| r.0);
            let whys: Vec<String> = refusals
                .iter()
                .map(|(_, rt, ps, why)| match rt {
                    Some(rt) => {
                        format!("judged under {}: {why}", runtime_basis(self.model, goal, self.planned_too, *rt, ps))
                    }
                    None => why.clone(),
                })
                .collect();
            self.reject(name.clone(), constraint, format!("{name}: {}", whys.join("; ")));
            return Vec::new();
        }
        let precisions = &precisions[..];
        let weights_floor =
            precisions.iter().map(|&p| goal_weights_gib(self.model, goal, p)).fold(f64::INFINITY, f64::min);
        let mut best_speed: Option<(u32, f64, Precision)> = None;
        let mut need: Option<(f64, f64)> = None;
        // The runtime's refusal of the goal's context (vLLM above the model's maximum), which
        // no count of the card lifts: the reason to give, not the memory figure beside it.
        let mut context_refused: Option<String> = None;
        // The last count's vLLM refusal (its KV pool cannot hold one sequence), if any.
        let mut pool_short: Option<(u32, String)> = None;
        // The GPU-only count that meets the speed (passed or stopped by the power gate).
        let mut met: Option<Option<ChipConfig>> = None;
        let counts = goal.gpu_counts();
        let most_gpus = *counts.end();
        'counts: for n in counts {
            if f64::from(n) * rep.memory_gib < weights_floor {
                continue; // the weights alone do not fit: no need to ask the fit code
            }
            for &p in precisions {
                if f64::from(n) * rep.memory_gib < goal_weights_gib(self.model, goal, p) {
                    continue;
                }
                self.stats.screened += 1;
                let Ok(s) = screen::screen(self.catalog, self.model, goal, rep, n, p) else { continue };
                if !s.fits {
                    if context_refused.is_none() {
                        context_refused.clone_from(&s.context_refused);
                    }
                    need = Some((s.required_gib, s.capacity_gib));
                    pool_short = s.kv_pool_short.map(|r| (n, r));
                    continue;
                }
                if goal.is_training() {
                    // A time target: the run's tokens/s on these cards must train the tokens
                    // in the hours given.
                    if let (Some(tokens), Some(hours)) = (goal.train_tokens, goal.train_hours)
                        && s.train_tokens_per_s.is_none_or(|t| t * hours * 3600.0 < tokens)
                    {
                        continue;
                    }
                    return self.power_gate(cards, n, p, None).into_iter().collect();
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
                    // At the vLLM `--max-num-seqs` the screen judged it at, if not the default.
                    let seqs = s.max_num_seqs;
                    met = Some(
                        self.power_gate(cards.clone(), n, p, None).map(|c| ChipConfig { max_num_seqs: seqs, ..c }),
                    );
                    break 'counts;
                }
            }
        }
        // A MoE model served to one user is tried as a CPU+GPU split below: the GPU-only
        // rejections say they are GPU-only (a trial's plan listed "1x RTX 3090: 24 GiB in all,
        // the weights alone are 352 GiB" among the losers beside a passing split on that card).
        let too_slow = met.is_none() && best_speed.is_some();
        // Too large for the GPUs, or their machine may be over the budget or the circuit: the
        // experts may go to system RAM (as `fit` advises), under llama.cpp (`--n-cpu-moe`) at a
        // GGUF quant it loads (`int4` → `Q4_K_M`), or at MXFP4; the fewest bits first: a hybrid
        // split's decode is bound by the RAM bandwidth and its RAM is the experts' size, so the
        // smallest quant runs fastest on the least RAM (the expert offload counts the
        // non-expert part exactly, so Q8_0 splits exist too).
        let mut hybrid: Vec<Precision> = Vec::new();
        if !too_slow && self.model.is_moe() && !goal.is_training() && goal.users == 1 {
            for p in precisions.iter().flat_map(|&p| screen::hybrid_precisions(goal, self.model, p)) {
                if !hybrid.contains(&p) && screen::runtime_refusal(self.catalog, self.model, goal, rep, p).is_none() {
                    hybrid.push(p);
                }
            }
            hybrid.sort_by(|a, b| a.bits_per_weight().total_cmp(&b.bits_per_weight()));
        }
        let gpu_only = if hybrid.is_empty() {
            ""
        } else {
            " (every weight on the GPUs; a split with the experts in system RAM is judged apart)"
        };
        match (best_speed, need) {
            _ if met.is_some() => {}
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
            // A context the runtime refuses: the figure that stops it is the context against
            // the model's maximum, not the memory (a trial's plan read "even 8 cards do not
            // hold it (21.2 GiB needed per 96 GiB card)" for gpt-oss-120b at 500000 tokens).
            (None, need) if context_refused.is_some() => {
                let why = context_refused.clone().unwrap_or_default();
                let what = format!("{most_gpus}x {name}");
                let memory = match need {
                    Some((req, cap)) if req <= cap => {
                        format!("; {most_gpus} cards would hold its memory ({req:.1} GiB needed per {cap:.0} GiB card)")
                    }
                    Some((req, cap)) => format!(
                        "; nor do {most_gpus} cards hold its memory ({req:.1} GiB needed per {cap:.0} GiB card)"
                    ),
                    None => String::new(),
                };
                self.reject(
                    what,
                    Constraint::Runtime,
                    format!("{name}: {why}, so it does not start at any count of cards{memory}{gpu_only}"),
                );
            }
            (None, Some(_)) if pool_short.is_some() => {
                let (n, why) = pool_short.unwrap_or_default();
                let what = format!("{n}x {name}");
                self.reject(what.clone(), Constraint::Memory, format!("{what}: vLLM would not start: {why}"));
            }
            (None, Some((req, cap))) => {
                let what = format!("{most_gpus}x {name}");
                // The figure that does not fit, never a need below the card's capacity as the
                // reason ("21.2 GiB needed per 96 GiB card" read as a contradiction).
                let reason = if req > cap {
                    format!(
                        "{name}: {} {most_gpus} cards do not hold it ({req:.1} GiB needed per {cap:.0} GiB card){gpu_only}",
                        if goal.must_have_count.is_some() { "the" } else { "even" }
                    )
                } else {
                    format!(
                        "{name}: {most_gpus} cards hold its memory ({req:.1} GiB needed per {cap:.0} GiB card) but the estimate does not pass at any count (`kraftwerk fit` on such a build says why){gpu_only}"
                    )
                };
                self.reject(what.clone(), Constraint::Memory, reason);
            }
            (None, None) => {
                let what = format!("{most_gpus}x {name}");
                let total = f64::from(most_gpus) * rep.memory_gib;
                self.reject(
                    what.clone(),
                    Constraint::Memory,
                    format!("{what}: {total:.0} GiB in all, the weights alone are {weights_floor:.0} GiB{gpu_only}"),
                );
            }
        }
        let mut out: Vec<ChipConfig> = met.flatten().into_iter().collect();
        if !hybrid.is_empty() {
            // The cards of this chip the user owns cost nothing, and each keeps more expert
            // layers on a GPU (faster decode, less RAM): a split on the owned cards is tried
            // first (a trial owning two RTX 3090s was planned one card with the experts of
            // the other's share in RAM), then the other counts, fewest first.
            let most = most_gpus.min(2);
            let mut ids: Vec<&str> = cards.iter().map(|&i| self.parts.cards[i].id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            let owned: u32 = ids.iter().map(|id| goal.owned_count(id)).sum();
            let first = owned.clamp(1, most.max(1));
            let allowed = goal.gpu_counts();
            let counts =
                std::iter::once(first).chain((1..=most).filter(|&n| n != first)).filter(|n| allowed.contains(n));
            // Owning two cards must not lose the one-card split a one-card owner gets (cheaper
            // hosts, a lower budget): after a split on the owned cards, the fewest cards that
            // split are tried too.
            for n in counts {
                for &p in &hybrid {
                    self.stats.screened += 1;
                    if let Some(gib) = screen::hybrid_host_gib(self.catalog, self.model, goal, rep, n, p) {
                        if n == first && first > 1 {
                            out.extend(self.power_gate(cards.clone(), n, p, Some(gib)));
                            break;
                        }
                        out.extend(self.power_gate(cards, n, p, Some(gib)));
                        return out;
                    }
                }
            }
        }
        out
    }

    pub(super) fn prefill_text(&self) -> String {
        self.goal.prefill_tok_s.map_or_else(String::new, |p| format!(", prefill {p}"))
    }

    /// Power: the cards alone against what the circuits carry.
    pub(super) fn power_gate(
        &mut self,
        cards: Vec<usize>,
        n: u32,
        precision: Precision,
        hybrid_gib: Option<f64>,
    ) -> Option<ChipConfig> {
        let rep = &self.parts.cards[cards[0]];
        let (gpu_w, site_w) = power::gpus_alone_w(self.catalog, self.goal, rep, n);
        // A power limit is a lever: the cards at the lowest limit they can be set to must fit.
        let lowest = self
            .catalog
            .gpu_or_card(&rep.id)
            .map_or(1.0, |g| crate::estimate::power::lowest_planned_limit_w(g) / g.board_power_w.max(1.0));
        if gpu_w * lowest.clamp(0.0, 1.0) > site_w {
            let what = format!("{n}x {}", rep.short);
            let g = self.goal;
            self.reject(what.clone(), Constraint::Power, format!(
                "{what} on {} x {} A circuit{} at {} V: the cards alone draw {:.2} kW at full load ({:.2} kW at the lowest limit the planner sets: the card's published minimum, never below 57 % of its default), the circuits carry {:.2} kW",
                g.circuits, g.breaker_a, if g.circuits == 1 { "" } else { "s" }, g.mains_v, gpu_w / 1000.0, gpu_w * lowest / 1000.0, site_w / 1000.0));
            return None;
        }
        // The cards the user owns are not bought; those bought need a price under a budget.
        let bought = n.saturating_sub(self.goal.owned_count(&rep.id));
        if bought > 0 && !self.priced(rep.price_usd) {
            let what = format!("{n}x {}", rep.short);
            self.reject(
                what.clone(),
                Constraint::Unknown,
                format!(
                    "{what}: {bought} to buy beyond the {} owned, price unknown, so the budget cannot be checked",
                    n - bought
                ),
            );
            return None;
        }
        if let (Some(budget), Some(price)) = (self.goal.budget_usd, rep.price_usd)
            && price * f64::from(bought) > budget
        {
            let what = format!("{n}x {}", rep.short);
            self.reject(
                what.clone(),
                Constraint::Budget,
                format!(
                    "{what}: {} to buy alone cost{} {}, over the {} budget",
                    if bought == 1 { "the card".to_owned() } else { format!("the {bought} cards") },
                    if bought == 1 { "s" } else { "" },
                    crate::fmt::usd(price * f64::from(bought)),
                    crate::fmt::usd(budget)
                ),
            );
            return None;
        }
        Some(ChipConfig { cards, n, precision, hybrid_gib, max_num_seqs: None })
    }
}

/// The cards of one chip to try, as [`crate::plan::views::Parts::cards`] indices: those the
/// user owns first, then the others up to [`CARDS_PER_CHIP`] in all, so that an owned card is
/// never left out for a bought one of the same chip.
fn owned_first(goal: &crate::plan::goal::Goal, cards: &[&CardView]) -> Vec<usize> {
    let owned = |c: &&&CardView| goal.owned_count(&c.id) > 0;
    let mut v: Vec<usize> = cards.iter().filter(owned).map(|c| c.idx).collect();
    let room = CARDS_PER_CHIP.saturating_sub(v.len());
    v.extend(cards.iter().filter(|c| !owned(c)).take(room).map(|c| c.idx));
    v
}

//! One assembled machine: built, judged by the checker (with a common GPU power limit when full
//! load is over a PSU or circuit), estimated, and held to the goal's memory, speed and budget;
//! a failure says which part to change next ([`Retry`]), and the parts whose figures are unknown
//! are not tried again.

use super::assemble::{Failure, Retry};
use super::{State, Unknown};
use crate::check::PartRef;
use crate::plan::evaluation::Evaluation;
use crate::plan::goal::Form;
use crate::plan::judge::{gpus_on_chipset, judge};
use crate::plan::machine::{Spec, make_build};
use crate::plan::{Constraint, PlanResult, estimate, power};

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
    ev.circuits.iter().enumerate().find_map(|(i, (a, l))| a.filter(|a| a > l).map(|a| (i, a, l))).map(|(i, a, l)| {
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

impl State<'_> {
    /// Remembers the parts a not-checked finding named, so they are not tried again.
    pub(super) fn note_unknown(&mut self, spec: &Spec, ev: &Evaluation) {
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
    pub(super) fn judge(&mut self, spec: &Spec, form: Form, n: u32) -> Result<PlanResult, Failure> {
        let card = &self.parts.cards[spec.card];
        let gpus = format!("{n}x {}", card.short);
        let board = &self.parts.boards[spec.board];
        let title = format!("{gpus} on {}, {form}", board.name);
        let mut build = make_build(self.catalog, self.goal, self.model, spec, &title);
        self.stats.checked += 1;
        self.work.add_spec(self.catalog, spec);
        let mut ev = judge(&build, self.work.catalog());
        // Full load over a PSU, a PSU's 1 ms peak or the circuit: a power limit on every GPU
        // is a lever (`check`'s own advice); the capped machine is judged again by the checker.
        // A cap the checker cannot verify (a card without a published minimum limit: the
        // `gpu-power-cable` rule says not checked) is not proposed: the machine is judged
        // uncapped, and another PSU set is tried.
        if power_problem(&ev, self.goal).is_some()
            && let Some(limit) = power::cap_limit_w(&build, self.work.catalog())
        {
            let mut capped = build.clone();
            for g in &mut capped.gpus {
                let top = self.work.catalog().gpu_or_card(&g.gpu).map_or(limit, kraftwerk_catalog::Gpu::max_limit_w);
                g.power_limit_w = Some(limit.min(top));
            }
            self.stats.checked += 1;
            // `judge` reads the cap back from the build (`Evaluation::power_cap`).
            let mut capped_ev = judge(&capped, self.work.catalog());
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
        // A circuit or PSU-capacity error is named before any other: no other part of the
        // machine fixes a draw over the circuit (a PSU transient error beside it would send the
        // search to other PSUs for a machine no PSU can power).
        let is_power = |e: &&String| e.starts_with("wall-circuit") || e.starts_with("psu-capacity");
        if let Some(e) = ev.errors.iter().find(is_power).or_else(|| ev.errors.first()) {
            let power = is_power(&e);
            let constraint = if power { Constraint::Power } else { Constraint::Checks };
            let hint = match ev.advised_limit_w {
                Some(w) if power => format!(" (a common power limit of {w:.0} W per card would fit)"),
                _ => String::new(),
            };
            let wall = if power {
                format!("{} at the wall; ", crate::fmt::kilowatts_or_unknown(ev.wall_w))
            } else {
                String::new()
            };
            return Err((constraint, format!("{gpus}, {form}: {wall}{e}{hint}"), retry_for(&ev.error_parts)));
        }
        // The goal names the circuits: the power code's draw must stay within their continuous
        // limit (the checker's wall-circuit rule only warns between it and the breaker).
        if let Some((i, amps, limit)) =
            ev.circuits.iter().enumerate().find_map(|(i, (a, l))| a.filter(|a| a > l).map(|a| (i, a, l)))
        {
            let g = self.goal;
            return Err((
                Constraint::Power,
                format!(
                    "{gpus} on {} x {} A circuit{} at {} V: {} at the wall, circuit {} draws {amps:.1} A, over its {limit:.1} A continuous limit{}",
                    g.circuits,
                    g.breaker_a,
                    if g.circuits == 1 { "" } else { "s" },
                    g.mains_v,
                    crate::fmt::kilowatts_or_unknown(ev.wall_w),
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
        estimate::estimate(&build, self.work.catalog(), self.goal, self.model, &mut ev);
        self.hold_to_goal(ev, build, spec, title, gpus, form)
    }

    /// The estimated machine against the goal's memory, speed and budget.
    pub(super) fn hold_to_goal(
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
            // A machine too slow only for its power cap (at the cards' default limits it would
            // meet the target): a case of this board that holds more PSUs may carry the cards at
            // a higher limit, or none; else the board's slots are too slow.
            // The speed at the default limits is at most the capped one over the curve's share
            // (memory-bound decode keeps `decode_kept`, compute-bound prefill `throughput_kept`).
            let too_slow = |at_cap: f64, target: f64, kept: fn(&power::PowerCap) -> f64| match &ev.power_cap {
                Some(cap) if kept(cap) > 0.0 && at_cap / kept(cap) >= target => Retry::MorePsus,
                _ => Retry::Board,
            };
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
                    too_slow(d, self.goal.tok_s, |c| c.decode_kept),
                ));
            }
            // Where every held decode row on the card's architecture measures below this
            // estimate, the goal is judged at the most they measure too (a trial's plan showed a
            // Tesla P100 at 27.3 tok/s for a 25 tok/s goal beside its own caveat that the held
            // rows measure 0.43-0.45 of it). Not for a split with experts in RAM (its decode is
            // bound by the RAM, which those all-GPU rows do not time).
            if let Some((share, rows)) = ev.decode_held_at_most.as_ref().filter(|_| ev.hybrid.is_none())
                && d * share < self.goal.tok_s
            {
                return Err((
                    Constraint::Speed,
                    format!(
                        "{gpus} on {}: {d:.1} tok/s per user estimated, but {rows}: at most {:.1} tok/s (target {})",
                        board.name,
                        d * share,
                        self.goal.tok_s
                    ),
                    Retry::Board,
                ));
            }
            if let Some(t) = self.goal.prefill_tok_s
                && ev.prefill.is_none_or(|p| p < t)
            {
                return Err((
                    Constraint::Speed,
                    format!("{gpus}: prefill {:.0} tok/s (target {t})", ev.prefill.unwrap_or(0.0)),
                    too_slow(ev.prefill.unwrap_or(0.0), t, |c| c.throughput_kept),
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
            precision: spec.precision,
            form,
            price_complete: ev.unpriced.is_empty(),
            price_usd: ev.known_price_usd,
            gpus_on_chipset: gpus_on_chipset(&ev),
            build,
            eval: ev,
            measured: None,
        })
    }
}

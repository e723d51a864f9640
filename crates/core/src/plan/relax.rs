//! When nothing meets the goal: the search again with each constraint relaxed on its own, and
//! what each relaxation buys (the binding constraints are those that buy a build).

use super::goal::{Goal, GoalPrecision};
use super::search::Control;
use super::search_runtimes as search;
use super::views::Parts;
use super::{Constraint, PlanOutcome, Relaxation};
use kraftwerk_catalog::Catalog;
use std::sync::atomic::Ordering;

/// When nothing meets the goal: searches again with each constraint relaxed on its own.
pub(super) fn relax(catalog: &Catalog, parts: &Parts, goal: &Goal, ctl: &mut Control<'_>, out: &mut PlanOutcome) {
    let kinds: Vec<Constraint> = out.rejected.iter().map(|r| r.constraint).collect();
    let mut tries: Vec<(Constraint, String, Goal)> = Vec::new();
    if let Some(b) = goal.budget_usd {
        tries.push((
            Constraint::Budget,
            format!("no budget (instead of {})", crate::fmt::usd(b)),
            Goal { budget_usd: None, ..goal.clone() },
        ));
    }
    if kinds.contains(&Constraint::Power) || kinds.contains(&Constraint::Checks) {
        let more = goal.circuits + 1;
        tries.push((
            Constraint::Power,
            format!("{more} circuits of {} A (instead of {})", goal.breaker_a, goal.circuits),
            Goal { circuits: more, ..goal.clone() },
        ));
    }
    if !goal.used {
        tries.push((Constraint::Used, "used cards allowed".into(), Goal { used: true, ..goal.clone() }));
    }
    if goal.form.is_some() {
        tries.push((
            Constraint::Slots,
            "any form (tower, rack or open frame)".into(),
            Goal { form: None, ..goal.clone() },
        ));
    }
    if matches!(goal.precision, GoalPrecision::Exact(_)) {
        tries.push((
            Constraint::Memory,
            "the best precision that fits (instead of a fixed one)".into(),
            Goal { precision: GoalPrecision::Best, ..goal.clone() },
        ));
    }
    if !goal.is_training() && (goal.tok_s > 0.0 || goal.prefill_tok_s.is_some()) {
        tries.push((
            Constraint::Speed,
            "no speed target".into(),
            Goal { tok_s: 0.0, prefill_tok_s: None, ..goal.clone() },
        ));
    }
    for (constraint, change, g) in tries {
        if ctl.cancel.load(Ordering::Relaxed) {
            out.cancelled = true;
            return;
        }
        // Allowing used cards reprices the catalog (used-market prices).
        let used_views = (g.used && !goal.used).then(|| {
            let priced = super::search::pricing_catalog(catalog, &g).into_owned();
            let views = super::parts::read(&priced, g.mains_v);
            (priced, views)
        });
        let (catalog, parts) = used_views.as_ref().map_or((catalog, parts), |(c, p)| (c, p));
        let Ok(o) = search(catalog, parts, &g, ctl) else { continue };
        out.stats.screened += o.stats.screened;
        out.stats.checked += o.stats.checked;
        // Without a budget, parts with no price come in: a build under the budget with an
        // unpriced part shows that the unknown prices bind, not the budget.
        let (constraint, change) = match (constraint, goal.budget_usd, o.results.first()) {
            (Constraint::Budget, Some(b), Some(r)) if !r.price_complete && r.price_usd <= b => (
                Constraint::Unknown,
                format!(
                    "parts without a known price allowed (the {} budget cannot be checked for them)",
                    crate::fmt::usd(b)
                ),
            ),
            _ => (constraint, change),
        };
        let buys = o.results.first().map(|r| {
            let price = if r.price_complete {
                crate::fmt::usd(r.price_usd)
            } else {
                format!("at least {} (prices unknown: {})", crate::fmt::usd(r.price_usd), r.eval.unpriced.join(", "))
            };
            let speed = r.eval.decode_per_user.map_or_else(String::new, |d| format!(", {d:.1} tok/s per user"));
            format!(
                "{} at {}: {price}{speed}, {} at the wall",
                r.title,
                r.precision,
                crate::fmt::kilowatts_or_unknown(r.eval.wall_w)
            )
        });
        if buys.is_some() {
            out.binding.push(constraint);
        }
        out.relaxations.push(Relaxation { constraint, change, buys });
    }
}

//! Power-limit advice: the highest common GPU power limit that keeps every PSU within its
//! sustained guideline and every circuit within its continuous limit, and other ways out.

use super::{
    CONTINUOUS_FRACTION, LoadState, PSU_SUSTAINED_GUIDELINE, PowerEstimate, US_HIGH_LINE_V, continuous_a, estimate,
    estimate_with, throughput_kept,
};
use crate::rig::Resolved;
use kraftwerk_catalog::{Gpu, HIGH_LINE_MIN_V};

/// Step of the power-limit search, W: limits are searched (and advised) in 5 W steps, the
/// granularity `nvidia-smi -pl` users set by hand (judgement; the driver accepts any whole watt
/// in the card's range).
pub const LIMIT_STEP_W: f64 = 5.0;
use serde::Serialize;

/// Power-limit advice for a build that exceeds its PSU's 80 % guideline or its circuit's
/// continuous limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerAdvice {
    /// What is exceeded, in words.
    pub problem: String,
    /// Highest common GPU power limit that fits, W (rounded down to 5 W), if one exists within
    /// the cards' range.
    pub common_limit_w: Option<f64>,
    /// Throughput kept at that limit, fraction of full (lowest over the GPUs).
    pub throughput_kept: Option<f64>,
    /// Estimate at that limit (training state: full load, every GPU at that limit). Compare it
    /// with [`Self::full_load_dc_w`] and [`Self::full_load_wall_w`], the same load at the
    /// build's own limits, never with an estimate at a lighter (inference) load.
    pub at_limit: Option<PowerEstimate>,
    /// The build's DC load at full load (every GPU at its own power limit) as it stands, W: the
    /// figure the advice judges and `at_limit` lowers.
    pub full_load_dc_w: f64,
    /// The build's wall draw at full load as it stands, W; `None` where a PSU's efficiency is
    /// unknown.
    pub full_load_wall_w: Option<f64>,
    /// What the common limit brings about, in words (`full load within every PSU's 80 %
    /// headroom guideline and every circuit's continuous limit (80 % of its breaker)`).
    pub basis: String,
    /// Other ways out, in words.
    pub alternatives: Vec<String>,
}

/// Whether an estimate keeps every PSU at or under the 80 % guideline and every circuit at or
/// under its continuous limit. A circuit whose draw is unknown (a PSU of unknown efficiency) is
/// not shown to be within: false.
pub fn within_limits(e: &PowerEstimate) -> bool {
    e.psus.iter().all(|p| p.load_fraction <= PSU_SUSTAINED_GUIDELINE + 1e-9)
        && e.circuits.iter().all(|c| c.amps.is_some_and(|a| a <= c.continuous_a + 1e-9))
}

/// Whether a circuit's draw is over its continuous limit: its known draw, or where a PSU's
/// efficiency is unknown the least it can be ([`super::CircuitLoad::min_amps`]).
fn circuit_over(c: &super::CircuitLoad) -> bool {
    c.amps.unwrap_or(c.min_amps) > c.continuous_a
}

/// Advice for the training (full-load) state, `None` when the build is not known to exceed its
/// PSU and circuit limits or has no GPUs. The common power limit is [`power_limit_to_fit`]'s
/// highest limit at which every PSU is within its guideline and every circuit within its
/// continuous limit; a circuit whose draw is unknown (a PSU of unknown efficiency) is judged by
/// the least it can draw and named in the problem (the limit is needed there, not shown to be
/// enough).
pub fn advise(r: &Resolved<'_>) -> Option<PowerAdvice> {
    let full = estimate(r, LoadState::Training);
    if full.psus.iter().all(|p| p.load_fraction <= PSU_SUSTAINED_GUIDELINE + 1e-9)
        && !full.circuits.iter().any(circuit_over)
    {
        return None;
    }
    let gpus: Vec<&Gpu> = r.gpus.iter().flatten().copied().collect();
    if gpus.is_empty() {
        return None;
    }
    let mut problems = Vec::new();
    for p in &full.psus {
        if p.load_fraction > PSU_SUSTAINED_GUIDELINE {
            problems.push(format!(
                "PSU {} at {:.0} W is {:.0} % of its {:.0} W rating (guideline {:.0} %)",
                p.index + 1,
                p.dc_w,
                p.load_fraction * 100.0,
                p.rated_w,
                PSU_SUSTAINED_GUIDELINE * 100.0
            ));
        }
    }
    for c in &full.circuits {
        match (c.wall_w, c.amps) {
            (Some(w), Some(a)) if a > c.continuous_a => problems.push(format!(
                "circuit {} draws {w:.0} W = {a:.1} A, over its {:.0} W / {:.1} A continuous limit",
                c.index + 1,
                c.continuous_w,
                c.continuous_a
            )),
            (None, _) | (_, None) if c.min_amps > c.continuous_a => problems.push(format!(
                "circuit {} draws at least {:.0} W = {:.1} A (a PSU on it has no known efficiency: its DC load is the least it can draw), over its {:.0} W / {:.1} A continuous limit; a limit that brings that within is needed, not shown to be enough",
                c.index + 1,
                c.min_wall_w,
                c.min_amps,
                c.continuous_w,
                c.continuous_a
            )),
            (None, _) | (_, None) => problems.push(format!(
                "circuit {}'s wall draw is unknown (a PSU on it has no known efficiency): the limit is checked only against the least it can draw",
                c.index + 1
            )),
            _ => {}
        }
    }
    let found = power_limit_to_fit(r, |e| {
        e.psus.iter().all(|p| p.load_fraction <= PSU_SUSTAINED_GUIDELINE + 1e-9) && !e.circuits.iter().any(circuit_over)
    });
    let b = r.build;
    let mut alternatives = Vec::new();
    let per_circuit_cont = continuous_a(b) * b.site.mains_v;
    if full.circuits.iter().any(circuit_over) {
        // The whole wall draw, or where a PSU's efficiency is unknown the least it can be: "at
        // least" that many circuits.
        let least_w: f64 = full.circuits.iter().map(|c| c.min_wall_w).sum();
        let (wall, least) = full.total_wall_w.map_or((least_w, "at least "), |w| (w, ""));
        let n = (wall / per_circuit_cont).ceil();
        if full.psus_can_split_over(per_circuit_cont) {
            alternatives.push(format!(
                "split the PSUs over {least}{n:.0} circuits of {:.0} A (each {:.0} W continuous)",
                b.site.circuit_a, per_circuit_cont
            ));
        }
        if b.site.mains_v < HIGH_LINE_MIN_V {
            let cont240 = b.site.circuit_a * CONTINUOUS_FRACTION * US_HIGH_LINE_V;
            alternatives.push(format!(
                "run the PSUs from a 240 V circuit: {:.0} A at 240 V gives {cont240:.0} W continuous",
                b.site.circuit_a
            ));
        }
    }
    for p in &full.psus {
        if p.load_fraction > PSU_SUSTAINED_GUIDELINE {
            alternatives.push(format!(
                "PSU {}: at least {:.0} W of PSU capacity for its {:.0} W at full load, within the {:.0} % headroom guideline (e.g. a second PSU for some GPUs)",
                p.index + 1,
                psu_size_for(p.dc_w, PSU_SUSTAINED_GUIDELINE),
                p.dc_w,
                PSU_SUSTAINED_GUIDELINE * 100.0
            ));
        }
    }
    let (common_limit_w, throughput, at_limit) = match found {
        Some(f) => (Some(f.limit_w), Some(f.throughput_kept), Some(f.estimate)),
        None => (None, None, None),
    };
    Some(PowerAdvice {
        problem: problems.join("; "),
        common_limit_w,
        throughput_kept: throughput,
        at_limit,
        full_load_dc_w: full.total_dc_w,
        full_load_wall_w: full.total_wall_w,
        basis: format!(
            "full load within every PSU's {:.0} % headroom guideline and every circuit's continuous limit ({:.0} % of its breaker)",
            PSU_SUSTAINED_GUIDELINE * 100.0,
            CONTINUOUS_FRACTION * 100.0
        ),
        alternatives,
    })
}

/// A common GPU power limit that makes a build fit a power budget, and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LimitFit {
    /// The limit to set on every GPU, W (a multiple of [`LIMIT_STEP_W`], within every card's
    /// published range: at or above the highest published minimum limit, or 50 % of board power
    /// where a card publishes none).
    pub limit_w: f64,
    /// Fraction of full throughput kept at that limit (0..=1), the lowest over the GPUs, from
    /// [`throughput_kept`] (the fitted curve of [`super::THROUGHPUT_EXPONENT`]).
    pub throughput_kept: f64,
    /// The build's full-load (training) estimate with every GPU at `limit_w`.
    pub estimate: PowerEstimate,
}

/// The highest common GPU power limit at which `fits` holds for the build's full-load
/// (training) estimate, every GPU at that limit; `None` when the build has no GPUs or no limit
/// within the cards' ranges fits.
///
/// Searches down from the highest maximum limit of the cards (W, [`Gpu::max_limit_w`]) in
/// [`LIMIT_STEP_W`] steps to the highest of the cards' minimum limits (or 50 % of board power
/// where no minimum is published: a search bound, and the checker reports the limit's
/// settability as not checked). Each step is a full [`estimate_with`] (the same components,
/// PSU efficiency curves and circuits `kraftwerk power` prints), so any budget over the
/// estimate can be asked for: the PSU rules ask for every PSU within its rating or guideline
/// ([`psus_within`]), the advice for [`within_limits`]. This is the power fix `check` and
/// `kraftwerk power` advise, whatever it costs in speed; the planner, which must also say the
/// speed, searches only down to the speed curves' floor ([`power_limit_to_fit_planned`]). The
/// throughput cost comes from [`throughput_kept`] (fitted to Puget Systems' quad RTX 3090
/// measurement).
pub fn power_limit_to_fit(r: &Resolved<'_>, fits: impl Fn(&PowerEstimate) -> bool) -> Option<LimitFit> {
    limit_to_fit(r, |g| g.min_power_limit_w.unwrap_or(g.board_power_w * 0.5), fits)
}

/// [`power_limit_to_fit`] searched only down to each card's lowest planned limit
/// ([`super::lowest_planned_limit_w`]: its published minimum, never below the speed curves'
/// floor [`super::CURVE_FLOOR_FRACTION`] of its default board power, below which no published
/// sweep holds the speed a cap keeps). The planner's cap.
pub fn power_limit_to_fit_planned(r: &Resolved<'_>, fits: impl Fn(&PowerEstimate) -> bool) -> Option<LimitFit> {
    limit_to_fit(r, super::lowest_planned_limit_w, fits)
}

fn limit_to_fit(
    r: &Resolved<'_>,
    floor_of: impl Fn(&Gpu) -> f64,
    fits: impl Fn(&PowerEstimate) -> bool,
) -> Option<LimitFit> {
    let gpus: Vec<&Gpu> = r.gpus.iter().flatten().copied().collect();
    if gpus.is_empty() {
        return None;
    }
    let top = gpus.iter().map(|g| g.max_limit_w()).fold(0.0_f64, f64::max);
    let floor = gpus.iter().map(|g| floor_of(g)).fold(0.0_f64, f64::max);
    let mut limit = (top / LIMIT_STEP_W).floor() * LIMIT_STEP_W;
    while limit >= floor {
        let e = estimate_with(r, LoadState::Training, Some(limit));
        if fits(&e) {
            let kept = gpus.iter().map(|g| throughput_kept(g, limit.min(g.board_power_w))).fold(1.0_f64, f64::min);
            return Some(LimitFit { limit_w: limit, throughput_kept: kept, estimate: e });
        }
        limit -= LIMIT_STEP_W;
    }
    None
}

/// Whether every PSU of an estimate carries at most `fraction` of its rating (1.0: within the
/// rating; [`PSU_SUSTAINED_GUIDELINE`]: within the headroom guideline).
pub fn psus_within(e: &PowerEstimate, fraction: f64) -> bool {
    e.psus.iter().all(|p| p.load_fraction <= fraction + 1e-9)
}

/// The smallest PSU rating, W, rounded up to 50 W, that carries `dc_w` at `fraction` of its
/// rating (1.0: at its rating; [`PSU_SUSTAINED_GUIDELINE`]: with the guideline's headroom).
pub fn psu_size_for(dc_w: f64, fraction: f64) -> f64 {
    (dc_w / fraction.max(1e-9) / 50.0).ceil() * 50.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::power::breaker_tolerance;

    #[test]
    fn psu_size_rounds_up_to_50_w() {
        assert!((psu_size_for(695.0, 1.0) - 700.0).abs() < 1e-9);
        assert!((psu_size_for(700.0, 1.0) - 700.0).abs() < 1e-9);
        assert!((psu_size_for(1042.0, PSU_SUSTAINED_GUIDELINE) - 1350.0).abs() < 1e-9);
    }

    /// The breaker's words follow the standards' points and never name a time between them.
    #[test]
    fn breaker_tolerance_states_the_standard_points_only() {
        let us = |f: f64| breaker_tolerance(f, 120.0);
        assert!(us(0.9).contains("holds its rating"));
        assert!(us(1.2).contains("UL 489 sets no trip time below 135 %") && us(1.2).contains("unknown"));
        assert!(us(1.5).contains("must trip within 1 h at 135 % and within 2 min at 200 %"));
        assert!(us(2.2).contains("within 2 min"));
        let eu = |f: f64| breaker_tolerance(f, HIGH_LINE_MIN_V + 50.0);
        assert!(eu(1.1).contains("does not trip within 1 h up to 113 %"));
        assert!(eu(1.3).contains("unknown"));
        assert!(eu(1.6).contains("trips within 1 h from 145 %"));
    }
}

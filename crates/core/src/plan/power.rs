//! Power for the planner: what the cards alone draw against the site's circuits (the early
//! power gate), a machine's DC load for sizing its PSUs, whether a PSU rides through its GPUs'
//! 1 ms and longer peaks as the `psu-transient` rule judges it, and the common GPU power limit
//! ([`PowerCap`]) that brings a machine within its PSUs and circuits.

use super::goal::Goal;
use super::machine::{placement, site_of};
use super::views::CardView;
use crate::estimate::power::{self, LoadState};
use crate::rig::Build;
use kraftwerk_catalog::Catalog;

/// Full-load DC power of `n` cards alone, W ([`power::estimate`] on a build holding only
/// them), and what the site's circuits carry continuously, W. Any build with these cards draws
/// at least this much at the wall.
pub(crate) fn gpus_alone_w(catalog: &Catalog, goal: &Goal, card: &CardView, n: u32) -> (f64, f64) {
    let mut b = Build { site: site_of(goal), ..Build::default() };
    b.gpus = (0..n).map(|_| placement(card, None, None, 0)).collect();
    let r = b.resolve(catalog);
    let est = power::estimate(&r, LoadState::Training);
    let gpu_w: f64 =
        est.components.iter().filter(|c| matches!(c.component, power::Component::Gpu(_))).map(|c| c.power_w).sum();
    let circuits = goal.circuits.max(1) as f64;
    (gpu_w, power::continuous_a(&b) * b.site.mains_v * circuits)
}

/// Full-load DC power of a build (the PSUs it names, if any, are not counted), W, for sizing
/// its PSUs.
pub(crate) fn dc_load_w(build: &Build, catalog: &Catalog) -> f64 {
    power::estimate(&build.resolve(catalog), LoadState::Training).total_dc_w
}

/// A power limit planned on every GPU ([`super::evaluation::Evaluation::power_cap`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PowerCap {
    /// The limit on each GPU, W (a multiple of [`power::LIMIT_STEP_W`], within every card's
    /// settable range: [`power::power_limit_to_fit`]).
    pub limit_w: f64,
    /// Fraction of throughput kept at it, the lowest over the GPUs ([`power::throughput_kept`],
    /// fitted to Puget Systems' quad RTX 3090 measurement); the plan's decode and prefill are
    /// multiplied by it.
    pub throughput_kept: f64,
    /// How to set it: `sudo nvidia-smi -pl 280` where every GPU is an NVIDIA chip (NVIDIA System
    /// Management Interface, `-pl, --power-limit`; without `-i` it applies to every GPU), else
    /// words naming the vendor's tool.
    pub command: String,
    /// What full load at the default limits was over, in words.
    pub why: String,
}

impl PowerCap {
    /// The cap in one line, as the plan text and the Plan tab say it: `cap each GPU at 280 W
    /// (sudo nvidia-smi -pl 280): -4 % decode and prefill (power-limit curve); at the default
    /// limits: <why>`.
    pub fn describe(&self) -> String {
        format!(
            "cap each GPU at {:.0} W ({}): -{:.0} % decode and prefill (power-limit curve); at the default limits: {}",
            self.limit_w,
            self.command,
            (1.0 - self.throughput_kept) * 100.0,
            self.why
        )
    }
}

/// Whether PSU `psu` (catalog index) of `rated_w` rides through the 1 ms and longer peaks of
/// `cards` GPUs of `gpu_w` power limit each beside `other_w` of sustained load, as the
/// `psu-transient` rule judges a unit ([`power::GPU_TRANSIENT_FACTOR`] over the limit; the ATX
/// 3.x excursion table [`power::excursion_limits`] where the unit has one, else its rating at
/// 1 ms): the planner sizes PSU sets by it so that it proposes none the rule would flag.
pub(crate) fn psu_rides_peaks(
    catalog: &Catalog,
    psu: usize,
    rated_w: f64,
    other_w: f64,
    gpu_w: f64,
    cards: usize,
) -> bool {
    let Some(p) = catalog.psus.get(psu) else { return true };
    if cards == 0 {
        return true;
    }
    let peak = |k: usize| other_w + gpu_w * cards as f64 * power::GPU_TRANSIENT_FACTOR[k];
    match power::excursion_limits(p) {
        Some(lim) => (power::TRANSIENT_1MS..lim.len()).all(|k| peak(k) <= lim[k] * rated_w + 1e-9),
        None => peak(power::TRANSIENT_1MS) <= rated_w + 1e-9,
    }
}

/// Whether every PSU rides through its GPUs' peaks as the `psu-transient` rule judges them
/// (an error or warning there is a machine the planner does not propose): a unit with the ATX
/// 3.x excursion table within its limit at 1 ms and longer; a unit without one (ATX 2.x,
/// server) with its 1 ms peak within its rating.
pub(crate) fn transients_within(e: &power::PowerEstimate) -> bool {
    e.psus.iter().all(|p| {
        let table = p.transients.iter().any(|t| t.limit_w.is_some());
        p.transients.iter().enumerate().all(|(k, t)| match t.limit_w {
            Some(l) => k < power::TRANSIENT_1MS || t.peak_w <= l + 1e-9,
            None => table || k != power::TRANSIENT_1MS || t.peak_w <= p.rated_w + 1e-9,
        })
    })
}

/// The highest common GPU power limit, W ([`power::power_limit_to_fit`], the search `check`'s
/// advice uses), at which `build` keeps every PSU within its sustained guideline, every circuit
/// within its continuous limit ([`power::within_limits`]) and every PSU through its 1 ms peak
/// ([`transients_within`]); `None` when the build has no GPUs, none fits within the cards'
/// ranges, or the cards fit at their default limits already.
pub(crate) fn cap_limit_w(build: &Build, catalog: &Catalog) -> Option<f64> {
    let r = build.resolve(catalog);
    let fit = power::power_limit_to_fit(&r, |e| power::within_limits(e) && transients_within(e))?;
    let below = r.gpus.iter().flatten().any(|g| fit.limit_w < g.board_power_w);
    below.then_some(fit.limit_w)
}

/// What full load at the cards' default limits is over, in words: a PSU over its sustained
/// guideline, a PSU's 1 ms (or longer) peak over its excursion limit or, without one, its
/// rating, or a circuit over its continuous limit; `None` when nothing is.
fn over_at_default(e: &power::PowerEstimate) -> Option<String> {
    for p in &e.psus {
        if p.load_fraction > power::PSU_SUSTAINED_GUIDELINE + 1e-9 {
            return Some(format!(
                "PSU {} carries {:.0} W, {:.0} % of its {:.0} W rating (guideline {:.0} %)",
                p.index + 1,
                p.dc_w,
                p.load_fraction * 100.0,
                p.rated_w,
                power::PSU_SUSTAINED_GUIDELINE * 100.0
            ));
        }
        let table = p.transients.iter().any(|t| t.limit_w.is_some());
        for (k, t) in p.transients.iter().enumerate().skip(power::TRANSIENT_1MS) {
            let (limit, what) = match t.limit_w {
                Some(l) => (l, "ATX 3.x excursion limit"),
                None if !table && k == power::TRANSIENT_1MS => {
                    (p.rated_w, "rating (no ATX 3.x excursion specification)")
                }
                None => continue,
            };
            if t.peak_w > limit + 1e-9 {
                return Some(format!(
                    "PSU {}'s peak of about {:.0} W for {:.0} ms is over its {limit:.0} W {what}",
                    p.index + 1,
                    t.peak_w,
                    t.duration_s * 1e3
                ));
            }
        }
    }
    e.circuits.iter().find(|c| c.amps > c.continuous_a + 1e-9).map(|c| {
        format!("circuit {} draws {:.1} A, over its {:.1} A continuous limit", c.index + 1, c.amps, c.continuous_a)
    })
}

/// The power limit a build sets on its GPUs, read as a plan's cap: every GPU at the same
/// `power_limit_w` below some card's default board power; with its throughput cost
/// ([`power::throughput_kept`]), its command and what the build at default limits is over.
/// `None` for a build whose GPUs run at their default limits.
pub(crate) fn planned_cap(build: &Build, catalog: &Catalog) -> Option<PowerCap> {
    let limit = build.gpus.first()?.power_limit_w?;
    if build.gpus.iter().any(|g| g.power_limit_w != Some(limit)) {
        return None;
    }
    let r = build.resolve(catalog);
    let gpus: Vec<&kraftwerk_catalog::Gpu> = r.gpus.iter().flatten().copied().collect();
    if gpus.is_empty() || gpus.iter().all(|g| limit >= g.board_power_w) {
        return None;
    }
    let kept = gpus.iter().map(|g| power::throughput_kept(g, limit.min(g.board_power_w))).fold(1.0_f64, f64::min);
    let nvidia = gpus.iter().all(|g| g.compute_capability.is_some() || g.vendor.eq_ignore_ascii_case("nvidia"));
    let command = if nvidia {
        format!("sudo nvidia-smi -pl {limit:.0}")
    } else {
        format!("each GPU's power limit set to {limit:.0} W with its vendor's tool")
    };
    let mut open = build.clone();
    for g in &mut open.gpus {
        g.power_limit_w = None;
    }
    let full = power::estimate(&open.resolve(catalog), LoadState::Training);
    let why = over_at_default(&full).unwrap_or_else(|| "nothing (the cap is the build's own)".to_owned());
    Some(PowerCap { limit_w: limit, throughput_kept: kept, command, why })
}

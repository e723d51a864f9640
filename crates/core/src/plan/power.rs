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
    /// settable range and never below the speed curves' floor:
    /// [`power::power_limit_to_fit_planned`]).
    pub limit_w: f64,
    /// Fraction of compute-bound throughput (prefill, training) kept at it, the lowest over the
    /// GPUs ([`power::throughput_kept`], fitted to Puget Systems' quad RTX 3090 measurement).
    pub throughput_kept: f64,
    /// Fraction of memory-bound decode speed kept at it, the lowest over the GPUs
    /// ([`power::decode_kept`], fitted to published llama.cpp power sweeps). The plan's speeds
    /// are estimated on the capped GPUs (`fit` runs them at the build's limits), so neither
    /// fraction is applied to them again.
    pub decode_kept: f64,
    /// How to set it: `sudo nvidia-smi -pl 280` where every GPU is an NVIDIA chip (NVIDIA System
    /// Management Interface, `-pl, --power-limit`; without `-i` it applies to every GPU), else
    /// words naming the vendor's tool.
    pub command: String,
    /// What full load at the default limits was over, in words.
    pub why: String,
}

impl PowerCap {
    /// The cap in one line, as the plan text and the Plan tab say it: `cap each GPU at 280 W
    /// (sudo nvidia-smi -pl 280): about -4 % prefill, -2 % memory-bound decode (power-limit
    /// curves; the plan's speeds are at the cap); at the default
    /// limits: <why>; the limit is lost at every reboot: ...`. A limit set with `nvidia-smi -pl`
    /// is a driver setting that a reboot resets to the default, and until it is set again the
    /// machine runs over what it was capped for, so the line says so.
    pub fn describe(&self) -> String {
        format!(
            "cap each GPU at {:.0} W ({}): about -{:.0} % prefill, -{:.0} % memory-bound decode (power-limit curves; the plan's speeds are at the cap); at the default limits: {}; the limit is lost at every reboot: set it at boot (a systemd unit running the command) before any load",
            self.limit_w,
            self.command,
            (1.0 - self.throughput_kept) * 100.0,
            (1.0 - self.decode_kept) * 100.0,
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

/// The highest common GPU power limit, W ([`power::power_limit_to_fit_planned`]: the search
/// `check`'s advice uses, stopped at the speed curves' floor), at which `build` keeps every PSU within its sustained guideline, every circuit
/// within its continuous limit ([`power::within_limits`]) and every PSU through its 1 ms peak
/// ([`transients_within`]); `None` when the build has no GPUs, none fits within the cards'
/// ranges, or the cards fit at their default limits already.
pub(crate) fn cap_limit_w(build: &Build, catalog: &Catalog) -> Option<f64> {
    let r = build.resolve(catalog);
    let fit = power::power_limit_to_fit_planned(&r, |e| power::within_limits(e) && transients_within(e))?;
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
    e.circuits.iter().find_map(|c| c.amps.filter(|a| *a > c.continuous_a + 1e-9).map(|a| (c, a))).map(|(c, a)| {
        format!("circuit {} draws {a:.1} A, over its {:.1} A continuous limit", c.index + 1, c.continuous_a)
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
    let decode_kept = gpus.iter().map(|g| power::decode_kept(g, limit.min(g.board_power_w))).fold(1.0_f64, f64::min);
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
    Some(PowerCap { limit_w: limit, throughput_kept: kept, decode_kept, command, why })
}

/// What a machine of two or more ATX PSUs needs, as the `multi-psu` rule says it (an add2psu /
/// sync board so that they switch on together, one ground) and where each unit's load sits, in
/// one line: `2 PSUs: PSU 1 feeds the board, CPU and GPUs 1-2 (977 W at full load), PSU 2 GPUs
/// 3-4 (700 W); they must switch on together (add2psu / sync board) and share ground; both on
/// circuit 1 (16 A at 230 V)`. Server PSUs in one chassis's power distribution board switch
/// together and need no adapter (the rule's own case): the line then says so. `None` with
/// fewer than two PSUs.
pub(crate) fn multi_psu_note(build: &Build, catalog: &Catalog) -> Option<String> {
    if build.psus.len() < 2 {
        return None;
    }
    let r = build.resolve(catalog);
    let est = power::estimate(&r, LoadState::Training);
    let gpus_of = |j: usize| -> Vec<usize> {
        build.gpus.iter().enumerate().filter(|(_, g)| g.psu == j).map(|(i, _)| i + 1).collect()
    };
    let list = |v: &[usize]| -> String {
        match v {
            [] => "no GPU".to_owned(),
            [one] => format!("GPU {one}"),
            _ if v.windows(2).all(|w| w[1] == w[0] + 1) => format!("GPUs {}-{}", v[0], v[v.len() - 1]),
            _ => format!("GPUs {}", v.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
        }
    };
    let units: Vec<String> = build
        .psus
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let load = est
                .psus
                .iter()
                .find(|l| l.index == j)
                .map_or_else(String::new, |l| format!(" ({:.0} W at full load)", l.dc_w));
            let system = if p.feeds_system == Some(true) { "the board, CPU and " } else { "" };
            format!("PSU {} feeds {system}{}{load}", j + 1, list(&gpus_of(j)))
        })
        .collect();
    let mut circuits: Vec<usize> = build.psus.iter().map(|p| p.circuit).collect();
    circuits.sort_unstable();
    circuits.dedup();
    let site = format!("{:.0} A at {:.0} V", build.site.circuit_a, build.site.mains_v);
    let on = match circuits[..] {
        [one] => format!("all on circuit {} ({site})", one + 1),
        _ => format!(
            "on circuits {} ({site} each)",
            circuits.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(" and ")
        ),
    };
    let server = r.psus.iter().flatten().all(|p| p.atx_version == kraftwerk_catalog::AtxVersion::Server);
    let together = if server {
        "the chassis's power distribution board switches them together"
    } else {
        "they must switch on together (add2psu / sync board) and share ground"
    };
    Some(format!("{} PSUs: {}; {together}; {on}", build.psus.len(), units.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        kraftwerk_catalog::builtin().expect("built-in catalog")
    }

    fn shipped(c: &Catalog, name: &str, text: &str) -> Build {
        crate::rig::load_str(name, text, Some(c)).expect("shipped build loads")
    }

    /// The shipped open-frame build: two ATX PSUs on two 120 V / 20 A circuits, GPUs 1-2 on the
    /// first with the board, 3-4 on the second. The note names each unit's cards and load, the
    /// add2psu / sync board the `multi-psu` rule asks for, and both circuits; one PSU gets none.
    #[test]
    fn the_note_names_each_psus_cards_the_sync_board_and_the_circuits() {
        let c = catalog();
        let mut b = shipped(
            &c,
            "4x-rtx-4090-threadripper-open-frame.rig.ron",
            include_str!("../../../../catalog/builds/4x-rtx-4090-threadripper-open-frame.rig.ron"),
        );
        let note = multi_psu_note(&b, &c).expect("two PSUs");
        assert!(note.starts_with("2 PSUs: PSU 1 feeds the board, CPU and GPUs 1-2 ("), "{note}");
        assert!(note.contains(", PSU 2 feeds GPUs 3-4 ("), "{note}");
        assert!(note.contains("they must switch on together (add2psu / sync board) and share ground"), "{note}");
        assert!(note.ends_with("on circuits 1 and 2 (20 A at 120 V each)"), "{note}");
        // The loads are the power estimate's, per PSU.
        let est = power::estimate(&b.resolve(&c), LoadState::Training);
        assert!(note.contains(&format!("GPUs 1-2 ({:.0} W at full load)", est.psus[0].dc_w)), "{note}");
        // Both on one circuit; cards not in a run.
        for p in &mut b.psus {
            p.circuit = 0;
        }
        b.gpus[1].psu = 1;
        b.gpus[3].psu = 0;
        let note = multi_psu_note(&b, &c).expect("two PSUs");
        assert!(
            note.contains("feeds the board, CPU and GPUs 1, 4 (") && note.contains("PSU 2 feeds GPUs 2-3 ("),
            "{note}"
        );
        assert!(note.ends_with("all on circuit 1 (20 A at 120 V)"), "{note}");
        b.psus.truncate(1);
        for g in &mut b.gpus {
            g.psu = 0;
        }
        assert_eq!(multi_psu_note(&b, &c), None, "one PSU");
    }
}

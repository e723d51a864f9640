//! Power rules: PSU capacity, transients, the wall circuit, the PSU inlet, multi-PSU splits,
//! GPU power cables and PSU connector counts. The numbers come from
//! [`crate::estimate::power`], the same functions `kraftwerk power` prints.

use super::Ctx;
use super::coverage::{Figure, Need};
use super::{PartRef, Rule, RuleDoc, Severity, finding, plural};
use crate::estimate::power::{
    EXCURSION_DURATIONS_S, EXCURSION_LIMIT_HPWR, EXCURSION_LIMIT_OTHER, GPU_TRANSIENT_FACTOR, PSU_SUSTAINED_GUIDELINE,
    TRANSIENT_1MS, TRANSIENT_100US, gpu_limit_w, power_limit_to_fit, psu_size_for, psus_within,
};
use crate::fmt::duration;
use crate::rig::GpuCable;
use kraftwerk_catalog::PartKind;
use kraftwerk_catalog::{AtxVersion, Gpu, Psu};
use std::fmt::Write as _;

mod wall;
pub(crate) use wall::{PSU_INLET, WALL_CIRCUIT};

/// Power a PCIe 8-pin cable carries, W (PCIe CEM; ATX 3.0 guide).
pub(crate) const PCIE_8PIN_W: f64 = 150.0;
/// Power an EPS-12V 8-pin CPU cable carries into a datacenter or workstation card, W (NVIDIA
/// A100 product brief: the card's CPU 8-pin input; NVIDIA "Power Guidelines for Workstation
/// Products", DA-07261-001 v08 and later: the RTX A6000's CPU 8-pin connection option).
pub(crate) const EPS_8PIN_W: f64 = 300.0;
/// Power the x16 slot itself supplies, W (PCIe CEM).
pub(crate) const PCIE_SLOT_W: f64 = 75.0;
/// Power a 6-pin carries, W.
pub(crate) const PCIE_6PIN_W: f64 = 75.0;
/// Highest power class of a 12V-2x6 / 12VHPWR cable, W (both sense pins grounded; PCIe CEM 5.0,
/// ATX 3.0 guide). Taken for a native cable whose class the PSU's maker does not publish.
pub(crate) const HPWR_MAX_CLASS_W: f64 = 600.0;

/// The figures `psu-transient` uses, from the constants.
fn transient_figures() -> String {
    let row = |name: &str, v: &[f64; 4], pct: bool| {
        let cells: Vec<String> =
            v.iter().map(|x| if pct { format!("{:>7.0} %", x * 100.0) } else { format!("{x:>8.2}x") }).collect();
        format!("  {name:<44}{}\n", cells.join(""))
    };
    let head: Vec<String> = EXCURSION_DURATIONS_S.iter().map(|&d| format!("{:>9}", duration(d))).collect();
    let mut s = format!("  {:<44}{}\n", "duration", head.join(""));
    s.push_str(&row("GPU peak / power limit", &GPU_TRANSIENT_FACTOR, false));
    s.push_str(&row("ATX 3.x limit, > 450 W with 12V-2x6", &EXCURSION_LIMIT_HPWR, true));
    s.push_str(&row("ATX 3.x limit, other units", &EXCURSION_LIMIT_OTHER, true));
    let _ = writeln!(
        s,
        "  no excursion spec (ATX 2.x, server): a peak above 100 % of the rating for {} or longer is a warning",
        duration(EXCURSION_DURATIONS_S[TRANSIENT_1MS])
    );
    let _ = writeln!(
        s,
        "  a peak over the limit: warning at {}, error at {} and longer",
        duration(EXCURSION_DURATIONS_S[TRANSIENT_100US]),
        duration(EXCURSION_DURATIONS_S[TRANSIENT_1MS])
    );
    s
}

/// The command that sets every GPU's power limit to `limit_w`: `nvidia-smi -pl` where every
/// GPU of the build is an NVIDIA chip (a CUDA compute capability; board partners' cards name
/// their own maker as vendor; the limit applies to all GPUs without `-i`: NVIDIA System
/// Management Interface documentation, `-pl, --power-limit`), else words, never a command
/// guessed for another vendor's tool.
fn set_limit_command(c: &Ctx<'_>, limit_w: f64) -> String {
    let nvidia =
        c.r.gpus.iter().flatten().all(|g| g.compute_capability.is_some() || g.vendor.eq_ignore_ascii_case("nvidia"));
    // Cards whose highest settable limit is under the common limit keep theirs (the search
    // counts them at it; `nvidia-smi -pl` refuses a limit over a card's maximum).
    let lower: Vec<String> =
        c.r.gpus
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                g.filter(|g| g.max_limit_w() < limit_w).map(|g| format!("GPU {} at {:.0} W", i + 1, g.max_limit_w()))
            })
            .collect();
    let keep =
        if lower.is_empty() { String::new() } else { format!(", except {} (its highest limit)", lower.join(", ")) };
    if nvidia {
        format!("`sudo nvidia-smi -pl {limit_w:.0}`{keep}")
    } else {
        format!("each GPU's power limit set to {limit_w:.0} W with its vendor's tool{keep}")
    }
}

/// The fix for a PSU over its rating or its headroom guideline at full load. It leads with
/// the figures the power-limit advice gives ([`crate::estimate::power::advise`]): the common GPU
/// power limit that brings every PSU within the [`PSU_SUSTAINED_GUIDELINE`]
/// ([`power_limit_to_fit`] with [`psus_within`]), its command and throughput cost, and the PSU
/// size that carries the load within the guideline ([`psu_size_for`]). A PSU over its rating
/// (`over_rating`) also names the least that clears the error, each figure with its basis, so
/// the error's fix and the advice never read as two answers to one question.
fn psu_fix(c: &Ctx<'_>, p: &crate::estimate::power::PsuLoad, over_rating: bool) -> String {
    let guideline = PSU_SUSTAINED_GUIDELINE * 100.0;
    let after = |f: &crate::estimate::power::LimitFit| {
        f.estimate.psus.iter().find(|q| q.index == p.index).map_or(0.0, |q| q.load_fraction) * 100.0
    };
    let cap = power_limit_to_fit(&c.r, |e| psus_within(e, PSU_SUSTAINED_GUIDELINE)).map(|f| {
        format!(
            "Cap every GPU at {:.0} W ({}): keeps about {:.0} % of throughput, and full load is then {:.0} % of this PSU's rating, within the {guideline:.0} % headroom guideline",
            f.limit_w,
            set_limit_command(c, f.limit_w),
            f.throughput_kept * 100.0,
            after(&f)
        )
    });
    // The mildest cap that clears the error: within the rating, no headroom.
    let at_rating = if over_rating { power_limit_to_fit(&c.r, |e| psus_within(e, 1.0)) } else { None };
    let no_headroom = |f: &crate::estimate::power::LimitFit| {
        format!(
            "{:.0} W ({}; full load then {:.0} % of the rating, no headroom; about {:.0} % of throughput kept)",
            f.limit_w,
            set_limit_command(c, f.limit_w),
            after(f),
            f.throughput_kept * 100.0
        )
    };
    let size = psu_size_for(p.dc_w, PSU_SUSTAINED_GUIDELINE);
    let at_100 = if over_rating {
        format!(" ({:.0} W at 100 % of its rating, no headroom)", psu_size_for(p.dc_w, 1.0))
    } else {
        String::new()
    };
    let psu = format!(
        "a PSU of at least {size:.0} W for these {:.0} W, within the {guideline:.0} % guideline{at_100}",
        p.dc_w
    );
    match (cap, at_rating) {
        (Some(cap), Some(least)) => {
            format!("{cap}; the highest cap that clears this error is {}; or {psu}.", no_headroom(&least))
        }
        (Some(cap), None) => format!("{cap}; or {psu}."),
        (None, Some(least)) => format!(
            "Cap every GPU at {}, the highest cap that clears this error (no common power limit within the cards' ranges brings it within the {guideline:.0} % guideline); or {psu}, or move GPUs to a second PSU.",
            no_headroom(&least)
        ),
        (None, None) => {
            let within = if over_rating { "its rating".to_owned() } else { format!("the {guideline:.0} % guideline") };
            format!(
                "No common power limit within the cards' ranges brings it within {within}: give it {psu}, or move GPUs to a second PSU."
            )
        }
    }
}

/// Rule: full-load DC draw against each PSU's rating (id and docs in `doc`).
pub(crate) static PSU_CAPACITY: Rule = Rule {
    doc: RuleDoc {
        id: "psu-capacity",
        family: "power",
        severity: Severity::Error,
        title: "Full-load draw against each PSU's rating",
        checks: "Each PSU's DC load at full load (every GPU at its power limit; the CPU at its sustained package power, AMD PPT or Intel PL1/PL2 in the default performance profile, else its TDP; board, memory, drives, fans) against its rating at the site's voltage, in every workload mode: over 100 % is an error, over the headroom guideline (see the figures) a warning. A build checked at inference load is judged at full load too, because a model load that ramps every GPU at once, a prefill burst or a second job reaches it; the finding also states the inference-load figure. The fix names the figures the power-limit advice gives, each with its basis: the common GPU power limit that brings every PSU within the headroom guideline (the advice's search over the same efficiency curves), its `nvidia-smi -pl` command and throughput cost, and the PSU size that carries the load within the guideline; for an error also the least that clears it (the highest cap within the rating, and the PSU size at 100 % of its rating), named as such.",
        why: "A PSU's over-power and over-current protection shuts the machine down within milliseconds, whatever the workload: the ATX 3.x design guides allow a PSU over 100 % of its rating only for power excursions of at most 100 ms (120 % for 100 ms on units over 450 W with a 12V-2x6 connector, 110 % on others; 100 % for an infinite time: Intel ATX12VO Desktop Power Supply Design Guide 613768, section 3.1.2 \"PSU Power Excursion\", table 3-3, the same table as the ATX 3.0 Multi Rail guide 336521), so a full load of seconds over the rating is outside the specification. Where a vendor publishes no over-power figure the rating is the limit; where one was measured the unit shut down not far above it: a 1600 W unit at 1907 W, 119 % (Corsair AX1600i, https://www.tomshardware.com/uk/reviews/corsair-ax1600i-psu,5406-6.html). Inference rigs reach full load: a 490 W workstation with an RTX 3070 Ti, an RTX 3060 and a 135 W Xeon (about 695 W at full load) cut power three times, twice during an ollama model load, until both cards were capped (https://github.com/olafkfreund/nixos_config/pull/1396, 2026-08-20). The headroom guideline is judgement, widely used (see the figures). The CPU is planned at its sustained package power (AMD: PPT = 1.35 x TDP; Intel default settings: Core i9 PL1 = PL2 = 253 W; docs/sources.md).",
        fix: "Cap every GPU at the limit the finding names (`sudo nvidia-smi -pl W`; the cost in throughput is stated), move GPUs to a second PSU, or choose a PSU at least the size the finding names.",
    },
    needs: &[Need::Part(PartKind::Psu), Need::Figure(Figure::PsuLowLineRating)],
    figures: Some(|| {
        format!(
            "  error: full-load DC draw over 100 % of the rating (every workload mode)\n  warning: over the headroom guideline, {:.0} % of the rating\n",
            PSU_SUSTAINED_GUIDELINE * 100.0
        )
    }),
    check: |c, out| {
        // Judged at full load in every mode: `full_power` is present when the workload's own
        // estimate is lighter (inference), else the workload's estimate is full load.
        let full = c.full_power.as_ref().unwrap_or(&c.power);
        for p in &full.psus {
            // A unit whose low-line rating is unknown on a low-line site (coverage says "not
            // checked"): only a load over even its 230 V rating is a finding.
            let rating_unknown =
                c.r.psus.get(p.index).copied().flatten().is_some_and(|u| u.rating_unknown_at(c.build().site.mains_v));
            if rating_unknown && p.load_fraction <= 1.0 {
                continue;
            }
            let (sev, over_rating, what) = if p.load_fraction > 1.0 {
                (Severity::Error, true, "over its rating: its over-power protection can shut the machine down within milliseconds (ATX 3.x allows more than 100 % only for excursions of at most 100 ms)".to_owned())
            } else if p.load_fraction > PSU_SUSTAINED_GUIDELINE {
                (
                    Severity::Warning,
                    false,
                    format!(
                        "within its rating but over the {:.0} % headroom guideline ({:.0} W)",
                        PSU_SUSTAINED_GUIDELINE * 100.0,
                        p.rated_w * PSU_SUSTAINED_GUIDELINE
                    ),
                )
            } else {
                continue;
            };
            let lighter = c.full_power.as_ref().and_then(|_| c.power.psus.iter().find(|s| s.index == p.index)).map_or(
                String::new(),
                |s| {
                    format!(
                        "; at {} load it carries {:.0} W ({:.1} %)",
                        c.power.state.name(),
                        s.dc_w,
                        s.load_fraction * 100.0
                    )
                },
            );
            out.push(finding(
                &PSU_CAPACITY,
                sev,
                format!(
                    "PSU {} ({}) carries {:.0} W at full load (every GPU at its power limit): {:.1} % of its {:.0} W rating, {what}{lighter}",
                    p.index + 1,
                    p.name,
                    p.dc_w,
                    p.load_fraction * 100.0,
                    p.rated_w,
                ),
                vec![PartRef::Psu(p.index)],
                psu_fix(c, p, over_rating),
            ));
        }
    },
};

/// Rule: GPU transient peaks against the PSU's excursion limits (id and docs in `doc`).
pub(crate) static PSU_TRANSIENT: Rule = Rule {
    doc: RuleDoc {
        id: "psu-transient",
        family: "power",
        severity: Severity::Error,
        title: "GPU transient peaks against the PSU's excursion limits",
        checks: "Estimated peaks at 100 µs, 1 ms, 10 ms and 100 ms (each GPU's power limit times the peak factor for that duration, plus the rest of the system at its sustained draw) against the PSU's excursion limits: the ATX 3.x power-excursion table (one row for units over 450 W with a 12V-2x6 connector, one for others). ATX 2.x and server units publish no excursion tolerance: a 1 ms peak above their rating is a warning. The factors and limits are in the figures.",
        why: "GPUs spike far above their board power for milliseconds (RTX 5090: 901 W under 1 ms on a 575 W card, https://www.slashgear.com/1902896/rtx-5090-how-much-power-can-pull-nvidia-geforce-gpu/ ; RTX A6000: 654 W for 200 µs on 300 W, https://pubs.lenovo.com/sr670/de/gpu_power_braking ); a PSU whose over-current protection trips reboots the machine under training load. ATX 3.x units must ride through the excursion table (Intel ATX 3.0 Multi Rail Desktop Platform Power Supply Design Guide, power excursion section); units without it guarantee only their rating: a 1600 W ATX 2.x unit shut down at 1907 W, 119 % (Corsair AX1600i, https://www.tomshardware.com/uk/reviews/corsair-ax1600i-psu,5406-6.html). On such a unit a 1 ms peak over the rating is a warning, not an error: that shutdown point was found with sustained load, and published rigs on units without an excursion specification ran with an estimated 1 ms system peak of 120-141 % of their rating (2x RTX 3090 on 1000 W, https://github.com/letsRTFM/AI-Workstation/issues/1 ; 4x RTX 3090 at 300 W on 1600 W, https://www.thefpsreview.com/2020/10/22/puget-systems-tests-four-blower-style-geforce-rtx-3090-cards-in-a-single-workstation-1717-watt-peak-power-draw/ ; two RTX 4090 per Corsair RM1000x, https://www.mov-axbx.com/wopr/wopr_power.html), while published cuts at about 118-121 % by their stated parts (tests/fixtures/power-reports/README.md) cannot be told apart from them; how much such a unit tolerates depends on its design (Intel's Stephen Eastman, via https://www.tweaktown.com/news/85717/pcie-5-0-gpus-can-have-power-excursions-use-up-to-1800w-of/index.html , 2022-04-22). Over the rating at full load the psu-capacity rule gives the error.",
        fix: "Choose an ATX 3.x PSU with headroom, lower the GPUs' power limits, or split the GPUs over two PSUs.",
    },
    needs: &[Need::Part(PartKind::Psu), Need::Part(PartKind::Gpu), Need::Figure(Figure::PsuLowLineRating)],
    figures: Some(transient_figures),
    check: |c, out| {
        for p in &c.power.psus {
            let any_limit = p.transients.iter().any(|t| t.limit_w.is_some());
            if !any_limit {
                let Some(t) = p.transients.get(TRANSIENT_1MS) else { continue };
                if t.peak_w > p.rated_w && c.build().gpus.iter().any(|g| g.psu == p.index) {
                    // Server (CRPS) units are specified by their own datasheet (peak-load and
                    // hold-up ratings of the CRPS form factor), not by ATX: no ATX advice.
                    let server =
                        c.r.psus.get(p.index).copied().flatten().is_some_and(|u| u.atx_version == AtxVersion::Server);
                    let fix = if server {
                        format!(
                            "Compare the {:.0} W peak with the peak-load rating in the unit's own datasheet (CRPS units state their own peak and hold-up figures, not ATX 3.x's table); if it publishes none, lower the GPUs' power limits or give the GPUs more PSU capacity.",
                            t.peak_w
                        )
                    } else {
                        "Prefer an ATX 3.x unit, or lower the GPUs' power limits.".to_owned()
                    };
                    out.push(finding(
                        &PSU_TRANSIENT,
                        Severity::Warning,
                        format!(
                            "PSU {} ({}) has no ATX 3.x excursion specification; the system peak on it (GPU transients plus the rest of its load) reaches about {:.0} W for {} against its {:.0} W rating",
                            p.index + 1,
                            p.name,
                            t.peak_w,
                            duration(t.duration_s),
                            p.rated_w
                        ),
                        vec![PartRef::Psu(p.index)],
                        fix,
                    ));
                }
                continue;
            }
            for (k, t) in p.transients.iter().enumerate() {
                let Some(limit) = t.limit_w else { continue };
                if t.peak_w > limit {
                    let short = k < TRANSIENT_1MS;
                    out.push(finding(
                        &PSU_TRANSIENT,
                        if short { Severity::Warning } else { Severity::Error },
                        format!(
                            "PSU {} ({}): estimated {:.0} W peak for {} exceeds its {:.0} W excursion limit",
                            p.index + 1,
                            p.name,
                            t.peak_w,
                            duration(t.duration_s),
                            limit
                        ),
                        vec![PartRef::Psu(p.index)],
                        "Lower the GPUs' power limits or give the GPUs more PSU capacity.",
                    ));
                }
            }
        }
    },
};

/// Rule: multi-PSU splits (id and docs in `doc`).
pub(crate) static MULTI_PSU: Rule = Rule {
    doc: RuleDoc {
        id: "multi-psu",
        family: "power",
        severity: Severity::Error,
        title: "Multi-PSU splits",
        checks: "That every GPU names an existing PSU and exactly one PSU feeds the system; with several PSUs, where each one's load sits.",
        why: "A GPU's slot is powered by the board's PSU and its cables by another: both must switch on together and share ground (add2psu / sync boards); a 7x RTX 4090 rig used four 1000 W PSUs (https://www.mov-axbx.com/wopr/wopr_power.html).",
        fix: "Point each GPU at a PSU (`psu: N`), mark one PSU `feeds_system: true`, and use a sync board.",
    },
    needs: &[Need::Part(PartKind::Psu)],
    figures: None,
    check: |c, out| {
        let b = c.build();
        for (i, g) in b.gpus.iter().enumerate() {
            if !b.psus.is_empty() && g.psu >= b.psus.len() {
                out.push(finding(
                    &MULTI_PSU,
                    Severity::Error,
                    format!(
                        "GPU {} is fed by PSU {} but the build has {} PSU{}",
                        i + 1,
                        g.psu + 1,
                        b.psus.len(),
                        plural(b.psus.len() as u64)
                    ),
                    vec![PartRef::Gpu(i)],
                    "Point it at an existing PSU.",
                ));
            }
        }
        let feeders = b.psus.iter().filter(|p| p.feeds_system == Some(true)).count();
        if feeders > 1 {
            out.push(finding(
                &MULTI_PSU,
                Severity::Error,
                format!("{feeders} PSUs are marked as feeding the system; exactly one powers the board"),
                Vec::new(),
                "Mark one PSU `feeds_system: true`.",
            ));
        }
        if c.power.psus.len() > 1 {
            let split: Vec<String> =
                c.power.psus.iter().map(|p| format!("PSU {} {:.0} W", p.index + 1, p.dc_w)).collect();
            // Server / CRPS supplies sit in the chassis's power distribution board, which
            // switches them together: no add2psu adapter.
            let server = c.r.psus.iter().flatten().all(|p| p.atx_version == kraftwerk_catalog::AtxVersion::Server);
            if server {
                out.push(finding(
                    &MULTI_PSU,
                    Severity::Info,
                    format!(
                        "{} server PSUs: {}; the chassis's power distribution switches them together",
                        c.power.psus.len(),
                        split.join(", ")
                    ),
                    (0..c.power.psus.len()).map(PartRef::Psu).collect(),
                    "Nothing to add: check the chassis's PSU population rules (redundancy) in its manual.",
                ));
                return;
            }
            out.push(finding(
                &MULTI_PSU,
                Severity::Info,
                format!(
                    "{} PSUs: {}; they must switch on together (sync board) and share ground",
                    c.power.psus.len(),
                    split.join(", ")
                ),
                (0..c.power.psus.len()).map(PartRef::Psu).collect(),
                "Use an add2psu / sync adapter and the same circuit phase.",
            ));
        }
    },
};

/// PCIe 8-pin plugs on a 16-pin card's adapter: one per 150 W of its highest power limit, 1..=4
/// per 16-pin socket (NVIDIA ships 4-plug adapters with 450-600 W cards, 2-plug ones with 300 W
/// cards; PCIe CEM 8-pin = 150 W).
pub fn adapter_plugs(gpu: &Gpu) -> u8 {
    let sockets = gpu.inputs().hpwr_16pin.max(1);
    let per_socket = (gpu.max_limit_w() / f64::from(sockets) / PCIE_8PIN_W).ceil();
    let plugs = if per_socket.is_finite() { per_socket.clamp(1.0, 4.0) as u8 } else { 4 };
    plugs * sockets
}

/// How a GPU is actually powered: the cable it uses and what that cable allows, W.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CableUse {
    /// Native 12V-2x6 cables from the PSU.
    pub hpwr_16pin: u8,
    /// PCIe 8-pin cables (direct or into an adapter).
    pub pcie_8pin: u8,
    /// EPS 8-pin cables.
    pub eps_8pin: u8,
    /// PCIe 6-pin cables.
    pub pcie_6pin: u8,
    /// Power the cables allow the card, W (connector only; the 75 W slot is added for 8-pin cards).
    pub allowed_w: f64,
    /// Words for the message.
    pub describe: &'static str,
}

/// The cable a GPU uses: the placement's `cable`, else the PSU's native 12V-2x6 for 16-pin
/// cards (at the PSU's cable class), else the card's adapter on four 8-pins, else its own 8-pin
/// / EPS sockets, at the vendor's own rating of them where it states one
/// ([`GpuPowerInputs::rated_w`](kraftwerk_catalog::GpuPowerInputs::rated_w)), else the connector
/// standards' ratings plus the slot. Unknown inputs count as none (the rule skips such cards).
pub(crate) fn cable_use(gpu: &Gpu, cable: Option<GpuCable>, psu: Option<&Psu>) -> CableUse {
    let inputs = gpu.inputs();
    if inputs.hpwr_16pin > 0 {
        let cable = cable.unwrap_or_else(|| match psu {
            Some(p) if p.connectors.hpwr_16pin.unwrap_or(0) > 0 => GpuCable::Native12V2x6 {
                // Unknown class: the rule does not grade it (coverage reports it not checked).
                class_w: p.connectors.hpwr_class_w.unwrap_or(HPWR_MAX_CLASS_W as u16),
            },
            _ => GpuCable::Adapter { pcie_8pin_connected: adapter_plugs(gpu) },
        });
        return match cable {
            GpuCable::Native12V2x6 { class_w } => CableUse {
                hpwr_16pin: inputs.hpwr_16pin,
                pcie_8pin: 0,
                eps_8pin: 0,
                pcie_6pin: 0,
                allowed_w: f64::from(class_w) * f64::from(inputs.hpwr_16pin),
                describe: "12V-2x6 cable",
            },
            GpuCable::Adapter { pcie_8pin_connected } => CableUse {
                hpwr_16pin: 0,
                pcie_8pin: pcie_8pin_connected,
                eps_8pin: 0,
                pcie_6pin: 0,
                allowed_w: f64::from(pcie_8pin_connected) * PCIE_8PIN_W,
                describe: "16-pin adapter",
            },
        };
    }
    CableUse {
        hpwr_16pin: 0,
        pcie_8pin: inputs.pcie_8pin,
        eps_8pin: inputs.eps_8pin,
        pcie_6pin: inputs.pcie_6pin,
        allowed_w: inputs.rated_w.unwrap_or(
            f64::from(inputs.pcie_8pin) * PCIE_8PIN_W
                + f64::from(inputs.eps_8pin) * EPS_8PIN_W
                + f64::from(inputs.pcie_6pin) * PCIE_6PIN_W
                + PCIE_SLOT_W,
        ),
        describe: match (inputs.eps_8pin, inputs.pcie_8pin + inputs.pcie_6pin, inputs.rated_w.is_some()) {
            (1, _, false) => "EPS 8-pin cable + slot",
            (e, _, false) if e > 1 => "EPS 8-pin cables + slot",
            (0, 0, _) => "slot",
            (_, 1, false) => "PCIe cable + slot",
            (_, _, false) => "PCIe cables + slot",
            (_, _, true) => "power inputs at the vendor's rating",
        },
    }
}

/// Rule: each GPU's power cable carries its power limit (id and docs in `doc`).
pub(crate) static GPU_POWER_CABLE: Rule = Rule {
    doc: RuleDoc {
        id: "gpu-power-cable",
        family: "power",
        severity: Severity::Error,
        title: "Each GPU's power cable carries its power limit",
        checks: "The GPU's power limit against what its cable allows: a 12V-2x6 cable's class from its sense pins (600, 450, 300, 150 W), a 16-pin adapter's 150 W per connected 8-pin, PCIe 8-pin 150 W and EPS (CPU) 8-pin 300 W plus the 75 W slot, or the card vendor's own rating of its inputs where it states one (NVIDIA runs workstation cards of up to 250 W from one PCIe 8-pin). A card whose power connectors nobody published is not checked (never judged as slot-only). A limit outside the card's published range is refused when the build loads; a limit beyond the default board power on a side whose bound nobody published is used as set and reported not checked.",
        why: "Over its class a 12V-2x6 connector overheats and melts; cards read the sense pins and cap themselves, so an RTX 5090 (575 W) on a 450 W cable is starved or unsafe; an RTX 4090 with 3 of its adapter's 4 plugs runs limited to 450 W (NVIDIA, via guru3d; cablester on sense pins; PCIe CEM 5.0). NVIDIA's application note \"Power Guidelines for Workstation Products\" (DA-07261-001, section \"Power Requirements for 250 W Cards with a Single PCIe 8-Pin Connector\"; the RTX A6000's CPU 8-pin option since v08) is the vendor rating used for its workstation cards.",
        fix: "Use a native 600 W 12V-2x6 cable (both sense pins grounded) or connect every adapter plug; else lower the card's power limit to the cable's class.",
    },
    needs: &[
        Need::Part(PartKind::Gpu),
        Need::Part(PartKind::Psu),
        Need::Figure(Figure::PsuHpwrClass),
        Need::Figure(Figure::GpuPowerInputs),
        Need::Figure(Figure::GpuMaxPowerLimit),
        Need::Figure(Figure::GpuMinPowerLimit),
        Need::Figure(Figure::GpuCardUnnamed),
    ],
    figures: None,
    check: |c, out| {
        let b = c.build();
        for (i, (p, g)) in b.gpus.iter().zip(&c.r.gpus).enumerate() {
            let Some(g) = g else { continue };
            // SXM modules take power from the baseboard; unknown inputs, and an owned card
            // named by its chip (its sockets are its card's), are not checked (coverage says so).
            if g.form_factor == kraftwerk_catalog::GpuFormFactor::Sxm || g.power_inputs.is_none() || c.r.card_unnamed(i)
            {
                continue;
            }
            let psu = c.r.psus.get(p.psu).copied().flatten();
            // A native cable whose class nobody published is not checked (coverage says so).
            if p.cable.is_none()
                && g.inputs().hpwr_16pin > 0
                && psu.is_some_and(|u| u.connectors.hpwr_16pin.unwrap_or(0) > 0 && u.connectors.hpwr_class_w.is_none())
            {
                continue;
            }
            let cable = cable_use(g, p.cable, psu);
            let limit = gpu_limit_w(g, p.power_limit_w);
            if limit > cable.allowed_w + 1e-6 {
                out.push(finding(
                    &GPU_POWER_CABLE,
                    Severity::Error,
                    format!(
                        "GPU {} ({}) runs at {limit:.0} W but its {} allows {:.0} W",
                        i + 1,
                        g.name,
                        cable.describe,
                        cable.allowed_w
                    ),
                    vec![PartRef::Gpu(i), PartRef::Psu(p.psu)],
                    format!("Use a cable good for {limit:.0} W or set the power limit to {:.0} W.", cable.allowed_w),
                ));
            } else if g.inputs().hpwr_16pin > 0
                && cable.allowed_w < HPWR_MAX_CLASS_W * f64::from(g.inputs().hpwr_16pin)
                && (p.cable.is_some() || cable.allowed_w < g.max_limit_w())
            {
                out.push(finding(
                    &GPU_POWER_CABLE,
                    Severity::Info,
                    format!(
                        "GPU {} ({}) is limited to {:.0} W by its {}",
                        i + 1,
                        g.name,
                        cable.allowed_w,
                        cable.describe
                    ),
                    vec![PartRef::Gpu(i)],
                    "Fine at this power limit; raising it needs a higher-class cable.",
                ));
            }
        }
    },
};

/// Rule: PSU connector counts (id and docs in `doc`).
pub(crate) static PSU_CONNECTORS: Rule = Rule {
    doc: RuleDoc {
        id: "psu-connectors",
        family: "power",
        severity: Severity::Error,
        title: "PSU connector counts",
        checks: "The 12V-2x6, PCIe 8-pin and EPS 8-pin cables each PSU must supply (its GPUs', and the board's EPS inputs on the system PSU) against what it has.",
        why: "Daisy-chaining one cable to two sockets or using splitters overloads it; datacenter cards (A100, A6000) take an EPS/CPU 8-pin, not a PCIe 8-pin (NVIDIA product briefs).",
        fix: "Choose a PSU with enough native cables, or move GPUs to a second PSU.",
    },
    needs: &[
        Need::Part(PartKind::Psu),
        Need::Figure(Figure::PsuHpwr16pin),
        Need::Figure(Figure::PsuPcie8pin),
        Need::Figure(Figure::PsuEps8pin),
        Need::Figure(Figure::GpuPowerInputs),
        Need::Figure(Figure::GpuCardUnnamed),
    ],
    figures: None,
    check: |c, out| {
        let b = c.build();
        let sys = b.system_psu();
        for (pi, psu) in c.r.psus.iter().enumerate() {
            let Some(psu) = psu else { continue };
            let (mut hpwr, mut pcie, mut eps) = (0u32, 0u32, 0u32);
            for (i, (p, g)) in b.gpus.iter().zip(&c.r.gpus).enumerate() {
                let Some(g) = g else { continue };
                // An owned card named by its chip: its sockets are its card's (not checked).
                if p.psu != pi || g.form_factor == kraftwerk_catalog::GpuFormFactor::Sxm || c.r.card_unnamed(i) {
                    continue;
                }
                let u = cable_use(g, p.cable, Some(psu));
                hpwr += u32::from(u.hpwr_16pin);
                pcie += u32::from(u.pcie_8pin) + u32::from(u.pcie_6pin);
                eps += u32::from(u.eps_8pin);
            }
            let gpu_eps = eps;
            if sys == Some(pi) {
                // An unknown EPS count counts as 1, the least a board takes.
                eps += u32::from(c.r.board.map_or(1, |bd| bd.eps_8pin.unwrap_or(1)));
            }
            let have = psu.connectors;
            // Unknown counts (`None`) are not compared: the coverage reports them as not
            // checked. An unknown native 16-pin count is taken as none (the cards' adapters).
            let short_hpwr = hpwr.saturating_sub(u32::from(have.hpwr_16pin.unwrap_or(0)));
            // Native 16-pin sockets the PSU lacks are fed by the cards' adapters (one 8-pin per
            // 150 W of the card's highest limit).
            let per_adapter = b
                .gpus
                .iter()
                .zip(&c.r.gpus)
                .filter(|(p, g)| p.psu == pi && g.is_some_and(|g| g.inputs().hpwr_16pin > 0))
                .filter_map(|(_, g)| g.map(|g| u32::from(adapter_plugs(g))))
                .max()
                .unwrap_or(4);
            let pcie_need = pcie + short_hpwr * per_adapter;
            let mut missing = Vec::new();
            if let Some(have_pcie) = have.pcie_8pin
                && pcie_need > u32::from(have_pcie)
            {
                missing.push(format!(
                    "{pcie_need} PCIe 8-pin{} (has {have_pcie})",
                    if short_hpwr > 0 {
                        format!(" incl. {short_hpwr} 16-pin adapter{}", plural(short_hpwr))
                    } else {
                        String::new()
                    },
                ));
            }
            // Datacenter and workstation cards ship with an adapter from two PCIe 8-pin plugs to
            // their CPU/EPS 8-pin input (NVIDIA A100 / RTX A6000 product briefs): an EPS
            // shortfall can be met from spare PCIe 8-pins, two for each.
            if let Some(have_eps) = have.eps_8pin {
                let eps_short = eps.saturating_sub(u32::from(have_eps));
                let pcie_spare = have.pcie_8pin.map_or(0, |h| u32::from(h).saturating_sub(pcie_need));
                if eps_short > 0 && eps_short * 2 <= pcie_spare && eps_short <= gpu_eps {
                    out.push(finding(
                        &PSU_CONNECTORS,
                        Severity::Info,
                        format!(
                            "PSU {} ({}) has {have_eps} EPS 8-pin for {eps}: {eps_short} GPU EPS input{} fed through the card's 2x PCIe 8-pin adapter",
                            pi + 1,
                            psu.name,
                            plural(eps_short)
                        ),
                        vec![PartRef::Psu(pi)],
                        "Use the adapter that ships with the card; never a CPU cable split from one plug.",
                    ));
                } else if eps > u32::from(have_eps) {
                    missing.push(format!("{eps} EPS 8-pin (has {have_eps})"));
                }
            }
            if !missing.is_empty() {
                out.push(finding(
                    &PSU_CONNECTORS,
                    Severity::Error,
                    format!("PSU {} ({}) must supply {}", pi + 1, psu.name, missing.join(" and ")),
                    vec![PartRef::Psu(pi)],
                    "Choose a PSU with more cables or split the GPUs over two PSUs.",
                ));
            }
        }
    },
};

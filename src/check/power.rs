//! Power rules: PSU capacity, transients, the wall circuit, the PSU inlet, multi-PSU splits,
//! GPU power cables and PSU connector counts. The numbers come from
//! [`crate::estimate::power`], the same functions `kraftwerk power` prints.

use super::{PartRef, Rule, RuleDoc, Severity, finding};
use crate::build::GpuCable;
use crate::catalog::{Gpu, Psu};
use crate::estimate::power::{PSU_SUSTAINED_GUIDELINE, gpu_limit_w};

/// Power a PCIe 8-pin cable carries, W (PCIe CEM; ATX 3.0 guide).
pub const PCIE_8PIN_W: f64 = 150.0;
/// Power an EPS-12V 8-pin CPU cable carries into a datacenter card, W (NVIDIA A100 product
/// brief: the card's CPU 8-pin input).
pub const EPS_8PIN_W: f64 = 300.0;
/// Power the x16 slot itself supplies, W (PCIe CEM).
pub const PCIE_SLOT_W: f64 = 75.0;
/// Power a 6-pin carries, W.
pub const PCIE_6PIN_W: f64 = 75.0;

/// `psu-capacity`.
pub static PSU_CAPACITY: Rule = Rule {
    doc: RuleDoc {
        id: "psu-capacity",
        family: "power",
        severity: Severity::Error,
        title: "Sustained load against PSU rating",
        checks: "Each PSU's sustained DC load at full load (GPUs at their power limits, CPU at TDP, board, memory, drives, fans) against its rating at the site's voltage: over 100 % is an error, over 80 % a warning.",
        why: "A PSU over its rating shuts down or fails; sustained load above about 80 % shortens its life and leaves no room for spikes (judgement, widely used; Lambda: failures rise as a 1600 W unit nears 1500 W).",
        fix: "Lower the GPUs' power limits (see the advice), add a second PSU for some GPUs, or choose a larger PSU.",
    },
    check: |c, out| {
        for p in &c.power.psus {
            let sev = if p.load_fraction > 1.0 {
                Severity::Error
            } else if p.load_fraction > PSU_SUSTAINED_GUIDELINE {
                Severity::Warning
            } else {
                continue;
            };
            out.push(finding(
                &PSU_CAPACITY,
                sev,
                format!(
                    "PSU {} ({}) carries {:.0} W sustained: {:.1} % of its {:.0} W rating (guideline {:.0} %)",
                    p.index + 1,
                    p.name,
                    p.dc_w,
                    p.load_fraction * 100.0,
                    p.rated_w,
                    PSU_SUSTAINED_GUIDELINE * 100.0
                ),
                vec![PartRef::Psu(p.index)],
                format!("Keep it at or under {:.0} W.", p.rated_w * PSU_SUSTAINED_GUIDELINE),
            ));
        }
    },
};

/// `psu-transient`.
pub static PSU_TRANSIENT: Rule = Rule {
    doc: RuleDoc {
        id: "psu-transient",
        family: "power",
        severity: Severity::Error,
        title: "GPU transient peaks against the PSU's excursion limits",
        checks: "Estimated peaks (GPU limit x 2.2 at 100 µs, 1.57 at 1 ms, 1.28 at 10 ms, 1.09 at 100 ms, plus the rest of the system) against the ATX 3.x power-excursion table: 200/180/160/120 % of rating for units over 450 W with a 12V-2x6 connector, 150/145/135/110 % for others. ATX 2.x and server units have no excursion specification.",
        why: "GPUs spike far above their board power for milliseconds (RTX 5090: 901 W under 1 ms on a 575 W card; RTX A6000: 654 W for 200 µs on 300 W, Lenovo); a PSU whose over-current protection trips reboots the machine under training load (Intel ATX 3.0 PSU design guide).",
        fix: "Choose an ATX 3.x PSU with headroom, lower the GPUs' power limits, or split the GPUs over two PSUs.",
    },
    check: |c, out| {
        for p in &c.power.psus {
            let any_limit = p.transients.iter().any(|t| t.limit_w.is_some());
            if !any_limit {
                let ten_ms = p.transients.get(2).map_or(0.0, |t| t.peak_w);
                if ten_ms > p.rated_w && c.build().gpus.iter().any(|g| g.psu == p.index) {
                    out.push(finding(
                        &PSU_TRANSIENT,
                        Severity::Warning,
                        format!(
                            "PSU {} ({}) has no ATX 3.x excursion specification; GPU peaks reach about {ten_ms:.0} W for 10 ms against its {:.0} W rating",
                            p.index + 1,
                            p.name,
                            p.rated_w
                        ),
                        vec![PartRef::Psu(p.index)],
                        "Prefer an ATX 3.x unit, or lower the GPUs' power limits.",
                    ));
                }
                continue;
            }
            for t in &p.transients {
                let Some(limit) = t.limit_w else { continue };
                if t.peak_w > limit {
                    let us = t.duration_s < 0.5e-3;
                    out.push(finding(
                        &PSU_TRANSIENT,
                        if us { Severity::Warning } else { Severity::Error },
                        format!(
                            "PSU {} ({}): estimated {:.0} W peak for {} exceeds its {:.0} W excursion limit",
                            p.index + 1,
                            p.name,
                            t.peak_w,
                            if us {
                                format!("{:.0} µs", t.duration_s * 1e6)
                            } else {
                                format!("{:.0} ms", t.duration_s * 1e3)
                            },
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

/// `wall-circuit`.
pub static WALL_CIRCUIT: Rule = Rule {
    doc: RuleDoc {
        id: "wall-circuit",
        family: "power",
        severity: Severity::Error,
        title: "Wall draw against the circuit",
        checks: "AC draw of the PSUs on each circuit (DC load through each PSU's efficiency curve) against the breaker (error) and its 80 % continuous limit (warning).",
        why: "A training run is a continuous load: US NEC allows 80 % of the breaker for 3 h+ (15 A at 120 V = 1440 W continuous, 1800 W absolute); over the breaker it trips.",
        fix: "Lower the GPUs' power limits (see the advice), split the PSUs over two circuits, or use a 240 V / 20 A circuit.",
    },
    check: |c, out| {
        let v = c.build().site.mains_v;
        let circuits = c.build().site.circuits.max(1);
        for (i, u) in c.build().psus.iter().enumerate() {
            if u.circuit >= circuits {
                out.push(finding(
                    &WALL_CIRCUIT,
                    Severity::Error,
                    format!(
                        "PSU {} is plugged into circuit {}, but the site has {circuits} circuit(s): its load lands on a circuit already in use",
                        i + 1,
                        u.circuit + 1
                    ),
                    vec![PartRef::Psu(i), PartRef::Circuit(u.circuit)],
                    "Set the site's `circuits` to the independent circuits you really have, or move the PSU.",
                ));
            }
        }
        for ci in &c.power.circuits {
            let sev = if ci.amps > ci.breaker_a {
                Severity::Error
            } else if ci.amps > ci.continuous_a {
                Severity::Warning
            } else {
                continue;
            };
            out.push(finding(
                &WALL_CIRCUIT,
                sev,
                format!(
                    "circuit {} draws {:.0} W = {:.1} A at {v:.0} V: {} ({:.0} A breaker = {:.0} W; continuous {:.1} A = {:.0} W)",
                    ci.index + 1,
                    ci.wall_w,
                    ci.amps,
                    if sev == Severity::Error { "over the breaker" } else { "over the continuous limit" },
                    ci.breaker_a,
                    ci.breaker_w,
                    ci.continuous_a,
                    ci.continuous_w
                ),
                vec![PartRef::Circuit(ci.index)],
                format!("Stay under {:.0} W per circuit.", ci.continuous_w),
            ));
        }
    },
};

/// `psu-inlet`.
pub static PSU_INLET: Rule = Rule {
    doc: RuleDoc {
        id: "psu-inlet",
        family: "power",
        severity: Severity::Error,
        title: "PSU inlet and outlet current",
        checks: "Each PSU's AC current against its inlet's rating (IEC C14: 10 A, 15 A in North America; C20: 16 A, 20 A in North America) and the outlet's continuous rating (Schuko: about 10 A).",
        why: "Over its rating the inlet and cord overheat (IEC 60320; cableleader IEC chart); a Schuko socket is not rated for continuous full load (elektrofachkraft.de).",
        fix: "Lower the load on that PSU, use a C20 unit and cord, or split the load over two PSUs and outlets.",
    },
    check: |c, out| {
        for p in &c.power.psus {
            if p.amps > p.inlet_a {
                out.push(finding(
                    &PSU_INLET,
                    Severity::Error,
                    format!(
                        "PSU {} ({}) draws {:.1} A through an inlet rated {:.0} A",
                        p.index + 1,
                        p.name,
                        p.amps,
                        p.inlet_a
                    ),
                    vec![PartRef::Psu(p.index)],
                    "Use a PSU with a C20 inlet or split its load.",
                ));
            } else if p.amps > p.outlet_a
                && (c.build().site.outlet_continuous_a.is_some() || c.build().site.mains_v >= 180.0)
            {
                out.push(finding(
                    &PSU_INLET,
                    Severity::Warning,
                    format!(
                        "PSU {} ({}) draws {:.1} A from an outlet good for {:.1} A continuous",
                        p.index + 1,
                        p.name,
                        p.amps,
                        p.outlet_a
                    ),
                    vec![PartRef::Psu(p.index)],
                    "Use an outlet rated for the load (IEC 60309 / C19 PDU) or split the load.",
                ));
            }
        }
    },
};

/// `multi-psu`.
pub static MULTI_PSU: Rule = Rule {
    doc: RuleDoc {
        id: "multi-psu",
        family: "power",
        severity: Severity::Error,
        title: "Multi-PSU splits",
        checks: "That every GPU names an existing PSU and exactly one PSU feeds the system; with several PSUs, where each one's load sits.",
        why: "A GPU's slot is powered by the board's PSU and its cables by another: both must switch on together and share ground (add2psu / sync boards); a 7x RTX 4090 rig used four 1000 W PSUs (https://www.mov-axbx.com/wopr/wopr_power.html).",
        fix: "Point each GPU at a PSU (`psu: N`), mark one PSU `feeds_system: true`, and use a sync board.",
    },
    check: |c, out| {
        let b = c.build();
        for (i, g) in b.gpus.iter().enumerate() {
            if !b.psus.is_empty() && g.psu >= b.psus.len() {
                out.push(finding(
                    &MULTI_PSU,
                    Severity::Error,
                    format!("GPU {} is fed by PSU {} but the build has {} PSU(s)", i + 1, g.psu + 1, b.psus.len()),
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
    let per_socket = (gpu.max_limit_w() / f64::from(gpu.power_inputs.hpwr_16pin.max(1)) / PCIE_8PIN_W).ceil();
    let plugs = if per_socket.is_finite() { per_socket.clamp(1.0, 4.0) as u8 } else { 4 };
    plugs * gpu.power_inputs.hpwr_16pin.max(1)
}

/// How a GPU is actually powered: the cable it uses and what that cable allows, W.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CableUse {
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
/// / EPS sockets.
pub fn cable_use(gpu: &Gpu, cable: Option<GpuCable>, psu: Option<&Psu>) -> CableUse {
    let inputs = gpu.power_inputs;
    if inputs.hpwr_16pin > 0 {
        let cable = cable.unwrap_or_else(|| match psu {
            Some(p) if p.connectors.hpwr_16pin.is_some_and(|n| n > 0) => GpuCable::Native12V2x6 {
                class_w: if p.connectors.hpwr_class_w == 0 { 600 } else { p.connectors.hpwr_class_w },
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
        allowed_w: f64::from(inputs.pcie_8pin) * PCIE_8PIN_W
            + f64::from(inputs.eps_8pin) * EPS_8PIN_W
            + f64::from(inputs.pcie_6pin) * PCIE_6PIN_W
            + PCIE_SLOT_W,
        describe: if inputs.eps_8pin > 0 { "EPS 8-pin cable(s) + slot" } else { "PCIe cables + slot" },
    }
}

/// `gpu-power-cable`.
pub static GPU_POWER_CABLE: Rule = Rule {
    doc: RuleDoc {
        id: "gpu-power-cable",
        family: "power",
        severity: Severity::Error,
        title: "Each GPU's power cable carries its power limit",
        checks: "The GPU's power limit against what its cable allows: a 12V-2x6 cable's class from its sense pins (600, 450, 300, 150 W), a 16-pin adapter's 150 W per connected 8-pin, PCIe 8-pin 150 W and EPS 8-pin 300 W plus the 75 W slot.",
        why: "Over its class a 12V-2x6 connector overheats and melts; cards read the sense pins and cap themselves, so an RTX 5090 (575 W) on a 450 W cable is starved or unsafe; an RTX 4090 with 3 of its adapter's 4 plugs runs limited to 450 W (NVIDIA, via guru3d; cablester on sense pins; PCIe CEM 5.0).",
        fix: "Use a native 600 W 12V-2x6 cable (both sense pins grounded) or connect every adapter plug; else lower the card's power limit to the cable's class.",
    },
    check: |c, out| {
        let b = c.build();
        for (i, (p, g)) in b.gpus.iter().zip(&c.r.gpus).enumerate() {
            let Some(g) = g else { continue };
            if g.form_factor == crate::catalog::GpuFormFactor::Sxm {
                continue;
            }
            let psu = c.r.psus.get(p.psu).copied().flatten();
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
            } else if g.power_inputs.hpwr_16pin > 0
                && cable.allowed_w < 600.0 * f64::from(g.power_inputs.hpwr_16pin)
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

/// A PSU's known connector counts.
#[derive(Clone, Copy)]
struct Counts {
    hpwr_16pin: u8,
    pcie_8pin: u8,
    eps_8pin: u8,
}

/// `psu-connectors`.
pub static PSU_CONNECTORS: Rule = Rule {
    doc: RuleDoc {
        id: "psu-connectors",
        family: "power",
        severity: Severity::Error,
        title: "PSU connector counts",
        checks: "The 12V-2x6, PCIe 8-pin and EPS 8-pin cables each PSU must supply (its GPUs', and the board's EPS inputs on the system PSU) against what it has.",
        why: "Daisy-chaining one cable to two sockets or using splitters overloads it; datacenter cards (A100, A6000) take an EPS/CPU 8-pin, not a PCIe 8-pin (NVIDIA product briefs).",
        fix: "Choose a PSU with enough native cables, or move GPUs to a second PSU.",
    },
    check: |c, out| {
        let b = c.build();
        let sys = b.system_psu();
        for (pi, psu) in c.r.psus.iter().enumerate() {
            let Some(psu) = psu else { continue };
            let (mut hpwr, mut pcie, mut eps) = (0u32, 0u32, 0u32);
            for (p, g) in b.gpus.iter().zip(&c.r.gpus) {
                let Some(g) = g else { continue };
                if p.psu != pi || g.form_factor == crate::catalog::GpuFormFactor::Sxm {
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
            // Connector counts the source does not give: this PSU is not checked.
            let k = psu.connectors;
            let (Some(hpwr_16pin), Some(pcie_8pin), Some(eps_8pin)) = (k.hpwr_16pin, k.pcie_8pin, k.eps_8pin) else {
                continue;
            };
            let have = Counts { hpwr_16pin, pcie_8pin, eps_8pin };
            // Native 16-pin sockets the PSU lacks are fed by the cards' adapters (one 8-pin per
            // 150 W of the card's highest limit).
            let short_hpwr = hpwr.saturating_sub(u32::from(have.hpwr_16pin));
            let per_adapter = b
                .gpus
                .iter()
                .zip(&c.r.gpus)
                .filter(|(p, g)| p.psu == pi && g.is_some_and(|g| g.power_inputs.hpwr_16pin > 0))
                .filter_map(|(_, g)| g.map(|g| u32::from(adapter_plugs(g))))
                .max()
                .unwrap_or(4);
            let pcie_need = pcie + short_hpwr * per_adapter;
            let mut missing = Vec::new();
            if pcie_need > u32::from(have.pcie_8pin) {
                missing.push(format!(
                    "{pcie_need} PCIe 8-pin{} (has {})",
                    if short_hpwr > 0 { format!(" incl. {short_hpwr} 16-pin adapter(s)") } else { String::new() },
                    have.pcie_8pin
                ));
            }
            // Datacenter and workstation cards ship with an adapter from two PCIe 8-pin plugs to
            // their CPU/EPS 8-pin input (NVIDIA A100 / RTX A6000 product briefs): an EPS
            // shortfall can be met from spare PCIe 8-pins, two for each.
            let eps_short = eps.saturating_sub(u32::from(have.eps_8pin));
            let pcie_spare = u32::from(have.pcie_8pin).saturating_sub(pcie_need);
            if eps_short > 0 && eps_short * 2 <= pcie_spare && eps_short <= gpu_eps {
                out.push(finding(
                    &PSU_CONNECTORS,
                    Severity::Info,
                    format!(
                        "PSU {} ({}) has {} EPS 8-pin for {eps}: {eps_short} GPU EPS input(s) fed through the card's 2x PCIe 8-pin adapter",
                        pi + 1,
                        psu.name,
                        have.eps_8pin
                    ),
                    vec![PartRef::Psu(pi)],
                    "Use the adapter that ships with the card; never a CPU cable split from one plug.",
                ));
            } else if eps > u32::from(have.eps_8pin) {
                missing.push(format!("{eps} EPS 8-pin (has {})", have.eps_8pin));
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

//! Platform rules: what must be chosen, socket, memory, case form factor, CPU cooler, GPU mix,
//! system RAM.

use super::coverage::{BUILD_PARTS, Figure, Need, chosen, required};
use super::{Ctx, Finding, PartRef, Rule, RuleDoc, Severity, finding, plural};
use kraftwerk_catalog::PartKind;
use kraftwerk_catalog::{CoolerType, CoolerVerdictClass};

/// Rule: parts the checks need (id and docs in `doc`).
pub(crate) static MISSING_PARTS: Rule = Rule {
    doc: RuleDoc {
        id: "missing-parts",
        family: "platform",
        severity: Severity::Error,
        title: "Parts the checks need",
        checks: "That the build names a CPU, motherboard, memory, case, PSU, CPU cooler and at least one GPU, and that every id it names exists. A build without one of them except the cooler is INCOMPLETE, not a pass (server chassis cool the CPU themselves).",
        why: "Each rule can only check what is chosen; a build without a PSU has no power check at all. An unknown id means a typo or a part from another catalog.",
        fix: "Choose the missing parts, or fix the id (see `kraftwerk catalog`).",
    },
    needs: &[],
    figures: None,
    check: |c: &Ctx<'_>, out: &mut Vec<Finding>| {
        let missing: Vec<PartKind> = BUILD_PARTS.into_iter().filter(|&k| !chosen(k, c)).collect();
        let nothing = missing.len() == BUILD_PARTS.len() && c.build().storage.is_empty();
        if !missing.is_empty() && !nothing {
            let skipped: Vec<&str> = super::RULES
                .iter()
                .filter(|r| r.needs.iter().any(|n| matches!(n, Need::Part(k) if missing.contains(k))))
                .map(|r| r.doc.id)
                .collect();
            let names: Vec<&str> = missing.iter().map(|k| k.name()).collect();
            let incomplete = missing.iter().any(|&k| required(k));
            out.push(finding(
                &MISSING_PARTS,
                Severity::Info,
                format!(
                    "not chosen yet: {}; the checks that need them are skipped ({} check{}: {}){}",
                    names.join(", "),
                    skipped.len(),
                    plural(skipped.len() as u64),
                    skipped.join(", "),
                    if incomplete { "; the build is INCOMPLETE" } else { "" }
                ),
                Vec::new(),
                "Choose the parts to check them.",
            ));
        }
        for (field, id) in &c.unknown_ids {
            out.push(finding(
                &MISSING_PARTS,
                Severity::Error,
                format!("`{field}` names unknown part `{id}`"),
                Vec::new(),
                "Use an id from `kraftwerk catalog`, or define the part in the build's `parts`.",
            ));
        }
    },
};

/// Rule: CPU socket matches the motherboard (id and docs in `doc`).
pub(crate) static CPU_SOCKET: Rule = Rule {
    doc: RuleDoc {
        id: "cpu-socket",
        family: "platform",
        severity: Severity::Error,
        title: "CPU socket and chipset match the motherboard",
        checks: "The CPU's socket against the motherboard's socket; on sockets that two CPU families share, the CPU's family against the board's chipset (LGA2066: X299 takes Core X only; sTR5: WRX90 takes Threadripper PRO only; LGA4677: W790 takes Xeon W only); and on a board with two CPU sockets, that the CPU runs in a two-socket board (a build lists one CPU model for every socket).",
        why: "A CPU only fits a board of its socket (sTR5, SP5, AM5, LGA1700, ...; vendor spec pages), and a shared socket does not make the families interchangeable: X299 supports Skylake-X/Kaby Lake-X/Cascade Lake-X Core processors (Puget Systems, https://www.pugetsystems.com/labs/articles/X299-vs-X99-What-is-the-Difference-979/), the Xeon W-2100/W-2200 need C422; Threadripper 7000 (non-PRO) works only on TRX50 (OCWorks, https://blog.ocworks.com/archives/52175237); W790 is the platform of the Xeon W-2400/W-3400 (Hardware & Co, https://www.hwcooling.net/en/return-of-intels-hedt-w790-xeon-w-2400-and-w-3400-processors/), 4th/5th gen Xeon Scalable use C741. A single-socket part (Core i7, Xeon E5-1600, EPYC ...P) has no link to a second CPU, so a dual-socket board needs two-socket parts such as the Xeon E5-2600 or an EPYC without the P suffix (the vendors' model numbering, see `Cpu::max_sockets_known`).",
        fix: "Choose a CPU and board of the same socket, and on a shared socket a board whose chipset takes the CPU's family.",
    },
    needs: &[Need::Part(PartKind::Cpu), Need::Part(PartKind::Motherboard), Need::Figure(Figure::CpuMaxSockets)],
    figures: None,
    check: |c, out| {
        if let (Some(cpu), Some(b)) = (c.r.cpu, c.r.board)
            && cpu.socket == b.socket
            && b.cpu_sockets > 1
            && let Some(n) = cpu.max_sockets_known()
            && n < b.cpu_sockets
        {
            out.push(finding(
                &CPU_SOCKET,
                Severity::Error,
                format!(
                    "{} runs in {}, but {} {} has {} CPU sockets (the build takes one {} per socket)",
                    cpu.name,
                    if n <= 1 {
                        "single-socket boards only".to_owned()
                    } else {
                        format!("boards of up to {n} sockets")
                    },
                    b.vendor,
                    b.name,
                    b.cpu_sockets,
                    cpu.name
                ),
                vec![PartRef::Cpu, PartRef::Motherboard],
                format!(
                    "Choose a CPU that runs in {} sockets{} or a single-socket board.",
                    b.cpu_sockets,
                    match (b.socket.as_str(), b.cpu_sockets) {
                        ("LGA2011-3", 2) => " (a Xeon E5-2600 v3/v4)",
                        ("LGA2011-3", _) => " (a Xeon E5-4600 v3/v4)",
                        ("SP3" | "SP5", 2) => " (an EPYC without the P suffix)",
                        _ => "",
                    }
                ),
            ));
        }
        if let (Some(cpu), Some(b)) = (c.r.cpu, c.r.board)
            && cpu.socket != b.socket
        {
            out.push(finding(
                &CPU_SOCKET,
                Severity::Error,
                format!("{} is {} but {} {} is {}", cpu.name, cpu.socket, b.vendor, b.name, b.socket),
                vec![PartRef::Cpu, PartRef::Motherboard],
                format!("Choose a {} CPU or a {} board.", b.socket, cpu.socket),
            ));
        } else if let (Some(cpu), Some(b)) = (c.r.cpu, c.r.board)
            && let Some(rule) = chipset_refusing(&b.socket, &b.chipset, &cpu.name)
        {
            out.push(finding(
                &CPU_SOCKET,
                Severity::Error,
                format!(
                    "{} fits the {} socket, but the {} chipset of {} {} takes {}",
                    cpu.name, b.socket, rule.chipset, b.vendor, b.name, rule.family
                ),
                vec![PartRef::Cpu, PartRef::Motherboard],
                rule.fix.to_owned(),
            ));
        }
    },
};

/// The entry of [`SHARED_SOCKET_CHIPSETS`] under which a board of `socket` and `chipset` does not
/// take the CPU named `cpu_name`; `None` when it takes it or no entry applies (different
/// sockets are the socket check's business).
fn chipset_refusing(socket: &str, chipset: &str, cpu_name: &str) -> Option<&'static ChipsetFamily> {
    SHARED_SOCKET_CHIPSETS
        .iter()
        .find(|r| r.socket == socket && r.chipset.eq_ignore_ascii_case(chipset.trim()) && !(r.takes)(cpu_name))
}

/// Whether a CPU that runs in at most `cpu_max_sockets` sockets of one board
/// (`Cpu::max_sockets_known`; `None`: not known) may be each CPU of a board with
/// `board_sockets` sockets: any CPU on a single-socket board; on a multi-socket board only one
/// known to run in that many (the `cpu-socket` rule's third check; unknown there is "not
/// checked", which a search does not propose).
pub fn cpu_fills_sockets(cpu_max_sockets: Option<u8>, board_sockets: u8) -> bool {
    board_sockets <= 1 || cpu_max_sockets.is_some_and(|n| n >= board_sockets)
}

/// Whether a CPU named `cpu_name` of socket `cpu_socket` runs on a board of `socket` and
/// `chipset`: the same socket, and on sockets two CPU families share, a chipset that takes the
/// CPU's family (the `cpu-socket` rule's two checks, for searches that pick CPUs for a board).
pub fn cpu_runs_on_board(cpu_socket: &str, cpu_name: &str, socket: &str, chipset: &str) -> bool {
    cpu_socket == socket && chipset_refusing(socket, chipset, cpu_name).is_none()
}

/// A chipset of a socket that two CPU families share, and the family it takes (sources in the
/// `cpu-socket` rule's `why`).
struct ChipsetFamily {
    /// Socket, as the catalog writes it.
    socket: &'static str,
    /// Chipset, as the catalog writes it (compared without case).
    chipset: &'static str,
    /// Whether a CPU of this name is of the family the chipset takes.
    takes: fn(&str) -> bool,
    /// The family, for the message.
    family: &'static str,
    /// What to choose instead.
    fix: &'static str,
}

/// Shared sockets where the chipset decides which family runs: a board of one of these chipsets
/// with a CPU of the other family is an error.
const SHARED_SOCKET_CHIPSETS: &[ChipsetFamily] = &[
    ChipsetFamily {
        socket: "LGA2066",
        chipset: "X299",
        takes: |name| !name.contains("Xeon"),
        family: "Core X-series processors only (the Xeon W-2100/W-2200 need a C422 board)",
        fix: "Choose a Core X-series CPU, or a C422 board for the Xeon W.",
    },
    ChipsetFamily {
        socket: "sTR5",
        chipset: "WRX90",
        // "PRO" in the name, or a WX model number: every sTR5 PRO is a ...WX and every other
        // Threadripper a ...X (an OpenDB entry names the PRO 9985WX without "PRO").
        takes: |name| {
            name.split_whitespace().any(|w| {
                w.eq_ignore_ascii_case("pro")
                    || (w.starts_with(|c: char| c.is_ascii_digit()) && w.to_ascii_uppercase().ends_with("WX"))
            })
        },
        family: "Threadripper PRO only (Threadripper 7000/9000 without PRO need a TRX50 board)",
        fix: "Choose a Threadripper PRO, or a TRX50 board for this Threadripper.",
    },
    ChipsetFamily {
        socket: "LGA4677",
        chipset: "W790",
        takes: |name| {
            name.split_whitespace()
                .any(|w| w.len() > 3 && (w.starts_with('w') || w.starts_with('W')) && w.as_bytes()[1].is_ascii_digit())
        },
        family: "Xeon W (w3/w5/w7/w9) only (4th/5th gen Xeon Scalable need a C741 board)",
        fix: "Choose a Xeon W-2400/W-3400, or a C741 board for the Xeon Scalable.",
    },
];

/// Rule: memory type matches board and CPU (id and docs in `doc`).
pub(crate) static MEMORY_TYPE: Rule = Rule {
    doc: RuleDoc {
        id: "memory-type",
        family: "platform",
        severity: Severity::Error,
        title: "Memory type matches board and CPU",
        checks: "The memory kit's type (DDR4/DDR5, UDIMM/RDIMM) against the board's and the CPU's.",
        why: "DDR4 and DDR5 are keyed differently; RDIMMs do not work in UDIMM boards and vice versa (JEDEC module standards; board QVLs).",
        fix: "Choose a kit of the board's memory type.",
    },
    needs: &[Need::Part(PartKind::Memory), Need::Part(PartKind::Motherboard), Need::Part(PartKind::Cpu)],
    figures: None,
    check: |c, out| {
        let Some((kit, _)) = c.r.memory else { return };
        if let Some(b) = c.r.board
            && kit.memory_type != b.memory_type
        {
            out.push(finding(
                &MEMORY_TYPE,
                Severity::Error,
                format!("{} is {} but {} takes {}", kit.name, kit.memory_type, b.name, b.memory_type),
                vec![PartRef::Memory, PartRef::Motherboard],
                format!("Choose a {} kit.", b.memory_type),
            ));
        }
        if let Some(cpu) = c.r.cpu
            && !cpu.memory_types.contains(&kit.memory_type)
        {
            out.push(finding(
                &MEMORY_TYPE,
                Severity::Error,
                format!("{} does not support {}", cpu.name, kit.memory_type),
                vec![PartRef::Memory, PartRef::Cpu],
                "Choose a kit the CPU supports.",
            ));
        }
    },
};

/// Rule: DIMM count against slots and channels (id and docs in `doc`).
pub(crate) static MEMORY_POPULATION: Rule = Rule {
    doc: RuleDoc {
        id: "memory-population",
        family: "platform",
        severity: Severity::Error,
        title: "DIMM count against slots and channels",
        checks: "Modules against the board's DIMM slots, and against its memory channels (fewer modules than channels, or a count that is not a multiple of the channels and does not fill every slot).",
        why: "More modules than slots do not fit. Fewer modules than channels leaves channels empty: memory bandwidth drops by that share, which slows CPU offload and data loading (each DDR5 channel adds its full bandwidth). A count that is not a multiple of the channels leaves channels with unequal memory: the memory controller interleaves evenly only over the part every channel holds.",
        fix: "Use one module per channel (or a multiple of the channel count), no more than the board has slots.",
    },
    needs: &[Need::Part(PartKind::Memory), Need::Part(PartKind::Motherboard)],
    figures: None,
    check: |c, out| {
        let (Some((kit, kits)), Some(b)) = (c.r.memory, c.r.board) else { return };
        let modules = u32::from(kit.modules) * u32::from(kits);
        let channels = (u32::from(b.memory_channels) * u32::from(b.cpu_sockets.max(1))).max(1);
        if modules > u32::from(b.memory_slots) {
            out.push(finding(
                &MEMORY_POPULATION,
                Severity::Error,
                format!("{modules} modules for {} DIMM slots", b.memory_slots),
                vec![PartRef::Memory, PartRef::Motherboard],
                format!("Use at most {} modules.", b.memory_slots),
            ));
        } else if modules < u32::from(b.memory_channels) {
            out.push(finding(
                &MEMORY_POPULATION,
                Severity::Warning,
                format!(
                    "{modules} modules populate {modules} of {} memory channels: {:.0} % of the memory bandwidth",
                    b.memory_channels,
                    f64::from(modules) / f64::from(b.memory_channels) * 100.0
                ),
                vec![PartRef::Memory, PartRef::Motherboard],
                format!("Use {} modules (one per channel).", b.memory_channels),
            ));
        } else if !modules.is_multiple_of(channels) && modules != u32::from(b.memory_slots) {
            // Each socket's CPU has `memory_channels` channels; the modules spread over all.
            let (lower, upper) = ((modules / channels) * channels, modules.div_ceil(channels) * channels);
            out.push(finding(
                &MEMORY_POPULATION,
                Severity::Warning,
                format!(
                    "{modules} modules on {channels} memory channels: not a multiple of the channel count, so the channels hold unequal memory and only part of it interleaves over every channel"
                ),
                vec![PartRef::Memory, PartRef::Motherboard],
                if lower > 0 && lower != upper && upper <= u32::from(b.memory_slots) {
                    format!("Use {lower} or {upper} modules (a multiple of {channels}).")
                } else {
                    format!("Use a multiple of {channels} modules.")
                },
            ));
        }
    },
};

/// Rule: memory capacity within the board's and CPU's maximum (id and docs in `doc`).
pub(crate) static MEMORY_CAPACITY: Rule = Rule {
    doc: RuleDoc {
        id: "memory-capacity",
        family: "platform",
        severity: Severity::Error,
        title: "Memory capacity within the board's and CPU's maximum",
        checks: "Total memory against the board's and the CPU's published maximum.",
        why: "Beyond the maximum the system does not train memory or does not see it (vendor spec pages).",
        fix: "Use smaller modules or fewer of them.",
    },
    needs: &[
        Need::Part(PartKind::Memory),
        Need::Part(PartKind::Motherboard),
        Need::Part(PartKind::Cpu),
        Need::Figure(Figure::BoardMaxMemory),
        Need::Figure(Figure::CpuMaxMemory),
    ],
    figures: None,
    check: |c, out| {
        let Some((kit, kits)) = c.r.memory else { return };
        let total = kit.total_gb() * u32::from(kits);
        let limits = [
            c.r.board.and_then(|b| b.max_memory_gb.map(|m| (m, b.name.clone(), PartRef::Motherboard))),
            c.r.cpu.and_then(|p| {
                // Each socket of a multi-socket board brings its CPU's maximum.
                let sockets = u32::from(c.r.board.map_or(1, |b| b.cpu_sockets.max(1)));
                p.max_memory_gb.map(|m| (m * sockets, p.name.clone(), PartRef::Cpu))
            }),
        ];
        for (max, name, part) in limits.into_iter().flatten() {
            if total > max {
                out.push(finding(
                    &MEMORY_CAPACITY,
                    Severity::Error,
                    format!("{total} GB of memory exceeds the {max} GB maximum of {name}"),
                    vec![PartRef::Memory, part],
                    format!("Stay at or under {max} GB."),
                ));
            }
        }
    },
};

/// Rule: motherboard fits the case (id and docs in `doc`).
pub(crate) static CASE_FORM_FACTOR: Rule = Rule {
    doc: RuleDoc {
        id: "case-form-factor",
        family: "platform",
        severity: Severity::Error,
        title: "Motherboard fits the case",
        checks: "The board's form factor against the form factors the case takes.",
        why: "An SSI-EEB board (305 x 330 mm) does not mount in an ATX case; standoff positions differ (ATX and SSI specifications).",
        fix: "Choose a case that lists the board's form factor.",
    },
    needs: &[Need::Part(PartKind::Motherboard), Need::Part(PartKind::Case)],
    figures: None,
    check: |c, out| {
        if let (Some(b), Some(case)) = (c.r.board, c.r.case)
            && !case.form_factors.contains(&b.form_factor)
        {
            let takes: Vec<String> = case.form_factors.iter().map(ToString::to_string).collect();
            out.push(finding(
                &CASE_FORM_FACTOR,
                Severity::Error,
                format!("{} is {} but {} takes {}", b.name, b.form_factor, case.name, takes.join(", ")),
                vec![PartRef::Motherboard, PartRef::Case],
                format!("Choose a case that takes {}.", b.form_factor),
            ));
        }
    },
};

/// Rule: CPU cooler mounts on the socket (id and docs in `doc`).
pub(crate) static COOLER_SOCKET: Rule = Rule {
    doc: RuleDoc {
        id: "cooler-socket",
        family: "platform",
        severity: Severity::Error,
        title: "CPU cooler mounts on the socket",
        checks: "The cooler's supported sockets against the CPU's socket.",
        why: "Mounting hardware is socket-specific; sTR5/SP5 need their own large cold plates (vendor compatibility lists).",
        fix: "Choose a cooler that lists the CPU's socket.",
    },
    needs: &[Need::Part(PartKind::Cooler), Need::Part(PartKind::Cpu)],
    figures: None,
    check: |c, out| {
        if let (Some(cool), Some(cpu)) = (c.r.cooler, c.r.cpu)
            && !cool.sockets.iter().any(|s| s == &cpu.socket)
        {
            out.push(finding(
                &COOLER_SOCKET,
                Severity::Error,
                format!("{} mounts on {} but the CPU is {}", cool.name, cool.sockets.join("/"), cpu.socket),
                vec![PartRef::Cooler, PartRef::Cpu],
                format!("Choose a {} cooler.", cpu.socket),
            ));
        }
    },
};

/// Rule: CPU cooler fits the case (id and docs in `doc`).
pub(crate) static COOLER_CLEARANCE: Rule = Rule {
    doc: RuleDoc {
        id: "cooler-clearance",
        family: "platform",
        severity: Severity::Error,
        title: "CPU cooler fits the case",
        checks: "An air cooler's height against the case's maximum; an AIO's radiator against the case's largest radiator mount.",
        why: "A cooler taller than the case's clearance keeps the side panel from closing; a radiator with no mount cannot be installed (case spec pages).",
        fix: "Choose a lower cooler, a smaller radiator, or a larger case.",
    },
    needs: &[
        Need::Part(PartKind::Cooler),
        Need::Part(PartKind::Case),
        Need::Figure(Figure::CoolerHeight),
        Need::Figure(Figure::CaseMaxCoolerHeight),
        Need::Figure(Figure::CoolerRadiator),
        Need::Figure(Figure::CaseMaxRadiator),
    ],
    figures: None,
    check: |c, out| {
        let (Some(cool), Some(case)) = (c.r.cooler, c.r.case) else { return };
        match cool.cooler_type {
            CoolerType::Air => {
                if let (Some(h), Some(max)) = (cool.height_mm, case.max_cooler_height_mm)
                    && h > max
                {
                    out.push(finding(
                        &COOLER_CLEARANCE,
                        Severity::Error,
                        format!("{} is {h:.0} mm tall; {} fits {max:.0} mm", cool.name, case.name),
                        vec![PartRef::Cooler, PartRef::Case],
                        "Choose a cooler at most that tall, or an AIO.",
                    ));
                }
            }
            CoolerType::Aio => {
                if let (Some(r), Some(max)) = (cool.radiator_mm, case.max_radiator_mm)
                    && r > max
                {
                    out.push(finding(
                        &COOLER_CLEARANCE,
                        Severity::Error,
                        format!("{} has a {r} mm radiator; {} mounts at most {max} mm", cool.name, case.name),
                        vec![PartRef::Cooler, PartRef::Case],
                        "Choose a smaller radiator or a larger case.",
                    ));
                }
            }
        }
    },
};

/// Rule: CPU cooler rated for the CPU's power (id and docs in `doc`).
pub(crate) static COOLER_TDP: Rule = Rule {
    doc: RuleDoc {
        id: "cooler-tdp",
        family: "platform",
        severity: Severity::Warning,
        title: "CPU cooler rated for the CPU's power",
        checks: "The cooler's rated TDP against the CPU's package power limit (AMD PPT / Intel PL2), else its TDP; for a cooler whose maker rates cooler-CPU pairs instead of publishing a TDP (Noctua), the maker's published verdict for this CPU.",
        why: "A CPU sustains its package power under all-core load; an undersized cooler makes it throttle (vendor TDP ratings; AMD PPT = 1.35 x TDP on AM5).",
        fix: "Choose a cooler rated at least for the CPU's package power.",
    },
    needs: &[
        Need::Part(PartKind::Cooler),
        Need::Part(PartKind::Cpu),
        Need::Figure(Figure::CoolerRatedTdp),
        Need::Figure(Figure::CpuPackagePower),
    ],
    figures: None,
    check: |c, out| {
        let (Some(cool), Some(cpu)) = (c.r.cooler, c.r.cpu) else { return };
        let Some(rated) = cool.rated_tdp_w else {
            // No TDP figure: the maker's own verdict on this pair, where one is entered
            // (never a watt figure derived from a performance score).
            if let Some(v) = cool.verdict_for(&cpu.id)
                && v.verdict == CoolerVerdictClass::NotRecommended
            {
                out.push(finding(
                    &COOLER_TDP,
                    Severity::Warning,
                    format!("{} does not recommend the {} for the {} ({})", cool.vendor, cool.name, cpu.name, v.source),
                    vec![PartRef::Cooler, PartRef::Cpu],
                    format!("Choose a cooler its maker rates suitable for the {}.", cpu.name),
                ));
            }
            return;
        };
        let need = cpu.package_power_w.unwrap_or(cpu.tdp_w);
        if rated < need {
            out.push(finding(
                &COOLER_TDP,
                Severity::Warning,
                format!("{} is rated for {rated:.0} W; {} draws up to {need:.0} W", cool.name, cpu.name),
                vec![PartRef::Cooler, PartRef::Cpu],
                format!("Choose a cooler rated for at least {need:.0} W."),
            ));
        }
    },
};

/// Rule: mixed GPU models (id and docs in `doc`).
pub(crate) static MIXED_GPUS: Rule = Rule {
    doc: RuleDoc {
        id: "mixed-gpus",
        family: "platform",
        severity: Severity::Warning,
        title: "Mixed GPU models",
        checks: "Whether the build mixes GPU models.",
        why: "Tensor parallel and data parallel run at the pace of the slowest card and are limited by the smallest memory; NVLink bridges only join identical cards.",
        fix: "Use one GPU model, or plan for layer splits that weight cards by their memory.",
    },
    needs: &[Need::Part(PartKind::Gpu)],
    figures: None,
    check: |c, out| {
        let mut names: Vec<&str> = c.r.gpus.iter().flatten().map(|g| g.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() > 1 {
            out.push(finding(
                &MIXED_GPUS,
                Severity::Warning,
                format!("{} GPU models: {}", names.len(), names.join(", ")),
                (0..c.r.gpus.len()).map(PartRef::Gpu).collect(),
                "Use one GPU model for tensor parallelism.",
            ));
        }
    },
};

/// System RAM the `system-ram` rule asks for beside `vram_gib` of GPU memory, GB (kits count
/// binary GB, as the rule compares them): twice the VRAM, rounded up to 64 GB (Puget Systems'
/// recommendation, see the rule's `why`). The planner sizes its memory by it, so that `check`
/// on a planned build does not ask for more.
pub fn system_ram_wanted_gb(vram_gib: f64) -> f64 {
    (vram_gib * 2.0 / 64.0).ceil() * 64.0
}

/// Rule: system RAM against total VRAM (id and docs in `doc`).
pub(crate) static SYSTEM_RAM: Rule = Rule {
    doc: RuleDoc {
        id: "system-ram",
        family: "platform",
        severity: Severity::Warning,
        title: "System RAM against total VRAM",
        checks: "Installed system memory against the sum of the GPUs' memory.",
        why: "Model weights pass through host memory when loading (and checkpoints when saving); with less RAM than VRAM loads swap or fail. Puget Systems recommends at least twice the total GPU memory (https://www.pugetsystems.com/solutions/ai-and-hpc-workstations/machine-learning-ai/hardware-recommendations/).",
        fix: "Install at least as much RAM as total VRAM, ideally twice.",
    },
    needs: &[Need::Part(PartKind::Memory), Need::Part(PartKind::Gpu)],
    figures: None,
    check: |c, out| {
        let Some((kit, kits)) = c.r.memory else { return };
        let ram_gb = f64::from(kit.total_gb() * u32::from(kits));
        let vram_gib: f64 = c.r.gpus.iter().flatten().map(|g| g.memory_gib).sum();
        // RAM kits are sold in GB of 2^30 bytes as well (a "32 GB" DIMM holds 32 GiB).
        if vram_gib == 0.0 {
            return;
        }
        let (sev, what) = if ram_gb < vram_gib {
            (Severity::Warning, "less than")
        } else if ram_gb < 2.0 * vram_gib {
            (Severity::Info, "under twice")
        } else {
            return;
        };
        out.push(finding(
            &SYSTEM_RAM,
            sev,
            format!("{ram_gb:.0} GB of RAM is {what} the {vram_gib:.0} GB of total VRAM"),
            vec![PartRef::Memory],
            format!("Install at least {:.0} GB.", system_ram_wanted_gb(vram_gib)),
        ));
    },
};

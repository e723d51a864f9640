//! System RAM of a build as the LLM estimates read it: the speed it runs at ([`RamSpeed`]: the
//! kit's rating capped by the CPU's, or the speed the build file states it runs at), its theoretical bandwidth, installed capacity, and the
//! host-offload decode with every routed expert in RAM. Figures come from the catalog's kit and
//! CPU entries (vendor spec pages cited there); unknown figures stay `None`.

use super::super::llm::{self, GpuSlot, search};
use crate::rig::Resolved;
use kraftwerk_catalog::MemoryType;
use serde::Serialize;

/// The speed a build's system memory runs at, MT/s, and why: the lowest of the kit's rating
/// and the CPU's rated speed for the build's DIMMs per channel ([`kraftwerk_catalog::RatedMemorySpeed`]).
/// A board's rated memory speed is not in the catalog, so it does not enter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RamSpeed {
    /// The data rate used, MT/s.
    pub mt_s: u32,
    /// The kit's rated data rate, MT/s.
    pub kit_mt_s: u32,
    /// The CPU's rated data rate for this many DIMMs per channel, MT/s (an upper bound where
    /// the vendor gives one figure and the build has two DIMMs per channel); `None`: unknown.
    pub cpu_rated_mt_s: Option<u32>,
    /// DIMMs per populated channel (modules per socket over the CPU's channels, rounded up).
    pub dimms_per_channel: u32,
    /// The basis in words ("the CPU's rated speed (DDR4-2666, Intel ARK's one figure) below the
    /// kit's 4800"; "the kit's rating, unverified: the CPU's rated speed is not in the catalog").
    pub basis: String,
    /// Whether `mt_s` is the speed the build file states (`memory.speed_mt_s`, [`stated_speed`])
    /// rather than the kit's rating capped by the CPU's.
    #[serde(default)]
    pub stated: bool,
    /// Physical cores of the build's CPUs (the CPU's cores × the board's sockets): the cores
    /// that read the weights kept in RAM ([`crate::estimate::speed_summary::cores_caveat`]).
    pub cpu_cores: u32,
}

impl RamSpeed {
    /// Whether `mt_s` is the kit's rating with no CPU rating to check it against (the CPU's
    /// rated memory speed is not in the catalog) and no speed stated by the build: a speed the
    /// CPU may not run the kit at, so the bandwidth read from it is an upper bound.
    pub fn unverified(&self) -> bool {
        !self.stated && self.cpu_rated_mt_s.is_none()
    }

    /// Which speed `mt_s` is, in a few words: "the speed the build states", "the CPU's rating
    /// (below the kit's)", "the kit's rating (within the CPU's)", or "the kit's rating,
    /// unverified".
    pub fn which(&self) -> &'static str {
        match self.cpu_rated_mt_s {
            _ if self.stated => "the speed the build states",
            None => "the kit's rating, unverified: the CPU's rated memory speed is not in the catalog",
            Some(c) if c < self.kit_mt_s => "the CPU's rated speed, below the kit's rating",
            Some(_) => "the kit's rating, within the CPU's rated speed",
        }
    }
}

/// The speed the build's memory runs at ([`RamSpeed`]); `None` without a CPU or memory kit.
/// Where the build states the speed its memory is set to (`memory: (..., speed_mt_s: N)`, an
/// XMP/EXPO profile or a BIOS setting), that speed is used as stated ([`stated_speed`]), never
/// capped: the basis says when it is above the CPU's rated speed or the kit's rating.
pub fn ram_speed(r: &Resolved<'_>) -> Option<RamSpeed> {
    let cpu = r.cpu?;
    let (kit, kits) = r.memory?;
    let sockets = u32::from(r.board.map_or(1, |b| b.cpu_sockets.max(1)));
    let rated = ram_speed_of(cpu, kit, kits, sockets);
    Some(match r.build.memory.as_ref().and_then(|m| m.speed_mt_s) {
        Some(set) => stated_speed(&rated, set, &cpu.name),
        None => rated,
    })
}

/// `rated` (the kit's rating capped by the CPU's, [`ram_speed_of`]) replaced by the speed the
/// build states its memory runs at, `set_mt_s`: the stated speed is used, and the basis says
/// how it stands against the CPU's rated speed and the kit's rating (an XMP/EXPO profile above
/// the CPU's rating is what most desktop DDR5 kits run at; a BIOS left at a low "Auto" speed
/// runs below the kit's rating).
pub fn stated_speed(rated: &RamSpeed, set_mt_s: u32, cpu_name: &str) -> RamSpeed {
    let kit = rated.kit_mt_s;
    let vs_cpu = match rated.cpu_rated_mt_s {
        Some(c) if set_mt_s > c => {
            format!(
                "above the {cpu_name}'s rated {c} MT/s (an XMP/EXPO or manual setting; the CPU's rating does not cap it)"
            )
        }
        Some(c) => format!("the {cpu_name} is rated {c} MT/s"),
        None => format!("the {cpu_name}'s rated memory speed is unknown (not in the catalog)"),
    };
    let vs_kit = match set_mt_s.cmp(&kit) {
        std::cmp::Ordering::Greater => format!("above the kit's rating of {kit} MT/s"),
        std::cmp::Ordering::Less => format!("below the kit's rating of {kit} MT/s"),
        std::cmp::Ordering::Equal => "the kit's rating".to_owned(),
    };
    RamSpeed {
        mt_s: set_mt_s,
        basis: format!("the speed the build file states the memory runs at ({set_mt_s} MT/s, {vs_kit}); {vs_cpu}"),
        stated: true,
        ..rated.clone()
    }
}

/// The speed `kits` of `kit` run at beside `cpu` on a board with `sockets` CPU sockets
/// ([`RamSpeed`]): the kit's rating capped by the CPU's rated speed for the DIMMs per channel.
/// [`ram_speed`] for a build; the planner ranks kits by it before they are in a build.
pub fn ram_speed_of(
    cpu: &kraftwerk_catalog::Cpu,
    kit: &kraftwerk_catalog::MemoryKit,
    kits: u8,
    sockets: u32,
) -> RamSpeed {
    let sockets = sockets.max(1);
    let modules_per_socket = u32::from(kit.modules) * u32::from(kits) / sockets;
    let dpc = modules_per_socket.div_ceil(u32::from(cpu.memory_channels.max(1))).max(1);
    let ddr_gen = match kit.memory_type {
        MemoryType::Ddr4Udimm | MemoryType::Ddr4Rdimm => 4,
        MemoryType::Ddr5Udimm | MemoryType::Ddr5Rdimm => 5,
    };
    let kit_mt_s = kit.speed_mt_s;
    let rated = cpu.memory_speed(ddr_gen);
    let (cpu_rated, which) = match rated {
        None => (None, String::new()),
        Some(s) => match (dpc >= 2, s.two_dimms_per_channel_mt_s) {
            (true, Some(v)) => (Some(v), format!("at {dpc} DIMMs per channel")),
            (true, None) => (
                Some(s.rated_mt_s),
                format!("its top rating; the rating at {dpc} DIMMs per channel is not published, so an upper bound"),
            ),
            (false, Some(_)) => (Some(s.rated_mt_s), "at 1 DIMM per channel".to_owned()),
            (false, None) => (Some(s.rated_mt_s), "its one published figure".to_owned()),
        },
    };
    let (mt_s, basis) = match cpu_rated {
        None => (
            kit_mt_s,
            format!(
                "the kit's rating, unverified: the {}'s rated memory speed is not in the catalog, so whether it runs the kit at {kit_mt_s} MT/s is unknown (state the speed it runs at as `memory: (..., speed_mt_s: N)`)",
                cpu.name
            ),
        ),
        Some(c) if c < kit_mt_s => (
            c,
            format!("the {}'s rated DDR{ddr_gen}-{c} ({which}), below the kit's rating of {kit_mt_s} MT/s", cpu.name),
        ),
        Some(c) => (kit_mt_s, format!("kit rating (the {} is rated DDR{ddr_gen}-{c}, {which})", cpu.name)),
    };
    RamSpeed {
        mt_s,
        kit_mt_s,
        cpu_rated_mt_s: cpu_rated,
        dimms_per_channel: dpc,
        basis,
        stated: false,
        cpu_cores: u32::from(cpu.cores) * sockets,
    }
}

/// The build's system memory as the host-offload decode reads it: channels in use per socket
/// (the CPU's channels, at most the modules spread over the sockets), data rate ([`ram_speed`]:
/// the kit's rating capped by the CPU's) and sockets.
pub(crate) fn host_memory(r: &Resolved<'_>) -> Option<llm::host::HostMemory> {
    let cpu = r.cpu?;
    let (kit, kits) = r.memory?;
    let sockets = u32::from(r.board.map_or(1, |b| b.cpu_sockets.max(1)));
    let modules_per_socket = u32::from(kit.modules) * u32::from(kits) / sockets;
    let channels = u32::from(cpu.memory_channels).min(modules_per_socket);
    (channels > 0).then_some(llm::host::HostMemory {
        channels_per_socket: channels,
        speed_mt_s: ram_speed(r)?.mt_s,
        sockets,
    })
}

pub(crate) fn experts_in_ram(
    input: &llm::FitInput,
    slots: &[GpuSlot],
    r: &Resolved<'_>,
) -> Option<llm::host::HostExpertDecode> {
    let rt = input.resolved_runtime();
    if !(rt == llm::Runtime::KTransformers || rt.is_llama_cpp_family()) || input.mode.is_training() {
        return None;
    }
    let mut x = llm::placement::host_expert_decode(input, slots.first(), host_memory(r)?)?;
    // The same placement (every routed expert in RAM) bounded by the build's RAM.
    x.bound_by_ram(host_ram_gib(r).map(search::HostRam::of));
    Some(x)
}

/// Theoretical system-RAM bandwidth of a build, GB/s: memory channels in use (the CPU's
/// channels per socket × sockets, at most one per module) × data rate (MT/s, [`ram_speed`]: the
/// kit's rating capped by the CPU's) × 8 bytes.
pub fn host_bandwidth_gb_s(r: &Resolved<'_>) -> Option<f64> {
    let cpu = r.cpu?;
    let (kit, kits) = r.memory?;
    let sockets = u32::from(r.board.map_or(1, |b| b.cpu_sockets.max(1)));
    let channels = (u32::from(cpu.memory_channels) * sockets).min(u32::from(kit.modules) * u32::from(kits));
    let speed = ram_speed(r)?.mt_s;
    (channels > 0).then(|| f64::from(channels) * f64::from(speed) * 8.0 / 1000.0)
}

/// Installed system RAM of a build, GiB: kits x modules x module capacity (binary: a "32 GB"
/// DIMM holds 32 GiB); `None` without a memory kit.
pub fn host_ram_gib(r: &Resolved<'_>) -> Option<f64> {
    let (kit, kits) = r.memory?;
    Some(f64::from(kit.modules) * f64::from(kits) * f64::from(kit.module_gb))
}

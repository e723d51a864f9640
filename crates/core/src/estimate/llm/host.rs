//! MoE decode with the routed experts in system RAM (ktransformers, llama.cpp and ik_llama.cpp
//! with `-ot exps=CPU`): attention, shared experts, dense layers and the KV cache on one GPU,
//! every routed expert in the host's memory, read there at the bandwidth the runtime reaches on
//! the build's sockets.
//!
//! A second socket is not twice the first: each socket reads its own channels, and a runtime
//! that does not place experts per NUMA node pays the cross-socket link for half its reads.
//! The gain of the second socket is a per-runtime constant fitted on published dual-socket
//! runs ([`KTRANSFORMERS_SECOND_SOCKET_GAIN`], [`LLAMA_CPP_SECOND_SOCKET_FACTOR`]).

#![allow(clippy::doc_markdown, reason = "hardware and format names (EPYC, Xeon, DDR5, Q4_K_M) read better unquoted")]

use super::inputs::Runtime;
use serde::Serialize;

/// ktransformers' fraction of one socket's theoretical bandwidth streamed by its CPU expert
/// kernels. Fitted on ktransformers V0.2 (doc/en/DeepseekR1_V3_tutorial.md at
/// kvcache-ai/ktransformers@95009ea6856c0799e517e93cb12be5e8494bc7ce, "V0.2" table): DeepSeek
/// V3 Q4_K_M, one Xeon Gold 6454S with 8 × DDR5-4800, one RTX 4090D, 8 experts, decode
/// 8.73 tok/s.
pub(crate) const KTRANSFORMERS_HOST_EFFICIENCY: f64 = 0.40;

/// What ktransformers gains from a second socket, fraction of the first socket's rate (it
/// keeps a copy of the experts per NUMA node, so each socket reads its own channels, but the
/// two halves of each layer synchronise per token). Fitted on the same table: 12.21 tok/s on
/// two sockets against 8.73 on one.
pub(crate) const KTRANSFORMERS_SECOND_SOCKET_GAIN: f64 = 0.50;

/// llama.cpp's host bandwidth on two sockets, as a multiple of one socket's
/// ([`HOST_DECODE_BANDWIDTH_EFFICIENCY`] × one socket): below 1, since without per-node
/// placement half the reads cross the socket link. Fitted on the llama.cpp column of the same
/// ktransformers table: DeepSeek V3 Q4_K_M on both sockets (2 × 32 cores, CPU only), 4.51 tok/s.
pub(crate) const LLAMA_CPP_SECOND_SOCKET_FACTOR: f64 = 0.55;

/// llama.cpp's fixed cost per layer and token for a layer whose weights (or routed experts) are
/// computed on the CPU, s: the CPU back end's thread barriers and scheduling per op, beside the
/// bytes read. Fitted on one held-out-of-the-rest row (`tests/all/llm_fit/moe_2026.rs`, CPU-03):
/// llama-bench CPU backend, EPYC 9B14 (44 threads), 12 x DDR5-4800, Qwen3-30B-A3B Q4_K_M tg128
/// 59.78 tok/s (r/LocalLLaMA 1mieqcb, comment n736v47, 2025-08-05): 16.7 ms per token of which
/// the bytes at [`HOST_DECODE_BANDWIDTH_EFFICIENCY`] take 6.7 ms, leaving 10.0 ms over 48
/// layers. ktransformers (its own kernels, fitted separately) does not use it.
pub const LLAMA_CPP_HOST_LAYER_OVERHEAD_S: f64 = 209e-6;

/// The build's system memory, as the host-offload decode needs it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HostMemory {
    /// Memory channels populated per socket.
    pub channels_per_socket: u32,
    /// Data rate, MT/s.
    pub speed_mt_s: u32,
    /// CPU sockets (1 or 2; more are treated as 2 with a note-free clamp).
    pub sockets: u32,
}

impl HostMemory {
    /// Theoretical bandwidth of one socket, GB/s: channels × MT/s × 8 bytes / 1000.
    pub(crate) fn socket_gb_s(self) -> f64 {
        f64::from(self.channels_per_socket) * f64::from(self.speed_mt_s) * 8.0 / 1000.0
    }

    /// Bandwidth `runtime` streams host weights at on this memory, GB/s: one socket's
    /// theoretical rate × the runtime's efficiency, × its second-socket factor on two sockets.
    /// ik_llama.cpp is taken as llama.cpp (no published single/dual pair found; judgement).
    pub fn decode_gb_s(self, runtime: Runtime) -> f64 {
        let one = self.socket_gb_s();
        let two = self.sockets >= 2;
        match runtime {
            Runtime::KTransformers => {
                one * KTRANSFORMERS_HOST_EFFICIENCY * if two { 1.0 + KTRANSFORMERS_SECOND_SOCKET_GAIN } else { 1.0 }
            }
            _ => one * HOST_DECODE_BANDWIDTH_EFFICIENCY * if two { LLAMA_CPP_SECOND_SOCKET_FACTOR } else { 1.0 },
        }
    }
}

/// [`HostExpertDecode::placement`]: the one placement its figures are of.
pub const EVERY_ROUTED_EXPERT_IN_RAM: &str = "every_routed_expert_in_ram";

/// Decode of an MoE model with every routed expert in system RAM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostExpertDecode {
    /// The placement these figures are of, always [`EVERY_ROUTED_EXPERT_IN_RAM`] (llama.cpp's
    /// `-ot exps=CPU` / `--cpu-moe`, ktransformers' own placement), whatever placement the fit
    /// chose: a JSON reader sees it named beside the figures (a trial read this block's
    /// `fits_in_host_ram: false` as a contradiction of `fits_with_experts_in_ram`, whose split,
    /// `--n-cpu-moe 11`, keeps fewer experts in RAM).
    pub placement: &'static str,
    /// Whether this placement is the build's fit, the one its verdict and speed are of
    /// (`BuildFit::fits_with_experts_in_ram` puts the same experts in RAM: ktransformers, or a
    /// llama.cpp split of every routed expert); `false` where the fit is another split, where
    /// the workload fits the GPUs, and where it does not run.
    pub is_the_fit: bool,
    /// Routed-expert weights in system RAM, GiB.
    pub host_experts_gib: f64,
    /// System RAM the placement takes, GiB: the routed experts and the rest the runtime keeps
    /// there (llama.cpp's Host row with a GPU; every weight and the KV cache on the CPU alone);
    /// what [`HostRam::holds`] is asked.
    pub host_ram_needed_gib: f64,
    /// Expert bytes read from system RAM per token, GB.
    pub host_gb_per_token: f64,
    /// Bytes read from the GPU per token (attention, shared and dense weights, KV), GB.
    pub gpu_gb_per_token: f64,
    /// Host bandwidth the runtime reaches on this memory ([`HostMemory::decode_gb_s`]), GB/s.
    pub host_decode_gb_s: f64,
    /// Decode at batch 1, tokens/s; `None` when the experts do not fit the build's RAM
    /// (`fits_in_host_ram` `Some(false)`): it cannot run there.
    pub decode_tokens_per_s: Option<f64>,
    /// The build's system RAM ([`HostRam`]); `None` until
    /// [`HostExpertDecode::bound_by_ram`] is given one (no memory kit in the build).
    pub host_ram: Option<HostRam>,
    /// Whether `host_ram_needed_gib` fits that RAM after [`HOST_RAM_RESERVE_GIB`] ([`HostRam::holds`]);
    /// `None` when the RAM is unknown.
    pub fits_in_host_ram: Option<bool>,
}

impl HostExpertDecode {
    /// Bounds the decode by the build's RAM: when the RAM does not hold `host_ram_needed_gib`
    /// ([`HostRam::holds`]) it is marked `fits_in_host_ram: Some(false)` and loses its decode
    /// speed (it cannot run on this build); `ram` `None` leaves the fit unknown.
    pub(crate) fn bound_by_ram(&mut self, ram: Option<HostRam>) {
        self.host_ram = ram;
        self.fits_in_host_ram = ram.map(|r| r.holds(self.host_ram_needed_gib));
        if self.fits_in_host_ram == Some(false) {
            self.decode_tokens_per_s = None;
        }
    }
}

/// Fraction of the theoretical system-RAM bandwidth (channels × MT/s × 8 bytes) that llama.cpp
/// CPU decode streams weights at. Judgement: STREAM-like reads on desktop and server platforms
/// reach 60-80 % of theoretical; 0.6 is used for the matrix-vector kernels.
pub const HOST_DECODE_BANDWIDTH_EFFICIENCY: f64 = 0.6;

/// The most theoretical system-RAM bandwidth per physical CPU core among the held rows with
/// experts in RAM, GB/s per core: sousekd's EPYC 9355 (32 cores, 12 x DDR5-6400 = 614.4 GB/s,
/// 19.2 per core; ik_llama.cpp discussion 258, rows IK-06..IK-10 of
/// `tests/all/llm_fit/moe_2026.rs`, in band at depth 0). The other held hosts read less per
/// core (the EPYC 9B14's 460.8 GB/s over 96 cores, an i5-12600K's 96 GB/s over 10). A build
/// that gives each core more is outside what the host efficiency
/// ([`HOST_DECODE_BANDWIDTH_EFFICIENCY`]) and the CPU's per-layer cost
/// ([`LLAMA_CPP_HOST_LAYER_OVERHEAD_S`], fitted on 44 threads) were held on: few cores, and on
/// AMD's chiplet CPUs few CCDs (each reads over its own link to the I/O die: 64 bytes per
/// fabric clock on Zen 5 with two links, Chips and Cheese, "AMD's EPYC 9355P: Inside a 32 Core
/// Zen 5 Server Chip", https://chipsandcheese.com/p/amds-epyc-9355p-inside-a-32-core), may not
/// stream the channels at that efficiency. Not a bound on the speed: the edge of the evidence.
pub const HOST_BANDWIDTH_PER_CORE_HELD_MAX_GB_S: f64 = 19.2;

/// System RAM kept for the operating system before offloaded weights, bytes: the OS vendor's
/// published minimum memory for its desktop, Ubuntu 26.04 LTS Desktop's 6 GB (its release
/// notes' system requirements, "a 2 GHz dual-core processor or better, a minimum of 6GB RAM,
/// and 25 GB of free hard drive space", as reported by TrueSolvers,
/// https://truesolvers.com/articles/ubuntu-2604s-6gb-ram-requirement-what-it-means-for-your-hardware,
/// and SecurityOnline, https://securityonline.info/ubuntu-26-04-lts-system-requirements-6gb-ram-upgrade/;
/// 24.04 LTS asked 4 GB, Ubuntu Server 26.04 1.5 GB, Windows 11 4 GB). The runtime's own host
/// buffers are not in it: the placement's host figure counts them (llama.cpp's Host row of
/// `llama_memory_breakdown_print`). It replaces an 8 GiB planning allowance that was no
/// measurement and called a published setup "does not fit" (gpt-oss-120b with `--cpu-moe` on
/// 64 GB, which builders run); llama.cpp itself reserves no host memory beside GPUs (its
/// `--fit` compares host memory only without GPUs, with a 1 GiB margin: `common/fit.cpp`,
/// ggml-org/llama.cpp issue 19711).
pub const OS_MIN_RAM_BYTES: f64 = 6.0e9;

/// [`OS_MIN_RAM_BYTES`] in GiB (5.59): what [`HostRam`] keeps back from installed RAM.
pub const HOST_RAM_RESERVE_GIB: f64 = OS_MIN_RAM_BYTES / (1024.0 * 1024.0 * 1024.0);

/// The reserve in words, as every RAM verdict prints it: "the 6 GB kept for the OS (Ubuntu
/// 26.04 LTS Desktop's published minimum)".
pub fn reserve_words() -> String {
    format!("the {:.0} GB kept for the OS (Ubuntu 26.04 LTS Desktop's published minimum)", OS_MIN_RAM_BYTES / 1e9)
}

/// The build's system RAM as the offload advice counts it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HostRam {
    /// Installed: kits x modules x module capacity, GiB (DRAM module capacities are binary:
    /// a "32 GB" DIMM holds 32 GiB).
    pub installed_gib: f64,
    /// Left for offloaded weights after [`HOST_RAM_RESERVE_GIB`], GiB (never below 0).
    pub available_gib: f64,
}

impl HostRam {
    /// RAM of `installed_gib` with the reserve taken off.
    pub fn of(installed_gib: f64) -> HostRam {
        HostRam { installed_gib, available_gib: (installed_gib - HOST_RAM_RESERVE_GIB).max(0.0) }
    }

    /// Whether this RAM holds `host_gib`, the whole of what a placement keeps in system RAM
    /// (llama.cpp's Host row of `llama_memory_breakdown_print`: routed experts, CPU layers,
    /// token embedding, their KV and compute buffers), after [`HOST_RAM_RESERVE_GIB`]. The one
    /// test of host RAM: the planner's screen ([`HostRam::installed_to_hold_gib`]), `fit`'s
    /// verdict with experts in RAM and its alternatives all read it. Compared unrounded.
    pub fn holds(&self, host_gib: f64) -> bool {
        host_gib <= self.available_gib
    }

    /// Installed RAM, GiB, that [`HostRam::holds`] `host_gib`: `host_gib` plus
    /// [`HOST_RAM_RESERVE_GIB`] (what the planner asks of a memory kit).
    pub fn installed_to_hold_gib(host_gib: f64) -> f64 {
        host_gib + HOST_RAM_RESERVE_GIB
    }

    /// `host_gib` against [`HostRam::available_gib`] in words, at one decimal, or in MiB where
    /// one decimal would print a shortfall as equal ("40.0 of 40.0"): "44.5 GiB of system RAM;
    /// this build has 48 GiB (42.4 GiB after the 6 GB kept for the OS (...))".
    pub fn need_vs_has(&self, host_gib: f64) -> String {
        let (need, avail) = if format!("{host_gib:.1}") == format!("{:.1}", self.available_gib) && !self.holds(host_gib)
        {
            // A shortfall (need > available): need rounded up, available down, never equal.
            (
                format!("{:.0} MiB", (host_gib * 1024.0).ceil()),
                format!("{:.0} MiB", (self.available_gib * 1024.0).floor()),
            )
        } else {
            (format!("{host_gib:.1} GiB"), format!("{:.1} GiB", self.available_gib))
        };
        format!(
            "{need} of system RAM; this build has {:.0} GiB ({avail} after {})",
            self.installed_gib,
            reserve_words()
        )
    }
}

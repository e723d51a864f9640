//! The installed NVIDIA GPUs through NVML (`nvml-wrapper` 0.13), loaded once per process.
//!
//! - [`open`] returns an [`NvmlState`]: either the GPUs ([`NvmlGpus`]) or a clear reason why
//!   there are none (`"no NVIDIA driver found"`). Never a panic, never an error exit.
//! - [`GpuStatic`]: facts that do not change while the machine runs (name, UUID, limits, max
//!   link). [`GpuSample`]: one reading of the changing values. [`Snapshot`]: one reading of
//!   every GPU.
//! - Every metric is an `Option`: `None` means NVML did not answer (unsupported on this GPU,
//!   driver or virtual machine). Unsupported is data, not failure.
//! - GPUs are identified by UUID across programs and recordings (CUDA's device order is not
//!   NVML's); inside one reading they are positions in [`NvmlGpus::gpus`] (NVML index order).
//!
//! Sources: NVML API reference (<https://docs.nvidia.com/deploy/nvml-api/>), `nvidia-smi -q`
//! and `nvidia-smi --help-query-gpu` for names and units, and the H200 measurements in
//! `shared/reference/gpu-machine.md`.

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::reasons::ClockEventReasons;
use super::topology::{P2pStatus, PcieAncestor, Topology};
use nvml_wrapper::enum_wrappers::device::{
    Clock, EccCounter, MemoryError, P2pCapabilitiesIndex, PcieUtilCounter, TemperatureSensor, TemperatureThreshold,
    TopologyLevel,
};
use nvml_wrapper::enums::device::SampleValue;
use nvml_wrapper::error::{Bits, NvmlError};
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::sys_exports::field_id::{
    NVML_FI_DEV_PCIE_COUNT_RX_BYTES, NVML_FI_DEV_PCIE_COUNT_TX_BYTES, NVML_FI_DEV_POWER_INSTANT,
};
use nvml_wrapper::{Device, Nvml};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The text shown when NVML cannot be loaded.
pub const NO_DRIVER: &str = "no NVIDIA driver found";

/// NVLink links NVML can report per GPU (`NVML_NVLINK_MAX_LINKS`, 18 for Hopper/Blackwell).
pub const MAX_NVLINKS: u32 = 18;

/// Bytes per MiB (2^20): NVML reports memory in bytes, `nvidia-smi` prints MiB.
const BYTES_PER_MIB: u64 = 1 << 20;

/// Utilization (percent) at or above which a GPU counts as under load for derived checks
/// (idle PCIe links downshift, so link width/gen is judged under load only; validation.md #2).
pub const LOAD_UTILIZATION_PCT: u32 = 50;

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

/// CUDA compute capability (`nvmlDeviceGetCudaComputeCapability`), e.g. 9.0 for H100/H200.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ComputeCapability {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// One NVLink link of a GPU (`nvmlDeviceGetNvLinkState`, `…Version`, `…RemotePciInfo_v2`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvLinkInfo {
    /// Link number, 0..[`MAX_NVLINKS`].
    pub link: u32,
    /// Whether the link is up; `None` = NVML did not answer.
    #[serde(default)]
    pub active: Option<bool>,
    /// NVML's `nvmlNvlinkVersion_t` value (6 = NVLink 4.0); see [`nvlink_version_name`].
    #[serde(default)]
    pub version_raw: Option<u32>,
    /// PCI bus id at the other end (a GPU, or an NVSwitch; `FFFFFFFF:FF:FF.0` seen on H200).
    #[serde(default)]
    pub remote_pci_bus_id: Option<String>,
}

/// The NVLink generation for NVML's raw `nvmlNvlinkVersion_t` (1 = "1.0" … 6 = "4.0",
/// 7 = "5.0"; nvml.h, driver 580).
pub fn nvlink_version_name(raw: u32) -> Option<&'static str> {
    match raw {
        1 => Some("1.0"),
        2 => Some("2.0"),
        3 => Some("2.2"),
        4 => Some("3.0"),
        5 => Some("3.1"),
        6 => Some("4.0"),
        7 => Some("5.0"),
        _ => None,
    }
}

/// Facts about one GPU that do not change while the machine runs. Every figure is `None`
/// where NVML does not answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GpuStatic {
    /// NVML index (`nvidia-smi` `index`); not CUDA's device order.
    pub index: u32,
    /// Product name (`name`), e.g. "NVIDIA H200".
    #[serde(default)]
    pub name: Option<String>,
    /// Globally unique id (`uuid`), e.g. `GPU-…`: the key that matches GPUs across programs.
    #[serde(default)]
    pub uuid: Option<String>,
    /// PCI bus id (`pci.bus_id`), `DDDDDDDD:BB:DD.F`.
    #[serde(default)]
    pub pci_bus_id: Option<String>,
    /// PCI device and vendor id (`pci.device_id`), e.g. `0x233510DE`.
    #[serde(default)]
    pub pci_device_id: Option<u32>,
    /// PCI subsystem id (`pci.sub_device_id`).
    #[serde(default)]
    pub pci_subsystem_id: Option<u32>,
    /// Architecture (`Hopper`), from `nvmlDeviceGetArchitecture`.
    #[serde(default)]
    pub architecture: Option<String>,
    /// Brand (`Nvidia`, `GeForce`, …), from `nvmlDeviceGetBrand`.
    #[serde(default)]
    pub brand: Option<String>,
    /// Board part number (`inforom`/`nvmlDeviceGetBoardPartNumber`).
    #[serde(default)]
    pub board_part_number: Option<String>,
    /// VBIOS version (`vbios_version`).
    #[serde(default)]
    pub vbios_version: Option<String>,
    /// CUDA compute capability (`compute_cap`).
    #[serde(default)]
    pub compute_capability: Option<ComputeCapability>,
    /// Total memory, MiB (`memory.total`).
    #[serde(default)]
    pub memory_total_mib: Option<u64>,
    /// Memory reserved by the driver, MiB (`memory.reserved`).
    #[serde(default)]
    pub memory_reserved_mib: Option<u64>,
    /// Memory bus width, bits.
    #[serde(default)]
    pub memory_bus_width_bits: Option<u32>,
    /// CUDA cores.
    #[serde(default)]
    pub cuda_cores: Option<u32>,
    /// Temperature where the GPU starts to slow down, °C (`nvidia-smi -q` "GPU Slowdown Temp").
    #[serde(default)]
    pub temperature_slowdown_c: Option<u32>,
    /// Temperature where the GPU shuts down, °C ("GPU Shutdown Temp").
    #[serde(default)]
    pub temperature_shutdown_c: Option<u32>,
    /// Maximum operating GPU temperature, °C ("GPU Max Operating Temp").
    #[serde(default)]
    pub temperature_gpu_max_c: Option<u32>,
    /// Maximum operating memory temperature, °C ("Memory Max Operating Temp").
    #[serde(default)]
    pub temperature_memory_max_c: Option<u32>,
    /// Default power limit, W (`power.default_limit`).
    #[serde(default)]
    pub power_limit_default_w: Option<f64>,
    /// Lowest settable power limit, W (`power.min_limit`).
    #[serde(default)]
    pub power_limit_min_w: Option<f64>,
    /// Highest settable power limit, W (`power.max_limit`).
    #[serde(default)]
    pub power_limit_max_w: Option<f64>,
    /// Power limit in force, W (`enforced.power.limit`): the smaller of all limiters.
    #[serde(default)]
    pub power_limit_enforced_w: Option<f64>,
    /// Power management limit set on the GPU, W (`power.limit`).
    #[serde(default)]
    pub power_limit_w: Option<f64>,
    /// Maximum SM clock, MHz (`clocks.max.sm`).
    #[serde(default)]
    pub clock_sm_max_mhz: Option<u32>,
    /// Maximum graphics clock, MHz (`clocks.max.graphics`).
    #[serde(default)]
    pub clock_graphics_max_mhz: Option<u32>,
    /// Maximum memory clock, MHz (`clocks.max.memory`).
    #[serde(default)]
    pub clock_mem_max_mhz: Option<u32>,
    /// Maximum PCIe generation of this GPU in this system (`pcie.link.gen.max`,
    /// `nvmlDeviceGetMaxPcieLinkGeneration`: the smaller of the GPU's and the slot's).
    #[serde(default)]
    pub pcie_gen_max: Option<u32>,
    /// Maximum PCIe width, lanes (`pcie.link.width.max`).
    #[serde(default)]
    pub pcie_width_max: Option<u32>,
    /// ECC enabled now (`ecc.mode.current`).
    #[serde(default)]
    pub ecc_enabled: Option<bool>,
    /// ECC enabled after the next reboot (`ecc.mode.pending`).
    #[serde(default)]
    pub ecc_pending_enabled: Option<bool>,
    /// Persistence mode (`persistence_mode`).
    #[serde(default)]
    pub persistence_mode: Option<bool>,
    /// Virtualization mode (`Bare`, `PassThrough`, `Vgpu`, …).
    #[serde(default)]
    pub virtualization_mode: Option<String>,
    /// NUMA node of the GPU (`nvmlDeviceGetNumaNodeId`); unsupported in the H200 VM.
    #[serde(default)]
    pub numa_node: Option<u32>,
    /// Number of fans (`nvmlDeviceGetNumFans`); `Some(0)` for passively cooled GPUs.
    #[serde(default)]
    pub fan_count: Option<u32>,
    /// Clock event reasons this GPU can report (`clocks_event_reasons.supported`).
    #[serde(default)]
    pub clock_event_reasons_supported: Option<ClockEventReasons>,
    /// NVLink links that answered at least one query; empty when NVLink is unsupported
    /// (every link `NotSupported`, as on the single-GPU H200 machine).
    #[serde(default)]
    pub nvlinks: Vec<NvLinkInfo>,
}

impl GpuStatic {
    /// Active NVLink links; `None` when no link answered.
    pub fn nvlinks_active(&self) -> Option<u32> {
        if self.nvlinks.iter().all(|l| l.active.is_none()) {
            return None;
        }
        let n = self.nvlinks.iter().filter(|l| l.active == Some(true)).count();
        Some(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// NVLink generation of the first active link ("4.0" on H200).
    pub fn nvlink_version(&self) -> Option<&'static str> {
        self.nvlinks.iter().filter(|l| l.active == Some(true)).find_map(|l| l.version_raw.and_then(nvlink_version_name))
    }

    /// A short label for lists: `GPU 0 NVIDIA H200`.
    pub fn label(&self) -> String {
        format!("GPU {} {}", self.index, self.name.as_deref().unwrap_or("(unnamed)"))
    }
}

/// One reading of the changing values of one GPU. Every figure is `None` where NVML does not
/// answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GpuSample {
    /// Position of the GPU in the GPU list ([`NvmlGpus::gpus`], a recording's `gpus`).
    pub gpu: usize,
    /// Wall-clock time of the reading, milliseconds since the Unix epoch (0 = unknown).
    pub unix_ms: u64,
    /// How long reading this GPU took, microseconds.
    #[serde(default)]
    pub read_us: Option<u64>,
    /// Memory in use, MiB (`memory.used`).
    #[serde(default)]
    pub memory_used_mib: Option<u64>,
    /// GPU temperature, °C (`temperature.gpu`).
    #[serde(default)]
    pub temperature_c: Option<u32>,
    /// Power draw averaged over the last second, W (`power.draw.average`,
    /// `nvmlDeviceGetPowerUsage`).
    #[serde(default)]
    pub power_avg_w: Option<f64>,
    /// Instant power draw, W (`power.draw.instant`, field `NVML_FI_DEV_POWER_INSTANT`).
    #[serde(default)]
    pub power_instant_w: Option<f64>,
    /// Energy used since the driver loaded, J (`nvmlDeviceGetTotalEnergyConsumption`). Slow
    /// tier: refreshed every [`SampleOptions::slow_refresh`].
    #[serde(default)]
    pub energy_j: Option<f64>,
    /// SM clock, MHz (`clocks.sm`).
    #[serde(default)]
    pub clock_sm_mhz: Option<u32>,
    /// Graphics clock, MHz (`clocks.gr`). Slow tier (equal to the SM clock on H100/H200).
    #[serde(default)]
    pub clock_graphics_mhz: Option<u32>,
    /// Memory clock, MHz (`clocks.mem`).
    #[serde(default)]
    pub clock_mem_mhz: Option<u32>,
    /// Percent of time a kernel ran over NVML's last sample period (`utilization.gpu`).
    #[serde(default)]
    pub utilization_gpu_pct: Option<u32>,
    /// Percent of time memory was read or written (`utilization.memory`).
    #[serde(default)]
    pub utilization_mem_pct: Option<u32>,
    /// Performance state, 0 (P0, max) … 15 (`pstate`).
    #[serde(default)]
    pub performance_state: Option<u32>,
    /// Current PCIe generation (`pcie.link.gen.current`); idle links may downshift.
    #[serde(default)]
    pub pcie_gen: Option<u32>,
    /// Current PCIe width, lanes (`pcie.link.width.current`).
    #[serde(default)]
    pub pcie_width: Option<u32>,
    /// PCIe transmit throughput, KB/s (`nvidia-smi -q` "Tx Throughput"): the byte counters
    /// over the time between two slow-tier reads (KB = 1024 B), or in a full reading without
    /// an earlier one NVML's 20 ms `nvmlDeviceGetPcieThroughput`. Slow tier.
    #[serde(default)]
    pub pcie_tx_kb_s: Option<u64>,
    /// PCIe receive throughput, KB/s ("Rx Throughput"). Slow tier.
    #[serde(default)]
    pub pcie_rx_kb_s: Option<u64>,
    /// PCIe bytes sent since the driver loaded (field `NVML_FI_DEV_PCIE_COUNT_TX_BYTES`). Slow
    /// tier.
    #[serde(default)]
    pub pcie_tx_bytes_total: Option<u64>,
    /// PCIe bytes received since the driver loaded (field `NVML_FI_DEV_PCIE_COUNT_RX_BYTES`).
    /// Slow tier.
    #[serde(default)]
    pub pcie_rx_bytes_total: Option<u64>,
    /// PCIe replay counter (`nvidia-smi -q` "Replays Since Reset"): link retransmissions.
    /// Slow tier.
    #[serde(default)]
    pub pcie_replay_count: Option<u64>,
    /// Corrected ECC errors since the last driver load (`ecc.errors.corrected.volatile.total`).
    /// Slow tier, like the other ECC counts.
    #[serde(default)]
    pub ecc_corrected_volatile: Option<u64>,
    /// Uncorrected ECC errors since the last driver load
    /// (`ecc.errors.uncorrected.volatile.total`).
    #[serde(default)]
    pub ecc_uncorrected_volatile: Option<u64>,
    /// Corrected ECC errors over the GPU's life (`ecc.errors.corrected.aggregate.total`).
    #[serde(default)]
    pub ecc_corrected_aggregate: Option<u64>,
    /// Uncorrected ECC errors over the GPU's life (`ecc.errors.uncorrected.aggregate.total`).
    #[serde(default)]
    pub ecc_uncorrected_aggregate: Option<u64>,
    /// Active clock event reasons (`clocks_event_reasons.active`), all bits kept.
    #[serde(default)]
    pub clock_event_reasons: Option<ClockEventReasons>,
    /// Fan speeds, percent of maximum, one per fan (`fan.speed`); `None` when the GPU has no
    /// fans or NVML does not answer. Slow tier.
    #[serde(default)]
    pub fan_speed_pct: Option<Vec<u32>>,
}

impl GpuSample {
    /// Power draw (1 s average) as a fraction of the enforced power limit (1.0 = at the limit).
    pub fn power_fraction_of_limit(&self, gpu: &GpuStatic) -> Option<f64> {
        fraction(self.power_avg_w?, gpu.power_limit_enforced_w?)
    }

    /// Instant power draw as a fraction of the enforced power limit (may exceed 1.0 briefly:
    /// 784 W against 700 W was seen on the H200).
    pub fn power_instant_fraction_of_limit(&self, gpu: &GpuStatic) -> Option<f64> {
        fraction(self.power_instant_w?, gpu.power_limit_enforced_w?)
    }

    /// True when the current PCIe generation or width is below the GPU's maximum. `None` when
    /// either side is unknown. Idle links downshift: judge it under load ([`Self::under_load`]).
    pub fn link_below_max(&self, gpu: &GpuStatic) -> Option<bool> {
        let gen_below = self.pcie_gen? < gpu.pcie_gen_max?;
        let width_below = self.pcie_width? < gpu.pcie_width_max?;
        Some(gen_below || width_below)
    }

    /// [`Self::link_below_max`] only while the GPU is under load; `None` when idle or unknown.
    pub fn link_below_max_under_load(&self, gpu: &GpuStatic) -> Option<bool> {
        if self.under_load()? { self.link_below_max(gpu) } else { None }
    }

    /// True when GPU utilization is at least [`LOAD_UTILIZATION_PCT`].
    pub fn under_load(&self) -> Option<bool> {
        Some(self.utilization_gpu_pct? >= LOAD_UTILIZATION_PCT)
    }

    /// SM clock as a fraction of its maximum.
    pub fn sm_clock_fraction_of_max(&self, gpu: &GpuStatic) -> Option<f64> {
        fraction(f64::from(self.clock_sm_mhz?), f64::from(gpu.clock_sm_max_mhz?))
    }

    /// Memory in use as a fraction of total memory.
    pub fn memory_fraction_used(&self, gpu: &GpuStatic) -> Option<f64> {
        fraction(self.memory_used_mib? as f64, gpu.memory_total_mib? as f64)
    }

    /// Degrees below the slowdown temperature, °C (negative = above it).
    pub fn temperature_headroom_c(&self, gpu: &GpuStatic) -> Option<i64> {
        Some(i64::from(gpu.temperature_slowdown_c?) - i64::from(self.temperature_c?))
    }

    /// True when a fault clock event reason is active (HW slowdown, SW/HW thermal, power brake).
    pub fn has_clock_fault(&self) -> Option<bool> {
        self.clock_event_reasons.map(ClockEventReasons::has_fault)
    }

    /// True when an uncorrected ECC error was counted (volatile or aggregate).
    pub fn has_uncorrected_ecc(&self) -> Option<bool> {
        match (self.ecc_uncorrected_volatile, self.ecc_uncorrected_aggregate) {
            (None, None) => None,
            (v, a) => Some(v.unwrap_or(0) > 0 || a.unwrap_or(0) > 0),
        }
    }
}

fn fraction(value: f64, of: f64) -> Option<f64> {
    (of > 0.0).then(|| value / of)
}

/// One reading of every GPU.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Snapshot {
    /// Wall-clock time at the start of the reading, ms since the Unix epoch (0 = unknown).
    pub unix_ms: u64,
    /// Time since the sampler (or recording) started, ms.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// One sample per GPU, in GPU-list order.
    pub gpus: Vec<GpuSample>,
}

impl Snapshot {
    /// The sample of the GPU at position `gpu`.
    pub fn gpu(&self, gpu: usize) -> Option<&GpuSample> {
        self.gpus.iter().find(|s| s.gpu == gpu)
    }
}

/// Driver-wide facts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SystemInfo {
    /// NVIDIA driver version (`driver_version`), e.g. "580.159.04".
    #[serde(default)]
    pub driver_version: Option<String>,
    /// NVML library version, e.g. "13.580.159.04".
    #[serde(default)]
    pub nvml_version: Option<String>,
    /// Highest CUDA version the driver supports, "13.0" (`nvidia-smi` "CUDA Version").
    #[serde(default)]
    pub cuda_driver_version: Option<String>,
    /// GPUs NVML sees (`count`).
    pub gpu_count: u32,
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/// What NVML says about this machine.
#[derive(Debug)]
pub enum NvmlState {
    /// NVML works and sees at least one GPU.
    Ready(NvmlGpus),
    /// NVML cannot be loaded or the driver is not running; the detail says why.
    NoDriver(String),
    /// The driver runs but NVML sees no GPU.
    NoGpu(SystemInfo),
    /// NVML loaded but failed (e.g. no permission); the detail says why.
    Failed(String),
}

impl NvmlState {
    /// One line for people: `no NVIDIA driver found (…)`, `NVIDIA driver … found but no GPU`.
    pub fn message(&self) -> String {
        match self {
            NvmlState::Ready(g) => format!("{} NVIDIA GPU(s)", g.gpus().len()),
            NvmlState::NoDriver(detail) => format!("{NO_DRIVER} ({detail})"),
            NvmlState::NoGpu(sys) => format!(
                "NVIDIA driver {} found but no GPU",
                sys.driver_version.as_deref().unwrap_or("(unknown version)")
            ),
            NvmlState::Failed(detail) => format!("NVML failed: {detail}"),
        }
    }

    /// Stable machine-readable name: `ready`, `no_driver`, `no_gpu`, `failed`.
    pub fn code(&self) -> &'static str {
        match self {
            NvmlState::Ready(_) => "ready",
            NvmlState::NoDriver(_) => "no_driver",
            NvmlState::NoGpu(_) => "no_gpu",
            NvmlState::Failed(_) => "failed",
        }
    }
}

#[derive(Debug, Clone)]
enum InitFailure {
    NoDriver(String),
    Failed(String),
}

static NVML: OnceLock<Result<Nvml, InitFailure>> = OnceLock::new();

fn classify_init_error(e: &NvmlError) -> InitFailure {
    match e {
        // The loader's own message names the library: "libnvidia-ml.so.1: cannot open …".
        NvmlError::LibloadingError(inner) => InitFailure::NoDriver(inner.to_string()),
        NvmlError::FailedToLoadSymbol(_)
        | NvmlError::DriverNotLoaded
        | NvmlError::LibraryNotFound
        | NvmlError::FunctionNotFound
        | NvmlError::LibRmVersionMismatch => InitFailure::NoDriver(e.to_string()),
        _ => InitFailure::Failed(e.to_string()),
    }
}

/// Loads `libnvidia-ml.so.1` (`nvml.dll` on Windows) and calls `nvmlInit_v2`.
fn init_nvml() -> Result<Nvml, InitFailure> {
    Nvml::init().map_err(|e| classify_init_error(&e))
}

/// NVML, initialised on first use and kept for the life of the process.
fn nvml() -> Result<&'static Nvml, InitFailure> {
    NVML.get_or_init(init_nvml).as_ref().map_err(Clone::clone)
}

/// Opens NVML (once per process) and reads every GPU's static facts and the topology.
///
/// Never panics; without a driver it returns [`NvmlState::NoDriver`].
pub fn open() -> NvmlState {
    let nvml = match nvml() {
        Ok(n) => n,
        Err(InitFailure::NoDriver(d)) => return NvmlState::NoDriver(d),
        Err(InitFailure::Failed(d)) => return NvmlState::Failed(d),
    };
    let count = match nvml.device_count() {
        Ok(c) => c,
        Err(e) => return NvmlState::Failed(format!("cannot count GPUs: {e}")),
    };
    let system = read_system(nvml, count);
    if count == 0 {
        return NvmlState::NoGpu(system);
    }
    let mut gpus = Vec::new();
    for i in 0..count {
        match nvml.device_by_index(i) {
            Ok(device) => {
                let statics = read_static(&device, i);
                gpus.push(GpuHandle { device, statics, slow: SlowTier::default() });
            }
            Err(e) => return NvmlState::Failed(format!("cannot open GPU {i}: {e}")),
        }
    }
    let statics: Vec<GpuStatic> = gpus.iter().map(|g| g.statics.clone()).collect();
    let topology = read_topology(nvml, &statics);
    NvmlState::Ready(NvmlGpus { system, gpus, statics, topology, start: Instant::now() })
}

fn read_system(nvml: &Nvml, count: u32) -> SystemInfo {
    SystemInfo {
        driver_version: nvml.sys_driver_version().ok(),
        nvml_version: nvml.sys_nvml_version().ok(),
        cuda_driver_version: nvml.sys_cuda_driver_version().ok().map(|v| {
            format!("{}.{}", nvml_wrapper::cuda_driver_version_major(v), nvml_wrapper::cuda_driver_version_minor(v))
        }),
        gpu_count: count,
    }
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// How often the slow metrics are read by default (5 s); between reads their last value is
/// carried forward.
pub const SLOW_REFRESH: Duration = Duration::from_secs(5);

/// How to sample.
///
/// Metrics come in two tiers, measured on the H200 (driver 580, GSP firmware): the fast tier
/// (power, instant power, temperature, SM and memory clocks, utilization, memory used, PCIe
/// gen and width, clock event reasons, performance state) is read every sample; the slow tier
/// (total energy, about 3 ms per call; PCIe replay counter, 0.15 ms; ECC counts; PCIe byte
/// counters; graphics clock; fans) is read every [`SampleOptions::slow_refresh`] and carried
/// forward in between, so a 100 ms sampler stays cheap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleOptions {
    /// Read everything now, including NVML's blocking PCIe throughput measurement
    /// (`nvmlDeviceGetPcieThroughput`, 20 ms per direction, so about 40 ms per GPU) when the
    /// byte counters give no rate yet. For one-off readings (`kraftwerk gpus`), not samplers.
    pub full: bool,
    /// Age after which the slow tier is read again.
    pub slow_refresh: Duration,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions { full: false, slow_refresh: SLOW_REFRESH }
    }
}

impl SampleOptions {
    /// Everything, now (one-off readings).
    pub fn full() -> Self {
        SampleOptions { full: true, ..SampleOptions::default() }
    }
}

/// The last slow-tier reading of one GPU.
#[derive(Debug, Clone, Default)]
struct SlowTier {
    at: Option<Instant>,
    energy_j: Option<f64>,
    clock_graphics_mhz: Option<u32>,
    pcie_replay_count: Option<u64>,
    ecc_corrected_volatile: Option<u64>,
    ecc_uncorrected_volatile: Option<u64>,
    ecc_corrected_aggregate: Option<u64>,
    ecc_uncorrected_aggregate: Option<u64>,
    fan_speed_pct: Option<Vec<u32>>,
    pcie_tx_bytes_total: Option<u64>,
    pcie_rx_bytes_total: Option<u64>,
    pcie_tx_kb_s: Option<u64>,
    pcie_rx_kb_s: Option<u64>,
}

struct GpuHandle {
    device: Device<'static>,
    statics: GpuStatic,
    slow: SlowTier,
}

/// The GPUs of this machine, open through NVML. Owns the device handles; `Send`, so a
/// sampler thread can own it.
pub struct NvmlGpus {
    system: SystemInfo,
    gpus: Vec<GpuHandle>,
    statics: Vec<GpuStatic>,
    topology: Topology,
    start: Instant,
}

impl fmt::Debug for NvmlGpus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NvmlGpus")
            .field("system", &self.system)
            .field("gpus", &self.statics)
            .field("topology", &self.topology)
            .finish_non_exhaustive()
    }
}

impl NvmlGpus {
    /// Driver-wide facts.
    pub fn system(&self) -> &SystemInfo {
        &self.system
    }

    /// Static facts per GPU, in NVML index order.
    pub fn gpus(&self) -> &[GpuStatic] {
        &self.statics
    }

    /// Connection of every pair of GPUs.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Reads every GPU once. `elapsed_ms` counts from [`open`].
    pub fn sample(&mut self, opts: SampleOptions) -> Snapshot {
        let unix_ms = unix_ms_now();
        let elapsed_ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let gpus = (0..self.gpus.len()).map(|i| self.sample_gpu(i, opts)).collect();
        Snapshot { unix_ms, elapsed_ms, gpus }
    }

    /// Reads the GPU at position `gpu` once; an out-of-range position gives an empty sample.
    pub fn sample_gpu(&mut self, gpu: usize, opts: SampleOptions) -> GpuSample {
        let Some(h) = self.gpus.get_mut(gpu) else {
            return GpuSample { gpu, unix_ms: unix_ms_now(), ..GpuSample::default() };
        };
        read_sample(h, gpu, opts)
    }
}

/// Now, ms since the Unix epoch (0 if the clock is before 1970).
pub fn unix_ms_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn mw_to_w(mw: u32) -> f64 {
    f64::from(mw) / 1000.0
}

/// The clock event reasons with every bit kept: the wrapper's `_strict` call reports unknown
/// bits as `IncorrectBits`, which carries the raw mask.
fn clock_event_reasons(device: &Device<'_>) -> Option<ClockEventReasons> {
    match device.current_throttle_reasons_strict() {
        Ok(r) => Some(ClockEventReasons(r.bits())),
        Err(NvmlError::IncorrectBits(Bits::U64(raw))) => Some(ClockEventReasons(raw)),
        Err(NvmlError::IncorrectBits(Bits::U32(raw))) => Some(ClockEventReasons(u64::from(raw))),
        Err(_) => None,
    }
}

fn supported_clock_event_reasons(device: &Device<'_>) -> Option<ClockEventReasons> {
    match device.supported_throttle_reasons_strict() {
        Ok(r) => Some(ClockEventReasons(r.bits())),
        Err(NvmlError::IncorrectBits(Bits::U64(raw))) => Some(ClockEventReasons(raw)),
        Err(NvmlError::IncorrectBits(Bits::U32(raw))) => Some(ClockEventReasons(u64::from(raw))),
        Err(_) => None,
    }
}

/// `nvmlDeviceGetFieldValues` is not thread-safe (DataDog agent PR 54821 serialises it):
/// every call in this process goes through this lock.
static FIELD_VALUES_LOCK: Mutex<()> = Mutex::new(());

/// Field values as `u64`, one per id (`None` = that field failed); all `None` if the call did.
fn field_u64(device: &Device<'_>, ids: &[u32]) -> Vec<Option<u64>> {
    let fields: Vec<FieldId> = ids.iter().map(|&i| FieldId(i)).collect();
    let result = {
        let _guard = FIELD_VALUES_LOCK.lock().unwrap_or_else(PoisonError::into_inner);
        device.field_values_for(&fields)
    };
    match result {
        Ok(values) => values
            .into_iter()
            .map(|v| match v.ok()?.value.ok()? {
                SampleValue::U32(x) => Some(u64::from(x)),
                SampleValue::U64(x) => Some(x),
                SampleValue::I64(x) => u64::try_from(x).ok(),
                SampleValue::F64(x) => (x.is_finite() && x >= 0.0).then_some(x as u64),
            })
            .collect(),
        Err(_) => vec![None; ids.len()],
    }
}

fn read_static(device: &Device<'_>, index: u32) -> GpuStatic {
    let pci = device.pci_info().ok();
    let memory = device.memory_info().ok();
    let constraints = device.power_management_limit_constraints().ok();
    let ecc = device.is_ecc_enabled().ok();
    let mut nvlinks = Vec::new();
    for link in 0..MAX_NVLINKS {
        let l = device.link_wrapper_for(link);
        let active = l.is_active().ok();
        let version_raw = l.version().ok();
        let remote_pci_bus_id = l.remote_pci_info().ok().map(|p| p.bus_id);
        if active.is_some() || version_raw.is_some() || remote_pci_bus_id.is_some() {
            nvlinks.push(NvLinkInfo { link, active, version_raw, remote_pci_bus_id });
        }
    }
    GpuStatic {
        index,
        name: device.name().ok(),
        uuid: device.uuid().ok(),
        pci_bus_id: pci.as_ref().map(|p| p.bus_id.clone()),
        pci_device_id: pci.as_ref().map(|p| p.pci_device_id),
        pci_subsystem_id: pci.as_ref().and_then(|p| p.pci_sub_system_id),
        architecture: device.architecture().ok().map(|a| a.to_string()),
        brand: device.brand().ok().map(|b| format!("{b:?}")),
        board_part_number: device.board_part_number().ok(),
        vbios_version: device.vbios_version().ok(),
        compute_capability: device.cuda_compute_capability().ok().and_then(|c| {
            Some(ComputeCapability { major: u32::try_from(c.major).ok()?, minor: u32::try_from(c.minor).ok()? })
        }),
        memory_total_mib: memory.as_ref().map(|m| m.total / BYTES_PER_MIB),
        memory_reserved_mib: memory.as_ref().map(|m| m.reserved / BYTES_PER_MIB),
        memory_bus_width_bits: device.memory_bus_width().ok(),
        cuda_cores: device.num_cores().ok(),
        temperature_slowdown_c: device.temperature_threshold(TemperatureThreshold::Slowdown).ok(),
        temperature_shutdown_c: device.temperature_threshold(TemperatureThreshold::Shutdown).ok(),
        temperature_gpu_max_c: device.temperature_threshold(TemperatureThreshold::GpuMax).ok(),
        temperature_memory_max_c: device.temperature_threshold(TemperatureThreshold::MemoryMax).ok(),
        power_limit_default_w: device.power_management_limit_default().ok().map(mw_to_w),
        power_limit_min_w: constraints.as_ref().map(|c| mw_to_w(c.min_limit)),
        power_limit_max_w: constraints.as_ref().map(|c| mw_to_w(c.max_limit)),
        power_limit_enforced_w: device.enforced_power_limit().ok().map(mw_to_w),
        power_limit_w: device.power_management_limit().ok().map(mw_to_w),
        clock_sm_max_mhz: device.max_clock_info(Clock::SM).ok(),
        clock_graphics_max_mhz: device.max_clock_info(Clock::Graphics).ok(),
        clock_mem_max_mhz: device.max_clock_info(Clock::Memory).ok(),
        pcie_gen_max: device.max_pcie_link_gen().ok(),
        pcie_width_max: device.max_pcie_link_width().ok(),
        ecc_enabled: ecc.as_ref().map(|e| e.currently_enabled),
        ecc_pending_enabled: ecc.as_ref().map(|e| e.pending_enabled),
        persistence_mode: device.is_in_persistent_mode().ok(),
        virtualization_mode: device.virtualization_mode().ok().map(|m| format!("{m:?}")),
        numa_node: device.numa_node_id().ok(),
        fan_count: device.num_fans().ok(),
        clock_event_reasons_supported: supported_clock_event_reasons(device),
        nvlinks,
    }
}

fn read_slow(h: &mut GpuHandle, now: Instant, full: bool) {
    let d = &h.device;
    let ecc_on = h.statics.ecc_enabled != Some(false);
    let ecc = |e: MemoryError, c: EccCounter| if ecc_on { d.total_ecc_errors(e, c).ok() } else { None };
    let counters = field_u64(d, &[NVML_FI_DEV_PCIE_COUNT_TX_BYTES, NVML_FI_DEV_PCIE_COUNT_RX_BYTES]);
    let (tx, rx) = (counters[0], counters[1]);
    let prev = &h.slow;
    // PCIe throughput from the byte counters over the time since the last slow read.
    let mut rate = match (prev.at, prev.pcie_tx_bytes_total, prev.pcie_rx_bytes_total, tx, rx) {
        (Some(t0), Some(tx0), Some(rx0), Some(tx1), Some(rx1)) => {
            let dt = now.duration_since(t0).as_secs_f64();
            let kb_s = |a: u64, b: u64| (a.saturating_sub(b) as f64 / 1024.0 / dt) as u64;
            (dt > 0.0).then(|| (kb_s(tx1, tx0), kb_s(rx1, rx0)))
        }
        _ => None,
    };
    if rate.is_none() && full {
        rate = match (d.pcie_throughput(PcieUtilCounter::Send).ok(), d.pcie_throughput(PcieUtilCounter::Receive).ok()) {
            (Some(t), Some(r)) => Some((u64::from(t), u64::from(r))),
            _ => None,
        };
    }
    h.slow = SlowTier {
        at: Some(now),
        energy_j: d.total_energy_consumption().ok().map(|mj| mj as f64 / 1000.0),
        clock_graphics_mhz: d.clock_info(Clock::Graphics).ok(),
        pcie_replay_count: d.pcie_replay_counter().ok().map(u64::from),
        ecc_corrected_volatile: ecc(MemoryError::Corrected, EccCounter::Volatile),
        ecc_uncorrected_volatile: ecc(MemoryError::Uncorrected, EccCounter::Volatile),
        ecc_corrected_aggregate: ecc(MemoryError::Corrected, EccCounter::Aggregate),
        ecc_uncorrected_aggregate: ecc(MemoryError::Uncorrected, EccCounter::Aggregate),
        fan_speed_pct: match h.statics.fan_count {
            Some(n) if n > 0 => (0..n).map(|i| d.fan_speed(i).ok()).collect::<Option<Vec<u32>>>(),
            _ => None,
        },
        pcie_tx_bytes_total: tx,
        pcie_rx_bytes_total: rx,
        pcie_tx_kb_s: rate.map(|r| r.0),
        pcie_rx_kb_s: rate.map(|r| r.1),
    };
}

fn read_sample(h: &mut GpuHandle, gpu: usize, opts: SampleOptions) -> GpuSample {
    let t0 = Instant::now();
    let unix_ms = unix_ms_now();
    let stale = h.slow.at.is_none_or(|at| t0.duration_since(at) >= opts.slow_refresh);
    if opts.full || stale {
        read_slow(h, t0, opts.full);
    }
    let d = &h.device;
    let power_instant_w = field_u64(d, &[NVML_FI_DEV_POWER_INSTANT])[0].map(|mw| mw as f64 / 1000.0);
    let utilization = d.utilization_rates().ok();
    let slow = &h.slow;
    let mut s = GpuSample {
        gpu,
        unix_ms,
        read_us: None,
        memory_used_mib: d.memory_info().ok().map(|m| m.used / BYTES_PER_MIB),
        temperature_c: d.temperature(TemperatureSensor::Gpu).ok(),
        power_avg_w: d.power_usage().ok().map(mw_to_w),
        power_instant_w,
        energy_j: slow.energy_j,
        clock_sm_mhz: d.clock_info(Clock::SM).ok(),
        clock_graphics_mhz: slow.clock_graphics_mhz,
        clock_mem_mhz: d.clock_info(Clock::Memory).ok(),
        utilization_gpu_pct: utilization.as_ref().map(|u| u.gpu),
        utilization_mem_pct: utilization.as_ref().map(|u| u.memory),
        performance_state: d.performance_state().ok().and_then(|p| {
            let raw = p.as_c();
            (raw <= 15).then_some(raw)
        }),
        pcie_gen: d.current_pcie_link_gen().ok(),
        pcie_width: d.current_pcie_link_width().ok(),
        pcie_tx_kb_s: slow.pcie_tx_kb_s,
        pcie_rx_kb_s: slow.pcie_rx_kb_s,
        pcie_tx_bytes_total: slow.pcie_tx_bytes_total,
        pcie_rx_bytes_total: slow.pcie_rx_bytes_total,
        pcie_replay_count: slow.pcie_replay_count,
        ecc_corrected_volatile: slow.ecc_corrected_volatile,
        ecc_uncorrected_volatile: slow.ecc_uncorrected_volatile,
        ecc_corrected_aggregate: slow.ecc_corrected_aggregate,
        ecc_uncorrected_aggregate: slow.ecc_uncorrected_aggregate,
        clock_event_reasons: clock_event_reasons(d),
        fan_speed_pct: slow.fan_speed_pct.clone(),
    };
    s.read_us = Some(u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX));
    s
}

fn read_topology(nvml: &'static Nvml, gpus: &[GpuStatic]) -> Topology {
    let dev = |i: usize| u32::try_from(i).ok().and_then(|i| nvml.device_by_index(i).ok());
    Topology::derive(
        gpus,
        |a, b| {
            let (da, db) = (dev(a)?, dev(b)?);
            da.topology_common_ancestor(db).ok().map(|l| match l {
                TopologyLevel::Internal => PcieAncestor::Internal,
                TopologyLevel::Single => PcieAncestor::Single,
                TopologyLevel::Multiple => PcieAncestor::Multiple,
                TopologyLevel::HostBridge => PcieAncestor::HostBridge,
                TopologyLevel::Node => PcieAncestor::Node,
                TopologyLevel::System => PcieAncestor::System,
            })
        },
        |a, b| {
            let (Some(da), Some(db)) = (dev(a), dev(b)) else { return P2pStatus::default() };
            let ask = |idx: P2pCapabilitiesIndex| da.p2p_status(&db, idx).ok().map(|s| format!("{s:?}"));
            P2pStatus {
                read: ask(P2pCapabilitiesIndex::Read),
                write: ask(P2pCapabilitiesIndex::Write),
                nvlink: ask(P2pCapabilitiesIndex::NvLink),
                atomics: ask(P2pCapabilitiesIndex::Atomics),
            }
        },
    )
}

//! The data NVML readings produce: static facts per GPU ([`GpuStatic`]), one reading of the
//! changing values ([`GpuSample`]), one reading of every GPU ([`Snapshot`]) and driver-wide
//! facts ([`SystemInfo`]). Plain serde types: recordings store them, replays and tests build
//! them without a GPU.

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::LOAD_UTILIZATION_PCT;
use crate::reasons::ClockEventReasons;
use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// Pages retired for ECC errors over the GPU's life, single- plus double-bit causes
    /// (`nvmlDeviceGetRetiredPages_v2`; `nvidia-smi -q` "Retired Pages"). Slow tier; `None`
    /// where unsupported (Hopper and later remap rows instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_pages: Option<u64>,
    /// Whether a page retirement waits for the next driver load
    /// (`nvmlDeviceGetRetiredPagesPendingStatus`, "Pending Page Blacklist"). Slow tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_pages_pending: Option<bool>,
    /// Critical XID errors the driver reported since the previous reading (NVML event set,
    /// `nvmlEventTypeXidCriticalError`; the XID numbers, e.g. 79 "GPU has fallen off the bus",
    /// 48 double-bit ECC). `None` where events are unsupported; `Some(empty)` = none seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xid_errors: Option<Vec<u64>>,
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

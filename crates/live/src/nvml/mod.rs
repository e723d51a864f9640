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
//! and `nvidia-smi --help-query-gpu` for names and units, and our H200 measurements
//! (`tests/fixtures/nvidia-smi-q-h200.txt`, `tests/fixtures/*h200*.kwrec.json`).

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use self::topology::{P2pStatus, PcieAncestor, Topology};
use super::reasons::ClockEventReasons;
use nvml_wrapper::bitmasks::event::EventTypes;
use nvml_wrapper::enum_wrappers::device::{
    Clock, EccCounter, MemoryError, P2pCapabilitiesIndex, PcieUtilCounter, RetirementCause, TemperatureSensor,
    TemperatureThreshold, TopologyLevel,
};
use nvml_wrapper::enums::device::SampleValue;
use nvml_wrapper::enums::event::XidError;
use nvml_wrapper::error::{Bits, NvmlError};
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::sys_exports::field_id::{
    NVML_FI_DEV_PCIE_COUNT_RX_BYTES, NVML_FI_DEV_PCIE_COUNT_TX_BYTES, NVML_FI_DEV_POWER_INSTANT,
};
use nvml_wrapper::{Device, EventSet, Nvml};
use std::fmt;
use std::sync::OnceLock;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub mod topology;
mod types;

pub use types::{ComputeCapability, GpuSample, GpuStatic, NvLinkInfo, Snapshot, SystemInfo, nvlink_version_name};

/// The text shown when NVML cannot be loaded.
pub const NO_DRIVER: &str = "no NVIDIA driver found";

/// NVLink links NVML can report per GPU (`NVML_NVLINK_MAX_LINKS`, 18 for Hopper/Blackwell).
pub(crate) const MAX_NVLINKS: u32 = 18;

/// Bytes per MiB (2^20): NVML reports memory in bytes, `nvidia-smi` prints MiB.
const BYTES_PER_MIB: u64 = 1 << 20;

/// Utilization (percent) at or above which a GPU counts as under load for derived checks
/// (idle PCIe links downshift, so link width/gen is judged under load only: NVML docs, `nvmlDeviceGetCurrPcieLinkGeneration`).
pub(crate) const LOAD_UTILIZATION_PCT: u32 = 50;

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
    let xid_events = xid_event_set(nvml, &gpus);
    NvmlState::Ready(NvmlGpus { system, gpus, statics, topology, start: Instant::now(), xid_events })
}

/// An event set with every GPU registered for critical XID errors; `None` when NVML refuses
/// (not Linux, unsupported GPU, a virtual machine without events).
fn xid_event_set(nvml: &'static Nvml, gpus: &[GpuHandle]) -> Option<EventSet<'static>> {
    #[cfg(target_os = "linux")]
    {
        let mut set = nvml.create_event_set().ok()?;
        for g in gpus {
            set = g.device.register_events(EventTypes::CRITICAL_XID_ERROR, set).ok()?;
        }
        Some(set)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (nvml, gpus);
        None
    }
}

/// Critical XID errors waiting in `set`, per GPU position (matched by UUID); returns without
/// waiting.
fn drain_xids(set: &EventSet<'static>, statics: &[GpuStatic]) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); statics.len()];
    // At most a bounded number per reading, so a storm of events cannot stall the sampler.
    for _ in 0..64 {
        let Ok(ev) = set.wait(0) else { break };
        let uuid = ev.device.uuid().ok();
        let pos = statics.iter().position(|g| g.uuid.is_some() && g.uuid == uuid);
        if let (Some(pos), Some(XidError::Value(x))) = (pos, ev.event_data) {
            out[pos].push(x);
        }
    }
    out
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
pub(crate) const SLOW_REFRESH: Duration = Duration::from_secs(5);

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
    retired_pages: Option<u64>,
    retired_pages_pending: Option<bool>,
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
    /// Critical XID events of every GPU; `None` where NVML cannot deliver events.
    xid_events: Option<EventSet<'static>>,
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
        let mut gpus: Vec<GpuSample> = (0..self.gpus.len()).map(|i| self.sample_gpu(i, opts)).collect();
        if let Some(set) = &self.xid_events {
            for (s, xids) in gpus.iter_mut().zip(drain_xids(set, &self.statics)) {
                s.xid_errors = Some(xids);
            }
        }
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
pub(crate) fn unix_ms_now() -> u64 {
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
        retired_pages: match (
            d.retired_pages(RetirementCause::MultipleSingleBitEccErrors),
            d.retired_pages(RetirementCause::DoubleBitEccError),
        ) {
            (Ok(a), Ok(b)) => Some((a.len() + b.len()) as u64),
            _ => None,
        },
        retired_pages_pending: d.are_pages_pending_retired().ok(),
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
        retired_pages: slow.retired_pages,
        retired_pages_pending: slow.retired_pages_pending,
        xid_errors: None,
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

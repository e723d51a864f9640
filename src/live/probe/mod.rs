//! The GEMM probe: proves each GPU computes correctly, at the expected speed, under load.
//!
//! Per device (GPU, or the CPU when CUDA is absent) on its own named thread, all at once:
//! 1. host↔device copy bandwidth, pinned and pageable, each direction (one device at a time);
//! 2. square GEMMs `C = A·B` (row-major, `n`×`n`) in each requested [`Precision`] the device
//!    supports, on random inputs: one checked run, warm-up, then timed runs (TFLOP/s
//!    median/min/max, `2n³` flops per GEMM); every kernel variant the backend offers is timed
//!    and the fastest is reported;
//! 3. correctness of every output: a sampled known-answer check against an `f64` reference on
//!    the same rounded inputs, Freivalds' whole-matrix check and a run-to-run comparison
//!    ([`numeric`]); any mismatch or NaN marks the device faulty;
//! 4. a sustained load of `sustained_seconds` (all devices start together), sampled through
//!    NVML every 100 ms (power, temperature, clocks, clock event reasons), followed by a
//!    run-to-run check of the output computed under load.
//!
//! The report ([`ProbeReport`], versioned JSON) is graded by the pure functions in [`grade`]
//! with the thresholds of `shared/reference/validation.md`. Backends: [`cuda`] (cuBLAS and
//! cuBLASLt through cudarc, feature `cuda`) and [`cpu`] (the `matrixmultiply` crate, so the whole
//! pipeline runs in CI); [`run_probe`] picks one. Backends implement [`GemmDevice`]; tests wrap
//! one to plant faults.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod grade;
pub mod numeric;
mod sampler;

pub use grade::{Grade, Verdict};

use numeric::NumberFormat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Version of the [`ProbeReport`] JSON layout; bumped on any incompatible change.
pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// Bytes in a GiB.
const GIB: f64 = 1_073_741_824.0;

/// A GEMM precision: input type, accumulate type, output type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// FP32 in and out, FP32 (non-tensor) math: cuBLAS `sgemm`.
    Fp32,
    /// FP32 in and out, inputs rounded to TF32 on tensor cores, FP32 accumulate.
    Tf32,
    /// FP16 in and out, FP32 accumulate.
    Fp16,
    /// BF16 in and out, FP32 accumulate.
    Bf16,
    /// FP8 E4M3 in, BF16 out, FP32 accumulate (compute capability 8.9+, cuBLASLt, TN layout).
    Fp8,
}

impl Precision {
    /// Every precision, in report order.
    pub const ALL: [Self; 5] = [Self::Fp32, Self::Tf32, Self::Fp16, Self::Bf16, Self::Fp8];

    /// Lower-case name (`bf16`), as on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Tf32 => "tf32",
            Self::Fp16 => "fp16",
            Self::Bf16 => "bf16",
            Self::Fp8 => "fp8",
        }
    }

    /// The format inputs are rounded to before the device sees them.
    pub fn input_format(self) -> NumberFormat {
        match self {
            Self::Fp32 => numeric::F32,
            Self::Tf32 => numeric::TF32,
            Self::Fp16 => numeric::F16,
            Self::Bf16 => numeric::BF16,
            Self::Fp8 => numeric::E4M3,
        }
    }

    /// The format of the output matrix.
    pub fn output_format(self) -> NumberFormat {
        match self {
            Self::Fp32 | Self::Tf32 => numeric::F32,
            Self::Fp16 => numeric::F16,
            Self::Bf16 | Self::Fp8 => numeric::BF16,
        }
    }

    /// Allowed accumulation error over `Σ|a·b|` (on top of one output ulp).
    ///
    /// Measured maxima on an H200 at n = 4096 and 8192 (`shared/reference/gpu-machine.md`,
    /// including output rounding): fp32 1.3e-7, tf32 1.9e-5 (inputs not pre-rounded), fp16
    /// 1.5e-5, bf16 1.2e-4, fp8 1.2e-4. The tolerances leave 10–100× headroom; FP8 gets more
    /// because Hopper accumulates FP8 products with fewer than 32 bits.
    pub fn accumulation_tolerance(self) -> f64 {
        match self {
            Self::Fp32 => 1e-5,
            Self::Tf32 | Self::Fp16 | Self::Bf16 => 1e-4,
            Self::Fp8 => 1e-3,
        }
    }

    /// Lowest CUDA compute capability with tensor-core (or, for fp32, any) support:
    /// TF32 and BF16 arrived with Ampere (8.0), FP8 with Ada (8.9), FP16 tensor cores with Volta
    /// (7.0) (CUDA C++ Programming Guide, "Compute Capabilities").
    pub fn min_compute_capability(self) -> (u32, u32) {
        match self {
            Self::Fp32 => (0, 0),
            Self::Fp16 => (7, 0),
            Self::Tf32 | Self::Bf16 => (8, 0),
            Self::Fp8 => (8, 9),
        }
    }

    /// Bytes per input element on the device.
    pub fn input_bytes(self) -> usize {
        match self {
            Self::Fp32 | Self::Tf32 => 4,
            Self::Fp16 | Self::Bf16 => 2,
            Self::Fp8 => 1,
        }
    }

    /// Bytes per output element on the device.
    pub fn output_bytes(self) -> usize {
        match self {
            Self::Fp32 | Self::Tf32 => 4,
            Self::Fp16 | Self::Bf16 | Self::Fp8 => 2,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = ProbeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ProbeError::Invalid(format!("unknown precision `{s}` (fp32, tf32, fp16, bf16, fp8)")))
    }
}

/// Errors of the probe and its backends.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    /// The requested backend cannot run here (no driver, no library, no device).
    #[error("backend unavailable: {0}")]
    Unavailable(String),
    /// A driver or library call failed.
    #[error("{context}: {message}")]
    Device {
        /// What was being done.
        context: String,
        /// The library's error.
        message: String,
    },
    /// The device thread panicked (cudarc panics on missing symbols).
    #[error("panicked: {0}")]
    Panic(String),
    /// A bad configuration value.
    #[error("invalid probe setting: {0}")]
    Invalid(String),
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl ProbeError {
    /// A [`ProbeError::Device`] from any displayable error.
    pub fn device(context: impl Into<String>, err: impl fmt::Display) -> Self {
        Self::Device { context: context.into(), message: err.to_string() }
    }
}

/// Which backend [`run_probe`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// CUDA when a driver, cuBLAS, cuBLASLt and a GPU are present, else the CPU.
    #[default]
    Auto,
    /// CUDA or nothing (a failed report when unavailable).
    Cuda,
    /// The CPU backend.
    Cpu,
}

/// The backend that ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// `matrixmultiply` on the CPU (reduced precisions emulated by rounding).
    Cpu,
    /// cuBLAS/cuBLASLt on NVIDIA GPUs.
    Cuda,
}

/// Where a device is in its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbePhase {
    /// Opening the device.
    Starting,
    /// Host↔device copies.
    Bandwidth,
    /// GEMMs of one precision.
    Gemm(Precision),
    /// Waiting for the other devices before the sustained load.
    Waiting,
    /// The sustained load.
    Sustained,
    /// GPU↔GPU copies.
    PeerBandwidth,
    /// Done (or cancelled).
    Finished,
}

/// A progress update, sent without blocking (dropped when the channel is full).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeProgress {
    /// Device index; `None` for whole-run phases.
    pub device: Option<usize>,
    /// Phase.
    pub phase: ProbePhase,
    /// Fraction of this device's run done, 0 to 1.
    pub fraction_done: f64,
    /// A short human-readable line.
    pub message: String,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// Precisions to run (unsupported ones are skipped with the reason).
    pub precisions: Vec<Precision>,
    /// Requested matrix size `n`; devices use less when memory is short (GPU) or to keep a
    /// GEMM short (CPU backend: at most [`cpu::MAX_SIZE`]).
    pub size: usize,
    /// Untimed GEMMs after the first (checked) one, per kernel.
    pub warmup_iterations: usize,
    /// Timed GEMMs per kernel.
    pub timed_iterations: usize,
    /// Duration of the sustained load, seconds (0 skips it).
    pub sustained_seconds: f64,
    /// Precision of the sustained load; `None` = bf16 when requested, else the first.
    pub sustained_precision: Option<Precision>,
    /// Host↔device copy size, bytes (0 skips the bandwidth test).
    pub bandwidth_bytes: usize,
    /// GPU↔GPU copy size, bytes (0 skips it).
    pub peer_bandwidth_bytes: usize,
    /// Outputs compared with the `f64` reference per GEMM.
    pub check_samples: usize,
    /// Seed of the random inputs and sample positions.
    pub seed: u64,
    /// Backend choice.
    pub backend: BackendChoice,
    /// NVML sampling interval during the run, milliseconds.
    pub sample_interval_ms: u64,
    /// Set to stop the run; it takes effect within about a second.
    pub cancel: Arc<AtomicBool>,
    /// Progress updates (bounded channel; full = update dropped).
    pub progress: Option<SyncSender<ProbeProgress>>,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            precisions: Precision::ALL.to_vec(),
            size: 8192,
            warmup_iterations: 5,
            timed_iterations: 20,
            sustained_seconds: 10.0,
            sustained_precision: None,
            bandwidth_bytes: 1 << 30,
            peer_bandwidth_bytes: 256 << 20,
            check_samples: 256,
            seed: 0x6b72_6166_7477_6572,
            backend: BackendChoice::Auto,
            sample_interval_ms: 100,
            cancel: Arc::new(AtomicBool::new(false)),
            progress: None,
        }
    }
}

impl ProbeConfig {
    /// The precision of the sustained load.
    pub fn sustained(&self) -> Option<Precision> {
        self.sustained_precision
            .filter(|p| self.precisions.contains(p))
            .or_else(|| self.precisions.iter().copied().find(|&p| p == Precision::Bf16))
            .or_else(|| self.precisions.first().copied())
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    fn send(&self, device: Option<usize>, phase: ProbePhase, fraction_done: f64, message: String) {
        if let Some(tx) = &self.progress {
            // Dropped when full: progress must never slow the probe down.
            let _ = tx.try_send(ProbeProgress { device, phase, fraction_done, message });
        }
    }
}

/// The expected GPU (from the catalog or the build) to grade measurements against.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExpectedGpu {
    /// Model name (`H200 SXM`); also selects the achievable fraction ([`grade::achievable_fraction`]).
    pub name: String,
    /// Dense datasheet peak per precision, TFLOP/s (no sparsity; FP32 accumulate).
    pub peak_tflops: BTreeMap<Precision, f64>,
    /// PCIe generation of the host link the GPU should get.
    pub pcie_gen: Option<u8>,
    /// PCIe lanes of the host link the GPU should get.
    pub pcie_lanes: Option<u8>,
    /// Where the figures come from (datasheet URL or catalog id).
    pub source: Option<String>,
}

impl ExpectedGpu {
    /// The expectations of a catalog GPU: its dense peaks and its own PCIe link.
    pub fn from_catalog(gpu: &crate::catalog::Gpu) -> Self {
        let p = &gpu.peak;
        let peak_tflops = [
            (Precision::Fp32, p.fp32),
            (Precision::Tf32, p.tf32),
            (Precision::Fp16, p.fp16),
            (Precision::Bf16, p.bf16),
            (Precision::Fp8, p.fp8),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
        Self {
            name: format!("{} {}", gpu.vendor, gpu.name),
            peak_tflops,
            pcie_gen: Some(gpu.pcie_gen),
            pcie_lanes: Some(gpu.pcie_lanes),
            source: Some(format!("catalog `{}` ({})", gpu.id, gpu.source)),
        }
    }
}

/// The catalog GPU a probed device is: by name (`NVIDIA H200` ↔ `H200 SXM`: equal after the
/// vendor, else the catalog name starts with the device name), and among several by the board's
/// highest power limit `power_limit_max_w` as NVML reports it (H200 SXM 700 W, H200 NVL 600 W;
/// within 5 %). `Err` lists the ids still tied.
pub fn match_catalog_gpu<'c>(
    catalog: &'c crate::catalog::Catalog,
    device_name: &str,
    power_limit_max_w: Option<f64>,
) -> Result<Option<&'c crate::catalog::Gpu>, Vec<String>> {
    let norm = |s: &str| s.to_ascii_lowercase().trim_start_matches("nvidia ").trim().to_owned();
    let dev = norm(device_name);
    if dev.is_empty() {
        return Ok(None);
    }
    let exact: Vec<_> = catalog.gpus.iter().filter(|g| norm(&g.name) == dev).collect();
    let mut found: Vec<_> = if exact.is_empty() {
        catalog.gpus.iter().filter(|g| norm(&g.name).starts_with(&format!("{dev} "))).collect()
    } else {
        exact
    };
    if let (true, Some(limit)) = (found.len() > 1, power_limit_max_w.filter(|l| *l > 0.0)) {
        found.retain(|g| (g.max_limit_w() - limit).abs() <= 0.05 * limit);
    }
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => Err(many.iter().map(|g| g.id.clone()).collect()),
    }
}

/// Median, minimum and maximum of a set of measurements (the unit is in the field's name).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Median (mean of the middle two for an even count).
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Number of finite values.
    pub n: usize,
}

impl Summary {
    /// The summary of the finite `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { f64::midpoint(v[n / 2 - 1], v[n / 2]) };
        Some(Self { median, min: v[0], max: v[n - 1], n })
    }
}

/// Static facts about a device.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeviceInfo {
    /// Name (`NVIDIA H200`).
    pub name: String,
    /// NVML-style UUID (`GPU-…`), to match NVML readings; `None` for the CPU.
    pub uuid: Option<String>,
    /// Compute capability (`9.0`); `None` for the CPU.
    pub compute_capability: Option<String>,
    /// Total memory, bytes.
    pub memory_total_bytes: Option<u64>,
}

/// One device as the probe drives it. Implemented by the CUDA and CPU backends; tests wrap one
/// to plant faults. Matrices are row-major `n`×`n`; `C = A·B`.
pub trait GemmDevice {
    /// Static facts.
    fn info(&self) -> DeviceInfo;
    /// `Ok` when `precision` can run here, else why not.
    fn support(&self, precision: Precision) -> Result<(), String>;
    /// The matrix size to use when `requested` is asked for (fits memory, keeps GEMMs short).
    fn fit_size(&self, requested: usize) -> usize;
    /// Names of the kernel variants for `precision` (library names); each is timed.
    fn kernels(&self, precision: Precision) -> Vec<&'static str>;
    /// Stores the inputs (already rounded to `precision.input_format()`) on the device.
    fn load(&mut self, precision: Precision, n: usize, a: &[f32], b: &[f32]) -> Result<(), ProbeError>;
    /// Runs `count` GEMMs with kernel `kernel` (an index into [`Self::kernels`]) and waits for
    /// them; returns the seconds each took.
    fn run(&mut self, kernel: usize, count: usize) -> Result<Vec<f64>, ProbeError>;
    /// The current output, decoded to `f32`, row-major.
    fn output(&mut self) -> Result<Vec<f32>, ProbeError>;
    /// Frees what [`Self::load`] allocated.
    fn unload(&mut self);
    /// Host↔device bandwidth with `bytes`-sized copies; `None` where it does not apply (CPU).
    fn host_bandwidth(&mut self, bytes: usize, cancel: &AtomicBool) -> Option<Result<HostBandwidth, ProbeError>> {
        let _ = (bytes, cancel);
        None
    }
    /// Free device memory now, bytes (`None` where unknown).
    fn memory_free_bytes(&self) -> Option<u64> {
        None
    }
    /// Frees every library handle and buffer (the probe is done with the device).
    fn release(&mut self) {}
}

/// Makes a device on its own thread (a CUDA context is made on the thread that uses it).
pub type DeviceFactory = Box<dyn FnOnce() -> Result<Box<dyn GemmDevice>, ProbeError> + Send>;

/// Correctness of one kernel's outputs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CheckResult {
    /// Outputs compared with the `f64` reference.
    pub samples: usize,
    /// Largest `|device − reference| / Σ|a·b|` over the samples.
    pub max_err_over_sum_abs: f64,
    /// Largest error over its allowance (≤ 1 passes).
    pub max_tolerance_ratio: f64,
    /// Freivalds' whole-matrix check: largest row error over its bound (≤ 1 passes).
    pub freivalds_ratio: f64,
    /// Non-finite values in the whole first output.
    pub nonfinite_outputs: u64,
    /// Elements compared run to run.
    pub run_to_run_compared: u64,
    /// Elements whose bits differ run to run (informative; cuBLAS is normally bitwise stable).
    pub run_to_run_bitwise_differing: u64,
    /// Elements that differ run to run beyond tolerance (a fault).
    pub run_to_run_mismatches: u64,
    /// Why the check failed; empty = passed.
    pub faults: Vec<String>,
}

impl CheckResult {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.faults.is_empty()
    }
}

/// One timed kernel variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelTiming {
    /// Library and path (`cublas`, `cublasLt`, `matrixmultiply`).
    pub library: String,
    /// Throughput over the timed GEMMs, TFLOP/s.
    pub tflops: Summary,
    /// Correctness of its outputs.
    pub check: CheckResult,
}

/// GEMM results of one precision on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemmResult {
    /// Precision.
    pub precision: Precision,
    /// Matrix size `n` (square `n`×`n`×`n`, `2n³` flops per GEMM).
    pub n: usize,
    /// The fastest kernel variant.
    pub library: String,
    /// Timed GEMMs.
    pub timed_iterations: usize,
    /// Throughput of the fastest variant, TFLOP/s (per-GEMM times, CUDA events on GPUs).
    pub tflops: Summary,
    /// Median seconds per GEMM of the fastest variant.
    pub seconds_per_gemm: f64,
    /// Dense datasheet peak, TFLOP/s, when known.
    pub peak_tflops: Option<f64>,
    /// Median TFLOP/s over the peak.
    pub fraction_of_peak: Option<f64>,
    /// Correctness of the fastest variant.
    pub check: CheckResult,
    /// The other variants.
    pub alternatives: Vec<KernelTiming>,
}

impl GemmResult {
    /// Whether every variant computed correctly.
    pub fn all_passed(&self) -> bool {
        self.check.passed() && self.alternatives.iter().all(|k| k.check.passed())
    }
}

/// A precision a device did not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Precision.
    pub precision: Precision,
    /// Why.
    pub reason: String,
}

/// Host↔device copy bandwidth (GB = 10⁹ bytes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostBandwidth {
    /// Bytes per copy.
    pub bytes: u64,
    /// Pinned (page-locked, not write-combined) host to device, GB/s.
    pub pinned_h2d_gb_s: Option<Summary>,
    /// Pinned device to host, GB/s.
    pub pinned_d2h_gb_s: Option<Summary>,
    /// Pageable host to device, GB/s.
    pub pageable_h2d_gb_s: Option<Summary>,
    /// Pageable device to host, GB/s.
    pub pageable_d2h_gb_s: Option<Summary>,
}

/// GPU↔GPU copy bandwidth of one ordered pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeerBandwidth {
    /// Source device index.
    pub from: usize,
    /// Destination device index.
    pub to: usize,
    /// Whether peer access (direct P2P over NVLink/PCIe) was enabled; otherwise the driver
    /// stages the copy through host memory.
    pub peer_access: bool,
    /// Bytes per copy.
    pub bytes: u64,
    /// Copy bandwidth, GB/s.
    pub bandwidth_gb_s: Option<Summary>,
}

/// One NVML reading taken during the run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LoadSample {
    /// Seconds since the probe started.
    pub t_seconds: f64,
    /// Board power, W, NVML's 1 s average (`nvmlDeviceGetPowerUsage`).
    pub power_w: Option<f64>,
    /// Instant board power, W (`NVML_FI_DEV_POWER_INSTANT`).
    pub power_instant_w: Option<f64>,
    /// Enforced power limit, W.
    pub power_limit_w: Option<f64>,
    /// Highest power limit the board allows, W (`nvmlDeviceGetPowerManagementLimitConstraints`).
    pub power_limit_max_w: Option<f64>,
    /// GPU temperature, °C.
    pub temperature_c: Option<f64>,
    /// SM clock, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// Clock event (throttle) reason bits (`nvmlClocksEventReasons`).
    pub clock_event_reasons: Option<u64>,
    /// Current PCIe link generation.
    pub pcie_gen: Option<u32>,
    /// Current PCIe link width, lanes.
    pub pcie_width: Option<u32>,
}

/// The sustained load on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SustainedSummary {
    /// Precision of the load.
    pub precision: Precision,
    /// Matrix size.
    pub n: usize,
    /// Library of the kernel used.
    pub library: String,
    /// Seconds of load.
    pub seconds: f64,
    /// GEMMs completed.
    pub gemms: u64,
    /// Mean throughput over the whole load, TFLOP/s.
    pub tflops_mean: f64,
    /// Throughput per chunk of about 0.25 s, TFLOP/s.
    pub tflops: Option<Summary>,
    /// NVML 1 s average power, W.
    pub power_w: Option<Summary>,
    /// NVML instant power, W.
    pub power_instant_w: Option<Summary>,
    /// Enforced power limit, W (last reading).
    pub power_limit_w: Option<f64>,
    /// Highest power limit the board allows, W (last reading).
    pub power_limit_max_w: Option<f64>,
    /// Temperature, °C.
    pub temperature_c: Option<Summary>,
    /// SM clock, MHz.
    pub sm_clock_mhz: Option<Summary>,
    /// Every clock event reason bit seen (OR of all samples).
    pub clock_event_reasons: u64,
    /// Names of those bits.
    pub clock_event_names: Vec<String>,
    /// Highest PCIe generation seen under load.
    pub pcie_gen_max: Option<u32>,
    /// Widest PCIe link seen under load, lanes.
    pub pcie_width_max: Option<u32>,
    /// Output after the load against the first output of the same kernel: elements beyond
    /// tolerance (a fault).
    pub post_load_mismatches: u64,
    /// Non-finite values in the output after the load.
    pub post_load_nonfinite: u64,
    /// Whether the after-load check was skipped (the load was cancelled).
    #[serde(default)]
    pub post_load_check_skipped: bool,
    /// The NVML samples taken during the load.
    pub samples: Vec<LoadSample>,
}

/// Everything measured on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceReport {
    /// Device index (CUDA ordinal; 0 for the CPU).
    pub index: usize,
    /// Name.
    pub name: String,
    /// UUID (`GPU-…`).
    pub uuid: Option<String>,
    /// Compute capability.
    pub compute_capability: Option<String>,
    /// Total memory, GiB.
    pub memory_total_gib: Option<f64>,
    /// Free memory before the probe allocated anything, GiB.
    pub memory_free_before_gib: Option<f64>,
    /// Free memory after the probe freed everything, GiB.
    pub memory_free_after_gib: Option<f64>,
    /// Enforced power limit, W (NVML, last reading during the run).
    pub power_limit_w: Option<f64>,
    /// Highest power limit the board allows, W (NVML).
    pub power_limit_max_w: Option<f64>,
    /// Matrix size used.
    pub matrix_size: usize,
    /// Host↔device bandwidth.
    pub bandwidth: Option<HostBandwidth>,
    /// GEMM results, one per precision run.
    pub gemm: Vec<GemmResult>,
    /// Precisions not run, with the reason.
    pub skipped: Vec<Skipped>,
    /// The sustained load.
    pub sustained: Option<SustainedSummary>,
    /// Any wrong output, NaN or run-to-run mismatch.
    pub faulty: bool,
    /// Errors (driver, library, panic).
    pub errors: Vec<String>,
}

/// The settings a report was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigSummary {
    /// Precisions requested.
    pub precisions: Vec<Precision>,
    /// Matrix size requested.
    pub requested_size: usize,
    /// Warm-up GEMMs.
    pub warmup_iterations: usize,
    /// Timed GEMMs.
    pub timed_iterations: usize,
    /// Sustained load, seconds.
    pub sustained_seconds: f64,
    /// Sustained load precision.
    pub sustained_precision: Option<Precision>,
    /// Host↔device copy size, bytes.
    pub bandwidth_bytes: u64,
    /// Known-answer samples per GEMM.
    pub check_samples: usize,
}

/// The probe's report (JSON layout version [`REPORT_SCHEMA_VERSION`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    /// Layout version.
    pub schema_version: u32,
    /// Kraftwerk version that wrote it.
    pub kraftwerk_version: String,
    /// Backend that ran.
    pub backend: Backend,
    /// Why this backend (e.g. why not CUDA).
    pub backend_note: Option<String>,
    /// Settings.
    pub config: ConfigSummary,
    /// What the measurements were graded against.
    pub expected: Option<ExpectedGpu>,
    /// Per device.
    pub devices: Vec<DeviceReport>,
    /// GPU↔GPU copies.
    pub peer_bandwidth: Vec<PeerBandwidth>,
    /// Graded checks ([`grade::grade_report`]).
    pub verdicts: Vec<Verdict>,
    /// Worst grade (`info` counts as pass).
    pub overall: Grade,
    /// Whether the run was cancelled.
    pub cancelled: bool,
    /// Wall time of the whole probe, seconds.
    pub wall_seconds: f64,
    /// Whole-run errors (backend unavailable).
    pub errors: Vec<String>,
}

impl ProbeReport {
    /// An empty report for `config`.
    fn new(config: &ProbeConfig, backend: Backend, expected: Option<&ExpectedGpu>) -> Self {
        Self {
            schema_version: REPORT_SCHEMA_VERSION,
            kraftwerk_version: env!("CARGO_PKG_VERSION").to_owned(),
            backend,
            backend_note: None,
            config: ConfigSummary {
                precisions: config.precisions.clone(),
                requested_size: config.size,
                warmup_iterations: config.warmup_iterations,
                timed_iterations: config.timed_iterations,
                sustained_seconds: config.sustained_seconds,
                sustained_precision: config.sustained(),
                bandwidth_bytes: config.bandwidth_bytes as u64,
                check_samples: config.check_samples,
            },
            expected: expected.cloned(),
            devices: Vec::new(),
            peer_bandwidth: Vec::new(),
            verdicts: Vec::new(),
            overall: Grade::Pass,
            cancelled: false,
            wall_seconds: 0.0,
            errors: Vec::new(),
        }
    }

    /// Fills `peak_tflops`/`fraction_of_peak` from `expected` and re-grades the report.
    pub fn regrade(&mut self) {
        for dev in &mut self.devices {
            for g in &mut dev.gemm {
                g.peak_tflops = self.expected.as_ref().and_then(|e| e.peak_tflops.get(&g.precision).copied());
                g.fraction_of_peak = g.peak_tflops.filter(|p| *p > 0.0).map(|p| g.tflops.median / p);
            }
        }
        self.verdicts = grade::grade_report(self);
        self.overall = grade::overall(&self.verdicts);
    }

    /// Whether any check failed (the CLI exits 1).
    pub fn failed(&self) -> bool {
        self.overall == Grade::Fail
    }
}

/// Runs the probe on every GPU through CUDA when it is present (or as `config.backend` says),
/// else on the CPU, and grades it against `expected` when given.
pub fn run_probe(config: &ProbeConfig, expected: Option<&ExpectedGpu>) -> ProbeReport {
    let started = Instant::now();
    let cuda = cuda_factories(config);
    let mut report = match (config.backend, cuda) {
        (BackendChoice::Cpu, _) => {
            let mut r = run_devices(vec![cpu::factory()], config, expected, Backend::Cpu, false);
            r.backend_note = Some("CPU backend requested".to_owned());
            r
        }
        (BackendChoice::Auto | BackendChoice::Cuda, Ok((factories, peer))) => {
            let mut r = run_devices(factories, config, expected, Backend::Cuda, true);
            if !r.cancelled && r.devices.len() > 1 && config.peer_bandwidth_bytes > 0 {
                config.send(None, ProbePhase::PeerBandwidth, 0.0, "GPU to GPU copies".to_owned());
                r.peer_bandwidth = peer(config);
            }
            r
        }
        (BackendChoice::Auto, Err(e)) => {
            let mut r = run_devices(vec![cpu::factory()], config, expected, Backend::Cpu, false);
            r.backend_note = Some(format!("CPU backend: CUDA not used ({e})"));
            r
        }
        (BackendChoice::Cuda, Err(e)) => {
            let mut r = ProbeReport::new(config, Backend::Cuda, expected);
            r.errors.push(e.to_string());
            r
        }
    };
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.regrade();
    config.send(None, ProbePhase::Finished, 1.0, "probe finished".to_owned());
    report
}

/// GPU↔GPU bandwidth measurement, run after the per-device probes.
type PeerProbe = Box<dyn FnOnce(&ProbeConfig) -> Vec<PeerBandwidth>>;

#[cfg(feature = "cuda")]
fn cuda_factories(config: &ProbeConfig) -> Result<(Vec<DeviceFactory>, PeerProbe), ProbeError> {
    if config.backend == BackendChoice::Cpu {
        return Err(ProbeError::Unavailable("not requested".to_owned()));
    }
    let count = cuda::device_count()?;
    let factories = (0..count).map(|i| Box::new(move || cuda::open(i)) as DeviceFactory).collect();
    Ok((factories, Box::new(move |cfg: &ProbeConfig| cuda::peer_bandwidth(count, cfg))))
}

#[cfg(not(feature = "cuda"))]
fn cuda_factories(_config: &ProbeConfig) -> Result<(Vec<DeviceFactory>, PeerProbe), ProbeError> {
    Err(ProbeError::Unavailable("built without the `cuda` feature".to_owned()))
}

/// Runs one thread per device factory, all at once, and returns the graded report.
///
/// `nvml`: sample NVML during the run (for real GPUs; matched by UUID).
pub fn run_devices(
    factories: Vec<DeviceFactory>,
    config: &ProbeConfig,
    expected: Option<&ExpectedGpu>,
    backend: Backend,
    nvml: bool,
) -> ProbeReport {
    let started = Instant::now();
    let mut report = ProbeReport::new(config, backend, expected);
    let count = factories.len();
    let gate = Arc::new(Gate::new(count));
    // Host↔device copies run one device at a time: run together they share the host's memory
    // and root complex (two H200s copying at once measured 48 instead of 55 GB/s each).
    let copy_lock = Arc::new(Mutex::new(()));
    let uuids: Arc<Mutex<Vec<Option<String>>>> = Arc::new(Mutex::new(vec![None; count]));
    let stop_sampler = Arc::new(AtomicBool::new(false));
    let sampler_thread = nvml.then(|| {
        sampler::spawn(
            Arc::clone(&uuids),
            Arc::clone(&stop_sampler),
            started,
            Duration::from_millis(config.sample_interval_ms.max(10)),
        )
    });

    let mut handles = Vec::with_capacity(count);
    for (index, factory) in factories.into_iter().enumerate() {
        let cfg = config.clone();
        let gate = Arc::clone(&gate);
        let copy_lock = Arc::clone(&copy_lock);
        let uuids = Arc::clone(&uuids);
        let spawned = std::thread::Builder::new().name(format!("kraftwerk-probe-{index}")).spawn(move || {
            let arrival = gate.arrival();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let mut dev = factory()?;
                if let Some(u) = dev.info().uuid {
                    let mut guard = uuids.lock().unwrap_or_else(PoisonError::into_inner);
                    guard[index] = Some(u);
                }
                let out = probe_device(dev.as_mut(), &cfg, index, started, &arrival, &copy_lock);
                Ok::<_, ProbeError>(out)
            }));
            drop(arrival);
            match outcome {
                Ok(Ok(out)) => out,
                Ok(Err(e)) => DeviceOutcome::failed(index, &e.to_string()),
                Err(panic) => DeviceOutcome::failed(index, &ProbeError::Panic(panic_message(&*panic)).to_string()),
            }
        });
        handles.push((index, spawned));
    }
    let mut outcomes = Vec::with_capacity(count);
    for (index, h) in handles {
        let out = match h {
            Ok(h) => h.join().unwrap_or_else(|p| DeviceOutcome::failed(index, &panic_message(&*p))),
            Err(e) => DeviceOutcome::failed(index, &format!("cannot start thread: {e}")),
        };
        outcomes.push(out);
    }
    stop_sampler.store(true, Ordering::Relaxed);
    let samples = sampler_thread.and_then(|h| h.join().ok()).unwrap_or_default();

    for mut out in outcomes {
        let all = samples.get(out.report.index).map_or(&[][..], Vec::as_slice);
        out.report.power_limit_w = all.iter().rev().find_map(|x| x.power_limit_w);
        out.report.power_limit_max_w = all.iter().rev().find_map(|x| x.power_limit_max_w);
        if let (Some(s), Some((t0, t1))) = (out.report.sustained.as_mut(), out.sustained_window) {
            let window: Vec<LoadSample> =
                all.iter().filter(|x| x.t_seconds >= t0 && x.t_seconds <= t1).cloned().collect();
            sampler::summarize(s, window);
        }
        report.cancelled |= out.cancelled;
        report.devices.push(out.report);
    }
    report.cancelled |= config.cancelled();
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.regrade();
    report
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// What one device thread hands back.
struct DeviceOutcome {
    report: DeviceReport,
    /// Start and end of the sustained load, seconds since the probe started.
    sustained_window: Option<(f64, f64)>,
    cancelled: bool,
}

impl DeviceOutcome {
    fn failed(index: usize, error: &str) -> Self {
        Self {
            report: DeviceReport {
                index,
                name: format!("device {index}"),
                uuid: None,
                compute_capability: None,
                memory_total_gib: None,
                memory_free_before_gib: None,
                memory_free_after_gib: None,
                power_limit_w: None,
                power_limit_max_w: None,
                matrix_size: 0,
                bandwidth: None,
                gemm: Vec::new(),
                skipped: Vec::new(),
                sustained: None,
                faulty: false,
                errors: vec![error.to_owned()],
            },
            sustained_window: None,
            cancelled: false,
        }
    }
}

/// Makes the devices start their sustained load together, so the machine sees the full load.
/// A device that will not take part (done, failed, panicked) counts as arrived when its
/// [`Arrival`] drops; nobody waits longer than [`Gate::TIMEOUT`].
struct Gate {
    arrived: Mutex<usize>,
    all: Condvar,
    total: usize,
}

impl Gate {
    const TIMEOUT: Duration = Duration::from_mins(5);

    fn new(total: usize) -> Self {
        Self { arrived: Mutex::new(0), all: Condvar::new(), total }
    }

    fn arrival(self: &Arc<Self>) -> Arrival {
        Arrival { gate: Arc::clone(self), done: AtomicBool::new(false) }
    }
}

/// One device's place at the [`Gate`].
struct Arrival {
    gate: Arc<Gate>,
    done: AtomicBool,
}

impl Arrival {
    fn arrive(&self) {
        if !self.done.swap(true, Ordering::AcqRel) {
            let mut n = self.gate.arrived.lock().unwrap_or_else(PoisonError::into_inner);
            *n += 1;
            self.gate.all.notify_all();
        }
    }

    /// Arrives and waits for the others (or cancel, or the timeout).
    fn wait(&self, cancel: &AtomicBool) {
        self.arrive();
        let deadline = Instant::now() + Gate::TIMEOUT;
        let mut n = self.gate.arrived.lock().unwrap_or_else(PoisonError::into_inner);
        while *n < self.gate.total && !cancel.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            n = self
                .gate
                .all
                .wait_timeout(n, left.min(Duration::from_millis(100)))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Arrival {
    fn drop(&mut self) {
        self.arrive();
    }
}

/// Whether a tolerance ratio fails (above 1, or NaN).
fn exceeds(ratio: f64) -> bool {
    ratio.is_nan() || ratio > 1.0
}

/// GEMM flops of one `n`×`n`×`n` product.
fn gemm_flops(n: usize) -> f64 {
    2.0 * (n as f64).powi(3)
}

fn tflops_of(n: usize, seconds: &[f64]) -> Vec<f64> {
    let flops = gemm_flops(n);
    seconds.iter().map(|s| flops / s / 1e12).collect()
}

/// Seed of the inputs of one device and precision.
fn input_seed(config: &ProbeConfig, index: usize, precision: Precision) -> u64 {
    config.seed ^ ((index as u64) << 40) ^ ((precision as u64 + 1) << 32)
}

/// The whole run on one device.
fn probe_device(
    dev: &mut dyn GemmDevice,
    cfg: &ProbeConfig,
    index: usize,
    clock: Instant,
    arrival: &Arrival,
    copy_lock: &Mutex<()>,
) -> DeviceOutcome {
    let info = dev.info();
    let mut out = DeviceOutcome::failed(index, "");
    out.report.errors.clear();
    out.report.name.clone_from(&info.name);
    out.report.uuid.clone_from(&info.uuid);
    out.report.compute_capability.clone_from(&info.compute_capability);
    out.report.memory_total_gib = info.memory_total_bytes.map(|b| b as f64 / GIB);
    out.report.memory_free_before_gib = dev.memory_free_bytes().map(|b| b as f64 / GIB);
    let n = dev.fit_size(cfg.size);
    out.report.matrix_size = n;
    cfg.send(Some(index), ProbePhase::Starting, 0.0, format!("{}: n = {n}", info.name));

    let sustained = cfg.sustained().filter(|_| cfg.sustained_seconds > 0.0);
    let mut order: Vec<Precision> = cfg.precisions.iter().copied().filter(|p| Some(*p) != sustained).collect();
    order.extend(sustained.filter(|p| cfg.precisions.contains(p)));
    order.dedup();
    let steps =
        order.len() as f64 + f64::from(u8::from(sustained.is_some())) + f64::from(u8::from(cfg.bandwidth_bytes > 0));
    let mut done = 0.0;

    if cfg.bandwidth_bytes > 0 && !cfg.cancelled() {
        cfg.send(Some(index), ProbePhase::Bandwidth, 0.0, "host to device copies".to_owned());
        let copies = {
            let _one_at_a_time = copy_lock.lock().unwrap_or_else(PoisonError::into_inner);
            dev.host_bandwidth(cfg.bandwidth_bytes, &cfg.cancel)
        };
        match copies {
            Some(Ok(bw)) => out.report.bandwidth = Some(bw),
            Some(Err(ProbeError::Cancelled)) | None => {}
            Some(Err(e)) => out.report.errors.push(format!("bandwidth: {e}")),
        }
        done += 1.0;
    }

    // The sustained precision runs last and stays loaded for the sustained load.
    let mut sustained_state: Option<(usize, Vec<f32>, f64)> = None;
    for &p in &order {
        if cfg.cancelled() {
            break;
        }
        cfg.send(Some(index), ProbePhase::Gemm(p), done / steps, format!("{p} GEMMs, n = {n}"));
        if let Err(reason) = dev.support(p) {
            out.report.skipped.push(Skipped { precision: p, reason });
            done += 1.0;
            continue;
        }
        let keep = Some(p) == sustained;
        match gemm_precision(dev, cfg, index, p, n, keep) {
            Ok(Some((result, state))) => {
                out.report.faulty |= !result.all_passed();
                out.report.gemm.push(result);
                if keep {
                    sustained_state = state;
                } else {
                    dev.unload();
                }
            }
            Ok(None) => dev.unload(),
            Err(ProbeError::Cancelled) => {
                dev.unload();
                break;
            }
            Err(e) => {
                out.report.errors.push(format!("{p}: {e}"));
                dev.unload();
            }
        }
        done += 1.0;
    }

    if let (Some(p), Some((kernel, first, typical)), false) = (sustained, sustained_state, cfg.cancelled()) {
        cfg.send(Some(index), ProbePhase::Waiting, done / steps, "waiting for the other devices".to_owned());
        arrival.wait(&cfg.cancel);
        let t0 = clock.elapsed().as_secs_f64();
        match sustain(dev, cfg, index, p, n, kernel, &first, typical, (done, steps)) {
            Ok(s) => {
                out.report.faulty |= s.post_load_mismatches > 0 || s.post_load_nonfinite > 0;
                out.report.sustained = Some(s);
                out.sustained_window = Some((t0, clock.elapsed().as_secs_f64()));
            }
            Err(ProbeError::Cancelled) => {}
            Err(e) => out.report.errors.push(format!("sustained {p}: {e}")),
        }
    }
    arrival.arrive();
    dev.unload();
    dev.release();
    out.report.memory_free_after_gib = dev.memory_free_bytes().map(|b| b as f64 / GIB);
    out.cancelled = cfg.cancelled();
    cfg.send(Some(index), ProbePhase::Finished, 1.0, "done".to_owned());
    out
}

/// What the sustained load needs from the GEMM phase: best kernel, its first output, and the
/// typical `Σ|a·b|`.
type SustainState = (usize, Vec<f32>, f64);

/// Loads, checks and times every kernel of one precision.
#[allow(clippy::many_single_char_names, reason = "GEMM operands a, b, n and precision p")]
fn gemm_precision(
    dev: &mut dyn GemmDevice,
    cfg: &ProbeConfig,
    index: usize,
    p: Precision,
    n: usize,
    keep_first: bool,
) -> Result<Option<(GemmResult, Option<SustainState>)>, ProbeError> {
    if n == 0 {
        return Ok(None);
    }
    let seed = input_seed(cfg, index, p);
    let a = numeric::random_matrix(n, seed, p.input_format());
    let check_cancel = || {
        if cfg.cancelled() { Err(ProbeError::Cancelled) } else { Ok(()) }
    };
    check_cancel()?;
    let b = numeric::random_matrix(n, seed ^ 0x5555_5555, p.input_format());
    check_cancel()?;
    let typical = n as f64 * numeric::mean_abs(&a) * numeric::mean_abs(&b);
    dev.load(p, n, &a, &b)?;
    // Asked after loading: a backend may drop a variant it could not plan for these inputs.
    let kernels = dev.kernels(p);
    if kernels.is_empty() {
        return Ok(None);
    }
    let mut timings: Vec<(KernelTiming, Option<Vec<f32>>)> = Vec::with_capacity(kernels.len());
    for (k, name) in kernels.iter().enumerate() {
        check_cancel()?;
        dev.run(k, 1)?;
        let first = dev.output()?;
        let mut check = CheckResult::default();
        let ka = numeric::known_answer(p, n, &a, &b, &first, cfg.check_samples, seed ^ 0x1234);
        check.samples = ka.samples;
        check.max_err_over_sum_abs = ka.max_err_over_sum_abs;
        check.max_tolerance_ratio = ka.max_tolerance_ratio;
        check.nonfinite_outputs = numeric::count_nonfinite(&first);
        if check.nonfinite_outputs > 0 {
            check.faults.push(format!("{} non-finite outputs (NaN/Inf)", check.nonfinite_outputs));
        }
        if exceeds(ka.max_tolerance_ratio) {
            let (i, j, got, want) = ka.worst.unwrap_or((0, 0, f32::NAN, f64::NAN));
            check.faults.push(format!(
                "known answer: C[{i}][{j}] = {got} but the f64 reference is {want:.6} ({:.1}x the tolerance)",
                ka.max_tolerance_ratio
            ));
        }
        check_cancel()?;
        check.freivalds_ratio = numeric::freivalds(p, n, &a, &b, &first, seed ^ 0x4321);
        if exceeds(check.freivalds_ratio) {
            check.faults.push(format!("whole-matrix (Freivalds) check: {:.1}x the bound", check.freivalds_ratio));
        }
        check_cancel()?;
        if cfg.warmup_iterations > 0 {
            dev.run(k, cfg.warmup_iterations)?;
        }
        check_cancel()?;
        let seconds = dev.run(k, cfg.timed_iterations.max(1))?;
        let second = dev.output()?;
        let r2r = numeric::run_to_run(p, &first, &second, typical);
        check.run_to_run_compared = r2r.compared;
        check.run_to_run_bitwise_differing = r2r.bitwise_differing;
        check.run_to_run_mismatches = r2r.mismatches;
        if r2r.mismatches > 0 {
            check
                .faults
                .push(format!("run to run: {} of {} outputs changed beyond tolerance", r2r.mismatches, r2r.compared));
        }
        let tflops = Summary::of(&tflops_of(n, &seconds))
            .ok_or_else(|| ProbeError::device(format!("{p} {name}"), "no valid timing"))?;
        timings.push((KernelTiming { library: (*name).to_owned(), tflops, check }, keep_first.then_some(first)));
    }
    let best = timings
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.0.tflops.median.total_cmp(&y.1.0.tflops.median))
        .map_or(0, |(i, _)| i);
    let (best_timing, first) = timings.swap_remove(best);
    let mut alternatives: Vec<KernelTiming> = timings.into_iter().map(|t| t.0).collect();
    alternatives.sort_by(|x, y| x.library.cmp(&y.library));
    let kernel_index = kernels.iter().position(|k| *k == best_timing.library).unwrap_or(0);
    let seconds_per_gemm = gemm_flops(n) / (best_timing.tflops.median * 1e12);
    let result = GemmResult {
        precision: p,
        n,
        library: best_timing.library,
        timed_iterations: cfg.timed_iterations.max(1),
        tflops: best_timing.tflops,
        seconds_per_gemm,
        peak_tflops: None,
        fraction_of_peak: None,
        check: best_timing.check,
        alternatives,
    };
    // Every kernel reads the same loaded inputs, so the sustained load can run the best one.
    Ok(Some((result, first.map(|f| (kernel_index, f, typical)))))
}

/// The sustained load: GEMMs in chunks of about 0.25 s until `sustained_seconds` pass or
/// cancel; then a run-to-run check of the last output against the first.
#[allow(clippy::too_many_arguments, reason = "internal step of probe_device with its loop state")]
fn sustain(
    dev: &mut dyn GemmDevice,
    cfg: &ProbeConfig,
    index: usize,
    p: Precision,
    n: usize,
    kernel: usize,
    first: &[f32],
    typical: f64,
    (done, steps): (f64, f64),
) -> Result<SustainedSummary, ProbeError> {
    let started = Instant::now();
    let mut chunk = 1usize;
    let mut chunk_tflops = Vec::new();
    let mut gemms = 0u64;
    let mut busy_seconds = 0f64;
    while started.elapsed().as_secs_f64() < cfg.sustained_seconds {
        if cfg.cancelled() {
            break;
        }
        let secs = dev.run(kernel, chunk)?;
        let total: f64 = secs.iter().sum();
        gemms += secs.len() as u64;
        busy_seconds += total;
        if total > 0.0 {
            chunk_tflops.push(gemm_flops(n) * secs.len() as f64 / total / 1e12);
            // Aim at 0.25 s per chunk (short enough for a prompt cancel), less near the end.
            let per = total / secs.len() as f64;
            let left = cfg.sustained_seconds - started.elapsed().as_secs_f64();
            chunk = ((left.min(0.25) / per) as usize).clamp(1, 10_000);
        }
        let elapsed = started.elapsed().as_secs_f64();
        cfg.send(
            Some(index),
            ProbePhase::Sustained,
            (done + (elapsed / cfg.sustained_seconds).min(1.0)) / steps,
            format!("sustained {p}: {elapsed:.0} of {:.0} s", cfg.sustained_seconds),
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    // Cancelled: keep what ran, skip the after-load check (reading the output back and
    // comparing it takes a good part of the one second a cancel may take).
    let skipped = cfg.cancelled();
    if skipped && gemms == 0 {
        return Err(ProbeError::Cancelled);
    }
    let (r2r, nonfinite) = if skipped {
        (numeric::RunToRun::default(), 0)
    } else {
        let last = dev.output()?;
        (numeric::run_to_run(p, first, &last, typical), numeric::count_nonfinite(&last))
    };
    let kernels = dev.kernels(p);
    Ok(SustainedSummary {
        precision: p,
        n,
        library: kernels.get(kernel).map_or_else(String::new, |k| (*k).to_owned()),
        seconds,
        gemms,
        tflops_mean: if busy_seconds > 0.0 { gemm_flops(n) * gemms as f64 / busy_seconds / 1e12 } else { 0.0 },
        tflops: Summary::of(&chunk_tflops),
        power_w: None,
        power_instant_w: None,
        power_limit_w: None,
        power_limit_max_w: None,
        temperature_c: None,
        sm_clock_mhz: None,
        clock_event_reasons: 0,
        clock_event_names: Vec::new(),
        pcie_gen_max: None,
        pcie_width_max: None,
        post_load_mismatches: r2r.mismatches,
        post_load_nonfinite: nonfinite,
        post_load_check_skipped: skipped,
        samples: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_values() {
        let s = Summary::of(&[3.0, 1.0, f64::NAN, 2.0, 10.0]).expect("values");
        assert_eq!((s.median, s.min, s.max, s.n), (2.5, 1.0, 10.0, 4));
        assert!(Summary::of(&[f64::NAN]).is_none());
    }

    #[test]
    fn precision_parses_and_prints() {
        for p in Precision::ALL {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
        }
        assert!("int4".parse::<Precision>().is_err());
    }

    #[test]
    fn sustained_prefers_bf16() {
        let mut c = ProbeConfig::default();
        assert_eq!(c.sustained(), Some(Precision::Bf16));
        c.precisions = vec![Precision::Fp32, Precision::Fp16];
        assert_eq!(c.sustained(), Some(Precision::Fp32));
        c.sustained_precision = Some(Precision::Fp16);
        assert_eq!(c.sustained(), Some(Precision::Fp16));
    }
}

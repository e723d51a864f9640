//! The GEMM probe: proves each GPU computes correctly, at the expected speed, under load.
//!
//! Per device (GPU, or the CPU when CUDA is absent) on its own named thread, all at once:
//! 1. host↔device copy bandwidth, pinned and pageable, each direction (one device at a time);
//! 2. square GEMMs `C = A·B` (row-major, `n`×`n`) in each requested [`GemmPrecision`] the device
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
//! The report ([`ProbeReport`], versioned JSON) is graded by the pure functions in [`checks`]
//! with the thresholds of [`crate::grading`]. Backends: [`cuda`] (cuBLAS and
//! cuBLASLt through cudarc, feature `cuda`) and [`cpu`] (the `matrixmultiply` crate, so the whole
//! pipeline runs in CI); [`run_probe`] picks one. Backends implement [`GemmDevice`]; tests wrap
//! one to plant faults.

pub mod checks;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
mod load_sampler;
pub mod numeric;
pub mod precision;
mod report;
mod run;

/// The former name of [`GemmPrecision`], kept only until `src/ui` moves to the new name (the
/// LLM's weight `Precision` keeps that name); remove it then.
pub use self::GemmPrecision as Precision;
pub use checks::{Grade, ProbeCheck};
pub use precision::GemmPrecision;
pub use report::*;
pub use run::{cuda_unusable_message, run_devices, run_probe};

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

/// The names of [`GemmPrecision`]'s `Display`, case-insensitive (here, with the probe's error type).
impl FromStr for GemmPrecision {
    type Err = ProbeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ProbeError::Invalid(format!("unknown precision `{s}` (fp32, tf32, fp16, bf16, fp8)")))
    }
}

/// Which backend [`run_probe`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// CUDA when a driver, cuBLAS, cuBLASLt and a GPU are present; the CPU only when NVML sees
    /// no NVIDIA GPU. When NVML sees NVIDIA GPUs but CUDA cannot use them, a failed report
    /// that names the CUDA error and the fix (never a CPU run that passes).
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
    Gemm(GemmPrecision),
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
    pub precisions: Vec<GemmPrecision>,
    /// Requested matrix size `n`; devices use less when memory is short (GPU) or to keep a
    /// GEMM short (CPU backend: at most [`cpu::MAX_SIZE`]).
    pub size: usize,
    /// Untimed GEMMs after the first (checked) one, per kernel.
    pub warmup_iterations: usize,
    /// Timed GEMMs per kernel.
    pub timed_iterations: usize,
    /// Duration of the sustained load, seconds (0 skips it).
    pub sustained_seconds: f64,
    /// GemmPrecision of the sustained load; `None` = bf16 when requested, else the first.
    pub sustained_precision: Option<GemmPrecision>,
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
            precisions: GemmPrecision::ALL.to_vec(),
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
    pub fn sustained(&self) -> Option<GemmPrecision> {
        self.sustained_precision
            .filter(|p| self.precisions.contains(p))
            .or_else(|| self.precisions.iter().copied().find(|&p| p == GemmPrecision::Bf16))
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
    /// Model name (`H200 SXM`); also selects the achievable fraction ([`checks::achievable_fraction`]).
    pub name: String,
    /// Dense datasheet peak per precision, TFLOP/s (no sparsity; FP32 accumulate).
    pub peak_tflops: BTreeMap<GemmPrecision, f64>,
    /// PCIe generation of the host link the GPU should get.
    pub pcie_gen: Option<u8>,
    /// PCIe lanes of the host link the GPU should get.
    pub pcie_lanes: Option<u8>,
    /// Where the figures come from (datasheet URL or catalog id).
    pub source: Option<String>,
    /// NVLink bandwidth per GPU through NVSwitch, both directions, GB/s (SXM modules; catalog);
    /// `None` when GPUs talk over PCIe.
    #[serde(default)]
    pub nvlink_gb_s: Option<f64>,
}

impl ExpectedGpu {
    /// The expectations of a catalog GPU: its dense peaks and its own PCIe link.
    pub fn from_catalog(gpu: &kraftwerk_catalog::Gpu) -> Self {
        let peak_tflops = GemmPrecision::ALL
            .into_iter()
            .filter_map(|k| crate::grading::catalog_peak_tflops(gpu, k).map(|v| (k, v)))
            .collect();
        Self {
            name: format!("{} {}", gpu.vendor, gpu.name),
            peak_tflops,
            pcie_gen: Some(gpu.pcie_gen),
            pcie_lanes: Some(gpu.pcie_lanes),
            source: Some(format!("catalog `{}` ({})", gpu.id, gpu.source)),
            nvlink_gb_s: match gpu.nvlink {
                kraftwerk_catalog::NvLink::Sxm { bandwidth_gb_s } => Some(bandwidth_gb_s),
                _ => None,
            },
        }
    }
}

/// The catalog GPU a probed device is: by name (`NVIDIA H200` ↔ `H200 SXM`: equal after the
/// vendor, else the catalog name starts with the device name), and among several by the board's
/// highest power limit `power_limit_max_w` as NVML reports it (H200 SXM 700 W, H200 NVL 600 W;
/// within 5 %). `Err` lists the ids still tied.
pub fn match_catalog_gpu<'c>(
    catalog: &'c kraftwerk_catalog::Catalog,
    device_name: &str,
    power_limit_max_w: Option<f64>,
) -> Result<Option<&'c kraftwerk_catalog::Gpu>, Vec<String>> {
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
    fn support(&self, precision: GemmPrecision) -> Result<(), String>;
    /// The matrix size to use when `requested` is asked for (fits memory, keeps GEMMs short).
    fn fit_size(&self, requested: usize) -> usize;
    /// Names of the kernel variants for `precision` (library names); each is timed.
    fn kernels(&self, precision: GemmPrecision) -> Vec<&'static str>;
    /// Stores the inputs (already rounded to `precision.input_format()`) on the device.
    fn load(&mut self, precision: GemmPrecision, n: usize, a: &[f32], b: &[f32]) -> Result<(), ProbeError>;
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
        for p in GemmPrecision::ALL {
            assert_eq!(p.name().parse::<GemmPrecision>(), Ok(p));
        }
        assert!("int4".parse::<GemmPrecision>().is_err());
    }

    #[test]
    fn sustained_prefers_bf16() {
        let mut c = ProbeConfig::default();
        assert_eq!(c.sustained(), Some(GemmPrecision::Bf16));
        c.precisions = vec![GemmPrecision::Fp32, GemmPrecision::Fp16];
        assert_eq!(c.sustained(), Some(GemmPrecision::Fp32));
        c.sustained_precision = Some(GemmPrecision::Fp16);
        assert_eq!(c.sustained(), Some(GemmPrecision::Fp16));
    }
}

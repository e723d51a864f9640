//! The probe's report types: per-kernel checks and timings, GEMM results, copy bandwidths,
//! NVML load samples, the sustained load, per-device and whole-run reports (versioned JSON,
//! [`REPORT_SCHEMA_VERSION`]).

use super::checks;
use super::{Backend, ExpectedGpu, GemmPrecision, Grade, ProbeCheck, ProbeConfig, REPORT_SCHEMA_VERSION, Summary};
use serde::{Deserialize, Serialize};

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
    /// GemmPrecision.
    pub precision: GemmPrecision,
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
    pub(crate) fn all_passed(&self) -> bool {
        self.check.passed() && self.alternatives.iter().all(|k| k.check.passed())
    }
}

/// A precision a device did not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// GemmPrecision.
    pub precision: GemmPrecision,
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
    /// GemmPrecision of the load.
    pub precision: GemmPrecision,
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
    pub precisions: Vec<GemmPrecision>,
    /// Matrix size requested.
    pub requested_size: usize,
    /// Warm-up GEMMs.
    pub warmup_iterations: usize,
    /// Timed GEMMs.
    pub timed_iterations: usize,
    /// Sustained load, seconds.
    pub sustained_seconds: f64,
    /// Sustained load precision.
    pub sustained_precision: Option<GemmPrecision>,
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
    /// Graded checks ([`checks::grade_report`]).
    pub verdicts: Vec<ProbeCheck>,
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
    pub(super) fn new(config: &ProbeConfig, backend: Backend, expected: Option<&ExpectedGpu>) -> Self {
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
        self.verdicts = checks::grade_report(self);
        self.overall = checks::overall(&self.verdicts);
    }

    /// Whether any check failed (the CLI exits 1).
    pub fn failed(&self) -> bool {
        self.overall == Grade::Fail
    }
}

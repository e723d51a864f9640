//! The one grading source of `live`: the [`Grade`] scale, every threshold, the table of
//! achievable GEMM fractions, the precision → datasheet-peak map and the grading functions the
//! probe ([`super::probe::checks`]), the links ([`super::links::checks`]) and validation
//! ([`super::validate`]) all call, so the same measurement gets the same grade everywhere.
//!
//! Sources of the figures:
//! - DCGM diagnostics (clock-event failure mask, targeted power at least 0.75 × target, 80 % of
//!   expected bandwidth): <https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html>
//!   and `nvvs/diag-skus.yaml.in` in <https://github.com/NVIDIA/DCGM>.
//! - Best measured matmul fractions: stas00, ml-engineering, "Maximum Achievable Matmul FLOPS
//!   comparison table",
//!   <https://github.com/stas00/ml-engineering/tree/master/compute/accelerator#maximum-achievable-matmul-flops-comparison-table>.
//! - TF32 and FP32 fractions: our own H200 measurement (`tests/fixtures/probe-h200.json`:
//!   TF32 0.81, FP32 0.77 of the dense peak).

use super::probe::precision::GemmPrecision;
use serde::{Deserialize, Serialize};

/// The grade of one check, in increasing severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// As expected.
    Pass,
    /// Worth knowing, not a problem (e.g. power capping at full load).
    Info,
    /// Below expectations; look into it.
    Warn,
    /// Could have found a fault but measured nothing to judge (no sample under load, no probe
    /// data, no GPU in a report): not a pass. Ranked above `Warn` so that an overall verdict
    /// with an unmeasured check never reads as a pass with warnings; only `Fail` is worse.
    #[serde(rename = "not_measured")]
    NotMeasured,
    /// Broken: wrong results, thermal/hardware slowdown, far too slow, device errors.
    Fail,
}

impl Grade {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::NotMeasured => "not measured",
            Self::Fail => "fail",
        }
    }

    /// The worst of `grades`, info counting as pass; `Pass` for none.
    pub fn worst(grades: impl IntoIterator<Item = Grade>) -> Grade {
        grades.into_iter().map(|g| if g == Grade::Info { Grade::Pass } else { g }).max().unwrap_or(Grade::Pass)
    }
}

/// TFLOP/s at or above this fraction of the achievable rate passes (DCGM-style 90 %).
pub const TFLOPS_WARN_BELOW: f64 = 0.9;
/// TFLOP/s below this fraction of the achievable rate fails (unless the fraction is assumed).
pub const TFLOPS_FAIL_BELOW: f64 = 0.75;
/// A device below this fraction of its identical siblings' median is slow (5 % or more below).
pub const SIBLING_WARN_BELOW: f64 = 0.95;
/// Any bandwidth (host↔device, GPU↔GPU, all-reduce busbw) below this fraction of the expected
/// figure warns (DCGM: under 80 % of the expected figure).
pub const BANDWIDTH_WARN_BELOW: f64 = 0.8;
/// Free memory after a run may be this much (GiB) below the start before it is "not released".
pub const MEMORY_SLACK_GIB: f64 = 0.25;
/// Average power under full load must reach this fraction of the limit (DCGM targeted power).
pub const POWER_MIN_FRACTION: f64 = 0.75;
/// An enforced power limit within this fraction of the build's passes.
pub(crate) const POWER_LIMIT_TOLERANCE: f64 = 0.05;
/// Installed memory at or above this fraction of the catalog's passes (the driver reserves some).
pub(crate) const MEMORY_TOTAL_MIN_FRACTION: f64 = 0.97;

/// The best fraction of the dense peak a GEMM is known to reach on a GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AchievableFraction {
    /// Fraction of the dense datasheet peak, 0 to 1.
    pub fraction: f64,
    /// Where it comes from.
    pub source: &'static str,
    /// Whether it was measured on this GPU model (else assumed: grades never fail then).
    pub measured: bool,
}

/// The best measured matmul fraction for `gpu_name` and `precision`.
///
/// Measured (stas00 ml-engineering, see the module docs): BF16 A100 SXM 86.9 %, A100 PCIe
/// 81.1 %, H100/H200 SXM 80.3 %; FP8 H100 70.9 %, H200 73.4 %. FP16 uses the BF16 figure (same
/// tensor-core rate); TF32 and FP32 do too, which our H200 measurement supports. Unknown GPUs
/// get 80.3 % (70.9 % for FP8), marked as assumed.
pub fn achievable_fraction(gpu_name: &str, precision: GemmPrecision) -> AchievableFraction {
    let name = gpu_name.to_ascii_uppercase();
    let stas = "stas00 ml-engineering: maximum achievable matmul FLOPS";
    if precision == GemmPrecision::Fp8 {
        return if name.contains("H200") {
            AchievableFraction { fraction: 0.734, source: stas, measured: true }
        } else if name.contains("H100") {
            AchievableFraction { fraction: 0.709, source: stas, measured: true }
        } else {
            AchievableFraction { fraction: 0.709, source: "assumed: H100 FP8 figure", measured: false }
        };
    }
    if name.contains("A100") && name.contains("PCIE") {
        AchievableFraction { fraction: 0.811, source: stas, measured: true }
    } else if name.contains("A100") {
        AchievableFraction { fraction: 0.869, source: stas, measured: true }
    } else if name.contains("H100") || name.contains("H200") {
        AchievableFraction { fraction: 0.803, source: stas, measured: true }
    } else {
        AchievableFraction { fraction: 0.803, source: "assumed: H100/H200 SXM BF16 figure", measured: false }
    }
}

/// The catalog GPU's dense datasheet peak for `precision`, TFLOP/s (the one precision → peak
/// map of `live`); `None` where the catalog has no figure.
pub(crate) fn catalog_peak_tflops(gpu: &kraftwerk_catalog::Gpu, precision: GemmPrecision) -> Option<f64> {
    let p = &gpu.peak;
    match precision {
        GemmPrecision::Fp32 => p.fp32,
        GemmPrecision::Tf32 => p.tf32,
        GemmPrecision::Fp16 => p.fp16,
        GemmPrecision::Bf16 => p.bf16,
        GemmPrecision::Fp8 => p.fp8,
    }
}

/// A GEMM rate graded against its datasheet peak.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TflopsGrade {
    /// The grade.
    pub grade: Grade,
    /// Dense peak, TFLOP/s.
    pub peak_tflops: f64,
    /// The achievable fraction used.
    pub fraction: AchievableFraction,
    /// `peak_tflops × fraction`, TFLOP/s.
    pub achievable_tflops: f64,
    /// Measured over achievable.
    pub ratio: f64,
}

/// Grades `measured_tflops` against `peak_tflops` × the achievable fraction of `gpu_name` at
/// `precision`: at least [`TFLOPS_WARN_BELOW`] of it passes, under [`TFLOPS_FAIL_BELOW`] fails,
/// between warns; a fraction that is assumed (not measured on this model) never grades fail.
/// `None` without a positive peak.
pub fn grade_tflops(
    measured_tflops: f64,
    peak_tflops: Option<f64>,
    gpu_name: &str,
    precision: GemmPrecision,
) -> Option<TflopsGrade> {
    let peak = peak_tflops.filter(|p| *p > 0.0)?;
    let fraction = achievable_fraction(gpu_name, precision);
    let achievable = peak * fraction.fraction;
    let ratio = measured_tflops / achievable;
    let mut grade = if ratio >= TFLOPS_WARN_BELOW {
        Grade::Pass
    } else if ratio >= TFLOPS_FAIL_BELOW {
        Grade::Warn
    } else {
        Grade::Fail
    };
    if !fraction.measured && grade == Grade::Fail {
        grade = Grade::Warn;
    }
    Some(TflopsGrade { grade, peak_tflops: peak, fraction, achievable_tflops: achievable, ratio })
}

/// Grades `measured` GB/s against `expected` GB/s: pass at or above [`BANDWIDTH_WARN_BELOW`] of
/// it, else warn; info when there is no expected figure.
pub fn grade_bandwidth(measured: f64, expected: Option<f64>) -> Grade {
    match expected.filter(|e| *e > 0.0) {
        Some(e) if measured >= BANDWIDTH_WARN_BELOW * e => Grade::Pass,
        Some(_) => Grade::Warn,
        None => Grade::Info,
    }
}

/// A device's rate against its identical siblings' median: `(ratio, slow)`; slow when the
/// ratio is under [`SIBLING_WARN_BELOW`]. A zero median counts as equal.
pub(crate) fn sibling_ratio(value: f64, siblings_median: f64) -> (f64, bool) {
    let ratio = if siblings_median > 0.0 { value / siblings_median } else { 1.0 };
    (ratio, ratio < SIBLING_WARN_BELOW)
}

/// Median of `values` (mean of the middle two for an even count); `None` when empty or when a
/// value is not finite.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len().is_multiple_of(2) { f64::midpoint(v[m - 1], v[m]) } else { v[m] })
}

/// Free memory after a run against before it: more than [`MEMORY_SLACK_GIB`] missing warns.
pub(crate) fn grade_memory_released(before_gib: f64, after_gib: f64) -> Grade {
    if before_gib - after_gib > MEMORY_SLACK_GIB { Grade::Warn } else { Grade::Pass }
}

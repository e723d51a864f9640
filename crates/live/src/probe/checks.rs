//! The probe's checks: pure functions from a [`ProbeReport`]'s measured numbers to graded
//! [`ProbeCheck`]s. Thresholds, the achievable-fraction table and the grading rules live in
//! [`crate::grading`] (shared with links and validation). Nothing here touches a device,
//! so recorded numbers grade exactly like live ones.

use super::{
    DeviceReport, ExpectedGpu, GemmPrecision, GemmResult, HostBandwidth, PeerBandwidth, ProbeReport, SustainedSummary,
};
use crate::grading;
pub use crate::grading::{
    AchievableFraction, BANDWIDTH_WARN_BELOW, Grade, MEMORY_SLACK_GIB, SIBLING_WARN_BELOW, TFLOPS_FAIL_BELOW,
    TFLOPS_WARN_BELOW, achievable_fraction,
};
use serde::{Deserialize, Serialize};

/// One graded check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeCheck {
    /// Stable check id (`gemm-correct`, `gemm-tflops`, `gemm-siblings`, `sustained-siblings`, `clock-events`,
    /// `power`, `host-bandwidth`, `memory-released`, `sustained-correct`, `device-error`,
    /// `backend`, `cancelled`).
    pub check: String,
    /// Device index, when the check concerns one.
    pub device: Option<usize>,
    /// GemmPrecision, when the check concerns one.
    pub precision: Option<GemmPrecision>,
    /// Grade.
    pub grade: Grade,
    /// The measured number (unit in `message`).
    pub measured: Option<f64>,
    /// What it was compared with (same unit).
    pub expected: Option<f64>,
    /// Why, with numbers.
    pub message: String,
}

impl ProbeCheck {
    fn new(
        check: &str,
        device: Option<usize>,
        precision: Option<GemmPrecision>,
        grade: Grade,
        message: String,
    ) -> Self {
        Self { check: check.to_owned(), device, precision, grade, measured: None, expected: None, message }
    }

    fn numbers(mut self, measured: f64, expected: Option<f64>) -> Self {
        self.measured = Some(measured);
        self.expected = expected;
        self
    }
}

/// NVML clock event reason bits (`nvmlClocksEventReasons`, nvml.h).
pub mod reasons {
    /// Nothing runs.
    pub const GPU_IDLE: u64 = 0x1;
    /// Application clocks setting.
    pub const APPLICATIONS_CLOCKS_SETTING: u64 = 0x2;
    /// Software power cap (normal at full load).
    pub const SW_POWER_CAP: u64 = 0x4;
    /// Hardware slowdown (overheating or power brake).
    pub const HW_SLOWDOWN: u64 = 0x8;
    /// Sync boost.
    pub const SYNC_BOOST: u64 = 0x10;
    /// Software thermal slowdown.
    pub const SW_THERMAL: u64 = 0x20;
    /// Hardware thermal slowdown.
    pub const HW_THERMAL: u64 = 0x40;
    /// External power brake.
    pub const HW_POWER_BRAKE: u64 = 0x80;
    /// Display clock setting.
    pub const DISPLAY_CLOCK_SETTING: u64 = 0x100;
    /// DCGM's failure mask: any of these under load fails.
    pub const FAIL_MASK: u64 = HW_SLOWDOWN | SW_THERMAL | HW_THERMAL | HW_POWER_BRAKE;
}

/// Names of the set clock event reason bits.
pub fn clock_event_names(bits: u64) -> Vec<&'static str> {
    use reasons::{
        APPLICATIONS_CLOCKS_SETTING, DISPLAY_CLOCK_SETTING, GPU_IDLE, HW_POWER_BRAKE, HW_SLOWDOWN, HW_THERMAL,
        SW_POWER_CAP, SW_THERMAL, SYNC_BOOST,
    };
    [
        (GPU_IDLE, "GPU_IDLE"),
        (APPLICATIONS_CLOCKS_SETTING, "APPLICATIONS_CLOCKS_SETTING"),
        (SW_POWER_CAP, "SW_POWER_CAP"),
        (HW_SLOWDOWN, "HW_SLOWDOWN"),
        (SYNC_BOOST, "SYNC_BOOST"),
        (SW_THERMAL, "SW_THERMAL"),
        (HW_THERMAL, "HW_THERMAL"),
        (HW_POWER_BRAKE, "HW_POWER_BRAKE"),
        (DISPLAY_CLOCK_SETTING, "DISPLAY_CLOCK_SETTING"),
    ]
    .into_iter()
    .filter(|(b, _)| bits & b != 0)
    .map(|(_, n)| n)
    .collect()
}

/// Theoretical PCIe bandwidth per direction, GB/s, after line coding (Gen1/2 8b/10b, Gen3+
/// 128b/130b): x16 Gen3 15.75, Gen4 31.5, Gen5 63, Gen6 126 (PCI-SIG base specifications).
pub fn pcie_gb_s_per_direction(generation: u8, lanes: u8) -> Option<f64> {
    (1..=6).contains(&generation).then(|| kraftwerk_core::rig::links::lane_gb_s(generation) * f64::from(lanes))
}

/// Correctness of one precision's outputs (every kernel variant).
pub(crate) fn grade_correctness(device: usize, result: &GemmResult) -> ProbeCheck {
    let p = result.precision;
    let mut faults: Vec<String> = result.check.faults.iter().map(|f| format!("{}: {f}", result.library)).collect();
    for alt in &result.alternatives {
        faults.extend(alt.check.faults.iter().map(|f| format!("{}: {f}", alt.library)));
    }
    if faults.is_empty() {
        ProbeCheck::new(
            "gemm-correct",
            Some(device),
            Some(p),
            Grade::Pass,
            format!(
                "{p}: {} sampled outputs within {:.2}x of tolerance (max error {:.1e} of Σ|a·b|), whole matrix and run to run agree",
                result.check.samples, result.check.max_tolerance_ratio, result.check.max_err_over_sum_abs
            ),
        )
        .numbers(result.check.max_tolerance_ratio, Some(1.0))
    } else {
        ProbeCheck::new(
            "gemm-correct",
            Some(device),
            Some(p),
            Grade::Fail,
            format!("{p}: FAULTY: {}", faults.join("; ")),
        )
        .numbers(result.check.max_tolerance_ratio, Some(1.0))
    }
}

/// TFLOP/s in words: one decimal from 10 up, three significant digits below (a CPU's 0.037
/// does not print as 0.0).
pub fn rate(tflops: f64) -> String {
    if tflops.abs() >= 10.0 || tflops == 0.0 {
        format!("{tflops:.1}")
    } else {
        let digits = (2 - tflops.abs().log10().floor() as i32).clamp(1, 12) as usize;
        format!("{tflops:.digits$}")
    }
}

/// Measured TFLOP/s against the dense peak times the achievable fraction: under
/// [`TFLOPS_WARN_BELOW`] warns, under [`TFLOPS_FAIL_BELOW`] fails (warn at most when the
/// fraction is assumed). Info when there is no peak to compare with.
pub fn grade_tflops(
    device: usize,
    device_name: &str,
    precision: GemmPrecision,
    measured_tflops: f64,
    expected: Option<&ExpectedGpu>,
) -> ProbeCheck {
    if !measured_tflops.is_finite() || measured_tflops <= 0.0 {
        // A rate of zero measured nothing (no timed GEMM, or a clock that did not move): a
        // check that measured nothing never passes.
        return ProbeCheck::new(
            "gemm-tflops",
            Some(device),
            Some(precision),
            Grade::NotMeasured,
            format!("{precision}: no GEMM rate was measured ({measured_tflops} TFLOP/s)"),
        )
        .numbers(measured_tflops, None);
    }
    let peak = expected.and_then(|e| e.peak_tflops.get(&precision).copied());
    let name = expected.map_or(device_name, |e| if e.name.is_empty() { device_name } else { e.name.as_str() });
    let Some(g) = grading::grade_tflops(measured_tflops, peak, name, precision) else {
        return ProbeCheck::new(
            "gemm-tflops",
            Some(device),
            Some(precision),
            Grade::Info,
            format!("{precision}: {} TFLOP/s (no datasheet peak to compare with)", rate(measured_tflops)),
        )
        .numbers(measured_tflops, None);
    };
    let (grade, af, achievable, ratio, peak) = (g.grade, g.fraction, g.achievable_tflops, g.ratio, g.peak_tflops);
    let fraction = measured_tflops / peak;
    ProbeCheck::new(
        "gemm-tflops",
        Some(device),
        Some(precision),
        grade,
        format!(
            "{precision}: {} TFLOP/s = {:.1} % of the {peak:.1} dense peak; {:.2}x the achievable {:.1} ({:.1} %, {})",
            rate(measured_tflops),
            fraction * 100.0,
            ratio,
            achievable,
            af.fraction * 100.0,
            af.source
        ),
    )
    .numbers(measured_tflops, Some(achievable))
}

/// Each device against the median of the others (same precision): [`SIBLING_WARN_BELOW`] or
/// less warns. `measured`: (device, TFLOP/s). Nothing with fewer than two devices.
pub fn grade_siblings(precision: GemmPrecision, measured: &[(usize, f64)]) -> Vec<ProbeCheck> {
    siblings("gemm-siblings", precision, measured, Grade::Warn)
}

/// [`grade_siblings`] with the check id and the grade a slow device gets.
fn siblings(check: &str, precision: GemmPrecision, measured: &[(usize, f64)], slow: Grade) -> Vec<ProbeCheck> {
    if measured.len() < 2 {
        return Vec::new();
    }
    measured
        .iter()
        .map(|&(device, tflops)| {
            let others: Vec<f64> = measured.iter().filter(|(d, _)| *d != device).map(|x| x.1).collect();
            let median = grading::median(&others).unwrap_or(tflops);
            let (ratio, is_slow) = grading::sibling_ratio(tflops, median);
            let grade = if is_slow { slow } else { Grade::Pass };
            ProbeCheck::new(
                check,
                Some(device),
                Some(precision),
                grade,
                format!(
                    "{precision}: {tflops:.1} TFLOP/s is {:+.1} % against the other devices' median {median:.1}",
                    (ratio - 1.0) * 100.0
                ),
            )
            .numbers(tflops, Some(median))
        })
        .collect()
}

/// Clock event reasons seen under load: thermal or hardware slowdown or power brake fails
/// (DCGM's mask); software power cap is info (normal at full load).
pub fn grade_clock_events(device: usize, bits: u64) -> Vec<ProbeCheck> {
    let mut out = Vec::new();
    let bad = bits & reasons::FAIL_MASK;
    if bad == 0 {
        out.push(ProbeCheck::new(
            "clock-events",
            Some(device),
            None,
            Grade::Pass,
            "no thermal or hardware slowdown under load".to_owned(),
        ));
    } else {
        out.push(ProbeCheck::new(
            "clock-events",
            Some(device),
            None,
            Grade::Fail,
            format!("clocks slowed under load: {} (0x{bad:x})", clock_event_names(bad).join(", ")),
        ));
    }
    if bits & reasons::SW_POWER_CAP != 0 {
        out.push(ProbeCheck::new(
            "power-cap",
            Some(device),
            None,
            Grade::Info,
            "software power cap reached under load (normal at full load)".to_owned(),
        ));
    }
    out
}

/// The sustained load's power and throughput, as information.
pub(crate) fn grade_sustained(device: usize, s: &SustainedSummary, peak_tflops: Option<f64>) -> Vec<ProbeCheck> {
    let mut out = Vec::new();
    let of_peak = peak_tflops.map_or_else(String::new, |p| format!(" ({:.1} % of peak)", s.tflops_mean / p * 100.0));
    out.push(
        ProbeCheck::new(
            "sustained",
            Some(device),
            Some(s.precision),
            Grade::Info,
            format!("{:.0} s of {} GEMMs: {} TFLOP/s mean{of_peak}", s.seconds, s.precision, rate(s.tflops_mean)),
        )
        .numbers(s.tflops_mean, peak_tflops),
    );
    if let Some(pw) = &s.power_w {
        let limit = s.power_limit_w.map_or_else(String::new, |l| format!(" of the {l:.0} W limit"));
        let instant = s.power_instant_w.map_or_else(String::new, |i| format!(", instant max {:.0} W", i.max));
        out.push(
            ProbeCheck::new(
                "power",
                Some(device),
                None,
                Grade::Info,
                format!("power under load: median {:.0} W{limit}{instant}", pw.median),
            )
            .numbers(pw.median, s.power_limit_w),
        );
    }
    if s.post_load_check_skipped {
        out.push(ProbeCheck::new(
            "sustained-correct",
            Some(device),
            Some(s.precision),
            Grade::Info,
            "output after the load not checked (cancelled)".to_owned(),
        ));
    } else if s.post_load_mismatches > 0 || s.post_load_nonfinite > 0 {
        out.push(ProbeCheck::new(
            "sustained-correct",
            Some(device),
            Some(s.precision),
            Grade::Fail,
            format!(
                "FAULTY after load: {} outputs changed beyond tolerance, {} non-finite",
                s.post_load_mismatches, s.post_load_nonfinite
            ),
        ));
    } else {
        out.push(ProbeCheck::new(
            "sustained-correct",
            Some(device),
            Some(s.precision),
            Grade::Pass,
            "output after the load equals the output before it".to_owned(),
        ));
    }
    out
}

/// Pinned copy bandwidth per direction against the expected link's theory:
/// under [`BANDWIDTH_WARN_BELOW`] warns; info without an expected link. Pageable copies are
/// information only (they depend on the host's memory and CPU).
pub fn grade_host_bandwidth(device: usize, bw: &HostBandwidth, link: Option<(u8, u8)>) -> Vec<ProbeCheck> {
    let theory = link.and_then(|(g, l)| pcie_gb_s_per_direction(g, l));
    let mut out = Vec::new();
    for (what, s) in [("host to device", &bw.pinned_h2d_gb_s), ("device to host", &bw.pinned_d2h_gb_s)] {
        let Some(s) = s else { continue };
        let v = match (theory, link) {
            (Some(t), Some((g, l))) => {
                let grade = grading::grade_bandwidth(s.median, Some(t));
                ProbeCheck::new(
                    "host-bandwidth",
                    Some(device),
                    None,
                    grade,
                    format!(
                        "pinned {what}: {:.1} GB/s = {:.0} % of PCIe Gen{g} x{l} ({t:.1} GB/s; warn under {:.0} %)",
                        s.median,
                        s.median / t * 100.0,
                        BANDWIDTH_WARN_BELOW * 100.0
                    ),
                )
                .numbers(s.median, Some(t))
            }
            _ => ProbeCheck::new(
                "host-bandwidth",
                Some(device),
                None,
                Grade::Info,
                format!("pinned {what}: {:.1} GB/s (no expected link to compare with)", s.median),
            )
            .numbers(s.median, None),
        };
        out.push(v);
    }
    out
}

/// Free memory after the run against before it: more than [`MEMORY_SLACK_GIB`] missing warns.
pub(crate) fn grade_memory_released(device: usize, before_gib: f64, after_gib: f64) -> ProbeCheck {
    let grade = grading::grade_memory_released(before_gib, after_gib);
    ProbeCheck::new(
        "memory-released",
        Some(device),
        None,
        grade,
        format!("free memory {before_gib:.2} GiB before, {after_gib:.2} GiB after the probe"),
    )
    .numbers(after_gib, Some(before_gib))
}

/// Every verdict of a report.
pub(crate) fn grade_report(report: &ProbeReport) -> Vec<ProbeCheck> {
    let mut out = Vec::new();
    let expected = report.expected.as_ref();
    for e in &report.errors {
        out.push(ProbeCheck::new("backend", None, None, Grade::Fail, e.clone()));
    }
    if report.devices.is_empty() && report.errors.is_empty() {
        out.push(ProbeCheck::new("backend", None, None, Grade::Fail, "no device was probed".to_owned()));
    }
    if report.backend == super::Backend::Cpu && !report.devices.is_empty() {
        // The CPU backend checks the pipeline, not a GPU: its rates are the CPU's, so the
        // probe measured no GPU and is not a pass.
        let why = report.backend_note.as_deref().unwrap_or("CPU backend");
        out.push(ProbeCheck::new(
            "backend",
            None,
            None,
            Grade::NotMeasured,
            format!("no GPU was measured ({why}); the GEMM rates are the CPU's, not a GPU's"),
        ));
    }
    if report.cancelled {
        out.push(ProbeCheck::new(
            "cancelled",
            None,
            None,
            Grade::Warn,
            "the probe was cancelled: results are incomplete".to_owned(),
        ));
    }
    for dev in &report.devices {
        out.extend(grade_device(dev, expected));
    }
    for pb in &report.peer_bandwidth {
        out.extend(grade_peer_bandwidth(pb, expected));
    }
    // Siblings: the sustained load (all devices together, seconds of GEMMs) is the steady
    // comparison; 20-GEMM bursts vary by 5-10 % run to run (measured on the H200 test machine, tests/fixtures/probe-h200x2*.json), so when every
    // device has a sustained result the burst comparisons are information only.
    let sustained: Vec<(usize, GemmPrecision, f64)> = report
        .devices
        .iter()
        .filter_map(|d| d.sustained.as_ref().map(|s| (d.index, s.precision, s.tflops_mean)))
        .collect();
    let steady = sustained.len() == report.devices.len() && sustained.len() > 1;
    if steady {
        let p = sustained[0].1;
        let measured: Vec<(usize, f64)> = sustained.iter().filter(|s| s.1 == p).map(|s| (s.0, s.2)).collect();
        out.extend(siblings("sustained-siblings", p, &measured, Grade::Warn));
    }
    let burst = if steady { Grade::Info } else { Grade::Warn };
    for p in GemmPrecision::ALL {
        let measured: Vec<(usize, f64)> = report
            .devices
            .iter()
            .filter_map(|d| d.gemm.iter().find(|g| g.precision == p).map(|g| (d.index, g.tflops.median)))
            .collect();
        out.extend(siblings("gemm-siblings", p, &measured, burst));
    }
    out
}

/// A GPU↔GPU copy against the expected link (NVLink for SXM modules, else the PCIe link), with
/// the share a good copy reaches ([`crate::links::checks::ExpectedLink::one_way_gb_s`]);
/// info when peer access was off (staged through host memory) or nothing is expected.
pub fn grade_peer_bandwidth(pb: &PeerBandwidth, expected: Option<&ExpectedGpu>) -> Option<ProbeCheck> {
    use crate::links::checks::ExpectedLink;
    let s = pb.bandwidth_gb_s?;
    let dir = format!("GPU {} → GPU {}", pb.from, pb.to);
    let link = expected.and_then(|e| match (e.nvlink_gb_s, e.pcie_gen, e.pcie_lanes) {
        (Some(per_gpu_gb_s), _, _) => Some(ExpectedLink::NvlinkSxm { per_gpu_gb_s }),
        (None, Some(pcie_gen), Some(lanes)) => Some(ExpectedLink::Pcie { pcie_gen, lanes }),
        _ => None,
    });
    let want = link.filter(|_| pb.peer_access).and_then(ExpectedLink::one_way_gb_s);
    let grade = grading::grade_bandwidth(s.median, want);
    let message = match (want, link) {
        (Some(w), Some(l)) => format!(
            "{dir}: {:.1} GB/s = {:.0} % of the {w:.1} GB/s a good copy reaches over {} (warn under {:.0} %)",
            s.median,
            s.median / w * 100.0,
            l.describe(),
            BANDWIDTH_WARN_BELOW * 100.0
        ),
        _ if !pb.peer_access => format!("{dir}: {:.1} GB/s without peer access (staged through host memory)", s.median),
        _ => format!("{dir}: {:.1} GB/s (no expected link to compare with)", s.median),
    };
    Some(ProbeCheck::new("peer-bandwidth", Some(pb.from), None, grade, message).numbers(s.median, want))
}

/// The verdicts of one device.
fn grade_device(dev: &DeviceReport, expected: Option<&ExpectedGpu>) -> Vec<ProbeCheck> {
    let mut out = Vec::new();
    let i = dev.index;
    for e in &dev.errors {
        out.push(ProbeCheck::new("device-error", Some(i), None, Grade::Fail, e.clone()));
    }
    if let Some(bw) = &dev.bandwidth {
        let link = expected.and_then(|e| e.pcie_gen.zip(e.pcie_lanes));
        out.extend(grade_host_bandwidth(i, bw, link));
    }
    for g in &dev.gemm {
        out.push(grade_correctness(i, g));
        out.push(grade_tflops(i, &dev.name, g.precision, g.tflops.median, expected));
    }
    for s in &dev.skipped {
        out.push(ProbeCheck::new(
            "gemm-skipped",
            Some(i),
            Some(s.precision),
            Grade::Info,
            format!("{}: {}", s.precision, s.reason),
        ));
    }
    if let Some(s) = &dev.sustained {
        let peak = expected.and_then(|e| e.peak_tflops.get(&s.precision).copied());
        out.extend(grade_sustained(i, s, peak));
        if !s.samples.is_empty() {
            out.extend(grade_clock_events(i, s.clock_event_reasons));
        }
    }
    if let (Some(before), Some(after)) = (dev.memory_free_before_gib, dev.memory_free_after_gib) {
        out.push(grade_memory_released(i, before, after));
    }
    out
}

/// The report's overall grade: the worst verdict, with info counting as pass.
pub fn overall(verdicts: &[ProbeCheck]) -> Grade {
    Grade::worst(verdicts.iter().map(|v| v.grade))
}

//! The GEMM probe: the CPU backend end to end, planted faults, cancel, and grading with the
//! numbers recorded on an H200 (`tests/fixtures/probe-h200-*.json`).

use kraftwerk::live::probe::checks::{
    self, Grade, grade_clock_events, grade_host_bandwidth, grade_siblings, grade_tflops, reasons,
};
use kraftwerk::live::probe::cpu::CpuDevice;
use kraftwerk::live::probe::{
    Backend, BackendChoice, DeviceFactory, DeviceInfo, ExpectedGpu, GemmDevice, GemmPrecision, HostBandwidth,
    ProbeConfig, ProbeError, ProbePhase, ProbeReport, REPORT_SCHEMA_VERSION, Summary, match_catalog_gpu, run_devices,
    run_probe,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A quick CPU configuration.
fn cpu_config(size: usize, sustained_seconds: f64) -> ProbeConfig {
    ProbeConfig {
        size,
        warmup_iterations: 1,
        timed_iterations: 3,
        sustained_seconds,
        backend: BackendChoice::Cpu,
        ..ProbeConfig::default()
    }
}

/// The H200 SXM's dense datasheet peaks (NVIDIA H200 datasheet: sparse figures halved),
/// PCIe Gen5 x16.
fn h200() -> ExpectedGpu {
    let peak_tflops: BTreeMap<GemmPrecision, f64> = [
        (GemmPrecision::Fp32, 67.0),
        (GemmPrecision::Tf32, 494.7),
        (GemmPrecision::Fp16, 989.5),
        (GemmPrecision::Bf16, 989.5),
        (GemmPrecision::Fp8, 1978.9),
    ]
    .into_iter()
    .collect();
    ExpectedGpu {
        name: "NVIDIA H200 SXM".to_owned(),
        peak_tflops,
        pcie_gen: Some(5),
        pcie_lanes: Some(16),
        source: Some("https://www.nvidia.com/en-us/data-center/h200/".to_owned()),
        nvlink_gb_s: None,
    }
}

#[test]
fn cpu_end_to_end() {
    let (tx, rx) = std::sync::mpsc::sync_channel(1024);
    let config = ProbeConfig { progress: Some(tx), ..cpu_config(96, 0.3) };
    let report = run_probe(&config, None);
    drop(config);

    assert_eq!(report.backend, Backend::Cpu);
    assert_eq!(report.schema_version, REPORT_SCHEMA_VERSION);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.devices.len(), 1);
    let dev = &report.devices[0];
    assert!(dev.errors.is_empty(), "{:?}", dev.errors);
    assert_eq!(dev.matrix_size, 96);
    assert!(!dev.faulty);
    let ran: Vec<GemmPrecision> = dev.gemm.iter().map(|g| g.precision).collect();
    // The sustained precision (bf16) runs last.
    assert_eq!(
        ran,
        [GemmPrecision::Fp32, GemmPrecision::Tf32, GemmPrecision::Fp16, GemmPrecision::Fp8, GemmPrecision::Bf16]
    );
    for g in &dev.gemm {
        assert!(g.check.passed(), "{}: {:?}", g.precision, g.check.faults);
        assert!(g.tflops.median > 0.0 && g.tflops.min <= g.tflops.median && g.tflops.median <= g.tflops.max);
        assert_eq!(g.tflops.n, 3);
        assert_eq!(g.check.samples, 256);
        assert!(g.check.max_tolerance_ratio <= 1.0 && g.check.freivalds_ratio <= 1.0);
        assert_eq!(g.check.run_to_run_compared, 96 * 96);
        assert_eq!(g.check.run_to_run_mismatches, 0);
        assert!(g.peak_tflops.is_none());
    }
    let s = dev.sustained.as_ref().expect("sustained load ran");
    assert_eq!(s.precision, GemmPrecision::Bf16);
    assert!(s.gemms > 0 && s.seconds >= 0.3 && s.tflops_mean > 0.0);
    assert_eq!((s.post_load_mismatches, s.post_load_nonfinite), (0, 0));
    assert!(s.samples.is_empty(), "no NVML on the CPU backend");
    assert_ne!(report.overall, Grade::Fail, "{:#?}", report.verdicts);
    assert!(!report.failed());
    assert!(report.verdicts.iter().any(|v| v.check == "gemm-correct" && v.grade == Grade::Pass));
    // The CPU backend measured no GPU: never a pass (a new user's try-out read "overall: PASS"
    // at 0.0 TFLOP/s on a machine without a GPU).
    assert_eq!(report.overall, Grade::NotMeasured, "{:#?}", report.verdicts);
    let backend = report.verdicts.iter().find(|v| v.check == "backend").expect("a backend verdict");
    assert_eq!(backend.grade, Grade::NotMeasured);
    assert!(backend.message.contains("no GPU was measured"), "{}", backend.message);
    // The CPU's rates print with their digits, not as 0.0.
    for v in report.verdicts.iter().filter(|v| v.check == "gemm-tflops") {
        assert!(!v.message.contains(" 0.0 TFLOP/s"), "{}", v.message);
    }

    // The JSON report round-trips.
    let json = serde_json::to_string_pretty(&report).expect("encode");
    let back: ProbeReport = serde_json::from_str(&json).expect("decode");
    assert_eq!(back.verdicts.len(), report.verdicts.len());
    assert_eq!(back.devices[0].gemm.len(), 5);
    assert_eq!(back.overall, report.overall);
    assert!((back.devices[0].gemm[0].tflops.median / report.devices[0].gemm[0].tflops.median - 1.0).abs() < 1e-12);

    let progress: Vec<_> = rx.try_iter().collect();
    assert!(progress.iter().any(|p| p.phase == ProbePhase::Gemm(GemmPrecision::Fp8)));
    assert!(progress.iter().any(|p| p.phase == ProbePhase::Sustained));
    assert_eq!(progress.last().map(|p| p.phase), Some(ProbePhase::Finished));
}

#[test]
fn auto_falls_back_to_cpu_without_cuda() {
    // On CI (no driver) auto picks the CPU and says why; on a GPU machine it picks CUDA.
    let config = ProbeConfig {
        precisions: vec![GemmPrecision::Fp16],
        backend: BackendChoice::Auto,
        size: 64,
        sustained_seconds: 0.0,
        bandwidth_bytes: 1 << 20,
        ..cpu_config(64, 0.0)
    };
    let report = run_probe(&config, None);
    if report.backend == Backend::Cpu {
        assert!(report.backend_note.as_deref().is_some_and(|n| n.contains("CUDA")), "{:?}", report.backend_note);
        assert_eq!(report.devices[0].gemm.len(), 1);
        assert!(!report.failed(), "{:#?}", report.verdicts);
    }
}

/// How a [`Faulty`] device corrupts its output.
#[derive(Clone, Copy)]
enum Plant {
    /// One element wrong in every output (a persistent fault: the known-answer side must catch
    /// it; the sampled check may miss one element, the whole-matrix check may not).
    Persistent,
    /// One element wrong in the second output only (a transient fault: run to run).
    Transient,
    /// A NaN in every output.
    Nan,
}

/// A backend wrapper that corrupts one output element.
struct Faulty {
    inner: CpuDevice,
    plant: Plant,
    outputs: Arc<AtomicUsize>,
}

impl GemmDevice for Faulty {
    fn info(&self) -> DeviceInfo {
        DeviceInfo { name: "faulty CPU".to_owned(), ..self.inner.info() }
    }
    fn support(&self, precision: GemmPrecision) -> Result<(), String> {
        self.inner.support(precision)
    }
    fn fit_size(&self, requested: usize) -> usize {
        self.inner.fit_size(requested)
    }
    fn kernels(&self, precision: GemmPrecision) -> Vec<&'static str> {
        self.inner.kernels(precision)
    }
    fn load(&mut self, precision: GemmPrecision, n: usize, a: &[f32], b: &[f32]) -> Result<(), ProbeError> {
        self.inner.load(precision, n, a, b)
    }
    fn run(&mut self, kernel: usize, count: usize) -> Result<Vec<f64>, ProbeError> {
        self.inner.run(kernel, count)
    }
    fn output(&mut self) -> Result<Vec<f32>, ProbeError> {
        let mut c = self.inner.output()?;
        let nth = self.outputs.fetch_add(1, Ordering::Relaxed);
        let at = c.len() / 2 + 7;
        match self.plant {
            Plant::Persistent => c[at] += 1000.0,
            Plant::Transient if nth % 2 == 1 => c[at] = -c[at] * 2.0 - 1.0,
            Plant::Transient => {}
            Plant::Nan => c[at] = f32::NAN,
        }
        Ok(c)
    }
    fn unload(&mut self) {
        self.inner.unload();
    }
}

fn run_faulty(plant: Plant) -> ProbeReport {
    let outputs = Arc::new(AtomicUsize::new(0));
    let factory: DeviceFactory =
        Box::new(move || Ok(Box::new(Faulty { inner: CpuDevice::new(), plant, outputs }) as Box<dyn GemmDevice>));
    let config = ProbeConfig { precisions: vec![GemmPrecision::Bf16, GemmPrecision::Fp32], ..cpu_config(128, 0.0) };
    run_devices(vec![factory], &config, None, Backend::Cpu, false)
}

#[test]
fn planted_persistent_fault_is_caught() {
    let report = run_faulty(Plant::Persistent);
    let dev = &report.devices[0];
    assert!(dev.faulty);
    assert!(report.failed());
    for g in &dev.gemm {
        assert!(!g.check.passed(), "{}", g.precision);
        assert!(g.check.freivalds_ratio > 1.0, "whole-matrix check sees it: {}", g.check.freivalds_ratio);
        // The same wrong value every time: run to run cannot see it.
        assert_eq!(g.check.run_to_run_mismatches, 0);
    }
    let v = report
        .verdicts
        .iter()
        .find(|v| v.check == "gemm-correct" && v.precision == Some(GemmPrecision::Bf16))
        .expect("verdict");
    assert_eq!(v.grade, Grade::Fail);
    assert!(v.message.contains("FAULTY") && v.message.contains("Freivalds"), "{}", v.message);
}

#[test]
fn planted_transient_fault_is_caught_run_to_run() {
    let report = run_faulty(Plant::Transient);
    let dev = &report.devices[0];
    assert!(dev.faulty && report.failed());
    for g in &dev.gemm {
        assert_eq!(g.check.run_to_run_mismatches, 1, "{}", g.precision);
        assert!(g.check.faults.iter().any(|f| f.contains("run to run")));
    }
}

#[test]
fn planted_nan_is_caught() {
    let report = run_faulty(Plant::Nan);
    let dev = &report.devices[0];
    assert!(dev.faulty && report.failed());
    for g in &dev.gemm {
        assert_eq!(g.check.nonfinite_outputs, 1);
        assert!(g.check.faults.iter().any(|f| f.contains("non-finite")));
    }
}

#[test]
fn cancel_takes_effect_within_a_second() {
    for cancel_after in [Duration::from_millis(50), Duration::from_millis(1500)] {
        let config = cpu_config(512, 60.0);
        let cancel = Arc::clone(&config.cancel);
        let cancelled_at = Arc::new(std::sync::Mutex::new(None::<Instant>));
        let at = Arc::clone(&cancelled_at);
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(cancel_after);
            *at.lock().expect("lock") = Some(Instant::now());
            cancel.store(true, Ordering::Relaxed);
        });
        let report = run_probe(&config, None);
        let returned = Instant::now();
        canceller.join().expect("canceller");
        let set = cancelled_at.lock().expect("lock").expect("cancel was set");
        let latency = returned.saturating_duration_since(set);
        assert!(latency < Duration::from_secs(1), "cancel after {cancel_after:?} took {latency:?}");
        assert!(report.cancelled);
        if let Some(s) = &report.devices[0].sustained {
            // Cancelled during the load: what ran is kept, the after-load check is skipped.
            assert!(s.post_load_check_skipped && s.gemms > 0);
        }
        assert!(!report.devices[0].faulty);
        // Incomplete, not failed (the CPU backend's run is not measured on a GPU either).
        assert!(report.verdicts.iter().any(|v| v.check == "cancelled" && v.grade == Grade::Warn));
        assert_eq!(
            report.overall,
            Grade::NotMeasured,
            "a cancelled run is incomplete, not failed: {:#?}",
            report.verdicts
        );
    }
}

#[test]
fn cancel_before_start_returns_at_once() {
    let config = cpu_config(512, 60.0);
    config.cancel.store(true, Ordering::Relaxed);
    let t = Instant::now();
    let report = run_probe(&config, None);
    assert!(t.elapsed() < Duration::from_secs(1));
    assert!(report.cancelled && report.devices[0].gemm.is_empty());
}

// ---------------------------------------------------------------- recorded H200 numbers

fn recorded(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("fixture JSON")
}

/// TFLOP/s of the recorded cuBLAS (or cuBLASLt for FP8) GEMM at `n`.
fn recorded_tflops(gpu: &serde_json::Value, dtype: &str, n: u64) -> f64 {
    gpu["gemm"]
        .as_array()
        .expect("gemm")
        .iter()
        .find(|g| g["dtype"] == dtype && g["n"] == n && (g["backend"] == "cublas" || dtype == "fp8"))
        .and_then(|g| g["tflops"].as_f64())
        .expect("recorded GEMM")
}

#[test]
fn grading_the_recorded_h200_gemms() {
    let rec = recorded("probe-h200-recorded-1gpu.json");
    let gpu = &rec["gpus"][0];
    let exp = h200();
    let grade_of = |dtype: &str, p: GemmPrecision| {
        grade_tflops(0, "NVIDIA H200", p, recorded_tflops(gpu, dtype, 8192), Some(&exp)).grade
    };
    // 20-iteration numbers from gpu-machine.md's table are near the best fractions; these are
    // from longer runs under the 700 W power cap (256+ GEMMs), which is what the grades show:
    // fp32 51.1 = 76 % of 67 (0.95x of 80.3 %): pass; tf32 361.5 = 73 % (0.91x): pass;
    // fp16 669.0 = 68 % (0.84x): warn; bf16 687.4 = 69.5 % (0.87x): warn;
    // fp8 1242.6 = 62.8 % of 1978.9 (0.86x of 73.4 %): warn.
    assert_eq!(grade_of("fp32", GemmPrecision::Fp32), Grade::Pass);
    assert_eq!(grade_of("tf32", GemmPrecision::Tf32), Grade::Pass);
    assert_eq!(grade_of("fp16", GemmPrecision::Fp16), Grade::Warn);
    assert_eq!(grade_of("bf16", GemmPrecision::Bf16), Grade::Warn);
    assert_eq!(grade_of("fp8", GemmPrecision::Fp8), Grade::Warn);

    // gpu-machine.md's 20-iteration cuBLAS numbers pass.
    for (p, tflops) in [
        (GemmPrecision::Fp32, 51.3),
        (GemmPrecision::Tf32, 398.5),
        (GemmPrecision::Bf16, 782.7),
        (GemmPrecision::Fp8, 1441.4),
    ] {
        assert_eq!(grade_tflops(0, "NVIDIA H200", p, tflops, Some(&exp)).grade, Grade::Pass, "{p}");
    }
    // Fail under 0.75x of 80.3 % of 989.5 = 595.9 TFLOP/s.
    assert_eq!(grade_tflops(0, "NVIDIA H200", GemmPrecision::Bf16, 590.0, Some(&exp)).grade, Grade::Fail);
    assert_eq!(grade_tflops(0, "NVIDIA H200", GemmPrecision::Bf16, 600.0, Some(&exp)).grade, Grade::Warn);
    // Without a peak: information only.
    assert_eq!(grade_tflops(0, "NVIDIA H200", GemmPrecision::Bf16, 590.0, None).grade, Grade::Info);
    // An unknown GPU's assumed fraction never fails.
    let mut other = exp.clone();
    other.name = "Some Future GPU".to_owned();
    assert_eq!(grade_tflops(0, "x", GemmPrecision::Bf16, 100.0, Some(&other)).grade, Grade::Warn);
}

#[test]
fn grading_the_recorded_h200_sustained_load() {
    let rec = recorded("probe-h200-recorded-1gpu.json");
    let s = &rec["gpus"][0]["sustained"];
    let bits = s["clock_event_reasons_seen"]
        .as_array()
        .expect("reasons")
        .iter()
        .map(|r| u64::from_str_radix(r["bits"].as_str().expect("bits").trim_start_matches("0x"), 16).expect("hex"))
        .fold(0, |a, b| a | b);
    assert_eq!(bits, reasons::SW_POWER_CAP);
    let v = grade_clock_events(0, bits);
    assert_eq!(
        v.iter().map(|v| (v.check.as_str(), v.grade)).collect::<Vec<_>>(),
        [("clock-events", Grade::Pass), ("power-cap", Grade::Info)]
    );
    assert_eq!(checks::overall(&v), Grade::Pass);
    for bad in [reasons::HW_SLOWDOWN, reasons::SW_THERMAL, reasons::HW_THERMAL, reasons::HW_POWER_BRAKE] {
        let v = grade_clock_events(0, bits | bad);
        assert_eq!(checks::overall(&v), Grade::Fail, "0x{bad:x}");
        assert!(v[0].message.contains(checks::clock_event_names(bad)[0]));
    }
    // The raw samples: [t, power mW (1 s avg), temp, SM MHz, reasons, instant mW].
    let samples = s["raw_samples"].as_array().expect("samples");
    let instant_max = samples.iter().filter_map(|r| r[5].as_f64()).fold(0.0, f64::max) / 1000.0;
    assert!((instant_max - 784.112).abs() < 1e-9, "instant power above the 700 W limit for a moment");
}

#[test]
fn grading_the_recorded_h200_bandwidth() {
    let rec = recorded("probe-h200-recorded-1gpu.json");
    let b = &rec["gpus"][0]["bandwidth"];
    let med = |kind: &str, dir: &str| {
        let s = &b[kind][dir];
        Some(Summary {
            median: s["median"].as_f64().expect("median"),
            min: s["min"].as_f64().expect("min"),
            max: s["max"].as_f64().expect("max"),
            n: 5,
        })
    };
    let bw = HostBandwidth {
        bytes: 1 << 30,
        pinned_h2d_gb_s: med("pinned", "h2d_gbps"),
        pinned_d2h_gb_s: med("pinned", "d2h_gbps"),
        pageable_h2d_gb_s: med("pageable", "h2d_gbps"),
        pageable_d2h_gb_s: med("pageable", "d2h_gbps"),
    };
    // 55.3 GB/s = 88 % of Gen5 x16's 63 GB/s: pass.
    let v = grade_host_bandwidth(0, &bw, Some((5, 16)));
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|v| v.grade == Grade::Pass), "{v:#?}");
    // The same copies on a link expected to be twice as fast (Gen6) would warn; none expected: info.
    assert!(grade_host_bandwidth(0, &bw, Some((6, 16))).iter().all(|v| v.grade == Grade::Warn));
    assert!(grade_host_bandwidth(0, &bw, None).iter().all(|v| v.grade == Grade::Info));
}

#[test]
fn grading_the_recorded_h200_pair_siblings() {
    let rec = recorded("probe-h200-recorded-2gpu.json");
    let gpus = rec["gpus"].as_array().expect("gpus");
    for (dtype, p) in [("fp32", GemmPrecision::Fp32), ("bf16", GemmPrecision::Bf16), ("fp8", GemmPrecision::Fp8)] {
        let measured: Vec<(usize, f64)> =
            gpus.iter().enumerate().map(|(i, g)| (i, recorded_tflops(g, dtype, 4096))).collect();
        let v = grade_siblings(p, &measured);
        assert!(v.iter().all(|v| v.grade == Grade::Pass), "{v:#?}");
        // GPU 1 six per cent slower warns; GPU 0 does not.
        let slow = [(0, measured[0].1), (1, measured[0].1 * 0.94)];
        let v = grade_siblings(p, &slow);
        assert_eq!(v.iter().map(|v| v.grade).collect::<Vec<_>>(), [Grade::Pass, Grade::Warn]);
    }
    assert!(grade_siblings(GemmPrecision::Bf16, &[(0, 700.0)]).is_empty());
}

#[test]
fn h200_probe_report_parses_and_grades() {
    // Recorded with `kraftwerk probe --seconds 10 --format json` on the H200 test machine.
    let path = format!("{}/tests/fixtures/probe-h200.json", env!("CARGO_MANIFEST_DIR"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("missing {path}");
    };
    let mut report: ProbeReport = serde_json::from_str(&text).expect("our report format");
    assert_eq!(report.schema_version, REPORT_SCHEMA_VERSION);
    assert_eq!(report.backend, Backend::Cuda);
    let dev = &report.devices[0];
    assert!(dev.name.contains("H200"));
    assert!(!dev.faulty && dev.errors.is_empty());
    assert_eq!(dev.gemm.len(), 5);
    let s = dev.sustained.as_ref().expect("sustained");
    assert!(!s.samples.is_empty() && s.power_w.is_some());
    assert_eq!(s.clock_event_reasons & checks::reasons::FAIL_MASK, 0);
    // Regrade against the datasheet: correctness passes, clocks are fine, nothing fails.
    report.expected = Some(h200());
    report.regrade();
    assert_ne!(report.overall, Grade::Fail, "{:#?}", report.verdicts);
    let bf16 = report.devices[0].gemm.iter().find(|g| g.precision == GemmPrecision::Bf16).expect("bf16");
    assert!(bf16.tflops.median >= 0.78 * 989.5, "bf16 {:.1} TFLOP/s", bf16.tflops.median);
}

#[test]
fn precision_list_order_and_cancel_flag_are_shared() {
    // ProbeConfig clones share the cancel flag (the GUI keeps one and the worker another).
    let c = ProbeConfig::default();
    let d = c.clone();
    c.cancel.store(true, Ordering::Relaxed);
    assert!(d.cancel.load(Ordering::Relaxed));
    let _unused: Arc<AtomicBool> = d.cancel;
}

#[test]
fn h200_report_grades_against_the_catalog_entry() {
    let path = format!("{}/tests/fixtures/probe-h200.json", env!("CARGO_MANIFEST_DIR"));
    let mut report: ProbeReport =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("our report format");
    let catalog = kraftwerk::catalog::builtin().expect("built-in catalog");
    let dev = &report.devices[0];
    let max_limit = dev.sustained.as_ref().and_then(|s| s.power_limit_max_w).unwrap_or(700.0);
    let Ok(Some(gpu)) = match_catalog_gpu(&catalog, &dev.name, Some(max_limit)) else {
        // The catalog has no H200 yet: nothing to compare with.
        return;
    };
    assert!(gpu.name.contains("SXM"), "700 W H200 is the SXM module, got {}", gpu.id);
    report.expected = Some(ExpectedGpu::from_catalog(gpu));
    report.regrade();
    assert_ne!(report.overall, Grade::Fail, "{:#?}", report.verdicts);
    let tflops_grades: Vec<(Option<GemmPrecision>, Grade)> =
        report.verdicts.iter().filter(|v| v.check == "gemm-tflops").map(|v| (v.precision, v.grade)).collect();
    assert_eq!(tflops_grades.len(), 5);
    assert!(tflops_grades.iter().all(|(_, g)| *g == Grade::Pass), "{tflops_grades:?}");
    // Gen5 x16 copies at ~55 GB/s pass; the 700 W NVL-vs-SXM tie-break picks the SXM.
    assert!(report.verdicts.iter().filter(|v| v.check == "host-bandwidth").all(|v| v.grade == Grade::Pass));
    if let Err(ids) = match_catalog_gpu(&catalog, "NVIDIA H200", None) {
        assert!(ids.len() > 1);
    }
    if let Ok(Some(nvl)) = match_catalog_gpu(&catalog, "NVIDIA H200", Some(600.0)) {
        assert!(nvl.name.contains("NVL"));
    }
}

fn fixture_report(name: &str) -> ProbeReport {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("our report format")
}

#[test]
fn two_h200_report_grades_siblings_on_the_sustained_load() {
    // Recorded on a host with two NVLink-connected H200s (`kraftwerk probe --seconds 10`).
    let mut report = fixture_report("probe-h200x2.json");
    assert_eq!(report.devices.len(), 2);
    assert_ne!(report.devices[0].uuid, report.devices[1].uuid);
    assert_eq!(report.peer_bandwidth.len(), 2);
    assert!(report.devices.iter().all(|d| !d.faulty && d.sustained.is_some()));
    report.regrade();
    assert_ne!(report.overall, Grade::Fail, "{:#?}", report.verdicts);
    // GPU 1's 20-GEMM TF32 burst was 5.4 % under GPU 0's: burst noise, information only, since
    // the 10 s sustained loads agree within 0.2 %.
    let tf32 = report
        .verdicts
        .iter()
        .find(|v| v.check == "gemm-siblings" && v.device == Some(1) && v.precision == Some(GemmPrecision::Tf32))
        .expect("tf32 siblings");
    assert_eq!(tf32.grade, Grade::Info, "{}", tf32.message);
    let steady: Vec<Grade> =
        report.verdicts.iter().filter(|v| v.check == "sustained-siblings").map(|v| v.grade).collect();
    assert_eq!(steady, [Grade::Pass, Grade::Pass]);
    // Without the sustained load the burst comparison is all there is, and it warns.
    for d in &mut report.devices {
        d.sustained = None;
    }
    report.regrade();
    assert!(report.verdicts.iter().any(|v| v.check == "gemm-siblings" && v.grade == Grade::Warn));
}

#[test]
fn two_h200_cancelled_report_keeps_the_partial_load_and_frees_memory() {
    // `kraftwerk probe --seconds 20 --timeout 26`: cancelled 3.5 s into the sustained load.
    let report = fixture_report("probe-h200x2-cancelled.json");
    assert!(report.cancelled);
    assert_eq!(report.overall, Grade::Warn);
    for d in &report.devices {
        let s = d.sustained.as_ref().expect("partial sustained load");
        assert!(s.post_load_check_skipped && s.gemms > 1000 && s.seconds < 20.0);
        let (before, after) = (d.memory_free_before_gib.expect("before"), d.memory_free_after_gib.expect("after"));
        assert!(before - after < checks::MEMORY_SLACK_GIB, "{before} → {after} GiB");
    }
    assert!(report.verdicts.iter().filter(|v| v.check == "memory-released").all(|v| v.grade == Grade::Pass));
}

/// NVML sees GPUs but CUDA cannot use them: the message names the CUDA error and the fix.
#[test]
fn cuda_unusable_names_the_error_and_the_fix() {
    let gpus = vec!["NVIDIA H200".to_owned()];
    let m = kraftwerk::live::probe::cuda_unusable_message(
        &gpus,
        "libcublas/libcublasLt not found (CUDA 13 runtime libraries)",
    );
    assert!(m.contains("NVML sees 1 NVIDIA GPU(s) (NVIDIA H200)"), "{m}");
    assert!(m.contains("libcublas/libcublasLt not found"), "{m}");
    assert!(m.contains("Fix: install the CUDA 13 runtime libraries"), "{m}");
    let m = kraftwerk::live::probe::cuda_unusable_message(&gpus, "CUDA driver: CUDA_ERROR_INSUFFICIENT_DRIVER");
    assert!(m.contains("update the NVIDIA driver"), "{m}");
}

/// The staged copies of the old probe (38 GB/s between two NVLink H200s, pool buffers peer
/// access does not cover) are graded against the NVLink figure and warn; a copy at the rate
/// `links` measured on the same pair passes.
#[test]
fn peer_copy_is_graded_against_nvlink() {
    use kraftwerk::live::probe::checks::grade_peer_bandwidth;
    let report = fixture_report("probe-h200x2.json");
    let mut expected = h200();
    expected.nvlink_gb_s = Some(900.0);
    let slow = grade_peer_bandwidth(&report.peer_bandwidth[0], Some(&expected)).expect("graded");
    assert_eq!(slow.grade, Grade::Warn, "{}", slow.message);
    assert!(slow.message.contains("38.0 GB/s"), "{}", slow.message);
    let mut fast = report.peer_bandwidth[0].clone();
    let s = fast.bandwidth_gb_s.as_mut().expect("measured");
    s.median = 376.0;
    assert_eq!(grade_peer_bandwidth(&fast, Some(&expected)).expect("graded").grade, Grade::Pass);
    fast.peer_access = false;
    assert_eq!(grade_peer_bandwidth(&fast, Some(&expected)).expect("graded").grade, Grade::Info);
}

/// A GEMM rate of zero measured nothing: `not measured`, never a pass or an info line, with
/// or without a datasheet peak (a new user's CPU-backend run printed "0.0 TFLOP/s" as INFO and
/// "overall: PASS").
#[test]
fn a_zero_gemm_rate_is_not_measured() {
    let exp = h200();
    for expected in [None, Some(&exp)] {
        for rate in [0.0, -1.0, f64::NAN] {
            let v = grade_tflops(0, "x", GemmPrecision::Bf16, rate, expected);
            assert_eq!(v.grade, Grade::NotMeasured, "{rate}: {}", v.message);
            assert!(v.message.contains("no GEMM rate was measured"), "{}", v.message);
            assert_eq!(checks::overall(&[v]), Grade::NotMeasured);
        }
    }
    // A small rate is a measurement, printed with its digits.
    let v = grade_tflops(0, "CPU", GemmPrecision::Fp32, 0.037, None);
    assert_eq!(v.grade, Grade::Info);
    assert!(v.message.contains("0.0370 TFLOP/s"), "{}", v.message);
    assert_eq!(checks::rate(0.037), "0.0370");
    assert_eq!(checks::rate(3.21), "3.21");
    assert_eq!(checks::rate(989.46), "989.5");
}

/// `kraftwerk probe` on the CPU backend exits 3 (not a pass although nothing failed, README's
/// exit codes) and says why.
#[test]
fn probe_on_the_cpu_backend_exits_3_and_says_no_gpu_was_measured() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args([
            "probe",
            "--backend",
            "cpu",
            "--seconds",
            "0",
            "--size",
            "64",
            "--precision",
            "fp32",
            "--iterations",
            "3",
        ])
        .output()
        .expect("run kraftwerk");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("overall: NOT MEASURED"), "{text}");
    assert!(text.contains("no GPU was measured"), "{text}");
    assert!(!text.contains("overall: PASS"), "{text}");
}

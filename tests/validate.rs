//! Validating a machine against its build, with real H200 readings taken in one command on the
//! H200 test machine: the NVML recording of the run and the probe report (tests/fixtures,
//! `h200-validate-run.kwrec.json`, `probe-h200-validate.json`).

use kraftwerk::build;
use kraftwerk::catalog;
use kraftwerk::live::probe::ProbeReport;
use kraftwerk::live::probe::checks::Grade;
use kraftwerk::live::record::Recording;
use kraftwerk::live::validate::validate;
use std::path::Path;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn h200() -> (build::Build, catalog::Catalog, Recording, ProbeReport) {
    let c = catalog::builtin().expect("catalog");
    let b = build::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron"), Some(&c))
        .expect("build");
    let rec = Recording::load(&fixture("h200-validate-run.kwrec.json")).expect("recording");
    let text = std::fs::read_to_string(fixture("probe-h200-validate.json")).expect("probe fixture");
    let probe: ProbeReport = serde_json::from_str(&text).expect("probe report");
    (b, c, rec, probe)
}

fn grade_of(v: &kraftwerk::live::validate::Validation, check: &str) -> Option<Grade> {
    v.checks.iter().find(|c| c.check == check).map(|c| c.grade)
}

#[test]
fn h200_machine_passes_its_build() {
    let (b, c, rec, probe) = h200();
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_ne!(v.overall, Grade::Fail, "{:#?}", v.checks);
    assert_eq!(grade_of(&v, "gpu-count"), Some(Grade::Pass));
    assert_eq!(grade_of(&v, "gpu-model"), Some(Grade::Pass));
    assert_eq!(grade_of(&v, "pcie-link-live"), Some(Grade::Pass), "Gen5 x16");
    assert_eq!(grade_of(&v, "power-limit"), Some(Grade::Pass), "700 W");
    assert_eq!(grade_of(&v, "gemm-bf16"), Some(Grade::Pass));
    assert_eq!(grade_of(&v, "arithmetic"), Some(Grade::Pass));
    assert_eq!(grade_of(&v, "bandwidth-h2d"), Some(Grade::Pass));
}

#[test]
fn a_missing_gpu_fails() {
    let (mut b, c, rec, probe) = h200();
    let one = b.gpus[0].clone();
    b.gpus.push(one);
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "gpu-count"), Some(Grade::Fail));
    assert_eq!(v.overall, Grade::Fail);
}

#[test]
fn a_faulty_gpu_fails() {
    let (b, c, rec, mut probe) = h200();
    probe.devices[0].faulty = true;
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "arithmetic"), Some(Grade::Fail));
}

#[test]
fn a_slow_gpu_and_a_downtrained_link_are_caught() {
    let (b, c, mut rec, mut probe) = h200();
    for g in &mut probe.devices[0].gemm {
        g.tflops.median *= 0.5;
    }
    rec.gpus[0].pcie_gen_max = Some(3);
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "gemm-bf16"), Some(Grade::Fail));
    assert_eq!(grade_of(&v, "pcie-link-live"), Some(Grade::Fail));
}

#[test]
fn no_gpu_at_all_fails_the_count_without_panicking() {
    let (b, c, _, _) = h200();
    let v = validate(&b, &c, &[], None);
    assert_eq!(grade_of(&v, "gpu-count"), Some(Grade::Fail));
}

#[test]
fn probe_results_of_another_gpu_are_not_credited() {
    let (b, c, rec, mut probe) = h200();
    probe.devices[0].uuid = Some("GPU-ffffffff-0000-0000-0000-000000000000".into());
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "arithmetic"), None, "{:#?}", v.checks);
    assert_eq!(grade_of(&v, "gpu-count"), Some(Grade::Pass));
}

/// One grading source: the same measurement gets the same grade from the probe's checks, from
/// `validate` and (for bandwidths) from the links' rule.
#[test]
fn probe_validate_and_links_agree_on_the_same_measurement() {
    use kraftwerk::live::links::checks::grade_bandwidth;
    use kraftwerk::live::probe::ExpectedGpu;
    use kraftwerk::live::probe::checks::{grade_host_bandwidth, grade_tflops};
    let (b, c, rec, probe) = h200();
    let h200 = c.gpus.iter().find(|g| g.id == "nvidia-h200-sxm").expect("H200 in the catalog");
    let expected = ExpectedGpu::from_catalog(h200);
    let bf16 = probe.devices[0].gemm.iter().position(|g| g.precision.name() == "bf16").expect("bf16 result");
    let h2d = probe.devices[0].bandwidth.as_ref().and_then(|bw| bw.pinned_h2d_gb_s).expect("h2d").median;
    let mut seen = std::collections::BTreeSet::new();
    for scale in [1.0, 0.85, 0.7, 0.4] {
        let mut p = probe.clone();
        p.devices[0].gemm[bf16].tflops.median *= scale;
        let measured = p.devices[0].gemm[bf16].tflops.median;
        let precision = p.devices[0].gemm[bf16].precision;
        if let Some(bw) = p.devices[0].bandwidth.as_mut()
            && let Some(s) = bw.pinned_h2d_gb_s.as_mut()
        {
            s.median = h2d * scale;
        }
        let v = validate(&b, &c, &rec.gpus, Some(&p));
        let by_probe = grade_tflops(0, "NVIDIA H200", precision, measured, Some(&expected)).grade;
        assert_eq!(grade_of(&v, "gemm-bf16"), Some(by_probe), "TFLOP/s x{scale}");
        seen.insert(by_probe);
        let link = (h200.pcie_gen, h200.pcie_lanes);
        let bw = p.devices[0].bandwidth.as_ref().expect("bandwidth");
        let probe_bw = grade_host_bandwidth(0, bw, Some(link))[0].grade;
        let links_bw = grade_bandwidth(h2d * scale, probe_bw_expected(link));
        assert_eq!(grade_of(&v, "bandwidth-h2d"), Some(probe_bw), "h2d x{scale}");
        assert_eq!(links_bw, probe_bw, "links' rule on the same GB/s, x{scale}");
    }
    assert_eq!(seen.len(), 3, "pass, warn and fail were all exercised: {seen:?}");
}

fn probe_bw_expected((generation, lanes): (u8, u8)) -> Option<f64> {
    kraftwerk::live::probe::checks::pcie_gb_s_per_direction(generation, lanes)
}

/// `validate --record` then `validate --from`: the recording holds everything the grading
/// used, so the recorded session grades exactly like the live one.
#[test]
fn a_recorded_session_grades_like_the_live_one() {
    use kraftwerk::live::validate::{Observed, validate_observed};
    let (b, c, rec, probe) = h200();
    let live = Observed {
        source: "live".into(),
        gpus: rec.gpus.clone(),
        topology: Some(rec.topology.clone()),
        snapshots: rec.snapshots.clone(),
        probe: Some(probe),
        ..Observed::default()
    };
    let mut out = rec.clone();
    live.store_in(&mut out).expect("store");
    let dir = std::env::temp_dir().join(format!("kraftwerk-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("session.kwrec.json");
    out.save(&path).expect("save");
    let loaded = Recording::load(&path).expect("load");
    let from = Observed::from_recording(&loaded, "session.kwrec.json").expect("sections");
    let a = validate_observed(&b, &c, &live);
    let z = validate_observed(&b, &c, &from);
    assert_eq!(a.checks, z.checks);
    assert_eq!(a.overall, z.overall);
    assert!(
        a.checks.iter().any(|c| c.check == "pcie-link-live" && c.measured.contains("under load")),
        "{:#?}",
        a.checks
    );
    assert!(a.checks.iter().any(|c| c.check == "clock-events" && c.grade == Grade::Info), "SW power cap only: info");
    let _ = std::fs::remove_dir_all(dir);
}

/// The recording `kraftwerk validate BUILD --record` made on the H200 (2026-12-01) grades with
/// `--from` exactly as the live run did (its JSON output, `validate-h200-live.json`).
#[test]
fn the_h200_recording_grades_as_the_live_run_did() {
    use kraftwerk::live::validate::{Observed, Validation, validate_observed};
    let (b, c, _, _) = h200();
    let rec = Recording::load(&fixture("h200-validate-record.kwrec.json")).expect("recording");
    assert_eq!(rec.format, 2);
    let obs = Observed::from_recording(&rec, "h200-validate-record.kwrec.json").expect("sections");
    let v = validate_observed(&b, &c, &obs);
    let live: Validation =
        serde_json::from_str(&std::fs::read_to_string(fixture("validate-h200-live.json")).expect("live"))
            .expect("json");
    assert_eq!(v.checks, live.checks);
    assert_eq!(v.overall, live.overall);
    assert_eq!(v.overall, Grade::Pass);
    assert_eq!(grade_of(&v, "pcie-link-live"), Some(Grade::Pass));
}

/// Issue 27: a probe that was asked for and could not run is a failed check with the probe's
/// own message and fix, so `validate` cannot pass. Injected as the probe reports it on the H200
/// test machine with CUDA hidden (NVML sees the GPU): a report with no device and the
/// whole-run error `cuda_unusable_message` writes.
#[test]
fn a_probe_that_could_not_run_fails_validate_with_its_fix() {
    use kraftwerk::live::probe::cuda_unusable_message;
    let (b, c, rec, mut probe) = h200();
    probe.devices.clear();
    probe.verdicts.clear();
    let why =
        cuda_unusable_message(&["NVIDIA H200".to_owned()], "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected");
    probe.errors = vec![why.clone()];
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "probe"), Some(Grade::Fail), "{:#?}", v.checks);
    let check = v.checks.iter().find(|x| x.check == "probe").expect("probe check");
    assert_eq!(check.reason, why);
    assert_eq!(v.overall, Grade::Fail);
}

/// Issue 27: a recording that holds no probe data cannot pass on its NVML rows: the probe is
/// "not measured", and so is the PCIe link, which idle samples cannot judge (the idle H200
/// recording of `monitor`).
#[test]
fn a_recording_without_probe_data_is_not_measured_not_pass() {
    use kraftwerk::live::validate::{Observed, validate_observed};
    let (b, c, _, _) = h200();
    let rec = Recording::load(&fixture("h200-1gpu-idle.kwrec.json")).expect("recording");
    let obs = Observed::from_recording(&rec, "h200-1gpu-idle.kwrec.json").expect("sections");
    assert!(obs.probe.is_none());
    let v = validate_observed(&b, &c, &obs);
    assert_eq!(grade_of(&v, "probe"), Some(Grade::NotMeasured), "{:#?}", v.checks);
    assert_eq!(grade_of(&v, "pcie-link-live"), Some(Grade::NotMeasured), "{:#?}", v.checks);
    assert_eq!(v.overall, Grade::NotMeasured);
    assert_ne!(v.overall, Grade::Pass);
}

/// Issue 27: NVML's maximum link is what the card and slot support, not what they negotiated:
/// without a sample under load, `pcie-link-live` is "not measured", never "pass". With the
/// probe's samples under load (the same machine) it passes.
#[test]
fn the_link_is_not_passed_from_nvmls_maximum_alone() {
    let (b, c, rec, mut probe) = h200();
    let with_load = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&with_load, "pcie-link-live"), Some(Grade::Pass));
    for d in &mut probe.devices {
        d.sustained = None;
    }
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "pcie-link-live"), Some(Grade::NotMeasured), "{:#?}", v.checks);
    assert_eq!(v.overall, Grade::NotMeasured);
}

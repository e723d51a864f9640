//! Validating a machine against its build, with real H200 readings taken in one command on the
//! H200 test machine: the NVML recording of the run and the probe report (tests/fixtures,
//! `h200-validate-run.kwrec.json`, `probe-h200-validate.json`).

use kraftwerk::build;
use kraftwerk::catalog;
use kraftwerk::live::probe::ProbeReport;
use kraftwerk::live::probe::grade::Grade;
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
    assert_eq!(grade_of(&v, "pcie-link"), Some(Grade::Pass), "Gen5 x16");
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
    assert_eq!(grade_of(&v, "pcie-link"), Some(Grade::Fail));
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

//! The fault library: recordings derived from the real H200 sessions in `tests/fixtures/` with
//! ONE fault planted each (`tests/fixtures/faults/*.kwrec.json`), graded by `validate --from`
//! with the right severity and a reason that names the number.
//!
//! The cases are written by [`plant`] from the real recordings; `KRAFTWERK_WRITE_FIXTURES=1
//! cargo test --test validate_faults` rewrites them, and [`committed_faults_are_reproducible`]
//! checks the committed files are exactly what the generator writes.
//!
//! Bases (real, measured on the H200 test machine, see `tests/validate.rs`):
//! - one GPU: `h200-validate-run.kwrec.json` (every 4th snapshot kept) with the probe report
//!   of the same command, `probe-h200-validate.json` (every 4th sustained-load sample kept);
//! - two GPUs: `h200-2gpu-30s.kwrec.json` with `probe-2xh200-validate.json`; the two were
//!   taken in separate runs, so the recording's GPU UUIDs are set to the probe's (same
//!   positions, same machine type).

use crate::support::fixture;
use kraftwerk::catalog::{self, Catalog};
use kraftwerk::live::grading::Grade;
use kraftwerk::live::probe::ProbeReport;
use kraftwerk::live::reasons::ClockEventReasons;
use kraftwerk::live::record::{RECORDING_FORMAT, RecordError, Recording};
use kraftwerk::live::topology::{Connection, PcieAncestor};
use kraftwerk::live::validate::{Observed, Validation, validate_observed};
use kraftwerk::rig::{self, Build};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn faults_dir() -> PathBuf {
    fixture("faults")
}

fn probe(name: &str) -> ProbeReport {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).expect("probe fixture")).expect("probe report")
}

/// The one-GPU base: the real validate run and its probe report in one recording.
fn base_1gpu() -> Recording {
    let mut rec = Recording::load(&fixture("h200-validate-run.kwrec.json")).expect("recording");
    rec.snapshots = rec.snapshots.into_iter().step_by(4).collect();
    let mut p = probe("probe-h200-validate.json");
    for d in &mut p.devices {
        if let Some(s) = d.sustained.as_mut() {
            s.samples = std::mem::take(&mut s.samples).into_iter().step_by(4).collect();
        }
    }
    rec.format = RECORDING_FORMAT;
    rec.extra.insert("probe".into(), serde_json::to_value(&p).expect("probe json"));
    rec
}

/// The two-GPU base: the real two-GPU session with the real two-GPU probe report.
fn base_2gpu() -> Recording {
    let mut rec = Recording::load(&fixture("h200-2gpu-30s.kwrec.json")).expect("recording");
    let p = probe("probe-2xh200-validate.json");
    for (g, d) in rec.gpus.iter_mut().zip(&p.devices) {
        g.uuid.clone_from(&d.uuid);
    }
    rec.format = RECORDING_FORMAT;
    rec.extra.insert("probe".into(), serde_json::to_value(&p).expect("probe json"));
    rec
}

/// Edits the embedded probe report.
fn with_probe(rec: &mut Recording, edit: impl FnOnce(&mut ProbeReport)) {
    let mut p: ProbeReport = serde_json::from_value(rec.extra["probe"].clone()).expect("probe");
    edit(&mut p);
    rec.extra.insert("probe".into(), serde_json::to_value(&p).expect("probe json"));
}

/// Sets the PCIe link of GPU `gpu` in every sample under load (`load`) or at idle (`!load`),
/// and in the probe's sustained-load samples when `load`.
fn set_link(rec: &mut Recording, gpu: usize, load: bool, generation: u32, width: u32) {
    for s in rec.snapshots.iter_mut().flat_map(|s| s.gpus.iter_mut()).filter(|s| s.gpu == gpu) {
        if s.under_load() == Some(load) || (!load && s.under_load().is_none()) {
            s.pcie_gen = Some(generation);
            s.pcie_width = Some(width);
        }
    }
    if load {
        with_probe(rec, |p| {
            for x in p.devices[gpu].sustained.iter_mut().flat_map(|s| s.samples.iter_mut()) {
                x.pcie_gen = Some(generation);
                x.pcie_width = Some(width);
            }
        });
    }
}

/// Adds clock event reason `bits` to every sample under load and to the probe's load.
fn add_clock_events(rec: &mut Recording, bits: u64) {
    for s in rec.snapshots.iter_mut().flat_map(|s| s.gpus.iter_mut()) {
        if s.under_load() == Some(true) {
            s.clock_event_reasons =
                Some(ClockEventReasons(s.clock_event_reasons.map_or(0, ClockEventReasons::bits) | bits));
        }
    }
    with_probe(rec, |p| {
        for s in p.devices.iter_mut().filter_map(|d| d.sustained.as_mut()) {
            s.clock_event_reasons |= bits;
        }
    });
}

/// Every case: (file stem, base, the planted fault).
fn plant() -> Vec<(&'static str, Recording)> {
    let mut out = Vec::new();
    let mut case = |name: &'static str, two: bool, edit: &dyn Fn(&mut Recording)| {
        let mut r = if two { base_2gpu() } else { base_1gpu() };
        r.notes =
            Some(format!("fault library case `{name}`, derived from a real H200 session (tests/validate_faults.rs)"));
        edit(&mut r);
        out.push((name, r));
    };
    case("sw-power-cap-only", false, &|_| {});
    case("pcie-gen2-under-load", false, &|r| set_link(r, 0, true, 2, 16));
    case("pcie-x8-under-load", false, &|r| set_link(r, 0, true, 5, 8));
    case("pcie-gen2-idle-only", false, &|r| set_link(r, 0, false, 2, 16));
    case("nvlink-inactive", true, &|r| {
        for l in r.gpus.iter_mut().flat_map(|g| g.nvlinks.iter_mut()) {
            l.active = Some(false);
        }
        for p in &mut r.topology.pairs {
            p.connection = Connection::Pcie { ancestor: PcieAncestor::HostBridge };
        }
    });
    case("slow-sibling", true, &|r| {
        with_probe(r, |p| {
            let d = &mut p.devices[1];
            for g in &mut d.gemm {
                g.tflops.median *= 0.92;
            }
            if let Some(s) = d.sustained.as_mut() {
                s.tflops_mean *= 0.92;
            }
        });
    });
    case("hw-thermal-under-load", false, &|r| add_clock_events(r, 0x40));
    case("hw-slowdown-under-load", false, &|r| add_clock_events(r, 0x8));
    case("power-limit-below-build", false, &|r| {
        r.gpus[0].power_limit_enforced_w = Some(500.0);
        r.gpus[0].power_limit_w = Some(500.0);
    });
    case("ecc-uncorrectable", false, &|r| {
        let last = r.snapshots.len() - 1;
        for s in &mut r.snapshots[last / 2..] {
            s.gpus[0].ecc_uncorrected_volatile = Some(2);
        }
    });
    case("retired-pages-pending", false, &|r| {
        for s in r.snapshots.iter_mut().flat_map(|s| s.gpus.iter_mut()) {
            s.retired_pages = Some(3);
            s.retired_pages_pending = Some(true);
        }
    });
    case("xid-79", false, &|r| {
        let mid = r.snapshots.len() / 2;
        for (k, s) in r.snapshots.iter_mut().enumerate() {
            s.gpus[0].xid_errors = Some(if k == mid { vec![79] } else { Vec::new() });
        }
    });
    case("missing-gpu", true, &|r| {
        r.gpus.truncate(1);
        r.system.gpu_count = 1;
        r.topology.pairs.clear();
        for s in &mut r.snapshots {
            s.gpus.retain(|g| g.gpu == 0);
        }
    });
    case("different-model", false, &|r| {
        r.gpus[0].name = Some("NVIDIA H100 80GB HBM3".into());
        r.gpus[0].memory_total_mib = Some(81_559);
    });
    case("memory-not-released", false, &|r| {
        with_probe(r, |p| {
            if let Some(before) = p.devices[0].memory_free_before_gib {
                p.devices[0].memory_free_after_gib = Some(before - 3.0);
            }
        });
    });
    out
}

fn text_of(rec: &Recording) -> String {
    serde_json::to_string(rec).expect("encode") + "\n"
}

/// The broken files: (file, text).
fn broken() -> Vec<(&'static str, String)> {
    let good = text_of(&base_1gpu());
    let newer = good.replacen(&format!("\"format\":{RECORDING_FORMAT}"), "\"format\":99", 1);
    let truncated = good[..good.len() / 2].to_owned();
    let nan = good.replacen("\"power_avg_w\":", "\"power_avg_w\":NaN,\"x\":", 1);
    vec![("newer-format", newer), ("truncated", truncated), ("nan-readings", nan)]
}

fn builds() -> (Catalog, Build, Build) {
    let c = catalog::builtin().expect("catalog");
    let one = rig::load(&root().join("catalog/builds/h200-sxm-1gpu.rig.ron"), Some(&c)).expect("1-GPU build");
    let two = rig::load(&fixture("links-h200-2gpu.rig.ron"), Some(&c)).expect("2-GPU build");
    (c, one, two)
}

fn grade_file(name: &str) -> Validation {
    let (c, one, two) = builds();
    let path = faults_dir().join(format!("{name}.kwrec.json"));
    let rec = Recording::load(&path).expect("fault recording loads");
    let obs = Observed::from_recording(&rec, name).expect("sections");
    let build = if rec.gpus.len() > 1 || name == "missing-gpu" { &two } else { &one };
    validate_observed(build, &c, &obs)
}

#[test]
fn committed_faults_are_reproducible() {
    let dir = faults_dir();
    let write = std::env::var_os("KRAFTWERK_WRITE_FIXTURES").is_some();
    if write {
        std::fs::create_dir_all(&dir).expect("faults dir");
    }
    let mut files: Vec<(String, String)> =
        plant().into_iter().map(|(n, r)| (format!("{n}.kwrec.json"), text_of(&r))).collect();
    files.extend(broken().into_iter().map(|(n, t)| (format!("{n}.kwrec.json"), t)));
    for (name, text) in files {
        let path = dir.join(&name);
        if write {
            std::fs::write(&path, &text).expect("write fault");
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == text, "{name} differs from what the generator writes (KRAFTWERK_WRITE_FIXTURES=1)");
    }
}

/// One row per case: file, check, GPU (build index), grade, words the reason must contain
/// (the number).
const TABLE: &[(&str, &str, Option<usize>, Grade, &str)] = &[
    ("sw-power-cap-only", "clock-events", Some(0), Grade::Info, "software power cap only (0x4)"),
    ("sw-power-cap-only", "pcie-link-live", Some(0), Grade::Pass, "full link under load"),
    ("pcie-gen2-under-load", "pcie-link-live", Some(0), Grade::Fail, "Gen2 x16"),
    ("pcie-x8-under-load", "pcie-link-live", Some(0), Grade::Fail, "Gen5 x8"),
    ("pcie-gen2-idle-only", "pcie-link-live", Some(0), Grade::Info, "Gen2 x16 only at idle"),
    ("nvlink-inactive", "nvlink-active", Some(0), Grade::Fail, "0 links are active"),
    ("slow-sibling", "gemm-siblings", Some(1), Grade::Fail, "-7.4 % against the other 1 identical GPU"),
    ("slow-sibling", "gemm-bf16", Some(1), Grade::Pass, "x of the achievable"),
    ("hw-thermal-under-load", "clock-events", Some(0), Grade::Fail, "HW_THERMAL_SLOWDOWN under load (0x40)"),
    ("hw-slowdown-under-load", "clock-events", Some(0), Grade::Fail, "HW_SLOWDOWN under load (0x8)"),
    ("power-limit-below-build", "power-limit", Some(0), Grade::Warn, "500 W is 29 % below the build's 700 W"),
    ("ecc-uncorrectable", "ecc", Some(0), Grade::Fail, "2 uncorrected ECC error(s)"),
    ("retired-pages-pending", "retired-pages", Some(0), Grade::Fail, "3 retired page(s) and a retirement pending"),
    ("xid-79", "xid", Some(0), Grade::Fail, "XID 79"),
    ("missing-gpu", "gpu-count", None, Grade::Fail, "1 of the build's 2 GPU(s) missing"),
    ("different-model", "gpu-model", Some(0), Grade::Fail, "no installed GPU of this model (H200 SXM)"),
    ("memory-not-released", "memory-released", Some(0), Grade::Warn, "3.00 GiB not released"),
];

#[test]
fn every_planted_fault_is_graded_with_its_number() {
    for &(file, check, gpu, grade, words) in TABLE {
        let v = grade_file(file);
        let c = v
            .checks
            .iter()
            .find(|c| c.check == check && c.gpu == gpu)
            .unwrap_or_else(|| panic!("{file}: no `{check}` check for GPU {gpu:?}: {:#?}", v.checks));
        assert_eq!(c.grade, grade, "{file}: {check}: {} ({})", c.reason, c.measured);
        let all = format!("{} | {} | {}", c.reason, c.measured, c.expected);
        assert!(all.contains(words), "{file}: {check}: the reason must name `{words}`: {all}");
        if grade == Grade::Fail {
            assert_eq!(v.overall, Grade::Fail, "{file}");
        }
    }
}

/// Each fault grades differently from the clean base: the grade was seen to change.
#[test]
fn the_bases_pass_the_checks_the_faults_fail() {
    for &(file, check, gpu, grade, _) in TABLE {
        if grade == Grade::Pass || file == "sw-power-cap-only" || file == "pcie-gen2-idle-only" {
            continue;
        }
        let (c, one, two) = builds();
        let base = if file == "nvlink-inactive" || file == "slow-sibling" || file == "missing-gpu" {
            (base_2gpu(), &two)
        } else {
            (base_1gpu(), &one)
        };
        let obs = Observed::from_recording(&base.0, "base").expect("sections");
        let v = validate_observed(base.1, &c, &obs);
        let clean = v.checks.iter().find(|c| c.check == check && c.gpu == gpu).map(|c| c.grade);
        assert_ne!(clean, Some(grade), "{file}: the clean base already grades {check} {grade:?}");
        assert_ne!(clean.map(|g| g >= Grade::Warn), Some(true), "{file}: the clean base is not clean: {check}");
    }
}

#[test]
fn broken_recordings_give_clear_errors_never_a_panic() {
    let load = |n: &str| Recording::load(&faults_dir().join(format!("{n}.kwrec.json")));
    let newer = load("newer-format").expect_err("newer format");
    assert!(matches!(newer, RecordError::UnsupportedFormat { found: 99, .. }), "{newer}");
    assert!(newer.to_string().contains("format 99 is not supported"), "{newer}");
    let truncated = load("truncated").expect_err("truncated");
    assert!(matches!(truncated, RecordError::Parse { line: 1, .. }), "{truncated}");
    assert!(truncated.to_string().contains("EOF"), "{truncated}");
    let nan = load("nan-readings").expect_err("NaN");
    assert!(matches!(nan, RecordError::Parse { line: 1, column, .. } if column > 1), "{nan}");
    assert!(nan.to_string().contains("nan-readings.kwrec.json:1:"), "{nan}");
    // A NaN read in memory cannot be saved as JSON either: a clear error, not a panic.
    let mut r = base_1gpu();
    r.snapshots[0].gpus[0].power_avg_w = Some(f64::NAN);
    let path = std::env::temp_dir().join(format!("kraftwerk-nan-{}.kwrec.json", std::process::id()));
    match r.save(&path) {
        Err(RecordError::Encode(_)) => {}
        Ok(()) => {
            // serde_json writes NaN as null: the reading comes back as unknown, never as NaN.
            let back = Recording::load(&path).expect("reload");
            assert_eq!(back.snapshots[0].gpus[0].power_avg_w, None);
        }
        Err(e) => panic!("unexpected error {e}"),
    }
    let _ = std::fs::remove_file(path);
    assert!(Path::new(&faults_dir()).is_dir());
}

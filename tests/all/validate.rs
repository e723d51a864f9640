//! Validating a machine against its build, with real H200 readings taken in one command on the
//! H200 test machine: the NVML recording of the run and the probe report (tests/fixtures,
//! `h200-validate-run.kwrec.json`, `probe-h200-validate.json`).

use crate::support::fixture;
use kraftwerk::catalog;
use kraftwerk::live::probe::ProbeReport;
use kraftwerk::live::probe::checks::Grade;
use kraftwerk::live::record::Recording;
use kraftwerk::live::validate::validate;
use kraftwerk::rig;
use std::path::Path;

fn h200() -> (rig::Build, catalog::Catalog, Recording, ProbeReport) {
    let c = catalog::builtin().expect("catalog");
    let b = rig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron"), Some(&c))
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
    // Each planned GPU's model row says no GPU was found, not "none left" (which reads as if
    // GPUs were found and used up).
    let rows: Vec<_> = v.checks.iter().filter(|x| x.check == "gpu-model").collect();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r.grade, Grade::Fail);
        assert_eq!(r.measured, "no GPU found (nothing measured)", "{r:?}");
        assert!(r.reason.contains("no GPU was found"), "{r:?}");
    }
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

// ---------------------------------------------------------------------------------------------
// `validate --from` with nvidia-smi output (`-q`, `-q -x`, `topo -m`): real dumps from public
// repositories and issue threads in tests/fixtures/nvidia-smi/ (README.md there cites each).

mod smi {
    use super::{Grade, fixture, grade_of};
    use kraftwerk::catalog;
    use kraftwerk::live::reasons::ClockEventReasons;
    use kraftwerk::live::smi::{self, SmiDump, SmiFormat, TopoMatrix};
    use kraftwerk::live::topology::{Connection, PcieAncestor};
    use kraftwerk::live::validate::Validation;
    use kraftwerk::rig;
    use std::path::Path;

    fn smi_fixture(name: &str) -> String {
        std::fs::read_to_string(fixture("nvidia-smi").join(name)).expect("nvidia-smi fixture")
    }

    fn parse(name: &str) -> SmiDump {
        let text = smi_fixture(name);
        assert!(smi::is_smi_output(&text), "{name} is recognised as nvidia-smi output");
        smi::parse(name, &text).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn grade(build_file: &Path, dump: &SmiDump) -> Validation {
        let c = catalog::builtin().expect("catalog");
        let b = rig::load(build_file, Some(&c)).expect("build");
        smi::validate_dump(&b, &c, dump)
    }

    fn smi_build(name: &str) -> std::path::PathBuf {
        fixture("nvidia-smi").join(name)
    }

    fn check<'v>(v: &'v Validation, name: &str, gpu: Option<usize>) -> &'v kraftwerk::live::validate::ValidationCheck {
        v.checks
            .iter()
            .find(|c| c.check == name && c.gpu == gpu)
            .unwrap_or_else(|| panic!("no {name} check for {gpu:?}: {:#?}", v.checks))
    }

    /// thamada/nvidia-smi `gls/RTX3090_smi.py`: `nvidia-smi -a` of two idle RTX 3090s, driver 560.
    #[test]
    fn rtx3090_pair_figures_are_what_the_dump_says() {
        let d = parse("rtx3090x2-idle-q.txt");
        assert_eq!(d.formats, vec![SmiFormat::Query]);
        assert_eq!(d.driver_version.as_deref(), Some("560.35.03"));
        assert_eq!(d.cuda_version.as_deref(), Some("12.6"));
        assert_eq!(d.attached_gpus, Some(2));
        assert_eq!(d.gpus.len(), 2);
        let (a, b) = (&d.gpus[0], &d.gpus[1]);
        assert_eq!(a.name.as_deref(), Some("NVIDIA GeForce RTX 3090"));
        assert_eq!(a.uuid.as_deref(), Some("GPU-4aba3cfa-7b42-cca6-97f4-5cdd281b0746"));
        assert_eq!(a.bus_id.as_deref(), Some("00000000:41:00.0"));
        assert_eq!(b.bus_id.as_deref(), Some("00000000:81:00.0"));
        assert_eq!(
            (a.pcie_gen_max, a.pcie_gen_current, a.pcie_width_max, a.pcie_width_current),
            (Some(4), Some(1), Some(16), Some(16))
        );
        assert_eq!((a.pcie_gen_device_max, a.pcie_gen_host_max), (Some(4), Some(4)));
        assert_eq!(a.utilization_gpu_pct, Some(0));
        assert_eq!(a.performance_state, Some(8));
        assert_eq!(a.memory_total_mib, Some(24576));
        assert_eq!(a.power_draw_w, Some(30.10));
        assert_eq!(b.power_draw_w, Some(36.88));
        assert_eq!(
            (a.power_limit_current_w, a.power_limit_default_w, a.power_limit_min_w, a.power_limit_max_w),
            (Some(350.0), Some(350.0), Some(100.0), Some(350.0))
        );
        assert_eq!(a.persistence_mode, Some(true));
        assert_eq!(a.clock_event_reasons, Some(ClockEventReasons(0x1)), "Idle only");
        assert_eq!(b.temperature_c, Some(29));
        // GeForce: ECC, retired pages and remapped rows are N/A, so unknown, never zero.
        assert_eq!((a.ecc_enabled, a.ecc_uncorrected_volatile, a.ecc_uncorrected_aggregate), (None, None, None));
        assert_eq!((a.retired_pages_single_bit, a.retired_pages_pending), (None, None));
        assert_eq!((a.remapped_rows_uncorrectable, a.remapped_rows_failure), (None, None));
        assert_eq!(a.xid_errors, None);
    }

    /// An idle dump cannot pass a link, does not pass the count of checks it cannot make, and
    /// never grades PASS: no probe data.
    #[test]
    fn a_healthy_idle_rtx3090_dump_is_not_a_pass() {
        let v = grade(&smi_build("rtx3090x2.rig.ron"), &parse("rtx3090x2-idle-q.txt"));
        assert_eq!(grade_of(&v, "gpu-count"), Some(Grade::Pass));
        for gpu in [0, 1] {
            let link = check(&v, "pcie-link-live", Some(gpu));
            assert_eq!(link.grade, Grade::NotMeasured, "Gen1 at 0 % utilization is an idle downshift: {link:#?}");
            assert!(link.measured.contains("Gen1 x16 at idle"), "{link:#?}");
            assert_eq!(check(&v, "power-limit", Some(gpu)).grade, Grade::Pass, "350 W as the catalog's default");
            assert_eq!(check(&v, "memory", Some(gpu)).grade, Grade::Pass);
            assert_eq!(check(&v, "clock-events", Some(gpu)).grade, Grade::Info, "idle: throttling not observed");
            assert_eq!(check(&v, "persistence-mode", Some(gpu)).grade, Grade::Pass);
        }
        assert_eq!(grade_of(&v, "ecc"), None, "GeForce: no ECC counters, not checked");
        assert_eq!(grade_of(&v, "retired-pages"), None);
        assert_eq!(grade_of(&v, "xid"), None, "no kernel log in the dump: XIDs unknown");
        let probe = check(&v, "probe", None);
        assert_eq!(probe.grade, Grade::NotMeasured);
        assert!(probe.reason.contains("no probe report"), "{probe:#?}");
        assert_eq!(v.overall, Grade::NotMeasured);
        assert!(v.source.contains("nvidia-smi dump") && v.source.contains("nvidia-smi -q"), "{}", v.source);
    }

    /// The H200's own `nvidia-smi -q` (tests/fixtures/nvidia-smi-q-h200.txt, taken on the H200
    /// test machine at idle): the current link is already Gen5 x16, which alone graded PASS
    /// ("judged from NVML's maximum link") before the dump rule; an idle snapshot is info.
    #[test]
    fn the_idle_h200_dump_is_info_for_the_link_and_warn_overall() {
        let text = std::fs::read_to_string(fixture("nvidia-smi-q-h200.txt")).expect("h200 dump");
        let d = smi::parse("nvidia-smi-q-h200.txt", &text).expect("parse");
        let g = &d.gpus[0];
        assert_eq!(g.name.as_deref(), Some("NVIDIA H200"));
        assert_eq!(
            (g.pcie_gen_max, g.pcie_gen_current, g.pcie_width_max, g.pcie_width_current),
            (Some(5), Some(5), Some(16), Some(16))
        );
        assert_eq!(
            (g.power_limit_current_w, g.power_limit_requested_w, g.power_limit_min_w, g.power_limit_max_w),
            (Some(700.0), Some(700.0), Some(200.0), Some(700.0))
        );
        assert_eq!(g.power_draw_w, Some(81.54), "Average Power Draw");
        assert_eq!(g.memory_total_mib, Some(143_771));
        assert_eq!(
            (g.ecc_enabled, g.ecc_uncorrected_volatile, g.ecc_corrected_aggregate),
            (Some(true), Some(0), Some(0))
        );
        assert_eq!(
            (g.remapped_rows_uncorrectable, g.remapped_rows_pending, g.remapped_rows_failure),
            (Some(0), Some(false), Some(false))
        );
        assert_eq!(g.retired_pages_single_bit, None, "N/A on Hopper");
        let cat = catalog::builtin().expect("catalog");
        let bld =
            rig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron"), Some(&cat))
                .expect("build");
        let v = smi::validate_dump(&bld, &cat, &d);
        let link = check(&v, "pcie-link-live", Some(0));
        assert_eq!(link.grade, Grade::NotMeasured, "{link:#?}");
        assert!(link.reason.contains("not measured"), "{link:#?}");
        assert_eq!(grade_of(&v, "gpu-model"), Some(Grade::Pass));
        assert_eq!(grade_of(&v, "power-limit"), Some(Grade::Pass));
        assert_eq!(grade_of(&v, "ecc"), Some(Grade::Pass), "0 uncorrected: a counter read, not a measurement");
        assert_eq!(grade_of(&v, "remapped-rows"), Some(Grade::Pass));
        assert_eq!(grade_of(&v, "ecc-mode"), Some(Grade::Pass));
        assert_eq!(v.overall, Grade::NotMeasured, "no probe data: never PASS");
    }

    /// T-K-233/Diffusion-Benchmark README, section [6]: an RTX 4090 (PCIe 4.0) in a PCIe 3.0
    /// host ("Host Max 3"): the link cannot train above Gen3, below the build's Gen4 x16.
    #[test]
    fn an_rtx4090_in_a_gen3_host_fails_the_link() {
        let d = parse("rtx4090-gen3-host-q.txt");
        assert_eq!(d.attached_gpus, None, "a GPU section without the log header");
        let g = &d.gpus[0];
        assert_eq!(
            (g.pcie_gen_max, g.pcie_gen_device_max, g.pcie_gen_host_max, g.pcie_gen_current),
            (Some(3), Some(4), Some(3), Some(1))
        );
        assert_eq!(g.utilization_gpu_pct, Some(34));
        assert_eq!((g.power_limit_current_w, g.power_limit_max_w), (Some(450.0), Some(600.0)));
        assert_eq!(g.memory_used_mib, Some(609));
        assert_eq!(g.ecc_enabled, Some(false));
        assert_eq!(g.remapped_rows_correctable, Some(0));
        let v = grade(&smi_build("rtx4090.rig.ron"), &d);
        let link = check(&v, "pcie-link-live", Some(0));
        assert_eq!(link.grade, Grade::Fail, "{link:#?}");
        assert!(link.measured.contains("Gen3 x16"), "{link:#?}");
        assert!(link.reason.contains("cannot train above Gen3 x16") && link.reason.contains("Gen4 x16"), "{link:#?}");
        assert!(link.reason.contains("Host Max Gen3 against Device Max Gen4"), "{link:#?}");
        assert_eq!(grade_of(&v, "gpu-model"), Some(Grade::Pass));
        assert_eq!(v.overall, Grade::Fail);
        // The same dump with the host at Gen4 (the planted fix) no longer fails the link.
        let mut fixed = d.clone();
        fixed.gpus[0].pcie_gen_max = Some(4);
        let v = grade(&smi_build("rtx4090.rig.ron"), &fixed);
        assert_eq!(check(&v, "pcie-link-live", Some(0)).grade, Grade::NotMeasured, "Gen1 at 34 %: idle downshift");
        assert_ne!(v.overall, Grade::Fail, "{:#?}", v.checks);
    }

    /// thamada/gls `gls/RTX_A6000_x9_smi.py`: the log header (9 attached) and the first GPU
    /// section, the form of `nvidia-smi -q -i 0`.
    #[test]
    fn an_a6000_section_of_nine_counts_nine_and_reads_ecc() {
        let d = parse("rtx-a6000-first-of-9-q.txt");
        assert_eq!((d.attached_gpus, d.gpus.len()), (Some(9), 1));
        let g = &d.gpus[0];
        assert_eq!(g.name.as_deref(), Some("NVIDIA RTX A6000"));
        assert_eq!(g.memory_total_mib, Some(46068));
        assert_eq!((g.ecc_enabled, g.ecc_pending_enabled), (Some(true), Some(true)));
        assert_eq!(
            (g.ecc_corrected_volatile, g.ecc_uncorrected_volatile, g.ecc_uncorrected_aggregate),
            (Some(0), Some(0), Some(0))
        );
        assert_eq!((g.remapped_rows_pending, g.remapped_rows_failure), (Some(false), Some(false)));
        assert_eq!(g.power_limit_max_w, Some(300.0));
        let v = grade(&smi_build("rtx-a6000.rig.ron"), &d);
        let count = check(&v, "gpu-count", None);
        assert_eq!(count.grade, Grade::Warn, "9 attached, 1 planned: {count:#?}");
        assert!(count.measured.contains("9 GPU(s) attached"), "{count:#?}");
        assert_eq!(grade_of(&v, "ecc"), Some(Grade::Pass));
        assert_eq!(grade_of(&v, "remapped-rows"), Some(Grade::Pass));
        assert_eq!(check(&v, "pcie-link-live", Some(0)).grade, Grade::NotMeasured);
        assert_ne!(v.overall, Grade::Pass);
    }

    /// netdata's go.d nvidia_smi test data `a100-sxm4-mig.xml`: `nvidia-smi -q -x` of an A100
    /// SXM4 40GB with MIG on, driver 510 ("clocks_throttle_reasons", a value split over lines).
    #[test]
    fn the_a100_xml_figures_are_what_the_dump_says() {
        let d = parse("a100-sxm4-40gb-mig-q.xml");
        assert_eq!(d.formats, vec![SmiFormat::QueryXml]);
        assert_eq!((d.driver_version.as_deref(), d.attached_gpus), (Some("510.47.03"), Some(1)));
        let g = &d.gpus[0];
        assert_eq!(g.name.as_deref(), Some("NVIDIA A100-SXM4-40GB"));
        assert_eq!(g.uuid.as_deref(), Some("GPU-27b94a00-ed54-5c24-b1fd-1054085de32a"));
        assert_eq!(g.bus_id.as_deref(), Some("00000000:00:04.0"));
        assert_eq!(
            (g.pcie_gen_max, g.pcie_gen_current, g.pcie_width_max, g.pcie_width_current),
            (Some(4), Some(4), Some(16), Some(16))
        );
        assert_eq!(g.memory_total_mib, Some(40960), "the GPU's, not a MIG slice's 19968");
        assert_eq!(
            (
                g.power_limit_current_w,
                g.power_limit_requested_w,
                g.power_limit_default_w,
                g.power_limit_min_w,
                g.power_limit_max_w
            ),
            (Some(400.0), Some(400.0), Some(400.0), Some(100.0), Some(400.0))
        );
        assert_eq!(g.power_draw_w, Some(66.92));
        assert_eq!(
            (g.ecc_enabled, g.ecc_uncorrected_volatile, g.ecc_uncorrected_aggregate, g.ecc_corrected_aggregate),
            (Some(true), None, Some(0), Some(0))
        );
        assert_eq!(g.clock_event_reasons, Some(ClockEventReasons(0)), "all Not Active, one split over two lines");
        assert_eq!((g.utilization_gpu_pct, g.performance_state, g.persistence_mode), (None, Some(0), Some(false)));
        assert_eq!((g.retired_pages_double_bit, g.remapped_rows_pending), (None, None));
        assert_eq!(g.temperature_c, Some(36));
    }

    #[test]
    fn a_truncated_xml_is_a_located_error() {
        let text = smi_fixture("a100-sxm4-40gb-mig-q.xml");
        let cut = &text[..text.find("<power_readings>").expect("power section")];
        assert!(smi::is_smi_output(cut));
        let e = smi::parse("cut.xml", cut).expect_err("a cut XML is refused");
        let msg = e.to_string();
        assert!(msg.starts_with("cut.xml:"), "{msg}");
        assert!(msg.contains("ends inside <gpu> opened at line 8"), "{msg}");
        assert!(e.line > 100, "{msg}");
        // A mismatched closing tag names both tags and where.
        let bad = text.replacen("</fb_memory_usage>", "</fb_memory>", 1);
        let e = smi::parse("bad.xml", &bad).expect_err("mismatch");
        assert!(e.to_string().contains("</fb_memory> does not close <fb_memory_usage>"), "{e}");
    }

    /// The header of the RTX 3090 dump with `Attached GPUs : 0` (what nvidia-smi prints when it
    /// sees no GPU) and its XML form.
    #[test]
    fn a_zero_gpu_dump_is_a_clear_error() {
        let text = smi_fixture("rtx3090x2-idle-q.txt");
        let header: String =
            text.lines().take(8).collect::<Vec<_>>().join("\n").replace(
                "Attached GPUs                             : 2",
                "Attached GPUs                             : 0",
            );
        assert!(header.contains(": 0"), "{header}");
        let e = smi::parse("zero.txt", &header).expect_err("no GPU");
        assert_eq!(e.line, 8, "{e}");
        assert!(e.to_string().contains("no GPU (Attached GPUs: 0)"), "{e}");
        let xml = "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n\t<driver_version>510.47.03</driver_version>\n\t<attached_gpus>0</attached_gpus>\n</nvidia_smi_log>\n";
        let e = smi::parse("zero.xml", xml).expect_err("no GPU");
        assert_eq!(e.line, 4, "{e}");
        let c = catalog::builtin().expect("catalog");
        let b = rig::load(&smi_build("rtx3090x2.rig.ron"), Some(&c)).expect("build");
        assert!(smi::validate_text(&b, &c, "zero.txt", &header).is_err(), "never a grade, never PASS");
    }

    /// noonghunna/club-3090 issue 178: `nvidia-smi topo -m` of two RTX 3090s on different NUMA
    /// nodes (SYS). A build that plans an NVLink bridge between them fails `nvlink-active`.
    #[test]
    fn a_topo_matrix_without_nvlink_fails_a_planned_bridge() {
        let d = parse("rtx3090x2-topo-m-sys.txt");
        assert_eq!(d.formats, vec![SmiFormat::Topo]);
        let t = d.topology.as_ref().expect("matrix");
        assert_eq!(t.gpu_count(), 2);
        assert_eq!(t.topology().connection(0, 1), Some(Connection::Pcie { ancestor: PcieAncestor::System }));
        let v = grade(&smi_build("rtx3090x2-nvlink.rig.ron"), &d);
        let nv = check(&v, "nvlink-active", Some(0));
        assert_eq!(nv.grade, Grade::Fail, "{nv:#?}");
        assert!(nv.measured.contains("SYS"), "{nv:#?}");
        assert_eq!(grade_of(&v, "gpu-count"), Some(Grade::Pass));
        assert!(
            v.checks.iter().filter(|c| c.check == "gpu-model").all(|c| c.grade == Grade::Info),
            "no names in topo -m: {:#?}",
            v.checks
        );
        assert_eq!(v.overall, Grade::Fail);
        // Without the bridge in the build, SYS is what a PCIe pair shows: no NVLink check.
        let v = grade(&smi_build("rtx3090x2.rig.ron"), &d);
        assert_eq!(grade_of(&v, "nvlink-active"), None);
        assert_eq!(v.overall, Grade::NotMeasured, "no probe data");
    }

    /// A `-q` dump with a `topo -m` after it in the same file (here two real outputs of different
    /// machines put together: a format test, not a machine). The matrix's GPU0/GPU1 are the
    /// dump's sections in order, so the shared NVLink check runs on the matched GPUs.
    #[test]
    fn a_query_dump_followed_by_topo_reads_both() {
        let text = format!("{}\n{}", smi_fixture("rtx3090x2-idle-q.txt"), smi_fixture("rtx3090x2-topo-m-sys.txt"));
        let d = smi::parse("both.txt", &text).expect("parse");
        assert_eq!(d.formats, vec![SmiFormat::Query, SmiFormat::Topo]);
        assert_eq!(d.gpus.len(), 2);
        assert_eq!(d.topology.as_ref().map(TopoMatrix::gpu_count), Some(2));
        let v = grade(&smi_build("rtx3090x2-nvlink.rig.ron"), &d);
        let nv = check(&v, "nvlink-active", Some(0));
        assert_eq!(nv.grade, Grade::Fail, "{nv:#?}");
        assert!(nv.reason.contains("talk over PCIe"), "the shared check's reason: {nv:#?}");
        // A matrix of another GPU count than the -q part is refused, with the line.
        let three = text.replace(
            "GPU1\tSYS\t X \t8-15,24-31\t1\t\tN/A",
            "GPU1\tSYS\t X \t8-15,24-31\t1\t\tN/A\nGPU2\tSYS\tSYS\t X",
        );
        let three = three.replace("\tGPU0\tGPU1\tCPU", "\tGPU0\tGPU1\tGPU2\tCPU");
        let e = smi::parse("three.txt", &three).expect_err("3 vs 2 GPUs");
        assert!(e.to_string().contains("3 GPU(s) but the -q part has 2"), "{e}");
    }

    /// Kernel-log XID lines pasted after the dump name the GPU by bus; a planted XID 79 ("GPU has
    /// fallen off the bus", NVIDIA XID catalog https://docs.nvidia.com/deploy/xid-errors/) on
    /// the second RTX 3090 fails `xid` for that GPU only.
    #[test]
    fn an_xid_line_in_the_file_fails_its_gpu() {
        let text = format!(
            "{}\n[12345.678901] NVRM: Xid (PCI:0000:81:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n",
            smi_fixture("rtx3090x2-idle-q.txt")
        );
        let d = smi::parse("xid.txt", &text).expect("parse");
        assert_eq!(d.gpus[0].xid_errors, None);
        assert_eq!(d.gpus[1].xid_errors, Some(vec![79]));
        let v = grade(&smi_build("rtx3090x2.rig.ron"), &d);
        assert_eq!(check(&v, "xid", Some(1)).grade, Grade::Fail);
        assert!(v.checks.iter().all(|c| !(c.check == "xid" && c.gpu == Some(0))), "GPU 1's XIDs unknown, not passed");
        assert_eq!(v.overall, Grade::Fail);
    }

    /// Planted faults in the real RTX A6000 dump: a pending and a failed row remap, a HW power
    /// brake at idle, ECC switched off.
    #[test]
    fn planted_health_faults_fail_with_the_reason() {
        let text = smi_fixture("rtx-a6000-first-of-9-q.txt");
        let planted = text
            .replacen("        Pending                           : No\n        Remapping Failure Occurred        : No", "        Pending                           : Yes\n        Remapping Failure Occurred        : Yes", 1)
            .replacen("        HW Slowdown                       : Not Active\n            HW Thermal Slowdown           : Not Active\n            HW Power Brake Slowdown       : Not Active", "        HW Slowdown                       : Active\n            HW Thermal Slowdown           : Not Active\n            HW Power Brake Slowdown       : Active", 1)
            .replacen("    ECC Mode\n        Current                           : Enabled", "    ECC Mode\n        Current                           : Disabled", 1);
        assert_ne!(planted, text);
        let d = smi::parse("planted.txt", &planted).expect("parse");
        assert_eq!(d.gpus[0].clock_event_reasons, Some(ClockEventReasons(0x1 | 0x8 | 0x80)));
        let v = grade(&smi_build("rtx-a6000.rig.ron"), &d);
        let rows = check(&v, "remapped-rows", Some(0));
        assert_eq!(rows.grade, Grade::Fail);
        assert!(rows.reason.contains("RMA"), "{rows:#?}");
        let clocks = check(&v, "clock-events", Some(0));
        assert_eq!(clocks.grade, Grade::Fail);
        assert!(
            clocks.reason.contains("HW_SLOWDOWN") && clocks.reason.contains("HW_POWER_BRAKE_SLOWDOWN"),
            "{clocks:#?}"
        );
        assert_eq!(check(&v, "ecc-mode", Some(0)).grade, Grade::Info);
        assert_eq!(v.overall, Grade::Fail);
    }

    #[test]
    fn recordings_are_not_taken_for_nvidia_smi_output() {
        let rec = std::fs::read_to_string(fixture("h200-validate-record.kwrec.json")).expect("recording");
        assert!(!smi::is_smi_output(&rec));
        assert!(!smi::is_smi_output("nothing to see"));
        assert!(smi::parse("x.txt", "nothing to see").is_err());
    }

    /// The command: exit 1 for the failing 4090 dump, 0 (warn, not PASS) for the idle pair, 2
    /// for a cut XML.
    #[test]
    fn validate_from_reads_dumps_from_the_command_line() {
        let run = |build: &str, dump: &Path| {
            std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
                .args(["validate", &smi_build(build).display().to_string(), "--from", &dump.display().to_string()])
                .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
                .output()
                .expect("run kraftwerk")
        };
        let dir = fixture("nvidia-smi");
        let o = run("rtx4090.rig.ron", &dir.join("rtx4090-gen3-host-q.txt"));
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains("FAIL") && out.contains("cannot train above Gen3"), "{out}");
        let o = run("rtx3090x2.rig.ron", &dir.join("rtx3090x2-idle-q.txt"));
        let out = String::from_utf8_lossy(&o.stdout);
        // An idle snapshot measured nothing under load: UNVERIFIED, exit 3, never PASS.
        assert_eq!(o.status.code(), Some(3), "{out}");
        assert!(out.contains(": UNVERIFIED") && !out.contains(": PASS"), "{out}");
        let tmp = std::env::temp_dir().join(format!("kraftwerk-smi-cut-{}.xml", std::process::id()));
        let xml = smi_fixture("a100-sxm4-40gb-mig-q.xml");
        std::fs::write(&tmp, &xml[..xml.len() / 2]).expect("write");
        let o = run("rtx3090x2.rig.ron", &tmp);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("the file is cut short"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let _ = std::fs::remove_file(tmp);
    }
}

/// `nvidia-smi -q -x` and `nvidia-smi -q; nvidia-smi topo -m` taken on the H200 test machine
/// (driver 580.159.04, 2026-12-01, idle; serial, PDI and UUID removed). The topo header carries
/// ANSI underline codes even in a file.
mod smi_h200 {
    use super::{Grade, fixture, grade_of};
    use kraftwerk::catalog;
    use kraftwerk::live::reasons::ClockEventReasons;
    use kraftwerk::live::smi::{self, SmiFormat, TopoMatrix};
    use kraftwerk::rig;
    use std::path::Path;

    fn h200_build() -> (rig::Build, catalog::Catalog) {
        let c = catalog::builtin().expect("catalog");
        let b =
            rig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/h200-sxm-1gpu.rig.ron"), Some(&c))
                .expect("build");
        (b, c)
    }

    #[test]
    fn the_h200_xml_reads_and_grades_like_its_text() {
        let xml = std::fs::read_to_string(fixture("nvidia-smi/h200-q.xml")).expect("xml");
        let d = smi::parse("h200-q.xml", &xml).expect("parse");
        assert_eq!(d.formats, vec![SmiFormat::QueryXml]);
        assert_eq!((d.driver_version.as_deref(), d.attached_gpus), (Some("580.159.04"), Some(1)));
        let g = &d.gpus[0];
        assert_eq!(g.name.as_deref(), Some("NVIDIA H200"));
        assert_eq!(g.bus_id.as_deref(), Some("00000000:00:06.0"));
        assert_eq!(
            (g.pcie_gen_max, g.pcie_gen_current, g.pcie_width_max, g.pcie_width_current),
            (Some(5), Some(5), Some(16), Some(16))
        );
        assert_eq!(g.power_draw_w, Some(80.35), "average_power_draw");
        assert_eq!(
            (g.power_limit_current_w, g.power_limit_min_w, g.power_limit_max_w),
            (Some(700.0), Some(200.0), Some(700.0))
        );
        assert_eq!(g.memory_total_mib, Some(143_771));
        assert_eq!(g.utilization_gpu_pct, Some(0));
        assert_eq!(g.clock_event_reasons, Some(ClockEventReasons(0x1)));
        assert_eq!((g.ecc_uncorrected_volatile, g.ecc_uncorrected_aggregate), (Some(0), Some(0)));
        assert_eq!((g.remapped_rows_correctable, g.remapped_rows_uncorrectable), (Some(0), Some(0)));
        let text = std::fs::read_to_string(fixture("nvidia-smi/h200-q-and-topo-m.txt")).expect("text");
        let t = smi::parse("h200-q-and-topo-m.txt", &text).expect("parse");
        assert_eq!(t.formats, vec![SmiFormat::Query, SmiFormat::Topo], "the underlined topo header is found");
        assert_eq!(t.topology.as_ref().map(TopoMatrix::gpu_count), Some(1));
        let tg = &t.gpus[0];
        assert_eq!(
            (
                tg.name.as_deref(),
                tg.pcie_gen_max,
                tg.power_limit_current_w,
                tg.memory_total_mib,
                tg.clock_event_reasons
            ),
            (g.name.as_deref(), g.pcie_gen_max, g.power_limit_current_w, g.memory_total_mib, g.clock_event_reasons),
            "the same machine read from text and XML"
        );
        let (bld, cat) = h200_build();
        let vx = smi::validate_dump(&bld, &cat, &d);
        let vt = smi::validate_dump(&bld, &cat, &t);
        let grades = |v: &kraftwerk::live::validate::Validation| {
            v.checks.iter().map(|c| (c.check.clone(), c.grade)).collect::<Vec<_>>()
        };
        assert_eq!(grades(&vx), grades(&vt), "XML and text grade alike");
        assert_eq!(grade_of(&vx, "pcie-link-live"), Some(Grade::NotMeasured));
        assert_eq!(grade_of(&vx, "power-limit"), Some(Grade::Pass));
        assert_eq!(vx.overall, Grade::NotMeasured);
    }
}

/// Review of issue 27's change: a probe cut short (Ctrl-C, its time limit) is "not measured",
/// and a device the probe failed on fails `probe`, so neither reads as a pass.
#[test]
fn a_cancelled_or_failed_probe_is_not_a_pass() {
    let (b, c, rec, mut probe) = h200();
    probe.cancelled = true;
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "probe"), Some(Grade::NotMeasured), "{:#?}", v.checks);
    assert_ne!(v.overall, Grade::Pass);
    let (b, c, rec, mut probe) = h200();
    probe.devices[0].errors.push("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access".to_owned());
    let v = validate(&b, &c, &rec.gpus, Some(&probe));
    assert_eq!(grade_of(&v, "probe"), Some(Grade::Fail), "{:#?}", v.checks);
    assert_eq!(v.overall, Grade::Fail);
}

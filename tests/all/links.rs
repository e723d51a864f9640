//! GPU links: merging NVML and CUDA views, expectations from builds and live GPUs, grading,
//! the report's JSON and text, the NCCL environment rules, and the "not available" path.
//!
//! Fixtures:
//! - `tests/fixtures/h200-2gpu-idle.kwrec.json`: the real 2x H200 NVML reading (18 NVLinks
//!   active per GPU), converted from `shared/fixtures/h200/nvml-2gpu-idle.json`;
//! - `tests/fixtures/links-h200-2gpu-nvml.json`: the links report that reading gives on a
//!   machine where nothing can be measured (written by `KRAFTWERK_WRITE_FIXTURES=1 cargo test
//!   --test links`);
//! - `tests/fixtures/links-2xh200.json`: `kraftwerk links --build
//!   tests/fixtures/links-h200-2gpu.rig.ron --format json` on the two-GPU H200 machine;
//! - `tests/fixtures/links-h200-2gpu.rig.ron`: that machine as a build.

use crate::support::{self, fixture};
use kraftwerk::catalog::Catalog;
use kraftwerk::live::links::checks::{
    self, BANDWIDTH_WARN_BELOW, ExpectedLink, NVLINK_COPY_EFFICIENCY, PCIE_P2P_EFFICIENCY, expectations_from_build,
    expectations_from_live, grade_bandwidth,
};
use kraftwerk::live::links::nccl_env::{ChildPlan, check_nvls, parse_ldconfig};
use kraftwerk::live::links::{
    self, AllReduceRow, AllReduceTable, CudaDevice, LINKS_SCHEMA_VERSION, LinksOptions, LinksReport, P2pMatrix,
    PeerLink, Section, all_reduce_sizes, bus_factor, gb_per_s, iterations_for, merge_gpus,
};
use kraftwerk::live::probe::{Grade, Summary};
use kraftwerk::live::record::Recording;
use kraftwerk::live::topology::{Connection, PcieAncestor};
use kraftwerk::rig::{self, Build};
use std::path::{Path, PathBuf};

fn build_file(path: &Path, c: &Catalog) -> Build {
    rig::load(path, Some(c)).expect("build loads")
}

fn h200_build(c: &Catalog) -> Build {
    build_file(&fixture("links-h200-2gpu.rig.ron"), c)
}

fn reference_build(name: &str, c: &Catalog) -> Build {
    build_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds").join(name), c)
}

fn two_h200_recording() -> Recording {
    Recording::load(&fixture("h200-2gpu-idle.kwrec.json")).expect("2-GPU recording")
}

/// The links report of the real 2x H200 NVML reading, nothing measured.
fn nvml_only_report() -> LinksReport {
    let rec = two_h200_recording();
    let (gpus, topology) = merge_gpus(Some((&rec.gpus, &rec.topology)), None);
    let mut r = LinksReport::unmeasured(
        "2 NVIDIA GPU(s)",
        gpus,
        topology,
        "this Kraftwerk was built without the `cuda` feature",
    );
    r.created_unix_ms = None;
    r.driver_version.clone_from(&rec.system.driver_version);
    r
}

fn summary(v: f64) -> Option<Summary> {
    Summary::of(&[v])
}

/// A measured two-GPU report: `one_way` GB/s each way, twice that both ways, and an all-reduce
/// table whose busbw is `busbw` from 256 MiB up.
fn measured(one_way: f64, busbw: f64, wrong: u64) -> LinksReport {
    let mut r = nvml_only_report();
    let link = |from, to| PeerLink {
        from,
        to,
        can_access_peer: Some(true),
        peer_access_enabled: true,
        one_way_gb_s: summary(one_way),
        two_way_gb_s: summary(2.0 * one_way * 0.98),
        latency_us: summary(2.4),
        error: None,
    };
    r.p2p = Section::Measured(P2pMatrix {
        copy_bytes: 256 << 20,
        copies_per_trial: 4,
        trials: 5,
        latency_bytes: 4,
        latency_copies: 100,
        links: vec![link(0, 1), link(1, 0)],
    });
    let rows = all_reduce_sizes(1 << 20, 1 << 30)
        .into_iter()
        .map(|b| {
            let bw = if b >= 256 << 20 { busbw } else { busbw * (b as f64 / (256u64 << 20) as f64).sqrt() };
            let time = b as f64 / (bw * 1e9);
            AllReduceRow {
                bytes: b as u64,
                count: (b / 4) as u64,
                iterations: iterations_for(b),
                time_us: time * 1e6,
                algbw_gb_s: bw,
                busbw_gb_s: bw * bus_factor(2),
                time_us_range: (time * 1e6, time * 1e6),
                wrong: if b == 1 << 30 { wrong } else { 0 },
            }
        })
        .collect();
    r.all_reduce = Section::Measured(AllReduceTable {
        ranks: 2,
        nccl_version: Some("2.27.3".to_owned()),
        dtype: "float32".to_owned(),
        op: "sum".to_owned(),
        out_of_place: true,
        warmup_iterations: 5,
        trials: 5,
        nvls_enable: Some("0".to_owned()),
        library: None,
        rows,
    });
    r
}

fn checks<'a>(r: &'a LinksReport, id: &str) -> Vec<&'a checks::LinkCheck> {
    r.checks.iter().filter(|c| c.check == id).collect()
}

// ---- arithmetic ------------------------------------------------------------------------------

#[test]
fn bus_factor_is_nccl_tests_all_reduce_factor() {
    assert!(bus_factor(0).abs() < 1e-12);
    assert!(bus_factor(1).abs() < 1e-12);
    assert!((bus_factor(2) - 1.0).abs() < 1e-12);
    assert!((bus_factor(4) - 1.5).abs() < 1e-12);
    assert!((bus_factor(8) - 1.75).abs() < 1e-12);
    assert!((gb_per_s(1e9, 0.5) - 2.0).abs() < 1e-12);
    assert!(gb_per_s(1e9, 0.0).abs() < 1e-12);
}

#[test]
fn sizes_double_from_one_mib_to_one_gib() {
    let s = all_reduce_sizes(1 << 20, 1 << 30);
    assert_eq!(s.len(), 11);
    assert_eq!(s.first(), Some(&(1 << 20)));
    assert_eq!(s.last(), Some(&(1 << 30)));
    assert!(s.windows(2).all(|w| w[1] == 2 * w[0]));
    assert_eq!(all_reduce_sizes(3_000_000, 5_000_000), vec![4_194_304]);
    assert!(all_reduce_sizes(1 << 20, 1000).is_empty());
    assert_eq!(all_reduce_sizes(0, 8), vec![4, 8]);
    assert_eq!(iterations_for(1 << 20), 1000);
    assert_eq!(iterations_for(1 << 30), 20);
    assert_eq!(iterations_for(16 << 20), 128);
}

// ---- merging NVML and CUDA -------------------------------------------------------------------

#[test]
fn nvml_only_report_has_the_h200_nvlink_topology() {
    let r = nvml_only_report();
    assert_eq!(r.gpus.len(), 2);
    assert_eq!(r.gpus[0].nvml_index, Some(0));
    assert_eq!(r.gpus[1].nvlinks_active, Some(18));
    assert_eq!(r.topology.connection(0, 1), Some(Connection::NvLink { links: 18 }));
    assert_eq!(r.topology.matrix(2)[0][1], "NV18");
    assert!(r.p2p.measured().is_none());
    assert!(r.all_reduce.reason().is_some_and(|s| s.contains("cuda")));
}

#[test]
fn cuda_order_is_matched_to_nvml_by_uuid() {
    let rec = two_h200_recording();
    let uuid = |i: usize| rec.gpus[i].uuid.clone();
    // CUDA lists NVML's second GPU first.
    let cuda = vec![
        CudaDevice { ordinal: 0, name: "NVIDIA H200".to_owned(), uuid: uuid(1) },
        CudaDevice { ordinal: 1, name: "NVIDIA H200".to_owned(), uuid: uuid(0) },
    ];
    let (gpus, topology) = merge_gpus(Some((&rec.gpus, &rec.topology)), Some(&cuda));
    assert_eq!(gpus[0].nvml_index, Some(1));
    assert_eq!(gpus[1].nvml_index, Some(0));
    assert_eq!(gpus[0].cuda_ordinal, Some(0));
    assert_eq!(topology.pairs.len(), 1);
    assert_eq!((topology.pairs[0].gpu_a, topology.pairs[0].gpu_b), (0, 1));
    // A CUDA device NVML does not know keeps its CUDA facts only, and no topology.
    let stranger = vec![CudaDevice { ordinal: 0, name: "X".to_owned(), uuid: Some("GPU-unknown".to_owned()) }];
    let (gpus, topology) = merge_gpus(Some((&rec.gpus, &rec.topology)), Some(&stranger));
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0].nvml_index, None);
    assert!(topology.pairs.is_empty());
    // No NVML at all.
    let (gpus, topology) = merge_gpus(None, Some(&cuda));
    assert_eq!(gpus.len(), 2);
    assert!(topology.pairs.is_empty());
}

// ---- expectations ----------------------------------------------------------------------------

#[test]
fn h200_sxm_build_expects_nvlink_at_376_gb_s() {
    let c = support::catalog();
    let e = expectations_from_build(&h200_build(&c), &c);
    assert_eq!(e.gpu_count, Some(2));
    assert_eq!(e.pairs.len(), 1);
    let p = &e.pairs[0];
    assert!(p.nvlink && p.p2p);
    assert!(matches!(p.link, ExpectedLink::NvlinkSxm { per_gpu_gb_s } if (per_gpu_gb_s - 900.0).abs() < 1e-9));
    let one_way = p.one_way_gb_s.expect("figure");
    assert!((one_way - 376.0).abs() < 1e-9, "{one_way}");
}

#[test]
fn geforce_pair_expects_no_p2p_and_no_figure() {
    let c = support::catalog();
    let e = expectations_from_build(&reference_build("2x-rtx-4090-x870e.rig.ron", &c), &c);
    let p = &e.pairs[0];
    assert!(!p.nvlink);
    assert!(!p.p2p);
    assert!(p.one_way_gb_s.is_none());
    assert!(matches!(p.link, ExpectedLink::Pcie { .. }));
    assert!(p.basis.contains("GeForce"), "{}", p.basis);
}

#[test]
fn bridged_a6000_pair_expects_the_bridge_figure() {
    let c = support::catalog();
    let e = expectations_from_build(&reference_build("2x-rtx-a6000-nvlink.rig.ron", &c), &c);
    let p = &e.pairs[0];
    assert!(p.nvlink && p.p2p);
    assert!(matches!(p.link, ExpectedLink::NvlinkBridge { pair_gb_s } if (pair_gb_s - 112.5).abs() < 1e-9));
    let want = 112.5 / 2.0 * NVLINK_COPY_EFFICIENCY;
    assert!((p.one_way_gb_s.expect("figure") - want).abs() < 1e-9);
}

#[test]
fn pcie_figure_is_gen4_midpoint_share() {
    let l = ExpectedLink::Pcie { pcie_gen: 4, lanes: 16 };
    assert!((l.one_way_gb_s().expect("figure") - 24.0).abs() < 0.01);
    assert!((PCIE_P2P_EFFICIENCY * 31.5 - 24.0).abs() < 1e-9);
    assert!(ExpectedLink::Unknown.one_way_gb_s().is_none());
}

#[test]
fn live_h200s_match_the_catalog_sxm_module() {
    let c = support::catalog();
    let r = nvml_only_report();
    let e = expectations_from_live(&r.gpus, &r.topology, Some(&c));
    assert_eq!(e.gpu_count, None);
    let p = &e.pairs[0];
    assert!(p.nvlink, "{p:?}");
    assert!((p.one_way_gb_s.expect("figure") - 376.0).abs() < 1e-9);
    // Without a catalog the NVLink is seen but has no figure.
    let e = expectations_from_live(&r.gpus, &r.topology, None);
    assert!(!e.pairs[0].nvlink && e.pairs[0].p2p && e.pairs[0].one_way_gb_s.is_none());
}

// ---- grading ---------------------------------------------------------------------------------

#[test]
fn bandwidth_grades_warn_under_80_percent() {
    assert_eq!(grade_bandwidth(80.0, Some(100.0)), Grade::Pass);
    assert_eq!(grade_bandwidth(79.9, Some(100.0)), Grade::Warn);
    assert_eq!(grade_bandwidth(5.0, None), Grade::Info);
    assert!((BANDWIDTH_WARN_BELOW - 0.8).abs() < 1e-12);
}

#[test]
fn good_h200_numbers_pass() {
    let c = support::catalog();
    let mut r = measured(380.0, 360.0, 0);
    r.regrade(expectations_from_build(&h200_build(&c), &c));
    assert_eq!(r.grade, Grade::Pass, "{:#?}", r.checks);
    assert_eq!(checks(&r, "nvlink-active")[0].measured, Some(18.0));
    assert_eq!(checks(&r, "p2p-access").len(), 2);
    assert_eq!(checks(&r, "p2p-bandwidth").len(), 2);
    assert_eq!(checks(&r, "p2p-two-way").len(), 1);
    assert_eq!(checks(&r, "all-reduce-correct")[0].grade, Grade::Pass);
    let busbw = checks(&r, "all-reduce-busbw")[0];
    assert_eq!(busbw.expected, Some(376.0));
    assert_eq!(checks(&r, "gpu-count")[0].grade, Grade::Pass);
}

#[test]
fn slow_links_warn_and_wrong_sums_fail() {
    let c = support::catalog();
    let e = expectations_from_build(&h200_build(&c), &c);
    let mut slow = measured(150.0, 140.0, 0);
    slow.regrade(e.clone());
    assert_eq!(slow.grade, Grade::Warn);
    assert!(checks(&slow, "p2p-bandwidth").iter().all(|c| c.grade == Grade::Warn));
    assert!(
        checks(&slow, "p2p-bandwidth")[0].message.contains("40 %"),
        "{}",
        checks(&slow, "p2p-bandwidth")[0].message
    );
    assert_eq!(checks(&slow, "all-reduce-busbw")[0].grade, Grade::Warn);
    let mut wrong = measured(380.0, 360.0, 7);
    wrong.regrade(e);
    assert_eq!(wrong.grade, Grade::Fail);
    assert_eq!(checks(&wrong, "all-reduce-correct")[0].measured, Some(7.0));
    assert!(wrong.failed());
}

#[test]
fn inactive_nvlink_fails_and_missing_gpu_fails() {
    let c = support::catalog();
    let e = expectations_from_build(&h200_build(&c), &c);
    let mut r = measured(50.0, 45.0, 0);
    r.topology.pairs[0].connection = Connection::Pcie { ancestor: PcieAncestor::HostBridge };
    r.regrade(e.clone());
    let nv = checks(&r, "nvlink-active")[0];
    assert_eq!(nv.grade, Grade::Fail);
    assert!(nv.message.contains("PHB"), "{}", nv.message);
    // One GPU lost: the pair is not graded, the count fails.
    let mut one = nvml_only_report();
    one.gpus.truncate(1);
    one.topology.pairs.clear();
    one.regrade(e);
    assert_eq!(checks(&one, "gpu-count")[0].grade, Grade::Fail);
    assert!(checks(&one, "nvlink-active").is_empty());
}

#[test]
fn geforce_without_p2p_is_reported_not_failed() {
    let c = support::catalog();
    let e = expectations_from_build(&reference_build("2x-rtx-4090-x870e.rig.ron", &c), &c);
    let mut r = measured(12.0, 10.0, 0);
    for g in &mut r.gpus {
        g.name = "NVIDIA GeForce RTX 4090".to_owned();
        g.nvlinks_active = None;
    }
    r.topology.pairs[0].connection = Connection::Pcie { ancestor: PcieAncestor::HostBridge };
    if let Section::Measured(m) = &mut r.p2p {
        for l in &mut m.links {
            l.can_access_peer = Some(false);
            l.peer_access_enabled = false;
        }
    }
    r.regrade(e);
    assert_ne!(r.grade, Grade::Fail, "{:#?}", r.checks);
    assert!(checks(&r, "p2p-access").iter().all(|c| c.grade == Grade::Info));
    assert!(checks(&r, "p2p-bandwidth").iter().all(|c| c.grade == Grade::Info && c.expected.is_none()));
    assert!(checks(&r, "nvlink-active").is_empty());
}

#[test]
fn blocked_p2p_on_datacenter_nvlink_fails() {
    let c = support::catalog();
    let mut r = measured(40.0, 35.0, 0);
    if let Section::Measured(m) = &mut r.p2p {
        m.links[0].can_access_peer = Some(false);
        m.links[0].peer_access_enabled = false;
    }
    r.regrade(expectations_from_build(&h200_build(&c), &c));
    let access = checks(&r, "p2p-access");
    assert_eq!(access[0].grade, Grade::Fail);
    assert_eq!(access[1].grade, Grade::Pass);
}

#[test]
fn unmeasured_report_grades_nvlink_and_says_why() {
    let c = support::catalog();
    let mut r = nvml_only_report();
    r.regrade(expectations_from_build(&h200_build(&c), &c));
    assert_eq!(checks(&r, "nvlink-active")[0].grade, Grade::Pass);
    let not = checks(&r, "not-measured");
    assert_eq!(not.len(), 2);
    assert!(not.iter().all(|c| c.grade == Grade::Info));
    assert_eq!(r.grade, Grade::Info);
    assert!(!r.failed());
}

#[test]
fn errors_fail() {
    let mut r = nvml_only_report();
    r.errors.push("P2P: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY".to_owned());
    r.p2p = Section::not_available("failed: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY");
    let e = expectations_from_live(&r.gpus, &r.topology, None);
    r.regrade(e);
    assert_eq!(checks(&r, "links-error").len(), 1);
    assert_eq!(checks(&r, "not-measured").len(), 1, "a failed section is an error, not an info");
    assert!(r.failed());
}

// ---- report ----------------------------------------------------------------------------------

#[test]
fn report_round_trips_through_json() {
    let c = support::catalog();
    let mut r = measured(380.0, 360.0, 0);
    r.regrade(expectations_from_build(&h200_build(&c), &c));
    let text = serde_json::to_string_pretty(&r).expect("encode");
    let back: LinksReport = serde_json::from_str(&text).expect("decode");
    assert_eq!(back, r);
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["schema_version"], LINKS_SCHEMA_VERSION);
    assert_eq!(v["p2p"]["status"], "measured");
    assert_eq!(v["all_reduce"]["rows"][10]["bytes"], 1u64 << 30);
    assert_eq!(v["expected"]["pairs"][0]["link"]["kind"], "nvlink_sxm");
    let un = serde_json::to_value(nvml_only_report()).expect("json");
    assert_eq!(un["p2p"]["status"], "not_available");
}

#[test]
fn nvml_fixture_matches_the_recording() {
    let r = nvml_only_report();
    let path = fixture("links-h200-2gpu-nvml.json");
    if std::env::var_os("KRAFTWERK_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&r).expect("encode") + "\n").expect("write fixture");
    }
    let text = std::fs::read_to_string(&path).expect("fixture");
    let fixed: LinksReport = serde_json::from_str(&text).expect("fixture decodes");
    assert_eq!(fixed, r);
}

#[test]
fn text_shows_the_matrices_and_the_table() {
    let c = support::catalog();
    let mut r = measured(380.0, 360.0, 0);
    r.regrade(expectations_from_build(&h200_build(&c), &c));
    let t = kraftwerk::live::report::links::render(&r);
    for want in [
        "NV18",
        "P2P one-way copy bandwidth",
        "380.0",
        "P2P two-way",
        "744.8",
        "latency",
        "busbw (GB/s)",
        "1073741824",
        "NCCL_NVLS_ENABLE=0",
        "nvlink-active",
        "Overall: pass",
    ] {
        assert!(t.contains(want), "missing {want:?} in\n{t}");
    }
    let un = kraftwerk::live::report::links::render(&nvml_only_report());
    assert!(un.contains("P2P copies: not available"));
    assert_eq!(kraftwerk::live::report::links::size_text(256 << 20), "256 MiB");
    assert_eq!(kraftwerk::live::report::links::size_text(1 << 30), "1 GiB");
    assert_eq!(kraftwerk::live::report::links::size_text(4), "4 B");
}

// ---- NCCL environment ------------------------------------------------------------------------

#[test]
fn nvls_must_be_zero() {
    assert!(check_nvls(Some("0")).is_ok());
    assert!(check_nvls(Some(" 0 ")).is_ok());
    assert!(check_nvls(Some("1")).is_err_and(|e| e.contains("NCCL_NVLS_ENABLE=1")));
    assert!(check_nvls(None).is_err_and(|e| e.contains("not set")));
}

#[test]
fn restart_plan() {
    let lib = Path::new("/opt/nccl/libnccl.so.2");
    assert_eq!(ChildPlan::decide(Some("0"), true, None, false), None);
    assert_eq!(ChildPlan::decide(None, true, None, true), None, "never restarts twice");
    let p = ChildPlan::decide(None, true, Some(lib), false).expect("restart");
    assert!(p.set_nvls_off && p.alias_library.is_none());
    let p = ChildPlan::decide(Some("0"), false, Some(lib), false).expect("restart");
    assert!(!p.set_nvls_off);
    assert_eq!(p.alias_library.as_deref(), Some(lib));
    assert_eq!(ChildPlan::decide(Some("0"), false, None, false), None, "nothing to link");
    let env = p.env(Some(Path::new("/tmp/x")));
    assert!(env.iter().any(|(k, v)| k == "LD_LIBRARY_PATH" && v.to_string_lossy().starts_with("/tmp/x")));
    assert!(env.iter().any(|(k, _)| k == "KRAFTWERK_LINKS_CHILD"));
    let env = ChildPlan { set_nvls_off: true, alias_library: None }.env(None);
    assert!(env.iter().any(|(k, v)| k == "NCCL_NVLS_ENABLE" && v == "0"));
}

#[test]
fn ldconfig_lines() {
    let out = "\t12 libs found in cache `/etc/ld.so.cache'\n\
               \tlibnccl.so.2 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnccl.so.2\n\
               \tlibnccl.so (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnccl.so\n";
    assert_eq!(parse_ldconfig(out), vec![PathBuf::from("/usr/lib/x86_64-linux-gnu/libnccl.so.2")]);
    assert!(parse_ldconfig("").is_empty());
}

// ---- this machine ----------------------------------------------------------------------------

#[test]
fn run_links_never_panics_here() {
    // On a machine without GPUs (CI) both sections are "not available"; on one with GPUs this
    // measures small copies only.
    let opts = LinksOptions {
        all_reduce: false,
        p2p_bytes: 1 << 20,
        max_bytes: 1 << 20,
        p2p_trials: 1,
        ..LinksOptions::default()
    };
    let r = links::run_links(&opts, None, None);
    assert_eq!(r.schema_version, LINKS_SCHEMA_VERSION);
    assert!(r.all_reduce.reason().is_some());
    if r.gpus.len() < 2 {
        assert!(r.p2p.reason().is_some());
        assert!(!r.failed(), "{:#?}", r.checks);
    }
}

// ---- the real 2x H200 run ----------------------------------------------------------------------

/// `kraftwerk links --build tests/fixtures/links-h200-2gpu.rig.ron --format json` on the 2x H200
/// machine (UUIDs replaced).
fn recorded() -> LinksReport {
    let text = std::fs::read_to_string(fixture("links-2xh200.json")).expect("fixture");
    serde_json::from_str(&text).expect("recorded report decodes")
}

/// The PyTorch comparison of the same command (`.dev/torch_allreduce.py`): rows of `bytes`
/// and `busbw_gb_s`.
fn recorded_torch() -> Vec<(u64, f64)> {
    let text = std::fs::read_to_string(fixture("links-2xh200-torch.json")).expect("torch fixture");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["bytes"].as_u64().expect("bytes"), r["busbw_gb_s"].as_f64().expect("busbw")))
        .collect()
}

#[test]
fn recorded_h200_run_passes_and_regrades_the_same() {
    let c = support::catalog();
    let r = recorded();
    assert_eq!(r.schema_version, LINKS_SCHEMA_VERSION);
    assert_eq!(r.grade, Grade::Pass, "{:#?}", r.checks);
    assert!(r.errors.is_empty());
    assert_eq!(r.topology.connection(0, 1), Some(Connection::NvLink { links: 18 }));
    // Grading is pure: the recorded numbers grade exactly as they did live.
    let mut again = r.clone();
    again.regrade(expectations_from_build(&h200_build(&c), &c));
    assert_eq!(again.checks, r.checks);
    // And against the live GPUs matched to the catalog (no build): the same verdict.
    let mut live = r.clone();
    live.regrade(expectations_from_live(&r.gpus, &r.topology, Some(&c)));
    assert_eq!(live.grade, Grade::Pass, "{:#?}", live.checks);
}

#[test]
fn recorded_h200_p2p_is_nvlink_speed() {
    let r = recorded();
    let m = r.p2p.measured().expect("P2P measured");
    assert_eq!(m.copy_bytes, 256 << 20);
    for l in &m.links {
        assert_eq!((l.can_access_peer, l.peer_access_enabled), (Some(true), true));
        let one = l.one_way_gb_s.expect("one way").median;
        let two = l.two_way_gb_s.expect("two way").median;
        let lat = l.latency_us.expect("latency").median;
        // validation.md: H100/H200 SXM about 376 GB/s one way; 450 is NVLink 4's per-direction theory.
        assert!((0.8 * 376.0..450.0).contains(&one), "{one}");
        assert!(two > 1.8 * one && two < 900.0, "{two}");
        assert!(lat > 0.5 && lat < 20.0, "{lat}");
    }
    assert!(m.min_one_way_gb_s().is_some_and(|x| x > 300.0));
}

#[test]
fn recorded_h200_all_reduce_is_correct_and_matches_pytorch() {
    let r = recorded();
    let t = r.all_reduce.measured().expect("all-reduce measured");
    assert_eq!(t.ranks, 2);
    assert_eq!(t.nvls_enable.as_deref(), Some("0"));
    assert_eq!(t.rows.len(), 11);
    assert_eq!(t.wrong(), 0);
    for row in &t.rows {
        // busbw = algbw × 2(n−1)/n = algbw for two ranks; algbw = bytes / time.
        assert!((row.busbw_gb_s - row.algbw_gb_s).abs() < 1e-9);
        assert!((row.algbw_gb_s - row.bytes as f64 / row.time_us / 1e3).abs() < 1e-6 * row.algbw_gb_s);
        assert!(row.time_us_range.0 <= row.time_us && row.time_us <= row.time_us_range.1);
    }
    // The target: at least 0.95x PyTorch's busbw at 256 MiB and above.
    let torch = recorded_torch();
    for (bytes, theirs) in torch.iter().filter(|(b, _)| *b >= 256 << 20) {
        let ours = t.row(*bytes).expect("same size").busbw_gb_s;
        assert!(ours >= 0.95 * theirs, "{bytes} B: ours {ours:.1} GB/s, PyTorch {theirs:.1} GB/s");
    }
}

#[test]
fn recorded_h200_text() {
    let t = kraftwerk::live::report::links::render(&recorded());
    assert!(t.contains("NV18") && t.contains("yes/on") && t.contains("Overall: pass"), "{t}");
}

// ---- CLI -------------------------------------------------------------------------------------

#[test]
fn cli_links_reports_json_and_rejects_bad_input() {
    let build = fixture("links-h200-2gpu.rig.ron");
    let build = build.to_str().expect("utf-8 path");
    // Small sizes: on a GPU machine this measures for real, on CI nothing is available.
    let out = support::kw(&["links", "--build", build, "--format", "json", "--max-bytes", "1048576"]);
    let r: LinksReport = serde_json::from_slice(&out.stdout).expect("JSON report on stdout");
    assert_eq!(r.schema_version, LINKS_SCHEMA_VERSION);
    assert_eq!(r.expected.as_ref().and_then(|e| e.gpu_count), Some(2));
    assert_eq!(out.status.code(), Some(i32::from(r.failed())));
    let text = support::kw(&["links", "--max-bytes", "1048576"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("Overall:"));
    assert_eq!(support::kw(&["links", "--max-bytes", "2"]).status.code(), Some(2));
    assert_eq!(support::kw(&["links", "--build", "/nonexistent.rig.ron"]).status.code(), Some(2));
}

/// Nothing measured is never a pass: no GPU gives the verdict `not_run` (exit 0) and the text
/// says "not run".
#[test]
fn no_gpu_is_not_run_not_pass() {
    let mut r = LinksReport::unmeasured(
        "no NVIDIA driver found",
        Vec::new(),
        kraftwerk::live::topology::Topology::default(),
        "no GPU",
    );
    r.regrade(expectations_from_live(&[], &kraftwerk::live::topology::Topology::default(), None));
    assert_eq!(r.verdict, Some(links::LinksVerdict::NotRun));
    assert!(r.not_run() && !r.failed());
    let v = serde_json::to_value(&r).expect("json");
    assert_eq!(v["verdict"], "not_run");
    let text = kraftwerk::live::report::links::render(&r);
    assert!(text.contains("Overall: not run"), "{text}");
    assert!(!text.contains("Overall: pass"), "{text}");
}

//! `kraftwerk fleet`: 16 node reports derived from the real two-GPU H200 session (its NVML
//! recording, probe report and links report in tests/fixtures), each with its own host name and
//! GPU UUIDs, two with planted outliers; the outliers must be named by node and GPU UUID.

use crate::support::fixture;
use kraftwerk::catalog;
use kraftwerk::live::fleet::merge;
use kraftwerk::live::grading::Grade;
use kraftwerk::live::links::LinksReport;
use kraftwerk::live::probe::ProbeReport;
use kraftwerk::live::record::Recording;
use kraftwerk::live::validate::{Observed, Validation, validate_observed};
use kraftwerk::rig;

/// One real node report: the 2-GPU H200 session, probe and links graded against its build.
fn real_node() -> Validation {
    let c = catalog::builtin().expect("catalog");
    let b = rig::load(&fixture("links-h200-2gpu.rig.ron"), Some(&c)).expect("build");
    let rec = Recording::load(&fixture("h200-2gpu-30s.kwrec.json")).expect("recording");
    let probe: ProbeReport =
        serde_json::from_str(&std::fs::read_to_string(fixture("probe-2xh200-validate.json")).expect("probe"))
            .expect("probe");
    let links: LinksReport =
        serde_json::from_str(&std::fs::read_to_string(fixture("links-2xh200.json")).expect("links")).expect("links");
    let mut gpus = rec.gpus.clone();
    for (g, d) in gpus.iter_mut().zip(&probe.devices) {
        g.uuid.clone_from(&d.uuid);
    }
    let obs = Observed {
        source: "recording".into(),
        gpus,
        topology: Some(rec.topology.clone()),
        snapshots: rec.snapshots.clone(),
        probe: Some(probe),
        links: Some(links),
        ..Observed::default()
    };
    validate_observed(&b, &c, &obs)
}

fn fleet_of_16() -> Vec<(String, Validation)> {
    let base = real_node();
    assert!(base.busbw_gb_s.is_some(), "the real links report has a busbw");
    assert_eq!(base.gpus.len(), 2);
    (1..=16)
        .map(|n| {
            let mut v = base.clone();
            v.node = Some(format!("gpu-node-{n:02}"));
            for g in &mut v.gpus {
                g.uuid = Some(format!("GPU-{n:08x}-0000-4000-8000-{:012}", g.gpu + 1));
            }
            if n == 7 {
                // Planted: node 7's second GPU 10 % slow.
                let g = &mut v.gpus[1];
                g.sustained_tflops = g.sustained_tflops.map(|t| t * 0.9);
                for t in g.tflops.values_mut() {
                    *t *= 0.9;
                }
            }
            if n == 12 {
                // Planted: node 12's all-reduce 30 % slow.
                v.busbw_gb_s = v.busbw_gb_s.map(|b| b * 0.7);
            }
            (format!("node-{n:02}.json"), v)
        })
        .collect()
}

#[test]
fn sixteen_nodes_name_their_outliers() {
    let nodes = fleet_of_16();
    let f = merge(&nodes);
    assert_eq!(f.nodes.len(), 16);
    assert_eq!(f.overall, Grade::Fail, "outliers fail the fleet");
    let slow_gpu = "GPU-00000007-0000-4000-8000-000000000002";
    assert!(
        f.outliers.iter().any(|o| o.node == "gpu-node-07"
            && o.uuid.as_deref() == Some(slow_gpu)
            && o.metric.starts_with("sustained")
            && o.reason.contains("9.4 % below the fleet median 661.7")),
        "{:#?}",
        f.outliers
    );
    assert!(
        f.outliers.iter().any(|o| o.node == "gpu-node-12"
            && o.uuid.is_none()
            && o.metric.contains("busbw")
            && o.reason.contains("30.0 % below")),
        "{:#?}",
        f.outliers
    );
    // Nobody else is an outlier.
    assert!(f.outliers.iter().all(|o| o.node == "gpu-node-07" || o.node == "gpu-node-12"), "{:#?}", f.outliers);
    let sustained = f.metrics.iter().find(|m| m.metric.starts_with("sustained")).expect("sustained metric");
    assert_eq!(sustained.count, 32);
    assert!(sustained.slowest_at.contains(slow_gpu), "{}", sustained.slowest_at);
    assert!((sustained.slowest_ratio - 0.9).abs() < 0.01, "{}", sustained.slowest_ratio);
    // JSON round trip of a node report (what `validate --format json` writes and fleet reads).
    let text = serde_json::to_string(&nodes[0].1).expect("encode");
    let back: Validation = serde_json::from_str(&text).expect("decode");
    assert_eq!(back, nodes[0].1);
}

#[test]
fn a_clean_fleet_passes_and_a_failed_node_fails_it() {
    let mut nodes = fleet_of_16();
    nodes.retain(|(f, _)| f != "node-07.json" && f != "node-12.json");
    let f = merge(&nodes);
    assert!(f.outliers.is_empty(), "{:#?}", f.outliers);
    assert_ne!(f.overall, Grade::Fail);
    nodes[3].1.overall = Grade::Fail;
    let f = merge(&nodes);
    assert_eq!(f.overall, Grade::Fail);
}

/// Issue 27: a node report that counted no GPU (an older report, a node without a driver)
/// measured nothing: the node is "not measured", never "pass", and so is the fleet.
#[test]
fn a_node_report_with_no_gpu_is_not_measured_not_pass() {
    let mut nodes = fleet_of_16();
    nodes.retain(|(f, _)| f != "node-07.json" && f != "node-12.json");
    let f = merge(&nodes);
    assert_ne!(f.overall, Grade::NotMeasured, "the real nodes measured their GPUs");
    let empty = &mut nodes[2].1;
    empty.gpus.clear();
    empty.checks.retain(|c| c.gpu.is_none());
    empty.overall = Grade::Pass;
    let f = merge(&nodes);
    assert_eq!(f.nodes[2].overall, Grade::NotMeasured, "{:#?}", f.nodes[2]);
    assert_eq!(f.overall, Grade::NotMeasured);
}

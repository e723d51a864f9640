//! A fleet: many nodes' `kraftwerk validate BUILD --format json` reports merged into one view,
//! a verdict per node, per-GPU TFLOP/s and all-reduce busbw across the fleet with the slowest
//! against the median, and outliers named by node and GPU UUID.
//!
//! Identical GPUs (and identical nodes) should measure alike: a GPU whose rate is under
//! [`SIBLING_WARN_BELOW`] of the fleet's median for the same model, or a node whose busbw is,
//! is an outlier, whatever its own node's verdict (the same rule the probe and `validate` apply
//! to GPUs inside one machine, [`crate::grading`]).

use super::grading::{self, Grade, SIBLING_WARN_BELOW};
use super::validate::Validation;
use serde::{Deserialize, Serialize};

/// One node's report and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeSummary {
    /// The node: the report's host name, else the file name.
    pub node: String,
    /// The file the report was read from.
    pub file: String,
    /// The node's own verdict.
    pub overall: Grade,
    /// Checks that failed, `check (GPU n)`.
    pub failed: Vec<String>,
    /// GPUs in the report.
    pub gpus: usize,
    /// All-reduce busbw, GB/s, when measured.
    pub busbw_gb_s: Option<f64>,
}

/// A metric across the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetMetric {
    /// What (`sustained TFLOP/s (H200 SXM)`, `bf16 TFLOP/s`, `all-reduce busbw GB/s`).
    pub metric: String,
    /// Values compared.
    pub count: usize,
    /// Median.
    pub median: f64,
    /// Slowest value.
    pub slowest: f64,
    /// Slowest against the median (1.0 = equal).
    pub slowest_ratio: f64,
    /// Who is slowest: `node` or `node GPU-uuid`.
    pub slowest_at: String,
}

/// A GPU or node under [`SIBLING_WARN_BELOW`] of the fleet median.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outlier {
    /// Node.
    pub node: String,
    /// GPU UUID, for a GPU outlier.
    pub uuid: Option<String>,
    /// Build index of the GPU in its node (0-based).
    pub gpu: Option<usize>,
    /// Which metric.
    pub metric: String,
    /// Its value.
    pub value: f64,
    /// The fleet median.
    pub median: f64,
    /// Why, with the numbers.
    pub reason: String,
}

/// The merged view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetReport {
    /// Per node, in input order.
    pub nodes: Vec<NodeSummary>,
    /// Per metric.
    pub metrics: Vec<FleetMetric>,
    /// Outliers, slowest first.
    pub outliers: Vec<Outlier>,
    /// `fail` when a node failed or a GPU or node is an outlier, else the worst node verdict.
    pub overall: Grade,
}

/// One value with who measured it.
struct Sample {
    node: String,
    uuid: Option<String>,
    gpu: Option<usize>,
    value: f64,
}

fn metric(name: &str, samples: &[Sample], out: &mut Vec<Outlier>) -> Option<FleetMetric> {
    let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
    let median = grading::median(&values)?;
    let slow = samples.iter().min_by(|a, b| a.value.total_cmp(&b.value))?;
    let at = |s: &Sample| s.uuid.as_ref().map_or_else(|| s.node.clone(), |u| format!("{} {u}", s.node));
    if samples.len() >= 2 {
        for s in samples {
            let (ratio, is_slow) = grading::sibling_ratio(s.value, median);
            if is_slow {
                out.push(Outlier {
                    node: s.node.clone(),
                    uuid: s.uuid.clone(),
                    gpu: s.gpu,
                    metric: name.to_owned(),
                    value: s.value,
                    median,
                    reason: format!(
                        "{}: {name} {:.1} is {:.1} % below the fleet median {median:.1} (outlier under {:.0} %)",
                        at(s),
                        s.value,
                        (1.0 - ratio) * 100.0,
                        SIBLING_WARN_BELOW * 100.0
                    ),
                });
            }
        }
    }
    Some(FleetMetric {
        metric: name.to_owned(),
        count: samples.len(),
        median,
        slowest: slow.value,
        slowest_ratio: if median > 0.0 { slow.value / median } else { 1.0 },
        slowest_at: at(slow),
    })
}

/// Merges `reports` (file name, report) into a fleet view.
pub fn merge(reports: &[(String, Validation)]) -> FleetReport {
    let mut nodes = Vec::new();
    // Per GPU model: sustained TFLOP/s; else per precision GEMM medians.
    let mut per_metric: std::collections::BTreeMap<String, Vec<Sample>> = std::collections::BTreeMap::new();
    let mut busbw = Vec::new();
    for (file, v) in reports {
        let node = v.node.clone().unwrap_or_else(|| file.clone());
        let failed = v
            .checks
            .iter()
            .filter(|c| c.grade == Grade::Fail)
            .map(|c| c.gpu.map_or_else(|| c.check.clone(), |g| format!("{} (GPU {})", c.check, g + 1)))
            .collect();
        for g in &v.gpus {
            let model = g.name.clone().unwrap_or_else(|| "unknown GPU".to_owned());
            let mut push = |name: String, value: f64| {
                if value.is_finite() {
                    per_metric.entry(name).or_default().push(Sample {
                        node: node.clone(),
                        uuid: g.uuid.clone(),
                        gpu: Some(g.gpu),
                        value,
                    });
                }
            };
            if let Some(s) = g.sustained_tflops {
                push(format!("sustained TFLOP/s ({model})"), s);
            }
            for (p, t) in &g.tflops {
                push(format!("{p} TFLOP/s ({model})"), *t);
            }
        }
        if let Some(b) = v.busbw_gb_s.filter(|b| b.is_finite()) {
            busbw.push(Sample { node: node.clone(), uuid: None, gpu: None, value: b });
        }
        // A report that counted no GPU measured nothing: never a passing node (older reports
        // of a machine whose driver was missing, or of an empty node).
        let overall = if v.gpus.is_empty() && v.overall < Grade::NotMeasured { Grade::NotMeasured } else { v.overall };
        nodes.push(NodeSummary {
            node,
            file: file.clone(),
            overall,
            failed,
            gpus: v.gpus.len(),
            busbw_gb_s: v.busbw_gb_s,
        });
    }
    let mut outliers = Vec::new();
    let mut metrics: Vec<FleetMetric> =
        per_metric.iter().filter_map(|(name, s)| metric(name, s, &mut outliers)).collect();
    metrics.extend(metric("all-reduce busbw GB/s", &busbw, &mut outliers));
    outliers.sort_by(|a, b| (a.value / a.median).total_cmp(&(b.value / b.median)));
    let worst = Grade::worst(nodes.iter().map(|n| n.overall));
    let overall = if outliers.is_empty() { worst } else { Grade::Fail };
    FleetReport { nodes, metrics, outliers, overall }
}

//! The text of `kraftwerk fleet`: a line per node, the per-metric spread across the fleet with
//! the slowest against the median, and the outliers.

use crate::fleet::FleetReport;
use crate::grading::Grade;

/// The fleet as text.
pub fn render(f: &FleetReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let bad = f.nodes.iter().filter(|n| n.overall == Grade::Fail).count();
    let _ = writeln!(
        s,
        "Fleet: {} node(s), {bad} failed, {} outlier(s): {}",
        f.nodes.len(),
        f.outliers.len(),
        f.overall.name().to_ascii_uppercase()
    );
    let _ = writeln!(s, "\n  {:<24} {:<12} {:>4} {:>10}  failed checks", "node", "grade", "GPUs", "busbw GB/s");
    for n in &f.nodes {
        let bw = n.busbw_gb_s.map_or_else(|| "-".to_owned(), |b| format!("{b:.1}"));
        let _ =
            writeln!(s, "  {:<24} {:<12} {:>4} {bw:>10}  {}", n.node, n.overall.name(), n.gpus, n.failed.join(", "));
    }
    let _ = writeln!(s, "\n  {:<36} {:>5} {:>10} {:>10} {:>8}  slowest", "metric", "n", "median", "slowest", "ratio");
    for m in &f.metrics {
        let _ = writeln!(
            s,
            "  {:<36} {:>5} {:>10.1} {:>10.1} {:>8.3}  {}",
            m.metric, m.count, m.median, m.slowest, m.slowest_ratio, m.slowest_at
        );
    }
    if !f.outliers.is_empty() {
        let _ = writeln!(s, "\nOutliers:");
        for o in &f.outliers {
            let _ = writeln!(s, "  {}", o.reason);
        }
    }
    s
}

//! The text report of `kraftwerk probe`: a table per device (TFLOP/s per precision and
//! library, % of peak, the numeric check), host and peer copies, the sustained load, then the
//! verdicts and the overall grade.

use crate::grading::Grade;
use crate::probe::{self, DeviceReport, ProbeReport};
use std::fmt::Write as _;

/// TFLOP/s with one decimal, or three significant digits below 10 (CPU backend).
fn tflops(v: f64) -> String {
    if v >= 10.0 { format!("{v:.1}") } else { format!("{v:.3}") }
}

/// A figure with `digits` decimals, or `-` when not measured.
fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |x| format!("{x:.digits$}"))
}

/// The text report: a table per device, then the verdicts.
pub fn render(r: &ProbeReport) -> String {
    let mut s = String::new();
    let note = r.backend_note.as_deref().map_or_else(String::new, |n| format!(" ({n})"));
    let backend = match r.backend {
        probe::Backend::Cuda => "CUDA",
        probe::Backend::Cpu => "CPU",
    };
    let _ = writeln!(s, "kraftwerk probe: backend {backend}{note}, {:.1} s", r.wall_seconds);
    if let Some(e) = &r.expected {
        let _ = writeln!(s, "graded against: {}", e.name);
    }
    for d in &r.devices {
        render_device(&mut s, d);
    }
    for p in &r.peer_bandwidth {
        let _ = writeln!(
            s,
            "GPU {} -> GPU {}: {} GB/s{}",
            p.from,
            p.to,
            opt(p.bandwidth_gb_s.map(|b| b.median), 1),
            if p.peer_access { " (peer access)" } else { " (staged through host)" }
        );
    }
    let _ = writeln!(s, "\nchecks:");
    let mut verdicts: Vec<_> = r.verdicts.iter().collect();
    verdicts.sort_by_key(|v| (std::cmp::Reverse(v.grade), v.device, v.precision, v.check.clone()));
    for v in verdicts {
        let who = v.device.map_or_else(|| "     ".to_owned(), |d| format!("dev {d}"));
        let _ = writeln!(s, "  {:<4} {who} {:<17} {}", v.grade.name().to_uppercase(), v.check, v.message);
    }
    let overall = match r.overall {
        Grade::Pass | Grade::Info => "PASS",
        Grade::Warn => "PASS with warnings",
        Grade::NotMeasured => "NOT MEASURED",
        Grade::Fail => "FAIL",
    };
    let _ = writeln!(s, "\noverall: {overall}");
    s
}

fn render_device(s: &mut String, d: &DeviceReport) {
    let cc = d.compute_capability.as_deref().map_or_else(String::new, |c| format!(", cc {c}"));
    let mem = d.memory_total_gib.map_or_else(String::new, |m| format!(", {m:.1} GiB"));
    let _ = writeln!(
        s,
        "\ndevice {}: {}{cc}{mem}, n = {}{}",
        d.index,
        d.name,
        d.matrix_size,
        if d.faulty { "  FAULTY" } else { "" }
    );
    if !d.gemm.is_empty() {
        let _ = writeln!(
            s,
            "  {:<9} {:<15} {:>9} {:>9} {:>9} {:>7}  {:<8} {:>10}",
            "precision", "library", "TFLOP/s", "min", "max", "% peak", "check", "err/Σ|ab|"
        );
    }
    for g in &d.gemm {
        let _ = writeln!(
            s,
            "  {:<9} {:<15} {:>9} {:>9} {:>9} {:>7}  {:<8} {:>10.1e}",
            g.precision.name(),
            g.library,
            tflops(g.tflops.median),
            tflops(g.tflops.min),
            tflops(g.tflops.max),
            opt(g.fraction_of_peak.map(|f| f * 100.0), 1),
            if g.all_passed() { "ok" } else { "FAULTY" },
            g.check.max_err_over_sum_abs
        );
        for a in &g.alternatives {
            let _ = writeln!(s, "  {:<9} {:<15} {:>9}  (slower variant)", "", a.library, tflops(a.tflops.median));
        }
    }
    for k in &d.skipped {
        let _ = writeln!(s, "  {:<9} skipped: {}", k.precision.name(), k.reason);
    }
    if let Some(b) = &d.bandwidth {
        let m = |x: &Option<probe::Summary>| opt(x.map(|v| v.median), 1);
        let _ = writeln!(
            s,
            "  copies ({} MiB): pinned H2D {} / D2H {} GB/s; pageable H2D {} / D2H {} GB/s",
            b.bytes >> 20,
            m(&b.pinned_h2d_gb_s),
            m(&b.pinned_d2h_gb_s),
            m(&b.pageable_h2d_gb_s),
            m(&b.pageable_d2h_gb_s)
        );
    }
    if let Some(x) = &d.sustained {
        let _ = writeln!(
            s,
            "  sustained {} for {:.1} s: {} GEMMs, {} TFLOP/s mean",
            x.precision,
            x.seconds,
            x.gemms,
            tflops(x.tflops_mean)
        );
        if !x.samples.is_empty() {
            let _ = writeln!(
                s,
                "    power median {} W (limit {} W, instant max {} W); temperature {}-{} °C; SM clock median {} MHz; clock events: {}",
                opt(x.power_w.map(|v| v.median), 0),
                opt(x.power_limit_w, 0),
                opt(x.power_instant_w.map(|v| v.max), 0),
                opt(x.temperature_c.map(|v| v.min), 0),
                opt(x.temperature_c.map(|v| v.max), 0),
                opt(x.sm_clock_mhz.map(|v| v.median), 0),
                if x.clock_event_names.is_empty() { "none".to_owned() } else { x.clock_event_names.join(", ") }
            );
        }
    }
    if let (Some(b), Some(a)) = (d.memory_free_before_gib, d.memory_free_after_gib) {
        let _ = writeln!(s, "  free memory: {b:.2} GiB before, {a:.2} GiB after");
    }
    for e in &d.errors {
        let _ = writeln!(s, "  error: {e}");
    }
}

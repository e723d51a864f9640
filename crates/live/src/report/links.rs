//! The links report as text for people: GPUs, the topology matrix, the P2P matrices, the
//! all-reduce table (nccl-tests' columns) and the checks.

use crate::links::{LinksReport, P2pMatrix, PeerLink, Section};
use std::fmt::Write as _;

/// A square matrix with `GPU#` row and column heads; `cell(a, b)` for the off-diagonal cells.
fn matrix(n: usize, diagonal: &str, cell: impl Fn(usize, usize) -> String) -> String {
    let width = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| cell(a, b).chars().count())
        .max()
        .unwrap_or(1)
        .max(diagonal.len())
        .max(5);
    let mut s = String::new();
    let _ = write!(s, "  {:<7}", "");
    for b in 0..n {
        let _ = write!(s, " {:>width$}", format!("GPU{b}"));
    }
    s.push('\n');
    for a in 0..n {
        let _ = write!(s, "  {:<7}", format!("GPU{a}"));
        for b in 0..n {
            let c = if a == b { diagonal.to_owned() } else { cell(a, b) };
            let _ = write!(s, " {c:>width$}");
        }
        s.push('\n');
    }
    s
}

fn p2p_matrix(m: &P2pMatrix, n: usize, value: impl Fn(&PeerLink) -> Option<f64>, digits: usize) -> String {
    matrix(n, "-", |a, b| m.link(a, b).and_then(&value).map_or_else(|| "?".to_owned(), |v| format!("{v:.digits$}")))
}

/// Human-readable size: `1 MiB`, `256 MiB`, `1 GiB`, or bytes.
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

/// The whole report as text.
pub fn render(r: &LinksReport) -> String {
    let mut s = String::new();
    let n = r.gpus.len();
    let _ =
        writeln!(s, "GPU links: {n} GPU(s), driver {}, NVML: {}", r.driver_version.as_deref().unwrap_or("?"), r.nvml);
    for g in &r.gpus {
        let pcie = match (g.pcie_gen_max, g.pcie_width_max) {
            (Some(gen_), Some(w)) => format!("PCIe Gen{gen_} x{w}"),
            _ => "PCIe ?".to_owned(),
        };
        let nvl = g.nvlinks_active.map_or_else(String::new, |l| format!(", {l} NVLinks active"));
        let _ = writeln!(s, "  GPU{} {} ({pcie}{nvl}) {}", g.index, g.name, g.uuid.as_deref().unwrap_or(""));
    }
    if n > 1 {
        let _ = writeln!(s, "\nTopology (nvidia-smi topo -m classes, from NVML):");
        let cells = r.topology.matrix(n);
        s.push_str(&matrix(n, "X", |a, b| cells[a][b].clone()));
    }
    match &r.p2p {
        Section::Measured(m) => {
            let _ = writeln!(s, "\nP2P peer access (cuDeviceCanAccessPeer / enabled), row = from, column = to:");
            s.push_str(&matrix(n, "-", |a, b| {
                m.link(a, b).map_or_else(
                    || "?".to_owned(),
                    |l| {
                        let can = match l.can_access_peer {
                            Some(true) => "yes",
                            Some(false) => "no",
                            None => "?",
                        };
                        format!("{can}/{}", if l.peer_access_enabled { "on" } else { "off" })
                    },
                )
            }));
            let size = size_text(m.copy_bytes);
            let _ = writeln!(s, "\nP2P one-way copy bandwidth, GB/s ({size} copies, median of {} batches):", m.trials);
            s.push_str(&p2p_matrix(m, n, |l| l.one_way_gb_s.map(|x| x.median), 1));
            let _ = writeln!(s, "\nP2P two-way bandwidth, both directions together, GB/s:");
            s.push_str(&p2p_matrix(m, n, |l| l.two_way_gb_s.map(|x| x.median), 1));
            let _ = writeln!(s, "\nP2P latency, µs per {}-byte copy:", m.latency_bytes);
            s.push_str(&p2p_matrix(m, n, |l| l.latency_us.map(|x| x.median), 2));
            for l in m.links.iter().filter(|l| l.error.is_some()) {
                let _ = writeln!(s, "  GPU{} → GPU{}: {}", l.from, l.to, l.error.as_deref().unwrap_or(""));
            }
        }
        Section::NotAvailable { reason } => {
            let _ = writeln!(s, "\nP2P copies: not available ({reason})");
        }
    }
    match &r.all_reduce {
        Section::Measured(t) => {
            let _ = writeln!(
                s,
                "\nAll-reduce (NCCL {}, {} ranks, {} {}, {}; NCCL_NVLS_ENABLE={}; median of {} batches):",
                t.nccl_version.as_deref().unwrap_or("?"),
                t.ranks,
                t.dtype,
                t.op,
                if t.out_of_place { "out of place" } else { "in place" },
                t.nvls_enable.as_deref().unwrap_or("unset"),
                t.trials
            );
            let _ = writeln!(
                s,
                "  {:>12} {:>11} {:>7} {:>11} {:>12} {:>12} {:>7}",
                "size (B)", "count", "iters", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "#wrong"
            );
            for row in &t.rows {
                let _ = writeln!(
                    s,
                    "  {:>12} {:>11} {:>7} {:>11.1} {:>12.2} {:>12.2} {:>7}",
                    row.bytes, row.count, row.iterations, row.time_us, row.algbw_gb_s, row.busbw_gb_s, row.wrong
                );
            }
            if let Some(lib) = &t.library {
                let _ = writeln!(s, "  library: {lib}");
            }
        }
        Section::NotAvailable { reason } => {
            let _ = writeln!(s, "\nAll-reduce: not available ({reason})");
        }
    }
    if let Some(e) = &r.expected {
        let _ = writeln!(s, "\nChecks (against {}):", e.source);
    } else {
        let _ = writeln!(s, "\nChecks:");
    }
    for c in &r.checks {
        let _ = writeln!(s, "  {:<5} {:<19} {}", c.grade.name(), c.check, c.message);
    }
    if r.not_run() {
        let why = match &r.p2p {
            Section::NotAvailable { reason } => reason.clone(),
            Section::Measured(_) => r.nvml.clone(),
        };
        let _ = writeln!(s, "\nOverall: not run: nothing was measured ({why})");
    } else {
        let _ = writeln!(s, "\nOverall: {} ({:.1} s)", r.grade.name(), r.wall_seconds);
    }
    s
}

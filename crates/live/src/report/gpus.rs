//! The text and JSON of `kraftwerk gpus` and the lines of `kraftwerk monitor`: static NVML
//! facts, one snapshot, the topology as `nvidia-smi topo -m` prints it.
//!
//! JSON of `gpus` (stable): `{ "format": 1, "state": "ready"|"no_driver"|"no_gpu"|"failed",
//! "message", "driver_version", "nvml_version", "cuda_version", "count", "gpus": [fields…],
//! "topology": { "matrix": [[…]], "pairs": [{ "gpu_a", "gpu_b", "connection", "nvlinks",
//! "common_ancestor", "p2p" }] } }`; each GPU is [`crate::fields::smi_fields`].

use super::{na, watts_or_na as watts};
use crate::fields::smi_fields;
use crate::nvml::{GpuSample, GpuStatic, NvmlState, Snapshot, SystemInfo};
use crate::topology::{Connection, PcieAncestor, Topology};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Format version of the `gpus --format json` output.
pub(crate) const GPUS_JSON_FORMAT: u32 = 1;

/// The JSON of `gpus --format json` when NVML is not ready (no driver, no GPU, NVML failed):
/// the state's code and message, no GPUs.
pub fn state_json(state: &NvmlState) -> Value {
    json!({
        "format": GPUS_JSON_FORMAT,
        "state": state.code(),
        "message": state.message(),
        "count": 0,
        "gpus": [],
    })
}

/// The JSON document of `kraftwerk gpus --format json` for static facts and one snapshot.
pub fn gpus_json(system: &SystemInfo, gpus: &[GpuStatic], topology: &Topology, snapshot: Option<&Snapshot>) -> Value {
    let list: Vec<BTreeMap<String, Value>> =
        gpus.iter().enumerate().map(|(i, g)| smi_fields(g, snapshot.and_then(|s| s.gpu(i)))).collect();
    let pairs: Vec<Value> = topology
        .pairs
        .iter()
        .map(|p| {
            json!({
                "gpu_a": p.gpu_a,
                "gpu_b": p.gpu_b,
                "connection": p.connection.smi_code(),
                "nvlinks": match p.connection { Connection::NvLink { links } => Some(links), _ => None },
                "common_ancestor": p.common_ancestor.map(PcieAncestor::smi_code),
                "p2p": p.p2p,
            })
        })
        .collect();
    json!({
        "format": GPUS_JSON_FORMAT,
        "state": "ready",
        "message": format!("{} NVIDIA GPU(s)", gpus.len()),
        "driver_version": system.driver_version,
        "nvml_version": system.nvml_version,
        "cuda_version": system.cuda_driver_version,
        "count": gpus.len(),
        "gpus": list,
        "topology": { "matrix": topology.matrix(gpus.len()), "pairs": pairs },
    })
}

/// The text of `kraftwerk gpus` for static facts and one snapshot.
pub fn gpus_text(system: &SystemInfo, gpus: &[GpuStatic], topology: &Topology, snapshot: Option<&Snapshot>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "NVIDIA driver {}, CUDA {}, NVML {}: {} GPU(s)",
        na(system.driver_version.as_deref()),
        na(system.cuda_driver_version.as_deref()),
        na(system.nvml_version.as_deref()),
        gpus.len()
    );
    for (i, g) in gpus.iter().enumerate() {
        let s = snapshot.and_then(|s| s.gpu(i));
        out.push('\n');
        out.push_str(&gpu_text(g, s));
    }
    if gpus.len() > 1 {
        out.push('\n');
        out.push_str(&topology_text(topology, gpus.len()));
    }
    out
}

fn gpu_text(g: &GpuStatic, s: Option<&GpuSample>) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "GPU {}: {} ({})", g.index, na(g.name.as_deref()), na(g.uuid.as_deref()));
    let _ = writeln!(
        o,
        "  Bus           {}, {}, compute capability {}, VBIOS {}",
        na(g.pci_bus_id.as_deref()),
        na(g.architecture.as_deref()),
        na(g.compute_capability),
        na(g.vbios_version.as_deref())
    );
    let used = s.and_then(|s| s.memory_used_mib);
    let _ = writeln!(
        o,
        "  Memory        {} / {} MiB used ({} MiB reserved)",
        na(used),
        na(g.memory_total_mib),
        na(g.memory_reserved_mib)
    );
    let _ = writeln!(
        o,
        "  Temperature   {} °C (slowdown {} °C, shutdown {} °C)",
        na(s.and_then(|s| s.temperature_c)),
        na(g.temperature_slowdown_c),
        na(g.temperature_shutdown_c)
    );
    let frac = s.and_then(|s| s.power_fraction_of_limit(g)).map(|f| format!("{:.0} %", f * 100.0));
    let _ = writeln!(
        o,
        "  Power         {} (1 s average; instant {}) of {} enforced limit ({})",
        watts(s.and_then(|s| s.power_avg_w)),
        watts(s.and_then(|s| s.power_instant_w)),
        watts(g.power_limit_enforced_w),
        na(frac)
    );
    let _ = writeln!(
        o,
        "  Power limits  set {}, default {}, min {}, max {}",
        watts(g.power_limit_w),
        watts(g.power_limit_default_w),
        watts(g.power_limit_min_w),
        watts(g.power_limit_max_w)
    );
    let _ = writeln!(
        o,
        "  Clocks        SM {} / {} MHz, memory {} / {} MHz, {}",
        na(s.and_then(|s| s.clock_sm_mhz)),
        na(g.clock_sm_max_mhz),
        na(s.and_then(|s| s.clock_mem_mhz)),
        na(g.clock_mem_max_mhz),
        na(s.and_then(|s| s.performance_state).map(|p| format!("P{p}")))
    );
    let _ = writeln!(
        o,
        "  Utilization   GPU {} %, memory {} %",
        na(s.and_then(|s| s.utilization_gpu_pct)),
        na(s.and_then(|s| s.utilization_mem_pct))
    );
    let below = match s.and_then(|s| s.link_below_max(g)) {
        Some(true) => " BELOW MAX",
        _ => "",
    };
    let _ = writeln!(
        o,
        "  PCIe          Gen{} x{} (max Gen{} x{}){below}; tx {} KB/s, rx {} KB/s; replays {}",
        na(s.and_then(|s| s.pcie_gen)),
        na(s.and_then(|s| s.pcie_width)),
        na(g.pcie_gen_max),
        na(g.pcie_width_max),
        na(s.and_then(|s| s.pcie_tx_kb_s)),
        na(s.and_then(|s| s.pcie_rx_kb_s)),
        na(s.and_then(|s| s.pcie_replay_count))
    );
    let ecc_mode = match g.ecc_enabled {
        Some(true) => "Enabled",
        Some(false) => "Disabled",
        None => "n/a",
    };
    let _ = writeln!(
        o,
        "  ECC           {ecc_mode}; errors since driver load corrected {} / uncorrected {}, lifetime {} / {}",
        na(s.and_then(|s| s.ecc_corrected_volatile)),
        na(s.and_then(|s| s.ecc_uncorrected_volatile)),
        na(s.and_then(|s| s.ecc_corrected_aggregate)),
        na(s.and_then(|s| s.ecc_uncorrected_aggregate))
    );
    let _ = writeln!(o, "  Clock events  {}", na(s.and_then(|s| s.clock_event_reasons)));
    let fans = match (g.fan_count, s.and_then(|s| s.fan_speed_pct.as_ref())) {
        (_, Some(f)) => f.iter().map(|p| format!("{p} %")).collect::<Vec<_>>().join(", "),
        (Some(0), None) => "none (passively cooled)".to_owned(),
        _ => "n/a".to_owned(),
    };
    let _ = writeln!(o, "  Fans          {fans}");
    let nvlink = match g.nvlinks_active() {
        None => "not supported".to_owned(),
        Some(n) => format!(
            "{n} of {} links active{}",
            g.nvlinks.len(),
            g.nvlink_version().map(|v| format!(", NVLink {v}")).unwrap_or_default()
        ),
    };
    let _ = writeln!(o, "  NVLink        {nvlink}");
    o
}

fn topology_text(t: &Topology, n: usize) -> String {
    let mut o = String::from("Topology (as nvidia-smi topo -m):\n");
    let m = t.matrix(n);
    let _ = write!(o, "{:8}", "");
    for b in 0..n {
        let _ = write!(o, "{:<7}", format!("GPU{b}"));
    }
    o.push('\n');
    for (a, row) in m.iter().enumerate() {
        let _ = write!(o, "  {:<6}", format!("GPU{a}"));
        for cell in row {
            let _ = write!(o, "{cell:<7}");
        }
        o.push('\n');
    }
    o.push_str("  NV# = # NVLinks, PIX = one PCIe switch, PXB = several switches, PHB = host bridge,\n");
    o.push_str("  NODE = host bridges in one NUMA node, SYS = across NUMA nodes\n");
    o
}

/// One line per GPU with the static facts, then the topology (more than one GPU).
pub fn monitor_header(system: &SystemInfo, gpus: &[GpuStatic], topology: &Topology) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "NVIDIA driver {}, CUDA {}: {} GPU(s)",
        na(system.driver_version.as_deref()),
        na(system.cuda_driver_version.as_deref()),
        gpus.len()
    );
    for g in gpus {
        let ecc = match g.ecc_enabled {
            Some(true) => "ECC on",
            Some(false) => "ECC off",
            None => "ECC n/a",
        };
        let _ = writeln!(
            o,
            "  GPU {}: {} ({}, {}), {} MiB, PCIe max Gen{} x{}, power limit {}, {ecc}, NVLink {}",
            g.index,
            na(g.name.as_deref()),
            na(g.uuid.as_deref()),
            na(g.pci_bus_id.as_deref()),
            na(g.memory_total_mib),
            na(g.pcie_gen_max),
            na(g.pcie_width_max),
            watts(g.power_limit_enforced_w),
            g.nvlinks_active().map_or_else(|| "not supported".to_owned(), |n| format!("{n} links active"))
        );
    }
    if gpus.len() > 1 {
        o.push_str(&topology_text(topology, gpus.len()));
    }
    o
}

/// One `monitor` line for a sample: seconds since `t0_ms`, GPU, power average and instant (W),
/// temperature, SM clock, utilization, memory used (MiB), PCIe link, NVML read time (ms) and
/// clock event reasons.
pub fn monitor_line(s: &GpuSample, t0_ms: u64, snap_elapsed_ms: u64) -> String {
    let pcie = match (s.pcie_gen, s.pcie_width) {
        (Some(g), Some(w)) => format!("Gen{g}x{w}"),
        _ => "n/a".to_owned(),
    };
    let reasons = s.clock_event_reasons.map_or_else(
        || "n/a".to_owned(),
        |r| {
            let names = r.names().join("+");
            if names.is_empty() { "none".to_owned() } else { names }
        },
    );
    format!(
        "{:>7.1} {:>3} {:>8} {:>8} {:>5} {:>6} {:>5} {:>8} {:>8} {:>7} {}",
        snap_elapsed_ms.saturating_sub(t0_ms) as f64 / 1000.0,
        s.gpu,
        s.power_avg_w.map_or_else(|| "n/a".to_owned(), |w| format!("{w:.1}")),
        s.power_instant_w.map_or_else(|| "n/a".to_owned(), |w| format!("{w:.1}")),
        na(s.temperature_c),
        na(s.clock_sm_mhz),
        na(s.utilization_gpu_pct),
        na(s.memory_used_mib),
        pcie,
        s.read_us.map_or_else(|| "n/a".to_owned(), |us| format!("{:.3}", us as f64 / 1000.0)),
        reasons
    )
}

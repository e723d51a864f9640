//! `kraftwerk gpus` and `kraftwerk monitor`: the installed NVIDIA GPUs through NVML.
//!
//! Without a driver both print "no NVIDIA driver found". `gpus` then exits 3 (the README's
//! "could not measure": nothing was listed, so a script cannot take the empty list for a
//! machine that was looked at); `monitor` exits 0 (nothing to sample, said so).
//!
//! JSON of `gpus` (stable): `{ "format": 1, "state": "ready"|"no_driver"|"no_gpu"|"failed",
//! "message", "driver_version", "nvml_version", "cuda_version", "count", "gpus": [fields…],
//! "topology": { "matrix": [[…]], "pairs": [{ "gpu_a", "gpu_b", "connection", "nvlinks",
//! "common_ancestor", "p2p" }] } }`; each GPU is [`crate::live::fields::smi_fields`].
//! JSON of `monitor`: one [`Snapshot`] per line (JSON Lines); the summary goes to stderr.

use super::Format;
use super::error::{CliError, bad};
use crate::live::fields::smi_fields;
use crate::live::nvml::{self, GpuSample, GpuStatic, NvmlState, SampleOptions, Snapshot, SystemInfo};
use crate::live::record::Recording;
use crate::live::sampler::{MIN_INTERVAL, Sampler, SamplerConfig};
use crate::live::topology::{Connection, PcieAncestor, Topology};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Format version of the `gpus --format json` output.
const GPUS_JSON_FORMAT: u32 = 1;

/// Per-GPU sample time the issue asks for, µs (1 ms).
const SAMPLE_TARGET_US: u64 = 1000;

fn na<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |x| x.to_string())
}

fn watts(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |w| format!("{w:.1} W"))
}

fn state_json(state: &NvmlState) -> Value {
    json!({
        "format": GPUS_JSON_FORMAT,
        "state": state.code(),
        "message": state.message(),
        "count": 0,
        "gpus": [],
    })
}

/// Prints a not-ready state (text or JSON) and returns exit 0.
fn print_not_ready(state: &NvmlState, format: Format) -> Result<(), CliError> {
    match format {
        Format::Text => {
            outln!("{}", state.message());
            Ok(())
        }
        Format::Json => super::print_json(&state_json(state)),
    }
}

/// Exit code of `gpus` when NVML could not list the GPUs (no driver, no GPU, NVML failed):
/// 3, "could not measure" (README's exit codes).
const GPUS_NOT_MEASURED: u8 = 3;

/// `kraftwerk gpus`.
pub fn run_gpus(format: Format) -> Result<(), CliError> {
    let mut gpus = match nvml::open() {
        NvmlState::Ready(g) => g,
        other => {
            print_not_ready(&other, format)?;
            return Err(CliError::Reported(std::process::ExitCode::from(GPUS_NOT_MEASURED)));
        }
    };
    let snapshot = gpus.sample(SampleOptions::full());
    match format {
        Format::Text => {
            out!("{}", gpus_text(gpus.system(), gpus.gpus(), gpus.topology(), Some(&snapshot)));
            Ok(())
        }
        Format::Json => super::print_json(&gpus_json(gpus.system(), gpus.gpus(), gpus.topology(), Some(&snapshot))),
    }
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
fn monitor_header(system: &SystemInfo, gpus: &[GpuStatic], topology: &Topology) -> String {
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

fn monitor_line(s: &GpuSample, t0_ms: u64, snap_elapsed_ms: u64) -> String {
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

/// Median, 95th percentile and maximum of per-GPU read times, µs.
fn read_time_stats(read_us: &mut [u64]) -> Option<(u64, u64, u64)> {
    if read_us.is_empty() {
        return None;
    }
    read_us.sort_unstable();
    let n = read_us.len();
    let p95 = read_us[((n * 95).div_ceil(100)).saturating_sub(1).min(n - 1)];
    Some((read_us[n / 2], p95, read_us[n - 1]))
}

/// Set by Ctrl-C: `monitor` stops at its next reading and saves its recording.
static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes Ctrl-C (SIGINT, SIGTERM) stop the monitor cleanly instead of killing it, so the
/// recording is written. The `ctrlc` crate installs the handler (signal handling needs
/// `unsafe`, which this crate denies); installing twice is harmless.
fn stop_on_ctrl_c() {
    let _ = ctrlc::set_handler(|| STOP.store(true, std::sync::atomic::Ordering::Relaxed));
}

/// `kraftwerk monitor`: samples for `seconds` (0 with `--prometheus`: until Ctrl-C), prints each
/// snapshot, optionally serves them to Prometheus and records them. Ctrl-C stops it cleanly with
/// the recording saved.
pub fn run_monitor(
    seconds: f64,
    interval_ms: u64,
    record: Option<&Path>,
    prometheus: Option<std::net::SocketAddr>,
    format: Format,
) -> Result<(), CliError> {
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(bad(format!("--seconds must be a number of seconds >= 0, not {seconds}")).within("monitor"));
    }
    let gpus = match nvml::open() {
        NvmlState::Ready(g) => g,
        other => {
            if record.is_some() {
                eprintln!("kraftwerk monitor: nothing to record");
            }
            return print_not_ready(&other, format);
        }
    };
    let interval = Duration::from_millis(interval_ms).max(MIN_INTERVAL);
    let mut recording = record.map(|_| {
        let mut r = Recording::of_live("monitor", format!("kraftwerk monitor {}", env!("CARGO_PKG_VERSION")), &gpus);
        r.interval_ms = Some(u64::try_from(interval.as_millis()).unwrap_or(u64::MAX));
        r
    });
    let statics = gpus.gpus().to_vec();
    let exporter = match prometheus {
        Some(addr) => {
            let host = crate::live::record::MachineInfo::current().hostname.unwrap_or_default();
            match crate::live::prometheus::Exporter::serve(addr, statics.clone(), host) {
                Ok(e) => {
                    eprintln!("kraftwerk monitor: serving Prometheus metrics at http://{}/metrics", e.local_addr());
                    Some(e)
                }
                Err(e) => {
                    return Err(bad(format!("cannot serve Prometheus metrics on {addr}: {e}")).within("monitor"));
                }
            }
        }
        None => None,
    };
    let forever = prometheus.is_some() && seconds == 0.0;
    if format == Format::Text {
        out!("{}", monitor_header(gpus.system(), &statics, gpus.topology()));
        let span = if forever { "until Ctrl-C".to_owned() } else { format!("for {seconds} s") };
        outln!(
            "\nSampling every {} ms {span}{}",
            interval.as_millis(),
            record.map(|p| format!(", recording to {}", p.display())).unwrap_or_default()
        );
        outln!(
            "{:>7} {:>3} {:>8} {:>8} {:>5} {:>6} {:>5} {:>8} {:>8} {:>7} clock event reasons",
            "time s",
            "gpu",
            "power W",
            "inst W",
            "°C",
            "SM MHz",
            "util%",
            "mem MiB",
            "PCIe",
            "read ms"
        );
    }
    let config = SamplerConfig { interval, channel_capacity: 1024 };
    let sampler = Sampler::spawn(Box::new(gpus), config, None)
        .map_err(|e| bad(format!("cannot start the sampler thread: {e}")).within("monitor"))?;
    stop_on_ctrl_c();
    let deadline = (!forever).then(|| Instant::now() + Duration::from_secs_f64(seconds));
    let mut read_us: Vec<u64> = Vec::new();
    let snapshots = monitor_loop(&sampler, deadline, format, |snap| {
        read_us.extend(snap.gpus.iter().filter_map(|s| s.read_us));
        if let Some(e) = &exporter {
            e.update(snap);
        }
        if let Some(r) = recording.as_mut() {
            r.snapshots.push(snap.clone());
        }
    });
    let dropped = sampler.dropped_count();
    drop(sampler.stop());
    if let Some(e) = exporter {
        e.stop();
    }
    if STOP.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("kraftwerk monitor: stopped by Ctrl-C");
    }
    finish_monitor(snapshots, statics.len(), &mut read_us, dropped, recording.as_ref().zip(record), format)
}

/// Receives and prints snapshots until `deadline` (None: until Ctrl-C) or Ctrl-C; returns how
/// many were received.
fn monitor_loop(
    sampler: &Sampler,
    deadline: Option<Instant>,
    format: Format,
    mut each: impl FnMut(&Snapshot),
) -> usize {
    let mut snapshots = 0usize;
    let mut t0_ms: Option<u64> = None;
    loop {
        let now = Instant::now();
        if STOP.load(std::sync::atomic::Ordering::Relaxed) || deadline.is_some_and(|d| now >= d && snapshots > 0) {
            break;
        }
        let left = deadline.map_or(Duration::from_secs(1), |d| d.saturating_duration_since(now));
        let wait = left.clamp(Duration::from_millis(1), Duration::from_secs(1));
        let Some(snap) = sampler.recv_timeout(wait) else {
            if sampler.is_finished() {
                break;
            }
            continue;
        };
        snapshots += 1;
        let t0 = *t0_ms.get_or_insert(snap.elapsed_ms);
        match format {
            Format::Text => {
                for s in &snap.gpus {
                    outln!("{}", monitor_line(s, t0, snap.elapsed_ms));
                }
            }
            Format::Json => match serde_json::to_string(&snap) {
                Ok(line) => outln!("{line}"),
                Err(e) => eprintln!("kraftwerk monitor: cannot encode a snapshot: {e}"),
            },
        }
        each(&snap);
    }
    snapshots
}

/// Prints the summary and saves the recording.
fn finish_monitor(
    snapshots: usize,
    gpu_count: usize,
    read_us: &mut [u64],
    dropped: u64,
    recording: Option<(&Recording, &Path)>,
    format: Format,
) -> Result<(), CliError> {
    let mut summary = format!("{snapshots} snapshot(s) of {gpu_count} GPU(s)");
    if let Some((median, p95, max)) = read_time_stats(read_us) {
        let verdict = if median <= SAMPLE_TARGET_US { "within" } else { "over" };
        let _ = write!(
            summary,
            "; reading one GPU took median {:.3} ms, p95 {:.3} ms, max {:.3} ms over {} readings ({verdict} the 1 ms target)",
            median as f64 / 1000.0,
            p95 as f64 / 1000.0,
            max as f64 / 1000.0,
            read_us.len()
        );
    }
    if dropped > 0 {
        let _ = write!(summary, "; {dropped} snapshot(s) dropped");
    }
    match format {
        Format::Text => outln!("{summary}"),
        Format::Json => eprintln!("{summary}"),
    }
    if let Some((r, path)) = recording {
        if let Err(e) = r.save(path) {
            return Err(bad(e.to_string()).within("monitor"));
        }
        let msg = format!("recorded {} snapshot(s) to {}", r.snapshots.len(), path.display());
        match format {
            Format::Text => outln!("{msg}"),
            Format::Json => eprintln!("{msg}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_time_stats_median_p95_max() {
        let mut v: Vec<u64> = (1..=100).collect();
        assert_eq!(read_time_stats(&mut v), Some((51, 95, 100)));
        assert_eq!(read_time_stats(&mut []), None);
    }
}

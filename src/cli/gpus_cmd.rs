//! `kraftwerk gpus` and `kraftwerk monitor`: the installed NVIDIA GPUs through NVML.
//!
//! Without a driver both print "no NVIDIA driver found". `gpus` then exits 3 (the README's
//! "could not measure": nothing was listed, so a script cannot take the empty list for a
//! machine that was looked at); `monitor` exits 0 (nothing to sample, said so).
//!
//! JSON of `gpus`: [`crate::live::report::gpus`] (stable, versioned).
//! JSON of `monitor`: one [`Snapshot`] per line (JSON Lines); the summary goes to stderr.

use super::Format;
use super::error::{CliError, bad};
use crate::live::nvml::{self, NvmlState, SampleOptions, Snapshot};
use crate::live::record::Recording;
use crate::live::report::gpus::{gpus_json, gpus_text, monitor_header, monitor_line, state_json};
use crate::live::sampler::{MIN_INTERVAL, Sampler, SamplerConfig};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Per-GPU sample time the issue asks for, µs (1 ms).
const SAMPLE_TARGET_US: u64 = 1000;

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

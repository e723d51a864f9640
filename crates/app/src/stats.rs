//! Measuring the app: frame CPU time, start-up to first frame, resident memory.
//!
//! Set `KRAFTWERK_FRAME_STATS=1` and the app repaints continuously and prints, once, the time from `ui::run` to the end
//! of the first frame, then every 2 seconds the CPU time of its own frames (state, layout and
//! drawing in `logic` + `ui`; eframe's tessellation and painting are reported separately as
//! `eframe cpu`, which is eframe's own measure of the whole previous frame), and the process's
//! resident memory from `/proc/self/status`.

use std::time::{Duration, Instant};

/// Whether `KRAFTWERK_FRAME_STATS` asks for measurements.
pub fn enabled() -> bool {
    std::env::var_os("KRAFTWERK_FRAME_STATS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Seconds since this process started, from `/proc` (Linux; `None` elsewhere). Counts the
/// time before `main` too: loading the binary and its shared libraries.
pub fn process_age_s() -> Option<f64> {
    let uptime: f64 = std::fs::read_to_string("/proc/uptime").ok()?.split_whitespace().next()?.parse().ok()?;
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Field 22 (starttime, clock ticks after boot) counted after the `(comm)` field, which may
    // hold spaces.
    let after = stat.rsplit_once(')')?.1;
    let ticks: f64 = after.split_whitespace().nth(19)?.parse().ok()?;
    // USER_HZ is 100 on every Linux configuration in use.
    Some(uptime - ticks / 100.0)
}

/// Resident set size of this process, MiB (`None` where `/proc` is absent).
pub fn rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Frame-time statistics over a reporting window.
#[derive(Debug)]
pub struct FrameStats {
    /// Time spent in `logic` this frame (added to the `ui` time when recording).
    pub logic_time: Duration,
    started: Instant,
    first_frame_reported: bool,
    window_start: Instant,
    frame_s: Vec<f64>,
    eframe_s: Vec<f64>,
}

/// Summary of a set of frame times, milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Frames measured.
    pub frames: usize,
    /// Mean, ms.
    pub mean_ms: f64,
    /// Median, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
}

/// Summarises frame times given in seconds; `None` for an empty set.
pub fn summarize(samples_s: &[f64]) -> Option<Summary> {
    if samples_s.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = samples_s.iter().map(|s| s * 1e3).collect();
    v.sort_by(f64::total_cmp);
    let pick = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    Some(Summary {
        frames: v.len(),
        mean_ms: v.iter().sum::<f64>() / v.len() as f64,
        p50_ms: pick(0.5),
        p95_ms: pick(0.95),
        max_ms: v.last().copied().unwrap_or(0.0),
    })
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} frames: mean {:.2} ms, p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            self.frames, self.mean_ms, self.p50_ms, self.p95_ms, self.max_ms
        )
    }
}

impl FrameStats {
    /// Starts measuring; `started` is when `ui::run` was entered.
    pub fn new(started: Instant) -> Self {
        FrameStats {
            logic_time: Duration::ZERO,
            started,
            first_frame_reported: false,
            window_start: Instant::now(),
            frame_s: Vec::new(),
            eframe_s: Vec::new(),
        }
    }

    /// Records one frame of the app's own CPU time, and eframe's measure of the previous frame.
    pub fn record(&mut self, frame: Duration, eframe_cpu_s: Option<f32>) {
        if !self.first_frame_reported {
            self.first_frame_reported = true;
            eprintln!(
                "kraftwerk stats: start-up to end of first frame {:.0} ms from ui::run, {} from process start (first frame {:.1} ms), RSS {}",
                self.started.elapsed().as_secs_f64() * 1e3,
                process_age_s().map_or_else(|| "unknown".to_owned(), |s| format!("{:.0} ms", s * 1e3)),
                frame.as_secs_f64() * 1e3,
                rss_mib().map_or_else(|| "unknown".to_owned(), |m| format!("{m:.0} MiB"))
            );
            self.window_start = Instant::now();
            return;
        }
        self.frame_s.push(frame.as_secs_f64());
        if let Some(e) = eframe_cpu_s {
            self.eframe_s.push(f64::from(e));
        }
        if self.window_start.elapsed() >= Duration::from_secs(2) {
            if let Some(s) = summarize(&self.frame_s) {
                let eframe = summarize(&self.eframe_s).map_or_else(String::new, |e| {
                    format!("; eframe cpu mean {:.2} ms, p95 {:.2} ms", e.mean_ms, e.p95_ms)
                });
                eprintln!(
                    "kraftwerk stats: app {s}{eframe}; RSS {}",
                    rss_mib().map_or_else(|| "unknown".to_owned(), |m| format!("{m:.0} MiB"))
                );
            }
            self.frame_s.clear();
            self.eframe_s.clear();
            self.window_start = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let s = summarize(&[0.001, 0.002, 0.003, 0.004]).expect("non-empty");
        assert_eq!(s.frames, 4);
        assert!((s.mean_ms - 2.5).abs() < 1e-9);
        assert!((s.max_ms - 4.0).abs() < 1e-9);
        assert!(summarize(&[]).is_none());
    }
}

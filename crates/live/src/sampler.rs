//! A named background thread that reads the GPUs at a fixed interval and sends owned
//! [`Snapshot`]s over a bounded channel; and [`History`], a ring buffer of recent samples.
//!
//! The thread owns its [`SampleSource`] (live NVML or a recording being replayed). The UI
//! drains the channel each frame and passes a repaint callback (`ctx.request_repaint`) without
//! this module depending on egui. When the receiver falls behind, new snapshots are dropped
//! and counted rather than blocking the sampler. Dropping the [`Sampler`] stops and joins the
//! thread.

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::nvml::{GpuSample, NvmlGpus, SampleOptions, Snapshot};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Default sampling interval, 500 ms: two readings a second for the Live tab and `monitor`.
/// NVML's `nvmlDeviceGetPowerUsage` is itself averaged over about 1 s on recent GPUs (NVML API
/// reference, https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html), so a
/// faster default shows no more of the power trace; `crates/live/examples/nvml_call_timing.rs` measures what
/// one reading costs.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(500);
/// Sampling interval during a probe, 100 ms: fine enough to see clock event reasons and the
/// instant-power field (`NVML_FI_DEV_POWER_INSTANT`, not the 1 s average) move within a GEMM
/// run of a few seconds; the fast metric tier costs well under this per reading on the H200
/// (see [`SampleOptions`]).
pub const PROBE_INTERVAL: Duration = Duration::from_millis(100);
/// Shortest interval the sampler accepts, 10 ms (one H200 reading takes well under that).
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);
/// Default channel capacity, snapshots (64 × 500 ms = 32 s of slack for a stalled UI).
pub(crate) const DEFAULT_CHANNEL_CAPACITY: usize = 64;
/// The sampler thread's name (shown by debuggers and `top -H`).
pub const THREAD_NAME: &str = "kraftwerk-nvml-sampler";

/// Called after each snapshot is sent, e.g. `move || ctx.request_repaint()`.
pub type RepaintFn = Box<dyn Fn() + Send>;

/// Something that produces snapshots: live NVML, or a recording.
pub trait SampleSource: Send {
    /// The next snapshot; `None` ends the sampler (a recording ran out).
    fn next_snapshot(&mut self) -> Option<Snapshot>;
}

impl SampleSource for NvmlGpus {
    /// Reads every GPU; the PCIe throughput comes from byte counters (never the blocking call).
    fn next_snapshot(&mut self) -> Option<Snapshot> {
        Some(self.sample(SampleOptions::default()))
    }
}

/// Plays stored snapshots back in order (optionally looping), with their recorded times.
#[derive(Debug, Clone)]
pub struct Replay {
    snapshots: Vec<Snapshot>,
    pos: usize,
    looping: bool,
}

impl Replay {
    /// A replay of `snapshots`; `looping` starts over at the end instead of stopping.
    pub fn new(snapshots: Vec<Snapshot>, looping: bool) -> Self {
        Replay { snapshots, pos: 0, looping }
    }
}

impl SampleSource for Replay {
    fn next_snapshot(&mut self) -> Option<Snapshot> {
        if self.pos >= self.snapshots.len() {
            if !self.looping || self.snapshots.is_empty() {
                return None;
            }
            self.pos = 0;
        }
        let s = self.snapshots.get(self.pos).cloned();
        self.pos += 1;
        s
    }
}

/// Sampler settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerConfig {
    /// Time between readings (default [`DEFAULT_INTERVAL`]; at least [`MIN_INTERVAL`]).
    pub interval: Duration,
    /// Snapshots the channel holds before new ones are dropped.
    pub channel_capacity: usize,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig { interval: DEFAULT_INTERVAL, channel_capacity: DEFAULT_CHANNEL_CAPACITY }
    }
}

struct Shared {
    stop: AtomicBool,
    interval_us: AtomicU64,
    dropped: AtomicU64,
    sent: AtomicU64,
}

/// The running sampler thread. Drop it (or call [`Sampler::stop`]) to stop and join.
pub struct Sampler {
    shared: Arc<Shared>,
    rx: Receiver<Snapshot>,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler")
            .field("interval", &self.interval())
            .field("sent", &self.sent_count())
            .field("dropped", &self.dropped_count())
            .finish_non_exhaustive()
    }
}

fn clamp_interval(d: Duration) -> Duration {
    d.max(MIN_INTERVAL)
}

fn duration_us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Sampler {
    /// Starts the thread `kraftwerk-nvml-sampler` reading `source` every `config.interval`.
    ///
    /// # Errors
    /// The OS could not start a thread.
    pub fn spawn(
        source: Box<dyn SampleSource>,
        config: SamplerConfig,
        repaint: Option<RepaintFn>,
    ) -> std::io::Result<Sampler> {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            interval_us: AtomicU64::new(duration_us(clamp_interval(config.interval))),
            dropped: AtomicU64::new(0),
            sent: AtomicU64::new(0),
        });
        let (tx, rx) = sync_channel(config.channel_capacity.max(1));
        let thread_shared = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name(THREAD_NAME.to_owned())
            .spawn(move || run(source, &thread_shared, &tx, repaint.as_deref()))?;
        Ok(Sampler { shared, rx, handle: Some(handle) })
    }

    /// Starts sampling live GPUs with the default settings.
    ///
    /// # Errors
    /// The OS could not start a thread.
    pub fn spawn_nvml(gpus: NvmlGpus, repaint: Option<RepaintFn>) -> std::io::Result<Sampler> {
        Sampler::spawn(Box::new(gpus), SamplerConfig::default(), repaint)
    }

    /// Changes the interval (e.g. [`PROBE_INTERVAL`] during a probe); applies from the next
    /// reading on.
    pub fn set_interval(&self, interval: Duration) {
        self.shared.interval_us.store(duration_us(clamp_interval(interval)), Ordering::Relaxed);
        if let Some(h) = &self.handle {
            h.thread().unpark();
        }
    }

    /// The current interval.
    pub fn interval(&self) -> Duration {
        Duration::from_micros(self.shared.interval_us.load(Ordering::Relaxed))
    }

    /// Every snapshot waiting in the channel, oldest first (never blocks).
    pub fn drain(&self) -> Vec<Snapshot> {
        self.rx.try_iter().collect()
    }

    /// Waits up to `timeout` for the next snapshot; `None` on timeout or when the thread ended.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Snapshot> {
        self.rx.recv_timeout(timeout).ok()
    }

    /// Snapshots sent so far.
    pub fn sent_count(&self) -> u64 {
        self.shared.sent.load(Ordering::Relaxed)
    }

    /// Snapshots dropped because the channel was full.
    pub fn dropped_count(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// True when the thread has ended (source exhausted or stopped).
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Stops the thread, waits for it, and returns the snapshots still in the channel.
    pub fn stop(mut self) -> Vec<Snapshot> {
        self.shutdown();
        self.drain()
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.thread().unpark();
            // A panic in the source already printed its message; nothing more to do here.
            let _ = h.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn run(
    mut source: Box<dyn SampleSource>,
    shared: &Shared,
    tx: &SyncSender<Snapshot>,
    repaint: Option<&(dyn Fn() + Send)>,
) {
    let mut next = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) {
        let Some(snapshot) = source.next_snapshot() else { break };
        match tx.try_send(snapshot) {
            Ok(()) => {
                shared.sent.fetch_add(1, Ordering::Relaxed);
                if let Some(r) = repaint {
                    r();
                }
            }
            Err(TrySendError::Full(_)) => {
                shared.dropped.fetch_add(1, Ordering::Relaxed);
            }
            Err(TrySendError::Disconnected(_)) => break,
        }
        let interval = Duration::from_micros(shared.interval_us.load(Ordering::Relaxed));
        next += interval;
        let now = Instant::now();
        if next < now {
            // Fell behind (slow reading or suspended machine): do not try to catch up.
            next = now;
        }
        while !shared.stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now >= next {
                break;
            }
            std::thread::park_timeout(next - now);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// History
// ---------------------------------------------------------------------------------------------

/// Default history window, 15 minutes: long enough to watch a sustained load reach thermal and
/// clock steady state on the Live tab's plots (a design choice; at 500 ms that is 1,800 samples
/// per GPU).
pub(crate) const DEFAULT_HISTORY_WINDOW: Duration = Duration::from_mins(15);

/// Recent samples per GPU: a ring buffer that keeps `window` of time (measured on the samples'
/// `unix_ms`) and at most `max_samples_per_gpu` samples per GPU.
#[derive(Debug, Clone)]
pub struct History {
    window_ms: u64,
    max_samples_per_gpu: usize,
    gpus: Vec<VecDeque<GpuSample>>,
    origin_unix_ms: Option<u64>,
}

impl Default for History {
    fn default() -> Self {
        History::new(DEFAULT_HISTORY_WINDOW)
    }
}

impl History {
    /// A history of `window`, holding up to `window / 100 ms` samples per GPU (enough for the
    /// probe interval).
    pub fn new(window: Duration) -> Self {
        let max = usize::try_from(window.as_millis() / PROBE_INTERVAL.as_millis()).unwrap_or(usize::MAX);
        History::with_capacity(window, max.max(1))
    }

    /// A history of `window` holding at most `max_samples_per_gpu` samples per GPU.
    pub fn with_capacity(window: Duration, max_samples_per_gpu: usize) -> Self {
        History {
            window_ms: u64::try_from(window.as_millis()).unwrap_or(u64::MAX),
            max_samples_per_gpu: max_samples_per_gpu.max(1),
            gpus: Vec::new(),
            origin_unix_ms: None,
        }
    }

    /// Adds every sample of a snapshot, then trims old ones.
    pub fn push(&mut self, snapshot: &Snapshot) {
        for s in &snapshot.gpus {
            self.push_sample(s.clone());
        }
    }

    /// Adds one sample, then trims that GPU's old samples.
    pub(crate) fn push_sample(&mut self, sample: GpuSample) {
        if self.gpus.len() <= sample.gpu {
            self.gpus.resize_with(sample.gpu + 1, VecDeque::new);
        }
        self.origin_unix_ms.get_or_insert(sample.unix_ms);
        let newest = sample.unix_ms;
        let q = &mut self.gpus[sample.gpu];
        q.push_back(sample);
        while q.len() > self.max_samples_per_gpu {
            q.pop_front();
        }
        while q.front().is_some_and(|s| newest.saturating_sub(s.unix_ms) > self.window_ms) {
            q.pop_front();
        }
    }

    /// GPUs seen so far (highest position + 1).
    pub fn gpu_count(&self) -> usize {
        self.gpus.len()
    }

    /// Samples of the GPU at position `gpu`, oldest first.
    pub fn samples(&self, gpu: usize) -> impl Iterator<Item = &GpuSample> {
        self.gpus.get(gpu).into_iter().flatten()
    }

    /// Number of samples held for `gpu`.
    pub fn len(&self, gpu: usize) -> usize {
        self.gpus.get(gpu).map_or(0, VecDeque::len)
    }

    /// True when no sample is held.
    pub fn is_empty(&self) -> bool {
        self.gpus.iter().all(VecDeque::is_empty)
    }

    /// The newest sample of `gpu`.
    pub fn latest(&self, gpu: usize) -> Option<&GpuSample> {
        self.gpus.get(gpu).and_then(VecDeque::back)
    }

    /// `[seconds since the first sample ever pushed, value]` points for a plot, skipping
    /// samples where `value` is `None` (e.g. `|s| s.power_avg_w`).
    pub fn series(&self, gpu: usize, value: impl Fn(&GpuSample) -> Option<f64>) -> Vec<[f64; 2]> {
        let origin = self.origin_unix_ms.unwrap_or(0);
        self.samples(gpu)
            .filter_map(|s| {
                let v = value(s)?;
                let t = s.unix_ms.saturating_sub(origin) as f64 / 1000.0;
                Some([t, v])
            })
            .collect()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.gpus.clear();
        self.origin_unix_ms = None;
    }
}

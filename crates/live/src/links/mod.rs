//! GPU↔GPU links: the peer-to-peer copy matrix and the NCCL all-reduce bus bandwidth, graded
//! against the build, as nvbandwidth / `p2pBandwidthLatencyTest` and nccl-tests measure them.
//!
//! What runs ([`run_links`]):
//! 1. NVML: each GPU and the connection of each pair (`NV#`, `PIX`, …, [`super::nvml::topology`]).
//! 2. P2P ([`P2pMatrix`], feature `cuda`): for every ordered pair of GPUs, whether the driver
//!    allows peer access (`cuDeviceCanAccessPeer`), peer access enabled where it does
//!    (`cuCtxEnablePeerAccess`), then `cuMemcpyPeerAsync` copies issued on the source GPU's
//!    stream and timed with CUDA events after a warm-up: one way ([`LinksOptions::p2p_bytes`],
//!    256 MiB by default), both ways at once (the two directions' total, as
//!    `p2pBandwidthLatencyTest` reports "bidirectional"), and the latency of small copies.
//!    Buffers are plain `cuMemAlloc` memory: stream-ordered pool memory (what cudarc's own
//!    allocations use) is not covered by `cuCtxEnablePeerAccess`.
//! 3. All-reduce ([`AllReduceTable`], feature `cuda`, NCCL loaded at run time through cudarc):
//!    one thread per GPU, each with its own NCCL rank (`ncclCommInitRank`), float32 sum,
//!    out-of-place, sizes doubling from 1 MiB to [`LinksOptions::max_bytes`] (1 GiB by default);
//!    per size a warm-up, then [`LinksOptions::trials`] timed batches of back-to-back
//!    all-reduces (CUDA events on each rank's stream; a batch lasts as long as its slowest
//!    rank); the median batch gives the time per all-reduce. `algbw = bytes / time` and
//!    `busbw = algbw × 2(n−1)/n`, as nccl-tests' `PERFORMANCE.md` defines them; every result is
//!    checked against the known sum (the `#wrong` column of nccl-tests).
//!    NVLink SHARP (NVLS, multicast through NVSwitch) stays off: NCCL only runs when
//!    `NCCL_NVLS_ENABLE=0` is in the environment before the process starts (see
//!    [`nccl_env`]); otherwise the section says why it did not run.
//! 4. Grading ([`checks`], pure functions): NVLink expected and active, P2P expected (GeForce
//!    cards have none on stock drivers: reported, not failed), bandwidth against the link's
//!    expected figure ([`crate::grading`]), all-reduce results.
//!
//! Without the `cuda` feature or without a driver, the report still carries what NVML knows
//! (and its NVLink grading) and says why the measurements are "not available".
//! The report ([`LinksReport`]) is versioned JSON ([`LINKS_SCHEMA_VERSION`]).
//!
//! GPU positions in the report are CUDA ordinals when CUDA is present (else NVML indices);
//! NVML readings are matched to CUDA devices by UUID (CUDA's order is not NVML's).

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink, NVSwitch and NCCL are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

pub mod checks;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod nccl_env;

/// The former name of [`checks`], kept only until `src/ui` moves to the new name; remove it
/// then.
pub use self::checks as grade;
pub use checks::{Expectations, ExpectedLink, LinkCheck, PairExpectation};

use super::nvml::GpuStatic;
use super::probe::{Grade, Summary};
use crate::nvml::topology::{GpuPair, Topology};
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::time::Instant;

/// Version of the [`LinksReport`] JSON layout; bumped on any incompatible change.
pub const LINKS_SCHEMA_VERSION: u32 = 1;

/// One-way / two-way P2P copy size, bytes (256 MiB, as nvbandwidth's default buffer size of
/// 512 MiB halved: large enough that launch overhead is below 0.1 %).
pub const DEFAULT_P2P_BYTES: usize = 256 << 20;

/// Size of the copies the P2P latency is measured with, bytes.
pub const LATENCY_BYTES: usize = 4;

/// Smallest all-reduce size, bytes (1 MiB).
pub(crate) const DEFAULT_MIN_BYTES: usize = 1 << 20;

/// Largest all-reduce size, bytes (1 GiB).
pub const DEFAULT_MAX_BYTES: usize = 1 << 30;

/// Bytes per all-reduce element (float32).
pub const ELEMENT_BYTES: usize = 4;

/// The environment variable that must be `0` before NCCL runs: NVLink SHARP off.
pub(crate) const NVLS_ENV: &str = "NCCL_NVLS_ENABLE";

/// What to measure and how.
#[derive(Debug, Clone)]
pub struct LinksOptions {
    /// Measure P2P copies.
    pub p2p: bool,
    /// Run the NCCL all-reduce.
    pub all_reduce: bool,
    /// Size of each one-way / two-way copy, bytes.
    pub p2p_bytes: usize,
    /// Copies per timed P2P batch.
    pub p2p_copies: usize,
    /// Timed P2P batches per pair (the summary is over batches).
    pub p2p_trials: usize,
    /// Small copies per latency batch.
    pub latency_copies: usize,
    /// Smallest all-reduce size, bytes (rounded up to a power of two).
    pub min_bytes: usize,
    /// Largest all-reduce size, bytes (less when GPU memory is short: two buffers of this size
    /// must fit in 80 % of the free memory of every GPU).
    pub max_bytes: usize,
    /// Untimed all-reduces before each size (the first size gets four times as many: NCCL
    /// connects lazily).
    pub warmup_iterations: usize,
    /// Timed batches per size; the median batch is reported.
    pub trials: usize,
    /// Set to stop; takes effect between pairs and sizes.
    pub cancel: Arc<AtomicBool>,
    /// Progress lines (bounded channel; full = line dropped).
    pub progress: Option<SyncSender<String>>,
}

impl Default for LinksOptions {
    fn default() -> Self {
        Self {
            p2p: true,
            all_reduce: true,
            p2p_bytes: DEFAULT_P2P_BYTES,
            p2p_copies: 4,
            p2p_trials: 5,
            latency_copies: 100,
            min_bytes: DEFAULT_MIN_BYTES,
            max_bytes: DEFAULT_MAX_BYTES,
            warmup_iterations: 5,
            trials: 5,
            cancel: Arc::new(AtomicBool::new(false)),
            progress: None,
        }
    }
}

impl LinksOptions {
    /// Sends a progress line without blocking.
    pub fn say(&self, line: impl Into<String>) {
        if let Some(tx) = &self.progress {
            let _ = tx.try_send(line.into());
        }
    }

    /// Whether [`Self::cancel`] is set.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// nccl-tests' all-reduce bus-bandwidth factor `2(n−1)/n` for `ranks` GPUs (0 for fewer than 2):
/// each byte crosses the slowest link `2(n−1)/n` times in a ring all-reduce, so `busbw` is
/// comparable to one direction of a link (nccl-tests `doc/PERFORMANCE.md`).
pub fn bus_factor(ranks: usize) -> f64 {
    if ranks < 2 {
        return 0.0;
    }
    let n = ranks as f64;
    2.0 * (n - 1.0) / n
}

/// Bandwidth in GB/s (10⁹ bytes per second, as nccl-tests and nvbandwidth print it) of `bytes`
/// moved in `seconds`; 0 for a non-positive time.
pub fn gb_per_s(bytes: f64, seconds: f64) -> f64 {
    if seconds > 0.0 { bytes / seconds / 1e9 } else { 0.0 }
}

/// The all-reduce sizes, bytes: powers of two from `min_bytes` (rounded up to one, at least one
/// element) to `max_bytes`; empty when `max_bytes < min_bytes`.
pub fn all_reduce_sizes(min_bytes: usize, max_bytes: usize) -> Vec<usize> {
    let mut size = min_bytes.max(ELEMENT_BYTES).next_power_of_two();
    let mut out = Vec::new();
    while size <= max_bytes {
        out.push(size);
        match size.checked_mul(2) {
            Some(s) => size = s,
            None => break,
        }
    }
    out
}

/// Timed all-reduces per batch at `bytes`: about 2 GiB of data per batch so small sizes are not
/// dominated by launch skew, between 20 (nccl-tests' default `-n`) and 1000.
pub fn iterations_for(bytes: usize) -> usize {
    ((2usize << 30) / bytes.max(1)).clamp(20, 1000)
}

/// One GPU as the links report sees it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LinkGpu {
    /// Position in [`LinksReport::gpus`] (the CUDA ordinal when CUDA is present).
    pub index: usize,
    /// CUDA device ordinal; `None` without CUDA.
    #[serde(default)]
    pub cuda_ordinal: Option<usize>,
    /// NVML index; `None` when NVML did not see it.
    #[serde(default)]
    pub nvml_index: Option<u32>,
    /// Name (`NVIDIA H200`).
    pub name: String,
    /// UUID (`GPU-…`).
    #[serde(default)]
    pub uuid: Option<String>,
    /// Highest PCIe generation of the GPU's host link (NVML).
    #[serde(default)]
    pub pcie_gen_max: Option<u32>,
    /// Widest PCIe link width, lanes (NVML).
    #[serde(default)]
    pub pcie_width_max: Option<u32>,
    /// Highest settable power limit, W (NVML); tells H200 SXM (700 W) from H200 NVL (600 W).
    #[serde(default)]
    pub power_limit_max_w: Option<f64>,
    /// Active NVLinks (NVML); `None` = not reported.
    #[serde(default)]
    pub nvlinks_active: Option<u32>,
}

/// A CUDA device as the `cuda` backend lists it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CudaDevice {
    /// Ordinal.
    pub ordinal: usize,
    /// Name.
    pub name: String,
    /// NVML-style UUID (`GPU-xxxxxxxx-…`).
    pub uuid: Option<String>,
}

/// Whether one part of the measurement ran. JSON: `{"status": "measured", …fields}` or
/// `{"status": "not_available", "reason": "…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Section<T> {
    /// It ran; the results.
    Measured(T),
    /// It did not run, and why (no CUDA, one GPU, NVLS not disabled, NCCL missing, …).
    NotAvailable {
        /// Why.
        reason: String,
    },
}

impl<T> Section<T> {
    /// A [`Section::NotAvailable`].
    pub fn not_available(reason: impl Into<String>) -> Self {
        Self::NotAvailable { reason: reason.into() }
    }

    /// The results, when measured.
    pub fn measured(&self) -> Option<&T> {
        match self {
            Self::Measured(t) => Some(t),
            Self::NotAvailable { .. } => None,
        }
    }

    /// Why not, when not measured.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Measured(_) => None,
            Self::NotAvailable { reason } => Some(reason),
        }
    }
}

/// One ordered pair of GPUs: `from` copies to `to`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PeerLink {
    /// Source GPU (position in [`LinksReport::gpus`]).
    pub from: usize,
    /// Destination GPU.
    pub to: usize,
    /// `cuDeviceCanAccessPeer(from, to)`: the driver allows `from` to access `to`'s memory
    /// directly; `None` = the query failed.
    pub can_access_peer: Option<bool>,
    /// Peer access was enabled for this direction (`cuCtxEnablePeerAccess` succeeded or was
    /// already on); without it copies are staged through host memory.
    pub peer_access_enabled: bool,
    /// One-way copy bandwidth `from` → `to`, GB/s, over the timed batches.
    pub one_way_gb_s: Option<Summary>,
    /// Both directions at once (`from` → `to` and `to` → `from` together), total GB/s.
    pub two_way_gb_s: Option<Summary>,
    /// Time per small copy ([`LATENCY_BYTES`]) `from` → `to`, µs (back-to-back copies timed with
    /// CUDA events: the copy engine's latency as the stream sees it).
    pub latency_us: Option<Summary>,
    /// What went wrong for this pair, if anything.
    #[serde(default)]
    pub error: Option<String>,
}

/// The P2P results for every ordered pair.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct P2pMatrix {
    /// Bytes per bandwidth copy.
    pub copy_bytes: u64,
    /// Copies per timed batch.
    pub copies_per_trial: usize,
    /// Timed batches per pair and mode.
    pub trials: usize,
    /// Bytes per latency copy.
    pub latency_bytes: u64,
    /// Copies per latency batch.
    pub latency_copies: usize,
    /// Ordered pairs `(from, to)`, `from != to`, sorted.
    pub links: Vec<PeerLink>,
}

impl P2pMatrix {
    /// The pair `from` → `to`.
    pub fn link(&self, from: usize, to: usize) -> Option<&PeerLink> {
        self.links.iter().find(|l| l.from == from && l.to == to)
    }

    /// An `n`×`n` matrix of `value(link)` (`None` on the diagonal and for missing pairs).
    pub fn matrix(&self, n: usize, value: impl Fn(&PeerLink) -> Option<f64>) -> Vec<Vec<Option<f64>>> {
        (0..n).map(|a| (0..n).map(|b| if a == b { None } else { self.link(a, b).and_then(&value) }).collect()).collect()
    }

    /// The lowest median one-way bandwidth over all pairs, GB/s.
    pub fn min_one_way_gb_s(&self) -> Option<f64> {
        self.links.iter().filter_map(|l| l.one_way_gb_s.map(|s| s.median)).min_by(f64::total_cmp)
    }
}

/// One all-reduce size.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AllReduceRow {
    /// Bytes per rank (nccl-tests' `size`).
    pub bytes: u64,
    /// float32 elements (nccl-tests' `count`).
    pub count: u64,
    /// All-reduces per timed batch.
    pub iterations: usize,
    /// Time per all-reduce, µs: the median batch (each batch timed by its slowest rank).
    pub time_us: f64,
    /// Algorithm bandwidth `bytes / time`, GB/s.
    pub algbw_gb_s: f64,
    /// Bus bandwidth `algbw × 2(n−1)/n`, GB/s.
    pub busbw_gb_s: f64,
    /// Fastest and slowest batch, µs per all-reduce.
    pub time_us_range: (f64, f64),
    /// Elements that differed from the known sum, summed over ranks (nccl-tests' `#wrong`).
    pub wrong: u64,
}

/// The NCCL all-reduce results.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AllReduceTable {
    /// Ranks (one per GPU).
    pub ranks: usize,
    /// NCCL version (`ncclGetVersion`, e.g. `2.27.3`).
    pub nccl_version: Option<String>,
    /// Element type.
    pub dtype: String,
    /// Reduction.
    pub op: String,
    /// Whether the results went to a separate buffer (`false`: in place).
    pub out_of_place: bool,
    /// Untimed all-reduces before each size.
    pub warmup_iterations: usize,
    /// Timed batches per size.
    pub trials: usize,
    /// `NCCL_NVLS_ENABLE` as NCCL saw it.
    pub nvls_enable: Option<String>,
    /// Where libnccl was loaded from, when known.
    #[serde(default)]
    pub library: Option<String>,
    /// One row per size, smallest first.
    pub rows: Vec<AllReduceRow>,
}

impl AllReduceTable {
    /// The row of the largest size.
    pub fn largest(&self) -> Option<&AllReduceRow> {
        self.rows.iter().max_by_key(|r| r.bytes)
    }

    /// The row of `bytes`.
    pub fn row(&self, bytes: u64) -> Option<&AllReduceRow> {
        self.rows.iter().find(|r| r.bytes == bytes)
    }

    /// Total wrong elements over all sizes.
    pub fn wrong(&self) -> u64 {
        self.rows.iter().map(|r| r.wrong).sum()
    }
}

/// The verdict of a links run: the worst check's grade, or `not_run` when nothing could be
/// measured (a machine without GPUs is not a pass). JSON: `pass`, `info`, `warn`, `fail`,
/// `not_run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinksVerdict {
    /// Everything measured as expected.
    Pass,
    /// Only information.
    Info,
    /// Something below expectations.
    Warn,
    /// Something broken.
    Fail,
    /// Nothing measured.
    NotRun,
}

impl LinksVerdict {
    /// The verdict of a graded run.
    pub fn of(grade: Grade) -> Self {
        match grade {
            Grade::Pass => Self::Pass,
            Grade::Info => Self::Info,
            Grade::Warn => Self::Warn,
            Grade::NotMeasured => Self::NotRun,
            Grade::Fail => Self::Fail,
        }
    }

    /// `pass`, `info`, `warn`, `fail` or `not run`.
    pub fn name(self) -> &'static str {
        match self {
            Self::NotRun => "not run",
            Self::Pass => "pass",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Fail => "fail",
        }
    }
}

/// The links report (JSON layout version [`LINKS_SCHEMA_VERSION`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinksReport {
    /// Layout version.
    pub schema_version: u32,
    /// Kraftwerk version that wrote it.
    pub kraftwerk_version: String,
    /// When it was made, ms since the Unix epoch.
    #[serde(default)]
    pub created_unix_ms: Option<u64>,
    /// NVIDIA driver version (NVML).
    #[serde(default)]
    pub driver_version: Option<String>,
    /// What NVML said (`ready`, or why not).
    pub nvml: String,
    /// The GPUs; positions are CUDA ordinals when CUDA is present.
    pub gpus: Vec<LinkGpu>,
    /// Connection of every pair (NVML), in positions of [`Self::gpus`].
    pub topology: Topology,
    /// P2P copies.
    pub p2p: Section<P2pMatrix>,
    /// NCCL all-reduce.
    pub all_reduce: Section<AllReduceTable>,
    /// What the links were graded against.
    #[serde(default)]
    pub expected: Option<Expectations>,
    /// Graded checks.
    pub checks: Vec<LinkCheck>,
    /// Worst grade of the checks.
    pub grade: Grade,
    /// The verdict: the grade, or `not_run` when nothing was measured (no GPU visible, no
    /// copy, no all-reduce, no NVLink state); `None` only in reports written before it existed.
    #[serde(default)]
    pub verdict: Option<LinksVerdict>,
    /// Whether the run was cancelled.
    pub cancelled: bool,
    /// Wall time of the whole run, seconds.
    pub wall_seconds: f64,
    /// Whole-run errors.
    pub errors: Vec<String>,
}

impl LinksReport {
    /// A report of `gpus` and `topology` with nothing measured (`reason` for both sections).
    pub fn unmeasured(nvml: impl Into<String>, gpus: Vec<LinkGpu>, topology: Topology, reason: &str) -> Self {
        Self {
            schema_version: LINKS_SCHEMA_VERSION,
            kraftwerk_version: env!("CARGO_PKG_VERSION").to_owned(),
            created_unix_ms: Some(super::nvml::unix_ms_now()),
            driver_version: None,
            nvml: nvml.into(),
            gpus,
            topology,
            p2p: Section::not_available(reason),
            all_reduce: Section::not_available(reason),
            expected: None,
            checks: Vec::new(),
            grade: Grade::Pass,
            verdict: Some(LinksVerdict::NotRun),
            cancelled: false,
            wall_seconds: 0.0,
            errors: Vec::new(),
        }
    }

    /// Grades the report against `expected` (stored in the report).
    pub fn regrade(&mut self, expected: Expectations) {
        self.checks = checks::grade(self, &expected);
        self.grade = checks::overall(&self.checks);
        self.expected = Some(expected);
        let measured = matches!(self.p2p, Section::Measured(_))
            || matches!(self.all_reduce, Section::Measured(_))
            || self.checks.iter().any(|c| c.check == "nvlink-active");
        self.verdict = Some(if !measured && self.errors.is_empty() && self.grade != Grade::Fail {
            LinksVerdict::NotRun
        } else {
            LinksVerdict::of(self.grade)
        });
    }

    /// Whether nothing was measured (exit 0, verdict `not_run`).
    pub fn not_run(&self) -> bool {
        self.verdict == Some(LinksVerdict::NotRun)
    }

    /// Whether any check failed (the CLI exits 1).
    pub fn failed(&self) -> bool {
        self.grade == Grade::Fail
    }
}

/// The report's GPU list and topology from NVML facts and the CUDA device list.
///
/// With CUDA devices, positions are CUDA ordinals and NVML facts are matched by UUID (by
/// position when neither side has UUIDs and the counts agree). Without, positions are NVML
/// indices. The topology's pairs are renumbered to positions (`gpu_a < gpu_b`, sorted); pairs
/// of GPUs CUDA does not see are dropped.
pub fn merge_gpus(nvml: Option<(&[GpuStatic], &Topology)>, cuda: Option<&[CudaDevice]>) -> (Vec<LinkGpu>, Topology) {
    let statics: &[GpuStatic] = nvml.map_or(&[], |(g, _)| g);
    let from_nvml = |index: usize, s: &GpuStatic, cuda_ordinal: Option<usize>, name: Option<&str>| LinkGpu {
        index,
        cuda_ordinal,
        nvml_index: Some(s.index),
        name: name.map(str::to_owned).or_else(|| s.name.clone()).unwrap_or_else(|| format!("GPU {index}")),
        uuid: s.uuid.clone(),
        pcie_gen_max: s.pcie_gen_max,
        pcie_width_max: s.pcie_width_max,
        power_limit_max_w: s.power_limit_max_w,
        nvlinks_active: s.nvlinks_active(),
    };
    // position in the report of each NVML position
    let mut position_of_nvml: Vec<Option<usize>> = vec![None; statics.len()];
    let gpus: Vec<LinkGpu> = match cuda {
        Some(devices) => devices
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let by_uuid = d.uuid.as_deref().and_then(|u| {
                    statics.iter().position(|s| s.uuid.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(u)))
                });
                let by_position = (d.uuid.is_none() && statics.len() == devices.len()).then_some(i);
                match by_uuid.or(by_position) {
                    Some(n) => {
                        position_of_nvml[n] = Some(i);
                        let mut g = from_nvml(i, &statics[n], Some(d.ordinal), Some(&d.name));
                        g.uuid = d.uuid.clone().or(g.uuid);
                        g
                    }
                    None => LinkGpu {
                        index: i,
                        cuda_ordinal: Some(d.ordinal),
                        name: d.name.clone(),
                        uuid: d.uuid.clone(),
                        ..LinkGpu::default()
                    },
                }
            })
            .collect(),
        None => statics
            .iter()
            .enumerate()
            .map(|(i, s)| {
                position_of_nvml[i] = Some(i);
                from_nvml(i, s, None, None)
            })
            .collect(),
    };
    let mut pairs: Vec<GpuPair> = nvml
        .map(|(_, t)| t.pairs.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|p| {
            let a = (*position_of_nvml.get(p.gpu_a)?)?;
            let b = (*position_of_nvml.get(p.gpu_b)?)?;
            let mut q = p.clone();
            (q.gpu_a, q.gpu_b) = (a.min(b), a.max(b));
            Some(q)
        })
        .collect();
    pairs.sort_by_key(|p| (p.gpu_a, p.gpu_b));
    (gpus, Topology { pairs })
}

/// Why a measurement did not produce results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinksError {
    /// It cannot run here (no driver, no library, too few GPUs): reported, not graded as a fault.
    #[error("{0}")]
    Unavailable(String),
    /// It started and failed (driver or NCCL error, panic, timeout): graded as a failure.
    #[error("{0}")]
    Failed(String),
}

#[cfg(feature = "cuda")]
impl From<crate::cuda_util::DeviceCallError> for LinksError {
    fn from(e: crate::cuda_util::DeviceCallError) -> Self {
        Self::Failed(e.0)
    }
}

impl LinksError {
    /// A [`LinksError::Failed`] with what was being done and the library's error.
    pub fn failed(context: &str, err: impl std::fmt::Display) -> Self {
        Self::Failed(format!("{context}: {err}"))
    }
}

/// Runs CUDA/NCCL work on a named thread under `catch_unwind` (cudarc panics when a library
/// or symbol is missing) and waits for it; a panic becomes [`LinksError::Failed`].
pub fn on_thread<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> Result<T, LinksError> + Send + 'static,
) -> Result<T, LinksError> {
    let panicked = |p: &(dyn std::any::Any + Send)| LinksError::Failed(format!("panicked: {}", panic_text(p)));
    let handle = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|p| Err(panicked(&*p))))
        .map_err(|e| LinksError::Failed(format!("cannot start thread {name}: {e}")))?;
    handle.join().unwrap_or_else(|p| Err(panicked(&*p)))
}

pub use crate::panics::panic_text;

/// Measures the links of this machine and grades them against `expected` (or, when `None`,
/// against what the live GPUs are, matched to `catalog`).
///
/// Never panics: missing driver, CUDA, NCCL or a second GPU become "not available" sections.
pub fn run_links(
    opts: &LinksOptions,
    expected: Option<Expectations>,
    catalog: Option<&kraftwerk_catalog::Catalog>,
) -> LinksReport {
    let started = Instant::now();
    let state = super::nvml::open();
    let nvml_status = state.message();
    let (statics, topology, driver_version) = match &state {
        super::nvml::NvmlState::Ready(g) => {
            (g.gpus().to_vec(), g.topology().clone(), g.system().driver_version.clone())
        }
        _ => (Vec::new(), Topology::default(), None),
    };
    let nvml = (!statics.is_empty()).then_some((statics.as_slice(), &topology));
    let mut report = measure(opts, nvml, &nvml_status);
    report.driver_version = driver_version;
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.cancelled = opts.cancelled();
    let expected = expected.unwrap_or_else(|| checks::expectations_from_live(&report.gpus, &report.topology, catalog));
    report.regrade(expected);
    report
}

/// The section for a measurement's outcome; failures also go to `errors`.
#[cfg(feature = "cuda")]
fn section<T>(what: &str, outcome: Result<T, LinksError>, errors: &mut Vec<String>) -> Section<T> {
    match outcome {
        Ok(t) => Section::Measured(t),
        Err(LinksError::Unavailable(reason)) => Section::not_available(reason),
        Err(LinksError::Failed(e)) => {
            errors.push(format!("{what}: {e}"));
            Section::not_available(format!("failed: {e}"))
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn measure(_opts: &LinksOptions, nvml: Option<(&[GpuStatic], &Topology)>, nvml_status: &str) -> LinksReport {
    let (gpus, topology) = merge_gpus(nvml, None);
    LinksReport::unmeasured(nvml_status, gpus, topology, "this Kraftwerk was built without the `cuda` feature")
}

#[cfg(feature = "cuda")]
fn measure(opts: &LinksOptions, nvml: Option<(&[GpuStatic], &Topology)>, nvml_status: &str) -> LinksReport {
    let devices = match on_thread("kraftwerk-links-list", cuda::devices) {
        Ok(d) if !d.is_empty() => d,
        Ok(_) => {
            let (gpus, topology) = merge_gpus(nvml, None);
            return LinksReport::unmeasured(nvml_status, gpus, topology, "no CUDA device");
        }
        Err(e) => {
            let (gpus, topology) = merge_gpus(nvml, None);
            return LinksReport::unmeasured(nvml_status, gpus, topology, &e.to_string());
        }
    };
    let (gpus, topology) = merge_gpus(nvml, Some(&devices));
    let count = devices.len();
    let mut report = LinksReport::unmeasured(nvml_status, gpus, topology, "");
    if count < 2 {
        let reason = format!("{count} CUDA device; links need two");
        report.p2p = Section::not_available(&reason);
        report.all_reduce = Section::not_available(reason);
        return report;
    }
    let p2p = if !opts.p2p {
        Err(LinksError::Unavailable("not run (switched off)".to_owned()))
    } else if opts.cancelled() {
        Err(LinksError::Unavailable("cancelled".to_owned()))
    } else {
        opts.say(format!("P2P copies between {count} GPUs ({} MiB each)", opts.p2p_bytes >> 20));
        let o = opts.clone();
        on_thread("kraftwerk-links-p2p", move || cuda::measure_p2p(&o, count))
    };
    report.p2p = section("P2P", p2p, &mut report.errors);
    let all_reduce = if !opts.all_reduce {
        Err(LinksError::Unavailable("not run (switched off)".to_owned()))
    } else if opts.cancelled() {
        Err(LinksError::Unavailable("cancelled".to_owned()))
    } else {
        nccl_env::nvls_disabled().map_err(LinksError::Unavailable).and_then(|()| {
            opts.say(format!("NCCL all-reduce on {count} GPUs"));
            let o = opts.clone();
            on_thread("kraftwerk-links-nccl", move || cuda::measure_all_reduce(&o, count))
        })
    };
    report.all_reduce = section("all-reduce", all_reduce, &mut report.errors);
    report
}

//! Recordings: a live session (static facts, topology, samples) saved to a versioned JSON file
//! (`*.kwrec.json`) and loaded back for replay in the GUI and in tests.
//!
//! Format 2 (a JSON object; format 1 is the same without the fields format 2 added):
//! `format` (1 or 2), `kind` (a label: `monitor`, `snapshot`, `probe`, …), `created_unix_ms`,
//! `source` (what wrote it), `notes`, `machine` ([`MachineInfo`]), `system`
//! ([`SystemInfo`]: driver, NVML, CUDA versions), `gpus` ([`GpuStatic`] per GPU, NVML index
//! order), `topology`, `interval_ms`, `snapshots` ([`Snapshot`]s, oldest first; each sample's
//! `gpu` is a position in `gpus`), `extra` (named sections other parts add: `probe` and `links`
//! reports and the `nvml` status, written by `kraftwerk validate --record`).
//! Missing optional fields read as unknown, so older files keep loading; a newer `format` is
//! refused with a clear message.

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::nvml::topology::Topology;
use super::nvml::{GpuSample, GpuStatic, NvmlGpus, Snapshot, SystemInfo, unix_ms_now};
use super::sampler::{History, Replay};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The recording format this version writes. Format 2 adds per-sample retired pages, pending
/// retirements and XID errors, and the `probe`, `links` and `nvml` sections `validate --record`
/// writes; all optional, so format 1 files read as format 2 with those unknown.
pub const RECORDING_FORMAT: u32 = 2;

/// The oldest recording format this version reads.
pub(crate) const RECORDING_FORMAT_OLDEST: u32 = 1;

/// File name ending of recordings.
pub const RECORDING_EXTENSION: &str = "kwrec.json";

/// The machine a recording was made on.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MachineInfo {
    /// Host name (`/proc/sys/kernel/hostname`); `None` when unknown or removed by
    /// [`Recording::anonymize`].
    #[serde(default)]
    pub hostname: Option<String>,
    /// Operating system (`std::env::consts::OS`), e.g. `linux`.
    #[serde(default)]
    pub os: Option<String>,
    /// CPU architecture (`std::env::consts::ARCH`), e.g. `x86_64`.
    #[serde(default)]
    pub arch: Option<String>,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    #[serde(default)]
    pub kernel: Option<String>,
    /// Kraftwerk version that wrote the file.
    #[serde(default)]
    pub kraftwerk_version: Option<String>,
}

impl MachineInfo {
    /// This machine.
    pub fn current() -> Self {
        let read = |p: &str| fs::read_to_string(p).ok().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        MachineInfo {
            hostname: read("/proc/sys/kernel/hostname"),
            os: Some(std::env::consts::OS.to_owned()),
            arch: Some(std::env::consts::ARCH.to_owned()),
            kernel: read("/proc/sys/kernel/osrelease"),
            kraftwerk_version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }
    }
}

/// A saved live session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// File format version ([`RECORDING_FORMAT`]).
    pub format: u32,
    /// What kind of session: `monitor` (`kraftwerk monitor`), `snapshot` (one reading),
    /// `probe` (samples taken during the GEMM probe), or another label.
    pub kind: String,
    /// When the recording was made, ms since the Unix epoch; `None` = unknown.
    #[serde(default)]
    pub created_unix_ms: Option<u64>,
    /// What wrote it (`kraftwerk monitor 0.1.0`, `converted from …`).
    #[serde(default)]
    pub source: String,
    /// Free text.
    #[serde(default)]
    pub notes: Option<String>,
    /// The machine.
    #[serde(default)]
    pub machine: MachineInfo,
    /// Driver, NVML and CUDA versions.
    #[serde(default)]
    pub system: SystemInfo,
    /// Static facts per GPU, NVML index order.
    pub gpus: Vec<GpuStatic>,
    /// Connection of every pair of GPUs.
    #[serde(default)]
    pub topology: Topology,
    /// Sampling interval, ms; `None` for a single snapshot.
    #[serde(default)]
    pub interval_ms: Option<u64>,
    /// Readings, oldest first.
    #[serde(default)]
    pub snapshots: Vec<Snapshot>,
    /// Named sections written by other parts of Kraftwerk (e.g. `probe`), sorted by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// A recording that could not be saved or loaded.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading or writing the file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The text is not a valid recording; line and column as serde_json reports them (1-based).
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        /// File name or path.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file is a recording of a format this version does not read.
    #[error(
        "{file}: recording format {found} is not supported (this Kraftwerk reads formats 1 to {supported}); update Kraftwerk"
    )]
    UnsupportedFormat {
        /// File name or path.
        file: String,
        /// The `format` in the file.
        found: u64,
        /// The format this version reads.
        supported: u32,
    },
    /// Encoding to JSON failed.
    #[error("cannot encode recording: {0}")]
    Encode(String),
}

impl RecordError {
    fn parse(file: &str, e: &serde_json::Error) -> Self {
        let message = e.to_string();
        // serde_json appends " at line L column C"; the location is in the fields already.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        RecordError::Parse { file: file.to_owned(), line: e.line(), column: e.column(), message }
    }
}

#[derive(Deserialize)]
struct FormatOnly {
    format: u64,
}

impl Recording {
    /// An empty recording of this machine, made now.
    pub fn new(
        kind: impl Into<String>,
        source: impl Into<String>,
        system: SystemInfo,
        gpus: Vec<GpuStatic>,
        topology: Topology,
    ) -> Self {
        Recording {
            format: RECORDING_FORMAT,
            kind: kind.into(),
            created_unix_ms: Some(unix_ms_now()),
            source: source.into(),
            notes: None,
            machine: MachineInfo::current(),
            system,
            gpus,
            topology,
            interval_ms: None,
            snapshots: Vec::new(),
            extra: BTreeMap::new(),
        }
    }

    /// An empty recording of the live GPUs.
    pub fn of_live(kind: impl Into<String>, source: impl Into<String>, gpus: &NvmlGpus) -> Self {
        Recording::new(kind, source, gpus.system().clone(), gpus.gpus().to_vec(), gpus.topology().clone())
    }

    /// Parses a recording; `file` names it in errors.
    ///
    /// # Errors
    /// [`RecordError::Parse`] with line and column for bad JSON, wrong types or missing fields;
    /// [`RecordError::UnsupportedFormat`] for another `format`.
    pub fn from_json_str(file: &str, text: &str) -> Result<Self, RecordError> {
        let head: FormatOnly = serde_json::from_str(text).map_err(|e| RecordError::parse(file, &e))?;
        if !(u64::from(RECORDING_FORMAT_OLDEST)..=u64::from(RECORDING_FORMAT)).contains(&head.format) {
            return Err(RecordError::UnsupportedFormat {
                file: file.to_owned(),
                found: head.format,
                supported: RECORDING_FORMAT,
            });
        }
        serde_json::from_str(text).map_err(|e| RecordError::parse(file, &e))
    }

    /// Pretty JSON with a final newline.
    ///
    /// # Errors
    /// [`RecordError::Encode`] (non-finite numbers cannot be written as JSON).
    pub fn to_json_string(&self) -> Result<String, RecordError> {
        let mut s = serde_json::to_string_pretty(self).map_err(|e| RecordError::Encode(e.to_string()))?;
        s.push('\n');
        Ok(s)
    }

    /// Loads a recording file.
    ///
    /// # Errors
    /// I/O errors, and parse errors located to line and column.
    pub fn load(path: &Path) -> Result<Self, RecordError> {
        let text = fs::read_to_string(path).map_err(|source| RecordError::Io { path: path.to_owned(), source })?;
        Recording::from_json_str(&path.display().to_string(), &text)
    }

    /// Saves atomically: writes a temporary file in the same directory, flushes it to disk,
    /// then renames it over `path` (a crash leaves the old file or the new one, never half).
    ///
    /// # Errors
    /// Encoding or I/O errors.
    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        let text = self.to_json_string()?;
        write_atomic(path, text.as_bytes()).map_err(|source| RecordError::Io { path: path.to_owned(), source })
    }

    /// Time from the first snapshot to the last, ms.
    pub fn duration_ms(&self) -> u64 {
        match (self.snapshots.first(), self.snapshots.last()) {
            (Some(a), Some(b)) => b.elapsed_ms.saturating_sub(a.elapsed_ms),
            _ => 0,
        }
    }

    /// The position and facts of the GPU with this UUID.
    pub fn gpu_by_uuid(&self, uuid: &str) -> Option<(usize, &GpuStatic)> {
        self.gpus.iter().enumerate().find(|(_, g)| g.uuid.as_deref() == Some(uuid))
    }

    /// Every sample of the GPU at position `gpu`, oldest first.
    pub fn samples_of(&self, gpu: usize) -> impl Iterator<Item = &GpuSample> {
        self.snapshots.iter().filter_map(move |s| s.gpu(gpu))
    }

    /// The last sample of the GPU at position `gpu`.
    pub fn latest(&self, gpu: usize) -> Option<&GpuSample> {
        self.snapshots.iter().rev().find_map(|s| s.gpu(gpu))
    }

    /// All snapshots in a [`History`] that holds the whole recording.
    pub fn history(&self) -> History {
        let span = std::time::Duration::from_millis(self.duration_ms()).max(super::sampler::DEFAULT_HISTORY_WINDOW);
        let mut h = History::with_capacity(span, self.snapshots.len().max(1));
        for s in &self.snapshots {
            h.push(s);
        }
        h
    }

    /// A sampler source that plays the snapshots back.
    pub fn replay(&self, looping: bool) -> Replay {
        Replay::new(self.snapshots.clone(), looping)
    }

    /// Replaces identifying values: GPU UUIDs become `GPU-00000000-0000-4000-8000-00000000000N`
    /// (N = position + 1), the host name is removed. Bus ids, models and readings stay.
    pub fn anonymize(&mut self) {
        for (i, g) in self.gpus.iter_mut().enumerate() {
            if g.uuid.is_some() {
                g.uuid = Some(format!("GPU-00000000-0000-4000-8000-{:012}", i + 1));
            }
        }
        self.machine.hostname = None;
    }
}

pub use kraftwerk_catalog::files::write_atomic;

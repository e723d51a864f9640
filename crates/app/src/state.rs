//! The state: the document ([`AppState`]: catalog, build, file, report and estimates), the
//! persisted [`Settings`], and the [`Message`]s above the tabs. The widgets'
//! view state is apart, in [`super::view_state`]. No drawing here and no command handling (see
//! [`super::command`] and [`super::app`]).

use super::command::Tab;
use kraftwerk_catalog::Catalog;
use kraftwerk_core::check::{self, PartRef, Report, Severity};
use kraftwerk_core::estimate::power::{self, LoadState, PowerEstimate};
use kraftwerk_core::rig::Build;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most entries kept in File → Open recent.
pub const MAX_RECENT: usize = 10;

/// A message shown above the tabs until dismissed.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Error, warning or info.
    pub severity: Severity,
    /// Text (load errors carry `file:line:column`).
    pub text: String,
}

/// The document: the catalog, the build, where it lives, whether it changed, and the report
/// the checker made of it (recomputed after every change).
#[derive(Debug, Clone)]
pub struct AppState {
    /// Built-in and user parts.
    pub catalog: Catalog,
    /// The build being edited.
    pub build: Build,
    /// Its file, once opened or saved.
    pub path: Option<PathBuf>,
    /// The build as last loaded or saved.
    saved: Build,
    /// Whether `build` differs from the file.
    pub dirty: bool,
    /// `check::run(&build, &catalog)`.
    pub report: Report,
    /// Power estimates for idle, inference and training (full load); `report.power` is the
    /// one the checks used, at the workload's state ([`check::power_state`]).
    pub idle: PowerEstimate,
    /// Inference power estimate.
    pub inference: PowerEstimate,
    /// Training (full-load) power estimate.
    pub training: PowerEstimate,
    /// Worst severity of the findings naming each part.
    pub part_severity: BTreeMap<PartRef, Severity>,
    /// Bumped on every change (cache key for derived views).
    pub rev: u64,
}

impl AppState {
    /// A state for `build`, checked against `catalog`.
    pub fn new(catalog: Catalog, build: Build, path: Option<PathBuf>) -> Self {
        let report = check::run(&build, &catalog);
        let (idle, inference, training) = {
            let r = build.resolve(&catalog);
            (
                power::estimate(&r, LoadState::Idle),
                power::estimate(&r, LoadState::Inference),
                power::estimate(&r, LoadState::Training),
            )
        };
        let mut s = AppState {
            catalog,
            saved: build.clone(),
            build,
            path,
            dirty: false,
            report,
            idle,
            inference,
            training,
            part_severity: BTreeMap::new(),
            rev: 0,
        };
        s.part_severity = part_severity(&s.report);
        s
    }

    /// Re-runs the checker and the estimates after a change.
    pub fn recompute(&mut self) {
        self.report = check::run(&self.build, &self.catalog);
        let r = self.build.resolve(&self.catalog);
        self.idle = power::estimate(&r, LoadState::Idle);
        self.inference = power::estimate(&r, LoadState::Inference);
        self.training = power::estimate(&r, LoadState::Training);
        self.part_severity = part_severity(&self.report);
        self.dirty = self.build != self.saved;
        self.rev = self.rev.wrapping_add(1);
    }

    /// Replaces the document (New, Open).
    pub fn replace(&mut self, build: Build, path: Option<PathBuf>) {
        self.saved = build.clone();
        self.build = build;
        self.path = path;
        self.recompute();
    }

    /// Marks the current build as saved at `path`.
    pub fn mark_saved(&mut self, path: PathBuf) {
        self.saved = self.build.clone();
        self.path = Some(path);
        self.dirty = false;
    }

    /// Worst severity of the findings that name `part`.
    pub fn severity_of(&self, part: PartRef) -> Option<Severity> {
        self.part_severity.get(&part).copied()
    }

    /// Applies one edit to the build; returns whether anything changed. The history steps
    /// (undo, redo) are the app's and change nothing here.
    pub fn apply_edit(&mut self, action: super::command::EditAction) -> bool {
        let before = self.build.clone();
        super::command::edit_build(&mut self.build, &self.catalog, action);
        let changed = self.build != before;
        if changed {
            self.recompute();
        }
        changed
    }
}

/// Worst severity per part over the report's findings.
fn part_severity(report: &Report) -> BTreeMap<PartRef, Severity> {
    let mut m: BTreeMap<PartRef, Severity> = BTreeMap::new();
    for f in &report.findings {
        for p in &f.parts {
            let e = m.entry(*p).or_insert(f.severity);
            if f.severity > *e {
                *e = f.severity;
            }
        }
    }
    m
}

/// Settings kept between runs through eframe's persistence (plain values only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Recently opened or saved build files, newest first.
    pub recent: Vec<PathBuf>,
    /// Last tab shown.
    pub tab: Tab,
    /// Dark theme.
    pub dark: bool,
    /// Left build panel shown.
    pub show_build_panel: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { recent: Vec::new(), tab: Tab::Build, dark: true, show_build_panel: true }
    }
}

impl Settings {
    /// Puts `path` first in the recent list.
    pub fn push_recent(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }
}

//! The app: document state ([`AppState`]), the [`Action`]s widgets send, the one place they
//! are applied ([`KraftwerkApp::apply`]), files (open, save, recent, drag-and-drop, the
//! unsaved-changes prompt), the menu bar, the status bar, and the eframe glue.

use super::{build_panel, build_tab, catalog_tab, checks_tab, export, fit_tab, power_tab, stats, theme, widgets};
use crate::build::{self, Build, GpuPlacement, MemoryUse, NvlinkBridge, PsuUse, Riser, Site, StorageUse, Workload};
use crate::catalog::{self, Catalog, GpuFormFactor, HasId, PartsFile};
use crate::check::{self, PartRef, Report, Severity};
use crate::estimate::power::{self, LoadState, PowerEstimate};
use eframe::egui::{self, Key, KeyboardShortcut, Modifiers};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Most entries kept in File → Open recent.
pub const MAX_RECENT: usize = 10;
/// Most undo steps kept.
pub const MAX_UNDO: usize = 200;
/// Edits of the same kind closer together than this merge into one undo step (slider drags).
pub const UNDO_MERGE: Duration = Duration::from_millis(1200);

/// The central tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Tab {
    /// The drawn motherboard with its slots and GPUs.
    #[default]
    Build,
    /// Findings by severity with their rule docs.
    Checks,
    /// Power and thermal estimate.
    Power,
    /// LLM fit: memory per GPU, speed, cost.
    Fit,
    /// Every part of the catalog.
    Catalog,
    /// Live GPUs: NVML cards and plots, topology, probe, links, validation.
    Live,
}

impl Tab {
    /// Every tab in display order.
    pub const ALL: [Tab; 6] = [Tab::Build, Tab::Checks, Tab::Power, Tab::Fit, Tab::Catalog, Tab::Live];

    /// Tab title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Build => "Build",
            Tab::Checks => "Checks",
            Tab::Power => "Power & thermal",
            Tab::Fit => "LLM fit",
            Tab::Catalog => "Catalog",
            Tab::Live => "Live",
        }
    }
}

/// What a widget asks the app to do. Sent during drawing, applied after it by
/// [`KraftwerkApp::apply`]; edits re-run the checker.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Rename the build.
    SetName(String),
    /// Choose the CPU (`None` clears it).
    SetCpu(Option<String>),
    /// Choose the motherboard.
    SetMotherboard(Option<String>),
    /// Choose the CPU cooler.
    SetCooler(Option<String>),
    /// Choose the case.
    SetCase(Option<String>),
    /// Choose the memory kit (keeps the kit count).
    SetMemoryKit(Option<String>),
    /// Number of memory kits.
    SetMemoryKits(u8),
    /// Add an `NVMe` drive (placed in the first free M.2 socket).
    AddStorage(String),
    /// Remove drive by index.
    RemoveStorage(usize),
    /// Replace drive `index` with another model.
    SetStorageDrive(usize, String),
    /// Put drive `index` in an M.2 socket (`None`: not on the board).
    SetStorageSlot(usize, Option<String>),
    /// Add a GPU of this model in the next free slot (copying the last GPU's power limit and
    /// PSU when it is the same model).
    AddGpu(String),
    /// Remove GPU by index (bridges to it go; later indices shift).
    RemoveGpu(usize),
    /// Add or remove GPUs at the end until there are this many; new ones are of this model.
    SetGpuCount(usize, String),
    /// Change the model of one GPU (`Some(index)`) or of all of them (`None`).
    SetGpuModel(Option<usize>, String),
    /// Put GPU `index` at an expansion-slot position (`None`: unplaced).
    SetGpuSlot(usize, Option<u8>),
    /// Power limit of GPU `index`, W (`None`: the card's default).
    SetGpuPowerLimit(usize, Option<f64>),
    /// The same power limit on every GPU, W (`None`: defaults).
    SetAllPowerLimits(Option<f64>),
    /// Which PSU feeds GPU `index`.
    SetGpuPsu(usize, usize),
    /// Riser of GPU `index`.
    SetGpuRiser(usize, Option<Riser>),
    /// Place every GPU again, in order, in the first free slots that fit them.
    AutoPlaceGpus,
    /// Add a PSU.
    AddPsu(String),
    /// Remove PSU by index (its GPUs move to PSU 1).
    RemovePsu(usize),
    /// Replace PSU `index` with another model.
    SetPsuModel(usize, String),
    /// Circuit of PSU `index`.
    SetPsuCircuit(usize, usize),
    /// Make PSU `index` the one that feeds the board and CPU.
    SetSystemPsu(usize),
    /// Add an `NVLink` bridge between two GPUs with this slot spacing.
    AddBridge(usize, usize, u8),
    /// Remove bridge by index.
    RemoveBridge(usize),
    /// Replace the site (mains, circuit, price, ...).
    SetSite(Site),
    /// Replace the workload.
    SetWorkload(Option<Workload>),
    /// Add parts defined in the build file (custom parts); same ids replace earlier ones.
    AddInlineParts(PartsFile),
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Outline these parts everywhere (a clicked finding).
    Highlight(Vec<PartRef>),
    /// Show a tab.
    SelectTab(Tab),
    /// Start a new empty build (asks first when there are unsaved changes).
    New,
    /// Show the open dialog (asks first when there are unsaved changes).
    OpenDialog,
    /// Open this build file (asks first when there are unsaved changes).
    Open(PathBuf),
    /// Save to the current file (asks for one when there is none).
    Save,
    /// Show the save dialog.
    SaveAsDialog,
    /// Save to this file and make it the current one.
    SaveAs(PathBuf),
    /// Show the export dialog for the Markdown report.
    ExportDialog,
    /// Write the Markdown report to this file.
    Export(PathBuf),
    /// Close the window (asks first when there are unsaved changes).
    Quit,
    /// Switch between dark and light.
    ToggleDark,
    /// Show or hide the left build panel.
    ToggleBuildPanel,
    /// Show or hide the rule docs window.
    ToggleRuleDocs,
    /// Dismiss message by index.
    DismissMessage(usize),
}

impl Action {
    /// Whether the action edits the build (and so is undoable and re-runs the checker).
    pub fn is_edit(&self) -> bool {
        !matches!(
            self,
            Action::Undo
                | Action::Redo
                | Action::Highlight(_)
                | Action::SelectTab(_)
                | Action::New
                | Action::OpenDialog
                | Action::Open(_)
                | Action::Save
                | Action::SaveAsDialog
                | Action::SaveAs(_)
                | Action::ExportDialog
                | Action::Export(_)
                | Action::Quit
                | Action::ToggleDark
                | Action::ToggleBuildPanel
                | Action::ToggleRuleDocs
                | Action::DismissMessage(_)
        )
    }

    /// Key under which quick repeats of this edit merge into one undo step (slider drags,
    /// typing), `None` for edits that always get their own step.
    fn merge_key(&self) -> Option<(u8, usize)> {
        match self {
            Action::SetName(_) => Some((1, 0)),
            Action::SetGpuPowerLimit(i, _) => Some((2, *i)),
            Action::SetAllPowerLimits(_) => Some((3, 0)),
            Action::SetSite(_) => Some((4, 0)),
            Action::SetMemoryKits(_) => Some((5, 0)),
            Action::SetWorkload(_) => Some((6, 0)),
            _ => None,
        }
    }
}

/// What waits for the unsaved-changes prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// Start a new build.
    New,
    /// Open this file.
    Open(PathBuf),
    /// Show the open dialog.
    OpenDialog,
    /// Close the window.
    Quit,
}

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
    /// Power estimates for idle and inference (training is `report.power`).
    pub idle: PowerEstimate,
    /// Inference power estimate.
    pub inference: PowerEstimate,
    /// Worst severity of the findings naming each part.
    pub part_severity: BTreeMap<PartRef, Severity>,
    /// Bumped on every change (cache key for derived views).
    pub rev: u64,
}

impl AppState {
    /// A state for `build`, checked against `catalog`.
    pub fn new(catalog: Catalog, build: Build, path: Option<PathBuf>) -> Self {
        let report = check::run(&build, &catalog);
        let (idle, inference) = {
            let r = build.resolve(&catalog);
            (power::estimate(&r, LoadState::Idle), power::estimate(&r, LoadState::Inference))
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

    /// Applies one edit to the build; returns whether anything changed. Non-edit actions are
    /// ignored here.
    pub fn apply_edit(&mut self, action: Action) -> bool {
        let before = self.build.clone();
        edit_build(&mut self.build, &self.catalog, action);
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

/// Parts of one kind as the build sees them: inline parts first, then catalog parts whose id
/// no inline part overrides.
pub fn merged<'a, T: HasId>(inline: &'a [T], catalog: &'a [T]) -> Vec<&'a T> {
    let mut v: Vec<&T> = inline.iter().collect();
    v.extend(catalog.iter().filter(|c| !inline.iter().any(|i| i.id() == c.id())));
    v
}

/// Slot width and edge lanes of GPU model `id` (1 and 16 when unknown).
fn gpu_shape(build: &Build, catalog: &Catalog, id: &str) -> (u8, u8, bool) {
    merged(&build.parts.gpus, &catalog.gpus)
        .into_iter()
        .find(|g| g.id == id)
        .map_or((1, 16, false), |g| (g.width_slots.max(1), g.pcie_lanes, g.form_factor == GpuFormFactor::Sxm))
}

/// The first slot position where a card `width` slots thick with an x`lanes` edge fits without
/// touching the cards already placed (ignoring GPU `skip`); CPU-wired slots before chipset ones.
pub fn free_slot(build: &Build, catalog: &Catalog, width: u8, lanes: u8, skip: Option<usize>) -> Option<u8> {
    let r = build.resolve(catalog);
    let board = r.board?;
    let taken: Vec<(u8, u8)> = build
        .gpus
        .iter()
        .zip(&r.gpus)
        .enumerate()
        .filter(|(j, _)| Some(*j) != skip)
        .filter_map(|(_, (p, g))| {
            let pos = p.slot?;
            let w = if p.riser.is_some() { 1 } else { g.map_or(1, |g| g.width_slots.max(1)) };
            Some((pos, pos.saturating_add(w - 1)))
        })
        .collect();
    let fits = |pos: u8| {
        let end = pos.saturating_add(width.max(1) - 1);
        taken.iter().all(|&(a, b)| end < a || pos > b)
    };
    let mut slots: Vec<&catalog::PcieSlot> =
        board.pcie_slots.iter().filter(|s| s.physical_lanes >= lanes && s.electrical_lanes > 0).collect();
    slots.sort_by_key(|s| (s.lane_source == catalog::LaneSource::Chipset, s.position));
    slots.into_iter().map(|s| s.position).find(|&p| fits(p))
}

/// Applies one edit action to `build` (non-edit actions do nothing).
pub(crate) fn edit_build(b: &mut Build, catalog: &Catalog, action: Action) {
    match action {
        Action::SetName(n) => b.name = n,
        Action::SetCpu(id) => b.cpu = id,
        Action::SetMotherboard(id) => b.motherboard = id,
        Action::SetCooler(id) => b.cooler = id,
        Action::SetCase(id) => b.case = id,
        Action::SetMemoryKit(id) => {
            b.memory = id.map(|kit| MemoryUse { kit, kits: b.memory.as_ref().map_or(1, |m| m.kits) });
        }
        Action::SetMemoryKits(n) => {
            if let Some(m) = &mut b.memory {
                m.kits = n.max(1);
            }
        }
        Action::AddStorage(drive) => {
            let r = b.resolve(catalog);
            let used: Vec<&str> = b.storage.iter().filter_map(|s| s.m2_slot.as_deref()).collect();
            let m2_slot = r
                .board
                .and_then(|bd| bd.m2_slots.iter().find(|m| !used.contains(&m.name.as_str())).map(|m| m.name.clone()));
            b.storage.push(StorageUse { drive, m2_slot });
        }
        Action::RemoveStorage(i) if i < b.storage.len() => {
            b.storage.remove(i);
        }
        Action::SetStorageDrive(i, drive) => {
            if let Some(s) = b.storage.get_mut(i) {
                s.drive = drive;
            }
        }
        Action::SetStorageSlot(i, slot) => {
            if let Some(s) = b.storage.get_mut(i) {
                s.m2_slot = slot;
            }
        }
        Action::AddGpu(id) => add_gpu(b, catalog, id),
        Action::RemoveGpu(i) => remove_gpu(b, i),
        Action::SetGpuCount(n, id) => {
            let n = n.min(64);
            while b.gpus.len() > n {
                remove_gpu(b, b.gpus.len() - 1);
            }
            while b.gpus.len() < n {
                add_gpu(b, catalog, id.clone());
            }
        }
        Action::SetGpuModel(which, id) => {
            for (i, g) in b.gpus.iter_mut().enumerate() {
                if which.is_none_or(|w| w == i) {
                    g.gpu.clone_from(&id);
                    g.power_limit_w = None;
                }
            }
        }
        Action::SetGpuSlot(i, slot) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.slot = slot;
            }
        }
        Action::SetGpuPowerLimit(i, w) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.power_limit_w = w.map(f64::round);
            }
        }
        Action::SetAllPowerLimits(w) => {
            for g in &mut b.gpus {
                g.power_limit_w = w.map(f64::round);
            }
        }
        Action::SetGpuPsu(i, psu) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.psu = psu;
            }
        }
        Action::SetGpuRiser(i, riser) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.riser = riser;
            }
        }
        Action::AutoPlaceGpus => {
            for g in &mut b.gpus {
                g.slot = None;
            }
            for i in 0..b.gpus.len() {
                let (w, lanes, sxm) = gpu_shape(b, catalog, &b.gpus[i].gpu);
                if sxm {
                    continue;
                }
                let w = if b.gpus[i].riser.is_some() { 1 } else { w };
                let slot = free_slot(b, catalog, w, lanes, Some(i));
                b.gpus[i].slot = slot;
            }
        }
        Action::AddPsu(id) => {
            let feeds_system = if b.psus.is_empty() { None } else { Some(false) };
            b.psus.push(PsuUse { psu: id, feeds_system, circuit: 0 });
        }
        Action::RemovePsu(i) if i < b.psus.len() => {
            b.psus.remove(i);
            for g in &mut b.gpus {
                if g.psu == i {
                    g.psu = 0;
                } else if g.psu > i {
                    g.psu -= 1;
                }
            }
            if !b.psus.is_empty() && !b.psus.iter().any(|p| p.feeds_system == Some(true)) {
                for (k, p) in b.psus.iter_mut().enumerate() {
                    p.feeds_system = if k == 0 { None } else { Some(false) };
                }
            }
        }
        Action::SetPsuModel(i, id) => {
            if let Some(p) = b.psus.get_mut(i) {
                p.psu = id;
            }
        }
        Action::SetPsuCircuit(i, c) => {
            if let Some(p) = b.psus.get_mut(i) {
                p.circuit = c;
                if c + 1 > b.site.circuits {
                    b.site.circuits = c + 1;
                }
            }
        }
        Action::SetSystemPsu(i) if i < b.psus.len() => {
            for (k, p) in b.psus.iter_mut().enumerate() {
                p.feeds_system = Some(k == i);
            }
        }
        Action::AddBridge(x, y, spacing_slots) => b.nvlink.push(NvlinkBridge { gpus: (x, y), spacing_slots }),
        Action::RemoveBridge(i) if i < b.nvlink.len() => {
            b.nvlink.remove(i);
        }
        Action::SetSite(site) => b.site = site,
        Action::SetWorkload(w) => b.workload = w,
        Action::AddInlineParts(file) => {
            let old = std::mem::take(&mut b.parts);
            let mut cat = Catalog::from(old);
            cat.merge(file, &catalog::Origin::Unknown);
            b.parts = cat.into_parts_file();
        }
        _ => {}
    }
}

fn add_gpu(b: &mut Build, catalog: &Catalog, id: String) {
    let (w, lanes, sxm) = gpu_shape(b, catalog, &id);
    let last = b.gpus.last().filter(|g| g.gpu == id);
    let power_limit_w = last.and_then(|g| g.power_limit_w);
    let psu = last.map_or(0, |g| g.psu);
    let slot = if sxm { None } else { free_slot(b, catalog, w, lanes, None) };
    b.gpus.push(GpuPlacement { gpu: id, slot, power_limit_w, riser: None, psu, cable: None });
}

fn remove_gpu(b: &mut Build, i: usize) {
    if i >= b.gpus.len() {
        return;
    }
    b.gpus.remove(i);
    b.nvlink.retain(|br| br.gpus.0 != i && br.gpus.1 != i);
    for br in &mut b.nvlink {
        if br.gpus.0 > i {
            br.gpus.0 -= 1;
        }
        if br.gpus.1 > i {
            br.gpus.1 -= 1;
        }
    }
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

/// View state of the widgets that is not part of the document: tab, highlight, table sort,
/// editors, caches. Nothing here is saved in the build file.
#[derive(Debug, Default)]
pub struct ViewState {
    /// Shown tab.
    pub tab: Tab,
    /// Parts outlined (from a clicked finding).
    pub highlight: Vec<PartRef>,
    /// Show the rule docs window.
    pub show_rule_docs: bool,
    /// Rule docs window filter.
    pub rule_filter: String,
    /// One power limit for all GPUs.
    pub link_limits: bool,
    /// Catalog tab state.
    pub catalog: catalog_tab::CatalogView,
    /// LLM-fit tab state.
    pub fit: fit_tab::FitView,
    /// Cached picker entries, per picker, for one state revision.
    pub picks: widgets::PickCache,
    /// Name field being edited.
    pub name_edit: Option<String>,
}

impl ViewState {
    /// Whether `part` is outlined.
    pub fn is_highlighted(&self, part: PartRef) -> bool {
        self.highlight.contains(&part)
    }
}

/// The eframe app: the document, the view state, and the pending actions.
pub struct KraftwerkApp {
    /// The document.
    pub state: AppState,
    /// View state.
    pub view: ViewState,
    /// Persisted settings.
    pub settings: Settings,
    /// Messages above the tabs.
    pub messages: Vec<Message>,
    actions: Vec<Action>,
    pending: Option<Pending>,
    allow_close: bool,
    undo: Vec<Build>,
    redo: Vec<Build>,
    last_edit: Option<((u8, usize), Instant)>,
    title: String,
    stats: Option<stats::FrameStats>,
    native: bool,
    theme_applied: Option<bool>,
    /// Live tab: NVML sampler, recording, probe and links jobs (runtime handles, not persisted).
    pub live: super::live_state::LiveView,
}

impl KraftwerkApp {
    /// The app as eframe starts it: settings from storage, the catalog with the user's parts,
    /// and the build at `path` (its load error shown in the window if it fails).
    pub fn new(cc: &eframe::CreationContext<'_>, path: Option<PathBuf>, started: Instant) -> Self {
        let settings: Settings = cc.storage.and_then(|s| eframe::get_value(s, eframe::APP_KEY)).unwrap_or_default();
        let mut messages = Vec::new();
        let dir = catalog::user_parts_dir();
        let catalog = match catalog::load_with_user_dir(dir.as_deref()) {
            Ok((c, problems)) => {
                for p in problems {
                    let severity =
                        if matches!(p, catalog::LoadProblem::BadFile(_)) { Severity::Warning } else { Severity::Info };
                    messages.push(Message { severity, text: format!("user parts: {p}") });
                }
                c
            }
            Err(e) => {
                messages.push(Message { severity: Severity::Error, text: format!("built-in catalog: {e}") });
                Catalog::default()
            }
        };
        let mut app = Self::with_parts(catalog, Build::default(), settings);
        app.messages.extend(messages);
        app.native = true;
        app.live.native = true;
        if stats::enabled() {
            app.stats = Some(stats::FrameStats::new(started));
        }
        if let Some(path) = path {
            app.open_path(&path);
        }
        app
    }

    /// An app for tests: no storage, no native dialogs, this catalog and build.
    pub fn new_for_test(catalog: Catalog, build: Build) -> Self {
        Self::with_parts(catalog, build, Settings::default())
    }

    fn with_parts(catalog: Catalog, build: Build, settings: Settings) -> Self {
        let view = ViewState { tab: settings.tab, ..ViewState::default() };
        KraftwerkApp {
            state: AppState::new(catalog, build, None),
            view,
            settings,
            messages: Vec::new(),
            actions: Vec::new(),
            pending: None,
            allow_close: false,
            undo: Vec::new(),
            redo: Vec::new(),
            last_edit: None,
            title: String::new(),
            stats: None,
            native: false,
            theme_applied: None,
            live: super::live_state::LiveView::new(false),
        }
    }

    /// The document.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Queues an action, applied at the end of the next frame (as if a widget sent it).
    pub fn send(&mut self, action: Action) {
        self.actions.push(action);
    }

    /// What waits for the unsaved-changes prompt, if it is shown.
    pub fn pending(&self) -> Option<&Pending> {
        self.pending.as_ref()
    }

    /// One whole frame for a harness without eframe: input handling, drawing, actions.
    pub fn update_ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.logic_inner(&ctx, None);
        self.ui_inner(ui);
    }

    /// Input that is not a widget's: shortcuts, dropped files, the window's close button.
    fn logic_inner(&mut self, ctx: &egui::Context, _eframe_cpu: Option<f32>) {
        // Keep draining the live sampler and jobs while another tab is shown.
        self.live.poll(ctx);
        if self.theme_applied != Some(self.settings.dark) {
            theme::apply(ctx, self.settings.dark);
            self.theme_applied = Some(self.settings.dark);
        }
        let shortcut = |m: Modifiers, k: Key| ctx.input_mut(|i| i.consume_shortcut(&KeyboardShortcut::new(m, k)));
        if shortcut(Modifiers::COMMAND | Modifiers::SHIFT, Key::S) {
            self.actions.push(Action::SaveAsDialog);
        }
        if shortcut(Modifiers::COMMAND, Key::S) {
            self.actions.push(Action::Save);
        }
        if shortcut(Modifiers::COMMAND, Key::O) {
            self.actions.push(Action::OpenDialog);
        }
        if shortcut(Modifiers::COMMAND, Key::N) {
            self.actions.push(Action::New);
        }
        if shortcut(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z) || shortcut(Modifiers::COMMAND, Key::Y) {
            self.actions.push(Action::Redo);
        }
        if shortcut(Modifiers::COMMAND, Key::Z) {
            self.actions.push(Action::Undo);
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).collect());
        if !dropped.is_empty() {
            match dropped.into_iter().find(|p| is_build_file(p)) {
                Some(p) => self.actions.push(Action::Open(p)),
                None => self.messages.push(Message {
                    severity: Severity::Warning,
                    text: "Only build files (*.rig.ron) can be dropped here.".into(),
                }),
            }
        }
        if ctx.input(|i| i.viewport().close_requested()) && self.state.dirty && !self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Quit);
        }
    }

    fn ui_inner(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let mut out = std::mem::take(&mut self.actions);
        self.draw(ui, &mut out);
        let had = !out.is_empty();
        for a in out {
            self.apply(&ctx, a);
        }
        if had {
            ctx.request_repaint();
        }
        let title = format!("{}{} — Kraftwerk", self.state.build.name, if self.state.dirty { " •" } else { "" });
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        self.settings.tab = self.view.tab;
    }

    /// Applies one action: the single place where the document and the app change.
    pub fn apply(&mut self, ctx: &egui::Context, action: Action) {
        if action.is_edit() {
            let before = self.state.build.clone();
            let key = action.merge_key();
            if self.state.apply_edit(action) {
                let merge = match (key, self.last_edit) {
                    (Some(k), Some((last, at))) => k == last && at.elapsed() < UNDO_MERGE,
                    _ => false,
                };
                if !merge {
                    self.undo.push(before);
                    if self.undo.len() > MAX_UNDO {
                        self.undo.remove(0);
                    }
                }
                self.redo.clear();
                self.last_edit = key.map(|k| (k, Instant::now()));
                self.view.name_edit = None;
            }
            return;
        }
        match action {
            Action::Undo => {
                if let Some(prev) = self.undo.pop() {
                    let cur = std::mem::replace(&mut self.state.build, prev);
                    self.redo.push(cur);
                    self.state.recompute();
                    self.last_edit = None;
                    self.view.name_edit = None;
                }
            }
            Action::Redo => {
                if let Some(next) = self.redo.pop() {
                    let cur = std::mem::replace(&mut self.state.build, next);
                    self.undo.push(cur);
                    self.state.recompute();
                    self.last_edit = None;
                    self.view.name_edit = None;
                }
            }
            Action::Highlight(parts) => {
                ctx.data_mut(|d| d.insert_temp(theme::scroll_flag_id(), !parts.is_empty()));
                self.view.highlight = parts;
            }
            Action::SelectTab(t) => self.view.tab = t,
            Action::New => self.guard(ctx, Pending::New),
            Action::OpenDialog => self.guard(ctx, Pending::OpenDialog),
            Action::Open(p) => self.guard(ctx, Pending::Open(p)),
            Action::Save => {
                self.save();
            }
            Action::SaveAsDialog => {
                self.save_as_dialog();
            }
            Action::SaveAs(p) => {
                self.save_to(&p);
            }
            Action::ExportDialog if self.native => {
                let name = format!("{}.md", file_stem(&self.state.build.name));
                if let Some(p) = rfd::FileDialog::new().set_file_name(name).add_filter("Markdown", &["md"]).save_file()
                {
                    self.export_to(&p);
                }
            }
            Action::Export(p) => self.export_to(&p),
            Action::Quit => self.guard(ctx, Pending::Quit),
            Action::ToggleDark => self.settings.dark = !self.settings.dark,
            Action::ToggleBuildPanel => self.settings.show_build_panel = !self.settings.show_build_panel,
            Action::ToggleRuleDocs => self.view.show_rule_docs = !self.view.show_rule_docs,
            Action::DismissMessage(i) if i < self.messages.len() => {
                self.messages.remove(i);
            }
            _ => {}
        }
    }

    /// Runs `p` now, or asks first when the build has unsaved changes.
    fn guard(&mut self, ctx: &egui::Context, p: Pending) {
        if self.state.dirty {
            self.pending = Some(p);
        } else {
            self.continue_pending(ctx, p);
        }
    }

    fn continue_pending(&mut self, ctx: &egui::Context, p: Pending) {
        match p {
            Pending::New => {
                self.state.replace(Build::default(), None);
                self.reset_history();
            }
            Pending::Open(path) => self.open_path(&path),
            Pending::OpenDialog => {
                if self.native {
                    let mut dialog = rfd::FileDialog::new().add_filter("Kraftwerk build", &["ron"]);
                    if let Some(dir) = self.state.path.as_ref().and_then(|p| p.parent()) {
                        dialog = dialog.set_directory(dir);
                    }
                    if let Some(path) = dialog.pick_file() {
                        self.open_path(&path);
                    }
                }
            }
            Pending::Quit => {
                self.allow_close = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    fn reset_history(&mut self) {
        self.undo.clear();
        self.redo.clear();
        self.last_edit = None;
        self.view.highlight.clear();
        self.view.name_edit = None;
    }

    /// Opens a build file. On failure the current build stays and the error (with
    /// `file:line:column`) is shown.
    pub fn open_path(&mut self, path: &Path) {
        match build::load(path, Some(&self.state.catalog)) {
            Ok(b) => {
                self.state.replace(b, Some(path.to_path_buf()));
                self.reset_history();
                self.settings.push_recent(path);
                self.messages.retain(|m| m.severity != Severity::Error);
            }
            Err(e) => self.messages.push(Message { severity: Severity::Error, text: format!("Could not open {e}") }),
        }
    }

    /// Saves to the current file, or asks for one. Returns whether it saved.
    fn save(&mut self) -> bool {
        match self.state.path.clone() {
            Some(p) => self.save_to(&p),
            None => self.save_as_dialog(),
        }
    }

    fn save_as_dialog(&mut self) -> bool {
        if !self.native {
            return false;
        }
        let name = format!("{}.rig.ron", file_stem(&self.state.build.name));
        let mut dialog = rfd::FileDialog::new().set_file_name(name).add_filter("Kraftwerk build", &["ron"]);
        if let Some(dir) = self.state.path.as_ref().and_then(|p| p.parent()) {
            dialog = dialog.set_directory(dir);
        }
        match dialog.save_file() {
            Some(p) => self.save_to(&with_build_extension(p)),
            None => false,
        }
    }

    /// Saves atomically to `path` and makes it the current file. Returns whether it saved.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match build::save(path, &self.state.build) {
            Ok(()) => {
                self.state.mark_saved(path.to_path_buf());
                self.settings.push_recent(path);
                true
            }
            Err(e) => {
                self.messages.push(Message { severity: Severity::Error, text: format!("Could not save {e}") });
                false
            }
        }
    }

    fn export_to(&mut self, path: &Path) {
        let text = export::markdown(&self.state.build, &self.state.catalog, &self.state.report);
        if let Err(e) = std::fs::write(path, text) {
            self.messages.push(Message {
                severity: Severity::Error,
                text: format!("Could not export to {}: {e}", path.display()),
            });
        } else {
            self.messages
                .push(Message { severity: Severity::Info, text: format!("Report exported to {}", path.display()) });
        }
    }

    /// Draws the whole window; widgets push actions into `out`.
    fn draw(&mut self, ui: &mut egui::Ui, out: &mut Vec<Action>) {
        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui, out));
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        if self.settings.show_build_panel {
            egui::Panel::left("build-panel")
                .default_size(theme::BUILD_PANEL_WIDTH)
                .min_size(300.0)
                .max_size(560.0)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().id_salt("build-panel-scroll").show(ui, |ui| {
                        build_panel::show(ui, &self.state, &mut self.view, out);
                    });
                });
            ui.ctx().data_mut(|d| d.remove::<bool>(theme::scroll_flag_id()));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            self.messages_ui(ui, out);
            ui.horizontal(|ui| {
                for t in Tab::ALL {
                    let mut label = egui::RichText::new(t.title());
                    if t == Tab::Checks {
                        label = egui::RichText::new(format!("{} ({})", t.title(), self.state.report.findings.len()));
                    }
                    if ui.selectable_label(self.view.tab == t, label.size(15.0)).clicked() {
                        out.push(Action::SelectTab(t));
                    }
                }
            });
            ui.separator();
            match self.view.tab {
                Tab::Build => build_tab::show(ui, &self.state, &mut self.view, out),
                Tab::Checks => checks_tab::show(ui, &self.state, &mut self.view, out),
                Tab::Power => power_tab::show(ui, &self.state, &mut self.view, out),
                Tab::Fit => fit_tab::show(ui, &self.state, &mut self.view, out),
                Tab::Catalog => catalog_tab::show(ui, &self.state, &mut self.view, out),
                Tab::Live => super::live_tab::show(ui, &self.state, &mut self.live),
            }
        });
        if self.view.show_rule_docs {
            let mut open = true;
            egui::Window::new("Rule docs").open(&mut open).default_size([560.0, 600.0]).show(ui.ctx(), |ui| {
                checks_tab::rule_docs(ui, &mut self.view.rule_filter);
            });
            if !open {
                out.push(Action::ToggleRuleDocs);
            }
        }
        self.prompt(ui.ctx(), out);
        drop_overlay(ui.ctx());
    }

    fn menu_bar(&mut self, ui: &mut egui::Ui, out: &mut Vec<Action>) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.add(egui::Button::new("New").shortcut_text("Ctrl+N")).clicked() {
                    out.push(Action::New);
                }
                if ui.add(egui::Button::new("Open…").shortcut_text("Ctrl+O")).clicked() {
                    out.push(Action::OpenDialog);
                }
                ui.menu_button("Open recent", |ui| {
                    if self.settings.recent.is_empty() {
                        ui.weak("No recent files");
                    }
                    for p in &self.settings.recent {
                        let name =
                            p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned());
                        if ui.button(name).on_hover_text(p.display().to_string()).clicked() {
                            out.push(Action::Open(p.clone()));
                        }
                    }
                });
                ui.separator();
                if ui.add(egui::Button::new("Save").shortcut_text("Ctrl+S")).clicked() {
                    out.push(Action::Save);
                }
                if ui.add(egui::Button::new("Save As…").shortcut_text("Ctrl+Shift+S")).clicked() {
                    out.push(Action::SaveAsDialog);
                }
                if ui.button("Export report as Markdown…").clicked() {
                    out.push(Action::ExportDialog);
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    out.push(Action::Quit);
                }
            });
            ui.menu_button("Edit", |ui| {
                if ui.add_enabled(!self.undo.is_empty(), egui::Button::new("Undo").shortcut_text("Ctrl+Z")).clicked() {
                    out.push(Action::Undo);
                }
                if ui
                    .add_enabled(!self.redo.is_empty(), egui::Button::new("Redo").shortcut_text("Ctrl+Shift+Z"))
                    .clicked()
                {
                    out.push(Action::Redo);
                }
                ui.separator();
                if ui.button("Auto-place GPUs").clicked() {
                    out.push(Action::AutoPlaceGpus);
                }
            });
            ui.menu_button("View", |ui| {
                for t in Tab::ALL {
                    if ui.selectable_label(self.view.tab == t, t.title()).clicked() {
                        out.push(Action::SelectTab(t));
                    }
                }
                ui.separator();
                if ui.checkbox(&mut self.settings.show_build_panel.clone(), "Build panel").clicked() {
                    out.push(Action::ToggleBuildPanel);
                }
                if ui.checkbox(&mut self.settings.dark.clone(), "Dark theme").clicked() {
                    out.push(Action::ToggleDark);
                }
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Rule docs").clicked() {
                    out.push(Action::ToggleRuleDocs);
                }
                ui.separator();
                ui.label(format!("Kraftwerk {}", env!("CARGO_PKG_VERSION")));
                ui.weak("Plan, check and validate multi-GPU LLM machines.");
                ui.weak("CLI twin: kraftwerk check BUILD.rig.ron");
            });
        });
    }

    fn status_bar(&self, ui: &mut egui::Ui) {
        let r = &self.state.report;
        ui.horizontal(|ui| {
            theme::badge(ui, &r.verdict.to_string(), theme::verdict(r.verdict))
                .on_hover_text("Verdict of the same checker `kraftwerk check` runs");
            ui.label(format!(
                "{} error{} · {} warning{} · {} note{}",
                r.errors,
                plural(r.errors),
                r.warnings,
                plural(r.warnings),
                r.infos,
                plural(r.infos)
            ));
            ui.separator();
            ui.label(format!(
                "full load {:.0} W DC · {:.0} W at the wall · {:.1} A at {:.0} V",
                r.power.total_dc_w,
                r.power.total_wall_w,
                r.power.total_wall_w / self.state.build.site.mains_v.max(1.0),
                self.state.build.site.mains_v
            ));
            ui.separator();
            let file = self.state.path.as_ref().map_or_else(|| "not saved yet".to_owned(), |p| p.display().to_string());
            ui.weak(file);
            if self.state.dirty {
                theme::dot(ui, theme::WARNING, true);
                ui.colored_label(theme::WARNING, "unsaved changes");
            }
        });
    }

    fn messages_ui(&self, ui: &mut egui::Ui, out: &mut Vec<Action>) {
        for (i, m) in self.messages.iter().enumerate() {
            let color = theme::severity(m.severity);
            egui::Frame::new()
                .stroke(egui::Stroke::new(1.5, color))
                .corner_radius(theme::radius())
                .inner_margin(egui::Margin::same(6))
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        theme::dot(ui, color, true);
                        ui.add(egui::Label::new(egui::RichText::new(&m.text).monospace()).wrap());
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            if ui.small_button("Dismiss").clicked() {
                                out.push(Action::DismissMessage(i));
                            }
                        });
                    });
                });
            ui.add_space(theme::SMALL_GAP);
        }
    }

    /// The unsaved-changes prompt.
    fn prompt(&mut self, ctx: &egui::Context, out: &mut Vec<Action>) {
        let Some(p) = self.pending.clone() else { return };
        let what = match &p {
            Pending::New => "start a new build",
            Pending::Open(_) | Pending::OpenDialog => "open another build",
            Pending::Quit => "quit",
        };
        let mut choice = None;
        let resp = egui::Modal::new(egui::Id::unique("unsaved-prompt")).show(ctx, |ui| {
            ui.set_max_width(420.0);
            ui.heading("Unsaved changes");
            ui.label(format!(
                "“{}” has changes that are not saved. Save them before you {what}?",
                self.state.build.name
            ));
            ui.add_space(theme::SECTION_GAP);
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    choice = Some(0);
                }
                if ui.button("Don't save").clicked() {
                    choice = Some(1);
                }
                if ui.button("Cancel").clicked() {
                    choice = Some(2);
                }
            });
        });
        if resp.should_close() && choice.is_none() {
            choice = Some(2);
        }
        match choice {
            Some(0) => {
                self.pending = None;
                if self.save() {
                    self.continue_pending(ctx, p);
                }
            }
            Some(1) => {
                self.pending = None;
                self.continue_pending(ctx, p);
            }
            Some(_) => {
                self.pending = None;
                if p == Pending::Quit {
                    self.allow_close = false;
                }
            }
            None => {}
        }
        let _ = out;
    }
}

fn drop_overlay(ctx: &egui::Context) {
    let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
    if !hovering {
        return;
    }
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::unique("drop-overlay")));
    let rect = ctx.content_rect();
    painter.rect_filled(rect, 0.0, egui::Color32::from_black_alpha(180));
    painter.text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        "Drop a *.rig.ron build file to open it",
        egui::FontId::proportional(24.0),
        egui::Color32::WHITE,
    );
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Whether a path names a build file (`*.rig.ron`, or any `*.ron`).
pub fn is_build_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron"))
}

/// `path` with `.rig.ron` appended unless it already ends in `.ron`.
pub fn with_build_extension(path: PathBuf) -> PathBuf {
    if is_build_file(&path) {
        path
    } else {
        let mut s = path.into_os_string();
        s.push(".rig.ron");
        PathBuf::from(s)
    }
}

/// A file-name stem from a build name: lower-case, spaces and odd characters as dashes.
pub fn file_stem(name: &str) -> String {
    let mut s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s = s.trim_matches('-').to_owned();
    if s.is_empty() { "build".into() } else { s }
}

impl eframe::App for KraftwerkApp {
    fn logic(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        let t0 = Instant::now();
        self.logic_inner(ctx, frame.info().cpu_usage);
        if let Some(s) = &mut self.stats {
            s.logic_time = t0.elapsed();
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let t0 = Instant::now();
        self.ui_inner(ui);
        if let Some(s) = &mut self.stats {
            let logic = s.logic_time;
            s.record(t0.elapsed() + logic, frame.info().cpu_usage);
            // Measure steady-state frames, not only those input happens to trigger.
            ui.ctx().request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat() -> Catalog {
        catalog::builtin().expect("built-in catalog")
    }

    fn board_build() -> Build {
        Build {
            cpu: Some("amd-threadripper-pro-7985wx".into()),
            motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
            psus: vec![PsuUse { psu: "seasonic-prime-tx-1600-atx31".into(), feeds_system: None, circuit: 0 }],
            ..Build::default()
        }
    }

    #[test]
    fn three_slot_cards_are_placed_one_per_three_positions() {
        let c = cat();
        let mut b = board_build();
        for _ in 0..4 {
            edit_build(&mut b, &c, Action::AddGpu("nvidia-geforce-rtx-4090".into()));
        }
        let slots: Vec<Option<u8>> = b.gpus.iter().map(|g| g.slot).collect();
        assert_eq!(slots, vec![Some(1), Some(4), Some(7), None], "the fourth 3-slot card has no free slot left");
    }

    #[test]
    fn removing_a_psu_moves_its_gpus_and_keeps_a_system_psu() {
        let c = cat();
        let mut b = board_build();
        edit_build(&mut b, &c, Action::AddPsu("seasonic-prime-tx-1600-atx31".into()));
        edit_build(&mut b, &c, Action::AddGpu("nvidia-geforce-rtx-4090".into()));
        edit_build(&mut b, &c, Action::SetGpuPsu(0, 1));
        edit_build(&mut b, &c, Action::SetSystemPsu(1));
        edit_build(&mut b, &c, Action::RemovePsu(1));
        assert_eq!(b.psus.len(), 1);
        assert_eq!(b.gpus[0].psu, 0);
        assert_eq!(b.system_psu(), Some(0));
    }

    #[test]
    fn removing_a_gpu_drops_its_bridges_and_shifts_the_others() {
        let c = cat();
        let mut b = board_build();
        for _ in 0..3 {
            edit_build(&mut b, &c, Action::AddGpu("nvidia-geforce-rtx-3090".into()));
        }
        edit_build(&mut b, &c, Action::AddBridge(0, 1, 3));
        edit_build(&mut b, &c, Action::AddBridge(1, 2, 3));
        edit_build(&mut b, &c, Action::RemoveGpu(0));
        assert_eq!(b.nvlink.len(), 1);
        assert_eq!(b.nvlink[0].gpus, (0, 1));
    }

    #[test]
    fn inline_parts_replace_by_id() {
        let c = cat();
        let mut b = board_build();
        let mut g = c.gpu("nvidia-geforce-rtx-4090").expect("4090").clone();
        g.id = "custom-4090".into();
        edit_build(&mut b, &c, Action::AddInlineParts(PartsFile { gpus: vec![g.clone()], ..PartsFile::default() }));
        g.board_power_w = 300.0;
        edit_build(&mut b, &c, Action::AddInlineParts(PartsFile { gpus: vec![g], ..PartsFile::default() }));
        assert_eq!(b.parts.gpus.len(), 1);
        assert!((b.parts.gpus[0].board_power_w - 300.0).abs() < 1e-9);
    }

    #[test]
    fn slider_drags_merge_into_one_undo_step() {
        let mut app = KraftwerkApp::new_for_test(cat(), board_build());
        let ctx = egui::Context::default();
        app.apply(&ctx, Action::AddGpu("nvidia-geforce-rtx-4090".into()));
        for w in [400.0, 380.0, 360.0] {
            app.apply(&ctx, Action::SetGpuPowerLimit(0, Some(w)));
        }
        assert_eq!(app.state.build.gpus[0].power_limit_w, Some(360.0));
        app.apply(&ctx, Action::Undo);
        assert_eq!(app.state.build.gpus[0].power_limit_w, None, "one undo step for the whole drag");
        app.apply(&ctx, Action::Undo);
        assert!(app.state.build.gpus.is_empty());
        app.apply(&ctx, Action::Redo);
        assert_eq!(app.state.build.gpus.len(), 1);
    }

    #[test]
    fn file_names() {
        assert_eq!(file_stem("4x RTX 4090 (open frame)"), "4x-rtx-4090-open-frame");
        assert_eq!(file_stem("!!!"), "build");
        assert_eq!(with_build_extension(PathBuf::from("/tmp/a")), PathBuf::from("/tmp/a.rig.ron"));
        assert_eq!(with_build_extension(PathBuf::from("/tmp/a.rig.ron")), PathBuf::from("/tmp/a.rig.ron"));
    }
}

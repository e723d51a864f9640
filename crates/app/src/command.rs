//! The commands: the [`Tab`] list and the [`Action`] enum every tab, menu and shortcut
//! sends. Drawing only pushes actions; [`super::app::KraftwerkApp::apply`] carries them out
//! after the frame is drawn, in one place. Build edits go through [`edit_build`], a thin
//! dispatcher onto the domain edits of [`kraftwerk_core::rig::edit`] (no egui there).
//!
//! [`Action`] is split by area ([`EditAction`], [`FileAction`], [`ViewAction`], [`LiveAction`],
//! the Plan tab's [`PlanTabAction`]); `apply` matches each exhaustively, so a new command does not
//! compile until it is carried out.
//!
//! Adding a tab: one line in the [`tabs!`] list below (variant and title) and one match arm in
//! [`super::view`]'s `draw`. A tab with commands of its own adds one variant here holding
//! its command type (as [`Action::Live`] holds [`LiveAction`]) and one arm in `apply`.

use super::files::FileRequest;
pub use crate::tabs::plan::PlanTabAction;
use kraftwerk_catalog::{Catalog, PartKind, PartsFile};
use kraftwerk_core::check::PartRef;
use kraftwerk_core::rig::parts_list::PartsFormat;
use kraftwerk_core::rig::{Build, MemoryUse, Riser, Site, Workload};
use kraftwerk_live::probe::Precision;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Declares [`Tab`], its display order [`Tab::ALL`] and its titles from one list.
macro_rules! tabs {
    ($( $(#[$meta:meta])* $variant:ident => $title:literal ),* $(,)?) => {
        /// The central tabs.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
        pub enum Tab {
            $( $(#[$meta])* $variant ),*
        }

        impl Tab {
            /// Every tab in display order.
            pub const ALL: [Tab; [$(stringify!($variant)),*].len()] = [$(Tab::$variant),*];

            /// Tab title.
            pub fn title(self) -> &'static str {
                match self {
                    $(Tab::$variant => $title),*
                }
            }
        }
    };
}

tabs! {
    /// The drawn motherboard with its slots and GPUs.
    #[default]
    Build => "Build",
    /// The parts list: quantities, prices with date and source, total, exports.
    Parts => "Parts",
    /// Findings by severity with their rule docs.
    Checks => "Checks",
    /// Power and thermal estimate.
    Power => "Power & thermal",
    /// LLM fit: memory per GPU, speed, cost.
    Fit => "LLM fit",
    /// Builds side by side.
    Compare => "Compare",
    /// The planner: the builds that meet a goal, cheapest first.
    Plan => "Plan",
    /// Every part of the catalog.
    Catalog => "Catalog",
    /// Live GPUs: NVML cards and plots, topology, probe, links, validation.
    Live => "Live",
}

/// What a widget, menu or shortcut asks the app to do, by area. Sent during drawing, applied
/// after it by [`KraftwerkApp::apply`](super::app::KraftwerkApp::apply), which matches every
/// sub-enum exhaustively; edits re-run the checker.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Edit the build (undoable, re-checked), or step through the edits (undo, redo).
    Edit(EditAction),
    /// Files and the document: new, open, save, export, the path prompt, user parts, quit.
    File(FileAction),
    /// What is shown: tabs, highlights, panels, windows, messages, the comparison.
    View(ViewAction),
    /// A command of the Live tab (applied by [`crate::tabs::live::apply`], never while drawing).
    Live(LiveAction),
    /// A command of the Plan tab: start or cancel the search, open a build it found.
    Plan(PlanTabAction),
}

/// The Edit area: edits of the build (each one undoable; quick repeats merge, see
/// [`EditAction::merge_key`]) and the undo history.
#[derive(Debug, Clone, PartialEq)]
pub enum EditAction {
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
    /// Place GPU `i` in the slot of that silkscreen name (a board whose slot positions are not
    /// known).
    SetGpuSlotNamed(usize, String),
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
}

impl EditAction {
    /// Whether the action edits the build (and so is undoable and re-runs the checker): every
    /// one but the history steps.
    pub fn is_edit(&self) -> bool {
        !matches!(self, EditAction::Undo | EditAction::Redo)
    }

    /// Key under which quick repeats of this edit merge into one undo step (slider drags,
    /// typing), `None` for edits that always get their own step.
    pub(crate) fn merge_key(&self) -> Option<(u8, usize)> {
        match self {
            EditAction::SetName(_) => Some((1, 0)),
            EditAction::SetGpuPowerLimit(i, _) => Some((2, *i)),
            EditAction::SetAllPowerLimits(_) => Some((3, 0)),
            EditAction::SetSite(_) => Some((4, 0)),
            EditAction::SetMemoryKits(_) => Some((5, 0)),
            EditAction::SetWorkload(_) => Some((6, 0)),
            _ => None,
        }
    }
}

/// The File area: the document's files, exports, the path prompt and user-part files.
#[derive(Debug, Clone, PartialEq)]
pub enum FileAction {
    /// Start a new empty build (asks first when there are unsaved changes).
    New,
    /// Show the open dialog (asks first when there are unsaved changes).
    OpenDialog,
    /// Open this build file (asks first when there are unsaved changes).
    Open(PathBuf),
    /// Fit this model file (GGUF, a Hugging Face folder or its `config.json` or a
    /// `.safetensors` shard) in the LLM fit tab, which it shows.
    OpenModelFile(PathBuf),
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
    /// Ask where to write the parts list in this format.
    ExportPartsDialog(PartsFormat),
    /// Write the parts list in this format to this file.
    ExportParts(PartsFormat, PathBuf),
    /// Ask for a path (native dialog, else the in-app path field).
    AskPath(FileRequest),
    /// A path was chosen for this request (from the dialog or the path field).
    PathChosen(FileRequest, PathBuf),
    /// Save the part form's part to the user parts directory, reload the catalog, re-check.
    SavePartForm,
    /// Save this board (with the layout entered in the slot-layout editor) as a user part,
    /// reload the catalog, re-check.
    SaveSlotLayout(Box<kraftwerk_catalog::Motherboard>),
    /// Read this pasted parts list into a build and open it, unsaved.
    ImportList(String),
    /// The answer to the unsaved-changes prompt.
    Prompt(PromptChoice),
}

/// The View area: what is shown and the windows that are open (nothing here changes the build).
#[derive(Debug, Clone, PartialEq)]
pub enum ViewAction {
    /// Outline these parts everywhere (a clicked finding).
    Highlight(Vec<PartRef>),
    /// Show a tab.
    SelectTab(Tab),
    /// Switch between dark and light.
    ToggleDark,
    /// Show or hide the left build panel.
    ToggleBuildPanel,
    /// Show or hide the rule docs window.
    ToggleRuleDocs,
    /// Dismiss message by index.
    DismissMessage(usize),
    /// Close the in-app path field.
    ClosePathPrompt,
    /// Take this build file out of the comparison (index among the added files).
    CompareRemove(usize),
    /// Model for the comparison's fit figures (`None`: each build's own).
    CompareSetModel(Option<String>),
    /// Open the part form (a new part of a kind, or an existing part, focused at a field).
    OpenPartForm(FormTarget),
    /// Close the part form without saving.
    ClosePartForm,
    /// Open the slot-layout editor for the build's board.
    OpenSlotEditor,
    /// Close the slot-layout editor without saving.
    CloseSlotEditor,
    /// Show the Paste parts list window.
    PasteListDialog,
    /// Close the Paste parts list window.
    ClosePasteList,
}

/// What the Live tab's widgets ask for.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveAction {
    /// Pick a recording file to show.
    OpenRecordingDialog,
    /// Show the bundled demo recording.
    ShowDemo,
    /// Play the shown recording again at its pace.
    Replay,
    /// Leave the recording and show this machine's GPUs.
    BackToLive,
    /// Sustained-load seconds of the probe.
    SetProbeSeconds(u32),
    /// Switch a probe precision on or off.
    SetPrecision(Precision, bool),
    /// Run the probe.
    RunProbe,
    /// Cancel the probe.
    CancelProbe,
    /// Validate against the open build.
    Validate,
    /// Measure the links.
    MeasureLinks,
    /// Cancel the links measurement.
    CancelLinks,
    /// Pick a links report file to show.
    OpenLinksDialog,
    /// Show the bundled links report.
    ShowDemoLinks,
    /// Hide the error lines.
    DismissErrors,
}

/// Which part the form edits and which field takes the focus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormTarget {
    /// Kind of part.
    pub kind: PartKind,
    /// Id of the part to edit; `None`: a new part of this kind (a copy of the first one as a
    /// template, with a new id).
    pub id: Option<String>,
    /// Field to focus (a serde field name such as `length_mm`), if any.
    pub field: Option<String>,
}

/// An answer to the unsaved-changes prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptChoice {
    /// Save, then do what waited.
    Save,
    /// Do what waited without saving.
    DontSave,
    /// Do nothing.
    Cancel,
}

/// What waits for the unsaved-changes prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// Start a new build.
    New,
    /// Open this file.
    Open(PathBuf),
    /// Open this build, not yet saved to any file.
    OpenBuild(Box<Build>),
    /// Show the open dialog.
    OpenDialog,
    /// Close the window.
    Quit,
}

/// Applies one edit to `build`: each arm is a field set or one call of
/// [`kraftwerk_core::rig::edit`]. The history steps (undo, redo) are the app's and do nothing
/// here.
pub(crate) fn edit_build(b: &mut Build, catalog: &Catalog, action: EditAction) {
    match action {
        EditAction::SetName(n) => b.name = n,
        EditAction::SetCpu(id) => b.cpu = id,
        EditAction::SetMotherboard(id) => b.motherboard = id,
        EditAction::SetCooler(id) => b.cooler = id,
        EditAction::SetCase(id) => b.case = id,
        EditAction::SetMemoryKit(id) => {
            b.memory = id.map(|kit| MemoryUse { kit, kits: b.memory.as_ref().map_or(1, |m| m.kits), speed_mt_s: None });
        }
        EditAction::SetMemoryKits(n) => {
            if let Some(m) = &mut b.memory {
                m.kits = n.max(1);
            }
        }
        EditAction::AddStorage(drive) => b.add_storage(catalog, drive),
        EditAction::RemoveStorage(i) => {
            if i < b.storage.len() {
                b.storage.remove(i);
            }
        }
        EditAction::SetStorageDrive(i, drive) => {
            if let Some(s) = b.storage.get_mut(i) {
                s.drive = drive;
            }
        }
        EditAction::SetStorageSlot(i, slot) => {
            if let Some(s) = b.storage.get_mut(i) {
                s.m2_slot = slot;
            }
        }
        EditAction::AddGpu(id) => b.add_gpu(catalog, id),
        EditAction::RemoveGpu(i) => b.remove_gpu(i),
        EditAction::SetGpuCount(n, id) => b.set_gpu_count(catalog, n, &id),
        EditAction::SetGpuModel(which, id) => b.set_gpu_model(catalog, which, &id),
        EditAction::SetGpuSlot(i, slot) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.slot = slot;
                g.slot_name = None;
            }
        }
        EditAction::SetGpuSlotNamed(i, name) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.slot = None;
                g.slot_name = Some(name);
            }
        }
        EditAction::SetGpuPowerLimit(i, w) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.power_limit_w = w.map(f64::round);
            }
        }
        EditAction::SetAllPowerLimits(w) => {
            for g in &mut b.gpus {
                g.power_limit_w = w.map(f64::round);
            }
        }
        EditAction::SetGpuPsu(i, psu) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.psu = psu;
            }
        }
        EditAction::SetGpuRiser(i, riser) => {
            if let Some(g) = b.gpus.get_mut(i) {
                g.riser = riser;
            }
        }
        EditAction::AutoPlaceGpus => b.auto_place_gpus(catalog),
        EditAction::AddPsu(id) => b.add_psu(id),
        EditAction::RemovePsu(i) => b.remove_psu(i),
        EditAction::SetPsuModel(i, id) => {
            if let Some(p) = b.psus.get_mut(i) {
                p.psu = id;
            }
        }
        EditAction::SetPsuCircuit(i, c) => b.set_psu_circuit(i, c),
        EditAction::SetSystemPsu(i) => b.set_system_psu(i),
        EditAction::AddBridge(x, y, spacing_slots) => b.add_bridge(x, y, spacing_slots),
        EditAction::RemoveBridge(i) => {
            if i < b.nvlink.len() {
                b.nvlink.remove(i);
            }
        }
        EditAction::SetSite(site) => b.site = site,
        EditAction::SetWorkload(w) => b.workload = w,
        EditAction::AddInlineParts(file) => b.add_inline_parts(file),
        EditAction::Undo | EditAction::Redo => {}
    }
}

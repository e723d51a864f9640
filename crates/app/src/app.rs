//! The app: [`KraftwerkApp`] holds the state ([`super::state`]), queues the [`Action`]s the
//! view ([`super::view`]) sends, and applies them in one place ([`KraftwerkApp::apply`]): edits
//! with undo, files (open, save, recent, drag-and-drop, the unsaved-changes prompt), the Live
//! tab's commands, and the eframe glue. Input that is no widget's (shortcuts, dropped files,
//! the close button) and the Live jobs' polling happen once per frame in `logic`.

pub use super::command::{
    Action, EditAction, FileAction, LiveAction, Pending, PlanTabAction, PromptChoice, Tab, ViewAction,
};
pub use super::state::{AppState, MAX_RECENT, Message, Settings};
pub use super::view_state::ViewState;
pub use kraftwerk_core::rig::edit::{free_slot, merged};

use super::files::FileRequest;
use super::part_form::PartForm;
use super::{live_state, shortcuts, stats, tabs, theme};
use eframe::egui;
use kraftwerk_catalog::{self as catalog, Catalog};
use kraftwerk_core::check::Severity;
use kraftwerk_core::rig::Build;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod file_actions;

pub use file_actions::{file_stem, is_build_file, is_model_file, with_build_extension};

/// Most undo steps kept.
pub const MAX_UNDO: usize = 200;
/// Edits of the same kind closer together than this merge into one undo step (slider drags).
pub const UNDO_MERGE: Duration = Duration::from_millis(1200);

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
    pub(super) pending: Option<Pending>,
    allow_close: bool,
    pub(super) undo: Vec<Build>,
    pub(super) redo: Vec<Build>,
    last_edit: Option<((u8, usize), Instant)>,
    title: String,
    stats: Option<stats::FrameStats>,
    native: bool,
    theme_applied: Option<bool>,
    /// Whether the window was shrunk to the monitor (once, when the monitor size is known).
    window_fitted: bool,
    /// Where the part form saves user parts (`KRAFTWERK_PARTS_DIR` or the config dir; `None`
    /// when neither is known, or in tests until one is set).
    pub user_parts_dir: Option<PathBuf>,
    /// Live tab: NVML sampler, recording, probe and links jobs (runtime handles, not persisted).
    pub live: live_state::LiveView,
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
        app.user_parts_dir = dir;
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
            live: live_state::LiveView::new(false),
            user_parts_dir: None,
            window_fitted: false,
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
        if self.native && !self.window_fitted {
            self.window_fitted = fit_window(ctx);
        }
        // The sampler starts when the Live tab is first shown; it and the jobs are drained here,
        // once per frame, whichever tab is shown.
        if self.view.tab == Tab::Live {
            self.live.ensure_started(ctx);
        }
        self.live.poll(ctx);
        self.view.plan.poll();
        if self.theme_applied != Some(self.settings.dark) {
            theme::apply(ctx, self.settings.dark);
            self.theme_applied = Some(self.settings.dark);
        }
        // The shortcuts, declared once in `shortcuts` (the menus show the same keys).
        for s in shortcuts::all() {
            if s.only_on.is_none_or(|t| t == self.view.tab) && ctx.input_mut(|i| i.consume_shortcut(&s.keys)) {
                self.actions.push(s.action.clone());
            }
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).collect());
        if !dropped.is_empty() {
            if let Some(p) = dropped.iter().find(|p| is_build_file(p)) {
                self.actions.push(Action::File(FileAction::Open(p.clone())));
            } else if let Some(p) = dropped.iter().find(|p| is_model_file(p)) {
                self.actions.push(Action::File(FileAction::OpenModelFile(p.clone())));
            } else {
                self.messages.push(Message {
                    severity: Severity::Warning,
                    text: "Drop a build file (*.rig.ron) or a model file (*.gguf, *.safetensors, config.json or \
                           a Hugging Face model folder)."
                        .into(),
                });
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

    /// Applies one action: the single place where the document and the app change. Each area's
    /// sub-enum is matched exhaustively in its own method.
    pub fn apply(&mut self, ctx: &egui::Context, action: Action) {
        match action {
            Action::Edit(a) => self.apply_edit(a),
            Action::File(a) => self.apply_file(ctx, a),
            Action::View(a) => self.apply_view(ctx, a),
            Action::Live(a) => self.apply_live(ctx, a),
            Action::Plan(a) => self.apply_plan(ctx, a),
        }
    }

    /// A build edit (undoable: quick repeats of one kind merge into one step), or an undo/redo.
    fn apply_edit(&mut self, action: EditAction) {
        match action {
            EditAction::Undo => {
                if let Some(prev) = self.undo.pop() {
                    let cur = std::mem::replace(&mut self.state.build, prev);
                    self.redo.push(cur);
                    self.state.recompute();
                    self.last_edit = None;
                    self.view.name_edit = None;
                }
            }
            EditAction::Redo => {
                if let Some(next) = self.redo.pop() {
                    let cur = std::mem::replace(&mut self.state.build, next);
                    self.undo.push(cur);
                    self.state.recompute();
                    self.last_edit = None;
                    self.view.name_edit = None;
                }
            }
            edit => {
                // Every other variant is a build edit (`EditAction::is_edit`).
                let before = self.state.build.clone();
                let key = edit.merge_key();
                if self.state.apply_edit(edit) {
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
            }
        }
    }

    /// Files, exports, user-part files and the unsaved-changes prompt.
    fn apply_file(&mut self, ctx: &egui::Context, action: FileAction) {
        match action {
            FileAction::New => self.guard(ctx, Pending::New),
            FileAction::OpenDialog => self.guard(ctx, Pending::OpenDialog),
            FileAction::Open(p) => self.guard(ctx, Pending::Open(p)),
            FileAction::OpenModelFile(p) => match self.view.fit.set_model_file(&p) {
                Ok(summary) => {
                    self.view.tab = Tab::Fit;
                    self.messages.push(Message { severity: Severity::Info, text: format!("model file: {summary}") });
                }
                Err(e) => self.messages.push(Message { severity: Severity::Error, text: e }),
            },
            FileAction::Save => {
                self.save(ctx);
            }
            FileAction::SaveAsDialog => self.ask_path(ctx, FileRequest::SaveAs),
            FileAction::SaveAs(p) => {
                self.save_to(&p);
            }
            FileAction::ExportDialog => self.ask_path(ctx, FileRequest::ExportReport),
            FileAction::ExportPartsDialog(f) => self.ask_path(ctx, FileRequest::ExportParts(f)),
            FileAction::ExportParts(f, p) => self.export_parts_to(f, &p),
            FileAction::AskPath(r) => self.ask_path(ctx, r),
            FileAction::PathChosen(r, p) => {
                self.view.path_prompt = None;
                self.path_chosen(ctx, r, p);
            }
            FileAction::Export(p) => self.export_to(&p),
            FileAction::Quit => self.guard(ctx, Pending::Quit),
            FileAction::SavePartForm => self.save_part_form(ctx),
            FileAction::SaveSlotLayout(board) => {
                let id = board.id.clone();
                let file = catalog::PartsFile { motherboards: vec![*board], ..catalog::PartsFile::default() };
                match catalog::load::ron_options().to_string_pretty(&file, ron::ser::PrettyConfig::default()) {
                    Ok(text) => {
                        if self.save_user_part(&id, &text) {
                            self.view.slot_editor = None;
                        }
                    }
                    Err(e) => self
                        .messages
                        .push(Message { severity: Severity::Error, text: format!("Could not encode the board: {e}") }),
                }
            }
            FileAction::ImportList(text) => {
                let window = self.view.paste_list.get_or_insert_with(Default::default);
                match kraftwerk_core::rig::import_list::import_list("pasted list", &text, &self.state.catalog) {
                    Ok(list) => {
                        window.set_result(&list);
                        self.guard(ctx, Pending::OpenBuild(Box::new(list.build)));
                    }
                    Err(e) => {
                        window.result.clear();
                        window.error = Some(e.to_string());
                    }
                }
            }
            FileAction::Prompt(c) => self.answer_prompt(ctx, c),
        }
    }

    /// What is shown: tabs, highlights, panels, windows, messages, the comparison.
    fn apply_view(&mut self, ctx: &egui::Context, action: ViewAction) {
        match action {
            ViewAction::Highlight(parts) => {
                ctx.data_mut(|d| d.insert_temp(theme::scroll_flag_id(), !parts.is_empty()));
                self.view.highlight = parts;
            }
            ViewAction::SelectTab(t) => self.view.tab = t,
            ViewAction::ClosePathPrompt => self.view.path_prompt = None,
            ViewAction::CompareRemove(i) => {
                if i < self.view.compare.others.len() {
                    self.view.compare.others.remove(i);
                    self.view.compare.generation += 1;
                }
            }
            ViewAction::CompareSetModel(m) => {
                self.view.compare.model = m;
                self.view.compare.generation += 1;
            }
            ViewAction::ToggleDark => self.settings.dark = !self.settings.dark,
            ViewAction::ToggleBuildPanel => self.settings.show_build_panel = !self.settings.show_build_panel,
            ViewAction::ToggleRuleDocs => self.view.show_rule_docs = !self.view.show_rule_docs,
            ViewAction::DismissMessage(i) => {
                if i < self.messages.len() {
                    self.messages.remove(i);
                }
            }
            ViewAction::OpenPartForm(t) => match PartForm::open(&self.state, &t) {
                Some(f) => self.view.part_form = Some(f),
                None => self.messages.push(Message {
                    severity: Severity::Warning,
                    text: format!("No {} `{}` to edit.", t.kind.plural(), t.id.as_deref().unwrap_or("?")),
                }),
            },
            ViewAction::ClosePartForm => self.view.part_form = None,
            ViewAction::OpenSlotEditor => {
                let board = self.state.build.motherboard.as_deref().and_then(|id| self.state.catalog.motherboard(id));
                self.view.slot_editor = board.map(super::slot_editor::SlotEditor::open);
            }
            ViewAction::CloseSlotEditor => self.view.slot_editor = None,
            ViewAction::PasteListDialog => {
                self.view.paste_list.get_or_insert_with(Default::default);
            }
            ViewAction::ClosePasteList => self.view.paste_list = None,
        }
    }

    /// A Live command: the file dialogs here (they need the app's path prompt), the rest in
    /// [`tabs::live::apply`].
    fn apply_live(&mut self, ctx: &egui::Context, action: LiveAction) {
        match action {
            LiveAction::OpenRecordingDialog => self.ask_path(ctx, FileRequest::OpenRecording),
            LiveAction::OpenLinksDialog => self.ask_path(ctx, FileRequest::OpenLinks),
            a => tabs::live::apply(ctx, &self.state, &mut self.live, &a),
        }
    }

    /// A Plan command: start or cancel the search (polled once a frame in `logic`), or open a
    /// build it found (asking first when there are unsaved changes).
    fn apply_plan(&mut self, ctx: &egui::Context, action: PlanTabAction) {
        match action {
            PlanTabAction::Start => self.view.plan.start(&self.state.catalog),
            PlanTabAction::Cancel => self.view.plan.cancel(),
            PlanTabAction::OpenBuild(b) => self.guard(ctx, Pending::OpenBuild(b)),
        }
    }

    /// Carries out the answer to the unsaved-changes prompt.
    fn answer_prompt(&mut self, ctx: &egui::Context, choice: PromptChoice) {
        let Some(p) = self.pending.take() else { return };
        match choice {
            PromptChoice::Save => {
                if self.save(ctx) {
                    self.continue_pending(ctx, p);
                }
            }
            PromptChoice::DontSave => self.continue_pending(ctx, p),
            PromptChoice::Cancel => {
                if p == Pending::Quit {
                    self.allow_close = false;
                }
            }
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
            Pending::OpenBuild(b) => {
                // Unsaved: the saved copy is empty, so the title shows it changed and closing asks.
                self.state.replace(Build::default(), None);
                self.reset_history();
                self.state.build = *b;
                self.state.recompute();
                self.view.tab = Tab::Build;
            }
            Pending::OpenDialog => self.ask_path(ctx, FileRequest::Open),
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
}

/// Shrinks the window to fit the monitor (the default size is for a 1440x900 or larger
/// screen); returns whether the monitor size was known, so this runs once.
fn fit_window(ctx: &egui::Context) -> bool {
    let (monitor, inner) = ctx.input(|i| (i.viewport().monitor_size, i.viewport().inner_rect));
    let (Some(m), Some(inner)) = (monitor, inner) else { return false };
    if m.x <= 0.0 || m.y <= 0.0 {
        return false;
    }
    // Leave room for the desktop's panels and the window's title bar.
    let fit = egui::vec2(inner.width().min(m.x - 16.0), inner.height().min(m.y - 64.0));
    if fit.x < inner.width() || fit.y < inner.height() {
        ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(fit.max(egui::vec2(640.0, 480.0))));
        ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(egui::pos2(0.0, 0.0)));
    }
    true
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
    use crate::command::edit_build;
    use kraftwerk_catalog::PartsFile;

    fn cat() -> Catalog {
        catalog::builtin().expect("built-in catalog")
    }

    /// A WRX90E board with its CPU and one PSU, no GPUs (the same build as the core's
    /// `rig::edit` tests use; test helpers do not cross crates).
    fn board_build() -> kraftwerk_core::rig::Build {
        kraftwerk_core::rig::Build {
            cpu: Some("amd-threadripper-pro-7985wx".into()),
            motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
            psus: vec![kraftwerk_core::rig::PsuUse {
                psu: "seasonic-prime-tx-1600-atx31".into(),
                feeds_system: None,
                circuit: 0,
            }],
            ..kraftwerk_core::rig::Build::default()
        }
    }

    #[test]
    fn three_slot_cards_are_placed_one_per_three_positions() {
        let c = cat();
        let mut b = board_build();
        for _ in 0..4 {
            edit_build(&mut b, &c, EditAction::AddGpu("nvidia-geforce-rtx-4090".into()));
        }
        let slots: Vec<Option<u8>> = b.gpus.iter().map(|g| g.slot).collect();
        assert_eq!(slots, vec![Some(1), Some(4), Some(7), None], "the fourth 3-slot card has no free slot left");
    }

    #[test]
    fn removing_a_psu_moves_its_gpus_and_keeps_a_system_psu() {
        let c = cat();
        let mut b = board_build();
        edit_build(&mut b, &c, EditAction::AddPsu("seasonic-prime-tx-1600-atx31".into()));
        edit_build(&mut b, &c, EditAction::AddGpu("nvidia-geforce-rtx-4090".into()));
        edit_build(&mut b, &c, EditAction::SetGpuPsu(0, 1));
        edit_build(&mut b, &c, EditAction::SetSystemPsu(1));
        edit_build(&mut b, &c, EditAction::RemovePsu(1));
        assert_eq!(b.psus.len(), 1);
        assert_eq!(b.gpus[0].psu, 0);
        assert_eq!(b.system_psu(), Some(0));
    }

    #[test]
    fn removing_a_gpu_drops_its_bridges_and_shifts_the_others() {
        let c = cat();
        let mut b = board_build();
        for _ in 0..3 {
            edit_build(&mut b, &c, EditAction::AddGpu("nvidia-geforce-rtx-3090".into()));
        }
        edit_build(&mut b, &c, EditAction::AddBridge(0, 1, 3));
        edit_build(&mut b, &c, EditAction::AddBridge(1, 2, 3));
        edit_build(&mut b, &c, EditAction::RemoveGpu(0));
        assert_eq!(b.nvlink.len(), 1);
        assert_eq!(b.nvlink[0].gpus, (0, 1));
    }

    #[test]
    fn inline_parts_replace_by_id() {
        let c = cat();
        let mut b = board_build();
        let mut g = c.gpu("nvidia-geforce-rtx-4090").expect("4090").clone();
        g.id = "custom-4090".into();
        edit_build(&mut b, &c, EditAction::AddInlineParts(PartsFile { gpus: vec![g.clone()], ..PartsFile::default() }));
        g.board_power_w = 300.0;
        edit_build(&mut b, &c, EditAction::AddInlineParts(PartsFile { gpus: vec![g], ..PartsFile::default() }));
        assert_eq!(b.parts.gpus.len(), 1);
        assert!((b.parts.gpus[0].board_power_w - 300.0).abs() < 1e-9);
    }

    #[test]
    fn slider_drags_merge_into_one_undo_step() {
        let mut app = KraftwerkApp::new_for_test(cat(), board_build());
        let ctx = egui::Context::default();
        app.apply(&ctx, Action::Edit(EditAction::AddGpu("nvidia-geforce-rtx-4090".into())));
        for w in [400.0, 380.0, 360.0] {
            app.apply(&ctx, Action::Edit(EditAction::SetGpuPowerLimit(0, Some(w))));
        }
        assert_eq!(app.state.build.gpus[0].power_limit_w, Some(360.0));
        app.apply(&ctx, Action::Edit(EditAction::Undo));
        assert_eq!(app.state.build.gpus[0].power_limit_w, None, "one undo step for the whole drag");
        app.apply(&ctx, Action::Edit(EditAction::Undo));
        assert!(app.state.build.gpus.is_empty());
        app.apply(&ctx, Action::Edit(EditAction::Redo));
        assert_eq!(app.state.build.gpus.len(), 1);
    }
}

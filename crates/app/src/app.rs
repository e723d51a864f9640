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

use super::files::{self, FileRequest, PathPrompt};
use super::part_form::PartForm;
use super::{live_state, live_tab, shortcuts, stats, theme};
use eframe::egui;
use kraftwerk_catalog::{self as catalog, Catalog};
use kraftwerk_core::check::Severity;
use kraftwerk_core::rig::parts_list::{PartsFormat, PartsList};
use kraftwerk_core::rig::{self, Build};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    /// [`live_tab::apply`].
    fn apply_live(&mut self, ctx: &egui::Context, action: LiveAction) {
        match action {
            LiveAction::OpenRecordingDialog => self.ask_path(ctx, FileRequest::OpenRecording),
            LiveAction::OpenLinksDialog => self.ask_path(ctx, FileRequest::OpenLinks),
            a => live_tab::apply(ctx, &self.state, &mut self.live, &a),
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

    /// Opens a build file. On failure the current build stays and the error (with
    /// `file:line:column`) is shown.
    pub fn open_path(&mut self, path: &Path) {
        // The one loader of every face: the file's own validation and the workload's
        // vocabulary (a misspelt precision is a located error here as in `check`).
        match kraftwerk_core::rig::load(path, Some(&self.state.catalog)) {
            Ok(b) => {
                self.state.replace(b, Some(path.to_path_buf()));
                self.reset_history();
                self.settings.push_recent(path);
                self.messages.retain(|m| m.severity != Severity::Error);
            }
            Err(e) => self.messages.push(Message { severity: Severity::Error, text: format!("Could not open {e}") }),
        }
    }

    /// Saves to the current file, or asks for one. Returns whether it saved (`false` while the
    /// in-app path field waits for a path).
    pub(super) fn save(&mut self, ctx: &egui::Context) -> bool {
        if let Some(p) = self.state.path.clone() {
            self.save_to(&p)
        } else {
            // A native dialog saves before it returns; the in-app path field saves later.
            self.ask_path(ctx, FileRequest::SaveAs);
            self.state.path.is_some() && !self.state.dirty
        }
    }

    /// The file name a dialog or path field proposes for `req`.
    fn proposed_name(&self, req: FileRequest) -> String {
        let stem = file_stem(&self.state.build.name);
        match req {
            FileRequest::SaveAs => format!("{stem}.rig.ron"),
            FileRequest::ExportReport => format!("{stem}.md"),
            FileRequest::ExportParts(f) => format!("{stem}-parts.{}", f.extension()),
            FileRequest::Open | FileRequest::CompareAdd | FileRequest::OpenRecording | FileRequest::OpenLinks => {
                String::new()
            }
        }
    }

    /// Asks for a path for `req`: the native dialog when one can be shown, else (and in tests)
    /// the in-app path field, with the reason when a dialog was wanted but none is available.
    pub fn ask_path(&mut self, ctx: &egui::Context, req: FileRequest) {
        let dir = self.state.path.as_ref().and_then(|p| p.parent()).map(Path::to_path_buf);
        let reason = if self.native { files::dialog_unavailable() } else { None };
        if self.native && reason.is_none() {
            let (what, exts) = req.filter();
            let mut dialog = rfd::FileDialog::new().set_title(req.title()).add_filter(what, exts);
            if let Some(d) = &dir {
                dialog = dialog.set_directory(d);
            }
            let picked = if req.writes() {
                dialog.set_file_name(self.proposed_name(req)).save_file()
            } else {
                dialog.pick_file()
            };
            if let Some(p) = picked {
                self.path_chosen(ctx, req, p);
            }
            return;
        }
        let name = self.proposed_name(req);
        let text = match (&dir, name.is_empty()) {
            (Some(d), false) => d.join(name).display().to_string(),
            (Some(d), true) => format!("{}/", d.display()),
            (None, _) => name,
        };
        self.view.path_prompt = Some(PathPrompt { request: req, text, reason });
    }

    /// Carries out `req` with the chosen `path`.
    fn path_chosen(&mut self, ctx: &egui::Context, req: FileRequest, path: PathBuf) {
        let _ = ctx;
        match req {
            FileRequest::Open => self.open_path(&path),
            FileRequest::SaveAs => {
                self.save_to(&with_build_extension(path));
            }
            FileRequest::ExportReport => self.export_to(&path),
            FileRequest::ExportParts(f) => self.export_parts_to(f, &path),
            FileRequest::CompareAdd => self.compare_add(&path),
            FileRequest::OpenRecording => self.live.open_recording(&path),
            FileRequest::OpenLinks => self.live.open_links_file(&path),
        }
    }

    /// Saves atomically to `path` and makes it the current file. Returns whether it saved.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match rig::save(path, &self.state.build) {
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
        let text =
            kraftwerk_core::report::markdown::markdown(&self.state.build, &self.state.catalog, &self.state.report);
        self.write_export(path, &text, "Report");
    }

    /// Saves the part form's part as `<id>.ron` in the user parts directory (atomically), then
    /// reloads the catalog and re-runs the checker. A part defined inline in the build is
    /// updated in the build instead (an undoable edit; a user part of its id would be shadowed
    /// by the inline one and change nothing). Errors are shown and keep the form open.
    fn save_part_form(&mut self, ctx: &egui::Context) {
        let Some(form) = &self.view.part_form else { return };
        let error = |text: String| Message { severity: Severity::Error, text };
        if form.inline {
            let (file, id) = match form.parts_file() {
                Ok(f) => (f, form.id().to_owned()),
                Err(e) => return self.messages.push(error(format!("The part is not valid yet: {e}"))),
            };
            self.view.part_form = None;
            self.apply(ctx, Action::Edit(EditAction::AddInlineParts(file)));
            self.messages.push(Message {
                severity: Severity::Info,
                text: format!(
                    "Updated `{id}` in this build's own parts (the checks ran again; save the build to keep it)."
                ),
            });
            return;
        }
        let text = match form.ron_text() {
            Ok(t) => t,
            Err(e) => return self.messages.push(error(format!("The part is not valid yet: {e}"))),
        };
        let id = form.id().to_owned();
        if self.save_user_part(&id, &text) {
            self.view.part_form = None;
        }
    }

    /// Writes `text` (a parts file) as `<id>.ron` in the user parts directory (atomically),
    /// reloads the catalog and re-runs the checker. Returns whether it saved; errors are shown.
    fn save_user_part(&mut self, id: &str, text: &str) -> bool {
        let error = |text: String| Message { severity: Severity::Error, text };
        let Some(dir) = self.user_parts_dir.clone() else {
            self.messages
                .push(error("No user parts directory is known: set KRAFTWERK_PARTS_DIR to a folder.".to_owned()));
            return false;
        };
        let path = dir.join(format!("{id}.ron"));
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| files::write_atomic(&path, text)) {
            self.messages.push(error(format!("Could not save {}: {e}", path.display())));
            return false;
        }
        match catalog::load_with_user_dir(Some(&dir)) {
            Ok((c, problems)) => {
                self.state.catalog = c;
                self.state.recompute();
                self.messages.push(Message {
                    severity: Severity::Info,
                    text: format!("Saved {} (the checks ran again).", path.display()),
                });
                for p in problems.into_iter().filter(|p| matches!(p, catalog::LoadProblem::BadFile(_))) {
                    self.messages.push(Message { severity: Severity::Warning, text: format!("user parts: {p}") });
                }
                true
            }
            Err(e) => {
                self.messages.push(error(format!("built-in catalog: {e}")));
                false
            }
        }
    }

    /// Adds the build file at `path` to the comparison (its load error shown if it fails).
    pub fn compare_add(&mut self, path: &Path) {
        match kraftwerk_core::rig::load(path, Some(&self.state.catalog)) {
            Ok(b) => {
                let c = &mut self.view.compare;
                if c.others.len() + 1 < kraftwerk_core::compare::MAX_BUILDS {
                    c.others.push((b, path.display().to_string()));
                    c.generation += 1;
                }
                self.view.tab = Tab::Compare;
            }
            Err(e) => self.messages.push(Message { severity: Severity::Error, text: format!("Could not open {e}") }),
        }
    }

    /// Writes the parts list in format `f` to `path` (atomically), with a message either way.
    pub fn export_parts_to(&mut self, f: PartsFormat, path: &Path) {
        let text = f.render(&PartsList::of(&self.state.build, &self.state.catalog));
        self.write_export(path, &text, &format!("Parts list ({})", f.name()));
    }

    fn write_export(&mut self, path: &Path, text: &str, what: &str) {
        let (severity, text) = match files::write_atomic(path, text) {
            Ok(()) => (Severity::Info, format!("{what} exported to {}", path.display())),
            Err(e) => (Severity::Error, format!("Could not export to {}: {e}", path.display())),
        };
        self.messages.push(Message { severity, text });
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

/// Whether a dropped path is a model file the LLM fit reads: `*.gguf`, `*.safetensors`,
/// a `config.json`, or a folder holding a `config.json`.
pub fn is_model_file(p: &Path) -> bool {
    let ext = |e: &str| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(e));
    ext("gguf")
        || ext("safetensors")
        || p.file_name().is_some_and(|n| n == "config.json")
        || p.join("config.json").is_file()
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

    #[test]
    fn file_names() {
        assert_eq!(file_stem("4x RTX 4090 (open frame)"), "4x-rtx-4090-open-frame");
        assert_eq!(file_stem("!!!"), "build");
        assert_eq!(with_build_extension(PathBuf::from("/tmp/a")), PathBuf::from("/tmp/a.rig.ron"));
        assert_eq!(with_build_extension(PathBuf::from("/tmp/a.rig.ron")), PathBuf::from("/tmp/a.rig.ron"));
    }
}

//! Files from the window: opening and saving builds (atomically, with the recent list), the
//! native dialog or the in-app path field that asks for a path, exports of the report and the
//! parts list, parts saved from the part form, builds added to the comparison, and the names
//! proposed for new files.

use super::{Action, EditAction, KraftwerkApp, Message, Tab};
use crate::files::{self, FileRequest, PathPrompt};
use eframe::egui;
use kraftwerk_catalog as catalog;
use kraftwerk_core::check::Severity;
use kraftwerk_core::rig;
use kraftwerk_core::rig::parts_list::{PartsFormat, PartsList};
use std::path::{Path, PathBuf};

impl KraftwerkApp {
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
    pub(crate) fn save(&mut self, ctx: &egui::Context) -> bool {
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
    pub(super) fn path_chosen(&mut self, ctx: &egui::Context, req: FileRequest, path: PathBuf) {
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

    pub(super) fn export_to(&mut self, path: &Path) {
        let text =
            kraftwerk_core::report::markdown::markdown(&self.state.build, &self.state.catalog, &self.state.report);
        self.write_export(path, &text, "Report");
    }

    /// Saves the part form's part as `<id>.ron` in the user parts directory (atomically), then
    /// reloads the catalog and re-runs the checker. A part defined inline in the build is
    /// updated in the build instead (an undoable edit; a user part of its id would be shadowed
    /// by the inline one and change nothing). Errors are shown and keep the form open.
    pub(super) fn save_part_form(&mut self, ctx: &egui::Context) {
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
    pub(super) fn save_user_part(&mut self, id: &str, text: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(file_stem("4x RTX 4090 (open frame)"), "4x-rtx-4090-open-frame");
        assert_eq!(file_stem("!!!"), "build");
        assert_eq!(with_build_extension(PathBuf::from("/tmp/a")), PathBuf::from("/tmp/a.rig.ron"));
        assert_eq!(with_build_extension(PathBuf::from("/tmp/a.rig.ron")), PathBuf::from("/tmp/a.rig.ron"));
    }
}

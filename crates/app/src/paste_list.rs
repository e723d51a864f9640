//! Edit > Paste parts list: a window with a text box the user pastes a PCPartPicker list (or
//! one part a line) into, an Import button, and what the last import matched and left out. The
//! reading and matching is [`kraftwerk_core::rig::import_list::import_list`], the function
//! `kraftwerk import` calls; the import itself is an [`Action`].

use super::command::{Action, FileAction, ViewAction};
use super::theme;
use eframe::egui;
use kraftwerk_core::rig::import_list::ImportedList;

/// The window's state (view state, never saved).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PasteList {
    /// The pasted text.
    pub text: String,
    /// One line per result of the last import: a summary, then each line not imported.
    pub result: Vec<String>,
    /// The last import's error (`pasted list:LINE:COLUMN: …`), if it failed.
    pub error: Option<String>,
}

impl PasteList {
    /// Records what an import matched and left out.
    pub fn set_result(&mut self, list: &ImportedList) {
        self.error = None;
        self.result = vec![format!(
            "{}: {} line{} matched, {} not imported; the build is open, unsaved, with the prices and every line in its notes.",
            list.format.name(),
            list.matched.len(),
            if list.matched.len() == 1 { "" } else { "s" },
            list.unmatched.len()
        )];
        for m in &list.matched {
            self.result.push(format!("line {}: {} -> {} ({} %)", m.line.line, m.line.name, m.id, m.confidence_pct));
        }
        for u in &list.unmatched {
            self.result.push(format!("line {}: NOT IMPORTED: {} ({})", u.line.line, u.line.text, u.reason));
        }
    }
}

/// Draws the window if it is open; pushes [`Action::File(FileAction::ImportList)`] or [`Action::View(ViewAction::ClosePasteList)`].
pub fn show(ctx: &egui::Context, state: &mut Option<PasteList>, out: &mut Vec<Action>) {
    let Some(p) = state else { return };
    let mut open = true;
    egui::Window::new("Paste parts list")
        .id(egui::Id::unique("paste-parts-list"))
        .open(&mut open)
        .default_size([640.0, 520.0])
        .collapsible(false)
        .show(ctx, |ui| {
            ui.label(
                "Paste a PCPartPicker list (its Markdown, Text or BBCode export) or one part a line, then Import.",
            );
            ui.add_space(theme::SMALL_GAP);
            egui::ScrollArea::vertical().id_salt("paste-text").max_height(240.0).show(ui, |ui| {
                ui.add(
                    egui::TextEdit::multiline(&mut p.text)
                        .desired_rows(12)
                        .desired_width(f32::INFINITY)
                        .code_editor()
                        .hint_text("CPU: AMD Ryzen 9 7950X 4.5 GHz 16-Core Processor  ($549.00 @ Amazon)"),
                );
            });
            ui.horizontal(|ui| {
                if ui.add_enabled(!p.text.trim().is_empty(), egui::Button::new("Import")).clicked() {
                    out.push(Action::File(FileAction::ImportList(p.text.clone())));
                }
                if ui.button("Close").clicked() {
                    out.push(Action::View(ViewAction::ClosePasteList));
                }
            });
            if let Some(e) = &p.error {
                ui.colored_label(theme::ERROR, e.as_str());
            }
            if !p.result.is_empty() {
                ui.separator();
                egui::ScrollArea::vertical().id_salt("paste-result").show(ui, |ui| {
                    for (i, line) in p.result.iter().enumerate() {
                        if line.contains("NOT IMPORTED") {
                            ui.colored_label(theme::WARNING, line.as_str());
                        } else if i == 0 {
                            ui.strong(line.as_str());
                        } else {
                            ui.label(line.as_str());
                        }
                    }
                });
            }
        });
    if !open {
        out.push(Action::View(ViewAction::ClosePasteList));
    }
}

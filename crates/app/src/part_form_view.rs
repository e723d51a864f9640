//! Draws the part form ([`super::part_form::PartForm`]) as a window: one labelled text box per
//! field, its error beside it, the whole part's problems, Save and Cancel. Typing edits the
//! form (view state) and re-validates it; saving is an [`Action`].

use super::command::{Action, FileAction, ViewAction};
use super::part_form::PartForm;
use super::theme;
use eframe::egui::{self, RichText};

/// Draws the form if it is open; pushes [`Action::File(FileAction::SavePartForm)`] or [`Action::View(ViewAction::ClosePartForm)`].
pub fn show(
    ctx: &egui::Context,
    form: &mut Option<PartForm>,
    user_dir: Option<&std::path::Path>,
    out: &mut Vec<Action>,
) {
    let Some(f) = form else { return };
    let mut open = true;
    let title = match &f.original_id {
        Some(id) if f.inline => format!("Edit {} `{id}` (defined in this build)", f.kind.plural()),
        Some(id) => format!("Edit {} `{id}` as a user part", f.kind.plural()),
        None => format!("New user part ({})", f.kind.plural()),
    };
    egui::Window::new(title)
        .id(egui::Id::unique("part-form"))
        .open(&mut open)
        .default_size([620.0, 560.0])
        .collapsible(false)
        .show(ctx, |ui| body(ui, f, user_dir, out));
    if !open || ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
        out.push(Action::View(ViewAction::ClosePartForm));
    }
}

fn body(ui: &mut egui::Ui, f: &mut PartForm, user_dir: Option<&std::path::Path>, out: &mut Vec<Action>) {
    let dest = if f.inline {
        "this build's own parts (File > Save keeps them in the build file)".to_owned()
    } else {
        user_dir.map_or_else(
            || "no user parts directory (set KRAFTWERK_PARTS_DIR)".to_owned(),
            |d| d.join(format!("{}.ron", f.id())).display().to_string(),
        )
    };
    ui.weak(format!("Saved to {dest}. Empty = unknown; numbers, lists and structures as JSON."));
    ui.add_space(theme::SMALL_GAP);
    let mut changed = false;
    let focus = f.focus.take();
    egui::ScrollArea::vertical().id_salt("part-form-scroll").max_height(400.0).show(ui, |ui| {
        egui::Grid::new("part-form-grid").num_columns(2).spacing([10.0, 4.0]).show(ui, |ui| {
            for field in &mut f.fields {
                let label = ui.label(RichText::new(&field.name).monospace());
                ui.vertical(|ui| {
                    let edit = egui::TextEdit::singleline(&mut field.text).desired_width(380.0);
                    let resp = ui.add(edit).labelled_by(label.id);
                    if focus.as_deref() == Some(field.name.as_str()) {
                        resp.request_focus();
                        resp.scroll_to_me(Some(egui::Align::Center));
                    }
                    changed |= resp.changed();
                    if let Some(e) = &field.error {
                        ui.colored_label(theme::ERROR, e.as_str());
                    }
                });
                ui.end_row();
            }
        });
    });
    if changed {
        f.validate();
    }
    ui.separator();
    for p in &f.problems {
        ui.colored_label(theme::ERROR, p.as_str());
    }
    ui.horizontal(|ui| {
        let (label, hover) = if f.inline {
            ("Save into this build", "Replace the build's own copy of the part and check the build again")
        } else {
            ("Save user part", "Write it to the user parts directory and check the build again")
        };
        let save = ui.add_enabled(f.problems.is_empty(), egui::Button::new(label));
        if save.on_hover_text(hover).clicked() {
            out.push(Action::File(FileAction::SavePartForm));
        }
        if ui.button("Cancel").clicked() {
            out.push(Action::View(ViewAction::ClosePartForm));
        }
    });
}

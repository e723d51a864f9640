//! The Parts tab: the build's parts list ([`PartsList`]) with quantities, prices with their
//! date and source or "unpriced", the provenance of each part's key figures, and the total;
//! exports as Markdown, CSV and JSON. Everything shown comes from [`PartsList::of`], the same
//! list the exports write.

use super::command::{Action, FileAction, ViewAction};
use super::part_form::FormTarget;
use super::state::AppState;
use super::theme;
use eframe::egui::{self, RichText};
use kraftwerk_core::fmt::usd;
use kraftwerk_core::rig::parts_list::{PartsFormat, PartsList, PartsRow};

/// Draws the tab.
pub fn show(ui: &mut egui::Ui, state: &AppState, out: &mut Vec<Action>) {
    let list = PartsList::of(&state.build, &state.catalog);
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(format!("Total: {}", list.total_text())).heading().strong())
            .on_hover_text("Catalog prices (USD) times quantities; unpriced lines are not in the total");
        ui.separator();
        for f in PartsFormat::ALL {
            let b = ui
                .button(format!("Export {}…", f.name()))
                .on_hover_text(format!("Write the parts list as {}", f.name()));
            if b.clicked() {
                out.push(Action::File(FileAction::ExportPartsDialog(f)));
            }
        }
    });
    if list.unpriced_lines > 0 {
        ui.colored_label(
            theme::WARNING,
            format!(
                "{} line{} without a catalog price: the total covers the priced lines only.",
                list.unpriced_lines,
                if list.unpriced_lines == 1 { "" } else { "s" }
            ),
        );
    }
    ui.add_space(theme::SMALL_GAP);
    if list.rows.is_empty() {
        ui.weak("The build has no parts yet: choose them in the build panel.");
        return;
    }
    egui::ScrollArea::both().id_salt("parts-scroll").auto_shrink([false, false]).show(ui, |ui| {
        // The name column takes what the fixed columns leave, so the table fits the window; the
        // key figures go under the name rather than in a column of their own past the edge.
        let name_w = (ui.available_width() - FIXED_COLUMNS_W).clamp(220.0, 640.0);
        egui::Grid::new("parts-grid").striped(true).num_columns(7).spacing([14.0, 6.0]).show(ui, |ui| {
            for h in ["Part", "Name · key figures", "Qty", "Unit price", "Line", "Price date", "Source · origin"] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for r in &list.rows {
                row(ui, r, name_w, out);
            }
            ui.label(RichText::new("Total").strong());
            ui.label("");
            ui.label("");
            ui.label("");
            ui.label(RichText::new(if list.priced_lines == 0 { "—".to_owned() } else { usd(list.total_usd) }).strong());
            ui.end_row();
        });
    });
}

/// Width the columns other than the name take, with their spacing, points (measured at the
/// default font on the widest contents: "Motherboard Edit", "$12,345", "2025-07-23", origin).
const FIXED_COLUMNS_W: f32 = 560.0;

/// Width of the source and origin column's text, points.
const SOURCE_W: f32 = 190.0;

fn row(ui: &mut egui::Ui, r: &PartsRow, name_w: f32, out: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        ui.label(&r.role);
        if let Some(kind) = r.kind {
            let edit = ui.small_button("Edit").on_hover_text(format!("Edit {} as a user part", r.line.id));
            if edit.clicked() {
                out.push(Action::View(ViewAction::OpenPartForm(FormTarget {
                    kind,
                    id: Some(r.line.id.clone()),
                    field: None,
                })));
            }
        }
    });
    let figures: Vec<String> =
        r.key_figures.iter().map(|f| format!("{} {}", f.field, f.value.as_deref().unwrap_or("unknown"))).collect();
    ui.vertical(|ui| {
        ui.set_max_width(name_w);
        ui.add(egui::Label::new(&r.line.name).wrap()).on_hover_text(if r.line.id.is_empty() {
            r.line.name.clone()
        } else {
            format!("{}\nid: {}", r.line.name, r.line.id)
        });
        if !figures.is_empty() {
            ui.add(egui::Label::new(RichText::new(figures.join(" · ")).small().weak()).wrap());
        }
    });
    ui.label(r.line.quantity.to_string());
    match r.line.unit_price_usd {
        Some(p) => ui.label(usd(p)),
        None => ui.colored_label(theme::WARNING, "unpriced"),
    };
    ui.label(r.line_usd.map_or_else(|| "—".to_owned(), usd));
    // The part's own price date, with its age when older than 12 months.
    let today = kraftwerk_catalog::dates::today_utc();
    ui.label(
        r.line.price_date.as_deref().map_or_else(|| "—".to_owned(), |d| kraftwerk_catalog::prices::date_note(d, today)),
    );
    ui.vertical(|ui| {
        ui.set_max_width(SOURCE_W);
        match &r.source {
            Some(url) => {
                ui.hyperlink_to("source", url).on_hover_text(url);
            }
            None => {
                ui.weak("no source");
            }
        }
        ui.add(egui::Label::new(RichText::new(&r.origin).small().weak()).truncate());
    });
    ui.end_row();
}

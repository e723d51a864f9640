//! The Parts tab: the build's parts list ([`PartsList`]) with quantities, prices with their
//! date and source or "unpriced", the provenance of each part's key figures, and the total;
//! exports as Markdown, CSV and JSON. Everything shown comes from [`PartsList::of`], the same
//! list the exports write.

use crate::command::{Action, FileAction, ViewAction};
use crate::part_form::FormTarget;
use crate::state::AppState;
use crate::theme;
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
        // The other columns' width is their widest cells' on the last frame (they do not depend
        // on the name column's), so a font or a long origin cannot push the last column
        // off-screen.
        let fixed_id = egui::Id::unique("parts-grid-fixed-w");
        let fixed = ui.ctx().data(|d| d.get_temp::<f32>(fixed_id)).unwrap_or(FIXED_COLUMNS_W);
        let name_w = (ui.available_width() - fixed).clamp(200.0, 640.0);
        let mut widths = [0.0_f32; 6];
        egui::Grid::new("parts-grid").striped(true).num_columns(7).spacing([COLUMN_GAP, 6.0]).show(ui, |ui| {
            for (i, h) in ["Part", "Name · key figures", "Qty", "Unit price", "Line", "Price date", "Source · origin"]
                .into_iter()
                .enumerate()
            {
                let w = ui.label(RichText::new(h).strong()).rect.width();
                if i != 1 {
                    let k = if i == 0 { 0 } else { i - 1 };
                    widths[k] = widths[k].max(w);
                }
            }
            ui.end_row();
            for r in &list.rows {
                for (k, w) in row(ui, r, name_w, out).into_iter().enumerate() {
                    widths[k] = widths[k].max(w);
                }
            }
            ui.label(RichText::new("Total").strong());
            ui.label("");
            ui.label("");
            ui.label("");
            // "at least" where a line is unpriced, as the heading's total says.
            let total = match (list.priced_lines, list.unpriced_lines) {
                (0, _) => "—".to_owned(),
                (_, 0) => usd(list.total_usd),
                _ => format!("at least {}", usd(list.total_usd)),
            };
            ui.label(RichText::new(total).strong());
            ui.end_row();
        });
        // The six other columns' widest cells and the seven gaps between and after columns.
        let measured = widths.iter().sum::<f32>() + 7.0 * COLUMN_GAP + 4.0;
        if (measured - fixed).abs() > 1.0 {
            ui.ctx().data_mut(|d| d.insert_temp(fixed_id, measured));
            ui.ctx().request_discard("parts table column widths measured");
        }
    });
}

/// Width the columns other than the name take, with their spacing, points (measured at the
/// default font on the widest contents: "Motherboard Edit", "$12,345", "2025-07-23", origin).
const FIXED_COLUMNS_W: f32 = 600.0;

/// Gap between the table's columns, points.
const COLUMN_GAP: f32 = 10.0;

/// Width of the source and origin column's text, points.
const SOURCE_W: f32 = 160.0;

/// "owned" / "bought used" for a row the build marks so: the parts list cuts a line into its
/// owned units ($0) and the units bought (`Build::owned_units`), so each row says its own.
fn owned_or_used(r: &PartsRow) -> Option<&'static str> {
    if r.line.owned() {
        Some("owned: not bought, $0")
    } else if r.line.used() {
        Some("bought used: its cited used price")
    } else {
        None
    }
}

/// One row of the table; returns the widths of its cells other than the name's.
fn row(ui: &mut egui::Ui, r: &PartsRow, name_w: f32, out: &mut Vec<Action>) -> [f32; 6] {
    let role = ui.horizontal(|ui| {
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
        // Exactly `name_w` wide, so the grid's width less it is the other columns' width.
        ui.set_min_width(name_w);
        ui.set_max_width(name_w);
        ui.add(egui::Label::new(&r.line.name).wrap()).on_hover_text(if r.line.id.is_empty() {
            r.line.name.clone()
        } else {
            format!("{}\nid: {}", r.line.name, r.line.id)
        });
        if let Some(label) = owned_or_used(r) {
            ui.colored_label(theme::INFO, RichText::new(label).small().strong());
        }
        if !figures.is_empty() {
            ui.add(egui::Label::new(RichText::new(figures.join(" · ")).small().weak()).wrap());
        }
    });
    let qty = ui.label(r.line.quantity.to_string());
    let unit = match r.line.unit_price_usd {
        Some(0.0) => ui.label("$0"),
        Some(p) => ui.label(usd(p)),
        None => ui.colored_label(theme::WARNING, "unpriced"),
    };
    let line = ui.label(r.line_usd.map_or_else(|| "—".to_owned(), |v| if v == 0.0 { "$0".to_owned() } else { usd(v) }));
    // The part's own price date, with its age when older than 12 months.
    let today = kraftwerk_catalog::dates::today_utc();
    let date =
        r.line.price_date.as_deref().map_or_else(|| "—".to_owned(), |d| kraftwerk_catalog::prices::date_note(d, today));
    // "2025-07-23, 16 months old" on two lines, so the column stays narrow.
    let date = match date.split_once(", ") {
        Some((day, age)) => ui.vertical(|ui| {
            // Never wrapped: a grid cell's width is last frame's, and a wrapped date keeps it narrow.
            ui.add(egui::Label::new(day).extend());
            ui.add(egui::Label::new(RichText::new(age).small().weak()).extend());
        }),
        None => ui.vertical(|ui| {
            ui.label(date);
        }),
    };
    let source = ui.vertical(|ui| {
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
    [
        role.response.rect.width(),
        qty.rect.width(),
        unit.rect.width(),
        line.rect.width(),
        date.response.rect.width(),
        source.response.rect.width(),
    ]
}

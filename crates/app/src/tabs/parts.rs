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
    let today = kraftwerk_catalog::dates::today_utc();
    let cells: Vec<Cells> = list.rows.iter().map(|r| Cells::of(r, today)).collect();
    let total = match (list.priced_lines, list.unpriced_lines) {
        (0, _) => "—".to_owned(),
        (_, 0) => usd(list.total_usd),
        // "at least" where a line is unpriced, as the heading's total says.
        _ => format!("at least {}", usd(list.total_usd)),
    };
    // Vertical scrolling only while the table fits: every column's width is set on this frame
    // from its cells' text ([`column_widths`]), the name wraps and the origin is cut with its
    // full text on hover, so the last column ends at the window's edge. Below the narrowest
    // widths (a window far under 1280 px) the horizontal bar shows what is past the edge.
    egui::ScrollArea::both().id_salt("parts-scroll").auto_shrink([false, false]).show(ui, |ui| {
        let role_id = egui::Id::unique("parts-grid-role-w");
        let role_w = ui.ctx().data(|d| d.get_temp::<f32>(role_id)).unwrap_or(ROLE_W);
        let origins: Vec<&str> = list.rows.iter().map(|r| r.origin.as_str()).collect();
        let w = column_widths(ui, &cells, &origins, &total, role_w, ui.available_width() - SCROLL_BAR_W);
        let mut role_measured = 0.0_f32;
        egui::Grid::new("parts-grid").striped(true).num_columns(7).min_col_width(0.0).spacing([COLUMN_GAP, 6.0]).show(
            ui,
            |ui| {
                for (i, (h, w)) in HEADERS.into_iter().zip(w.all()).enumerate() {
                    let r = cell(ui, w, |ui| ui.label(RichText::new(h).strong()));
                    if i == 0 {
                        role_measured = role_measured.max(r.rect.width());
                    }
                }
                ui.end_row();
                for (r, c) in list.rows.iter().zip(&cells) {
                    role_measured = role_measured.max(row(ui, r, c, &w, out));
                }
                cell(ui, w.role, |ui| {
                    ui.label(RichText::new("Total").strong());
                });
                for w in [w.name, w.qty, w.unit] {
                    cell(ui, w, |ui| {
                        ui.label("");
                    });
                }
                cell(ui, w.line, |ui| {
                    ui.add(egui::Label::new(RichText::new(&total).strong()).extend());
                });
                ui.end_row();
            },
        );
        // The role column holds an Edit button: its width is measured, not computed, and does
        // not depend on the other columns', so one frame settles it.
        if (role_measured - role_w).abs() > 0.5 {
            ui.ctx().data_mut(|d| d.insert_temp(role_id, role_measured));
            ui.ctx().request_discard("parts table role column measured");
        }
    });
}

/// The table's column titles.
const HEADERS: [&str; 7] = ["Part", "Name · key figures", "Qty", "Unit price", "Line", "Price date", "Source · origin"];

/// Width of the role column before it is measured ("Motherboard" and its Edit button), points.
const ROLE_W: f32 = 140.0;

/// Gap between the table's columns, points.
const COLUMN_GAP: f32 = 10.0;

/// Room kept for the vertical scroll bar at the right, points.
const SCROLL_BAR_W: f32 = 14.0;

/// Narrowest name column: a part's name wraps onto more lines below it, points.
const NAME_MIN_W: f32 = 260.0;

/// Widest name column: past it the name column stops growing and the source column takes the
/// rest, points.
const NAME_MAX_W: f32 = 640.0;

/// Narrowest and widest source and origin column, points (the origin is cut past it, in full
/// on hover).
const SOURCE_MIN_W: f32 = 90.0;
const SOURCE_MAX_W: f32 = 200.0;

/// The texts of a row's cells other than the role and name, as drawn.
struct Cells {
    qty: String,
    /// `None`: "unpriced" in the warning colour.
    unit: Option<String>,
    line: String,
    /// The price date and, when older than 12 months, its age on a second line.
    date: (String, Option<String>),
}

impl Cells {
    fn of(r: &PartsRow, today: (i32, u32, u32)) -> Cells {
        let money = |v: f64| if v == 0.0 { "$0".to_owned() } else { usd(v) };
        let date = r
            .line
            .price_date
            .as_deref()
            .map_or_else(|| "—".to_owned(), |d| kraftwerk_catalog::prices::date_note(d, today));
        // "2025-07-23, 16 months old" on two lines, so the column stays narrow.
        let date = match date.split_once(", ") {
            Some((day, age)) => (day.to_owned(), Some(age.to_owned())),
            None => (date, None),
        };
        Cells {
            qty: r.line.quantity.to_string(),
            unit: r.line.unit_price_usd.map(money),
            line: r.line_usd.map_or_else(|| "—".to_owned(), money),
            date,
        }
    }
}

/// Widths of the seven columns, points.
#[derive(Debug, Clone, Copy)]
struct Widths {
    role: f32,
    name: f32,
    qty: f32,
    unit: f32,
    line: f32,
    date: f32,
    source: f32,
}

impl Widths {
    fn all(&self) -> [f32; 7] {
        [self.role, self.name, self.qty, self.unit, self.line, self.date, self.source]
    }
}

/// Width of `text` laid out on one line, points.
fn text_w(ui: &egui::Ui, text: impl Into<egui::WidgetText>) -> f32 {
    text.into().into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Body).size().x
}

/// The columns' widths for a table `avail` points wide: the number and date columns as wide as
/// their widest cell on this frame, the name column what is left less the source column's
/// (its widest origin, within [`SOURCE_MIN_W`]..[`SOURCE_MAX_W`]; the name within
/// [`NAME_MIN_W`]..[`NAME_MAX_W`]), the source column the rest (within the same bounds).
fn column_widths(ui: &egui::Ui, cells: &[Cells], origins: &[&str], total: &str, role: f32, avail: f32) -> Widths {
    let head = |i: usize| text_w(ui, RichText::new(HEADERS[i]).strong());
    let widest = |first: f32, it: &mut dyn Iterator<Item = f32>| it.fold(first, f32::max);
    let qty = widest(head(2), &mut cells.iter().map(|c| text_w(ui, c.qty.as_str())));
    let unit = widest(
        head(3).max(text_w(ui, "unpriced")),
        &mut cells.iter().filter_map(|c| c.unit.as_deref()).map(|t| text_w(ui, t)),
    );
    let line = widest(
        head(4).max(text_w(ui, RichText::new(total).strong())),
        &mut cells.iter().map(|c| text_w(ui, c.line.as_str())),
    );
    let date = widest(
        head(5),
        &mut cells.iter().map(|c| {
            let age = c.date.1.as_deref().map_or(0.0, |a| text_w(ui, RichText::new(a).small().weak()));
            text_w(ui, c.date.0.as_str()).max(age)
        }),
    );
    let fixed = role + qty + unit + line + date + 6.0 * COLUMN_GAP;
    let rest = avail - fixed;
    let source_want = widest(head(6), &mut origins.iter().map(|o| text_w(ui, RichText::new(*o).small().weak())))
        .clamp(SOURCE_MIN_W, SOURCE_MAX_W);
    let name = (rest - source_want).clamp(NAME_MIN_W, NAME_MAX_W);
    let source = (rest - name).clamp(SOURCE_MIN_W, SOURCE_MAX_W);
    Widths { role, name, qty, unit, line, date, source }
}

/// A grid cell exactly `w` points wide.
fn cell<R>(ui: &mut egui::Ui, w: f32, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    ui.vertical(|ui| {
        ui.set_min_width(w);
        ui.set_max_width(w);
        add(ui)
    })
    .inner
}

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

/// One row of the table, each cell as wide as `w` says; returns the width its role cell (the
/// role and its Edit button) takes.
fn row(ui: &mut egui::Ui, r: &PartsRow, c: &Cells, w: &Widths, out: &mut Vec<Action>) -> f32 {
    let role = cell(ui, w.role, |ui| {
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
        })
        .response
        .rect
        .width()
    });
    let figures: Vec<String> =
        r.key_figures.iter().map(|f| format!("{} {}", f.field, f.value.as_deref().unwrap_or("unknown"))).collect();
    cell(ui, w.name, |ui| {
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
    cell(ui, w.qty, |ui| ui.label(&c.qty));
    cell(ui, w.unit, |ui| match &c.unit {
        Some(u) => ui.label(u),
        None => ui.colored_label(theme::WARNING, "unpriced"),
    });
    cell(ui, w.line, |ui| ui.label(&c.line));
    cell(ui, w.date, |ui| {
        ui.add(egui::Label::new(&c.date.0).extend());
        if let Some(age) = &c.date.1 {
            ui.add(egui::Label::new(RichText::new(age).small().weak()).extend());
        }
    });
    cell(ui, w.source, |ui| {
        match &r.source {
            Some(url) => {
                ui.hyperlink_to("source", url).on_hover_text(url);
            }
            None => {
                ui.weak("no source");
            }
        }
        // Cut at the column's edge; egui shows the whole origin on hover.
        ui.add(egui::Label::new(RichText::new(&r.origin).small().weak()).truncate());
    });
    ui.end_row();
    role
}

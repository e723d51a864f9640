//! The Catalog tab: every part of one kind as a sortable, filterable table with its source
//! link; a button to put the part in the build; and an editor to define a custom part (RON, the
//! catalog's own schema), stored inline in the build's `parts`.

use crate::command::{Action, EditAction};
use crate::state::AppState;
use crate::theme;
use crate::widgets::Describe;
use eframe::egui::{self, RichText};
use kraftwerk_catalog::{self as catalog, Catalog, HasId, PartKind, PartsFile};
use kraftwerk_core::rig::Workload;
use kraftwerk_core::rig::edit::merged;
use std::cmp::Ordering;

/// Sort key of a cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// Numeric.
    Num(f64),
    /// Text.
    Text(String),
    /// Unknown (sorts last).
    None,
}

impl Key {
    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Num(a), Key::Num(b)) => a.total_cmp(b),
            (Key::Text(a), Key::Text(b)) => a.to_lowercase().cmp(&b.to_lowercase()),
            (Key::None, Key::None) => Ordering::Equal,
            (Key::None, _) | (Key::Text(_), Key::Num(_)) => Ordering::Greater,
            (_, Key::None) | (Key::Num(_), Key::Text(_)) => Ordering::Less,
        }
    }
}

/// One cell: shown text and sort key.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Shown text.
    pub text: String,
    /// Sort key.
    pub key: Key,
}

fn t(s: impl Into<String>) -> Cell {
    let s = s.into();
    Cell { key: Key::Text(s.clone()), text: s }
}
fn n(v: f64, text: String) -> Cell {
    Cell { text, key: Key::Num(v) }
}
fn on(v: Option<f64>, fmt: impl Fn(f64) -> String) -> Cell {
    v.map_or(Cell { text: "unknown".into(), key: Key::None }, |x| n(x, fmt(x)))
}

/// The field behind each column of `kind`'s table (index 0 is the name), for the provenance
/// shown on hover.
fn column_figures(kind: PartKind) -> &'static [&'static str] {
    match kind {
        PartKind::Gpu => &[
            "name",
            "memory_gib",
            "memory_bandwidth_gb_s",
            "board_power_w",
            "peak.bf16",
            "width_slots",
            "length_mm",
            "pcie_gen",
            "price_usd",
        ],
        PartKind::GpuCard => &["name", "chip", "length_mm", "width_slots", "board_power_w", "cooler", "price_usd"],
        PartKind::Cpu => &["name", "socket", "cores", "tdp_w", "pcie_lanes", "memory_types", "price_usd"],
        PartKind::Motherboard => {
            &["name", "socket", "form_factor", "pcie_slots", "pcie_slots", "memory_slots", "price_usd"]
        }
        PartKind::Psu => &[
            "name",
            "rated_w",
            "atx_version",
            "eighty_plus",
            "connectors.hpwr_16pin",
            "connectors.pcie_8pin",
            "inlet",
            "price_usd",
        ],
        PartKind::Cooler => &["name", "cooler_type", "rated_tdp_w", "sockets", "height_mm", "price_usd"],
        PartKind::Case => &["name", "airflow", "form_factors", "expansion_slots", "max_gpu_length_mm", "price_usd"],
        _ => &[],
    }
}
fn price(v: Option<f64>) -> Cell {
    on(v, kraftwerk_core::fmt::usd)
}

/// One table row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Part id.
    pub id: String,
    /// Cells, one per column.
    pub cells: Vec<Cell>,
    /// Source URL.
    pub source: String,
    /// Defined inline in the build.
    pub inline: bool,
}

/// An open custom-part editor.
#[derive(Debug, Clone, PartialEq)]
pub struct Editor {
    /// RON text of a parts file.
    pub text: String,
    /// The last parse error (`file:line:column: message`).
    pub error: Option<String>,
}

/// Tab state.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogView {
    /// Kind shown.
    pub kind: PartKind,
    /// Filter text.
    pub filter: String,
    /// Sort column.
    pub sort_col: usize,
    /// Ascending.
    pub ascending: bool,
    /// Custom-part editor, if open.
    pub editor: Option<Editor>,
}

impl Default for CatalogView {
    fn default() -> Self {
        CatalogView { kind: PartKind::Gpu, filter: String::new(), sort_col: 0, ascending: true, editor: None }
    }
}

/// Widest the catalog's name column gets, points: a longer name is cut, whole on hover.
const NAME_MAX_W: f32 = 300.0;

/// Vertical gap between the table's rows, points.
const GRID_ROW_GAP: f32 = 6.0;

/// Kind title.
pub fn kind_title(k: PartKind) -> &'static str {
    match k {
        PartKind::Gpu => "GPU chips",
        PartKind::GpuCard => "GPU cards",
        PartKind::Cpu => "CPUs",
        PartKind::Motherboard => "Motherboards",
        PartKind::Psu => "PSUs",
        PartKind::Cooler => "Coolers",
        PartKind::Case => "Cases",
        PartKind::Memory => "Memory",
        PartKind::Storage => "Drives",
        PartKind::Model => "LLM models",
    }
}

fn row<T: HasId>(p: &T, inline: &[T], cells: Vec<Cell>) -> Row {
    let mut all = vec![t(crate::part_form::marked_name(p))];
    all.extend(cells);
    Row {
        id: p.id().to_owned(),
        cells: all,
        source: p.source().to_owned(),
        inline: inline.iter().any(|i| i.id() == p.id()),
    }
}

/// Columns and rows of one kind (inline parts included).
pub fn table(state: &AppState, kind: PartKind) -> (Vec<&'static str>, Vec<Row>) {
    let p = &state.build.parts;
    let c = &state.catalog;
    match kind {
        PartKind::Gpu => table_gpu(p, c),
        PartKind::GpuCard => table_gpu_card(p, c),
        PartKind::Cpu => table_cpu(p, c),
        PartKind::Motherboard => table_motherboard(p, c),
        PartKind::Psu => table_psu(p, c),
        PartKind::Cooler => table_cooler(p, c),
        PartKind::Case => table_case(p, c),
        PartKind::Memory => table_memory(p, c),
        PartKind::Storage => table_storage(p, c),
        PartKind::Model => table_model(p, c),
    }
}

/// The Gpu columns and rows (inline parts first).
fn table_gpu(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Memory", "Bandwidth", "Board power", "BF16 dense", "Slots", "Length", "PCIe", "Price"],
        merged(&p.gpus, &c.gpus)
            .into_iter()
            .map(|g| {
                row(
                    g,
                    &p.gpus,
                    vec![
                        n(g.memory_gib, format!("{:.0} GiB {}", g.memory_gib, g.memory_type)),
                        n(g.memory_bandwidth_gb_s, format!("{:.0} GB/s", g.memory_bandwidth_gb_s)),
                        n(g.board_power_w, format!("{:.0} W", g.board_power_w)),
                        on(g.peak.bf16, |v| format!("{v:.0} TFLOP/s")),
                        n(f64::from(g.width_slots), g.width_slots.to_string()),
                        on(g.length_mm, |v| format!("{v:.0} mm")),
                        n(f64::from(g.pcie_gen), format!("Gen{} x{}", g.pcie_gen, g.pcie_lanes)),
                        price(g.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The GpuCard columns and rows (inline parts first).
fn table_gpu_card(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Chip", "Length", "Slots", "Board power", "Cooler", "Price"],
        merged(&p.gpu_cards, &c.gpu_cards)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.gpu_cards,
                    vec![
                        t(x.chip.clone()),
                        on(x.length_mm, |v| format!("{v:.0} mm")),
                        on(x.width_slots.map(f64::from), |v| format!("{v:.0}")),
                        on(x.board_power_w, |v| format!("{v:.0} W")),
                        t(x.cooler.map_or_else(|| "unknown".to_owned(), |c| format!("{c:?}"))),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Cpu columns and rows (inline parts first).
fn table_cpu(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Socket", "Cores", "TDP", "PCIe lanes", "Memory", "Price"],
        merged(&p.cpus, &c.cpus)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.cpus,
                    vec![
                        t(&x.socket),
                        n(f64::from(x.cores), format!("{} / {}", x.cores, x.threads)),
                        n(x.tdp_w, format!("{:.0} W", x.tdp_w)),
                        n(f64::from(x.pcie_lanes.total()), x.pcie_lanes.total().to_string()),
                        n(
                            f64::from(x.memory_channels),
                            format!(
                                "{} ch {}",
                                x.memory_channels,
                                x.memory_types.first().map_or_else(String::new, ToString::to_string)
                            ),
                        ),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Motherboard columns and rows (inline parts first).
fn table_motherboard(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Socket", "Form factor", "PCIe slots", "x16 slots", "DIMMs", "Price"],
        merged(&p.motherboards, &c.motherboards)
            .into_iter()
            .map(|x| {
                let x16 = x.pcie_slots.iter().filter(|s| s.physical_lanes >= 16).count();
                row(
                    x,
                    &p.motherboards,
                    vec![
                        t(&x.socket),
                        t(x.form_factor.to_string()),
                        n(x.pcie_slots.len() as f64, x.pcie_slots.len().to_string()),
                        n(x16 as f64, x16.to_string()),
                        n(f64::from(x.memory_slots), format!("{} × {}", x.memory_slots, x.memory_type)),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Psu columns and rows (inline parts first).
fn table_psu(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Rated", "ATX", "80 PLUS", "12V-2x6", "PCIe 8-pin", "Inlet", "Price"],
        merged(&p.psus, &c.psus)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.psus,
                    vec![
                        n(x.rated_w, format!("{:.0} W", x.rated_w)),
                        t(format!("{:?}", x.atx_version)),
                        t(x.eighty_plus.label()),
                        on(x.connectors.hpwr_16pin.map(f64::from), |v| format!("{v:.0}")),
                        on(x.connectors.pcie_8pin.map(f64::from), |v| format!("{v:.0}")),
                        t(format!("{:?}", x.inlet)),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Cooler columns and rows (inline parts first).
fn table_cooler(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Type", "Rated", "Sockets", "Height / radiator", "Price"],
        merged(&p.coolers, &c.coolers)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.coolers,
                    vec![
                        t(format!("{:?}", x.cooler_type)),
                        on(x.rated_tdp_w, |v| format!("{v:.0} W")),
                        t(x.sockets.join(", ")),
                        match (x.height_mm, x.radiator_mm) {
                            (Some(h), _) => n(h, format!("{h:.0} mm tall")),
                            (None, Some(r)) => n(f64::from(r), format!("{r} mm radiator")),
                            _ => Cell { text: "—".into(), key: Key::None },
                        },
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Case columns and rows (inline parts first).
fn table_case(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Airflow", "Boards", "Slots", "Max GPU", "Price"],
        merged(&p.cases, &c.cases)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.cases,
                    vec![
                        t(format!("{:?}", x.airflow)),
                        t(x.form_factors.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
                        n(f64::from(x.expansion_slots), x.expansion_slots.to_string()),
                        on(x.max_gpu_length_mm, |v| format!("{v:.0} mm")),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Memory columns and rows (inline parts first).
fn table_memory(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Type", "Kit", "Speed", "ECC", "Price"],
        merged(&p.memory, &c.memory)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.memory,
                    vec![
                        t(x.memory_type.to_string()),
                        n(f64::from(x.total_gb()), format!("{} × {} GB", x.modules, x.module_gb)),
                        n(f64::from(x.speed_mt_s), format!("{} MT/s", x.speed_mt_s)),
                        t(if x.ecc { "yes" } else { "no" }),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Storage columns and rows (inline parts first).
fn table_storage(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Capacity", "Interface", "Form factor", "Read", "Price"],
        merged(&p.storage, &c.storage)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.storage,
                    vec![
                        n(f64::from(x.capacity_gb), format!("{} GB", x.capacity_gb)),
                        t(format!("Gen{} x{}", x.pcie_gen, x.pcie_lanes)),
                        t(&x.form_factor),
                        on(x.seq_read_mb_s.map(f64::from), |v| format!("{v:.0} MB/s")),
                        price(x.price_usd),
                    ],
                )
            })
            .collect(),
    )
}

/// The Model columns and rows (inline parts first).
fn table_model(p: &PartsFile, c: &Catalog) -> (Vec<&'static str>, Vec<Row>) {
    (
        vec!["Name", "Parameters", "Layers", "KV heads", "Context", "Attention"],
        merged(&p.models, &c.models)
            .into_iter()
            .map(|x| {
                row(
                    x,
                    &p.models,
                    vec![
                        n(x.params_b, x.describe().split(" · ").next().unwrap_or_default().to_owned()),
                        n(f64::from(x.layers), x.layers.to_string()),
                        n(f64::from(x.kv_heads), format!("{} of {}", x.kv_heads, x.heads)),
                        n(f64::from(x.max_context), format!("{}k", x.max_context / 1024)),
                        t(match x.attention {
                            catalog::Attention::Full => "full".to_owned(),
                            catalog::Attention::SlidingWindow { window } => format!("sliding {window}"),
                            catalog::Attention::Alternating { window } => format!("alternating {window}"),
                            catalog::Attention::Interleaved { window, global_every } => {
                                format!("sliding {window}, 1 global in {global_every}")
                            }
                            catalog::Attention::Mla { .. } => "MLA".to_owned(),
                            catalog::Attention::LinearHybrid { full_every, .. } => {
                                format!("linear, 1 full in {full_every}")
                            }
                        }),
                    ],
                )
            })
            .collect(),
    )
}

/// The action that puts part `id` of `kind` in the build, and its button text.
fn use_action(state: &AppState, kind: PartKind, id: &str) -> (&'static str, Action) {
    let id = id.to_owned();
    match kind {
        PartKind::Gpu | PartKind::GpuCard => ("Add", Action::Edit(EditAction::AddGpu(id))),
        PartKind::Cpu => ("Use", Action::Edit(EditAction::SetCpu(Some(id)))),
        PartKind::Motherboard => ("Use", Action::Edit(EditAction::SetMotherboard(Some(id)))),
        PartKind::Psu => ("Add", Action::Edit(EditAction::AddPsu(id))),
        PartKind::Cooler => ("Use", Action::Edit(EditAction::SetCooler(Some(id)))),
        PartKind::Case => ("Use", Action::Edit(EditAction::SetCase(Some(id)))),
        PartKind::Memory => ("Use", Action::Edit(EditAction::SetMemoryKit(Some(id)))),
        PartKind::Storage => ("Add", Action::Edit(EditAction::AddStorage(id))),
        PartKind::Model => {
            let (mut w, _) = crate::tabs::fit::workload_or_default(state);
            w.model = id;
            let w: Workload = w;
            ("Use", Action::Edit(EditAction::SetWorkload(Some(w))))
        }
    }
}

/// RON text of a parts file holding a copy of part `id` of `kind`, renamed to a custom id.
pub fn custom_template(state: &AppState, kind: PartKind, id: Option<&str>) -> String {
    fn pick<T: HasId + Clone>(inline: &[T], cat: &[T], id: Option<&str>) -> Option<T> {
        let all = merged(inline, cat);
        id.and_then(|id| all.iter().find(|p| p.id() == id).copied()).or_else(|| all.first().copied()).cloned()
    }
    let p = &state.build.parts;
    let c = &state.catalog;
    let mut file = PartsFile::default();
    let suffix = |s: &str| if s.starts_with("custom-") { s.to_owned() } else { format!("custom-{s}") };
    match kind {
        PartKind::Gpu => file.gpus.extend(pick(&p.gpus, &c.gpus, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::GpuCard => file.gpu_cards.extend(pick(&p.gpu_cards, &c.gpu_cards, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Cpu => file.cpus.extend(pick(&p.cpus, &c.cpus, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Motherboard => file.motherboards.extend(pick(&p.motherboards, &c.motherboards, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Psu => file.psus.extend(pick(&p.psus, &c.psus, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Cooler => file.coolers.extend(pick(&p.coolers, &c.coolers, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Case => file.cases.extend(pick(&p.cases, &c.cases, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Memory => file.memory.extend(pick(&p.memory, &c.memory, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Storage => file.storage.extend(pick(&p.storage, &c.storage, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
        PartKind::Model => file.models.extend(pick(&p.models, &c.models, id).map(|mut x| {
            x.id = suffix(&x.id);
            x
        })),
    }
    let config = ron::ser::PrettyConfig::new().struct_names(false).depth_limit(6);
    let body = ron::Options::default().to_string_pretty(&file, config).unwrap_or_default();
    format!("// A custom part in the catalog's schema. Change the id and the figures, then \"Add to build\".\n{body}\n")
}

/// Host of a URL, for the source column.
fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |x| x.1);
    rest.split('/').next().unwrap_or(rest).trim_start_matches("www.")
}

/// A painted sort arrow at the right end of a column header.
fn sort_arrow(ui: &egui::Ui, rect: egui::Rect, ascending: bool) {
    let c = egui::pos2(rect.right() - 9.0, rect.center().y);
    let (a, b, tip) = if ascending {
        (c + egui::vec2(-4.0, 3.0), c + egui::vec2(4.0, 3.0), c + egui::vec2(0.0, -3.0))
    } else {
        (c + egui::vec2(-4.0, -3.0), c + egui::vec2(4.0, -3.0), c + egui::vec2(0.0, 3.0))
    };
    ui.painter().add(egui::Shape::convex_polygon(
        vec![a, b, tip],
        ui.visuals().strong_text_color(),
        egui::Stroke::NONE,
    ));
}

/// Draws the tab.
// Over 120 lines: the tab's one layout top to bottom (kind chooser, filters, the sorted table
// with visible rows only, the detail pane); the pieces share the view's sort and filter state.
pub fn show(ui: &mut egui::Ui, state: &AppState, cv: &mut CatalogView, out: &mut Vec<Action>) {
    ui.horizontal_wrapped(|ui| {
        for k in PartKind::ALL {
            if ui.selectable_label(cv.kind == k, kind_title(k)).clicked() && cv.kind != k {
                cv.kind = k;
                cv.sort_col = 0;
                cv.ascending = true;
            }
        }
    });
    ui.horizontal(|ui| {
        let l = ui.label("Filter");
        ui.add(egui::TextEdit::singleline(&mut cv.filter).hint_text("name, id or any figure").desired_width(240.0))
            .labelled_by(l.id);
        if !cv.filter.is_empty() && ui.small_button("Clear").clicked() {
            cv.filter.clear();
        }
        if ui
            .button("Define a custom part…")
            .on_hover_text("Start from a copy of the first part of this kind")
            .clicked()
        {
            cv.editor = Some(Editor { text: custom_template(state, cv.kind, None), error: None });
        }
    });
    if let Some(ed) = &mut cv.editor {
        editor(ui, ed, out);
        if ed.text.is_empty() {
            cv.editor = None;
        }
    }
    let (cols, mut rows) = table(state, cv.kind);
    let needle = cv.filter.to_lowercase();
    if !needle.is_empty() {
        rows.retain(|r| r.id.contains(&needle) || r.cells.iter().any(|c| c.text.to_lowercase().contains(&needle)));
    }
    let col = cv.sort_col.min(cols.len().saturating_sub(1));
    rows.sort_by(|a, b| {
        let o = a.cells[col].key.cmp(&b.cells[col].key);
        if cv.ascending { o } else { o.reverse() }
    });
    ui.weak(format!(
        "{} of {} · click a column to sort · the source links to the datasheet the figures come from",
        rows.len(),
        kind_title(cv.kind)
    ));
    let mut new_editor = None;
    // Thousands of imported parts: lay out only the rows in view (the header row is drawn at the
    // top of each visible slice, so it stays in sight while scrolling).
    // A row is a small button high (the interact height) plus the grid's gap; `show_rows` adds
    // the item spacing to the height it is given, so that is taken off (given in full, the
    // rows in view were counted too few and the bottom of the table stayed empty).
    let row_height = (ui.spacing().interact_size.y + GRID_ROW_GAP - ui.spacing().item_spacing.y).max(1.0);
    let total_rows = rows.len() + 1;
    // Both bars always drawn: the table is usually wider and taller than the window, and bars
    // that come and go change the width the grid lays its columns out in.
    egui::ScrollArea::both()
        .id_salt("catalog-scroll")
        .auto_shrink([false, false])
        .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
        .show_rows(ui, row_height, total_rows, |ui, range| {
            let visible = &rows[range.start.min(rows.len())..range.end.saturating_sub(1).min(rows.len())];
            egui::Grid::new(("catalog-grid", cv.kind))
                .striped(true)
                .num_columns(cols.len() + 2)
                .spacing([14.0, GRID_ROW_GAP])
                .show(ui, |ui| {
                    ui.label("");
                    for (i, c) in cols.iter().enumerate() {
                        let sorted = i == col;
                        let resp = ui.add(
                            egui::Button::new(
                                RichText::new(if sorted { format!("{c}    ") } else { (*c).to_owned() }).strong(),
                            )
                            .frame(false),
                        );
                        if sorted {
                            sort_arrow(ui, resp.rect, cv.ascending);
                        }
                        if i == 0 {
                            ui.label(RichText::new("Source").strong());
                        }
                        if resp.clicked() {
                            if cv.sort_col == i {
                                cv.ascending = !cv.ascending;
                            } else {
                                cv.sort_col = i;
                                cv.ascending = true;
                            }
                        }
                    }
                    ui.end_row();
                    for r in visible {
                        ui.horizontal(|ui| {
                            let (label, action) = use_action(state, cv.kind, &r.id);
                            if ui
                                .small_button(label)
                                .on_hover_text(format!("{label} {} to the build", r.cells[0].text))
                                .clicked()
                            {
                                out.push(action);
                            }
                            if ui
                                .small_button("Copy")
                                .on_hover_text("Define a custom part starting from a copy of this one")
                                .clicked()
                            {
                                new_editor = Some(r.id.clone());
                            }
                        });
                        for (i, c) in r.cells.iter().enumerate() {
                            if i == 0 {
                                let mut text = RichText::new(&c.text);
                                if r.inline {
                                    text = text.color(theme::INFO);
                                }
                                // Cut at NAME_MAX_W (PSU titles run to 400 px and pushed the
                                // figures past the edge at 1280x800); the whole name on hover.
                                ui.scope(|ui| {
                                    ui.set_max_width(NAME_MAX_W);
                                    ui.add(egui::Label::new(text).truncate().show_tooltip_when_elided(false))
                                        .on_hover_text(format!(
                                            "{}\nid: {}{}",
                                            c.text,
                                            r.id,
                                            if r.inline { " (custom, inline in this build)" } else { "" }
                                        ));
                                });
                                if r.source.is_empty() {
                                    ui.weak("—");
                                } else {
                                    ui.hyperlink_to(host(&r.source), &r.source).on_hover_text(&r.source);
                                }
                            } else {
                                let resp = ui.label(&c.text);
                                if let (Some(figure), Some(part)) =
                                    (column_figures(cv.kind).get(i), state.catalog.part(cv.kind, &r.id))
                                {
                                    resp.on_hover_text(format!("{figure}: {}", part.provenance_of(figure)));
                                }
                            }
                        }
                        ui.end_row();
                    }
                });
        });
    if let Some(id) = new_editor {
        cv.editor = Some(Editor { text: custom_template(state, cv.kind, Some(&id)), error: None });
    }
}

fn editor(ui: &mut egui::Ui, ed: &mut Editor, out: &mut Vec<Action>) {
    let frame = egui::Frame::group(ui.style());
    theme::full_width(ui, frame, |ui| {
        ui.label(RichText::new("Custom part").strong());
        ui.weak("Stored inline in the build's `parts` (saved with the build file); a custom part overrides a catalog part of the same id. Unknown fields are errors.");
        egui::ScrollArea::vertical().id_salt("custom-editor").max_height(260.0).show(ui, |ui| {
            ui.add(egui::TextEdit::multiline(&mut ed.text).code_editor().desired_width(f32::INFINITY).desired_rows(12))
                .on_hover_text("RON, in the schema of catalog/*.ron");
        });
        if let Some(e) = &ed.error {
            ui.colored_label(theme::ERROR, e);
        }
        ui.horizontal(|ui| {
            if ui.button("Add to build").clicked() {
                match catalog::parse_parts_file("custom part", &ed.text) {
                    Ok(file) if file == PartsFile::default() => {
                        ed.error = Some("custom part: no part in the text".into());
                    }
                    Ok(file) => {
                        out.push(Action::Edit(EditAction::AddInlineParts(file)));
                        ed.text.clear();
                    }
                    Err(e) => ed.error = Some(e.to_string()),
                }
            }
            if ui.button("Cancel").clicked() {
                ed.text.clear();
            }
        });
    });
}

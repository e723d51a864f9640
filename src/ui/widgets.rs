//! Shared widgets: the searchable part picker (compatible parts first) and a gauge bar.
//!
//! The picker ranks candidates by asking the checker: for each candidate it runs
//! [`check::run`] on a copy of the build with that part swapped in and lists the candidate as
//! conflicting when an error finding names the part's place (e.g. a board of another socket
//! than the CPU gets `cpu-socket`). So "compatible" means exactly what the Checks tab would say.
//! The ranking is computed only while a picker is open and cached per build revision.

use super::app::{AppState, merged};
use super::theme;
use crate::build::Build;
use crate::catalog::HasId;
use crate::check::{self, PartRef, Severity};
use eframe::egui::{self, Color32, RichText};
use std::collections::BTreeMap;

/// Which place in the build a picker fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PickTarget {
    /// The CPU.
    Cpu,
    /// The motherboard.
    Motherboard,
    /// The CPU cooler.
    Cooler,
    /// The case.
    Case,
    /// The memory kit.
    Memory,
    /// The model of every GPU.
    AllGpus,
    /// The model of GPU `i`.
    Gpu(usize),
    /// The model of a GPU to add.
    NewGpu,
    /// PSU `i`.
    Psu(usize),
    /// A PSU to add.
    NewPsu,
    /// Drive `i`.
    Storage(usize),
    /// A drive to add.
    NewStorage,
    /// The workload's model.
    Model,
}

/// One candidate in a picker.
#[derive(Debug, Clone, PartialEq)]
pub struct PickItem {
    /// Part id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Short spec line.
    pub detail: String,
    /// The first error the checker reports for this place with this part, if any.
    pub problem: Option<String>,
}

/// Picker candidates per target, for one build revision.
#[derive(Debug, Default)]
pub struct PickCache {
    rev: u64,
    entries: BTreeMap<PickTarget, Vec<PickItem>>,
}

impl PickCache {
    /// The ranked candidates for `target` (computed on first use after each change).
    pub fn get(&mut self, state: &AppState, target: PickTarget) -> &[PickItem] {
        if self.rev != state.rev {
            self.entries.clear();
            self.rev = state.rev;
        }
        self.entries.entry(target).or_insert_with(|| pick_items(state, target))
    }
}

/// Short spec line of a part, for pickers and tables.
pub trait Describe {
    /// e.g. `24 GiB · 450 W · 3-slot`.
    fn describe(&self) -> String;
}

impl Describe for crate::catalog::Gpu {
    fn describe(&self) -> String {
        format!("{:.0} GiB · {:.0} W · {}-slot", self.memory_gib, self.board_power_w, self.width_slots)
    }
}
impl Describe for crate::catalog::Cpu {
    fn describe(&self) -> String {
        format!("{} · {} cores · {:.0} W · {} lanes", self.socket, self.cores, self.tdp_w, self.pcie_lanes.total())
    }
}
impl Describe for crate::catalog::Motherboard {
    fn describe(&self) -> String {
        format!("{} · {} · {} PCIe slots", self.socket, self.form_factor, self.pcie_slots.len())
    }
}
impl Describe for crate::catalog::Psu {
    fn describe(&self) -> String {
        format!("{:.0} W · {:?} · {:?}", self.rated_w, self.atx_version, self.eighty_plus)
    }
}
impl Describe for crate::catalog::Cooler {
    fn describe(&self) -> String {
        format!("{:?}{}", self.cooler_type, self.rated_tdp_w.map_or_else(String::new, |w| format!(" · {w:.0} W")))
    }
}
impl Describe for crate::catalog::Case {
    fn describe(&self) -> String {
        format!(
            "{:?} · {} slots{}",
            self.airflow,
            self.expansion_slots,
            self.max_gpu_length_mm.map_or_else(String::new, |l| format!(" · GPUs to {l:.0} mm"))
        )
    }
}
impl Describe for crate::catalog::MemoryKit {
    fn describe(&self) -> String {
        format!("{} · {}×{} GB · {} MT/s", self.memory_type, self.modules, self.module_gb, self.speed_mt_s)
    }
}
impl Describe for crate::catalog::Storage {
    fn describe(&self) -> String {
        format!("{} GB · Gen{} x{} · {}", self.capacity_gb, self.pcie_gen, self.pcie_lanes, self.form_factor)
    }
}
impl Describe for crate::catalog::LlmModel {
    fn describe(&self) -> String {
        match self.active_params_b {
            Some(a) => format!("{:.0} B ({a:.0} B active) · {}k context", self.params_b, self.max_context / 1024),
            None => format!("{:.1} B · {}k context", self.params_b, self.max_context / 1024),
        }
    }
}

fn items_of<T: HasId + Describe>(parts: Vec<&T>) -> Vec<(String, String, String, bool)> {
    // The last field: imported from a database (curated parts are listed first).
    let imported = |p: &T| matches!(p.origin(), crate::catalog::Origin::Builtin(f) if f.starts_with("catalog/opendb/"));
    parts.into_iter().map(|p| (p.id().to_owned(), p.display_name(), p.describe(), imported(p))).collect()
}

/// Whether a finding part concerns the place `target` fills in `build`.
fn concerns(target: PickTarget, part: PartRef, build: &Build) -> bool {
    match target {
        PickTarget::Cpu => part == PartRef::Cpu,
        PickTarget::Motherboard => part == PartRef::Motherboard,
        PickTarget::Cooler => part == PartRef::Cooler,
        PickTarget::Case => part == PartRef::Case,
        PickTarget::Memory => part == PartRef::Memory,
        PickTarget::AllGpus => matches!(part, PartRef::Gpu(_)),
        PickTarget::Gpu(i) => part == PartRef::Gpu(i),
        PickTarget::NewGpu => part == PartRef::Gpu(build.gpus.len()),
        PickTarget::Psu(i) => part == PartRef::Psu(i),
        PickTarget::NewPsu => part == PartRef::Psu(build.psus.len()),
        PickTarget::Storage(i) => part == PartRef::Storage(i),
        PickTarget::NewStorage => part == PartRef::Storage(build.storage.len()),
        PickTarget::Model => false,
    }
}

/// The build with candidate `id` in place `target`.
fn with_candidate(state: &AppState, target: PickTarget, id: &str) -> Build {
    use super::app::Action;
    let action = match target {
        PickTarget::Cpu => Action::SetCpu(Some(id.to_owned())),
        PickTarget::Motherboard => Action::SetMotherboard(Some(id.to_owned())),
        PickTarget::Cooler => Action::SetCooler(Some(id.to_owned())),
        PickTarget::Case => Action::SetCase(Some(id.to_owned())),
        PickTarget::Memory => Action::SetMemoryKit(Some(id.to_owned())),
        PickTarget::AllGpus => Action::SetGpuModel(None, id.to_owned()),
        PickTarget::Gpu(i) => Action::SetGpuModel(Some(i), id.to_owned()),
        PickTarget::NewGpu => Action::AddGpu(id.to_owned()),
        PickTarget::Psu(i) => Action::SetPsuModel(i, id.to_owned()),
        PickTarget::NewPsu => Action::AddPsu(id.to_owned()),
        PickTarget::Storage(i) => Action::SetStorageDrive(i, id.to_owned()),
        PickTarget::NewStorage => Action::AddStorage(id.to_owned()),
        PickTarget::Model => return state.build.clone(),
    };
    let mut b = state.build.clone();
    super::app::edit_build(&mut b, &state.catalog, action);
    b
}

/// Candidates for `target`, compatible ones first (then by name), each with the checker's
/// first error for that place.
pub fn pick_items(state: &AppState, target: PickTarget) -> Vec<PickItem> {
    let p = &state.build.parts;
    let c = &state.catalog;
    let raw = match target {
        PickTarget::Cpu => items_of(merged(&p.cpus, &c.cpus)),
        PickTarget::Motherboard => items_of(merged(&p.motherboards, &c.motherboards)),
        PickTarget::Cooler => items_of(merged(&p.coolers, &c.coolers)),
        PickTarget::Case => items_of(merged(&p.cases, &c.cases)),
        PickTarget::Memory => items_of(merged(&p.memory, &c.memory)),
        PickTarget::AllGpus | PickTarget::Gpu(_) | PickTarget::NewGpu => items_of(merged(&p.gpus, &c.gpus)),
        PickTarget::Psu(_) | PickTarget::NewPsu => items_of(merged(&p.psus, &c.psus)),
        PickTarget::Storage(_) | PickTarget::NewStorage => items_of(merged(&p.storage, &c.storage)),
        PickTarget::Model => items_of(merged(&p.models, &c.models)),
    };
    let mut items: Vec<(bool, PickItem)> = raw
        .into_iter()
        .map(|(id, name, detail, imported)| {
            let problem = if target == PickTarget::Model {
                None
            } else {
                let b = with_candidate(state, target, &id);
                let report = check::run(&b, &state.catalog);
                report
                    .findings
                    .iter()
                    .find(|f| {
                        f.severity == Severity::Error
                            && f.rule != "missing-parts"
                            && f.parts.iter().any(|&pr| concerns(target, pr, &b))
                    })
                    .map(|f| f.message.clone())
            };
            (imported, PickItem { id, name, detail, problem })
        })
        .collect();
    // Compatible first, then curated before imported, then by name.
    items.sort_by(|(ia, a), (ib, b)| {
        a.problem.is_some().cmp(&b.problem.is_some()).then(ia.cmp(ib)).then_with(|| a.name.cmp(&b.name))
    });
    items.into_iter().map(|(_, it)| it).collect()
}

/// What the user picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    /// A part id.
    Part(String),
    /// "None" (clears the place).
    Cleared,
}

/// A searchable picker for one place of the build.
#[derive(Debug, Clone, Copy)]
pub struct Picker<'a> {
    /// The place it fills.
    pub target: PickTarget,
    /// Id in place now.
    pub current: Option<&'a str>,
    /// Name shown on the closed picker.
    pub current_text: &'a str,
    /// Offer "— none —".
    pub allow_none: bool,
    /// Width of the closed picker, points.
    pub width: f32,
    /// The label the picker is named by (accessibility, tests).
    pub label_id: egui::Id,
    /// Outline it (a clicked finding names this place).
    pub highlighted: bool,
}

impl Picker<'_> {
    /// Shows the picker; returns what was picked this frame.
    pub fn show(self, ui: &mut egui::Ui, cache: &mut PickCache, state: &AppState) -> Option<Picked> {
        let Picker { target, current, current_text, allow_none, width, label_id, highlighted } = self;
        let id_salt = ("picker", target);
        let search_id = ui.make_persistent_id(("picker-search", target));
        let mut picked = None;
        let selected = if current_text.is_empty() { "— none —".to_owned() } else { current_text.to_owned() };
        let text_color = if highlighted { theme::HIGHLIGHT } else { ui.visuals().text_color() };
        let inner = sized(ui, width, |ui| {
            egui::ComboBox::from_id_salt(id_salt)
                .width(width - 8.0)
                .selected_text(RichText::new(selected.clone()).color(text_color))
                .truncate()
                .height(420.0)
                .show_ui(ui, |ui| {
                    ui.set_min_width(width.max(380.0));
                    let first = ui.data(|d| d.get_temp::<String>(search_id)).is_none();
                    let mut search = ui.data(|d| d.get_temp::<String>(search_id)).unwrap_or_default();
                    let te = ui
                        .add(egui::TextEdit::singleline(&mut search).hint_text("Search…").desired_width(f32::INFINITY));
                    if first {
                        te.request_focus();
                    }
                    ui.data_mut(|d| d.insert_temp(search_id, search.clone()));
                    let needle = search.to_lowercase();
                    if allow_none && ui.selectable_label(current.is_none(), "— none —").clicked() {
                        picked = Some(Picked::Cleared);
                    }
                    let items = cache.get(state, target);
                    let matches = |it: &&PickItem| {
                        needle.is_empty()
                            || it.name.to_lowercase().contains(&needle)
                            || it.id.contains(&needle)
                            || it.detail.to_lowercase().contains(&needle)
                    };
                    let mut shown_conflict_header = false;
                    for it in items.iter().filter(matches) {
                        if it.problem.is_some() && !shown_conflict_header {
                            shown_conflict_header = true;
                            ui.separator();
                            ui.colored_label(theme::WARNING, "Conflicts with this build:");
                        }
                        let is_sel = current == Some(it.id.as_str());
                        let mut text = RichText::new(format!("{}   {}", it.name, it.detail));
                        if it.problem.is_some() {
                            text = text.color(ui.visuals().weak_text_color());
                        }
                        let mut resp = ui.selectable_label(is_sel, text);
                        resp = match &it.problem {
                            Some(problem) => resp.on_hover_text(format!("Conflict: {problem}")),
                            None => resp.on_hover_text(&it.id),
                        };
                        if resp.clicked() {
                            picked = Some(Picked::Part(it.id.clone()));
                        }
                    }
                })
        });
        // The selection may be cut off at this width: the whole name on hover.
        inner.response.labelled_by(label_id).on_hover_text(selected);
        if inner.inner.is_none() {
            ui.data_mut(|d| d.remove::<String>(search_id));
        }
        picked
    }
}

/// A figure on a card: title, big value, a line below.
#[derive(Debug, Clone, PartialEq)]
pub struct Stat {
    /// Small title.
    pub title: String,
    /// The figure.
    pub value: String,
    /// Detail under it.
    pub sub: String,
    /// Colour of the figure, if not the text colour.
    pub color: Option<Color32>,
}

impl Stat {
    /// A card.
    pub fn new(title: &str, value: String, sub: String, color: Option<Color32>) -> Self {
        Stat { title: title.to_owned(), value, sub, color }
    }
}

/// Cards in rows of equal columns, as many per row as fit (at least 190 points each).
pub fn stat_cards(ui: &mut egui::Ui, cards: &[Stat]) {
    let per_row = ((ui.available_width() / 190.0).floor() as usize).clamp(1, cards.len().max(1));
    for chunk in cards.chunks(per_row) {
        ui.columns(per_row, |cols| {
            for (col, st) in cols.iter_mut().zip(chunk) {
                theme::full_width(
                    col,
                    egui::Frame::group(col.style()).inner_margin(egui::Margin::symmetric(10, 6)),
                    |ui| {
                        ui.weak(&st.title);
                        let mut t = RichText::new(&st.value).size(20.0).strong();
                        if let Some(c) = st.color {
                            t = t.color(c);
                        }
                        ui.label(t);
                        ui.add(egui::Label::new(RichText::new(&st.sub).weak()).wrap());
                    },
                );
            }
        });
        ui.add_space(theme::SMALL_GAP);
    }
}

/// Runs `add` in a child ui exactly `width` points wide (one row high), so long text inside
/// (a combo box's selection) truncates instead of widening the panel around it.
pub fn sized<R>(ui: &mut egui::Ui, width: f32, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    let size = egui::vec2(width, ui.spacing().interact_size.y);
    ui.allocate_ui_with_layout(size, egui::Layout::left_to_right(egui::Align::Center), |ui| {
        ui.set_max_width(width);
        add(ui)
    })
    .inner
}

/// A horizontal bar: `value` against marks (`(value, label)`), coloured `fill`, with `text`.
pub fn gauge(
    ui: &mut egui::Ui,
    value: f64,
    marks: &[(f64, &str)],
    fill: Color32,
    text: &str,
    width: f32,
) -> egui::Response {
    let height = 22.0;
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(width, height + 14.0), egui::Sense::hover());
    let bar = egui::Rect::from_min_size(rect.min, egui::vec2(width, height));
    let top = marks.iter().map(|m| m.0).fold(value, f64::max).max(1e-9) * 1.08;
    let x_of = |v: f64| bar.left() + (v / top).clamp(0.0, 1.0) as f32 * bar.width();
    let painter = ui.painter_at(rect);
    painter.rect_filled(bar, theme::radius(), ui.visuals().extreme_bg_color);
    let filled = egui::Rect::from_min_max(bar.min, egui::pos2(x_of(value), bar.max.y));
    painter.rect_filled(filled, theme::radius(), fill);
    // Marks closer than a label's width share one label ("outlet, inlet") so none overlap.
    let mut sorted: Vec<(f32, &str)> = marks.iter().map(|(v, l)| (x_of(*v), *l)).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut groups: Vec<(f32, f32, String)> = Vec::new();
    for (x, label) in sorted {
        painter.vline(x, bar.y_range(), egui::Stroke::new(2.0, ui.visuals().strong_text_color()));
        match groups.last_mut() {
            Some((_, last, text)) if x - *last < 44.0 => {
                *last = x;
                text.push_str(", ");
                text.push_str(label);
            }
            _ => groups.push((x, x, label.to_owned())),
        }
    }
    for (first, last, text) in groups {
        painter.text(
            egui::pos2(f32::midpoint(first, last), bar.bottom() + 1.0),
            egui::Align2::CENTER_TOP,
            text,
            egui::FontId::proportional(10.5),
            ui.visuals().text_color(),
        );
    }
    painter.text(
        bar.left_center() + egui::vec2(6.0, 0.0),
        egui::Align2::LEFT_CENTER,
        text,
        egui::FontId::proportional(13.0),
        if theme::is_light(fill) && value / top > 0.45 { Color32::BLACK } else { ui.visuals().strong_text_color() },
    );
    resp
}

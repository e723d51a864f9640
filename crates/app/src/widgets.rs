//! Shared widgets: the searchable part picker (compatible parts first) and a gauge bar.
//!
//! The picker lists chips, partner cards and every other part kind, thousands of them once
//! OpenDB is imported. Typing ranks them with the fuzzy matcher of [`kraftwerk_catalog::search`]
//! over vendor, model and id; filters (GPU length, slot width, PSU wattage, socket) narrow the
//! list first. "Compatible" means what the Checks tab would say: for a candidate the picker runs
//! [`check::run`] on a copy of the build with that part swapped in and marks it conflicting
//! when an error finding names the part's place. That check runs only for the best
//! [`CHECKED_TOP`] hits (listed compatible-first) and for rows as they scroll into view
//! (`ScrollArea::show_rows` draws only visible rows), each once per build revision.

use super::command::{EditAction, edit_build};
use super::state::AppState;
use super::theme;
use eframe::egui::{self, Color32, RichText};
use kraftwerk_catalog::HasId;
use kraftwerk_catalog::search::SearchIndex;
use kraftwerk_core::check::{self, PartRef, Severity};
use kraftwerk_core::rig::Build;
use kraftwerk_core::rig::edit::merged;
use kraftwerk_live::probe::Grade;
use std::collections::{BTreeMap, HashMap};

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

/// Short spec line of a part, for pickers and tables.
pub trait Describe {
    /// e.g. `24 GiB · 450 W · 3-slot`.
    fn describe(&self) -> String;
}

impl Describe for kraftwerk_catalog::Gpu {
    fn describe(&self) -> String {
        format!("{:.0} GiB · {:.0} W · {}-slot", self.memory_gib, self.board_power_w, self.width_slots)
    }
}
impl Describe for kraftwerk_catalog::Cpu {
    fn describe(&self) -> String {
        format!("{} · {} cores · {:.0} W · {} lanes", self.socket, self.cores, self.tdp_w, self.pcie_lanes.total())
    }
}
impl Describe for kraftwerk_catalog::Motherboard {
    fn describe(&self) -> String {
        format!("{} · {} · {}", self.socket, self.form_factor, self.slots_text())
    }
}
impl Describe for kraftwerk_catalog::Psu {
    fn describe(&self) -> String {
        format!("{:.0} W · {:?} · {}", self.rated_w, self.atx_version, self.eighty_plus.label())
    }
}
impl Describe for kraftwerk_catalog::Cooler {
    fn describe(&self) -> String {
        format!("{:?}{}", self.cooler_type, self.rated_tdp_w.map_or_else(String::new, |w| format!(" · {w:.0} W")))
    }
}
impl Describe for kraftwerk_catalog::Case {
    fn describe(&self) -> String {
        format!(
            "{:?} · {} slots{}",
            self.airflow,
            self.expansion_slots,
            self.max_gpu_length_mm.map_or_else(String::new, |l| format!(" · GPUs to {l:.0} mm"))
        )
    }
}
impl Describe for kraftwerk_catalog::MemoryKit {
    fn describe(&self) -> String {
        format!("{} · {}×{} GB · {} MT/s", self.memory_type, self.modules, self.module_gb, self.speed_mt_s)
    }
}
impl Describe for kraftwerk_catalog::Storage {
    fn describe(&self) -> String {
        format!("{} GB · Gen{} x{} · {}", self.capacity_gb, self.pcie_gen, self.pcie_lanes, self.form_factor)
    }
}
impl Describe for kraftwerk_catalog::LlmModel {
    fn describe(&self) -> String {
        match self.active_params_b {
            Some(a) => format!("{:.0} B ({a:.0} B active) · {}k context", self.params_b, self.max_context / 1024),
            None => format!("{:.1} B · {}k context", self.params_b, self.max_context / 1024),
        }
    }
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
    let action = match target {
        PickTarget::Cpu => EditAction::SetCpu(Some(id.to_owned())),
        PickTarget::Motherboard => EditAction::SetMotherboard(Some(id.to_owned())),
        PickTarget::Cooler => EditAction::SetCooler(Some(id.to_owned())),
        PickTarget::Case => EditAction::SetCase(Some(id.to_owned())),
        PickTarget::Memory => EditAction::SetMemoryKit(Some(id.to_owned())),
        PickTarget::AllGpus => EditAction::SetGpuModel(None, id.to_owned()),
        PickTarget::Gpu(i) => EditAction::SetGpuModel(Some(i), id.to_owned()),
        PickTarget::NewGpu => EditAction::AddGpu(id.to_owned()),
        PickTarget::Psu(i) => EditAction::SetPsuModel(i, id.to_owned()),
        PickTarget::NewPsu => EditAction::AddPsu(id.to_owned()),
        PickTarget::Storage(i) => EditAction::SetStorageDrive(i, id.to_owned()),
        PickTarget::NewStorage => EditAction::AddStorage(id.to_owned()),
        PickTarget::Model => return state.build.clone(),
    };
    let mut b = state.build.clone();
    edit_build(&mut b, &state.catalog, action);
    b
}

/// Figures the picker's filters test (`None`: not known or not this kind).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facets {
    /// GPU card length (or a case's maximum GPU length), mm.
    pub length_mm: Option<f64>,
    /// Slots a GPU covers.
    pub width_slots: Option<u8>,
    /// A PSU's rated output, W.
    pub power_w: Option<f64>,
    /// CPU sockets (a CPU's or board's one, a cooler's list).
    pub sockets: Vec<String>,
}

/// The filter figures of a part kind.
pub trait HasFacets {
    /// Its figures for the filters.
    fn facets(&self) -> Facets {
        Facets::default()
    }
}
impl HasFacets for kraftwerk_catalog::Gpu {
    fn facets(&self) -> Facets {
        Facets { length_mm: self.length_mm, width_slots: Some(self.width_slots), ..Facets::default() }
    }
}
impl HasFacets for kraftwerk_catalog::Psu {
    fn facets(&self) -> Facets {
        Facets { power_w: Some(self.rated_w), ..Facets::default() }
    }
}
impl HasFacets for kraftwerk_catalog::Cpu {
    fn facets(&self) -> Facets {
        Facets { sockets: vec![self.socket.clone()], ..Facets::default() }
    }
}
impl HasFacets for kraftwerk_catalog::Motherboard {
    fn facets(&self) -> Facets {
        Facets { sockets: vec![self.socket.clone()], ..Facets::default() }
    }
}
impl HasFacets for kraftwerk_catalog::Cooler {
    fn facets(&self) -> Facets {
        Facets { sockets: self.sockets.clone(), ..Facets::default() }
    }
}
impl HasFacets for kraftwerk_catalog::Case {
    fn facets(&self) -> Facets {
        Facets { length_mm: self.max_gpu_length_mm, ..Facets::default() }
    }
}
impl HasFacets for kraftwerk_catalog::MemoryKit {}
impl HasFacets for kraftwerk_catalog::Storage {}
impl HasFacets for kraftwerk_catalog::LlmModel {}

/// What the picker's filter row asks for; `None`/empty is "any". A part whose figure is
/// unknown does not pass a filter on that figure (unknown is not "fits").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PickFilter {
    /// GPUs at most this long, mm.
    pub max_length_mm: Option<f64>,
    /// GPUs at most this many slots wide.
    pub max_width_slots: Option<u8>,
    /// PSUs of at least this rated output, W.
    pub min_power_w: Option<f64>,
    /// Parts for this socket (case-insensitive substring, `AM5`, `sTR5`).
    pub socket: String,
}

impl PickFilter {
    /// Whether a part with `f` passes.
    pub fn accepts(&self, f: &Facets) -> bool {
        let length_ok = self.max_length_mm.is_none_or(|m| f.length_mm.is_some_and(|l| l <= m));
        let width_ok = self.max_width_slots.is_none_or(|m| f.width_slots.is_some_and(|w| w <= m));
        let power_ok = self.min_power_w.is_none_or(|m| f.power_w.is_some_and(|w| w >= m));
        let s = self.socket.trim().to_lowercase();
        let socket_ok = s.is_empty() || f.sockets.iter().any(|x| x.to_lowercase().contains(&s));
        length_ok && width_ok && power_ok && socket_ok
    }
}

/// The candidates of one picker with their search keys.
#[derive(Debug, Default)]
pub struct PickList {
    /// Every candidate, curated before imported (problems not computed).
    pub items: Vec<PickItem>,
    /// Filter figures, by position in `items`.
    pub facets: Vec<Facets>,
    index: SearchIndex,
}

fn push_items<T: HasId + Describe + HasFacets>(list: &mut Vec<(bool, PickItem, Facets)>, parts: Vec<&T>) {
    // Imported from a database: listed after the curated parts.
    let imported = |p: &T| kraftwerk_catalog::search::is_imported(p.origin());
    list.extend(parts.into_iter().map(|p| {
        let item = PickItem { id: p.id().to_owned(), name: p.display_name(), detail: p.describe(), problem: None };
        (imported(p), item, p.facets())
    }));
}

/// The candidates for `target` (cheap: no check runs), curated before imported, each group in
/// catalog order. The GPU pickers list chips (reference designs) and partner cards.
pub fn pick_list(state: &AppState, target: PickTarget) -> PickList {
    let p = &state.build.parts;
    let c = &state.catalog;
    let mut raw = Vec::new();
    match target {
        PickTarget::Cpu => push_items(&mut raw, merged(&p.cpus, &c.cpus)),
        PickTarget::Motherboard => push_items(&mut raw, merged(&p.motherboards, &c.motherboards)),
        PickTarget::Cooler => push_items(&mut raw, merged(&p.coolers, &c.coolers)),
        PickTarget::Case => push_items(&mut raw, merged(&p.cases, &c.cases)),
        PickTarget::Memory => push_items(&mut raw, merged(&p.memory, &c.memory)),
        PickTarget::AllGpus | PickTarget::Gpu(_) | PickTarget::NewGpu => {
            push_items(&mut raw, merged(&p.gpus, &c.gpus));
            push_items(&mut raw, c.card_gpus.iter().filter(|g| !p.gpus.iter().any(|i| i.id == g.id)).collect());
        }
        PickTarget::Psu(_) | PickTarget::NewPsu => push_items(&mut raw, merged(&p.psus, &c.psus)),
        PickTarget::Storage(_) | PickTarget::NewStorage => push_items(&mut raw, merged(&p.storage, &c.storage)),
        PickTarget::Model => push_items(&mut raw, merged(&p.models, &c.models)),
    }
    raw.sort_by_key(|(imported, _, _)| *imported);
    let index = SearchIndex::new(raw.iter().map(|(_, it, _)| kraftwerk_catalog::search::part_key(&it.name, &it.id)));
    let (items, facets) = raw.into_iter().map(|(_, it, f)| (it, f)).unzip();
    PickList { items, facets, index }
}

/// The checker's first error for place `target` with part `id` in it (`None`: compatible).
pub fn problem_with(state: &AppState, target: PickTarget, id: &str) -> Option<String> {
    if target == PickTarget::Model {
        return None;
    }
    let b = with_candidate(state, target, id);
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
}

/// Every candidate for `target`, compatible ones first (then curated before imported, then by
/// name), each with the checker's first error for that place. Runs the checker once per
/// candidate (seconds over thousands of imported parts): the pickers use [`PickCache::ranked`],
/// which checks only the top-ranked rows.
pub fn pick_items(state: &AppState, target: PickTarget) -> Vec<PickItem> {
    let list = pick_list(state, target);
    let n = list.items.len();
    let mut items: Vec<(usize, PickItem)> = list
        .items
        .into_iter()
        .enumerate()
        .map(|(i, mut it)| {
            it.problem = problem_with(state, target, &it.id);
            (i, it)
        })
        .collect();
    debug_assert_eq!(items.len(), n);
    // Compatible first, then list order (curated before imported), then by name.
    items.sort_by(|(ia, a), (ib, b)| {
        a.problem.is_some().cmp(&b.problem.is_some()).then(ia.cmp(ib)).then_with(|| a.name.cmp(&b.name))
    });
    items.into_iter().map(|(_, it)| it).collect()
}

/// How many of the best search hits the picker checks against the build and lists
/// compatible-first; rows below are checked when they scroll into view.
pub const CHECKED_TOP: usize = 24;

/// Picker candidates and checker verdicts per target, for one build revision.
#[derive(Debug, Default)]
pub struct PickCache {
    rev: u64,
    lists: BTreeMap<PickTarget, PickList>,
    problems: HashMap<(PickTarget, usize), Option<String>>,
}

impl PickCache {
    fn refresh(&mut self, state: &AppState) {
        if self.rev != state.rev {
            self.lists.clear();
            self.problems.clear();
            self.rev = state.rev;
        }
    }

    /// The candidate list for `target` (built on first use after each change).
    pub fn list(&mut self, state: &AppState, target: PickTarget) -> &PickList {
        self.refresh(state);
        self.lists.entry(target).or_insert_with(|| pick_list(state, target))
    }

    /// The checker's verdict on candidate `i` of `target`'s list (computed once per revision).
    pub fn problem(&mut self, state: &AppState, target: PickTarget, i: usize) -> Option<String> {
        self.refresh(state);
        if let Some(p) = self.problems.get(&(target, i)) {
            return p.clone();
        }
        let id = self.list(state, target).items.get(i)?.id.clone();
        let p = problem_with(state, target, &id);
        self.problems.insert((target, i), p.clone());
        p
    }

    /// Positions in `target`'s list matching `query` and `filter`, best first; of the first
    /// [`CHECKED_TOP`] hits the compatible ones come first.
    pub fn ranked(&mut self, state: &AppState, target: PickTarget, query: &str, filter: &PickFilter) -> Vec<usize> {
        let list = self.list(state, target);
        let mut hits = list.index.search(query, |i| filter.accepts(&list.facets[i]));
        let top = hits.len().min(CHECKED_TOP);
        let mut head: Vec<(bool, usize)> =
            hits[..top].iter().map(|&i| (self.problem(state, target, i).is_some(), i)).collect();
        head.sort_by_key(|(conflict, _)| *conflict);
        for (slot, (_, i)) in hits.iter_mut().zip(head) {
            *slot = i;
        }
        hits
    }
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

/// The filter row of `target`'s picker, editing `f` in place.
fn filter_row(ui: &mut egui::Ui, target: PickTarget, f: &mut PickFilter) {
    let opt_f64 = |ui: &mut egui::Ui, v: &mut Option<f64>, label: &str, unit: &str| {
        let mut x = v.unwrap_or(0.0);
        ui.label(label);
        ui.add(egui::DragValue::new(&mut x).range(0.0..=5000.0).speed(5.0).suffix(unit))
            .on_hover_text("0 = any; parts whose figure is unknown are hidden while set");
        *v = (x > 0.0).then_some(x);
    };
    ui.horizontal(|ui| match target {
        PickTarget::AllGpus | PickTarget::Gpu(_) | PickTarget::NewGpu => {
            opt_f64(ui, &mut f.max_length_mm, "Length ≤", " mm");
            let mut w = f.max_width_slots.unwrap_or(0);
            ui.label("Slots ≤");
            ui.add(egui::DragValue::new(&mut w).range(0..=5)).on_hover_text("0 = any");
            f.max_width_slots = (w > 0).then_some(w);
        }
        PickTarget::Psu(_) | PickTarget::NewPsu => opt_f64(ui, &mut f.min_power_w, "Wattage ≥", " W"),
        PickTarget::Cpu | PickTarget::Motherboard | PickTarget::Cooler => {
            ui.label("Socket");
            ui.add(egui::TextEdit::singleline(&mut f.socket).hint_text("any").desired_width(80.0));
        }
        _ => {}
    });
}

impl Picker<'_> {
    /// Shows the picker; returns what was picked this frame.
    pub fn show(self, ui: &mut egui::Ui, cache: &mut PickCache, state: &AppState) -> Option<Picked> {
        let Picker { target, current, current_text, allow_none, width, label_id, highlighted } = self;
        let id_salt = ("picker", target);
        let search_id = ui.make_persistent_id(("picker-search", target));
        let filter_id = ui.make_persistent_id(("picker-filter", target));
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
                    let mut filter = ui.data(|d| d.get_temp::<PickFilter>(filter_id)).unwrap_or_default();
                    let te = ui
                        .add(egui::TextEdit::singleline(&mut search).hint_text("Search…").desired_width(f32::INFINITY));
                    if first {
                        te.request_focus();
                    }
                    filter_row(ui, target, &mut filter);
                    ui.data_mut(|d| {
                        d.insert_temp(search_id, search.clone());
                        d.insert_temp(filter_id, filter.clone());
                    });
                    if allow_none && ui.selectable_label(current.is_none(), "— none —").clicked() {
                        picked = Some(Picked::Cleared);
                    }
                    let hits = cache.ranked(state, target, &search, &filter);
                    if hits.is_empty() {
                        ui.weak("No part matches.");
                    }
                    let row_h = ui.spacing().interact_size.y;
                    egui::ScrollArea::vertical().max_height(360.0).auto_shrink([false, true]).show_rows(
                        ui,
                        row_h,
                        hits.len(),
                        |ui, rows| {
                            for &i in &hits[rows] {
                                let problem = cache.problem(state, target, i);
                                let it = &cache.list(state, target).items[i];
                                let is_sel = current == Some(it.id.as_str());
                                let mut text = RichText::new(format!("{}   {}", it.name, it.detail));
                                if problem.is_some() {
                                    text = text.color(ui.visuals().weak_text_color());
                                }
                                let mut resp = ui.add(egui::Button::selectable(is_sel, text).truncate());
                                resp = match &problem {
                                    Some(problem) => resp.on_hover_text(format!("Conflict: {problem}")),
                                    None => resp.on_hover_text(&it.id),
                                };
                                if resp.clicked() {
                                    picked = Some(Picked::Part(it.id.clone()));
                                }
                            }
                        },
                    );
                })
        });
        // The selection may be cut off at this width: the whole name on hover.
        inner.response.labelled_by(label_id).on_hover_text(selected);
        if inner.inner.is_none() {
            ui.data_mut(|d| {
                d.remove::<String>(search_id);
                d.remove::<PickFilter>(filter_id);
            });
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
                        // Not the columns' justified layout: it stretched wrapped text word by
                        // word (and letter by letter) to the card's width.
                        ui.with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
                            ui.weak(&st.title);
                            let mut t = RichText::new(&st.value).size(20.0).strong();
                            if let Some(c) = st.color {
                                t = t.color(c);
                            }
                            ui.label(t);
                            ui.add(egui::Label::new(RichText::new(&st.sub).weak()).wrap());
                        });
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

// Shared by the Live tab and its cards, links and probe sections.

/// Colour of a probe/validation grade.
pub fn grade_color(g: Grade) -> Color32 {
    match g {
        Grade::Pass => theme::OK,
        Grade::Info => theme::INFO,
        Grade::Warn | Grade::NotMeasured => theme::WARNING,
        Grade::Fail => theme::ERROR,
    }
}

/// A grade as a coloured badge.
pub fn grade_badge(ui: &mut egui::Ui, g: Grade) {
    theme::badge(ui, g.name(), grade_color(g));
}

/// A section's heading (the Live tab's sections).
pub fn section_heading(ui: &mut egui::Ui, text: &str) {
    ui.label(RichText::new(text).heading().strong());
}

/// Library text with the few symbols egui's built-in font lacks spelled out (arrows, math
/// signs), so nothing draws as a box.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '↔' => out.push_str("<->"),
            '→' => out.push_str("->"),
            '←' => out.push_str("<-"),
            '≤' => out.push_str("<="),
            '≥' => out.push_str(">="),
            '−' | '–' => out.push('-'),
            'Σ' => out.push_str("sum "),
            'ᵀ' => out.push('T'),
            'ⁿ' => out.push('n'),
            '⁹' => out.push('9'),
            '∈' => out.push_str("in"),
            '≈' => out.push('~'),
            c => out.push(c),
        }
    }
    out
}

/// `text` wrapped at `width` points.
pub fn wrapped(ui: &mut egui::Ui, text: &str, width: f32) {
    ui.scope(|ui| {
        ui.set_max_width(width);
        ui.add(egui::Label::new(text).wrap());
    });
}

/// A plot of `height_pt` points that the user cannot zoom, drag, scroll or reset: the tabs'
/// charts show one fixed view (Power, LLM fit).
pub(crate) fn static_plot(id: &str, height_pt: f32) -> egui_plot::Plot<'_> {
    egui_plot::Plot::new(id)
        .height(height_pt)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
}

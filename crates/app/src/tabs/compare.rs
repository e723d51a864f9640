//! The Compare tab: the open build beside up to three build files, figure by figure
//! ([`Comparison`]): verdict and coverage, parts cost, wall power and heat at full load, and
//! for the chosen model its fit, tokens/s and $ per million tokens. Rows that differ are
//! marked and the best value of each is outlined. `kraftwerk compare` prints the same rows.

use crate::command::{Action, FileAction, ViewAction};
use crate::files::FileRequest;
use crate::state::AppState;
use crate::theme;
use eframe::egui::{self, RichText};
use kraftwerk_core::compare::{BuildSummary, Comparison, MAX_BUILDS};
use kraftwerk_core::rig::Build;
use kraftwerk_core::rig::edit::merged;

/// The builds to compare with the open one, the chosen model and the cached comparison.
#[derive(Debug, Default)]
pub struct CompareView {
    /// Build files added, with their paths as shown.
    pub others: Vec<(Build, String)>,
    /// Model for the fit figures (`None`: each build's own workload model).
    pub model: Option<String>,
    /// Bumped when `others` or `model` change.
    pub generation: u64,
    /// The comparison for (state revision, generation).
    cache: Option<((u64, u64), Comparison)>,
}

impl CompareView {
    /// The comparison of the open build with the others, recomputed when either changed.
    pub fn comparison(&mut self, state: &AppState) -> &Comparison {
        let key = (state.rev, self.generation);
        if self.cache.as_ref().is_some_and(|(k, _)| *k != key) {
            self.cache = None;
        }
        let others = &self.others;
        let model = self.model.as_deref();
        &self
            .cache
            .get_or_insert_with(|| {
                let mut sums = vec![BuildSummary::with_report(
                    &state.build,
                    &state.catalog,
                    &state.report,
                    model,
                    state.path.as_ref().map(|p| p.display().to_string()),
                )];
                for (b, file) in others {
                    sums.push(BuildSummary::of(b, &state.catalog, model, Some(file.clone())));
                }
                (key, Comparison::from_summaries(sums, model))
            })
            .1
    }
}

/// Draws the tab.
pub fn show(ui: &mut egui::Ui, state: &AppState, compare: &mut CompareView, out: &mut Vec<Action>) {
    ui.horizontal_wrapped(|ui| {
        let full = compare.others.len() + 1 >= MAX_BUILDS;
        let add = ui
            .add_enabled(!full, egui::Button::new("Add a build file…"))
            .on_hover_text(format!("Compare the open build with up to {} others", MAX_BUILDS - 1));
        if add.clicked() {
            out.push(Action::File(FileAction::AskPath(FileRequest::CompareAdd)));
        }
        let shown = compare.model.clone().unwrap_or_else(|| "each build's own workload".to_owned());
        egui::ComboBox::new("compare-model", "Model for tokens/s and $/Mtok").selected_text(shown).show_ui(ui, |ui| {
            if ui.selectable_label(compare.model.is_none(), "each build's own workload").clicked() {
                out.push(Action::View(ViewAction::CompareSetModel(None)));
            }
            for m in merged(&state.build.parts.models, &state.catalog.models) {
                if ui.selectable_label(compare.model.as_deref() == Some(m.id.as_str()), &m.name).clicked() {
                    out.push(Action::View(ViewAction::CompareSetModel(Some(m.id.clone()))));
                }
            }
        });
    });
    ui.weak("The open build is the first column; * marks figures that differ, the best value is outlined.");
    ui.add_space(theme::SMALL_GAP);
    let others: Vec<String> = compare.others.iter().map(|(_, f)| f.clone()).collect();
    let c = compare.comparison(state);
    egui::ScrollArea::both().id_salt("compare-scroll").auto_shrink([false, false]).show(ui, |ui| {
        egui::Grid::new("compare-grid").striped(true).spacing([18.0, 6.0]).show(ui, |ui| {
            ui.label("");
            for (i, b) in c.builds.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.label(RichText::new(&b.name).strong()).on_hover_text(b.file.as_deref().unwrap_or("not saved"));
                    if i == 0 {
                        ui.weak("open build");
                    } else if ui.small_button("Remove").on_hover_text(&others[i - 1]).clicked() {
                        out.push(Action::View(ViewAction::CompareRemove(i - 1)));
                    }
                });
            }
            ui.end_row();
            for r in &c.rows {
                let name = if r.differs { format!("* {}", r.name) } else { r.name.to_owned() };
                ui.label(if r.differs {
                    RichText::new(name).strong().color(theme::WARNING)
                } else {
                    RichText::new(name)
                });
                for (i, v) in r.values.iter().enumerate() {
                    if r.best.contains(&i) {
                        theme::badge(ui, v, theme::OK).on_hover_text("best of the compared builds");
                    } else if let Some((_, why)) = r.not_ranked.iter().find(|(j, _)| *j == i) {
                        ui.label(v).on_hover_text(format!("not ranked on this figure: {why}"));
                    } else {
                        ui.label(v);
                    }
                }
                ui.end_row();
            }
        });
        // A money row whose least figure is a lower bound (a build with an unpriced part): no
        // best, and why, as `kraftwerk compare` says it.
        for r in &c.rows {
            if let Some(why) = &r.undecided {
                ui.weak(format!("{}: undecided: {why}", r.name));
            }
        }
        for b in &c.builds {
            if let Some(n) = &b.fit_note {
                ui.weak(format!("{}: {n}", b.name));
            }
            for c in &b.speed_caveats {
                ui.weak(format!("{}: speed caveat: {c}", b.name));
            }
        }
    });
}

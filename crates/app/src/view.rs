//! The view: the whole window drawn from the state (menu bar, status bar, messages, tab strip,
//! the shown tab, the rule docs window, the unsaved-changes prompt). Drawing only pushes
//! [`Action`]s; nothing here changes the document.

use super::app::KraftwerkApp;
use super::command::{Action, EditAction, FileAction, Pending, PromptChoice, Tab, ViewAction};
use super::{build_panel, judged, overflow, shortcuts, tabs, theme};
use eframe::egui;

impl KraftwerkApp {
    /// Draws the whole window; widgets push actions into `out`.
    pub(super) fn draw(&mut self, ui: &mut egui::Ui, out: &mut Vec<Action>) {
        let ctx = ui.ctx().clone();
        overflow::clear(&ctx);
        let screen = ui.max_rect();
        let r = egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui, out));
        overflow::record(&ctx, "menu", screen, r.response.rect);
        let r = egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        overflow::record(&ctx, "status bar", screen, r.response.rect);
        if self.settings.show_build_panel {
            let allowed = ui.available_rect_before_wrap();
            let r = egui::Panel::left("build-panel")
                .default_size(theme::BUILD_PANEL_WIDTH)
                .min_size(300.0)
                .max_size(560.0)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().id_salt("build-panel-scroll").show(ui, |ui| {
                        build_panel::show(ui, &self.state, &mut self.view, out);
                    });
                });
            overflow::record(&ctx, "build panel", allowed, r.response.rect);
            ui.ctx().data_mut(|d| d.remove::<bool>(theme::scroll_flag_id()));
        }
        let allowed = ui.available_rect_before_wrap();
        let central = egui::CentralPanel::default().show(ui, |ui| {
            self.messages_ui(ui, out);
            ui.horizontal(|ui| {
                for t in Tab::ALL {
                    let mut label = egui::RichText::new(t.title());
                    if t == Tab::Checks {
                        // The problems found, as the status bar and the tab's sections count them.
                        label = egui::RichText::new(judged::Counts::of(&self.state.report).tab_title());
                    }
                    if ui.selectable_label(self.view.tab == t, label.size(15.0)).clicked() {
                        out.push(Action::View(ViewAction::SelectTab(t)));
                    }
                }
            });
            ui.separator();
            match self.view.tab {
                Tab::Build => tabs::build::show(ui, &self.state, &mut self.view, out),
                Tab::Checks => tabs::checks::show(ui, &self.state, &mut self.view, out),
                Tab::Power => tabs::power::show(ui, &self.state, &mut self.view, out),
                Tab::Fit => tabs::fit::show(ui, &self.state, &mut self.view.fit, &mut self.view.picks, out),
                Tab::Catalog => tabs::catalog::show(ui, &self.state, &mut self.view.catalog, out),
                Tab::Parts => crate::tabs::parts::show(ui, &self.state, out),
                Tab::Compare => crate::tabs::compare::show(ui, &self.state, &mut self.view.compare, out),
                Tab::Plan => {
                    self.view.plan.seed_from(&self.state.build);
                    if let Some(a) = crate::tabs::plan::draw(ui, &mut self.view.plan, &self.state.catalog) {
                        out.push(Action::Plan(a));
                    }
                }
                Tab::Live => crate::tabs::live::show(ui, &self.state, &self.live, out),
            }
        });
        overflow::record(&ctx, "central", allowed, central.response.rect);
        if self.view.show_rule_docs {
            let mut open = true;
            egui::Window::new("Rule docs").open(&mut open).default_size([560.0, 600.0]).show(ui.ctx(), |ui| {
                tabs::checks::rule_docs(ui, &mut self.view.rule_filter);
            });
            if !open {
                out.push(Action::View(ViewAction::ToggleRuleDocs));
            }
        }
        self.prompt(ui.ctx(), out);
        self.path_prompt(ui.ctx(), out);
        super::part_form_view::show(ui.ctx(), &mut self.view.part_form, self.user_parts_dir.as_deref(), out);
        super::paste_list::show(ui.ctx(), &mut self.view.paste_list, out);
        super::slot_editor::show(ui.ctx(), &mut self.view.slot_editor, &self.state, out);
        drop_overlay(ui.ctx());
    }

    fn menu_bar(&mut self, ui: &mut egui::Ui, out: &mut Vec<Action>) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.add(with_keys("New", &Action::File(FileAction::New))).clicked() {
                    out.push(Action::File(FileAction::New));
                }
                if ui.add(with_keys("Open…", &Action::File(FileAction::OpenDialog))).clicked() {
                    out.push(Action::File(FileAction::OpenDialog));
                }
                ui.menu_button("Open recent", |ui| {
                    if self.settings.recent.is_empty() {
                        ui.weak("No recent files");
                    }
                    for p in &self.settings.recent {
                        let name =
                            p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned());
                        if ui.button(name).on_hover_text(p.display().to_string()).clicked() {
                            out.push(Action::File(FileAction::Open(p.clone())));
                        }
                    }
                });
                ui.separator();
                if ui.add(with_keys("Save", &Action::File(FileAction::Save))).clicked() {
                    out.push(Action::File(FileAction::Save));
                }
                if ui.add(with_keys("Save As…", &Action::File(FileAction::SaveAsDialog))).clicked() {
                    out.push(Action::File(FileAction::SaveAsDialog));
                }
                if ui.add(with_keys("Export report as Markdown…", &Action::File(FileAction::ExportDialog))).clicked()
                {
                    out.push(Action::File(FileAction::ExportDialog));
                }
                ui.menu_button("Export parts list", |ui| {
                    for f in kraftwerk_core::rig::parts_list::PartsFormat::ALL {
                        if ui.button(format!("{}…", f.name())).clicked() {
                            out.push(Action::File(FileAction::ExportPartsDialog(f)));
                        }
                    }
                });
                ui.separator();
                if ui.button("Quit").clicked() {
                    out.push(Action::File(FileAction::Quit));
                }
            });
            ui.menu_button("Edit", |ui| {
                if ui.add_enabled(!self.undo.is_empty(), with_keys("Undo", &Action::Edit(EditAction::Undo))).clicked() {
                    out.push(Action::Edit(EditAction::Undo));
                }
                if ui.add_enabled(!self.redo.is_empty(), with_keys("Redo", &Action::Edit(EditAction::Redo))).clicked() {
                    out.push(Action::Edit(EditAction::Redo));
                }
                ui.separator();
                if ui.button("Auto-place GPUs").clicked() {
                    out.push(Action::Edit(EditAction::AutoPlaceGpus));
                }
                if ui.button("Paste parts list…").clicked() {
                    out.push(Action::View(ViewAction::PasteListDialog));
                }
                ui.menu_button("New user part", |ui| {
                    for kind in kraftwerk_catalog::PartKind::ALL {
                        if ui.button(kind.plural()).clicked() {
                            out.push(Action::View(ViewAction::OpenPartForm(super::part_form::FormTarget {
                                kind,
                                id: None,
                                field: None,
                            })));
                        }
                    }
                });
            });
            ui.menu_button("View", |ui| {
                for t in Tab::ALL {
                    let select = Action::View(ViewAction::SelectTab(t));
                    let b = egui::Button::selectable(self.view.tab == t, t.title())
                        .shortcut_text(shortcuts::text(&select).unwrap_or_default());
                    if ui.add(b).clicked() {
                        out.push(Action::View(ViewAction::SelectTab(t)));
                    }
                }
                ui.separator();
                if ui
                    .checkbox(
                        &mut self.settings.show_build_panel.clone(),
                        label_with_keys("Build panel", &Action::View(ViewAction::ToggleBuildPanel)),
                    )
                    .clicked()
                {
                    out.push(Action::View(ViewAction::ToggleBuildPanel));
                }
                if ui.checkbox(&mut self.settings.dark.clone(), "Dark theme").clicked() {
                    out.push(Action::View(ViewAction::ToggleDark));
                }
            });
            ui.menu_button("Help", |ui| {
                if ui.add(with_keys("Rule docs", &Action::View(ViewAction::ToggleRuleDocs))).clicked() {
                    out.push(Action::View(ViewAction::ToggleRuleDocs));
                }
                ui.separator();
                ui.label(format!("Kraftwerk {}", env!("CARGO_PKG_VERSION")));
                ui.weak("Plan, check and validate multi-GPU LLM machines.");
                ui.weak("CLI twin: kraftwerk check BUILD.rig.ron");
            });
        });
    }

    fn status_bar(&self, ui: &mut egui::Ui) {
        let r = &self.state.report;
        // Wrapped, so nothing leaves a 1280 px window: the bar grows a line instead.
        ui.horizontal_wrapped(|ui| {
            theme::badge(ui, &r.verdict.to_string(), theme::verdict(r.verdict))
                .on_hover_text("Verdict of the same checker `kraftwerk check` runs");
            ui.label(judged::Counts::of(r).problems_text());
            if let Some(c) = kraftwerk_core::compare::coverage_text(r) {
                // The count here, the rule list on hover (it can run to a dozen ids).
                let short = format!("{} of {} checks ran", r.coverage.ran, r.coverage.total);
                ui.label(short).on_hover_text(c);
            }
            ui.separator();
            let t = &self.state.training;
            if !self.state.build.gpus.is_empty() || !self.state.build.psus.is_empty() {
                ui.label(format!(
                    "full load {:.0} W DC · {} at the wall",
                    t.total_dc_w,
                    kraftwerk_core::report::watts_or_unknown(t.total_wall_w)
                ));
                circuit_amps(ui, &self.state);
            }
            ui.separator();
            let file = self.state.path.as_ref().map_or_else(|| "not saved yet".to_owned(), |p| p.display().to_string());
            ui.weak(file);
            if self.state.dirty {
                theme::dot(ui, theme::WARNING, true);
                ui.colored_label(theme::WARNING, "unsaved changes");
            }
        });
    }

    fn messages_ui(&self, ui: &mut egui::Ui, out: &mut Vec<Action>) {
        for (i, m) in self.messages.iter().enumerate() {
            let color = theme::severity(m.severity);
            egui::Frame::new()
                .stroke(egui::Stroke::new(1.5, color))
                .corner_radius(theme::radius())
                .inner_margin(egui::Margin::same(6))
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        theme::dot(ui, color, true);
                        // The text wraps short of the Dismiss button, never under it.
                        let text_w = (ui.available_width() - DISMISS_W).max(120.0);
                        ui.scope(|ui| {
                            ui.set_max_width(text_w);
                            ui.add(egui::Label::new(egui::RichText::new(&m.text).monospace()).wrap());
                        });
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            if ui.small_button("Dismiss").clicked() {
                                out.push(Action::View(ViewAction::DismissMessage(i)));
                            }
                        });
                    });
                });
            ui.add_space(theme::SMALL_GAP);
        }
    }

    /// The unsaved-changes prompt.
    fn prompt(&self, ctx: &egui::Context, out: &mut Vec<Action>) {
        let Some(p) = &self.pending else { return };
        let what = match p {
            Pending::New => "start a new build",
            Pending::Open(_) | Pending::OpenBuild(_) | Pending::OpenDialog => "open another build",
            Pending::Quit => "quit",
        };
        let mut choice = None;
        let resp = egui::Modal::new(egui::Id::unique("unsaved-prompt")).show(ctx, |ui| {
            ui.set_max_width(420.0);
            ui.heading("Unsaved changes");
            ui.label(format!(
                "“{}” has changes that are not saved. Save them before you {what}?",
                self.state.build.name
            ));
            ui.add_space(theme::SECTION_GAP);
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    choice = Some(PromptChoice::Save);
                }
                if ui.button("Don't save").clicked() {
                    choice = Some(PromptChoice::DontSave);
                }
                if ui.button("Cancel").clicked() {
                    choice = Some(PromptChoice::Cancel);
                }
            });
        });
        if resp.should_close() && choice.is_none() {
            choice = Some(PromptChoice::Cancel);
        }
        if let Some(c) = choice {
            out.push(Action::File(FileAction::Prompt(c)));
        }
    }
}

impl KraftwerkApp {
    /// The in-app path field: shown when no native file dialog can be (with the reason), and in
    /// tests. Enter or OK uses the path, Escape or Cancel closes it.
    fn path_prompt(&mut self, ctx: &egui::Context, out: &mut Vec<Action>) {
        let Some(p) = &mut self.view.path_prompt else { return };
        let request = p.request;
        let resp = egui::Modal::new(egui::Id::unique("path-prompt")).show(ctx, |ui| {
            ui.set_max_width(560.0);
            ui.heading(request.title());
            if let Some(r) = &p.reason {
                ui.colored_label(theme::WARNING, r.as_str());
            }
            let label =
                ui.label(if request.writes() { "Path of the file to write:" } else { "Path of the file to open:" });
            let edit = ui.add(egui::TextEdit::singleline(&mut p.text).desired_width(520.0)).labelled_by(label.id);
            if !edit.has_focus() && !edit.lost_focus() {
                edit.request_focus();
            }
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.add_space(theme::SMALL_GAP);
            ui.horizontal(|ui| {
                let ok = ui.add_enabled(!p.text.trim().is_empty(), egui::Button::new("OK"));
                if (ok.clicked() || enter) && !p.text.trim().is_empty() {
                    out.push(Action::File(FileAction::PathChosen(request, std::path::PathBuf::from(p.text.trim()))));
                }
                if ui.button("Cancel").clicked() {
                    out.push(Action::View(ViewAction::ClosePathPrompt));
                }
            });
        });
        if resp.should_close() {
            out.push(Action::View(ViewAction::ClosePathPrompt));
        }
    }
}

/// Amps per wall circuit at the load `kraftwerk check` judged for the build's workload, each
/// coloured by the wall-circuit findings that name it ([`judged::circuit`]), never by a
/// threshold of its own; the full-load figure and the findings are on hover.
fn circuit_amps(ui: &mut egui::Ui, state: &super::state::AppState) {
    let checked = &state.report.power;
    let mains_v = state.build.site.mains_v;
    for c in &checked.circuits {
        let j = judged::circuit(&state.report, c.index);
        let full = state.training.circuits.iter().find(|f| f.index == c.index);
        // A circuit through a PSU of unknown efficiency has no known draw: "unknown", not a figure.
        let draw = |w: Option<f64>, a: Option<f64>| match (w, a) {
            (Some(w), Some(a)) => format!("{w:.0} W = {a:.1} A"),
            _ => "unknown (a PSU's efficiency is unknown: no 80 PLUS rating known, no published curve)".to_owned(),
        };
        let full_text = full.map_or_else(String::new, |f| {
            format!("\nAt full load (every GPU at its power limit): {}.", draw(f.wall_w, f.amps))
        });
        // Unknown: the least it can draw (rated PSUs' wall draw plus the others' DC load).
        let amps = c.amps.map_or_else(|| format!("at least {:.1} A", c.min_amps), |a| format!("{a:.1} A"));
        ui.colored_label(j.color(), format!("circuit {}: {amps} {}", c.index + 1, checked.state.name()))
            .on_hover_text(format!(
                "{} at {mains_v:.0} V at {} load (the load `kraftwerk check` judges for this build's workload); continuous limit {:.1} A, breaker {:.0} A.{full_text}\n{}",
                draw(c.wall_w, c.amps),
                checked.state.name(),
                c.continuous_a,
                c.breaker_a,
                j.explanation()
            ));
    }
}

fn drop_overlay(ctx: &egui::Context) {
    let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
    if !hovering {
        return;
    }
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::unique("drop-overlay")));
    let rect = ctx.content_rect();
    painter.rect_filled(rect, 0.0, egui::Color32::from_black_alpha(180));
    painter.text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        "Drop a *.rig.ron build file to open it",
        egui::FontId::proportional(24.0),
        egui::Color32::WHITE,
    );
}

/// Room kept for a message's Dismiss button, points.
const DISMISS_W: f32 = 80.0;

/// A menu button whose shortcut label comes from [`shortcuts`] (none when no key sends it).
fn with_keys<'a>(label: &'a str, action: &Action) -> egui::Button<'a> {
    egui::Button::new(label).shortcut_text(shortcuts::text(action).unwrap_or_default())
}

/// `label (keys)`, the keys from [`shortcuts`] (just `label` when no key sends it).
fn label_with_keys(label: &str, action: &Action) -> String {
    shortcuts::text(action).map_or_else(|| label.to_owned(), |k| format!("{label} ({k})"))
}

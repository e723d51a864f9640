//! The Checks tab: the checker's findings by severity, each with its rule's docs on expand; a
//! click on a finding outlines the parts it names (board drawing, build panel). Also the rule
//! docs window (Help → Rule docs).

use crate::command::{Action, Tab, ViewAction};
use crate::judged::Counts;
use crate::state::AppState;
use crate::theme;
use crate::view_state::ViewState;
use eframe::egui::{self, RichText};
use kraftwerk_core::check::{self, Finding, FindingKind, RULES, RuleDoc, Severity};

/// Draws the tab.
pub fn show(ui: &mut egui::Ui, state: &AppState, view: &mut ViewState, out: &mut Vec<Action>) {
    let r = &state.report;
    let counts = Counts::of(r);
    ui.horizontal_wrapped(|ui| {
        theme::badge(ui, &r.verdict.to_string(), theme::verdict(r.verdict));
        ui.label(counts.problems_text());
        if let Some(c) = kraftwerk_core::compare::coverage_text(r) {
            ui.label(c).on_hover_text("How much the checker could check with the figures it has");
        }
        ui.weak("— the same checker as `kraftwerk check`; click a finding to outline its parts.");
        if !view.highlight.is_empty() && ui.button("Clear outline").clicked() {
            out.push(Action::View(ViewAction::Highlight(Vec::new())));
        }
    });
    let supply = kraftwerk_core::report::to_supply_text(r);
    if !supply.is_empty() {
        ui.add_space(theme::SMALL_GAP);
        ui.colored_label(theme::verdict(r.verdict), supply.trim_end());
    }
    ui.add_space(theme::SMALL_GAP);
    egui::ScrollArea::vertical().id_salt("checks-scroll").auto_shrink([false, false]).show(ui, |ui| {
        // The problems by severity, then the "not checked" notes apart: the sections' counts
        // are the status bar's and the tab title's ([`Counts`]).
        let sections = [
            ("Errors", counts.errors, Some(Severity::Error)),
            ("Warnings", counts.warnings, Some(Severity::Warning)),
            ("Notes", counts.notes, Some(Severity::Info)),
            ("Not checked", counts.not_checked, None),
        ];
        for (title, n, sev) in sections {
            let fs: Vec<(usize, &Finding)> = r
                .findings
                .iter()
                .enumerate()
                .filter(|(_, f)| match sev {
                    Some(sev) => f.kind == FindingKind::Problem && f.severity == sev,
                    None => f.kind == FindingKind::NotChecked,
                })
                .collect();
            debug_assert_eq!(fs.len(), n, "{title}: the section lists what Counts counts");
            if fs.is_empty() {
                continue;
            }
            ui.add_space(theme::SMALL_GAP);
            let color = sev.map_or(theme::UNJUDGED, theme::severity);
            ui.label(RichText::new(format!("{title} ({n})")).heading().color(color));
            if sev.is_none() {
                ui.weak("A rule that could not run for a part, because a figure it needs is unknown: not a problem found, and not a pass.");
            }
            for (k, f) in fs {
                finding(ui, state, view, out, k, f);
            }
        }
        if r.findings.is_empty() {
            ui.add_space(theme::SECTION_GAP);
            ui.colored_label(theme::OK, "No findings: every rule passes for this build.");
        }
        ui.add_space(theme::SECTION_GAP);
        let fired: Vec<&str> = r.findings.iter().map(|f| f.rule).collect();
        let passed: Vec<&RuleDoc> = RULES.iter().map(|rule| &rule.doc).filter(|d| !fired.contains(&d.id)).collect();
        egui::CollapsingHeader::new(
            RichText::new(format!("Rules with nothing to report ({})", passed.len())).color(theme::OK),
        )
        .id_salt("passed-rules")
        .show(ui, |ui| {
            for d in passed {
                ui.horizontal(|ui| {
                    theme::dot(ui, theme::OK, true);
                    ui.monospace(d.id);
                    ui.label(d.title).on_hover_text(d.checks);
                });
            }
        });
    });
}

fn finding(ui: &mut egui::Ui, state: &AppState, view: &ViewState, out: &mut Vec<Action>, k: usize, f: &Finding) {
    let not_checked = f.kind == FindingKind::NotChecked;
    let color = if not_checked { theme::UNJUDGED } else { theme::severity(f.severity) };
    let selected = !f.parts.is_empty() && view.highlight == f.parts;
    let stroke = if selected { theme::highlight_stroke(2.0) } else { egui::Stroke::new(1.0, color) };
    theme::full_width(
        ui,
        egui::Frame::new().stroke(stroke).corner_radius(theme::radius()).inner_margin(egui::Margin::symmetric(8, 4)),
        |ui| {
            // Laid out here, wrapped to the frame: a collapsing header would draw it on one line
            // running past the panel.
            let mut job = if not_checked {
                theme::tagged_text(ui, "skip", color, f.rule, &f.message)
            } else {
                theme::finding_text(ui, f.severity, f.rule, &f.message)
            };
            let width = ui.available_width() - ui.spacing().indent - 2.0 * ui.spacing().button_padding.x;
            job.wrap = egui::text::TextWrapping::wrap_at_width(width.max(120.0));
            let header = ui.ctx().fonts_mut(|fonts| fonts.layout_job(job));
            let resp = egui::CollapsingHeader::new(header).id_salt(("finding", k)).show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new("Fix:").strong());
                    ui.label(&f.fix);
                });
                if let Some(rule) = check::rule(f.rule) {
                    ui.add_space(theme::SMALL_GAP);
                    doc_body(ui, &rule.doc);
                }
                if !f.parts.is_empty() && ui.button("Show on the board").clicked() {
                    out.push(Action::View(ViewAction::Highlight(f.parts.clone())));
                    out.push(Action::View(ViewAction::SelectTab(Tab::Build)));
                }
            });
            let header_resp = resp.header_response.on_hover_text(check::rule(f.rule).map_or("", |r| r.doc.title));
            if header_resp.clicked() {
                out.push(Action::View(ViewAction::Highlight(f.parts.clone())));
            }
            if let Some(target) = crate::part_form::figure_to_enter(state, f) {
                let field = target.field.clone().unwrap_or_default();
                ui.horizontal_wrapped(|ui| {
                    let b = ui.button("Enter this figure…").on_hover_text(format!("Open the part form at `{field}`"));
                    if b.clicked() {
                        out.push(Action::View(ViewAction::OpenPartForm(target)));
                    }
                    ui.weak(format!("`{field}` of {}: once entered, the check runs with it", part_name(state, f)));
                });
            }
        },
    );
    ui.add_space(2.0);
}

/// Display name of the part a not-checked finding names, from the report's coverage.
fn part_name(state: &AppState, f: &Finding) -> String {
    crate::part_form::unknown_figure_of(state, f).map_or_else(|| "the part".to_owned(), |u| u.part_name.clone())
}

/// A rule's three-part docs.
fn doc_body(ui: &mut egui::Ui, d: &RuleDoc) {
    ui.label(RichText::new(format!("{} — {} (family {}, up to {})", d.id, d.title, d.family, d.severity)).strong());
    for (h, t) in [("What it checks", d.checks), ("Why it matters", d.why), ("How to fix", d.fix)] {
        ui.label(RichText::new(h).underline());
        ui.add(egui::Label::new(t).wrap());
    }
}

/// The rule docs (Help → Rule docs), filterable.
pub fn rule_docs(ui: &mut egui::Ui, filter: &mut String) {
    ui.horizontal(|ui| {
        let l = ui.label("Filter");
        ui.add(egui::TextEdit::singleline(filter).hint_text("rule id or word")).labelled_by(l.id);
    });
    let needle = filter.to_lowercase();
    egui::ScrollArea::vertical().id_salt("rule-docs").show(ui, |ui| {
        let mut family = "";
        for rule in RULES {
            let d = &rule.doc;
            let text = format!("{} {} {} {} {}", d.id, d.title, d.checks, d.why, d.fix).to_lowercase();
            if !needle.is_empty() && !text.contains(&needle) {
                continue;
            }
            if d.family != family {
                family = d.family;
                ui.add_space(theme::SMALL_GAP);
                ui.label(RichText::new(family).heading());
            }
            egui::CollapsingHeader::new(
                RichText::new(format!("{}  {}", d.id, d.title)).color(theme::severity(d.severity)),
            )
            .id_salt(("doc", d.id))
            .show(ui, |ui| doc_body(ui, d));
        }
    });
}

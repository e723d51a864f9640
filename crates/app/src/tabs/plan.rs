//! The Plan tab: the goal as a form (with the parts you own and the most GPUs, as the CLI
//! offers), the builds that meet it as a table, fully priced first and cheapest first, with
//! each result's parts, prices, dates and sources below it, with
//! "Open this build", the alternatives that lost and, when nothing meets the goal, what
//! relaxing each constraint would buy.
//!
//! Self-contained: [`PlanTab`] holds the form and the search; [`draw`] takes the `Ui` and the
//! catalog and returns a [`PlanTabAction`] for the app to carry out (it never touches the app),
//! as the Live tab does: the app starts and cancels the search and polls it once a frame.
//! The search runs as a [`Job`] (the window's one job type, as the Live tab's probe does) on a
//! named background thread (`kraftwerk-plan`) that reports progress through a bounded channel
//! and stops when cancelled. Every figure comes from
//! [`kraftwerk_core::plan::plan`], the function `kraftwerk plan` prints.

use crate::job::{Job, Polled};
use eframe::egui::{self, RichText};
use kraftwerk_catalog::Catalog;
use kraftwerk_core::estimate::llm::{Mode, Precision};
use kraftwerk_core::fmt::{usd, usd_rate};
use kraftwerk_core::plan::goal::{Form, Goal, GoalPrecision, ModelRef};
use kraftwerk_core::plan::{Control, PlanOutcome};
use kraftwerk_core::report::plan as phrase;
use kraftwerk_core::rig::Build;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;

/// Name of the search thread.
pub const PLAN_THREAD: &str = "kraftwerk-plan";

/// What the tab asks the app to do (inside `Action::Plan`).
#[derive(Debug, Clone, PartialEq)]
pub enum PlanTabAction {
    /// Start a search for the form's goal ([`PlanTab::start`]).
    Start,
    /// Ask the running search to stop ([`PlanTab::cancel`]); its partial answer still arrives.
    Cancel,
    /// Open this build in the Build tab (replacing the current one, as File > Open does).
    OpenBuild(Box<Build>),
}

/// The goal as the form edits it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalForm {
    /// Model preset id.
    pub model: String,
    /// Model file path (used instead of the preset when not empty).
    pub model_file: String,
    /// The best precision that fits, or one named.
    pub precision: GoalPrecision,
    /// Context, tokens (0 = the model's default).
    pub context: u32,
    /// Users.
    pub users: u32,
    /// Decode target per user, tok/s.
    pub tok_s: f64,
    /// Prefill target, tok/s (0 = none).
    pub prefill_tok_s: f64,
    /// Mode.
    pub mode: Mode,
    /// Mains, V.
    pub mains_v: f64,
    /// Breaker, A.
    pub breaker_a: f64,
    /// Circuits.
    pub circuits: usize,
    /// Budget, USD (0 = none).
    pub budget_usd: f64,
    /// Form (`None` = any).
    pub form: Option<Form>,
    /// Used cards allowed.
    pub used: bool,
    /// Parts the build must use and buy (ids), separated by commas or spaces
    /// (`kraftwerk plan --must-have`).
    pub must_have: String,
    /// Parts you own, with a count per part (`1x nvidia-geforce-rtx-3090, asus-pro-ws-wrx80e`;
    /// a plain id is one unit), read by [`kraftwerk_core::plan::owned::owned_parts`] as
    /// `kraftwerk plan --own` reads its values: that many units are free, more may be bought.
    pub owned: String,
    /// Most GPUs in one machine.
    pub max_gpus: u32,
}

impl Default for GoalForm {
    fn default() -> Self {
        let g = Goal::default();
        GoalForm {
            model: match g.model {
                ModelRef::Preset(id) => id,
                ModelRef::File(_) => String::new(),
            },
            model_file: String::new(),
            precision: GoalPrecision::Best,
            context: 0,
            users: g.users,
            tok_s: 20.0,
            prefill_tok_s: 0.0,
            mode: g.mode,
            mains_v: g.mains_v,
            breaker_a: g.breaker_a,
            circuits: g.circuits,
            budget_usd: 0.0,
            form: None,
            used: false,
            must_have: String::new(),
            owned: String::new(),
            max_gpus: g.max_gpus,
        }
    }
}

impl GoalForm {
    /// The goal the form describes.
    ///
    /// # Errors
    /// The owned list [`kraftwerk_core::plan::owned::owned_parts`] or the must-have list
    /// [`kraftwerk_core::plan::owned::must_have_parts`] refuses (a count of 0, a count without
    /// an id, counts on two parts), in its words.
    pub fn goal(&self) -> Result<Goal, String> {
        let model = if self.model_file.trim().is_empty() {
            ModelRef::Preset(self.model.clone())
        } else {
            ModelRef::File(self.model_file.trim().into())
        };
        let owned = kraftwerk_core::plan::owned::owned_parts(&[self.owned.as_str()]).map_err(|e| e.to_string())?;
        let (must_have, must_have_count) =
            kraftwerk_core::plan::owned::must_have_parts(&[self.must_have.as_str()]).map_err(|e| e.to_string())?;
        Ok(Goal {
            model,
            precision: self.precision,
            context: (self.context > 0).then_some(self.context),
            users: self.users,
            tok_s: self.tok_s,
            prefill_tok_s: (self.prefill_tok_s > 0.0).then_some(self.prefill_tok_s),
            mode: self.mode,
            mains_v: self.mains_v,
            breaker_a: self.breaker_a,
            circuits: self.circuits,
            budget_usd: (self.budget_usd > 0.0).then_some(self.budget_usd),
            form: self.form,
            used: self.used,
            must_have,
            must_have_count,
            owned,
            max_gpus: self.max_gpus.max(1),
            max_results: 10,
            ..Goal::default()
        })
    }
}

/// Tab state: the form, a running search, the last answer.
#[derive(Default)]
pub struct PlanTab {
    /// The goal.
    pub form: GoalForm,
    /// The running search: its result, and (steps done, steps in all) as progress.
    job: Option<Job<Result<PlanOutcome, String>, (usize, usize)>>,
    /// The running search's last progress.
    progress: (usize, usize),
    /// The last answer (or why there is none).
    pub outcome: Option<Result<PlanOutcome, String>>,
    /// The form as last seeded from a build's workload ([`PlanTab::seed_from`]), and that
    /// workload's (model, context, mode).
    seeded: Option<(GoalForm, (String, u32, Mode))>,
}

impl PlanTab {
    /// Seeds an untouched form with the open build's workload: its model, context and mode, so
    /// the tab plans for what the build is for, not the default model. A build opened later
    /// seeds it again while the form is as it was seeded; a form the user has edited is left
    /// as it is.
    pub fn seed_from(&mut self, build: &Build) {
        let Some(w) = build.workload.as_ref().filter(|w| !w.model.is_empty()) else { return };
        let key = (w.model.clone(), w.context, w.mode);
        // Untouched: the default form, or the form as this tab last seeded it (a build opened
        // later reseeds it). Edited: left alone.
        let untouched = match &self.seeded {
            None => self.form == GoalForm::default(),
            Some((form, seeded_key)) => {
                if *seeded_key == key {
                    return;
                }
                self.form == *form
            }
        };
        if untouched {
            self.form.model.clone_from(&w.model);
            self.form.context = w.context;
            self.form.mode = w.mode;
            self.seeded = Some((self.form.clone(), key));
        }
    }

    /// Whether a search is running.
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Progress of the running search: (steps done, steps in all).
    pub fn progress(&self) -> Option<(usize, usize)> {
        self.job.as_ref().map(|_| self.progress)
    }

    /// Starts a search for the form's goal on a background thread (cancelling a running one).
    pub fn start(&mut self, catalog: &Catalog) {
        self.cancel();
        let goal = match self.form.goal() {
            Ok(g) => g,
            Err(e) => {
                self.outcome = Some(Err(e));
                return;
            }
        };
        let catalog = catalog.clone();
        let work = move |cancel: Arc<AtomicBool>, tx: SyncSender<(usize, usize)>| {
            // Progress is dropped when the channel is full (the tab drains it each frame).
            let mut progress = move |done: usize, total: usize| {
                let _ = tx.try_send((done, total));
            };
            kraftwerk_core::plan::plan(&catalog, &goal, &mut Control { cancel: &cancel, progress: &mut progress })
                .map_err(|e| e.to_string())
        };
        match Job::spawn(PLAN_THREAD, None, work) {
            Ok(job) => {
                self.job = Some(job);
                self.progress = (0, 1);
            }
            Err(e) => self.outcome = Some(Err(format!("cannot start the search thread: {e}"))),
        }
    }

    /// Asks the running search to stop; its partial answer still arrives.
    pub fn cancel(&mut self) {
        if let Some(j) = &mut self.job {
            j.cancel();
        }
    }

    /// Drains the job's progress and result; returns true when the search finished in this call.
    pub fn poll(&mut self) -> bool {
        let Some(job) = &mut self.job else { return false };
        if let Some(&(d, t)) = job.drain_progress().last() {
            self.progress = (d, t.max(1));
        }
        let outcome = match job.poll() {
            Polled::Running => return false,
            Polled::Done(r) => r,
            Polled::Lost => Err("the search thread stopped without an answer".into()),
        };
        self.outcome = Some(outcome);
        self.job = None;
        true
    }
}

fn goal_form(ui: &mut egui::Ui, f: &mut GoalForm, catalog: &Catalog) {
    egui::Grid::new("plan-goal").num_columns(4).spacing([12.0, 6.0]).show(ui, |ui| {
        let l = ui.label("Model").id;
        egui::ComboBox::from_id_salt("plan-model")
            .selected_text(f.model.clone())
            .show_ui(ui, |ui| {
                for m in &catalog.models {
                    ui.selectable_value(&mut f.model, m.id.clone(), format!("{} {}", m.vendor, m.name));
                }
            })
            .response
            .labelled_by(l);
        ui.label("or model file");
        ui.text_edit_singleline(&mut f.model_file).on_hover_text("A parts file (RON) holding one model");
        ui.end_row();

        let l = ui.label("Precision").id;
        egui::ComboBox::from_id_salt("plan-precision")
            .selected_text(f.precision.to_string())
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut f.precision, GoalPrecision::Best, "best");
                for p in [
                    Precision::Bf16,
                    Precision::Fp8,
                    Precision::Int8,
                    Precision::Q8_0,
                    Precision::Q6_K,
                    Precision::Q5_K_M,
                    Precision::Q4_K_M,
                    Precision::Int4,
                ] {
                    ui.selectable_value(&mut f.precision, GoalPrecision::Exact(p), p.to_string());
                }
            })
            .response
            .labelled_by(l);
        let l = ui.label("Mode").id;
        egui::ComboBox::from_id_salt("plan-mode")
            .selected_text(f.mode.to_string())
            .show_ui(ui, |ui| {
                for m in [Mode::Inference, Mode::Lora, Mode::Qlora, Mode::FullFineTune] {
                    ui.selectable_value(&mut f.mode, m, m.to_string());
                }
            })
            .response
            .labelled_by(l);
        ui.end_row();

        let l = ui.label("Context (0 = default)").id;
        ui.add(egui::DragValue::new(&mut f.context).range(0..=1_048_576).speed(256)).labelled_by(l);
        let l = ui.label("Users").id;
        ui.add(egui::DragValue::new(&mut f.users).range(1..=4096)).labelled_by(l);
        ui.end_row();

        let l = ui.label("Decode tok/s per user").id;
        ui.add(egui::DragValue::new(&mut f.tok_s).range(0.0..=10_000.0).speed(0.5)).labelled_by(l);
        let l = ui.label("Prefill tok/s (0 = any)").id;
        ui.add(egui::DragValue::new(&mut f.prefill_tok_s).range(0.0..=1_000_000.0).speed(50.0)).labelled_by(l);
        ui.end_row();

        let l = ui.label("Mains V").id;
        ui.add(egui::DragValue::new(&mut f.mains_v).range(90.0..=260.0).speed(1.0)).labelled_by(l);
        let l = ui.label("Breaker A").id;
        ui.add(egui::DragValue::new(&mut f.breaker_a).range(1.0..=100.0).speed(0.5)).labelled_by(l);
        ui.end_row();

        let l = ui.label("Circuits").id;
        ui.add(egui::DragValue::new(&mut f.circuits).range(1..=16)).labelled_by(l);
        let l = ui.label("Budget USD (0 = none)").id;
        ui.add(egui::DragValue::new(&mut f.budget_usd).range(0.0..=10_000_000.0).speed(100.0)).labelled_by(l);
        ui.end_row();

        let l = ui.label("Form").id;
        let shown = f.form.map_or_else(|| "any".to_owned(), |x| x.to_string());
        egui::ComboBox::from_id_salt("plan-form")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut f.form, None, "any");
                for x in [Form::Tower, Form::OpenFrame, Form::Rack] {
                    ui.selectable_value(&mut f.form, Some(x), x.to_string());
                }
            })
            .response
            .labelled_by(l);
        ui.checkbox(&mut f.used, "Used cards allowed");
        ui.end_row();

        let l = ui.label("Parts you own (Nx id)").id;
        ui.text_edit_singleline(&mut f.owned)
            .on_hover_text("Parts you already have, a count per part, separated by commas: `1x nvidia-geforce-rtx-3090, asus-pro-ws-wrx80e` (a plain id is one). That many are free; more of the same may be bought. As `kraftwerk plan --own`")
            .labelled_by(l);
        let l = ui.label("Most GPUs").id;
        ui.add(egui::DragValue::new(&mut f.max_gpus).range(1..=64)).labelled_by(l);
        ui.end_row();

        let l = ui.label("Parts to buy ([Nx] id)").id;
        ui.text_edit_singleline(&mut f.must_have)
            .on_hover_text("Catalog ids of parts the build must use and buy (a board, case, card, CPU, PSU), separated by commas; a GPU may carry a count (`2x amd-radeon-rx-7900-xtx`: exactly two); as `kraftwerk plan --must-have`")
            .labelled_by(l);
        ui.end_row();
    });
}

/// `s` cut to `n` characters with an ellipsis (the whole text goes in the hover).
fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n.saturating_sub(1)).collect::<String>())
    }
}

/// Each result's parts with price, date and source; unpriced parts say so.
fn parts_lists(ui: &mut egui::Ui, out: &PlanOutcome) {
    for r in &out.results {
        egui::CollapsingHeader::new(format!("{}. {}: parts, prices, dates and sources", r.rank, r.title))
            .id_salt(("plan-parts", r.rank))
            .show(ui, |ui| {
                egui::Grid::new(("plan-parts-grid", r.rank)).striped(true).spacing([10.0, 2.0]).show(ui, |ui| {
                    for h in ["Qty", "Part", "Unit price", "Date", "Source"] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for p in &r.eval.parts {
                        ui.label(p.quantity.to_string());
                        ui.label(cut(&p.name, 60)).on_hover_text(format!("{} ({})", p.name, p.id));
                        match p.unit_price_usd {
                            Some(x) if p.used() => ui.label(format!("{} used", usd(x))),
                            Some(x) => ui.label(usd(x)),
                            None => ui.colored_label(ui.visuals().warn_fg_color, "unknown"),
                        };
                        let today = kraftwerk_catalog::dates::today_utc();
                        ui.label(
                            p.price_date
                                .as_deref()
                                .map_or_else(|| "-".to_owned(), |d| kraftwerk_catalog::prices::date_note(d, today)),
                        );
                        let source = p.price_source.as_deref().unwrap_or(if p.unit_price_usd.is_some() {
                            "the part's own source (catalog)"
                        } else {
                            "-"
                        });
                        ui.label(cut(source, 60)).on_hover_text(source);
                        ui.end_row();
                    }
                });
                if let Some(h) = &r.eval.hybrid {
                    ui.label(phrase::hybrid_line(h));
                    if let Some(n) = &h.precision_note {
                        ui.label(format!("Precision: {n}."));
                    }
                }
            });
    }
}

fn results_table(ui: &mut egui::Ui, out: &PlanOutcome) -> Option<PlanTabAction> {
    let mut action = None;
    egui::Grid::new("plan-results").striped(true).spacing([10.0, 4.0]).show(ui, |ui| {
        // Eleven columns, long names cut (whole in the hover): the table fits a 1280 px window.
        for h in [
            "",
            "#",
            "GPUs",
            "Board, form",
            "Precision",
            "Price",
            "Unpriced",
            "Power",
            "Decode/user",
            "$/Mtok",
            "Checker",
        ] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for r in &out.results {
            let e = &r.eval;
            if ui.button("Open this build").clicked() {
                action = Some(PlanTabAction::OpenBuild(Box::new(r.build.clone())));
            }
            ui.label(r.rank.to_string());
            ui.label(cut(&r.gpus, 22)).on_hover_text(&r.gpus);
            let board = r.title.split_once(" on ").map_or(r.title.as_str(), |(_, b)| b);
            ui.label(cut(board, 26)).on_hover_text(board);
            ui.label(r.precision.to_string());
            let price = if r.price_complete { usd(r.price_usd) } else { format!("at least {}", usd(r.price_usd)) };
            ui.label(price).on_hover_text(if r.price_complete {
                "every part priced"
            } else {
                "a lower bound: the parts in the Unpriced column have no price"
            });
            if e.unpriced.is_empty() {
                ui.label("none");
            } else {
                let all = e.unpriced.join(", ");
                ui.colored_label(ui.visuals().warn_fg_color, cut(&all, 24)).on_hover_text(all);
            }
            // A planned power limit is part of the answer: shown in the cell, its command and
            // cost in the hover (the same sentence as `kraftwerk plan`).
            let wall = kraftwerk_core::report::watts_or_unknown(e.wall_w);
            let watts = match &e.power_cap {
                Some(c) => format!("{wall} · cap {:.0} W", c.limit_w),
                None => wall,
            };
            let cap = e.power_cap.as_ref().map_or_else(String::new, |c| format!("\npower limit: {}", c.describe()));
            let psus = e.multi_psu.as_ref().map_or_else(String::new, |m| format!("\nPSUs: {m}"));
            ui.label(watts).on_hover_text(format!("{}{cap}{psus}", phrase::power_line(e)));
            let runtime = phrase::runtime_name(r);
            // The speed as `plan` and `fit` spell it; an unvalidated speed (a caveat) says so
            // beside the figure, and the caveats are written out under the table.
            let sp = e.speed_summary();
            // Only the ranked caveats mark a speed unvalidated (as the ranking and the header
            // do); a note such as an unverified RAM kit rating is written out under the table.
            let caveat = if e.speed_caveats.is_empty() { "" } else { " (unvalidated)" };
            ui.label(format!("{} ({runtime}){caveat}", sp.decode_figure())).on_hover_text(format!(
                "{runtime}, {}; {}{}",
                r.precision,
                sp.line(),
                sp.caveat_lines().iter().fold(String::new(), |acc, c| acc + "\n" + c)
            ));
            let bound = if r.price_complete { "" } else { "at least " };
            ui.label(e.usd_per_mtok.map_or_else(|| "unknown".into(), |c| format!("{bound}{}", usd_rate(c))))
                .on_hover_text(phrase::cost_line(r));
            // Warnings, and the checks that could not run on a figure the goal does not hinge on.
            let mut text = e.warnings.len().to_string();
            if !e.not_checked_other.is_empty() {
                text = format!("{text} · {} not checked", e.not_checked_other.len());
            }
            if e.verdict == Some(kraftwerk_core::check::Verdict::Unverified) {
                text = format!("UNVERIFIED · {text}");
            }
            // The same lines as `kraftwerk plan` writes under the result.
            let mut hover = phrase::checker_lines(e);
            hover.extend(phrase::verify_line(e));
            ui.label(text).on_hover_text(if hover.is_empty() { "none".to_owned() } else { hover.join("\n") });
            ui.end_row();
        }
    });
    action
}

/// Each result's speed as `kraftwerk plan` writes it under the result ([`kraftwerk_core::estimate::speed_summary::SpeedSummary::line`])
/// and its caveats in the warning colour, wrapped, so they are read without a hover.
/// `width`: the visible width the lines wrap at, points.
fn speed_lines(ui: &mut egui::Ui, out: &PlanOutcome, width: f32) {
    ui.scope(|ui| {
        ui.set_max_width(width);
        speed_lines_within(ui, out);
    });
}

fn speed_lines_within(ui: &mut egui::Ui, out: &PlanOutcome) {
    for r in out.results.iter().filter(|r| r.eval.train_setup.is_none()) {
        let sp = r.eval.speed_summary();
        let runtime = phrase::runtime_name(r);
        // Monospace: the proportional font draws llama.cpp's `--n-cpu-moe` as one long dash.
        let line = format!("{}. speed ({runtime}, {}): {}", r.rank, r.precision, sp.line());
        ui.add(egui::Label::new(RichText::new(line).monospace()).wrap());
        // The vLLM setting the result relies on to start, as `kraftwerk plan` prints it.
        if let Some(v) = &r.eval.vllm_setting {
            let line = format!("{}. {}", r.rank, phrase::vllm_setting_line(v));
            ui.add(egui::Label::new(RichText::new(line).monospace()).wrap());
        }
        for o in &r.eval.owned_unused {
            ui.add(egui::Label::new(format!("{}. owned GPUs: {o}", r.rank)).wrap());
        }
        if let Some(t) = phrase::memory_tight_line(&r.eval) {
            ui.add(
                egui::Label::new(RichText::new(format!("{}. {t}", r.rank)).color(ui.visuals().warn_fg_color)).wrap(),
            );
        }
        for c in sp.caveat_lines() {
            ui.add(
                egui::Label::new(RichText::new(format!("{}. {c}", r.rank)).color(ui.visuals().warn_fg_color)).wrap(),
            );
        }
    }
}

/// Draws the tab; returns what the app should do.
pub fn draw(ui: &mut egui::Ui, tab: &mut PlanTab, catalog: &Catalog) -> Option<PlanTabAction> {
    ui.heading("Plan a rig");
    ui.label(
        "The builds that meet the goal, cheapest first. Every build is checked by the same rules as the Checks tab.",
    );
    goal_form(ui, &mut tab.form, catalog);
    let mut action = None;
    ui.horizontal(|ui| {
        if ui.add_enabled(!tab.running(), egui::Button::new("Plan")).clicked() {
            action = Some(PlanTabAction::Start);
        }
        if ui.add_enabled(tab.running(), egui::Button::new("Cancel")).clicked() {
            action = Some(PlanTabAction::Cancel);
        }
        if let Some((d, t)) = tab.progress() {
            ui.add(egui::ProgressBar::new(d as f32 / t as f32).show_percentage().desired_width(200.0));
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(50));
        }
    });
    ui.separator();
    match &tab.outcome {
        None => {
            ui.label("Set the goal and press Plan.");
        }
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        Some(Ok(out)) => {
            ui.label(RichText::new(&out.goal).italics());
            if out.cancelled {
                ui.label("Cancelled: the answer is partial.");
            }
            // The visible width: the results table may be wider (the area scrolls sideways), but
            // the speed lines wrap at what is on screen (a trial found them cut at 1400 px).
            // Less the vertical scroll bar's width, which the lines would run under.
            let visible_w = ui.available_width() - ui.spacing().scroll.allocated_width();
            egui::ScrollArea::both().id_salt("plan-scroll").show(ui, |ui| {
                if out.results.is_empty() {
                    ui.label(RichText::new("Nothing in the catalog meets this goal.").strong());
                } else {
                    action = results_table(ui, out).or(action.take());
                    // Cheaper builds that met the goal but rank after these (UNVERIFIED, ...),
                    // as `kraftwerk plan` names them under its results.
                    if let Some(c) = &out.cheaper_not_shown {
                        ui.scope(|ui| {
                            ui.set_max_width(visible_w);
                            let line =
                                RichText::new(phrase::cheaper_not_shown_line(c)).color(ui.visuals().warn_fg_color);
                            ui.add(egui::Label::new(line).wrap());
                        });
                    }
                    speed_lines(ui, out, visible_w);
                    parts_lists(ui, out);
                }
                if !out.relaxations.is_empty() {
                    let binding: Vec<String> = out.binding.iter().map(ToString::to_string).collect();
                    ui.label(format!(
                        "Binding: {}",
                        if binding.is_empty() { "no single constraint".into() } else { binding.join(", ") }
                    ));
                    for r in &out.relaxations {
                        ui.label(format!("With {}: {}", r.change, r.buys.as_deref().unwrap_or("still nothing")));
                    }
                }
                egui::CollapsingHeader::new(format!("Alternatives that lost ({})", out.rejected.len()))
                    .id_salt("plan-lost")
                    .show(ui, |ui| {
                        for r in &out.rejected {
                            ui.label(format!("[{}] {}", r.constraint, r.reason));
                        }
                    });
                ui.label(out.stats.summary());
            });
        }
    }
    action
}

impl std::fmt::Debug for PlanTab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanTab").field("running", &self.job.is_some()).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(tab: &mut PlanTab) {
        for _ in 0..2000 {
            if tab.poll() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("the search did not finish");
    }

    #[test]
    fn background_search_answers_and_draws() {
        let catalog = kraftwerk_catalog::builtin().expect("catalog");
        let mut tab = PlanTab::default();
        tab.form.used = true;
        tab.form.precision = GoalPrecision::Exact(Precision::Int4);
        tab.start(&catalog);
        assert!(tab.running());
        wait(&mut tab);
        let out = tab.outcome.as_ref().expect("answer").as_ref().expect("plan");
        assert!(!out.results.is_empty());
        let ctx = egui::Context::default();
        let mut action = None;
        let mut frame = ctx.run_ui(egui::RawInput::default(), |ui| action = draw(ui, &mut tab, &catalog));
        frame.textures_delta.clear(); // no renderer here
        assert!(action.is_none(), "nothing clicked");
    }

    #[test]
    fn cancel_gives_a_partial_answer() {
        let catalog = kraftwerk_catalog::builtin().expect("catalog");
        let mut tab = PlanTab::default();
        tab.start(&catalog);
        tab.cancel();
        wait(&mut tab);
        assert!(tab.outcome.is_some());
    }
}

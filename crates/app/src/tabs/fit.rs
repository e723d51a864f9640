//! The LLM fit tab: model, precision, context, batch and mode (stored in the build's
//! `workload`), the split over the GPUs, KV-cache precision and the cloud price; per-GPU memory
//! as stacked bars; decode and prefill speed; $ per million tokens and the cloud break-even
//! plot. Every number comes from [`kraftwerk_core::estimate::fit::for_build`], the function
//! `kraftwerk fit` prints, so the tab and the CLI agree.

use crate::command::{Action, EditAction};
use crate::state::AppState;
use crate::theme;
use crate::widgets::{self, Stat};
use crate::widgets::{PickCache, PickTarget, Picked, Picker};
use eframe::egui::{self, Color32, RichText};
use egui_plot::{Bar, BarChart, GridMark, Line, LineStyle, PlotPoints, VLine};
use kraftwerk_catalog::HasId;
use kraftwerk_core::estimate::cost::{self, CostReport};
use kraftwerk_core::estimate::fit::{self, BuildFit, FitOptions, RuntimeChoice};
use kraftwerk_core::estimate::llm::placement::PastedFlags;
use kraftwerk_core::estimate::llm::search::{Alternatives, ContextPoint};
use kraftwerk_core::estimate::llm::support::Support;
use kraftwerk_core::estimate::llm::{self, FitReport, FitVerdict, Mode, Parallelism, Precision};
use kraftwerk_core::estimate::model_file::{ModelFile, read_model_file};
use kraftwerk_core::estimate::speed_summary::SpeedSummary;
use kraftwerk_core::fmt::{usd, usd_rate};
use kraftwerk_core::report::fit as report;
use kraftwerk_core::rig::Workload;

mod plots;
use plots::{break_even_plot, context_plot, memory_plot};

/// The model used when the build names no workload.
pub const DEFAULT_MODEL: &str = "llama-3.1-70b";

/// How the model is spread (the degree is set apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitKind {
    /// `kraftwerk fit`'s default: every GPU, a layer split for GGUF or an odd count, else
    /// tensor parallel.
    #[default]
    Auto,
    /// One GPU.
    Single,
    /// Tensor parallel.
    Tensor,
    /// Layers split over the GPUs.
    Layers,
    /// Replicas / data parallel.
    Data,
}

/// Fit settings that are not part of the build file (the options of `kraftwerk fit`).
#[derive(Debug, Clone, PartialEq)]
pub struct FitSettings {
    /// Split kind.
    pub split: SplitKind,
    /// GPUs used (0 = all).
    pub degree: u32,
    /// KV-cache precision.
    pub kv: Precision,
    /// Cloud price to compare with, USD per hour.
    pub cloud_usd_per_hour: f64,
    /// A model read from a file dropped on the window or opened ([`FitView::set_model_file`]);
    /// it replaces the workload's model and precision while set.
    pub model_file: Option<ModelFile>,
    /// llama.cpp placement flags, as typed or pasted (a whole `llama-server ...` line reads
    /// too: [`PastedFlags`]); empty for llama.cpp's own placement. The flags `kraftwerk fit`
    /// takes one by one (`-ngl`, `--n-cpu-moe`, `-ot`, `-sm`, `-ts`, `-ub`).
    pub llama_flags: String,
}

impl Default for FitSettings {
    fn default() -> Self {
        FitSettings {
            split: SplitKind::Auto,
            degree: 0,
            kv: Precision::Fp16,
            cloud_usd_per_hour: cost::DEFAULT_CLOUD_USD_PER_HOUR,
            model_file: None,
            llama_flags: String::new(),
        }
    }
}

/// Tab state: the settings and a cached outcome.
#[derive(Debug, Default)]
pub struct FitView {
    /// Settings.
    pub settings: FitSettings,
    cache: Option<(u64, FitSettings, Workload, Result<BuildFit, String>)>,
    /// The llama.cpp flags field as last read (its text and what it parsed to), so the row
    /// drawn every frame re-parses (and recompiles `-ot` patterns) only when the text changes.
    flags_read: Option<(String, Result<PastedFlags, String>)>,
}

impl FitView {
    /// Reads the model file at `path` (a `.gguf` file, a Hugging Face folder, its config.json
    /// or a `.safetensors` shard; headers only) and fits it from now on. The GUI's
    /// drag-and-drop and File menu call this. Returns the file's one-line summary, or the
    /// reader's error for the user (the current model stays).
    pub fn set_model_file(&mut self, path: &std::path::Path) -> Result<String, String> {
        let f = read_model_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let summary = f.summary();
        self.settings.model_file = Some(f);
        Ok(summary)
    }
}

/// The workload the tab works on: the build's, else a default.
pub fn workload_or_default(state: &AppState) -> (Workload, bool) {
    if let Some(w) = &state.build.workload {
        return (w.clone(), true);
    }
    let model = if state.catalog.model(DEFAULT_MODEL).is_some() {
        DEFAULT_MODEL.to_owned()
    } else {
        state.catalog.models.first().map_or_else(String::new, |m| m.id.clone())
    };
    (
        Workload {
            model,
            precision: Precision::Q4_K_M,
            context: 8192,
            batch: 1,
            mode: Mode::Inference,
            gradient_checkpointing: false,
            parallel: None,
            nodes: None,
            interconnect: None,
            runtime: None,
            backend: None,
            max_num_seqs: None,
        },
        false,
    )
}

/// The options `kraftwerk fit` would take for this workload and these settings.
pub fn options(w: &Workload, s: &FitSettings, gpus: usize) -> FitOptions {
    let n = u32::try_from(gpus).unwrap_or(1).max(1);
    let degree = if s.degree == 0 { n } else { s.degree.min(n) };
    let parallelism = match s.split {
        SplitKind::Auto => None,
        SplitKind::Single => Some(Parallelism::Single),
        SplitKind::Tensor => Some(Parallelism::TensorParallel(degree)),
        SplitKind::Layers => Some(Parallelism::LayerSplit(degree)),
        SplitKind::Data => Some(Parallelism::DataParallel(degree)),
    };
    let file = s.model_file.clone();
    FitOptions {
        model: if file.is_some() { None } else { Some(w.model.clone()) },
        precision: if file.is_some() { None } else { Some(w.precision) },
        kv_precision: Some(s.kv),
        context: Some(w.context),
        batch: Some(w.batch),
        mode: Some(w.mode),
        parallelism,
        cloud_usd_per_hour: Some(s.cloud_usd_per_hour),
        model_file: file,
        // The runtime the build is planned for (`None`: the precision's usual one); a
        // training mode takes the default training framework, never an inference runtime.
        runtime: if w.mode.is_training() { None } else { w.runtime.map(RuntimeChoice::Inference) },
        // A training setting: inference refuses training options (`fit` reads the workload's).
        gradient_checkpointing: Some(w.gradient_checkpointing).filter(|_| w.mode.is_training()),
        gpu_memory_utilization: None,
        max_num_batched_tokens: None,
        // The vLLM setting the build runs with (a plan's `--max-num-seqs`), as `fit` reads it.
        max_num_seqs: w.max_num_seqs,
        nodes: w.nodes,
        interconnect: w.interconnect,
        // Current llama.cpp builds (the estimate's default era).
        llama_cpp_era: None,
        // The placement flags typed in the tab; flags that do not parse are refused by
        // [`compute`], never dropped silently.
        llama_cpp: s.llama_flags.parse::<PastedFlags>().map(|p| p.flags).unwrap_or_default(),
        ..FitOptions::default()
    }
}

/// Runs the fit and cost estimate as `kraftwerk fit` does.
pub fn compute(state: &AppState, w: &Workload, s: &FitSettings) -> Result<BuildFit, String> {
    let gpus = state.build.gpus.len();
    if gpus == 0 {
        return Err("Add GPUs in the build panel to estimate the fit.".into());
    }
    s.llama_flags.parse::<PastedFlags>().map_err(|e| format!("llama.cpp flags: {e}"))?;
    fit::for_build(&state.build, &state.catalog, &options(w, s, gpus)).map_err(|e| e.to_string())
}

fn verdict_color(v: FitVerdict) -> Color32 {
    match v {
        FitVerdict::Fits => theme::OK,
        FitVerdict::Tight => theme::WARNING,
        FitVerdict::DoesNotFit => theme::ERROR,
    }
}

/// Draws the tab.
///
/// `fit` is the tab's own state; `picks` the pickers' cache (the model picker).
pub fn show(ui: &mut egui::Ui, state: &AppState, fit: &mut FitView, picks: &mut PickCache, out: &mut Vec<Action>) {
    let (w, in_build) = workload_or_default(state);
    egui::ScrollArea::vertical().id_salt("fit-scroll").auto_shrink([false, false]).show(ui, |ui| {
        controls(ui, state, fit, picks, out, &w, in_build);
        ui.add_space(theme::SECTION_GAP);
        let fresh =
            fit.cache.as_ref().is_some_and(|(rev, s, cw, _)| *rev == state.rev && *s == fit.settings && *cw == w);
        if !fresh {
            let outcome = compute(state, &w, &fit.settings);
            fit.cache = Some((state.rev, fit.settings.clone(), w.clone(), outcome));
        }
        let Some((_, _, _, outcome)) = &fit.cache else { return };
        match outcome {
            Err(e) => {
                ui.colored_label(theme::WARNING, e);
            }
            Ok(o) => results(ui, o, &w, state),
        }
    });
}

fn controls(
    ui: &mut egui::Ui,
    state: &AppState,
    fit: &mut FitView,
    picks: &mut PickCache,
    out: &mut Vec<Action>,
    work: &Workload,
    in_build: bool,
) {
    let w = work;
    let model = state.build.parts.models.iter().chain(&state.catalog.models).find(|m| m.id == w.model);
    let mut new = w.clone();
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("Model");
        let text = model.map_or_else(|| w.model.clone(), HasId::display_name);
        let picked = Picker {
            target: PickTarget::Model,
            current: Some(&w.model),
            current_text: &text,
            allow_none: false,
            width: 240.0,
            label_id: l.id,
            highlighted: false,
        }
        .show(ui, picks, state);
        if let Some(Picked::Part(id)) = picked {
            new.model = id;
        }
        let l = ui.label("Precision");
        egui::ComboBox::from_id_salt("fit-precision")
            .selected_text(w.precision.to_string())
            .width(90.0)
            .show_ui(ui, |ui| {
                for p in Precision::NAMED {
                    if ui.selectable_label(w.precision == p, format!("{p} ({:.2} bits)", p.bits_per_weight())).clicked()
                    {
                        new.precision = p;
                    }
                }
            })
            .response
            .labelled_by(l.id);
        let l = ui.label("Mode");
        let mode = w.mode;
        egui::ComboBox::from_id_salt("fit-mode")
            .selected_text(mode.file_name())
            .width(120.0)
            .show_ui(ui, |ui| {
                for m in [Mode::Inference, Mode::Lora, Mode::Qlora, Mode::FullFineTune] {
                    if ui.selectable_label(mode == m, m.file_name()).clicked() {
                        new.mode = m;
                    }
                }
            })
            .response
            .labelled_by(l.id);
    });
    ui.horizontal_wrapped(|ui| {
        let max_ctx = model.map_or(1 << 20, |m| m.max_context.max(1));
        let l = ui.label("Context");
        let mut ctx = w.context;
        ui.add(
            egui::DragValue::new(&mut ctx)
                .range(1..=max_ctx)
                .clamp_existing_to_range(false)
                .speed(64.0)
                .suffix(" tokens"),
        )
        .labelled_by(l.id);
        for (t, v) in [("4k", 4096), ("8k", 8192), ("32k", 32768), ("128k", 131_072)] {
            if v <= max_ctx && ui.small_button(t).on_hover_text(format!("{v} tokens")).clicked() {
                ctx = v;
            }
        }
        new.context = ctx;
        let l = ui.label("Batch");
        ui.add(egui::DragValue::new(&mut new.batch).range(1..=512).clamp_existing_to_range(false).suffix(" sequences"))
            .labelled_by(l.id);
    });
    split_row(ui, &mut fit.settings, state.build.gpus.len().max(1));
    llama_flags_row(ui, &mut fit.settings, &mut fit.flags_read);
    model_file_row(ui, &mut fit.settings);
    if !in_build {
        ui.weak(
            "This build names no workload: showing a default. Change any control above to store it in the build file.",
        );
    }
    if new != *w {
        out.push(Action::Edit(EditAction::SetWorkload(Some(new))));
    }
}

/// Split kind and degree, KV-cache precision and the cloud price.
fn split_row(ui: &mut egui::Ui, fs: &mut FitSettings, n: usize) {
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("Split");
        egui::ComboBox::from_id_salt("fit-split")
            .selected_text(split_name(fs.split))
            .width(130.0)
            .show_ui(ui, |ui| {
                for k in [SplitKind::Auto, SplitKind::Single, SplitKind::Tensor, SplitKind::Layers, SplitKind::Data] {
                    ui.selectable_value(&mut fs.split, k, split_name(k));
                }
            })
            .response
            .labelled_by(l.id);
        if !matches!(fs.split, SplitKind::Single) {
            let l = ui.label("over");
            let mut d = if fs.degree == 0 { n as u32 } else { fs.degree.min(n as u32) };
            if ui
                .add(egui::DragValue::new(&mut d).range(1..=n as u32).clamp_existing_to_range(false).suffix(" GPUs"))
                .labelled_by(l.id)
                .changed()
            {
                fs.degree = d;
            }
        }
        let l = ui.label("KV cache");
        egui::ComboBox::from_id_salt("fit-kv")
            .selected_text(fs.kv.to_string())
            .width(70.0)
            .show_ui(ui, |ui| {
                for p in [Precision::Fp16, Precision::Fp8, Precision::Q8_0, Precision::Q4_0] {
                    ui.selectable_value(&mut fs.kv, p, p.to_string());
                }
            })
            .response
            .labelled_by(l.id);
        let l = ui.label("Cloud A100 80 GB at");
        ui.add(
            egui::DragValue::new(&mut fs.cloud_usd_per_hour)
                .range(0.0..=100.0)
                .clamp_existing_to_range(false)
                .speed(0.01)
                .prefix("$")
                .suffix(" per hour"),
        )
        .labelled_by(l.id);
    });
}

/// llama.cpp's placement flags (`-ngl`, `--n-cpu-moe`, `-ot`, `-sm`, `-ts`, `-ub`; a whole
/// `llama-server` line may be pasted): the fit judges exactly that placement, as `kraftwerk fit`
/// does with the same flags. Flags that do not set the placement are named as not modelled.
fn llama_flags_row(ui: &mut egui::Ui, fs: &mut FitSettings, read: &mut Option<(String, Result<PastedFlags, String>)>) {
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("llama.cpp flags");
        // Multi-line, so a pasted script keeps its line breaks and `\` continuations (a
        // single-line field turns them into spaces, and `\ ` then escapes the space).
        ui.add(
            egui::TextEdit::multiline(&mut fs.llama_flags)
                .id_salt("fit-llama-flags")
                .hint_text("e.g. -ngl 99 --n-cpu-moe 20 -ub 2048 (or paste a llama-server line)")
                .desired_rows(1)
                .desired_width(420.0),
        )
        .labelled_by(l.id);
        if !fs.llama_flags.is_empty() && ui.small_button("Clear").clicked() {
            fs.llama_flags.clear();
        }
    });
    if read.as_ref().is_none_or(|(text, _)| *text != fs.llama_flags) {
        *read = Some((fs.llama_flags.clone(), fs.llama_flags.parse::<PastedFlags>()));
    }
    let Some((_, parsed)) = read.as_ref() else { return };
    match parsed {
        Ok(p) => {
            if !p.set_by_form.is_empty() {
                ui.add(
                    egui::Label::new(
                        RichText::new(format!("Set by the form above instead: {}", p.set_by_form.join(", "))).weak(),
                    )
                    .wrap(),
                );
            }
            if !p.ignored.is_empty() {
                ui.add(
                    egui::Label::new(RichText::new(format!("Not modelled, left out: {}", p.ignored.join(", "))).weak())
                        .wrap(),
                );
            }
            if p.flags.places() {
                ui.weak("The fit below is for exactly this placement.");
            }
        }
        Err(e) => {
            ui.colored_label(theme::WARNING, format!("llama.cpp flags: {e}"));
        }
    }
}

/// The model file in use, if any, with a button to go back to the catalog model.
fn model_file_row(ui: &mut egui::Ui, fs: &mut FitSettings) {
    let Some(f) = &fs.model_file else {
        ui.weak("Drop a .gguf file or a Hugging Face model folder on the window to fit that file exactly.");
        return;
    };
    let summary = f.summary();
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Model file").strong());
        ui.add(egui::Label::new(summary).wrap());
        if ui.small_button("Use the catalog model").clicked() {
            fs.model_file = None;
        }
    });
}

fn split_name(k: SplitKind) -> &'static str {
    match k {
        SplitKind::Auto => "auto",
        SplitKind::Single => "one GPU",
        SplitKind::Tensor => "tensor parallel",
        SplitKind::Layers => "layer split",
        SplitKind::Data => "replicas / data parallel",
    }
}

fn results(ui: &mut egui::Ui, o: &BuildFit, w: &Workload, state: &AppState) {
    let f = &o.fit;
    let mut cards: Vec<Stat> = Vec::new();
    {
        // One truth with `kraftwerk fit`: a tight fit below the context asked says so in the
        // verdict, and "no context" is said only where the context was searched and none fits.
        let max_ctx = match (f.max_context_tokens, f.verdict) {
            (Some(c), FitVerdict::Tight) if c < f.context_tokens => {
                format!(
                    "not a pass: longest context that keeps the headroom: {c} tokens, below the {} asked",
                    f.context_tokens
                )
            }
            (Some(c), _) => format!("longest context that fits: {c} tokens"),
            (None, _) if f.mode.is_training() => "context not searched in training".to_owned(),
            (None, FitVerdict::DoesNotFit) => "no context fits".to_owned(),
            (None, _) => "no context keeps the headroom".to_owned(),
        };
        // One truth with `kraftwerk fit` and `compare`: a MoE model that runs with its experts
        // in system RAM says so, not the GPUs' own "does not fit".
        if let Some(split) = &o.fits_with_experts_in_ram {
            cards.push(Stat::new(
                "Memory",
                split.headline().to_owned(),
                format!("{:.1} GiB of experts in RAM ({})", split.host_experts_gib, split.args),
                Some(verdict_color(FitVerdict::Fits)),
            ));
        } else {
            // The user's own placement (flags given) that does not run: that is the reason,
            // not the context (which was not searched for it).
            let given_fails = o.placement.as_ref().is_some_and(|p| p.as_given) && !o.runs();
            let sub = if given_fails { "the placement as given (llama.cpp flags above)".to_owned() } else { max_ctx };
            cards.push(Stat::new("Memory", f.verdict.to_string(), sub, Some(verdict_color(f.verdict))));
        }
        cards.push(Stat::new(
            "Weights · KV cache",
            format!("{:.1} GiB · {:.1} GiB", f.weights_total_gib, f.kv_cache_total_gib),
            format!("{} on {} · {}", f.weight_precision, f.parallelism, f.runtime_label),
            None,
        ));
        // Training: the framework, tokens/s and hours (the figures `kraftwerk fit` prints).
        if let Some(t) = &f.training {
            let speed = t.speed.as_ref().map_or_else(
                || "tokens/s unknown".to_owned(),
                |s| format!("{:.0} tokens/s, step {:.2} s", s.tokens_per_s, s.step_s),
            );
            let hours = t.hours.map_or_else(String::new, |h| format!(" · {h:.1} h for the dataset"));
            cards.push(Stat::new(
                "Training",
                format!("{} · {}", t.runtime, t.setup),
                format!("{speed}{hours} · peak {:.1} GiB allocated", t.peak_allocated_gib),
                None,
            ));
        }
        if let Some(sp) = f.speed.as_ref().filter(|_| f.verdict != FitVerdict::DoesNotFit) {
            cards.push(Stat::new(
                "Decode",
                format!("{:.1} tok/s", sp.decode_batch1_tokens_per_s),
                format!(
                    "one sequence; batch {}: {} tok/s total ({:.1} each), {:?}-bound",
                    w.batch,
                    // One decimal below 100 tok/s, as the card's own figure (17.6, not 18).
                    if sp.decode_batch_tokens_per_s < 100.0 {
                        format!("{:.1}", sp.decode_batch_tokens_per_s)
                    } else {
                        format!("{:.0}", sp.decode_batch_tokens_per_s)
                    },
                    sp.decode_per_sequence_tokens_per_s,
                    sp.decode_bound
                )
                .to_lowercase(),
                None,
            ));
            cards.push(Stat::new(
                "Prefill",
                sp.prefill_tokens_per_s.map_or_else(|| "—".to_owned(), |p| format!("{p:.0} tok/s")),
                sp.time_to_first_token_s.map_or_else(
                    || "no tensor rate published".to_owned(),
                    |t| format!("first token after {t:.1} s for a {}-token prompt", w.context),
                ),
                None,
            ));
        }
        if let Some(c) = &o.cost {
            cards.push(Stat::new(
                "Cost",
                // Money as the CLI prints it (`usd`, `usd_rate`), "at least" while a part is
                // unpriced (as `fit` and `compare` say it).
                {
                    let least = if c.hardware_complete { "" } else { "at least " };
                    c.usd_per_million_tokens.map_or_else(
                        || format!("{least}{}/h", usd_rate(c.usd_per_working_hour)),
                        |m| format!("{least}{} / M tokens", usd_rate(m)),
                    )
                },
                format!(
                    "{}{} hardware{} · {}{} per working hour · cloud ({}): {}",
                    if c.hardware_complete { "" } else { "at least " },
                    usd(c.hardware_usd),
                    if c.hardware_complete { "" } else { " (some parts unpriced)" },
                    // The working hour carries the hardware's write-off: a lower bound too.
                    if c.hardware_complete { "" } else { "at least " },
                    usd_rate(c.usd_per_working_hour),
                    // The cloud offer as `fit` prints it: its name, and "n/a" where its
                    // throughput on this workload is unknown (never left out).
                    c.cloud.name,
                    c.cloud.usd_per_million_tokens.map_or_else(|| "n/a".to_owned(), |m| usd_rate(m) + " / M tokens")
                ),
                None,
            ));
        }
    }
    widgets::stat_cards(ui, &cards);
    speed_summary(ui, &SpeedSummary::of_build(o, &state.build, &state.catalog), o);
    // Memory per GPU as `kraftwerk fit` prints it: with experts in system RAM, the split's
    // placement first, then the every-expert-on-the-GPU figure labelled as such.
    if o.fits_with_experts_in_ram.is_some() {
        for l in report::gpu_lines(f, o.fits_with_experts_in_ram.as_ref()) {
            ui.label(l);
        }
    } else if let Some(p) = o.placement.as_ref().filter(|p| p.as_given) {
        // The user's own placement (flags given): its memory per GPU, as `kraftwerk fit` prints it.
        for l in report::placement_gpu_lines(f, p) {
            ui.add(egui::Label::new(l).wrap());
        }
    }
    if let Some(l) = report::placement_as_given_overflow(o) {
        ui.add(egui::Label::new(RichText::new(l).color(theme::WARNING)).wrap());
    }
    if let Some(p) = &f.vllm {
        vllm_pool(ui, p, f);
    }
    if let Some(split) = &o.fits_with_experts_in_ram {
        experts_in_ram(ui, split, o);
        if let Some(l) = report::fewer_in_ram_line(o) {
            ui.add(egui::Label::new(l).wrap());
        }
    } else if let Some(alt) = &o.alternatives {
        alternatives(ui, alt, o);
    }
    if let Some(t) = &f.llama_cpp {
        llama_cpp_table(ui, t);
    }
    ui.add_space(theme::SECTION_GAP);
    // `columns` lays its columns out justified, which spreads a wrapped paragraph's words to
    // both edges: each column is laid out left-aligned instead.
    // Weights in system RAM (the user's placement or the experts-in-RAM split): the context
    // curve, every weight on the GPUs, is not this placement's.
    let off_gpu =
        o.fits_with_experts_in_ram.is_some() || o.placement.as_ref().is_some_and(|p| p.as_given && p.is_hybrid());
    ui.columns(2, |c| {
        let [left, right] = c else { return };
        // With the user's own placement, or experts in system RAM, the chart is that placement's
        // memory per GPU (as the lines above), not every weight on the GPUs.
        left.vertical(|ui| match o.placement.as_ref().filter(|p| p.as_given || p.cpu_moe_layers > 0) {
            Some(p) => plots::placement_memory_plot(ui, p),
            None => memory_plot(ui, f, o.fits_with_experts_in_ram.is_some()),
        });
        right.vertical(|ui| {
            if let Some(cost) = &o.cost {
                break_even_plot(ui, cost);
            } else {
                context_plot(ui, &o.memory_vs_context, f.context_tokens, off_gpu);
            }
        });
    });
    if o.cost.is_some() && !o.memory_vs_context.is_empty() {
        context_plot(ui, &o.memory_vs_context, f.context_tokens, off_gpu);
    }
    // Whether the runtime runs on the build's GPUs (the same lines `kraftwerk fit` prints).
    for s in &f.runtime_support {
        match &s.support {
            Support::DoesNotRun(why) => {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(format!("Does not run: {why}"))
                            .color(verdict_color(FitVerdict::DoesNotFit)),
                    )
                    .wrap(),
                );
            }
            Support::NotChecked(why) | Support::Unpublished(why) => {
                ui.add(egui::Label::new(format!("Runtime support not checked: {why}")).wrap());
            }
            Support::Runs => {}
        }
    }
    if !f.notes.is_empty() {
        ui.add_space(theme::SMALL_GAP);
        for n in &f.notes {
            ui.add(egui::Label::new(format!("• {n}")).wrap());
        }
    }
    if let Some(c) = &o.cost
        && !c.missing_prices.is_empty()
    {
        ui.add(
            egui::Label::new(
                RichText::new(format!("No catalog price for: {} (not counted).", c.missing_prices.join(", ")))
                    .color(theme::WARNING),
            )
            .wrap(),
        );
    }
    if let Some(e) = &o.cost_error {
        ui.colored_label(theme::WARNING, format!("Cost: {e}"));
    }
    basis(ui, o);
    egui::CollapsingHeader::new("Assumptions and sources").id_salt("fit-assumptions").show(ui, |ui| {
        for a in &f.assumptions {
            ui.add(egui::Label::new(RichText::new(a).small()).wrap());
        }
    });
}

/// The speed as `kraftwerk fit`, `kraftwerk plan` and the Plan tab spell it
/// ([`SpeedSummary::line`]: decode per user, prefill, where the weights sit) and its caveats
/// in the warning colour, each on its own wrapped line (training has no such line).
fn speed_summary(ui: &mut egui::Ui, sp: &SpeedSummary, o: &BuildFit) {
    if o.fit.training.is_some() {
        return;
    }
    ui.add_space(theme::SMALL_GAP);
    // Monospace: the proportional font draws llama.cpp's `--n-cpu-moe` as one long dash.
    ui.add(egui::Label::new(RichText::new(format!("Speed: {}", sp.line())).strong().monospace()).wrap());
    for c in sp.caveat_lines() {
        ui.add(egui::Label::new(RichText::new(c).color(theme::WARNING)).wrap());
    }
}

/// What the memory and speed figures rest on (issue 28, item 7), as `kraftwerk fit` prints it:
/// the published measurements each is held to, the ± band of those tests (or "band unknown"
/// in the warning colour), and the command that measures it on the user's machine. Open by
/// default; the lines wrap, so the section reads at 1280 px.
fn basis(ui: &mut egui::Ui, o: &BuildFit) {
    let f = &o.fit;
    ui.add_space(theme::SMALL_GAP);
    egui::CollapsingHeader::new("Basis: what these figures rest on, and how to measure them")
        .id_salt("fit-basis")
        .default_open(true)
        .show(ui, |ui| {
            let m = &f.memory_basis;
            basis_block(ui, "Memory", &f.runtime_label.to_string(), m.band_pct, &m.calibrated_to, &m.measure);
            if f.speed.is_some() || f.training.is_some() {
                ui.add_space(theme::SMALL_GAP);
                let s = &f.speed_basis;
                let runtime = s
                    .era
                    .as_ref()
                    .map_or_else(|| f.runtime_label.to_string(), |e| format!("{}, calibrated to {e}", f.runtime_label));
                basis_block(ui, "Speed", &runtime, s.band_pct, &s.calibrated_to, &s.measure);
                for n in &s.not_measured_on {
                    ui.add(egui::Label::new(RichText::new(format!("Not validated: {n}")).color(theme::WARNING)).wrap());
                }
                // With weights in system RAM: the host terms and their rows, as `fit` prints them.
                for t in &s.placement_terms {
                    ui.add(egui::Label::new(RichText::new(format!("• {t}")).weak()).wrap());
                }
            }
        });
}

/// One basis: the headline (held within ±N % / band unknown), the measurements, the command.
fn basis_block(ui: &mut egui::Ui, what: &str, runtime: &str, band: Option<f64>, held: &[String], measure: &str) {
    let headline = match band {
        Some(b) => {
            RichText::new(format!("{what} ({runtime}): held to {} published measurements within ±{b:.0} %", held.len()))
                .strong()
        }
        None => RichText::new(format!("{what} ({runtime}): not held to a published measurement (band unknown)"))
            .strong()
            .color(theme::WARNING),
    };
    ui.add(egui::Label::new(headline).wrap());
    for h in held {
        ui.add(egui::Label::new(RichText::new(format!("• {h}")).weak()).wrap());
    }
    ui.add(egui::Label::new(RichText::new(format!("Measure it: {measure}")).monospace()).wrap());
}

/// What would fit instead (the same search `kraftwerk fit` prints). Under llama.cpp the
/// per-device placement (`-ngl`, `--n-cpu-moe`, `-ts`) is the one offload plan shown, as in
/// the CLI.
/// What would fit instead: the lines `kraftwerk fit` prints ([`report::alternatives`]), so
/// the tab and the CLI name the same splits, arguments and speeds.
fn alternatives(ui: &mut egui::Ui, alt: &Alternatives, o: &BuildFit) {
    ui.label(RichText::new("Does not fit. What would:").strong().color(theme::WARNING));
    let mut text = String::new();
    report::alternatives(&mut text, alt, &o.fit, o.placement.as_ref());
    // The first line is the heading above; each alternative is a "  - " line.
    for line in text.lines().skip(1) {
        let line = line.trim_start();
        ui.label(line.strip_prefix("- ").map_or_else(|| line.to_owned(), |l| format!("• {l}")));
    }
    if let Some(l) = report::placement_that_fits_line(o) {
        ui.add(egui::Label::new(format!("• {l}")).wrap());
    }
}

/// vLLM's KV pool as vLLM sizes it, and where it would refuse to start, the engine settings
/// that start it: the lines `kraftwerk fit` prints ([`report::vllm_pool`]), the refusal and
/// its levers in the warning colour.
fn vllm_pool(ui: &mut egui::Ui, p: &kraftwerk_core::estimate::llm::vllm_memory::VllmKvPool, f: &FitReport) {
    ui.add_space(theme::SMALL_GAP);
    let mut text = String::new();
    report::vllm_pool(&mut text, p, f);
    for line in text.lines() {
        let line = line.trim_start();
        let warn = line.starts_with("vLLM refuses") || line.starts_with("vLLM starts") || line.starts_with("vLLM: ");
        let rich = RichText::new(line);
        ui.add(egui::Label::new(if warn { rich.color(theme::WARNING) } else { rich }).wrap());
    }
}

/// A MoE model that runs with its experts in system RAM: the lines `kraftwerk fit` prints for
/// it ([`report::experts_in_ram_fit`]: the split, its RAM, decode, prefill and cost), never
/// "does not fit" above them.
fn experts_in_ram(ui: &mut egui::Ui, split: &kraftwerk_core::estimate::llm::search::MoeOffload, o: &BuildFit) {
    ui.label(RichText::new("Fits with experts in system RAM:").strong());
    let mut text = String::new();
    report::experts_in_ram_fit(&mut text, split, o);
    for line in text.lines() {
        let line = line.trim_start();
        ui.label(line.strip_prefix("- ").map_or_else(|| line.to_owned(), |l| format!("• {l}")));
    }
}

/// Width of the llama.cpp table's device column, points: a device name
/// (`CUDA0 (nvidia-geforce-rtx-3090)`) wraps inside it, so the number columns stay on screen
/// at 1280x800.
const DEVICE_COLUMN_W: f32 = 240.0;

/// llama.cpp's per-device memory table and its arguments (`-ngl`, `--n-cpu-moe`, `-ts`), the
/// lines `kraftwerk fit` prints for llama.cpp (the same figures): one row
/// per device with its free memory, what llama.cpp takes there and of what.
fn llama_cpp_table(ui: &mut egui::Ui, t: &kraftwerk_core::estimate::llm::runtime_memory::LlamaCppFit) {
    ui.add_space(theme::SMALL_GAP);
    let head = if t.fits {
        "llama.cpp memory per device, MiB (every GPU keeps 1024 MiB free)"
    } else {
        "llama.cpp memory per device, MiB (a GPU keeps less than the 1024 MiB llama.cpp leaves free)"
    };
    ui.label(RichText::new(head).strong());
    egui::Grid::new("fit-llama-cpp").striped(true).num_columns(6).spacing([16.0, 4.0]).show(ui, |ui| {
        for h in ["device", "free", "self", "model", "context", "compute"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for r in &t.rows {
            ui.scope(|ui| {
                ui.set_max_width(DEVICE_COLUMN_W);
                ui.add(egui::Label::new(&r.device).wrap());
            });
            ui.label(r.free_mib.map_or_else(|| "-".to_owned(), |f| format!("{f:.0}")));
            ui.label(format!("{:.0}", r.self_mib()));
            ui.label(format!("{:.0}", r.model_mib));
            ui.label(format!("{:.0}", r.context_mib));
            ui.label(format!("{:.0}", r.compute_mib));
            ui.end_row();
        }
    });
    ui.add(egui::Label::new(RichText::new(format!("llama.cpp arguments: {}", t.args)).monospace()).wrap());
}

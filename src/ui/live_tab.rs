//! The Live tab: the installed GPUs through NVML (or a recording, clearly labelled), a card per
//! GPU, time series, the topology matrix, the GEMM probe, validation against the open build, and
//! the GPU↔GPU links.
//!
//! Drawing reads [`LiveView`] and pushes [`LiveAction`]s; [`apply`] carries them out after the
//! frame is drawn. Long work (sampling, probe, links) runs on the threads of
//! [`super::live_state`].

use super::app::AppState;
use super::live_state::{self, LinksOrigin, LiveView, utc_date_time};
use super::theme;
use crate::live::links::{LinksReport, Section};
use crate::live::nvml::{GpuSample, GpuStatic, NO_DRIVER};
use crate::live::probe::{Grade, Precision, ProbeReport, Summary};
use crate::live::reasons::ReasonClass;
use crate::live::sampler::History;
use crate::live::topology::Topology;
use crate::live::validate::Validation;
use eframe::egui::{self, Color32, RichText};
use egui_plot::{Corner, Legend, Line, Plot, PlotPoints};

/// What the Live tab's widgets ask for.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveAction {
    /// Pick a recording file to show.
    OpenRecordingDialog,
    /// Show the bundled demo recording.
    ShowDemo,
    /// Play the shown recording again at its pace.
    Replay,
    /// Leave the recording and show this machine's GPUs.
    BackToLive,
    /// Sustained-load seconds of the probe.
    SetProbeSeconds(u32),
    /// Switch a probe precision on or off.
    SetPrecision(Precision, bool),
    /// Run the probe.
    RunProbe,
    /// Cancel the probe.
    CancelProbe,
    /// Validate against the open build.
    Validate,
    /// Measure the links.
    MeasureLinks,
    /// Cancel the links measurement.
    CancelLinks,
    /// Pick a links report file to show.
    OpenLinksDialog,
    /// Show the bundled links report.
    ShowDemoLinks,
    /// Hide the error lines.
    DismissErrors,
}

/// Draws the Live tab and applies what its widgets asked for.
pub fn show(ui: &mut egui::Ui, state: &AppState, live: &mut LiveView) {
    let ctx = ui.ctx().clone();
    live.ensure_started(&ctx);
    live.poll(&ctx);
    let mut out = Vec::new();
    draw(ui, state, live, &mut out);
    for a in &out {
        apply(&ctx, state, live, a);
    }
}

/// Carries out one action.
pub fn apply(ctx: &egui::Context, state: &AppState, live: &mut LiveView, action: &LiveAction) {
    match action {
        LiveAction::OpenRecordingDialog => {
            if live.native
                && let Some(p) = rfd::FileDialog::new().add_filter("Kraftwerk recording", &["json"]).pick_file()
            {
                live.open_recording(&p);
            }
        }
        LiveAction::ShowDemo => match crate::live::record::Recording::from_json_str(
            live_state::DEMO_RECORDING_NAME,
            live_state::DEMO_RECORDING,
        ) {
            Ok(r) => live.show_recording(live_state::DEMO_RECORDING_NAME.to_owned(), r),
            Err(e) => live.errors.push(format!("demo recording: {e}")),
        },
        LiveAction::Replay => live.replay(Some(ctx)),
        LiveAction::BackToLive => live.back_to_live(ctx),
        LiveAction::SetProbeSeconds(s) => live.probe_settings.seconds = *s,
        LiveAction::SetPrecision(p, on) => {
            live.probe_settings.precisions.insert(*p, *on);
        }
        LiveAction::RunProbe => {
            let expected = live.expected_gpu(&state.build, &state.catalog);
            live.start_probe(Some(ctx), expected);
        }
        LiveAction::CancelProbe => {
            if let Some(j) = &mut live.probe {
                j.cancel();
            }
        }
        LiveAction::Validate => live.validate(&state.build, &state.catalog),
        LiveAction::MeasureLinks => live.start_links(Some(ctx), &state.build, &state.catalog),
        LiveAction::CancelLinks => {
            if let Some(j) = &mut live.links {
                j.cancel();
            }
        }
        LiveAction::OpenLinksDialog => {
            if live.native
                && let Some(p) = rfd::FileDialog::new().add_filter("Links report", &["json"]).pick_file()
            {
                live.open_links_file(&p);
            }
        }
        LiveAction::ShowDemoLinks => live.open_links_text(live_state::DEMO_LINKS_NAME, live_state::DEMO_LINKS),
        LiveAction::DismissErrors => live.errors.clear(),
    }
}

/// Colour of a probe/validation grade.
pub fn grade_color(g: Grade) -> Color32 {
    match g {
        Grade::Pass => theme::OK,
        Grade::Info => theme::INFO,
        Grade::Warn => theme::WARNING,
        Grade::Fail => theme::ERROR,
    }
}

fn grade_badge(ui: &mut egui::Ui, g: Grade) {
    theme::badge(ui, g.name(), grade_color(g));
}

fn draw(ui: &mut egui::Ui, state: &AppState, live: &LiveView, out: &mut Vec<LiveAction>) {
    source_banner(ui, live, out);
    if !live.errors.is_empty() {
        ui.horizontal_wrapped(|ui| {
            for e in &live.errors {
                ui.colored_label(theme::ERROR, plain(e));
            }
            if ui.small_button("Dismiss").clicked() {
                out.push(LiveAction::DismissErrors);
            }
        });
    }
    ui.add_space(theme::SMALL_GAP);
    egui::ScrollArea::vertical().id_salt("live-scroll").auto_shrink([false, false]).show(ui, |ui| {
        gpu_cards(ui, live);
        ui.add_space(theme::SECTION_GAP);
        plots(ui, live);
        ui.add_space(theme::SECTION_GAP);
        links_section(ui, live, out);
        ui.add_space(theme::SECTION_GAP);
        probe_section(ui, state, live, out);
        ui.add_space(theme::SECTION_GAP);
    });
}

fn section_heading(ui: &mut egui::Ui, text: &str) {
    ui.label(RichText::new(text).heading().strong());
}

fn source_banner(ui: &mut egui::Ui, live: &LiveView, out: &mut Vec<LiveAction>) {
    if live.nvml_code != "ready" {
        let frame = egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, theme::ERROR));
        theme::full_width(ui, frame, |ui| {
            ui.horizontal_wrapped(|ui| {
                let headline =
                    if live.nvml_code == "no_driver" { NO_DRIVER.to_owned() } else { plain(&live.nvml_message) };
                ui.label(RichText::new(headline).color(theme::ERROR).strong().size(16.0));
                let detail = live
                    .nvml_message
                    .strip_prefix(NO_DRIVER)
                    .map_or("", |d| d.trim().trim_start_matches('(').trim_end_matches(')'));
                ui.weak(plain(detail));
                if ui.add_enabled(live.native, egui::Button::new("Open recording…")).clicked() {
                    out.push(LiveAction::OpenRecordingDialog);
                }
                if ui.button("Show demo recording (2× H200)").clicked() {
                    out.push(LiveAction::ShowDemo);
                }
            });
        });
    }
    if let Some(src) = &live.recording {
        let frame = egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(2.0, theme::WARNING))
            .fill(theme::WARNING.gamma_multiply(0.12));
        theme::full_width(ui, frame, |ui| {
            let date = src.recording.created_unix_ms.map_or_else(|| "at an unknown date".to_owned(), utc_date_time);
            ui.label(
                RichText::new(format!("Recording: {}, recorded {date} — not this machine", src.file))
                    .color(theme::WARNING)
                    .strong()
                    .size(16.0),
            );
            ui.horizontal_wrapped(|ui| {
                let sys = &src.recording.system;
                let meta = ui.weak(format!(
                    "{} · {} GPU(s) · driver {} · CUDA {} · {} samples every {} ms · {:.0} s",
                    src.recording.kind,
                    src.recording.gpus.len(),
                    sys.driver_version.as_deref().unwrap_or("?"),
                    sys.cuda_driver_version.as_deref().unwrap_or("?"),
                    src.recording.snapshots.len(),
                    src.recording.interval_ms.unwrap_or(0),
                    src.recording.duration_ms() as f64 / 1000.0
                ));
                if let Some(n) = &src.recording.notes {
                    meta.on_hover_text(plain(n));
                    ui.weak("(hover for notes)");
                }
                if ui.button("Replay").on_hover_text("Play the recording again at its recorded pace").clicked() {
                    out.push(LiveAction::Replay);
                }
                if ui.add_enabled(live.native, egui::Button::new("Open recording…")).clicked() {
                    out.push(LiveAction::OpenRecordingDialog);
                }
                if live.has_live_gpus() && ui.button("Back to this machine's GPUs").clicked() {
                    out.push(LiveAction::BackToLive);
                }
            });
        });
    } else if live.nvml_code == "ready" {
        ui.horizontal_wrapped(|ui| {
            theme::badge(ui, "LIVE", theme::OK);
            let sys = live.system.as_ref();
            ui.label(format!(
                "{} · driver {} · CUDA {}",
                live.nvml_message,
                sys.and_then(|s| s.driver_version.as_deref()).unwrap_or("?"),
                sys.and_then(|s| s.cuda_driver_version.as_deref()).unwrap_or("?"),
            ));
            if let Some(i) = live.sampling_interval() {
                ui.weak(format!("sampling every {} ms", i.as_millis()));
            }
            if ui.add_enabled(live.native, egui::Button::new("Open recording…")).clicked() {
                out.push(LiveAction::OpenRecordingDialog);
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// GPU cards
// ---------------------------------------------------------------------------------------------

const CARD_WIDTH: f32 = 330.0;

fn gpu_cards(ui: &mut egui::Ui, live: &LiveView) {
    let gpus = live.gpus();
    if gpus.is_empty() {
        ui.weak("No GPU to show.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing = egui::vec2(10.0, 10.0);
        for (i, g) in gpus.iter().enumerate() {
            gpu_card(ui, i, g, live.history.latest(i));
        }
    });
}

fn fmt_opt<T: std::fmt::Display>(v: Option<T>, unit: &str) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v}{unit}"))
}

fn bar(ui: &mut egui::Ui, fraction: Option<f64>, text: String, color: Color32) {
    let f = fraction.unwrap_or(0.0).clamp(0.0, 1.0) as f32;
    ui.add(
        egui::ProgressBar::new(f)
            .text(text)
            .fill(color.gamma_multiply(0.8))
            .desired_width(CARD_WIDTH - 120.0)
            .corner_radius(2),
    );
}

fn gpu_card(ui: &mut egui::Ui, i: usize, g: &GpuStatic, s: Option<&GpuSample>) {
    let frame = egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, theme::gpu_series(i))).inner_margin(8);
    frame.show(ui, |ui| ui.vertical(|ui| gpu_card_body(ui, i, g, s)));
}

fn gpu_card_body(ui: &mut egui::Ui, i: usize, g: &GpuStatic, s: Option<&GpuSample>) {
    {
        ui.set_width(CARD_WIDTH);
        ui.horizontal(|ui| {
            theme::swatch(ui, theme::gpu_series(i));
            ui.label(
                RichText::new(format!("GPU {} · {}", g.index, g.name.as_deref().unwrap_or("(unnamed)")))
                    .strong()
                    .size(15.0),
            );
        });
        let mut facts = Vec::new();
        if let Some(b) = &g.pci_bus_id {
            facts.push(b.clone());
        }
        if let Some(a) = &g.architecture {
            facts.push(a.clone());
        }
        if let Some(c) = g.compute_capability {
            facts.push(format!("CC {c}"));
        }
        if let Some(e) = g.ecc_enabled {
            facts.push(if e { "ECC on".to_owned() } else { "ECC off".to_owned() });
        }
        ui.weak(facts.join(" · "));
        let Some(s) = s else {
            ui.weak("No reading yet.");
            return;
        };
        egui::Grid::new(("live-card", i)).num_columns(2).spacing([8.0, 4.0]).show(ui, |ui| {
            ui.label("Temperature");
            let t_color = match s.temperature_headroom_c(g) {
                Some(h) if h <= 0 => theme::ERROR,
                Some(h) if h <= 10 => theme::WARNING,
                _ => ui.visuals().text_color(),
            };
            ui.label(RichText::new(format!("{}  (slowdown {})", fmt_opt(s.temperature_c, " °C"), fmt_opt(g.temperature_slowdown_c, " °C"))).color(t_color));
            ui.end_row();

            ui.label("Power");
            let pf = s.power_fraction_of_limit(g);
            bar(
                ui,
                pf,
                format!("{} / {}", fmt_opt(s.power_avg_w.map(|w| format!("{w:.0}")), " W"), fmt_opt(g.power_limit_enforced_w.map(|w| format!("{w:.0}")), " W")),
                theme::load(pf.unwrap_or(0.0), 0.95),
            );
            ui.end_row();

            ui.label("Memory");
            let gib = |mib: u64| format!("{:.1}", mib as f64 / 1024.0);
            bar(
                ui,
                s.memory_fraction_used(g),
                format!("{} / {} GiB", s.memory_used_mib.map_or_else(|| "n/a".to_owned(), gib), g.memory_total_mib.map_or_else(|| "n/a".to_owned(), gib)),
                theme::INFO,
            );
            ui.end_row();

            ui.label("Utilization");
            bar(ui, s.utilization_gpu_pct.map(|u| f64::from(u) / 100.0), fmt_opt(s.utilization_gpu_pct, " %"), theme::SERIES[1]);
            ui.end_row();

            ui.label("SM clock");
            ui.label(format!("{} / {} MHz", fmt_opt(s.clock_sm_mhz, ""), fmt_opt(g.clock_sm_max_mhz, "")));
            ui.end_row();

            ui.label("PCIe link");
            let link = format!(
                "Gen{} x{}  (max Gen{} x{})",
                fmt_opt(s.pcie_gen, ""),
                fmt_opt(s.pcie_width, ""),
                fmt_opt(g.pcie_gen_max, ""),
                fmt_opt(g.pcie_width_max, "")
            );
            if s.link_below_max_under_load(g) == Some(true) {
                ui.label(RichText::new(format!("{link}  below max under load")).color(theme::WARNING))
                    .on_hover_text("Under load the link should run at its maximum generation and width (idle links downshift to save power).");
            } else {
                let r = ui.label(link);
                if s.link_below_max(g) == Some(true) {
                    r.on_hover_text("Below max while idle: normal, links downshift to save power.");
                }
            }
            ui.end_row();

            if let Some(n) = g.nvlinks_active() {
                ui.label("NVLink");
                ui.label(format!("{n} links active{}", g.nvlink_version().map_or_else(String::new, |v| format!(" (NVLink {v})"))));
                ui.end_row();
            }

            ui.label("Clock events");
            ui.horizontal_wrapped(|ui| {
                ui.set_max_width(CARD_WIDTH - 110.0);
                match s.clock_event_reasons {
                    None => {
                        ui.weak("n/a");
                    }
                    Some(r) if r.is_empty() => {
                        ui.label(RichText::new("none (full clock)").color(theme::OK));
                    }
                    Some(r) => {
                        for reason in r.reasons() {
                            let (color, text) = match reason.class {
                                ReasonClass::Fault => (theme::ERROR, format!("{} (fault)", reason.label)),
                                ReasonClass::Unknown => (theme::WARNING, format!("unknown {:#x}", reason.bit)),
                                ReasonClass::Normal => (ui.visuals().text_color(), reason.label.to_owned()),
                            };
                            ui.label(RichText::new(text).color(color)).on_hover_text(reason.meaning);
                        }
                    }
                }
            });
            ui.end_row();
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Plots
// ---------------------------------------------------------------------------------------------

type Metric = fn(&GpuSample) -> Option<f64>;

fn plots(ui: &mut egui::Ui, live: &LiveView) {
    section_heading(ui, "Time series");
    let h = &live.history;
    if h.is_empty() {
        ui.weak("No samples yet.");
        return;
    }
    let names: Vec<String> = live.gpus().iter().map(GpuStatic::label).collect();
    let metrics: [(&str, &str, Metric, Option<f64>); 4] = [
        ("Power", "W", |s| s.power_avg_w, None),
        ("Temperature", "°C", |s| s.temperature_c.map(f64::from), None),
        ("SM clock", "MHz", |s| s.clock_sm_mhz.map(f64::from), None),
        ("Utilization", "%", |s| s.utilization_gpu_pct.map(f64::from), Some(100.0)),
    ];
    let link = egui::Id::unique("kraftwerk-live-plots-x");
    let plot_width = ((ui.available_width() - 16.0) / 2.0).max(200.0);
    egui::Grid::new("live-plots").num_columns(2).spacing([16.0, 8.0]).show(ui, |ui| {
        for (k, (title, unit, metric, top)) in metrics.iter().enumerate() {
            ui.vertical(|ui| {
                ui.label(RichText::new(format!("{title} ({unit})")).strong());
                series_plot(ui, h, &names, title, unit, *metric, *top, plot_width, link);
            });
            if k % 2 == 1 {
                ui.end_row();
            }
        }
    });
}

#[allow(clippy::too_many_arguments, reason = "one plot's settings, passed once from one caller")]
fn series_plot(
    ui: &mut egui::Ui,
    h: &History,
    names: &[String],
    title: &str,
    unit: &'static str,
    metric: Metric,
    top: Option<f64>,
    width: f32,
    link: egui::Id,
) {
    let mut plot = Plot::new(("live-plot", title))
        .width(width)
        .height(180.0)
        .legend(Legend::default().position(Corner::LeftTop))
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_drag(false)
        .allow_boxed_zoom(false)
        .link_axis(link, [true, false])
        .include_y(0.0)
        .y_axis_min_width(40.0)
        .x_axis_formatter(|m, _| format!("{:.0} s", m.value))
        .y_axis_formatter(move |m, _| format!("{:.0} {unit}", m.value));
    if let Some(t) = top {
        plot = plot.include_y(t);
    }
    plot.show(ui, |p| {
        for gpu in 0..h.gpu_count() {
            let name = names.get(gpu).cloned().unwrap_or_else(|| format!("GPU {gpu}"));
            let points = h.series(gpu, metric);
            p.line(Line::new(name, PlotPoints::new(points)).color(theme::gpu_series(gpu)).width(2.0));
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Topology and links
// ---------------------------------------------------------------------------------------------

fn topology_matrix(ui: &mut egui::Ui, id: &str, topology: &Topology, n: usize) {
    let m = topology.matrix(n);
    egui::Grid::new(id).striped(true).spacing([14.0, 4.0]).show(ui, |ui| {
        ui.label("");
        for b in 0..n {
            ui.label(RichText::new(format!("GPU{b}")).strong());
        }
        ui.end_row();
        for (a, row) in m.iter().enumerate() {
            ui.label(RichText::new(format!("GPU{a}")).strong());
            for cell in row {
                let color = if cell.starts_with("NV") {
                    theme::OK
                } else if cell == "SYS" || cell == "?" {
                    theme::WARNING
                } else {
                    ui.visuals().text_color()
                };
                ui.label(RichText::new(cell).monospace().color(color));
            }
            ui.end_row();
        }
    });
    if n > 1 {
        ui.add(
            egui::Label::new(
                RichText::new("NV# = # bonded NVLinks · PIX = one PCIe switch · PXB = several switches · PHB = PCIe host bridge · NODE = within a NUMA node · SYS = across NUMA nodes")
                    .weak()
                    .small(),
            )
            .wrap(),
        );
    }
}

fn value_matrix(ui: &mut egui::Ui, id: &str, title: &str, cells: &[Vec<Option<f64>>], decimals: usize) {
    ui.vertical(|ui| {
        ui.label(RichText::new(title).strong());
        egui::Grid::new(id).striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
            ui.label(RichText::new("from \\ to").weak());
            for b in 0..cells.len() {
                ui.label(RichText::new(format!("GPU{b}")).strong());
            }
            ui.end_row();
            for (a, row) in cells.iter().enumerate() {
                ui.label(RichText::new(format!("GPU{a}")).strong());
                for (b, v) in row.iter().enumerate() {
                    let text = match v {
                        _ if a == b => "X".to_owned(),
                        Some(v) => format!("{v:.decimals$}"),
                        None => "n/a".to_owned(),
                    };
                    ui.label(RichText::new(text).monospace());
                }
                ui.end_row();
            }
        });
    });
}

fn links_section(ui: &mut egui::Ui, live: &LiveView, out: &mut Vec<LiveAction>) {
    section_heading(ui, "Topology and links");
    ui.horizontal_wrapped(|ui| {
        if live.links.is_some() {
            ui.add(egui::Spinner::new());
            ui.label(live.links_progress.as_deref().map_or_else(|| "measuring links…".to_owned(), plain));
            if ui.button("Cancel").clicked() {
                out.push(LiveAction::CancelLinks);
            }
        } else if ui
            .add_enabled(live.probe.is_none(), egui::Button::new("Measure links"))
            .on_hover_text("P2P copy bandwidth and latency for every pair of GPUs, then the NCCL all-reduce")
            .clicked()
        {
            out.push(LiveAction::MeasureLinks);
        }
        if ui.add_enabled(live.native, egui::Button::new("Open links report…")).clicked() {
            out.push(LiveAction::OpenLinksDialog);
        }
        if !live.has_live_gpus() && ui.button("Show demo links report (2× H200)").clicked() {
            out.push(LiveAction::ShowDemoLinks);
        }
    });
    if let Some(reason) = LiveView::nccl_blocked() {
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "NCCL all-reduce will not run from the window: {}. P2P is measured without it; for the all-reduce run `kraftwerk links` from a shell.",
                    plain(&reason)
                ))
                .color(theme::WARNING),
            )
            .wrap(),
        );
    }
    ui.add_space(theme::SMALL_GAP);
    let n = live.gpus().len();
    ui.horizontal_top(|ui| {
        ui.spacing_mut().item_spacing.x = 28.0;
        ui.vertical(|ui| {
            ui.set_max_width(360.0);
            ui.label(RichText::new("Topology (nvidia-smi topo -m)").strong());
            if n == 0 {
                ui.weak("No GPU.");
            } else {
                topology_matrix(ui, "live-topology", live.topology(), n);
            }
        });
        if let Some((report, _)) = &live.links_report {
            p2p_matrices(ui, report);
        }
    });
    if let Some((report, _)) = &live.links_report {
        ui.add_space(theme::SMALL_GAP);
        all_reduce_table(ui, report);
    }
    if let Some((report, origin)) = &live.links_report {
        links_details(ui, report, origin);
    }
}

fn p2p_matrices(ui: &mut egui::Ui, r: &LinksReport) {
    let n = r.gpus.len();
    match &r.p2p {
        Section::Measured(p) => {
            value_matrix(
                ui,
                "live-p2p-one",
                "P2P one-way (GB/s)",
                &p.matrix(n, |l| l.one_way_gb_s.map(|s| s.median)),
                1,
            );
            value_matrix(
                ui,
                "live-p2p-two",
                "P2P two-way (GB/s)",
                &p.matrix(n, |l| l.two_way_gb_s.map(|s| s.median)),
                1,
            );
            value_matrix(ui, "live-p2p-lat", "Latency (µs)", &p.matrix(n, |l| l.latency_us.map(|s| s.median)), 2);
        }
        Section::NotAvailable { reason } => {
            ui.vertical(|ui| {
                ui.set_max_width(360.0);
                ui.label(RichText::new("P2P").strong());
                ui.add(egui::Label::new(RichText::new(format!("not available: {}", plain(reason))).weak()).wrap());
            });
        }
    }
}

fn all_reduce_table(ui: &mut egui::Ui, r: &LinksReport) {
    ui.vertical(|ui| {
        ui.label(RichText::new("All-reduce (NCCL, busbw)").strong());
        match &r.all_reduce {
            Section::Measured(t) => {
                egui::Grid::new("live-allreduce").striped(true).spacing([12.0, 2.0]).show(ui, |ui| {
                    for h in ["size", "time µs", "algbw GB/s", "busbw GB/s", "#wrong"] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for row in &t.rows {
                        ui.label(RichText::new(bytes_text(row.bytes)).monospace());
                        ui.label(RichText::new(format!("{:.1}", row.time_us)).monospace());
                        ui.label(RichText::new(format!("{:.1}", row.algbw_gb_s)).monospace());
                        ui.label(RichText::new(format!("{:.1}", row.busbw_gb_s)).monospace().strong());
                        let c = if row.wrong > 0 { theme::ERROR } else { ui.visuals().text_color() };
                        ui.label(RichText::new(row.wrong.to_string()).monospace().color(c));
                        ui.end_row();
                    }
                });
            }
            Section::NotAvailable { reason } => {
                ui.set_max_width(360.0);
                ui.add(egui::Label::new(RichText::new(format!("not available: {}", plain(reason))).weak()).wrap());
            }
        }
    });
}

fn bytes_text(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{} GiB", b >> 30)
    } else if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

fn links_details(ui: &mut egui::Ui, r: &LinksReport, origin: &LinksOrigin) {
    ui.add_space(theme::SMALL_GAP);
    ui.horizontal_wrapped(|ui| {
        grade_badge(ui, r.grade);
        let whence = match origin {
            LinksOrigin::Measured => "measured on this machine".to_owned(),
            LinksOrigin::File(f) => format!("links report {f}"),
        };
        let date = r.created_unix_ms.map_or_else(String::new, |ms| format!(", {}", utc_date_time(ms)));
        ui.label(format!("Links: {whence}{date} · {} GPU(s) · {:.1} s", r.gpus.len(), r.wall_seconds));
        if r.cancelled {
            ui.colored_label(theme::WARNING, "cancelled");
        }
    });
    if matches!(origin, LinksOrigin::File(_)) {
        ui.colored_label(theme::WARNING, "A file: its GPUs are not necessarily this machine's.");
    }
    for e in &r.errors {
        ui.colored_label(theme::ERROR, plain(e));
    }
    if !r.checks.is_empty() {
        egui::CollapsingHeader::new(format!("Link checks ({})", r.checks.len()))
            .id_salt("live-link-checks")
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new("live-link-checks-grid").striped(true).spacing([10.0, 3.0]).show(ui, |ui| {
                    for c in &r.checks {
                        grade_badge(ui, c.grade);
                        ui.label(RichText::new(&c.check).monospace());
                        ui.label(c.gpus.iter().map(|g| format!("GPU{g}")).collect::<Vec<_>>().join(" to "));
                        wrapped(ui, &plain(&c.message), 620.0);
                        ui.end_row();
                    }
                });
            });
    }
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

fn wrapped(ui: &mut egui::Ui, text: &str, width: f32) {
    ui.scope(|ui| {
        ui.set_max_width(width);
        ui.add(egui::Label::new(text).wrap());
    });
}

// ---------------------------------------------------------------------------------------------
// Probe and validation
// ---------------------------------------------------------------------------------------------

fn probe_section(ui: &mut egui::Ui, state: &AppState, live: &LiveView, out: &mut Vec<LiveAction>) {
    section_heading(ui, "GEMM probe");
    ui.add(
        egui::Label::new(
            RichText::new(if live.has_live_gpus() {
                "Square GEMMs in each precision on every GPU (cuBLAS), a known-answer check, host-device bandwidth, then a sustained load; NVML sampled every 100 ms meanwhile."
            } else {
                "No GPU here: the probe runs its CPU backend (it tests the pipeline, not a GPU)."
            })
            .weak(),
        )
        .wrap(),
    );
    let running = live.probe.is_some();
    ui.add_enabled_ui(!running, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.label("Sustained load");
            let mut secs = live.probe_settings.seconds;
            if ui.add(egui::DragValue::new(&mut secs).range(0..=3600).suffix(" s")).changed() {
                out.push(LiveAction::SetProbeSeconds(secs));
            }
            ui.separator();
            ui.label("Precisions");
            for (&p, &on) in &live.probe_settings.precisions {
                let mut v = on;
                if ui.checkbox(&mut v, p.name()).changed() {
                    out.push(LiveAction::SetPrecision(p, v));
                }
            }
        });
    });
    ui.horizontal(|ui| {
        if let Some(job) = &live.probe {
            let frac = live.probe_fraction();
            let msg =
                live.probe_progress.values().next_back().map_or_else(|| "starting…".to_owned(), |p| plain(&p.message));
            let text = if job.is_cancelling() {
                format!("cancelling… {msg}")
            } else {
                format!("{:.0} %  {msg}", frac * 100.0)
            };
            ui.add(
                egui::ProgressBar::new(frac)
                    .text(text)
                    .desired_width((ui.available_width() - 100.0).max(200.0))
                    .animate(true),
            );
            if ui.add_enabled(!job.is_cancelling(), egui::Button::new("Cancel")).clicked() {
                out.push(LiveAction::CancelProbe);
            }
        } else {
            let ok = !live.probe_settings.chosen().is_empty();
            if ui.add_enabled(ok, egui::Button::new(RichText::new("Run probe").strong())).clicked() {
                out.push(LiveAction::RunProbe);
            }
            if !ok {
                ui.colored_label(theme::WARNING, "choose at least one precision");
            }
        }
    });
    if let Some(r) = &live.probe_report {
        probe_results(ui, r);
    }
    ui.add_space(theme::SECTION_GAP);
    section_heading(ui, "Validation");
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(!running, egui::Button::new("Validate against the open build"))
            .on_hover_text("GPU count and model, PCIe link, power limit, memory, and (after a probe) TFLOP/s and power against the build and catalog")
            .clicked()
        {
            out.push(LiveAction::Validate);
        }
        ui.weak(format!("build: {}", state.build.name));
        if live.recording.is_some() {
            ui.colored_label(theme::WARNING, "(validates the recording's GPUs)");
        }
    });
    if let Some(v) = &live.validation {
        validation_table(ui, v);
    }
}

fn summary_cells(ui: &mut egui::Ui, s: Option<&Summary>) {
    match s {
        Some(s) => {
            ui.label(RichText::new(tflops(s.median)).monospace().strong());
            ui.label(RichText::new(tflops(s.min)).monospace());
            ui.label(RichText::new(tflops(s.max)).monospace());
        }
        None => {
            for _ in 0..3 {
                ui.weak("n/a");
            }
        }
    }
}

/// TFLOP/s with enough decimals for a CPU's small numbers.
fn tflops(v: f64) -> String {
    if v >= 10.0 { format!("{v:.1}") } else { format!("{v:.3}") }
}

fn probe_results(ui: &mut egui::Ui, r: &ProbeReport) {
    ui.add_space(theme::SMALL_GAP);
    ui.horizontal_wrapped(|ui| {
        grade_badge(ui, r.overall);
        let names: std::collections::BTreeSet<&str> = r.devices.iter().map(|d| d.name.as_str()).collect();
        ui.label(format!(
            "{:?} backend · {} · {:.1} s",
            r.backend,
            names.into_iter().collect::<Vec<_>>().join(", "),
            r.wall_seconds
        ));
        if let Some(n) = &r.backend_note {
            ui.weak(plain(n));
        }
        if r.cancelled {
            ui.colored_label(theme::WARNING, "cancelled");
        }
    });
    for e in &r.errors {
        ui.colored_label(theme::ERROR, plain(e));
    }
    egui::Grid::new("live-probe-results").striped(true).spacing([14.0, 3.0]).show(ui, |ui| {
        for h in [
            "GPU",
            "precision",
            "n",
            "TFLOP/s median",
            "min",
            "max",
            "% of peak",
            "check",
            "host to GPU GB/s",
            "GPU to host GB/s",
        ] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for d in &r.devices {
            let h2d = d.bandwidth.as_ref().and_then(|b| b.pinned_h2d_gb_s).map(|s| format!("{:.1}", s.median));
            let d2h = d.bandwidth.as_ref().and_then(|b| b.pinned_d2h_gb_s).map(|s| format!("{:.1}", s.median));
            for (k, g) in d.gemm.iter().enumerate() {
                ui.label(format!("GPU {}", d.index)).on_hover_text(&d.name);
                ui.label(g.precision.name());
                ui.label(g.n.to_string());
                summary_cells(ui, Some(&g.tflops));
                ui.label(g.fraction_of_peak.map_or_else(|| "n/a".to_owned(), |f| format!("{:.0} %", f * 100.0)));
                if g.check.passed() {
                    ui.colored_label(theme::OK, "pass");
                } else {
                    ui.colored_label(theme::ERROR, "fail").on_hover_text(plain(&g.check.faults.join("\n")));
                }
                let first = k == 0;
                ui.label(if first { h2d.clone().unwrap_or_default() } else { String::new() });
                ui.label(if first { d2h.clone().unwrap_or_default() } else { String::new() });
                ui.end_row();
            }
            for s in &d.skipped {
                ui.label(format!("GPU {}", d.index)).on_hover_text(&d.name);
                ui.label(s.precision.name());
                ui.weak("skipped");
                ui.label("");
                ui.label("");
                ui.label("");
                ui.label("");
                wrapped(ui, &plain(&s.reason), 260.0);
                ui.end_row();
            }
        }
    });
    let sustained: Vec<_> = r.devices.iter().filter_map(|d| d.sustained.as_ref().map(|s| (d, s))).collect();
    if !sustained.is_empty() {
        ui.add_space(theme::SMALL_GAP);
        ui.label(RichText::new("Sustained load").strong());
        egui::Grid::new("live-probe-sustained").striped(true).spacing([14.0, 3.0]).show(ui, |ui| {
            for h in [
                "GPU",
                "precision",
                "seconds",
                "TFLOP/s mean",
                "power median W",
                "limit W",
                "max °C",
                "SM clock median MHz",
                "clock events",
            ] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for (d, s) in sustained {
                ui.label(format!("GPU {}", d.index)).on_hover_text(&d.name);
                ui.label(s.precision.name());
                ui.label(format!("{:.1}", s.seconds));
                ui.label(tflops(s.tflops_mean));
                ui.label(s.power_w.map_or_else(|| "n/a".to_owned(), |p| format!("{:.0}", p.median)));
                ui.label(s.power_limit_w.map_or_else(|| "n/a".to_owned(), |p| format!("{p:.0}")));
                ui.label(s.temperature_c.map_or_else(|| "n/a".to_owned(), |t| format!("{:.0}", t.max)));
                ui.label(s.sm_clock_mhz.map_or_else(|| "n/a".to_owned(), |c| format!("{:.0}", c.median)));
                let reasons = crate::live::reasons::ClockEventReasons(s.clock_event_reasons);
                let color = if reasons.has_fault() { theme::ERROR } else { ui.visuals().text_color() };
                ui.label(
                    RichText::new(if s.clock_event_names.is_empty() {
                        "none".to_owned()
                    } else {
                        s.clock_event_names.join(", ")
                    })
                    .color(color),
                );
                ui.end_row();
            }
        });
    }
    if !r.verdicts.is_empty() {
        egui::CollapsingHeader::new(format!("Probe checks ({})", r.verdicts.len()))
            .id_salt("live-probe-verdicts")
            .default_open(true)
            .show(ui, |ui| {
                egui::Grid::new("live-probe-verdicts-grid").striped(true).spacing([10.0, 3.0]).show(ui, |ui| {
                    for v in &r.verdicts {
                        grade_badge(ui, v.grade);
                        ui.label(RichText::new(&v.check).monospace());
                        ui.label(v.device.map_or_else(String::new, |d| format!("GPU {d}")));
                        wrapped(ui, &plain(&v.message), 640.0);
                        ui.end_row();
                    }
                });
            });
    }
}

fn validation_table(ui: &mut egui::Ui, v: &Validation) {
    ui.horizontal(|ui| {
        grade_badge(ui, v.overall);
        ui.label(format!("Validation against {} · {} checks", v.build, v.checks.len()));
    });
    egui::Grid::new("live-validation").striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        for h in ["grade", "check", "GPU", "expected", "measured", "reason"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for c in &v.checks {
            grade_badge(ui, c.grade);
            ui.label(RichText::new(&c.check).monospace());
            ui.label(c.gpu.map_or_else(String::new, |g| g.to_string()));
            wrapped(ui, &plain(&c.expected), 180.0);
            wrapped(ui, &plain(&c.measured), 180.0);
            wrapped(ui, &plain(&c.reason), 420.0);
            ui.end_row();
        }
    });
}

//! Live tab: a card per GPU (clocks, power, memory, clock event reasons) and the time series
//! plots, drawn from [`LiveView`].

use crate::live_state::LiveView;
use crate::theme;
use crate::widgets::section_heading;
use eframe::egui::{self, Color32, RichText};
use egui_plot::{Line, Plot, PlotPoints};
use kraftwerk_live::nvml::{GpuSample, GpuStatic};
use kraftwerk_live::reasons::ReasonClass;
use kraftwerk_live::sampler::History;

const CARD_WIDTH: f32 = 330.0;

pub(super) fn gpu_cards(ui: &mut egui::Ui, live: &LiveView) {
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

pub(super) fn fmt_opt<T: std::fmt::Display>(v: Option<T>, unit: &str) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v}{unit}"))
}

pub(super) fn bar(ui: &mut egui::Ui, fraction: Option<f64>, text: String, color: Color32) {
    let f = fraction.unwrap_or(0.0).clamp(0.0, 1.0) as f32;
    ui.add(
        egui::ProgressBar::new(f)
            .text(text)
            .fill(color.gamma_multiply(0.8))
            .desired_width(CARD_WIDTH - 120.0)
            .corner_radius(2),
    );
}

pub(super) fn gpu_card(ui: &mut egui::Ui, i: usize, g: &GpuStatic, s: Option<&GpuSample>) {
    let frame = egui::Frame::group(ui.style()).stroke(egui::Stroke::new(1.5, theme::gpu_series(i))).inner_margin(8);
    frame.show(ui, |ui| ui.vertical(|ui| gpu_card_body(ui, i, g, s)));
}

pub(super) fn gpu_card_body(ui: &mut egui::Ui, i: usize, g: &GpuStatic, s: Option<&GpuSample>) {
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

pub(super) fn plots(ui: &mut egui::Ui, live: &LiveView) {
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
pub(super) fn series_plot(
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
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_drag(false)
        .allow_boxed_zoom(false)
        .link_axis(link, [true, false])
        .include_y(0.0)
        .y_axis_min_width(theme::y_axis_width(ui, &format!("0000 {unit}")))
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
    let items: Vec<(egui::Color32, String)> = (0..h.gpu_count())
        .map(|gpu| (theme::gpu_series(gpu), names.get(gpu).cloned().unwrap_or_else(|| format!("GPU {gpu}"))))
        .collect();
    ui.scope(|ui| {
        ui.set_max_width(width);
        theme::legend(ui, &items);
    });
}

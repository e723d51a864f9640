//! Live tab: the GEMM probe section (settings, run/cancel, results) and the validation of the
//! machine against the open build.

use crate::command::LiveAction;
use crate::live_state::LiveView;
use crate::state::AppState;
use crate::theme;
use crate::widgets::{grade_badge, plain, section_heading, wrapped};
use eframe::egui::{self, RichText};
use kraftwerk_live::probe::{ProbeReport, Summary};
use kraftwerk_live::validate::Validation;

pub(super) fn probe_section(ui: &mut egui::Ui, state: &AppState, live: &LiveView, out: &mut Vec<LiveAction>) {
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
        let (label, hover) = if live.recording.is_some() {
            (
                "Validate against this build",
                "Grade the recording (its GPUs, topology, NVML samples under load and idle, and its probe and links \
                 reports) against the open build, as `kraftwerk validate BUILD --from FILE` does (F6)",
            )
        } else {
            (
                "Validate against the open build",
                "GPU count and model, PCIe link, power limit, memory, and (after a probe) TFLOP/s and power against \
                 the build and catalog (F6)",
            )
        };
        if ui.add_enabled(!running, egui::Button::new(label)).on_hover_text(hover).clicked() {
            out.push(LiveAction::Validate);
        }
        ui.weak(format!("build: {}", state.build.name));
        if let Some(src) = &live.recording {
            ui.colored_label(theme::WARNING, format!("(validates the recording {})", src.file));
        }
    });
    if let Some(v) = &live.validation {
        validation_table(ui, v);
    }
}

pub(super) fn summary_cells(ui: &mut egui::Ui, s: Option<&Summary>) {
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
pub(super) fn tflops(v: f64) -> String {
    if v >= 10.0 { format!("{v:.1}") } else { format!("{v:.3}") }
}

pub(super) fn probe_results(ui: &mut egui::Ui, r: &ProbeReport) {
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
    sustained_table(ui, r);
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

/// The sustained-load table of a probe report (nothing when no device ran one).
fn sustained_table(ui: &mut egui::Ui, r: &ProbeReport) {
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
                let reasons = kraftwerk_live::reasons::ClockEventReasons(s.clock_event_reasons);
                let color = if reasons.has_fault() { theme::ERROR } else { ui.visuals().text_color() };
                // People's words ("software power cap"), NVML's names on hover.
                let labels: Vec<&str> = reasons.reasons().iter().map(|r| r.label).collect();
                let text = if labels.is_empty() { "none".to_owned() } else { labels.join(", ") };
                ui.label(RichText::new(text).color(color)).on_hover_text(s.clock_event_names.join(", "));
                ui.end_row();
            }
        });
    }
}

/// Width of the validation table's grade, check and GPU columns with the gaps of all six
/// columns, points (the widest check id, `memory-released`, in monospace).
const VALIDATION_FIXED_W: f32 = 300.0;

pub(super) fn validation_table(ui: &mut egui::Ui, v: &Validation) {
    ui.horizontal(|ui| {
        grade_badge(ui, v.overall);
        ui.label(format!("Validation against {} · {} checks · {}", v.build, v.checks.len(), v.source));
    });
    // The text columns share what the grade, check and GPU columns leave, so the table fits
    // the tab (with fixed widths the reason ran past the window's edge at 1280 px).
    let text_w = (ui.available_width() - VALIDATION_FIXED_W).max(460.0);
    let (expected_w, reason_w) = (text_w * 0.22, text_w * 0.56);
    egui::Grid::new("live-validation").striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        for h in ["grade", "check", "GPU", "expected", "measured", "reason"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for c in &v.checks {
            grade_badge(ui, c.grade);
            ui.label(RichText::new(&c.check).monospace());
            ui.label(c.gpu.map_or_else(String::new, |g| g.to_string()));
            wrapped(ui, &plain(&c.expected), expected_w);
            wrapped(ui, &plain(&c.measured), expected_w);
            wrapped(ui, &plain(&c.reason), reason_w);
            ui.end_row();
        }
    });
}

//! The Live tab: the installed GPUs through NVML (or a recording, clearly labelled), a card per
//! GPU, time series, the topology matrix, the GEMM probe, validation against the open build, and
//! the GPU↔GPU links.
//!
//! Drawing reads [`LiveView`] and pushes [`LiveAction`]s (inside [`Action::Live`]); [`apply`]
//! carries them out after the frame is drawn. Long work (sampling, probe, links) runs on the threads of
//! [`crate::live_state`].

pub mod cards;
pub mod links;
pub mod probe;

use crate::command::Action;
pub use crate::command::LiveAction;
use crate::live_state::{self, LiveView};
use crate::state::AppState;
use crate::tabs::live::cards::{gpu_cards, plots};
use crate::tabs::live::links::links_section;
use crate::tabs::live::probe::probe_section;
use crate::theme;
pub use crate::widgets::{grade_color, plain};
use eframe::egui::{self, RichText};
use kraftwerk_catalog::dates::utc_date_time;
use kraftwerk_live::nvml::NO_DRIVER;

/// Draws the Live tab; its widgets' commands go to `out` as [`Action::Live`], applied by the
/// app after the frame (the sampler is started and polled once per frame in the app's `logic`).
pub fn show(ui: &mut egui::Ui, state: &AppState, live: &LiveView, out: &mut Vec<Action>) {
    let mut live_out = Vec::new();
    draw(ui, state, live, &mut live_out);
    out.extend(live_out.into_iter().map(Action::Live));
}

/// Carries out one Live command (called by [`crate::app::KraftwerkApp::apply`]).
pub fn apply(ctx: &egui::Context, state: &AppState, live: &mut LiveView, action: &LiveAction) {
    match action {
        // The app asks for the file (native dialog or its path field) before this is reached.
        LiveAction::OpenRecordingDialog | LiveAction::OpenLinksDialog => {}
        LiveAction::ShowDemo => match kraftwerk_live::record::Recording::from_json_str(
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
        LiveAction::ShowDemoLinks => live.open_links_text(live_state::DEMO_LINKS_NAME, live_state::DEMO_LINKS),
        LiveAction::DismissErrors => live.errors.clear(),
    }
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
                if ui.add(egui::Button::new("Open recording…")).clicked() {
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
                if ui.add(egui::Button::new("Open recording…")).clicked() {
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
            if ui.add(egui::Button::new("Open recording…")).clicked() {
                out.push(LiveAction::OpenRecordingDialog);
            }
        });
    }
}

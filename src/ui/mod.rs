//! The desktop app (eframe/egui). Draws state and sends actions; computes no verdicts itself.

use std::path::PathBuf;
use std::process::ExitCode;

/// Opens the main window, optionally with a build file loaded.
pub fn run(_build: Option<PathBuf>) -> ExitCode {
    let options = eframe::NativeOptions::default();
    match eframe::run_native("Kraftwerk", options, Box::new(|_cc| Ok(Box::new(Bare)))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kraftwerk: cannot open a window: {e}");
            ExitCode::from(2)
        }
    }
}

struct Bare;

impl eframe::App for Bare {
    fn ui(&mut self, ui: &mut eframe::egui::Ui, _frame: &mut eframe::Frame) {
        ui.heading("Kraftwerk");
    }
}

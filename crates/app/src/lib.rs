//! The desktop app (eframe/egui): plan a rig in a window.
//!
//! The UI draws state and sends [`Action`]s; [`app::KraftwerkApp`] applies them in one place and
//! re-runs [`kraftwerk_core::check::run`] (the same function `kraftwerk check` calls) after every change,
//! so the window and the CLI can never disagree. The UI computes no verdicts itself.
//!
//! - [`state`]: the document ([`AppState`]), settings, view state, messages.
//! - [`command`]: the tab list ([`Tab`]) and the one command enum ([`Action`]) every tab sends.
//! - [`app`]: [`KraftwerkApp`], where actions are applied (edits, undo, files, Live jobs).
//! - [`view`]: the window drawn from the state (menus, status bar, tab strip, prompt).
//! - [`build_panel`]: the left panel (part pickers, GPUs, PSUs, site).
//! - [`build_tab`], [`checks_tab`], [`power_tab`], [`fit_tab`], [`catalog_tab`]: the central tabs.
//! - [`widgets`]: the searchable part picker and gauges.
//! - [`theme`]: colour and spacing tokens.
//! - [`stats`]: frame-time, start-up and memory measurement (`KRAFTWERK_FRAME_STATS=1`).

pub mod app;
pub mod build_panel;
pub mod build_tab;
pub mod catalog_tab;
pub mod checks_tab;
pub mod command;
pub mod compare_tab;
pub mod export;
pub mod files;
pub mod fit_tab;
pub mod job;
pub mod live_cards;
pub mod live_links;
pub mod live_probe;
pub mod live_state;
pub mod live_tab;
pub mod part_form;
pub mod part_form_view;
pub mod parts_tab;
pub mod paste_list;
pub mod plan_tab;
pub mod power_tab;
pub mod shortcuts;
pub mod slot_editor;
pub mod state;
pub mod stats;
pub mod theme;
pub mod view;
pub mod view_state;
pub mod widgets;

pub use app::{Action, AppState, EditAction, FileAction, KraftwerkApp, LiveAction, PlanTabAction, Tab, ViewAction};

use eframe::egui;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Opens the main window, optionally with a build file loaded. A file that fails to load shows
/// its error (`file:line:column`) in the window, which then starts with an empty build.
pub fn run(build: Option<PathBuf>) -> ExitCode {
    let started = Instant::now();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Kraftwerk")
            .with_app_id("kraftwerk")
            .with_inner_size([1440.0, 900.0])
            .with_min_inner_size([960.0, 600.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    let result = eframe::run_native(
        "Kraftwerk",
        options,
        Box::new(move |cc| Ok(Box::new(KraftwerkApp::new(cc, build, started)))),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kraftwerk: cannot open a window: {e}");
            ExitCode::from(2)
        }
    }
}

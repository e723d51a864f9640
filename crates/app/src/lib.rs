//! The desktop app (eframe/egui): plan a rig in a window.
//!
//! The UI draws state and sends [`Action`]s; [`app::KraftwerkApp`] applies them in one place and
//! re-runs [`kraftwerk_core::check::run`] (the same function `kraftwerk check` calls) after every change,
//! so the window and the CLI can never disagree. The UI computes no verdicts itself.
//!
//! Files import each other downwards only (`scripts/import_cycles.py` finds no cycle here):
//!
//! - [`command`]: the tab list ([`Tab`]) and [`Action`], split by area: [`EditAction`],
//!   [`FileAction`], [`ViewAction`], [`LiveAction`], [`PlanTabAction`].
//! - [`state`]: the document ([`AppState`]), settings, messages; [`view_state`]: the widgets'
//!   view state ([`view_state::ViewState`]), apart from the document.
//! - [`shortcuts`]: every keyboard shortcut, declared once; the menus' labels come from it.
//! - [`job`]: the one background-job type (Live probe and links, the Plan search).
//! - [`widgets`]: the searchable part picker, gauges, and the Live sections' shared helpers.
//! - [`theme`]: colour and spacing tokens; [`judged`]: a figure's colour from the findings that
//!   name it, and the finding counts the status bar, tab strip and Checks tab share.
//! - [`build_panel`]: the left panel (part pickers, GPUs, PSUs, site).
//! - [`build_tab`], [`parts_tab`], [`checks_tab`], [`power_tab`], [`fit_tab`], [`compare_tab`],
//!   [`plan_tab`], [`catalog_tab`], [`live_tab`]: the central tabs.
//! - [`overflow`]: panels whose content exceeded their space, recorded each frame for the tests.
//! - [`view`]: the window drawn from the state (menus, status bar, tab strip, prompt).
//! - [`app`]: [`KraftwerkApp`], where actions are applied, one exhaustive match per area (edits
//!   and undo, files, view, Live and Plan jobs).
//! - [`stats`]: frame-time, start-up and memory measurement (`KRAFTWERK_FRAME_STATS=1`).

pub mod app;
pub mod build_panel;
pub mod command;
pub mod files;
pub mod job;
pub mod judged;
pub mod live_state;
pub mod overflow;
pub mod part_form;
pub mod part_form_view;
pub mod paste_list;
pub mod shortcuts;
pub mod slot_editor;
pub mod state;
pub mod stats;
pub mod tabs;
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

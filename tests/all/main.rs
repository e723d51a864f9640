//! Kraftwerk's integration tests, one binary: each file under `tests/all/` is a module (one
//! per area, as the separate test binaries were), linked once instead of once per file. The CLI
//! tests run the `kraftwerk` binary (`CARGO_BIN_EXE_kraftwerk`); the others call the library.
//! Helpers shared by several modules live in [`common`]. Tests of one module run in parallel
//! threads with every other module's, so a test never changes process-wide state (environment
//! variables, the working directory): it passes what it needs to a child process instead.

mod common;

mod bad_input;
mod board_probe_cli;
mod board_wiring;
mod build_file;
mod catalog;
mod catalog_audit;
mod catalog_boards;
mod catalog_cpus;
mod catalog_fit;
mod catalog_honesty;
mod catalog_prices;
mod catalog_real_builds;
mod check_cli;
mod check_wiring;
mod chip_prices;
mod cli;
mod compare_cli;
mod daily_round2;
mod fleet;
mod golden;
mod gui;
mod gui_flows;
mod gui_layout;
mod gui_live;
mod honest_answers;
mod links;
mod live_nvml;
mod llm_checkpoints;
mod llm_fit;
mod llm_measured;
mod llm_presets_2025;
mod llm_train;
mod llm_vllm_memory;
mod model_file;
mod plan;
mod plan_fit;
mod plan_levers;
mod plan_measured;
mod plan_train;
mod platform_prices;
mod power_reports;
mod price_plausibility;
mod prices_history;
mod probe;
mod prometheus;
mod readme_examples;
mod rules;
mod runtime_formats;
mod scenarios;
mod tryout_fixes;
mod used_owned;
mod validate;
mod validate_faults;

//! Kraftwerk's integration tests, one binary: each file under `tests/all/` is a module (one
//! per area, as the separate test binaries were), linked once instead of once per file. The CLI
//! tests run the `kraftwerk` binary (`CARGO_BIN_EXE_kraftwerk`); the others call the library.
//! Helpers shared by several modules live in [`support`]. Tests of one module run in parallel
//! threads with every other module's, so a test never changes process-wide state (environment
//! variables, the working directory): it passes what it needs to a child process instead.

mod support;

mod bad_input;
mod board_probe_cli;
mod catalog_prices;
mod catalog_real_builds;
mod check_cli;
mod chip_prices;
mod cli;
mod compare_cli;
mod fit_json_text_agree;
mod fit_options;
mod fit_verdict_cost;
mod fleet;
mod golden;
mod gui;
mod gui_fit_flags;
mod gui_flows;
mod gui_layout;
mod gui_live;
mod gui_plan_fit_agree;
mod links;
mod live_nvml;
mod llama_bench_hosts;
mod llm_checkpoints;
mod llm_fit;
mod llm_measured;
mod llm_presets_2025;
mod llm_train;
mod llm_vllm_memory;
mod plan;
mod plan_acceptance;
mod plan_fit;
mod plan_levers;
mod plan_measured;
mod plan_train;
mod plan_trial;
mod platform_prices;
mod power_reports;
mod price_plausibility;
mod prices_history;
mod probe;
mod prometheus;
mod readme_examples;
mod regression;
mod runtime_formats;
mod used_owned;
mod validate;
mod validate_faults;

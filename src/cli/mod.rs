//! The command-line face of Kraftwerk: the GUI's twin for headless servers.
//!
//! Exit codes: 0 = pass, 1 = findings of error severity (or a failed fit/validation),
//! 2 = bad input (a file that could not be read, with file:line:column), 3 = `check` of an
//! INCOMPLETE, EMPTY or UNVERIFIED build; each subcommand's `--help` states its own ([`help`]).

// First: its `outln!`/`out!` are in scope in every module below.
#[macro_use]
pub mod out;
mod board_cmd;
mod catalog_cmd;
pub mod check_cmd;
mod compare_cmd;
pub mod error;
pub mod examples_cmd;
mod fit_cmd;
pub use fit_cmd::llama_cpp_spellings;
mod fleet_cmd;
mod gpus_cmd;
mod help;
mod links_cmd;
mod list_cmd;
pub mod plan_cmd;
mod prices_cmd;
mod probe_cmd;
pub mod progress;
pub mod shell_cmd;
mod validate_cmd;

use clap::{Parser, Subcommand, ValueEnum};
use error::{CliError, bad};
use std::path::PathBuf;

/// Output format of every reporting subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// JSON for scripts (field names carry units; README.md shows `check`'s and `plan`'s shape).
    Json,
}

/// Command line.
#[derive(Debug, Parser)]
#[command(name = "kraftwerk", version, about = "Plan, check and validate multi-GPU LLM machines", after_help = help::TOP)]
pub struct Cli {
    /// A build file (`*.rig.ron`) to open in the window.
    pub build: Option<PathBuf>,
    /// Subcommand; none opens the desktop app.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List catalog parts of one kind (all kinds when omitted); `catalog audit` lists source
    /// conflicts, unknown figures the rules need and imported files that failed validation;
    /// `catalog search TEXT` finds parts as the window's pickers do.
    #[command(after_help = help::CATALOG, args_conflicts_with_subcommands = true)]
    Catalog {
        /// gpus, gpu_cards, cpus, motherboards, psus, coolers, cases, memory, storage, models,
        /// or `audit`.
        kind: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// Print counts (parts per kind, parts with the figures rules need) instead of parts.
        #[arg(long)]
        stats: bool,
        /// `search`.
        #[command(subcommand)]
        command: Option<catalog_cmd::CatalogCommand>,
    },
    /// Prices of a build's parts with date, source and age (a price over 12 months old says
    /// so); without a build, the catalog's priced share per kind and the street-price import.
    #[command(after_help = help::PRICES)]
    Prices {
        /// The build file (`*.rig.ron`); omitted: the whole catalog.
        #[arg(conflicts_with = "learn")]
        build: Option<PathBuf>,
        /// Add the prices of a parts list (PCPartPicker's export, as `import` reads it) to your
        /// price file, dated today with the list's store: your market wins over ours. A line for
        /// one unit in US dollars is learned; the others are named with the reason. The price
        /// file is saved atomically, and one that could not be read cleanly is never overwritten.
        #[arg(long, value_name = "FILE")]
        learn: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Check a build file: verdict, findings, power summary. Exit 0 = no errors, 1 = errors,
    /// 2 = the file could not be read, 3 = INCOMPLETE, EMPTY or UNVERIFIED (a rule that could
    /// report an error did not run).
    #[command(after_help = help::CHECK)]
    Check {
        /// The build file (`*.rig.ron`); not needed with `--explain`.
        #[arg(required_unless_present = "explain")]
        build: Option<PathBuf>,
        /// Print one rule's documentation instead.
        #[arg(long, value_name = "RULE")]
        explain: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// List every compatibility rule.
    #[command(after_help = help::RULES)]
    Rules {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Power and thermal estimate of a build, with power-limit advice.
    #[command(after_help = help::POWER)]
    Power {
        /// The build file.
        build: PathBuf,
        /// Load state.
        #[arg(long, value_enum, default_value_t = StateArg::Training)]
        state: StateArg,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Will a model fit the build's GPUs, how fast, at what cost. Exit 1 when it does not fit.
    #[command(after_help = help::FIT)]
    Fit(fit_cmd::FitArgs),
    /// Validate the real machine against a build: GPU count and model, PCIe link, power limit,
    /// memory, GEMM TFLOP/s and correctness, host bandwidth, power and clock events under load.
    /// Exit 1 on any fail.
    #[command(after_help = help::VALIDATE)]
    Validate(validate_cmd::ValidateArgs),
    /// Merge many nodes' `validate --format json` reports: a verdict per node, TFLOP/s and busbw
    /// across the fleet, outliers by node and GPU UUID. Exit 1 on a failed node or an outlier.
    #[command(after_help = help::FLEET)]
    Fleet(fleet_cmd::FleetArgs),
    /// Show the NVIDIA GPUs installed in this machine (through NVML).
    #[command(after_help = help::GPUS)]
    Gpus {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Sample the installed GPUs over time and optionally record the session.
    #[command(after_help = help::MONITOR)]
    Monitor {
        /// How long to sample, seconds.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Sampling interval, milliseconds.
        #[arg(long, default_value_t = 500)]
        interval_ms: u64,
        /// Save the session as a recording (`*.kwrec.json`).
        #[arg(long)]
        record: Option<PathBuf>,
        /// Serve the samples for Prometheus at http://ADDR/metrics (e.g. 127.0.0.1:9400);
        /// with `--seconds 0`, until Ctrl-C.
        #[arg(long, value_name = "ADDR")]
        prometheus: Option<std::net::SocketAddr>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// The board: `board probe` writes this machine's slot wiring (SMBIOS slot table and PCIe
    /// tree) as a board-wiring entry with its evidence. Exit 3 when the entry is incomplete or
    /// no catalog board matched.
    #[command(subcommand, after_help = help::BOARD)]
    Board(board_cmd::BoardCommand),
    /// Run the GEMM probe on every GPU (CPU backend when CUDA is absent).
    #[command(after_help = help::PROBE)]
    Probe(probe_cmd::ProbeArgs),
    /// Measure the GPU-to-GPU links (P2P copy matrix, NCCL all-reduce busbw) and grade them.
    #[command(after_help = help::LINKS)]
    Links(links_cmd::LinksArgs),
    /// Compare two to four builds side by side (verdict, cost, power, heat, tokens/s, $/Mtok).
    #[command(after_help = help::COMPARE)]
    Compare(compare_cmd::CompareArgs),
    /// Plan the builds that meet a goal (model, speed, users, site, budget), cheapest first.
    /// Exit 1 when nothing meets the goal.
    #[command(after_help = help::PLAN)]
    Plan(plan_cmd::PlanArgs),
    /// Print shell completions (bash, zsh, fish, powershell, elvish) for `kraftwerk`.
    #[command(after_help = help::COMPLETIONS)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of `kraftwerk` and every subcommand.
    #[command(after_help = help::MAN, alias = "manpage")]
    Man,
    /// Read a parts list (PCPartPicker Markdown, Text or BBCode export, or one part a line) into
    /// a build file. Exit 0 = every line matched, 1 = some did not (build still written), 2 =
    /// unreadable input.
    #[command(after_help = help::IMPORT)]
    Import(list_cmd::ImportArgs),
    /// Write a build as a parts list (`--list markdown`: PCPartPicker's Type | Item | Price).
    #[command(after_help = help::EXPORT)]
    Export(list_cmd::ExportArgs),
    /// The reference builds (the repository's `catalog/builds/`), built into the binary: lists
    /// them, or writes them into a folder with `--out DIR` to check, fit or open.
    #[command(after_help = help::EXAMPLES)]
    Examples {
        /// Write the reference builds into this folder (created if missing; a file already
        /// there is kept).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// Load state for `kraftwerk power`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateArg {
    /// Idle.
    Idle,
    /// LLM inference (decode).
    Inference,
    /// Training / full GEMM load.
    Training,
}

/// Runs the CLI; `None` command means the caller opens the GUI.
pub fn run(cmd: Command) -> Result<(), CliError> {
    match cmd {
        Command::Catalog { command: Some(catalog_cmd::CatalogCommand::Search(a)), .. } => catalog_cmd::search(&a),
        Command::Catalog { kind, format, stats, command: None } => catalog_cmd::run(kind.as_deref(), format, stats),
        Command::Check { build, explain, format } => match (explain, build) {
            (Some(rule), _) => check_cmd::explain(&rule),
            (None, Some(path)) => check_cmd::check(&path, format),
            (None, None) => Err(bad("check: give a BUILD file or --explain RULE")),
        },
        Command::Fit(args) => fit_cmd::run(&args),
        Command::Validate(args) => validate_cmd::run(&args),
        Command::Fleet(args) => fleet_cmd::run(&args),
        Command::Rules { format } => check_cmd::rules(format),
        Command::Power { build, state, format } => {
            let state = match state {
                StateArg::Idle => crate::estimate::power::LoadState::Idle,
                StateArg::Inference => crate::estimate::power::LoadState::Inference,
                StateArg::Training => crate::estimate::power::LoadState::Training,
            };
            check_cmd::power(&build, state, format)
        }
        Command::Gpus { format } => gpus_cmd::run_gpus(format),
        Command::Monitor { seconds, interval_ms, record, prometheus, format } => {
            gpus_cmd::run_monitor(seconds, interval_ms, record.as_deref(), prometheus, format)
        }
        Command::Probe(args) => probe_cmd::run(&args),
        Command::Board(cmd) => board_cmd::run(&cmd),
        Command::Links(args) => links_cmd::run(&args),
        Command::Compare(args) => compare_cmd::run(&args),
        Command::Plan(args) => plan_cmd::run(&args),
        Command::Completions { shell } => shell_cmd::completions(shell),
        Command::Man => shell_cmd::man(),
        Command::Import(args) => list_cmd::import(&args),
        Command::Export(args) => list_cmd::export(&args),
        Command::Examples { out } => examples_cmd::run(out.as_deref()).map_err(CliError::Runtime),
        Command::Prices { build, learn, format } => match learn {
            Some(list) => prices_cmd::learn(&list, format),
            None => prices_cmd::run(build.as_deref(), format),
        },
    }
}

/// Prints a serializable value as pretty JSON to stdout; returns exit code 2 on failure.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    match serde_json::to_string_pretty(value) {
        Ok(s) => {
            outln!("{s}");
            Ok(())
        }
        Err(e) => Err(CliError::Runtime(format!("cannot encode JSON: {e}"))),
    }
}

/// Loads the catalog with the user's parts, printing user-file problems to stderr.
pub(crate) fn load_catalog() -> Result<crate::catalog::Catalog, CliError> {
    let dir = crate::catalog::user_parts_dir();
    match crate::catalog::load_with_user_dir(dir.as_deref()) {
        Ok((c, problems)) => {
            for p in problems {
                eprintln!("kraftwerk: warning: {p}");
            }
            Ok(c)
        }
        Err(e) => Err(bad(e.to_string())),
    }
}

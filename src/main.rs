//! `kraftwerk`: with no subcommand opens the desktop app; subcommands are the CLI.

use clap::Parser;
use kraftwerk::cli::{Cli, llama_cpp_spellings, run};
use std::process::ExitCode;

/// mimalloc instead of the system allocator: the catalog load at start allocates hundreds of
/// thousands of small strings, and a third of its time went to the system allocator (see the
/// `mimalloc` line in `Cargo.toml` and `benches/catalog.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // llama.cpp's one-dash flags (`-ngl`, `-ot`, `-sm`, `-ts`) after `fit`, as their long forms.
    let cli = Cli::parse_from(llama_cpp_spellings(std::env::args_os()));
    match cli.command {
        // The one place a command's outcome becomes an exit code and its error is printed
        // (`kraftwerk::cli::error` has the table).
        Some(cmd) => match run(cmd) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                if let Some(line) = e.message() {
                    eprintln!("{line}");
                }
                e.exit_code()
            }
        },
        None => open_gui(cli.build),
    }
}

#[cfg(feature = "gui")]
fn open_gui(build: Option<std::path::PathBuf>) -> ExitCode {
    kraftwerk::ui::run(build)
}

#[cfg(not(feature = "gui"))]
fn open_gui(_build: Option<std::path::PathBuf>) -> ExitCode {
    eprintln!("kraftwerk: built without the `gui` feature; run `kraftwerk --help` for the CLI");
    ExitCode::from(2)
}

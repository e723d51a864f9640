//! `kraftwerk`: with no subcommand opens the desktop app; subcommands are the CLI.

use clap::Parser;
use kraftwerk::cli::{Cli, run};
use std::process::ExitCode;

/// mimalloc instead of the system allocator: the catalog load at start allocates hundreds of
/// thousands of small strings, and a third of its time went to the system allocator (see the
/// `mimalloc` line in `Cargo.toml` and `benches/catalog.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_broken_pipe();
    let cli = Cli::parse();
    match cli.command {
        Some(cmd) => run(cmd),
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

/// `kraftwerk check … | head` closes stdout early; `println!` then panics. Exit quietly instead,
/// as command-line tools do on SIGPIPE (without touching signal handlers, which needs unsafe).
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") {
            std::process::exit(0);
        }
        default(info);
    }));
}

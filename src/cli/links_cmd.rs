//! `kraftwerk links`: the P2P copy matrix and the NCCL all-reduce bus bandwidth of this
//! machine's GPUs, graded against a build (or against what the GPUs are).
//!
//! NCCL must start with NVLink SHARP off (`NCCL_NVLS_ENABLE=0`) and cudarc must find
//! `libnccl.so`; when either is missing the command starts itself again with the environment
//! fixed (see [`crate::live::links::nccl_env`]) and returns that run's exit code.
//!
//! Exit codes: 0 = every check passed, informed or warned, 1 = a check failed, 2 = bad input.

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::live::links::nccl_env::{self, CHILD_ENV, ChildPlan};
use crate::live::links::{self, DEFAULT_MAX_BYTES, DEFAULT_P2P_BYTES, ELEMENT_BYTES, LinksOptions, checks};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;

/// Arguments of `kraftwerk links`.
#[derive(Debug, clap::Args)]
pub struct LinksArgs {
    /// Grade against this build file (`*.rig.ron`): build GPU i is CUDA GPU i. Default: the
    /// live GPUs matched to the catalog by name.
    #[arg(long)]
    pub build: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Largest all-reduce size, bytes (sizes double from 1 MiB up to it; P2P copies use
    /// 256 MiB or this, whichever is smaller).
    #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
    pub max_bytes: usize,
}

/// Runs `kraftwerk links`.
pub fn run(args: &LinksArgs) -> Result<(), CliError> {
    if args.max_bytes < ELEMENT_BYTES {
        return Err(bad(format!("--max-bytes must be at least {ELEMENT_BYTES}")).within("links"));
    }
    let (catalog, expected) = match &args.build {
        Some(path) => {
            let (catalog, build) = super::check_cmd::load_build(path)?;
            let e = checks::expectations_from_build(&build, &catalog);
            (Some(catalog), Some(e))
        }
        None => (load_catalog().ok(), None),
    };
    if let Some(code) = restart_if_needed() {
        // The restarted run printed its own report and errors.
        return CliError::from_code(code);
    }
    let (tx, rx) = mpsc::sync_channel::<String>(64);
    let opts = LinksOptions {
        max_bytes: args.max_bytes,
        p2p_bytes: DEFAULT_P2P_BYTES.min(args.max_bytes),
        progress: Some(tx),
        ..LinksOptions::default()
    };
    super::progress::cancel_on_ctrl_c(&opts.cancel);
    let printer = std::thread::Builder::new().name("kraftwerk-links-progress".to_owned()).spawn(move || {
        // The links report steps, not fractions: a spinner with the step on a terminal,
        // the lines as before elsewhere.
        let mut p = super::progress::Progress::new("links");
        for line in rx {
            if p.is_bar() {
                p.step(&line);
            } else {
                eprintln!("[links] {line}");
            }
        }
        p.finish();
    });
    let report = links::run_links(&opts, expected, catalog.as_ref());
    drop(opts);
    if let Ok(h) = printer {
        let _ = h.join();
    }
    match args.format {
        Format::Json => print_json(&report)?,
        Format::Text => out!("{}", crate::live::report::links::render(&report)),
    }
    if report.failed() { Err(CliError::Failed(None)) } else { Ok(()) }
}

/// Whether cudarc can run NCCL as things are: no driver (nothing will run) or NCCL found.
#[cfg(feature = "cuda")]
fn nccl_loadable() -> Option<bool> {
    links::cuda::driver_present().then(links::cuda::nccl_present)
}

#[cfg(not(feature = "cuda"))]
fn nccl_loadable() -> Option<bool> {
    None
}

/// Starts this command again with `NCCL_NVLS_ENABLE=0` and, when cudarc cannot find NCCL, a
/// `libnccl.so` link on `LD_LIBRARY_PATH`; `Some(exit code)` of that run, or `None` to go on
/// here (nothing to fix, already restarted, no GPU driver, or the restart failed).
fn restart_if_needed() -> Option<ExitCode> {
    let loadable = nccl_loadable()?;
    let already = std::env::var_os(CHILD_ENV).is_some();
    let found = if loadable || already { None } else { nccl_env::find_libnccl(true) };
    let plan = ChildPlan::decide(nccl_env::nvls_value().as_deref(), loadable, found.as_deref(), already)?;
    let alias = match plan.alias_library.as_deref().map(nccl_env::alias_dir) {
        Some(Ok(dir)) => Some(dir),
        Some(Err(e)) => {
            eprintln!("kraftwerk links: cannot link libnccl.so: {e}");
            None
        }
        None => None,
    };
    let exe = std::env::current_exe().ok()?;
    let mut why = Vec::new();
    if plan.set_nvls_off {
        why.push("NCCL_NVLS_ENABLE=0".to_owned());
    }
    if let Some(lib) = &plan.alias_library {
        why.push(format!("libnccl.so -> {}", lib.display()));
    }
    eprintln!("kraftwerk links: restarting with {}", why.join(", "));
    let status =
        std::process::Command::new(exe).args(std::env::args_os().skip(1)).envs(plan.env(alias.as_deref())).status();
    if let Some(dir) = alias {
        let _ = std::fs::remove_dir_all(dir);
    }
    match status {
        Ok(s) => Some(ExitCode::from(s.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(2))),
        Err(e) => {
            eprintln!("kraftwerk links: cannot restart ({e}); running without NCCL");
            None
        }
    }
}

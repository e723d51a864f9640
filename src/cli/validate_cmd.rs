//! `kraftwerk validate BUILD`: the real machine (NVML + the GEMM probe) against the build.
//! Exit 0 when no check fails, 1 on any fail, 2 when the build file cannot be read.

use super::check_cmd::load_build;
use super::{Format, print_json};
use crate::live::nvml::{self, NvmlState};
use crate::live::probe::grade::Grade;
use crate::live::probe::{self, ExpectedGpu, ProbeConfig, ProbeReport};
use crate::live::validate::{Validation, validate};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `kraftwerk validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The build file.
    pub build: PathBuf,
    /// Sustained load of the probe, seconds (0: no sustained load).
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Skip the GEMM probe: check only what NVML reports.
    #[arg(long)]
    pub no_probe: bool,
    /// Use this saved probe report (`kraftwerk probe --format json`) instead of running one.
    #[arg(long)]
    pub probe_report: Option<PathBuf>,
    /// Also save the probe report that was run (JSON) to this file.
    #[arg(long)]
    pub save_probe: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `kraftwerk validate`.
pub fn run(a: &ValidateArgs) -> ExitCode {
    let (catalog, build) = match load_build(&a.build) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let state = nvml::open();
    let live = match &state {
        NvmlState::Ready(g) => g.gpus().to_vec(),
        other => {
            eprintln!("kraftwerk: {}", other.message());
            Vec::new()
        }
    };
    let probe: Option<ProbeReport> = if let Some(path) = &a.probe_report {
        match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("kraftwerk: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    } else if a.no_probe || live.is_empty() {
        None
    } else {
        let config = ProbeConfig { sustained_seconds: a.seconds.max(0.0), ..ProbeConfig::default() };
        let r = build.resolve(&catalog);
        let expected = r.gpus.iter().flatten().next().map(|g| ExpectedGpu::from_catalog(g));
        eprintln!("kraftwerk: running the GEMM probe ({} s sustained)…", config.sustained_seconds);
        Some(probe::run_probe(&config, expected.as_ref()))
    };
    if let (Some(path), Some(p)) = (&a.save_probe, &probe) {
        let saved = serde_json::to_vec_pretty(p)
            .map_err(|e| e.to_string())
            .and_then(|bytes| crate::live::record::write_atomic(path, &bytes).map_err(|e| e.to_string()));
        if let Err(e) = saved {
            eprintln!("kraftwerk: cannot save the probe report to {}: {e}", path.display());
        }
    }
    let v = validate(&build, &catalog, &live, probe.as_ref());
    let code = if v.overall == Grade::Fail { ExitCode::from(1) } else { ExitCode::SUCCESS };
    if a.format == Format::Json {
        let printed = print_json(&v);
        return if printed == ExitCode::SUCCESS { code } else { printed };
    }
    print_validation(&v);
    code
}

/// Prints the validation table.
pub fn print_validation(v: &Validation) {
    println!("{}: {}", v.build, v.overall.name().to_ascii_uppercase());
    println!("  {:<16} {:<4} {:<5} {:<44} {:<44} reason", "check", "gpu", "grade", "expected", "measured");
    for c in &v.checks {
        println!(
            "  {:<16} {:<4} {:<5} {:<44} {:<44} {}",
            c.check,
            c.gpu.map_or_else(|| "-".to_owned(), |g| (g + 1).to_string()),
            c.grade.name(),
            c.expected,
            c.measured,
            c.reason
        );
    }
}

//! `kraftwerk probe`: the GEMM probe on every GPU (CPU backend without CUDA).
//!
//! Exit codes: 0 = every check passed or warned, 1 = a check failed, 2 = bad arguments, 3 =
//! nothing failed but a check measured nothing (the CPU backend measured no GPU).

use super::Format;
use super::error::{CliError, bad};
use crate::live::probe::{
    self, BackendChoice, ExpectedGpu, GemmPrecision, Grade, ProbeConfig, ProbePhase, ProbeProgress,
};
use std::sync::mpsc;

/// Arguments of `kraftwerk probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// Sustained load duration, seconds (0 skips it; minutes for a burn-in).
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Precisions, comma-separated: fp32, tf32, fp16, bf16, fp8.
    #[arg(long, value_delimiter = ',', default_value = "fp32,tf32,fp16,bf16,fp8")]
    pub precision: Vec<String>,
    /// Matrix size n (n×n×n GEMMs); less when GPU memory is short, at most 512 on the CPU.
    #[arg(long, default_value_t = 8192)]
    pub size: usize,
    /// Timed GEMMs per precision and kernel.
    #[arg(long, default_value_t = 20)]
    pub iterations: usize,
    /// Backend: auto (CUDA when present), cuda, cpu.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Cancel the probe after this many seconds (the report says it was cancelled).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Grade against this catalog GPU id (default: the catalog GPU whose name matches).
    #[arg(long)]
    pub expect: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `--backend` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendArg {
    /// CUDA when a driver, cuBLAS and a GPU are present, else the CPU.
    Auto,
    /// CUDA only (fails without it).
    Cuda,
    /// The CPU backend.
    Cpu,
}

/// Runs the probe.
pub fn run(args: &ProbeArgs) -> Result<(), CliError> {
    let mut precisions = Vec::new();
    for p in &args.precision {
        match p.parse::<GemmPrecision>() {
            Ok(p) if !precisions.contains(&p) => precisions.push(p),
            Ok(_) => {}
            Err(e) => {
                return Err(bad(e.to_string()).within("probe"));
            }
        }
    }
    if precisions.is_empty() || args.seconds.is_nan() || args.seconds < 0.0 || args.size == 0 || args.iterations == 0 {
        return Err(bad("need at least one precision, --seconds ≥ 0, --size ≥ 1, --iterations ≥ 1").within("probe"));
    }
    let catalog = crate::cli::load_catalog().ok();
    let mut expected = None;
    if let Some(id) = &args.expect {
        let Some(g) = catalog.as_ref().and_then(|c| c.gpu(id)) else {
            return Err(bad(format!("no GPU `{id}` in the catalog (see `kraftwerk catalog gpus`)")).within("probe"));
        };
        expected = Some(ExpectedGpu::from_catalog(g));
    }
    let (tx, rx) = mpsc::sync_channel::<ProbeProgress>(64);
    let config = ProbeConfig {
        precisions,
        size: args.size,
        timed_iterations: args.iterations,
        sustained_seconds: args.seconds,
        backend: match args.backend {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Cuda => BackendChoice::Cuda,
            BackendArg::Cpu => BackendChoice::Cpu,
        },
        progress: Some(tx),
        ..ProbeConfig::default()
    };
    if let Some(limit) = args.timeout.filter(|t| t.is_finite() && *t >= 0.0) {
        let cancel = std::sync::Arc::clone(&config.cancel);
        // Detached: it only sets a flag, and the process exits after the report.
        let _ = std::thread::Builder::new().name("kraftwerk-probe-timeout".to_owned()).spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs_f64(limit));
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }
    super::progress::cancel_on_ctrl_c(&config.cancel);
    let printer = progress_printer(rx);
    let mut report = probe::run_probe(&config, expected.as_ref());
    drop(config);
    if let Some(h) = printer {
        let _ = h.join();
    }
    if let (None, probe::Backend::Cuda, Some(cat), Some(dev)) =
        (&expected, report.backend, catalog.as_ref(), report.devices.first())
    {
        let max_limit = dev.power_limit_max_w.or_else(|| dev.sustained.as_ref().and_then(|s| s.power_limit_max_w));
        match probe::match_catalog_gpu(cat, &dev.name, max_limit) {
            Ok(Some(g)) => {
                report.expected = Some(ExpectedGpu::from_catalog(g));
                report.regrade();
            }
            Ok(None) => {}
            Err(ids) => eprintln!(
                "kraftwerk probe: several catalog GPUs match `{}` ({}); pick one with --expect",
                dev.name,
                ids.join(", ")
            ),
        }
    }
    let code = match report.overall {
        Grade::Fail => Err(CliError::Failed(None)),
        // Measured nothing (the CPU backend measured no GPU; a rate of zero): not a pass.
        Grade::NotMeasured => Err(CliError::NotAPass),
        Grade::Pass | Grade::Info | Grade::Warn => Ok(()),
    };
    match args.format {
        Format::Json => {
            super::print_json(&report)?;
        }
        Format::Text => out!("{}", crate::live::report::probe::render(&report)),
    }
    code
}

/// Prints the probe's progress from `rx` on its own named thread until the sender is dropped:
/// a bar when stderr is a terminal, otherwise one line per device and phase. `None` when the
/// thread could not start (the probe then runs without progress).
pub(super) fn progress_printer(rx: mpsc::Receiver<ProbeProgress>) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("kraftwerk-probe-progress".to_owned())
        .spawn(move || {
            let mut bar = super::progress::Progress::new("probe");
            let mut last: Option<(Option<usize>, ProbePhase)> = None;
            for p in rx {
                let who = p.device.map_or_else(|| "probe".to_owned(), |d| format!("device {d}"));
                if bar.is_bar() {
                    bar.update(p.fraction_done, &format!("[{who}] {}", p.message));
                } else if last != Some((p.device, p.phase)) {
                    eprintln!("[{who}] {}", p.message);
                    last = Some((p.device, p.phase));
                }
            }
            bar.finish();
        })
        .ok()
}

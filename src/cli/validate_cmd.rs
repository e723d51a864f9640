//! `kraftwerk validate BUILD`: the real machine (NVML, NVML samples under the probe's load, the
//! GEMM probe, optionally the links) against the build, or with `--from FILE` a recorded
//! session or an `nvidia-smi` dump (`-q`, `-q -x`, `topo -m`) graded the same way. `--record FILE` saves everything the grading used as a
//! recording (`*.kwrec.json`) that `--from` grades again with the same result.
//!
//! Exit 0 when every check passed (warnings allowed), 1 on any fail, 3 when nothing failed but a
//! check measured nothing (UNVERIFIED: no sample under load, no probe data), 2 when the build
//! file or recording cannot be read.

use super::check_cmd::load_build;
use super::error::{CliError, bad};
use super::{Format, print_json};
use crate::live::grading::Grade;
use crate::live::links::{self, LinksOptions, LinksReport};
use crate::live::nvml::{self, NvmlState};
use crate::live::probe::{self, ExpectedGpu, ProbeConfig, ProbeReport};
use crate::live::record::Recording;
use crate::live::sampler::{PROBE_INTERVAL, Sampler, SamplerConfig};
use crate::live::smi;
use crate::live::validate::{Observed, Validation, validate_observed};
use std::path::{Path, PathBuf};

/// Arguments of `kraftwerk validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The build file.
    pub build: PathBuf,
    /// Grade this recording (`validate --record`, `monitor --record`) or this `nvidia-smi -q`,
    /// `nvidia-smi -q -x` or `nvidia-smi topo -m` output (found from the content) instead of the
    /// live machine.
    #[arg(long, value_name = "RECORDING")]
    pub from: Option<PathBuf>,
    /// Save everything observed (GPUs, topology, NVML samples, probe and links reports) to
    /// this recording file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
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
    /// Also measure the links (P2P copies, NCCL all-reduce) when the build has two GPUs or more.
    #[arg(long)]
    pub links: bool,
    /// Use this saved links report (`kraftwerk links --format json`).
    #[arg(long)]
    pub links_report: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs `kraftwerk validate`.
pub fn run(a: &ValidateArgs) -> Result<(), CliError> {
    let (catalog, build) = load_build(&a.build)?;
    let v = if let Some(path) = &a.from {
        from_file(path, &build, &catalog).map_err(|e| bad(e).within("validate"))?
    } else {
        validate_observed(&build, &catalog, &observe_live(a, &build, &catalog)?)
    };
    let code = match v.overall {
        Grade::Fail => Err(CliError::Failed(None)),
        // Not a pass: a check that could have found a fault measured nothing.
        Grade::NotMeasured => Err(CliError::NotAPass),
        Grade::Pass | Grade::Info | Grade::Warn => Ok(()),
    };
    if a.format == Format::Json {
        print_json(&v)?;
        return code;
    }
    out!("{}", crate::live::report::validate::render(&v));
    code
}

/// Grades the file `--from` names: `nvidia-smi -q`, `-q -x` or `topo -m` output (found from
/// the content, [`smi::is_smi_output`]) or else a recording.
fn from_file(path: &Path, build: &crate::rig::Build, catalog: &crate::catalog::Catalog) -> Result<Validation, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    if smi::is_smi_output(&text) {
        return smi::validate_text(build, catalog, &name, &text).map_err(|e| e.to_string());
    }
    let rec = Recording::from_json_str(&name, &text).map_err(|e| e.to_string())?;
    let obs = Observed::from_recording(&rec, &name).map_err(|e| e.to_string())?;
    Ok(validate_observed(build, catalog, &obs))
}

/// Observes this machine: NVML, NVML samples while the probe runs, the probe, the links.
fn observe_live(
    a: &ValidateArgs,
    build: &crate::rig::Build,
    catalog: &crate::catalog::Catalog,
) -> Result<Observed, CliError> {
    let mut obs = Observed { source: "live".to_owned(), ..Observed::default() };
    obs.node = crate::live::record::MachineInfo::current().hostname;
    let state = nvml::open();
    let mut recording = None;
    let gpus = match state {
        NvmlState::Ready(g) => {
            obs.gpus = g.gpus().to_vec();
            obs.topology = Some(g.topology().clone());
            recording =
                Some(Recording::of_live("validate", format!("kraftwerk validate {}", env!("CARGO_PKG_VERSION")), &g));
            Some(g)
        }
        other => {
            let msg = other.message();
            eprintln!("kraftwerk validate: {msg}");
            obs.nvml = Some(msg);
            None
        }
    };
    let mut probe_report: Option<ProbeReport> = match &a.probe_report {
        Some(path) => Some(read_json(path).map_err(|e| bad(e).within("validate"))?),
        None => None,
    };
    if let Some(path) = &a.links_report {
        obs.links = Some(read_json::<LinksReport>(path).map_err(|e| bad(e).within("validate"))?);
    }
    // NVML samples during the whole measurement: the PCIe link and clock events under load.
    let sampler = gpus.and_then(|g| {
        let config = SamplerConfig { interval: PROBE_INTERVAL * 5, channel_capacity: 1 << 14 };
        Sampler::spawn(Box::new(g), config, None).ok()
    });
    if probe_report.is_none() && !a.no_probe && !obs.gpus.is_empty() {
        let (tx, rx) = std::sync::mpsc::sync_channel(64);
        let config =
            ProbeConfig { sustained_seconds: a.seconds.max(0.0), progress: Some(tx), ..ProbeConfig::default() };
        super::progress::cancel_on_ctrl_c(&config.cancel);
        let r = build.resolve(catalog);
        let expected = r.gpus.iter().flatten().next().map(|g| ExpectedGpu::from_catalog(g));
        eprintln!("kraftwerk: running the GEMM probe ({} s sustained)…", config.sustained_seconds);
        let printer = super::probe_cmd::progress_printer(rx);
        let report = probe::run_probe(&config, expected.as_ref());
        drop(config);
        if let Some(h) = printer {
            let _ = h.join();
        }
        probe_report = Some(report);
    }
    if a.links && obs.links.is_none() && build.gpus.len() >= 2 && !obs.gpus.is_empty() {
        eprintln!("kraftwerk: measuring the links…");
        let expected = links::checks::expectations_from_build(build, catalog);
        obs.links = Some(links::run_links(&LinksOptions::default(), Some(expected), Some(catalog)));
    }
    if let Some(s) = sampler {
        obs.snapshots = s.stop();
    }
    if let (Some(path), Some(p)) = (&a.save_probe, &probe_report) {
        let saved = serde_json::to_vec_pretty(p)
            .map_err(|e| e.to_string())
            .and_then(|bytes| crate::live::record::write_atomic(path, &bytes).map_err(|e| e.to_string()));
        if let Err(e) = saved {
            eprintln!("kraftwerk: cannot save the probe report to {}: {e}", path.display());
        }
    }
    obs.probe = probe_report;
    if a.no_probe && obs.probe.is_none() {
        obs.probe_skipped = Some("--no-probe".to_owned());
    }
    if let Some(path) = &a.record {
        let mut rec = recording.unwrap_or_else(|| {
            Recording::new(
                "validate",
                "kraftwerk validate",
                nvml::SystemInfo::default(),
                Vec::new(),
                crate::live::topology::Topology::default(),
            )
        });
        rec.snapshots.clone_from(&obs.snapshots);
        rec.interval_ms = Some(u64::try_from((PROBE_INTERVAL * 5).as_millis()).unwrap_or(u64::MAX));
        let saved = obs.store_in(&mut rec).and_then(|()| rec.save(path));
        match saved {
            Ok(()) => eprintln!("kraftwerk: recorded to {}", path.display()),
            Err(e) => eprintln!("kraftwerk: cannot record to {}: {e}", path.display()),
        }
    }
    Ok(obs)
}

//! State of the Live tab, apart from drawing: where the readings come from (live NVML through
//! the sampler thread, or a recording), the history, and the background jobs (probe, links).
//!
//! Long work runs on named threads (`kraftwerk-probe`, `kraftwerk-links`) that report over
//! bounded channels and ask for a repaint; every job can be cancelled (an `AtomicBool` the
//! library polls) and is cancelled and joined when dropped. The UI only reads this state and
//! calls its methods; nothing here blocks a frame.

pub use super::job::Job;
use super::job::Polled;
use eframe::egui;
use kraftwerk_catalog::Catalog;
use kraftwerk_core::rig::Build;
use kraftwerk_live::links::{self, LinksOptions, LinksReport, nccl_env};
use kraftwerk_live::nvml::{self, GpuStatic, NvmlState, SystemInfo};
use kraftwerk_live::probe::{self, ExpectedGpu, Precision, ProbeConfig, ProbeProgress, ProbeReport};
use kraftwerk_live::record::Recording;
use kraftwerk_live::sampler::{self, History, RepaintFn, Sampler, SamplerConfig};
use kraftwerk_live::topology::Topology;
use kraftwerk_live::validate::{self, Validation};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The bundled demo recording (two H200 SXM, 30 s, a bf16 GEMM load in the middle), shown when
/// this machine has no NVIDIA driver.
pub const DEMO_RECORDING: &str = include_str!("../../../assets/demo-h200-2gpu.kwrec.json");
/// File name the demo recording is labelled with.
pub const DEMO_RECORDING_NAME: &str = "demo-h200-2gpu.kwrec.json";
/// The bundled links report of the same two-H200 machine.
pub const DEMO_LINKS: &str = include_str!("../../../assets/demo-links-2xh200.json");
/// File name the demo links report is labelled with.
pub const DEMO_LINKS_NAME: &str = "demo-links-2xh200.json";
/// Name of the probe thread.
pub const PROBE_THREAD: &str = "kraftwerk-probe";
/// Name of the links thread.
pub const LINKS_THREAD: &str = "kraftwerk-links";

/// A recording shown instead of this machine.
#[derive(Debug, Clone)]
pub struct RecordingSource {
    /// File name it came from.
    pub file: String,
    /// The recording.
    pub recording: Box<Recording>,
}

/// Probe settings chosen in the tab.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSettings {
    /// Sustained load, seconds (0 = none).
    pub seconds: u32,
    /// Precisions to run, in [`Precision::ALL`] order.
    pub precisions: BTreeMap<Precision, bool>,
}

impl Default for ProbeSettings {
    fn default() -> Self {
        ProbeSettings { seconds: 10, precisions: Precision::ALL.iter().map(|&p| (p, true)).collect() }
    }
}

impl ProbeSettings {
    /// The precisions switched on.
    pub fn chosen(&self) -> Vec<Precision> {
        self.precisions.iter().filter(|&(_, &on)| on).map(|(&p, _)| p).collect()
    }
}

/// Where a links report came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinksOrigin {
    /// Measured on this machine just now.
    Measured,
    /// Opened from a file (name).
    File(String),
}

/// Everything the Live tab shows and runs.
#[derive(Default)]
pub struct LiveView {
    started: bool,
    /// NVML's answer in words (`no NVIDIA driver found (…)`, `2 NVIDIA GPU(s)`).
    pub nvml_message: String,
    /// Stable code of NVML's state (`ready`, `no_driver`, …).
    pub nvml_code: &'static str,
    /// Live GPUs' system facts (driver, CUDA), when NVML works.
    pub system: Option<SystemInfo>,
    live_gpus: Vec<GpuStatic>,
    live_topology: Topology,
    /// A recording shown instead of this machine (no driver, or opened by the user).
    pub recording: Option<RecordingSource>,
    /// Recent samples of the GPUs shown.
    pub history: History,
    sampler: Option<Sampler>,
    /// Whether the sampler reads live GPUs (not a recording being replayed).
    sampler_live: bool,
    /// Probe settings.
    pub probe_settings: ProbeSettings,
    /// The running probe.
    pub probe: Option<Job<ProbeReport, ProbeProgress>>,
    /// Latest progress per device (`None` = whole run).
    pub probe_progress: BTreeMap<Option<usize>, ProbeProgress>,
    /// The last probe report.
    pub probe_report: Option<ProbeReport>,
    /// The last validation against the open build.
    pub validation: Option<Validation>,
    /// The running links measurement.
    pub links: Option<Job<LinksReport, String>>,
    /// Last progress line of the links job.
    pub links_progress: Option<String>,
    /// The last links report and where it came from.
    pub links_report: Option<(LinksReport, LinksOrigin)>,
    /// Problems to show (bad file, thread could not start), newest last.
    pub errors: Vec<String>,
    /// Whether native file dialogs may be shown (false in tests).
    pub native: bool,
}

impl std::fmt::Debug for LiveView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveView")
            .field("nvml", &self.nvml_code)
            .field("gpus", &self.gpus().len())
            .field("recording", &self.recording.as_ref().map(|r| &r.file))
            .finish_non_exhaustive()
    }
}

fn repaint_fn(ctx: Option<&egui::Context>) -> Option<RepaintFn> {
    ctx.cloned().map(|c| Box::new(move || c.request_repaint()) as RepaintFn)
}

impl LiveView {
    /// A Live tab that will open NVML the first time it is drawn; `native` allows file dialogs.
    pub fn new(native: bool) -> Self {
        LiveView { native, ..LiveView::default() }
    }

    /// Whether [`Self::start`] ran.
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Opens NVML (once) and starts sampling, or shows the demo recording without a driver.
    pub fn ensure_started(&mut self, ctx: &egui::Context) {
        if !self.started {
            self.start(nvml::open(), Some(ctx));
        }
    }

    /// Starts from a given NVML state (tests pass `NvmlState::NoDriver`).
    pub fn start(&mut self, state: NvmlState, ctx: Option<&egui::Context>) {
        self.started = true;
        self.nvml_message = state.message();
        self.nvml_code = state.code();
        match state {
            NvmlState::Ready(gpus) => {
                self.system = Some(gpus.system().clone());
                self.live_gpus = gpus.gpus().to_vec();
                self.live_topology = gpus.topology().clone();
                match Sampler::spawn(Box::new(gpus), SamplerConfig::default(), repaint_fn(ctx)) {
                    Ok(s) => {
                        self.sampler = Some(s);
                        self.sampler_live = true;
                    }
                    Err(e) => self.errors.push(format!("cannot start the sampler thread: {e}")),
                }
            }
            NvmlState::NoDriver(_) | NvmlState::NoGpu(_) | NvmlState::Failed(_) => {
                match Recording::from_json_str(DEMO_RECORDING_NAME, DEMO_RECORDING) {
                    Ok(r) => self.show_recording(DEMO_RECORDING_NAME.to_owned(), r),
                    Err(e) => self.errors.push(format!("demo recording: {e}")),
                }
            }
        }
    }

    /// Whether NVML sees GPUs on this machine.
    pub fn has_live_gpus(&self) -> bool {
        !self.live_gpus.is_empty()
    }

    /// Static facts of the GPUs shown (the recording's when one is shown).
    pub fn gpus(&self) -> &[GpuStatic] {
        match &self.recording {
            Some(r) => &r.recording.gpus,
            None => &self.live_gpus,
        }
    }

    /// Topology of the GPUs shown.
    pub fn topology(&self) -> &Topology {
        match &self.recording {
            Some(r) => &r.recording.topology,
            None => &self.live_topology,
        }
    }

    /// The sampler's interval, when it runs.
    pub fn sampling_interval(&self) -> Option<Duration> {
        self.sampler.as_ref().filter(|s| !s.is_finished()).map(Sampler::interval)
    }

    /// Shows a recording (stops live sampling; [`Self::back_to_live`] resumes it).
    pub fn show_recording(&mut self, file: String, recording: Recording) {
        self.sampler = None;
        self.sampler_live = false;
        self.history = recording.history();
        self.recording = Some(RecordingSource { file, recording: Box::new(recording) });
        // A validation of what was shown before is not one of this recording.
        self.validation = None;
    }

    /// Loads a recording file and shows it.
    pub fn open_recording(&mut self, path: &Path) {
        match Recording::load(path) {
            Ok(r) => {
                let name =
                    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
                self.show_recording(name, r);
            }
            Err(e) => self.errors.push(format!("Could not open recording {e}")),
        }
    }

    /// Plays the shown recording again through a sampler thread at its recorded pace.
    pub fn replay(&mut self, ctx: Option<&egui::Context>) {
        let Some(src) = &self.recording else { return };
        let interval = Duration::from_millis(src.recording.interval_ms.unwrap_or(500).max(10));
        let source = Box::new(src.recording.replay(false));
        self.sampler = None;
        self.history.clear();
        match Sampler::spawn(source, SamplerConfig { interval, ..SamplerConfig::default() }, repaint_fn(ctx)) {
            Ok(s) => {
                self.sampler = Some(s);
                self.sampler_live = false;
            }
            Err(e) => self.errors.push(format!("cannot start the replay thread: {e}")),
        }
    }

    /// Leaves the recording and samples the live GPUs again.
    pub fn back_to_live(&mut self, ctx: &egui::Context) {
        self.recording = None;
        self.validation = None;
        self.sampler = None;
        self.history = History::default();
        self.started = false;
        self.ensure_started(ctx);
    }

    /// Drains the sampler and finished jobs; call once a frame.
    pub fn poll(&mut self, ctx: &egui::Context) {
        if let Some(s) = &self.sampler {
            for snap in s.drain() {
                self.history.push(&snap);
            }
        }
        if let Some(job) = &mut self.probe {
            for p in job.drain_progress() {
                self.probe_progress.insert(p.device, p);
            }
            match job.poll() {
                Polled::Running => ctx.request_repaint_after(Duration::from_millis(200)),
                Polled::Done(report) => {
                    self.probe_report = Some(report);
                    self.probe = None;
                    self.validation = None;
                    self.set_probe_interval(false);
                }
                Polled::Lost => {
                    self.errors.push("the probe thread ended without a report".to_owned());
                    self.probe = None;
                    self.set_probe_interval(false);
                }
            }
        }
        if let Some(job) = &mut self.links {
            if let Some(line) = job.drain_progress().pop() {
                self.links_progress = Some(line);
            }
            match job.poll() {
                Polled::Running => ctx.request_repaint_after(Duration::from_millis(200)),
                Polled::Done(report) => {
                    self.links_report = Some((report, LinksOrigin::Measured));
                    self.links = None;
                }
                Polled::Lost => {
                    self.errors.push("the links thread ended without a report".to_owned());
                    self.links = None;
                }
            }
        }
    }

    fn set_probe_interval(&self, probing: bool) {
        if let (Some(s), true) = (&self.sampler, self.sampler_live) {
            s.set_interval(if probing { sampler::PROBE_INTERVAL } else { sampler::DEFAULT_INTERVAL });
        }
    }

    /// The catalog GPU the probe grades against: the live GPU's model, else (live GPUs of a
    /// model the catalog lacks) the build's first GPU; none without live GPUs (the CPU backend
    /// is not graded against a GPU's peak).
    pub fn expected_gpu(&self, build: &Build, catalog: &Catalog) -> Option<ExpectedGpu> {
        let first = self.live_gpus.first()?;
        let live = first
            .name
            .as_deref()
            .and_then(|name| probe::match_catalog_gpu(catalog, name, first.power_limit_max_w).ok().flatten());
        let planned = || {
            let id = &build.gpus.first()?.gpu;
            build.parts.gpus.iter().chain(&catalog.gpus).find(|g| &g.id == id)
        };
        live.or_else(planned).map(ExpectedGpu::from_catalog)
    }

    /// Starts the probe with the chosen settings (the sampler reads every 100 ms meanwhile).
    pub fn start_probe(&mut self, ctx: Option<&egui::Context>, expected: Option<ExpectedGpu>) {
        if self.probe.is_some() {
            return;
        }
        let precisions = self.probe_settings.chosen();
        let seconds = f64::from(self.probe_settings.seconds);
        let work = move |cancel: Arc<AtomicBool>, progress| {
            let config = ProbeConfig {
                precisions,
                sustained_seconds: seconds,
                cancel,
                progress: Some(progress),
                ..ProbeConfig::default()
            };
            probe::run_probe(&config, expected.as_ref())
        };
        match Job::spawn(PROBE_THREAD, ctx.cloned(), work) {
            Ok(job) => {
                self.probe = Some(job);
                self.probe_progress.clear();
                self.set_probe_interval(true);
            }
            Err(e) => self.errors.push(format!("cannot start the probe thread: {e}")),
        }
    }

    /// Fraction of the probe done (mean over devices), 0 to 1.
    pub fn probe_fraction(&self) -> f32 {
        let devices: Vec<f64> =
            self.probe_progress.iter().filter(|(d, _)| d.is_some()).map(|(_, p)| p.fraction_done).collect();
        let f = if devices.is_empty() {
            self.probe_progress.values().map(|p| p.fraction_done).fold(0.0, f64::max)
        } else {
            devices.iter().sum::<f64>() / devices.len() as f64
        };
        f.clamp(0.0, 1.0) as f32
    }

    /// Validates against the build: a shown recording with everything it holds (GPUs,
    /// topology, NVML samples under load and idle, its probe and links sections, through
    /// [`validate::Observed::from_recording`], as `kraftwerk validate BUILD --from FILE` does),
    /// else the live GPUs and the last probe. A recording whose sections do not parse leaves no
    /// validation and says why in [`Self::errors`].
    pub fn validate(&mut self, build: &Build, catalog: &Catalog) {
        if let Some(src) = &self.recording {
            match validate::Observed::from_recording(&src.recording, &src.file) {
                Ok(obs) => self.validation = Some(validate::validate_observed(build, catalog, &obs)),
                Err(e) => {
                    self.validation = None;
                    self.errors.push(format!("Could not validate the recording: {e}"));
                }
            }
            return;
        }
        self.validation = Some(validate::validate(build, catalog, self.gpus(), self.probe_report.as_ref()));
    }

    /// Why NCCL will not run from the GUI, when it will not (`NCCL_NVLS_ENABLE` is not `0`).
    pub fn nccl_blocked() -> Option<String> {
        nccl_env::nvls_disabled().err()
    }

    /// Measures P2P (and the all-reduce when NCCL may run), graded against the build when it
    /// has two or more GPUs, else against the live GPUs.
    pub fn start_links(&mut self, ctx: Option<&egui::Context>, build: &Build, catalog: &Catalog) {
        if self.links.is_some() {
            return;
        }
        let expected = (build.gpus.len() >= 2).then(|| links::grade::expectations_from_build(build, catalog));
        let catalog = catalog.clone();
        let all_reduce = LiveView::nccl_blocked().is_none();
        let work = move |cancel: Arc<AtomicBool>, progress| {
            let opts = LinksOptions { all_reduce, cancel, progress: Some(progress), ..LinksOptions::default() };
            links::run_links(&opts, expected, Some(&catalog))
        };
        match Job::spawn(LINKS_THREAD, ctx.cloned(), work) {
            Ok(job) => {
                self.links = Some(job);
                self.links_progress = None;
            }
            Err(e) => self.errors.push(format!("cannot start the links thread: {e}")),
        }
    }

    /// Parses a links report (JSON as `kraftwerk links --format json` writes it) and shows it.
    pub fn open_links_text(&mut self, name: &str, text: &str) {
        match serde_json::from_str::<LinksReport>(text) {
            Ok(r) => self.links_report = Some((r, LinksOrigin::File(name.to_owned()))),
            Err(e) => self.errors.push(format!("{name}:{}:{}: not a links report: {e}", e.line(), e.column())),
        }
    }

    /// Loads a links report file.
    pub fn open_links_file(&mut self, path: &Path) {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        match std::fs::read_to_string(path) {
            Ok(text) => self.open_links_text(&name, &text),
            Err(e) => self.errors.push(format!("{}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_assets_parse() {
        let mut v = LiveView::new(false);
        v.start(NvmlState::NoDriver("test".into()), None);
        assert_eq!(v.gpus().len(), 2);
        assert!(v.history.len(0) > 10);
        v.open_links_text(DEMO_LINKS_NAME, DEMO_LINKS);
        assert!(v.links_report.is_some(), "{:?}", v.errors);
    }
}

//! Running the probe: one named thread per device, all at once; host copies one device at a
//! time; GEMMs per precision with their checks; the sustained load started together behind a
//! gate; NVML sampled on its own thread; GPU↔GPU copies afterwards.

#![allow(
    clippy::wildcard_imports,
    reason = "the probe module's run, split out of it: it uses most of the module's items"
)]

use super::*;

/// Runs the probe on every GPU through CUDA when it is present (or as `config.backend` says),
/// else on the CPU, and grades it against `expected` when given.
pub fn run_probe(config: &ProbeConfig, expected: Option<&ExpectedGpu>) -> ProbeReport {
    let started = Instant::now();
    let cuda = cuda_factories(config);
    let mut report = match (config.backend, cuda) {
        (BackendChoice::Cpu, _) => {
            let mut r = run_devices(vec![cpu::factory()], config, expected, Backend::Cpu, false);
            r.backend_note = Some("CPU backend requested".to_owned());
            r
        }
        (BackendChoice::Auto | BackendChoice::Cuda, Ok((factories, peer))) => {
            let mut r = run_devices(factories, config, expected, Backend::Cuda, true);
            if !r.cancelled && r.devices.len() > 1 && config.peer_bandwidth_bytes > 0 {
                config.send(None, ProbePhase::PeerBandwidth, 0.0, "GPU to GPU copies".to_owned());
                r.peer_bandwidth = peer(config);
            }
            r
        }
        (BackendChoice::Auto, Err(e)) => match nvidia_gpus_seen() {
            // NVML sees NVIDIA GPUs that CUDA cannot use: a CPU run would measure nothing the
            // user asked about and pass, so the probe fails and says why.
            Some(names) if !names.is_empty() => {
                let mut r = ProbeReport::new(config, Backend::Cuda, expected);
                r.errors.push(cuda_unusable_message(&names, &e.to_string()));
                r
            }
            _ => {
                let mut r = run_devices(vec![cpu::factory()], config, expected, Backend::Cpu, false);
                r.backend_note = Some(format!("CPU backend: no NVIDIA GPU (CUDA: {e})"));
                r
            }
        },
        (BackendChoice::Cuda, Err(e)) => {
            let mut r = ProbeReport::new(config, Backend::Cuda, expected);
            r.errors.push(e.to_string());
            r
        }
    };
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.regrade();
    config.send(None, ProbePhase::Finished, 1.0, "probe finished".to_owned());
    report
}

/// The names of the NVIDIA GPUs NVML sees; `None` without a driver.
fn nvidia_gpus_seen() -> Option<Vec<String>> {
    match crate::nvml::open() {
        crate::nvml::NvmlState::Ready(g) => {
            Some(g.gpus().iter().map(|x| x.name.clone().unwrap_or_else(|| "NVIDIA GPU".to_owned())).collect())
        }
        _ => None,
    }
}

/// Why the GPUs NVML sees cannot be probed, with the CUDA error and the fix.
pub fn cuda_unusable_message(gpus: &[String], cuda_error: &str) -> String {
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let fix = if let Some(v) = visible.as_deref().filter(|v| v.trim().is_empty() || v.trim() == "-1") {
        format!(
            "CUDA_VISIBLE_DEVICES is set to \"{v}\", which hides every GPU from CUDA: unset it or list the GPUs (CUDA_VISIBLE_DEVICES=0,1)"
        )
    } else if cuda_error.contains("libcublas") {
        "install the CUDA 13 runtime libraries cuBLAS and cuBLASLt (libcublas.so.13, libcublasLt.so.13) and make them findable (ldconfig or LD_LIBRARY_PATH)".to_owned()
    } else if cuda_error.contains("libcuda") {
        "load the NVIDIA driver's CUDA library (libcuda.so.1; the driver package's CUDA part)".to_owned()
    } else if cuda_error.contains("INSUFFICIENT_DRIVER") || cuda_error.contains("COMPAT") {
        "the driver is older than the CUDA version Kraftwerk needs (13.0): update the NVIDIA driver".to_owned()
    } else if cuda_error.contains("NO_DEVICE") || cuda_error.contains("no CUDA device") {
        "CUDA sees no device although NVML does: check CUDA_VISIBLE_DEVICES, the container's GPU access (--gpus) and /dev/nvidia* permissions".to_owned()
    } else {
        "check the driver installation (nvidia-smi) and the CUDA runtime libraries".to_owned()
    };
    format!(
        "NVML sees {} NVIDIA GPU(s) ({}) but CUDA cannot use them: {cuda_error}. Fix: {fix}. (`--backend cpu` tests the CPU instead.)",
        gpus.len(),
        gpus.join(", ")
    )
}

/// GPU↔GPU bandwidth measurement, run after the per-device probes.
type PeerProbe = Box<dyn FnOnce(&ProbeConfig) -> Vec<PeerBandwidth>>;

#[cfg(feature = "cuda")]
fn cuda_factories(config: &ProbeConfig) -> Result<(Vec<DeviceFactory>, PeerProbe), ProbeError> {
    if config.backend == BackendChoice::Cpu {
        return Err(ProbeError::Unavailable("not requested".to_owned()));
    }
    let count = cuda::device_count()?;
    let factories = (0..count).map(|i| Box::new(move || cuda::open(i)) as DeviceFactory).collect();
    Ok((factories, Box::new(move |cfg: &ProbeConfig| cuda::peer_bandwidth(count, cfg))))
}

#[cfg(not(feature = "cuda"))]
fn cuda_factories(_config: &ProbeConfig) -> Result<(Vec<DeviceFactory>, PeerProbe), ProbeError> {
    Err(ProbeError::Unavailable("built without the `cuda` feature".to_owned()))
}

/// Runs one thread per device factory, all at once, and returns the graded report.
///
/// `nvml`: sample NVML during the run (for real GPUs; matched by UUID).
pub fn run_devices(
    factories: Vec<DeviceFactory>,
    config: &ProbeConfig,
    expected: Option<&ExpectedGpu>,
    backend: Backend,
    nvml: bool,
) -> ProbeReport {
    let started = Instant::now();
    let mut report = ProbeReport::new(config, backend, expected);
    let count = factories.len();
    let gate = Arc::new(Gate::new(count));
    // Host↔device copies run one device at a time: run together they share the host's memory
    // and root complex (two H200s copying at once measured 48 instead of 55 GB/s each).
    let copy_lock = Arc::new(Mutex::new(()));
    let uuids: Arc<Mutex<Vec<Option<String>>>> = Arc::new(Mutex::new(vec![None; count]));
    let stop_sampler = Arc::new(AtomicBool::new(false));
    let sampler_thread = nvml.then(|| {
        load_sampler::spawn(
            Arc::clone(&uuids),
            Arc::clone(&stop_sampler),
            started,
            Duration::from_millis(config.sample_interval_ms.max(10)),
        )
    });

    let mut handles = Vec::with_capacity(count);
    for (index, factory) in factories.into_iter().enumerate() {
        let cfg = config.clone();
        let gate = Arc::clone(&gate);
        let copy_lock = Arc::clone(&copy_lock);
        let uuids = Arc::clone(&uuids);
        let spawned = std::thread::Builder::new().name(format!("kraftwerk-probe-{index}")).spawn(move || {
            let arrival = gate.arrival();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let mut dev = factory()?;
                if let Some(u) = dev.info().uuid {
                    let mut guard = uuids.lock().unwrap_or_else(PoisonError::into_inner);
                    guard[index] = Some(u);
                }
                let out = probe_device(dev.as_mut(), &cfg, index, started, &arrival, &copy_lock);
                Ok::<_, ProbeError>(out)
            }));
            drop(arrival);
            match outcome {
                Ok(Ok(out)) => out,
                Ok(Err(e)) => DeviceOutcome::failed(index, &e.to_string()),
                Err(panic) => {
                    DeviceOutcome::failed(index, &ProbeError::Panic(crate::panics::panic_text(&*panic)).to_string())
                }
            }
        });
        handles.push((index, spawned));
    }
    let mut outcomes = Vec::with_capacity(count);
    for (index, h) in handles {
        let out = match h {
            Ok(h) => h.join().unwrap_or_else(|p| DeviceOutcome::failed(index, &crate::panics::panic_text(&*p))),
            Err(e) => DeviceOutcome::failed(index, &format!("cannot start thread: {e}")),
        };
        outcomes.push(out);
    }
    stop_sampler.store(true, Ordering::Relaxed);
    let samples = sampler_thread.and_then(|h| h.join().ok()).unwrap_or_default();

    for mut out in outcomes {
        let all = samples.get(out.report.index).map_or(&[][..], Vec::as_slice);
        out.report.power_limit_w = all.iter().rev().find_map(|x| x.power_limit_w);
        out.report.power_limit_max_w = all.iter().rev().find_map(|x| x.power_limit_max_w);
        if let (Some(s), Some((t0, t1))) = (out.report.sustained.as_mut(), out.sustained_window) {
            let window: Vec<LoadSample> =
                all.iter().filter(|x| x.t_seconds >= t0 && x.t_seconds <= t1).cloned().collect();
            load_sampler::summarize(s, window);
        }
        report.cancelled |= out.cancelled;
        report.devices.push(out.report);
    }
    report.cancelled |= config.cancelled();
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.regrade();
    report
}

/// What one device thread hands back.
struct DeviceOutcome {
    report: DeviceReport,
    /// Start and end of the sustained load, seconds since the probe started.
    sustained_window: Option<(f64, f64)>,
    cancelled: bool,
}

impl DeviceOutcome {
    fn failed(index: usize, error: &str) -> Self {
        Self {
            report: DeviceReport {
                index,
                name: format!("device {index}"),
                uuid: None,
                compute_capability: None,
                memory_total_gib: None,
                memory_free_before_gib: None,
                memory_free_after_gib: None,
                power_limit_w: None,
                power_limit_max_w: None,
                matrix_size: 0,
                bandwidth: None,
                gemm: Vec::new(),
                skipped: Vec::new(),
                sustained: None,
                faulty: false,
                errors: vec![error.to_owned()],
            },
            sustained_window: None,
            cancelled: false,
        }
    }
}

/// Makes the devices start their sustained load together, so the machine sees the full load.
/// A device that will not take part (done, failed, panicked) counts as arrived when its
/// [`Arrival`] drops; nobody waits longer than [`Gate::TIMEOUT`].
struct Gate {
    arrived: Mutex<usize>,
    all: Condvar,
    total: usize,
}

impl Gate {
    const TIMEOUT: Duration = Duration::from_mins(5);

    fn new(total: usize) -> Self {
        Self { arrived: Mutex::new(0), all: Condvar::new(), total }
    }

    fn arrival(self: &Arc<Self>) -> Arrival {
        Arrival { gate: Arc::clone(self), done: AtomicBool::new(false) }
    }
}

/// One device's place at the [`Gate`].
struct Arrival {
    gate: Arc<Gate>,
    done: AtomicBool,
}

impl Arrival {
    fn arrive(&self) {
        if !self.done.swap(true, Ordering::AcqRel) {
            let mut n = self.gate.arrived.lock().unwrap_or_else(PoisonError::into_inner);
            *n += 1;
            self.gate.all.notify_all();
        }
    }

    /// Arrives and waits for the others (or cancel, or the timeout).
    fn wait(&self, cancel: &AtomicBool) {
        self.arrive();
        let deadline = Instant::now() + Gate::TIMEOUT;
        let mut n = self.gate.arrived.lock().unwrap_or_else(PoisonError::into_inner);
        while *n < self.gate.total && !cancel.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            n = self
                .gate
                .all
                .wait_timeout(n, left.min(Duration::from_millis(100)))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Arrival {
    fn drop(&mut self) {
        self.arrive();
    }
}

/// Whether a tolerance ratio fails (above 1, or NaN).
fn exceeds(ratio: f64) -> bool {
    ratio.is_nan() || ratio > 1.0
}

/// GEMM flops of one `n`×`n`×`n` product.
fn gemm_flops(n: usize) -> f64 {
    2.0 * (n as f64).powi(3)
}

fn tflops_of(n: usize, seconds: &[f64]) -> Vec<f64> {
    let flops = gemm_flops(n);
    seconds.iter().map(|s| flops / s / 1e12).collect()
}

/// Seed of the inputs of one device and precision.
fn input_seed(config: &ProbeConfig, index: usize, precision: GemmPrecision) -> u64 {
    config.seed ^ ((index as u64) << 40) ^ ((precision as u64 + 1) << 32)
}

/// The whole run on one device.
fn probe_device(
    dev: &mut dyn GemmDevice,
    cfg: &ProbeConfig,
    index: usize,
    clock: Instant,
    arrival: &Arrival,
    copy_lock: &Mutex<()>,
) -> DeviceOutcome {
    let info = dev.info();
    let mut out = DeviceOutcome::failed(index, "");
    out.report.errors.clear();
    out.report.name.clone_from(&info.name);
    out.report.uuid.clone_from(&info.uuid);
    out.report.compute_capability.clone_from(&info.compute_capability);
    out.report.memory_total_gib = info.memory_total_bytes.map(|b| b as f64 / GIB);
    out.report.memory_free_before_gib = dev.memory_free_bytes().map(|b| b as f64 / GIB);
    let n = dev.fit_size(cfg.size);
    out.report.matrix_size = n;
    cfg.send(Some(index), ProbePhase::Starting, 0.0, format!("{}: n = {n}", info.name));

    let sustained = cfg.sustained().filter(|_| cfg.sustained_seconds > 0.0);
    let mut order: Vec<GemmPrecision> = cfg.precisions.iter().copied().filter(|p| Some(*p) != sustained).collect();
    order.extend(sustained.filter(|p| cfg.precisions.contains(p)));
    order.dedup();
    let steps =
        order.len() as f64 + f64::from(u8::from(sustained.is_some())) + f64::from(u8::from(cfg.bandwidth_bytes > 0));
    let mut done = 0.0;

    if cfg.bandwidth_bytes > 0 && !cfg.cancelled() {
        cfg.send(Some(index), ProbePhase::Bandwidth, 0.0, "host to device copies".to_owned());
        let copies = {
            let _one_at_a_time = copy_lock.lock().unwrap_or_else(PoisonError::into_inner);
            dev.host_bandwidth(cfg.bandwidth_bytes, &cfg.cancel)
        };
        match copies {
            Some(Ok(bw)) => out.report.bandwidth = Some(bw),
            Some(Err(ProbeError::Cancelled)) | None => {}
            Some(Err(e)) => out.report.errors.push(format!("bandwidth: {e}")),
        }
        done += 1.0;
    }

    // The sustained precision runs last and stays loaded for the sustained load.
    let mut sustained_state: Option<(usize, Vec<f32>, f64)> = None;
    for &p in &order {
        if cfg.cancelled() {
            break;
        }
        cfg.send(Some(index), ProbePhase::Gemm(p), done / steps, format!("{p} GEMMs, n = {n}"));
        if let Err(reason) = dev.support(p) {
            out.report.skipped.push(Skipped { precision: p, reason });
            done += 1.0;
            continue;
        }
        let keep = Some(p) == sustained;
        match gemm_precision(dev, cfg, index, p, n, keep) {
            Ok(Some((result, state))) => {
                out.report.faulty |= !result.all_passed();
                out.report.gemm.push(result);
                if keep {
                    sustained_state = state;
                } else {
                    dev.unload();
                }
            }
            Ok(None) => dev.unload(),
            Err(ProbeError::Cancelled) => {
                dev.unload();
                break;
            }
            Err(e) => {
                out.report.errors.push(format!("{p}: {e}"));
                dev.unload();
            }
        }
        done += 1.0;
    }

    if let (Some(p), Some((kernel, first, typical)), false) = (sustained, sustained_state, cfg.cancelled()) {
        cfg.send(Some(index), ProbePhase::Waiting, done / steps, "waiting for the other devices".to_owned());
        arrival.wait(&cfg.cancel);
        let t0 = clock.elapsed().as_secs_f64();
        match sustain(dev, cfg, index, p, n, kernel, &first, typical, (done, steps)) {
            Ok(s) => {
                out.report.faulty |= s.post_load_mismatches > 0 || s.post_load_nonfinite > 0;
                out.report.sustained = Some(s);
                out.sustained_window = Some((t0, clock.elapsed().as_secs_f64()));
            }
            Err(ProbeError::Cancelled) => {}
            Err(e) => out.report.errors.push(format!("sustained {p}: {e}")),
        }
    }
    arrival.arrive();
    dev.unload();
    dev.release();
    out.report.memory_free_after_gib = dev.memory_free_bytes().map(|b| b as f64 / GIB);
    out.cancelled = cfg.cancelled();
    cfg.send(Some(index), ProbePhase::Finished, 1.0, "done".to_owned());
    out
}

/// What the sustained load needs from the GEMM phase: best kernel, its first output, and the
/// typical `Σ|a·b|`.
type SustainState = (usize, Vec<f32>, f64);

/// Loads, checks and times every kernel of one precision.
#[allow(clippy::many_single_char_names, reason = "GEMM operands a, b, n and precision p")]
fn gemm_precision(
    dev: &mut dyn GemmDevice,
    cfg: &ProbeConfig,
    index: usize,
    p: GemmPrecision,
    n: usize,
    keep_first: bool,
) -> Result<Option<(GemmResult, Option<SustainState>)>, ProbeError> {
    if n == 0 {
        return Ok(None);
    }
    let seed = input_seed(cfg, index, p);
    let a = numeric::random_matrix(n, seed, p.input_format());
    let check_cancel = || {
        if cfg.cancelled() { Err(ProbeError::Cancelled) } else { Ok(()) }
    };
    check_cancel()?;
    let b = numeric::random_matrix(n, seed ^ 0x5555_5555, p.input_format());
    check_cancel()?;
    let typical = n as f64 * numeric::mean_abs(&a) * numeric::mean_abs(&b);
    dev.load(p, n, &a, &b)?;
    // Asked after loading: a backend may drop a variant it could not plan for these inputs.
    let kernels = dev.kernels(p);
    if kernels.is_empty() {
        return Ok(None);
    }
    let mut timings: Vec<(KernelTiming, Option<Vec<f32>>)> = Vec::with_capacity(kernels.len());
    for (k, name) in kernels.iter().enumerate() {
        check_cancel()?;
        dev.run(k, 1)?;
        let first = dev.output()?;
        let mut check = CheckResult::default();
        let ka = numeric::known_answer(p, n, &a, &b, &first, cfg.check_samples, seed ^ 0x1234);
        check.samples = ka.samples;
        check.max_err_over_sum_abs = ka.max_err_over_sum_abs;
        check.max_tolerance_ratio = ka.max_tolerance_ratio;
        check.nonfinite_outputs = numeric::count_nonfinite(&first);
        if check.nonfinite_outputs > 0 {
            check.faults.push(format!("{} non-finite outputs (NaN/Inf)", check.nonfinite_outputs));
        }
        if exceeds(ka.max_tolerance_ratio) {
            let (i, j, got, want) = ka.worst.unwrap_or((0, 0, f32::NAN, f64::NAN));
            check.faults.push(format!(
                "known answer: C[{i}][{j}] = {got} but the f64 reference is {want:.6} ({:.1}x the tolerance)",
                ka.max_tolerance_ratio
            ));
        }
        check_cancel()?;
        check.freivalds_ratio = numeric::freivalds(p, n, &a, &b, &first, seed ^ 0x4321);
        if exceeds(check.freivalds_ratio) {
            check.faults.push(format!("whole-matrix (Freivalds) check: {:.1}x the bound", check.freivalds_ratio));
        }
        check_cancel()?;
        if cfg.warmup_iterations > 0 {
            dev.run(k, cfg.warmup_iterations)?;
        }
        check_cancel()?;
        let seconds = dev.run(k, cfg.timed_iterations.max(1))?;
        let second = dev.output()?;
        let r2r = numeric::run_to_run(p, &first, &second, typical);
        check.run_to_run_compared = r2r.compared;
        check.run_to_run_bitwise_differing = r2r.bitwise_differing;
        check.run_to_run_mismatches = r2r.mismatches;
        if r2r.mismatches > 0 {
            check
                .faults
                .push(format!("run to run: {} of {} outputs changed beyond tolerance", r2r.mismatches, r2r.compared));
        }
        let tflops = Summary::of(&tflops_of(n, &seconds))
            .ok_or_else(|| ProbeError::device(format!("{p} {name}"), "no valid timing"))?;
        timings.push((KernelTiming { library: (*name).to_owned(), tflops, check }, keep_first.then_some(first)));
    }
    let best = timings
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.0.tflops.median.total_cmp(&y.1.0.tflops.median))
        .map_or(0, |(i, _)| i);
    let (best_timing, first) = timings.swap_remove(best);
    let mut alternatives: Vec<KernelTiming> = timings.into_iter().map(|t| t.0).collect();
    alternatives.sort_by(|x, y| x.library.cmp(&y.library));
    let kernel_index = kernels.iter().position(|k| *k == best_timing.library).unwrap_or(0);
    let seconds_per_gemm = gemm_flops(n) / (best_timing.tflops.median * 1e12);
    let result = GemmResult {
        precision: p,
        n,
        library: best_timing.library,
        timed_iterations: cfg.timed_iterations.max(1),
        tflops: best_timing.tflops,
        seconds_per_gemm,
        peak_tflops: None,
        fraction_of_peak: None,
        check: best_timing.check,
        alternatives,
    };
    // Every kernel reads the same loaded inputs, so the sustained load can run the best one.
    Ok(Some((result, first.map(|f| (kernel_index, f, typical)))))
}

/// The sustained load: GEMMs in chunks of about 0.25 s until `sustained_seconds` pass or
/// cancel; then a run-to-run check of the last output against the first.
#[allow(clippy::too_many_arguments, reason = "internal step of probe_device with its loop state")]
fn sustain(
    dev: &mut dyn GemmDevice,
    cfg: &ProbeConfig,
    index: usize,
    p: GemmPrecision,
    n: usize,
    kernel: usize,
    first: &[f32],
    typical: f64,
    (done, steps): (f64, f64),
) -> Result<SustainedSummary, ProbeError> {
    let started = Instant::now();
    let mut chunk = 1usize;
    let mut chunk_tflops = Vec::new();
    let mut gemms = 0u64;
    let mut busy_seconds = 0f64;
    while started.elapsed().as_secs_f64() < cfg.sustained_seconds {
        if cfg.cancelled() {
            break;
        }
        let secs = dev.run(kernel, chunk)?;
        let total: f64 = secs.iter().sum();
        gemms += secs.len() as u64;
        busy_seconds += total;
        if total > 0.0 {
            chunk_tflops.push(gemm_flops(n) * secs.len() as f64 / total / 1e12);
            // Aim at 0.25 s per chunk (short enough for a prompt cancel), less near the end.
            let per = total / secs.len() as f64;
            let left = cfg.sustained_seconds - started.elapsed().as_secs_f64();
            chunk = ((left.min(0.25) / per) as usize).clamp(1, 10_000);
        }
        let elapsed = started.elapsed().as_secs_f64();
        cfg.send(
            Some(index),
            ProbePhase::Sustained,
            (done + (elapsed / cfg.sustained_seconds).min(1.0)) / steps,
            format!("sustained {p}: {elapsed:.0} of {:.0} s", cfg.sustained_seconds),
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    // Cancelled: keep what ran, skip the after-load check (reading the output back and
    // comparing it takes a good part of the one second a cancel may take).
    let skipped = cfg.cancelled();
    if skipped && gemms == 0 {
        return Err(ProbeError::Cancelled);
    }
    let (r2r, nonfinite) = if skipped {
        (numeric::RunToRun::default(), 0)
    } else {
        let last = dev.output()?;
        (numeric::run_to_run(p, first, &last, typical), numeric::count_nonfinite(&last))
    };
    let kernels = dev.kernels(p);
    Ok(SustainedSummary {
        precision: p,
        n,
        library: kernels.get(kernel).map_or_else(String::new, |k| (*k).to_owned()),
        seconds,
        gemms,
        tflops_mean: if busy_seconds > 0.0 { gemm_flops(n) * gemms as f64 / busy_seconds / 1e12 } else { 0.0 },
        tflops: Summary::of(&chunk_tflops),
        power_w: None,
        power_instant_w: None,
        power_limit_w: None,
        power_limit_max_w: None,
        temperature_c: None,
        sm_clock_mhz: None,
        clock_event_reasons: 0,
        clock_event_names: Vec::new(),
        pcie_gen_max: None,
        pcie_width_max: None,
        post_load_mismatches: r2r.mismatches,
        post_load_nonfinite: nonfinite,
        post_load_check_skipped: skipped,
        samples: Vec::new(),
    })
}

//! NVML samples in Prometheus' text exposition format, served over HTTP (`kraftwerk monitor
//! --prometheus 127.0.0.1:PORT`), encoded by the `prometheus-client` crate.
//!
//! Metric names follow NVIDIA's DCGM exporter where the meaning and the unit are the same
//! (<https://github.com/NVIDIA/dcgm-exporter>, `etc/default-counters.csv`; field ids in the DCGM
//! API reference), so existing Grafana dashboards read them; the rest are `kraftwerk_gpu_*`.
//! Labels, as the DCGM exporter's: `gpu` (NVML index), `UUID`, `device` (`nvidia0`),
//! `pci_bus_id`, `hostname` (the exporter's own spelling since NVIDIA/dcgm-exporter#655, which
//! renamed `Hostname`), and `model_name` where the exporter writes `modelName`.
//!
//! The output passes `promtool check metrics` (Prometheus 2.42, `scripts/promtool-check.sh`,
//! run by CI), whose lint rejects two of the exporter's spellings: the camelCase label
//! `modelName` (hence `model_name`; docs/prometheus-scrape.yml renames it back at scrape time
//! for dashboards that need it) and a metric name holding a type, `..._REPLAY_COUNTER` (hence
//! `kraftwerk_gpu_pcie_replays`). Gauges only; a figure NVML did not answer is left out, never
//! written as 0. HELP texts carry no final full stop: the encoder adds it.
//!
//! | metric | unit | NVML source |
//! |---|---|---|
//! | `DCGM_FI_DEV_POWER_USAGE` | W | `nvmlDeviceGetPowerUsage` (1 s average) |
//! | `kraftwerk_gpu_power_instant_watts` | W | `NVML_FI_DEV_POWER_INSTANT` |
//! | `DCGM_FI_DEV_POWER_MGMT_LIMIT` | W | enforced power limit |
//! | `DCGM_FI_DEV_GPU_TEMP` | °C | GPU temperature |
//! | `DCGM_FI_DEV_SM_CLOCK` | MHz | SM clock |
//! | `DCGM_FI_DEV_MEM_CLOCK` | MHz | memory clock |
//! | `DCGM_FI_DEV_GPU_UTIL` | % | GPU utilization |
//! | `DCGM_FI_DEV_MEM_COPY_UTIL` | % | memory utilization |
//! | `DCGM_FI_DEV_FB_USED` | MiB | memory used |
//! | `DCGM_FI_DEV_FB_FREE` | MiB | total minus used |
//! | `DCGM_FI_DEV_PCIE_LINK_GEN` | generation | current PCIe link generation |
//! | `DCGM_FI_DEV_PCIE_LINK_WIDTH` | lanes | current PCIe link width |
//! | `kraftwerk_gpu_pcie_replays` | count | PCIe replays (DCGM's `DCGM_FI_DEV_PCIE_REPLAY_COUNTER`) |
//! | `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS` | bitmask | clock event reasons |
//! | `DCGM_FI_DEV_ECC_SBE_VOL_TOTAL` | count | corrected ECC errors, volatile |
//! | `DCGM_FI_DEV_ECC_DBE_VOL_TOTAL` | count | uncorrected ECC errors, volatile |
//! | `DCGM_FI_DEV_RETIRED_PENDING` | 0/1 | page retirement pending |
//! | `DCGM_FI_DEV_XID_ERRORS` | XID | last critical XID since the previous reading |
//! | `kraftwerk_gpu_energy_joules` | J | energy since the driver loaded (DCGM's field is mJ) |

use super::nvml::{GpuSample, GpuStatic, Snapshot};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Name of the serving thread.
pub const THREAD_NAME: &str = "kraftwerk-prometheus";

type Labels = Vec<(String, String)>;
type Metric = Family<Labels, Gauge<f64, AtomicU64>>;

/// One exported metric: name, help, the value of a sample.
struct Spec {
    name: &'static str,
    /// One sentence without its final full stop (`prometheus-client` appends it).
    help: &'static str,
    value: fn(&GpuSample, &GpuStatic) -> Option<f64>,
}

fn f<T: Into<f64>>(v: Option<T>) -> Option<f64> {
    v.map(Into::into)
}

const SPECS: &[Spec] = &[
    Spec { name: "DCGM_FI_DEV_POWER_USAGE", help: "Power draw, W (1 s average)", value: |s, _| s.power_avg_w },
    Spec { name: "kraftwerk_gpu_power_instant_watts", help: "Instant power draw, W", value: |s, _| s.power_instant_w },
    Spec {
        name: "DCGM_FI_DEV_POWER_MGMT_LIMIT",
        help: "Enforced power limit, W",
        value: |_, g| g.power_limit_enforced_w.or(g.power_limit_w),
    },
    Spec { name: "DCGM_FI_DEV_GPU_TEMP", help: "GPU temperature, C", value: |s, _| f(s.temperature_c) },
    Spec { name: "DCGM_FI_DEV_SM_CLOCK", help: "SM clock, MHz", value: |s, _| f(s.clock_sm_mhz) },
    Spec { name: "DCGM_FI_DEV_MEM_CLOCK", help: "Memory clock, MHz", value: |s, _| f(s.clock_mem_mhz) },
    Spec { name: "DCGM_FI_DEV_GPU_UTIL", help: "GPU utilization, %", value: |s, _| f(s.utilization_gpu_pct) },
    Spec { name: "DCGM_FI_DEV_MEM_COPY_UTIL", help: "Memory utilization, %", value: |s, _| f(s.utilization_mem_pct) },
    Spec { name: "DCGM_FI_DEV_FB_USED", help: "Memory used, MiB", value: |s, _| s.memory_used_mib.map(|m| m as f64) },
    Spec {
        name: "DCGM_FI_DEV_FB_FREE",
        help: "Memory free (total minus used), MiB",
        value: |s, g| Some(g.memory_total_mib?.saturating_sub(s.memory_used_mib?) as f64),
    },
    Spec { name: "DCGM_FI_DEV_PCIE_LINK_GEN", help: "Current PCIe link generation", value: |s, _| f(s.pcie_gen) },
    Spec { name: "DCGM_FI_DEV_PCIE_LINK_WIDTH", help: "Current PCIe link width, lanes", value: |s, _| f(s.pcie_width) },
    Spec {
        name: "kraftwerk_gpu_pcie_replays",
        help: "PCIe replays since the driver loaded",
        value: |s, _| s.pcie_replay_count.map(|v| v as f64),
    },
    Spec {
        name: "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
        help: "Active clock event reasons (nvmlClocksEventReasons bitmask)",
        value: |s, _| s.clock_event_reasons.map(|r| r.bits() as f64),
    },
    Spec {
        name: "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
        help: "Corrected ECC errors since the driver loaded",
        value: |s, _| s.ecc_corrected_volatile.map(|v| v as f64),
    },
    Spec {
        name: "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
        help: "Uncorrected ECC errors since the driver loaded",
        value: |s, _| s.ecc_uncorrected_volatile.map(|v| v as f64),
    },
    Spec {
        name: "DCGM_FI_DEV_RETIRED_PENDING",
        help: "Page retirement pending (1) or not (0)",
        value: |s, _| s.retired_pages_pending.map(|p| if p { 1.0 } else { 0.0 }),
    },
    Spec {
        name: "DCGM_FI_DEV_XID_ERRORS",
        help: "Last critical XID error since the previous reading (0: none)",
        value: |s, _| s.xid_errors.as_ref().map(|x| x.last().map_or(0.0, |v| *v as f64)),
    },
    Spec {
        name: "kraftwerk_gpu_energy_joules",
        help: "Energy used since the driver loaded, J",
        value: |s, _| s.energy_j,
    },
];

/// The labels of one GPU, as the DCGM exporter's.
fn labels(g: &GpuStatic, hostname: &str) -> Labels {
    vec![
        ("gpu".to_owned(), g.index.to_string()),
        ("UUID".to_owned(), g.uuid.clone().unwrap_or_default()),
        ("device".to_owned(), format!("nvidia{}", g.index)),
        ("model_name".to_owned(), g.name.clone().unwrap_or_default()),
        ("pci_bus_id".to_owned(), g.pci_bus_id.clone().unwrap_or_default()),
        ("hostname".to_owned(), hostname.to_owned()),
    ]
}

/// `snapshot` of `gpus` in the text exposition format (with the final `# EOF`).
///
/// # Errors
/// Formatting failed (does not happen with a `String`).
pub fn render(gpus: &[GpuStatic], hostname: &str, snapshot: Option<&Snapshot>) -> Result<String, std::fmt::Error> {
    let mut registry = Registry::default();
    for spec in SPECS {
        let family = Metric::default();
        if let Some(snap) = snapshot {
            for s in &snap.gpus {
                let Some(g) = gpus.get(s.gpu) else { continue };
                if let Some(v) = (spec.value)(s, g).filter(|v| v.is_finite()) {
                    family.get_or_create(&labels(g, hostname)).set(v);
                }
            }
        }
        registry.register(spec.name, spec.help, family);
    }
    let mut out = String::new();
    encode(&mut out, &registry)?;
    Ok(out)
}

/// What the server exports: the GPUs and the latest snapshot.
#[derive(Debug, Default)]
struct State {
    gpus: Vec<GpuStatic>,
    hostname: String,
    latest: Option<Snapshot>,
}

/// A running exporter: `GET /metrics` on its address answers the latest snapshot.
#[derive(Debug)]
pub struct Exporter {
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Exporter {
    /// Binds `addr` and serves on the thread [`THREAD_NAME`].
    ///
    /// # Errors
    /// The address cannot be bound, or the thread cannot start.
    pub fn serve(addr: SocketAddr, gpus: Vec<GpuStatic>, hostname: String) -> io::Result<Exporter> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State { gpus, hostname, latest: None }));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (Arc::clone(&state), Arc::clone(&stop));
        let handle = std::thread::Builder::new().name(THREAD_NAME.to_owned()).spawn(move || {
            while !sp.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        // A failed client is its own problem; keep serving the others.
                        let _ = answer(stream, &st);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(20)),
                    Err(_) => std::thread::sleep(Duration::from_millis(100)),
                }
            }
        })?;
        Ok(Exporter { state, addr, stop, handle: Some(handle) })
    }

    /// The bound address (the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Replaces the exported snapshot.
    pub fn update(&self, snapshot: &Snapshot) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).latest = Some(snapshot.clone());
    }

    /// Stops serving and waits for the thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Answers one HTTP/1.x request: `GET /metrics` (or `/`) with the metrics, else 404.
fn answer(stream: TcpStream, state: &Mutex<State>) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // Skip the headers.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("");
    let (status, ctype, body) = if request.starts_with("GET ") && (path == "/metrics" || path == "/") {
        let s = state.lock().unwrap_or_else(PoisonError::into_inner);
        match render(&s.gpus, &s.hostname, s.latest.as_ref()) {
            Ok(b) => ("200 OK", "application/openmetrics-text; version=1.0.0; charset=utf-8", b),
            Err(_) => ("500 Internal Server Error", "text/plain", "encoding failed\n".to_owned()),
        }
    } else {
        ("404 Not Found", "text/plain", "kraftwerk serves /metrics\n".to_owned())
    };
    let mut w = stream;
    write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    w.flush()
}

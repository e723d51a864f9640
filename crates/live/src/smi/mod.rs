//! `nvidia-smi` output as evidence: `nvidia-smi -q` text, `nvidia-smi -q -x` XML and
//! `nvidia-smi topo -m` (alone, or after a `-q` dump in the same file) turned into the same
//! [`Observed`] a recording gives, so `kraftwerk validate BUILD --from DUMP` grades it with the
//! same checks ([`validate_dump`]).
//!
//! What a dump can and cannot show:
//! - It is one snapshot. An idle GPU lowers its PCIe link to save power, so an idle dump can
//!   never pass the negotiated link: `pcie-link-live` is at best information for it. The maximum
//!   link (`PCIe Generation Max`, `Link Width Max`: the smaller of the GPU's and the slot's,
//!   `nvmlDeviceGetMaxPcieLinkGeneration`) does not downshift, so a maximum below the build's
//!   link still fails.
//! - It has no measurement: GEMM TFLOP/s, host bandwidth and power under load are not in it, so
//!   the dump adds a `probe` check (warn) that says so, and the verdict can never be PASS.
//! - A field the dump lacks or prints as `N/A` is unknown (the check is not run), never a pass.
//! - Critical XID errors are only in the kernel log; lines such as
//!   `NVRM: Xid (PCI:0000:01:00): 79, ...` pasted into the same file are read, otherwise XIDs
//!   are unknown.
//!
//! The formats follow NVIDIA's `nvidia-smi` manual page (section "UNIT ATTRIBUTES" / "GPU
//! ATTRIBUTES", <https://docs.nvidia.com/deploy/nvidia-smi/index.html>) and the real dumps in
//! `tests/fixtures/nvidia-smi/` (drivers 510 to 580; older "Clocks Throttle Reasons" and newer
//! "Clocks Event Reasons" names, Pascal "Single Bit/Double Bit" and Ampere "SRAM/DRAM" ECC
//! counters). Unknown fields from newer drivers are ignored. Hand-parsed: the text is indented
//! `key : value` lines and the XML is plain elements with no namespaces, so a few hundred lines
//! here are simpler than an XML crate.

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and nvidia-smi are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

mod grade;
mod read;

use super::nvml::topology::{Connection, GpuPair, P2pStatus, PcieAncestor, Topology, normalize_bus_id};
use super::nvml::{GpuSample, GpuStatic, Snapshot};
use super::reasons::ClockEventReasons;
use super::validate::Observed;
pub use grade::{validate_dump, validate_text};
use read::{parse_text, parse_xml, read_gpu, read_header};

/// SW power cap bit (`nvmlClocksEventReasonSwPowerCap`, nvml.h).
const SW_POWER_CAP: u64 = 0x4;
/// GPU idle bit (`nvmlClocksEventReasonGpuIdle`, nvml.h).
const GPU_IDLE: u64 = 0x1;

/// A dump that cannot be read: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct SmiError {
    /// File name or path.
    pub file: String,
    /// 1-based line (0 = the whole file).
    pub line: usize,
    /// 1-based column (0 = the whole line).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// The kinds of `nvidia-smi` output a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmiFormat {
    /// `nvidia-smi -q` (or `-a`) text.
    Query,
    /// `nvidia-smi -q -x` XML.
    QueryXml,
    /// `nvidia-smi topo -m` matrix.
    Topo,
}

impl SmiFormat {
    /// The command that writes it.
    pub fn command(self) -> &'static str {
        match self {
            SmiFormat::Query => "nvidia-smi -q",
            SmiFormat::QueryXml => "nvidia-smi -q -x",
            SmiFormat::Topo => "nvidia-smi topo -m",
        }
    }
}

/// One GPU as the dump shows it. Every figure is `None` where the dump lacks it or prints
/// `N/A`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SmiGpu {
    /// 1-based line of the GPU's section in the file.
    pub line: usize,
    /// PCI bus id (`Bus Id`, the section header, or the XML `id` attribute).
    pub bus_id: Option<String>,
    /// `Product Name`, e.g. "NVIDIA GeForce RTX 3090".
    pub name: Option<String>,
    /// `GPU UUID` when it has the `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` form (a redacted
    /// UUID is unknown).
    pub uuid: Option<String>,
    /// `Persistence Mode` enabled.
    pub persistence_mode: Option<bool>,
    /// `PCIe Generation` `Max`: the most the GPU and the slot allow.
    pub pcie_gen_max: Option<u32>,
    /// `PCIe Generation` `Current` (lowered at idle).
    pub pcie_gen_current: Option<u32>,
    /// `PCIe Generation` `Device Max` (driver 530 and later).
    pub pcie_gen_device_max: Option<u32>,
    /// `PCIe Generation` `Host Max` (driver 530 and later).
    pub pcie_gen_host_max: Option<u32>,
    /// `Link Width` `Max`, lanes.
    pub pcie_width_max: Option<u32>,
    /// `Link Width` `Current`, lanes.
    pub pcie_width_current: Option<u32>,
    /// `Utilization` `Gpu`, percent.
    pub utilization_gpu_pct: Option<u32>,
    /// `Performance State`, 0 (P0) to 15.
    pub performance_state: Option<u32>,
    /// `FB Memory Usage` `Total`, MiB.
    pub memory_total_mib: Option<u64>,
    /// `FB Memory Usage` `Used`, MiB.
    pub memory_used_mib: Option<u64>,
    /// `GPU Current Temp`, °C.
    pub temperature_c: Option<u32>,
    /// `Power Draw` (or `Average Power Draw`), W.
    pub power_draw_w: Option<f64>,
    /// `Current Power Limit` (older drivers: `Enforced Power Limit`), W.
    pub power_limit_current_w: Option<f64>,
    /// `Requested Power Limit` (older drivers: `Power Limit`), W.
    pub power_limit_requested_w: Option<f64>,
    /// `Default Power Limit`, W.
    pub power_limit_default_w: Option<f64>,
    /// `Min Power Limit`, W.
    pub power_limit_min_w: Option<f64>,
    /// `Max Power Limit`, W.
    pub power_limit_max_w: Option<f64>,
    /// `ECC Mode` `Current` enabled.
    pub ecc_enabled: Option<bool>,
    /// `ECC Mode` `Pending` enabled.
    pub ecc_pending_enabled: Option<bool>,
    /// Corrected ECC errors since the driver loaded (sum of the volatile correctable counters).
    pub ecc_corrected_volatile: Option<u64>,
    /// Uncorrected ECC errors since the driver loaded (volatile uncorrectable / double bit).
    pub ecc_uncorrected_volatile: Option<u64>,
    /// Corrected ECC errors over the GPU's life (aggregate).
    pub ecc_corrected_aggregate: Option<u64>,
    /// Uncorrected ECC errors over the GPU's life (aggregate).
    pub ecc_uncorrected_aggregate: Option<u64>,
    /// `Retired Pages` `Single Bit ECC`.
    pub retired_pages_single_bit: Option<u64>,
    /// `Retired Pages` `Double Bit ECC`.
    pub retired_pages_double_bit: Option<u64>,
    /// `Retired Pages` `Pending Page Blacklist` (or `Pending`).
    pub retired_pages_pending: Option<bool>,
    /// `Remapped Rows` `Correctable Error`.
    pub remapped_rows_correctable: Option<u64>,
    /// `Remapped Rows` `Uncorrectable Error`.
    pub remapped_rows_uncorrectable: Option<u64>,
    /// `Remapped Rows` `Pending`.
    pub remapped_rows_pending: Option<bool>,
    /// `Remapped Rows` `Remapping Failure Occurred`.
    pub remapped_rows_failure: Option<bool>,
    /// Active `Clocks Event Reasons` (`Clocks Throttle Reasons` before driver 535) as NVML's
    /// bit mask.
    pub clock_event_reasons: Option<ClockEventReasons>,
    /// Critical XIDs from kernel-log lines pasted into the same file; `None` when none name
    /// this GPU.
    pub xid_errors: Option<Vec<u64>>,
}

impl SmiGpu {
    /// True when the snapshot was taken under load (utilization at or above
    /// [`super::nvml::LOAD_UTILIZATION_PCT`]); `None` when the dump has no utilization.
    pub fn under_load(&self) -> Option<bool> {
        Some(self.utilization_gpu_pct? >= super::nvml::LOAD_UTILIZATION_PCT)
    }
}

/// One `nvidia-smi topo -m` matrix (GPU rows and columns only).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TopoMatrix {
    /// 1-based line of the header.
    pub line: usize,
    /// The cell of every GPU pair, row by row (`X` on the diagonal).
    pub cells: Vec<Vec<String>>,
}

impl TopoMatrix {
    /// GPUs in the matrix.
    pub fn gpu_count(&self) -> usize {
        self.cells.len()
    }

    /// The matrix as a [`Topology`]: `NV#` is NVLink, `PIX`/`PXB`/`PHB`/`NODE`/`SYS` (and the
    /// older `SOC`) PCIe through that ancestor, anything else unknown.
    pub fn topology(&self) -> Topology {
        let mut pairs = Vec::new();
        for a in 0..self.cells.len() {
            for b in a + 1..self.cells.len() {
                let cell = self.cells[a].get(b).map_or("", String::as_str);
                let connection = connection_of(cell);
                let common_ancestor = match connection {
                    Connection::Pcie { ancestor } => Some(ancestor),
                    _ => None,
                };
                pairs.push(GpuPair { gpu_a: a, gpu_b: b, common_ancestor, connection, p2p: P2pStatus::default() });
            }
        }
        Topology { pairs }
    }
}

/// The connection a `topo -m` cell names.
fn connection_of(cell: &str) -> Connection {
    let c = cell.trim();
    if let Some(n) = c.strip_prefix("NV").and_then(|n| n.parse::<u32>().ok()) {
        return Connection::NvLink { links: n };
    }
    let ancestor = match c {
        "PIX" => PcieAncestor::Single,
        "PXB" => PcieAncestor::Multiple,
        "PHB" => PcieAncestor::HostBridge,
        "NODE" => PcieAncestor::Node,
        "SYS" | "SOC" => PcieAncestor::System,
        _ => return Connection::Unknown,
    };
    Connection::Pcie { ancestor }
}

/// Everything read from one file of `nvidia-smi` output.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SmiDump {
    /// The file, as named in messages.
    pub file: String,
    /// The formats found, in file order.
    pub formats: Vec<SmiFormat>,
    /// `Timestamp`.
    pub timestamp: Option<String>,
    /// `Driver Version`.
    pub driver_version: Option<String>,
    /// `CUDA Version`.
    pub cuda_version: Option<String>,
    /// `Attached GPUs`: how many GPUs the driver sees (a dump made with `-i` shows fewer).
    pub attached_gpus: Option<u32>,
    /// The GPU sections, in file order (nvidia-smi's order, which `topo -m`'s GPU0.. follow).
    pub gpus: Vec<SmiGpu>,
    /// The `topo -m` matrix, when the file has one.
    pub topology: Option<TopoMatrix>,
}

impl SmiDump {
    /// The commands whose output the file holds, e.g. `nvidia-smi -q, nvidia-smi topo -m`.
    pub(crate) fn describe_formats(&self) -> String {
        self.formats.iter().map(|f| f.command()).collect::<Vec<_>>().join(", ")
    }

    /// The dump as an [`Observed`]: static facts per GPU, one snapshot (utilization, current
    /// link, ECC, retired pages, XIDs, clock event reasons) and the topology. No probe, no links
    /// report.
    pub fn observed(&self) -> Observed {
        let mut gpus: Vec<GpuStatic> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(j, g)| GpuStatic {
                index: u32::try_from(j).unwrap_or(u32::MAX),
                name: g.name.clone(),
                uuid: g.uuid.clone(),
                pci_bus_id: g.bus_id.clone(),
                memory_total_mib: g.memory_total_mib,
                power_limit_default_w: g.power_limit_default_w,
                power_limit_min_w: g.power_limit_min_w,
                power_limit_max_w: g.power_limit_max_w,
                power_limit_enforced_w: g.power_limit_current_w,
                power_limit_w: g.power_limit_requested_w,
                pcie_gen_max: g.pcie_gen_max,
                pcie_width_max: g.pcie_width_max,
                ecc_enabled: g.ecc_enabled,
                ecc_pending_enabled: g.ecc_pending_enabled,
                persistence_mode: g.persistence_mode,
                ..GpuStatic::default()
            })
            .collect();
        let samples: Vec<GpuSample> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(j, g)| GpuSample {
                gpu: j,
                unix_ms: 0,
                memory_used_mib: g.memory_used_mib,
                temperature_c: g.temperature_c,
                power_avg_w: g.power_draw_w,
                utilization_gpu_pct: g.utilization_gpu_pct,
                performance_state: g.performance_state,
                pcie_gen: g.pcie_gen_current,
                pcie_width: g.pcie_width_current,
                ecc_corrected_volatile: g.ecc_corrected_volatile,
                ecc_uncorrected_volatile: g.ecc_uncorrected_volatile,
                ecc_corrected_aggregate: g.ecc_corrected_aggregate,
                ecc_uncorrected_aggregate: g.ecc_uncorrected_aggregate,
                retired_pages: match (g.retired_pages_single_bit, g.retired_pages_double_bit) {
                    (None, None) => None,
                    (s, d) => Some(s.unwrap_or(0) + d.unwrap_or(0)),
                },
                retired_pages_pending: g.retired_pages_pending,
                xid_errors: g.xid_errors.clone(),
                clock_event_reasons: g.clock_event_reasons,
                ..GpuSample::default()
            })
            .collect();
        let snapshots =
            if samples.is_empty() { Vec::new() } else { vec![Snapshot { unix_ms: 0, elapsed_ms: 0, gpus: samples }] };
        if gpus.is_empty()
            && let Some(t) = &self.topology
        {
            gpus = (0..t.gpu_count())
                .map(|j| GpuStatic { index: u32::try_from(j).unwrap_or(u32::MAX), ..GpuStatic::default() })
                .collect();
        }
        Observed {
            source: format!("nvidia-smi dump {} ({})", self.file, self.describe_formats()),
            node: None,
            nvml: None,
            gpus,
            topology: self.topology.as_ref().map(TopoMatrix::topology),
            snapshots,
            probe: None,
            probe_skipped: None,
            links: None,
        }
    }
}

/// True when `text` looks like `nvidia-smi` output rather than a JSON recording: the `-q` log
/// header, an `<nvidia_smi_log>` element, a `GPU 0000…:…` section or a `topo -m` header.
pub fn is_smi_output(text: &str) -> bool {
    let text = &strip_ansi(text);
    let t = text.trim_start();
    if t.starts_with('{') {
        return false;
    }
    text.contains("NVSMI LOG")
        || text.contains("<nvidia_smi_log")
        || text.lines().any(|l| gpu_section_bus(l.trim()).is_some() || topo_header(l).is_some())
}

/// Reads `nvidia-smi` output of any of the three formats (the format is found from the
/// content); `file` names it in errors.
///
/// # Errors
/// [`SmiError`] with the line and column when the XML is malformed or cut short, when the file
/// holds no GPU (`Attached GPUs : 0`, or no GPU section and no `topo -m` matrix), when a `topo
/// -m` row is incomplete, or when the `topo -m` matrix and the `-q` part disagree on the number
/// of GPUs.
pub fn parse(file: &str, text: &str) -> Result<SmiDump, SmiError> {
    let text = &strip_ansi(text);
    let err = |line: usize, column: usize, message: String| SmiError { file: file.to_owned(), line, column, message };
    let mut dump = SmiDump { file: file.to_owned(), ..SmiDump::default() };
    let lines: Vec<&str> = text.lines().collect();
    let topo_at = lines.iter().position(|l| topo_header(l).is_some());
    let query_end = topo_at.unwrap_or(lines.len());
    let query_text: String = lines[..query_end].join("\n");
    let mut zero_line = None;
    if let Some(xml_at) = query_text.find("<nvidia_smi_log") {
        let start = query_text[..xml_at].rfind("<?xml").unwrap_or(xml_at);
        let offset_lines = query_text[..start].matches('\n').count();
        let tree = parse_xml(&query_text[start..]).map_err(|(l, c, m)| err(l + offset_lines, c, m))?;
        dump.formats.push(SmiFormat::QueryXml);
        let root = tree.find_child(0, "nvidia_smi_log").unwrap_or(0);
        read_header(&tree, root, &mut dump);
        for id in tree.children_named(root, "gpu") {
            let mut g = read_gpu(&tree, id);
            g.line += offset_lines;
            if g.bus_id.is_none() {
                g.bus_id.clone_from(&tree.nodes[id].attr_id);
            }
            dump.gpus.push(g);
        }
        if dump.attached_gpus == Some(0) {
            zero_line = tree.find_child(root, "attached_gpus").map(|n| tree.nodes[n].line + offset_lines);
        }
    } else if query_text.contains("NVSMI LOG") || query_text.lines().any(|l| gpu_section_bus(l.trim()).is_some()) {
        let tree = parse_text(&query_text);
        dump.formats.push(SmiFormat::Query);
        read_header(&tree, 0, &mut dump);
        for &id in &tree.nodes[0].children {
            let Some(bus) = gpu_section_bus(&tree.nodes[id].raw_key) else { continue };
            let mut g = read_gpu(&tree, id);
            if g.bus_id.is_none() {
                g.bus_id = Some(bus.to_owned());
            }
            dump.gpus.push(g);
        }
        if dump.attached_gpus == Some(0) {
            zero_line = tree.find_child(0, "attached_gpus").map(|n| tree.nodes[n].line);
        }
    }
    if let Some(at) = topo_at {
        dump.formats.push(SmiFormat::Topo);
        dump.topology = Some(parse_topo(&lines, at).map_err(|(l, m)| err(l, 0, m))?);
    }
    read_xids(&lines, &mut dump.gpus);
    if dump.formats.is_empty() {
        return Err(err(
            0,
            0,
            "not nvidia-smi output: no `nvidia-smi -q` log, no <nvidia_smi_log> and no `topo -m` matrix".into(),
        ));
    }
    let topo_gpus = dump.topology.as_ref().map_or(0, TopoMatrix::gpu_count);
    if dump.gpus.is_empty() && topo_gpus == 0 {
        let (line, why) = match zero_line {
            Some(l) => (
                l,
                "the dump lists no GPU (Attached GPUs: 0): nvidia-smi saw no NVIDIA GPU, so there is nothing to validate (driver not loaded, GPU fallen off the bus, or a machine without GPUs)",
            ),
            None => (
                0,
                "the dump holds no GPU section: nothing to validate (was it cut short, or filtered to a GPU that does not exist?)",
            ),
        };
        return Err(err(line, 0, why.to_owned()));
    }
    if let (false, Some(t)) = (dump.gpus.is_empty(), &dump.topology)
        && t.gpu_count() != dump.gpus.len()
    {
        return Err(err(
            t.line,
            0,
            format!(
                "the topo -m matrix has {} GPU(s) but the -q part has {}: the two outputs are not of the same machine (or -q was filtered with -i)",
                t.gpu_count(),
                dump.gpus.len()
            ),
        ));
    }
    Ok(dump)
}

/// `text` without ANSI escape sequences (`ESC [ … letter`): `nvidia-smi topo -m` underlines its
/// header even when written to a file (driver 580.159 on the H200 test machine,
/// `tests/fixtures/nvidia-smi/h200-q-and-topo-m.txt`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The bus id of a `-q` GPU section header `GPU 00000000:01:00.0`.
fn gpu_section_bus(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("GPU ")?.trim();
    let ok = rest.len() >= 7
        && rest.contains(':')
        && rest.contains('.')
        && rest.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
    ok.then_some(rest)
}

/// The device labels of a `topo -m` header line (`GPU0 GPU1 NIC0 CPU Affinity …`): the leading
/// tokens before `CPU`, when the first is `GPU0`.
fn topo_header(line: &str) -> Option<Vec<&str>> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() != Some(&"GPU0") {
        return None;
    }
    let labels: Vec<&str> = tokens.iter().take_while(|t| **t != "CPU" && **t != "NUMA").copied().collect();
    // A -q line never starts with the bare token GPU0; a matrix header is followed by labels only.
    labels.iter().all(|t| t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(labels)
}

/// The GPU rows of the `topo -m` matrix whose header is line `at` (0-based).
fn parse_topo(lines: &[&str], at: usize) -> Result<TopoMatrix, (usize, String)> {
    let labels = topo_header(lines[at]).unwrap_or_default();
    let gpu_labels: Vec<&str> = labels.iter().copied().filter(|l| is_gpu_label(l)).collect();
    let mut cells = Vec::new();
    for (k, line) in lines.iter().enumerate().skip(at + 1) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = tokens.first() else {
            if cells.is_empty() {
                continue;
            }
            break;
        };
        if !is_gpu_label(first) {
            if first.starts_with("NIC") || first.starts_with("mlx") {
                continue;
            }
            break;
        }
        if tokens.len() < labels.len() + 1 {
            return Err((
                k + 1,
                format!(
                    "topo -m row {first} has {} cell(s), the header names {} devices: the matrix is cut",
                    tokens.len() - 1,
                    labels.len()
                ),
            ));
        }
        let row: Vec<String> =
            labels.iter().zip(&tokens[1..]).filter(|(l, _)| is_gpu_label(l)).map(|(_, c)| (*c).to_owned()).collect();
        cells.push(row);
    }
    if cells.len() != gpu_labels.len() {
        return Err((
            at + 1,
            format!(
                "topo -m names {} GPU(s) in its header but has {} GPU row(s): the matrix is cut",
                gpu_labels.len(),
                cells.len()
            ),
        ));
    }
    Ok(TopoMatrix { line: at + 1, cells })
}

fn is_gpu_label(s: &str) -> bool {
    s.strip_prefix("GPU").is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Kernel-log XID lines (`NVRM: Xid (PCI:0000:01:00): 79, pid=…`) anywhere in the file, given
/// to the GPU whose bus and device numbers match.
fn read_xids(lines: &[&str], gpus: &mut [SmiGpu]) {
    for line in lines {
        let Some(at) = line.find("Xid (PCI:") else { continue };
        let rest = &line[at + "Xid (PCI:".len()..];
        let Some(close) = rest.find(')') else { continue };
        let bus = &rest[..close];
        let Some(number) = rest[close + 1..]
            .trim_start_matches([':', ' '])
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let key = bus_device(bus);
        if let Some(g) = gpus.iter_mut().find(|g| g.bus_id.as_deref().map(bus_device) == Some(key.clone())) {
            g.xid_errors.get_or_insert_with(Vec::new).push(number);
        }
    }
}

/// `BB:DD` of a PCI address (`0000:01:00`, `00000000:01:00.0` → `01:00`), upper case.
fn bus_device(bus: &str) -> String {
    let up = normalize_bus_id(bus);
    let no_fn = up.split('.').next().unwrap_or_default();
    let parts: Vec<&str> = no_fn.split(':').collect();
    let n = parts.len();
    if n >= 2 { format!("{}:{}", parts[n - 2], parts[n - 1]) } else { no_fn.to_owned() }
}

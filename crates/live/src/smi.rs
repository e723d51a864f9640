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

use super::grading::Grade;
use super::nvml::topology::{Connection, GpuPair, P2pStatus, PcieAncestor, Topology, normalize_bus_id};
use super::nvml::{GpuSample, GpuStatic, Snapshot};
use super::probe::match_catalog_gpu;
use super::reasons::{ClockEventReasons, FAULT_MASK};
use super::validate::{Observed, Validation, ValidationCheck, validate_observed};
use crate::links::checks::expectations_from_build;
use kraftwerk_catalog::Catalog;
use kraftwerk_core::rig::Build;

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
    pub fn describe_formats(&self) -> String {
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

// ---------------------------------------------------------------------------------------------
// One tree for both formats: `-q` text sections and XML elements.

#[derive(Debug, Default)]
struct Node {
    /// The key as written (`GPU 00000000:01:00.0`, `Product Name`, `product_name`).
    raw_key: String,
    /// Lower case, non-alphanumerics as `_` (`product_name`, `gpu_link_info`).
    key: String,
    value: Option<String>,
    /// The XML `id` attribute.
    attr_id: Option<String>,
    line: usize,
    children: Vec<usize>,
}

#[derive(Debug)]
struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn new() -> Self {
        Tree { nodes: vec![Node::default()] }
    }

    fn add(&mut self, parent: usize, raw_key: &str, line: usize) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node { raw_key: raw_key.to_owned(), key: norm_key(raw_key), line, ..Node::default() });
        self.nodes[parent].children.push(id);
        id
    }

    fn find_child(&self, parent: usize, key: &str) -> Option<usize> {
        self.nodes[parent].children.iter().copied().find(|&c| self.nodes[c].key == key)
    }

    fn children_named<'t>(&'t self, parent: usize, key: &'t str) -> impl Iterator<Item = usize> + 't {
        self.nodes[parent].children.iter().copied().filter(move |&c| self.nodes[c].key == key)
    }

    /// The node at `path` below `from`.
    fn at(&self, from: usize, path: &[&str]) -> Option<usize> {
        path.iter().try_fold(from, |n, k| self.find_child(n, k))
    }

    /// The value at the first of `paths` that exists and is known (not `N/A`).
    fn value(&self, from: usize, paths: &[&[&str]]) -> Option<&str> {
        paths.iter().find_map(|p| self.at(from, p).and_then(|n| known(self.nodes[n].value.as_deref())))
    }
}

fn norm_key(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

/// `None` for the placeholders nvidia-smi prints for missing values.
fn known(v: Option<&str>) -> Option<&str> {
    let v = v?.trim();
    let lower = v.to_ascii_lowercase();
    let missing = v.is_empty()
        || lower.starts_with("n/a")
        || lower.starts_with("[n/a")
        || lower.contains("not supported")
        || lower.contains("not available")
        || lower.contains("unknown error")
        || lower.contains("insufficient permissions")
        || lower.contains("deprecated");
    (!missing).then_some(v)
}

/// The leading number of a value: `350.00 W` → 350, `16x` → 16, `P8` → 8, `35 %` → 35.
fn number(v: &str) -> Option<f64> {
    let t = v.trim().trim_start_matches(['P', 'p']);
    let end = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(t.len());
    t[..end].parse::<f64>().ok().filter(|x| x.is_finite())
}

fn int<T: TryFrom<u64>>(v: Option<&str>) -> Option<T> {
    let x = number(v?)?;
    if x < 0.0 || x.fract() != 0.0 {
        return None;
    }
    // Whole and non-negative, checked above.
    T::try_from(x as u64).ok()
}

fn flag(v: Option<&str>) -> Option<bool> {
    match v?.trim().to_ascii_lowercase().as_str() {
        "enabled" | "yes" | "active" | "on" | "true" => Some(true),
        "disabled" | "no" | "not active" | "off" | "false" => Some(false),
        _ => None,
    }
}

/// `GPU-` and 32 hex digits in the 8-4-4-4-12 form; anything else (redacted) is unknown.
fn valid_uuid(v: &str) -> Option<String> {
    let rest = v.trim().strip_prefix("GPU-")?;
    let groups: Vec<&str> = rest.split('-').collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let ok = lens == [8, 4, 4, 4, 12] && groups.iter().all(|g| g.chars().all(|c| c.is_ascii_hexdigit()));
    ok.then(|| v.trim().to_owned())
}

fn read_header(tree: &Tree, root: usize, dump: &mut SmiDump) {
    dump.timestamp = tree.value(root, &[&["timestamp"]]).map(str::to_owned);
    dump.driver_version = tree.value(root, &[&["driver_version"]]).map(str::to_owned);
    dump.cuda_version = tree.value(root, &[&["cuda_version"]]).map(str::to_owned);
    dump.attached_gpus = int(tree.value(root, &[&["attached_gpus"]]));
}

/// One GPU section of either format.
fn read_gpu(tree: &Tree, gpu: usize) -> SmiGpu {
    let v = |paths: &[&[&str]]| tree.value(gpu, paths);
    let link = |text: &[&str], xml: &[&str]| -> Option<u32> {
        let text_path: Vec<&str> = ["pci", "gpu_link_info"].iter().chain(text).copied().collect();
        let xml_path: Vec<&str> = ["pci", "pci_gpu_link_info"].iter().chain(xml).copied().collect();
        int(v(&[text_path.as_slice(), xml_path.as_slice()]))
    };
    let power = ["gpu_power_readings", "power_readings"]
        .iter()
        .find_map(|s| tree.find_child(gpu, s).filter(|&n| !tree.nodes[n].children.is_empty()));
    let pw = |keys: &[&str]| -> Option<f64> {
        let p = power?;
        keys.iter().find_map(|k| tree.value(p, &[&[k]]).and_then(number))
    };
    let ecc = |scope: &str| ecc_counts(tree, gpu, scope);
    let (cv, uv) = ecc("volatile");
    let (ca, ua) = ecc("aggregate");
    SmiGpu {
        line: tree.nodes[gpu].line,
        bus_id: v(&[&["pci", "bus_id"], &["pci", "pci_bus_id"]]).map(str::to_owned),
        name: v(&[&["product_name"]]).map(str::to_owned),
        uuid: v(&[&["gpu_uuid"], &["uuid"]]).and_then(valid_uuid),
        persistence_mode: flag(v(&[&["persistence_mode"]])),
        pcie_gen_max: link(&["pcie_generation", "max"], &["pcie_gen", "max_link_gen"]),
        pcie_gen_current: link(&["pcie_generation", "current"], &["pcie_gen", "current_link_gen"]),
        pcie_gen_device_max: link(&["pcie_generation", "device_max"], &["pcie_gen", "max_device_link_gen"]),
        pcie_gen_host_max: link(&["pcie_generation", "host_max"], &["pcie_gen", "max_host_link_gen"]),
        pcie_width_max: link(&["link_width", "max"], &["link_widths", "max_link_width"]),
        pcie_width_current: link(&["link_width", "current"], &["link_widths", "current_link_width"]),
        utilization_gpu_pct: int(v(&[&["utilization", "gpu"], &["utilization", "gpu_util"]])),
        performance_state: int(v(&[&["performance_state"]])),
        memory_total_mib: int(v(&[&["fb_memory_usage", "total"]])),
        memory_used_mib: int(v(&[&["fb_memory_usage", "used"]])),
        temperature_c: int(v(&[&["temperature", "gpu_current_temp"], &["temperature", "gpu_temp"]])),
        power_draw_w: pw(&["power_draw", "average_power_draw", "instantaneous_power_draw", "instant_power_draw"]),
        power_limit_current_w: pw(&["current_power_limit", "enforced_power_limit"]),
        power_limit_requested_w: pw(&["requested_power_limit", "power_limit"]),
        power_limit_default_w: pw(&["default_power_limit"]),
        power_limit_min_w: pw(&["min_power_limit"]),
        power_limit_max_w: pw(&["max_power_limit"]),
        ecc_enabled: flag(v(&[&["ecc_mode", "current"], &["ecc_mode", "current_ecc"]])),
        ecc_pending_enabled: flag(v(&[&["ecc_mode", "pending"], &["ecc_mode", "pending_ecc"]])),
        ecc_corrected_volatile: cv,
        ecc_uncorrected_volatile: uv,
        ecc_corrected_aggregate: ca,
        ecc_uncorrected_aggregate: ua,
        retired_pages_single_bit: int(v(&[
            &["retired_pages", "single_bit_ecc"],
            &["retired_pages", "multiple_single_bit_retirement", "retired_count"],
        ])),
        retired_pages_double_bit: int(v(&[
            &["retired_pages", "double_bit_ecc"],
            &["retired_pages", "double_bit_retirement", "retired_count"],
        ])),
        retired_pages_pending: flag(v(&[
            &["retired_pages", "pending_page_blacklist"],
            &["retired_pages", "pending"],
            &["retired_pages", "pending_blacklist"],
        ])),
        remapped_rows_correctable: int(v(&[
            &["remapped_rows", "correctable_error"],
            &["remapped_rows", "remapped_row_corr"],
        ])),
        remapped_rows_uncorrectable: int(v(&[
            &["remapped_rows", "uncorrectable_error"],
            &["remapped_rows", "remapped_row_unc"],
        ])),
        remapped_rows_pending: flag(v(&[&["remapped_rows", "pending"], &["remapped_rows", "remapped_row_pending"]])),
        remapped_rows_failure: flag(v(&[
            &["remapped_rows", "remapping_failure_occurred"],
            &["remapped_rows", "remapped_row_failure"],
        ])),
        clock_event_reasons: clock_reasons(tree, gpu),
        xid_errors: None,
    }
}

/// (corrected, uncorrected) ECC errors of `scope` (`volatile` or `aggregate`): the sum of the
/// known counters, Ampere and later (`SRAM/DRAM Correctable`, `… Uncorrectable …`) or Pascal/Volta
/// (`Single Bit` / `Double Bit` `Total`).
fn ecc_counts(tree: &Tree, gpu: usize, scope: &str) -> (Option<u64>, Option<u64>) {
    let Some(section) = tree.at(gpu, &["ecc_errors", scope]) else { return (None, None) };
    let total = |sub: &str| int::<u64>(tree.value(section, &[&[sub, "total"]]));
    let (mut corr, mut unc) = (total("single_bit"), total("double_bit"));
    for &c in &tree.nodes[section].children {
        let node = &tree.nodes[c];
        let Some(count) = int::<u64>(known(node.value.as_deref())) else { continue };
        if node.key.contains("uncorrectable") {
            unc = Some(unc.unwrap_or(0) + count);
        } else if node.key.contains("correctable") {
            corr = Some(corr.unwrap_or(0) + count);
        }
    }
    (corr, unc)
}

/// The active clock event reasons of the `Clocks Event Reasons` / `Clocks Throttle Reasons`
/// section (nested `HW Thermal Slowdown` lines included); `None` when no reason is readable.
fn clock_reasons(t: &Tree, g: usize) -> Option<ClockEventReasons> {
    let s = ["clocks_event_reasons", "clocks_throttle_reasons"].iter().find_map(|k| t.find_child(g, k))?;
    let mut bits = 0u64;
    let mut seen = false;
    let mut stack = t.nodes[s].children.clone();
    while let Some(c) = stack.pop() {
        let n = &t.nodes[c];
        stack.extend(n.children.iter().copied());
        let name =
            n.key.trim_start_matches("clocks_throttle_reason_").trim_start_matches("clocks_event_reason_").to_owned();
        let bit = match name.as_str() {
            "idle" | "gpu_idle" => 0x1,
            "applications_clocks_setting" => 0x2,
            "sw_power_cap" => 0x4,
            "hw_slowdown" => 0x8,
            "sync_boost" => 0x10,
            "sw_thermal_slowdown" => 0x20,
            "hw_thermal_slowdown" => 0x40,
            "hw_power_brake_slowdown" => 0x80,
            "display_clock_setting" | "display_clocks_setting" => 0x100,
            _ => continue,
        };
        match flag(known(n.value.as_deref())) {
            Some(true) => {
                bits |= bit;
                seen = true;
            }
            Some(false) => seen = true,
            None => {}
        }
    }
    seen.then_some(ClockEventReasons(bits))
}

/// `-q` text as a tree by indentation: `Key : Value` lines are leaves (or sections when lines
/// indented deeper follow), lines without ` : ` are sections.
fn parse_text(text: &str) -> Tree {
    let mut tree = Tree::new();
    // (indent, node) of the open sections.
    let mut open: Vec<(usize, usize)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let content = line.trim_start();
        if content.is_empty() || content.contains("NVSMI LOG") {
            continue;
        }
        let indent = line.chars().take_while(|c| c.is_whitespace()).map(|c| if c == '\t' { 8 } else { 1 }).sum();
        let (key, value) = match content.find(" : ") {
            Some(p) => (content[..p].trim(), Some(content[p + 3..].trim())),
            None => match content.strip_suffix(':') {
                Some(k) if k.ends_with(' ') => (k.trim(), Some("")),
                _ => (content, None),
            },
        };
        while open.last().is_some_and(|&(i, _)| i >= indent) {
            open.pop();
        }
        let parent = open.last().map_or(0, |&(_, n)| n);
        let id = tree.add(parent, key, k + 1);
        tree.nodes[id].value = value.map(str::to_owned);
        open.push((indent, id));
    }
    tree
}

/// `-q -x` XML as a tree of elements. Errors are (line, column, message), 1-based.
fn parse_xml(text: &str) -> Result<Tree, (usize, usize, String)> {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let loc = |off: usize| -> (usize, usize) {
        let line = starts.partition_point(|&s| s <= off);
        let col = text[starts[line - 1]..off].chars().count() + 1;
        (line, col)
    };
    let fail = |off: usize, m: String| {
        let (l, c) = loc(off);
        (l, c, m)
    };
    let mut tree = Tree::new();
    // (node, byte offset of its start tag, its text so far)
    let mut open: Vec<(usize, usize, String)> = vec![(0, 0, String::new())];
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if !rest.starts_with('<') {
            let end = rest.find('<').map_or(text.len(), |p| i + p);
            if let Some(top) = open.last_mut() {
                top.2.push_str(&decode_entities(&text[i..end]));
            }
            i = end;
            continue;
        }
        let skip_to = |close: &str, what: &str| -> Result<usize, (usize, usize, String)> {
            rest.find(close)
                .map(|p| i + p + close.len())
                .ok_or_else(|| fail(i, format!("{what} is never closed: the file is cut short")))
        };
        if rest.starts_with("<?") {
            i = skip_to("?>", "<?…?>")?;
        } else if rest.starts_with("<!--") {
            i = skip_to("-->", "the comment <!--")?;
        } else if rest.starts_with("<![CDATA[") {
            let end = skip_to("]]>", "<![CDATA[")?;
            if let Some(top) = open.last_mut() {
                top.2.push_str(&text[i + 9..end - 3]);
            }
            i = end;
        } else if rest.starts_with("<!") {
            i = skip_to(">", "<!DOCTYPE")?;
        } else if let Some(close) = rest.strip_prefix("</") {
            let end = close.find('>').ok_or_else(|| fail(i, "the file is cut short inside a closing tag".into()))?;
            let name = close[..end].trim();
            let Some((node, at, body)) = open.pop().filter(|(n, _, _)| *n != 0) else {
                return Err(fail(i, format!("</{name}> closes an element that was never opened")));
            };
            if tree.nodes[node].raw_key != name {
                let (l, _) = loc(at);
                return Err(fail(
                    i,
                    format!("</{name}> does not close <{}> opened at line {l}", tree.nodes[node].raw_key),
                ));
            }
            let body = body.trim();
            if !body.is_empty() {
                tree.nodes[node].value = Some(body.to_owned());
            }
            i += 2 + end + 1;
        } else {
            let end = tag_end(rest).ok_or_else(|| fail(i, "the file is cut short inside a start tag".into()))?;
            let inner = &rest[1..end];
            let self_closing = inner.ends_with('/');
            let inner = inner.trim_end_matches('/');
            let name_end = inner.find(|c: char| c.is_whitespace()).unwrap_or(inner.len());
            let name = &inner[..name_end];
            if name.is_empty() {
                return Err(fail(i, "an element without a name".into()));
            }
            let parent = open.last().map_or(0, |o| o.0);
            let (line, _) = loc(i);
            let id = tree.add(parent, name, line);
            tree.nodes[id].attr_id = attribute(&inner[name_end..], "id");
            if !self_closing {
                open.push((id, i, String::new()));
            }
            i += end + 1;
        }
    }
    if let Some((node, at, _)) = open.iter().rev().find(|(n, _, _)| *n != 0) {
        let (l, c) = loc(*at);
        return Err((
            starts.len(),
            0,
            format!(
                "the XML ends inside <{}> opened at line {l}, column {c}: the file is cut short (truncated copy?)",
                tree.nodes[*node].raw_key
            ),
        ));
    }
    Ok(tree)
}

/// The offset of the `>` that ends the tag at the start of `s`, quotes respected.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote = None;
    for (k, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(k),
            (None, '<') => return None,
            _ => {}
        }
    }
    None
}

fn attribute(attrs: &str, name: &str) -> Option<String> {
    let at = attrs.find(&format!("{name}="))?;
    let rest = &attrs[at + name.len() + 1..];
    let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    body.find(q).map(|e| decode_entities(&body[..e]))
}

fn decode_entities(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
}

// ---------------------------------------------------------------------------------------------
// Grading a dump.

/// Reads `text` as `nvidia-smi` output and grades it against the build: the same checks as a
/// recording ([`validate_observed`]), then what only a dump needs (see the module docs).
///
/// # Errors
/// [`SmiError`] from [`parse`].
pub fn validate_text(build: &Build, catalog: &Catalog, file: &str, text: &str) -> Result<Validation, SmiError> {
    let dump = parse(file, text)?;
    Ok(validate_dump(build, catalog, &dump))
}

/// Grades a parsed dump against the build: [`validate_observed`] on [`SmiDump::observed`], then
/// - `pcie-link-live` that passed on an idle snapshot (only the maximum link judged) becomes
///   info: the link under load was not measured;
/// - `clock-events` of an idle snapshot (the shared check reads reasons under load only): a
///   hardware or thermal slowdown fails, anything else is info, never a pass;
/// - `remapped-rows`, `ecc-mode` and `persistence-mode` from the dump;
/// - `gpu-count` from `Attached GPUs` when the dump shows fewer sections (`-q -i`);
/// - for a `topo -m` without `-q`: no product names, so `gpu-model` is info and NVLink is
///   checked by position (the build's GPU k is GPUk), as the reason says;
/// - `probe` (warn): no measurement in a dump, so the verdict cannot be PASS.
pub fn validate_dump(build: &Build, catalog: &Catalog, dump: &SmiDump) -> Validation {
    let obs = dump.observed();
    let mut v = validate_observed(build, catalog, &obs);
    let pairs = pair_up(build, catalog, &obs.gpus);
    for &(i, j) in &pairs {
        let Some(g) = dump.gpus.get(j) else { continue };
        idle_link(&mut v.checks, i, g);
        idle_clock_events(&mut v.checks, i, g);
        dump_health(&mut v.checks, i, g);
    }
    attached_count(&mut v.checks, build, catalog, dump);
    if dump.gpus.is_empty() {
        topo_only(&mut v.checks, build, catalog, dump);
    }
    // No probe data: `validate_observed` already grades `probe` as not measured (an
    // nvidia-smi dump has no GEMM, bandwidth or load test), so the verdict cannot be PASS.
    v.overall = Grade::worst(v.checks.iter().map(|c| c.grade));
    v
}

/// Build GPUs matched to dump GPUs by catalog model, in order: (build index, dump position).
/// The same rule as the shared `gpu-model` check.
fn pair_up(build: &Build, catalog: &Catalog, live: &[GpuStatic]) -> Vec<(usize, usize)> {
    let r = build.resolve(catalog);
    let mut taken = vec![false; live.len()];
    let mut out = Vec::new();
    for (i, g) in r.gpus.iter().enumerate() {
        let Some(g) = g else { continue };
        let is_model = |l: &GpuStatic| {
            l.name.as_deref().is_some_and(|name| match match_catalog_gpu(catalog, name, l.power_limit_max_w) {
                Ok(Some(m)) => m.id == g.id,
                Err(ids) => ids.contains(&g.id),
                Ok(None) => false,
            })
        };
        if let Some(j) = live.iter().enumerate().position(|(j, l)| !taken[j] && is_model(l)) {
            taken[j] = true;
            out.push((i, j));
        }
    }
    out
}

fn load_words(g: &SmiGpu) -> String {
    match g.utilization_gpu_pct {
        Some(u) => format!("utilization {u} %"),
        None => "utilization unknown".to_owned(),
    }
}

fn idle_link(checks: &mut [ValidationCheck], i: usize, g: &SmiGpu) {
    if let (Some(host), Some(dev)) = (g.pcie_gen_host_max, g.pcie_gen_device_max)
        && host < dev
    {
        for c in checks.iter_mut().filter(|c| c.check == "pcie-link-live" && c.gpu == Some(i) && c.grade == Grade::Fail)
        {
            c.reason = format!(
                "{}; the dump says Host Max Gen{host} against Device Max Gen{dev}: the slot or platform is PCIe {host}.0",
                c.reason
            );
        }
    }
    if g.under_load() == Some(true) {
        return;
    }
    for c in checks.iter_mut().filter(|c| c.check == "pcie-link-live" && c.gpu == Some(i) && c.grade == Grade::Pass) {
        c.grade = Grade::Info;
        c.reason = format!(
            "not measured under load: the dump is one idle snapshot ({}, current link {}), and an idle GPU lowers its link to save power; the maximum link matches the build, which is all an idle dump can show",
            load_words(g),
            match (g.pcie_gen_current, g.pcie_width_current) {
                (Some(a), Some(b)) => format!("Gen{a} x{b}"),
                _ => "unknown".to_owned(),
            }
        );
    }
}

fn idle_clock_events(checks: &mut Vec<ValidationCheck>, i: usize, g: &SmiGpu) {
    if g.under_load() == Some(true) {
        return;
    }
    let Some(r) = g.clock_event_reasons else { return };
    let names = r.names();
    let measured =
        format!("{} ({})", if names.is_empty() { "none".to_owned() } else { names.join(", ") }, load_words(g));
    let faults = r.bits() & FAULT_MASK;
    let (grade, reason) = if faults != 0 {
        (
            Grade::Fail,
            format!(
                "{} active (0x{faults:x}) even without load: a hardware or thermal slowdown (DCGM failure mask); an external power-brake signal, overheating or the power supply holds the clocks down",
                ClockEventReasons(faults).names().join(", ")
            ),
        )
    } else if r.bits() & SW_POWER_CAP != 0 {
        (Grade::Info, "software power cap in an idle snapshot: clocks held by the power limit; nothing here says how the GPU behaves under load".to_owned())
    } else if r.bits() & GPU_IDLE != 0 || r.bits() == 0 {
        (
            Grade::Info,
            "no slowdown reason in the snapshot, but it was taken without load: throttling under load was not observed"
                .to_owned(),
        )
    } else {
        (
            Grade::Info,
            "no fault reason in the snapshot; taken without load, so throttling under load was not observed".to_owned(),
        )
    };
    checks.push(ValidationCheck {
        check: "clock-events".into(),
        gpu: Some(i),
        grade,
        expected: "no slowdown".into(),
        measured,
        reason,
    });
}

fn dump_health(checks: &mut Vec<ValidationCheck>, i: usize, g: &SmiGpu) {
    let mut push = |check: &str, grade: Grade, expected: &str, measured: String, reason: String| {
        checks.push(ValidationCheck {
            check: check.into(),
            gpu: Some(i),
            grade,
            expected: expected.into(),
            measured,
            reason,
        });
    };
    let rows =
        (g.remapped_rows_correctable, g.remapped_rows_uncorrectable, g.remapped_rows_pending, g.remapped_rows_failure);
    if rows != (None, None, None, None) {
        let unc = g.remapped_rows_uncorrectable.unwrap_or(0);
        let measured = format!(
            "{} correctable, {} uncorrectable{}{}",
            g.remapped_rows_correctable.map_or_else(|| "unknown".into(), |x| x.to_string()),
            g.remapped_rows_uncorrectable.map_or_else(|| "unknown".into(), |x| x.to_string()),
            if g.remapped_rows_pending == Some(true) { ", remap pending" } else { "" },
            if g.remapped_rows_failure == Some(true) { ", remapping failure" } else { "" },
        );
        let (grade, reason) = if g.remapped_rows_failure == Some(true) {
            (
                Grade::Fail,
                "a row remapping failed: the memory has no spare rows left for its errors (NVIDIA: RMA the GPU)"
                    .to_owned(),
            )
        } else if g.remapped_rows_pending == Some(true) {
            (
                Grade::Warn,
                "a row remap is pending: reset the GPU (or reboot) to apply it, then watch the counters".to_owned(),
            )
        } else if unc > 0 {
            (Grade::Warn, format!("{unc} row(s) remapped for uncorrectable errors over the GPU's life"))
        } else {
            (Grade::Pass, "no row remapped for an uncorrectable error, none pending, no failure".to_owned())
        };
        push("remapped-rows", grade, "no failure, none pending", measured, reason);
    }
    if let Some(on) = g.ecc_enabled {
        let pending = g.ecc_pending_enabled.filter(|p| *p != on);
        let measured = format!(
            "{}{}",
            if on { "enabled" } else { "disabled" },
            pending.map_or(String::new(), |p| format!(
                " ({} after the next reboot)",
                if p { "enabled" } else { "disabled" }
            ))
        );
        let (grade, reason) = if on {
            (Grade::Pass, "ECC on: memory errors are corrected or reported".to_owned())
        } else {
            (Grade::Info, "ECC supported but off: memory errors go undetected (enable with nvidia-smi -e 1 and a reboot if the workload needs it)".to_owned())
        };
        push("ecc-mode", grade, "enabled (where supported)", measured, reason);
    }
    if let Some(p) = g.persistence_mode {
        let (grade, reason) = if p {
            (Grade::Pass, "the driver stays loaded between jobs".to_owned())
        } else {
            (Grade::Info, "persistence mode off: the driver loads again for each job (slower start, settings such as -pl can reset); nvidia-smi -pm 1 or nvidia-persistenced".to_owned())
        };
        push("persistence-mode", grade, "enabled", if p { "enabled".into() } else { "disabled".into() }, reason);
    }
}

/// `gpu-count` from `Attached GPUs` when the dump shows fewer GPU sections than the driver sees.
fn attached_count(checks: &mut [ValidationCheck], build: &Build, catalog: &Catalog, dump: &SmiDump) {
    let Some(attached) = dump.attached_gpus.and_then(|a| usize::try_from(a).ok()) else { return };
    if attached == dump.gpus.len() || dump.gpus.is_empty() {
        return;
    }
    let planned = build.resolve(catalog).gpus.iter().flatten().count();
    let Some(c) = checks.iter_mut().find(|c| c.check == "gpu-count") else { return };
    c.grade = match attached.cmp(&planned) {
        std::cmp::Ordering::Equal => Grade::Pass,
        std::cmp::Ordering::Less => Grade::Fail,
        std::cmp::Ordering::Greater => Grade::Warn,
    };
    c.measured = format!("{attached} GPU(s) attached ({} shown in the dump)", dump.gpus.len());
    c.reason = format!(
        "Attached GPUs says {attached}; the dump shows {} GPU section(s) (made with -i?), so only those are checked",
        dump.gpus.len()
    );
}

/// A `topo -m` without `-q`: no product names (the model is not checked) and NVLink by
/// position.
fn topo_only(checks: &mut Vec<ValidationCheck>, build: &Build, catalog: &Catalog, dump: &SmiDump) {
    let Some(t) = &dump.topology else { return };
    for c in checks.iter_mut().filter(|c| c.check == "gpu-model" && c.grade == Grade::Fail) {
        c.grade = Grade::Info;
        c.measured = "unknown (topo -m has no product names)".into();
        c.reason = "not checked: nvidia-smi topo -m shows no product names; add the -q output to the same file".into();
    }
    let topo = t.topology();
    for p in expectations_from_build(build, catalog).pairs.iter().filter(|p| p.nvlink) {
        let (grade, measured, why) = match topo.connection(p.gpu_a, p.gpu_b) {
            Some(Connection::NvLink { links }) => (
                Grade::Pass,
                format!("NV{links}"),
                format!("{links} NVLink links between GPU{} and GPU{} of topo -m", p.gpu_a, p.gpu_b),
            ),
            Some(Connection::Pcie { ancestor }) => (
                Grade::Fail,
                format!("no NVLink ({})", ancestor.smi_code()),
                format!(
                    "NVLink expected ({}) but topo -m shows GPU{} and GPU{} connected by {} ({}): bridge missing or links down",
                    p.link.describe(),
                    p.gpu_a,
                    p.gpu_b,
                    ancestor.smi_code(),
                    ancestor.describe()
                ),
            ),
            Some(Connection::Unknown) | None => (
                Grade::Warn,
                "unknown".into(),
                "NVLink expected but topo -m names no known connection for this pair".into(),
            ),
        };
        checks.push(ValidationCheck {
            check: "nvlink-active".into(),
            gpu: Some(p.gpu_a),
            grade,
            expected: format!("NVLink GPU {} ↔ GPU {}", p.gpu_a + 1, p.gpu_b + 1),
            measured,
            reason: format!("{why} (topo -m alone: the build's GPU k is taken to be GPUk)"),
        });
    }
}

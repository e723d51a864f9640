//! Grading the links: pure functions from a [`LinksReport`] and [`Expectations`] to graded
//! checks. Nothing here touches a device, so recorded reports grade exactly like live ones.
//!
//! Figures (thresholds and the bandwidth rule: [`crate::grading`]):
//! - NVLink: H100/H200 SXM P2P copies reach about 376 GB/s one way, of the 450 GB/s per
//!   direction of 18 NVLink 4 links (NVIDIA H100/H200 datasheets: 900 GB/s per GPU, both
//!   directions). The same share, [`NVLINK_COPY_EFFICIENCY`], is applied to every NVLink figure
//!   of the catalog (per-GPU SXM bandwidth, or a bridge's pair bandwidth, both directions).
//! - PCIe: Gen4 x16 P2P at 22-26 GB/s is good, of 31.5 GB/s theory per direction; the middle,
//!   24 GB/s, gives [`PCIE_P2P_EFFICIENCY`], applied to the pair's slower link
//!   ([`kraftwerk_core::rig::links::lane_gb_s`] × lanes).
//! - Below [`BANDWIDTH_WARN_BELOW`] (80 %) of the expected figure: warn.
//! - GeForce cards (RTX 4090, 5090, …) have no P2P on stock drivers: reported as info.
//! - All-reduce: any wrong element fails (nccl-tests' `#wrong`); the bus bandwidth of the
//!   largest size (from [`BUSBW_GRADED_FROM_BYTES`]) is compared with the slowest expected
//!   one-way link figure, which is what busbw measures (nccl-tests `doc/PERFORMANCE.md`: busbw
//!   is comparable to the hardware's peak bandwidth of one direction).

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink, NVSwitch and NCCL are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::{LinkGpu, LinksReport, Section};
pub use crate::grading::{BANDWIDTH_WARN_BELOW, Grade, grade_bandwidth};
use crate::nvml::topology::{Connection, Topology};
use crate::probe::match_catalog_gpu;
use kraftwerk_catalog::{Catalog, Gpu, NvLink};
use kraftwerk_core::rig::Build;
use kraftwerk_core::rig::links::{gpu_links, lane_gb_s};
use serde::{Deserialize, Serialize};

/// Share of NVLink's per-direction bandwidth a one-way P2P copy reaches: 376 / 450 (H100 SXM
/// `p2pBandwidthLatencyTest`, NVIDIA cuda-samples).
pub const NVLINK_COPY_EFFICIENCY: f64 = 376.0 / 450.0;

/// Share of PCIe's per-direction bandwidth a P2P copy reaches: 24 / 31.5 (Gen4 x16 22-26 GB/s
/// good, NVIDIA cuda-samples `p2pBandwidthLatencyTest` reports).
pub const PCIE_P2P_EFFICIENCY: f64 = 24.0 / 31.5;

/// All-reduce sizes from which busbw is graded, bytes (256 MiB): smaller messages are latency
/// bound and never reach the link's bandwidth.
pub(crate) const BUSBW_GRADED_FROM_BYTES: u64 = 256 << 20;

/// The link a pair of GPUs should have.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ExpectedLink {
    /// SXM modules on an NVSwitch baseboard.
    NvlinkSxm {
        /// NVLink bandwidth per GPU, both directions, GB/s (catalog; H200 SXM 900).
        per_gpu_gb_s: f64,
    },
    /// An NVLink bridge between two cards.
    NvlinkBridge {
        /// The bridged pair's bandwidth, both directions, GB/s (catalog; RTX A6000 112.5).
        pair_gb_s: f64,
    },
    /// PCIe: the slower of the two GPUs' links.
    Pcie {
        /// Generation.
        pcie_gen: u8,
        /// Lanes.
        lanes: u8,
    },
    /// Not known (unknown parts, no link data).
    Unknown,
}

impl ExpectedLink {
    /// Whether this is an NVLink.
    pub(crate) fn is_nvlink(self) -> bool {
        matches!(self, Self::NvlinkSxm { .. } | Self::NvlinkBridge { .. })
    }

    /// Theoretical bandwidth per direction, GB/s.
    pub fn per_direction_gb_s(self) -> Option<f64> {
        match self {
            Self::NvlinkSxm { per_gpu_gb_s } => Some(per_gpu_gb_s / 2.0),
            Self::NvlinkBridge { pair_gb_s } => Some(pair_gb_s / 2.0),
            Self::Pcie { pcie_gen, lanes } => Some(lane_gb_s(pcie_gen) * f64::from(lanes)),
            Self::Unknown => None,
        }
    }

    /// What a good one-way P2P copy reaches, GB/s (theory × the measured share).
    pub fn one_way_gb_s(self) -> Option<f64> {
        let share = if self.is_nvlink() { NVLINK_COPY_EFFICIENCY } else { PCIE_P2P_EFFICIENCY };
        self.per_direction_gb_s().map(|t| t * share)
    }

    /// Words for people, with the numbers.
    pub fn describe(self) -> String {
        match self {
            Self::NvlinkSxm { per_gpu_gb_s } => format!(
                "NVLink through NVSwitch, {per_gpu_gb_s:.0} GB/s per GPU ({:.0} each way; copies reach {:.1} %)",
                per_gpu_gb_s / 2.0,
                NVLINK_COPY_EFFICIENCY * 100.0
            ),
            Self::NvlinkBridge { pair_gb_s } => format!(
                "NVLink bridge, {pair_gb_s:.1} GB/s per pair ({:.1} each way; copies reach {:.1} %)",
                pair_gb_s / 2.0,
                NVLINK_COPY_EFFICIENCY * 100.0
            ),
            Self::Pcie { pcie_gen, lanes } => format!(
                "PCIe Gen{pcie_gen} x{lanes}, {:.1} GB/s each way (P2P copies reach {:.1} %)",
                lane_gb_s(pcie_gen) * f64::from(lanes),
                PCIE_P2P_EFFICIENCY * 100.0
            ),
            Self::Unknown => "unknown link".to_owned(),
        }
    }
}

/// What one pair of GPUs should do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairExpectation {
    /// First GPU (position; `gpu_a < gpu_b`).
    pub gpu_a: usize,
    /// Second GPU.
    pub gpu_b: usize,
    /// The link.
    pub link: ExpectedLink,
    /// NVLink must be active.
    pub nvlink: bool,
    /// Peer access should be possible (false for GeForce cards over PCIe).
    pub p2p: bool,
    /// Expected one-way P2P copy bandwidth, GB/s; `None` = not graded.
    pub one_way_gb_s: Option<f64>,
    /// Where the expectation comes from.
    pub basis: String,
}

/// What the links are graded against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expectations {
    /// `build "NAME"` or `live GPUs matched to the catalog`.
    pub source: String,
    /// GPUs the build has (`None` = not from a build).
    pub gpu_count: Option<usize>,
    /// Every pair, `gpu_a < gpu_b`, sorted.
    pub pairs: Vec<PairExpectation>,
}

impl Expectations {
    /// The pair `a`, `b` in either order.
    pub fn pair(&self, a: usize, b: usize) -> Option<&PairExpectation> {
        let (lo, hi) = (a.min(b), a.max(b));
        self.pairs.iter().find(|p| p.gpu_a == lo && p.gpu_b == hi)
    }
}

/// The link between two catalog GPUs given whether a bridge joins them, else PCIe from `pcie`.
fn catalog_link(a: &Gpu, b: &Gpu, bridged: bool, pcie: Option<(u8, u8)>) -> ExpectedLink {
    match (&a.nvlink, &b.nvlink) {
        (NvLink::Sxm { bandwidth_gb_s: x }, NvLink::Sxm { bandwidth_gb_s: y }) => {
            ExpectedLink::NvlinkSxm { per_gpu_gb_s: x.min(*y) }
        }
        (NvLink::Bridge { bandwidth_gb_s: x, .. }, NvLink::Bridge { bandwidth_gb_s: y, .. }) if bridged => {
            ExpectedLink::NvlinkBridge { pair_gb_s: x.min(*y) }
        }
        _ => pcie.map_or(ExpectedLink::Unknown, |(pcie_gen, lanes)| ExpectedLink::Pcie { pcie_gen, lanes }),
    }
}

fn pair_expectation(a: usize, b: usize, link: ExpectedLink, geforce: bool, basis: String) -> PairExpectation {
    let nvlink = link.is_nvlink();
    let p2p = nvlink || !geforce;
    PairExpectation {
        gpu_a: a,
        gpu_b: b,
        link,
        nvlink,
        p2p,
        one_way_gb_s: if p2p { link.one_way_gb_s() } else { None },
        basis,
    }
}

/// What a build's GPUs should show: NVLink for SXM pairs and bridged pairs, else PCIe with the
/// links of the build's slots ([`gpu_links`]). Build GPU `i` is the `i`-th GPU of the report
/// (CUDA order, which is PCI bus order for identical GPUs).
pub fn expectations_from_build(build: &Build, catalog: &Catalog) -> Expectations {
    let r = build.resolve(catalog);
    let links = gpu_links(&r);
    let pcie = |i: usize| links.iter().find(|l| l.gpu == i).map(|l| (l.pcie_gen, l.lanes));
    let mut pairs = Vec::new();
    for a in 0..r.gpus.len() {
        for b in a + 1..r.gpus.len() {
            let bridged = build.nvlink.iter().any(|x| x.gpus == (a, b) || x.gpus == (b, a));
            let (Some(ga), Some(gb)) = (r.gpus[a], r.gpus[b]) else {
                pairs.push(pair_expectation(
                    a,
                    b,
                    ExpectedLink::Unknown,
                    false,
                    "unknown GPU id in the build".to_owned(),
                ));
                continue;
            };
            let link_pcie = match (pcie(a), pcie(b)) {
                (Some((g1, l1)), Some((g2, l2))) => Some((g1.min(g2), l1.min(l2))),
                _ => None,
            };
            let link = catalog_link(ga, gb, bridged, link_pcie);
            let geforce = ga.is_geforce() || gb.is_geforce();
            let mut basis = format!("build: {} + {}: {}", ga.name, gb.name, link.describe());
            if geforce && !link.is_nvlink() {
                basis.push_str("; GeForce cards have no P2P on stock drivers");
            }
            pairs.push(pair_expectation(a, b, link, geforce, basis));
        }
    }
    Expectations { source: format!("build \"{}\"", build.name), gpu_count: Some(build.gpus.len()), pairs }
}

/// What the live GPUs should show when there is no build: each GPU matched to the catalog by
/// name (and highest power limit); NVLink expected between SXM modules; otherwise the observed
/// link sets the figure (an active NVLink with the catalog's bridge figure, or PCIe at the
/// slower GPU's maximum generation and width).
pub fn expectations_from_live(gpus: &[LinkGpu], topology: &Topology, catalog: Option<&Catalog>) -> Expectations {
    let matched: Vec<Option<&Gpu>> = gpus
        .iter()
        .map(|g| catalog.and_then(|c| match_catalog_gpu(c, &g.name, g.power_limit_max_w).ok().flatten()))
        .collect();
    let mut pairs = Vec::new();
    for a in 0..gpus.len() {
        for b in a + 1..gpus.len() {
            let conn = topology.connection(a, b);
            let live_nvlink = conn.is_some_and(Connection::is_nvlink);
            let pcie = if let (Some(g1), Some(g2), Some(w1), Some(w2)) =
                (gpus[a].pcie_gen_max, gpus[b].pcie_gen_max, gpus[a].pcie_width_max, gpus[b].pcie_width_max)
            {
                Some((u8::try_from(g1.min(g2)).unwrap_or(u8::MAX), u8::try_from(w1.min(w2)).unwrap_or(u8::MAX)))
            } else {
                None
            };
            let (link, basis) = if let (Some(ga), Some(gb)) = (matched[a], matched[b]) {
                let link = catalog_link(ga, gb, live_nvlink, pcie);
                (link, format!("catalog: {} + {}: {}", ga.name, gb.name, link.describe()))
            } else {
                let link = if live_nvlink {
                    ExpectedLink::Unknown
                } else {
                    pcie.map_or(ExpectedLink::Unknown, |(pcie_gen, lanes)| ExpectedLink::Pcie { pcie_gen, lanes })
                };
                (link, format!("GPUs not in the catalog; {}", link.describe()))
            };
            // Only SXM pairs must have NVLink; a bridge found live sets the figure, but its
            // absence is not a fault without a build that says it is there.
            let must_nvlink = matches!(link, ExpectedLink::NvlinkSxm { .. });
            let geforce = gpus[a].name.contains("GeForce") || gpus[b].name.contains("GeForce");
            let mut e = pair_expectation(a, b, link, geforce && !live_nvlink, basis);
            e.nvlink = must_nvlink;
            e.p2p = e.p2p || live_nvlink;
            pairs.push(e);
        }
    }
    Expectations { source: "live GPUs matched to the catalog".to_owned(), gpu_count: None, pairs }
}

/// One graded check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkCheck {
    /// Stable id: `gpu-count`, `nvlink-active`, `p2p-access`, `p2p-bandwidth`, `p2p-two-way`,
    /// `p2p-error`, `all-reduce-correct`, `all-reduce-busbw`, `not-measured`, `links-error`.
    pub check: String,
    /// GPUs concerned (positions; `[from, to]` for directed checks).
    pub gpus: Vec<usize>,
    /// Grade.
    pub grade: Grade,
    /// The measured number (GB/s for bandwidths, elements for `all-reduce-correct`).
    pub measured: Option<f64>,
    /// What it was compared with (same unit).
    pub expected: Option<f64>,
    /// Why, with numbers.
    pub message: String,
}

impl LinkCheck {
    fn new(check: &str, gpus: Vec<usize>, grade: Grade, message: String) -> Self {
        Self { check: check.to_owned(), gpus, grade, measured: None, expected: None, message }
    }

    fn numbers(mut self, measured: f64, expected: Option<f64>) -> Self {
        self.measured = Some(measured);
        self.expected = expected;
        self
    }
}

fn bandwidth_message(what: &str, measured: f64, expected: Option<f64>, basis: &str) -> String {
    match expected.filter(|e| *e > 0.0) {
        Some(e) => format!(
            "{what} {measured:.1} GB/s = {:.0} % of the expected {e:.1} GB/s ({basis}; warn under {:.0} %)",
            100.0 * measured / e,
            BANDWIDTH_WARN_BELOW * 100.0
        ),
        None => format!("{what} {measured:.1} GB/s (no expected figure: {basis})"),
    }
}

/// Every check of `report` against `exp`.
pub fn grade(report: &LinksReport, exp: &Expectations) -> Vec<LinkCheck> {
    let mut out = Vec::new();
    let n = report.gpus.len();
    if let Some(want) = exp.gpu_count {
        out.push(match n.cmp(&want) {
            _ if n == 0 => LinkCheck::new(
                "gpu-count",
                Vec::new(),
                Grade::Info,
                format!("no GPU visible ({}); nothing to compare with the {want} GPU(s) of the build", report.nvml),
            ),
            std::cmp::Ordering::Less => LinkCheck::new(
                "gpu-count",
                Vec::new(),
                Grade::Fail,
                format!("{n} GPU(s) found; the {} has {want}: a GPU is missing", exp.source),
            ),
            std::cmp::Ordering::Greater => LinkCheck::new(
                "gpu-count",
                Vec::new(),
                Grade::Info,
                format!("{n} GPU(s) found; the {} has {want}: only its first {want} are graded", exp.source),
            ),
            std::cmp::Ordering::Equal => {
                LinkCheck::new("gpu-count", Vec::new(), Grade::Pass, format!("{n} GPU(s), as the {} says", exp.source))
            }
        });
    }
    for pair in exp.pairs.iter().filter(|p| p.gpu_b < n) {
        grade_nvlink(report, pair, &mut out);
    }
    match &report.p2p {
        Section::Measured(m) => {
            for pair in exp.pairs.iter().filter(|p| p.gpu_b < n) {
                for (from, to) in [(pair.gpu_a, pair.gpu_b), (pair.gpu_b, pair.gpu_a)] {
                    if let Some(link) = m.link(from, to) {
                        grade_p2p(pair, link, from < to, &mut out);
                    }
                }
            }
        }
        Section::NotAvailable { reason } if !reason.starts_with("failed") && n > 0 => {
            out.push(LinkCheck::new(
                "not-measured",
                Vec::new(),
                Grade::Info,
                format!("P2P copies not measured: {reason}"),
            ));
        }
        Section::NotAvailable { .. } => {}
    }
    match &report.all_reduce {
        Section::Measured(t) => grade_all_reduce(t, exp, n, &mut out),
        Section::NotAvailable { reason } if !reason.starts_with("failed") && n > 0 => {
            out.push(LinkCheck::new("not-measured", Vec::new(), Grade::Info, format!("all-reduce not run: {reason}")));
        }
        Section::NotAvailable { .. } => {}
    }
    for e in &report.errors {
        out.push(LinkCheck::new("links-error", Vec::new(), Grade::Fail, e.clone()));
    }
    out
}

fn grade_nvlink(report: &LinksReport, pair: &PairExpectation, out: &mut Vec<LinkCheck>) {
    let (a, b) = (pair.gpu_a, pair.gpu_b);
    let conn = report.topology.connection(a, b);
    let check = match (pair.nvlink, conn) {
        (true, Some(Connection::NvLink { links })) => LinkCheck::new(
            "nvlink-active",
            vec![a, b],
            Grade::Pass,
            format!("GPU {a} ↔ GPU {b}: NVLink active, {links} links (NV{links}), as expected ({})", pair.basis),
        )
        .numbers(f64::from(links), None),
        (true, Some(Connection::Pcie { ancestor })) => LinkCheck::new(
            "nvlink-active",
            vec![a, b],
            Grade::Fail,
            format!(
                "GPU {a} ↔ GPU {b}: NVLink expected ({}) but no NVLink is active; they connect over PCIe ({}, {})",
                pair.basis,
                ancestor.smi_code(),
                ancestor.describe()
            ),
        )
        .numbers(0.0, None),
        (true, Some(Connection::Unknown) | None) => LinkCheck::new(
            "nvlink-active",
            vec![a, b],
            Grade::Warn,
            format!("GPU {a} ↔ GPU {b}: NVLink expected ({}) but NVML reported no link states", pair.basis),
        ),
        (false, Some(Connection::NvLink { links })) => LinkCheck::new(
            "nvlink-active",
            vec![a, b],
            Grade::Info,
            format!("GPU {a} ↔ GPU {b}: NVLink active, {links} links (NV{links}); none expected"),
        )
        .numbers(f64::from(links), None),
        (false, _) => return,
    };
    out.push(check);
}

fn grade_p2p(pair: &PairExpectation, link: &super::PeerLink, grade_two_way: bool, out: &mut Vec<LinkCheck>) {
    let (from, to) = (link.from, link.to);
    let dir = format!("GPU {from} → GPU {to}");
    let access = match (link.can_access_peer, link.peer_access_enabled) {
        (Some(true), true) => {
            LinkCheck::new("p2p-access", vec![from, to], Grade::Pass, format!("{dir}: peer access on"))
        }
        (Some(true), false) => LinkCheck::new(
            "p2p-access",
            vec![from, to],
            Grade::Warn,
            format!("{dir}: the driver allows peer access but it could not be enabled; copies go through host memory"),
        ),
        (Some(false), _) if !pair.p2p => LinkCheck::new(
            "p2p-access",
            vec![from, to],
            Grade::Info,
            format!(
                "{dir}: no P2P, as expected (GeForce cards have none on stock drivers); copies go through host memory"
            ),
        ),
        (Some(false), _) => LinkCheck::new(
            "p2p-access",
            vec![from, to],
            if pair.nvlink { Grade::Fail } else { Grade::Warn },
            format!(
                "{dir}: no P2P although {}; copies go through host memory (IOMMU/ACS settings, a VM, or a driver that blocks it)",
                pair.basis
            ),
        ),
        (None, _) => {
            LinkCheck::new("p2p-access", vec![from, to], Grade::Warn, format!("{dir}: cuDeviceCanAccessPeer failed"))
        }
    };
    out.push(access);
    if let Some(e) = &link.error {
        out.push(LinkCheck::new("p2p-error", vec![from, to], Grade::Fail, format!("{dir}: {e}")));
    }
    let direct = link.can_access_peer == Some(true) && link.peer_access_enabled;
    let expected = if direct { pair.one_way_gb_s } else { None };
    let basis = if direct { pair.basis.clone() } else { "no P2P: staged through host memory".to_owned() };
    if let Some(s) = link.one_way_gb_s {
        let g = grade_bandwidth(s.median, expected);
        out.push(
            LinkCheck::new(
                "p2p-bandwidth",
                vec![from, to],
                g,
                bandwidth_message(&format!("{dir}: one way"), s.median, expected, &basis),
            )
            .numbers(s.median, expected),
        );
    }
    if let (true, Some(s)) = (grade_two_way, link.two_way_gb_s) {
        let expected = expected.map(|e| 2.0 * e);
        let g = grade_bandwidth(s.median, expected);
        let what = format!("GPU {from} ↔ GPU {to}: both ways together");
        let basis = format!("2 × one way; {basis}");
        out.push(
            LinkCheck::new("p2p-two-way", vec![from, to], g, bandwidth_message(&what, s.median, expected, &basis))
                .numbers(s.median, expected),
        );
    }
}

fn grade_all_reduce(t: &super::AllReduceTable, exp: &Expectations, n: usize, out: &mut Vec<LinkCheck>) {
    let ranks: Vec<usize> = (0..t.ranks).collect();
    let wrong = t.wrong();
    out.push(if wrong == 0 {
        LinkCheck::new(
            "all-reduce-correct",
            ranks.clone(),
            Grade::Pass,
            format!("all {} sizes gave the exact sum on every rank", t.rows.len()),
        )
        .numbers(0.0, Some(0.0))
    } else {
        LinkCheck::new(
            "all-reduce-correct",
            ranks.clone(),
            Grade::Fail,
            format!("{wrong} element(s) differ from the known sum: a link or GPU corrupts data"),
        )
        .numbers(wrong as f64, Some(0.0))
    });
    let Some(row) = t.largest() else { return };
    let slowest = exp
        .pairs
        .iter()
        .filter(|p| p.gpu_b < n.min(t.ranks))
        .map(|p| p.one_way_gb_s)
        .collect::<Option<Vec<f64>>>()
        .and_then(|v| v.into_iter().min_by(f64::total_cmp));
    let size = format!("{} MiB", row.bytes >> 20);
    if row.bytes < BUSBW_GRADED_FROM_BYTES {
        out.push(
            LinkCheck::new(
                "all-reduce-busbw",
                ranks,
                Grade::Info,
                format!("busbw {:.1} GB/s at {size} (sizes under 256 MiB are not graded)", row.busbw_gb_s),
            )
            .numbers(row.busbw_gb_s, None),
        );
        return;
    }
    let g = grade_bandwidth(row.busbw_gb_s, slowest);
    let msg = bandwidth_message(
        &format!("all-reduce busbw at {size}:"),
        row.busbw_gb_s,
        slowest,
        "the slowest link's expected one-way figure",
    );
    out.push(LinkCheck::new("all-reduce-busbw", ranks, g, msg).numbers(row.busbw_gb_s, slowest));
}

/// The worst grade (pass when there are no checks).
pub fn overall(checks: &[LinkCheck]) -> Grade {
    checks.iter().map(|c| c.grade).max().unwrap_or(Grade::Pass)
}

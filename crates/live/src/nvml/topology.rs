//! How each pair of GPUs is connected, in the classes of `nvidia-smi topo -m`.
//!
//! Classes (from `nvidia-smi topo -m`'s legend, best first): `NV#` (bonded set of # NVLinks),
//! `PIX` (at most one PCIe bridge), `PXB` (several PCIe bridges, no host bridge), `PHB` (a PCIe
//! host bridge), `NODE` (host bridges within one NUMA node), `SYS` (across NUMA nodes / SMP
//! interconnect).
//!
//! NVLink is derived from the NVLink link states, which win over the PCIe common ancestor: on
//! the H200 test machine `nvmlDeviceGetTopologyCommonAncestor` says `HostBridge` for two GPUs
//! that `nvidia-smi topo -m` shows as `NV18` (`tests/fixtures/h200-2gpu-idle.kwrec.json`).

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::GpuStatic;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The closest common PCIe ancestor of two GPUs (`nvmlGpuTopologyLevel_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PcieAncestor {
    /// Same board (`NVML_TOPOLOGY_INTERNAL`, e.g. a dual-GPU card); shown as `PIX`.
    Internal,
    /// One PCIe switch (`NVML_TOPOLOGY_SINGLE`): `PIX`.
    Single,
    /// Several PCIe switches, no host bridge (`NVML_TOPOLOGY_MULTIPLE`): `PXB`.
    Multiple,
    /// The same PCIe host bridge (`NVML_TOPOLOGY_HOSTBRIDGE`): `PHB`.
    HostBridge,
    /// Host bridges within one NUMA node (`NVML_TOPOLOGY_NODE`): `NODE`.
    Node,
    /// Across NUMA nodes (`NVML_TOPOLOGY_SYSTEM`): `SYS`.
    System,
}

impl PcieAncestor {
    /// The `nvidia-smi topo -m` code: `PIX`, `PXB`, `PHB`, `NODE`, `SYS`.
    pub fn smi_code(self) -> &'static str {
        match self {
            PcieAncestor::Internal | PcieAncestor::Single => "PIX",
            PcieAncestor::Multiple => "PXB",
            PcieAncestor::HostBridge => "PHB",
            PcieAncestor::Node => "NODE",
            PcieAncestor::System => "SYS",
        }
    }

    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            PcieAncestor::Internal => "same board",
            PcieAncestor::Single => "one PCIe switch",
            PcieAncestor::Multiple => "several PCIe switches",
            PcieAncestor::HostBridge => "a PCIe host bridge",
            PcieAncestor::Node => "host bridges in one NUMA node",
            PcieAncestor::System => "across NUMA nodes",
        }
    }
}

/// How two GPUs talk to each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Connection {
    /// NVLink with this many links (directly or through NVSwitch): `NV#`.
    #[serde(rename = "nvlink")]
    NvLink {
        /// Active links between the pair.
        links: u32,
    },
    /// PCIe only, through this common ancestor.
    Pcie {
        /// Closest common ancestor.
        ancestor: PcieAncestor,
    },
    /// Neither NVLink states nor the common ancestor could be read.
    Unknown,
}

impl Connection {
    /// The `nvidia-smi topo -m` cell: `NV18`, `PIX`, `PXB`, `PHB`, `NODE`, `SYS`, `?`.
    pub fn smi_code(self) -> String {
        match self {
            Connection::NvLink { links } => format!("NV{links}"),
            Connection::Pcie { ancestor } => ancestor.smi_code().to_owned(),
            Connection::Unknown => "?".to_owned(),
        }
    }

    /// True for NVLink.
    pub(crate) fn is_nvlink(self) -> bool {
        matches!(self, Connection::NvLink { .. })
    }
}

impl fmt::Display for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.smi_code())
    }
}

/// NVML's peer-to-peer capability answers for one pair (`nvmlDeviceGetP2PStatus`), as the
/// wrapper's `P2pStatus` names them (`Ok`, `ChipsetNotSupported`, `GpuNotSupported`,
/// `IohTopologyNotSupported`, `DisabledByRegkey`, `NotSupported`, `Unknown`); `None` = the query
/// failed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct P2pStatus {
    /// P2P read.
    #[serde(default)]
    pub read: Option<String>,
    /// P2P write.
    #[serde(default)]
    pub write: Option<String>,
    /// P2P over NVLink.
    #[serde(default)]
    pub nvlink: Option<String>,
    /// P2P atomics.
    #[serde(default)]
    pub atomics: Option<String>,
}

/// One pair of GPUs (positions in the GPU list, `gpu_a < gpu_b`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuPair {
    /// Position of the first GPU in the GPU list (NVML index order).
    pub gpu_a: usize,
    /// Position of the second GPU.
    pub gpu_b: usize,
    /// `nvmlDeviceGetTopologyCommonAncestor`; `None` = unsupported or failed.
    #[serde(default)]
    pub common_ancestor: Option<PcieAncestor>,
    /// The connection: NVLink from link states when any, else the common ancestor.
    pub connection: Connection,
    /// Peer-to-peer capabilities.
    #[serde(default)]
    pub p2p: P2pStatus,
}

/// Every pair of GPUs.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Topology {
    /// Pairs with `gpu_a < gpu_b`, sorted.
    pub pairs: Vec<GpuPair>,
}

impl Topology {
    /// Builds the topology from static facts and the per-pair NVML answers.
    ///
    /// `ancestor(a, b)` and `p2p(a, b)` are asked once per pair with `a < b`.
    pub fn derive(
        gpus: &[GpuStatic],
        mut ancestor: impl FnMut(usize, usize) -> Option<PcieAncestor>,
        mut p2p: impl FnMut(usize, usize) -> P2pStatus,
    ) -> Topology {
        let mut pairs = Vec::new();
        for a in 0..gpus.len() {
            for b in a + 1..gpus.len() {
                let common_ancestor = ancestor(a, b);
                pairs.push(GpuPair {
                    gpu_a: a,
                    gpu_b: b,
                    common_ancestor,
                    connection: connection_between(gpus, a, b, common_ancestor),
                    p2p: p2p(a, b),
                });
            }
        }
        Topology { pairs }
    }

    /// The pair of positions `a` and `b` in either order.
    pub fn pair(&self, a: usize, b: usize) -> Option<&GpuPair> {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        self.pairs.iter().find(|p| p.gpu_a == lo && p.gpu_b == hi)
    }

    /// The connection between positions `a` and `b`; `None` for `a == b` or an unknown pair.
    pub fn connection(&self, a: usize, b: usize) -> Option<Connection> {
        self.pair(a, b).map(|p| p.connection)
    }

    /// The `nvidia-smi topo -m` matrix for `n` GPUs: `X` on the diagonal, `?` for missing pairs.
    pub fn matrix(&self, n: usize) -> Vec<Vec<String>> {
        (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| {
                        if a == b {
                            "X".to_owned()
                        } else {
                            self.connection(a, b).map_or_else(|| "?".to_owned(), Connection::smi_code)
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// Normalises a PCI bus id for comparison: upper case, 8-digit domain
/// (`0000:07:00.0` and `00000000:07:00.0` compare equal).
pub fn normalize_bus_id(bus_id: &str) -> String {
    let up = bus_id.trim().to_ascii_uppercase();
    match up.split_once(':') {
        Some((domain, rest)) if domain.len() < 8 && rest.contains(':') => {
            format!("{domain:0>8}:{rest}")
        }
        _ => up,
    }
}

/// Active NVLinks between GPUs `a` and `b` (positions in `gpus`), from the link states.
///
/// Links whose remote PCI bus id is the other GPU count directly (NVLink bridge, direct
/// board links). Links whose remote is not any GPU in `gpus` (an NVSwitch; on the H200 test
/// machine the remote id reads `FFFFFFFF:FF:FF.0`) connect every pair of GPUs that have them:
/// the pair gets the smaller of the two GPUs' switch-link counts, as `nvidia-smi topo -m` shows
/// `NV18` on HGX boards. `None` when neither GPU reports an active link.
pub fn nvlinks_between(gpus: &[GpuStatic], a: usize, b: usize) -> Option<u32> {
    let (ga, gb) = (gpus.get(a)?, gpus.get(b)?);
    let gpu_ids: Vec<String> = gpus.iter().filter_map(|g| g.pci_bus_id.as_deref().map(normalize_bus_id)).collect();
    let direct = |from: &GpuStatic, to: &GpuStatic| -> u32 {
        let Some(to_id) = to.pci_bus_id.as_deref().map(normalize_bus_id) else { return 0 };
        let n = from
            .nvlinks
            .iter()
            .filter(|l| l.active == Some(true))
            .filter(|l| l.remote_pci_bus_id.as_deref().map(normalize_bus_id) == Some(to_id.clone()))
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    let switch_links = |g: &GpuStatic| -> u32 {
        let n = g
            .nvlinks
            .iter()
            .filter(|l| l.active == Some(true))
            .filter(|l| l.remote_pci_bus_id.as_deref().is_none_or(|r| !gpu_ids.contains(&normalize_bus_id(r))))
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    let d = direct(ga, gb).max(direct(gb, ga));
    if d > 0 {
        return Some(d);
    }
    let s = switch_links(ga).min(switch_links(gb));
    (s > 0).then_some(s)
}

/// The connection between GPUs `a` and `b`: NVLink from link states when there is any (it wins
/// over the common ancestor), else PCIe through `common_ancestor`, else unknown.
pub fn connection_between(gpus: &[GpuStatic], a: usize, b: usize, common_ancestor: Option<PcieAncestor>) -> Connection {
    match (nvlinks_between(gpus, a, b), common_ancestor) {
        (Some(links), _) => Connection::NvLink { links },
        (None, Some(ancestor)) => Connection::Pcie { ancestor },
        (None, None) => Connection::Unknown,
    }
}

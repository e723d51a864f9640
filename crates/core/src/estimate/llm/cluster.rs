//! Several identical nodes: the link between them ([`Interconnect`]) and the placement of
//! tensor × pipeline ranks on the nodes' GPUs.
//!
//! A build describes one node; a plan of `nodes` nodes repeats the build's GPU slice, rank
//! `r` sitting on node `r / gpus_per_node`. Tensor-parallel all-reduces stay on the node's
//! own links (NVLink or PCIe) unless a tensor group is wider than a node; pipeline stages hand
//! their activations (`hidden × 2 bytes × tokens`) to the next stage, over the interconnect
//! where the boundary crosses nodes.

#![allow(clippy::doc_markdown, reason = "hardware and format names (InfiniBand, RoCE, NVLink) read better unquoted")]

use super::inputs::{GpuSlot, ParseError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The network between nodes, one port (NIC) per node assumed.
///
/// Rates are the signalling rate of one port: InfiniBand HDR 200 Gb/s and NDR 400 Gb/s per 4x
/// port (InfiniBand Trade Association roadmap); Ethernet
/// and RoCE (RDMA over Converged Ethernet, IBTA RoCEv2 annex) at 10/25/100/200/400 Gb/s (IEEE
/// 802.3ae 10G, 802.3by 25G, 802.3ba 100G, 802.3bs 200/400G). Per direction in GB/s = Gb/s ÷ 8 (full duplex).
///
/// Latencies are judgement, not a published figure: the order of a small NCCL message between
/// two nodes (a few µs with RDMA through one switch; tens of µs through the kernel's TCP stack
/// without RDMA). vLLM issue 6610 (two GH200 nodes, 4 × 200 Gb/s Ethernet) shows what does
/// not change with them: doubling the bandwidth left pipeline-parallel decode unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Interconnect {
    /// InfiniBand NDR, 400 Gb/s per port.
    #[serde(rename = "ib-ndr")]
    IbNdr,
    /// InfiniBand HDR, 200 Gb/s per port.
    #[serde(rename = "ib-hdr")]
    IbHdr,
    /// RoCE v2 over 400 Gb/s Ethernet.
    #[serde(rename = "roce-400")]
    Roce400,
    /// RoCE v2 over 200 Gb/s Ethernet.
    #[serde(rename = "roce-200")]
    Roce200,
    /// RoCE v2 over 100 Gb/s Ethernet.
    #[serde(rename = "roce-100")]
    Roce100,
    /// 400 Gb/s Ethernet without RDMA (NCCL over TCP sockets).
    #[serde(rename = "eth-400")]
    Eth400,
    /// 200 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-200")]
    Eth200,
    /// 100 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-100")]
    Eth100,
    /// 25 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-25")]
    Eth25,
    /// 10 Gb/s Ethernet without RDMA.
    #[serde(rename = "eth-10")]
    Eth10,
}

/// Small-message latency with RDMA (InfiniBand), s (judgement, see [`Interconnect`]).
pub const IB_LATENCY_S: f64 = 5e-6;
/// Small-message latency with RoCE, s (judgement: RDMA through an Ethernet switch).
pub const ROCE_LATENCY_S: f64 = 8e-6;
/// Small-message latency over TCP sockets, s (judgement: kernel network stack both ends).
pub const TCP_LATENCY_S: f64 = 30e-6;

/// Network latencies one small all-reduce pays when its group spans nodes (judgement: NCCL's
/// tree for small messages goes up and down through the NIC and switch, two network hops each
/// way, plus the node-local stages).
pub const INTER_NODE_ALL_REDUCE_HOPS: f64 = 4.0;

impl Interconnect {
    /// Every kind, in menu order.
    pub const ALL: [Interconnect; 10] = [
        Interconnect::IbNdr,
        Interconnect::IbHdr,
        Interconnect::Roce400,
        Interconnect::Roce200,
        Interconnect::Roce100,
        Interconnect::Eth400,
        Interconnect::Eth200,
        Interconnect::Eth100,
        Interconnect::Eth25,
        Interconnect::Eth10,
    ];

    /// Port rate, Gb/s (see the type's sources).
    pub fn rate_gbit_s(self) -> f64 {
        match self {
            Interconnect::IbNdr | Interconnect::Roce400 | Interconnect::Eth400 => 400.0,
            Interconnect::IbHdr | Interconnect::Roce200 | Interconnect::Eth200 => 200.0,
            Interconnect::Roce100 | Interconnect::Eth100 => 100.0,
            Interconnect::Eth25 => 25.0,
            Interconnect::Eth10 => 10.0,
        }
    }

    /// Bandwidth per direction, GB/s (rate ÷ 8: NDR 50, HDR 25, 100 GbE 12.5).
    pub fn per_direction_gb_s(self) -> f64 {
        self.rate_gbit_s() / 8.0
    }

    /// Typical small-message latency, s ([`IB_LATENCY_S`], [`ROCE_LATENCY_S`], [`TCP_LATENCY_S`]).
    pub fn latency_s(self) -> f64 {
        match self {
            Interconnect::IbNdr | Interconnect::IbHdr => IB_LATENCY_S,
            Interconnect::Roce400 | Interconnect::Roce200 | Interconnect::Roce100 => ROCE_LATENCY_S,
            Interconnect::Eth400
            | Interconnect::Eth200
            | Interconnect::Eth100
            | Interconnect::Eth25
            | Interconnect::Eth10 => TCP_LATENCY_S,
        }
    }

    /// Whether it moves data by RDMA (InfiniBand, RoCE).
    pub fn rdma(self) -> bool {
        self.latency_s() < TCP_LATENCY_S
    }
}

impl fmt::Display for Interconnect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interconnect::IbNdr => "ib-ndr",
            Interconnect::IbHdr => "ib-hdr",
            Interconnect::Roce400 => "roce-400",
            Interconnect::Roce200 => "roce-200",
            Interconnect::Roce100 => "roce-100",
            Interconnect::Eth400 => "eth-400",
            Interconnect::Eth200 => "eth-200",
            Interconnect::Eth100 => "eth-100",
            Interconnect::Eth25 => "eth-25",
            Interconnect::Eth10 => "eth-10",
        })
    }
}

impl FromStr for Interconnect {
    type Err = ParseError;
    /// The names of [`fmt::Display`], case-insensitive; `ndr`, `hdr` and `_` for `-` accepted.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase().replace('_', "-");
        let alias = match lower.as_str() {
            "ndr" | "infiniband-ndr" => "ib-ndr",
            "hdr" | "infiniband-hdr" => "ib-hdr",
            other => other,
        };
        Interconnect::ALL.into_iter().find(|i| i.to_string() == alias).ok_or_else(|| {
            let names: Vec<String> = Interconnect::ALL.iter().map(ToString::to_string).collect();
            ParseError(format!("unknown interconnect `{s}` ({})", names.join(", ")))
        })
    }
}

/// The GPUs of `nodes` identical nodes, node after node (`nodes` of 0 counts as 1).
pub fn plan_gpus(node: &[GpuSlot], nodes: u32) -> Vec<GpuSlot> {
    let mut all = Vec::with_capacity(node.len() * nodes.max(1) as usize);
    for _ in 0..nodes.max(1) {
        all.extend_from_slice(node);
    }
    all
}

/// Node of rank `rank` with `per_node` GPUs per node.
pub(super) fn node_of(rank: usize, per_node: usize) -> usize {
    rank.checked_div(per_node).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interconnect_rates_and_names() {
        assert!((Interconnect::IbNdr.per_direction_gb_s() - 50.0).abs() < 1e-9);
        assert!((Interconnect::IbHdr.per_direction_gb_s() - 25.0).abs() < 1e-9);
        assert!((Interconnect::Eth100.per_direction_gb_s() - 12.5).abs() < 1e-9);
        for i in Interconnect::ALL {
            assert_eq!(i.to_string().parse::<Interconnect>(), Ok(i));
        }
        assert_eq!("NDR".parse::<Interconnect>(), Ok(Interconnect::IbNdr));
        assert!("ib-xdr".parse::<Interconnect>().is_err());
        assert!(Interconnect::Roce200.rdma() && !Interconnect::Eth400.rdma());
        for i in Interconnect::ALL {
            assert_eq!(serde_json::to_string(&i).ok(), Some(format!("\"{i}\"")));
        }
        assert_eq!(node_of(9, 8), 1);
        assert_eq!(node_of(3, 0), 0);
    }
}

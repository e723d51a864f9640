//! Several identical nodes: the link between them ([`Interconnect`]) and the placement of
//! tensor × pipeline ranks on the nodes' GPUs.
//!
//! A build describes one node; a plan of `nodes` nodes repeats the build's GPU slice, rank
//! `r` sitting on node `r / gpus_per_node`. Tensor-parallel all-reduces stay on the node's
//! own links (NVLink or PCIe) unless a tensor group is wider than a node; pipeline stages hand
//! their activations (`hidden × 2 bytes × tokens`) to the next stage, over the interconnect
//! where the boundary crosses nodes.

#![allow(clippy::doc_markdown, reason = "hardware and format names (InfiniBand, RoCE, NVLink) read better unquoted")]

use super::inputs::GpuSlot;
pub use super::inputs::Interconnect;

/// Network latencies one small all-reduce pays when its group spans nodes (judgement: NCCL's
/// tree for small messages goes up and down through the NIC and switch, two network hops each
/// way, plus the node-local stages).
pub(crate) const INTER_NODE_ALL_REDUCE_HOPS: f64 = 4.0;

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

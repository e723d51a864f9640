//! Pipeline stages of a tensor × pipeline plan: where the stage boundaries fall (inside a node
//! or across nodes), the activation handoff at each, and the pipelined round time.

use super::calibration::{ACT_BYTES, LAYER_SPLIT_HOP_S, LINK_EFFICIENCY};
use super::cluster::{Interconnect, node_of};
use super::inputs::GpuSlot;

/// The stages of one replica.
#[derive(Debug, Clone)]
pub(super) struct Stages {
    /// Tensor-parallel ranks per stage.
    pub(super) tp: usize,
    /// Layers of each stage.
    pub(super) layers: Vec<f64>,
    /// Per boundary (after stage `j`): the link crossing nodes, or `None` inside a node with
    /// the sending GPU's own link bandwidth per direction, GB/s.
    boundaries: Vec<(Option<Interconnect>, f64)>,
    hidden: f64,
}

impl Stages {
    /// Stages of `pp` over `used` (ranks tensor-fastest), `per_node` GPUs per node.
    pub(super) fn new(
        used: &[GpuSlot],
        tp: usize,
        pp: usize,
        per_node: usize,
        layers: Vec<f64>,
        interconnect: Option<Interconnect>,
        hidden: f64,
    ) -> Stages {
        let boundaries = (1..pp)
            .map(|j| {
                let last = j * tp - 1;
                let next = j * tp;
                let crosses = node_of(last, per_node) != node_of(next, per_node);
                let intra = used.get(last).map_or(0.0, |s| s.link.per_direction_gb_s());
                (interconnect.filter(|_| crosses), intra)
            })
            .collect();
        Stages { tp, layers, boundaries, hidden }
    }

    /// Stage boundaries that cross nodes.
    pub(super) fn crossings(&self) -> usize {
        self.boundaries.iter().filter(|b| b.0.is_some()).count()
    }

    /// Handoff of `tokens` tokens' hidden states at one boundary, s: the link's latency (the
    /// interconnect's, or [`LAYER_SPLIT_HOP_S`] inside a node) + `hidden × 2 bytes × tokens`
    /// at [`LINK_EFFICIENCY`] of its bandwidth per direction.
    fn hop_s(&self, boundary: usize, tokens: f64) -> f64 {
        let bytes = self.hidden * ACT_BYTES * tokens;
        let Some(&(ic, intra_gb_s)) = self.boundaries.get(boundary) else {
            return 0.0;
        };
        let (latency, gb_s) = match ic {
            Some(i) => (i.latency_s(), i.per_direction_gb_s()),
            None => (LAYER_SPLIT_HOP_S, intra_gb_s),
        };
        let bw = LINK_EFFICIENCY * gb_s * 1e9;
        latency + if bw > 0.0 { bytes / bw } else { f64::INFINITY }
    }

    /// All handoffs of one pass through the stages, s.
    pub(super) fn hops_s(&self, tokens: f64) -> f64 {
        (0..self.boundaries.len()).map(|j| self.hop_s(j, tokens)).sum()
    }

    /// The slowest single handoff, s.
    pub(super) fn max_hop_s(&self, tokens: f64) -> f64 {
        (0..self.boundaries.len()).map(|j| self.hop_s(j, tokens)).fold(0.0, f64::max)
    }
}

/// Time for `micro` micro-batches to pass every stage once, s: a micro-batch needs the sum of
/// the stages and handoffs; a stage serves every micro-batch in turn, so the round is at least
/// `micro ×` the slowest stage (GPipe / vLLM virtual engines: throughput up to `pp ×` the
/// batch-1 rate, bounded by the slowest stage).
pub(super) fn round_s(stage_s: &[f64], hops_s: f64, micro: u32) -> f64 {
    let sum: f64 = stage_s.iter().sum();
    let max = stage_s.iter().copied().fold(0.0, f64::max);
    (sum + hops_s).max(f64::from(micro.max(1)) * max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_is_sequential_for_one_and_bounded_by_slowest_stage() {
        // One micro-batch: the stages one after another plus the hops.
        assert!((round_s(&[1.0, 1.0, 1.0, 1.0], 0.2, 1) - 4.2).abs() < 1e-12);
        // Four micro-batches over four balanced stages: still one pass plus hops per round,
        // but four times the tokens.
        assert!((round_s(&[1.0, 1.0, 1.0, 1.0], 0.2, 4) - 4.2).abs() < 1e-12);
        // An unbalanced stage bounds the round.
        assert!((round_s(&[1.0, 2.0], 0.0, 2) - 4.0).abs() < 1e-12);
    }
}

//! How the work is spread: the [`Parallelism`] over a node's GPUs and the [`Interconnect`]
//! between nodes, with the network's rates and latencies.

use super::ParseError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How the model is spread over the GPUs. The degree counts GPUs from the start of the slice
/// given to the estimate (`crate::estimate::llm::estimate`); further GPUs stay idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parallelism {
    /// One GPU (the first).
    #[default]
    Single,
    /// Tensor parallel over n GPUs: each holds 1/n of every weight; two all-reduces per layer.
    TensorParallel(u32),
    /// Layers split over n GPUs (llama.cpp `--split-mode layer`, pipeline parallel): each holds
    /// its layers; they run one after another.
    LayerSplit(u32),
    /// n replicas (inference) or n data-parallel ranks (training, sharded by the ZeRO stage).
    DataParallel(u32),
    /// Tensor × pipeline parallel (vLLM `--tensor-parallel-size tp --pipeline-parallel-size
    /// pp`): `tp × pp` GPUs per replica, ranks numbered tensor-fastest (stage `j` holds GPUs
    /// `j·tp .. (j+1)·tp`). The layers are split over the `pp` stages, each layer's heads and
    /// FFN columns over the `tp` ranks of its stage; one activation handoff per stage boundary.
    TensorPipeline {
        /// Tensor-parallel ranks per stage.
        tp: u32,
        /// Pipeline stages.
        pp: u32,
    },
}

impl Parallelism {
    /// GPUs used.
    pub fn degree(self) -> u32 {
        match self {
            Parallelism::Single => 1,
            Parallelism::TensorParallel(n) | Parallelism::LayerSplit(n) | Parallelism::DataParallel(n) => n,
            Parallelism::TensorPipeline { tp, pp } => tp.saturating_mul(pp),
        }
    }

    /// Tensor-parallel ranks each layer is split over (1 unless tensor parallel).
    pub fn tp_degree(self) -> u32 {
        match self {
            Parallelism::TensorParallel(t) | Parallelism::TensorPipeline { tp: t, .. } => t.max(1),
            Parallelism::Single | Parallelism::LayerSplit(_) | Parallelism::DataParallel(_) => 1,
        }
    }

    /// The degrees a serving runtime's launch flags name, `(tensor, pipeline, data)` parallel:
    /// a layer split is its pipeline parallel (vLLM `--pipeline-parallel-size`, SGLang
    /// `--pp-size`, TensorRT-LLM `--pp_size`); 1 where the plan does not split that way.
    pub fn serving_degrees(self) -> (u32, u32, u32) {
        match self {
            Parallelism::Single => (1, 1, 1),
            Parallelism::TensorParallel(n) => (n, 1, 1),
            Parallelism::LayerSplit(n) => (1, n, 1),
            Parallelism::DataParallel(n) => (1, 1, n),
            Parallelism::TensorPipeline { tp, pp } => (tp, pp, 1),
        }
    }

    /// Pipeline stages of [`Parallelism::TensorPipeline`] (1 otherwise; a
    /// [`Parallelism::LayerSplit`] is llama.cpp's sequential split, not counted here).
    pub fn pp_degree(self) -> u32 {
        match self {
            Parallelism::TensorPipeline { pp, .. } => pp.max(1),
            Parallelism::Single
            | Parallelism::TensorParallel(_)
            | Parallelism::LayerSplit(_)
            | Parallelism::DataParallel(_) => 1,
        }
    }
}

impl fmt::Display for Parallelism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Parallelism::Single => f.write_str("single"),
            Parallelism::TensorParallel(n) => write!(f, "tp:{n}"),
            Parallelism::LayerSplit(n) => write!(f, "split:{n}"),
            Parallelism::DataParallel(n) => write!(f, "dp:{n}"),
            Parallelism::TensorPipeline { tp, pp } => write!(f, "tp:{tp},pp:{pp}"),
        }
    }
}

impl FromStr for Parallelism {
    type Err = ParseError;
    /// `single`, `tp:N`, `split:N` (or `layer:N`, `pp:N`), `dp:N`, and tensor × pipeline
    /// `tp:N,pp:M` (either order; `pp:M` alone stays the layer split it always was).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "single" || lower == "1" {
            return Ok(Parallelism::Single);
        }
        let bad = || ParseError(format!("unknown parallelism `{s}` (single, tp:N, split:N, dp:N, tp:N,pp:M)"));
        if let Some((a, b)) = lower.split_once(',') {
            let (mut tp, mut pp) = (None, None);
            for part in [a, b] {
                match part.trim().parse::<Parallelism>().map_err(|_| bad())? {
                    Parallelism::TensorParallel(t) if tp.is_none() => tp = Some(t),
                    Parallelism::LayerSplit(p) if pp.is_none() => pp = Some(p),
                    _ => return Err(bad()),
                }
            }
            return match (tp, pp) {
                (Some(tp), Some(pp)) => Ok(Parallelism::TensorPipeline { tp, pp }),
                _ => Err(bad()),
            };
        }
        let (kind, n) = lower.split_once([':', '=']).ok_or_else(bad)?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        match kind.trim() {
            "tp" | "tensor" | "tensor_parallel" => Ok(Parallelism::TensorParallel(n)),
            "split" | "layer" | "layers" | "pp" | "layer_split" => Ok(Parallelism::LayerSplit(n)),
            "dp" | "data" | "data_parallel" => Ok(Parallelism::DataParallel(n)),
            _ => Err(bad()),
        }
    }
}

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
    pub(crate) fn rate_gbit_s(self) -> f64 {
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
    pub(crate) fn latency_s(self) -> f64 {
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

//! Inputs of the LLM estimate: mode, weight and KV precision, runtime, parallelism, optimizer,
//! links, GPUs and the workload ([`FitInput`]).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use super::calibration::{
    DECODE_BANDWIDTH_EFFICIENCY, EXLLAMA_BUFFERS_GIB, EXLLAMA_CHUNK_TOKENS, EXLLAMA_LAYER_OVERHEAD_S,
    EXLLAMA_PREFILL_EFFICIENCY, HEADROOM_FRACTION, IK_LLAMA_CPP_LAYER_OVERHEAD_S, INT4_BITS,
    LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY, LLAMA_CPP_2025_LAYER_OVERHEAD_S, LLAMA_CPP_BUFFERS_GIB,
    LLAMA_CPP_CHUNK_TOKENS, LLAMA_CPP_HIP_GFX906_DECODE_FACTOR, LLAMA_CPP_HIP_RDNA_DECODE_FACTOR,
    LLAMA_CPP_LAYER_OVERHEAD_S, LLAMA_CPP_PREFILL_EFFICIENCY, LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR,
    LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR, LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR, SGLANG_CHUNK_TOKENS,
    TRTLLM_CHUNK_TOKENS, VLLM_CHUNK_TOKENS, VLLM_CUDA_GRAPHS_GIB, VLLM_LAYER_OVERHEAD_S, VLLM_PREFILL_EFFICIENCY,
    VLLM_RESERVED_FRACTION,
};
use kraftwerk_catalog::{Gpu, LlmModel, NvLink, WeightBytes};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The workload vocabulary lives at the bottom of the core ([`crate::workload`]), where the
/// build file stores it; the estimator adds its figures to the types here.
pub use crate::workload::{
    IB_LATENCY_S, Interconnect, LoraTargets, Mode, Parallelism, ParseError, Precision, ROCE_LATENCY_S, Runtime,
    TCP_LATENCY_S, Trainer, parse_training_runtime,
};

impl Precision {
    /// Storage bits per weight. GGUF: whole-file averages measured on Llama-3.1-8B (llama.cpp
    /// quantize README, github.com/ggml-org/llama.cpp tools/quantize): `Q4_0` 4.5, `Q4_K_M` 4.894, `Q5_K_M` 5.704, `Q6_K` 6.563,
    /// `Q8_0` 8.501. Int4: [`INT4_BITS`]. MXFP4 4.25 and NVFP4 4.5 (scales included), block
    /// FP8 8.002: the quantized groups only (embeddings stay BF16). [`Precision::Native`] has
    /// no single figure: 16 here (the BF16 most checkpoints are published in); its bytes come
    /// from the preset's checkpoint groups.
    pub fn bits_per_weight(self) -> f64 {
        match self {
            Precision::Fp32 => 32.0,
            Precision::Bf16 | Precision::Fp16 | Precision::Native => 16.0,
            Precision::Fp8 | Precision::Int8 => 8.0,
            Precision::Int4 => INT4_BITS,
            Precision::Q4_0 | Precision::Nvfp4 => 4.5,
            Precision::Q4_K_M => 4.894,
            Precision::Q5_K_M => 5.704,
            Precision::Q6_K => 6.563,
            Precision::Q8_0 => 8.501,
            // Whole-file averages of the same README table (Llama-3.1-8B); the bytes of a model
            // come from its per-tensor mix (`gguf_mix::parts_bytes`). Q3_K_M is not in the
            // table: 3.99 is the mix of `gguf_mix` for Llama-3.1-8B (3.735 GiB over 8.03 B weights).
            Precision::IQ1_S => 2.0042,
            Precision::IQ1_M => 2.1460,
            Precision::IQ2_XXS => 2.3824,
            Precision::IQ2_XS => 2.5882,
            Precision::IQ2_S => 2.7403,
            Precision::IQ2_M => 2.9294,
            Precision::IQ3_XXS => 3.2548,
            Precision::IQ3_XS => 3.4977,
            Precision::IQ3_S => 3.6606,
            Precision::IQ3_M => 3.7628,
            Precision::IQ4_XS => 4.4597,
            Precision::Q2_K_S => 2.9697,
            Precision::Q2_K => 3.1593,
            Precision::Q3_K_S => 3.6429,
            Precision::Q3_K_M => 3.99,
            Precision::Q3_K_L => 4.2979,
            Precision::Bpw(bits) => bits,
            Precision::Mxfp4 => 4.25,
            Precision::Fp8Block => 8.0 + 32.0 / (128.0 * 128.0),
        }
    }

    /// Bytes per element (bits / 8), as used for KV-cache entries.
    pub(crate) fn bytes_per_element(self) -> f64 {
        self.bits_per_weight() / 8.0
    }
}

/// The llama.cpp builds a decode figure is calibrated to (issue 28, item 3). llama.cpp's
/// batch-1 decode got 25-50 % faster between the builds of 2023-24 and those of 2025-26 (CUDA
/// graphs from PR 6766 of April 2024, fused kernels since), so one set of constants cannot hold
/// both: each era has its own decode bandwidth efficiency and fixed cost per layer, each fitted
/// on published rows of its builds. Other runtimes ignore it. Parsed from `2023-24` / `legacy`
/// and `2025-26` / `current`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlamaCppEra {
    /// Builds of 2023 to early 2024 (before CUDA graphs): [`DECODE_BANDWIDTH_EFFICIENCY`] and
    /// [`LLAMA_CPP_LAYER_OVERHEAD_S`], fitted on llama.cpp PR 4766 (January 2024) and
    /// XiongjieDai's GPU-Benchmarks-on-LLM-Inference tables. The history tables of the tests
    /// pass it.
    Builds2023To2024,
    /// Builds of 2025-26 (the default: what a user installs now):
    /// [`LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY`] and [`LLAMA_CPP_2025_LAYER_OVERHEAD_S`],
    /// fitted on five llama-bench rows of 2025-26 builds (`tests/all/llm_fit/decode_2025.rs`).
    #[default]
    Builds2025To2026,
}

impl LlamaCppEra {
    /// Both eras, oldest first.
    pub const ALL: [LlamaCppEra; 2] = [LlamaCppEra::Builds2023To2024, LlamaCppEra::Builds2025To2026];

    /// Fraction of peak memory bandwidth llama.cpp's decode reaches with these builds.
    pub(crate) fn decode_bandwidth_efficiency(self) -> f64 {
        match self {
            LlamaCppEra::Builds2023To2024 => DECODE_BANDWIDTH_EFFICIENCY,
            LlamaCppEra::Builds2025To2026 => LLAMA_CPP_2025_DECODE_BANDWIDTH_EFFICIENCY,
        }
    }

    /// llama.cpp's fixed decode cost per layer and step with these builds, s.
    pub(crate) fn layer_overhead_s(self) -> f64 {
        match self {
            LlamaCppEra::Builds2023To2024 => LLAMA_CPP_LAYER_OVERHEAD_S,
            LlamaCppEra::Builds2025To2026 => LLAMA_CPP_2025_LAYER_OVERHEAD_S,
        }
    }
}

impl fmt::Display for LlamaCppEra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LlamaCppEra::Builds2023To2024 => "llama.cpp builds of 2023-24",
            LlamaCppEra::Builds2025To2026 => "llama.cpp builds of 2025-26",
        })
    }
}

impl std::str::FromStr for LlamaCppEra {
    type Err = ParseError;

    /// `2023-24` (or `legacy`, `2024`) and `2025-26` (or `current`, `2026`), case-insensitive.
    fn from_str(s: &str) -> Result<LlamaCppEra, ParseError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "2023-24" | "2023-2024" | "2024" | "legacy" => Ok(LlamaCppEra::Builds2023To2024),
            "2025-26" | "2025-2026" | "2026" | "current" => Ok(LlamaCppEra::Builds2025To2026),
            other => {
                Err(ParseError(format!("unknown llama.cpp era `{other}`: give 2023-24 (legacy) or 2025-26 (current)")))
            }
        }
    }
}

pub use crate::workload::LlamaCppBackend;

impl LlamaCppBackend {
    /// Multiplier on llama.cpp's decode bandwidth efficiency for this back end on `gpu`: HIP on
    /// an AMD RDNA 3 or RDNA 4 card is [`LLAMA_CPP_HIP_RDNA_DECODE_FACTOR`], on a GCN 5.1 card
    /// (Vega 20, gfx906: MI50, MI60, Radeon VII) [`LLAMA_CPP_HIP_GFX906_DECODE_FACTOR`]; Vulkan on an Intel
    /// Arc A-series (Xe-HPG) card [`LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR`], on an Arc
    /// B-series (Xe2-HPG) card [`LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR`]; every other pairing
    /// is 1 (CUDA is what the constants were fitted on, and the Vulkan rows on RDNA 3/4 and
    /// NVIDIA land in band at 1; others are not validated, the caveat says so).
    pub(crate) fn decode_factor(self, gpu: Option<&Gpu>) -> f64 {
        match (self, gpu) {
            (LlamaCppBackend::Hip, Some(g)) if is_rdna3_or_4(g) => LLAMA_CPP_HIP_RDNA_DECODE_FACTOR,
            (LlamaCppBackend::Hip, Some(g)) if is_gfx906(g) => LLAMA_CPP_HIP_GFX906_DECODE_FACTOR,
            (LlamaCppBackend::Vulkan, Some(g)) => match intel_arc_generation(g) {
                Some(IntelArc::XeHpg) => LLAMA_CPP_VULKAN_INTEL_XE_HPG_DECODE_FACTOR,
                Some(IntelArc::Xe2Hpg) => LLAMA_CPP_VULKAN_INTEL_XE2_DECODE_FACTOR,
                None => 1.0,
            },
            _ => 1.0,
        }
    }

    /// Multiplier on llama.cpp's prefill efficiency ([`LLAMA_CPP_PREFILL_EFFICIENCY`], fitted
    /// on CUDA) for this back end on `gpu`: Vulkan on an AMD RDNA 4 card is
    /// [`LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR`]; every other pairing is 1 (HIP on RDNA 3/4 lands
    /// in band at the WMMA rate, AM-22p; no published 2025-26 Vulkan prefill row of an RDNA 3
    /// card of the catalog on a catalog model was found, so RDNA 3 under Vulkan is not typed).
    pub(crate) fn prefill_factor(self, gpu: Option<&Gpu>) -> f64 {
        match (self, gpu) {
            (LlamaCppBackend::Vulkan, Some(g)) if is_rdna4(g) => LLAMA_CPP_VULKAN_RDNA4_PREFILL_FACTOR,
            _ => 1.0,
        }
    }
}

/// An Intel Arc generation with its own llama.cpp Vulkan decode factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IntelArc {
    /// Alchemist (Arc A-series, DG2): catalog architecture `Xe-HPG (...)`.
    XeHpg,
    /// Battlemage (Arc B-series and Arc Pro B, BMG): catalog architecture `Xe2-HPG (...)`.
    Xe2Hpg,
}

/// The Intel Arc generation of `gpu`, as its catalog architecture names it (`Xe-HPG (DG2-512)`,
/// `Xe2-HPG (BMG-G21)`); `None` for any other chip.
fn intel_arc_generation(gpu: &Gpu) -> Option<IntelArc> {
    if super::support::chip_maker(gpu) != Some("Intel") {
        return None;
    }
    if gpu.architecture.starts_with("Xe2-HPG") {
        Some(IntelArc::Xe2Hpg)
    } else if gpu.architecture.starts_with("Xe-HPG") {
        Some(IntelArc::XeHpg)
    } else {
        None
    }
}

/// Whether `gpu` is an AMD RDNA 4 chip, as its catalog architecture names it (`RDNA 4.0 (Navi 48)`).
fn is_rdna4(gpu: &Gpu) -> bool {
    super::support::chip_maker(gpu) == Some("AMD") && gpu.architecture.starts_with("RDNA 4")
}

/// Whether `gpu` is an AMD GCN 5.1 chip (Vega 20, gfx906: Instinct MI50/MI60, Radeon VII), as
/// its catalog architecture names it (`GCN 5.1 (Vega 20, 60 CU, gfx906)`); GCN 5.0 (Vega 10,
/// gfx900) is not measured and not included.
pub(super) fn is_gfx906(gpu: &Gpu) -> bool {
    super::support::chip_maker(gpu) == Some("AMD") && gpu.architecture.starts_with("GCN 5.1")
}

/// Whether `gpu` is an AMD RDNA 3 (incl. 3.5) or RDNA 4 chip, as its catalog architecture
/// names it (`RDNA 3.0 (Navi 31)`, `RDNA 4.0 (Navi 48)`).
fn is_rdna3_or_4(gpu: &Gpu) -> bool {
    super::support::chip_maker(gpu) == Some("AMD")
        && (gpu.architecture.starts_with("RDNA 3") || gpu.architecture.starts_with("RDNA 4"))
}

impl Runtime {
    /// Fixed decode cost per layer and step, s ([`LLAMA_CPP_LAYER_OVERHEAD_S`] and siblings);
    /// llama.cpp's depends on the builds (`era`), the other runtimes ignore it.
    pub(crate) fn layer_overhead_s(self, era: LlamaCppEra) -> f64 {
        match self {
            Runtime::LlamaCpp => era.layer_overhead_s(),
            Runtime::IkLlamaCpp => IK_LLAMA_CPP_LAYER_OVERHEAD_S,
            Runtime::ExLlamaV2 => EXLLAMA_LAYER_OVERHEAD_S,
            // ktransformers replays its GPU part as CUDA graphs, as vLLM does (judgement).
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm | Runtime::KTransformers => VLLM_LAYER_OVERHEAD_S,
        }
    }

    /// Fraction of peak memory bandwidth decode reaches ([`DECODE_BANDWIDTH_EFFICIENCY`];
    /// llama.cpp's depends on the builds, `era`).
    pub(crate) fn decode_bandwidth_efficiency(self, era: LlamaCppEra) -> f64 {
        match self {
            Runtime::LlamaCpp => era.decode_bandwidth_efficiency(),
            _ => DECODE_BANDWIDTH_EFFICIENCY,
        }
    }

    /// Fraction of the chosen tensor peak reached in prefill ([`LLAMA_CPP_PREFILL_EFFICIENCY`]
    /// and siblings); also used for the compute side of batched decode.
    pub(crate) fn prefill_efficiency(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => LLAMA_CPP_PREFILL_EFFICIENCY,
            Runtime::ExLlamaV2 => EXLLAMA_PREFILL_EFFICIENCY,
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm => VLLM_PREFILL_EFFICIENCY,
        }
    }

    /// Prompt chunk, tokens ([`LLAMA_CPP_CHUNK_TOKENS`] and siblings).
    pub(crate) fn chunk_tokens(self) -> u32 {
        match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => LLAMA_CPP_CHUNK_TOKENS,
            Runtime::ExLlamaV2 => EXLLAMA_CHUNK_TOKENS,
            Runtime::Vllm => VLLM_CHUNK_TOKENS,
            Runtime::Sglang => SGLANG_CHUNK_TOKENS,
            Runtime::TensorRtLlm => TRTLLM_CHUNK_TOKENS,
        }
    }

    /// Whether a layer split overlaps the GPUs on successive prompt chunks: llama.cpp does
    /// (pipeline parallelism, PR 6017, March 2024); `ExLlamaV2` does in effect (asynchronous
    /// launches; exllamav2 issue 734's 1046 tok/s needs both GPUs busy); vLLM's pipeline
    /// parallelism overlaps requests, not the chunks of one prompt.
    pub(crate) fn pipelines_prompt(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::ExLlamaV2 | Runtime::IkLlamaCpp)
    }

    /// Whether matrix multiplies on dequantized weights use FP16 accumulation (twice the
    /// FP32-accumulate rate on GeForce): llama.cpp (cuBLAS `CUBLAS_COMPUTE_16F`) and
    /// `ExLlamaV2` (`cublasHgemm`) do; vLLM/`PyTorch` accumulate in FP32.
    pub(crate) fn fp16_accumulate(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::ExLlamaV2 | Runtime::IkLlamaCpp)
    }

    /// Whether tensor-parallel traffic always goes through pinned host memory: `ExLlamaV2`'s
    /// TP does (exllamav2 `tensor_p.py`; issue 603: it does not use NVLink).
    pub(crate) fn host_staged_tp(self) -> bool {
        matches!(self, Runtime::ExLlamaV2)
    }

    /// Whether the token-embedding table stays in host RAM: llama.cpp keeps `token_embd` on
    /// the CPU (its load log's `CPU_Mapped` buffer with every layer offloaded).
    pub(crate) fn embedding_on_host(self) -> bool {
        matches!(self, Runtime::LlamaCpp | Runtime::IkLlamaCpp)
    }

    /// Runtime buffers per GPU beyond the CUDA context, GiB.
    pub(crate) fn buffers_gib(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => LLAMA_CPP_BUFFERS_GIB,
            Runtime::ExLlamaV2 => EXLLAMA_BUFFERS_GIB,
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm => VLLM_CUDA_GRAPHS_GIB,
        }
    }

    /// Fraction of each GPU's memory kept free.
    pub(crate) fn headroom_fraction(self) -> f64 {
        match self {
            Runtime::LlamaCpp | Runtime::ExLlamaV2 | Runtime::IkLlamaCpp | Runtime::KTransformers => HEADROOM_FRACTION,
            Runtime::Vllm | Runtime::Sglang | Runtime::TensorRtLlm => VLLM_RESERVED_FRACTION,
        }
    }
}

/// Optimizer whose states training keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    /// `AdamW` in mixed precision: FP32 master weights, momentum and variance, 12 bytes per
    /// trained parameter (EleutherAI "Transformer Math 101"; 8 without a master copy when the
    /// weights are FP32 already).
    #[default]
    AdamW,
    /// 8-bit `AdamW` (bitsandbytes): FP32 master + 8-bit momentum and variance, 6 bytes per
    /// trained parameter (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
    AdamW8bit,
    /// bitsandbytes `PagedAdamW8bit`: 8-bit states in CUDA unified memory, which the driver
    /// pages out to host RAM when the GPU is full (Dettmers et al. 2023, "QLoRA", section 3,
    /// paged optimizers); `torch.cuda.max_memory_allocated` does not count them.
    PagedAdamW8bit,
    /// SGD with momentum: one state (the momentum buffer) per trained parameter.
    Sgd,
    /// Adafactor (Shazeer & Stern 2018, "Adafactor: Adaptive Learning Rates with Sublinear
    /// Memory Cost"), no momentum (the Transformers default `beta1=None`): a row and a column
    /// second-moment vector per weight matrix instead of one value per parameter.
    Adafactor,
}

impl fmt::Display for Optimizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Optimizer::AdamW => "adamw",
            Optimizer::AdamW8bit => "adamw-8bit",
            Optimizer::PagedAdamW8bit => "paged-adamw-8bit",
            Optimizer::Sgd => "sgd",
            Optimizer::Adafactor => "adafactor",
        })
    }
}

impl std::str::FromStr for Optimizer {
    type Err = ParseError;
    /// `adamw` (`adamw_torch`, `adam`), `adamw-8bit` (`adamw_8bit`, `adamw_bnb_8bit`),
    /// `paged-adamw-8bit` (`paged_adamw_8bit`), `sgd`, `adafactor`; case-insensitive, `_` for `-`.
    fn from_str(s: &str) -> Result<Optimizer, ParseError> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "adamw" | "adamw-torch" | "adam" | "adamw-torch-fused" => Ok(Optimizer::AdamW),
            "adamw-8bit" | "adamw8bit" | "adamw-bnb-8bit" | "bnb-adamw-8bit" => Ok(Optimizer::AdamW8bit),
            "paged-adamw-8bit" | "pagedadamw8bit" | "paged-adamw8bit" => Ok(Optimizer::PagedAdamW8bit),
            "sgd" => Ok(Optimizer::Sgd),
            "adafactor" => Ok(Optimizer::Adafactor),
            other => Err(ParseError(format!(
                "unknown optimizer `{other}` (adamw, adamw-8bit, paged-adamw-8bit, sgd, adafactor)"
            ))),
        }
    }
}

/// The link from a GPU to the others of its group.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// PCIe as negotiated (the lower of the card's and the slot's generation and lanes).
    Pcie {
        /// PCIe generation (3, 4, 5).
        generation: u8,
        /// Electrical lanes.
        lanes: u8,
    },
    /// NVLink (bridge or SXM): total bidirectional bandwidth per GPU, GB/s, as the catalog's
    /// [`NvLink`] figures (3090 bridge 112.5, A100 PCIe bridge 600, H200 SXM 900).
    NvLink {
        /// Total bidirectional bandwidth, GB/s.
        bandwidth_gb_s: f64,
    },
}

/// PCIe bandwidth per lane and direction, GB/s: Gen1 0.25, Gen2 0.5, Gen3 0.985, Gen4 1.969,
/// Gen5 3.938, Gen6 7.877 (PCI-SIG; x16 gives ~15.75, 31.5, 63 GB/s for Gen3, 4, 5).
pub fn pcie_lane_gb_s(generation: u8) -> f64 {
    crate::rig::links::lane_gb_s(generation.max(1))
}

impl Link {
    /// The PCIe link a card gets in a slot: the lower generation and the fewer lanes of the two.
    pub fn pcie_in_slot(gpu: &Gpu, slot_gen: u8, slot_lanes: u8) -> Link {
        Link::Pcie { generation: gpu.pcie_gen.min(slot_gen), lanes: gpu.pcie_lanes.min(slot_lanes) }
    }

    /// The card's own host link at full width (gen and lanes from the catalog).
    pub(crate) fn pcie_native(gpu: &Gpu) -> Link {
        Link::Pcie { generation: gpu.pcie_gen, lanes: gpu.pcie_lanes }
    }

    /// The card's NVLink, if it has one (bridge or SXM).
    pub fn nvlink_of(gpu: &Gpu) -> Option<Link> {
        match gpu.nvlink {
            NvLink::Bridge { bandwidth_gb_s, .. } | NvLink::Sxm { bandwidth_gb_s } => {
                Some(Link::NvLink { bandwidth_gb_s })
            }
            NvLink::None | NvLink::InfinityFabric { .. } => None,
        }
    }

    /// Bandwidth per direction, GB/s (PCIe: per-lane rate × lanes; NVLink: half the total).
    pub fn per_direction_gb_s(&self) -> f64 {
        match *self {
            Link::Pcie { generation, lanes } => pcie_lane_gb_s(generation) * f64::from(lanes),
            Link::NvLink { bandwidth_gb_s } => bandwidth_gb_s / 2.0,
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Pcie { generation, lanes } => write!(f, "PCIe {generation}.0 x{lanes}"),
            Link::NvLink { bandwidth_gb_s } => write!(f, "NVLink {bandwidth_gb_s} GB/s"),
        }
    }
}

/// A GPU and its link to the rest of its group. Independent of the build file: the caller
/// resolves slots into links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuSlot {
    /// The card.
    pub gpu: Gpu,
    /// Its link to the others. For a two-card NVLink bridge give `NvLink` on both; where a ring
    /// crosses PCIe (four cards in bridged pairs) give the PCIe link.
    pub link: Link,
}

impl GpuSlot {
    /// A GPU on its own full-width PCIe link.
    pub fn new(gpu: Gpu) -> GpuSlot {
        let link = Link::pcie_native(&gpu);
        GpuSlot { gpu, link }
    }

    /// A GPU with the given link.
    pub fn with_link(gpu: Gpu, link: Link) -> GpuSlot {
        GpuSlot { gpu, link }
    }
}

/// The workload whose fit and speed are estimated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent runtime flags (checkpointing, flash attention, CPU offload, run-time repack), each a command-line switch"
)]
pub struct FitInput {
    /// The model shape.
    pub model: LlmModel,
    /// Inference or a kind of fine-tune.
    pub mode: Mode,
    /// Weight format. Full fine-tune needs FP32, BF16 or FP16; `QLoRA` ignores it (NF4).
    pub weight_precision: Precision,
    /// KV-cache format (FP16/BF16 16 bits, FP8 8, `Q8_0` 8.5, `Q4_0` 4.5, ...).
    pub kv_precision: Precision,
    /// Context per sequence, tokens: the KV cache is sized for it, prefill processes it as one
    /// prompt, and decode rates are at that position (the slowest point of a full context).
    /// Training: the sequence length.
    pub context_tokens: u32,
    /// Concurrent sequences (inference) or micro-batch per GPU (training).
    pub batch: u32,
    /// How the model is spread over the GPUs.
    pub parallelism: Parallelism,
    /// Inference runtime; `None` = [`Runtime::default_for`] the weight precision.
    pub runtime: Option<Runtime>,
    /// `DeepSpeed` ZeRO stage 0-3 (training with [`Parallelism::DataParallel`]): 1 shards
    /// optimizer states, 2 also gradients, 3 also weights.
    pub zero_stage: u8,
    /// Training: keep only each layer's input and recompute the rest in backward.
    pub gradient_checkpointing: bool,
    /// Training: micro-batches per optimizer step (time, and pipeline in-flight count).
    pub gradient_accumulation: u32,
    /// `LoRA`/`QLoRA` rank (adapters on q, k, v, o, gate, up, down of every layer).
    pub lora_rank: u32,
    /// Training optimizer.
    pub optimizer: Optimizer,
    /// Attention without materialized scores (`FlashAttention`/SDPA); default on.
    pub flash_attention: bool,
    /// Exact weight bytes of the model file being served ([`crate::estimate::model_file`]); `None`
    /// estimates them from `params_b` and the precision's bits per weight. Used for the weight
    /// precision only (`QLoRA` re-quantizes the base and ignores it).
    #[serde(default)]
    pub file_weights: Option<WeightBytes>,
    /// vLLM `--gpu-memory-utilization` (0-1]: the fraction of each GPU's memory vLLM may use;
    /// `None` = its default 0.9 ([`super::calibration::VLLM_RESERVED_FRACTION`]). Other
    /// runtimes ignore it.
    #[serde(default)]
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM `--max-num-batched-tokens`: the tokens of its profiling forward; `None` = vLLM's
    /// default for the GPU ([`super::vllm_memory::default_batch_limits`]).
    #[serde(default)]
    pub max_num_batched_tokens: Option<u32>,
    /// vLLM `--max-num-seqs`: the sequences of its profiling sampler step; `None` = vLLM's
    /// default for the GPU.
    #[serde(default)]
    pub max_num_seqs: Option<u32>,
    /// Identical nodes the plan spans (each is the GPU slice given to [`super::estimate`]);
    /// 1 = the build alone.
    #[serde(default = "one_node")]
    pub nodes: u32,
    /// The link between nodes; needed when `nodes > 1` (`None` = unknown: refused).
    #[serde(default)]
    pub interconnect: Option<Interconnect>,
    /// The llama.cpp builds the decode figures are calibrated to (default: current builds,
    /// [`LlamaCppEra::Builds2025To2026`]); other runtimes ignore it.
    #[serde(default)]
    pub llama_cpp_era: LlamaCppEra,
    /// The llama.cpp back end (`None` = the one the first GPU's vendor implies,
    /// [`LlamaCppBackend::for_vendor`]); other runtimes ignore it.
    #[serde(default)]
    pub llama_cpp_backend: Option<LlamaCppBackend>,
    /// Training: the framework ([`Trainer`]); `None` = [`super::train::default_trainer`]
    /// (Transformers + PEFT on one GPU or DDP, FSDP where DDP does not fit). Inference ignores it.
    #[serde(default)]
    pub trainer: Option<Trainer>,
    /// Training: offload to host RAM (DeepSpeed `offload_optimizer`/`offload_param`, FSDP
    /// `cpu_offload`); ignored by frameworks without it.
    #[serde(default)]
    pub cpu_offload: bool,
    /// Training: the linear layers that carry `LoRA` adapters.
    #[serde(default)]
    pub lora_targets: LoraTargets,
    /// Training: the dataset and global batch the advice is for.
    #[serde(default)]
    pub train_plan: crate::workload::TrainPlan,
    /// llama.cpp family: the physical micro-batch of a prompt (`-ub`, `n_ubatch`), tokens;
    /// `None` = the runtime's default chunk ([`Runtime::chunk_tokens`], 512). Prefill runs
    /// the prompt in chunks of this many tokens: the weights stream once per chunk, each routed
    /// expert's GEMM sees `chunk × k / E` tokens on average, and host-held weights are copied
    /// to the GPU once per chunk. Other runtimes ignore it.
    #[serde(default)]
    pub prompt_ubatch_tokens: Option<u32>,
    /// llama.cpp family: the host memory that holds the weights left in system RAM
    /// (`--no-mmap` pins them; llama.cpp's default, mmap on, leaves them pageable), which sets
    /// the rate of their copy to the GPU per prompt micro-batch
    /// ([`super::placement::HOST_TO_GPU_COPY_EFFICIENCY`]). Other runtimes ignore it.
    #[serde(default)]
    pub llama_cpp_host_weights: super::llama_flags::HostWeightMemory,
    /// The CPU beside the GPUs ([`super::cpu_prefill::HostCpu`]): the rate at which it computes
    /// the routed experts held in system RAM where the runtime keeps them on the CPU during a
    /// prompt ([`super::cpu_prefill::ram_experts_path`]); `None`: not known (then such a prefill
    /// is unknown). Other paths ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu: Option<super::cpu_prefill::HostCpu>,
    /// llama.cpp family: the runtime's build number (`version: N` / `build: N`, the commit
    /// count), which sets ik_llama.cpp's rule for offloading RAM-held experts
    /// ([`super::cpu_prefill::IK_LLAMA_ACTIVE_EXPERT_OFFLOAD_BUILD`]); `None`: not stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llama_cpp_build: Option<u32>,
    /// ik_llama.cpp `-rtr` (`--run-time-repack`): the tensors in system RAM are repacked to
    /// CPU-only row-interleaved types, so their prompt work stays on the CPU. Other runtimes
    /// ignore it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_time_repack: bool,
}

fn one_node() -> u32 {
    1
}

impl FitInput {
    /// Inference of `model` at `weight_precision`: FP16 KV cache, 8192 tokens of context (or
    /// the model's maximum if smaller), batch 1, one GPU, the precision's usual runtime.
    pub fn new(model: LlmModel, weight_precision: Precision) -> FitInput {
        let context_tokens = model.max_context.clamp(1, 8192);
        FitInput {
            model,
            mode: Mode::Inference,
            weight_precision,
            kv_precision: Precision::Fp16,
            context_tokens,
            batch: 1,
            parallelism: Parallelism::Single,
            runtime: None,
            zero_stage: 0,
            gradient_checkpointing: false,
            gradient_accumulation: 1,
            lora_rank: 16,
            optimizer: Optimizer::AdamW,
            flash_attention: true,
            file_weights: None,
            gpu_memory_utilization: None,
            max_num_batched_tokens: None,
            max_num_seqs: None,
            nodes: 1,
            interconnect: None,
            llama_cpp_era: LlamaCppEra::default(),
            llama_cpp_backend: None,
            trainer: None,
            cpu_offload: false,
            lora_targets: LoraTargets::default(),
            train_plan: crate::workload::TrainPlan::default(),
            prompt_ubatch_tokens: None,
            llama_cpp_host_weights: super::llama_flags::HostWeightMemory::Pageable,
            host_cpu: None,
            llama_cpp_build: None,
            run_time_repack: false,
        }
    }

    /// Prompt chunk of `runtime` for this input, tokens: the user's `-ub` under the llama.cpp
    /// family ([`FitInput::prompt_ubatch_tokens`]), else [`Runtime::chunk_tokens`].
    pub(crate) fn prompt_chunk_tokens(&self, runtime: Runtime) -> u32 {
        match self.prompt_ubatch_tokens {
            Some(ub) if runtime.is_llama_cpp_family() => ub.max(1),
            _ => runtime.chunk_tokens(),
        }
    }

    /// The runtime in effect.
    pub(crate) fn resolved_runtime(&self) -> Runtime {
        self.runtime.unwrap_or_else(|| Runtime::default_for(self.weight_precision))
    }

    /// Decode bandwidth efficiency of `runtime` for this input on `gpus` (llama.cpp: of its era,
    /// times its back end's factor on the first GPU, [`LlamaCppBackend::decode_factor`]).
    pub(crate) fn decode_bandwidth_efficiency(&self, runtime: Runtime, gpus: &[GpuSlot]) -> f64 {
        let base = runtime.decode_bandwidth_efficiency(self.llama_cpp_era);
        if runtime == Runtime::LlamaCpp {
            let gpu = gpus.first().map(|s| &s.gpu);
            base * self.llama_cpp_backend_on(gpus).decode_factor(gpu)
        } else {
            base
        }
    }

    /// Prefill efficiency of `runtime` for this input on `gpus` ([`Runtime::prefill_efficiency`];
    /// llama.cpp's times its back end's factor on the first GPU,
    /// [`LlamaCppBackend::prefill_factor`]). Also the compute side of batched decode.
    pub(crate) fn prefill_efficiency(&self, runtime: Runtime, gpus: &[GpuSlot]) -> f64 {
        let base = runtime.prefill_efficiency();
        if runtime == Runtime::LlamaCpp {
            base * self.llama_cpp_backend_on(gpus).prefill_factor(gpus.first().map(|s| &s.gpu))
        } else {
            base
        }
    }

    /// The llama.cpp back end in effect on `gpus`: the one given, else the one the first GPU's
    /// vendor implies (CPU build without a GPU).
    pub fn llama_cpp_backend_on(&self, gpus: &[GpuSlot]) -> LlamaCppBackend {
        self.llama_cpp_backend.unwrap_or_else(|| match gpus.first() {
            None => LlamaCppBackend::Cpu,
            // The chip's maker (a partner card names its board maker as vendor).
            Some(s) => LlamaCppBackend::for_vendor(Some(super::support::chip_maker(&s.gpu).unwrap_or("other"))),
        })
    }

    /// Fixed decode cost per layer and step of `runtime` for this input, s (llama.cpp: of its
    /// era).
    pub(crate) fn layer_overhead_s(&self, runtime: Runtime) -> f64 {
        runtime.layer_overhead_s(self.llama_cpp_era)
    }
}

//! Where a llama.cpp-family runtime puts a model, and what that placement costs: memory per
//! device, decode and prefill, all from one set of per-layer bytes
//! ([`super::runtime_memory`]'s layout), so the memory table, the decode and the prefill of a
//! placement always describe the same thing.
//!
//! A placement is the user's llama.cpp flags ([`LlamaCppFlags`]: `-ngl`, `--n-cpu-moe N`,
//! `-ot REGEX=CPU` on expert tensors, `--split-mode`, `--tensor-split`), or the one
//! [`searched`] picks: the fewest routed experts in system RAM that keep llama.cpp's margin on
//! every GPU ([`super::runtime_memory::llama_cpp_search`]).
//!
//! Decode, one token: every device reads the bytes it holds that the token touches (dense
//! weights of its layers, the routed experts the token is sent to, `k/E` of each MoE layer's
//! experts, and the KV cache at the context) at its own bandwidth, one after another, plus the
//! runtime's fixed cost per layer ([`FitInput::layer_overhead_s`]) and a hop per GPU boundary.
//! System RAM is read at [`HostMemory::decode_gb_s`]. With the GPU's achieved bandwidth above the
//! host's (every build in the catalog), more experts on the GPU is never slower.
//!
//! Prefill, with weights in system RAM: llama.cpp computes a micro-batch of 32 tokens or more on
//! the GPU and copies each host-held weight it needs over the host link for every micro-batch
//! (`ggml_backend_sched` op offload, ggml-org/llama.cpp PR 13386; the `-ub` micro-batch,
//! default 512, [`super::runtime_memory::LLAMA_UBATCH`]), so a micro-batch costs its GPU
//! compute plus the host-held bytes over the link at [`HOST_TO_GPU_COPY_EFFICIENCY`], faster by
//! [`PINNED_OVER_PAGEABLE_COPY`] where `--no-mmap` pins them ([`HostWeightMemory`]). Where the
//! runtime keeps the RAM-held routed experts on the CPU instead (ik_llama.cpp since its PR 520
//! below `32 × E / k` tokens, or with `-rtr`; any llama.cpp build below 32 tokens:
//! [`super::cpu_prefill::ram_experts_path`]), a micro-batch costs the GPU's part plus their
//! FLOPs at the CPU's rate ([`super::cpu_prefill::HostCpu::expert_gemm_flop_s`]), in sequence.

#![allow(clippy::doc_markdown, reason = "hardware and format names (PCIe, EPYC, Q4_K_M) read better unquoted")]

use super::calibration::{GIB, LAYER_SPLIT_HOP_S};
use super::cpu_prefill::{IK_LLAMA_ACTIVE_EXPERT_OFFLOAD_BUILD, RamExpertsPath, ram_experts_path};
use super::host::HostMemory;
use super::host::{HostExpertDecode, HostRam, LLAMA_CPP_HOST_LAYER_OVERHEAD_S};
use super::inputs::{FitInput, GpuSlot, Link, Runtime, pcie_lane_gb_s};
use super::report::FitError;
use super::runtime_memory::{DeviceRow, LLAMA_UBATCH, Layout, LlamaCppFit, keeps_margin, llama_cpp_search};
use super::shape::kv_cache_bytes_layers;
use super::shape::{input_weight_parts, kv_cache_bytes};
use super::speed::llama_cpp_expert_gemm_s_per_token;
use serde::Serialize;
mod args;
use args::args_of;
pub use args::llama_bench_args;

/// The host link's per-direction bandwidth, as a multiple, at which llama.cpp's per-micro-batch
/// copy of host-held weights moves the bytes of the experts uniform routing would touch, where
/// the weights are pageable ([`HostWeightMemory::Pageable`]: the file mapping, llama.cpp's
/// default). Fitted on one row (`tests/all/llm_fit/moe_2026.rs`, LC-15: gpt-oss-120b, one RTX
/// 3090, `--n-cpu-moe 26 -ub 512`, pp4096 380.27 tok/s): 1.485, with the GPU computing each
/// micro-batch at the all-GPU rate of that micro-batch (its MoE GEMMs at 16 tokens per expert,
/// then `LLAMA_CPP_MOE_GEMM_PAD_TOKENS`, now [`super::calibration::LLAMA_CPP_MOE_TILE_FIXED_TOKENS`]; 1.11 before that term, when the GPU
/// part was taken at the dense GEMM cost). LC-15 is an informal llama-bench run whose post
/// names no `-mmp 0` / `--no-mmap`, so it ran llama-bench's default: mmap on (`-mmp 1`, the default but for a window after
/// ggml-org/llama.cpp PR 18841 of 2026-01-14 set it to 0; PR 20461 of 2026-03-12 describes it
/// as on by default again, and `load_mode` defaults to `LLAMA_LOAD_MODE_MMAP` at commit
/// 0104b151c56d; the post is of May 2026): the experts sat in
/// the pageable `CPU_Mapped` buffer, not in pinned `CUDA_Host` buffers (earlier versions of this
/// docstring said pinned). Above 1 because llama.cpp copies only the experts the micro-batch
/// uses (PR 15346) and real routing touches fewer than uniform routing predicts. One row: a
/// fitted figure, not a physical efficiency. The link is the slot's (PCIe generation and lanes
/// of [`GpuSlot::link`]).
pub const HOST_TO_GPU_COPY_EFFICIENCY: f64 = 1.485;

/// Pinned over pageable host-to-device copy bandwidth: 23.62 / 12.36 GB/s = 1.911, NVIDIA's
/// cuda-oxide `pinned_overlap` example (https://github.com/NVlabs/cuda-oxide, file
/// `crates/rustc-codegen-cuda/examples/pinned_overlap/README.md` at commit dbe26351e062, the
/// example of PR 976, 2026-08-17): one RTX 4090 on PCIe 4.0 x16, median of 10 CUDA-event-timed
/// copies of 256 MiB, "Pinned HtoD" 23.62 against "Pageable HtoD" 12.36 GB/s (1.44-1.95 over its
/// 1-256 MiB rows; 256 MiB is the row nearest llama.cpp's copies, one contiguous run of used
/// experts per tensor, about 0.5 GB per gpt-oss-120b expert tensor at `-ub 512`). With
/// `--no-mmap` the experts sit in pinned `CUDA_Host` buffers and the copy skips the driver's
/// staging, so its rate is [`HOST_TO_GPU_COPY_EFFICIENCY`] (fitted where they were pageable)
/// times this. Taken from that source, not fitted on any row; held against LC-31p (`-ot`
/// experts in RAM, no-mmap, RTX 4070). The pageable rate also depends on the host (the staging
/// memcpy, 11-18 GB/s on the machine of turboderp-org/exllamav3 PR 341; 7-8 GB/s against 55
/// pinned on the H200 host of `shared/reference/gpu-machine.md`), which no term here models:
/// the ratio is this one PCIe 4.0 desktop's.
pub const PINNED_OVER_PAGEABLE_COPY: f64 = 23.62 / 12.36;

/// [`HOST_TO_GPU_COPY_EFFICIENCY`] for the host memory the weights sit in: times
/// [`PINNED_OVER_PAGEABLE_COPY`] where they are pinned.
pub fn host_to_gpu_copy_efficiency(memory: HostWeightMemory) -> f64 {
    match memory {
        HostWeightMemory::Pageable | HostWeightMemory::PageableNoHost | HostWeightMemory::UnmappedNoHost => {
            HOST_TO_GPU_COPY_EFFICIENCY
        }
        HostWeightMemory::Pinned => HOST_TO_GPU_COPY_EFFICIENCY * PINNED_OVER_PAGEABLE_COPY,
    }
}

pub use super::llama_flags::{HostWeightMemory, LlamaCppFlags, PastedFlags, SplitMode, TensorOverride, TensorSplit};
use super::llama_flags::{expert_tensors, other_tensors};

/// What limits a hybrid prefill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrefillBound {
    /// Everything on the GPUs: the all-GPU figure.
    Gpu,
    /// The copy of host-held weights over the host link per micro-batch takes most of the time.
    HostLink,
    /// GPU compute takes most of the time, host copies included.
    GpuWithCopies,
    /// The CPU computing the routed experts held in system RAM takes most of the time (the
    /// runtime keeps them on the CPU for the micro-batch: [`super::cpu_prefill::ram_experts_path`]).
    CpuExperts,
}

/// Memory, decode and prefill of one placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementEstimate {
    /// llama.cpp's table for the placement (rows per device and Host, `-ngl`, `-ts`, args).
    pub table: LlamaCppFit,
    /// `--split-mode`.
    pub split_mode: SplitMode,
    /// Layers whose routed experts are (at least partly) in system RAM.
    pub cpu_moe_layers: u32,
    /// Routed-expert weights in system RAM, GiB.
    pub host_experts_gib: f64,
    /// System RAM the placement takes (the Host row: embedding, CPU layers, experts, their KV), GiB.
    pub host_ram_needed_gib: f64,
    /// The build's RAM; `None` when unknown.
    pub host_ram: Option<HostRam>,
    /// Whether `host_ram_needed_gib` fits it; `None` when unknown.
    pub fits_in_host_ram: Option<bool>,
    /// Whether every GPU keeps llama.cpp's margin.
    pub fits_gpus: bool,
    /// Bytes read from system RAM per token at batch 1, GB.
    pub host_gb_per_token: f64,
    /// Bytes read from the GPUs per token at batch 1, GB.
    pub gpu_gb_per_token: f64,
    /// Host bandwidth the runtime reaches on the build's memory, GB/s; `None` without one.
    pub host_decode_gb_s: Option<f64>,
    /// Decode at batch 1, tokens/s; `None` when system RAM is read and the build's memory is
    /// unknown, when it does not fit the RAM, or for a split mode not modelled (row).
    pub decode_tokens_per_s: Option<f64>,
    /// Decode of all sequences at the workload's batch, tokens/s (the experts the batch's tokens
    /// touch, `E(1-(1-k/E)^b)` per layer); `None` as above.
    pub decode_batch_tokens_per_s: Option<f64>,
    /// Prefill, tokens/s; `None` when the all-GPU compute rate is unknown or the split mode is
    /// not modelled.
    pub prefill_tokens_per_s: Option<f64>,
    /// What bounds the prefill.
    pub prefill_bound: PrefillBound,
    /// Why a figure is `None`, in words.
    pub unknown_because: Option<String>,
    /// Whether this is the user's own placement as given ([`place_as_given`]), not the one
    /// `llama-fit-params` picks: its verdict is its own (it runs or it does not).
    #[serde(skip)]
    pub as_given: bool,
    /// Where the weights sit, in words ([`placement_words`]): `every weight on the GPUs`,
    /// `--n-cpu-moe 20: the routed experts of 20 layers in system RAM (16.9 GiB)`, `all routed
    /// experts in system RAM (...)`, `-ot: the routed experts of 10 layers ...`, `-ngl 60: ...`.
    #[serde(skip)]
    pub words: String,
    /// llama.cpp's micro-batch (`-ub`) the placement is estimated at, tokens (default 512).
    #[serde(skip)]
    pub ubatch_tokens: u32,
    /// The host memory the weights in system RAM sit in (pageable with mmap on, llama.cpp's
    /// default; pinned with `--no-mmap`), which sets the prefill's copy rate.
    pub host_weights: HostWeightMemory,
    /// The host link the prefill copies the RAM-held weights over: the first GPU's, to which
    /// ggml's scheduler offloads them ([`offload_host_link`]; its PCIe link as negotiated, or an NVLink-bridged or SXM card's own PCIe interface), in words
    /// (`PCIe 4.0 x16, 31.5 GB/s per direction`); `None` with nothing in system RAM.
    #[serde(skip)]
    pub host_link: Option<String>,
}

impl PlacementEstimate {
    /// Whether anything (experts or whole layers) is in system RAM.
    pub fn is_hybrid(&self) -> bool {
        self.cpu_moe_layers > 0 || self.table.n_gpu_layers < self.layers()
    }

    /// The model's layers.
    pub fn layers(&self) -> u32 {
        self.table.rows.iter().map(|r| r.layers).sum()
    }

    /// Whether the placement runs on the build: the GPUs keep their margin and the host part
    /// fits the RAM (or the RAM is unknown).
    pub fn runs(&self) -> bool {
        self.fits_gpus && self.fits_in_host_ram != Some(false)
    }
}

/// Fraction of one MoE layer's routed experts that `b` tokens touch: the expected distinct
/// experts over `E` for top-`k` routing, `1 - (1 - k/E)^b` (uniform routing). 1 for a dense model.
pub(crate) fn experts_touched_fraction(input: &FitInput, b: u32) -> f64 {
    match input.model.experts.as_ref().filter(|e| e.routed > 0) {
        Some(e) => {
            let p = f64::from(e.per_token.min(e.routed)) / f64::from(e.routed);
            1.0 - (1.0 - p).powf(f64::from(b.max(1)))
        }
        None => 1.0,
    }
}

/// Host-link bandwidth of a GPU, GB/s per direction: its PCIe link (an NVLink-bridged or SXM
/// card's own PCIe interface).
fn host_link_gb_s(slot: &GpuSlot) -> f64 {
    match slot.link {
        Link::Pcie { .. } => slot.link.per_direction_gb_s(),
        Link::NvLink { .. } => pcie_lane_gb_s(slot.gpu.pcie_gen) * f64::from(slot.gpu.pcie_lanes),
    }
}

/// The host link the prompt's RAM-held weights cross, in words, with its rate per direction
/// (the link [`host_link_gb_s`] reads); `None` without GPUs. ggml's scheduler gives an op whose
/// weights sit in a host buffer to the first back end that wants to offload it
/// (`ggml_backend_sched_backend_id_from_cur`, ggml/src/ggml-backend.cpp: `for (int b = 0; b <
/// src_backend_id; b++) ... return b;`), and the first GPU always wants it at a prompt's
/// micro-batch, so every copied expert crosses the first GPU's link, whatever the other GPUs'
/// links are.
fn offload_host_link(gpus: &[GpuSlot]) -> Option<String> {
    let slot = gpus.first()?;
    let words = match slot.link {
        Link::Pcie { .. } => slot.link.to_string(),
        Link::NvLink { .. } => format!("PCIe {}.0 x{}", slot.gpu.pcie_gen, slot.gpu.pcie_lanes),
    };
    let gpu = if gpus.len() > 1 { format!("the first GPU's {words}") } else { words };
    Some(format!("{gpu}, {:.1} GB/s per direction", host_link_gb_s(slot)))
}

/// Layers per GPU for a user `--tensor-split`: llama.cpp gives layer `i` of the `ngl` offloaded
/// ones to the first GPU whose cumulative proportion exceeds `i / ngl` (`llama-model.cpp`,
/// `std::upper_bound` over the normalised cumulative split).
fn split_by_proportion(ngl: u32, ts: &[f64], gpus: usize) -> Vec<u32> {
    let mut props: Vec<f64> = ts.iter().copied().take(gpus).collect();
    props.resize(gpus, 0.0);
    let sum: f64 = props.iter().sum();
    let mut cum = Vec::with_capacity(gpus);
    let mut acc = 0.0;
    for p in &props {
        acc += p / sum.max(f64::MIN_POSITIVE);
        cum.push(acc);
    }
    let mut out = vec![0u32; gpus];
    for i in 0..ngl {
        let x = f64::from(i) / f64::from(ngl.max(1));
        let d = cum.iter().position(|c| *c > x).unwrap_or(gpus - 1);
        out[d] += 1;
    }
    out
}

/// The expert mask of `flags` over the layout: `--n-cpu-moe` first, then each `-ot` rule adds
/// the third of a layer's experts per matched tensor (gate, up, down).
fn mask_of(layout: &Layout<'_>, flags: &LlamaCppFlags) -> Result<Vec<f64>, FitError> {
    let mut mask = layout.first_layers_mask(flags.n_cpu_moe.unwrap_or(0).min(layout.layers));
    let shared = layout.input.model.experts.as_ref().and_then(|e| e.shared);
    for o in &flags.overrides {
        for l in 0..layout.layers {
            let moe = layout.is_moe(l);
            if let Some(t) = other_tensors(l)
                .into_iter()
                .find(|t| o.pattern.is_match(t) && !(moe && absent_or_rides_with_experts(t, shared)))
            {
                return Err(FitError::Unsupported(format!(
                    "-ot {o} also moves `{t}`: only routed-expert tensors (blk.N.ffn_*_exps) in system RAM are modelled"
                )));
            }
            if !layout.is_moe(l) {
                continue;
            }
            let hit = expert_tensors(l).iter().filter(|t| o.pattern.is_match(t)).count();
            let h = &mut mask[l as usize];
            *h = (*h).max(hit as f64 / 3.0);
        }
    }
    Ok(mask)
}

/// Whether `tensor`, named by a broad `-ot` rule such as `blk\.2[0-9]\.ffn.*=CPU` on a MoE
/// layer, is either not in that layer or one of its small FFN tensors that move along with
/// the routed experts:
/// - a MoE layer has no dense FFN (`ffn_gate`, `ffn_up`, `ffn_down`: llama.cpp creates them
///   only for the dense layers, `llama-model.cpp`), and no shared expert (`ffn_*_shexp`) when
///   the model has none (`shared` = `Some(0)`; `None`, not entered, keeps them refused);
/// - the router (`ffn_gate_inp`, hidden × experts, kept in F32 by llama.cpp's quantizer) and
///   the FFN norm (`ffn_norm`, hidden × F32) ride with the experts. Their bytes stay counted on
///   the GPU (an over-count of hidden × (experts + 1) × 4 bytes per layer: 2 MiB on
///   Qwen3-235B-A22B, 4096 × 129 × 4, beside 2.6 GB of Q8_0 experts per layer, under 0.1 %);
///   their compute is one small matrix-vector product per token.
///
/// A shared expert the model has, and the dense FFN of a dense layer, are a real cost: rules
/// that move them stay refused.
fn absent_or_rides_with_experts(tensor: &str, shared: Option<u32>) -> bool {
    let dense_ffn = [".ffn_gate.weight", ".ffn_up.weight", ".ffn_down.weight"];
    let shexp = [".ffn_gate_shexp.weight", ".ffn_up_shexp.weight", ".ffn_down_shexp.weight"];
    tensor.ends_with(".ffn_gate_inp.weight")
        || tensor.ends_with(".ffn_norm.weight")
        || dense_ffn.iter().any(|s| tensor.ends_with(s))
        || (shared == Some(0) && shexp.iter().any(|s| tensor.ends_with(s)))
}

/// Memory per device, decode and prefill of `input` on `gpus` placed as `flags` say, under a
/// llama.cpp-family runtime (llama.cpp, ik_llama.cpp) or ktransformers (whose GPU holds the
/// dense part and every routed expert stays in RAM: give `-ot exps=CPU`). `host`: the build's
/// memory (channels, speed, sockets), `None` when unknown (no decode where RAM is read);
/// `ram`: its size, `None` when unknown.
///
/// # Errors
/// [`FitError::Unsupported`] for an `-ot` rule that moves tensors other than routed experts,
/// for training, and for other runtimes; [`FitError::NoGpus`] for no GPU.
pub fn place(
    input: &FitInput,
    gpus: &[GpuSlot],
    host: Option<HostMemory>,
    ram: Option<HostRam>,
    flags: &LlamaCppFlags,
) -> Result<PlacementEstimate, FitError> {
    let runtime = input.resolved_runtime();
    if input.mode.is_training() {
        return Err(FitError::Unsupported("llama.cpp placement flags are for inference".into()));
    }
    if !(runtime.is_llama_cpp_family() || runtime == Runtime::KTransformers) {
        return Err(FitError::Unsupported(format!(
            "llama.cpp placement flags (--n-cpu-moe, -ot, -sm, -ts) under {runtime}: give --runtime llama.cpp or ik_llama.cpp"
        )));
    }
    if gpus.is_empty() {
        return Err(FitError::NoGpus);
    }
    // A load flag given with the placement (`--no-mmap`, `-rtr`) overrides the input's.
    let given;
    let weights = flags.host_weights.unwrap_or(input.llama_cpp_host_weights);
    let rtr = flags.run_time_repack || input.run_time_repack;
    let input = if weights != input.llama_cpp_host_weights || rtr != input.run_time_repack {
        given = FitInput { llama_cpp_host_weights: weights, run_time_repack: rtr, ..input.clone() };
        &given
    } else {
        input
    };
    let mut layout = Layout::new(input, gpus);
    // `-ub`: llama.cpp reserves its compute graph at `min(n_ctx, n_ubatch)` tokens
    // (`llama_context::sched_reserve`, src/llama-context.cpp: `n_tokens =
    // std::min(cparams.n_ctx, cparams.n_ubatch)`, every output kept), so the FP32 logits of the
    // compute buffer are that many tokens wide; the default 512 is `Layout::new`'s.
    if let Some(ub) = flags.ubatch {
        let n_ctx = u64::from(input.context_tokens) * u64::from(input.batch.max(1));
        layout.logits_b = n_ctx.min(u64::from(ub.max(1))) as f64 * f64::from(input.model.vocab) * 4.0;
    }
    let ngl = flags.n_gpu_layers.unwrap_or(layout.layers).min(layout.layers);
    let mask = mask_of(&layout, flags)?;
    let split = match (&flags.tensor_split, gpus.len()) {
        (_, 1) => vec![ngl],
        (Some(ts), d) => split_by_proportion(ngl, &ts.0, d),
        (None, _) => layout.spread(ngl, &mask),
    };
    let mut rows = layout.rows(ngl, &mask, &split);
    if flags.split_mode == SplitMode::Row && gpus.len() > 1 {
        row_split_rows(&layout, &mut rows, flags.tensor_split.as_ref());
    }
    let n_cpu_moe = flags.n_cpu_moe.unwrap_or(0).min(layout.layers);
    let table = LlamaCppFit {
        fits: keeps_margin(&rows),
        args: args_of(input, ngl, flags, &split, n_cpu_moe),
        rows,
        n_gpu_layers: ngl,
        n_cpu_moe,
        tensor_split: split.clone(),
    };
    let ubatch = f64::from(flags.ubatch.or(input.prompt_ubatch_tokens).unwrap_or(LLAMA_UBATCH as u32).max(1));
    let mut p = estimate_placement(input, gpus, &layout, table, &mask, &split, (flags.split_mode, ubatch), host, ram);
    p.ubatch_tokens = ubatch as u32;
    Ok(p)
}

/// [`place`] for flags a user gives llama.cpp by hand: llama.cpp keeps no margin of its own
/// when it loads what it is told (the 1024 MiB margin is `llama-fit-params`' choice when it
/// picks a placement), so the placement runs where every device's `self` fits its free memory.
///
/// # Errors
/// As [`place`].
pub fn place_as_given(
    input: &FitInput,
    gpus: &[GpuSlot],
    host: Option<HostMemory>,
    ram: Option<HostRam>,
    flags: &LlamaCppFlags,
) -> Result<PlacementEstimate, FitError> {
    let mut p = place(input, gpus, host, ram, flags)?;
    p.fits_gpus = p.table.rows.iter().filter_map(|r| r.free_mib.map(|f| r.self_mib() <= f)).all(|x| x);
    p.as_given = true;
    Ok(p)
}

/// Row split: the layers' weights spread over the GPUs by `ts` (or evenly), KV cache and the
/// output on the main GPU (GPU 0).
fn row_split_rows(layout: &Layout<'_>, rows: &mut [DeviceRow], ts: Option<&TensorSplit>) {
    let d = layout.gpus.len();
    let props: Vec<f64> = match ts {
        Some(t) => {
            let mut p: Vec<f64> = t.0.iter().copied().take(d).collect();
            p.resize(d, 0.0);
            let s: f64 = p.iter().sum();
            p.iter().map(|x| x / s.max(f64::MIN_POSITIVE)).collect()
        }
        None => vec![1.0 / d as f64; d],
    };
    let gpu_rows = &mut rows[..d];
    let model: f64 = gpu_rows.iter().map(|r| r.model_mib).sum();
    let context: f64 = gpu_rows.iter().map(|r| r.context_mib).sum();
    let compute: f64 = gpu_rows.iter().map(|r| r.compute_mib).fold(0.0, f64::max);
    let head = layout.head_b / (1024.0 * 1024.0);
    for (i, r) in gpu_rows.iter_mut().enumerate() {
        r.model_mib = (model - head) * props[i] + if i == 0 { head } else { 0.0 };
        r.context_mib = if i == 0 { context } else { 0.0 };
        r.compute_mib = if i == 0 { compute } else { 0.0 };
    }
}

#[allow(clippy::too_many_arguments, reason = "one placement's parts")]
fn estimate_placement(
    input: &FitInput,
    gpus: &[GpuSlot],
    layout: &Layout<'_>,
    table: LlamaCppFit,
    mask: &[f64],
    split: &[u32],
    (split_mode, ubatch): (SplitMode, f64),
    host: Option<HostMemory>,
    ram: Option<HostRam>,
) -> PlacementEstimate {
    let runtime = input.resolved_runtime();
    let n = layout.layers;
    let ngl = table.n_gpu_layers;
    let first_gpu = n - ngl;
    let model = &input.model;
    let host_of = |l: u32| mask.get(l as usize).copied().unwrap_or(0.0).clamp(0.0, 1.0);
    let kv_read = |l: u32| kv_cache_bytes_layers(model, input.kv_precision, l..l + 1, input.context_tokens, 1, 1);
    // Bytes one decode step of `b` sequences reads: (per GPU, from system RAM).
    let reads = |b: u32| -> (Vec<f64>, f64) {
        let touched = experts_touched_fraction(input, b);
        let bf = f64::from(b);
        let mut per_gpu = vec![0.0; gpus.len()];
        let mut host_b = 0.0;
        // Layers below `first_gpu` run on the CPU from system RAM.
        for l in 0..first_gpu {
            host_b += layout.dense_layer_b + bf * kv_read(l);
            if layout.is_moe(l) {
                host_b += layout.expert_layer_b * touched;
            }
        }
        let mut l = first_gpu;
        for (d, &count) in split.iter().enumerate() {
            for _ in 0..count {
                if l >= n {
                    break;
                }
                per_gpu[d] += layout.dense_layer_b + bf * kv_read(l);
                if layout.is_moe(l) {
                    let host_share = host_of(l);
                    per_gpu[d] += layout.expert_layer_b * touched * (1.0 - host_share);
                    host_b += layout.expert_layer_b * touched * host_share;
                }
                l += 1;
            }
        }
        if let Some(last) = per_gpu.last_mut() {
            *last += layout.head_b;
        }
        (per_gpu, host_b)
    };
    let e_bw = input.decode_bandwidth_efficiency(runtime, gpus);
    let host_bw = host.map(|h| h.decode_gb_s(runtime) * 1e9);
    let used_gpus = split.iter().filter(|c| **c > 0).count().max(1);
    // Layers with weights or experts computed on the CPU pay the CPU back end's fixed cost too
    // (llama.cpp family; ktransformers' constants are fitted with its own kernels).
    let host_layers = (0..n).filter(|&l| l < first_gpu || (layout.is_moe(l) && host_of(l) > 0.0)).count() as f64;
    let host_overhead_s =
        if runtime.is_llama_cpp_family() { host_layers * LLAMA_CPP_HOST_LAYER_OVERHEAD_S } else { 0.0 };
    let step_s = |b: u32| -> Option<f64> {
        let (per_gpu, host_b) = reads(b);
        let on_gpus_s: f64 =
            per_gpu.iter().zip(gpus).map(|(bytes, s)| bytes / (e_bw * s.gpu.memory_bandwidth_gb_s * 1e9)).sum();
        let host_s = if host_b > 0.0 { host_b / host_bw? } else { 0.0 };
        Some(
            on_gpus_s
                + host_s
                + f64::from(n) * input.layer_overhead_s(runtime)
                + host_overhead_s
                + (used_gpus - 1) as f64 * LAYER_SPLIT_HOP_S,
        )
    };
    let (per_gpu1, host1) = reads(1);
    let host_row = table.rows.iter().find(|r| r.free_mib.is_none());
    let host_ram_needed_gib = host_row.map_or(0.0, |r| r.self_mib() / 1024.0);
    let host_experts_b: f64 = (0..n)
        .filter(|&l| layout.is_moe(l))
        .map(|l| if l < first_gpu { layout.expert_layer_b } else { layout.expert_layer_b * host_of(l) })
        .sum();
    let fits_in_host_ram = ram.map(|r| r.holds(host_ram_needed_gib));
    let mut unknown = None;
    let row_split = split_mode == SplitMode::Row && gpus.len() > 1;
    let (mut decode, mut decode_batch) =
        (step_s(1).map(|t| 1.0 / t), step_s(input.batch).map(|t| f64::from(input.batch) / t));
    if host1 > 0.0 && host.is_none() {
        unknown = Some("the build names no CPU or memory kit: system-RAM bandwidth unknown".to_owned());
    }
    if fits_in_host_ram == Some(false) {
        decode = None;
        decode_batch = None;
        unknown =
            ram.map(|r| format!("the build's RAM does not hold it: it needs {}", r.need_vs_has(host_ram_needed_gib)));
    }
    if row_split {
        decode = None;
        decode_batch = None;
        unknown = Some("split mode row: not held to any published measurement, so no decode or prefill figure".into());
    }
    // Prefill: the all-GPU compute rate, plus the copy of host-held weights per micro-batch.
    let (prefill, bound) = if row_split || runtime == Runtime::KTransformers {
        if runtime == Runtime::KTransformers && unknown.is_none() {
            unknown =
                Some("ktransformers prefill runs the experts on the CPU (AMX/AVX-512 kernels): not modelled".into());
        }
        (None, PrefillBound::GpuWithCopies)
    } else {
        // The GPU computes each micro-batch of `-ub` tokens (its MoE GEMMs see `ub × k / E`
        // tokens per expert), so the all-GPU rate is taken at that micro-batch.
        let mut at_ubatch = input.clone();
        at_ubatch.prompt_ubatch_tokens = Some(ubatch as u32);
        let all_gpu = super::estimate(&at_ubatch, gpus).ok().and_then(|r| r.speed).and_then(|s| s.prefill_tokens_per_s);
        let host_weights_b = host_experts_b + f64::from(first_gpu) * layout.dense_layer_b;
        // The first GPU's link carries every copied expert ([`offload_host_link`]).
        let link = gpus.first().map_or(f64::INFINITY, host_link_gb_s);
        match all_gpu {
            None => (None, PrefillBound::Gpu),
            Some(p) if host_weights_b <= 0.0 => (Some(p), PrefillBound::Gpu),
            Some(p) => {
                let ub = ubatch.min(f64::from(input.context_tokens)).max(1.0);
                let copy_rate = host_to_gpu_copy_efficiency(input.llama_cpp_host_weights) * link * 1e9;
                let compute_s = ub / p;
                let experts = model.experts.as_ref().filter(|e| e.routed > 0 && host_experts_b > 0.0);
                let path = match experts {
                    Some(e) => ram_experts_path(
                        runtime,
                        input.llama_cpp_build,
                        input.run_time_repack,
                        ub as u32,
                        e.per_token,
                        e.routed,
                    ),
                    None => Some(RamExpertsPath::CopiedToGpu),
                };
                match (path, experts) {
                    (Some(RamExpertsPath::ComputedOnCpu), Some(e)) => {
                        // The GPU runs its part of the micro-batch: the all-GPU time less the
                        // RAM-held experts' matmuls on the GPU that holds their layer (each MoE
                        // layer's share of that GPU's expert GEMM time, times the layer's share
                        // in RAM; CPU layers at the first GPU's). The dense weights of CPU layers
                        // cross the link as before, and the CPU computes the RAM-held experts:
                        // 2 × k × 3 × hidden × intermediate FLOPs per token per layer, times the
                        // layer's share in RAM, at its rate. Moving experts to the GPU takes
                        // their CPU time off and puts their (shorter) GPU time back.
                        let moe_layers = (0..n).filter(|&l| layout.is_moe(l)).count().max(1) as f64;
                        let gemm_s = |d: usize| {
                            gpus.get(d)
                                .and_then(|g| llama_cpp_expert_gemm_s_per_token(&at_ubatch, g, ub))
                                .unwrap_or(0.0)
                                / moe_layers
                        };
                        let mut device = vec![0usize; n as usize];
                        let mut l = first_gpu;
                        for (d, &count) in split.iter().enumerate() {
                            for _ in 0..count {
                                if let Some(x) = device.get_mut(l as usize) {
                                    *x = d;
                                }
                                l += 1;
                            }
                        }
                        let off_gpu_s: f64 = (0..n)
                            .filter(|&l| layout.is_moe(l))
                            .map(|l| {
                                let host_share = if l < first_gpu { 1.0 } else { host_of(l) };
                                ub * host_share * gemm_s(device.get(l as usize).copied().unwrap_or(0))
                            })
                            .sum();
                        let compute_s = (compute_s - off_gpu_s).max(0.0);
                        let per_layer = 2.0
                            * f64::from(e.per_token.min(e.routed))
                            * 3.0
                            * f64::from(model.hidden)
                            * f64::from(e.intermediate);
                        let share: f64 = (0..n)
                            .filter(|&l| layout.is_moe(l))
                            .map(|l| if l < first_gpu { 1.0 } else { host_of(l) })
                            .sum();
                        let flops = ub * per_layer * share;
                        let dense_s = f64::from(first_gpu) * layout.dense_layer_b / copy_rate;
                        if let Some(rate) = input.host_cpu.and_then(|c| c.expert_gemm_flop_s()) {
                            let cpu_s = flops / rate;
                            let bound = if cpu_s > compute_s + dense_s {
                                PrefillBound::CpuExperts
                            } else {
                                PrefillBound::GpuWithCopies
                            };
                            (Some(ub / (compute_s + dense_s + cpu_s)), bound)
                        } else {
                            if unknown.is_none() {
                                unknown = Some(format!(
                                    "{runtime} computes the routed experts in system RAM on the CPU for a {ub:.0}-token micro-batch: the CPU's base clock or AVX-512 is not known, so the prefill is unknown"
                                ));
                            }
                            (None, PrefillBound::CpuExperts)
                        }
                    }
                    (None, _) => {
                        if unknown.is_none() {
                            unknown = Some(format!(
                                "{runtime}'s build is not stated: before build {IK_LLAMA_ACTIVE_EXPERT_OFFLOAD_BUILD} it copies the RAM-held experts to the GPU for a {ub:.0}-token micro-batch, from it computes them on the CPU, so the prefill is unknown"
                            ));
                        }
                        (None, PrefillBound::GpuWithCopies)
                    }
                    _ => {
                        // Only the experts the micro-batch's tokens are routed to are copied
                        // (llama.cpp PR 15346, "sched : copy only the used experts when
                        // offloading prompt processing"; ik_llama.cpp PR 698): uniform routing
                        // touches 1 - (1 - k/E)^ub.
                        let touched = experts_touched_fraction(input, ub as u32);
                        let copied = host_experts_b * touched + f64::from(first_gpu) * layout.dense_layer_b;
                        let copy_s = copied / copy_rate;
                        let bound =
                            if copy_s > compute_s { PrefillBound::HostLink } else { PrefillBound::GpuWithCopies };
                        (Some(ub / (compute_s + copy_s)), bound)
                    }
                }
            }
        }
    };
    let words = placement_words(layout, mask, &table, host_experts_b / GIB);
    PlacementEstimate {
        as_given: false,
        words,
        ubatch_tokens: ubatch as u32,
        host_weights: input.llama_cpp_host_weights,
        host_link: (host_experts_b > 0.0 || first_gpu > 0).then(|| offload_host_link(gpus)).flatten(),
        cpu_moe_layers: layout.host_expert_layers(mask),
        host_experts_gib: host_experts_b / GIB,
        host_ram_needed_gib,
        host_ram: ram,
        fits_in_host_ram,
        fits_gpus: table.fits,
        host_gb_per_token: host1 / 1e9,
        gpu_gb_per_token: per_gpu1.iter().sum::<f64>() / 1e9,
        host_decode_gb_s: host_bw.map(|b| b / 1e9),
        decode_tokens_per_s: decode,
        decode_batch_tokens_per_s: decode_batch,
        prefill_tokens_per_s: prefill,
        prefill_bound: bound,
        unknown_because: unknown,
        split_mode,
        table,
    }
}

/// Where a placement puts the weights, by what it is (issue 35): nothing in system RAM (`every
/// weight on the GPUs`); the routed experts of every MoE layer (`all routed experts in system
/// RAM`, llama.cpp's `--cpu-moe`, the same as `--n-cpu-moe <layers>`, whatever flag put them
/// there); those of layers `0..N` as `--n-cpu-moe N` gives them; other expert tensors an `-ot`
/// rule moves; and whole layers `-ngl` leaves on the CPU. `host_experts_gib`: the routed-expert
/// weights in system RAM.
fn placement_words(layout: &Layout<'_>, mask: &[f64], table: &LlamaCppFit, host_experts_gib: f64) -> String {
    let n = layout.layers;
    let ngl = table.n_gpu_layers.min(n);
    let first_gpu = n - ngl;
    // Experts in RAM: those `-ot` / `--n-cpu-moe` move, and those of the layers below `-ngl`.
    let host_of = |l: u32| if l < first_gpu { 1.0 } else { mask.get(l as usize).copied().unwrap_or(0.0) };
    let moe: Vec<u32> = (0..n).filter(|&l| layout.is_moe(l)).collect();
    let in_ram = moe.iter().filter(|&&l| host_of(l) > 0.0).count();
    let mut parts = Vec::new();
    let moved = moe.iter().any(|&l| l >= first_gpu && host_of(l) > 0.0);
    if !moe.is_empty() && moe.iter().all(|&l| host_of(l) >= 1.0) {
        parts.push(format!(
            "all routed experts in system RAM ({host_experts_gib:.1} GiB; llama.cpp's --cpu-moe, the same as --n-cpu-moe {n})"
        ));
    } else if moved {
        let whole = moe.iter().all(|&l| host_of(l) <= 0.0 || host_of(l) >= 1.0);
        let by_ncmoe = *mask == layout.first_layers_mask(table.n_cpu_moe);
        let what = if whole { "the routed experts" } else { "part of the routed experts" };
        let flag = if by_ncmoe { format!("--n-cpu-moe {}", table.n_cpu_moe) } else { "-ot".to_owned() };
        parts.push(format!("{flag}: {what} of {in_ram} layers in system RAM ({host_experts_gib:.1} GiB)"));
    }
    if first_gpu > 0 {
        parts.push(format!("-ngl {ngl}: {first_gpu} of {n} layers on the CPU, in system RAM"));
    }
    if parts.is_empty() { "every weight on the GPUs".to_owned() } else { parts.join("; ") }
}

/// The placement llama.cpp's `llama-fit-params` would pick ([`llama_cpp_search`]: the fewest
/// routed experts in RAM, from layer 0 up, then fewer layers on the GPUs), estimated by
/// [`place`]. `None` for runtimes outside the llama.cpp family and for training.
pub fn searched(
    input: &FitInput,
    gpus: &[GpuSlot],
    host: Option<HostMemory>,
    ram: Option<HostRam>,
) -> Option<PlacementEstimate> {
    let (ngl, n) = llama_cpp_search(input, gpus)?;
    let flags = LlamaCppFlags { n_gpu_layers: Some(ngl), n_cpu_moe: (n > 0).then_some(n), ..LlamaCppFlags::default() };
    place(input, gpus, host, ram, &flags).ok()
}

/// Every routed expert in system RAM (`-ot exps=CPU`, ktransformers' placement), the rest on
/// the GPUs. `None` for a dense model.
pub fn all_experts_in_ram(
    input: &FitInput,
    gpus: &[GpuSlot],
    host: Option<HostMemory>,
    ram: Option<HostRam>,
) -> Option<PlacementEstimate> {
    input.model.experts.as_ref().filter(|e| e.routed > 0)?;
    let layers = input.model.layers;
    let flags = LlamaCppFlags { n_cpu_moe: Some(layers), ..LlamaCppFlags::default() };
    place(input, gpus, host, ram, &flags).ok()
}

/// Decode at batch 1 of `input` (an MoE model) with every routed expert in `host` memory and
/// the rest on `gpu` (`None`: CPU only, everything read from host memory), under
/// `input`'s runtime. With a GPU this is the placement `-ot exps=CPU`
/// ([`super::placement::all_experts_in_ram`]): the same bytes and the same decode as any other
/// placement, so putting experts back on the GPU is never slower. Each token reads `k/E` of the
/// expert bytes from RAM (the experts it is routed to) and the rest of the layers, the LM head
/// and the KV cache at the context from the GPU at the runtime's decode efficiency
/// ([`FitInput::decode_bandwidth_efficiency`]); the two run one after the other per layer, plus
/// the runtime's per-layer overhead. `None` for a dense model.
pub fn host_expert_decode(input: &FitInput, gpu: Option<&GpuSlot>, host: HostMemory) -> Option<HostExpertDecode> {
    let m = &input.model;
    let shape = m.experts.as_ref().filter(|e| e.routed > 0)?;
    if let Some(g) = gpu {
        let p = all_experts_in_ram(input, std::slice::from_ref(g), Some(host), None)?;
        return Some(HostExpertDecode {
            placement: super::host::EVERY_ROUTED_EXPERT_IN_RAM,
            is_the_fit: false,
            host_experts_gib: p.host_experts_gib,
            host_ram_needed_gib: p.host_ram_needed_gib,
            host_gb_per_token: p.host_gb_per_token,
            gpu_gb_per_token: p.gpu_gb_per_token,
            host_decode_gb_s: p.host_decode_gb_s.unwrap_or(0.0),
            decode_tokens_per_s: p.decode_tokens_per_s,
            host_ram: None,
            fits_in_host_ram: None,
        });
    }
    let runtime = input.resolved_runtime();
    let (_, head, body) = input_weight_parts(input, runtime, true);
    let experts = super::runtime_memory::routed_expert_bytes(input);
    let picked = f64::from(shape.per_token.min(shape.routed)) / f64::from(shape.routed);
    let host_read = experts * picked;
    let kv = kv_cache_bytes(m, input.kv_precision, input.context_tokens, 1, 1);
    let rest = (body - experts).max(0.0) + head + kv;
    let host_bw = host.decode_gb_s(runtime) * 1e9;
    // On the CPU alone every layer pays the CPU back end's fixed cost (llama.cpp family).
    let per_layer =
        if runtime.is_llama_cpp_family() { LLAMA_CPP_HOST_LAYER_OVERHEAD_S } else { input.layer_overhead_s(runtime) };
    let t = (host_read + rest) / host_bw + f64::from(m.layers) * per_layer;
    Some(HostExpertDecode {
        placement: super::host::EVERY_ROUTED_EXPERT_IN_RAM,
        is_the_fit: false,
        host_experts_gib: experts / GIB,
        // On the CPU alone every weight and the KV cache are in RAM.
        host_ram_needed_gib: (body + head + kv) / GIB,
        host_gb_per_token: (host_read + rest) / 1e9,
        gpu_gb_per_token: 0.0,
        host_decode_gb_s: host_bw / 1e9,
        decode_tokens_per_s: Some(1.0 / t),
        host_ram: None,
        fits_in_host_ram: None,
    })
}

#[cfg(test)]
#[allow(clippy::many_single_char_names, reason = "input, GPUs and placements a, b, c of one test")]
mod tests;

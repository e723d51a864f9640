//! What fits, as a search: the best precision that fits, the longest context at a batch, the
//! largest batch at a context, how many of these GPUs a workload needs, and the llama.cpp
//! CPU-offload split, each by running [`estimate`] on variations of the workload.

use super::calibration::GIB;
pub use super::host::{HOST_DECODE_BANDWIDTH_EFFICIENCY, HOST_RAM_RESERVE_GIB, HostMemory, HostRam};
use super::inputs::{FitInput, GpuSlot, Mode, Parallelism, Precision, Runtime};
use super::placement;
use super::report::FitVerdict;
use super::shape::input_weight_parts;
use super::{FitReport, estimate, kv_cache_bytes};
use serde::Serialize;

/// Largest batch `fit` accepts: vLLM's `max_num_seqs` default is 256 and its scheduler rarely
/// runs above a few thousand sequences per GPU group; a larger figure is a typo, not a plan.
pub const MAX_BATCH: u32 = 4096;

/// Most GPUs of one kind the "how many GPUs" search tries (eight 8-GPU nodes).
pub(crate) const MAX_GPUS_SEARCHED: u32 = 64;

/// Weight precisions tried, best first, for a runtime family.
pub(crate) fn candidate_precisions(runtime: Runtime) -> Vec<Precision> {
    match runtime {
        Runtime::LlamaCpp | Runtime::IkLlamaCpp | Runtime::KTransformers => {
            vec![Precision::Q8_0, Precision::Q6_K, Precision::Q5_K_M, Precision::Q4_K_M, Precision::Q4_0]
        }
        Runtime::ExLlamaV2 => [8.0, 6.0, 5.0, 4.5, 4.0, 3.5, 3.0].into_iter().map(Precision::Bpw).collect(),
        Runtime::Vllm | Runtime::Sglang => vec![Precision::Bf16, Precision::Fp8, Precision::Int4],
        Runtime::TensorRtLlm => vec![Precision::Bf16, Precision::Fp8, Precision::Nvfp4, Precision::Int4],
    }
}

/// The precisions `fit --search` lists for `runtime`: [`candidate_precisions`], and under the
/// llama.cpp family the sub-4-bit GGUF mixes large MoE models are run at (`Q3_K_M`, `IQ4_XS`,
/// `Q2_K`, `IQ3_XXS`, `IQ2_XXS`, `IQ1_S`), most bits first.
pub fn table_precisions(runtime: Runtime) -> Vec<Precision> {
    let mut v = candidate_precisions(runtime);
    if runtime.is_llama_cpp_family() {
        v.extend([
            Precision::IQ4_XS,
            Precision::Q3_K_M,
            Precision::IQ3_XXS,
            Precision::Q2_K,
            Precision::IQ2_XXS,
            Precision::IQ1_S,
        ]);
    }
    v.sort_by(|a, b| b.bits_per_weight().total_cmp(&a.bits_per_weight()));
    v
}

fn fits(r: &FitReport) -> bool {
    r.verdict == FitVerdict::Fits
}

/// `input` at another weight precision (the file's exact bytes no longer apply).
fn at_precision(input: &FitInput, p: Precision) -> FitInput {
    let mut i = input.clone();
    i.weight_precision = p;
    i.file_weights = None;
    i
}

/// The best (most bits) precision of the workload's runtime family that fits with headroom.
pub(crate) fn best_fitting_precision(input: &FitInput, gpus: &[GpuSlot]) -> Option<Precision> {
    let mut i = input.clone();
    i.runtime = Some(input.resolved_runtime());
    candidate_precisions(input.resolved_runtime())
        .into_iter()
        .find(|&p| estimate(&at_precision(&i, p), gpus).is_ok_and(|r| fits(&r)))
}

/// Largest batch (up to [`MAX_BATCH`]) that fits at the workload's context; `None` when not
/// even one sequence does.
pub fn largest_batch(input: &FitInput, gpus: &[GpuSlot]) -> Option<u32> {
    let ok = |b: u32| {
        let mut i = input.clone();
        i.batch = b;
        estimate(&i, gpus).is_ok_and(|r| fits(&r))
    };
    if !ok(1) {
        return None;
    }
    let (mut lo, mut hi) = (1u32, MAX_BATCH);
    if ok(hi) {
        return Some(hi);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// How many GPUs like the first of `gpus` the workload needs to fit with headroom (layer split
/// for llama.cpp and for counts that are not a power of two, else tensor parallel), and the
/// parallelism used; `None` when even [`MAX_GPUS_SEARCHED`] do not.
pub fn gpus_needed(input: &FitInput, gpus: &[GpuSlot]) -> Option<(u32, Parallelism)> {
    let first = gpus.first()?;
    let start = input.parallelism.degree().max(1);
    (start..=MAX_GPUS_SEARCHED).find_map(|n| {
        let slots: Vec<GpuSlot> = (0..n).map(|_| first.clone()).collect();
        let par = if n == 1 {
            Parallelism::Single
        } else if !input.mode.is_training() && !n.is_power_of_two() && input.resolved_runtime().pipelines_layer_split()
        {
            // A serving runtime's layer split is its pipeline parallel (as `fit` takes it).
            Parallelism::TensorPipeline { tp: 1, pp: n }
        } else if input.mode.is_training() || input.resolved_runtime().is_llama_cpp_family() || !n.is_power_of_two() {
            Parallelism::LayerSplit(n)
        } else {
            Parallelism::TensorParallel(n)
        };
        let mut i = input.clone();
        i.parallelism = par;
        estimate(&i, &slots).is_ok_and(|r| fits(&r)).then_some((n, par))
    })
}

/// A llama.cpp split between GPUs and system RAM (`-ngl`, or `--n-cpu-moe` for MoE experts).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Offload {
    /// Layers kept on the GPUs (`-ngl`).
    pub gpu_layers: u32,
    /// Layers whose weights stay in system RAM.
    pub cpu_layers: u32,
    /// Weights in system RAM, GiB (CPU layers and the token embedding).
    pub host_weights_gib: f64,
    /// System RAM the split needs, GiB: the CPU layers' weights, the token embedding and the
    /// CPU layers' KV cache.
    pub host_ram_needed_gib: f64,
    /// Whether that fits the build's RAM after [`HOST_RAM_RESERVE_GIB`] ([`bound_by_ram`]);
    /// `None` when the build names no memory.
    pub fits_in_host_ram: Option<bool>,
    /// Decode at batch 1, tokens/s: GPU layers at their bandwidth, CPU layers at
    /// [`HOST_DECODE_BANDWIDTH_EFFICIENCY`] of the host bandwidth; `None` without a host
    /// bandwidth, or when the split does not fit the build's RAM.
    pub decode_tokens_per_s: Option<f64>,
}

/// Bounds the offload advice of `alt` by the build's RAM: a split whose whole system-RAM part
/// the RAM does not hold ([`HostRam::holds`]) is marked `fits_in_host_ram: Some(false)` and loses its decode
/// speed (it cannot run on this build); with `ram` `None` (no memory in the build) the
/// advice is left unbounded with `fits_in_host_ram: None`.
pub(crate) fn bound_by_ram(alt: &mut Alternatives, ram: Option<HostRam>) {
    let Some(ram) = ram else { return };
    if let Some(o) = alt.offload.as_mut() {
        let fits = ram.holds(o.host_ram_needed_gib);
        o.fits_in_host_ram = Some(fits);
        if !fits {
            o.decode_tokens_per_s = None;
        }
    }
    if let Some(o) = alt.moe_offload.as_mut() {
        let fits = ram.holds(o.host_ram_needed_gib);
        o.fits_in_host_ram = Some(fits);
        if !fits {
            o.decode_tokens_per_s = None;
            o.prefill_tokens_per_s = None;
        }
    }
    alt.host_ram = Some(ram);
}

/// The llama.cpp layer offload that fits: as many layers on the GPUs as their memory holds
/// after runtime buffers, activations and headroom, the rest in system RAM read at
/// `host_bandwidth_gb_s` (theoretical, channels × MT/s × 8 bytes / 1000). `None` when all
/// layers already fit, or not one does.
pub fn llama_cpp_offload(input: &FitInput, gpus: &[GpuSlot], host_bandwidth_gb_s: Option<f64>) -> Option<Offload> {
    if input.mode.is_training() {
        return None;
    }
    let mut i = input.clone();
    i.runtime = Some(Runtime::LlamaCpp);
    let r = estimate(&i, gpus).ok()?;
    if fits(&r) {
        return None;
    }
    let m = &i.model;
    let (embed, head, body) = input_weight_parts(&i, Runtime::LlamaCpp, false);
    let kv = kv_cache_bytes(m, i.kv_precision, i.context_tokens, i.batch, 1);
    let layers = f64::from(m.layers);
    let per_layer = (body + kv) / layers;
    let avail: f64 = r
        .gpus
        .iter()
        .map(|g| (g.capacity_gib - g.memory.headroom_gib - g.memory.runtime_gib - g.memory.activations_gib) * GIB)
        .sum::<f64>()
        - head;
    if avail < per_layer {
        return None;
    }
    let gpu_layers = ((avail / per_layer).floor() as u32).min(m.layers.saturating_sub(1));
    let cpu_layers = m.layers - gpu_layers;
    let active = m.active_b() / m.params_b;
    let host_body = body * f64::from(cpu_layers) / layers;
    let gpu_body = body - host_body;
    let decode = host_bandwidth_gb_s.filter(|b| *b > 0.0).map(|host_bw| {
        let gpu_bw: f64 = gpus.iter().map(|g| g.gpu.memory_bandwidth_gb_s).fold(f64::INFINITY, f64::min);
        let on_gpu_s = (gpu_body * active + head + kv * f64::from(gpu_layers) / layers)
            / (input.decode_bandwidth_efficiency(Runtime::LlamaCpp, gpus) * gpu_bw * 1e9);
        let on_host_s = (host_body * active + kv * f64::from(cpu_layers) / layers)
            / (HOST_DECODE_BANDWIDTH_EFFICIENCY * host_bw * 1e9);
        1.0 / (on_gpu_s + on_host_s + layers * input.layer_overhead_s(Runtime::LlamaCpp))
    });
    Some(Offload {
        gpu_layers,
        cpu_layers,
        host_weights_gib: (host_body + embed) / GIB,
        host_ram_needed_gib: (host_body + embed + kv * f64::from(cpu_layers) / layers) / GIB,
        fits_in_host_ram: None,
        decode_tokens_per_s: decode,
    })
}

/// llama.cpp MoE expert offload (`--n-cpu-moe N`): attention, shared weights and the KV cache
/// of every layer stay on the GPUs, the routed experts of layers `0..N` go to system RAM. The
/// placement is [`super::placement::searched`] (what `llama-fit-params` picks: the fewest
/// experts in RAM that keep llama.cpp's margin), and its decode and prefill are that
/// placement's ([`super::placement::place`]), so the `N` named, the memory table and the
/// speeds describe one placement. `host`: the build's memory, `None` when unknown (no decode).
/// `None` for dense models, training, when everything fits on the GPUs, or when not even the
/// non-expert part does (whole layers must leave: [`llama_cpp_offload`]).
pub fn llama_cpp_moe_offload(input: &FitInput, gpus: &[GpuSlot], host: Option<HostMemory>) -> Option<MoeOffload> {
    let m = &input.model;
    m.active_params_b.filter(|a| *a < m.params_b)?;
    m.experts.as_ref().filter(|e| e.routed > 0)?;
    if input.mode.is_training() {
        return None;
    }
    let mut i = input.clone();
    if !i.resolved_runtime().is_llama_cpp_family() {
        i.runtime = Some(Runtime::LlamaCpp);
    }
    // The GPUs the workload's parallelism uses (as `estimate` slices them).
    let used = &gpus[..(i.parallelism.degree() as usize).clamp(1, gpus.len().max(1)).min(gpus.len())];
    let p = placement::searched(&i, used, host, None)?;
    if p.cpu_moe_layers == 0 || p.table.n_gpu_layers < m.layers || !p.fits_gpus {
        return None;
    }
    Some(MoeOffload::of(&p))
}

/// A llama.cpp MoE expert offload ([`llama_cpp_moe_offload`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoeOffload {
    /// `--n-cpu-moe N`: the experts of layers `0..N` stay in system RAM.
    pub n_cpu_moe: u32,
    /// Layers whose routed experts stay in system RAM (`N` less the dense layers below it).
    pub cpu_moe_layers: u32,
    /// Expert weights in system RAM, GiB.
    pub host_experts_gib: f64,
    /// System RAM the split takes, GiB: the experts and the rest llama.cpp keeps there (its
    /// Host row: token embedding, buffers), [`super::placement::PlacementEstimate::host_ram_needed_gib`].
    pub host_ram_needed_gib: f64,
    /// Whether the build's RAM holds `host_ram_needed_gib` after [`HOST_RAM_RESERVE_GIB`]
    /// ([`HostRam::holds`], [`bound_by_ram`]);
    /// `None` when the build names no memory.
    pub fits_in_host_ram: Option<bool>,
    /// Decode at batch 1, tokens/s, of this placement ([`super::placement::place`]); `None`
    /// without the build's memory, or when the experts do not fit the build's RAM.
    pub decode_tokens_per_s: Option<f64>,
    /// Prefill of this placement, tokens/s: GPU compute plus the copy of the host-held experts
    /// over the host link per micro-batch; `None` when unknown.
    pub prefill_tokens_per_s: Option<f64>,
    /// The llama.cpp arguments of the placement.
    pub args: String,
    /// The host memory the prefill's copy reads the RAM-held weights from
    /// ([`placement::PlacementEstimate::host_weights`]); in the JSON of the placement itself.
    #[serde(skip)]
    pub host_weights: placement::HostWeightMemory,
}

impl MoeOffload {
    /// The headline of a build that runs with this split: "fits with experts in system RAM",
    /// or, where no routed expert is in RAM (a dense model's `-ngl` below its layer count),
    /// "fits with layers in system RAM".
    pub fn headline(&self) -> &'static str {
        if self.cpu_moe_layers > 0 { "fits with experts in system RAM" } else { "fits with layers in system RAM" }
    }

    /// What the split puts in system RAM, for a GPU line: "the experts of 48 layers", or "the
    /// layers -ngl leaves off the GPUs" where no routed expert is in RAM.
    pub fn in_ram_phrase(&self) -> String {
        if self.cpu_moe_layers > 0 {
            format!("the experts of {} layers", self.cpu_moe_layers)
        } else {
            "the layers -ngl leaves off the GPUs".to_owned()
        }
    }

    /// The offload figures of a placement.
    pub fn of(p: &placement::PlacementEstimate) -> MoeOffload {
        MoeOffload {
            n_cpu_moe: p.table.n_cpu_moe,
            cpu_moe_layers: p.cpu_moe_layers,
            host_experts_gib: p.host_experts_gib,
            host_ram_needed_gib: p.host_ram_needed_gib,
            fits_in_host_ram: p.fits_in_host_ram,
            decode_tokens_per_s: p.decode_tokens_per_s,
            prefill_tokens_per_s: p.prefill_tokens_per_s,
            args: p.table.args.clone(),
            host_weights: p.host_weights,
        }
    }
}

/// What would fit instead of a workload that does not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alternatives {
    /// The best precision of the same runtime family that fits ([`best_fitting_precision`]).
    pub precision: Option<Precision>,
    /// Longest context that fits at this batch, tokens.
    pub max_context_tokens: Option<u32>,
    /// Largest batch that fits at this context.
    pub max_batch: Option<u32>,
    /// GPUs like the first needed, and how they split the model ([`gpus_needed`]).
    pub gpus_needed: Option<(u32, Parallelism)>,
    /// llama.cpp CPU offload ([`llama_cpp_offload`]).
    pub offload: Option<Offload>,
    /// llama.cpp MoE expert offload ([`llama_cpp_moe_offload`]).
    pub moe_offload: Option<MoeOffload>,
    /// The runtime `offload` and `moe_offload` run under: the fit's own where it is of the
    /// llama.cpp family, else llama.cpp (`--runtime llama.cpp`), since only that family places
    /// layers or experts in system RAM (a JSON reader saw `--n-cpu-moe 11` beside a vLLM fit and
    /// could not tell which runtime runs it).
    pub offload_runtime: Runtime,
    /// Training: whether gradient checkpointing would make it fit (when it is off).
    pub with_gradient_checkpointing: Option<bool>,
    /// Full fine-tune: whether QLoRA would fit.
    pub qlora_fits: Option<bool>,
    /// The build's RAM the offload advice was bounded by ([`bound_by_ram`]); `None` when not
    /// bounded (no memory in the build).
    pub host_ram: Option<HostRam>,
    /// Under a runtime outside the llama.cpp family, the best GGUF quant that fits every layer
    /// on the GPUs under llama.cpp ([`llama_cpp_quant`]); `None` otherwise or when none does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llama_cpp_quant: Option<QuantFit>,
}

/// A precision that fits every weight on the GPUs under another runtime, with its decode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct QuantFit {
    /// The runtime it runs under.
    pub runtime: Runtime,
    /// The precision (the most bits of the runtime's candidates that fit).
    pub precision: Precision,
    /// Decode at batch 1, tokens/s; `None` when not estimated.
    pub decode_tokens_per_s: Option<f64>,
}

/// Where `input`'s runtime is not of the llama.cpp family nor ktransformers (vLLM, SGLang,
/// TensorRT-LLM, ExLlamaV2), on one node, and the workload does not fit: the best llama.cpp GGUF quant
/// ([`candidate_precisions`], Q8_0 to Q4_0) that fits every layer on `gpus`, with its decode.
/// A trial's 2x RTX 3090 for Llama-3.1-70B at bf16 under vLLM was offered eight GPUs and a
/// `-ngl 25` offload at 0.3 tok/s, while Q4_K_M under llama.cpp fits both cards at 18 tok/s.
/// Inference only.
pub fn llama_cpp_quant(input: &FitInput, gpus: &[GpuSlot]) -> Option<QuantFit> {
    let rt = input.resolved_runtime();
    if input.mode.is_training() || rt.is_llama_cpp_family() || rt == Runtime::KTransformers || input.nodes > 1 {
        return None;
    }
    let mut i = input.clone();
    i.runtime = Some(Runtime::LlamaCpp);
    i.parallelism = Parallelism::LayerSplit(u32::try_from(gpus.len()).unwrap_or(1).max(1));
    if gpus.len() <= 1 {
        i.parallelism = Parallelism::Single;
    }
    let precision = best_fitting_precision(&i, gpus)?;
    let r = estimate(&at_precision(&i, precision), gpus).ok()?;
    Some(QuantFit {
        runtime: Runtime::LlamaCpp,
        precision,
        decode_tokens_per_s: r.speed.as_ref().map(|s| s.decode_batch1_tokens_per_s),
    })
}

/// Searches what would fit instead of `input` on `gpus`.
/// `host`: the build's memory (channels, speed, sockets), `None` when unknown.
pub fn alternatives(input: &FitInput, gpus: &[GpuSlot], host: Option<HostMemory>) -> Alternatives {
    let host_bandwidth_gb_s = host.map(|h| h.socket_gb_s() * f64::from(h.sockets.max(1)));
    let training = input.mode.is_training();
    let max_context_tokens =
        if training { None } else { estimate(input, gpus).ok().and_then(|r| r.max_context_tokens) };
    let with_gc = (training && !input.gradient_checkpointing).then(|| {
        let mut i = input.clone();
        i.gradient_checkpointing = true;
        estimate(&i, gpus).is_ok_and(|r| fits(&r))
    });
    let qlora_fits = (input.mode == Mode::FullFineTune).then(|| {
        let mut i = input.clone();
        i.mode = Mode::Qlora;
        i.gradient_checkpointing = true;
        estimate(&i, gpus).is_ok_and(|r| fits(&r))
    });
    Alternatives {
        precision: if training { None } else { best_fitting_precision(input, gpus) },
        max_context_tokens,
        max_batch: if training { None } else { largest_batch(input, gpus) },
        gpus_needed: gpus_needed(input, gpus),
        offload: llama_cpp_offload(input, gpus, host_bandwidth_gb_s),
        moe_offload: llama_cpp_moe_offload(input, gpus, host),
        offload_runtime: Some(input.resolved_runtime())
            .filter(|r| r.is_llama_cpp_family())
            .unwrap_or(Runtime::LlamaCpp),
        with_gradient_checkpointing: with_gc,
        qlora_fits,
        host_ram: None,
        llama_cpp_quant: llama_cpp_quant(input, gpus),
    }
}

/// One row of the "what fits" table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchRow {
    /// Weight precision.
    pub precision: Precision,
    /// Verdict at the workload's context and batch.
    pub verdict: FitVerdict,
    /// Weights in all, GiB.
    pub weights_gib: f64,
    /// Longest context at the workload's batch, tokens.
    pub max_context_tokens: Option<u32>,
    /// Largest batch at the workload's context.
    pub max_batch: Option<u32>,
    /// Decode at batch 1, tokens/s (only where it fits).
    pub decode_batch1_tokens_per_s: Option<f64>,
    /// Decode in all at the workload's batch, tokens/s (only where it fits).
    pub decode_batch_tokens_per_s: Option<f64>,
    /// Prefill, tokens/s (only where it fits).
    pub prefill_tokens_per_s: Option<f64>,
}

/// The "what fits" table: every candidate precision of the runtime family, with its verdict,
/// longest context, largest batch and speeds. Speeds are `None` where it does not fit.
pub fn what_fits(input: &FitInput, gpus: &[GpuSlot]) -> Vec<SearchRow> {
    what_fits_with(input, gpus, &candidate_precisions(input.resolved_runtime()))
}

/// [`what_fits`] over the given precisions.
pub fn what_fits_with(input: &FitInput, gpus: &[GpuSlot], precisions: &[Precision]) -> Vec<SearchRow> {
    let mut base = input.clone();
    base.runtime = Some(input.resolved_runtime());
    precisions
        .iter()
        .copied()
        .filter_map(|p| {
            let i = if p == input.weight_precision { base.clone() } else { at_precision(&base, p) };
            let r = estimate(&i, gpus).ok()?;
            let ok = r.verdict != FitVerdict::DoesNotFit;
            let s = r.speed.as_ref().filter(|_| ok);
            Some(SearchRow {
                precision: p,
                verdict: r.verdict,
                weights_gib: r.weights_total_gib,
                max_context_tokens: r.max_context_tokens,
                max_batch: largest_batch(&i, gpus),
                decode_batch1_tokens_per_s: s.map(|s| s.decode_batch1_tokens_per_s),
                decode_batch_tokens_per_s: s.map(|s| s.decode_batch_tokens_per_s),
                prefill_tokens_per_s: s.and_then(|s| s.prefill_tokens_per_s),
            })
        })
        .collect()
}

/// One point of the memory-versus-context curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContextPoint {
    /// Context per sequence, tokens.
    pub context_tokens: u32,
    /// The fullest GPU's need at that context (total plus headroom), GiB.
    pub required_gib: f64,
    /// The fullest GPU's total without headroom, GiB.
    pub total_gib: f64,
    /// That GPU's memory, GiB.
    pub capacity_gib: f64,
}

/// Memory of the fullest GPU at `points` contexts spaced evenly (in log scale) from 512 tokens
/// (or the model's maximum if smaller) to the model's maximum context, at the workload's
/// batch. Empty for training modes and on estimator errors.
pub fn memory_vs_context(input: &FitInput, gpus: &[GpuSlot], points: usize) -> Vec<ContextPoint> {
    if input.mode.is_training() || points < 2 {
        return Vec::new();
    }
    let max = input.model.max_context.max(1);
    let lo = 512u32.min(max);
    let (ln_lo, ln_hi) = (f64::from(lo).ln(), f64::from(max).ln());
    let mut out: Vec<ContextPoint> = Vec::new();
    for k in 0..points {
        let tokens = (ln_lo + (ln_hi - ln_lo) * k as f64 / (points - 1) as f64).exp().round() as u32;
        if out.last().is_some_and(|p| p.context_tokens >= tokens) {
            continue;
        }
        let mut i = input.clone();
        i.context_tokens = tokens.clamp(1, max);
        let Ok(r) = estimate(&i, gpus) else { return Vec::new() };
        if let Some(g) = r.gpus.iter().max_by(|x, y| {
            (x.memory.required_gib - x.capacity_gib).total_cmp(&(y.memory.required_gib - y.capacity_gib))
        }) {
            out.push(ContextPoint {
                context_tokens: i.context_tokens,
                required_gib: g.memory.required_gib,
                total_gib: g.memory.total_gib,
                capacity_gib: g.capacity_gib,
            });
        }
    }
    out
}

//! Inference speed: decode at batch (weights and live KV read per step, roofline against the
//! tensor peak), tensor-parallel all-reduces over the real link, prefill.

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use super::calibration::{
    ACT_BYTES, DECODE_BANDWIDTH_EFFICIENCY, FP8_TENSOR_EFFICIENCY, FUSED_MOE_EXPERT_BANDWIDTH_EFFICIENCY,
    FUSED_MOE_LAYER_OVERHEAD_S, LAYER_SPLIT_HOP_S, LINK_EFFICIENCY, LLAMA_CPP_FA_KV_PAD_CELLS, LLAMA_CPP_KQ_MASK_BYTES,
    LLAMA_CPP_KV_PAD_CELLS, LLAMA_CPP_SCORE_BYTES_PER_HEAD, NVLINK_ALL_REDUCE_LATENCY_S,
    PCIE_HOST_ALL_REDUCE_LATENCY_S, PCIE_P2P_ALL_REDUCE_LATENCY_S, VLLM_SINGLE_SEQUENCE_ATTENTION_BANDWIDTH_EFFICIENCY,
};
use super::cluster::{INTER_NODE_ALL_REDUCE_HOPS, Interconnect};
use super::inputs::{FitInput, GpuSlot, Link, Parallelism, Runtime, pcie_lane_gb_s};
use super::pipeline::{Stages, round_s};
use super::report::{Bound, SpeedEstimate};
use super::shape::{
    Share, attended, compute_peak_tflops, gguf_mxfp4_expert_bytes, group_formats, input_weight_parts,
    kv_bytes_per_token_layer, layer_window, linear_state_bytes, param_groups, q_dim, table_params,
};
use kraftwerk_catalog::LlmModel;

mod moe_gemm;
pub(crate) use moe_gemm::{llama_cpp_expert_gemm_s_per_token, llama_cpp_mmq_tiles, routed_expert_gemm};

/// Group link: what collective traffic of the GPUs used crosses.
#[derive(Debug, Clone, Copy)]
struct GroupLink {
    per_direction_gb_s: f64,
    latency_s: f64,
    host_staged: bool,
    nvlink: bool,
    inter_node: Option<Interconnect>,
}

/// The link of a tensor group wider than a node: the interconnect.
fn inter_node_group(ic: Interconnect) -> GroupLink {
    GroupLink {
        per_direction_gb_s: ic.per_direction_gb_s(),
        latency_s: INTER_NODE_ALL_REDUCE_HOPS * ic.latency_s(),
        host_staged: false,
        nvlink: false,
        inter_node: Some(ic),
    }
}

fn group_link(gpus: &[GpuSlot], runtime: Runtime) -> GroupLink {
    let all_nvlink = gpus.iter().all(|s| matches!(s.link, Link::NvLink { .. }));
    let slowest = gpus.iter().map(|s| s.link.per_direction_gb_s()).fold(f64::INFINITY, f64::min);
    let slowest = if slowest.is_finite() { slowest } else { 0.0 };
    let geforce = gpus.iter().any(|s| s.gpu.is_geforce());
    if runtime.host_staged_tp() {
        // ExLlamaV2 copies through pinned host memory whatever the link: PCIe bound.
        let pcie = gpus
            .iter()
            .map(|s| match s.link {
                Link::Pcie { .. } => s.link.per_direction_gb_s(),
                Link::NvLink { .. } => pcie_lane_gb_s(s.gpu.pcie_gen) * f64::from(s.gpu.pcie_lanes),
            })
            .fold(f64::INFINITY, f64::min);
        let pcie = if pcie.is_finite() { pcie } else { 0.0 };
        return GroupLink {
            per_direction_gb_s: pcie,
            latency_s: PCIE_HOST_ALL_REDUCE_LATENCY_S,
            host_staged: true,
            nvlink: false,
            inter_node: None,
        };
    }
    if all_nvlink {
        GroupLink {
            per_direction_gb_s: slowest,
            latency_s: NVLINK_ALL_REDUCE_LATENCY_S,
            host_staged: false,
            nvlink: true,
            inter_node: None,
        }
    } else if geforce {
        GroupLink {
            per_direction_gb_s: slowest,
            latency_s: PCIE_HOST_ALL_REDUCE_LATENCY_S,
            host_staged: true,
            nvlink: false,
            inter_node: None,
        }
    } else {
        GroupLink {
            per_direction_gb_s: slowest,
            latency_s: PCIE_P2P_ALL_REDUCE_LATENCY_S,
            host_staged: false,
            nvlink: false,
            inter_node: None,
        }
    }
}

impl GroupLink {
    /// Effective bandwidth for collectives, GB/s: [`LINK_EFFICIENCY`] × per direction, halved
    /// when staged through host memory (every byte crosses PCIe twice).
    fn effective_gb_s(self) -> f64 {
        let staged = if self.host_staged { 0.5 } else { 1.0 };
        LINK_EFFICIENCY * self.per_direction_gb_s * staged
    }

    /// Ring all-reduce of `bytes` over `t` ranks, s: latency + 2(t-1)/t × bytes / bandwidth.
    fn all_reduce_s(self, bytes: f64, t: u32) -> f64 {
        let tf = f64::from(t);
        let bw = self.effective_gb_s() * 1e9;
        let transfer = if bw > 0.0 { 2.0 * (tf - 1.0) / tf * bytes / bw } else { f64::INFINITY };
        self.latency_s + transfer
    }

    fn describe(self) -> String {
        if let Some(ic) = self.inter_node {
            return format!(
                "{ic} between nodes (tensor group wider than a node), {:.1} GB/s per direction",
                self.per_direction_gb_s
            );
        }
        let kind = if self.nvlink {
            "NVLink"
        } else if self.host_staged {
            "PCIe through host memory (no P2P)"
        } else {
            "PCIe peer-to-peer"
        };
        format!("{kind}, {:.1} GB/s per direction", self.per_direction_gb_s)
    }
}

/// Per-GPU decode and compute figures.
struct GpuSpeed {
    bandwidth_gb_s: f64,
    peak_tflops: Option<f64>,
    /// [`FP8_TENSOR_EFFICIENCY`] where the multiplies run at the FP8 rate, else 1.
    fp8_scale: f64,
}

#[allow(clippy::too_many_lines, reason = "one decode roofline over every parallelism; the parts share its closures")]
pub(super) fn speed(
    input: &FitInput,
    used: &[GpuSlot],
    per_node: usize,
    sh: &[Share],
    runtime: Runtime,
    notes: &mut Vec<String>,
) -> SpeedEstimate {
    let m = &input.model;
    let s = f64::from(input.context_tokens);
    let h = f64::from(m.hidden);
    let layers = f64::from(m.layers);
    let (_, head_b, body_b) = input_weight_parts(input, runtime, true);
    let total_params = m.params_b * 1e9;
    let table = table_params(m).min(total_params / 4.0);
    // A tied model stores one vocabulary table, an untied one two.
    let tables = if m.tied_embeddings { 1.0 } else { 2.0 };
    let body_params = total_params - tables * table;
    let active_body = (m.active_b() * 1e9 - tables * table).clamp(body_params * 0.01, body_params);
    let active_frac = active_body / body_params;
    // Per-group formats of an MoE preset (gpt-oss MXFP4 experts, BF16 rest): every step reads
    // all of the dense part and, of the routed experts, the ones the batch's tokens pick
    // (1 - (1 - k/E)^b of them), each group at its own bytes per weight. (expert bytes,
    // dense bytes, k/E)
    let expert_split = match (input.file_weights, group_formats(m, input.weight_precision), m.experts.as_ref()) {
        // A model file read: its own `*_exps` tensors (a gpt-oss GGUF labelled F16 keeps its
        // experts in MXFP4; an Unsloth UD quant keeps attention at more bits than its experts),
        // not the body split by parameter count.
        #[allow(clippy::cast_precision_loss, reason = "a file's byte count, exact below 2^53")]
        (Some(w), _, Some(shape)) if shape.routed > 0 && w.experts > 0 => {
            let expert_bytes = (w.experts as f64).min(body_b);
            Some((
                expert_bytes,
                (body_b - expert_bytes).max(0.0),
                f64::from(shape.per_token.min(shape.routed)) / f64::from(shape.routed),
            ))
        }
        (None, Some(formats), Some(shape)) if shape.routed > 0 => {
            let expert_bytes = param_groups(m).experts * formats.experts.bytes_per_weight();
            Some((
                expert_bytes,
                (body_b - expert_bytes).max(0.0),
                f64::from(shape.per_token.min(shape.routed)) / f64::from(shape.routed),
            ))
        }
        // A GGUF label on gpt-oss: its experts stay MXFP4 (`gguf_mxfp4_expert_bytes`).
        (None, None, Some(shape)) if shape.routed > 0 => {
            gguf_mxfp4_expert_bytes(m, input.weight_precision).map(|expert_bytes| {
                (
                    expert_bytes,
                    (body_b - expert_bytes).max(0.0),
                    f64::from(shape.per_token.min(shape.routed)) / f64::from(shape.routed),
                )
            })
        }
        _ => None,
    };
    // vLLM and SGLang run the routed experts in one fused grouped-GEMM kernel per MoE layer: the
    // experts the step touches stream at that kernel's efficiency, and the layer pays the
    // kernel's fixed cost ([`FUSED_MOE_LAYER_OVERHEAD_S`]). A preset of one precision splits
    // its body by parameter count (every weight at the same bytes).
    let fused_moe = fused_moe_runtime(runtime) && m.experts.as_ref().is_some_and(|e| e.routed > 0);
    let expert_split = if fused_moe {
        expert_split.or_else(|| {
            let shape = m.experts.as_ref()?;
            let groups = param_groups(m);
            let per_weight = body_b / (groups.experts + groups.layers).max(1.0);
            let expert_bytes = groups.experts * per_weight;
            Some((
                expert_bytes,
                (body_b - expert_bytes).max(0.0),
                f64::from(shape.per_token.min(shape.routed)) / f64::from(shape.routed),
            ))
        })
    } else {
        expert_split
    };
    let moe_layers =
        if fused_moe { m.experts.as_ref().map_or(0.0, |e| f64::from(e.layers.min(m.layers))) } else { 0.0 };
    let tp = input.parallelism.tp_degree();
    // Achieved fraction of the bandwidth and fixed cost per layer: the runtime's (llama.cpp's
    // of the builds the input names, `llama_cpp_era`).
    let e_bw = input.decode_bandwidth_efficiency(runtime, used);
    let layer_overhead_s = input.layer_overhead_s(runtime);
    let e_c = input.prefill_efficiency(runtime, used);

    let per_gpu: Vec<GpuSpeed> = used
        .iter()
        .map(|slot| {
            let peak = compute_peak_tflops(&slot.gpu, input.weight_precision, runtime, false);
            GpuSpeed {
                bandwidth_gb_s: slot.gpu.memory_bandwidth_gb_s,
                peak_tflops: peak.map(|(v, _)| v),
                fp8_scale: if peak.is_some_and(|(_, kind)| kind == "fp8") { FP8_TENSOR_EFFICIENCY } else { 1.0 },
            }
        })
        .collect();
    let peak_kind = used
        .first()
        .and_then(|s| compute_peak_tflops(&s.gpu, input.weight_precision, runtime, false))
        .map_or_else(|| "unknown".to_owned(), |(_, k)| k.to_owned());
    let min_peak = per_gpu.iter().map(|g| g.peak_tflops).try_fold(f64::INFINITY, |acc, p| p.map(|v| acc.min(v)));
    if min_peak.is_none() {
        notes
            .push("a GPU's tensor rate for this precision is unknown (not in the catalog): no prefill estimate".into());
    }

    // Time of one decode step with `b` sequences on GPU i: (memory s, compute s, GB read).
    let step_gpu = |i: usize, b: u32| -> (f64, f64, f64) {
        let share = &sh[i];
        let g = &per_gpu[i];
        let lf = f64::from(share.layers.end - share.layers.start) / layers;
        let bf = f64::from(b);
        // Expected fraction of layer weights touched by b tokens (MoE: experts overlap).
        let read_frac = 1.0 - (1.0 - active_frac).powf(bf);
        // (bytes at the decode efficiency, routed-expert bytes at the fused-MoE kernel's).
        let (body_read, fused_read) = match expert_split {
            Some((expert_bytes, dense_bytes, picked)) => {
                let experts = expert_bytes * lf * (1.0 - (1.0 - picked).powf(bf));
                if fused_moe { (dense_bytes * lf, experts) } else { (dense_bytes * lf + experts, 0.0) }
            }
            None => (body_b * lf * read_frac, 0.0),
        };
        let weights = share.width * (body_read + if share.has_head { head_b } else { 0.0 });
        let fused = share.width * fused_read;
        let (_, decode_tokens, _) = attended(m, share.layers.clone(), s);
        // A linear-attention layer reads and writes its fixed state once per step.
        let kv = decode_tokens * bf * kv_bytes_per_token_layer(m, input.kv_precision, tp)
            + 2.0 * bf * linear_state_bytes(m, share.layers.clone(), tp);
        // The KV cache is read by the decode-attention kernel, at its own efficiency under
        // vLLM and SGLang (`kv_read_efficiency`), at the weights' elsewhere.
        let e_kv = kv_read_efficiency(runtime, b).unwrap_or(e_bw);
        let t_dense = weights / (e_bw * g.bandwidth_gb_s * 1e9) + kv / (e_kv * g.bandwidth_gb_s * 1e9);
        let t_mem = t_dense + fused / (FUSED_MOE_EXPERT_BANDWIDTH_EFFICIENCY * g.bandwidth_gb_s * 1e9);
        let flops = bf
            * share.width
            * (2.0 * active_body * lf
                + if share.has_head { 2.0 * table } else { 0.0 }
                + 4.0 * decode_tokens * q_dim(m));
        let t_comp = g.peak_tflops.map_or(0.0, |p| flops / (e_c * g.fp8_scale * p * 1e12));
        // GB read: weights, KV cache and the fused experts.
        (t_mem, t_comp, (weights + kv + fused) / 1e9)
    };

    let tp_n = (tp as usize).min(used.len()).max(1);
    let link = match input.interconnect.filter(|_| input.nodes > 1 && tp_n > per_node) {
        Some(ic) => inter_node_group(ic),
        None => group_link(&used[..tp_n], runtime),
    };
    let stages = match input.parallelism {
        Parallelism::TensorPipeline { pp, .. } => {
            let stage_layers =
                (0..pp as usize).map(|j| sh.get(j * tp_n).map_or(0.0, |x| f64::from(x.layers.end - x.layers.start)));
            Some(Stages::new(used, tp_n, pp as usize, per_node, stage_layers.collect(), input.interconnect, h))
        }
        _ => None,
    };
    // Per stage for micro-batches of `mb`: (step s, all-reduce s, memory s, compute s).
    let stage_times = |st: &Stages, mb: u32| -> Vec<(f64, f64, f64, f64)> {
        let msg = f64::from(mb) * h * ACT_BYTES;
        st.layers
            .iter()
            .enumerate()
            .map(|(j, lj)| {
                let ranks = (j * st.tp..(j + 1) * st.tp).filter(|&i| i < used.len()).map(|i| step_gpu(i, mb));
                let (mem, comp) = ranks.fold((0.0, 0.0), |(a, b), (tm, tc, _)| (f64::max(a, tm), f64::max(b, tc)));
                let ar = if st.tp > 1 { 2.0 * lj * link.all_reduce_s(msg, tp) } else { 0.0 };
                let fixed = lj * layer_overhead_s + lj / layers * moe_layers * FUSED_MOE_LAYER_OVERHEAD_S;
                (mem.max(comp) + fixed + ar, ar, mem, comp)
            })
            .collect()
    };
    // Fixed cost per step: every layer's, and the fused-MoE kernel's per MoE layer.
    let overhead = layers * layer_overhead_s + moe_layers * FUSED_MOE_LAYER_OVERHEAD_S;
    // Decode step time and bound for `b` sequences (per replica for data parallel).
    let step = |b: u32| -> (f64, Bound, f64, f64) {
        let reads: Vec<(f64, f64, f64)> = (0..used.len()).map(|i| step_gpu(i, b)).collect();
        let gb: f64 = reads.iter().map(|r| r.2).sum();
        let parts: Vec<(f64, f64)> = reads.iter().map(|r| (r.0, r.1)).collect();
        match input.parallelism {
            Parallelism::LayerSplit(n) => {
                let work: f64 = parts.iter().map(|(tm, tc)| tm.max(*tc)).sum();
                let mem: f64 = parts.iter().map(|p| p.0).sum();
                let comp: f64 = parts.iter().map(|p| p.1).sum();
                let bound = if comp > mem { Bound::Compute } else { Bound::Memory };
                (work + overhead + f64::from(n - 1) * LAYER_SPLIT_HOP_S, bound, 0.0, gb)
            }
            Parallelism::TensorPipeline { pp, .. } => {
                let Some(st) = stages.as_ref() else { return (f64::INFINITY, Bound::Memory, 0.0, gb) };
                // Micro-batches fill the stages (vLLM virtual engines).
                let micro = b.min(pp).max(1);
                let mb = b.div_ceil(micro);
                let times = stage_times(st, mb);
                let step_s: Vec<f64> = times.iter().map(|t| t.0).collect();
                let ar: f64 = times.iter().map(|t| t.1).sum();
                let slowest = times.iter().copied().fold((0.0, 0.0, 0.0, 0.0), |a, t| if t.0 > a.0 { t } else { a });
                let bound = if slowest.3 > slowest.2 { Bound::Compute } else { Bound::Memory };
                (round_s(&step_s, st.hops_s(f64::from(mb)), micro), bound, ar, gb)
            }
            Parallelism::TensorParallel(t) => {
                let mem = parts.iter().map(|p| p.0).fold(0.0, f64::max);
                let comp = parts.iter().map(|p| p.1).fold(0.0, f64::max);
                let msg = f64::from(b) * h * ACT_BYTES;
                let ar = 2.0 * layers * link.all_reduce_s(msg, t);
                let bound = if comp > mem { Bound::Compute } else { Bound::Memory };
                (mem.max(comp) + overhead + ar, bound, ar, gb)
            }
            Parallelism::Single | Parallelism::DataParallel(_) => {
                let (mem, comp) = parts.first().copied().unwrap_or((f64::INFINITY, 0.0));
                let bound = if comp > mem { Bound::Compute } else { Bound::Memory };
                let one = used.len().max(1) as f64;
                (mem.max(comp) + overhead, bound, 0.0, gb / one)
            }
        }
    };

    let (t1, _, ar1, gb1) = step(1);
    let batch = input.batch;
    // Data-parallel replicas share the batch; each runs its part concurrently.
    let per_replica = match input.parallelism {
        Parallelism::DataParallel(d) => batch.div_ceil(d).max(1),
        _ => batch,
    };
    let (tb, bound, _, _) = step(per_replica);
    let (decode_batch, per_seq) = (f64::from(batch) / tb, 1.0 / tb);

    // Prefill of one prompt of `s` tokens, and of many at once.
    let prefill = min_peak
        .map(|_| prefill_rate(input, used, sh, &per_gpu, runtime, link, stages.as_ref(), active_body, body_b, 1.0));
    // The batch's prompts packed into the runtime's chunk; pipeline stages take up to `pp` packs.
    let packed = min_peak.map(|_| {
        let (one, many) = prefill_rate(
            input,
            used,
            sh,
            &per_gpu,
            runtime,
            link,
            stages.as_ref(),
            active_body,
            body_b,
            f64::from(batch.max(1)),
        );
        let pp = input.parallelism.pp_degree();
        if pp > 1 { (one * f64::from(batch.min(pp).max(1))).min(many) } else { one }
    });
    let (slowest_stage_ms, handoff_ms) = match (&stages, input.parallelism) {
        (Some(st), Parallelism::TensorPipeline { pp, .. }) => {
            let micro = per_replica.min(pp).max(1);
            let slowest = stage_times(st, per_replica.div_ceil(micro)).iter().map(|t| t.0).fold(0.0, f64::max);
            (Some(slowest * f64::from(micro) * 1e3), st.hops_s(1.0) * 1e3)
        }
        _ => (None, 0.0),
    };
    let crossing = stages.as_ref().map_or(0, Stages::crossings);
    let inter_node_link = input.interconnect.filter(|_| input.nodes > 1).map(|ic| {
        format!(
            "{ic}, {:.1} GB/s per direction, {:.0} µs{}",
            ic.per_direction_gb_s(),
            ic.latency_s() * 1e6,
            if crossing > 0 { format!("; {crossing} stage boundaries cross it") } else { String::new() }
        )
    });

    SpeedEstimate {
        decode_batch1_tokens_per_s: 1.0 / t1,
        decode_batch_tokens_per_s: decode_batch,
        decode_per_sequence_tokens_per_s: per_seq,
        decode_bound: bound,
        bytes_per_token_gb: gb1,
        all_reduce_ms_per_token: ar1 * 1e3,
        prefill_tokens_per_s: prefill.map(|p| p.0),
        time_to_first_token_s: prefill.map(|p| s / p.0),
        compute_peak_tflops: min_peak,
        compute_peak_kind: peak_kind,
        link: (used.len() > 1 && tp > 1).then(|| link.describe()),
        pipeline_stages: input.parallelism.pp_degree(),
        slowest_stage_ms,
        stage_handoff_ms_per_token: handoff_ms,
        prefill_pipelined_tokens_per_s: prefill.map(|p| p.1),
        prefill_packed_tokens_per_s: packed,
        inter_node_link,
    }
}

/// Prefill rates, tokens/s: (one prompt of `context_tokens`, many prompts at once). Per chunk,
/// the slower of compute and streaming the weights once per chunk; a layer split pipelines
/// chunks where the runtime does; tensor parallel adds two all-reduces per layer and chunk;
/// pipeline stages add a handoff per boundary and chunk, and with many prompts work on
/// different prompts at once (bounded by the slowest stage). `pack` prompts of `context_tokens`
/// share each chunk (at most the runtime's chunk): the weights stream once per chunk, attention
/// stays per prompt.
#[allow(clippy::too_many_arguments, reason = "the shared figures of one speed estimate")]
fn prefill_rate(
    input: &FitInput,
    used: &[GpuSlot],
    sh: &[Share],
    per_gpu: &[GpuSpeed],
    runtime: Runtime,
    link: GroupLink,
    stages: Option<&Stages>,
    active_body: f64,
    body_b: f64,
    pack: f64,
) -> (f64, f64) {
    let m = &input.model;
    let s = f64::from(input.context_tokens);
    let h = f64::from(m.hidden);
    let layers = f64::from(m.layers);
    let e_bw = input.decode_bandwidth_efficiency(runtime, used);
    let e_c = input.prefill_efficiency(runtime, used);
    let chunk = f64::from(input.prompt_chunk_tokens(runtime)).min(s * pack.max(1.0)).max(1.0);
    let chunks = (s / chunk).ceil().max(1.0);
    let backend = input.llama_cpp_backend_on(used);
    // Per-token time on GPU i (compute, or weight streaming per chunk if that is slower).
    let t_gpu: Vec<f64> = sh
        .iter()
        .zip(per_gpu)
        .zip(used)
        .map(|((share, g), slot)| {
            let lf = f64::from(share.layers.end - share.layers.start) / layers;
            let moe = routed_expert_gemm(input, runtime, chunk, active_body, llama_cpp_mmq_tiles(backend, &slot.gpu));
            let matmul = 2.0 * (active_body - moe.active) * lf + 2.0 * moe.active * lf * moe.cost;
            let peak = g.peak_tflops.unwrap_or(0.0);
            let rate = e_c * g.fp8_scale * peak * 1e12;
            let t_c = if peak > 0.0 {
                share.width * matmul / rate
                    + attention_prefill_s(input, runtime, share.layers.clone(), s, chunk, rate, e_bw * g.bandwidth_gb_s)
                        * share.width
            } else {
                f64::INFINITY
            };
            // A chunk reads the dense weights and the routed experts its tokens touch.
            let unread = super::runtime_memory::routed_expert_bytes(input).min(body_b) * (1.0 - moe.touched);
            let weights = share.width * (body_b - unread).max(0.0) * lf;
            // The vector kernel's micro-batch is a batched decode step: its fixed cost per layer too.
            let fixed = if moe.vector { lf * layers * input.layer_overhead_s(runtime) } else { 0.0 };
            let t_m = (weights / (e_bw * g.bandwidth_gb_s * 1e9) + fixed) / chunk;
            t_c.max(t_m)
        })
        .collect();
    let sum: f64 = t_gpu.iter().sum();
    let max = t_gpu.iter().copied().fold(0.0, f64::max);
    if let (Some(st), Parallelism::TensorPipeline { .. }) = (stages, input.parallelism) {
        let tp = st.tp.max(1);
        let ar_per_token = |lj: f64| {
            if tp > 1 {
                2.0 * lj * link.all_reduce_s(chunk * h * ACT_BYTES, input.parallelism.tp_degree()) / chunk
            } else {
                0.0
            }
        };
        let stage: Vec<f64> = st
            .layers
            .iter()
            .enumerate()
            .map(|(j, &lj)| t_gpu.iter().skip(j * tp).take(tp).copied().fold(0.0, f64::max) + ar_per_token(lj))
            .collect();
        let (stage_sum, stage_max) = (stage.iter().sum::<f64>(), stage.iter().copied().fold(0.0, f64::max));
        let hops = st.hops_s(chunk) / chunk;
        let one =
            if runtime.pipelines_prompt() { (stage_sum + (chunks - 1.0) * stage_max) / chunks } else { stage_sum }
                + hops;
        let many = stage_max.max(st.max_hop_s(chunk) / chunk);
        return (1.0 / one, 1.0 / many);
    }
    let per_token = match input.parallelism {
        Parallelism::LayerSplit(_) if runtime.pipelines_prompt() => (sum + (chunks - 1.0) * max) / chunks,
        Parallelism::LayerSplit(_) => sum,
        Parallelism::TensorParallel(t) => {
            let per_chunk_msg = chunk * h * ACT_BYTES;
            max + 2.0 * layers * link.all_reduce_s(per_chunk_msg, t) / chunk
        }
        Parallelism::Single | Parallelism::DataParallel(_) | Parallelism::TensorPipeline { .. } => {
            t_gpu.first().copied().unwrap_or(f64::INFINITY)
        }
    };
    (1.0 / per_token, 1.0 / per_token)
}

/// Attention time of prefill per prompt token on `layers`, s, at the compute `rate` (FLOP/s, the
/// GEMMs' achieved rate) and the achieved memory bandwidth `bw_gb_s` (GB/s). The llama.cpp
/// family counts the cells each micro-batch of `ub` tokens attends to
/// ([`llama_cpp_attention_scores`]): with FlashAttention (`FitInput::flash_attention`) the
/// kernel's `4 · head_dim · heads` FLOPs per score at the GEMMs' rate (the FA kernel at the GEMM
/// efficiency: checked, not fitted, on llama.cpp PR 17505, RTX 3090 Llama-3-8B Q4_0 `-ub 512`
/// pp512 at depth 32768, see the test `fa_prefill_at_depth_matches_pr_17505`); without it the
/// scores are materialised in F32 and their memory traffic
/// ([`LLAMA_CPP_SCORE_BYTES_PER_HEAD`] per head + [`LLAMA_CPP_KQ_MASK_BYTES`]) at `bw_gb_s`, or
/// their FLOPs at `rate` where slower. Other runtimes: `4 · q_dim` FLOPs per attended token
/// (causal average, windows capped) at `rate`, as before.
fn attention_prefill_s(
    input: &FitInput,
    runtime: Runtime,
    layers: std::ops::Range<u32>,
    s: f64,
    ub: f64,
    rate: f64,
    bw_gb_s: f64,
) -> f64 {
    let m = &input.model;
    let per_score_flops = 4.0 * q_dim(m);
    if !runtime.is_llama_cpp_family() {
        let (_, _, avg_attended) = attended(m, layers, s);
        return avg_attended * per_score_flops / rate;
    }
    let flash = input.flash_attention;
    let scores = llama_cpp_attention_scores(m, layers, s, ub, flash) / s.max(1.0);
    let t_flops = scores * per_score_flops / rate;
    if flash {
        t_flops
    } else {
        let bytes = scores * (f64::from(m.heads) * LLAMA_CPP_SCORE_BYTES_PER_HEAD + LLAMA_CPP_KQ_MASK_BYTES);
        let t_bytes = if bw_gb_s > 0.0 { bytes / (bw_gb_s * 1e9) } else { f64::INFINITY };
        t_bytes.max(t_flops)
    }
}

/// llama.cpp prefill of one prompt of `s` tokens from an empty cache in micro-batches of `ub`
/// tokens (`-ub`): score elements per query head (query token × KV cell) summed over `layers`
/// (linear-attention layers have none). Micro-batch `j` holds tokens `j·ub..j·ub + u`; the KV
/// cache holds `s` cells rounded up to the padding ([`LLAMA_CPP_FA_KV_PAD_CELLS`] with
/// FlashAttention, [`LLAMA_CPP_KV_PAD_CELLS`] without); a sliding-window layer (window `w`)
/// keeps its own cache of `w + ub` cells, padded (llama.cpp's iSWA cache:
/// `GGML_PAD(n_swa + n_ubatch, n_pad)`, `src/llama-kv-cache-iswa.cpp`), reused as a ring.
///
/// - Without FlashAttention the graph multiplies every query by all `n_kv` cells in use (the
///   used cells rounded up to the padding, at most the cache), masked ones included: `u · n_kv`.
/// - With FlashAttention the CUDA kernels skip the fully masked cells at the end of the cache
///   (llama.cpp PR 14924, 2025-07-28, "CUDA: skip masked KV slices for all FA kernels"), so a
///   full-attention layer costs the causal `u · j·ub + u(u + 1)/2`; a window layer the same
///   while its cells are in order (`j·ub + u` within its cache), then `u ×` its whole cache (the
///   ring's cells are no longer in position order, so nothing is skipped at the end).
pub(crate) fn llama_cpp_attention_scores(
    m: &LlmModel,
    layers: std::ops::Range<u32>,
    s: f64,
    ub: f64,
    flash: bool,
) -> f64 {
    let s = s.max(1.0).round();
    let ub = ub.clamp(1.0, s).round();
    let pad = if flash { LLAMA_CPP_FA_KV_PAD_CELLS } else { LLAMA_CPP_KV_PAD_CELLS };
    let pad_up = |x: f64| (x / pad).ceil() * pad;
    let cache = pad_up(s);
    let mut full = 0.0;
    // (cache cells of a window layer, layers with it)
    let mut windowed: Vec<(f64, f64)> = Vec::new();
    for i in layers {
        if m.attention.is_linear_layer(i) {
            continue;
        }
        match layer_window(m, i) {
            Some(w) => {
                let c = cache.min(pad_up(f64::from(w) + ub));
                match windowed.iter_mut().find(|(cw, _)| (*cw - c).abs() < 0.5) {
                    Some(entry) => entry.1 += 1.0,
                    None => windowed.push((c, 1.0)),
                }
            }
            None => full += 1.0,
        }
    }
    let mut total = 0.0;
    let mut start = 0.0;
    while start < s {
        let u = ub.min(s - start);
        let end = start + u;
        let causal = u * start + u * (u + 1.0) / 2.0;
        total += full * if flash { causal } else { u * cache.min(pad_up(end)) };
        for &(c, n) in &windowed {
            let per = match (flash, end <= c) {
                (true, true) => causal,
                (true, false) => u * c,
                (false, _) => u * c.min(pad_up(end)),
            };
            total += n * per;
        }
        start = end;
    }
    total
}

/// llama.cpp's largest micro-batch whose `MUL_MAT_ID` (routed-expert matmul) runs the vector
/// kernel MMVQ rather than MMQ, tokens: `MMVQ_MAX_BATCH_SIZE` (8) in ggml-org/llama.cpp
/// `ggml/src/ggml-cuda/mmvq.cuh`; `ggml_cuda_mul_mat_id` (`ggml-cuda.cu`) takes
/// `ggml_cuda_mul_mat_vec_q` for `ne2 <= MMVQ_MAX_BATCH_SIZE` (and at most
/// `get_mmvq_mmid_max_batch(type, cc)`, a per-architecture and per-type limit of 4 to 8 in 2026
/// builds, not typed here: 8 is used for every card and format). A count from the code, not a fit.
pub(crate) const LLAMA_CPP_MMVQ_MAX_BATCH_TOKENS: f64 = 8.0;

/// Fraction of peak memory bandwidth at which a decode step with `b` sequences on a GPU reads
/// their KV cache, where the runtime's decode-attention kernel sets it apart from weight
/// streaming: vLLM and SGLang (paged attention; SGLang's FlashInfer/Triton decode kernels are
/// the same shape of work), `min(b × VLLM_SINGLE_SEQUENCE_ATTENTION_BANDWIDTH_EFFICIENCY,
/// DECODE_BANDWIDTH_EFFICIENCY)`: one sequence reads at 0.389 (fitted on tt-inference-server
/// issue 340, see the constant), `b` sequences read `b` times the bytes in one kernel launch,
/// and the efficiency grows linearly with `b` (a model choice, not fitted: no published run
/// at 2 to 3 sequences and long context separates the KV reads) up to the efficiency at which the same runtimes stream weights (0.80, the cap: attention
/// reads no faster than a plain weight stream). `b` of 0 counts as 1. `None` for the other
/// runtimes: they read the KV cache at their weight-streaming efficiency (unchanged).
pub(crate) fn kv_read_efficiency(runtime: Runtime, b: u32) -> Option<f64> {
    matches!(runtime, Runtime::Vllm | Runtime::Sglang).then(|| {
        (f64::from(b.max(1)) * VLLM_SINGLE_SEQUENCE_ATTENTION_BANDWIDTH_EFFICIENCY).min(DECODE_BANDWIDTH_EFFICIENCY)
    })
}

/// Whether `runtime` runs routed experts as one fused grouped-GEMM kernel per MoE layer whose
/// cost is [`FUSED_MOE_LAYER_OVERHEAD_S`] and [`FUSED_MOE_EXPERT_BANDWIDTH_EFFICIENCY`]: vLLM
/// and SGLang (the fit's kernel is vLLM's Triton `fused_moe`; SGLang runs the same kernel
/// family). TensorRT-LLM's MoE kernels are held by its own table and keep the dense model.
fn fused_moe_runtime(runtime: Runtime) -> bool {
    matches!(runtime, Runtime::Vllm | Runtime::Sglang)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model file's own expert bytes split its decode reads: gpt-oss-120b as a `Q4_K_M` GGUF
    /// keeps its experts in MXFP4 (unsloth's file: 49.6 + 13.1 GB, see
    /// `gguf_mxfp4_expert_bytes`), and the same bytes read from a file header (`file_weights`,
    /// experts given) decode as the label does; split by parameter count instead (a file whose
    /// header gave no expert bytes, or this code before it read the file's expert bytes) the
    /// decode comes out 9.7 % faster (384.1 against 350.3 tok/s on an RTX PRO 6000 Blackwell):
    /// the dense tensors' share of the bytes, read every step, is taken too small.
    #[test]
    fn a_files_expert_bytes_split_the_decode_as_its_label_does() {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let m = cat.model("gpt-oss-120b").cloned().expect("gpt-oss-120b");
        let p = super::super::Precision::Q4_K_M;
        let mut i = FitInput::new(m.clone(), p);
        i.runtime = Some(Runtime::LlamaCpp);
        i.context_tokens = 4096;
        let gpus = [GpuSlot::new(cat.gpu("nvidia-rtx-pro-6000-blackwell").cloned().expect("gpu"))];
        let decode = |i: &FitInput| {
            super::super::estimate(i, &gpus)
                .expect("estimate")
                .speed
                .map(|s| s.decode_per_sequence_tokens_per_s)
                .expect("decode")
        };
        let label = decode(&i);
        let (embedding, head, body) = super::super::shape::weight_parts_bytes(&m, p);
        let experts = gguf_mxfp4_expert_bytes(&m, p).expect("MXFP4 experts");
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "byte counts of a test file")]
        let bytes = |x: f64| x.round() as u64;
        let file = kraftwerk_catalog::WeightBytes {
            total: bytes(embedding + head + body),
            embedding: bytes(embedding),
            head: bytes(head),
            experts: bytes(experts),
            tied_embeddings: m.tied_embeddings,
        };
        let mut with_file = i.clone();
        with_file.file_weights = Some(file);
        let from_file = decode(&with_file);
        assert!((from_file / label - 1.0).abs() < 0.01, "file {from_file:.1} vs label {label:.1}");
        let mut no_split = i.clone();
        no_split.file_weights = Some(kraftwerk_catalog::WeightBytes { experts: 0, ..file });
        let by_params = decode(&no_split);
        assert!(by_params > 1.05 * label, "param split {by_params:.1} vs label {label:.1}");
    }

    /// vLLM/SGLang KV reads: 0.389 with one sequence (tt-inference-server issue 340, Qwen3-30B-A3B
    /// on an A100 80GB: 0.7927 GB more KV per step in 1.0 ms more), 0.778 with two, capped at
    /// the weight-streaming 0.80 from three on; other runtimes keep their own efficiency.
    #[test]
    fn kv_read_efficiency_grows_with_sequences_up_to_the_weight_efficiency() {
        for rt in [Runtime::Vllm, Runtime::Sglang] {
            let at = |b| kv_read_efficiency(rt, b).unwrap_or(f64::NAN);
            assert!((at(1) - 0.389).abs() < 1e-9, "{rt:?} b=1: {}", at(1));
            assert!((at(0) - 0.389).abs() < 1e-9, "{rt:?} b=0 counts as 1: {}", at(0));
            assert!((at(2) - 0.778).abs() < 1e-9, "{rt:?} b=2: {}", at(2));
            assert!((at(3) - 0.80).abs() < 1e-9, "{rt:?} b=3 capped: {}", at(3));
            assert!((at(256) - 0.80).abs() < 1e-9, "{rt:?} b=256 capped: {}", at(256));
        }
        // The issue-340 arithmetic: 8064 tokens x 98,304 B in 1.0 ms on 2,040 GB/s.
        let gb_s = 8064.0 * 98_304.0 / 1.0e-3 / 1e9;
        assert!((gb_s / 2040.0 - VLLM_SINGLE_SEQUENCE_ATTENTION_BANDWIDTH_EFFICIENCY).abs() < 0.001, "{gb_s}");
        for rt in
            [Runtime::LlamaCpp, Runtime::IkLlamaCpp, Runtime::ExLlamaV2, Runtime::TensorRtLlm, Runtime::KTransformers]
        {
            assert_eq!(kv_read_efficiency(rt, 1), None, "{rt:?}");
        }
    }
}

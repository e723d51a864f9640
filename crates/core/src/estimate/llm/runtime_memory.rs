//! Memory as llama.cpp lays it out per device, and the basis of every runtime's memory figure.
//!
//! llama.cpp prints, when a server or CLI exits, one row per device (`llama_memory_breakdown_print`,
//! `src/llama-context.cpp`): `total = free + (self = model + context + compute) + unaccounted`,
//! MiB, and `llama-fit-params` (`tools/fit-params`, `llama_params_fit` in `src/llama.cpp`,
//! llama.cpp PR 16653, <https://github.com/ggml-org/llama.cpp/pull/16653>) chooses `-c`, `-ngl`
//! and which MoE expert tensors go to system RAM so that each device keeps a margin of 1024 MiB
//! free. [`llama_cpp_table`] reproduces that table: weights of the layers on each device
//! (`model`), their KV cache (`context`), the compute buffer (`compute`: the FP32 logits of one
//! micro-batch on the device holding the output layer, plus room to copy one host-held expert
//! tensor in for a large batch where experts were moved to system RAM), and the arguments to
//! use. Held to the table in llama.cpp's own `tools/fit-params/README.md` (see
//! `tests/all/llm_vllm_memory.rs`).

#![allow(
    clippy::doc_markdown,
    reason = "hardware and format names (PCIe, NVLink, GeForce, Q4_K_M) read better unquoted"
)]

use super::inputs::{FitInput, GpuSlot, Runtime};
use super::shape::{
    gguf_mxfp4_expert_bytes, group_formats, input_weight_parts, kv_cache_bytes_layers, param_groups, weight_parts_bytes,
};
use serde::Serialize;

/// Bytes in a MiB.
const MIB: f64 = 1024.0 * 1024.0;

/// Memory llama.cpp keeps free on every device when it fits parameters, MiB (`--fit-target`,
/// default 1024: "cannot fulfill margin of 1024 MiB", tools/fit-params/README.md).
pub(crate) const LLAMA_FIT_MARGIN_MIB: f64 = 1024.0;
/// Free memory CUDA reports at start as a fraction of the nominal: 24,077 MiB on an RTX 4090 of
/// 24,564 MiB (tools/fit-params/README.md), 0.980.
pub(crate) const LLAMA_FREE_FRACTION: f64 = 0.980;
/// Micro-batch of llama.cpp (`-ub`, `n_ubatch` default 512), tokens.
pub(crate) const LLAMA_UBATCH: f64 = 512.0;

/// One device's row of llama.cpp's memory breakdown, MiB.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceRow {
    /// `CUDA0 (gpu id)`, or `Host`.
    pub device: String,
    /// Free memory at start (the `total` column less what others use), MiB; `None` for Host.
    pub free_mib: Option<f64>,
    /// Weights held there.
    pub model_mib: f64,
    /// KV cache of the layers held there.
    pub context_mib: f64,
    /// Compute buffer.
    pub compute_mib: f64,
    /// Layers whose weights (at least the dense part) are there.
    pub layers: u32,
    /// Of those, layers whose MoE experts stay in system RAM.
    pub experts_on_host: u32,
}

impl DeviceRow {
    /// `model + context + compute` (llama.cpp's `self`).
    pub fn self_mib(&self) -> f64 {
        self.model_mib + self.context_mib + self.compute_mib
    }

    /// This GPU's verdict under the placement, as llama.cpp's own table decides it: does not
    /// fit above the free memory, tight within llama-fit-params' [`LLAMA_FIT_MARGIN_MIB`] of it,
    /// fits below; `None` for the `Host` row (no free figure).
    pub fn verdict(&self) -> Option<super::FitVerdict> {
        let free = self.free_mib?;
        Some(if self.self_mib() > free {
            super::FitVerdict::DoesNotFit
        } else if self.self_mib() + LLAMA_FIT_MARGIN_MIB > free {
            super::FitVerdict::Tight
        } else {
            super::FitVerdict::Fits
        })
    }
}

/// llama.cpp's per-device table and the arguments that give it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlamaCppFit {
    /// One row per GPU, then `Host`.
    pub rows: Vec<DeviceRow>,
    /// `-ngl`: layers on GPUs.
    pub n_gpu_layers: u32,
    /// `--n-cpu-moe`: layers whose experts stay in system RAM (llama-fit-params prints the same
    /// placement as `-ot` patterns for the last layers; the memory is the same).
    pub n_cpu_moe: u32,
    /// `-ts`: layers per GPU.
    pub tensor_split: Vec<u32>,
    /// The arguments, as one line.
    pub args: String,
    /// Whether every GPU keeps [`LLAMA_FIT_MARGIN_MIB`] free.
    pub fits: bool,
}

/// Per-layer byte counts of a model as llama.cpp places it. [`super::placement`] reads the
/// same bytes for the decode and prefill of a placement, so memory and speed agree.
pub(super) struct Layout<'a> {
    pub(super) input: &'a FitInput,
    pub(super) gpus: &'a [GpuSlot],
    pub(super) layers: u32,
    pub(super) moe_layers: u32,
    pub(super) embed_b: f64,
    pub(super) head_b: f64,
    pub(super) dense_layer_b: f64,
    pub(super) expert_layer_b: f64,
    pub(super) logits_b: f64,
    /// The micro-batch the compute graph is reserved at, tokens: `min(n_ctx, n_ubatch)`.
    pub(super) ubatch_tokens: f64,
    pub(super) free: Vec<f64>,
}

/// Routed-expert bytes of the workload's weights: the file's `*_exps` tensors when read from
/// a file, else the routed-expert parameters at the expert group's format (per-group formats
/// such as gpt-oss's MXFP4 experts), else the experts' share of the layer bytes.
pub(super) fn routed_expert_bytes(input: &FitInput) -> f64 {
    let m = &input.model;
    if m.experts.as_ref().is_none_or(|e| e.routed == 0) {
        return 0.0;
    }
    let g = param_groups(m);
    match (input.file_weights, group_formats(m, input.weight_precision)) {
        (Some(w), _) if w.experts > 0 => w.experts as f64,
        (None, None) if let Some(b) = gguf_mxfp4_expert_bytes(m, input.weight_precision) => b,
        (None, Some(f)) => g.experts * f.experts.bytes_per_weight(),
        _ => {
            let (_, _, body_b) = input_weight_parts(input, input.resolved_runtime(), false);
            let share = if g.experts + g.layers > 0.0 { g.experts / (g.experts + g.layers) } else { 0.0 };
            body_b * share
        }
    }
}

/// The tokens llama.cpp reserves its compute graph at: `min(n_ctx, n_ubatch)`
/// (`llama_context::sched_reserve`, src/llama-context.cpp), the user's `-ub`
/// ([`FitInput::prompt_ubatch_tokens`]), else [`LLAMA_UBATCH`] (512).
fn ubatch_tokens(input: &FitInput) -> f64 {
    input.prompt_ubatch_tokens.map_or(LLAMA_UBATCH, |ub| {
        let n_ctx = u64::from(input.context_tokens) * u64::from(input.batch.max(1));
        n_ctx.min(u64::from(ub.max(1))) as f64
    })
}

/// Copies of each graph input llama.cpp's scheduler keeps per device with pipeline
/// parallelism (`GGML_SCHED_MAX_COPIES`, ggml/src/ggml-backend.cpp: `sched->n_copies = parallel ?
/// GGML_SCHED_MAX_COPIES : 1`), which `llama_context` turns on for a layer split over several
/// devices with every layer offloaded and no tensor override (src/llama-context.cpp:
/// `pipeline_parallel = n_devices > 1 && n_gpu_layers > n_layer && split_mode == LAYER &&
/// offload_kqv && !has_tensor_overrides()`).
const SCHED_MAX_COPIES: f64 = 4.0;

impl<'a> Layout<'a> {
    /// Bytes of the graph inputs a device holding layers keeps in its compute buffer, per copy:
    /// the flash-attention KQ mask, `n_kv × n_ubatch` in F16 (`n_kv` the context of all
    /// sequences padded to 256 as `cparams.n_ctx` is), and the hidden state the device's first
    /// layer reads, `n_embd × n_ubatch` in F32 (from the previous device, or from the CPU's
    /// token embedding). Both grow with `-ub`. Unsloth measured the mask's share on a 4-GPU
    /// layer split: 2 bytes per context token per micro-batch token, times the scheduler's 4
    /// copies, "4.0 GiB per device" for Kimi-K3 at 1M context and `-ub 512`
    /// (https://github.com/unslothai/unsloth/pull/7637, 2026-07-30). The layer's own
    /// intermediate tensors are not counted (a lower bound): on one device they are below the
    /// logits, which the allocator reuses their memory for (Qwen3-1.7B's 300 MiB compute buffer
    /// is its 297 MiB of logits).
    fn split_inputs_b(&self) -> f64 {
        let i = self.input;
        let n_kv = (f64::from(i.context_tokens) * f64::from(i.batch.max(1)) / 256.0).ceil() * 256.0;
        self.ubatch_tokens * (n_kv * 2.0 + f64::from(i.model.hidden) * 4.0)
    }

    pub(super) fn new(input: &'a FitInput, gpus: &'a [GpuSlot]) -> Layout<'a> {
        let m = &input.model;
        let n = m.layers.max(1);
        // A tied model's layers are the total less one table (`weight_parts_bytes`); a model
        // read from its file has the file's exact bytes.
        let (embed_b, head_b, body_b) = match input.file_weights {
            Some(w) => (w.embedding as f64, w.head as f64, w.body() as f64),
            None => weight_parts_bytes(m, input.weight_precision),
        };
        let moe_layers = m.experts.as_ref().map_or(0, |e| e.layers.min(n));
        let expert_layer_b =
            if moe_layers > 0 { routed_expert_bytes(input).min(body_b) / f64::from(moe_layers) } else { 0.0 };
        let dense_layer_b = (body_b - expert_layer_b * f64::from(moe_layers)) / f64::from(n);
        // llama.cpp keeps `token_embd` in host memory and puts the output tensor (a copy of
        // `token_embd` when tied) on the last device.
        let tied = input.file_weights.map_or(m.tied_embeddings, |w| w.tied_embeddings);
        let head_b = if tied { embed_b } else { head_b };
        Layout {
            input,
            gpus,
            layers: n,
            moe_layers,
            embed_b,
            head_b,
            dense_layer_b,
            expert_layer_b,
            // llama.cpp reserves its compute graph at `min(n_ctx, n_ubatch)` tokens
            // (`llama_context::sched_reserve`, src/llama-context.cpp): the user's `-ub`, else 512.
            logits_b: ubatch_tokens(input) * f64::from(m.vocab) * 4.0,
            ubatch_tokens: ubatch_tokens(input),
            free: gpus.iter().map(|s| s.gpu.memory_gib * 1024.0 * LLAMA_FREE_FRACTION).collect(),
        }
    }

    /// KV cache of layer `l` for the workload's context and batch, bytes.
    pub(super) fn kv_b(&self, l: u32) -> f64 {
        let i = self.input;
        kv_cache_bytes_layers(&i.model, i.kv_precision, l..l + 1, i.context_tokens, i.batch, 1)
    }

    /// Whether layer `l` has routed experts (the MoE layers are the last `moe_layers`).
    pub(super) fn is_moe(&self, l: u32) -> bool {
        l >= self.layers - self.moe_layers
    }

    /// Bytes layer `l` puts on its device: its dense part, its KV cache and the part of its
    /// routed experts not in system RAM (`host` of them there, 0-1).
    fn layer_b(&self, l: u32, host: f64) -> f64 {
        let experts = if self.is_moe(l) { self.expert_layer_b * (1.0 - host) } else { 0.0 };
        self.dense_layer_b + self.kv_b(l) + experts
    }

    /// Layers per device for `ngl` layers (the last `ngl`) with `mask[l]` of layer `l`'s experts
    /// in system RAM: consecutive layers cut where each device's bytes are in proportion to its
    /// free memory (what `-ts` gives llama.cpp), the last device also holding the output
    /// tensor. Every device gets at least one layer while there are enough.
    pub(super) fn spread(&self, ngl: u32, mask: &[f64]) -> Vec<u32> {
        let d = self.free.len();
        if d <= 1 {
            return vec![ngl];
        }
        let first = self.layers - ngl;
        let sizes: Vec<f64> =
            (first..self.layers).map(|l| self.layer_b(l, mask.get(l as usize).copied().unwrap_or(0.0))).collect();
        let total: f64 = sizes.iter().sum::<f64>() + self.head_b;
        let free_total: f64 = self.free.iter().sum();
        let mut out = vec![0u32; d];
        let (mut dev, mut acc, mut target) = (0usize, 0.0, total * self.free[0] / free_total);
        for (i, b) in sizes.iter().enumerate() {
            let left_layers = sizes.len() - i;
            let left_devs = d - dev - 1;
            // Move on when this device has its share (past the middle of the layer), unless
            // the layers left are needed one per remaining device.
            if dev + 1 < d && out[dev] > 0 && (acc + b / 2.0 > target || left_layers <= left_devs) {
                dev += 1;
                target += total * self.free[dev] / free_total;
            }
            out[dev] += 1;
            acc += b;
        }
        out
    }

    /// Rows for `ngl` layers on the GPUs split `split` (layers per GPU) with `mask[l]` of layer
    /// `l`'s routed experts in system RAM.
    pub(super) fn rows(&self, ngl: u32, mask: &[f64], split: &[u32]) -> Vec<DeviceRow> {
        let n = self.layers;
        let ngl = ngl.min(n);
        let first_gpu_layer = n - ngl;
        let host_of = |l: u32| mask.get(l as usize).copied().unwrap_or(0.0).clamp(0.0, 1.0);
        let mut start = first_gpu_layer;
        let mut rows = Vec::new();
        let mut host_expert_b = 0.0;
        let mut host_expert_layers = 0;
        // Pipeline parallelism (several devices, every layer on them, no expert in system RAM):
        // the scheduler keeps [`SCHED_MAX_COPIES`] copies of each input per device.
        let any_host = (0..n).any(|l| self.is_moe(l) && host_of(l) > 0.0);
        let devices = split.iter().filter(|&&c| c > 0).count();
        let copies = if devices > 1 && ngl == n && !any_host { SCHED_MAX_COPIES } else { 1.0 };
        for (i, (slot, &count)) in self.gpus.iter().zip(split).enumerate() {
            let last = i + 1 == self.gpus.len();
            let (mut model_b, mut context_b, mut host_experts, mut largest_host) = (0.0, 0.0, 0, 0.0f64);
            for l in start..(start + count).min(n) {
                model_b += self.dense_layer_b;
                context_b += self.kv_b(l);
                if self.is_moe(l) {
                    let h = host_of(l);
                    if h > 0.0 {
                        host_experts += 1;
                        largest_host = largest_host.max(h);
                    }
                    model_b += self.expert_layer_b * (1.0 - h);
                    host_expert_b += self.expert_layer_b * h;
                }
            }
            host_expert_layers += host_experts;
            if last {
                model_b += self.head_b;
            }
            // Op offload: a large batch copies a host-held expert tensor (one of gate, up,
            // down) into the compute buffer.
            let copy_b = if host_experts > 0 { self.expert_layer_b / 3.0 } else { 0.0 };
            // Every device reserves the graph of its layers at the micro-batch
            // (`ggml_backend_sched_reserve` sizes one compute buffer per backend for the nodes
            // it runs): its inputs (`split_inputs_b`, once per scheduler copy), and on the last
            // the logits, which reuse the inputs' memory once the layers are done.
            let inputs_b = if count > 0 { self.split_inputs_b() * copies } else { 0.0 };
            let compute_b = if last { self.logits_b.max(inputs_b) } else { inputs_b } + copy_b;
            rows.push(DeviceRow {
                device: format!("{}{i} ({})", llama_cpp_backend(super::support::chip_maker(&slot.gpu)), slot.gpu.id),
                free_mib: Some(self.free[i]),
                model_mib: model_b / MIB,
                context_mib: context_b / MIB,
                compute_mib: compute_b / MIB,
                layers: count,
                experts_on_host: host_experts,
            });
            start += count;
        }
        let host_moe = (0..first_gpu_layer).filter(|&l| self.is_moe(l)).count() as f64;
        let host_model = self.embed_b
            + f64::from(first_gpu_layer) * self.dense_layer_b
            + host_moe * self.expert_layer_b
            + host_expert_b;
        // A fold from +0.0, not `sum`: an empty f64 sum is -0.0, printed "-0" in the table.
        let host_context: f64 = (0..first_gpu_layer).map(|l| self.kv_b(l)).fold(0.0, |a, b| a + b);
        rows.push(DeviceRow {
            device: "Host".into(),
            free_mib: None,
            model_mib: host_model / MIB,
            context_mib: host_context / MIB,
            compute_mib: 0.0,
            layers: first_gpu_layer,
            experts_on_host: host_expert_layers,
        });
        rows
    }

    /// `--n-cpu-moe n`'s mask: the routed experts of layers `0..n` in system RAM (llama.cpp
    /// pushes one `-ot` pattern `blk\.{i}\.ffn_(up|down|gate|gate_up)_(ch|)exps` per layer index
    /// `i < n`, ggml-org/llama.cpp common/arg.cpp and common/common.h
    /// `llm_ffn_exps_block_regex`; a dense layer below `n` has no experts to move).
    pub(super) fn first_layers_mask(&self, n: u32) -> Vec<f64> {
        (0..self.layers).map(|l| if l < n && self.is_moe(l) { 1.0 } else { 0.0 }).collect()
    }

    /// Layers whose experts are (at least partly) in system RAM among those of `mask`.
    pub(super) fn host_expert_layers(&self, mask: &[f64]) -> u32 {
        (0..self.layers).filter(|&l| self.is_moe(l) && mask.get(l as usize).is_some_and(|h| *h > 0.0)).count() as u32
    }
}

pub(super) fn keeps_margin(rows: &[DeviceRow]) -> bool {
    rows.iter().filter_map(|r| r.free_mib.map(|f| r.self_mib() + LLAMA_FIT_MARGIN_MIB <= f)).all(|x| x)
}

fn args_for(input: &FitInput, ngl: u32, overflow: u32, split: &[u32]) -> String {
    // llama.cpp's `-c` is the context of all `-np` slots together.
    let mut args = format!("{} -ngl {ngl}", context_args(input.context_tokens, input.batch));
    if overflow > 0 {
        args.push_str(" --n-cpu-moe ");
        args.push_str(&overflow.to_string());
    }
    if let Some(ub) = input.prompt_ubatch_tokens {
        args.push_str(" -ub ");
        args.push_str(&ub.to_string());
    }
    if split.len() > 1 {
        let ts: Vec<String> = split.iter().map(u32::to_string).collect();
        args.push_str(" -ts ");
        args.push_str(&ts.join(","));
    }
    args
}

/// llama.cpp's table for `input` on `gpus` with the placement given: `ngl` layers on the GPUs
/// (`-ngl`), the experts of layers `0..n_cpu_moe` in system RAM (`--n-cpu-moe`). `None` for
/// other runtimes and for training.
pub fn llama_cpp_rows(input: &FitInput, gpus: &[GpuSlot], ngl: u32, n_cpu_moe: u32) -> Option<LlamaCppFit> {
    if input.mode.is_training() || gpus.is_empty() || !input.resolved_runtime().is_llama_cpp_family() {
        return None;
    }
    let layout = Layout::new(input, gpus);
    let ngl = ngl.min(layout.layers);
    let n_cpu_moe = n_cpu_moe.min(layout.layers);
    let mask = layout.first_layers_mask(n_cpu_moe);
    let split = layout.spread(ngl, &mask);
    let rows = layout.rows(ngl, &mask, &split);
    Some(LlamaCppFit {
        fits: keeps_margin(&rows),
        args: args_for(input, ngl, n_cpu_moe, &split),
        rows,
        n_gpu_layers: ngl,
        n_cpu_moe,
        tensor_split: split,
    })
}

/// The placement `llama-fit-params` chooses for `input` on `gpus` at its context, as
/// (`-ngl`, `--n-cpu-moe`): layers spread in proportion to free memory, then, where a device
/// would keep less than the margin, the experts of more layers (from layer 0 up, as
/// `--n-cpu-moe` takes them) moved to system RAM, then whole layers (`-ngl`) from the first
/// layer up. The fewest experts in RAM that keep the margin (the fastest such placement:
/// [`super::placement`]). `None` for runtimes outside the llama.cpp family and for training.
pub(crate) fn llama_cpp_search(input: &FitInput, gpus: &[GpuSlot]) -> Option<(u32, u32)> {
    if input.mode.is_training() || gpus.is_empty() || !input.resolved_runtime().is_llama_cpp_family() {
        return None;
    }
    let layout = Layout::new(input, gpus);
    let fits = |ngl: u32, n: u32| {
        let mask = layout.first_layers_mask(n);
        let split = layout.spread(ngl, &mask);
        keeps_margin(&layout.rows(ngl, &mask, &split))
    };
    let mut ngl = layout.layers;
    let mut n = 0;
    if layout.moe_layers > 0 {
        // The first layer index at which every MoE layer's experts are in RAM.
        while !fits(ngl, n) && n < layout.layers {
            n += 1;
            // Skip dense layers: moving `n` past one changes nothing.
            while n < layout.layers && !layout.is_moe(n - 1) {
                n += 1;
            }
        }
    }
    while !fits(ngl, n) && ngl > 0 {
        ngl -= 1;
    }
    Some((ngl, n))
}

/// llama.cpp's table for `input` on `gpus` at its context, placed as `llama-fit-params` places
/// it ([`llama_cpp_search`]). `None` for other runtimes and for training.
pub(crate) fn llama_cpp_table(input: &FitInput, gpus: &[GpuSlot]) -> Option<LlamaCppFit> {
    if input.resolved_runtime() != Runtime::LlamaCpp {
        return None;
    }
    let (ngl, n) = llama_cpp_search(input, gpus)?;
    llama_cpp_rows(input, gpus, ngl, n)
}

/// What a memory figure rests on, and how to measure it on the user's machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryBasis {
    /// The published measurements the model is held to (`source: figure`).
    pub calibrated_to: Vec<String>,
    /// Largest deviation allowed by the held tests, percent; `None` when no published table
    /// holds it.
    pub band_pct: Option<f64>,
    /// The command that measures it, and what to read.
    pub measure: String,
}

/// The basis of the memory figures for `runtime` and model `model_id`.
pub fn memory_basis(runtime: Runtime, input: &FitInput) -> MemoryBasis {
    let id = &input.model.id;
    let ctx = input.context_tokens;
    // `if`, not `match`: runtimes other than these two share the last arm.
    if runtime == Runtime::Vllm {
        MemoryBasis {
            calibrated_to: vec![
                "vLLM #10517 (RTX 3090, Llama-3.1-8B, 0.90): 31,232 and 23,648 KV tokens at 20,000 / 29,000".into(),
                "vLLM #23278 (H100, gpt-oss-120b, defaults): weights 65.97 GiB, pool -2.14 GiB".into(),
                "vLLM #27508 (H100, gpt-oss-120b, 0.95, 1024 batched tokens): pool 1.71 GiB (fitted)".into(),
                "LMCache #1739 (Qwen3-14B): 6.51 GiB = 42,656 tokens".into(),
            ],
            band_pct: Some(10.0),
            measure: format!(
                "vllm serve <{id}> --max-model-len {ctx} --gpu-memory-utilization {}{} and read its start-up lines \
                 \"Model loading took\", \"Available KV cache memory\", \"GPU KV cache size\", \"Maximum concurrency\"",
                input.gpu_memory_utilization.unwrap_or(super::vllm_memory::VLLM_DEFAULT_GPU_MEMORY_UTILIZATION),
                super::vllm_memory::engine_flags(input)
            ),
        }
    } else if runtime == Runtime::LlamaCpp {
        MemoryBasis {
            calibrated_to: vec![
                "llama.cpp tools/fit-params/README.md (RTX 4090, Qwen3-30B-A3B F16, -c 4096): model 17,904, context 384 MiB".into(),
                "Qwen3-1.7B Q4_K_M on an RTX 4080 Laptop GPU (-c 40960): context 4,480, compute 300 MiB".into(),
            ],
            band_pct: Some(10.0),
            measure: format!(
                "llama-fit-params -m <{id}.gguf> {c} (prints -ngl and the tensors to keep in RAM), then \
                 llama-server -m <{id}.gguf> {c} and read llama_memory_breakdown_print when it exits",
                c = context_args(ctx, input.batch)
            ),
        }
    } else {
        MemoryBasis {
            calibrated_to: vec![],
            band_pct: None,
            measure: format!("load <{id}> at context {ctx} and read nvidia-smi --query-gpu=memory.used --format=csv"),
        }
    }
}

/// The name llama.cpp gives a device of this maker in its memory breakdown: its CUDA back end
/// names devices `CUDA0`, the HIP build of it `ROCm0` (ggml-cuda's `GGML_CUDA_NAME` under
/// `GGML_USE_HIP`), the SYCL back end `SYCL0` (the README's back end for Intel GPUs: "SYCL: Intel
/// and Nvidia GPU"); another maker's device is `GPU0` here (a Vulkan build names it `Vulkan0`).
fn llama_cpp_backend(maker: Option<&str>) -> &'static str {
    match maker {
        Some("NVIDIA") => "CUDA",
        Some("AMD") => "ROCm",
        Some("Intel") => "SYCL",
        _ => "GPU",
    }
}

/// llama.cpp's context arguments for `batch` sequences of `context_tokens` each, as the
/// placement's llama-server line gives them: `-c 8192` for one, `-c 32768 -np 4` for four
/// (llama-server splits `-c` over its `-np` slots, so every command that sizes the same
/// placement, llama-fit-params included, takes both).
pub(crate) fn context_args(context_tokens: u32, batch: u32) -> String {
    if batch > 1 {
        format!("-c {} -np {batch}", u64::from(context_tokens) * u64::from(batch))
    } else {
        format!("-c {context_tokens}")
    }
}

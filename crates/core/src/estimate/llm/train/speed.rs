//! Training time from first principles: FLOPs per token, an achievable MFU per GPU class, the
//! QLoRA dequantization traffic, and the communication of DDP / ZeRO / FSDP over the build's
//! real links.
//!
//! - FLOPs per token: a forward pass is `2·N` (N the parameters a token multiplies, the
//!   embedding lookup excluded) plus causal attention `2·s·d_q·L`; a full fine-tune's backward
//!   is twice the forward (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", `6N`;
//!   EleutherAI "Transformer Math 101"). `LoRA`/`QLoRA` freeze the base: backward computes the
//!   activation gradients through it (`2N`, one forward's worth) but no weight gradients; the
//!   adapters add `6·A` (Hu et al. 2021, "LoRA", section 4.2: no gradients of the frozen
//!   weights). Gradient checkpointing runs the forward again (`+2N`; Korthikanti et al. 2022,
//!   section 4; Chen et al. 2016).
//! - Communication (PyTorch DDP, Li et al. 2020, "PyTorch Distributed", VLDB: gradient buckets
//!   all-reduced while backward runs; ZeRO, Rajbhandari et al. 2020, section 7: stage 1-2 move
//!   what DDP moves, stage 3 1.5× that; FSDP, Zhao et al. 2023, VLDB: parameters all-gathered
//!   for forward and backward, gradients reduce-scattered, prefetched behind compute). Ring
//!   collectives move `(n−1)/n` of the bytes per GPU each way; the slowest link of the group
//!   bounds them, at [`LINK_EFFICIENCY`] of its per-direction rate.

use super::super::calibration::{LINK_EFFICIENCY, NF4_BITS};
use super::super::inputs::{FitInput, GpuSlot, Link, Mode, Precision, Runtime};
use super::super::shape::{compute_peak_tflops, q_dim, table_params};
use super::memory::{adapter_params, trained_params, trained_weight_bytes};
use super::types::TrainSpeed;
use super::{Setup, Sharding};

/// Achievable model-FLOPs utilisation of BF16 training on GDDR GPUs (GeForce and RTX
/// workstation cards, L40S: compute capability 8.6, 8.9, 12.0), counting recomputation as
/// work. Fitted on one row: torchtune README, Llama 3.1 8B full fine-tune on one RTX 4090
/// (`8B_full_single_device`: activation checkpointing, 8 FLOPs per parameter and token),
/// 1,650 tokens/s (`held.rs`; the other GDDR rows are held out).
pub(crate) const MFU_GDDR: f64 = 0.62;
/// Achievable MFU of BF16 training on HBM data-centre GPUs (A100, H100, H200, B200: compute
/// capability 8.0, 9.0, 10.0), counting recomputation. Fitted on one row: torchtune README,
/// Llama 3.1 70B LoRA on 8x A100, 3,497 tokens/s. For comparison Meta's "The Llama 3 Herd of
/// Models" (2024), Table 4, reports 38-43 % BF16 MFU (recomputation not counted) on H100 at
/// 8-16K GPUs.
pub(crate) const MFU_HBM: f64 = 0.60;
/// Bytes moved per NF4 weight each time bitsandbytes dequantizes it for a matrix multiply:
/// the 4-bit read (`NF4_BITS`/8), the BF16 write (2) and the BF16 read by the multiply (2).
pub(crate) const DEQUANT_BYTES_PER_WEIGHT: f64 = NF4_BITS / 8.0 + 4.0;
/// Fraction of peak memory bandwidth the dequantization kernels reach (judgement, as the
/// decode efficiency of the inference model).
pub(crate) const DEQUANT_BANDWIDTH_EFFICIENCY: f64 = 0.7;

/// The GPU class an MFU is calibrated for; `None` for a GPU whose class no published training
/// run calibrates (non-NVIDIA, pre-Ampere).
pub(crate) fn mfu_for(gpu: &kraftwerk_catalog::Gpu) -> Option<(f64, &'static str)> {
    let cc: f64 = gpu.compute_capability.as_deref()?.trim().parse().ok()?;
    if super::super::support::chip_maker(gpu) != Some("NVIDIA") {
        return None;
    }
    if (cc - 8.0).abs() < 0.05 || (cc - 9.0).abs() < 0.05 || (cc - 10.0).abs() < 0.05 {
        Some((MFU_HBM, "HBM data-centre GPU (A100/H100/H200/B200 class)"))
    } else if cc >= 8.55 {
        Some((MFU_GDDR, "GDDR GPU (GeForce / RTX workstation / L40S class)"))
    } else {
        None
    }
}

/// FLOPs per trained token (see the module's sources) at sequence length `seq`.
pub fn flops_per_token(input: &FitInput, seq: u32) -> f64 {
    let m = &input.model;
    let table = table_params(m).min(m.params_b * 1e9 / 4.0);
    // The embedding lookup multiplies nothing; a tied head still does.
    let n = m.active_b() * 1e9 - if m.tied_embeddings { 0.0 } else { table };
    let attention = 2.0 * f64::from(seq) * q_dim(m) * f64::from(m.layers);
    let forward = 2.0 * n + attention;
    let (backward, adapters) = match input.mode {
        Mode::FullFineTune => (2.0 * forward, 0.0),
        _ => (forward, 6.0 * adapter_params(input)),
    };
    let recompute = if input.gradient_checkpointing { forward } else { 0.0 };
    forward + backward + adapters + recompute
}

/// Speed of `input` (micro-batch `input.batch`, sequence `input.context_tokens`, accumulation
/// `input.gradient_accumulation`) on `used`; `None` when a GPU's class has no calibrated MFU
/// or publishes no BF16 rate.
pub fn speed(input: &FitInput, setup: Setup, used: &[GpuSlot]) -> Option<TrainSpeed> {
    let slowest = used.iter().min_by(|a, b| {
        let pa = compute_peak_tflops(&a.gpu, Precision::Bf16, Runtime::Vllm, true).map_or(0.0, |p| p.0);
        let pb = compute_peak_tflops(&b.gpu, Precision::Bf16, Runtime::Vllm, true).map_or(0.0, |p| p.0);
        pa.total_cmp(&pb)
    })?;
    let (peak, _) = compute_peak_tflops(&slowest.gpu, Precision::Bf16, Runtime::Vllm, true)?;
    let mut mfu = None;
    for s in used {
        let (m, class) = mfu_for(&s.gpu)?;
        mfu = Some(mfu.map_or((m, class), |(a, c): (f64, &str)| if m < a { (m, class) } else { (a, c) }));
    }
    let (mfu, class) = mfu?;
    let seq = input.context_tokens;
    let tokens_mb = f64::from(input.batch) * f64::from(seq);
    let accum = f64::from(input.gradient_accumulation.max(1));
    let fpt = flops_per_token(input, seq);
    // A layer split (pipeline without overlap, HF `device_map="auto"`) runs its GPUs in turn.
    let compute_mb = tokens_mb * fpt / (peak * 1e12 * mfu);
    let m = &input.model;
    let dequant_mb = if input.mode == Mode::Qlora {
        let body = m.params_b * 1e9 - 2.0 * table_params(m).min(m.params_b * 1e9 / 4.0);
        let passes = if input.gradient_checkpointing { 3.0 } else { 2.0 };
        passes * body * DEQUANT_BYTES_PER_WEIGHT
            / (slowest.gpu.memory_bandwidth_gb_s * 1e9 * DEQUANT_BANDWIDTH_EFFICIENCY)
    } else {
        0.0
    };
    let (comm_bytes, host_bytes, hide_s) = comm(input, setup, compute_mb, accum);
    let link = used.iter().map(|s| s.link).min_by(|a, b| a.per_direction_gb_s().total_cmp(&b.per_direction_gb_s()));
    let (mut comm_s, mut link_s) = match link {
        Some(l) if setup.dp > 1 => {
            (comm_bytes / (l.per_direction_gb_s() * 1e9 * LINK_EFFICIENCY), Some(format!("{l}")))
        }
        _ => (0.0, None),
    };
    // Offloaded states cross each card's own PCIe link to host RAM (never NVLink).
    if host_bytes > 0.0 {
        let host = used
            .iter()
            .map(|s| match s.link {
                Link::Pcie { .. } => s.link,
                Link::NvLink { .. } => Link::pcie_native(&s.gpu),
            })
            .min_by(|a, b| a.per_direction_gb_s().total_cmp(&b.per_direction_gb_s()));
        if let Some(h) = host {
            comm_s += host_bytes / (h.per_direction_gb_s() * 1e9 * LINK_EFFICIENCY);
            link_s = Some(link_s.map_or_else(|| format!("host {h}"), |l| format!("{l}; host {h}")));
        }
    }
    let exposed = (comm_s - hide_s).max(0.0);
    let compute_s = compute_mb * accum;
    let dequant_s = dequant_mb * accum;
    let step_s = compute_s + dequant_s + exposed;
    let tokens_step = tokens_mb * accum * f64::from(setup.dp.max(1));
    Some(TrainSpeed {
        tokens_per_s: tokens_step / step_s,
        step_s,
        compute_s,
        dequant_s,
        comm_s,
        comm_exposed_s: exposed,
        comm_gb_per_gpu: (comm_bytes + host_bytes) / 1e9,
        link: link_s,
        flops_per_token: fpt,
        mfu,
        gpu_class: class.to_owned(),
        peak_tflops: peak,
    })
}

/// Bytes each GPU sends to the others per optimizer step, bytes it moves to and from host RAM
/// (offload), and the compute time they can hide behind, s.
fn comm(input: &FitInput, setup: Setup, compute_mb: f64, accum: f64) -> (f64, f64, f64) {
    let n = f64::from(setup.dp.max(1));
    let ring = (n - 1.0) / n;
    let t = trained_params(input);
    let w = trained_weight_bytes(input, setup.trainer);
    let grads = t * w;
    let m = &input.model;
    let base = match input.mode {
        Mode::Qlora => m.params_b * 1e9 * NF4_BITS / 8.0,
        Mode::Lora => m.params_b * 1e9 * input.weight_precision.bytes_per_element(),
        _ => 0.0,
    };
    // Backward's share of the compute: what DDP's bucketed all-reduce overlaps.
    let backward_frac = if input.mode == Mode::FullFineTune { 2.0 / 3.0 } else { 0.5 };
    let mut bytes = 0.0;
    let mut offload = 0.0;
    let hide = match setup.sharding {
        Sharding::Replicated => {
            bytes += 2.0 * ring * grads;
            compute_mb * backward_frac
        }
        Sharding::Zero(stage) if stage < 3 => {
            // Stage 1 reduces once per step; stage 2 reduce-scatters every micro-batch.
            let reduces = if stage == 2 { accum } else { 1.0 };
            bytes += ring * grads * reduces + ring * t * 2.0;
            if setup.offload {
                offload += 2.0 * t * 2.0 / n;
            }
            compute_mb * backward_frac * accum
        }
        Sharding::Zero(_) | Sharding::Fsdp => {
            // Parameters gathered for forward and again for backward, gradients reduce-scattered,
            // every micro-batch.
            let params = base + if input.mode == Mode::FullFineTune { t * w } else { 0.0 };
            bytes += accum * (2.0 * ring * params + ring * grads);
            if setup.offload {
                // Shards up from host RAM for forward and backward, gradients down, per micro-batch.
                offload += accum * (2.0 * params / n + grads / n);
            }
            compute_mb * accum
        }
    };
    if n <= 1.0 {
        bytes = 0.0;
    }
    (bytes, offload, hide)
}

//! Fine-tuning and training: the framework a run uses ([`Trainer`]: Transformers + PEFT,
//! Unsloth, Axolotl, torchtune, DeepSpeed ZeRO 1-3, FSDP), what it allocates on each GPU
//! ([`memory`]), how long a step takes ([`speed`]), the advice a trainer would give (largest
//! micro-batch and sequence, accumulation, sharding and offload, hours for a dataset) and what
//! the figures rest on ([`basis`]). [`super::estimate`] calls [`report`] for every training
//! mode; no inference runtime or inference measurement enters a training estimate.
//!
//! Held to published fine-tuning runs in `tests/all/llm_train.rs`.

pub mod basis;
pub mod memory;
pub mod speed;
pub mod types;

pub use types::{ShardingOption, TrainPlan, TrainSpeed, TrainingBasis, TrainingReport};

use super::calibration::{CUDA_CONTEXT_GIB, GIB};
use super::inputs::{FitInput, GpuSlot, Mode, Optimizer, Parallelism, Trainer};
use super::report::{FitError, FitVerdict};
use super::shape::{Share, shares};
use crate::workload::TrainingRuntime;
use serde::Serialize;

/// How the trained states are spread over the data-parallel ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Sharding {
    /// Every rank holds everything (one GPU, DDP, or a layer split).
    Replicated,
    /// DeepSpeed ZeRO stage 1-3.
    Zero(u8),
    /// PyTorch FSDP full shard.
    Fsdp,
}

/// The framework, its sharding, the data-parallel ranks and the offload of one training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Setup {
    /// The framework.
    pub trainer: Trainer,
    /// How states are sharded.
    pub sharding: Sharding,
    /// Data-parallel ranks (1 for one GPU or a layer split).
    pub dp: u32,
    /// Offload to host RAM (ZeRO-Offload, FSDP `cpu_offload`).
    pub offload: bool,
}

impl Setup {
    /// The setup in words: "DDP over 4 GPUs", "DeepSpeed ZeRO-3 over 2 GPUs, CPU offload".
    pub fn describe(&self) -> String {
        let over = |what: &str| {
            if self.dp > 1 { format!("{what} over {} GPUs", self.dp) } else { format!("{what} on one GPU") }
        };
        let mut s = match self.sharding {
            Sharding::Replicated if self.dp > 1 => format!("DDP over {} GPUs", self.dp),
            Sharding::Replicated => "one GPU (or a layer split)".to_owned(),
            Sharding::Zero(stage) => over(&format!("DeepSpeed ZeRO-{stage}")),
            Sharding::Fsdp => over("FSDP full shard"),
        };
        if self.offload {
            s.push_str(", CPU offload");
        }
        s
    }
}

/// The training framework used when none is named: Transformers + PEFT (the reference the
/// other frameworks compare against), or FSDP when the input shards over data-parallel ranks
/// without naming a ZeRO stage and DDP does not fit ([`choose_parallelism`] decides).
pub(crate) fn default_trainer(input: &FitInput) -> Trainer {
    input.trainer.unwrap_or(Trainer::HfPeft)
}

/// The setup of `input`: the framework ([`default_trainer`]), the sharding it applies over
/// `input.parallelism` (DeepSpeed: ZeRO `zero_stage`, 3 when 0; FSDP and torchtune on several
/// GPUs: FSDP; the others: DDP, or ZeRO when a stage is given), and the offload.
pub fn setup(input: &FitInput) -> Setup {
    let trainer = default_trainer(input);
    let dp = match input.parallelism {
        Parallelism::DataParallel(n) => n.max(1),
        _ => 1,
    };
    let sharding = match trainer {
        Trainer::DeepSpeed => Sharding::Zero(if input.zero_stage == 0 { 3 } else { input.zero_stage }),
        Trainer::Fsdp => Sharding::Fsdp,
        Trainer::Torchtune if dp > 1 => Sharding::Fsdp,
        _ if input.zero_stage > 0 && dp > 1 => Sharding::Zero(input.zero_stage),
        _ => Sharding::Replicated,
    };
    let offload = input.cpu_offload && !matches!(sharding, Sharding::Replicated);
    Setup { trainer, sharding, dp, offload }
}

/// Refuses what the training model does not cover: tensor parallel and pipeline stages
/// (Megatron-style training is not modelled), Unsloth on several GPUs with sharding, a GGUF
/// base.
///
/// # Errors
/// [`FitError::Unsupported`] naming what to use instead.
pub fn validate(input: &FitInput) -> Result<(), FitError> {
    if matches!(input.parallelism, Parallelism::TensorParallel(n) if n > 1)
        || matches!(input.parallelism, Parallelism::TensorPipeline { .. })
    {
        return Err(FitError::Unsupported(format!(
            "{} for training: tensor and pipeline parallel training (Megatron-LM, torchtitan) is not modelled; \
             use --parallel dp:N (DDP, DeepSpeed ZeRO or FSDP) or split:N (layers over the GPUs, Transformers' \
             device_map)",
            input.parallelism
        )));
    }
    if input.mode != Mode::FullFineTune && !memory::lora_base_ok(input.weight_precision) {
        return Err(FitError::Unsupported(format!("LoRA training over a GGUF {} base", input.weight_precision)));
    }
    Ok(())
}

/// Whether the training model applies to `gpu`: the frameworks here train in BF16 mixed
/// precision with FlashAttention-2, which need an NVIDIA GPU of compute capability 8.0 or later
/// (FlashAttention-2 README: "Ampere, Ada, or Hopper GPUs"; BF16 tensor cores from Ampere on).
/// Older or other makers' GPUs train in FP16 or through other back ends (ROCm, XPU), which no
/// held row measured.
///
/// # Errors
/// Why the GPU is outside the model, in a sentence.
pub fn supports(gpu: &kraftwerk_catalog::Gpu) -> Result<(), String> {
    let maker = super::support::chip_maker(gpu);
    let cc = gpu.compute_capability.as_deref().and_then(|c| c.trim().parse::<f64>().ok());
    match (maker, cc) {
        (Some("NVIDIA"), Some(c)) if c >= 7.95 => Ok(()),
        (Some("NVIDIA"), Some(c)) => Err(format!(
            "{} (compute capability {c}) has no BF16 tensor cores or FlashAttention-2 (Ampere, sm80, and later):              the training frameworks modelled here train in BF16 with FlashAttention-2; no held run was measured on it",
            gpu.name
        )),
        (Some("NVIDIA"), None) => {
            Err(format!("{}: compute capability unknown, so BF16 and FlashAttention-2 support is unknown", gpu.name))
        }
        (m, _) => Err(format!(
            "{} ({}): the training frameworks modelled here (bitsandbytes, FlashAttention-2, Unsloth) are CUDA-first;              ROCm/XPU back ends exist but no held run was measured on them",
            gpu.name,
            m.unwrap_or("unknown maker")
        )),
    }
}

fn fits_all(input: &FitInput, setup: Setup, used: &[GpuSlot], sh: &[Share], batch: u32, seq: u32) -> bool {
    let mut i = input.clone();
    i.batch = batch;
    i.context_tokens = seq;
    memory::memory(&i, setup, used, sh, seq).iter().zip(used).all(|(m, s)| m.required_gib <= s.gpu.memory_gib)
}

/// The training report of `input` on `used` (the GPUs of the parallelism), whose memory
/// `mems` [`memory::memory`] gave.
pub fn report(input: &FitInput, used: &[GpuSlot], mems: &[super::report::MemoryBreakdown]) -> TrainingReport {
    let s = setup(input);
    let sh = shares(input, used);
    let seq = input.context_tokens;
    let fullest = mems.iter().map(|m| m.total_gib).fold(0.0, f64::max);
    let paged: f64 = sh.iter().map(|x| memory::gpu_bytes(input, s, x, input.batch, seq).paged).fold(0.0, f64::max);
    let trained = memory::trained_params(input);
    let w = memory::trained_weight_bytes(input, s.trainer);
    let host_offload_gib = if s.offload {
        let o = memory::optimizer_state_bytes(input.optimizer, w, input.model.hidden);
        trained * (w + w + o + if input.mode == Mode::FullFineTune { 4.0 } else { 0.0 }) / GIB
    } else {
        0.0
    };
    let sp = speed::speed(input, s, used);
    let max_micro_batch = (1..=super::search::MAX_BATCH).take_while(|&b| fits_all(input, s, used, &sh, b, seq)).last();
    let cap = input.model.max_context.max(1);
    let max_seq_tokens = if fits_all(input, s, used, &sh, input.batch, 1) {
        let (mut lo, mut hi) = (1u32, cap);
        if fits_all(input, s, used, &sh, input.batch, cap) {
            Some(cap)
        } else {
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if fits_all(input, s, used, &sh, input.batch, mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            Some(lo)
        }
    } else {
        None
    };
    let plan = input.train_plan;
    let accumulation_steps = accumulation_for(input);
    let training_tokens = plan.dataset_tokens.map(|t| t * plan.epochs.unwrap_or(1.0));
    let hours = match (&sp, training_tokens) {
        (Some(v), Some(t)) if v.tokens_per_s > 0.0 => Some(t / v.tokens_per_s / 3600.0),
        _ => None,
    };
    let options = if used.len() > 1 { options(input, used) } else { Vec::new() };
    let mut advice = Vec::new();
    let verdict_fits = mems.iter().zip(used).all(|(m, g)| m.required_gib <= g.gpu.memory_gib);
    if let Some(b) = max_micro_batch {
        advice.push(format!("largest micro-batch at {seq} tokens: {b} per GPU"));
    } else {
        advice.push(format!("no micro-batch fits at {seq} tokens"));
    }
    if let Some(l) = max_seq_tokens {
        advice.push(format!("longest sequence at micro-batch {}: {l} tokens", input.batch));
    }
    if let (Some(a), Some(g)) = (accumulation_steps, plan.global_batch) {
        advice.push(format!(
            "global batch {g} sequences = micro-batch {} x {} GPU{} x {a} accumulation steps",
            input.batch,
            s.dp,
            if s.dp == 1 { "" } else { "s" }
        ));
    }
    if !input.gradient_checkpointing && !verdict_fits {
        let mut ck = input.clone();
        ck.gradient_checkpointing = true;
        if fits_all(&ck, s, used, &sh, input.batch, seq) {
            advice.push("turn on gradient checkpointing (--gradient-checkpointing): then it fits".into());
        }
    }
    if input.optimizer == Optimizer::AdamW && !verdict_fits {
        let mut o8 = input.clone();
        o8.optimizer = Optimizer::AdamW8bit;
        if fits_all(&o8, s, used, &sh, input.batch, seq) {
            advice.push("use 8-bit AdamW (--optimizer adamw-8bit): then it fits".into());
        }
    }
    let current = s.describe();
    // The fastest option that fits; on a tie the first (least sharded, no offload).
    let mut best: Option<&ShardingOption> = None;
    for o in options.iter().filter(|o| o.fits) {
        if best.is_none_or(|b| o.tokens_per_s.unwrap_or(0.0) > b.tokens_per_s.unwrap_or(0.0) * 1.001) {
            best = Some(o);
        }
    }
    let current_rate = sp.as_ref().map_or(0.0, |v| v.tokens_per_s);
    if let Some(best) = best
        && best.setup != current
        && (!verdict_fits || best.tokens_per_s.unwrap_or(0.0) > current_rate * 1.05)
    {
        advice.push(format!(
            "fastest way that fits these GPUs: {} (--runtime {}{}){}",
            best.setup,
            best.runtime,
            if input.parallelism.degree() > 1 { String::new() } else { format!(" --parallel dp:{}", used.len()) },
            best.tokens_per_s.map_or_else(String::new, |t| format!(", about {t:.0} tokens/s"))
        ));
    }
    if s.offload {
        advice.push(
            "with CPU offload the optimizer steps on the CPU, at host-RAM speed, which this estimate does not count:              torchtune's 70B full fine-tune with offload on 8x A100 ran at 1,568 tokens/s, 41 % below the estimate's              2,643 (held row outside the band); measure it"
                .into(),
        );
    }
    if input.optimizer == Optimizer::PagedAdamW8bit && paged > 0.0 {
        advice.push(format!(
            "paged 8-bit AdamW keeps {:.1} GiB of states in CUDA unified memory: what the GPU cannot hold pages to host              RAM (slower steps, not counted in the speed)",
            paged / GIB
        ));
    }
    TrainingReport {
        runtime: s.trainer,
        setup: current,
        optimizer: input.optimizer,
        trained_params_m: trained / 1e6,
        peak_allocated_gib: (fullest - CUDA_CONTEXT_GIB).max(0.0),
        paged_optimizer_gib: paged / GIB,
        host_offload_gib,
        speed: sp,
        max_micro_batch,
        max_seq_tokens,
        accumulation_steps,
        hours,
        training_tokens,
        options,
        advice,
        basis: basis::training_basis(input, s),
    }
}

/// DDP, ZeRO-2, ZeRO-3, FSDP and their CPU offloads on the same GPUs, for the advice.
fn options(input: &FitInput, used: &[GpuSlot]) -> Vec<ShardingOption> {
    let n = u32::try_from(used.len()).unwrap_or(u32::MAX);
    let candidates: [(Trainer, u8, bool); 6] = [
        (Trainer::HfPeft, 0, false),
        (Trainer::DeepSpeed, 2, false),
        (Trainer::DeepSpeed, 3, false),
        (Trainer::Fsdp, 0, false),
        (Trainer::DeepSpeed, 3, true),
        (Trainer::Fsdp, 0, true),
    ];
    candidates
        .iter()
        .map(|&(trainer, stage, offload)| {
            let mut i = input.clone();
            i.trainer = Some(trainer);
            i.zero_stage = stage;
            i.cpu_offload = offload;
            i.parallelism = Parallelism::DataParallel(n);
            let s = setup(&i);
            let sh = shares(&i, used);
            let mems = memory::memory(&i, s, used, &sh, i.context_tokens);
            let fits = mems.iter().zip(used).all(|(m, g)| m.required_gib <= g.gpu.memory_gib);
            ShardingOption {
                runtime: TrainingRuntime { trainer, zero_stage: (stage > 0).then_some(stage), offload },
                setup: s.describe(),
                peak_gib: mems.iter().map(|m| m.total_gib).fold(0.0, f64::max),
                fits,
                tokens_per_s: speed::speed(&i, s, used).map(|v| v.tokens_per_s),
            }
        })
        .collect()
}

/// Sets the parallelism (and, when it must shard, the framework and offload) of a training run
/// on `gpus` when none is named: one GPU, else data parallel over all of them: DDP where every
/// GPU holds the whole run, else FSDP, else FSDP with CPU offload (Answer.AI's FSDP-QLoRA
/// setting for a 70B model on two 24 GB cards); never tensor parallel. A framework named by the
/// user is kept, with its own sharding. Nothing fitting leaves FSDP with offload, the most
/// sharded, for the verdict to refuse.
pub(crate) fn choose_parallelism(input: &mut FitInput, gpus: &[GpuSlot]) {
    let n = u32::try_from(gpus.len()).unwrap_or(u32::MAX);
    if n <= 1 {
        input.parallelism = Parallelism::Single;
        return;
    }
    input.parallelism = Parallelism::DataParallel(n);
    let fits = |i: &FitInput| {
        let s = setup(i);
        let sh = shares(i, gpus);
        memory::memory(i, s, gpus, &sh, i.context_tokens)
            .iter()
            .zip(gpus)
            .all(|(m, g)| m.required_gib <= g.gpu.memory_gib)
    };
    if input.trainer.is_some() || fits(input) {
        return;
    }
    for offload in [false, true] {
        let mut f = input.clone();
        f.trainer = Some(Trainer::Fsdp);
        f.cpu_offload = offload;
        if fits(&f) || offload {
            *input = f;
            return;
        }
    }
}

/// Accumulation steps for the input's [`TrainPlan::global_batch`] at its micro-batch and
/// data-parallel ranks; `None` without a global batch.
pub(crate) fn accumulation_for(input: &FitInput) -> Option<u32> {
    let dp = setup(input).dp.max(1);
    input.train_plan.global_batch.map(|g| g.div_ceil(input.batch.max(1).saturating_mul(dp)).max(1))
}

/// The verdict of one GPU against its training memory (as the inference verdict).
pub fn verdict(total_gib: f64, required_gib: f64, capacity_gib: f64) -> FitVerdict {
    if required_gib <= capacity_gib {
        FitVerdict::Fits
    } else if total_gib <= capacity_gib {
        FitVerdict::Tight
    } else {
        FitVerdict::DoesNotFit
    }
}
#[cfg(test)]
mod held;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
    use super::super::{FitInput, GpuSlot, Link, LoraTargets, Mode, Optimizer, Parallelism, Precision, estimate};
    use super::*;

    fn catalog() -> kraftwerk_catalog::Catalog {
        kraftwerk_catalog::load::builtin().expect("catalog")
    }

    fn input(c: &kraftwerk_catalog::Catalog, model: &str, mode: Mode) -> FitInput {
        let mut i = FitInput::new(c.model(model).expect("model").clone(), Precision::Bf16);
        i.mode = mode;
        i.context_tokens = 2048;
        i.gradient_checkpointing = true;
        i
    }

    fn gpus(c: &kraftwerk_catalog::Catalog, id: &str, n: usize, link: Option<Link>) -> Vec<GpuSlot> {
        let g = c.gpu(id).expect("gpu").clone();
        let l = link.unwrap_or_else(|| Link::nvlink_of(&g).unwrap_or_else(|| Link::pcie_native(&g)));
        (0..n).map(|_| GpuSlot::with_link(g.clone(), l)).collect()
    }

    #[test]
    fn names_round_trip_and_parse_stages() {
        for t in Trainer::ALL {
            assert_eq!(t.to_string().parse::<Trainer>(), Ok(t));
        }
        for l in [LoraTargets::AllLinear, LoraTargets::Attention, LoraTargets::QueryValue] {
            assert_eq!(l.to_string().parse::<LoraTargets>(), Ok(l));
        }
        for o in
            [Optimizer::AdamW, Optimizer::AdamW8bit, Optimizer::PagedAdamW8bit, Optimizer::Sgd, Optimizer::Adafactor]
        {
            assert_eq!(o.to_string().parse::<Optimizer>(), Ok(o));
        }
        assert_eq!(
            super::super::parse_training_runtime("deepspeed-zero3-offload"),
            Ok((Trainer::DeepSpeed, Some(3), true))
        );
        assert_eq!(super::super::parse_training_runtime("zero2"), Ok((Trainer::DeepSpeed, Some(2), false)));
        assert_eq!(super::super::parse_training_runtime("fsdp-offload"), Ok((Trainer::Fsdp, None, true)));
        assert!(super::super::parse_training_runtime("zero4").is_err());
        assert!(super::super::parse_training_runtime("vllm").is_err());
    }

    /// `--parallel dp:N` with ZeRO-3 or FSDP shards weights, gradients and optimizer states
    /// over the N ranks (DeepSpeed's estimator: 18 bytes per parameter / N); DDP replicates.
    #[test]
    fn zero3_and_fsdp_shard_over_dp_ranks() {
        let c = catalog();
        let mut i = input(&c, "llama-3.1-8b", Mode::FullFineTune);
        let slots = gpus(&c, "nvidia-a100-sxm4-80gb", 8, None);
        let states = |i: &FitInput| {
            let r = estimate(i, &slots[..i.parallelism.degree() as usize]).expect("estimate");
            let m = r.gpus[0].memory;
            (m.weights_gib + m.gradients_gib + m.optimizer_gib) * GIB
        };
        i.trainer = Some(Trainer::DeepSpeed);
        i.zero_stage = 3;
        for n in [2u32, 4, 8] {
            i.parallelism = Parallelism::DataParallel(n);
            let per_param = states(&i) / 8.03e9;
            assert!((per_param - 18.0 / f64::from(n)).abs() < 1e-6, "ZeRO-3 over {n}: {per_param}");
        }
        i.zero_stage = 2;
        i.parallelism = Parallelism::DataParallel(4);
        assert!((states(&i) / 8.03e9 - (4.0 + 16.0 / 4.0)).abs() < 1e-6);
        i.trainer = Some(Trainer::Fsdp);
        let fsdp4 = states(&i);
        i.parallelism = Parallelism::DataParallel(8);
        assert!((states(&i) * 2.0 - fsdp4).abs() < 1.0, "FSDP halves from 4 to 8 ranks");
        i.trainer = Some(Trainer::HfPeft);
        i.zero_stage = 0;
        let ddp = states(&i);
        i.parallelism = Parallelism::Single;
        assert!((states(&i) - ddp).abs() < 1.0, "DDP replicates the states");
    }

    /// Without `--parallel` a training run on several GPUs gets DDP where it fits, else FSDP,
    /// else FSDP with CPU offload; never tensor parallel, which the estimate refuses.
    #[test]
    fn training_picks_ddp_then_fsdp_never_tp() {
        let c = catalog();
        let q8 = input(&c, "llama-3.1-8b", Mode::Qlora);
        let slots = gpus(&c, "nvidia-geforce-rtx-3090", 2, Some(Link::Pcie { generation: 4, lanes: 16 }));
        let mut a = q8.clone();
        choose_parallelism(&mut a, &slots);
        assert_eq!((a.parallelism, a.trainer), (Parallelism::DataParallel(2), None));
        let mut b = input(&c, "llama-3.1-70b", Mode::Qlora);
        choose_parallelism(&mut b, &slots);
        assert_eq!(b.parallelism, Parallelism::DataParallel(2));
        assert_eq!(b.trainer, Some(Trainer::Fsdp));
        let mut tp = q8;
        tp.parallelism = Parallelism::TensorParallel(2);
        assert!(matches!(estimate(&tp, &slots), Err(super::super::FitError::Unsupported(_))));
    }

    /// An 8B full fine-tune on one 24 GB card fits as torchtune's `8B_full_single_device` runs
    /// it (BF16, paged 8-bit AdamW, optimizer in backward, checkpointing); with plain AdamW in
    /// BF16 (8 bytes per parameter) it needs ~64 GB of model states, not 126 GiB.
    #[test]
    fn full_8b_on_one_24gb_card_as_torchtune_runs_it() {
        let c = catalog();
        let mut i = input(&c, "llama-3.1-8b", Mode::FullFineTune);
        i.batch = 2;
        i.trainer = Some(Trainer::Torchtune);
        i.optimizer = Optimizer::PagedAdamW8bit;
        let card = gpus(&c, "nvidia-geforce-rtx-4090", 1, None);
        let r = estimate(&i, &card).expect("estimate");
        assert_ne!(r.verdict, FitVerdict::DoesNotFit, "{:#?}", r.gpus);
        i.trainer = Some(Trainer::HfPeft);
        i.optimizer = Optimizer::AdamW;
        let hf = estimate(&i, &card).expect("estimate");
        let m = hf.gpus[0].memory;
        let states = m.weights_gib + m.gradients_gib + m.optimizer_gib;
        assert!((states * GIB / 8.03e9 - 8.0).abs() < 1e-6, "{states}");
        assert_eq!(hf.verdict, FitVerdict::DoesNotFit);
    }

    /// LoRA rank and targets and the optimizer change the memory.
    #[test]
    fn rank_targets_and_optimizer_change_memory() {
        let c = catalog();
        let card = gpus(&c, "nvidia-a100-sxm4-80gb", 1, None);
        let total = |i: &FitInput| estimate(i, &card).expect("estimate").gpus[0].memory.total_gib;
        let mut i = input(&c, "llama-3.1-8b", Mode::Lora);
        let r16 = total(&i);
        i.lora_rank = 128;
        let r128 = total(&i);
        assert!(r128 > r16 + 1.0, "{r16} {r128}");
        // Adapter parameters from the shape: rank 16 on all linear layers of Llama 3.1 8B.
        i.lora_rank = 16;
        let all = memory::adapter_params(&i);
        assert!((all - 41.94e6).abs() < 0.01e6, "{all}");
        i.lora_targets = LoraTargets::QueryValue;
        assert!((memory::adapter_params(&i) - 6.82e6).abs() < 0.01e6);
        let mut f = input(&c, "llama-3.1-8b", Mode::FullFineTune);
        let adam = total(&f);
        f.optimizer = Optimizer::AdamW8bit;
        let eight = total(&f);
        f.optimizer = Optimizer::Sgd;
        let sgd = total(&f);
        f.optimizer = Optimizer::Adafactor;
        let ada = total(&f);
        // BF16 weights: SGD's one BF16 momentum equals 8-bit AdamW's two 1-byte states.
        assert!(adam > sgd && (sgd - eight).abs() < 1e-9 && eight > ada, "{adam} {sgd} {eight} {ada}");
    }

    /// The same DDP full fine-tune on 4x RTX 3090 over PCIe and on 4x A100 over NVLink: the
    /// gradient all-reduce crosses the build's real links, so the PCIe rig spends far longer
    /// communicating, and narrower slots (x4 through a chipset) longer still.
    #[test]
    fn links_change_training_time() {
        let c = catalog();
        let mut i = input(&c, "llama-3.2-1b", Mode::FullFineTune);
        i.parallelism = Parallelism::DataParallel(4);
        i.trainer = Some(Trainer::HfPeft);
        let speed = |slots: &[GpuSlot]| estimate(&i, slots).expect("estimate").training.unwrap().speed.unwrap();
        let pcie = speed(&gpus(&c, "nvidia-geforce-rtx-3090", 4, Some(Link::Pcie { generation: 4, lanes: 16 })));
        let x4 = speed(&gpus(&c, "nvidia-geforce-rtx-3090", 4, Some(Link::Pcie { generation: 4, lanes: 4 })));
        let nvl = speed(&gpus(&c, "nvidia-a100-sxm4-80gb", 4, None));
        assert!(pcie.comm_s > 5.0 * nvl.comm_s, "{} vs {}", pcie.comm_s, nvl.comm_s);
        assert!(x4.comm_s > 3.9 * pcie.comm_s);
        assert!(x4.tokens_per_s < pcie.tokens_per_s);
        assert!(nvl.tokens_per_s > pcie.tokens_per_s);
    }
}

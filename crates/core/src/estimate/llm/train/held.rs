//! The training estimate held to published fine-tuning runs. Each row is one
//! published measurement with its source; rows marked `fitted` set a constant (named in the
//! row) and are listed apart; every other row is held out. The test prints the whole table
//! (`cargo test -p kraftwerk-core --lib held_training_table -- --nocapture`) and requires at
//! least 25 held rows, of which at least 75 % are within ±20 % (memory) / ±25 % (tokens/s);
//! the rows outside are listed with the reason.
//!
//! Sources (2024):
//! - torchtune README, "Memory and training speed" table (github.com/pytorch/torchtune,
//!   README.md @0031bfb): Llama 3.1, batch 2, packed to 2048 tokens, torch.compile; peak memory
//!   per GPU and tokens/s "measured over one full training epoch". Configs of the recipes named:
//!   `8B_full_single_device` (PagedAdamW8bit, optimizer in backward, activation checkpointing),
//!   `8B_lora_single_device` / `8B_qlora_single_device` (rank 8, activation checkpointing),
//!   `70B_full` (FSDP, CPU offload), `70B_lora` (rank 16), `405B_qlora` (rank 16).
//! - Unsloth README (github.com/unslothai/unsloth, Llama 3.3 release, December 2024): the
//!   longest context of a QLoRA fine-tune (rank 32, all linear layers, batch 1, gradient
//!   checkpointing) on GPUs of 8-80 GB, Unsloth and "Hugging Face + FA2"; a row says the run's
//!   peak equals the GPU's memory at that context.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, reason = "a test")]

use super::super::{FitInput, GpuSlot, Link, LoraTargets, Mode, Optimizer, Parallelism, Precision, Trainer, estimate};
use kraftwerk_catalog::{Catalog, Gpu, LlmModel};

/// What a row measured.
#[derive(Clone, Copy)]
enum Measured {
    /// Peak allocated memory per GPU (torch.cuda.max_memory_allocated), GiB.
    PeakGib(f64),
    /// The run filled a GPU of this many GiB at the row's context (longest context that fit).
    FillsGib(f64),
    /// Tokens per second over all GPUs.
    TokensPerS(f64),
}

struct Row {
    source: &'static str,
    model: &'static str,
    gpu: &'static str,
    /// Memory of the GPU when the row is about a memory size, not a card (Unsloth's table).
    memory_gib: Option<f64>,
    gpus: u32,
    trainer: Trainer,
    mode: Mode,
    rank: u32,
    targets: LoraTargets,
    optimizer: Optimizer,
    batch: u32,
    seq: u32,
    offload: bool,
    measured: Measured,
    /// `Some(constant)` when the row fitted that constant.
    fitted: Option<&'static str>,
    /// Why a row may miss (the setting the source does not publish), shown when it does.
    caveat: &'static str,
}

const TT: &str = "torchtune README @0031bfb";
const US: &str = "Unsloth README (Dec 2024)";

#[allow(clippy::too_many_lines, reason = "a table")]
fn rows() -> Vec<Row> {
    use Measured::{PeakGib, TokensPerS};
    use Mode::{FullFineTune as Full, Lora, Qlora};
    use Optimizer::{AdamW, PagedAdamW8bit as Paged};
    let tt = |model, gpu, gpus, mode, rank, optimizer, offload, measured, fitted, caveat| Row {
        source: TT,
        model,
        gpu,
        memory_gib: None,
        gpus,
        trainer: Trainer::Torchtune,
        mode,
        rank,
        targets: LoraTargets::AllLinear,
        optimizer,
        batch: 2,
        seq: 2048,
        offload,
        measured,
        fitted,
        caveat,
    };
    let us = |model, trainer, mem: f64, seq, fitted| Row {
        source: US,
        model,
        gpu: "nvidia-a100-sxm4-80gb",
        memory_gib: Some(mem),
        gpus: 1,
        trainer,
        mode: Mode::Qlora,
        rank: 32,
        targets: LoraTargets::AllLinear,
        optimizer: Optimizer::AdamW8bit,
        batch: 1,
        seq,
        offload: false,
        measured: Measured::FillsGib(mem),
        fitted,
        caveat: "optimizer of the benchmark not published (adamw_8bit of Unsloth's notebooks assumed)",
    };
    let g4090 = "nvidia-geforce-rtx-4090";
    let a6000 = "nvidia-rtx-a6000";
    let a100 = "nvidia-a100-sxm4-80gb";
    let (l8, l70, l405) = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b");
    let same_cfg = "the A6000 rows' configuration is not published (same recipe assumed; its peak is twice the 4090's)";
    vec![
        tt(
            l8,
            g4090,
            1,
            Full,
            0,
            Paged,
            false,
            PeakGib(18.9),
            None,
            "paged 8-bit states not counted (CUDA unified memory)",
        ),
        tt(l8, g4090, 1, Full, 0, Paged, false, TokensPerS(1650.0), Some("MFU_GDDR"), ""),
        tt(l8, a6000, 1, Full, 0, Paged, false, PeakGib(37.4), None, same_cfg),
        tt(l8, a6000, 1, Full, 0, Paged, false, TokensPerS(2579.0), None, same_cfg),
        tt(l8, g4090, 1, Lora, 8, AdamW, false, PeakGib(16.2), None, ""),
        tt(
            l8,
            g4090,
            1,
            Lora,
            8,
            AdamW,
            false,
            TokensPerS(3083.0),
            None,
            "0.84 MFU with recomputation, 0.56 without: the run's checkpointing or offloading is not published",
        ),
        tt(l8, a6000, 1, Lora, 8, AdamW, false, PeakGib(30.3), None, same_cfg),
        tt(l8, a6000, 1, Lora, 8, AdamW, false, TokensPerS(4699.0), None, same_cfg),
        tt(l8, g4090, 1, Qlora, 8, AdamW, false, PeakGib(7.4), None, ""),
        tt(l8, g4090, 1, Qlora, 8, AdamW, false, TokensPerS(2413.0), None, ""),
        tt(
            l70,
            a100,
            8,
            Full,
            0,
            AdamW,
            true,
            PeakGib(13.9),
            None,
            "CPU offload with the optimizer fused into backward",
        ),
        tt(
            l70,
            a100,
            8,
            Full,
            0,
            AdamW,
            true,
            TokensPerS(1568.0),
            None,
            "the optimizer step on the CPU (host-RAM bandwidth) is not modelled",
        ),
        tt(l70, a100, 8, Lora, 16, AdamW, false, PeakGib(27.6), None, ""),
        tt(l70, a100, 8, Lora, 16, AdamW, false, TokensPerS(3497.0), Some("MFU_HBM"), ""),
        tt(l405, a100, 8, Qlora, 16, AdamW, false, PeakGib(44.8 * 1e9 / (1u64 << 30) as f64), None, ""),
        tt(l405, a100, 8, Qlora, 16, AdamW, false, TokensPerS(653.0), None, ""),
        us(l8, Trainer::Unsloth, 8.0, 2_972, None),
        us(l8, Trainer::Unsloth, 12.0, 21_848, None),
        us(l8, Trainer::Unsloth, 16.0, 40_724, None),
        us(l8, Trainer::Unsloth, 24.0, 78_475, None),
        us(l8, Trainer::Unsloth, 40.0, 153_977, None),
        us(l8, Trainer::Unsloth, 48.0, 191_728, None),
        us(l8, Trainer::Unsloth, 80.0, 342_733, Some("UNSLOTH_BYTES_PER_TOKEN_HIDDEN")),
        us(l8, Trainer::HfPeft, 12.0, 932, None),
        us(l8, Trainer::HfPeft, 16.0, 2_551, None),
        us(l8, Trainer::HfPeft, 24.0, 5_789, None),
        us(l8, Trainer::HfPeft, 40.0, 12_264, None),
        us(l8, Trainer::HfPeft, 48.0, 15_502, None),
        us(l8, Trainer::HfPeft, 80.0, 28_454, None),
        us("llama-3.3-70b", Trainer::Unsloth, 48.0, 12_106, None),
        us("llama-3.3-70b", Trainer::Unsloth, 80.0, 89_389, None),
        us("llama-3.3-70b", Trainer::HfPeft, 80.0, 6_916, None),
    ]
}

fn gpu(c: &Catalog, id: &str, memory_gib: Option<f64>) -> Gpu {
    let mut g = c.gpu(id).unwrap_or_else(|| panic!("catalog GPU {id}")).clone();
    if let Some(m) = memory_gib {
        g.memory_gib = m;
    }
    g
}

fn model(c: &Catalog, id: &str) -> LlmModel {
    c.model(id).unwrap_or_else(|| panic!("catalog model {id}")).clone()
}

/// The estimate of a row: (estimated figure, measured figure, band %).
#[allow(clippy::many_single_char_names, reason = "a test's short names")]
fn judge(c: &Catalog, r: &Row) -> (f64, f64, f64) {
    let mut i = FitInput::new(model(c, r.model), Precision::Bf16);
    i.mode = r.mode;
    i.trainer = Some(r.trainer);
    i.lora_rank = r.rank.max(1);
    i.lora_targets = r.targets;
    i.optimizer = r.optimizer;
    i.batch = r.batch;
    i.context_tokens = r.seq;
    i.model.max_context = i.model.max_context.max(r.seq);
    i.gradient_checkpointing = true;
    i.cpu_offload = r.offload;
    i.parallelism = if r.gpus > 1 { Parallelism::DataParallel(r.gpus) } else { Parallelism::Single };
    let g = gpu(c, r.gpu, r.memory_gib);
    let link = Link::nvlink_of(&g).unwrap_or_else(|| Link::pcie_native(&g));
    let slots: Vec<GpuSlot> = (0..r.gpus).map(|_| GpuSlot::with_link(g.clone(), link)).collect();
    let rep = estimate(&i, &slots).expect("estimate");
    let t = rep.training.as_ref().expect("training report");
    let total = rep.gpus.iter().map(|g| g.memory.total_gib).fold(0.0, f64::max);
    match r.measured {
        Measured::PeakGib(m) => (t.peak_allocated_gib, m, super::basis::MEMORY_BAND_PCT),
        Measured::FillsGib(m) => (total, m, super::basis::MEMORY_BAND_PCT),
        Measured::TokensPerS(m) => {
            (t.speed.as_ref().map_or(f64::NAN, |s| s.tokens_per_s), m, super::basis::SPEED_BAND_PCT)
        }
    }
}

#[test]
#[allow(clippy::many_single_char_names, reason = "a test's short names")]
fn held_training_table() {
    let c = kraftwerk_catalog::load::builtin().expect("catalog");
    let rows = rows();
    let mut held = 0;
    let mut within = 0;
    let mut outside = Vec::new();
    println!(
        "{:<26} {:<14} {:<26} {:>2} {:<9} {:<5} {:>7} {:>12} {:>12} {:>7}  role",
        "source", "model", "gpu", "n", "runtime", "mode", "seq", "measured", "estimate", "dev %"
    );
    for r in &rows {
        let (est, meas, band) = judge(&c, r);
        let dev = (est / meas - 1.0) * 100.0;
        let ok = dev.abs() <= band;
        let unit = match r.measured {
            Measured::TokensPerS(_) => "tok/s",
            Measured::PeakGib(_) => "GiB peak",
            Measured::FillsGib(_) => "GiB full",
        };
        let gpu = match r.memory_gib {
            Some(m) => format!("{m} GB GPU"),
            None => r.gpu.to_owned(),
        };
        let role = if let Some(k) = r.fitted {
            format!("fitted {k}")
        } else {
            held += 1;
            if ok {
                within += 1;
                "held, within".to_owned()
            } else {
                outside.push(format!("{} {} {} {} {unit}: {dev:+.0} % ({})", r.source, r.model, gpu, r.mode, r.caveat));
                "held, OUTSIDE".to_owned()
            }
        };
        println!(
            "{:<26} {:<14} {:<26} {:>2} {:<9} {:<5} {:>7} {:>8.1} {unit:<8} {:>8.1} {:>+7.1}  {role}",
            r.source,
            r.model,
            gpu,
            r.gpus,
            r.trainer.to_string(),
            r.mode.to_string(),
            r.seq,
            meas,
            est,
            dev
        );
    }
    println!("\nheld rows: {held}, within band: {within} ({:.0} %)", 100.0 * f64::from(within) / f64::from(held));
    for o in &outside {
        println!("  outside: {o}");
    }
    assert!(held >= 25, "{held} held rows");
    assert!(f64::from(within) >= 0.75 * f64::from(held), "{within} of {held} within band");
}

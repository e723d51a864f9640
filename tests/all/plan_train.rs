//! The planner in training mode, held to experts' published answers. The planner
//! judges a training goal with the same core functions `kraftwerk fit` uses
//! (`estimate::llm::train`: framework memory, DDP/FSDP/offload choice, tokens/s).

use kraftwerk::catalog::Catalog;
use kraftwerk::plan::goal::{Goal, ModelRef};
use kraftwerk::plan::plan_blocking;

fn catalog() -> Catalog {
    kraftwerk::catalog::builtin().expect("built-in catalog")
}

fn card_memory(c: &Catalog, id: &str) -> f64 {
    c.gpu_or_card(id).expect("card").memory_gib
}

/// "QLoRA a 70B model for at most $4,000": Answer.AI, "You can now train a 70b language model
/// at home" (2024-03-06, <https://www.answer.ai/posts/2024-03-06-fsdp-qlora>): FSDP + QLoRA
/// trains a 70B model "on a regular desktop computer with two or more standard gaming GPUs (RTX
/// 3090 or 4090)"; its repository's command (AnswerDotAI/fsdp_qlora README, "Finetune Llama-2
/// 70B on Dual 24GB GPUs") runs batch 2 at 2048 tokens with gradient checkpointing and CPU
/// offload. The planner's cheapest answer: two 24 GB NVIDIA cards of the RTX 3090/4090 class.
#[test]
fn qlora_70b_under_4000_usd_is_two_24gb_gaming_cards() {
    let c = catalog();
    let g = Goal {
        model: ModelRef::Preset("llama-3.1-70b".into()),
        mode: kraftwerk::estimate::llm::Mode::Qlora,
        context: Some(2048),
        users: 2,
        budget_usd: Some(4000.0),
        used: true,
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    let best = out.results.first().expect("a build meets the goal");
    let gpus = &best.build.gpus;
    assert_eq!(gpus.len(), 2, "{}", best.title);
    for p in gpus {
        assert!((23.0..=25.0).contains(&card_memory(&c, &p.gpu)), "{}: {}", best.title, p.gpu);
        let chip = c.gpu_or_card(&p.gpu).expect("card");
        assert!(chip.name.contains("RTX 3090") || chip.name.contains("RTX 4090"), "{}", chip.name);
    }
    assert!(best.price_usd <= 4000.0, "{}", best.price_usd);
    // No single card of any price under the budget holds it, and no inference runtime judged it.
    assert!(out.results.iter().all(|r| r.build.gpus.len() >= 2));
    assert!(best.build.workload.as_ref().is_some_and(|w| w.runtime.is_none()));
}

/// "Full fine-tune an 8B model in a day": torchtune's README ("Memory and training speed",
/// Llama 3.1 8B full fine-tune, runnable on 1x RTX 4090 at 18.9 GiB and 1,650 tokens/s, batch
/// 2, 2048 tokens, `8B_full_single_device` with paged 8-bit AdamW) answers one 24 GB RTX 4090;
/// 100 M tokens at 1,650 tokens/s take 16.8 h. (That row calibrates the GDDR MFU, so this test
/// checks the planner's use of it, not the MFU.) New cards only: the slower 24 GB RTX 3090
/// (71 against 165 BF16 TFLOP/s) would take about 40 h and is refused by the time target.
#[test]
fn full_fine_tune_8b_in_a_day_is_one_rtx_4090() {
    let c = catalog();
    let g = Goal {
        model: ModelRef::Preset("llama-3.1-8b".into()),
        mode: kraftwerk::estimate::llm::Mode::FullFineTune,
        trainer: Some(kraftwerk::plan::goal::TrainingRuntime {
            trainer: kraftwerk::estimate::llm::Trainer::Torchtune,
            zero_stage: None,
            offload: false,
        }),
        optimizer: Some(kraftwerk::estimate::llm::Optimizer::PagedAdamW8bit),
        context: Some(2048),
        users: 2,
        train_tokens: Some(100e6),
        train_hours: Some(24.0),
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    let best = out.results.first().expect("a build meets the goal");
    assert_eq!(best.build.gpus.len(), 1, "{}", best.title);
    // The expert's class: one 24 GB card that finishes inside the day. Which one ranks first
    // follows today's prices: since the price method withholds the RTX 4090's 2022 launch price
    // as too old to be a new price, the 24 GB RTX PRO 4000 Blackwell ($1,800) comes first.
    let chip = c.gpu_or_card(&best.build.gpus[0].gpu).expect("card");
    assert!((23.0..=33.0).contains(&chip.memory_gib), "{}: {} GiB", chip.name, chip.memory_gib);
    assert!(!chip.name.contains("3090"), "{}: the 3090 takes about 40 h", chip.name);
    // Two days' time: the cheaper 24 GB cards come in.
    let slow = Goal { train_hours: Some(60.0), used: true, ..g };
    let out = plan_blocking(&c, &slow).expect("plan");
    assert!(out.results.iter().any(|r| {
        let chip = c.gpu_or_card(&r.build.gpus[0].gpu).expect("card");
        chip.name.contains("3090")
    }));
}

/// A trial's QLoRA plan read "tower at bf16" and met its 24 h at 21.3 h on HF-PEFT's MFU, which
/// no published run holds, without saying so: the title says the run is QLoRA on an NF4 base,
/// and a framework whose speed no published run holds carries a speed caveat (ranked as
/// unvalidated), in the text as well.
#[test]
fn a_qlora_plan_says_nf4_and_an_unheld_training_speed() {
    let c = catalog();
    let g = Goal {
        model: ModelRef::Preset("llama-3.1-70b".into()),
        mode: kraftwerk::estimate::llm::Mode::Qlora,
        train_tokens: Some(50_000_000.0),
        train_hours: Some(24.0),
        trainer: Some(kraftwerk::plan::goal::TrainingRuntime {
            trainer: kraftwerk::estimate::llm::Trainer::HfPeft,
            zero_stage: None,
            offload: false,
        }),
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty());
    for r in &out.results {
        assert!(
            r.eval.speed_caveats.iter().any(|s| s.contains("no published run of hf-peft")),
            "{:?}",
            r.eval.speed_caveats
        );
    }
    let o = crate::support::kw(&[
        "plan",
        "--mode",
        "qlora",
        "--model",
        "llama-3.1-70b",
        "--dataset-tokens",
        "50000000",
        "--hours",
        "24",
        "--runtime",
        "hf-peft",
        "--max-results",
        "1",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("at QLoRA (NF4 base, bf16 compute):"), "{text}");
    assert!(text.contains("speed caveat: no published run of hf-peft holds its training speed"), "{text}");
}

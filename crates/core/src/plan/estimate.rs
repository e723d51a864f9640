//! Estimating a judged machine with the fit code exactly as `kraftwerk fit` estimates the saved
//! build ([`estimate`]): fit, speed, training time and cost, the hybrid CPU+GPU split of a
//! mixture-of-experts model the GPUs alone do not hold ([`Hybrid`]), the priced lines, and the
//! figures the goal depends on that are unknown (a price under a budget, the tensor rate under a
//! prefill target). [`evaluate`] judges and then estimates.

use super::evaluation::{Evaluation, Hybrid};
use super::goal::Goal;
use super::judge::judge;
use super::model::Model;
use crate::estimate::fit::{self, FitOptions};
use crate::estimate::llm::{self, Precision};
use crate::rig::Build;
use crate::rig::parts_list::{Bought, PricedLine};
use crate::workload::RuntimeChoice;
use kraftwerk_catalog::Catalog;
use kraftwerk_catalog::prices::PriceOrigin;

/// The fit options the planner estimates a planned build with: the build's workload at its
/// precision, the model file's exact weights when the goal's model came from one, vLLM's
/// verdict on headroom only (the planner sizes the pool itself).
pub fn fit_options(build: &Build, model: &Model, goal: &Goal) -> FitOptions {
    let training = goal.is_training();
    FitOptions {
        precision: build.workload.as_ref().map(|w| w.precision),
        model_file: model.file.as_deref().cloned(),
        // A training goal's framework and optimizer (the build file keeps neither).
        runtime: goal.trainer.filter(|_| training).map(RuntimeChoice::Training),
        optimizer: goal.optimizer.filter(|_| training),
        train_plan: llm::train::TrainPlan {
            dataset_tokens: goal.train_tokens.filter(|_| training),
            ..Default::default()
        },
        ..FitOptions::default()
    }
}

/// The least of [`llm::basis::held_decode_at_most`] over the fit's GPUs under its runtime (on
/// each card's default llama.cpp back end, as the planner's cards are judged), with its words.
fn held_decode_at_most(catalog: &Catalog, fit: &llm::FitReport) -> Option<(f64, String)> {
    fit.gpus
        .iter()
        .filter_map(|g| catalog.gpu_or_card(&g.gpu_id))
        .filter_map(|g| llm::basis::held_decode_at_most(g, &llm::basis::family_on_default_backend(g, fit.runtime)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// Fit, speed and cost of a judged build ([`fit::for_build`], with the model file's exact
/// weights when the goal's model came from one), and the figures the goal depends on that are
/// unknown: a price under a budget, the tensor rate under a prefill target.
pub fn estimate(build: &Build, catalog: &Catalog, goal: &Goal, model: &Model, ev: &mut Evaluation) {
    let opts = fit_options(build, model, goal);
    match fit::for_build(build, catalog, &opts) {
        Ok(f) => {
            // Whether the runtime runs on the cards, as `fit` says it: a requirement the catalog
            // cannot check is a figure the goal depends on; one the runtime never published is
            // said with the result.
            for s in &f.fit.runtime_support {
                match &s.support {
                    llm::support::Support::NotChecked(why) => ev.not_checked.push(format!("runtime: {why}")),
                    llm::support::Support::Unpublished(why) => ev.not_checked_other.push(format!("runtime: {why}")),
                    llm::support::Support::Runs | llm::support::Support::DoesNotRun(_) => {}
                }
            }
            ev.fits = f.fit.verdict != llm::FitVerdict::DoesNotFit && f.fit.short_of_headroom().is_none();
            ev.decode_per_user = f.fit.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s);
            ev.decode_total = f.fit.speed.as_ref().map(|s| s.decode_batch_tokens_per_s);
            ev.prefill = f.fit.speed.as_ref().and_then(|s| s.prefill_tokens_per_s);
            if let Some(t) = &f.fit.training {
                ev.train_setup = Some(format!("{} ({})", t.runtime, t.setup));
                ev.train_tokens_per_s = t.speed.as_ref().map(|s| s.tokens_per_s);
                ev.train_hours = t.hours;
            }
            ev.speed_caveats.clone_from(&f.fit.speed_basis.not_measured_on);
            ev.decode_held_at_most = held_decode_at_most(catalog, &f.fit);
            // A training run whose framework no published run holds (`fit`'s "band unknown"):
            // its hours are unvalidated, and the plan ranks it after held ones (a trial's QLoRA
            // plan met 24 h at 21.3 h on HF-PEFT's unheld MFU and said nothing of it).
            if let Some(t) = f.fit.training.as_ref().filter(|_| f.fit.speed_basis.band_pct.is_none()) {
                ev.speed_caveats.push(format!(
                    "no published run of {} holds its training speed (band unknown; the MFU is calibrated on torchtune's runs): the hours are unvalidated",
                    t.runtime
                ));
            }
            ev.vllm_setting = vllm_setting(build, catalog, &f);
            // A hybrid split (the all-GPU fit does not fit) is judged by its own placement.
            if ev.fits {
                ev.memory_tight = memory_tight(&f.fit);
            }
            if !ev.fits && goal.users == 1 && !goal.is_training() {
                hybrid(build, catalog, goal, &f, ev);
            }
            if let Some(c) = f.cost {
                ev.parts = c
                    .parts
                    .iter()
                    .map(|p| {
                        let info = p.unit_price_usd.and_then(|_| catalog.price_of(&p.id));
                        // Owned units are the cost's own split (`cost.parts[].bought`).
                        let owned = p.bought.as_deref() == Some(kraftwerk_catalog::cited::OWNED_SOURCE)
                            || info.is_some_and(|i| i.origin() == PriceOrigin::Owned);
                        PricedLine {
                            id: p.id.clone(),
                            name: p.name.clone(),
                            quantity: p.quantity,
                            unit_price_usd: p.unit_price_usd,
                            price_date: info.filter(|_| !owned).and_then(|i| i.date.map(str::to_owned)),
                            price_source: if owned {
                                Some(kraftwerk_catalog::cited::OWNED_SOURCE.to_owned())
                            } else {
                                info.and_then(|i| i.source.map(str::to_owned))
                            },
                            bought: Some(Bought {
                                used: !owned && info.is_some_and(|i| i.origin() == PriceOrigin::Used),
                                owned,
                            }),
                        }
                    })
                    .collect();
                ev.known_price_usd = c.hardware_usd;
                ev.unpriced.clone_from(&c.missing_prices);
                ev.usd_per_mtok = c.usd_per_million_tokens;
                ev.break_even_months = c.cloud.break_even_months;
                ev.break_even = Some(c.cloud.break_even.clone());
                // The offer and the basis of the break-even (the same tokens, or the same hours).
                ev.cloud = c.cloud.offer();
            } else if let Some(e) = f.cost_error {
                ev.errors.push(format!("cost: {e}"));
            }
        }
        Err(e) => ev.errors.push(format!("fit: {e}")),
    }
    // Risers are in the cost's parts (the build's parts list, unpriced: no catalog entry), so in
    // `ev.parts` and `ev.unpriced` above.
    // A capped plan's speeds are the capped machine's: `fit::for_build` runs the GPUs at the
    // build's power limits, as `kraftwerk fit` does on the saved build, and what the cap leaves
    // as an upper bound is said as `fit` says it.
    if ev.power_cap.is_some() {
        ev.speed_notes.extend(fit::power_limit_caveat(&build.resolve(catalog)).map(|c| format!("power limit: {c}")));
    }
    ev.owned_unused = owned_unused(build, catalog, goal);
    if goal.budget_usd.is_some() && !ev.unpriced.is_empty() {
        ev.not_checked.push(format!("budget: price unknown for {}", ev.unpriced.join(", ")));
    }
    if goal.prefill_tok_s.is_some() && ev.prefill.is_none() && !goal.is_training() {
        ev.not_checked.push("prefill: the GPU's tensor rate for this precision is unknown (not in the catalog)".into());
    }
}

/// A MoE model the GPUs alone do not hold: the fit's own verdict on the expert offload
/// ([`fit::BuildFit::fits_with_experts_in_ram`], what `kraftwerk fit` says of the saved build)
/// becomes the build's [`Hybrid`] split, with the cost `fit` gives it at that speed (batch 1).
/// Leaves `ev` as it was otherwise (a runtime that does not keep experts in RAM, RAM too small).
fn hybrid(build: &Build, catalog: &Catalog, goal: &Goal, f: &fit::BuildFit, ev: &mut Evaluation) {
    let Some(o) = f.fits_with_experts_in_ram.as_ref() else { return };
    let (Some(decode), Some(bw)) = (o.decode_tokens_per_s, f.host_bandwidth_gb_s) else { return };
    let r = build.resolve(catalog);
    let Some((kit, kits)) = r.memory else { return };
    // The speed the RAM runs at (the kit's rating capped by the CPU's), as the fit used it.
    let speed_mt_s = f.host_ram_speed.as_ref().map_or(kit.speed_mt_s, |s| s.mt_s);
    let channels = (bw * 1000.0 / 8.0 / f64::from(speed_mt_s.max(1))).round() as u32;
    let precision = build.workload.as_ref().map_or(f.fit.weight_precision, |w| w.precision);
    let asked = goal.precision.exact();
    ev.hybrid = Some(Hybrid {
        n_cpu_moe: o.n_cpu_moe,
        cpu_moe_layers: o.cpu_moe_layers,
        prefill_tokens_per_s: o.prefill_tokens_per_s,
        host_experts_gib: o.host_experts_gib,
        host_ram_needed_gib: o.host_ram_needed_gib,
        host_ram_gib: fit::host_ram_gib(&r)
            .unwrap_or(f64::from(kit.module_gb) * f64::from(kit.modules) * f64::from(kits)),
        channels,
        speed_mt_s,
        speed_basis: f
            .host_ram_speed
            .as_ref()
            .map_or("the kit's rating, unverified: the build names no CPU", |s| s.which())
            .to_owned(),
        host_bandwidth_gb_s: bw,
        decode_tokens_per_s: decode,
        runtime: f.fit.runtime,
        precision_note: asked.filter(|a| *a != precision).map(|a| hybrid_precision_note(a, precision)),
    });
    ev.decode_per_user = Some(decode);
    ev.decode_total = Some(decode);
    ev.prefill = o.prefill_tokens_per_s;
    // The split's decode is bound by the RAM's speed: the caveat `fit` gives the same split
    // (one sentence, [`crate::estimate::speed_summary::ram_caveat`]).
    ev.speed_caveats.extend(crate::estimate::speed_summary::ram_caveat(f, r.cpu.map(|c| c.name.as_str())));
    ev.speed_caveats.extend(crate::estimate::speed_summary::cores_caveat(f, r.cpu.map(|c| c.name.as_str())));
    ev.speed_notes.extend(crate::estimate::speed_summary::ram_rating_caveat(f, r.cpu.map(|c| c.name.as_str())));
}

/// [`super::evaluation::Evaluation::memory_tight`] of a fit that fits: each tight GPU as `fit`
/// words it, then why the context or the batch is the limit: the longest context that keeps
/// the headroom where that is the limit, or, under vLLM, how many sequences of the
/// context its KV pool holds at once (it queues the rest). Empty where no GPU is tight.
fn memory_tight(fit: &llm::FitReport) -> Vec<String> {
    let mut out: Vec<String> = fit
        .gpus
        .iter()
        .filter_map(|g| {
            let left = g.headroom_left_phrase()?;
            Some(format!(
                "GPU {} {}: {:.1} of {:.1} GiB, {left}",
                g.index + 1,
                g.gpu_id,
                g.memory.total_gib,
                g.capacity_gib
            ))
        })
        .collect();
    if out.is_empty() {
        return out;
    }
    let asked = fit.context_tokens;
    #[allow(clippy::cast_precision_loss, reason = "token counts, exact below 2^53")]
    let at_once = fit.vllm.as_ref().map(|pool| (pool.kv_tokens, pool.kv_tokens as f64 / f64::from(asked.max(1))));
    match (fit.max_context_tokens, at_once) {
        // vLLM's pool holds the context, but not every sequence of the batch at once.
        (Some(c), Some((kv_tokens, at_once))) if c >= asked && at_once < f64::from(fit.batch) => {
            out.push(format!(
                "vLLM's KV pool holds {} tokens: {at_once:.1} sequences of {} tokens at once, of the {} asked (it queues the rest)",
                crate::fmt::thousands(kv_tokens),
                crate::fmt::thousands(u64::from(asked)),
                fit.batch
            ));
        }
        (Some(c), _) => out.push(format!(
            "the longest context that fits at this batch is {} tokens ({} asked)",
            crate::fmt::thousands(u64::from(c)),
            crate::fmt::thousands(u64::from(asked))
        )),
        (None, _) => {}
    }
    out
}

/// The vLLM `--max-num-seqs` the build runs with (`workload.max_num_seqs`, written by the
/// search where vLLM's default would not start) and the pool the fit sized at it; `None` when
/// the build runs at vLLM's default or under another runtime.
fn vllm_setting(build: &Build, catalog: &Catalog, f: &fit::BuildFit) -> Option<super::evaluation::VllmSetting> {
    let seqs = build.workload.as_ref().and_then(|w| w.max_num_seqs)?;
    let pool = f.fit.vllm.as_ref()?;
    let r = build.resolve(catalog);
    let smallest = r.gpus.iter().flatten().min_by(|a, b| a.memory_gib.total_cmp(&b.memory_gib))?;
    let (_, default_max_num_seqs) = llm::vllm_memory::default_batch_limits(smallest);
    Some(super::evaluation::VllmSetting {
        max_num_seqs: seqs,
        default_max_num_seqs,
        kv_pool_gib: pool.kv_pool_gib,
        kv_tokens: pool.kv_tokens,
    })
}

/// Why a hybrid split runs at `used` where the goal asked for `asked`: llama.cpp, the runtime
/// that keeps experts in system RAM, loads GGUF files only.
fn hybrid_precision_note(asked: Precision, used: Precision) -> String {
    format!(
        "{used} instead of {asked}: the experts-in-RAM split is llama.cpp's (--n-cpu-moe), which loads GGUF files, \
         not {asked}; {used} is a GGUF quant of about the same bits"
    )
}

/// Judges a build with [`crate::check::run`] ([`judge`]) and, when it has no error, estimates it with
/// [`fit::for_build`] ([`estimate`]).
pub fn evaluate(build: &Build, catalog: &Catalog, goal: &Goal, model: &Model) -> Evaluation {
    let mut ev = judge(build, catalog);
    if ev.errors.is_empty() {
        estimate(build, catalog, goal, model, &mut ev);
    }
    ev
}

/// The GPUs the user owns ([`Goal::owned`]) that `build` leaves out, one phrase per owned GPU
/// id ([`Evaluation::owned_unused`]): a machine that meets the goal with fewer cards than the
/// user owns says so, rather than dropping the others silently.
fn owned_unused(build: &Build, catalog: &Catalog, goal: &Goal) -> Vec<String> {
    goal.owned
        .iter()
        .filter_map(|o| {
            let gpu = catalog.gpu_or_card(&o.id)?;
            // A partner card by its maker and model (`ASUS Turbo GeForce RTX 3090 ...`); a chip's
            // name already starts with its maker (`NVIDIA GeForce RTX 3090`).
            let name = if gpu.name.starts_with(&gpu.vendor) {
                gpu.name.clone()
            } else {
                format!("{} {}", gpu.vendor, gpu.name)
            };
            let used = u32::try_from(build.gpus.iter().filter(|g| g.gpu == o.id).count()).unwrap_or(u32::MAX);
            (used < o.count).then(|| {
                if used == 0 {
                    format!(
                        "uses none of the {} {name} you own (this machine meets the goal with other cards)",
                        o.count
                    )
                } else {
                    format!(
                        "uses {used} of the {} {name} you own (the goal is met without the other {})",
                        o.count,
                        o.count - used
                    )
                }
            })
        })
        .collect()
}

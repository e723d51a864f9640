//! Benchmarks of the planner (target: a typical goal over the full catalog in ≤ 1 s).
//!
//! - `plan_70b_int4_us_circuit`: Llama 3.1 70B at int4, 20 tok/s, one 15 A / 120 V circuit,
//!   used cards allowed, over the built-in catalog (curated parts and the OpenDB import:
//!   thousands of boards, PSUs, cases and coolers, over a thousand partner cards).
//! - `plan_70b_int4_us_circuit_grown_catalog`: the same goal over the built-in catalog grown by
//!   copies of parts under new ids and prices (40 copies of every chip, the imported boards,
//!   PSUs, cases and coolers doubled), to show the pruning keeps the work bounded.
//!
//! - `acceptance/*`: the expert goals of `tests/all/plan.rs` (issue 26): 70B at Q4_K_M,
//!   15 tok/s on one US circuit with $5,000 and used cards, the same new-only with $8,000,
//!   Qwen3-235B at int4 at 230 V / 16 A, Qwen3-32B at Q8_0 for 4 users, DeepSeek V3 at int4
//!   at 5 tok/s (hybrid CPU+GPU), and a goal with no answer (405B at bf16 on two cards, which
//!   also runs every relaxation).
//!
//! Each prints, once, the candidate counts of its search (chips, fit estimates, machines
//! checked), and the part options the planner starts from. Run with `cargo bench --bench plan`.

use criterion::{Criterion, criterion_group, criterion_main};
use kraftwerk::catalog::Catalog;
use kraftwerk::plan::goal::{Goal, GoalPrecision, ModelRef};
use kraftwerk::plan::plan_blocking;
use std::hint::black_box;

/// The binary's allocator (see `src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn goal() -> Goal {
    Goal {
        model: ModelRef::Preset("llama-3.1-70b".into()),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Int4),
        tok_s: 20.0,
        used: true,
        ..Goal::default()
    }
}

/// Copies of every part under new ids, prices raised 1 % per copy (unknown stays unknown).
fn grow<T: Clone>(
    parts: &mut Vec<T>,
    copies: usize,
    id: impl Fn(&mut T) -> &mut String,
    price: impl Fn(&mut T) -> &mut Option<f64>,
) {
    let base = parts.clone();
    for k in 1..=copies {
        for p in &base {
            let mut q = p.clone();
            let i = id(&mut q);
            *i = format!("{i}-copy-{k}");
            if let Some(x) = price(&mut q).as_mut() {
                *x *= 1.0 + 0.01 * k as f64;
            }
            parts.push(q);
        }
    }
}

fn grown(c: &Catalog) -> Catalog {
    let mut g = c.clone();
    grow(&mut g.gpus, 40, |p| &mut p.id, |p| &mut p.price_usd);
    grow(&mut g.motherboards, 1, |p| &mut p.id, |p| &mut p.price_usd);
    grow(&mut g.psus, 1, |p| &mut p.id, |p| &mut p.price_usd);
    grow(&mut g.cases, 1, |p| &mut p.id, |p| &mut p.price_usd);
    grow(&mut g.coolers, 1, |p| &mut p.id, |p| &mut p.price_usd);
    grow(&mut g.cpus, 2, |p| &mut p.id, |p| &mut p.price_usd);
    grow(&mut g.memory, 10, |p| &mut p.id, |p| &mut p.price_usd);
    g
}

fn report(name: &str, c: &Catalog) {
    let out = plan_blocking(c, &goal()).expect("plan");
    let n = c.counts();
    eprintln!(
        "{name}: catalog {} parts ({} GPU chips, {} GPU cards, {} boards, {} PSUs, {} cases); {} chips, {} fit estimates, {} machines checked, {} passed, {} results",
        n.values().sum::<usize>(),
        c.gpus.len(),
        c.gpu_cards.len(),
        c.motherboards.len(),
        c.psus.len(),
        c.cases.len(),
        out.stats.chips,
        out.stats.screened,
        out.stats.checked,
        out.stats.passing,
        out.results.len()
    );
}

/// The expert goals of issue 26 (see the module docs), by name.
fn acceptance_goals() -> Vec<(&'static str, Goal)> {
    let m = |id: &str, p: &str| Goal {
        model: ModelRef::Preset(id.into()),
        precision: p.parse().expect("precision"),
        ..Goal::default()
    };
    vec![
        (
            "70b_q4_used_5000",
            Goal { tok_s: 15.0, budget_usd: Some(5000.0), used: true, ..m("llama-3.1-70b", "q4_k_m") },
        ),
        ("70b_q4_new_8000", Goal { tok_s: 15.0, budget_usd: Some(8000.0), ..m("llama-3.1-70b", "q4_k_m") }),
        ("235b_int4_230v", Goal { mains_v: 230.0, breaker_a: 16.0, ..m("qwen3-235b-a22b", "int4") }),
        ("32b_q8_4_users", Goal { users: 4, ..m("qwen3-32b", "q8_0") }),
        ("deepseek_v3_hybrid_5_tok_s", Goal { tok_s: 5.0, ..m("deepseek-v3", "int4") }),
        ("no_answer_405b_bf16_2_gpus", Goal { max_gpus: 2, ..m("llama-3.1-405b", "bf16") }),
    ]
}

fn benches(cr: &mut Criterion) {
    let c = kraftwerk::catalog::builtin().expect("catalog");
    report("plan_70b_int4_us_circuit", &c);
    let parts = kraftwerk::plan::parts::read(&c, 120.0);
    eprintln!(
        "plan candidates over the full catalog: {} GPU options ({} partner cards left out as twins), {} boards ({} with a slot layout), {} CPUs, {} memory kits, {} coolers, {} cases, {} PSUs",
        parts.cards.len(),
        parts.twin_cards,
        parts.boards.len(),
        parts.boards.iter().filter(|b| b.wide_slots > 0).count(),
        parts.cpus.len(),
        parts.kits.len(),
        parts.coolers.len(),
        parts.cases.len(),
        parts.psus.len()
    );
    cr.bench_function("plan_70b_int4_us_circuit", |b| b.iter(|| black_box(plan_blocking(&c, &goal()).expect("plan"))));
    let mut group = cr.benchmark_group("acceptance");
    group.sample_size(10);
    for (name, goal) in acceptance_goals() {
        let out = plan_blocking(&c, &goal).expect("plan");
        eprintln!(
            "acceptance/{name}: {} results, {} fit estimates, {} machines checked",
            out.results.len(),
            out.stats.screened,
            out.stats.checked
        );
        group.bench_function(name, |b| b.iter(|| black_box(plan_blocking(&c, &goal).expect("plan"))));
    }
    group.finish();
    let g = grown(&c);
    report("plan_70b_int4_us_circuit_grown_catalog", &g);
    let mut group = cr.benchmark_group("grown");
    group.sample_size(10);
    group.bench_function("plan_70b_int4_us_circuit_grown_catalog", |b| {
        b.iter(|| black_box(plan_blocking(&g, &goal()).expect("plan")));
    });
    group.finish();
}

criterion_group!(plan, benches);
criterion_main!(plan);

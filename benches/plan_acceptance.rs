//! Benchmark of the planner on issue 36's eight acceptance goals (target: `plan` under 2 s for
//! every one, release build). The goals and their cited expert answers are those of
//! `tests/all/plan_acceptance.rs` (`expert_goals`); this list repeats them (a bench cannot
//! import the test binary's modules) and a test there checks that every goal is named here.
//!
//! Each prints, once, its result count and search effort (fit estimates, machines checked),
//! then criterion's time per `plan_blocking` call over the built-in catalog. Run with
//! `cargo bench --bench plan_acceptance` (add `-- --quick` for a short run).

use criterion::{Criterion, criterion_group, criterion_main};
use kraftwerk::plan::goal::{Goal, ModelRef};
use kraftwerk::plan::owned::OwnedPart;
use kraftwerk::plan::plan_blocking;
use std::hint::black_box;

/// The binary's allocator (see `src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn goal(model: &str, precision: &str) -> Goal {
    Goal { model: ModelRef::Preset(model.into()), precision: precision.parse().expect("precision"), ..Goal::default() }
}

/// Issue 36's acceptance goals, by name (as in `tests/all/plan_acceptance.rs`).
fn goals() -> Vec<(&'static str, Goal)> {
    let seventy =
        |budget: f64| Goal { tok_s: 15.0, used: true, budget_usd: Some(budget), ..goal("llama-3.1-70b", "q4_k_m") };
    vec![
        ("70b-q4-used-4000", seventy(4000.0)),
        (
            "70b-q4-own-one-3090",
            Goal { owned: vec![OwnedPart { id: "nvidia-geforce-rtx-3090".into(), count: 1 }], ..seventy(2500.0) },
        ),
        (
            "qwen3-32b-q4-one-card",
            Goal { tok_s: 20.0, used: true, budget_usd: Some(2000.0), ..goal("qwen3-32b", "q4_k_m") },
        ),
        (
            "qwen3-235b-hybrid",
            Goal { tok_s: 8.0, used: true, budget_usd: Some(5000.0), ..goal("qwen3-235b-a22b", "q3_k_m") },
        ),
        (
            "gpt-oss-120b-hybrid",
            Goal {
                tok_s: 20.0,
                used: true,
                budget_usd: Some(2500.0),
                runtime: Some(kraftwerk::estimate::llm::Runtime::LlamaCpp),
                ..goal("gpt-oss-120b", "mxfp4")
            },
        ),
        (
            "deepseek-r1-hybrid",
            Goal { tok_s: 5.0, used: true, budget_usd: Some(10_000.0), ..goal("deepseek-r1", "q4_k_m") },
        ),
        (
            "4x3090-capped-120v",
            Goal { tok_s: 10.0, used: true, budget_usd: Some(8000.0), ..goal("llama-3.1-70b", "q8_0") },
        ),
        (
            "4x3090-16-users-230v",
            Goal {
                users: 16,
                tok_s: 10.0,
                used: true,
                budget_usd: Some(8000.0),
                mains_v: 230.0,
                breaker_a: 16.0,
                ..goal("llama-3.3-70b", "int4")
            },
        ),
    ]
}

fn benches(cr: &mut Criterion) {
    let c = kraftwerk::catalog::builtin().expect("catalog");
    let mut group = cr.benchmark_group("plan_acceptance");
    group.sample_size(10);
    for (name, goal) in goals() {
        let out = plan_blocking(&c, &goal).expect("plan");
        eprintln!(
            "plan_acceptance/{name}: {} results, {} fit estimates, {} machines checked",
            out.results.len(),
            out.stats.screened,
            out.stats.checked
        );
        group.bench_function(name, |b| b.iter(|| black_box(plan_blocking(&c, &goal).expect("plan"))));
    }
    group.finish();
}

criterion_group!(plan_acceptance, benches);
criterion_main!(plan_acceptance);

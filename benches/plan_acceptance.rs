//! Benchmark of the planner on issue 36's eight acceptance goals (target: `plan` under 2 s for
//! every one, release build). The goals and their cited expert answers are those of
//! `tests/all/plan_acceptance.rs` (`expert_goals`): both read the one list in
//! `tests/all/plan_acceptance/goals.rs`, included here by `#[path]`.
//!
//! Each prints, once, its result count and search effort (fit estimates, machines checked),
//! then criterion's time per `plan_blocking` call over the built-in catalog. Run with
//! `cargo bench --bench plan_acceptance` (add `-- --quick` for a short run).

use criterion::{Criterion, criterion_group, criterion_main};
use kraftwerk::plan::plan_blocking;
use std::hint::black_box;

#[path = "../tests/all/plan_acceptance/goals.rs"]
mod goals;
use goals::goals;

/// The binary's allocator (see `src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

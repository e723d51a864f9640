//! Benchmarks of issue 14: loading the whole embedded catalog (target <= 30 ms, OpenDB imports
//! included) and one picker keystroke over every GPU card (target <= 2 ms). Run with
//! `cargo bench --bench catalog` (add `--no-default-features` to skip building the GUI stack;
//! the catalog code is the same).
//!
//! - `catalog_load_embedded_with_imports`: [`catalog::builtin`] from the embedded files to a
//!   merged catalog, with the binary's allocator (mimalloc); freeing the catalog is left out of
//!   the timed part (the app frees it once, at exit) and measured on its own as `catalog_drop`.
//! - Before criterion's warm-up, the first load of the process is timed once and printed, since
//!   that is the one a user waits for.

use criterion::{Criterion, criterion_group, criterion_main};
use kraftwerk::catalog::{self, HasId, PartKind, picker::PickerIndex};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The binary's allocator (see `src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn benches(c: &mut Criterion) {
    let start = Instant::now();
    let first = catalog::builtin().expect("catalog");
    println!("first load in this process: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    drop(first);
    c.bench_function("catalog_load_embedded_with_imports", |b| {
        // Each catalog is freed before the next load (as in the app, which loads once), outside
        // the timed part; criterion's `iter_with_large_drop` would keep a whole batch alive and
        // time fresh-page faults instead.
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let catalog = black_box(catalog::builtin().expect("catalog"));
                timed += start.elapsed();
                drop(catalog);
            }
            timed
        });
    });
    c.bench_function("catalog_drop", |b| {
        b.iter_batched(|| catalog::builtin().expect("catalog"), drop, criterion::BatchSize::LargeInput);
    });
    let cat = catalog::builtin().expect("catalog");
    let cards: Vec<&dyn HasId> = cat.gpu_cards.iter().map(|p| p as &dyn HasId).collect();
    println!(
        "{} GPU cards, {} parts in all",
        cards.len(),
        PartKind::ALL.iter().map(|k| cat.parts_of(*k).len()).sum::<usize>()
    );
    c.bench_function("picker_index_build_gpu_cards", |b| b.iter(|| black_box(PickerIndex::new(black_box(&cards)))));
    let index = PickerIndex::new(&cards);
    for q in ["4090", "asus strix 3090", "rtx 4080 super white"] {
        c.bench_function(&format!("picker_search_gpu_cards `{q}`"), |b| {
            b.iter(|| black_box(index.search(black_box(q), 50)));
        });
    }
}

criterion_group!(catalog_benches, benches);
criterion_main!(catalog_benches);

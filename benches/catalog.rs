//! Benchmarks of issue 14: loading the whole embedded catalog (target <= 30 ms, OpenDB imports
//! included) and one picker keystroke over every GPU card (target <= 2 ms). Run with
//! `cargo bench --bench catalog`.

use criterion::{Criterion, criterion_group, criterion_main};
use kraftwerk::catalog::{self, HasId, PartKind, picker::PickerIndex};
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    c.bench_function("catalog_load_embedded_with_imports", |b| {
        b.iter(|| black_box(catalog::builtin().expect("catalog")));
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

//! Benchmarks: built-in catalog load (target ≤ 20 ms) and a full check of the largest reference
//! build (target ≤ 1 ms). Run with `cargo bench --bench check`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;

fn largest_build(catalog: &kraftwerk::catalog::Catalog) -> kraftwerk::rig::Build {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds");
    let mut best: Option<kraftwerk::rig::Build> = None;
    for e in std::fs::read_dir(dir).expect("builds").flatten() {
        if let Ok(b) = kraftwerk::rig::load(&e.path(), Some(catalog))
            && best.as_ref().is_none_or(|x| b.gpus.len() > x.gpus.len())
        {
            best = Some(b);
        }
    }
    best.expect("a reference build")
}

fn benches(c: &mut Criterion) {
    c.bench_function("catalog_load_builtin", |b| b.iter(|| black_box(kraftwerk::catalog::builtin().expect("catalog"))));
    let catalog = kraftwerk::catalog::builtin().expect("catalog");
    let build = largest_build(&catalog);
    let name = format!("check_largest_build_{}_gpus", build.gpus.len());
    c.bench_function(&name, |b| b.iter(|| black_box(kraftwerk::check::run(black_box(&build), &catalog))));
}

criterion_group!(check, benches);
criterion_main!(check);

//! Helpers shared by the core's test modules: the built-in catalog, and paths into the
//! repository (reference builds, test fixtures). Each module uses a subset of them.
#![allow(dead_code)]

use kraftwerk_catalog::Catalog;
use kraftwerk_core::rig::GpuPlacement;
use std::path::{Path, PathBuf};

/// The built-in catalog (panics if it does not load: every test needs it).
pub fn catalog() -> Catalog {
    kraftwerk_catalog::builtin().expect("built-in catalog loads")
}

/// The repository root (two folders above this crate's manifest).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/core sits two folders below the root")
        .to_path_buf()
}

/// Path of `rel` under the repository's `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(rel)
}

/// Path of the reference build `name` under `catalog/builds/`.
pub fn reference_build(name: &str) -> PathBuf {
    repo_root().join("catalog/builds").join(name)
}

/// Every reference build file (`catalog/builds/*.rig.ron`), sorted by path.
pub fn reference_build_paths() -> Vec<PathBuf> {
    let dir = repo_root().join("catalog/builds");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("catalog/builds")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".rig.ron"))
        .collect();
    paths.sort();
    paths
}

/// A dual-slot blower card imported from OpenDB (width 2 there).
pub const DUAL_SLOT: &str = "asus-turbo-geforce-rtx-3090-24gb-gddr6x-black";
/// A 3-slot card imported from OpenDB (width 3 there).
pub const TRIPLE_SLOT: &str = "asus-rog-strix-geforce-rtx-3090-24gb-gddr6x";

/// GPU `id` in slot position `slot` (1 = nearest the CPU), default limit, no riser, PSU 1.
pub fn gpu_at(id: &str, slot: u8) -> GpuPlacement {
    GpuPlacement {
        gpu: id.into(),
        slot_name: None,
        slot: Some(slot),
        power_limit_w: None,
        riser: None,
        psu: 0,
        cable: None,
    }
}

/// GPU `id` in the slot the board names `slot`.
pub fn gpu_named(id: &str, slot: &str) -> GpuPlacement {
    GpuPlacement { slot_name: Some(slot.into()), slot: None, ..gpu_at(id, 1) }
}

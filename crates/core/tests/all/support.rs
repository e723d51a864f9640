//! Helpers shared by the core's test modules: the built-in catalog, and paths into the
//! repository (reference builds, test fixtures). Each module uses a subset of them.
#![allow(dead_code)]

use kraftwerk_catalog::Catalog;
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

//! Helpers shared by the catalog's test modules: the built-in catalog and the repository root.
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
        .expect("crates/catalog sits two folders below the root")
        .to_path_buf()
}

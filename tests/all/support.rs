//! Helpers shared by the test modules: running the built `kraftwerk` binary without the user's
//! parts and prices, paths into the repository (reference builds, fixtures), the built-in
//! catalog and scratch folders. Each module uses a subset of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `kraftwerk` binary with `args`, with no user parts directory.
pub fn kw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .output()
        .expect("run kraftwerk")
}

/// Runs the built `kraftwerk` binary with `args`, with no user parts and no user price file:
/// (exit code, stdout, stderr).
pub fn kw_no_user_files(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .env("KRAFTWERK_PRICES", "/nonexistent-kraftwerk-prices.ron")
        .output()
        .expect("run kraftwerk");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Path of the reference build `name` under `catalog/builds/`.
pub fn builds(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds").join(name).display().to_string()
}

/// Every reference build file (`catalog/builds/*.rig.ron`), sorted by path.
pub fn reference_build_paths() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("catalog/builds")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".rig.ron"))
        .collect();
    paths.sort();
    paths
}

/// The repository root (`CARGO_MANIFEST_DIR`).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of `rel` under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    manifest_dir().join("tests/fixtures").join(rel)
}

/// The built-in catalog (panics if it does not load: every caller needs it).
pub fn catalog() -> kraftwerk::catalog::Catalog {
    kraftwerk::catalog::builtin().expect("built-in catalog loads")
}

/// A fresh, empty folder under the system temp dir, unique to this process, `tag` and the
/// moment (tests run in parallel threads); the caller removes it.
pub fn temp_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("kraftwerk-test-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

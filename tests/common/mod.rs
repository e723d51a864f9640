//! Helpers shared by the command-line tests (`tests/cli.rs`, `check_cli.rs`, `compare_cli.rs`).

use std::path::Path;
use std::process::{Command, Output};

/// Runs the built `kraftwerk` binary with `args`, with no user parts directory.
pub fn kw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .output()
        .expect("run kraftwerk")
}

/// Path of the reference build `name` under `catalog/builds/`.
pub fn builds(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds").join(name).display().to_string()
}

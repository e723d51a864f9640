//! Golden outputs: the JSON that `check`, `fit`, `power` and `plan` print for the reference builds
//! and a few planner goals, held byte for byte in `tests/golden/`. A refactor must leave them
//! identical; a change that means to change a figure regenerates them with
//! `KRAFTWERK_BLESS=1 cargo test --test all golden` and the diff shows every figure it moved.
//! Runs with no user files and a fixed date (`KRAFTWERK_TODAY`), so price ages repeat.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The date the golden outputs are made at (`KRAFTWERK_TODAY`).
const GOLDEN_TODAY: &str = "2026-12-01";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Runs the binary as the golden outputs are made: (exit code, stdout).
fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .env("KRAFTWERK_PRICES", "/nonexistent-kraftwerk-prices.ron")
        .env("KRAFTWERK_TODAY", GOLDEN_TODAY)
        .output()
        .expect("run kraftwerk");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Compares (or, with `KRAFTWERK_BLESS=1`, writes) one golden file; returns a problem line.
fn hold(name: &str, args: &[&str]) -> Option<String> {
    let (code, stdout) = run(args);
    // Paths print relative to the checkout, so the files hold wherever the repository lies.
    let text =
        format!("// kraftwerk {}\n// exit {code}\n{stdout}", args.join(" ")).replace(env!("CARGO_MANIFEST_DIR"), ".");
    let path = golden_dir().join(format!("{name}.json"));
    if std::env::var("KRAFTWERK_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(golden_dir()).expect("tests/golden");
        std::fs::write(&path, &text).expect("write golden");
        return None;
    }
    let Ok(want) = std::fs::read_to_string(&path) else {
        return Some(format!("{name}: no golden file {} (make it with KRAFTWERK_BLESS=1)", path.display()));
    };
    if want == text {
        return None;
    }
    let line = want
        .lines()
        .zip(text.lines())
        .position(|(a, b)| a != b)
        .map_or_else(|| want.lines().count().min(text.lines().count()) + 1, |i| i + 1);
    let at = |t: &str| t.lines().nth(line - 1).unwrap_or("<end>").to_owned();
    Some(format!("{name}: differs at line {line}:\n  golden: {}\n  now:    {}", at(&want), at(&text)))
}

#[test]
fn reference_builds_and_plans_print_their_golden_json() {
    let mut problems = Vec::new();
    let builds = crate::support::reference_build_paths();
    assert!(builds.len() >= 7, "reference builds: {}", builds.len());
    for b in &builds {
        let path = b.display().to_string();
        let stem = b.file_name().and_then(|n| n.to_str()).unwrap_or("build").trim_end_matches(".rig.ron").to_owned();
        problems.extend(hold(&format!("{stem}.check"), &["check", &path, "--format", "json"]));
        problems.extend(hold(&format!("{stem}.fit"), &["fit", &path, "--format", "json"]));
        problems.extend(hold(&format!("{stem}.power"), &["power", &path, "--format", "json"]));
    }
    let goals: [(&str, &[&str]); 3] = [
        (
            "plan.llama-70b-int4",
            &["plan", "--model", "llama-3.1-70b", "--precision", "int4", "--tok-s", "15", "--format", "json"],
        ),
        (
            "plan.qwen3-32b-used",
            &["plan", "--model", "qwen3-32b", "--budget-usd", "2000", "--used", "--format", "json"],
        ),
        (
            "plan.llama-8b-32-users",
            &["plan", "--model", "llama-3.1-8b", "--users", "32", "--tok-s", "20", "--format", "json"],
        ),
    ];
    for (name, args) in goals {
        problems.extend(hold(name, args));
    }
    assert!(problems.is_empty(), "{} golden outputs changed:\n{}", problems.len(), problems.join("\n"));
}

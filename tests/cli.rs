//! The command line as a user runs it: output, JSON and exit codes (0 pass, 1 errors or does
//! not fit, 2 bad input).

use std::process::Output;

mod common;
use common::{builds, kw};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn catalog_gpus_lists_sixteen_with_sources() {
    let o = kw(&["catalog", "gpus"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.matches("source: http").count() >= 16, "{text}");
    let o = kw(&["catalog", "gpus", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["gpus"].as_array().expect("array").len() >= 16);
    let o = kw(&["catalog", "flux-capacitors"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_exit_codes() {
    // Warnings only: exit 0.
    let o = kw(&["check", &builds("4x-rtx-3090-wrx80-puget.rig.ron")]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("PASS WITH WARNINGS"));
    // An error finding: exit 1.
    let dir = std::env::temp_dir().join(format!("kw-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.rig.ron");
    std::fs::write(
        &bad,
        "(format: 1, name: \"x\", cpu: \"amd-ryzen-9-9950x\", motherboard: \"asus-pro-ws-wrx90e-sage-se\")",
    )
    .expect("write");
    let o = kw(&["check", bad.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "fail");
    assert!(v["findings"].as_array().expect("findings").iter().any(|f| f["rule"] == "cpu-socket"));
    // Unreadable: exit 2 with file:line:column.
    let broken = dir.join("broken.rig.ron");
    std::fs::write(&broken, "(format: 1, name: 42)").expect("write");
    let o = kw(&["check", broken.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("broken.rig.ron:1:"), "{err}");
    let o = kw(&["check", "/nonexistent/x.rig.ron"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn rules_and_explain() {
    let o = kw(&["rules"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("psu-transient"));
    let o = kw(&["check", "--explain", "psu-transient"]);
    assert!(o.status.success());
    let t = stdout(&o);
    assert!(t.contains("What it checks") && t.contains("Why it matters") && t.contains("How to fix"), "{t}");
    assert_eq!(kw(&["check", "--explain", "no-such-rule"]).status.code(), Some(2));
}

#[test]
fn power_states_and_json() {
    let b = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let o = kw(&["power", &b, "--state", "idle", "--format", "json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let idle = v["estimate"]["total_wall_w"].as_f64().expect("w");
    let o = kw(&["power", &b, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let full = v["estimate"]["total_wall_w"].as_f64().expect("w");
    assert!(idle < full / 2.0, "{idle} vs {full}");
    assert!(v["advice"]["common_limit_w"].as_f64().is_some(), "over 1440 W at 120 V/15 A: advice");
}

#[test]
fn fit_exit_codes() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let o = kw(&["fit", &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = kw(&["fit", &b, "--model", "deepseek-v3", "--precision", "fp8", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["fit"]["verdict"], "does_not_fit");
    assert_eq!(kw(&["fit", &b, "--model", "no-such-model"]).status.code(), Some(2));
}

#[test]
fn gpus_without_a_driver_is_not_an_error() {
    // CI and dev machines have no NVIDIA driver: the CLI says so and exits 0.
    let o = kw(&["gpus"]);
    if String::from_utf8_lossy(&o.stdout).contains("no NVIDIA driver")
        || String::from_utf8_lossy(&o.stderr).contains("no NVIDIA driver")
    {
        assert_eq!(o.status.code(), Some(0));
    }
}

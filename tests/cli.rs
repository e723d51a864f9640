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

// ---------------------------------------------------------------------------------------------
// `kraftwerk import` and `kraftwerk export --list`.

fn parts_list_path(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parts-lists").join(name).display().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn kw_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kraftwerk");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("wait")
}

#[test]
fn import_writes_a_build_check_reads_and_names_what_it_left_out() {
    let dir = std::env::temp_dir().join(format!("kw-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let out = dir.join("jan.rig.ron");
    let o = kw(&["import", &parts_list_path("jan-2x4090.md"), "--out", &out.display().to_string()]);
    let err = stderr(&o);
    println!("{err}");
    assert_eq!(o.status.code(), Some(1), "some lines of this list match nothing: {err}");
    assert!(err.contains("confidence"), "{err}");
    assert!(err.contains("NOT IMPORTED"), "{err}");
    let saved = std::fs::read_to_string(&out).expect("written");
    assert!(saved.contains("format: 1"), "{saved}");
    // `check` reads it: exit 0, 1 or 3 (a verdict), never 2 (bad input).
    let c = kw(&["check", &out.display().to_string()]);
    assert_ne!(c.status.code(), Some(2), "{}{}", stdout(&c), stderr(&c));
    // The same to standard output, from standard input.
    let text = std::fs::read_to_string(parts_list_path("jan-2x4090.md")).expect("fixture");
    let o = kw_stdin(&["import", "-"], &text);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("nvidia") || stdout(&o).contains("rtx-4090"), "{}", stdout(&o));
    // A file that cannot be read (a folder here) is never overwritten.
    let o = kw(&["import", &parts_list_path("jan-2x4090.md"), "--out", &dir.display().to_string()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not overwriting"), "{}", stderr(&o));
}

#[test]
fn import_exit_codes_all_matched_and_unreadable() {
    // Every line matches: exit 0.
    let o = kw_stdin(&["import", "-"], "2x RTX 3090\nCPU: EPYC 7302\nMotherboard: Supermicro H12SSL-i\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ron = stdout(&o);
    assert_eq!(ron.matches("nvidia-geforce-rtx-3090\"").count(), 2, "{ron}");
    // Binary data: exit 2 with file:line:column.
    let dir = std::env::temp_dir().join(format!("kw-import-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, b"CPU: EPYC 7302\nGPU: RTX\x003090\n").expect("write");
    let o = kw(&["import", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:2:9:"), "{}", stderr(&o));
    std::fs::write(&bad, b"CPU: EPYC \xff7302\n").expect("write");
    let o = kw(&["import", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:1:11:") && stderr(&o).contains("UTF-8"), "{}", stderr(&o));
    let o = kw(&["import", "/nonexistent/list.txt"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn export_list_markdown_reads_back_to_the_same_parts() {
    let build = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let o = kw(&["export", "--list", "markdown", &build]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    println!("{md}");
    assert!(md.contains("Type|Item|Price") && md.contains(":----|:----|:----"), "{md}");
    assert_eq!(md.matches("**Video Card**").count(), 4, "one row per GPU: {md}");
    assert!(md.contains("**Total**"), "{md}");
    assert!(md.lines().filter(|l| l.starts_with("**")).all(|l| l.contains('$') || l.ends_with("unknown")), "{md}");
    let back = kw_stdin(&["import", "-"], &md);
    assert_ne!(back.status.code(), Some(2), "{}", stderr(&back));
    let ron = stdout(&back);
    let original = std::fs::read_to_string(&build).expect("build");
    // Every part of the reference build comes back, as often as it was there (4 GPUs, 8 memory
    // kits in one `kits: 8`).
    let ids = [
        "gigabyte-geforce-rtx-3090-turbo",
        "amd-threadripper-pro-3975wx",
        "asus-pro-ws-wrx80e-sage-se-wifi",
        "noctua-nh-u14s-tr4-sp3",
        "fractal-design-define-7-xl",
        "kingston-server-premier-ksm32rd8-32hdr",
        "samsung-990-pro-2tb",
        "corsair-ax1600i",
    ];
    for id in ids {
        let n = original.matches(&format!("\"{id}\"")).count();
        assert!(n > 0, "{id} is in the reference build");
        assert_eq!(ron.matches(&format!("\"{id}\"")).count(), n, "{id}:\n{ron}\n{}", stderr(&back));
    }
    assert!(ron.contains("kits: 8"), "{ron}");
    assert_eq!(back.status.code(), Some(0), "every line matched: {}", stderr(&back));
}

//! `kraftwerk compare`: two reference builds side by side as text and JSON, with the same
//! figures `kraftwerk check` reports for each, and bad input refused with exit 2.

use crate::support;
use support::{builds, kw};

#[test]
#[allow(clippy::many_single_char_names)]
fn compare_two_builds_as_text_and_json() {
    let a = builds("2x-rtx-4090-x870e.rig.ron");
    let b = builds("8x-l40s-4u-server.rig.ron");
    let o = kw(&["compare", &a, &b, "--model", "llama-3.1-8b"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("2x RTX 4090") && text.contains("8x L40S"), "{text}");
    assert!(text.contains("* Wall power at full load"), "differing rows are marked: {text}");

    let o = kw(&["compare", &a, &b, "--model", "llama-3.1-8b", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["builds"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["model"], "llama-3.1-8b");
    // Each build's full-load wall power is the power estimate's at training load (`check`
    // itself estimates at the workload's state, inference for these builds).
    for (i, path) in [&a, &b].into_iter().enumerate() {
        let c = kw(&["power", path, "--state", "training", "--format", "json"]);
        let r: serde_json::Value = serde_json::from_slice(&c.stdout).expect("power json");
        let w = r["estimate"]["total_wall_w"].as_f64().expect("wall power");
        let got = v["builds"][i]["full_load_wall_w"].as_f64().expect("compare wall power");
        assert!((w - got).abs() < 1e-6, "build {i}: check {w} W, compare {got} W");
    }
    let power =
        v["rows"].as_array().expect("rows").iter().find(|r| r["name"] == "Wall power at full load").expect("row");
    assert_eq!(power["differs"], true);
}

#[test]
fn compare_refuses_bad_input() {
    let a = builds("2x-rtx-4090-x870e.rig.ron");
    assert_eq!(kw(&["compare", &a]).status.code(), Some(2), "one build is not a comparison");
    let o = kw(&["compare", &a, "/nonexistent/b.rig.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("b.rig.ron"));
    let o = kw(&["compare", &a, &a, "--model", "no-such-model"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no-such-model"));
}

/// Issue 24: one loader serves every face. A build whose workload precision is misspelt is
/// refused by `compare` as by `check`: exit 2 and the file:line:column of the `precision:` key.
#[test]
fn compare_refuses_a_misspelt_precision_with_its_location() {
    let good = builds("2x-rtx-4090-x870e.rig.ron");
    let text = std::fs::read_to_string(&good).expect("reference build");
    assert!(text.contains("precision: \"q4_k_m\""), "the reference build names its precision");
    let dir = std::env::temp_dir().join(format!("kraftwerk-compare-typo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("typo.rig.ron");
    std::fs::write(&bad, text.replace("precision: \"q4_k_m\"", "precision: \"q4_k_mm\"")).expect("write");
    let line = text.lines().position(|l| l.contains("precision: \"q4_k_m\"")).expect("line") + 1;
    let bad = bad.display().to_string();
    for args in [vec!["compare", &good, &bad], vec!["check", &bad]] {
        let o = kw(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("typo.rig.ron:{line}:")), "{args:?} names the line: {err}");
        assert!(err.contains("workload.precision") && err.contains("q4_k_mm"), "{args:?}: {err}");
    }
}

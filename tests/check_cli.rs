//! `kraftwerk check` as a script reads it: the JSON coverage object, the finding kinds and the
//! exit codes of INCOMPLETE, EMPTY and UNVERIFIED builds.

use kraftwerk::estimate::power::{EXCURSION_LIMIT_HPWR, EXCURSION_LIMIT_OTHER, GPU_TRANSIENT_FACTOR};
use std::path::Path;

mod common;
use common::{builds, kw};

#[test]
fn json_has_coverage_and_not_checked_findings() {
    // A case whose GPU clearance nobody published (inline fixture part: the imported catalog
    // knows most cases' clearance now).
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/case-gpu-fit/not-checked-case-length-unknown.rig.ron")
        .display()
        .to_string();
    let o = kw(&["check", &fixture, "--format", "json"]);
    // case-gpu-fit can report an error and did not run: UNVERIFIED, exit 3, not a pass
    // (issue 27).
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "unverified");
    let c = &v["coverage"];
    assert!(c["unverified"].as_array().is_some_and(|u| u.iter().any(|r| r == "case-gpu-fit")), "{c}");
    let total = c["total"].as_u64().expect("total");
    let ran = c["ran"].as_u64().expect("ran");
    let not_checked = c["not_checked"].as_array().expect("not_checked");
    assert_eq!(ran + not_checked.len() as u64, total);
    assert!(not_checked.iter().any(|r| r["rule"] == "case-gpu-fit"
        && r["unknown"].as_array().is_some_and(|u| u.iter().any(|f| f["figure"] == "max_gpu_length_mm"))));
    let findings = v["findings"].as_array().expect("findings");
    assert!(findings.iter().any(|f| f["kind"] == "not_checked" && f["rule"] == "case-gpu-fit"));
    // The text headline says the same.
    let t = String::from_utf8_lossy(&kw(&["check", &fixture]).stdout).into_owned();
    assert!(t.contains(&format!("{ran} of {total} checks ran")), "{t}");
    assert!(t.contains(": UNVERIFIED") && t.contains("`max_gpu_length_mm` of"), "{t}");
}

#[test]
fn incomplete_and_empty_builds_are_not_a_pass() {
    let o = kw(&["check", &builds("h200-sxm-1gpu.rig.ron"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "incomplete");
    assert!(v["coverage"]["missing_parts"].as_array().expect("missing").iter().any(|p| p == "psu"));

    let dir = std::env::temp_dir().join(format!("kw-check-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let empty = dir.join("empty.rig.ron");
    std::fs::write(&empty, "(format: 1, name: \"nothing yet\")").expect("write");
    let o = kw(&["check", empty.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(3));
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(t.starts_with("nothing yet: EMPTY"), "{t}");
    assert!(!t.contains("PASS"), "{t}");
    assert!(!t.contains("(PSU 1)"), "no PSU to name: {t}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn idle_power_prints_no_transient_peaks_and_explain_renders_the_constants() {
    let o = kw(&["power", &builds("2x-rtx-4090-x870e.rig.ron"), "--state", "idle"]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!t.contains("peak 100 µs"), "{t}");
    let o = kw(&["check", "--explain", "psu-transient"]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    for k in 0..4 {
        assert!(t.contains(&format!("{:.2}x", GPU_TRANSIENT_FACTOR[k])), "{t}");
        assert!(t.contains(&format!("{:.0} %", EXCURSION_LIMIT_HPWR[k] * 100.0)), "{t}");
        assert!(t.contains(&format!("{:.0} %", EXCURSION_LIMIT_OTHER[k] * 100.0)), "{t}");
    }
}

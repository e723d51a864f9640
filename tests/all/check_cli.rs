//! `kraftwerk check` as a script reads it: the JSON coverage object, the finding kinds and the
//! exit codes of INCOMPLETE, EMPTY and UNVERIFIED builds.

use kraftwerk::estimate::power::{EXCURSION_LIMIT_HPWR, EXCURSION_LIMIT_OTHER, GPU_TRANSIENT_FACTOR};
use std::path::Path;

use crate::support;
use support::{builds, kw};

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

/// A reference build cut short anywhere (mid-field, mid-string, with brackets left open) is a
/// located "ends early" error, never RON's "Unexpected field named `p`" or "Unexpected end of
/// RON".
#[test]
fn truncated_reference_build_says_the_file_ends_early() {
    let text = std::fs::read_to_string(builds("2x-rtx-4090-x870e.rig.ron")).expect("read");
    let dir = std::env::temp_dir().join(format!("kw-truncated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut cuts: Vec<usize> = Vec::new();
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        // The middle of each line and its end (before the newline).
        let mid = line.char_indices().nth(line.chars().count() / 2).map_or(0, |(b, _)| b);
        cuts.extend([off + mid, off + line.trim_end().len()]);
        off += line.len();
    }
    // The last line is the build's closing `)`: cutting at its end leaves the whole build.
    cuts.retain(|&c| c > 0 && c < text.trim_end().len());
    cuts.dedup();
    assert!(cuts.len() > 30, "{}", cuts.len());
    let mut failures = Vec::new();
    for (i, &cut) in cuts.iter().enumerate() {
        let path = dir.join(format!("cut-{i}.rig.ron"));
        let cut_text = &text[..cut];
        std::fs::write(&path, cut_text).expect("write");
        let shown = path.display().to_string();
        let o = kw(&["check", &shown]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let line = cut_text.trim_end().matches('\n').count() + 1;
        let ok = o.status.code() == Some(2)
            && err.contains("the file ends early (truncated?) at line ")
            && err.contains(&format!("{shown}:{line}:"))
            && !err.contains("Unexpected field named")
            && !err.contains("Unexpected end of RON");
        if !ok {
            let tail: String = cut_text.chars().rev().take(20).collect::<Vec<_>>().into_iter().rev().collect();
            failures.push(format!("cut at byte {cut} (`...{tail}`): exit {:?}: {err}", o.status.code()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} of {} cuts:\n{}", failures.len(), cuts.len(), failures.join("\n"));
}

/// `check` estimates power in the workload's state (inference → inference, training modes →
/// training), prints it in the text and keeps it in JSON (`power.state`).
#[test]
fn check_power_state_follows_the_workload_mode() {
    let inference = builds("2x-rtx-4090-x870e.rig.ron");
    let text = std::fs::read_to_string(&inference).expect("read");
    assert!(text.contains("mode: \"inference\""), "the reference build's workload changed");
    let t = String::from_utf8_lossy(&kw(&["check", &inference]).stdout).into_owned();
    assert!(t.contains("Power at inference load: "), "{t}");
    assert!(t.contains("the workload's mode is `inference`"), "{t}");
    let v: serde_json::Value =
        serde_json::from_slice(&kw(&["check", &inference, "--format", "json"]).stdout).expect("json");
    assert_eq!(v["power"]["state"], "inference");
    let inference_dc = v["power"]["total_dc_w"].as_f64().expect("dc");

    let dir = std::env::temp_dir().join(format!("kw-power-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for (mode, state) in [("lora", "training"), ("qlora", "training"), ("full", "training")] {
        let path = dir.join(format!("{mode}.rig.ron"));
        std::fs::write(&path, text.replace("mode: \"inference\"", &format!("mode: \"{mode}\""))).expect("write");
        let shown = path.display().to_string();
        let v: serde_json::Value =
            serde_json::from_slice(&kw(&["check", &shown, "--format", "json"]).stdout).expect("json");
        assert_eq!(v["power"]["state"], state, "{mode}");
        assert!(v["power"]["total_dc_w"].as_f64().expect("dc") > inference_dc, "{mode}");
        let t = String::from_utf8_lossy(&kw(&["check", &shown]).stdout).into_owned();
        assert!(t.contains("Power at training load: "), "{t}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Idle GPU power is a measurement where the catalog has one (H200 SXM: 78.4 W, NVML in this
/// project's recording) and is labelled a derivation where it has none, never a guess shown as
/// a measurement.
#[test]
fn idle_gpu_power_is_measured_or_labelled_derived() {
    let t = String::from_utf8_lossy(&kw(&["power", &builds("h200-sxm-1gpu.rig.ron"), "--state", "idle"]).stdout)
        .into_owned();
    let line = t.lines().find(|l| l.contains("GPU 1:")).unwrap_or_else(|| panic!("{t}"));
    assert!(
        line.contains("(idle measured: ") && line.contains("h200-1gpu-30s.kwrec.json") && line.contains(" 78 W"),
        "{line}"
    );
    // A card measured idle in a published nvidia-smi output: the estimate names the source.
    let t = String::from_utf8_lossy(&kw(&["power", &builds("2x-rtx-a6000-nvlink.rig.ron"), "--state", "idle"]).stdout)
        .into_owned();
    let line = t.lines().find(|l| l.contains("GPU 1:")).unwrap_or_else(|| panic!("{t}"));
    assert!(
        line.contains("(idle measured: nvidia-smi")
            && line.contains("github.com/thamada/gls")
            && line.contains(" 25 W"),
        "{line}"
    );
    // Issue 27: an idle RTX 4090 was estimated at 54 W (12 % of 450 W); eight idle cards in a
    // published nvidia-smi output draw 24 W on average, and the estimate now uses that.
    let t = String::from_utf8_lossy(&kw(&["power", &builds("2x-rtx-4090-x870e.rig.ron"), "--state", "idle"]).stdout)
        .into_owned();
    let line = t.lines().find(|l| l.contains("GPU 1:")).unwrap_or_else(|| panic!("{t}"));
    assert!(
        line.contains("(idle measured: nvidia-smi")
            && line.contains("github.com/thamada/nvidia-smi")
            && line.contains(" 24 W"),
        "{line}"
    );
    // A card with no measured idle figure: labelled a derivation.
    let t =
        String::from_utf8_lossy(&kw(&["power", &builds("4x-rtx-3090-wrx80-puget.rig.ron"), "--state", "idle"]).stdout)
            .into_owned();
    let line = t.lines().find(|l| l.contains("GPU 1:")).unwrap_or_else(|| panic!("{t}"));
    assert!(line.contains("idle derived: 12 % of board power, no measurement"), "{line}");
}

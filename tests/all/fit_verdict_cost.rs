//! `kraftwerk fit` gives one answer in its text, its exit code and its JSON, and never prints a
//! hardware cost that silently leaves out unpriced parts (a new-user trial found both):
//! - a MoE model that runs with its experts in system RAM prints the same cost lines as a fit on
//!   the GPUs: "at least" and the unpriced parts named, the $ per working hour, the $ per
//!   million tokens and the break-even marked as lower bounds, the same total as `prices`;
//! - the JSON's top-level `verdict` is the headline's and the exit code's
//!   (`fits_with_experts_in_ram`, `tight_below_context`, ...); the GPUs' own verdict with every
//!   weight on them is `fit.all_on_gpu_verdict` (and `fit.gpus[].all_on_gpu_verdict`).
//!
//! Seen failing: with `experts_in_ram_fit` printing `hardware: $945` and `cost: $2.04 per
//! million tokens at this decode` again (the first test), and with `BuildFit::verdict`
//! ignoring the experts-in-RAM split (the second).

use crate::support::{builds, fixture, kw_no_user_files};
use kraftwerk::fmt::usd_rate;

/// The parts of the Puget 4x RTX 3090 build without a catalog price, as `prices` counts them
/// ("4 of 8 lines unpriced"): the four GPUs are one line. (The Samsung 990 PRO 2TB has a cited
/// price since the planner buys drives: $149.99, PCPartPicker in docyx/pc-part-dataset.)
const PUGET_UNPRICED: &str = "amd-threadripper-pro-3975wx, asus-pro-ws-wrx80e-sage-se-wifi, gigabyte-geforce-rtx-3090-turbo, kingston-server-premier-ksm32rd8-32hdr";

#[test]
fn experts_in_ram_cost_names_unpriced_parts_and_reads_as_lower_bounds() {
    let b = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let (code, prices, _) = kw_no_user_files(&["prices", &b]);
    assert_eq!(code, 0, "{prices}");
    assert!(prices.contains("total: at least $1,095 (4 of 8 lines unpriced)"), "{prices}");

    let args = ["fit", &b, "--model", "deepseek-r1", "--precision", "iq1_s"];
    let (code, text, err) = kw_no_user_files(&args);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.lines().next().is_some_and(|l| l.contains(": fits with experts in system RAM (")), "{text}");
    let (_, json, _) = kw_no_user_files(&[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let c = &v["cost"];
    // The JSON: the total is a lower bound, the unpriced parts named, the derived figures listed.
    assert_eq!(c["hardware_complete"], false, "{c}");
    assert_eq!(c["missing_prices"].as_array().map(Vec::len), Some(4), "{c}");
    assert_eq!(
        c["missing_prices"].as_array().map(|a| a.iter().filter_map(|s| s.as_str()).collect::<Vec<_>>().join(", ")),
        Some(PUGET_UNPRICED.to_owned())
    );
    // No break-even against one A100 80 GB, which does not hold DeepSeek-R1: none to bound.
    assert_eq!(
        c["lower_bounds"],
        serde_json::json!([
            "hardware_usd",
            "amortization_usd_per_hour",
            "usd_per_month",
            "usd_per_working_hour",
            "usd_per_working_hour_at_full_use",
            "usd_per_million_tokens"
        ])
    );
    assert!((c["hardware_usd"].as_f64().expect("hardware") - 1094.92).abs() < 0.005, "{c}");
    // $ per million tokens = 1e6 x $/working hour / (3600 x the split's decode).
    let per_hour = c["usd_per_working_hour"].as_f64().expect("$/h");
    let decode = v["fits_with_experts_in_ram"]["decode_tokens_per_s"].as_f64().expect("the split's decode");
    let mtok = c["usd_per_million_tokens"].as_f64().expect("$/Mtok");
    assert!((mtok - 1e6 * per_hour / (3600.0 * decode)).abs() < 1e-9, "{mtok} at {decode} tok/s");
    assert!(c["cloud"]["break_even_months"].is_null(), "{c}");
    assert_eq!(c["cloud"]["break_even"]["kind"], "not_applicable", "{c}");

    // The text: the same lines as a fit on the GPUs, every figure that grows with the hardware
    // marked "at least", and no bare total.
    let want = format!(
        "  cost: hardware at least $1,095 (no catalog price for: {PUGET_UNPRICED}), at least ${per_hour:.2} per working hour, at least {} per million tokens",
        usd_rate(mtok)
    );
    assert!(text.lines().any(|l| l == want), "want {want:?} in:\n{text}");
    let want = "  cloud (A100 80 GB at $1.60/h): n/a; no break-even: the workload does not fit one A100 80 GB (the cloud offer), so renting it replaces nothing";
    assert!(text.lines().any(|l| l == want), "want {want:?} in:\n{text}");
    assert!(!text.contains("  hardware: $"), "{text}");
    assert!(!text.contains("per million tokens at this decode"), "{text}");
}

#[test]
fn the_json_verdict_is_the_headline_and_the_exit_code() {
    // (args, headline fragment, exit code, JSON verdict, JSON all-on-GPU verdict)
    let hybrid = fixture("hybrid-1x-rtx-3090-gpt-oss-120b.rig.ron").display().to_string();
    let puget = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let x870e = builds("2x-rtx-4090-x870e.rig.ron");
    let cases: [(Vec<&str>, &str, i32, &str, &str); 4] = [
        (
            vec!["fit", &hybrid, "--precision", "mxfp4", "--runtime", "llama.cpp"],
            ": fits with experts in system RAM (",
            0,
            "fits_with_experts_in_ram",
            "does_not_fit",
        ),
        (vec!["fit", &puget], ": fits (", 0, "fits", "fits"),
        (
            vec!["fit", &x870e, "--model", "llama-3.1-70b", "--precision", "q4_k_m", "--context", "16384"],
            ": tight: the longest context that keeps the headroom is ",
            3,
            "tight_below_context",
            "tight",
        ),
        (
            vec!["fit", &x870e, "--model", "deepseek-v3", "--precision", "fp8"],
            ": does not fit (",
            1,
            "does_not_fit",
            "does_not_fit",
        ),
    ];
    for (args, headline, exit, verdict, all_on_gpu) in cases {
        let (code, text, err) = kw_no_user_files(&args);
        assert_eq!(code, exit, "{args:?}: {text}{err}");
        assert!(text.lines().next().is_some_and(|l| l.contains(headline)), "{args:?}: {text}");
        let (code, json, _) = kw_no_user_files(&[&args[..], &["--format", "json"]].concat());
        assert_eq!(code, exit, "{args:?} --format json");
        let v: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(v["verdict"], verdict, "{args:?}");
        assert_eq!(v["fit"]["all_on_gpu_verdict"], all_on_gpu, "{args:?}");
        assert_eq!(v["fit"]["gpus"][0]["all_on_gpu_verdict"], all_on_gpu, "{args:?}");
        // No second field named `verdict` below the top level to read the wrong answer from.
        assert!(v["fit"].get("verdict").is_none() && v["fit"]["gpus"][0].get("verdict").is_none(), "{args:?}");
    }
}

/// The break-even is printed only where owning pays back within the 3-year write-off, and the
/// text and the JSON say the same (a new user found a break-even printed where the cloud was
/// cheaper: "after at least 145.0 months" against a cloud at $0.20/h, and one against an A100
/// that does not hold the workload). The 2x RTX 4090 build costs at least $0.34 per working
/// hour at its 12 h/day and at least $0.22 at 24 h/day:
/// - at $0.20/h the cloud is cheaper at any hours per day;
/// - at $0.30/h it is cheaper at 12 h/day, and owning pays back from at least 14.2 h/day;
/// - at $1.60/h (the default) owning pays back after at least 4.5 months;
/// - the 2x RTX A6000 build's Llama-3.1-70B INT8 does not fit one A100 80 GB: no break-even.
///
/// Seen failing with the break-even computed as before (`hardware / saving` whatever it is).
#[test]
fn the_break_even_says_when_the_cloud_is_cheaper_or_not_applicable() {
    let x870e = builds("2x-rtx-4090-x870e.rig.ron");
    let a6000 = builds("2x-rtx-a6000-nvlink.rig.ron");
    let cases: [(&str, Option<&str>, &str, &str); 4] = [
        (
            &x870e,
            Some("0.2"),
            "cloud_cheaper_at_any_use",
            "  cloud (A100 80 GB at $0.20/h): $1.55 per million tokens; no break-even: the cloud is cheaper at any hours per day (even at 24 h/day the rig costs at least $0.23 per working hour, hardware over 3 years and electricity, against $0.20/h)",
        ),
        (
            &x870e,
            Some("0.3"),
            "cloud_cheaper_at_this_use",
            "  cloud (A100 80 GB at $0.30/h): $2.33 per million tokens; no break-even at 12.0 h/day: the rig costs at least $0.35 per working hour (hardware over 3 years and electricity) against the cloud's $0.30/h; owning pays back within the 3 years from at least 14.9 h/day",
        ),
        (
            &x870e,
            None,
            "after",
            "  cloud (A100 80 GB at $1.60/h): $12.42 per million tokens; break-even after at least 4.8 months (a lower bound: no price for nvidia-geforce-rtx-4090)",
        ),
        (
            &a6000,
            None,
            "not_applicable",
            "  cloud (A100 80 GB at $1.60/h): n/a; no break-even: the workload does not fit one A100 80 GB (the cloud offer), so renting it replaces nothing",
        ),
    ];
    for (build, price, kind, want) in cases {
        let mut args = vec!["fit", build];
        if let Some(p) = price {
            args.extend(["--cloud-usd-per-hour", p]);
        }
        let (code, text, err) = kw_no_user_files(&args);
        assert_eq!(code, 0, "{args:?}: {text}{err}");
        assert!(text.lines().any(|l| l == want), "{args:?}: want {want:?} in:\n{text}");
        let (_, json, _) = kw_no_user_files(&[&args[..], &["--format", "json"]].concat());
        let v: serde_json::Value = serde_json::from_str(&json).expect("json");
        let cloud = &v["cost"]["cloud"];
        assert_eq!(cloud["break_even"]["kind"], kind, "{args:?}: {cloud}");
        // A number only where the text prints one.
        assert_eq!(cloud["break_even_months"].is_number(), kind == "after", "{args:?}: {cloud}");
        if kind == "after" {
            let m = cloud["break_even_months"].as_f64().expect("months");
            assert!(want.contains(&format!("after at least {m:.1} months")), "{m}: {want}");
        }
    }
}

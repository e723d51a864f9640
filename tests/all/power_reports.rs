//! Power verdicts held to published reports (`tests/fixtures/power-reports/`, sources
//! in each build's `reference` and in the folder's README), and `check`, `kraftwerk power`, the
//! planner's judge and the window's state agreeing on the severity of the same build.

use crate::support::{kw_no_user_files, reference_build_paths};
use kraftwerk::catalog;
use kraftwerk::check::{self, FindingKind, Severity};
use kraftwerk::rig;
use std::path::{Path, PathBuf};

fn reports(prefix: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/power-reports");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("power-reports dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            n.starts_with(prefix) && n.ends_with(".rig.ron")
        })
        .collect();
    v.sort();
    v
}

/// The rules whose verdict on the PSU does not depend on a site the report may not state.
const PSU_RULES: [&str; 2] = ["psu-capacity", "psu-transient"];
/// Every rule that judges the rig's power against what trips (PSU, breaker, inlet).
const TRIP_RULES: [&str; 4] = ["psu-capacity", "psu-transient", "wall-circuit", "psu-inlet"];

fn errors_of<'a>(r: &'a check::Report, rules: &[&str]) -> Vec<&'a check::Finding> {
    r.findings
        .iter()
        .filter(|f| f.kind == FindingKind::Problem && f.severity == Severity::Error && rules.contains(&f.rule))
        .collect()
}

/// Every published power cut whose stated parts exceed the PSU's rating at full load is an
/// error, in inference mode too (three of the four reports are inference rigs; the fourth, four
/// V100 SXM2 on one Dell 1100 W server supply, is a training server), with a fix that names a
/// power limit or a PSU size.
#[test]
fn published_power_cuts_are_errors() {
    let c = catalog::builtin().expect("catalog");
    let cuts = reports("cut-");
    assert!(cuts.len() >= 4, "{cuts:?}");
    for p in &cuts {
        let b = rig::load(p, Some(&c)).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(b.reference.as_deref().is_some_and(|s| s.contains("https://")), "{}: cite the report", p.display());
        let r = check::run(&b, &c);
        let errs = errors_of(&r, &["psu-capacity"]);
        assert!(
            !errs.is_empty(),
            "{}: no psu-capacity error: {:?}",
            p.display(),
            r.findings.iter().map(|f| format!("{} {}: {}", f.severity, f.rule, f.message)).collect::<Vec<_>>()
        );
        for f in errs {
            assert!(f.fix.contains("Cap every GPU at") || f.fix.contains("PSU of at least"), "{}", f.fix);
            assert!(f.fix.contains("PSU of at least"), "the PSU size that carries it: {}", f.fix);
        }
    }
}

/// The p510 report's own fix capped its cards at 130 W + 110 W ('Worst case becomes ~475W'):
/// the finding's common cap lands within 5 W of the report's larger cap and keeps the unit
/// within its 490 W rating.
#[test]
fn the_p510_fix_matches_the_reports_own_cap() {
    let cat = catalog::builtin().expect("catalog");
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/power-reports/cut-p510-490w-3070ti-3060-ollama.rig.ron");
    let build = rig::load(&path, Some(&cat)).expect("loads");
    let fit = kraftwerk::estimate::power::power_limit_to_fit(&build.resolve(&cat), |e| {
        kraftwerk::estimate::power::psus_within(e, 1.0)
    })
    .expect("a cap fits");
    assert!((fit.limit_w - 130.0).abs() <= 5.0, "cap {} W", fit.limit_w);
    assert!(fit.estimate.psus[0].dc_w <= 490.0, "{} W", fit.estimate.psus[0].dc_w);
    let report = check::run(&build, &cat);
    let f = report.findings.iter().find(|f| f.rule == "psu-capacity").expect("finding");
    assert!(f.fix.contains(&format!("`sudo nvidia-smi -pl {:.0}`", fit.limit_w)), "{}", f.fix);
}

/// Published rigs that ran with their stated PSU and load: no error from the PSU rules; the
/// reference builds that stand for published rigs (Puget's capped quad RTX 3090 on a stated
/// US 15 A circuit, ASUS's 8x L40S server) also no error from the circuit and inlet rules.
#[test]
fn published_healthy_rigs_get_no_power_error() {
    let c = catalog::builtin().expect("catalog");
    let healthy = reports("healthy-");
    assert!(healthy.len() >= 5, "{healthy:?}");
    for p in &healthy {
        let b = rig::load(p, Some(&c)).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(b.reference.as_deref().is_some_and(|s| s.contains("https://")), "{}: cite the report", p.display());
        let r = check::run(&b, &c);
        let errs = errors_of(&r, &PSU_RULES);
        assert!(errs.is_empty(), "{}: {:?}", p.display(), errs.iter().map(|f| &f.message).collect::<Vec<_>>());
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds");
    for name in ["4x-rtx-3090-wrx80-puget.rig.ron", "8x-l40s-4u-server.rig.ron"] {
        let b = rig::load(&root.join(name), Some(&c)).expect("loads");
        let r = check::run(&b, &c);
        let errs = errors_of(&r, &TRIP_RULES);
        assert!(errs.is_empty(), "{name}: {:?}", errs.iter().map(|f| &f.message).collect::<Vec<_>>());
    }
}

/// `kraftwerk check` and `kraftwerk power` report the same power findings at the same
/// severities for the same build (the published reports and every reference build).
#[test]
fn check_and_power_agree_on_severity() {
    let mut paths = reports("cut-");
    paths.extend(reports("healthy-"));
    paths.extend(reference_build_paths());
    for p in &paths {
        let path = p.display().to_string();
        let (_, check_out, _) = kw_no_user_files(&["check", &path, "--format", "json"]);
        let (code, power_out, err) = kw_no_user_files(&["power", &path, "--format", "json"]);
        assert_eq!(code, 0, "{path}: {err}");
        let check: serde_json::Value = serde_json::from_str(&check_out).expect("check json");
        let power: serde_json::Value = serde_json::from_str(&power_out).expect("power json");
        let family = |f: &serde_json::Value| {
            check::rule(f["rule"].as_str().unwrap_or_default()).is_some_and(|r| r.doc.family == "power")
                && f["kind"] == "problem"
        };
        let from_check: Vec<(String, String, String)> = check["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| family(f))
            .map(|f| (f["rule"].to_string(), f["severity"].to_string(), f["message"].to_string()))
            .collect();
        let from_power: Vec<(String, String, String)> = power["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| (f["rule"].to_string(), f["severity"].to_string(), f["message"].to_string()))
            .collect();
        assert_eq!(from_check, from_power, "{path}");
        let worst =
            from_check.iter().map(|(_, s, _)| s.trim_matches('"').to_owned()).max_by_key(|s| match s.as_str() {
                "error" => 2,
                "warning" => 1,
                _ => 0,
            });
        assert_eq!(power["severity"].as_str().map(str::to_owned), worst, "{path}");
    }
}

/// The planner judges a build with `check::run`: a build whose PSU is over its rating at full
/// load in inference mode is refused on that error (not proposed with a warning).
#[test]
fn the_planners_judge_refuses_a_psu_over_its_rating_in_inference_mode() {
    let c = catalog::builtin().expect("catalog");
    for p in reports("cut-") {
        let b = rig::load(&p, Some(&c)).expect("loads");
        let ev = kraftwerk::plan::judge::judge(&b, &c);
        assert!(ev.errors.iter().any(|e| e.starts_with("psu-capacity")), "{}: {:?}", p.display(), ev.errors);
    }
}

/// Why `psu-transient` stays a warning on a unit with no excursion specification (issue 42, item
/// 1: judging the predicted 1 ms peak against the rating, or against a measured over-power trip
/// point, as an error was weighed and rejected on this evidence). Every published healthy rig
/// here runs a unit with no published excursion figure, and their estimated 1 ms system peak is
/// well over the rating (about 120 %, 134 % and 141 %): over the only measured over-power
/// trip point of such a unit too (Corsair AX1600i, 1907 W = 119 % of 1600 W, Tom's Hardware, in
/// `docs/sources.md`). Those rigs ran ('it works'; 'We didn't have the system shut down on us'),
/// so an over-power protection does not act on a 1 ms excursion of that size, and a threshold
/// that made the held-out cuts errors (about 118-121 % by their stated parts, README) would make
/// the healthy rigs errors too. The test pins both halves: the evidence is present in the
/// fixtures, and the rule reports such a peak as a warning, never an error.
#[test]
fn a_1ms_peak_over_a_no_spec_rating_is_a_warning_because_healthy_rigs_ride_it() {
    use kraftwerk::estimate::power::{LoadState, TRANSIENT_1MS, estimate};
    /// Corsair AX1600i over-power shutdown, 1907 W of 1600 W (docs/sources.md).
    const MEASURED_OPP_FRACTION: f64 = 1907.0 / 1600.0;
    let c = catalog::builtin().expect("catalog");
    let mut over_opp = Vec::new();
    for p in reports("healthy-") {
        let b = rig::load(&p, Some(&c)).expect("loads");
        let e = estimate(&b.resolve(&c), LoadState::Training);
        for u in &e.psus {
            let Some(t) = u.transients.get(TRANSIENT_1MS) else { continue };
            if t.limit_w.is_none() && t.peak_w > u.rated_w * MEASURED_OPP_FRACTION {
                over_opp.push(format!("{} PSU {}: {:.0} %", p.display(), u.index + 1, t.peak_w / u.rated_w * 100.0));
            }
        }
        let r = check::run(&b, &c);
        let transient: Vec<&check::Finding> = r.findings.iter().filter(|f| f.rule == "psu-transient").collect();
        assert!(
            transient.iter().all(|f| f.severity == Severity::Warning),
            "{}: {:?}",
            p.display(),
            transient.iter().map(|f| (f.severity, &f.message)).collect::<Vec<_>>()
        );
    }
    assert!(
        over_opp.len() >= 2,
        "the healthy fixtures no longer show a no-spec unit riding a 1 ms peak over the measured OPP point: {over_opp:?}"
    );
}

/// The power-limit curves held to published llama.cpp power sweeps. Memory-bound decode
/// ([`kraftwerk::estimate::power::decode_kept`]) is fitted to the decode rows at 57-90 % of the
/// default limit and must stay within 2 percentage points of each; the rows not fitted are
/// printed with their miss: the sweep's 150 W decode row (43 % of default, where decode starts
/// to collapse) and its prefill rows, which fall faster than the compute curve
/// ([`kraftwerk::estimate::power::throughput_kept`], fitted to Puget Systems' training run)
/// says. Sources: llmgarage.ai, <https://llmgarage.ai/power-limit-tokens-per-second-benchmark>
/// (6 x RTX 3090, 350 W default, llama.cpp server, MiniMax M2.5 UD-IQ2_M; decode at 4K,
/// prefill at 198K context); InventiveHQ,
/// <https://inventivehq.com/blog/gpu-power-limit-tokens-per-watt> (RTX 5060 Ti, 180 W default,
/// llama.cpp, Qwen2.5-Coder-7B). Seen failing with the decode rows read through the compute
/// curve (250 W: 0.940 against 0.974 measured).
#[test]
fn power_limit_curves_hold_published_sweeps() {
    use kraftwerk::estimate::power::{decode_kept, throughput_kept};
    let c = catalog::builtin().expect("built-in catalog");
    let rtx3090 = c.gpu("nvidia-geforce-rtx-3090").expect("RTX 3090").clone();
    assert!((rtx3090.board_power_w - 350.0).abs() < 1e-9, "the sweep's default: {}", rtx3090.board_power_w);
    let mut rtx5060ti = rtx3090.clone();
    rtx5060ti.board_power_w = 180.0;
    // (card, limit W, measured share of the default limit's speed)
    let decode_fitted = [
        (&rtx3090, 300.0, 72.1 / 72.6),
        (&rtx3090, 250.0, 70.7 / 72.6),
        (&rtx3090, 200.0, 68.3 / 72.6),
        (&rtx5060ti, 162.0, 81.4 / 81.2),
        (&rtx5060ti, 150.0, 80.4 / 81.2),
    ];
    for (g, w, kept) in decode_fitted {
        let est = decode_kept(g, w);
        println!("decode {w:.0} W of {:.0} W: curve {est:.3}, measured {kept:.3}", g.board_power_w);
        assert!((est - kept).abs() <= 0.02, "decode at {w} W of {}: {est} vs {kept}", g.board_power_w);
        assert!(est > throughput_kept(g, w), "decode keeps more than compute at {w} W");
    }
    let not_fitted = [
        ("decode", decode_kept(&rtx3090, 150.0), 62.6 / 72.6),
        ("prefill", throughput_kept(&rtx3090, 300.0), 9326.0 / 9893.0),
        ("prefill", throughput_kept(&rtx3090, 250.0), 8436.0 / 9893.0),
        ("prefill", throughput_kept(&rtx3090, 200.0), 5941.0 / 9893.0),
    ];
    for (what, est, kept) in not_fitted {
        println!("not fitted: {what}: curve {est:.3}, measured {kept:.3} ({:+.0} %)", (est / kept - 1.0) * 100.0);
        assert!(est >= kept, "the curves are optimistic on the rows they were not fitted to: {what} {est} vs {kept}");
    }
    assert!((decode_kept(&rtx3090, 350.0) - 1.0).abs() < 1e-12 && (decode_kept(&rtx3090, 400.0) - 1.0).abs() < 1e-12);
}

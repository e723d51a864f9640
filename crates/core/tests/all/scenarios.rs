//! The expert scenarios of `shared/reference/power-and-compat.md` ("Scenarios an expert agrees
//! with"), and the power figures of the power issue: DC load, wall draw and amps within 5 % of
//! the reference's figures, the Puget measurement within 15 %, and the power-limit advice.

use crate::support;
use kraftwerk_catalog::{self as catalog};
use kraftwerk_core::check::{self, Report, Severity, Verdict};
use kraftwerk_core::estimate::power::{self, LoadState};
use kraftwerk_core::rig::{Build, GpuCable, GpuPlacement, NvlinkBridge, PsuUse, Riser};

fn gpu(id: &str, slot: Option<u8>) -> GpuPlacement {
    GpuPlacement { gpu: id.into(), slot_name: None, slot, power_limit_w: None, riser: None, psu: 0, cable: None }
}

fn psu(id: &str) -> PsuUse {
    PsuUse { psu: id.into(), feeds_system: None, circuit: 0 }
}

fn has(r: &Report, rule: &str, sev: Severity) -> bool {
    r.findings.iter().any(|f| f.rule == rule && f.severity == sev)
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= want * tol
}

/// The power reference's scenario system: GPUs, one CPU, no board chosen (so the "system rest"
/// is the reference's 100 W), one 1600 W ATX 3.1 PSU, a US 15 A / 120 V circuit.
fn scenario(gpu_id: &str, n: usize, cpu: &str, limit: Option<f64>) -> Build {
    let mut b = Build { name: "scenario".into(), cpu: Some(cpu.into()), ..Build::default() };
    for _ in 0..n {
        let mut g = gpu(gpu_id, None);
        g.power_limit_w = limit;
        b.gpus.push(g);
    }
    b.psus.push(psu("seasonic-prime-tx-1600-atx31"));
    b
}

/// Scenario 1: 4x RTX 4090 (450 W) + Threadripper 7980X (350 W), one 1600 W PSU, US 15 A:
/// error. About 2250 W DC; about 2450 W at the wall, over the PSU, the 1440 W continuous and
/// the 1800 W breaker.
#[test]
fn scenario_1_four_4090s_on_one_1600w_psu_and_15a() {
    let c = support::catalog();
    let b = scenario("nvidia-geforce-rtx-4090", 4, "amd-threadripper-7980x", None);
    let e = power::estimate(&b.resolve(&c), LoadState::Training);
    assert!(within(e.total_dc_w, 2250.0, 0.05), "DC {:.0} W", e.total_dc_w);
    let wall = e.total_wall_w.expect("a Titanium PSU: wall draw known");
    assert!(within(wall, 2450.0, 0.05), "wall {wall:.0} W");
    let amps = e.circuits[0].amps.expect("amps known");
    assert!(within(amps, 2450.0 / 120.0, 0.05), "{amps:.1} A");
    let r = check::run(&b, &c);
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(has(&r, "psu-capacity", Severity::Error));
    assert!(has(&r, "wall-circuit", Severity::Error), "over the 1800 W breaker");
    assert!(wall > 1800.0);
}

/// Scenario 2: 4x RTX 3090 at 350 W, one 1600 W PSU, 15 A: error (about 1760 W for GPUs, CPU
/// and board). The same capped at 280 W: still an error on the wall circuit, over the 1440 W
/// continuous limit (no workload is checked as a load held for hours, NEC 210.19(A); issue 42).
///
/// The reference gives "about 1505 W at the wall" for the capped build; with its own 92 %
/// efficiency that is 1385 W DC, inconsistent with its uncapped 1760 W less 4 x 70 W = 1480 W
/// DC. We hold the DC figure to 1505 W (5 %) and the wall draw to the verdict: over 1440 W
/// continuous, under the 1800 W breaker.
#[test]
fn scenario_2_four_3090s_uncapped_and_capped() {
    let c = support::catalog();
    // A 280 W Threadripper PRO (3975WX) as on the WRX80 boards of 4x 3090 workstations.
    let b = scenario("nvidia-geforce-rtx-3090", 4, "amd-threadripper-pro-3975wx", None);
    let e = power::estimate(&b.resolve(&c), LoadState::Training);
    assert!(within(e.total_dc_w, 1760.0, 0.05), "DC {:.0} W", e.total_dc_w);
    let r = check::run(&b, &c);
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(has(&r, "psu-capacity", Severity::Error), "{:#?}", r.findings);

    let capped = scenario("nvidia-geforce-rtx-3090", 4, "amd-threadripper-pro-3975wx", Some(280.0));
    let e = power::estimate(&capped.resolve(&c), LoadState::Training);
    assert!(within(e.total_dc_w, 1505.0, 0.05), "DC {:.0} W", e.total_dc_w);
    let wall = e.total_wall_w.expect("the PRIME TX-1600 publishes its 80 PLUS level");
    assert!(wall > 1440.0 && wall < 1800.0, "wall {wall:.0} W");
    let r = check::run(&capped, &c);
    // No board, case or memory chosen. Two errors: the PRIME TX-1600 ATX 3.1 supplies six PCIe
    // 8-pin plugs (Seasonic's spec sheet) and four RTX 3090 take two each; and with no workload
    // (a sustained load) the circuit's continuous limit does not hold 1606 W. The PSU itself
    // holds it (a headroom warning at most).
    let mut errors: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.kind == kraftwerk_core::check::FindingKind::Problem)
        .map(|f| f.rule)
        .collect();
    errors.sort_unstable();
    errors.dedup();
    assert_eq!(errors, ["psu-connectors", "wall-circuit"], "{:#?}", r.findings);
    assert!(r.findings.iter().any(|f| f.message.contains("must supply 8 PCIe 8-pin (has 6)")), "{:#?}", r.findings);
    assert!(!has(&r, "psu-capacity", Severity::Error), "{:#?}", r.findings);
}

/// Scenario 3: RTX 5090 on a 12V-2x6 cable whose sense pins say 450 W: error (575 W > 450 W).
/// RTX 4090 on its adapter with 3 of 4 8-pins connected: pass, limited to 450 W.
#[test]
fn scenario_3_cable_classes() {
    let c = support::catalog();
    let mut b = scenario("nvidia-geforce-rtx-5090", 1, "amd-ryzen-9-9950x", None);
    b.gpus[0].cable = Some(GpuCable::Native12V2x6 { class_w: 450 });
    let r = check::run(&b, &c);
    assert!(has(&r, "gpu-power-cable", Severity::Error), "{:#?}", r.findings);
    let f = r.findings.iter().find(|f| f.rule == "gpu-power-cable").expect("finding");
    assert!(f.message.contains("575") && f.message.contains("450"), "{}", f.message);

    let mut b = scenario("nvidia-geforce-rtx-4090", 1, "amd-ryzen-9-9950x", None);
    b.gpus[0].cable = Some(GpuCable::Adapter { pcie_8pin_connected: 3 });
    let r = check::run(&b, &c);
    assert!(
        !r.findings.iter().any(|f| f.rule == "gpu-power-cable" && f.severity > Severity::Info),
        "{:#?}",
        r.findings
    );
    assert!(has(&r, "gpu-power-cable", Severity::Info), "limited to 450 W is reported");
}

/// Scenario 4: two RTX 3090 with NVLink: 2-slot bridge error (cards are 3 slots thick); 3-slot
/// bridge warning (no air gap); 4-slot bridge pass.
#[test]
fn scenario_4_nvlink_bridge_spacing() {
    let c = support::catalog();
    for (spacing, want) in [(2u8, Some(Severity::Error)), (3, Some(Severity::Warning)), (4, None)] {
        let mut b = Build {
            name: format!("{spacing}-slot bridge"),
            motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
            ..Build::default()
        };
        b.gpus.push(gpu("nvidia-geforce-rtx-3090", Some(1)));
        b.gpus.push(gpu("nvidia-geforce-rtx-3090", Some(1 + spacing)));
        b.nvlink.push(NvlinkBridge { gpus: (0, 1), spacing_slots: spacing });
        let r = check::run(&b, &c);
        let worst = r.findings.iter().filter(|f| f.rule == "nvlink-spacing").map(|f| f.severity).max();
        assert_eq!(worst, want, "{spacing}-slot: {:#?}", r.findings);
    }
}

/// Scenario 5: four 3-slot RTX 4090 directly on a 7-slot board at single-slot spacing: error.
/// With PCIe 4.0 risers: warning (link errors likely; may need Gen3).
#[test]
fn scenario_5_single_spacing_and_risers() {
    let c = support::catalog();
    let mut b = Build {
        name: "4x 4090 single spacing".into(),
        motherboard: Some("asus-pro-ws-wrx90e-sage-se".into()),
        ..Build::default()
    };
    for pos in 1..=4 {
        b.gpus.push(gpu("nvidia-geforce-rtx-4090", Some(pos)));
    }
    let r = check::run(&b, &c);
    assert!(has(&r, "gpu-slot-blocked", Severity::Error), "{:#?}", r.findings);
    for g in &mut b.gpus {
        g.riser = Some(Riser { pcie_gen: 4, length_mm: Some(300.0) });
    }
    let r = check::run(&b, &c);
    assert!(!r.findings.iter().any(|f| f.rule == "gpu-slot-blocked"));
    assert!(has(&r, "pcie-riser", Severity::Warning));
}

/// Scenario 6: two A100 PCIe in a desktop tower with standard fans: error (passive cards need
/// ducted server airflow); EPS 8-pin availability is checked too.
#[test]
fn scenario_6_passive_cards_in_a_tower() {
    let c = support::catalog();
    let mut b = scenario("nvidia-a100-80gb-pcie", 2, "amd-threadripper-7960x", None);
    b.case = Some("fractal-design-define-7-xl".into());
    let r = check::run(&b, &c);
    assert!(has(&r, "passive-airflow", Severity::Error), "{:#?}", r.findings);
    assert_eq!(r.verdict, Verdict::Fail);
    // Both cards take an EPS 8-pin: the connector rule counts them (as EPS or via the adapter).
    let eps_counted = r.findings.iter().any(|f| f.rule == "psu-connectors") || {
        let p = c.psu("seasonic-prime-tx-1600-atx31").expect("psu");
        p.connectors.eps_8pin.is_some_and(|n| n >= 3)
    };
    assert!(eps_counted);
}

/// Puget measured 1717 W at the wall with 4x blower RTX 3090 capped at 300 W on one 1600 W PSU
/// (thefpsreview.com, 2020-10-22). Our full-load estimate must land within 15 %.
#[test]
fn puget_quad_3090_wall_draw() {
    let c = support::catalog();
    let path = crate::support::reference_build("4x-rtx-3090-wrx80-puget.rig.ron");
    let mut b = kraftwerk_core::rig::load(&path, Some(&c)).expect("reference build");
    for g in &mut b.gpus {
        g.power_limit_w = Some(300.0);
    }
    let e = power::estimate(&b.resolve(&c), LoadState::Training);
    let wall = e.total_wall_w.expect("wall draw known");
    assert!(within(wall, 1717.0, 0.15), "wall {wall:.0} W vs 1717 W measured");
}

/// For 4x RTX 3090 on a US 15 A circuit the advice names a cap that fits 1440 W continuous,
/// with the throughput kept.
#[test]
fn advice_for_four_3090s_on_15a() {
    let c = support::catalog();
    let b = scenario("nvidia-geforce-rtx-3090", 4, "amd-threadripper-pro-3975wx", None);
    let a = power::advise(&b.resolve(&c)).expect("over the limits, so advice");
    let cap = a.common_limit_w.expect("a cap exists");
    assert!((175.0..350.0).contains(&cap), "cap {cap}");
    let at = a.at_limit.as_ref().expect("estimate at cap");
    let wall = at.circuits[0].wall_w.expect("wall draw known");
    assert!(wall <= 1440.0, "{wall:.0} W at the wall");
    assert!(at.psus[0].load_fraction <= 0.8 + 1e-9);
    let kept = a.throughput_kept.expect("kept");
    assert!(kept > 0.85 && kept < 1.0, "kept {kept}");
    // 5 W more would no longer fit.
    let e = power::estimate_with(&b.resolve(&c), LoadState::Training, Some(cap + 5.0));
    assert!(!power::within_limits(&e));
    assert!(!a.alternatives.is_empty());
}

/// RTX 3090 at 280 W keeps > 95 % of its throughput (Puget, quad RTX 3090 power-limit study).
#[test]
fn throughput_kept_at_280w_matches_puget() {
    let c = support::catalog();
    let g = c.gpu("nvidia-geforce-rtx-3090").expect("3090");
    let kept = power::throughput_kept(g, 280.0);
    assert!(kept > 0.95 && kept < 0.97, "{kept}");
    assert!((power::throughput_kept(g, 350.0) - 1.0).abs() < 1e-12);
}

/// Idle draws much less than training, inference in between.
#[test]
fn load_states_are_ordered() {
    let c = support::catalog();
    let b = scenario("nvidia-geforce-rtx-4090", 2, "amd-ryzen-9-9950x", None);
    let r = b.resolve(&c);
    let [idle, infer, train] = LoadState::ALL.map(|s| power::estimate(&r, s).total_dc_w);
    assert!(idle < infer && infer < train, "{idle} {infer} {train}");
}

/// Efficiency interpolation follows the 80 PLUS points.
#[test]
fn efficiency_curve_interpolates() {
    let curve = power::eighty_plus_curve(catalog::EightyPlus::Titanium, false).expect("a certified level");
    let at = |pct: f64| power::efficiency_at(&curve, pct).expect("a curve");
    assert!((at(50.0) - 0.94).abs() < 1e-9);
    assert!((at(35.0) - 0.93).abs() < 1e-9);
    assert!((at(150.0) - 0.90).abs() < 1e-9);
    assert!((at(5.0) - 0.90).abs() < 1e-9);
    // An empty curve gives no figure (there was a 0.85 fallback).
    assert_eq!(power::efficiency_at(&[], 50.0), None);
}

/// No 80 PLUS rating and no published curve: no minimum to read, no made-up curve (there was a
/// 75/78/75 % one).
#[test]
fn an_unrated_level_has_no_curve() {
    assert_eq!(power::eighty_plus_curve(catalog::EightyPlus::None, false), None);
    assert_eq!(power::eighty_plus_curve(catalog::EightyPlus::None, true), None);
}

/// 80 PLUS Gold keeps the program's published minimums, 115 V internal non-redundant:
/// 87 / 90 / 87 % at 20 / 50 / 100 % load; 230 V EU internal: 90 / 92 / 89 % (CLEAResult, 80
/// PLUS program details; the same table in Tom's Hardware's 80 PLUS article). A build on a Gold
/// unit at 50 % load is estimated at 90 %, marked as the certification minimum.
#[test]
fn an_80_plus_gold_psu_keeps_its_certification_minimum() {
    let gold = |hi| power::eighty_plus_curve(catalog::EightyPlus::Gold, hi).expect("a certified level");
    assert_eq!(gold(false), vec![(20.0, 87.0), (50.0, 90.0), (100.0, 87.0)]);
    assert_eq!(gold(true), vec![(20.0, 90.0), (50.0, 92.0), (100.0, 89.0)]);
    let c = support::catalog();
    let unit = c
        .psus
        .iter()
        .find(|p| p.eighty_plus == catalog::EightyPlus::Gold && p.efficiency.is_empty() && p.rated_w >= 1000.0)
        .expect("a Gold PSU without its own curve");
    let mut b = scenario("nvidia-geforce-rtx-4090", 1, "amd-ryzen-9-9950x", None);
    b.psus[0].psu = unit.id.clone();
    let e = power::estimate(&b.resolve(&c), LoadState::Training);
    let p = &e.psus[0];
    assert_eq!(p.efficiency_basis, power::EfficiencyBasis::CertificationMinimum);
    let want = power::efficiency_at(&gold(false), p.load_fraction * 100.0).expect("a curve");
    assert_eq!(p.efficiency, Some(want), "{}: {:.1} % load", unit.id, p.load_fraction * 100.0);
    let wall = p.wall_w.expect("known through a Gold unit");
    assert!((wall - p.dc_w / want).abs() < 1e-9);
    assert!(e.total_wall_w.is_some() && e.cost.is_some());
    let text = kraftwerk_core::report::power_text(&e);
    assert!(text.contains("(80 PLUS certification minimum)"), "{text}");
}

/// A PSU with no 80 PLUS rating known and no published curve (the import's `eighty_plus: None`):
/// its efficiency, wall draw and amps are unknown, and so are the circuit's, the heat into the
/// room and the electricity; the wall-circuit and psu-inlet rules are not checked and the
/// verdict is never PASS.
#[test]
fn an_unrated_psu_leaves_the_wall_draw_unknown_and_the_circuit_not_checked() {
    let cat = support::catalog();
    let unit = cat
        .psus
        .iter()
        .find(|p| p.eighty_plus == catalog::EightyPlus::None && p.efficiency.is_empty() && p.rated_w >= 1000.0)
        .expect("an unrated PSU of 1000 W or more");
    let mut b = scenario("nvidia-geforce-rtx-3090", 1, "amd-ryzen-9-9950x", None);
    b.psus[0].psu = unit.id.clone();
    let e = power::estimate(&b.resolve(&cat), LoadState::Training);
    let p = &e.psus[0];
    assert_eq!(p.efficiency_basis, power::EfficiencyBasis::Unknown);
    assert_eq!((p.efficiency, p.wall_w, p.amps, p.loss_w), (None, None, None, None), "{}", unit.id);
    assert!(p.curve.is_empty());
    assert_eq!((e.circuits[0].wall_w, e.circuits[0].amps), (None, None));
    assert!((e.circuits[0].dc_w - e.total_dc_w).abs() < 1e-9);
    assert_eq!((e.total_wall_w, e.heat_w, e.heat_btu_h), (None, None, None));
    assert!(e.cost.is_none());
    let json = serde_json::to_value(&e).expect("json");
    assert!(json["total_wall_w"].is_null() && json["circuits"][0]["amps"].is_null(), "{json}");
    let text = kraftwerk_core::report::power_text(&e);
    assert!(text.contains("efficiency unknown") && text.contains("electricity: unknown"), "{text}");
    let r = check::run(&b, &cat);
    for rule in ["wall-circuit", "psu-inlet"] {
        assert!(r.coverage.not_checked.iter().any(|rc| rc.rule == rule), "{rule} not checked");
        assert!(r.coverage.unverified.contains(&rule), "{rule} blocks PASS");
        assert!(
            r.findings.iter().any(|f| f.rule == rule && f.kind == check::FindingKind::NotChecked),
            "{rule}: a not-checked finding"
        );
    }
    assert!(!r.findings.iter().any(|f| f.rule == "wall-circuit" && f.kind == check::FindingKind::Problem));
    assert_ne!(r.verdict, Verdict::Pass);
    assert_ne!(r.verdict, Verdict::Warnings);
}

/// Through an unrated PSU the wall draw is unknown but at least the DC load: a circuit whose
/// DC load alone is over its breaker is still an error (not merely not checked).
#[test]
fn an_unrated_psu_whose_dc_load_alone_is_over_the_breaker_fails() {
    let cat = support::catalog();
    let unit = cat
        .psus
        .iter()
        .filter(|p| p.eighty_plus == catalog::EightyPlus::None && p.efficiency.is_empty())
        .max_by(|a, b| a.rated_w.total_cmp(&b.rated_w))
        .expect("an unrated PSU");
    let mut b = scenario("nvidia-geforce-rtx-4090", 4, "amd-threadripper-7980x", None);
    b.psus[0].psu = unit.id.clone();
    let e = power::estimate(&b.resolve(&cat), LoadState::Training);
    assert!(e.total_dc_w / 120.0 > 15.0, "{:.0} W DC", e.total_dc_w);
    let r = check::run(&b, &cat);
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "wall-circuit" && f.kind == check::FindingKind::Problem)
        .expect("the DC floor over the breaker");
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("at least"), "{}", f.message);
    assert_eq!(r.verdict, Verdict::Fail);
}

/// A rated and an unrated PSU on one circuit (a review's case): the circuit's wall draw is
/// unknown, and the least it can be is the rated PSU's wall draw plus the unrated one's DC load
/// (not the DC load of both); a circuit whose least draw is over its continuous limit fails, and
/// the advice's cap is judged by that least draw and said to be needed, not enough.
#[test]
fn a_rated_and_an_unrated_psu_on_one_circuit_bound_the_draw_from_below() {
    let cat = support::catalog();
    let unit = cat
        .psus
        .iter()
        .filter(|p| p.eighty_plus == catalog::EightyPlus::None && p.efficiency.is_empty() && p.rated_w >= 1000.0)
        .max_by(|x, y| x.rated_w.total_cmp(&y.rated_w))
        .expect("an unrated PSU");
    let mut build = scenario("nvidia-geforce-rtx-4090", 4, "amd-threadripper-7980x", None);
    build.psus.push(psu(&unit.id));
    build.psus[1].circuit = 0;
    build.gpus[2].psu = 1;
    build.gpus[3].psu = 1;
    build.site.circuit_a = 20.0;
    let est = power::estimate(&build.resolve(&cat), LoadState::Training);
    let (rated, unrated) = (&est.psus[0], &est.psus[1]);
    let rated_wall = rated.wall_w.expect("the rated PSU's wall draw");
    assert!(unrated.wall_w.is_none());
    let circuit = &est.circuits[0];
    assert_eq!((circuit.wall_w, circuit.amps), (None, None));
    assert!((circuit.min_wall_w - (rated_wall + unrated.dc_w)).abs() < 1e-9, "{circuit:?}");
    assert!(circuit.min_wall_w > circuit.dc_w, "tighter than the DC load of both: {circuit:?}");
    assert!((circuit.min_amps - circuit.min_wall_w / build.site.mains_v).abs() < 1e-9);
    assert!(circuit.min_amps > circuit.continuous_a, "{:.1} A against {:.1} A", circuit.min_amps, circuit.continuous_a);
    let report = check::run(&build, &cat);
    let finding = report
        .findings
        .iter()
        .find(|f| f.rule == "wall-circuit" && f.kind == check::FindingKind::Problem)
        .expect("the least draw over the continuous limit");
    assert!(finding.message.contains(&format!("at least {:.0} W", circuit.min_wall_w)), "{}", finding.message);
    assert!(
        finding.fix.contains("needed but not shown to be enough") || finding.fix.contains("brings even the least draw"),
        "{}",
        finding.fix
    );
    let advice = power::advise(&build.resolve(&cat)).expect("advice");
    assert!(advice.problem.contains("draws at least"), "{}", advice.problem);
    assert!(advice.alternatives.iter().any(|a| a.contains("at least")), "{:?}", advice.alternatives);
}

/// A breaker's words for a lower bound: "at least", and only the trip points the load is
/// certainly past, never "holds" or "does not trip" (the real draw is higher).
#[test]
fn a_lower_bound_on_the_breaker_load_promises_no_hold() {
    for (fraction, volts) in
        [(0.9, 120.0), (1.2, 120.0), (1.5, 120.0), (2.2, 120.0), (1.1, 230.0), (1.3, 230.0), (1.6, 230.0)]
    {
        let words = power::breaker_tolerance_at_least(fraction, volts);
        assert!(words.starts_with(&format!("at least {:.0} %", fraction * 100.0)), "{words}");
        assert!(
            !words.contains("holds its rating")
                && !words.contains("does not trip")
                && !words.contains("carries its rating"),
            "{words}"
        );
    }
    assert!(power::breaker_tolerance_at_least(1.5, 120.0).contains("must trip within 1 h"));
    assert!(power::breaker_tolerance_at_least(1.6, 230.0).contains("trips within 1 h from 145 %"));
}

/// Two PSUs on two circuits: amps per circuit, one figure each (what the status bar shows),
/// summing to the total wall draw over the mains voltage.
#[test]
fn circuit_amps_one_figure_per_circuit() {
    let c = support::catalog();
    let mut b = scenario("nvidia-geforce-rtx-4090", 4, "amd-threadripper-7980x", None);
    b.psus.push(psu("seasonic-prime-tx-1600-atx31"));
    b.psus[1].circuit = 1;
    b.gpus[2].psu = 1;
    b.gpus[3].psu = 1;
    b.site.circuits = 2;
    let r = b.resolve(&c);
    let amps: Vec<f64> = power::circuit_amps(&r, LoadState::Training).into_iter().map(|a| a.expect("known")).collect();
    assert_eq!(amps.len(), 2);
    let e = power::estimate(&r, LoadState::Training);
    let wall = e.total_wall_w.expect("known");
    assert!(within(amps.iter().sum::<f64>(), wall / b.site.mains_v, 1e-9));
    assert!(amps[0] > amps[1], "the system PSU's circuit carries the CPU too: {amps:?}");
}

//! Issue 36 items 3, 4, 5 and 6 in the planner: ownership with counts (one owned RTX 3090 and
//! more bought; CLI and Plan tab plan the same goal and give the same total), power limits and
//! multi-PSU frames as levers (4x RTX 3090 on 230 V / 16 A and on 120 V / 15 A), no card on
//! chipset or x1 links when the same cards fit on CPU lanes, RAM as `check` wants it, and no
//! PSU whose GPUs' 1 ms peak is over its rating.

use super::support;
use kraftwerk::catalog::Catalog;
use kraftwerk::check::FindingKind;
use kraftwerk::plan::goal::{Goal, GoalPrecision, ModelRef};
use kraftwerk::plan::owned::{OwnedPart, owned_parts};
use kraftwerk::plan::{PlanResult, plan_blocking};
use serde_json::Value;

const RTX_3090: &str = "nvidia-geforce-rtx-3090";

fn catalog() -> Catalog {
    kraftwerk::catalog::builtin().expect("built-in catalog")
}

fn json(args: &[&str]) -> Value {
    let o = support::kw(args);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}\n{out}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

/// The goal of the issue: Llama 3.1 70B at 4 bits, one RTX 3090 owned, more bought used, $2,500
/// (Q4_K_M under llama.cpp: two 24 GB cards hold it; AWQ int4 under vLLM needs three).
const OWN_ONE: [&str; 10] =
    ["plan", "--model", "llama-3.1-70b", "--precision", "q4_k_m", "--own", "1x", RTX_3090, "--used", "--budget-usd"];

fn cli_goal(args: &[&str]) -> Goal {
    use clap::Parser;
    let mut all = vec!["kraftwerk"];
    all.extend(args);
    let cli = kraftwerk::cli::Cli::try_parse_from(all).expect("the arguments parse");
    match cli.command {
        Some(kraftwerk::cli::Command::Plan(a)) => kraftwerk::cli::plan_cmd::goal(&a).expect("a goal"),
        other => panic!("not a plan command: {other:?}"),
    }
}

/// `--own 1x ID`, `--own "1x ID"` and `--own ID` read as counts, and counts of one id add up.
#[test]
fn owned_parts_read_counts_and_accumulate() {
    let one = |id: &str, count| OwnedPart { id: id.into(), count };
    assert_eq!(owned_parts(&["1x", RTX_3090]).expect("1x ID"), vec![one(RTX_3090, 1)]);
    assert_eq!(owned_parts(&[&format!("2x {RTX_3090}")]).expect("2x ID"), vec![one(RTX_3090, 2)]);
    assert_eq!(owned_parts(&[RTX_3090, RTX_3090]).expect("ID ID"), vec![one(RTX_3090, 2)]);
    assert_eq!(
        owned_parts(&["1x nvidia-geforce-rtx-3090, asus-pro-ws-wrx80e-sage-se-wifi"]).expect("the tab's list"),
        vec![one(RTX_3090, 1), one("asus-pro-ws-wrx80e-sage-se-wifi", 1)]
    );
    assert!(owned_parts(&["0x", RTX_3090]).is_err(), "a count of 0");
    assert!(owned_parts(&["2x"]).is_err(), "a count without an id");
    // Two owned GPU models: no "two must-have parts of kind gpu" (the build uses either).
    let mut g = cli_goal(&["plan", "--model", "llama-3.1-8b", "--own", RTX_3090, "--own", "nvidia-geforce-rtx-4090"]);
    g.max_results = 1;
    let out = plan_blocking(&catalog(), &g).expect("two owned GPU models are a goal");
    assert!(!out.results.is_empty(), "{:?}", out.rejected);
}

/// One owned RTX 3090 of a 2x 3090 plan costs one card (the bought one, used), not zero and not
/// two; the saved build lists `1x` owned and `fit` on it costs what the plan said; the Plan
/// tab's form with the same goal makes the same goal (the one core function) and the same total.
#[test]
fn one_owned_3090_of_two_costs_one_card_in_cli_and_plan_tab() {
    let dir = std::env::temp_dir().join(format!("kraftwerk-plan-levers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out_dir = dir.to_string_lossy().to_string();
    let mut args = OWN_ONE.to_vec();
    args.extend(["2500", "--max-results", "1", "--format", "json", "--out", &out_dir]);
    let p = json(&args);
    let r = &p["results"][0];
    let lines = r["eval"]["parts"].as_array().unwrap_or_else(|| panic!("a result: {p}"));
    let cards: Vec<&Value> = lines.iter().filter(|l| l["id"] == RTX_3090).collect();
    let owned: f64 =
        cards.iter().filter(|l| l["owned"] == Value::Bool(true)).map(|l| l["quantity"].as_f64().unwrap_or(0.0)).sum();
    let bought: Vec<&&Value> = cards.iter().filter(|l| l["owned"] == Value::Bool(false)).collect();
    assert!((owned - 1.0).abs() < 1e-9, "one card owned: {cards:?}");
    assert_eq!(bought.len(), 1, "and one line of cards bought: {cards:?}");
    assert_eq!(bought[0]["quantity"].as_f64(), Some(1.0), "one card bought: {cards:?}");
    let card_price = bought[0]["unit_price_usd"].as_f64().expect("the bought card has a price");
    assert!(card_price > 0.0 && bought[0]["used"] == Value::Bool(true), "priced used: {:?}", bought[0]);
    let total: f64 = lines
        .iter()
        .filter_map(|l| l["unit_price_usd"].as_f64().map(|u| u * l["quantity"].as_f64().unwrap_or(1.0)))
        .sum();
    let plan_total = r["price_usd"].as_f64().expect("total");
    assert!((plan_total - total).abs() < 1e-6, "the total is its lines: {plan_total} vs {total}");
    let file = dir.join("plan-1.rig.ron");
    let c = catalog();
    let b: kraftwerk::rig::Build = kraftwerk::rig::load(&file, Some(&c)).expect("saved build");
    assert_eq!(b.gpus.len(), 2, "2x RTX 3090");
    assert_eq!(b.owned, vec![format!("1x {RTX_3090}")], "the saved build owns one card");
    let fit = json(&["fit", &file.to_string_lossy(), "--format", "json"]);
    let fit_usd = fit["cost"]["hardware_usd"].as_f64().expect("fit hardware");
    assert!((fit_usd - plan_total).abs() < 1e-6, "fit on the saved build: {fit_usd} vs the plan's {plan_total}");
    // `prices`, `compare` and the Parts tab (which draws `PartsList::of`) charge the owned card
    // $0 too (before: they charged both cards, $2,124 against the plan's $1,420).
    let path = file.to_string_lossy().to_string();
    let prices = json(&["prices", &path, "--format", "json"]);
    let prices_usd = prices["total_usd"].as_f64().expect("prices total");
    assert!((prices_usd - plan_total).abs() < 1e-6, "prices: {prices_usd} vs the plan's {plan_total}");
    let cmp = json(&["compare", &path, &path, "--format", "json"]);
    let cmp_usd = cmp["builds"][0]["parts_usd"].as_f64().expect("compare parts");
    assert!((cmp_usd - plan_total).abs() < 1e-6, "compare: {cmp_usd} vs the plan's {plan_total}");
    let list = kraftwerk::rig::parts_list::PartsList::of(&b, &c);
    assert!((list.total_usd - plan_total).abs() < 1e-6, "Parts tab: {} vs {plan_total}", list.total_usd);
    let owned_rows: Vec<_> = list.rows.iter().filter(|r| r.line.owned()).collect();
    assert_eq!(owned_rows.len(), 1, "one owned line: {:?}", list.rows);
    assert_eq!((owned_rows[0].line.id.as_str(), owned_rows[0].line.quantity), (RTX_3090, 1));
    let fit_text = String::from_utf8_lossy(&support::kw(&["fit", &path]).stdout).into_owned();
    let stale = fit_text.lines().find(|l| l.contains("prices older than")).unwrap_or_default();
    assert_eq!(stale.matches("RTX 3090").count(), 1, "only the bought card's price is stale: {stale}");

    // The Plan tab: its owned list with a count, the same goal as the CLI's, the same total.
    let mut form = kraftwerk::ui::tabs::plan::GoalForm {
        model: "llama-3.1-70b".into(),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Q4_K_M),
        owned: format!("1x {RTX_3090}"),
        used: true,
        budget_usd: 2500.0,
        tok_s: 0.0,
        ..Default::default()
    };
    let tab = form.goal().expect("the tab's goal");
    let mut cli = cli_goal(&OWN_ONE.iter().copied().chain(["2500"]).collect::<Vec<_>>());
    cli.max_results = tab.max_results;
    assert_eq!(tab, cli, "the Plan tab and the CLI read the same goal");
    let out = plan_blocking(&c, &tab).expect("plan");
    let first: &PlanResult = out.results.first().expect("the tab's plan has an answer");
    assert!((first.price_usd - plan_total).abs() < 1e-6, "tab {} vs CLI {plan_total}", first.price_usd);
    form.owned = "2x".into();
    assert!(form.goal().is_err(), "a count without an id is refused in the tab too");
    let _ = std::fs::remove_dir_all(&dir);
}

/// 4x RTX 3090 (Llama 3.1 70B at Q8_0 needs four 24 GB cards) on one circuit.
fn four_3090(mains_v: f64, breaker_a: f64) -> Goal {
    Goal {
        model: ModelRef::Preset("llama-3.1-70b".into()),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Q8_0),
        mains_v,
        breaker_a,
        used: true,
        must_have: vec![RTX_3090.into()],
        max_results: 5,
        ..Goal::default()
    }
}

/// What every answer must satisfy: `check` on the saved build has no error and no
/// `psu-transient` finding, nor a `system-ram` one (RAM as `check` wants it); and no result has
/// a card on chipset or x1 links while another result has the same cards on CPU lanes.
fn assert_signed(c: &Catalog, results: &[PlanResult]) {
    for r in results {
        let report = kraftwerk::check::run(&r.build, c);
        assert_eq!(report.errors, 0, "{}: {:?}", r.title, report.findings);
        for f in report.findings.iter().filter(|f| f.kind == FindingKind::Problem) {
            assert_ne!(f.rule, "psu-transient", "{}: {}", r.title, f.message);
            // RAM as the rule asks for, unless the board (or CPU) holds no more.
            if f.rule == "system-ram" {
                let m = r.build.memory.as_ref().expect("memory");
                let installed = c.memory_kit(&m.kit).expect("kit").total_gb() * u32::from(m.kits);
                let board = r.build.motherboard.as_deref().and_then(|b| c.motherboard(b)).expect("board");
                let cpu = r.build.cpu.as_deref().and_then(|x| c.cpu(x)).expect("cpu");
                let max = board.max_memory_gb.into_iter().chain(cpu.max_memory_gb).min();
                assert_eq!(Some(installed), max, "{}: {} ({:?})", r.title, f.message, f.severity);
            }
        }
        let poor = kraftwerk::plan::judge::poor_links(&r.eval);
        if poor > 0 {
            let clean = results.iter().any(|o| o.gpus == r.gpus && kraftwerk::plan::judge::poor_links(&o.eval) == 0);
            assert!(!clean, "{} puts {poor} card(s) on chipset or x1 links beside a CPU-lane answer", r.title);
        }
    }
}

/// 4x RTX 3090 on 230 V / 16 A (before: one 2050 W ATX 2.x unit whose 1 ms peak reaches about
/// 2,350 W, only a `check` warning, was the answer). Every answer keeps its PSUs' 1 ms peaks;
/// with the card's minimum power limit in the built-in catalog (100 W, read from published
/// `nvidia-smi -q` output: catalog/gpus.ron), the goal is answered with a power limit or more PSU
/// capacity and `check` finds no error in it.
#[test]
fn four_3090_on_230_v_16_a_is_answered_with_a_cap_or_enough_psu() {
    let c = catalog();
    let out = plan_blocking(&c, &four_3090(230.0, 16.0)).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer: {:?}", out.rejected));
    assert_eq!(first.build.gpus.len(), 4, "{}", first.title);
    assert_signed(&c, &out.results);
}

/// 4x RTX 3090 on one 120 V / 15 A circuit (issue 36's power-limit goal; Joe Barrow's
/// one-outlet 4-GPU workstation, https://jbarrow.ai/2026-05-18-gpu-workstation/): at the default
/// 350 W limits the machine is over the circuit's 12 A continuous limit, so the answer caps every
/// card with `nvidia-smi -pl` at a limit the card can be set to (the RTX 3090's 100 W minimum,
/// read from published `nvidia-smi -q` output: catalog/gpus.ron), and `check` finds no error in
/// it. The goal carries issue 36's $8,000 (without a budget the search still ends on the circuit:
/// a known gap). Before the catalog had the minimum, the cap was never applied and the goal had
/// no answer.
///
/// The answer's PSU is one `check` can verify at 120 V: its `psu-capacity` and `psu-transient`
/// rules run on it (before, the answer rested on the SilverStone HELA 2050, a 230 V unit whose
/// 100-120 V rating is not published, so those rules are not checked for it at 120 V). No speed
/// target here: every checkable unit that carries four capped cards is a 1600 W unit without an
/// ATX 3.x excursion table, whose 1 ms peak holds the cap at 210-225 W; at that cap the
/// memory-bound decode keeps about 95 % (the decode curve), which meets issue 36's 10 tok/s
/// (`plan_acceptance` goal 7 holds that goal).
#[test]
fn four_3090_on_120_v_15_a_is_capped() {
    let c = catalog();
    let min_w = c.gpu_or_card(RTX_3090).and_then(|g| g.min_power_limit_w).expect("the RTX 3090's minimum limit");
    let goal = Goal { budget_usd: Some(8000.0), ..four_3090(120.0, 15.0) };
    let out = plan_blocking(&c, &goal).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer: {:#?}", out.rejected));
    assert_eq!(first.build.gpus.len(), 4, "{}", first.title);
    let cap = first.eval.power_cap.as_ref().unwrap_or_else(|| panic!("{}: a power cap", first.title));
    assert!(cap.limit_w >= min_w && cap.limit_w < 350.0, "{}: {cap:?}", first.title);
    assert!(cap.command.contains(&format!("nvidia-smi -pl {:.0}", cap.limit_w)), "{cap:?}");
    assert!(cap.throughput_kept < 1.0 && cap.throughput_kept > 0.5, "{}: {cap:?}", first.title);
    for r in &out.results {
        let report = kraftwerk::check::run(&r.build, &c);
        let unchecked: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::NotChecked && f.rule.starts_with("psu-"))
            .map(|f| f.message.as_str())
            .collect();
        assert!(unchecked.is_empty(), "{}: its PSU is not checked at 120 V: {unchecked:?}", r.title);
    }
    assert_signed(&c, &out.results);
}

/// Issue 36 item 4, a second PSU as a lever before a power cap: 4x RTX 3090 (Llama 3.1 70B at
/// Q8_0, used, $8,000) on one 230 V / 16 A circuit. No single PSU of the built-in catalog
/// carries the cards at their default 350 W within the 80 % guideline and through their 1 ms
/// peak, and no priced case of known figures is sourced to hold two PSUs, so the built-in answer
/// is capped with `nvidia-smi -pl` ([`four_3090_on_230_v_16_a_is_answered_with_a_cap_or_enough_psu`]).
/// Given a case that holds two PSUs (a FIXTURE: the built-in answer's own case with two PSU
/// mounts and $2,000 dearer, so that the uncapped machine costs more than the capped one; no
/// catalog figure), the answer runs the cards uncapped on two PSUs on
/// the one circuit, although the capped machine in the one-PSU case is cheaper: a cap costs the
/// user speed, so it is planned only where no uncapped arrangement of the same cards meets the
/// goal within budget and circuit. The answer names what the `multi-psu` rule asks for (add2psu
/// / sync board, one ground, the circuit), and `check` on its saved build agrees. On 120 V /
/// 15 A (1440 W continuous) the same catalog still caps: the circuit binds there, not the PSU
/// (at the cap, about 210 W a card, memory-bound decode keeps about 95 % of its speed, so the
/// capped machine meets the goal's 10 tok/s).
#[test]
fn a_second_psu_comes_before_a_power_cap_on_230_v() {
    let mut c = catalog();
    let goal = Goal { budget_usd: Some(8000.0), tok_s: 10.0, ..four_3090(230.0, 16.0) };
    let out = plan_blocking(&c, &goal).expect("plan");
    let capped = out.results.first().unwrap_or_else(|| panic!("an answer: {:#?}", out.rejected));
    assert!(capped.eval.power_cap.is_some(), "{}: the built-in answer is no longer capped", capped.title);
    let case_id = capped.build.case.clone().expect("a case");
    let mut two = c.case(&case_id).expect("the answer's case").clone();
    assert_eq!(two.psu_bays, 1, "{case_id}");
    two.id = format!("fixture-two-psu-{case_id}");
    two.psu_bays = 2;
    two.price_usd = two.price_usd.map(|p| p + 2000.0);
    let fixture = kraftwerk::catalog::PartsFile { cases: vec![two.clone()], ..Default::default() };
    c.merge(fixture, &kraftwerk::catalog::Origin::Unknown);

    let out = plan_blocking(&c, &goal).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer: {:#?}", out.rejected));
    assert_eq!(first.build.gpus.len(), 4, "{}", first.title);
    assert_eq!(first.build.case.as_deref(), Some(two.id.as_str()), "{}", first.title);
    assert!(first.eval.power_cap.is_none(), "{}: capped: {:?}", first.title, first.eval.power_cap);
    assert!(first.build.gpus.iter().all(|g| g.power_limit_w.is_none()), "{}", first.title);
    assert!(first.price_complete && first.price_usd > capped.price_usd, "{} at {}", first.title, first.price_usd);
    assert_eq!(first.build.psus.len(), 2, "{}: {:?}", first.title, first.build.psus);
    assert!(first.build.psus.iter().all(|p| p.circuit == 0), "one circuit: {:?}", first.build.psus);
    let note = first.eval.multi_psu.as_deref().unwrap_or_else(|| panic!("{}: no multi-PSU note", first.title));
    assert!(note.starts_with("2 PSUs: PSU 1 feeds the board, CPU and GPU"), "{note}");
    assert!(note.contains("add2psu / sync board") && note.contains("all on circuit 1 (16 A at 230 V)"), "{note}");
    let text = kraftwerk::report::plan::text(&out, &[]);
    assert!(text.contains(&format!("   PSUs: {note}")), "{text}");
    // `check` on the saved build: the multi-psu rule's own finding asks for the same.
    let report = kraftwerk::check::run(&first.build, &c);
    assert!(
        report.findings.iter().any(|f| f.rule == "multi-psu" && f.message.contains("sync board")),
        "{:?}",
        report.findings
    );
    for r in out.results.iter().filter(|r| r.gpus == first.gpus) {
        assert!(r.eval.power_cap.is_none(), "{} is capped beside the uncapped {}", r.title, first.title);
    }
    assert_signed(&c, &out.results);

    let goal = Goal { budget_usd: Some(8000.0), tok_s: 10.0, ..four_3090(120.0, 15.0) };
    let out = plan_blocking(&c, &goal).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer on 120 V: {:#?}", out.rejected));
    assert!(first.eval.power_cap.is_some(), "{}: uncapped on 120 V / 15 A", first.title);
    assert!(first.eval.decode_per_user.is_some_and(|d| d >= 10.0), "{}: {:?}", first.title, first.eval.decode_per_user);
    assert_signed(&c, &out.results);
}

/// 4x H100 PCIe (a card whose minimum limit is published) for Llama 3.1 405B on one 120 V / 15 A
/// circuit: full load is over the circuit's continuous limit or the PSU's 1 ms peak, so the
/// answer caps every card (`nvidia-smi -pl`), the saved build carries the limit, `check` on it
/// passes, the decode is the fit's times the curve's share, and the text says so.
///
/// The passive cards need server airflow, and the built-in catalog's one such chassis (the
/// SilverStone RM42-502) has 7 expansion-slot openings: four dual-slot cards take at least 8
/// wherever they sit, so the built-in catalog has no answer, and says it is the slots (before,
/// the answer was that impossible machine, on a board whose slot positions are unknown). The
/// lever is tried on a FIXTURE: that chassis with 8 openings (no catalog figure).
#[test]
fn four_h100_on_120_v_15_a_is_capped_with_its_command_and_cost() {
    let mut c = catalog();
    let g = Goal {
        model: ModelRef::Preset("llama-3.1-405b".into()),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Int4),
        must_have: vec!["nvidia-h100-pcie".into()],
        max_results: 2,
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(out.results.is_empty(), "{}", out.results[0].title);
    assert!(
        out.rejected.iter().any(|r| r.constraint == kraftwerk::plan::Constraint::Slots
            && r.reason.contains("2 slots each")
            && r.reason.contains("the cards are passive")),
        "{:?}",
        out.rejected
    );
    let mut eight = c.case("silverstone-rm42-502").expect("the RM42-502").clone();
    eight.id = "fixture-rack-chassis-8-openings".into();
    eight.expansion_slots = 8;
    c.merge(
        kraftwerk::catalog::PartsFile { cases: vec![eight], ..Default::default() },
        &kraftwerk::catalog::Origin::Unknown,
    );
    let out = plan_blocking(&c, &g).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer with a power limit: {:?}", out.rejected));
    let cap = first.eval.power_cap.as_ref().unwrap_or_else(|| panic!("a capped answer: {}", first.title));
    assert!(cap.limit_w < 350.0 && cap.limit_w >= 200.0, "{cap:?}");
    assert_eq!(cap.command, format!("sudo nvidia-smi -pl {:.0}", cap.limit_w));
    assert!(cap.throughput_kept < 1.0 && cap.throughput_kept > 0.5, "{cap:?}");
    assert!(first.build.gpus.iter().all(|g| g.power_limit_w == Some(cap.limit_w)), "the build carries the limit");
    let model = kraftwerk::plan::model::resolve_model(&c, &g.model).expect("model");
    let fit = kraftwerk::estimate::fit::for_build(
        &first.build,
        &c,
        &kraftwerk::plan::estimate::fit_options(&first.build, &model, &g),
    )
    .expect("fit");
    // `fit` on the saved (capped) build prints the plan's decode and says it is at the limits;
    // the same build at the default limits is faster, by no more than the compute curve says.
    let at_cap = fit.fit.speed.as_ref().map(|s| s.decode_per_sequence_tokens_per_s).expect("a speed");
    let d = first.eval.decode_per_user.expect("decode");
    assert!((d - at_cap).abs() < 1e-9 * at_cap.max(1.0), "plan {d} vs fit {at_cap}");
    assert!(
        fit.fit
            .notes
            .iter()
            .any(|n| n.contains("speeds at the build's power limits") && n.contains(&format!("{:.0} W", cap.limit_w))),
        "{:?}",
        fit.fit.notes
    );
    // A measurement to compare with these speeds is taken at the cap.
    assert!(
        fit.fit
            .speed_basis
            .measure
            .starts_with(&format!("sudo nvidia-smi -pm 1 && sudo nvidia-smi -pl {:.0} (", cap.limit_w)),
        "{}",
        fit.fit.speed_basis.measure
    );
    let mut open = first.build.clone();
    for g in &mut open.gpus {
        g.power_limit_w = None;
    }
    let uncapped =
        kraftwerk::estimate::fit::for_build(&open, &c, &kraftwerk::plan::estimate::fit_options(&open, &model, &g))
            .expect("fit")
            .fit
            .speed
            .map(|s| s.decode_per_sequence_tokens_per_s)
            .expect("a speed");
    assert!(
        d < uncapped && d >= uncapped * cap.throughput_kept.min(cap.decode_kept) - 1e-9,
        "capped {d} vs default limits {uncapped}: {cap:?}"
    );
    assert!(cap.decode_kept > cap.throughput_kept, "{cap:?}");
    for r in &out.results {
        assert_eq!(kraftwerk::check::run(&r.build, &c).errors, 0, "{}", r.title);
    }
    let text = kraftwerk::report::plan::text(&out, &[]);
    assert!(
        text.contains(&format!("cap each GPU at {:.0} W", cap.limit_w)) && text.contains("nvidia-smi -pl"),
        "{text}"
    );
}

/// The first new-cards answer for 70B at int4 (before: $1,800 of GPUs on a 1350 W ATX 2.x unit
/// whose 1 ms peak is 1,518 W) and a 2x 24 GB answer whose RAM `check` then found short
/// (64 GB; it asks for twice the VRAM).
#[test]
fn new_cards_70b_answers_keep_the_1_ms_peak_and_the_ram_check_wants() {
    let c = catalog();
    let g = Goal {
        model: ModelRef::Preset("llama-3.1-70b".into()),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Int4),
        max_results: 5,
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{:?}", out.rejected);
    assert_signed(&c, &out.results);
}

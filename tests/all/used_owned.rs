//! Used and owned parts in build files and plans: a plan priced with used
//! cards saves `used: [...]` and its saved build costs in `fit`, `prices` and `compare` what the
//! plan said; `plan --own` takes a partner card's id and charges owned parts $0.

use super::support;
use kraftwerk::catalog;
use kraftwerk::rig::Build;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kraftwerk-used-owned-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs kraftwerk and parses its stdout as JSON (exit status asserted 0).
fn json(args: &[&str]) -> Value {
    let o = support::kw(args);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}\n{out}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

fn num(v: &Value, what: &str) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{what} is not a number: {v}"))
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{what}: {a} vs the plan's {b}");
}

fn plan_to(dir: &Path, extra: &[&str]) -> Value {
    let out = dir.to_string_lossy().to_string();
    let mut args = vec!["plan", "--max-results", "1", "--format", "json", "--out", &out];
    args.extend(extra);
    json(&args)
}

/// The tryout's goal (Qwen2.5-32B under $3000 with used cards: 2x RTX 3060 used, $903): the
/// saved build lists its used cards, and `fit`, `prices` and `compare` on it give the plan's
/// hardware total and $/Mtok (before, they priced the cards new or not at all).
#[test]
fn saved_used_plan_costs_what_the_plan_said() {
    let dir = tmp("used");
    let planned = plan_to(&dir, &["--model", "qwen2.5-32b", "--budget-usd", "3000", "--used"]);
    let r = &planned["results"][0];
    let total = num(&r["price_usd"], "plan total");
    let mtok = num(&r["eval"]["usd_per_mtok"], "plan $/Mtok");
    let used: Vec<&str> = r["eval"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter(|l| l["used"] == Value::Bool(true))
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert!(!used.is_empty(), "the plan prices a used part: {r}");

    let file = dir.join("plan-1.rig.ron");
    let cat = catalog::builtin().expect("catalog");
    let saved: Build = kraftwerk::rig::load(&file, Some(&cat)).expect("saved build");
    assert_eq!(saved.used, used, "plan --out writes the parts it priced used");
    let text = std::fs::read_to_string(&file).expect("read");
    assert!(text.contains("used: ["), "{text}");

    let path = file.to_string_lossy().to_string();
    let fit = json(&["fit", &path, "--format", "json"]);
    close(num(&fit["cost"]["hardware_usd"], "fit hardware"), total, "fit hardware");
    close(num(&fit["cost"]["usd_per_million_tokens"], "fit $/Mtok"), mtok, "fit $/Mtok");
    assert_eq!(fit["cost"]["missing_prices"], serde_json::json!([]), "{}", fit["cost"]);

    let prices = json(&["prices", &path, "--format", "json"]);
    close(num(&prices["total_usd"], "prices total"), total, "prices total");

    // compare ranks it with its GPUs counted, at the plan's $/Mtok.
    let cmp = json(&["compare", &path, &path, "--format", "json"]);
    close(num(&cmp["builds"][0]["parts_usd"], "compare parts"), total, "compare parts");
    close(num(&cmp["builds"][0]["usd_per_million_tokens"], "compare $/Mtok"), mtok, "compare $/Mtok");

    // export's PCPartPicker list totals the same and says which prices are used ones.
    let o = support::kw(&["export", "--list", "markdown", &path]);
    let md = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{md}");
    assert!(md.contains(&format!("**{}**", kraftwerk::fmt::usd(total))), "export total {total}: {md}");
    assert!(md.contains("(used, "), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A part a build marks used that no source prices used is unpriced with the reason, never
/// at its new price; owned parts cost $0.
#[test]
fn used_without_a_cited_price_is_unpriced_and_owned_is_free() {
    let c = catalog::builtin().expect("catalog");
    let mut b: Build =
        kraftwerk::rig::load(Path::new(&support::builds("2x-rtx-4090-x870e.rig.ron")), Some(&c)).expect("build");
    // A GPU with a new price (the RTX 4090's is withheld by the price method, issue 38): the
    // first street-priced RTX 5090 partner card.
    let gpu = c
        .gpu_cards
        .iter()
        .find(|k| k.chip == "nvidia-geforce-rtx-5090" && k.price_usd.is_some())
        .map(|k| k.id.clone())
        .expect("a priced RTX 5090 card");
    for g in &mut b.gpus {
        g.gpu.clone_from(&gpu);
    }
    let psu = b.psus[0].psu.clone();
    let list = kraftwerk::rig::parts_list::PartsList::of(&b, &c);
    let new_total = list.total_usd;
    let psu_line = list.rows.iter().find(|r| r.line.id == psu).and_then(|r| r.line_usd).expect("PSU priced new");
    // The PSU has no cited used price (used.json lists GPUs and server CPUs).
    assert!(kraftwerk::catalog::cited::used_price_in(&c, &psu).is_none());
    b.used = vec![psu.clone()];
    b.owned = vec![gpu.clone()];
    let list = kraftwerk::rig::parts_list::PartsList::of(&b, &c);
    let row = list.rows.iter().find(|r| r.line.id == psu).expect("PSU row");
    assert_eq!(row.line.unit_price_usd, None, "a used part without a used price is not priced new");
    assert_eq!(row.line.price_source.as_deref(), Some("used: no cited used price"));
    let g = list.rows.iter().find(|r| r.line.id == gpu).expect("GPU row");
    assert_eq!(g.line_usd, Some(0.0), "owned GPUs cost $0");
    assert_eq!(g.line.price_source.as_deref(), Some("owned"));
    let gpu_new = kraftwerk::rig::parts_list::PartsList::of(&Build { used: vec![], owned: vec![], ..b.clone() }, &c)
        .rows
        .iter()
        .find(|r| r.line.id == gpu)
        .and_then(|r| r.line_usd)
        .expect("GPU priced new");
    assert!((list.total_usd - (new_total - psu_line - gpu_new)).abs() < 1e-6, "{} vs {new_total}", list.total_usd);
}

/// `plan --own <partner card id>` plans with that card (it was folded into a twin card of its
/// class, so the search found nothing and said nothing), and the owned card costs $0.
#[test]
fn own_a_partner_card_plans_with_it_at_no_cost() {
    const CARD: &str = "evga-geforce-rtx-3090-ftw3-ultra-gaming-24gb-gddr6x";
    let dir = tmp("own");
    let p = plan_to(&dir, &["--model", "llama-3.1-8b", "--used", "--own", CARD]);
    let r = &p["results"][0];
    let lines = r["eval"]["parts"].as_array().expect("parts");
    let card = lines.iter().find(|l| l["id"] == CARD).unwrap_or_else(|| panic!("the owned card is in the plan: {r}"));
    assert_eq!(card["owned"], Value::Bool(true), "{card}");
    assert_eq!(card["unit_price_usd"].as_f64(), Some(0.0), "{card}");
    let others: f64 = lines
        .iter()
        .filter(|l| l["id"] != CARD)
        .filter_map(|l| l["unit_price_usd"].as_f64().map(|u| u * l["quantity"].as_f64().unwrap_or(1.0)))
        .sum();
    close(num(&r["price_usd"], "plan total"), others, "the total leaves the owned card out");

    let file = dir.join("plan-1.rig.ron");
    let c = catalog::builtin().expect("catalog");
    let b: Build = kraftwerk::rig::load(&file, Some(&c)).expect("saved build");
    assert_eq!(b.owned, vec![format!("1x {CARD}")], "plan --out writes the owned card, by count");
    let fit = json(&["fit", &file.to_string_lossy(), "--format", "json"]);
    close(num(&fit["cost"]["hardware_usd"], "fit hardware"), num(&r["price_usd"], "plan"), "fit hardware");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `plan --must-have <partner card id>` for a card the part views fold into a twin of its
/// class plans with that very card (seen failing: "0 fit estimates, 0 machines checked").
#[test]
fn must_have_a_twin_partner_card_plans_with_it() {
    const CARD: &str = "evga-geforce-rtx-3090-ftw3-ultra-gaming-24gb-gddr6x";
    let p = json(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--used",
        "--must-have",
        CARD,
        "--max-results",
        "1",
        "--format",
        "json",
    ]);
    let r = &p["results"][0];
    let card = r["eval"]["parts"].as_array().and_then(|l| l.iter().find(|l| l["id"] == CARD));
    let card = card.unwrap_or_else(|| panic!("the must-have card is in the plan: {p}"));
    assert_eq!(card["owned"], Value::Bool(false), "a must-have part is bought: {card}");
    assert!(card["unit_price_usd"].as_f64().is_some_and(|u| u > 0.0), "and costs its price: {card}");
}

/// An owned RTX 3090 is not bought, so it plans without `--used` (before: "sold used only
/// (allow used cards with --used)").
#[test]
fn an_owned_used_market_card_needs_no_used_flag() {
    let p = json(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--own",
        "nvidia-geforce-rtx-3090",
        "--max-results",
        "1",
        "--format",
        "json",
    ]);
    let lines = p["results"][0]["eval"]["parts"].as_array().unwrap_or_else(|| panic!("a result: {p}")).clone();
    let card = lines.iter().find(|l| l["id"] == "nvidia-geforce-rtx-3090").unwrap_or_else(|| panic!("{p}"));
    assert_eq!(card["owned"], Value::Bool(true), "{card}");
    assert!(lines.iter().all(|l| l["used"] == Value::Bool(false)), "nothing else is priced used: {lines:?}");
}

/// The README's hobbyist (issue 39): one RTX 3090 owned, Llama 3.1 70B, $5,000. The second card
/// has to be bought, and an RTX 3090 is sold used only, so without `--used` nothing meets the
/// goal; the answer names the option that finds the build (before: "with used cards allowed:
/// ..." and no flag, so the new user did not know what to type). With `--used` it plans.
#[test]
fn nothing_met_names_the_option_that_relaxes_it() {
    let args = ["plan", "--model", "llama-3.1-70b", "--own", "1x nvidia-geforce-rtx-3090", "--budget-usd", "5000"];
    let o = support::kw(&args);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("with used cards allowed"))
        .unwrap_or_else(|| panic!("the used-cards relaxation: {text}"));
    assert!(line.contains("used cards allowed (--used): 2x RTX 3090"), "{line}");
    let with_budget = text.lines().find(|l| l.contains("budget cannot be checked for them)"));
    if let Some(l) = with_budget {
        assert!(l.contains("(without --budget-usd)"), "{l}");
    }
    let mut used = args.to_vec();
    used.extend(["--used", "--format", "json", "--max-results", "1"]);
    let p = json(&used);
    let lines = p["results"][0]["eval"]["parts"].as_array().unwrap_or_else(|| panic!("a result: {p}")).clone();
    assert!(lines.iter().any(|l| l["id"] == "nvidia-geforce-rtx-3090" && l["owned"] == Value::Bool(true)), "{p}");
}

/// An owned card with no new price does not block a budget (new-user trial, 2026-12): the
/// catalog withholds the RTX 4090's 2022 launch price ($1,599, `catalog/gpus.ron`) as too old
/// to be today's new price (`price_method::STALE_NEW_AFTER_MONTHS`), so the chip is new-unpriced;
/// `--own 1x nvidia-geforce-rtx-4090 --budget-usd 1500` for GLM-4.5-Air at 10 tok/s printed
/// "Nothing in the catalog meets this goal" ("RTX 4090: price unknown, so the budget cannot be
/// checked") while its own "no budget" relaxation bought a $679 machine. An owned unit costs $0:
/// the plan is the $483.13 B550M machine ($426.18 before plans bought a drive, the $56.95 1 TB
/// Crucial P3 Plus; the card owned, $0; every other part priced: a
/// DDR4-3600 kit, since the Ryzen 5 4500 is rated DDR4-3200 by amd.com and runs no faster kit
/// faster, and an 80 PLUS Bronze PSU, since an unrated PSU leaves the wall circuit unchecked;
/// before both it was a $564.96 machine with a DDR4-4400 kit read at its rating).
/// A second card to buy still needs a price: Llama 3.1 70B on two RTX 4090s, one owned, is
/// refused on the unknown price of the one to buy.
#[test]
fn an_owned_card_without_a_price_does_not_block_the_budget() {
    const CARD: &str = "nvidia-geforce-rtx-4090";
    let c = catalog::builtin().expect("catalog");
    assert_eq!(c.gpu(CARD).map(|g| g.price_usd), Some(None), "the RTX 4090 is new-unpriced");
    let args = ["plan", "--model", "glm-4.5-air", "--own", "1x nvidia-geforce-rtx-4090", "--tok-s", "10"];
    let mut budget = args.to_vec();
    budget.extend(["--budget-usd", "1500", "--max-results", "1", "--format", "json"]);
    let p = json(&budget);
    let r = &p["results"][0];
    assert_eq!(r["price_complete"], Value::Bool(true), "{r}");
    close(num(&r["price_usd"], "plan total"), 483.13, "the B550M machine");
    assert!(r["title"].as_str().is_some_and(|t| t.contains("ASUS PRIME B550M-A WIFI II")), "{r}");
    let lines = r["eval"]["parts"].as_array().unwrap_or_else(|| panic!("a result: {p}"));
    let card = lines.iter().find(|l| l["id"] == CARD).unwrap_or_else(|| panic!("the owned card: {r}"));
    assert_eq!(card["owned"], Value::Bool(true), "{card}");
    assert_eq!(card["unit_price_usd"].as_f64(), Some(0.0), "{card}");

    let o = support::kw(&[
        "plan",
        "--model",
        "llama-3.1-70b",
        "--own",
        "1x nvidia-geforce-rtx-4090",
        "--budget-usd",
        "5000",
        "--tok-s",
        "5",
    ]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "[unknown figure] 2x RTX 4090: 1 to buy beyond the 1 owned, price unknown, so the budget cannot be checked"
        ),
        "{text}"
    );
}

/// With no budget the cheapest fully priced machine is found, and "N passed" is what is listed
/// plus what the closing line says is not (new-user trial, 2026-12). Goal: gpt-oss-120b at 20
/// tok/s, one RTX 3090 owned, used cards allowed, 30 results. With `--budget-usd 100000` the
/// first plan is the $673.19 split on the quad-channel ASUS X299 Prime X299-A II (the $530.98
/// split on the dual-channel B550M this test first named decoded 20 tok/s only with its
/// DDR4-4400 kit read at the kit's rating; its Ryzen 5 4500 is rated DDR4-3200, at which it
/// misses the goal). When the test was written, with no budget the unpriced
/// parts come in, that board's split took the faster DDR4-4600 kit of unknown price ("at least
/// $292") and the first plan was the $673 X299 machine, while the line said "9 passed" over 8
/// plans (one 3x RTX 3090 machine, power-capped, set aside for the same cards uncapped).
/// The owned card is named by its partner card (ASUS ROG Strix RTX 3090, three PCIe 8-pin
/// sockets): named by its chip it is not a known card, and every plan is UNVERIFIED on it
/// (`tests/all/regression/owned_chip.rs`); the Strix's sockets take a PSU $5 dearer
/// ($678.21 where the chip's reference board gave $673.19; $735.16 since plans buy a drive,
/// the $56.95 1 TB Crucial P3 Plus). The line said "8 passed (7 listed:
/// 1 set aside ...)" until the 230 V units' unpublished 120 V ratings were no longer taken as
/// their 230 V ones (branch lowline): the 3x RTX 3090 machine at its default limits rested on
/// such a unit and its capped arrangement was set aside for it; now the capped machine (290 W)
/// is listed and nothing is set aside, so 8 pass and 8 are listed.
#[test]
fn no_budget_finds_the_cheapest_fully_priced_build_and_counts_what_it_lists() {
    let goal = [
        "plan",
        "--model",
        "gpt-oss-120b",
        "--own",
        "1x asus-rog-strix-geforce-rtx-3090-24gb-gddr6x",
        "--used",
        "--tok-s",
        "20",
        "--max-results",
        "30",
    ];
    let run = |extra: &[&str]| {
        let mut a = goal.to_vec();
        a.extend(extra);
        a.extend(["--format", "json"]);
        json(&a)
    };
    let cheapest_complete = |p: &Value| -> (f64, String) {
        let rs = p["results"].as_array().unwrap_or_else(|| panic!("results: {p}"));
        rs.iter()
            .filter(|r| r["price_complete"] == Value::Bool(true))
            .map(|r| (num(&r["price_usd"], "price"), r["title"].as_str().unwrap_or_default().to_owned()))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap_or_else(|| panic!("a fully priced result: {p}"))
    };
    let budget = run(&["--budget-usd", "100000"]);
    let free = run(&[]);
    let (b, b_title) = cheapest_complete(&budget);
    close(b, 735.16, "the budget run's cheapest");
    assert!(b_title.contains("ASUS X299 Prime X299-A II"), "{b_title}");
    let first = &free["results"][0];
    assert_eq!(first["price_complete"], Value::Bool(true), "{first}");
    close(num(&first["price_usd"], "no budget, first"), b, "no budget finds the budget run's cheapest");
    assert_eq!(first["title"].as_str(), Some(b_title.as_str()));
    for p in [&budget, &free] {
        let s = &p["stats"];
        let count = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("stats.{k}: {s}"));
        let listed = p["results"].as_array().map_or(0, Vec::len) as u64;
        let accounted = listed + count("set_aside") + count("beyond_max");
        assert_eq!(count("passing"), accounted, "passed = listed + set aside + beyond: {s}");
    }
    let o = support::kw(&goal);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    // 58 checked (66 before the planner kept in-case cards within the case's openings on boards
    // without slot positions and paired two-socket boards with two-socket CPUs only: the
    // machines it no longer proposes failed the checker or were impossible); the 8 that pass
    // are the same. 57 since a hybrid split buys at least the VRAM in RAM (one board's memory
    // set no longer reaches it within the board's slots).
    assert!(text.contains("57 machines checked, 8 met the goal."), "{text}");
}

/// Review findings on the planner: owning two RTX 3090s must not lose the one-card split a
/// one-card owner gets (gpt-oss-120b at 15 tok/s on a $600 budget: "nothing" before, as only the
/// two-card split was tried), and "N passed" adds up when fewer results are asked for than
/// distinct GPU sets (`--max-results 2`: it said "8 listed" over 2 plans).
#[test]
fn owning_more_cards_never_loses_a_plan_and_the_count_adds_up_at_few_results() {
    let two = json(&[
        "plan",
        "--model",
        "gpt-oss-120b",
        "--tok-s",
        "15",
        "--budget-usd",
        "600",
        "--max-results",
        "1",
        "--own",
        "2x nvidia-geforce-rtx-3090",
        "--format",
        "json",
    ]);
    let first = &two["results"][0];
    assert!(first["title"].as_str().is_some_and(|t| t.starts_with("1x RTX 3090 + experts in RAM")), "{two}");
    assert!(num(&first["price_usd"], "price") <= 600.0, "{first}");
    let few = json(&[
        "plan",
        "--model",
        "gpt-oss-120b",
        "--own",
        "1x nvidia-geforce-rtx-3090",
        "--used",
        "--tok-s",
        "20",
        "--max-results",
        "2",
        "--format",
        "json",
    ]);
    let s = &few["stats"];
    let count = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("stats.{k}: {s}"));
    assert_eq!(few["results"].as_array().map_or(0, Vec::len), 2);
    assert_eq!(count("passing"), 2 + count("set_aside") + count("beyond_max"), "{s}");
}

/// A machine that meets the goal with fewer of the user's owned GPUs than they own says so in
/// the plan text and JSON (`eval.owned_unused`) instead of dropping the others silently: four
/// owned RTX 3090 Turbo for Llama 3.3 70B Q4_K_M at 9 tok/s are answered with two. Seen failing
/// before the line existed (the text listed "2 x ... owned, $0" and nothing else).
#[test]
fn owned_gpus_left_out_are_named() {
    let id = "asus-turbo-geforce-rtx-3090-24gb-gddr6x-black";
    let args = [
        "plan",
        "--model",
        "llama-3.3-70b",
        "--precision",
        "q4_k_m",
        "--tok-s",
        "9",
        "--own",
        "4x",
        id,
        "--max-results",
        "1",
    ];
    let o = support::kw(&args);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    let used = text.lines().find(|l| l.contains(id) || l.contains("owned, $0")).expect("an owned line");
    assert!(used.trim_start().starts_with("2 x "), "{text}");
    assert!(
        text.contains("owned GPUs: uses 2 of the 4 ASUS Turbo GeForce RTX 3090 24GB GDDR6X Black (GeForce RTX 3090) you own (the goal is met without the other 2)"),
        "{text}"
    );
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let v = json(&all);
    let unused = &v["results"][0]["eval"]["owned_unused"];
    assert!(unused[0].as_str().is_some_and(|s| s.starts_with("uses 2 of the 4")), "{unused}");
}

/// A machine that uses none of an owned GPU says so in those words ("uses none of the 2 ...
/// you own"), not "uses 0 of the 2": with two owned GPU models the build may use either, and
/// a result that uses neither names both; machines on each owned chip are among the answers.
#[test]
fn owned_gpus_a_machine_does_not_use_are_named() {
    let args = [
        "plan",
        "--model",
        "llama-3.1-8b",
        "--precision",
        "q4_k_m",
        "--own",
        "2x",
        "nvidia-geforce-rtx-3090",
        "--own",
        "1x",
        "nvidia-geforce-rtx-4090",
        "--max-results",
        "200",
        "--format",
        "json",
    ];
    let v = json(&args);
    let results = v["results"].as_array().expect("results");
    assert!(!results.is_empty(), "{v}");
    for r in results {
        let gpus = r["build"]["gpus"].to_string();
        let unused = r["eval"]["owned_unused"].to_string();
        for (id, name, n) in [
            ("nvidia-geforce-rtx-3090", "NVIDIA GeForce RTX 3090", 2),
            ("nvidia-geforce-rtx-4090", "NVIDIA GeForce RTX 4090", 1),
        ] {
            if !gpus.contains(&format!("\"{id}\"")) {
                assert!(unused.contains(&format!("uses none of the {n} {name} you own")), "{}: {unused}", r["title"]);
            }
        }
        assert!(!unused.contains("uses 0 of"), "{unused}");
    }
    // The owned chips are candidates (tried before bought cards of the same chip): machines on
    // each of them are among the answers, their units owned (an owned chip-named card is
    // UNVERIFIED, so they rank after verified machines). Seen failing before the owned cards
    // were tried first (no answer used either owned chip).
    for id in ["nvidia-geforce-rtx-3090", "nvidia-geforce-rtx-4090"] {
        assert!(
            results.iter().any(|r| r["build"]["owned"].to_string().contains(&format!("1x {id}"))),
            "no machine on the owned {id}"
        );
    }
}

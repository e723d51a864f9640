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

//! Street prices from the dataset's whole history (each with its own
//! data commit and date), memory kits priced at scale, costs that never compare or amortise
//! unpriced hardware as if it were priced, the planner on vLLM's own KV pool, CPUs that keep
//! the GPU links wide, and a chip's used price beside its partner cards.

use kraftwerk::catalog::{self, cited, street};
use kraftwerk::plan::goal::{Goal, ModelRef};
use kraftwerk::plan::plan_blocking;

/// The 2x RTX 4090 reference build.
fn reference(c: &catalog::Catalog) -> kraftwerk::rig::Build {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/2x-rtx-4090-x870e.rig.ron");
    kraftwerk::rig::load(&src, Some(c)).expect("reference build")
}

fn street_file() -> street::StreetFile {
    let (name, text) = street::STREET_FILE;
    street::parse_street_file(name, text).expect("catalog/prices/street.json")
}

/// Runs the binary with no user parts or prices: (exit code, stdout, stderr).
fn kw(args: &[&str]) -> (i32, String, String) {
    crate::support::kw_no_user_files(args)
}

#[test]
fn every_street_price_carries_its_own_data_commit_and_date() {
    let file = street_file();
    let m = &file.import;
    // The pin's data history (`git log -- data/json` at c52a04c): newest first, from the
    // 2025-07-23 update back to the v2 init of 2023-07-05.
    assert_eq!(m.commit, "c52a04ca9465c83997ed335f7767b09a2005dd26");
    assert_eq!(m.data_commits.len(), 13, "{:?}", m.data_commits);
    assert_eq!(m.data_commits[0].commit, "06ffc8eec068db5e8145e012ad2ec11e56a7c969");
    assert_eq!((m.data_commits[0].date.as_str(), m.date.as_str()), ("2025-07-23", "2025-07-23"));
    assert_eq!(m.data_commits.last().map(|c| c.date.as_str()), Some("2023-07-05"));
    assert!(m.data_commits.windows(2).all(|w| w[0].date >= w[1].date), "newest first");
    assert_eq!(street::problems(&file), Vec::<String>::new());

    // Prices from older data commits exist (parts no longer listed with a price in 2025-07)
    // and keep their own date on the part.
    let c = catalog::builtin().expect("catalog");
    let old: Vec<(&String, &street::StreetPrice)> =
        file.prices.motherboards.iter().filter(|(_, p)| p.date < m.date).collect();
    assert!(old.len() > 100, "only {} boards priced from older data", old.len());
    let (id, p) = old[0];
    let board = c.motherboard(id).expect("board in the catalog");
    if board.price_source.as_deref().is_some_and(|s| s.starts_with(&m.source)) {
        assert_eq!(board.price_date.as_deref(), Some(p.date.as_str()), "{id}");
        let s = board.price_source.as_deref().unwrap_or_default();
        assert!(s.contains(&format!("data of {}, {}", p.date, &p.commit[..7])), "{s}");
    }

    // Planted faults: a date that is not its commit's and a commit that was not read.
    let mut bad = file.clone();
    let (id, _) = old[0];
    let id = id.clone();
    if let Some(p) = bad.prices.motherboards.get_mut(&id) {
        p.date = "2025-07-23".into();
    }
    if let Some((_, p)) = bad.prices.cases.iter_mut().next() {
        p.commit = "0".repeat(40);
    }
    assert_eq!(street::problems(&bad).len(), 2, "{:?}", street::problems(&bad));
}

#[test]
fn an_old_street_price_shows_its_age_in_prices() {
    // A build whose board's newest priced listing is older than 12 months: `prices` says so.
    let file = street_file();
    let c = catalog::builtin().expect("catalog");
    let (id, p) = file
        .prices
        .motherboards
        .iter()
        .find(|(id, p)| {
            p.date.as_str() < "2025-01-01"
                && c.motherboard(id).is_some_and(|b| b.price_source.as_deref().is_some_and(|s| s.contains("data of")))
        })
        .expect("a board priced from 2024 data");
    let dir = std::env::temp_dir().join(format!("kraftwerk-prices-history-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("old-board.rig.ron");
    let mut b = reference(&c);
    b.motherboard = Some(id.clone());
    std::fs::write(&path, kraftwerk::rig::to_ron_string(&b).expect("ron")).expect("write");
    let (code, out, err) = kw(&["prices", &path.display().to_string(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let row = v["rows"].as_array().and_then(|r| r.iter().find(|r| r["id"] == id.as_str())).expect("board row");
    assert_eq!(row["price_date"], p.date.as_str());
    assert_eq!(row["stale"], true, "{row}");
    let (_, text, _) = kw(&["prices", &path.display().to_string()]);
    assert!(text.contains(&format!("{}, ", p.date)) && text.contains("months old"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_kits_are_priced_at_scale() {
    let file = street_file();
    let k = file.import.kinds.get("memory").expect("memory in the header");
    println!(
        "memory: {} of {} distinct priced listings matched ({} %)",
        k.matched_rows, k.priced_rows, k.match_rate_pct
    );
    // Before this round: 16 of 2,907 listings (0.6 %), 4 kits priced.
    assert!(k.match_rate_pct >= 40.0, "{k:?}");
    assert!(file.prices.memory.len() >= 1000, "{} kits priced", file.prices.memory.len());
    // A listing names vendor, series, speed, modules and CAS latency; the kit agrees on all.
    let c = catalog::builtin().expect("catalog");
    let mut priced = 0;
    for id in file.prices.memory.keys().take(200) {
        let kit = c.memory_kit(id).unwrap_or_else(|| panic!("{id} in the catalog"));
        // Priced, or withheld by the price method (a listing older than 36 months).
        let withheld = c.withheld_price(id);
        assert!(kit.price_usd.is_some() || !withheld.is_empty(), "{id}");
        priced += usize::from(kit.price_usd.is_some());
    }
    assert!(priced >= 150, "{priced} of the first 200 kits priced");
}

/// The 2x RTX 4090 reference build with its CPU swapped for an AM5 CPU without a price, as a
/// build file in a temporary directory.
fn partly_priced_build(c: &catalog::Catalog, dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let mut b = reference(c);
    let unpriced = c
        .cpus
        .iter()
        .find(|p| p.socket == "AM5" && p.price_usd.is_none() && kraftwerk::catalog::cited::used_price(&p.id).is_none())
        .expect("an unpriced AM5 CPU");
    b.cpu = Some(unpriced.id.clone());
    b.name = "partly priced".into();
    let path = dir.join("partly-priced.rig.ron");
    std::fs::write(&path, kraftwerk::rig::to_ron_string(&b).expect("ron")).expect("write");
    (path, unpriced.id.clone())
}

#[test]
fn compare_never_marks_a_partly_priced_build_best_on_cost() {
    let c = catalog::builtin().expect("catalog");
    let dir = std::env::temp_dir().join(format!("kraftwerk-compare-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (path, _) = partly_priced_build(&c, &dir);
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/builds/2x-rtx-4090-x870e.rig.ron");
    let a = kraftwerk::rig::load(&full, Some(&c)).expect("full");
    let b = kraftwerk::rig::load(&path, Some(&c)).expect("partly");
    let cmp = kraftwerk::compare::Comparison::of(&[(a, None), (b, None)], &c, Some("llama-3.1-70b"));
    // The swapped CPU is one more unpriced part (the reference build's kit and drive have no
    // street price either).
    assert_eq!(cmp.builds[1].unpriced_parts, cmp.builds[0].unpriced_parts + 1);
    // The partly priced build's priced lines sum to less (its CPU is left out): it would be
    // "best" if sums were compared.
    assert!(cmp.builds[1].parts_usd < cmp.builds[0].parts_usd);
    for name in ["Parts cost (priced lines)", "$ per million tokens"] {
        let row = cmp.rows.iter().find(|r| r.name == name).expect("row");
        assert!(row.best.is_empty(), "{name}: {:?}", row.values);
        // Issue 39: the partly priced build's money figures say "at least".
        assert!(row.values[1].starts_with("at least $") || row.values[1] == "unknown", "{name}: {:?}", row.values);
    }
    assert!(!cmp.text().lines().any(|l| l.contains("cost") && l.contains("(best)")), "{}", cmp.text());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fit_gives_a_payback_time_over_unpriced_hardware_only_as_a_named_lower_bound() {
    let c = catalog::builtin().expect("catalog");
    let dir = std::env::temp_dir().join(format!("kraftwerk-fit-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (path, cpu) = partly_priced_build(&c, &dir);
    let (_, out, err) = kw(&["fit", &path.display().to_string(), "--model", "llama-3.1-8b", "--precision", "bf16"]);
    let cost = out.lines().find(|l| l.trim_start().starts_with("cost:")).unwrap_or_else(|| panic!("{out}{err}"));
    assert!(cost.contains("at least $"), "$/Mtok over unpriced hardware is a lower bound: {cost}");
    let cloud = out.lines().find(|l| l.trim_start().starts_with("cloud")).unwrap_or_else(|| panic!("{out}"));
    if !cloud.contains("no break-even") {
        assert!(cloud.contains("after at least") && cloud.contains("lower bound") && cloud.contains(&cpu), "{cloud}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn goal(model: &str, precision: &str) -> Goal {
    Goal { model: ModelRef::Preset(model.into()), precision: precision.parse().expect("precision"), ..Goal::default() }
}

/// gpt-oss-20b at BF16, 8k context, on vLLM: two 24 GB cards pass the headroom verdict
/// (23.8 of 24 GiB per card at tensor parallel 2) but at vLLM's default `--max-num-seqs` its KV
/// pool on them holds no sequence (its profiling sampler step and CUDA graphs take the rest;
/// `kraftwerk fit ... --runtime vllm` says so), so vLLM would refuse to start. The planner
/// proposes such a build only at the lower `--max-num-seqs` `fit` names as the remedy, saved in
/// the build, with a pool that holds the context at it; never at the default.
#[test]
fn a_vllm_goal_is_planned_on_vllms_own_kv_pool() {
    let c = catalog::builtin().expect("catalog");
    let g = Goal {
        runtime: Some(kraftwerk::estimate::llm::Runtime::Vllm),
        context: Some(8192),
        used: true,
        max_gpus: 2,
        max_results: 40,
        ..goal("gpt-oss-20b", "bf16")
    };
    let out = plan_blocking(&c, &g).expect("plan");
    let mut small = 0;
    for r in &out.results {
        let id = &r.build.gpus[0].gpu;
        let mem = c.gpu_or_card(id).expect("card").memory_gib;
        if r.build.gpus.len() == 2 && mem <= 24.0 {
            small += 1;
            let s = r.eval.vllm_setting.as_ref().unwrap_or_else(|| panic!("{}: at vLLM's default", r.title));
            assert!(s.max_num_seqs < s.default_max_num_seqs, "{}: {s:?}", r.title);
            assert!(s.kv_tokens >= 8192, "{}: the pool holds the context: {s:?}", r.title);
            let saved = r.build.workload.as_ref().and_then(|w| w.max_num_seqs);
            assert_eq!(saved, Some(s.max_num_seqs), "{}: the setting is saved", r.title);
        }
    }
    assert!(small > 0, "two 24 GB cards at a lowered --max-num-seqs are among the answers");
}

/// The 70B goal on the MSI MPG X870E Carbon: its two CPU-wired x16 slots have 16 and 4
/// electrical lanes with a Raphael or Granite Ridge CPU, but a Phoenix APU (Ryzen 8400F,
/// 8500G, 8600G, 8700G) gives the first x8 (x4 for the 8500G/8300G) and the second none (the
/// board's wiring, `lanes_by_cpu`, from MSI's spec footnotes). The planner must not save money
/// on the CPU by narrowing the GPU links: before the fix it proposed "1x L40S ... Ryzen 5 8400F".
#[test]
fn the_planner_never_picks_a_cpu_that_narrows_the_gpu_links() {
    let c = catalog::builtin().expect("catalog");
    let board = "msi-mpg-x870e-carbon-wifi";
    let g = Goal { must_have: vec![board.into()], tok_s: 15.0, used: true, ..goal("llama-3.1-70b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{:#?}", out.rejected);
    for r in &out.results {
        let cpu = r.build.cpu.as_deref().and_then(|id| c.cpu(id)).expect("a CPU");
        let phoenix = ["8300", "8400", "8500", "8600", "8700"].iter().any(|f| cpu.name.contains(f));
        assert!(!phoenix, "{}: {} halves the GPU links", r.title, cpu.name);
        let b = c.motherboard(board).expect("board");
        for gp in &r.build.gpus {
            let slot = b.pcie_slots.iter().find(|s| s.position == gp.slot).expect("placed in a slot");
            let lanes = slot.lanes_with_cpu(Some(&cpu.name));
            assert_eq!(lanes, slot.electrical_lanes, "{}: {} x{lanes} with {}", r.title, slot.name, cpu.name);
        }
    }
}

#[test]
fn a_chips_used_price_is_shown_beside_its_partner_cards() {
    let c = catalog::builtin().expect("catalog");
    let used = cited::used_price("nvidia-geforce-rtx-3090").expect("used 3090");
    let card = c.gpu_cards.iter().find(|k| k.chip == "nvidia-geforce-rtx-3090").expect("a 3090 card");
    assert!(cited::used_price(&card.id).is_none(), "the card has no used price of its own");
    let dir = std::env::temp_dir().join(format!("kraftwerk-used-card-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("card.rig.ron");
    let mut b = reference(&c);
    for g in &mut b.gpus {
        g.gpu = card.id.clone();
    }
    std::fs::write(&path, kraftwerk::rig::to_ron_string(&b).expect("ron")).expect("write");
    let (code, out, err) = kw(&["prices", &path.display().to_string(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let row = v["rows"].as_array().and_then(|r| r.iter().find(|r| r["role"] == "GPU")).expect("GPU row");
    assert_eq!(row["used_price_usd"].as_f64(), Some(used.usd), "{row}");
    assert_eq!(row["used_price_date"], used.date.as_str());
    let _ = std::fs::remove_dir_all(&dir);
}

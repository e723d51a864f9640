//! The planner against goals with a cited expert answer (70B on used and new cards, a 235B MoE
//! at 230 V, a 32B model for four users, a DeepSeek hybrid, a goal with no answer), and used
//! prices only where used parts are allowed.

use super::*;

/// Used-market prices are seen only when used parts are allowed: then every GPU line whose chip
/// has a cited used price is priced used, with that price, its date and its source; with new
/// parts only, no line is.
#[test]
fn used_prices_only_with_used_parts_allowed() {
    let c = catalog();
    let g = Goal { tok_s: 15.0, used: true, ..goal("llama-3.1-70b", "int4") };
    let used = plan_blocking(&c, &g).expect("plan");
    let mut seen = 0;
    for r in &used.results {
        for p in &r.eval.parts {
            if let Some(u) = kraftwerk::catalog::cited::used_price(chip_of(&c, &p.id)) {
                seen += 1;
                assert!(p.used(), "{}: {} not priced used", r.title, p.id);
                assert_eq!(
                    (p.unit_price_usd, p.price_date.as_deref()),
                    (Some(u.usd), Some(u.date.as_str())),
                    "{}",
                    p.id
                );
                assert!(p.price_source.as_deref().is_some_and(|s| s.starts_with("used: ") && s.contains(&u.url)));
            }
        }
    }
    assert!(
        seen > 0,
        "some answer has a GPU with a used price: {:?}",
        used.results.iter().map(|r| &r.title).collect::<Vec<_>>()
    );
    let new = plan_blocking(&c, &Goal { used: false, ..g }).expect("plan");
    assert!(!new.results.is_empty());
    for r in &new.results {
        assert!(r.eval.parts.iter().all(|p| !p.used()), "{}: a used price with new parts only", r.title);
    }
}

// ------------------------------------------------------------------ expert acceptance (issue 26)

/// 70B at 4 bits, 15 tok/s, one 120 V / 15 A circuit, $5,000, used cards allowed. An expert
/// answers two used 24 GB cards (RTX 3090 / 3090 Ti class) on a consumer board whose CPU lanes
/// split x8/x8, in a tower with one PSU, for roughly $2,500-4,000: so the first answer is fully
/// priced, both cards sit on CPU lanes (not one behind the chipset's x4 uplink, which the
/// planner proposed first before: a B850 board with GPU 2 on chipset lanes), every placement
/// check ran, and it costs less than any server-board (EPYC/Xeon, RDIMM) machine for the goal,
/// whose known parts alone already cost more.
#[test]
fn expert_70b_used_5000_usd() {
    let c = catalog();
    let g = seventy_b_goal(5000.0, true);
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    let first = out.results.first().unwrap_or_else(|| panic!("an answer: {out:#?}"));
    assert!(first.price_complete, "{}: unpriced {:?}", first.title, first.eval.unpriced);
    assert_eq!(first.build.gpus.len(), 2, "{}", first.title);
    // Both cards on CPU lanes (x8/x8), every placement check run: restored (issue 26) now that
    // a priced consumer board with published slot positions splits its CPU lanes (the ASUS
    // ProArt B550-CREATOR, positions and x8/x8 from hardwareluxx's review; $240 street price),
    // with a CPU whose lanes the wiring states (not the Ryzen 5 4500's APU silicon, which the
    // planner picked before and whose second-slot lanes nobody published).
    assert!(all_on_cpu_lanes(&c, first), "{}", first.title);
    assert_eq!(first.gpus_on_chipset, 0, "{}", first.title);
    assert!(placement_not_checked(&c, first).is_empty(), "{:?}", placement_not_checked(&c, first));
    assert!(first.eval.geometry_unchecked.is_empty() && first.eval.verify_with.is_none(), "{}", first.title);
    assert_ne!(first.eval.verdict, Some(kraftwerk::check::Verdict::Unverified), "{}", first.title);
    let cpu_id = first.build.cpu.as_deref().expect("cpu");
    assert!(!c.cpus.iter().any(|x| x.id == cpu_id && x.apu_silicon()), "{}: {cpu_id}", first.title);
    assert!(!server_board(&c, first), "{}", first.title);
    // System RAM at least the VRAM total (weights pass through host memory when loading; the
    // system-ram rule warns below it): the planner's first answer used to ship 16 GB beside
    // 48 GB of VRAM.
    assert!(!first.eval.warnings.iter().any(|w| w.contains("system-ram")), "{:?}", first.eval.warnings);
    assert!(first.price_usd <= 5000.0);
    // Every part's price, date and source are in the result (`plan --format json`).
    let json = serde_json::to_value(first).expect("json");
    assert_eq!(json["price_complete"], serde_json::Value::Bool(true));
    for p in &first.eval.parts {
        assert!(p.unit_price_usd.is_some() && p.price_date.is_some(), "{}: {p:?}", first.title);
        assert!(p.price_source.as_deref().is_some_and(|s| !s.is_empty()), "{}: {p:?}", first.title);
    }
    // Every fully priced server-board machine for the goal, with or without the budget, costs
    // more. (At this writing none is fully priced: the catalog has no price, new or used, for
    // the ASRock Rack ROMED8-2T or the ASUS Pro WS WRX80E-SAGE SE, nor a used price for the
    // Instinct MI50/MI100, so those machines are "at least" figures that cannot be compared;
    // the budget keeps them out of the $5,000 list.)
    let open = plan_blocking(&c, &Goal { budget_usd: None, max_results: 60, ..g.clone() }).expect("plan");
    let wide = plan_blocking(&c, &Goal { max_results: 60, ..g }).expect("plan");
    assert!(wide.results.iter().all(|r| !server_board(&c, r) || r.price_complete));
    for r in open.results.iter().chain(&wide.results).filter(|r| server_board(&c, r) && r.price_complete) {
        assert!(
            first.price_usd < r.price_usd,
            "{} ${:.0} vs {} ${:.0}",
            first.title,
            first.price_usd,
            r.title,
            r.price_usd
        );
    }
    // Fully priced results come first, then those whose speed rests on held rows (no speed
    // caveat, issue 36), and in price order among those that put every card on CPU lanes and
    // whose every placement check ran (never a dearer build above a cheaper one of its class);
    // builds the checker calls UNVERIFIED (two cards on a board wired without slot positions)
    // after those.
    let unverified = |r: &PlanResult| r.eval.verdict == Some(kraftwerk::check::Verdict::Unverified);
    for w in wide.results.windows(2) {
        let key =
            |r: &PlanResult| (!r.price_complete, !r.eval.speed_caveats.is_empty(), r.gpus_on_chipset, unverified(r));
        assert!(key(&w[0]) <= key(&w[1]), "{} before {}", w[0].title, w[1].title);
        if key(&w[0]) == key(&w[1]) && w[0].price_complete {
            assert!(w[0].price_usd <= w[1].price_usd + 1e-6, "{} before {}", w[0].title, w[1].title);
        }
    }
}

/// The same goal with new cards only and $8,000: new cards on a consumer board are an answer
/// with every part priced (two 24 GB RX 7900 XTX are the cheapest, $2,518, but no held speed
/// row was measured on an AMD GPU, so validated NVIDIA answers rank first: issue 36).
#[test]
fn expert_70b_new_8000_usd() {
    let c = catalog();
    let g = seventy_b_goal(8000.0, false);
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    assert!(out.results.iter().any(|r| r.price_complete), "{out:#?}");
    assert!(out.results[0].price_complete, "{}", out.results[0].title);
    assert!(out.results.iter().all(|r| r.eval.parts.iter().all(|p| !p.used())));
    // And, as with used cards, on CPU lanes (issue 26), with a validated speed (issue 36), and
    // every placement check run unless it is one card, which nothing can block or gap (the
    // checker does not hold it up: not UNVERIFIED).
    let first = &out.results[0];
    assert!(all_on_cpu_lanes(&c, first), "{}", first.title);
    assert!(first.eval.speed_caveats.is_empty(), "{}: {:?}", first.title, first.eval.speed_caveats);
    let unchecked = placement_not_checked(&c, first);
    assert!(
        unchecked.is_empty()
            || (first.build.gpus.len() == 1 && first.eval.verdict != Some(kraftwerk::check::Verdict::Unverified)),
        "{}: {unchecked:?}",
        first.title
    );
}

/// Qwen3-235B-A22B at 4 bits in a 230 V / 16 A room (about 125 GiB of weights): an expert
/// answers two 96 GB cards, three or four 48 GB cards, or six 24 GB cards on risers on an
/// EPYC board, all within the circuit's 2.9 kW continuous. Every answer holds the weights in
/// VRAM (a GPU-only machine exists, so no hybrid split is proposed) and stays on the circuit.
#[test]
fn expert_235b_moe_at_230_v() {
    let c = catalog();
    let g = Goal { mains_v: 230.0, breaker_a: 16.0, ..goal("qwen3-235b-a22b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{out:#?}");
    assert_contract(&c, &g, &out);
    for r in &out.results {
        assert!(r.eval.hybrid.is_none(), "{}", r.title);
        let (n, m) = cards(&c, r);
        assert!(n as f64 * m >= 110.0, "{}: {n} x {m} GiB", r.title);
        assert!(r.eval.wall_w.expect("known") <= 230.0 * 16.0 * 0.8 + 1e-6, "{}", r.title);
    }
}

/// Qwen3-32B at 8 bits for 4 users (about 34 GB of weights plus four users' KV cache): one
/// 48 GB card or two 24 GB cards; the first answer is fully priced with its cards on CPU lanes.
#[test]
fn expert_32b_8_bit_for_4_users() {
    let c = catalog();
    let g = Goal { users: 4, ..goal("qwen3-32b", "q8_0") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    let first = out.results.first().unwrap_or_else(|| panic!("an answer: {out:#?}"));
    // Fully priced, every card on CPU lanes, every placement check run (restored, issue 26:
    // see expert_70b_used_5000_usd).
    assert!(first.price_complete, "{}", first.title);
    assert!(all_on_cpu_lanes(&c, first), "{}", first.title);
    assert!(placement_not_checked(&c, first).is_empty(), "{:?}", placement_not_checked(&c, first));
    let (n, m) = cards(&c, first);
    assert!(n as f64 * m >= 40.0, "{}", first.title);
}

/// DeepSeek V3 (671B, 37B active) at 4 bits at home, 5 tok/s for one user, on one US 15 A
/// circuit: about 330 GiB of weights, more than any machine's GPUs on one circuit. The usual
/// answer (llama.cpp `--n-cpu-moe`, ktransformers) is a hybrid: one or two GPUs for attention
/// and the shared weights, the routed experts in system RAM on a many-channel server platform
/// (8 to 12 channels of DDR4/DDR5). The planner proposes such builds, with enough RAM for the
/// experts and the channels that give the speed, as `fit` estimates them. The goal carries
/// issue 36's $10,000: without a budget, three H200 NVL ($105,879, fully priced) rank before
/// the hybrids whose server boards are unpriced, which is the ranking's rule and not the question.
#[test]
fn expert_deepseek_v3_hybrid_at_5_tok_s() {
    let c = catalog();
    let g = Goal { tok_s: 5.0, budget_usd: Some(10_000.0), ..goal("deepseek-v3", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer or a binding constraint: {out:#?}"));
    for r in &out.results {
        let h = r.eval.hybrid.as_ref().unwrap_or_else(|| panic!("{}: a hybrid split", r.title));
        assert!(h.host_ram_gib >= h.host_experts_gib + 8.0, "{}: {h:?}", r.title);
        assert!(h.channels >= 8, "{}: {h:?}", r.title);
        assert!(h.decode_tokens_per_s >= 5.0 && r.eval.decode_per_user == Some(h.decode_tokens_per_s));
        assert!(r.build.gpus.len() <= 2, "{}", r.title);
        assert!(r.eval.wall_w.expect("known") <= circuit_w(&g) + 1e-6);
    }
    assert!(first.title.contains("experts in RAM"), "{}", first.title);
}

/// A goal with truly no answer (405B at 16 bits on two cards: about 810 GB of weights) exits 1
/// from the CLI, and a goal only the budget stops names the budget as the binding constraint
/// with the build that removing it gives.
#[test]
fn expert_no_answer_exits_1_and_names_the_binding_constraint() {
    let run = |args: &[&str]| {
        let o =
            std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk")).arg("plan").args(args).output().expect("runs");
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (code, text) = run(&["--model", "llama-3.1-405b", "--precision", "bf16", "--max-gpus", "2"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("Nothing in the catalog meets this goal"), "{text}");
    // Nothing alone, or (with the power-limit lever) a smaller precision on two capped H200 NVL.
    assert!(text.contains("Binding constraints: none alone") || text.contains("Binding constraint: memory"), "{text}");
    let (code, text) =
        run(&["--model", "llama-3.1-70b", "--precision", "q4_k_m", "--tok-s", "15", "--used", "--budget-usd", "1500"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("Binding constraint: budget") || text.contains("Binding constraints: budget"), "{text}");
    let line = text.lines().find(|l| l.contains("with no budget")).expect("what the budget's removal buys");
    // The build it buys is over the budget (else the budget would not bind) and fully priced.
    // "...: $2,213" or, with a part unpriced, "...: at least $2,213 (prices unknown: ...)".
    let price: f64 = line
        .split(": $")
        .nth(1)
        .or_else(|| line.split(": at least $").nth(1))
        .and_then(|s| s.split(|ch: char| !ch.is_ascii_digit() && ch != ',').next())
        .and_then(|s| s.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("a price in {line}"));
    assert!(price > 1500.0, "{line}");
}

/// Confidence in the ranking (issue 36, "Done when": no first answer rests on an unvalidated
/// speed while a validated one meets the goal; item 5: validation by runtime and GPU
/// vendor/architecture). Among results of the same price completeness every validated speed
/// ranks before every unvalidated one, so the first answer is validated whenever any result is.
/// Llama 3.1 70B at Q4_K_M, 10 tok/s, used, $3,000 gives both kinds (RTX 3090s, whose Ampere
/// rows are held, and Radeon/Arc cards, whose makers have none). DeepSeek-R1 at Q4_K_M, 5 tok/s,
/// used, $10,000 (issue 36's goal): the cheapest splits were an Arc A770 (Intel) and a Tesla P40
/// (Pascal, compute capability 6.1: no held row on that architecture); the splits tried are now
/// validated cards first, so its first answer rests on held rows.
#[test]
fn validated_speeds_rank_before_unvalidated_ones() {
    let c = catalog();
    let line = |r: &PlanResult| format!("{} (caveats: {})", r.title, r.eval.speed_caveats.len());
    let seventy =
        Goal { tok_s: 10.0, used: true, budget_usd: Some(3000.0), max_results: 8, ..goal("llama-3.1-70b", "q4_k_m") };
    let deepseek =
        Goal { tok_s: 5.0, used: true, budget_usd: Some(10_000.0), max_results: 8, ..goal("deepseek-r1", "q4_k_m") };
    for (g, both) in [(seventy, true), (deepseek, false)] {
        let out = plan_blocking(&c, &g).expect("plan");
        let titles: Vec<String> = out.results.iter().map(line).collect();
        assert!(out.results.iter().any(|r| r.eval.speed_caveats.is_empty()), "a validated result: {titles:#?}");
        if both {
            assert!(out.results.iter().any(|r| !r.eval.speed_caveats.is_empty()), "an unvalidated result: {titles:#?}");
        }
        for w in out.results.windows(2) {
            let unvalidated_first = !w[0].eval.speed_caveats.is_empty() && w[1].eval.speed_caveats.is_empty();
            assert!(
                !(w[0].price_complete == w[1].price_complete && unvalidated_first),
                "{} ranks before the validated {}: {titles:#?}",
                line(&w[0]),
                line(&w[1])
            );
        }
        assert!(out.results[0].eval.speed_caveats.is_empty(), "{titles:#?}");
    }
}

/// A Tesla P40 (Pascal) is no longer validated by its maker alone: no held speed row was
/// measured on compute capability 6.1, so its plan carries the caveat (issue 36, item 5):
/// Qwen3-32B at Q4_K_M, 10 tok/s, used, $1,500 lists one after the validated RTX 3090s.
#[test]
fn a_pascal_card_s_speed_carries_the_unvalidated_caveat() {
    let c = catalog();
    let g = Goal { tok_s: 10.0, used: true, budget_usd: Some(1500.0), max_results: 8, ..goal("qwen3-32b", "q4_k_m") };
    let out = plan_blocking(&c, &g).expect("plan");
    let p40: Vec<&PlanResult> = out.results.iter().filter(|r| r.title.contains("Tesla P40")).collect();
    assert!(!p40.is_empty(), "a Tesla P40 result: {:#?}", out.results.iter().map(|r| &r.title).collect::<Vec<_>>());
    for r in p40 {
        assert!(r.eval.speed_caveats.iter().any(|s| s.contains("compute capability 6.1")), "{}", r.title);
    }
}

/// gpt-oss-120b at MXFP4 under llama.cpp, 20 tok/s, used, $2,500 (issue 36's goal): experts
/// run it as a CPU+GPU split, one GPU for attention and the dense weights and the routed MXFP4
/// experts in system RAM (`--n-cpu-moe`; u/Wrong-Historian's 25 tok/s with about 8 GB of VRAM
/// and 64-96 GB of DDR5, as reported in
/// https://cybernews.com/editorial/moe-lets-users-run-massive-llms-on-consumer-hardware/).
/// llama.cpp loads gpt-oss at ggml's MXFP4 type (https://github.com/ggml-org/llama.cpp/pull/15091),
/// so the split is planned at MXFP4 itself, from the same function as `fit`'s
/// `fits_with_experts_in_ram`; before, MXFP4 had no hybrid precision and no split was tried.
#[test]
fn gpt_oss_120b_mxfp4_is_split_under_llama_cpp() {
    let c = catalog();
    let g = crate::plan_acceptance::goals::named("gpt-oss-120b-hybrid");
    let out = plan_blocking(&c, &g).expect("plan");
    let hybrids: Vec<&PlanResult> = out.results.iter().filter(|r| r.eval.hybrid.is_some()).collect();
    assert!(!hybrids.is_empty(), "an MXFP4 split: {:#?}", out.rejected);
    for r in hybrids {
        let h = r.eval.hybrid.as_ref().expect("split");
        assert_eq!(r.precision, kraftwerk::estimate::llm::Precision::Mxfp4, "{}", r.title);
        assert!(h.precision_note.is_none(), "{}: {:?}", r.title, h.precision_note);
        assert!(h.n_cpu_moe > 0 && h.host_ram_gib >= h.host_experts_gib, "{}: {h:?}", r.title);
        assert!(h.decode_tokens_per_s >= 20.0 && r.eval.decode_per_user == Some(h.decode_tokens_per_s), "{h:?}");
        assert!(r.price_complete && r.price_usd <= 2500.0, "{}: ${:.0}", r.title, r.price_usd);
    }
}

/// Issue 39: the same goal without `--runtime` (a new user's first try) found nothing: MXFP4 was
/// judged under vLLM only (the precision's usual runtime), which needs the whole model in GPU
/// memory, and the hint never named llama.cpp. gpt-oss's checkpoint stores its routed experts in
/// MXFP4 and llama.cpp runs them at ggml's MXFP4 type
/// (https://github.com/ggml-org/llama.cpp/pull/15091), so with no runtime named the planner also
/// plans llama.cpp and finds the split; each result's build names the runtime it was judged
/// with, so `fit` on the saved build agrees. Seen failing on main: no result.
#[test]
fn gpt_oss_120b_mxfp4_without_a_runtime_tries_llama_cpp() {
    let c = catalog();
    let g = Goal { tok_s: 20.0, used: true, budget_usd: Some(2500.0), ..goal("gpt-oss-120b", "mxfp4") };
    assert_eq!(g.runtime, None);
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{:#?}", out.relaxations);
    for r in &out.results {
        assert_eq!(r.precision, kraftwerk::estimate::llm::Precision::Mxfp4, "{}", r.title);
        assert!(r.price_complete && r.price_usd <= 2500.0, "{}: ${:.0}", r.title, r.price_usd);
        let rt = r.build.workload.as_ref().and_then(|w| w.runtime);
        if r.eval.hybrid.is_some() {
            assert_eq!(rt, Some(kraftwerk::estimate::llm::Runtime::LlamaCpp), "{}", r.title);
        }
    }
    assert!(out.results.iter().any(|r| r.eval.hybrid.is_some()), "an MXFP4 split");
    // Ranked as one list: cheapest first within each class, ranks 1..n.
    let ranks: Vec<usize> = out.results.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, (1..=out.results.len()).collect::<Vec<_>>());
}

/// Issue 39: "best" for gpt-oss-120b labelled its plans `q4_0`, `q4_k_m` and `q5_k_m` and sized
/// them at those bits per weight, while every GGUF of gpt-oss keeps its experts in MXFP4
/// (llama-bench: 59.02 GiB for ggml-org's MXFP4 file, 60.87 GiB for unsloth's "F16" one,
/// https://community.frame.work/t/will-the-ai-max-395-128gb-be-able-to-run-gpt-oss-120b/73280/26).
/// Now every plan is at MXFP4, the published weights (seen failing on main: `q4_0` first).
#[test]
fn gpt_oss_best_is_its_published_mxfp4_not_a_gguf_label() {
    let c = catalog();
    let g = Goal {
        tok_s: 20.0,
        used: true,
        budget_usd: Some(2500.0),
        precision: kraftwerk::plan::goal::GoalPrecision::Best,
        ..goal("gpt-oss-120b", "mxfp4")
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{:#?}", out.relaxations);
    for r in &out.results {
        assert_eq!(r.precision, kraftwerk::estimate::llm::Precision::Mxfp4, "{}", r.title);
    }
}

/// A CPU+GPU split's system RAM is sized for the split it runs: llama.cpp's Host row of it (the
/// routed experts of the `--n-cpu-moe` layers it puts in RAM and the rest it keeps there, what
/// `fit`'s `fits_with_experts_in_ram` holds) plus the fit's reserve, not every routed expert. The expert layers kept on the GPU are not in RAM, so
/// a card with more memory needs less RAM: ubergarm's Qwen3-235B-A22B model card (2025,
/// https://huggingface.co/ubergarm/Qwen3-235B-A22B-GGUF) runs 106.8 GiB of mix-IQ3_K on "24GB
/// VRAM + 96GB RAM (perfect for AM5 or LGA 1700 gamer rigs with 2x48GiB DDR5 DIMMs)". Every
/// routed expert at Q3_K_M is about 100 GiB, more than 96 GB less the reserve, so a planner that
/// sized for every expert offered no 96 GB split (seen failing that way: no split of one
/// 24 GB card in 96 GB).
#[test]
fn a_split_s_ram_is_sized_for_the_experts_it_puts_there() {
    use kraftwerk::estimate::llm::search::HOST_RAM_RESERVE_GIB;
    let c = catalog();
    let g = Goal { tok_s: 8.0, used: true, budget_usd: Some(5000.0), ..goal("qwen3-235b-a22b", "q3_k_m") };
    let out = plan_blocking(&c, &g).expect("plan");
    // (card memory, experts in RAM, RAM installed), GiB, of each one-card split.
    let mut one_card: Vec<(f64, f64, f64)> = Vec::new();
    for r in &out.results {
        let Some(h) = r.eval.hybrid.as_ref() else { continue };
        assert!(h.host_ram_gib >= h.host_ram_needed_gib + HOST_RAM_RESERVE_GIB, "{}: {h:?}", r.title);
        assert!(h.host_ram_needed_gib >= h.host_experts_gib, "{}: {h:?}", r.title);
        if let [gpu] = r.build.gpus.as_slice() {
            let vram = c.gpu_or_card(&gpu.gpu).map_or(0.0, |x| x.memory_gib);
            one_card.push((vram, h.host_experts_gib, h.host_ram_gib));
        }
    }
    assert!(
        one_card.iter().any(|&(vram, _, ram)| vram >= 24.0 && ram <= 96.0),
        "a split of one 24 GB card in 96 GB: {one_card:?} of {:?}",
        out.results.iter().map(|r| &r.title).collect::<Vec<_>>()
    );
    // More VRAM, fewer experts in RAM.
    for &(va, ea, _) in &one_card {
        for &(vb, eb, _) in &one_card {
            assert!(!(va < vb && eb > ea), "{vb:.0} GB card holds {eb:.1} GiB in RAM, {va:.0} GB card {ea:.1}");
        }
    }
}

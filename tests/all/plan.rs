//! The planner against goals whose answer a builder knows, and its contract: every result
//! passes `check`, saves as a build file that loads, is never over the goal's circuits, and the
//! answer is deterministic.

use kraftwerk::catalog::Catalog;
use kraftwerk::plan::goal::{Form, Goal, GoalPrecision, ModelRef};
use kraftwerk::plan::plan_blocking;
use kraftwerk::plan::{Constraint, PlanOutcome, PlanResult};

fn catalog() -> Catalog {
    kraftwerk::catalog::builtin().expect("built-in catalog")
}

fn goal(model: &str, precision: &str) -> Goal {
    Goal { model: ModelRef::Preset(model.into()), precision: precision.parse().expect("precision"), ..Goal::default() }
}

/// Cards of a result: (count, memory GiB of one).
fn cards(c: &Catalog, r: &PlanResult) -> (usize, f64) {
    let id = &r.build.gpus[0].gpu;
    assert!(r.build.gpus.iter().all(|g| &g.gpu == id), "one card type per plan");
    (r.build.gpus.len(), c.gpu_or_card(id).expect("card in catalog").memory_gib)
}

/// Continuous limit of the goal's circuits, W (80 % of the breaker, NEC 210.20(A) / the
/// power code's planning figure).
fn circuit_w(g: &Goal) -> f64 {
    g.mains_v * g.breaker_a * 0.8 * g.circuits as f64
}

fn assert_contract(c: &Catalog, g: &Goal, out: &PlanOutcome) {
    let model = kraftwerk::plan::model::resolve_model(c, &g.model).expect("model");
    for r in &out.results {
        // `check` on the whole catalog, as `kraftwerk check` runs it: no error, every required
        // part chosen, and no not-checked finding on a rule that needs the GPUs or PSUs (the
        // figures the goal depends on: slots, case fit, power delivery, circuits).
        let report = kraftwerk::check::run(&r.build, c);
        assert_eq!(report.errors, 0, "{}: {:?}", r.title, report.findings);
        assert!(report.coverage.missing_parts.is_empty(), "{}: {:?}", r.title, report.coverage);
        assert_ne!(report.verdict, kraftwerk::check::Verdict::Fail, "{}", r.title);
        for f in report.findings.iter().filter(|f| f.kind == kraftwerk::check::FindingKind::NotChecked) {
            let rule = kraftwerk::check::rule(f.rule).expect("rule");
            let goal_figure = rule.needs.iter().any(|n| {
                matches!(
                    n,
                    kraftwerk::check::Need::Part(kraftwerk::catalog::PartKind::Gpu | kraftwerk::catalog::PartKind::Psu)
                )
            });
            // On a board wired without slot positions the geometry rules cannot run: allowed
            // only there, and then the result says what would verify it (issue 27's UNVERIFIED).
            let geometry = kraftwerk::plan::judge::GEOMETRY_RULES.contains(&f.rule)
                && r.eval.verify_with.is_some()
                && r.eval.geometry_unchecked.iter().any(|l| l.starts_with(f.rule));
            assert!(
                !goal_figure || geometry,
                "{}: not checked on a figure the goal depends on: {}",
                r.title,
                f.message
            );
        }
        // The planner's evaluation (made on its small working catalog) is the one the whole
        // catalog gives.
        // Priced as the planner prices the goal (used prices with `used`).
        let priced = kraftwerk::plan::search::pricing_catalog(c, g);
        let again = kraftwerk::plan::estimate::evaluate(&r.build, &priced, g, &model);
        assert_eq!(again, r.eval, "{}", r.title);
        for circuit in &report.power.circuits {
            assert!(circuit.amps <= circuit.continuous_a + 1e-9, "{}: circuit over its continuous limit", r.title);
        }
        assert!(report.power.total_wall_w <= circuit_w(g) + 1e-6, "{}: {} W", r.title, report.power.total_wall_w);
        if g.tok_s > 0.0 {
            assert!(r.eval.decode_per_user.expect("speed") >= g.tok_s, "{}", r.title);
        }
        // Saves as a build file that loads with the build-file code and checks the same.
        let text = kraftwerk::rig::to_ron_string(&r.build).expect("ron");
        let loaded = kraftwerk::rig::load_str("plan.rig.ron", &text, Some(c)).expect("loads");
        assert_eq!(loaded, r.build);
        assert_eq!(kraftwerk::check::run(&loaded, c).verdict, report.verdict);
    }
    // Module counts fill the board's channels evenly (a multiple of its channels over all
    // sockets) or fill every slot: the memory-population rule warns otherwise.
    for r in &out.results {
        let (Some(m), Some(b)) =
            (r.build.memory.as_ref(), c.motherboards.iter().find(|b| Some(&b.id) == r.build.motherboard.as_ref()))
        else {
            continue;
        };
        let kit = c.memory.iter().find(|k| k.id == m.kit).expect("kit in catalog");
        let modules = u32::from(kit.modules) * u32::from(m.kits);
        let channels = u32::from(b.memory_channels) * u32::from(b.cpu_sockets.max(1));
        assert!(
            modules.is_multiple_of(channels) || modules == u32::from(b.memory_slots),
            "{}: {modules} modules on {channels} channels, {} slots",
            r.title,
            b.memory_slots
        );
    }
    let prices: Vec<(bool, f64)> = out.results.iter().map(|r| (r.price_complete, r.price_usd)).collect();
    for w in prices.windows(2) {
        assert!(w[0].0 >= w[1].0, "complete prices rank first");
    }
}

/// 70B at 4-bit, 20 tok/s for one user, one US 15 A / 120 V circuit, used cards allowed.
/// `int4` is AWQ-style weights, whose usual runtime is vLLM, and the planner judges (and
/// saves) that runtime's own verdict, as `kraftwerk fit` does on the saved build (issue 28). A
/// vLLM user's answer: two 32 GB cards (Radeon AI PRO R9700, RTX 5090) or two 48 GB cards,
/// or four 16 GB cards; not two 24 GB cards, on which vLLM's KV pool holds only about 5,400
/// tokens at the default 0.9 utilization, less than the 8,192 asked (vLLM refuses to start;
/// the r/LocalLLaMA staple of two used RTX 3090 is a llama.cpp answer at `q4_k_m`, see
/// `expert_70b_used_5000_usd`); never four 24 GB cards (over the circuit) and never anything
/// over the circuit's 1,440 W continuous.
#[test]
fn seventy_b_at_4_bit_on_one_us_circuit() {
    let c = catalog();
    let g = Goal { tok_s: 20.0, used: true, ..goal("llama-3.1-70b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(out.results.len() >= 3, "{out:#?}");
    assert_contract(&c, &g, &out);
    let kinds: Vec<(usize, f64)> = out.results.iter().map(|r| cards(&c, r)).collect();
    assert!(kinds.iter().any(|&(n, m)| n == 2 && m >= 32.0), "{kinds:?}");
    // Enough memory, never two 24 GB cards (vLLM would not start) and never four 24 GB cards.
    assert!(kinds.iter().all(|&(n, m)| n as f64 * m >= 40.0 && (n <= 2 || m < 24.0)), "{kinds:?}");
    assert!(!kinds.contains(&(2, 24.0)), "{kinds:?}");
    let gpus: Vec<&str> = out.results.iter().map(|r| r.gpus.as_str()).collect();
    // Fully priced answers rank first, and there is one (restored, issue 26: a priced AM4
    // board with positions, the ProArt B550-CREATOR, and priced DDR4 kits): one 48 GB card or
    // two 32 GB cards. Since the RTX PRO 5000 Blackwell (48 GB, 1.34 TB/s) has a list price
    // ($4,199.99, 2026-06) a single one comes first: AWQ weights of about 37 GiB leave vLLM a
    // pool for the 8k context on one card, at about half the price of two RTX 5000 Ada, which
    // is the answer an expert would give for vLLM on one circuit.
    assert!(out.results[0].price_complete, "{gpus:?}");
    let (count, memory_gib) = cards(&c, &out.results[0]);
    assert!((count == 1 && memory_gib >= 48.0) || (count == 2 && memory_gib >= 32.0), "{gpus:?}");
    // Every answer is saved for vLLM, the runtime it was judged with.
    for r in &out.results {
        let rt = r.build.workload.as_ref().and_then(|w| w.runtime);
        assert_eq!(rt, Some(kraftwerk::estimate::llm::Runtime::Vllm), "{}", r.title);
    }
    // Distinct GPU sets at the top.
    let distinct: std::collections::BTreeSet<&str> = gpus.iter().take(3).copied().collect();
    assert_eq!(distinct.len(), 3, "{gpus:?}");
    // With one 96 GB card among the answers when asked for more of them.
    let more = plan_blocking(&c, &Goal { max_results: 120, ..g.clone() }).expect("plan");
    assert!(more.results.iter().any(|r| cards(&c, r) == (1, 96.0)), "one 96 GB card");
    // Four RTX 4090s at fp8 draw more than one 15 A circuit carries: named as the reason.
    let fp8 =
        plan_blocking(&c, &Goal { precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Fp8), ..g })
            .expect("plan");
    let r = fp8.rejected.iter().find(|r| r.what == "4x RTX 4090").expect("4x 4090 lost");
    assert_eq!(r.constraint, Constraint::Power);
    assert!(r.reason.contains("kW"), "{}", r.reason);
}

/// Qwen3-235B-A22B (a 235B MoE, 22B active) at 4 bits in a European room of 230 V / 16 A:
/// about 125 GiB of weights. A builder answers two 96 GB RTX PRO 6000s, three or four 48 GB
/// workstation cards, or six 24 GB cards on risers; never 24 GB cards in fewer than six, and
/// never more than the circuit's continuous 2.9 kW.
#[test]
fn qwen3_235b_moe_at_4_bit_in_a_230_v_16_a_room() {
    let c = catalog();
    // Checked at inference power (the goal's mode), six 24 GB workstation cards on risers now
    // pass too and come first by price: look past the default five results.
    let g = Goal { mains_v: 230.0, breaker_a: 16.0, used: true, max_results: 12, ..goal("qwen3-235b-a22b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(out.results.len() >= 3, "{out:#?}");
    assert_contract(&c, &g, &out);
    let weights = kraftwerk::estimate::llm::weight_gib(
        c.model("qwen3-235b-a22b").expect("preset"),
        kraftwerk::estimate::llm::Precision::Int4,
    );
    assert!((110.0..140.0).contains(&weights), "{weights} GiB");
    for r in &out.results {
        let (n, m) = cards(&c, r);
        assert!(n as f64 * m >= weights, "{}: {n} x {m} GiB", r.title);
        // Under vLLM (int4's usual runtime, judged as `fit` judges it): four 32 GB cards hold
        // the weights but leave vLLM's KV pool no room for one 8k sequence, so five 32 GB or
        // four 48 GB cards are the smallest such answers.
        assert!(m < 24.5 || n <= 5, "{}: {n} x {m} GiB", r.title);
        assert!(m > 24.5 || n >= 6, "{}: {n} x {m} GiB", r.title);
        assert!(r.eval.fits);
    }
    // Priced cheaper builds fill the first results; two 96 GB cards are among the answers.
    let more = plan_blocking(&c, &Goal { max_results: 80, ..g.clone() }).expect("plan");
    assert!(more.results.iter().any(|r| cards(&c, r) == (2, 96.0)), "two 96 GB cards");
    // 24 GB cards cannot hold it in four.
    assert!(out.rejected.iter().all(|r| r.what != "4x RTX 4090" || r.constraint == Constraint::Memory));
}

/// The largest MoE preset (DeepSeek-V3, 671B, 37B active) at 4 bits in a 230 V / 16 A room:
/// about 330 GiB of weights, so four 96 GB cards. The catalog publishes no length for the
/// 300 W Max-Q card, and none for the open frame's GPU clearance, so their case fit cannot be
/// checked: the planner does not propose them (before it did, unchecked) and says why.
#[test]
fn deepseek_v3_at_4_bit_in_a_230_v_16_a_room() {
    let c = catalog();
    let g = Goal { mains_v: 230.0, breaker_a: 16.0, used: true, ..goal("deepseek-v3", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    // GPU-only machines hold the weights; a hybrid split (experts in RAM) says so.
    for r in out.results.iter().filter(|r| r.eval.hybrid.is_none()) {
        let (n, m) = cards(&c, r);
        assert!(n as f64 * m >= 330.0, "{}: {n} x {m} GiB", r.title);
    }
    // Under vLLM (int4's usual runtime, judged as `fit` judges it) four 96 GB cards leave its
    // KV pool no room for one 8k sequence beside 330 GiB of weights: five are needed, which at
    // 600 W each exceed the circuit; five 300 W Max-Q would fit it, but their length is
    // unknown.
    let max_q = out.rejected.iter().find(|r| r.what.ends_with("x RTX PRO 6000 Blackwell Max-Q Workstation Edition"));
    if c.gpu("nvidia-rtx-pro-6000-blackwell-max-q").is_some_and(|g| g.length_mm.is_none()) {
        let r = max_q.expect("the Max-Q is named");
        assert_eq!(r.constraint, Constraint::Unknown, "{}", r.reason);
        assert!(r.reason.contains("length_mm"), "{}", r.reason);
    }
    // 24 GB cards cannot hold it in eight.
    assert!(out.rejected.iter().any(|r| r.what == "8x RTX 4090" && r.constraint == Constraint::Memory));
}

#[test]
fn every_result_passes_check_across_goals() {
    let c = catalog();
    let goals = [
        Goal { tok_s: 30.0, users: 4, ..goal("llama-3.1-8b", "bf16") },
        Goal { form: Some(Form::OpenFrame), circuits: 2, breaker_a: 20.0, ..goal("llama-3.1-70b", "fp8") },
        Goal { mode: kraftwerk::estimate::llm::Mode::Qlora, ..goal("qwen3-32b", "bf16") },
        Goal { mains_v: 230.0, breaker_a: 16.0, used: true, ..goal("qwen3-235b-a22b", "int4") },
        Goal { precision: GoalPrecision::Best, tok_s: 10.0, ..goal("mixtral-8x7b", "int4") },
    ];
    for g in &goals {
        let out = plan_blocking(&c, g).expect("plan");
        assert!(!out.results.is_empty(), "{}: {out:#?}", out.goal);
        assert_contract(&c, g, &out);
        if let Some(f) = g.form {
            assert!(out.results.iter().all(|r| r.form == f));
        }
    }
}

/// A goal that truly has no answer: 405B at 16 bits is about 810 GB of weights, and no two
/// cards hold it (the largest PCIe card has 141 GB): nothing meets it, no single relaxation
/// finds anything, and the outcome says so. (70B at 16 bits, used here before, now has answers:
/// one 141 GB H200 NVL or two 94 GB H100 NVL, since street prices price their platforms; those
/// answers are "at least" prices, ranked after fully priced builds.)
#[test]
fn no_solution_names_the_binding_constraint() {
    let c = catalog();
    let g = Goal { max_gpus: 2, ..goal("llama-3.1-405b", "bf16") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(out.results.is_empty());
    // Only the precision's relaxation buys anything: two H200 NVL at a 5-bit GGUF quant, capped
    // to the circuit by the power-limit lever (issue 36).
    assert!(out.binding.iter().all(|c| *c == Constraint::Memory), "{:?}", out.binding);
    assert!(
        out.relaxations.iter().all(|r| r.buys.is_none() || r.constraint == Constraint::Memory),
        "{:?}",
        out.relaxations
    );

    // A budget below two 24 GB cards and a platform (street prices: two RX 7900 XTX alone
    // are about $1,800): the budget binds. (With the dataset's 2023-2024 prices as well, two
    // used Tesla P40 on a priced B550 board come in at about $1,460, so dropping the speed
    // target also gives an answer: speed binds too.)
    // ($1,000: since boards wired without slot positions are candidates, four used RTX 3060
    // 12 GB on a Z790 board's CPU and chipset slots meet 20 tok/s for $1,330, UNVERIFIED on
    // geometry.)
    let g = Goal { tok_s: 20.0, used: true, budget_usd: Some(1000.0), ..goal("llama-3.1-70b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(out.results.is_empty());
    assert!(out.binding.contains(&Constraint::Budget), "{:?}", out.binding);
}

#[test]
fn deterministic() {
    let c = catalog();
    let g = Goal { tok_s: 20.0, used: true, ..goal("llama-3.1-70b", "int4") };
    let a = serde_json::to_string(&plan_blocking(&c, &g).expect("plan")).expect("json");
    let b = serde_json::to_string(&plan_blocking(&c, &g).expect("plan")).expect("json");
    assert_eq!(a, b);
}

#[test]
fn must_have_board_is_used() {
    let c = catalog();
    let board = "asus-pro-ws-wrx90e-sage-se";
    let g = Goal { must_have: vec![board.into()], tok_s: 20.0, ..goal("llama-3.1-70b", "fp8") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty());
    assert!(out.results.iter().all(|r| r.build.motherboard.as_deref() == Some(board)));
    assert!(plan_blocking(&c, &Goal { must_have: vec!["no-such-part".into()], ..g }).is_err());
}

/// `--model-file` reads a GGUF through the model-file reader: the plan runs at the file's
/// precision with its exact weight bytes, and the model goes inline into every build.
#[test]
fn gguf_model_file_plans_at_its_own_precision() {
    let c = catalog();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/model-files/tiny-llama-q4_k_m.gguf");
    let file = kraftwerk::model_file::read_model_file(&path).expect("fixture reads");
    let g = Goal { model: ModelRef::File(path.clone()), precision: GoalPrecision::Best, ..Goal::default() };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{out:#?}");
    assert_contract(&c, &g, &out);
    for r in &out.results {
        assert_eq!(r.precision, file.precision);
        assert!(r.build.parts.models.iter().any(|m| m.id == file.model.id), "{}", r.title);
    }
    let model = kraftwerk::plan::model::resolve_model(&c, &g.model).expect("model");
    let exact = file.weights.total as f64 / kraftwerk::estimate::llm::GIB;
    assert!((kraftwerk::plan::model::weights_gib(&model, file.precision) - exact).abs() < 1e-9);
    // A file that is not a model is a bad goal naming the file.
    let bad = Goal { model: ModelRef::File(path.with_file_name("not-a-model.gguf")), ..Goal::default() };
    let e = plan_blocking(&c, &bad).expect_err("not a model");
    assert!(e.to_string().contains("not-a-model.gguf"), "{e}");
}

#[test]
fn model_file_goes_inline() {
    let c = catalog();
    let mut m = c.model("llama-3.1-8b").expect("preset").clone();
    m.id = "my-finetune-8b".into();
    let file = kraftwerk::catalog::PartsFile { models: vec![m], ..Default::default() };
    let text = ron::ser::to_string_pretty(&file, ron::ser::PrettyConfig::default()).expect("ron");
    let path = std::env::temp_dir().join(format!("kraftwerk-plan-model-{}.ron", std::process::id()));
    std::fs::write(&path, text).expect("write");
    let g = Goal {
        model: ModelRef::File(path.clone()),
        precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Bf16),
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty());
    assert_contract(&c, &g, &out);
    let _ = std::fs::remove_file(&path);
    assert!(out.results.iter().all(|r| r.build.parts.models.iter().any(|m| m.id == "my-finetune-8b")));
}

#[test]
fn bad_goals_are_refused() {
    let c = catalog();
    for g in [
        Goal { mains_v: -120.0, ..Goal::default() },
        Goal { circuits: 0, ..Goal::default() },
        Goal { users: 0, ..Goal::default() },
        Goal { context: Some(0), ..Goal::default() },
        Goal { model: ModelRef::Preset("no-such-model".into()), ..Goal::default() },
    ] {
        assert!(plan_blocking(&c, &g).is_err(), "{g:?}");
    }
    // A mode or precision that does not parse never becomes a goal: the CLI and the Plan tab
    // read them through the types' own names.
    assert!("dance".parse::<kraftwerk::estimate::llm::Mode>().is_err());
    assert!("q4km".parse::<GoalPrecision>().is_err());
    assert_eq!("best".parse::<GoalPrecision>(), Ok(GoalPrecision::Best));
    // A training framework for inference, or an inference runtime for training, is refused.
    let torchtune: kraftwerk::plan::goal::TrainingRuntime = "torchtune".parse().expect("trainer");
    let train = Goal { mode: kraftwerk::estimate::llm::Mode::Lora, ..Goal::default() };
    let vllm = Some(kraftwerk::estimate::llm::Runtime::Vllm);
    assert!(plan_blocking(&c, &Goal { runtime: vllm, ..train }).is_err());
    assert!(plan_blocking(&c, &Goal { trainer: Some(torchtune), ..Goal::default() }).is_err());
}

#[test]
fn cancel_stops_with_a_partial_answer() {
    let c = catalog();
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let mut seen = 0;
    let mut progress = |_: usize, _: usize| seen += 1;
    let mut ctl = kraftwerk::plan::Control { cancel: &cancel, progress: &mut progress };
    let out = kraftwerk::plan::plan(&c, &Goal::default(), &mut ctl).expect("plan");
    assert!(out.cancelled);
    assert!(out.results.is_empty());
}

/// The chip a plan's part line names (a chip id, or a partner card's chip).
fn chip_of<'a>(c: &'a Catalog, id: &'a str) -> &'a str {
    c.gpu_card(id).map_or(id, |k| k.chip.as_str())
}

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

/// The most common goal: Llama 3.1 70B at 4 bits (Q4_K_M), 15 tok/s for one user, one US
/// 120 V / 15 A circuit.
fn seventy_b_goal(budget_usd: f64, used: bool) -> Goal {
    Goal { tok_s: 15.0, budget_usd: Some(budget_usd), used, ..goal("llama-3.1-70b", "q4_k_m") }
}

/// Whether the build's board is a server board (registered memory: EPYC, Xeon, the RDIMM
/// workstation platforms), the class an expert does not need for two cards.
fn server_board(c: &Catalog, r: &PlanResult) -> bool {
    use kraftwerk::catalog::MemoryType;
    r.build
        .motherboard
        .as_deref()
        .and_then(|id| c.motherboard(id))
        .is_some_and(|b| matches!(b.memory_type, MemoryType::Ddr4Rdimm | MemoryType::Ddr5Rdimm))
}

/// Every GPU of the result sits in a slot wired to the CPU.
fn all_on_cpu_lanes(c: &Catalog, r: &PlanResult) -> bool {
    let board = r.build.motherboard.as_deref().and_then(|id| c.motherboard(id)).expect("board");
    r.build.gpus.iter().all(|g| g.slot_in(board).is_some_and(|s| s.lane_source == kraftwerk::catalog::LaneSource::Cpu))
}

/// Not-checked findings of `check` on a rule that reads the board's slot layout or positions
/// (the placement checks).
fn placement_not_checked(c: &Catalog, r: &PlanResult) -> Vec<String> {
    use kraftwerk::check::{Figure, Need};
    kraftwerk::check::run(&r.build, c)
        .findings
        .iter()
        .filter(|f| f.kind == kraftwerk::check::FindingKind::NotChecked)
        .filter(|f| {
            kraftwerk::check::rule(f.rule).is_none_or(|rule| {
                rule.needs
                    .iter()
                    .any(|n| matches!(n, Need::Figure(Figure::BoardSlotLayout | Figure::BoardSlotPositions)))
            })
        })
        .map(|f| format!("{}: {}", f.rule, f.message))
        .collect()
}

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
    // Fully priced results come first, and in price order among those that put every card on
    // CPU lanes and whose every placement check ran (never a dearer build above a cheaper one
    // of its class); builds the checker calls UNVERIFIED (two cards on a board wired without
    // slot positions) after those.
    let unverified = |r: &PlanResult| r.eval.verdict == Some(kraftwerk::check::Verdict::Unverified);
    for w in wide.results.windows(2) {
        let key = |r: &PlanResult| (!r.price_complete, r.gpus_on_chipset, unverified(r));
        assert!(key(&w[0]) <= key(&w[1]), "{} before {}", w[0].title, w[1].title);
        if key(&w[0]) == key(&w[1]) && w[0].price_complete {
            assert!(w[0].price_usd <= w[1].price_usd + 1e-6, "{} before {}", w[0].title, w[1].title);
        }
    }
}

/// The same goal with new cards only and $8,000: two new 24 GB cards (RTX 4090, RX 7900 XTX)
/// on a consumer board are an answer with every part priced.
#[test]
fn expert_70b_new_8000_usd() {
    let c = catalog();
    let g = seventy_b_goal(8000.0, false);
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    assert!(out.results.iter().any(|r| r.price_complete), "{out:#?}");
    assert!(out.results[0].price_complete, "{}", out.results[0].title);
    assert!(out.results.iter().all(|r| r.eval.parts.iter().all(|p| !p.used())));
    // And, as with used cards, on CPU lanes with every placement check run (issue 26).
    let first = &out.results[0];
    assert!(all_on_cpu_lanes(&c, first), "{}", first.title);
    assert!(placement_not_checked(&c, first).is_empty(), "{:?}", placement_not_checked(&c, first));
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
        assert!(r.eval.wall_w <= 230.0 * 16.0 * 0.8 + 1e-6, "{}", r.title);
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
/// experts and the channels that give the speed, as `fit` estimates them.
#[test]
fn expert_deepseek_v3_hybrid_at_5_tok_s() {
    let c = catalog();
    let g = Goal { tok_s: 5.0, ..goal("deepseek-v3", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    let first = out.results.first().unwrap_or_else(|| panic!("an answer or a binding constraint: {out:#?}"));
    for r in &out.results {
        let h = r.eval.hybrid.as_ref().unwrap_or_else(|| panic!("{}: a hybrid split", r.title));
        assert!(h.host_ram_gib >= h.host_experts_gib + 8.0, "{}: {h:?}", r.title);
        assert!(h.channels >= 8, "{}: {h:?}", r.title);
        assert!(h.decode_tokens_per_s >= 5.0 && r.eval.decode_per_user == Some(h.decode_tokens_per_s));
        assert!(r.build.gpus.len() <= 2, "{}", r.title);
        assert!(r.eval.wall_w <= circuit_w(&g) + 1e-6);
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

/// The shared placement (planner and Auto-place): two 3-slot cards on CPU-wired slots 1, 4 and
/// 5 go in 1 and 5 (a free slot below the first card); with slot 5 on the chipset, CPU lanes
/// win (1 and 4); with no room they do not fit. (The first fit placed them in 1 and 4.)
#[test]
fn choose_slots_clears_avoidable_findings() {
    use kraftwerk::rig::edit::{SlotOption, choose_slots};
    let s = |position, cpu_lanes| SlotOption { position, physical_lanes: 16, cpu_lanes };
    let cards = [(3, 16), (3, 16)];
    assert_eq!(choose_slots(&[s(1, true), s(4, true), s(5, true)], &cards, Some(8)), Some(vec![1, 5]));
    assert_eq!(choose_slots(&[s(1, true), s(4, true), s(5, false)], &cards, Some(8)), Some(vec![1, 4]));
    assert_eq!(choose_slots(&[s(1, true), s(4, true), s(5, true)], &cards, Some(6)), Some(vec![1, 4]));
    assert_eq!(choose_slots(&[s(1, true), s(3, true)], &cards, Some(8)), None);
    assert_eq!(choose_slots(&[s(1, true), s(2, false), s(5, true)], &[(2, 16), (2, 16)], None), Some(vec![1, 5]));
}

/// Auto-place (the window's button) uses the same placement: two 3-slot RTX 3090s on the
/// ASUS Pro WS WRX80E-SAGE SE WIFI (seven CPU-wired x16 slots at positions 1-7, from ASUS's
/// spec and board photos via the curated board file) go in slots 1 and 5, leaving slot 4 free below the first card, where the
/// first-fit placement put them in 1 and 4 (an open-air-gap warning).
#[test]
fn auto_place_leaves_a_gap_below_open_air_cards() {
    let c = catalog();
    // (On the WRX80E-SAGE SE since issue 27: the ROMED8-2T's positions were assumed.)
    let mut b =
        kraftwerk::rig::Build { motherboard: Some("asus-pro-ws-wrx80e-sage-se-wifi".into()), ..Default::default() };
    b.add_gpu(&c, "nvidia-geforce-rtx-3090".into());
    b.add_gpu(&c, "nvidia-geforce-rtx-3090".into());
    b.auto_place_gpus(&c);
    let slots: Vec<Option<u8>> = b.gpus.iter().map(|g| g.slot).collect();
    assert_eq!(slots, vec![Some(1), Some(5)]);
}

/// A board wired slot by slot but without published positions (the 35 ASUS AM4/AM5 boards
/// wired from their firmware tables, and curated boards whose positions were assumed and
/// removed by issue 27) is a planner candidate: the cards go in by slot name, CPU lanes first,
/// so the electrical rules (`gpu-slot`, `pcie-link`, `pcie-lane-budget`) run; only the
/// geometry rules say not checked, the verdict is UNVERIFIED, the result names the figure
/// that would verify it, and it ranks after a build of its class whose every check ran.
#[test]
fn boards_wired_without_positions_are_candidates() {
    let c = catalog();
    let g = Goal { max_results: 60, ..seventy_b_goal(5000.0, true) };
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    let board = |r: &PlanResult| r.build.motherboard.as_deref().and_then(|id| c.motherboard(id)).expect("board");
    let named: Vec<&PlanResult> = out.results.iter().filter(|r| !board(r).slot_positions_known()).collect();
    let titles: Vec<&str> = out.results.iter().map(|r| r.title.as_str()).collect();
    assert!(!named.is_empty(), "no result on a board wired without positions: {titles:#?}");
    for r in &named {
        let b = board(r);
        assert!(b.slot_layout_known(), "{}", r.title);
        assert!(r.build.gpus.iter().all(|p| p.slot.is_none() && p.slot_name.is_some()), "{}", r.title);
        let report = kraftwerk::check::run(&r.build, &c);
        // Two or more cards: their spacing needs the positions, so the verdict is UNVERIFIED. A
        // single card (the RTX PRO 5000 48 GB alone fits this goal's $5,000 since it has a list
        // price) has no neighbour to block or gap: coverage finds no unchecked rule that could
        // fail it, and its verdict is its rules' (WARNINGS: pcie-link, a PCIe 5.0 card in a 4.0
        // slot).
        if r.build.gpus.len() > 1 {
            assert_eq!(report.verdict, kraftwerk::check::Verdict::Unverified, "{}", r.title);
        } else {
            assert!(report.findings.iter().all(|f| f.severity != kraftwerk::check::Severity::Error), "{}", r.title);
        }
        // The electrical rules ran.
        for f in report.findings.iter().filter(|f| f.kind == kraftwerk::check::FindingKind::NotChecked) {
            assert!(!["gpu-slot", "pcie-link", "pcie-lane-budget"].contains(&f.rule), "{}: {}", r.title, f.message);
        }
        assert!(!r.eval.geometry_unchecked.is_empty(), "{}", r.title);
        let v = r.eval.verify_with.as_deref().expect("what would verify it");
        assert_eq!(
            v,
            format!(
                "slot positions of {}: enter them in the window's Build tab (slot editor), or as `position` of each of its `pcie_slots` in a user board file",
                kraftwerk::catalog::HasId::display_name(b)
            )
        );
    }
    // Verified before unverified within a class (price completeness, cards on chipset lanes):
    // unverified is the checker's verdict, so a single card on a board without positions (its
    // geometry rules say not checked, but nothing could block or gap it) ranks with the verified.
    let unverified = |r: &PlanResult| r.eval.verdict == Some(kraftwerk::check::Verdict::Unverified);
    for w in out.results.windows(2) {
        let key = |r: &PlanResult| (!r.price_complete, r.gpus_on_chipset, unverified(r));
        assert!(key(&w[0]) <= key(&w[1]), "{} before {}", w[0].title, w[1].title);
    }
    // The ranking key is the verdict, not the unchecked geometry rules alone: a single card on a
    // board without positions is among them and not UNVERIFIED.
    for r in out.results.iter().filter(|r| r.build.gpus.len() == 1 && !r.eval.geometry_unchecked.is_empty()) {
        assert!(!unverified(r), "{}: one card is not held up by slot positions", r.title);
    }
}

/// CPU lanes that are not known are not x16 (issue 26). The ASUS ProArt B550-CREATOR splits
/// its CPU x16 into x8/x8 over its two CPU x16 slots (hardwareluxx's review, in the board's
/// wiring) with Ryzen 3000/5000 desktop CPUs; its wiring states no lanes for APU silicon
/// (`lanes_by_cpu`), and vendors limit such second slots to "Ryzen 5000/3000 Series processors
/// only". So with the Ryzen 5 4500 (Renoir silicon, PCIe 3.0: Tom's Hardware's review) GPU 2's
/// link is unknown and pcie-link says not checked, GPU 1 links at PCIe 3.0, and with a Ryzen 5
/// 5600X both link at PCIe 4.0 x8. The planner, which picked the 4500 on this board for two
/// GPUs, now picks a CPU whose lanes are stated.
#[test]
fn apu_lanes_on_a_second_cpu_slot_are_unknown() {
    let c = catalog();
    let cpu = |id: &str| c.cpus.iter().find(|x| x.id == id).unwrap_or_else(|| panic!("{id}"));
    // The CPU figures: APU silicon without a G suffix has fewer, older lanes.
    assert_eq!((cpu("amd-ryzen-5-4500").pcie_lanes.gen3, cpu("amd-ryzen-5-4500").pcie_lanes.gen4), (20, 0));
    assert_eq!((cpu("amd-ryzen-5-5500").pcie_lanes.gen3, cpu("amd-ryzen-5-5500").pcie_lanes.gen4), (20, 0));
    for id in ["amd-ryzen-5-8400f", "amd-ryzen-7-8700f"] {
        assert_eq!((cpu(id).pcie_lanes.gen5, cpu(id).pcie_lanes.gen4), (0, 16), "{id}");
    }
    assert!(cpu("amd-ryzen-5-4500").apu_silicon() && cpu("amd-ryzen-5-8400f").apu_silicon());
    assert!(!cpu("amd-ryzen-5-5600x").apu_silicon() && !cpu("amd-ryzen-9-7950x").apu_silicon());

    let build = |cpu: &str| {
        let mut b = kraftwerk::rig::Build {
            motherboard: Some("asus-proart-b550-creator".into()),
            cpu: Some(cpu.into()),
            ..Default::default()
        };
        b.add_gpu(&c, "nvidia-geforce-rtx-3090".into());
        b.add_gpu(&c, "nvidia-geforce-rtx-3090".into());
        for (g, slot) in b.gpus.iter_mut().zip(["PCIe 4.0 x16 slot 1 (CPU)", "PCIe 4.0 x16 slot 2 (CPU)"]) {
            g.slot = None;
            g.slot_name = Some(slot.into());
        }
        kraftwerk::check::run(&b, &c)
    };
    let apu = build("amd-ryzen-5-4500");
    let nc: Vec<&str> = apu
        .findings
        .iter()
        .filter(|f| f.rule == "pcie-link" && f.kind == kraftwerk::check::FindingKind::NotChecked)
        .map(|f| f.message.as_str())
        .collect();
    assert!(nc.len() == 1 && nc[0].contains("GPU 2") && nc[0].contains("x16 slot 2 (CPU)"), "{nc:?}");
    assert!(apu.links.iter().all(|l| l.gpu != 1), "GPU 2's link is unknown: {:?}", apu.links);
    let l1 = apu.links.iter().find(|l| l.gpu == 0).expect("GPU 1 link");
    assert_eq!(l1.pcie_gen, 3, "a PCIe 3.0 CPU links at 3.0");
    let full = build("amd-ryzen-5-5600x");
    assert!(
        !full.findings.iter().any(|f| f.rule == "pcie-link" && f.kind == kraftwerk::check::FindingKind::NotChecked)
    );
    let widths: Vec<(u8, u8)> = full.links.iter().map(|l| (l.pcie_gen, l.lanes)).collect();
    assert_eq!(widths, vec![(4, 8), (4, 8)]);

    // The planner's first answer for the used $5,000 70B goal: not on APU silicon.
    let g = seventy_b_goal(5000.0, true);
    let out = plan_blocking(&c, &g).expect("plan");
    for r in &out.results {
        let id = r.build.cpu.as_deref().expect("cpu");
        assert!(!cpu(id).apu_silicon() || r.build.gpus.len() == 1, "{}: {id}", r.title);
    }
}

/// A card with three PCIe 8-pin sockets gets a PSU with the cables for it. The planner tried only
/// the cheapest few PSU sets within the power guideline and, for an owned RTX 4080 (NVIDIA's
/// reference design: one 16-pin socket, fed through a 3x 8-pin adapter from a PSU without a
/// native 16-pin cable), every one had a single PCIe 8-pin: "Nothing in the catalog meets this
/// goal" with `psu-connectors: PSU 1 (SDGR-750E ATX 750W Non-Modular) must supply 3 PCIe 8-pin
/// (has 1)` (seen so on this goal before the sets were filtered by their cables).
#[test]
fn psu_sets_have_the_cables_the_cards_need() {
    let c = catalog();
    let g = Goal { must_have: vec!["nvidia-geforce-rtx-4080".into()], tok_s: 30.0, ..goal("qwen3-8b", "q4_k_m") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    let first = out.results.first().unwrap_or_else(|| panic!("an answer: {:#?}", out.rejected));
    assert!(!first.eval.errors.iter().any(|e| e.starts_with("psu-connectors")), "{:?}", first.eval.errors);
    let report = kraftwerk::check::run(&first.build, &c);
    assert!(
        !report.findings.iter().any(|f| f.rule == "psu-connectors" && f.severity == kraftwerk::check::Severity::Error),
        "{}",
        first.title
    );
}

/// The plan text never says "unverified" beside a verdict that is not UNVERIFIED: one card on a
/// board wired without positions keeps its checker verdict (nothing to block or gap), and the
/// line only says what would let the geometry rules run (it printed "checker: PASS WITH
/// WARNINGS" and then "unverified on geometry" for this goal's answer).
#[test]
fn plan_text_says_unverified_only_with_that_verdict() {
    let out = crate::support::kw(&[
        "plan",
        "--model",
        "qwen3-8b",
        "--precision",
        "q4_k_m",
        "--tok-s",
        "30",
        "--must-have",
        "nvidia-geforce-rtx-4080",
        "--max-results",
        "3",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for block in text.split("\n\n").filter(|b| b.contains("checker: ")) {
        let unverified = block.contains("checker: UNVERIFIED");
        assert_eq!(
            block.contains("unverified on geometry"),
            unverified && block.contains("not checked (geometry)"),
            "{block}"
        );
    }
    assert!(text.contains("geometry rules not run (one card"), "{text}");
}

/// Qwen3-235B-A22B with the experts in RAM, $5,000, used cards allowed, one US circuit (a new
/// user's try-out): the planner bought four G.SKILL DDR4-4800 kits at $418 each for a Core
/// i9-7920X rated DDR4-2666 (Intel ARK), which runs them at 2666 like any DDR4 kit of 2666 or
/// more; the kit set is ranked by the speed the build runs it at (`estimate::fit::ram_speed`,
/// the figure `fit` reads), then by price. So no kit set of the board's memory type with at
/// least as much memory, an even population and at least that speed beside the same CPU costs
/// less than the one chosen.
#[test]
fn hybrid_ram_is_ranked_at_the_speed_the_cpu_runs_it() {
    let c = catalog();
    let g = Goal {
        model: ModelRef::Preset("qwen3-235b-a22b".into()),
        budget_usd: Some(5000.0),
        used: true,
        ..Goal::default()
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    let priced = kraftwerk::plan::search::pricing_catalog(&c, &g);
    let hybrids: Vec<_> = out.results.iter().filter(|r| r.eval.hybrid.is_some()).collect();
    assert!(!hybrids.is_empty(), "a hybrid answer: {:?}", out.results.iter().map(|r| &r.title).collect::<Vec<_>>());
    for r in hybrids {
        let res = r.build.resolve(&priced);
        let (cpu, board, (kit, kits)) = (res.cpu.expect("cpu"), res.board.expect("board"), res.memory.expect("memory"));
        let speed = kraftwerk::estimate::fit::ram_speed(&res).expect("speed").mt_s;
        let gb = kit.total_gb() * u32::from(kits);
        let cost = kit.price_usd.expect("priced kit") * f64::from(kits);
        let channels = u32::from(board.memory_channels) * u32::from(board.cpu_sockets.max(1));
        let sockets = u32::from(board.cpu_sockets.max(1));
        for other in priced.memory.iter().filter(|k| k.memory_type == board.memory_type && k.modules > 0) {
            let Some(price) = other.price_usd else { continue };
            for n in 1..=u32::from(board.memory_slots) / u32::from(other.modules) {
                let modules = n * u32::from(other.modules);
                let even = modules.is_multiple_of(channels) || modules == u32::from(board.memory_slots);
                let fits = board.max_memory_gb.is_none_or(|max| n * other.total_gb() <= max);
                if !even || !fits || n * other.total_gb() < gb {
                    continue;
                }
                let runs = kraftwerk::estimate::fit::ram_speed_of(cpu, other, n as u8, sockets).mt_s;
                assert!(
                    runs < speed || price * f64::from(n) >= cost - 1e-6,
                    "{}: {n} x {} (${:.0}, {runs} MT/s beside the {}) beats {kits} x {} (${cost:.0}, {speed} MT/s)",
                    r.title,
                    other.id,
                    price * f64::from(n),
                    cpu.name,
                    kit.id
                );
            }
        }
        if cpu.id == "intel-core-i9-7920x" {
            assert_ne!(kit.id, "g-skill-tridentz-rgb-black-ddr4-4800-cl20-32gb-2x16gb", "{}", r.title);
        }
    }
}

/// Where no kit set reaches the VRAM total within the board's maximum (two 96 GB cards on a
/// 128 GB AM4 board), the planner takes the largest set the board holds, not the cheapest: the
/// 235B answer shipped 16 GB (4x 4 GB) beside 192 GB of VRAM.
#[test]
fn memory_short_of_the_vram_total_is_the_most_the_board_holds() {
    let c = catalog();
    let g = Goal { mains_v: 230.0, breaker_a: 16.0, max_results: 5, ..goal("qwen3-235b-a22b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert_contract(&c, &g, &out);
    for r in &out.results {
        let board = r.build.motherboard.as_deref().and_then(|id| c.motherboard(id)).expect("board");
        let ram_gb: u32 = r
            .build
            .memory
            .iter()
            .map(|m| {
                u32::from(m.kits)
                    * c.memory.iter().find(|k| k.id == m.kit).map_or(0, kraftwerk::catalog::MemoryKit::total_gb)
            })
            .sum();
        let vram_gb = r.build.gpus.iter().map(|p| c.gpu_or_card(&p.gpu).map_or(0.0, |g| g.memory_gib)).sum::<f64>();
        if f64::from(ram_gb) < vram_gb {
            let max = board.max_memory_gb.unwrap_or(u32::MAX);
            assert!(ram_gb * 2 > max, "{}: {ram_gb} GB of RAM on a board that holds {max} GB", r.title);
        }
    }
}

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
            let amps = circuit.amps.expect("a planned machine's draw is known");
            assert!(amps <= circuit.continuous_a + 1e-9, "{}: circuit over its continuous limit", r.title);
        }
        let wall = report.power.total_wall_w.expect("a planned machine's draw is known");
        assert!(wall <= circuit_w(g) + 1e-6, "{}: {wall} W", r.title);
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
/// vLLM user's answer: two used 24 GB cards (RTX 3090) with `--max-num-seqs` lowered, which is
/// how r/LocalLLaMA runs 70B AWQ on two 3090s: at vLLM's default 256 sequences the profiling
/// sampler step leaves the KV pool short of the 8,192 tokens asked (vLLM refuses to start), and
/// the planner judges such a build at the `--max-num-seqs` `kraftwerk fit` names as the remedy
/// and saves it in the build (`workload.max_num_seqs`); also two 32 GB cards (Radeon AI PRO
/// R9700, RTX 5090) or one 48 GB card; never four 24 GB cards (over the circuit) and never
/// anything over the circuit's 1,440 W continuous.
#[test]
fn seventy_b_at_4_bit_on_one_us_circuit() {
    let c = catalog();
    let g = Goal { tok_s: 20.0, used: true, ..goal("llama-3.1-70b", "int4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(out.results.len() >= 3, "{out:#?}");
    assert_contract(&c, &g, &out);
    let kinds: Vec<(usize, f64)> = out.results.iter().map(|r| cards(&c, r)).collect();
    // Enough memory, and never four 24 GB cards.
    assert!(kinds.iter().all(|&(n, m)| n as f64 * m >= 40.0 && (n <= 2 || m < 24.0)), "{kinds:?}");
    let gpus: Vec<&str> = out.results.iter().map(|r| r.gpus.as_str()).collect();
    // Fully priced answers rank first: two used 24 GB cards, each such answer at a lowered
    // `--max-num-seqs` saved in the build (the default 256 does not start there).
    assert!(out.results[0].price_complete, "{gpus:?}");
    assert_eq!(cards(&c, &out.results[0]), (2, 24.0), "{gpus:?}");
    for r in out.results.iter().filter(|r| cards(&c, r) == (2, 24.0)) {
        let seqs = r.build.workload.as_ref().and_then(|w| w.max_num_seqs);
        assert!(seqs.is_some_and(|s| s < 256), "{}: saved --max-num-seqs {seqs:?}", r.title);
    }
    // Every answer is saved for vLLM, the runtime it was judged with.
    for r in &out.results {
        let rt = r.build.workload.as_ref().and_then(|w| w.runtime);
        assert_eq!(rt, Some(kraftwerk::estimate::llm::Runtime::Vllm), "{}", r.title);
    }
    // Distinct GPU sets at the top.
    let distinct: std::collections::BTreeSet<&str> = gpus.iter().take(3).copied().collect();
    assert_eq!(distinct.len(), 3, "{gpus:?}");
    // With two 32 GB cards and one 96 GB card among the answers when asked for more of them.
    let more = plan_blocking(&c, &Goal { max_results: 120, ..g.clone() }).expect("plan");
    assert!(
        more.results.iter().any(|r| {
            let (n, m) = cards(&c, r);
            n == 2 && m >= 32.0
        }),
        "two 32 GB cards"
    );
    assert!(more.results.iter().any(|r| cards(&c, r) == (1, 96.0)), "one 96 GB card");
    // Four RTX 4090s at fp8 draw more than one 15 A circuit carries; capped to fit it (a
    // common power limit), their transients still exceed the largest PSU's rating: one of the
    // two is named as the reason, with its figure.
    let fp8 =
        plan_blocking(&c, &Goal { precision: GoalPrecision::Exact(kraftwerk::estimate::llm::Precision::Fp8), ..g })
            .expect("plan");
    let r = fp8.rejected.iter().find(|r| r.what == "4x RTX 4090").expect("4x 4090 lost");
    assert_eq!(r.constraint, Constraint::Power, "{}", r.reason);
    let over_circuit = r.reason.contains("kW");
    let transient = r.reason.contains("psu-transient") && r.reason.contains(" W ");
    // Or no PSU carries the cards at the lowest limit the planner sets (57 % of default, the
    // speed curves' floor): named with the watts.
    let no_psu = r.reason.contains("no set of up to") && r.reason.contains(" W within");
    assert!(over_circuit || transient || no_psu, "{}", r.reason);
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

mod experts;
mod placement;

/// Issue 36: a board with two EPS 8-pin inputs (ASUS ProArt X870E-CREATOR WIFI) gets a PSU set
/// whose system unit has at least two EPS 8-pin cables, and `check` reports no psu-connectors
/// error on it (the search sized PSUs by PCIe cables only, and the rule rejected every such
/// desktop build).
#[test]
fn board_eps_inputs_get_enough_eps_cables() {
    let c = catalog();
    let board = "asus-proart-x870e-creator-wifi";
    let eps = c.motherboards.iter().find(|b| b.id == board).and_then(|b| b.eps_8pin).expect("board eps");
    assert_eq!(eps, 2);
    let g = Goal { must_have: vec![board.into()], ..crate::plan_acceptance::goals::named("gpt-oss-120b-hybrid") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "{:#?}", out.rejected);
    for r in &out.results {
        let psu = r.build.psus.first().expect("a PSU");
        let have = c.psus.iter().find(|p| p.id == psu.psu).and_then(|p| p.connectors.eps_8pin);
        assert!(have.is_some_and(|h| h >= 2), "{}: {:?}", r.title, have);
        let report = kraftwerk::check::run(&r.build, &c);
        assert!(
            !report
                .findings
                .iter()
                .any(|f| f.rule == "psu-connectors" && f.severity == kraftwerk::check::Severity::Error),
            "{}: {:?}",
            r.title,
            report.findings
        );
    }
    for l in &out.rejected {
        assert!(!format!("{l:?}").contains("EPS 8-pin (has"), "{l:?}");
    }
}

/// `--must-have 2x amd-radeon-rx-7900-xtx` (the new user's trial, which the single id answered
/// with three cards): every machine holds exactly two of that chip, the one-word `2xID` reads
/// the same, and a count on a board, on two parts, or of 0 is refused in words.
#[test]
fn must_have_count_is_the_machines_gpu_count() {
    use kraftwerk::plan::owned::must_have_parts;
    let c = catalog();
    let chip = "amd-radeon-rx-7900-xtx";
    let (ids, count) = must_have_parts(&["2x", chip]).expect("two words");
    assert_eq!((ids.clone(), count.clone()), must_have_parts(&[format!("2x{chip}")]).expect("one word"));
    let count = count.expect("a count");
    assert_eq!((count.id.as_str(), count.count), (chip, 2));
    let g = Goal { must_have: ids, must_have_count: Some(count), ..goal("gpt-oss-120b", "mxfp4") };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty(), "two 24 GB cards run gpt-oss-120b (experts in RAM at worst)");
    for r in &out.results {
        assert_eq!(r.build.gpus.len(), 2, "{}: {} GPUs", r.title, r.build.gpus.len());
        for slot in &r.build.gpus {
            let g = c.gpu_or_card(&slot.gpu).expect("card");
            assert!(g.name.contains("7900 XTX"), "{}: {}", r.title, g.name);
        }
    }
    // Without the count, the fewest that meet the goal (a GPU count the search chose).
    let (ids, none) = must_have_parts(&[chip]).expect("plain id");
    assert!(none.is_none());
    assert_eq!(ids, vec![chip.to_owned()]);
    // Refusals, in words.
    let board = c.motherboards[0].id.clone();
    let (ids, count) = must_have_parts(&["2x", board.as_str()]).expect("parses");
    let e = plan_blocking(&c, &Goal { must_have: ids, must_have_count: count, ..goal("gpt-oss-120b", "mxfp4") })
        .expect_err("a count on a board");
    assert!(e.to_string().contains("not a GPU"), "{e}");
    let e = must_have_parts(&["2x", chip, "3x", "nvidia-geforce-rtx-3090"]).expect_err("two counts");
    assert!(e.to_string().contains("one GPU only"), "{e}");
    let (ids, count) = must_have_parts(&["0x", chip]).expect("parses");
    let e = plan_blocking(&c, &Goal { must_have: ids, must_have_count: count, ..goal("gpt-oss-120b", "mxfp4") })
        .expect_err("a count of 0");
    assert!(e.to_string().contains("1 to 16"), "{e}");
}

/// Owning one partner card and asking for two of its chip (`--own 1x
/// asus-rog-strix-geforce-rtx-3090-24gb-gddr6x --must-have 2x nvidia-geforce-rtx-3090`): the
/// owned card is one of the two in every machine (the review found the chip's first cards
/// taken without the owned one first, so a plan could buy two and leave the owned card out).
#[test]
fn a_counted_chip_must_have_uses_the_owned_card_of_that_chip() {
    use kraftwerk::plan::owned::OwnedPart;
    let c = catalog();
    let card = "asus-rog-strix-geforce-rtx-3090-24gb-gddr6x";
    let chip = "nvidia-geforce-rtx-3090";
    let g = Goal {
        must_have: vec![chip.into()],
        must_have_count: Some(OwnedPart { id: chip.into(), count: 2 }),
        owned: vec![OwnedPart { id: card.into(), count: 1 }],
        used: true,
        ..goal("gpt-oss-120b", "mxfp4")
    };
    let out = plan_blocking(&c, &g).expect("plan");
    assert!(!out.results.is_empty());
    for r in &out.results {
        assert_eq!(r.build.gpus.len(), 2, "{}", r.title);
        assert!(r.build.gpus.iter().any(|g| g.gpu == card), "{}: {:?}", r.title, r.build.gpus);
        assert!(r.build.owned.iter().any(|o| o.ends_with(card)), "{}: {:?}", r.title, r.build.owned);
    }
}

/// A trial's DeepSeek-R1 plans: under ktransformers (whose CPU+GPU split the planner does not
/// plan) the answer says so instead of a bare "nothing fits"; under llama.cpp a card that
/// passes as a split is not listed as a memory loser without saying the loss is GPU-only.
#[test]
fn moe_losers_say_what_was_judged() {
    use kraftwerk::estimate::llm::Runtime;
    let c = catalog();
    let base = Goal {
        budget_usd: Some(6000.0),
        max_gpus: 1,
        used: true,
        precision: kraftwerk::plan::goal::GoalPrecision::Best,
        ..goal("deepseek-r1", "int4")
    };
    let kt = plan_blocking(&c, &Goal { runtime: Some(Runtime::KTransformers), ..base.clone() }).expect("plan");
    assert!(
        kt.rejected.iter().any(|r| r.constraint == Constraint::Runtime && r.reason.contains("under llama.cpp only")),
        "{:?}",
        kt.rejected.iter().map(|r| &r.reason).collect::<Vec<_>>()
    );
    let lc = plan_blocking(&c, &Goal { runtime: Some(Runtime::LlamaCpp), ..base }).expect("plan");
    let split = lc.results.iter().find(|r| r.eval.hybrid.is_some()).expect("a split passes");
    let card = split.title.split(" + ").next().expect("title").to_owned();
    let losers: Vec<_> = lc.rejected.iter().filter(|r| r.what == card && r.constraint == Constraint::Memory).collect();
    assert!(!losers.is_empty(), "{card}: its GPU-only memory loss is listed");
    for r in losers {
        assert!(r.reason.contains("every weight on the GPUs"), "{}", r.reason);
    }
}

/// A context above the model's maximum under vLLM is refused by the planner in words (a
/// trial's `--context 500000` for Llama-3.1-8B, 131,072 tokens), and `fit` under vLLM says
/// vLLM does not start there (exit 1) instead of "fits". (llama.cpp runs it, with a warning or
/// rope scaling: not refused.)
#[test]
fn a_context_above_the_models_maximum_is_refused() {
    let c = catalog();
    let vllm = Some(kraftwerk::estimate::llm::Runtime::Vllm);
    let e = plan_blocking(&c, &Goal { context: Some(500_000), runtime: vllm, ..goal("llama-3.1-8b", "bf16") })
        .expect_err("refused");
    assert!(
        e.to_string().contains("above llama-3.1-8b's maximum of 131072 tokens, where vllm refuses to start"),
        "{e}"
    );
    let b = crate::support::builds("h200-sxm-1gpu.rig.ron");
    let o = crate::support::kw(&["fit", &b, "--model", "llama-3.1-8b", "--context", "500000", "--runtime", "vllm"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("vllm refuses a context above the model's own and does not start"), "{text}");
    let o = crate::support::kw(&["fit", &b, "--model", "llama-3.1-8b", "--context", "131072", "--runtime", "vllm"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
}

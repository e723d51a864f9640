//! Issue 36's eight acceptance goals, by name: the one list that the acceptance test
//! (`tests/all/plan_acceptance.rs`, which adds each goal's expert class and cited source) and
//! the planner benchmark (`benches/plan_acceptance.rs`, which includes this file by `#[path]`)
//! both run, so the bench times exactly the goals the test scores.

use kraftwerk::plan::goal::{Goal, ModelRef};
use kraftwerk::plan::owned::OwnedPart;

/// A goal for a model preset at a precision, every other field at its default.
pub fn goal(model: &str, precision: &str) -> Goal {
    Goal { model: ModelRef::Preset(model.into()), precision: precision.parse().expect("precision"), ..Goal::default() }
}

/// Issue 36's acceptance goals, by name, in the order of the acceptance test's table.
pub fn goals() -> Vec<(&'static str, Goal)> {
    let seventy =
        |budget: f64| Goal { tok_s: 15.0, used: true, budget_usd: Some(budget), ..goal("llama-3.1-70b", "q4_k_m") };
    vec![
        ("70b-q4-used-4000", seventy(4000.0)),
        (
            "70b-q4-own-one-3090",
            Goal { owned: vec![OwnedPart { id: "nvidia-geforce-rtx-3090".into(), count: 1 }], ..seventy(2500.0) },
        ),
        (
            "qwen3-32b-q4-one-card",
            Goal { tok_s: 20.0, used: true, budget_usd: Some(2000.0), ..goal("qwen3-32b", "q4_k_m") },
        ),
        (
            "qwen3-235b-hybrid",
            Goal { tok_s: 8.0, used: true, budget_usd: Some(5000.0), ..goal("qwen3-235b-a22b", "q3_k_m") },
        ),
        (
            "gpt-oss-120b-hybrid",
            Goal {
                tok_s: 20.0,
                used: true,
                budget_usd: Some(2500.0),
                runtime: Some(kraftwerk::estimate::llm::Runtime::LlamaCpp),
                ..goal("gpt-oss-120b", "mxfp4")
            },
        ),
        (
            "deepseek-r1-hybrid",
            Goal { tok_s: 5.0, used: true, budget_usd: Some(10_000.0), ..goal("deepseek-r1", "q4_k_m") },
        ),
        (
            "4x3090-capped-120v",
            Goal { tok_s: 10.0, used: true, budget_usd: Some(8000.0), ..goal("llama-3.1-70b", "q8_0") },
        ),
        (
            "4x3090-16-users-230v",
            Goal {
                users: 16,
                tok_s: 10.0,
                used: true,
                budget_usd: Some(8000.0),
                mains_v: 230.0,
                breaker_a: 16.0,
                ..goal("llama-3.3-70b", "int4")
            },
        ),
    ]
}

/// The shared goal called `name` (panics on a name not in [`goals`]: a test's typo).
#[allow(dead_code, reason = "the bench includes this file and runs every goal; only the tests look one up")]
pub fn named(name: &str) -> Goal {
    goals().into_iter().find(|(n, _)| *n == name).map_or_else(|| panic!("no shared goal {name}"), |(_, g)| g)
}

//! Builds side by side: for each build its checker verdict (and coverage, once the report
//! carries it), parts cost, wall power and heat at full load, and for one model its fit,
//! decode rate and $ per million tokens; then one [`MetricRow`] per figure with the values of
//! every build, whether they differ and which is best. Pure (no egui, no I/O): the GUI's
//! Compare tab and `kraftwerk compare` render the same [`Comparison`].
//!
//! Figures come from the same functions as everywhere else: [`check::run`] (verdict and the
//! full-load power estimate it carries), [`PartsList::of`] (catalog prices) and
//! [`fit::for_build`] (LLM fit, speed and cost). A figure that cannot be computed is `None`
//! and shows as "unknown" (with the reason where there is one), never as 0.

use crate::check::{self, Report};
use crate::estimate::fit::{self, FitOptions};
use crate::estimate::power::{self, BTU_PER_H_PER_W, LoadState};
use crate::fmt::usd;
use crate::rig::Build;
use crate::rig::parts_list::PartsList;
use kraftwerk_catalog::Catalog;
use serde::Serialize;

/// The fit outcome of a MoE model that runs with its routed experts in system RAM
/// ([`fit::BuildFit::fits_with_experts_in_ram`]), as the comparison's "LLM fit" row says it.
pub const EXPERTS_IN_RAM: &str = "fits with experts in RAM";

/// Most builds one comparison holds.
pub const MAX_BUILDS: usize = 4;

/// The coverage line of a report ("26 of 29 checks ran; 3 not checked: ..."), from
/// [`Report::coverage`](crate::check::Report); `None` when no rule was counted. The status bar,
/// the Checks tab and the comparison all call this.
pub fn coverage_text(report: &Report) -> Option<String> {
    (report.coverage.total > 0).then(|| report.coverage.summary())
}

/// One build's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildSummary {
    /// Build name.
    pub name: String,
    /// Its file, if it has one.
    pub file: Option<String>,
    /// Checker verdict (`PASS`, `PASS WITH WARNINGS`, `FAIL`).
    pub verdict: String,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// How much the checker checked, when the report says ([`coverage_text`]).
    pub coverage: Option<String>,
    /// Sum of the priced parts, USD.
    pub parts_usd: f64,
    /// Parts lines without a catalog price (not in `parts_usd`).
    pub unpriced_parts: usize,
    /// Wall power at full load (training), W; `None` when a PSU's efficiency is unknown (no 80
    /// PLUS rating, no published curve) or no PSU is chosen.
    pub full_load_wall_w: Option<f64>,
    /// Heat into the room at full load, W; `None` as for `full_load_wall_w`.
    pub heat_w: Option<f64>,
    /// Heat at full load, BTU/h; `None` as for `full_load_wall_w`.
    pub heat_btu_h: Option<f64>,
    /// The model the fit figures are for.
    pub model: Option<String>,
    /// LLM fit verdict (`fits`, `tight`, `does not fit`, or [`EXPERTS_IN_RAM`] when the model
    /// runs only with its experts in system RAM), when a model was given or named.
    pub fit: Option<String>,
    /// Batched decode rate, tokens/s (only when the model runs: on the GPUs, or at the
    /// experts-in-RAM split's batch-1 decode, the figure `kraftwerk fit` and `plan` print).
    pub tokens_per_s: Option<f64>,
    /// Owning and running cost per million tokens, USD: the build's hardware over 3 years and
    /// its electricity over its own decode (`fit`'s `cost.usd_per_million_tokens`; only when
    /// the model fits); a lower bound where `unpriced_parts` is not 0.
    pub usd_per_million_tokens: Option<f64>,
    /// Why the fit figures are missing, if they are.
    pub fit_note: Option<String>,
    /// Why the held rows do not validate the speed on this build's GPUs under its runtime (none
    /// on the architecture, or some outside ±25 %: [`crate::estimate::llm::basis::not_measured_on`]);
    /// empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speed_caveats: Vec<String>,
    /// Whether the checker's verdict is INCOMPLETE (a required part is not chosen).
    pub incomplete: bool,
    /// Rules that could report an error for this build and did not run (a figure they need is
    /// unknown: the verdict is UNVERIFIED), from the report's coverage.
    pub unverified_rules: Vec<String>,
}

/// Rule families whose unrun checks change a build's speed figures (where the GPUs sit and
/// how they link decide decode and prefill).
const SPEED_RULE_PREFIXES: [&str; 3] = ["pcie", "gpu-slot", "nvlink"];

impl BuildSummary {
    /// Why this build is not ranked on figure `row`, if it is not: an INCOMPLETE build on every
    /// ranked figure (a part is missing, so its cost, power and speed are not the build's);
    /// an UNVERIFIED one on the error and warning counts (checks that did not run could add
    /// to them) and, when an unrun check places or links the GPUs, on decode and $ per million
    /// tokens.
    pub(crate) fn not_ranked_on(&self, row: &str) -> Option<String> {
        if self.incomplete {
            return Some(format!("{} (a part the checks need is not chosen)", self.verdict));
        }
        if self.unverified_rules.is_empty() {
            return None;
        }
        let speed_rules: Vec<&str> = self
            .unverified_rules
            .iter()
            .filter(|r| SPEED_RULE_PREFIXES.iter().any(|p| r.starts_with(p)))
            .map(String::as_str)
            .collect();
        let depends = match row {
            "Errors" | "Warnings" => true,
            "Decode, tokens/s (all sequences)" | "$ per million tokens" => !speed_rules.is_empty(),
            _ => false,
        };
        depends.then(|| {
            let rules = if matches!(row, "Errors" | "Warnings") {
                self.unverified_rules.join(", ")
            } else {
                speed_rules.join(", ")
            };
            format!("{rules} did not run (the build's verdict: {})", self.verdict)
        })
    }
}

impl BuildSummary {
    /// The figures of `build` (from `file`), for `model` (else the build's workload model).
    pub fn of(build: &Build, catalog: &Catalog, model: Option<&str>, file: Option<String>) -> BuildSummary {
        let report = check::run(build, catalog);
        BuildSummary::with_report(build, catalog, &report, model, file)
    }

    /// As [`BuildSummary::of`] with the report already computed (the GUI keeps one).
    pub fn with_report(
        build: &Build,
        catalog: &Catalog,
        report: &Report,
        model: Option<&str>,
        file: Option<String>,
    ) -> BuildSummary {
        let parts = PartsList::of(build, catalog);
        // Full load whatever the workload's mode (the check's own estimate follows the mode).
        let full = if report.power.state == LoadState::Training {
            report.power.clone()
        } else {
            power::estimate(&build.resolve(catalog), LoadState::Training)
        };
        let opts = FitOptions { model: model.map(str::to_owned), ..FitOptions::default() };
        let (mut fit_verdict, mut tokens_per_s, mut usd_per_million_tokens, mut fit_note) = (None, None, None, None);
        let mut speed_caveats = Vec::new();
        match fit::for_build(build, catalog, &opts) {
            Ok(f) => {
                // The outcome `kraftwerk fit` reports ([`fit::BuildFit::runs`]): on the GPUs, or
                // with a MoE model's experts in system RAM at that split's decode (the GPUs'
                // own verdict stays "does not fit" then). A model that does not run has no
                // speed or cost to compare.
                let v = if let Some(o) = &f.fits_with_experts_in_ram {
                    tokens_per_s = o.decode_tokens_per_s;
                    EXPERTS_IN_RAM.to_owned()
                } else {
                    if f.runs() {
                        tokens_per_s = f.fit.speed.as_ref().map(|s| s.decode_batch_tokens_per_s);
                    }
                    f.fit.verdict.to_string()
                };
                if f.runs() {
                    usd_per_million_tokens = f.cost.as_ref().and_then(|c| c.usd_per_million_tokens);
                    fit_note.clone_from(&f.cost_error);
                    speed_caveats.clone_from(&f.fit.speed_basis.not_measured_on);
                    // The RAM-speed caveats of an experts-in-RAM split, as `fit` says them.
                    if f.fits_with_experts_in_ram.is_some() {
                        let cpu = build.resolve(catalog).cpu.map(|c| c.name.clone());
                        speed_caveats.extend(crate::estimate::speed_summary::ram_caveat(&f, cpu.as_deref()));
                        speed_caveats.extend(crate::estimate::speed_summary::cores_caveat(&f, cpu.as_deref()));
                        speed_caveats.extend(crate::estimate::speed_summary::ram_rating_caveat(&f, cpu.as_deref()));
                    }
                }
                fit_verdict = Some(v);
            }
            Err(e) => fit_note = Some(e.to_string()),
        }
        BuildSummary {
            name: build.name.clone(),
            file,
            verdict: report.verdict.to_string(),
            errors: report.errors,
            warnings: report.warnings,
            coverage: coverage_text(report),
            parts_usd: parts.total_usd,
            unpriced_parts: parts.unpriced_lines,
            full_load_wall_w: full.total_wall_w,
            heat_w: full.heat_w,
            heat_btu_h: full.heat_btu_h,
            model: model.map(str::to_owned).or_else(|| build.workload.as_ref().map(|w| w.model.clone())),
            fit: fit_verdict,
            tokens_per_s,
            usd_per_million_tokens,
            fit_note,
            speed_caveats,
            incomplete: report.coverage.incomplete(),
            unverified_rules: report.coverage.unverified.iter().map(|r| (*r).to_owned()).collect(),
        }
    }
}

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// Lower is better (cost, power, heat).
    Lower,
    /// Higher is better (tokens/s).
    Higher,
    /// Neither (text).
    Neither,
}

/// One figure across the builds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricRow {
    /// Figure name for people.
    pub name: &'static str,
    /// Each build's value for people ("unknown" where there is none).
    pub values: Vec<String>,
    /// Whether the values differ.
    pub differs: bool,
    /// Indices of the best builds (every one of a tie), for figures with a direction and at
    /// least two known values that differ among the builds ranked on it; empty otherwise.
    pub best: Vec<usize>,
    /// Builds left out of the ranking of this figure, with why ([`BuildSummary::not_ranked_on`]).
    pub not_ranked: Vec<(usize, String)>,
    /// Which way is better.
    pub better: Better,
    /// Why no build is best on this money figure although they differ: the least figure is a
    /// lower bound (`at least`: a build with an unpriced part, whose figure leaves it out) below
    /// every exact one, so which build costs least is undecided; `None` otherwise. A build with
    /// a lower bound is never best; one with an exact figure is, where no other build's
    /// figure (lower bound or exact) is below it.
    pub undecided: Option<String>,
}

fn numeric(
    name: &'static str,
    vals: &[Option<f64>],
    better: Better,
    builds: &[BuildSummary],
    fmt: impl Fn(f64) -> String,
) -> MetricRow {
    let values: Vec<String> = vals.iter().map(|v| v.map_or_else(|| "unknown".to_owned(), &fmt)).collect();
    let differs = values.windows(2).any(|w| w[0] != w[1]);
    let not_ranked: Vec<(usize, String)> = if better == Better::Neither {
        Vec::new()
    } else {
        builds.iter().enumerate().filter_map(|(i, b)| b.not_ranked_on(name).map(|why| (i, why))).collect()
    };
    // Ranked: known values of builds whose figure does not hang on an unrun check, compared as
    // printed (two builds that print the same value tie).
    let known: Vec<(usize, f64, &String)> = vals
        .iter()
        .enumerate()
        .filter(|(i, _)| !not_ranked.iter().any(|(j, _)| j == i))
        .filter_map(|(i, v)| v.map(|v| (i, v, &values[i])))
        .collect();
    let ranked_differ = known.windows(2).any(|w| w[0].2 != w[1].2);
    let top = match better {
        Better::Lower => known.iter().min_by(|a, b| a.1.total_cmp(&b.1)),
        Better::Higher => known.iter().max_by(|a, b| a.1.total_cmp(&b.1)),
        Better::Neither => None,
    };
    // An unknown value could be the best (a PSU of unknown efficiency may draw less than the
    // known builds): no best while any build's value is unknown.
    let any_unknown = vals.iter().any(Option::is_none);
    let best = match top {
        Some(t) if differs && ranked_differ && known.len() >= 2 && !any_unknown => {
            known.iter().filter(|k| k.2 == t.2).map(|k| k.0).collect()
        }
        _ => Vec::new(),
    };
    MetricRow { name, values, differs, best, not_ranked, better, undecided: None }
}

/// A money row (lower is better) whose values are lower bounds where `at_least[i]` (the build
/// has an unpriced part): each such value reads `at least $X`, is never best, and where the
/// least figure of all is one the row is undecided ([`MetricRow::undecided`]): the unpriced
/// parts could put that build above any other.
fn money(
    name: &'static str,
    vals: &[Option<f64>],
    at_least: &[bool],
    builds: &[BuildSummary],
    fmt: impl Fn(f64) -> String,
) -> MetricRow {
    let bound = |i: usize| at_least.get(i).copied().unwrap_or(false);
    let mut row = numeric(name, vals, Better::Lower, builds, fmt);
    for (i, v) in row.values.iter_mut().enumerate() {
        if bound(i) && v.starts_with('$') {
            *v = format!("at least {v}");
        }
    }
    // A lower bound may sit below the build's real figure: never the best.
    row.best.retain(|i| !bound(*i));
    // Every build's figure, ranked or not: a lower bound below all exact figures leaves the
    // order unknown.
    let known: Vec<(usize, f64)> = vals.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v))).collect();
    let least_exact = known.iter().filter(|(i, _)| !bound(*i)).map(|(_, v)| *v).fold(f64::INFINITY, f64::min);
    let least_bound = known.iter().filter(|(i, _)| bound(*i)).min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some(&(i, v)) = least_bound
        && known.len() >= 2
        && v < least_exact
    {
        row.best.clear();
        let name_of = |j: usize| builds.get(j).map_or("", |b| b.name.as_str());
        let value_of = |j: usize| row.values.get(j).map_or("", String::as_str);
        let others: Vec<String> =
            known.iter().filter(|(j, _)| *j != i).map(|(j, _)| format!("{}'s {}", name_of(*j), value_of(*j))).collect();
        let unpriced = builds.get(i).map_or(0, |b| b.unpriced_parts);
        row.undecided = Some(format!(
            "{}'s {} leaves out {} without a price, so it is a lower bound below {}: which costs least is not known",
            name_of(i),
            value_of(i),
            crate::fmt::count(unpriced, "part line"),
            others.join(" and ")
        ));
    }
    row
}

fn text(name: &'static str, values: Vec<String>) -> MetricRow {
    let differs = values.windows(2).any(|w| w[0] != w[1]);
    MetricRow {
        name,
        values,
        differs,
        best: Vec::new(),
        not_ranked: Vec::new(),
        better: Better::Neither,
        undecided: None,
    }
}

/// Builds side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The model asked for (`None`: each build's own workload model).
    pub model: Option<String>,
    /// One summary per build, in the order given.
    pub builds: Vec<BuildSummary>,
    /// One row per figure.
    pub rows: Vec<MetricRow>,
}

impl Comparison {
    /// Compares `builds` (each with its file name, if any) for `model`.
    pub fn of(builds: &[(Build, Option<String>)], catalog: &Catalog, model: Option<&str>) -> Comparison {
        let sums: Vec<BuildSummary> =
            builds.iter().map(|(b, f)| BuildSummary::of(b, catalog, model, f.clone())).collect();
        Comparison::from_summaries(sums, model)
    }

    /// The rows for these summaries.
    pub fn from_summaries(builds: Vec<BuildSummary>, model: Option<&str>) -> Comparison {
        let col = |f: &dyn Fn(&BuildSummary) -> Option<f64>| builds.iter().map(f).collect::<Vec<_>>();
        // A build with an unpriced part costs at least its priced lines: each of its money
        // figures is a lower bound (a 3-card build with an unpriced card is not cheaper than 2
        // cards), never best, and the row is undecided where it is the least ([`money`]).
        let at_least: Vec<bool> = builds.iter().map(|b| b.unpriced_parts > 0).collect();
        let rows = vec![
            text("Verdict", builds.iter().map(|b| b.verdict.clone()).collect()),
            text(
                "Coverage",
                builds.iter().map(|b| b.coverage.clone().unwrap_or_else(|| "not reported".into())).collect(),
            ),
            numeric("Errors", &col(&|b| Some(b.errors as f64)), Better::Lower, &builds, |v| format!("{v:.0}")),
            numeric("Warnings", &col(&|b| Some(b.warnings as f64)), Better::Lower, &builds, |v| format!("{v:.0}")),
            money("Parts cost (priced lines)", &col(&|b| Some(b.parts_usd)), &at_least, &builds, usd),
            numeric("Unpriced parts", &col(&|b| Some(b.unpriced_parts as f64)), Better::Neither, &builds, |v| {
                format!("{v:.0}")
            }),
            numeric("Wall power at full load", &col(&|b| b.full_load_wall_w), Better::Lower, &builds, |v| {
                format!("{v:.0} W")
            }),
            numeric("Heat at full load", &col(&|b| b.heat_w), Better::Lower, &builds, |v| {
                format!("{v:.0} W ({:.0} BTU/h)", v * BTU_PER_H_PER_W)
            }),
            text("Model", builds.iter().map(|b| b.model.clone().unwrap_or_else(|| "none".into())).collect()),
            text("LLM fit", builds.iter().map(|b| b.fit.clone().unwrap_or_else(|| "unknown".into())).collect()),
            numeric("Decode, tokens/s (all sequences)", &col(&|b| b.tokens_per_s), Better::Higher, &builds, |v| {
                format!("{v:.1}")
            }),
            // Amortised hardware with unpriced parts is a lower bound too (issue 26): the
            // build's hardware over 3 years and electricity, over its own decode.
            money("$ per million tokens", &col(&|b| b.usd_per_million_tokens), &at_least, &builds, |v| {
                format!("${v:.2}")
            }),
        ];
        Comparison { model: model.map(str::to_owned), builds, rows }
    }

    /// Plain text: one line per figure, `*` before a differing figure, `(best)` after the
    /// best value (after each of a tie); then the money figures that are undecided (a lower
    /// bound the least: [`MetricRow::undecided`]), why a build is not ranked on some figures,
    /// and the reasons for missing fit figures.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let names: Vec<&str> = self.builds.iter().map(|b| b.name.as_str()).collect();
        let width = self.rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(6);
        let _ = writeln!(s, "  {:width$}  {}", "", names.join("  |  "));
        for r in &self.rows {
            let vals: Vec<String> = r
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| if r.best.contains(&i) { format!("{v} (best)") } else { v.clone() })
                .collect();
            let mark = if r.differs { '*' } else { ' ' };
            let _ = writeln!(s, "{mark} {:width$}  {}", r.name, vals.join("  |  "));
        }
        // Where a lower bound is the least figure: no best, and why.
        for r in &self.rows {
            if let Some(why) = &r.undecided {
                let _ = writeln!(s, "{}: undecided: {why}", r.name);
            }
        }
        // Why a build is left out of "(best)": one line per build, naming the figures.
        for (i, b) in self.builds.iter().enumerate() {
            let rows: Vec<&str> =
                self.rows.iter().filter(|r| r.not_ranked.iter().any(|(j, _)| *j == i)).map(|r| r.name).collect();
            if let Some((_, why)) = self.rows.iter().find_map(|r| r.not_ranked.iter().find(|(j, _)| *j == i)) {
                let rows = match rows.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                    _ => rows.join(""),
                };
                let _ = writeln!(
                    s,
                    "{}: not marked (best) on {rows}, because {why}{}",
                    b.name,
                    if why.contains("UNVERIFIED") {
                        ": a check that did not run could have found an error"
                    } else {
                        ""
                    }
                );
            }
        }
        for b in &self.builds {
            if let Some(n) = &b.fit_note {
                let _ = writeln!(s, "{}: {n}", b.name);
            }
            for c in &b.speed_caveats {
                let _ = writeln!(s, "{}: speed caveat: {c}", b.name);
            }
        }
        let _ = writeln!(s, "* the builds differ in this figure");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(name: &str) -> Build {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../catalog/builds").join(name);
        crate::rig::load(&p, Some(&cat)).expect("reference build")
    }

    #[test]
    fn two_reference_builds_differ_and_the_best_is_marked() {
        let cat = kraftwerk_catalog::builtin().expect("catalog");
        let a = load("2x-rtx-4090-x870e.rig.ron");
        let b = load("8x-l40s-4u-server.rig.ron");
        let c = Comparison::of(&[(a.clone(), None), (b.clone(), None)], &cat, Some("llama-3.1-8b"));
        let power = c.rows.iter().find(|r| r.name == "Wall power at full load").expect("row");
        assert!(power.differs);
        let ra = check::run(&a, &cat);
        let rb = check::run(&b, &cat);
        let lower = usize::from(rb.power.total_wall_w < ra.power.total_wall_w);
        assert_eq!(power.best, vec![lower]);
        assert_eq!(c.builds[0].verdict, ra.verdict.to_string());
        assert!(c.text().contains("Wall power at full load"));
        let cost = c.rows.iter().find(|r| r.name == "Parts cost (priced lines)").expect("row");
        if c.builds.iter().any(|b| b.unpriced_parts > 0) {
            assert!(cost.best.is_empty(), "partial totals are not ranked");
            let mtok = c.rows.iter().find(|r| r.name == "$ per million tokens").expect("row");
            assert!(mtok.best.is_empty(), "a cost per token over partial prices is not ranked");
        }
        let same = Comparison::of(&[(a.clone(), None), (a, None)], &cat, None);
        assert!(same.rows.iter().all(|r| !r.differs && r.best.is_empty()), "a build equals itself");
    }
}

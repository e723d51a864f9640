//! `kraftwerk plan`'s text ([`text`]): the ranked builds with their parts, power, speed, cost
//! and checker verdict, the alternatives that lost and the binding constraints. The Plan tab
//! shows the same results from the same [`PlanOutcome`].

use crate::plan::evaluation::{Evaluation, Hybrid, fold_rules};
use crate::plan::{CheaperNotShown, PlanOutcome, PlanResult};
use std::fmt::Write as _;

/// Money, or "unknown".
fn usd(p: Option<f64>) -> String {
    p.map_or_else(|| "unknown".into(), crate::fmt::usd)
}

/// A part line's price: `used, $800 (GPUDojo, …, 2025-12)` for a used-market price, else the
/// price with its date and, past 12 months, its age (`$1499 (2020-09-24, 74 months old)`).
fn part_price(p: &crate::rig::parts_list::PricedLine, today: (i32, u32, u32)) -> String {
    let Some(x) = p.unit_price_usd else { return format!("{:>9}", "unknown") };
    let date = p.price_date.as_deref().map(|d| kraftwerk_catalog::prices::date_note(d, today));
    if p.owned() {
        return "owned, $0".to_owned();
    }
    if p.used() {
        let source = p.price_source.as_deref().unwrap_or_default();
        let source = source.strip_prefix(kraftwerk_catalog::cited::USED_PREFIX).unwrap_or(source);
        let source = source.split(" <").next().unwrap_or(source);
        return match date {
            Some(d) => format!("used, {} ({source}, {d})", usd(Some(x))),
            None => format!("used, {} ({source})", usd(Some(x))),
        };
    }
    match date {
        Some(d) => format!("{:>9} ({d})", usd(Some(x))),
        None => format!("{:>9}", usd(Some(x))),
    }
}

/// One result of [`text`], appended to `s`.
fn result_text(s: &mut String, r: &PlanResult) {
    let e = &r.eval;
    let price = if r.price_complete {
        usd(Some(r.price_usd))
    } else {
        format!("at least {} (prices unknown: {})", usd(Some(r.price_usd)), e.unpriced.join(", "))
    };
    // A QLoRA run loads its base in 4-bit NF4 and computes in the precision named: said so,
    // as `fit` says "qlora nf4" (a trial read "at bf16" and took it for a BF16 fine-tune).
    let qlora = r.build.workload.as_ref().is_some_and(|w| w.mode == crate::estimate::llm::Mode::Qlora);
    let at = if qlora { format!("QLoRA (NF4 base, {} compute)", r.precision) } else { r.precision.to_string() };
    let _ = writeln!(s, "\n{}. {} at {at}: {price}", r.rank, r.title);
    let today = kraftwerk_catalog::dates::today_utc();
    for p in &e.parts {
        let _ = writeln!(s, "     {:>2} x {:<52} {}", p.quantity, p.name, part_price(p, today));
    }
    let _ = writeln!(s, "   power: {}", power_line(e));
    // Each PSU's headroom at full load, against the margin the planner prefers.
    let margin = crate::estimate::power::PSU_RECOMMENDED_HEADROOM_W;
    for (i, (dc, rated)) in e.psu_loads.iter().enumerate() {
        let kept = if rated - dc >= margin { "keeps" } else { "below" };
        let _ = writeln!(
            s,
            "   PSU {}: {dc:.0} W of {rated:.0} W at full load ({:.0} %), {:.0} W headroom: {kept} the {margin:.0} W a PSU vendor recommends (Corsair)",
            i + 1,
            dc / rated.max(1.0) * 100.0,
            rated - dc
        );
    }
    if let Some(cap) = &e.power_cap {
        let _ = writeln!(s, "   power limit: {}", cap.describe());
    }
    if let Some(m) = &e.multi_psu {
        let _ = writeln!(s, "   PSUs: {m}");
    }
    for o in &e.owned_unused {
        let _ = writeln!(s, "   owned GPUs: {o}");
    }
    let num = |x: Option<f64>, unit: &str| x.map_or_else(|| "unknown".into(), |v| format!("{v:.1} {unit}"));
    // The runtime the result was judged with and is saved for (`workload.runtime`).
    let runtime = runtime_name(r);
    if let Some(setup) = &e.train_setup {
        let _ = writeln!(
            s,
            "   training ({setup}): {}{}",
            num(e.train_tokens_per_s, "tokens/s"),
            e.train_hours.map_or_else(String::new, |h| format!(", {h:.1} h for the goal's tokens"))
        );
        for c in e.speed_summary().caveat_lines() {
            let _ = writeln!(s, "   {c}");
        }
    } else {
        // The one spelling of the speed `fit`, the Fit tab and the Plan tab print too.
        let sp = e.speed_summary();
        let _ = writeln!(
            s,
            "   speed ({runtime}, {}): {} ({} in all)",
            r.precision,
            sp.line(),
            num(e.decode_total, "tok/s")
        );
        for c in sp.caveat_lines() {
            let _ = writeln!(s, "   {c}");
        }
    }
    if let Some(v) = &e.vllm_setting {
        let _ = writeln!(s, "   {}", vllm_setting_line(v));
    }
    if let Some(t) = memory_tight_line(e) {
        let _ = writeln!(s, "   {t}");
    }
    if let Some(m) = &r.measured {
        let _ = writeln!(s, "   speed basis: {}", m.basis);
        if let Some(b) = &m.below_target {
            let _ = writeln!(s, "   warning: {b}");
        }
    }
    if let Some(h) = &e.hybrid {
        let _ = writeln!(s, "   {}", hybrid_line(h));
        if let Some(n) = &h.precision_note {
            let _ = writeln!(s, "   precision: {n}");
        }
    }
    let _ = writeln!(s, "   cost: {}", cost_line(r));
    for line in checker_lines(e) {
        let _ = writeln!(s, "   {line}");
    }
    if let Some(v) = verify_line(e) {
        let _ = writeln!(s, "   {v}");
    }
}

/// The vLLM setting a result relies on, as one sentence (`kraftwerk plan` and the Plan tab):
/// `vLLM setting: --max-num-seqs 194 (vLLM's default 1024 does not start on these GPUs: ...);
/// KV pool 3.44 GiB, 100,011 tokens at it; ... run vllm serve ... --max-num-seqs 194`.
pub fn vllm_setting_line(v: &crate::plan::evaluation::VllmSetting) -> String {
    format!(
        "vLLM setting: --max-num-seqs {} (vLLM's default {} does not start on these GPUs: its profiling sampler step leaves the KV pool short of one sequence, as `kraftwerk fit` says); KV pool {:.2} GiB, {} tokens at it; speed and fit are estimated at it, and it is saved in the build (workload.max_num_seqs): run vllm serve ... --max-num-seqs {}",
        v.max_num_seqs,
        v.default_max_num_seqs,
        v.kv_pool_gib,
        crate::fmt::thousands(v.kv_tokens),
        v.max_num_seqs
    )
}

/// A result whose memory fit is tight, as one sentence (`kraftwerk plan` and the Plan tab):
/// `memory: tight, as kraftwerk fit says (the headroom the runtime keeps free is not all
/// left): GPU 1 ...: 21.7 of 24.0 GiB, only 2.3 of 2.4 GiB headroom left; the longest context
/// that fits at this batch is 8,209 tokens (8,192 asked)`; `None` where every GPU keeps its
/// headroom ([`Evaluation::memory_tight`]).
pub fn memory_tight_line(e: &Evaluation) -> Option<String> {
    (!e.memory_tight.is_empty()).then(|| {
        format!(
            "memory: tight, as `kraftwerk fit` says (the headroom the runtime keeps free is not all left): {}",
            e.memory_tight.join("; ")
        )
    })
}

/// What would verify a result's geometry, as a sentence: UNVERIFIED only where the checker
/// says so; one card on a board without positions has nothing to block or gap, so its verdict
/// stands and the line only says what would let the geometry rules run too. `None` when
/// nothing is missing.
pub fn verify_line(e: &Evaluation) -> Option<String> {
    let v = e.verify_with.as_ref()?;
    Some(if e.verdict == Some(crate::check::Verdict::Unverified) {
        let on = if e.owned_card_unchecked.is_empty() { " on geometry" } else { "" };
        format!("unverified{on}; what would verify it: {v}")
    } else {
        format!("geometry rules not run (one card: nothing to block or gap); what would run them: {v}")
    })
}

/// Power at the wall as the plan reports it: full load and serving, each circuit's current
/// against its continuous limit, and the heat (`1450 W at the wall at full load (980 W
/// serving); circuit 1: 12.1 of 12.0 A; heat 1450 W`).
pub fn power_line(e: &Evaluation) -> String {
    let circuits: Vec<String> = e
        .circuits
        .iter()
        .enumerate()
        .map(|(i, (a, c))| match a {
            // `+ 0.0` prints an empty circuit's -0.0 A (a sum of no loads) as 0.0.
            Some(a) => format!("circuit {}: {:.1} of {c:.1} A", i + 1, a + 0.0),
            None => format!("circuit {}: unknown of {c:.1} A", i + 1),
        })
        .collect();
    let w = super::watts_or_unknown;
    format!(
        "{} at the wall at full load ({} serving); {}; heat {}",
        w(e.wall_w),
        w(e.inference_wall_w),
        circuits.join(", "),
        w(e.heat_w)
    )
}

/// A wall draw in kW (`1.45 kW`), or `unknown` (a PSU of unknown efficiency).
pub fn kw(w: Option<f64>) -> String {
    crate::fmt::kilowatts_or_unknown(w)
}

/// The runtime a result was judged with and is saved for (`workload.runtime`), or "runtime
/// unknown".
pub fn runtime_name(r: &PlanResult) -> String {
    r.build.workload.as_ref().and_then(|w| w.runtime).map_or_else(|| "runtime unknown".into(), |rt| rt.to_string())
}

/// The hybrid CPU+GPU split of a result as one sentence: runtime and `--n-cpu-moe`, the
/// layers whose routed experts sit in system RAM, and the bandwidth they are read at.
pub fn hybrid_line(h: &Hybrid) -> String {
    // ktransformers places every routed expert in RAM by its own rule, not by a llama.cpp flag.
    let split = if h.runtime == crate::estimate::llm::Runtime::KTransformers {
        "ktransformers: every routed expert in system RAM".to_owned()
    } else {
        format!("{} --n-cpu-moe {}", h.runtime, h.n_cpu_moe)
    };
    format!(
        "hybrid CPU+GPU ({split}): the routed experts of {} layers in system RAM ({:.1} GiB of experts, {:.1} GiB of RAM in all, of {:.0} GiB installed), read at {:.0} GB/s ({} channels of {} MT/s: {})",
        h.cpu_moe_layers,
        h.host_experts_gib,
        h.host_ram_needed_gib,
        h.host_ram_gib,
        h.host_bandwidth_gb_s,
        h.channels,
        h.speed_mt_s,
        h.speed_basis
    )
}

/// Cost per million tokens and break-even against the cloud; "at least" where a part is
/// unpriced.
pub fn cost_line(r: &PlanResult) -> String {
    let e = &r.eval;
    let bound = if r.price_complete { "" } else { "at least " };
    let be = match &e.break_even {
        Some(b) => b.short(!r.price_complete),
        None => e.break_even_months.map_or_else(|| "never".into(), |m| format!("after {bound}{m:.1} months")),
    };
    let mtok = e.usd_per_mtok.map_or_else(|| "unknown".into(), |c| format!("{bound}${c:.2}"));
    format!("{mtok} per million tokens; break-even against {} {be}", e.cloud)
}

/// The checker's lines for a result: its verdict, each warning, each check that did not run
/// (geometry apart). One line per message ([`fold_rules`]): the geometry rules a board without
/// slot positions keeps from running share one reason (`not checked (geometry): case-gpu-fit,
/// gpu-slot-blocked, open-air-gap: ...`), as do the checks an owned card named by its chip
/// keeps from running.
pub fn checker_lines(e: &Evaluation) -> Vec<String> {
    let mut lines: Vec<String> = e.verdict.map(|v| format!("checker: {v}")).into_iter().collect();
    lines.extend(e.warnings.iter().map(|w| format!("warning: {w}")));
    lines.extend(e.not_checked_other.iter().map(|w| format!("not checked: {w}")));
    lines.extend(fold_rules(&e.geometry_unchecked).iter().map(|w| format!("not checked (geometry): {w}")));
    lines.extend(fold_rules(&e.owned_card_unchecked).iter().map(|w| format!("not checked (your card): {w}")));
    lines
}

/// The headline over the builds shown: how many are shown and, when the search found more that
/// meet the goal, of how many (`5 builds shown of the 41 found that meet the goal`; the JSON's
/// `stats.shown` and `stats.passing`), then the order they are in. It said "5 builds meet the
/// goal" over a closing line of "41 passed" (new-user trial).
pub fn headline(out: &PlanOutcome) -> String {
    let shown = out.results.len();
    let found = out.stats.passing.max(shown);
    let count = if found > shown {
        format!("{shown} build{} shown of the {found} found that meet the goal", if shown == 1 { "" } else { "s" })
    } else {
        format!("{shown} build{} the goal", if shown == 1 { " meets" } else { "s meet" })
    };
    format!(
        "{count} (fully priced builds first, then those whose speed rests on held measurements (no \"unvalidated\" caveat), then those with every GPU on CPU lanes, then those whose every placement check ran, then builds with priced GPUs; cheapest first within each; \"at least\" leaves out unpriced parts):"
    )
}

/// The builds not shown that met the goal for less than the cheapest fully priced build shown,
/// as one sentence (`kraftwerk plan` and the Plan tab; [`CheaperNotShown`]): how many, what
/// ranks them after the builds shown, the cheapest with its price, verdict and the checks that
/// did not run on it. Not a pass: the verdict is the checker's.
pub fn cheaper_not_shown_line(c: &CheaperNotShown) -> String {
    let what = if c.count == 1 { "1 cheaper build".to_owned() } else { format!("{} cheaper builds", c.count) };
    let marks = if c.ranked_after_for.is_empty() {
        " ranked after these by the order above".to_owned()
    } else {
        format!(" {}", c.ranked_after_for.join(", or "))
    };
    let verdict = c.cheapest_verdict.map_or_else(|| "checker verdict unknown".to_owned(), |v| format!("checker: {v}"));
    let unchecked = if c.cheapest_unchecked.is_empty() {
        String::new()
    } else {
        format!("; not checked: {}", c.cheapest_unchecked.join("; "))
    };
    format!(
        "also meet{} the goal, not shown: {what}{marks} (cheapest: {} at {}: {}, {verdict}{unchecked})",
        if c.count == 1 { "s" } else { "" },
        c.cheapest_title,
        c.cheapest_precision,
        crate::fmt::usd(c.cheapest_usd)
    )
}

/// The `kraftwerk plan` option that makes a relaxation, in words to append to it
/// (` (--used)`), so the reader of "with used cards allowed: ..." knows what to type; empty for a
/// constraint no option relaxes.
fn relaxation_flag(c: crate::plan::Constraint) -> &'static str {
    use crate::plan::Constraint;
    match c {
        Constraint::Budget | Constraint::Unknown => " (without --budget-usd)",
        Constraint::Power | Constraint::Checks => " (--circuits)",
        Constraint::Used => " (--used)",
        Constraint::Slots => " (without --form)",
        Constraint::Memory => " (--precision best)",
        Constraint::Speed => " (without --tok-s and --prefill-tok-s)",
        Constraint::Excluded | Constraint::Runtime => "",
    }
}

/// The outcome as `kraftwerk plan` prints it: the goal, each result (parts with their prices,
/// power and PSU headroom, the power cap, speed and its caveats, the hybrid split, cost, the
/// checker's verdict and what it did not check), the alternatives that lost, the binding
/// constraints with what relaxing each buys, the `saved` build files, and the search's counts.
pub fn text(out: &PlanOutcome, saved: &[String]) -> String {
    let mut s = format!("Goal: {}\n", out.goal);
    if out.results.is_empty() {
        s.push_str("\nNothing in the catalog meets this goal.\n");
    } else {
        let _ = writeln!(s, "{}", headline(out));
    }
    for r in &out.results {
        result_text(&mut s, r);
    }
    if let Some(c) = &out.cheaper_not_shown {
        let _ = writeln!(
            s,
            "\n{}; --max-results {} shows {}.",
            cheaper_not_shown_line(c),
            c.max_results_to_show,
            if c.count == 1 { "it" } else { "them" }
        );
    }
    if !out.rejected.is_empty() {
        s.push_str("\nAlternatives that lost:\n");
        for r in &out.rejected {
            let _ = writeln!(s, "  [{}] {}", r.constraint, r.reason);
        }
    }
    if !out.relaxations.is_empty() {
        let binding: Vec<String> = out.binding.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            s,
            "\nBinding constraint{}: {}",
            if binding.len() == 1 { "" } else { "s" },
            if binding.is_empty() {
                "none alone (relaxing any one constraint finds nothing)".into()
            } else {
                binding.join(", ")
            }
        );
        for r in &out.relaxations {
            let _ = writeln!(
                s,
                "  with {}{}: {}",
                r.change,
                relaxation_flag(r.constraint),
                r.buys.as_deref().unwrap_or("still nothing")
            );
        }
    }
    for p in saved {
        let _ = writeln!(s, "saved {p}");
    }
    let _ = writeln!(s, "\n{}", out.stats.summary());
    if out.cancelled {
        s.push_str("(cancelled: partial answer)\n");
    }
    s
}

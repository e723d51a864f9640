//! Text rendering of a check report and a power estimate: what `kraftwerk check` and
//! `kraftwerk power` print, and the body of the GUI's Markdown export. Both faces call this
//! module, so they print the same words.
//!
//! People count from 1: GPU 1, PSU 1, circuit 1 (the JSON output keeps 0-based indices).

pub mod fit;
pub mod markdown;
pub mod plan;
pub mod prices;

use crate::check::{Coverage, FindingKind, Report, Severity, Verdict};
use crate::estimate::power::{EfficiencyBasis, LoadState, PowerAdvice, PowerEstimate, ThermalRisk};
use crate::fmt::{count, duration, watts};
use std::fmt::Write as _;

/// Lower-case name of a thermal risk (`high`).
pub(crate) fn risk_name(r: ThermalRisk) -> &'static str {
    match r {
        ThermalRisk::Low => "low",
        ThermalRisk::Medium => "medium",
        ThermalRisk::High => "high",
        ThermalRisk::Unknown => "unknown",
    }
}

/// Rules listed by id in the headline up to this many; more are counted and listed below.
const HEADLINE_RULES: usize = 6;

/// The headline of a report: `NAME: PASS — 27 of 29 checks ran; 2 not checked: a, b  (0
/// errors, 3 warnings, 1 note)`.
pub fn headline(r: &Report) -> String {
    let c = &r.coverage;
    let cov = if c.not_checked.len() <= HEADLINE_RULES {
        c.summary()
    } else {
        format!("{} of {} checks ran; {} not checked (listed below)", c.ran, c.total, c.not_checked.len())
    };
    let body = if r.verdict == Verdict::Empty { "nothing chosen yet: nothing to check".to_owned() } else { cov };
    format!(
        "{}: {} — {body}  ({}, {}, {})",
        r.build,
        r.verdict,
        count(r.errors, "error"),
        count(r.warnings, "warning"),
        count(r.infos, "note")
    )
}

/// The "Not checked" section: one line per rule that did not run or ran only in part.
pub fn coverage_text(c: &Coverage) -> String {
    let mut s = String::new();
    if !c.either_direction.is_empty() {
        let _ = writeln!(
            s,
            "\nThe board's slot positions are forced by its slot count but no source says which end is nearest the CPU: {} judged both ways, same verdict either way.",
            c.either_direction.join(", ")
        );
    }
    if c.not_checked.is_empty() {
        return s;
    }
    let _ = writeln!(s, "\nNot checked ({} of {}):", c.not_checked.len(), c.total);
    for rc in &c.not_checked {
        let mut why = Vec::new();
        if !rc.missing_parts.is_empty() {
            let names: Vec<&str> = rc.missing_parts.iter().map(|k| k.name()).collect();
            why.push(format!("no {} chosen", names.join(", ")));
        }
        for u in &rc.unknown {
            why.push(format!("{} of {} unknown", u.figure, u.part_name));
        }
        let _ = writeln!(s, "  {:<20} {}", rc.rule, why.join("; "));
    }
    s
}

/// What an UNVERIFIED build needs before it can pass: one line per unknown figure, the one
/// that lets the most error-capable rules run first. Empty for any other verdict.
pub fn to_supply_text(r: &Report) -> String {
    let mut s = String::new();
    if r.verdict != Verdict::Unverified {
        return s;
    }
    let items = r.coverage.to_supply();
    let _ = writeln!(
        s,
        "Not a pass: {} that could report an error did not run. Supply, the figure that decides the most first:",
        if r.coverage.unverified.len() == 1 {
            "1 check".to_owned()
        } else {
            format!("{} checks", r.coverage.unverified.len())
        }
    );
    for t in &items {
        let _ = writeln!(s, "  - `{}` of {} (`{}`): lets {} run", t.figure, t.part_name, t.part_id, t.rules.join(", "));
    }
    s
}

/// Text rendering of a report (also the Markdown export's body).
pub fn report_text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", headline(r));
    s.push_str(&to_supply_text(r));
    for f in &r.findings {
        let tag = match (f.kind, f.severity) {
            (FindingKind::NotChecked, _) => "skip ",
            (_, Severity::Error) => "error",
            (_, Severity::Warning) => "warn ",
            (_, Severity::Info) => "info ",
        };
        // A rule that reported and also left a part unchecked (the length of a card checked, its
        // place in the case not): the skip line says "also", so the two lines do not read as a
        // contradiction.
        let also = f.kind == FindingKind::NotChecked
            && r.findings.iter().any(|o| o.rule == f.rule && o.kind != FindingKind::NotChecked);
        let _ = writeln!(s, "  {tag} [{}] {}{}", f.rule, if also { "also " } else { "" }, f.message);
        let _ = writeln!(s, "        fix: {}", f.fix);
    }
    s.push_str(&coverage_text(&r.coverage));
    let _ = writeln!(s);
    s.push_str(&power_text(&r.power));
    let _ = writeln!(s, "  ({})", r.power_basis);
    if let Some(a) = &r.advice {
        let _ = writeln!(s, "\nPower-limit advice, at full load (every GPU at its power limit): {}", a.problem);
        s.push_str(&advice_text(a));
    }
    s
}

/// The lines of the power-limit advice under its problem, as `check` and `power` print them:
/// the common cap with what it keeps within ([`PowerAdvice::basis`]), the full-load figures at
/// the cap beside the full-load figures as the build stands (like for like: never beside an
/// inference-load figure), and the other ways out.
pub fn advice_text(a: &PowerAdvice) -> String {
    let mut s = String::new();
    match (a.common_limit_w, a.throughput_kept) {
        (Some(l), Some(k)) => {
            let _ = writeln!(
                s,
                "  cap every GPU at {l:.0} W (nvidia-smi -pl {l:.0}): keeps about {:.0} % of full-load throughput, with {}",
                k * 100.0,
                a.basis
            );
            if let Some(e) = &a.at_limit {
                let _ = writeln!(s, "  {}", capped_full_load(a, e));
            }
        }
        _ => {
            let _ = writeln!(s, "  no common power limit within the cards' range brings {}", a.basis);
        }
    }
    for alt in &a.alternatives {
        let _ = writeln!(s, "  or: {alt}");
    }
    s
}

/// The full-load figures at the advice's cap beside those as the build stands: `full load
/// then: 2082 W DC, 2250 W at the wall (now 2262 W DC, 2456 W at the wall)`.
pub fn capped_full_load(a: &PowerAdvice, at_limit: &PowerEstimate) -> String {
    format!(
        "full load then: {:.0} W DC, {} at the wall (now {:.0} W DC, {} at the wall)",
        at_limit.total_dc_w,
        watts_or_unknown(at_limit.total_wall_w),
        a.full_load_dc_w,
        watts_or_unknown(a.full_load_wall_w)
    )
}

/// Text rendering of a power estimate.
pub fn power_text(e: &PowerEstimate) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Power at {} load: {:.0} W DC, {} at the wall, heat {}",
        e.state.name(),
        e.total_dc_w,
        watts_or_unknown(e.total_wall_w),
        e.heat_btu_h.map_or_else(|| "unknown".to_owned(), |h| format!("{h:.0} BTU/h"))
    );
    for c in &e.components {
        // "(PSU n)" only where the build has PSUs to name.
        let psu = if e.psus.is_empty() { String::new() } else { format!("  (PSU {})", c.psu + 1) };
        let _ = writeln!(s, "  {:<44} {:>9}{psu}", c.label, watts(c.power_w));
    }
    if e.psus.is_empty() {
        let _ = writeln!(s, "  no PSU chosen: wall draw unknown (no PSU efficiency); no PSU check ran");
    }
    for p in &e.psus {
        let wall = match (p.efficiency, p.wall_w, p.amps) {
            (Some(eff), Some(w), Some(a)) => format!(
                "efficiency {:.1} %{}, {w:.0} W from the wall ({a:.1} A; inlet {:.0} A)",
                eff * 100.0,
                if p.efficiency_basis == EfficiencyBasis::CertificationMinimum {
                    " (80 PLUS certification minimum)"
                } else {
                    ""
                },
                p.inlet_a
            ),
            _ => format!(
                "efficiency unknown (no 80 PLUS rating known, no published curve), wall draw unknown (inlet {:.0} A)",
                p.inlet_a
            ),
        };
        let _ = writeln!(
            s,
            "  PSU {} {}: {:.0} W of {:.0} W ({:.0} %), {wall}",
            p.index + 1,
            p.name,
            p.dc_w,
            p.rated_w,
            p.load_fraction * 100.0,
        );
        for t in &p.transients {
            let _ = writeln!(
                s,
                "      peak {:>6}: {:>6.0} W  limit {}",
                duration(t.duration_s),
                t.peak_w,
                t.limit_w.map_or_else(|| "none (no ATX 3.x excursion spec)".to_owned(), |l| format!("{l:.0} W"))
            );
        }
    }
    if e.state == LoadState::Idle && !e.psus.is_empty() {
        let _ = writeln!(s, "  transient peaks: GPUs spike under load; see `--state training`");
    }
    for c in &e.circuits {
        let draw = match (c.wall_w, c.amps) {
            (Some(w), Some(a)) => format!("{w:.0} W, {a:.1} A"),
            _ => format!("unknown (at least the {:.0} W DC load its PSUs carry)", c.dc_w),
        };
        let _ = writeln!(
            s,
            "  circuit {}: {draw} of {:.0} A breaker ({:.1} A continuous)",
            c.index + 1,
            c.breaker_a,
            c.continuous_a
        );
    }
    let _ = writeln!(
        s,
        "  electricity: {}",
        e.cost.as_ref().map_or_else(|| "unknown (the wall draw is unknown)".to_owned(), electricity_text)
    );
    for t in &e.gpu_thermal {
        let _ = writeln!(s, "  GPU {} thermal risk {}: {}", t.gpu + 1, risk_name(t.risk), t.reason);
    }
    s
}

/// `1234 W`, or `unknown` for a wall draw nobody can know.
pub fn watts_or_unknown(w: Option<f64>) -> String {
    w.map_or_else(|| "unknown".to_owned(), |w| format!("{w:.0} W"))
}

/// The electricity figures with their basis, one line for every face (`check`, `power`, the
/// Power tab's hover): "$0.13/h at 775 W; $54/month, $650/year: 50 % of the hours at 775 W,
/// the rest idle at 95 W".
pub fn electricity_text(c: &crate::estimate::power::EnergyCost) -> String {
    format!(
        "{}/h at {:.0} W; {}/month, {}/year: {:.0} % of the hours at {:.0} W, the rest idle at {:.0} W (the site's duty_cycle)",
        crate::fmt::usd_rate(c.per_hour_usd),
        c.working_wall_w,
        crate::fmt::usd(c.per_month_usd),
        crate::fmt::usd(c.per_year_usd),
        c.duty * 100.0,
        c.working_wall_w,
        c.idle_wall_w
    )
}

//! The wall side of the power rules: the circuit's breaker (`wall-circuit`) and each PSU's
//! inlet and wall outlet (`psu-inlet`), with the circuit's draw in words, its breaker's
//! tolerance and the circuit fix.

use super::{
    Ctx, Figure, Need, PartRef, Rule, RuleDoc, Severity, finding, plural, power_limit_to_fit, set_limit_command,
};
use crate::estimate::power::{CONTINUOUS_FRACTION, breaker_tolerance, breaker_tolerance_at_least};
use kraftwerk_catalog::{HIGH_LINE_MIN_V, PartKind};

/// The circuit fix: the common GPU power limit that keeps every circuit within its continuous
/// limit at full load ([`power_limit_to_fit`]), with its command and cost, or other ways out.
fn circuit_fix(c: &Ctx<'_>, ci: &crate::estimate::power::CircuitLoad) -> String {
    // A circuit whose draw is unknown (a PSU of unknown efficiency) is judged by the least its
    // draw can be: a limit that brings that within is needed, not shown to be enough.
    let cap =
        power_limit_to_fit(&c.r, |e| e.circuits.iter().all(|k| k.amps.unwrap_or(k.min_amps) <= k.continuous_a + 1e-9));
    let unknown = c.power.circuits.iter().any(|k| k.amps.is_none());
    // Splitting helps only with several PSUs, each within one circuit's limit at full load.
    let full = c.full_power.as_ref().unwrap_or(&c.power);
    let split = if full.psus_can_split_over(ci.continuous_w) { "split the PSUs over more circuits, or " } else { "" };
    let rest = format!("{split}use a 240 V / 20 A circuit; stay under {:.0} W per circuit", ci.continuous_w);
    match (cap, unknown) {
        (Some(f), false) => format!(
            "Cap every GPU at {:.0} W ({}): keeps about {:.0} % of throughput and full load within every circuit's continuous limit; or {rest}.",
            f.limit_w,
            set_limit_command(c, f.limit_w),
            f.throughput_kept * 100.0
        ),
        (Some(f), true) => format!(
            "Cap every GPU at {:.0} W or lower ({}; keeps at most about {:.0} % of throughput): at {:.0} W the least draw of every circuit is within its continuous limit, which is needed but not shown to be enough, as a PSU's efficiency is unknown (enter its 80 PLUS rating or efficiency points); or {rest}.",
            f.limit_w,
            set_limit_command(c, f.limit_w),
            f.throughput_kept * 100.0,
            f.limit_w
        ),
        (None, false) => format!("No common power limit within the cards' ranges fits the circuit: {rest}."),
        (None, true) => format!(
            "No common power limit within the cards' ranges brings even the least draw (the DC load of the PSUs of unknown efficiency) within the continuous limit: {rest}."
        ),
    }
}

/// Rule: wall draw against the circuit (id and docs in `doc`).
pub(crate) static WALL_CIRCUIT: Rule = Rule {
    doc: RuleDoc {
        id: "wall-circuit",
        family: "power",
        severity: Severity::Error,
        title: "Wall draw against the circuit's breaker",
        checks: "AC draw of the PSUs on each circuit (DC load through each PSU's efficiency curve: its published points, else its 80 PLUS level's certification minimums) against its breaker. A PSU with neither (no 80 PLUS rating known) leaves its circuit's wall draw unknown: the circuit is not checked, unless its PSUs' DC load alone, the least the wall draw can be, is already over. At the workload's own load: over the breaker is an error; over the continuous limit (80 % of the breaker) is an error for a workload that holds its load for hours (no workload, a training mode, or batch serving: `batch` over 1) and a warning for single-stream inference. A build checked at inference load is also estimated at full load (every GPU at its power limit: a model load, a prefill burst or a second job): a circuit over its breaker there is a warning that states how long the breaker tolerates it from its standard's trip points (see the figures), or that the time is unknown, and a circuit over its continuous limit there (within it at the workload's own load) is a warning too: the figure `kraftwerk power` and the power-limit advice judge, reported by the checker with the load it is at and why it is not an error. The fix names the common GPU power limit that keeps full load within every circuit's continuous limit, with its command and throughput cost.",
        why: "US NEC 210.19(A)/210.20(A) allow a continuous load (3 h or more) of 80 % of the breaker (15 A at 120 V = 1440 W continuous, 1800 W absolute): a training run is such a load. A breaker trips on its time-current curve: a UL 489 breaker must hold 100 %, trip within 1 h at 135 % and within 2 min at 200 % (https://optifuse.com/blog/ul-circuit-breakers); an IEC 60898-1 breaker must not trip within 1 h at 1.13 In and must trip within 1 h at 1.45 In (https://www.se.com/in/en/faqs/FA369327/). A burst of seconds over the rating is inside those times, so at inference load it is a warning, not an error; between the standards' points the time is the breaker's own curve, which is not known. Each circuit is summed on its own; the outlets on it are the psu-inlet rule's.",
        fix: "Cap every GPU at the limit the finding names (`sudo nvidia-smi -pl W`), split the PSUs over more circuits, or use a 240 V / 20 A circuit.",
    },
    needs: &[Need::Part(PartKind::Psu), Need::Figure(Figure::PsuEfficiency)],
    figures: Some(|| {
        format!(
            "  continuous limit: {:.0} % of the breaker\n  UL 489 (sites below 180 V): holds 100 %, trips within 1 h at {:.0} %, within 2 min at {:.0} %\n  IEC 60898-1 (high-line sites): no trip within 1 h at {:.0} %, trips within 1 h at {:.0} %\n",
            CONTINUOUS_FRACTION * 100.0,
            crate::estimate::power::UL489_TRIP_1H_FRACTION * 100.0,
            crate::estimate::power::UL489_TRIP_2MIN_FRACTION * 100.0,
            crate::estimate::power::IEC60898_NO_TRIP_1H_FRACTION * 100.0,
            crate::estimate::power::IEC60898_TRIP_1H_FRACTION * 100.0
        )
    }),
    check: |c, out| {
        let v = c.build().site.mains_v;
        let circuits = c.build().site.circuits.max(1);
        for (i, u) in c.build().psus.iter().enumerate() {
            if u.circuit >= circuits {
                out.push(finding(
                    &WALL_CIRCUIT,
                    Severity::Error,
                    format!(
                        "PSU {} is plugged into circuit {}, but the site has {circuits} circuit{}: its load lands on a circuit already in use",
                        i + 1,
                        u.circuit + 1,
                        plural(circuits as u64)
                    ),
                    vec![PartRef::Psu(i), PartRef::Circuit(u.circuit)],
                    "Set the site's `circuits` to the independent circuits you really have, or move the PSU.",
                ));
            }
        }
        let sustained = crate::check::sustains_load(c.build());
        for ci in &c.power.circuits {
            // A circuit through a PSU of unknown efficiency is not checked (coverage says so),
            // unless its PSUs' DC load alone, which the wall draw is at least, is already over.
            let (amps, draws) = circuit_draw(ci, v);
            let (sev, what) = if amps > ci.breaker_a {
                (Severity::Error, format!("over the breaker ({})", tolerance(ci, amps, v)))
            } else if amps > ci.continuous_a && sustained {
                (Severity::Error, "over the continuous limit for a load held for hours".to_owned())
            } else if amps > ci.continuous_a {
                (
                    Severity::Warning,
                    "over the continuous limit (single-stream inference: not held for hours)".to_owned(),
                )
            } else {
                continue;
            };
            out.push(finding(
                &WALL_CIRCUIT,
                sev,
                format!(
                    "circuit {} draws {draws} at {v:.0} V at {} load: {what} ({:.0} A breaker = {:.0} W; continuous {:.1} A = {:.0} W)",
                    ci.index + 1,
                    c.power.state.name(),
                    ci.breaker_a,
                    ci.breaker_w,
                    ci.continuous_a,
                    ci.continuous_w
                ),
                vec![PartRef::Circuit(ci.index)],
                circuit_fix(c, ci),
            ));
        }
        // At inference load the build still reaches full load in a model load, a prefill burst
        // or a second job: a circuit over its breaker then is a warning with the time its
        // breaker tolerates it, and one over its continuous limit (the figure `kraftwerk power`
        // and its advice judge) a warning that says which load it is and why not an error.
        let Some(full) = &c.full_power else { return };
        for ci in &full.circuits {
            let (amps, draws) = circuit_draw(ci, v);
            let light = c.power.circuits.iter().find(|s| s.index == ci.index);
            let light_amps = light.map(|s| circuit_draw(s, v).0);
            let lighter =
                light.map_or(String::new(), |s| s.amps.map_or_else(|| "unknown".to_owned(), |a| format!("{a:.1} A")));
            let what = if amps > ci.breaker_a {
                // Already an error at the workload's own load: no second finding.
                if light_amps.is_some_and(|a| a > ci.breaker_a) {
                    continue;
                }
                format!("over its {:.0} A breaker ({:.0} W); {}", ci.breaker_a, ci.breaker_w, tolerance(ci, amps, v))
            } else if amps > ci.continuous_a {
                // Already reported at the workload's own load (over the continuous limit there).
                if light_amps.is_some_and(|a| a > ci.continuous_a) {
                    continue;
                }
                full_load_over_continuous(ci, sustained)
            } else {
                continue;
            };
            out.push(finding(
                &WALL_CIRCUIT,
                Severity::Warning,
                format!(
                    "circuit {} draws {draws} at {v:.0} V at full load (every GPU at its power limit: a model load, a prefill burst or a second job): {what}; at {} load it draws {lighter}",
                    ci.index + 1,
                    c.power.state.name(),
                ),
                vec![PartRef::Circuit(ci.index)],
                circuit_fix(c, ci),
            ));
        }
    },
};

/// Why a circuit within its breaker but over its continuous limit at full load, while within it
/// at the workload's lighter load, is a warning: the continuous limit (NEC 210.19(A)/210.20(A),
/// 80 % of the breaker) is for a load held 3 h or more, and this workload holds its own, lighter
/// load; full load held that long (a second job, a training run) would be over it.
fn full_load_over_continuous(ci: &crate::estimate::power::CircuitLoad, sustained: bool) -> String {
    let held = if sustained {
        "this workload (batch serving) holds its inference load for hours and reaches full load in bursts"
    } else {
        "this workload (single-stream inference) reaches full load in bursts"
    };
    format!(
        "within its {:.0} A breaker ({:.0} W), over its continuous limit of {:.1} A = {:.0} W ({:.0} % of the breaker, US NEC 210.19(A)/210.20(A), for a load held 3 h or more); a warning, not an error, because {held}: full load held that long (a training run or a second job) is over the limit",
        ci.breaker_a,
        ci.breaker_w,
        ci.continuous_a,
        ci.continuous_w,
        CONTINUOUS_FRACTION * 100.0
    )
}

/// A circuit's current, A, and its draw in words: its wall draw where known (`1900 W = 15.8 A`),
/// else the least it can be, the wall draw of its PSUs of known efficiency plus the DC load of
/// the others (`at least 1700 W = 14.2 A (...)`).
fn circuit_draw(ci: &crate::estimate::power::CircuitLoad, v: f64) -> (f64, String) {
    if let (Some(w), Some(a)) = (ci.wall_w, ci.amps) {
        return (a, format!("{w:.0} W = {a:.1} A"));
    }
    let a = ci.min_wall_w / v.max(1.0);
    (
        a,
        format!(
            "at least {:.0} W = {a:.1} A (the DC load of its PSUs of unknown efficiency plus the wall draw of the others; its wall draw is more)",
            ci.min_wall_w
        ),
    )
}

/// How long the circuit's breaker tolerates `amps`: the standard's points for a known draw,
/// only those the draw is certainly past for a lower bound.
fn tolerance(ci: &crate::estimate::power::CircuitLoad, amps: f64, v: f64) -> String {
    if ci.amps.is_some() {
        breaker_tolerance(amps / ci.breaker_a, v)
    } else {
        breaker_tolerance_at_least(amps / ci.breaker_a, v)
    }
}

/// Rule: PSU inlet and wall outlet current (id and docs in `doc`).
pub(crate) static PSU_INLET: Rule = Rule {
    doc: RuleDoc {
        id: "psu-inlet",
        family: "power",
        severity: Severity::Error,
        title: "PSU inlet and wall outlet current",
        checks: "Each PSU's AC current (through its published efficiency curve or its 80 PLUS level's certification minimums; a PSU with neither is not checked unless its DC load alone is already over) against its inlet's rating (IEC C14: 10 A, 15 A in North America; C20: 16 A, 20 A in North America). Each wall outlet of the site (`site.outlets`: NEMA 5-15 12 A continuous of 15 A, NEMA 5-20 16 of 20 A, Schuko 10 of 16 A, IEC 60309 at its rating) against the sum of the PSUs plugged into it, so two PSUs on one power strip share one outlet: over its rating an error, over its continuous limit a warning. A PSU in no listed outlet has one of its own rated `site.outlet_continuous_a` (Schuko's 10 A at 230 V).",
        why: "Over its rating the inlet and cord overheat (IEC 60320); a receptacle carries at most 80 % of its rating as a continuous cord-and-plug load (US NEC 210.21(B)(2)); a Schuko socket is not rated for continuous full load (elektrofachkraft.de). The breaker behind the outlet is the wall-circuit rule's. Sources in docs/sources.md.",
        fix: "Lower the load on that PSU, use a C20 unit and cord, plug the PSUs into separate outlets, or use an outlet rated for the load (IEC 60309 / C19 PDU).",
    },
    needs: &[Need::Part(PartKind::Psu), Need::Figure(Figure::PsuEfficiency)],
    figures: None,
    check: |c, out| {
        let v = c.build().site.mains_v.max(1.0);
        // A PSU of unknown efficiency draws at least its DC load (coverage says the rest is
        // not checked).
        let at_least = |known: bool| if known { "" } else { "at least " };
        for p in &c.power.psus {
            let amps = p.amps.unwrap_or(p.dc_w / v);
            let how = at_least(p.amps.is_some());
            if amps > p.inlet_a {
                out.push(finding(
                    &PSU_INLET,
                    Severity::Error,
                    format!(
                        "PSU {} ({}) draws {how}{:.1} A through an inlet rated {:.0} A",
                        p.index + 1,
                        p.name,
                        amps,
                        p.inlet_a
                    ),
                    vec![PartRef::Psu(p.index)],
                    "Use a PSU with a C20 inlet or split its load.",
                ));
            } else if p.outlet.is_none()
                && amps > p.outlet_a
                && (c.build().site.outlet_continuous_a.is_some() || c.build().site.mains_v >= HIGH_LINE_MIN_V)
            {
                out.push(finding(
                    &PSU_INLET,
                    Severity::Warning,
                    format!(
                        "PSU {} ({}) draws {how}{:.1} A from an outlet good for {:.1} A continuous",
                        p.index + 1,
                        p.name,
                        amps,
                        p.outlet_a
                    ),
                    vec![PartRef::Psu(p.index)],
                    "Use an outlet rated for the load (IEC 60309 / C19 PDU) or split the load.",
                ));
            }
        }
        for o in &c.power.outlets {
            // Unknown: the least it can be, the wall draw of its PSUs of known efficiency plus
            // the DC load of the others.
            let least: f64 =
                c.power.psus.iter().filter(|p| p.outlet == Some(o.index)).map(|p| p.wall_w.unwrap_or(p.dc_w)).sum();
            let amps = o.amps.unwrap_or(least / v);
            let how = at_least(o.amps.is_some());
            let sev = if amps > o.rated_a {
                Severity::Error
            } else if amps > o.continuous_a {
                Severity::Warning
            } else {
                continue;
            };
            let psus: Vec<String> = o.psus.iter().map(|p| (p + 1).to_string()).collect();
            out.push(finding(
                &PSU_INLET,
                sev,
                format!(
                    "outlet {} ({}) carries {how}{:.1} A for PSU {}: {} ({:.0} A rated, {:.1} A continuous)",
                    o.index + 1,
                    o.kind,
                    amps,
                    psus.join(" and "),
                    if sev == Severity::Error { "over its rating" } else { "over its continuous limit" },
                    o.rated_a,
                    o.continuous_a
                ),
                o.psus.iter().map(|&p| PartRef::Psu(p)).collect(),
                "Plug the PSUs into separate outlets (one per PSU), or use an outlet rated for the load.",
            ));
        }
    },
};

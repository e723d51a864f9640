//! `kraftwerk check`, `kraftwerk rules`, `kraftwerk power`: the checker and the power
//! estimate on the command line.

use super::{Format, load_catalog, print_json};
use crate::build::{self, Build};
use crate::catalog::Catalog;
use crate::check::{self, RULES, Report, Severity, Verdict};
use crate::estimate::power::{self, LoadState, PowerEstimate};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Loads the catalog and a build file; prints the located error and returns exit code 2 on
/// failure.
pub(crate) fn load_build(path: &Path) -> Result<(Catalog, Build), ExitCode> {
    let catalog = load_catalog()?;
    match build::load(path, Some(&catalog)) {
        Ok(b) => Ok((catalog, b)),
        Err(e) => {
            eprintln!("kraftwerk: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Prints one rule's documentation.
pub fn explain(id: &str) -> ExitCode {
    let Some(rule) = check::rule(id) else {
        eprintln!("kraftwerk: no rule `{id}`; `kraftwerk rules` lists them");
        return ExitCode::from(2);
    };
    let d = &rule.doc;
    println!("{} ({}, default severity {})\n{}\n", d.id, d.family, d.severity, d.title);
    println!("What it checks:\n  {}\n", d.checks);
    println!("Why it matters:\n  {}\n", d.why);
    println!("How to fix:\n  {}", d.fix);
    ExitCode::SUCCESS
}

/// `kraftwerk rules`.
pub fn rules(format: Format) -> ExitCode {
    if format == Format::Json {
        let docs: Vec<_> = RULES.iter().map(|r| r.doc).collect();
        return print_json(&docs);
    }
    let mut family = "";
    for r in RULES {
        if r.doc.family != family {
            family = r.doc.family;
            println!("{family}");
        }
        println!("  {:<20} {:<8} {}", r.doc.id, r.doc.severity.to_string(), r.doc.title);
    }
    println!("\n`kraftwerk check --explain RULE` prints a rule's documentation.");
    ExitCode::SUCCESS
}

/// Text rendering of a report (also used for the Markdown export's body).
pub fn report_text(r: &Report) -> String {
    let mut s = String::new();
    let _ =
        writeln!(s, "{}: {}  ({} errors, {} warnings, {} notes)", r.build, r.verdict, r.errors, r.warnings, r.infos);
    for f in &r.findings {
        let tag = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warn ",
            Severity::Info => "info ",
        };
        let _ = writeln!(s, "  {tag} [{}] {}", f.rule, f.message);
        let _ = writeln!(s, "        fix: {}", f.fix);
    }
    let _ = writeln!(s);
    s.push_str(&power_text(&r.power));
    if let Some(a) = &r.advice {
        let _ = writeln!(s, "\nPower-limit advice: {}", a.problem);
        match (a.common_limit_w, a.throughput_kept) {
            (Some(l), Some(k)) => {
                let _ = writeln!(
                    s,
                    "  cap every GPU at {l:.0} W (nvidia-smi -pl {l:.0}): keeps about {:.0} % of full-load throughput",
                    k * 100.0
                );
                if let Some(e) = &a.at_limit {
                    let _ = writeln!(s, "  then: {:.0} W DC, {:.0} W at the wall", e.total_dc_w, e.total_wall_w);
                }
            }
            _ => {
                let _ = writeln!(s, "  no common power limit within the cards' range fits");
            }
        }
        for alt in &a.alternatives {
            let _ = writeln!(s, "  or: {alt}");
        }
    }
    s
}

/// Text rendering of a power estimate.
pub fn power_text(e: &PowerEstimate) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Power ({}): {:.0} W DC, {:.0} W at the wall, heat {:.0} BTU/h",
        e.state.name(),
        e.total_dc_w,
        e.total_wall_w,
        e.heat_btu_h
    );
    for c in &e.components {
        let _ = writeln!(s, "  {:<44} {:>7.0} W  (PSU {})", c.label, c.power_w, c.psu + 1);
    }
    for p in &e.psus {
        let _ = writeln!(
            s,
            "  PSU {} {}: {:.0} W of {:.0} W ({:.0} %), efficiency {:.1} %, {:.0} W from the wall ({:.1} A; inlet {:.0} A)",
            p.index + 1,
            p.name,
            p.dc_w,
            p.rated_w,
            p.load_fraction * 100.0,
            p.efficiency * 100.0,
            p.wall_w,
            p.amps,
            p.inlet_a
        );
        for t in &p.transients {
            let d = if t.duration_s < 1e-3 {
                format!("{:.0} µs", t.duration_s * 1e6)
            } else {
                format!("{:.0} ms", t.duration_s * 1e3)
            };
            let _ = writeln!(
                s,
                "      peak {d:>6}: {:>6.0} W  limit {}",
                t.peak_w,
                t.limit_w.map_or_else(|| "none (no ATX 3.x spec)".to_owned(), |l| format!("{l:.0} W"))
            );
        }
    }
    for c in &e.circuits {
        let _ = writeln!(
            s,
            "  circuit {}: {:.0} W, {:.1} A of {:.0} A breaker ({:.1} A continuous)",
            c.index + 1,
            c.wall_w,
            c.amps,
            c.breaker_a,
            c.continuous_a
        );
    }
    let _ = writeln!(
        s,
        "  electricity: ${:.2}/h running, ${:.0}/month, ${:.0}/year at the site's duty cycle",
        e.cost.per_hour_usd, e.cost.per_month_usd, e.cost.per_year_usd
    );
    for t in &e.gpu_thermal {
        let _ = writeln!(s, "  GPU {} thermal risk {:?}: {}", t.gpu + 1, t.risk, t.reason);
    }
    s
}

/// `kraftwerk check BUILD`.
pub fn check(path: &Path, format: Format) -> ExitCode {
    let (catalog, b) = match load_build(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let report = check::run(&b, &catalog);
    let code = if report.verdict == Verdict::Fail { ExitCode::from(1) } else { ExitCode::SUCCESS };
    if format == Format::Json {
        let printed = print_json(&report);
        if printed != ExitCode::SUCCESS {
            return printed;
        }
    } else {
        print!("{}", report_text(&report));
    }
    code
}

/// `kraftwerk power BUILD [--state]`.
pub fn power(path: &Path, state: LoadState, format: Format) -> ExitCode {
    let (catalog, b) = match load_build(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let r = b.resolve(&catalog);
    let e = power::estimate(&r, state);
    let advice = power::advise(&r);
    if format == Format::Json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            estimate: &'a PowerEstimate,
            advice: &'a Option<power::PowerAdvice>,
        }
        return print_json(&Out { estimate: &e, advice: &advice });
    }
    print!("{}", power_text(&e));
    if let Some(a) = advice {
        println!("\nAdvice (full load): {}", a.problem);
        if let (Some(l), Some(k)) = (a.common_limit_w, a.throughput_kept) {
            println!("  cap every GPU at {l:.0} W: keeps about {:.0} % of throughput", k * 100.0);
        }
        for alt in a.alternatives {
            println!("  or: {alt}");
        }
    }
    ExitCode::SUCCESS
}

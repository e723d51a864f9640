//! `kraftwerk check`, `kraftwerk rules`, `kraftwerk power`: the checker and the power
//! estimate on the command line.

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::catalog::Catalog;
use crate::check::{self, RULES, Verdict};
use crate::estimate::power::{self, LoadState, PowerEstimate};
use crate::report::{advice_text, power_text, report_text};
use crate::rig::Build;
use std::path::Path;

/// Loads the catalog and a build file with the one loader ([`crate::rig::load`]).
///
/// # Errors
/// [`CliError::Build`] (located, exit 2) or the catalog's [`CliError::BadInput`].
pub(crate) fn load_build(path: &Path) -> Result<(Catalog, Build), CliError> {
    let catalog = load_catalog()?;
    let build = crate::rig::load(path, Some(&catalog))?;
    Ok((catalog, build))
}

/// Prints one rule's documentation.
pub fn explain(id: &str) -> Result<(), CliError> {
    let Some(rule) = check::rule(id) else {
        let ids: Vec<&str> = check::RULES.iter().map(|r| r.doc.id).collect();
        return Err(bad(format!(
            "no rule `{id}`{}; `kraftwerk rules` lists them",
            crate::catalog::search::did_you_mean(&ids, id)
        )));
    };
    let d = &rule.doc;
    outln!("{} ({}, default severity {})\n{}\n", d.id, d.family, d.severity, d.title);
    outln!("What it checks:\n  {}\n", d.checks);
    outln!("Why it matters:\n  {}\n", d.why);
    outln!("How to fix:\n  {}", d.fix);
    if let Some(figures) = rule.figures {
        outln!("\nFigures (from the constants the check uses):\n{}", figures());
    }
    if !rule.needs.is_empty() {
        let needs: Vec<String> = rule
            .needs
            .iter()
            .map(|n| match n {
                check::Need::Part(k) => k.name().to_owned(),
                check::Need::Figure(f) => format!("`{}`", f.field()),
            })
            .collect();
        outln!("\nNeeds (else \"not checked\"): {}", needs.join(", "));
    }
    Ok(())
}

/// `kraftwerk rules`.
pub fn rules(format: Format) -> Result<(), CliError> {
    if format == Format::Json {
        #[derive(serde::Serialize)]
        struct Doc {
            #[serde(flatten)]
            rule: check::RuleDoc,
            needs: &'static [check::Need],
            figures: Option<String>,
        }
        let docs: Vec<Doc> =
            RULES.iter().map(|r| Doc { rule: r.doc, needs: r.needs, figures: r.figures.map(|f| f()) }).collect();
        return print_json(&docs);
    }
    let mut family = "";
    for r in RULES {
        if r.doc.family != family {
            family = r.doc.family;
            outln!("{family}");
        }
        outln!("  {:<20} {:<8} {}", r.doc.id, r.doc.severity.to_string(), r.doc.title);
    }
    outln!("\n`kraftwerk check --explain RULE` prints a rule's documentation.");
    Ok(())
}

/// `kraftwerk check BUILD`.
pub fn check(path: &Path, format: Format) -> Result<(), CliError> {
    let (catalog, b) = load_build(path)?;
    let report = check::run(&b, &catalog);
    let code = match report.verdict {
        Verdict::Fail => Err(CliError::Failed(None)),
        // Not a pass: parts the rules need are missing, nothing is chosen, or a rule that could
        // report an error did not run (a figure it needs is unknown).
        Verdict::Incomplete | Verdict::Empty | Verdict::Unverified => Err(CliError::NotAPass),
        Verdict::Pass | Verdict::Warnings => Ok(()),
    };
    if format == Format::Json {
        print_json(&report)?;
    } else {
        out!("{}", report_text(&report));
    }
    code
}

/// `kraftwerk power BUILD [--state]`: the estimate at `--state`, the power rules' findings as
/// `check` reports them (the same [`check::run`], at the build's workload), and the advice.
pub fn power(path: &Path, state: LoadState, format: Format) -> Result<(), CliError> {
    let (catalog, b) = load_build(path)?;
    let r = b.resolve(&catalog);
    let e = power::estimate(&r, state);
    let report = check::run(&b, &catalog);
    let findings = check::power_findings(&report);
    let advice = power::advise(&r);
    if format == Format::Json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            estimate: &'a PowerEstimate,
            /// The power rules' findings as `check` reports them.
            findings: &'a [&'a check::Finding],
            /// The worst of them (`null`: none).
            severity: Option<check::Severity>,
            /// The load `check` judged the build at, in words.
            power_basis: &'a str,
            advice: &'a Option<power::PowerAdvice>,
        }
        return print_json(&Out {
            estimate: &e,
            findings: &findings,
            severity: check::power_severity(&report),
            power_basis: &report.power_basis,
            advice: &advice,
        });
    }
    out!("{}", power_text(&e));
    outln!("\nPower verdict (as `kraftwerk check` reports it; {}):", report.power_basis);
    // The power rules that could not check a part (a PSU of unknown efficiency): "no power
    // finding" alone would read as a pass.
    let not_checked = check::power_not_checked(&report);
    if findings.is_empty() {
        if not_checked.is_empty() {
            outln!("  no power finding");
        } else {
            outln!("  no power finding in what was checked; not checked:");
        }
    }
    for f in &findings {
        outln!("  {:<7} [{}] {}", f.severity.to_string(), f.rule, f.message);
        outln!("          fix: {}", f.fix);
    }
    for f in &not_checked {
        outln!("  not checked [{}] {}", f.rule, f.message);
    }
    if let Some(a) = advice {
        outln!("\nPower-limit advice, at full load (every GPU at its power limit): {}", a.problem);
        out!("{}", advice_text(&a));
    }
    Ok(())
}

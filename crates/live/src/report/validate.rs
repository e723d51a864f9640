//! The text of `kraftwerk validate`: the build's verdict against the real machine (or a
//! recording) and one line per check.

use crate::grading::Grade;
use crate::validate::Validation;
use kraftwerk_core::fmt::count;
use std::fmt::Write as _;

/// The validation table: the verdict (UNVERIFIED with the count of checks not measured), the
/// source, then one line per check with expected, measured and the reason.
pub fn render(v: &Validation) -> String {
    let mut s = String::new();
    if v.overall == Grade::NotMeasured {
        let n = v.checks.iter().filter(|c| c.grade == Grade::NotMeasured).count();
        let _ = writeln!(s, "{}: UNVERIFIED ({} not measured: not a pass)", v.build, count(n, "check"));
    } else {
        let _ = writeln!(s, "{}: {}", v.build, v.overall.name().to_ascii_uppercase());
    }
    let _ =
        writeln!(s, "  validated: {}{}", v.source, v.node.as_deref().map(|n| format!(" on {n}")).unwrap_or_default());
    if let Some(why) = &v.nvml {
        let _ = writeln!(s, "  NVML: {why}: no GPU could be read");
    }
    let _ = writeln!(s, "  {:<16} {:<4} {:<12} {:<44} {:<44} reason", "check", "gpu", "grade", "expected", "measured");
    for c in &v.checks {
        let _ = writeln!(
            s,
            "  {:<16} {:<4} {:<12} {:<44} {:<44} {}",
            c.check,
            c.gpu.map_or_else(|| "-".to_owned(), |g| (g + 1).to_string()),
            c.grade.name(),
            c.expected,
            c.measured,
            c.reason
        );
    }
    s
}

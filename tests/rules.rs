//! Every rule has docs and at least one passing and one failing fixture build under
//! `tests/fixtures/rules/<rule-id>/`:
//! - `pass*.rig.ron`: the build has no finding of that rule at warning or error severity;
//! - `fail-<severity>*.rig.ron` (`fail-error`, `fail-warning`, `fail-info`): the build has a
//!   finding of that rule at exactly that severity.
//!
//! If the build's `notes` contain `expect: TEXT`, the finding's message must contain TEXT.

use kraftwerk::build;
use kraftwerk::catalog;
use kraftwerk::check::{self, RULES, Severity};
use std::path::Path;

fn fixtures_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

#[test]
fn every_rule_is_documented() {
    let mut ids = std::collections::BTreeSet::new();
    for r in RULES {
        let d = &r.doc;
        assert!(ids.insert(d.id), "duplicate rule id {}", d.id);
        assert!(d.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", d.id);
        for (what, text) in [("title", d.title), ("checks", d.checks), ("why", d.why), ("fix", d.fix)] {
            assert!(text.len() >= 10, "rule {} lacks `{what}` docs", d.id);
        }
    }
}

#[test]
fn every_rule_has_passing_and_failing_fixtures() {
    let catalog = catalog::builtin().expect("catalog");
    let mut failures = Vec::new();
    for r in RULES {
        let id = r.doc.id;
        let dir = fixtures_dir().join(id);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            failures.push(format!("{id}: no fixture folder {}", dir.display()));
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        files.sort();
        let (mut pass, mut fail) = (0, 0);
        for path in files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if !name.ends_with(".rig.ron") {
                continue;
            }
            let b = match build::load(&path, Some(&catalog)) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{id}/{name}: does not load: {e}"));
                    continue;
                }
            };
            let report = check::run(&b, &catalog);
            let mine: Vec<_> = report.findings.iter().filter(|f| f.rule == id).collect();
            if name.starts_with("pass") {
                pass += 1;
                let bad: Vec<_> = mine.iter().filter(|f| f.severity >= Severity::Warning).collect();
                if !bad.is_empty() {
                    failures.push(format!(
                        "{id}/{name}: expected no {id} warning/error, got {:?}",
                        bad.iter().map(|f| &f.message).collect::<Vec<_>>()
                    ));
                }
            } else if let Some(rest) = name.strip_prefix("fail-") {
                fail += 1;
                let sev = if rest.starts_with("error") {
                    Severity::Error
                } else if rest.starts_with("warning") {
                    Severity::Warning
                } else {
                    Severity::Info
                };
                let expect = b
                    .notes
                    .as_deref()
                    .and_then(|n| n.split("expect: ").nth(1))
                    .map(|s| s.lines().next().unwrap_or("").trim().to_owned());
                let hit = mine
                    .iter()
                    .any(|f| f.severity == sev && expect.as_ref().is_none_or(|t| f.message.contains(t.as_str())));
                if !hit {
                    failures.push(format!(
                        "{id}/{name}: expected a {id} {sev} finding{}; got {:?}",
                        expect.map(|t| format!(" containing `{t}`")).unwrap_or_default(),
                        mine.iter().map(|f| format!("{}: {}", f.severity, f.message)).collect::<Vec<_>>()
                    ));
                }
            }
        }
        if pass == 0 || fail == 0 {
            failures.push(format!("{id}: needs at least one pass and one fail fixture (has {pass} pass, {fail} fail)"));
        }
    }
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
}

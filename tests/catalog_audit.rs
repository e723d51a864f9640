//! `catalog audit` and `catalog --stats` over the embedded catalog (run by CI through
//! `cargo test`): the issue-14 counts, the import's bookkeeping, and bad import files.

use kraftwerk::catalog::{self, audit, parse_imported_file};

#[test]
fn stats_meet_the_issue_14_targets() {
    let (c, report) = catalog::builtin_with_report().expect("catalog");
    let s = audit::stats(&c, &report);
    println!("{}", serde_json::to_string_pretty(&s).expect("json"));
    assert!(s.cases_with_max_gpu_length >= 1500, "{}", s.cases_with_max_gpu_length);
    assert!(s.coolers_with_height >= 1000, "{}", s.coolers_with_height);
    assert!(s.psus_with_connector_counts >= 1500, "{}", s.psus_with_connector_counts);
    assert!(s.motherboards >= 1000, "{}", s.motherboards);
    assert!(s.gpu_cards >= 800 && s.chips_with_cards >= 40, "{} cards over {} chips", s.gpu_cards, s.chips_with_cards);
    assert_eq!(s.import_commits.len(), 1, "one pinned OpenDB commit");
    assert_eq!(s.import_commits[0].len(), 40);
}

#[test]
fn audit_lists_failed_files_conflicts_and_unknowns() {
    let (c, report) = catalog::builtin_with_report().expect("catalog");
    let a = audit::audit(&c, &report);
    let failed: usize = a.imports.iter().map(|i| i.failed.len()).sum();
    println!(
        "imports {}, failed files {failed}, curated-vs-imported conflicts {}, GPU cross-check conflicts {}",
        a.imports.len(),
        a.curated_vs_imported.len(),
        a.gpu_cross_checks.len()
    );
    for u in &a.unknown_figures {
        println!("  unknown {} {}: {} [{}]", u.kind.plural(), u.figure, u.count, u.rules);
    }
    assert_eq!(a.imports.len(), 6);
    for i in &a.imports {
        assert!(i.imported > 0, "{}", i.file);
        for f in &i.failed {
            assert!(
                f.path.starts_with("open-db/")
                    && std::path::Path::new(&f.path).extension().is_some_and(|e| e == "json")
                    && !f.reason.is_empty(),
                "{f:?}"
            );
        }
    }
    assert!(failed > 0, "the pinned commit has files that fail validation; they are listed");
    // A known curated-vs-OpenDB disagreement: the TRX50 AERO D's DIMM count.
    assert!(a.curated_vs_imported.iter().any(|x| x.id == "gigabyte-trx50-aero-d" && x.figure == "memory_slots"));
    assert!(a.unknown_figures.iter().any(|u| u.figure.starts_with("pcie_slots") && u.count > 1000));
}

#[test]
fn a_broken_import_file_is_a_located_error() {
    let e = parse_imported_file("catalog/opendb/x.json", "{\"import\": {\n  \"database\": 3}}").expect_err("bad");
    assert_eq!(e.file, "catalog/opendb/x.json");
    assert_eq!(e.line, 2);
    let e = parse_imported_file("catalog/opendb/y.json", "{ not json").expect_err("bad");
    assert_eq!(e.line, 1);
}

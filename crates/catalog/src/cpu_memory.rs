//! The CPU vendor's rated memory speed laid over CPUs already in the catalog:
//! `catalog/cpu-memory-speeds.ron`.
//!
//! Most desktop CPUs come from the BuildCores OpenDB import (`catalog/opendb/cpus.json`), which
//! has no rated memory speed. Moving such a CPU into `catalog/cpus.ron` would claim every one of
//! its figures (cores, TDP, lanes, price) as curated, figures nobody re-read for the rating; this
//! file claims only the one field it cites. Each entry names CPUs by catalog id (several ids
//! where the import holds one model under several ids, e.g. boxed and tray), gives their
//! [`RatedMemorySpeed`]s as the vendor states them, the vendor page (`source`) and where the
//! figure was read (`notes`). [`apply_cpu_memory_speeds`] sets the CPU's `memory_speeds` and
//! appends the entry's notes and source to the CPU's notes. It runs after the import and the
//! curated files ([`super::load::builtin_with_report`]).
//!
//! Errors are located (`file:line:column` of the entry): an id not in the catalog, an id listed
//! twice, a CPU that already has a rating (one place per figure: a curated `cpus.ron` entry
//! keeps its own), an entry with no rating or two ratings of one DDR generation.

use super::{Catalog, CatalogError, RatedMemorySpeed};
use serde::Deserialize;
use std::collections::HashMap;

/// The rated-speed file, embedded at compile time: `(file name, RON text)`.
pub const CPU_MEMORY_SPEEDS_FILE: (&str, &str) =
    ("catalog/cpu-memory-speeds.ron", include_str!("../../../catalog/cpu-memory-speeds.ron"));

/// One entry: the CPUs it rates, their rated speeds, and where the figures were read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuMemorySpeeds {
    /// Catalog ids of the CPUs (one model; several ids where the import lists it more than once).
    pub cpus: Vec<String>,
    /// The vendor's rated speeds, one per DDR generation the CPU takes.
    pub memory_speeds: Vec<RatedMemorySpeed>,
    /// The vendor page that states the figures (amd.com product page, Intel ARK).
    pub source: String,
    /// Where the figure was read and what it says, verbatim where short.
    pub notes: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeedsFile {
    entries: Vec<CpuMemorySpeeds>,
}

/// 1-based `(line, column)` of each entry's `cpus:` key, in file order.
fn entry_positions(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("cpus:") && !trimmed.starts_with("//") {
            out.push((i + 1, line.len() - trimmed.len() + 1));
        }
    }
    out
}

/// Parses a rated-speed file.
///
/// # Errors
/// A located [`CatalogError`] for RON syntax errors, wrong types and unknown fields.
pub fn parse_cpu_memory_speeds(file: &str, text: &str) -> Result<Vec<CpuMemorySpeeds>, CatalogError> {
    super::ron_options().from_str::<SpeedsFile>(text).map(|f| f.entries).map_err(|e| CatalogError::from_ron(file, &e))
}

/// Lays the rated speeds of `text` (file `file`) over `catalog`'s CPUs; returns how many CPUs
/// got a rating. Nothing is applied when any entry is wrong.
///
/// # Errors
/// Every located error of the file (see the module docs).
pub fn apply_cpu_memory_speeds(catalog: &mut Catalog, file: &str, text: &str) -> Result<usize, Vec<CatalogError>> {
    let entries = parse_cpu_memory_speeds(file, text).map_err(|e| vec![e])?;
    let positions = entry_positions(text);
    let index: HashMap<String, usize> = catalog.cpus.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
    let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
    let mut errs = Vec::new();
    let mut todo = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        let (line, column) = positions.get(k).copied().unwrap_or((0, 0));
        let at = |message: String| CatalogError { file: file.to_owned(), line, column, message };
        if e.memory_speeds.is_empty() {
            errs.push(at("no rated memory speed given".to_owned()));
        }
        for (i, s) in e.memory_speeds.iter().enumerate() {
            if e.memory_speeds[..i].iter().any(|t| t.ddr_gen == s.ddr_gen) {
                errs.push(at(format!("two DDR{} ratings", s.ddr_gen)));
            }
        }
        for id in &e.cpus {
            let Some(&ci) = index.get(id) else {
                errs.push(at(format!(
                    "CPU `{id}` is not in the catalog (use the id exactly as in catalog/opendb/cpus.json or catalog/cpus.ron)"
                )));
                continue;
            };
            if let Some((l, c)) = seen.insert(id.clone(), (line, column)) {
                errs.push(at(format!("CPU `{id}` is rated twice (first at {file}:{l}:{c})")));
                continue;
            }
            if !catalog.cpus[ci].memory_speeds.is_empty() {
                errs.push(at(format!(
                    "CPU `{id}` already has a rated memory speed (from {}); keep one place per figure",
                    catalog.cpus[ci].origin
                )));
                continue;
            }
            todo.push((ci, k));
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let n = todo.len();
    for (ci, k) in todo {
        let e = &entries[k];
        let cpu = &mut catalog.cpus[ci];
        cpu.memory_speeds.clone_from(&e.memory_speeds);
        let note = format!("Rated memory speed ({}): {} Source: {}", file, e.notes, e.source);
        cpu.notes = Some(match cpu.notes.take() {
            Some(old) if !old.is_empty() => format!("{old} {note}"),
            _ => note,
        });
    }
    Ok(n)
}

//! The parts catalog: GPUs, CPUs, motherboards, PSUs, coolers, cases, memory kits, NVMe drives
//! and LLM model presets.
//!
//! Built-in parts live in RON files under `catalog/` at the repository root and are embedded in
//! the binary ([`builtin`]), so the app needs no install step. A user's own parts live in
//! `<config dir>/kraftwerk/parts/*.ron` ([`user_parts_dir`]) and add to, or override by id, the
//! built-in ones. Every part remembers the file it came from ([`Origin`]).
//!
//! Every figure carries the URL of its source in the part's `source` field; a figure nobody
//! published is `None`, never a guess. [`validate()`] checks ids, references, ranges and sources.

pub mod audit;
pub mod board_probe;
#[cfg(test)]
mod builtin_tests;
pub mod cited;
pub mod cpu_memory;
pub mod dates;
pub mod files;
mod kinds;
pub mod load;
mod origin;
mod parts;
pub mod picker;
pub mod price_labels;
pub mod price_method;
pub mod prices;
pub mod search;
pub mod street;
pub mod uplink;
mod validate;
pub mod wiring;

pub use files::ron_options;
pub use kinds::{Catalog, FigureConflict, HasId, MaybeProvenance, Part, PartKind, PartsFile};
pub use load::{
    CatalogError, ImportMeta, ImportedFile, LoadProblem, LoadReport, LocatedError, SkippedFile, builtin,
    builtin_with_report, load_with_user_dir, parse_imported_file, parse_parts_file, user_parts_dir,
};
pub use origin::Origin;
pub use parts::*;
pub use validate::{ValidationIssue, validate};

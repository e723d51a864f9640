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

pub mod load;
mod parts;
mod validate;

pub use load::{CatalogError, LoadProblem, builtin, load_with_user_dir, parse_parts_file, user_parts_dir};
pub use parts::*;
pub use validate::{ValidationIssue, validate};

use serde::Serialize;
use std::collections::BTreeMap;

/// Where a part was defined: a built-in catalog file, a user's parts file, or inline in a build
/// file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub enum Origin {
    /// Embedded catalog file, e.g. `catalog/gpus.ron`.
    Builtin(String),
    /// A file in the user's parts directory (absolute path as loaded).
    User(String),
    /// Defined inline in a build file (path of the build file).
    Inline(String),
    /// Made in code (tests, the GUI's custom-part editor before saving).
    #[default]
    Unknown,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Builtin(p) => write!(f, "built-in {p}"),
            Origin::User(p) => write!(f, "user file {p}"),
            Origin::Inline(p) => write!(f, "inline in {p}"),
            Origin::Unknown => f.write_str("unknown"),
        }
    }
}

/// The kinds of part in the catalog, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// Graphics / accelerator cards.
    Gpu,
    /// Processors.
    Cpu,
    /// Motherboards.
    Motherboard,
    /// Power supplies.
    Psu,
    /// CPU coolers.
    Cooler,
    /// Cases, rack chassis and open frames.
    Case,
    /// Memory kits.
    Memory,
    /// NVMe drives.
    Storage,
    /// LLM model presets.
    Model,
}

impl PartKind {
    /// Every kind, in display order.
    pub const ALL: [PartKind; 9] = [
        PartKind::Gpu,
        PartKind::Cpu,
        PartKind::Motherboard,
        PartKind::Psu,
        PartKind::Cooler,
        PartKind::Case,
        PartKind::Memory,
        PartKind::Storage,
        PartKind::Model,
    ];

    /// Plural lower-case name as used by the CLI and the RON file keys (`gpus`, `cpus`, ...).
    pub fn plural(self) -> &'static str {
        match self {
            PartKind::Gpu => "gpus",
            PartKind::Cpu => "cpus",
            PartKind::Motherboard => "motherboards",
            PartKind::Psu => "psus",
            PartKind::Cooler => "coolers",
            PartKind::Case => "cases",
            PartKind::Memory => "memory",
            PartKind::Storage => "storage",
            PartKind::Model => "models",
        }
    }
}

/// The whole catalog: every part of every kind, each kind sorted by id.
///
/// Lookups are linear over small vectors (tens of parts), which is faster than hashing at this
/// size and keeps iteration order deterministic.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Catalog {
    /// GPUs.
    pub gpus: Vec<Gpu>,
    /// CPUs.
    pub cpus: Vec<Cpu>,
    /// Motherboards.
    pub motherboards: Vec<Motherboard>,
    /// Power supplies.
    pub psus: Vec<Psu>,
    /// CPU coolers.
    pub coolers: Vec<Cooler>,
    /// Cases and frames.
    pub cases: Vec<Case>,
    /// Memory kits.
    pub memory: Vec<MemoryKit>,
    /// NVMe drives.
    pub storage: Vec<Storage>,
    /// LLM model presets.
    pub models: Vec<LlmModel>,
}

macro_rules! finders {
    ($($fn_name:ident, $field:ident, $ty:ty);* $(;)?) => {
        impl Catalog {
            $(
                #[doc = concat!("The `", stringify!($field), "` entry with this id, if any.")]
                pub fn $fn_name(&self, id: &str) -> Option<&$ty> {
                    self.$field.iter().find(|p| p.id == id)
                }
            )*
        }
    };
}

finders! {
    gpu, gpus, Gpu;
    cpu, cpus, Cpu;
    motherboard, motherboards, Motherboard;
    psu, psus, Psu;
    cooler, coolers, Cooler;
    case, cases, Case;
    memory_kit, memory, MemoryKit;
    storage_drive, storage, Storage;
    model, models, LlmModel;
}

impl Catalog {
    /// Adds every part of `file` with `origin`; a part whose id already exists replaces the
    /// earlier one (user parts override built-in ones). Returns the ids that were replaced.
    pub fn merge(&mut self, file: PartsFile, origin: &Origin) -> Vec<String> {
        fn put<T: HasId>(dst: &mut Vec<T>, src: Vec<T>, origin: &Origin, replaced: &mut Vec<String>) {
            for mut part in src {
                part.set_origin(origin.clone());
                if let Some(old) = dst.iter_mut().find(|p| p.id() == part.id()) {
                    replaced.push(part.id().to_owned());
                    *old = part;
                } else {
                    dst.push(part);
                }
            }
            dst.sort_by(|a, b| a.id().cmp(b.id()));
        }
        let mut replaced = Vec::new();
        put(&mut self.gpus, file.gpus, origin, &mut replaced);
        put(&mut self.cpus, file.cpus, origin, &mut replaced);
        put(&mut self.motherboards, file.motherboards, origin, &mut replaced);
        put(&mut self.psus, file.psus, origin, &mut replaced);
        put(&mut self.coolers, file.coolers, origin, &mut replaced);
        put(&mut self.cases, file.cases, origin, &mut replaced);
        put(&mut self.memory, file.memory, origin, &mut replaced);
        put(&mut self.storage, file.storage, origin, &mut replaced);
        put(&mut self.models, file.models, origin, &mut replaced);
        replaced
    }

    /// Number of parts per kind, in [`PartKind::ALL`] order.
    pub fn counts(&self) -> BTreeMap<PartKind, usize> {
        BTreeMap::from([
            (PartKind::Gpu, self.gpus.len()),
            (PartKind::Cpu, self.cpus.len()),
            (PartKind::Motherboard, self.motherboards.len()),
            (PartKind::Psu, self.psus.len()),
            (PartKind::Cooler, self.coolers.len()),
            (PartKind::Case, self.cases.len()),
            (PartKind::Memory, self.memory.len()),
            (PartKind::Storage, self.storage.len()),
            (PartKind::Model, self.models.len()),
        ])
    }
}

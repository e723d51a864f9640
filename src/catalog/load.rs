//! Loading the embedded catalog and the user's parts directory.

use super::{Catalog, Origin, PartsFile};
use std::path::{Path, PathBuf};

/// The built-in catalog files, embedded at compile time: `(file name, RON text)`.
pub const BUILTIN_FILES: &[(&str, &str)] = &[
    ("catalog/gpus.ron", include_str!("../../catalog/gpus.ron")),
    ("catalog/cpus.ron", include_str!("../../catalog/cpus.ron")),
    ("catalog/motherboards.ron", include_str!("../../catalog/motherboards.ron")),
    ("catalog/psus.ron", include_str!("../../catalog/psus.ron")),
    ("catalog/coolers.ron", include_str!("../../catalog/coolers.ron")),
    ("catalog/cases.ron", include_str!("../../catalog/cases.ron")),
    ("catalog/memory.ron", include_str!("../../catalog/memory.ron")),
    ("catalog/storage.ron", include_str!("../../catalog/storage.ron")),
    ("catalog/models.ron", include_str!("../../catalog/models.ron")),
];

/// A file that could not be read or parsed, located to line and column where RON says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct CatalogError {
    /// File name or path.
    pub file: String,
    /// 1-based line (0 when the error is not in the text, e.g. an I/O error).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl CatalogError {
    /// Builds a located error from a RON parse error.
    pub fn from_ron(file: impl Into<String>, e: &ron::error::SpannedError) -> Self {
        CatalogError {
            file: file.into(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        }
    }

    /// An error not tied to a position in the text.
    pub fn unlocated(file: impl Into<String>, message: impl Into<String>) -> Self {
        CatalogError { file: file.into(), line: 0, column: 0, message: message.into() }
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

/// RON options used for every Kraftwerk file: `Some(..)` may be written bare.
pub fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

/// Parses one parts file. `file` names it in errors.
///
/// # Errors
/// A [`CatalogError`] with the line and column RON reports for syntax errors, wrong types and
/// unknown fields.
pub fn parse_parts_file(file: &str, text: &str) -> Result<PartsFile, CatalogError> {
    ron_options().from_str::<PartsFile>(text).map_err(|e| CatalogError::from_ron(file, &e))
}

/// The built-in catalog alone.
///
/// # Errors
/// Only if an embedded file is broken, which the test suite rules out.
pub fn builtin() -> Result<Catalog, CatalogError> {
    let mut catalog = Catalog::default();
    for (name, text) in BUILTIN_FILES {
        let file = parse_parts_file(name, text)?;
        catalog.merge(file, &Origin::Builtin((*name).to_owned()));
    }
    Ok(catalog)
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
    let mut catalog = builtin()?;
    let mut problems = Vec::new();
    let Some(dir) = dir else { return Ok((catalog, problems)) };
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok((catalog, problems)) };
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
    Ok((catalog, problems))
}

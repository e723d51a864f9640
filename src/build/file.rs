//! The `*.rig.ron` file format: located errors on load, atomic saves.
//!
//! Errors name the file, line and column: syntax errors, wrong types and unknown fields from
//! the RON parser; unknown part ids and future format versions by locating the offending text.
//! Saving writes a temporary file in the same folder, fsyncs it and renames it over the
//! target, so a crash never leaves a half-written build and a file that failed to load is never
//! touched unless the user saves over it explicitly.

use super::{Build, FORMAT_VERSION};
use crate::catalog::Catalog;
use crate::catalog::load::ron_options;
use serde::Deserialize;
use std::io::Write;
use std::path::Path;

/// Largest build file accepted, bytes. Real builds are a few KiB; this keeps a mistaken
/// multi-gigabyte file from being read into memory.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a build file could not be loaded or saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct BuildError {
    /// File path as given (or `<input>`).
    pub file: String,
    /// 1-based line; 0 when the error has no position (I/O).
    pub line: usize,
    /// 1-based column; 0 when unknown.
    pub column: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl BuildError {
    fn at(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        BuildError { file: file.to_owned(), line, column, message: message.into() }
    }
}

/// Line and column (1-based, in characters) of byte offset `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Position of the first `"id"` string literal in `text` (for unknown-id errors).
fn locate_string(text: &str, value: &str) -> (usize, usize) {
    // Prefer the id as a field value (`: "id"`), not a mention in the name or notes.
    for prefix in [": \"", "(\""] {
        if let Some(off) = text.find(&format!("{prefix}{value}\"")) {
            return line_col(text, off + prefix.len() - 1);
        }
    }
    let needle = format!("\"{value}\"");
    text.find(&needle).map_or((0, 0), |off| line_col(text, off))
}

/// Position of the `format:` field (not a mention of "format" in a comment).
fn format_field(text: &str) -> (usize, usize) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split("//").next().unwrap_or("");
        if let Some(i) = code.find("format")
            && code[i + "format".len()..].trim_start().starts_with(':')
        {
            return line_col(text, offset + i);
        }
        offset += line.len();
    }
    (1, 1)
}

#[derive(Deserialize)]
struct FormatProbe {
    format: Option<u32>,
}

/// Parses a build from text. `file` names it in errors. When `catalog` is given, part ids the
/// build names must exist in it or in the build's inline parts.
///
/// # Errors
/// [`BuildError`] with line and column for: empty input, syntax errors, wrong types, unknown
/// fields, a missing or future `format`, unknown part ids.
pub fn load_str(file: &str, text: &str, catalog: Option<&Catalog>) -> Result<Build, BuildError> {
    if text.trim().is_empty() {
        return Err(BuildError::at(file, 1, 1, "empty file: expected a build `(format: 1, name: \"...\", ...)`"));
    }
    // The format version first, so a newer file is refused with that reason, not with an
    // "unknown field" error about whatever it added.
    let opts = ron_options();
    match opts.from_str::<FormatProbe>(text) {
        Ok(FormatProbe { format: Some(v) }) if v > FORMAT_VERSION => {
            let (line, column) = format_field(text);
            return Err(BuildError::at(
                file,
                line,
                column,
                format!("format {v} is newer than this Kraftwerk reads (format {FORMAT_VERSION}); update Kraftwerk"),
            ));
        }
        Ok(FormatProbe { format: None }) => {
            return Err(BuildError::at(file, 1, 1, "missing `format` field (this Kraftwerk writes `format: 1`)"));
        }
        _ => {}
    }
    let build: Build = opts
        .from_str(text)
        .map_err(|e| BuildError::at(file, e.span.start.line, e.span.start.col, e.code.to_string()))?;
    if build.format == 0 {
        let (line, column) = format_field(text);
        return Err(BuildError::at(file, line, column, "format 0 is not a valid version"));
    }
    if let Some(catalog) = catalog
        && let Some((field, id)) = build.unknown_ids(catalog).into_iter().next()
    {
        let (line, column) = locate_string(text, &id);
        return Err(BuildError::at(
            file,
            line,
            column,
            format!("unknown part id `{id}` in `{field}`: not in the catalog nor in this file's `parts`"),
        ));
    }
    Ok(build)
}

/// Reads and parses a build file.
///
/// # Errors
/// [`BuildError`]: the file cannot be read, is larger than [`MAX_FILE_BYTES`], is not UTF-8
/// (located at the first bad byte), or fails [`load_str`].
pub fn load(path: &Path, catalog: Option<&Catalog>) -> Result<Build, BuildError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| BuildError::at(&shown, 0, 0, format!("cannot read: {e}")))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(BuildError::at(
            &shown,
            0,
            0,
            format!("file is {} bytes; build files are at most {MAX_FILE_BYTES} bytes", meta.len()),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| BuildError::at(&shown, 0, 0, format!("cannot read: {e}")))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let good = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            let (line, column) = line_col(&good, good.len());
            return Err(BuildError::at(&shown, line, column, "not a text file: invalid UTF-8 (binary data?)"));
        }
    };
    load_str(&shown, &text, catalog)
}

/// The build as pretty RON text, as [`save`] writes it.
///
/// # Errors
/// Only if serialization fails (a non-finite float).
pub fn to_ron_string(build: &Build) -> Result<String, ron::Error> {
    let config = ron::ser::PrettyConfig::new()
        .extensions(ron::extensions::Extensions::IMPLICIT_SOME)
        .struct_names(false)
        .depth_limit(8);
    let body = ron::Options::default().to_string_pretty(build, config)?;
    Ok(format!(
        "// Kraftwerk build file (format {FORMAT_VERSION}). Open with `kraftwerk FILE` or check with `kraftwerk check FILE`.\n{body}\n"
    ))
}

/// Saves atomically: writes `.<name>.tmp-<pid>` in the same folder, fsyncs, renames over
/// `path`, fsyncs the folder.
///
/// # Errors
/// [`BuildError`] (line 0) when the folder is not writable or the disk is full; the old file
/// is then untouched.
pub fn save(path: &Path, build: &Build) -> Result<(), BuildError> {
    let shown = path.display().to_string();
    let err = |m: String| BuildError::at(&shown, 0, 0, m);
    let text = to_ron_string(build).map_err(|e| err(format!("cannot encode: {e}")))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().map_or_else(|| "build.rig.ron".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        if let Ok(d) = std::fs::File::open(&dir) {
            // Persist the rename; not all platforms allow syncing a directory, so ignore errors.
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(format!("cannot save: {e}"))
    })
}

//! Loading a build for checking: the build file's own validation ([`crate::rig::load`]) plus
//! the workload's precision and mode, named as the estimator parses them
//! ([`crate::estimate::llm::Precision`], [`crate::estimate::llm::Mode`]), so `check`, `fit`,
//! `power` and the GUI refuse the same files with the same located message.

use crate::estimate::llm::{Mode, Precision};
use crate::rig::{self, Build, BuildError};
use kraftwerk_catalog::Catalog;
use std::path::Path;

/// The workload's precision and mode against the estimator's names.
///
/// # Errors
/// [`BuildError`] at the `precision:` or `mode:` key of `workload` in `text`.
pub fn check_workload(file: &str, text: &str, b: &Build) -> Result<(), BuildError> {
    let Some(w) = &b.workload else { return Ok(()) };
    let problem = match (w.precision.parse::<Precision>(), w.mode.parse::<Mode>()) {
        (Err(e), _) => Some(("precision", format!("workload.precision: {}", e.0))),
        (_, Err(e)) => Some(("mode", format!("workload.mode: {}", e.0))),
        _ => None,
    };
    match problem {
        Some((key, message)) => {
            let (line, column) = rig::file::locate_key(text, Some("workload"), key, 0);
            Err(BuildError::at(file, line, column, message))
        }
        None => Ok(()),
    }
}

/// [`rig::load_str`] with the workload check.
///
/// # Errors
/// As [`rig::load_str`] and [`check_workload`].
pub fn load_str(file: &str, text: &str, catalog: &Catalog) -> Result<Build, BuildError> {
    let b = rig::load_str(file, text, Some(catalog))?;
    check_workload(file, text, &b)?;
    Ok(b)
}

/// [`rig::load`] with the workload check: what `kraftwerk check`, `fit` and `power` load.
///
/// # Errors
/// As [`rig::load`] and [`check_workload`].
pub fn load(path: &Path, catalog: &Catalog) -> Result<Build, BuildError> {
    let b = rig::load(path, Some(catalog))?;
    if b.workload.is_some() {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| BuildError::at(&shown, 0, 0, format!("cannot read: {e}")))?;
        check_workload(&shown, &text, &b)?;
    }
    Ok(b)
}

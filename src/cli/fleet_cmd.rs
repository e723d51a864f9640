//! `kraftwerk fleet REPORTS...`: merges `kraftwerk validate BUILD --format json` reports of many
//! nodes (files, or folders of `*.json`) into a verdict per node, per-GPU TFLOP/s and busbw
//! across the fleet with the slowest against the median, and outliers by node and GPU UUID.
//!
//! Exit 0 when every node passes and nothing is an outlier, 1 on a failed node or an outlier, 3
//! when nothing failed but a node measured nothing (a report with no GPU, a check not measured),
//! 2 when a report cannot be read or none was given.

use super::error::{CliError, bad};
use super::{Format, print_json};
use crate::live::fleet::merge;
use crate::live::grading::Grade;
use crate::live::validate::Validation;
use std::path::{Path, PathBuf};

/// Arguments of `kraftwerk fleet`.
#[derive(Debug, clap::Args)]
pub struct FleetArgs {
    /// Validation reports (`kraftwerk validate BUILD --format json`), or folders of them
    /// (every `*.json` inside, sorted by name).
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// The report files named by `paths` (folders expand to their `*.json`, sorted).
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
                .collect();
            inside.sort();
            out.extend(inside);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Reads one validation report.
fn read(path: &Path) -> Result<Validation, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))
}

/// Runs `kraftwerk fleet`.
pub fn run(a: &FleetArgs) -> Result<(), CliError> {
    let paths = match files(&a.reports) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            return Err(bad("no report found (give `kraftwerk validate --format json` outputs)").within("fleet"));
        }
        Err(e) => return Err(bad(e).within("fleet")),
    };
    let mut reports = Vec::with_capacity(paths.len());
    for p in &paths {
        let v = read(p).map_err(|e| bad(e).within("fleet"))?;
        reports.push((p.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()), v));
    }
    let f = merge(&reports);
    let code = match f.overall {
        Grade::Fail => Err(CliError::Failed(None)),
        // Not a pass: a node's report measured nothing (no GPU counted, a check not measured).
        Grade::NotMeasured => Err(CliError::NotAPass),
        Grade::Pass | Grade::Info | Grade::Warn => Ok(()),
    };
    if a.format == Format::Json {
        print_json(&f)?;
        return code;
    }
    out!("{}", crate::live::report::fleet::render(&f));
    code
}

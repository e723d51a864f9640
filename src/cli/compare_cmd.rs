//! `kraftwerk compare A.rig.ron B.rig.ron [C D] [--model ID] [--format json]`: two to four
//! builds side by side, the twin of the window's Compare tab (both render
//! [`crate::compare::Comparison`]).
//!
//! Exit codes: 0 = compared, 2 = bad input (a build file that could not be read, with
//! file:line:column; an unknown model id).

use super::error::{CliError, bad};
use super::{Format, load_catalog, print_json};
use crate::compare::{Comparison, MAX_BUILDS};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `kraftwerk compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two to four build files (`*.rig.ron`).
    #[arg(required = true, num_args = 2..=MAX_BUILDS)]
    pub builds: Vec<PathBuf>,
    /// Model for the fit, tokens/s and $/Mtok figures (default: each build's workload model).
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Output format (JSON: the `Comparison` with `builds` and `rows`).
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `kraftwerk compare`.
pub fn run(args: &CompareArgs) -> Result<(), CliError> {
    let catalog = load_catalog()?;
    let mut builds = Vec::new();
    for p in &args.builds {
        // The one loader of every face (workload vocabulary included), so a misspelt
        // precision is refused here too, located.
        builds.push((crate::rig::load(p, Some(&catalog))?, Some(p.display().to_string())));
    }
    if let Some(m) = &args.model {
        let known = catalog.model(m).is_some() || builds.iter().any(|(b, _)| b.parts.models.iter().any(|x| &x.id == m));
        if !known {
            let ids: Vec<&str> = catalog.models.iter().map(|m| m.id.as_str()).collect();
            return Err(bad(format!(
                "unknown model `{m}`{} (see `kraftwerk catalog models`)",
                crate::catalog::search::did_you_mean(&ids, m)
            )));
        }
    }
    let c = Comparison::of(&builds, &catalog, args.model.as_deref());
    match args.format {
        Format::Json => print_json(&c),
        Format::Text => {
            out!("{}", c.text());
            Ok(())
        }
    }
}

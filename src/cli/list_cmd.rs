//! `kraftwerk import` (a parts list in, a build file out) and `kraftwerk export --list`
//! (a build out as a parts list). Glue only: the reading and matching is
//! [`crate::rig::import_list`], the rendering [`crate::rig::parts_list`].

use super::check_cmd::load_build;
use super::error::{CliError, bad};
use super::load_catalog;
use crate::rig::import_list::{self, MAX_LIST_BYTES};
use crate::rig::parts_list::PartsList;
use crate::rig::{self, BuildError};
use clap::{Args, ValueEnum};
use std::io::Read;
use std::path::{Path, PathBuf};

/// `kraftwerk import FILE|- [--out FILE]`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The list: a PCPartPicker export (Markdown, Text or BBCode) or one part a line; `-` reads
    /// standard input.
    pub input: String,
    /// Write the build here (atomically) instead of standard output; an existing file that
    /// cannot be read is never overwritten.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// List layouts `export --list` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListLayout {
    /// PCPartPicker's Markdown layout: `Type|Item|Price`, one row per unit.
    Markdown,
}

/// `kraftwerk export --list markdown BUILD`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The list layout.
    #[arg(long, value_enum)]
    pub list: ListLayout,
    /// The build file (`*.rig.ron`).
    pub build: PathBuf,
}

/// Reads the list's text: a file (at most [`MAX_LIST_BYTES`], UTF-8) or standard input.
pub(super) fn read_input(input: &str) -> Result<(String, String), BuildError> {
    let (shown, bytes) = if input == "-" {
        let mut bytes = Vec::new();
        let limit = u64::try_from(MAX_LIST_BYTES).unwrap_or(u64::MAX) + 1;
        std::io::stdin()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| BuildError::at("<stdin>", 0, 0, format!("cannot read: {e}")))?;
        ("<stdin>".to_owned(), bytes)
    } else {
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|e| BuildError::at(input, 0, 0, format!("cannot read: {e}")))?;
        if meta.len() > u64::try_from(MAX_LIST_BYTES).unwrap_or(u64::MAX) {
            return Err(BuildError::at(
                input,
                0,
                0,
                format!("file is {} bytes; a parts list is at most {MAX_LIST_BYTES} bytes", meta.len()),
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| BuildError::at(input, 0, 0, format!("cannot read: {e}")))?;
        (input.to_owned(), bytes)
    };
    match String::from_utf8(bytes) {
        Ok(t) => Ok((shown, t)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let good = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            let line = good.matches('\n').count() + 1;
            let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Err(BuildError::at(&shown, line, column, "not a text list: invalid UTF-8 (binary data?)"))
        }
    }
}

/// `kraftwerk import`: exit 0 when every line matched, 1 when some did not (the build is still
/// written, the lines named on stderr and in its notes), 2 on unreadable input.
pub fn import(args: &ImportArgs) -> Result<(), CliError> {
    let (shown, text) = read_input(&args.input).map_err(|err| bad(err.to_string()))?;
    let catalog = load_catalog()?;
    let list = import_list::import_list(&shown, &text, &catalog).map_err(|err| bad(err.to_string()))?;
    eprintln!(
        "kraftwerk: {shown}: {}, {} part line{}{}",
        list.format.name(),
        list.matched.len() + list.unmatched.len(),
        if list.matched.len() + list.unmatched.len() == 1 { "" } else { "s" },
        list.date.as_deref().map_or_else(String::new, |d| format!(", dated {d}"))
    );
    for m in &list.matched {
        eprintln!(
            "  line {}: {}{} -> {} `{}` ({}; confidence {} %)",
            m.line.line,
            if m.line.quantity > 1 { format!("{} x ", m.line.quantity) } else { String::new() },
            m.line.name,
            m.kind.plural(),
            m.id,
            m.part_name,
            m.confidence_pct
        );
    }
    for un in &list.unmatched {
        eprintln!("  line {}: NOT IMPORTED: {} ({})", un.line.line, un.line.text, un.reason);
    }
    match &list.build_block {
        Some(rig::import_list::BuildBlockUse::Applied) => eprintln!(
            "kraftwerk: build data block read: its parts are the table's; slots, used/owned, site and workload kept"
        ),
        Some(rig::import_list::BuildBlockUse::Disagrees(why)) => eprintln!(
            "kraftwerk: build data block NOT applied ({why}): the build is the table's; slots, used/owned, site and workload of the block are not kept"
        ),
        None => {}
    }
    let priced = list.matched.iter().filter(|m| m.line.price.is_some()).count()
        + list.unmatched.iter().filter(|un| un.line.price.is_some()).count();
    if priced > 0 && list.build_block != Some(rig::import_list::BuildBlockUse::Applied) {
        eprintln!(
            "kraftwerk: {priced} price{} kept in the build's notes with the list's date (a build file has no price field)",
            if priced == 1 { "" } else { "s" }
        );
    }
    let ron = rig::to_ron_string(&list.build).map_err(|err| bad(format!("cannot encode the build: {err}")))?;
    // The file must read back the way `check` reads it.
    if let Err(err) = rig::load_str("<imported build>", &ron, Some(&catalog)) {
        return Err(bad(format!("the imported build does not load back: {err}")));
    }
    match &args.out {
        Some(out) => {
            if out.exists() && std::fs::read(out).is_err() {
                return Err(bad(format!("{}: exists and cannot be read; not overwriting it", out.display())));
            }
            if args.input != "-" && same_file(Path::new(&args.input), out) {
                return Err(bad(format!("{}: is the input list; not overwriting it", out.display())));
            }
            if let Err(err) = rig::save(out, &list.build) {
                return Err(bad(err.to_string()));
            }
            eprintln!("kraftwerk: wrote {}", out.display());
        }
        None => out!("{ron}"),
    }
    if list.unmatched.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(Some(format!(
            "{} line{} not imported (named above and in the build's notes)",
            list.unmatched.len(),
            if list.unmatched.len() == 1 { "" } else { "s" }
        ))))
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// `kraftwerk export --list markdown BUILD`.
pub fn export(args: &ExportArgs) -> Result<(), CliError> {
    let (catalog, build) = load_build(&args.build)?;
    let list = PartsList::of(&build, &catalog);
    // The table, then the build data block `import` reads back (slots, used/owned, site,
    // workload): a fenced code block PCPartPicker ignores.
    let block = rig::import_list::build_block(&build).map_err(|e| bad(format!("cannot encode the build: {e}")))?;
    match args.list {
        ListLayout::Markdown => out!("{}{block}", list.pcpartpicker_markdown()),
    }
    Ok(())
}

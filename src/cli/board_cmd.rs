//! `kraftwerk board probe`: glue around [`crate::catalog::board_probe`] — read the machine (or a
//! recorded tree), match the board in the catalog, print the wiring entry with its evidence,
//! check that it loads, optionally write it.
//!
//! Exit codes: 0 a complete entry for a catalog board was written and loads; 3 not a pass
//! (INCOMPLETE entry, no slot determined, no slot table, or no catalog board matched); 2 bad
//! usage (an unknown `--board`, a bad `--date`, an unwritable `--out`).

use super::error::{CliError, bad};
use crate::catalog::board_probe::{self, BoardProbe};
use crate::catalog::wiring;
use std::path::PathBuf;

/// `kraftwerk board ...`.
#[derive(Debug, clap::Subcommand)]
pub enum BoardCommand {
    /// Deduce this machine's board wiring (slot names, CPU or chipset lanes, widths,
    /// generations) from the SMBIOS slot table and the PCIe tree, and print it as a
    /// board-wiring entry (`catalog/board-wiring/*.ron` format) with its evidence.
    #[command(after_help = super::help::BOARD_PROBE)]
    Probe(ProbeArgs),
}

/// Arguments of `kraftwerk board probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// Read a recorded tree instead of this machine: `DIR/sys/...` (sysfs and
    /// `sys/firmware/dmi/tables/DMI`), or `DIR/dmidecode.txt` and `DIR/lspci-vvnn.txt`.
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub root: PathBuf,
    /// The catalog board id to write (default: the catalog board whose vendor and name match
    /// the SMBIOS baseboard).
    #[arg(long, value_name = "ID")]
    pub board: Option<String>,
    /// The date written into the entry's source, YYYY-MM-DD (default: today, UTC).
    #[arg(long)]
    pub date: Option<String>,
    /// Also write the entry to this file (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs a `board` subcommand.
pub fn run(cmd: &BoardCommand) -> Result<(), CliError> {
    match cmd {
        BoardCommand::Probe(a) => probe(a).map_err(|e| e.within("board probe")),
    }
}

fn probe(a: &ProbeArgs) -> Result<(), CliError> {
    let date = if let Some(d) = &a.date {
        if crate::catalog::dates::parse_ymd(d).is_none() {
            return Err(bad(format!("--date {d}: expected YYYY-MM-DD")));
        }
        d.clone()
    } else {
        crate::catalog::dates::ymd_text(crate::catalog::dates::today_utc())
    };
    let catalog = super::load_catalog()?;
    let p: BoardProbe = board_probe::probe_board(&a.root);
    let inputs = if a.root == std::path::Path::new("/") {
        "this machine".to_owned()
    } else {
        format!("recorded tree {}", a.root.display())
    };
    let (board_id, known, matched_note) = if let Some(id) = &a.board {
        let Some(b) = catalog.motherboards.iter().find(|b| &b.id == id) else {
            let near = crate::catalog::search::suggest_ids(&catalog, &[crate::catalog::PartKind::Motherboard], id, 3);
            let hint = if near.is_empty() { String::new() } else { format!("; did you mean: {}?", near.join(", ")) };
            return Err(bad(format!("--board {id}: no catalog board has this id{hint}")));
        };
        (b.id.clone(), Some(b), None)
    } else {
        let found = board_probe::match_boards(
            &catalog.motherboards,
            p.smbios.board_vendor.as_deref().unwrap_or(""),
            p.smbios.board_product.as_deref().unwrap_or(""),
        );
        match found.as_slice() {
            [] => (
                format!("NO CATALOG BOARD MATCHES {}: pass --board ID", p.board_name()),
                None,
                Some(format!("no catalog board matches {}; pass --board ID", p.board_name())),
            ),
            [one] => (one.id.clone(), Some(*one), None),
            [first, rest @ ..] => (
                first.id.clone(),
                Some(*first),
                Some(format!(
                    "several catalog boards match {}: {} (used), {}; pass --board ID to choose",
                    p.board_name(),
                    first.id,
                    rest.iter().map(|b| b.id.as_str()).collect::<Vec<_>>().join(", ")
                )),
            ),
        }
    };
    let text = p.wiring_ron(&board_id, &date, &inputs, known);
    outln!("{text}");
    // Does it load as a wiring file?
    let loads = wiring::check_wiring(&catalog, &[("probed entry", text.as_str())]);
    if loads.is_empty() {
        eprintln!("kraftwerk board probe: the entry loads through the catalog's wiring loader");
    } else {
        for e in &loads {
            eprintln!("kraftwerk board probe: does not load: {e}");
        }
    }
    if let Some(n) = &matched_note {
        eprintln!("kraftwerk board probe: {n}");
    }
    if let Some(path) = &a.out {
        let tmp = path.with_extension("ron.tmp");
        std::fs::write(&tmp, &text)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| CliError::Runtime(format!("cannot write {}: {e}", path.display())))?;
        eprintln!("kraftwerk board probe: wrote {}", path.display());
    }
    let incomplete = !p.undetermined_card_slots().is_empty() || p.slots.is_empty();
    if incomplete || known.is_none() || !loads.is_empty() {
        return Err(CliError::NotAPass);
    }
    Ok(())
}

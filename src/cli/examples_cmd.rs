//! `kraftwerk examples`: the reference builds of the repository's `catalog/builds/`, built into
//! the binary, so a user who has only the binary can check, fit and open one (the
//! README's quick start starts with them).

use std::path::Path;

/// The reference builds: file name and the file's text, as in `catalog/builds/` (comments and
/// the `reference:` sources included). `tests/all/cli.rs` holds this list to the folder.
pub const REFERENCE_BUILDS: &[(&str, &str)] = &[
    ("2x-rtx-4090-x870e.rig.ron", include_str!("../../catalog/builds/2x-rtx-4090-x870e.rig.ron")),
    ("2x-rtx-a6000-nvlink.rig.ron", include_str!("../../catalog/builds/2x-rtx-a6000-nvlink.rig.ron")),
    ("4x-rtx-3090-wrx80-puget.rig.ron", include_str!("../../catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron")),
    (
        "4x-rtx-4090-threadripper-open-frame.rig.ron",
        include_str!("../../catalog/builds/4x-rtx-4090-threadripper-open-frame.rig.ron"),
    ),
    ("4x-rtx-6000-ada-workstation.rig.ron", include_str!("../../catalog/builds/4x-rtx-6000-ada-workstation.rig.ron")),
    ("8x-l40s-4u-server.rig.ron", include_str!("../../catalog/builds/8x-l40s-4u-server.rig.ron")),
    ("h200-sxm-1gpu.rig.ron", include_str!("../../catalog/builds/h200-sxm-1gpu.rig.ron")),
];

/// The reference build a path names by its file name (`catalog/builds/X.rig.ron`, `X.rig.ron`),
/// if any: for the hint on a build file that is not there.
pub fn reference_build_named(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    REFERENCE_BUILDS.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}

/// Lists the reference builds (file name and build name), or writes them into `out` (created if
/// missing). A file already there is kept, not overwritten (it may hold the user's edits), and
/// said so.
///
/// # Errors
/// What could not be done, in words (the caller makes it `CliError::Runtime`, exit 2): the folder
/// cannot be created or a file cannot be written. (No `CliError` here: `error` reads
/// [`reference_build_named`], and the modules import no cycle.)
pub fn run(out: Option<&Path>) -> Result<(), String> {
    let Some(dir) = out else {
        outln!(
            "{} reference builds are built in (the repository's catalog/builds/); `kraftwerk examples --out DIR` writes them into DIR:",
            REFERENCE_BUILDS.len()
        );
        for (file, text) in REFERENCE_BUILDS {
            let name = crate::rig::load_str(file, text, None).map(|b| b.name).unwrap_or_default();
            outln!("  {file:<45} {name}");
        }
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("examples: cannot create {}: {e}", dir.display()))?;
    for (file, text) in REFERENCE_BUILDS {
        let path = dir.join(file);
        if path.exists() {
            outln!("kept {} (already there; remove it to write it again)", path.display());
            continue;
        }
        crate::catalog::files::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("examples: cannot write {}: {e}", path.display()))?;
        outln!("wrote {}", path.display());
    }
    outln!("next: kraftwerk check {}", dir.join("4x-rtx-3090-wrx80-puget.rig.ron").display());
    Ok(())
}

//! Files the window asks for: which request a path answers ([`FileRequest`]), whether a native
//! file dialog can be shown at all ([`dialog_unavailable`]), and atomic text writes
//! ([`write_atomic`]) for exports and user parts.
//!
//! On Linux the native dialogs (the `rfd` crate) talk to the XDG desktop portal over D-Bus, or
//! run `zenity` when no portal answers. With neither, `rfd` returns "no file" exactly as if the
//! user had cancelled, so the window checks first and, when no dialog can be shown, asks for the
//! path in an in-app field with the reason shown (README, "File dialogs", lists the packages).

use kraftwerk_core::rig::parts_list::PartsFormat;
use std::path::Path;

/// What a chosen path is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRequest {
    /// Open a build file.
    Open,
    /// Save the build to a new file.
    SaveAs,
    /// Export the Markdown report.
    ExportReport,
    /// Export the parts list in this format.
    ExportParts(PartsFormat),
    /// Add a build file to the comparison.
    CompareAdd,
    /// Show a Live recording (`*.kwrec.json`).
    OpenRecording,
    /// Show a links report (JSON).
    OpenLinks,
}

impl FileRequest {
    /// Title of the dialog or path field.
    pub fn title(self) -> String {
        match self {
            FileRequest::Open => "Open build".to_owned(),
            FileRequest::SaveAs => "Save build as".to_owned(),
            FileRequest::ExportReport => "Export report as Markdown".to_owned(),
            FileRequest::ExportParts(f) => format!("Export parts list as {}", f.name()),
            FileRequest::CompareAdd => "Add a build to compare".to_owned(),
            FileRequest::OpenRecording => "Open a Live recording".to_owned(),
            FileRequest::OpenLinks => "Open a links report".to_owned(),
        }
    }

    /// Whether the path names a file to write (else one to read).
    pub fn writes(self) -> bool {
        matches!(self, FileRequest::SaveAs | FileRequest::ExportReport | FileRequest::ExportParts(_))
    }

    /// File-name filter: a name and its extensions without dots.
    pub fn filter(self) -> (&'static str, &'static [&'static str]) {
        match self {
            FileRequest::Open | FileRequest::SaveAs | FileRequest::CompareAdd => ("Kraftwerk build", &["ron"]),
            FileRequest::ExportReport | FileRequest::ExportParts(PartsFormat::Markdown) => ("Markdown", &["md"]),
            FileRequest::ExportParts(PartsFormat::Csv) => ("CSV", &["csv"]),
            FileRequest::ExportParts(PartsFormat::Json) => ("JSON", &["json"]),
            FileRequest::OpenRecording => ("Kraftwerk recording", &["json"]),
            FileRequest::OpenLinks => ("Links report", &["json"]),
        }
    }
}

/// Whether `name` is an executable file on `PATH`.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(name).is_file()))
}

/// Why no native file dialog can be shown here, or `None` when one can (as far as can be told
/// without showing it). Linux and the BSDs need a D-Bus session (for the desktop portal) or
/// `zenity`; other systems always have their own dialog.
pub fn dialog_unavailable() -> Option<String> {
    if !cfg!(unix) || cfg!(target_os = "macos") {
        return None;
    }
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    if bus || on_path("zenity") {
        return None;
    }
    Some(
        "No file dialog is available: there is no D-Bus session for the desktop portal and no `zenity`. \
         Install xdg-desktop-portal with a backend (xdg-desktop-portal-gtk) or zenity; \
         meanwhile type the path here."
            .to_owned(),
    )
}

/// Writes `text` to `path` through the one atomic writer
/// ([`kraftwerk_catalog::files::write_atomic`]: unique temporary file, fsync, rename, fsync of the
/// folder), so a failed write never leaves a half-written file.
///
/// # Errors
/// The I/O error of creating, writing or renaming (the temporary file is removed).
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    kraftwerk_catalog::files::write_atomic(path, text.as_bytes())
}

/// The in-app path field shown instead of (or when there is no) native dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct PathPrompt {
    /// What the path is for.
    pub request: FileRequest,
    /// The path typed so far.
    pub text: String,
    /// Why the native dialog was not shown, if that is why the field is.
    pub reason: Option<String>,
}

//! The CLI's typed outcome: every command returns `Result<(), CliError>`, and `main` turns the
//! error into the exit code and prints its message, once ([`CliError::exit_code`],
//! [`CliError::message`]). The codes are the README's table:
//!
//! | code | variant |
//! |---|---|
//! | 0 | `Ok(())`: pass (warnings included) |
//! | 1 | [`CliError::Failed`]: findings of error severity, a fit that does not fit, a failed check |
//! | 2 | [`CliError::BadInput`], [`CliError::Build`], [`CliError::Runtime`]: bad input or usage (located where the input has a place), or an operation that could not be done (encode, write) |
//! | 3 | [`CliError::NotAPass`]: INCOMPLETE, EMPTY or UNVERIFIED, nothing failed |
//!
//! A closed standard output is not an error here: [`super::out`] recognises it by its
//! `io::ErrorKind` and ends the process quietly with 0.

use crate::rig::BuildError;
use std::process::ExitCode;

/// Why a command did not end with exit 0.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input or usage (exit 2): an unknown id, an option out of range, a file that cannot
    /// be read. The message is printed as `kraftwerk: MESSAGE`.
    #[error("{0}")]
    BadInput(String),
    /// A build file that did not load (exit 2), located (`file:line:column: message`).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Something the command had to do failed (exit 2): encoding JSON, writing a file.
    #[error("{0}")]
    Runtime(String),
    /// The verdict failed (exit 1). The report already said why; the message, when there is
    /// one, is printed after it.
    #[error("{}", .0.as_deref().unwrap_or("failed"))]
    Failed(Option<String>),
    /// Not a pass though nothing failed (exit 3): INCOMPLETE, EMPTY or UNVERIFIED, said by the
    /// report already.
    #[error("not a pass")]
    NotAPass,
    /// An error said under a command's name (`kraftwerk plan: MESSAGE`), with the inner
    /// error's code.
    #[error("{1}")]
    In(&'static str, Box<CliError>),
    /// An exit code a command not yet converted to [`CliError`] chose after printing its own
    /// message (the live commands: `validate`, `fleet`, `gpus`, `monitor`, `probe`, `links`).
    #[error("exit code chosen by the command")]
    Reported(ExitCode),
}

impl CliError {
    /// The process exit code (see the module's table).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Failed(_) => ExitCode::from(1),
            CliError::BadInput(_) | CliError::Build(_) | CliError::Runtime(_) => ExitCode::from(2),
            CliError::NotAPass => ExitCode::from(3),
            CliError::Reported(code) => *code,
            CliError::In(_, inner) => inner.exit_code(),
        }
    }

    /// The line `main` prints on standard error (`kraftwerk: MESSAGE`, `kraftwerk plan:
    /// MESSAGE`), or `None` when the report on standard output already said everything.
    pub fn message(&self) -> Option<String> {
        match self {
            CliError::In(command, inner) => inner.said().map(|m| format!("kraftwerk {command}: {m}")),
            e => e.said().map(|m| format!("kraftwerk: {m}")),
        }
    }

    /// The message without the `kraftwerk: ` prefix, or `None` when there is nothing to say.
    fn said(&self) -> Option<String> {
        match self {
            CliError::Failed(None) | CliError::NotAPass | CliError::Reported(_) => None,
            CliError::In(_, inner) => inner.said(),
            CliError::Build(e) => Some(format!("{e}{}", reference_build_hint(e).unwrap_or_default())),
            e => Some(e.to_string()),
        }
    }

    /// This error said under `command`'s name (`kraftwerk plan: ...`).
    #[must_use]
    pub fn within(self, command: &'static str) -> CliError {
        CliError::In(command, Box::new(self))
    }

    /// A command's old-style exit code as an outcome: 0 is `Ok`, anything else an already
    /// reported [`CliError::Reported`].
    pub fn from_code(code: ExitCode) -> Result<(), CliError> {
        if code == ExitCode::SUCCESS { Ok(()) } else { Err(CliError::Reported(code)) }
    }
}

/// For a build file that is not there but is named as a reference build is
/// (`catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron` without the repository): how to get it from
/// the binary ([`super::examples_cmd`]).
fn reference_build_hint(e: &BuildError) -> Option<String> {
    let path = std::path::Path::new(&e.file);
    if e.line != 0 || path.exists() {
        return None;
    }
    let name = super::examples_cmd::reference_build_named(path)?;
    Some(format!(
        "\n  {name} is a reference build, built into kraftwerk: `kraftwerk examples --out builds` writes it (and the others) into builds/"
    ))
}

/// [`CliError::BadInput`] from anything printable: `Err(bad(format!(...)))`.
pub fn bad(message: impl Into<String>) -> CliError {
    CliError::BadInput(message.into())
}

//! `kraftwerk completions SHELL` and `kraftwerk man`: shell completions (`clap_complete`) and a
//! roff man page (`clap_mangen`), both generated from the same clap command tree as `--help`.

use super::Cli;
use super::error::CliError;
use clap::CommandFactory;
use std::io::Write;

/// The completion script for `shell`, for the binary name `kraftwerk`.
pub fn completions_text(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "kraftwerk", &mut out);
    out
}

/// The whole command tree as one man page (section 1): the top-level page as `clap_mangen`
/// renders it (NAME, SYNOPSIS, DESCRIPTION, OPTIONS, SUBCOMMANDS, EXIT STATUS, VERSION), then
/// one section per subcommand, nested ones included (`KRAFTWERK CATALOG SEARCH`), holding that
/// subcommand's synopsis, description, options, subcommands and exit codes as subsections.
///
/// `clap_mangen` writes one page per subcommand and names them `kraftwerk-check(1)` in the
/// SUBCOMMANDS lists; this single page names them `kraftwerk check` instead (sections below).
///
/// # Errors
/// Only if rendering fails (it writes to memory).
pub fn man_page() -> std::io::Result<String> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = String::new();
    let top = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    top.render(&mut page)?;
    out.push_str(&rename_extra(&String::from_utf8_lossy(&page), ".SH"));
    unlink_subcommands(&cmd, &mut out);
    let mut stack: Vec<clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
    stack.reverse();
    while let Some(sub) = stack.pop() {
        let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name()).to_uppercase();
        let man = clap_mangen::Man::new(sub.clone());
        let mut body = render(|w| man.render_synopsis_section(w))?;
        body.push_str(&render(|w| man.render_description_section(w))?);
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            body.push_str(&render(|w| man.render_options_section(w))?);
        }
        if sub.has_subcommands() {
            body.push_str(&render(|w| man.render_subcommands_section(w))?);
            unlink_subcommands(&sub, &mut body);
        }
        if sub.get_after_help().is_some() {
            body.push_str(&render(|w| man.render_extra_section(w))?);
        }
        let mut nested = String::new();
        for line in body.lines() {
            match line.strip_prefix(".SH ") {
                Some(heading) => {
                    nested.push_str(".SS ");
                    nested.push_str(heading);
                }
                None => nested.push_str(line),
            }
            nested.push('\n');
        }
        out.push_str(".SH \"");
        out.push_str(&name);
        out.push_str("\"\n");
        out.push_str(&rename_extra(&nested, ".SS"));
        let mut children: Vec<clap::Command> = sub.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
        children.reverse();
        stack.extend(children);
    }
    Ok(out)
}

/// One `clap_mangen` section as text, without the two-line apostrophe preamble `roff` puts at
/// the start of every rendering (the page's start has it once).
fn render(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> std::io::Result<String> {
    let mut buf = Vec::new();
    f(&mut buf)?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let preamble_end =
        text.lines().take_while(|l| l.starts_with(".ie \\n(.g .ds Aq") || l.starts_with(".el .ds Aq")).count();
    if preamble_end == 0 {
        return Ok(text);
    }
    let mut rest = String::new();
    for line in text.lines().skip(preamble_end) {
        rest.push_str(line);
        rest.push('\n');
    }
    Ok(rest)
}

/// `kraftwerk-check(1)` (a page of its own, which this page is not) -> `kraftwerk check`.
fn unlink_subcommands(cmd: &clap::Command, roff: &mut String) {
    let parent = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    let bin = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    for sub in cmd.get_subcommands() {
        let linked = format!("{parent}-{}(1)", sub.get_name()).replace('-', "\\-");
        let plain = format!("{bin} {}", sub.get_name()).replace('-', "\\-");
        *roff = roff.replace(&linked, &plain);
    }
}

/// `clap_mangen` heads the `after_help` text "EXTRA"; ours is the exit codes.
fn rename_extra(roff: &str, macro_name: &str) -> String {
    roff.replace(&format!("{macro_name} EXTRA\n"), &format!("{macro_name} \"EXIT STATUS\"\n"))
}

/// Writes `bytes` to stdout: exit 0, or 2 when stdout cannot be written (a closed pipe is not
/// an error).
fn print_bytes(bytes: &[u8]) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::Runtime(format!("cannot write to stdout: {e}"))),
    }
}

/// `kraftwerk completions SHELL`.
pub fn completions(shell: clap_complete::Shell) -> Result<(), CliError> {
    print_bytes(&completions_text(shell))
}

/// `kraftwerk man`.
pub fn man() -> Result<(), CliError> {
    match man_page() {
        Ok(page) => print_bytes(page.as_bytes()),
        Err(e) => Err(CliError::Runtime(format!("cannot render the man page: {e}"))),
    }
}

//! The `*.rig.ron` file format: located errors on load, atomic saves.
//!
//! Errors name the file, line and column: syntax errors, wrong types and unknown fields from
//! the RON parser; unknown part ids and future format versions by locating the offending text.
//! Saving writes a temporary file in the same folder, fsyncs it and renames it over the
//! target, so a crash never leaves a half-written build and a file that failed to load is never
//! touched unless the user saves over it explicitly.

use super::{Build, FORMAT_VERSION};
use kraftwerk_catalog::Catalog;
use kraftwerk_catalog::load::ron_options;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

/// Largest build file accepted, bytes. Real builds are a few KiB; this keeps a mistaken
/// multi-gigabyte file from being read into memory.
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a build file could not be loaded or saved: the one located error
/// ([`kraftwerk_catalog::LocatedError`]), shown as `file:line:column: message`, or `file: message`
/// when the error has no position (a file that cannot be read).
pub type BuildError = kraftwerk_catalog::LocatedError;

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

/// Byte offsets of every `key:` in the code of `text`: outside string literals and `//`
/// comments, `key` not part of a longer identifier.
fn key_offsets(text: &str, key: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let (mut i, mut in_str) = (0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_str {
            match b {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
        } else if b == b'"' {
            in_str = true;
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with(key)
            && (i == 0 || !ident(bytes[i - 1]))
            && text[i + key.len()..].trim_start().starts_with(':')
            && !bytes.get(i + key.len()).copied().is_some_and(ident)
        {
            out.push(i);
        }
        i += 1;
    }
    out
}

/// 1-based line and column of the `n`-th (0-based) `key:` of the build file's code, after the
/// first `section:` when one is given (`("site", "mains_v")`); the section itself, else 1:1,
/// where the key is not written (a default).
pub(crate) fn locate_key(text: &str, section: Option<&str>, key: &str, n: usize) -> (usize, usize) {
    let start = match section {
        Some(sec) => match key_offsets(text, sec).first() {
            Some(&o) => o,
            None => return (1, 1),
        },
        None => 0,
    };
    match key_offsets(text, key).into_iter().filter(|&o| o >= start).nth(n) {
        Some(o) => line_col(text, o),
        None if section.is_some() => line_col(text, start),
        None => (1, 1),
    }
}

/// Lowest and highest mains voltage accepted, V: the 100-127 V and 200-240 V mains of the
/// world with a 10 % tolerance (IEC 60038 standard voltages).
pub(crate) const MAINS_V_RANGE: (f64, f64) = (90.0, 260.0);
/// Ambient temperatures accepted, °C: the range a room with a computer can have (judgement;
/// ATX PSUs are rated to 40-50 °C).
pub(crate) const AMBIENT_C_RANGE: (f64, f64) = (-10.0, 50.0);

/// Values the types allow but no machine can have: mains voltage, breaker, circuit count,
/// ambient, price, duty cycle, outlet rating, memory kits, GPU power limits, workload context
/// and batch. The first one found, with the position of its key in `text`.
fn check_values(file: &str, text: &str, b: &Build) -> Result<(), BuildError> {
    let err = |section: Option<&str>, key: &str, n: usize, message: String| {
        let (line, column) = locate_key(text, section, key, n);
        Err(BuildError::at(file, line, column, message))
    };
    check_site(b, &err)?;
    check_outlets(b, &err)?;
    check_parts(b, &err)
}

/// The located error of [`check_values`]: `(section, key, nth key, message)`.
type Located<'a> = dyn Fn(Option<&str>, &str, usize, String) -> Result<(), BuildError> + 'a;

/// Mains, breaker, circuits, ambient, price, duty cycle, outlet rating.
fn check_site(b: &Build, err: &Located<'_>) -> Result<(), BuildError> {
    let s = &b.site;
    let in_range = |v: f64, (lo, hi): (f64, f64)| v.is_finite() && v >= lo && v <= hi;
    if !in_range(s.mains_v, MAINS_V_RANGE) {
        return err(
            Some("site"),
            "mains_v",
            0,
            format!(
                "site.mains_v {} V is outside {:.0}-{:.0} V (mains is 100-127 V or 200-240 V)",
                s.mains_v, MAINS_V_RANGE.0, MAINS_V_RANGE.1
            ),
        );
    }
    if !(s.circuit_a.is_finite() && s.circuit_a > 0.0) {
        return err(
            Some("site"),
            "circuit_a",
            0,
            format!("site.circuit_a {} A: a breaker is rated above 0 A (15, 16, 20, 32)", s.circuit_a),
        );
    }
    if s.circuits == 0 {
        return err(Some("site"), "circuits", 0, "site.circuits 0: a site has at least 1 circuit".to_owned());
    }
    if !in_range(s.ambient_c, AMBIENT_C_RANGE) {
        return err(
            Some("site"),
            "ambient_c",
            0,
            format!(
                "site.ambient_c {} °C is outside {:.0}..{:.0} °C",
                s.ambient_c, AMBIENT_C_RANGE.0, AMBIENT_C_RANGE.1
            ),
        );
    }
    if !(s.price_per_kwh.is_finite() && s.price_per_kwh >= 0.0) {
        return err(
            Some("site"),
            "price_per_kwh",
            0,
            format!("site.price_per_kwh {}: a price is not negative", s.price_per_kwh),
        );
    }
    if !in_range(s.duty_cycle, (0.0, 1.0)) {
        return err(
            Some("site"),
            "duty_cycle",
            0,
            format!("site.duty_cycle {} is outside 0-1 (a fraction of the time)", s.duty_cycle),
        );
    }
    if let Some(a) = s.outlet_continuous_a
        && !(a.is_finite() && a > 0.0)
    {
        return err(
            Some("site"),
            "outlet_continuous_a",
            0,
            format!("site.outlet_continuous_a {a} A: an outlet carries more than 0 A"),
        );
    }
    Ok(())
}

/// Each outlet's rating, the PSUs it names (existing, in one outlet only, on one circuit).
fn check_outlets(b: &Build, err: &Located<'_>) -> Result<(), BuildError> {
    let s = &b.site;
    for (oi, o) in s.outlets.iter().enumerate() {
        if let Some(a) = o.continuous_a
            && !(a.is_finite() && a > 0.0)
        {
            return err(
                Some("outlets"),
                "continuous_a",
                0,
                format!("site.outlets[{oi}].continuous_a {a} A: above 0 A"),
            );
        }
        for &p in &o.psus {
            if p >= b.psus.len() {
                return err(
                    Some("outlets"),
                    "psus",
                    oi,
                    format!(
                        "site.outlets[{oi}] names PSU index {p} (0-based), but the build has {} PSU{}",
                        b.psus.len(),
                        if b.psus.len() == 1 { "" } else { "s" }
                    ),
                );
            }
            if s.outlets[..oi].iter().any(|e| e.psus.contains(&p)) || o.psus.iter().filter(|&&q| q == p).count() > 1 {
                return err(
                    Some("outlets"),
                    "psus",
                    oi,
                    format!("site.outlets[{oi}]: PSU index {p} is already plugged into an outlet"),
                );
            }
        }
        let circuits: Vec<usize> = o.psus.iter().filter_map(|&p| b.psus.get(p).map(|u| u.circuit)).collect();
        if circuits.windows(2).any(|w| w[0] != w[1]) {
            return err(
                Some("outlets"),
                "psus",
                oi,
                format!(
                    "site.outlets[{oi}]: its PSUs are on different circuits ({circuits:?}); one outlet is on one circuit"
                ),
            );
        }
    }
    Ok(())
}

/// Memory kits, GPU power limits, workload context and batch.
fn check_parts(b: &Build, err: &Located<'_>) -> Result<(), BuildError> {
    if let Some(m) = &b.memory
        && m.kits == 0
    {
        return err(Some("memory"), "kits", 0, "memory.kits 0: at least 1 kit (or leave `memory` out)".to_owned());
    }
    if let Some(m) = &b.memory
        && m.speed_mt_s == Some(0)
    {
        return err(
            Some("memory"),
            "speed_mt_s",
            0,
            "memory.speed_mt_s 0: the data rate the memory runs at is above 0 MT/s (or leave it out)".to_owned(),
        );
    }
    let mut limits = 0;
    for (i, g) in b.gpus.iter().enumerate() {
        if let Some(w) = g.power_limit_w {
            if !(w.is_finite() && w > 0.0) {
                return err(
                    Some("gpus"),
                    "power_limit_w",
                    limits,
                    format!("gpus[{i}].power_limit_w {w} W: a power limit is above 0 W"),
                );
            }
            limits += 1;
        }
    }
    if let Some(w) = &b.workload {
        if w.context == 0 {
            return err(Some("workload"), "context", 0, "workload.context 0: at least 1 token".to_owned());
        }
        if w.batch == 0 {
            return err(Some("workload"), "batch", 0, "workload.batch 0: at least 1 sequence".to_owned());
        }
    }
    Ok(())
}

/// Byte offset of a 1-based line and column (in characters) of `text`; the end of the text
/// when past it.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return offset + l.char_indices().nth(column.saturating_sub(1)).map_or(l.len(), |(b, _)| b);
        }
        offset += l.len();
    }
    text.len()
}

/// Whether only whitespace and `//` or `/* */` comments follow byte offset `from` in `text`.
fn only_trivia_after(text: &str, from: usize) -> bool {
    let mut rest = text.get(from..).unwrap_or("");
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            return rest.is_empty();
        }
    }
}

/// Where a RON block comment that is never closed opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct UnclosedComment {
    /// Byte offset of the outermost `/*` that has no matching `*/`.
    outer: usize,
    /// Byte offset of the first `/*` nested inside it, when there is one (the usual cause: a
    /// path such as `catalog/*.ron` written in a comment).
    inner: Option<usize>,
}

/// The block comment of `text` that the end of the text leaves open, read as RON reads
/// comments (`/* */` nest; `//` runs to the end of the line; strings are skipped). `None` when
/// every block comment is closed.
fn unclosed_block_comment(text: &str) -> Option<UnclosedComment> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let outer = i;
                let mut inner = None;
                let mut level = 1;
                i += 2;
                while level > 0 {
                    if i + 1 >= bytes.len() {
                        return Some(UnclosedComment { outer, inner });
                    }
                    if bytes[i] == b'/' && bytes[i + 1] == b'*' {
                        level += 1;
                        inner.get_or_insert(i);
                        i += 2;
                    } else if bytes[i] == b'*' && bytes[i + 1] == b'/' {
                        level -= 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The field path (`gpus[0].power_limit_w`, `site.mains_v`) at byte offset `at` of a RON
/// build: the struct keys and list indices open at that point, read from the text before it
/// (strings and comments skipped). Empty at the top level.
pub(crate) fn field_path_at(text: &str, at: usize) -> String {
    /// One open bracket: a struct or variant `(` with its current key, or a list `[` with the
    /// index of its current element.
    enum Open {
        Fields(Option<String>),
        List(usize),
        Other,
    }
    let bytes = text.as_bytes();
    let end = at.min(bytes.len());
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < end {
        let b = bytes[i];
        match b {
            b'"' => {
                i += 1;
                while i < end && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < end && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < end && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'(' => stack.push(Open::Fields(None)),
            b'[' => stack.push(Open::List(0)),
            b'{' => stack.push(Open::Other),
            b')' | b']' | b'}' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Open::List(n)) => *n += 1,
                Some(Open::Fields(key)) => *key = None,
                _ => {}
            },
            _ if ident(b) && (i == 0 || !ident(bytes[i - 1])) => {
                let start = i;
                while i < end && ident(bytes[i]) {
                    i += 1;
                }
                let after = text[i..].trim_start();
                if after.starts_with(':')
                    && !after.starts_with("::")
                    && let Some(Open::Fields(key)) = stack.last_mut()
                {
                    *key = Some(text[start..i].to_owned());
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for open in &stack {
        match open {
            Open::Fields(Some(k)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Open::List(n) => {
                let _ = write!(path, "[{n}]");
            }
            Open::Fields(None) | Open::Other => {}
        }
    }
    path
}

/// A RON parse error of a build file in words a person can act on: a file that ends early
/// (truncated mid-field or with brackets left open) says so at the end of the text instead of
/// RON's "Unexpected end of RON" or "Unexpected field named `p`"; other errors name the field
/// path they are in (`gpus[0].power_limit_w: Integer is out of bounds`).
fn parse_error(file: &str, text: &str, e: &ron::error::SpannedError) -> BuildError {
    // A block comment never closed: RON nests `/* */`, so a `/*` inside a comment (such as
    // `catalog/*.ron`) opens a second comment that needs its own `*/`. Said at the comment's
    // opening, not at the end of the file the comment swallowed.
    if let Some(open) =
        unclosed_block_comment(text).filter(|_| matches!(e.code, ron::Error::UnclosedBlockComment | ron::Error::Eof))
    {
        let (line, column) = line_col(text, open.outer);
        let nested = match open.inner {
            Some(at) => {
                let (l, c) = line_col(text, at);
                format!(
                    "; the `/*` at line {l} column {c} inside it opened a nested comment (RON nests block comments), so the first `*/` closed only that one"
                )
            }
            None => String::new(),
        };
        return BuildError::at(
            file,
            line,
            column,
            format!("the block comment opened here at line {line} column {column} is never closed with `*/`{nested}"),
        );
    }
    let end = offset_of(text, e.span.end.line, e.span.end.col);
    let start = offset_of(text, e.span.start.line, e.span.start.col);
    // A string cut short: its opening quote is the last quote of the file.
    let open_string = matches!(e.code, ron::Error::ExpectedStringEnd)
        && text.get(start..).is_some_and(|rest| rest.matches('"').count() <= 1);
    if matches!(e.code, ron::Error::Eof) || open_string || only_trivia_after(text, end.max(start)) {
        let (line, column) = line_col(text, text.trim_end().len());
        return BuildError::at(
            file,
            line,
            column,
            format!(
                "the file ends early (truncated?) at line {line} column {column}: a value or a closing bracket is missing{}",
                match field_path_at(text, text.len()) {
                    p if p.is_empty() => String::new(),
                    p => format!(" (in `{p}`)"),
                }
            ),
        );
    }
    let path = field_path_at(text, start);
    // A workload name the vocabulary does not know ([`crate::workload::text`]): said as
    // `workload.precision: unknown precision ...` at the field's key, like the other values
    // the loader refuses.
    if let ron::Error::Message(m) = &e.code
        && let Some(key) = path.strip_prefix("workload.").filter(|k| WORKLOAD_NAMES.contains(k))
        && let Some(&at) = key_offsets(text, key).iter().rfind(|&&o| o <= start)
    {
        let (line, column) = line_col(text, at);
        return BuildError::at(file, line, column, format!("{path}: {m}"));
    }
    let message = match (&e.code, path.is_empty()) {
        (ron::Error::IntegerOutOfBounds, false) => {
            format!("`{path}`: Integer is out of bounds (negative, or too large for this field)")
        }
        (code, false) => format!("`{path}`: {code}"),
        (code, true) => code.to_string(),
    };
    BuildError::at(file, e.span.start.line, e.span.start.col, message)
}

/// The workload's fields stored as vocabulary names ([`crate::workload`]).
const WORKLOAD_NAMES: [&str; 6] = ["precision", "mode", "parallel", "interconnect", "runtime", "backend"];

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
/// fields, a missing or future `format`, values no machine can have (mains outside 90-260 V,
/// a breaker or circuit count of 0, ambient outside -10..50 °C, a negative price, a duty cycle
/// outside 0-1, 0 memory kits, a power limit or workload context/batch of 0), unknown part
/// ids (the message names up to three nearest catalog ids of the field's kind, ranked by the
/// pickers' search: [`kraftwerk_catalog::search::suggest_ids`]), and (with a catalog) a GPU power
/// limit outside its card's published range and a GPU slot name or drive `m2_slot` the board does
/// not have (where its slots or sockets are known: `check_slot_names`). A workload precision, mode, parallelism,
/// interconnect or runtime the vocabulary ([`crate::workload`]) does not name is refused at its key with
/// the accepted names: this is the one loader every face uses (`check`, `fit`, `power`,
/// `compare`, the planner, the window).
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
    let build: Build = opts.from_str(text).map_err(|e| parse_error(file, text, &e))?;
    if build.format == 0 {
        let (line, column) = format_field(text);
        return Err(BuildError::at(file, line, column, "format 0 is not a valid version"));
    }
    check_values(file, text, &build)?;
    if let Some(catalog) = catalog
        && let Some((field, id)) = build.unknown_ids(catalog).into_iter().next()
    {
        let (line, column) = locate_string(text, &id);
        let near = kraftwerk_catalog::search::suggest_ids(catalog, Build::field_kinds(&field), &id, 3);
        let hint = if near.is_empty() { String::new() } else { format!("; did you mean: {}?", near.join(", ")) };
        return Err(BuildError::at(
            file,
            line,
            column,
            format!("unknown part id `{id}` in `{field}`: not in the catalog nor in this file's `parts`{hint}"),
        ));
    }
    if let Some(catalog) = catalog {
        check_limits(file, text, &build, catalog)?;
        check_slot_names(file, text, &build, catalog)?;
    }
    Ok(build)
}

/// Slot and M.2 socket names the build's board does not have: a GPU placed by a slot name
/// (`slot: "PCIEX16_9"`) on a board whose slot layout is known but has no slot of that name
/// ([`kraftwerk_catalog::Motherboard::slot_named`]: exact, else ASCII case-insensitive), or a
/// drive in an `m2_slot` the board's known M.2 sockets do not include (same matching). The
/// error is at the name in `text` and lists the names the board has. A board whose slots or
/// sockets are not known (an import that lists only counts) is not checked here: the rules then
/// say "not checked".
fn check_slot_names(file: &str, text: &str, build: &Build, catalog: &Catalog) -> Result<(), BuildError> {
    let r = build.resolve(catalog);
    let Some(board) = r.board else { return Ok(()) };
    let at = |name: &str, message: String| {
        let (line, column) = locate_string(text, name);
        BuildError::at(file, line, column, message)
    };
    if board.slot_layout_known() {
        for (i, g) in build.gpus.iter().enumerate() {
            let Some(n) = g.slot_name.as_deref() else { continue };
            if board.slot_named(n).is_none() {
                let names: Vec<&str> = board.pcie_slots.iter().map(|s| s.name.as_str()).collect();
                return Err(at(
                    n,
                    format!(
                        "gpus[{i}].slot `{n}`: the {} (`{}`) has no slot of that name (its slots: {})",
                        board.name,
                        board.id,
                        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                    ),
                ));
            }
        }
    }
    if board.m2_sockets_known() {
        for (i, d) in build.storage.iter().enumerate() {
            let Some(n) = d.m2_slot.as_deref() else { continue };
            let found = board.m2_slots.iter().any(|m| m.name == n || m.name.eq_ignore_ascii_case(n));
            if !found {
                let names: Vec<&str> = board.m2_slots.iter().map(|m| m.name.as_str()).collect();
                return Err(at(
                    n,
                    format!(
                        "storage[{i}].m2_slot `{n}`: the {} (`{}`) has no M.2 socket of that name (its sockets: {}); leave `m2_slot` out for a drive not in a board socket",
                        board.name,
                        board.id,
                        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Each GPU's `power_limit_w` against its card's published range (`min_power_limit_w` ..
/// `max_power_limit_w`): a limit `nvidia-smi -pl` would refuse is an error at its key. A bound
/// nobody published is not checked here (`check` says so; the limit is used as set).
fn check_limits(file: &str, text: &str, build: &Build, catalog: &Catalog) -> Result<(), BuildError> {
    let r = build.resolve(catalog);
    let mut nth = 0;
    for (i, (p, g)) in build.gpus.iter().zip(&r.gpus).enumerate() {
        let Some(w) = p.power_limit_w else { continue };
        if let Some(g) = g
            && let Some(why) = g.limit_outside_range(w)
        {
            let (line, column) = locate_key(text, Some("gpus"), "power_limit_w", nth);
            return Err(BuildError::at(
                file,
                line,
                column,
                format!("gpus[{i}].power_limit_w {w} W is {why} for the {} (`{}`)", g.name, g.id),
            ));
        }
        nth += 1;
    }
    Ok(())
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

/// Saves atomically through the one writer ([`kraftwerk_catalog::files::write_atomic`]: a unique
/// temporary file in the same folder, fsync, rename over `path`, fsync of the folder).
///
/// # Errors
/// [`BuildError`] (line 0) when the folder is not writable or the disk is full; the old file
/// is then untouched.
pub fn save(path: &Path, build: &Build) -> Result<(), BuildError> {
    let shown = path.display().to_string();
    let err = |m: String| BuildError::at(&shown, 0, 0, m);
    let text = to_ron_string(build).map_err(|e| err(format!("cannot encode: {e}")))?;
    kraftwerk_catalog::files::write_atomic(path, text.as_bytes()).map_err(|e| err(format!("cannot save: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_nested_block_comment_is_found_at_its_opening() {
        // `catalog/*.ron` inside a comment opens a nested one: the outer never closes.
        let text = "(a: 1, /* see catalog/*.ron */ b: 2)";
        let open = unclosed_block_comment(text).expect("unclosed");
        assert_eq!(open.outer, text.find("/* see").expect("outer"));
        assert_eq!(open.inner, Some(text.find("/*.ron").expect("inner")));
        // Closed comments, nested or not, a `/*` inside a string and a line comment are fine.
        assert_eq!(unclosed_block_comment("(a: 1, /* x /* y */ z */ b: \"/*\") // /*"), None);
    }

    #[test]
    fn the_loader_points_at_the_unclosed_comment_not_the_end_of_the_file() {
        let text = "(\n    format: 1,\n    name: \"x\",\n    parts: (gpus: [ /* as catalog/*.ron */ ]),\n)\n";
        let e = load_str("b.rig.ron", text, None).expect_err("unclosed comment");
        let s = e.to_string();
        assert!(s.starts_with("b.rig.ron:4:21: the block comment opened here"), "{s}");
        assert!(s.contains("the `/*` at line 4 column 34 inside it"), "{s}");
        assert!(!s.contains("ends early"), "{s}");
    }
}

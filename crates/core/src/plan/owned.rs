//! The parts the user already owns, as `plan --own` and the Plan tab's owned list name them
//! (`1x nvidia-geforce-rtx-3090`, `asus-pro-ws-wrx80e`): one reading for both, so that they plan
//! the same goal. How the search and the cost use them is said at [`super::goal::Goal::owned`].
//! The must-have parts (`plan --must-have`, the Plan tab's must-have list) are read in the same
//! grammar by [`must_have_parts`], a GPU's count giving [`super::goal::Goal::must_have_count`].

use super::PlanError;
use serde::Serialize;

/// A part the user owns, and how many units of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OwnedPart {
    /// Catalog id (a GPU chip or partner card, a board, case, CPU, PSU, memory kit).
    pub id: String,
    /// Units owned (at least 1).
    pub count: u32,
}

/// The owned parts a list of words names, as `plan --own` and the Plan tab's owned list give
/// them: each entry is `ID` (one unit), `Nx ID` in one word with a space or as two words
/// (`--own 1x nvidia-geforce-rtx-3090`); words may also be separated by commas. The same id
/// named again adds to its count (`--own 1x A --own A` owns two). The one function the CLI and
/// the window read ownership with, so that they plan the same goal.
///
/// # Errors
/// [`PlanError::BadGoal`] for a count of 0, a count without an id after it, or a count over
/// 64 (no machine holds more of one part).
pub fn owned_parts<S: AsRef<str>>(entries: &[S]) -> Result<Vec<OwnedPart>, PlanError> {
    let mut out: Vec<OwnedPart> = Vec::new();
    for (id, count) in counted_entries(entries, "owned", false)? {
        let count = count.unwrap_or(1);
        if count == 0 || count > 64 {
            return Err(PlanError::BadGoal(format!("owned count {count}x of `{id}` must be 1 to 64")));
        }
        match out.iter_mut().find(|o| o.id == id) {
            Some(o) => o.count = o.count.saturating_add(count).min(64),
            None => out.push(OwnedPart { id, count }),
        }
    }
    Ok(out)
}

/// The must-have parts a list of words names, as `plan --must-have` and the Plan tab's
/// must-have list give them, in the grammar of [`owned_parts`] (`ID`, `Nx ID`, `Nx` and `ID` as
/// two words): the ids in order, and the one entry named with a count, if any (`2x
/// amd-radeon-rx-7900-xtx`: the machine holds exactly two; see
/// [`super::goal::Goal::must_have_count`]). A one-word `2xID` is read as `2x ID` too.
///
/// The same id counted twice adds up (`2x A 2x A` is four). A count of 0 or over 16, a count on
/// a part that is not a GPU, are refused by the search ([`super::goal::validate`]).
///
/// # Errors
/// [`PlanError::BadGoal`] for a count without an id after it, a count too large for a number,
/// and counts on two different parts (one machine has one GPU count).
pub fn must_have_parts<S: AsRef<str>>(entries: &[S]) -> Result<(Vec<String>, Option<OwnedPart>), PlanError> {
    // The ids in order, and the explicit counts (`2x ID`) with the id they name.
    let mut ids: Vec<String> = Vec::new();
    let mut counted: Vec<OwnedPart> = Vec::new();
    for (id, count) in counted_entries(entries, "must-have", true)? {
        if let Some(n) = count {
            match counted.iter_mut().find(|c| c.id == id) {
                Some(c) => c.count = c.count.saturating_add(n),
                None => counted.push(OwnedPart { id: id.clone(), count: n }),
            }
        }
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if counted.len() > 1 {
        return Err(PlanError::BadGoal(format!(
            "must-have counts name {} parts; give a count to one GPU only (one machine has one GPU count)",
            counted.len()
        )));
    }
    Ok((ids, counted.pop()))
}

/// The entries of a `[Nx] ID` list (words separated by spaces or commas) as `(id, count)`, the
/// count `None` where the entry names none; with `one_word`, `2xID` is read as `2x ID` (no
/// catalog id starts with digits, an `x` and a letter). `what` names the list in errors.
///
/// # Errors
/// [`PlanError::BadGoal`] for a count without an id after it, or one too large for a number.
fn counted_entries<S: AsRef<str>>(
    entries: &[S],
    what: &str,
    one_word: bool,
) -> Result<Vec<(String, Option<u32>)>, PlanError> {
    let words: Vec<&str> = entries
        .iter()
        .flat_map(|e| e.as_ref().split(|c: char| c == ',' || c.is_whitespace()))
        .filter(|w| !w.is_empty())
        .flat_map(|w| {
            let digits = w.bytes().take_while(u8::is_ascii_digit).count();
            match w[digits..].strip_prefix(['x', 'X']) {
                Some(id) if one_word && digits > 0 && id.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                    vec![&w[..=digits], id]
                }
                _ => vec![w],
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut words = words.into_iter();
    while let Some(w) = words.next() {
        out.push(match count_word(w) {
            Some(n) => {
                let id = words
                    .next()
                    .filter(|id| count_word(id).is_none())
                    .ok_or_else(|| PlanError::BadGoal(format!("{what} part count `{w}` names no part id after it")))?;
                let n: u32 = n.parse().map_err(|_| PlanError::BadGoal(format!("{what} count `{w}` is too large")))?;
                (id.to_owned(), Some(n))
            }
            None => (w.to_owned(), None),
        });
    }
    Ok(out)
}

/// `2x` → `2`: a count word of the `Nx` grammar.
fn count_word(w: &str) -> Option<&str> {
    w.strip_suffix(['x', 'X']).filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

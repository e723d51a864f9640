//! Fuzzy, ranked type-to-search for the part pickers. Pure, no egui.
//!
//! A query is split on whitespace into terms; a part matches when every term matches its key
//! (vendor, model and id, lower-cased). A term matches as a substring (best at the start of a
//! word) or, failing that, as a subsequence (`4090fe` finds `4090 founders edition`, `tx1600`
//! finds `TX-1600`); subsequences score lower the more they are spread out. Ties go to shorter
//! keys (the plain model before its variants), then to the original order (curated first).
//!
//! Written here rather than taken from a fuzzy crate: the whole matcher is ~100 lines, needs
//! no Unicode segmentation (part names are ASCII in the catalog) and keeps the build of a
//! crate with thousands of parts free of one more dependency; `catalog::picker` keeps the
//! plain substring matcher used for name resolution.

use super::{Catalog, HasId, Origin, Part, PartKind};

/// Search keys of a list of candidates, built once per list.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    keys: Vec<String>,
    /// Each key's letters and digits only (`seasonicprimetx1600`), so `tx1600` and `TX-1600`
    /// are one model code.
    compact: Vec<String>,
}

/// A term's letters and digits only, lower-cased.
fn compact(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase()
}

/// Score of `term` in `key`, higher is better; `None` when it matches neither as a substring
/// nor as a subsequence.
fn term_score(key: &str, term: &str) -> Option<u32> {
    if let Some(at) = key.find(term) {
        let word_start = at == 0 || !key.as_bytes()[at - 1].is_ascii_alphanumeric();
        return Some(if word_start { 1000 } else { 700 } + term.len() as u32);
    }
    // Subsequence: every char of the term in order; the fewer skipped chars between the first
    // and last matched char, the better.
    let kb = key.as_bytes();
    let mut pos = 0usize;
    let mut first = None;
    for &c in term.as_bytes() {
        let off = kb[pos..].iter().position(|&k| k == c)?;
        first.get_or_insert(pos + off);
        pos += off + 1;
    }
    let span = pos - first.unwrap_or(0);
    let gaps = span.saturating_sub(term.len()) as u32;
    Some(500u32.saturating_sub(gaps * 10))
}

impl SearchIndex {
    /// Index of `keys` (e.g. `"ASUS ROG STRIX RTX 4090 asus-rog-strix-4090"`); positions
    /// returned by [`SearchIndex::search`] index into `keys`.
    pub fn new<I: IntoIterator<Item = String>>(keys: I) -> Self {
        let keys: Vec<String> = keys.into_iter().map(|k| k.to_lowercase()).collect();
        let compact = keys.iter().map(|k| compact(k)).collect();
        SearchIndex { keys, compact }
    }

    /// Number of indexed keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Positions of the keys matching every term of `query`, best first, among those `keep`
    /// accepts (the pickers' filters). An empty query returns every kept position in order.
    pub fn search(&self, query: &str, keep: impl Fn(usize) -> bool) -> Vec<usize> {
        let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if terms.is_empty() {
            return (0..self.keys.len()).filter(|&i| keep(i)).collect();
        }
        // As a shop ranks: where some keys hold every term as written (or as a model code
        // without its punctuation: `tx1600` in `TX-1600`), only those are hits, exact codes
        // first; letters spread out through a key (`hx1500i` in a board's name) count only
        // where no key holds the terms.
        let terms_compact: Vec<String> = terms.iter().map(|t| compact(t)).collect();
        let mut exact: Vec<(u32, usize, usize)> = Vec::new();
        for (i, key) in self.keys.iter().enumerate() {
            let mut score = 0u32;
            let all = terms.iter().zip(&terms_compact).all(|(t, tc)| {
                match key.find(t.as_str()).and_then(|_| term_score(key, t)) {
                    Some(s) => {
                        score += s;
                        true
                    }
                    None if !tc.is_empty() && self.compact[i].contains(tc.as_str()) => {
                        score += 900 + tc.len() as u32;
                        true
                    }
                    None => false,
                }
            });
            if all && keep(i) {
                exact.push((score, key.len(), i));
            }
        }
        if !exact.is_empty() {
            exact.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
            return exact.into_iter().map(|(_, _, i)| i).collect();
        }
        let mut hits: Vec<(u32, usize, usize)> = Vec::new();
        'keys: for (i, key) in self.keys.iter().enumerate() {
            let mut score = 0u32;
            for t in &terms {
                match term_score(key, t) {
                    Some(s) => score += s,
                    None => continue 'keys,
                }
            }
            if keep(i) {
                hits.push((score, key.len(), i));
            }
        }
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        hits.into_iter().map(|(_, _, i)| i).collect()
    }
}

/// The least [`term_score`] a term (or its prefix) needs to count for [`SearchIndex::nearest`]:
/// a substring, or a subsequence with at most 10 skipped characters (a subsequence scattered
/// over a long key is no evidence of a typo).
const NEAR_SCORE: u32 = 400;

impl SearchIndex {
    /// Up to `n` positions nearest to `query` among those `keep` accepts, best first: the
    /// "did you mean" of a misspelt id, where [`SearchIndex::search`] (every term must match)
    /// finds nothing. Each term scores as in `search` when it matches; when it does not, its
    /// longest prefix that does (at least half the term: `4909` -> `490`, a subsequence of
    /// `4090`; scores below [`NEAR_SCORE`] do not count) scores in proportion to the share of the term it covers. Keys that cover less
    /// than half of the query's characters are left out; ties go as in `search`.
    pub fn nearest(&self, query: &str, keep: impl Fn(usize) -> bool, n: usize) -> Vec<usize> {
        let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let total_chars: usize = terms.iter().map(String::len).sum();
        if total_chars == 0 {
            return Vec::new();
        }
        let mut hits: Vec<(u32, usize, usize)> = Vec::new();
        for (i, key) in self.keys.iter().enumerate() {
            let mut score = 0u32;
            let mut covered = 0usize;
            for t in &terms {
                // Terms are ASCII in ids; a non-ASCII term is only tried whole.
                let shortest = if t.is_ascii() { t.len().div_ceil(2).max(1) } else { t.len() };
                let hit = (shortest..=t.len())
                    .rev()
                    .find_map(|len| term_score(key, &t[..len]).filter(|&s| s >= NEAR_SCORE).map(|s| (len, s)));
                if let Some((len, s)) = hit {
                    covered += len;
                    score += s * len as u32 / t.len() as u32;
                }
            }
            if covered * 2 >= total_chars && keep(i) {
                hits.push((score, key.len(), i));
            }
        }
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        hits.truncate(n);
        hits.into_iter().map(|(_, _, i)| i).collect()
    }
}

/// Whether a part was imported from a parts database (`catalog/opendb/`) rather than curated:
/// the pickers and `kraftwerk catalog search` list imported parts after the curated ones.
pub fn is_imported(origin: &Origin) -> bool {
    matches!(origin, Origin::Builtin(f) if f.starts_with("catalog/opendb/"))
}

/// The text a part is found by in the pickers: its shown name, then its id.
pub fn part_key(name: &str, id: &str) -> String {
    format!("{name} {id}")
}

/// The parts of some kinds of a catalog and their [`SearchIndex`], ranked as the window's part
/// pickers rank them: the same keys ([`part_key`]; a GPU card by its name with its chip, as the
/// GPU picker shows it) and the same order before ranking (curated before imported, each group
/// in kind then catalog order). Used by `kraftwerk catalog search` and by the "did you mean"
/// of an unknown id in a build file.
pub struct PartSearch<'a> {
    parts: Vec<(PartKind, &'a dyn Part, String)>,
    index: SearchIndex,
}

impl<'a> PartSearch<'a> {
    /// Index of every part of `kinds` in `catalog`.
    pub fn new(catalog: &'a Catalog, kinds: &[PartKind]) -> Self {
        let mut parts: Vec<(PartKind, &'a dyn Part, String)> = Vec::new();
        for &kind in kinds {
            for p in catalog.parts_of(kind) {
                let name = match kind {
                    // The GPU picker lists a card resolved against its chip: "ASUS TUF RTX 4090
                    // OC (GeForce RTX 4090)".
                    PartKind::GpuCard => {
                        catalog.gpu_or_card(p.id()).map_or_else(|| p.display_name(), HasId::display_name)
                    }
                    _ => p.display_name(),
                };
                parts.push((kind, p, name));
            }
        }
        parts.sort_by_key(|(_, p, _)| is_imported(p.origin()));
        let index = SearchIndex::new(parts.iter().map(|(_, p, name)| part_key(name, p.id())));
        PartSearch { parts, index }
    }

    /// Number of indexed parts.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// Whether no part is indexed.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Every part matching every term of `query` ([`SearchIndex::search`]), best first, as
    /// `(kind, part, shown name)`.
    pub fn search(&self, query: &str) -> Vec<(PartKind, &'a dyn Part, &str)> {
        self.index.search(query, |_| true).into_iter().map(|i| self.at(i)).collect()
    }

    /// Up to `n` parts nearest to `query` ([`SearchIndex::nearest`]), best first.
    pub fn nearest(&self, query: &str, n: usize) -> Vec<(PartKind, &'a dyn Part, &str)> {
        self.index.nearest(query, |_| true, n).into_iter().map(|i| self.at(i)).collect()
    }

    fn at(&self, i: usize) -> (PartKind, &'a dyn Part, &str) {
        let (kind, part, name) = &self.parts[i];
        (*kind, *part, name.as_str())
    }
}

/// Up to `n` of `ids` nearest to `id` (a misspelt model or rule id: `psu-capacty` finds
/// `psu-capacity`), by [`SearchIndex::nearest`] over the ids with `-`, `_` and `.` read as
/// spaces; empty when none is near.
pub(crate) fn nearest_ids<'a>(ids: &[&'a str], id: &str, n: usize) -> Vec<&'a str> {
    let spaced = |s: &str| s.chars().map(|c| if matches!(c, '-' | '_' | '.') { ' ' } else { c }).collect::<String>();
    let index = SearchIndex::new(ids.iter().map(|i| spaced(i)));
    index.nearest(&spaced(id), |_| true, n).into_iter().map(|i| ids[i]).collect()
}

/// `; did you mean: a, b?` for [`nearest_ids`], or an empty string when none is near.
pub fn did_you_mean(ids: &[&str], id: &str) -> String {
    let near = nearest_ids(ids, id, 3);
    if near.is_empty() { String::new() } else { format!("; did you mean: {}?", near.join(", ")) }
}

/// Up to `n` ids of `kinds` nearest to a misspelt `id` (its words split at `-`, `_` and `.`),
/// best first ([`PartSearch::nearest`]); empty when nothing is near.
pub fn suggest_ids(catalog: &Catalog, kinds: &[PartKind], id: &str, n: usize) -> Vec<String> {
    let query: String = id.chars().map(|c| if matches!(c, '-' | '_' | '.') { ' ' } else { c }).collect();
    PartSearch::new(catalog, kinds).nearest(&query, n).into_iter().map(|(_, p, _)| p.id().to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substring_at_word_start_beats_subsequence() {
        let idx = SearchIndex::new([
            "Seasonic PRIME TX-1600".to_owned(),
            "Corsair HX1500i".to_owned(),
            "Seasonic Prime TX-1000".to_owned(),
        ]);
        assert_eq!(idx.search("tx1600", |_| true), vec![0]);
        assert_eq!(idx.search("prime", |_| true), vec![0, 2]);
        assert_eq!(idx.search("hx15", |_| true), vec![1]);
        assert!(idx.search("zz", |_| true).is_empty());
        assert_eq!(idx.search("", |i| i != 1), vec![0, 2]);
        assert_eq!(idx.search("seasonic", |i| i == 0), vec![0]);
    }

    #[test]
    fn exact_model_codes_rank_alone_when_some_key_holds_them() {
        // Issue 39: "HX1500i" listed a board and memory (letters spread through their names)
        // beside the PSU; "ProArt X870E" matched 197 parts.
        let idx = SearchIndex::new([
            "ASUS ProArt X870E-CREATOR WIFI asus-proart-x870e-creator-wifi".to_owned(),
            "ASUS ProArt GeForce RTX 4080 asus-proart-rtx-4080".to_owned(),
            "ASUS X870E Hero asus-x870e-hero".to_owned(),
            "Corsair HX1500i corsair-hx1500i".to_owned(),
            "ASRock H570M-ITX/ac 1500 items x 15 ion".to_owned(),
        ]);
        assert_eq!(idx.search("ProArt X870E", |_| true), vec![0]);
        assert_eq!(idx.search("HX1500i", |_| true), vec![3]);
        assert_eq!(idx.search("x870e", |_| true), vec![2, 0]);
        // Without an exact hit, letters spread out still find a part.
        assert_eq!(idx.search("crsrhx", |_| true), vec![3]);
    }

    #[test]
    fn did_you_mean_finds_a_misspelt_rule_or_model_id() {
        let rules = ["psu-capacity", "psu-connectors", "wall-circuit", "gpu-slot"];
        assert_eq!(nearest_ids(&rules, "psu-capacty", 1), vec!["psu-capacity"]);
        assert!(did_you_mean(&rules, "psu-capacty").contains("psu-capacity"));
        let models = ["llama-3.1-70b", "llama-3.1-8b", "qwen3-30b-a3b"];
        assert_eq!(nearest_ids(&models, "llama-3-70b", 1), vec!["llama-3.1-70b"]);
        assert_eq!(did_you_mean(&models, "zzzzzz"), "");
    }

    #[test]
    fn nearest_tolerates_a_misspelt_term_and_drops_unrelated_keys() {
        let idx = SearchIndex::new([
            "NVIDIA GeForce RTX 4060 nvidia-geforce-rtx-4060".to_owned(),
            "NVIDIA GeForce RTX 4090 nvidia-geforce-rtx-4090".to_owned(),
            "NVIDIA GeForce RTX 4080 nvidia-geforce-rtx-4080".to_owned(),
            "Seasonic PRIME TX-1600 seasonic-prime-tx-1600".to_owned(),
        ]);
        // The transposed `4909` (its prefix `490` is a tight subsequence of `4090`) ranks the
        // RTX 4090 first; the PSU covers too little of the query to be suggested.
        let near = idx.nearest("nvidia geforce rtx 4909", |_| true, 3);
        assert_eq!(near.first(), Some(&1), "{near:?}");
        assert!(!near.contains(&3), "{near:?}");
        assert_eq!(idx.nearest("nvidai", |_| true, 1), vec![0]);
        assert!(idx.nearest("flux capacitor", |_| true, 3).is_empty());
        assert!(idx.nearest("", |_| true, 3).is_empty());
    }
}

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

/// Search keys of a list of candidates, built once per list.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    keys: Vec<String>,
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
        SearchIndex { keys: keys.into_iter().map(|k| k.to_lowercase()).collect() }
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
}

//! A ranked substring search for the part pickers: every term of the query must occur,
//! case-insensitively, in a part's vendor, name or id.
//!
//! This is the simple matcher the catalog ships with; the fuzzy matcher the pickers may use
//! instead lives in `catalog::search` (UI area). Pure, no egui.

use super::HasId;

/// Lower-cased search keys of a list of parts, built once per list.
#[derive(Debug, Clone, Default)]
pub struct PickerIndex {
    keys: Vec<String>,
    /// The keys without spaces and dashes (`16 gb` matches `16gb`, `rtx4090` matches `rtx 4090`).
    compact: Vec<String>,
}

impl PickerIndex {
    /// Index of `parts` (the positions returned by [`PickerIndex::search`] are into `parts`).
    pub fn new<T: HasId + ?Sized>(parts: &[&T]) -> Self {
        let keys: Vec<String> =
            parts.iter().map(|p| format!("{} {}", p.display_name(), p.id()).to_lowercase()).collect();
        let compact = keys.iter().map(|k| k.chars().filter(|c| *c != ' ' && *c != '-').collect()).collect();
        PickerIndex { keys, compact }
    }

    /// Number of indexed parts.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Positions of the parts that contain every whitespace-separated term of `query`, best
    /// first: a term at the start of a word scores higher than one inside a word, and shorter
    /// keys win ties (the plain model before its colour variants). At most `limit` results; an
    /// empty query returns the first `limit` parts in order.
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if terms.is_empty() {
            return (0..self.keys.len().min(limit)).collect();
        }
        let mut hits: Vec<(u32, usize, usize)> = Vec::new();
        'parts: for (i, key) in self.keys.iter().enumerate() {
            let mut score = 0u32;
            for t in &terms {
                match key.find(t.as_str()) {
                    Some(at) => {
                        let word_start = at == 0 || !key.as_bytes()[at - 1].is_ascii_alphanumeric();
                        score += if word_start { 2 } else { 1 };
                    }
                    None if self.compact[i].contains(t.trim_matches('-')) => score += 1,
                    None => continue 'parts,
                }
            }
            hits.push((score, key.len(), i));
        }
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        hits.truncate(limit);
        hits.into_iter().map(|(_, _, i)| i).collect()
    }
}

impl super::Catalog {
    /// The part of `kind` a builder's name for it points to: an exact id, else the best
    /// [`PickerIndex`] hit among the parts of `kind` (every term of `name` must occur in the
    /// part's vendor, name or id). GPU names fall back from cards to chips and back. `None` when
    /// nothing matches every term.
    pub fn find_by_name(&self, kind: super::PartKind, name: &str) -> Option<&dyn super::Part> {
        use super::PartKind;
        let kinds: &[PartKind] = match kind {
            PartKind::Gpu => &[PartKind::Gpu, PartKind::GpuCard],
            PartKind::GpuCard => &[PartKind::GpuCard, PartKind::Gpu],
            _ => std::slice::from_ref(&kind),
        };
        for k in kinds {
            let parts = self.parts_of(*k);
            if let Some(p) = parts.iter().find(|p| p.id() == name) {
                return Some(*p);
            }
            let index = PickerIndex::new(&parts);
            if let Some(&i) = index.search(name, 1).first() {
                return parts.get(i).copied();
            }
        }
        None
    }
}

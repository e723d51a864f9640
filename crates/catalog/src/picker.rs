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

    /// Whether the indexed parts' vendors, names and ids hold `word` (read as [`query_terms`]
    /// reads it): each of its `/`-separated alternatives (`Platinum/Titanium`) in some part.
    fn mentions(&self, word: &str) -> bool {
        query_terms(word)
            .iter()
            .flat_map(|t| t.split('/').filter(|p| !p.is_empty()).map(str::to_owned).collect::<Vec<_>>())
            .all(|p| self.keys.iter().any(|k| k.contains(p.as_str())))
    }

    /// Positions of the parts that contain every whitespace-separated term of `query`, best
    /// first: a term at the start of a word scores higher than one inside a word, and shorter
    /// keys win ties (the plain model before its colour variants). At most `limit` results; an
    /// empty query returns the first `limit` parts in order.
    ///
    /// Terms are read as [`query_terms`] gives them (trademark signs and trailing commas
    /// dropped). A term also matches, scoring as inside a word, a key that holds it without
    /// its dashes (`E5-2697v4` in `Xeon E5-2697 v4`), or one that holds both halves of a model
    /// code and its series suffix (`X670E-CREATOR` in `X670E ProArt CREATOR`, see
    /// [`suffix_split`]).
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let terms = query_terms(query);
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
                    None if self.compact[i].contains(&t.replace('-', "")) => score += 1,
                    None if holds_split_code(key, t) => score += 1,
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

/// Words that make a model number a different part: `3090` and `3090 Ti`, `4090` and `4090 D`,
/// `7900 XT` and `7900 XTX` are different chips, and Noctua's `NH-D15 G2` is not the NH-D15.
const VARIANT_WORDS: &[&str] = &["ti", "super", "xt", "xtx", "gre", "d", "g2"];

impl PickerIndex {
    /// The best [`PickerIndex::search`] hit for a builder's part name that does not add a variant
    /// word ([`VARIANT_WORDS`]) to one of the name's model numbers: "Gigabyte 3090 Gaming OC"
    /// is the RTX 3090 card, never the 3090 Ti one whose listing happens to be shorter.
    fn best_match(&self, name: &str) -> Option<usize> {
        let terms = query_terms(name);
        self.search(name, self.keys.len()).into_iter().find(|&i| !adds_variant(&self.keys[i], &terms))
    }
}

/// The lower-cased search terms of a query: its whitespace-separated words without trademark
/// signs (`Ryzen™`, `Radeon®`) and without a trailing comma or semicolon (`SWFT319,` as a
/// pasted listing writes it); words left empty are dropped.
fn query_terms(query: &str) -> Vec<String> {
    query
        .split_whitespace()
        .map(|w| w.chars().filter(|c| !matches!(c, '™' | '®' | '©')).collect::<String>())
        .map(|w| w.trim_end_matches([',', ';']).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A term `CODE-WORD` whose `CODE` holds a digit and whose `WORD` is a series or edition word
/// of three letters or more (`X670E-CREATOR`, `WRX80E-SAGE`), as `(code, word)`; catalogs from
/// other sources put the two apart (`X670E ProArt CREATOR`), and the word must then start a
/// word of the key ([`starts_a_word`]). A suffix with a digit is no series word (`ROMED-2T`,
/// `TR4-SP3`), and a one- or two-letter suffix (`X99-E`, `H12SSL-i`) occurs in too many keys
/// to mean anything apart: those terms are never split.
fn suffix_split(term: &str) -> Option<(&str, &str)> {
    let (code, word) = term.rsplit_once('-')?;
    (code.chars().any(|c| c.is_ascii_digit()) && word.chars().count() >= 3 && word.chars().all(char::is_alphabetic))
        .then_some((code, word))
}

/// Whether `key` (lower case: a part's vendor, name and id) holds the term `CODE-WORD` (lower
/// case) with its two halves apart, as catalogs from other sources write it: `x670e-creator` in
/// `asus x670e proart-creator wifi` ([`suffix_split`]: the code anywhere, the series word at the
/// start of a word). False for a term that is no such pair (`romed8-2t`, `x99-e`). The part
/// pickers ([`PickerIndex::search`]) and `kraftwerk import` read a term with this one test.
pub fn holds_split_code(key: &str, term: &str) -> bool {
    suffix_split(term).is_some_and(|(code, word)| key.contains(code) && starts_a_word(key, word))
}

/// Whether `word` occurs in `key` at the start of a word (after a non-alphanumeric character
/// or at the start).
fn starts_a_word(key: &str, word: &str) -> bool {
    key.match_indices(word).any(|(at, _)| at == 0 || !key.as_bytes()[at - 1].is_ascii_alphanumeric())
}

/// Whether every occurrence in `key` of some model-code term of `terms` ([`is_model_code`]:
/// `3090`, `NH-D15`) is followed by a variant word that `terms` do not name.
fn adds_variant(key: &str, terms: &[String]) -> bool {
    terms.iter().filter(|t| is_model_code(t)).any(|num| {
        let mut found = key.match_indices(num.as_str()).peekable();
        found.peek().is_some()
            && found.all(|(at, _)| {
                let rest = key[at + num.len()..].trim_start_matches([' ', '-']);
                let word: String = rest.chars().take_while(char::is_ascii_alphanumeric).collect();
                VARIANT_WORDS.contains(&word.as_str()) && !terms.contains(&word)
            })
    })
}

impl super::Catalog {
    /// The part of `kind` a builder's name for it points to: an exact id, else the best
    /// [`PickerIndex`] hit among the parts of `kind` (every term of `name` must occur in the
    /// part's vendor, name or id). GPU names fall back from cards to chips and back.
    ///
    /// A hit that adds a variant word to one of the name's model numbers (`3090` -> `3090 Ti`)
    /// is passed over. When no part matches every term, one word of the name may be a wrong series name (a
    /// build log's "ROG Genesis GR701" for the ROG Hyperion GR701): the name is searched again
    /// without each of its words that holds no digit, but only when it has a model code
    /// ([`is_model_code`]) that every retry keeps, and only when all retries that match point to
    /// the same part. A first word that is the maker of a part of this kind is never dropped
    /// (an ASRock board is not the ASUS board of the same chipset), nor is a word no part of the
    /// kind holds (a maker the catalog lacks). `None` when nothing matches, or when the retries
    /// disagree.
    pub fn find_by_name(&self, kind: super::PartKind, name: &str) -> Option<&dyn super::Part> {
        use super::PartKind;
        let kinds: &[PartKind] = match kind {
            PartKind::Gpu => &[PartKind::Gpu, PartKind::GpuCard],
            PartKind::GpuCard => &[PartKind::GpuCard, PartKind::Gpu],
            _ => std::slice::from_ref(&kind),
        };
        let indexed: Vec<(Vec<&dyn super::Part>, PickerIndex)> = kinds
            .iter()
            .map(|k| {
                let parts = self.parts_of(*k);
                let index = PickerIndex::new(&parts);
                (parts, index)
            })
            .collect();
        for (k, (parts, index)) in kinds.iter().zip(&indexed) {
            if let Some(p) = parts.iter().find(|p| p.id() == name) {
                return Some(*p);
            }
            if let Some(i) = index.best_match(name) {
                return parts.get(i).copied();
            }
            if *k == PartKind::Gpu
                && let Some(g) = self.chip_by_memory(name)
            {
                return Some(g);
            }
        }
        let words: Vec<&str> = name.split_whitespace().collect();
        if !words.iter().any(|w| is_model_code(w)) || words.len() < 2 {
            return None;
        }
        for (parts, index) in &indexed {
            // A name that opens with a maker of this kind names that maker: dropping it would
            // hand "ASRock TRX50 WS" the ASUS TRX50 board.
            let opens_with_maker = parts.iter().any(|p| p.vendor().eq_ignore_ascii_case(words[0]));
            let mut found: Option<usize> = None;
            // A word no part of this kind holds anywhere is no wrong series word but a name the
            // catalog lacks (a maker, "鑫谷" in "鑫谷 GM650W"): dropping it would find another
            // maker's part of the same model code.
            for skip in (0..words.len())
                .filter(|&i| !words[i].chars().any(|c| c.is_ascii_digit()))
                .filter(|&i| !(i == 0 && opens_with_maker))
                .filter(|&i| index.mentions(words[i]))
            {
                let query: Vec<&str> = words.iter().enumerate().filter(|&(i, _)| i != skip).map(|(_, w)| *w).collect();
                if let Some(i) = index.best_match(&query.join(" ")) {
                    match found {
                        Some(f) if f != i => return None,
                        _ => found = Some(i),
                    }
                }
            }
            if let Some(i) = found {
                return parts.get(i).copied();
            }
        }
        None
    }
}

impl super::Catalog {
    /// The GPU chip a name with a memory size points to when chip names carry no size: "NVIDIA
    /// 3090 TI 24G" is the RTX 3090 Ti chip, because its `memory_gib` is 24. Every size term
    /// (`24G`, `48GB`) must match the chip's memory within 1.5 GiB (vendors round: 141 GB is
    /// 140.4 GiB reported); the other terms are searched as usual.
    fn chip_by_memory(&self, name: &str) -> Option<&dyn super::Part> {
        let (sizes, rest): (Vec<&str>, Vec<&str>) = name.split_whitespace().partition(|w| memory_size(w).is_some());
        if sizes.is_empty() || rest.is_empty() {
            return None;
        }
        let chips: Vec<&super::Gpu> = self
            .gpus
            .iter()
            .filter(|g| sizes.iter().filter_map(|w| memory_size(w)).all(|n| (g.memory_gib - n).abs() < 1.5))
            .collect();
        let index = PickerIndex::new(&chips);
        let i = index.best_match(&rest.join(" "))?;
        chips.get(i).map(|g| *g as &dyn super::Part)
    }
}

/// The size of a memory-size term (`24G`, `48GB`, `16gb`), GB.
fn memory_size(word: &str) -> Option<f64> {
    let w = word.to_ascii_lowercase();
    let n = w.strip_suffix("gb").or_else(|| w.strip_suffix('g'))?;
    if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// Whether `word` is a model code (`GR701`, `H12SSL-i`, `7443P`, `4090`): at least three
/// characters with a digit, and not a bare quantity with a unit (`1600W`, `24G`, `16GB`,
/// `360mm`, `4U`), which many parts of a maker share.
pub fn is_model_code(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    if w.len() < 3 || !w.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let unit = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    !(unit.len() < w.len() && ["w", "g", "gb", "tb", "mm", "u", "v", "a", "mhz", "ghz"].contains(&unit))
}

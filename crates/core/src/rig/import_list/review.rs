//! The review gate of a match: a hit whose maker, model codes or board chipset disagree with
//! the line is never imported silently, whatever its confidence. The line goes to the lines not
//! imported, with the hit named as a suggestion.
//!
//! Why tokens and not a confidence threshold: the confidence ([`super::matching`]) is the share
//! of the line's name words found in the part's vendor, name and id, and every word counts the
//! same. A board title's head is maker, series, model, suffix, form factor and socket (`Asus
//! ProArt X670E-CREATOR WIFI ATX AM5`): `WIFI ATX AM5` alone, words hundreds of boards share,
//! gave an MSI B650 board 50 %, while right matches of the real lists score 50 % to 80 % too
//! (`Noctua NH-U14S TR4-SP3 or Dynatron A26` 50 %, `Corsair RM850x (2021)` 66 %, `PNY RTX
//! A-Series RTX A6000` 80 %). No percentage separates them; the words that name the product do.
//! So the threshold is on those: the maker the line opens with must be the part's (all of it),
//! and where the line has model codes, at least one must be in the part (`RM850x` is, `2021`
//! need not be); a board's chipset must be the board's.

use kraftwerk_catalog::picker::{holds_split_code, is_model_code};
use kraftwerk_catalog::{Catalog, Part, PartKind};

/// Lower case without spaces and punctuation (`be quiet!` -> `bequiet`, `G.Skill` -> `gskill`).
fn compact(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Whether `w` (lower case, no dash) is a platform word: a socket, a memory generation, a bus,
/// a lane width or a Wi-Fi generation.
fn platform_part(w: &str) -> bool {
    const SOCKETS: &[&str] = &["tr4", "strx4", "str5", "swrx8", "sp3", "sp5", "sp6", "sp7", "m.2", "m2"];
    let digits = |r: &str| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit() || c == '.');
    let after = |prefixes: &[&str]| prefixes.iter().any(|p| w.strip_prefix(*p).is_some_and(digits));
    // DDR5, GDDR6X, LPDDR5
    let memory = ["lpddr", "gddr", "ddr"]
        .iter()
        .any(|p| w.strip_prefix(*p).is_some_and(|r| digits(r.strip_suffix('x').unwrap_or(r))));
    memory
        || SOCKETS.contains(&w)
        // AM5, AM3+, FM2, LGA1700, Gen4, PCIe4 / PCIe5.0, USB3
        || after(&["am", "fm", "lga", "gen", "pcie", "usb"])
        || w.strip_suffix('+').is_some_and(|r| r.strip_prefix("am").is_some_and(digits))
        // lane widths (not `X99`, `X870`: chipsets)
        || matches!(w, "pcie" | "x1" | "x2" | "x4" | "x8" | "x16")
        // WiFi7, WiFi6E
        || w.strip_prefix("wifi").is_some_and(|r| digits(r.strip_suffix('e').unwrap_or(r)))
}

/// Whether a word of a name is a platform word, not a model code: a socket (`AM5`, `LGA1700`,
/// `sTRX4`, `SP3`), a memory generation or speed (`DDR5`, `DDR4-3200`, `GDDR6X`), a bus or lane
/// width (`PCIe4`, `Gen5`, `x16`, `M.2`) or a Wi-Fi generation (`WiFi7`, `WiFi6E`): hundreds of
/// parts share each, so none of them says which part a line names. A word whose dash-separated
/// halves are all platform words (`TR4-SP3`) is one too.
fn is_platform_word(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '+');
    // DDR4-3200, DDR5-6000: a generation and a data rate.
    if let Some((generation, rate)) = w.split_once('-')
        && platform_part(generation)
        && generation.contains("ddr")
        && !rate.is_empty()
        && rate.chars().all(|c| c.is_ascii_digit())
    {
        return true;
    }
    if platform_part(&w.replace('-', "")) {
        return true;
    }
    w.contains('-') && w.split('-').all(|p| !p.is_empty() && platform_part(p))
}

/// The model codes of a line's head words that name a product ([`is_model_code`], not an `80+`
/// class, not a platform word): `X670E-CREATOR`, `RM1000x`, `4090`; not `AM5`, `DDR5`.
fn naming_codes(head: &[String]) -> Vec<&String> {
    head.iter().filter(|w| is_model_code(w) && !w.contains('+') && !is_platform_word(w)).collect()
}

/// The maker a line opens with, as (its words as written, compacted): the longest run of its
/// first one to three words that, compacted, is the vendor of some part of `kind` (`Asus`, `be
/// quiet!`, `Lian Li`, `G.Skill`). `None` when its first words name no maker the catalog has for
/// the kind (a name without a maker, `Ryzen Threadripper Pro 5965WX`, or a maker it lacks).
fn line_maker(catalog: &Catalog, kind: PartKind, words: &[String]) -> Option<(String, String)> {
    let mut vendors: Vec<String> = catalog.parts_of(kind).iter().map(|p| compact(p.vendor())).collect();
    vendors.sort_unstable();
    vendors.dedup();
    (1..=words.len().min(3)).rev().find_map(|n| {
        let said = compact(&words[..n].join(" "));
        (!said.is_empty() && vendors.binary_search(&said).is_ok()).then(|| (words[..n].join(" "), said))
    })
}

/// Why part `p` of `kind` (as found: a GPU card or a GPU chip) cannot be imported silently for a
/// line whose name words are `words` and whose head words (the name before its spec tail) are
/// `head`: the maker the line opens with is not the part's, none of the line's model codes is
/// in the part's vendor, name or id, or a board line's chipset is not the board's. `None` when
/// they agree. A line without a maker or model codes is judged by its confidence alone
/// (`matching::plausible`).
pub(super) fn disagreement(
    catalog: &Catalog,
    kind: PartKind,
    p: &dyn Part,
    words: &[String],
    head: &[String],
) -> Option<String> {
    let key = format!("{} {}", p.display_name(), p.id()).to_lowercase();
    let mut why = Vec::new();
    if let Some((said, maker)) = line_maker(catalog, kind, words) {
        let theirs = compact(p.vendor());
        if !(theirs.starts_with(&maker) || maker.starts_with(&theirs) || holds_from_a_word_start(&key, &maker)) {
            why.push(format!("the line's maker is {said}, the part's is {}", p.vendor()));
        }
    }
    let codes = naming_codes(head);
    let holds = |w: &str| {
        let w = w.to_lowercase();
        holds_from_a_word_start(&key, &compact(&w)) || holds_split_code(&key, &w)
    };
    if !codes.is_empty() && !codes.iter().any(|c| holds(c.as_str())) {
        let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
        why.push(format!("the part holds none of the line's model codes ({})", codes.join(", ")));
    }
    if kind == PartKind::Motherboard
        && let Some(board) = catalog.motherboards.iter().find(|b| b.id == p.id())
        && let Some(chipset) = line_chipset(catalog, head)
        && !board.chipset.eq_ignore_ascii_case(&chipset)
        && !key.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| t == chipset)
    {
        why.push(format!("the line's chipset is {}, the board's is {}", chipset.to_uppercase(), board.chipset));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Whether `code` (compacted, [`compact`]) is in `key` (lower case) with spaces and punctuation
/// dropped, starting at the start of one of its words: `rtx4090` in `geforce rtx 4090`,
/// `tx1600` in `prime tx-1600`; never `tx1800` inside `atx 1800w`, which a search over the
/// whole compacted key finds (a trial's SeaSonic PRIME TX-1800 line held "its" code in an
/// Enermax `ATX 1800W` unit).
fn holds_from_a_word_start(key: &str, code: &str) -> bool {
    !code.is_empty()
        && key.char_indices().any(|(i, c)| {
            let word_start = key[..i].chars().next_back().is_none_or(|p| !p.is_alphanumeric());
            word_start && c.is_alphanumeric() && {
                let mut rest = key[i..].chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase());
                code.chars().all(|c| rest.next() == Some(c))
            }
        })
}

/// The one chipset a board line names (lower case): a head word, or its part before a dash
/// (`X670E` of `X670E-CREATOR`, `Z790` of `Z790-P`), that is the chipset of some catalog board.
/// `None` when it names none, or several.
fn line_chipset(catalog: &Catalog, head: &[String]) -> Option<String> {
    let said: Vec<String> = head
        .iter()
        .map(|w| w.split('-').next().unwrap_or(w).to_ascii_lowercase())
        .filter(|w| w.len() >= 3 && w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| catalog.motherboards.iter().any(|b| b.chipset.eq_ignore_ascii_case(w)))
        .collect();
    match said.split_first() {
        Some((first, rest)) if rest.iter().all(|w| w == first) => Some(first.clone()),
        _ => None,
    }
}

/// The reason a line whose nearest part disagrees with it ([`disagreement`]) is not imported,
/// naming that part (`id`, its name and the match's confidence, %) as a suggestion.
pub(super) fn review_reason(id: &str, part_name: &str, confidence: u8, why: &str) -> String {
    format!(
        "needs review: the nearest catalog part is `{id}` ({part_name}; confidence {confidence} %), but {why}; \
         not imported. If it is your part, put `{id}` in the build; `kraftwerk catalog search` finds others"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_and_memory_are_platform_words_models_are_not() {
        for w in ["AM5", "AM3+", "LGA1700", "sTRX4", "TR4-SP3", "DDR5", "DDR4-3200", "GDDR6X", "PCIe4", "x16", "WiFi7"]
        {
            assert!(is_platform_word(w), "{w}");
        }
        for w in ["X670E-CREATOR", "B650", "RM1000x", "4090", "NH-D15", "TX-1600", "O11", "TRX50", "WRX80E"] {
            assert!(!is_platform_word(w), "{w}");
        }
        let head: Vec<String> = ["Asus", "ProArt", "X670E-CREATOR", "WIFI", "ATX", "AM5"].map(String::from).to_vec();
        assert_eq!(naming_codes(&head), [&"X670E-CREATOR".to_owned()]);
        // A code is held from a word start, not across words (`atx 1800w` holds no `tx1800`).
        assert!(holds_from_a_word_start("seasonic prime tx-1600", "tx1600"));
        assert!(holds_from_a_word_start("nvidia geforce rtx 4090", "rtx4090"));
        assert!(!holds_from_a_word_start("enermax maxrevo black atx 1800w enermax-maxrevo-black-atx-1800w", "tx1800"));
    }

    /// The trial's line: the MSI B650 board disagrees on maker, model code and chipset; the
    /// ProArt board agrees.
    #[test]
    fn another_makers_board_of_another_chipset_disagrees() {
        let c = kraftwerk_catalog::builtin().expect("catalog");
        let words: Vec<String> =
            "Asus ProArt X670E-CREATOR WIFI ATX AM5 Motherboard".split(' ').map(String::from).collect();
        let head = words[..6].to_vec();
        let part = |id: &str| {
            c.motherboards.iter().find(|b| b.id == id).map(|b| b as &dyn Part).expect("board in the catalog")
        };
        let why = disagreement(&c, PartKind::Motherboard, part("msi-b650-pro-a-wifi-am5-ddr5-atx"), &words, &head)
            .expect("disagrees");
        assert!(why.contains("maker is Asus, the part's is MSI"), "{why}");
        assert!(why.contains("X670E-CREATOR"), "{why}");
        assert!(why.contains("chipset is X670E, the board's is B650"), "{why}");
        let right = part("asus-x670e-proart-creator-wifi-ddr5-atx");
        assert_eq!(disagreement(&c, PartKind::Motherboard, right, &words, &head), None);
    }
}

//! Matching a line to a catalog part: the kind its type label (or its name) names, the
//! queries made from its name (whole, spec tail cut, words dropped while a model code stays),
//! the confidence of each candidate, the plausibility checks that refuse a wrong match, and the
//! review gate (`super::review`) that refuses a hit of another maker, model or chipset.

use super::review::{disagreement, review_reason};
use super::{ListLine, ListMatch, MAX_QUERIES, Unmatched};
use kraftwerk_catalog::picker::{holds_split_code, is_model_code};
use kraftwerk_catalog::{Catalog, CoolerType, MemoryType, PartKind};

/// A part found for a line: its kind as found (a GPU card or chip), id, display name, the query
/// that found it, and the confidence, percent.
pub(super) type Hit = (PartKind, String, String, String, u8);

/// A hit the review gate refused ([`disagreement`]), with the reason: the suggestion a line not
/// imported names.
type Refused = (Hit, String);

/// What a line's type label says about its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LabelKind {
    Part(PartKind),
    NotAPart,
    Unknown,
}

/// The kind a list's type label names (`Video Card`, `CPU Cooler`, `Power Supply 2`, `RAM`).
fn kind_of_label(label: &str) -> LabelKind {
    let l = label.to_ascii_lowercase();
    let word = |w: &str| l.split(|c: char| !c.is_ascii_alphanumeric()).any(|x| x == w);
    let not_parts = [
        "operating system",
        "monitor",
        "keyboard",
        "mouse",
        "headphone",
        "speaker",
        "ups",
        "thermal",
        "sound card",
        "network",
        "wireless",
        "wired",
        "optical",
        "external",
        "fan",
        "riser",
        "rack",
        "cable",
        "webcam",
        "accessor",
        "tool",
        "paste",
        "software",
        "os",
    ];
    if l.contains("cooler") || l.contains("heatsink") || l.contains("cooling") && l.contains("cpu") {
        LabelKind::Part(PartKind::Cooler)
    } else if not_parts.iter().any(|n| if matches!(*n, "ups" | "os") { word(n) } else { l.contains(n) }) {
        LabelKind::NotAPart
    } else if word("cpu") || word("processor") || l == "cpus" {
        LabelKind::Part(PartKind::Cpu)
    } else if l.contains("motherboard") || word("mobo") || word("mainboard") || word("board") {
        LabelKind::Part(PartKind::Motherboard)
    } else if l.contains("memory") || word("ram") || word("dimm") {
        LabelKind::Part(PartKind::Memory)
    } else if l.contains("storage") || word("ssd") || word("nvme") || l.contains("drive") {
        LabelKind::Part(PartKind::Storage)
    } else if l.contains("video") || word("gpu") || word("gpus") || l.contains("graphics") {
        LabelKind::Part(PartKind::Gpu)
    } else if l.contains("power supply") || word("psu") || word("psus") {
        LabelKind::Part(PartKind::Psu)
    } else if word("case") || l.contains("chassis") || word("frame") {
        LabelKind::Part(PartKind::Case)
    } else {
        LabelKind::Unknown
    }
}

/// The kind a part's name suggests (PCPartPicker names end in their type: `… Video Card`,
/// `… Processor`, `… CPU Cooler`), `None` when it says nothing.
fn kind_of_name(name: &str) -> Option<PartKind> {
    let l = format!(" {} ", name.to_ascii_lowercase());
    let any = |ws: &[&str]| ws.iter().any(|w| l.contains(w));
    if any(&["video card", " geforce ", " rtx ", " gtx ", " radeon ", " tesla ", " quadro ", " instinct "]) {
        Some(PartKind::Gpu)
    } else if any(&["cpu cooler", " cooler ", " heatsink "]) {
        Some(PartKind::Cooler)
    } else if any(&["power supply", " psu "]) {
        Some(PartKind::Psu)
    } else if any(&["motherboard"]) {
        Some(PartKind::Motherboard)
    } else if any(&[" memory ", " ddr4", " ddr5", " rdimm", " udimm"]) {
        Some(PartKind::Memory)
    } else if any(&["solid state drive", " ssd ", " nvme "]) {
        Some(PartKind::Storage)
    } else if any(&[" case ", " tower ", " chassis "]) {
        Some(PartKind::Case)
    } else if any(&[" processor ", " ryzen ", " threadripper ", " epyc ", " xeon ", " core i"]) {
        Some(PartKind::Cpu)
    } else {
        None
    }
}

/// Kinds tried, in order, for a line whose label and name say nothing about its kind.
const GUESS_ORDER: [PartKind; 8] = [
    PartKind::Gpu,
    PartKind::Cpu,
    PartKind::Motherboard,
    PartKind::Psu,
    PartKind::Case,
    PartKind::Cooler,
    PartKind::Memory,
    PartKind::Storage,
];

/// Units whose number starts PCPartPicker's spec tail (`4.5 GHz`, `24 GB`, `1600 W`).
const UNITS: &[&str] = &["ghz", "mhz", "gb", "tb", "w", "cfm", "mm", "hz", "gb/s", "rpm", "db"];
/// Words that start PCPartPicker's type tail.
const TYPE_WORDS: &[&str] = &["processor", "motherboard", "memory", "fully"];
/// Words that start PCPartPicker's type tail only before the word that follows them here
/// (`Liquid CPU Cooler`, `Power Supply`, `Video Card`, `Solid State Drive`): alone they are
/// model words (`Liquid Freezer III`, `Dark Power Pro 13`), and cutting there left `ARCTIC` or
/// `be quiet! Dark` as the whole model (a trial's Liquid Freezer became the Freezer 4U-M air
/// cooler, the Dark Power Pro 13 a Dark Base case, at 100 %).
const TYPE_PAIRS: &[(&str, &[&str])] =
    &[("liquid", &["cpu", "cooler"]), ("power", &["supply"]), ("video", &["card"]), ("solid", &["state"])];

/// Whether `w` (with its successor `next`) starts a spec tail.
fn is_spec_word(w: &str, next: Option<&str>) -> bool {
    let l = w.to_ascii_lowercase();
    if TYPE_WORDS.contains(&l.as_str()) {
        return true;
    }
    if let Some((_, nexts)) = TYPE_PAIRS.iter().find(|(t, _)| *t == l) {
        return next.is_some_and(|n| nexts.contains(&n.to_ascii_lowercase().as_str()));
    }
    if l == "cpu" && next.is_some_and(|n| n.eq_ignore_ascii_case("cooler")) {
        return true;
    }
    let number = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '.');
    if number(&l) && next.is_some_and(|n| UNITS.contains(&n.to_ascii_lowercase().as_str())) {
        return true;
    }
    // 24GB, 1600W, 4.5GHz, 16-Core, 82.52CFM
    let digits = l.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if digits.len() < l.len() {
        let unit = digits.trim_start_matches('-');
        if UNITS.contains(&unit) || unit == "core" || unit == "cores" {
            return true;
        }
    }
    false
}

/// The words of a name as matched: parenthesised notes without digits (`(Used)`) and
/// punctuation-only words dropped.
fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth_note = false;
    for w in name.split_whitespace() {
        if w.starts_with('(') && !w.chars().any(|c| c.is_ascii_digit()) {
            depth_note = !w.ends_with(')');
            continue;
        }
        if depth_note {
            depth_note = !w.ends_with(')');
            continue;
        }
        let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | '"' | '\'' | '(' | ')'));
        if w.chars().any(char::is_alphanumeric) {
            out.push(w.to_owned());
        }
    }
    out
}

/// The queries tried for a name, best first: the whole name, the name before its spec tail,
/// then that with words dropped from the end, then from the start, while it keeps a model code.
fn queries(name: &str) -> (Vec<String>, Vec<String>) {
    let words = name_words(name);
    let cut = (0..words.len())
        .find(|&i| i > 0 && is_spec_word(&words[i], words.get(i + 1).map(String::as_str)))
        .unwrap_or(words.len());
    let head: Vec<String> = words[..cut].to_vec();
    let mut out: Vec<String> = Vec::new();
    let mut push = |q: String| {
        if !q.is_empty() && !out.contains(&q) {
            out.push(q);
        }
    };
    push(words.join(" "));
    push(head.join(" "));
    let has_code = |ws: &[String]| ws.iter().any(|w| is_model_code(w));
    for n in (1..head.len()).rev() {
        if has_code(&head[..n]) {
            push(head[..n].join(" "));
        }
    }
    for s in 1..head.len() {
        if has_code(&head[s..]) {
            push(head[s..].join(" "));
        }
    }
    out.truncate(MAX_QUERIES);
    (out, head)
}

/// Share of `words` (lower-cased) found in `key`, percent.
fn coverage_pct(words: &[String], key: &str) -> u8 {
    if words.is_empty() {
        return 0;
    }
    let key = key.to_lowercase();
    let compact: String = key.chars().filter(|c| *c != ' ' && *c != '-').collect();
    let found = words
        .iter()
        .filter(|w| {
            let w = w.to_lowercase();
            key.contains(&w)
                || compact.contains(w.trim_matches('-').replace('-', "").as_str())
                || holds_split_code(&key, &w)
        })
        .count();
    // found <= words.len(), so the percentage is 0..=100.
    u8::try_from(found * 100 / words.len()).unwrap_or(100)
}

/// Colour words a catalog name may carry that make another listing of the same model.
/// (Not "gold" or "silver", which are 80 PLUS tiers in PSU names.)
const COLOUR_WORDS: &[&str] = &["white", "black", "pink", "red", "blue", "grey", "gray", "snow"];

/// `name` without its colour words, lower case: the model a listing is of, whatever its colour.
fn without_colours(name: &str) -> String {
    name.to_ascii_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !COLOUR_WORDS.contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Colour words of `key` that `name` does not say.
fn unsaid_colours(key: &str, name: &str) -> usize {
    let name = name.to_ascii_lowercase();
    let said: Vec<&str> = name.split(|c: char| !c.is_alphanumeric()).collect();
    key.to_ascii_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| COLOUR_WORDS.contains(w) && !said.contains(w))
        .count()
}

/// Where the hit `p` (a PSU, case or cooler) carries a colour the line does not say (`SE White
/// 1000W` for a line of `SE 1000 W`), the part of `kind` whose name holds every word of the
/// hit's but its colour words (the same model, not another tier: "Gold" stays), every term of
/// query `q`, agreeing with the line's wattage and carrying
/// fewer unsaid colours, if one does: the same model in the colour the line names (or none).
fn said_colour<'a>(
    catalog: &'a Catalog,
    kind: PartKind,
    q: &str,
    name: &str,
    p: &'a dyn kraftwerk_catalog::Part,
) -> &'a dyn kraftwerk_catalog::Part {
    let hit = unsaid_colours(&format!("{} {}", p.display_name(), p.id()), name);
    if hit == 0 || !matches!(kind, PartKind::Psu | PartKind::Case | PartKind::Cooler) {
        return p;
    }
    let model = without_colours(&p.display_name());
    let terms: Vec<String> = q.split_whitespace().map(str::to_ascii_lowercase).collect();
    let parts = catalog.parts_of(kind);
    parts
        .into_iter()
        .filter(|o| {
            let key = format!("{} {} {}", o.vendor(), o.display_name(), o.id()).to_ascii_lowercase();
            terms.iter().all(|t| key.contains(t.as_str())) && watts_agree(catalog, kind, o.id(), name) && {
                let theirs = without_colours(&o.display_name());
                let theirs: Vec<&str> = theirs.split(' ').collect();
                model.split(' ').all(|w| theirs.contains(&w))
            }
        })
        .map(|o| (unsaid_colours(&format!("{} {}", o.display_name(), o.id()), name), o))
        .filter(|(n, _)| *n < hit)
        .min_by_key(|(n, o)| (*n, o.display_name().split_whitespace().count()))
        .map_or(p, |(_, o)| o)
}

/// Finds the part of `kind` a name points to with [`Catalog::find_by_name`]: the first plausible
/// hit of the queries that the review gate passes, and else the first plausible hit it refused.
fn find(catalog: &Catalog, kind: PartKind, name: &str) -> (Option<Hit>, Option<Refused>) {
    let (mut qs, head) = queries(name);
    let words = name_words(name);
    let mut refused: Option<Refused> = None;
    // A PSU title's wattage is its model (`Leadex Platinum SE 1000 W`): the head with it joined
    // as catalogs write it (`1000w`) before the head alone.
    if kind == PartKind::Psu
        && let Some(w) = stated_watts(name)
    {
        let q = format!("{} {w}w", head.join(" "));
        if !qs.contains(&q) {
            qs.insert(1.min(qs.len()), q);
        }
    }
    for q in qs {
        if let Some(p) = catalog.find_by_name(kind, &q) {
            let p = said_colour(catalog, kind, &q, name, p);
            let key = format!("{} {}", p.display_name(), p.id());
            let conf = coverage_pct(&head, &key);
            if !plausible(catalog, kind, p.id(), name, &head, &key, conf) {
                continue;
            }
            let found_kind = if kind == PartKind::Gpu && catalog.gpu_cards.iter().any(|c| c.id == p.id()) {
                PartKind::GpuCard
            } else {
                kind
            };
            let hit = (found_kind, p.id().to_owned(), p.display_name(), q, conf);
            if let Some(why) = disagreement(catalog, found_kind, p, &words, &head) {
                if refused.is_none() {
                    refused = Some((hit, why));
                }
                continue;
            }
            return (Some(hit), None);
        }
    }
    (None, refused)
}

/// Whether a hit can be the part the line names: one of the name's model codes (`7443P`,
/// `RM1000x`; not `80+`) is in the part's vendor, name or id, or, where that fails, at least
/// 80 % of the name's words are (a name with no model code, `FSP Cannon`, needs all of them);
/// and a memory kit's DDR generation and total size (`256 GB (8 x 32 GB) DDR4-3200`) are the
/// kit's. "1600W 80+ Platinum/Titanium" is a PSU class, not a part: it names no model.
fn plausible(catalog: &Catalog, kind: PartKind, id: &str, name: &str, head: &[String], key: &str, conf: u8) -> bool {
    let codes: Vec<&String> = head.iter().filter(|w| is_model_code(w) && !w.contains('+')).collect();
    let key_compact: String = key.to_lowercase().chars().filter(|c| *c != ' ' && *c != '-').collect();
    let key_lower = key.to_lowercase();
    let has_code = codes.iter().any(|w| {
        let w = w.to_lowercase();
        key_compact.contains(&w.replace('-', "")) || holds_split_code(&key_lower, &w)
    });
    let enough = if codes.is_empty() { conf >= 100 } else { has_code || conf >= 80 };
    if !enough {
        return false;
    }
    if !watts_agree(catalog, kind, id, name) || !cooling_agrees(catalog, kind, id, name) {
        return false;
    }
    // A drive title's capacity (`4 TB`) is the drive's: the 2 TB model is another product.
    if kind == PartKind::Storage
        && let (Some(c), Some(d)) = (stated_capacity_gb(name), catalog.storage.iter().find(|d| d.id == id))
        && d.capacity_gb.abs_diff(c) * 10 > c
    {
        return false;
    }
    if kind == PartKind::Memory
        && let Some(kit) = catalog.memory.iter().find(|k| k.id == id)
    {
        let lower = name.to_ascii_lowercase();
        let ddr5 = matches!(kit.memory_type, MemoryType::Ddr5Udimm | MemoryType::Ddr5Rdimm);
        if (lower.contains("ddr4") && ddr5) || (lower.contains("ddr5") && !ddr5) {
            return false;
        }
        // "ECC Registered" / "RDIMM" and "Unbuffered" / "UDIMM" / "Non-ECC" name the module
        // type: a registered line never becomes an unbuffered kit, nor the other way round
        // (the two do not work in each other's boards).
        let registered = kit_is_registered(kit.memory_type);
        let says_registered = ["registered", "rdimm", "lrdimm", "ecc reg"].iter().any(|w| lower.contains(w));
        let says_unbuffered = ["unbuffered", "udimm", "non-ecc"].iter().any(|w| lower.contains(w));
        if (says_registered && !registered) || (says_unbuffered && !says_registered && registered) {
            return false;
        }
        // "256 GB (8 x 32 GB)": the kit's total.
        let words: Vec<&str> = lower.split_whitespace().collect();
        if let Some(i) =
            words.iter().position(|w| w.len() > 1 && w.starts_with('(') && w[1..].chars().all(|c| c.is_ascii_digit()))
            && i >= 2
            && words[i - 1] == "gb"
            && let Ok(total) = words[i - 2].parse::<u32>()
            && total != kit.total_gb()
        {
            return false;
        }
    }
    true
}

/// Whether a memory type is a registered (buffered) module.
fn kit_is_registered(t: MemoryType) -> bool {
    matches!(t, MemoryType::Ddr4Rdimm | MemoryType::Ddr5Rdimm)
}

/// A memory kit as PCPartPicker titles it: `Corsair Vengeance 64 GB (2 x 32 GB) DDR5-5600
/// CL40 Memory` is vendor and series words, the total, modules x size, generation and data rate,
/// CAS latency. `None` when the name is not in that shape.
struct PcppKit {
    /// The words before the total (`Corsair Vengeance`), lower-cased.
    series: Vec<String>,
    modules: u8,
    module_gb: u32,
    ddr5: bool,
    speed_mt_s: u32,
    cas: Option<u32>,
}

fn pcpp_kit(name: &str) -> Option<PcppKit> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    // "(2" "x" "32" "gb)"
    let open =
        words.iter().position(|w| w.len() > 1 && w.starts_with('(') && w[1..].chars().all(|c| c.is_ascii_digit()))?;
    if open < 2 || words[open - 1] != "gb" || words.get(open + 1) != Some(&"x") {
        return None;
    }
    let modules: u8 = words[open][1..].parse().ok()?;
    let module_gb: u32 = words.get(open + 2)?.parse().ok()?;
    let ddr = words.iter().find_map(|w| {
        w.strip_prefix("ddr4-").map(|r| (false, r)).or_else(|| w.strip_prefix("ddr5-").map(|r| (true, r)))
    })?;
    let speed_mt_s: u32 = ddr.1.parse().ok()?;
    let cas = words.iter().find_map(|w| w.strip_prefix("cl").and_then(|r| r.parse::<u32>().ok()));
    let series = words[..open - 2].iter().map(|w| (*w).to_owned()).collect();
    Some(PcppKit { series, modules, module_gb, ddr5: ddr.0, speed_mt_s, cas })
}

/// The kit a PCPartPicker memory title names ([`pcpp_kit`]): the catalog kits of its maker
/// with the same generation, modules, module size, data rate and CAS latency whose name holds
/// every series word; of several (colours, RGB), the one with the fewest other words.
/// Registered kits are matched only from a title that says registered, and only they.
fn find_pcpp_kit(catalog: &Catalog, name: &str) -> Option<(PartKind, String, String, String, u8)> {
    let t = pcpp_kit(name)?;
    let vendor = t.series.first()?;
    // A title that says registered names a registered kit, and no other title does.
    let lower = name.to_ascii_lowercase();
    let registered = ["registered", "rdimm", "lrdimm", "ecc reg"].iter().any(|w| lower.contains(w));
    let squash = |s: &str| s.to_ascii_lowercase().replace(['.', '-', ' '], "");
    let best = catalog
        .memory
        .iter()
        .filter(|k| {
            let ddr5 = matches!(k.memory_type, MemoryType::Ddr5Udimm | MemoryType::Ddr5Rdimm);
            ddr5 == t.ddr5
                && kit_is_registered(k.memory_type) == registered
                && k.modules == t.modules
                && k.module_gb == t.module_gb
                && k.speed_mt_s == t.speed_mt_s
                && (t.cas.is_none() || k.cas_latency_cycles == t.cas)
                && squash(&k.vendor).starts_with(&squash(vendor))
        })
        .filter(|k| {
            let key = format!("{} {}", k.name, k.id).to_ascii_lowercase();
            t.series[1..].iter().all(|w| key.contains(w.as_str()) || squash(&key).contains(&squash(w)))
        })
        .min_by_key(|k| k.name.split_whitespace().count())?;
    Some((PartKind::Memory, best.id.clone(), best.name.clone(), t.series.join(" "), 100))
}

/// A drive's capacity as a title states it (`4 TB`, `2TB`, `500 GB`), GB; `None` when none.
fn stated_capacity_gb(name: &str) -> Option<u32> {
    let words: Vec<String> = name.split_whitespace().map(str::to_ascii_lowercase).collect();
    for (i, w) in words.iter().enumerate() {
        let (num, unit) = match w.find(|c: char| !c.is_ascii_digit() && c != '.') {
            Some(at) if at > 0 => (&w[..at], w[at..].to_owned()),
            None => (w.as_str(), words.get(i + 1).cloned().unwrap_or_default()),
            _ => continue,
        };
        let Ok(n) = num.parse::<f64>() else { continue };
        match unit.as_str() {
            "tb" => return Some((n * 1000.0).round() as u32),
            "gb" if n >= 100.0 => return Some(n.round() as u32),
            _ => {}
        }
    }
    None
}

/// The continuous wattage a PSU title states (`1000 W`, `1000W`, `850w`), W: the first number
/// from 200 to 3,000 followed by a `W` unit. `None` when the title states none.
fn stated_watts(name: &str) -> Option<u32> {
    let words: Vec<String> = name.split_whitespace().map(str::to_ascii_lowercase).collect();
    words.iter().enumerate().find_map(|(i, w)| {
        let (num, unit) = match w.find(|c: char| !c.is_ascii_digit()) {
            Some(at) if at > 0 => (&w[..at], w[at..].to_owned()),
            None => (w.as_str(), words.get(i + 1).cloned().unwrap_or_default()),
            _ => return None,
        };
        let n: u32 = num.parse().ok()?;
        (unit == "w" && (200..=3000).contains(&n)).then_some(n)
    })
}

/// Whether part `id` of `kind` agrees with the wattage the line states: a PSU title's `1000 W`
/// is that unit, never the 1200 W model of the same series (a trial's "Leadex Platinum SE 1000
/// W" became the 1200 W unit at 100 % confidence, every power check then on 200 W the user did
/// not have). True for other kinds and titles that state none.
fn watts_agree(catalog: &Catalog, kind: PartKind, id: &str, name: &str) -> bool {
    kind != PartKind::Psu
        || stated_watts(name).is_none_or(|w| {
            catalog.psus.iter().find(|p| p.id == id).is_none_or(|p| (p.rated_w - f64::from(w)).abs() < 0.5)
        })
}

/// Whether part `id` of `kind` agrees with the cooling a line says: a line that says `Liquid`,
/// `AIO` or `Water` names an all-in-one liquid cooler, never an air cooler (a trial's "ARCTIC
/// Liquid Freezer III Pro 360 … Liquid CPU Cooler" became the Freezer 4U-M air cooler, and
/// `check` then reported a cooler-socket error the build did not have). True for other kinds and
/// lines that say none of them.
fn cooling_agrees(catalog: &Catalog, kind: PartKind, id: &str, name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let says_liquid =
        lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| matches!(w, "liquid" | "aio" | "water"));
    kind != PartKind::Cooler
        || !says_liquid
        || catalog.coolers.iter().find(|c| c.id == id).is_none_or(|c| c.cooler_type != CoolerType::Air)
}

/// Words of a PCPartPicker case title's tail (form factor and `Mid Tower Case`).
const CASE_TAIL: &[&str] = &[
    "atx", "eatx", "e-atx", "microatx", "micro", "mini", "itx", "mini-itx", "ssi-eeb", "mid", "full", "tower", "case",
    "desktop", "htpc", "test", "bench",
];

/// The tightest part of `kind` for a name: every word of the name before its spec tail (the
/// form factor and `Mid Tower Case` of a case title are tail too) is in the part's name or id,
/// and of several such parts the one with the fewest other words (`Corsair 4000D Airflow` is
/// the 4000D AIRFLOW, not the iCUE 4000D RGB AIRFLOW). `None` when no part holds every word.
fn find_tightest(catalog: &Catalog, kind: PartKind, name: &str) -> Option<Hit> {
    if !matches!(kind, PartKind::Case | PartKind::Motherboard | PartKind::Storage | PartKind::Cooler | PartKind::Psu) {
        return None;
    }
    let (_, mut head) = queries(name);
    // A case title's tail: `ATX Mid Tower Case`, `EATX Full Tower Case`, `MicroATX Mini Tower Case`.
    if kind == PartKind::Case {
        while head.len() > 1 && head.last().is_some_and(|w| CASE_TAIL.contains(&w.to_ascii_lowercase().as_str())) {
            head.pop();
        }
    }
    // A board title's tail: form factor and socket (`ATX LGA1700 Motherboard`).
    if kind == PartKind::Motherboard {
        let cut = head.iter().position(|w| {
            let l = w.to_ascii_lowercase();
            ["atx", "eatx", "e-atx", "micro", "microatx", "mini", "ssi"].contains(&l.as_str())
        });
        if let Some(c) = cut.filter(|&c| c >= 2) {
            head.truncate(c);
        }
    }
    // A model code, or for a case three words of maker and model (`Fractal Design Define 7
    // XL`, `Silverstone ALTA F2`: case models are often words).
    if head.len() < 2 || !(head.iter().any(|w| is_model_code(w)) || kind == PartKind::Case && head.len() >= 3) {
        return None;
    }
    let words: Vec<String> = head.iter().map(|w| w.to_ascii_lowercase()).collect();
    let compact = |s: &str| s.to_ascii_lowercase().chars().filter(|c| c.is_alphanumeric()).collect::<String>();
    let capacity = if kind == PartKind::Storage { stated_capacity_gb(name) } else { None };
    let parts = catalog.parts_of(kind);
    let best = parts
        .iter()
        .filter(|p| {
            let key = format!("{} {} {}", p.vendor(), p.display_name(), p.id()).to_ascii_lowercase();
            let key_compact = compact(&key);
            words.iter().all(|w| {
                // `360` of a line is the `360mm` of a radiator's listing
                key.split(|c: char| !c.is_alphanumeric() && c != '.')
                    .any(|k| k == w || k.strip_suffix("mm") == Some(w.as_str()))
                    || key_compact.contains(&compact(w)) && compact(w).len() >= 4
                    || holds_split_code(&key, w)
            })
        })
        .filter(|p| watts_agree(catalog, kind, p.id(), name) && cooling_agrees(catalog, kind, p.id(), name))
        .filter(|p| {
            capacity.is_none_or(|c| {
                catalog.storage.iter().find(|d| d.id == p.id()).is_none_or(|d| d.capacity_gb.abs_diff(c) * 10 <= c)
            })
        })
        .min_by_key(|p| {
            let (model, all) = unsaid_words(kind, &p.display_name(), name);
            (model, all, p.display_name().split_whitespace().count())
        })?;
    let conf = coverage_pct(&head, &format!("{} {}", best.display_name(), best.id()));
    Some((kind, best.id().to_owned(), best.display_name(), head.join(" "), conf))
}

/// The words of part name `part` that the line's `name` does not say, as (model words, all
/// words): of several parts holding every word of a line, the one with the fewest is the part
/// it names. For a board, [`unsaid_board_words`] and 0. For other kinds a model word is a
/// size word ([`SIZE_WORDS`]: `Nano`, `Compact`, `Mini`, `ITX`) or a word of letters and digits
/// that is no measure (`G2`, `D15S`, `AM4`; not `165mm`, `1600W`, `82.5`); a note in brackets
/// (a maker's part number, `(MZ-V9P4T0BW)`) is not counted. `Fractal Design Torrent ATX Mid
/// Tower Case` is not the Torrent Nano Mini-ITX, `Noctua NH-D15` not the NH-D15 G2, which had
/// the fewest words.
fn unsaid_words(kind: PartKind, part: &str, name: &str) -> (usize, usize) {
    if kind == PartKind::Motherboard {
        return (unsaid_board_words(kind, part, name), 0);
    }
    let name = name.to_ascii_lowercase();
    let said: Vec<&str> = name.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let mut depth = 0_usize;
    let mut bare = String::new();
    for c in part.to_ascii_lowercase().chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    let unsaid: Vec<&str> = bare
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !said.contains(w))
        // `360mm` for a line's `360`
        .filter(|w| w.strip_suffix("mm").is_none_or(|n| !said.contains(&n)))
        .collect();
    let model = unsaid
        .iter()
        .filter(|w| {
            let w: &str = w;
            let measure = w.trim_start_matches(|c: char| c.is_ascii_digit());
            SIZE_WORDS.contains(&w)
                || w.chars().any(|c| c.is_ascii_digit())
                    && w.chars().any(|c| c.is_ascii_alphabetic())
                    && !(measure.len() < w.len() && MEASURES.contains(&measure))
        })
        .count();
    (model, unsaid.len())
}

/// Words naming a smaller (or larger) model of a series (`Torrent Nano`, `Torrent Compact`).
const SIZE_WORDS: &[&str] = &["nano", "compact", "mini", "micro", "itx", "microatx", "matx", "xl"];
/// Units a number in a part's name is a measure in (`165mm`, `1600w`, `4tb`), not a model.
const MEASURES: &[&str] = &["mm", "w", "cfm", "gb", "tb", "mhz", "ghz", "rpm", "db", "v", "a"];

/// For a board, the words of part name `part` that the line's `name` does not say: `MAX` of
/// `MAG X870E TOMAHAWK MAX WiFi`, `X3D` of `X870E AORUS MASTER X3D`, `DDR4` of `PRO Z790-P WIFI
/// DDR4 ATX` for a line of `MSI PRO Z790-P WIFI ATX LGA1700` (PCPartPicker names a board's DDR4
/// variant with `DDR4`, so a title without it is the DDR5 board; an unsaid `DDR5` costs
/// nothing). Those are other boards, which the fewest words alone preferred. 0 for other kinds.
fn unsaid_board_words(kind: PartKind, part: &str, name: &str) -> usize {
    if kind != PartKind::Motherboard {
        return 0;
    }
    let name = name.to_ascii_lowercase();
    let said: Vec<&str> = name.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    part.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && *w != "ddr5" && !said.contains(w))
        .count()
}

/// Matches one line: the part it names, or the line as not imported with the reason (and, where
/// the nearest part was refused by the review gate, that part as the suggestion).
#[allow(
    clippy::result_large_err,
    reason = "called once per list line; the unmatched line is the caller's record, moved, not copied"
)]
pub(super) fn match_line(catalog: &Catalog, l: &ListLine) -> Result<ListMatch, Unmatched> {
    let miss = |reason: String, suggestion: Option<String>| Unmatched { line: l.clone(), reason, suggestion };
    if l.name.trim().is_empty() {
        return Err(miss("no part name on the line".to_owned(), None));
    }
    let label_kind = l.label.as_deref().map_or(LabelKind::Unknown, kind_of_label);
    let kinds: Vec<PartKind> = match label_kind {
        LabelKind::NotAPart => {
            return Err(miss(
                format!(
                    "{}: not a part a build holds (builds hold GPUs, CPU, board, cooler, case, memory, drives, PSUs)",
                    l.label.as_deref().unwrap_or("this type")
                ),
                None,
            ));
        }
        LabelKind::Part(k) => vec![k],
        LabelKind::Unknown => match kind_of_name(&l.name) {
            Some(k) => vec![k],
            None => GUESS_ORDER.to_vec(),
        },
    };
    let words = name_words(&l.name);
    let (_, head) = queries(&l.name);
    let mut best: Option<Hit> = None;
    let mut refused: Option<Refused> = None;
    for k in kinds {
        // PCPartPicker's own titles first: a memory title by its figures, a case, board, drive,
        // cooler or PSU title by every word of its model; each through the review gate too.
        let pcpp = match k {
            PartKind::Memory => find_pcpp_kit(catalog, &l.name),
            _ => find_tightest(catalog, k, &l.name),
        };
        if let Some(hit) = pcpp {
            let why = catalog
                .parts_of(hit.0)
                .into_iter()
                .find(|p| p.id() == hit.1)
                .and_then(|p| disagreement(catalog, hit.0, p, &words, &head));
            match why {
                // A later kind's hit never replaces an earlier kind's at least as sure (an
                // unlabelled `be quiet! Dark Power Pro 13 1600 W` is the PSU, not a Dark Base
                // case found after it).
                None => {
                    if best.as_ref().is_none_or(|b| hit.4 > b.4) {
                        best = Some(hit);
                    }
                    break;
                }
                Some(why) if refused.is_none() => refused = Some((hit, why)),
                Some(_) => {}
            }
        }
        let (hit, refused_here) = find(catalog, k, &l.name);
        if let Some(hit) = hit
            && best.as_ref().is_none_or(|b| hit.4 > b.4)
        {
            best = Some(hit);
        }
        if refused.is_none() {
            refused = refused_here;
        }
    }
    match (best, refused) {
        (Some((kind, id, part_name, query, confidence_pct)), _) => {
            Ok(ListMatch { line: l.clone(), kind, id, part_name, query, confidence_pct })
        }
        (None, Some((hit, why))) => Err(miss(review_reason(&hit.1, &hit.2, hit.4, &why), Some(hit.1))),
        (None, None) => Err(miss("no catalog part matches this name".to_owned(), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_their_kinds() {
        assert_eq!(kind_of_label("Video Card"), LabelKind::Part(PartKind::Gpu));
        assert_eq!(kind_of_label("GPU Primary"), LabelKind::Part(PartKind::Gpu));
        assert_eq!(kind_of_label("CPU Cooler"), LabelKind::Part(PartKind::Cooler));
        assert_eq!(kind_of_label("Heatsink"), LabelKind::Part(PartKind::Cooler));
        assert_eq!(kind_of_label("Power Supply 2"), LabelKind::Part(PartKind::Psu));
        assert_eq!(kind_of_label("Storage PCIe-SSD"), LabelKind::Part(PartKind::Storage));
        assert_eq!(kind_of_label("RAM"), LabelKind::Part(PartKind::Memory));
        assert_eq!(kind_of_label("Case Fan"), LabelKind::NotAPart);
        assert_eq!(kind_of_label("Monitor"), LabelKind::NotAPart);
        assert_eq!(kind_of_label("PCIe Riser cables"), LabelKind::NotAPart);
        assert_eq!(kind_of_label("Operating System"), LabelKind::NotAPart);
        assert_eq!(kind_of_label("Custom"), LabelKind::Unknown);
    }

    #[test]
    fn spec_tail_is_cut_before_matching() {
        let (qs, head) = queries("AMD Ryzen 9 7950X 4.5 GHz 16-Core Processor");
        assert_eq!(head, ["AMD", "Ryzen", "9", "7950X"]);
        assert_eq!(qs[1], "AMD Ryzen 9 7950X");
        let (_, head) = queries("Corsair RM1000x 1000 W 80+ Gold Certified Fully Modular ATX Power Supply");
        assert_eq!(head, ["Corsair", "RM1000x"]);
        let (_, head) = queries("PNY XLR8 RGB GeForce RTX 3090 24 GB Video Card (Used)");
        assert_eq!(head, ["PNY", "XLR8", "RGB", "GeForce", "RTX", "3090"]);
    }

    /// A PSU title's wattage names the unit: "Leadex Platinum SE 1000 W" is the 1000 W unit in
    /// the colour the line names (none: not the White one), never the 1200 W model a trial
    /// imported at 100 % confidence; a title of 1200 W is the 1200 W unit.
    #[test]
    fn a_psu_titles_wattage_picks_the_unit() {
        let c = kraftwerk_catalog::builtin().expect("catalog");
        let line = |name: &str| ListLine {
            line: 1,
            text: name.into(),
            label: Some("Power Supply".into()),
            name: name.into(),
            quantity: 1,
            price: None,
        };
        let m = match_line(
            &c,
            &line("Super Flower Leadex Platinum SE 1000 W 80+ Platinum Certified Fully Modular ATX Power Supply"),
        )
        .expect("a match");
        assert_eq!(m.id, "super-flower-leadex-platinum-se-1000w-fully-modular-80-platinum-certified-atx");
        let m = match_line(
            &c,
            &line("Super Flower Leadex Platinum SE 1200 W 80+ Platinum Certified Fully Modular ATX Power Supply"),
        )
        .expect("a match");
        assert_eq!(m.id, "super-flower-leadex-platinum-se-1200w-fully-modular-80-platinum");
        assert_eq!(stated_watts("Corsair RM1000x 1000 W 80+ Gold"), Some(1000));
        assert_eq!(stated_watts("EVGA 650BP 650W"), Some(650));
        assert_eq!(stated_watts("Noctua NH-D15 82.52 CFM"), None);
    }
}

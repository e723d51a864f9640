//! The price method: one rule per source kind for which figure is taken, which listing is not a
//! price (outliers, leftover stock) and when a price is too old to be offered as today's new
//! price; and the plausibility checks the whole catalog is held to (`tests/all/price_plausibility.rs`,
//! `catalog audit`).
//!
//! [`METHOD`] states the method (README "Price method" and `catalog audit` print it); the code
//! below does what it says. At load ([`crate::load::builtin_with_report`]), after the street
//! prices and launch MSRPs are laid on, [`Catalog::apply_price_method`] withholds every new price
//! the rules refuse: the part then has no new price (unknown), the withheld figure is kept in
//! [`Catalog::withheld_prices`] with its reason (`prices` and `catalog audit` show it), and the
//! planner treats the part as new-unpriced, or, with `plan --used`, prices it at its cited used
//! price ([`crate::cited`]). A user's own price (price file) is never withheld.
//!
//! The thresholds are this project's choices, stated here and in the README, not published
//! figures: each is set so that the cases of issue #38 (a used RTX 3090 dearer than a used 3090
//! Ti, RX 6800-6950 XT at leftover prices, a Z170 board at $339, a 530 W PSU at $145, a ProArt RTX
//! 4080 at $1,958, the RTX 4090 offered new at its 2022 launch price) are caught.

use crate::cited::{self, CitedFile, CitedPrice};
use crate::kinds::Catalog;
use crate::price_labels::{USED_PREFIX, USER_PRICE_SOURCE, WithheldPrice, age_months, is_cited_new_price};
use crate::street::StreetFile;
use std::collections::BTreeMap;

/// A new price older than this many months is not offered as today's new price: it is shown as a
/// launch (or last seen) price with its date, and the part is new-unpriced. Three years: past a
/// GPU generation and a half (NVIDIA's 2020-09, 2022-10, 2025-01 launches) and the oldest street
/// data commits (2023-07..2023-11) of the pinned dataset.
pub const STALE_NEW_AFTER_MONTHS: u32 = 36;

/// A GPU chip (or its card) launched more than this many months ago is end-of-life: a new listing
/// above its launch price is leftover stock, not a price.
pub(crate) const END_OF_LIFE_AFTER_MONTHS: u32 = 36;

/// A new listing of a current GPU chip (launched within [`END_OF_LIFE_AFTER_MONTHS`]) above this
/// multiple of its launch price is not a price (2025's RTX 5090 cards sold at up to 1.9x).
pub(crate) const LAUNCH_FACTOR: f64 = 2.0;

/// A new price above this multiple of the same chip's cited used price is leftover stock, not a
/// price.
pub(crate) const USED_FACTOR: f64 = 2.0;

/// A GPU card's new price must lie within this band of its chip's new price (or, where the chip
/// has none, its launch price): outside it, the card's listing is not a price. 2025's partner
/// cards sold at 0.7-1.9x their chip's median.
pub(crate) const CARD_BAND: (f64, f64) = (0.5, 2.0);

/// A motherboard's listing above this multiple of the median price of the boards of its chipset
/// (at least [`MIN_PEERS`] priced) is not a price.
pub(crate) const BOARD_FACTOR: f64 = 3.0;

/// A PSU's listing whose price per rated watt is above this multiple of the median price per
/// watt of its 80 PLUS level (at least [`MIN_PEERS`] priced) is not a price.
pub(crate) const PSU_FACTOR: f64 = 2.5;

/// Peers a median needs before a part is judged against it.
pub(crate) const MIN_PEERS: usize = 5;

/// Intel desktop sockets, oldest first: a board for a socket two or more places behind the
/// newest sells new only from leftover stock.
pub(crate) const INTEL_DESKTOP_SOCKETS: [&str; 5] = ["LGA1150", "LGA1151", "LGA1200", "LGA1700", "LGA1851"];

/// A newer chip of the same tier priced below its predecessor's used price divided by this
/// factor is implausible (plausibility check; see [`SUCCESSORS`]).
pub(crate) const SUCCESSOR_FACTOR: f64 = 1.25;

/// One source kind's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MethodEntry {
    /// The source kind.
    pub source: &'static str,
    /// What figure is taken.
    pub figure: &'static str,
    /// What is not a price.
    pub outliers: &'static str,
    /// When it is too old to be today's new price.
    pub too_old: &'static str,
}

/// The price method, one entry per source kind (README "Price method", `catalog audit`).
pub const METHOD: [MethodEntry; 5] = [
    MethodEntry {
        source: "street import (docyx/pc-part-dataset, catalog/prices/street.json)",
        figure: "the median of the part's listings (PCPartPicker rows: each row's price is its lowest store price) in the newest data commit that had a priced listing of it; a GPU chip's is the median of its cards' listings there",
        outliers: "a single listing is checked against its peers and is not a price beyond: a GPU card outside 0.5-2x its chip's new (else launch) price, or above its chip's launch price once the chip is 36 months old (leftover stock), or above 2x its launch price before, or above 2x its chip's cited used price; a motherboard above 3x its chipset's median (5+ priced boards), or on an Intel socket two or more generations behind LGA1851 above the median of its chipset tier on LGA1851 (leftover stock); a PSU above 2.5x the median price per watt of its 80 PLUS level; CPUs, coolers, cases, memory and drives are not peer-checked",
        too_old: "older than 36 months: withheld (the part is new-unpriced)",
    },
    MethodEntry {
        source: "launch MSRP (curated chip prices in catalog/gpus.ron, catalog/prices/msrp.json)",
        figure: "the vendor's announced launch price, or one named retailer's or OEM's list price a dated source quotes as a single figure; never a range, a midpoint or an estimate",
        outliers: "laid on only where no street price prices the part; it is the reference the street outlier rules above use",
        too_old: "older than 36 months: shown as the launch price with its date (`prices`, `catalog audit`), not offered as today's new price; the part is new-unpriced, and with --used priced at its cited used price",
    },
    MethodEntry {
        source: "used-market quote (catalog/prices/used.json)",
        figure: "a dated point price the source names (an eBay sold average, a best-deal figure, a typical price); a range is never a price and its midpoint is never taken",
        outliers: "a quote outside every range its own text names is refused (cited::problems); a used price above the same chip's new price is a plausibility failure",
        too_old: "never withheld: shown with its age past 12 months; used only by plan --used and by parts a build marks used",
    },
    MethodEntry {
        source: "user price file (prices.ron; `prices --learn FILE` adds a parts list's prices)",
        figure: "the user's figure, as entered or as the list gives it (a line's price over its count)",
        outliers: "refused only above 100x the median price of its kind (an extra zero, cents typed as dollars)",
        too_old: "never: the user's market wins over ours",
    },
    MethodEntry {
        source: "parts list (PCPartPicker export read by `import`)",
        figure: "each line's price and store as the list gives them, dated the day of the import, source \"your list\"; kept in the build's notes and learned into the price file with `prices --learn`",
        outliers: "none: it is the user's own price",
        too_old: "as the user price file",
    },
];

/// A launch price: USD and the date.
#[derive(Debug, Clone, PartialEq)]
struct Launch {
    usd: f64,
    date: String,
}

/// The launch price of each GPU chip the catalog knows one for: its curated price (catalog/gpus.ron
/// holds launch prices with their launch dates) or its launch MSRP or vendor/OEM list price from
/// `msrp.json`; a store's listing there (`basis: retail_listing`) is no launch price and is not
/// taken as one.
fn launch_prices(c: &Catalog, msrp: Option<&CitedFile>) -> BTreeMap<String, Launch> {
    let mut out = BTreeMap::new();
    for g in &c.gpus {
        if g.price_source.is_none()
            && let (Some(usd), Some(date)) = (g.price_usd, g.price_date.as_ref())
        {
            out.insert(g.id.clone(), Launch { usd, date: date.clone() });
        }
    }
    for p in msrp.map(|f| f.prices.as_slice()).unwrap_or_default() {
        if c.gpu(&p.id).is_some() && p.basis != cited::NewPriceBasis::RetailListing {
            out.entry(p.id.clone()).or_insert(Launch { usd: p.usd, date: p.date.clone() });
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some(f64::midpoint(v[n / 2 - 1], v[n / 2])),
    }
}

/// Whether a price is one the method judges: a new price (street, curated, launch MSRP), not the
/// user's, an owned part's or a used one.
fn judged(source: Option<&str>) -> bool {
    match source {
        None => true,
        Some(s) => s != USER_PRICE_SOURCE && s != cited::OWNED_SOURCE && !s.starts_with(USED_PREFIX),
    }
}

/// Whether a price came from the street import (not curated, not from the cited new-price file).
fn street_source(source: Option<&str>) -> bool {
    source.is_some_and(|s| judged(Some(s)) && !is_cited_new_price(s))
}

/// Why a GPU chip's or card's new price `usd` (from a street listing when `street`) is not a
/// price, judged against the chip's launch price and cited used price; `None` when it is one.
fn gpu_reason(
    usd: f64,
    street: bool,
    launch: Option<&Launch>,
    used_quote: Option<&CitedPrice>,
    today: (i32, u32, u32),
) -> Option<String> {
    if let Some(l) = launch
        && street
    {
        let age = age_months(&l.date, today).unwrap_or(0);
        if age > END_OF_LIFE_AFTER_MONTHS && usd > l.usd {
            return Some(format!(
                "a leftover listing: above the launch price ${:.0} ({}) of a chip launched {age} months ago",
                l.usd, l.date
            ));
        }
        if usd > LAUNCH_FACTOR * l.usd {
            return Some(format!("an outlier: above {LAUNCH_FACTOR}x the launch price ${:.0} ({})", l.usd, l.date));
        }
    }
    if let Some(u) = used_quote
        && usd > USED_FACTOR * u.usd
    {
        return Some(format!(
            "a leftover listing: above {USED_FACTOR}x the cited used price ${:.0} ({})",
            u.usd, u.date
        ));
    }
    None
}

macro_rules! take_price {
    ($part:expr) => {{
        let p = &mut *$part;
        (p.price_usd.take(), p.price_date.take(), p.price_source.take())
    }};
}

impl Catalog {
    /// Withholds every new price the method ([`METHOD`]) refuses on `today`, keeping each in
    /// [`Catalog::withheld_prices`] with its reason; a GPU chip or card whose curated or launch
    /// price is withheld as too old takes its street price from `street` when that one passes.
    /// Returns how many prices were withheld. Call [`Catalog::refresh_derived`] afterwards.
    pub fn apply_price_method(&mut self, street: Option<&StreetFile>, today: (i32, u32, u32)) -> usize {
        let launch = launch_prices(self, cited::msrp_file());
        let used_file = cited::used_file();
        let used_of = |id: &str| used_file.and_then(|f| f.get(id));
        let mut withheld: Vec<WithheldPrice> = Vec::new();
        let stale =
            |date: Option<&str>| date.and_then(|d| age_months(d, today)).filter(|m| *m > STALE_NEW_AFTER_MONTHS);
        let stale_reason = |date: &str, m: u32, launch: bool| {
            format!(
                "older than {STALE_NEW_AFTER_MONTHS} months ({date}, {m} months old): {}, not today's new price",
                if launch { "a launch price" } else { "a last seen listing" }
            )
        };

        // GPU chips.
        for g in &mut self.gpus {
            let Some(usd) = g.price_usd else { continue };
            if !judged(g.price_source.as_deref()) {
                continue;
            }
            let is_street = street_source(g.price_source.as_deref());
            let reason = match stale(g.price_date.as_deref()) {
                Some(m) => Some(stale_reason(g.price_date.as_deref().unwrap_or(""), m, !is_street)),
                None => gpu_reason(usd, is_street, launch.get(&g.id), used_of(&g.id), today),
            };
            let Some(reason) = reason else { continue };
            let stale_launch = !is_street;
            let (u, d, s) = take_price!(g);
            withheld.push(WithheldPrice {
                id: g.id.clone(),
                kind: "gpus",
                usd: u.unwrap_or(usd),
                date: d,
                source: s,
                reason,
            });
            // A too-old launch price gives way to the chip's street price, if that one passes.
            if stale_launch
                && let Some(f) = street
                && let Some(p) = f.prices.gpus.get(&g.id)
            {
                let label = crate::street::source_label(&f.import, p, true);
                let why = match stale(Some(&p.date)) {
                    Some(m) => Some(stale_reason(&p.date, m, false)),
                    None => gpu_reason(p.usd, true, launch.get(&g.id), used_of(&g.id), today),
                };
                match why {
                    None => {
                        g.price_usd = Some(p.usd);
                        g.price_date = Some(p.date.clone());
                        g.price_source = Some(label);
                    }
                    Some(reason) => withheld.push(WithheldPrice {
                        id: g.id.clone(),
                        kind: "gpus",
                        usd: p.usd,
                        date: Some(p.date.clone()),
                        source: Some(label),
                        reason,
                    }),
                }
            }
        }

        // GPU cards, against their chip (after the chips' pass).
        let chip_new: BTreeMap<String, f64> =
            self.gpus.iter().filter_map(|g| g.price_usd.map(|p| (g.id.clone(), p))).collect();
        for k in &mut self.gpu_cards {
            let Some(usd) = k.price_usd else { continue };
            if !judged(k.price_source.as_deref()) {
                continue;
            }
            let is_street = street_source(k.price_source.as_deref());
            let l = launch.get(&k.chip);
            let reason = if let Some(m) = stale(k.price_date.as_deref()) {
                Some(stale_reason(k.price_date.as_deref().unwrap_or(""), m, !is_street))
            } else if let Some(r) = gpu_reason(usd, is_street, l, used_of(&k.chip), today) {
                Some(r)
            } else {
                let reference = chip_new.get(&k.chip).map(|p| (*p, "new")).or(l.map(|l| (l.usd, "launch")));
                reference.and_then(|(r, what)| {
                    let (lo, hi) = CARD_BAND;
                    (!(lo * r..=hi * r).contains(&usd))
                        .then(|| format!("an outlier: outside {lo}-{hi}x its chip's {what} price ${r:.0}"))
                })
            };
            let Some(reason) = reason else { continue };
            let (u, d, s) = take_price!(k);
            withheld.push(WithheldPrice {
                id: k.id.clone(),
                kind: "gpu_cards",
                usd: u.unwrap_or(usd),
                date: d,
                source: s,
                reason,
            });
        }

        // Motherboards: against their chipset's median; old Intel sockets against the newest.
        let mut by_chipset: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
        for b in self.motherboards.iter().filter(|b| judged(b.price_source.as_deref())) {
            if let Some(p) = b.price_usd {
                by_chipset.entry((b.socket.clone(), b.chipset.clone())).or_default().push(p);
            }
        }
        let newest = INTEL_DESKTOP_SOCKETS[INTEL_DESKTOP_SOCKETS.len() - 1];
        let tier_median = |chipset: &str| -> Option<(String, f64)> {
            let tier = chipset.chars().next()?;
            let v: Vec<f64> = by_chipset
                .iter()
                .filter(|((s, c), _)| s == newest && c.starts_with(tier))
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            (v.len() >= MIN_PEERS).then(|| median(v).map(|m| (format!("{tier}-series {newest}"), m))).flatten()
        };
        for b in &mut self.motherboards {
            let Some(usd) = b.price_usd else { continue };
            if !judged(b.price_source.as_deref()) {
                continue;
            }
            let reason = if let Some(m) = stale(b.price_date.as_deref()) {
                Some(stale_reason(b.price_date.as_deref().unwrap_or(""), m, false))
            } else {
                let peers = by_chipset.get(&(b.socket.clone(), b.chipset.clone())).filter(|v| v.len() >= MIN_PEERS);
                let chipset_median = peers.and_then(|v| median(v.clone()));
                let behind = INTEL_DESKTOP_SOCKETS
                    .iter()
                    .position(|s| *s == b.socket)
                    .is_some_and(|i| i + 2 < INTEL_DESKTOP_SOCKETS.len());
                match (chipset_median, behind.then(|| tier_median(&b.chipset)).flatten()) {
                    (Some(m), _) if usd > BOARD_FACTOR * m => Some(format!(
                        "an outlier: above {BOARD_FACTOR}x the median ${m:.0} of {} {} boards",
                        b.socket, b.chipset
                    )),
                    (_, Some((what, m))) if usd > m => Some(format!(
                        "a leftover listing: a {} board (two or more sockets behind {newest}) above the median ${m:.0} of {what} boards",
                        b.socket
                    )),
                    _ => None,
                }
            };
            let Some(reason) = reason else { continue };
            let (u, d, s) = take_price!(b);
            withheld.push(WithheldPrice {
                id: b.id.clone(),
                kind: "motherboards",
                usd: u.unwrap_or(usd),
                date: d,
                source: s,
                reason,
            });
        }

        // PSUs: price per watt against their 80 PLUS level's median.
        let mut per_w: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for p in self.psus.iter().filter(|p| judged(p.price_source.as_deref()) && p.rated_w > 0.0) {
            if let Some(usd) = p.price_usd {
                per_w.entry(format!("{:?}", p.eighty_plus)).or_default().push(usd / p.rated_w);
            }
        }
        for p in &mut self.psus {
            let Some(usd) = p.price_usd else { continue };
            if !judged(p.price_source.as_deref()) {
                continue;
            }
            let level = format!("{:?}", p.eighty_plus);
            let reason = if let Some(m) = stale(p.price_date.as_deref()) {
                Some(stale_reason(p.price_date.as_deref().unwrap_or(""), m, false))
            } else {
                let m = per_w.get(&level).filter(|v| v.len() >= MIN_PEERS).and_then(|v| median(v.clone()));
                m.filter(|m| p.rated_w > 0.0 && usd / p.rated_w > PSU_FACTOR * m).map(|m| {
                    format!(
                        "an outlier: ${:.3}/W, above {PSU_FACTOR}x the median ${m:.3}/W of 80 PLUS {level} PSUs",
                        usd / p.rated_w
                    )
                })
            };
            let Some(reason) = reason else { continue };
            let (u, d, s) = take_price!(p);
            withheld.push(WithheldPrice {
                id: p.id.clone(),
                kind: "psus",
                usd: u.unwrap_or(usd),
                date: d,
                source: s,
                reason,
            });
        }

        // The other kinds: too old only.
        macro_rules! only_stale {
            ($($field:ident),*) => {
                $(
                    for x in &mut self.$field {
                        let Some(usd) = x.price_usd else { continue };
                        if !judged(x.price_source.as_deref()) {
                            continue;
                        }
                        let Some(m) = stale(x.price_date.as_deref()) else { continue };
                        let reason = stale_reason(x.price_date.as_deref().unwrap_or(""), m, false);
                        let (u, d, s) = take_price!(x);
                        withheld.push(WithheldPrice { id: x.id.clone(), kind: stringify!($field), usd: u.unwrap_or(usd), date: d, source: s, reason });
                    }
                )*
            };
        }
        only_stale!(cpus, coolers, cases, memory, storage);

        let n = withheld.len();
        self.withheld_prices.extend(withheld);
        n
    }

    /// The new prices of part `id` the price method withheld, with their reasons (a launch price
    /// too old to be today's, a leftover or outlier listing); empty when none.
    pub fn withheld_price(&self, id: &str) -> Vec<&WithheldPrice> {
        self.withheld_prices.iter().filter(|w| w.id == id).collect()
    }
}

/// One failed plausibility check.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Flag {
    /// The rule (`used-above-new`, `successor-below-used`, `card-outside-band`).
    pub rule: &'static str,
    /// The part whose price is flagged.
    pub id: String,
    /// What is wrong, with the figures.
    pub detail: String,
}

/// Pairs of GPU chips of one tier, predecessor first, that the successor rule compares: a
/// successor's price (new, else used) is not below its predecessor's used price divided by
/// [`SUCCESSOR_FACTOR`].
pub(crate) const SUCCESSORS: [(&str, &str); 10] = [
    ("nvidia-geforce-rtx-3090", "nvidia-geforce-rtx-3090-ti"),
    ("nvidia-geforce-rtx-3090", "nvidia-geforce-rtx-4090"),
    ("nvidia-geforce-rtx-3090-ti", "nvidia-geforce-rtx-4090"),
    ("nvidia-geforce-rtx-4090", "nvidia-geforce-rtx-5090"),
    ("nvidia-geforce-rtx-3080-ti", "nvidia-geforce-rtx-4080"),
    ("nvidia-geforce-rtx-4080", "nvidia-geforce-rtx-5080"),
    ("amd-radeon-rx-6800", "amd-radeon-rx-6800-xt"),
    ("amd-radeon-rx-6800-xt", "amd-radeon-rx-6900-xt"),
    ("amd-radeon-rx-6900-xt", "amd-radeon-rx-6950-xt"),
    ("amd-radeon-rx-6950-xt", "amd-radeon-rx-7900-xtx"),
];

/// Plausibility failures that stand, each with why (a source says the market is so). Empty: every
/// failure found was fixed from a better source.
pub const EXCEPTIONS: [(&str, &str, &str); 0] = [];

/// The plausibility failures of `c`'s prices (as loaded, after [`Catalog::apply_price_method`]),
/// less [`EXCEPTIONS`]:
/// - `used-above-new`: a part's cited used price (a card's own, else its chip's) above its new
///   price;
/// - `successor-below-used`: a chip of [`SUCCESSORS`] priced (new, else used) below its
///   predecessor's used price divided by [`SUCCESSOR_FACTOR`];
/// - `card-outside-band`: a GPU card's new price outside [`CARD_BAND`] of its chip's new price.
pub fn plausibility(c: &Catalog) -> Vec<Flag> {
    let mut out = Vec::new();
    let used_quote = |id: &str| cited::used_price(id);
    let new_of = |id: &str| c.price_of(id).filter(|p| judged(p.source)).map(|p| p.usd);
    for g in &c.gpus {
        if let (Some(n), Some(u)) = (new_of(&g.id), used_quote(&g.id))
            && u.usd > n
        {
            out.push(Flag {
                rule: "used-above-new",
                id: g.id.clone(),
                detail: format!("used ${:.0} ({}) above new ${n:.0}", u.usd, u.date),
            });
        }
    }
    for k in &c.gpu_cards {
        let Some(n) = k.price_usd.filter(|_| judged(k.price_source.as_deref())) else { continue };
        if let Some(u) = cited::used_price_in(c, &k.id)
            && u.usd > n
        {
            out.push(Flag {
                rule: "used-above-new",
                id: k.id.clone(),
                detail: format!("used ${:.0} ({}) above new ${n:.0}", u.usd, u.date),
            });
        }
        if let Some(chip) = c.gpu(&k.chip).and_then(|g| g.price_usd) {
            let (lo, hi) = CARD_BAND;
            if !(lo * chip..=hi * chip).contains(&n) {
                out.push(Flag {
                    rule: "card-outside-band",
                    id: k.id.clone(),
                    detail: format!("${n:.0} outside {lo}-{hi}x its chip's ${chip:.0}"),
                });
            }
        }
    }
    for (old, new) in SUCCESSORS {
        let Some(u) = used_quote(old) else { continue };
        let Some(p) = new_of(new).or_else(|| used_quote(new).map(|x| x.usd)) else { continue };
        if p < u.usd / SUCCESSOR_FACTOR {
            out.push(Flag {
                rule: "successor-below-used",
                id: old.to_owned(),
                detail: format!(
                    "used ${:.0} ({}) of {old} above {SUCCESSOR_FACTOR}x the ${p:.0} of its successor {new}",
                    u.usd, u.date
                ),
            });
        }
    }
    out.retain(|f| !EXCEPTIONS.iter().any(|(id, rule, _)| *id == f.id && *rule == f.rule));
    out
}

//! What a build's parts cost as the build file says they were bought: new (the catalog's
//! price), used (`used: [...]`, at the cited used-market price) or owned (`owned: [...]`, $0).
//! Every cost of a build (`fit`, `prices`, `compare`, `export`, the window's price labels)
//! prices it over [`Build::pricing_catalog`], so they agree with the plan that wrote it.

use super::Build;
use kraftwerk_catalog::Catalog;
use kraftwerk_catalog::cited::{self, OWNED_SOURCE, USED_PREFIX, USED_UNPRICED_SOURCE};
use kraftwerk_catalog::price_labels::USER_PRICE_SOURCE;
use kraftwerk_catalog::prices::PriceOrigin;
use std::borrow::Cow;

impl Build {
    /// `catalog` with this build's used and owned parts priced as bought: an owned part at $0
    /// (`price_source` [`OWNED_SOURCE`]); a used part at its cited used price
    /// ([`cited::used_price_in`]: its own, or for a partner card its chip's), unless the
    /// catalog's price already is a used one or comes from the user's price file (what they
    /// paid); a used part no source prices used has no price (`price_source`
    /// [`USED_UNPRICED_SOURCE`]), never its new price. Owned wins over used. Borrows `catalog`
    /// when the build marks nothing. Parts defined inline in the build (`parts`) keep their
    /// own price.
    pub fn pricing_catalog<'a>(&self, catalog: &'a Catalog) -> Cow<'a, Catalog> {
        if self.used.is_empty() && self.owned.is_empty() {
            return Cow::Borrowed(catalog);
        }
        let mut c = catalog.clone();
        // A part owned in every unit is not priced used; one owned in part keeps its used price
        // for the units bought.
        for id in self.used.iter().filter(|id| self.owned_count(id) != Some(u32::MAX)) {
            let current = catalog.price_of(id);
            let keep = current.is_some_and(|p| p.origin() == PriceOrigin::Used || p.source == Some(USER_PRICE_SOURCE));
            if keep {
                continue;
            }
            match cited::used_price_in(catalog, id).filter(|p| p.usd.is_finite() && p.usd > 0.0) {
                Some(p) => {
                    c.set_price(id, Some(p.usd), Some(&p.date), Some(&cited::source_label(USED_PREFIX, p)));
                }
                None => {
                    c.set_price(id, None, None, Some(USED_UNPRICED_SOURCE));
                }
            }
        }
        // A counted entry (`1x id`) owns only that many units: [`Build::owned_count`] splits
        // the part's line (the fit's cost), so the id keeps its price here.
        for id in self.owned.iter().filter(|o| parse_owned(o).1.is_none()) {
            c.set_price(id, Some(0.0), None, Some(OWNED_SOURCE));
        }
        Cow::Owned(c)
    }

    /// Whether the build marks part `id` as owned (every unit, or a count of them).
    pub fn is_owned(&self, id: &str) -> bool {
        self.owned.iter().any(|o| parse_owned(o).0 == id)
    }

    /// How many units of part `id` the build owns: `None` when none is owned,
    /// `Some(u32::MAX)` when every unit is (a plain id in `owned`), else the sum of its counted
    /// entries (`"1x nvidia-geforce-rtx-3090"`: one card owned, the others of that id bought).
    pub fn owned_count(&self, id: &str) -> Option<u32> {
        let mut total: Option<u32> = None;
        for (oid, n) in self.owned.iter().map(|o| parse_owned(o)) {
            if oid == id {
                let n = n.unwrap_or(u32::MAX);
                total = Some(total.unwrap_or(0).saturating_add(n));
            }
        }
        total
    }

    /// Of `lines` (`(id, quantity)` in build order), how many units of each the build owns:
    /// a line of `q` units of an id the build owns `k` of ([`Build::owned_count`]) owns
    /// `min(k, q)`, and lines of one id draw on the same count in order (so `1x id` over two
    /// lines of that id owns one unit of the first). The one split of owned units: the parts
    /// list ([`super::parts_list::PartsList::of`]) cuts each line into its owned units at $0
    /// and the rest at their price, and every cost of a build (`fit`, the planner, `prices`,
    /// `compare`, the window's tabs) sums that list.
    pub fn owned_units<'a>(&self, lines: impl IntoIterator<Item = (&'a str, u32)>) -> Vec<u32> {
        let mut left: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
        lines
            .into_iter()
            .map(|(id, q)| {
                let Some(total) = self.owned_count(id) else { return 0 };
                let k = left.entry(id).or_insert(total);
                let free = (*k).min(q);
                *k -= free;
                free
            })
            .collect()
    }

    /// Whether the build marks part `id` as bought used (and not owned in every unit).
    pub fn is_used(&self, id: &str) -> bool {
        self.owned_count(id) != Some(u32::MAX) && self.used.iter().any(|o| o == id)
    }
}

/// One entry of a build's `owned` list: the part id and, for a counted entry `"Nx id"` (N from
/// 1, `x` or `X`, then white space), the count; a plain id (count `None`) owns every unit of it.
pub(crate) fn parse_owned(entry: &str) -> (&str, Option<u32>) {
    let t = entry.trim();
    if let Some((n, id)) = t.split_once(['x', 'X'])
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = n.parse::<u32>()
        && n > 0
        && id.starts_with(char::is_whitespace)
        && !id.trim().is_empty()
    {
        return (id.trim(), Some(n));
    }
    (t, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_entries_parse_counts() {
        assert_eq!(parse_owned("1x nvidia-geforce-rtx-3090"), ("nvidia-geforce-rtx-3090", Some(1)));
        assert_eq!(parse_owned("2X psu-a"), ("psu-a", Some(2)));
        assert_eq!(parse_owned("3x-card"), ("3x-card", None));
        assert_eq!(parse_owned("xfx-radeon"), ("xfx-radeon", None));
        assert_eq!(parse_owned("0x a"), ("0x a", None));
        let b = Build { owned: vec!["1x g".into(), "1x g".into(), "case".into()], ..Build::default() };
        assert_eq!(b.owned_count("g"), Some(2));
        assert_eq!(b.owned_count("case"), Some(u32::MAX));
        assert_eq!(b.owned_count("other"), None);
    }
}

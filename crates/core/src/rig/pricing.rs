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
        for id in self.used.iter().filter(|id| !self.owned.contains(id)) {
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
        for id in &self.owned {
            c.set_price(id, Some(0.0), None, Some(OWNED_SOURCE));
        }
        Cow::Owned(c)
    }

    /// Whether the build marks part `id` as owned.
    pub fn is_owned(&self, id: &str) -> bool {
        self.owned.iter().any(|o| o == id)
    }

    /// Whether the build marks part `id` as bought used (and not owned).
    pub fn is_used(&self, id: &str) -> bool {
        !self.is_owned(id) && self.used.iter().any(|o| o == id)
    }
}

//! Price-source labels and price dates: the strings a part's `price_source` starts with for each
//! kind of price, and the age of a dated price. A leaf module: the user's price file
//! ([`crate::prices`]) and the cited MSRP and used-price files ([`crate::cited`]) both use it
//! without importing each other.

/// `price_source` of a price from the user's price file.
pub const USER_PRICE_SOURCE: &str = "user price file";

/// `price_source` prefix of a launch MSRP from the cited new-price file
/// (`catalog/prices/msrp.json`): the vendor's announced launch price.
pub const MSRP_PREFIX: &str = "launch MSRP: ";

/// `price_source` prefix of a list price from the cited new-price file: a vendor's published
/// list price that is not a retail MSRP (AMD's 1kU tray price, Intel's Recommended Customer
/// Price, an OEM's list price).
pub const LIST_PRICE_PREFIX: &str = "list price: ";

/// `price_source` prefix of a retail listing from the cited new-price file: one named store's
/// (or PCPartPicker's) listed new price on a date, where the vendor publishes no price.
pub const LISTING_PREFIX: &str = "retail listing: ";

/// Whether `source` is a price from the cited new-price file (`catalog/prices/msrp.json`):
/// a launch MSRP, a list price or a retail listing, by its prefix.
pub fn is_cited_new_price(source: &str) -> bool {
    [MSRP_PREFIX, LIST_PRICE_PREFIX, LISTING_PREFIX].iter().any(|p| source.starts_with(p))
}

/// `price_source` prefix of a used-market price from the cited used-price file
/// (`catalog/prices/used.json`).
pub const USED_PREFIX: &str = "used: ";

/// Whole months from a price `date` (`YYYY-MM` or `YYYY-MM-DD`; a month alone counts from its
/// first day) to `today`; `None` when the date does not parse. A date after `today` is 0.
pub fn age_months(date: &str, today: (i32, u32, u32)) -> Option<u32> {
    let mut it = date.splitn(3, '-');
    let y: i32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok().filter(|m| (1..=12).contains(m))?;
    let d: u32 = match it.next() {
        Some(d) => d.parse().ok().filter(|d| (1..=31).contains(d))?,
        None => 1,
    };
    let (ty, tm, td) = today;
    let mut months = (i64::from(ty) - i64::from(y)) * 12 + i64::from(tm) - i64::from(m);
    if td < d {
        months -= 1;
    }
    Some(u32::try_from(months.max(0)).unwrap_or(u32::MAX))
}

/// A price the price method ([`crate::price_method`]) does not offer as today's new price: the
/// figure, its date and source as the catalog held them, and why it is withheld. The part then
/// has no new price (unknown); `prices` and `catalog audit` show this one with its reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WithheldPrice {
    /// Part id.
    pub id: String,
    /// Kind of the part, plural file key (`gpus`, `gpu_cards`, `motherboards`, `psus`, ...).
    pub kind: &'static str,
    /// The withheld figure, USD.
    pub usd: f64,
    /// Its date (`YYYY-MM[-DD]`), when it had one.
    pub date: Option<String>,
    /// Its `price_source` (`None`: the part's own curated source, a launch price).
    pub source: Option<String>,
    /// Which rule withheld it and with what figures (`older than 36 months (2022-10-12, 50 months
    /// old): a launch price, not today's`).
    pub reason: String,
}

//! Hand-curated, cited prices: GPU chips' launch MSRPs (`catalog/prices/msrp.json`) and
//! used-market prices (`catalog/prices/used.json`), one price a part id, each with its date, the
//! article it comes from, its URL and the quoted text that shows the figure.
//!
//! - A launch MSRP is laid on a part at load ([`Catalog::apply_msrps`]) only where neither the
//!   curated catalog nor the street-price import priced it: a newer street price wins over an
//!   old list price. Its `price_source` starts with [`MSRP_PREFIX`].
//! - A used price is kept apart from the new/street price: it is never laid on a part at load.
//!   [`used_price`] looks it up by id (`prices`, `catalog --stats`), and the planner plans over
//!   [`Catalog::with_used_prices`] when used parts are allowed (`plan --used`), where it replaces
//!   the part's price unless the user's price file set one. Its `price_source` starts with
//!   [`USED_PREFIX`].
//!
//! A part not listed has no such price (unknown), never 0; [`problems`] holds every entry to a
//! positive price, a `YYYY-MM[-DD]` date, an `https://` URL and a non-empty quote.

use super::{Catalog, CatalogError};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The launch-MSRP file, embedded: `(file name, JSON text)`.
pub const MSRP_FILE: (&str, &str) = ("catalog/prices/msrp.json", include_str!("../../../catalog/prices/msrp.json"));

/// The used-price file, embedded: `(file name, JSON text)`.
pub const USED_FILE: (&str, &str) = ("catalog/prices/used.json", include_str!("../../../catalog/prices/used.json"));

/// The `price_source` prefixes of this module's prices (defined in a leaf module, so the price
/// file's reader and this one do not import each other).
pub use crate::price_labels::{LIST_PRICE_PREFIX, LISTING_PREFIX, MSRP_PREFIX, USED_PREFIX};

/// What kind of new price an entry of the new-price file (`catalog/prices/msrp.json`) is; its
/// `price_source` label starts with the matching prefix ([`NewPriceBasis::prefix`]), so
/// `prices`, `fit` and the planner never print a store's listing as a launch MSRP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewPriceBasis {
    /// The vendor's announced launch price ([`MSRP_PREFIX`]).
    #[default]
    LaunchMsrp,
    /// A vendor's or OEM's published list price that is not a retail MSRP: AMD's 1kU tray
    /// price, Intel's Recommended Customer Price, an OEM's list price ([`LIST_PRICE_PREFIX`]).
    ListPrice,
    /// One named store's (or PCPartPicker's) listed new price on the entry's date
    /// ([`LISTING_PREFIX`]).
    RetailListing,
}

impl NewPriceBasis {
    /// The `price_source` prefix of a price of this basis.
    pub fn prefix(self) -> &'static str {
        match self {
            NewPriceBasis::LaunchMsrp => MSRP_PREFIX,
            NewPriceBasis::ListPrice => LIST_PRICE_PREFIX,
            NewPriceBasis::RetailListing => LISTING_PREFIX,
        }
    }
}

/// One cited price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CitedPrice {
    /// Catalog part id.
    pub id: String,
    /// Price, USD: the point figure the source names (never a range's midpoint).
    pub usd: f64,
    /// A quoted range `[low, high]`, USD: refused by [`problems`] (a range is never a price); kept
    /// in the schema so that a file carrying one is a located problem, not a parse error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_usd: Option<[f64; 2]>,
    /// Date of the price (`YYYY-MM` or `YYYY-MM-DD`): the article's or announcement's date.
    pub date: String,
    /// Publication and title, short (`GPUDojo, Tesla P40: ... (last updated December 2025)`).
    pub source: String,
    /// Where the figure is shown.
    pub url: String,
    /// The source's words that show the figure.
    pub quote: String,
    /// Where the cited text is kept in a public repository, when it is
    /// (`owner/name@commit:path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// New-price file only: what kind of new price this is (absent: a launch MSRP). The
    /// used-price file does not set it.
    #[serde(default, skip_serializing_if = "is_launch_msrp")]
    pub basis: NewPriceBasis,
}

#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_launch_msrp(b: &NewPriceBasis) -> bool {
    *b == NewPriceBasis::LaunchMsrp
}

/// A cited-price file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CitedFile {
    /// What the file holds and how its prices were chosen.
    pub about: String,
    /// The prices, one per id.
    pub prices: Vec<CitedPrice>,
}

impl CitedFile {
    /// The price of `id`, if the file lists it.
    pub fn get(&self, id: &str) -> Option<&CitedPrice> {
        self.prices.iter().find(|p| p.id == id)
    }
}

/// Parses a cited-price file; `file` names it in errors.
///
/// # Errors
/// A [`CatalogError`] with line and column for malformed JSON or a schema violation.
pub fn parse(file: &str, text: &str) -> Result<CitedFile, CatalogError> {
    serde_json::from_str::<CitedFile>(text).map_err(|e| CatalogError {
        file: file.into(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Whether `d` is `YYYY-MM` or `YYYY-MM-DD` with a month 1-12 and a day 1-31.
fn date_ok(d: &str) -> bool {
    crate::price_labels::age_months(d, (9999, 12, 31)).is_some() && matches!(d.len(), 7 | 10)
}

/// The dollar ranges a quote names, `[low, high]` in USD: `$1,200–1,600`, `$700-1,000`,
/// `~$4,000 – $9,000`, `$150-$300` (a hyphen, en dash or em dash between two figures, the first
/// after a `$`). A pair whose second figure is not above the first is no range (`$502,-7.7%`
/// in a quoted CSV row is a price and a percentage).
pub fn quoted_ranges(quote: &str) -> Vec<[f64; 2]> {
    let chars: Vec<char> = quote.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' {
            i += 1;
            continue;
        }
        let Some((lo, after_lo)) = dollar_figure(&chars, i + 1) else {
            i += 1;
            continue;
        };
        let mut j = skip_spaces(&chars, after_lo);
        if !matches!(chars.get(j), Some('-' | '\u{2013}' | '\u{2014}')) {
            i = after_lo;
            continue;
        }
        j = skip_spaces(&chars, j + 1);
        if chars.get(j) == Some(&'$') {
            j = skip_spaces(&chars, j + 1);
        }
        match dollar_figure(&chars, j) {
            Some((hi, after_hi)) if hi > lo => {
                out.push([lo, hi]);
                i = after_hi;
            }
            _ => i = after_lo,
        }
    }
    out
}

fn skip_spaces(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\u{a0}') {
        i += 1;
    }
    i
}

/// A figure at `chars[start..]`: digits in groups of three after the first comma
/// (`1,200`), an optional decimal part. Returns the value and the index after it.
fn dollar_figure(chars: &[char], start: usize) -> Option<(f64, usize)> {
    let mut i = start;
    let mut text = String::new();
    while chars.get(i).is_some_and(char::is_ascii_digit) {
        text.push(chars[i]);
        i += 1;
    }
    if text.is_empty() {
        return None;
    }
    // Thousands groups: a comma followed by exactly three digits.
    while chars.get(i) == Some(&',')
        && (1..=3).all(|k| chars.get(i + k).is_some_and(char::is_ascii_digit))
        && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
    {
        text.extend(&chars[i + 1..i + 4]);
        i += 4;
    }
    if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
        text.push('.');
        i += 1;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            text.push(chars[i]);
            i += 1;
        }
    }
    text.parse().ok().map(|v| (v, i))
}

/// What is wrong with a cited-price file, one line each: a price that is not a positive
/// number (the file never writes 0 for a missing price: a missing price is a missing entry), a
/// record with a range (a range is never a price, [`crate::price_method::METHOD`]), a price outside every range its own quote names
/// ([`quoted_ranges`]: a figure the source itself calls unrepresentative, such as a fleeting
/// best deal below "the bulk of listings"), a bad date, a URL that is not `https://`, an empty
/// source or quote, an id listed twice. Empty for a good file (the embedded ones are held to
/// that by `tests/catalog_prices.rs`).
pub fn problems(file: &CitedFile) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for p in &file.prices {
        let id = &p.id;
        if !seen.insert(id.as_str()) {
            out.push(format!("`{id}` is listed twice"));
        }
        if !(p.usd.is_finite() && p.usd > 0.0) {
            out.push(format!("`{id}`: price {} is not a positive number", p.usd));
        }
        if let Some([lo, hi]) = p.range_usd {
            // The price method: a range is never a price, and its midpoint is never taken.
            out.push(format!(
                "`{id}`: a range ({lo}-{hi}) is not a price: give the dated point figure the source names"
            ));
        }
        let quoted = quoted_ranges(&p.quote);
        if p.usd.is_finite()
            && p.usd > 0.0
            && !quoted.is_empty()
            && !quoted.iter().any(|[lo, hi]| *lo <= p.usd && p.usd <= *hi)
        {
            let named: Vec<String> = quoted.iter().map(|[lo, hi]| format!("{lo}-{hi}")).collect();
            out.push(format!("`{id}`: price {} is outside every range its quote names ({})", p.usd, named.join(", ")));
        }
        if !date_ok(&p.date) {
            out.push(format!("`{id}`: date `{}` is not YYYY-MM or YYYY-MM-DD", p.date));
        }
        if !p.url.starts_with("https://") {
            out.push(format!("`{id}`: url `{}` is not an https:// address", p.url));
        }
        if p.source.trim().is_empty() || p.quote.trim().is_empty() {
            out.push(format!("`{id}`: a price needs its source and the quoted figure"));
        }
    }
    out
}

/// The `price_source` text of a cited price: `prefix`, the source and its URL.
pub fn source_label(prefix: &str, p: &CitedPrice) -> String {
    format!("{prefix}{} <{}>", p.source, p.url)
}

fn embedded(cell: &'static OnceLock<Option<CitedFile>>, (name, text): (&str, &str)) -> Option<&'static CitedFile> {
    // The embedded files are held to parse by the test suite; a broken one prices nothing.
    cell.get_or_init(|| parse(name, text).ok()).as_ref()
}

/// The embedded launch-MSRP file (`None` only if it is broken, which the tests rule out).
pub fn msrp_file() -> Option<&'static CitedFile> {
    static CELL: OnceLock<Option<CitedFile>> = OnceLock::new();
    embedded(&CELL, MSRP_FILE)
}

/// The embedded used-price file (`None` only if it is broken, which the tests rule out).
pub fn used_file() -> Option<&'static CitedFile> {
    static CELL: OnceLock<Option<CitedFile>> = OnceLock::new();
    embedded(&CELL, USED_FILE)
}

/// The used-market price of part `id`, if [`USED_FILE`] lists one.
pub fn used_price(id: &str) -> Option<&'static CitedPrice> {
    used_file().and_then(|f| f.get(id))
}

/// The cited used price of part `id` in `catalog`: its own, or for a GPU card without one, its
/// chip's (the used-price sources quote the chip, whichever partner made the card; as
/// [`Catalog::with_used_prices`] prices partner cards). `None` when neither is listed.
pub fn used_price_in(catalog: &Catalog, id: &str) -> Option<&'static CitedPrice> {
    used_price(id).or_else(|| catalog.gpu_card(id).and_then(|k| used_price(&k.chip)))
}

/// The cited used price to show beside part `id`'s new price in `catalog` (`prices`, `fit`,
/// `export`): [`used_price_in`] (its own, or for a partner card its chip's), except where the
/// part's price already is that used price (a catalog from [`Catalog::with_used_prices`], as
/// `plan --used` plans over), which it would only repeat.
pub fn used_price_beside(catalog: &Catalog, id: &str) -> Option<&'static CitedPrice> {
    // (`PriceOrigin::Used` is this prefix; read here without naming `prices`, which imports this
    // module.)
    let already_used = catalog.price_of(id).is_some_and(|p| p.source.is_some_and(|s| s.starts_with(USED_PREFIX)));
    if already_used { None } else { used_price_in(catalog, id) }
}

macro_rules! lay_cited {
    ($self:ident, $file:ident, $label:ident, $replace:expr, $set:ident, $($field:ident),*) => {
        $(
            for part in &mut $self.$field {
                let Some(p) = $file.get(&part.id) else { continue };
                if !(p.usd.is_finite() && p.usd > 0.0) {
                    continue;
                }
                let users = part.price_source.as_deref() == Some(crate::price_labels::USER_PRICE_SOURCE);
                if users || (part.price_usd.is_some() && !$replace) {
                    continue;
                }
                part.price_usd = Some(p.usd);
                part.price_date = Some(p.date.clone());
                part.price_source = Some($label(p));
                $set += 1;
            }
        )*
    };
}

impl Catalog {
    /// Lays `file`'s new prices (launch MSRPs, list prices, retail listings: each labelled by
    /// its [`NewPriceBasis`]) on the parts they name that have no price yet (curated and street
    /// prices stay). Returns how many parts were priced. Call [`Catalog::refresh_derived`]
    /// afterwards.
    pub fn apply_msrps(&mut self, file: &CitedFile) -> usize {
        let mut set = 0;
        let label = |p: &CitedPrice| source_label(p.basis.prefix(), p);
        lay_cited!(
            self,
            file,
            label,
            false,
            set,
            gpus,
            gpu_cards,
            cpus,
            motherboards,
            psus,
            coolers,
            cases,
            memory,
            storage
        );
        // The chip vendor's own card (NVIDIA's "RTX PRO 6000 Blackwell Workstation Edition"
        // card record beside the chip of that name) is the product the launch or list price is
        // for: an unpriced first-party card takes its chip's entry. Partner cards do not (their
        // prices are their own).
        let chip_vendor: std::collections::HashMap<String, String> =
            self.gpus.iter().map(|g| (g.id.clone(), g.vendor.clone())).collect();
        for card in &mut self.gpu_cards {
            let users = card.price_source.as_deref() == Some(crate::price_labels::USER_PRICE_SOURCE);
            if users || card.price_usd.is_some() {
                continue;
            }
            let Some(p) = file.get(&card.chip).filter(|p| p.usd.is_finite() && p.usd > 0.0) else { continue };
            if !chip_vendor.get(&card.chip).is_some_and(|v| v.eq_ignore_ascii_case(&card.vendor)) {
                continue;
            }
            card.price_usd = Some(p.usd);
            card.price_date = Some(p.date.clone());
            card.price_source = Some(format!("{} (the chip vendor's own card)", label(p)));
            set += 1;
        }
        set
    }

    /// Lays `file`'s used prices on the parts they name, replacing their new/street price but
    /// never a price from the user's price file. A GPU chip's used price is the price of any
    /// used card of that chip (the surveys count every card of the chip), so it goes to the
    /// chip's partner cards too, unless the file prices the card itself. Returns how many parts
    /// were priced.
    pub fn apply_used_prices(&mut self, file: &CitedFile) -> usize {
        let mut set = 0;
        let prefix = USED_PREFIX;
        let label = |p: &CitedPrice| source_label(prefix, p);
        lay_cited!(self, file, label, true, set, gpus, gpu_cards, cpus, motherboards, psus, coolers, cases, memory);
        for card in &mut self.gpu_cards {
            let users = card.price_source.as_deref() == Some(crate::price_labels::USER_PRICE_SOURCE);
            let Some(p) = file.get(&card.chip).filter(|p| p.usd.is_finite() && p.usd > 0.0) else { continue };
            if users || file.get(&card.id).is_some() {
                continue;
            }
            card.price_usd = Some(p.usd);
            card.price_date = Some(p.date.clone());
            card.price_source = Some(source_label(prefix, p));
            set += 1;
        }
        self.refresh_derived();
        set
    }

    /// A copy of the catalog with the embedded used prices laid on ([`Catalog::apply_used_prices`]):
    /// what the planner plans over when used parts are allowed.
    #[must_use]
    pub fn with_used_prices(&self) -> Catalog {
        let mut c = self.clone();
        if let Some(f) = used_file() {
            c.apply_used_prices(f);
        }
        c
    }
}

/// The `price_source` of a part the build says its owner already has: it costs nothing
/// toward a budget or a total ([`Catalog::set_price`]).
pub const OWNED_SOURCE: &str = "owned";

/// The `price_source` of a part a build marks used when no source gives a used price for it
/// (its new price is not its price, so it stays unpriced).
pub const USED_UNPRICED_SOURCE: &str = "used: no cited used price";

macro_rules! set_price_in {
    ($self:ident, $id:ident, $usd:ident, $date:ident, $source:ident, $found:ident, $($field:ident),*) => {
        $(
            for part in $self.$field.iter_mut().filter(|p| p.id == $id) {
                part.price_usd = $usd;
                part.price_date = $date.map(str::to_owned);
                part.price_source = $source.map(str::to_owned);
                $found = true;
            }
        )*
    };
}

impl Catalog {
    /// Sets the price (USD), its date and its `price_source` of the part `id`, whatever its
    /// kind (a chip or a partner card by its own id), and refreshes the derived lists. Returns
    /// whether a part has the id. Used to price a build's used and owned parts
    /// (`used: no cited used price` leaves `usd` `None`).
    pub fn set_price(&mut self, id: &str, usd: Option<f64>, date: Option<&str>, source: Option<&str>) -> bool {
        let mut found = false;
        set_price_in!(
            self,
            id,
            usd,
            date,
            source,
            found,
            gpus,
            gpu_cards,
            cpus,
            motherboards,
            psus,
            coolers,
            cases,
            memory,
            storage
        );
        if found {
            self.refresh_derived();
        }
        found
    }
}

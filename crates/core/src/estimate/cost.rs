//! What a rig costs to own and run, per hour and per million tokens, against renting a cloud
//! GPU: pure functions, no egui, no I/O.
//!
//! Formulas (the usual total-cost-of-ownership arithmetic; judgement):
//! - on-prem $/hour = hardware / amortization hours + wall kW × electricity $/kWh;
//! - $ per 1M tokens = 1e6 × $/hour / (3600 × tokens/s);
//! - break-even months = hardware / ((cloud $/h − power $/h) × hours used per month).
//!
//! Utilization spreads the hardware over the hours the rig actually works, and idle hours cost
//! their idle power. Parts without a catalog price are listed, never guessed: the totals then
//! cover the priced parts only and say so.

use kraftwerk_catalog::HasId;
use serde::{Deserialize, Serialize};

/// Hours in a year (365.25 days).
pub(crate) const HOURS_PER_YEAR: f64 = 8766.0;
/// Hours in a month (a twelfth of [`HOURS_PER_YEAR`]): the power report's month, so both
/// count the same hours.
pub(crate) const HOURS_PER_MONTH: f64 = super::power::HOURS_PER_MONTH;
/// Default amortization period, years (judgement: the usual 3-year depreciation of servers).
pub(crate) const DEFAULT_AMORTIZATION_YEARS: f64 = 3.0;
/// Reference cloud price, USD per GPU-hour: an A100 80 GB at $1.60/h (the reference).
pub const DEFAULT_CLOUD_USD_PER_HOUR: f64 = 1.60;

/// A part to pay for: an id, a name, how many, and the unit price if the catalog has one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PricedPart {
    /// Catalog id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// How many of it.
    pub quantity: u32,
    /// Unit price, USD (`price_usd` of the catalog entry); `None` when the catalog has none.
    pub unit_price_usd: Option<f64>,
}

impl PricedPart {
    /// A part line.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        quantity: u32,
        unit_price_usd: Option<f64>,
    ) -> PricedPart {
        PricedPart { id: id.into(), name: name.into(), quantity, unit_price_usd }
    }

    /// A line for any catalog part, with its `price_usd`.
    pub fn of(part: &impl HasId, quantity: u32, unit_price_usd: Option<f64>) -> PricedPart {
        PricedPart::new(part.id(), part.display_name(), quantity, unit_price_usd)
    }

    /// A GPU line from the catalog entry.
    pub fn gpu(gpu: &kraftwerk_catalog::Gpu, quantity: u32) -> PricedPart {
        PricedPart::new(&gpu.id, format!("{} {}", gpu.vendor, gpu.name), quantity, gpu.price_usd)
    }
}

/// A cloud offer to compare with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CloudPrice {
    /// What is rented (`A100 80 GB`).
    pub name: String,
    /// Price, USD per hour for the whole instance.
    pub usd_per_hour: f64,
    /// Its throughput on the same workload, tokens/s, if known (e.g. from
    /// [`crate::estimate::llm::estimate`] on that GPU).
    pub tokens_per_s: Option<f64>,
}

impl Default for CloudPrice {
    /// One A100 80 GB at [`DEFAULT_CLOUD_USD_PER_HOUR`].
    fn default() -> Self {
        CloudPrice { name: "A100 80 GB".to_owned(), usd_per_hour: DEFAULT_CLOUD_USD_PER_HOUR, tokens_per_s: None }
    }
}

/// What the cost estimate needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostInput {
    /// The parts bought.
    pub parts: Vec<PricedPart>,
    /// Years over which the hardware is written off.
    pub amortization_years: f64,
    /// Wall power while working, W (from the power estimate).
    pub load_power_w: f64,
    /// Wall power while idle, W (0 if switched off when idle).
    pub idle_power_w: f64,
    /// Electricity price, USD per kWh.
    pub electricity_usd_per_kwh: f64,
    /// Fraction of wall-clock hours the rig works, (0, 1].
    pub utilization: f64,
    /// Aggregate throughput while working, tokens/s (from the LLM estimate), if known.
    pub tokens_per_s: Option<f64>,
    /// The cloud offer to compare with.
    pub cloud: CloudPrice,
}

impl CostInput {
    /// `parts` at [`DEFAULT_AMORTIZATION_YEARS`], 100 % utilization, no idle power, the default
    /// cloud comparison; power, price and throughput to be filled in.
    pub fn new(parts: Vec<PricedPart>, load_power_w: f64, electricity_usd_per_kwh: f64) -> Self {
        CostInput {
            parts,
            amortization_years: DEFAULT_AMORTIZATION_YEARS,
            load_power_w,
            idle_power_w: 0.0,
            electricity_usd_per_kwh,
            utilization: 1.0,
            tokens_per_s: None,
            cloud: CloudPrice::default(),
        }
    }
}

/// One priced line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartCost {
    /// Catalog id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// Unit price, USD, if known.
    pub unit_price_usd: Option<f64>,
    /// Quantity × unit price, USD, if known.
    pub line_usd: Option<f64>,
    /// The part's cited used-market price, shown beside `unit_price_usd` and never counted in
    /// the totals (only `plan --used` plans with used prices); `None` (left out of the JSON)
    /// when no source gives one. [`estimate`] leaves it `None`; the build's fit fills it from
    /// the catalog ([`kraftwerk_catalog::cited::used_price_beside`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_price: Option<kraftwerk_catalog::cited::CitedPrice>,
    /// How the build says the part was bought, when not new: `owned` (priced $0), `used`
    /// (priced at its cited used price) or `used: no cited used price` (unpriced); `None`
    /// (left out of the JSON) for a new part. [`estimate`] leaves it `None`; the build's fit
    /// fills it from the build's `used` and `owned` lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bought: Option<String>,
}

/// Renting instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CloudComparison {
    /// What is rented.
    pub name: String,
    /// USD per hour.
    pub usd_per_hour: f64,
    /// USD per million tokens on the cloud offer, when its throughput is known.
    pub usd_per_million_tokens: Option<f64>,
    /// Months of use at the given utilization after which owning is cheaper than renting:
    /// hardware / (cloud cost − own energy cost per month). `None` when renting costs no more
    /// than the rig's electricity (never breaks even).
    pub break_even_months: Option<f64>,
}

/// The cost estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostReport {
    /// Sum of the priced lines, USD.
    pub hardware_usd: f64,
    /// Every line.
    pub parts: Vec<PartCost>,
    /// Ids of the parts without a price (not counted in `hardware_usd`); the name of one the
    /// catalog has no entry for (`NVLink bridge, 3-slot spacing`, `PCIe 4.0 riser, 200 mm`).
    pub missing_prices: Vec<String>,
    /// Whether every part has a price; else `hardware_usd` leaves out the parts of
    /// `missing_prices` and the figures of `lower_bounds` are lower bounds.
    pub hardware_complete: bool,
    /// The figures of this report that are lower bounds because a part is unpriced (empty when
    /// `hardware_complete`), by their JSON names: `hardware_usd`, and those that grow with it
    /// ([`LOWER_BOUNDS_WHEN_UNPRICED`]) where they are given (not `None`). The electricity figures and the cloud offer's own
    /// `usd_per_million_tokens` do not depend on the hardware and are never listed; a
    /// `cloud.break_even_months` of `None` (renting costs no more than the electricity) stays
    /// "never" whatever the hardware costs.
    pub lower_bounds: Vec<&'static str>,
    /// Hardware written off per wall-clock hour, USD.
    pub amortization_usd_per_hour: f64,
    /// Electricity per working hour, USD (load kW × price).
    pub energy_usd_per_working_hour: f64,
    /// Electricity per month at the given utilization (working and idle hours), USD.
    pub energy_usd_per_month: f64,
    /// Hardware and electricity per month, USD.
    pub usd_per_month: f64,
    /// Working hours per month (utilization × 730.5).
    pub working_hours_per_month: f64,
    /// Total cost per working hour: a month's hardware and electricity over its working hours,
    /// USD.
    pub usd_per_working_hour: f64,
    /// USD per million tokens generated, when the throughput is known.
    pub usd_per_million_tokens: Option<f64>,
    /// The cloud comparison.
    pub cloud: CloudComparison,
}

/// The figures of a [`CostReport`] that grow with the hardware and so are lower bounds while a
/// part is unpriced: the hardware sum, its write-off per hour, the month, the working hour, the
/// $ per million tokens (the working hour over a known throughput) and the break-even (the
/// hardware over a saving that does not depend on it).
pub const LOWER_BOUNDS_WHEN_UNPRICED: [&str; 6] = [
    "hardware_usd",
    "amortization_usd_per_hour",
    "usd_per_month",
    "usd_per_working_hour",
    "usd_per_million_tokens",
    "cloud.break_even_months",
];

/// Input the cost estimate cannot use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CostError {
    /// A number is negative, zero where it must be positive, or not finite.
    #[error("{field} must be {expected}, got {value}")]
    OutOfRange {
        /// Which field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What it was.
        value: f64,
    },
}

fn check(field: &'static str, value: f64, positive: bool) -> Result<(), CostError> {
    let ok = value.is_finite() && if positive { value > 0.0 } else { value >= 0.0 };
    if ok {
        Ok(())
    } else {
        Err(CostError::OutOfRange { field, expected: if positive { "positive" } else { "zero or more" }, value })
    }
}

/// $ per million tokens at `usd_per_hour` and `tokens_per_s`: 1e6 × $/h / (3600 × tok/s).
pub fn usd_per_million_tokens(usd_per_hour: f64, tokens_per_s: f64) -> Option<f64> {
    (tokens_per_s.is_finite() && tokens_per_s > 0.0).then(|| 1e6 * usd_per_hour / (3600.0 * tokens_per_s))
}

/// Computes the cost report.
pub fn estimate(input: &CostInput) -> Result<CostReport, CostError> {
    check("amortization_years", input.amortization_years, true)?;
    check("load_power_w", input.load_power_w, false)?;
    check("idle_power_w", input.idle_power_w, false)?;
    check("electricity_usd_per_kwh", input.electricity_usd_per_kwh, false)?;
    check("utilization", input.utilization, true)?;
    if input.utilization > 1.0 {
        return Err(CostError::OutOfRange { field: "utilization", expected: "at most 1", value: input.utilization });
    }
    check("cloud.usd_per_hour", input.cloud.usd_per_hour, false)?;
    for p in &input.parts {
        if let Some(price) = p.unit_price_usd {
            check("unit_price_usd", price, false)?;
        }
    }

    let parts: Vec<PartCost> = input
        .parts
        .iter()
        .map(|p| PartCost {
            id: p.id.clone(),
            name: p.name.clone(),
            quantity: p.quantity,
            unit_price_usd: p.unit_price_usd,
            line_usd: p.unit_price_usd.map(|u| u * f64::from(p.quantity)),
            used_price: None,
            bought: None,
        })
        .collect();
    let hardware_usd: f64 = parts.iter().filter_map(|p| p.line_usd).sum();
    // A part the catalog has no entry for (an `NVLink` bridge, a riser) has no id: its name.
    let mut missing_prices: Vec<String> = parts
        .iter()
        .filter(|p| p.line_usd.is_none() && p.quantity > 0)
        .map(|p| if p.id.is_empty() { p.name.clone() } else { p.id.clone() })
        .collect();
    missing_prices.sort();
    missing_prices.dedup();

    let amortization_usd_per_hour = hardware_usd / (input.amortization_years * HOURS_PER_YEAR);
    // The power report's formula (working hours at the load, the rest idle): one figure.
    let energy = super::power::energy_cost(
        input.load_power_w,
        input.idle_power_w,
        input.electricity_usd_per_kwh,
        input.utilization,
    );
    let energy_usd_per_working_hour = energy.per_hour_usd;
    let working_hours_per_month = HOURS_PER_MONTH * input.utilization;
    let energy_usd_per_month = energy.per_month_usd;
    let hardware_per_month = hardware_usd / (input.amortization_years * 12.0);
    let usd_per_month = hardware_per_month + energy_usd_per_month;
    let usd_per_working_hour = usd_per_month / working_hours_per_month;
    let usd_per_mtok = input.tokens_per_s.and_then(|t| usd_per_million_tokens(usd_per_working_hour, t));

    let cloud_month = input.cloud.usd_per_hour * working_hours_per_month;
    let saving = cloud_month - energy_usd_per_month;
    let break_even_months = (saving > 0.0).then(|| hardware_usd / saving);
    let cloud = CloudComparison {
        name: input.cloud.name.clone(),
        usd_per_hour: input.cloud.usd_per_hour,
        usd_per_million_tokens: input
            .cloud
            .tokens_per_s
            .and_then(|t| usd_per_million_tokens(input.cloud.usd_per_hour, t)),
        break_even_months,
    };

    let hardware_complete = missing_prices.is_empty();
    // A figure that is not there (`None`) bounds nothing: only those given are named.
    let lower_bounds = if hardware_complete {
        Vec::new()
    } else {
        LOWER_BOUNDS_WHEN_UNPRICED
            .into_iter()
            .filter(|f| match *f {
                "usd_per_million_tokens" => usd_per_mtok.is_some(),
                "cloud.break_even_months" => cloud.break_even_months.is_some(),
                _ => true,
            })
            .collect()
    };
    Ok(CostReport {
        hardware_usd,
        hardware_complete,
        lower_bounds,
        parts,
        missing_prices,
        amortization_usd_per_hour,
        energy_usd_per_working_hour,
        energy_usd_per_month,
        usd_per_month,
        working_hours_per_month,
        usd_per_working_hour,
        usd_per_million_tokens: usd_per_mtok,
        cloud,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> CostInput {
        let mut i = CostInput::new(
            vec![PricedPart::new("gpu", "GPU", 2, Some(1599.0)), PricedPart::new("board", "Board", 1, None)],
            1000.0,
            0.30,
        );
        i.tokens_per_s = Some(20.0);
        i
    }

    #[test]
    fn sums_priced_parts_and_reports_missing() {
        let r = estimate(&input()).expect("valid");
        assert!((r.hardware_usd - 3198.0).abs() < 1e-9);
        assert_eq!(r.missing_prices, vec!["board".to_owned()]);
        assert!(!r.hardware_complete);
        assert_eq!(r.lower_bounds, LOWER_BOUNDS_WHEN_UNPRICED.to_vec());
    }

    #[test]
    fn per_hour_and_per_token_follow_llm_md() {
        let r = estimate(&input()).expect("valid");
        // Full utilization: $/h = hardware / (3 × 8766 h) + 1 kW × $0.30.
        let expected = 3198.0 / (3.0 * 8766.0) + 0.30;
        assert!((r.usd_per_working_hour - expected).abs() < 1e-9);
        let mtok = r.usd_per_million_tokens.expect("throughput given");
        assert!((mtok - 1e6 * expected / (3600.0 * 20.0)).abs() < 1e-9);
        // Break-even: 3198 / ((1.60 - 0.30) × 730.5).
        let months = r.cloud.break_even_months.expect("cloud dearer than power");
        assert!((months - 3198.0 / (1.30 * 730.5)).abs() < 1e-9);
    }

    #[test]
    fn low_utilization_raises_cost_per_hour() {
        let mut i = input();
        i.utilization = 0.25;
        i.idle_power_w = 100.0;
        let r = estimate(&i).expect("valid");
        let full = estimate(&input()).expect("valid");
        assert!(r.usd_per_working_hour > full.usd_per_working_hour);
    }

    #[test]
    fn never_breaks_even_when_power_costs_more_than_cloud() {
        let mut i = input();
        i.electricity_usd_per_kwh = 2.0;
        assert_eq!(estimate(&i).expect("valid").cloud.break_even_months, None);
    }

    #[test]
    fn rejects_bad_numbers() {
        let mut i = input();
        i.amortization_years = 0.0;
        assert!(estimate(&i).is_err());
        let mut i = input();
        i.utilization = 1.5;
        assert!(estimate(&i).is_err());
    }
}

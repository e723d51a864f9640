//! What a rig costs to own and run, per hour and per million tokens, against renting a cloud
//! GPU: pure functions, no egui, no I/O.
//!
//! Formulas (the usual total-cost-of-ownership arithmetic; judgement):
//! - the rig's $ per working hour = (hardware / write-off months + electricity per month, idle
//!   hours included) / working hours per month;
//! - the rig's $ per 1M tokens = 1e6 × that $/h / (3600 × the rig's tokens/s): hardware and
//!   electricity; the cloud offer's = 1e6 × its $/h / (3600 × its own tokens/s on the same
//!   workload): rent only;
//! - renting the rig's work costs, per working hour of the rig, the offer's $/h × the rig's
//!   tokens/s ÷ the offer's where both throughputs are known (the same tokens:
//!   [`CloudBasis::SameTokens`]), else the offer's $/h (the same hours: [`CloudBasis::SameHours`]);
//! - break-even months = hardware / ((that rent − the rig's electricity) per month), a
//!   break-even only within the write-off, which holds exactly where the rig's $ per working
//!   hour is at most that rent, so on the same-tokens basis exactly where the rig's $ per
//!   million tokens is at most the offer's: past the write-off, or where the cloud offer does
//!   not run the workload, there is none ([`BreakEven`]). Over unpriced parts the hardware is a
//!   lower bound and so are the months ([`BreakEven::AtLeast`]).
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
    /// Whether the offer runs the workload at all: `Some(false)` when it does not fit there
    /// (its rent then replaces nothing, and there is no break-even); `None` when not known.
    #[serde(default)]
    pub runs_workload: Option<bool>,
}

impl Default for CloudPrice {
    /// One A100 80 GB at [`DEFAULT_CLOUD_USD_PER_HOUR`].
    fn default() -> Self {
        CloudPrice {
            name: "A100 80 GB".to_owned(),
            usd_per_hour: DEFAULT_CLOUD_USD_PER_HOUR,
            tokens_per_s: None,
            runs_workload: None,
        }
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

/// What the break-even holds the rig's cost against: renting the offer for the same tokens, or
/// for the same hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloudBasis {
    /// The rig's and the offer's throughputs on the workload are both known: renting costs the
    /// offer's $ per million tokens for the tokens the rig makes. Owning pays back within the
    /// write-off exactly where the rig's $ per million tokens is at most the offer's.
    SameTokens,
    /// A throughput is unknown: renting costs the offer's $ per hour for each of the rig's
    /// working hours (as though the offer did the rig's work in the same time).
    SameHours,
}

/// Renting instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CloudComparison {
    /// What is rented.
    pub name: String,
    /// The offer's price, USD per hour of the instance (rent only).
    pub usd_per_hour: f64,
    /// USD per million tokens on the cloud offer: its $ per hour over its own throughput on the
    /// same workload, 1e6 × $/h / (3600 × its tokens/s), rent only; `None` when that throughput
    /// is unknown. On [`CloudBasis::SameTokens`] it is what the break-even holds the rig's
    /// [`CostReport::usd_per_million_tokens`] (hardware and electricity) against.
    pub usd_per_million_tokens: Option<f64>,
    /// What renting the offer costs for the work the rig does in one of its working hours, USD:
    /// on [`CloudBasis::SameTokens`] `usd_per_hour` × the rig's tokens/s ÷ the offer's (the
    /// rig's tokens per working hour at `usd_per_million_tokens`), on [`CloudBasis::SameHours`]
    /// `usd_per_hour`. The break-even holds the rig's [`CostReport::usd_per_working_hour`]
    /// against it.
    pub usd_per_rig_working_hour: f64,
    /// The basis of `usd_per_rig_working_hour`, and so of the break-even.
    pub basis: CloudBasis,
    /// Months of use at the site's hours per day after which owning costs less than renting
    /// the rig's work ([`CloudComparison::basis`]): hardware / (`usd_per_rig_working_hour` ×
    /// working hours per month − the rig's electricity per month), within the write-off
    /// ([`BreakEven::After`]); a lower bound over unpriced parts ([`BreakEven::AtLeast`], and
    /// named in [`CostReport::lower_bounds`]). `None` where there is no break-even: the cloud is
    /// cheaper at this use or at any (a payback past the write-off is none; on the same-tokens
    /// basis, wherever the rig's $ per million tokens is above the offer's), or no break-even
    /// can be computed; [`CloudComparison::break_even`] says which.
    pub break_even_months: Option<f64>,
    /// Whether owning pays back within the write-off, and when ([`BreakEven`]).
    pub break_even: BreakEven,
}

impl CloudComparison {
    /// The offer and the basis the break-even holds it to, as `plan` names it: `A100 80 GB at
    /// $1.60/h for the same tokens ($12.42 per million tokens)`, or `... for the same hours`.
    pub fn offer(&self) -> String {
        match (self.basis, self.usd_per_million_tokens) {
            (CloudBasis::SameTokens, Some(m)) => format!(
                "{} at ${:.2}/h for the same tokens ({} per million tokens)",
                self.name,
                self.usd_per_hour,
                crate::fmt::usd_rate(m)
            ),
            _ => format!("{} at ${:.2}/h for the same hours", self.name, self.usd_per_hour),
        }
    }

    /// What the rig's $ per working hour is held against, in words: `$0.86 per working hour
    /// for the cloud to make the same tokens`, or `the cloud's $1.60/h`.
    fn against(&self) -> String {
        match self.basis {
            CloudBasis::SameTokens => {
                format!("${:.2} per working hour for the cloud to make the same tokens", self.usd_per_rig_working_hour)
            }
            CloudBasis::SameHours => format!("the cloud's ${:.2}/h", self.usd_per_hour),
        }
    }

    /// What a break-even is against, in words: `renting the same tokens ($0.86 per working
    /// hour of the rig)`, or `renting it for the rig's working hours`.
    fn renting(&self) -> String {
        match self.basis {
            CloudBasis::SameTokens => {
                format!("renting the same tokens (${:.2} per working hour of the rig)", self.usd_per_rig_working_hour)
            }
            CloudBasis::SameHours => "renting it for the rig's working hours".to_owned(),
        }
    }
}

/// Whether owning the rig costs less than renting the cloud offer for the rig's work (the same
/// tokens, or the same hours: [`CloudBasis`]) within the write-off
/// ([`CostInput::amortization_years`]). Owning pays back within it exactly when the rig's cost
/// per working hour (its hardware over the write-off and its electricity, idle hours included:
/// [`CostReport::usd_per_working_hour`]) is at most what renting costs for that hour's work
/// ([`CloudComparison::usd_per_rig_working_hour`]), so the verdict, the $ per working hour and,
/// on the same-tokens basis, the two $ per million tokens `fit` prints agree. The rig's cost
/// per working hour falls as the hours per day rise: `(hardware per month / hours per month +
/// idle $/h) / u + (load $/h − idle $/h)` at utilization `u`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BreakEven {
    /// Owning costs less after `months` of use at the site's hours per day, within the
    /// write-off (0 for hardware that costs nothing, all owned). Every part is priced.
    After {
        /// Months, at most the write-off's.
        months: f64,
    },
    /// A part has no price ([`CostReport::missing_prices`]): over the priced parts alone owning
    /// would pay back after `months`, so it pays back no sooner (a lower bound), and within the
    /// write-off only if the unpriced parts cost at most `unpriced_at_most_usd` in all (else
    /// the cloud is cheaper at this use).
    AtLeast {
        /// Months over the priced parts only: a lower bound, at most the write-off's.
        months: f64,
        /// The most the unpriced parts may cost together, USD, for owning still to pay back
        /// within the write-off: the saving over the write-off less the priced hardware.
        unpriced_at_most_usd: f64,
    },
    /// At the site's hours per day the rig costs more per working hour than renting its work,
    /// so it does not pay back within the write-off; it would from `from_hours_per_day`.
    CloudCheaperAtThisUse {
        /// The site's hours of use per day (duty cycle × 24).
        hours_per_day: f64,
        /// The fewest hours per day at which owning pays back within the write-off (a lower
        /// bound over unpriced parts).
        from_hours_per_day: f64,
    },
    /// Even at 24 hours a day the rig costs more per working hour than renting its work (or
    /// its electricity alone does): the cloud is cheaper at any hours per day.
    CloudCheaperAtAnyUse,
    /// No break-even to compute: `why` (the cloud offer does not run the workload).
    NotApplicable {
        /// Why, in words.
        why: String,
    },
    /// Not known: `why` (no part of the hardware has a price).
    Unknown {
        /// Why, in words.
        why: String,
    },
}

impl BreakEven {
    /// The short form `plan` prints after "break-even against <cloud>": `after 4.5 months`
    /// (`at least` where `lower_bound`), `after at least 4.5 months (within the write-off only
    /// if the unpriced parts cost at most $6,804 in all)`, `none at 12.0 h/day (owning pays back
    /// from 18.3 h/day)`, `none: the cloud is cheaper at any hours per day`, `none: <why>`,
    /// `unknown (<why>)`.
    pub fn short(&self, lower_bound: bool) -> String {
        let least = if lower_bound { "at least " } else { "" };
        match self {
            BreakEven::After { months } => format!("after {least}{months:.1} months"),
            BreakEven::AtLeast { months, unpriced_at_most_usd } => format!(
                "after at least {months:.1} months (within the write-off only if the unpriced parts cost at most {} in all)",
                crate::fmt::usd(*unpriced_at_most_usd)
            ),
            BreakEven::CloudCheaperAtThisUse { hours_per_day, from_hours_per_day } => format!(
                "none at {hours_per_day:.1} h/day: the cloud is cheaper (owning pays back from {least}{from_hours_per_day:.1} h/day)"
            ),
            BreakEven::CloudCheaperAtAnyUse => "none: the cloud is cheaper at any hours per day".to_owned(),
            BreakEven::NotApplicable { why } => format!("none: {why}"),
            BreakEven::Unknown { why } => format!("unknown ({why})"),
        }
    }

    /// The words `fit` prints after the cloud offer: `break-even after 4.5 months against
    /// renting the same tokens ($0.86 per working hour of the rig)`, `break-even after at least
    /// 4.5 months ... (a lower bound: no price for ...; within the 3 years only if those cost at
    /// most $X in all)`, `no break-even at 12 h/day: ...`, `no break-even: the cloud is cheaper
    /// at any hours per day ...`. `least` is "at least " where the hardware is a lower bound (a
    /// part unpriced): the rig's cost per hour is then a lower bound, and the hours per day
    /// from which it pays back too.
    pub fn words(&self, c: &CostReport) -> String {
        let least = if c.hardware_complete { "" } else { "at least " };
        let years = c.amortization_months / 12.0;
        match self {
            // Owned parts at $0 beside unpriced ones: the hardware is a lower bound, so "at once"
            // would rest on parts nobody priced.
            BreakEven::AtLeast { months, unpriced_at_most_usd } if *months <= 0.0 => format!(
                "break-even unknown: the priced parts are owned ($0) and the others have no price (owning pays back within the {years:.0} years only if they cost at most {} in all)",
                crate::fmt::usd(*unpriced_at_most_usd)
            ),
            BreakEven::After { months } if *months <= 0.0 => {
                "break-even at once: the hardware costs $0 (owned) and renting costs more than its electricity"
                    .to_owned()
            }
            BreakEven::After { months } => format!("break-even after {months:.1} months against {}", c.cloud.renting()),
            BreakEven::AtLeast { months, unpriced_at_most_usd } => format!(
                "break-even after at least {months:.1} months against {} (a lower bound: no price for {}; within the {years:.0} years only if those cost at most {} in all)",
                c.cloud.renting(),
                c.missing_prices.join(", "),
                crate::fmt::usd(*unpriced_at_most_usd)
            ),
            BreakEven::CloudCheaperAtThisUse { hours_per_day, from_hours_per_day } => format!(
                "no break-even at {hours_per_day:.1} h/day: the rig costs {least}${:.2} per working hour (hardware over {years:.0} years and electricity) against {}; owning pays back within the {years:.0} years from {least}{from_hours_per_day:.1} h/day",
                c.usd_per_working_hour,
                c.cloud.against()
            ),
            BreakEven::CloudCheaperAtAnyUse => format!(
                "no break-even: the cloud is cheaper at any hours per day (even at 24 h/day the rig costs {least}${:.2} per working hour, hardware over {years:.0} years and electricity, against {})",
                c.usd_per_working_hour_at_full_use,
                c.cloud.against()
            ),
            BreakEven::NotApplicable { why } => format!("no break-even: {why}"),
            BreakEven::Unknown { why } => format!("break-even unknown ({why})"),
        }
    }
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
    /// ([`LOWER_BOUNDS_WHEN_UNPRICED`]) where they are given (not `None`). The electricity
    /// figures and the cloud offer's own figures (`usd_per_million_tokens`,
    /// `usd_per_rig_working_hour`) do not depend on the hardware and are never listed; a
    /// `cloud.break_even_months` of `None` (the cloud cheaper, [`CloudComparison::break_even`])
    /// stays so whatever the hardware left out costs (more hardware only costs more).
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
    /// Total cost per working hour: a month's hardware (written off over the write-off) and
    /// electricity (idle hours included) over its working hours, USD.
    pub usd_per_working_hour: f64,
    /// The rig's USD per million tokens generated: `usd_per_working_hour` (hardware and
    /// electricity) over the rig's throughput, 1e6 × $/h / (3600 × tokens/s); `None` when the
    /// throughput is unknown. On the same-tokens basis ([`CloudBasis::SameTokens`]) owning
    /// pays back within the write-off exactly where this is at most the cloud offer's
    /// [`CloudComparison::usd_per_million_tokens`].
    pub usd_per_million_tokens: Option<f64>,
    /// The write-off, months (the hardware's share of each month is hardware / this).
    pub amortization_months: f64,
    /// Total cost per working hour were the rig used 24 hours a day, USD (the hardware's month
    /// and the load's electricity over every hour of it): the least it can cost per hour.
    pub usd_per_working_hour_at_full_use: f64,
    /// The cloud comparison.
    pub cloud: CloudComparison,
}

/// The figures of a [`CostReport`] that grow with the hardware and so are lower bounds while a
/// part is unpriced: the hardware sum, its write-off per hour, the month, the working hour, the
/// $ per million tokens (the working hour over a known throughput) and the break-even (the
/// hardware over a saving that does not depend on it: `cloud.break_even_months` and the
/// `months` of [`BreakEven::AtLeast`]).
pub const LOWER_BOUNDS_WHEN_UNPRICED: [&str; 9] = [
    "hardware_usd",
    "amortization_usd_per_hour",
    "usd_per_month",
    "usd_per_working_hour",
    "usd_per_working_hour_at_full_use",
    "usd_per_million_tokens",
    "cloud.break_even_months",
    "cloud.break_even.months",
    "cloud.break_even.from_hours_per_day",
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

    // Renting the rig's work: where both throughputs are known, the offer's $ per million
    // tokens for the tokens the rig makes in a working hour (the offer may make them in more or
    // fewer hours); else the offer's $ per hour for each of the rig's working hours. The rig's
    // $ per million tokens against the offer's and the break-even then say the same.
    let positive = |v: Option<f64>| v.filter(|v| v.is_finite() && *v > 0.0);
    let (cloud_per_rig_hour, basis) = match (positive(input.tokens_per_s), positive(input.cloud.tokens_per_s)) {
        (Some(own), Some(theirs)) => (input.cloud.usd_per_hour * own / theirs, CloudBasis::SameTokens),
        _ => (input.cloud.usd_per_hour, CloudBasis::SameHours),
    };
    let cloud_month = cloud_per_rig_hour * working_hours_per_month;
    let saving = cloud_month - energy_usd_per_month;
    let hardware_complete = missing_prices.is_empty();
    let amortization_months = input.amortization_years * 12.0;
    let usd_per_working_hour_at_full_use = hardware_per_month / HOURS_PER_MONTH + energy_usd_per_working_hour;
    let any_priced = parts.iter().any(|p| p.line_usd.is_some());
    let break_even = break_even(
        input,
        cloud_per_rig_hour,
        (hardware_per_month, any_priced, hardware_complete),
        (usd_per_working_hour, usd_per_working_hour_at_full_use),
        (hardware_usd, saving, amortization_months),
    );
    let break_even_months = match break_even {
        BreakEven::After { months } | BreakEven::AtLeast { months, .. } => Some(months),
        _ => None,
    };
    let cloud = CloudComparison {
        name: input.cloud.name.clone(),
        usd_per_hour: input.cloud.usd_per_hour,
        usd_per_million_tokens: input
            .cloud
            .tokens_per_s
            .and_then(|t| usd_per_million_tokens(input.cloud.usd_per_hour, t)),
        usd_per_rig_working_hour: cloud_per_rig_hour,
        basis,
        break_even_months,
        break_even,
    };

    // A figure that is not there (`None`) bounds nothing: only those given are named.
    let lower_bounds = if hardware_complete {
        Vec::new()
    } else {
        LOWER_BOUNDS_WHEN_UNPRICED
            .into_iter()
            .filter(|f| match *f {
                "usd_per_million_tokens" => usd_per_mtok.is_some(),
                "cloud.break_even_months" => cloud.break_even_months.is_some(),
                "cloud.break_even.months" => matches!(cloud.break_even, BreakEven::AtLeast { .. }),
                "cloud.break_even.from_hours_per_day" => {
                    matches!(cloud.break_even, BreakEven::CloudCheaperAtThisUse { .. })
                }
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
        amortization_months,
        usd_per_working_hour_at_full_use,
        cloud,
    })
}

/// The [`BreakEven`] of `input` against `cloud`, what renting costs for one working hour of the
/// rig's work ([`CloudComparison::usd_per_rig_working_hour`]): not applicable where the cloud
/// offer does not run the workload; the cloud cheaper at any use where the rig costs more per
/// working hour than that even at 24 h/day (or its load electricity alone does); cheaper at
/// this use where it does at the site's duty cycle (with the hours per day from which owning
/// pays back); else after `hardware / saving` months, at least that many where a part is
/// unpriced ([`BreakEven::AtLeast`]). Unknown where no part has a price and the electricity
/// alone does not decide.
fn break_even(
    input: &CostInput,
    cloud: f64,
    (hardware_per_month, any_priced, hardware_complete): (f64, bool, bool),
    (per_working_hour, per_working_hour_at_full_use): (f64, f64),
    (hardware_usd, saving, amortization_months): (f64, f64, f64),
) -> BreakEven {
    if input.cloud.runs_workload == Some(false) {
        return BreakEven::NotApplicable {
            why: format!(
                "the workload does not fit one {} (the cloud offer), so renting it replaces nothing",
                input.cloud.name
            ),
        };
    }
    // Unpriced parts make the hardware, and so each $ per hour, a lower bound: a lower bound
    // above the cloud's rate is above it.
    if per_working_hour_at_full_use > cloud {
        return BreakEven::CloudCheaperAtAnyUse;
    }
    if per_working_hour > cloud || saving <= 0.0 {
        // The rig's $ per working hour at utilization u is a/u + b (a: the hardware's month over
        // its hours plus the idle electricity per hour; b: load less idle electricity per hour),
        // at most the cloud's from u = a / (cloud - b).
        let kw_usd = |w: f64| w / 1000.0 * input.electricity_usd_per_kwh;
        let a = hardware_per_month / HOURS_PER_MONTH + kw_usd(input.idle_power_w);
        let b = kw_usd(input.load_power_w) - kw_usd(input.idle_power_w);
        let from = if cloud - b > 0.0 { a / (cloud - b) } else { 1.0 };
        return BreakEven::CloudCheaperAtThisUse {
            hours_per_day: input.utilization * 24.0,
            from_hours_per_day: (from * 24.0).min(24.0),
        };
    }
    if !any_priced {
        return BreakEven::Unknown { why: "no hardware prices".to_owned() };
    }
    // At most the write-off: the rig's $ per working hour is at most the rent for its work.
    let months = hardware_usd / saving;
    debug_assert!(months <= amortization_months * (1.0 + 1e-9));
    if hardware_complete {
        BreakEven::After { months }
    } else {
        // The unpriced parts add to the hardware: the months are a lower bound, and the payback
        // stays within the write-off only while they cost at most the rest of its saving.
        BreakEven::AtLeast { months, unpriced_at_most_usd: (saving * amortization_months - hardware_usd).max(0.0) }
    }
}

#[cfg(test)]
mod tests;

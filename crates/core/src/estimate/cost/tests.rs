//! Unit tests of the cost estimate ([`super::estimate`]) and its break-even.

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
    // All but the hours per day from which owning pays back: it does at this use.
    let want: Vec<&str> =
        LOWER_BOUNDS_WHEN_UNPRICED.into_iter().filter(|f| *f != "cloud.break_even.from_hours_per_day").collect();
    assert_eq!(r.lower_bounds, want);
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

/// A cloud offer five times as fast as the rig: renting one for the rig's hours would buy
/// five times its tokens, so the break-even holds the rig against the same tokens. The rig
/// ($3,198 over 3 years and 1 kW at $0.30, 20 tok/s) costs $5.86 per million tokens, the
/// offer ($1.60/h, 100 tok/s) $4.44: no break-even, where the same hours gave 3.4 months.
#[test]
fn the_break_even_holds_the_rig_against_the_same_tokens_where_both_speeds_are_known() {
    let mut i = input();
    i.parts.truncate(1);
    i.cloud.tokens_per_s = Some(100.0);
    let r = estimate(&i).expect("valid");
    assert_eq!(r.cloud.basis, CloudBasis::SameTokens);
    assert!((r.cloud.usd_per_rig_working_hour - 1.60 * 20.0 / 100.0).abs() < 1e-12);
    let own = r.usd_per_million_tokens.expect("rig throughput given");
    let cloud = r.cloud.usd_per_million_tokens.expect("offer throughput given");
    assert!((own - 5.86).abs() < 0.01 && (cloud - 4.44).abs() < 0.01, "{own} {cloud}");
    assert_eq!(r.cloud.break_even, BreakEven::CloudCheaperAtAnyUse);
    assert_eq!(r.cloud.break_even_months, None);
    let words = r.cloud.break_even.words(&r);
    assert!(words.ends_with("against $0.32 per working hour for the cloud to make the same tokens)"), "{words}");
    // Whatever the offer's speed, a break-even exactly where the rig's $ per million tokens
    // is at most the offer's.
    for theirs in [5.0, 10.0, 20.0, 40.0, 60.0, 75.0, 80.0, 100.0, 400.0] {
        i.cloud.tokens_per_s = Some(theirs);
        let r = estimate(&i).expect("valid");
        let own = r.usd_per_million_tokens.expect("rig");
        let cloud = r.cloud.usd_per_million_tokens.expect("offer");
        assert_eq!(r.cloud.break_even_months.is_some(), own <= cloud, "{theirs} tok/s: {own} against {cloud}");
    }
    // The offer's speed unknown: renting it for the rig's hours, as before.
    i.cloud.tokens_per_s = None;
    let r = estimate(&i).expect("valid");
    assert_eq!(r.cloud.basis, CloudBasis::SameHours);
    assert!((r.cloud.usd_per_rig_working_hour - 1.60).abs() < 1e-12);
    let months = r.cloud.break_even_months.expect("the same hours");
    assert!((months - 3198.0 / (1.30 * 730.5)).abs() < 1e-9, "{months}");
    assert!(r.cloud.break_even.words(&r).ends_with("against renting it for the rig's working hours"));
}

/// Over an unpriced board the payback is a lower bound, and it stays within the write-off
/// only while the board costs at most the rest of the saving: $1.30 × 730.5 h × 36 − $3,198.
#[test]
fn a_payback_over_unpriced_parts_is_at_least_and_says_how_much_they_may_cost() {
    let r = estimate(&input()).expect("valid");
    let BreakEven::AtLeast { months, unpriced_at_most_usd } = r.cloud.break_even else {
        panic!("{:?}", r.cloud.break_even)
    };
    assert!((months - 3198.0 / (1.30 * 730.5)).abs() < 1e-9, "{months}");
    assert!((unpriced_at_most_usd - (1.30 * 730.5 * 36.0 - 3198.0)).abs() < 1e-6, "{unpriced_at_most_usd}");
    assert_eq!(r.cloud.break_even_months, Some(months));
    assert!(r.lower_bounds.contains(&"cloud.break_even_months") && r.lower_bounds.contains(&"cloud.break_even.months"));
    assert_eq!(
        r.cloud.break_even.words(&r),
        "break-even after at least 3.4 months against renting it for the rig's working hours (a lower bound: no price for board; within the 3 years only if those cost at most $30,989 in all)"
    );
    assert_eq!(
        r.cloud.break_even.short(true),
        "after at least 3.4 months (within the write-off only if the unpriced parts cost at most $30,989 in all)"
    );
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

/// A payback past the write-off is no break-even: with the cloud at $0.40/h the rig costs
/// $0.42 per working hour even at 24 h/day ($3,198 over 3 years and 1 kW at $0.30), and
/// `hardware / saving` (43.8 months, what was printed as the break-even before) is past
/// the 36 months.
#[test]
fn the_cloud_is_cheaper_at_any_use_when_the_rig_costs_more_per_hour_at_24_h() {
    let mut i = input();
    i.parts.truncate(1);
    i.cloud.usd_per_hour = 0.40;
    let r = estimate(&i).expect("valid");
    assert!((r.usd_per_working_hour_at_full_use - (3198.0 / (3.0 * 8766.0) + 0.30)).abs() < 1e-9);
    assert_eq!(r.cloud.break_even, BreakEven::CloudCheaperAtAnyUse);
    assert_eq!(r.cloud.break_even_months, None);
    assert!(r.cloud.break_even.words(&r).starts_with("no break-even: the cloud is cheaper at any hours per day"));
}

/// At 6 h/day (utilization 0.25, 100 W idle) the rig costs $0.88 per working hour against a
/// cloud at $0.70/h: no break-even at this use; owning pays back within the write-off from
/// `24 a / (0.70 - b)` h/day with a = $88.83/730.5 h + $0.03 idle, b = $0.30 - $0.03:
/// 8.46 h/day, where the rig's $ per working hour is the cloud's.
#[test]
fn the_cloud_is_cheaper_at_this_use_and_owning_pays_back_from_more_hours_a_day() {
    let mut i = input();
    i.parts.truncate(1);
    i.utilization = 0.25;
    i.idle_power_w = 100.0;
    i.cloud.usd_per_hour = 0.70;
    let r = estimate(&i).expect("valid");
    assert!(r.usd_per_working_hour > 0.70, "{}", r.usd_per_working_hour);
    let BreakEven::CloudCheaperAtThisUse { hours_per_day, from_hours_per_day } = r.cloud.break_even else {
        panic!("{:?}", r.cloud.break_even)
    };
    assert!((hours_per_day - 6.0).abs() < 1e-9);
    let a = 3198.0 / 36.0 / HOURS_PER_MONTH + 0.03;
    assert!((from_hours_per_day - 24.0 * a / (0.70 - 0.27)).abs() < 1e-9, "{from_hours_per_day}");
    assert!((from_hours_per_day - 8.46).abs() < 0.01, "{from_hours_per_day}");
    // At that many hours the rig costs the cloud's $/h, and owning pays back in 36 months.
    i.utilization = from_hours_per_day / 24.0;
    let at = estimate(&i).expect("valid");
    assert!((at.usd_per_working_hour - 0.70).abs() < 1e-9, "{}", at.usd_per_working_hour);
    assert_eq!(r.cloud.break_even_months, None);
}

/// An offer that does not run the workload has no break-even; hardware all owned ($0)
/// breaks even at once.
#[test]
fn no_break_even_against_an_offer_that_does_not_run_it_and_at_once_when_owned() {
    let mut i = input();
    i.cloud.runs_workload = Some(false);
    let r = estimate(&i).expect("valid");
    assert!(matches!(r.cloud.break_even, BreakEven::NotApplicable { .. }), "{:?}", r.cloud.break_even);
    assert_eq!(r.cloud.break_even_months, None);
    assert!(!r.lower_bounds.contains(&"cloud.break_even_months"));
    let mut owned = input();
    owned.parts = vec![PricedPart::new("gpu", "GPU", 2, Some(0.0))];
    let r = estimate(&owned).expect("valid");
    assert_eq!(r.cloud.break_even, BreakEven::After { months: 0.0 });
    assert!(r.cloud.break_even.words(&r).starts_with("break-even at once"), "{}", r.cloud.break_even.words(&r));
    // Owned GPUs at $0 beside an unpriced board: not "at once", which would rest on a part
    // nobody priced.
    let mut partly = input();
    partly.parts = vec![PricedPart::new("gpu", "GPU", 2, Some(0.0)), PricedPart::new("board", "Board", 1, None)];
    let r = estimate(&partly).expect("valid");
    assert!(!r.hardware_complete);
    assert!(r.cloud.break_even.words(&r).starts_with("break-even unknown"), "{}", r.cloud.break_even.words(&r));
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

//! One figure per fact across the faces (issue 39, item 3): every reference build's electricity
//! per month is the same in `check`/`power` (the report's power estimate, which the Power tab
//! shows) and in the fit's cost, and its hardware total is the parts list's (`prices`,
//! `compare`, the Parts tab), its unpriced parts (bridges and risers included) the list's.

use crate::support;
use kraftwerk_core::check;
use kraftwerk_core::estimate::fit::{self, FitOptions};
use kraftwerk_core::rig::parts_list::PartsList;

#[test]
fn electricity_and_hardware_are_one_figure_in_check_fit_and_prices() {
    let c = support::catalog();
    let mut compared = 0;
    let mut extras = 0;
    for path in support::reference_build_paths() {
        let b = kraftwerk_core::rig::load(&path, Some(&c)).expect("reference build loads");
        let Ok(f) = fit::for_build(&b, &c, &FitOptions::default()) else { continue };
        let Some(cost) = f.cost else { continue };
        let report = check::run(&b, &c);
        let month = report.power.cost.as_ref().expect("a fit cost has a known wall draw").per_month_usd;
        assert!(
            (month - cost.energy_usd_per_month).abs() < 0.01,
            "{}: check/power say ${month:.2}/month, the fit's cost ${:.2}",
            path.display(),
            cost.energy_usd_per_month
        );
        let list = PartsList::of(&b, &c);
        assert!(
            (list.total_usd - cost.hardware_usd).abs() < 0.01,
            "{}: prices ${:.2}, fit ${:.2}",
            path.display(),
            list.total_usd,
            cost.hardware_usd
        );
        // The unpriced parts too: the fit names each unpriced line of the list, bridges and
        // risers (no catalog entry, so no id: their name) included, and says "at least" (not
        // complete) exactly when the list does.
        let mut unpriced: Vec<String> = list
            .rows
            .iter()
            .filter(|r| r.line_usd.is_none())
            .map(|r| if r.line.id.is_empty() { r.line.name.clone() } else { r.line.id.clone() })
            .collect();
        unpriced.sort();
        unpriced.dedup();
        let mut missing = cost.missing_prices.clone();
        missing.sort();
        assert_eq!(missing, unpriced, "{}: the fit's unpriced parts against the list's", path.display());
        assert_eq!(cost.hardware_complete, list.unpriced_lines == 0, "{}", path.display());
        if list.rows.iter().any(|r| r.kind.is_none()) {
            extras += 1;
        }
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} reference builds have a cost");
    assert!(extras >= 1, "a reference build with an NVLink bridge or riser has a cost");
}

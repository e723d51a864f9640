//! Regressions: faults new users hit in the CLI, the checker, the fit, the planner and the
//! comparison, each held by a test that was seen failing before its fix, grouped by area.

mod check_findings;
mod cli_lists_money;
mod fit_plan_compare;
mod owned_chip;
mod plan_fit_setting;

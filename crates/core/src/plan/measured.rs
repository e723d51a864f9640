//! `kraftwerk plan --measured FILE`: the planner's builds on the GPUs the
//! user owns and measured, calibrated to that measurement.
//!
//! The file is read and compared exactly as `kraftwerk fit --measured` reads and compares it
//! ([`crate::estimate::calibrate`]): a build whose GPUs are the measured chip, at the measured
//! count, on the measured runtime (llama-bench: llama.cpp; `vllm bench serve`: vLLM) and, for
//! llama-bench, at the measured quantization gets its decode (and prefill, where a prompt test
//! was measured) scaled by measured ÷ estimated for the same tests on that build. Context, batch
//! and user count may differ from the measurement's: the ratio scales them, as `fit --measured`
//! scales the machine's other estimates. Every other build keeps its estimate and says why it
//! is not the user's measurement. The search itself screens on the estimates; a calibrated
//! build that then falls under the goal's decode target says so ([`MeasuredSpeed::below_target`]).

use super::estimate::fit_options;
use super::goal::Goal;
use super::model::{Model, resolve_model};
use super::{PlanError, PlanOutcome, PlanResult};
use crate::estimate::calibrate::{self, Calibration, MeasuredFile, chip_name};
use crate::estimate::llm::measured::check_gpu_names;
use crate::workload::Runtime;
use kraftwerk_catalog::Catalog;
use serde::Serialize;

/// What a planned build's speed rests on when the user gave a measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredSpeed {
    /// Whether the build's decode/prefill figures are scaled to the measurement.
    pub calibrated: bool,
    /// In words: `calibrated to your measurement (FILE: tg128 measured 119.9 tok/s vs estimate
    /// 101.2, ratio 1.18; ...)` or `estimate (not your measurement): <why>`.
    pub basis: String,
    /// The comparison and its ratios, for a build of the measured GPUs.
    pub calibration: Option<Calibration>,
    /// The uncalibrated decode per user, tokens/s (what the estimate alone says).
    pub estimated_decode_per_user: Option<f64>,
    /// The uncalibrated aggregate decode, tokens/s.
    pub estimated_decode_total: Option<f64>,
    /// The uncalibrated prefill, tokens/s.
    pub estimated_prefill: Option<f64>,
    /// Set when the calibrated decode per user is under the goal's target: the search screened
    /// on the estimate, the measurement says this build is slower than the goal.
    pub below_target: Option<String>,
}

/// Checks the measurement against the goal before the search: it must name the GPU it was
/// measured on (a `vllm bench serve` file names none unless the run stored `--metadata
/// gpu=...`: then `--measured-gpu` must), and a must-have GPU (the card the user owns) must be
/// that chip.
///
/// # Errors
/// [`PlanError::BadGoal`] naming the file and both GPUs, or saying why a GPU is needed.
pub fn check(catalog: &Catalog, goal: &Goal, m: &MeasuredFile) -> Result<(), PlanError> {
    let bad = |s: String| PlanError::BadGoal(s);
    let Some((chip, _)) = m.measured_chip(catalog).map_err(bad)? else {
        return Err(bad(format!(
            "{}: the file names no GPU ({} writes none unless run with --metadata gpu=...): give --measured-gpu \
             <GPU id> for the GPU it was measured on; without it a file from another machine would silently \
             \"correct\" the wrong GPUs",
            m.file,
            m.measurement.source()
        )));
    };
    let model = resolve_model(catalog, &goal.model).map_err(PlanError::BadGoal)?;
    calibrate::check_model(&m.measurement, model.llm()).map_err(|e| bad(format!("{}: {e}", m.file)))?;
    for id in goal.must_have.iter().chain(goal.owned.iter().map(|o| &o.id)) {
        if let Some(owned) = chip_name(catalog, id) {
            check_gpu_names(std::slice::from_ref(&chip), std::slice::from_ref(&owned))
                .map_err(|e| bad(format!("{}: {e} (the GPU you own: --must-have {id})", m.file)))?;
        }
    }
    Ok(())
}

/// Calibrates each result of `out` to the measurement (see the module docs) and marks the
/// others "estimate (not your measurement)". Call after [`super::plan`] on the same catalog
/// and goal, after [`check`].
///
/// # Errors
/// [`PlanError::BadGoal`] when the measurement is refused for a build of the measured GPUs
/// (another model than the goal's, both named).
pub fn apply(out: &mut PlanOutcome, catalog: &Catalog, goal: &Goal, m: &MeasuredFile) -> Result<(), PlanError> {
    let model = resolve_model(catalog, &goal.model).map_err(PlanError::BadGoal)?;
    let runtime = goal.runtime.filter(|_| !goal.is_training());
    for r in &mut out.results {
        r.measured = Some(one(r, catalog, goal, &model, runtime, m)?);
    }
    Ok(())
}

fn one(
    r: &mut PlanResult,
    catalog: &Catalog,
    goal: &Goal,
    model: &Model,
    runtime: Option<Runtime>,
    m: &MeasuredFile,
) -> Result<MeasuredSpeed, PlanError> {
    let e = &mut r.eval;
    let mut speed = MeasuredSpeed {
        calibrated: false,
        basis: String::new(),
        calibration: None,
        estimated_decode_per_user: e.decode_per_user,
        estimated_decode_total: e.decode_total,
        estimated_prefill: e.prefill,
        below_target: None,
    };
    let not = |why: String| format!("estimate (not your measurement): {why}");
    let precision = r.precision;
    let why = if e.hybrid.is_some() {
        Some("a CPU+GPU split with experts in system RAM; the measurement ran on the GPUs alone".to_owned())
    } else {
        let rt = runtime.unwrap_or_else(|| Runtime::default_for(precision));
        calibrate::not_covered(m, catalog, &r.build, rt, precision).map_err(PlanError::BadGoal)?
    };
    if let Some(why) = why {
        speed.basis = not(why);
        return Ok(speed);
    }
    let opts = fit_options(&r.build, model, goal);
    // The measurement ran on the user's machine at its cards' default limits (a llama-bench or
    // `vllm bench serve` file records no power limit), not at a cap this plan chose: the ratio
    // is taken against the build at its default limits and then applied to the plan's figures,
    // which stay at the cap.
    let mut at_default = r.build.clone();
    for g in &mut at_default.gpus {
        g.power_limit_w = None;
    }
    let cal = calibrate::calibrate(m, &at_default, catalog, &opts)
        .map_err(|e| PlanError::BadGoal(format!("{}: {e}", m.file)))?;
    if cal.decode_factor.is_none() && cal.prefill_factor.is_none() {
        speed.basis = not(format!("no test of {} has a known estimate on this build", m.file));
        speed.calibration = Some(cal);
        return Ok(speed);
    }
    if let Some(d) = e.decode_per_user {
        e.decode_per_user = cal.scale_decode(d).or(Some(d));
    }
    if let Some(d) = e.decode_total {
        e.decode_total = cal.scale_decode(d).or(Some(d));
    }
    if let Some(p) = e.prefill {
        e.prefill = cal.scale_prefill(p).or(Some(p));
    }
    speed.calibrated = true;
    speed.basis = format!("calibrated to your measurement ({}: {})", m.file, cal.summary());
    if let (Some(d), false) = (e.decode_per_user, goal.is_training())
        && goal.tok_s > 0.0
        && d < goal.tok_s
    {
        speed.below_target = Some(format!(
            "calibrated decode {d:.1} tok/s per user is under the goal's {} tok/s (the search screened on the estimate)",
            goal.tok_s
        ));
    }
    if let (Some(t), Some(p)) = (goal.prefill_tok_s, e.prefill)
        && cal.prefill_factor.is_some()
        && p < t
    {
        let more = format!("calibrated prefill {p:.0} tok/s is under the goal's {t} tok/s");
        speed.below_target = Some(match speed.below_target.take() {
            Some(s) => format!("{s}; {more}"),
            None => more,
        });
    }
    speed.calibration = Some(cal);
    Ok(speed)
}

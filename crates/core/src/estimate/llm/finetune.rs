//! Fine-tune duration from FLOPs per token, the GPUs' dense peaks and an MFU.

use super::calibration::DEFAULT_MFU;
use super::inputs::{FitInput, GpuSlot, Mode};
use super::report::{FineTuneEstimate, FitError};
use super::shape::compute_peak_tflops;
use super::validate;

/// Fine-tune time for `training_tokens` (dataset tokens × epochs) on the GPUs `input` uses:
/// FLOPs (see [`FineTuneEstimate::flops_per_token`]) over the GPUs' dense BF16 peaks × `mfu`
/// (default [`DEFAULT_MFU`]).
pub fn fine_tune_time(
    input: &FitInput,
    gpus: &[GpuSlot],
    training_tokens: f64,
    mfu: Option<f64>,
) -> Result<FineTuneEstimate, FitError> {
    validate(input, gpus)?;
    if !input.mode.is_training() {
        return Err(FitError::InvalidInput("fine-tune time needs a training mode".into()));
    }
    if !(training_tokens.is_finite() && training_tokens > 0.0) {
        return Err(FitError::InvalidInput("training tokens must be positive".into()));
    }
    let mfu = mfu.unwrap_or(DEFAULT_MFU);
    if !(mfu.is_finite() && mfu > 0.0 && mfu <= 1.0) {
        return Err(FitError::InvalidInput(format!("MFU {mfu} (0-1]")));
    }
    let used = &gpus[..input.parallelism.degree() as usize];
    let runtime = input.resolved_runtime();
    let mut peak = 0.0;
    for s in used {
        let (p, _) = compute_peak_tflops(&s.gpu, input.weight_precision, runtime, true)
            .ok_or_else(|| FitError::Unsupported(format!("GPU `{}` publishes no BF16/FP16 tensor rate", s.gpu.id)))?;
        peak += p;
    }
    let active = input.model.active_b() * 1e9;
    let passes = match input.mode {
        Mode::FullFineTune => 6.0,
        _ => 4.0,
    } + if input.gradient_checkpointing { 2.0 } else { 0.0 };
    let flops_per_token = passes * active;
    let total_flops = flops_per_token * training_tokens;
    let achievable = peak * mfu;
    Ok(FineTuneEstimate {
        tokens: training_tokens,
        flops_per_token,
        total_flops,
        mfu,
        peak_tflops: peak,
        achievable_tflops: achievable,
        hours: total_flops / (achievable * 1e12) / 3600.0,
    })
}

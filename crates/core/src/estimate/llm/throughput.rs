//! Throughput at batch: a batch of `batch` requests of `input_tokens` prompt and
//! `output_tokens` generated tokens, served together (static batching, as the serving
//! projects' offline throughput tables run them).
//!
//! The prompts are prefilled first (the prefill rate at the prompt length, short prompts packed
//! together into the runtime's prompt chunk as continuous / in-flight batching packs them, so
//! the weights stream once per chunk, not once per prompt); then every decode step reads the weights once and each
//! sequence's live KV cache at the average context over the generation (`input + output / 2`,
//! not the maximum), against the compute of `batch` tokens: the step is the roofline maximum
//! of the two ([`super::estimate`]'s decode step at that context and batch).

use super::inputs::{FitInput, GpuSlot, Parallelism};
use super::{FitError, estimate};
use serde::Serialize;

/// Output throughput of a batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchThroughput {
    /// Generated tokens per second over the whole run (prefill included), all GPUs.
    pub output_tokens_per_s: f64,
    /// The same per GPU used.
    pub output_tokens_per_s_per_gpu: f64,
    /// Time to prefill every prompt, s.
    pub prefill_s: f64,
    /// One decode step at the average context, s.
    pub decode_step_s: f64,
    /// GPUs used.
    pub gpus: u32,
}

/// Throughput of `batch` requests (`input`'s batch) of `input_tokens` in and `output_tokens`
/// out on `gpus` (speed only: the memory verdict is [`estimate`]'s business).
///
/// # Errors
/// [`FitError`] as [`estimate`]; `input_tokens` or `output_tokens` of 0 is invalid, and a GPU
/// with no tensor rate for the precision gives no prefill, hence
/// [`FitError::Unsupported`].
pub fn batch_throughput(
    input: &FitInput,
    gpus: &[GpuSlot],
    input_tokens: u32,
    output_tokens: u32,
) -> Result<BatchThroughput, FitError> {
    if input_tokens == 0 || output_tokens == 0 {
        return Err(FitError::InvalidInput("input and output lengths must be at least 1 token".into()));
    }
    let mut prefill = input.clone();
    prefill.context_tokens = input_tokens;
    // Data-parallel replicas each pack their share of the prompts.
    prefill.batch = match input.parallelism {
        Parallelism::DataParallel(n) => input.batch.div_ceil(n).max(1),
        _ => input.batch,
    };
    let p = estimate(&prefill, gpus)?;
    // The prompts packed into the runtime's chunk (pipeline stages take up to `pp` packs at
    // once, bounded by the slowest stage).
    let Some(rate) = p.speed.as_ref().and_then(|s| s.prefill_packed_tokens_per_s) else {
        return Err(FitError::Unsupported("no tensor rate published for this precision: no prefill".into()));
    };
    let mut decode = input.clone();
    decode.context_tokens = input_tokens + output_tokens / 2;
    let d = estimate(&decode, gpus)?;
    let speed = d.speed.ok_or_else(|| FitError::InvalidInput("throughput needs inference".into()))?;
    let batch = f64::from(input.batch);
    // Data-parallel replicas prefill their share of the prompts at the same time.
    let replicas = match input.parallelism {
        Parallelism::DataParallel(n) => f64::from(n),
        _ => 1.0,
    };
    let prefill_s = batch * f64::from(input_tokens) / rate / replicas;
    let decode_step_s = batch / speed.decode_batch_tokens_per_s;
    let total = prefill_s + f64::from(output_tokens) * decode_step_s;
    let out = batch * f64::from(output_tokens) / total;
    let n = input.parallelism.degree().max(1);
    Ok(BatchThroughput {
        output_tokens_per_s: out,
        output_tokens_per_s_per_gpu: out / f64::from(n),
        prefill_s,
        decode_step_s,
        gpus: n,
    })
}

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
//!
//! [`closed_loop_throughput`] is the online serving benchmarks' figure instead: `N` requests at
//! most `C` in flight (vLLM's `benchmark_serving.py`, SGLang's `bench_serving.py`), total output
//! tokens over the run's duration, with the prefill of every request and the run's tail, from
//! the same per-step decode time at each batch and the same packed prefill rate.

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

/// Lengths of a serving benchmark's prompts or outputs, tokens: uniform over `min..=max` (one
/// length when the two are equal), as the `random` datasets of vLLM's `benchmark_serving.py`
/// and SGLang's `bench_serving.py` draw them (`--random-input-len L --random-range-ratio r`:
/// SGLang v0.5 and InferenceX's copy of vLLM's script draw `randint(int(L·r), L + 1)`, so
/// `r = 1` gives every request `L`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TokenSpan {
    /// Shortest, tokens (at least 1).
    pub min: u32,
    /// Longest, tokens (at least `min`).
    pub max: u32,
}

impl TokenSpan {
    /// Every request `tokens` long.
    #[must_use]
    pub const fn fixed(tokens: u32) -> Self {
        Self { min: tokens, max: tokens }
    }

    /// Mean length, tokens.
    #[must_use]
    pub fn mean(self) -> f64 {
        f64::midpoint(f64::from(self.min), f64::from(self.max))
    }

    /// The length of request `i` of `n`: the uniform span's quantile at the `i`-th point of the
    /// golden-ratio sequence (evenly spread over the span, in no sorted order, the same on every
    /// call: the benchmarks' own random draws are not reproducible here, their distribution is).
    /// Input and output lengths of request `i` come from the same point, so with equal spans
    /// they are correlated where the benchmarks draw them independently: the marginals match,
    /// the pairing does not.
    fn nth(self, i: u32) -> u32 {
        if self.max <= self.min {
            return self.min;
        }
        let q = (f64::from(i + 1) * 0.618_033_988_749_894_9).fract();
        let width = f64::from(self.max - self.min + 1);
        // q < 1, so the offset is below the width; `min` keeps it in the span.
        let offset = (q * width).floor().clamp(0.0, width - 1.0);
        self.min + offset as u32
    }
}

/// A closed-loop serving benchmark (vLLM's `benchmark_serving.py`, SGLang's `bench_serving.py`,
/// both with `--request-rate inf --max-concurrency C`): `requests` requests, of which the client
/// keeps `concurrency` in flight, sending the next one as soon as one completes; each prompt of
/// `input` tokens generates exactly `output` tokens (`--ignore-eos`: SGLang's `bench_serving` default, passed explicitly by InferenceX; vLLM's `benchmark_serving.py` leaves it off, so a vLLM run's outputs may stop early).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClosedLoopRun {
    /// Requests in the run (`--num-prompts`).
    pub requests: u32,
    /// Requests in flight at most (`--max-concurrency`).
    pub concurrency: u32,
    /// Prompt lengths, tokens.
    pub input: TokenSpan,
    /// Generated lengths, tokens.
    pub output: TokenSpan,
}

/// The whole-run figures of a [`ClosedLoopRun`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClosedLoopThroughput {
    /// Generated tokens over the run's duration (first request sent to last token received),
    /// all GPUs: the benchmarks' "output token throughput", prefill and the ramp-down included.
    pub output_tokens_per_s: f64,
    /// The run's duration on the GPUs, s (no network, HTTP or tokenizer time).
    pub run_s: f64,
    /// Of it, prefill, s.
    pub prefill_s: f64,
    /// Of it, decode steps, s.
    pub decode_s: f64,
    /// Mean sequences per decode step (time-weighted): `concurrency` when the run is all full
    /// batches, less in its tail.
    pub mean_decode_batch: f64,
    /// Steady decode at `concurrency` sequences (every step full, no prefill): the aggregate
    /// rate [`super::estimate`] gives at that batch, for comparison, tok/s.
    pub steady_decode_tokens_per_s: f64,
}

/// Output throughput of a closed-loop serving benchmark, `run`, of `input`'s model on `gpus`,
/// as the benchmark computes it: total generated tokens over the run's duration.
///
/// The engine is simulated step by step as vLLM's and SGLang's schedulers run such a load:
/// when requests are waiting (at the start, and each time requests complete and the client
/// sends new ones), their prompts are prefilled first, packed together at the runtime's packed
/// prefill rate ([`super::SpeedEstimate::prefill_packed_tokens_per_s`] for that many prompts at
/// the run's mean prompt length), which yields each request's first token; then every running
/// sequence decodes one token per step, the step taking the decode time of the batch then
/// running ([`super::SpeedEstimate::decode_batch_tokens_per_s`] at that batch, KV at the mean
/// position `input + output / 2`), until the next request completes. Chunked prefill splits the
/// same prompt tokens over several steps (SGLang runs a prefill batch before the decode batch;
/// vLLM puts prompt chunks into the decode steps, whose weight reads the prompt chunk then
/// shares: that saving is not counted). With equal lengths the requests run in waves of
/// `concurrency` (all finish on the same step); with spread lengths the batch thins in the run's
/// tail. Network, HTTP, tokenizer and detokenizer time, which the client's clock also counts,
/// are not modelled.
///
/// # Errors
/// [`FitError::InvalidInput`] for 0 requests or concurrency, or a span with a length of 0 or
/// `min` above `max`; [`FitError::Unsupported`] where the GPU has no tensor rate for the
/// precision (no prefill, so no run time); [`estimate`]'s errors otherwise.
pub fn closed_loop_throughput(
    input: &FitInput,
    gpus: &[GpuSlot],
    run: &ClosedLoopRun,
) -> Result<ClosedLoopThroughput, FitError> {
    if run.requests == 0 || run.concurrency == 0 {
        return Err(FitError::InvalidInput("a serving run needs at least 1 request and a concurrency of 1".into()));
    }
    for span in [run.input, run.output] {
        if span.min == 0 || span.min > span.max {
            return Err(FitError::InvalidInput(format!(
                "token span {}..={}: lengths must be at least 1 and min at most max",
                span.min, span.max
            )));
        }
    }
    let concurrency = run.concurrency.min(run.requests);
    let cap = concurrency as usize;
    // Data-parallel replicas prefill their shares of the waiting prompts at the same time
    // (`prefill_of`).
    let mean_in = run.input.mean();
    let decode_ctx = (mean_in + run.output.mean() / 2.0).round().max(1.0);
    // Per batch size (index b - 1): decode step s, and packed prefill tok/s of b prompts.
    let mut steps: Vec<Option<f64>> = vec![None; cap];
    let mut prefill_rates: Vec<Option<f64>> = vec![None; cap];
    let mut step_of = |b: usize| -> Result<f64, FitError> {
        if let Some(s) = steps[b - 1] {
            return Ok(s);
        }
        let mut d = input.clone();
        d.batch = b as u32;
        d.context_tokens = decode_ctx as u32;
        let e = estimate(&d, gpus)?;
        let rate = e.speed.ok_or_else(|| FitError::InvalidInput("throughput needs inference".into()))?;
        let s = b as f64 / rate.decode_batch_tokens_per_s;
        steps[b - 1] = Some(s);
        Ok(s)
    };
    let mut prefill_of = |b: usize| -> Result<f64, FitError> {
        if let Some(r) = prefill_rates[b - 1] {
            return Ok(r);
        }
        let mut p = input.clone();
        p.batch = match input.parallelism {
            Parallelism::DataParallel(n) => (b as u32).div_ceil(n.max(1)).max(1),
            _ => b as u32,
        };
        p.context_tokens = mean_in.round().max(1.0) as u32;
        let e = estimate(&p, gpus)?;
        let Some(rate) = e.speed.as_ref().and_then(|s| s.prefill_packed_tokens_per_s) else {
            return Err(FitError::Unsupported("no tensor rate published for this precision: no prefill".into()));
        };
        // The replicas each prefill `ceil(b / n)` of the prompts at once: the b prompts take
        // as long as the fullest replica's share (one prompt on two replicas is one replica's
        // time, not half of it).
        let per_replica = match input.parallelism {
            Parallelism::DataParallel(n) => (b as f64 / f64::from(n.max(1))).ceil().max(1.0),
            _ => b as f64,
        };
        let r = rate * b as f64 / per_replica;
        prefill_rates[b - 1] = Some(r);
        Ok(r)
    };

    let (mut prefill_s, mut decode_s, mut batch_time) = (0.0_f64, 0.0_f64, 0.0_f64);
    let (mut sent, mut generated) = (0_u32, 0.0_f64);
    // Decode steps each running request still has to take.
    let mut running: Vec<u32> = Vec::with_capacity(cap);
    loop {
        // The client tops the requests in flight up to the concurrency; the engine prefills the
        // new prompts together, each prompt's last chunk giving its first token.
        let mut new_tokens = 0.0;
        let mut new_prompts = 0_usize;
        // Requests in flight: those decoding, and this round's (a one-token request completes at
        // its prefill and frees its place only after it).
        let in_flight = running.len();
        while in_flight + new_prompts < cap && sent < run.requests {
            new_tokens += f64::from(run.input.nth(sent));
            let out = run.output.nth(sent);
            generated += f64::from(out);
            if out > 1 {
                running.push(out - 1);
            }
            new_prompts += 1;
            sent += 1;
        }
        if new_prompts > 0 {
            prefill_s += new_tokens / prefill_of(new_prompts)?;
        }
        // Decode the running batch until its first request completes.
        let Some(&k) = running.iter().min() else {
            if sent >= run.requests {
                break;
            }
            continue;
        };
        let b = running.len();
        let dt = f64::from(k) * step_of(b)?;
        decode_s += dt;
        batch_time += b as f64 * dt;
        running.retain_mut(|r| {
            *r -= k;
            *r > 0
        });
    }
    let run_s = prefill_s + decode_s;
    let steady = f64::from(concurrency) / step_of(cap)?;
    Ok(ClosedLoopThroughput {
        output_tokens_per_s: generated / run_s,
        run_s,
        prefill_s,
        decode_s,
        mean_decode_batch: if decode_s > 0.0 { batch_time / decode_s } else { 0.0 },
        steady_decode_tokens_per_s: steady,
    })
}

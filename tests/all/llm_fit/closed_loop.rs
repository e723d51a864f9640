//! The closed-loop serving benchmark's output throughput
//! ([`llm::throughput::closed_loop_throughput`]): total generated tokens over the run's
//! duration, as vLLM's `benchmark_serving.py` and SGLang's `bench_serving.py` compute it, from
//! the per-step decode time at each batch and the packed prefill rate of [`llm::estimate`].

#![allow(clippy::wildcard_imports, reason = "the helpers of the llm_fit test root")]

use super::*;
use kraftwerk::estimate::llm::throughput::{ClosedLoopRun, TokenSpan, closed_loop_throughput};

/// gpt-oss-20b MXFP4 under SGLang on one catalog H100 SXM (the setting of achatbot PR 183).
fn oss20b_h100() -> (FitInput, Vec<GpuSlot>) {
    let cat = kraftwerk::catalog::builtin().expect("catalog");
    let m = cat.model("gpt-oss-20b").expect("gpt-oss-20b").clone();
    let g = cat.gpu("nvidia-h100-sxm5-80gb").expect("H100").clone();
    (infer(m, Precision::Mxfp4, 1024, Runtime::Sglang), slots(&g, 1))
}

/// Decode step s at `b` sequences and context `ctx`, and packed prefill tok/s of `b` prompts of
/// `prompt` tokens, from [`llm::estimate`] directly.
fn parts(input: &FitInput, gpus: &[GpuSlot], batch: u32, ctx: u32, prompt: u32) -> (f64, f64) {
    let mut decode = input.clone();
    decode.batch = batch;
    decode.context_tokens = ctx;
    let speed = llm::estimate(&decode, gpus).expect("decode").speed.expect("speed");
    let step = f64::from(batch) / speed.decode_batch_tokens_per_s;
    let mut prefill = input.clone();
    prefill.batch = batch;
    prefill.context_tokens = prompt;
    let rate = llm::estimate(&prefill, gpus)
        .expect("prefill")
        .speed
        .expect("speed")
        .prefill_packed_tokens_per_s
        .expect("prefill rate");
    (step, rate)
}

/// Equal lengths run in waves of `concurrency`: 160 requests of 512 in / 1024 out at 32 are five
/// waves, each the prefill of 32 prompts packed and 1,023 decode steps of 32 (the prefill gives
/// the first token), so the output rate is 160 × 1024 over five such waves, below the steady
/// decode of 32, and every decode step runs the full batch.
#[test]
fn equal_lengths_run_in_waves_of_the_concurrency() {
    let (i, g) = oss20b_h100();
    let run =
        ClosedLoopRun { requests: 160, concurrency: 32, input: TokenSpan::fixed(512), output: TokenSpan::fixed(1024) };
    let t = closed_loop_throughput(&i, &g, &run).expect("run");
    let (step, rate) = parts(&i, &g, 32, 512 + 512, 512);
    let wave = 32.0 * 512.0 / rate + 1023.0 * step;
    let expected = 160.0 * 1024.0 / (5.0 * wave);
    println!(
        "{t:?}; expected {expected:.1} tok/s (wave {wave:.3} s, step {:.3} ms, prefill {rate:.0} tok/s)",
        step * 1e3
    );
    assert!((t.output_tokens_per_s / expected - 1.0).abs() < 1e-9, "{} vs {expected}", t.output_tokens_per_s);
    assert!((t.mean_decode_batch - 32.0).abs() < 1e-9, "{}", t.mean_decode_batch);
    assert!((t.steady_decode_tokens_per_s / (32.0 / step) - 1.0).abs() < 1e-9);
    assert!(t.output_tokens_per_s < t.steady_decode_tokens_per_s);
    assert!((t.run_s - t.prefill_s - t.decode_s).abs() < 1e-9);
}

/// A last wave of fewer requests than the concurrency decodes at its own, smaller batch: 20
/// requests at 8 are waves of 8, 8 and 4.
#[test]
fn a_partial_last_wave_decodes_at_its_own_batch() {
    let (i, g) = oss20b_h100();
    let run =
        ClosedLoopRun { requests: 20, concurrency: 8, input: TokenSpan::fixed(512), output: TokenSpan::fixed(256) };
    let t = closed_loop_throughput(&i, &g, &run).expect("run");
    let ctx = 512 + 128;
    let (s8, r8) = parts(&i, &g, 8, ctx, 512);
    let (s4, r4) = parts(&i, &g, 4, ctx, 512);
    let run_s = 2.0 * (8.0 * 512.0 / r8 + 255.0 * s8) + (4.0 * 512.0 / r4 + 255.0 * s4);
    let expected = 20.0 * 256.0 / run_s;
    let mean_batch = (2.0 * 8.0 * s8 + 4.0 * s4) / (2.0 * s8 + s4);
    println!("{t:?}; expected {expected:.1} tok/s, mean batch {mean_batch:.3}");
    assert!((t.output_tokens_per_s / expected - 1.0).abs() < 1e-9, "{} vs {expected}", t.output_tokens_per_s);
    assert!((t.mean_decode_batch / mean_batch - 1.0).abs() < 1e-9, "{}", t.mean_decode_batch);
}

/// Spread lengths (InferenceX's 819..=1024, range ratio 0.8) thin the batch as requests finish
/// one by one: with as many requests as the concurrency, the mean decode batch falls below it,
/// and so does the output rate below the steady decode; the generated total is the lengths'
/// sum (mean 921.5 each, to within the spread's rounding).
#[test]
fn spread_lengths_thin_the_batch_in_the_tail() {
    let (i, g) = oss20b_h100();
    let span = TokenSpan { min: 819, max: 1024 };
    let run = ClosedLoopRun { requests: 8, concurrency: 8, input: span, output: span };
    let t = closed_loop_throughput(&i, &g, &run).expect("run");
    println!("{t:?}");
    assert!(t.mean_decode_batch < 8.0 && t.mean_decode_batch > 4.0, "{}", t.mean_decode_batch);
    assert!(t.output_tokens_per_s < t.steady_decode_tokens_per_s);
    let generated = t.output_tokens_per_s * t.run_s;
    assert!((generated / (8.0 * span.mean()) - 1.0).abs() < 0.03, "{generated}");
}

/// No requests, no concurrency, a 0-token span or one with min above max are refused.
#[test]
fn a_run_without_requests_or_lengths_is_refused() {
    let (i, g) = oss20b_h100();
    let ok = ClosedLoopRun { requests: 4, concurrency: 4, input: TokenSpan::fixed(16), output: TokenSpan::fixed(16) };
    assert!(closed_loop_throughput(&i, &g, &ok).is_ok());
    for bad in [
        ClosedLoopRun { requests: 0, ..ok },
        ClosedLoopRun { concurrency: 0, ..ok },
        ClosedLoopRun { input: TokenSpan::fixed(0), ..ok },
        ClosedLoopRun { output: TokenSpan { min: 20, max: 10 }, ..ok },
    ] {
        assert!(closed_loop_throughput(&i, &g, &bad).is_err(), "{bad:?}");
    }
}

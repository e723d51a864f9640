//! `kraftwerk fit BUILD --model ID [--precision P] [--context N] [--batch N] [--mode M]`.

use super::check_cmd::load_build;
use super::{Format, print_json};
use crate::estimate::fit::{self, FitOptions};
use crate::estimate::llm::FitVerdict;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `kraftwerk fit`.
#[derive(Debug, clap::Args)]
pub struct FitArgs {
    /// The build file.
    pub build: PathBuf,
    /// Model id (`kraftwerk catalog models`); default: the build's workload.
    #[arg(long)]
    pub model: Option<String>,
    /// Weight precision: fp32, bf16, fp16, fp8, int8, int4, q4_0, q4_k_m, q5_k_m, q6_k, q8_0, or NNbpw.
    #[arg(long)]
    pub precision: Option<String>,
    /// KV-cache precision (default fp16).
    #[arg(long)]
    pub kv_precision: Option<String>,
    /// Context per sequence, tokens.
    #[arg(long)]
    pub context: Option<u32>,
    /// Concurrent sequences.
    #[arg(long)]
    pub batch: Option<u32>,
    /// inference, full, lora or qlora.
    #[arg(long)]
    pub mode: Option<String>,
    /// single, tp:N, split:N or dp:N (default: all GPUs; layer split for GGUF, else tensor parallel).
    #[arg(long)]
    pub parallel: Option<String>,
    /// Cloud price to compare with, USD per hour (default A100 80 GB at 1.60).
    #[arg(long)]
    pub cloud_usd_per_hour: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `kraftwerk fit`: exit 0 when it fits, 1 when it does not, 2 on bad input.
pub fn run(a: &FitArgs) -> ExitCode {
    let (catalog, build) = match load_build(&a.build) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let opts = FitOptions {
        model: a.model.clone(),
        precision: a.precision.clone(),
        kv_precision: a.kv_precision.clone(),
        context: a.context,
        batch: a.batch,
        mode: a.mode.clone(),
        parallelism: a.parallel.clone(),
        cloud_usd_per_hour: a.cloud_usd_per_hour,
    };
    let result = match fit::for_build(&build, &catalog, &opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kraftwerk: {e}");
            return ExitCode::from(2);
        }
    };
    let code = if result.fit.verdict == FitVerdict::DoesNotFit { ExitCode::from(1) } else { ExitCode::SUCCESS };
    if a.format == Format::Json {
        let printed = print_json(&result);
        return if printed == ExitCode::SUCCESS { code } else { printed };
    }
    let f = &result.fit;
    println!(
        "{} on {}: {} ({} {}, {}, context {}, batch {}, {:?})",
        f.model_id,
        build.name,
        f.verdict,
        f.mode,
        f.weight_precision,
        f.parallelism,
        f.context_tokens,
        f.batch,
        f.runtime
    );
    println!("  weights {:.1} GiB in all, KV cache {:.1} GiB in all", f.weights_total_gib, f.kv_cache_total_gib);
    for g in &f.gpus {
        let m = &g.memory;
        println!(
            "  GPU {} {}: {:.1} of {:.1} GiB ({}): weights {:.1}, KV {:.1}, activations {:.1}, grads {:.1}, optimizer {:.1}, runtime {:.1}, headroom {:.1}",
            g.index + 1,
            g.gpu_id,
            m.required_gib,
            g.capacity_gib,
            g.verdict,
            m.weights_gib,
            m.kv_cache_gib,
            m.activations_gib,
            m.gradients_gib,
            m.optimizer_gib,
            m.runtime_gib,
            m.headroom_gib
        );
    }
    if let Some(c) = f.max_context_tokens {
        println!("  longest context that fits at this batch: {c} tokens");
    }
    if let Some(s) = &f.speed {
        println!(
            "  decode: {:.1} tok/s at batch 1, {:.1} tok/s in all at batch {} ({:?}-bound){}",
            s.decode_batch1_tokens_per_s,
            s.decode_batch_tokens_per_s,
            f.batch,
            s.decode_bound,
            s.link.as_ref().map_or_else(String::new, |l| format!(", over {l}"))
        );
        if let (Some(p), Some(t)) = (s.prefill_tokens_per_s, s.time_to_first_token_s) {
            println!("  prefill: {p:.0} tok/s, first token after {t:.2} s");
        }
    }
    if let Some(c) = &result.cost {
        let hardware = if c.hardware_usd > 0.0 { format!("${:.0}", c.hardware_usd) } else { "unpriced".to_owned() };
        println!(
            "  cost: hardware {hardware}{}, ${:.2} per working hour, {}",
            if c.hardware_complete {
                String::new()
            } else {
                format!(" (no catalog price for: {})", c.missing_prices.join(", "))
            },
            c.usd_per_working_hour,
            c.usd_per_million_tokens.map_or_else(|| "no $/Mtok".to_owned(), |v| format!("${v:.3} per million tokens"))
        );
        println!(
            "  cloud ({} at ${:.2}/h): {}; break-even {}",
            c.cloud.name,
            c.cloud.usd_per_hour,
            c.cloud.usd_per_million_tokens.map_or_else(|| "n/a".to_owned(), |v| format!("${v:.3} per million tokens")),
            match c.cloud.break_even_months {
                _ if c.hardware_usd <= 0.0 => "unknown (no hardware prices)".to_owned(),
                Some(m) if c.hardware_complete => format!("after {m:.1} months"),
                Some(m) => format!("after {m:.1} months (priced parts only)"),
                None => "never".to_owned(),
            }
        );
    } else if let Some(e) = &result.cost_error {
        println!("  cost: {e}");
    }
    for n in &f.notes {
        println!("  note: {n}");
    }
    code
}

//! `kraftwerk fit BUILD [--model ID | --model-file PATH] [--precision P] [--context N] [--batch N]
//! [--mode M] [--search]`.

use super::check_cmd::load_build;
use super::error::{CliError, bad};
use super::{Format, print_json};
use crate::estimate::fit::{self, BuildFit, FitOptions};
use crate::estimate::llm::search::{self, Alternatives};
use crate::estimate::llm::{FitReport, FitVerdict, Parallelism};
use crate::model_file::read_model_file;
use std::path::PathBuf;

/// Arguments of `kraftwerk fit`.
#[derive(Debug, clap::Args)]
pub struct FitArgs {
    /// The build file.
    pub build: PathBuf,
    /// Model id (`kraftwerk catalog models`); default: the build's workload.
    #[arg(long, conflicts_with = "model_file")]
    pub model: Option<String>,
    /// A model file: a `.gguf` file, or a Hugging Face folder (config.json and safetensors
    /// headers); only headers are read.
    #[arg(long)]
    pub model_file: Option<PathBuf>,
    /// Runtime: llama.cpp, ik_llama.cpp, exllamav2, vllm, sglang, tensorrt-llm or ktransformers
    /// (default: the precision's usual one).
    #[arg(long)]
    pub runtime: Option<String>,
    /// vLLM `--gpu-memory-utilization`, 0-1 (default 0.9): the memory vLLM may use per GPU.
    #[arg(long)]
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM `--max-num-batched-tokens`: the tokens of vLLM's profiling run, which sizes its KV
    /// pool (default vLLM's: 8192 on GPUs of 70 GiB or more but the A100, else 2048).
    #[arg(long)]
    pub max_num_batched_tokens: Option<u32>,
    /// vLLM `--max-num-seqs`: the sequences of vLLM's profiling sampler step (default vLLM's:
    /// 1024 or 256).
    #[arg(long)]
    pub max_num_seqs: Option<u32>,
    /// Training: gradient checkpointing (recompute activations in backward).
    #[arg(long)]
    pub gradient_checkpointing: bool,
    /// Print the "what fits" table: every precision of the runtime family with its longest
    /// context, largest batch, decode and prefill.
    #[arg(long)]
    pub search: bool,
    /// Weight precision: fp32, bf16, fp16, fp8, int8, int4, q4_0, q4_k_m, q5_k_m, q6_k, q8_0,
    /// mxfp4, nvfp4, fp8-block, native (the checkpoint as published), or NNbpw.
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
    /// single, tp:N, split:N, dp:N or tp:N,pp:M (tensor x pipeline; default: all GPUs; layer
    /// split for GGUF, else tensor parallel; over several nodes tp:<GPUs per node>,pp:<nodes>).
    #[arg(long)]
    pub parallel: Option<String>,
    /// Identical nodes of this build the plan spans (default 1, or the build's workload).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Link between nodes: ib-ndr, ib-hdr, roce-400, roce-200, roce-100, eth-400, eth-200,
    /// eth-100, eth-25, eth-10.
    #[arg(long)]
    pub interconnect: Option<String>,
    /// A llama-bench result file (`-o json`, `-o jsonl` or `-o csv`) or a `vllm bench serve
    /// --save-result` JSON measured on this build's GPUs: prints estimate vs measured and this
    /// machine's corrected decode and prefill (also with --format json); refused when it names
    /// other GPUs or another model.
    #[arg(long)]
    pub measured: Option<PathBuf>,
    /// Cloud price to compare with, USD per hour (default A100 80 GB at 1.60).
    #[arg(long)]
    pub cloud_usd_per_hour: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `kraftwerk fit`: exit 0 when it fits, 1 when it does not, 2 on bad input.
pub fn run(a: &FitArgs) -> Result<(), CliError> {
    let (catalog, build) = load_build(&a.build)?;
    let model_file = match &a.model_file {
        Some(p) => match read_model_file(p) {
            Ok(f) => Some(f),
            Err(e) => {
                return Err(bad(format!("{}: {e}", p.display())));
            }
        },
        None => None,
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
        model_file: model_file.clone(),
        runtime: a.runtime.clone(),
        gradient_checkpointing: a.gradient_checkpointing.then_some(true),
        gpu_memory_utilization: a.gpu_memory_utilization,
        max_num_batched_tokens: a.max_num_batched_tokens,
        max_num_seqs: a.max_num_seqs,
        headroom_verdict_only: false,
        nodes: a.nodes,
        interconnect: a.interconnect.clone(),
    };
    let result = fit::for_build(&build, &catalog, &opts).map_err(|e| bad(e.to_string()))?;
    let code = if result.fit.verdict == FitVerdict::DoesNotFit { Err(CliError::Failed(None)) } else { Ok(()) };
    if a.format == Format::Json {
        let printed = match &a.measured {
            Some(path) => match measured_report(path, &build, &catalog, &opts, &result) {
                Ok(measured) => print_json(&FitWithMeasured { result: &result, measured }),
                Err(e) => {
                    return Err(bad(format!("{}: {e}", path.display())));
                }
            },
            None => print_json(&result),
        };
        printed?;
        return code;
    }
    if let Some(f) = &model_file {
        outln!("model file {}", f.summary());
    }
    print_memory(&result.fit, &build.name);
    if let Some(alt) = &result.alternatives {
        print_alternatives(alt, &result.fit);
    } else {
        print_speed_and_cost(&result);
        print_stale_prices(&result, &catalog);
    }
    // Beside llama.cpp's own plan (the table's arguments) the all-experts-in-RAM figure would
    // be a second plan: it is in the JSON, printed for the other runtimes.
    if let Some(x) = result.experts_in_ram.as_ref().filter(|_| result.fit.llama_cpp.is_none()) {
        match (x.decode_tokens_per_s, x.host_ram) {
            (None, Some(ram)) => outln!(
                "  experts in system RAM ({}): does not fit: {:.1} GiB of routed experts need more RAM than this build has ({:.0} GiB, {:.0} GiB after the {:.0} GiB kept for the OS and the runtime); no decode speed",
                result.fit.runtime,
                x.host_experts_gib,
                ram.installed_gib,
                ram.available_gib,
                crate::estimate::llm::search::HOST_RAM_RESERVE_GIB
            ),
            (rate, _) => outln!(
                "  experts in system RAM ({}, every routed expert in RAM; llama.cpp: -ot exps=CPU): {:.1} GiB of routed experts in RAM{}, about {} tok/s decode ({:.1} GB/token from RAM at {:.0} GB/s reached, {:.1} GB/token from the GPU)",
                result.fit.runtime,
                x.host_experts_gib,
                if x.fits_in_host_ram.is_none() {
                    " (the build names no memory: whether they fit is unknown)"
                } else {
                    ""
                },
                rate.map_or_else(|| "unknown".to_owned(), |v| format!("{v:.1}")),
                x.host_gb_per_token,
                x.host_decode_gb_s,
                x.gpu_gb_per_token
            ),
        }
    }
    for n in &result.fit.notes {
        outln!("  note: {n}");
    }
    if a.search {
        print_search(&build, &catalog, &opts, &result);
    }
    if let Some(path) = &a.measured {
        match measured_report(path, &build, &catalog, &opts, &result) {
            Ok(m) => print_measured(&m, &result),
            Err(e) => {
                return Err(bad(format!("{}: {e}", path.display())));
            }
        }
    }
    code
}

/// What `--measured FILE` found: the measured tests beside the estimate, and the corrected
/// figures of this fit.
#[derive(Debug, serde::Serialize)]
struct MeasuredReport {
    /// The file read.
    file: String,
    /// `llama-bench` or `vllm bench serve`.
    source: &'static str,
    /// Where it was measured (llama-bench's `gpu_info`), if the file says.
    gpu_info: Option<String>,
    /// Estimate vs measured per test.
    comparisons: Vec<crate::estimate::llm::measured::Comparison>,
    /// Measured ÷ estimated decode (geometric mean over the generation tests).
    decode_factor: Option<f64>,
    /// Measured ÷ estimated prefill.
    prefill_factor: Option<f64>,
    /// This fit's decode at batch 1, corrected, tokens/s.
    corrected_decode_batch1_tok_s: Option<f64>,
    /// This fit's aggregate decode at its batch, corrected, tokens/s.
    corrected_decode_batch_tok_s: Option<f64>,
    /// This fit's prefill, corrected, tokens/s.
    corrected_prefill_tok_s: Option<f64>,
    /// The `vllm bench serve` figures read, for such a file.
    vllm_bench: Option<crate::estimate::llm::measured::VllmBench>,
    /// Why the file's GPUs could not be matched with the build's (a `vllm bench serve` result
    /// that names none); `None` when they were checked.
    gpus_unchecked: Option<String>,
}

/// `fit --format json --measured FILE`: the fit and the measured report together.
#[derive(serde::Serialize)]
struct FitWithMeasured<'a> {
    #[serde(flatten)]
    result: &'a BuildFit,
    measured: MeasuredReport,
}

/// `--measured FILE`: reads llama-bench output (JSON, JSONL, CSV) or a `vllm bench serve
/// --save-result` JSON, refuses another machine's or another model's, estimates each of its
/// tests on this build and returns estimate vs measured and the corrected figures of this fit.
fn measured_report(
    path: &std::path::Path,
    build: &crate::rig::Build,
    catalog: &crate::catalog::Catalog,
    opts: &FitOptions,
    result: &BuildFit,
) -> Result<MeasuredReport, String> {
    use crate::estimate::llm::measured::{
        Comparison, check_gpu_names, check_gpus, is_vllm_bench, names_model, parse_llama_bench, parse_vllm_bench,
    };
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let file = path.display().to_string();
    if is_vllm_bench(&text) {
        let b = parse_vllm_bench(&text).map_err(|e| e.to_string())?;
        if let Some(m) = catalog.model(&result.fit.model_id)
            && !names_model(&b.model_id, &m.id, &m.name)
        {
            return Err(format!(
                "line 1: measured `{}`, but the fit is for {} ({}): give --model for the measured model",
                b.model_id, m.id, m.name
            ));
        }
        let theirs = b.gpus();
        check_gpu_names(&theirs, &build_gpu_names(result, catalog))?;
        let unchecked = theirs.is_empty().then(|| {
            "the file names no GPU (vllm bench serve writes none unless run with --metadata gpu=...), so whether it \
             was measured on this build's GPUs could not be checked: the correction holds only if it was"
                .to_owned()
        });
        let concurrency = b.mean_concurrency().round().max(1.0);
        let context = (b.mean_input_tokens() + b.mean_output_tokens()).round().max(1.0);
        let o = FitOptions {
            context: Some(context as u32),
            batch: Some(concurrency as u32),
            runtime: Some("vllm".into()),
            ..opts.clone()
        };
        let est = fit::for_build(build, catalog, &o)
            .ok()
            .and_then(|f| f.fit.speed)
            .map(|s| s.decode_per_sequence_tokens_per_s);
        let comparisons = vec![Comparison {
            test: format!("decode/seq @{concurrency:.0} seqs, ctx {context:.0}"),
            generation: true,
            measured_tok_s: b.decode_per_sequence_tok_s(),
            estimated_tok_s: est,
        }];
        let mut r = finish(file, "vllm bench serve", b.gpu_info.clone(), comparisons, result, Some(b));
        r.gpus_unchecked = unchecked;
        return Ok(r);
    }
    let rows = parse_llama_bench(&text).map_err(|e| e.to_string())?;
    check_gpus(&rows, &build_gpu_names(result, catalog))?;
    let params_b = catalog
        .model(&result.fit.model_id)
        .map(|m| m.params_b)
        .or_else(|| opts.model_file.as_ref().map(|f| f.model.params_b));
    if let Some(want) = params_b {
        for r in &rows {
            if let Some(n) = r.model_n_params
                && ((n as f64 / 1e9) / want - 1.0).abs() > 0.03
            {
                return Err(format!(
                    "line {}: measured `{}` ({:.2} B parameters), but the fit is for {} ({want:.2} B): give --model for the measured model",
                    r.line,
                    r.model_type,
                    n as f64 / 1e9,
                    result.fit.model_id
                ));
            }
        }
    }
    let mut comparisons = Vec::new();
    for r in &rows {
        let o = FitOptions {
            context: Some(r.context_tokens().max(1)),
            batch: Some(1),
            runtime: Some("llama.cpp".into()),
            ..opts.clone()
        };
        let est = fit::for_build(build, catalog, &o)
            .ok()
            .and_then(|f| f.fit.speed)
            .and_then(|s| if r.is_generation() { Some(s.decode_batch1_tokens_per_s) } else { s.prefill_tokens_per_s });
        comparisons.push(Comparison {
            test: r.test_name(),
            generation: r.is_generation(),
            measured_tok_s: r.avg_ts,
            estimated_tok_s: est,
        });
    }
    Ok(finish(file, "llama-bench", Some(rows[0].gpu_info.clone()), comparisons, result, None))
}

/// The build's GPUs as `vendor name` (`NVIDIA L40S`), one per GPU of the fit.
fn build_gpu_names(result: &BuildFit, catalog: &crate::catalog::Catalog) -> Vec<String> {
    result
        .fit
        .gpus
        .iter()
        .filter_map(|g| catalog.gpu_or_card(&g.gpu_id))
        .map(|g| format!("{} {}", g.vendor, g.name))
        .collect()
}

fn finish(
    file: String,
    source: &'static str,
    gpu_info: Option<String>,
    comparisons: Vec<crate::estimate::llm::measured::Comparison>,
    result: &BuildFit,
    vllm_bench: Option<crate::estimate::llm::measured::VllmBench>,
) -> MeasuredReport {
    let (decode, prefill) = crate::estimate::llm::measured::correction_factors(&comparisons);
    let speed = result.fit.speed.as_ref();
    MeasuredReport {
        file,
        source,
        gpu_info,
        corrected_decode_batch1_tok_s: decode.zip(speed).map(|(k, s)| s.decode_batch1_tokens_per_s * k),
        corrected_decode_batch_tok_s: decode.zip(speed).map(|(k, s)| s.decode_batch_tokens_per_s * k),
        corrected_prefill_tok_s: prefill.zip(speed.and_then(|s| s.prefill_tokens_per_s)).map(|(k, p)| p * k),
        comparisons,
        decode_factor: decode,
        prefill_factor: prefill,
        vllm_bench,
        gpus_unchecked: None,
    }
}

/// Prints a [`MeasuredReport`].
fn print_measured(m: &MeasuredReport, result: &BuildFit) {
    match (&m.gpu_info, &m.vllm_bench) {
        (Some(g), None) => outln!("measured ({}, {} on {g}):", m.file, m.source),
        (g, Some(b)) => outln!(
            "measured ({}, {}{}: {}, {} requests, {:.1} req/s, output {:.0} tok/s, TTFT {:.0} ms, TPOT {:.2} ms, {:.1} sequences in flight):",
            m.file,
            m.source,
            g.as_ref().map_or_else(String::new, |g| format!(" on {g}")),
            b.model_id,
            b.completed,
            b.request_throughput,
            b.output_throughput,
            b.mean_ttft_ms,
            b.mean_tpot_ms,
            b.mean_concurrency()
        ),
        (None, None) => outln!("measured ({}, {}):", m.file, m.source),
    }
    if let Some(why) = &m.gpus_unchecked {
        outln!("  warning: {why}");
    }
    outln!("  {:<32} {:>14} {:>14} {:>17}", "test", "measured tok/s", "estimate tok/s", "measured/estimate");
    for c in &m.comparisons {
        let (e, r) = match (c.estimated_tok_s, c.ratio()) {
            (Some(e), Some(r)) => (format!("{e:.1}"), format!("{r:.2}")),
            _ => ("unknown".into(), "-".into()),
        };
        outln!("  {:<32} {:>14.1} {:>14} {:>17}", c.test, c.measured_tok_s, e, r);
    }
    match (m.decode_factor, m.corrected_decode_batch1_tok_s, m.corrected_decode_batch_tok_s) {
        (Some(k), Some(b1), Some(bn)) => outln!(
            "  corrected decode at context {}: {b1:.1} tok/s at batch 1 (x {k:.2}), {bn:.1} tok/s in all at batch {}",
            result.fit.context_tokens,
            result.fit.batch
        ),
        _ => outln!("  corrected decode: not known (no generation test with a known estimate)"),
    }
    match (m.prefill_factor, m.corrected_prefill_tok_s) {
        (Some(k), Some(p)) => outln!("  corrected prefill: {p:.0} tok/s (x {k:.2})"),
        _ => outln!("  corrected prefill: not known (no prompt test with a known estimate)"),
    }
}

fn print_memory(f: &FitReport, build_name: &str) {
    outln!(
        "{} on {}: {} ({} {}, {}, context {}, batch {}, {})",
        f.model_id,
        build_name,
        f.verdict,
        f.mode,
        f.weight_precision,
        f.parallelism,
        f.context_tokens,
        f.batch,
        f.runtime
    );
    outln!("  weights {:.1} GiB in all, KV cache {:.1} GiB in all", f.weights_total_gib, f.kv_cache_total_gib);
    if let Some(ic) = f.interconnect {
        outln!(
            "  {} nodes of {} GPU{}, linked by {ic} ({:.1} GB/s per direction); {} GPUs used",
            f.nodes,
            f.gpus_per_node,
            if f.gpus_per_node == 1 { "" } else { "s" },
            ic.per_direction_gb_s(),
            f.gpus.len()
        );
    }
    for g in &f.gpus {
        let m = &g.memory;
        // Tight: the total fits, the headroom does not; show the total against capacity.
        let (shown, extra) = match g.verdict {
            FitVerdict::Tight => (
                m.total_gib,
                format!(", only {:.1} of {:.1} GiB headroom left", g.capacity_gib - m.total_gib, m.headroom_gib),
            ),
            _ => (m.required_gib, String::new()),
        };
        outln!(
            "  GPU {} {}: {:.1} of {:.1} GiB ({}{extra}): weights {:.1}, KV {:.1}, activations {:.1}, grads {:.1}, optimizer {:.1}, runtime {:.1}, headroom {:.1}",
            g.index + 1,
            g.gpu_id,
            shown,
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
    if let Some(c) = f.max_context_tokens.filter(|_| f.verdict != FitVerdict::DoesNotFit) {
        outln!("  longest context that fits at this batch: {c} tokens");
    }
    if let Some(p) = &f.vllm {
        print_vllm_pool(p, f);
    }
    if let Some(t) = &f.llama_cpp {
        print_llama_cpp_table(t);
    }
    let b = &f.memory_basis;
    match b.band_pct {
        Some(band) => outln!("  memory basis: held to {} published figures within ±{band:.0} %", b.calibrated_to.len()),
        None => outln!("  memory basis: not held to a published table for {} (band unknown)", f.runtime),
    }
    for c in &b.calibrated_to {
        outln!("    - {c}");
    }
    outln!("  measure it: {}", b.measure);
}

/// vLLM's KV pool as vLLM sizes it, its two start-up lines, and how to measure them.
fn print_vllm_pool(p: &crate::estimate::llm::vllm_memory::VllmKvPool, f: &FitReport) {
    let e = &p.engine;
    outln!(
        "  vLLM (fullest GPU): {:.2} x {:.1} GiB = {:.1} GiB reserved - weights {:.1} - profile peak {:.2} ({} tokens, {} seqs) - non-torch {:.2} = KV pool {:.2} GiB; CUDA graphs ~{:.1} GiB outside it",
        e.gpu_memory_utilization,
        p.total_gib,
        p.reservation_gib,
        p.weights_gib,
        p.profile_activations_gib,
        e.max_num_batched_tokens,
        e.max_num_seqs,
        p.non_torch_gib,
        p.kv_pool_gib,
        p.cuda_graphs_gib
    );
    for line in &p.log_lines {
        outln!("    {line}");
    }
    if !p.holds_one_sequence {
        outln!(
            "  vLLM refuses to start: the pool holds {} tokens, less than one sequence of {} (lower --max-model-len or raise --gpu-memory-utilization)",
            p.kv_tokens,
            e.max_model_len
        );
        match f.max_context_tokens {
            Some(c) => outln!("  vLLM: longest --max-model-len the pool holds: {c} tokens"),
            None => outln!("  vLLM: the pool is empty; no context fits"),
        }
    }
}

/// llama.cpp's per-device table, as `llama_memory_breakdown_print` prints it, and its args.
fn print_llama_cpp_table(t: &crate::estimate::llm::runtime_memory::LlamaCppFit) {
    outln!(
        "  llama.cpp memory breakdown [MiB] ({}):",
        if t.fits { "every GPU keeps 1024 MiB free" } else { "does not keep 1024 MiB free even with everything moved" }
    );
    outln!("    {:<40} {:>8} {:>8} {:>8} {:>8} {:>8}", "device", "free", "self", "model", "context", "compute");
    for r in &t.rows {
        let free = r.free_mib.map_or_else(|| "-".to_owned(), |f| format!("{f:.0}"));
        outln!(
            "    {:<40} {:>8} {:>8.0} {:>8.0} {:>8.0} {:>8.0}",
            r.device,
            free,
            r.self_mib(),
            r.model_mib,
            r.context_mib,
            r.compute_mib
        );
    }
    outln!("  llama.cpp arguments: {}", t.args);
}

fn print_alternatives(alt: &Alternatives, f: &FitReport) {
    outln!("  does not fit; what would fit instead:");
    let mut any = false;
    if let Some(p) = alt.precision.filter(|p| *p != f.weight_precision) {
        outln!("  - precision {p} (the best of the {} family that fits)", f.runtime);
        any = true;
    }
    if let Some(c) = alt.max_context_tokens {
        outln!("  - context up to {c} tokens at batch {}", f.batch);
        any = true;
    }
    if let Some(b) = alt.max_batch.filter(|b| *b < f.batch) {
        outln!("  - batch up to {b} at context {}", f.context_tokens);
        any = true;
    }
    if let Some((n, par)) = alt.gpus_needed {
        let how = match par {
            Parallelism::TensorParallel(_) => "tensor parallel",
            Parallelism::TensorPipeline { .. } => "tensor x pipeline parallel",
            Parallelism::LayerSplit(_) => "layers split",
            Parallelism::Single | Parallelism::DataParallel(_) => "one GPU",
        };
        outln!("  - {n} GPUs like GPU 1 ({how})");
        any = true;
    }
    // "this build has 64 GiB (56 GiB after the 8 GiB reserve for the OS)".
    let has = |ram: &search::HostRam| {
        format!(
            "this build has {:.0} GiB ({:.0} GiB after the {:.0} GiB kept for the OS and the runtime)",
            ram.installed_gib,
            ram.available_gib,
            search::HOST_RAM_RESERVE_GIB
        )
    };
    // llama.cpp: the per-device table above is the one plan (its -ngl / --n-cpu-moe / -ts);
    // the search's other splits are not printed beside it.
    if let Some(t) = &f.llama_cpp {
        any |= print_llama_cpp_plan(t, alt, &has);
    } else {
        any |= print_offload_alternatives(alt, &has);
    }
    if alt.with_gradient_checkpointing == Some(true) {
        outln!("  - the same with gradient checkpointing (--gradient-checkpointing)");
        any = true;
    }
    if alt.qlora_fits == Some(true) {
        outln!("  - QLoRA with gradient checkpointing (--mode qlora --gradient-checkpointing)");
        any = true;
    }
    if !any {
        outln!("  - nothing found within {} GPUs of this kind", search::MAX_GPUS_SEARCHED);
    }
}

/// The llama.cpp placement of the table (`-ngl`, `--n-cpu-moe`, `-ts`) as the one offload
/// plan: whether the GPUs keep their margin with it, whether its system-RAM part fits the
/// build, and its decode where the search estimated the same split. Returns whether a line was
/// printed.
fn print_llama_cpp_plan(
    t: &crate::estimate::llm::runtime_memory::LlamaCppFit,
    alt: &Alternatives,
    has: &dyn Fn(&search::HostRam) -> String,
) -> bool {
    if !t.fits || (t.n_gpu_layers == 0 && t.n_cpu_moe == 0) {
        return false;
    }
    let host_gib = t
        .rows
        .iter()
        .filter(|r| r.free_mib.is_none())
        .map(crate::estimate::llm::runtime_memory::DeviceRow::self_mib)
        .sum::<f64>()
        / 1024.0;
    if let Some(ram) = alt.host_ram.as_ref().filter(|r| host_gib > r.available_gib) {
        outln!(
            "  - not llama.cpp with {} on this build: it needs {host_gib:.0} GiB of system RAM; {}",
            t.args,
            has(ram)
        );
        return false;
    }
    // The search's decode, where it estimated this same split.
    let decode = alt
        .moe_offload
        .as_ref()
        .filter(|o| t.n_cpu_moe > 0 && o.cpu_moe_layers == t.n_cpu_moe)
        .and_then(|o| o.decode_tokens_per_s)
        .or_else(|| {
            alt.offload
                .as_ref()
                .filter(|o| t.n_cpu_moe == 0 && o.gpu_layers == t.n_gpu_layers)
                .and_then(|o| o.decode_tokens_per_s)
        });
    outln!(
        "  - llama.cpp with the arguments above ({}): {host_gib:.1} GiB in system RAM{}, {}",
        t.args,
        alt.host_ram.as_ref().map_or_else(|| " (the build names no memory)".to_owned(), |r| format!("; {}", has(r))),
        decode
            .map_or_else(|| "decode not estimated for this split".to_owned(), |v| format!("about {v:.1} tok/s decode"))
    );
    true
}

/// The search's llama.cpp splits (`-ngl`, `--n-cpu-moe`) for a fit without llama.cpp's table
/// (ik_llama.cpp, ktransformers). Returns whether a line was printed.
fn print_offload_alternatives(alt: &Alternatives, has: &dyn Fn(&search::HostRam) -> String) -> bool {
    let mut any = false;
    if let Some(o) = &alt.offload {
        if let (Some(false), Some(ram)) = (o.fits_in_host_ram, &alt.host_ram) {
            outln!(
                "  - not llama.cpp CPU offload on this build: {} of {} layers on the GPUs (-ngl {}) needs {:.0} GiB of system RAM; {}",
                o.gpu_layers,
                o.gpu_layers + o.cpu_layers,
                o.gpu_layers,
                o.host_ram_needed_gib,
                has(ram)
            );
        } else {
            let speed = o.decode_tokens_per_s.map_or_else(
                || "decode speed unknown (no CPU or memory kit in the build)".to_owned(),
                |v| format!("about {v:.1} tok/s decode, bounded by system RAM"),
            );
            outln!(
                "  - llama.cpp with {} of {} layers on the GPUs (-ngl {}), {:.1} GiB of weights in system RAM (needs {:.0} GiB of RAM{}): {speed}",
                o.gpu_layers,
                o.gpu_layers + o.cpu_layers,
                o.gpu_layers,
                o.host_weights_gib,
                o.host_ram_needed_gib,
                alt.host_ram
                    .as_ref()
                    .map_or_else(|| "; the build names no memory".to_owned(), |r| format!("; {}", has(r)))
            );
            any = true;
        }
    }
    if let Some(o) = &alt.moe_offload {
        if let (Some(false), Some(ram)) = (o.fits_in_host_ram, &alt.host_ram) {
            outln!(
                "  - not llama.cpp MoE expert offload on this build: --n-cpu-moe {} needs {:.0} GiB of system RAM for the experts; {}",
                o.cpu_moe_layers,
                o.host_experts_gib,
                has(ram)
            );
        } else {
            outln!(
                "  - llama.cpp MoE expert offload: --n-cpu-moe {} ({:.1} GiB of experts in system RAM){}",
                o.cpu_moe_layers,
                o.host_experts_gib,
                o.decode_tokens_per_s.map_or_else(String::new, |v| format!(", about {v:.1} tok/s decode"))
            );
            any = true;
        }
    }
    any
}

/// The hardware prices older than 12 months, with their dates and ages (one line; nothing when
/// every price is recent or undated).
fn print_stale_prices(result: &BuildFit, catalog: &crate::catalog::Catalog) {
    let Some(c) = &result.cost else { return };
    let today = crate::catalog::prices::today_utc();
    let stale: Vec<String> = c
        .parts
        .iter()
        .filter_map(|p| {
            let date = catalog.price_of(&p.id)?.date?;
            let months = crate::catalog::prices::age_months(date, today)?;
            crate::catalog::prices::stale_text(months)?;
            Some(format!("{} ({})", p.name, crate::catalog::prices::date_note(date, today)))
        })
        .collect();
    if !stale.is_empty() {
        outln!("  prices older than 12 months: {}", stale.join("; "));
    }
}

fn print_speed_and_cost(result: &BuildFit) {
    let f = &result.fit;
    if let Some(s) = &f.speed {
        outln!(
            "  decode: {:.1} tok/s at batch 1, {:.1} tok/s in all at batch {} ({:?}-bound){}",
            s.decode_batch1_tokens_per_s,
            s.decode_batch_tokens_per_s,
            f.batch,
            s.decode_bound,
            s.link.as_ref().map_or_else(String::new, |l| {
                if result.links_unknown.is_empty() {
                    format!(", over {l}")
                } else {
                    // The cards' own links stand in for links nobody knows: an upper bound.
                    let who: Vec<String> = result.links_unknown.iter().map(|i| format!("GPU {}", i + 1)).collect();
                    format!(
                        ", over at most {l}: the link of {} is {}, so this is an upper bound",
                        who.join(", "),
                        crate::rig::links::LINK_UNKNOWN
                    )
                }
            })
        );
        if let (Some(p), Some(t)) = (s.prefill_tokens_per_s, s.time_to_first_token_s) {
            outln!("  prefill: {p:.0} tok/s, first token after {t:.2} s");
        } else {
            outln!("  prefill: unknown (a tensor rate this precision needs is not in the catalog; see notes)");
        }
        if s.pipeline_stages > 1 {
            outln!(
                "  pipeline: {} stages, handoffs {:.2} ms per token at batch 1{}{}",
                s.pipeline_stages,
                s.stage_handoff_ms_per_token,
                s.slowest_stage_ms.map_or_else(String::new, |v| format!(", slowest stage {v:.1} ms per step")),
                s.prefill_pipelined_tokens_per_s
                    .map_or_else(String::new, |v| format!(", prefill of many prompts {v:.0} tok/s"))
            );
        }
        if let Some(l) = &s.inter_node_link {
            outln!("  between nodes: {l}");
        }
        let b = &f.speed_basis;
        match b.band_pct {
            Some(band) => outln!(
                "  speed basis ({}): held to {} published measurements within ±{band:.0} %",
                f.runtime,
                b.calibrated_to.len()
            ),
            None => outln!("  speed basis ({}): not held to a published measurement (band unknown)", f.runtime),
        }
        for c in &b.calibrated_to {
            outln!("    - {c}");
        }
        outln!("  measure it: {}", b.measure);
    }
    if let Some(c) = &result.cost {
        let hardware = if c.hardware_usd > 0.0 { format!("${:.0}", c.hardware_usd) } else { "unpriced".to_owned() };
        outln!(
            "  cost: hardware {hardware}{}, ${:.2} per working hour, {}",
            if c.hardware_complete {
                String::new()
            } else {
                format!(" (no catalog price for: {})", c.missing_prices.join(", "))
            },
            c.usd_per_working_hour,
            c.usd_per_million_tokens.map_or_else(
                || "no $/Mtok".to_owned(),
                |v| format!("{}${v:.3} per million tokens", if c.hardware_complete { "" } else { "at least " })
            )
        );
        outln!(
            "  cloud ({} at ${:.2}/h): {}; break-even {}",
            c.cloud.name,
            c.cloud.usd_per_hour,
            c.cloud.usd_per_million_tokens.map_or_else(|| "n/a".to_owned(), |v| format!("${v:.3} per million tokens")),
            match c.cloud.break_even_months {
                _ if c.hardware_usd <= 0.0 => "unknown (no hardware prices)".to_owned(),
                Some(m) if c.hardware_complete => format!("after {m:.1} months"),
                // Unpriced hardware: the payback time is only a lower bound (issue 26).
                Some(m) => format!(
                    "after at least {m:.1} months (a lower bound: no price for {})",
                    c.missing_prices.join(", ")
                ),
                None => "never".to_owned(),
            }
        );
    } else if let Some(e) = &result.cost_error {
        outln!("  cost: {e}");
    }
}

fn print_search(build: &crate::rig::Build, catalog: &crate::catalog::Catalog, opts: &FitOptions, result: &BuildFit) {
    let Some(input) = fit::input_for(build, catalog, opts).ok() else { return };
    let slots = fit::gpu_slots(build, catalog);
    let used = &slots[..(result.fit.parallelism.degree() as usize).min(slots.len())];
    outln!(
        "\nwhat fits ({}, {}, context {}, batch {}):",
        result.fit.runtime,
        result.fit.parallelism,
        input.context_tokens,
        input.batch
    );
    outln!(
        "  {:<10} {:<13} {:>9} {:>12} {:>9} {:>10} {:>12} {:>10}",
        "precision",
        "verdict",
        "weights",
        "max context",
        "max batch",
        "decode b1",
        "decode batch",
        "prefill"
    );
    let opt = |v: Option<f64>, d: usize| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.d$}"));
    for row in search::what_fits(&input, used) {
        outln!(
            "  {:<10} {:<13} {:>5.1} GiB {:>12} {:>9} {:>10} {:>12} {:>10}",
            row.precision.to_string(),
            row.verdict.to_string(),
            row.weights_gib,
            row.max_context_tokens.map_or_else(|| "-".to_owned(), |c| c.to_string()),
            row.max_batch.map_or_else(|| "-".to_owned(), |c| c.to_string()),
            opt(row.decode_batch1_tokens_per_s, 1),
            opt(row.decode_batch_tokens_per_s, 1),
            opt(row.prefill_tokens_per_s, 0),
        );
    }
}

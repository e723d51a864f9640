//! `kraftwerk fit --search`: the what-fits table, one row per precision, with the
//! experts-in-RAM split `fit --precision P` would print for it.

use super::*;

/// `fit --search`: every precision of the runtime on the GPUs the fit uses, with its verdict,
/// weights, longest context, largest batch, decode and prefill (nothing when the build cannot
/// be resolved into an input).
pub fn what_fits_table(
    out: &mut String,
    build: &crate::rig::Build,
    catalog: &kraftwerk_catalog::Catalog,
    opts: &FitOptions,
    result: &BuildFit,
) {
    let r = build.resolve(catalog);
    let slots = fit::gpu_slots(&r);
    let Some(input) = fit::input_on(&r, catalog, &slots, opts).ok() else { return };
    let used = &slots[..(result.fit.parallelism.degree() as usize).min(slots.len())];
    wln!(
        out,
        "\nwhat fits ({}, {}, context {}, batch {}):",
        result.fit.runtime,
        result.fit.parallelism,
        input.context_tokens,
        input.batch
    );
    wln!(
        out,
        "  {:<10} {:<14} {:>9} {:>12} {:>9} {:>10} {:>12} {:>10}",
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
    // A MoE model under llama.cpp that the GPUs alone do not hold may run with experts in
    // system RAM: that row says so with the split `fit` itself would print for that precision
    // (the same `for_build`, so the table and `fit --precision P` agree).
    let llama_moe = input.resolved_runtime().is_llama_cpp_family()
        && input.model.experts.as_ref().is_some_and(|e| e.routed > 0)
        && !input.mode.is_training();
    let mut split_notes = Vec::new();
    // The precision the fit itself uses is a row too, and so is `mxfp4` for a model released
    // with MXFP4 experts (gpt-oss) under llama.cpp: its GGUF labels keep those experts in MXFP4
    // (`weights` of each row), and the MXFP4 file is the one its makers publish.
    let mut precisions = search::table_precisions(input.resolved_runtime());
    let mxfp4_experts = input.resolved_runtime().is_llama_cpp_family()
        && input.model.checkpoint.as_ref().is_some_and(|c| c.experts == kraftwerk_catalog::TensorFormat::Mxfp4);
    for p in [Some(input.weight_precision), mxfp4_experts.then_some(crate::estimate::llm::Precision::Mxfp4)]
        .into_iter()
        .flatten()
    {
        if !precisions.contains(&p) {
            precisions.push(p);
        }
    }
    precisions.sort_by(|a, b| b.bits_per_weight().total_cmp(&a.bits_per_weight()));
    for row in search::what_fits_with(&input, used, &precisions) {
        let split = if llama_moe && row.verdict == crate::estimate::llm::FitVerdict::DoesNotFit {
            // Under the table's runtime: `mxfp4` alone would be judged under vLLM, its usual one.
            let runtime = opts.runtime.or(Some(fit::RuntimeChoice::Inference(input.resolved_runtime())));
            let o = FitOptions { precision: Some(row.precision), runtime, ..opts.clone() };
            fit::for_build(build, catalog, &o).ok().and_then(|b| b.fits_with_experts_in_ram)
        } else {
            None
        };
        let (verdict, decode, prefill) = match &split {
            Some(s) => ("experts in RAM".to_owned(), s.decode_tokens_per_s, s.prefill_tokens_per_s),
            None => (row.verdict.to_string(), row.decode_batch1_tokens_per_s, row.prefill_tokens_per_s),
        };
        if let Some(s) = &split {
            split_notes.push(format!("{}: {}", row.precision, s.args));
        }
        wln!(
            out,
            "  {:<10} {:<14} {:>5.1} GiB {:>12} {:>9} {:>10} {:>12} {:>10}",
            row.precision.to_string(),
            verdict,
            row.weights_gib,
            row.max_context_tokens.map_or_else(|| "-".to_owned(), |c| c.to_string()),
            row.max_batch.map_or_else(|| "-".to_owned(), |c| c.to_string()),
            opt(decode, 1),
            opt(if split.is_some() { None } else { row.decode_batch_tokens_per_s }, 1),
            opt(prefill, 0),
        );
    }
    for n in split_notes {
        wln!(out, "  experts in RAM, {n}");
    }
}

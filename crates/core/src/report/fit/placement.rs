//! `kraftwerk fit`'s placement sections: vLLM's KV pool, llama.cpp's per-device table and
//! arguments, the experts-in-RAM split, and the alternatives (offload, MoE offload, other GPU
//! counts) with the commands that run them. Figures come from [`BuildFit`]; nothing here
//! estimates.

use super::*;

/// vLLM's KV pool as vLLM sizes it, its two start-up lines, and how to measure them.
pub fn vllm_pool(out: &mut String, p: &crate::estimate::llm::vllm_memory::VllmKvPool, f: &FitReport) {
    let e = &p.engine;
    wln!(
        out,
        "  vLLM (fullest GPU): {:.2} x {:.1} GiB = {:.1} GiB reserved - weights as vLLM loads them {:.1} - profile peak {:.2} ({} tokens, {} seqs) - non-torch {:.2} = KV pool {:.2} GiB; CUDA graphs ~{:.1} GiB outside it",
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
        wln!(out, "    {line}");
    }
    if !p.holds_one_sequence {
        wln!(
            out,
            "  vLLM refuses to start: the pool holds {} tokens, less than one sequence of {}",
            p.kv_tokens,
            e.max_model_len
        );
        if p.start_levers.is_empty() {
            wln!(
                out,
                "  vLLM: no single engine setting makes it start (--max-num-seqs, --max-num-batched-tokens, --gpu-memory-utilization)"
            );
        } else {
            let levers: Vec<String> = p.start_levers.iter().map(ToString::to_string).collect();
            wln!(out, "  vLLM starts, by this estimate, with any one of: {}", levers.join("; "));
        }
        match f.max_context_tokens {
            Some(c) => wln!(out, "  vLLM: longest --max-model-len the pool holds: {c} tokens"),
            None => wln!(out, "  vLLM: the pool is empty; no context fits"),
        }
    }
}

/// llama.cpp's per-device table, as `llama_memory_breakdown_print` prints it, and its args.
pub(crate) fn llama_cpp_table(out: &mut String, t: &crate::estimate::llm::runtime_memory::LlamaCppFit) {
    wln!(
        out,
        "  llama.cpp memory breakdown [MiB] ({}):",
        if t.fits {
            "every GPU keeps 1024 MiB free"
        } else {
            "a GPU keeps less than the 1024 MiB llama.cpp leaves free"
        }
    );
    wln!(out, "    {:<40} {:>8} {:>8} {:>8} {:>8} {:>8}", "device", "free", "self", "model", "context", "compute");
    for r in &t.rows {
        let free = r.free_mib.map_or_else(|| "-".to_owned(), |f| format!("{f:.0}"));
        wln!(
            out,
            "    {:<40} {:>8} {:>8.0} {:>8.0} {:>8.0} {:>8.0}",
            r.device,
            free,
            r.self_mib(),
            r.model_mib,
            r.context_mib,
            r.compute_mib
        );
    }
    wln!(out, "  llama.cpp arguments: {}", t.args);
}

/// The expert offload that is the fit ([`BuildFit::fits_with_experts_in_ram`]): its
/// `--n-cpu-moe`, the RAM it takes, its decode (the planner's figure for the same build) and
/// the cost at that decode ([`super::cost`]: the lines a fit on the GPUs prints).
pub fn experts_in_ram_fit(out: &mut String, o: &search::MoeOffload, result: &BuildFit) {
    let f = &result.fit;
    wln!(
        out,
        "  {}; {} with {} in system RAM ({}): {}{}",
        if result.placement.as_ref().is_some_and(|p| p.as_given) {
            "the placement as given runs"
        } else {
            "the GPUs alone do not hold it"
        },
        f.runtime_label,
        if o.cpu_moe_layers > 0 {
            format!("the routed experts of {} layers", o.cpu_moe_layers)
        } else {
            o.in_ram_phrase()
        },
        o.args,
        if o.cpu_moe_layers > 0 { format!("{:.1} GiB of experts, ", o.host_experts_gib) } else { String::new() },
        result.alternatives.as_ref().and_then(|a| a.host_ram.as_ref()).map_or_else(
            || format!("{:.1} GiB of system RAM in all (the build names no memory)", o.host_ram_needed_gib),
            |r| format!("in all {}", r.need_vs_has(o.host_ram_needed_gib))
        )
    );
    if let Some(d) = o.decode_tokens_per_s {
        wln!(
            out,
            "  decode ({}): about {d:.1} tok/s at batch 1, bounded by system RAM{}",
            f.runtime_label,
            result.host_bandwidth_gb_s.map_or_else(String::new, |b| format!(" ({b:.0} GB/s theoretical)"))
        );
    }
    match o.prefill_tokens_per_s {
        Some(p) => wln!(
            out,
            "  prefill ({}): about {p:.0} tok/s, bounded by copying the {} in RAM over the host link{} per {}-token micro-batch, {}",
            f.runtime,
            if o.cpu_moe_layers > 0 { "experts" } else { "weights" },
            // The link itself (the first GPU's, which the scheduler offloads to), where the placement estimated is this split.
            result
                .placement
                .as_ref()
                .filter(|p| p.table.args == o.args)
                .and_then(|p| p.host_link.as_ref())
                .map_or_else(String::new, |l| format!(
                    " ({l}{})",
                    if result.links_unknown.is_empty() {
                        ""
                    } else {
                        ": the card's own link, the slot's is unknown, so at most"
                    }
                )),
            // The -ub of the placement estimated (the split's own), else llama.cpp's default.
            result
                .placement
                .as_ref()
                .filter(|p| p.table.args == o.args)
                .map_or(crate::estimate::llm::runtime_memory::LLAMA_UBATCH as u32, |p| p.ubatch_tokens),
            // Pageable (mmap, the default) or pinned (--no-mmap): the copy path assumed.
            o.host_weights.copy_words()
        ),
        None => wln!(out, "  prefill ({}): unknown", f.runtime),
    }
    // The command that measures this placement's decode and prefill (the Fit tab's basis says
    // the same): llama-bench with the placement's own flags.
    super::placement_terms(out, &f.speed_basis);
    wln!(out, "  measure the speed: {}", f.speed_basis.measure);
    // llama.cpp's own table (its -ngl / --n-cpu-moe for these GPUs), as the one plan to run.
    if let (Some(t), Some(alt)) = (&f.llama_cpp, &result.alternatives) {
        llama_cpp_plan(out, t, alt, &ram_has, result.placement.as_ref());
    }
    // The cost at this decode, as a fit on the GPUs prints it: "at least" and the unpriced
    // parts named while a part has no price.
    super::cost(out, result);
}

/// "this build has 64 GiB (58.4 GiB after the 6 GB kept for the OS (Ubuntu 26.04 LTS
/// Desktop's published minimum))".
fn ram_has(ram: &search::HostRam) -> String {
    format!(
        "this build has {:.0} GiB ({:.1} GiB after {})",
        ram.installed_gib,
        ram.available_gib,
        crate::estimate::llm::host::reserve_words()
    )
}

/// What would fit instead, for a workload that does not: a precision, a shorter context, a
/// smaller batch, more GPUs, llama.cpp's own split with its decode (`placement`, the same
/// estimate as the Fit tab's), the search's offload splits, gradient checkpointing, QLoRA; the
/// first line says it does not fit.
pub fn alternatives(
    out: &mut String,
    alt: &Alternatives,
    f: &FitReport,
    placement: Option<&crate::estimate::llm::placement::PlacementEstimate>,
) {
    wln!(out, "  does not fit; what would fit instead:");
    let mut any = false;
    if let Some(p) = alt.precision.filter(|p| *p != f.weight_precision) {
        wln!(out, "  - precision {p} (the best of the {} family that fits)", f.runtime_label);
        any = true;
    }
    if let Some(q) = &alt.llama_cpp_quant {
        wln!(
            out,
            "  - {} at {} with every layer on the GPUs: {} (--runtime {} --precision {})",
            q.runtime,
            q.precision,
            q.decode_tokens_per_s.map_or_else(|| "decode unknown".to_owned(), |d| format!("about {d:.1} tok/s decode")),
            q.runtime,
            q.precision
        );
        any = true;
    }
    if let Some(c) = alt.max_context_tokens {
        wln!(out, "  - context up to {c} tokens at batch {}", f.batch);
        any = true;
    }
    if let Some(b) = alt.max_batch.filter(|b| *b < f.batch) {
        wln!(out, "  - batch up to {b} at context {}", f.context_tokens);
        any = true;
    }
    if let Some((n, par)) = alt.gpus_needed {
        let how = match par {
            Parallelism::TensorParallel(_) => "tensor parallel",
            Parallelism::TensorPipeline { .. } => "tensor x pipeline parallel",
            Parallelism::LayerSplit(_) => "layers split",
            Parallelism::Single | Parallelism::DataParallel(_) => "one GPU",
        };
        wln!(out, "  - {n} GPUs like GPU 1 ({how})");
        any = true;
    }
    let has = ram_has;
    // llama.cpp: the per-device table above is the one plan (its -ngl / --n-cpu-moe / -ts);
    // the search's other splits are not printed beside it.
    if let Some(t) = &f.llama_cpp {
        any |= llama_cpp_plan(out, t, alt, &has, placement);
    } else {
        any |= offload_alternatives(out, alt, f, &has);
    }
    if alt.with_gradient_checkpointing == Some(true) {
        wln!(out, "  - the same with gradient checkpointing (--gradient-checkpointing)");
        any = true;
    }
    if alt.qlora_fits == Some(true) {
        wln!(out, "  - QLoRA with gradient checkpointing (--mode qlora --gradient-checkpointing)");
        any = true;
    }
    if !any {
        wln!(out, "  - nothing found within {} GPUs of this kind", search::MAX_GPUS_SEARCHED);
    }
}

/// The llama.cpp placement of the table (`-ngl`, `--n-cpu-moe`, `-ts`) as the one offload
/// plan: whether the GPUs keep their margin with it, whether its system-RAM part fits the
/// build, and its decode where the search estimated the same split. Returns whether a line was
/// printed.
pub(crate) fn llama_cpp_plan(
    out: &mut String,
    t: &crate::estimate::llm::runtime_memory::LlamaCppFit,
    alt: &Alternatives,
    has: &dyn Fn(&search::HostRam) -> String,
    placement: Option<&crate::estimate::llm::placement::PlacementEstimate>,
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
    if let Some(ram) = alt.host_ram.as_ref().filter(|r| !r.holds(host_gib)) {
        wln!(out, "  - not llama.cpp with {} on this build: it needs {}", t.args, ram.need_vs_has(host_gib));
        return false;
    }
    // The decode and prefill of this same placement (one estimate: `BuildFit::placement`).
    let p = placement.filter(|p| p.table.args == t.args);
    // Its speeds are of one sequence (llama-bench's tg and pp); arguments with `-np N` serve N.
    let one = if t.args.split_whitespace().any(|a| a == "-np") { " for one sequence (not the -np above)" } else { "" };
    wln!(
        out,
        "  - llama.cpp with the arguments above ({}): {host_gib:.1} GiB in system RAM{}, {}",
        t.args,
        alt.host_ram.as_ref().map_or_else(|| " (the build names no memory)".to_owned(), |r| format!("; {}", has(r))),
        match p.and_then(|p| p.decode_tokens_per_s.map(|d| (d, p.prefill_tokens_per_s))) {
            Some((d, Some(pf))) => format!("about {d:.1} tok/s decode, {pf:.0} tok/s prefill{one}"),
            Some((d, None)) => format!("about {d:.1} tok/s decode{one}, prefill unknown"),
            None => format!(
                "decode unknown ({})",
                p.and_then(|p| p.unknown_because.clone()).unwrap_or_else(|| "not estimated for this split".to_owned())
            ),
        }
    );
    true
}

/// The search's llama.cpp splits (`-ngl`, `--n-cpu-moe`) for a fit without llama.cpp's table
/// (vLLM, SGLang, ik_llama.cpp, ktransformers), with the figures `alternatives.offload` and
/// `alternatives.moe_offload` hold in the JSON (the MoE split's arguments, decode and prefill).
/// Under a runtime outside the llama.cpp family they run only under llama.cpp: the line says
/// so and names `--runtime llama.cpp` (a trial read the JSON's `--n-cpu-moe 11` beside a vLLM
/// fit and could not tell which runtime runs it). Returns whether a line was printed.
pub(crate) fn offload_alternatives(
    out: &mut String,
    alt: &Alternatives,
    f: &FitReport,
    has: &dyn Fn(&search::HostRam) -> String,
) -> bool {
    let (with, under) = if f.runtime.is_llama_cpp_family() {
        ("llama.cpp with", "llama.cpp")
    } else {
        ("under llama.cpp (--runtime llama.cpp):", "under llama.cpp (--runtime llama.cpp):")
    };
    let mut any = false;
    if let Some(o) = &alt.offload {
        if let (Some(false), Some(ram)) = (o.fits_in_host_ram, &alt.host_ram) {
            wln!(
                out,
                "  - not llama.cpp CPU offload on this build: {} of {} layers on the GPUs (-ngl {}) needs {}",
                o.gpu_layers,
                o.gpu_layers + o.cpu_layers,
                o.gpu_layers,
                ram.need_vs_has(o.host_ram_needed_gib)
            );
        } else {
            let speed = o.decode_tokens_per_s.map_or_else(
                || "decode speed unknown (no CPU or memory kit in the build)".to_owned(),
                |v| format!("about {v:.1} tok/s decode, bounded by system RAM"),
            );
            wln!(
                out,
                "  - {with} {} of {} layers on the GPUs (-ngl {}), {:.1} GiB of weights in system RAM (needs {:.1} GiB of RAM{}): {speed}",
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
            wln!(
                out,
                "  - not llama.cpp MoE expert offload on this build: --n-cpu-moe {} ({:.1} GiB of experts) needs {}",
                o.n_cpu_moe,
                o.host_experts_gib,
                ram.need_vs_has(o.host_ram_needed_gib)
            );
        } else {
            wln!(
                out,
                "  - {under} MoE expert offload --n-cpu-moe {} ({}): {:.1} GiB of experts, {:.1} GiB of system RAM in all{}",
                o.n_cpu_moe,
                o.args,
                o.host_experts_gib,
                o.host_ram_needed_gib,
                match (o.decode_tokens_per_s, o.prefill_tokens_per_s) {
                    (Some(d), Some(p)) => format!("; about {d:.1} tok/s decode, {p:.0} tok/s prefill"),
                    (Some(d), None) => format!("; about {d:.1} tok/s decode, prefill unknown"),
                    (None, _) => String::new(),
                }
            );
            any = true;
        }
    }
    any
}

/// The all-experts-in-RAM figure ([`BuildFit::experts_in_ram`]: every routed expert in system
/// RAM, llama.cpp's `-ot exps=CPU`, ktransformers' placement), one line, for the runtimes
/// without llama.cpp's table. It is named as that placement; where the fit is another split
/// (`--n-cpu-moe 11`, [`BuildFit::fits_with_experts_in_ram`]) it says it is not that split, so
/// its "does not fit" does not read against a headline that fits (a trial's ik_llama.cpp fit
/// printed "fits with experts in system RAM" and "experts in system RAM (ik_llama.cpp): does not
/// fit"). Nothing for a dense model or a build without CPU or memory.
pub fn all_experts_in_ram(out: &mut String, result: &BuildFit) {
    let Some(x) = &result.experts_in_ram else { return };
    let which = if result.fits_with_experts_in_ram.is_some() && !x.is_the_fit {
        "every routed expert in RAM, not the split above"
    } else {
        "every routed expert in RAM"
    };
    match (x.decode_tokens_per_s, x.host_ram) {
        (None, Some(ram)) => wln!(
            out,
            "  experts in system RAM ({}, {which}): does not fit: {:.1} GiB of routed experts, in all {}; no decode speed",
            result.fit.runtime,
            x.host_experts_gib,
            ram.need_vs_has(x.host_ram_needed_gib)
        ),
        (rate, _) => wln!(
            out,
            "  experts in system RAM ({}, {which}; llama.cpp: -ot exps=CPU): {:.1} GiB of routed experts in RAM{}, about {} tok/s decode ({:.1} GB/token from RAM at {:.0} GB/s reached, {:.1} GB/token from the GPU)",
            result.fit.runtime,
            x.host_experts_gib,
            if x.fits_in_host_ram.is_none() { " (the build names no memory: whether they fit is unknown)" } else { "" },
            rate.map_or_else(|| "unknown".to_owned(), |v| format!("{v:.1}")),
            x.host_gb_per_token,
            x.host_decode_gb_s,
            x.gpu_gb_per_token
        ),
    }
}

//! `kraftwerk fit`'s text: memory per GPU, vLLM's KV pool, llama.cpp's per-device table, the
//! offload alternatives, stale and used prices, speed and cost, the "what fits" table and the
//! comparison with a measured file. Each section appends lines to `out`; [`text`] writes the
//! whole report in the order `fit` prints it. Figures come from [`BuildFit`]; nothing here
//! estimates.

use std::fmt::Write as _;

/// `writeln!` into a `String` (which cannot fail).
macro_rules! wln {
    ($o:expr) => {
        $o.push('\n')
    };
    ($o:expr, $($arg:tt)*) => {{
        let _ = writeln!($o, $($arg)*);
    }};
}

use crate::estimate::calibrate::{self, Calibration, MeasuredFile};
use crate::estimate::fit::{self, BuildFit, FitOptions};
use crate::estimate::llm::search::{self, Alternatives};
use crate::estimate::llm::support::Support;
use crate::estimate::llm::{FitReport, FitVerdict, Parallelism};
use crate::fmt::{usd, usd_rate};

mod placement;
mod search_table;
pub use placement::all_experts_in_ram;
pub use placement::alternatives;
pub use placement::experts_in_ram_fit;
pub(crate) use placement::llama_cpp_table;
pub use placement::vllm_pool;
pub use search_table::what_fits_table;

/// The memory of each GPU, one line each (without indent), as `kraftwerk fit` prints them and
/// the Fit tab shows them. Without `split`: the estimate's placement (every weight on the GPUs).
/// With `split` ([`BuildFit::fits_with_experts_in_ram`]): what the split's llama.cpp arguments
/// put on each GPU (llama.cpp's table, [`crate::estimate::llm::runtime_memory::DeviceRow`]),
/// then the every-expert-on-the-GPU figure labelled as such; where no table of those arguments
/// is at hand, only that labelled figure.
pub fn gpu_lines(f: &FitReport, split: Option<&search::MoeOffload>) -> Vec<String> {
    let mut lines = Vec::new();
    let table = split.and_then(|o| f.llama_cpp.as_ref().filter(|t| t.args == o.args).map(|t| (o, t)));
    if let Some((o, t)) = table {
        const MIB_PER_GIB: f64 = 1024.0;
        for (g, r) in f.gpus.iter().zip(t.rows.iter().filter(|r| r.free_mib.is_some())) {
            lines.push(format!(
                "GPU {} {}: {:.1} of {:.1} GiB free ({}) with {} in system RAM ({}): model {:.1}, context {:.1}, compute {:.1}",
                g.index + 1,
                g.gpu_id,
                r.self_mib() / MIB_PER_GIB,
                r.free_mib.unwrap_or(0.0) / MIB_PER_GIB,
                r.verdict().map_or_else(|| "unknown".to_owned(), |v| v.to_string()),
                o.in_ram_phrase(),
                o.args,
                r.model_mib / MIB_PER_GIB,
                r.context_mib / MIB_PER_GIB,
                r.compute_mib / MIB_PER_GIB,
            ));
        }
    }
    let prefix = match split {
        Some(o) if o.cpu_moe_layers > 0 => "with every expert on the GPU instead (not the split's placement): ",
        Some(_) => "with every layer on the GPU instead (not the split's placement): ",
        None => "",
    };
    for g in &f.gpus {
        let m = &g.memory;
        // Tight: the total fits, the headroom does not; show the total against capacity.
        let (shown, extra) = match g.headroom_left_phrase() {
            Some(left) => (m.total_gib, format!(", {left}")),
            None => (m.required_gib, String::new()),
        };
        lines.push(format!(
            "{prefix}GPU {} {}: {:.1} of {:.1} GiB ({}{extra}): weights {:.1}, KV {:.1}, activations {:.1}, grads {:.1}, optimizer {:.1}, runtime {:.1}, headroom {:.1}",
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
        ));
    }
    lines
}

/// The memory of each GPU under the user's own llama.cpp placement `p` (flags given), one line
/// each: what llama.cpp's table for those arguments puts there (`self` against the free memory,
/// with its model, context and compute), and where the placement puts the weights
/// ([`crate::estimate::llm::placement::PlacementEstimate::words`]).
pub fn placement_gpu_lines(f: &FitReport, p: &crate::estimate::llm::placement::PlacementEstimate) -> Vec<String> {
    const MIB_PER_GIB: f64 = 1024.0;
    f.gpus
        .iter()
        .zip(p.table.rows.iter().filter(|r| r.free_mib.is_some()))
        .map(|(g, r)| {
            let free = r.free_mib.unwrap_or(0.0);
            format!(
                "GPU {} {}: {:.1} of {:.1} GiB free ({}) with {} ({}): model {:.1}, context {:.1}, compute {:.1}",
                g.index + 1,
                g.gpu_id,
                r.self_mib() / MIB_PER_GIB,
                free / MIB_PER_GIB,
                if r.self_mib() <= free { "fits" } else { "does not fit" },
                p.words,
                p.table.args,
                r.model_mib / MIB_PER_GIB,
                r.context_mib / MIB_PER_GIB,
                r.compute_mib / MIB_PER_GIB,
            )
        })
        .collect()
}

/// The headline and memory per GPU ([`gpu_lines`]); `split`: the expert offload the workload
/// fits with ([`BuildFit::fits_with_experts_in_ram`]), said as the verdict, whose placement the
/// per-GPU lines show.
///
/// `given`: the user's own llama.cpp placement (flags given) where it does not run: the per-GPU
/// lines are its memory ([`placement_gpu_lines`]), not the every-weight-on-the-GPUs estimate.
pub fn memory(
    out: &mut String,
    f: &FitReport,
    build_name: &str,
    split: Option<&search::MoeOffload>,
    given: Option<&crate::estimate::llm::placement::PlacementEstimate>,
) {
    wln!(
        out,
        "{} on {}: {} ({} {}, {}, context {}, batch {}, {})",
        f.model_id,
        build_name,
        if let Some(o) = split {
            o.headline().to_owned()
        } else {
            // A tight fit below the context asked says so in the verdict (exit 3).
            f.short_of_headroom().map_or_else(|| f.verdict.to_string(), |s| s.to_string())
        },
        f.mode,
        // QLoRA re-quantizes its base to NF4 whatever the precision named.
        if f.mode == crate::estimate::llm::Mode::Qlora { "nf4".to_owned() } else { f.weight_precision.to_string() },
        f.parallelism,
        f.context_tokens,
        f.batch,
        f.runtime_label
    );
    // Whether the runtime runs on these GPUs, by its own requirements: a refusal is the
    // verdict's reason; a requirement the catalog cannot check is said, never assumed.
    for s in &f.runtime_support {
        match &s.support {
            Support::DoesNotRun(why) => wln!(out, "  does not run: {why}"),
            Support::NotChecked(why) | Support::Unpublished(why) => wln!(out, "  runtime support not checked: {why}"),
            Support::Runs => {}
        }
    }
    wln!(out, "  weights {:.1} GiB in all, KV cache {:.1} GiB in all", f.weights_total_gib, f.kv_cache_total_gib);
    let kv = &f.kv_layout;
    if kv.state_layers > 0 {
        wln!(
            out,
            "  KV cache {:.1} KiB per token ({}) in the {} full-attention layers of {}; the {} linear-attention layers keep a fixed {:.1} MiB state per sequence instead",
            kv.bytes_per_token / 1024.0,
            f.kv_precision,
            kv.kv_layers,
            kv.kv_layers + kv.state_layers,
            kv.state_layers,
            kv.state_bytes_per_sequence / (1024.0 * 1024.0)
        );
    }
    if let Some(ic) = f.interconnect {
        wln!(
            out,
            "  {} nodes of {} GPU{}, linked by {ic} ({:.1} GB/s per direction); {} GPUs used",
            f.nodes,
            f.gpus_per_node,
            if f.gpus_per_node == 1 { "" } else { "s" },
            ic.per_direction_gb_s(),
            f.gpus.len()
        );
    }
    let lines = match (split, given) {
        (None, Some(p)) => placement_gpu_lines(f, p),
        _ => gpu_lines(f, split),
    };
    for l in lines {
        wln!(out, "  {l}");
    }
    if let Some(c) = f.max_context_tokens.filter(|_| f.verdict != FitVerdict::DoesNotFit) {
        wln!(out, "  longest context that fits at this batch: {c} tokens");
    }
    if let Some(p) = &f.vllm {
        vllm_pool(out, p, f);
    }
    if let Some(t) = &f.llama_cpp {
        llama_cpp_table(out, t);
    }
    let b = &f.memory_basis;
    match b.band_pct {
        Some(band) => {
            wln!(out, "  memory basis: held to {} published figures within ±{band:.0} %", b.calibrated_to.len());
        }
        None => wln!(out, "  memory basis: not held to a published table for {} (band unknown)", f.runtime_label),
    }
    for c in &b.calibrated_to {
        wln!(out, "    - {c}");
    }
    wln!(out, "  measure it: {}", b.measure);
}

/// A training estimate: the framework and its sharding, the peak as PyTorch reports it, tokens/s
/// and step time, hours for the dataset, the advice, the multi-GPU options, and the basis of the
/// speed with the command that measures it.
pub fn training(out: &mut String, t: &crate::estimate::llm::train::TrainingReport, f: &FitReport) {
    wln!(
        out,
        "  training: {} ({}), optimizer {}, {:.1} M trained parameters",
        t.runtime,
        t.setup,
        t.optimizer,
        t.trained_params_m
    );
    let mut extra = Vec::new();
    if t.paged_optimizer_gib > 0.0 {
        extra.push(format!(
            "; paged optimizer states {:.1} GiB in CUDA unified memory (paged to host RAM when the GPU is full)",
            t.paged_optimizer_gib
        ));
    }
    if t.host_offload_gib > 0.0 {
        extra.push(format!("; {:.1} GiB of states offloaded to host RAM", t.host_offload_gib));
    }
    let extra = extra.concat();
    wln!(
        out,
        "  peak as torch.cuda.max_memory_allocated reports it (fullest GPU): {:.1} GiB{extra}",
        t.peak_allocated_gib
    );
    match &t.speed {
        Some(s) => {
            wln!(
                out,
                "  speed: {:.0} tokens/s over {} GPU{}; step {:.2} s = compute {:.2} + dequantize {:.2} + exposed communication {:.2} (of {:.2} s, {:.2} GB per GPU{})",
                s.tokens_per_s,
                f.gpus.len(),
                if f.gpus.len() == 1 { "" } else { "s" },
                s.step_s,
                s.compute_s,
                s.dequant_s,
                s.comm_exposed_s,
                s.comm_s,
                s.comm_gb_per_gpu,
                s.link.as_ref().map_or_else(String::new, |l| format!(" over {l}"))
            );
            wln!(
                out,
                "    {:.1} GFLOP per token at MFU {:.2} of {:.0} TFLOP/s BF16 ({})",
                s.flops_per_token / 1e9,
                s.mfu,
                s.peak_tflops,
                s.gpu_class
            );
        }
        None => wln!(
            out,
            "  speed: unknown (no published training run calibrates an MFU for these GPUs' class, or a BF16 rate is missing)"
        ),
    }
    if let (Some(h), Some(tok)) = (t.hours, t.training_tokens) {
        wln!(out, "  time: {h:.1} h for {:.3} B training tokens ({:.1} days)", tok / 1e9, h / 24.0);
    }
    for a in &t.advice {
        wln!(out, "  advice: {a}");
    }
    if !t.options.is_empty() {
        wln!(out, "  on these {} GPUs:", f.gpus.len());
        for o in &t.options {
            wln!(
                out,
                "    {:<24} {:<40} peak {:>6.1} GiB  {:<13} {}",
                o.runtime.to_string(),
                o.setup,
                o.peak_gib,
                if o.fits { "fits" } else { "does not fit" },
                o.tokens_per_s.map_or_else(|| "tokens/s unknown".to_owned(), |v| format!("{v:.0} tokens/s"))
            );
        }
    }
    let b = &f.speed_basis;
    match b.band_pct {
        Some(band) => wln!(
            out,
            "  speed basis ({}): held to {} published training runs within ±{band:.0} %",
            f.runtime_label,
            b.calibrated_to.len()
        ),
        None => wln!(
            out,
            "  speed basis ({}): no published run of this framework holds the speed (band unknown); the MFU is calibrated on torchtune's runs",
            f.runtime_label
        ),
    }
    for c in &b.calibrated_to {
        wln!(out, "    - {c}");
    }
    for n in &b.not_measured_on {
        wln!(out, "  not validated: {n}");
    }
    wln!(out, "  measure it: {}", b.measure);
}

/// The hardware prices older than 12 months, with their dates and ages (one line; nothing when
/// every price is recent or undated).
pub(crate) fn stale_prices(out: &mut String, result: &BuildFit, catalog: &kraftwerk_catalog::Catalog) {
    let Some(c) = &result.cost else { return };
    let today = kraftwerk_catalog::dates::today_utc();
    let stale: Vec<String> = c
        .parts
        .iter()
        // An owned unit is not bought: its price's age does not matter.
        .filter(|p| p.bought.as_deref() != Some(kraftwerk_catalog::cited::OWNED_SOURCE))
        .filter_map(|p| {
            let date = catalog.price_of(&p.id)?.date?;
            let months = kraftwerk_catalog::prices::age_months(date, today)?;
            kraftwerk_catalog::prices::stale_text(months)?;
            Some(format!("{} ({})", p.name, kraftwerk_catalog::prices::date_note(date, today)))
        })
        .collect();
    if !stale.is_empty() {
        wln!(out, "  prices older than 12 months: {}", stale.join("; "));
    }
}

/// The cited used prices of the build's parts, beside their new prices, or `owned` for a unit
/// the build owns (one line; nothing when no part has one). The cost above counts the new prices; `plan --used` plans with these.
pub(crate) fn used_prices(out: &mut String, result: &BuildFit) {
    let Some(c) = &result.cost else { return };
    let today = kraftwerk_catalog::dates::today_utc();
    let used: Vec<String> = c
        .parts
        .iter()
        .filter_map(|p| {
            let u = p.used_price.as_ref()?;
            // An owned unit costs $0 in the cost above: it is "owned", not "new $0.00".
            let new = if p.bought.as_deref() == Some(kraftwerk_catalog::cited::OWNED_SOURCE) {
                "owned".to_owned()
            } else {
                p.unit_price_usd.map_or_else(|| "no new price".to_owned(), |n| format!("new {}", usd(n)))
            };
            Some(format!(
                "{}: used {} each ({}, {} <{}>), {new}",
                p.name,
                usd(u.usd),
                kraftwerk_catalog::prices::date_note(&u.date, today),
                u.source,
                u.url
            ))
        })
        .collect();
    if !used.is_empty() {
        wln!(out, "  used prices (cited, not in the cost above; plan --used plans with them): {}", used.join("; "));
    }
}

/// Decode and prefill with their basis and band, and the cost per million tokens with its
/// break-even against the cloud (or why the cost is unknown).
pub(crate) fn speed_and_cost(out: &mut String, result: &BuildFit) {
    let f = &result.fit;
    if let Some(s) = &f.speed {
        wln!(
            out,
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
            wln!(out, "  prefill: {p:.0} tok/s, first token after {t:.2} s");
        } else {
            wln!(out, "  prefill: unknown (a tensor rate this precision needs is not in the catalog; see notes)");
        }
        if s.pipeline_stages > 1 {
            wln!(
                out,
                "  pipeline: {} stages, handoffs {:.2} ms per token at batch 1{}{}",
                s.pipeline_stages,
                s.stage_handoff_ms_per_token,
                s.slowest_stage_ms.map_or_else(String::new, |v| format!(", slowest stage {v:.1} ms per step")),
                s.prefill_pipelined_tokens_per_s
                    .map_or_else(String::new, |v| format!(", prefill of many prompts {v:.0} tok/s"))
            );
        }
        if let Some(l) = &s.inter_node_link {
            wln!(out, "  between nodes: {l}");
        }
        let b = &f.speed_basis;
        let runtime =
            b.era.as_ref().map_or_else(|| f.runtime.to_string(), |e| format!("{}, calibrated to {e}", f.runtime));
        match b.band_pct {
            Some(band) => wln!(
                out,
                "  speed basis ({runtime}): held to {} published measurements within ±{band:.0} %",
                b.calibrated_to.len()
            ),
            None => wln!(out, "  speed basis ({runtime}): not held to a published measurement (band unknown)"),
        }
        for c in &b.calibrated_to {
            wln!(out, "    - {c}");
        }
        for n in &b.not_measured_on {
            wln!(out, "  not validated: {n}");
        }
        placement_terms(out, b);
        wln!(out, "  measure it: {}", b.measure);
    }
    cost(out, result);
}

/// The host terms a placement with weights in system RAM rests on
/// ([`crate::estimate::llm::basis::SpeedBasis::placement_terms`]), one line each; nothing for
/// a placement all on the GPUs.
pub fn placement_terms(out: &mut String, b: &crate::estimate::llm::basis::SpeedBasis) {
    for t in &b.placement_terms {
        wln!(out, "  {t}");
    }
}

/// The cost lines `fit` prints for a workload that runs (on the GPUs, or with its experts in
/// system RAM at the split's decode): hardware, $ per working hour, $ per million tokens, the
/// owned and used parts, the cloud offer and the break-even; else why there is no cost. While
/// a part is unpriced ([`crate::estimate::cost::CostReport::lower_bounds`]) the hardware, the
/// $ per working hour, the $ per million tokens and the break-even read "at least" (each grows
/// with the hardware left out) and the unpriced parts are named; the cloud offer's own $ per
/// million tokens (rent only, at its own throughput) does not depend on the build's hardware
/// and is printed as it is. The rig's $ per million tokens is its hardware over the write-off
/// and its electricity over its own throughput; the break-even holds the rig against renting
/// the same tokens where both throughputs are known, so it never contradicts the two.
pub(crate) fn cost(out: &mut String, result: &BuildFit) {
    if let Some(c) = &result.cost {
        // An owned part is priced ($0): a build of owned parts costs $0, not "unpriced".
        let any_priced = c.parts.iter().any(|p| p.line_usd.is_some());
        let hardware = match (any_priced, c.hardware_complete) {
            (false, _) => "unpriced".to_owned(),
            (true, true) => usd(c.hardware_usd),
            (true, false) => format!("at least {}", usd(c.hardware_usd)),
        };
        let missing: Vec<String> = c
            .missing_prices
            .iter()
            .map(|id| match c.parts.iter().find(|p| &p.id == id).and_then(|p| p.bought.as_deref()) {
                Some(why) => format!("{id} ({why})"),
                None => id.clone(),
            })
            .collect();
        // Each figure that grows with the hardware is a lower bound while a part is unpriced.
        let least = if c.hardware_complete { "" } else { "at least " };
        wln!(
            out,
            "  cost: hardware {hardware}{}, {least}${:.2} per working hour, {} (hardware over {:.0} years and electricity)",
            if c.hardware_complete {
                String::new()
            } else {
                format!(" (no catalog price for: {})", missing.join(", "))
            },
            c.usd_per_working_hour,
            c.usd_per_million_tokens
                .map_or_else(|| "no $/Mtok".to_owned(), |v| format!("{least}{} per million tokens", usd_rate(v))),
            c.amortization_months / 12.0
        );
        // The lines the build owns or buys used, so the total reads as what is paid.
        let how: Vec<String> = c
            .parts
            .iter()
            .filter_map(|p| {
                let b = p.bought.as_deref()?;
                let paid = match p.line_usd {
                    None => "unpriced".to_owned(),
                    Some(0.0) => "$0".to_owned(),
                    Some(v) => usd(v),
                };
                Some(format!("{}x {} {b} ({paid})", p.quantity, p.name))
            })
            .collect();
        if !how.is_empty() {
            wln!(out, "  owned and used parts in the cost: {}", how.join("; "));
        }
        // The break-even, or why there is none ([`crate::estimate::cost::BreakEven`]), against
        // renting the same tokens where both throughputs are known; with unpriced hardware the
        // months are only a lower bound and the words name the unpriced parts (issue 26).
        wln!(
            out,
            "  cloud ({} at ${:.2}/h): {}; {}",
            c.cloud.name,
            c.cloud.usd_per_hour,
            c.cloud.usd_per_million_tokens.map_or_else(
                || "n/a".to_owned(),
                |v| format!("{} per million tokens (rent only, at its own speed)", usd_rate(v))
            ),
            c.cloud.break_even.words(c),
        );
    } else if let Some(e) = &result.cost_error {
        wln!(out, "  cost: {e}");
    }
}

/// What `fit --measured FILE` found: the comparison ([`Calibration`], from the core, as `plan
/// --measured` uses it) and this fit's figures corrected by it.
#[derive(Debug, serde::Serialize)]
pub struct Measured {
    /// The comparison and its factors.
    #[serde(flatten)]
    pub calibration: Calibration,
    /// This fit's decode at batch 1, corrected, tokens/s.
    pub corrected_decode_batch1_tok_s: Option<f64>,
    /// This fit's aggregate decode at its batch, corrected, tokens/s.
    pub corrected_decode_batch_tok_s: Option<f64>,
    /// This fit's prefill, corrected, tokens/s.
    pub corrected_prefill_tok_s: Option<f64>,
}

impl Measured {
    /// Compares a measured file (llama-bench JSON/JSONL/CSV or a `vllm bench serve
    /// --save-result` JSON, read by [`MeasuredFile::read`]) with this build
    /// ([`calibrate::calibrate`], which refuses another machine's or another model's), and
    /// scales `result`'s figures with [`Calibration::scale_decode`] and
    /// [`Calibration::scale_prefill`]. `confirmed_gpu`: the GPU the user says the file was
    /// measured on, for files that name none.
    ///
    /// # Errors
    /// The file cannot be read or parsed, or is not a measurement of this build and model (the
    /// message names the file).
    pub fn of(
        path: &std::path::Path,
        confirmed_gpu: Option<&String>,
        build: &crate::rig::Build,
        catalog: &kraftwerk_catalog::Catalog,
        opts: &FitOptions,
        result: &BuildFit,
    ) -> Result<Measured, String> {
        let m = MeasuredFile::read(path, confirmed_gpu.cloned())?;
        let calibration =
            calibrate::calibrate(&m, build, catalog, opts).map_err(|e| format!("{}: {e}", path.display()))?;
        let speed = result.fit.speed.as_ref();
        Ok(Measured {
            corrected_decode_batch1_tok_s: speed.and_then(|s| calibration.scale_decode(s.decode_batch1_tokens_per_s)),
            corrected_decode_batch_tok_s: speed.and_then(|s| calibration.scale_decode(s.decode_batch_tokens_per_s)),
            corrected_prefill_tok_s: speed
                .and_then(|s| s.prefill_tokens_per_s)
                .and_then(|p| calibration.scale_prefill(p)),
            calibration,
        })
    }
}

/// The comparison with a measured file: each test's measured and estimated tokens/s, and the
/// corrected decode and prefill of `result` (none when the file names no GPU).
pub fn measured(out: &mut String, r: &Measured, result: &BuildFit) {
    let m = &r.calibration;
    match (&m.gpu_info, &m.vllm_bench) {
        (Some(g), None) => wln!(out, "measured ({}, {} on {g}):", m.file, m.source),
        (g, Some(b)) => wln!(
            out,
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
        (None, None) => wln!(out, "measured ({}, {}):", m.file, m.source),
    }
    if let Some(why) = &m.gpus_unchecked {
        wln!(out, "  warning: {why}");
    } else if let Some(g) = &m.confirmed_gpu {
        wln!(out, "  measured on {g} (as you confirmed with --measured-gpu)");
    }
    wln!(out, "  {:<32} {:>14} {:>14} {:>17}", "test", "measured tok/s", "estimate tok/s", "measured/estimate");
    for c in &m.comparisons {
        let (e, r) = match (c.estimated_tok_s, c.ratio()) {
            (Some(e), Some(r)) => (format!("{e:.1}"), format!("{r:.2}")),
            _ => ("unknown".into(), "-".into()),
        };
        wln!(out, "  {:<32} {:>14.1} {:>14} {:>17}", c.test, c.measured_tok_s, e, r);
    }
    if m.gpus_unchecked.is_some() {
        wln!(out, "  corrected decode and prefill: not corrected (the file names no GPU; see the warning above)");
        return;
    }
    if !result.runs() {
        wln!(
            out,
            "  corrected decode and prefill: none (the workload does not fit this build, so it has no speed to correct)"
        );
        return;
    }
    match (m.decode_factor, r.corrected_decode_batch1_tok_s, r.corrected_decode_batch_tok_s) {
        (Some(k), Some(b1), Some(bn)) => wln!(
            out,
            "  corrected decode at context {}: {b1:.1} tok/s at batch 1 (x {k:.2}), {bn:.1} tok/s in all at batch {}",
            result.fit.context_tokens,
            result.fit.batch
        ),
        _ => wln!(out, "  corrected decode: not known (no generation test with a known estimate)"),
    }
    match (m.prefill_factor, r.corrected_prefill_tok_s) {
        (Some(k), Some(p)) => wln!(out, "  corrected prefill: {p:.0} tok/s (x {k:.2})"),
        _ => wln!(out, "  corrected prefill: not known (no prompt test with a known estimate)"),
    }
}

/// The user's own llama.cpp placement (flags given) where it does not run: what overflows, each
/// device with the MiB it needs against its free MiB, and the system RAM where that falls short
/// (`the placement as given (ARGS) does not fit: ...`). `None` when no placement was given, it
/// runs, or it fits with experts in RAM. `kraftwerk fit` and the Fit tab print this line.
pub fn placement_as_given_overflow(result: &BuildFit) -> Option<String> {
    let p = result.placement.as_ref().filter(|p| p.as_given && result.fits_with_experts_in_ram.is_none())?;
    if result.runs() {
        return None;
    }
    let mut over: Vec<String> = p
        .table
        .rows
        .iter()
        .filter_map(|r| {
            let free = r.free_mib?;
            (r.self_mib() > free).then(|| format!("{} needs {:.0} MiB, {free:.0} MiB free", r.device, r.self_mib()))
        })
        .collect();
    if let (Some(false), Some(ram)) = (p.fits_in_host_ram, p.host_ram) {
        // One wording and rounding for a RAM shortfall (`HostRam::need_vs_has`): never
        // "needs 40 of 40".
        over.push(format!("it needs {}", ram.need_vs_has(p.host_ram_needed_gib)));
    }
    (!over.is_empty()).then(|| format!("the placement as given ({}) does not fit: {}", p.table.args, over.join("; ")))
}

/// An offload's decode and prefill in words: `about 28.3 tok/s decode, 536 tok/s prefill`,
/// "prefill unknown" or "decode unknown" where the estimate has none.
fn offload_speed(o: &search::MoeOffload) -> String {
    match (o.decode_tokens_per_s, o.prefill_tokens_per_s) {
        (Some(d), Some(p)) => format!("about {d:.1} tok/s decode, {p:.0} tok/s prefill"),
        (Some(d), None) => format!("about {d:.1} tok/s decode, prefill unknown"),
        _ => "decode unknown".to_owned(),
    }
}

/// Where the user's placement does not fit: the smallest `--n-cpu-moe` that keeps llama.cpp's
/// 1024 MiB margin on every GPU together with the other flags given ([`BuildFit::placement_that_fits`]), its RAM-held experts (GiB) and its
/// decode and prefill (tok/s, "unknown" where the estimate has none). `kraftwerk fit` and the
/// Fit tab print this line.
pub fn placement_that_fits_line(result: &BuildFit) -> Option<String> {
    let o = result.placement_that_fits.as_ref()?;
    Some(format!(
        "llama.cpp with --n-cpu-moe {}, the smallest that keeps llama.cpp's 1024 MiB free on every GPU with the other flags given ({}): {:.1} GiB of routed experts in system RAM, {}",
        o.n_cpu_moe,
        o.args,
        o.host_experts_gib,
        offload_speed(o)
    ))
}

/// Where the user's placement runs with more routed experts in system RAM than the GPUs need
/// ([`BuildFit::placement_with_fewer_in_ram`]): the smallest `--n-cpu-moe` that keeps llama.cpp's
/// 1024 MiB free on every GPU, its experts in RAM (GiB), decode and prefill (tok/s), beside the
/// placement's own decode. `kraftwerk fit` and the Fit tab print this line.
pub fn fewer_in_ram_line(result: &BuildFit) -> Option<String> {
    let o = result.placement_with_fewer_in_ram.as_ref()?;
    let mine = result.fits_with_experts_in_ram.as_ref().and_then(|p| p.decode_tokens_per_s);
    Some(format!(
        "fewer experts in system RAM fit: --n-cpu-moe {} ({}) keeps llama.cpp's 1024 MiB free on every GPU with {:.1} GiB of routed experts in RAM: {}{}",
        o.n_cpu_moe,
        o.args,
        o.host_experts_gib,
        offload_speed(o),
        mine.map_or_else(String::new, |d| format!(" (this placement: {d:.1} tok/s decode)"))
    ))
}

/// The whole text of `kraftwerk fit` for `result` (of `build`, priced from `pricing`: the
/// build's own catalog view with used and owned prices), in the order it prints: the model
/// file (`model_file`: its one-line summary), memory and verdict, then either the
/// experts-in-RAM fit, the alternatives (with training advice), or the training advice, speed
/// and cost; the all-experts-in-RAM figure for runtimes other than llama.cpp; the RAM speed the
/// offload figures use; the speed as every view spells it (`speed`:
/// [`crate::estimate::speed_summary::SpeedSummary::of_fit`] of `result`) with its caveats; the
/// fit's notes.
pub fn text(
    result: &BuildFit,
    build_name: &str,
    pricing: &kraftwerk_catalog::Catalog,
    model_file: Option<&str>,
    speed: &crate::estimate::speed_summary::SpeedSummary,
) -> String {
    let mut out = String::new();
    let out = &mut out;
    if let Some(f) = model_file {
        wln!(out, "model file {f}");
    }
    // The user's own placement where it does not run: its memory, and what overflows.
    let given = result.placement.as_ref().filter(|p| p.as_given && result.fits_with_experts_in_ram.is_none());
    memory(out, &result.fit, build_name, result.fits_with_experts_in_ram.as_ref(), given);
    if let Some(l) = placement_as_given_overflow(result) {
        wln!(out, "  {l}");
    }
    if let Some(o) = &result.fits_with_experts_in_ram {
        experts_in_ram_fit(out, o, result);
        if let Some(l) = fewer_in_ram_line(result) {
            wln!(out, "  {l}");
        }
        used_prices(out, result);
        stale_prices(out, result, pricing);
    } else if let Some(alt) = &result.alternatives {
        alternatives(out, alt, &result.fit, result.placement.as_ref());
        if let Some(l) = placement_that_fits_line(result) {
            wln!(out, "  - {l}");
        }
        // A training run that does not fit: its framework's advice (sharding, offload, 8-bit
        // optimizer, checkpointing) is what would fit.
        if let Some(t) = &result.fit.training {
            training(out, t, &result.fit);
        }
    } else {
        if let Some(t) = &result.fit.training {
            training(out, t, &result.fit);
        }
        speed_and_cost(out, result);
        used_prices(out, result);
        stale_prices(out, result, pricing);
    }
    // Beside llama.cpp's own plan (the table's arguments) the all-experts-in-RAM figure would
    // be a second plan: it is in the JSON, printed for the other runtimes.
    if result.fit.llama_cpp.is_none() {
        all_experts_in_ram(out, result);
    }
    // The RAM speed the offload figures above were read at, and why (kit, CPU rating).
    let offloads = result.experts_in_ram.is_some()
        || result.alternatives.as_ref().is_some_and(|a| a.offload.is_some() || a.moe_offload.is_some());
    if let Some(sp) = result.host_ram_speed.as_ref().filter(|_| offloads) {
        wln!(
            out,
            "  system RAM read at {} MT/s{}: {}",
            sp.mt_s,
            result.host_bandwidth_gb_s.map_or_else(String::new, |b| format!(" ({b:.1} GB/s theoretical)")),
            sp.basis
        );
    }
    // The one spelling of the speed `plan`, the Fit tab and the Plan tab print too.
    if result.fit.training.is_none() {
        wln!(out, "  speed: {}", speed.line());
        for c in speed.caveat_lines() {
            wln!(out, "  {c}");
        }
    }
    for n in &result.fit.notes {
        wln!(out, "  note: {n}");
    }
    std::mem::take(out)
}

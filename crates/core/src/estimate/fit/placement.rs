//! The llama.cpp-family placement a fit reports: the user's flags or the searched placement
//! (`placement_of`), the smallest `--n-cpu-moe` that fits (`smallest_n_cpu_moe`), and what the
//! report says of it (`apply_placement`: its table, its measuring commands, and its decode and
//! prefill where weights sit in system RAM, with the terms they rest on).

use super::FitBuildError;
use crate::estimate::llm::{self, FitInput, FitReport, GpuSlot, Runtime, search};

/// The smallest `--n-cpu-moe` that runs with the user's other llama.cpp flags (`flags` less
/// their `-ot` rules) and keeps llama.cpp's 1024 MiB free on every GPU (the margin of its own
/// placement search), placed as [`llm::placement::place_as_given`] places the user's own;
/// `None` for a model without routed experts or when none runs.
pub(super) fn smallest_n_cpu_moe(
    input: &FitInput,
    used: &[GpuSlot],
    host: Option<llm::host::HostMemory>,
    ram: Option<search::HostRam>,
    flags: &llm::placement::LlamaCppFlags,
) -> Option<search::MoeOffload> {
    input.model.experts.as_ref().filter(|e| e.routed > 0)?;
    for n in 0..=input.model.layers {
        let f = llm::placement::LlamaCppFlags { n_cpu_moe: Some(n), overrides: Vec::new(), ..flags.clone() };
        let p = llm::placement::place_as_given(input, used, host, ram, &f).ok()?;
        // The advice keeps llama.cpp's own margin (`llama-fit-params` leaves 1024 MiB free on
        // every GPU): a placement that only just fits its free memory runs out of it on a real
        // card (a trial was told 45 on a build whose automatic placement is 48, with 59 MiB
        // left on one GPU).
        if p.table.fits {
            // More experts in RAM only needs more RAM: the first that fits the GPUs decides.
            return p.runs().then(|| search::MoeOffload::of(&p));
        }
    }
    None
}

/// Where the user's own placement runs with more routed experts in system RAM than the GPUs
/// need: the smallest `--n-cpu-moe` that keeps llama.cpp's margin with their other flags
/// ([`smallest_n_cpu_moe`]), when it keeps at least 0.5 GiB fewer experts in RAM than `given`
/// (a trial's `--n-cpu-moe 30` on two 24 GB cards left 20 GiB of VRAM idle, bounded by system
/// RAM, and `fit` did not say that fewer would fit). `None` otherwise.
pub(super) fn fewer_in_ram(
    input: &FitInput,
    used: &[GpuSlot],
    host: Option<llm::host::HostMemory>,
    ram: Option<search::HostRam>,
    flags: &llm::placement::LlamaCppFlags,
    given: &llm::placement::PlacementEstimate,
) -> Option<search::MoeOffload> {
    if !given.runs() {
        return None;
    }
    let mine = search::MoeOffload::of(given).host_experts_gib;
    smallest_n_cpu_moe(input, used, host, ram, flags).filter(|o| o.host_experts_gib + 0.5 < mine)
}

/// The llama.cpp-family placement of `input` on `used`: the user's flags when given (refused
/// for runtimes outside the llama.cpp family), else the one `llama-fit-params` picks.
pub(super) fn placement_of(
    input: &FitInput,
    used: &[GpuSlot],
    host: Option<llm::host::HostMemory>,
    ram: Option<search::HostRam>,
    flags: &llm::placement::LlamaCppFlags,
) -> Result<Option<llm::placement::PlacementEstimate>, FitBuildError> {
    let rt = input.resolved_runtime();
    // llama.cpp's flags (a micro-batch `-ub` among them) under another runtime are refused
    // first: ktransformers' own placement would otherwise run without the flag saying so.
    if flags.any() && !rt.is_llama_cpp_family() {
        return Err(FitBuildError::Parse(format!(
            "--n-cpu-moe, -ot, --split-mode, --tensor-split, -ngl and -ub are llama.cpp flags; the runtime is {rt} (give --runtime llama.cpp or ik_llama.cpp)"
        )));
    }
    if rt == Runtime::KTransformers && !input.mode.is_training() {
        // ktransformers' placement: its optimize rules keep every routed expert on the CPU.
        return Ok(llm::placement::all_experts_in_ram(input, &used[..1.min(used.len())], host, ram));
    }
    if flags.places() {
        return llm::placement::place_as_given(input, used, host, ram, flags)
            .map(Some)
            .map_err(|e| FitBuildError::Estimate(e.to_string()));
    }
    if !rt.is_llama_cpp_family() || input.mode.is_training() {
        return Ok(None);
    }
    Ok(llm::placement::searched(input, used, host, ram))
}

/// The command that measures the memory of a llama.cpp placement whose llama-server arguments
/// are `args` (`-c 16384 -ngl 94 --n-cpu-moe 50 -ub 2048 -ts 71,23`): llama-server loads it
/// and prints its per-device breakdown on exit; mainline's llama-fit-params prints the
/// placement llama.cpp would choose itself, for comparison.
fn placement_memory_command(fit: &FitReport, args: &str) -> String {
    let id = &fit.model_id;
    if fit.runtime == llm::Runtime::IkLlamaCpp {
        format!("ik_llama.cpp's llama-server -m <{id}.gguf> {args} and read the buffer sizes it prints while loading")
    } else {
        format!(
            "llama-server -m <{id}.gguf> {args} and read llama_memory_breakdown_print when it exits \
             (llama-fit-params -m <{id}.gguf> {} prints the placement llama.cpp would choose itself)",
            llm::runtime_memory::context_args(fit.context_tokens, fit.batch)
        )
    }
}

/// Makes `fit` say what placement `p` does: its llama.cpp table where the user gave flags (or
/// the runtime is llama.cpp), and, where `p` keeps experts or layers in system RAM, its decode
/// and prefill in place of the all-GPU figures (`None` where unknown).
pub(super) fn apply_placement(fit: &mut FitReport, p: &llm::placement::PlacementEstimate, given: bool) {
    if given || fit.llama_cpp.is_some() {
        fit.llama_cpp = Some(p.table.clone());
    }
    // The memory "measure it" loads this placement (its -ngl, expert overrides, -ub and split),
    // not llama-server's defaults, whose compute buffer and split differ (a trial found the
    // command without the given -ub).
    if fit.runtime.is_llama_cpp_family() && (given || fit.llama_cpp.is_some() || p.is_hybrid()) {
        fit.memory_basis.measure = placement_memory_command(fit, &p.table.args);
    }
    if !p.is_hybrid() && !given {
        return;
    }
    // "Measure it" measures this placement: llama-bench with its flags, not every layer on the
    // GPUs (which a build that needs experts in RAM cannot load).
    if fit.runtime.is_llama_cpp_family() {
        let bench = llm::basis::llama_bench_command(
            &fit.model_id,
            fit.context_tokens,
            &llm::placement::llama_bench_args(&p.table.args),
        );
        fit.speed_basis.measure = if fit.runtime == llm::Runtime::IkLlamaCpp {
            bench.replace("llama-bench", "ik_llama.cpp's llama-bench")
        } else {
            bench
        };
        // With weights in system RAM the decode and prefill rest on the host terms, not only on
        // the all-GPU rows above: name them and their rows (a trial found the basis citing
        // dense all-GPU rows only for a hybrid fit).
        if p.is_hybrid() {
            fit.speed_basis.placement_terms = hybrid_basis_lines().into();
        }
    }
    // An unknown decode (no memory in the build, RAM too small, row split) leaves no speed.
    let (Some(d1), Some(db)) = (p.decode_tokens_per_s, p.decode_batch_tokens_per_s) else {
        fit.speed = None;
        return;
    };
    if let Some(s) = fit.speed.as_mut() {
        let ctx = f64::from(fit.context_tokens);
        s.decode_batch1_tokens_per_s = d1;
        s.decode_batch_tokens_per_s = db;
        s.decode_per_sequence_tokens_per_s = db / f64::from(fit.batch.max(1));
        s.bytes_per_token_gb = p.gpu_gb_per_token + p.host_gb_per_token;
        s.prefill_tokens_per_s = p.prefill_tokens_per_s;
        s.time_to_first_token_s = p.prefill_tokens_per_s.map(|v| ctx / v);
        s.prefill_pipelined_tokens_per_s = p.prefill_tokens_per_s;
        s.prefill_packed_tokens_per_s = p.prefill_tokens_per_s;
    }
}

/// What a llama.cpp-family placement with weights in system RAM rests on, beside the all-GPU
/// rows of [`llm::basis::speed_basis`]: the host decode terms and the prefill's copy rate, with
/// the rows they were fitted on (cited in their docstrings) and the table that holds them.
fn hybrid_basis_lines() -> [String; 3] {
    use llm::host::{HOST_DECODE_BANDWIDTH_EFFICIENCY, LLAMA_CPP_HOST_LAYER_OVERHEAD_S};
    use llm::placement::{HOST_TO_GPU_COPY_EFFICIENCY, PINNED_OVER_PAGEABLE_COPY};
    [
        format!(
            "experts in RAM, decode: the system RAM bandwidth taken at {HOST_DECODE_BANDWIDTH_EFFICIENCY} of its theoretical rate (a judgement from STREAM-like reads) plus {:.0} µs per layer computed on the CPU (fitted on r/LocalLLaMA 1mieqcb n736v47: EPYC 9B14, 12 x DDR5-4800, Qwen3-30B-A3B Q4_K_M tg128 59.78 tok/s)",
            LLAMA_CPP_HOST_LAYER_OVERHEAD_S * 1e6
        ),
        format!(
            "experts in RAM, prefill: the RAM-held experts a micro-batch uses copied over the host link at {HOST_TO_GPU_COPY_EFFICIENCY} x its rate (pageable, mmap on; fitted on one row, r/LocalLLaMA 1tany5t: gpt-oss-120b, RTX 3090, --n-cpu-moe 26 -ub 512, pp4096 380.27 tok/s; above 1 because llama.cpp copies only the experts a micro-batch uses, PR 15346, and real routing touches fewer than uniform routing), x {PINNED_OVER_PAGEABLE_COPY:.3} pinned (--no-mmap; NVIDIA cuda-oxide pinned vs pageable copies, RTX 4090, PCIe 4.0 x16); not validated on PCIe 3.0 or 5.0 links"
        ),
        "experts in RAM: held against the published hybrid runs of tests/all/llm_fit/moe_2026.rs (e.g. carteakey/lllms: RTX 4070 + i5-12600K, 2 x DDR5-5867, gpt-oss-120b with blk 5+ experts on the CPU, tg 23.36 tok/s, pp512 427.92); the rows outside ±25 % are listed there with their reasons".to_owned(),
    ]
}

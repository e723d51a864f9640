//! A build's GPU power limits in the fit: the capped GPU the estimate runs on
//! ([`at_power_limit`]), the note that says what the limits keep ([`power_limit_note`]) and the
//! commands that set them before a measurement ([`power_limit_commands`]). The curves are
//! [`power::throughput_kept`] and [`power::decode_kept`].

use super::power;
use crate::rig::Resolved;

/// The build's GPUs that set a power limit, in build order: `(index, GPU, limit W)`, the limit
/// held to the card's range ([`power::gpu_limit_w`]); at, above or below the default board
/// power alike. The one walk the note, the commands and the caveat below read.
fn limited_gpus<'a>(r: &'a Resolved<'_>) -> impl Iterator<Item = (usize, &'a kraftwerk_catalog::Gpu, f64)> + 'a {
    r.gpus.iter().enumerate().filter_map(|(i, g)| {
        let g = (*g)?;
        let asked = r.build.gpus.get(i)?.power_limit_w?;
        Some((i, g, power::gpu_limit_w(g, Some(asked))))
    })
}

/// [`limited_gpus`] that run below their default board power (the capped ones).
fn capped_gpus<'a>(r: &'a Resolved<'_>) -> impl Iterator<Item = (usize, &'a kraftwerk_catalog::Gpu, f64)> + 'a {
    limited_gpus(r).filter(|(_, g, limit)| *limit < g.board_power_w)
}

/// A GPU as it runs at `limit_w`, its power limit (the build's `power_limit_w`, held to the
/// card's range by [`power::gpu_limit_w`]): below its default board power every tensor and
/// FP32 peak is scaled by [`power::throughput_kept`] (compute-bound work: prefill, training,
/// batched decode) and its memory bandwidth by [`power::decode_kept`] (memory-bound decode
/// loses less: the limit lowers the core clock, not the memory's). Unchanged at or above the
/// default. Every speed of a capped build is then the capped machine's, in `fit`, `compare`,
/// the planner and the window alike.
pub(super) fn at_power_limit(gpu: &mut kraftwerk_catalog::Gpu, limit_w: f64) {
    if limit_w >= gpu.board_power_w {
        return;
    }
    let compute = power::throughput_kept(gpu, limit_w);
    let decode = power::decode_kept(gpu, limit_w);
    let p = &mut gpu.peak;
    for v in [
        &mut p.fp32,
        &mut p.tf32,
        &mut p.fp16,
        &mut p.bf16,
        &mut p.fp8,
        &mut p.int8_tops,
        &mut p.fp16_acc16,
        &mut p.fp8_acc16,
    ]
    .into_iter()
    .flatten()
    {
        *v *= compute;
    }
    gpu.memory_bandwidth_gb_s *= decode;
}

/// The commands that set a build's power limits below the default before measuring it:
/// `sudo nvidia-smi -pm 1 && sudo nvidia-smi -pl 230` (persistence mode first, so that the
/// driver keeps the limit on a headless machine) where every GPU is an NVIDIA chip at one limit (NVIDIA System
/// Management Interface, `-pl`; without `-i` it applies to every GPU), `sudo nvidia-smi -i 0
/// -pl 230` per GPU otherwise, and words naming the vendor's tool for other makers. `None`
/// where every GPU runs at its default limit.
pub(super) fn power_limit_commands(r: &Resolved<'_>) -> Option<String> {
    let capped: Vec<(usize, f64, bool)> = capped_gpus(r)
        .map(|(i, g, limit)| (i, limit, g.compute_capability.is_some() || g.vendor.eq_ignore_ascii_case("nvidia")))
        .collect();
    let (_, first, _) = *capped.first()?;
    let every = capped.len() == r.gpus.iter().flatten().count();
    if every && capped.iter().all(|&(_, l, nv)| nv && (l - first).abs() < 1e-9) {
        return Some(format!("sudo nvidia-smi -pm 1 && sudo nvidia-smi -pl {first:.0}"));
    }
    let each: Vec<String> = capped
        .iter()
        .map(|&(i, l, nv)| {
            if nv {
                format!("sudo nvidia-smi -i {i} -pl {l:.0}")
            } else {
                format!("GPU {}'s power limit set to {l:.0} W with its vendor's tool", i + 1)
            }
        })
        .collect();
    let indices = if capped.iter().any(|&(_, _, nv)| nv) {
        " (-i is nvidia-smi's index, in its own order: match each card with nvidia-smi -L)"
    } else {
        ""
    };
    // Persistence mode keeps a limit set on a headless machine until the benchmark runs.
    let persist = if capped.iter().any(|&(_, _, nv)| nv) { "sudo nvidia-smi -pm 1 && " } else { "" };
    Some(format!("{persist}{}{indices}", each.join("; ")))
}

/// The line `fit` adds for a build whose GPUs run below their default limit: which GPUs, at
/// what limit, and the share of compute and memory-bound decode speed the curves keep
/// ([`at_power_limit`]). `None` where every GPU runs at its default limit.
pub(super) fn power_limit_note(r: &Resolved<'_>) -> Option<String> {
    // (GPU numbers, limit W, the first GPU of the group): GPUs at the same limit of the same
    // default in one group.
    let mut groups: Vec<(Vec<usize>, f64, &kraftwerk_catalog::Gpu)> = Vec::new();
    for (i, g, limit) in capped_gpus(r) {
        match groups
            .iter_mut()
            .find(|(_, l, first)| (*l - limit).abs() < 1e-9 && (first.board_power_w - g.board_power_w).abs() < 1e-9)
        {
            Some((n, _, _)) => n.push(i + 1),
            None => groups.push((vec![i + 1], limit, g)),
        }
    }
    let mut below_prefill = false;
    let mut below_floor = false;
    let parts: Vec<String> = groups
        .iter()
        .map(|(n, limit, g)| {
            let who = match n.as_slice() {
                [one] => format!("GPU {one}"),
                [first, .., last] if last - first + 1 == n.len() => format!("GPUs {first}-{last}"),
                _ => format!("GPUs {}", n.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
            };
            let fraction = limit / g.board_power_w.max(1.0);
            below_prefill |= fraction < power::PREFILL_CURVE_HOLDS_FRACTION - 1e-9;
            below_floor |= fraction < power::CURVE_FLOOR_FRACTION - 1e-9;
            format!(
                "{who} at {limit:.0} W of {:.0} W: compute {:.0} %, decode bandwidth {:.0} %",
                g.board_power_w,
                power::throughput_kept(g, *limit) * 100.0,
                power::decode_kept(g, *limit) * 100.0
            )
        })
        .collect();
    (!parts.is_empty()).then(|| {
        let caveat = limit_caveat(below_floor, below_prefill).map_or_else(String::new, |c| format!("; {c}"));
        format!(
            "speeds at the build's power limits ({}): prefill and other compute-bound work from the power-limit curve fitted to Puget Systems' quad RTX 3090 training run, memory-bound decode from published llama.cpp power sweeps{caveat}",
            parts.join("; ")
        )
    })
}

/// What a build's power limits leave as an upper bound, as a phrase: every speed where a GPU
/// runs below [`power::CURVE_FLOOR_FRACTION`] of its default limit, the prefill below
/// [`power::PREFILL_CURVE_HOLDS_FRACTION`]; `None` otherwise. `fit`'s power-limit note and the
/// planner's speed notes say the same words.
fn limit_caveat(below_floor: bool, below_prefill: bool) -> Option<String> {
    if below_floor {
        Some(format!(
            "below {:.0} % of the default limit no published sweep holds the curves: measured decode falls off there (86 % kept at 43 % of the default, 17 % at 29 %) and prefill collapses (26 % at 43 %), so these speeds are upper bounds",
            power::CURVE_FLOOR_FRACTION * 100.0
        ))
    } else if below_prefill {
        Some(format!(
            "below {:.0} % of the default limit measured prefill falls faster than the compute curve (85 % kept at 71 % of the default, 60 % at 57 %), so the prefill is an upper bound",
            power::PREFILL_CURVE_HOLDS_FRACTION * 100.0
        ))
    } else {
        None
    }
}

/// [`limit_caveat`] for the build `r`: the lowest fraction of its default limit any GPU runs
/// at decides it. The planner adds it to a capped plan's speed notes.
pub fn power_limit_caveat(r: &Resolved<'_>) -> Option<String> {
    let lowest = limited_gpus(r).map(|(_, g, limit)| limit / g.board_power_w.max(1.0)).fold(f64::INFINITY, f64::min);
    limit_caveat(lowest < power::CURVE_FLOOR_FRACTION - 1e-9, lowest < power::PREFILL_CURVE_HOLDS_FRACTION - 1e-9)
}

//! One spelling of a build's LLM speed ([`SpeedSummary`]): decode per user, prefill, where the
//! weights sit (all on the GPUs, or llama.cpp's `--n-cpu-moe N` with the routed experts of some
//! layers in system RAM) and the caveats on those figures. `kraftwerk fit` (text and JSON),
//! `kraftwerk plan` (text), the Fit tab and the Plan tab all print it from here, so the four
//! views give one build the same figures, rounded the same way, with the same caveats (issue 35:
//! "`fit`, `plan`, the Fit tab and the Plan tab print the same figures and caveats for one
//! build"). Nothing here estimates: the figures are [`BuildFit`]'s or the planner's
//! `Evaluation` (`crate::plan::evaluation::Evaluation::speed_summary`)'s, which is itself [`BuildFit`]'s for the same build.

use crate::estimate::fit::BuildFit;
use crate::estimate::llm::FitVerdict;

/// A build's speed as every view prints it.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct SpeedSummary {
    /// Decode per user (one sequence), tokens/s; `None` when unknown (the workload does not
    /// fit, or a figure the estimate needs is not published).
    pub decode_tokens_per_s: Option<f64>,
    /// Prefill, tokens/s; `None` when unknown.
    pub prefill_tokens_per_s: Option<f64>,
    /// llama.cpp `--n-cpu-moe N` of a hybrid CPU+GPU split (the routed experts of layers
    /// `0..N` in system RAM); `None` when every weight is on the GPUs.
    pub n_cpu_moe: Option<u32>,
    /// Layers whose routed experts are in system RAM (0 when every weight is on the GPUs).
    pub cpu_moe_layers: u32,
    /// Routed-expert weights in system RAM, GiB (0 when every weight is on the GPUs).
    pub host_experts_gib: f64,
    /// Where the weights sit in the user's own llama.cpp placement (flags given), in words
    /// ([`crate::estimate::llm::placement::PlacementEstimate::words`]); `None` for the placement
    /// the estimate picks, said by `n_cpu_moe`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// Whether the user's own placement does not run on the build (its GPUs or RAM overflow):
    /// then there is no speed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub placement_does_not_fit: bool,
    /// Why the figures are not held to a measurement on this build (a GPU maker no held speed
    /// row was measured on, RAM run at a rating its CPU is not known to reach), one sentence
    /// each.
    pub caveats: Vec<String>,
}

/// The words before a caveat wherever it is printed.
pub const CAVEAT_PREFIX: &str = "speed caveat: ";

impl SpeedSummary {
    /// The summary of `kraftwerk fit`'s result: the experts-in-RAM split's figures when the
    /// workload runs only that way ([`BuildFit::fits_with_experts_in_ram`]), else the GPUs'
    /// decode per sequence and prefill (none when it does not fit). `cpu_name`: the build's CPU,
    /// named in the RAM caveat.
    pub fn of_fit(result: &BuildFit, cpu_name: Option<&str>) -> SpeedSummary {
        let f = &result.fit;
        let mut caveats = f.speed_basis.not_measured_on.clone();
        // The user's own placement (llama.cpp flags given) is said by what it is.
        let given = result.placement.as_ref().filter(|p| p.as_given);
        let placement = given.map(|p| p.words.clone());
        if let Some(o) = &result.fits_with_experts_in_ram {
            // ktransformers keeps every routed expert in RAM by its own rule: no llama.cpp flag
            // says its placement (a trial found `--n-cpu-moe 94` printed for it).
            let placement = placement.or_else(|| {
                (f.runtime == crate::estimate::llm::Runtime::KTransformers).then(|| {
                    format!(
                        "ktransformers: every routed expert in system RAM ({:.1} GiB), the rest on the GPU",
                        o.host_experts_gib
                    )
                })
            });
            caveats.extend(ram_caveat(result, cpu_name));
            caveats.extend(cores_caveat(result, cpu_name));
            caveats.extend(ram_rating_caveat(result, cpu_name));
            return SpeedSummary {
                decode_tokens_per_s: o.decode_tokens_per_s,
                prefill_tokens_per_s: o.prefill_tokens_per_s,
                n_cpu_moe: Some(o.n_cpu_moe),
                cpu_moe_layers: o.cpu_moe_layers,
                host_experts_gib: o.host_experts_gib,
                placement,
                placement_does_not_fit: false,
                caveats,
            };
        }
        let speed = f.speed.as_ref().filter(|_| f.verdict != FitVerdict::DoesNotFit);
        SpeedSummary {
            decode_tokens_per_s: speed.map(|s| s.decode_per_sequence_tokens_per_s),
            prefill_tokens_per_s: speed.and_then(|s| s.prefill_tokens_per_s),
            n_cpu_moe: given.filter(|p| p.cpu_moe_layers > 0).map(|p| p.table.n_cpu_moe),
            cpu_moe_layers: given.map_or(0, |p| p.cpu_moe_layers),
            host_experts_gib: given.map_or(0.0, |p| p.host_experts_gib),
            placement,
            placement_does_not_fit: given.is_some_and(|p| !p.runs())
                || (given.is_some() && f.verdict == FitVerdict::DoesNotFit),
            caveats,
        }
    }

    /// [`SpeedSummary::of_fit`] of `result`, the fit of `build`, naming the build's CPU.
    pub fn of_build(
        result: &BuildFit,
        build: &crate::rig::Build,
        catalog: &kraftwerk_catalog::Catalog,
    ) -> SpeedSummary {
        let r = build.resolve(catalog);
        SpeedSummary::of_fit(result, r.cpu.map(|c| c.name.as_str()))
    }

    /// Decode as printed: `12.3 tok/s` (one decimal), or `unknown`.
    pub fn decode_text(&self) -> String {
        self.decode_tokens_per_s.map_or_else(|| "unknown".to_owned(), |_| format!("{} tok/s", self.decode_figure()))
    }

    /// Decode's figure alone, for a column headed in tok/s: `12.3` (one decimal), or `unknown`.
    pub fn decode_figure(&self) -> String {
        self.decode_tokens_per_s.map_or_else(|| "unknown".to_owned(), |d| format!("{d:.1}"))
    }

    /// Prefill as printed: `456 tok/s` (no decimal), or `unknown`.
    pub fn prefill_text(&self) -> String {
        self.prefill_tokens_per_s.map_or_else(|| "unknown".to_owned(), |p| format!("{p:.0} tok/s"))
    }

    /// Where the weights sit: `every weight on the GPUs`, or `--n-cpu-moe 30: the routed experts
    /// of 30 layers in system RAM (45.2 GiB)`.
    pub fn placement_text(&self) -> String {
        if let Some(w) = &self.placement {
            return w.clone();
        }
        match self.n_cpu_moe {
            None => "every weight on the GPUs".to_owned(),
            Some(n) => format!(
                "--n-cpu-moe {n}: the routed experts of {} layers in system RAM ({:.1} GiB)",
                self.cpu_moe_layers, self.host_experts_gib
            ),
        }
    }

    /// The one line every view prints: `decode 12.3 tok/s per user, prefill 456 tok/s;
    /// --n-cpu-moe 30: ...`.
    pub fn line(&self) -> String {
        if self.placement_does_not_fit {
            return format!("none: the placement as given does not fit; {}", self.placement_text());
        }
        format!("decode {} per user, prefill {}; {}", self.decode_text(), self.prefill_text(), self.placement_text())
    }

    /// Each caveat as printed: `speed caveat: <sentence>`.
    pub fn caveat_lines(&self) -> Vec<String> {
        self.caveats.iter().map(|c| format!("{CAVEAT_PREFIX}{c}")).collect()
    }
}

/// The caveat on a split whose decode is bound by system RAM read at the kit's rating with two
/// or more DIMMs per channel when the catalog has no rated speed of the CPU for that
/// population: desktop memory controllers do not reach it (AMD rates Ryzen 7000 at DDR5-5200
/// with one DIMM per channel and "a drop-off to DDR5-3600 when running two DIMMs per channel":
/// "AMD Ryzen 7000's memory sweet spot will be DDR5-6000", 2022, read in a repost,
/// <https://airlinkfreights.com/amd-ryzen-7000s-memory-sweet-spot-will-be-ddr5-6000/>), so the
/// decode is an upper bound, unvalidated (issue 36, item 5); the planner ranks such builds after
/// validated ones. `None` otherwise, and where the build states the speed its memory runs at.
/// One DIMM per channel at an unverified kit rating is [`ram_rating_caveat`].
pub fn ram_caveat(result: &BuildFit, cpu_name: Option<&str>) -> Option<String> {
    let s = result.host_ram_speed.as_ref().filter(|s| s.unverified() && s.dimms_per_channel >= 2)?;
    Some(format!(
        "system RAM at the kit's rating of {} MT/s with {} DIMMs per channel: {}'s rated memory speed for that population is not in the catalog, so the CPU+GPU split's decode is an upper bound, unvalidated",
        s.kit_mt_s,
        s.dimms_per_channel,
        cpu_name.unwrap_or("the CPU")
    ))
}

/// The caveat on a split whose CPU has more theoretical RAM bandwidth per core than any held
/// experts-in-RAM row ([`crate::estimate::llm::host::HOST_BANDWIDTH_PER_CORE_HELD_MAX_GB_S`]):
/// an EPYC 9015 (8 cores) on 12 channels of DDR5-6000 reads 72 GB/s per core, where the held
/// rows read at most 19.2, and a new user's trial was offered it at 21 tok/s for Qwen3-235B. The
/// decode is then an upper bound, unvalidated; the planner ranks such builds after validated
/// ones. Said wherever the speed is (`fit`, `plan`, `compare`, the Fit and Plan tabs). `None`
/// without a CPU, a memory kit or a split.
pub fn cores_caveat(result: &BuildFit, cpu_name: Option<&str>) -> Option<String> {
    result.fits_with_experts_in_ram.as_ref()?;
    let cores = result.host_ram_speed.as_ref().map(|s| s.cpu_cores).filter(|&c| c > 0)?;
    let bw = result.host_bandwidth_gb_s.filter(|b| b.is_finite() && *b > 0.0)?;
    let per_core = bw / f64::from(cores);
    let held = crate::estimate::llm::host::HOST_BANDWIDTH_PER_CORE_HELD_MAX_GB_S;
    (per_core > held).then(|| {
        format!(
            "{} reads {bw:.0} GB/s of theoretical RAM bandwidth with {cores} cores ({per_core:.1} GB/s per core), more per core than any held experts-in-RAM measurement (at most {held:.1}: an EPYC 9355, 32 cores, 12 x DDR5-6400): few cores, and on AMD's chiplet CPUs few CCDs, may not stream the channels at the efficiency the estimate uses, so the CPU+GPU split's decode is an upper bound, unvalidated",
            cpu_name.unwrap_or("the CPU")
        )
    })
}

/// The caveat on a split whose decode is bound by system RAM read at the kit's rating, one
/// DIMM per channel, when the catalog has no rated memory speed of the CPU: the kit's XMP/EXPO
/// rating is what the DIMMs are sold for, not what the CPU's memory controller is rated to run
/// (a trial's first plan met its speed goal only at DDR4-4400 on a Ryzen 5 4500, whose listings
/// give DDR4-3200), so the decode may be high. Said wherever the speed is (`fit`, `plan`,
/// `compare`, the Fit and Plan tabs); unlike [`ram_caveat`] it does not move the planner's
/// ranking (most CPUs' rated speeds are not in the catalog yet, so it would rank nearly every
/// split alike). `None` where the build states the speed its memory runs at, the CPU's rated
/// speed is known, or [`ram_caveat`] applies.
pub fn ram_rating_caveat(result: &BuildFit, cpu_name: Option<&str>) -> Option<String> {
    let s = result.host_ram_speed.as_ref().filter(|s| s.unverified() && s.dimms_per_channel < 2)?;
    Some(format!(
        "system RAM at the kit's rating of {} MT/s: {}'s rated memory speed is not in the catalog, so the CPU+GPU split's decode assumes the CPU runs the kit at its rating, unverified (state the speed the memory runs at in the build to fix it)",
        s.kit_mt_s,
        cpu_name.unwrap_or("the CPU")
    ))
}

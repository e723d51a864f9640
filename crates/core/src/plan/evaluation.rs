//! What the planner knows of a machine it assembled ([`Evaluation`]): the checker's findings
//! sorted by what the goal depends on ([`super::judge`]), the power figures at full load, and
//! the fit, speed, cost and priced lines the estimators add ([`super::estimate`]), with the
//! hybrid CPU+GPU split ([`Hybrid`]) of a mixture-of-experts model the GPUs alone do not hold.

use super::power::PowerCap;
use crate::check::{self, PartRef};
use crate::estimate::llm::Runtime;
use crate::estimate::speed_summary::SpeedSummary;
use crate::rig::parts_list::PricedLine;

/// A hybrid CPU+GPU split of a MoE model ([`Evaluation::hybrid`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hybrid {
    /// `--n-cpu-moe N`: the routed experts of layers `0..N` stay in system RAM.
    pub n_cpu_moe: u32,
    /// Layers whose routed experts stay in system RAM (`N` less the dense layers below it).
    pub cpu_moe_layers: u32,
    /// Prefill of the split, tokens/s ([`crate::estimate::llm::search::MoeOffload::prefill_tokens_per_s`]);
    /// `None` when unknown.
    pub prefill_tokens_per_s: Option<f64>,
    /// Expert weights in system RAM, GiB.
    pub host_experts_gib: f64,
    /// System RAM the split takes in all, GiB (llama.cpp's Host row: the experts and the rest
    /// it keeps there); the installed RAM holds it after the reserve
    /// ([`crate::estimate::llm::search::HostRam::holds`]).
    pub host_ram_needed_gib: f64,
    /// System RAM installed, GiB.
    pub host_ram_gib: f64,
    /// Memory channels the CPU reads them over, and the kit's data rate, MT/s.
    pub channels: u32,
    /// Data rate the memory runs at, MT/s: the kit's rating capped by the CPU's rated speed
    /// ([`crate::estimate::fit::ram_speed`]).
    pub speed_mt_s: u32,
    /// Which speed `speed_mt_s` is ([`crate::estimate::fit::RamSpeed::which`]): the CPU's
    /// rating, the kit's within it, the kit's unverified, or the speed the build states.
    pub speed_basis: String,
    /// Theoretical system-RAM bandwidth, GB/s (channels × MT/s × 8 bytes).
    pub host_bandwidth_gb_s: f64,
    /// Decode at batch 1, tokens/s.
    pub decode_tokens_per_s: f64,
    /// The runtime that runs the split (llama.cpp or a fork: `--n-cpu-moe`), as saved in the
    /// build's workload.
    pub runtime: Runtime,
    /// Why the split runs at another precision than the goal asked for
    /// ([`super::screen::hybrid_precisions`]: a GGUF quant for llama.cpp); `None` when it is the one asked for.
    pub precision_note: Option<String>,
}

/// A vLLM engine setting a result runs with where vLLM's default would not start
/// ([`Evaluation::vllm_setting`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VllmSetting {
    /// `--max-num-seqs` the build runs with (`workload.max_num_seqs`, saved in the build):
    /// the value `kraftwerk fit` names at vLLM's default ("vLLM starts, by this estimate, with
    /// any one of: --max-num-seqs N").
    pub max_num_seqs: u32,
    /// vLLM's default `--max-num-seqs` on these GPUs, at which it would not start.
    pub default_max_num_seqs: u32,
    /// The KV pool at `max_num_seqs`, GiB, and the tokens it holds ("GPU KV cache size").
    pub kv_pool_gib: f64,
    /// Tokens the pool holds at `max_num_seqs`.
    pub kv_tokens: u64,
}

/// What [`super::judge::judge`] and [`super::estimate::estimate`] found out about a build.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Evaluation {
    /// The checker's verdict on the build (`check::run`); `None` before it is judged.
    pub verdict: Option<check::Verdict>,
    /// Error findings of `check::run`, one line each (`rule: message`).
    pub errors: Vec<String>,
    /// Warning findings.
    pub warnings: Vec<String>,
    /// Figures the goal depends on that are unknown, in words ([`super::judge::goal_depends_on`]).
    pub not_checked: Vec<String>,
    /// Other rules the checker could not fully run (a figure unknown), in words.
    pub not_checked_other: Vec<String>,
    /// On a board wired without slot positions: the geometry rules ([`super::judge::GEOMETRY_RULES`]) that
    /// said not checked, in words. Such a build's verdict is UNVERIFIED (issue 27's rule); the
    /// planner keeps it as an answer, ranked after a build whose placement checks all ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub geometry_unchecked: Vec<String>,
    /// The checks that did not run because an owned GPU is named by its chip only
    /// ([`crate::rig::Resolved::unnamed_cards`]: which partner card it is, its length,
    /// thickness and power sockets are not known), in words. Such a build's verdict is
    /// UNVERIFIED; the planner keeps it as an answer (only its owner can name the card) and
    /// says what would verify it (`verify_with`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owned_card_unchecked: Vec<String>,
    /// The figure that would verify a build in `geometry_unchecked` or `owned_card_unchecked`:
    /// `slot positions of <board>: enter them in the Build tab's slot editor`, `the card you
    /// own: ...`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_with: Option<String>,
    /// Parts with prices, each with how it is bought ([`crate::rig::parts_list::Bought`]).
    pub parts: Vec<PricedLine>,
    /// Sum of the known prices, USD.
    pub known_price_usd: f64,
    /// Ids of parts without a price (plus risers, which the catalog does not list).
    pub unpriced: Vec<String>,
    /// Full-load wall power, W (what the checker sizes PSUs and circuits by); `None` when a PSU's
    /// efficiency is unknown (no 80 PLUS rating known, no published curve) or no PSU is chosen.
    pub wall_w: Option<f64>,
    /// Wall power while serving, W; `None` as for `wall_w`.
    pub inference_wall_w: Option<f64>,
    /// Heat into the room at full load, W; `None` as for `wall_w`.
    pub heat_w: Option<f64>,
    /// Per circuit: amps at full load (`None`: unknown, as for `wall_w`) and the continuous
    /// limit.
    pub circuits: Vec<(Option<f64>, f64)>,
    /// Per PSU: DC load at full load and its rating, W (the headroom is their difference;
    /// [`crate::estimate::power::PSU_RECOMMENDED_HEADROOM_W`] is the margin the planner prefers).
    pub psu_loads: Vec<(f64, f64)>,
    /// Decode rate per user, tokens/s (from the fit on the real slots).
    pub decode_per_user: Option<f64>,
    /// Aggregate decode rate, tokens/s.
    pub decode_total: Option<f64>,
    /// Prefill rate, tokens/s.
    pub prefill: Option<f64>,
    /// Training: the framework and its sharding ("fsdp (FSDP full shard over 2 GPUs, CPU
    /// offload)"); `None` for inference.
    pub train_setup: Option<String>,
    /// Training: tokens per second over all GPUs; `None` for inference or where unknown.
    pub train_tokens_per_s: Option<f64>,
    /// Training: hours for the goal's tokens; `None` without them.
    pub train_hours: Option<f64>,
    /// Why the held rows do not validate the speed figures on this build's GPUs under the
    /// result's runtime (none on the architecture, or some outside ±25 %:
    /// [`crate::estimate::llm::basis::not_measured_on`]); printed wherever the speed is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speed_caveats: Vec<String>,
    /// The most the held decode rows measure over this estimate on a GPU of the build, and the
    /// rows in words ([`crate::estimate::llm::basis::held_decode_at_most`]), for a decode with
    /// every weight on the GPUs: the goal is judged at the decode times that share too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_held_at_most: Option<(f64, String)>,
    /// Caveats on the speed printed wherever it is, beside `speed_caveats`, that do not move
    /// the ranking ([`crate::estimate::speed_summary::ram_rating_caveat`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speed_notes: Vec<String>,
    /// The memory fit verdict says it fits.
    pub fits: bool,
    /// USD per million tokens: the build's hardware over 3 years and its electricity, over its
    /// own throughput (the cost's [`crate::estimate::cost::CostReport::usd_per_million_tokens`]);
    /// a lower bound where a part is unpriced.
    pub usd_per_mtok: Option<f64>,
    /// Months after which owning beats renting the cloud reference for the same work (the same
    /// tokens where both throughputs are known: [`crate::estimate::cost::CloudBasis`]), within
    /// the write-off; a lower bound where a part is unpriced
    /// ([`crate::estimate::cost::BreakEven::AtLeast`]); `None` where there is none.
    pub break_even_months: Option<f64>,
    /// Whether owning pays back within the write-off, and when, or why there is no break-even
    /// (the cost's [`crate::estimate::cost::BreakEven`]); `None` without a cost.
    pub break_even: Option<crate::estimate::cost::BreakEven>,
    /// The cloud reference and the basis of the break-even
    /// ([`crate::estimate::cost::CloudComparison::offer`]: `A100 80 GB at $1.60/h for the same
    /// tokens ($12.42 per million tokens)`).
    pub cloud: String,
    /// The power advice's common GPU limit, W, when the build is over its PSU or circuit.
    pub advised_limit_w: Option<f64>,
    /// The power limit the plan sets on every GPU ([`PowerCap`]): full load at the cards'
    /// default limits was over a PSU, a PSU's 1 ms peak or the circuit; `None` when the cards run
    /// at their default limits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cap: Option<PowerCap>,
    /// A machine of two or more PSUs: where each unit's load sits, what joins them (an add2psu /
    /// sync board and one ground, as the `multi-psu` rule says) and the circuits they are on
    /// ([`super::power::multi_psu_note`]); `None` with one PSU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multi_psu: Option<String>,
    /// A MoE model too large for the GPUs, run as a hybrid CPU+GPU split (llama.cpp
    /// `--n-cpu-moe`): its routed experts in system RAM, as `kraftwerk fit` estimates it
    /// ([`crate::estimate::fit::BuildFit::fits_with_experts_in_ram`], bounded by the build's RAM). `fits` stays
    /// `false` (the GPUs alone do not hold it); speed and cost are those of the split.
    pub hybrid: Option<Hybrid>,
    /// The vLLM setting the result relies on to start (its `--max-num-seqs` below vLLM's
    /// default); its speed and fit are estimated at it. `None` at vLLM's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_setting: Option<VllmSetting>,
    /// Where the fit is tight (`kraftwerk fit`'s verdict "tight": the total fits, the headroom
    /// the runtime keeps free does not), one phrase per such GPU, as `fit` words it: `GPU 1
    /// nvidia-geforce-rtx-3090: 21.7 of 24.0 GiB, only 2.3 of 2.4 GiB headroom left`, then
    /// the longest context that fits at the goal's batch where `fit` found one (`the longest
    /// context that fits at this batch is 8,209 tokens (8,192 asked)`). Empty where every GPU
    /// fits with its headroom.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_tight: Vec<String>,
    /// The GPUs the user owns that this machine leaves out, one phrase per owned id: `uses 2 of
    /// the 4 GeForce RTX 3090 you own (the goal is met without the other 2)`. Empty where every
    /// owned GPU is in the build.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owned_unused: Vec<String>,
    /// Parts the error findings concern (the search moves on from the part to blame).
    #[serde(skip)]
    pub error_parts: Vec<PartRef>,
    /// Parts the not-checked findings concern (whose figure is unknown).
    #[serde(skip)]
    pub unknown_parts: Vec<PartRef>,
}

impl Evaluation {
    /// This result's speed as every view prints it ([`SpeedSummary`]): its decode per user and
    /// prefill (at the build's power limits, as `fit` estimates them; scaled by a measurement
    /// where one was given), its hybrid split and its speed
    /// caveats. `kraftwerk plan` (text) and the Plan tab print it; `kraftwerk fit` prints the
    /// same build's [`SpeedSummary::of_fit`].
    pub fn speed_summary(&self) -> SpeedSummary {
        SpeedSummary {
            decode_tokens_per_s: self.decode_per_user,
            prefill_tokens_per_s: self.prefill,
            n_cpu_moe: self.hybrid.as_ref().map(|h| h.n_cpu_moe),
            cpu_moe_layers: self.hybrid.as_ref().map_or(0, |h| h.cpu_moe_layers),
            host_experts_gib: self.hybrid.as_ref().map_or(0.0, |h| h.host_experts_gib),
            placement: None,
            placement_does_not_fit: false,
            caveats: self.speed_caveats.iter().chain(&self.speed_notes).cloned().collect(),
        }
    }
}

/// `rule: message` lines (as [`Evaluation::geometry_unchecked`] and
/// [`Evaluation::owned_card_unchecked`] hold them) with the rules that share one message on one
/// line, `rule-a, rule-b, rule-c: message`, in the order first seen: the three geometry rules a
/// board without slot positions keeps from running say the same thing, and the plan said it
/// three times (new-user trial). A line without `: ` is its own message.
pub fn fold_rules(lines: &[String]) -> Vec<String> {
    let mut grouped: Vec<(Vec<&str>, &str)> = Vec::new();
    for line in lines {
        let (rule, why) = line.split_once(": ").unwrap_or(("", line.as_str()));
        match grouped.iter_mut().find(|(_, m)| *m == why) {
            Some((rules, _)) if !rules.contains(&rule) => rules.push(rule),
            Some(_) => {}
            None => grouped.push((vec![rule], why)),
        }
    }
    grouped
        .into_iter()
        .map(|(rules, why)| {
            let rules: Vec<&str> = rules.into_iter().filter(|r| !r.is_empty()).collect();
            if rules.is_empty() { why.to_owned() } else { format!("{}: {why}", rules.join(", ")) }
        })
        .collect()
}

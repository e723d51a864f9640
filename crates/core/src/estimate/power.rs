//! Power and thermal estimate of a build: sustained DC load per component and per PSU, PSU
//! efficiency and wall draw, transient peaks against the ATX 3.x excursion table, amps per
//! circuit and per outlet, heat, electricity cost, and power-limit advice.
//!
//! The wall draw (AC input) is known only through a PSU whose efficiency is published: its
//! own curve, or its 80 PLUS level's certification minimums. Through a PSU with neither, or
//! with no PSU chosen, the wall draw and everything computed from it (amps per circuit and
//! outlet, heat into the room, electricity cost) are `None`: unknown, never a guessed figure.
//!
//! Every fraction and figure used is a named constant with its source, here or in the part
//! that uses it (`circuit`: breakers and outlets; `efficiency`: PSU curves; `thermal`: GPU
//! cooling; `advice`: power limits and PSU sizes). "(judgement)" marks a policy choice rather
//! than a measurement.

use crate::rig::Resolved;
use kraftwerk_catalog::{AtxVersion, Gpu, Provenance, Psu};
use serde::Serialize;

mod advice;
mod circuit;
mod efficiency;
mod thermal;

pub use advice::{
    LIMIT_STEP_W, LimitFit, PowerAdvice, advise, power_limit_to_fit, power_limit_to_fit_planned, psu_size_for,
    psus_within, within_limits,
};
use circuit::inlet_a;
pub use circuit::{
    CONTINUOUS_FRACTION, IEC60898_NO_TRIP_1H_FRACTION, IEC60898_TRIP_1H_FRACTION, SCHUKO_CONTINUOUS_A,
    UL489_TRIP_1H_FRACTION, UL489_TRIP_2MIN_FRACTION, US_HIGH_LINE_V, breaker_tolerance, breaker_tolerance_at_least,
    continuous_a, outlet_continuous_a,
};
pub use efficiency::{EfficiencyBasis, efficiency_at, efficiency_curve, eighty_plus_curve};
pub use thermal::{GpuThermal, ThermalRisk, gpu_thermal};

/// What the machine is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadState {
    /// Powered on, nothing running.
    Idle,
    /// LLM inference (decode): memory-bound, GPUs well under their limit.
    Inference,
    /// Training or a full GEMM load: GPUs at their power limit, CPU at TDP.
    #[default]
    Training,
}

impl LoadState {
    /// Every state, idle first.
    pub const ALL: [LoadState; 3] = [LoadState::Idle, LoadState::Inference, LoadState::Training];

    /// Lower-case name (`idle`, `inference`, `training`).
    pub fn name(self) -> &'static str {
        match self {
            LoadState::Idle => "idle",
            LoadState::Inference => "inference",
            LoadState::Training => "training",
        }
    }
}

/// GPU draw during LLM decode as a fraction of its power limit. Decode is memory-bound:
/// measured single-stream llama.cpp decode on an RTX 4090 drew about 250-300 W of 450 W.
/// We use 0.65 (judgement from that range; batch serving draws more).
pub(crate) const GPU_INFERENCE_FRACTION: f64 = 0.65;

/// GPU draw under training / GEMM load as a fraction of its power limit: cards sit at their
/// limit (measured: H200 SXM, 10 s bf16 GEMM, 692 W median against a 700 W limit, 0.99;
/// recorded in `tests/fixtures/probe-h200-30s.json`, `power_instant_w` 657-710 W at a 700 W limit). 1.0 is used.
pub(crate) const GPU_TRAINING_FRACTION: f64 = 1.0;

/// Idle GPU draw as a fraction of board power, for a GPU whose catalog entry has no measured
/// idle figure (`Gpu::idle_power_w`): a documented derivation, not a measurement, and labelled
/// so in the estimate ("idle derived"). From the one idle measurement this project holds:
/// H200 SXM 78.4 W of 700 W (0.112; NVML `power.draw` median over the first 14 s of
/// `tests/fixtures/h200-1gpu-30s.kwrec.json`, 2026-11-29) and 80.7 W in another recording
/// (0.115); 0.12 is used. Two published `nvidia-smi -q` outputs of idle cards agree within a few
/// points: RTX 3090 33.5 W of 350 W (0.096) and RTX A6000 24.7 W of 300 W (0.082), entered as
/// those cards' `idle_power_w` with their sources. Measured cards spread widely around 0.12
/// (published nvidia-smi outputs, entered as `idle_power_w`): RTX 4090 24 W of 450 W (0.053),
/// RTX 5090 11.6 W of 575 W (0.020), L40S 33 W of 350 W (0.095), L4 16.5 W of 72 W (0.23): the
/// fraction is a planning figure for cards nobody measured, and a card's own measurement wins.
pub(crate) const GPU_IDLE_FRACTION: f64 = 0.12;

/// CPU draw by state as a fraction of its TDP (idle 0.15, inference 0.35), and at full load
/// (training) of its sustained package power: AMD PPT, Intel PL1 = PL2 in Intel's default
/// performance profile (`Cpu::package_power_w`), else its TDP (judgement: a data-loading CPU
/// under GPU training is planned at its package limit, the figure the cooler rule uses; AMD:
/// PPT = 1.35 x TDP on AM5, Intel: 14th-gen default settings PL1 = PL2 = 253 W for the i9
/// 14900K; sources in `docs/sources.md`).
pub(crate) const CPU_FRACTION: [f64; 3] = [0.15, 0.35, 1.0];

/// Motherboard (chipset, VRM losses, NICs, BMC), W, at full load; half of it at idle
/// (judgement; makes the "system rest" of board, memory, drives and fans about 100 W).
pub(crate) const BOARD_W: f64 = 45.0;
/// Per memory module, W, when the kit publishes none (DDR5 RDIMM planning figure, judgement).
pub(crate) const DIMM_W: f64 = 5.0;
/// Per NVMe drive, W, when the drive publishes none (typical Gen4 active average, judgement).
pub(crate) const NVME_W: f64 = 7.0;
/// Case and cooler fans, pumps, W (judgement: about ten 120/140 mm fans at 2 W).
pub(crate) const FANS_W: f64 = 20.0;
/// System rest assumed when the build names no board (board + memory + drives + fans), W.
/// (judgement: board 45 + memory 20 + drive 7 + fans 20 W, rounded up).
pub(crate) const REST_DEFAULT_W: f64 = 100.0;

/// Transient-peak durations of the ATX 3.x power-excursion table, seconds.
pub(crate) const EXCURSION_DURATIONS_S: [f64; 4] = [100e-6, 1e-3, 10e-3, 100e-3];
/// Index of the 100 µs point in [`EXCURSION_DURATIONS_S`] (and the tables below).
pub(crate) const TRANSIENT_100US: usize = 0;
/// Index of the 1 ms point.
pub const TRANSIENT_1MS: usize = 1;
/// Index of the 10 ms point.
pub const TRANSIENT_10MS: usize = 2;
/// Index of the 100 ms point.
pub const TRANSIENT_100MS: usize = 3;

/// ATX 3.x excursion limits as a multiple of rated power, for PSUs over 450 W with a
/// 12VHPWR/12V-2x6 connector, at 100 µs / 1 ms / 10 ms / 100 ms (Intel ATX 3.0 PSU design
/// guide, power excursion table).
pub const EXCURSION_LIMIT_HPWR: [f64; 4] = [2.0, 1.8, 1.6, 1.2];
/// Rating above which an ATX 3.x unit with a 12V-2x6 connector must meet
/// [`EXCURSION_LIMIT_HPWR`], W (same guide).
pub(crate) const EXCURSION_HPWR_MIN_W: f64 = 450.0;
/// The same for other ATX 3.x PSUs (150 / 145 / 135 / 110 %).
pub const EXCURSION_LIMIT_OTHER: [f64; 4] = [1.5, 1.45, 1.35, 1.1];

/// GPU peak over its power limit at 100 µs / 1 ms / 10 ms / 100 ms.
/// 100 µs: 2.2x (Lenovo measured an RTX A6000 at 654 W for 200 µs on a 300 W limit, 2.18x,
/// and warns of "a factor of 2 or more": <https://pubs.lenovo.com/sr670/de/gpu_power_braking>);
/// 1 ms: 1.57x, 10 ms: 1.28x, 100 ms: 1.09x (RTX 5090 at 575 W measured 901 W under 1 ms,
/// 738 W over 5-10 ms, 627 W over 10-20 ms:
/// <https://www.slashgear.com/1902896/rtx-5090-how-much-power-can-pull-nvidia-geforce-gpu/>;
/// the 10-20 ms figure is used for 100 ms, conservatively).
pub const GPU_TRANSIENT_FACTOR: [f64; 4] = [2.2, 1.57, 1.28, 1.09];

/// Share of a PSU's rating planned for sustained load: 80 % (judgement, widely used; Lambda:
/// failures rise as a 1600 W unit nears 1500 W).
pub const PSU_SUSTAINED_GUIDELINE: f64 = 0.8;

/// Headroom a PSU vendor recommends above a system's full-load sum, W. Corsair, "Choosing your
/// PSU" (<https://www.corsair.com/us/en/s/psu-family-choosing-a-psu>): add the GPU's and the
/// CPU's power and 150 W for the rest, then "PSUs don't operate at their highest efficiency
/// when at full load, and you may want to add more headroom for future upgrades. We recommend
/// adding 150W of headroom to what you have so far." The planner ranks PSU sets that keep it
/// (each unit's full-load DC load at least this far under its rating) before those that do
/// not. No vendor or ATX design-guide recommendation given as a fraction of the rating was
/// found, so [`PSU_SUSTAINED_GUIDELINE`] stays judgement.
pub const PSU_RECOMMENDED_HEADROOM_W: f64 = 150.0;

/// W to BTU/h (1 W = 3.412 BTU/h).
pub(crate) const BTU_PER_H_PER_W: f64 = 3.412_14;

/// Hours in an average month: a twelfth of a 365.25-day year (8766 / 12); the cost estimate
/// ([`super::cost`]) counts the same month.
pub(crate) const HOURS_PER_MONTH: f64 = 8766.0 / 12.0;

/// Fitted exponent of throughput against power-limit fraction, `kept = (limit / default)^0.183`:
/// fitted to Puget Systems' quad RTX 3090 measurement (350 W → 280 W kept > 95 % of training
/// throughput, taken as 96 %):
/// <https://www.pugetsystems.com/labs/hpc/quad-rtx3090-gpu-wattage-limited-maxq-tensorflow-performance-1974/>.
/// Below 80 % of default power it is an extrapolation.
pub(crate) const THROUGHPUT_EXPONENT: f64 = 0.183;

/// Fraction of full throughput a GPU keeps at `limit_w` (see [`THROUGHPUT_EXPONENT`]); 1.0 at
/// or above its default board power.
pub fn throughput_kept(gpu: &Gpu, limit_w: f64) -> f64 {
    let p = (limit_w / gpu.board_power_w).clamp(0.0, 1.0);
    p.powf(THROUGHPUT_EXPONENT)
}

/// Fitted exponent of memory-bound (batch-1) decode speed against power-limit fraction,
/// `kept = (limit / default)^0.092`: a power limit lowers the core clock, not the memory's, so
/// decode, which streams the weights, loses much less than compute-bound work
/// ([`THROUGHPUT_EXPONENT`]). Least-squares fit of `ln kept = e · ln fraction` to five published
/// llama.cpp decode sweeps at 57-90 % of the default limit:
/// - llmgarage.ai, "Power limit vs tokens per second" (6 x RTX 3090, 350 W default, llama.cpp
///   server, MiniMax M2.5 UD-IQ2_M, decode at 4K context): 350 W 72.6, 300 W 72.1, 250 W 70.7,
///   200 W 68.3 tok/s (<https://llmgarage.ai/power-limit-tokens-per-second-benchmark>);
/// - InventiveHQ, "I capped my GPU to 150 W and barely lost any speed" (RTX 5060 Ti, 180 W
///   default, llama.cpp, Qwen2.5-Coder-7B): 180 W 81.2, 162 W 81.4, 150 W 80.4 tok/s
///   (<https://inventivehq.com/blog/gpu-power-limit-tokens-per-watt>).
///
/// The same sweep's 150 W row (43 % of default) kept 86 % where the curve says 92 %: below
/// about half the default limit decode falls off (100 W kept 17 %), so there the curve is
/// optimistic ([`CURVE_FLOOR_FRACTION`]). The curve is fitted to end-to-end decode speed and
/// applied to the memory bandwidth alone (`fit` scales a capped GPU's bandwidth by it), so an
/// estimate whose decode has fixed costs beside the weight reads (per-layer overhead, host
/// links, experts in RAM) loses somewhat less than the curve. The prefill rows of the same sweep fall faster than [`THROUGHPUT_EXPONENT`]
/// says (300 W 94 %, 250 W 85 %, 200 W 60 % at 198K context); they are not fitted and are listed
/// beside the decode rows in the curve's test.
pub(crate) const DECODE_KEPT_EXPONENT: f64 = 0.092;

/// The lowest power limit the speed curves hold a published row at, as a fraction of the
/// default board power: llmgarage.ai's 200 W of 350 W row (the lowest decode row fitted to
/// [`DECODE_KEPT_EXPONENT`]). Below it the same sweep's decode falls off (150 W: 86 % kept where
/// the curve says 92 %; 100 W: 17 %) and its prefill collapses (150 W: 26 % kept), so the
/// planner never sets a limit below it ([`lowest_planned_limit_w`]; `check`'s and `kraftwerk
/// power`'s power fix may, to the card's minimum), and `fit` says when a build's limit is below it.
pub const CURVE_FLOOR_FRACTION: f64 = 200.0 / 350.0;

/// The fraction of the default board power below which measured prefill falls faster than the
/// compute curve ([`THROUGHPUT_EXPONENT`]) says by more than a tenth: llmgarage.ai's 250 W of
/// 350 W row kept 85 % of its prefill where the curve says 94 %. `fit` says so for a build
/// capped below it.
pub const PREFILL_CURVE_HOLDS_FRACTION: f64 = 250.0 / 350.0;

/// The lowest power limit, W, the planner sets on `gpu`: its published
/// minimum (`min_power_limit_w`, the lowest `nvidia-smi -pl` accepts) and never below
/// [`CURVE_FLOOR_FRACTION`] of its default board power, where the speed curves no longer hold
/// a measurement. A card whose minimum is unpublished is searched down to the curve floor; the
/// checker then reports the limit's settability as not checked (`min_power_limit_w`).
pub fn lowest_planned_limit_w(gpu: &Gpu) -> f64 {
    (gpu.board_power_w * CURVE_FLOOR_FRACTION).max(gpu.min_power_limit_w.unwrap_or(0.0))
}

/// Fraction of its batch-1 decode speed a GPU keeps at `limit_w`, for decode that reads the
/// weights from GPU memory (see [`DECODE_KEPT_EXPONENT`]); 1.0 at or above its default board
/// power. The GPU's memory-bound terms run at this share of its bandwidth and its compute-bound
/// terms at [`throughput_kept`] ([`crate::estimate::fit`]'s slots of a capped build).
pub fn decode_kept(gpu: &Gpu, limit_w: f64) -> f64 {
    let p = (limit_w / gpu.board_power_w).clamp(0.0, 1.0);
    p.powf(DECODE_KEPT_EXPONENT)
}

/// What a component is, for the stacked-bar breakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "index")]
pub enum Component {
    /// GPU at this build index.
    Gpu(usize),
    /// The CPU.
    Cpu,
    /// Motherboard.
    Board,
    /// Memory modules.
    Memory,
    /// NVMe drives.
    Storage,
    /// Fans and pumps.
    Fans,
    /// Board + memory + drives + fans when the build names no board.
    SystemRest,
}

/// One component's sustained DC draw.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentPower {
    /// What it is.
    pub component: Component,
    /// Label (`GPU 1: GeForce RTX 4090`).
    pub label: String,
    /// Sustained DC power, W.
    pub power_w: f64,
    /// Index of the PSU feeding it.
    pub psu: usize,
}

/// Transient peak at one excursion duration for one PSU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransientPoint {
    /// Duration, seconds.
    pub duration_s: f64,
    /// Estimated peak DC load, W.
    pub peak_w: f64,
    /// What the PSU tolerates for that long, W (`None` for ATX 2.x / server units: no spec).
    pub limit_w: Option<f64>,
}

/// One PSU's load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PsuLoad {
    /// Index in `Build::psus`.
    pub index: usize,
    /// PSU id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Rated output at the site's mains voltage, W.
    pub rated_w: f64,
    /// Sustained DC load, W.
    pub dc_w: f64,
    /// `dc_w / rated_w`.
    pub load_fraction: f64,
    /// Efficiency at that load (0..1); `None` when the unit publishes no curve and no 80 PLUS
    /// level is known ([`EfficiencyBasis::Unknown`]).
    pub efficiency: Option<f64>,
    /// Where `efficiency` comes from: the unit's published curve, or its 80 PLUS level's
    /// certification minimum (the unit is at least this efficient), or unknown.
    pub efficiency_basis: EfficiencyBasis,
    /// AC input, W; `None` when the efficiency is unknown.
    pub wall_w: Option<f64>,
    /// Heat lost in the PSU, W; `None` when the efficiency is unknown.
    pub loss_w: Option<f64>,
    /// Current drawn from its outlet, A; `None` when the efficiency is unknown.
    pub amps: Option<f64>,
    /// The inlet's rating at this site, A (C14 10 A / 15 A in North America, C20 16 / 20 A).
    pub inlet_a: f64,
    /// Continuous rating of the outlet it is plugged into, A.
    pub outlet_a: f64,
    /// Index into `Site::outlets` of its outlet; `None` = an outlet of its own
    /// (`Site::outlet_continuous_a`).
    pub outlet: Option<usize>,
    /// Circuit index.
    pub circuit: usize,
    /// Transient peaks at the ATX 3.x table's durations.
    pub transients: Vec<TransientPoint>,
    /// The efficiency curve used, `(load %, efficiency %)`; empty when unknown.
    pub curve: Vec<(f64, f64)>,
}

/// One wall circuit's load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CircuitLoad {
    /// Circuit index.
    pub index: usize,
    /// DC load of the PSUs on it, W: the wall draw is at least this much (no PSU delivers more
    /// than it takes in), whatever their efficiency.
    pub dc_w: f64,
    /// AC power of the PSUs on it, W; `None` when a PSU on it has no known efficiency (or the
    /// build names no PSU).
    pub wall_w: Option<f64>,
    /// Current, A; `None` with `wall_w`.
    pub amps: Option<f64>,
    /// The least its wall draw can be, W: the wall draw of its PSUs of known efficiency plus the
    /// DC load of the others (no PSU delivers more than it takes in); `wall_w` when known.
    pub min_wall_w: f64,
    /// `min_wall_w` at the site's voltage, A: the least current the circuit carries.
    pub min_amps: f64,
    /// Breaker rating, A.
    pub breaker_a: f64,
    /// Continuous limit, A (80 % of the breaker; Schuko sites also at most 10 A per socket).
    pub continuous_a: f64,
    /// `breaker_a x volts`, W.
    pub breaker_w: f64,
    /// `continuous_a x volts`, W.
    pub continuous_w: f64,
}

/// One wall outlet's load (the outlets of `Site::outlets`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutletLoad {
    /// Index in `Site::outlets` (0-based; people read "outlet 1").
    pub index: usize,
    /// Kind (`NEMA 5-15`).
    pub kind: String,
    /// PSUs plugged in, by build index.
    pub psus: Vec<usize>,
    /// Circuit it is on (its PSUs' circuit).
    pub circuit: usize,
    /// AC power through it, W; `None` when a PSU plugged into it has no known efficiency.
    pub wall_w: Option<f64>,
    /// Current through it, A; `None` with `wall_w`.
    pub amps: Option<f64>,
    /// Rated current, A.
    pub rated_a: f64,
    /// Continuous limit, A.
    pub continuous_a: f64,
}

/// Electricity cost at the site's price and duty cycle: the build works `duty` of the hours at
/// `working_wall_w` and idles the rest at `idle_wall_w` ([`energy_cost`], the one formula the
/// power report, the Power tab and the fit's cost use).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnergyCost {
    /// USD per hour while working.
    pub per_hour_usd: f64,
    /// USD per month: working hours at the load, the other hours idle.
    pub per_month_usd: f64,
    /// USD per year (12 months).
    pub per_year_usd: f64,
    /// kWh per month.
    pub kwh_per_month: f64,
    /// Wall power while working, W (the estimate's load state).
    pub working_wall_w: f64,
    /// Wall power while idle, W (the idle estimate of the same build).
    pub idle_wall_w: f64,
    /// Fraction of the hours the build works, 0-1 (the site's `duty_cycle`).
    pub duty: f64,
}

/// Electricity of a build that works `duty` (clamped to 0-1) of a month's
/// [`HOURS_PER_MONTH`] at `working_wall_w` and idles the rest at `idle_wall_w`, at
/// `price_per_kwh` USD. The one formula: [`estimate`]'s `cost` and the fit's cost
/// ([`super::cost::estimate`]) both call it.
pub fn energy_cost(working_wall_w: f64, idle_wall_w: f64, price_per_kwh: f64, duty: f64) -> EnergyCost {
    let duty = duty.clamp(0.0, 1.0);
    let kwh_per_month = (working_wall_w * duty + idle_wall_w * (1.0 - duty)) / 1000.0 * HOURS_PER_MONTH;
    EnergyCost {
        per_hour_usd: working_wall_w / 1000.0 * price_per_kwh,
        per_month_usd: kwh_per_month * price_per_kwh,
        per_year_usd: kwh_per_month * price_per_kwh * 12.0,
        kwh_per_month,
        working_wall_w,
        idle_wall_w,
        duty,
    }
}

/// The whole estimate for one load state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerEstimate {
    /// Load state estimated.
    pub state: LoadState,
    /// Per component.
    pub components: Vec<ComponentPower>,
    /// Sum of sustained DC loads, W.
    pub total_dc_w: f64,
    /// Per PSU.
    pub psus: Vec<PsuLoad>,
    /// Per circuit.
    pub circuits: Vec<CircuitLoad>,
    /// Per wall outlet of `Site::outlets` (empty when the site lists none).
    pub outlets: Vec<OutletLoad>,
    /// Total AC draw, W; `None` when a PSU has no known efficiency or the build names no PSU.
    pub total_wall_w: Option<f64>,
    /// Heat into the room, W (all of the wall draw); `None` with `total_wall_w`.
    pub heat_w: Option<f64>,
    /// Heat, BTU/h; `None` with `total_wall_w`.
    pub heat_btu_h: Option<f64>,
    /// Heat released inside the case (DC load), W.
    pub case_heat_w: f64,
    /// Per-GPU thermal risk.
    pub gpu_thermal: Vec<GpuThermal>,
    /// Electricity cost; `None` when the wall draw (working or idle) is unknown.
    pub cost: Option<EnergyCost>,
}

impl PowerEstimate {
    /// Whether splitting this build's PSUs over circuits of `per_circuit_w` (W continuous) can
    /// help: there are several PSUs and each one's wall draw (its DC load where its efficiency
    /// is unknown, the least it can be) is within one circuit. One PSU, or a PSU that alone
    /// draws more, cannot be split (a trial was told to split the one PSU of a build, and
    /// another build whose one PSU alone drew 1494 W against 1440 W).
    pub fn psus_can_split_over(&self, per_circuit_w: f64) -> bool {
        self.psus.len() > 1 && self.psus.iter().all(|p| p.wall_w.unwrap_or(p.dc_w) <= per_circuit_w)
    }
}

/// Power limit a placement runs at: its `power_limit_w`, else the default board power.
///
/// A limit outside the card's published range is refused when the build is loaded
/// ([`crate::rig::load_str`] with a catalog); a build made in memory (the window, the advice
/// search) is held to the published bounds here. A bound nobody published is not guessed: the
/// limit is used as set and `check` reports it as not checked (`gpu-power-cable`).
pub fn gpu_limit_w(gpu: &Gpu, requested: Option<f64>) -> f64 {
    let Some(w) = requested.filter(|w| w.is_finite()) else { return gpu.board_power_w };
    let w = gpu.max_power_limit_w.map_or(w, |hi| w.min(hi));
    // A user part may publish a minimum above its maximum: the maximum wins.
    gpu.min_power_limit_w.map_or(w, |lo| w.max(lo.min(gpu.max_power_limit_w.unwrap_or(f64::INFINITY))))
}

/// The excursion limits for a PSU, as multiples of rating; `None` for units with no ATX 3.x
/// excursion specification.
pub(crate) fn excursion_limits(psu: &Psu) -> Option<[f64; 4]> {
    match psu.atx_version {
        AtxVersion::Atx30 | AtxVersion::Atx31 => {
            // An unknown 16-pin count takes the lower table (conservative).
            if psu.rated_w > EXCURSION_HPWR_MIN_W && psu.connectors.hpwr_16pin.unwrap_or(0) > 0 {
                Some(EXCURSION_LIMIT_HPWR)
            } else {
                Some(EXCURSION_LIMIT_OTHER)
            }
        }
        AtxVersion::Atx2 | AtxVersion::Server | AtxVersion::Unknown => None,
    }
}

/// Where a GPU's idle figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdleBasis {
    /// The catalog's `idle_power_w`, a measurement with its source in the entry's notes.
    Measured,
    /// [`GPU_IDLE_FRACTION`] of the board power: a derivation, not a measurement.
    Derived,
}

/// A GPU's idle draw, W, and where the figure comes from: its measured `idle_power_w`, else
/// [`GPU_IDLE_FRACTION`] of its board power (derived).
pub(crate) fn idle_w(gpu: &Gpu) -> (f64, IdleBasis) {
    match gpu.idle_power_w {
        Some(w) => (w, IdleBasis::Measured),
        None => (gpu.board_power_w * GPU_IDLE_FRACTION, IdleBasis::Derived),
    }
}

/// Where a GPU's measured idle figure was measured, from its provenance: the derivation text of
/// a `Derived("measured: ...")` figure, else the provenance's own words (a review's URL is in the
/// entry's notes).
pub(crate) fn idle_source(gpu: &Gpu) -> String {
    match gpu.provenance.of("idle_power_w") {
        Provenance::Derived(from) => from.strip_prefix("measured: ").unwrap_or(&from).to_owned(),
        Provenance::Review => "review measurement, source in the catalog entry's notes".to_owned(),
        p => p.to_string(),
    }
}

/// GPU limits on each PSU: `(gpu index, limit W, psu index)`.
type GpuLimits = Vec<(usize, f64, usize)>;

/// Sustained DC draw of every component in `state`, and the GPUs' power limits.
fn components(r: &Resolved<'_>, state: LoadState, override_limit_w: Option<f64>) -> (Vec<ComponentPower>, GpuLimits) {
    let b = r.build;
    let si = state as usize;
    let sys_psu = b.system_psu().unwrap_or(0);
    let mut components = Vec::new();
    let mut gpu_limits = Vec::new();
    for (i, (p, g)) in b.gpus.iter().zip(&r.gpus).enumerate() {
        let Some(g) = g else { continue };
        // A common limit searched for the advice never raises a card above its highest
        // settable limit (its default board power where none is published): `nvidia-smi -pl`
        // refuses a limit over a card's maximum.
        let limit = gpu_limit_w(g, override_limit_w.map(|l| l.min(g.max_limit_w())).or(p.power_limit_w));
        let w = match state {
            LoadState::Idle => idle_w(g).0,
            LoadState::Inference => limit * GPU_INFERENCE_FRACTION,
            LoadState::Training => limit * GPU_TRAINING_FRACTION,
        };
        gpu_limits.push((i, limit, p.psu));
        components.push(ComponentPower {
            component: Component::Gpu(i),
            label: match (state, idle_w(g).1) {
                (LoadState::Idle, IdleBasis::Derived) => format!(
                    "GPU {}: {} (idle derived: {:.0} % of board power, no measurement)",
                    i + 1,
                    g.name,
                    GPU_IDLE_FRACTION * 100.0
                ),
                (LoadState::Idle, IdleBasis::Measured) => {
                    format!("GPU {}: {} (idle measured: {})", i + 1, g.name, idle_source(g))
                }
                _ => format!("GPU {}: {}", i + 1, g.name),
            },
            power_w: w,
            psu: p.psu,
        });
    }
    if let Some(cpu) = r.cpu {
        let sockets = r.board.map_or(1, |b| b.cpu_sockets.max(1));
        let (base, note) = match (state, cpu.package_power_w) {
            (LoadState::Training, Some(p)) => (p, ""),
            (LoadState::Training, None) => (cpu.tdp_w, " (TDP; package power unknown)"),
            _ => (cpu.tdp_w, ""),
        };
        components.push(ComponentPower {
            component: Component::Cpu,
            label: if sockets > 1 {
                format!("CPU: {sockets}x {}{note}", cpu.name)
            } else {
                format!("CPU: {}{note}", cpu.name)
            },
            power_w: base * CPU_FRACTION[si] * f64::from(sockets),
            psu: sys_psu,
        });
    }
    let busy = if state == LoadState::Idle { 0.5 } else { 1.0 };
    if r.board.is_some() {
        components.push(ComponentPower {
            component: Component::Board,
            label: "Motherboard".into(),
            power_w: BOARD_W * busy,
            psu: sys_psu,
        });
        let (modules, per) = r.memory.map_or((4.0, DIMM_W), |(k, n)| {
            (f64::from(k.modules) * f64::from(n), k.power_w_per_module.unwrap_or(DIMM_W))
        });
        components.push(ComponentPower {
            component: Component::Memory,
            label: "Memory".into(),
            power_w: modules * per * busy,
            psu: sys_psu,
        });
        let drives: f64 = if r.storage.is_empty() {
            NVME_W
        } else {
            r.storage.iter().map(|(d, _)| d.power_w.unwrap_or(NVME_W)).sum()
        };
        components.push(ComponentPower {
            component: Component::Storage,
            label: "Drives".into(),
            power_w: drives * busy,
            psu: sys_psu,
        });
        let fans = FANS_W + r.cooler.and_then(|c| c.power_w).unwrap_or(0.0);
        components.push(ComponentPower {
            component: Component::Fans,
            label: "Fans and pumps".into(),
            power_w: fans,
            psu: sys_psu,
        });
    } else {
        components.push(ComponentPower {
            component: Component::SystemRest,
            label: "Board, memory, drives, fans".into(),
            power_w: REST_DEFAULT_W * busy,
            psu: sys_psu,
        });
    }
    (components, gpu_limits)
}

/// Each PSU's load in `state` from the components it feeds.
fn psu_loads(
    r: &Resolved<'_>,
    state: LoadState,
    components: &[ComponentPower],
    gpu_limits: &GpuLimits,
) -> Vec<PsuLoad> {
    let b = r.build;
    let mains_v = b.site.mains_v.max(1.0);
    let mut psus = Vec::new();
    for (i, (u, p)) in b.psus.iter().zip(&r.psus).enumerate() {
        let Some(p) = p else { continue };
        let dc: f64 = components.iter().filter(|c| c.psu == i).map(|c| c.power_w).sum();
        let rated = p.rated_w_at(mains_v);
        let (curve, basis) = efficiency_curve(p, mains_v).unwrap_or((Vec::new(), EfficiencyBasis::Unknown));
        let load_fraction = dc / rated;
        let eff = efficiency_at(&curve, load_fraction * 100.0);
        let wall = eff.map(|e| dc / e);
        let gpu_limit_here: f64 = gpu_limits.iter().filter(|(_, _, psu)| *psu == i).map(|(_, l, _)| l).sum();
        let rest_here = dc
            - components
                .iter()
                .filter(|c| c.psu == i && matches!(c.component, Component::Gpu(_)))
                .map(|c| c.power_w)
                .sum::<f64>();
        let limits = excursion_limits(p);
        // Idle GPUs do not spike to their limit: no transient peaks are estimated at idle.
        let durations: &[f64] = if state == LoadState::Idle { &[] } else { &EXCURSION_DURATIONS_S };
        let transients = durations
            .iter()
            .enumerate()
            .map(|(k, &d)| TransientPoint {
                duration_s: d,
                // Spikes come from GPUs at full load; the rest is taken at its sustained draw.
                peak_w: gpu_limit_here * GPU_TRANSIENT_FACTOR[k] + rest_here,
                limit_w: limits.map(|l| l[k] * rated),
            })
            .collect();
        psus.push(PsuLoad {
            index: i,
            id: p.id.clone(),
            name: format!("{} {}", p.vendor, p.name),
            rated_w: rated,
            dc_w: dc,
            load_fraction,
            efficiency: eff,
            efficiency_basis: basis,
            wall_w: wall,
            loss_w: wall.map(|w| w - dc),
            amps: wall.map(|w| w / mains_v),
            inlet_a: inlet_a(p.inlet, mains_v),
            outlet: b.site.outlets.iter().position(|o| o.psus.contains(&i)),
            outlet_a: b
                .site
                .outlets
                .iter()
                .find(|o| o.psus.contains(&i))
                .map_or_else(|| outlet_continuous_a(b), crate::rig::Outlet::continuous_a),
            // A PSU on a circuit the site does not have lands on its last real one (the
            // wall-circuit rule reports the mismatch).
            circuit: u.circuit.min(b.site.circuits.max(1) - 1),
            transients,
            curve,
        });
    }
    psus
}

/// Estimates the build's power in `state`, with every GPU at its placement's power limit
/// (or at `override_limit_w` when given, for the advice search: each card at the lower of it and
/// its highest settable limit, [`Gpu::max_limit_w`]).
pub fn estimate_with(r: &Resolved<'_>, state: LoadState, override_limit_w: Option<f64>) -> PowerEstimate {
    let b = r.build;
    let (components, gpu_limits) = components(r, state, override_limit_w);
    let total_dc_w: f64 = components.iter().map(|c| c.power_w).sum();

    let mains_v = b.site.mains_v.max(1.0);
    let psus = psu_loads(r, state, &components, &gpu_limits);
    // With no PSU chosen nothing says how efficient the conversion is: the wall draw is unknown.
    let total_wall_w = if psus.is_empty() { None } else { sum_known(psus.iter().map(|p| p.wall_w)) };
    let n_circuits = b.site.circuits.max(1);
    let cont_a = continuous_a(b);
    let circuits = (0..n_circuits)
        .map(|c| {
            let (dc, wall, min_wall) = if psus.is_empty() {
                let dc = if c == 0 { total_dc_w } else { 0.0 };
                (dc, if c == 0 { None } else { Some(0.0) }, dc)
            } else {
                let on = || psus.iter().filter(|p| p.circuit == c);
                (
                    on().map(|p| p.dc_w).sum(),
                    sum_known(on().map(|p| p.wall_w)),
                    on().map(|p| p.wall_w.unwrap_or(p.dc_w)).sum(),
                )
            };
            CircuitLoad {
                index: c,
                dc_w: dc,
                wall_w: wall,
                amps: wall.map(|w| w / mains_v),
                min_wall_w: min_wall,
                min_amps: min_wall / mains_v,
                breaker_a: b.site.circuit_a,
                continuous_a: cont_a,
                breaker_w: b.site.circuit_a * mains_v,
                continuous_w: cont_a * mains_v,
            }
        })
        .collect();
    let outlets = b
        .site
        .outlets
        .iter()
        .enumerate()
        .map(|(oi, o)| {
            let on: Vec<&PsuLoad> = psus.iter().filter(|p| p.outlet == Some(oi)).collect();
            let wall = sum_known(on.iter().map(|p| p.wall_w));
            OutletLoad {
                index: oi,
                kind: o.kind.name().to_owned(),
                psus: o.psus.clone(),
                circuit: on.first().map_or(0, |p| p.circuit),
                wall_w: wall,
                amps: wall.map(|w| w / mains_v),
                rated_a: o.rated_a(),
                continuous_a: o.continuous_a(),
            }
        })
        .collect();
    // The idle hours of the duty cycle cost the idle draw (as the fit's cost counts them).
    let idle_wall_w = if state == LoadState::Idle {
        total_wall_w
    } else {
        estimate_with(r, LoadState::Idle, override_limit_w).total_wall_w
    };
    let cost = total_wall_w
        .zip(idle_wall_w)
        .map(|(work, idle)| energy_cost(work, idle, b.site.price_per_kwh, b.site.duty_cycle));
    PowerEstimate {
        state,
        components,
        total_dc_w,
        psus,
        circuits,
        outlets,
        total_wall_w,
        heat_w: total_wall_w,
        heat_btu_h: total_wall_w.map(|w| w * BTU_PER_H_PER_W),
        case_heat_w: total_dc_w,
        gpu_thermal: gpu_thermal(r),
        cost,
    }
}

/// The sum of `figures`, or `None` when any of them is unknown (a sum over an unknown part is
/// unknown, not the sum of the known ones).
fn sum_known(figures: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    figures.sum()
}

/// Amps drawn from each wall circuit in `state`, in circuit order (index 0 = "circuit 1"):
/// what the status bar shows, one figure per circuit rather than their sum; `None` for a
/// circuit whose wall draw is unknown.
pub fn circuit_amps(r: &Resolved<'_>, state: LoadState) -> Vec<Option<f64>> {
    estimate(r, state).circuits.iter().map(|c| c.amps).collect()
}

/// Estimates the build's power in `state` with the build's own power limits.
pub fn estimate(r: &Resolved<'_>, state: LoadState) -> PowerEstimate {
    estimate_with(r, state, None)
}

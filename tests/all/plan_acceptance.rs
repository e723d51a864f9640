//! Issue 36's acceptance goals: eight goals builders ask, each with an expert's answer from a
//! cited 2025-26 guide or build log. Each goal runs the planner; its first answer is compared
//! with the expert's *class* of answer (how many cards of what memory, the platform class, a
//! CPU+GPU hybrid split or not, a power cap, the owned card used), never a part id. Every first
//! answer is saved as a build file and `kraftwerk check` and `kraftwerk fit` on it must agree
//! with the plan's verdict and decode.
//!
//! The test prints a score table and holds the score at or above the count measured when it
//! was written (a ratchet): raise [`SCORE_AT_LEAST`] when the planner gets more right; never
//! weaken a goal or an expert class to make it pass. Misses are listed with their reason. A
//! first answer of the right class still misses when it is not fully priced, puts a card on
//! chipset or x1 links, or rests on an unvalidated speed while another result is validated.
//!
//! The goals (expert class; source, date):
//!
//! 1. `70b-q4-used-4000`: Llama 3.1 70B at Q4_K_M, >= 15 tok/s, one user, used cards, $4,000,
//!    120 V / 15 A. Two used 24 GB cards (RTX 3090) on a desktop board, both on CPU lanes,
//!    GPU-only. "Two RTX 3090s for Local LLM -- Real Throughput vs $5k Cost",
//!    https://bestllmfor.com/best/dual-rtx-3090-budget-rig/ (2026-05-16): 2x 3090, X670E,
//!    Llama 3.3 70B Q4_K_M at 14-18 tok/s, $3,570-3,910 in all.
//! 2. `70b-q4-own-one-3090`: the same model and speed, one RTX 3090 owned, more bought used,
//!    $2,500. The owned 3090 plus one more used 24 GB card on a desktop board. "How to Run Two
//!    RTX 3090s for LLM Inference in 2026" (Thurmon Demich, 2026),
//!    https://dev.to/thurmon_demich/how-to-run-two-rtx-3090s-for-llm-inference-in-2026-1h1j:
//!    two used 3090s at about $600 each, 70B Q4 at 18-22 tok/s, both slots at x8 or better.
//! 3. `qwen3-32b-q4-one-card`: Qwen3-32B at Q4_K_M, >= 20 tok/s, used, $2,000. One used 24 GB
//!    card on a desktop. "Best GPU for Qwen 3 32B" (SpecPicks, 2026),
//!    https://specpicks.com/reviews/best-gpu-for-qwen-3-32b: Q4_K_M is 19.2 GB of weights plus
//!    1.9 GB of KV at 4K, "the cheapest card that fits it natively" is a 24 GB RTX 3090 (Ti).
//! 4. `qwen3-235b-hybrid` (big MoE): Qwen3-235B-A22B at Q3_K_M (about 3.9 bits a weight),
//!    at least 8 tok/s, used, $5,000. One 24 GB GPU holding attention and the first expert layers,
//!    the other routed experts in 96 GB of DDR5 on a gaming desktop (ik_llama.cpp `-ot
//!    ...=CPU`). ubergarm's Qwen3-235B-A22B GGUF model card (2025, after Qwen3's 2025-04-29
//!    release), https://huggingface.co/ubergarm/Qwen3-235B-A22B-GGUF (read in a GitHub copy,
//!    JoseAdrianRodriguezGonzalez/Llm-Component `ubergarm__Qwen3-235B-A22B-GGUF/README.md`):
//!    mix-IQ3_K, 106.8 GiB at 3.903 BPW, "24GB VRAM + 96GB RAM (perfect for AM5 or LGA 1700
//!    gamer rigs with 2x48GiB DDR5 DIMMs)", "up to 140 tok/sec PP and 10 tok/sec TG on my
//!    3090TI FE 24GB VRAM + AMD 9950X 2x48GB DDR5-6400". A many-channel server hybrid is an
//!    expert's answer too (issue 36), so the platform is not fixed; the split is.
//! 5. `gpt-oss-120b-hybrid` (big MoE): gpt-oss-120b at MXFP4 under llama.cpp, >= 20 tok/s, used,
//!    $2,500. One GPU (8 GB is enough) for attention and the dense weights, the routed experts
//!    in 64-96 GB of system RAM on a desktop (`--n-cpu-moe 36`). r/LocalLLaMA post by
//!    u/Wrong-Historian (August 2025), as reported by Cybernews, "My mind was blown: running a
//!    120B parameter AI model on a budget GPU at home",
//!    https://cybernews.com/editorial/moe-lets-users-run-massive-llms-on-consumer-hardware/:
//!    i9-14900K, 64 GB RAM "minimum", 96 GB "ideal", 25 tok/s with about 8 GB of VRAM
//!    (llama.cpp PR https://github.com/ggml-org/llama.cpp/pull/15157).
//! 6. `deepseek-r1-hybrid` (DeepSeek class): DeepSeek-R1 671B at Q4_K_M, >= 5 tok/s, used,
//!    $10,000. One 24 GB GPU plus the routed experts in 384 GB or more of RAM on a many-channel
//!    server platform (8-12 DDR5 channels per socket). KTransformers' DeepSeek-R1/V3 tutorial
//!    (2025-02-10),
//!    https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/DeepseekR1_V3_tutorial.md:
//!    Xeon Gold 6454S (8 channels per socket), 1 TB DDR5-4800, one RTX 4090D, Q4_K_M, decode
//!    8.73 tok/s on one socket (32 cores), 11.26 on two; llama.cpp 4.51 on 2x32 cores.
//! 7. `4x3090-capped-120v` (power limits): Llama 3.1 70B at Q8_0 (about 75 GB: four 24 GB
//!    cards), >= 10 tok/s, used, $8,000, one 120 V / 15 A circuit. Four 24 GB cards on a
//!    server or workstation board (every card on CPU lanes), each capped with `nvidia-smi -pl`
//!    so the machine stays on one outlet. Joe Barrow, "Building a 1-Outlet, 4-GPU Workstation"
//!    (2026-05-18), https://jbarrow.ai/2026-05-18-gpu-workstation/: 4x RTX 3090 Ti on one
//!    15 A / 120 V outlet, server board, "power-limit the GPUs".
//! 8. `4x3090-16-users-230v` (230 V): Llama 3.3 70B at int4 (AWQ, vLLM) for 16 users at
//!    at least 10 tok/s each, used, $8,000, one 230 V / 16 A circuit. Four used 24 GB cards under vLLM
//!    tensor parallel 4 on a WRX80/W790 workstation board (every card on CPU lanes), a 1600 W
//!    PSU or two; the circuit's 2.9 kW continuous carries them uncapped. "Quad RTX 3090
//!    workstation stack" (runlocalai, last reviewed 2026-05-07),
//!    https://www.runlocalai.co/stacks/quad-3090-workstation: "70B serving at high concurrency
//!    (16+ users)". (The stack is not written for 230 V; the 230 V / 16 A circuit is the
//!    goal's, and only lifts the power limit the 120 V goal 7 has.) The stack's hardware list:
//!    "1600W Platinum PSU OR dual 1000W PSUs synced via Add2PSU", "Open-frame mining rig OR 4U
//!    server chassis". Misses today on catalog data, not on the search: at 350 W the machine
//!    draws about 1,677 W DC at full load, over the 80 % guideline of every single PSU in the
//!    catalog (and over a 1600 W unit's rating), and no priced case or frame is sourced to hold
//!    two PSUs (the generic open-air frame holds four but has no price and no GPU length), so
//!    the answer is capped. Where such a case exists the planner runs the cards uncapped on two
//!    PSUs before it plans a cap (`plan_levers::a_second_psu_comes_before_a_power_cap_on_230_v`).

use crate::support;
use kraftwerk::catalog::Catalog;
use kraftwerk::plan::goal::Goal;
use kraftwerk::plan::{PlanOutcome, PlanResult, plan_blocking};
use serde_json::Value;
use std::fmt::Write as _;

pub(crate) mod goals;

/// First answers of the expert's class, measured when this test was written (2026-12-05, main
/// at 7697673): goals 1-3 match; 4-8 miss (see [`expert_goals`]). A ratchet: raise it when the
/// planner gets more right. 4 since validated speeds rank before unvalidated ones (goal 6); 5
/// since the catalog has the RTX 3090's minimum power limit, so the cap is a lever (goal 7); 6
/// since a CPU+GPU split is tried on one board of each memory class in turn, so a two-channel
/// DDR5 desktop is assembled beside the server boards (goal 5); 7 since a split's RAM is sized
/// for the experts of the layers it puts in RAM, not every routed expert, so one 24 GB card and
/// 2 x 48 GB on a desktop qualify (goal 4). 6 again since goal 7's answer was found to rest on
/// a figure nobody published (2026-12-07): its PSU, the SilverStone HELA 2050 Platinum, is a
/// 230 V unit whose rating on 100-127 V mains is not published, and psu-capacity had compared
/// its 120 V load with 2050 W. Not checked at 120 V now (`low_line_rating_unknown`), it leaves
/// no PSU the checker can verify that carries four RTX 3090s at a cap keeping 10 tok/s: the
/// best checkable answer is an ASRock PG-1600G at 210 W per card, 9.8 tok/s (every 1600 W unit
/// without an ATX 3.x excursion table holds the cap at 210-225 W by its 1 ms peak; the one ATX
/// 3.1 unit of 1600 W has 6 PCIe 8-pin cables where four 3090s need 8). The goal and its class
/// are unchanged; the miss is listed with its reason. 7 again since a capped build's speeds
/// are estimated on the capped GPUs with a memory-bound decode curve fitted to published
/// llama.cpp power sweeps (2026-12-07): four RTX 3090s at about 210 W keep about 95 % of their
/// decode, not the 91 % the compute curve gave, so the ASRock PG-1600G answer meets 10 tok/s.
/// 6 again since goal 5's answer was found to rest on a price nobody published (2026-12-08): its
/// used RTX 3060 12 GB at $200 came from GPUDojo's "Typical Price" column, which never says
/// used (the card was still sold new then), so the record was removed and the chip is unpriced;
/// the cheapest answer left is a used RTX 3080 Ti ($393, GPUPoet, July 2026) with the experts in
/// 64 GB of quad-channel DDR4 on an X299 board ($1,123, 22.1 tok/s), a workstation platform, not
/// the expert's desktop. The goal and its class are unchanged.
const SCORE_AT_LEAST: usize = 6;

const RTX_3090: &str = "nvidia-geforce-rtx-3090";

/// The platform class of an expert's answer, read from the CPU's memory channels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Platform {
    /// A desktop CPU (AM4, AM5, LGA1700/1851): at most 2 memory channels.
    Desktop,
    /// A workstation or server CPU with the lanes for four cards: 4 or more channels.
    Workstation,
    /// A many-channel server platform for a CPU+GPU hybrid (SP3, SP5, sWRX8, sTR5, LGA4677):
    /// 8 or more channels.
    ManyChannel,
    /// Any platform (experts build the answer on either a desktop or a server).
    Any,
}

impl Platform {
    fn holds(self, channels: u32) -> bool {
        match self {
            Platform::Desktop => channels <= 2,
            Platform::Workstation => channels >= 4,
            Platform::ManyChannel => channels >= 8,
            Platform::Any => true,
        }
    }
    fn words(self) -> &'static str {
        match self {
            Platform::Desktop => "desktop",
            Platform::Workstation => "workstation/server",
            Platform::ManyChannel => "many-channel server",
            Platform::Any => "any platform",
        }
    }
}

/// An expert's class of answer.
#[derive(Debug, Clone)]
pub(crate) struct Class {
    /// GPUs in the machine, fewest and most.
    pub gpus: (usize, usize),
    /// Memory of each card, GiB, at least.
    pub card_gib_at_least: f64,
    pub platform: Platform,
    /// A CPU+GPU split with the routed experts in system RAM, and the RAM it needs, GiB.
    pub hybrid_ram_gib: Option<f64>,
    /// Each GPU capped (`nvidia-smi -pl`).
    pub capped: bool,
    /// A part the user owns that the answer uses.
    pub owned: Option<&'static str>,
}

impl Class {
    fn describe(&self) -> String {
        let n = if self.gpus.0 == self.gpus.1 {
            format!("{}", self.gpus.0)
        } else {
            format!("{}-{}", self.gpus.0, self.gpus.1)
        };
        let mut s = format!("{n}x >={:.0} GB, {}", self.card_gib_at_least, self.platform.words());
        match self.hybrid_ram_gib {
            Some(r) => {
                let _ = write!(s, ", hybrid >={r:.0} GB RAM");
            }
            None => s.push_str(", GPU-only"),
        }
        if self.capped {
            s.push_str(", capped");
        }
        if self.owned.is_some() {
            s.push_str(", owned card used");
        }
        s
    }
}

/// One acceptance goal: its name, the goal, the expert's class and where it comes from.
pub(crate) struct ExpertGoal {
    pub name: &'static str,
    pub goal: Goal,
    pub class: Class,
    pub source: &'static str,
    /// Words naming the expert's option in the planner's rejections and relaxations (`4x RTX
    /// 3090`, `experts in RAM`), to say why it lost when the planner gives no answer.
    pub lead: &'static str,
}

/// The eight goals of the module docs, with their expert classes. The planner's first answer
/// on main at 7697673 (2026-12-05), for the record:
/// 1-3 match (2x RTX 3090 on a B550 board $2,119; the owned 3090 plus one $1,420; 1x RTX 3090
/// $1,103);
/// 4 misses: nothing (binding budget and speed; the only hybrids tried are on an X299 board,
/// 4 channels of DDR4-2666, 6.1-6.5 tok/s; no desktop DDR5 hybrid is assembled); later (main
/// at 9f4e094) 1x RTX 3060 12 GB + experts in RAM on ASRock Rack ROMED8-2T, $3,239, 10.4 tok/s
/// (a 12 GB card). `fit` on the expert's machine (Ryzen 9 9950X, 2 x 48 GB DDR5, RTX 3090 Ti)
/// gives 8.8 tok/s at `--n-cpu-moe 79` against ubergarm's 10, so the speed model is not what
/// loses it: the planner sizes a split's RAM for every routed expert in RAM (about 100 GiB at
/// Q3_K_M, plus the 8 GiB reserve: more than 96 GB), so a desktop needs four DIMMs, two per
/// channel, where the Ryzen's rated speed is unknown and a kit's rating is not reached; such a
/// split carries a speed caveat and ranks after the validated ROMED8-2T one. Still a miss;
/// since a split's RAM is sized for the split it runs (the routed experts of its `--n-cpu-moe`
/// layers, what `fit`'s `fits_with_experts_in_ram` holds, plus the 8 GiB reserve), a 24 GB
/// card keeps 15 expert layers on the GPU and 2 x 48 GB holds the other 79 (84.7 GiB), so it
/// matches: 1x Tesla P40 + experts in RAM on ASUS TUF GAMING B650-PLUS (Ryzen 5 8400F, 2 x 48 GB
/// DDR5-7000 at the kit's rating), $1,388, 8.1 tok/s at `--n-cpu-moe 79`; since validation is
/// by GPU architecture too (the held rows have no Pascal card, so the P40's speed is
/// unvalidated) and a split tries validated cards first, one of each memory size, it is the
/// expert's own machine: 1x RTX 3090 + experts in RAM on ASUS TUF GAMING B650-PLUS, $1,542,
/// 9.0 tok/s;
/// 5 misses: 3x Tesla P40 at 54.5 tok/s, two of them on chipset x1/x4 links (no MXFP4 hybrid
/// split is planned); later nothing (binding budget); with MXFP4 splits under llama.cpp (and
/// splits tried beside GPU-only counts over the budget) 1x Tesla P40 + experts in RAM on an
/// X299 board (4 channels of DDR4, 128 GB), $1,271, 22.2 tok/s: still a miss, the platform
/// (the planner tries the boards with the most memory channels first for a split, so no
/// desktop DDR5 split is assembled); since a split tries one board of each memory class
/// (channels, DDR4/DDR5) in turn, and prefers one DIMM per channel where the CPU's rating for
/// two is unknown, it matches: 1x RTX 3060 12 GB + experts in RAM on ASUS TUF GAMING B650-PLUS
/// (Ryzen 5 8400F, 2 x 48 GB DDR5-7000 at the kit's rating: the CPU's rated speed is not in the
/// catalog), $1,030, 22.6 tok/s;
/// 6 misses: nothing fully priced (the many-channel SP5 hybrid has an unpriced board, CPU,
/// cooler and RDIMMs: prices are another helper's branch); later (main at f9706d9) a split on
/// one Arc A770 on a ROMED8-2T, $3,353, whose speed no held row validates, ranked before the
/// validated split on one Tesla P40 on the same board; since validated speeds rank first within
/// a price tier it matches (1x Tesla P40 + experts in RAM on ASRock Rack ROMED8-2T, $3,595,
/// 6.4 tok/s); with validation by architecture (the P40 is Pascal, no held row) 1x RTX 5060 Ti
/// 16 GB + experts in RAM on the same board, $3,468, 6.6 tok/s;
/// 7 misses: nothing (4x 3090 over the 15 A circuit; the cap that would fit, 255 W, is not
/// applied because the catalog has no minimum power limit for the RTX 3090); with the minimum
/// (100 W, read from published `nvidia-smi -q` output) it matches: 4x RTX 3090 capped at 255 W
/// on a Supermicro C9X299-PG300F, $5,255, 10.2 tok/s (the checker calls it UNVERIFIED: the
/// board's slot positions are unpublished, so four 3-slot cards' spacing is not checked);
/// 8 misses: nothing (4x 3090 on one PSU fails the 1 ms peak, the 2800 W unit's 8-pin count is
/// unpublished, and two-PSU frames are not tried); with the RTX 3090's minimum limit, 4x RTX
/// 3090 on the same Supermicro board, $5,255, 18.9 tok/s, but capped where the expert runs the
/// cards uncapped on 230 V: still a miss.
pub(crate) fn expert_goals() -> Vec<ExpertGoal> {
    // The goals themselves are the shared list the bench runs too (`goals.rs`).
    let g = goals::named;
    vec![
        ExpertGoal {
            name: "70b-q4-used-4000",
            goal: g("70b-q4-used-4000"),
            class: Class {
                gpus: (2, 2),
                card_gib_at_least: 24.0,
                platform: Platform::Desktop,
                hybrid_ram_gib: None,
                capped: false,
                owned: None,
            },
            source: "https://bestllmfor.com/best/dual-rtx-3090-budget-rig/ (2026-05-16)",
            lead: "2x RTX 3090",
        },
        ExpertGoal {
            name: "70b-q4-own-one-3090",
            goal: g("70b-q4-own-one-3090"),
            class: Class {
                gpus: (2, 2),
                card_gib_at_least: 24.0,
                platform: Platform::Desktop,
                hybrid_ram_gib: None,
                capped: false,
                owned: Some(RTX_3090),
            },
            source: "https://dev.to/thurmon_demich/how-to-run-two-rtx-3090s-for-llm-inference-in-2026-1h1j (2026)",
            lead: "2x RTX 3090",
        },
        ExpertGoal {
            name: "qwen3-32b-q4-one-card",
            goal: g("qwen3-32b-q4-one-card"),
            class: Class {
                gpus: (1, 1),
                card_gib_at_least: 24.0,
                platform: Platform::Desktop,
                hybrid_ram_gib: None,
                capped: false,
                owned: None,
            },
            source: "https://specpicks.com/reviews/best-gpu-for-qwen-3-32b (2026)",
            lead: "1x RTX 3090",
        },
        ExpertGoal {
            name: "qwen3-235b-hybrid",
            goal: g("qwen3-235b-hybrid"),
            class: Class {
                gpus: (1, 2),
                card_gib_at_least: 24.0,
                platform: Platform::Any,
                hybrid_ram_gib: Some(96.0),
                capped: false,
                owned: None,
            },
            source: "https://huggingface.co/ubergarm/Qwen3-235B-A22B-GGUF (2025)",
            lead: "experts in RAM",
        },
        ExpertGoal {
            name: "gpt-oss-120b-hybrid",
            goal: g("gpt-oss-120b-hybrid"),
            class: Class {
                gpus: (1, 1),
                card_gib_at_least: 8.0,
                platform: Platform::Desktop,
                hybrid_ram_gib: Some(64.0),
                capped: false,
                owned: None,
            },
            source: "https://cybernews.com/editorial/moe-lets-users-run-massive-llms-on-consumer-hardware/ (u/Wrong-Historian, r/LocalLLaMA, 2025-08)",
            lead: "experts in RAM",
        },
        ExpertGoal {
            name: "deepseek-r1-hybrid",
            goal: g("deepseek-r1-hybrid"),
            class: Class {
                gpus: (1, 2),
                card_gib_at_least: 16.0,
                platform: Platform::ManyChannel,
                hybrid_ram_gib: Some(384.0),
                capped: false,
                owned: None,
            },
            source: "https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/DeepseekR1_V3_tutorial.md (2025-02-10)",
            lead: "experts in RAM",
        },
        ExpertGoal {
            name: "4x3090-capped-120v",
            goal: g("4x3090-capped-120v"),
            class: Class {
                gpus: (4, 4),
                card_gib_at_least: 24.0,
                platform: Platform::Workstation,
                hybrid_ram_gib: None,
                capped: true,
                owned: None,
            },
            source: "https://jbarrow.ai/2026-05-18-gpu-workstation/ (2026-05-18)",
            lead: "4x RTX 3090",
        },
        ExpertGoal {
            name: "4x3090-16-users-230v",
            goal: g("4x3090-16-users-230v"),
            class: Class {
                gpus: (4, 4),
                card_gib_at_least: 24.0,
                platform: Platform::Workstation,
                hybrid_ram_gib: None,
                capped: false,
                owned: None,
            },
            source: "https://www.runlocalai.co/stacks/quad-3090-workstation (reviewed 2026-05-07)",
            lead: "4x RTX 3090",
        },
    ]
}

/// Whether `r` is of the expert's class: `Err` names the first difference. `others` are the
/// plan's other results: a first answer whose speed rests on no held row (a speed caveat)
/// while another result's speed is validated is no expert's answer (issue 36, "Done when").
fn class_of(c: &Catalog, r: &PlanResult, others: &[PlanResult], class: &Class) -> Result<(), String> {
    if let Some(caveat) = r.eval.speed_caveats.first()
        && let Some(v) = others.iter().find(|o| o.eval.speed_caveats.is_empty())
    {
        return Err(format!("unvalidated speed ({caveat}) while {} is validated", v.title));
    }
    if !r.price_complete {
        return Err(format!("not fully priced (unpriced: {})", r.eval.unpriced.join(", ")));
    }
    let n = r.build.gpus.len();
    if n < class.gpus.0 || n > class.gpus.1 {
        return Err(format!("{n} GPUs"));
    }
    for g in &r.build.gpus {
        let m = c.gpu_or_card(&g.gpu).map_or(0.0, |x| x.memory_gib);
        if m < class.card_gib_at_least {
            return Err(format!("{} has {m:.0} GB", g.gpu));
        }
    }
    let poor = kraftwerk::plan::judge::poor_links(&r.eval);
    if poor > 0 {
        return Err(format!("{poor} card(s) on chipset or x1 links"));
    }
    let channels = r.build.cpu.as_deref().and_then(|id| c.cpu(id)).map_or(0, |x| u32::from(x.memory_channels));
    if !class.platform.holds(channels) {
        return Err(format!("platform of {channels} memory channels, not {}", class.platform.words()));
    }
    match (&r.eval.hybrid, class.hybrid_ram_gib) {
        (None, Some(_)) => return Err("GPU-only, not a CPU+GPU hybrid".into()),
        (Some(_), None) => return Err("a hybrid split where the GPUs alone hold it".into()),
        (Some(h), Some(ram)) if h.host_ram_gib + 1e-6 < ram => {
            return Err(format!("{:.0} GB of RAM", h.host_ram_gib));
        }
        _ => {}
    }
    if class.capped != r.eval.power_cap.is_some() {
        return Err(if class.capped { "no power cap".into() } else { "a power cap".into() });
    }
    if let Some(id) = class.owned
        && !r.build.owned.iter().any(|o| o.ends_with(id))
    {
        return Err(format!("does not use the owned {id}"));
    }
    Ok(())
}

/// The first answer in a few words, or why there is none.
fn first_words(out: &PlanOutcome) -> String {
    match out.results.first() {
        Some(r) => {
            let price = if r.price_complete {
                kraftwerk::fmt::usd(r.price_usd)
            } else {
                format!("at least {}", kraftwerk::fmt::usd(r.eval.known_price_usd))
            };
            let decode = r.eval.decode_per_user.map_or_else(|| "unknown".into(), |d| format!("{d:.1} tok/s"));
            format!("{}: {price}, {decode}", r.title)
        }
        None => format!("nothing (binding: {:?})", out.binding),
    }
}

/// Why the expert's option lost, from the plan's rejections and relaxations naming `lead`.
fn lost(out: &PlanOutcome, lead: &str) -> String {
    let mut why: Vec<String> = out
        .rejected
        .iter()
        .filter(|r| r.what.contains(lead) || r.reason.contains(lead))
        .take(2)
        .map(|r| format!("[{:?}] {}: {}", r.constraint, r.what, r.reason))
        .collect();
    why.extend(
        out.relaxations
            .iter()
            .filter(|r| r.buys.as_deref().is_some_and(|b| b.contains(lead)))
            .map(|r| format!("{}: {}", r.change, r.buys.as_deref().unwrap_or_default())),
    );
    if why.is_empty() { format!("no rejection names {lead}") } else { why.join("; ") }
}

fn json_of(args: &[&str]) -> Value {
    let o = support::kw(args);
    let text = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {text}{}", String::from_utf8_lossy(&o.stderr)))
}

/// `kraftwerk check` and `kraftwerk fit` on the first answer saved as a build file: the
/// disagreements with the plan (its verdict; its decode, or its hybrid split's), in words.
fn disagreements(result: &PlanResult, dir: &std::path::Path, name: &str) -> Vec<String> {
    let path = dir.join(format!("{name}.rig.ron"));
    std::fs::write(&path, kraftwerk::rig::to_ron_string(&result.build).expect("ron")).expect("write");
    let file = path.to_str().expect("utf-8 path");
    let mut out = Vec::new();
    let check = json_of(&["check", file, "--format", "json"]);
    let planned_verdict = serde_json::to_value(result.eval.verdict).expect("verdict");
    if check["verdict"] != planned_verdict {
        out.push(format!("check says {} where the plan says {planned_verdict}", check["verdict"]));
    }
    let fit = json_of(&["fit", file, "--format", "json"]);
    let near = |a: f64, b: f64| (a - b).abs() <= 0.01 * b.abs().max(1e-9);
    if let Some(split) = &result.eval.hybrid {
        // The plan's split is fit's `fits_with_experts_in_ram` (the suggested --n-cpu-moe), not
        // `experts_in_ram` (every routed expert in RAM, slower by the layers kept on the GPU).
        let split_fit = &fit["fits_with_experts_in_ram"];
        let decode = split_fit["decode_tokens_per_s"].as_f64();
        // The RAM is sized for that split (its experts plus the reserve), so fit must hold the
        // split's experts in RAM; `experts_in_ram` (every expert, `-ot exps=CPU`) may need more
        // than the split runs with and is not the plan's placement.
        if split_fit["fits_in_host_ram"] != Value::Bool(true) {
            out.push(format!("fit does not hold the split's experts in RAM: {split_fit}"));
        }
        if split_fit["n_cpu_moe"].as_u64() != Some(u64::from(split.n_cpu_moe)) {
            out.push(format!("fit's --n-cpu-moe {}, the plan's {}", split_fit["n_cpu_moe"], split.n_cpu_moe));
        }
        if !decode.is_some_and(|d| near(d, split.decode_tokens_per_s)) {
            out.push(format!("fit's hybrid decode {decode:?}, the plan's {:.2}", split.decode_tokens_per_s));
        }
    } else {
        let verdict = fit["verdict"].as_str().unwrap_or("?");
        if verdict == "does_not_fit" {
            out.push(format!("fit says {verdict}"));
        }
        let decode = fit["fit"]["speed"]["decode_per_sequence_tokens_per_s"].as_f64();
        // A capped plan's decode is fit's on the saved build: both run the GPUs at its limits.
        let planned = result.eval.decode_per_user.unwrap_or(f64::NAN);
        if !decode.is_some_and(|d| near(d, planned)) {
            out.push(format!("fit's decode {decode:?}, the plan's {planned:.2}"));
        }
    }
    out
}

/// The eight goals: a score table (goal, expert class, first answer, match, why), the score
/// held at [`SCORE_AT_LEAST`] or more, and `check`/`fit` on every first answer agreeing with
/// the plan. Seen failing with SCORE_AT_LEAST = 5 (score 4: the table lists the misses), and
/// with 7 when a split's RAM was sized for every routed expert again (score 6).
#[test]
fn the_first_answer_is_the_experts_class() {
    let c = kraftwerk::catalog::builtin().expect("built-in catalog");
    let dir = std::env::temp_dir().join(format!("kw-plan-acceptance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let goals = expert_goals();
    assert_eq!(goals.len(), 8);
    let outcomes: Vec<PlanOutcome> = std::thread::scope(|s| {
        let handles: Vec<_> = goals.iter().map(|g| s.spawn(|| plan_blocking(&c, &g.goal).expect("plan"))).collect();
        handles.into_iter().map(|h| h.join().expect("goal thread")).collect()
    });
    let mut table = String::from("goal | expert class | first answer | match | why\n");
    let mut score = 0;
    let mut misses = Vec::new();
    let mut disagree = Vec::new();
    for (g, out) in goals.iter().zip(&outcomes) {
        let verdict = match out.results.first() {
            Some(r) => class_of(&c, r, &out.results[1..], &g.class),
            None => Err(format!("no answer; {}", lost(out, g.lead))),
        };
        let (yes, why) = match &verdict {
            Ok(()) => ("yes", String::new()),
            Err(w) => ("no", w.clone()),
        };
        score += usize::from(verdict.is_ok());
        let _ = writeln!(table, "{} | {} | {} | {yes} | {why}", g.name, g.class.describe(), first_words(out));
        if let Err(w) = verdict {
            misses.push(format!("{}: {w} (expert: {}; {})", g.name, g.class.describe(), g.source));
        }
        if let Some(r) = out.results.first() {
            for d in disagreements(r, &dir, g.name) {
                disagree.push(format!("{}: {}: {d}", g.name, r.title));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("{table}\nscore: {score} of {}\nmisses:\n  {}", goals.len(), misses.join("\n  "));
    assert!(disagree.is_empty(), "check/fit on the saved first answers disagree with the plan: {disagree:#?}\n{table}");
    assert!(score >= SCORE_AT_LEAST, "score {score} < {SCORE_AT_LEAST}:\n{table}\nmisses: {misses:#?}");
}

/// The bench `benches/plan_acceptance.rs` times the same eight goals (it repeats the list: a
/// bench cannot import the test binary's modules): every goal's name is there.
#[test]
fn the_bench_times_the_same_goals() {
    // The bench includes the shared goal list (it cannot import the test binary's modules), and
    // every expert goal is one of that list's goals, field for field, in the same order.
    let text = std::fs::read_to_string(support::manifest_dir().join("benches/plan_acceptance.rs")).expect("bench");
    assert!(text.contains("#[path = \"../tests/all/plan_acceptance/goals.rs\"]"), "the bench reads the shared goals");
    let shared: Vec<(&str, String)> =
        goals::goals().into_iter().map(|(n, g)| (n, serde_json::to_string(&g).expect("goal json"))).collect();
    let expert: Vec<(&str, String)> =
        expert_goals().into_iter().map(|e| (e.name, serde_json::to_string(&e.goal).expect("goal json"))).collect();
    assert_eq!(shared, expert);
}

//! CPUs and their PCIe lanes.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- CPU

/// PCIe lanes per generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PcieLanes {
    /// PCIe 5.0 lanes.
    pub gen5: u16,
    /// PCIe 4.0 lanes.
    pub gen4: u16,
    /// PCIe 3.0 lanes.
    pub gen3: u16,
}

impl PcieLanes {
    /// All lanes regardless of generation.
    pub fn total(&self) -> u16 {
        self.gen5 + self.gen4 + self.gen3
    }
}

/// A CPU's rated memory speed for one DDR generation, as its vendor publishes it: Intel ARK's
/// "Memory Types" (`DDR4-2666`: one figure, no DIMMs per channel given) or AMD's "Max. Memory
/// Speed" (`2x1R DDR5-5200 ... 4x1R DDR5-3600`: two DIMMs on two channels, and four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatedMemorySpeed {
    /// DDR generation (4 or 5).
    pub ddr_gen: u8,
    /// The top rated data rate, MT/s: at one DIMM per channel where the vendor says, else the
    /// one figure it gives (Intel ARK), which then bounds two DIMMs per channel from above.
    pub rated_mt_s: u32,
    /// The rated data rate with two DIMMs per channel, MT/s, where the vendor publishes it
    /// (AMD's "4x1R"/"4x2R" figures); `None`: not published.
    #[serde(default)]
    pub two_dimms_per_channel_mt_s: Option<u32>,
}

/// A processor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    /// Stable id.
    pub id: String,
    /// `AMD` or `Intel`.
    pub vendor: String,
    /// Model (`Ryzen Threadripper 7980X`).
    pub name: String,
    /// Socket (`sTR5`, `SP5`, `SP3`, `AM5`, `LGA1700`, `LGA1851`, `LGA4677`).
    pub socket: String,
    /// Cores.
    pub cores: u16,
    /// Threads.
    pub threads: u16,
    /// TDP (AMD) or Processor Base Power (Intel), W.
    pub tdp_w: f64,
    /// Package power limit: AMD PPT or Intel PL2 (Maximum Turbo Power), W, if published.
    #[serde(default)]
    pub package_power_w: Option<f64>,
    /// CPU PCIe lanes usable for slots and M.2 (chipset link excluded).
    pub pcie_lanes: PcieLanes,
    /// Memory types the CPU supports.
    pub memory_types: Vec<MemoryType>,
    /// Memory channels.
    pub memory_channels: u8,
    /// The memory speed the vendor rates the CPU for, per DDR generation ([`RatedMemorySpeed`]);
    /// empty when the catalog has no published figure (then a build's RAM speed is the kit's
    /// rating, said to be an upper bound the CPU may not reach).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_speeds: Vec<RatedMemorySpeed>,
    /// Maximum memory, GB, if published.
    #[serde(default)]
    pub max_memory_gb: Option<u32>,
    /// Base clock, GHz, as the vendor's product page states it ("Base Clock"): the clock every
    /// core holds under load within the TDP. Used (with [`Cpu::cores`] and [`Cpu::avx512`]) for
    /// the rate at which llama.cpp-family runtimes compute the routed experts held in system
    /// RAM during a prompt (`kraftwerk_core::estimate::llm::cpu_prefill`); `None`: not entered
    /// (then that rate is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_clock_ghz: Option<f64>,
    /// Whether the cores execute AVX-512 (AVX512F, with VNNI on the parts entered), the
    /// instruction set llama.cpp's and ik_llama.cpp's CPU matrix kernels are fastest with; from
    /// the vendor's product page ("AVX-512" under supported technologies / instruction set
    /// extensions). `None`: not entered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avx512: Option<bool>,
    /// The most CPU sockets of one board this CPU runs in (1: single-socket boards only; 2: a
    /// dual-socket board's two CPUs may be this part), from the vendor's specification page
    /// (Intel's "Scalability", AMD's "1P/2P"). `None`: not entered; then
    /// [`Cpu::max_sockets_known`] reads it from the model number where the vendor's numbering
    /// states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sockets: Option<u8>,
    /// Source URL.
    pub source: String,
    /// Launch or dated price, USD.
    #[serde(default)]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default)]
    pub price_date: Option<String>,
    /// Where the price comes from when it is not the part's own `source`: the street-price
    /// import (`docyx/pc-part-dataset@<commit>, PCPartPicker-derived, MIT`, with "median of N
    /// listings" where several were combined) or `user price file`; `None`: the part's `source`
    /// and `notes` (a curated launch MSRP or dated street price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Provenance notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

/// AMD desktop model numbers built on APU (monolithic, iGPU) silicon although their name has no
/// G suffix: the Renoir-based Ryzen 3 4100 and Ryzen 5 4500 and the Cezanne-based Ryzen 5 5500
/// (PCIe 3.0 only: Tom's Hardware,
/// https://www.tomshardware.com/reviews/amd-ryzen-4-4500-ryzen-3-4100-cpu-review; TechSpot's
/// Ryzen 5 5500 review, "a 5600G with the iGPU removed ... only PCIe 3.0 support"), and the
/// Phoenix-based Ryzen 5 8400F and Ryzen 7 8700F (PCIe 4.0, 20 lanes of which 16 usable:
/// HotHardware, https://hothardware.com/news/rx-9000-gpu-not-full-speed-ryzen-ai-400; the 8400F
/// on Phoenix: https://gaming-st.com/cpu/556).
pub(crate) const APU_SILICON_MODELS: [&str; 5] = ["4100", "4500", "5500", "8400F", "8700F"];

/// Lanes an AM5 Phoenix APU gives the board's graphics (CPU-wired x16) slot: Phoenix
/// (Ryzen 7 8700G, Ryzen 5 8600G, and the iGPU-less Ryzen 7 8700F and Ryzen 5 8400F) x8,
/// Phoenix 2 (Ryzen 5 8500G, Ryzen 3 8300G) x4. Board vendors' specifications state it for the
/// platform: ASUS's AM5 boards, "AMD Ryzen 8000 Series Desktop Processors: 1 x PCIe 4.0 x16
/// slot (supports x8/x4 mode)" (the PRIME B650M-K and TUF GAMING B650M-E specifications, read
/// as reproduced by retailers, e.g.
/// https://computexsl.lk/shop/motherboards/asus-prime-b650m-k-ddr5-motherboard-3-years-warranty;
/// ASUS's own pages were not read), and Gigabyte's B650E AORUS ELITE X AX ICE specification,
/// Phoenix 1 PCIe 4.0 x8 and Phoenix 2 x4 for a discrete card (as reported in January 2024,
/// https://manchestermag.com/some-ryzen-8000g-apus-could-drastically-reduce-ssd-and-gpu-performance;
/// Hardwareluxx on the same specification,
/// https://www.hardwareluxx.de/index.php/news/hardware/prozessoren/62770-amd-phoenix-und-phonix-2-vorsicht-bei-den-pcie-lanes.html).
/// The 8400F is Phoenix silicon (https://gaming-st.com/cpu/556). A board's own `lanes_by_cpu`
/// overrides it.
pub const APU_GRAPHICS_LANES: [(&str, u8); 6] =
    [("8700g", 8), ("8600g", 8), ("8700f", 8), ("8400f", 8), ("8500g", 4), ("8300g", 4)];

/// The graphics-slot lanes of [`APU_GRAPHICS_LANES`] for a CPU name (any case), `None` for a
/// CPU not in it.
pub fn apu_graphics_lanes(cpu_name: &str) -> Option<u8> {
    let name = cpu_name.to_ascii_lowercase();
    APU_GRAPHICS_LANES.iter().find(|(m, _)| name.split_whitespace().any(|w| w == *m)).map(|(_, l)| *l)
}

impl Cpu {
    /// The most CPU sockets of one board this CPU runs in: [`Cpu::max_sockets`] where entered,
    /// else what the vendor's model numbering states; `None` where neither says.
    ///
    /// - Intel Xeon E3/E5/E7 (`E5-2697A v4`): the first digit of the number is the "wayness",
    ///   the most processors in a node: E5-1xxx one, E5-2xxx two, E5-4xxx four; E3 parts one
    ///   (Intel, "Intel Xeon Processor E7 Family Performance Brief: Model Number Characteristics
    ///   and Impact to Performance", 2012, figures 1-2: "the Intel Xeon processor E3 or E5
    ///   families, which support only one or two/four processors"; Supermicro NZ, "Intel Xeon
    ///   E5-series Processors Explained", 2012-10-31: "'1' means the CPU can only be used in
    ///   Single Socket motherboards", http://www.supermicro.co.nz/content/view/262/39/).
    /// - AMD EPYC 7001-7003 and 9004-9005 (`EPYC 7443P`, `EPYC 9654`): a `P` suffix is a
    ///   single-socket part, the others run in one or two sockets (AMD's EPYC naming as
    ///   reported from its launch slides: "The letter P still stands for 1-socket versions",
    ///   ComputerBase 2022-09-01, https://allinfo.space/2022/09/01/amd-epyc-80049004-new-designations-for-cpus-with-up-to-128-cores/ ;
    ///   "The processors designed for single-socket use will have a P suffix",
    ///   https://codeyarns.com/tech/2021-03-06-amd-epyc-7002-processors.html). EPYC 4004 and
    ///   8004 are not read (no source read here).
    /// - Intel Core i3/i5/i7/i9, Core X and Core Ultra parts: one (not every "Core": two Core 2
    ///   Extreme QX9775 ran on Intel's dual-socket D5400XS, so those names are not read). They share LGA2011-3 with the Xeon E5 but have
    ///   no processor-to-processor (QPI) link ("the Core i7 processors have only a single QPI
    ///   link – the same goes for the UP version of Intel's Xeon processors", SemiAccurate,
    ///   2010-01-27, http://semiaccurate.com/2010/01/27/core-i7-can-work-dual-cpu-mode/, and
    ///   the dual-socket LGA2011-3 boards list the Xeon E5-2600 v3/v4 only).
    ///
    /// Xeon Scalable, Xeon W, Ryzen and Threadripper parts are not read: no dual-socket board of
    /// their sockets is in the catalog, and a user's would make the `cpu-socket` rule say
    /// "not checked" until `max_sockets` is entered.
    pub fn max_sockets_known(&self) -> Option<u8> {
        if self.max_sockets.is_some() {
            return self.max_sockets;
        }
        let words: Vec<&str> = self.name.split_whitespace().collect();
        let is = |w: &str| words.iter().any(|x| x.eq_ignore_ascii_case(w));
        if is("Xeon") {
            // `E5-2697A v4`, or as imported names write it, `E5 1620 V3`.
            for (i, w) in words.iter().enumerate() {
                let up = w.to_ascii_uppercase();
                let (line, rest) = match up.split_once('-') {
                    Some((l, r)) => (l.to_owned(), r.to_owned()),
                    None => (up.clone(), words.get(i + 1).map(|n| n.to_ascii_uppercase()).unwrap_or_default()),
                };
                let digit = rest.chars().next().and_then(|c| c.to_digit(10)).and_then(|d| u8::try_from(d).ok());
                match (line.as_str(), digit) {
                    ("E3", Some(_)) => return Some(1),
                    ("E5" | "E7", Some(d)) => return Some(d),
                    _ => {}
                }
            }
            return None;
        }
        if is("EPYC") {
            let model = words.iter().find(|w| w.len() >= 4 && w.starts_with(|c: char| c.is_ascii_digit()))?;
            let series = model.chars().next()?;
            if !matches!(series, '7' | '9') {
                return None;
            }
            return Some(if model.to_ascii_uppercase().ends_with('P') { 1 } else { 2 });
        }
        // Core i3/i5/i7/i9 (`Core i7-6900K`), Core X and Core Ultra: desktop and HEDT parts. Not
        // every "Core" (two Core 2 Extreme QX9775 ran on Intel's dual-socket D5400XS).
        let core_family = words.windows(2).any(|w| {
            w[0].eq_ignore_ascii_case("Core") && {
                let n = w[1].to_ascii_lowercase();
                let i_series = n.len() >= 2 && n.starts_with('i') && n[1..].starts_with(|c: char| c.is_ascii_digit());
                i_series || n == "ultra" || n == "x" || n.starts_with("x-")
            }
        });
        if self.vendor.eq_ignore_ascii_case("Intel") && core_family {
            return Some(1);
        }
        None
    }

    /// Whether this CPU is APU-class silicon (an AMD desktop part whose model number ends in G,
    /// GE or GT, or one of [`APU_SILICON_MODELS`]): such CPUs have fewer and often older PCIe
    /// lanes than their socket's other CPUs, and boards split (or do not split) the CPU's x16
    /// slot differently with them. A board's wiring states their lanes per slot in
    /// `lanes_by_cpu`; where it does not, a second CPU-wired slot's lanes with them are unknown.
    pub fn apu_silicon(&self) -> bool {
        self.vendor.eq_ignore_ascii_case("AMD")
            && self.name.split_whitespace().any(|w| {
                let model = w.chars().next().is_some_and(|c| c.is_ascii_digit());
                model
                    && (w.ends_with('G')
                        || w.ends_with("GE")
                        || w.ends_with("GT")
                        || APU_SILICON_MODELS.iter().any(|m| m.eq_ignore_ascii_case(w)))
            })
    }

    /// The rated memory speed for DDR generation `ddr_gen` (4 or 5), if the catalog has it.
    pub fn memory_speed(&self, ddr_gen: u8) -> Option<RatedMemorySpeed> {
        self.memory_speeds.iter().copied().find(|s| s.ddr_gen == ddr_gen)
    }

    /// The newest PCIe generation the CPU has lanes of (5, 4 or 3); `None` when no lanes are
    /// listed.
    pub fn max_pcie_gen(&self) -> Option<u8> {
        let l = self.pcie_lanes;
        if l.gen5 > 0 {
            Some(5)
        } else if l.gen4 > 0 {
            Some(4)
        } else if l.gen3 > 0 {
            Some(3)
        } else {
            None
        }
    }
}

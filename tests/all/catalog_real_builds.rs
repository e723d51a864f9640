//! Real, published multi-GPU LLM builds (each cited) and how many of their named parts resolve
//! to a catalog entry by exact id or by name ([`Catalog::find_by_name`]: every word of the name
//! as the builder wrote it must occur in the part's vendor, name or id; a hit that turns a model
//! number into another variant, `3090` into `3090 Ti`, does not count; one wrong series word
//! beside a model code may be dropped, "ROG Genesis GR701" for the ROG Hyperion GR701; a GPU
//! name's memory size is matched against the chip's memory).
//!
//! Names are as published, with only the quantity dropped (and, for builds taken from shop listings,
//! a listing's spec tail such as "3.7 GHz 32-Core Processor"); the part kinds are the ones the
//! checker's rules read (GPUs, CPUs, boards, PSUs, coolers, cases; RAM and drives are left out).
//! The test prints every part that does not resolve and holds the resolve rate to a floor, so a
//! catalog change that loses parts fails.

use kraftwerk::catalog::{self, Catalog, Motherboard, PartKind};

/// `(source URL, [(kind, name as published)])`.
const BUILDS: &[(&str, &[(PartKind, &str)])] = &[
    (
        "https://thinksmart.life/research/posts/gpu-rig-budget-vs-pro (pro tier)",
        &[
            (PartKind::Motherboard, "ROMED8-2T"),
            (PartKind::Cpu, "EPYC 7252"),
            (PartKind::Gpu, "RTX 3090"),
            (PartKind::Psu, "Super Flower Leadex 1600W"),
        ],
    ),
    (
        "https://thinksmart.life/research/posts/gpu-rig-budget-vs-pro (budget tier)",
        &[
            (PartKind::Motherboard, "ASRock H510 Pro BTC+"),
            (PartKind::Cpu, "Celeron G5905"),
            (PartKind::Gpu, "RTX 3090"),
        ],
    ),
    (
        "https://redlib.titolab.com/r/LocalAIServers (8x RTX 4090D inference rig)",
        &[(PartKind::Gpu, "RTX 4090D"), (PartKind::Motherboard, "ASRock Rack GENOA2D24G-2L+")],
    ),
    (
        // As built (the builder's repository); the guide published first at
        // https://nodehome.pages.dev/articles/sovereign-node-build-guide.html planned the same board and CPU
        // and an Arctic Freezer 4U-M; the cooler was swapped (docs/wiki/decisions/noctua-over-arctic.md).
        "https://github.com/Rooster-Cogburn77/nodehome/blob/f799d4e374a3f024aff48e56af9ef6827722cb1f/docs/HANDOVER_SOURCING.md (Sovereign Node, 3x RTX 3090 blower)",
        &[
            (PartKind::Motherboard, "Supermicro H12SSL-i"),
            (PartKind::Cpu, "EPYC 7302"),
            (PartKind::GpuCard, "Gigabyte GeForce RTX 3090 Turbo 24GB"),
            (PartKind::Case, "SilverStone RM400"),
            (PartKind::Psu, "Super Flower Leadex Titanium 1600W"),
            (PartKind::Cooler, "Noctua NH-U9 TR4-SP3"),
        ],
    ),
    (
        "https://tinycomputers.io/posts/repurposing-enterprise-gpus-the-tesla-p40-home-lab-story.html",
        &[(PartKind::Gpu, "Tesla P40"), (PartKind::Cpu, "Xeon E5-2697A v4")],
    ),
    (
        "https://pico.scorpiox.net/journal?entry=2026-05-25-three-v100s-from-zero",
        &[(PartKind::Gpu, "Tesla V100 SXM2 16GB")],
    ),
    (
        "https://ai-radar.it/article/due-rtx-3090-nel-thermaltake-core-p3-lingegno-al-servizio-dellinference-llm-locale?lang=en",
        &[(PartKind::Gpu, "RTX 3090"), (PartKind::Case, "Thermaltake Core P3")],
    ),
    (
        "https://jonready.com/blog/posts/local-llm-rig.html",
        &[
            (PartKind::Gpu, "RTX 3090"),
            (PartKind::Cpu, "Threadripper 3970X"),
            (PartKind::Motherboard, "MSI TRX40 PRO 10G"),
        ],
    ),
    (
        "https://train.sh/blog/2023-03-upgrade-gpu-desktop",
        &[
            (PartKind::GpuCard, "AORUS GeForce RTX 4090 Xtreme Waterforce 24G"),
            (PartKind::Cpu, "Threadripper PRO 5975WX"),
            (PartKind::Motherboard, "Pro WS WRX80E-SAGE SE WIFI"),
            (PartKind::Psu, "ROG Thor 1600W Titanium"),
            (PartKind::Cooler, "KRAKEN Z73 RGB"),
            (PartKind::Case, "ROG Genesis GR701"),
        ],
    ),
    (
        "https://hotchpotch.dev/articles/rtx5090x2-pc/",
        &[(PartKind::Gpu, "RTX 5090"), (PartKind::Psu, "ASRock Taichi TC-1650T")],
    ),
    (
        "https://www.mov-axbx.com/wopr/wopr_power.html (WOPR, 7x RTX 4090)",
        &[(PartKind::Gpu, "RTX 4090"), (PartKind::Cpu, "Epyc 7763"), (PartKind::Psu, "Corsair RM1000x")],
    ),
    ("https://kentino.com/sk/blogs/ai-corner/case-study-4x-rtx-4090-ai-workstation", &[(PartKind::Gpu, "RTX 4090")]),
    (
        "https://www.poctoprod.org/pages/hardware/builds/x570-5950x-rtx3090",
        &[
            (PartKind::Motherboard, "MSI MAG X570 TOMAHAWK WIFI"),
            (PartKind::Cpu, "Ryzen 9 5950X"),
            (PartKind::Gpu, "RTX 3090"),
        ],
    ),
    (
        "https://blog.cronn.de/en/machinelearning/2025/12/03/setting-up-ml-hpc-server-1.html (Dell PowerEdge C4130, 2x P40)",
        &[(PartKind::Gpu, "Tesla P40")],
    ),
    (
        "https://www.reddit.com/r/LocalLLaMA/comments/1gum5yh/how_to_build_an_8x4090_server/ (upstation.io)",
        &[(PartKind::Gpu, "RTX 4090"), (PartKind::Motherboard, "AsRock Rome2d32GM-2t")],
    ),
    ("https://jbarrow.ai/2026-05-18-gpu-workstation/ (4x RTX 3090 Ti)", &[(PartKind::Gpu, "RTX 3090 Ti")]),
    ("https://hav4ik.github.io/meet-iva-my-dl-rig (2x RTX 3090)", &[(PartKind::Gpu, "RTX 3090")]),
    ("https://den.dev/blog/deep-learning-rig/ (2x RTX 3090)", &[(PartKind::Gpu, "RTX 3090")]),
    (
        "https://www.ai-manual.ru/article/sborka-multi-gpu-servera-dlya-llm-razbor-kejsa-s-8-rtx-3090-i-problemyi-stabilnosti (8x RTX 3090)",
        &[(PartKind::Gpu, "RTX 3090")],
    ),
    (
        "https://www.thefpsreview.com/2020/10/22/puget-systems-tests-four-blower-style-geforce-rtx-3090-cards-in-a-single-workstation-1717-watt-peak-power-draw/",
        &[(PartKind::GpuCard, "GIGABYTE GeForce RTX 3090 TURBO 24G")],
    ),
    // Added in wave 3: used V100/MI50 rigs, Genoa/Turin and Threadripper PRO 6000-class builds.
    (
        "https://ai-news-9hr.pages.dev/news/2026-06-01/8cb32b2a45dd (blog.tymscar.com, 'I put a datacenter GPU in my gaming PC': V100 SXM2 on an adapter beside an RTX 4080)",
        &[(PartKind::Gpu, "Tesla V100 SXM2 16GB"), (PartKind::Gpu, "RTX 4080")],
    ),
    (
        "https://reddlx.com/sub/unsloth (2x Instinct MI50 32GB, Qwen3.6-27B MTP on llama.cpp/ROCm)",
        &[(PartKind::Gpu, "Instinct MI50 32GB"), (PartKind::Cpu, "Xeon E5-2696 v4")],
    ),
    (
        "https://github.com/voipmonitor/rtx6kpro/blob/29f3863a371d43dfa3c21899911225894037deed/hardware/gpu-configs.md (Festr: dual Turin, 8x Server Edition)",
        &[
            (PartKind::Cpu, "EPYC 9575F"),
            (PartKind::Motherboard, "K15PG-D24"),
            (PartKind::Gpu, "RTX PRO 6000 Blackwell Server Edition"),
        ],
    ),
    (
        "https://github.com/voipmonitor/rtx6kpro/blob/29f3863a371d43dfa3c21899911225894037deed/hardware/gpu-configs.md (luke: 8x Max-Q behind PCIe switches)",
        &[(PartKind::Motherboard, "ASUS WRX90E"), (PartKind::Gpu, "RTX 6000 Pro MaxQ")],
    ),
    (
        "https://github.com/voipmonitor/rtx6kpro/blob/29f3863a371d43dfa3c21899911225894037deed/hardware/gpu-configs.md (orangezed: budget dual EPYC, 8x Max-Q)",
        &[
            (PartKind::Cpu, "EPYC 9374F"),
            (PartKind::Motherboard, "ASRockRack TURIN2D24G-2L+"),
            (PartKind::Gpu, "RTX PRO 6000 Blackwell MaxQ Workstation Edition"),
        ],
    ),
    (
        "https://github.com/voipmonitor/rtx6kpro/blob/29f3863a371d43dfa3c21899911225894037deed/hardware/gpu-configs.md (Ixtrix: desktop 4-GPU build)",
        &[(PartKind::Motherboard, "ASUS PRO WS WRX90E-SAGE SE"), (PartKind::Gpu, "RTX 6000 Pro MaxQ")],
    ),
    (
        "https://github.com/voipmonitor/rtx6kpro/blob/29f3863a371d43dfa3c21899911225894037deed/hardware/gpu-configs.md (Qu: 4-GPU workstation)",
        &[(PartKind::Gpu, "RTX 6000 Pro Workstation")],
    ),
    (
        "https://github.com/voipmonitor/rtx6kpro/blob/29f3863a371d43dfa3c21899911225894037deed/hardware/gpu-configs.md (Grimulkan: 16 GPUs behind switches)",
        &[(PartKind::Gpu, "RTX PRO 6000 Blackwell")],
    ),
    (
        // The builder's CPU line ("AMD EPYC CPU with 128 lanes (like 7642 ... or other)") names no
        // definite part and is left out.
        "https://github.com/ai-infos/guidances-setup-16-mi50-deepseek-v32/blob/47f6d599b1cba20a9a9d4604507c24158ffbf4f9/README.md (16x MI50 32GB, DeepSeek V3.2 on vLLM gfx906)",
        &[(PartKind::Gpu, "AMD MI50 32GB"), (PartKind::Motherboard, "ROMED8-2T")],
    ),
    (
        "https://garylvov.com/projects/minerva (Minerva: 2x RTX 3090 Ti + 2x RTX 3090, Threadripper PRO)",
        &[
            (PartKind::Gpu, "NVIDIA 3090 TI 24G"),
            (PartKind::Gpu, "NVIDIA 3090 24G"),
            (PartKind::Cpu, "AMD Threadripper 7955wx"),
        ],
    ),
    (
        "https://www.banandre.com/blog/diy-ai-supercomputing-6x-3090-build-pushes-tinygrad-limits (6x RTX 3090, tinygrad P2P)",
        &[
            (PartKind::Motherboard, "ASRock ROMED-2T"),
            (PartKind::Cpu, "Epyc 7502"),
            (PartKind::GpuCard, "Gigabyte 3090 Gaming OC"),
        ],
    ),
    // Added for issue 25 item 8: towers and open frames with two to five consumer GPUs on
    // consumer, workstation and used-market server boards (EPYC 7001-7003, X99, X399, TRX40,
    // WRX80, TRX50). A PCPartPicker-style listing's spec tail ("3.7 GHz 32-Core Processor",
    // "EATX sTRX4 Motherboard", "Video Card", "92+ Full Modular PSU") is left out of the name,
    // as is a plural ("4090's"); no word is added or changed.
    (
        "https://github.com/gblake55/On-Premise-LLM-Server-Installation/blob/d54a65ed9ccbec0e19cf13dbe2eb8c22e5ca1819/docs/guide/step1-hardware.md (IDA: 4x RTX 3090 + RTX 5090 on ROMED8-2T, in production; the PSUs are unnamed server units)",
        &[
            (PartKind::Motherboard, "ASRock ROMED8-2T"),
            (PartKind::Cpu, "AMD EPYC 7443P"),
            (PartKind::Gpu, "NVIDIA RTX 3090 24GB"),
            (PartKind::Gpu, "NVIDIA RTX 5090 32GB"),
        ],
    ),
    (
        "https://github.com/samsyeung/homelab/blob/91b8f21a84c8ee2538b9af46e254fe2962fb57bc/homelab.md (4x RTX 3090 FE, ROMED8-2T, two PSUs; the open mining frame is unnamed)",
        &[
            (PartKind::Motherboard, "AsRock Romed8-2T"),
            (PartKind::Cpu, "EPYC 7532"),
            (PartKind::Cooler, "ARCTIC Freezer 4U-M Rev. 2"),
            (PartKind::GpuCard, "Nvidia RTX 3090 Founders Edition"),
            (PartKind::Psu, "T.F.Skywindl 2000W modular"),
            // Resolves to the GX Pro Rampage 850W (80 Plus Gold); the builder's unit is an
            // 80 Plus Bronze "Rampage" the catalog lacks.
            (PartKind::Psu, "GameMax 850W Rampage"),
        ],
    ),
    (
        // The Dell GT730 the builder keeps for display output is left out.
        "https://github.com/placebeyondtheclouds/gpu-home-server/blob/bb6b7209036cb6cdc543fadc15bba42df2a86c42/README.md (Tesla P40 on a Chinese X99 board, Xeon E5 v4)",
        &[
            (PartKind::Gpu, "NVIDIA TESLA P40"),
            (PartKind::Cpu, "Intel Xeon E5-2697v4"),
            (PartKind::Motherboard, "精粤 X99M GAMING D4 ARGB"),
            // 鑫谷 is Segotep, not in the catalog; the one-wrong-word retry must not drop the
            // maker and land on Seasonic's CORE GM-650.
            (PartKind::Psu, "鑫谷 GM650W"),
            (PartKind::Case, "鱼巢 S9"),
        ],
    ),
    (
        "https://github.com/janhq/jan/blob/af71a894288c862bd3df0368de6884c3343f31ce/docs/docs/hardware/examples/4090x2-@dan-jan.md (Jan's 2x RTX 4090 workstation, WRX80, open frame)",
        &[
            (PartKind::Cpu, "Ryzen Threadripper Pro 5965WX"),
            (PartKind::Motherboard, "Asus Pro WS WRX80E Sage SE WiFi"),
            (PartKind::GpuCard, "Asus Strix RTX 4090 24GB OC"),
            (PartKind::Cooler, "BeQuiet Dark Rock 4 Pro TR4"),
            (PartKind::Psu, "FSP Cannon 2000W Pro"),
            (PartKind::Case, "Veddha 6GPUs Frame Black"),
        ],
    ),
    (
        "https://github.com/muellerzr/muellerzr.github.io/blob/46216db4b563094296e5fc5bee40cf519cdeffa4/builds/workhorse/1.0.0/index.qmd (Workhorse 1.0.0: 2x RTX 4090 on X670E, https://muellerzr.github.io/blog/workhorse.html)",
        &[
            (PartKind::Cpu, "AMD Ryzen 9 7900x"),
            (PartKind::Cooler, "Lian Li Galahad II Trinity 360mm"),
            (PartKind::GpuCard, "MSI SUPRIM LIQUID X 4090"),
            (PartKind::Motherboard, "Asus ProArt X670E-CREATOR"),
            (PartKind::Psu, "Toughpower GF3 1650W Gold - TT Premium Edition"),
            (PartKind::Case, "Thermaltake Core P6 ATX Mid Tower"),
        ],
    ),
    (
        "https://github.com/muellerzr/muellerzr.github.io/blob/3b811cf9bb107914367227cad7435c1e5dc575cb/blog/workhorse_revisited.qmd (Workhorse 2: 4x RTX PRO 6000 Max-Q + RTX 6000 Ada on a used WRX80 board in a mining frame)",
        &[
            (PartKind::Motherboard, "ASUS WRX80E-SAGE Pro WS SE"),
            (PartKind::Cpu, "AMD Ryzen Threadripper Pro 5955WX"),
            (PartKind::Cooler, "Noctua NH-U12S TR4-SP3"),
            (PartKind::Case, "Veddha V4C 6-GPU Mining Case"),
            (PartKind::Gpu, "RTX PRO 6000 Blackwell Max-Q"),
            (PartKind::Gpu, "RTX 6000 ADA"),
        ],
    ),
    (
        "https://github.com/ExCL-Docs/excl-user-docs/blob/1d1a5ad82693d6e4729246e3627095c2733581c6/system-overview/zenith.md (ORNL ExCL 'Zenith': RTX 3090 + RX 6900 XT on TRX40)",
        &[
            (PartKind::Cpu, "AMD Threadripper 3970X"),
            (PartKind::Cooler, "Corsair iCUE H150i ELITE CAPELLIX"),
            (PartKind::Motherboard, "Asus ROG ZENITH II EXTREME ALPHA"),
            (PartKind::GpuCard, "EVGA FTW3 ULTRA GAMING GeForce RTX 3090 24 GB"),
            (PartKind::GpuCard, "Gigabyte GAMING OC Radeon RX 6900 XT 16 GB"),
            (PartKind::Case, "Thermaltake Core X9"),
            (PartKind::Psu, "EVGA SuperNOVA 1600 P2"),
        ],
    ),
    (
        // The CPU line ("Ryzen/Threadripper (16+ cores)") names no definite part.
        "https://github.com/xy7ra/llama-cpp-rocm-setup/blob/246a980dfe0fb9a2f8afdf85af7f05a4d1f2c104/README.md (2x RX 7900 XTX, llama.cpp tensor split on ROCm)",
        &[(PartKind::Gpu, "AMD Radeon RX 7900 XTX")],
    ),
    (
        "https://github.com/adampaulsen/p40-homelab-guides/blob/a8c846bccaab03c168a979c895f9806c8dfa1e26/README.md (2x Tesla P40 in an HPE ProLiant DL385 Gen10, dual EPYC 7601)",
        &[(PartKind::Gpu, "NVIDIA Tesla P40"), (PartKind::Cpu, "AMD EPYC 7601")],
    ),
    (
        "https://github.com/dccuchile/relela/blob/4faa40b9815371ba0fb8f6c5d339fcc396d0825b/docs/resources.md (RELELA-02: 2x RTX 3090)",
        &[(PartKind::Cpu, "Intel Core i7-11700K"), (PartKind::Gpu, "GeForce RTX 3090 24GB")],
    ),
    (
        "https://github.com/dccuchile/relela/blob/4faa40b9815371ba0fb8f6c5d339fcc396d0825b/docs/resources.md (RELELA-04: 2x RTX A6000, NVLink)",
        &[(PartKind::Cpu, "AMD Ryzen 7 5700X"), (PartKind::Gpu, "GeForce RTX A6000 48GB")],
    ),
    (
        "https://github.com/dccuchile/relela/blob/4faa40b9815371ba0fb8f6c5d339fcc396d0825b/docs/resources.md (RELELA-06: 3x RTX A5000 on EPYC 7002)",
        &[(PartKind::Cpu, "AMD EPYC 7282"), (PartKind::Gpu, "GeForce RTX A5000 24GB")],
    ),
    (
        "https://grosan.co.uk/dual-amd-r9700-setup-on-asus-x99-e-ws-usb-3-1/ (2x Radeon AI PRO R9700 on X99)",
        &[
            (PartKind::Motherboard, "ASUS X99-E WS/USB 3.1"),
            (PartKind::Cpu, "Intel i7-6900K"),
            (PartKind::Gpu, "AMD Radeon AI PRO R9700"),
        ],
    ),
    (
        "https://bittide.aicompass.dev/article/8f1e07b9-037c-43ac-9b5e-4f8f958bb90b?locale=en (r/LocalLLaMA post quoted: 4x RTX 3090 on X399, 'Node #04')",
        &[
            (PartKind::Motherboard, "Gigabyte X399 Designare EX"),
            (PartKind::Cpu, "Threadripper 1950X"),
            (PartKind::Gpu, "RTX 3090"),
        ],
    ),
    (
        "https://github.com/devMiikaK/multigpu-system/blob/9c6ddfbe79172724f9220f4f563f9c195af7bebc/README.md (3x RTX 3090-class cards on X570, risers)",
        &[
            (PartKind::Cpu, "Ryzen 5800x3D"),
            (PartKind::Motherboard, "Asus ROG Crosshair VIII Dark Hero x570"),
            (PartKind::Cooler, "Noctua NH-D15"),
            (PartKind::GpuCard, "RTX 3090 Asus TUF OC"),
            (PartKind::GpuCard, "RTX 3090 Ti Gainward Phantom"),
            (PartKind::GpuCard, "RTX 3090 Founders Edition"),
            (PartKind::Psu, "Corsair HX1500i"),
        ],
    ),
    (
        "https://github.com/thaynes43/thaynes43.github.io/blob/02d42b9ae7765c8f2a33082018e63c2c0616b076/hardware/haynesintelligence.md (HaynesIntelligence: 2x RTX 3090 + RX 6800 on TRX50, 4U)",
        &[
            (PartKind::Cpu, "AMD Ryzen™ Threadripper™ 7960X"),
            (PartKind::Motherboard, "ASRock TRX50 WS"),
            (PartKind::Case, "CX4712 Sliger"),
            (PartKind::GpuCard, "Zotac GeForce RTX 3090 24GB Trinity OC"),
            (PartKind::GpuCard, "XFX Speedster SWFT319, Radeon™ RX 6800"),
            (PartKind::Psu, "Seasonic Prime TX-1600"),
        ],
    ),
    (
        // Quoted in the builder's blog post ("Building My Own Homelab: From AI Dependency to
        // Local Superpower", 2026-01-15), whose parts table names the board: ASRock Romed8-2T.
        // The rig later grew to 8x RTX 3090 in a zip-tied rack; the case named here is the first one.
        "https://x.com/seroxdesigns/status/1961726063496622447 (4x RTX 3090 on EPYC 7443P)",
        &[
            (PartKind::Gpu, "3090"),
            (PartKind::Cpu, "Epyc 7443p"),
            (PartKind::Psu, "Corsair AX1600i"),
            (PartKind::Case, "Thermal Core p90"),
        ],
    ),
    (
        "https://github.com/ServerlessLLM/ServerlessLLM/blob/6847927f5c7476709d631d0dc8273537d0eebdab/benchmarks/server-specs.md (ServerlessLLM Store benchmark server: 8x A5000, dual EPYC 7003)",
        &[(PartKind::Cpu, "AMD EPYC 7453"), (PartKind::Gpu, "NVIDIA A5000 24GB")],
    ),
    (
        // The CPUs are EPYC Rome engineering samples ("equivalent to EPYC 7742"): no definite part.
        "https://github.com/Trevor-K-Smith/Equipment-for-Sale/blob/61c79a73e0798fdbc3bf025b941df0bc60c6c963/server-specs.md (used GIGABYTE G292-Z45: 2x L4 + 5x RTX A5000)",
        &[(PartKind::Gpu, "NVIDIA L4"), (PartKind::Gpu, "NVIDIA RTX A5000")],
    ),
];

fn resolve_rate(c: &Catalog) -> (usize, usize, Vec<String>) {
    let (mut found, mut total, mut missing) = (0, 0, Vec::new());
    for (source, parts) in BUILDS {
        for (kind, name) in *parts {
            total += 1;
            match c.find_by_name(*kind, name) {
                Some(p) => {
                    found += 1;
                    println!("  {} `{name}` -> {}", kind.plural(), p.id());
                }
                None => missing.push(format!("{} `{name}` ({source})", kind.plural())),
            }
        }
    }
    (found, total, missing)
}

/// The share of named parts that must resolve, per mille: the rate measured over [`BUILDS`]
/// once the parts of issue 25 item 8's builds that sources give were curated (136 of 146,
/// 93.2 %), rounded down. It was 883 (129 of 146) when the set grew to 50 builds.
const FLOOR_PERMILLE: usize = 931;

#[test]
fn named_parts_of_real_builds_resolve() {
    let c = catalog::builtin().expect("catalog");
    let (found, total, missing) = resolve_rate(&c);
    println!(
        "{found} of {total} named parts resolve ({:.1} %) over {} builds",
        100.0 * found as f64 / total as f64,
        BUILDS.len()
    );
    for m in &missing {
        println!("  unresolved: {m}");
    }
    // Issue 14 asked for >= 20 builds and >= 90 %. Reached 67 of 70 (95.7 %) over 31 builds once
    // catalog/motherboards.ron gained four server boards these builds name (GENOA2D24G-2L+,
    // H12SSL-i, K15PG-D24, TURIN2D24G-2L+); the misses left are a board name misspelt in the
    // source ("ROMED-2T"), an OEM-only Xeon (E5-2696 v4) with no published TDP, and the
    // ROME2D32GM-2T, whose form factor no source consulted gives (a board needs one).
    // Issue 25 item 8 asks for >= 50 builds and >= 95 %. The 19 builds it added are taken as
    // found, not chosen for resolving. Of the parts of theirs the catalog lacked, seven are
    // curated now (EPYC 7601, Core i7-11700K and i7-6900K, ASUS X99-E WS/USB 3.1, Sliger
    // CX4712, Arctic Freezer 4U-M Rev. 2, Gainward RTX 3090 Ti Phantom): 136 of 146 (93.2 %).
    // Left: the seven no source can resolve (a misspelt board, an OEM-only Xeon, a board
    // without a published form factor, a T.F.Skywindl PSU, and a Chinese build's board, PSU
    // and case), and three real parts no source in reach gives the required figures of: the
    // ASRock TRX50 WS (no vendor page read; third-party records disagree on its DIMM slots, 4
    // or 8) and the two Veddha open frames (no spec sheet found for the board sizes they take).
    // Curating those three from their vendors' pages would reach 139 of 146 (95.2 %).
    assert!(BUILDS.len() >= 50, "only {} builds in the test set", BUILDS.len());
    assert!(found * 1000 >= total * FLOOR_PERMILLE, "{found}/{total}: {missing:#?}");
}

#[test]
fn name_lookup_finds_the_part_the_builder_meant() {
    let c = catalog::builtin().expect("catalog");
    let id = |k, n| c.find_by_name(k, n).map(|p| p.id().to_owned());
    assert_eq!(id(PartKind::Gpu, "RTX 3090").as_deref(), Some("nvidia-geforce-rtx-3090"));
    assert_eq!(id(PartKind::Gpu, "Tesla P40").as_deref(), Some("nvidia-tesla-p40"));
    assert_eq!(id(PartKind::Cpu, "EPYC 7302").as_deref(), Some("amd-epyc-7302"));
    assert_eq!(id(PartKind::Motherboard, "ROMED8-2T").as_deref(), Some("asrock-rack-romed8-2t"));
    // The server boards of the test set, as their builders wrote them.
    for (name, board) in [
        ("Supermicro H12SSL-i", "supermicro-h12ssl-i"),
        ("ASRock Rack GENOA2D24G-2L+", "asrock-rack-genoa2d24g-2l-plus"),
        ("ASRockRack TURIN2D24G-2L+", "asrock-rack-turin2d24g-2l-plus"),
        ("K15PG-D24", "asus-k15pg-d24"),
    ] {
        assert_eq!(id(PartKind::Motherboard, name).as_deref(), Some(board), "{name}");
    }
    assert_eq!(id(PartKind::Cpu, "Epyc 7763").as_deref(), Some("amd-epyc-7763"));
    assert_eq!(id(PartKind::Cpu, "Xeon E5-2697A v4").as_deref(), Some("intel-xeon-e5-2697a-v4"));
    assert_eq!(id(PartKind::Gpu, "RTX 9999"), None);
}

#[test]
fn name_lookup_keeps_variants_apart_and_forgives_one_wrong_series_word() {
    let c = catalog::builtin().expect("catalog");
    let id = |k, n| c.find_by_name(k, n).map(|p| p.id().to_owned());
    // A model number is not its Ti/Super/D variant, even where the variant's listing is shorter.
    let card = id(PartKind::GpuCard, "Gigabyte 3090 Gaming OC").expect("a 3090 Gaming OC card");
    assert!(card.contains("3090") && !card.contains("3090-ti"), "{card}");
    assert_eq!(id(PartKind::Gpu, "RTX 3090 Ti").as_deref(), Some("nvidia-geforce-rtx-3090-ti"));
    assert_eq!(id(PartKind::Gpu, "RTX 4090D").as_deref(), Some("nvidia-geforce-rtx-4090d"));
    // A memory size picks the chip, not a partner card that happens to list it.
    assert_eq!(id(PartKind::Gpu, "NVIDIA 3090 TI 24G").as_deref(), Some("nvidia-geforce-rtx-3090-ti"));
    assert_eq!(id(PartKind::Gpu, "NVIDIA 3090 24G").as_deref(), Some("nvidia-geforce-rtx-3090"));
    assert_eq!(id(PartKind::Gpu, "Instinct MI50 32GB").as_deref(), Some("amd-instinct-mi50-32gb"));
    // A published series word that is wrong ("Genesis": the case is the ROG Hyperion GR701).
    let case = id(PartKind::Case, "ROG Genesis GR701").expect("GR701");
    assert!(case.contains("hyperion-gr701"), "{case}");
    // But a wrong model code, or a name with only quantities, finds nothing.
    assert_eq!(id(PartKind::Case, "ROG Hyperion GR799"), None);
    assert_eq!(id(PartKind::Psu, "Super Flower Leadex 9999W"), None);
    assert_eq!(id(PartKind::Motherboard, "ASRock ROMED-2T"), None);
}

#[test]
fn name_lookup_reads_the_naming_variants_of_pasted_listings() {
    let c = catalog::builtin().expect("catalog");
    let id = |k, n| c.find_by_name(k, n).map(|p| p.id().to_owned());
    // A model code written without its space ("E5-2697v4" for "E5-2697 v4").
    assert_eq!(id(PartKind::Cpu, "Intel Xeon E5-2697v4").as_deref(), Some("intel-xeon-e5-2697-v4"));
    // Trademark signs and a trailing comma, as a shop listing pastes them.
    assert_eq!(id(PartKind::Cpu, "AMD Ryzen™ Threadripper™ 7960X").as_deref(), Some("amd-threadripper-7960x"));
    let card = id(PartKind::GpuCard, "XFX Speedster SWFT319, Radeon™ RX 6800").expect("an RX 6800 card");
    assert!(card.contains("swft-319") && card.contains("rx-6800") && !card.contains("6800-xt"), "{card}");
    // A vendor's "X670E-CREATOR" where the imported listing says "X670E ProArt CREATOR".
    let board = id(PartKind::Motherboard, "Asus ProArt X670E-CREATOR").expect("the ProArt X670E board");
    assert!(board.contains("x670e") && board.contains("proart"), "{board}");
    // A model code is not its next generation: the NH-D15 is not the NH-D15 G2, whose
    // listing is shorter.
    let cooler = id(PartKind::Cooler, "Noctua NH-D15").expect("an NH-D15");
    assert!(cooler.contains("nh-d15") && !cooler.contains("g2") && !cooler.contains("d15s"), "{cooler}");
    // But a one-letter suffix is no series word ("X99-E WS/USB 3.1" is the curated X99-E
    // WS/USB 3.1, not the imported X99 Deluxe U3.1), and a name that opens with its maker keeps
    // it: the ASRock TRX50 WS (not in the catalog) is not the ASUS Pro WS TRX50-SAGE, which a
    // retry without "ASRock" would find.
    assert_eq!(id(PartKind::Motherboard, "ASUS X99-E WS/USB 3.1").as_deref(), Some("asus-x99-e-ws-usb-3-1"));
    assert_eq!(id(PartKind::Motherboard, "ASRock TRX50 WS"), None);
    // Nor is a maker the catalog lacks a wrong series word: Segotep's GM650W is not Seasonic's
    // CORE GM-650.
    assert_eq!(id(PartKind::Psu, "鑫谷 GM650W"), None);
}

/// The figures of one resolved part that an error-capable rule needs (issue 37's "decisive
/// figures"), as `(figure, known)`: a board's slot layout (`pcie_slots`: `gpu-slot`,
/// `pcie-lane-budget`, `pcie-link`), slot positions (`gpu-slot-blocked`, `case-gpu-fit`,
/// `nvlink-spacing`) and `max_memory_gb` (`memory-capacity`); a PSU's connector counts and the
/// 16-pin cable class where it has 16-pin cables (`psu-connectors`, `gpu-power-cable`); a case's
/// GPU length, cooler height and radiator limits (`case-gpu-fit`, `cooler-clearance`); an air
/// cooler's height or an AIO's radiator (`cooler-clearance`) and the rated TDP the issue lists
/// (`cooler-tdp`, a warning); a CPU's `max_memory_gb` (`memory-capacity`); an add-in GPU's
/// length and power inputs (`case-gpu-fit`, `gpu-power-cable`, `psu-connectors`; slot width and
/// cooling type always have a value, the chip's where a card's own is not published). `None`
/// for a part the name does not resolve to.
///
/// A cooler's `rated_tdp_w` also counts as known where its maker publishes a per-CPU verdict
/// instead (`cpu_verdicts`, as Noctua does): for every CPU `co_cpus` names (the catalog CPUs
/// named in the same published builds as the cooler), as the `cooler-tdp` rule reads it; a
/// cooler named in no build with a CPU needs the TDP figure itself.
fn decisive(c: &Catalog, kind: PartKind, id: &str, co_cpus: &[String]) -> Option<Vec<(&'static str, bool)>> {
    use kraftwerk::catalog::{CoolerType, GpuFormFactor};
    Some(match kind {
        PartKind::Motherboard => {
            let b = c.motherboard(id)?;
            vec![
                ("pcie_slots", b.slot_layout_known()),
                ("pcie_slots.position", b.slot_positions_known()),
                ("max_memory_gb", b.max_memory_gb.is_some()),
            ]
        }
        PartKind::Psu => {
            let p = c.psu(id)?;
            let k = p.connectors;
            vec![
                ("connectors.hpwr_16pin", k.hpwr_16pin.is_some()),
                ("connectors.pcie_8pin", k.pcie_8pin.is_some()),
                ("connectors.eps_8pin", k.eps_8pin.is_some()),
                ("connectors.hpwr_class_w", k.hpwr_16pin == Some(0) || k.hpwr_class_w.is_some()),
            ]
        }
        PartKind::Case => {
            let k = c.case(id)?;
            vec![
                ("max_gpu_length_mm", k.max_gpu_length_mm.is_some()),
                ("max_cooler_height_mm", k.max_cooler_height_mm.is_some()),
                ("max_radiator_mm", k.max_radiator_mm.is_some()),
            ]
        }
        PartKind::Cooler => {
            let k = c.cooler(id)?;
            let fit = if k.cooler_type == CoolerType::Aio {
                ("radiator_mm", k.radiator_mm.is_some())
            } else {
                ("height_mm", k.height_mm.is_some())
            };
            let verdicts = !co_cpus.is_empty() && co_cpus.iter().all(|cpu| k.verdict_for(cpu).is_some());
            vec![fit, ("rated_tdp_w", k.rated_tdp_w.is_some() || verdicts)]
        }
        PartKind::Cpu => vec![("max_memory_gb", c.cpu(id)?.max_memory_gb.is_some())],
        PartKind::Gpu | PartKind::GpuCard => {
            let g = c.gpu_or_card(id)?;
            if g.form_factor == GpuFormFactor::Sxm {
                Vec::new()
            } else {
                vec![("length_mm", g.length_mm.is_some()), ("power_inputs", g.power_inputs.is_some())]
            }
        }
        _ => return None,
    })
}

/// Issue 37: for the parts of the published builds ([`BUILDS`], each cited) that the catalog
/// has, the share with every decisive figure ([`decisive`]), per kind, and of the boards named,
/// the share wired (slot layout known) and placed (positions known). Each distinct part counts
/// once. The test prints the table and every part that misses a figure, and holds each share to
/// the value reached (not to a target: the issue asks for 90 % of parts, 90 % of boards wired
/// and 60 % placed, which this set does not reach; the printout says what is missing). Seen
/// failing with the ROMED8-2T's derived positions removed (placed 2 < 3).
#[test]
fn decisive_figure_coverage_of_the_published_builds() {
    let c = catalog::builtin().expect("catalog");
    let mut seen: Vec<(PartKind, String)> = Vec::new();
    // Catalog CPUs named in the same build as each cooler (for makers' per-CPU verdicts).
    let mut co_cpus: Vec<(String, Vec<String>)> = Vec::new();
    for (_, parts) in BUILDS {
        let found = |k: PartKind| -> Vec<String> {
            parts
                .iter()
                .filter(|(pk, _)| *pk == k)
                .filter_map(|(_, n)| c.find_by_name(k, n))
                .map(|p| p.id().to_owned())
                .collect()
        };
        let cpus = found(PartKind::Cpu);
        for cooler in found(PartKind::Cooler) {
            match co_cpus.iter_mut().find(|(id, _)| *id == cooler) {
                Some((_, list)) => {
                    let new: Vec<String> = cpus.iter().filter(|x| !list.contains(x)).cloned().collect();
                    list.extend(new);
                }
                None => co_cpus.push((cooler, cpus.clone())),
            }
        }
        for (kind, name) in *parts {
            let kind = if *kind == PartKind::GpuCard { PartKind::Gpu } else { *kind };
            if let Some(p) = c.find_by_name(kind, name)
                && !seen.iter().any(|(k, id)| *k == kind && id == p.id())
            {
                seen.push((kind, p.id().to_owned()));
            }
        }
    }
    let kinds = [PartKind::Motherboard, PartKind::Psu, PartKind::Case, PartKind::Cooler, PartKind::Cpu, PartKind::Gpu];
    let mut shares = Vec::new();
    let (mut all_n, mut all_ok) = (0, 0);
    for kind in kinds {
        let (mut n, mut ok) = (0, 0);
        for (_, id) in seen.iter().filter(|(k, _)| *k == kind) {
            let cpus = co_cpus.iter().find(|(cool, _)| cool == id).map_or(&[][..], |(_, list)| list.as_slice());
            let Some(figs) = decisive(&c, kind, id, cpus) else { continue };
            n += 1;
            let missing: Vec<&str> = figs.iter().filter(|(_, known)| !known).map(|(f, _)| *f).collect();
            if missing.is_empty() {
                ok += 1;
            } else {
                println!("  {} {id}: unknown {}", kind.plural(), missing.join(", "));
            }
        }
        println!("{:<12} {ok:>3} of {n:>3} parts with every decisive figure ({:.0} %)", kind.plural(), pct(ok, n));
        shares.push((kind, ok, n));
        all_n += n;
        all_ok += ok;
    }
    println!(
        "{:<12} {all_ok:>3} of {all_n:>3} parts ({:.0} %) over {} builds",
        "all",
        pct(all_ok, all_n),
        BUILDS.len()
    );
    let boards: Vec<&str> =
        seen.iter().filter(|(k, _)| *k == PartKind::Motherboard).map(|(_, id)| id.as_str()).collect();
    let wired = boards.iter().filter(|id| c.motherboard(id).is_some_and(Motherboard::slot_layout_known)).count();
    let placed = boards.iter().filter(|id| c.motherboard(id).is_some_and(Motherboard::slot_positions_known)).count();
    // Positions forced by the slot count are known up to direction only (issue 37).
    let either_end = boards
        .iter()
        .filter(|id| c.motherboard(id).is_some_and(|b| b.slot_positions_known() && !b.slot_direction_known()))
        .count();
    println!(
        "boards named and in the catalog: {}; wired {wired} ({:.0} %), with positions {placed} ({:.0} %; {either_end} of them up to the numbering direction)",
        boards.len(),
        pct(wired, boards.len()),
        pct(placed, boards.len())
    );
    // Floors: the counts reached (see the printout), so a catalog change that loses a figure fails.
    for (kind, ok, n) in shares {
        let floor = match kind {
            PartKind::Motherboard => FLOOR_BOARDS,
            PartKind::Psu => FLOOR_PSUS,
            PartKind::Case => FLOOR_CASES,
            PartKind::Cooler => FLOOR_COOLERS,
            PartKind::Cpu => FLOOR_CPUS,
            _ => FLOOR_GPUS,
        };
        assert!(ok >= floor, "{}: {ok} of {n} parts with every decisive figure, fewer than {floor}", kind.plural());
    }
    assert!(wired >= FLOOR_WIRED && placed >= FLOOR_PLACED, "boards wired {wired}, placed {placed}");
}

/// The coverage definition reads a cooler maker's per-CPU verdict as the decisive figure for
/// the cooler-CPU pairs of the published builds, and only for those: a verdict for the CPU the
/// builder paired it with counts, a verdict for another CPU does not. (No verdict is in the
/// catalog yet; the verdict here is the test's, on a clone of the catalog.) Seen failing with
/// the verdict ignored in [`decisive`].
#[test]
fn a_makers_verdict_counts_for_the_cooler_cpu_pairs_of_the_builds_only() {
    use kraftwerk::catalog::{CoolerCpuVerdict, CoolerVerdictClass};
    let c = catalog::builtin().expect("catalog");
    let cooler = c.find_by_name(PartKind::Cooler, "Noctua NH-U9 TR4-SP3").expect("NH-U9 TR4-SP3").id().to_owned();
    let cpu = c.find_by_name(PartKind::Cpu, "EPYC 7302").expect("EPYC 7302").id().to_owned();
    let tdp = |cat: &Catalog| {
        let figs = decisive(cat, PartKind::Cooler, &cooler, std::slice::from_ref(&cpu)).expect("a cooler");
        figs.iter().find(|(f, _)| *f == "rated_tdp_w").is_some_and(|(_, known)| *known)
    };
    assert!(!tdp(&c), "no TDP figure and no verdict: unknown");
    let with = |for_cpu: &str| {
        let mut file = c.clone().into_parts_file();
        let k = file.coolers.iter_mut().find(|k| k.id == cooler).expect("the cooler");
        k.cpu_verdicts = vec![CoolerCpuVerdict {
            cpu: for_cpu.to_owned(),
            verdict: CoolerVerdictClass::MediumHeadroom,
            source: "test verdict".into(),
        }];
        Catalog::from(file)
    };
    assert!(tdp(&with(&cpu)), "a verdict for the paired CPU counts");
    assert!(!tdp(&with("amd-epyc-7763")), "a verdict for another CPU does not");
}

/// `part / whole` in percent (0 for an empty whole).
fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

// Counts reached by `decisive_figure_coverage_of_the_published_builds` (its printout, issue 37):
// boards 3 of 15, PSUs 7 of 12, cases 1 of 7, coolers 0 of 8 (no maker in the set publishes a
// rated TDP: Noctua by policy), CPUs 23 of 27, GPUs 27 of 31 (26 before the RTX 6000 Ada's
// length); 61 of 100 parts in all over 50 builds. Boards: 11 of 15 wired (10 before the ROG
// Zenith II Extreme Alpha's firmware slot table, hedt.ron; 6 before the X399
// DESIGNARE EX's firmware slot table, 7 before the MSI TRX40 PRO 10G's and MAG X570 TOMAHAWK
// WIFI's, both from linuxhw/DMI under MSI's board numbers MS-7C60 and MS-7C84, 9 before the ASRock
// H510 Pro BTC+'s, its firmware table joined to the same machine's lspci), 3 placed (2 before the
// ROMED8-2T's positions were derived from its form factor).
const FLOOR_BOARDS: usize = 3;
const FLOOR_PSUS: usize = 7;
const FLOOR_CASES: usize = 1;
const FLOOR_COOLERS: usize = 0;
const FLOOR_CPUS: usize = 23;
const FLOOR_GPUS: usize = 27;
const FLOOR_WIRED: usize = 11;
const FLOOR_PLACED: usize = 3;

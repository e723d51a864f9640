//! Real, published multi-GPU LLM builds (each cited) and how many of their named parts resolve
//! to a catalog entry by exact id or by name ([`Catalog::find_by_name`]: every word of the name
//! as the builder wrote it must occur in the part's vendor, name or id; a hit that turns a model
//! number into another variant, `3090` into `3090 Ti`, does not count; one wrong series word
//! beside a model code may be dropped, "ROG Genesis GR701" for the ROG Hyperion GR701; a GPU
//! name's memory size is matched against the chip's memory).
//!
//! Names are as published, with only the quantity dropped; the part kinds are the ones the
//! checker's rules read (GPUs, CPUs, boards, PSUs, coolers, cases; RAM and drives are left out).
//! The test prints every part that does not resolve and holds the resolve rate to a floor, so a
//! catalog change that loses parts fails.

use kraftwerk::catalog::{self, Catalog, PartKind};

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
    // Issue 14 asks for >= 20 builds and >= 90 %. Reached 67 of 70 (95.7 %) over 31 builds once
    // catalog/motherboards.ron gained four server boards these builds name (GENOA2D24G-2L+,
    // H12SSL-i, K15PG-D24, TURIN2D24G-2L+); the misses left are a board name misspelt in the
    // source ("ROMED-2T"), an OEM-only Xeon (E5-2696 v4) with no published TDP, and the
    // ROME2D32GM-2T, whose form factor no source consulted gives (a board needs one).
    assert!(BUILDS.len() >= 20, "only {} builds in the test set", BUILDS.len());
    assert!(found * 100 >= total * 90, "{found}/{total}: {missing:#?}");
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

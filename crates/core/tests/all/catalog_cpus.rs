//! Workstation and HEDT CPUs of issue #14 item 4 (Xeon W-2100/W-2200, W-3175X, W-3200/W-3300,
//! W-2400/W-3400, Core X-series, Threadripper PRO 3000WX/5000WX, Threadripper 1000/2000) resolve
//! with the figures their sources give: Intel ARK and amd.com rows as scraped into
//! github:felixsteinke/cpu-spec-dataset at commit 4c08d88 (each entry's notes name its row),
//! platform figures marked derived where the row does not give them.

use kraftwerk_catalog::{self as catalog, Cpu, PcieLanes};

/// id, socket, cores, threads, TDP / base power W, PL2 W, lanes, channels, max memory GB.
type Row = (&'static str, &'static str, u16, u16, f64, Option<f64>, PcieLanes, u8, Option<u32>);

const DATASET_COMMIT: &str = "4c08d8873c33a2d1054a40ae305eec22073463a7";

fn l(gen5: u16, gen4: u16, gen3: u16) -> PcieLanes {
    PcieLanes { gen5, gen4, gen3 }
}

fn cpu<'a>(c: &'a catalog::Catalog, id: &str) -> &'a Cpu {
    c.cpus.iter().find(|x| x.id == id).unwrap_or_else(|| panic!("missing CPU {id}"))
}

#[test]
fn new_workstation_cpus_carry_their_cited_figures() {
    let c = catalog::builtin().expect("catalog");
    let rows: [Row; 16] = [
        // Xeon W-2200: ARK 165 W TDP, 48 PCIe 3.0 lanes, 4 channels, 1 TB; no PL2 in the row.
        ("intel-xeon-w-2295", "LGA2066", 18, 36, 165.0, None, l(0, 0, 48), 4, Some(1024)),
        ("intel-xeon-w-2223", "LGA2066", 4, 8, 120.0, None, l(0, 0, 48), 4, Some(1024)),
        // Xeon W-2100 / W-3200 (used market): ARK 140 W / 205 W, 48 and 64 PCIe 3.0 lanes.
        ("intel-xeon-w-2195", "LGA2066", 18, 36, 140.0, None, l(0, 0, 48), 4, Some(512)),
        ("intel-xeon-w-3275m", "LGA3647", 28, 56, 205.0, None, l(0, 0, 64), 6, Some(2048)),
        ("intel-xeon-w-3175x", "LGA3647", 28, 56, 255.0, None, l(0, 0, 48), 6, Some(512)),
        // Core X-series on X299 (used market): ARK TDP and lanes.
        ("intel-core-i9-10980xe", "LGA2066", 18, 36, 165.0, None, l(0, 0, 48), 4, Some(256)),
        ("intel-core-i9-7900x", "LGA2066", 10, 20, 140.0, None, l(0, 0, 44), 4, Some(128)),
        // Xeon W-3300: ARK 270 W, 64 PCIe 4.0 lanes, 8 channels, 4 TB.
        ("intel-xeon-w-3375", "LGA4189", 38, 76, 270.0, None, l(0, 64, 0), 8, Some(4096)),
        ("intel-xeon-w-3323", "LGA4189", 12, 24, 220.0, None, l(0, 64, 0), 8, Some(4096)),
        // Sapphire Rapids W-2400 / W-3400: ARK base power and Maximum Turbo Power.
        ("intel-xeon-w5-2455x", "LGA4677", 12, 24, 200.0, Some(240.0), l(64, 0, 0), 4, Some(2048)),
        ("intel-xeon-w7-3445", "LGA4677", 20, 40, 270.0, Some(324.0), l(112, 0, 0), 8, Some(4096)),
        // Existing entries whose empty PL2 the ARK rows now fill.
        ("intel-xeon-w7-2495x", "LGA4677", 24, 48, 225.0, Some(270.0), l(64, 0, 0), 4, Some(2048)),
        // Threadripper PRO 3000WX / 5000WX: amd.com 280 W; lanes and 2 TB from the platform.
        ("amd-threadripper-pro-3995wx", "sWRX8", 64, 128, 280.0, None, l(0, 128, 0), 8, Some(2048)),
        ("amd-threadripper-pro-5945wx", "sWRX8", 12, 24, 280.0, None, l(0, 128, 0), 8, Some(2048)),
        // Threadripper 1000 / 2000 on X399: amd.com TDP; 60 usable PCIe 3.0 lanes from the platform;
        // max memory not in the row.
        ("amd-threadripper-2990wx", "TR4", 32, 64, 250.0, None, l(0, 0, 60), 4, None),
        ("amd-threadripper-1950x", "TR4", 16, 32, 180.0, None, l(0, 0, 60), 4, None),
    ];
    for (id, socket, cores, threads, tdp, pl2, lanes, channels, max_gb) in rows {
        let p = cpu(&c, id);
        assert_eq!(
            (
                p.socket.as_str(),
                p.cores,
                p.threads,
                p.tdp_w,
                p.package_power_w,
                p.pcie_lanes,
                p.memory_channels,
                p.max_memory_gb
            ),
            (socket, cores, threads, tdp, pl2, lanes, channels, max_gb),
            "{id}"
        );
        let notes = p.notes.as_deref().unwrap_or_default();
        assert!(notes.contains(DATASET_COMMIT), "{id} cites the dataset commit");
    }
}

#[test]
fn intel_rows_cite_their_ark_page_and_derived_figures_are_flagged() {
    let c = catalog::builtin().expect("catalog");
    let new_intel: Vec<&Cpu> =
        c.cpus.iter().filter(|p| p.notes.as_deref().is_some_and(|n| n.contains("dataset/intel-cpus.csv"))).collect();
    // 19 Core X + 8 W-2100 + 8 W-2200 + 1 W-3175X + 9 W-3200 + 5 W-3300 + 10 W-2400/W-3400
    // added, 5 existing W790 entries cross-checked.
    assert!(new_intel.len() >= 65, "{} Intel entries cite the ARK dataset", new_intel.len());
    for p in &new_intel {
        assert!(
            p.source.starts_with("https://ark.intel.com/")
                || p.source.starts_with("https://www.intel.com/")
                || p.source.starts_with("https://www.heise.de/"),
            "{}: {}",
            p.id,
            p.source
        );
    }
    // A DIMM kind the ARK row does not state is flagged, not silently assumed.
    for id in ["intel-xeon-w-2145", "intel-xeon-w-2245", "intel-xeon-w-3245", "intel-xeon-w-3345"] {
        assert!(cpu(&c, id).notes.as_deref().unwrap_or_default().contains("DIMM kind UNCONFIRMED"), "{id}");
    }
    // Core X: no ECC in the row, so unbuffered DIMMs only (derived, and said so).
    let x = cpu(&c, "intel-core-i9-10980xe");
    assert_eq!(x.memory_types, vec![catalog::MemoryType::Ddr4Udimm]);
    assert!(x.notes.as_deref().unwrap_or_default().contains("DIMM kind DERIVED"));
    // The PRO 3945WX row has no socket: the entry says the socket is derived.
    assert!(
        cpu(&c, "amd-threadripper-pro-3945wx").notes.as_deref().unwrap_or_default().contains("socket sWRX8 DERIVED")
    );
}

/// On sockets two CPU families share, the chipset rule sorts every catalog CPU of the socket
/// into the family its name says (the `cpu-socket` rule's chipset check).
#[test]
fn shared_socket_chipsets_sort_every_catalog_cpu_by_family() {
    use kraftwerk_core::check::cpu_runs_on_board;
    let c = catalog::builtin().expect("catalog");
    let mut seen = [0usize; 6];
    for cpu in &c.cpus {
        let (s, n) = (cpu.socket.as_str(), cpu.name.as_str());
        match s {
            "LGA2066" => {
                let xeon = n.contains("Xeon");
                assert_eq!(cpu_runs_on_board(s, n, s, "X299"), !xeon, "{n} on X299");
                seen[usize::from(xeon)] += 1;
            }
            "sTR5" => {
                let pro = n.contains(" PRO ") || n.ends_with("WX");
                assert_eq!(cpu_runs_on_board(s, n, s, "WRX90"), pro, "{n} on WRX90");
                assert!(cpu_runs_on_board(s, n, s, "TRX50"), "{n} on TRX50");
                seen[2 + usize::from(pro)] += 1;
            }
            "LGA4677" => {
                let scalable = ["Platinum", "Gold", "Silver", "Bronze"].iter().any(|w| n.contains(w));
                assert_eq!(cpu_runs_on_board(s, n, s, "W790"), !scalable, "{n} on W790");
                seen[4 + usize::from(scalable)] += 1;
            }
            _ => assert!(!cpu_runs_on_board(s, n, "no-such-socket", "X299")),
        }
    }
    assert!(seen.iter().all(|&k| k > 0), "each family present in the catalog: {seen:?}");
    // Names as users type them, and the OpenDB name of a PRO without "PRO".
    for (name, socket, chipset, runs) in [
        ("Ryzen Threadripper 9985WX", "sTR5", "WRX90", true),
        ("Threadripper Pro 7995WX", "sTR5", "WRX90", true),
        ("Ryzen Threadripper 7980X", "sTR5", "WRX90", false),
        ("Xeon W9-3495X", "LGA4677", "W790", true),
        ("Xeon Platinum 8480+", "LGA4677", " w790 ", false),
        ("Xeon W-2295", "LGA2066", "X299", false),
        ("Core i9-10980XE", "LGA2066", "X299", true),
    ] {
        assert_eq!(cpu_runs_on_board(socket, name, socket, chipset), runs, "{name} on {chipset}");
    }
}

#[test]
fn rated_memory_speeds_are_the_vendors_figures_and_bad_ones_fail_validation() {
    let c = catalog::builtin().expect("catalog");
    // Intel ARK "Memory Types DDR4-2666" (Core i9-7920X); amd.com "Up to 2667MHz" (Threadripper
    // 1950X) and DDR4-3200 (Threadripper PRO 5995WX), as each entry's notes cite them.
    for (id, ddr, mt_s) in [
        ("intel-core-i9-7920x", 4, 2666),
        ("amd-threadripper-1950x", 4, 2667),
        ("amd-threadripper-pro-5995wx", 4, 3200),
    ] {
        let s = cpu(&c, id).memory_speed(ddr).unwrap_or_else(|| panic!("{id}: no DDR{ddr} rating"));
        assert_eq!((s.rated_mt_s, s.two_dimms_per_channel_mt_s), (mt_s, None), "{id}");
    }
    assert!(catalog::validate(&c).iter().all(|i| !i.message.contains("memory_speeds")));
    // Planted: a DDR5 rating on a DDR4 CPU, and a two-DIMM rating above the one-DIMM rating.
    let mut bad = c.clone();
    let x = bad.cpus.iter_mut().find(|x| x.id == "intel-core-i9-7920x").expect("cpu");
    x.memory_speeds = vec![
        catalog::RatedMemorySpeed { ddr_gen: 5, rated_mt_s: 4800, two_dimms_per_channel_mt_s: None },
        catalog::RatedMemorySpeed { ddr_gen: 4, rated_mt_s: 2666, two_dimms_per_channel_mt_s: Some(3200) },
    ];
    let issues: Vec<String> =
        catalog::validate(&bad).into_iter().filter(|i| i.id == "intel-core-i9-7920x").map(|i| i.message).collect();
    assert_eq!(issues.len(), 2, "{issues:?}");
}

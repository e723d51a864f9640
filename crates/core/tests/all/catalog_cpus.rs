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
    // Curated entries only: imported desktop CPUs cite the dataset for their rated memory speed
    // alone (catalog/cpu-memory-speeds.ron), their `source` stays the import's.
    let new_intel: Vec<&Cpu> = c
        .cpus
        .iter()
        .filter(|p| !p.origin.to_string().contains("catalog/opendb/"))
        .filter(|p| p.notes.as_deref().is_some_and(|n| n.contains("dataset/intel-cpus.csv")))
        .collect();
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

/// Every catalog CPU of a socket that has two-socket boards in the catalog (LGA2011-3, SP3,
/// SP5) has a known socket count, read from its model number (`Cpu::max_sockets_known`), and
/// the planner's filter pairs a dual-socket board only with two-socket parts.
#[test]
fn cpus_of_dual_socket_platforms_have_known_socket_counts() {
    use kraftwerk_core::check::cpu_fills_sockets;
    let c = catalog::builtin().expect("catalog");
    let dual: std::collections::BTreeSet<&str> =
        c.motherboards.iter().filter(|b| b.cpu_sockets > 1).map(|b| b.socket.as_str()).collect();
    assert!(dual.contains("LGA2011-3") && dual.contains("SP5"), "{dual:?}");
    let unknown: Vec<&str> = c
        .cpus
        .iter()
        .filter(|p| dual.contains(p.socket.as_str()) && p.max_sockets_known().is_none())
        .map(|p| p.name.as_str())
        .collect();
    assert!(unknown.is_empty(), "socket count unknown: {unknown:?}");
    for (id, sockets) in
        [("intel-core-i7-6900k", 1), ("intel-xeon-e5-2697a-v4", 2), ("amd-epyc-7763", 2), ("amd-epyc-9654", 2)]
    {
        let n = cpu(&c, id).max_sockets_known();
        assert_eq!(n, Some(sockets), "{id}");
        assert_eq!(cpu_fills_sockets(n, 2), sockets >= 2, "{id} on a two-socket board");
        assert!(cpu_fills_sockets(n, 1), "{id} on a one-socket board");
    }
    let named = |name: &str, vendor: &str| {
        let mut p = cpu(&c, "amd-epyc-7763").clone();
        p.name = name.into();
        p.vendor = vendor.into();
        p.max_sockets_known()
    };
    for (name, vendor, sockets) in [
        ("Xeon E5-1660 v4", "Intel", Some(1)),
        ("Xeon E5 1620 V3 OEM/Tray 3.5 GHz 4-Core LGA2011-3", "Intel", Some(1)),
        ("Xeon E5-2680V4", "Intel", Some(2)),
        ("Xeon E5-4650 v4", "Intel", Some(4)),
        ("Xeon E7-8890 v4", "Intel", Some(8)),
        ("Xeon E3-1230 v5", "Intel", Some(1)),
        ("EPYC 7443P", "AMD", Some(1)),
        ("EPYC 9654P", "AMD", Some(1)),
        ("EPYC 7F72", "AMD", Some(2)),
        ("Core i7-6900K", "Intel", Some(1)),
        ("Core Ultra 9 285K", "Intel", Some(1)),
        // Not read: no source here, or a name the numbering does not cover.
        ("Core 2 Extreme QX9775", "Intel", None),
        ("Xeon W-2295", "Intel", None),
        ("Xeon Gold 6248", "Intel", None),
        ("EPYC 4564P", "AMD", None),
        ("EPYC 8534P", "AMD", None),
        ("Ryzen Threadripper PRO 7965WX", "AMD", None),
    ] {
        assert_eq!(named(name, vendor), sockets, "{name}");
    }
    assert!(!cpu_fills_sockets(None, 2), "unknown is not proposed on a two-socket board");
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

/// Desktop CPUs of the OpenDB import get the vendor's rated memory speed from
/// `catalog/cpu-memory-speeds.ron` (amd.com "System Memory Specification: Up to 3200MHz" for the
/// Ryzen 5 4500; Intel ARK "Up to DDR5 4800 MT/s Up to DDR4 3200 MT/s" for the Core i5-12400F and
/// "Up to DDR5 5600 MT/s ..." for the Core i9-13900K, as scraped into
/// github:felixsteinke/cpu-spec-dataset at commit 4c08d88), and a faster kit is read at it: the
/// `kraftwerk plan --model glm-4.5-air --tok-s 15 --context 32768 --budget-usd 4000` trial
/// ranked first a Ryzen 5 4500 with G.SKILL's DDR4-4400 kit, at the kit's unverified 4400 MT/s.
#[test]
fn desktop_cpu_rated_memory_speed_caps_a_faster_kit() {
    let c = catalog::builtin().expect("catalog");
    let r5 = cpu(&c, "amd-ryzen-5-4500");
    let s = r5.memory_speed(4).expect("Ryzen 5 4500: a DDR4 rating");
    assert_eq!((s.rated_mt_s, s.two_dimms_per_channel_mt_s), (3200, None));
    assert!(r5.notes.as_deref().is_some_and(|n| n.contains("Up to 3200MHz")), "{:?}", r5.notes);
    let kit = c.memory.iter().find(|k| k.id == "g-skill-trident-z-rgb-ddr4-4400-cl19-64gb-2x32gb").expect("kit");
    assert_eq!(kit.speed_mt_s, 4400);
    let speed = kraftwerk_core::estimate::fit::ram_speed_of(r5, kit, 1, 1);
    assert_eq!(
        (speed.mt_s, speed.kit_mt_s, speed.cpu_rated_mt_s, speed.dimms_per_channel),
        (3200, 4400, Some(3200), 1)
    );
    assert!(!speed.unverified(), "{}", speed.basis);
    for (id, ddr5, ddr4) in [("intel-core-i5-12400f", 4800, 3200), ("intel-core-i9-13900k", 5600, 3200)] {
        let x = cpu(&c, id);
        assert_eq!(x.memory_speed(5).map(|s| s.rated_mt_s), Some(ddr5), "{id}");
        assert_eq!(x.memory_speed(4).map(|s| s.rated_mt_s), Some(ddr4), "{id}");
    }
    // Every id of one model gets it (the import lists the Ryzen 5 3600 four times).
    for id in [
        "amd-ryzen-5-3600-40bb090d",
        "amd-ryzen-5-3600-f34f9bc1",
        "amd-ryzen-5-3600-oem-tray-8bff3723",
        "amd-ryzen-5-3600-oem-tray-fc64ff23",
    ] {
        assert_eq!(cpu(&c, id).memory_speed(4).map(|s| s.rated_mt_s), Some(3200), "{id}");
    }
    // No vendor figure read: unknown, not a guess (AM5's Ryzen 5 8400F, the 5800X3D, the Core
    // Ultra 7 270K Plus, in neither ARK scrape).
    for id in ["amd-ryzen-5-8400f", "amd-ryzen-7-5800x3d-3-4-ghz-8-core-am4", "intel-core-ultra-7-270k-plus"] {
        assert!(cpu(&c, id).memory_speeds.is_empty(), "{id}");
    }
    // Core 14th gen and Core Ultra 200S from Intel ARK (two scrapes that agree): the i9-14900K
    // at DDR5-5600 / DDR4-3200; the Core Ultra 7 265K at DDR5-5600 with UDIMMs (ARK's 6400 is
    // the CUDIMM rating), 4400 at two DIMMs per channel (Intel's datasheet as Hardwareluxx
    // tabulates it).
    let i9 = cpu(&c, "intel-core-i9-14900k");
    assert_eq!(i9.memory_speed(5).map(|s| s.rated_mt_s), Some(5600));
    assert_eq!(i9.memory_speed(4).map(|s| s.rated_mt_s), Some(3200));
    let ultra = cpu(&c, "intel-core-ultra-7-265k").memory_speed(5).expect("rated");
    assert_eq!((ultra.rated_mt_s, ultra.two_dimms_per_channel_mt_s), (5600, Some(4400)));
    assert!(catalog::validate(&c).iter().all(|i| !i.message.contains("memory_speeds")));
}

/// A rated-speed entry for an id the catalog lacks, an id rated twice, or a CPU that already has
/// a rating (a curated `cpus.ron` entry) is a located error, and nothing is applied.
#[test]
fn cpu_memory_speed_overlay_refuses_unknown_twice_and_already_rated_ids() {
    let base = catalog::builtin().expect("catalog");
    let entry = |id: &str| {
        format!(
            "        (\n            cpus: [\"{id}\"],\n            memory_speeds: [(ddr_gen: 4, rated_mt_s: 3200)],\n            source: \"s\",\n            notes: \"n\",\n        ),\n"
        )
    };
    let file = |body: String| format!("(\n    entries: [\n{body}    ],\n)\n");
    // One good entry applies (an AM4 CPU with no rating: the 5800X3D).
    let mut c = base.clone();
    let ok = file(entry("amd-ryzen-7-5800x3d-3-4-ghz-8-core-am4"));
    assert_eq!(catalog::cpu_memory::apply_cpu_memory_speeds(&mut c, "t.ron", &ok), Ok(1));
    let mut c = base.clone();
    let bad = file(
        entry("amd-ryzen-7-5800x3d-3-4-ghz-8-core-am4")
            + &entry("no-such-cpu")
            + &entry("amd-ryzen-7-5800x3d-3-4-ghz-8-core-am4")
            + &entry("intel-core-i9-7920x"),
    );
    let errs = catalog::cpu_memory::apply_cpu_memory_speeds(&mut c, "t.ron", &bad).expect_err("errors");
    let got: Vec<(usize, bool)> = errs
        .iter()
        .map(|e| {
            (
                e.line,
                e.message.contains("not in the catalog")
                    || e.message.contains("rated twice")
                    || e.message.contains("already has a rated memory speed"),
            )
        })
        .collect();
    assert_eq!(got, vec![(10, true), (16, true), (22, true)], "{errs:?}");
    assert!(cpu(&c, "amd-ryzen-7-5800x3d-3-4-ghz-8-core-am4").memory_speeds.is_empty(), "nothing applied");
}

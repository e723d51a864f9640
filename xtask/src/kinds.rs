//! The per-kind mappers of the OpenDB import: one OpenDB JSON record (`open-db/<Category>/*.json`)
//! to one Kraftwerk part (case, CPU cooler, PSU, motherboard, CPU, GPU card, memory kit), with
//! the rules of the crate root's docs (a figure OpenDB does not give is left out, never 0; a
//! record that violates the schema is an `Err` and is listed in `skipped`).

use super::*;

pub(crate) fn case(v: &Value, ctx: &Ctx) -> Mapped {
    let mut m = base(v, ctx, "PCCase")?;
    let ff_list = strings(v, "supported_motherboard_form_factors")?;
    let mut ffs: Vec<&str> = ff_list.iter().filter_map(|s| form_factor(s)).collect();
    ffs.sort_unstable();
    ffs.dedup();
    if ffs.is_empty() {
        return Ok(Outcome::OutOfScope("no ATX-family board form factor listed".into()));
    }
    let slots = count(v, "expansion_slots")?.ok_or("`expansion_slots` missing")?;
    let kind = string(v, "form_factor")?.unwrap_or("");
    m.insert("form_factors".into(), json!(ffs));
    m.insert("expansion_slots".into(), json!(slots));
    put(&mut m, "max_gpu_length_mm", num(v, "max_video_card_length")?.map(Value::from));
    put(&mut m, "max_cooler_height_mm", num(v, "max_cpu_cooler_height")?.map(Value::from));
    m.insert("airflow".into(), json!(if kind.contains("Test Bench") { "OpenFrame" } else { "Desktop" }));
    Ok(Outcome::Part(m))
}

pub(crate) fn cooler(v: &Value, ctx: &Ctx) -> Mapped {
    let water = v.get("water_cooled").and_then(Value::as_bool).unwrap_or(false);
    let mut m = base(v, ctx, "CPUCooler")?;
    let sockets: Vec<String> = strings(v, "cpu_sockets")?.iter().filter_map(|s| socket(s)).collect();
    if sockets.is_empty() {
        return Err("`cpu_sockets` empty or missing".into());
    }
    m.insert("cooler_type".into(), json!(if water { "Aio" } else { "Air" }));
    m.insert("sockets".into(), json!(sockets));
    if water {
        // An AIO's `height` in OpenDB is its pump or radiator, not a clearance above the board.
        put(&mut m, "radiator_mm", num(v, "radiator_size")?.map(|r| json!(r.round() as u64)));
    } else {
        put(&mut m, "height_mm", num(v, "height")?.map(Value::from));
    }
    Ok(Outcome::Part(m))
}

pub(crate) fn psu(v: &Value, ctx: &Ctx) -> Mapped {
    let mut m = base(v, ctx, "PSU")?;
    let watts = num(v, "wattage")?.ok_or("`wattage` missing")?;
    if watts < 450.0 {
        return Ok(Outcome::OutOfScope("under 450 W".into()));
    }
    if !(100.0..=4000.0).contains(&watts) {
        return Err(format!("`wattage` {watts} out of range"));
    }
    match string(v, "form_factor")? {
        Some("TFX" | "Flex ATX" | "Mini-ITX") => return Ok(Outcome::OutOfScope("TFX/Flex/ITX small-form PSU".into())),
        _ => {}
    }
    let badge = match string(v, "efficiency_rating")? {
        Some("80+ Titanium") => "Titanium",
        Some("80+ Platinum") => "Platinum",
        Some("80+ Gold") => "Gold",
        Some("80+ Silver") => "Silver",
        Some("80+ Bronze") => "Bronze",
        Some("80+" | "80+ Standard" | "80+ White") => "Standard",
        Some(other) => return Err(format!("unknown efficiency rating `{other}`")),
        None => {
            let mut figures = file_provenance("PSU");
            figures.insert("eighty_plus".into(), json!({"Derived": "no 80 PLUS rating in OpenDB: rating unknown, so efficiency and wall draw unknown"}));
            m.insert("provenance".into(), json!({"default": {"Community": DB}, "figures": figures}));
            "None"
        }
    };
    let mut conn = Map::new();
    if let Some(c) = v.get("connectors").filter(|c| c.as_object().is_some_and(|o| !o.is_empty())) {
        let (hpwr, pcie, eps) = (count(c, "pcie_12vhpwr")?, count(c, "pcie_6_plus_2_pin")?, count(c, "eps_8_pin")?);
        // OpenDB writes 0 for counts nobody entered: a unit of 450 W or more with no PCIe and
        // no EPS plug is a missing entry, so all three are unknown; a lone 0 PCIe or EPS count
        // on such a unit is unknown too (every ATX unit has a CPU cable). A 0 16-pin count is
        // kept (most units have none).
        if !(pcie == Some(0) && eps == Some(0)) {
            put(&mut conn, "hpwr_16pin", hpwr.map(Value::from));
            put(&mut conn, "pcie_8pin", pcie.filter(|n| *n > 0).map(Value::from));
            put(&mut conn, "eps_8pin", eps.filter(|n| *n > 0).map(Value::from));
        }
    }
    // OpenDB has no cable power class: left out of the record, it reads as unknown (`None`).
    m.insert("rated_w".into(), json!(watts));
    m.insert("atx_version".into(), json!("Unknown"));
    m.insert("eighty_plus".into(), json!(badge));
    m.insert("connectors".into(), Value::Object(conn));
    put(&mut m, "length_mm", num(v, "length")?.map(Value::from));
    m.insert("inlet".into(), json!(if watts > 1600.0 { "C20" } else { "C14" }));
    Ok(Outcome::Part(m))
}

/// Memory channels of a platform, from the vendor's platform specification.
fn channels(socket: &str) -> Option<u64> {
    Some(match socket {
        "AM4" | "AM5" | "LGA1151" | "LGA1200" | "LGA1700" | "LGA1851" => 2,
        "TR4" | "sTRX4" | "sTR5" | "LGA2066" | "LGA2011-3" => 4,
        "sWRX8" | "SP3" => 8,
        "SP5" => 12,
        "LGA4677" => 8,
        _ => return None,
    })
}

pub(crate) fn board(v: &Value, ctx: &Ctx) -> Mapped {
    let raw_socket = string(v, "socket")?.ok_or("`socket` missing")?;
    let (sockets, raw_socket) = match raw_socket.strip_prefix("2 x ") {
        Some(s) => (2, s),
        None => (1, raw_socket),
    };
    let Some(sock) = socket(raw_socket) else { return Ok(Outcome::OutOfScope("socket not modelled".into())) };
    let Some(ch) = channels(&sock) else {
        return Ok(Outcome::OutOfScope(format!("pre-DDR4 or unmodelled socket ({sock})")));
    };
    let memory = v.get("memory").ok_or("`memory` missing")?;
    let ram = string(memory, "ram_type")?.ok_or("`memory.ram_type` missing")?;
    // Registered DIMMs: the sockets whose CPUs take only registered memory, and two-socket
    // LGA2011-3 boards, whose CPUs are Xeon E5-2600 v3/v4 (the Core i7 and E5-1600 parts of the
    // socket are single-socket only), DDR4 RDIMM/LRDIMM parts as catalog/cpus.ron lists the
    // E5-2697A v4; OpenDB gives the memory type only ('DDR4'), and a dual-socket C612 board
    // runs registered modules (the ASUS Z10PE-D16 WS's SMBIOS dump in linuxhw/DMI lists Micron
    // 36ASF4G72PZ-2G3B1 32 GB DDR4-2400 RDIMMs, board-wiring/server.ron's source).
    let rdimm = matches!(sock.as_str(), "sTR5" | "sWRX8" | "SP3" | "SP5" | "LGA4677")
        || (sock == "LGA2011-3" && sockets == 2);
    let mem_type = match (ram, rdimm) {
        ("DDR4", false) => "Ddr4Udimm",
        ("DDR4", true) => "Ddr4Rdimm",
        ("DDR5", false) => "Ddr5Udimm",
        ("DDR5", true) => "Ddr5Rdimm",
        _ => return Ok(Outcome::OutOfScope("DDR3 or older memory".into())),
    };
    let Some(ff) = string(v, "form_factor")?.and_then(form_factor) else {
        return Ok(Outcome::OutOfScope("form factor not modelled (XL-ATX, HPTX, thin ITX)".into()));
    };
    let slots = count(memory, "slots")?.filter(|s| *s > 0).ok_or("`memory.slots` missing")?;
    let mut m = base(v, ctx, "Motherboard")?;
    let chipset = string(v, "chipset")?.unwrap_or("unknown");
    let chipset = chipset.trim_start_matches("Intel ").trim_start_matches("AMD ");
    let mut summary = Vec::new();
    let mut gen_unknown = false;
    if let Some(Value::Array(list)) = v.get("pcie_slots") {
        for s in list {
            let q = count(s, "quantity")?.ok_or("`pcie_slots[].quantity` missing")?;
            let lanes = count(s, "lanes")?.ok_or("`pcie_slots[].lanes` missing")?;
            let listed = string(s, "gen")?.and_then(|g| g.split('.').next()?.parse::<u8>().ok());
            let pcie_gen = slot_gen(&sock, chipset, listed);
            gen_unknown |= pcie_gen != listed;
            summary.push(json!({"quantity": q, "lanes": lanes, "pcie_gen": pcie_gen}));
        }
    }
    if gen_unknown {
        let why = if GEN3_SOCKETS.contains(&sock.as_str()) {
            format!("which no {sock} board runs: {GEN3_PLATFORMS}")
        } else {
            format!("which AMD does not support on a {chipset} board ({AMD_PRE_X570})")
        };
        let notes = format!(
            "{} Slot PCIe generations unknown: OpenDB gives PCIe 4.0, {why}.",
            m["notes"].as_str().unwrap_or_default()
        );
        m.insert("notes".into(), json!(notes));
    }
    let m2: Vec<String> = match v.get("m2_slots") {
        Some(Value::Array(list)) => {
            list.iter().filter_map(|s| s.get("interface").and_then(Value::as_str).map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    };
    let cpu_power = v.get("power_connectors").map(|p| strings(p, "cpu_power")).transpose()?.unwrap_or_default();
    let eps = (!cpu_power.is_empty()).then(|| cpu_power.iter().filter(|s| s.replace(' ', "-").starts_with("8-pin")).count());
    m.insert("socket".into(), json!(sock));
    m.insert("chipset".into(), json!(chipset));
    m.insert("cpu_sockets".into(), json!(sockets));
    m.insert("form_factor".into(), json!(ff));
    m.insert("memory_type".into(), json!(mem_type));
    m.insert("memory_slots".into(), json!(slots));
    m.insert("memory_channels".into(), json!(ch.min(slots)));
    // A DDR4/DDR5 board takes at least 16 GB; a smaller "max" is a unit slip (TB written as
    // GB, as OpenDB has for some TRX50 boards), so it is unknown.
    put(&mut m, "max_memory_gb", num(memory, "max")?.filter(|x| *x >= 16.0).map(|x| json!(x.round() as u64)));
    m.insert("pcie_slots".into(), json!([]));
    m.insert("slot_summary".into(), json!(summary));
    if !m2.is_empty() {
        m.insert("m2_interfaces".into(), json!(m2));
    }
    put(&mut m, "eps_8pin", eps.map(Value::from));
    Ok(Outcome::Part(m))
}

/// Platform figures OpenDB does not give (it has no PCIe lane counts): usable CPU lanes
/// (gen5, gen4, gen3; the chipset link excluded), memory type, channels, and where from.
fn platform(socket: &str, arch: &str, name: &str) -> Option<([u64; 3], &'static str, u64, &'static str)> {
    let pro = name.contains("PRO") || name.split_whitespace().any(|w| w.ends_with("WX"));
    // APU silicon sold without its iGPU (no G suffix): fewer, older lanes than the socket's table.
    let model = |m: &[&str]| name.split_whitespace().any(|w| m.contains(&w));
    if socket == "AM4" && model(&["4100", "4500", "5500"]) {
        return Some(([0, 0, 20], "Ddr4Udimm", 2, "AM4 APU silicon without an iGPU (Renoir: Ryzen 3 4100/Ryzen 5 4500; Cezanne: Ryzen 5 5500): PCIe 3.0 only (Tom's Hardware, https://www.tomshardware.com/reviews/amd-ryzen-4-4500-ryzen-3-4100-cpu-review; TechSpot's Ryzen 5 5500 review: 'a 5600G with the iGPU removed ... only PCIe 3.0 support'), 20 usable lanes (16 graphics + 4 NVMe) as on desktop Renoir (https://www.svethardware.cz/amd-renoir-fp6-ma-pouze-pcie-3-0-x8-omezeni-pro-grafiky-na-noteboocich/52654); cpu-monkey lists 12 for the 4500 (CONFLICT, https://www.cpu-monkey.com/en/cpu-AMD_Ryzen_5_4500)"));
    }
    if socket == "AM5" && model(&["8400F", "8700F"]) {
        return Some(([0, 16, 0], "Ddr5Udimm", 2, "AM5 Phoenix silicon without an iGPU (Ryzen 5 8400F, Ryzen 7 8700F): 20 PCIe 4.0 lanes of which 16 usable (AMD's specifications as reported by HotHardware, https://hothardware.com/news/rx-9000-gpu-not-full-speed-ryzen-ai-400, and Hardwareluxx, https://www.hardwareluxx.de/index.php/news/hardware/prozessoren/62770-amd-phoenix-und-phonix-2-vorsicht-bei-den-pcie-lanes.html); the 8400F on Phoenix: https://gaming-st.com/cpu/556"));
    }
    Some(match (socket, arch) {
        ("AM5", "Zen 4" | "Zen 5") => ([24, 0, 0], "Ddr5Udimm", 2, "AM5: 24 usable PCIe 5.0 CPU lanes, as curated for the Ryzen 9 7950X (AMD product page)"),
        ("AM4", "Zen 3" | "Zen 2") => ([0, 20, 0], "Ddr4Udimm", 2, "AM4 Zen 2/3 desktop: 20 usable PCIe 4.0 CPU lanes (16 graphics + 4 NVMe; 4 more link the chipset), AMD Ryzen 5000/3000 product pages"),
        ("LGA 1700", _) => ([16, 4, 0], "Ddr4Udimm,Ddr5Udimm", 2, "LGA1700: 16 PCIe 5.0 + 4 PCIe 4.0 CPU lanes, as curated for the Core i9-14900K (Intel ARK); DDR4 and DDR5 unbuffered, as Intel ARK lists for every 12th-14th gen desktop Core (e.g. Core i5-13600K: 'Up to DDR5 5600 MT/s, Up to DDR4 3200 MT/s', https://www.intel.com/content/www/us/en/products/sku/230493/intel-core-i513600k-processor-24m-cache-up-to-5-10-ghz/specifications.html)"),
        ("LGA 1851", _) => ([20, 4, 0], "Ddr5Udimm", 2, "LGA1851: 20 PCIe 5.0 + 4 PCIe 4.0 CPU lanes, as curated for the Core Ultra 9 285K (Intel ARK)"),
        ("LGA 2011-3", _) if name.contains("Xeon E5") && (name.contains("v3") || name.contains("V3") || name.contains("v4") || name.contains("V4")) => (
            [0, 0, 40],
            "Ddr4Rdimm",
            4,
            "Xeon E5-1600/2600 v3/v4 on LGA2011-3: 40 PCIe 3.0 lanes and 4 DDR4 channels per socket (Intel ARK, e.g. https://www.intel.com/content/www/us/en/products/sku/91755/intel-xeon-processor-e52680-v4-35m-cache-2-40-ghz/specifications.html)",
        ),
        ("sTRX4", "Zen 2") => ([0, 56, 0], "Ddr4Udimm", 4, "Threadripper 3000 on TRX40: 64 PCIe 4.0 CPU lanes of which 8 link the chipset (AMD: 88 platform lanes = 64 CPU + 24 chipset), 4 DDR4 channels"),
        ("sTR5", _) if pro => ([128, 0, 0], "Ddr5Rdimm", 8, "Threadripper PRO on WRX90: 128 PCIe 5.0 lanes, 8 channels, as curated for the PRO 7985WX (AMD press release 2023-10-19)"),
        ("sTR5", _) => ([48, 24, 0], "Ddr5Rdimm", 4, "Threadripper on TRX50: 48 PCIe 5.0 + 24 PCIe 4.0 lanes, 4 channels, as curated for the 7960X (AMD press release 2023-10-19)"),
        _ => return None,
    })
}

pub(crate) fn cpu(v: &Value, ctx: &Ctx) -> Mapped {
    let raw_socket = string(v, "socket")?.ok_or("`socket` missing")?;
    let name = v.get("metadata").and_then(|m| string(m, "name").ok().flatten()).unwrap_or("");
    let arch = string(v, "microarchitecture")?.unwrap_or("");
    // APUs (model number ending in G / GE / GT) have fewer lanes than the platform's table.
    let apu = name.split_whitespace().any(|w| {
        w.chars().next().is_some_and(|c| c.is_ascii_digit()) && (w.ends_with('G') || w.ends_with("GE") || w.ends_with("GT"))
    });
    if apu {
        return Ok(Outcome::OutOfScope("APU (fewer PCIe lanes than its platform)".into()));
    }
    let Some((lanes, mem, channels, why)) = platform(raw_socket, arch, name) else {
        return Ok(Outcome::OutOfScope("platform without a lane table here (older, or lanes vary per model)".into()));
    };
    let cores = v.get("cores").ok_or("`cores` missing")?;
    let total = count_big(cores, "total")?.filter(|n| *n > 0).ok_or("`cores.total` missing")?;
    let threads = count_big(cores, "threads")?.filter(|n| *n > 0).ok_or("`cores.threads` missing")?;
    let spec = v.get("specifications").ok_or("`specifications` missing")?;
    let tdp = num(spec, "tdp")?.ok_or("`specifications.tdp` missing")?;
    let mut m = base(v, ctx, "CPU")?;
    m.insert("socket".into(), json!(socket(raw_socket)));
    m.insert("cores".into(), json!(total));
    m.insert("threads".into(), json!(threads));
    m.insert("tdp_w".into(), json!(tdp));
    put(&mut m, "package_power_w", num(spec, "ppt")?.map(Value::from));
    m.insert("pcie_lanes".into(), json!({"gen5": lanes[0], "gen4": lanes[1], "gen3": lanes[2]}));
    // A platform with two memory types names both, comma-separated (LGA1700: DDR4 and DDR5).
    m.insert("memory_types".into(), json!(mem.split(',').collect::<Vec<_>>()));
    m.insert("memory_channels".into(), json!(channels));
    let max_mem = spec.get("memory").map(|x| num(x, "maxSupport")).transpose()?.flatten();
    put(&mut m, "max_memory_gb", max_mem.filter(|x| *x >= 16.0).map(|x| json!(x.round() as u64)));
    let notes = format!("{} Lanes, memory type and channels derived: {why}.", m["notes"].as_str().unwrap_or_default());
    m.insert("notes".into(), json!(notes));
    Ok(Outcome::Part(m))
}

/// A count that may exceed 63 (cores, threads).
fn count_big(v: &Value, key: &str) -> Result<Option<u64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| format!("`{key}` = {n} is not a count")),
        Some(other) => Err(format!("`{key}` is not a count: {other}")),
    }
}

/// OpenDB GPU `chipset` (and memory, where one name covers two sizes) to the catalog's chip id.
fn chip_of(chipset: &str, memory_gb: Option<f64>) -> Option<&'static str> {
    let mem = memory_gb.unwrap_or(0.0);
    Some(match chipset {
        "GeForce RTX 3060 12 GB" => "nvidia-geforce-rtx-3060-12gb",
        "GeForce RTX 3080 12 GB" => "nvidia-geforce-rtx-3080-12gb",
        "GeForce RTX 3080 Ti" => "nvidia-geforce-rtx-3080-ti",
        "GeForce RTX 3090" => "nvidia-geforce-rtx-3090",
        "GeForce RTX 3090 Ti" => "nvidia-geforce-rtx-3090-ti",
        "GeForce RTX 4060 Ti" | "GeForce RTX 4060 Ti 16 GB" if mem >= 16.0 => "nvidia-geforce-rtx-4060-ti-16gb",
        "GeForce RTX 4070" => "nvidia-geforce-rtx-4070",
        "GeForce RTX 4070 SUPER" => "nvidia-geforce-rtx-4070-super",
        "GeForce RTX 4070 Ti" => "nvidia-geforce-rtx-4070-ti",
        "GeForce RTX 4070 Ti SUPER" => "nvidia-geforce-rtx-4070-ti-super",
        "GeForce RTX 4080" => "nvidia-geforce-rtx-4080",
        "GeForce RTX 4080 SUPER" => "nvidia-geforce-rtx-4080-super",
        "GeForce RTX 4090" => "nvidia-geforce-rtx-4090",
        "GeForce RTX 4090 D" => "nvidia-geforce-rtx-4090d",
        "GeForce RTX 5060 Ti 16 GB" => "nvidia-geforce-rtx-5060-ti-16gb",
        "GeForce RTX 5060 Ti" if mem >= 16.0 => "nvidia-geforce-rtx-5060-ti-16gb",
        "GeForce RTX 5070" => "nvidia-geforce-rtx-5070",
        "GeForce RTX 5070 Ti" => "nvidia-geforce-rtx-5070-ti",
        "GeForce RTX 5080" => "nvidia-geforce-rtx-5080",
        "GeForce RTX 5090" => "nvidia-geforce-rtx-5090",
        "RTX A4000" => "nvidia-rtx-a4000",
        "RTX A4500" => "nvidia-rtx-a4500",
        "RTX A5000" => "nvidia-rtx-a5000",
        "RTX A5500" => "nvidia-rtx-a5500",
        "RTX A6000" => "nvidia-rtx-a6000",
        "RTX 4000 Ada" | "RTX 4000 Ada Generation" => "nvidia-rtx-4000-ada",
        "RTX 4500 Ada" | "RTX 4500 Ada Generation" => "nvidia-rtx-4500-ada",
        "RTX 5000 Ada" | "RTX 5000 Ada Generation" => "nvidia-rtx-5000-ada",
        "RTX 5880 Ada Generation" => "nvidia-rtx-5880-ada",
        "RTX 6000 Ada" | "RTX 6000 Ada Generation" => "nvidia-rtx-6000-ada",
        "RTX PRO 4000 Blackwell" => "nvidia-rtx-pro-4000-blackwell",
        "RTX PRO 4500 Blackwell Workstation Edition" | "RTX PRO 4500 Blackwell" => "nvidia-rtx-pro-4500-blackwell",
        "RTX PRO 5000 Blackwell" => "nvidia-rtx-pro-5000-blackwell",
        "RTX PRO 6000 Blackwell" => "nvidia-rtx-pro-6000-blackwell",
        "Radeon RX 6800" => "amd-radeon-rx-6800",
        "Radeon RX 6800 XT" => "amd-radeon-rx-6800-xt",
        "Radeon RX 6900 XT" => "amd-radeon-rx-6900-xt",
        "Radeon RX 6950 XT" => "amd-radeon-rx-6950-xt",
        "Radeon RX 7600 XT" => "amd-radeon-rx-7600-xt",
        "Radeon RX 7800 XT" => "amd-radeon-rx-7800-xt",
        "Radeon RX 7900 GRE" => "amd-radeon-rx-7900-gre",
        "Radeon RX 7900 XT" => "amd-radeon-rx-7900-xt",
        "Radeon RX 7900 XTX" => "amd-radeon-rx-7900-xtx",
        "Radeon RX 9060 XT 16 GB" => "amd-radeon-rx-9060-xt-16gb",
        "Radeon RX 9070" => "amd-radeon-rx-9070",
        "Radeon RX 9070 XT" => "amd-radeon-rx-9070-xt",
        "Radeon AI PRO R9700" => "amd-radeon-ai-pro-r9700",
        "Radeon VII" => "amd-radeon-vii",
        "Radeon PRO W7900" => "amd-radeon-pro-w7900",
        "Arc A770" if mem >= 16.0 => "intel-arc-a770-16gb",
        "Arc B580" => "intel-arc-b580",
        "Arc Pro B60" => "intel-arc-pro-b60",
        _ => return None,
    })
}

pub(crate) fn gpu_card(v: &Value, ctx: &Ctx) -> Mapped {
    let chipset = string(v, "chipset")?.ok_or("`chipset` missing")?;
    let memory = num(v, "memory")?;
    let Some(chip) = chip_of(chipset, memory) else {
        return Ok(Outcome::OutOfScope("chip under 12 GB or not in the chip list".into()));
    };
    let mut m = base(v, ctx, "GPU")?;
    m.insert("chip".into(), json!(chip));
    let length = num(v, "length")?;
    if let Some(l) = length.filter(|l| !(50.0..=400.0).contains(l)) {
        return Err(format!("`length` {l} mm is not a card length (50-400)"));
    }
    put(&mut m, "length_mm", length.map(Value::from));
    let width = num(v, "total_slot_width")?;
    if let Some(w) = width.filter(|w| *w > 5.0) {
        return Err(format!("`total_slot_width` {w} is not a slot count (1-5)"));
    }
    put(&mut m, "width_slots", width.map(|w| json!(w.ceil() as u64)));
    if let Some(p) = v.get("power_connectors").filter(|p| p.is_object()) {
        let hpwr = count(p, "pcie_12VHPWR")?.unwrap_or(0) + count(p, "pcie_12V_2x6")?.unwrap_or(0);
        let (six, eight) = (count(p, "pcie_6_pin")?, count(p, "pcie_8_pin")?);
        let tdp = num(v, "tdp")?.unwrap_or(0.0);
        // All zero on a card above the slot's 75 W is a missing entry, not a card without plugs.
        let all_zero = hpwr + six.unwrap_or(0) + eight.unwrap_or(0) == 0;
        if let (Some(six), Some(eight)) = (six, eight)
            && !(all_zero && tdp > 75.0)
        {
            m.insert("power_inputs".into(), json!({"hpwr_16pin": hpwr, "pcie_8pin": eight, "eps_8pin": 0, "pcie_6pin": six}));
        }
    }
    let cooler = match string(v, "cooling")? {
        Some("Blower") => Some("Blower"),
        Some("Passive") => Some("Passive"),
        Some("Water Cooled" | "Hybrid") => Some("Liquid"),
        Some(s) if s.ends_with("Fan") || s.ends_with("Fans") => Some("OpenAir"),
        Some(other) => return Err(format!("unknown cooling `{other}`")),
        None => None,
    };
    put(&mut m, "cooler", cooler.map(Value::from));
    put(&mut m, "board_power_w", num(v, "tdp")?.map(Value::from));
    put(&mut m, "memory_gib", memory.map(Value::from));
    Ok(Outcome::Part(m))
}

/// The memory type a record states: DDR generation from `ram_type`, buffering from
/// `registered`; never guessed. `Err` for a record that contradicts itself.
fn ram_kind(v: &Value, name: &str) -> Result<Result<&'static str, String>, String> {
    let ram = string(v, "ram_type")?.ok_or("`ram_type` missing")?;
    if !matches!(ram, "DDR4" | "DDR5") {
        return Ok(Err("DDR3 or older memory".into()));
    }
    match string(v, "form_factor")? {
        Some("288-pin DIMM" | "DIMM" | "UDIMM") => {}
        Some(f) if f.contains("SO-DIMM") => return Ok(Err("SO-DIMM (laptop and small-form memory)".into())),
        Some(other) => return Err(format!("form factor `{other}` is not a {ram} module")),
        None => return Ok(Err("form factor not stated".into())),
    }
    let registered = match string(v, "registered")? {
        Some("Unbuffered") => false,
        Some("Registered" | "Load Reduced") => true,
        Some(other) => return Err(format!("unknown `registered` value `{other}`")),
        None => return Ok(Err("buffering not stated (`registered` empty): unbuffered or registered unknown".into())),
    };
    // The name is the listing's own words: a name that says registered (or ECC) against a field
    // that says otherwise is a record that contradicts itself, not one to pick a side of.
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let says_registered = words.iter().any(|w| matches!(*w, "registered" | "rdimm" | "lrdimm"));
    let says_unbuffered = words.iter().any(|w| matches!(*w, "unbuffered" | "udimm"));
    if says_registered && !registered {
        return Err("the name says registered but `registered` is Unbuffered".into());
    }
    if says_unbuffered && registered {
        return Err("the name says unbuffered but `registered` is Registered".into());
    }
    if registered && string(v, "form_factor")? == Some("UDIMM") {
        return Err("form factor UDIMM but `registered` is Registered".into());
    }
    Ok(Ok(match (ram, registered) {
        ("DDR4", false) => "Ddr4Udimm",
        ("DDR4", true) => "Ddr4Rdimm",
        ("DDR5", false) => "Ddr5Udimm",
        _ => "Ddr5Rdimm",
    }))
}

/// A memory kit: DDR4/DDR5 DIMMs whose buffering the record states.
pub(crate) fn memory_kit(v: &Value, ctx: &Ctx) -> Mapped {
    let name = v.get("metadata").and_then(|m| string(m, "name").ok().flatten()).unwrap_or("");
    let mem_type = match ram_kind(v, name)? {
        Ok(t) => t,
        Err(why) => return Ok(Outcome::OutOfScope(why)),
    };
    let ddr5 = mem_type.starts_with("Ddr5");
    let ecc = match string(v, "ecc")? {
        Some("ECC") => true,
        Some("Non-ECC") => false,
        Some(other) => return Err(format!("unknown `ecc` value `{other}`")),
        None => return Err("`ecc` missing".into()),
    };
    let lower = name.to_ascii_lowercase();
    if !ecc && lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "ecc") && !lower.contains("non-ecc") && !lower.contains("non ecc") {
        return Err("the name says ECC but `ecc` is Non-ECC".into());
    }
    let modules = v.get("modules").filter(|m| m.is_object()).ok_or("`modules` missing")?;
    let quantity = count(modules, "quantity")?.filter(|q| *q > 0).ok_or("`modules.quantity` missing")?;
    let per = num(modules, "capacity_gb")?.ok_or("`modules.capacity_gb` missing")?;
    if per.fract() != 0.0 || !(1.0..=512.0).contains(&per) {
        return Err(format!("`modules.capacity_gb` {per} is not a module size"));
    }
    if let Some(total) = num(v, "capacity")?
        && (total - per * quantity as f64).abs() > 0.5
    {
        return Err(format!("`capacity` {total} GB is not `modules.quantity` {quantity} x `modules.capacity_gb` {per}"));
    }
    let speed = num(v, "speed")?.ok_or("`speed` missing")?;
    let range = if ddr5 { 3200.0..=12000.0 } else { 1600.0..=6000.0 };
    if speed.fract() != 0.0 || !range.contains(&speed) {
        return Err(format!("`speed` {speed} is not a {} data rate", if ddr5 { "DDR5" } else { "DDR4" }));
    }
    let cl = num(v, "cas_latency")?;
    if let Some(c) = cl.filter(|c| c.fract() != 0.0 || !(9.0..=80.0).contains(c)) {
        return Err(format!("`cas_latency` {c} is not a CAS latency (9-80 cycles)"));
    }
    let volts = num(v, "voltage")?;
    if let Some(x) = volts.filter(|x| !(1.0..=1.65).contains(x)) {
        return Err(format!("`voltage` {x} V is not a DIMM voltage (1.0-1.65 V)"));
    }
    let mut m = base(v, ctx, "RAM")?;
    m.insert("memory_type".into(), json!(mem_type));
    m.insert("modules".into(), json!(quantity));
    m.insert("module_gb".into(), json!(per as u64));
    m.insert("speed_mt_s".into(), json!(speed as u64));
    m.insert("ecc".into(), json!(ecc));
    put(&mut m, "cas_latency_cycles", cl.map(|c| json!(c as u64)));
    put(&mut m, "voltage_v", volts.map(Value::from));
    Ok(Outcome::Part(m))
}

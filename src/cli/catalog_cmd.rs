//! `kraftwerk catalog [KIND] [--format text|json]`.

use super::{Format, load_catalog, print_json};
use crate::catalog::{Catalog, HasId, PartKind};
use std::process::ExitCode;

fn kind_from(s: &str) -> Option<PartKind> {
    PartKind::ALL.into_iter().find(|k| k.plural() == s || format!("{k:?}").eq_ignore_ascii_case(s))
}

/// One row of the text listing: id, name, a few key figures, source.
fn rows(c: &Catalog, kind: PartKind) -> Vec<(String, String, String, String)> {
    fn r<T: HasId>(p: &T, figures: String) -> (String, String, String, String) {
        (p.id().to_owned(), p.display_name(), figures, p.source().to_owned())
    }
    match kind {
        PartKind::Gpu => c
            .gpus
            .iter()
            .map(|g| {
                r(
                    g,
                    format!(
                        "{:.0} GiB {}, {:.0} GB/s, {:.0} W, PCIe {}.0 x{}, {} slot(s), bf16 {}",
                        g.memory_gib,
                        g.memory_type,
                        g.memory_bandwidth_gb_s,
                        g.board_power_w,
                        g.pcie_gen,
                        g.pcie_lanes,
                        g.width_slots,
                        g.peak.bf16.map_or_else(|| "n/p".to_owned(), |t| format!("{t} TFLOP/s"))
                    ),
                )
            })
            .collect(),
        PartKind::Cpu => c
            .cpus
            .iter()
            .map(|p| {
                r(
                    p,
                    format!(
                        "{} {}C, {:.0} W, {} Gen5 + {} Gen4 + {} Gen3 lanes, {} ch",
                        p.socket,
                        p.cores,
                        p.tdp_w,
                        p.pcie_lanes.gen5,
                        p.pcie_lanes.gen4,
                        p.pcie_lanes.gen3,
                        p.memory_channels
                    ),
                )
            })
            .collect(),
        PartKind::Motherboard => c
            .motherboards
            .iter()
            .map(|b| {
                let slots: Vec<String> = b
                    .pcie_slots
                    .iter()
                    .map(|s| format!("{}:x{}/G{}", s.position, s.electrical_lanes, s.pcie_gen))
                    .collect();
                r(b, format!("{} {} {}, slots {}", b.socket, b.chipset, b.form_factor, slots.join(" ")))
            })
            .collect(),
        PartKind::Psu => c
            .psus
            .iter()
            .map(|p| {
                r(
                    p,
                    format!(
                        "{:.0} W, {:?}, 80+ {:?}, {}x 12V-2x6, {}x PCIe 8-pin, {:?}",
                        p.rated_w,
                        p.atx_version,
                        p.eighty_plus,
                        p.connectors.hpwr_16pin.map_or_else(|| "?".to_owned(), |n| n.to_string()),
                        p.connectors.pcie_8pin.map_or_else(|| "?".to_owned(), |n| n.to_string()),
                        p.inlet
                    ),
                )
            })
            .collect(),
        PartKind::Cooler => {
            c.coolers.iter().map(|p| r(p, format!("{:?}, {}", p.cooler_type, p.sockets.join("/")))).collect()
        }
        PartKind::Case => {
            c.cases.iter().map(|p| r(p, format!("{:?}, {} slots", p.airflow, p.expansion_slots))).collect()
        }
        PartKind::Memory => c
            .memory
            .iter()
            .map(|p| r(p, format!("{}, {}x{} GB, {} MT/s", p.memory_type, p.modules, p.module_gb, p.speed_mt_s)))
            .collect(),
        PartKind::Storage => c
            .storage
            .iter()
            .map(|p| r(p, format!("{} GB, PCIe {}.0 x{}", p.capacity_gb, p.pcie_gen, p.pcie_lanes)))
            .collect(),
        PartKind::Model => c
            .models
            .iter()
            .map(|p| {
                r(
                    p,
                    format!(
                        "{}B params{}, {} layers, {} ctx",
                        p.params_b,
                        p.active_params_b.map_or_else(String::new, |a| format!(" ({a}B active)")),
                        p.layers,
                        p.max_context
                    ),
                )
            })
            .collect(),
    }
}

/// Runs the subcommand.
pub fn run(kind: Option<&str>, format: Format) -> ExitCode {
    let catalog = match load_catalog() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let kinds: Vec<PartKind> = match kind {
        None => PartKind::ALL.to_vec(),
        Some(s) => {
            if let Some(k) = kind_from(s) {
                vec![k]
            } else {
                eprintln!("kraftwerk: unknown kind `{s}`; one of: {}", PartKind::ALL.map(PartKind::plural).join(", "));
                return ExitCode::from(2);
            }
        }
    };
    if format == Format::Json {
        let mut out = serde_json::Map::new();
        for k in &kinds {
            let v = match k {
                PartKind::Gpu => serde_json::to_value(&catalog.gpus),
                PartKind::Cpu => serde_json::to_value(&catalog.cpus),
                PartKind::Motherboard => serde_json::to_value(&catalog.motherboards),
                PartKind::Psu => serde_json::to_value(&catalog.psus),
                PartKind::Cooler => serde_json::to_value(&catalog.coolers),
                PartKind::Case => serde_json::to_value(&catalog.cases),
                PartKind::Memory => serde_json::to_value(&catalog.memory),
                PartKind::Storage => serde_json::to_value(&catalog.storage),
                PartKind::Model => serde_json::to_value(&catalog.models),
            };
            match v {
                Ok(v) => {
                    out.insert(k.plural().to_owned(), v);
                }
                Err(e) => {
                    eprintln!("kraftwerk: cannot encode JSON: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        return print_json(&out);
    }
    for k in kinds {
        let rows = rows(&catalog, k);
        println!("{} ({})", k.plural(), rows.len());
        for (id, name, figures, source) in rows {
            println!("  {id:<34} {name}");
            println!("  {:<34} {figures}", "");
            println!("  {:<34} source: {source}", "");
        }
        println!();
    }
    ExitCode::SUCCESS
}

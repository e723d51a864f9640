//! Converts the throwaway NVML probe's JSON (`shared/fixtures/h200/nvml-*-idle.json`) into a
//! Kraftwerk recording (`tests/fixtures/h200-*-idle.kwrec.json`).
//!
//! ```text
//! cargo run --example convert_h200_fixture -- ../shared/fixtures/h200/nvml-1gpu-idle.json \
//!     tests/fixtures/h200-1gpu-idle.kwrec.json
//! ```
//!
//! `--anonymize IN OUT` copies a Kraftwerk recording with the GPU UUIDs and host name replaced
//! (used for the recordings made on the H200 test machine).
//!
//! The throwaway format marks unsupported values as `{"status": "unsupported", …}` objects;
//! they become `None`. It has no timestamps: samples get `unix_ms` 0 (unknown).

use anyhow::{Context, bail};
use kraftwerk::live::nvml::{ComputeCapability, GpuSample, GpuStatic, NvLinkInfo, Snapshot, SystemInfo};
use kraftwerk::live::reasons::ClockEventReasons;
use kraftwerk::live::record::{MachineInfo, RECORDING_FORMAT, Recording};
use kraftwerk::live::topology::{P2pStatus, PcieAncestor, Topology};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MIB: u64 = 1 << 20;

fn u32_of(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|x| u32::try_from(x).ok())
}

fn string_of(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn mw_to_w(v: &Value) -> Option<f64> {
    v.as_f64().map(|mw| mw / 1000.0)
}

/// `"0x1ff"` → 0x1ff.
fn hex_of(v: &Value) -> Option<u64> {
    let s = v.as_str()?;
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// `"Ok(U32(80587))"` → 80587.
fn field_value(v: &Value) -> Option<u64> {
    let s = v.as_str()?;
    let inner = s.strip_prefix("Ok(")?.strip_suffix(')')?;
    let open = inner.find('(')?;
    inner[open + 1..].strip_suffix(')')?.parse().ok()
}

fn pstate(v: &Value) -> Option<u32> {
    const NAMES: [&str; 16] = [
        "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve",
        "Thirteen", "Fourteen", "Fifteen",
    ];
    let s = v.as_str()?;
    NAMES.iter().position(|n| *n == s).and_then(|p| u32::try_from(p).ok())
}

fn ancestor(v: &Value) -> Option<PcieAncestor> {
    Some(match v.as_str()? {
        "Internal" => PcieAncestor::Internal,
        "Single" => PcieAncestor::Single,
        "Multiple" => PcieAncestor::Multiple,
        "HostBridge" => PcieAncestor::HostBridge,
        "Node" => PcieAncestor::Node,
        "System" => PcieAncestor::System,
        _ => return None,
    })
}

fn convert_static(g: &Value) -> anyhow::Result<GpuStatic> {
    let nvlinks = g["nvlink"]["links"]
        .as_array()
        .map(|links| {
            links
                .iter()
                .filter_map(|l| {
                    let info = NvLinkInfo {
                        link: u32_of(&l["link"])?,
                        active: l["is_active"].as_bool(),
                        version_raw: u32_of(&l["version"]),
                        remote_pci_bus_id: string_of(&l["remote_pci_bus_id"]),
                    };
                    let any = info.active.is_some() || info.version_raw.is_some() || info.remote_pci_bus_id.is_some();
                    any.then_some(info)
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(GpuStatic {
        index: u32_of(&g["index"]).context("GPU without an index")?,
        name: string_of(&g["name"]),
        uuid: string_of(&g["uuid"]),
        pci_bus_id: string_of(&g["pci_info"]["bus_id"]).or_else(|| string_of(&g["pci_bus_id"])),
        pci_device_id: u32_of(&g["pci_info"]["pci_device_id"]),
        pci_subsystem_id: u32_of(&g["pci_info"]["pci_sub_system_id"]),
        architecture: string_of(&g["architecture"]),
        brand: string_of(&g["brand"]),
        board_part_number: string_of(&g["board_part_number"]),
        vbios_version: string_of(&g["vbios_version"]),
        compute_capability: match (
            u32_of(&g["cuda_compute_capability"]["major"]),
            u32_of(&g["cuda_compute_capability"]["minor"]),
        ) {
            (Some(major), Some(minor)) => Some(ComputeCapability { major, minor }),
            _ => None,
        },
        memory_total_mib: g["memory_info_bytes"]["total"].as_u64().map(|b| b / MIB),
        memory_reserved_mib: g["memory_info_bytes"]["reserved"].as_u64().map(|b| b / MIB),
        memory_bus_width_bits: u32_of(&g["memory_bus_width_bits"]),
        cuda_cores: u32_of(&g["num_cores"]),
        temperature_slowdown_c: u32_of(&g["temp_threshold_slowdown_c"]),
        temperature_shutdown_c: u32_of(&g["temp_threshold_shutdown_c"]),
        temperature_gpu_max_c: u32_of(&g["temp_threshold_gpu_max_c"]),
        temperature_memory_max_c: u32_of(&g["temp_threshold_memory_max_c"]),
        power_limit_default_w: mw_to_w(&g["power_management_limit_default_mw"]),
        power_limit_min_w: mw_to_w(&g["power_management_limit_constraints_mw"]["min_limit"]),
        power_limit_max_w: mw_to_w(&g["power_management_limit_constraints_mw"]["max_limit"]),
        power_limit_enforced_w: mw_to_w(&g["enforced_power_limit_mw"]),
        power_limit_w: mw_to_w(&g["power_management_limit_mw"]),
        clock_sm_max_mhz: u32_of(&g["clock_sm_max_mhz"]),
        clock_graphics_max_mhz: u32_of(&g["clock_graphics_max_mhz"]),
        clock_mem_max_mhz: u32_of(&g["clock_mem_max_mhz"]),
        pcie_gen_max: u32_of(&g["pcie_link_gen_max"]),
        pcie_width_max: u32_of(&g["pcie_link_width_max"]),
        ecc_enabled: g["ecc_mode"]["currently_enabled"].as_bool(),
        ecc_pending_enabled: g["ecc_mode"]["pending_enabled"].as_bool(),
        persistence_mode: g["persistence_mode"].as_bool(),
        virtualization_mode: string_of(&g["virtualization_mode"]),
        numa_node: u32_of(&g["numa_node_id"]),
        fan_count: u32_of(&g["num_fans"]),
        clock_event_reasons_supported: hex_of(&g["clock_event_reasons_supported"]["bits"]).map(ClockEventReasons),
        nvlinks,
    })
}

fn convert_sample(position: usize, g: &Value) -> GpuSample {
    let fields = &g["power_instant_and_average_mw_fields"];
    GpuSample {
        gpu: position,
        unix_ms: 0,
        read_us: None,
        memory_used_mib: g["memory_info_bytes"]["used"].as_u64().map(|b| b / MIB),
        temperature_c: u32_of(&g["temperature_gpu_c"]),
        power_avg_w: mw_to_w(&g["power_usage_mw"]),
        power_instant_w: field_value(&fields[0]).map(|mw| mw as f64 / 1000.0),
        energy_j: g["total_energy_consumption_mj"].as_f64().map(|mj| mj / 1000.0),
        clock_sm_mhz: u32_of(&g["clock_sm_current_mhz"]),
        clock_graphics_mhz: u32_of(&g["clock_graphics_current_mhz"]),
        clock_mem_mhz: u32_of(&g["clock_mem_current_mhz"]),
        utilization_gpu_pct: u32_of(&g["utilization_pct"]["gpu"]),
        utilization_mem_pct: u32_of(&g["utilization_pct"]["memory"]),
        performance_state: pstate(&g["performance_state"]),
        pcie_gen: u32_of(&g["pcie_link_gen_current"]),
        pcie_width: u32_of(&g["pcie_link_width_current"]),
        pcie_tx_kb_s: g["pcie_throughput_tx_kbps"].as_u64(),
        pcie_rx_kb_s: g["pcie_throughput_rx_kbps"].as_u64(),
        pcie_tx_bytes_total: None,
        pcie_rx_bytes_total: None,
        pcie_replay_count: g["pcie_replay_counter"].as_u64(),
        ecc_corrected_volatile: g["ecc_corrected_volatile"].as_u64(),
        ecc_uncorrected_volatile: g["ecc_uncorrected_volatile"].as_u64(),
        ecc_corrected_aggregate: g["ecc_corrected_aggregate"].as_u64(),
        ecc_uncorrected_aggregate: g["ecc_uncorrected_aggregate"].as_u64(),
        retired_pages: None,
        retired_pages_pending: None,
        xid_errors: None,
        clock_event_reasons: hex_of(&g["clock_event_reasons_current"]["bits"]).map(ClockEventReasons),
        fan_speed_pct: None,
    }
}

fn convert(input_name: &str, v: &Value) -> anyhow::Result<Recording> {
    let Some(gpus_json) = v["gpus"].as_array() else { bail!("{input_name}: no `gpus` array") };
    let gpus = gpus_json.iter().map(convert_static).collect::<anyhow::Result<Vec<_>>>()?;
    let sys = &v["system"];
    let system = SystemInfo {
        driver_version: string_of(&sys["driver_version"]),
        nvml_version: string_of(&sys["nvml_version"]),
        cuda_driver_version: match (
            sys["cuda_driver_version"]["major"].as_u64(),
            sys["cuda_driver_version"]["minor"].as_u64(),
        ) {
            (Some(a), Some(b)) => Some(format!("{a}.{b}")),
            _ => None,
        },
        gpu_count: u32_of(&sys["device_count"]).unwrap_or(0),
    };
    // Pairs in the throwaway format name GPUs by NVML index; positions equal indices here.
    let pair_json = |a: usize, b: usize| -> Option<&Value> {
        v["topology"]
            .as_array()?
            .iter()
            .find(|p| p["gpu_a"].as_u64() == Some(a as u64) && p["gpu_b"].as_u64() == Some(b as u64))
    };
    let topology = Topology::derive(
        &gpus,
        |a, b| pair_json(a, b).and_then(|p| ancestor(&p["common_ancestor"])),
        |a, b| {
            pair_json(a, b).map_or_else(P2pStatus::default, |p| P2pStatus {
                read: string_of(&p["p2p_read"]),
                write: string_of(&p["p2p_write"]),
                nvlink: string_of(&p["p2p_nvlink"]),
                atomics: string_of(&p["p2p_atomics"]),
            })
        },
    );
    let samples = gpus_json.iter().enumerate().map(|(i, g)| convert_sample(i, g)).collect();
    let unsupported: Vec<String> = gpus_json
        .iter()
        .flat_map(|g| g["_unsupported"].as_array().into_iter().flatten())
        .filter_map(|u| u.as_str().map(str::to_owned))
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    Ok(Recording {
        format: RECORDING_FORMAT,
        kind: "snapshot".to_owned(),
        created_unix_ms: None,
        source: format!(
            "converted from shared/fixtures/h200/{input_name} (throwaway NVML probe, measured \
             2026-11-29) by examples/convert_h200_fixture.rs"
        ),
        notes: Some(format!(
            "Idle NVIDIA H200 SXM in a passthrough VM, {} GPU(s). Identifiers were replaced in the \
             source. The time of the reading is unknown (unix_ms 0). NVML answered NotSupported for: {}.",
            gpus.len(),
            unsupported.join(", ")
        )),
        machine: MachineInfo { os: Some("linux".to_owned()), ..MachineInfo::default() },
        system,
        gpus,
        topology,
        interval_ms: None,
        snapshots: vec![Snapshot { unix_ms: 0, elapsed_ms: 0, gpus: samples }],
        extra: BTreeMap::new(),
    })
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, input, output] = args.as_slice()
        && flag == "--anonymize"
    {
        let mut r = Recording::load(Path::new(input))?;
        r.anonymize();
        r.save(Path::new(output)).with_context(|| format!("writing {output}"))?;
        println!("{output}: anonymized copy of {input}");
        return Ok(());
    }
    let [input, output] = args.as_slice() else {
        bail!(
            "usage: convert_h200_fixture INPUT.json OUTPUT.kwrec.json\n       \
             convert_h200_fixture --anonymize IN.kwrec.json OUT.kwrec.json"
        );
    };
    let text = std::fs::read_to_string(input).with_context(|| format!("reading {input}"))?;
    let v: Value = serde_json::from_str(&text).with_context(|| format!("parsing {input}"))?;
    let name = Path::new(input).file_name().map_or_else(|| input.clone(), |n| n.to_string_lossy().into_owned());
    let recording = convert(&name, &v)?;
    recording.save(Path::new(output)).with_context(|| format!("writing {output}"))?;
    println!("{output}: {} GPU(s), {} snapshot(s)", recording.gpus.len(), recording.snapshots.len());
    Ok(())
}

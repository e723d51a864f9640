//! One GPU as a flat, sorted map of named fields: the JSON of `kraftwerk gpus --format json`.
//!
//! Where `nvidia-smi --query-gpu` has a field (`nvidia-smi --help-query-gpu`), its name and
//! unit are used: memory in MiB, power in W, clocks in MHz, utilization in %, temperature in
//! °C, enabled states as `"Enabled"`/`"Disabled"`, reasons as `"Active"`/`"Not Active"`, the
//! reason mask as `0x…` hex. Fields `nvidia-smi` lacks carry their unit in the name
//! (`temperature.slowdown_c`, `pcie.tx_kb_s`). `null` = NVML did not answer (unsupported).

#![allow(
    clippy::doc_markdown,
    reason = "PCIe, NVLink and NVSwitch are product names, not code; a clippy.toml doc-valid-idents would be better"
)]

use super::nvml::{GpuSample, GpuStatic};
use super::reasons::{ClockEventReasons, KNOWN_REASONS};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn enabled(b: Option<bool>) -> Value {
    match b {
        Some(true) => json!("Enabled"),
        Some(false) => json!("Disabled"),
        None => Value::Null,
    }
}

fn opt<T: Into<Value>>(v: Option<T>) -> Value {
    v.map_or(Value::Null, Into::into)
}

/// The named fields of one GPU: static facts, and the sample's values when there is one.
pub fn smi_fields(gpu: &GpuStatic, sample: Option<&GpuSample>) -> BTreeMap<String, Value> {
    let mut fields: BTreeMap<String, Value> = BTreeMap::new();
    let mut put = |key: &str, value: Value| {
        fields.insert(key.to_owned(), value);
    };
    // Static facts.
    put("index", json!(gpu.index));
    put("name", opt(gpu.name.clone()));
    put("uuid", opt(gpu.uuid.clone()));
    put("pci.bus_id", opt(gpu.pci_bus_id.clone()));
    put("pci.device_id", opt(gpu.pci_device_id.map(|d| format!("0x{d:08X}"))));
    put("pci.sub_device_id", opt(gpu.pci_subsystem_id.map(|d| format!("0x{d:08X}"))));
    put("vbios_version", opt(gpu.vbios_version.clone()));
    put("compute_cap", opt(gpu.compute_capability.map(|c| c.to_string())));
    put("architecture", opt(gpu.architecture.clone()));
    put("brand", opt(gpu.brand.clone()));
    put("board_part_number", opt(gpu.board_part_number.clone()));
    put("memory.total", opt(gpu.memory_total_mib));
    put("memory.reserved", opt(gpu.memory_reserved_mib));
    put("memory.bus_width_bits", opt(gpu.memory_bus_width_bits));
    put("cuda_cores", opt(gpu.cuda_cores));
    put("temperature.slowdown_c", opt(gpu.temperature_slowdown_c));
    put("temperature.shutdown_c", opt(gpu.temperature_shutdown_c));
    put("temperature.gpu_max_c", opt(gpu.temperature_gpu_max_c));
    put("temperature.memory_max_c", opt(gpu.temperature_memory_max_c));
    put("power.limit", opt(gpu.power_limit_w));
    put("enforced.power.limit", opt(gpu.power_limit_enforced_w));
    put("power.default_limit", opt(gpu.power_limit_default_w));
    put("power.min_limit", opt(gpu.power_limit_min_w));
    put("power.max_limit", opt(gpu.power_limit_max_w));
    put("clocks.max.sm", opt(gpu.clock_sm_max_mhz));
    put("clocks.max.graphics", opt(gpu.clock_graphics_max_mhz));
    put("clocks.max.memory", opt(gpu.clock_mem_max_mhz));
    put("pcie.link.gen.max", opt(gpu.pcie_gen_max));
    put("pcie.link.width.max", opt(gpu.pcie_width_max));
    put("ecc.mode.current", enabled(gpu.ecc_enabled));
    put("ecc.mode.pending", enabled(gpu.ecc_pending_enabled));
    put("persistence_mode", enabled(gpu.persistence_mode));
    put("virtualization_mode", opt(gpu.virtualization_mode.clone()));
    put("numa_node", opt(gpu.numa_node));
    put("fan.count", opt(gpu.fan_count));
    put("clocks_event_reasons.supported", opt(gpu.clock_event_reasons_supported.map(ClockEventReasons::smi_hex)));
    put("nvlink.active_links", opt(gpu.nvlinks_active()));
    put("nvlink.version", opt(gpu.nvlink_version()));

    let Some(s) = sample else { return fields };
    put("timestamp_unix_ms", json!(s.unix_ms));
    put("sample.read_us", opt(s.read_us));
    put("memory.used", opt(s.memory_used_mib));
    let free = match (gpu.memory_total_mib, gpu.memory_reserved_mib, s.memory_used_mib) {
        (Some(t), r, Some(u)) => Some(t.saturating_sub(r.unwrap_or(0)).saturating_sub(u)),
        _ => None,
    };
    put("memory.free", opt(free));
    put("temperature.gpu", opt(s.temperature_c));
    put("power.draw", opt(s.power_avg_w));
    put("power.draw.average", opt(s.power_avg_w));
    put("power.draw.instant", opt(s.power_instant_w));
    put("power.fraction_of_limit", opt(s.power_fraction_of_limit(gpu)));
    put("energy.total_j", opt(s.energy_j));
    put("clocks.sm", opt(s.clock_sm_mhz));
    put("clocks.gr", opt(s.clock_graphics_mhz));
    put("clocks.mem", opt(s.clock_mem_mhz));
    put("utilization.gpu", opt(s.utilization_gpu_pct));
    put("utilization.memory", opt(s.utilization_mem_pct));
    put("pstate", opt(s.performance_state.map(|p| format!("P{p}"))));
    put("pcie.link.gen.current", opt(s.pcie_gen));
    put("pcie.link.width.current", opt(s.pcie_width));
    put("pcie.link.below_max", opt(s.link_below_max(gpu)));
    put("pcie.tx_kb_s", opt(s.pcie_tx_kb_s));
    put("pcie.rx_kb_s", opt(s.pcie_rx_kb_s));
    put("pcie.replay_count", opt(s.pcie_replay_count));
    put("ecc.errors.corrected.volatile.total", opt(s.ecc_corrected_volatile));
    put("ecc.errors.uncorrected.volatile.total", opt(s.ecc_uncorrected_volatile));
    put("ecc.errors.corrected.aggregate.total", opt(s.ecc_corrected_aggregate));
    put("ecc.errors.uncorrected.aggregate.total", opt(s.ecc_uncorrected_aggregate));
    put("fan.speed", opt(s.fan_speed_pct.as_ref().and_then(|f| f.first().copied())));
    put("fan.speeds_pct", opt(s.fan_speed_pct.clone()));
    if let Some(r) = s.clock_event_reasons {
        put("clocks_event_reasons.active", json!(r.smi_hex()));
        for reason in KNOWN_REASONS {
            let active = if r.bits() & reason.bit != 0 { "Active" } else { "Not Active" };
            put(reason.smi_field, json!(active));
        }
        put("clocks_event_reasons.names", json!(r.names()));
        let faults: Vec<&str> = r.faults().iter().map(|f| f.name).collect();
        put("clocks_event_reasons.faults", json!(faults));
    } else {
        put("clocks_event_reasons.active", Value::Null);
        for reason in KNOWN_REASONS {
            put(reason.smi_field, Value::Null);
        }
        put("clocks_event_reasons.names", Value::Null);
        put("clocks_event_reasons.faults", Value::Null);
    }
    fields
}

//! One-line summaries and per-figure provenance of every part type ([`Part`]), for the
//! `catalog` command, the catalog tab and the audit. Unknown figures print `unknown`.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::{MaybeProvenance, Part};

/// `Some(x)` as `x` with `unit`, `None` as `unknown`.
pub fn known<T: std::fmt::Display>(v: Option<T>, unit: &str) -> String {
    v.map_or_else(|| "unknown".to_owned(), |x| format!("{x}{unit}"))
}

impl Part for Gpu {
    fn summary(&self) -> String {
        format!(
            "{:.0} GiB {}, {:.0} GB/s, {:.0} W, PCIe {}.0 x{}, {} slot(s), bf16 {}",
            self.memory_gib,
            self.memory_type,
            self.memory_bandwidth_gb_s,
            self.board_power_w,
            self.pcie_gen,
            self.pcie_lanes,
            self.width_slots,
            match (self.peak.bf16, self.peak.absent.bf16) {
                (Some(t), _) => format!("{t} TFLOP/s"),
                (None, true) => "none (no BF16 tensor format)".to_owned(),
                (None, false) => "unknown".to_owned(),
            }
        )
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let known = match figure {
            "length_mm" => self.length_mm.is_some(),
            "peak.bf16" => self.peak.bf16.is_some(),
            "peak.fp16" => self.peak.fp16.is_some(),
            "ecc" => self.ecc.is_some(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for GpuCard {
    fn summary(&self) -> String {
        let power = self.power_inputs.map_or_else(
            || "connectors unknown".to_owned(),
            |p| format!("{}x 16-pin, {}x 8-pin, {}x 6-pin", p.hpwr_16pin, p.pcie_8pin, p.pcie_6pin),
        );
        format!(
            "chip {}, {} long, {} slot(s), {}, {}, {}",
            self.chip,
            known(self.length_mm, " mm"),
            known(self.width_slots, ""),
            power,
            self.cooler.map_or_else(|| "cooler unknown".to_owned(), |c| format!("{c:?}")),
            known(self.board_power_w, " W")
        )
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let known = match figure {
            "length_mm" => self.length_mm.is_some(),
            "width_slots" => self.width_slots.is_some(),
            "power_inputs" => self.power_inputs.is_some(),
            "cooler" => self.cooler.is_some(),
            "board_power_w" => self.board_power_w.is_some(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for Cpu {
    fn summary(&self) -> String {
        format!(
            "{} {}C, {:.0} W, {} Gen5 + {} Gen4 + {} Gen3 lanes, {} ch",
            self.socket,
            self.cores,
            self.tdp_w,
            self.pcie_lanes.gen5,
            self.pcie_lanes.gen4,
            self.pcie_lanes.gen3,
            self.memory_channels
        )
    }
}

impl Part for Motherboard {
    fn summary(&self) -> String {
        let slots = if self.slot_layout_known() {
            let s: Vec<String> = self
                .pcie_slots
                .iter()
                .map(|s| {
                    let at = s.position.map_or_else(|| s.name.clone(), |p| p.to_string());
                    format!("{at}:x{}/G{}", s.electrical_lanes, s.pcie_gen)
                })
                .collect();
            format!("slots {}", s.join(" "))
        } else {
            let s: Vec<String> = self
                .slot_summary
                .iter()
                .map(|s| {
                    format!("{}x x{}{}", s.quantity, s.lanes, s.pcie_gen.map_or_else(String::new, |g| format!("/G{g}")))
                })
                .collect();
            format!("{} (slot layout unknown)", s.join(" "))
        };
        format!("{} {} {}, {}, EPS {}", self.socket, self.chipset, self.form_factor, slots, known(self.eps_8pin, ""))
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let known = match figure {
            "eps_8pin" => self.eps_8pin.is_some(),
            "max_memory_gb" => self.max_memory_gb.is_some(),
            "pcie_slots" => self.slot_layout_known(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for Psu {
    fn summary(&self) -> String {
        format!(
            "{:.0} W, {:?}, {}, 12V-2x6: {}, PCIe 8-pin: {}, EPS 8-pin: {}, {:?}",
            self.rated_w,
            self.atx_version,
            self.eighty_plus.label(),
            known(self.connectors.hpwr_16pin, ""),
            known(self.connectors.pcie_8pin, ""),
            known(self.connectors.eps_8pin, ""),
            self.inlet
        )
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let c = &self.connectors;
        let known = match figure {
            "connectors.hpwr_16pin" => c.hpwr_16pin.is_some(),
            "connectors.pcie_8pin" => c.pcie_8pin.is_some(),
            "connectors.eps_8pin" => c.eps_8pin.is_some(),
            "connectors" => c.hpwr_16pin.is_some() || c.pcie_8pin.is_some() || c.eps_8pin.is_some(),
            "atx_version" => self.atx_version != AtxVersion::Unknown,
            "length_mm" => self.length_mm.is_some(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for Cooler {
    fn summary(&self) -> String {
        format!(
            "{:?}, {} high, radiator {}, {}",
            self.cooler_type,
            known(self.height_mm, " mm"),
            known(self.radiator_mm, " mm"),
            self.sockets.join("/")
        )
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let known = match figure {
            "height_mm" => self.height_mm.is_some(),
            "radiator_mm" => self.radiator_mm.is_some(),
            "rated_tdp_w" => self.rated_tdp_w.is_some(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for Case {
    fn summary(&self) -> String {
        let ff: Vec<String> = self.form_factors.iter().map(ToString::to_string).collect();
        format!(
            "{:?}, {} slots, GPU <= {}, cooler <= {}, {}",
            self.airflow,
            self.expansion_slots,
            known(self.max_gpu_length_mm, " mm"),
            known(self.max_cooler_height_mm, " mm"),
            ff.join("/")
        )
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let known = match figure {
            "max_gpu_length_mm" => self.max_gpu_length_mm.is_some(),
            "max_cooler_height_mm" => self.max_cooler_height_mm.is_some(),
            "max_radiator_mm" => self.max_radiator_mm.is_some(),
            "max_heat_w" => self.max_heat_w.is_some(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for MemoryKit {
    fn summary(&self) -> String {
        format!(
            "{}, {}x{} GB, {} MT/s, CL {}, {}",
            self.memory_type,
            self.modules,
            self.module_gb,
            self.speed_mt_s,
            known(self.cas_latency_cycles, ""),
            known(self.voltage_v, " V")
        )
    }
    fn provenance_of(&self, figure: &str) -> Provenance {
        let known = match figure {
            "cas_latency_cycles" => self.cas_latency_cycles.is_some(),
            "voltage_v" => self.voltage_v.is_some(),
            "power_w_per_module" => self.power_w_per_module.is_some(),
            "price_usd" => self.price_usd.is_some(),
            _ => true,
        };
        self.provenance.of_known(figure, known)
    }
}

impl Part for Storage {
    fn summary(&self) -> String {
        format!("{} GB, PCIe {}.0 x{}", self.capacity_gb, self.pcie_gen, self.pcie_lanes)
    }
}

impl Part for LlmModel {
    fn summary(&self) -> String {
        format!(
            "{}B params{}, {} layers, {} ctx",
            self.params_b,
            self.active_params_b.map_or_else(String::new, |a| format!(" ({a}B active)")),
            self.layers,
            self.max_context
        )
    }
}

impl MaybeProvenance for Gpu {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for GpuCard {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for Motherboard {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for Psu {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for Cooler {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for Case {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for Cpu {}
impl MaybeProvenance for MemoryKit {
    fn provenance_mut(&mut self) -> Option<&mut std::sync::Arc<Sources>> {
        Some(&mut self.provenance)
    }
}
impl MaybeProvenance for Storage {}
impl MaybeProvenance for LlmModel {}

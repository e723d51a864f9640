//! GPU thermal risk: each card's cooler type against the case's airflow, the gap to the next
//! card in the slot order, and the room's ambient temperature.

use crate::rig::Resolved;
use kraftwerk_catalog::GpuCooler;
use serde::Serialize;

/// Thermal risk of one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThermalRisk {
    /// Cooled as designed.
    Low,
    /// Works, runs hot or loud (a one-slot gap for open-air cards, warm room).
    Medium,
    /// Will throttle or overheat (no gap above an open-air card, a passive card outside a
    /// server chassis).
    High,
    /// Not known: an open-air card among several GPUs whose slot positions are not known (a
    /// board wired without positions, or cards not placed), so the gap to its neighbour is not.
    Unknown,
}

/// Thermal assessment of one GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuThermal {
    /// Build index.
    pub gpu: usize,
    /// Risk.
    pub risk: ThermalRisk,
    /// Why, in words.
    pub reason: String,
}

/// Per-GPU thermal risk from its cooler type, the gap to the next card above it in the slot
/// order, the case's airflow, and the ambient temperature (> 30 °C raises the risk one step).
/// Passive cards need ducted server airflow (NVIDIA A100 PCIe product brief); open-air cards
/// need at least one empty slot between them (Zotac spacing recommendations); blowers stack.
pub fn gpu_thermal(r: &Resolved<'_>) -> Vec<GpuThermal> {
    use kraftwerk_catalog::Airflow;
    let b = r.build;
    let airflow = r.case.map(|c| c.airflow);
    let placed: Vec<(usize, u8, u8)> = b
        .gpus
        .iter()
        .zip(&r.gpus)
        .enumerate()
        .filter_map(|(i, (p, g))| {
            let g = (*g)?;
            if p.riser.is_some() {
                return None;
            }
            Some((i, p.position_on(r.board)?, g.width_slots))
        })
        .collect();
    // Cards on the board (not on risers) whose position is not known: their neighbours' gaps
    // are not known either.
    let unplaced = b
        .gpus
        .iter()
        .zip(&r.gpus)
        .filter(|(p, g)| g.is_some() && p.riser.is_none() && p.position_on(r.board).is_none())
        .count();
    let on_board = b.gpus.iter().zip(&r.gpus).filter(|(p, g)| g.is_some() && p.riser.is_none()).count();
    let mut out = Vec::new();
    for (i, (p, g)) in b.gpus.iter().zip(&r.gpus).enumerate() {
        let Some(g) = g else { continue };
        let (mut risk, mut reason) = match g.cooler {
            GpuCooler::Passive if airflow != Some(Airflow::Server) => {
                (ThermalRisk::High, "passive card outside a server chassis with ducted airflow".to_owned())
            }
            GpuCooler::Passive => (ThermalRisk::Low, "passive card in server airflow".to_owned()),
            GpuCooler::System | GpuCooler::Liquid => (ThermalRisk::Low, "cooled by the system / liquid".to_owned()),
            GpuCooler::Blower => (ThermalRisk::Low, "blower card, exhausts out of the case".to_owned()),
            GpuCooler::OpenAir if p.riser.is_some() => {
                (ThermalRisk::Low, "open-air card on a riser, mounted away from the other cards".to_owned())
            }
            GpuCooler::OpenAir if unplaced > 0 && on_board > 1 => (
                ThermalRisk::Unknown,
                format!(
                    "open-air card beside {} other card{} whose slot positions are not known: the gap to the next card is not known",
                    on_board - 1,
                    if on_board == 2 { "" } else { "s" }
                ),
            ),
            GpuCooler::OpenAir => {
                // The card whose intake faces this card's backplate: the next placed card below
                // (higher position) — open-air fans face away from the CPU side.
                let gap = p.position_on(r.board).and_then(|s| {
                    placed
                        .iter()
                        .filter(|(j, pos, _)| *j != i && *pos > s)
                        .map(|(_, pos, _)| i32::from(*pos) - i32::from(s) - i32::from(g.width_slots))
                        .min()
                });
                match gap {
                    Some(gap) if gap <= 0 => {
                        (ThermalRisk::High, "open-air card with no gap to the next card".to_owned())
                    }
                    Some(1) => (ThermalRisk::Medium, "open-air card with a one-slot gap to the next card".to_owned()),
                    _ if airflow == Some(Airflow::Server) => (
                        ThermalRisk::Medium,
                        "open-air card in a server chassis: its fans fight the ducted airflow".to_owned(),
                    ),
                    _ => (ThermalRisk::Low, "open-air card with room to breathe".to_owned()),
                }
            }
        };
        if b.site.ambient_c > 30.0 && risk < ThermalRisk::High && risk != ThermalRisk::Unknown {
            risk = if risk == ThermalRisk::Low { ThermalRisk::Medium } else { ThermalRisk::High };
            reason = format!("{reason}; ambient {:.0} °C", b.site.ambient_c);
        }
        out.push(GpuThermal { gpu: i, risk, reason });
    }
    out
}

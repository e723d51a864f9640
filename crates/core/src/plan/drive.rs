//! The NVMe drive a planned machine buys for its model files: the cheapest priced M.2 drive that
//! holds the weights at the plan's precision and an operating system, in an M.2 socket that
//! takes no lanes from the GPUs' slots. A plan without it left the drive out of its total (a
//! new user's trial: `storage: []` in every saved plan, while gpt-oss-120b's GGUF is 61 GiB).

use kraftwerk_catalog::{Catalog, LaneSource, Motherboard};

use crate::rig::{GpuPlacement, StorageUse};

/// Disk an operating system takes beside the model files, GB: Ubuntu Desktop's stated
/// requirement, "25 GB of storage space" (https://ubuntu.com/download/desktop, system
/// requirements). The planner's drive holds this plus the weights; datasets, checkpoints and a
/// second quantization are the user's to add.
pub const OS_DISK_GB: f64 = 25.0;

/// Share of a filesystem's blocks ext4 keeps for root by default, which the user's files do not
/// get: mke2fs's `-m reserved-blocks-percentage`, "The default percentage is 5%" (mke2fs(8),
/// e2fsprogs). The drive holds the weights and the OS within the rest.
pub const FS_RESERVED_FRACTION: f64 = 0.05;

/// The drive for a machine whose model weights take `weights_gib` (GiB) on disk: the cheapest
/// priced drive of `catalog` in an M.2 form factor whose capacity (decimal GB), less
/// [`FS_RESERVED_FRACTION`], holds them and [`OS_DISK_GB`] (ties: the smaller, then by id), placed by [`socket_for`] on `board`. `None`
/// when no priced drive is large enough (the plan's cost then names no drive).
pub fn drive_for(
    catalog: &Catalog,
    weights_gib: f64,
    board: Option<&Motherboard>,
    gpus: &[GpuPlacement],
) -> Option<StorageUse> {
    let need_gb = (weights_gib * crate::estimate::llm::GIB / 1e9 + OS_DISK_GB) / (1.0 - FS_RESERVED_FRACTION);
    let d = catalog
        .storage
        .iter()
        .filter(|d| d.form_factor.starts_with("M.2") && f64::from(d.capacity_gb) >= need_gb)
        .filter_map(|d| d.price_usd.filter(|p| p.is_finite() && *p > 0.0).map(|p| (d, p)))
        .min_by(|(a, pa), (b, pb)| pa.total_cmp(pb).then(a.capacity_gb.cmp(&b.capacity_gb)).then(a.id.cmp(&b.id)))?
        .0;
    Some(StorageUse { drive: d.id.clone(), m2_slot: board.and_then(|b| socket_for(b, gpus)) })
}

/// The board's M.2 socket for the drive: one whose use narrows or disables no slot holding a
/// GPU (the slots' lane-sharing rules) and which no GPU slot in use disables, a chipset socket
/// before a CPU one (it takes none of the CPU lanes the GPUs use), then in the board's order.
/// `None` when the board names no M.2 socket (an imported board lists their interfaces only:
/// the drive goes in one the catalog does not name) or none is free of the GPUs' lanes.
pub fn socket_for(board: &Motherboard, gpus: &[GpuPlacement]) -> Option<String> {
    let used: Vec<&str> = gpus.iter().filter_map(|g| g.slot_in(board)).map(|s| s.name.as_str()).collect();
    let narrows_a_gpu = |m2: &str| {
        board.pcie_slots.iter().any(|s| used.contains(&s.name.as_str()) && s.shares.iter().any(|r| r.when_used == m2))
    };
    let disabled =
        |m: &kraftwerk_catalog::M2Slot| m.shares.iter().any(|r| r.lanes == 0 && used.contains(&r.when_used.as_str()));
    board
        .m2_slots
        .iter()
        .filter(|m| !narrows_a_gpu(&m.name) && !disabled(m))
        .min_by_key(|m| u8::from(m.lane_source == LaneSource::Cpu))
        .map(|m| m.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::GpuPlacement;

    fn catalog() -> Catalog {
        kraftwerk_catalog::builtin().expect("catalog")
    }

    fn gpu_in(slot: &str) -> GpuPlacement {
        GpuPlacement {
            gpu: "nvidia-geforce-rtx-4090".into(),
            slot: None,
            slot_name: Some(slot.into()),
            power_limit_w: None,
            riser: None,
            psu: 0,
            cable: None,
        }
    }

    /// The cheapest priced M.2 drive that holds the weights and the OS: gpt-oss-120b's 61 GiB
    /// need 90.5 GB, a 1 TB drive; DeepSeek-R1 in BF16 (1,250 GiB) 1,367 GB, at least 2 TB;
    /// nothing priced holds 10 TB.
    #[test]
    fn the_cheapest_priced_drive_that_holds_the_weights_and_the_os() {
        let c = catalog();
        let pick =
            |gib: f64| drive_for(&c, gib, None, &[]).and_then(|u| c.storage.iter().find(|d| d.id == u.drive).cloned());
        let small = pick(61.0).expect("a drive for 61 GiB");
        let big = pick(1250.0).expect("a drive for 1,250 GiB");
        let need = |gib: f64| (gib * crate::estimate::llm::GIB / 1e9 + OS_DISK_GB) / (1.0 - FS_RESERVED_FRACTION);
        assert!(f64::from(small.capacity_gb) >= need(61.0));
        assert!(f64::from(big.capacity_gb) >= need(1250.0), "{}", big.id);
        for d in &c.storage {
            let holds = f64::from(d.capacity_gb) >= need(61.0);
            if let (true, Some(p), Some(mine)) =
                (holds && d.form_factor.starts_with("M.2"), d.price_usd, small.price_usd)
            {
                assert!(p >= mine, "{} at ${p} is cheaper than {} at ${mine}", d.id, small.id);
            }
        }
        assert!(pick(10_000.0).is_none(), "no priced drive holds 10 TB");
    }

    /// On the ProArt X870E-CREATOR, M.2_2 narrows both CPU slots (the manual's sharing table,
    /// `catalog/motherboards.ron`): with GPUs there the drive goes to a chipset socket (M.2_3),
    /// never M.2_2; a board that names no socket gives none.
    #[test]
    fn the_socket_takes_no_lanes_from_the_gpus() {
        let c = catalog();
        let b = c.motherboard("asus-proart-x870e-creator-wifi").expect("board");
        let gpus = [gpu_in("PCIEX16(G5)_1"), gpu_in("PCIEX16(G5)_2")];
        assert_eq!(socket_for(b, &gpus).as_deref(), Some("M.2_3"));
        let mut narrowing_only = b.clone();
        narrowing_only.m2_slots.retain(|m| m.name == "M.2_2");
        assert_eq!(socket_for(&narrowing_only, &gpus), None, "M.2_2 would take x8 from the first GPU");
        assert_eq!(socket_for(&narrowing_only, &[]).as_deref(), Some("M.2_2"), "free without GPUs there");
        let mut unnamed = b.clone();
        unnamed.m2_slots.clear();
        assert_eq!(socket_for(&unnamed, &gpus), None);
    }
}

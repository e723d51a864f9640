//! The chipset's link to the CPU, per chipset: what every chipset-wired slot, M.2 socket, USB
//! controller and NIC of a board share. A fact about the chipset, not the board, so board
//! wiring files never repeat it.
//!
//! Each figure carries the source it was read from. AMD's and Intel's own chipset pages could
//! not be read where this table was written (no network there), so the sources are the
//! published reviews and platform articles named per row; a chipset no source read here gives
//! is absent from the table ([`chipset_uplink`] answers `None`: unknown).

/// A chipset's link to the CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipsetUplink {
    /// Chipset names this row covers, as the catalog writes `Motherboard::chipset`.
    pub chipsets: &'static [&'static str],
    /// PCIe generation of the link (DMI 4.0 runs at PCIe 4.0 rates, DMI 3.0 at PCIe 3.0).
    pub pcie_gen: u8,
    /// Lanes of the link.
    pub lanes: u8,
    /// The link in the vendor's words (`PCIe 4.0 x4`, `DMI 4.0 x8`).
    pub name: &'static str,
    /// Where the figure was read.
    pub source: &'static str,
}

/// AM5 600/800-series chipsets (one or two Promontory 21 chips; the second hangs off the
/// first, so the whole chipset still shares one x4 link).
const AM5_SOURCE: &str = "AMD AM5 platform: 28 CPU lanes, 4 of them the chipset link run at PCIe 4.0 x4 (TechPowerUp, AMD Zen 4 and socket AM5 explained, https://www.techpowerup.com/295394/amd-zen-4-socket-am5-explained-pcie-lanes-chipsets-connectivity); X670/X670E daisy-chain two Promontory 21 chips behind that one x4 link (AnandTech X670 overview, via einfoldtech.com/?p=10806); 800-series uses the same Promontory 21 silicon";

/// The table. Only chipsets whose uplink a source read here gives.
pub(crate) const CHIPSET_UPLINKS: &[ChipsetUplink] = &[
    ChipsetUplink {
        chipsets: &["X670E", "X670", "B650E", "B650", "X870E", "X870", "B850", "B840", "A620"],
        pcie_gen: 4,
        lanes: 4,
        name: "PCIe 4.0 x4",
        source: AM5_SOURCE,
    },
    ChipsetUplink {
        chipsets: &["X570"],
        pcie_gen: 4,
        lanes: 4,
        name: "PCIe 4.0 x4",
        source: "X570: CPU-to-chipset link PCIe 4.0 x4, B550: PCIe 3.0 x4 (AMD B550/X570 chipset specifications as tabled in https://www.thefpsreview.com/2019/09/24/here-is-how-amds-b550-chipset-differs-from-x570/ and https://blog.betasimracing.com/b550-vs-x570)",
    },
    ChipsetUplink {
        chipsets: &["B550"],
        pcie_gen: 3,
        lanes: 4,
        name: "PCIe 3.0 x4",
        source: "B550: CPU-to-chipset link PCIe 3.0 x4 (https://www.thefpsreview.com/2019/09/24/here-is-how-amds-b550-chipset-differs-from-x570/: 'communicates with the Ryzen processor via four PCI-E 3.0 lines')",
    },
    ChipsetUplink {
        chipsets: &["Z690", "Z790", "H670", "H770"],
        pcie_gen: 4,
        lanes: 8,
        name: "DMI 4.0 x8",
        source: "Z690: PCIe 4.0 x8 DMI link (AnandTech Intel Z690 motherboard overview, via https://www.mbreview.com/news/motherboard-review-database/8688/intel-z690-motherboard-overview-ddr5-anandtech/); Z790/H770 DMI PCIe 4.0 x8 (Hardwareluxx MSI MAG B760 Tomahawk review, chipset table, https://hardwareluxx.de/index.php/artikel/hardware/mainboards/60259-msi-mag-b760-tomahawk-wifi-im-test.html?start=1)",
    },
    ChipsetUplink {
        chipsets: &["B760"],
        pcie_gen: 4,
        lanes: 4,
        name: "DMI 4.0 x4",
        source: "B760: DMI at PCIe 4.0 x4, half of Z790's x8 (Hardwareluxx MSI MAG B760 Tomahawk review, chipset table, https://hardwareluxx.de/index.php/artikel/hardware/mainboards/60259-msi-mag-b760-tomahawk-wifi-im-test.html?start=1)",
    },
    ChipsetUplink {
        chipsets: &["Z890"],
        pcie_gen: 4,
        lanes: 8,
        name: "DMI 4.0 x8",
        source: "Z890: 'The processor connects to the Z890 chipset over a DMI 4.0 x8 chipset bus' (TechPowerUp Intel Core Ultra Arrow Lake preview, https://techpowerup.com/forums/threads/intel-core-ultra-arrow-lake-preview.327514/page-5)",
    },
    ChipsetUplink {
        chipsets: &["TRX40"],
        pcie_gen: 4,
        lanes: 8,
        name: "PCIe 4.0 x8",
        source: "TRX40: PCIe 4.0 x8 link between CPU and chipset (AnandTech TRX40 motherboard overview, 2019-11-28, via http://www.awof.org/the-amd-trx40-motherboard-overview-.html; Hardwareluxx MSI Creator TRX40 review, https://hardwareluxx.de/index.php/artikel/hardware/mainboards/51678-msi-creator-trx40-im-test-bis-auf-thunderbolt-luxurioes-unterwegs.html?start=1)",
    },
    ChipsetUplink {
        chipsets: &["X399"],
        pcie_gen: 3,
        lanes: 4,
        name: "PCIe 3.0 x4",
        source: "X399: PCIe 3.0 x4 chipset link, a quarter of TRX40's (Hardwareluxx MSI Creator TRX40 review, https://hardwareluxx.de/index.php/artikel/hardware/mainboards/51678-msi-creator-trx40-im-test-bis-auf-thunderbolt-luxurioes-unterwegs.html?start=1)",
    },
    ChipsetUplink {
        chipsets: &["C621", "C622", "C624", "C626", "C627", "C628"],
        pcie_gen: 3,
        lanes: 4,
        name: "DMI 3.0 x4",
        source: "Intel C620 (Lewisburg) PCH: DMI at PCIe x4 Gen3, 8 GT/s (https://sudonull.com/post/28451-Additional-Uplinks-in-Intel-C620-System-Logic-Architecture); some C62x SKUs add PCIe uplinks for QuickAssist, not for slots",
    },
];

/// The uplink of `chipset` (case-insensitive), if a source gives it; `None` = unknown (WRX80,
/// TRX50, WRX90, W790, C741 and older chipsets are not in the table: no source read here).
pub fn chipset_uplink(chipset: &str) -> Option<&'static ChipsetUplink> {
    let c = chipset.trim();
    CHIPSET_UPLINKS.iter().find(|u| u.chipsets.iter().any(|n| n.eq_ignore_ascii_case(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_chipsets() {
        assert_eq!(chipset_uplink("x870e").map(|u| (u.pcie_gen, u.lanes)), Some((4, 4)));
        assert_eq!(chipset_uplink("B550").map(|u| (u.pcie_gen, u.lanes)), Some((3, 4)));
        assert_eq!(chipset_uplink("B760").map(|u| u.lanes), Some(4));
        assert_eq!(chipset_uplink("Z790").map(|u| u.lanes), Some(8));
        assert!(chipset_uplink("WRX90").is_none(), "unsourced chipsets are unknown, not guessed");
    }
}

//! SMBIOS structures the board probe reads: type 1 (System Information), type 2 (Baseboard
//! Information) and type 9 (System Slots), from the raw table (`/sys/firmware/dmi/tables/DMI`)
//! or from `dmidecode` text.
//!
//! Layout and enumerations: DMTF DSP0134 "System Management BIOS (SMBIOS) Reference
//! Specification" 3.7.0 (https://www.dmtf.org/sites/default/files/standards/documents/DSP0134_3.7.0.pdf):
//! 6.1.2 (structure header: type, length, handle; strings after the formatted area, each
//! NUL-terminated, the set ending in a double NUL), 7.2 (type 1: Manufacturer at 04h, Product
//! Name at 05h), 7.3 (type 2: Manufacturer 04h, Product 05h, Version 06h), 7.10 (type 9: Slot
//! Designation 04h, Slot Type 05h (7.10.1), Slot Data Bus Width 06h (7.10.2), Current Usage 07h
//! (7.10.3), Segment Group 0Dh-0Eh, Bus 0Fh, Device/Function 10h (device in bits 7:3, function
//! in 2:0), Peer grouping count 12h, Slot Physical Width at 14h + 5 x peers (3.4+, same
//! enumeration as 06h)).

/// A PCI address `segment:bus:device.function`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PciAddr {
    /// PCI segment (domain).
    pub segment: u16,
    /// Bus number.
    pub bus: u8,
    /// Device number (0..=31).
    pub device: u8,
    /// Function number (0..=7).
    pub function: u8,
}

impl PciAddr {
    /// Parses `0000:00:01.1` or `00:01.1` (segment 0); `None` for anything else.
    pub fn parse(s: &str) -> Option<PciAddr> {
        let s = s.trim();
        let (seg, rest) = match s.matches(':').count() {
            2 => {
                let (a, b) = s.split_once(':')?;
                (u16::from_str_radix(a, 16).ok()?, b)
            }
            1 => (0, s),
            _ => return None,
        };
        let (bus, df) = rest.split_once(':')?;
        let (dev, func) = df.split_once('.')?;
        let device = u8::from_str_radix(dev, 16).ok()?;
        let function = u8::from_str_radix(func, 16).ok()?;
        if bus.len() != 2 || dev.len() != 2 || func.len() != 1 || device > 31 || function > 7 {
            return None;
        }
        Some(PciAddr { segment: seg, bus: u8::from_str_radix(bus, 16).ok()?, device, function })
    }
}

impl std::fmt::Display for PciAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04x}:{:02x}:{:02x}.{:x}", self.segment, self.bus, self.device, self.function)
    }
}

/// Type 9 "Current Usage" (DSP0134 7.10.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotUsage {
    /// 03h Available (empty).
    Available,
    /// 04h In use.
    InUse,
    /// 05h Unavailable (e.g. lanes taken by another slot or socket).
    Unavailable,
    /// Other, unknown or not given.
    Unknown,
}

impl std::fmt::Display for SlotUsage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SlotUsage::Available => "available",
            SlotUsage::InUse => "in use",
            SlotUsage::Unavailable => "unavailable",
            SlotUsage::Unknown => "usage unknown",
        })
    }
}

/// What kind of connector a type 9 slot is, from its Slot Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A PCI Express card slot (A5h-C4h).
    PcieCard,
    /// An M.2 socket (14h-17h).
    M2,
    /// Anything else (U.2, OCuLink, legacy PCI, unknown).
    Other,
}

/// One System Slots (type 9) structure as the firmware wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmbiosSlot {
    /// Slot Designation (silkscreen name, `PCIEX16_1`).
    pub designation: String,
    /// The slot type in words (`PCI Express 5 x16`, `M.2 Socket 3`, `code C3h`).
    pub type_text: String,
    /// Card slot, M.2 socket or other.
    pub kind: SlotKind,
    /// PCIe generation the slot type names (`PCI Express Gen 5 x16` -> 5); `None` when the type
    /// names none (A5h "PCI Express") or is not PCIe.
    pub pcie_gen: Option<u8>,
    /// Lanes of the connector: Slot Physical Width (3.4+) when given, else the width in the slot
    /// type's name; `None` when neither gives one.
    pub connector_lanes: Option<u8>,
    /// Slot Data Bus Width in lanes (the electrical width); `None` for Other/Unknown.
    pub data_lanes: Option<u8>,
    /// Current Usage.
    pub usage: SlotUsage,
    /// Segment/bus/device/function, when the firmware gives one (not the FFFFh/FFh/FFh "no
    /// address" value, not a segment FFFFh).
    pub address: Option<PciAddr>,
}

/// What the probe reads from SMBIOS: board and system identity, and the slots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SmbiosInfo {
    /// Type 1 Manufacturer.
    pub system_vendor: Option<String>,
    /// Type 1 Product Name.
    pub system_product: Option<String>,
    /// Type 2 Manufacturer.
    pub board_vendor: Option<String>,
    /// Type 2 Product.
    pub board_product: Option<String>,
    /// Type 2 Version.
    pub board_version: Option<String>,
    /// Type 9 structures in table order.
    pub slots: Vec<SmbiosSlot>,
    /// SMBIOS version when the input states it (`3.6.0`).
    pub version: Option<String>,
}

/// Lanes of a Slot Data Bus Width / Slot Physical Width code (DSP0134 7.10.2): 08h x1, 09h x2,
/// 0Ah x4, 0Bh x8, 0Ch x12, 0Dh x16, 0Eh x32; `None` for the others (Other, Unknown, bit widths
/// of parallel PCI).
pub(crate) fn width_code_lanes(code: u8) -> Option<u8> {
    match code {
        0x08 => Some(1),
        0x09 => Some(2),
        0x0A => Some(4),
        0x0B => Some(8),
        0x0C => Some(12),
        0x0D => Some(16),
        0x0E => Some(32),
        _ => None,
    }
}

/// `(kind, generation, connector lanes, words)` of a Slot Type code (DSP0134 7.10.1): A5h PCI
/// Express, A6h-AAh PCI Express x1/x2/x4/x8/x16, ABh-B0h Gen 2 (base, x1..x16), B1h-B6h Gen 3,
/// B8h-BDh Gen 4, BEh-C3h Gen 5, C4h Gen 6 and beyond (B7h is unassigned); 14h-17h M.2 Socket
/// 1-DP, 1-SD, 2 and 3. The same table as dmidecode's `dmi_slot_type` (dmidecode.c, "7.10.1").
pub(crate) fn slot_type_info(code: u8) -> (SlotKind, Option<u8>, Option<u8>, String) {
    const WIDTHS: [Option<u8>; 6] = [None, Some(1), Some(2), Some(4), Some(8), Some(16)];
    let pcie = |gen_: Option<u8>, base: u8| {
        let w = WIDTHS[usize::from(code - base)];
        let words = format!(
            "PCI Express{}{}",
            gen_.map_or(String::new(), |g| format!(" {g}")),
            w.map_or(String::new(), |w| format!(" x{w}"))
        );
        (SlotKind::PcieCard, gen_, w, words)
    };
    match code {
        0xA5..=0xAA => pcie(None, 0xA5),
        0xAB..=0xB0 => pcie(Some(2), 0xAB),
        0xB1..=0xB6 => pcie(Some(3), 0xB1),
        0xB8..=0xBD => pcie(Some(4), 0xB8),
        0xBE..=0xC3 => pcie(Some(5), 0xBE),
        0xC4 => (SlotKind::PcieCard, Some(6), None, "PCI Express 6+".to_owned()),
        0x14 => (SlotKind::M2, None, None, "M.2 Socket 1-DP".to_owned()),
        0x15 => (SlotKind::M2, None, None, "M.2 Socket 1-SD".to_owned()),
        0x16 => (SlotKind::M2, None, None, "M.2 Socket 2".to_owned()),
        0x17 => (SlotKind::M2, None, None, "M.2 Socket 3".to_owned()),
        _ => (SlotKind::Other, None, None, format!("code {code:02X}h")),
    }
}

/// The string number `n` (1-based) of a structure's string set; `None` for 0 or a missing one.
fn string_at(strings: &[&[u8]], n: u8) -> Option<String> {
    let s = strings.get(usize::from(n).checked_sub(1)?)?;
    let t = String::from_utf8_lossy(s).trim().to_owned();
    if t.is_empty() { None } else { Some(t) }
}

/// Parses the raw SMBIOS structure table (the bytes of `/sys/firmware/dmi/tables/DMI`). Stops at
/// type 127 (End-of-Table) or at the first truncated structure; never panics.
pub(crate) fn parse_smbios_table(table: &[u8]) -> SmbiosInfo {
    let mut info = SmbiosInfo::default();
    let mut at = 0usize;
    while at + 4 <= table.len() {
        let kind = table[at];
        let len = usize::from(table[at + 1]);
        if len < 4 || at + len > table.len() {
            break;
        }
        let formatted = &table[at..at + len];
        // The string set: from the end of the formatted area to the double NUL.
        let mut end = at + len;
        while end + 1 < table.len() && !(table[end] == 0 && table[end + 1] == 0) {
            end += 1;
        }
        let raw = &table[at + len..end.min(table.len())];
        let strings: Vec<&[u8]> = raw.split(|&b| b == 0).collect();
        let byte = |off: usize| formatted.get(off).copied();
        match kind {
            1 => {
                info.system_vendor = byte(4).and_then(|n| string_at(&strings, n));
                info.system_product = byte(5).and_then(|n| string_at(&strings, n));
            }
            2 => {
                info.board_vendor = byte(4).and_then(|n| string_at(&strings, n));
                info.board_product = byte(5).and_then(|n| string_at(&strings, n));
                info.board_version = byte(6).and_then(|n| string_at(&strings, n));
            }
            9 => {
                let designation = byte(4).and_then(|n| string_at(&strings, n)).unwrap_or_default();
                let code = byte(5).unwrap_or(0);
                let (kind, pcie_gen, type_lanes, type_text) = slot_type_info(code);
                let data_lanes = byte(6).and_then(width_code_lanes);
                let usage = match byte(7) {
                    Some(3) => SlotUsage::Available,
                    Some(4) => SlotUsage::InUse,
                    Some(5) => SlotUsage::Unavailable,
                    _ => SlotUsage::Unknown,
                };
                let address = match (byte(0x0D), byte(0x0E), byte(0x0F), byte(0x10)) {
                    (Some(s0), Some(s1), Some(bus), Some(df)) => {
                        let segment = u16::from_le_bytes([s0, s1]);
                        // DSP0134 7.10.8: FFFFh/FFh/FFh for a slot with no address (dmidecode's
                        // `dmi_slot_segment_bus_func` tests the same); a segment FFFFh is never a
                        // real one either. Other placeholders (AMI's `1f.7`) are left to the tree
                        // lookup, which finds nothing there.
                        if segment == 0xFFFF || (bus == 0xFF && df == 0xFF) {
                            None
                        } else {
                            Some(PciAddr { segment, bus, device: df >> 3, function: df & 7 })
                        }
                    }
                    _ => None,
                };
                let peers = usize::from(byte(0x12).unwrap_or(0));
                let physical = byte(0x14 + 5 * peers).and_then(width_code_lanes);
                info.slots.push(SmbiosSlot {
                    designation,
                    type_text,
                    kind,
                    pcie_gen,
                    connector_lanes: physical.or(type_lanes),
                    data_lanes,
                    usage,
                    address,
                });
            }
            127 => break,
            _ => {}
        }
        at = end + 2;
    }
    info
}

/// `x16` -> 16.
fn lanes_word(w: &str) -> Option<u8> {
    w.strip_prefix('x').and_then(|n| n.parse().ok())
}

/// Reads the words of a dmidecode slot `Type:` value (`x8 PCI Express 5 x16`, `x4 M.2 Socket
/// 3`, `x16 <OUT OF SPEC>`, `x16 PCI Express`): `(data lanes, kind, generation, connector lanes,
/// type words)`.
fn parse_type_value(v: &str) -> (Option<u8>, SlotKind, Option<u8>, Option<u8>, String) {
    let mut words: Vec<&str> = v.split_whitespace().collect();
    let data = words.first().and_then(|w| lanes_word(w));
    if data.is_some() {
        words.remove(0);
    }
    let text = words.join(" ");
    if text.starts_with("M.2") {
        return (data, SlotKind::M2, None, None, text);
    }
    if let Some(rest) = text.strip_prefix("PCI Express") {
        let mut gen_ = None;
        let mut lanes = None;
        for w in rest.split_whitespace() {
            if let Some(l) = lanes_word(w) {
                lanes = Some(l);
            } else if let Ok(g) = w.trim_end_matches('+').parse::<u8>() {
                gen_ = Some(g);
            }
        }
        return (data, SlotKind::PcieCard, gen_, lanes, text);
    }
    (data, SlotKind::Other, None, None, text)
}

/// Parses `dmidecode` text (any `-t` selection; types other than 1, 2 and 9 are skipped). The
/// fields are dmidecode's names for the structures above (dmidecode 3.x output).
pub(crate) fn parse_dmidecode(text: &str) -> SmbiosInfo {
    let mut info = SmbiosInfo::default();
    let mut kind: Option<u8> = None;
    let mut slot: Option<SmbiosSlot> = None;
    let flush = |slot: &mut Option<SmbiosSlot>, info: &mut SmbiosInfo| {
        if let Some(s) = slot.take() {
            info.slots.push(s);
        }
    };
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("SMBIOS ").and_then(|r| r.strip_suffix(" present.")) {
            info.version = Some(v.to_owned());
        }
        if line.starts_with("Handle ") {
            flush(&mut slot, &mut info);
            kind = line.split("DMI type ").nth(1).and_then(|r| r.split(',').next()).and_then(|n| n.trim().parse().ok());
            if kind == Some(9) {
                slot = Some(SmbiosSlot {
                    designation: String::new(),
                    type_text: String::new(),
                    kind: SlotKind::Other,
                    pcie_gen: None,
                    connector_lanes: None,
                    data_lanes: None,
                    usage: SlotUsage::Unknown,
                    address: None,
                });
            }
            continue;
        }
        let Some((key, value)) = line.trim().split_once(':') else { continue };
        let (key, value) = (key.trim(), value.trim());
        let owned = || if value.is_empty() { None } else { Some(value.to_owned()) };
        match (kind, key) {
            (Some(1), "Manufacturer") => info.system_vendor = owned(),
            (Some(1), "Product Name") => info.system_product = owned(),
            (Some(2), "Manufacturer") => info.board_vendor = owned(),
            (Some(2), "Product Name") => info.board_product = owned(),
            (Some(2), "Version") => info.board_version = owned(),
            (Some(9), k) => {
                let Some(s) = slot.as_mut() else { continue };
                match k {
                    "Designation" => value.clone_into(&mut s.designation),
                    "Type" => {
                        let (data, kind, gen_, lanes, text) = parse_type_value(value);
                        s.data_lanes = data;
                        s.kind = kind;
                        s.pcie_gen = gen_;
                        s.connector_lanes = s.connector_lanes.or(lanes);
                        s.type_text = text;
                    }
                    "Slot Physical Width" => {
                        if let Some(l) = lanes_word(value) {
                            s.connector_lanes = Some(l);
                        }
                    }
                    "Current Usage" => {
                        s.usage = match value {
                            "Available" => SlotUsage::Available,
                            "In Use" => SlotUsage::InUse,
                            "Unavailable" => SlotUsage::Unavailable,
                            _ => SlotUsage::Unknown,
                        }
                    }
                    // `Bus Address: 0000:00:01.1`: split_once took the first colon only.
                    "Bus Address" => {
                        let full = line.trim().trim_start_matches("Bus Address:").trim();
                        s.address = PciAddr::parse(full).filter(|a| a.segment != 0xFFFF);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    flush(&mut slot, &mut info);
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_and_print() {
        let a = PciAddr::parse("0000:00:01.1").expect("parses");
        assert_eq!((a.segment, a.bus, a.device, a.function), (0, 0, 1, 1));
        assert_eq!(a.to_string(), "0000:00:01.1");
        assert_eq!(PciAddr::parse("c1:00.0").expect("parses").bus, 0xc1);
        assert!(PciAddr::parse("garbage").is_none());
    }

    #[test]
    fn slot_types_follow_the_spec_table() {
        assert_eq!(slot_type_info(0xC3).1, Some(5));
        assert_eq!(slot_type_info(0xC3).2, Some(16));
        assert_eq!(slot_type_info(0xBB).3, "PCI Express 4 x4");
        assert_eq!(slot_type_info(0xA5).1, None);
        assert_eq!(slot_type_info(0x17).3, "M.2 Socket 3");
        assert_eq!(slot_type_info(0x13).0, SlotKind::Other, "13h is AGP 8x");
        assert_eq!(slot_type_info(0xB7).0, SlotKind::Other, "B7h is unassigned");
    }

    #[test]
    fn a_raw_type_9_structure_parses() {
        // Type 9, length 0x11 (SMBIOS 2.6 layout), handle 0x004F, designation string 1,
        // type C3h (Gen 5 x16), data width 0Bh (x8), in use, bus 00 dev 01 fn 3.
        let mut t =
            vec![9u8, 0x11, 0x4F, 0x00, 1, 0xC3, 0x0B, 0x04, 0x04, 0x01, 0x00, 0x0C, 0x01, 0x00, 0x00, 0x00, 0x0B];
        t.extend_from_slice(b"PCIEX16_2\0\0");
        t.extend_from_slice(&[127, 4, 0, 0, 0, 0]);
        let info = parse_smbios_table(&t);
        assert_eq!(info.slots.len(), 1);
        let s = &info.slots[0];
        assert_eq!(s.designation, "PCIEX16_2");
        assert_eq!((s.pcie_gen, s.connector_lanes, s.data_lanes), (Some(5), Some(16), Some(8)));
        assert_eq!(s.address, PciAddr::parse("0000:00:01.3"));
        assert_eq!(s.usage, SlotUsage::InUse);
    }

    #[test]
    fn truncated_tables_do_not_panic() {
        for n in 0..12 {
            let t = [9u8, 0x11, 0, 0, 1, 0xC3, 0x0B, 4, 4, 1, 0, 0x0C][..n].to_vec();
            let _ = parse_smbios_table(&t);
        }
    }

    #[test]
    fn dmidecode_text_parses() {
        let t = "SMBIOS 3.6.0 present.\n\nHandle 0x0002, DMI type 2, 15 bytes\nBase Board Information\n\tManufacturer: ASUSTeK COMPUTER INC.\n\tProduct Name: ROG CROSSHAIR X670E HERO\n\nHandle 0x004F, DMI type 9, 17 bytes\nSystem Slot Information\n\tDesignation: PCIEX16_2\n\tType: x8 PCI Express 5 x16\n\tCurrent Usage: In Use\n\tBus Address: 0000:00:01.3\n";
        let info = parse_dmidecode(t);
        assert_eq!(info.board_product.as_deref(), Some("ROG CROSSHAIR X670E HERO"));
        let s = &info.slots[0];
        assert_eq!((s.pcie_gen, s.connector_lanes, s.data_lanes), (Some(5), Some(16), Some(8)));
        assert_eq!(s.address.map(|a| a.to_string()).as_deref(), Some("0000:00:01.3"));
    }
}

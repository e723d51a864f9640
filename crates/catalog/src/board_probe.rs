//! `kraftwerk board probe`: a board-wiring entry ([`super::wiring`]) deduced from a running
//! machine's firmware slot table and PCIe tree, with its evidence.
//!
//! Inputs, all read under a root directory (`/` on a live machine, a recorded tree in tests):
//! - the SMBIOS table `sys/firmware/dmi/tables/DMI` (root only; [`smbios::parse_smbios_table`]),
//!   or `dmidecode.txt` (`dmidecode` output, e.g. a public probe; [`smbios::parse_dmidecode`]);
//!   without either, the board's name from `sys/class/dmi/id/board_{vendor,name}` (world
//!   readable) and no slot table;
//! - the PCIe tree from `sys/devices/pci*` ([`pci::read_sysfs`]) or `lspci-vvnn.txt`
//!   ([`pci::parse_lspci_vv`]).
//!
//! Deduction ([`deduce`]), per SMBIOS type 9 slot:
//! - its port: the bridge the table's bus address names, or the bridge above the device it
//!   names, or the bridge above the functions on the bus it names; a placeholder or an address
//!   with nothing there leaves the slot undetermined;
//! - its origin: **chipset** when the port's bridge chain (root port first) passes an AMD
//!   chipset bridge ([`AMD_CHIPSET_BRIDGES`]), or the root port is an Intel PCH root port (bus 0,
//!   device 1Ah..1Dh, [`intel_pch_root_port`]); **CPU** when the port is itself a root port of an
//!   AMD or Intel root complex that is not a PCH port; otherwise not determined (a switch or a
//!   vendor this probe does not know, a virtual machine);
//! - its electrical lanes: the larger of the port's maximum link width (`max_link_width`,
//!   `LnkCap`) and the table's data bus width, both shown (a port of a bifurcated x16 shows x8
//!   while the other half is in use); its generation: the smaller of the port's maximum link
//!   speed and the generation in the table's slot type (the board may be rated below the CPU);
//!   its connector: the table's physical width or slot type width (an x16 data width is an x16
//!   connector: no larger PCIe card connector exists);
//! - the device in it, when there is one: its negotiated link (`current_link_*`, `LnkSta`).
//!
//! What a probe cannot see is said in the notes: positions (not in the table), sharing rules
//! (only what the present population shows), slots whose address or origin was not determined
//! (left out of the entry, so the entry is then INCOMPLETE and says so).

pub mod pci;
pub mod smbios;

use crate::Motherboard;
use pci::{Link, PciFunction, PciTree};
use smbios::{PciAddr, SlotKind, SlotUsage, SmbiosInfo, SmbiosSlot};
use std::fmt::Write as _;
use std::path::Path;

/// The message for a machine whose SMBIOS table cannot be read.
pub(crate) const NO_SLOT_TABLE: &str = "slot table not readable: run as root";

/// AMD chipset bridges, by `(vendor, device)`: a port below one of these is the chipset's.
/// Ids and names as the PCI ID database (https://pci-ids.ucw.cz, vendor 1022) names them,
/// read here in public `lspci -nn` listings: 43f4 "600 Series Chipset PCIe Switch Upstream
/// Port" (Promontory 21, AM5 600/800-series), 43f5 its downstream ports, 43e9 "500 Series
/// Chipset Switch Upstream Port" (B550), 57ad "Matisse Switch Upstream" (X570), 43c6 "400
/// Series Chipset PCIe Bridge" (X470/B450).
pub(crate) const AMD_CHIPSET_BRIDGES: &[(u16, u16, &str)] = &[
    (0x1022, 0x43f4, "AMD 600/800-series chipset (Promontory 21) switch upstream port"),
    (0x1022, 0x43f5, "AMD 600/800-series chipset (Promontory 21) switch downstream port"),
    (0x1022, 0x43e9, "AMD 500-series chipset switch upstream port"),
    (0x1022, 0x57ad, "AMD X570 chipset switch upstream port"),
    (0x1022, 0x43c6, "AMD 400-series chipset PCIe bridge"),
];

/// Whether `f` is an Intel PCH root port: vendor 8086h on a root bus at device 1Ah..=1Dh, where
/// Intel's PCH datasheets place the PCH's PCI Express root ports (the CPU's own ports sit at
/// devices 01h and 06h on client platforms). Not checked against every PCH generation here:
/// the evidence line names the rule, so a reader can check it.
pub(crate) fn intel_pch_root_port(f: &PciFunction) -> bool {
    f.vendor == 0x8086 && f.parent.is_none() && (0x1a..=0x1d).contains(&f.addr.device)
}

fn amd_chipset_bridge(f: &PciFunction) -> Option<&'static str> {
    AMD_CHIPSET_BRIDGES.iter().find(|(v, d, _)| *v == f.vendor && *d == f.device).map(|(_, _, n)| *n)
}

/// Where a port's lanes come from, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneOrigin {
    /// CPU root port.
    Cpu(String),
    /// Behind the chipset.
    Chipset(String),
    /// Not determined, and why.
    Unknown(String),
}

/// A function in words: `0000:00:01.1 [1022:14db]`.
fn fn_text(f: &PciFunction) -> String {
    format!("{} [{:04x}:{:04x}]", f.addr, f.vendor, f.device)
}

/// The origin of the lanes of port `port` (see the module docs for the rule).
pub(crate) fn port_origin(tree: &PciTree, port: PciAddr) -> LaneOrigin {
    let mut chain = tree.ancestors(port);
    chain.push(port);
    let fns: Vec<&PciFunction> = chain.iter().filter_map(|a| tree.functions.get(a)).collect();
    if let Some((f, name)) = fns.iter().find_map(|f| amd_chipset_bridge(f).map(|n| (f, n))) {
        return LaneOrigin::Chipset(format!("below {} ({name})", fn_text(f)));
    }
    let Some(root) = fns.first() else { return LaneOrigin::Unknown(format!("{port} is not in the PCIe tree")) };
    if intel_pch_root_port(root) {
        return LaneOrigin::Chipset(format!(
            "below Intel PCH root port {} (bus 0, device {:02x}h)",
            fn_text(root),
            root.addr.device
        ));
    }
    if fns.len() == 1 && root.parent.is_none() && matches!(root.vendor, 0x1022 | 0x8086) {
        return LaneOrigin::Cpu(format!("root port {} of the processor, no chipset bridge above", fn_text(root)));
    }
    if fns.len() > 1 {
        let mid: Vec<String> = fns[1..].iter().map(|f| fn_text(f)).collect();
        return LaneOrigin::Unknown(format!(
            "below root port {} through {}, which is no chipset bridge this probe knows (a switch on the board?)",
            fn_text(root),
            mid.join(" -> ")
        ));
    }
    LaneOrigin::Unknown(format!(
        "root port {} of vendor {:04x}, not an AMD or Intel root complex",
        fn_text(root),
        root.vendor
    ))
}

/// A slot as deduced.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbedSlot {
    /// The SMBIOS record.
    pub smbios: SmbiosSlot,
    /// The port the slot hangs from, when found, and how it was found.
    pub port: Option<(PciAddr, String)>,
    /// Origin of the lanes.
    pub origin: LaneOrigin,
    /// The port's capability (max link).
    pub port_link: Link,
    /// The device found in the slot and its negotiated link.
    pub device: Option<(PciAddr, u16, u16, Link, Option<String>)>,
    /// Electrical lanes entered, when determined.
    pub electrical_lanes: Option<u8>,
    /// Connector lanes entered, when determined.
    pub physical_lanes: Option<u8>,
    /// Generation entered, when determined.
    pub pcie_gen: Option<u8>,
    /// Evidence and conflicts, in words.
    pub notes: Vec<String>,
}

impl ProbedSlot {
    /// Whether every figure the entry needs is known.
    /// An M.2 socket needs no connector size.
    pub fn complete(&self) -> bool {
        self.electrical_lanes.is_some()
            && (self.physical_lanes.is_some() || self.smbios.kind != SlotKind::PcieCard)
            && self.pcie_gen.is_some()
            && !matches!(self.origin, LaneOrigin::Unknown(_))
    }
}

/// The chipset found in the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipsetFound {
    /// What identified it.
    pub what: String,
    /// The link to the CPU as seen (AMD: the upstream port's link); `None` for an Intel PCH,
    /// whose DMI link is not a PCIe link in the tree.
    pub uplink: Option<(Link, Link)>,
    /// Functions behind it (addresses and ids).
    pub behind: Vec<String>,
}

/// Everything the probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardProbe {
    /// Identity and slot table.
    pub smbios: SmbiosInfo,
    /// Where the slot table came from, or why there is none.
    pub smbios_source: Result<String, String>,
    /// Where the PCIe tree came from.
    pub tree_source: String,
    /// The tree.
    pub tree: PciTree,
    /// Card slots and M.2 sockets, in table order.
    pub slots: Vec<ProbedSlot>,
    /// The chipset, if one was identified.
    pub chipset: Option<ChipsetFound>,
    /// GPUs and NVMe drives: `(text, origin)`.
    pub devices: Vec<(String, LaneOrigin)>,
}

/// The port and device for a slot's table address.
fn locate(tree: &PciTree, a: PciAddr) -> Option<(PciAddr, String)> {
    if let Some(f) = tree.functions.get(&a) {
        if f.is_bridge() {
            return Some((a, format!("the table names port {}", fn_text(f))));
        }
        return f.parent.map(|p| (p, format!("the table names device {} in it", fn_text(f))));
    }
    tree.port_of_bus(a.segment, a.bus).map(|p| (p, format!("the table names bus {:02x}, below port {p}", a.bus)))
}

/// Reads the inputs under `root` and deduces ([`deduce`]); never fails: what could not be read
/// is said in the result.
pub fn probe_board(root: &Path) -> BoardProbe {
    let (mut smbios, smbios_source) = if let Ok(t) = std::fs::read_to_string(root.join("dmidecode.txt")) {
        (smbios::parse_dmidecode(&t), Ok("dmidecode.txt (dmidecode output)".to_owned()))
    } else {
        match std::fs::read(root.join("sys/firmware/dmi/tables/DMI")) {
            Ok(b) => (smbios::parse_smbios_table(&b), Ok("/sys/firmware/dmi/tables/DMI (raw SMBIOS table)".to_owned())),
            Err(e) => (
                SmbiosInfo::default(),
                Err(format!("{NO_SLOT_TABLE} (/sys/firmware/dmi/tables/DMI: {e}; a virtual machine may have none)")),
            ),
        }
    };
    let id = |n: &str| {
        std::fs::read_to_string(root.join("sys/class/dmi/id").join(n))
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    smbios.board_vendor = smbios.board_vendor.or_else(|| id("board_vendor"));
    smbios.board_product = smbios.board_product.or_else(|| id("board_name"));
    smbios.system_vendor = smbios.system_vendor.or_else(|| id("sys_vendor"));
    smbios.system_product = smbios.system_product.or_else(|| id("product_name"));
    let (tree, tree_source) = match std::fs::read_to_string(root.join("lspci-vvnn.txt")) {
        Ok(t) => (pci::parse_lspci_vv(&t), "lspci-vvnn.txt (lspci -vvnn output)".to_owned()),
        Err(_) => (pci::read_sysfs(root), "/sys/devices/pci* (sysfs)".to_owned()),
    };
    deduce(smbios, smbios_source, tree, tree_source)
}

/// Deduces slots, chipset and devices from parsed inputs (pure; see the module docs).
pub(crate) fn deduce(
    smbios: SmbiosInfo,
    smbios_source: Result<String, String>,
    tree: PciTree,
    tree_source: String,
) -> BoardProbe {
    let slots = smbios.slots.iter().map(|s| deduce_slot(&tree, s)).collect();
    let chipset = find_chipset(&tree);
    let devices = tree
        .functions
        .values()
        .filter(|f| f.is_gpu() || f.is_nvme())
        .map(|f| {
            let what = if f.is_gpu() { "GPU" } else { "NVMe" };
            let port = f.parent;
            let origin = port.map_or_else(
                || LaneOrigin::Unknown("on a root bus (integrated or virtual)".to_owned()),
                |p| port_origin(&tree, p),
            );
            let port_cap =
                port.and_then(|p| tree.functions.get(&p)).map_or("unknown".to_owned(), |p| p.max_link.text());
            let text = format!(
                "{what} {}{}: link {} (device capability {}), port {} capability {}",
                fn_text(f),
                f.name.as_deref().map_or(String::new(), |n| format!(" {n}")),
                f.current_link.text(),
                f.max_link.text(),
                port.map_or("none".to_owned(), |p| p.to_string()),
                port_cap
            );
            (text, origin)
        })
        .collect();
    BoardProbe { smbios, smbios_source, tree_source, tree, slots, chipset, devices }
}

fn deduce_slot(tree: &PciTree, s: &SmbiosSlot) -> ProbedSlot {
    let mut notes = Vec::new();
    let port = s.address.and_then(|a| locate(tree, a));
    if port.is_none() {
        notes.push(match s.address {
            Some(a) => format!("the table's address {a} is not in the PCIe tree (nothing there, or a placeholder)"),
            None => "the table gives no bus address".to_owned(),
        });
    }
    let origin =
        port.as_ref().map_or_else(|| LaneOrigin::Unknown("port not found".to_owned()), |(p, _)| port_origin(tree, *p));
    let port_fn = port.as_ref().and_then(|(p, _)| tree.functions.get(p));
    let port_link = port_fn.map(|f| f.max_link).unwrap_or_default();
    let device = port.as_ref().and_then(|(p, _)| {
        tree.children(*p)
            .into_iter()
            .min_by_key(|f| f.addr)
            .map(|f| (f.addr, f.vendor, f.device, f.current_link, f.name.clone()))
    });
    let electrical_lanes = match (port_link.width, s.data_lanes) {
        (Some(p), Some(t)) if p != t => {
            notes.push(format!(
                "widths differ: port capability x{p}, table data bus width x{t}; entered x{}{}",
                p.max(t),
                if t > p {
                    " (the port showed fewer lanes in this population: lanes split with another slot or socket?)"
                } else {
                    ""
                }
            ));
            Some(p.max(t))
        }
        (p, t) => p.or(t),
    };
    let port_gen = port_link.generation();
    let pcie_gen = match (port_gen, s.pcie_gen) {
        (Some(p), Some(t)) if p != t => {
            notes.push(format!(
                "generations differ: port capability Gen {p}, table slot type Gen {t}; entered Gen {}",
                p.min(t)
            ));
            Some(p.min(t))
        }
        (p, t) => p.or(t),
    };
    let physical_lanes = s.connector_lanes.or_else(|| {
        (electrical_lanes == Some(16)).then(|| {
            notes.push("connector: x16 from the x16 width (the table's slot type names no connector size)".to_owned());
            16
        })
    });
    if physical_lanes.is_none() && s.kind == SlotKind::PcieCard {
        notes.push("connector size not given by the table".to_owned());
    }
    if let (Some(e), Some(p)) = (electrical_lanes, physical_lanes)
        && e > p
        && s.kind == SlotKind::PcieCard
    {
        notes.push(format!("x{e} lanes exceed the x{p} connector: the connector size is suspect"));
    }
    ProbedSlot {
        smbios: s.clone(),
        port,
        origin,
        port_link,
        device,
        electrical_lanes: if s.kind == SlotKind::PcieCard {
            electrical_lanes.map(|e| e.min(physical_lanes.unwrap_or(e)))
        } else {
            electrical_lanes
        },
        physical_lanes,
        pcie_gen,
        notes,
    }
}

fn find_chipset(tree: &PciTree) -> Option<ChipsetFound> {
    // AMD: the topmost known chipset bridge (the upstream port), its link to the root port.
    let amd = tree
        .functions
        .values()
        .filter(|f| amd_chipset_bridge(f).is_some())
        .filter(|f| {
            !tree
                .ancestors(f.addr)
                .iter()
                .any(|a| tree.functions.get(a).is_some_and(|p| amd_chipset_bridge(p).is_some()))
        })
        .collect::<Vec<_>>();
    if let Some(up) = amd.first() {
        let root = up.parent.and_then(|p| tree.functions.get(&p));
        let behind: Vec<String> = tree
            .below(up.addr)
            .into_iter()
            .filter(|f| !f.is_bridge())
            .map(|f| format!("{}{}", fn_text(f), f.name.as_deref().map_or(String::new(), |n| format!(" {n}"))))
            .collect();
        return Some(ChipsetFound {
            what: format!(
                "{} at {}{}",
                amd_chipset_bridge(up).unwrap_or("AMD chipset"),
                fn_text(up),
                root.map_or(String::new(), |r| format!(", below CPU root port {}", fn_text(r)))
            ),
            uplink: Some((up.current_link, root.map(|r| r.max_link).unwrap_or_default())),
            behind,
        });
    }
    let pch: Vec<&PciFunction> = tree.functions.values().filter(|f| f.is_bridge() && intel_pch_root_port(f)).collect();
    if pch.is_empty() {
        return None;
    }
    let behind = pch
        .iter()
        .flat_map(|p| tree.below(p.addr))
        .filter(|f| !f.is_bridge())
        .map(|f| format!("{}{}", fn_text(f), f.name.as_deref().map_or(String::new(), |n| format!(" {n}"))))
        .collect();
    Some(ChipsetFound {
        what: format!(
            "Intel PCH root ports {} (bus 0, devices 1Ah-1Dh)",
            pch.iter().map(|f| fn_text(f)).collect::<Vec<_>>().join(", ")
        ),
        uplink: None,
        behind,
    })
}

/// Catalog boards whose vendor and name match the board's SMBIOS type 2 manufacturer and
/// product: every word of the product in the catalog name, and no other word in the catalog
/// name than socket, memory, form-factor and vendor words (so `PRIME Z790-P WIFI` does not match
/// `PRIME Z790-P WIFI D4`). Best first (fewest extra words); empty when none.
pub fn match_boards<'a>(boards: &'a [Motherboard], vendor: &str, product: &str) -> Vec<&'a Motherboard> {
    fn words(s: &str) -> Vec<String> {
        s.to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    }
    fn squash(s: &str) -> String {
        s.to_ascii_lowercase().chars().filter(char::is_ascii_alphanumeric).collect()
    }
    fn free(w: &str) -> bool {
        w.starts_with("lga")
            || w.starts_with("ddr")
            || w.starts_with("sp")
            || w.starts_with("str")
            || w.starts_with("swrx")
            || w.starts_with("tr")
            || matches!(
                w,
                "am4"
                    | "am5"
                    | "atx"
                    | "eatx"
                    | "micro"
                    | "mini"
                    | "itx"
                    | "ceb"
                    | "eeb"
                    | "ssi"
                    | "motherboard"
                    | "intel"
                    | "amd"
            )
    }
    let v = squash(vendor);
    let v = if v.starts_with("microstar") { "msi".to_owned() } else { v };
    let want = words(product);
    if want.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(usize, &Motherboard)> = boards
        .iter()
        .filter(|b| {
            let bv = squash(&b.vendor);
            !bv.is_empty() && (v.starts_with(&bv) || bv.starts_with(&v))
        })
        .filter_map(|b| {
            let have = words(&b.name);
            let vendor_words = words(&b.vendor);
            if !want.iter().all(|w| have.contains(w)) {
                return None;
            }
            let extra: Vec<&String> = have.iter().filter(|w| !want.contains(w) && !vendor_words.contains(w)).collect();
            if extra.iter().any(|w| !free(w) && !b.chipset.eq_ignore_ascii_case(w)) {
                return None;
            }
            Some((extra.len(), b))
        })
        .collect();
    found.sort_by_key(|(n, b)| (*n, b.id.clone()));
    found.into_iter().map(|(_, b)| b).collect()
}

/// Escapes `s` for a RON string literal.
fn ron_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn lane_source(o: &LaneOrigin) -> &'static str {
    match o {
        LaneOrigin::Chipset(_) => "Chipset",
        _ => "Cpu",
    }
}

impl BoardProbe {
    /// The board's name from SMBIOS type 2 (`ASUSTeK COMPUTER INC. ROG CROSSHAIR X670E HERO`).
    pub fn board_name(&self) -> String {
        format!(
            "{} {}",
            self.smbios.board_vendor.as_deref().unwrap_or("unknown vendor"),
            self.smbios.board_product.as_deref().unwrap_or("unknown board")
        )
    }

    /// Card slots (not M.2) whose figures were not all determined.
    pub fn undetermined_card_slots(&self) -> Vec<&ProbedSlot> {
        self.slots.iter().filter(|s| s.smbios.kind == SlotKind::PcieCard && !s.complete()).collect()
    }

    /// The wiring file: evidence as `//` comments, then one entry for `board_id` in the
    /// catalog's format (`catalog/board-wiring/*.ron`, loadable by
    /// [`super::wiring::parse_wiring_file`] and [`super::wiring::apply_wiring`]), with
    /// `source_kind: Probed`. `date` is `YYYY-MM-DD`; `inputs` names what was read (a machine or
    /// a recorded tree). Card slots with every figure determined become `pcie_slots`; M.2
    /// sockets (type "M.2 Socket 3") become `m2_slots` only when all of them are determined (a
    /// partial list would read as the board's whole set); the rest is in the notes.
    ///
    /// `known`: the catalog's board of that id, when there is one: each determined slot is
    /// compared with the catalog's slot of the same name (agrees / differs / not in the catalog),
    /// as evidence comments.
    pub fn wiring_ron(&self, board_id: &str, date: &str, inputs: &str, known: Option<&Motherboard>) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "// Board wiring probed by `kraftwerk board probe` on {date} ({inputs}).");
        let _ = writeln!(o, "// Board (SMBIOS type 2): {}", self.board_name());
        let _ = writeln!(
            o,
            "// System (SMBIOS type 1): {} {}",
            self.smbios.system_vendor.as_deref().unwrap_or("unknown"),
            self.smbios.system_product.as_deref().unwrap_or("unknown")
        );
        match &self.smbios_source {
            Ok(s) => {
                let _ = writeln!(
                    o,
                    "// Slot table: {s}{}",
                    self.smbios.version.as_deref().map_or(String::new(), |v| format!(", SMBIOS {v}"))
                );
            }
            Err(e) => {
                let _ = writeln!(o, "// Slot table: {e}");
            }
        }
        let _ = writeln!(o, "// PCIe tree: {} ({} functions)", self.tree_source, self.tree.functions.len());
        match &self.chipset {
            Some(c) => {
                let _ = writeln!(o, "// Chipset: {}", c.what);
                match c.uplink {
                    Some((neg, cap)) => {
                        let _ =
                            writeln!(o, "//   uplink negotiated {}, root port capability {}", neg.text(), cap.text());
                    }
                    None => {
                        let _ = writeln!(
                            o,
                            "//   uplink: DMI, not a PCIe link in this tree (width and speed not seen here)"
                        );
                    }
                }
                let _ = writeln!(
                    o,
                    "//   behind it: {}",
                    if c.behind.is_empty() { "nothing".to_owned() } else { c.behind.join("; ") }
                );
            }
            None => {
                let _ = writeln!(o, "// Chipset: none identified in the PCIe tree");
            }
        }
        for (d, origin) in &self.devices {
            let _ = writeln!(o, "// Device: {d}; {}", origin_text(origin));
        }
        for s in &self.slots {
            let _ = writeln!(o, "// Slot {:?}: {}", s.smbios.designation, slot_evidence(s));
        }
        if let Some(b) = known {
            for line in self.compare_with(b) {
                let _ = writeln!(o, "// Catalog {}: {line}", b.id);
            }
        }
        let card: Vec<&ProbedSlot> = self.slots.iter().filter(|s| s.smbios.kind == SlotKind::PcieCard).collect();
        let m2: Vec<&ProbedSlot> = self
            .slots
            .iter()
            .filter(|s| s.smbios.kind == SlotKind::M2 && s.smbios.type_text == "M.2 Socket 3")
            .collect();
        let undetermined = self.undetermined_card_slots();
        let mut notes = format!(
            "Probed on {date} by `kraftwerk board probe` ({inputs}); board (SMBIOS type 2) {}. Slot names, connector sizes and table widths from the SMBIOS slot table (type 9); CPU or chipset from the bridge chain above each slot's port in the PCIe tree; electrical lanes and generation from the port's maximum link, crossed with the table. NOT DETERMINED: slot positions (not in the slot table); sharing rules (a probe sees only the present population).",
            self.board_name()
        );
        if !undetermined.is_empty() {
            let _ = write!(
                notes,
                " INCOMPLETE: {} of {} card slots are not entered: {}.",
                undetermined.len(),
                card.len(),
                undetermined
                    .iter()
                    .map(|s| format!("{} ({})", s.smbios.designation, why_not(s)))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        let m2_all = !m2.is_empty() && m2.iter().all(|s| s.complete());
        if !m2.is_empty() && !m2_all {
            let _ = write!(notes, " M.2 sockets not entered: not all of them were determined.");
        }
        let empty: Vec<&str> =
            card.iter().filter(|s| s.complete() && s.device.is_none()).map(|s| s.smbios.designation.as_str()).collect();
        if !empty.is_empty() {
            let _ = write!(notes, " Empty when probed (figures are the port's capability only): {}.", empty.join(", "));
        }
        if let Err(e) = &self.smbios_source {
            let _ = write!(notes, " {e}.");
        }
        if card.iter().all(|s| !s.complete()) {
            let _ = writeln!(
                o,
                "// NO ENTRY: no card slot was determined{}, so nothing is written (an entry without slots would say the board has none).",
                if self.smbios.slots.is_empty() { " (the slot table lists none or could not be read)" } else { "" }
            );
            let _ = writeln!(o, "[]");
            return o;
        }
        let _ = writeln!(o, "[");
        let _ = writeln!(o, "    (");
        let _ = writeln!(o, "        board: {},", ron_str(board_id));
        let _ = writeln!(
            o,
            "        source: {},",
            ron_str(&format!("probed: kraftwerk board probe, {} ({inputs}), {date}", self.board_name()))
        );
        let _ = writeln!(o, "        source_kind: Probed,");
        let _ = writeln!(o, "        pcie_slots: [");
        for s in card.iter().filter(|s| s.complete()) {
            let _ = writeln!(
                o,
                "            (name: {}, physical_lanes: {}, electrical_lanes: {}, pcie_gen: {}, lane_source: {}, shares: []),",
                ron_str(&s.smbios.designation),
                s.physical_lanes.unwrap_or(0),
                s.electrical_lanes.unwrap_or(0),
                s.pcie_gen.unwrap_or(0),
                lane_source(&s.origin)
            );
        }
        let _ = writeln!(o, "        ],");
        let _ = writeln!(o, "        m2_slots: [");
        if m2_all {
            for s in &m2 {
                let _ = writeln!(
                    o,
                    "            (name: {}, lanes: {}, pcie_gen: {}, lane_source: {}, shares: []),",
                    ron_str(&s.smbios.designation),
                    s.electrical_lanes.unwrap_or(0),
                    s.pcie_gen.unwrap_or(0),
                    lane_source(&s.origin)
                );
            }
        }
        let _ = writeln!(o, "        ],");
        let _ = writeln!(o, "        notes: {},", ron_str(&notes));
        let _ = writeln!(o, "    ),");
        let _ = writeln!(o, "]");
        o
    }
}

impl BoardProbe {
    /// Each determined card slot against `board`'s slot of the same name (ASCII
    /// case-insensitive): `PCIE1: agrees (x16, Gen 4, Cpu)`, `PCIE2: differs: ...`, or `not in
    /// the catalog's slot list`; a board whose layout the catalog does not know says so once.
    pub(crate) fn compare_with(&self, board: &Motherboard) -> Vec<String> {
        if board.pcie_slots.is_empty() {
            return vec![format!("slot layout not in the catalog ({})", board.slots_text())];
        }
        let mut out = Vec::new();
        for s in self.slots.iter().filter(|s| s.smbios.kind == SlotKind::PcieCard && s.complete()) {
            let (Some(e), Some(g)) = (s.electrical_lanes, s.pcie_gen) else { continue };
            let src = lane_source(&s.origin);
            let Some(c) = board.slot_named(&s.smbios.designation) else {
                out.push(format!("{}: not in the catalog's slot list", s.smbios.designation));
                continue;
            };
            let c_src = match c.lane_source {
                crate::LaneSource::Cpu => "Cpu",
                crate::LaneSource::Chipset => "Chipset",
            };
            let mut diffs = Vec::new();
            if c.electrical_lanes != e {
                diffs.push(format!("lanes x{e} probed, x{} in the catalog", c.electrical_lanes));
            }
            if c.pcie_gen != g {
                diffs.push(format!("Gen {g} probed, Gen {} in the catalog", c.pcie_gen));
            }
            if c_src != src {
                diffs.push(format!("{src} probed, {c_src} in the catalog"));
            }
            out.push(if diffs.is_empty() {
                format!("{}: agrees (x{e}, Gen {g}, {src})", s.smbios.designation)
            } else {
                format!("{}: differs: {}", s.smbios.designation, diffs.join("; "))
            });
        }
        out
    }
}

fn origin_text(o: &LaneOrigin) -> String {
    match o {
        LaneOrigin::Cpu(w) => format!("CPU: {w}"),
        LaneOrigin::Chipset(w) => format!("chipset: {w}"),
        LaneOrigin::Unknown(w) => format!("origin not determined: {w}"),
    }
}

fn why_not(s: &ProbedSlot) -> String {
    if let LaneOrigin::Unknown(w) = &s.origin {
        return format!("origin not determined: {w}");
    }
    let mut missing = Vec::new();
    if s.electrical_lanes.is_none() {
        missing.push("lanes");
    }
    if s.physical_lanes.is_none() && s.smbios.kind == SlotKind::PcieCard {
        missing.push("connector size");
    }
    if s.pcie_gen.is_none() {
        missing.push("generation");
    }
    format!("{} unknown", missing.join(", "))
}

fn slot_evidence(s: &ProbedSlot) -> String {
    let t = &s.smbios;
    let mut parts = vec![format!(
        "table: {}{}, {}, address {}",
        t.data_lanes.map_or(String::new(), |l| format!("x{l} ")),
        if t.type_text.is_empty() { "type unknown" } else { &t.type_text },
        t.usage,
        t.address.map_or("none".to_owned(), |a| a.to_string())
    )];
    if let Some((p, how)) = &s.port {
        parts.push(format!("port {p} ({how}), capability {}", s.port_link.text()));
    }
    parts.push(origin_text(&s.origin));
    match &s.device {
        Some((addr, vendor, device, link, name)) => parts.push(format!(
            "device {addr} [{vendor:04x}:{device:04x}]{} negotiated {}",
            name.as_deref().map_or(String::new(), |n| format!(" {n}")),
            link.text()
        )),
        None if s.port.is_some() => parts.push(if t.usage == SlotUsage::InUse {
            "no device below the port (the table says in use)".to_owned()
        } else {
            "no device: the port's capability only".to_owned()
        }),
        None => {}
    }
    if s.complete() {
        parts.push(format!(
            "entered x{} electrical{}, Gen {}",
            s.electrical_lanes.unwrap_or(0),
            s.physical_lanes.map_or(String::new(), |p| format!(", x{p} connector")),
            s.pcie_gen.unwrap_or(0)
        ));
    } else {
        parts.push(format!("not entered: {}", why_not(s)));
    }
    parts.extend(s.notes.iter().cloned());
    parts.join("; ")
}

#[cfg(test)]
mod tests;

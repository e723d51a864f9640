//! The PCIe tree the board probe reads: every PCI function with its ids, class, parent bridge
//! and links, from sysfs (`/sys/bus/pci/devices/*`, whose links resolve to
//! `/sys/devices/pci<segment>:<bus>/<port>/<device>`: the path is the hierarchy) or from
//! `lspci -vvnn` text (the hierarchy from each bridge's `Bus: primary=, secondary=,
//! subordinate=`).
//!
//! Link attributes: sysfs `current_link_speed`/`current_link_width` (what was negotiated) and
//! `max_link_speed`/`max_link_width` (the port's capability), as Linux documents them in
//! Documentation/ABI/testing/sysfs-bus-pci; lspci's `LnkCap:` (capability) and `LnkSta:`
//! (negotiated) lines are the same registers (PCI Express Base Specification, Link Capabilities
//! and Link Status registers).

use super::smbios::PciAddr;
use std::collections::BTreeMap;
use std::path::Path;

/// A link: speed in GT/s and width in lanes, either of which may be unknown.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Link {
    /// Transfer rate per lane, GT/s (2.5, 5, 8, 16, 32, 64).
    pub speed_gts: Option<f64>,
    /// Lanes.
    pub width: Option<u8>,
}

impl Link {
    /// PCIe generation of the speed: 2.5 GT/s = 1, 5 = 2, 8 = 3, 16 = 4, 32 = 5, 64 = 6 (PCI
    /// Express Base Specification data rates per generation).
    pub fn generation(&self) -> Option<u8> {
        let s = self.speed_gts?;
        [(2.5, 1), (5.0, 2), (8.0, 3), (16.0, 4), (32.0, 5), (64.0, 6)]
            .iter()
            .find(|(gts, _)| (s - gts).abs() < 0.01)
            .map(|&(_, g)| g)
    }

    /// `PCIe 4.0 x16`, `PCIe 4.0 x?`, `unknown`.
    pub fn text(&self) -> String {
        match (self.generation(), self.width) {
            (None, None) => "unknown".to_owned(),
            (g, w) => format!(
                "PCIe {} x{}",
                g.map_or("?".to_owned(), |g| format!("{g}.0")),
                w.map_or("?".to_owned(), |w| w.to_string())
            ),
        }
    }
}

/// One PCI function.
#[derive(Debug, Clone, PartialEq)]
pub struct PciFunction {
    /// Its address.
    pub addr: PciAddr,
    /// Vendor id.
    pub vendor: u16,
    /// Device id.
    pub device: u16,
    /// Class code, 24 bits (`0x060400` PCI bridge, `0x030000` VGA, `0x010802` NVMe).
    pub class: u32,
    /// The bridge above it; `None` on a root bus.
    pub parent: Option<PciAddr>,
    /// The link's capability (max link).
    pub max_link: Link,
    /// The negotiated link (current link).
    pub current_link: Link,
    /// Name as lspci printed it, when read from lspci text.
    pub name: Option<String>,
}

impl PciFunction {
    /// A PCI-to-PCI bridge (class 0604h): a root port, a switch port or a chipset bridge.
    pub(crate) fn is_bridge(&self) -> bool {
        self.class >> 8 == 0x0604
    }
    /// A display controller (class 03h): a GPU.
    pub(crate) fn is_gpu(&self) -> bool {
        self.class >> 16 == 0x03
    }
    /// An NVMe controller (class 0108h).
    pub(crate) fn is_nvme(&self) -> bool {
        self.class >> 8 == 0x0108
    }
}

/// The PCIe tree: functions by address.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PciTree {
    /// Every function read, by address.
    pub functions: BTreeMap<PciAddr, PciFunction>,
}

impl PciTree {
    /// The chain of bridges from the root bus down to `addr` (root port first), not including
    /// `addr` itself.
    pub fn ancestors(&self, addr: PciAddr) -> Vec<PciAddr> {
        let mut out = Vec::new();
        let mut at = self.functions.get(&addr).and_then(|f| f.parent);
        while let Some(p) = at {
            if out.contains(&p) {
                break;
            }
            out.push(p);
            at = self.functions.get(&p).and_then(|f| f.parent);
        }
        out.reverse();
        out
    }

    /// The functions whose parent is `addr`.
    pub fn children(&self, addr: PciAddr) -> Vec<&PciFunction> {
        self.functions.values().filter(|f| f.parent == Some(addr)).collect()
    }

    /// Every function below `addr` at any depth.
    pub fn below(&self, addr: PciAddr) -> Vec<&PciFunction> {
        self.functions.values().filter(|f| self.ancestors(f.addr).contains(&addr)).collect()
    }

    /// The bridge whose secondary bus is `bus` (the port a device on `bus` hangs from), found as
    /// the parent of any function on that bus.
    pub(crate) fn port_of_bus(&self, segment: u16, bus: u8) -> Option<PciAddr> {
        self.functions.values().find(|f| f.addr.segment == segment && f.addr.bus == bus).and_then(|f| f.parent)
    }
}

/// Parses a sysfs speed (`16.0 GT/s PCIe`, `8 GT/s`, `2.5 GT/s PCIe`); `None` for `Unknown`.
fn sysfs_speed(s: &str) -> Option<f64> {
    s.split_whitespace().next()?.parse().ok().filter(|v: &f64| *v > 0.0)
}

/// Reads a small sysfs attribute as trimmed text; `None` when missing or unreadable.
fn attr(dir: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(name)).ok().map(|s| s.trim().to_owned())
}

fn hex_attr(dir: &Path, name: &str) -> Option<u32> {
    u32::from_str_radix(attr(dir, name)?.trim_start_matches("0x"), 16).ok()
}

/// Reads the PCI functions under `root/sys/devices` (the targets of `/sys/bus/pci/devices/*`):
/// every directory named like a PCI address below a `pci<segment>:<bus>` directory, at any
/// depth, symlinks not followed. The parent of a function is the nearest PCI-address directory
/// above it. Missing attributes are left unknown; an unreadable tree gives an empty one.
pub(crate) fn read_sysfs(root: &Path) -> PciTree {
    let mut tree = PciTree::default();
    let devices = root.join("sys/devices");
    let Ok(top) = std::fs::read_dir(&devices) else { return tree };
    let mut stack: Vec<(std::path::PathBuf, Option<PciAddr>, usize)> = Vec::new();
    for e in top.flatten() {
        if e.file_name().to_string_lossy().starts_with("pci") && e.file_type().is_ok_and(|t| t.is_dir()) {
            stack.push((e.path(), None, 0));
        }
    }
    while let Some((dir, parent, depth)) = stack.pop() {
        if depth > 24 {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(addr) = PciAddr::parse(&name) else { continue };
            let p = e.path();
            let f = PciFunction {
                addr,
                vendor: hex_attr(&p, "vendor").and_then(|v| u16::try_from(v).ok()).unwrap_or(0),
                device: hex_attr(&p, "device").and_then(|v| u16::try_from(v).ok()).unwrap_or(0),
                class: hex_attr(&p, "class").unwrap_or(0),
                parent,
                max_link: Link {
                    speed_gts: attr(&p, "max_link_speed").as_deref().and_then(sysfs_speed),
                    width: attr(&p, "max_link_width").and_then(|w| w.parse().ok()).filter(|&w| w > 0),
                },
                current_link: Link {
                    speed_gts: attr(&p, "current_link_speed").as_deref().and_then(sysfs_speed),
                    width: attr(&p, "current_link_width").and_then(|w| w.parse().ok()).filter(|&w| w > 0),
                },
                name: None,
            };
            tree.functions.insert(addr, f);
            stack.push((p, Some(addr), depth + 1));
        }
    }
    tree
}

/// `Speed 16GT/s (ok), Width x16 (ok)` or `Port #0, Speed 32GT/s, Width x8, ...` -> a link.
fn lspci_link(rest: &str) -> Link {
    let mut link = Link::default();
    for part in rest.split(',') {
        let part = part.trim();
        if let Some(s) = part.strip_prefix("Speed ") {
            let num = s.split("GT/s").next().unwrap_or("");
            link.speed_gts = num.trim().parse().ok();
        } else if let Some(w) = part.strip_prefix("Width x") {
            link.width = w.split_whitespace().next().and_then(|n| n.parse().ok()).filter(|&n: &u8| n > 0);
        }
    }
    link
}

/// Parses `lspci -vvnn` (or `-vvvnn`, with or without `-D`) text. Each function's header line
/// `BB:DD.F Class name [cccc]: Vendor Device [vvvv:dddd]` gives ids and class; `(prog-if NN`
/// the class's last byte; `LnkCap:` and `LnkSta:` the links; a bridge's `Bus: primary=PP,
/// secondary=SS, subordinate=UU` gives the parent of every function on buses SS..=UU (the
/// nearest such bridge). Lines it does not know are skipped.
pub(crate) fn parse_lspci_vv(text: &str) -> PciTree {
    let mut tree = PciTree::default();
    let mut ranges: Vec<(PciAddr, u8, u8)> = Vec::new();
    let mut cur: Option<PciAddr> = None;
    for line in text.lines() {
        if !line.starts_with(['\t', ' ']) && !line.trim().is_empty() {
            cur = None;
            let Some((addr_text, rest)) = line.split_once(' ') else { continue };
            let Some(addr) = PciAddr::parse(addr_text) else { continue };
            // `PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Device [1022:14db] (prog-if 00 ...)`
            let class_hi = rest
                .split_once("]:")
                .and_then(|(a, _)| a.rsplit_once('['))
                .and_then(|(_, c)| u32::from_str_radix(c, 16).ok());
            let after = rest.split_once("]:").map_or("", |(_, b)| b);
            let ids = after
                .match_indices('[')
                .filter_map(|(i, _)| {
                    let inner = after[i + 1..].split(']').next()?;
                    let (v, d) = inner.split_once(':')?;
                    if v.len() == 4 && d.len() == 4 {
                        Some((u16::from_str_radix(v, 16).ok()?, u16::from_str_radix(d, 16).ok()?))
                    } else {
                        None
                    }
                })
                .next_back();
            let prog_if = rest
                .split_once("(prog-if ")
                .and_then(|(_, p)| p.get(..2))
                .and_then(|p| u32::from_str_radix(p, 16).ok())
                .unwrap_or(0);
            let (Some(class_hi), Some((vendor, device))) = (class_hi, ids) else { continue };
            // The name without the ids and the revision / prog-if suffixes.
            let name = after.split(" (rev").next().unwrap_or(after).split(" (prog-if").next().unwrap_or(after);
            let id_tag = format!(" [{vendor:04x}:{device:04x}]");
            let name = name.trim().strip_suffix(id_tag.as_str()).unwrap_or(name.trim());
            tree.functions.insert(
                addr,
                PciFunction {
                    addr,
                    vendor,
                    device,
                    class: (class_hi << 8) | prog_if,
                    parent: None,
                    max_link: Link::default(),
                    current_link: Link::default(),
                    name: Some(name.trim().to_owned()),
                },
            );
            cur = Some(addr);
            continue;
        }
        let Some(addr) = cur else { continue };
        let t = line.trim();
        if let Some(r) = t.strip_prefix("LnkCap:") {
            if let Some(f) = tree.functions.get_mut(&addr) {
                f.max_link = lspci_link(r);
            }
        } else if let Some(r) = t.strip_prefix("LnkSta:") {
            if let Some(f) = tree.functions.get_mut(&addr) {
                f.current_link = lspci_link(r);
            }
        } else if let Some(r) = t.strip_prefix("Bus: ") {
            let field = |k: &str| {
                r.split(',').find_map(|p| p.trim().strip_prefix(k)).and_then(|v| u8::from_str_radix(v.trim(), 16).ok())
            };
            if let (Some(sec), Some(sub)) = (field("secondary="), field("subordinate=")) {
                ranges.push((addr, sec, sub));
            }
        }
    }
    // Parent: the bridge with the narrowest bus range holding the function's bus.
    let parents: Vec<(PciAddr, Option<PciAddr>)> = tree
        .functions
        .keys()
        .map(|&a| {
            let p = ranges
                .iter()
                .filter(|(b, sec, sub)| b.segment == a.segment && *b != a && (*sec..=*sub).contains(&a.bus))
                .min_by_key(|(_, sec, sub)| sub - sec)
                .map(|(b, _, _)| *b);
            (a, p)
        })
        .collect();
    for (a, p) in parents {
        if let Some(f) = tree.functions.get_mut(&a) {
            f.parent = p;
        }
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    const LSPCI: &str = "00:01.1 PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Device [1022:14db] (prog-if 00 [Normal decode])\n\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00\n\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x8, ASPM not supported\n\t\tLnkSta:\tSpeed 16GT/s, Width x8\n\n01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1) (prog-if 00 [VGA controller])\n\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n\t\tLnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)\n";

    #[test]
    fn lspci_text_gives_ids_links_and_parents() {
        let t = parse_lspci_vv(LSPCI);
        let port = &t.functions[&PciAddr::parse("00:01.1").expect("parses")];
        assert!(port.is_bridge());
        assert_eq!((port.vendor, port.device), (0x1022, 0x14db));
        assert_eq!(port.max_link.generation(), Some(5));
        assert_eq!(port.max_link.width, Some(8));
        let gpu = &t.functions[&PciAddr::parse("01:00.0").expect("parses")];
        assert!(gpu.is_gpu());
        assert_eq!((gpu.vendor, gpu.device), (0x10de, 0x2684));
        assert_eq!(gpu.parent, PciAddr::parse("00:01.1"));
        assert_eq!(gpu.current_link.text(), "PCIe 4.0 x8");
    }
}

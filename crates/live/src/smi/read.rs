//! The reader shared by both dump formats: `nvidia-smi -q` text sections and `-q -x` XML
//! elements become one tree of keys and values, and the GPU fields are read from it. Hand-parsed:
//! the text is indented `key : value` lines and the XML is plain elements with no namespaces or
//! DTD processing (NVIDIA's `nvsmi_device_v12.dtd` layout), so this stays smaller than an XML
//! crate; the real dumps in `tests/fixtures/nvidia-smi/` hold it.

use super::{SmiDump, SmiGpu};
use crate::reasons::ClockEventReasons;

// ---------------------------------------------------------------------------------------------
// One tree for both formats: `-q` text sections and XML elements.

#[derive(Debug, Default)]
pub(super) struct Node {
    /// The key as written (`GPU 00000000:01:00.0`, `Product Name`, `product_name`).
    pub(super) raw_key: String,
    /// Lower case, non-alphanumerics as `_` (`product_name`, `gpu_link_info`).
    key: String,
    value: Option<String>,
    /// The XML `id` attribute.
    pub(super) attr_id: Option<String>,
    pub(super) line: usize,
    pub(super) children: Vec<usize>,
}

#[derive(Debug)]
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
}

impl Tree {
    fn new() -> Self {
        Tree { nodes: vec![Node::default()] }
    }

    fn add(&mut self, parent: usize, raw_key: &str, line: usize) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node { raw_key: raw_key.to_owned(), key: norm_key(raw_key), line, ..Node::default() });
        self.nodes[parent].children.push(id);
        id
    }

    pub(super) fn find_child(&self, parent: usize, key: &str) -> Option<usize> {
        self.nodes[parent].children.iter().copied().find(|&c| self.nodes[c].key == key)
    }

    pub(super) fn children_named<'t>(&'t self, parent: usize, key: &'t str) -> impl Iterator<Item = usize> + 't {
        self.nodes[parent].children.iter().copied().filter(move |&c| self.nodes[c].key == key)
    }

    /// The node at `path` below `from`.
    fn at(&self, from: usize, path: &[&str]) -> Option<usize> {
        path.iter().try_fold(from, |n, k| self.find_child(n, k))
    }

    /// The value at the first of `paths` that exists and is known (not `N/A`).
    fn value(&self, from: usize, paths: &[&[&str]]) -> Option<&str> {
        paths.iter().find_map(|p| self.at(from, p).and_then(|n| known(self.nodes[n].value.as_deref())))
    }
}

fn norm_key(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

/// `None` for the placeholders nvidia-smi prints for missing values.
fn known(v: Option<&str>) -> Option<&str> {
    let v = v?.trim();
    let lower = v.to_ascii_lowercase();
    let missing = v.is_empty()
        || lower.starts_with("n/a")
        || lower.starts_with("[n/a")
        || lower.contains("not supported")
        || lower.contains("not available")
        || lower.contains("unknown error")
        || lower.contains("insufficient permissions")
        || lower.contains("deprecated");
    (!missing).then_some(v)
}

/// The leading number of a value: `350.00 W` → 350, `16x` → 16, `P8` → 8, `35 %` → 35.
fn number(v: &str) -> Option<f64> {
    let t = v.trim().trim_start_matches(['P', 'p']);
    let end = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(t.len());
    t[..end].parse::<f64>().ok().filter(|x| x.is_finite())
}

fn int<T: TryFrom<u64>>(v: Option<&str>) -> Option<T> {
    let x = number(v?)?;
    if x < 0.0 || x.fract() != 0.0 {
        return None;
    }
    // Whole and non-negative, checked above.
    T::try_from(x as u64).ok()
}

fn flag(v: Option<&str>) -> Option<bool> {
    match v?.trim().to_ascii_lowercase().as_str() {
        "enabled" | "yes" | "active" | "on" | "true" => Some(true),
        "disabled" | "no" | "not active" | "off" | "false" => Some(false),
        _ => None,
    }
}

/// `GPU-` and 32 hex digits in the 8-4-4-4-12 form; anything else (redacted) is unknown.
fn valid_uuid(v: &str) -> Option<String> {
    let rest = v.trim().strip_prefix("GPU-")?;
    let groups: Vec<&str> = rest.split('-').collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let ok = lens == [8, 4, 4, 4, 12] && groups.iter().all(|g| g.chars().all(|c| c.is_ascii_hexdigit()));
    ok.then(|| v.trim().to_owned())
}

pub(super) fn read_header(tree: &Tree, root: usize, dump: &mut SmiDump) {
    dump.timestamp = tree.value(root, &[&["timestamp"]]).map(str::to_owned);
    dump.driver_version = tree.value(root, &[&["driver_version"]]).map(str::to_owned);
    dump.cuda_version = tree.value(root, &[&["cuda_version"]]).map(str::to_owned);
    dump.attached_gpus = int(tree.value(root, &[&["attached_gpus"]]));
}

/// One GPU section of either format.
pub(super) fn read_gpu(tree: &Tree, gpu: usize) -> SmiGpu {
    let v = |paths: &[&[&str]]| tree.value(gpu, paths);
    let link = |text: &[&str], xml: &[&str]| -> Option<u32> {
        let text_path: Vec<&str> = ["pci", "gpu_link_info"].iter().chain(text).copied().collect();
        let xml_path: Vec<&str> = ["pci", "pci_gpu_link_info"].iter().chain(xml).copied().collect();
        int(v(&[text_path.as_slice(), xml_path.as_slice()]))
    };
    let power = ["gpu_power_readings", "power_readings"]
        .iter()
        .find_map(|s| tree.find_child(gpu, s).filter(|&n| !tree.nodes[n].children.is_empty()));
    let pw = |keys: &[&str]| -> Option<f64> {
        let p = power?;
        keys.iter().find_map(|k| tree.value(p, &[&[k]]).and_then(number))
    };
    let ecc = |scope: &str| ecc_counts(tree, gpu, scope);
    let (cv, uv) = ecc("volatile");
    let (ca, ua) = ecc("aggregate");
    SmiGpu {
        line: tree.nodes[gpu].line,
        bus_id: v(&[&["pci", "bus_id"], &["pci", "pci_bus_id"]]).map(str::to_owned),
        name: v(&[&["product_name"]]).map(str::to_owned),
        uuid: v(&[&["gpu_uuid"], &["uuid"]]).and_then(valid_uuid),
        persistence_mode: flag(v(&[&["persistence_mode"]])),
        pcie_gen_max: link(&["pcie_generation", "max"], &["pcie_gen", "max_link_gen"]),
        pcie_gen_current: link(&["pcie_generation", "current"], &["pcie_gen", "current_link_gen"]),
        pcie_gen_device_max: link(&["pcie_generation", "device_max"], &["pcie_gen", "max_device_link_gen"]),
        pcie_gen_host_max: link(&["pcie_generation", "host_max"], &["pcie_gen", "max_host_link_gen"]),
        pcie_width_max: link(&["link_width", "max"], &["link_widths", "max_link_width"]),
        pcie_width_current: link(&["link_width", "current"], &["link_widths", "current_link_width"]),
        utilization_gpu_pct: int(v(&[&["utilization", "gpu"], &["utilization", "gpu_util"]])),
        performance_state: int(v(&[&["performance_state"]])),
        memory_total_mib: int(v(&[&["fb_memory_usage", "total"]])),
        memory_used_mib: int(v(&[&["fb_memory_usage", "used"]])),
        temperature_c: int(v(&[&["temperature", "gpu_current_temp"], &["temperature", "gpu_temp"]])),
        power_draw_w: pw(&["power_draw", "average_power_draw", "instantaneous_power_draw", "instant_power_draw"]),
        power_limit_current_w: pw(&["current_power_limit", "enforced_power_limit"]),
        power_limit_requested_w: pw(&["requested_power_limit", "power_limit"]),
        power_limit_default_w: pw(&["default_power_limit"]),
        power_limit_min_w: pw(&["min_power_limit"]),
        power_limit_max_w: pw(&["max_power_limit"]),
        ecc_enabled: flag(v(&[&["ecc_mode", "current"], &["ecc_mode", "current_ecc"]])),
        ecc_pending_enabled: flag(v(&[&["ecc_mode", "pending"], &["ecc_mode", "pending_ecc"]])),
        ecc_corrected_volatile: cv,
        ecc_uncorrected_volatile: uv,
        ecc_corrected_aggregate: ca,
        ecc_uncorrected_aggregate: ua,
        retired_pages_single_bit: int(v(&[
            &["retired_pages", "single_bit_ecc"],
            &["retired_pages", "multiple_single_bit_retirement", "retired_count"],
        ])),
        retired_pages_double_bit: int(v(&[
            &["retired_pages", "double_bit_ecc"],
            &["retired_pages", "double_bit_retirement", "retired_count"],
        ])),
        retired_pages_pending: flag(v(&[
            &["retired_pages", "pending_page_blacklist"],
            &["retired_pages", "pending"],
            &["retired_pages", "pending_blacklist"],
        ])),
        remapped_rows_correctable: int(v(&[
            &["remapped_rows", "correctable_error"],
            &["remapped_rows", "remapped_row_corr"],
        ])),
        remapped_rows_uncorrectable: int(v(&[
            &["remapped_rows", "uncorrectable_error"],
            &["remapped_rows", "remapped_row_unc"],
        ])),
        remapped_rows_pending: flag(v(&[&["remapped_rows", "pending"], &["remapped_rows", "remapped_row_pending"]])),
        remapped_rows_failure: flag(v(&[
            &["remapped_rows", "remapping_failure_occurred"],
            &["remapped_rows", "remapped_row_failure"],
        ])),
        clock_event_reasons: clock_reasons(tree, gpu),
        xid_errors: None,
    }
}

/// (corrected, uncorrected) ECC errors of `scope` (`volatile` or `aggregate`): the sum of the
/// known counters, Ampere and later (`SRAM/DRAM Correctable`, `… Uncorrectable …`) or Pascal/Volta
/// (`Single Bit` / `Double Bit` `Total`).
fn ecc_counts(tree: &Tree, gpu: usize, scope: &str) -> (Option<u64>, Option<u64>) {
    let Some(section) = tree.at(gpu, &["ecc_errors", scope]) else { return (None, None) };
    let total = |sub: &str| int::<u64>(tree.value(section, &[&[sub, "total"]]));
    let (mut corr, mut unc) = (total("single_bit"), total("double_bit"));
    for &c in &tree.nodes[section].children {
        let node = &tree.nodes[c];
        let Some(count) = int::<u64>(known(node.value.as_deref())) else { continue };
        if node.key.contains("uncorrectable") {
            unc = Some(unc.unwrap_or(0) + count);
        } else if node.key.contains("correctable") {
            corr = Some(corr.unwrap_or(0) + count);
        }
    }
    (corr, unc)
}

/// The active clock event reasons of the `Clocks Event Reasons` / `Clocks Throttle Reasons`
/// section (nested `HW Thermal Slowdown` lines included); `None` when no reason is readable.
fn clock_reasons(t: &Tree, g: usize) -> Option<ClockEventReasons> {
    let s = ["clocks_event_reasons", "clocks_throttle_reasons"].iter().find_map(|k| t.find_child(g, k))?;
    let mut bits = 0u64;
    let mut seen = false;
    let mut stack = t.nodes[s].children.clone();
    while let Some(c) = stack.pop() {
        let n = &t.nodes[c];
        stack.extend(n.children.iter().copied());
        let name =
            n.key.trim_start_matches("clocks_throttle_reason_").trim_start_matches("clocks_event_reason_").to_owned();
        let bit = match name.as_str() {
            "idle" | "gpu_idle" => 0x1,
            "applications_clocks_setting" => 0x2,
            "sw_power_cap" => 0x4,
            "hw_slowdown" => 0x8,
            "sync_boost" => 0x10,
            "sw_thermal_slowdown" => 0x20,
            "hw_thermal_slowdown" => 0x40,
            "hw_power_brake_slowdown" => 0x80,
            "display_clock_setting" | "display_clocks_setting" => 0x100,
            _ => continue,
        };
        match flag(known(n.value.as_deref())) {
            Some(true) => {
                bits |= bit;
                seen = true;
            }
            Some(false) => seen = true,
            None => {}
        }
    }
    seen.then_some(ClockEventReasons(bits))
}

/// `-q` text as a tree by indentation: `Key : Value` lines are leaves (or sections when lines
/// indented deeper follow), lines without ` : ` are sections.
pub(super) fn parse_text(text: &str) -> Tree {
    let mut tree = Tree::new();
    // (indent, node) of the open sections.
    let mut open: Vec<(usize, usize)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let content = line.trim_start();
        if content.is_empty() || content.contains("NVSMI LOG") {
            continue;
        }
        let indent = line.chars().take_while(|c| c.is_whitespace()).map(|c| if c == '\t' { 8 } else { 1 }).sum();
        let (key, value) = match content.find(" : ") {
            Some(p) => (content[..p].trim(), Some(content[p + 3..].trim())),
            None => match content.strip_suffix(':') {
                Some(k) if k.ends_with(' ') => (k.trim(), Some("")),
                _ => (content, None),
            },
        };
        while open.last().is_some_and(|&(i, _)| i >= indent) {
            open.pop();
        }
        let parent = open.last().map_or(0, |&(_, n)| n);
        let id = tree.add(parent, key, k + 1);
        tree.nodes[id].value = value.map(str::to_owned);
        open.push((indent, id));
    }
    tree
}

/// `-q -x` XML as a tree of elements. Errors are (line, column, message), 1-based.
pub(super) fn parse_xml(text: &str) -> Result<Tree, (usize, usize, String)> {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let loc = |off: usize| -> (usize, usize) {
        let line = starts.partition_point(|&s| s <= off);
        let col = text[starts[line - 1]..off].chars().count() + 1;
        (line, col)
    };
    let fail = |off: usize, m: String| {
        let (l, c) = loc(off);
        (l, c, m)
    };
    let mut tree = Tree::new();
    // (node, byte offset of its start tag, its text so far)
    let mut open: Vec<(usize, usize, String)> = vec![(0, 0, String::new())];
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if !rest.starts_with('<') {
            let end = rest.find('<').map_or(text.len(), |p| i + p);
            if let Some(top) = open.last_mut() {
                top.2.push_str(&decode_entities(&text[i..end]));
            }
            i = end;
            continue;
        }
        let skip_to = |close: &str, what: &str| -> Result<usize, (usize, usize, String)> {
            rest.find(close)
                .map(|p| i + p + close.len())
                .ok_or_else(|| fail(i, format!("{what} is never closed: the file is cut short")))
        };
        if rest.starts_with("<?") {
            i = skip_to("?>", "<?…?>")?;
        } else if rest.starts_with("<!--") {
            i = skip_to("-->", "the comment <!--")?;
        } else if rest.starts_with("<![CDATA[") {
            let end = skip_to("]]>", "<![CDATA[")?;
            if let Some(top) = open.last_mut() {
                top.2.push_str(&text[i + 9..end - 3]);
            }
            i = end;
        } else if rest.starts_with("<!") {
            i = skip_to(">", "<!DOCTYPE")?;
        } else if let Some(close) = rest.strip_prefix("</") {
            let end = close.find('>').ok_or_else(|| fail(i, "the file is cut short inside a closing tag".into()))?;
            let name = close[..end].trim();
            let Some((node, at, body)) = open.pop().filter(|(n, _, _)| *n != 0) else {
                return Err(fail(i, format!("</{name}> closes an element that was never opened")));
            };
            if tree.nodes[node].raw_key != name {
                let (l, _) = loc(at);
                return Err(fail(
                    i,
                    format!("</{name}> does not close <{}> opened at line {l}", tree.nodes[node].raw_key),
                ));
            }
            let body = body.trim();
            if !body.is_empty() {
                tree.nodes[node].value = Some(body.to_owned());
            }
            i += 2 + end + 1;
        } else {
            let end = tag_end(rest).ok_or_else(|| fail(i, "the file is cut short inside a start tag".into()))?;
            let inner = &rest[1..end];
            let self_closing = inner.ends_with('/');
            let inner = inner.trim_end_matches('/');
            let name_end = inner.find(|c: char| c.is_whitespace()).unwrap_or(inner.len());
            let name = &inner[..name_end];
            if name.is_empty() {
                return Err(fail(i, "an element without a name".into()));
            }
            let parent = open.last().map_or(0, |o| o.0);
            let (line, _) = loc(i);
            let id = tree.add(parent, name, line);
            tree.nodes[id].attr_id = attribute(&inner[name_end..], "id");
            if !self_closing {
                open.push((id, i, String::new()));
            }
            i += end + 1;
        }
    }
    if let Some((node, at, _)) = open.iter().rev().find(|(n, _, _)| *n != 0) {
        let (l, c) = loc(*at);
        return Err((
            starts.len(),
            0,
            format!(
                "the XML ends inside <{}> opened at line {l}, column {c}: the file is cut short (truncated copy?)",
                tree.nodes[*node].raw_key
            ),
        ));
    }
    Ok(tree)
}

/// The offset of the `>` that ends the tag at the start of `s`, quotes respected.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote = None;
    for (k, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(k),
            (None, '<') => return None,
            _ => {}
        }
    }
    None
}

fn attribute(attrs: &str, name: &str) -> Option<String> {
    let at = attrs.find(&format!("{name}="))?;
    let rest = &attrs[at + name.len() + 1..];
    let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    body.find(q).map(|e| decode_entities(&body[..e]))
}

fn decode_entities(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
}

// ---------------------------------------------------------------------------------------------
// Grading a dump.
